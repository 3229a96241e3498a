"""The certify use case: a deployment file in, its certificate's PDF and JSON out, and the decided run.

What ``pdp-audit certify DEPLOY.toml`` does before it prints: check the flags against the deployment (only a user's
mechanism or a joint release draws in looks, :mod:`pdp_audit.verify.evidence.pair_sequential`), check every output
against every input before any work (:func:`pdp_audit.verify.core.outputs.check_outputs`), certify
(:func:`pdp_audit.deployment.certify_deployment`) -- a user's code in a process of its own
(:mod:`pdp_audit.verify.core.sandbox`) -- and write both files.  The command line renders the run it returns.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

from pdp_audit.audits.pair.config import with_stopping
from pdp_audit.catalogue.kinds import deployed_kind
from pdp_audit.deployment import Deployment, certify_deployment, load_deployment
from pdp_audit.reports.files import prints_to_standard_error
from pdp_audit.reports.publish import write_run_reports
from pdp_audit.reports.records import Run
from pdp_audit.verify.core.checks import without_figures
from pdp_audit.verify.core.outputs import check_outputs
from pdp_audit.verify.core.sandbox import run_isolated
from pdp_audit.verify.inputs.validation import InputError, shown


def certify_files(
    path: str,
    report: str | None,
    json: str | None,
    workers: int | None = None,
    early_stop: bool | None = None,
    time_limit: float | None = None,
    progress: bool = False,
) -> tuple[Run, str | None]:
    """Certify the deployment file at ``path`` and write its certificate: the decided run and the PDF's path.

    ``report``: the PDF's path (None: ``certificate-<mechanism>.pdf``; ``"none"``: no PDF); ``json``: the JSON's
    (``"-"``: standard output; None: none).  ``early_stop`` (True, False, or None: not given) and ``time_limit``
    set the file's ``[audit]`` keys of a user's mechanism (:func:`pdp_audit.audits.pair.config.with_stopping`); a
    built-in mechanism or a program, drawing its fixed budget, refuses ``early_stop=True`` and a time limit in one
    line.  Errors name the flags (``--report``, ``--json``, ``--early-stop``, ``--time-limit``), before any work.
    """
    deployment = load_deployment(path)
    kind = deployed_kind(deployment)
    user_code = None if kind is None else kind.user_code
    own = user_code is not None
    module = None if user_code is None else user_code(deployment)  # the user's code: never written over
    if early_stop is not None or time_limit is not None:
        # a built-in mechanism and a program draw their fixed budget: --no-early-stop says so, --early-stop and
        # --time-limit would not
        looks = (own and deployment.program is None) or deployment.releases
        if not looks and (early_stop or time_limit is not None):
            flag = "--early-stop" if early_stop else "--time-limit"
            deployed = f"the built-in {deployment.mechanism!r}"
            deployed = deployed if deployment.program is None else f"the program {deployment.program!r}"
            raise InputError(
                f"{flag}: only a user's mechanism (module:factory) or a joint release ([[release]]) draws in looks; "
                f"{shown(path)} deploys {deployed}"
            )
        if deployment.program is None:
            deployment = with_stopping(deployment, early_stop, time_limit)
    named = deployment.program or deployment.mechanism  # a program's deployment: its MODULE:FUNCTION
    report = report or f"certificate-{named.replace(':', '.') if own else named}.pdf"
    report = None if report.lower() == "none" else report
    check_outputs({"--report": report, "--json": json}, _inputs(deployment, path, module))

    key = "program" if deployment.program else "mechanism"
    where = f"{shown(path)}: {key}: the code of {shown(named)}"
    if own:  # the user's code in a process of its own (pdp_audit.verify.core.sandbox): it ends as Python ends
        run = run_isolated(certified_apart, deployment, workers, progress, report, json, target=where)
    else:
        run = certified(deployment, workers, progress, report, json)
    write_run_reports(run, report, json)
    return run, report


def _inputs(deployment: Deployment, path: str, module: str | None) -> dict[str, Any]:
    """The files certifying reads, by what they are: no output may be one of them."""
    data = deployment.parameters.get("data")
    inputs = {
        "the deployment file": path,
        "the deployed data (parameters.data)": deployment.folder / data if isinstance(data, str) else None,
        "the mechanism's module" if deployment.program is None else "the program's module": module,
    }
    for i, (_, parameters) in enumerate(deployment.releases, start=1):
        data = parameters.get("data")
        inputs[f"the data of release[{i}]"] = deployment.folder / data if isinstance(data, str) else None
    return inputs


def certified_apart(
    deployment: Deployment, workers: int | None, progress: bool, report: str | None, json: str | None
) -> Run:
    """:func:`certified` in the sandbox's child: with ``--json -``, what the user's code prints goes to standard
    error, so that standard output holds the document alone."""
    if json == "-":
        prints_to_standard_error()
    return certified(deployment, workers, progress, report, json)


def certified(deployment: Deployment, workers: int | None, progress: bool, report: str | None, json: str | None) -> Run:
    """The certification of a loaded ``deployment`` (its Run); for a user's mechanism, the sandbox's child runs it."""
    with without_figures() if report is None else nullcontext():  # no PDF: nothing draws them
        run = certify_deployment(deployment, workers=workers, progress=progress)
    check_outputs({"--report": report, "--json": json})  # again: a module the mechanism's module imported
    return run
