"""Example: a grid of built-in audits as pytest tests, run in parallel and merged into one report.

    pytest -n auto -m audit --audit-report audit-grid examples/test_audit_grid.py

Each test is the cell of ``pdp-audit sweep`` with the same options (``privacy_audit.run``), so the sweep

    pdp-audit sweep examples/sweep-audit-grid.toml --report sweep-audit-grid.pdf

computes the same numbers: the same seeds (root seed ``--audit-seed`` = the spec's ``seed``, 0) and the same α
per cell (the spec's family-wise α is 6 × 1e-6, the plugin's ``--audit-alpha``, split over its 6 cells).
The grid audits One-Posterior-Sample ([LR] App. F) on the bundled diabetes data and on synthetic data at three
claimed ε; every cell is correct, so every test passes (or is reported UNDECIDED when inconclusive, which is not
a pass).
"""

import pytest

OPTIONS = {"trials": 20_000, "search": 32}  # small budgets (the grid's time: docs/how-to/own-mechanism.md)
GRID = [
    {"claim_epsilon": epsilon, **data}
    for epsilon in (0.5, 1.0, 2.0)
    for data in ({"dataset": "diabetes"}, {"synthetic": "500,5"})
]


@pytest.mark.audit
@pytest.mark.parametrize("cell", GRID, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_ops_meets_its_claim(privacy_audit, cell):
    outcome = privacy_audit.run("ops", **OPTIONS, **cell)
    assert outcome.verdict == "pass"
