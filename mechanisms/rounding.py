"""The standard model of binary64 arithmetic, the one floor every proven float bound of the suite stands on.

Each basic operation is correctly rounded: fl(x ∘ y) = (x ∘ y)(1 + θ), |θ| ≤ u = 2⁻⁵³ (Higham, *Accuracy and
Stability of Numerical Algorithms*, 2nd ed. 2002, §2.2), and n such factors compound to at most γ_n = nu/(1 − nu)
(Lemma 3.1 there): |∏(1 + θ_k)^{±1} − 1| ≤ γ_n, and a sum of n terms in any order is within γ_{n−1}Σ|x_i| of the
exact one (§3.1)."""

from __future__ import annotations

#: float64's unit roundoff u = 2⁻⁵³.
UNIT_ROUNDOFF = 2.0**-53


def gamma(n: int) -> float:
    """γ_n = nu/(1 − nu): |∏(1 + θ_k)^{±1} − 1| ≤ γ_n for n factors with |θ_k| ≤ u (Higham 2002, Lemma 3.1)."""
    return n * UNIT_ROUNDOFF / (1 - n * UNIT_ROUNDOFF)
