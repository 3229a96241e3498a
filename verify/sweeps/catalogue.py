"""The mechanisms ``pdp-audit sweep`` can run, as an explicit tuple: every audit ``pdp-audit run`` offers.

The Gaussian mechanism has a sweep module of its own (:mod:`pdp_audit.verify.sweeps.gaussian`: λ-inflation of σ,
synthetic data of any size, the run options ``claim_epsilon``/``claim_delta`` as aliases of its
``epsilon``/``delta``); every other audit sweeps over its ``run`` options (:mod:`pdp_audit.verify.sweeps.audits`).
"""

from __future__ import annotations

from pdp_audit.verify.plans.catalogue import PLANS
from pdp_audit.verify.sweeps import audits, gaussian
from pdp_audit.verify.sweeps.schema import SweepMechanism

SWEEPS: tuple[SweepMechanism, ...] = (
    gaussian.SWEEP,
    *(audits.sweep_mechanism(plan) for plan in PLANS if plan.name != gaussian.SWEEP.name),
)
