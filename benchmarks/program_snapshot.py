"""A regression snapshot of the program audit's exact analyses: one JSON line per (program, seed), diffed after a
change.

    python benchmarks/program_snapshot.py --out snapshot.jsonl [--seeds 0 1] [--only NAME ...]
    python benchmarks/program_snapshot.py --check benchmarks/program_snapshot.jsonl

Each line holds the program's name, the seed, and every exact check's verdict and note (``program-record``,
``program-structure``, ``program-composition``: the witness pair, its draw set, its steps and their composition, in
the words page 1 prints) -- what the audit decides before any black box, which runs nothing here (``confirm=None``:
no releases are drawn, so the lines are exact and byte-identical run to run, on any machine with the same numpy).
The programs are the rehearsal series of tests/test_program_series.py (every bug and twin, with its options), the
dp-recorder classes of benchmarks/dp_recorder_programs.py (their D), and the examples `pdp-audit examples` ships.
``--check FILE`` runs the same analyses and prints each line that differs from FILE's (exit 1 where any does): a
change to the audit that moves a verdict, a witness or a composition shows here, and the changelog says why.
Programs whose library is not installed are left out (named on stderr).  A program that calls a library no seed
reaches (OpenDP, PyDP: its record says "Not reproducible run to run") keeps each check's verdict and the record's
note only: its witness and numbers are those of the draws each run records anew.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path
from typing import Any, Callable, Iterator

import pandas as pd

HERE = Path(__file__).resolve().parent
#: The record's words for a program that calls a library no seed reaches (audits/program/decision.py)
UNSEEDED = "Not reproducible run to run"
sys.path[:0] = [str(HERE.parent), str(HERE)]


def _series() -> Iterator[tuple[str, Callable, Any, dict]]:
    from tests import test_program_series as series

    for param in [*series.BUGS, *series.TWINS]:
        program, data, options = param.values[:3]
        needs = [m for m in param.marks if m.name == "skipif" and m.args and m.args[0]]
        if needs:
            print(f"left out: {param.id} ({needs[0].kwargs.get('reason')})", file=sys.stderr)
            continue
        yield f"series/{param.id}", program, data, dict(options)


def _dp_recorder() -> Iterator[tuple[str, Callable, Any, dict]]:
    import dp_recorder_peers as peers
    import dp_recorder_programs as programs

    for case in peers.CASES:
        options = {"neighbours": case.neighbours, "bounds": case.bounds, "law": "ideal" if case.correct else None}
        data = pd.DataFrame({"value": case.data})
        yield f"dp-recorder/{case.program}", getattr(programs, case.program), data, options


#: The examples' modules (`pdp-audit examples`), each with its data and declared bounds (as the guide runs them).
EXAMPLES = {
    "program_sum": ("program-values.csv", "0,1"),
    "program_budget": ("program-values.csv", "0,1"),
    "program_mean": ("program-values.csv", "0,1"),
    "program_branch": ("program-values.csv", "0,1"),
    "program_scores": ("program-values.csv", "0,2"),
    "program_histogram": ("program-labels.csv", None),
}


def _examples() -> Iterator[tuple[str, Callable, Any, dict]]:
    import importlib
    import inspect

    folder = HERE.parent / "examples"
    sys.path.insert(0, str(folder))
    for module_name, (csv, bounds) in EXAMPLES.items():
        module = importlib.import_module(module_name)
        data = pd.read_csv(folder / csv)
        for name, program in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("_") or program.__module__ != module_name:
                continue
            law = "ideal" if name.startswith(("fixed", "noisy_max")) else None
            yield f"examples/{module_name}:{name}", program, data, {"bounds": bounds, "law": law}


SOURCES = {"series": _series, "dp-recorder": _dp_recorder, "examples": _examples}


def analysed(name: str, program: Callable, data: Any, options: dict, seed: int) -> dict:
    """The exact checks of one program at ``seed`` (no black box), as one JSON-ready line."""
    from pdp_audit.audits.program.audit import run_program
    from pdp_audit.catalogue.kinds import kinds_by_name

    options = {k: v for k, v in options.items() if v is not None and k != "trials"}
    delta = options.pop("delta", 0.0)
    values = {"claim_epsilon": 1.0, "claim_delta": delta, "seed": seed, **options}
    plan = kinds_by_name()["program"].plan
    config = plan.configure(values, None, (program, data))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the libraries' own warnings (bounds taken from the data)
        try:
            run = run_program(config, confirm=None)
        except Exception as err:  # a program the audit refuses: its one line is the snapshot's
            return {"program": name, "seed": seed, "error": f"{type(err).__name__}: {err}"}
    checks = [{"id": c.id, "verdict": c.verdict, "note": c.note} for c in run.checks]
    if any(UNSEEDED in c.note for c in run.checks if c.id == "program-record"):
        # a library no seed reaches (OpenDP, PyDP): its draws, and the witness and numbers read from them, are this
        # run's -- the line keeps what every run gives (each check's verdict, the record's note)
        checks = [c if c["id"] == "program-record" else {"id": c["id"], "verdict": c["verdict"]} for c in checks]
    return {"program": name, "seed": seed, "checks": checks}


def lines(seeds: list[int], only: list[str]) -> Iterator[dict]:
    for source in SOURCES.values():
        for name, program, data, options in source():
            if only and not any(o in name for o in only):
                continue
            for seed in seeds:
                yield analysed(name, program, data, options, seed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="write the snapshot here (JSON lines)")
    parser.add_argument("--check", help="compare with this snapshot: exit 1 where a line differs")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--only", nargs="*", default=[], help="programs whose name holds one of these")
    args = parser.parse_args()
    if args.check:
        kept = {(d["program"], d["seed"]): d for d in map(json.loads, Path(args.check).read_text().splitlines())}
        differ = 0
        for line in lines(args.seeds, args.only):
            before = kept.get((line["program"], line["seed"]))
            if before != line:
                differ += 1
                print(json.dumps({"program": line["program"], "seed": line["seed"], "before": before, "now": line}))
        print(f"{differ} line(s) differ", file=sys.stderr)
        return 1 if differ else 0
    out = open(args.out, "w") if args.out else sys.stdout
    with out:
        for line in lines(args.seeds, args.only):
            print(json.dumps(line, ensure_ascii=False), file=out, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
