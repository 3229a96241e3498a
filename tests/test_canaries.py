"""`pdp-audit canaries` and `pdp_audit.audit_canary_scores`: the ε lower bound from in/out canary scores is valid on
scores whose true ε is known (exact privacy losses of the Gaussian mechanism), a bound that ignores δ is caught by
the same validity test, the TPR intervals are exact, and the command's exit codes, one-line errors and reports."""

from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest
from scipy import stats

import pdp_audit
from pdp_audit.audits.canaries.membership import auroc, tpr_at_fpr
from pdp_audit.cli.main import main
from pdp_audit.mechanisms import gaussian as g
from pdp_audit.verify.estimators.attack import pooled_rank_attack
from pdp_audit.verify.estimators.engine import sample_privacy_loss

ALPHA, DELTA = 1e-6, 1e-5


def gaussian_scores(sigma: float, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact privacy losses of the Gaussian mechanism (Δ = 1, noise σ): in-canaries from D, out-canaries from D'."""
    pair = g.GaussianPair([0.0], [1.0], sigma)
    return sample_privacy_loss(pair, "D", n, seed), sample_privacy_loss(pair, "D'", n, seed + 1000)


def leaky_by_delta(n: int, seed: int, leak: float = 0.01) -> tuple[np.ndarray, np.ndarray]:
    """A (0, leak)-DP pair: with probability ``leak`` an in-canary's score is 10 (its membership revealed), else both
    worlds score N(0, 1) -- the true ε at δ = leak is 0."""
    rng = np.random.default_rng(seed)
    pos = np.where(rng.random(n) < leak, 10.0, rng.standard_normal(n))
    return pos, rng.standard_normal(n)


@pytest.mark.parametrize("sigma", [g.analytic_sigma(1.0, DELTA), 1.87, 1.0])
def test_the_bound_never_exceeds_the_true_epsilon_and_sees_a_leaky_run(sigma):
    """Validity at α = 1e-6 on four seeds each: a bound above the true ε would be a false alarm of probability ≤ 1e-6
    per seed (12 in all); the bound is positive: these runs leak (true ε 1 to 4.4)."""
    true = g.analytic_epsilon(DELTA, sigma)
    for seed in range(4):
        pos, neg = gaussian_scores(sigma, 20_000, seed)
        bound = pooled_rank_attack(pos, neg, DELTA, seed).epsilon_lower_bound_at(ALPHA)
        assert 0 < bound <= true, (sigma, seed, bound, true)


def test_a_bound_that_ignores_delta_fails_the_validity_test():
    """On a (0, 0.01)-DP pair the bound at δ = 0.01 is 0 (valid); the same scores bounded as if δ were 0 -- the
    deliberately broken bound -- exceed the true ε = 0, which the validity test above would flag."""
    for seed in range(3):
        pos, neg = leaky_by_delta(20_000, seed)
        assert pooled_rank_attack(pos, neg, 0.01, seed).epsilon_lower_bound_at(ALPHA) == 0.0
        assert pooled_rank_attack(pos, neg, 0.0, seed).epsilon_lower_bound_at(ALPHA) > 0.5


def test_the_api_refutes_a_false_claim_and_never_certifies():
    pos, neg = gaussian_scores(1.0, 10_000, 3)  # true ε 4.38 at δ = 1e-5
    refuted = pdp_audit.audit_canary_scores(pos, neg, DELTA, claim_epsilon=1.0)
    assert refuted.verdict == "fail" and refuted.exit_code == 1
    (check,) = refuted.checks
    assert check.id == "canary-epsilon" and 1.0 < check.ci[0] <= g.analytic_epsilon(DELTA, 1.0)
    kept = pdp_audit.audit_canary_scores(pos, neg, DELTA, claim_epsilon=5.0)
    assert kept.verdict == "inconclusive" and kept.exit_code == 3
    assert kept.checks[0].ci[0] == check.ci[0]  # the claim changes the verdict, never the bound
    unclaimed = pdp_audit.audit_canary_scores(pos, neg, DELTA)
    assert unclaimed.exit_code == 3 and unclaimed.parameters["epsilon"] is None
    assert unclaimed.checks[0].details["claim_tested"] is False and "No claim tested" in unclaimed.checks[0].claim


@pytest.mark.parametrize("fpr", [1e-3, 1e-2, 1e-1])
def test_tpr_intervals_are_scipys_exact_intervals_at_a_threshold_of_the_out_scores(fpr):
    pos, neg = gaussian_scores(1.0, 5_000, 7)
    r = tpr_at_fpr(pos, neg, fpr)
    assert r.true_positives == int(np.sum(pos > r.threshold))
    ci = stats.binomtest(r.true_positives, pos.size).proportion_ci(confidence_level=0.95, method="exact")
    assert r.tpr_lo == pytest.approx(ci.low, rel=1e-9, abs=1e-15)
    assert r.tpr_hi == pytest.approx(ci.high, rel=1e-9)
    # the rule's FPR is at most the nominal one, and no lower out-score would keep it so
    k = int(np.floor(fpr * neg.size + 1e-9))
    assert r.false_positives <= k < int(np.sum(neg >= r.threshold))
    assert tpr_at_fpr(pos, neg[:500], 1e-3) is None  # 500 out-scores do not resolve FPR 1e-3


def test_auroc_is_the_mann_whitney_statistic():
    pos, neg = gaussian_scores(2.0, 3_000, 1)
    pos = np.round(pos, 1)  # ties count one half
    u = stats.mannwhitneyu(pos, neg).statistic
    assert auroc(pos, neg) == pytest.approx(u / (pos.size * neg.size), rel=1e-12)


def test_api_arguments_are_checked_before_any_work():
    for bad, needle in (
        ([1.0], "at least 2"),
        ([1.0, float("nan")], "row 1"),
        (np.zeros((3, 2)), "1-D"),
        (["a", "b"], "real numbers"),
    ):
        with pytest.raises(pdp_audit.InputError, match=needle):
            pdp_audit.audit_canary_scores(bad, [0.0, 1.0], DELTA)
    with pytest.raises(pdp_audit.InputError, match="delta"):
        pdp_audit.audit_canary_scores([0.0, 1.0], [0.0, 1.0], 1.5)


def _write_scores(tmp_path, seed=0, sigma=1.0, n=5_000):
    pos, neg = gaussian_scores(sigma, n, seed)
    (tmp_path / "in.csv").write_text("id,score\n" + "".join(f"{i},{float(x)!r}\n" for i, x in enumerate(pos)))
    np.save(tmp_path / "out.npy", neg)
    return ["--in-scores", str(tmp_path / "in.csv"), "--column", "score", "--out-scores", str(tmp_path / "out.npy")]


def test_report_none_writes_no_pdf_as_in_every_command(tmp_path, monkeypatch, capsys):
    """It wrote a PDF named ``none``: every other command spells "no PDF" that way."""
    files = _write_scores(tmp_path, n=2_000)
    monkeypatch.chdir(tmp_path)
    assert main(["canaries", *files, "--delta", "1e-5", "--report", "none"]) == 3
    assert not (tmp_path / "none").exists() and "report:" not in capsys.readouterr().out
    assert not (tmp_path / "pdp-audit-canaries.pdf").exists()


def test_a_report_is_written_by_default_as_run_and_certify_write_one(tmp_path, monkeypatch, capsys):
    """Where the report goes without --report; its pages are a stand-in here (tests/test_layout.py draws them)."""
    from pathlib import Path

    from pdp_audit.reports import pdf

    monkeypatch.setattr(pdf, "render_pdf", lambda run, path: Path(path).write_bytes(b"%PDF-1.4 stand-in\n"))
    files = _write_scores(tmp_path, n=2_000)
    monkeypatch.chdir(tmp_path)
    assert main(["canaries", *files, "--delta", "1e-5"]) == 3
    assert (tmp_path / "pdp-audit-canaries.pdf").read_bytes().startswith(b"%PDF")
    assert "report: pdp-audit-canaries.pdf" in capsys.readouterr().out


# slow: the wheel smoke test runs the command's exit codes 3, 1 and 2 and its PDF
@pytest.mark.slow
def test_cli_exit_codes_reports_and_reproducibility(tmp_path, monkeypatch, capsys):
    files = _write_scores(tmp_path, n=2_000)
    monkeypatch.chdir(tmp_path)  # runs without --report write pdp-audit-canaries.pdf here
    report, doc = tmp_path / "c.pdf", tmp_path / "c.json"
    args = [*files, "--delta", "1e-5", "--report", str(report), "--json", str(doc)]
    assert main(["canaries", *args]) == 3
    assert "UNDECIDED" in capsys.readouterr().out
    first = report.read_bytes()
    assert first.startswith(b"%PDF")
    assert main(["canaries", *args]) == 3
    assert report.read_bytes() == first  # same seed, same bytes
    args = [*files, "--delta", "1e-5", "--json", str(doc)]
    assert main(["canaries", *args, "--claim-epsilon", "9"]) == 3
    assert json.loads(doc.read_text())["checks"][0]["details"]["claim_tested"] is True
    assert main(["canaries", *args, "--claim-epsilon", "1"]) == 1
    assert "REFUTED" in capsys.readouterr().out
    data = json.loads(doc.read_text())
    assert data["exit_code"] == 1 and data["parameters"]["epsilon"] == 1.0
    assert main(["canaries", *args]) == 3
    data = json.loads(doc.read_text())
    assert data["exit_code"] == 3 and data["parameters"]["epsilon"] is None
    details = data["checks"][0]["details"]
    assert details["claim_tested"] is False and [r["fpr"] for r in details["tpr_at_fpr"]] == [1e-3, 1e-2, 1e-1]
    assert "No claim tested" in data["checks"][0]["claim"] and "not a certificate" in data["pages"][0]["text"]
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", str(report), "-"], capture_output=True, text=True, check=True).stdout
        for needle in ("Independent canaries", "not an upper bound", "AUROC", "TPR at FPR 0.001", "No claim tested"):
            assert needle in " ".join(text.split()), needle


@pytest.mark.parametrize(
    "content,column,needle",
    [
        ("score\n1\nabc\n", None, "row 2 (line 3), column 'score': 'abc' is not a number"),
        ("score\n1\n\n2\ninf\n", None, "row 3 (line 5), column 'score': inf; scores must be finite"),
        ("id,score\n1,1\n2,\n", "score", "row 2 (line 3), column 'score': empty"),
        ("", None, "empty file"),
        ("score\n1\n", None, "1 value(s) in column 'score'; at least 2"),
        ("a,b\n1,2\n3,4\n", None, "2 columns ('a', 'b'); name the one to read with --column"),
        ("a,b\n1,2\n3,4\n", "c", "no column 'c'"),
        ("score,score\n1,2\n3,4\n", "score", "2 columns are named 'score'"),  # the first was read, silently
    ],
)
def test_cli_bad_input_is_one_line_naming_file_row_and_column(tmp_path, capsys, content, column, needle):
    _write_scores(tmp_path, n=100)
    (tmp_path / "bad.csv").write_text(content)
    files = ["--in-scores", str(tmp_path / "bad.csv"), "--out-scores", str(tmp_path / "out.npy")]
    assert main(["canaries", *files, *(["--column", column] if column else []), "--delta", "1e-5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.csv" in err and needle in err, err


def test_cli_refuses_npy_that_is_not_a_vector_and_outputs_over_inputs(tmp_path, capsys):
    files = _write_scores(tmp_path, n=100)
    np.save(tmp_path / "out.npy", np.zeros((5, 2)))
    assert main(["canaries", *files, "--delta", "1e-5"]) == 2
    assert "out.npy: expected a 1-D array" in capsys.readouterr().err
    files = _write_scores(tmp_path, n=100)
    assert main(["canaries", *files, "--delta", "1e-5", "--json", files[1]]) == 2
    assert "would be overwritten" in capsys.readouterr().err
    assert main(["canaries", *files]) == 2  # --delta is required
    assert main(["canaries", *files, "--delta", "1e-5", "--scores", files[1]]) == 2
    assert "--one-run" in capsys.readouterr().err


def _ranked_by_lexsort(pos, neg, delta, seed):
    """The pooled-rank counts as first written: both subsets pooled and ranked by (score, uniform) with one lexsort
    (the independent computation the merge of the sorted subsets must reproduce exactly)."""
    rng = np.random.default_rng(seed)
    n, m = pos.size, neg.size
    attack = pooled_rank_attack(pos, neg, delta, seed)  # for λ and the ranks only
    size_pos, size_neg = int(rng.poisson(attack.lam_pos)), int(rng.poisson(attack.lam_neg))
    if not attack.poissonised:  # a Poisson size above the sample: no ranking (bound 0)
        return attack.top_pos, attack.bottom_neg, attack.top_scores, attack.bottom_scores
    scores = np.concatenate([pos[rng.permutation(n)[:size_pos]], neg[rng.permutation(m)[:size_neg]]])
    order = np.lexsort((rng.random(scores.size), scores))[::-1]
    is_pos = np.concatenate([np.ones(size_pos, bool), np.zeros(size_neg, bool)])[order]
    top = np.concatenate([[0], np.cumsum(is_pos)])
    bottom = np.concatenate([[0], np.cumsum(~is_pos[::-1])])
    at = np.minimum(attack.ranks, scores.size)
    return top[at], bottom[at], scores[order][at - 1], scores[order][::-1][at - 1]


@pytest.mark.parametrize(
    "kind", ["continuous", "ties within and across", "signed zeros", "one value", "infinite", "small"]
)
def test_pooled_ranks_from_the_sorted_scores_are_the_lexsort_ranks(kind):
    """The counts and scores at the fixed ranks, from one sort per score set (given or not), equal bit for bit those
    of one lexsort of the pooled subsets with the tie-breaking uniforms; ties across the sets, ±0 and infinities
    take the uniforms' order."""
    rng = np.random.default_rng(11)
    n, m = (7, 5) if kind == "small" else (3000, 2000)
    pos, neg = rng.normal(0.5, 1, n), rng.normal(0, 1, m)
    if kind == "ties within and across":
        pos, neg = np.round(pos, 1), np.round(neg, 1)
    elif kind == "signed zeros":
        pos[:50], neg[:40] = -0.0, 0.0
        pos[50:60] = 0.0
    elif kind == "one value":
        pos, neg = np.ones(n), np.ones(m)
    elif kind == "infinite":
        pos[:30], neg[:20] = np.inf, -np.inf
    for seed in range(6):
        expected = _ranked_by_lexsort(pos, neg, 1e-5, seed)
        for given in (None, (np.sort(pos), np.sort(neg))):
            attack = pooled_rank_attack(pos, neg, 1e-5, seed, sorted_scores=given)
            got = (attack.top_pos, attack.bottom_neg, attack.top_scores, attack.bottom_scores)
            for a, b in zip(got, expected):
                assert a.tobytes() == b.tobytes(), (kind, seed)


@pytest.mark.parametrize("decimals", [None, 1, 0])
def test_auroc_roc_and_rates_from_sorted_scores_are_sklearns_and_the_sorts(decimals):
    """The AUROC equals scikit-learn's ``roc_auc_score`` bit for bit (same corners, same trapezoids), the thinned ROC
    the one of ``attack.roc_curve`` and the rates at low FPR those computed from unsorted scores."""
    from sklearn.metrics import roc_auc_score

    from pdp_audit.audits.canaries.membership import thinned_roc
    from pdp_audit.verify.estimators.attack import roc_curve

    rng = np.random.default_rng(5)
    for n, m in ((2, 2), (3, 7), (2000, 3000)):
        pos, neg = rng.normal(0.7, 1, n), rng.normal(0, 1, m)
        if decimals is not None:
            pos, neg = np.round(pos, decimals), np.round(neg, decimals)
        ranked = (np.sort(pos), np.sort(neg))
        labels = np.concatenate([np.ones(n), np.zeros(m)])
        assert auroc(*ranked, presorted=True) == float(roc_auc_score(labels, np.concatenate([pos, neg])))
        roc = roc_curve(pos, neg)
        keep = np.unique(np.concatenate([np.searchsorted(roc.fpr, np.geomspace(1e-7, 1, 400)), [roc.fpr.size - 1]]))
        fpr, tpr = thinned_roc(*ranked, presorted=True)
        assert fpr.tobytes() == roc.fpr[keep].tobytes() and tpr.tobytes() == roc.tpr[keep].tobytes()
        for f in (1e-3, 1e-2, 1e-1):
            r = tpr_at_fpr(*ranked, f, presorted=True)
            desc = np.sort(neg)[::-1]
            k = int(np.floor(f * m + 1e-9))
            if k < 1 or k >= m:
                assert r is None
                continue
            assert (r.threshold, r.true_positives, r.false_positives) == (
                float(desc[k]),
                int(np.sum(pos > desc[k])),
                int(np.sum(neg > desc[k])),
            )


def test_a_claim_of_epsilon_zero_is_refuted_only_where_the_interval_excludes_it():
    # in- and out-scores from one law: ε = 0 holds, and no seed may refute it (seed 2 failed at p = 1e-60 while the
    # interval's lower end was 0: the p-value stopped at the floor where the floored bound met the claim); a run
    # that leaks (in-scores 0.3σ higher, ε > 0 at any δ < 0.1) is still refuted at ε = 0.  False alarm ≤ α = 1e-6.
    for seed in range(5):
        rng = np.random.default_rng(seed)
        run = pdp_audit.audit_canary_scores(
            rng.normal(0, 1, 10_000), rng.normal(0, 1, 10_000), DELTA, claim_epsilon=0.0, seed=seed
        )
        (check,) = run.checks
        assert run.verdict == "inconclusive" and check.ci[0] == 0.0 and check.pvalue > 1e-6, (seed, check.pvalue)
    rng = np.random.default_rng(0)
    leaky = pdp_audit.audit_canary_scores(
        rng.normal(0.3, 1, 10_000), rng.normal(0, 1, 10_000), DELTA, claim_epsilon=0.0
    )
    assert leaky.verdict == "fail" and leaky.exit_code == 1 and leaky.checks[0].ci[0] > 0
