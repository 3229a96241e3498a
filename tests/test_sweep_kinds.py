"""A sweep cell reaches a user-facing audit through its kind's config: ``mechanism = "pair"`` with ``factory =
"MODULE:FACTORY"`` audits the pair the factory returns exactly as ``pdp_audit.audit_pair`` does (the same config,
the same run), and a bad cell is one line naming the cell and the key before any cell runs."""

from __future__ import annotations

import sys
import textwrap

import pytest

import pdp_audit
from pdp_audit.reports.json_report import check_to_dict, clean
from pdp_audit.sweeps.spec import SpecError, parse_spec

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

MODULE = textwrap.dedent(
    """
    import numpy as np

    class Gaussian:
        output_dim = 1

        def __init__(self, sigma):
            self.sigma = sigma

        def sample(self, world, size, rng):
            return (1.0 if world == "D" else 0.0) + self.sigma * rng.standard_normal((size, 1))

        def privacy_loss(self, outputs):
            o = outputs[:, 0]
            return (o**2 - (o - 1.0) ** 2) / (2 * self.sigma**2)

    def make():
        return Gaussian(4.0)

    def make_leaky():
        return Gaussian(0.5)
    """
)

SPEC = """
[sweep]
name = "pairs"
mechanism = "pair"
seed = 0
alpha = 4e-6

[fixed]
trials = 2000
delta = 1e-3
law = "ideal"

[grid]
factory = ["sweep_pairs:make", "sweep_pairs:make_leaky"]
epsilon = [1.0, 2.0]
"""


@pytest.fixture()
def user_folder(tmp_path, monkeypatch):
    (tmp_path / "sweep_pairs.py").write_text(MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("sweep_pairs", None)  # the cells' loader registers the module, as an import does


@pytest.mark.tier2
def test_a_sweep_cell_of_a_users_pair_is_audit_pair_at_the_cells_seed(user_folder):
    import sweep_pairs

    spec = parse_spec(SPEC)
    assert len(spec.cells) == 4
    verdicts = {}
    for cell in spec.cells:
        p = cell.parameters
        result = spec.kind.cell(dict(p), cell.seed, spec.alpha_per_cell, None)
        pair = getattr(sweep_pairs, p["factory"].partition(":")[2])()
        run = pdp_audit.audit_pair(
            pair,
            p["epsilon"],
            p["delta"],
            trials=pdp_audit.PairBudget(p["trials"], law=p["law"]),  # the cell's law key (the ideal one here)
            seed=cell.seed,
            alpha=spec.alpha_per_cell,
        )
        assert result["checks"] == [clean(check_to_dict(c)) for c in run.checks]
        verdicts[p["factory"], p["epsilon"]] = result["verdict"]
    assert verdicts["sweep_pairs:make_leaky", 1.0] == "fail"  # σ = 0.5 at sensitivity 1 is far from (1, 1e-3)
    assert verdicts["sweep_pairs:make", 1.0] != "fail" and verdicts["sweep_pairs:make", 2.0] != "fail"


@pytest.mark.parametrize(
    "change, needle",
    [
        ('factory = ["sweep_pairs:make", "sweep_pairs:make_leaky"]\n', "factory is required"),
        ('"sweep_pairs:make_leaky"', '"sweep_pairs"'),  # no colon: not MODULE:FACTORY
        ("delta = 1e-3", "delta = 1.5"),
        ("trials = 2000", "trials = 10"),
        ("epsilon = [1.0, 2.0]", "epsilon = [1.0, -2.0]"),
    ],
)
def test_a_bad_cell_of_a_pair_sweep_is_one_line_naming_the_key(user_folder, change, needle):
    text = SPEC.replace(change, "") if needle == "factory is required" else SPEC.replace(change, needle)
    with pytest.raises(SpecError) as err:
        parse_spec(text, where="s.toml")
    message = str(err.value)
    assert "\n" not in message and message.startswith("s.toml")
    key = {"factory is required": "factory", '"sweep_pairs"': "factory", "delta = 1.5": "delta"}.get(needle)
    assert (key or needle.split()[0]) in message


def test_a_sweep_cell_of_a_pair_sets_neither_seed_alpha_nor_workers(user_folder):
    with pytest.raises(SpecError, match="unknown"):
        parse_spec(SPEC.replace("delta = 1e-3", "delta = 1e-3\nworkers = 2"), where="s.toml")


def test_canary_errors_name_the_keyword_the_caller_typed():
    """``audit_canary_scores(..., claim_epsilon=-1)`` named ``epsilon``, an argument it does not have."""
    with pytest.raises(pdp_audit.InputError, match=r"^claim_epsilon must be a finite number >= 0, got -1$"):
        pdp_audit.audit_canary_scores([1.0, 2.0, 3.0], [0.0, 1.0, 2.0], 1e-5, claim_epsilon=-1)


BLACKBOX_SPEC = """
[sweep]
name = "samplers"
mechanism = "blackbox"
seed = 0
alpha = 2e-6

[fixed]
trials = 20000
claim_delta = 1e-6
law = "ideal"

[grid]
factory = ["sweep_pairs:make", "sweep_pairs:make_leaky"]
claim_epsilon = [1.0]
"""


def test_a_sweep_cell_of_a_sampler_is_audit_blackbox_at_the_cells_seed(user_folder):
    """``mechanism = "blackbox"``: the factory's pair sampled only, exactly as ``pdp_audit.audit_blackbox`` audits it
    at the cell's seed and α (σ = 0.5 at sensitivity 1 refuted at ε = 1, σ = 4 not)."""
    import sweep_pairs

    spec = parse_spec(BLACKBOX_SPEC)
    verdicts = {}
    for cell in spec.cells:
        p = cell.parameters
        result = spec.kind.cell(dict(p), cell.seed, spec.alpha_per_cell, None)
        pair = getattr(sweep_pairs, p["factory"].partition(":")[2])()
        run = pdp_audit.audit_blackbox(
            pair,
            p["claim_epsilon"],
            p["claim_delta"],
            trials=p["trials"],
            seed=cell.seed,
            alpha=spec.alpha_per_cell,
            budget=pdp_audit.BlackBoxBudget(law=p["law"]),  # the sweep key reaches the one config
        )
        assert result["checks"] == [clean(check_to_dict(c)) for c in run.checks]
        verdicts[p["factory"]] = result["verdict"]
    assert verdicts == {"sweep_pairs:make_leaky": "fail", "sweep_pairs:make": "inconclusive"}


@pytest.mark.parametrize(
    "change, key",
    [("trials = 20000\n", "trials"), ("claim_delta = 1e-6", "time_limit"), ("claim_delta = 1e-6", "dask_local")],
)
def test_a_black_box_cell_names_its_budget_and_nothing_machine_dependent(user_folder, change, key):
    """A cell's numbers must not depend on the machine: its trials are required (the black box's default budget is
    fitted to the sampler's speed) and a time limit or a Dask cluster is not a cell's to set."""
    extra = {"trials": "", "time_limit": "claim_delta = 1e-6\ntime_limit = 5"}
    extra["dask_local"] = "claim_delta = 1e-6\ndask_local = 2"
    with pytest.raises(SpecError) as err:
        parse_spec(BLACKBOX_SPEC.replace(change, extra[key]), where="s.toml")
    message = str(err.value)
    assert "\n" not in message and message.startswith("s.toml") and key in message


@pytest.mark.parametrize(
    ("factory", "needle"),
    [("sweep_pairs:absent", "defines no 'absent'"), ("no_such_module:make", "no module 'no_such_module'")],
)
@pytest.mark.parametrize("spec", [SPEC, BLACKBOX_SPEC])
def test_a_missing_factory_is_refused_before_the_store_is_made(user_folder, spec, factory, needle, capsys):
    """A factory that does not exist was found only when its first cell ran, after the store was made (a store of
    no cell): every cell's is looked up when the spec is read, without running the module."""
    from pdp_audit.cli.main import main

    (user_folder / "s.toml").write_text(spec.replace('"sweep_pairs:make_leaky"', f'"{factory}"'))
    assert main(["sweep", "s.toml", "--store", "s.sqlite", "--workers", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and needle in err and "factory" in err
    assert not (user_folder / "s.sqlite").exists()
    assert "sweep_pairs" not in sys.modules  # the module was read, not run


@pytest.mark.parametrize(
    "source",
    [
        "try:\n    import numpy\nexcept ImportError:\n    pass\nelse:\n    def absent():\n        return None\n",
        "from sweep_pairs_helper import *\n",
        "make = absent = lambda: None\n",
        "import sweep_pairs_helper as absent\n",
    ],
)
def test_a_factory_bound_where_the_source_shows_it_is_accepted(user_folder, source):
    (user_folder / "sweep_pairs.py").write_text(MODULE + source)
    parse_spec(SPEC.replace('"sweep_pairs:make_leaky"', '"sweep_pairs:absent"'), where="s.toml")
