"""The contract every neighbouring pair must satisfy, shipped with the package (cf. scikit-learn's
``check_estimator``).

Each ``check_*`` takes a pair (the :class:`pdp_audit.mechanisms.base.NeighbourPair` protocol) and raises
AssertionError on a violation.  ``tests/test_contract.py`` runs all of :data:`CHECKS` over every example
pair of every mechanism in :data:`pdp_audit.mechanisms.catalogue.MECHANISMS` and shows that broken pairs are caught;
users run them on their own pairs with ``pdp_audit.check_pair`` (as implemented by default: the releases' bits are
read too; ``law="ideal"`` for the real-valued law)::

    import pdp_audit
    pdp_audit.check_pair(MyPair(...))   # AssertionError naming the failed check, else the scope line

The statistical check (the likelihood-ratio identities on events of the release, the ``loss-consistency`` test that
:func:`pdp_audit.audit_pair` runs: :mod:`pdp_audit.verify.estimators.consistency_output`) has false-alarm probability
1e-6 per
test (finite-sample intervals, Bonferroni over the events) and a fixed seed.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np

from pdp_audit.mechanisms.base import MalformedPair, SwappedPair
from pdp_audit.verify.estimators.consistency_output import StreamedEventConsistency
from pdp_audit.verify.estimators.consistency_scale import StreamedScaleIdentity
from pdp_audit.verify.estimators.engine import PrivacyLossSampler, iter_blocks, run_blocks
from pdp_audit.verify.estimators.rng_discipline import check_rng_discipline
from pdp_audit.verify.evidence.pair_stream import ReleasesAndLosses

FALSE_ALARM = 1e-6
IDENTITY_SAMPLES = 200_000


def check_shapes(pair) -> None:
    """Samples have shape (size, output_dim); losses have shape (size,) and are finite."""
    rng = np.random.default_rng(0)
    for world in ("D", "D'"):
        out = pair.sample(world, 7, rng)
        assert out.shape == (7, pair.output_dim), out.shape
        loss = pair.privacy_loss(out)
        assert loss.shape == (7,) and np.all(np.isfinite(loss))


def check_determinism(pair) -> None:
    """Releases are drawn from the generator given, and from it only: the same generator state gives the same
    releases, distinct states distinct ones (:func:`pdp_audit.verify.estimators.rng_discipline.check_rng_discipline`:
    fixed
    seeds, false alarm ≤ 2.4e-16 whatever the release law; a deterministic release is not refused)."""
    try:
        why = check_rng_discipline(pair.sample)
    except MalformedPair as err:
        raise AssertionError(str(err)) from None
    if why:  # an audit takes such a pair (not reproducible); the contract of a reproducible pair does not
        raise AssertionError(why)


def check_chunking_independence(pair) -> None:
    """Results depend on the seed only: not on block grouping, workers or order."""
    work = PrivacyLossSampler(pair, "D")
    serial = run_blocks(work, 2500, seed=7, stream="contract", block_size=1000)
    with ThreadPoolExecutor(3) as pool:
        parallel = run_blocks(work, 2500, seed=7, stream="contract", block_size=1000, executor=pool)
    np.testing.assert_array_equal(serial, parallel)
    # the loss of a batch is the loss of its rows (no cross-row coupling)
    out = pair.sample("D'", 64, np.random.default_rng(3))
    in_parts = np.concatenate([pair.privacy_loss(out[:20]), pair.privacy_loss(out[20:])])
    np.testing.assert_allclose(pair.privacy_loss(out), in_parts, rtol=0, atol=1e-12)


def check_antisymmetry(pair) -> None:
    """The loss of the swapped pair (D', D) is exactly the negative loss."""
    out = np.vstack([pair.sample("D", 100, np.random.default_rng(1)), pair.sample("D'", 100, np.random.default_rng(2))])
    np.testing.assert_array_equal(SwappedPair(pair).privacy_loss(out), -pair.privacy_loss(out))


def check_likelihood_ratio_identities(pair, seed: int = 11, law: str = "ideal") -> None:
    """P_D'(o ∈ A, L > 0) = E_D[e^{−L}1{o ∈ A, L > 0}] and P_D(o ∈ A, L ≤ 0) = E_D'[e^{L}1{o ∈ A, L ≤ 0}] on the events
    A that :func:`pdp_audit.audit_pair`'s ``loss-consistency`` uses
    (:mod:`pdp_audit.verify.estimators.consistency_output`:
    adaptive bins of L into both tails and on its atoms, bins of the release's coordinates, bins of a classifier's
    score learned on a pilot split; bounded summands, streamed), and the scale identity of
    :mod:`pdp_audit.verify.estimators.consistency_scale` (Bonferroni over the two): they catch a wrongly normalised
    log-density (a
    constant error of 0.05 in the loss with the default 2e5 draws per world), a loss written for another mechanism
    than the sampler's, a clipped loss and the loss of a post-processing of the release.  ``law``
    (:data:`pdp_audit.verify.core.config.LAW_OPTION`): ``"as-implemented"`` reads the releases' structure as doubles
    too (:mod:`pdp_audit.verify.estimators.float_structure`: a sampler whose doubles differ between the worlds fails,
    Mironov, CCS 2012), ``"ideal"`` (here the default: the catalogue's example pairs are reference samplers standing
    for the real-valued law) reads their values only."""
    test = StreamedEventConsistency(IDENTITY_SAMPLES, IDENTITY_SAMPLES, float_structure=law != "ideal")
    scale = StreamedScaleIdentity()
    blocks = {w: iter_blocks(ReleasesAndLosses(pair, w), IDENTITY_SAMPLES, seed, f"identity/{w}") for w in ("D", "D'")}
    for (releases_d, losses_d), (releases_dp, losses_dp) in zip(blocks["D"], blocks["D'"]):
        test.add("D", losses_d, releases_d)
        test.add("D'", losses_dp, releases_dp)
        scale.add("D", losses_d)
        scale.add("D'", losses_dp)
    result, identity = test.result(), scale.result()
    pvalue = min(1.0, 2 * min(result.pvalue, identity.pvalue))  # Bonferroni over the two tests
    assert pvalue > FALSE_ALARM, (
        f"the privacy loss does not match the sampler (p = {pvalue:.3g} < {FALSE_ALARM:g}): "
        f"{result.describe(FALSE_ALARM / 2)}; "  # an event refuting on its own, one world's only where one does
        f"{identity.describe()}"
    )


CHECKS = (
    check_shapes,
    check_determinism,
    check_chunking_independence,
    check_antisymmetry,
    check_likelihood_ratio_identities,
)


def check_pair(pair, law: str = "ideal") -> None:
    """Run every check of :data:`CHECKS` on ``pair``; AssertionError naming the first that fails.  ``law``: what the
    likelihood-ratio identities read (:func:`check_likelihood_ratio_identities`; ``pdp_audit.check_pair`` passes its
    own, by default as implemented)."""
    for check in CHECKS:
        run = partial(check, law=law) if check is check_likelihood_ratio_identities else check
        try:
            run(pair)
        except AssertionError as err:
            raise AssertionError(f"{check.__name__}: {err}") from err
