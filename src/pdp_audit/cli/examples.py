"""``pdp-audit examples DIR``: write the shipped examples into a folder, to start from.

    pdp-audit examples my-audit && cd my-audit
    pdp-audit certify deploy-gaussian.toml            # a deployment file and its data
    pdp-audit sweep sweep-small.toml                  # a sweep spec
    python -m pytest -m audit test_my_mechanism.py    # the pytest plugin on a user's own pair

The examples are package data (``pdp_audit.examples``): deployment files, their data, sweep specs (among them the
specs the claims ledger runs), example test files and a release workflow.  Nothing is ever written over: a file
that already exists in ``DIR`` is one line, exit 2, and nothing is copied.
"""

from __future__ import annotations

import argparse
from importlib import resources
from pathlib import Path

from pdp_audit.cli.commands import COMMAND_HELP
from pdp_audit.verify.inputs.validation import InputError

PACKAGE = "pdp_audit.examples"


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``pdp-audit examples`` to the subcommands."""
    p = subparsers.add_parser(
        "examples",
        help=COMMAND_HELP["examples"],
        description="Copy the shipped examples into DIR (created if needed). Existing files are never replaced.",
    )
    p.add_argument("folder", metavar="DIR", nargs="?", default="pdp-audit-examples", help="(default: %(default)s)")
    p.add_argument("--quiet", action="store_true", help="no summary on stdout (the files written)")
    p.set_defaults(handler=command_examples)
    return p


def shipped_examples() -> dict[str, bytes]:
    """Every shipped example file by name (the package's ``__init__`` and caches excluded)."""
    root = resources.files(PACKAGE)
    return {
        entry.name: entry.read_bytes()
        for entry in sorted(root.iterdir(), key=lambda e: e.name)
        if entry.is_file() and entry.name != "__init__.py" and not entry.name.endswith(".pyc")
    }


def command_examples(args: argparse.Namespace) -> int:
    """Write every example into ``args.folder``; InputError (exit 2) before writing anything if one exists."""
    # deferred: loads pdp_audit.reports.files; examples --help must not
    from pdp_audit.reports.files import print_out

    folder = Path(args.folder)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"examples: {args.folder!r} exists and is not a folder")
    files = shipped_examples()
    existing = [name for name in files if (folder / name).exists() or (folder / name).is_symlink()]
    if existing:
        raise InputError(
            f"examples: {str(folder / existing[0])!r} already exists; nothing was written (choose an empty folder)"
        )
    made = [parent for parent in (folder, *folder.parents) if not parent.exists()]  # the folders this call makes
    written: list[Path] = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            with open(folder / name, "xb") as out:  # "x": never replace a file created meanwhile
                written.append(folder / name)
                out.write(data)
    except OSError as err:  # a full disk: every example or none (a half-written set would refuse the next attempt)
        for path in written:
            path.unlink(missing_ok=True)
        for parent in made:
            try:
                parent.rmdir()
            except OSError:
                break
        raise InputError(
            f"examples: cannot write into {args.folder!r}: {err.strerror or err}; nothing was left there"
        ) from None
    if not args.quiet:
        print_out(f"pdp-audit examples: {len(files)} files written to {folder}/: {', '.join(files)}")
    return 0
