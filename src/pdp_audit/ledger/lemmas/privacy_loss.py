"""From privacy-loss tails to (ε, δ), and the pDP facts of [PDP] §2, exact on Gaussian and discrete pairs.

For a pair of output laws p, p' with loss L = log(p/p'), sup_S [P_p(S) − e^t P_p'(S)] = E_p[(1 − e^(t−L))₊]
(= Σ(p − e^t p')₊ on a finite space): [PDP] Lemma B.6 / [RW] Lemma 27(1) (P_p(L > t) ≤ δ gives (t, δ)), [LR]
Lemma 15 (the two-sided version with its measure unnamed), [RW] Lemma 27(2) under both readings of its
unrecoverable sign (Q33), [PDP] Fact 2.5 (pDP bounds the odds of events likely under both worlds; as printed, Q17)
and Fact 2.6 (simple composition, group privacy, post-processing), on Gaussian pairs through their analytic
privacy profiles (Balle & Wang 2018) and on random discrete pairs, some with a rare outcome.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from pdp_audit.ledger.lemmas.exact import INEQUALITY_SLACK, Outcome, decided, exact_check
from pdp_audit.mechanisms.gaussian import analytic_delta, analytic_epsilon
from pdp_audit.verify.core.checks import CheckSpec


def _random_pairs(rng, count: int = 400):
    """Random discrete pairs (p, p') on 2–6 outcomes, some with a rare outcome (the adversarial case)."""
    for i in range(count):
        m = int(rng.integers(2, 7))
        p, q = rng.dirichlet(np.ones(m)), rng.dirichlet(np.ones(m))
        if i % 2:
            p = np.r_[p * (1 - 10.0 ** -rng.uniform(1, 4)), 0.0]
            p[-1] = 1 - p[:-1].sum()
            q = np.r_[q * 0.5, 0.5]
        yield p, q


@exact_check(
    CheckSpec(
        "tail-to-dp",
        "From a privacy-loss tail to (ε, δ)",
        "P_p(log(p/p') > t) ≤ δ ⇒ P_p(S) ≤ e^t P_p'(S) + δ for all S",
        "sup_S [P_p(S) − e^t P_p'(S)] = E_p[(1 − e^(t−L))₊] ≤ P_p(L > t), exact for Gaussian and Laplace pairs "
        "and random discrete pairs",
        "[PDP] Lemma B.6; [RW] Lemma 27(1)",
        role="paper",
    ),
    draws=True,
)
def tail_to_dp(rng) -> Outcome:
    """[PDP] Lemma B.6, [RW] Lemma 27(1): sup_S [P_p(S) − e^t P_p'(S)] against P_p(L > t) on discrete and
    Gaussian pairs."""
    worst, where, count = 0.0, "", 0
    for t in (0.1, 0.5, 1.0, 2.0):
        for p, q in _random_pairs(rng, 100):
            loss = np.log(p / q)
            tail = p[loss > t].sum()
            hockey = np.clip(p - math.exp(t) * q, 0, None).sum()
            count += 1
            if tail > 0 and hockey / tail >= worst:
                worst, where = hockey / tail, f"discrete pair, t = {t}"
        for eta in (0.2, 1.0, 3.0):  # Gaussian: L ~ N(η²/2, η²) under p
            hockey = stats.norm.cdf(eta / 2 - t / eta) - math.exp(t) * stats.norm.cdf(-eta / 2 - t / eta)
            tail = stats.norm.sf((t - eta**2 / 2) / eta)
            count += 1
            if hockey / tail >= worst:
                worst, where = hockey / tail, f"Gaussian η = {eta}, t = {t}"
    return decided(
        worst <= 1 + INEQUALITY_SLACK,
        worst,
        1.0,
        f"{count} pairs; largest sup_S[P_p(S) − e^t P_p'(S)] / P_p(L > t) = {worst:.6g} ({where}).",
    )


@exact_check(
    CheckSpec(
        "tail-to-dp-two-sided",
        "The two-sided version, with the measure unnamed",
        "P(|ε(θ)| > t) ≤ δ ⇒ P_p(S) ≤ e^t P_p'(S) + δ and P_p'(S) ≤ e^t P_p(S) + δ",
        "P read as P_p: sup_S [P_p'(S) − e^t P_p(S)] against δ = P_p(|L| > t) on discrete pairs (exact)",
        "[LR] Lemma 15",
        role="paper",
    ),
    draws=True,
)
def tail_to_dp_two_sided(rng) -> Outcome:
    """[LR] Lemma 15 read with P = P_p: sup_S [P_p'(S) − e^t P_p(S)] against P_p(|L| > t)."""
    worst, example = 0.0, {}
    for t in (0.5, 1.0, 2.0):
        for p, q in _random_pairs(rng, 200):
            loss = np.log(p / q)
            delta = p[np.abs(loss) > t].sum()
            reverse = np.clip(q - math.exp(t) * p, 0, None).sum()
            if reverse - delta > worst:
                worst, example = (
                    reverse - delta,
                    {
                        "p": p.round(6).tolist(),
                        "p'": q.round(6).tolist(),
                        "t": t,
                        "delta": float(delta),
                        "reverse": float(reverse),
                    },
                )
    ok = worst <= INEQUALITY_SLACK
    q = example.get("p'")
    note = (
        "Read with P = P_p, the reverse inequality fails: largest violation at "
        f"p = {example.get('p')}, p' = {q}, t = {example.get('t')}: P_p(|L| > t) = "
        f"{example.get('delta', 0):.4g} but sup_S[P_p'(S) − e^t P_p(S)] = {example.get('reverse', 0):.4g}. "
        "It holds when the tail condition holds under both p and p' (two applications of Lemma B.6)."
        if not ok
        else "No counterexample among 600 pairs."
    )
    return decided(ok, worst, 0.0, note, counterexample=example)


@exact_check(
    CheckSpec(
        "lemma27-reverse-readings",
        "[RW] Lemma 27(2) under both signs",
        "P_p'(± ε(o) < −ε) ≤ δ ⇒ P_p'(S) ≤ e^ε P_p(S) + δ for all S (ε(o) = log(p/p')(o); sign unrecoverable)",
        "exact on random discrete pairs: sup_S [P_p'(S) − e^ε P_p(S)] against δ = P_p'(ε(o) < −ε) (reading +) and "
        "δ = P_p'(−ε(o) < −ε) (reading −)",
        "[RW] Lemma 27(2) (Q33)",
        role="paper",
    ),
    draws=True,
)
def lemma27_reverse_readings(rng) -> Outcome:
    """[RW] Lemma 27(2) (Q33): the reverse hockey-stick divergence against both sign readings of
    its tail condition."""
    worst = {"+": 0.0, "−": 0.0}
    example = {}
    for t in (0.5, 1.0, 2.0):
        for p, q in _random_pairs(rng, 200):
            loss = np.log(p / q)
            reverse = np.clip(q - math.exp(t) * p, 0, None).sum()
            for sign, delta in (("+", q[loss < -t].sum()), ("−", q[-loss < -t].sum())):
                if reverse - delta > worst[sign]:
                    worst[sign] = reverse - delta
                    example[sign] = {"p": p.round(6).tolist(), "p'": q.round(6).tolist(), "t": t}
    ok = max(worst.values()) <= INEQUALITY_SLACK
    return decided(
        ok,
        max(worst.values()),
        0.0,
        f"Reading + (P_p'(ε(o) < −ε) ≤ δ): largest violation {worst['+']:.3g} — it holds (it is Lemma B.6 with p and "
        f"p' exchanged). Reading − (P_p'(ε(o) > ε) ≤ δ): largest violation {worst['−']:.3g}"
        + (f", e.g. at {example['−']}" if "−" in example else "")
        + ". Only the + reading makes the lemma true.",
        violations=worst,
    )


@exact_check(
    CheckSpec(
        "fact25-event-ratio",
        "pDP bounds the odds of every likely event",
        "(ε, δ)-pDP and min{P_D(S), P_D'(S)} ≥ δ/ε ⇒ −2ε ≤ log[P_D(S)/P_D'(S)] ≤ 2ε",
        "exact for Gaussian pairs at their analytic pDP ε(δ): the largest |log odds| over half-lines and intervals "
        "S with both probabilities ≥ δ/ε, against 2ε",
        "[PDP] Fact 2.5 (Q17: the printed min has both arguments identical; read as P_D, P_D')",
        role="paper",
    ),
)
def fact25_event_ratio() -> Outcome:
    """[PDP] Fact 2.5 (Q17, read with P_D, P_D'): the largest |log odds| / 2ε over half-lines and
    intervals likely under both Gaussian worlds, at their analytic pDP ε(δ)."""
    worst, where = 0.0, ""
    for eta in (0.3, 1.0, 2.0):  # Δ/σ; the pair N(0, 1) vs N(η, 1)
        for delta in (1e-5, 1e-3, 0.05):
            eps = analytic_epsilon(delta, 1.0, eta)
            cuts = np.linspace(-12, 12, 2001)
            p, q = stats.norm.cdf(cuts), stats.norm.cdf(cuts - eta)  # P(o ≤ c) under D = N(0,1), D' = N(η,1)
            sets = [(p, q), (1 - p, 1 - q)]  # half-lines
            lo, hi = np.meshgrid(np.arange(0, 2001, 50), np.arange(0, 2001, 50), indexing="ij")
            keep = lo < hi
            sets.append((p[hi[keep]] - p[lo[keep]], q[hi[keep]] - q[lo[keep]]))  # intervals
            for a, b in sets:
                ok = (a >= delta / eps) & (b >= delta / eps)
                if ok.any():
                    ratio = float(np.max(np.abs(np.log(a[ok] / b[ok]))) / (2 * eps))
                    if ratio >= worst:
                        worst, where = ratio, f"η = {eta}, δ = {delta:g}, ε = {eps:.4g}"
    return decided(
        worst <= 1 + INEQUALITY_SLACK,
        worst,
        1.0,
        f"Largest |log odds|/(2ε) = {worst:.4g} ({where}) over half-lines and 820 intervals per pair. The proof: "
        "P ≤ e^ε P' + δ ≤ (e^ε + ε)P' ≤ e^(2ε)P' when P' ≥ δ/ε.",
    )


@exact_check(
    CheckSpec(
        "fact25-printed-min",
        "Fact 2.5 as printed: one probability constrained",
        "(ε, δ)-pDP and min{P_D(S), P_D(S)} = P_D(S) ≥ δ/ε ⇒ −2ε ≤ log[P_D(S)/P_D'(S)] ≤ 2ε",
        "an exact discrete pair: check it is (ε, δ)-DP both ways, then the odds of S = {o : P_D'(o) = 0}",
        "[PDP] Fact 2.5 as printed (Q17)",
        role="paper",
    ),
)
def fact25_printed_min() -> Outcome:
    """[PDP] Fact 2.5 as printed (Q17): a (2, 1e-3)-DP discrete pair with an event of probability δ
    under one world and 0 under the other."""
    eps, delta = 2.0, 1e-3
    p, q = np.array([1 - delta, delta]), np.array([1.0, 0.0])  # D puts δ where D' puts nothing
    hockey = max(np.clip(p - math.exp(eps) * q, 0, None).sum(), np.clip(q - math.exp(eps) * p, 0, None).sum())
    if hockey > delta * (1 + INEQUALITY_SLACK):
        raise ArithmeticError("the counterexample pair is not (ε, δ)-DP")  # a bug of ours
    odds = math.inf  # S = {o2}: P_D(S) = δ ≥ δ/ε, P_D'(S) = 0
    return decided(
        False,
        odds,
        2 * eps,
        f"p = (1 − δ, δ), p' = (1, 0), ε = {eps:g}, δ = {delta:g}: the pair is (ε, δ)-DP in both directions (largest "
        f"hockey-stick divergence {hockey:.3g} ≤ δ), S = {{o2}} has P_D(S) = δ ≥ δ/ε = {delta / eps:g} yet "
        "P_D'(S) = 0: the log odds are infinite. With both probabilities ≥ δ/ε (fact25-event-ratio) the statement "
        "holds.",
        counterexample={"p": p.tolist(), "p'": q.tolist(), "epsilon": eps, "delta": delta},
    )


@exact_check(
    CheckSpec(
        "fact26-composition",
        "Simple composition of pDP",
        "(ε1, δ1)- and (ε2, δ2)-pDP ⇒ the pair is (ε1 + ε2, δ1 + δ2)-pDP",
        "exact Gaussian profiles: δ of the composed pair (η = √(η1² + η2²)) at ε1 + ε2 against δ1 + δ2",
        "[PDP] Fact 2.6 (simple composition)",
        role="paper",
    ),
)
def fact26_composition() -> Outcome:
    """[PDP] Fact 2.6: the exact δ of two composed Gaussian releases at ε1 + ε2 against δ1 + δ2."""
    worst, where = 0.0, ""
    for eta1, eta2 in ((0.2, 0.2), (0.5, 1.0), (1.0, 3.0)):
        for delta1, delta2 in ((1e-6, 1e-6), (1e-3, 1e-8)):
            eps1, eps2 = analytic_epsilon(delta1, 1.0, eta1), analytic_epsilon(delta2, 1.0, eta2)
            composed = analytic_delta(eps1 + eps2, 1.0, math.hypot(eta1, eta2))
            ratio = composed / (delta1 + delta2)
            if ratio >= worst:
                worst, where = ratio, f"η = ({eta1}, {eta2}), δ = ({delta1:g}, {delta2:g})"
    return decided(
        worst <= 1,
        worst,
        1.0,
        f"Largest composed δ / (δ1 + δ2) = {worst:.4g} ({where}): valid, and loose (the Gaussian composes as one "
        "Gaussian). Advanced composition is stated with O(·) only and is not checked.",
    )


@exact_check(
    CheckSpec(
        "fact26-group",
        "Group pDP along a chain of neighbours",
        "z1 … zk each (ε_i, δ_i)-pDP ⇒ the group is (Σε_i, Σ_i δ_i Π_(j<i) e^(ε_j))-pDP",
        "exact Gaussian profile of the group shift ‖Σ Δ_i‖ at Σε_i against the printed δ̃",
        "[PDP] Fact 2.6 (group privacy)",
        role="paper",
    ),
    draws=True,
)
def fact26_group(rng) -> Outcome:
    """[PDP] Fact 2.6: the exact δ of a chain of Gaussian neighbours at Σε_i against Σ_i δ_i Π_(j<i) e^(ε_j)."""
    worst, where = 0.0, ""
    for k in (2, 3, 5):
        for _ in range(20):
            steps = rng.standard_normal((k, 3)) * rng.uniform(0.05, 0.5)
            deltas = 10.0 ** rng.uniform(-8, -3, k)
            eps = np.array([analytic_epsilon(d, 1.0, float(np.linalg.norm(s))) for d, s in zip(deltas, steps)])
            printed = sum(d * math.exp(eps[:i].sum()) for i, d in enumerate(deltas))
            group = analytic_delta(float(eps.sum()), 1.0, float(np.linalg.norm(steps.sum(axis=0))))
            if group / printed >= worst:
                worst, where = group / printed, f"k = {k}"
    return decided(
        worst <= 1,
        worst,
        1.0,
        f"60 chains of Gaussian neighbours; largest exact δ / printed δ̃ = {worst:.4g} ({where}).",
    )


@exact_check(
    CheckSpec(
        "fact26-post-processing",
        "Post-processing",
        "f(A(·)) is (ε, δ)-pDP whenever A is",
        "sup_S [P(S) − e^ε P'(S)] before and after random channels on random discrete pairs (exact)",
        "[PDP] Fact 2.6 (post-processing)",
        role="paper",
    ),
    draws=True,
)
def fact26_post_processing(rng) -> Outcome:
    """[PDP] Fact 2.6: the hockey-stick divergence of discrete pairs after random channels."""
    worst, count = 0.0, 0
    for p, q in _random_pairs(rng, 200):
        channel = rng.dirichlet(np.full(3, 0.5), size=len(p))  # a random Markov kernel to 3 outputs
        for eps in (0.0, 0.5, 2.0):
            before = np.clip(p - math.exp(eps) * q, 0, None).sum()
            after = np.clip(p @ channel - math.exp(eps) * (q @ channel), 0, None).sum()
            count += 1
            worst = max(worst, after - before)
    return decided(
        worst <= INEQUALITY_SLACK,
        worst,
        0.0,
        f"{count} pairs × channels; largest increase of the hockey-stick divergence {worst:.3g} (≤ 0: none).",
    )
