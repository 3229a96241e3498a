"""The certificate of a joint release: each ``[[release]]`` table as its audit's config, their worst-case pairs'
product (:mod:`pdp_audit.audits.joint.pair`) decided by exactly the checks of ``pdp_audit.audit_pair``
(:func:`pdp_audit.verify.evidence.pair_checks.validated_dp_checks`) at the deployment's claim and budget.

The releases a joint release can hold are the audits whose plan gives its worst-case pair
(:class:`pdp_audit.verify.core.plan.WorstCase`); the deployment passes their plans in, with the budget of its
[claim] and [audit] (an audit reaches neither the catalogue nor another audit).
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import replace
from typing import Any

from pdp_audit.audits.joint.pages import profiles_page
from pdp_audit.audits.joint.pair import product_pair
from pdp_audit.reports.json_report import code_version
from pdp_audit.reports.records import Run
from pdp_audit.verify.core.checks import finalize, make_run
from pdp_audit.verify.core.config import BUILT_IN_SCOPE, Names, values_of
from pdp_audit.verify.core.data_fingerprint import data_fingerprint
from pdp_audit.verify.core.plan import AuditPlan, WorstCase, named_keys
from pdp_audit.verify.evidence import pair_sequential as sequential
from pdp_audit.verify.evidence.pair_checks import MainPass, validated_dp_checks
from pdp_audit.verify.inputs.datasets import pinned_bytes
from pdp_audit.verify.inputs.validation import InputError, not_a_regular_file, quoted, shown


def joinable(plans: dict[str, AuditPlan]) -> dict[str, tuple[AuditPlan, WorstCase]]:
    """The plans of ``plans`` that can be one release of a joint release, each with its worst-case pair."""
    return {name: (plan, plan.worst_case) for name, plan in plans.items() if plan.worst_case is not None}


def release_names(deployment: Any, i: int) -> Names:
    """How errors name release ``i``'s keys: ``deploy.toml: release[2].parameters.bins``."""
    return Names(
        lambda o: f"release[{i}].{o.in_table}" if o.table == "parameters" else o.in_table, f"{shown(deployment.path)}: "
    )


def release_configs(deployment: Any, plans: dict[str, AuditPlan]) -> list[Any]:
    """Each release's audit config (``plans``: the audits' plans by name), with the deployment's claim (one-line
    errors naming ``release[i]...``)."""
    where = shown(deployment.path)
    releasable = joinable(plans)
    configs = []
    for i, (name, parameters) in enumerate(deployment.releases, start=1):
        if name not in releasable:
            raise InputError(
                f"{where}: release[{i}].mechanism {name!r} cannot be part of a joint release; one of "
                f"{', '.join(sorted(releasable))}"
            )
        plan, noise = releasable[name][0], releasable[name][1].noise
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


def _data(deployment: Any, i: int, value: Any) -> Any:
    """A release's ``data``, relative to the deployment file (it must be a regular file)."""
    if not isinstance(value, str):
        return value
    path = deployment.folder / value
    why = not_a_regular_file(path, "CSV file")
    if why is not None:
        raise InputError(f"{shown(deployment.path)}: release[{i}].parameters.data: {str(path)!r} {why}")
    return str(path)


def certify_joint(deployment: Any, budget: Any, plans: dict[str, AuditPlan]) -> Run:
    """The joint release's certificate: the product pair decided by ``audit_pair``'s checks at the deployment's
    claim and ``budget`` (its [claim] and [audit]: :func:`pdp_audit.audits.pair.deployed.own_budget`), each
    release's profile beside the joint one.  ``plans``: the audits' plans by name.  The certificate's
    ``deployment_file`` is the deployment's to add."""
    configs = release_configs(deployment, plans)
    releasable = joinable(plans)
    names = [name for name, _ in deployment.releases]
    with ExitStack() as stack:  # every data file read once: the bytes fingerprinted are the bytes audited
        for path in sorted({c.data for c in configs if getattr(c, "data", None) is not None}):
            stack.enter_context(pinned_bytes(path))
        fingerprints, pairs = [], []
        for i, (name, config) in enumerate(zip(names, configs), start=1):
            with named_keys(plans[name], release_names(deployment, i)):
                fingerprints.append(data_fingerprint(config))
                pairs.append(releasable[name][1].pair(config))
    joint = product_pair(pairs)
    stop = sequential.Stopping.of(budget.alpha, budget.early_stop, budget.time_limit)  # [audit] early_stop, time_limit
    claim = (budget.epsilon, budget.delta, budget.trials, budget.seed)
    # the releases are the papers' mechanisms, drawn by their reference samplers: the mathematical mechanisms are
    # certified (a team's shipped code goes through the pair or black-box route)
    evidence = validated_dp_checks(joint, *claim, False, drawing=MainPass(stop=stop, law="ideal"))
    checks = finalize(evidence, budget.alpha)
    parameters = {
        "pair": "the product of the releases' worst-case pairs (each the one its own audit decides)",
        "claim": "DP (joint release)",
        "epsilon": budget.epsilon,
        "delta": budget.delta,
        "trials": budget.trials,
        **sequential.stated(budget.early_stop, budget.time_limit),
        "releases": " + ".join(names),
        "scope": BUILT_IN_SCOPE,
    }
    certified = _certified(deployment, configs, fingerprints, budget, plans)
    parameters["data"] = certified["data"] if certified["data_source"] != "releases" else "each release's own"
    page = profiles_page(pairs, joint, names, budget)
    run = make_run(deployment.mechanism, checks, budget.alpha, parameters, budget.seed, pages=[page])
    return replace(run, certified=certified)


def _certified(deployment: Any, configs: list[Any], fingerprints: list[tuple], budget, plans) -> dict[str, Any]:
    releases, flat = [], {}
    for i, ((name, written), config, (source, data, digest, shape)) in enumerate(
        zip(deployment.releases, configs, fingerprints), start=1
    ):
        known = plans[name].options()
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
        "audit": {
            "trials": budget.trials,
            "seed": budget.seed,
            "alpha": budget.alpha,
            **sequential.stated(budget.early_stop, budget.time_limit),
        },
        "data_source": first["data_source"] if same else "releases",
        "data": first["data"] if same else None,
        "data_sha256": first["data_sha256"] if same else None,
        "data_shape": first["data_shape"] if same else None,
        "code_version": code_version(),
    }
