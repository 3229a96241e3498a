"""The fifth hostile pass (issue 42): hostile inputs to every command and API function of an installed pdp-audit.

    python benchmarks/hostile_pass5.py --venv /path/to/venv-with-the-wheel [--only CLASS ...] [--out results.jsonl]

Run it against a wheel installed in a fresh virtual environment (``pip wheel --no-deps`` from a copy of the tree, so
no ``build/`` lands in the checkout): every case runs from a temporary folder outside the checkout, with the venv's
``pdp-audit`` and ``python``.  Each case prints one JSON line ``{id, class, outcome, held, detail}``; the last line
counts inputs and defects per class.  A case *holds* when:

* the command exits 0, 1, 2 or 3 (never 4, never a traceback), an exit 2 is one stderr line, no warning leaks;
* a file whose values are clear (the same scores in another encoding, separator or layout) is either refused in one
  line or read as those values: the bound must equal the one from the plain file (a different bound is a silent wrong
  result);
* an API argument of the wrong type or range is an InputError of one line before the first ``sample()``
  (``benchmarks/hostile/api_driver.py``);
* user code's faults are one line naming the user's code, exit 2; no process outlives the command by more than 1 s.
"""

from __future__ import annotations

import argparse
import codecs
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS: list[dict] = []


def record(case: str, cls: str, outcome: str, held: bool, detail: str = "") -> None:
    line = {"id": case, "class": cls, "outcome": outcome, "held": held, "detail": detail[:400]}
    RESULTS.append(line)
    print(json.dumps(line), flush=True)


class Env:
    """The venv under test and the scratch folder the cases run in."""

    def __init__(self, venv: Path, work: Path):
        self.cli = str(venv / "bin" / "pdp-audit")
        self.python = str(venv / "bin" / "python")
        self.work = work

    def run(self, argv, timeout=120, env=None, cwd=None):
        """The command's exit code, stdout, stderr and seconds; its streams go to files, not pipes: a process the
        user's code left running would hold a pipe open and keep the harness waiting."""
        full_env = {**os.environ, **(env or {})}
        full_env.pop("PYTHONPATH", None)
        start = time.monotonic()
        with (
            tempfile.TemporaryFile("w+", errors="replace") as out,
            tempfile.TemporaryFile("w+", errors="replace") as err,
        ):
            proc = subprocess.Popen(
                [self.cli, *argv], stdout=out, stderr=err, env=full_env, cwd=cwd or self.work, start_new_session=True
            )
            try:
                code = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                return None, "", f"timeout after {timeout} s", time.monotonic() - start
            out.seek(0)
            err.seek(0)
            return code, out.read(), err.read(), time.monotonic() - start


def judge_exit(code, out, err) -> tuple[bool, str]:
    """The generic rules: exit in {0,1,2,3}; exit 2 one line; no traceback; no warning."""
    if code is None:
        return False, err
    lines = [x for x in err.splitlines() if x.strip()]
    if "Traceback" in err or code == 4:
        return False, f"exit {code}, traceback: {lines[-1] if lines else ''}"
    if code not in (0, 1, 2, 3):
        return False, f"exit {code}: {err.strip()[-200:]}"
    if code == 2 and len(lines) != 1:
        return False, f"exit 2 with {len(lines)} stderr lines: {err.strip()[:200]}"
    if "Warning" in err:
        return False, f"warning leaked: {err.strip()[:200]}"
    return True, f"exit {code}: {lines[-1] if lines else out.strip()[-120:]}"


# --- canary score files --------------------------------------------------------------------------------------------


def canary_key(out: str):
    data = json.loads(out)
    check = data["checks"][0]
    return check["estimate"], data["parameters"].get("headline")


def canary_files(env: Env) -> None:
    """The same 300 in-scores written every way a user's tools write them; accepted means read as those values."""
    w = env.work / "canary"
    w.mkdir()
    rng = np.random.default_rng(1)
    values = rng.normal(1.5, 1, 300).round(6)
    out_values = rng.normal(0, 1, 300).round(6)
    np.savetxt(w / "out.csv", out_values, header="score", comments="")
    plain = "score\n" + "".join(f"{float(v)!r}\n" for v in values)
    (w / "plain.csv").write_text(plain)
    base = ["canaries", "--out-scores", str(w / "out.csv"), "--delta", "1e-5", "--json", "-"]
    code, out, err, _ = env.run([base[0], "--in-scores", str(w / "plain.csv"), *base[1:]])
    reference = canary_key(out)
    text_rows = [repr(float(v)) for v in values]

    def file_case(name, data: bytes, suffix=".csv", expect="same", extra=()):
        path = w / f"{name}{suffix}"
        path.write_bytes(data)
        code, out, err, secs = env.run([base[0], "--in-scores", str(path), *base[1:], *extra])
        ok, why = judge_exit(code, out, err)
        if ok and code in (0, 1, 3):
            got = canary_key(out)
            if expect == "refuse":
                ok, why = False, f"accepted (bound {got[0]}); expected a refusal"
            elif expect != "any" and got != reference:
                ok, why = False, f"silent wrong: bound {got[0]} vs {reference[0]} from the same scores ({got[1]})"
        record(f"canaries:{name}", "canary-files", why.split(":")[0], ok, why)

    file_case("utf8", plain.encode())
    file_case("utf8-bom", codecs.BOM_UTF8 + plain.encode())
    file_case("utf16-le-bom", plain.encode("utf-16"))
    file_case("utf16-be", plain.encode("utf-16-be"))
    file_case("utf32", plain.encode("utf-32"))
    file_case("latin1-header", ("scöre\n" + "".join(r + "\n" for r in text_rows)).encode("latin-1"))
    file_case("cp1252-header-euro", ("score€\n" + "".join(r + "\n" for r in text_rows)).encode("cp1252"))
    file_case("crlf", plain.replace("\n", "\r\n").encode())
    file_case("cr-only", plain.replace("\n", "\r").encode())
    file_case("no-final-newline", plain.rstrip("\n").encode())
    file_case(
        "decimal-comma-semicolon",
        ("score;id\n" + "".join(f"{r.replace('.', ',')};{i}\n" for i, r in enumerate(text_rows))).encode(),
    )
    file_case("decimal-comma-quoted", ("score\n" + "".join(f'"{r.replace(".", ",")}"\n' for r in text_rows)).encode())
    file_case("decimal-comma-one-col", ("score\n" + "".join(f"{r.replace('.', ',')}\n" for r in text_rows)).encode())
    file_case("semicolon-two-cols", ("score;id\n" + "".join(f"{r};{i}\n" for i, r in enumerate(text_rows))).encode())
    file_case("tab-two-cols", ("score\tid\n" + "".join(f"{r}\t{i}\n" for i, r in enumerate(text_rows))).encode())
    file_case(
        "tab-two-cols.tsv",
        ("score\tid\n" + "".join(f"{r}\t{i}\n" for i, r in enumerate(text_rows))).encode(),
        suffix=".tsv",
    )
    file_case("space-separated", ("score id\n" + "".join(f"{r} {i}\n" for i, r in enumerate(text_rows))).encode())
    file_case("quoted", ('"score"\n' + "".join(f'"{r}"\n' for r in text_rows)).encode())
    file_case("padded", ("  score  \n" + "".join(f"   {r}   \n" for r in text_rows)).encode())
    file_case("blank-lines", ("score\n\n" + "".join(f"{r}\n\n" for r in text_rows)).encode())
    file_case("comment-header-savetxt", ("# score\n" + "".join(r + "\n" for r in text_rows)).encode())
    file_case("headerless", "".join(r + "\n" for r in text_rows).encode())
    file_case("header-is-number-nan", ("nan\n" + "".join(r + "\n" for r in text_rows)).encode())
    file_case("header-is-inf", ("inf\n" + "".join(r + "\n" for r in text_rows)).encode())
    file_case("header-is-hex", ("0x1p3\n" + "".join(r + "\n" for r in text_rows)).encode())
    file_case("header-infinity-word", ("Infinity\n" + "".join(r + "\n" for r in text_rows)).encode())
    file_case("header-underscore-number", ("1_0\n" + "".join(r + "\n" for r in text_rows)).encode())
    file_case("header-fullwidth-number", ("１.５\n" + "".join(r + "\n" for r in text_rows)).encode())
    file_case("header-arabic-digits", ("١٢\n" + "".join(r + "\n" for r in text_rows)).encode())
    file_case("values-underscore", (plain + "1_000\n").encode(), expect="refuse")
    file_case(
        "values-fullwidth",
        (
            "score\n"
            + "".join(r.translate(str.maketrans("0123456789.-", "０１２３４５６７８９.-")) + "\n" for r in text_rows)
        ).encode(),
    )
    file_case("values-unicode-minus", ("score\n" + "".join(r.replace("-", "−") + "\n" for r in text_rows)).encode())
    file_case(
        "values-thousands", ("score\n" + "".join(f'"{v * 1000:,.3f}"\n' for v in values)).encode(), expect="refuse"
    )
    file_case("values-nbsp", ("score\n" + "".join(r + "\u00a0\n" for r in text_rows)).encode())
    file_case("values-percent", ("score\n" + "".join(r + "%\n" for r in text_rows)).encode(), expect="refuse")
    file_case("values-hexfloat", ("score\n" + "".join(float(v).hex() + "\n" for v in values)).encode())
    file_case("values-nan-one", (plain + "nan\n").encode(), expect="refuse")
    file_case("values-1e400", (plain + "1e400\n").encode(), expect="refuse")
    file_case("values-true", (plain + "True\n").encode(), expect="refuse")
    file_case(
        "values-empty-cell",
        ("score,id\n" + "".join(f"{r},{i}\n" for i, r in enumerate(text_rows)) + ",5\n").encode(),
        extra=("--column", "score"),
        expect="refuse",
    )
    file_case("nul-byte", (plain[:20] + "\x00" + plain[20:]).encode(), expect="refuse")
    file_case("one-field-10MB", ("score\n" + "1" * 10_000_000 + "\n").encode(), expect="refuse")
    file_case("header-only", b"score\n", expect="refuse")
    file_case("empty", b"", expect="refuse")
    file_case("only-bom", codecs.BOM_UTF8, expect="refuse")
    file_case("two-columns-no-column", ("a,b\n" + "".join(f"{r},{r}\n" for r in text_rows)).encode(), expect="refuse")
    file_case(
        "dup-columns-named",
        ("score,score\n" + "".join(f"{r},{r}\n" for r in text_rows)).encode(),
        extra=("--column", "score"),
        expect="refuse",
    )
    file_case("column-case", ("Score\n" + "".join(r + "\n" for r in text_rows)).encode(), extra=("--column", "score"))
    file_case(
        "column-bom-name",
        (codecs.BOM_UTF8 + ("score,x\n" + "".join(f"{r},1\n" for r in text_rows)).encode()),
        extra=("--column", "score"),
    )
    file_case("row-too-long", (plain + "1.0,2.0\n").encode(), expect="refuse")
    file_case("json-array", json.dumps(list(values)).encode(), suffix=".json", expect="refuse")
    file_case("excel-like", b"PK\x03\x04" + os.urandom(200), suffix=".xlsx", expect="refuse")
    file_case("gzip-csv", __import__("gzip").compress(plain.encode()), suffix=".csv.gz")
    file_case("pickle-npy", __import__("pickle").dumps(values), suffix=".npy", expect="refuse")

    def npy_case(name, array, expect="same", suffix=".npy"):
        path = w / f"{name}{suffix}"
        with open(path, "wb") as handle:
            np.save(handle, array, allow_pickle=True)
        file_case(name, path.read_bytes(), suffix=suffix, expect=expect)

    npy_case("npy-f8", values)
    npy_case("npy-f8-bigendian", values.astype(">f8"))
    npy_case("npy-f4", values.astype(np.float32), expect="any")
    npy_case("npy-fortran-2d-column", np.asfortranarray(values[:, None]), expect="refuse")
    npy_case("npy-0d", np.array(1.0), expect="refuse")
    npy_case("npy-bool", values > 1.5, expect="refuse")
    npy_case("npy-timedelta", values.astype("timedelta64[ns]"), expect="refuse")
    npy_case("npy-datetime", values.astype("datetime64[ns]"), expect="refuse")
    npy_case("npy-complex", values.astype(complex), expect="refuse")
    npy_case("npy-object", values.astype(object), expect="refuse")
    npy_case("npy-structured", np.zeros(300, dtype=[("score", float)]), expect="refuse")
    npy_case("npy-str", values.astype(str), expect="refuse")
    npy_case("npy-uint64-huge", np.full(300, 2**64 - 1, dtype=np.uint64), expect="any")
    npy_case("npy-f16-upper", values.astype(np.longdouble), suffix=".NPY", expect="any")
    npy_case("npz", values, suffix=".npz", expect="any")
    savez = w / "real.npz"
    np.savez(savez, scores=values)
    file_case("npz-real", savez.read_bytes(), suffix=".npz", expect="any")
    # a .npy whose header claims 1e12 doubles (8 TB) and holds 300
    hdr = w / "huge-header.npy"
    with open(hdr, "wb") as handle:
        np.lib.format.write_array_header_1_0(handle, {"descr": "<f8", "fortran_order": False, "shape": (10**12,)})
        handle.write(values.tobytes())
    file_case("npy-header-claims-8TB", hdr.read_bytes(), expect="refuse")
    trunc = w / "trunc.npy"
    np.save(trunc, values)
    file_case("npy-truncated", trunc.read_bytes()[:-100], expect="refuse")
    # sparse files: a size cap must refuse them before reading
    for name, size in (("sparse-csv-4GB", 4 * 2**30),):
        path = w / f"{name}.csv"
        with open(path, "wb") as handle:
            handle.write(b"score\n1.0\n2.0\n")
            handle.truncate(size)
        code, out, err, secs = env.run([base[0], "--in-scores", str(path), *base[1:]], timeout=120)
        ok, why = judge_exit(code, out, err)
        if ok and secs > 5:
            ok, why = False, f"read for {secs:.0f} s before answering: {why}"
        record(f"canaries:{name}", "canary-files", why.split(":")[0], ok, why)
        path.unlink()
    big = w / "big-npy-sparse.npy"
    with open(big, "wb") as handle:
        np.lib.format.write_array_header_1_0(handle, {"descr": "<f8", "fortran_order": False, "shape": (2 * 10**9,)})
        handle.truncate(16 * 10**9 + 128)
    code, out, err, secs = env.run([base[0], "--in-scores", str(big), *base[1:]], timeout=120)
    ok, why = judge_exit(code, out, err)
    if ok and code != 2:
        ok, why = False, f"a 16 GB .npy of zeros was audited: {why}"
    record("canaries:npy-sparse-16GB", "canary-files", why.split(":")[0], ok, f"{why} ({secs:.1f} s)")
    big.unlink()
    # special files
    fifo = w / "fifo.csv"
    os.mkfifo(fifo)
    for name, path in (
        ("fifo", fifo),
        ("dev-zero", "/dev/zero"),
        ("dev-null", "/dev/null"),
        ("dev-stdin", "/dev/stdin"),
        ("proc-self-fd0", "/proc/self/fd/0"),
        ("directory", w),
        ("missing", w / "nope.csv"),
        ("dash", "-"),
        ("proc-file", "/proc/self/status"),
        ("sys-file", "/sys/kernel/mm/transparent_hugepage/enabled"),
    ):
        code, out, err, secs = env.run([base[0], "--in-scores", str(path), *base[1:]], timeout=30)
        ok, why = judge_exit(code, out, err)
        if ok and code != 2:
            ok, why = False, f"audited {path}: {why}"
        record(f"canaries:special-{name}", "canary-files", why.split(":")[0], ok, why)
    sock_path = w / "sock.csv"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(sock_path))
    code, out, err, _ = env.run([base[0], "--in-scores", str(sock_path), *base[1:]], timeout=30)
    ok, why = judge_exit(code, out, err)
    record("canaries:special-socket", "canary-files", why.split(":")[0], ok and code == 2, why)
    sock.close()
    loop = w / "loop.csv"
    os.symlink(loop, loop)
    code, out, err, _ = env.run([base[0], "--in-scores", str(loop), *base[1:]], timeout=30)
    ok, why = judge_exit(code, out, err)
    record("canaries:symlink-loop", "canary-files", why.split(":")[0], ok and code == 2, why)
    # one-run inputs
    bits = rng.integers(0, 2, 300)
    run_base = ["canaries", "--one-run", "--delta", "0", "--json", "-"]
    np.savetxt(w / "scores.csv", values + bits, header="score", comments="")
    for name, text in (
        ("bits-true-false", "".join(f"{bool(b)}\n" for b in bits)),
        ("bits-yes-no", "".join(f"{'yes' if b else 'no'}\n" for b in bits)),
        ("bits-float", "".join(f"{float(b)}\n" for b in bits)),
        ("bits-two", "".join(f"{2 * b}\n" for b in bits)),
        ("bits-short", "".join(f"{b}\n" for b in bits[:-1])),
        ("bits-long", "".join(f"{b}\n" for b in bits) + "1\n"),
        ("bits-minus-zero", "".join(f"{'-0' if not b else '1'}\n" for b in bits)),
        ("bits-1e0", "".join(f"{b}e0\n" for b in bits)),
        ("bits-half", "".join("0.5\n" for b in bits)),
    ):
        path = w / f"{name}.csv"
        path.write_text("included\n" + text)
        code, out, err, _ = env.run([*run_base, "--scores", str(w / "scores.csv"), "--inclusion", str(path)])
        ok, why = judge_exit(code, out, err)
        if name in ("bits-two", "bits-short", "bits-long", "bits-half", "bits-yes-no") and code != 2 and ok:
            ok, why = False, f"accepted: {why}"
        record(f"canaries:one-run-{name}", "canary-files", why.split(":")[0], ok, why)
    for name, guesses in (
        ("guesses-huge", ["10" + "0" * 400, "1"]),
        ("guesses-neg", ["-1", "5"]),
        ("guesses-float", ["1.5", "2"]),
        ("guesses-zero", ["0", "0"]),
        ("guesses-too-many", ["300", "1"]),
        ("guesses-inf", ["inf", "1"]),
        ("guesses-2^63", [str(2**63), "1"]),
    ):
        code, out, err, _ = env.run(
            [
                *run_base,
                "--scores",
                str(w / "scores.csv"),
                "--inclusion",
                str(w / "scores.csv"),
                "--inclusion-column",
                "score",
                "--guesses",
                *guesses,
            ]
        )
        np.savetxt(w / "incl.csv", bits, header="included", comments="", fmt="%d")
        code, out, err, _ = env.run(
            [*run_base, "--scores", str(w / "scores.csv"), "--inclusion", str(w / "incl.csv"), "--guesses", *guesses]
        )
        ok, why = judge_exit(code, out, err)
        record(f"canaries:one-run-{name}", "canary-files", why.split(":")[0], ok and code == 2, why)
    # the environment: locales and encodings of the streams
    for name, extra_env in (
        ("lang-c", {"LC_ALL": "C", "LANG": "C"}),
        ("ioencoding-ascii", {"PYTHONIOENCODING": "ascii"}),
        ("ioencoding-latin1", {"PYTHONIOENCODING": "latin-1"}),
        ("de-locale", {"LC_ALL": "de_DE.UTF-8"}),
        ("utf8-mode-off", {"PYTHONUTF8": "0", "LC_ALL": "C"}),
    ):
        code, out, err, _ = env.run(
            [
                "canaries",
                "--in-scores",
                str(w / "plain.csv"),
                "--out-scores",
                str(w / "out.csv"),
                "--delta",
                "1e-5",
                "--claim-epsilon",
                "0.1",
            ],
            env=extra_env,
        )
        ok, why = judge_exit(code, out, err)
        record(f"canaries:env-{name}", "locale-env", why.split(":")[0], ok and code == 1, why)
        code, out, err, _ = env.run(
            ["canaries", "--in-scores", str(w / "nope-é.csv"), "--out-scores", str(w / "out.csv"), "--delta", "1e-5"],
            env=extra_env,
        )
        ok, why = judge_exit(code, out, err)
        record(f"canaries:env-{name}-error", "locale-env", why.split(":")[0], ok and code == 2, why)
    undecodable = w / b"sc\xffores.csv".decode("utf-8", "surrogateescape")
    (w / "plain.csv").link_to(undecodable) if hasattr(Path, "link_to") else os.link(w / "plain.csv", undecodable)
    code, out, err, _ = env.run(
        [
            "canaries",
            "--in-scores",
            str(undecodable),
            "--out-scores",
            str(w / "out.csv"),
            "--delta",
            "1e-5",
            "--claim-epsilon",
            "0.1",
            "--json",
            str(w / "j\udcff.json"),
        ]
    )
    ok, why = judge_exit(code, out, err)
    record("canaries:undecodable-file-name", "locale-env", why.split(":")[0], ok and code == 1, why)


CLASSES = {"canary-files": canary_files}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", required=True, type=Path)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    for name, fn in CLASSES.items():
        if args.only and name not in args.only:
            continue
        with tempfile.TemporaryDirectory(prefix="hostile5-") as work:
            fn(Env(args.venv.resolve(), Path(work)))
    counts: dict[str, dict[str, int]] = {}
    for line in RESULTS:
        c = counts.setdefault(line["class"], {"inputs": 0, "defects": 0})
        c["inputs"] += 1
        c["defects"] += not line["held"]
    print(json.dumps({"counts": counts}))
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in RESULTS))
    return 0


# --- the user's code -----------------------------------------------------------------------------------------------

USER_MODULE = """
import os, sys, time, signal, subprocess, warnings, atexit, threading
import numpy as np
PIDS = os.environ.get("HOSTILE_PIDS")

def note(pid):
    if PIDS:
        with open(PIDS, "a") as handle:
            handle.write(f"{{pid}}\\n")

def hook():
{hook}

class Pair:
    output_dim = 1
    def sample(self, world, size, rng):
        if {in_sample}:
            hook()
        return (1.0 if world == "D" else 0.0) + 4.0 * rng.standard_normal((size, 1))
    def privacy_loss(self, outputs):
        return (outputs[:, 0] - 0.5) / 16

def make(**kwargs):
    if not {in_sample}:
        hook()
    return Pair()
"""

DEPLOYMENT = """mechanism = "{module}:make"
[claim]
epsilon = 1.0
delta = 1e-3
[audit]
trials = 2000
seed = 0
alpha = 1e-6
"""

#: (name, hook body, kind): kind "fault" = the user's code fails (one line, exit 2, never a verdict); "same" = the
#: verdict of the clean module or one line exit 2; "process" = as "same", and nothing the code started outlives it.
USER_HOOKS = [
    ("keyboard-interrupt", "raise KeyboardInterrupt", "fault"),
    ("system-exit-0", "raise SystemExit(0)", "fault"),
    ("system-exit-3", "raise SystemExit(3)", "fault"),
    ("sys-exit-message", "sys.exit('bye')", "fault"),
    ("generator-exit", "raise GeneratorExit", "fault"),
    ("base-exception", "raise BaseException('base')", "fault"),
    ("memory-error", "raise MemoryError", "fault"),
    ("recursion", "hook()", "fault"),
    ("stop-iteration", "raise StopIteration", "fault"),
    ("str-raises", "class E(Exception):\n        def __str__(self): raise RuntimeError('str')\n    raise E()", "fault"),
    (
        "repr-raises-name",
        "class E(Exception):\n        def __repr__(self): raise KeyboardInterrupt\n        def __str__(self): raise KeyboardInterrupt\n    raise E()",  # noqa: E501
        "fault",
    ),
    ("huge-message", "raise ValueError('x' * 10_000_000)", "fault"),
    ("newline-message", "raise ValueError('a\\npdp-audit: CERTIFIED\\r\\nb')", "fault"),
    ("exception-group", "raise ExceptionGroup('g', [ValueError(1), KeyboardInterrupt()])", "fault"),
    ("base-exception-group", "raise BaseExceptionGroup('g', [SystemExit(0)])", "fault"),
    ("os-exit-0", "os._exit(0)", "fault"),
    ("kill-self-term", "os.kill(os.getpid(), signal.SIGTERM)", "signal"),
    ("kill-self-int", "os.kill(os.getpid(), signal.SIGINT)", "signal"),
    ("alarm", "signal.alarm(1); time.sleep(3)", "fault"),
    ("kill-parent-usr1", "os.kill(os.getppid(), signal.SIGUSR1)", "signal"),
    ("seterr-raise", "np.seterr(all='raise')", "same"),
    ("warnings-error", "warnings.simplefilter('error')", "same"),
    ("recursion-limit-60", "sys.setrecursionlimit(60)", "same"),
    ("chdir-root", "os.chdir('/')", "same"),
    ("chdir-tmp", "os.chdir('/tmp')", "same"),
    ("sys-path-empty", "sys.path[:] = []", "same"),
    ("sys-modules-numpy-gone", "sys.modules.pop('scipy', None); sys.modules['scipy.stats'] = None", "same"),
    ("close-stdout", "sys.stdout.close()", "same"),
    ("close-stderr", "sys.stderr.close()", "same"),
    ("close-fd1", "os.close(1)", "same"),  # a second call raises EBADF in the sampler: a malformed pair
    ("stdout-none", "sys.stdout = None", "same"),
    ("umask-777", "os.umask(0o777)", "same"),
    ("tmpdir-missing", "os.environ['TMPDIR'] = '/nonexistent'; import tempfile; tempfile.tempdir = None", "same"),
    ("ignore-sigterm", "signal.signal(signal.SIGTERM, signal.SIG_IGN)", "same"),
    ("ignore-sigint", "signal.signal(signal.SIGINT, signal.SIG_IGN)", "same"),
    ("print-stdout", "print('pdp-audit: CERTIFIED')", "same"),
    ("print-stderr", "print('noise', file=sys.stderr)", "same"),
    ("atexit-exit", "atexit.register(lambda: os._exit(0))", "same"),
    ("excepthook", "sys.excepthook = lambda *a: None", "same"),
    ("float-printoptions", "np.set_printoptions(precision=1, floatmode='fixed')", "same"),
    ("daemon-thread-raises", "threading.Thread(target=lambda: 1 / 0, daemon=True).start()", "same"),
    ("setrlimit-nofile", "import resource; resource.setrlimit(resource.RLIMIT_NOFILE, (20, 20))", "same"),
    ("child-sleep", "p = subprocess.Popen(['sleep', '300']); note(p.pid)", "process"),
    ("child-setsid", "p = subprocess.Popen(['sleep', '300'], start_new_session=True); note(p.pid)", "process"),
    (
        "fork-sleeper",
        "pid = os.fork()\n    if pid == 0:\n        time.sleep(300); os._exit(0)\n    note(pid)",
        "process",
    ),
    (
        "multiprocessing-child",
        "import multiprocessing as mp\n    p = mp.get_context('fork').Process(target=time.sleep, args=(300,)); p.start(); note(p.pid)",  # noqa: E501
        "process",
    ),
    (
        "multiprocessing-daemon",
        "import multiprocessing as mp\n    p = mp.get_context('spawn').Process(target=time.sleep, args=(300,), daemon=True); p.start(); note(p.pid)",  # noqa: E501
        "process",
    ),
    (
        "shell-background",
        "p = subprocess.Popen('sleep 300 & echo $!', shell=True, stdout=subprocess.PIPE, text=True); note(int(p.stdout.readline()))",  # noqa: E501
        "process",
    ),
]


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def reap(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def user_code(env: Env) -> None:
    w = env.work / "user"
    w.mkdir()
    clean = {}
    for name, hook, kind in [("clean", "pass", "same"), *USER_HOOKS]:
        for where in ("factory", "sample"):
            if name == "clean" and where == "sample":
                continue
            module = f"m_{name.replace('-', '_')}_{where}"
            body = "\n".join("    " + line if i == 0 else line for i, line in enumerate(hook.split("\n")))
            (w / f"{module}.py").write_text(USER_MODULE.format(hook=body, in_sample=where == "sample"))
            (w / f"{module}.toml").write_text(DEPLOYMENT.format(module=module))
            pids = w / f"{module}.pids"
            for command in ("blackbox", "certify"):
                argv = (
                    [
                        command,
                        f"{module}:make",
                        "--claim-epsilon",
                        "1",
                        "--claim-delta",
                        "1e-3",
                        "--trials",
                        "2000",
                        "--statistic",
                        "logistic",
                        "--json",
                        "out.json",
                    ]
                    if command == "blackbox"
                    else [command, f"{module}.toml", "--json", "out.json"]
                )
                code, out, err, secs = env.run(argv, timeout=120, env={"HOSTILE_PIDS": str(pids)}, cwd=w)
                ok, why = judge_exit(code, out, err)
                if name == "clean":
                    clean[command] = code
                    continue
                malformed = code == 1 and command == "blackbox" and "Malformed pair" in out and where == "sample"
                if name == "daemon-thread-raises" and code == clean[command]:  # Python prints the user's thread's
                    ok, why = True, f"exit {code}; the traceback is the user's thread's, printed by Python"
                if kind == "signal" and code in (130, 143, -15, -10, 2):  # a real signal: the user's code sent it
                    ok, why = True, f"exit {code} (a signal the user's code sent)"
                elif malformed and kind != "process":  # the sampler raised: the designed fail of pair-protocol
                    ok, why = True, f"exit 1 (pair-protocol fails, naming the call): {out.strip()[-150:]}"
                if ok and kind == "fault" and code != 2 and not malformed:
                    ok, why = False, f"the user's fault gave exit {code}: {why}"
                if ok and kind == "fault" and not malformed and module not in err:
                    ok, why = False, f"the user's fault not named as theirs: {why}"
                if ok and kind in ("same", "process") and code not in (2, clean[command]) and not malformed:
                    ok, why = False, f"verdict changed: exit {code} vs {clean[command]}: {why}"
                if ok and code == 2 and kind != "fault" and module not in err:
                    ok, why = False, f"exit 2 not naming the user's code: {why}"
                if ok and code == clean[command] and code != 2 and not (w / "out.json").exists():
                    ok, why = False, f"no out.json in the folder the command ran from: {why}"
                if kind == "process":
                    time.sleep(1.0)
                    started = [int(x) for x in pids.read_text().split()] if pids.exists() else []
                    left = [p for p in started if alive(p)]
                    reap(left)
                    if not started:
                        ok, why = False, f"the hook never ran: {why}"
                    elif left:
                        ok, why = (
                            False,
                            f"{len(left)} of {len(started)} processes the user's code started outlived the command by 1 s: {why}",  # noqa: E501
                        )
                    pids.unlink(missing_ok=True)
                (w / "out.json").unlink(missing_ok=True)
                record(f"{command}:{name}@{where}", "user-code", why.split(":")[0], ok, f"{why} ({secs:.1f} s)")


CLASSES["user-code"] = user_code


# --- signals during runs -------------------------------------------------------------------------------------------

SLOW_MODULE = """
import os, subprocess, time
import numpy as np

class Pair:
    output_dim = 1
    def sample(self, world, size, rng):
        time.sleep(0.2)
        return (1.0 if world == "D" else 0.0) + 4.0 * rng.standard_normal((size, 1))
    def privacy_loss(self, outputs):
        return (outputs[:, 0] - 0.5) / 16

def make(**kwargs):
    p = subprocess.Popen(["sleep", "300"]{session})
    with open(os.environ["HOSTILE_PIDS"], "a") as handle:
        handle.write(f"{{p.pid}}\\n")
    return Pair()
"""


def descendants(pid: int) -> set[int]:
    found, frontier = set(), {pid}
    while frontier:
        parents, frontier = frontier, set()
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                if int(stat.rpartition(")")[2].split()[1]) in parents:
                    frontier.add(int(entry.name))
        found |= frontier
    return found


def signals(env: Env) -> None:
    """SIGTERM, SIGINT, SIGHUP (and a second SIGTERM) sent to the command alone while the user's code runs: within
    1 s of the command's end nothing it started is left, the helper the user's factory started included."""
    w = env.work / "signals"
    w.mkdir()
    for session in ("", ", start_new_session=True"):
        name = "slow_setsid" if session else "slow"
        (w / f"{name}.py").write_text(SLOW_MODULE.format(session=session))
        (w / f"{name}.toml").write_text(DEPLOYMENT.format(module=name).replace("trials = 2000", "trials = 100000"))
    commands = {
        "blackbox": ["blackbox", "slow:make", "--claim-epsilon", "1", "--claim-delta", "1e-3", "--trials", "100000"],
        "blackbox-workers-2": [
            "blackbox",
            "slow:make",
            "--claim-epsilon",
            "1",
            "--claim-delta",
            "1e-3",
            "--trials",
            "100000",
            "--workers",
            "2",
        ],
        "certify": ["certify", "slow.toml"],
        "blackbox-setsid-helper": [
            "blackbox",
            "slow_setsid:make",
            "--claim-epsilon",
            "1",
            "--claim-delta",
            "1e-3",
            "--trials",
            "100000",
        ],
    }
    for label, argv in commands.items():
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, "double-term"):
            pids = w / "pids"
            pids.unlink(missing_ok=True)
            full_env = {**os.environ, "HOSTILE_PIDS": str(pids)}
            with open(w / "out.txt", "w") as out, open(w / "err.txt", "w") as err:
                proc = subprocess.Popen([env.cli, *argv], cwd=w, env=full_env, stdout=out, stderr=err)
                deadline = time.monotonic() + 60
                while not pids.exists() and proc.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.05)
                time.sleep(1.0)
                tree = descendants(proc.pid)
                first = signal.SIGTERM if signum == "double-term" else signum
                proc.send_signal(first)
                if signum == "double-term":
                    time.sleep(0.05)
                    proc.send_signal(signal.SIGTERM)
                try:
                    code = proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    code = proc.wait()
                ended = time.monotonic()
            helper = [int(x) for x in pids.read_text().split()] if pids.exists() else []
            everything = tree | set(helper)
            while any(alive(p) for p in everything) and time.monotonic() < ended + 1.0:
                time.sleep(0.05)
            left = [p for p in everything if alive(p)]
            reap(left)
            stderr = (w / "err.txt").read_text(errors="replace")
            name = signum if isinstance(signum, str) else signal.Signals(signum).name
            ok = not left and "Traceback" not in stderr and helper
            why = f"exit {code}; {len(left)} of {len(everything)} processes left 1 s after the end" + (
                "" if helper else "; the factory never ran"
            )
            record(f"{label}:{name}", "signals", why.split(";")[0], bool(ok), why)


CLASSES["signals"] = signals

if __name__ == "__main__":
    sys.exit(main())
