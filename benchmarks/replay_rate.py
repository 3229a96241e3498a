"""The replay's rate for claims of δ > 0: what it does to a user's view-certified δ̄, and what its absence let
through (issue 60, "replay is evidence with a rate").

A user's pair with a noise view (``release_from_noise``) is certified at a small δ by importance sampling through the
view, once the view *replays* ``sample()`` on m rows per world (:mod:`pdp_audit.verify.estimators.view_replay`).
Replay agreement on m rows bounds the probability of a branch of ``sample()`` it never saw by u = 1 − a^{1/m} in each
world, so the view's bound δ_V(ε) is the sampler's only up to u_D + e^ε u_D' (:meth:`Replay.unseen_delta`).  The
audit adds that rate to δ̄ for every claim (``pair_checks._unseen``).  This benchmark runs, at the pair API's
defaults (1e5 releases per world, α = 1e-6, ``law="ideal"`` so that the float structure plays no part), two pairs
under the code as it is (``now``) and with the rate left out of δ > 0 claims as before the decision
(``without-rate``, the function patched for this measurement only):

* ``noisy-mean``: ``examples/test_my_mechanism.py``'s pair, the mean of 100 values in [0, 1] plus N(0, σ²), σ for
  δ(1) = 1e-7 at sensitivity 1/101, with its Gaussian view, claimed (1, 1e-6): correct;
* ``backdoor``: the same pair whose ``sample()`` releases the bare centre where |noise| < c, a set of probability p
  (3e-6) keyed on the noise itself (no extra draw: the replay sees it only on the rows where it fires).  The event
  {o = the centre of D} has probability p under D and 0 under D', so δ(ε) ≥ p > 1e-6 at every ε: every pass is a
  false certificate.

    python benchmarks/replay_rate.py --seeds 12

Prints one JSON line per (pair, variant): the runs, their verdicts counted, and the largest and smallest certified δ̄.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
from scipy.stats import norm

import pdp_audit
from pdp_audit.verify.core.checks import delta_certified
from pdp_audit.verify.estimators import view_replay
from pdp_audit.verify.evidence import pair_checks

AS_IS = pair_checks._unseen
SENSITIVITY = 1 / 101


def without_rate(pair, claim: tuple, replayed):
    """``pair_checks._unseen`` before the decision: the replay's rate joined δ̄ for pure claims only (unless the pair
    is its law by construction)."""
    epsilon, delta = claim
    if replayed is None or delta != 0 or view_replay.built_from_law(pair):
        return None
    return lambda a: replayed.unseen_delta(epsilon, a)


class NoisyMean:
    """The mean of 100 values in [0, 1] on D and on D ∪ {z} plus N(0, σ²), with its Gaussian noise view."""

    output_dim = noise_dim = 1

    def __init__(self, sigma: float):
        data = np.random.default_rng(0).random(100)
        clipped = np.clip(np.append(data, 1.0 if data.mean() < 0.5 else 0.0), 0.0, 1.0)
        self.means = {"D": clipped[:-1].mean(), "D'": clipped.mean()}
        self.sigma = self.noise_sigma = sigma

    def sample(self, world, size, rng):
        return self.release_from_noise(world, self.sigma * rng.standard_normal((size, 1)))

    def privacy_loss(self, outputs):
        o = np.asarray(outputs)[:, 0]
        return ((o - self.means["D'"]) ** 2 - (o - self.means["D"]) ** 2) / (2 * self.sigma**2)

    def release_from_noise(self, world, noise):
        return self.means[world] + noise


class Backdoored(NoisyMean):
    """:class:`NoisyMean` whose ``sample()`` releases the bare centre where |noise| < c, of probability ``p``."""

    def __init__(self, sigma: float, p: float):
        super().__init__(sigma)
        self.cut = sigma * norm.isf(0.5 - p / 2)

    def sample(self, world, size, rng):
        noise = self.sigma * rng.standard_normal((size, 1))
        return self.means[world] + np.where(np.abs(noise) < self.cut, 0.0, noise)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=12, help="runs per pair and variant (default 12)")
    parser.add_argument("--backdoor", type=float, default=3e-6, help="the backdoor's probability p (default 3e-6)")
    args = parser.parse_args(argv)
    sigma = pdp_audit.gaussian_sigma(1.0, 1e-7, SENSITIVITY)
    pairs = {"noisy-mean": lambda: NoisyMean(sigma), "backdoor": lambda: Backdoored(sigma, args.backdoor)}
    for name, make in pairs.items():
        for variant, unseen in (("without-rate", without_rate), ("now", AS_IS)):
            pair_checks._unseen = unseen
            verdicts, bounds = [], []
            for seed in range(args.seeds):
                budget = pdp_audit.PairBudget(law="ideal")
                run = pdp_audit.audit_pair(make(), 1.0, 1e-6, trials=budget, seed=seed)
                verdicts.append(run.verdict)
                bounds.append(delta_certified(run.checks))
            line = {
                "benchmark": "replay_rate",
                "pair": name,
                "variant": variant,
                "claim": [1.0, 1e-6],
                "runs": args.seeds,
                **({"backdoor_p": args.backdoor} if name == "backdoor" else {}),
                "verdicts": {v: verdicts.count(v) for v in sorted(set(verdicts))},
                "delta_bar_min": min(b for b in bounds if b is not None),
                "delta_bar_max": max(b for b in bounds if b is not None),
            }
            print(json.dumps(line), flush=True)
    pair_checks._unseen = AS_IS
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
