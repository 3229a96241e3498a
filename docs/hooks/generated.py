"""MkDocs hook: the pages that are generated at build time, never typed by hand.

A page holds a marker ``<!-- generated: NAME -->`` and this hook replaces it with the Markdown of ``NAME``:

* ``cli``: every parser of ``pdp-audit`` (``pdp_audit.cli.main.build_parser``), walked recursively through
  its subcommands: usage, description and one table row per option with its help text as the parser prints it
  (``%(default)s`` expanded), so the reference cannot disagree with ``--help``;
* ``deployment-keys``: for every built-in audit, the keys of its deployment file and their tables, read from the
  audit's declared options (``AuditPlan.options()``, the declaration the command line is generated from);
* ``program-keys``: the keys of a DP program's deployment file, from the program kind's declared options;
* ``json-schema``: the top-level properties of the published JSON Schemas (``reports/schema/*.json``);
* ``changelog``: CHANGELOG.md, its links into ``docs/`` made relative;
* ``blackbox-peers``, ``blackbox-peers-cli``: the tables ``benchmarks/blackbox_peers.py --markdown
  benchmarks/blackbox_peers.md`` (and ``--cli --markdown benchmarks/blackbox_peers_cli.md``) wrote;
* ``dp-recorder-peers``: the table ``benchmarks/dp_recorder_peers.py --markdown benchmarks/dp_recorder_peers.md``
  wrote;
* ``library-versions``: the table ``benchmarks/library_versions.py --markdown benchmarks/library_versions.jsonl
  benchmarks/library_versions.md`` wrote;
* ``certify-defaults``: the table ``benchmarks/certify_defaults.py --markdown benchmarks/certify_defaults.md``
  wrote (a benchmark run's output, committed with the code it measured).

``tests/test_docs.py`` imports this file and compares the generated CLI page with the parsers.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the parsers' class: its readers' attributes (arguments, commands, help_text)
    from pdp_audit.verify.core.parser import Parser

ROOT = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"<!-- generated: ([a-z-]+) -->")
# mkdocstrings reads the API's sources statically, and its finder knows only a package's own folder, while
# pdp_audit's subpackages are the repository's top-level folders (pyproject's package-dir).  The hook lays the
# installed layout out as links under build/docs-api (mkdocs.yml's `paths`) when MkDocs starts (on_startup).
API_TREE = ROOT / "build" / "docs-api" / "pdp_audit"
SUBPACKAGES = ("audits", "examples", "mechanisms", "reports", "verify")


def lay_out_api_tree() -> None:
    """build/docs-api/pdp_audit: links to src/pdp_audit's files and to the subpackages' folders."""
    API_TREE.mkdir(parents=True, exist_ok=True)
    targets = {p.name: p for p in (ROOT / "src" / "pdp_audit").iterdir() if p.name != "__pycache__"}
    targets.update({name: ROOT / name for name in SUBPACKAGES})
    for name, target in targets.items():
        link = API_TREE / name
        if not link.is_symlink() or link.resolve() != target.resolve():
            if link.is_symlink():
                link.unlink()
            link.symlink_to(target)


def on_startup(command, dirty):  # noqa: ARG001 - MkDocs' hook signature
    """Lay the API's sources out before any plugin's ``on_config`` (mkdocstrings keeps only paths that exist)."""
    lay_out_api_tree()


def walk_parsers(parser: Parser, prog: str = "pdp-audit"):
    """Yield ``(command, parser)`` for ``parser`` and every subcommand below it, depth first, in ``--help`` order."""
    yield prog, parser
    for name, sub in parser.commands.items():
        yield from walk_parsers(sub, f"{prog} {name}")


def cli_parsers() -> list[tuple[str, Parser]]:
    """Every parser of the ``pdp-audit`` command, the top-level one first."""
    from pdp_audit.cli.main import build_parser

    return list(walk_parsers(build_parser()))


def option_actions(parser: Parser) -> list[argparse.Action]:
    """The optional arguments of one parser (``-h`` included), in declaration order."""
    return [a for a in parser.arguments if a.option_strings]


def parser_options(parser: Parser) -> set[str]:
    """Every option string one parser accepts (``--trials``, ``-o``, ``--help``, …)."""
    return {s for a in option_actions(parser) for s in a.option_strings}


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _argument(action: argparse.Action) -> str:
    if action.nargs == 0:
        return ""
    if action.choices:
        return "{" + ",".join(str(c) for c in action.choices) + "}"
    metavar = action.metavar or action.dest.upper()
    return " ".join(metavar) if isinstance(metavar, tuple) else str(metavar)


def _help(parser: Parser, action: argparse.Action) -> str:
    return parser.help_text(action)


def cli_markdown() -> str:
    """The CLI reference: one section per command, from the parsers themselves."""
    out = []
    for command, parser in cli_parsers():
        depth = min(command.count(" ") + 2, 4)
        out.append(f"{'#' * depth} `{command}`\n")
        if parser.description:
            out.append(_cell(parser.description) + "\n")
        if parser.commands:
            out.append("| subcommand | what it does |\n|---|---|")
            out += [f"| `{name}` | {_cell(parser.command_help.get(name) or '')} |" for name in parser.commands]
            out.append("")
        out.append("```text\n" + parser.format_usage().strip() + "\n```\n")
        positionals = [a for a in parser.arguments if not a.option_strings]
        rows = [(a.metavar or a.dest, a) for a in positionals]
        rows += [(", ".join(a.option_strings), a) for a in option_actions(parser)]
        out.append("| argument | value | meaning |\n|---|---|---|")
        for name, action in rows:
            value = f"`{_argument(action)}`" if _argument(action) else ""
            out.append(f"| `{name}` | {value} | {_cell(_help(parser, action))} |")
        out.append("")
    return "\n".join(out)


def deployment_keys_markdown() -> str:
    """For every built-in audit, the keys a deployment file may set, by table, from the audit's declared options."""
    from pdp_audit.catalogue.plans import plans_by_name

    out = []
    for name, plan in plans_by_name().items():
        out.append(f'### `mechanism = "{name}"`\n')
        out.append("| table | key | kind | meaning |\n|---|---|---|---|")
        order = {"claim": 0, "parameters": 1, "audit": 2}
        for option in sorted(plan.options().values(), key=lambda o: order.get(o.table, 3)):
            key = option.table_key or option.key
            choices = f" (one of {', '.join(map(str, option.choices))})" if option.choices else ""
            out.append(f"| `[{option.table}]` | `{key}` | {option.kind}{choices} | {_cell(option.help)} |")
        out.append("")
    return "\n".join(out)


def program_keys_markdown() -> str:
    """The keys of a DP program's deployment file, by table, from the program kind's declared options (those of
    ``pdp-audit program``)."""
    from pdp_audit.catalogue.kinds import kinds_by_name

    out = ["| table | key | kind | meaning |", "|---|---|---|---|"]
    order = {"claim": 0, "parameters": 1, "audit": 2}
    declared = [o for o in kinds_by_name()["program"].plan.options().values() if o.table in order]
    for option in sorted(declared, key=lambda o: order[o.table]):
        choices = f" (one of {', '.join(map(str, option.choices))})" if option.choices else ""
        out.append(
            f"| `[{option.table}]` | `{option.table_key or option.key}` | {option.kind}{choices} | "
            f"{_cell(option.help)} |"
        )
    return "\n".join(out) + "\n"


def json_schema_markdown() -> str:
    """The top-level properties of every published JSON Schema, with their descriptions where the schema has one."""
    out = []
    for path in sorted((ROOT / "reports" / "schema").glob("*.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        out.append(f"### `{path.name}`\n")
        if schema.get("title") or schema.get("description"):
            out.append(_cell(schema.get("title", "") + ". " + schema.get("description", "")).strip(". ") + "\n")
        required = set(schema.get("required", ()))
        out.append("| property | type | required | description |\n|---|---|---|---|")
        for key, spec in schema.get("properties", {}).items():
            kind = spec.get("type", "") if isinstance(spec, dict) else ""
            kind = " or ".join(kind) if isinstance(kind, list) else kind
            described = spec.get("description", "") if isinstance(spec, dict) else ""
            out.append(f"| `{key}` | {kind} | {'yes' if key in required else ''} | {_cell(described)} |")
        out.append("")
    return "\n".join(out)


def benchmark_markdown(name: str):
    """A generator of the table ``benchmarks/NAME.md`` exactly as its benchmark wrote it."""
    return lambda: (ROOT / "benchmarks" / f"{name}.md").read_text(encoding="utf-8")


def changelog_markdown() -> str:
    """CHANGELOG.md as the site shows it: its links into ``docs/`` made relative to the site's root."""
    return (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").replace("](docs/", "](")


GENERATORS = {
    "changelog": changelog_markdown,
    "cli": cli_markdown,
    "deployment-keys": deployment_keys_markdown,
    "program-keys": program_keys_markdown,
    "json-schema": json_schema_markdown,
    "certify-defaults": benchmark_markdown("certify_defaults"),
    "blackbox-peers": benchmark_markdown("blackbox_peers"),
    "blackbox-peers-cli": benchmark_markdown("blackbox_peers_cli"),
    "dp-recorder-peers": benchmark_markdown("dp_recorder_peers"),
    "library-versions": benchmark_markdown("library_versions"),
}


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 - MkDocs' hook signature
    """Replace every ``<!-- generated: NAME -->`` marker with the Markdown its generator returns."""
    return MARKER.sub(lambda m: GENERATORS[m.group(1)](), markdown)
