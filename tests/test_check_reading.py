"""What a check's page, page 1 and the claims ledger's summary say a check shows
(:mod:`pdp_audit.reports.check_reading`): never a number that contradicts the verdict beside it, never a basis the
check did not stand on."""

from __future__ import annotations

from pdp_audit.reports.check_reading import basis, evidence_lines, key_number, reading
from pdp_audit.reports.records import Check


def check(verdict: str, **fields) -> Check:
    base = dict(id="c", title="t", claim="c", formula="f", source="s", verdict=verdict)
    return Check(**{**base, **fields})


def test_a_failed_closed_form_delta_reads_above_the_claim():
    """Lemma 2.4 of the claims run read "δ(0.00119) = 0.0054 (closed form) ≤ δ = 1e-05" beside its FAIL."""
    failed = check(
        "fail",
        estimate=0.00539,
        exact=0.0054,
        ci=(0.00495, 0.00582),
        pvalue=1e-60,
        level=0.9999995,
        details={"epsilon": 0.00119, "delta_claim": 1e-5, "sampling": "importance"},
    )
    assert basis(failed) == "closed form; importance sampling agrees"
    assert reading(failed) == "δ(0.00119) = 0.0054 (closed form) > δ = 1e-05"
    assert evidence_lines(failed)[0] == "Decides: δ(0.00119) = 0.0054 (closed form) > δ = 1e-05."


def test_a_failed_sampled_bound_reads_its_lower_end_above_the_claim():
    """K16 read "P[bound fails] ≤ 1 (ρ = 8.46e-06)" beside its FAIL: an upper end says nothing against a claim."""
    failed = check("fail", estimate=1.0, ci=(0.9971, 1.0), pvalue=0.0, level=0.999999, details={"rho": 8.46e-6})
    assert reading(failed) == "P[bound fails] ≥ 0.997 > ρ = 8.46e-06"
    delta = check("fail", estimate=0.02, ci=(0.015, 0.025), pvalue=0.0, details={"epsilon": 1.0, "delta_claim": 1e-5})
    assert reading(delta) == "δ(1) ≥ 0.015 > δ = 1e-05"
    undecided = check("inconclusive", estimate=0.0, ci=(0.0, 1.2e-4), pvalue=0.5, details={"delta_claim": 1e-5})
    assert reading(undecided) == "δ(ε) in [0, 0.00012], which contains δ = 1e-05"


def test_a_pass_decided_by_a_closed_failure_rate_reads_it_not_the_wider_interval():
    """Corollary 23 read "P[bound fails] ≤ 0.0109 (ρ = 0.01)" beside its PASS: the closed form 0.00723 decided."""
    passed = check("pass", estimate=0.0072, exact=0.00723, ci=(0.00446, 0.0109), pvalue=1.0, details={"rho": 0.01})
    assert basis(passed) == "closed form; Monte Carlo agrees"
    assert reading(passed) == "P[bound fails] = 0.00723 (closed form) ≤ ρ = 0.01"


def test_a_fitted_exponent_is_no_exact_computation():
    """The ledger's rate checks read "exact computation", "holds" and "closed form -0.25" (the claimed exponent)."""
    fit = check(
        "pass",
        estimate=-0.492,
        exact=-0.125,
        ci=(-0.747, -0.238),
        level=1 - 1e-6,
        details={"points": [[1000, 0.1]], "relation": "<=", "x": "n_rows"},
    )
    assert basis(fit) == "power-law fit over the sweep's cells at confidence 1 − 1e-6"
    assert reading(fit) == "exponent -0.492 in [-0.747, -0.238], not above the claimed bound -0.125"
    assert "closed form" not in " ".join(evidence_lines(fit))


def test_a_check_that_tested_nothing_says_so():
    untested = check("inconclusive", note="The guarantee does not apply: its hypothesis did not hold.")
    assert basis(untested) == "nothing tested (see the note)"
    assert reading(untested) == key_number(untested) == "nothing tested"


def test_the_claims_key_number_is_the_pages_reading():
    exact = check("fail", estimate=0.0967, details={"threshold": 0.5})
    assert key_number(exact) == "computed 0.0967 (violated)"
    sampled = check("pass", estimate=0.0075, ci=(0.00117, 0.0238), pvalue=1.0, details={"rho": 0.03})
    assert key_number(sampled) == reading(sampled) == "P[bound fails] ≤ 0.0238 (ρ = 0.03)"


def test_a_calibrated_closed_form_equal_to_delta_reads_as_its_pass():
    """The Gaussian run at its analytic calibration read "δ(1) = 1e-05 (closed form) > δ = 1e-05" beside its PASS:
    the closed form is δ to rounding, and the checks' tolerance passes it."""
    calibrated = check(
        "pass",
        estimate=1.0e-5,
        exact=1.0000000000001e-5,
        ci=(0.9e-5, 1.1e-5),
        pvalue=1.0,
        details={"epsilon": 1.0, "delta_claim": 1e-5, "sampling": "importance"},
    )
    assert reading(calibrated) == "δ(1) = 1e-05 (closed form) ≤ δ = 1e-05"


def test_declared_checks_cite_papers_and_methods_not_files_or_internal_labels():
    """Sources read "Definition D1" (a label of the suite's own design notes) and a note
    "(verify/estimators/tilting.py)": a
    reader has neither.  Every declared check's text cites a paper or names a method."""
    import re

    from pdp_audit.catalogue.plans import plans_by_name
    from pdp_audit.ledger.rates import RATES

    texts = [
        (plan.name, spec.id, getattr(spec, field))
        for plan in plans_by_name().values()
        for spec in plan.checks.values()
        for field in ("title", "claim", "formula", "source")
    ]
    texts += [("claims", r.id, t) for r in RATES.values() for t in (r.title, r.claim, r.formula, r.source, r.reading)]
    unreadable = re.compile(r"Definition D\d|\b[\w/]+\.py\b|tests/|benchmarks/|::")
    assert [t for t in texts if unreadable.search(t[2])] == []


def test_a_pass_on_a_closed_form_upper_bound_reads_the_bound():
    """Proposition 21 read "P[bound fails] ≤ 0.0126 (ρ = 0.01)" beside its PASS: the pass stands on the closed-form
    bound P[fail] ≤ P[‖N‖₂ > λ/2] ≤ 0.01, which the sampled interval only has to meet."""
    passed = check(
        "pass",
        estimate=0.0015,
        ci=(2.76e-6, 0.0126),
        pvalue=1.0,
        level=0.99999994,
        details={"rho": 0.01, "closed_form_upper": 0.00998},
    )
    assert basis(passed) == "closed-form bound; Monte Carlo agrees"
    assert reading(passed) == "P[bound fails] ≤ 0.00998 (closed-form bound) ≤ ρ = 0.01"
    assert evidence_lines(passed)[0] == "Decides: P[bound fails] ≤ 0.00998 (closed-form bound) ≤ ρ = 0.01."


def test_an_undecided_check_beside_a_closed_form_is_read_as_sampling_that_could_not_settle_it():
    """AdaSSP's per-release budgets (Q52) read "closed form; importance sampling agrees" beside INCONCLUSIVE."""
    undecided = check(
        "inconclusive",
        estimate=3.49e-6,
        exact=3.47e-6,
        ci=(3.26e-6, 3.72e-6),
        pvalue=0.3,
        level=0.9999995,
        details={"epsilon": 0.333, "delta_claim": 3.33e-6, "sampling": "importance"},
    )
    assert basis(undecided) == "importance sampling at confidence 1 − 5e-7"
    assert reading(undecided) == (
        "δ(0.333) = 3.47e-06 (closed form) > δ = 3.33e-06; sampled in [3.26e-06, 3.72e-06], undecided"
    )
    assert evidence_lines(undecided)[0].startswith("Decides: importance sampling, estimate")


def test_page_one_says_how_many_guarantees_it_holds_and_counts_like_its_rows():
    """A table that continues overleaf says so in its header ("guarantee (6 of 10)"), and the Holm count names the
    statistical guarantees among all the rows ("the 6 statistical guarantees of 10"): page 1 read "Holm over 9
    statistical guarantees" above 10 rows, and stopped after 6 of them with no word of the rest."""
    from pdp_audit.reports.cover import _holm_count

    class Row:
        def __init__(self, statistical):
            self.statistical = statistical

    assert _holm_count([Row(True)] * 4) == "4 statistical guarantees"
    assert _holm_count([Row(True)] * 9 + [Row(False)]) == "the 9 statistical guarantees of 10"
