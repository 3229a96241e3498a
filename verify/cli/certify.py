"""``pdp-audit certify DEPLOY.toml``: certify a deployment -- the mechanism, its parameters, data and claim.

    pdp-audit certify DEPLOY.toml [--report PATH|none] [--json PATH|-] [--workers N] [--quiet]

The deployment file (format: :mod:`verify.deployment`) is run as ``pdp-audit run <mechanism>`` with exactly its
parameters; the guarantees decide the certificate (paper findings are never part of one).  The PDF and JSON carry
``certified``: the mechanism, every parameter with defaults resolved, the claim, the budget, the data's SHA-256
and shape, the code version and the deployment file's SHA-256.

Exit codes: 0 certified (every guarantee passes), 1 a guarantee fails, 3 no fail but a guarantee undecided,
2 usage or input error (one line naming the file and key), 4 internal error.
"""

from __future__ import annotations

import argparse
import functools
import time
from dataclasses import replace

from mechanisms.validation import InputError
from verify.checks import without_findings
from verify.deployment import certificate, explain, load_deployment, resolve
from verify.options import check_output_path, count
from verify.plans.catalogue import plans_by_name

OUTCOME = {0: "CERTIFIED", 1: "NOT CERTIFIED (a guarantee fails)", 3: "NOT CERTIFIED (a guarantee is undecided)"}


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``pdp-audit certify``; it parses deployments with the ``run <mechanism>`` parsers already added."""
    p = subparsers.add_parser(
        "certify",
        help="certify a deployment file: mechanism, exact parameters, data and (ε, δ) claim",
        description="Run the guarantees of `pdp-audit run <mechanism>` on exactly the parameters, data and claim of "
        "a TOML deployment file and write a certificate (PDF and JSON) with the data's and the file's SHA-256. "
        "Exit 0 certified, 1 a guarantee fails, 3 a guarantee undecided, 2 bad input.",
    )
    p.add_argument("deployment", metavar="DEPLOY.toml", help="the deployment file (see examples/deploy-*.toml)")
    p.add_argument(
        "--report", default=None, help="certificate PDF path (default: certificate-<mechanism>.pdf; 'none' to skip)"
    )
    p.add_argument("--json", default=None, help="certificate JSON path, or - for stdout")
    p.add_argument("--workers", type=count, default=None, help="worker processes (default: [audit] workers, else 1)")
    p.add_argument("--quiet", action="store_true", help="no progress or summary")
    p.set_defaults(handler=functools.partial(command_certify, parsers=_run_parsers(subparsers)))
    return p


def _run_parsers(subparsers) -> dict[str, argparse.ArgumentParser]:
    """The ``run <mechanism>`` parsers the CLI built (so a deployment is parsed exactly as ``run`` parses)."""
    run = subparsers.choices["run"]
    mechanisms = next(a for a in run._actions if isinstance(a, argparse._SubParsersAction))  # no public accessor
    return mechanisms.choices


def command_certify(args: argparse.Namespace, parsers: dict[str, argparse.ArgumentParser]) -> int:
    """Check the outputs and the deployment, run its guarantees, write the certificate, return the exit code."""
    from reports.publish import write_run_reports

    check_output_path(args.json, "--json")
    deployment = load_deployment(args.deployment)
    report = args.report or f"certificate-{deployment.mechanism}.pdf"
    report = None if report.lower() == "none" else report
    check_output_path(report, "--report")
    parser = parsers[deployment.mechanism]
    options = resolve(deployment, parser, workers=args.workers)
    options.quiet = args.quiet
    try:
        certified = certificate(deployment, options, parser)
        start = time.perf_counter()
        run = plans_by_name()[deployment.mechanism].execute(options)
    except InputError as err:
        raise explain(err, deployment, parser) from None
    run = replace(without_findings(run), certified=certified)
    write_run_reports(run, report, args.json)
    if not args.quiet and args.json != "-":
        print_certificate(run, args.deployment, time.perf_counter() - start, report)
    return run.exit_code


def print_certificate(run, deployment: str, elapsed: float, report: str | None) -> None:
    """The outcome, one line per guarantee, the data fingerprint and where the PDF is."""
    print(f"pdp-audit certify {deployment} ({run.mechanism}): {OUTCOME[run.exit_code]} ({elapsed:.1f} s)")
    for check in run.checks:
        est = "" if check.estimate is None else f"estimate {check.estimate:.4g}"
        print(f"  {check.verdict.upper():13s} {check.id:24s} {est}")
    data = run.certified
    print(f"  data: {data['data'] or '—'} sha256 {data['data_sha256'] or '—'} shape {data['data_shape'] or '—'}")
    if report is not None:
        print(f"  certificate: {report}")
