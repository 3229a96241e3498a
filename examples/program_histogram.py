"""A noisy histogram and a report-noisy-max of labels (``pdp-audit program``'s guide): bugs and fixes."""

import numpy as np

#: The declared label domain (public: it does not come from the data).
LABELS = ("a", "b", "c", "d")


def domain_from_data(data, rng):
    """Bug: the classes from ``np.unique`` of the data -- removing a class's only record removes its count."""
    classes, counts = np.unique(data["label"].to_numpy(dtype=str), return_counts=True)
    noisy = counts + rng.laplace(0.0, 1.0, size=counts.size)
    return dict(zip(classes.tolist(), noisy.tolist()))


def fixed(data, rng):
    """The fix: counts over the declared domain, Laplace of scale 1/ε (one record moves one count by 1)."""
    labels = data["label"].to_numpy(dtype=str)
    counts = np.array([(labels == c).sum() for c in LABELS], dtype=float)
    return dict(zip(LABELS, (counts + rng.laplace(0.0, 1.0, size=len(LABELS))).tolist()))


def noisy_max_with_count(data, rng):
    """Bug: report noisy max that also releases the winner's exact count."""
    labels = data["label"].to_numpy(dtype=str)
    counts = np.array([(labels == c).sum() for c in LABELS], dtype=float)
    winner = int(np.argmax(counts + rng.laplace(0.0, 1.0, size=len(LABELS))))
    return LABELS[winner], float(counts[winner])


def noisy_max(data, rng):
    """The fix: the index of the noisy maximum alone (counts are monotone: Laplace of scale 1/ε)."""
    labels = data["label"].to_numpy(dtype=str)
    counts = np.array([(labels == c).sum() for c in LABELS], dtype=float)
    return LABELS[int(np.argmax(counts + rng.laplace(0.0, 1.0, size=len(LABELS))))]
