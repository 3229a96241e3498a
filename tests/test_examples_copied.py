"""What ``pdp-audit examples DIR`` writes works where it is written, from any working folder: every deployment
file's data path (relative to the file) names a file it copied, and every deployment file loads (a guide's
``pdp-audit examples ex && cd ex`` then runs as written)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pdp_audit.cli.main import main
from pdp_audit.deployment import load_deployment
from pdp_audit.sweeps.spec import _toml


def _data_paths(document: dict) -> list[str]:
    tables = [document.get("parameters", {})] + [r.get("parameters", {}) for r in document.get("release", [])]
    return [table["data"] for table in tables if isinstance(table.get("data"), str)]


def test_the_copied_deployment_files_find_their_data_from_another_folder(tmp_path, monkeypatch, capsys):
    assert main(["examples", str(tmp_path / "ex")]) == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    deployments = sorted((tmp_path / "ex").glob("deploy-*.toml"))
    assert len(deployments) >= 8
    with_data = 0
    for path in deployments:
        document = _toml().loads(path.read_text(encoding="utf-8"))
        for data in _data_paths(document):
            assert (path.parent / data).is_file(), (path.name, data)
            with_data += 1
        load_deployment(str(path))
    assert with_data >= 6


@pytest.mark.tier2
def test_a_copied_deployment_is_certified_from_another_folder(tmp_path, monkeypatch, capsys):
    assert main(["examples", str(tmp_path / "ex")]) == 0
    deployment = tmp_path / "ex" / "deploy-own.toml"
    deployment.write_text(deployment.read_text(encoding="utf-8").replace("trials = 2e5", "trials = 5e4"))
    monkeypatch.chdir(tmp_path)
    assert main(["certify", str(Path("ex") / "deploy-own.toml"), "--report", "none"]) == 0, capsys.readouterr().err
