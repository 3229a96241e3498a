"""``pdp-audit canaries``: the ε lower bound a training run's canary scores prove, with ROC, TPR at low FPR, AUROC.

    pdp-audit canaries --in-scores in.csv --out-scores out.csv --delta 1e-5 --claim-epsilon 8 --report c.pdf
    pdp-audit canaries --one-run --scores run.csv --column score --inclusion run.csv --inclusion-column included \\
        --delta 1e-5 --alpha 0.05

Inputs: a CSV with a header row (one numeric column, or the one ``--column NAME`` names; ``--inclusion-column`` for
the bits), a CSV of one column without one (a first row of numbers is data: ``np.savetxt``'s file) or a ``.npy`` 1-D
array.  Bad input is one line naming the file, the row and the column, exit 2, before
any work.  Exit 1: the bound exceeds ``--claim-epsilon`` (the claim is refuted); 3 otherwise, also without a claim
(scores never certify; the JSON's ``parameters.epsilon`` is null and its check says "no claim tested").
"""

from __future__ import annotations

import argparse
import csv
import functools
import math
import os
from array import array

import numpy as np

from pdp_audit.catalogue.arguments import add_option, typed
from pdp_audit.cli.commands import COMMAND_HELP
from pdp_audit.reports.numbers import fmt_level
from pdp_audit.reports.verdict_words import check_word, claim_word
from pdp_audit.use_cases import canaries_files, kind_options
from pdp_audit.verify.core.processes import MEMORY_SHARE, physical_memory
from pdp_audit.verify.inputs.validation import InputError, not_a_regular_file, quoted, shown

#: The largest CSV of scores read (checked before reading; about 50 million scores of 20 characters a row).
CSV_CAP = 2**30

#: Peak memory of the audit per score, read and audited (hostile pass 4: 1.9 GB peak for 2e7 scores).
BYTES_PER_SCORE = 100

#: The bound's δ, the claim, α and the seed: the canary kind's options (:mod:`pdp_audit.audits.canaries.config`).
CANARY_OPTIONS = kind_options("canaries")


def add_parser(subparsers) -> None:
    """Add ``pdp-audit canaries`` to the CLI's subparsers."""
    p = subparsers.add_parser(
        "canaries",
        help=COMMAND_HELP["canaries"],
        description="The ε lower bound canary scores prove, with the ROC, TPR at low FPR and AUROC; exit 1 if "
        "--claim-epsilon is refuted, 3 otherwise (also without a claim: scores never certify).",
    )
    p.add_argument("--in-scores", default=None, help="scores of canaries included in training (CSV or .npy)")
    p.add_argument("--out-scores", default=None, help="scores of canaries held out of training (CSV or .npy)")
    p.add_argument("--one-run", action="store_true", help="the one-run audit (Steinke, Nasr & Jagielski 2023)")
    p.add_argument("--scores", default=None, help="--one-run: one score per canary (CSV or .npy)")
    p.add_argument("--inclusion", default=None, help="--one-run: the inclusion bits 0/1, one per score")
    p.add_argument(
        "--guesses",
        nargs=2,
        type=int,
        metavar=("K_IN", "K_OUT"),
        default=None,
        help="--one-run: guess 'in' for the K_IN highest and 'out' for the K_OUT lowest scores (default: a fixed grid)",
    )
    p.add_argument(
        "--dp-sgd",
        default=None,
        metavar="DEPLOY.toml",
        help="a DP-SGD deployment file of this training run: its certified upper bound on the report's first page, "
        "beside the canaries' lower bound (its claim's delta must be --delta; its epsilon is the claim tested)",
    )
    p.add_argument("--column", default=None, help="the CSV column holding the scores")
    p.add_argument("--inclusion-column", default=None, help="the CSV column holding the inclusion bits")
    for option in CANARY_OPTIONS:
        add_option(p, option, required=option.key == "delta")
    p.add_argument(
        "--report",
        default=None,
        help=f"the PDF report (default: {DEFAULT_REPORT}, as run and certify write one; 'none' to skip)",
    )
    p.add_argument("--json", default=None, help="write the JSON report here (- = stdout)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr and no summary on stdout")
    p.set_defaults(handler=command_canaries)


def read_column(path: str, option: str, column: str | None, bits: bool = False) -> np.ndarray:
    """The numbers of one column of ``path`` (CSV with a header, or a 1-D ``.npy``); one-line InputErrors naming
    ``option``, the file, the row and the column for anything else (and for fewer than 2 values)."""
    where = f"{option}: {shown(path)}"
    problem = not_a_regular_file(path, "CSV or .npy file")
    if problem is not None:  # a FIFO blocked forever, /dev/zero was read until MemoryError
        raise InputError(f"{where} {problem}")
    size = os.stat(path).st_size
    if str(path).lower().endswith(".npy"):
        values = _read_npy(path, where)  # a vector: the column options name CSV columns only
        lines = None
        name = "the array"
    else:
        if size > CSV_CAP:  # checked before any read: a sparse 4 GiB file was read for 66 s before its error
            raise InputError(
                f"{where}: {size / 2**30:.1f} GiB; a CSV of scores is read up to {CSV_CAP // 2**30} GiB (about 50 "
                "million scores): save more as a .npy array (np.save)"
            )
        values, lines, name = _read_csv(path, where, column)
    if values.size < 2:
        raise InputError(f"{where}: {values.size} value(s) in column {name}; at least 2 are needed")
    bad = np.flatnonzero(~np.isfinite(values) if not bits else ~np.isin(values, (0.0, 1.0)))
    if bad.size:
        i = int(bad[0])
        label = f"row {i + 1}" + ("" if lines is None else f" (line {lines[i]})")
        need = "inclusion bits must be 0 or 1" if bits else "scores must be finite numbers"
        raise InputError(f"{where}: {label}, column {name}: {float(values[i])!r}; {need}")
    return values


def _read_npy(path: str, where: str) -> np.ndarray:
    """The 1-D array of real numbers (integers or floats) in ``path``; its shape, type and size are checked from its
    header before the data is read: a header claiming 2e9 doubles (a 16 GB sparse file) had the process killed for
    memory, and timedeltas and booleans were read as scores."""
    try:
        array = np.load(path, mmap_mode="r", allow_pickle=False)  # the header only; data is read by the copy below
    except (ValueError, OSError, EOFError) as err:
        raise InputError(f"{where}: not a numeric .npy array ({err})") from None
    if not isinstance(array, np.ndarray) or array.ndim != 1:
        raise InputError(f"{where}: expected a 1-D array, got shape {getattr(array, 'shape', '?')}")
    if array.dtype.kind not in "iuf":  # the API's rule (audit_canary_scores): real numbers only
        raise InputError(f"{where}: expected real numbers (integers or floats), got {array.dtype} values")
    memory = physical_memory()
    needed = BYTES_PER_SCORE * array.size
    if memory is not None and needed > MEMORY_SHARE * memory:
        raise InputError(
            f"{where}: {array.size:,} scores need about {needed / 2**30:.1f} GiB to audit; this process may use "
            f"{MEMORY_SHARE * memory / 2**30:.1f} GiB"
        )
    return np.array(array, dtype=float)


def _read_csv(path: str, where: str, column: str | None) -> tuple[np.ndarray, np.ndarray, str]:
    """The column's values and the file line of each, read row by row: only 16 bytes a score are kept (a double and
    its line number).  Holding every row as strings, and a label per row, took 6.1 GB for 2e7 scores.  A first row
    of numbers is data, not a header (``np.savetxt`` writes none): the file's columns are then unnamed."""
    with open(path, newline="", encoding="utf-8-sig") as handle:
        try:
            rows = csv.reader(handle)
            first = next(rows, None)
            if first is None or not any(cell.strip() for cell in first):
                raise InputError(f"{where}: empty file; expected one score per row (after a header row, or none)")
            header = [cell.strip() for cell in first]
            headerless = all(_is_number(cell) for cell in header)
            index, name = (_unnamed_column if headerless else _column_index)(header, where, column)
            values, lines = array("d"), array("q")

            def read(row: list[str]) -> None:
                if not any(cell.strip() for cell in row):
                    return  # a blank line holds no canary
                label = f"row {len(values) + 1} (line {rows.line_num})"  # the row-th value, on this line of the file
                if len(row) != len(header):  # "0,75" in a decimal-comma locale read as 0 before
                    first_row = "first row" if headerless else "header"
                    raise InputError(
                        f"{where}: {label} has {len(row)} field(s) and the {first_row} {len(header)}; one value per "
                        "field (a decimal comma, such as 0,75, splits a number in two: write 0.75)"
                    )
                text = row[index].strip()
                try:
                    if "_" in text:  # Python's float reads "1_5" as 15; no CSV writer groups digits so
                        raise ValueError(text)
                    value = float(text)
                except ValueError:
                    what = "empty" if not text else f"{quoted(text[:40])} is not a number"
                    raise InputError(f"{where}: {label}, column {name}: {what}") from None
                values.append(value)
                lines.append(rows.line_num)

            if headerless:
                read(first)
            for row in rows:
                read(row)
        except (csv.Error, UnicodeDecodeError) as err:
            raise InputError(f"{where}: not a readable CSV file ({err})") from None
    return np.frombuffer(values, dtype=float).copy(), np.frombuffer(lines, dtype=np.int64).copy(), name


def _is_number(cell: str) -> bool:
    """Whether a first row's cell reads as a number (then the row is data: a header names its columns)."""
    try:
        float(cell)
    except ValueError:
        return False
    return "_" not in cell


def _unnamed_column(first: list[str], where: str, column: str | None) -> tuple[int, str]:
    """The scores' column of a file without a header: its only column; a name given has nothing to name."""
    if column is not None:
        raise InputError(
            f"{where}: the first row is {', '.join(quoted(c) for c in first[:3])}, numbers: the file has no header, "
            f"so no column is named {quoted(column)}; add a header row naming the columns, or give a file of one "
            "column without the column option"
        )
    if len(first) != 1:
        raise InputError(
            f"{where}: {len(first)} columns and no header (the first row is numbers); add a header row naming the "
            "columns and name the one to read with --column"
        )
    return 0, "1 (no header)"


def _column_index(header: list[str], where: str, column: str | None) -> tuple[int, str]:
    """The index of the scores' column in ``header`` and its name as messages print it."""
    if column is None:
        if len(header) != 1:
            names = ", ".join(quoted(h) for h in header[:6])
            raise InputError(f"{where}: {len(header)} columns ({names}); name the one to read with --column")
        return 0, quoted(header[0])
    if header.count(column) > 1:  # which one was meant cannot be known: the first was read, silently
        raise InputError(f"{where}: {header.count(column)} columns are named {quoted(column)}; give each its own name")
    if column not in header:
        raise InputError(f"{where}: no column {quoted(column)} in the header ({', '.join(map(quoted, header[:6]))})")
    return header.index(column), quoted(column)


def _inputs(args: argparse.Namespace) -> dict[str, str | None]:
    """The input files of the mode chosen, by option; one line for a missing or misplaced one."""
    wanted: tuple[str, ...]
    unwanted: tuple[str, ...]
    if args.one_run:
        wanted, unwanted = ("--scores", "--inclusion"), ("--in-scores", "--out-scores")
    else:
        wanted, unwanted = ("--in-scores", "--out-scores"), ("--scores", "--inclusion", "--guesses")
    given = {flag: getattr(args, flag[2:].replace("-", "_")) for flag in wanted + unwanted}
    for flag in wanted:
        if given[flag] is None:
            raise InputError(f"{flag} is required{' with --one-run' if args.one_run else ' (or use --one-run)'}")
    for flag in unwanted:
        if given[flag] is not None:
            raise InputError(f"{flag} belongs to the {'two-column' if args.one_run else '--one-run'} mode")
    return {flag: given[flag] for flag in wanted}


#: the PDF ``pdp-audit canaries`` writes unless ``--report`` names another (or ``none``), in the working folder
DEFAULT_REPORT = "pdp-audit-canaries.pdf"


def command_canaries(args: argparse.Namespace) -> int:
    """Bound ε from the scores and write the reports (:func:`pdp_audit.use_cases.canaries_files`), print the bound;
    1 if the claim is refuted, 3 otherwise."""
    # deferred: loads pdp_audit.reports.files; canaries --help must not
    from pdp_audit.reports.files import print_out

    typed(args, *CANARY_OPTIONS)
    inputs = _inputs(args)
    args.report = args.report or DEFAULT_REPORT  # a report by default, as `run` and `certify` write one
    if args.report.lower() == "none":  # as every command spells "no PDF"
        args.report = None
    options = {"alpha": args.alpha, "claim_epsilon": args.claim_epsilon, "seed": args.seed, "progress": not args.quiet}
    guesses = None if args.guesses is None else tuple(args.guesses)
    run = canaries_files(
        functools.partial(_scores, args),
        args.one_run,
        args.delta,
        options,
        guesses,
        args.dp_sgd,
        (args.report, args.json),
        {f"the file of {k}": v for k, v in inputs.items()},
    )
    if args.json != "-" and not args.quiet:
        print_out(_summary(run, args))
        if args.report:
            print_out(f"  report: {shown(args.report)}")
    return run.exit_code


def _scores(args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray]:
    """The scores of the files the command line names: the in- and out-canaries' (two columns), or ``--one-run``'s
    scores and inclusion bits, one bit a score."""
    if args.one_run:
        scores = read_column(args.scores, "--scores", args.column)
        bits = read_column(args.inclusion, "--inclusion", args.inclusion_column, bits=True)
        if bits.size != scores.size:
            raise InputError(
                f"--inclusion: {shown(args.inclusion)} has {bits.size} bits, --scores {shown(args.scores)} "
                f"{scores.size} scores; give one bit per score"
            )
        return scores, bits
    if args.inclusion_column is not None:
        raise InputError("--inclusion-column belongs to the --one-run mode")
    pos = read_column(args.in_scores, "--in-scores", args.column)
    return pos, read_column(args.out_scores, "--out-scores", args.column)


def _summary(run, args: argparse.Namespace) -> str:
    (check,) = run.checks
    lo = check.ci[0] if check.ci else math.nan
    tested = run.parameters["epsilon"]  # --claim-epsilon, or the DP-SGD deployment's claim where none was given
    claim = "no claim tested" if tested is None else f"claim ε = {tested:g}"
    mode = "canaries --one-run" if args.one_run else "canaries"
    line = (
        f"pdp-audit {mode}: {claim_word(check.verdict)}  ε lower bound {lo:.4g} at confidence "
        f"{fmt_level(check.level)}, "
        f"δ = {args.delta:g} ({claim})"
    )
    dp_sgd = run.parameters.get("dp_sgd")
    if dp_sgd is not None:  # canaries --dp-sgd: the first page's rows, the upper bound first
        # deferred: loads scipy; canaries --help must not
        from pdp_audit.training_run import page_rows

        line += "".join(f"\n  {row}" for row in page_rows(dp_sgd["upper"], dp_sgd["lower"], dp_sgd["curve"]))
        return line
    for finding in run.findings or ():
        if finding.id == "one-run-fdp-epsilon":  # the f-DP one-run bound (Mahloujifar, Melis & Chaudhuri 2025)
            line += (
                f"\n  f-DP finding: μ-GDP rejected up to μ = {finding.details['mu_lower_bound']:.4g}, ε ≥ "
                f"{finding.ci[0]:.4g} at δ = {args.delta:g} for a Gaussian-shaped run ({check_word(finding.verdict)})"
            )
    return line
