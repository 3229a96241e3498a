"""The ε that a DP-SGD accountant library prints for (σ, q, T, δ): the claim ``run dp-sgd --accountant`` checks.

The libraries are optional (never a core dependency): :func:`available` says whether one is installed, and
``run dp-sgd`` refuses an accountant that is not, in one line, before any work.  Supported: Google's
dp-accounting (``pip install dp-accounting``), its PLD accountant (``PLDAccountant``, value discretisation 1e-4, its
default) and its RDP accountant (``RdpAccountant``, its default orders), on the event
``SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(σ)), T)``; and Opacus (``pip install opacus``, which
needs PyTorch: install a CPU build of torch first), its ``RDPAccountant`` (its default orders) and ``PRVAccountant``
(Gopi, Lee & Wutschitz 2021; its defaults: ε error 0.01, δ error δ/1000, and the upper end of its ε interval), each
with the history ``[(σ, q, T)]`` that T calls of ``step(noise_multiplier=σ, sample_rate=q)`` leave.  Opacus accounts
add/remove neighbours only (its subsampled-Gaussian RDP and PRV are those of Mironov, Talwar & Zhang 2019 for
Poisson sampling, add/remove), so ``run dp-sgd`` refuses an Opacus accountant with replace-one neighbours.
"""

from __future__ import annotations

import importlib.util

from pdp_audit.verify.inputs.validation import InputError

#: Accountant name → the module it needs.
ACCOUNTANTS = {
    "dp-accounting-pld": "dp_accounting",
    "dp-accounting-rdp": "dp_accounting",
    "opacus-rdp": "opacus",
    "opacus-prv": "opacus",
}
#: The package to install for each module.
PACKAGES = {"dp_accounting": "dp-accounting", "opacus": "opacus"}
#: Accountants that account add/remove neighbours only (the others are asked, and may refuse, at run time).
ADD_REMOVE_ONLY = frozenset({"opacus-rdp", "opacus-prv"})


def available(name: str) -> bool:
    """Whether the library of accountant ``name`` can be imported here."""
    return importlib.util.find_spec(ACCOUNTANTS[name]) is not None


def missing(name: str) -> str:
    """What to install for accountant ``name``, in words."""
    return f"needs the {PACKAGES[ACCOUNTANTS[name]]} package (pip install {PACKAGES[ACCOUNTANTS[name]]})"


def unaccounted(name: str, neighbours: str) -> str | None:
    """Why accountant ``name`` cannot account ``neighbours`` neighbours, in words; None where the library decides."""
    if name in ADD_REMOVE_ONLY and neighbours != "add-remove":
        return f"accounts add-remove neighbours only (as Opacus does), not {neighbours}"
    return None


def accountant_epsilon(name: str, sigma: float, q: float, steps: int, delta: float, neighbours: str) -> float:
    """ε at δ of ``steps`` Poisson-subsampled Gaussian steps as accountant ``name`` computes it; an InputError in one
    line where the library refuses the configuration (e.g. a relation it does not account)."""
    reason = unaccounted(name, neighbours)
    if reason is not None:
        raise InputError(f"accountant {name} {reason}")
    if name.startswith("opacus-"):
        return _opacus_epsilon(name, sigma, q, steps, delta)
    return _dp_accounting_epsilon(name, sigma, q, steps, delta, neighbours)


def _opacus_epsilon(name: str, sigma: float, q: float, steps: int, delta: float) -> float:
    """Opacus' ε at δ after ``steps`` steps of (σ, q), add/remove neighbours, at the accountant's defaults."""
    from opacus.accountants import PRVAccountant, RDPAccountant

    accountant = RDPAccountant() if name == "opacus-rdp" else PRVAccountant()
    accountant.history = [(float(sigma), float(q), int(steps))]  # what `steps` calls of step() leave
    return float(accountant.get_epsilon(delta))


def _dp_accounting_epsilon(name: str, sigma: float, q: float, steps: int, delta: float, neighbours: str) -> float:
    """dp-accounting's ε at δ of the self-composed Poisson-sampled Gaussian event."""
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
