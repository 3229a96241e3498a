"""dp-recorder's bug classes, audited by ``pdp-audit program`` undecorated and by dp-recorder as its tests do.

dp-recorder (github.com/ObliviousAI/dp-recorder; Cebere, Erb, Desfontaines, Bellet & Fitzsimons, "Privacy in Theory,
Bugs in Practice: Grey-Box Auditing of Differential Privacy Libraries", PETS 2026, arXiv:2602.17454) is a peer used
for comparison only: it is not on PyPI, and it is installed from its repository into an environment of its own,
never into the package's dependencies or tests::

    git clone https://github.com/ObliviousAI/dp-recorder /work/dpr-src
    python3.11 -m venv /work/venv-dpr && /work/venv-dpr/bin/pip install /work/dpr-src pytest
    PDP_AUDIT_DPR_PYTHON=/work/venv-dpr/bin/python PDP_AUDIT_DPR_SOURCE=/work/dpr-src \\
        python benchmarks/dp_recorder_peers.py --markdown benchmarks/dp_recorder_peers.md

For each case of :data:`CASES` (the programs are :mod:`dp_recorder_programs`: a test's program with its decorations
taken away, or its fix):

* ``ours``: ``pdp-audit program dp_recorder_programs:NAME`` on the test's dataset D (a CSV of the column ``value``),
  with no pair given (it searches D's neighbours itself), the claim ε = 1, δ = 0, the test's neighbour relation
  and the records' domain (``--bounds``), ``--trials`` releases, seed 0; a bug at the default law
  (``as-implemented``), a fix at ``--law ideal`` (its float noise is not certified as implemented, exit 3).  Its
  exit code, verdict, the first refuting check's witness and the whole command's wall seconds (start-up included).
* ``dpr_test``: dp-recorder's own test of that class, run as it ships (its decorated primitive, its
  ``ensure_equality`` calls, its hand-made neighbour D′), timed; ``found``: the test passed, i.e. dp-recorder
  raised the violation the test expects (for ``test_correct_mechanism``: raised nothing).
* ``dpr_program``: dp-recorder on the same program ``ours`` audits, with only its primitive decorated
  (``audit_spec`` on :func:`dp_recorder_programs.laplace`) and no ``ensure_equality``, on the test's pair: record
  on D, replay on D′, ``validate_records``; and for the budget cases its statistical mode
  (``run_distributional_audit(n_samples=10000, alpha=0.95)``, ε at δ = 1e-5 against the claim), as the test does.
  ``found``: it raised or estimated ε above the claim.

Without dp-recorder (no interpreter at ``PDP_AUDIT_DPR_PYTHON``, or no ``dp_recorder`` in it, or no checkout at
``PDP_AUDIT_DPR_SOURCE``) the dp-recorder fields are null and one line on stderr says why; ours still run.

One JSON line per case: "benchmark", "case", "program", "correct", "test", "neighbours", "bounds", "data", "pair",
"needs" (what dp-recorder needs from its user for this class), "ours" {"exit", "verdict", "check", "witness" (the
first refuting check's), "witnesses" (each refuting check's), "seconds", "law"}, "dpr_test" and "dpr_program"
{"found", "message", "seconds"} or null, "trials", "machine", "cores", "load_1min_before", "load_1min", "date".
``--peer`` is the dp-recorder side (run by its interpreter; prints one JSON line per case)."""

from __future__ import annotations

import argparse
import contextlib
import csv
import datetime
import importlib
import io
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
DPR_PYTHON = os.environ.get("PDP_AUDIT_DPR_PYTHON", "/work/venv-dpr/bin/python")
DPR_SOURCE = os.environ.get("PDP_AUDIT_DPR_SOURCE", "/work/dpr-src")
CLAIM_EPSILON = 1.0
DPR_DELTA = 1e-5  # the δ dp-recorder's test reads its estimated ε at


@dataclass(frozen=True)
class Case:
    """One program with dp-recorder's test of its class: ``data`` is the test's D, ``pair`` its D′."""

    name: str
    program: str
    correct: bool
    test: str  # dp-recorder's tests/FILE.py::FUNCTION of this class, "" for a fix
    neighbours: str
    bounds: str
    data: tuple[float, ...]
    pair: tuple[float, ...]
    needs: str
    statistical: bool = False  # dp-recorder decides it by its statistical mode


_DECORATOR = "`audit_spec` on the primitive"
_MEAN = ((0.5, 0.5, 0.5), (0.5, 0.5))
_CLASSES = ((0.0, 1.0, 2.0, 0.0), (0.0, 1.0, 0.0))
_TWICE = (tuple([0.0] * 100), tuple([0.0] * 100 + [1.0]))
_NAN = ((1.0, 2.0), (1.0, float("nan")))
_ZERO = ((1.0, 1.0), (1.0,))
_RAW = ((1.0, -2.0, 3.0), (1.0, -2.0, 100.0))
_COUNT = ((0.0, 1.0, 1.0, 0.0), (0.0, 1.0, 0.0))
_PAIR_NEEDS = "the pair D, D′ (a removed record)"

CASES: tuple[Case, ...] = (
    Case(
        "size as public",
        "size_as_public",
        False,
        "test_buggy_private_mean.py::test_invariant_violation",
        "add-remove",
        "-1,1",
        *_MEAN,
        f"{_DECORATOR}, `ensure_equality(n=n)`, {_PAIR_NEEDS}",
    ),
    Case(
        "size as public, fixed",
        "size_as_public_fixed",
        True,
        "",
        "add-remove",
        "-1,1",
        *_MEAN,
        f"{_DECORATOR}, {_PAIR_NEEDS}",
    ),
    Case(
        "size as public, fixed (ratio)",
        "size_as_public_ratio",
        True,
        "",
        "add-remove",
        "-1,1",
        *_MEAN,
        f"{_DECORATOR}, {_PAIR_NEEDS}",
    ),
    Case(
        "domain from data",
        "domain_from_data",
        False,
        "test_domain_inference.py::test_domain_inference_bug",
        "add-remove",
        "value={0,1,2}",
        *_CLASSES,
        f"{_DECORATOR}, `ensure_equality(num_classes=…)`, the pair D, D′ (the rare class removed)",
    ),
    Case(
        "domain from data, fixed",
        "domain_from_data_fixed",
        True,
        "",
        "add-remove",
        "value={0,1,2}",
        *_CLASSES,
        f"{_DECORATOR}, {_PAIR_NEEDS}",
    ),
    Case(
        "budget spent twice",
        "spent_twice",
        False,
        "test_double_spending.py::test_accounting_bug",
        "add-remove",
        "0,1",
        *_TWICE,
        f"{_DECORATOR}, the pair D, D′ (an added record), its statistical mode",
        statistical=True,
    ),
    Case(
        "budget spent twice, fixed",
        "spent_twice_fixed",
        True,
        "",
        "add-remove",
        "0,1",
        *_TWICE,
        f"{_DECORATOR}, the pair, its statistical mode",
        statistical=True,
    ),
    Case(
        "NaN through clip",
        "nan_through_clip",
        False,
        "test_nan_injection.py::test_nan_injection_bug",
        "replace-one",
        "-5,5",
        *_NAN,
        f"{_DECORATOR}, the pair D, D′ (a record replaced by NaN)",
    ),
    Case(
        "NaN mapped, sensitivity of add/remove",
        "clipped_sum_add_remove_scale",
        False,
        "",
        "replace-one",
        "-5,5",
        *_NAN,
        f"{_DECORATOR}, a pair D, D′ whose record moves by more than 5",
    ),
    Case(
        "NaN through clip, fixed",
        "nan_through_clip_fixed",
        True,
        "",
        "replace-one",
        "-5,5",
        *_NAN,
        f"{_DECORATOR}, the pair",
    ),
    Case(
        "sensitivity 0",
        "zero_sensitivity",
        False,
        "test_noise_miscalibration.py::test_noise_miscalibration_bug",
        "add-remove",
        "0,1",
        *_ZERO,
        f"{_DECORATOR}, {_PAIR_NEEDS}",
    ),
    Case(
        "sensitivity 0, fixed",
        "zero_sensitivity_fixed",
        True,
        "",
        "add-remove",
        "0,1",
        *_ZERO,
        f"{_DECORATOR}, {_PAIR_NEEDS}",
    ),
    Case(
        "raw sum",
        "raw_sum",
        False,
        "test_sensitivity_miscalibration.py::test_sensitivity_bug",
        "replace-one",
        "-5,5",
        *_RAW,
        f"{_DECORATOR}, the pair D, D′ (a record replaced by an outlier)",
    ),
    Case("raw sum, fixed", "raw_sum_fixed", True, "", "replace-one", "-5,5", *_RAW, f"{_DECORATOR}, the pair"),
    Case(
        "count (correct)",
        "count_ones",
        True,
        "test_correct_mechanism.py::test_correct_count_mechanism",
        "add-remove",
        "0,1",
        *_COUNT,
        f"{_DECORATOR}, {_PAIR_NEEDS}",
    ),
)


# ---- ours ----


def ours(case: Case, trials: int, workdir: Path) -> dict:
    """``pdp-audit program`` on the undecorated program: exit code, verdict, witness, wall seconds."""
    data = workdir / f"{case.program}.csv"
    with data.open("w", newline="") as f:
        csv.writer(f).writerows([["value"], *[[v] for v in case.data]])
    out = workdir / f"{case.program}.json"
    law = ["--law", "ideal"] if case.correct else []
    command = [
        str(Path(sys.executable).parent / "pdp-audit"),
        "program",
        f"dp_recorder_programs:{case.program}",
        "--data",
        str(data),
        "--bounds",
        case.bounds,
        "--neighbours",
        case.neighbours,
        "--claim-epsilon",
        str(CLAIM_EPSILON),
        "--claim-delta",
        "0",
        "--trials",
        str(trials),
        "--seed",
        "0",
        "--report",
        "none",
        "--json",
        str(out),
        *law,
    ]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=workdir)
    seconds = time.perf_counter() - start
    result = {
        "exit": done.returncode,
        "seconds": round(seconds, 2),
        "law": "ideal" if case.correct else "as-implemented",
    }
    if not out.exists():
        return {**result, "verdict": None, "check": None, "witness": None, "error": done.stderr.strip()[-300:]}
    report = json.loads(out.read_text(encoding="utf-8"))
    failed = [c for c in report["checks"] if c["verdict"] == "fail"]
    witnesses = {c["id"]: (c.get("details") or {}).get("witness") for c in failed}
    first = next(iter(witnesses), None)
    return {
        **result,
        "verdict": report["verdict"],
        "check": first,
        "witness": witnesses.get(first),
        "witnesses": witnesses,
    }


def peer_lines() -> tuple[dict[str, dict], str]:
    """dp-recorder's results by case, from its interpreter; empty with the reason when it cannot run."""
    if not Path(DPR_PYTHON).exists():
        return {}, f"no interpreter at {DPR_PYTHON} (PDP_AUDIT_DPR_PYTHON)"
    if not (Path(DPR_SOURCE) / "tests").is_dir():
        return {}, f"no dp-recorder checkout with tests/ at {DPR_SOURCE} (PDP_AUDIT_DPR_SOURCE)"
    done = subprocess.run([DPR_PYTHON, __file__, "--peer"], capture_output=True, text=True)
    if done.returncode != 0:
        return {}, f"dp-recorder's run failed: {done.stderr.strip().splitlines()[-1:]}"
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {line["case"]: line for line in lines}, ""


# ---- dp-recorder's side (run by its interpreter) ----


def _timed(run) -> dict:
    """``run()`` timed; found: it raised an AssertionError (dp-recorder's way of reporting), or it returned
    ``(True, message)``."""
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            found, message = run()
    except AssertionError as error:
        found, message = True, str(error).strip().splitlines()[0][:160] if str(error).strip() else "AssertionError"
    return {"found": found, "message": message, "seconds": round(time.perf_counter() - start, 3)}


def _dpr_test(case: Case) -> dict | None:
    """dp-recorder's own test, as it ships: found = the test passed (for the correct count: it raised nothing)."""
    if not case.test:
        return None
    file, function = case.test.split("::")
    module = importlib.import_module(file.removesuffix(".py"))

    def run() -> tuple[bool, str]:
        try:
            getattr(module, function)()
        except BaseException as error:  # noqa: BLE001 -- a test's failure is pytest's Failed or an AssertionError
            return case.correct, f"the test failed: {type(error).__name__}"  # on a correct program: a false alarm
        return not case.correct, "the test passed"

    return _timed(run)


def _dpr_program(case: Case) -> dict:
    """dp-recorder on our program, its primitive decorated and nothing else, on the test's pair."""
    import numpy as np  # the peer's interpreter
    import pandas as pd
    from dp_recorder.auditing.audit_primitives import Auditor, audit_spec
    from laplace_mechanism import dist_l1  # dp-recorder's tests' metric

    programs = importlib.import_module("dp_recorder_programs")
    plain = getattr(programs, "_plain_laplace", programs.laplace)
    programs._plain_laplace = plain
    programs.laplace = audit_spec(kind="Laplace", input_arg="values", sensitivity_arg="sensitivity", metric_fn=dist_l1)(
        plain
    )
    program = getattr(programs, case.program)

    def run() -> tuple[bool, str]:
        np.random.seed(0)
        auditor = Auditor()
        with auditor:
            program(pd.DataFrame({"value": case.data}), None)
        auditor.set_replay()
        with auditor:
            program(pd.DataFrame({"value": case.pair}), None)
        auditor.validate_records()
        if case.statistical:
            auditor.run_distributional_audit(n_samples=10000, alpha=0.95)
            auditor.compute_overall_pld()
            estimate = auditor.get_overall_current_guarantee(delta=DPR_DELTA)
            return estimate > CLAIM_EPSILON, f"estimated ε = {estimate:.3g} at δ = {DPR_DELTA:g}"
        return False, "validate_records passed"

    return _timed(run)


def peer_main() -> None:
    sys.path[:0] = [str(Path(DPR_SOURCE) / "tests"), str(HERE)]
    for case in CASES:
        print(json.dumps({"case": case.name, "dpr_test": _dpr_test(case), "dpr_program": _dpr_program(case)}))


# ---- the table ----


def _found(found: bool, correct: bool) -> str:
    """A dp-recorder outcome in words: a violation reported on a bug is found, on a correct program a false alarm."""
    if correct:
        return "refuted (false alarm)" if found else "not refuted"
    return "found" if found else "missed"


def markdown(rows: list[dict], command: str) -> str:
    loads = sorted(r["load_1min"] for r in rows)
    head = (
        f"Measured {rows[0]['date']} on `{rows[0]['machine']}` ({rows[0]['cores']} cores, shared with other work: "
        f"1-minute load {loads[0]:g} to {loads[-1]:g} over the cases): `{command}`. Seconds are wall-clock: ours the "
        "whole command, start-up included; dp-recorder's the test's call in a warm process.\n\n"
        "| case | correct | `pdp-audit program` (no pair, no decorator): exit, witness | seconds "
        "| dp-recorder's test | seconds | dp-recorder, primitive decorated only | dp-recorder needs |\n"
        "|---|---|---|---|---|---|---|---|\n"
    )
    body = []
    for r in rows:
        o = r["ours"]
        found = "; ".join(f"{check.removeprefix('program-')}: {w}" for check, w in o["witnesses"].items() if w)
        witness = f"{o['exit']}: {found}" if found else f"{o['exit']} ({o['verdict']})"
        test, program = r["dpr_test"], r["dpr_program"]
        test_cell = "—" if test is None else _found(test["found"], r["correct"])
        test_seconds = "" if test is None else f"{test['seconds']:g}"
        prog_cell = "—" if program is None else _found(program["found"], r["correct"])
        body.append(
            f"| {r['case']} (`{r['program']}`) | {'yes' if r['correct'] else 'no'} | {witness} | {o['seconds']:g} "
            f"| {test_cell} | {test_seconds} | {prog_cell} | {r['needs']} |"
        )
    return head + "\n".join(body) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2000, help="pdp-audit's --trials (default 2000)")
    parser.add_argument("--cases", nargs="*", default=None, help="program names (default: all)")
    parser.add_argument("--markdown", default=None, help="also write the table (Markdown) to this file")
    parser.add_argument("--peer", action="store_true", help="dp-recorder's side (run by its interpreter)")
    parser.add_argument("--table-from", default=None, help="write --markdown from this file's JSON lines, no run")
    args = parser.parse_args()
    if args.peer:
        peer_main()
        return
    if args.table_from:
        lines = Path(args.table_from).read_text(encoding="utf-8").splitlines()
        rows = [json.loads(line) for line in lines if line.startswith("{")]
        command = "python benchmarks/dp_recorder_peers.py --markdown benchmarks/dp_recorder_peers.md"
        Path(args.markdown).write_text(markdown(rows, command), encoding="utf-8")
        return
    peers, why = peer_lines()
    if why:
        print(f"skipped dp-recorder: {why}", file=sys.stderr)
    cases = [c for c in CASES if args.cases is None or c.program in args.cases]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            before = os.getloadavg()[0]
            result = ours(case, args.trials, Path(tmp))
            peer = peers.get(case.name, {})
            row = {
                "benchmark": "dp_recorder_peers",
                **{k: v for k, v in asdict(case).items() if k != "name"},
                "case": case.name,
                "ours": result,
                "dpr_test": peer.get("dpr_test"),
                "dpr_program": peer.get("dpr_program"),
                "trials": args.trials,
                "machine": platform.node(),
                "cores": os.cpu_count(),
                "load_1min_before": round(before, 2),
                "load_1min": round(os.getloadavg()[0], 2),
                "date": datetime.date.today().isoformat(),
            }
            print(json.dumps(row), flush=True)
            rows.append(row)
    if args.markdown and rows:
        command = " ".join(["python", "benchmarks/dp_recorder_peers.py", *sys.argv[1:]])
        Path(args.markdown).write_text(markdown(rows, command), encoding="utf-8")


if __name__ == "__main__":
    main()
