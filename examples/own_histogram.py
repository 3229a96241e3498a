"""A user's own mechanism, certified from a deployment file: ``pdp-audit certify deploy-own.toml``.

A histogram of one column of a CSV in ``bins`` equal bins over [-1, 1], each count released with Laplace noise of
scale ``scale``.  Removing one row changes one count by 1 (L1 sensitivity 1), so the release is (1/scale, 0)-DP
(Dwork & Roth 2014, Theorem 3.6).  The pair is D (the data) and D' (the data without its first row); every row
changes one count by one, so this neighbour is a worst case.  ``individuals`` > 0 also offers the pair of each of
the first rows (per-instance DP: a certificate page per individual).
"""

import numpy as np


class LaplaceHistogram:
    def __init__(self, counts, removed_bin, scale, rows=()):
        self.counts, self.scale, self.rows = counts, float(scale), rows
        self.neighbour = counts.copy()
        self.neighbour[removed_bin] -= 1.0
        self.output_dim = counts.size

    def sample(self, world, size, rng):
        centre = self.counts if world == "D" else self.neighbour
        return centre + rng.laplace(0.0, self.scale, size=(size, self.output_dim))

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
