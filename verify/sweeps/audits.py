"""Sweep cells of every ``pdp-audit run`` audit: a cell is that audit's run with the cell's options.

One vocabulary serves ``run``, ``certify`` and ``sweep``: a spec's ``[fixed]``, ``[grid]`` and ``[[cells]]`` keys
are the audit's ``run`` options with dashes as underscores (``claim_epsilon``, ``trials``, ``synthetic``,
``noise_multiplier``, ``repetitions``, ``mode``, ``d``, ``lambda``, …; a flag such as ``--normalize-rows`` is a
boolean ``normalize_rows = true``).  The schema is read from the audit's own argument parser, and every cell is
parsed and validated by the same code as the command line (:func:`pdp_audit.verify.plans.arguments.parse_run`, then the
plan's ``configure``) when the spec is read, so a bad value is a one-line error naming the cell before any cell
runs.  Not sweepable, because the sweep sets them: ``seed`` (each cell's seed comes from its identity),
``alpha`` (the sweep's family-wise α split over its cells), ``workers``, ``report``, ``json``, ``quiet``; and
``paper_claims``, which is on exactly when ``[sweep] checks`` selects a paper statement.

A cell runs the audit in the worker (its sampled chunks spread over the sweep's workers when the cell is large:
the audits draw every block from a seed keyed by identity, so the numbers do not depend on where blocks run).
Its verdict comes from the selected guarantees (from the selected findings only when no guarantee is
selected).  The audit decides all its checks as one family at the cell's α (Holm); reporting a subset of them
is therefore conservative, never anti-conservative.
"""

from __future__ import annotations

import argparse
import functools

from pdp_audit.mechanisms.validation import InputError
from pdp_audit.verify.plans.plan import AuditPlan
from pdp_audit.verify.sweeps.schema import Param, Schema, SpecError, SweepMechanism

#: Options a sweep sets itself (see the module docstring).
SET_BY_THE_SWEEP = frozenset({"seed", "alpha", "workers", "report", "json", "quiet", "paper_claims", "help"})

#: Budget options: a cell's cost is the product of their ratios to the audit's defaults.
BUDGETS = ("trials", "repetitions", "matrices", "search", "search_trials")

#: Relative run time of each audit at its defaults (benchmarks/certify_defaults.md); 1 for the others.
RELATIVE_COST = {"objpert": 6.0, "privacy-report": 6.0, "adaops": 3.0, "goe-release": 2.5, "adassp": 2.0, "ssp": 2.0}


def key_of(action: argparse.Action) -> str:
    """The spec key of a ``run`` option: its long name without dashes, inner dashes as underscores."""
    long = max(action.option_strings, key=len)
    return long.lstrip("-").replace("-", "_")


def _is_flag(action: argparse.Action) -> bool:
    return action.nargs == 0 and action.const is not None  # store_true / store_false / store_const


def _parser(plan: AuditPlan) -> argparse.ArgumentParser:
    from pdp_audit.verify.plans.arguments import Parser, add_run_arguments

    return add_run_arguments(Parser(prog=f"pdp-audit run {plan.name}", add_help=False), plan)


def options(plan: AuditPlan) -> dict[str, argparse.Action]:
    """The sweepable options of ``plan`` by spec key, in the order ``pdp-audit run NAME --help`` lists them."""
    return {key_of(a): a for a in _parser(plan)._actions if a.option_strings and key_of(a) not in SET_BY_THE_SWEEP}


def _returns(parse) -> str | None:
    """What an option's ``type`` function returns (``"float"``, ``"int"``, …), from its annotation."""
    if parse in (float, int, str):
        return parse.__name__
    returned = getattr(parse, "__annotations__", {}).get("return")
    return returned if isinstance(returned, str) or returned is None else returned.__name__


def schema_for(plan: AuditPlan) -> Schema:
    """A cell schema from the audit's parser: types and defaults as ``run`` has them; ranges are checked by
    ``run``'s own validation when the spec is read (see :func:`normalize`)."""
    schema: Schema = {}
    for key, action in options(plan).items():
        if _is_flag(action):  # true: the flag is given (``no_figures = true`` is ``--no-figures``)
            schema[key] = Param("bool", False, action.help or "")
        elif action.choices:
            schema[key] = Param("str", action.default, action.help or "", choices=tuple(action.choices))
        elif _returns(action.type) == "float":
            schema[key] = Param("float", action.default, action.help or "")
        elif _returns(action.type) == "int":
            schema[key] = Param("int", action.default, action.help or "", low=0)
        else:
            schema[key] = Param("str", action.default, action.help or "")
    return schema


def _text(value) -> str:
    return repr(float(value)) if isinstance(value, float) else str(value)


def argv(plan: AuditPlan, parameters: dict, seed: int = 0, alpha: float = 1e-6, paper: bool = False) -> list[str]:
    """The ``run`` command line of a cell (without ``pdp-audit``): every option that differs from its default."""
    out = ["run", plan.name]
    for key, action in options(plan).items():
        flag = max(action.option_strings, key=len)
        value = parameters.get(key)
        if _is_flag(action):
            out += [flag] if value is True else []
        elif value is not None and value != action.default:
            out.append(f"{flag}={_text(value)}")  # '=': a value may start with '-'
    out += ["--seed", str(seed), "--alpha", repr(float(alpha)), "--report", "none", "--quiet"]
    return out + (["--paper-claims"] if paper else [])


def configure(plan: AuditPlan, parameters: dict, seed: int = 0, alpha: float = 1e-6, paper: bool = False):
    """The audit's validated configuration for a cell, exactly as ``pdp-audit run`` would build it."""
    from pdp_audit.verify.plans.arguments import parse_run

    return plan.configure(parse_run(argv(plan, parameters, seed, alpha, paper)))


def normalize(name: str, parameters: dict, given: set, where: str) -> dict:
    """Validate a cell by the command line's own code (SpecError naming ``where``), with ``--paper-claims`` on:
    a sweep turns it on when its checks select a paper statement, and options such as ``figure_n`` need it."""
    from pdp_audit.verify.plans.catalogue import plans_by_name

    try:
        configure(plans_by_name()[name], parameters, paper=True)
    except InputError as err:
        raise SpecError(f"{where}: {str(err).removeprefix(f'pdp-audit run {name}: ')}") from None
    return parameters


def cost(name: str, defaults: dict, parameters: dict) -> float:
    """Estimated run time: the audit's relative cost × the ratio of each budget option to its default."""
    total = RELATIVE_COST.get(name, 1.0)
    for key in BUDGETS:
        if isinstance(defaults.get(key), (int, float)) and isinstance(parameters.get(key), (int, float)):
            total *= parameters[key] / defaults[key]
    return total


def cell(name: str, parameters: dict, seed: int, alpha: float, checks=None, executor=None) -> dict:
    """One cell: the audit ``name`` run with the cell's options, seed and α; its checks as in the JSON report."""
    from pdp_audit.reports.json_report import check_to_dict, clean
    from pdp_audit.verify.checks import worst
    from pdp_audit.verify.plans.catalogue import plans_by_name

    plan = plans_by_name()[name]
    paper = checks is not None and any(c in paper_checks(name) for c in checks)
    run = plan.audit(configure(plan, parameters, seed, alpha, paper), executor=executor, progress=False)
    guarantees = [c for c in run.checks if checks is None or c.id in checks]
    findings = [c for c in (run.findings or ()) if checks is not None and c.id in checks]
    produced = [c.id for c in (*run.checks, *(run.findings or ()))]
    unknown = [c for c in checks or () if c not in produced and c not in family_checks(name)]
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


def family_checks(name: str) -> dict:
    """The checks declared by the family of audit ``name`` (a superset of what one audit produces)."""
    from pdp_audit.verify.plans.gaussian.checks import CHECKS as GAUSSIAN
    from pdp_audit.verify.plans.goe.checks import CHECKS as GOE
    from pdp_audit.verify.plans.linreg.checks import CHECKS as LINREG
    from pdp_audit.verify.plans.objpert.checks import CHECKS as OBJPERT
    from pdp_audit.verify.plans.privacy_report.checks import CHECKS as PRIVACY_REPORT

    families = {"gaussian": GAUSSIAN, "goe-release": GOE, "objpert": OBJPERT, "privacy-report": PRIVACY_REPORT}
    return families.get(name, LINREG)


def paper_checks(name: str) -> set[str]:
    """The ids of the paper statements (findings) declared by the family of audit ``name``."""
    return {cid for cid, spec in family_checks(name).items() if spec.role == "paper"}


def sweep_mechanism(plan: AuditPlan) -> SweepMechanism:
    """The :class:`SweepMechanism` of ``pdp-audit run <plan.name>``."""
    schema = schema_for(plan)
    defaults = {k: p.default for k, p in schema.items()}
    return SweepMechanism(
        plan.name,
        functools.partial(cell, plan.name),
        schema,
        normalize=functools.partial(normalize, plan.name),
        cost=functools.partial(cost, plan.name, defaults),
        checks=(),  # ids are validated by the cells: some are built per audit (thm5-variance-dp-forward)
        description=f"pdp-audit run {plan.name}: {plan.help}",
        chunked=True,
    )
