"""The use cases the entry points call: what one command of ``pdp-audit``, or one assertion of the pytest plugin,
does between parsing its input and rendering its result, as one function that returns the decided
:class:`~pdp_audit.reports.records.Run`.

Each checks every input and output before any work (an output may not be a file the command reads:
:func:`pdp_audit.verify.core.outputs.check_outputs`), runs the audit -- a user's code in a process of its own
(:mod:`pdp_audit.verify.core.sandbox`), which ends as Python ends -- and writes the PDF and JSON, both complete before
either replaces what was there.  ``pdp-audit certify`` is :func:`pdp_audit.certify_files.certify_files`; the plugin's
``assert_dp``, ``assert_dp_blackbox``, ``assert_program_dp`` and ``assert_coverage`` are the public API's audits
(:mod:`pdp_audit`).  The catalogues are imported when a use case runs, not with this module: ``pdp-audit program
--help`` builds no built-in audit's parser.
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from pdp_audit.verify.core.checks import without_figures
from pdp_audit.verify.core.config import COMMAND_LINE, WORKERS_OPTION, pair_value
from pdp_audit.verify.core.outputs import check_outputs
from pdp_audit.verify.core.plan import AuditPlan
from pdp_audit.verify.core.sandbox import run_isolated
from pdp_audit.verify.inputs.validation import shown

if TYPE_CHECKING:  # pragma: no cover
    from pdp_audit.reports.records import Run


def audit_plans() -> dict[str, AuditPlan]:
    """Every built-in audit's :class:`~pdp_audit.verify.core.plan.AuditPlan` by its ``run`` name, in the order
    ``pdp-audit list`` shows them: what ``pdp-audit run NAME`` generates its parser from."""
    from pdp_audit.catalogue.plans import plans_by_name

    return plans_by_name()


def kind_options(name: str) -> tuple:
    """The options the user-facing audit kind ``name`` declares (:data:`pdp_audit.catalogue.kinds.KINDS`): the
    fields of its config, what its command's flags are generated from."""
    from pdp_audit.catalogue.kinds import kinds_by_name

    return kinds_by_name()[name].options


def run_files(args: argparse.Namespace) -> tuple[Run, str | None]:
    """``pdp-audit run NAME``: the audit's config from the parsed command line (every value checked, errors naming
    the flags; ``--workers`` too), the outputs checked against the data file, the run decided over ``--workers``
    processes and its reports written (``--report``, default ``pdp-audit-NAME.pdf``, ``none`` for no PDF;
    ``--json``).  The decided run and the PDF's path (None: none)."""
    from pdp_audit.catalogue.arguments import configure_from_args, typed
    from pdp_audit.reports.publish import write_run_reports

    plan = audit_plans()[args.mechanism]
    config = configure_from_args(plan, args)
    typed(args, WORKERS_OPTION)
    report = args.report or f"pdp-audit-{args.mechanism}.pdf"
    pdf = None if report.lower() == "none" else report
    check_outputs({"--report": pdf, "--json": args.json}, {"the data file (--data)": getattr(config, "data", None)})
    with without_figures() if pdf is None else nullcontext():  # no PDF: nothing draws them
        run = plan.execute(config, workers=args.workers, progress=not args.quiet)
    write_run_reports(run, pdf, args.json)
    return run, pdf


def program_files(target: str, values: dict[str, Any], report: str | None, json: str | None) -> Run:
    """``pdp-audit program MODULE:FUNCTION``: the program kind's config from the flags' ``values`` (every one
    checked before the program runs, errors naming the flags), the outputs checked against ``--data``, the program
    audited in the sandbox's child (a hard exit in it cannot end the command with 0) and the reports written
    (``report``: the PDF, None for none; ``json``: ``"-"`` for standard output)."""
    from pdp_audit.catalogue.kinds import kinds_by_name
    from pdp_audit.reports.publish import write_run_reports

    config = kinds_by_name()["program"].plan.configure({**values, "program": target}, COMMAND_LINE)
    check_outputs({"--report": report, "--json": json}, {"--data": values.get("data")})
    run = run_isolated(audited_program, config, target=f"target: the code of {shown(target)}")
    write_run_reports(run, report, json)
    return run


def audited_program(config: Any) -> Run:
    """The program kind's audit of ``config`` (its Run), in the sandbox's child; the current folder importable."""
    from pdp_audit.catalogue.kinds import kinds_by_name

    sys.path.insert(0, os.getcwd())
    return kinds_by_name()["program"].plan.execute(config, True)


def run_cell(audit: str, seed: int, alpha: float, options: dict[str, Any], checks: Any, where: str) -> tuple:
    """The cell of ``pdp-audit sweep`` with ``mechanism = audit``, root seed ``seed`` and ``options`` (keywords,
    errors naming ``where``), run at ``alpha`` with the check ids ``checks`` selected (None: all): ``(cell, alpha,
    result)`` with ``alpha`` as checked, what the pytest plugin's ``privacy_audit.run`` asserts on."""
    from pdp_audit.sweeps.catalogue import SWEEPS
    from pdp_audit.sweeps.spec import cell_from_options

    mechanisms = {m.name: m for m in SWEEPS}
    if audit not in mechanisms:
        raise ValueError(f"audit must be one of {', '.join(sorted(mechanisms))}, got {audit!r}")
    alpha = pair_value("alpha", alpha)
    mechanism = mechanisms[audit]
    cell = cell_from_options(mechanism, seed, options, where)
    selected = tuple(checks) if checks else None
    unknown = [c for c in selected or () if not mechanism.has_check(c)]
    if unknown:
        raise ValueError(f"checks: {audit!r} has no check {unknown[0]!r} (valid: {mechanism.valid_checks()})")
    return cell, alpha, mechanism.cell(dict(cell.parameters), cell.seed, alpha, selected)
