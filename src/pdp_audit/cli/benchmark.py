"""``pdp-audit benchmark linreg``: cross-validated utility of the DP linear-regression mechanisms
([LR] Tables 3–4 style) on every bundled regression data set and/or a user CSV
(:mod:`pdp_audit.audits.linreg.benchmark`)."""

from __future__ import annotations

import argparse
import sys
import time

from pdp_audit.audits.linreg.benchmark_config import BenchmarkConfig
from pdp_audit.catalogue.arguments import add_option
from pdp_audit.cli.commands import COMMAND_HELP
from pdp_audit.mechanisms.linreg.data import REGRESSION_DATASETS
from pdp_audit.verify.core.config import options as declared_options


def _datasets(values: list[str]) -> tuple[str, ...]:
    names = [v for value in values for v in value.split(",") if v]
    return () if names == ["none"] else tuple(names)


def add_parser(subparsers) -> None:
    """Add ``benchmark linreg`` and its options to the CLI's subcommands."""
    p = subparsers.add_parser(
        "benchmark",
        help=COMMAND_HELP["benchmark"],
        description="Utility benchmarks of the mechanisms: test error, not privacy (`pdp-audit benchmark linreg`).",
    )
    which = p.add_subparsers(dest="benchmark", required=True, parser_class=type(p))
    q = which.add_parser(
        "linreg",
        help="[LR] Table 3/4-style test MSE of OPS, SSP, AdaOPS, AdaSSP vs non-private and trivial",
        description="Cross-validated test MSE ± 95%% interval at ε ∈ {0.1, 1}, δ = min(1e-6, 1/n²).",
    )
    q.add_argument(
        "--datasets",
        nargs="+",
        default=None,
        metavar="NAME",
        help=f"bundled data sets (default: all: {', '.join(REGRESSION_DATASETS)}); 'none' for the CSV only",
    )
    for option in declared_options(BenchmarkConfig).values():
        add_option(q, option)
    q.add_argument("--report", default=None, help="PDF path (default: pdp-audit-benchmark-linreg.pdf; 'none' to skip)")
    q.add_argument("--json", default=None, help="JSON path, or - for stdout")
    q.add_argument("--quiet", action="store_true", help="no summary")
    q.set_defaults(handler=command_benchmark_linreg)


def command_benchmark_linreg(args: argparse.Namespace) -> int:
    """Run the benchmark, write its JSON and PDF, print a summary; returns the exit code (0)."""
    # deferred: loads tempfile; benchmark --help must not
    from pdp_audit.reports.files import print_out
    from pdp_audit.use_cases import benchmark_files

    path = args.report or "pdp-audit-benchmark-linreg.pdf"
    start = time.perf_counter()
    named = (lambda: tuple(REGRESSION_DATASETS)) if args.datasets is None else (lambda: _datasets(args.datasets))
    config, result = benchmark_files(args, path, named)
    if not args.quiet:
        out = sys.stderr if args.json == "-" else sys.stdout
        elapsed = time.perf_counter() - start
        print_out(
            f"pdp-audit benchmark linreg: {len(result['datasets'])} data sets, {config.folds} folds ({elapsed:.1f} s)",
            file=out,
        )
        print_out("  test MSE (mean over folds), δ = min(1e-6, 1/n²)", file=out)
        for ds in result["datasets"]:
            for key, by_method in ds["results"].items():
                cells = "  ".join(f"{m} {by_method[m]['mean']:.3g}" for m in result["methods"])
                print_out(f"  {ds['name']:12s} ε={key}: {cells}", file=out)
        if path.lower() != "none":
            print_out(f"  report: {path}", file=out)
    return 0
