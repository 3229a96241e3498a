"""pdp-audit: certify differential-privacy (DP) and per-instance DP claims by simulation.

The public API.  Everything importable from ``pdp_audit`` itself is covered by the compatibility policy
(``docs/compatibility.md``): names are not removed or changed incompatibly within a major version.  The
subpackages (``pdp_audit.mechanisms``, ``.audits``, ``.verify``, ``.reports``) are the implementation and may
change in any release.

Audit your own mechanism: a *neighbouring pair* is ``sample(world, size, rng)`` (releases of the mechanism run on
D, ``world="D"``, or on its neighbour D', ``world="D'"``) and the exact ``privacy_loss(outputs)`` =
log p_D(o) − log p_D'(o)::

    import numpy as np
    import pdp_audit

    class Gaussian:  # a sum with sensitivity 1, released with N(0, σ²) noise
        output_dim = 1
        def __init__(self, sigma):
            self.sigma = sigma
        def sample(self, world, size, rng):
            return (1.0 if world == "D" else 0.0) + self.sigma * rng.standard_normal((size, 1))
        def privacy_loss(self, outputs):
            o = outputs[:, 0]
            return (o**2 - (o - 1.0) ** 2) / (2 * self.sigma**2)

    run = pdp_audit.audit_pair(Gaussian(4.0), epsilon=1.0, delta=1e-3)
    print(pdp_audit.describe(run))                 # verdict, each check's claim, estimate and interval
    pdp_audit.write_report(run, pdf="audit.pdf", json="audit.json")

Run a built-in audit, certify a deployment file, read a sweep::

    pdp_audit.run_audit("gaussian", claim_epsilon=1.0, claim_delta=1e-5).exit_code      # 0
    pdp_audit.certify("deploy.toml").certified["data_sha256"]
    pdp_audit.read_sweep("sweep-small.sqlite")                                          # a pandas DataFrame
    pdp_audit.gaussian_sigma(1.0, 1e-5)          # 3.7306...: the exact (analytic) Gaussian calibration

Audit a training run from its canary scores (higher = more member-like; never certifies, can refute)::

    pdp_audit.audit_canary_scores(in_scores, out_scores, delta=1e-5, claim_epsilon=8.0).exit_code  # 1 or 3
    pdp_audit.audit_one_run(scores, included, delta=1e-5, alpha=0.05)          # m canaries, one run

Every function validates its arguments before any sampling and raises :class:`InputError` (a ``ValueError``)
with one line naming the argument and its valid range.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what a type checker and an IDE see; at run time each name is imported on first use
    from pdp_audit.api import (
        audit_program,
        certify,
        check_pair,
        describe,
        list_audits,
        read_sweep,
        run_audit,
        write_report,
    )
    from pdp_audit.audits.blackbox.audit import audit_blackbox, audit_blackbox_search
    from pdp_audit.audits.blackbox.evidence import BlackBoxBudget
    from pdp_audit.audits.blackbox.search_check import SearchOptions
    from pdp_audit.audits.canaries.evidence import audit_canary_scores, audit_one_run
    from pdp_audit.audits.coverage.audit import audit_coverage
    from pdp_audit.audits.pair.audit import audit_pair
    from pdp_audit.audits.pair.config import PairBudget
    from pdp_audit.calibration import gaussian_delta, gaussian_epsilon, gaussian_sigma
    from pdp_audit.mechanisms.base import NeighbourPair
    from pdp_audit.reports.records import Check, Run, Verdict
    from pdp_audit.verify.core.checks import EXIT_CODES
    from pdp_audit.verify.inputs.validation import InputError

    __version__: str

#: Where each public name lives.  ``import pdp_audit`` loads none of them (PEP 562): a command that only asks for
#: ``--version`` or ``--help``, or a test collecting its plugin, pays for numpy alone.
_HOMES = {
    "BlackBoxBudget": "pdp_audit.audits.blackbox.evidence",
    "SearchOptions": "pdp_audit.audits.blackbox.search_check",
    "PairBudget": "pdp_audit.audits.pair.config",
    "NeighbourPair": "pdp_audit.mechanisms.base",
    "InputError": "pdp_audit.verify.inputs.validation",
    "Check": "pdp_audit.reports.records",
    "Run": "pdp_audit.reports.records",
    "Verdict": "pdp_audit.reports.records",
    "EXIT_CODES": "pdp_audit.verify.core.checks",
    "audit_blackbox": "pdp_audit.audits.blackbox.audit",
    "audit_blackbox_search": "pdp_audit.audits.blackbox.audit",
    "audit_canary_scores": "pdp_audit.audits.canaries.evidence",
    "audit_one_run": "pdp_audit.audits.canaries.evidence",
    "audit_coverage": "pdp_audit.audits.coverage.audit",
    "audit_pair": "pdp_audit.audits.pair.audit",
    "describe": "pdp_audit.api",
    "gaussian_delta": "pdp_audit.calibration",
    "gaussian_epsilon": "pdp_audit.calibration",
    "gaussian_sigma": "pdp_audit.calibration",
    **{
        name: "pdp_audit.api"
        for name in ("audit_program", "certify", "check_pair", "list_audits", "read_sweep", "run_audit", "write_report")
    },
}


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use and kept in this namespace."""
    if name == "__version__":
        # deferred: PEP 562, on first use: `import pdp_audit` loads no report module
        from pdp_audit.reports.json_report import package_version

        value = package_version()
    elif name in _HOMES:
        value = getattr(importlib.import_module(_HOMES[name]), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "EXIT_CODES",
    "BlackBoxBudget",
    "Check",
    "InputError",
    "NeighbourPair",
    "PairBudget",
    "Run",
    "SearchOptions",
    "Verdict",
    "__version__",
    "audit_blackbox",
    "audit_blackbox_search",
    "audit_canary_scores",
    "audit_coverage",
    "audit_one_run",
    "audit_pair",
    "audit_program",
    "certify",
    "check_pair",
    "describe",
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_sigma",
    "list_audits",
    "read_sweep",
    "run_audit",
    "write_report",
]
