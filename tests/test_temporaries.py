"""No temporary file of ours outlives the command (issue 27): a copy of the user's data left in /tmp is a leak.

``certify`` of a deployment with a data file writes a private copy of it (``pdp-audit-data-*`` in the temporary
folder); reports are written to temporaries beside them (``.<name>.pdp-<pid>.*``) and renamed into place.  Each is
removed on a normal exit, on an error, on Ctrl-C (exit 130) and on SIGTERM or SIGHUP, after which the process still
ends by that signal (a shell reports 143 or 129).  The user's factory below writes where its data copy lies and how
it is protected, then waits to be interrupted; the test sends the signal once the copy exists.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pdp_audit.cli.main import main

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

#: A user's module whose factory reports its data copy (path, mode, folder's mode) and waits ``wait`` seconds.
WAITING = textwrap.dedent(
    """
    import json, os, stat, time
    from pathlib import Path

    class Pair:
        output_dim = 1

        def sample(self, world, size, rng):
            return rng.laplace(0.0 if world == "D" else 1.0, 1.0, size=(size, 1))

        def privacy_loss(self, outputs):
            return abs(outputs[:, 0] - 1.0) - abs(outputs[:, 0])

    def make(data, wait=0.0):
        seen = {"path": data, "mode": stat.S_IMODE(os.stat(data).st_mode),
                "folder_mode": stat.S_IMODE(os.stat(os.path.dirname(data)).st_mode)}
        Path(__file__).with_name("seen.json").write_text(json.dumps(seen))
        time.sleep(wait)
        return Pair()
    """
)


def deployment(folder: Path, wait: float) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "waiting.py").write_text(WAITING, encoding="utf-8")
    (folder / "data.csv").write_text("x,y\n" + "".join(f"{i / 10},{i % 3}\n" for i in range(10)), encoding="utf-8")
    toml = folder / "deploy.toml"
    toml.write_text(
        'mechanism = "waiting:make"\n[claim]\nepsilon = 1.0\ndelta = 0.0\n'
        f'[parameters]\ndata = "data.csv"\nwait = {wait}\n[audit]\ntrials = 2e3\nlaw = "ideal"\n',
        encoding="utf-8",
    )
    return toml


def leftovers(temp: Path, reports: Path) -> list[str]:
    """Our temporaries: data copies in the temporary folder, half-written reports beside the reports."""
    return sorted([p.name for p in temp.glob("pdp-audit-data-*")] + [p.name for p in reports.glob(".*.pdp-*")])


# SIGTERM in the fast run; SIGHUP and SIGINT take the same handler
@pytest.mark.parametrize(
    "signal_name",
    ["SIGTERM", pytest.param("SIGHUP", marks=pytest.mark.slow), pytest.param("SIGINT", marks=pytest.mark.slow)],
)
def test_a_signal_removes_the_private_copy_of_the_data(tmp_path, signal_name):
    """SIGTERM left ``pdp-audit-data-*`` (a copy of the user's private data) in the temporary folder: the default
    disposition ran no cleanup.  The process must still end as that signal says (death by it; 130 for Ctrl-C)."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    toml = deployment(tmp_path / "user", wait=120.0)
    argv = [sys.executable, "-m", "pdp_audit.cli", "certify", str(toml), "--json", str(tmp_path / "c.json")]
    environment = {**os.environ, "TMPDIR": str(temp)}
    process = subprocess.Popen(
        [*argv, "--report", str(tmp_path / "c.pdf")], env=environment, stderr=subprocess.PIPE, text=True
    )
    seen_file = toml.with_name("seen.json")
    deadline = time.time() + 60
    while time.time() < deadline and not seen_file.exists() and process.poll() is None:
        time.sleep(0.05)
    assert seen_file.exists(), f"the factory never ran: {process.communicate(timeout=30)[1]}"
    time.sleep(0.2)  # the file is written before it is closed
    seen = json.loads(seen_file.read_text())
    copy = Path(seen["path"])
    assert copy.exists() and copy.parent.parent == temp
    process.send_signal(getattr(signal, signal_name))
    _, err = process.communicate(timeout=60)
    expected = 130 if signal_name == "SIGINT" else -getattr(signal, signal_name)
    assert process.returncode == expected, err
    assert not copy.parent.exists(), "the private copy of the data outlived the command"
    assert leftovers(temp, tmp_path) == []
    assert not (tmp_path / "c.json").exists() and not (tmp_path / "c.pdf").exists()
    assert err.count("\n") == 1, err  # one line, no traceback


def test_the_private_copy_is_readable_by_its_owner_only(tmp_path, monkeypatch):
    """``Path.write_bytes`` made the copy 0644 under the usual umask (its folder was 0700): 0600 whatever the umask."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr("tempfile.tempdir", None)  # read TMPDIR again
    toml = deployment(tmp_path / "user", wait=0.0)
    umask = os.umask(0o022)
    try:
        code = main(["certify", str(toml), "--report", "none", "--json", str(tmp_path / "c.json"), "--quiet"])
    finally:
        os.umask(umask)
    assert code in (0, 3), code
    seen = json.loads(toml.with_name("seen.json").read_text())
    assert seen["mode"] == 0o600 and seen["folder_mode"] == 0o700, seen
    assert leftovers(temp, tmp_path) == []


def test_an_error_in_the_users_code_removes_the_copy_too(tmp_path, monkeypatch):
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr("tempfile.tempdir", None)
    toml = deployment(tmp_path / "user", wait=0.0)
    module = toml.with_name("waiting.py")
    module.write_text(module.read_text().replace("return Pair()", "raise RuntimeError('theirs')"))
    assert main(["certify", str(toml), "--report", "none", "--json", str(tmp_path / "c.json"), "--quiet"]) == 2
    assert toml.with_name("seen.json").exists() and leftovers(temp, tmp_path) == []


def test_outside_the_command_the_handlers_are_restored(tmp_path):
    """``main`` called in a process of its own (pytest, a notebook) gives back the SIGTERM and SIGHUP handlers."""
    before = [signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)]
    assert main(["list"]) == 0
    assert [signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)] == before
