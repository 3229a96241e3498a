"""The installed product: one namespace, its package data, and a user project that has packages of our folders'
names (``verify``, ``reports``, ``mechanisms``) still running pytest with the plugin loaded."""

from __future__ import annotations

import runpy
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from pdp_audit.deployment import tomllib  # tomli on Python 3.10
from pdp_audit.reports.code_commit import git_commit

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("mechanisms", "audits", "verify", "reports", "examples")


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def setup_arguments(monkeypatch) -> dict:
    """The keyword arguments setup.py hands setuptools, read by running it with ``setup`` captured."""
    import setuptools

    captured = {}
    monkeypatch.setattr(setuptools, "setup", lambda **kwargs: captured.update(kwargs))
    runpy.run_path(str(ROOT / "setup.py"), run_name="pdp_audit_setup_probe")
    return captured


def test_every_package_folder_is_found_and_mapped_into_the_namespace(monkeypatch, tmp_path):
    """setup.py finds the packages on disk (a new audit's folder needs no line in pyproject.toml); a folder made here
    with an __init__.py is found, one without is not."""
    found = setup_arguments(monkeypatch)["packages"]
    on_disk = {"pdp_audit"} | {
        "pdp_audit." + ".".join(init.parent.relative_to(ROOT).parts)
        for folder in FOLDERS
        for init in (ROOT / folder).rglob("__init__.py")
    }
    application = ROOT / "src" / "pdp_audit"  # the application's packages: pdp_audit.cli, pdp_audit.sweeps, ...
    on_disk |= {
        "pdp_audit." + ".".join(init.parent.relative_to(application).parts)
        for init in application.rglob("*/__init__.py")
    }
    assert set(found) == on_disk | {"pdp_audit.reports.schema"} and len(found) == len(set(found))
    module = runpy.run_path(str(ROOT / "setup.py"), run_name="pdp_audit_setup_probe")
    (tmp_path / "audits" / "dp_sgd").mkdir(parents=True)
    (tmp_path / "audits" / "dp_sgd" / "__init__.py").write_text("")
    (tmp_path / "audits" / "notes").mkdir()
    (tmp_path / "src" / "pdp_audit" / "cli").mkdir(parents=True)
    (tmp_path / "src" / "pdp_audit" / "__init__.py").write_text("")
    (tmp_path / "src" / "pdp_audit" / "cli" / "__init__.py").write_text("")
    assert module["packages"](tmp_path) == [
        "pdp_audit",
        "pdp_audit.audits.dp_sgd",
        "pdp_audit.cli",
        "pdp_audit.reports.schema",
    ]
    setuptools = pyproject()["tool"]["setuptools"]
    assert "packages" not in setuptools
    assert setuptools["package-dir"] == {"pdp_audit": "src/pdp_audit", **{f"pdp_audit.{f}": f for f in FOLDERS}}


def test_entry_points_name_the_namespaced_modules():
    project = pyproject()["project"]
    assert project["scripts"]["pdp-audit"] == "pdp_audit.cli.main:main"
    assert project["entry-points"]["pytest11"]["pdp_audit"] == "pdp_audit.pytest_plugin"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from this checkout, as `pip install .` would build it."""
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.fail(f"building the wheel failed:\n{done.stderr[-3000:]}")
    (built,) = out.glob("pdp_audit-*.whl")
    return built


# slow: fast elsewhere (the wheel smoke test builds and installs the wheel and looks for these folders)
@pytest.mark.slow
def test_the_wheel_installs_only_the_namespace_and_its_data(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"pdp_audit"}, tops
    for needed in (
        "pdp_audit/__init__.py",
        "pdp_audit/py.typed",
        "pdp_audit/reports/schema/run.schema.json",
        "pdp_audit/reports/schema/claims.schema.json",
        "pdp_audit/examples/deploy-gaussian.toml",
        "pdp_audit/examples/deploy-data.csv",
        "pdp_audit/examples/pdp-k4-conditioned.toml",
        "pdp_audit/examples/test_my_mechanism.py",
        "pdp_audit/verify/ledger/entries/rw.toml",
    ):
        assert needed in names, needed
    shipped_sources = {n.removeprefix("pdp_audit/") for n in names if n.endswith(".py")}
    for folder in FOLDERS:
        for source in (ROOT / folder).rglob("*.py"):
            assert source.relative_to(ROOT).as_posix() in shipped_sources, source
    built = zipfile.ZipFile(wheel).read("pdp_audit/reports/_build_commit.py").decode()
    assert f"COMMIT = {(git_commit(ROOT) or 'commit unknown')!r}" in built  # this tree's, +dirty as it is now
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    assert "License-Expression: Apache-2.0" in text
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)


# slow: fast elsewhere (the wheel smoke test runs such a project's tests)
@pytest.mark.slow
def test_a_user_project_with_verify_reports_and_mechanisms_packages_runs_its_tests(tmp_path):
    """Such a project stopped at pytest's start-up when the wheel installed top-level ``verify`` and ``reports``."""
    for package in ("verify", "reports", "mechanisms"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text(f"WHO = 'the user project {package}'\n")
    (tmp_path / "test_user.py").write_text(
        textwrap.dedent(
            """
            import numpy as np
            import pytest

            import mechanisms, reports, verify

            class Pair:
                output_dim = 1
                def sample(self, world, size, rng):
                    return (1.0 if world == "D" else 0.0) + 4.0 * rng.standard_normal((size, 1))
                def privacy_loss(self, outputs):
                    o = outputs[:, 0]
                    return (o**2 - (o - 1.0) ** 2) / (2 * 16.0)

            def test_own_packages_are_the_users():
                assert verify.WHO == "the user project verify" and reports.WHO.endswith("reports")

            @pytest.mark.audit
            def test_dp(privacy_audit):
                privacy_audit.assert_dp(Pair(), epsilon=1.0, delta=1e-3, trials=1e5)
            """
        )
    )
    done = subprocess.run(
        # its own basetemp: a nested session in the default one would rotate away this session's temporary folders
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", f"--basetemp={tmp_path / 'bt'}"]
        + ["test_user.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "2 passed" in done.stdout and "pdp-audit privacy assertions" in done.stdout


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs a git checkout")
def test_a_wheel_built_without_git_says_commit_unknown(tmp_path):
    """An sdist has no .git: its wheel (the tracked files, copied) names no commit rather than one it cannot know."""
    files = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True, check=True).stdout
    tree = tmp_path / "pdp-audit-0.1.0"
    for name in files.splitlines():
        if (ROOT / name).is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            (tree / name).write_bytes((ROOT / name).read_bytes())
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp_path / "dist"), str(tree)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (built,) = (tmp_path / "dist").glob("pdp_audit-*.whl")
    assert "COMMIT = 'commit unknown'" in zipfile.ZipFile(built).read("pdp_audit/reports/_build_commit.py").decode()
