"""The audit of a user's white-box pair: :func:`audit_pair` (``pdp_audit.audit_pair``, the pytest plugin's
``assert_dp`` and ``assert_pdp``) -- the pair validated, then its (ε, δ)-DP claim decided, in one family of tests."""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

from pdp_audit.audits.pair.config import PairAuditConfig, PairBudget
from pdp_audit.audits.pair.deployed import GuardedPair, pair_workers
from pdp_audit.mechanisms.base import NeighbourPair
from pdp_audit.reports.records import Run
from pdp_audit.verify.core.config import LAW_SCOPES, build
from pdp_audit.verify.core.float_rules import with_own_float_rules
from pdp_audit.verify.evidence.pair_sequential import Stopping, stated
from pdp_audit.verify.evidence.user_audits import DEFAULT_ALPHA, DEFAULT_TRIALS, check_protocol, decided, flag
from pdp_audit.verify.evidence.user_code import made_pair


@with_own_float_rules
def audit_pair(
    pair: NeighbourPair,
    epsilon: float,
    delta: float,
    *,
    trials: int | PairBudget = DEFAULT_TRIALS,
    seed: int = 0,
    alpha: float = DEFAULT_ALPHA,
    per_instance: bool = False,
    exact_delta: float | None = None,
) -> Run:
    """Audit an (ε, δ)-DP claim of a neighbouring pair: δ_{D‖D'}(ε) ≤ δ and δ_{D'‖D}(ε) ≤ δ.

    What ``privacy_audit.assert_dp`` (and, with ``per_instance=True``, ``assert_pdp``) decides, without pytest.
    The pair is validated before its claim is trusted, in the same family of tests: releases of shape
    (n, ``output_dim``) and losses of shape (n,) without NaN or impossible infinities, and releases that do not
    repeat (a probe of fixed seeds before the main draws: distinct generator states give distinct releases), else the
    exact fail ``pair-protocol`` -- a sampler that gives different releases for the same seed draws from a source of
    its own (OpenDP, diffprivlib's default): it is audited and said not reproducible;
    ``loss-consistency``: ``privacy_loss`` is the loss of ``sample``'s releases (the change-of-measure identities on
    events of the release: bins of the loss into its tails, at ±ε and on its atoms, bins of coordinates and of a
    classifier's score learned on a pilot split, each on either side of L = 0, and a scale identity of L; as
    implemented, also events of the releases' bits as doubles -- their dyadic granularity, trailing zeros, low bits
    and residues on a grid, :class:`pdp_audit.verify.estimators.consistency_events.FloatBins` -- so a sampler whose
    doubles differ between the worlds fails, named by the witness event and its frequency in each world);
    ``noise-view``: where the pair exposes a noise view -- Gaussian (``noise_dim``, ``noise_sigma``,
    ``release_from_noise``) or Laplace / two-sided geometric (``noise_law``, ``noise_scale``, ``noise_dim``,
    ``release_from_noise``) -- the view releases what ``sample`` releases (Kolmogorov–Smirnov and Mood's scale test;
    for a view that adds its noise to a centre per world, also: the loss is the view's exact loss, and ``sample``'s
    noise has the declared law, :mod:`pdp_audit.verify.estimators.view_structure`); a view is used for a bound only
    where it replays ``sample`` exactly (:mod:`pdp_audit.verify.estimators.view_replay`).  Then ``dp-forward`` and
    ``dp-reverse``
    (``pdp-*`` with ``per_instance``): δ(ε) ≤ δ in each direction, decided from every estimate of δ(ε) of
    ``trials`` draws of ``sample`` at once -- the plain hockey-stick tails, δ(ε) as one bounded mean
    E_D[(1 − e^{ε−L})₊], the atom at L = +∞ -- and, where δ·trials < 30, importance sampling through the noise view
    (exponential tilting for Laplace and geometric noise, :mod:`pdp_audit.verify.estimators.tilting`) beside them
    (:mod:`pdp_audit.verify.evidence.pair_claims`).  A DP check passes only when the upper end of their intersected
    interval is at most δ; it fails when the lower end exceeds δ or the estimates contradict each other.

    The pass of ``sample`` and ``privacy_loss`` is drawn on the available cores where the pair costs at least
    :data:`~pdp_audit.verify.evidence.user_audits.PARALLEL_FROM_S` a release (timed after the rng probe, on up to
    2,000 releases per world) and pickles, else in this process (:func:`pdp_audit.audits.pair.deployed.pair_workers`;
    a deployment file's ``[audit] workers`` names them): the numbers never depend on the workers.

    Args:
      pair: the mechanism on (D, D'): ``sample(world, size, rng)`` returning a (size, ``output_dim``) array for
        ``world`` ``"D"`` or ``"D'"``, drawing only from ``rng``; ``privacy_loss(outputs)`` returning the exact
        log p_D(o) − log p_D'(o) of each row (:class:`~pdp_audit.mechanisms.base.NeighbourPair`).
      epsilon: the claimed ε, finite and >= 0.
      delta: the claimed δ, in [0, 1).  δ = 0 (pure DP) cannot be shown by sampling: it passes only with the
        bounded-loss proof of a Laplace or geometric view that replays ``sample`` exactly, and is otherwise
        inconclusive, naming the (ε, δ̄) the draws certify.
      trials: the most samples per world, 100 to 1e8 (memory does not grow with it): the pass is drawn in looks and
        stops once every check is decided at ``alpha`` (``details["early_stop"]`` of each check: the draws used and
        why it stopped); or a :class:`PairBudget` -- the samples with the workers drawing them and when the pass
        stops: ``PairBudget(trials=1e6, early_stop=False)`` draws all 1e6 a world in one pass;
        ``time_limit=`` stops it after that many seconds with what the draws by then support; and what is
        certified, ``PairBudget(law="ideal")`` (as a deployment file's [audit] table says it): the default
        ``"as-implemented"`` audits the floating-point program ``sample`` is, its releases' bits included (v + noise
        computed in float64 carries v's precision: Mironov, CCS 2012; Haney et al. 2022); ``"ideal"`` the
        real-valued law the sampler stands for, the float implementation not audited (the run's ``scope`` parameter
        says which).
      seed: root seed, >= 0; the same seed gives the same numbers.
      alpha: family-wise false-alarm probability of the run, in [1e-50, 1).
      per_instance: state the claim as per-instance DP of the one (D, z) the pair was built from (Wang 2019,
        §2): the checks are ``pdp-forward`` and ``pdp-reverse``.
      exact_delta: a closed form of δ(ε) you believe in.  It is a claim to check (``closed-form`` fails where the
        samples exclude it), never evidence: no DP check passes because of it.

    Returns:
      The decided :class:`~pdp_audit.reports.records.Run` (``mechanism`` is the pair's class name).

    Raises:
      InputError: an argument out of its range, or a pair without ``sample`` and ``privacy_loss``.

    Example::

        import numpy as np
        import pdp_audit

        class Gaussian:  # a sum with sensitivity 1, released with N(0, σ²) noise
            output_dim = 1
            def __init__(self, sigma):
                self.sigma = sigma
            def sample(self, world, size, rng):
                return (1.0 if world == "D" else 0.0) + self.sigma * rng.standard_normal((size, 1))
            def privacy_loss(self, outputs):
                o = outputs[:, 0]
                return ((o - 0.0) ** 2 - (o - 1.0) ** 2) / (2 * self.sigma**2)

        # v + σ·z in float64 is porous as implemented (the default law refutes it): its real-valued law
        run = pdp_audit.audit_pair(Gaussian(sigma=4.0), 1.0, 1e-3, trials=pdp_audit.PairBudget(law="ideal"))
        run.verdict  # 'pass'
    """
    values: dict[str, Any] = {"epsilon": epsilon, "delta": delta, "seed": seed, "alpha": alpha}
    values.update(dataclasses.asdict(trials) if isinstance(trials, PairBudget) else {"trials": trials})
    values.update(per_instance=flag("per_instance", per_instance), exact_delta=exact_delta)
    return run_pair(build(PairAuditConfig, values, extra={"target": pair}))


def run_pair(config: PairAuditConfig, progress: bool = False) -> Run:
    """The audit of ``config.target`` at the claim and budget of ``config`` (what :func:`audit_pair` runs, and
    every other way in through the pair's plan, :mod:`pdp_audit.audits.pair.plan`)."""
    pair = config.target if config.factory is None else made_pair(config.factory)
    check_protocol(pair)

    # deferred: loads scipy; program --help must not
    from pdp_audit.verify.evidence.pair_checks import MainPass, validated_dp_checks
    stop = Stopping.of(config.alpha, config.early_stop, config.time_limit)  # the time limit counts from here

    # whatever sample() or privacy_loss() raises (sys.exit included) is the pair's fault: the exact fail pair-protocol
    guarded = GuardedPair(pair, type(pair).__name__)

    def workers() -> int:  # chosen where not named (after the rng probe), and said with progress
        place = pair_workers(guarded, config.workers)
        if progress and place.why:
            print(f"pdp-audit: {place.why}", file=sys.stderr, flush=True)
        return place.workers

    budget = (config.epsilon, config.delta, config.trials, config.seed)
    drawing = MainPass(progress, workers, stop, config.law)
    evidence = validated_dp_checks(guarded, *budget, config.per_instance, config.exact_delta, drawing)
    parameters = {
        "pair": f"{type(pair).__name__}, as given",
        "claim": "per-instance DP" if config.per_instance else "DP",
        "epsilon": config.epsilon,
        "delta": config.delta,
        "trials": config.trials,
        "exact_delta": config.exact_delta,
        "law": config.law,
        "scope": LAW_SCOPES[config.law],
        **stated(config.early_stop, config.time_limit),
    }
    return decided(type(pair).__name__, evidence, config.alpha, parameters, config.seed)
