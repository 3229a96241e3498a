"""The durations the README, the docs and the help texts state, measured: every one of them is a record here.

Each :class:`Measurement` is a whole command as a user runs it (in a fresh folder outside the checkout, after
``pdp-audit examples examples``), or one call timed in-process; running it appends one JSON line to
``benchmarks/durations.jsonl`` (replacing the record of the same name): its wall and CPU seconds (the command's
own and its children's), the exit code, and what they were measured on -- cores, the 1-minute load average when it
started, the date and the code's version.  ``--write-docs`` then rewrites every span

    <!-- measured: NAME [FIELD] -->text<!-- /measured -->

of the README and the docs from those records (FIELD: ``summary`` (default), ``wall``, ``cpu``, ``per_call``,
``date``, ``load_1min``, ``cores``, ``peak``: the command's peak resident memory, ``tests``: the tests a run of the
suite ran; a suite's summary names them and the commit), so a duration or a memory size in
the docs is a record's rendering, never typed by hand.  A
duration the product declares rather than measures (a time target) is a span ``<!-- seconds: pdp_audit.….NAME
-->text<!-- /seconds -->`` rendered from that constant; a size it declares, ``<!-- bytes: … -->``.
``tests/test_measured_durations.py`` fails on a duration outside such a span, on a span that disagrees with its
record, and on a help text that states a duration at all.

    python benchmarks/durations.py --list
    python benchmarks/durations.py [--only NAME ...] [--slow] [--write-docs]

Slow measurements (the test suite, the long sweeps, library tools) run only when named or with ``--slow``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "benchmarks" / "durations.jsonl"
#: the files whose durations are spans of this script's records (tests/test_measured_durations.py reads the same)
DOC_FILES = (
    "README.md",
    "docs/index.md",
    "docs/getting-started.md",
    "docs/development.md",
    "docs/how-to/*.md",
    "docs/benchmarks.md",
    "docs/explanation/mutants-and-false-alarms.md",
    "docs/reference/**/*.md",
)
SPAN = re.compile(r"<!-- measured: ([a-z0-9-]+)(?: ([a-z_]+))? -->(.*?)<!-- /measured -->", re.S)
#: the durations the product declares (time targets and thresholds, not measurements), in seconds: the only ones a
#: help text may state, and only as the constant's rendering (tests/test_measured_durations.py)
DECLARED = (
    "pdp_audit.audits.blackbox.time_budget.TIME_BUDGET_S",
    "pdp_audit.audits.blackbox.time_budget.PARALLEL_FROM_S",
)
#: a duration the product declares (a time target, not a measurement): rendered from the constant in seconds
CONSTANT = re.compile(r"<!-- seconds: ([\w.]+) -->(.*?)<!-- /seconds -->", re.S)
#: a size the product declares (what it budgets per item), rendered from the constant in bytes
BYTES_CONSTANT = re.compile(r"<!-- bytes: ([\w.]+) -->(.*?)<!-- /bytes -->", re.S)


@dataclass(frozen=True)
class Measurement:
    """One thing the docs time.  ``command``: argv run in the prepared folder (``{python}`` is this interpreter,
    ``{root}`` the checkout, for the test suite; ``files``: written into that folder first, name to text); or
    ``call``: a function returning seconds per call.  ``needs``:
    modules that must import (else the measurement is skipped, said so); ``slow``: run only when named or with
    ``--slow``; ``suite``: a run of the test suite, the selection it runs ("1" or "2", a tier of tests/tiers.py, or
    "slow"), whose record also holds how many tests it ran and a hash of the suite's files."""

    name: str
    what: str
    command: tuple[str, ...] = ()
    call: Callable[[], float] | None = None
    needs: tuple[str, ...] = ()
    slow: bool = False
    cwd_root: bool = False
    env: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    suite: str = ""


def _diffprivlib_randomise() -> float:
    """Seconds per ``randomise`` call of diffprivlib's Laplace mechanism (best of 5 runs of 2e4 calls)."""
    from diffprivlib.mechanisms import Laplace

    mechanism = Laplace(epsilon=1.0, sensitivity=1.0, random_state=0)
    return _best_per_call(lambda: mechanism.randomise(0.0), 20_000)


def _diffprivlib_tools_mean() -> float:
    """Seconds per ``tools.mean`` call on 50 values, the how-to's ToolPair (best of 5 runs of 500 calls)."""
    import numpy as np
    from diffprivlib import tools

    data = np.linspace(0.0, 1.0, 50)
    return _best_per_call(lambda: tools.mean(data, epsilon=1.0, bounds=(0, 1), random_state=0), 500)


def _diffprivlib_tools_histogram() -> float:
    """Seconds per ``tools.histogram`` call, the factory ``diffprivlib_tools.histogram``'s (best of 5 runs of 200)."""
    from pdp_audit.mechanisms.adapters import diffprivlib_tools

    pair = diffprivlib_tools.histogram()
    import numpy as np

    rng = np.random.default_rng(0)
    return _best_per_call(lambda: pair.sample("D", 1, rng), 200)


def _opendp_laplace() -> float:
    """Seconds per release of OpenDP's scalar Laplace measurement (best of 5 runs of 5e3 calls)."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    measurement = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
    return _best_per_call(lambda: measurement(0.0), 5_000)


def _opendp_laplace_vector() -> float:
    """Seconds per coordinate of OpenDP's Laplace measurement on a vector of 1,000 (best of 5 runs of 50 calls)."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    domain = dp.vector_domain(dp.atom_domain(T=float, nan=False), size=1000)
    measurement = dp.m.make_laplace(domain, dp.l1_distance(T=float), scale=1.0)
    return _best_per_call(lambda: measurement([0.0] * 1000), 50) / 1000


def _audit_once(pair_of: Callable[[], object]) -> float:
    """Seconds of one ``audit_pair(pair, 1.1, 1e-3)`` at 1e5 releases per world (the how-to's example)."""
    import pdp_audit

    pair = pair_of()
    return _best_per_call(lambda: pdp_audit.audit_pair(pair, 1.1, 1e-3, trials=100_000), 1, repeats=1)


def _audit_opendp_laplace() -> float:
    import opendp.prelude as dp

    from pdp_audit.mechanisms.adapters.opendp import MeasurementPair

    dp.enable_features("contrib")
    laplace = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
    return _audit_once(lambda: MeasurementPair(laplace, 0.0, 1.0))


def _audit_opendp_laplace_batched() -> float:
    import opendp.prelude as dp

    from pdp_audit.mechanisms.adapters.opendp import MeasurementPair

    dp.enable_features("contrib")
    laplace = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
    vector = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float), scale=1.0)
    return _audit_once(lambda: MeasurementPair(laplace, 0.0, 1.0, batched=vector))


def _audit_diffprivlib_laplace() -> float:
    from diffprivlib.mechanisms import Laplace

    from pdp_audit.mechanisms.adapters.diffprivlib import MechanismPair

    return _audit_once(lambda: MechanismPair(Laplace(epsilon=1.0, sensitivity=1.0), 0.0, 1.0))


def _best_per_call(fn: Callable[[], object], calls: int, repeats: int = 5) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) / calls)
    return best


CLI = ("{python}", "-m", "pdp_audit.cli")
#: a sampler costing next to nothing a release (a Laplace shifted by 2: it fails a (1, 1e-5) claim), for the black
#: box's memory at a large budget
CHEAP_SAMPLER = {
    "cheap.py": """class Shifted:
    def sample(self, world, size, rng):
        return rng.laplace(2.0 if world == "D" else 0.0, 1.0, size=(size, 1))


def make():
    return Shifted()
"""
}
#: the how-to's diffprivlib ``tools.mean`` on 50 values and its add/remove neighbour, as a black box's factory
DIFFPRIVLIB_MEAN = {
    "dp_mean.py": """import numpy as np
from diffprivlib import tools

from pdp_audit.mechanisms.adapters.diffprivlib import ToolPair


def make():
    data = np.linspace(0.0, 1.0, 50)
    return ToolPair(tools.mean, data, np.append(data, 1.0), epsilon=1.0, bounds=(0.0, 1.0))
"""
}
PLUGIN_EXAMPLE = (
    "{python}",
    "-m",
    "pytest",
    "-q",
    "-p",
    "no:cacheprovider",
    "-m",
    "audit",
    "examples/test_my_mechanism.py",
)
#: the README's test command (tests/tiers.py: its tier 1)
SUITE = ("{python}", "-m", "pytest", "-n", "auto")
BLACKBOX_CHEAP = (*CLI, "blackbox", "cheap:make", "--claim-epsilon", "1", "--claim-delta", "1e-5", "--report", "none")
MEASUREMENTS: tuple[Measurement, ...] = (
    Measurement(
        "run-gaussian", "the README's first command: the Gaussian audit at its defaults", (*CLI, "run", "gaussian")
    ),
    Measurement(
        "certify-gaussian",
        "Quickstart 1: certify examples/deploy-gaussian.toml",
        (*CLI, "certify", "examples/deploy-gaussian.toml"),
    ),
    Measurement(
        "sweep-small",
        "Quickstart 3: the 6-cell sweep with its report",
        (*CLI, "sweep", "examples/sweep-small.toml", "--report", "sweep-small.pdf"),
    ),
    Measurement("mutants-quick", "the mutant zoo at its quick budget", (*CLI, "mutants", "--quick")),
    Measurement(
        "audit-grid",
        "the plugin's grid of audits (examples/test_audit_grid.py)",
        (
            "{python}",
            "-m",
            "pytest",
            "-n",
            "auto",
            "-q",
            "-p",
            "no:cacheprovider",
            "-m",
            "audit",
            "--audit-report",
            "audit-grid",
            "examples/test_audit_grid.py",
        ),
    ),
    Measurement(
        "canaries-train",
        "the shipped DP-SGD example writing its canaries' scores",
        ("{python}", "-m", "pdp_audit.examples.canaries.train", "--out", "scores"),
    ),
    Measurement("mutants", "the mutant zoo at its default budget", (*CLI, "mutants"), slow=True),
    Measurement(
        "tau-exact-d100", "the exact τ of Algorithm 6's noise at d = 100", (*CLI, "tau", "--d", "100", "--rho", "1e-6")
    ),
    Measurement("run-dp-sgd", "the DP-SGD audit at its defaults", (*CLI, "run", "dp-sgd", "--report", "none")),
    Measurement(
        "dp-sgd-case-1-pass",
        "DP-SGD (1.1, 0.01, 1000), a claim 2% above the exact ε (issue 46)",
        (
            *CLI,
            "run",
            "dp-sgd",
            "--noise-multiplier",
            "1.1",
            "--sample-rate",
            "0.01",
            "--steps",
            "1000",
            "--claim-epsilon",
            "1.5498",
            "--claim-delta",
            "1e-5",
            "--report",
            "none",
        ),
    ),
    Measurement(
        "dp-sgd-case-1-fail",
        "DP-SGD (1.1, 0.01, 1000), a claim 5% below the exact ε",
        (
            *CLI,
            "run",
            "dp-sgd",
            "--noise-multiplier",
            "1.1",
            "--sample-rate",
            "0.01",
            "--steps",
            "1000",
            "--claim-epsilon",
            "1.4358",
            "--claim-delta",
            "1e-5",
            "--report",
            "none",
        ),
    ),
    Measurement(
        "dp-sgd-case-2-pass",
        "DP-SGD (0.8, 0.004, 1e4), a claim 2% above the exact ε",
        (
            *CLI,
            "run",
            "dp-sgd",
            "--noise-multiplier",
            "0.8",
            "--sample-rate",
            "0.004",
            "--steps",
            "10000",
            "--claim-epsilon",
            "3.6096",
            "--claim-delta",
            "1e-5",
            "--report",
            "none",
        ),
        slow=True,
    ),
    Measurement(
        "sweep-100-dask",
        "the 100-cell sweep on a local Dask cluster of 2 workers",
        (*CLI, "sweep", "examples/sweep-100.toml", "--dask-local", "2"),
        needs=("distributed",),
        slow=True,
    ),
    Measurement(
        "rw-figure-5",
        "[RW] Figure 5 as a sweep (50 cells)",
        (*CLI, "sweep", "examples/rw-figure-5.toml", "--report", "rw-figure-5.pdf"),
        slow=True,
    ),
    Measurement(
        "lr-figure-3",
        "[LR] Figure 3 as a sweep (9 values of n)",
        (*CLI, "sweep", "examples/lr-figure-3.toml", "--report", "lr-figure-3.pdf"),
        slow=True,
    ),
    Measurement(
        "plugin-peak-1e6",
        "the plugin's example tests at --audit-trials 1e6 (peak memory of pytest)",
        (*PLUGIN_EXAMPLE, "--audit-trials", "1e6"),
        slow=True,
    ),
    Measurement(
        "plugin-peak-1e7",
        "the plugin's example tests at --audit-trials 1e7 (peak memory of pytest)",
        (*PLUGIN_EXAMPLE, "--audit-trials", "1e7"),
        slow=True,
    ),
    Measurement(
        "blackbox-peak-1e6",
        "the black box on a cheap sampler at 1e6 releases a world (peak memory)",
        (*BLACKBOX_CHEAP, "--trials", "1e6"),
        files=CHEAP_SAMPLER,
        slow=True,
    ),
    Measurement(
        "blackbox-peak-1e7",
        "the black box on a cheap sampler at 1e7 releases a world (peak memory)",
        (*BLACKBOX_CHEAP, "--trials", "1e7"),
        files=CHEAP_SAMPLER,
        slow=True,
    ),
    Measurement(
        "blackbox-peak-1e8",
        "the black box on a cheap sampler at 1e8 releases a world (peak memory)",
        (*BLACKBOX_CHEAP, "--trials", "1e8"),
        files=CHEAP_SAMPLER,
        slow=True,
    ),
    Measurement(
        "blackbox-diffprivlib-mean",
        "the black box on diffprivlib's tools.mean at the default budget",
        (*CLI, "blackbox", "dp_mean:make", "--claim-epsilon", "1", "--claim-delta", "1e-5", "--report", "none"),
        files=DIFFPRIVLIB_MEAN,
        needs=("diffprivlib",),
        slow=True,
    ),
    # tier 2 before tier 1 (with --write-docs, each record is rendered as it is made): the run of tier 1, which
    # checks the pages against the records, then reads the pages rendered from tier 2's new record
    Measurement(
        "test-suite-tier2",
        "the suite's second tier in the checkout (the README names its command)",
        (*SUITE, "--tier", "2", "-q", "-p", "no:cacheprovider"),
        slow=True,
        cwd_root=True,
        suite="2",
    ),
    Measurement(
        "test-suite",
        "the README's test command in the checkout: tier 1 of the suite",
        (*SUITE, "-q", "-p", "no:cacheprovider"),
        slow=True,
        cwd_root=True,
        suite="1",
    ),
    Measurement(
        "test-suite-slow",
        "the slow audits of the suite in the checkout (--run-slow -m slow)",
        (*SUITE, "--run-slow", "-m", "slow", "-q", "-p", "no:cacheprovider"),
        slow=True,
        cwd_root=True,
        suite="slow",
    ),
    Measurement(
        "diffprivlib-randomise",
        "one diffprivlib Laplace randomise call",
        call=_diffprivlib_randomise,
        needs=("diffprivlib",),
    ),
    Measurement(
        "diffprivlib-tools-mean",
        "one diffprivlib tools.mean call on 50 values",
        call=_diffprivlib_tools_mean,
        needs=("diffprivlib",),
    ),
    Measurement(
        "diffprivlib-tools-histogram",
        "one release of the diffprivlib_tools.histogram factory's pair",
        call=_diffprivlib_tools_histogram,
        needs=("diffprivlib",),
    ),
    Measurement(
        "opendp-laplace", "one release of OpenDP's scalar Laplace measurement", call=_opendp_laplace, needs=("opendp",)
    ),
    Measurement(
        "opendp-laplace-vector",
        "one coordinate of OpenDP's Laplace measurement on a vector of 1,000",
        call=_opendp_laplace_vector,
        needs=("opendp",),
    ),
    Measurement(
        "audit-opendp-laplace",
        "audit_pair of the how-to's OpenDP Laplace pair at 1e5 per world",
        call=_audit_opendp_laplace,
        needs=("opendp",),
    ),
    Measurement(
        "audit-opendp-laplace-batched",
        "the same audit through the vectorised path (batched=)",
        call=_audit_opendp_laplace_batched,
        needs=("opendp",),
    ),
    Measurement(
        "audit-diffprivlib-laplace",
        "audit_pair of the how-to's diffprivlib Laplace pair at 1e5 per world",
        call=_audit_diffprivlib_laplace,
        needs=("diffprivlib",),
    ),
)


def code_version() -> str:
    out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True)
    return f"git {out.stdout.strip()}" if out.returncode == 0 else "commit unknown"


def machine() -> dict:
    return {
        "cores": os.cpu_count(),
        "load_1min": round(os.getloadavg()[0], 1),
        "arch": platform.machine(),
        "python": platform.python_version(),
    }


def run_command(m: Measurement, folder: Path) -> dict:
    """Wall and CPU seconds of ``m.command`` (its own and its children's CPU: resource usage of the children)."""
    argv = [part.format(python=sys.executable, root=ROOT) for part in m.command]
    for name, text in m.files.items():  # what the command needs beside the examples (a sampler's module)
        (folder / name).write_text(text, encoding="utf-8")
    counts = Path(tempfile.gettempdir()) / f"pdp-durations-{m.name}-{os.getpid()}.json"  # a suite's tests, by tier
    env = {**os.environ, **m.env, **({"PDP_AUDIT_TIER_COUNTS": str(counts)} if m.suite else {})}
    start = time.perf_counter()
    log = Path(tempfile.gettempdir()) / f"pdp-durations-{m.name}.log"  # what the command printed, for a look
    with open(log, "w", encoding="utf-8") as out:
        cwd = ROOT if m.cwd_root else folder
        process = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env)
        # wait4: this command's own usage, its reaped children's included (ru_maxrss: the largest of them, KiB)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    record = {
        "command": " ".join(m.command).replace("{python}", "python"),
        "wall_s": round(wall, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "exit_code": process.returncode,
        "peak_rss_mb": round(usage.ru_maxrss / 1024),
    }
    if m.suite:  # what the figure describes: the tests it ran (as its own collection counted them), the files
        record["tests"] = json.loads(counts.read_text(encoding="utf-8"))[m.suite]
        record["suite_sha256"] = suite_fingerprint()
        counts.unlink()
    return record


def suite_fingerprint(root: Path = ROOT) -> str:
    """SHA-256 over the suite's files (each ``tests/**/*.py``'s path and bytes, in order of path) and the pytest
    configuration in pyproject.toml: the suite a figure was measured on."""
    import hashlib

    digest = hashlib.sha256()
    for path in sorted((root / "tests").rglob("*.py")):
        digest.update(f"{path.relative_to(root).as_posix()}\0".encode())
        digest.update(path.read_bytes())
    digest.update((root / "pyproject.toml").read_bytes())
    return digest.hexdigest()


def measure(m: Measurement, folder: Path) -> dict | None:
    missing = [module for module in m.needs if not _imports(module)]
    if missing:
        print(f"skipped {m.name}: {', '.join(missing)} not installed", file=sys.stderr)
        return None
    record = {"name": m.name, "what": m.what, **machine()}
    record["date"] = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    if m.call is not None:
        record["per_call_s"] = float(f"{m.call():.3g}")
    else:
        record.update(run_command(m, folder))
    record["code_version"] = code_version()
    return record


def _imports(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def load_records(path: Path = RECORDS) -> dict[str, dict]:
    if not path.exists():
        return {}
    return {r["name"]: r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines()) if r}


def save_records(records: dict[str, dict], path: Path = RECORDS) -> None:
    lines = [json.dumps(records[name], sort_keys=True, ensure_ascii=False) for name in sorted(records)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# ---- rendering: what a span shows of its record ----


def human_seconds(seconds: float) -> str:
    """``180 µs``, ``4.2 ms``, ``42 s``, ``8 min 48 s``, ``1 h 5 min``: two significant digits below a minute."""
    if seconds < 1e-3:
        return f"{_two_digits(seconds * 1e6)} µs"
    if seconds < 1:
        return f"{_two_digits(seconds * 1e3)} ms"
    if seconds < 59.5:
        return f"{_two_digits(seconds)} s"
    minutes, rest = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {rest} s" if rest else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def _two_digits(value: float) -> str:
    """``value`` to two significant digits, written without an exponent (184 → 180, 0.74 → 0.74)."""
    return f"{float(f'{value:.2g}'):g}"


def render(record: dict, part: str = "summary") -> str:
    """The text of a span: ``summary`` says what, how long and on what; the others one value."""
    if part == "wall":
        return human_seconds(record["wall_s"])
    if part == "cpu":
        return human_seconds(record["cpu_s"])
    if part == "per_call":
        return human_seconds(record["per_call_s"])
    if part == "peak":
        return f"{record['peak_rss_mb']} MB"
    if part in ("date", "load_1min", "cores"):
        return str(record[part])
    if part == "tests":
        return f"{record['tests']:,}"
    if part != "summary":
        raise ValueError(f"unknown part {part!r} of a measured span")
    on = f"on {record['cores']} cores at load {record['load_1min']}, {record['date']}"
    if "per_call_s" in record:
        return f"{human_seconds(record['per_call_s'])} a call ({on})"
    if "tests" in record:  # a run of the suite: what it ran, and at which commit
        tests = f"{record['tests']:,} tests"
        on = f"{on}, {record['code_version']}"
        return f"{human_seconds(record['wall_s'])} wall, {human_seconds(record['cpu_s'])} CPU, {tests} ({on})"
    return f"{human_seconds(record['wall_s'])} wall, {human_seconds(record['cpu_s'])} CPU ({on})"


def doc_paths(root: Path = ROOT) -> list[Path]:
    return sorted(p for pattern in DOC_FILES for p in root.glob(pattern))


def declared_seconds(dotted: str) -> float:
    """The value of a constant of pdp_audit named ``package.module.NAME`` (seconds)."""
    import importlib

    module, _, name = dotted.rpartition(".")
    return float(getattr(importlib.import_module(module), name))


def declared_bytes(dotted: str) -> str:
    """The rendering of a size constant of pdp_audit named ``package.module.NAME`` (bytes): ``160 bytes``."""
    return f"{declared_seconds(dotted):g} bytes"


def write_docs(records: dict[str, dict], root: Path = ROOT) -> list[str]:
    """Rewrite every span of :data:`DOC_FILES` from ``records`` (and every declared constant's span from its
    value); the names of spans with no record."""
    unknown = []

    def constant(match: re.Match) -> str:
        value = human_seconds(declared_seconds(match.group(1)))
        return f"<!-- seconds: {match.group(1)} -->{value}<!-- /seconds -->"

    def replace(match: re.Match) -> str:
        name, part = match.group(1), match.group(2) or "summary"
        if name not in records:
            unknown.append(name)
            return match.group(0)
        suffix = f" {match.group(2)}" if match.group(2) else ""
        return f"<!-- measured: {name}{suffix} -->{render(records[name], part)}<!-- /measured -->"

    def size(match: re.Match) -> str:
        return f"<!-- bytes: {match.group(1)} -->{declared_bytes(match.group(1))}<!-- /bytes -->"

    for path in doc_paths(root):
        text = path.read_text(encoding="utf-8")
        new = BYTES_CONSTANT.sub(size, CONSTANT.sub(constant, SPAN.sub(replace, text)))
        if new != text:
            path.write_text(new, encoding="utf-8")
    return unknown


def prepared_folder() -> Path:
    """A fresh folder outside the checkout holding ``examples/`` as ``pdp-audit examples`` writes it."""
    folder = Path(tempfile.mkdtemp(prefix="pdp-durations-"))
    subprocess.run(
        [sys.executable, "-m", "pdp_audit.cli", "examples", "examples"],
        cwd=folder,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="these measurements (slow ones included)")
    parser.add_argument("--slow", action="store_true", help="the slow measurements too")
    parser.add_argument("--list", action="store_true", help="name every measurement and stop")
    parser.add_argument("--write-docs", action="store_true", help="rewrite the docs' measured spans afterwards")
    parser.add_argument("--no-run", action="store_true", help="measure nothing (with --write-docs: rewrite only)")
    args = parser.parse_args(argv)
    if args.list:
        for m in MEASUREMENTS:
            print(f"{m.name:24} {'slow' if m.slow else '    '}  {m.what}")
        return 0
    names = {m.name for m in MEASUREMENTS}
    unknown = sorted(set(args.only or ()) - names)
    if unknown:
        parser.error(f"--only: no measurement named {', '.join(unknown)} (see --list)")
    chosen = (
        []
        if args.no_run
        else [m for m in MEASUREMENTS if (m.name in args.only if args.only else (args.slow or not m.slow))]
    )
    records = load_records()
    folder = prepared_folder() if chosen else None
    try:
        for m in chosen:
            record = measure(m, folder)
            if record is not None:
                print(json.dumps(record, sort_keys=True, ensure_ascii=False), flush=True)
                records = load_records()  # the file now: another run of this script may have added a record since
                records[m.name] = record
                save_records(records)
                if args.write_docs:  # at once: a later measurement (a run of the suite) reads the pages
                    write_docs(records)
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    if args.write_docs:
        missing = write_docs(records)
        if missing:
            print(f"spans with no record: {', '.join(sorted(set(missing)))}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
