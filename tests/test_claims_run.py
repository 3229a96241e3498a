"""``pdp-audit claims --run``: entries decided by runs of today's code, their agreement with the ledger, the JSON
document, exit codes and determinism; the ledger's own exact lemma checks against independent computations."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest

import pdp_audit.reports
from pdp_audit.cli.main import main
from pdp_audit.ledger import entries as ledger
from pdp_audit.ledger import lemmas
from pdp_audit.ledger.entries import Entry
from pdp_audit.ledger.lemmas import exact, privacy_loss, tails
from pdp_audit.ledger.runs import audit_commands, decide, document, run_key, run_ledger
from pdp_audit.sweeps.executors import SerialExecutor

# The Gaussian mechanism at σ = 3.7306 has δ(1) = 1e-5 exactly: a true claim (1e-4) and its δ misquoted 10× (1e-6).
SIGMA = {"sigma": 3.7306, "trials": 20000}


def _planted(id_: str, delta: float, expected: str) -> Entry:
    return Entry(
        id=id_,
        paper="RW",
        where="planted",
        statement=f"The Gaussian mechanism at σ = 3.7306 is (1, {delta})-DP.",
        kind="calibration/DP claim",
        status="checked",
        audit="gaussian",
        checks=("dp-forward", "dp-reverse"),
        options={**SIGMA, "claim_delta": delta},
        expected=expected,
    )


@pytest.fixture(scope="module")
def planted_run():
    true_claim = _planted("K901", 1e-4, "pass")  # true δ(1) = 1e-5: holds with room
    false_claim = _planted("K902", 1e-6, "pass")  # the ledger (wrongly) expects the misquoted δ to hold
    return run_ledger([true_claim, false_claim], seed=0, quick=False, executor=SerialExecutor())


def test_planted_claims_are_decided_from_the_run(planted_run):
    true_claim, false_claim = planted_run.decisions
    assert true_claim.verdict == "pass" and true_claim.agrees is True
    assert false_claim.verdict == "fail" and false_claim.agrees is False
    assert planted_run.exit_code(strict=False) == 1  # the disagreement
    assert [d.entry.id for d in planted_run.disagreements()] == ["K902"]


def test_strict_fails_on_a_failing_claim_the_ledger_expects(planted_run):
    agreed = [decide(_planted("K902", 1e-6, "fail"), planted_run.runs, _by_key(planted_run), quick=False)]
    result = type(planted_run)(agreed, planted_run.runs, planted_run.commands, 0, False)
    assert result.exit_code(strict=False) == 0
    assert result.exit_code(strict=True) == 1


def _by_key(result):
    return {c.key: c for c in result.commands}


def test_json_document_has_the_fields_other_tools_read(planted_run):
    doc = json.loads(json.dumps(document(planted_run)))
    assert {"entries", "seed", "version"} <= set(doc)
    entry = doc["entries"][1]
    assert set(entry) >= {
        "id",
        "paper",
        "where",
        "statement",
        "kind",
        "status",
        "verdict",
        "expected",
        "agrees",
        "key_number",
        "checks",
        "command",
    }
    assert entry["verdict"] == "fail" and entry["agrees"] is False
    assert [c["id"] for c in entry["checks"]] == ["dp-forward", "dp-reverse"]
    assert all({"id", "verdict", "estimate", "ci", "note"} <= set(c) for c in entry["checks"])
    assert "--claim-delta 1e-6" in entry["command"] and "--seed 0" in entry["command"]


def test_entries_sharing_a_run_run_it_once_with_paper_findings_if_any_cites_them():
    chosen = [ledger.BY_ID[i] for i in ("RW-Thm22", "RW-Ex4", "K14")]
    commands = audit_commands(chosen, seed=3, quick=True)
    assert [c.key for c in commands] == ["run gaussian"]
    assert commands[0].paper_claims and commands[0].seed == 3 and commands[0].quick
    assert commands[0].command == "pdp-audit run gaussian --trials 20000 --seed 3 --paper-claims --report none --quiet"
    assert run_key(ledger.BY_ID["PDP-LemB.3"]) == "lemmas"
    adaptive = audit_commands([ledger.BY_ID["Q28"], ledger.BY_ID["RW-Thm11"]], seed=0, quick=False)
    assert [(c.key, c.options, c.paper_claims) for c in adaptive] == [
        ("run privacy-report --mode adaptive", {"mode": "adaptive"}, True)
    ]
    assert adaptive[0].command.startswith("pdp-audit run privacy-report --mode adaptive --seed 0 --paper-claims")


def test_a_lemma_entry_runs_just_the_checks_it_cites():
    """``claims --run --only RW-Lem24`` computes Sherman–Morrison–Woodbury alone, not all of the ledger's checks;
    entries sharing the lemma run cite the union of their checks, each computed once."""
    result = run_ledger([ledger.BY_ID["RW-Lem24"]], seed=0, quick=False, executor=SerialExecutor())
    run = result.runs["lemmas"]
    assert [c.id for c in (*run.checks, *run.findings)] == ["smw"] and result.decisions[0].verdict == "pass"
    (command,) = audit_commands([ledger.BY_ID["Q21"], ledger.BY_ID["RW-Lem24"]], seed=0, quick=False)
    assert command.checks == ("smw-printed", "smw", "tail-to-dp-two-sided")
    assert command.command == "pdp-audit claims --run --seed 0"


def test_not_run_entries_keep_their_status():
    entry = next(e for e in ledger.ENTRIES if e.status == "not simulable")
    decision = decide(entry, {}, {}, quick=False)
    assert decision.verdict == "not-simulable" and decision.agrees is True and decision.reason


def test_cli_exit_codes_json_and_determinism(tmp_path, capsys):
    ids = ["PDP-LemB.2", "RW-Lem24", "LR-Lem15", "K35"]
    outputs = []
    for k in range(2):
        pdf, js = tmp_path / f"c{k}.pdf", tmp_path / f"c{k}.json"
        code = main(
            ["claims", "--run", "--only", *ids, "--workers", str(k + 1), "--report", str(pdf), "--json", str(js)]
        )
        assert code == 0  # every computed verdict agrees with the ledger
        outputs.append((pdf.read_bytes(), js.read_bytes()))
    assert outputs[0] == outputs[1]  # byte-identical whatever the number of workers
    doc = json.loads(outputs[0][1])
    assert {e["id"]: e["verdict"] for e in doc["entries"]} == {
        "PDP-LemB.2": "fail",
        "RW-Lem24": "pass",
        "LR-Lem15": "fail",
        "K35": "fail",
    }
    assert main(["claims", "--run", "--only", "RW-Lem24", "--strict", "--report", "none", "--json", "-"]) == 0
    assert main(["claims", "--run", "--only", "PDP-LemB.2", "--strict", "--report", "none", "--json", "-"]) == 1
    capsys.readouterr()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["claims", "--run", "--only", "K999"], "--only: unknown claim id 'K999'"),
        (["claims", "--quick"], "--quick needs --run"),
        (["claims", "--run", "--only", "K1", "--paper", "LR"], "--only: none of the given ids"),
    ],
)
def test_bad_usage_is_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


# --- the lemma checks against independent computations -------------------------------------------------------


def test_every_lemma_check_an_entry_cites_exists():
    cited = {c for e in ledger.ENTRIES if e.audit == "lemmas" for c in e.checks}
    assert cited <= set(lemmas.CHECKS)


def test_identity_check_fails_a_wrong_identity():
    wrong = [("a 2×2 instance", lambda: (mpmath.matrix([[1, 0], [0, 1]]), mpmath.matrix([[1, 0], [0, 2]])))]
    assert not exact.identity(wrong, "").holds
    right = [("a 2×2 instance", lambda: (mpmath.matrix([[1, 0], [0, 2]]), mpmath.matrix([[1, 0], [0, 2]])))]
    assert exact.identity(right, "").holds


def test_two_sided_lemma_counterexample_by_hand():
    # p = (0.999, 0.001), p' = (0.5, 0.5), t = 1: P_p(|L| > 1) = 0.001, yet P_p'(o2) − e·P_p(o2) = 0.497
    p, q, t = np.array([0.999, 0.001]), np.array([0.5, 0.5]), 1.0
    loss = np.log(p / q)
    assert p[np.abs(loss) > t].sum() == pytest.approx(0.001)
    assert np.clip(q - math.e * p, 0, None).sum() == pytest.approx(0.5 - math.e * 0.001)
    assert privacy_loss.tail_to_dp_two_sided.decide(np.random.default_rng(0)).verdict == "fail"


def test_lemma6_failure_probability_at_d1_by_mpmath():
    # d = 1: ‖Eθ‖²_A = a e²θ² with e ~ N(0, w²); P(e²/w² > log(2/ρ)) at ρ = 0.05 exceeds ρ
    with mpmath.workdps(30):
        exact = mpmath.erfc(mpmath.sqrt(mpmath.log(40) / 2))
    assert float(exact) == pytest.approx(0.0548, abs=1e-4)
    evidence = tails.lemma6_constant.decide()
    assert evidence.verdict == "fail"
    assert evidence.details["failure_probabilities"][1] == pytest.approx(float(exact), rel=1e-12)


def test_lemma8_numeric_threshold_is_one_over_e_at_d1():
    L = np.array([1 - 1e-6, 1.0, 1 + 1e-6])
    lhs, rhs = 1 + 2 * np.sqrt(L) + 2 * L, 5 * L
    assert lhs[0] > rhs[0] and lhs[1] == pytest.approx(rhs[1]) and lhs[2] < rhs[2]


def test_json_follows_the_published_schema(planted_run):
    import jsonschema
    from referencing import Registry, Resource

    from pdp_audit.reports.json_report import run_schema

    claims = json.loads(Path(pdp_audit.reports.__file__).with_name("schema").joinpath("claims.schema.json").read_text())
    registry = Registry().with_resource(run_schema()["$id"], Resource.from_contents(run_schema()))
    validator = jsonschema.Draft202012Validator(claims, registry=registry)
    validator.validate(json.loads(json.dumps(document(planted_run))))
    broken = json.loads(json.dumps(document(planted_run)))
    broken["entries"][0]["agrees"] = "yes"
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(broken)


# seed 0's lemma entries are run by the findings test below; both seeds in the slow run
@pytest.mark.parametrize("seed", [pytest.param(s, marks=pytest.mark.slow) for s in (0, 1)])
def test_every_lemma_entry_agrees_with_the_ledger_whatever_the_seed(seed):
    chosen = [e for e in ledger.ENTRIES if e.audit == "lemmas"]
    result = run_ledger(chosen, seed=seed, quick=False, executor=SerialExecutor())
    assert [d.entry.id for d in result.disagreements()] == []
    assert {d.verdict for d in result.decisions} == {"pass", "fail"}
    computed = {c.id: c.verdict for d in result.decisions for c in d.checks}
    for d in result.decisions:  # every verdict a finding quotes (its field) is today's
        quoted = {c: v for c, v in d.entry.quoted.items() if c in computed}
        assert quoted == {c: computed[c] for c in quoted}, d.entry.id


@pytest.mark.tier2
def test_lemma_findings_quote_the_numbers_of_the_seed_0_run():
    """The numbers the lemma findings quote from random instances (their fields) are today's seed-0 run's, each
    check on its own stream."""
    checks = (
        "k3-assumption-d",
        "q14-n-over-d",
        "q49-excess-risk-norm",
        "rem11-pdp",
        "lemma12-sensitivity",
        "q51-printed-unbiased",
    )
    run = {e.spec.id: e for e in lemmas.evidence(0, checks)}
    k3, rows = ledger.BY_ID["K3"].values, {row[0]: row for row in run["k3-assumption-d"].details["rows"]}
    for d in (2, 5, 10):
        assert k3[f"count_d{d}"] == rows[d][2] and k3[f"lower_d{d}"] == float(format(rows[d][4], ".2g")), d
    assert ledger.BY_ID["Q14"].values["largest_ratio"] == round(run["q14-n-over-d"].estimate, 2)
    assert ledger.BY_ID["Q49"].values["norm_error"] == round(run["q49-excess-risk-norm"].estimate)
    rem11 = ledger.BY_ID["LR-Rem11"].values
    assert (
        rem11["excess"] == round(run["rem11-pdp"].estimate, 3) and rem11["pairs"] == run["rem11-pdp"].details["pairs"]
    )
    assert ledger.BY_ID["LR-Lem12"].values["pairs"] == run["lemma12-sensitivity"].details["pairs"]
    assert ledger.BY_ID["Q51"].values["difference"] == round(run["q51-printed-unbiased"].estimate)


def test_fact25_as_printed_has_an_exact_counterexample():
    evidence = privacy_loss.fact25_printed_min.decide()
    assert evidence.verdict == "fail"
    p, q = np.array(evidence.details["counterexample"]["p"]), np.array(evidence.details["counterexample"]["p'"])
    eps, delta = evidence.details["counterexample"]["epsilon"], evidence.details["counterexample"]["delta"]
    assert (
        np.clip(p - math.exp(eps) * q, 0, None).sum() <= delta
        and np.clip(q - math.exp(eps) * p, 0, None).sum() <= delta
    )
    assert p[1] >= delta / eps and q[1] == 0  # an event likely enough under D, impossible under D'


# --------------------------------------------------------------------------------------------------
# Entries decided by a sweep: rate checks read off fitted exponents (src/pdp_audit/ledger/rates.py)
# --------------------------------------------------------------------------------------------------
K6_SPEC = "examples/pdp-k6.toml"


def _planted_rate(monkeypatch, claimed: float) -> Entry:
    """A planted rate statement on K6's sweep: the worst ε found grows like n^claimed (relation '=')."""
    from pdp_audit.ledger import rates

    rate = dataclasses.replace(rates.RATES["k6-dp-constant"], id="k901-planted", claimed=claimed, relation="=")
    monkeypatch.setitem(rates.RATES, rate.id, rate)
    return Entry(
        id="K901",
        paper="PDP",
        where="planted",
        statement=f"OPS with γ = 1, λ = √(n/d) has a worst-case ε growing like n^{claimed:g}.",
        kind="inequality/bound",
        status="checked",
        audit="sweep",
        checks=(rate.id,),
        specs=(K6_SPEC,),
        expected="pass",
    )


@pytest.fixture(scope="module")
def sweep_run():
    """K6 (a sweep-decided entry) and a planted false rate on the same spec, at --quick (its 7-cell sub-grid)."""
    started = []
    executor = SerialExecutor()
    run = executor.run

    def counting(tasks):
        started.extend(t.cell_id for t in tasks)
        return run(tasks)

    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(executor, "run", counting)
        false_rate = _planted_rate(monkeypatch, claimed=1.0)  # the truth is about −0.05: far from n^1
        result = run_ledger([ledger.BY_ID["K6"], false_rate], seed=0, quick=True, executor=executor)
    return result, started


@pytest.mark.tier2
def test_sweep_entry_is_decided_by_its_rate_and_each_spec_runs_once(sweep_run):
    from pdp_audit.ledger import rates

    result, started = sweep_run
    k6, planted = result.decisions
    assert k6.verdict == "pass" and k6.agrees is True
    (check,) = k6.checks
    assert check.id == "k6-dp-constant" and check.exact == 0.0 and check.ci[0] <= check.estimate <= check.ci[1]
    assert check.level == rates.LEVEL and "R² =" in check.note and len(check.details["points"]) == 7
    assert k6.command == f"pdp-audit sweep {K6_SPEC}"
    # both entries read the same spec: its 7 quick cells ran once, as tasks of the ledger's executor
    assert len(started) == len(set(started)) == 7 and all(t.startswith(f"sweep {K6_SPEC}#") for t in started)
    assert result.commands[0].command == f"pdp-audit sweep {K6_SPEC}"


def test_a_planted_false_rate_fails(sweep_run):
    result, _ = sweep_run
    planted = result.decisions[1]
    (check,) = planted.checks
    assert planted.verdict == "fail" and planted.agrees is False and not check.ci[0] <= 1.0 <= check.ci[1]
    assert result.exit_code(strict=False) == 1


def test_sweep_entries_json_follows_the_published_schema(sweep_run):
    import jsonschema
    from referencing import Registry, Resource

    from pdp_audit.reports.json_report import run_schema

    claims = json.loads(Path(pdp_audit.reports.__file__).with_name("schema").joinpath("claims.schema.json").read_text())
    registry = Registry().with_resource(run_schema()["$id"], Resource.from_contents(run_schema()))
    doc = json.loads(json.dumps(document(sweep_run[0])))
    jsonschema.Draft202012Validator(claims, registry=registry).validate(doc)
    assert doc["audits"] == {f"sweep {K6_SPEC}": f"pdp-audit sweep {K6_SPEC}"}
    assert doc["entries"][0]["checks"][0]["details"]["spec"] == K6_SPEC


def test_upper_bound_rate_fails_only_above_the_interval():
    from pdp_audit.ledger import rates

    run = rates.sweep_run(K6_SPEC, seed=0, quick=True)
    for i, cell in enumerate(run.cells):  # a worst ε growing exactly like n^0.5 (no noise: a zero-width interval)
        run.results[cell.cell_id] = {
            "checks": [],
            "parameters": {"n_rows": 10 ** (3 + i), "dp_epsilon_worst_found": 10 ** (1.5 + i / 2)},
        }
    base = rates.RATES["k6-dp-constant"]
    assert rates.rate_check(base, run).verdict == "fail"  # claimed O(n⁰), grows like n^0.5
    assert rates.rate_check(dataclasses.replace(base, claimed=1.0), run).verdict == "pass"  # O(n) holds
    assert rates.rate_check(dataclasses.replace(base, claimed=1.0, relation="="), run).verdict == "fail"


def test_a_spec_not_run_at_quick_leaves_its_entries_undecided():
    result = run_ledger([ledger.BY_ID["K21"]], seed=0, quick=True, executor=SerialExecutor())
    (decision,) = result.decisions
    assert decision.verdict == "inconclusive" and decision.agrees is None
    assert all("not run at --quick" in c.note for c in decision.checks)


def test_every_sweep_entry_cites_known_rates_and_their_specs():
    from pdp_audit.ledger import rates
    from pdp_audit.sweeps.spec import load_spec

    chosen = [e for e in ledger.ENTRIES if e.audit == "sweep"]
    assert {e.id for e in chosen} >= {"K4", "K6", "K21"}
    for e in chosen:
        assert e.specs == tuple(rates.specs_of(e.checks)), e.id
        assert e.command == " && ".join(f"pdp-audit sweep {spec}" for spec in e.specs), e.id
    for spec in {r.spec for r in rates.RATES.values()}:
        assert load_spec(rates.shipped_spec(spec)).cells, spec
    for spec, grid in rates.QUICK.items():
        assert grid is None or rates.sweep_run(spec, 0, quick=True).cells, spec
