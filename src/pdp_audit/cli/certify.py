"""``pdp-audit certify DEPLOY.toml``: certify a deployment -- the mechanism, its parameters, data and claim.

    pdp-audit certify DEPLOY.toml [--report PATH|none] [--json PATH|-] [--workers N] [--no-early-stop]
        [--time-limit SECONDS] [--quiet]

The deployment file (format: :mod:`pdp_audit.deployment`) is run as ``pdp-audit run <mechanism>`` with exactly
its parameters; the guarantees decide the certificate (paper findings are never part of one).  The PDF and JSON carry
``certified``: the mechanism, every parameter with defaults resolved, the claim, the budget, the data's SHA-256
and shape, the code version and the deployment file's SHA-256.

A user's own mechanism (``mechanism = "module:factory"``, :mod:`pdp_audit.audits.pair.deployed`) is decided by
``pdp_audit.audit_pair``'s checks, or, for a sampler-only pair, by the black-box attack, which never certifies
(exit 3 when nothing is refuted).  ``[[release]]`` tables certify several releases as one joint release
(:mod:`pdp_audit.audits.joint`); ``program = "module:function"`` a DP program, with the options of
``pdp-audit program`` (:mod:`pdp_audit.audits.program.deployed`).  A user's mechanism's or a joint release's
white-box pass is drawn in looks and stopped once decided (:mod:`pdp_audit.verify.evidence.pair_sequential`),
unless its [audit] says ``early_stop = false``; ``--no-early-stop`` (``--early-stop``) and ``--time-limit`` set its
[audit] ``early_stop`` and ``time_limit``.  A built-in mechanism's or a program's deployment draws its fixed budget:
it refuses ``--early-stop`` and ``--time-limit`` in one line.

Exit codes: 0 certified (every guarantee passes), 1 a guarantee fails, 3 no fail but a guarantee undecided,
2 usage or input error (one line naming the file and key), 4 internal error.
"""

from __future__ import annotations

import argparse
import time

from pdp_audit.audits.pair.config import EARLY_STOP_OPTION, TIME_LIMIT_OPTION
from pdp_audit.catalogue.arguments import add_option, typed
from pdp_audit.cli.commands import COMMAND_HELP
from pdp_audit.cli.warnings import print_warnings
from pdp_audit.reports.certified_claim import verdict_suffix
from pdp_audit.reports.verdict_words import check_word, claim_word
from pdp_audit.verify.core.config import WORKERS_OPTION
from pdp_audit.verify.inputs.validation import shown

#: ``--workers`` of certify: by default the deployment file's ``[audit] workers``, else 1.
CERTIFY_WORKERS = WORKERS_OPTION.with_default(None)
#: ``--no-early-stop`` and ``--time-limit``: a user's mechanism's or a joint release's [audit] keys, declared once.
STOPPING = (EARLY_STOP_OPTION, TIME_LIMIT_OPTION)

#: What the black box adds to an undecided certificate's word: it never certifies.
BLACKBOX_OUTCOME = " (black box: no violation found at the stated power; this is not a certificate)"


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``pdp-audit certify``; it parses deployments with the ``run <mechanism>`` parsers already added."""
    p = subparsers.add_parser(
        "certify",
        help=COMMAND_HELP["certify"],
        description="Run the guarantees of `pdp-audit run <mechanism>` on exactly the parameters, data and claim of "
        "a TOML deployment file and write a certificate (PDF and JSON) with the data's and the file's SHA-256. "
        "Exit 0 certified, 1 a guarantee fails, 3 a guarantee undecided, 2 bad input.",
    )
    p.add_argument(
        "deployment",
        metavar="DEPLOY.toml",
        help="the deployment file (`pdp-audit examples DIR` writes two to start from)",
    )
    p.add_argument(
        "--report", default=None, help="certificate PDF path (default: certificate-<mechanism>.pdf; 'none' to skip)"
    )
    p.add_argument("--json", default=None, help="certificate JSON path, or - for stdout")
    add_option(p, CERTIFY_WORKERS)
    for option in STOPPING:
        add_option(p, option)
    p.add_argument("--quiet", action="store_true", help="no progress or summary")
    p.set_defaults(handler=command_certify)
    return p


def command_certify(args: argparse.Namespace) -> int:
    """Certify the deployment and write the certificate (:func:`pdp_audit.certify_files.certify_files`), print it,
    return the exit code."""
    # deferred: loads importlib.metadata; certify --help must not
    from pdp_audit.certify_files import certify_files  # on use: `pdp-audit --help` imports no audit

    said = getattr(args, "early_stop", None)  # given (--early-stop True, --no-early-stop False), or None
    typed(args, CERTIFY_WORKERS, *STOPPING)
    start = time.perf_counter()
    run, report = certify_files(
        args.deployment, args.report, args.json, args.workers, said, args.time_limit, progress=not args.quiet
    )
    if not args.quiet and args.json != "-":
        print_certificate(run, args.deployment, time.perf_counter() - start, report)
    if not args.quiet:
        print_warnings(run)
    return run.exit_code


def print_certificate(run, deployment: str, elapsed: float, report: str | None) -> None:
    """The outcome, one line per guarantee, the data fingerprint and where the PDF is."""
    # deferred: loads tempfile; certify --help must not
    from pdp_audit.reports.files import print_out

    outcome = claim_word(run.verdict)
    if run.certified.get("evidence") == "black-box" and run.exit_code != 1:
        outcome += BLACKBOX_OUTCOME
    outcome += verdict_suffix(run.checks)
    print_out(f"pdp-audit certify {shown(deployment)} ({run.mechanism}): {outcome} ({elapsed:.1f} s)")
    for check in run.checks:
        est = "" if check.estimate is None else f"estimate {check.estimate:.4g}"
        print_out(f"  {check_word(check.verdict):13s} {check.id:24s} {est}")
    data = run.certified
    if "factory" in data:
        module = data["module_file"]
        print_out(f"  mechanism: {data['factory']} ({module['name']} sha256 {module['sha256']}; {data['evidence']})")
        for helper in data.get("helper_modules", ()):
            print_out(f"  helper module: {shown(helper['name'])} sha256 {helper['sha256']}")
        for library in data.get("libraries", ()):
            record = library["record_sha256"] or "—"
            print_out(f"  library: {library['name']} {library['version']} (RECORD sha256 {record})")
    for i, release in enumerate(data.get("releases", ()), start=1):
        print_out(
            f"  release[{i}]: {release['mechanism']} on {shown(release['data'] or 'none')} "
            f"sha256 {release['data_sha256']}"
        )
    if data["data_source"] == "module":
        print_out("  data: inside the mechanism's module (fingerprinted by its sha256)")
    elif data["data_source"] == "releases":
        pass  # each release's data, listed above
    elif data["data_sha256"] is None:
        print_out(f"  data: {shown(data['data'] or 'none')} (generated by the audit; no fingerprint)")
    else:
        print_out(f"  data: {shown(data['data'])} sha256 {data['data_sha256']} shape {data['data_shape']}")
    if (run.parameters or {}).get("scope"):  # what is certified: the program as implemented, or a real-valued law
        print_out(f"  scope: {run.parameters['scope']}")
    if report is not None:
        print_out(f"  certificate: {shown(report)}")
