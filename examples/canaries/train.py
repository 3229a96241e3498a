"""A DP-SGD-style logistic regression in numpy that writes canary scores for ``pdp-audit canaries``.

    python -m pdp_audit.examples.canaries.train --out scores/ [--noise-multiplier 0.5] [--canaries 2000]

The training set is ``--examples`` points of a fixed logistic model in ``--dim`` dimensions plus ``--canaries``
canaries, each included independently with probability 1/2 (the coins are written out: the one-run audit needs
them).  A canary is a random direction with a random label (a point the model can only fit by memorising it).
Training is DP-SGD (Abadi et al. 2016): Poisson-sampled batches at rate ``--sample-rate``, every per-example
gradient of the logistic loss clipped to L2 norm ``--clip``, Gaussian noise of standard deviation
``noise-multiplier × clip`` added to their sum, ``--steps`` steps.  The score of a canary, fixed before training,
is the log-likelihood of its label under the final model (higher = more member-like).

Writes ``one_run.csv`` (columns ``score``, ``included``: every canary of this one run), ``in_scores.csv`` and
``out_scores.csv`` (column ``score``: the included and the excluded canaries), and ``deploy.toml``: the training
configuration (σ, q, T, add/remove neighbours) and the accountant's claim (``--claim-epsilon`` at
``--claim-delta``) as a DP-SGD deployment file (the format of ``examples/deploy-dp-sgd.toml``), for
``pdp-audit certify`` and for ``pdp-audit canaries --one-run ... --dp-sgd deploy.toml`` (not written when σ, q or T
differ from the defaults and no ``--claim-epsilon`` is given: the default claim is for the defaults only).  The
one-run audit is the one whose assumptions hold for canaries of a single run; the two-column audit assumes
independent canaries (for example one canary per training run), so on these files it illustrates the report, not a
guarantee.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

#: The training configuration the default claim is for, and that claim: the exact ε of (σ, q, T) = (0.5, 0.1, 300)
#: at δ = 1e-5 lies in [57.32, 57.56] (the exact reference of ``pdp-audit certify deploy.toml``); 58 is
#: what an accountant would print, rounded up.
DEFAULT_CONFIGURATION = {"noise_multiplier": 0.5, "sample_rate": 0.1, "steps": 300}
DEFAULT_CLAIM = (58.0, 1e-5)


def log_sigmoid(z: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, -z)


def train(features, labels, args, rng) -> np.ndarray:
    """DP-SGD on the logistic loss: Poisson batches, per-example clipping, Gaussian noise on the clipped sum."""
    weights = np.zeros(features.shape[1])
    expected_batch = args.sample_rate * features.shape[0]
    for _ in range(args.steps):
        batch = rng.random(features.shape[0]) < args.sample_rate
        x, y = features[batch], labels[batch]
        residual = 1 / (1 + np.exp(-(x @ weights))) - y
        gradients = residual[:, None] * x
        norms = np.linalg.norm(gradients, axis=1, keepdims=True)
        clipped = gradients / np.maximum(1.0, norms / args.clip)
        noisy = clipped.sum(axis=0) + rng.normal(0.0, args.noise_multiplier * args.clip, weights.size)
        weights -= args.learning_rate * noisy / expected_batch
    return weights


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder for the CSV files (created if needed)")
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--canaries", type=int, default=2000)
    parser.add_argument("--dim", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--sample-rate", type=float, default=0.1)
    parser.add_argument("--clip", type=float, default=1.0)
    parser.add_argument("--noise-multiplier", type=float, default=0.5)
    parser.add_argument("--learning-rate", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--claim-epsilon",
        type=float,
        default=None,
        help="the ε your accountant printed for this run, written into deploy.toml (default: 58, for the default "
        "noise multiplier, sample rate and steps only)",
    )
    parser.add_argument("--claim-delta", type=float, default=DEFAULT_CLAIM[1], help="the claim's δ (default: 1e-5)")
    args = parser.parse_args(argv)
    if args.claim_epsilon is None and all(getattr(args, key) == v for key, v in DEFAULT_CONFIGURATION.items()):
        args.claim_epsilon = DEFAULT_CLAIM[0]
    rng = np.random.default_rng(args.seed)
    truth = rng.normal(size=args.dim) / np.sqrt(args.dim)
    x = rng.normal(size=(args.examples, args.dim))
    y = (rng.random(args.examples) < 1 / (1 + np.exp(-(x @ truth) * 3))).astype(float)
    canaries = rng.normal(size=(args.canaries, args.dim))
    canaries *= 2.0 / np.linalg.norm(canaries, axis=1, keepdims=True)  # norm 2: a gradient at least as long as C
    canary_labels = (rng.random(args.canaries) < 0.5).astype(float)
    included = rng.random(args.canaries) < 0.5  # the coins, drawn before training
    weights = train(np.vstack([x, canaries[included]]), np.concatenate([y, canary_labels[included]]), args, rng)
    margin = canaries @ weights
    scores = np.where(canary_labels == 1, log_sigmoid(margin), log_sigmoid(-margin))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "one_run.csv").write_text(
        "score,included\n" + "".join(f"{s!r},{int(b)}\n" for s, b in zip(scores.tolist(), included))
    )
    (out / "in_scores.csv").write_text("score\n" + "".join(f"{s!r}\n" for s in scores[included].tolist()))
    (out / "out_scores.csv").write_text("score\n" + "".join(f"{s!r}\n" for s in scores[~included].tolist()))
    written = "deploy.toml and the scores" if args.claim_epsilon is not None else "scores (no deploy.toml: no claim)"
    if args.claim_epsilon is not None:
        (out / "deploy.toml").write_text(deployment(args))
    accuracy = float(np.mean((x @ weights > 0) == (y == 1)))
    print(
        f"trained on {args.examples} examples + {int(included.sum())} of {args.canaries} canaries "
        f"(noise multiplier {args.noise_multiplier:g}, {args.steps} steps at rate {args.sample_rate:g}); "
        f"training accuracy {accuracy:.3f}; {written} in {out}/"
    )
    return 0


def deployment(args: argparse.Namespace) -> str:
    """The run's configuration and claim as a DP-SGD deployment file (``examples/deploy-dp-sgd.toml``'s keys)."""
    return (
        "# The DP-SGD configuration of this training run and its accountant's claim, written by\n"
        "# pdp_audit.examples.canaries.train; certify it with `pdp-audit certify deploy.toml`, or put it beside the\n"
        "# canaries' bound with `pdp-audit canaries --one-run ... --dp-sgd deploy.toml`.\n\n"
        'mechanism = "dp-sgd"\n\n'
        "[claim]\n"
        f"epsilon = {args.claim_epsilon!r}\n"
        f"delta = {args.claim_delta!r}\n\n"
        "[parameters]\n"
        f"noise_multiplier = {args.noise_multiplier!r}\n"
        f"sample_rate = {args.sample_rate!r}\n"
        f"steps = {args.steps}\n"
        'neighbours = "add-remove"          # each record, canaries too, is in a batch with probability q\n\n'
        "[audit]\n"
        "trials = 2e4\n"
        "seed = 0\n"
        "alpha = 1e-6\n"
    )


if __name__ == "__main__":
    raise SystemExit(main())
