"""A user's own mechanism, certified from a deployment file: ``pdp-audit certify deploy-own.toml``.

A histogram of one column of a CSV in ``bins`` equal bins over [-1, 1], each count released with Laplace noise of
scale ``scale``.  Removing one row changes one count by 1 (L1 sensitivity 1), so the release is (1/scale, 0)-DP
(Dwork & Roth 2014, Theorem 3.6).  The pair is D (the data) and D' (the data without its first row); every row
changes one count by one, so this neighbour is a worst case.  ``individuals`` > 0 also offers the pair of each of
the first rows (per-instance DP: a certificate page per individual).

``noise_law``, ``noise_scale``, ``noise_dim`` and ``release_from_noise`` declare the noise view: the release is the
counts plus Laplace noise.  With it the audit checks ``privacy_loss`` exactly against that law's loss and bounds δ
by importance sampling through the view, once the view replays ``sample()`` draw for draw; without it, sampling pins
a loss's scale only to a few per cent, and a loss with an atom at ε (this one) could certify only δ ≤ ~0.02.  The
replay is evidence with a rate: a branch of ``sample()`` its m rows per world never saw is bounded by 1 − α^{1/m} in
each world, and that rate (about 1e-3 at ε = 1, m = 65,536) joins δ̄: a claim below it, pure ones included, is not
decided (exit 3).  At ε = 1 itself plain draws see the atom and bound δ only to ~0.02, so ``deploy-own.toml``
claims (1.1, 1e-3), which its 2e5 draws per world certify.
"""

import numpy as np


class LaplaceHistogram:
    noise_law = "laplace"

    def __init__(self, counts, removed_bin, scale, rows=()):
        self.counts, self.scale, self.rows = counts, float(scale), rows
        self.neighbour = counts.copy()
        self.neighbour[removed_bin] -= 1.0
        self.output_dim = self.noise_dim = counts.size
        self.noise_scale = self.scale

    def sample(self, world, size, rng):
        return self.release_from_noise(world, rng.laplace(0.0, self.scale, size=(size, self.output_dim)))

    def release_from_noise(self, world, noise):
        return (self.counts if world == "D" else self.neighbour) + noise

    def privacy_loss(self, outputs):  # log p_D(o) - log p_D'(o), exactly
        far, near = np.abs(outputs - self.neighbour), np.abs(outputs - self.counts)
        return (far - near).sum(axis=1) / self.scale

    def per_instance(self):
        for row, removed_bin in self.rows:
            yield f"row-{row}", LaplaceHistogram(self.counts, removed_bin, self.scale)


def make(data, column, bins=5, scale=1.0, individuals=0):
    values = np.genfromtxt(data, delimiter=",", names=True)[column]
    which = np.clip(np.digitize(values, np.linspace(-1.0, 1.0, bins + 1)[1:-1]), 0, bins - 1)
    counts = np.bincount(which, minlength=bins).astype(float)
    return LaplaceHistogram(counts, which[0], scale, [(i + 1, which[i]) for i in range(individuals)])
