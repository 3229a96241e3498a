"""``scipy.stats``' draws from numpy's global state, drawn through the session's: ``rvs`` with no ``random_state``, of a
distribution whose own is numpy's global one (the module's, one frozen from it, one the program defines), draws from
the session's :class:`.numpy_random.RecordingRandomState`, passed as the call's ``random_state`` (``rv_continuous`` and
``rv_discrete``'s public ``rvs``) -- the draws of its laws then the session generator's, recorded and replayed."""

from __future__ import annotations

from typing import Any, Callable

from pdp_audit.audits.program.adapters.base import Adapter, Hooks, Sources
from pdp_audit.audits.program.adapters.numpy_random import GLOBAL_STATE


def install(hooks: Hooks) -> None:
    """The public ``rvs`` of ``rv_continuous`` and ``rv_discrete`` replaced for the session."""
    import scipy.stats as stats

    for kind in (stats.rv_continuous, stats.rv_discrete):
        hooks.replace(kind, "rvs", _rvs(hooks.sources, kind.rvs))


def _rvs(sources: Sources, rvs: Callable) -> Callable:
    def drawn(self: Any, *args: Any, **kwargs: Any) -> Any:
        if sources.active and kwargs.get("random_state") is None and self.random_state is GLOBAL_STATE:
            kwargs["random_state"] = sources.numpy_global
        return rvs(self, *args, **kwargs)

    drawn.__name__, drawn.__doc__ = "rvs", rvs.__doc__
    return drawn


ADAPTER = Adapter("scipy.stats", install, draws=True)
