"""Closed-form identities, checked at 50 digits (mpmath) on random and ill-conditioned instances.

[PDP] Lemmas B.1–B.3 (the perturbed least-squares solution; Sherman–Morrison–Woodbury as printed, Q21; the
matrix determinant lemma), [RW] Lemmas 24, 25 and 30 (Sherman–Morrison–Woodbury, the determinant lemma, the change
of variables), [LR] Lemmas 4 and 5 and Corollary 7's decomposition, and printed forms read as identities: [LR] §2's
ridge objective (Q48), App. C's norm of the excess risk (Q49), Theorem 3(iii)'s unbiasedness as printed (Q51) and
[PDP] eq. (4.1)–(4.2)'s covariances (Q53).  An identity holds when both sides agree to a relative difference below
1e-30 on every instance and fails when they differ by more than 1e-3 on one
(:func:`pdp_audit.ledger.lemmas.exact.identity`).
"""

from __future__ import annotations

import mpmath
import numpy as np
from scipy import stats

from pdp_audit.ledger.lemmas.exact import DIGITS, IDENTITY_PASS, Outcome, decided, exact_check, identity, instances, mp
from pdp_audit.verify.core.checks import CheckSpec


def _smw(rng, printed: bool) -> Outcome:
    """Sherman–Morrison–Woodbury on random and ill-conditioned A (plus I, or 1e-12·I): rank-2 updates, or square U, C, V
    with the final V dropped as [PDP] prints it (``printed``)."""
    trials = []
    for case, a in instances(rng, [(4, 4), (6, 6)]):
        n = a.shape[0]
        k = n if printed else 2
        A = a @ a.T + np.eye(n) * (1e-12 if case == "ill-conditioned" else 1.0)
        U, C, V = rng.standard_normal((n, k)), np.diag(rng.uniform(0.5, 2, k)), rng.standard_normal((k, n))

        def sides(A=A, U=U, C=C, V=V):
            A, U, C, V = mp(A), mp(U), mp(C), mp(V)
            Ai = A**-1
            inner = (C**-1 + V * Ai * U) ** -1
            rhs = Ai - Ai * U * inner * (Ai if printed else V * Ai)
            return rhs, (A + U * C * V) ** -1

        trials.append((f"{case} n={n}, k={k}", sides))
    note = "The printed form drops the final V (Q21): it equals (A + UCV)⁻¹ only when V = I." if printed else ""
    return identity(trials, note)


@exact_check(
    CheckSpec(
        "smw-printed",
        "Sherman–Morrison–Woodbury as [PDP] prints it",
        "(A + UCV)⁻¹ = A⁻¹ − A⁻¹U(C⁻¹ + VA⁻¹U)⁻¹A⁻¹",
        "relative difference to (A + UCV)⁻¹ at 50 digits, square U, C, V (the printed form needs them square)",
        "[PDP] Lemma B.2 (Q21)",
        role="paper",
    ),
    draws=True,
)
def smw_printed(rng) -> Outcome:
    """[PDP] Lemma B.2 (Q21): A⁻¹ − A⁻¹U(C⁻¹ + VA⁻¹U)⁻¹A⁻¹ against (A + UCV)⁻¹, square U, C, V (the final V dropped)."""
    return _smw(rng, printed=True)


@exact_check(
    CheckSpec(
        "smw",
        "Sherman–Morrison–Woodbury",
        "(A + UCV)⁻¹ = A⁻¹ − A⁻¹U(C⁻¹ + VA⁻¹U)⁻¹VA⁻¹",
        "relative difference at 50 digits",
        "[RW] Lemma 24",
        role="paper",
    ),
    draws=True,
)
def smw(rng) -> Outcome:
    """[RW] Lemma 24: A⁻¹ − A⁻¹U(C⁻¹ + VA⁻¹U)⁻¹VA⁻¹ against (A + UCV)⁻¹, rank-2 updates."""
    return _smw(rng, printed=False)


@exact_check(
    CheckSpec(
        "det-lemma",
        "Matrix determinant lemma",
        "det(A + cdᵀ) = det(A)(1 + dᵀA⁻¹c)",
        "relative difference at 50 digits",
        "[PDP] Lemma B.3; [RW] Lemma 25",
        role="paper",
    ),
    draws=True,
)
def det_lemma(rng) -> Outcome:
    """[PDP] Lemma B.3, [RW] Lemma 25: det(A + cdᵀ) against det(A)(1 + dᵀA⁻¹c)."""
    trials = []
    for case, a in instances(rng, [(3, 3), (6, 6)]):
        n = a.shape[0]
        A = a + np.eye(n) * (1e-12 if case == "ill-conditioned" else 0.0)
        c, d = rng.standard_normal((n, 1)), rng.standard_normal((n, 1))

        def sides(A=A, c=c, d=d):
            A, c, d = mp(A), mp(c), mp(d)
            lhs = mpmath.matrix([[mpmath.det(A + c * d.T)]])
            return lhs, mpmath.matrix([[mpmath.det(A) * (1 + (d.T * A**-1 * c)[0])]])

        trials.append((f"{case} n={n}", sides))
    return identity(trials, "")


def _regression_instances(rng):
    """Design matrices (random and ill-conditioned), with a response, a d × d and a d × 1 perturbation each."""
    for case, X in instances(rng, [(12, 3), (30, 5)]):
        n, d = X.shape
        yield case, X, rng.standard_normal((n, 1)), rng.standard_normal((d, d)), rng.standard_normal((d, 1))


@exact_check(
    CheckSpec(
        "perturbed-solution",
        "Perturbed least-squares solution",
        "θ̂' = (XᵀX + E1)⁻¹(Xᵀy + E2) ⇒ θ̂' − θ̂ = (XᵀX + E1)⁻¹(E2 − E1θ̂), θ̂ = (XᵀX)⁻¹Xᵀy",
        "relative difference at 50 digits ('Xy' read as Xᵀy)",
        "[PDP] Lemma B.1; [LR] Lemma 4",
        role="paper",
    ),
    draws=True,
)
def perturbed_solution(rng) -> Outcome:
    """[PDP] Lemma B.1, [LR] Lemma 4: θ̂' − θ̂ against (XᵀX + E1)⁻¹(E2 − E1θ̂), E1 symmetric."""
    trials = []
    for case, X, y, E1, E2 in _regression_instances(rng):
        E1 = (E1 + E1.T) / 2

        def sides(X=X, y=y, E1=E1, E2=E2):
            X, y, E1, E2 = mp(X), mp(y), mp(E1), mp(E2)
            G = X.T * X
            theta = G**-1 * (X.T * y)
            perturbed = (G + E1) ** -1 * (X.T * y + E2)
            return perturbed - theta, (G + E1) ** -1 * (E2 - E1 * theta)

        trials.append((f"{case} {X.shape}", sides))
    return identity(trials, "")


@exact_check(
    CheckSpec(
        "ridge-decomposition",
        "Ridge SSP error decomposition",
        "θ̂_λ − θ* = −(H + E1)⁻¹E1θ* − λ(H + E1)⁻¹θ* + (H + E1)⁻¹E2, H = XᵀX + λI",
        "relative difference at 50 digits (the identity only; the 3(·)+3(·)+3(·) rates are not checked)",
        "[LR] Corollary 7",
        role="paper",
    ),
    draws=True,
)
def ridge_decomposition(rng) -> Outcome:
    """[LR] Corollary 7: θ̂_λ − θ* against −(H + E1)⁻¹E1θ* − λ(H + E1)⁻¹θ* + (H + E1)⁻¹E2, λ = 0.7."""
    trials = []
    for case, X, y, E1, E2 in _regression_instances(rng):
        E1, lam = (E1 + E1.T) / 2, 0.7

        def sides(X=X, y=y, E1=E1, E2=E2, lam=lam):
            X, y, E1, E2 = mp(X), mp(y), mp(E1), mp(E2)
            d = X.cols
            G = X.T * X
            star = G**-1 * (X.T * y)
            M = (G + lam * mpmath.eye(d) + E1) ** -1
            ridge = M * (X.T * y + E2)
            return ridge - star, -M * E1 * star - lam * M * star + M * E2

        trials.append((f"{case} {X.shape}, λ = {lam}", sides))
    return identity(trials, "")


def _excess_risk(rng, printed: bool, note: str) -> Outcome:
    """[LR] Lemma 5: F(θ) − F(θ*) = (θ − θ*)ᵀXᵀX(θ − θ*); ``printed``: App. C's form with the (XᵀX)⁻¹-norm and ½ on
    both sides (Q49)."""
    trials = []
    for case, X, y, _, theta in _regression_instances(rng):

        def sides(X=X, y=y, theta=theta):
            X, y, theta = mp(X), mp(y), mp(theta)
            G = X.T * X
            star = G**-1 * (X.T * y)
            r, r_star = y - X * theta, y - X * star
            lhs = (r.T * r)[0] - (r_star.T * r_star)[0]
            rhs = ((theta - star).T * (G**-1 if printed else G) * (theta - star))[0]
            if printed:
                lhs, rhs = lhs / 2, rhs / 2
            return mpmath.matrix([[lhs]]), mpmath.matrix([[rhs]])

        trials.append((f"{case} {X.shape}", sides))
    return identity(trials, note)


@exact_check(
    CheckSpec(
        "excess-risk",
        "Excess least-squares risk",
        "‖y − Xθ‖² − ‖y − Xθ*‖² = ‖θ − θ*‖²_(XᵀX)",
        "relative difference at 50 digits, θ* the least-squares solution",
        "[LR] Lemma 5",
        role="paper",
    ),
    draws=True,
)
def excess_risk(rng) -> Outcome:
    """[LR] Lemma 5: ‖y − Xθ‖² − ‖y − Xθ*‖² against ‖θ − θ*‖² in the XᵀX-norm."""
    return _excess_risk(rng, printed=False, note="")


@exact_check(
    CheckSpec(
        "q49-excess-risk-norm",
        "'F(θ̂_λ) − F(θ*) = ½‖θ̂_λ − θ*‖²_(XᵀX)⁻¹' as printed",
        "F(θ) − F(θ*) = ½‖θ − θ*‖²_((XᵀX)⁻¹), F = ½‖y − Xθ‖²",
        "relative difference at 50 digits (Lemma 5's XᵀX-norm is excess-risk)",
        "[LR] App. C (Q49)",
        role="paper",
    ),
    draws=True,
)
def q49_excess_risk_norm(rng) -> Outcome:
    """[LR] App. C (Q49): F(θ) − F(θ*), F = ½‖y − Xθ‖², against ½‖θ − θ*‖² in the printed (XᵀX)⁻¹-norm."""
    note = "The (XᵀX)⁻¹-norm is a typo for Lemma 5's XᵀX-norm (excess-risk passes with it)."
    return _excess_risk(rng, printed=True, note=note)


@exact_check(
    CheckSpec(
        "q48-ridge-objective",
        "Which objective the ridge closed form minimises",
        "θ*_λ = (XᵀX + λI)⁻¹Xᵀy minimises F(θ) + λ‖θ‖² with F = ½‖y − Xθ‖² (as printed)",
        "the gradient of F + λ‖θ‖² and of F + (λ/2)‖θ‖² at θ*_λ, at 50 digits",
        "[LR] §2, App. D.4 (Q48)",
        role="paper",
    ),
    draws=True,
)
def q48_ridge_objective(rng) -> Outcome:
    """[LR] §2, App. D.4 (Q48): the gradients of F + λ‖θ‖² and F + (λ/2)‖θ‖² at (XᵀX + λI)⁻¹Xᵀy."""
    X, y, lam = rng.standard_normal((20, 4)), rng.standard_normal((20, 1)), 0.8
    with mpmath.workdps(DIGITS):
        Xm, ym = mp(X), mp(y)
        theta = (Xm.T * Xm + lam * mpmath.eye(4)) ** -1 * (Xm.T * ym)
        residual_gradient = -(Xm.T * (ym - Xm * theta))  # ∇F
        printed = mpmath.norm(residual_gradient + 2 * lam * theta)  # ∇(F + λ‖θ‖²)
        halved = mpmath.norm(residual_gradient + lam * theta)  # ∇(F + (λ/2)‖θ‖²)
        scale = mpmath.norm(residual_gradient)
    ok = printed / scale < IDENTITY_PASS
    return decided(
        ok,
        float(printed / scale),
        IDENTITY_PASS,
        f"Relative gradient of F + λ‖θ‖² at the closed form: {float(printed / scale):.3g} (not a minimiser); of "
        f"F + (λ/2)‖θ‖²: {float(halved / scale):.3g} (the minimiser). The closed form minimises F + (λ/2)‖θ‖², as "
        "App. D.4's reading of F + λ‖θ‖² with F = ‖·‖² (no ½) also gives.",
    )


@exact_check(
    CheckSpec(
        "q51-printed-unbiased",
        "AdaSSP's printed output is unbiased on E",
        "θ̃ = (XᵀX + λI)⁻¹X̂y, λ = 0 on E, y ~ N(Xθ0, σ²I) ⇒ E[θ̃ | X, E] = θ0",
        "E[θ̃ | X, E] = (XᵀX)⁻¹XᵀXθ0 (the noise has mean 0) against θ0 at 50 digits",
        "[LR] Theorem 3(iii), Algorithm 2 as printed (Q51)",
        role="paper",
    ),
    draws=True,
)
def q51_printed_unbiased(rng) -> Outcome:
    """[LR] Theorem 3(iii), Algorithm 2 as printed (Q51): E[θ̃ | X, E] = (XᵀX)⁻¹XᵀXθ0 against θ0 (λ = 0)."""
    trials = []
    for case, X in instances(rng, [(20, 3), (40, 5), (60, 4)]):
        if case != "random":  # (XᵀX)⁻¹XᵀX at condition 1e24 is beyond 50 digits' reach
            continue
        theta0 = rng.standard_normal((X.shape[1], 1))

        def sides(X=X, theta0=theta0):
            X, theta0 = mp(X), mp(theta0)
            G = X.T * X
            return G**-1 * (X.T * (X * theta0)), theta0  # E[X̂y] = Xᵀ E[y] = XᵀXθ0

        trials.append((f"{case} {X.shape}", sides))
    return identity(trials, "At λ = 0 (on E) the printed output is exactly unbiased.")


@exact_check(
    CheckSpec(
        "q53-recovers",
        "A = (XᵀX)² recovers ObjPert and A = XᵀX recovers OPS",
        "Cov of argmin ‖y − Xθ‖² + ⟨z, θ⟩ (z ~ N(0, σ²I)) ∝ ((XᵀX)²)⁻¹; Cov of p(θ) ∝ e^(−γ‖y − Xθ‖²) ∝ (XᵀX)⁻¹, "
        "both centred at the least-squares fit",
        "the means and covariances in closed form ((XᵀX)⁻¹(Xᵀy − z/2) and the Gaussian posterior) against "
        "σ²/4·((XᵀX)²)⁻¹ and (XᵀX)⁻¹/(2γ) at 50 digits (z read as the noise, Q53)",
        "[PDP] eq. (4.1), (4.2) (Q53)",
        role="paper",
    ),
    draws=True,
)
def q53_recovers(rng) -> Outcome:
    """[PDP] eq. (4.1)–(4.2) (Q53): the covariances of ObjPert's argmin and of OPS against (σ²/4)((XᵀX)²)⁻¹ and
    (XᵀX)⁻¹/(2γ)."""
    trials = []
    for case, X in instances(rng, [(15, 3), (30, 4), (45, 5)]):
        if case != "random":  # ((XᵀX)²)⁻¹ at condition 1e48 is beyond 50 digits' reach
            continue
        sigma, gamma = 0.7, 2.5

        def sides(X=X, sigma=sigma, gamma=gamma):
            Xm = mp(X)
            G = Xm.T * Xm
            # argmin ‖y − Xθ‖² + ⟨z, θ⟩ = G⁻¹(Xᵀy − z/2): covariance (σ²/4)G⁻²; e^(−γ‖y − Xθ‖²): covariance G⁻¹/(2γ)
            objpert = (G**-1) * (sigma**2 / 4 * mpmath.eye(G.rows)) * (G**-1)
            ops_cov = (2 * gamma * G) ** -1
            lhs = mpmath.matrix(2 * G.rows, G.cols)
            rhs = mpmath.matrix(2 * G.rows, G.cols)
            target_objpert, target_ops = (sigma**2 / 4) * (G * G) ** -1, G**-1 / (2 * gamma)
            for i in range(G.rows):
                for j in range(G.cols):
                    lhs[i, j], rhs[i, j] = objpert[i, j], target_objpert[i, j]
                    lhs[G.rows + i, j], rhs[G.rows + i, j] = ops_cov[i, j], target_ops[i, j]
            return lhs, rhs

        trials.append((f"{case} {X.shape}", sides))
    return identity(
        trials,
        "Both outputs are centred at the least-squares fit (the noise has mean 0); the covariances are proportional to "
        "A⁻¹ with A = (XᵀX)² (ObjPert) and A = XᵀX (OPS), reading z as the noise (Q53).",
    )


@exact_check(
    CheckSpec(
        "change-of-variables",
        "Change of variables",
        "Y = g(X), g a differentiable bijection ⇒ f_Y(y) = f_X(g⁻¹(y))|det ∂g⁻¹(y)/∂y|",
        "the formula against the derivative of P(Y ≤ y) = P(X ≤ g⁻¹(y)) (mpmath, 50 digits) for g = sinh, "
        "exp, x³ + x; and against the N(b, AAᵀ) density for Y = AX + b",
        "[RW] Lemma 30",
        role="paper",
    ),
    draws=True,
)
def change_of_variables(rng) -> Outcome:
    """[RW] Lemma 30: f_X(g⁻¹(y))/|g'(g⁻¹(y))| against d/dy P(X ≤ g⁻¹(y)) for g = sinh, exp, x³ + x, and
    the linear case against the N(b, AAᵀ) density."""
    worst, where = 0.0, ""
    maps = {  # g, g⁻¹ (mpmath), on X ~ N(0, 1)
        "sinh": (mpmath.sinh, mpmath.asinh),
        "exp": (mpmath.exp, mpmath.log),
        "x³ + x": (
            lambda x: x**3 + x,
            lambda y: mpmath.findroot(lambda x: x**3 + x - y, mpmath.sign(y) * abs(y) ** 0.3),
        ),
    }
    with mpmath.workdps(DIGITS):
        for name, (g, g_inv) in maps.items():
            for draw in rng.standard_normal(5):
                y = g(mpmath.mpf(float(draw)))
                x = g_inv(y)
                formula = mpmath.npdf(x) / abs(mpmath.diff(g, x))  # |∂g⁻¹/∂y| = 1/|g'(g⁻¹(y))|
                derivative = mpmath.diff(lambda v: mpmath.ncdf(g_inv(v)), y)
                rel = float(abs(formula - derivative) / derivative)
                if rel >= worst:
                    worst, where = rel, f"g = {name}, y = {float(y):.4g}"
    A = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal(3)
    for y in rng.standard_normal((5, 3)):
        x = np.linalg.solve(A, y - b)
        formula = stats.multivariate_normal(np.zeros(3)).pdf(x) / abs(np.linalg.det(A))
        direct = stats.multivariate_normal(b, A @ A.T).pdf(y)
        rel = abs(formula - direct) / direct
        if rel >= worst:
            worst, where = float(rel), "Y = AX + b, d = 3"
    return decided(
        worst < 1e-9,
        worst,
        1e-9,
        f"20 points; largest relative difference {worst:.3g} ({where}; the linear case is in float64).",
    )
