"""The commit the code was built from, on every certificate, report, ``--version`` and sweep store
(:mod:`pdp_audit.reports.code_commit`): asked of git in a checkout, the build's record in a wheel, "commit unknown"
without either; ``+dirty`` when a packaged file differs from the commit.  The wheel itself is built in
tests/test_packaging.py."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

from pdp_audit.cli.main import main, version_text
from pdp_audit.reports import code_commit
from pdp_audit.reports.json_report import code_version, package_version

ROOT = Path(__file__).resolve().parent.parent
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(folder: Path, *args: str) -> str:
    command = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@example.org", *args]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def checkout(tmp_path) -> Path:
    """A committed tree with a package folder (verify/), a pyproject.toml and a docs folder."""
    root = tmp_path / "checkout"
    for name, text in {"verify/a.py": "A = 1\n", "pyproject.toml": "[project]\n", "docs/index.md": "# docs\n"}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    git(root.parent, "init", "-q", str(root))
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "one")
    return root


@needs_git
def test_a_clean_checkout_names_its_commit(checkout):
    head = git(checkout, "rev-parse", "HEAD")
    assert code_commit.git_commit(checkout) == f"git {head[:12]}"


@needs_git
def test_a_changed_or_new_packaged_file_makes_it_dirty(checkout):
    (checkout / "docs" / "index.md").write_text("# other docs\n", encoding="utf-8")  # not in the wheel
    (checkout / "notes.txt").write_text("scratch\n", encoding="utf-8")
    assert not code_commit.git_commit(checkout).endswith("+dirty")
    (checkout / "verify" / "b.py").write_text("B = 2\n", encoding="utf-8")  # untracked, but it would be packaged
    assert code_commit.git_commit(checkout).endswith("+dirty")
    (checkout / "verify" / "b.py").unlink()
    (checkout / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    assert code_commit.git_commit(checkout).endswith("+dirty")


@needs_git
def test_a_tree_inside_another_repository_or_without_git_has_no_commit(checkout, tmp_path):
    """An sdist unpacked inside some repository is not that repository's commit; a bare folder has none."""
    inner = checkout / "verify"
    (inner / ".git").mkdir()  # even one that looks like a checkout's top
    assert code_commit.git_commit(inner) is None
    bare = tmp_path / "sdist"
    bare.mkdir()
    assert code_commit.git_commit(bare) is None


def test_without_a_checkout_the_builds_record_then_unknown(monkeypatch):
    monkeypatch.setattr(code_commit, "git_commit", lambda root: None)
    code_commit.code_commit.cache_clear()
    try:
        monkeypatch.setitem(sys.modules, "pdp_audit.reports._build_commit", None)  # a source tree: no record
        assert code_commit.code_commit() == "commit unknown"
        code_commit.code_commit.cache_clear()
        record = types.SimpleNamespace(COMMIT="git 0123456789ab")
        monkeypatch.setitem(sys.modules, "pdp_audit.reports._build_commit", record)
        assert code_commit.code_commit() == "git 0123456789ab"
        assert code_version() == f"{package_version()} (git 0123456789ab)"
    finally:
        code_commit.code_commit.cache_clear()


def test_this_checkout_is_named_by_every_surface():
    """``--version``, the sweep store and :func:`code_version` say the same "version (commit)"."""
    from pdp_audit.sweeps.store import code_version as store_code_version

    expected = f"{package_version()} ({code_commit.code_commit()})"
    assert code_version() == expected
    assert version_text() == f"pdp-audit {expected}"
    assert store_code_version().startswith(expected + ", sources ")
    if shutil.which("git") is not None and (ROOT / ".git").exists():
        assert code_commit.code_commit().startswith("git " + git(ROOT, "rev-parse", "--short=12", "HEAD"))


# slow: fast elsewhere (the wheel smoke test reads the commit on a certificate's page 1 and JSON)
@pytest.mark.slow
def test_a_certificate_names_the_commit_on_page_one_and_in_its_json(tmp_path, drawn_pages):
    from tests.test_certify import gaussian_example

    pages = drawn_pages
    toml = gaussian_example(tmp_path, budget="trials = 2e4")
    pdf, out = tmp_path / "c.pdf", tmp_path / "c.json"
    assert main(["certify", str(toml), "--report", str(pdf), "--json", str(out), "--quiet"]) == 0
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["certified"]["code_version"] == document["code_version"] == code_version()
    assert any(f"Code: pdp-audit {code_version()}." in text for text in pages[0])
    assert any(f"pdp-audit {code_version()}" in text for text in pages[-1])  # the provenance page
