"""[PDP] §2.3: pDP moments bound generalisation, computed exactly on a Bernoulli data domain.

Proposition 2.9 (Gen(A, 𝒟, n) ≤ E_Z(E_z[e^ε | Z])² − 1 + E δ + E_Z E_z[e^ε | Z] E_z[δ | Z]), Proposition 2.11
(across domains 𝒟, 𝒟', printed with '=' and with e^ε' + ε'' where e^(ε'+ε'') is evident; Q18) and Corollary 2.12
(its hypothesis E_𝒟[e^(2ε)] ≤ 1 forces ε = 0).  The domain: A(Z) releases one bit with
P(1) = sigmoid(β(2k/m − 1)), k the number of ones among the m points of Z, and the loss is 1{θ ≠ z}; ε(Z, z) is the
exact pDP of the two Bernoulli laws of A(Z), A([Z, z]) at δ ∈ {0, 1e-3}, and every expectation is summed over the
binomial law of Z (no sampling).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from pdp_audit.ledger.lemmas.exact import INEQUALITY_SLACK, Outcome, decided, exact_check, inequality
from pdp_audit.verify.core.checks import CheckSpec

# [PDP] §2.3 on a Bernoulli data domain: A(Z) ∈ {0, 1}, P(A(Z) = 1) = sigmoid(β(2k/m − 1)), loss 1{θ ≠ z}
_GEN_CASES = ((20, 0.3, 0.6, 1.0), (50, 0.5, 0.2, 3.0), (200, 0.1, 0.4, 8.0), (10, 0.7, 0.7, 0.5))


def _p_one(k, m: int, beta: float):
    """P(A(Z) = 1) = sigmoid(β(2k/m − 1)) for k ones among m points."""
    return 1 / (1 + np.exp(-beta * (2 * np.asarray(k, float) / m - 1)))


def _pdp_bit(P: np.ndarray, Q: np.ndarray, delta: float) -> np.ndarray:
    """The smallest ε with both hockey-stick divergences of two Bernoulli laws (P(1) = P, Q) at most δ."""
    out = np.zeros_like(P)
    for a, b in ((P, Q), (1 - P, 1 - Q), (Q, P), (1 - Q, 1 - P)):
        with np.errstate(divide="ignore", invalid="ignore"):
            e = np.where(a - delta > 0, np.log(np.maximum(a - delta, 1e-300) / b), 0.0)
        out = np.maximum(out, e)
    return out


def _generalisation(n: int, p: float, q: float, beta: float, delta: float) -> dict:
    """Exact Gen(A, 𝒟, n), Gen(A, 𝒟, 𝒟', n) and the pDP expectations of Props 2.9, 2.11 and Cor. 2.12."""
    k = np.arange(n + 1)
    pi = _p_one(k, n, beta)

    def gen(target: float) -> float:
        w = stats.binom.pmf(k, n, p)
        r1, r0 = target / p, (1 - target) / (1 - p)  # importance weights 𝒟'(z)/𝒟(z)
        train = (k * r1 * (1 - pi) + (n - k) * r0 * pi) / n  # (1/n)Σρ_i E_θ ℓ(θ, z_i)
        test = target * (1 - pi) + (1 - target) * pi
        return abs(float(w @ (train - test)))

    m = n - 1  # Z of n − 1 points, target z: the pair (A(Z), A([Z, z]))
    km = np.arange(m + 1)
    wz = stats.binom.pmf(km, m, p)
    P = _p_one(km, m, beta)
    eps = {z: _pdp_bit(P, _p_one(km + z, n, beta), delta) for z in (0, 1)}

    def cond(fn, target):  # E_z[fn(ε(Z, z)) | Z], z ~ Bernoulli(target)
        return target * fn(eps[1]) + (1 - target) * fn(eps[0])

    e_p, e_q = cond(np.exp, p), cond(np.exp, q)
    lin_q = cond(lambda e: e, q)
    return {
        "gen": gen(p),
        "gen_cross": gen(q),
        "prop29": float(wz @ (e_p**2)) - 1 + delta + float(wz @ (e_p * delta)),
        "prop211_printed": float(wz @ (e_p + lin_q - 1)) + delta + float(wz @ (cond(lambda e: e, p) * delta)),
        "prop211_corrected": float(wz @ (e_p * e_q)) - 1 + delta + float(wz @ (e_p * delta)),
        "e2_p": float(wz @ cond(lambda e: np.exp(2 * e), p)),
        "e2_q": float(wz @ cond(lambda e: np.exp(2 * e), q)),
        "series": [float(wz @ cond(lambda e, i=i: e**i, t)) for t in (p, q) for i in range(1, 60)],
    }


def _gen_instances():
    """The 8 Bernoulli instances (4 cases × δ ∈ {0, 1e-3}): name, δ and their exact quantities."""
    for n, p, q, beta in _GEN_CASES:
        for delta in (0.0, 1e-3):
            yield (
                f"n = {n}, 𝒟 = B({p}), 𝒟' = B({q}), β = {beta}, δ = {delta:g}",
                delta,
                _generalisation(n, p, q, beta, delta),
            )


@exact_check(
    CheckSpec(
        "prop29-bound",
        "Moment pDP bounds generalisation",
        "Gen(A, 𝒟, n) ≤ E_Z(E_z[e^ε(Z,z) | Z])² − 1 + E δ(Z, z) + E_Z E_z[e^ε | Z] E_z[δ | Z]",
        "exact on a Bernoulli data domain: A(Z) outputs a bit with P(1) = sigmoid(β(2k/m − 1)), k the count of ones, "
        "loss 1{θ ≠ z}; ε(Z, z) the exact pDP at δ(Z, z) ∈ {0, 1e-3} (Z of n − 1 points, the proof's [Z, z']); "
        "Gen summed over the binomial law; ratio Gen/bound ≤ 1",
        "[PDP] Proposition 2.9 (Q18)",
        role="paper",
    ),
)
def prop29_bound() -> Outcome:
    """[PDP] Proposition 2.9: Gen(A, 𝒟, n) against E_Z(E_z[e^ε | Z])² − 1 + E δ + E_Z E_z[e^ε | Z] E_z[δ | Z]."""
    worst, where = 0.0, ""
    for name, _, g in _gen_instances():
        if g["gen"] / g["prop29"] >= worst:
            worst, where = g["gen"] / g["prop29"], f"{name}: Gen {g['gen']:.4g}, bound {g['prop29']:.4g}"
    return inequality(worst, where, f"8 instances; largest Gen/bound {worst:.4g} ({where}).")


def _prop211(kind: str) -> Outcome:
    """Proposition 2.11's printed or corrected right side (``kind``) as a bound on Gen(A, 𝒟, 𝒟', n), or the
    printed '=' (``kind`` = ``"equality"``) as a relative difference."""
    worst, where = 0.0, ""
    for name, _, g in _gen_instances():
        bound = g["prop211_corrected" if kind == "corrected" else "prop211_printed"]
        value = abs(bound - g["gen_cross"]) / g["gen_cross"] if kind == "equality" else g["gen_cross"] / bound
        if value >= worst:
            worst, where = value, f"{name}: Gen {g['gen_cross']:.4g}, right side {bound:.4g}"
    if kind == "equality":
        return decided(
            worst < 1e-9,
            worst,
            1e-9,
            f"Largest relative difference between Gen(A, 𝒟, 𝒟', n) and the printed right side: {worst:.4g} ({where}); "
            "the right side is an upper bound (prop211-printed), not equal.",
        )
    return inequality(worst, where, f"8 instances; largest Gen/bound {worst:.4g} ({where}).")


@exact_check(
    CheckSpec(
        "prop211-printed",
        "Cross-domain generalisation as printed, read as a bound",
        "Gen(A, 𝒟, 𝒟', n) ≤ E[(e^ε(Z,z') + ε(Z,z'') − 1) + δ(Z,z') + ε(Z,z')δ(Z,z'')], z' ~ 𝒟, z'' ~ 𝒟'",
        "exact on the Bernoulli instances with 𝒟 ≠ 𝒟' (importance weights ρ_i); ratio ≤ 1",
        "[PDP] Proposition 2.11 (Q18)",
        role="paper",
    ),
)
def prop211_printed() -> Outcome:
    """[PDP] Proposition 2.11 as printed, read as a bound: Gen(A, 𝒟, 𝒟', n) over its right side."""
    return _prop211("printed")


@exact_check(
    CheckSpec(
        "prop211-equality",
        "Cross-domain generalisation: the printed '='",
        "Gen(A, 𝒟, 𝒟', n) = E[(e^ε(Z,z') + ε(Z,z'') − 1) + δ(Z,z') + ε(Z,z')δ(Z,z'')]",
        "exact on the Bernoulli instances; relative difference",
        "[PDP] Proposition 2.11 (Q18)",
        role="paper",
    ),
)
def prop211_equality() -> Outcome:
    """[PDP] Proposition 2.11's '=': the relative difference of Gen(A, 𝒟, 𝒟', n) and its right side."""
    return _prop211("equality")


@exact_check(
    CheckSpec(
        "prop211-corrected",
        "Cross-domain generalisation with e^(ε'+ε'') and e^ε'δ''",
        "Gen(A, 𝒟, 𝒟', n) ≤ E[e^(ε(Z,z') + ε(Z,z'')) − 1 + δ(Z,z') + e^ε(Z,z')δ(Z,z'')]",
        "exact on the Bernoulli instances; ratio ≤ 1",
        "[PDP] Proposition 2.11 (Q18, corrected)",
        role="paper",
    ),
)
def prop211_corrected() -> Outcome:
    """[PDP] Proposition 2.11 with e^(ε'+ε'') and e^ε'δ'': Gen(A, 𝒟, 𝒟', n) over the corrected side."""
    return _prop211("corrected")


def _cor212(hypothesis: bool) -> Outcome:
    """Corollary 2.12's hypothesis E_𝒟[e^(2ε)] ≤ 1 (``hypothesis``), or its bound and series without it."""
    worst, where, series_gap = 0.0, "", 0.0
    smallest = math.inf
    for name, delta, g in _gen_instances():
        smallest = min(smallest, g["e2_p"])
        bound = 0.5 * (g["e2_p"] + g["e2_q"]) - 1 + 2 * delta
        s = g["series"]
        series = 0.5 * sum(2**i / math.factorial(i) * (s[i - 1] + s[59 + i - 1]) for i in range(1, 60)) + 2 * delta
        series_gap = max(series_gap, abs(series - bound) / bound)
        if g["gen_cross"] / bound >= worst:
            worst, where = g["gen_cross"] / bound, f"{name}: Gen {g['gen_cross']:.4g}, bound {bound:.4g}"
    if hypothesis:
        return decided(
            smallest <= 1,
            smallest,
            1.0,
            f"E_𝒟[e^(2ε)] − 1 ≥ {smallest - 1:.4g} > 0 on every instance: e^(2ε) ≥ 1 pointwise, "
            f"so the hypothesis holds only for "
            "ε ≡ 0 𝒟-a.s. (no privacy loss at all).",
        )
    ok = worst <= 1 + INEQUALITY_SLACK and series_gap < 1e-9
    return decided(
        ok,
        worst,
        1.0,
        f"Without the hypothesis: largest Gen/bound {worst:.4g} ({where}); the series with the weight 2^i/i! on both "
        f"terms equals the closed form (largest relative difference {series_gap:.2g}).",
    )


@exact_check(
    CheckSpec(
        "cor212-hypothesis",
        "Corollary 2.12's hypothesis E_𝒟[e^(2ε)] ≤ 1",
        "E_𝒟[e^(2ε(Z,z))] ≤ 1 for a mechanism with ε ≢ 0",
        "exact E_𝒟[e^(2ε)] on the Bernoulli instances (e^(2ε) ≥ 1, with equality only where ε = 0)",
        "[PDP] Corollary 2.12 (Q18)",
        role="paper",
    ),
)
def cor212_hypothesis() -> Outcome:
    """[PDP] Corollary 2.12: the smallest E_𝒟[e^(2ε)] over the instances against 1."""
    return _cor212(hypothesis=True)


@exact_check(
    CheckSpec(
        "cor212-bound",
        "Corollary 2.12's bound without its hypothesis",
        "Gen(A, 𝒟, 𝒟', n) ≤ ½[E_𝒟 e^(2ε) + E_𝒟' e^(2ε)] − 1 + 2δ = ½Σ_(i≥1) (2^i/i!)(E_𝒟 ε^i + E_𝒟' ε^i) + 2δ",
        "exact on the Bernoulli instances; ratio ≤ 1, and the series (weight on both terms) against the closed form",
        "[PDP] Corollary 2.12 (Q18, hypothesis dropped)",
        role="paper",
    ),
)
def cor212_bound() -> Outcome:
    """[PDP] Corollary 2.12 without its hypothesis: Gen over ½[E_𝒟 e^(2ε) + E_𝒟' e^(2ε)] − 1 + 2δ, and its
    series against the closed form."""
    return _cor212(hypothesis=False)
