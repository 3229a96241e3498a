"""An OpenDP ``Measurement`` on two neighbouring inputs, as a pair (OpenDP ≥ 0.12; tested with 0.16).

**What is drawn.**  ``sample(world, n, rng)`` invokes the measurement n times on the world's input, exactly as a user
would: OpenDP's samplers draw from the library's own cryptographic generator and cannot be seeded, so the audit is
*not reproducible* (:mod:`pdp_audit.verify.estimators.rng_discipline`) -- the draws are independent, so its verdict
stands.  About 100 µs a release for a scalar measurement (20 µs a coordinate for a vector one), measured with 0.16.

**The loss.**  The measurement's output measure fixes the noise law, and its privacy map the scale:

* ``MaxDivergence`` (``make_laplace``: Laplace on floats, discrete Laplace on integers): for an input distance
  d_in (absolute or L1), ε = map(d_in) = d_in/b, so b = d_in/ε and L(o) = Σ_j (|o_j − x'_j| − |o_j − x_j|)/b;
* ``ZeroConcentratedDivergence`` (``make_gaussian``: Gaussian, discrete Gaussian on integers): ρ = map(d_in) =
  d_in²/(2σ²) for an L2 (or absolute) distance, so σ = d_in/√(2ρ) and L(o) = Σ_j [(o_j − x'_j)² − (o_j − x_j)²]/(2σ²).

Both are the library's own accounting turned into a loss, so they are claims like any other: ``loss-consistency``
checks them against the draws (a map that understates the noise, or a sampler of another law, fails it).  As
implemented: OpenDP 0.16's float samplers draw exactly on a power-of-two grid (the input rounded to it, discrete
noise on it), so the releases' bits carry no more of the input than the grid does; ``make_laplace`` certifies at
the default law (``"as-implemented"``, its releases' bits read too; ``tests/test_adapters.py``).

**A vectorised path** (``batched``): OpenDP's scalar samplers cost about 100 µs a call, and the same noise on a
vector domain (``make_laplace(vector_domain(atom_domain(T=float)), l1_distance(T=float), scale=b)``, likewise
``make_gaussian`` with ``l2_distance``) draws a whole vector in one call, about 4× cheaper a value.  Given such a
``batched`` measurement, a scalar pair draws its ``size`` releases as the coordinates of one call on ``[x] * size``.
It is accepted only where its input domain is the vector of the measurement's, its output measure the same and its
privacy map equal to the measurement's at the pair's d_in (so its per-coordinate noise has the same law and scale
by the library's own accounting).  That the library draws each coordinate as it draws the scalar is its claim, not
ours: ``loss-consistency`` checks the draws against the scalar measurement's loss like any other; the audit is then
of the batched measurement's draws (the pair's ``batched`` names it).

**Workers.**  A pair goes to worker processes (a slow measurement is drawn on the available cores) through OpenDP's
own ``dp.serialize``/``dp.deserialize``: a measurement built from the library's constructors pickles; one OpenDP
cannot serialise (a user-defined function inside it) is drawn in one process, which the audit says.

**The claim** (:attr:`MeasurementPair.claim`): (ε, 0) from a pure map; from a zCDP map, the ε OpenDP's own
``make_zCDP_to_approxDP`` gives at the δ asked for.  A deployment may claim something else (a margin: without a
noise view that replays the sampler, a loss with an atom exactly at ε, as Laplace's, is inconclusive).
"""

from __future__ import annotations

import numpy as np

from pdp_audit.verify.inputs.validation import InputError

#: The output measures this adapter knows the noise law of.
LAWS = {"MaxDivergence": "laplace", "ZeroConcentratedDivergence": "gaussian"}


class MeasurementPair:
    """``measurement`` on the neighbouring inputs ``x`` (world D) and ``x_prime`` (D'): a scalar or a vector each.

    Args:
      measurement: an OpenDP ``Measurement`` whose output measure is pure DP (Laplace) or zCDP (Gaussian).
      x, x_prime: the two inputs, of the measurement's input domain.
      delta: the δ at which a zCDP measurement's claim is stated (ignored for a pure one).
      batched: the same noise on a vector domain, to draw a scalar pair's releases many per call (module notes).
    """

    def __init__(self, measurement, x, x_prime, delta: float = 1e-6, batched=None):
        measure = _measure_name(measurement)
        if measure not in LAWS:
            raise InputError(f"OpenDP output measure {measure} is not adapted: one of {', '.join(LAWS)}")
        self.measurement, self.law = measurement, LAWS[measure]
        self.x, self.x_prime = (
            np.atleast_1d(np.asarray(x, dtype=float)),
            np.atleast_1d(np.asarray(x_prime, dtype=float)),
        )
        if self.x.shape != self.x_prime.shape or self.x.ndim != 1:
            raise InputError("x and x_prime must be scalars or vectors of one length")
        self.scalar = np.ndim(x) == 0
        self.integer = isinstance(x, (int, np.integer)) or (not self.scalar and np.asarray(x).dtype.kind == "i")
        self.inputs = {"D": x, "D'": x_prime}
        self.output_dim = self.x.size
        self.d_in = self._distance(measurement)
        self.value = float(measurement.map(self._typed(self.d_in)))
        if self.law == "laplace":
            self.scale = self.d_in / self.value
            self.claim = (self.value, 0.0)
        else:
            self.sigma = self.d_in / np.sqrt(2 * self.value)
            self.claim = (_zcdp_epsilon(measurement, self._typed(self.d_in), delta), float(delta))
        self.batched = None if batched is None else self._checked_batch(batched)

    def _checked_batch(self, batched):
        """``batched`` where it is the measurement's noise on vectors (module notes), else an InputError saying why."""
        if not self.scalar:
            raise InputError("batched: only a pair of scalar inputs draws its releases as one vector's coordinates")
        measurement, d_in = self.measurement, self._typed(self.d_in)
        domain = f"VectorDomain({measurement.input_domain})"
        if str(batched.input_domain) != domain:
            raise InputError(f"batched: its domain {batched.input_domain} is not {domain}")
        if _measure_name(batched) != _measure_name(measurement):
            raise InputError(f"batched: its output measure {batched.output_measure}, not {measurement.output_measure}")
        if float(batched.map(d_in)) != self.value:
            raise InputError(
                f"batched: its privacy map gives {float(batched.map(d_in)):g} at d_in = {d_in}, the measurement's "
                f"{self.value:g}: another noise scale"
            )
        return batched

    def _distance(self, measurement) -> float:
        """d_in between the inputs in the measurement's input metric (absolute, L1 or L2)."""
        metric = str(measurement.input_metric)
        gap = np.abs(self.x - self.x_prime)
        if metric.startswith("L2Distance"):
            return float(np.sqrt(np.sum(gap**2)))
        if metric.startswith(("AbsoluteDistance", "L1Distance")):
            return float(np.sum(gap))
        raise InputError(f"OpenDP input metric {metric} is not adapted: absolute, L1 or L2 distance")

    def _typed(self, d_in: float):
        return int(round(d_in)) if self.integer else float(d_in)

    def sample(self, world: str, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` invocations of the measurement, or one of ``batched`` on ``size`` copies of the input (``rng``
        unused: OpenDP draws from its own generator)."""
        value = self.inputs[world]
        if self.batched is not None:
            return np.asarray(self.batched([value] * int(size)), dtype=float).reshape(int(size), 1)
        argument = value if self.scalar else list(np.asarray(value).tolist())
        rows = [self.measurement(argument) for _ in range(int(size))]
        return np.asarray(rows, dtype=float).reshape(int(size), self.output_dim)

    def __getstate__(self) -> dict:
        """What a worker process receives: the measurements in OpenDP's own serialisation (a ``Measurement`` holds
        pointers pickle cannot carry; ``dp.serialize`` records the constructors and their arguments) and the optional
        features enabled here, which the worker enables before rebuilding them."""
        import opendp.mod as mod
        import opendp.prelude as dp

        state = dict(self.__dict__)
        try:
            state["measurement"] = dp.serialize(self.measurement)
            state["batched"] = None if self.batched is None else dp.serialize(self.batched)
        except Exception as err:  # noqa: BLE001 - a measurement OpenDP cannot serialise cannot go to a worker
            raise TypeError(f"OpenDP cannot serialize the measurement: {err}") from None
        state["opendp_features"] = sorted(mod.GLOBAL_FEATURES)
        return state

    def __setstate__(self, state: dict) -> None:
        import opendp.prelude as dp

        state = dict(state)
        dp.enable_features(*state.pop("opendp_features"))
        state["measurement"] = dp.deserialize(state["measurement"])
        state["batched"] = None if state["batched"] is None else dp.deserialize(state["batched"])
        self.__dict__.update(state)

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        """log p_D(o) − log p_D'(o) of the law the output measure names (module notes)."""
        o = np.atleast_2d(np.asarray(outputs, dtype=float))
        if self.law == "laplace":
            return np.sum(np.abs(o - self.x_prime) - np.abs(o - self.x), axis=1) / self.scale
        return np.sum((o - self.x_prime) ** 2 - (o - self.x) ** 2, axis=1) / (2 * self.sigma**2)


def _measure_name(measurement) -> str:
    return str(measurement.output_measure).split("(")[0]


def _zcdp_epsilon(measurement, d_in, delta: float) -> float:
    """ε at ``delta`` by OpenDP's own conversion of its zCDP map (``make_zCDP_to_approxDP``)."""
    import opendp.prelude as dp

    return float(dp.c.make_zCDP_to_approxDP(measurement).map(d_in).epsilon(float(delta)))
