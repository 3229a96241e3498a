"""One declaration, one path: every way in builds an audit's config with the same function, and refuses a value out
of range before anything runs with the same words (only the option's spelling and the place differ)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import pdp_audit
from pdp_audit.catalogue.arguments import command_line, configure_from_args, run_parser
from pdp_audit.catalogue.plans import plans, plans_by_name
from pdp_audit.cli.main import main
from pdp_audit.sweeps.spec import SpecError, parse_spec
from pdp_audit.verify.core.config import COMMAND_LINE, KEYWORDS, PAIR_OPTIONS, SEED_OPTION, parse

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
WORDS = "must be a finite number in [1e-6, 100], got 1000"


def _message(error: BaseException) -> str:
    return str(error).splitlines()[0]


def test_an_epsilon_out_of_range_is_refused_in_the_same_words_everywhere(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    # the command line
    assert main(["run", "gaussian", "--claim-epsilon", "1000"]) == 2
    assert f"--claim-epsilon {WORDS}" in capsys.readouterr().err
    # a deployment file
    shutil.copy(EXAMPLES / "deploy-data.csv", tmp_path / "deploy-data.csv")
    text = (EXAMPLES / "deploy-gaussian.toml").read_text(encoding="utf-8")
    (tmp_path / "d.toml").write_text(re.sub(r"(?m)^epsilon = .*$", "epsilon = 1000", text), encoding="utf-8")
    assert main(["certify", "d.toml", "--report", "none"]) == 2
    assert f"d.toml: claim.epsilon {WORDS}" in capsys.readouterr().err
    # a sweep spec
    with pytest.raises(SpecError, match=re.escape(f"s.toml: fixed.claim_epsilon {WORDS}")):
        parse_spec("[sweep]\nmechanism = 'gaussian'\n[fixed]\nclaim_epsilon = 1000\n", where="s.toml")
    # the API's keywords
    with pytest.raises(pdp_audit.InputError, match=re.escape(f"claim_epsilon {WORDS}")):
        pdp_audit.run_audit("gaussian", claim_epsilon=1000)
    assert not list(tmp_path.glob("*.pdf")) and not list(tmp_path.glob("*.sqlite"))  # nothing ran


@pytest.mark.parametrize("plan", plans(), ids=lambda p: p.name)
def test_the_command_line_and_keywords_build_the_same_config(plan):
    """The smoke budget given as keywords, and as the command line spelled from the same values, is one config."""
    values = dict(plan.smoke)
    from_keywords = plan.configure(values)
    from_text = configure_from_args(plan, run_parser(plan.name).parse_args(command_line(plan, values)))
    assert from_text == from_keywords


def test_a_63_bit_seed_is_read_exactly_from_text():
    """Found by comparing a sweep cell with its `run` command: the seed went through a double (lost 136)."""
    assert parse(SEED_OPTION, "8450548179427944580", COMMAND_LINE) == 8450548179427944580
    assert parse(SEED_OPTION, "1e3", COMMAND_LINE) == 1000
    with pytest.raises(pdp_audit.InputError, match=r"--seed must be a whole number in \[0, 2\^63-1\]"):
        parse(SEED_OPTION, str(2**63), COMMAND_LINE)


@pytest.mark.parametrize("typed", ["-0", "-0.0", -0.0, "-0e5"])
def test_a_negative_zero_is_zero(typed):
    """``--claim-delta -0`` was echoed as "δ = -0.0" (issue 72): a number's zero is read without its sign."""
    names = COMMAND_LINE if isinstance(typed, str) else KEYWORDS
    value = parse(PAIR_OPTIONS["delta"], typed, names)
    assert value == 0.0 and str(value) == "0.0"


def test_a_deployed_sigma_beyond_the_doubles_is_refused_not_failed():
    """σ = 1e9 with noise_multiplier 10 deployed σ = 1e10 × Δ, where the loss law's test failed a correct mechanism;
    the rule is the config's, so the command line, a sweep and the API refuse it alike."""
    with pytest.raises(pdp_audit.InputError, match=r"sigma × noise_multiplier \(the deployed σ\) must be in"):
        plans_by_name()["gaussian"].configure({"sigma": 1e9, "noise_multiplier": 10})
