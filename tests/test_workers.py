"""Every audit runs with --workers 2 and gives byte-identical JSON to --workers 1 (results depend on the seed only)."""

import pytest

from pdp_audit.verify.cli.main import main
from pdp_audit.verify.plans.catalogue import PLANS

SMALL = ["--trials", "1000", "--seed", "3", "--quiet", "--report", "none"]
OPTIONS = {
    "gaussian": [],
    "goe-release": ["--matrices", "1000"],
    "output-perturbation": ["--synthetic", "200,3", "--search", "8", "--no-reproduce"],
    "ops": ["--synthetic", "200,3", "--search", "8", "--no-reproduce"],
    "adaops": ["--synthetic", "200,3", "--search", "8", "--no-reproduce"],
    "adassp": ["--synthetic", "200,3", "--search", "8", "--no-reproduce"],
    "ssp": ["--synthetic", "200,3", "--search", "8", "--no-reproduce"],
    "objpert": ["--synthetic", "60,3", "--search-trials", "200"],
    "privacy-report": ["--repetitions", "200", "--n", "200", "--d", "5"],
}


def test_every_audit_is_listed_here():
    assert {plan.name for plan in PLANS} == set(OPTIONS)


@pytest.mark.parametrize("audit", sorted(OPTIONS))
def test_workers_do_not_change_the_results(audit, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    outputs = {}
    for workers in ("1", "2"):
        path = tmp_path / f"w{workers}.json"
        code = main(["run", audit, *OPTIONS[audit], *SMALL, "--workers", workers, "--json", str(path)])
        assert code in (0, 1, 3), f"{audit} --workers {workers}: exit {code}"
        outputs[workers] = path.read_bytes()
    assert outputs["1"] == outputs["2"]
