"""``--report none`` draws no figure and samples no point only a figure shows (issue 44), and its JSON is the JSON of
a run with figures: only the PDF shows them."""

from __future__ import annotations

import pdp_audit
from pdp_audit.reports.json_report import dumps
from pdp_audit.verify.core.checks import without_figures


def test_a_run_without_figures_has_the_same_json_and_no_figure():
    kwargs = {"claim_epsilon": 1.0, "claim_delta": 1e-5, "trials": 2000, "seed": 3}
    drawn = pdp_audit.run_audit("gaussian", **kwargs)
    with without_figures():
        bare = pdp_audit.run_audit("gaussian", **kwargs)
    assert any(check.figure is not None for check in drawn.checks)  # the comparison is not of two bare runs
    assert all(check.figure is None for check in bare.checks)
    profiled = [c for c in drawn.checks if c.details.get("profile_importance_epsilons")]
    assert profiled  # importance-sampled figure points exist with figures, and the details say where
    assert dumps(bare) == dumps(drawn)
