"""The benchmarks' records behind docs/benchmarks.md's speed table: each JSON line a benchmark prints, kept with what
it was measured on, in ``benchmarks/results.jsonl``.

``--record NAME …`` runs each benchmark of :data:`RUNS` as a process (its script and the arguments recorded with it)
and keeps every JSON line it prints, one record each: the benchmark's line unchanged (``output``), the command,
the machine (CPU model, cores, architecture, Python), the 1-minute load average before and after the run, the date
(UTC) and the commit.  A new run of a benchmark replaces all of that benchmark's earlier records; ``--record all``
runs every one (the long ones included).  ``--import NAME FILE`` keeps a benchmark's own saved output instead (a
run on another interpreter, jax-privacy's ``canary_peers``): the machine and load its lines state, the date and
commit of the file's last commit.  ``--write-docs`` rewrites every span

    <!-- results: TABLE -->…<!-- /results -->

of ``docs/benchmarks.md`` from the records (TABLE: ``speed``, the rows of issue 44 with their floors, ratios and
targets; ``runs``, each run's command, machine, load, date and commit), so no number of those tables is typed by hand;
``tests/test_benchmark_results.py`` fails when the page and the records disagree.

    python benchmarks/results.py --list
    python benchmarks/results.py --record all --write-docs          # re-record every row, then the page
    python benchmarks/results.py --record startup canary-speed --write-docs
    python benchmarks/results.py --write-docs                       # the page from the records as they are
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "benchmarks" / "results.jsonl"
PAGE = ROOT / "docs" / "benchmarks.md"
SPAN = re.compile(r"<!-- results: ([a-z-]+) -->(.*?)<!-- /results -->", re.S)


@dataclass(frozen=True)
class Run:
    """One benchmark as it is recorded: ``python benchmarks/SCRIPT ARGS``; ``python``: another interpreter (an
    environment of its own, for a peer library), used when it exists; ``long``: more than a few minutes."""

    name: str
    script: str
    args: tuple[str, ...] = ()
    long: bool = False
    python: str | None = None

    def command(self) -> str:
        return " ".join(("python", f"benchmarks/{self.script}", *self.args))


RUNS: tuple[Run, ...] = (
    Run("startup", "startup.py", ("--runs", "9")),
    Run("canary-speed", "canary_speed.py"),
    Run(
        "canary-peers",
        "canary_peers.py",
        long=True,
        python=os.environ.get("PDP_AUDIT_JAX_PYTHON", "/work/venv-jax/bin/python"),
    ),
    Run("certify-big-data", "certify_big_data.py", long=True),
    Run("blackbox-throughput", "blackbox_throughput.py", long=True),
    Run("gaussian", "bench_gaussian.py"),
    Run("sweep-small", "bench_sweep.py", ("--small", "2e3")),
    Run("privacy-report", "bench_privacy_report.py"),
    Run("pdf-report", "pdf_report.py", ("--runs", "5")),
    Run("program", "bench_program.py"),
    Run("suite", "durations.py", ("--only", "test-suite"), long=True),
)
RUN_NAMES = tuple(r.name for r in RUNS)


# ---- recording ----


def cpu_model() -> str:
    """The CPU's model name as the kernel reports it (``platform.processor()`` where there is no /proc)."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine() -> dict:
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "arch": platform.machine(),
        "python": platform.python_version(),
    }


def commit() -> str:
    """HEAD's hash, with ``+changes`` when tracked files other than the records and the page differ from it."""
    out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True)
    if out.returncode != 0:
        return "unknown"
    status = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True
    ).stdout.splitlines()
    ours = {str(RECORDS.relative_to(ROOT)), str(PAGE.relative_to(ROOT))}
    changed = [line for line in status if line[3:] not in ours]
    return out.stdout.strip() + ("+changes" if changed else "")


def json_lines(text: str) -> list[dict]:
    """The JSON objects among ``text``'s lines (a benchmark may print other lines too)."""
    found = []
    for line in text.splitlines():
        if line.startswith("{"):
            try:
                found.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return found


def record(run: Run) -> list[dict]:
    """Run ``run`` and wrap each JSON line it prints; nothing when its interpreter is missing or it skipped."""
    python = run.python if run.python and Path(run.python).exists() else sys.executable
    if run.python and python == sys.executable:
        print(f"skipped {run.name}: no interpreter at {run.python}", file=sys.stderr)
        return []
    load_before, measured = round(os.getloadavg()[0], 2), commit()  # the code as the run starts
    out = subprocess.run(
        [python, str(ROOT / "benchmarks" / run.script), *run.args],
        cwd=ROOT,
        text=True,
        stdout=subprocess.PIPE,
        check=False,
    )
    lines = [line for line in json_lines(out.stdout) if "skipped" not in line]
    if out.returncode != 0 or not lines:
        print(f"{run.name}: exit {out.returncode}, {len(lines)} JSON lines: not recorded", file=sys.stderr)
        return []
    where = {
        "run": run.name,
        "command": run.command(),
        "machine": machine(),
        "load_1min": [load_before, round(os.getloadavg()[0], 2)],
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": measured,
    }
    return [{**where, "output": line} for line in lines]


def imported(run: Run, path: Path) -> list[dict]:
    """A benchmark's own saved JSON lines: machine and load as the lines state them, date and commit the file's."""
    log = subprocess.run(
        ["git", "-C", str(ROOT), "log", "-1", "--format=%h %cs", "--", str(path)], capture_output=True, text=True
    ).stdout.split()
    found = json_lines(path.read_text(encoding="utf-8"))
    records = []
    for line in found:
        host = {"cpu": f"unstated ({line.get('machine', 'machine unnamed')})", "cores": line.get("cores")}
        load = line.get("load_1min")
        records.append(
            {
                "run": run.name,
                "command": run.command(),
                "machine": host,
                "load_1min": [load, load],
                "date": log[1] if log else "unknown",
                "commit": log[0] if log else "unknown",
                "imported": str(path.relative_to(ROOT)),
                "output": line,
            }
        )
    return records


def load_records(path: Path = RECORDS) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def save_records(records: list[dict], path: Path = RECORDS) -> None:
    ordered = sorted(records, key=lambda r: RUN_NAMES.index(r["run"]))  # stable: a run's lines keep their order
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ordered), encoding="utf-8")


def replaced(records: list[dict], name: str, new: list[dict]) -> list[dict]:
    return [r for r in records if r["run"] != name] + new if new else records


# ---- rendering ----


def _s(seconds: float) -> str:
    """Seconds as the table shows them: three significant digits."""
    return f"{float(f'{seconds:.3g}'):g} s"


def _x(ratio: float | None) -> str:
    return "—" if ratio is None else f"{float(f'{ratio:.3g}'):g}×"


def _n(count: float) -> str:
    """A size as the docs write it: ``1e4``, ``2.5e5``, ``30``."""
    if count < 1000:
        return f"{count:g}"
    mantissa, exponent = f"{count:.2g}".split("e")
    return f"{float(mantissa):g}e{int(exponent)}"


def _rate(per_s: float) -> str:
    """A rate with three significant digits: ``1.99e7/s``, ``924/s``."""
    mantissa, _, exponent = f"{per_s:.3g}".partition("e")
    return f"{mantissa}e{int(exponent)}/s" if exponent else f"{mantissa}/s"


def _met(ok: bool | None) -> str:
    return "—" if ok is None else ("yes" if ok else "**no**")


#: one row: what, measured, against (the floor or peer, same run), ratio, target, met
Row = tuple[str, str, str, str, str, str]


def startup_rows(line: dict) -> list[Row]:
    floor = f'`python -c "{line["floor"]}"` {_s(line["floor_median_s"])}'
    return [
        (
            f"`{line['command']}`",
            _s(line["median_s"]),
            floor,
            _x(line["ratio"]),
            f"≤ {_x(line['target_ratio'])}",
            _met(line["ratio"] <= line["target_ratio"]),
        )
    ]


def canary_speed_rows(line: dict) -> list[Row]:
    size = f"n = {_n(line['n_a_side'])} a side" if "n_a_side" in line else f"m = {_n(line['m'])}"
    if "delta" in line:
        size += f", δ = {line['delta']:g}"
    floors = [k[len("floor_") : -2] for k in line if k.startswith("floor_") and k.endswith("_s")]
    against = "; ".join(f"{name} {_s(line[f'floor_{name}_s'])}" for name in floors)
    ratio = "; ".join(_x(line[f"ratio_to_{name}"]) for name in floors)
    target, met = "", None
    if line["case"] == "canary" and line.get("n_a_side") == 10_000:
        target, met = "≤ 0.2 s", line["seconds"] <= 0.2
    return [(f"{line['case']}, {size}", _s(line["seconds"]), against, ratio, target, _met(met))]


def canary_peers_rows(line: dict) -> list[Row]:
    if line["case"] == "canary":
        return [
            (
                f"`audit_canary_scores`, n = {_n(line['n'])} a side",
                _s(line["ours_s"]),
                f"jax-privacy `epsilon_clopper_pearson` {_s(line['jax_s'])}",
                _x(line["time_ratio"]),
                "≤ 1.5× at 1e6" if line["n"] >= 1_000_000 else "",
                _met(line["time_ratio"] <= 1.5) if line["n"] >= 1_000_000 else "—",
            )
        ]
    target = line["m"] == 100_000
    return [
        (
            f"`audit_one_run`, m = {_n(line['m'])} (its (ε, δ) bound alone: {_x(line['time_ratio_bound'])})",
            _s(line["ours_audit_s"]),
            f"jax-privacy `epsilon_one_run` {_s(line['jax_s'])}",
            _x(line["time_ratio_audit"]),
            "≤ 1×" if target else "",
            _met(line["time_ratio_audit"] <= 1) if target else "—",
        )
    ]


def certify_rows(line: dict) -> list[Row]:
    what = f"`certify`, {_n(line['rows'])} × {line['columns']} CSV ({line['csv_mb']:g} MB), exit {line['exit_code']}"
    return [
        (
            what + ": wall",
            _s(line["certify_s"]),
            f"pandas `read_csv` {_s(line['read_csv_s'])}",
            _x(line["wall_ratio"]),
            f"≤ {_x(line['target_wall_ratio'])}",
            _met(line["wall_ratio"] <= line["target_wall_ratio"]),
        ),
        (
            what + ": peak memory",
            f"{line['certify_peak_mb']} MB",
            f"pandas `read_csv` {line['read_csv_peak_mb']} MB",
            _x(line["rss_ratio"]),
            f"≤ {_x(line['target_rss_ratio'])}",
            _met(line["rss_ratio"] <= line["target_rss_ratio"]),
        ),
    ]


def blackbox_rows(line: dict) -> list[Row]:
    cpu = line["releases_per_s_over_floor_cpu"]
    warm = f" (a warm-up audit of {_n(line['audit_warm_up_trials'])} first)" if "audit_warm_up_trials" in line else ""
    size = _n(line["releases_per_world"])
    return [
        (
            f"black box at its defaults, {line['mechanism']}, {size} releases a world{warm}: releases/s per CPU second"
            f" (wall: {_x(line['releases_per_s_over_floor_wall'])})",
            f"{_s(line['audit_cpu_s'])} CPU",
            f"the raw sampler {_s(line['floor_cpu_s'])} CPU",
            _x(cpu),
            "≥ 0.3×",
            _met(cpu >= 0.3),
        )
    ]


def gaussian_rows(line: dict) -> list[Row]:
    if line["benchmark"] == "gaussian_plv":
        return [
            (
                f"Gaussian loss samples/s (CPU ratio {_x(line['cpu_ratio'])})",
                _rate(line["samples_per_s"]),
                f"`rng.standard_normal` {_rate(line['rng_normals_per_s'])}",
                _x(line["ratio"]),
                f"≥ {_x(line['target_ratio'])}",
                _met(line["ratio"] >= line["target_ratio"]),
            )
        ]
    return [
        (
            "Gaussian loss samples, `--workers 2` against serial",
            _s(line["workers_2_s"]),
            f"serial {_s(line['serial_s'])}",
            f"speed-up {_x(line['speedup'])}",
            f"≥ {_x(line['target_speedup'])}",
            _met(line["speedup"] >= line["target_speedup"]),
        )
    ]


def sweep_rows(line: dict) -> list[Row]:
    what = f"the README's sweep (`{line['spec']}`, trials {line['trials']:g}), `--dask-local 2`"
    against = f"`--workers 2` {_s(line['t_local_2_s'])}; serial {_s(line['t_serial_s'])}"
    if "dask_overhead_per_cell" not in line:  # a record from before the rounds (best of the repeats, whole commands)
        return [
            (
                what,
                _s(line["t_dask_local_2_s"]),
                against,
                f"{line['dask_overhead']:+.0%} over `--workers 2`",
                f"≤ {line['target']:+.0%}",
                _met(line["dask_overhead"] <= line["target"]),
            )
        ]
    # medians of the rounds; the target is Dask's overhead a cell, its fixed start and close shown apart
    low, high = line["dask_overhead_per_cell_range"]
    ratio = (
        f"{line['dask_overhead_per_cell']:+.0%} a cell over `--workers 2` ({low:+.0%} to {high:+.0%} in "
        f"{line['repeats']} rounds; CPU {line['dask_cpu_overhead_per_cell']:+.0%}); whole command "
        f"{line['dask_overhead']:+.0%} (fixed: {_s(line['dask_fixed_s'])}, Dask's import, the cluster's start and "
        "close)"
    )
    met = _met(line["dask_overhead_per_cell"] <= line["target"]) if line["decided"] else "undecided"
    return [(what, _s(line["t_dask_local_2_s"]), against, ratio, f"≤ {line['target']:+.0%} a cell", met)]


def privacy_report_rows(line: dict) -> list[Row]:
    ratio = line["pipeline_over_baseline_time"]
    what = f"privacy report repetitions/s (n = {line['n']}, d = {line['d']})"
    against = f"the batched ObjPert solve alone {_rate(line['baseline_trials_per_s'])}"
    if "pipeline_over_baseline_time_range" not in line:  # a record from before the rounds (the fastest of each way)
        return [(what, _rate(line["trials_per_s_2cores"]), against, f"{_x(ratio)} slower", "≤ 3×", _met(ratio <= 3))]
    # medians of the rounds, each ratio taken within its round; the target is decided when every round agrees
    low, high = line["pipeline_over_baseline_time_range"]
    cpu_low, cpu_high = line["pipeline_over_baseline_cpu_range"]
    text = (
        f"{_x(ratio)} slower ({_x(low)} to {_x(high)} in {line['repeats']} rounds; CPU of one process "
        f"{_x(line['pipeline_over_baseline_cpu'])}, {_x(cpu_low)} to {_x(cpu_high)})"
    )
    met = _met(ratio <= line["target"]) if line["decided"] else "undecided"
    return [(what, _rate(line["trials_per_s_2cores"]), against, text, f"≤ {_x(line['target'])}", met)]


def pdf_report_rows(line: dict) -> list[Row]:
    """A run's PDF report against the same run without one: the CPU of fresh processes, the least disturbed of each."""
    return [
        (
            f"`{line['command']}`: CPU (its PDF's part {_s(line['pdf_cpu_s'])})",
            _s(line["cpu_s"]),
            f"the same run with `--report none` {_s(line['floor_cpu_s'])}",
            _x(line["ratio"]),
            "",
            "—",
        )
    ]


def program_rows(line: dict) -> list[Row]:
    """``audit_program``: a case's deterministic part (neighbours built, record, probe, replays, compositions)
    against the program runs it makes (its calls of the program, counted, each at the program's own run, the least
    of alternated runs), with the target ``bench_program`` states (its record at a commit, and a margin); or the
    whole audit, its confirmation included, against issue 63's time on 2 cores."""
    if "verdict" in line:  # the whole audit, once
        target = line["target_seconds"]
        return [
            (
                f"`audit_program` whole: {line['case'].removesuffix(', decided')}, {line['relation']}, "
                f"search {line['search']} "
                f"({line['proposed']} proposed, {line['pairs']} pairs), trials {_n(line['trials'])}, "
                f"verdict {line['verdict']}",
                _s(line["seconds"]) + (f" ({_s(line['cpu_seconds'])} CPU)" if "cpu_seconds" in line else ""),
                "",
                "",
                f"≤ {_s(target)} on 2 cores",
                _met(line["seconds"] <= target),
            )
        ]
    search = "named neighbours" if line["search"] == "named" else f"search {line['search']} ({line['candidates']})"
    ratio, target = line["over_program_calls"], line["target_over_program_calls"]
    return [
        (
            f"`audit_program`'s deterministic part over the program runs it makes: {line['case']}, "
            f"{line['relation']}, {search}, {line['pairs']} pairs, {line['calls_per_pair']:g} runs a pair (inside "
            f"them: {_x(line['inside_calls_over_program_calls'])}; the analysis a pair over one run: "
            f"{_x(line['per_pair_over_program'])}; one draw set: {line['one_draw_set_calls_per_pair']:g} runs a "
            f"pair, {_x(line['one_draw_set_over_program_calls'])})",
            f"{_s(line['analysis_seconds'] / line['pairs'])} a pair",
            f"the program's own run × its runs a pair: {_s(line['program_seconds'])} × {line['calls_per_pair']:g}",
            _x(ratio),
            f"≤ {_x(target)} ({line['target_margin']:g}× the record at {line['target_recorded_at']})",
            _met(ratio <= target),
        )
    ]


def suite_rows(line: dict) -> list[Row]:
    wall = line["wall_s"]
    tests = f", {line['tests']:,} tests" if "tests" in line else ""  # tier 1's tests (tests/tiers.py)
    return [
        (
            f"the README's test command, tier 1 (`{line['command']}`{tests}), exit {line['exit_code']}",
            f"{_s(wall)} wall, {_s(line['cpu_s'])} CPU",
            "",
            "",
            "≤ 300 s wall on 2 idle cores",
            _met(wall <= 300),
        )
    ]


ROWS: dict[str, Callable[[dict], list[Row]]] = {
    "startup": startup_rows,
    "canary_speed": canary_speed_rows,
    "canary_peers": canary_peers_rows,
    "certify_big_data": certify_rows,
    "blackbox_throughput": blackbox_rows,
    "gaussian_plv": gaussian_rows,
    "gaussian_plv_workers": gaussian_rows,
    "sweep_small_executors": sweep_rows,
    "privacy_report_pipeline": privacy_report_rows,
    "pdf_report": pdf_report_rows,
    "bench_program": program_rows,
}


def rows_of(record: dict) -> list[Row]:
    line = record["output"]
    if record["run"] == "suite":
        return suite_rows(line)
    return ROWS[line["benchmark"]](line) if line.get("benchmark") in ROWS else []


def speed_table(records: list[dict]) -> str:
    lines = ["| run | what | measured | against (same run) | ratio | target | met |", "|---|---|---|---|---|---|---|"]
    for run in RUNS:
        mine = [r for r in records if r["run"] == run.name]
        if not mine:
            lines.append(f"| {run.name} | not recorded: `python benchmarks/results.py --record {run.name}` | | | | | |")
        for r in mine:
            lines += [f"| {run.name} | " + " | ".join(cells) + " |" for cells in rows_of(r)]
    return "\n".join(lines)


def runs_table(records: list[dict]) -> str:
    lines = ["| run | command | machine | load (1 min, before → after) | date | commit |", "|---|---|---|---|---|---|"]
    for run in RUNS:
        mine = [r for r in records if r["run"] == run.name]
        if not mine:
            continue
        r = mine[0]
        host = f"{r['machine']['cpu']}, {r['machine']['cores']} cores"
        load = f"{r['load_1min'][0]} → {r['load_1min'][1]}"
        source = f" (imported from `{r['imported']}`)" if "imported" in r else ""
        lines.append(f"| {run.name} | `{r['command']}`{source} | {host} | {load} | {r['date']} | {r['commit']} |")
    return "\n".join(lines)


TABLES: dict[str, Callable[[list[dict]], str]] = {"speed": speed_table, "runs": runs_table}


def render(table: str, records: list[dict]) -> str:
    """A span's text: the table between blank lines (Markdown needs them around a table)."""
    return f"\n\n{TABLES[table](records)}\n\n"


def write_docs(records: list[dict], page: Path = PAGE) -> list[str]:
    """Rewrite every span of ``page`` from ``records``; the names of spans with no table."""
    unknown = []

    def replace(match: re.Match) -> str:
        if match.group(1) not in TABLES:
            unknown.append(match.group(1))
            return match.group(0)
        return f"<!-- results: {match.group(1)} -->{render(match.group(1), records)}<!-- /results -->"

    text = page.read_text(encoding="utf-8")
    new = SPAN.sub(replace, text)
    if new != text:
        page.write_text(new, encoding="utf-8")
    return unknown


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--record",
        nargs="+",
        metavar="NAME",
        choices=(*RUN_NAMES, "all"),
        help="run these benchmarks (all: every one) and keep their lines",
    )
    parser.add_argument(
        "--import",
        dest="imports",
        nargs=2,
        metavar=("NAME", "FILE"),
        help="keep the saved JSON lines of benchmark NAME from FILE",
    )
    parser.add_argument("--write-docs", action="store_true", help="rewrite docs/benchmarks.md's results spans")
    parser.add_argument("--list", action="store_true", help="name every benchmark and its command, and stop")
    args = parser.parse_args(argv)
    if args.list:
        for run in RUNS:
            print(f"{run.name:20} {'long' if run.long else '    '}  {run.command()}")
        return 0
    records = load_records()
    if args.imports:
        name, path = args.imports
        if name not in RUN_NAMES:
            parser.error(f"--import: no benchmark named {name!r} (see --list)")
        records = replaced(records, name, imported(next(r for r in RUNS if r.name == name), Path(path).resolve()))
        save_records(records)
    chosen = RUNS if args.record and "all" in args.record else [r for r in RUNS if r.name in (args.record or ())]
    # the suite first, on the commit as it is: a record written before it leaves the records and the page apart
    # until --write-docs, and tests/test_benchmark_results.py then fails inside the measured run
    chosen = sorted(chosen, key=lambda run: run.name != "suite")
    for run in chosen:
        new = record(run)
        for r in new:
            print(json.dumps(r, ensure_ascii=False), flush=True)
        records = replaced(load_records(), run.name, new)  # the file now: another run may have added records
        save_records(records)
    if args.write_docs:
        unknown = write_docs(records)
        if unknown:
            print(f"spans naming no table: {', '.join(unknown)}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
