"""Sweep cells of every audit: a cell is that audit's run with the cell's options.

One declaration serves ``run``, ``certify``, ``sweep``, the pytest plugin, the API and the ledger: a spec's
``[fixed]``, ``[grid]`` and ``[[cells]]`` keys are the audit's option keys (``claim_epsilon``, ``trials``,
``synthetic = "200,5"``, ``noise_multiplier``, ``repetitions``, ``mode``, ``d``, ``lambda``, …; a flag is a boolean,
``no_figures = true``), read from its config (:meth:`pdp_audit.verify.core.plan.AuditPlan.options`).  Every cell is
built into the audit's config when the spec is read, so a bad value is a one-line error naming the cell before any
cell runs.  Not sweepable, because the sweep sets them: ``seed`` (each cell's seed comes from its identity),
``alpha`` (the sweep's family-wise α split over its cells) and ``paper_claims``, which is on exactly when
``[sweep] checks`` selects a paper statement.

A cell runs the audit in the worker (its sampled chunks spread over the sweep's workers when the cell is large:
the audits draw every block from a seed keyed by identity, so the numbers do not depend on where blocks run).
Its verdict comes from the selected guarantees (from the selected findings only when no guarantee is
selected).  The audit decides all its checks as one family at the cell's α (Holm); reporting a subset of them
is therefore conservative, never anti-conservative.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from pdp_audit.catalogue.kinds import kinds_by_name
from pdp_audit.reports.json_report import check_to_dict, clean
from pdp_audit.sweeps.schema import Schema, SpecError, SweepMechanism
from pdp_audit.verify.core.checks import without_figures, worst
from pdp_audit.verify.core.config import in_spec
from pdp_audit.verify.core.plan import AuditPlan
from pdp_audit.verify.core.sandbox import run_isolated
from pdp_audit.verify.evidence.user_code import check_factory
from pdp_audit.verify.inputs.validation import InputError, shown

#: Options a sweep sets itself (see the module docstring).
SET_BY_THE_SWEEP = frozenset({"seed", "alpha", "paper_claims"})


def schema_for(plan: AuditPlan) -> Schema:
    """The sweepable options of ``plan`` by key, in the order ``pdp-audit run NAME --help`` lists them."""
    return {key: o for key, o in plan.options().items() if key not in SET_BY_THE_SWEEP}


def _plan(name: str) -> AuditPlan:
    # deferred: read at call time (tests replace plans.plans_by_name)
    from pdp_audit.catalogue.plans import plans_by_name

    return plans_by_name()[name]


def given(plan: AuditPlan, parameters: dict) -> dict[str, Any]:
    """The options of a cell's canonical parameters that differ from their defaults (what the config is built
    from: a default given explicitly would count as a choice, e.g. two data sources)."""
    known = plan.options()
    return {k: v for k, v in parameters.items() if k in known and v != known[k].default}


def configure(plan: AuditPlan, parameters: dict, seed: int = 0, alpha: float = 1e-6, paper: bool = False):
    """The audit's config for a cell, exactly as every other way in builds it."""
    return plan.configure({**given(plan, parameters), "seed": seed, "alpha": alpha, **plan.paper_option(paper)})


def normalize(name: str, parameters: dict, keys: set, where: str) -> dict:
    """Check a cell by building the audit's config from the keys the spec set (SpecError naming ``where``)."""
    plan = _plan(name)
    try:
        given = {k: v for k, v in parameters.items() if k in keys}  # in the spec's order: messages are reproducible
        plan.configure(given | plan.paper_option(True), in_spec(where))
    except InputError as err:
        raise SpecError(str(err)) from None
    return parameters


def cost(name: str, parameters: dict) -> float:
    """Estimated run time: the audit's relative cost × the ratio of each budget to its default."""
    plan = _plan(name)
    total = plan.cost
    for key, o in plan.options().items():
        value = parameters.get(key)
        if o.table == "audit" and isinstance(o.default, (int, float)) and isinstance(value, (int, float)) and o.default:
            total *= value / o.default
    return total


def paper_checks(name: str) -> set[str]:
    """The ids of the paper statements (findings) declared by the family of audit ``name``."""
    return _plan(name).paper_checks()


def cell(name: str, parameters: dict, seed: int, alpha: float, checks=None, executor=None) -> dict:
    """One cell: the audit ``name`` run with the cell's options, seed and α; its checks as in the JSON report."""
    plan = _plan(name)
    paper = checks is not None and any(c in plan.paper_checks() for c in checks)
    with without_figures():  # a cell keeps its checks' JSON only: no figure, no point only a figure shows
        run = plan.run(configure(plan, parameters, seed, alpha, paper), executor=executor)
    return _result(name, run, checks, plan.checks)


def _result(name: str, run: Any, checks: Any, declared: Any) -> dict:
    """A cell's verdict and checks (those of ``checks``, all where None), as in the JSON report; an id the run did
    not produce and the audit does not declare is refused."""
    guarantees = [c for c in run.checks if checks is None or c.id in checks]
    findings = [c for c in (run.findings or ()) if checks is not None and c.id in checks]
    produced = [c.id for c in (*run.checks, *(run.findings or ()))]
    unknown = [c for c in checks or () if c not in produced and c not in declared]
    if unknown or not (guarantees or findings):  # a typo must not silently shrink the sweep's checks
        raise SpecError(
            f"sweep.checks: `run {name}` has no check {(unknown or list(checks))[0]!r} here; it produced: "
            + ", ".join(produced)
        )
    return clean(
        {
            "verdict": worst(c.verdict for c in (guarantees or findings)),
            "checks": [check_to_dict(c) for c in (*guarantees, *findings)],
            "parameters": dict(run.parameters),
        }
    )


def _preload(plan: AuditPlan) -> tuple[str, ...]:
    """The modules a sweep's workers should start with: the family's evidence module (its heavy imports), and
    scikit-learn's loaders where a cell may load a shipped data set (imported on a cell's first load otherwise)."""
    evidence = plan.audit.__module__.rpartition(".")[0] + ".evidence"
    return (evidence, "sklearn.datasets") if "dataset" in plan.options() else (evidence,)


def sweep_mechanism(plan: AuditPlan) -> SweepMechanism:
    """The :class:`SweepMechanism` of ``pdp-audit run <plan.name>``."""
    return SweepMechanism(
        plan.name,
        functools.partial(cell, plan.name),
        schema_for(plan),
        normalize=functools.partial(normalize, plan.name),
        cost=functools.partial(cost, plan.name),
        checks=plan.check_ids(),  # a cell refuses an id its run did not produce (stage-{slug} of another release)
        description=f"pdp-audit run {plan.name}: {plan.help}",
        preload=_preload(plan),
        chunked=plan.chunked,
        check_data=plan.data_check,
    )


# --------------------------------------------------------------------------------------------------
# The user-facing kinds a sweep reaches: a cell names the user's code by an option (``factory`` of ``pair``)
# --------------------------------------------------------------------------------------------------
#: Options of a kind a sweep does not take: where its blocks run is the sweep's (its workers, one cell each), and a
#: time limit would make a cell's numbers depend on the machine's speed.
NOT_SWEPT = SET_BY_THE_SWEEP | {"workers", "scheduler", "dask_local", "time_limit"}


def _kind(name: str) -> Any:
    return kinds_by_name()[name].plan


def kind_schema(plan: Any) -> Schema:
    """The sweepable options of the user-facing kind ``plan`` (:class:`~pdp_audit.verify.core.plan.KindPlan`)."""
    return {key: o for key, o in plan.options().items() if key not in NOT_SWEPT}


def kind_normalize(name: str, required: tuple, parameters: dict, keys: set, where: str) -> dict:
    """Check a cell of the kind ``name`` by building its config from the keys the spec set; ``required``: the
    options a cell must give (the one naming the user's code first)."""
    plan = _kind(name)
    for key in required:
        if key not in keys:
            raise SpecError(f"{where}: {key} is required ({plan.options()[key].help})")
    try:
        plan.configure({k: v for k, v in parameters.items() if k in keys}, in_spec(where))
        # the user's code found now, before the store is made (a missing one left a store of no cell); not run
        check_factory(f"{where}: {required[0]}", Path.cwd(), parameters[required[0]])
    except InputError as err:
        raise SpecError(str(err)) from None
    return parameters


def kind_cell(name: str, target: str, parameters: dict, seed: int, alpha: float, checks=None, executor=None) -> dict:
    """One cell of the kind ``name``: its config built from the cell's options (as the API's function builds it),
    run through its plan.  The user's code the option ``target`` names (``MODULE:FACTORY``) is imported and run
    behind the sandbox, as every other way into it (:func:`pdp_audit.verify.core.sandbox.run_isolated`): in a Python
    process of its own that ends as plain Python ends (a log the factory keeps open is flushed, its ``atexit``
    handlers run), whatever it raises or however it ends its process being one line naming it, the user's fault."""
    where = f"{target}: the code of {shown(parameters[target])}"
    return run_isolated(_kind_cell_here, name, parameters, seed, alpha, checks, target=where)


def _kind_cell_here(name: str, parameters: dict, seed: int, alpha: float, checks) -> dict:
    """The body of :func:`kind_cell`, in the sandbox's child."""
    plan = _kind(name)
    known = plan.options()
    given = {k: v for k, v in parameters.items() if k in known and v != known[k].default}
    with without_figures():  # as in cell()
        run = plan.execute(plan.configure({**given, "seed": seed, "alpha": alpha}))
    return _result(name, run, checks, ())


def kind_sweep_mechanism(
    plan: Any, target: str, required: tuple = (), read_data: Any = None, names: str = "MODULE:FACTORY"
) -> SweepMechanism:
    """The :class:`SweepMechanism` of the user-facing kind ``plan``, whose cells name the user's code by the option
    ``target`` (``names`` says how) and must give the options ``required`` too (a black box's ``trials``: its default
    budget is fitted to the machine's speed, and a sweep's cells are reproducible; a program's ``data``);
    ``read_data``: how its cells read their ``data`` file (a program's records), tried when the spec is read."""
    return SweepMechanism(
        plan.name,
        functools.partial(kind_cell, plan.name, target),
        kind_schema(plan),
        normalize=functools.partial(kind_normalize, plan.name, (target, *required)),
        description=f"{plan.help}: {target} = {names}" + "".join(f", {key} required" for key in required),
        read_data=read_data,
    )
