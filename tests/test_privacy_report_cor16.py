"""Corollary 16 (``cor16``, ``--paper-claims``) decided with proven bounds on δ(ε), no tolerance
(:func:`pdp_audit.audits.privacy_report.statements._corollary16_verdict`): a printed ε a hair below the exact one
fails, one within the formulas' rounding is undecided, one above it passes."""

from __future__ import annotations

import numpy as np
import pytest

from pdp_audit.audits.privacy_report import statements
from pdp_audit.mechanisms import gaussian as g

DELTA = 1e-5


@pytest.mark.parametrize(("ratio", "verdict"), [(1 - 1e-10, "fail"), (1.0, "inconclusive"), (1 + 1e-10, "pass")])
def test_a_row_printed_at_its_exact_epsilon_is_decided_only_outside_rounding(ratio, verdict):
    """A row whose printed pDP ε is its exact ε (η = 0.5) times ``ratio``; the DP part (ε ≥ 1) is not in play.
    Seen failing: printed ≥ exact · (1 − 1e-9) passed the row 1e-10 below its exact ε, and the one at it."""
    exact = g.analytic_epsilon(DELTA, 1.0, 0.5)
    found = statements._corollary16_verdict(np.array([exact * ratio]), np.array([0.5]), 2.0, 0.5, DELTA)
    assert found == verdict


@pytest.mark.parametrize(("ratio", "verdict"), [(1 - 1e-10, "fail"), (1.0, "inconclusive"), (1 + 1e-10, "pass")])
def test_the_dp_claim_at_the_largest_shift_is_decided_only_outside_rounding(ratio, verdict):
    """The claim ε < 1 against the exact ε of the largest shift η = 0.15 (rows comfortably valid).
    Seen failing: dp_exact ≤ ε · (1 + 1e-9) passed a claim 1e-10 below the exact ε."""
    exact = g.analytic_epsilon(DELTA, 1.0, 0.15)
    rows = statements._corollary16_verdict(np.array([1.0]), np.array([0.01]), exact * ratio, 0.15, DELTA)
    assert rows == verdict
