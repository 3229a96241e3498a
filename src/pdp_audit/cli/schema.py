"""``pdp-audit schema``: print the published JSON Schema of the run and certificate JSON.

    pdp-audit schema > run.schema.json

The schema (JSON Schema draft 2020-12) is shipped inside the package as ``reports/schema/run.schema.json``;
every document ``pdp-audit run ... --json`` and ``pdp-audit certify ... --json`` writes validates against it.
"""

from __future__ import annotations

import argparse

from pdp_audit.cli.commands import COMMAND_HELP


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``pdp-audit schema`` to the subcommands."""
    p = subparsers.add_parser(
        "schema",
        help=COMMAND_HELP["schema"],
        description="Print the JSON Schema (draft 2020-12) that every `run --json` and `certify --json` document "
        "follows.",
    )
    p.set_defaults(handler=command_schema)
    return p


def command_schema(args: argparse.Namespace) -> int:
    """Write the schema, as shipped, to stdout."""
    # deferred: loads tempfile; schema --help must not
    from pdp_audit.reports.files import write_stdout
    from pdp_audit.reports.json_report import run_schema_text

    write_stdout(run_schema_text())
    return 0
