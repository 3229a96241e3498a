"""The command line of ``pdp-audit run NAME``, generated from the audit's config: its options, and the ones that
say where and how a run goes (workers, outputs) -- which are not part of the audit.

The parser only collects text: every value is parsed and checked by :func:`pdp_audit.verify.core.config.build`, the same
function that builds the config from a deployment file, a sweep cell or keywords, so the command line accepts and
refuses exactly what they do, with the same words.
"""

from __future__ import annotations

import argparse
from typing import Any, TypeVar

from pdp_audit.verify.core.config import COMMAND_LINE, KEYWORDS, WORKERS_OPTION, Option, canonical, exact_text, parse
from pdp_audit.verify.core.parser import Parser  # noqa: F401 (the parsers of run NAME are these)
from pdp_audit.verify.core.plan import AuditPlan


def _metavar(option: Option) -> str | None:
    if option.metavar:
        return option.metavar
    if option.choices:
        return "{" + ",".join(option.choices) + "}"
    return option.key.upper()


def add_option(parser: Any, option: Option, required: bool = False) -> None:
    """``option`` on ``parser`` (or an argument group): a flag for a bool, else one value kept as text (parsed by
    :func:`pdp_audit.verify.core.config.parse`, as every other way in parses it); nothing when not given."""
    if option.kind == "bool" and option.default is True and option.cli_flag == "--no-" + option.key.replace("_", "-"):
        # a true default turned off by --no-KEY (--no-early-stop): --KEY stays accepted, the default said aloud (the
        # flag of the versions whose default was off: their scripts keep working)
        parser.add_argument(
            "--" + option.key.replace("_", "-"),
            dest=option.key,
            action=argparse.BooleanOptionalAction,
            default=argparse.SUPPRESS,
            help=option.help,
        )
        return
    if option.kind == "bool":
        parser.add_argument(
            option.cli_flag,
            dest=option.key,
            action="store_const",
            const=not option.default,
            default=argparse.SUPPRESS,
            help=option.help,
        )
        return
    parser.add_argument(
        option.cli_flag,
        dest=option.key,
        default=argparse.SUPPRESS,
        metavar=_metavar(option),
        help=option.help,
        required=required,
    )


def typed(args: argparse.Namespace, *declared: Option) -> argparse.Namespace:
    """``args`` with each of ``declared`` parsed and range checked (its default when not given), one line naming
    the flag otherwise: a command's own options get the words and ranges of the audits' options."""
    for option in declared:
        text = getattr(args, option.key, None)
        setattr(args, option.key, option.default if text is None else parse(option, text, COMMAND_LINE))
    return args


ParserT = TypeVar("ParserT", bound=argparse.ArgumentParser)


def add_run_arguments(parser: ParserT, plan: AuditPlan) -> ParserT:
    """``parser`` as ``pdp-audit run NAME``'s: the audit's options (from its config), then where the run goes."""
    for option in plan.options().values():
        if option.cli:
            add_option(parser, option)
    add_option(parser, WORKERS_OPTION)
    parser.add_argument(
        "--report", default=None, help="PDF report path (default: pdp-audit-<mechanism>.pdf; 'none' to skip)"
    )
    parser.add_argument("--json", default=None, help="JSON results path, or - for stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress or summary on stderr/stdout")
    return parser


def command_line(plan: AuditPlan, values: dict[str, Any]) -> list[str]:
    """``values`` of ``plan``'s options as ``pdp-audit run NAME`` spells them (a true flag alone, a false one left
    out; numbers in their shortest form): what reports and the ledger show, never parsed back by us."""
    known = plan.options()
    argv: list[str] = []
    for key, value in values.items():
        option = known[key]
        if option.kind == "bool":
            argv += [option.cli_flag] if value else []
        elif value is not None:
            value = canonical(option, parse(option, value, KEYWORDS))
            argv += [option.cli_flag, value if isinstance(value, str) else exact_text(value)]
    return argv


def run_parser(name: str) -> Parser:
    """The whole parser of ``pdp-audit run NAME`` (its prog names the command, as in the CLI's messages)."""
    # deferred: read at call time (tests replace plans.plans_by_name)
    from pdp_audit.catalogue.plans import plans_by_name

    return add_run_arguments(Parser(prog=f"pdp-audit run {name}"), plans_by_name()[name])


def given_options(plan: AuditPlan, args: argparse.Namespace) -> dict[str, Any]:
    """The audit options the command line gave, as text (what :func:`configure_from_args` builds from)."""
    return {key: value for key, value in vars(args).items() if key in plan.options()}


def configure_from_args(plan: AuditPlan, args: argparse.Namespace) -> Any:
    """The audit's config from a parsed ``run`` command line (one-line errors naming the flags)."""
    return plan.configure(given_options(plan, args), COMMAND_LINE)
