"""Audits of a training run from its canary scores: :func:`audit_canary_scores` and :func:`audit_one_run`.

Both return the decided :class:`~pdp_audit.reports.records.Run` every audit returns, with one check: the ε lower
bound the scores prove at the run's α.  Scores can refute a claimed ε (verdict ``fail``, exit 1: the bound exceeds
it), never certify one: without a claim, or when the bound stays below it, the verdict is ``inconclusive`` (exit
3).  A command that tested no claim does not exit 0 either: 0 would read as "certified" in a CI log; the JSON
(``parameters.epsilon`` null, the check's claim "no claim tested") and the PDF say that no claim was tested.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from pdp_audit.audits.canaries.config import CanaryAuditConfig, CanaryScores, OneRunScores
from pdp_audit.reports.records import Page, Roc, Run
from pdp_audit.verify.core.checks import CheckSpec, Evidence, finalize, make_run
from pdp_audit.verify.core.config import build
from pdp_audit.verify.core.float_rules import with_own_float_rules
from pdp_audit.verify.estimators.progress import progress_bar
from pdp_audit.verify.inputs.validation import InputError

ASSUMPTIONS = (
    "What the bound assumes. (1) Independent canaries: every score is an independent draw, an in-canary's from the "
    "law of the score when that canary is in training, an out-canary's from its law when the canary is out (one "
    "canary per training run, or canaries that do not interact; with many canaries in one run use the one-run "
    "audit, which needs only the random inclusion). (2) The score function was fixed before looking at these "
    "scores: no score, sign, threshold or canary chosen on them. (3) In- and out-canaries were drawn from the same "
    "distribution and assigned to in or out at random. "
    "What the bound is not. It is a lower bound on the ε of the training run with respect to one canary, valid with "
    "probability at least 1 − α: not an upper bound, not an estimate of the true ε and not a certificate. A weak "
    "score or few canaries give a small bound whatever the run leaks. A bound above a claimed ε refutes the claim; "
    "a bound below it proves nothing."
)
ONE_RUN_ASSUMPTIONS = (
    "What the bound assumes. (1) Every canary was included in the single training run independently with "
    "probability 1/2 (a fair coin per canary, drawn before training; the inclusion bits are those coins). (2) The "
    "score function was fixed before looking at the scores and the bits, and the guesses use the scores only. "
    "(3) The claim is (ε, δ)-DP with respect to adding or removing one canary. The canaries may interact: the "
    "theorem needs no independence of the scores. "
    "What the bound is not. It is a lower bound on the ε of the training run, valid with probability at least "
    "1 − α: not an upper bound, not an estimate of the true ε and not a certificate. One run's bound is far below "
    "the true ε unless the canaries are many and the score is strong; with δ > 0 the theorem adds about 2mδ/v "
    "to the tail of v correct guesses, so the bound is 0 unless that is below α. A bound above a claimed ε refutes "
    "the claim; a bound below it proves nothing."
)
#: The key of the attack's random stream, ``SeedSequence([seed, CANARY_STREAM])``.
CANARY_STREAM = 0x63616E617279  # "canary"
NO_CLAIM = "No claim tested (report only): the ε the scores prove, a lower bound"


def scores_array(values: Any, name: str, minimum: int = 2) -> np.ndarray:
    """``values`` as a 1-D float array of at least ``minimum`` finite numbers, or one InputError naming ``name`` and
    the first bad row (0-based index)."""
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as err:  # ragged or otherwise not an array
        raise InputError(f"{name}: not an array of numbers ({err})") from None
    if np.ma.is_masked(values):  # np.asarray drops the mask: the masked scores were audited as if they were data
        raise InputError(f"{name}: a masked array with masked scores; drop them (values.compressed()) or fill them")
    if array.ndim != 1:
        raise InputError(f"{name}: expected a 1-D array of scores, got shape {array.shape}")
    if not real_dtype(array.dtype):
        raise InputError(f"{name}: expected real numbers, got {array.dtype} values")
    if array.size < minimum:
        raise InputError(f"{name}: {array.size} scores; at least {minimum} are needed")
    array = array.astype(float)
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        raise InputError(f"{name}: row {int(bad[0])} is {float(array[bad[0]])!r}; scores must be finite numbers")
    return array


def real_dtype(dtype: np.dtype) -> bool:
    """Whether scores of ``dtype`` are real numbers: integers or floats.  Booleans, complex numbers, timedeltas
    and datetimes (numpy counts timedelta64 as an integer type: a duration's nanoseconds were read as its score),
    strings and objects are not."""
    return dtype.kind in "iuf"


def inclusion_array(values: Any, name: str, size: int) -> np.ndarray:
    """``values`` as a boolean array of ``size`` inclusion bits 0/1, or one InputError naming the first bad row."""
    array = np.asarray(values)
    if array.ndim != 1 or array.size != size:
        raise InputError(f"{name}: {array.size} inclusion bits in shape {array.shape}; expected {size} (one per score)")
    if array.dtype != bool:
        numeric = np.issubdtype(array.dtype, np.number) and not np.iscomplexobj(array)
        bad = np.arange(size) if not numeric else np.flatnonzero((array != 0) & (array != 1))
        if bad.size:
            raise InputError(f"{name}: row {int(bad[0])} is {array[bad[0]].item()!r}; inclusion bits must be 0 or 1")
    return array.astype(bool)


def _claim_pvalue(bound_at, claim_epsilon: float | None) -> float:
    # deferred: loads scipy; program --help must not
    from pdp_audit.verify.estimators.stats import pvalue_by_inversion

    return 1.0 if claim_epsilon is None else pvalue_by_inversion(bound_at, claim_epsilon)


def _claim_text(claim_epsilon: float | None, delta: float, what: str) -> str:
    if claim_epsilon is None:
        return f"{NO_CLAIM} at δ = {delta:g}"
    return f"The training run is ({claim_epsilon:g}, {delta:g})-DP with respect to one canary: {what}"


CANARY_SPEC = CheckSpec(
    "canary-epsilon",
    "ε lower bound from canary scores",
    "",
    "ε ≥ the largest ε rejected by a joint exact test of TPR ≤ e^ε FPR + δ and TNR ≤ e^ε FNR + δ at pooled ranks",
    "Kairouz, Oh & Viswanath 2015 (DP trade-off); pdp_audit.verify.estimators.attack.pooled_rank_attack",
)
ONE_RUN_SPEC = CheckSpec(
    "one-run-epsilon",
    "ε lower bound from one training run",
    "",
    "P[W ≥ v] ≤ f(v) + 2mδ·max_i (f(v−i) − f(v))/i, f(v) = P[Bin(k₊+k₋, e^ε/(1+e^ε)) ≥ v]",
    "Steinke, Nasr & Jagielski 2023, Privacy auditing with one (1) training run, Theorem 3.1",
)
FDP_SPEC = CheckSpec(
    "one-run-fdp-epsilon",
    "μ-GDP (f-DP) lower bound from one training run",
    "",
    "μ-GDP rejected when r₀ + h₀ > k/m: r_v = τv/m, h_v = τ(k−v)/m, h_i = max(h_{i+1}, Φ(Φ⁻¹(r_{i+1}) − μ)), "
    "r_i = r_{i+1} + i/(k−i)·(h_i − h_{i+1}); ε at δ of the largest μ rejected",
    "Mahloujifar, Melis & Chaudhuri 2025, Auditing f-Differential Privacy in One Run (ICML), the guessing game "
    "with abstentions; pdp_audit.audits.canaries.fdp_one_run",
    role="paper",
)
FDP_NOTE = (
    "A finding, never the verdict: it bounds the ε of a run whose privacy curve is Gaussian-shaped (μ-GDP); an "
    "(ε, δ)-DP run need not be μ-GDP, so it refutes a Gaussian guarantee at the claimed ε, not the (ε, δ) claim."
)


def canary_evidence(
    in_scores: np.ndarray, out_scores: np.ndarray, delta: float, claim_epsilon: float | None, seed: int, bar=None
) -> tuple[Evidence, tuple[Page, ...]]:
    """The check of :func:`audit_canary_scores` and its pages (the assumptions and the membership statistics);
    ``bar``: a progress bar counting its two stages (the attack, the ROC), or None."""
    # deferred: loads scipy; program --help must not
    from pdp_audit.audits.canaries.membership import (
        FPR_LEVELS,
        TPR_CONFIDENCE,
        auroc_of_counts,
        roc_counts,
        thinned_roc_of_counts,
        tpr_at_fpr,
    )
    from pdp_audit.verify.estimators.attack import pooled_rank_attack

    # a stream of its own (not default_rng(seed)): scores a user drew with the same small seed must not share the
    # uniforms of the Poisson sizes, subsets and tie-breaking
    # one sort per score set: the attack's subsets, the ROC, the AUROC and the rates all start from it
    ranked = (np.sort(in_scores), np.sort(out_scores))
    stream = np.random.SeedSequence([seed, CANARY_STREAM])
    attack = pooled_rank_attack(in_scores, out_scores, delta, stream, sorted_scores=ranked)
    _advance(bar)
    rates = [tpr_at_fpr(*ranked, f, presorted=True) for f in FPR_LEVELS]
    counts = roc_counts(*ranked)
    area = auroc_of_counts(*counts)
    fpr, tpr = thinned_roc_of_counts(*counts, in_scores.size, out_scores.size)
    _advance(bar)

    def figure(alpha: float) -> Roc:
        bound = attack.epsilon_lower_bound_at(alpha)
        eps = bound if claim_epsilon is None else claim_epsilon
        region = f"allowed by ({eps:.4g}, {delta:g})-DP" + (" (ε = the lower bound)" if claim_epsilon is None else "")
        return Roc(
            fpr=fpr,
            tpr=tpr,
            epsilon_claim=eps,
            delta_claim=delta,
            epsilon_lower_bound=bound,
            level=1 - alpha,
            curve_label="canary scores (empirical ROC)",
            xlabel="false-positive rate (out-canary called in)",
            ylabel="true-positive rate (in-canary called in)",
            region_label=region,
        )

    lines = [f"AUROC {area:.4f} ({in_scores.size:,} in-canaries, {out_scores.size:,} out-canaries)."]
    for f, r in zip(FPR_LEVELS, rates):
        if r is None:
            lines.append(f"TPR at FPR {f:g}: not resolved (needs at least {math.ceil(1 / f - 1e-9):,} out-canaries).")
        else:
            lines.append(
                f"TPR at FPR {f:g}: {r.tpr:.4g}, exact {TPR_CONFIDENCE:.0%} interval [{r.tpr_lo:.4g}, {r.tpr_hi:.4g}] "
                f"({r.true_positives:,}/{r.n_in:,} in-canaries and {r.false_positives:,}/{r.n_out:,} out-canaries "
                f"above {r.threshold:.6g})."
            )
    details = {
        "n_in": int(in_scores.size),
        "n_out": int(out_scores.size),
        "claim_tested": claim_epsilon is not None,
        "auroc": area,
        "tpr_at_fpr": [
            {"fpr": f, "resolved": False}
            if r is None
            else {
                "fpr": f,
                "resolved": True,
                "tpr": r.tpr,
                "tpr_lo": r.tpr_lo,
                "tpr_hi": r.tpr_hi,
                "confidence": r.confidence,
                "empirical_fpr": r.empirical_fpr,
                "threshold": r.threshold,
            }
            for f, r in zip(FPR_LEVELS, rates)
        ],
    }
    evidence = Evidence(
        spec=CheckSpec(
            CANARY_SPEC.id,
            CANARY_SPEC.title,
            _claim_text(claim_epsilon, delta, "no test of in vs out canaries has (FPR, TPR) outside its region"),
            CANARY_SPEC.formula,
            CANARY_SPEC.source,
        ),
        estimate=attack.epsilon_lower_bound_at(0.5),
        pvalue=_claim_pvalue(attack.epsilon_lower_bound_at, claim_epsilon),
        interval=lambda alpha: (attack.epsilon_lower_bound_at(alpha), math.inf),
        supports=lambda ci, alpha: False,
        budget_hint=lambda ci: "Scores can refute a claimed ε, never certify one.",
        make_figure=figure,
        note=" ".join(lines) + " The interval's lower end is the ε lower bound; the estimate is the bound at "
        "confidence 1/2. Positive = in-canary (world D), negative = out-canary (D'); a higher score is more "
        "member-like.",
        details=details,
    )
    pages = (Page("Assumptions, and what the bound is not", ASSUMPTIONS),)
    return evidence, pages


@with_own_float_rules  # a public function (pdp_audit.audit_canary_scores)
def audit_canary_scores(
    in_scores: npt.ArrayLike,
    out_scores: npt.ArrayLike,
    delta: float,
    *,
    alpha: float = 1e-6,
    claim_epsilon: float | None = None,
    seed: int = 0,
) -> Run:
    """The ε lower bound a training run's canary scores prove, with the ROC, TPR at low FPR and AUROC.

    The bound is the suite's joint exact test at pooled ranks
    (:func:`pdp_audit.verify.estimators.attack.pooled_rank_attack`:
    Poissonised samples, both DP inequalities tested jointly on ramps of pooled ranks fixed in advance, a union
    bound over them), with in-canaries as world D and out-canaries as D': valid at level α when the scores are
    independent draws of a score fixed in advance (the assumptions are on the report's last page).  Also reported
    (check details, note and PDF): TPR at FPR 1e-3, 1e-2, 1e-1 with exact 95% Clopper–Pearson intervals
    (:func:`pdp_audit.audits.canaries.membership.tpr_at_fpr`), the AUROC, and the ROC against the (ε, δ) region.

    Args:
      in_scores: scores of canaries included in training (1-D, finite, at least 2); higher = more member-like.
      out_scores: scores of canaries held out (1-D, finite, at least 2).
      delta: the δ of the claim (or of the bound), in [0, 1).
      alpha: false-alarm probability, in [1e-50, 1).
      claim_epsilon: a claimed ε (finite, >= 0) to refute; None tests no claim.
      seed: seed of the Poisson subsample sizes and tie-breaking (>= 0); same seed, same numbers.

    Returns:
      The decided Run with one check, ``canary-epsilon``: ``fail`` (exit code 1) when the bound exceeds the claim,
      ``inconclusive`` (3) otherwise, also without a claim (nothing is certified; ``details["claim_tested"]``).

    Raises:
      InputError: an argument out of its range, or scores that are not a 1-D array of at least 2 finite numbers.

    Example::

        rng = np.random.default_rng(0)
        run = pdp_audit.audit_canary_scores(rng.normal(2, 1, 10_000), rng.normal(0, 1, 10_000), 1e-5,
                                            claim_epsilon=1.0)
        run.exit_code  # 1: a 2σ shift is far from (1, 1e-5)-DP
    """
    values = {"delta": delta, "claim_epsilon": claim_epsilon, "alpha": alpha, "seed": seed}
    return run_canaries(build(CanaryAuditConfig, values, extra={"target": CanaryScores(in_scores, out_scores)}))


def run_canaries(config: CanaryAuditConfig, progress: bool = False) -> Run:
    """The canary audit of ``config`` (what :func:`audit_canary_scores` and :func:`audit_one_run` run; the plan:
    :mod:`pdp_audit.audits.canaries.plan`)."""
    if isinstance(config.target, OneRunScores):
        return _run_one_run(config, progress)
    delta, alpha, seed, claim = config.delta, config.alpha, config.seed, config.claim_epsilon
    pos = scores_array(config.target.in_scores, "in_scores")
    neg = scores_array(config.target.out_scores, "out_scores")
    # the stages of millions of scores (sorts, the attack's bound, the ROC, the decision) on a bar where asked
    with progress_bar(3, f"canaries, {pos.size + neg.size:,} scores", "stage", progress or None) as bar:
        evidence, pages = canary_evidence(pos, neg, delta, claim, seed, bar)
        checks = finalize([evidence], alpha)
    parameters = {
        "audit": "canary scores",
        "pair": "in-canaries (D) against out-canaries (D'), as scored",
        "data": f"canary scores: {pos.size:,} in, {neg.size:,} out",
        "n_in": int(pos.size),
        "n_out": int(neg.size),
        "epsilon": claim,
        "delta": delta,
    }
    parameters["headline"] = _headline(checks[0], alpha, delta)
    return make_run("canary scores", checks, alpha, parameters, seed, pages=pages)


@with_own_float_rules  # a public function (pdp_audit.audit_one_run)
def audit_one_run(
    scores: npt.ArrayLike,
    included: npt.ArrayLike,
    delta: float,
    *,
    alpha: float = 1e-6,
    claim_epsilon: float | None = None,
    guesses: tuple[int, int] | None = None,
    seed: int = 0,
) -> Run:
    """The one-run ε lower bound (Steinke, Nasr & Jagielski 2023) from the scores of m canaries of one training run.

    Each canary was included with probability 1/2 (``included``, the coins).  The auditor guesses "in" for the k₊
    highest scores and "out" for the k₋ lowest; W, the number of correct guesses, has the exact tail bound of the
    paper's Theorem 3.1 under (ε, δ)-DP (:mod:`pdp_audit.audits.canaries.one_run`, computed from exact binomial tails);
    the
    bound is the largest ε rejected at the observed W.  With ``guesses=(k₊, k₋)`` that one pair uses all of α;
    without, the best pair of a grid fixed in advance (k₊ geometric from 1 to m/2, k₋ = 0 or k₋ = k₊) at α/|grid|
    each (union bound).

    Args:
      scores: one score per canary (1-D, finite, at least 2); higher = more member-like.
      included: the inclusion bits, 0/1 or bool, one per score.
      delta: the δ of the claim, in [0, 1).
      alpha: false-alarm probability, in [1e-50, 1).
      claim_epsilon: a claimed ε (finite, >= 0) to refute; None tests no claim.
      guesses: (k₊, k₋), whole numbers >= 0 with 1 <= k₊ + k₋ <= m; None: the grid.
      seed: seed of the tie-breaking among equal scores (>= 0).

    Returns:
      The decided Run with one check, ``one-run-epsilon``: ``fail`` (exit 1) when the bound exceeds the claim,
      ``inconclusive`` (3) otherwise.  For δ > 0 its findings hold ``one-run-fdp-epsilon``, never the verdict: the
      largest μ-GDP the same guesses reject by Mahloujifar, Melis & Chaudhuri's f-DP analysis (ICML 2025;
      :mod:`pdp_audit.audits.canaries.fdp_one_run`) and its ε at δ (``details["mu_lower_bound"]``).

    Raises:
      InputError: an argument out of its range, bits that are not 0/1, or scores that are not finite.

    Example::

        rng = np.random.default_rng(0)
        included = rng.random(10_000) < 0.5                      # the coins, drawn before training
        scores = rng.normal(4.0 * included, 1.0)                 # a very leaky run: in-canaries score 4σ higher
        run = pdp_audit.audit_one_run(scores, included, 1e-7, alpha=0.05, claim_epsilon=1.0)
        run.exit_code  # 1
    """
    values = {"delta": delta, "claim_epsilon": claim_epsilon, "alpha": alpha, "seed": seed}
    target = OneRunScores(scores, included, guesses)
    return run_canaries(build(CanaryAuditConfig, values, extra={"target": target}))


def _advance(bar) -> None:
    """One stage done on ``bar`` (None: no bar shown)."""
    if bar is not None:
        bar.update(1)


def _run_one_run(config: CanaryAuditConfig, progress: bool = False) -> Run:
    """The one-run audit of ``config.target`` (:class:`OneRunScores`); ``progress``: a bar of its stages (the
    ranking, the bound, the f-DP finding, the decision) where asked (:mod:`pdp_audit.verify.estimators.progress`)."""
    values = scores_array(config.target.scores, "scores")
    with progress_bar(4, f"canaries --one-run, {values.size:,} canaries", "stage", progress or None) as bar:
        return _one_run(config, values, bar)


def _one_run(config: CanaryAuditConfig, values: np.ndarray, bar) -> Run:
    # deferred: loads scipy; program --help must not
    from pdp_audit.audits.canaries.one_run import one_run_attack

    delta, alpha, seed, claim = config.delta, config.alpha, config.seed, config.claim_epsilon
    bits = inclusion_array(config.target.included, "included", values.size)
    guesses = config.target.guesses
    if guesses is not None:
        guesses = _guesses(guesses, values.size)
    attack = one_run_attack(values, bits, delta, guesses, seed)
    _advance(bar)
    share = (
        "the guesses given, with all of α"
        if attack.fixed
        else f"{len(attack.pairs)} guess sets fixed in advance, α/{len(attack.pairs)} each (union bound)"
    )

    def tried(alpha: float) -> str:
        bound, j = attack.best(alpha)
        (kp, km), c = attack.pairs[j], attack.correct[j]
        if bound <= 0:
            return "no guess set rejects ε = 0 (with δ > 0 the bound needs 2mδ well below α·v)"
        return f"{'guesses' if attack.fixed else 'best guesses'} k₊ = {kp}, k₋ = {km}: {c} of {kp + km} correct"

    evidence = Evidence(
        spec=CheckSpec(
            ONE_RUN_SPEC.id,
            ONE_RUN_SPEC.title,
            _claim_text(claim, delta, "the number of correct membership guesses obeys the paper's tail bound"),
            ONE_RUN_SPEC.formula,
            ONE_RUN_SPEC.source,
        ),
        estimate=attack.epsilon_lower_bound_at(0.5),
        pvalue=_claim_pvalue(attack.epsilon_lower_bound_at, claim),
        interval=lambda a: (attack.epsilon_lower_bound_at(a), math.inf),
        supports=lambda ci, a: False,
        budget_hint=lambda ci: "Scores can refute a claimed ε, never certify one.",
        note=f"{values.size:,} canaries, {int(bits.sum()):,} included; {share}; "
        f"{tried(alpha)} (at the run's α). The estimate is the bound at confidence 1/2.",
        details={
            "m": int(values.size),
            "included": int(bits.sum()),
            "claim_tested": claim is not None,
            "guesses": [list(p) for p in attack.pairs],
            "correct": list(attack.correct),
        },
    )
    parameters = {
        "audit": "one run",
        "pair": "each canary in against out, one training run with random inclusion",
        "data": f"one run: {values.size:,} canaries, {int(bits.sum()):,} included",
        "m": int(values.size),
        "epsilon": claim,
        "delta": delta,
        "guesses": "grid" if guesses is None else f"{guesses[0]} {guesses[1]}",
    }
    pages = (Page("Assumptions, and what the bound is not", ONE_RUN_ASSUMPTIONS),)
    _advance(bar)
    found = [] if delta == 0 else [fdp_evidence(attack, delta, claim, alpha)]
    _advance(bar)
    checks = finalize([evidence, *found], alpha)
    parameters["headline"] = _headline(checks[0], alpha, delta)
    return make_run("one training run", checks, alpha, parameters, seed, pages=pages)


def fdp_evidence(attack, delta: float, claim_epsilon: float | None, alpha: float) -> Evidence:
    """The f-DP finding of a one-run audit (Mahloujifar, Melis & Chaudhuri 2025): on the guesses of ``attack`` (the
    same guess sets and union bound as the (ε, δ) check), the largest μ-GDP rejected and its ε at ``delta``
    (:mod:`pdp_audit.audits.canaries.fdp_one_run`).  Its claim, where ε is claimed, is the μ-GDP whose ε at δ is the
    claimed ε; its p-value is the smallest α at which a guess set rejects that μ (times the number of sets).  The
    finding is the only one of its family, so ``alpha`` (the run's) is its level."""
    # deferred: loads scipy; program --help must not
    from pdp_audit.audits.canaries.fdp_one_run import best_mu, claim_pvalue, gdp_epsilon, gdp_mu

    sets = [(kp + km, c) for (kp, km), c in zip(attack.pairs, attack.correct)]

    @lru_cache(maxsize=None)
    def best(level: float) -> tuple[float, int]:
        return best_mu(attack.m, sets, level)

    def epsilon_at(level: float) -> float:
        return gdp_epsilon(best(level)[0], delta)

    pvalue, claim_mu = 1.0, None
    if claim_epsilon is not None:
        claim_mu = gdp_mu(claim_epsilon, delta)
        pvalue = claim_pvalue(attack.m, sets, claim_mu)
    mu, j = best(alpha)
    (kp, km), c = attack.pairs[j], attack.correct[j]
    found = f"μ ≥ {mu:.4g}, best guesses k₊ = {kp}, k₋ = {km}: {c} of {kp + km} correct" if mu > 0 else "no μ rejected"
    claim_text = (
        f"{NO_CLAIM} at δ = {delta:g}, for a Gaussian-shaped (μ-GDP) run"
        if claim_epsilon is None
        else f"The training run is μ-GDP with μ = {claim_mu:.4g}, whose ε at δ = {delta:g} is the claimed "
        f"{claim_epsilon:g}: the guesses obey the paper's f-DP recursion"
    )
    return Evidence(
        spec=CheckSpec(FDP_SPEC.id, FDP_SPEC.title, claim_text, FDP_SPEC.formula, FDP_SPEC.source, FDP_SPEC.role),
        estimate=epsilon_at(0.5),
        pvalue=pvalue,
        interval=lambda a: (epsilon_at(a), math.inf),
        supports=lambda ci, a: False,
        note=f"{found} (at the run's α); the interval is the ε at δ = {delta:g} of that μ-GDP, the estimate the "
        f"bound at confidence 1/2. {FDP_NOTE}",
        details={
            "claim_tested": claim_epsilon is not None,
            "claim_mu": claim_mu,
            "mu_lower_bound": mu,
            "mu_estimate": best(0.5)[0],
            "best_guesses": [kp, km],
        },
    )


def _headline(check, alpha: float, delta: float) -> str:
    """What the first page leads with: the bound at the run's confidence, and the attack's AUROC and TPR at
    FPR 0.01 where measured."""
    line = f"ε ≥ {check.ci[0]:.4g} at confidence 1 − {alpha:g} (δ = {delta:g})"
    details = check.details or {}
    if "auroc" in details:
        line += f"; AUROC {details['auroc']:.3f}"
    for rate in details.get("tpr_at_fpr", []):
        if rate["fpr"] == 0.01 and rate["resolved"]:
            line += f"; TPR {rate['tpr']:.3g} at FPR 0.01 (95% [{rate['tpr_lo']:.3g}, {rate['tpr_hi']:.3g}])"
    return line + "."


def _guesses(guesses: Any, m: int) -> tuple[int, int]:
    """``guesses`` as (k₊, k₋): two whole numbers (numpy's integers and whole floats too), checked against ``m``.
    A string ("12"), bytes, a mapping or booleans are no pair of numbers (they were read digit by digit, by their
    keys, as 1 and 0), and inf or 10**400 is one line, not an OverflowError."""
    bad = InputError(f"guesses must be two whole numbers (k+, k-), got {_short(guesses)}")
    if isinstance(guesses, (str, bytes, Mapping)) or not isinstance(guesses, Iterable):
        raise bad
    items = tuple(guesses)
    if len(items) != 2:
        raise bad
    whole = []
    for g in items:
        if isinstance(g, (bool, np.bool_)) or not isinstance(g, numbers.Real):
            raise bad
        if isinstance(g, numbers.Integral):
            whole.append(int(g))
            continue
        value = float(g)
        if not (math.isfinite(value) and value.is_integer()):
            raise bad
        whole.append(int(value))
    k_in, k_out = whole
    if k_in < 0 or k_out < 0 or not 1 <= k_in + k_out <= m:
        raise InputError(f"guesses: (k+, k-) = {_short(tuple(whole))}; need k+, k- >= 0 and 1 <= k+ + k- <= m = {m}")
    return k_in, k_out


def _short(value: Any) -> str:
    """``repr(value)`` cut to 80 characters (a guess of 10**400 is 401 digits)."""
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:60]}… ({len(text)} characters)"
