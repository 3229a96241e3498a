"""The libraries a program audit wraps: only those the program imports, a broken one the user's environment.

Each process-level fact (what is imported, which version the run saw) is checked in a fresh interpreter: this test
process has diffprivlib imported already by other tests.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from pdp_audit.verify.core.sandbox import import_from_current_folder
from pdp_audit.verify.inputs.validation import InputError


def _fresh(code: str, folder) -> str:
    """``code`` run by a fresh interpreter in ``folder``: its standard output."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=folder, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_program_not_using_diffprivlib_does_not_import_it(tmp_path):
    """Seen failing: before, every session imported ``diffprivlib.mechanisms`` (about 2 s) to wrap it."""
    (tmp_path / "plain.py").write_text("def plain(data, rng):\n    return float(data.sum()) + rng.laplace(0, 1)\n")
    said = _fresh(
        """
        import sys
        import numpy as np
        from plain import plain
        from pdp_audit.audits.program import trace
        run = trace.record(plain, np.zeros(3))
        print([c.name for c in run.calls], "diffprivlib" in sys.modules)
        """,
        tmp_path,
    )
    assert said == "['laplace'] False"


def test_a_library_imported_in_the_programs_body_is_wrapped_and_its_version_reported(tmp_path):
    """A program importing diffprivlib in its body: its first run imports it unwrapped, so that run is made again
    wrapped -- the record names diffprivlib's Laplace (an exact law), and the run's libraries name its version.
    Seen failing: without the run made again, the record held no diffprivlib call."""
    pytest.importorskip("diffprivlib")
    (tmp_path / "lazy.py").write_text(
        "def lazy(data, rng):\n"
        "    from diffprivlib.mechanisms import Laplace\n"
        "    return Laplace(epsilon=1.0, sensitivity=1.0).randomise(float(data.sum()))\n"
    )
    said = _fresh(
        """
        from importlib import metadata
        import numpy as np
        from lazy import lazy
        from pdp_audit.audits.program import trace
        from pdp_audit.audits.program.adapters import LIBRARIES
        from pdp_audit.verify.core.module_fingerprints import libraries
        run = trace.record(lazy, np.zeros(3))
        again = trace.replay(lazy, np.zeros(3), run.calls)
        called = {c.name.partition(".")[0] for c in run.calls}.intersection(LIBRARIES)
        found = [(d["name"], d["version"]) for d in libraries([], packages=called)]
        print([c.name for c in run.calls], again.numbers.tolist() == run.numbers.tolist(),
              found == [("diffprivlib", metadata.version("diffprivlib"))])
        """,
        tmp_path,
    )
    assert said == "['diffprivlib.Laplace'] True True"


def test_a_library_broken_in_the_users_environment_is_one_line_naming_it(tmp_path, monkeypatch):
    """A library whose own import fails (pandas too new for it) is the user's environment: one InputError naming
    the library and its error (exit 2), not our internal error.  Seen failing: the audit imported diffprivlib itself
    and an AttributeError there was exit 4 with a traceback."""
    (tmp_path / "brokenlib").mkdir()
    (tmp_path / "brokenlib" / "__init__.py").write_text(
        "raise AttributeError(\"module 'pandas' has no attribute 'Int64Index'\")\n"
    )
    (tmp_path / "uses_broken.py").write_text("import brokenlib\n\ndef program(data, rng):\n    return 0.0\n")
    (tmp_path / "oldlib").mkdir()
    (tmp_path / "oldlib" / "__init__.py").write_text("from pandas import Int64Index\n")
    (tmp_path / "imports_broken.py").write_text("import oldlib\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError) as raised:
        import_from_current_folder("uses_broken", "program")
    said = str(raised.value)
    assert "\n" not in said and "AttributeError" in said and "Int64Index" in said and said.endswith(" in brokenlib")
    with pytest.raises(InputError) as raised:
        import_from_current_folder("imports_broken", "program")
    said = str(raised.value)
    assert said.startswith("program: cannot import module 'imports_broken'") and said.endswith(" in oldlib)")


def test_the_cli_with_a_broken_library_on_the_path_exits_2_in_one_line(tmp_path):
    """The whole command: a diffprivlib that cannot import, a program importing it: exit 2, one line."""
    (tmp_path / "diffprivlib").mkdir()
    (tmp_path / "diffprivlib" / "__init__.py").write_text("from pandas import Int64Index\n")
    (tmp_path / "uses.py").write_text("import diffprivlib\n\ndef program(data, rng):\n    return 0.0\n")
    (tmp_path / "values.csv").write_text("value\n0.5\n0.25\n")
    command = [sys.executable, "-m", "pdp_audit.cli", "program", "uses:program", "--data", "values.csv"]
    command += ["--claim-epsilon", "1", "--claim-delta", "0", "--bounds", "0,1", "--trials", "200"]
    environment = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300, env=environment)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert "Int64Index" in lines[0] and lines[0].endswith("in diffprivlib)")
