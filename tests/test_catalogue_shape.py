"""Adding an audit touches its own folder plus one catalogue line.

A throw-away audit -- a copy of the randomized-response audit's folder, renamed ``coin-flip`` and placed outside
the package -- is registered by adding one line to the catalogue's table (:mod:`pdp_audit.catalogue.plans`) and
nothing else: ``pdp-audit list`` lists it, ``pdp-audit run coin-flip`` runs it, a sweep file and a deployment file
naming it are run and certified.  Each command runs in a fresh interpreter whose catalogue module is the installed
one's source with that line added, so the test holds for the catalogue as it is, not for a stand-in.

Read statically, the line is also needed and alone: every audit folder with a ``plan.py`` is named by one catalogue
(the table of :mod:`pdp_audit.catalogue.plans`, or :mod:`pdp_audit.catalogue.kinds` for a user-facing kind), and no
module outside its folder names a ``run`` audit's plan module but the table.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import pdp_audit.audits.randomized_response as template
import pdp_audit.catalogue.kinds as kinds
import pdp_audit.catalogue.plans as catalogue
import pdp_audit.examples as examples
from tests.test_layers import ROOT, imports_of, our_modules

#: The throw-away audit: its package (outside ``pdp_audit``), its ``run`` name, and the one line that registers it.
PACKAGE, NAME = "coin_flip", "coin-flip"
LINE = f'    "{PACKAGE}.plan",\n'

#: Runs one ``pdp-audit`` command line with the catalogue's source plus :data:`LINE`, loaded as the catalogue.
BOOTSTRAP = """\
import importlib.util, sys
path, source = sys.argv[1], open(sys.argv[2], encoding="utf-8").read()
spec = importlib.util.spec_from_loader("pdp_audit.catalogue.plans", loader=None, origin=path)
module = importlib.util.module_from_spec(spec)
module.__file__ = path
sys.modules[spec.name] = module
exec(compile(source, path, "exec"), module.__dict__)
import pdp_audit.catalogue
pdp_audit.catalogue.plans = module
from pdp_audit.cli.main import main
sys.exit(main(sys.argv[3:]))
"""


def with_one_line(source: str, line: str = LINE) -> str:
    """The catalogue's ``source`` with ``line`` added as the last entry of its table: the first tuple it opens over
    several lines (the line before the first line that is a lone ``)``)."""
    lines = source.splitlines(keepends=True)
    end = lines.index(")\n")
    return "".join([*lines[:end], line, *lines[end:]])


def copied_audit(folder: Path) -> Path:
    """The randomized-response audit's modules copied into ``folder``/coin_flip, every name of it renamed."""
    package = folder / PACKAGE
    package.mkdir()
    for source in Path(template.__file__).parent.glob("*.py"):
        text = source.read_text(encoding="utf-8")
        text = text.replace(template.__name__, PACKAGE).replace("randomized-response", NAME)
        (package / source.name).write_text(text, encoding="utf-8")
    return package


@pytest.fixture(scope="module")
def registered(tmp_path_factory):
    """A command runner: ``pdp-audit`` with the throw-away audit on the path and registered by one line."""
    folder = tmp_path_factory.mktemp("one_line")
    copied_audit(folder)
    source = Path(catalogue.__file__).read_text(encoding="utf-8")
    changed = with_one_line(source)
    assert len(changed.splitlines()) == len(source.splitlines()) + 1
    (folder / "plans.py").write_text(changed, encoding="utf-8")
    (folder / "bootstrap.py").write_text(BOOTSTRAP, encoding="utf-8")
    for name in ("deploy-randomized-response.toml", "deploy-data.csv"):
        shutil.copy(Path(examples.__file__).parent / name, folder / name)

    def run(*argv: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "bootstrap.py", catalogue.__file__, "plans.py", *argv]
        env = {**_environment(), "PYTHONPATH": str(folder)}
        return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300)

    run.folder = folder  # type: ignore[attr-defined]
    return run


def _environment() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}


def test_one_line_lists_the_audit(registered):
    done = registered("list")
    assert done.returncode == 0, done.stderr
    assert any(line.split()[:1] == [NAME] for line in done.stdout.splitlines()), done.stdout


@pytest.mark.tier2
def test_one_line_makes_the_audit_runnable(registered):
    done = registered("run", NAME, "--trials", "2000", "--seed", "1", "--report", "none", "--json", "run.json")
    assert done.returncode == 0, done.stderr
    run = json.loads((registered.folder / "run.json").read_text(encoding="utf-8"))
    assert run["mechanism"] == NAME and run["verdict"] == "pass", run["verdict"]


@pytest.mark.tier2
def test_one_line_makes_the_audit_sweepable(registered):
    sweep = registered.folder / "sweep.toml"
    sweep.write_text(
        f'[sweep]\nname = "coin"\nmechanism = "{NAME}"\nseed = 0\nalpha = 1e-6\n'
        "[fixed]\ntrials = 2000\n[grid]\nnoise_multiplier = [1.0, 2.0]\n",
        encoding="utf-8",
    )
    done = registered("sweep", "sweep.toml", "--workers", "1", "--report", "none", "--json", "sweep.json", "--quiet")
    assert done.returncode == 0, done.stderr
    cells = json.loads((registered.folder / "sweep.json").read_text(encoding="utf-8"))["cells"]
    assert len(cells) == 2


@pytest.mark.tier2
def test_one_line_makes_the_audit_certifiable(registered):
    file = registered.folder / "deploy-randomized-response.toml"
    deployed = file.read_text(encoding="utf-8").replace('mechanism = "randomized-response"', f'mechanism = "{NAME}"')
    assert f'mechanism = "{NAME}"' in deployed
    (registered.folder / "deploy.toml").write_text(deployed.replace("trials = 1e6", "trials = 2000"), encoding="utf-8")
    done = registered("certify", "deploy.toml", "--report", "none", "--json", "certificate.json")
    assert done.returncode == 0, done.stderr
    certificate = json.loads((registered.folder / "certificate.json").read_text(encoding="utf-8"))
    assert certificate["mechanism"] == NAME


def test_the_line_is_added_to_the_table_only():
    source = "A = (\n    1,\n)\nB = (\n    2,\n)\n"
    assert with_one_line(source, "    3,\n") == "A = (\n    1,\n    3,\n)\nB = (\n    2,\n)\n"


def plan_modules() -> set[str]:
    """The plan module of every audit folder (``pdp_audit.audits.<name>.plan``)."""
    return {f"pdp_audit.audits.{p.parent.name}.plan" for p in (ROOT / "audits").glob("*/plan.py")}


def plan_of_an_audit(module: str) -> bool:
    return module.startswith("pdp_audit.audits.") and module.endswith(".plan")


def test_every_audit_folder_is_in_one_catalogue():
    modules = our_modules()
    kind_modules = {m for m in imports_of(Path(kinds.__file__), modules) if plan_of_an_audit(m)}
    assert len(catalogue.AUDITS) == len(set(catalogue.AUDITS))
    assert not set(catalogue.AUDITS) & kind_modules
    assert sorted({*catalogue.AUDITS, *kind_modules}) == sorted(plan_modules())


@pytest.mark.tier2
def test_only_the_catalogue_names_a_run_audits_plan():
    """The application reads the audits from the catalogue: a module that imported or named one audit's plan would
    be a second place to touch when an audit is added."""
    naming, modules = [], our_modules()
    for name, path in modules.items():
        if path == Path(catalogue.__file__).resolve():
            continue
        text, imported = path.read_text(encoding="utf-8"), imports_of(path, modules)
        for plan in catalogue.AUDITS:
            own = name.startswith(plan.rpartition(".")[0] + ".")
            if not own and (plan in imported or f'"{plan}"' in text or f"'{plan}'" in text):
                naming.append(f"{name} names {plan}")
    assert not naming, "\n".join(naming)
