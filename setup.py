"""The build's two additions to pyproject.toml: the list of packages, found on disk (:func:`packages`: a new audit's
folder under ``audits/`` needs no line anywhere else), and the git commit every wheel records, so that a certificate
made by an installed wheel names its code as a checkout's would (``pdp-audit 0.1.0 (git 1a2b3c4d5e6f)``).

``build_py`` writes ``pdp_audit/reports/_build_commit.py`` into the build folder (never into the source tree):
``COMMIT = "git <12 hex digits>"``, ``+dirty`` after it when a packaged file differs from the commit, or
``"commit unknown"`` when the tree has no git (a wheel built from an sdist).  The commit is found by
:func:`pdp_audit.reports.code_commit.git_commit`, loaded by its path (the package is not installed while it is
built).  setuptools-scm was not used: it derives the version from git tags (no tag would make 0.1.0 a ``0.1.dev…``
version, and the commit a local ``+g…`` part of it), while the version here is declared and the commit is provenance
beside it.
"""

import importlib.util
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
GENERATED = Path("pdp_audit", "reports", "_build_commit.py")


def commit_of_tree() -> str:
    """``git …`` for the tree being built, or ``commit unknown``."""
    spec = importlib.util.spec_from_file_location("_pdp_audit_code_commit", HERE / "reports" / "code_commit.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.git_commit(HERE) or module.UNKNOWN


class BuildPyWithCommit(build_py):
    """``build_py``, then the commit module beside the built ``reports`` package (not for editable installs: they run
    from the checkout, whose commit is asked of git when the code runs)."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / GENERATED
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(
            '"""Written by the build (setup.py): the commit this wheel was built from."""\n\n'
            f"COMMIT = {commit_of_tree()!r}\n",
            encoding="utf-8",
        )

    def get_outputs(self, include_bytecode=True):
        outputs = super().get_outputs(include_bytecode)
        return outputs if getattr(self, "editable_mode", False) else [*outputs, str(Path(self.build_lib) / GENERATED)]


#: The checkout's folders installed under ``pdp_audit`` (pyproject.toml's package-dir maps each to pdp_audit.<folder>).
FOLDERS = ("mechanisms", "audits", "verify", "reports", "examples")


def packages(root: Path = HERE) -> list[str]:
    """``pdp_audit``, every folder holding an ``__init__.py`` below :data:`FOLDERS` as ``pdp_audit.<its path>``
    (``pdp_audit.audits.gaussian``), every one below ``src/pdp_audit`` (the application: ``pdp_audit.cli``), and
    ``pdp_audit.reports.schema`` (package data only: the JSON Schemas)."""
    found = [
        "pdp_audit." + ".".join(init.parent.relative_to(root).parts)
        for folder in FOLDERS
        for init in sorted((root / folder).rglob("__init__.py"))
    ]
    application = root / "src" / "pdp_audit"
    found += [
        "pdp_audit." + ".".join(init.parent.relative_to(application).parts)
        for init in sorted(application.rglob("__init__.py"))
        if init.parent != application
    ]
    return ["pdp_audit", *found, "pdp_audit.reports.schema"]


setup(cmdclass={"build_py": BuildPyWithCommit}, packages=packages())
