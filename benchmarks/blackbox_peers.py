"""The black-box audit on DP-Sniper's and StatDP's benchmark: our ε lower bounds beside theirs.

The 20 mechanisms, their input pairs and the peers' published bounds are in :mod:`peer_mechanisms` (benchmark code,
written from the definitions).  For each mechanism, :func:`pdp_audit.audits.blackbox.attack.blackbox_attack` learns its
test
and bounds ε (pure DP, δ = 0) on fresh releases; the one run gives the bound at confidence 0.9 (the peers' level)
and at α = 1e-6 (the audit's default).  The budgets are the audit's own defaults unless ``--trials`` /
``--train-trials`` say otherwise (:mod:`pdp_audit.audits.blackbox.defaults`), so the table is what a user's
``pdp-audit blackbox`` run does.  Each mechanism runs in a fresh Python process: its ``seconds`` (wall clock, the
attack alone) and ``peak_mb`` (the process's peak resident memory, imports included) are not shared with the others.
Prints one JSON line per mechanism::

    {"benchmark": "blackbox_peers", "mechanism", "correct", "claimed_epsilon", "exact_epsilon", "proved_epsilon",
     "bound_conf_0.9", "bound_alpha_1e-6", "refuted_at_1e-6", "dpsniper": {"logistic", "mlp"}, "statdp": [run 1,
     run 2], "dpsniper_samples": {"train", "bound"}, "statdp_samples": {...}, "train_per_world",
     "select_per_world", "bound_per_world", "releases_per_world", "share_of_dpsniper", "statistic_option",
     "statistic", "validation", "events", "ratio_to_dpsniper", "seconds", "peak_mb"}

``releases_per_world`` counts every release the run drew of one world (training, the event test's selection pass,
the fresh ones), and ``share_of_dpsniper`` is it over DP-Sniper's 10.7e6 + 2e8.  ``statistic`` is the statistic
kept, ``validation`` its competitors' predicted bounds at confidence 0.9; ``exact_epsilon`` the pair's privacy loss
where known (∞ where an output is impossible under one world), null otherwise; ``ratio_to_dpsniper`` our bound at
0.9 over DP-Sniper's better published bound.  A bound above ``exact_epsilon`` (or ``proved_epsilon``) would be
invalid.

The bounds are of the papers' real-valued laws (``--law ideal``, this benchmark's default, as the peers' published
bounds are).  As implemented (``--law as-implemented``, the audit's default), every peer that releases floats is
refuted, the correct ones too: its doubles carry its input (Mironov, CCS 2012), a correct refutation of the float
program; the integer-releasing peers read the same under both laws.

``--cli`` times the command a user runs instead, for the incorrect variants (the issue's "refuted within the default
budget in two minutes on 2 cores"): ``pdp-audit blackbox peer_mechanisms:from_environment --claim-epsilon C
--claim-delta 0`` at its defaults, from a fresh process; one JSON line each with the exit code (1: refuted), the
bound, the wall-clock seconds of the whole command (start-up included) and its peak resident memory (the command and
the child it runs the mechanism in).

    python benchmarks/blackbox_peers.py --quick                 # 1e4 per world, a few mechanisms (development)
    python benchmarks/blackbox_peers.py --markdown benchmarks/blackbox_peers.md   # the table of the docs (~30 min)
    python benchmarks/blackbox_peers.py --cli --markdown benchmarks/blackbox_peers_cli.md   # the nine, timed
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from peer_mechanisms import DPSNIPER_SAMPLES, PEERS, STATDP_SAMPLES, Peer  # noqa: E402

from pdp_audit.audits.blackbox.defaults import DEFAULT_STATISTIC, DEFAULT_TRIALS, STATISTICS  # noqa: E402

QUICK = ("Laplace", "NoisyHist2", "ReportNoisyMax3", "SVT4", "OneTimeRappor")
BY_NAME = {p.name: p for p in PEERS}


def _finite(x: float | None):
    """JSON has no ∞: an infinite ε is written as the string "inf"."""
    return "inf" if x == float("inf") else x


def _events(attack) -> list | None:
    """The event test's events and their fresh counts (None for the other statistics)."""
    if not hasattr(attack, "events"):
        return None
    return [
        {"favours": "D" if e.favours_d else "D'", "threshold": e.threshold, "hits_d": kd, "hits_dprime": kdp}
        for e, kd, kdp in zip(attack.events, attack.hits_d, attack.hits_dp)
    ]


def _peak_mb() -> float:
    """This process's peak resident memory (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_one(peer: Peer, trials: int | None, train_trials: int | None, seed: int, workers: int, statistic: tuple):
    """Our bounds for one mechanism, with the peers' published ones beside them (run in this process); ``statistic``
    = (the statistic, the law)."""
    statistic, law = statistic
    from pdp_audit.audits.blackbox.attack import AttackOptions, blackbox_attack
    from pdp_audit.audits.blackbox.events import selection_size
    from pdp_audit.verify.core.processes import executor_for

    trials = DEFAULT_TRIALS if trials is None else trials
    start = time.perf_counter()
    with executor_for(workers) as executor:
        result = blackbox_attack(
            peer.pair.sample_world("D"),
            peer.pair.sample_world("D'"),
            trials,
            0.0,
            seed,
            train_trials=train_trials,
            options=AttackOptions(statistic, executor, law=law),
        )
    seconds = time.perf_counter() - start
    at_09, at_1e6 = result.epsilon_lower_bound_at(0.1), result.epsilon_lower_bound_at(1e-6)
    best_peer = max(peer.dpsniper.values())
    events = statistic.startswith("events")
    selected = selection_size(trials) if events else 0
    drawn = result.train_per_world + selected + result.test_per_world
    return {
        "benchmark": "blackbox_peers",
        "mechanism": peer.name,
        "correct": peer.correct,
        "claimed_epsilon": peer.claimed_epsilon,
        "exact_epsilon": _finite(peer.exact_epsilon),
        "proved_epsilon": peer.proved_epsilon,
        "bound_conf_0.9": round(at_09, 5),
        "bound_alpha_1e-6": round(at_1e6, 5),
        "refuted_at_1e-6": at_1e6 > peer.claimed_epsilon,
        "dpsniper": peer.dpsniper,
        "statdp": list(peer.statdp) or None,
        "dpsniper_samples": DPSNIPER_SAMPLES,
        "statdp_samples": STATDP_SAMPLES if peer.statdp else None,
        "train_per_world": result.train_per_world,
        "select_per_world": selected,
        "bound_per_world": result.test_per_world,
        "releases_per_world": drawn,
        "share_of_dpsniper": round(drawn / sum(DPSNIPER_SAMPLES.values()), 4),
        "statistic_option": statistic,
        "law": law,
        "statistic": result.statistic,
        "validation": {name: round(bound, 4) for name, bound in result.validation} or None,
        "events": _events(result.attack),
        "ratio_to_dpsniper": round(at_09 / best_peer, 3),
        "seconds": round(seconds, 1),
        "peak_mb": round(_peak_mb()),
    }


def run_cli(peer: Peer, seed: int) -> dict:
    """``pdp-audit blackbox`` on the mechanism at its defaults, as a user runs it: exit code, bound, seconds, memory."""
    command = [
        sys.executable, "-m", "pdp_audit.cli", "blackbox", "peer_mechanisms:from_environment",
        "--claim-epsilon", repr(peer.claimed_epsilon), "--claim-delta", "0", "--seed", str(seed), "--json", "-",
    ]  # fmt: skip
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, cwd=HERE, env={**os.environ, "PDP_PEER": peer.name}, stdout=out, stderr=err)
        # wait4: the command's own peak resident memory, or that of the child it ran the mechanism in if larger
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0), err.seek(0)
        document, message = out.read(), err.read().decode(errors="replace").strip().splitlines()
    check = json.loads(document)["check"] if process.returncode in (1, 3) else {}
    return {
        "benchmark": "blackbox_peers_cli",
        "mechanism": peer.name,
        "claimed_epsilon": peer.claimed_epsilon,
        "exit_code": process.returncode,
        "refuted": process.returncode == 1,
        "bound_alpha_1e-6": check.get("ci", [None])[0],
        "seconds": round(seconds, 1),
        "peak_mb": round(usage.ru_maxrss / 1024),
        "stderr": message[-1] if message else None,
    }


def _child(args) -> int:
    """Run one mechanism in this process and print its row (the parent starts one process per mechanism)."""
    statistic = (args.statistic, args.law)
    row = run_one(BY_NAME[args.child], args.trials, args.train_trials, args.seed, args.workers, statistic)
    print(json.dumps(row, ensure_ascii=False), flush=True)
    return 0


def _in_a_fresh_process(name: str, argv: list[str]) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", name, *argv], stdout=subprocess.PIPE, check=True)
    return json.loads(out.stdout.decode().strip().splitlines()[-1])


def _number(x, digits: int = 4) -> str:
    return "–" if x is None else ("∞" if x in ("inf", float("inf")) else f"{x:.{digits}g}")


def _seconds(s: float) -> str:
    return f"{s:.1f}" if s < 10 else f"{s:.0f}"


def markdown_table(rows: list[dict], command: str) -> str:
    """The bounds table of the docs, with the line that says how it was made."""
    head = (
        "| mechanism | claim ε | exact ε (pair) | ours, conf 0.9 | ours, α = 1e-6 | refuted at 1e-6 | DP-Sniper "
        "(LR / MLP) | StatDP (2 runs) | ours / DP-Sniper | statistic kept | s | peak MB |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    body = ""
    for r in rows:
        exact = _number(r["exact_epsilon"]) if r["exact_epsilon"] is not None else f"≤ {_number(r['proved_epsilon'])}"
        name = r["mechanism"] + ("" if r["correct"] else " (incorrect)")
        statdp = " / ".join(_number(x) for x in r["statdp"]) if r["statdp"] else "–"
        body += (
            f"| {name} | {_number(r['claimed_epsilon'])} | {exact} | {_number(r['bound_conf_0.9'])} | "
            f"{_number(r['bound_alpha_1e-6'])} | {'yes' if r['refuted_at_1e-6'] else 'no'} | "
            f"{_number(r['dpsniper']['logistic'])} / {_number(r['dpsniper']['mlp'])} | {statdp} | "
            f"{r['ratio_to_dpsniper']:.2f} | {r['statistic']} | {_seconds(r['seconds'])} | {r['peak_mb']} |\n"
        )
    near = sum(r["ratio_to_dpsniper"] >= 0.9 for r in rows)
    incorrect = [r for r in rows if not r["correct"]]
    refuted = sum(r["refuted_at_1e-6"] for r in incorrect)
    invalid = [r["mechanism"] for r in rows if _above_exact(r)]
    drawn = max(r["releases_per_world"] for r in rows)
    theirs = sum(DPSNIPER_SAMPLES.values())
    return (
        f"{head}{body}\n"
        f"Made by `{command}` on {date.today().isoformat()} (seed {rows[0].get('seed', 0)}; one process per "
        f"mechanism, on the machine's 2 cores). At most {drawn:,} releases per world in all (training "
        f"{rows[0]['train_per_world']:,}, selection {rows[0]['select_per_world']:,}, fresh "
        f"{rows[0]['bound_per_world']:,}): 1/{theirs / drawn:.1f} of DP-Sniper's {theirs:,}. "
        f"At confidence 0.9 the bound reaches ≥ 0.9× DP-Sniper's published one on **{near} of {len(rows)}**; at "
        f"α = 10⁻⁶ it refutes **{refuted} of {len(incorrect)}** incorrect variants; bounds at α = 10⁻⁶ above the "
        f"exact or proved ε: {', '.join(invalid) if invalid else 'none'}.\n"
    )


def _above_exact(row: dict) -> bool:
    """A bound at 0.9 above the pair's exact ε or the mechanism's proved one (what a valid bound may be with
    probability ≤ 0.1; at α = 1e-6 never)."""
    limit = row["exact_epsilon"] if isinstance(row["exact_epsilon"], float) else row["proved_epsilon"]
    return limit is not None and row["bound_alpha_1e-6"] > limit


def markdown_cli(rows: list[dict], command: str) -> str:
    """The table of the incorrect variants through the command line."""
    body = "".join(
        f"| {r['mechanism']} | {_number(r['claimed_epsilon'])} | {r['exit_code']} | {_number(r['bound_alpha_1e-6'])} "
        f"| {_seconds(r['seconds'])} |\n"
        for r in rows
    )
    slowest = max(r["seconds"] for r in rows)
    return (
        "| incorrect variant | claim ε | exit code | ε bound at α = 1e-6 | seconds (whole command) |\n"
        f"|---|---|---|---|---|\n{body}\n"
        f"Made by `{command}` on {date.today().isoformat()}: `pdp-audit blackbox` at its defaults, one after the "
        f"other on the machine's 2 cores; {sum(r['refuted'] for r in rows)} of {len(rows)} refuted (exit 1), the "
        f"slowest in {slowest:.0f} s.\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=None, help="fresh releases per world (default: the audit's)")
    parser.add_argument("--train-trials", type=int, default=None, help="releases per world to learn from")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--statistic", choices=STATISTICS, default=DEFAULT_STATISTIC)
    parser.add_argument(
        "--law",
        choices=("ideal", "as-implemented"),
        default="ideal",
        help="ideal (default): the papers' real-valued laws, as their published bounds are; as-implemented: the "
        "float programs, which the default event test refutes for every float-releasing peer (porous doubles)",
    )
    parser.add_argument("--only", nargs="*", default=None, help="mechanism names (default all 20)")
    parser.add_argument("--quick", action="store_true", help=f"1e4 per world on {', '.join(QUICK)}")
    parser.add_argument("--cli", action="store_true", help="time `pdp-audit blackbox` on the incorrect variants")
    parser.add_argument("--markdown", default=None, help="also write the table (Markdown) to this file")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return _child(args)
    names = QUICK if args.quick else args.only
    chosen = [p for p in PEERS if (names is None or p.name in names) and not (args.cli and p.correct)]
    command = "python benchmarks/blackbox_peers.py " + " ".join(sys.argv[1:] if argv is None else argv)
    rows = []
    for peer in chosen:
        if args.cli:
            row = run_cli(peer, args.seed)
        else:
            passed = ["--seed", str(args.seed), "--workers", str(args.workers), "--statistic", args.statistic]
            passed += ["--law", args.law]
            trials = 10_000 if args.quick else args.trials
            passed += ["--trials", str(trials)] if trials else []
            passed += ["--train-trials", str(args.train_trials)] if args.train_trials else []
            row = {**_in_a_fresh_process(peer.name, passed), "seed": args.seed}
        rows.append(row)
        print(json.dumps(row, ensure_ascii=False), flush=True)
    if args.markdown:
        table = markdown_cli(rows, command.strip()) if args.cli else markdown_table(rows, command.strip())
        Path(args.markdown).write_text(table, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
