"""Deterministic matrix inequalities, checked in float64 on random and adversarial instances.

Weyl's inequality for singular values ([PDP] Lemma B.4, [LR] Lemma 16; the aligned perturbations attain it), the
norm of the ridge hat map ([PDP] Lemma A.1 and §4's worst case K5) and the direction of [LR] App. C's
'XᵀX + λI + E1 ≺ 0.5(XᵀX + λI)' under ‖E1‖ ≤ (λ_min + λ)/2 (Q49).  A ratio holds up to a 1e-9 relative allowance
for rounding; a symmetric matrix whose smallest eigenvalue double precision cannot resolve is left out.
"""

from __future__ import annotations

import math

import numpy as np

from pdp_audit.ledger.lemmas.exact import (
    INEQUALITY_SLACK,
    RESOLVED_EIGENVALUE,
    Outcome,
    decided,
    exact_check,
    instances,
)
from pdp_audit.verify.core.checks import CheckSpec


@exact_check(
    CheckSpec(
        "weyl",
        "Weyl's inequality for singular values",
        "|σ_i(X) − σ_i(Y)| ≤ ‖X − Y‖₂ for every i",
        "max over instances of max_i |σ_i(X) − σ_i(Y)| / ‖X − Y‖₂ ≤ 1",
        "[PDP] Lemma B.4; [LR] Lemma 16",
        role="paper",
    ),
    draws=True,
)
def weyl(rng) -> Outcome:
    """[PDP] Lemma B.4, [LR] Lemma 16: max_i |σ_i(X + E) − σ_i(X)| / ‖E‖₂ over random and aligned perturbations."""
    worst, where, count = 0.0, "", 0
    for case, X in instances(rng, [(5, 3), (8, 8), (20, 6)]):
        u, s, vt = np.linalg.svd(X)
        perturbations = {
            "random": rng.standard_normal(X.shape) * 0.3,
            "aligned with the top singular pair": -0.5 * s[0] * np.outer(u[:, 0], vt[0]),
            "aligned with the bottom pair": 2.0 * np.outer(u[:, len(s) - 1], vt[len(s) - 1]),
        }
        for name, E in perturbations.items():
            ratio = np.max(np.abs(np.linalg.svd(X + E, compute_uv=False) - s)) / np.linalg.norm(E, 2)
            count += 1
            if ratio >= worst:
                worst, where = float(ratio), f"{case} {X.shape}, E {name}"
    ok = worst <= 1 + INEQUALITY_SLACK
    return decided(
        ok,
        worst,
        1.0,
        f"{count} instances; largest ratio {worst:.12g} ({where}): the aligned perturbations attain the bound.",
        instances=count,
        worst_instance=where,
    )


@exact_check(
    CheckSpec(
        "lemma-a1",
        "Norm of the ridge hat map",
        "λ_min(XᵀX + λI) ≥ h ⇒ ‖(XᵀX + λI)⁻¹Xᵀ‖ ≤ √(2/h)",
        "max over instances of ‖(XᵀX + λI)⁻¹Xᵀ‖₂ / √(2/h) ≤ 1, h = λ_min(XᵀX + λI)",
        "[PDP] Lemma A.1",
        role="paper",
    ),
    draws=True,
)
def lemma_a1(rng) -> Outcome:
    """[PDP] Lemma A.1: ‖(XᵀX + λI)⁻¹Xᵀ‖₂ / √(2/h), h = λ_min(XᵀX + λI) (sharp: 1/√2)."""
    worst, where, count = 0.0, "", 0
    for case, X in instances(rng, [(10, 3), (40, 5)]):
        s = np.linalg.svd(X, compute_uv=False)
        for lam in (0.0, s[-1] ** 2, 0.5 * s[0] ** 2, 10.0 * s[0] ** 2, 1e-6):
            H = X.T @ X + lam * np.eye(X.shape[1])
            h = np.linalg.eigvalsh(H)[0]
            if h <= RESOLVED_EIGENVALUE * np.linalg.norm(H, 2):
                continue  # h is below the rounding of XᵀX: H is singular in double precision, the ratio meaningless
            ratio = np.linalg.norm(np.linalg.solve(H, X.T), 2) / math.sqrt(2 / h)
            count += 1
            if ratio >= worst:
                worst, where = float(ratio), f"{case} {X.shape}, λ = {lam:.3g}"
    # the supremum over all X, λ of ‖(XᵀX+λI)⁻¹Xᵀ‖·√h is 1/√2 (s/(s² + λ) with s² + λ ≥ h): attained at λ = 0
    return decided(
        worst <= 1 + INEQUALITY_SLACK,
        worst,
        1.0,
        f"{count} instances; largest ratio {worst:.6g} ({where}). The sharp bound is 1/√h (ratio 1/√2 "
        "= 0.7071, attained at λ = 0): the printed √(2/h) is valid and loose by √2.",
        instances=count,
    )


@exact_check(
    CheckSpec(
        "k5-hat-norm",
        "Worst case of the ridge solution's norm",
        "‖(XᵀX + λI)⁻¹Xᵀ‖ ≤ 1/(2√λ), so ‖θ̂‖ ≤ √n/(2√λ) for |y_i| ≤ 1, attained when y is a left singular "
        "vector of X with singular value √λ",
        "the ratio ‖(XᵀX + λI)⁻¹Xᵀ‖·2√λ ≤ 1 over instances, and ‖θ̂‖ at the worst y (the left singular vector of "
        "singular value √λ, scaled to ‖y‖ = √n) against √n/(2√λ)",
        "[PDP] §4 (K5)",
        role="paper",
    ),
    draws=True,
)
def k5_hat_norm(rng) -> Outcome:
    """[PDP] §4 (K5): ‖(XᵀX + λI)⁻¹Xᵀ‖₂·2√λ ≤ 1, and ‖θ̂‖ = √n/(2√λ) at the worst y."""
    worst, attained = 0.0, 0.0
    for case, X in instances(rng, [(30, 4), (80, 6)]):
        s = np.linalg.svd(X, compute_uv=False)
        for lam in (s[0] ** 2, s[-1] ** 2, float(np.median(s)) ** 2, 1e-4, 1e4):
            H = X.T @ X + lam * np.eye(X.shape[1])
            if np.linalg.eigvalsh(H)[0] <= RESOLVED_EIGENVALUE * np.linalg.norm(H, 2):
                continue  # singular in double precision (λ = s_min² = 1e-24 on the ill-conditioned instances)
            worst = max(worst, float(np.linalg.norm(np.linalg.solve(H, X.T), 2) * 2 * math.sqrt(lam)))
        u, sv, _ = np.linalg.svd(X, full_matrices=False)
        lam = float(sv[1] ** 2)  # X has the singular value √λ
        n = X.shape[0]
        y = math.sqrt(n) * u[:, 1]  # ‖y‖ = √n, the largest y with |y_i| ≤ 1 allows in norm
        # ridge as least squares on [X; √λ I]θ = [y; 0]: error ~ √cond(XᵀX + λI)·ε, where solving the normal
        # equations loses cond(XᵀX + λI)·ε (1e-8 of relative error on the ill-conditioned instances)
        augmented = np.vstack([X, math.sqrt(lam) * np.eye(X.shape[1])])
        theta = np.linalg.lstsq(augmented, np.concatenate([y, np.zeros(X.shape[1])]), rcond=None)[0]
        attained = max(attained, float(np.linalg.norm(theta) / (math.sqrt(n) / (2 * math.sqrt(lam)))))
    ok = worst <= 1 + INEQUALITY_SLACK and abs(attained - 1) < 1e-9
    return decided(
        ok,
        worst,
        1.0,
        f"Largest ‖(XᵀX + λI)⁻¹Xᵀ‖·2√λ = {worst:.12g}; at the worst y the bound √n/(2√λ) is attained "
        f"(ratio {attained:.12g}). Such a y has |y_i| ≤ 1 only if the singular vector is spread evenly; the norm bound "
        "holds for every y with ‖y‖ ≤ √n.",
    )


def _q49_direction(rng, printed: bool) -> Outcome:
    """[LR] App. C at ‖E1‖ = (λ_min + λ)/2: the largest λ_max of XᵀX + λI + E1 − 0.5(XᵀX + λI) relative
    to λ_max(XᵀX + λI) (``printed``: ≺ needs it < 0), or the smallest λ_min (⪰ needs it ≥ 0)."""
    worst, where = -math.inf if printed else math.inf, ""
    for case, X in instances(rng, [(30, 4), (12, 3)]):
        lam = 0.5
        G = X.T @ X + lam * np.eye(X.shape[1])
        r = float(np.linalg.eigvalsh(G)[0]) / 2  # ‖E1‖ = (λ_min + λ)/2
        w, v = np.linalg.eigh(G)
        perturbations = {"−r·v_min v_minᵀ": -r * np.outer(v[:, 0], v[:, 0])}
        for i in range(3):
            E = rng.standard_normal(G.shape)
            E = (E + E.T) / 2
            perturbations[f"random {i}"] = r * E / np.linalg.norm(E, 2)
        for name, E in perturbations.items():
            diff = np.linalg.eigvalsh(G + E - 0.5 * G) / float(w[-1])
            value = float(diff[-1] if printed else diff[0])
            if (printed and value >= worst) or (not printed and value <= worst):
                worst, where = value, f"{case} {X.shape}, E1 {name}"
    if printed:
        return decided(
            worst < 0,
            worst,
            0.0,
            f"λ_max(XᵀX + λI + E1 − 0.5(XᵀX + λI))/λ_max ≥ {worst:.4g} > 0 on every instance ({where}): the printed "
            "direction never holds (it would need E1 ≺ −0.5(XᵀX + λI)).",
        )
    return decided(
        worst >= -1e-9,
        worst,
        0.0,
        f"Smallest λ_min(XᵀX + λI + E1 − 0.5(XᵀX + λI))/λ_max = {worst:.3g} ({where}; 0 is attained by E1 = −r·vvᵀ).",
    )


@exact_check(
    CheckSpec(
        "q49-e1-direction-printed",
        "'XᵀX + λI + E1 ≺ 0.5(XᵀX + λI)' as printed",
        "‖E1‖ ≤ (λ_min + λ)/2 ⇒ XᵀX + λI + E1 ≺ 0.5(XᵀX + λI)",
        "λ_max of (XᵀX + λI + E1) − 0.5(XᵀX + λI) on random instances with ‖E1‖ = (λ_min + λ)/2 (fail when ≥ 0)",
        "[LR] App. C (Q49)",
        role="paper",
    ),
    draws=True,
)
def q49_e1_direction_printed(rng) -> Outcome:
    """[LR] App. C (Q49): λ_max(XᵀX + λI + E1 − 0.5(XᵀX + λI)) at ‖E1‖ = (λ_min + λ)/2 (the printed ≺)."""
    return _q49_direction(rng, printed=True)


@exact_check(
    CheckSpec(
        "q49-e1-direction",
        "The evident direction: XᵀX + λI + E1 ⪰ 0.5(XᵀX + λI)",
        "‖E1‖ ≤ (λ_min + λ)/2 ⇒ XᵀX + λI + E1 ⪰ 0.5(XᵀX + λI)",
        "λ_min of the difference on the same instances, including E1 = −((λ_min + λ)/2)vvᵀ (equality); ≥ −1e-9·scale",
        "[LR] App. C (Q49, corrected)",
        role="paper",
    ),
    draws=True,
)
def q49_e1_direction(rng) -> Outcome:
    """[LR] App. C (Q49, corrected): λ_min of the same difference (the evident ⪰)."""
    return _q49_direction(rng, printed=False)
