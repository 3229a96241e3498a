"""Several releases of one deployment, certified as one joint release: ``[[release]]`` tables.

    [[release]]                        # a Gaussian sum ...
    mechanism = "gaussian"
    [release.parameters]               # the options of `pdp-audit run gaussian` (the noise shipped is required)
    sigma = 3.8
    data = "deploy-data.csv"
    [[release]]                        # ... and a Laplace count of the same data
    mechanism = "laplace"
    [release.parameters]
    query = "count"
    scale = 2.0
    data = "deploy-data.csv"
    [claim]                            # one claim about everything released together
    epsilon = 2.0
    delta = 1e-5
    [audit]                            # trials, seed, alpha (as for a user's mechanism)
    trials = 1e5

Each release is an audit's config (every option, default and rule of ``pdp-audit run NAME``; errors name
``release[i].parameters.key``), and states the noise it ships (``sigma``, ``scale``): a release is never calibrated
to the joint claim.  Each release gives its **worst-case neighbouring pair** (:data:`WORST_CASE_PAIRS`: the pair
its own audit decides, the ``worst_case_pair`` of its evidence module: for a sum, one row added on the clip sphere
with all its mass on one coordinate; for a mean, that row counted too; for a histogram, one row in one bin) and the
joint release is their **product pair** (:class:`ProductPair`): the releases concatenated, each with its own
independent noise, and the privacy loss the sum of the releases' losses (composition).  It is decided by exactly
the checks of ``pdp_audit.audit_pair`` (:func:`pdp_audit.verify.evidence.pair_checks.validated_dp_checks`).

**Why the product of worst-case pairs is the right neighbour.**  A neighbouring dataset differs in one row z, and
every release sees that same z; with independent noise the joint pair at z is the product of the releases' pairs at
z.  For each release here the pair at any z is a post-processing (a Markov kernel applied to the release) of its
worst-case pair: for the Gaussian mechanism the pair at z is a Gaussian shift of norm ‖Δ_z‖₂ ≤ C, a post-processing
of the shift C·e₁ (rotate, then add independent noise along the shift to shrink its norm: Dong, Roth & Su 2022,
Gaussian DP, Prop. 2.8 / Blackwell), and for the Laplace mechanism the audit's own worst case
(:mod:`pdp_audit.audits.laplace.evidence`: all of ‖Δ_z‖₁ = C on one coordinate).  Applying the releases'
kernels coordinate-wise maps the product of the worst-case pairs onto the product at z, so by the data-processing
inequality of the hockey-stick divergence δ_z(ε) ≤ δ_worst(ε) for every z and ε: the product pair is a sound
neighbour.  It is also attained when one row is worst for every release (the same data and clip direction, or
counts), which is the usual deployment; where no single row is worst for all, the certificate is conservative.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from pdp_audit.mechanisms.validation import InputError, not_a_regular_file, quoted, shown
from pdp_audit.reports.json_report import code_version
from pdp_audit.reports.records import Line, Lines, Page, Run
from pdp_audit.verify.catalogue.plans import plans_by_name
from pdp_audit.verify.core.checks import finalize, make_run
from pdp_audit.verify.core.config import Names, values_of
from pdp_audit.verify.deployment import (
    Deployment,
    certify_deployment,
    data_fingerprint,
    deployment_name,
    named_keys,
)
from pdp_audit.verify.own_mechanism import own_budget

#: Draws per world of each profile drawn on the certificate's page (a figure, not evidence).
PROFILE_DRAWS = 100_000


def _gaussian_pair(config: Any) -> Any:
    from pdp_audit.audits.gaussian.evidence import setup, worst_case_pair

    return worst_case_pair(setup(config))[1]


def _laplace_pair(config: Any) -> Any:
    from pdp_audit.audits.laplace.evidence import setup, worst_case_pair

    return worst_case_pair(setup(config))


@dataclass(frozen=True)
class WorstCase:
    """How a built-in release gives its worst-case pair, and the option that holds the noise it ships."""

    pair: Callable[[Any], Any]
    noise: str


#: The built-in audits a joint release can hold.
WORST_CASE_PAIRS = {"gaussian": WorstCase(_gaussian_pair, "sigma"), "laplace": WorstCase(_laplace_pair, "scale")}


class ProductPair:
    """The releases of several pairs at once, each with its own noise: releases concatenated, privacy loss the sum
    of the releases' losses (the densities of independent releases multiply).  Drawn from the one ``rng`` given,
    release after release.  With a Gaussian noise view on every release it has one too (the views side by side)."""

    def __init__(self, pairs: list[Any]):
        self.pairs = pairs
        self.dims = [int(p.output_dim) for p in pairs]
        self.edges = np.cumsum([0] + self.dims)
        self.output_dim = int(self.edges[-1])

    def _parts(self, outputs: np.ndarray) -> list[np.ndarray]:
        return [outputs[:, a:b] for a, b in zip(self.edges[:-1], self.edges[1:])]

    def sample(self, world: str, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.concatenate([p.sample(world, size, rng) for p in self.pairs], axis=1)

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        outputs = np.atleast_2d(outputs)
        return np.sum([p.privacy_loss(part) for p, part in zip(self.pairs, self._parts(outputs))], axis=0)


class GaussianProductPair(ProductPair):
    """A :class:`ProductPair` of pairs that all have the noise-level view: the view is theirs side by side."""

    def __init__(self, pairs: list[Any]):
        super().__init__(pairs)
        self.noise_dim = self.output_dim
        self.noise_sigma = np.concatenate([np.broadcast_to(p.noise_sigma, (d,)) for p, d in zip(pairs, self.dims)])

    def release_from_noise(self, world: str, noise: np.ndarray) -> np.ndarray:
        noise = np.atleast_2d(noise)
        return np.concatenate([p.release_from_noise(world, n) for p, n in zip(self.pairs, self._parts(noise))], axis=1)


class LaplaceProductPair(ProductPair):
    """A :class:`ProductPair` of pairs that all declare a Laplace noise view: the view is theirs side by side (the
    replay draws the parts' noise one after the other, as :meth:`ProductPair.sample` does)."""

    noise_law = "laplace"

    def __init__(self, pairs: list[Any]):
        super().__init__(pairs)
        self.noise_dim = self.output_dim
        self.noise_scale = np.concatenate([np.broadcast_to(p.noise_scale, (d,)) for p, d in zip(pairs, self.dims)])

    def release_from_noise(self, world: str, noise: np.ndarray) -> np.ndarray:
        noise = np.atleast_2d(noise)
        return np.concatenate([p.release_from_noise(world, n) for p, n in zip(self.pairs, self._parts(noise))], axis=1)


def product_pair(pairs: list[Any]) -> ProductPair:
    """The joint release of ``pairs``, with the Gaussian or Laplace noise view where every release has one."""
    from pdp_audit.verify.estimators.rare import has_noise_view

    if all(has_noise_view(p) for p in pairs):
        return GaussianProductPair(pairs)
    if all(getattr(p, "noise_law", None) == "laplace" for p in pairs):
        return LaplaceProductPair(pairs)
    return ProductPair(pairs)


# --- the releases' configs ---------------------------------------------------------------------------------------


def release_names(deployment: Deployment, i: int) -> Names:
    """How errors name release ``i``'s keys: ``deploy.toml: release[2].parameters.bins``."""
    return Names(
        lambda o: f"release[{i}].{o.in_table}" if o.table == "parameters" else o.in_table, f"{shown(deployment.path)}: "
    )


def release_configs(deployment: Deployment) -> list[Any]:
    """Each release's audit config, with the deployment's claim (one-line errors naming ``release[i]...``)."""
    where = shown(deployment.path)
    configs = []
    for i, (name, parameters) in enumerate(deployment.releases, start=1):
        if name not in WORST_CASE_PAIRS:
            raise InputError(
                f"{where}: release[{i}].mechanism {name!r} cannot be part of a joint release; one of "
                f"{', '.join(sorted(WORST_CASE_PAIRS))}"
            )
        plan, noise = plans_by_name()[name], WORST_CASE_PAIRS[name].noise
        known = {o.table_key or o.key: o for o in plan.options().values() if o.table == "parameters"}
        for key in parameters:
            if key not in known:
                listed = ", ".join(sorted(known))
                raise InputError(
                    f"{where}: unknown key {quoted(f'release[{i}].parameters.{key}')}; {name} has {listed}"
                )
        if noise not in parameters:
            raise InputError(
                f"{where}: release[{i}].parameters.{noise} is required: a joint release states the noise each release "
                "ships (it is never calibrated to the joint claim)"
            )
        values = {known[k].key: _data(deployment, i, v) if k == "data" else v for k, v in parameters.items()}
        claim = {o.key: deployment.claim[o.table_key] for o in plan.options().values() if o.table == "claim"}
        configs.append(plan.configure({**values, **claim}, release_names(deployment, i)))
    return configs


def _data(deployment: Deployment, i: int, value: Any) -> Any:
    """A release's ``data``, relative to the deployment file (it must be a regular file)."""
    if not isinstance(value, str):
        return value
    path = deployment.folder / value
    why = not_a_regular_file(path, "CSV file")
    if why is not None:
        raise InputError(f"{shown(deployment.path)}: release[{i}].parameters.data: {str(path)!r} {why}")
    return str(path)


# --- certifying ------------------------------------------------------------------------------------------------


def certify(deployment: Deployment, workers: int | None = None, progress: bool = False) -> Run:
    """Certify a deployment: one mechanism (:func:`pdp_audit.verify.deployment.certify_deployment`) or several
    releases as one joint release (:func:`certify_joint`)."""
    if deployment.releases:
        return certify_joint(deployment)
    return certify_deployment(deployment, workers=workers, progress=progress)


def certify_joint(deployment: Deployment) -> Run:
    """The joint release's certificate: the product pair decided by ``audit_pair``'s checks at the deployment's
    claim and budget, each release's profile beside the joint one."""
    from pdp_audit.mechanisms.datasets import pinned_bytes
    from pdp_audit.verify.evidence.pair_checks import validated_dp_checks

    budget = own_budget(deployment)
    configs = release_configs(deployment)
    names = [name for name, _ in deployment.releases]
    with ExitStack() as stack:  # every data file read once: the bytes fingerprinted are the bytes audited
        for path in sorted({c.data for c in configs if getattr(c, "data", None) is not None}):
            stack.enter_context(pinned_bytes(path))
        fingerprints, pairs = [], []
        for i, (name, config) in enumerate(zip(names, configs), start=1):
            with named_keys(plans_by_name()[name], release_names(deployment, i)):
                fingerprints.append(data_fingerprint(config))
                pairs.append(WORST_CASE_PAIRS[name].pair(config))
    joint = product_pair(pairs)
    evidence = validated_dp_checks(joint, budget.epsilon, budget.delta, budget.trials, budget.seed, False)
    checks = finalize(evidence, budget.alpha)
    parameters = {
        "pair": "the product of the releases' worst-case pairs (each the one its own audit decides)",
        "claim": "DP (joint release)",
        "epsilon": budget.epsilon,
        "delta": budget.delta,
        "trials": budget.trials,
        "releases": " + ".join(names),
    }
    certified = _certified(deployment, configs, fingerprints, budget)
    parameters["data"] = certified["data"] if certified["data_source"] != "releases" else "each release's own"
    page = profiles_page(pairs, joint, names, budget)
    run = make_run(deployment.mechanism, checks, budget.alpha, parameters, budget.seed, pages=[page])
    return replace(run, certified=certified)


def _certified(deployment: Deployment, configs: list[Any], fingerprints: list[tuple], budget) -> dict[str, Any]:
    releases, flat = [], {}
    for i, ((name, written), config, (source, data, digest, shape)) in enumerate(
        zip(deployment.releases, configs, fingerprints), start=1
    ):
        known = plans_by_name()[name].options()
        values = values_of(config, known)
        resolved = {o.table_key or o.key: values[k] for k, o in known.items() if o.table == "parameters"}
        if "data" in written:
            resolved["data"] = written["data"]  # as written: relative to the deployment file
        data = written.get("data") if source == "file" else data
        releases.append(
            {
                "mechanism": name,
                "data_source": source,
                "data": data,
                "data_sha256": digest,
                "data_shape": shape,
            }
        )
        flat.update({f"release[{i}].{k}": v for k, v in resolved.items()})
    same = all(r["data_sha256"] == releases[0]["data_sha256"] and r["data"] == releases[0]["data"] for r in releases)
    first = releases[0]
    return {
        "mechanism": deployment.mechanism,
        "evidence": "white-box",
        "releases": releases,
        "claim": dict(deployment.claim),
        "parameters": flat,
        "audit": {"trials": budget.trials, "seed": budget.seed, "alpha": budget.alpha},
        "data_source": first["data_source"] if same else "releases",
        "data": first["data"] if same else None,
        "data_sha256": first["data_sha256"] if same else None,
        "data_shape": first["data_shape"] if same else None,
        "code_version": code_version(),
        "deployment_file": {"path": deployment_name(deployment), "sha256": deployment.sha256},
    }


def hockey_stick_profile(pair: Any, grid: np.ndarray, draws: int, seed: int, stream: str) -> np.ndarray:
    """max of δ_{D‖D'}(ε) = E_D[(1 − e^{ε−L})₊] and δ_{D'‖D}(ε) = E_D'[(1 − e^{ε+L})₊] on ``grid`` (Monte Carlo;
    Balle et al. 2018, Theorem 5), from ``draws`` losses per world."""
    from pdp_audit.verify.estimators.engine import sample_privacy_loss
    from pdp_audit.verify.estimators.tails import hockey_integrand

    loss_d = sample_privacy_loss(pair, "D", draws, seed, stream)
    loss_dp = sample_privacy_loss(pair, "D'", draws, seed, stream)
    forward = [np.mean(hockey_integrand(loss_d, e)) for e in grid]
    reverse = [np.mean(hockey_integrand(-loss_dp, e)) for e in grid]
    return np.maximum(forward, reverse)


def profiles_page(pairs: list[Any], joint: Any, names: list[str], budget) -> Page:
    """Each release's privacy profile δ(ε) beside the joint release's, against the claim."""
    grid = np.linspace(0.0, 2.0 * max(budget.epsilon, 0.5), 41)
    draws = min(budget.trials, PROFILE_DRAWS)
    curves = [(f"release {i}: {n}", p) for i, (n, p) in enumerate(zip(names, pairs), start=1)]
    lines = []
    for label, pair in curves + [("joint release (the certified one)", joint)]:
        delta = hockey_stick_profile(pair, grid, draws, budget.seed, f"joint-profile/{label}")
        lines.append(Line(label, np.where(delta > 0, delta, np.nan), marker="", style="-"))
    lines.append(Line(f"claim ({budget.epsilon:g}, {budget.delta:g})", [budget.delta], x=[budget.epsilon], style=""))
    return Page(
        "Each release's privacy profile beside the joint release's",
        f"δ(ε) of each release's worst-case pair and of their product, the joint release that is certified (its "
        f"privacy loss is the sum of the releases' losses: composition). Monte Carlo estimates from {draws:,} draws "
        "per world of each pair (a figure, not evidence: the verdict rests on the guarantees' checks). The joint "
        "release's profile lies above each release's: releasing them together costs more privacy than either alone.",
        Lines(lines, x=grid, xlabel="ε", ylabel="δ(ε) (worse direction)", logy=True),
    )
