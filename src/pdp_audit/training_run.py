"""One report for a DP-SGD training run: the certified upper bound of its configuration beside the lower bound its
canaries prove (``pdp-audit canaries … --dp-sgd deploy.toml``).

The upper side is the DP-SGD audit of the deployment file (``mechanism = "dp-sgd"``, certified as ``pdp-audit
certify`` does: :func:`pdp_audit.deployment.certify_deployment`): its verdict on the accountant's claim (ε, δ),
the (ε, δ̄) its evidence certifies (:mod:`pdp_audit.reports.certified_claim`) and the exact ε at δ of the
configuration, bracketed by the FFT composition with certified discretisation error
(:mod:`pdp_audit.mechanisms.pld_composition`).  The lower side is the canary run's check (the one-run or two-column
ε bound at confidence 1 − α) and, for one run, the f-DP finding (a Gaussian-shaped run's ε).  Both are at the same δ
(the deployment's claim δ; :func:`dp_sgd_deployment` refuses another).  The gap is upper ÷ lower: how far the
canaries are from showing what the configuration allows; a lower bound above the upper one means the canaries and
the configuration do not describe the same run (or an accountant, a sampler or the training code is wrong).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from pdp_audit.audits.canaries.fdp_one_run import claim_pvalue
from pdp_audit.audits.dp_sgd.evidence import reference
from pdp_audit.deployment import Deployment, deployment_config, load_deployment
from pdp_audit.mechanisms import subsampled_gaussian as sg
from pdp_audit.mechanisms.tradeoff import ProfileTradeoff
from pdp_audit.reports.certified_claim import certified_claim
from pdp_audit.reports.records import Page, Run
from pdp_audit.reports.verdict_words import claim_word
from pdp_audit.verify.inputs.validation import InputError, not_a_regular_file, shown

TITLE = "The training run: certified upper bound and the canaries' lower bound"
#: Points of the ε grid of the configuration's profile, from 0 to CURVE_SPAN × the exact ε (at least CURVE_FLOOR).
CURVE_POINTS, CURVE_SPAN, CURVE_FLOOR = 400, 4.0, 8.0


def dp_sgd_deployment(path: str, delta: float) -> Deployment:
    """The DP-SGD deployment file at ``path``, every value checked (one line naming the file and the key), and its
    claim's δ equal to the canaries' ``delta``: before any computation."""
    why = not_a_regular_file(path, "DP-SGD deployment file")
    if why is not None:  # named by the option it came from (a FIFO would block the read)
        raise InputError(f"--dp-sgd: {shown(path)} {why}")
    deployment = load_deployment(path)
    if deployment.mechanism != "dp-sgd":
        raise InputError(f'--dp-sgd: {shown(path)} deploys {deployment.mechanism!r}; expected mechanism = "dp-sgd"')
    deployment_config(deployment)  # every key and value, as certify checks them
    claimed = deployment.claim.get("delta")
    if claimed != delta:
        raise InputError(
            f"--delta {delta:g} differs from {shown(path)}'s claim.delta {claimed:g}: both bounds must be at one δ"
        )
    return deployment


def claimed_epsilon(deployment: Deployment) -> float | None:
    """The deployment's claimed ε (None where an accountant supplies it: it is known after the audit only)."""
    value = deployment.claim.get("epsilon")
    return None if value is None else float(value)


def upper_side(dp_run: Run) -> dict[str, Any]:
    """What the DP-SGD certification shows: the claim, its verdict, the (ε, δ̄) certified, the exact ε bracket."""
    p = dp_run.parameters
    certified = certified_claim(dp_run.checks)
    return {
        "epsilon": p["epsilon"],
        "delta": p["delta"],
        "claim_source": p.get("claim_source"),
        "verdict": dp_run.verdict,
        "certified": None if certified is None else certified.to_dict(),
        "exact_epsilon_low": p.get("exact_epsilon_low"),
        "exact_epsilon_high": p.get("exact_epsilon_high"),
        "noise_multiplier": p["noise_multiplier"],
        "sample_rate": p["sample_rate"],
        "steps": p["steps"],
        "neighbours": p["neighbours"],
        "alpha": dp_run.alpha,
    }


def lower_side(canary_run: Run) -> dict[str, Any]:
    """What the canaries show: the check's ε lower bound and, where present, the f-DP finding's."""
    (check,) = canary_run.checks
    found = {"check": check.id, "epsilon": check.ci[0] if check.ci else 0.0, "level": check.level}
    for finding in canary_run.findings or ():
        if finding.id == "one-run-fdp-epsilon":
            found["fdp_epsilon"] = finding.ci[0] if finding.ci else 0.0
            found["fdp_mu"] = finding.details.get("mu_lower_bound")
    return found


def gap(upper: float | None, lower: float) -> dict[str, Any]:
    """upper − lower and upper ÷ lower (None where undefined), and whether the two are consistent (lower ≤ upper)."""
    if upper is None or not math.isfinite(upper):
        return {"difference": None, "ratio": None, "consistent": True}
    return {
        "difference": upper - lower,
        "ratio": upper / lower if lower > 0 else None,
        "consistent": lower <= upper,
    }


def curve_top(parameters: Mapping[str, Any]) -> float:
    """The ε grid's right end: CURVE_SPAN × the first finite, positive one of the exact ε's upper end, its lower end
    and the claim (the upper end is +∞ where the grid cannot show any ε holds δ: a δ below its round-off), at least
    CURVE_FLOOR.  Any finite end is sound: the curve is the profile's supremum over the grid's ε (fewer ε, a weaker
    hypothesis)."""
    ends = (parameters.get("exact_epsilon_high"), parameters.get("exact_epsilon_low"), parameters["epsilon"])
    finite = next((float(e) for e in ends if e and math.isfinite(e)), 0.0)  # 0 (or None): no scale, the next end
    return max(CURVE_FLOOR, CURVE_SPAN * finite)


def curve_test(canary_run: Run, dp_run: Run) -> dict[str, Any] | None:
    """The p-value of "the run is f-DP for the configuration's trade-off curve" from the one-run guesses of
    ``canary_run`` (None for a two-column run): δ(ε) is the upper end of the FFT reference's certified bracket, the
    larger of both directions, on a grid of ε (a supremum over fewer curves: a weaker hypothesis, module notes)."""
    (check,) = canary_run.checks
    if check.id != "one-run-epsilon":
        return None
    p, details = dp_run.parameters, check.details
    pair = sg.SubsampledGaussian(p["noise_multiplier"], p["sample_rate"], p["neighbours"])
    ref = reference(pair, p["steps"], p["epsilon"])
    epsilons = np.linspace(0.0, curve_top(p), CURVE_POINTS)
    deltas = [max(ref.delta_bounds(d, float(e))[1] for d in sg.DIRECTIONS) for e in epsilons]
    curve = ProfileTradeoff(epsilons, deltas)
    sets = [(sum(pair_), c) for pair_, c in zip(details["guesses"], details["correct"])]
    pvalue = claim_pvalue(details["m"], sets, 0.0, curve.inverse_blowup)
    return {"pvalue": pvalue, "rejected": pvalue <= canary_run.alpha, "alpha": canary_run.alpha}


def training_run_report(canary_run: Run, dp_run: Run) -> Run:
    """The canary run with the page of both bounds first among its pages and ``parameters["dp_sgd"]`` (the upper
    side, the lower side and the gap).  The verdict and exit code stay the canaries' (the page states the
    certification's)."""
    upper, lower = upper_side(dp_run), lower_side(canary_run)
    best_lower = max(lower["epsilon"], lower.get("fdp_epsilon", 0.0))
    reference = upper["exact_epsilon_high"]
    stated_gap, curve = gap(reference, lower["epsilon"]), curve_test(canary_run, dp_run)
    summary = {"upper": upper, "lower": lower, "gap": stated_gap, "curve": curve}
    page = Page(TITLE, page_text(upper, lower, stated_gap, best_lower), rows=page_rows(upper, lower, curve))
    parameters = {**canary_run.parameters, "dp_sgd": summary}
    return dataclasses.replace(canary_run, pages=(page, *canary_run.pages), parameters=parameters)


def _verdict_words(upper: dict[str, Any]) -> str:
    said = claim_word(upper["verdict"])
    certified = upper["certified"]
    if certified is not None and not certified["covers_claim"]:
        said += f"; the evidence supports ({certified['epsilon']:g}, {certified['delta']:.2g})-DP"
    return said


def page_rows(upper: dict[str, Any], lower: dict[str, Any], curve: dict[str, Any] | None = None) -> tuple[str, ...]:
    """The page's table: one row a bound, the upper ones first, then the test of the configuration's curve."""
    low, high = upper["exact_epsilon_low"], upper["exact_epsilon_high"]
    rows = [
        f"Upper  accountant's claim ({upper['epsilon']:g}, {upper['delta']:g}): {_verdict_words(upper)} "
        f"(DP-SGD audit at family-wise α = {upper['alpha']:g})",
    ]
    if high is not None:
        rows.append(f"Upper  exact ε at δ = {upper['delta']:g} of the configuration: in [{low:.4g}, {high:.4g}]")
    rows.append(f"Lower  canaries, {lower['check']}: ε ≥ {lower['epsilon']:.4g} at confidence {lower['level']:.6g}")
    if "fdp_epsilon" in lower:
        rows.append(
            f"Lower  canaries, f-DP finding (Gaussian-shaped run): ε ≥ {lower['fdp_epsilon']:.4g} "
            f"(μ ≥ {lower['fdp_mu']:.4g})"
        )
    if curve is not None:
        outcome = "REJECTED: INCONSISTENT with this run" if curve["rejected"] else "not rejected"
        rows.append(
            f"Both   the configuration's trade-off curve, tested by the canaries' guesses: {outcome} "
            f"(p = {curve['pvalue']:.3g}, α = {curve['alpha']:g})"
        )
    return tuple(rows)


def page_text(upper: dict[str, Any], lower: dict[str, Any], gap_: dict[str, Any], best_lower: float) -> str:
    """The page's paragraph: the configuration, the gap stated, and what the two bounds are."""
    config = (
        f"DP-SGD with noise multiplier σ = {upper['noise_multiplier']:g}, Poisson sample rate q = "
        f"{upper['sample_rate']:g}, T = {upper['steps']:,} steps, {upper['neighbours']} neighbours."
    )
    if gap_["difference"] is None:
        stated = "The configuration's exact ε was not bracketed: no gap is stated."
    elif not gap_["consistent"]:
        stated = (
            f"INCONSISTENT: the canaries prove ε ≥ {lower['epsilon']:.4g}, above the configuration's exact ε ≤ "
            f"{upper['exact_epsilon_high']:.4g}: the canaries and the configuration do not describe one run, or the "
            "training code, its sampler or noise is not what the configuration says."
        )
    else:
        ratio = "" if gap_["ratio"] is None else f", a factor {gap_['ratio']:.3g}"
        stated = (
            f"Gap: the exact ε is at most {upper['exact_epsilon_high']:.4g} and the canaries show at least "
            f"{lower['epsilon']:.4g} ({gap_['difference']:.4g} apart{ratio}); the f-DP finding, for a Gaussian-shaped "
            f"run, shows {best_lower:.4g}."
            if "fdp_epsilon" in lower
            else f"Gap: the exact ε is at most {upper['exact_epsilon_high']:.4g} and the canaries show at least "
            f"{lower['epsilon']:.4g} ({gap_['difference']:.4g} apart{ratio})."
        )
    return (
        f"{config} {stated} The upper bound is the configuration's: it holds for every dataset if the training code "
        "does what the configuration says. The lower bound is this run's canaries': it holds whatever the code does, "
        "and is loose unless the canaries are many and their score strong. A small gap says the accounting is "
        "tight for this attack; a large one says the canaries cannot tell, not that the run leaks less."
    )
