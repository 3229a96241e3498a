"""The evidence for the report's own privacy cost ([RW] Theorems 10(1)(2), 11, 14; Algorithm 4's overhead).

Given θ̂ᴾ the report's releases form a Gaussian mechanism
(:class:`pdp_audit.mechanisms.privacy_report.mechanism.ReportReleasePair`) whose privacy loss is N(η²/2, η²):
every claim has an
exact δ(ε) to agree with.  Per-instance claims are audited for the median row of D at one typical release.
"""

from __future__ import annotations

from concurrent.futures import Executor
from fractions import Fraction

import numpy as np
from scipy import stats

from pdp_audit.audits.privacy_report.builders import coverage, gaussian_claim_checks
from pdp_audit.audits.privacy_report.checks import CHECKS, STAGES
from pdp_audit.audits.privacy_report.context import Context
from pdp_audit.mechanisms.privacy_report import mechanism as pr
from pdp_audit.reports.numbers import sum_up
from pdp_audit.reports.records import Direction
from pdp_audit.verify.core.checks import CheckSpec, Evidence
from pdp_audit.verify.estimators.engine import sample_privacy_loss
from pdp_audit.verify.evidence import builders

ONE_DIRECTION: tuple[Direction, ...] = ("D||D'",)


def _spec(check_id: str, **values) -> CheckSpec:
    return CHECKS[check_id].fill(**values)


def _typical_individual(ctx: Context) -> tuple[float, float, float]:
    """f', f'' and ‖x‖ of the median row at the typical release θ̂ᴾ."""
    data, rel = ctx.data, ctx.typical
    x, y = data.X[data.median], data.y[data.median]
    t = float(x @ rel.report.theta)
    f = rel.report.loss
    return float(f.f1(t, y)), float(f.f2(t, y)), float(np.linalg.norm(x))


def release_accounting_checks(ctx: Context, executor: Executor | None) -> list[Evidence]:
    """DP of the gradient and Hessian releases (Theorem 10(1)), the median row's pDP (Theorems 10(2), 14) and
    ex-post pDP (Theorem 14(2)); in the adaptive mode also Algorithm 3's DP at ε₄, Theorem 11 and Algorithm 4's
    overhead."""
    cal, cfg = ctx.cal, ctx.config
    s2, s3 = cal.sigma2 * cal.noise_scale2, cal.sigma3 * cal.noise_scale3  # noise actually added
    delta = cal.delta
    checks = []
    eps10 = pr.theorem10_dp_epsilon(cal.xi, cal.beta, cal.sigma2, cal.sigma3, delta, 2)
    worst = pr.individual_pair(cal.xi, cal.beta, sigma2=s2, sigma3=s3, relation="add")
    spec = _spec("thm10-dp", delta=delta, eps10=eps10, sigma2=cal.sigma2, sigma3=cal.sigma3, xi=cal.xi, beta=cal.beta)
    checks += gaussian_claim_checks(spec, worst, eps10, delta, cfg, executor, stage=STAGES["thm10-dp"])
    f1, f2, xn = _typical_individual(ctx)
    eps_pdp = float(pr.theorem10_pdp_epsilon(f1, f2, xn, cal.sigma2, cal.sigma3, delta))
    pair = pr.individual_pair(abs(f1) * xn, f2 * xn**2, sigma2=s2, sigma3=s3)
    spec = _spec("thm10-pdp", gradient=abs(f1) * xn, hessian=f2 * xn**2, delta=delta, eps_pdp=eps_pdp)
    checks += gaussian_claim_checks(spec, pair, eps_pdp, delta, cfg, executor, directions=ONE_DIRECTION)
    eps14 = float(pr.theorem14_epsilon(abs(f1) * xn, cal.sigma2, delta, cal.readings.epsilon2_log))
    grad_pair = pr.individual_pair(abs(f1) * xn, 0.0, sigma2=s2)
    spec = _spec("thm14-pdp", delta=delta, eps14=eps14)
    checks += gaussian_claim_checks(spec, grad_pair, eps14, delta, cfg, executor, directions=ONE_DIRECTION)
    ex_post = float(pr.theorem14_ex_post_epsilon(abs(f1) * xn, cal.sigma2, cal.rho))
    loss = sample_privacy_loss(grad_pair, "D", cfg.trials, cfg.seed, "thm14-ex-post")
    eta = grad_pair.eta
    exact_fail = float(stats.norm.sf(ex_post, eta**2 / 2, eta) + stats.norm.cdf(-ex_post, eta**2 / 2, eta))
    check = coverage(
        _spec("thm14-ex-post", rho=cal.rho, ex_post=ex_post),
        np.abs(loss) > ex_post,
        cal.rho,
        exact_bracket=(exact_fail, exact_fail),
    )
    checks.append(check.noted(f"Exact failure probability (loss law N(η²/2, η²), η = {eta:.4g}): {exact_fail:.4g}."))
    if cal.mode == "adaptive":
        checks += _adaptive_accounting(ctx, executor, f1, f2, xn, s2, s3)
    return checks


def _adaptive_accounting(
    ctx: Context, executor: Executor | None, f1: float, f2: float, xn: float, s2: float, s3: float
) -> list[Evidence]:
    cal, cfg, data, rel = ctx.cal, ctx.config, ctx.data, ctx.typical
    delta = cal.delta
    H = rel.hessian
    # Weyl: |λ_min(H) − λ_min(H − f''xxᵀ)| ≤ f''‖x‖² for every row (removal), at one release.
    t = data.X @ rel.report.theta
    f2_all = rel.report.loss.f2(t, data.y)
    lam0 = np.linalg.eigvalsh(H)[0]
    shifts = np.empty(len(t))
    for lo in range(0, len(t), 256):
        xs = data.X[lo : lo + 256]
        Hs = H[None] - f2_all[lo : lo + 256, None, None] * np.einsum("ti,tj->tij", xs, xs)
        shifts[lo : lo + 256] = lam0 - np.linalg.eigvalsh(Hs)[:, 0]
    bound = f2_all * np.einsum("ij,ij->i", data.X, data.X)
    tol = 1e-10 * max(1.0, float(np.linalg.eigvalsh(H)[-1]))  # eigvalsh rounding ~1e-15‖H‖
    excess = float(np.max(np.abs(shifts) - bound))
    median_ratio = float(np.median(np.abs(shifts) / np.maximum(bound, 1e-300)))
    checks = [
        builders.exact_check(
            _spec("thm11-weyl"),
            holds=excess <= tol,
            estimate=excess,
            note=(
                f"Estimate = largest excess |Δλ_min| − f''‖x‖² over the {len(t)} rows at one release (holds if "
                f"≤ {tol:.2g}, the rounding of eigvalsh). Median |Δλ_min| / (f''‖x‖²): {median_ratio:.3g}."
            ),
        )
    ]
    eps4 = float(cal.budget[3])
    worst_lambda_min = pr.ReleasedLambdaMin((float(lam0), float(lam0) - cal.beta), cal.sigma4)
    worst = pr.ReportReleasePair(lambda_min=worst_lambda_min, relation="remove")
    spec = _spec("thm11-dp", sigma4=cal.sigma4, delta=delta, eps4=eps4, beta=cal.beta)
    checks += gaussian_claim_checks(spec, worst, eps4, delta, cfg, executor, stage=STAGES["thm11-dp"])
    x = data.X[data.median]
    lam_pair = (float(lam0), float(np.linalg.eigvalsh(H - f2 * np.outer(x, x))[0]))
    eps11 = float(pr.theorem11_epsilon(f2, xn, cal.sigma4, delta))
    pair = pr.ReportReleasePair(lambda_min=pr.ReleasedLambdaMin(lam_pair, cal.sigma4), relation="remove")
    spec = _spec("thm11-pdp", delta=delta, eps11=eps11)
    checks += gaussian_claim_checks(spec, pair, eps11, delta, cfg, executor, directions=ONE_DIRECTION)
    e2 = float(pr.theorem14_epsilon(abs(f1) * xn, cal.sigma2, delta))
    e3 = float(pr.theorem17_pdp_epsilon(f2, xn, cal.sigma3, delta))
    total = e2 + e3 + eps11
    joint = pr.individual_pair(abs(f1) * xn, f2 * xn**2, sigma2=s2, sigma3=s3, sigma4=cal.sigma4, lambda_min=lam_pair)
    spec = _spec("alg4-overhead", e2=e2, e3=e3, eps11=eps11, total=total)
    checks += gaussian_claim_checks(spec, joint, total, 3 * delta, cfg, executor, directions=ONE_DIRECTION)
    return checks


def claimed_epsilon_check(checks: list[Evidence], claimed: float) -> Evidence:
    """Whether the ε the user claims for the whole pipeline (``--claim-epsilon``, the budget's total) is one its
    stages' checks certify by composition: each stage's checks (:attr:`CheckSpec.stage`) hold at their own ε_i, so
    the pipeline is (Σε_i, Σδ_i)-DP (:func:`pdp_audit.reports.certified_claim.composed_claim`), and a claimed ε at
    least Σε_i follows.  Sound for that implication only: where Σε_i > ε the claim is not refuted (a finer analysis
    may give it), it is not decided -- the check is inconclusive, never failed.  Exact (no sampling): the claim is
    compared in rationals with the exact sum of the stages' doubles; ``math.fsum`` rounds that sum to nearest, which
    may lie below it (0.1 + 0.4 rounds to 0.5, an ulp's fraction under the exact sum), so it only reports."""
    stages = {e.spec.stage: float(e.details["epsilon"]) for e in checks if e.spec.stage is not None}
    exact = sum(map(Fraction, stages.values()), Fraction(0))
    total = sum_up(stages.values())
    spec = _spec("pipeline-epsilon", claimed=claimed, total=total)
    said = "; ".join(f"{stage}: ε = {epsilon:.6g}" for stage, epsilon in stages.items())
    if exact <= Fraction(claimed):
        return builders.exact_check(spec, True, total, f"The stages: {said}.")
    note = (
        f"The stages are certified at {said}: Σε_i = {total!r} exceeds the claimed ε = {claimed!r} (the budget's "
        "total; compared exactly, as rationals). Not refuted: the stages' theorems give no smaller ε; the pipeline "
        "is certified at Σε_i (headline)."
    )
    return Evidence(spec=spec, estimate=total, verdict="inconclusive", note=note)
