"""Every ``--help`` of ``pdp-audit`` says what its command does: a description under the usage line, for the
top-level command, every subcommand, every ``run NAME`` and every nested subcommand (``list --help`` and ``run dp-sgd
--help`` printed only the usage and the options)."""

from __future__ import annotations

from pdp_audit.cli.main import build_parser


def _parsers(parser, path=("pdp-audit",)):
    yield " ".join(path), parser
    for name, sub in parser.commands.items():
        yield from _parsers(sub, (*path, name))


def test_every_help_has_a_description():
    parsers = dict(_parsers(build_parser()))
    assert {"pdp-audit list", "pdp-audit run", "pdp-audit run dp-sgd", "pdp-audit benchmark linreg"} <= set(parsers)
    missing = [path for path, parser in parsers.items() if not (parser.description or "").strip()]
    assert missing == []
    for path, parser in parsers.items():
        text = parser.format_help()
        assert parser.description.split()[0] in text, path  # printed, not only set
        assert ".." not in parser.description, path
