"""The ε that a DP-SGD accountant library prints for (σ, q, T, δ): the claim ``run dp-sgd --accountant`` checks.

The libraries are optional (never a core dependency): :func:`available` says whether one is installed, and
``run dp-sgd`` refuses an accountant that is not, in one line, before any work.  Supported: Google's
dp-accounting (``pip install dp-accounting``), its PLD accountant (``PLDAccountant``, value discretisation 1e-4, its
default) and its RDP accountant (``RdpAccountant``, its default orders), on the event
``SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(σ)), T)``.
"""

from __future__ import annotations

import importlib.util

from pdp_audit.mechanisms.validation import InputError

#: Accountant name → the module it needs.
ACCOUNTANTS = {"dp-accounting-pld": "dp_accounting", "dp-accounting-rdp": "dp_accounting"}
#: The package to install for each module.
PACKAGES = {"dp_accounting": "dp-accounting"}


def available(name: str) -> bool:
    """Whether the library of accountant ``name`` can be imported here."""
    return importlib.util.find_spec(ACCOUNTANTS[name]) is not None


def missing(name: str) -> str:
    """What to install for accountant ``name``, in words."""
    return f"needs the {PACKAGES[ACCOUNTANTS[name]]} package (pip install {PACKAGES[ACCOUNTANTS[name]]})"


def accountant_epsilon(name: str, sigma: float, q: float, steps: int, delta: float, neighbours: str) -> float:
    """ε at δ of ``steps`` Poisson-subsampled Gaussian steps as accountant ``name`` computes it; an InputError in one
    line where the library refuses the configuration (e.g. a relation it does not account)."""
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant
    from dp_accounting.rdp import rdp_privacy_accountant

    relation = dp_accounting.NeighboringRelation
    neighbouring = relation.REPLACE_ONE if neighbours == "replace-one" else relation.ADD_OR_REMOVE_ONE
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), int(steps)
    )
    if name == "dp-accounting-pld":
        accountant = pld_privacy_accountant.PLDAccountant(neighbouring)
    else:
        accountant = rdp_privacy_accountant.RdpAccountant(neighboring_relation=neighbouring)
    if not accountant.supports(event):
        raise InputError(f"accountant {name} does not account Poisson-sampled Gaussian steps, {neighbours} neighbours")
    return float(accountant.compose(event).get_epsilon(delta))
