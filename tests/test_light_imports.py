"""``import pdp_audit``, ``pdp-audit --version`` and ``pdp-audit --help`` stay light: the public names are imported on
first use (PEP 562), and the top-level parser needs only the commands' names and help.  Each check runs in a fresh
interpreter, since this process has long imported everything."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import pdp_audit
from pdp_audit.cli.commands import COMMAND_HELP
from pdp_audit.cli.main import build_parser

HEAVY = ("scipy", "scipy.stats", "scipy.optimize", "statsmodels", "pandas", "sklearn", "matplotlib", "mpmath")


def loaded_after(code: str, watched: tuple[str, ...] = HEAVY) -> list[str]:
    """The modules of ``watched`` a fresh interpreter has loaded after running ``code``."""
    probe = f"import sys\n{code}\nimport json\nprint(json.dumps([m for m in {watched!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_pdp_audit_loads_no_heavy_module():
    assert loaded_after("import pdp_audit") == []


@pytest.mark.parametrize("argument", ["--version", "--help"])
def test_version_and_help_load_not_even_numpy(argument):
    """They answer from the commands' names and help and the package's metadata (a sixth of a second less)."""
    code = (
        "import contextlib, io\nfrom pdp_audit.cli.main import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n    try:\n        main([{argument!r}])\n"
        "    except SystemExit:\n        pass"
    )
    assert loaded_after(code, (*HEAVY, "numpy")) == []


def test_the_probe_sees_a_heavy_import():
    assert "scipy.optimize" in loaded_after("import pdp_audit\npdp_audit.gaussian_sigma(1.0, 1e-5)")


def test_every_public_name_resolves_and_nothing_else_does():
    for name in pdp_audit.__all__:
        assert getattr(pdp_audit, name) is not None, name
    assert set(pdp_audit.__all__) <= set(dir(pdp_audit))
    with pytest.raises(AttributeError, match="no attribute 'audit_everything'"):
        pdp_audit.audit_everything  # noqa: B018


def test_the_light_parser_shows_what_the_full_one_shows():
    """The commands' help is declared once (``src/pdp_audit/cli/commands.py``): ``--help`` reads the same either way."""
    assert build_parser(light=True).format_help() == build_parser().format_help()


#: What a subcommand's ``--help`` must not load: its parser needs the audits' configs, never their mathematics.
SOLVERS = ("scipy", "mpmath", "statsmodels", "pandas", "sklearn", "matplotlib")


def test_run_help_loads_no_solver():
    """``run NAME --help`` builds every audit's parser from its config: the configs import no scipy or mpmath (the
    GOE config took ``mechanisms.goe`` and its scipy and mpmath at module level: a second of import for the help)."""
    code = (
        "import contextlib, io\nfrom pdp_audit.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    try:\n        main(['run', 'gaussian', '--help'])\n"
        "    except SystemExit:\n        pass"
    )
    assert loaded_after(code, SOLVERS) == []


def test_other_commands_help_loads_no_solver():
    """Every other subcommand's parser is built alone (``build_parser(only=NAME)``), so its help imports no plan."""
    names = [name for name in COMMAND_HELP if name not in ("list", "run")]
    code = (
        "from pdp_audit.cli.main import build_parser\n"
        f"for name in {names!r}:\n    build_parser(only=name).commands[name].format_help()"
    )
    assert loaded_after(code, SOLVERS) == []


def test_a_command_built_alone_reads_as_in_the_full_parser():
    full = build_parser()
    for name in COMMAND_HELP:
        alone = build_parser(only=name)
        assert alone.format_help() == full.format_help()
        assert alone.commands[name].format_help() == full.commands[name].format_help(), name


#: What building a command's parser must not load: process pools, the packages' metadata (email, zipfile), hashlib
#: (OpenSSL), tempfile, logging (concurrent.futures), the report records, the mechanisms' solvers, the user-facing
#: audits -- none is needed to parse or print help.
PARSER_ONLY = (
    "multiprocessing",
    "concurrent.futures",
    "importlib.metadata",
    "hashlib",
    "tempfile",
    "logging",
    "pdp_audit.reports.records",
    "pdp_audit.mechanisms.objpert.mechanism",
    "pdp_audit.audits.blackbox.audit",
)


@pytest.mark.parametrize("words", [["run"], ["run", "privacy-report"], ["certify"]])
def test_a_commands_help_loads_what_its_parser_needs_only(words):
    code = (
        "import contextlib, io\nfrom pdp_audit.cli.main import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n    try:\n        main({[*words, '--help']!r})\n"
        "    except SystemExit:\n        pass"
    )
    assert loaded_after(code, PARSER_ONLY) == []


def test_run_built_alone_helps_and_parses_as_the_full_parser():
    """``build_parser(only="run")`` adds each audit's options when its parser is first used (argparse uses the one
    the command line names): its help and what it parses are the full parser's."""
    full, alone = build_parser(), build_parser(only="run")
    audits = full.commands["run"].commands
    assert list(alone.commands["run"].commands) == list(audits)
    for name in audits:
        argv = ["run", name, "--seed", "3", "--report", "none"]
        assert vars(build_parser(only="run").parse_args(argv)) == vars(full.parse_args(argv)), name
        assert alone.commands["run"].commands[name].format_help() == audits[name].format_help(), name


def noisy_sum(data, rng):
    """A program as a user writes one: numpy's Laplace noise on a clipped sum."""
    return float(np.clip(data, 0.0, 1.0).sum()) + rng.laplace(0.0, 1.0)


def _replayed_with_what_it_loaded(root, payload):
    """In the sandbox's child: the fresh process's replay (:func:`~pdp_audit.audits.program.fresh_process.replay_here`)
    and the solvers loaded by the time it is done."""
    from pdp_audit.audits.program import fresh_process

    return fresh_process.replay_here(root, payload)[0], [m for m in SOLVERS if m in sys.modules]


def test_the_fresh_process_replays_without_the_solvers():
    """Every certificate of a program starts a fresh Python that replays D's record (:mod:`.fresh_process`): it
    imports the replay's modules alone.  scipy.special (the tails' prediction, never used by a replay) took 0.38 of
    that process's 0.72 CPU seconds."""
    from pdp_audit.audits.program import fresh_process, trace
    from pdp_audit.verify.core.sandbox import run_isolated

    data = np.linspace(0.0, 1.0, 20)
    payload = fresh_process._packed(noisy_sum, data, trace.record(noisy_sum, data).calls)
    assert not isinstance(payload, str), payload
    outcome = run_isolated(_replayed_with_what_it_loaded, None, payload, target="the replay")
    assert outcome == ("release", [])
