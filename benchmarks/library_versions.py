"""Known privacy bugs of released library versions, audited by ``pdp-audit program`` at the version that has the bug
and at the versions that fixed it, and library pipelines with no bug known (the table of
docs/how-to/library-pipelines.md).

Each version gets an environment of its own under ``--venvs`` (made once: ``python -m venv``, then ``pip install``
of the pinned library, its era's numpy and pandas where it needs them, and an editable install of this checkout); a
version whose install fails is skipped with one line on stderr.  The pipelines are :mod:`library_pipelines`, called
as the libraries document them, undecorated, with no pair given::

    python benchmarks/library_versions.py --venvs /tmp/pdp-library-venvs > benchmarks/library_versions.jsonl
    python benchmarks/library_versions.py --markdown benchmarks/library_versions.jsonl benchmarks/library_versions.md

A bug is audited at the default law (``as-implemented``); a fixed version, or a pipeline with no bug known, at
``--law ideal`` (not refuted is the expectation: exit 0 or 3); under replace-one, or add-remove where the library's
own guarantee is about one person added or removed (pipeline-dp's).  A fix not yet released (diffprivlib's pull
request #110), or a later release's change that lets an older version import at all (SmartNoise synth 1.0.6's
scikit-learn import, for 1.0.5), is audited on a copy of the installed package with the change applied, put first
on the path.  One JSON line per version: "benchmark", "library", "version", "pipeline", "bug" (whether this version
has it), "patch" (the change applied, or null), "law", "exit", "verdict", "witnesses" (each refuting check's
witness), "pvalue" (the black box's, where it ran), "confirmed_on" (the pair it ran on), "seconds" (the whole
command), "trials", "machine", "cores", "load_1min_before", "load_1min", "date"; a line whose audit was run by hand
(the command :func:`audit` builds, typed in a shell) says so in "by_hand".  The synthesizers (a fit a second) run
the black box on 100 releases a world, the named neighbours and two draw sets only.

SmartNoise synth 1.0.8 and Opacus 1.5.4 were audited in environments made beforehand and linked under ``--venvs``
(``smartnoise-synth-1.0.8``: smartnoise-synth without its dependencies, mbi 1.1.0 with JAX, and what its MST and
AIM import; ``opacus-1.5.4``: see :data:`OPACUS_BY_HAND`)."""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SMOKERS = {"smoker": [1, 0, 1, 1, 0, 0]}
LABELS = {"x": [0.1, 0.2, 0.3, 0.8, 0.6, 0.9, 0.4, 0.7], "label": ["a", "a", "b", "b", "a", "c", "b", "a"]}
SPENDING = {"day": ["mon", "tue", "wed", "mon", "tue", "mon"], "spent": [0.2, 0.5, 0.9, 0.4, 0.1, 0.7]}
SLOPES = {"x": [0.1, 0.05, 0.15, 0.1, 0.2, 0.05, 0.1, 0.15], "y": [0.2, 0.1, 0.3, 0.1, 0.3, 0.2, 0.2, 0.1]}
LN_3_UP = "1.0987"  # ln 3 = 1.09861…, rounded up: OpenDP's claim for one answer changed


@dataclass(frozen=True)
class Patch:
    """A change to one file of the installed package, applied on a copy put first on the path: a fix not released,
    or a release's own later change that lets an older version import at all (``name`` says which)."""

    name: str
    file: str  # in the package
    text: str
    replacement: str


@dataclass(frozen=True)
class Version:
    """One released version of a library, the pipeline that shows its bug, and whether this version has it.
    ``module`` is the package's import name where it is not the distribution's; ``no_deps`` installs the library
    without its declared dependencies (``pins`` then name what its pipeline imports)."""

    library: str
    version: str
    pins: tuple[str, ...]
    pipeline: str
    bug: bool
    data: dict
    claim: str
    bounds: str
    patch: Patch | None = None
    module: str | None = None
    no_deps: bool = False
    neighbours: str = "replace-one"
    delta: str = "0"
    trials: int | None = None  # the audit's --trials where --trials' default would take hours (a fit a second)
    options: tuple[str, ...] = ()  # further options of ``pdp-audit program``
    by_hand: str | None = None  # how its environment is made where pip alone cannot make it (torch)


#: diffprivlib issue #105's fix as its pull request #110 proposes it (not released as of 0.6.6)
PR_110 = Patch(
    "diffprivlib pull request #110",
    "models/linear_regression.py",
    "np.abs([bounds_X[0][i], bounds_X[0][i]])",
    "np.abs([bounds_X[0][i], bounds_X[1][i]])",
)
#: SmartNoise synth 1.0.5's ``snsynth.models`` imports ``sklearn.linear_model.base``, gone since scikit-learn 0.24
#: (no wheel for Python 3.11): 1.0.6's import, the one other line 1.0.6 changed, lets 1.0.5 import at all.  It does
#: not touch ``DPcovariance``, whose bug 1.0.5 keeps.
SNSYNTH_IMPORT = Patch(
    "smartnoise-synth 1.0.6's scikit-learn import (no privacy change)",
    "models/linear_regression.py",
    "from sklearn.linear_model.base import LinearModel",
    "from sklearn.linear_model._base import LinearModel",
)
#: What SmartNoise synth's package imports (``snsynth/__init__``: smartnoise-sql, Faker; ``snsynth.models``:
#: scikit-learn); its torch, Opacus and pac-synth are the synthesizers' and are not installed (gigabytes).
SNSYNTH_PINS = ("smartnoise-sql>=1.0.5", "Faker", "scikit-learn")
#: SmartNoise synth 1.0.8's MST and AIM: mbi 1.1 (private-pgm on PyPI; it needs JAX) and what the synthesizers
#: import (disjoint-set, networkx); not its torch, Opacus and pac-synth (other synthesizers').
MBI_PINS = (*SNSYNTH_PINS, "mbi==1.1.0", "jax", "jaxlib", "chex", "optax", "attrs", "networkx", "disjoint-set")
PETS = {"pet": ["cat", "dog", "cat", "fish", "dog", "cat"], "owner": ["yes", "no", "yes", "yes", "no", "no"]}
PETS_BOUNDS = "pet={cat,dog,fish};owner={yes,no}"
#: :data:`PETS` as the integer codes dpmm's core models take (cat, dog, fish: 0, 1, 2; yes, no: 0, 1)
PET_CODES = {"pet": [0, 1, 0, 2, 1, 0], "owner": [0, 1, 0, 0, 1, 1]}
#: a fit takes a second or two: 300 releases a world (at 100, MST's witness events are 27 on D and none on D′,
#: p = 0.0046), the named neighbours only, two draw sets
SYNTH = {"delta": "1e-9", "trials": 300, "options": ("--search", "named", "--draw-sets", "2")}
#: MWEM's settings over :data:`SYNTH`: no δ (pure ε), 1,000 releases a world (OpenDP's unseeded Laplace made the
#: p-value at 300 straddle α between runs)
MWEM = {"delta": "0", "trials": 1000}
POINTS = {"x": [0.5, 0.2, 0.9], "y": [1.0, 0.4, 0.8]}
#: Opacus 1.5.4 beside torch: PyPI's torch wheel for Linux pulls CUDA's libraries (gigabytes); an environment
#: with a CPU torch already installed is reused through a .pth file
OPACUS_BY_HAND = (
    "python -m venv VENV; VENV/bin/pip install 'numpy<2' pdp-audit's dependencies; VENV/bin/pip install --no-deps "
    "opacus==1.5.4 -e .; echo SITE_PACKAGES_WITH_TORCH > VENV/lib/python3.11/site-packages/zz_torch.pth"
)


VERSIONS: tuple[Version, ...] = (
    Version("opendp", "0.4.0", ("numpy<2", "pandas<2.3"), "survey", True, SMOKERS, LN_3_UP, "smoker={0,1}"),
    Version("opendp", "0.5.0", ("numpy<2", "pandas<2.3"), "survey", False, SMOKERS, LN_3_UP, "smoker={0,1}"),
    Version("opendp", "0.16.0", (), "survey", False, SMOKERS, LN_3_UP, "smoker={0,1}"),
    Version("diffprivlib", "0.6.6", ("scikit-learn<1.8",), "regression", True, SLOPES, "1", "0,1"),
    Version("diffprivlib", "0.6.6", ("scikit-learn<1.8",), "regression", False, SLOPES, "1", "0,1", PR_110),
    Version("diffprivlib", "0.6.6", ("scikit-learn<1.8",), "naive_bayes", True, LABELS, "1", "x=0,1;label={a,b,c}"),
    Version(
        "smartnoise-synth",
        "1.0.5",
        SNSYNTH_PINS,
        "covariance",
        True,
        SLOPES,
        "1",
        "0,1",
        SNSYNTH_IMPORT,
        "snsynth",
        no_deps=True,
    ),
    Version(
        "smartnoise-synth",
        "1.0.6",
        SNSYNTH_PINS,
        "covariance",
        False,
        SLOPES,
        "1",
        "0,1",
        None,
        "snsynth",
        no_deps=True,
    ),
    Version(
        "pipeline-dp",
        "0.3.1",
        (),
        "spending",
        True,
        SPENDING,
        "1",
        "day={mon,tue,wed};spent=0,1",
        module="pipeline_dp",
        neighbours="add-remove",
    ),
    Version(
        "pipeline-dp",
        "0.3.1",
        (),
        "spending_finite",
        False,
        SPENDING,
        "1",
        "day={mon,tue,wed};spent=0,1",
        module="pipeline_dp",
        neighbours="add-remove",
    ),
    *(
        Version(
            "smartnoise-synth",
            "1.0.8",
            MBI_PINS,
            pipeline,
            bug,
            PETS,
            "1",
            PETS_BOUNDS,
            None,
            "snsynth",
            no_deps=True,
            neighbours="add-remove",
            **{**SYNTH, **settings},
        )
        for pipeline, bug, settings in (
            ("pets_mst", True, {}),
            ("pets_mst_declared", False, {}),
            ("pets_aim", True, {}),
            ("pets_aim_declared", False, {}),
            # MWEM is pure ε, a fit a tenth of a second; it reads each column's range from the data itself (its
            # histogram's min and max), whatever the transformer: declaring the categories does not fix it
            ("pets_mwem", True, MWEM),
            ("pets_mwem_declared", True, MWEM),
        )
    ),  # fmt: skip
    *(
        Version(
            "dpmm",
            "0.1.9",
            (),
            pipeline,
            bug,
            PET_CODES,
            "1",
            "pet={0,1,2};owner={0,1}",
            neighbours="add-remove",
            **SYNTH,
        )
        for pipeline, bug in (("pets_dpmm_core", True), ("pets_dpmm_core_declared", False))
    ),  # fmt: skip
    Version(
        "opacus",
        "1.5.4",
        (),
        "sgd",
        True,
        POINTS,
        "5.378",
        "x=0,1;y=0,1",
        neighbours="add-remove",
        delta="1e-5",
        trials=60000,  # the loss shows far in the tails: at 2,000 releases a world p = 1
        by_hand=OPACUS_BY_HAND,
    ),  # fmt: skip
)


def environment(version: Version, venvs: Path) -> Path | None:
    """The environment of ``version`` (made where missing); None, with a line on stderr, where it cannot install."""
    venv = venvs / f"{version.library}-{version.version}"
    if version.by_hand and not (venv / "bin" / "pdp-audit").exists():
        print(f"skipped {version.library} {version.version}: make {venv} by hand: {version.by_hand}", file=sys.stderr)
        return None
    if not (venv / "bin" / "pdp-audit").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "pip"), "install", "-q"]
        library = f"{version.library}=={version.version}"
        first = [*pip, "--no-deps", library] if version.no_deps else None
        done = subprocess.run(first, capture_output=True, text=True) if first else None
        if done is None or done.returncode == 0:
            rest = [*version.pins, "-e", str(ROOT)] if version.no_deps else [library, *version.pins, "-e", str(ROOT)]
            done = subprocess.run([*pip, *rest], capture_output=True, text=True)
        if done.returncode != 0:
            last = done.stderr.strip().splitlines()[-1:] or ["no message"]
            print(f"skipped {version.library} {version.version}: pip install failed: {last[0]}", file=sys.stderr)
            return None
    return venv


def patched(version: Version, venv: Path, workdir: Path) -> list[str]:
    """A folder holding a copy of the installed library with ``version.patch`` applied, to put first on the path
    (none where the version has no patch)."""
    if version.patch is None:
        return []
    module = version.module or version.library
    where = [str(venv / "bin" / "python"), "-c", f"import {module}; print({module}.__file__)"]
    installed = Path(subprocess.run(where, capture_output=True, text=True, check=True).stdout.strip()).parent
    folder = workdir / "patched"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(installed, folder / module)
    file, text, replacement = version.patch.file, version.patch.text, version.patch.replacement
    source = folder / module / file
    code = source.read_text(encoding="utf-8")
    if text not in code:
        raise SystemExit(f"{version.library} {version.version}: {file} does not hold {text!r}")
    source.write_text(code.replace(text, replacement), encoding="utf-8")
    return [str(folder)]


def audit(version: Version, venv: Path, trials: int, workdir: Path) -> dict:
    """``pdp-audit program library_pipelines:PIPELINE`` in ``venv``: exit code, verdict, witnesses, seconds."""
    data = workdir / f"{version.pipeline}.csv"
    columns = list(version.data)
    with data.open("w", newline="") as f:
        csv.writer(f).writerows([columns, *zip(*(version.data[c] for c in columns))])
    out = workdir / f"{version.library}-{version.version}-{version.pipeline}{'-patched' if version.patch else ''}.json"
    law = "as-implemented" if version.bug else "ideal"
    command = [
        str(venv / "bin" / "pdp-audit"), "program", f"library_pipelines:{version.pipeline}", "--data", str(data),
        "--bounds", version.bounds, "--neighbours", version.neighbours, "--claim-epsilon", version.claim,
        "--claim-delta", version.delta, "--trials", str(trials), "--seed", "0", "--report", "none", "--law", law,
        "--json", str(out), *version.options,
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), *patched(version, venv, workdir)])}
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=workdir)
    result = {"law": law, "exit": done.returncode, "seconds": round(time.perf_counter() - start, 2)}
    if not out.exists():
        return {**result, "verdict": None, "witnesses": {}, "pvalue": None, "error": done.stderr.strip()[-300:]}
    return {**result, **read(out)}


def read(out: Path) -> dict:
    """The verdict of the JSON report ``out``, each refuting check's witness, the black box's p-value and the pair
    it ran on (``confirmed_on``: the witness the audit found, refuted or not)."""
    report = json.loads(out.read_text(encoding="utf-8"))
    checks = {c["id"]: c for c in report["checks"]}
    witnesses = {k: (c.get("details") or {}).get("witness") for k, c in checks.items() if c["verdict"] == "fail"}
    confirm = checks.get("program-confirm", {})
    on = (confirm.get("details") or {}).get("witness")
    return {"verdict": report["verdict"], "witnesses": witnesses, "pvalue": confirm.get("pvalue"), "confirmed_on": on}


def markdown(lines: list[dict]) -> str:
    """The table of docs/explanation/dp-recorder.md's library section (``--markdown``): one row per JSON line."""
    rows = [
        "| library, version | pipeline | bug | law | exit | witness the audit found | p | seconds (trials, load) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for line in lines:
        patch = f" + {line['patch']}" if line["patch"] else ""
        refuting = "; ".join(f"{check}: {text}" for check, text in line["witnesses"].items())
        witness = refuting or (f"not refuted on: {line['confirmed_on']}" if line.get("confirmed_on") else "none")
        pvalue = "" if line["pvalue"] is None else f"{line['pvalue']:.2g}"
        rows.append(
            f"| {line['library']} {line['version']}{patch} | `{line['pipeline']}` | {'yes' if line['bug'] else 'no'} "
            f"| {line['law']} | {line['exit']} | {witness} | {pvalue} "
            f"| {line['seconds']:.0f} ({line['trials']}, load {line['load_1min'] or 'not taken'}) |"
        )
    return "\n".join(rows) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venvs", type=Path, help="a folder for the versions' environments")
    parser.add_argument("--markdown", nargs=2, type=Path, metavar=("JSONL", "MD"), help="only write JSONL's table")
    parser.add_argument("--trials", type=int, default=2000, help="pdp-audit's --trials (default 2000)")
    parser.add_argument("--only", nargs="*", default=None, help="library names (default: all)")
    parser.add_argument("--pipelines", nargs="*", default=None, help="pipeline names (default: all)")
    args = parser.parse_args()
    if args.markdown:
        source, target = args.markdown
        lines = [json.loads(t) for t in source.read_text(encoding="utf-8").splitlines() if t.strip()]
        target.write_text(markdown(lines), encoding="utf-8")
        return
    if args.venvs is None:
        parser.error("--venvs: a folder for the versions' environments is required")
    args.venvs.mkdir(parents=True, exist_ok=True)
    chosen = [v for v in VERSIONS if args.only is None or v.library in args.only]
    chosen = [v for v in chosen if args.pipelines is None or v.pipeline in args.pipelines]
    with tempfile.TemporaryDirectory() as tmp:
        for version in chosen:
            venv = environment(version, args.venvs)
            if venv is None:
                continue
            before = os.getloadavg()[0]
            trials = version.trials or args.trials
            result = audit(version, venv, trials, Path(tmp))
            line = {
                "benchmark": "library_versions",
                "library": version.library,
                "version": version.version,
                "pipeline": version.pipeline,
                "bug": version.bug,
                "patch": None if version.patch is None else version.patch.name,
                **result,
                "trials": trials,
                "machine": platform.node(),
                "cores": os.cpu_count(),
                "load_1min_before": round(before, 2),
                "load_1min": round(os.getloadavg()[0], 2),
                "date": datetime.date.today().isoformat(),
            }
            print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
