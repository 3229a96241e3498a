"""The public Python API, re-exported by :mod:`pdp_audit` (import it from there: ``import pdp_audit``).

Every way into the suite goes through these functions: the pytest plugin's assertions are :func:`audit_pair`,
:func:`audit_blackbox` and :func:`audit_coverage` plus pytest's pass/fail/skip; ``pdp-audit run``, ``certify`` and
``blackbox`` are :func:`run_audit`, :func:`certify` and :func:`audit_blackbox` plus the files and the exit code.
Each returns a :class:`~pdp_audit.reports.records.Run`: the decided checks, the verdict and the exit code the
command line would give, which :func:`write_report` renders as the same PDF and JSON.

Verdicts (see :mod:`pdp_audit.verify.core.checks`): a check **fails** when the samples contradict its claim at the
run's family-wise false-alarm probability ``alpha`` (Holm's step-down over the run's statistical checks), **passes**
when its whole confidence interval lies on the claim's side, and is **inconclusive** otherwise.  Exit codes: 0 every
guarantee passes, 1 one fails, 3 none fails but one is inconclusive.

Bad arguments raise :class:`~pdp_audit.mechanisms.validation.InputError` (a ``ValueError``) with one line naming
the argument and its valid range, before any sampling.  Heavy modules are imported inside the functions, so that
``import pdp_audit`` (and with it the pytest plugin, which every test run of a project with pdp-audit installed
loads) stays light.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Mapping

from pdp_audit.audits.blackbox.defaults import DEFAULT_TRIALS as BLACKBOX_TRIALS
from pdp_audit.audits.blackbox.defaults import STATISTICS
from pdp_audit.audits.canaries.evidence import audit_canary_scores, audit_one_run  # noqa: F401 (re-exported)
from pdp_audit.mechanisms.base import NeighbourPair
from pdp_audit.mechanisms.validation import InputError
from pdp_audit.reports.records import Run
from pdp_audit.reports.run_text import describe  # noqa: F401 (re-exported)
from pdp_audit.verify.calibration import gaussian_delta, gaussian_epsilon, gaussian_sigma  # noqa: F401 (re-exported)

# What the interfaces (``pdp-audit``'s commands in verify/cli, the pytest plugin) use of the framework, imported from
# here and nowhere else: the declared options and the words errors name them in, the parsers generated from them,
# and the checks of a command's files.  None of these is public (``pdp_audit.__all__`` does not list them).
from pdp_audit.verify.catalogue.arguments import add_option, add_run_arguments, typed  # noqa: F401
from pdp_audit.verify.core.config import (  # noqa: F401
    ALPHA_OPTION,
    COMMAND_LINE,
    PAIR_OPTIONS,
    SEED_OPTION,
    WORKERS,
    WORKERS_OPTION,
    Names,
    Option,
    Range,
    build,
    pair_value,
)
from pdp_audit.verify.core.config import options as declared_options  # noqa: F401
from pdp_audit.verify.core.float_rules import with_own_float_rules
from pdp_audit.verify.core.outputs import add_reads, check_outputs, read_paths, record_reads, store_inputs  # noqa: F401

if TYPE_CHECKING:  # pragma: no cover
    import pandas

#: Samples per world of a pair assertion when ``trials`` is not given (the pytest plugin's ``--audit-trials``).
DEFAULT_TRIALS = PAIR_OPTIONS["trials"].default
#: The family-wise false-alarm probability of a run when ``alpha`` is not given.
DEFAULT_ALPHA = PAIR_OPTIONS["alpha"].default


# --------------------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------------------
def _claim(
    epsilon: Any, delta: Any, trials: Any, seed: Any, alpha: Any, delta_range: str = "delta", budget: str = "trials"
) -> tuple[float, float, int, int, float]:
    """The claim and budget of a pair function, each checked against its declared range (one-line errors;
    ``budget``: the range of ``trials``, ``blackbox_trials`` for a black box)."""
    return (
        pair_value("epsilon", epsilon, required=True),
        pair_value(delta_range, delta, required=True),
        pair_value(budget, trials, required=budget == "trials"),  # a black box's None: its default budget
        pair_value("seed", seed, required=True),
        pair_value("alpha", alpha, required=True),
    )


def _pair(pair: Any, needs_loss: bool = True) -> None:
    from pdp_audit.mechanisms.base import MalformedPair, pair_attribute

    wanted = ("sample", "privacy_loss") if needs_loss else ("sample",)
    try:  # a property of the user's that raises is their bug, in one line
        missing = [name for name in wanted if not callable(pair_attribute(pair, name))]
    except MalformedPair as err:
        raise InputError(str(err)) from None
    if missing:
        raise InputError(
            f"pair must have {' and '.join(f'{n}()' for n in wanted)} (the NeighbourPair protocol); "
            f"{type(pair).__name__} has no {missing[0]}()"
        )


def _decided(mechanism: str, evidence: list, alpha: float, parameters: dict, seed: int) -> Run:
    """Decide ``evidence`` as one family (Holm at ``alpha``) into a run record (a user's pair has no paper
    statements: its findings are empty, not "not asked for")."""
    from pdp_audit.verify.core.checks import finalize, make_run

    return make_run(mechanism, finalize(evidence, alpha), alpha, parameters, seed, paper_claims=True)


# --------------------------------------------------------------------------------------------------
# Pairs: a user's own mechanism
# --------------------------------------------------------------------------------------------------
@with_own_float_rules
def audit_pair(
    pair: NeighbourPair,
    epsilon: float,
    delta: float,
    *,
    trials: int = DEFAULT_TRIALS,
    seed: int = 0,
    alpha: float = DEFAULT_ALPHA,
    per_instance: bool = False,
    exact_delta: float | None = None,
) -> Run:
    """Audit an (ε, δ)-DP claim of a neighbouring pair: δ_{D‖D'}(ε) ≤ δ and δ_{D'‖D}(ε) ≤ δ.

    What ``privacy_audit.assert_dp`` (and, with ``per_instance=True``, ``assert_pdp``) decides, without pytest.
    The pair is validated before its claim is trusted, in the same family of tests: releases of shape
    (n, ``output_dim``) and losses of shape (n,) without NaN or impossible infinities, and releases drawn from the
    ``rng`` given and from it only (a probe of fixed seeds before the main draws: the same seed gives the same
    releases, distinct generator states distinct ones), else the exact fail ``pair-protocol``;
    ``loss-consistency``: ``privacy_loss`` is the loss of ``sample``'s releases (the change-of-measure identities on
    events of the release: bins of the loss into its tails, at ±ε and on its atoms, bins of coordinates and of a
    classifier's score learned on a pilot split, each on either side of L = 0, and a scale identity of L);
    ``noise-view``: where the pair exposes a noise view -- Gaussian (``noise_dim``, ``noise_sigma``,
    ``release_from_noise``) or Laplace / two-sided geometric (``noise_law``, ``noise_scale``, ``noise_dim``,
    ``release_from_noise``) -- the view releases what ``sample`` releases (Kolmogorov–Smirnov and Mood's scale test;
    for a view that adds its noise to a centre per world, also: the loss is the view's exact loss, and ``sample``'s
    noise has the declared law, :mod:`pdp_audit.verify.estimators.view_structure`).  Then ``dp-forward`` and
    ``dp-reverse``
    (``pdp-*`` with ``per_instance``): δ(ε) ≤ δ in each direction, decided from every estimate of δ(ε) of
    ``trials`` draws of ``sample`` at once -- the plain hockey-stick tails, δ(ε) as one bounded mean
    E_D[(1 − e^{ε−L})₊], the atom at L = +∞ -- and, where δ·trials < 30, importance sampling through the noise view
    (exponential tilting for Laplace and geometric noise, :mod:`pdp_audit.verify.estimators.tilting`) beside them
    (:mod:`pdp_audit.verify.evidence.pair_claims`).  A DP check passes only when the upper end of their intersected
    interval is at most δ; it fails when the lower end exceeds δ or the estimates contradict each other.

    Args:
      pair: the mechanism on (D, D'): ``sample(world, size, rng)`` returning a (size, ``output_dim``) array for
        ``world`` ``"D"`` or ``"D'"``, drawing only from ``rng``; ``privacy_loss(outputs)`` returning the exact
        log p_D(o) − log p_D'(o) of each row (:class:`~pdp_audit.mechanisms.base.NeighbourPair`).
      epsilon: the claimed ε, finite and >= 0.
      delta: the claimed δ, in [0, 1).  δ = 0 (pure DP) cannot be proven by sampling: a pass then certifies the
        δ upper bound its interval states (the check's ``ci``), and says so in its note.
      trials: samples per world, 100 to 1e8 (memory does not grow with it).
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

        run = pdp_audit.audit_pair(Gaussian(sigma=4.0), epsilon=1.0, delta=1e-3)
        run.verdict  # 'pass'
    """
    epsilon, delta, trials, seed, alpha = _claim(epsilon, delta, trials, seed, alpha)
    _pair(pair)
    exact_delta = pair_value("exact_delta", exact_delta)
    from pdp_audit.verify.evidence.pair_checks import validated_dp_checks
    from pdp_audit.verify.own_mechanism import GuardedPair

    # whatever sample() or privacy_loss() raises (sys.exit included) is the pair's fault: the exact fail pair-protocol
    guarded = GuardedPair(pair, type(pair).__name__)
    evidence = validated_dp_checks(guarded, epsilon, delta, trials, seed, per_instance, exact_delta)
    parameters = {
        "pair": f"{type(pair).__name__}, as given",
        "claim": "per-instance DP" if per_instance else "DP",
        "epsilon": epsilon,
        "delta": delta,
        "trials": trials,
        "exact_delta": exact_delta,
    }
    return _decided(type(pair).__name__, evidence, alpha, parameters, seed)


@with_own_float_rules
def audit_blackbox(
    pair: Any,
    epsilon: float,
    delta: float,
    *,
    trials: int = BLACKBOX_TRIALS,
    seed: int = 0,
    alpha: float = DEFAULT_ALPHA,
    progress: bool = False,
    budget: Any = None,
) -> Run:
    """Try to refute an (ε, δ)-DP claim of a mechanism that can only be sampled.

    By default (``statistic="events"``), the exact event test: candidate statistics (a logistic regression on the
    releases and their squares in the spirit of DP-Sniper, gradient-boosted trees, the likelihood ratio of repeated
    outcomes, per-column histograms) are learned on ``train_trials`` releases per world, a statistic and at most two
    threshold events are chosen on a quarter of ``trials`` further releases, and each event's two counts on about
    ``trials`` fresh releases (a Poisson number), of which only counts are kept, are tested jointly: the exact
    binomial bound on the share of D among the releases in the event.  ``statistic="logistic"``: the
    logistic test alone, its scores on the fresh releases bounded as the white-box attack does (a joint exact test
    of both rates at pooled ranks fixed in advance).  The bound is valid whatever was learned.
    A black-box audit can refute a claim (verdict ``fail``, exit code 1) or find no violation at this budget
    (``inconclusive``, 3); it never certifies.

    Args:
      pair: an object with ``sample(world, size, rng)`` (``world`` ``"D"`` or ``"D'"``; releases as a
        (size, d) array), or a tuple ``(sample_D, sample_D_prime)`` of functions ``(size, rng) -> releases``.
      epsilon: the claimed ε, finite and >= 0.
      delta: the claimed δ, in [0, 1).
      trials: fresh releases per world for the bound, 100 to 1e9 (default 8e6; the event test's memory does not
        grow with it).
      seed: root seed, >= 0.
      alpha: false-alarm probability, in [1e-50, 1).
      progress: show a bar of the releases drawn on stderr (where it is a terminal).
      budget: a :class:`BlackBoxBudget` (default ``BlackBoxBudget()``): ``statistic`` -- ``events`` (default),
        ``events-numbers``, ``logistic`` or ``select`` (``pdp-audit blackbox --statistic``); ``train_trials`` --
        releases per world to learn the test from, 100 to 1e8 (default: ``trials``, at most 5e5 for the event
        test); ``workers`` -- processes drawing the releases, or ``scheduler`` (a Dask scheduler's address) or
        ``dask_local`` (a Dask LocalCluster of N processes started for the run): where the blocks of releases are
        drawn (the numbers do not depend on it; the samplers must then be picklable).

    Returns:
      The decided :class:`~pdp_audit.reports.records.Run` with one check, ``blackbox-attack``; or the exact fail
      ``pair-protocol`` for a sampler that returns no (size, d) array of finite numbers or does not draw from its
      ``rng`` alone.

    Raises:
      InputError: an argument out of its range, or a pair without ``sample``.

    Example::

        import numpy as np
        import pdp_audit

        def sample_d(size, rng):
            return rng.normal(1.0, 0.5, size=(size, 1))

        def sample_d_prime(size, rng):
            return rng.normal(0.0, 0.5, size=(size, 1))

        run = pdp_audit.audit_blackbox((sample_d, sample_d_prime), epsilon=1.0, delta=1e-5, trials=20_000)
        run.verdict  # 'fail': a mean shift of 2σ is far from (1, 1e-5)-DP
    """
    from pdp_audit.audits.blackbox.evidence import BlackBoxBudget

    if budget is None:
        budget = BlackBoxBudget()
    elif not isinstance(budget, BlackBoxBudget):
        raise InputError(f"budget must be a pdp_audit.BlackBoxBudget, got {type(budget).__name__}")
    return audit_blackbox_with(pair, (epsilon, delta, alpha), trials, seed, progress, budget)


def audit_blackbox_with(pair: Any, claim: tuple, trials: Any, seed: Any, progress: bool, budget: Any) -> Run:
    """:func:`audit_blackbox` with its claim as (ε, δ, α) and the budget beyond ``trials`` as a
    :class:`~pdp_audit.audits.blackbox.evidence.BlackBoxBudget` (``train_trials``, ``workers``: results do not
    depend on the workers; the samplers must then be picklable): what ``pdp-audit blackbox`` runs."""
    from pdp_audit.audits.blackbox.evidence import BlackBoxBudget, BlackBoxSamplers, UserSampler, blackbox_checks
    from pdp_audit.verify.core.dask_cluster import checked_place

    epsilon, delta, trials, seed, alpha = _claim(
        claim[0], claim[1], trials, seed, claim[2], "refuted_delta", "blackbox_trials"
    )
    train_trials = budget.train_trials
    if budget.statistic not in STATISTICS:
        raise InputError(f"statistic must be one of {', '.join(STATISTICS)}, got {budget.statistic!r}")
    workers = pair_value("workers", budget.workers)
    budget = BlackBoxBudget(
        None if train_trials is None else pair_value("train_trials", train_trials),
        workers,
        budget.statistic,
        *checked_place(workers, budget.scheduler, budget.dask_local),
    )
    if isinstance(pair, tuple) and len(pair) == 2 and all(callable(f) for f in pair):
        name = getattr(pair[0], "__qualname__", type(pair[0]).__name__)
        pair = BlackBoxSamplers(*pair)
    else:
        _pair(pair, needs_loss=False)
        name = type(pair).__name__
    samplers = (UserSampler(pair, "D"), UserSampler(pair, "D'"))
    evidence = blackbox_checks(*samplers, epsilon, delta, trials, seed, bool(progress), budget)
    parameters = {
        "pair": f"{name}, as given",
        "claim": "DP (black box)",
        "epsilon": epsilon,
        "delta": delta,
        "trials": trials,
        **({} if budget.train_trials is None else {"train_trials": budget.train_trials}),
    }
    return _decided(name, evidence, alpha, parameters, seed)


@with_own_float_rules
def audit_coverage(
    holds: Any,
    rho: float,
    *,
    trials: int = DEFAULT_TRIALS,
    seed: int = 0,
    alpha: float = DEFAULT_ALPHA,
    exact_failure: float | None = None,
) -> Run:
    """Audit a claim "the event holds with probability at least 1 − ρ": an exact binomial test of the failures.

    Args:
      holds: a vectorised sampler ``(size, rng) -> bool array``, a per-trial ``rng -> bool`` function, or an
        array of outcomes already drawn.
      rho: the claimed failure probability ρ, in (0, 1).
      trials: draws of a sampler, 100 to 1e8 (ignored for an array).
      seed: root seed, >= 0.
      alpha: false-alarm probability, in [1e-50, 1).
      exact_failure: the exact failure probability, if known (shown beside the estimate; never evidence).

    Returns:
      The decided :class:`~pdp_audit.reports.records.Run` with one check, ``coverage``.

      A sampler that raises (``sys.exit`` included), or returns anything but a boolean array of shape (size,) (a
      per-trial function: anything but a bool), is the exact fail ``pair-protocol`` naming the call: casting NaN,
      0.5 or 2 to bool would make every trial hold.

    Raises:
      InputError: an argument out of its range, or an array of outcomes that is not boolean.

    Example::

        import numpy as np
        import pdp_audit

        # |N(0, 1)| <= 2.576 holds with probability 0.99
        run = pdp_audit.audit_coverage(lambda size, rng: np.abs(rng.standard_normal(size)) <= 2.576, rho=0.01)
        run.verdict  # 'inconclusive': the claim is exactly tight, no sample size can confirm it
    """
    rho, trials = pair_value("rho", rho, required=True), pair_value("trials", trials, required=True)
    seed, alpha = pair_value("seed", seed, required=True), pair_value("alpha", alpha, required=True)
    from pdp_audit.audits.coverage.evidence import coverage_checks

    evidence = coverage_checks(holds, rho, trials, seed, exact_failure)
    drawn = evidence[0].details.get("trials", trials)  # a malformed sampler: the trials asked for
    parameters = {"claim": "coverage", "rho": rho, "trials": int(drawn)}
    name = getattr(holds, "__name__", type(holds).__name__)
    return _decided(name, evidence, alpha, parameters, seed)


@with_own_float_rules
def check_pair(pair: NeighbourPair) -> None:
    """Run the contract suite every built-in mechanism passes on ``pair`` (cf. scikit-learn's ``check_estimator``).

    Checks output shapes, determinism under the same generator, independence from how the draws are split into
    blocks, antisymmetry of the loss under swapping the worlds, and the likelihood-ratio identities on events of the
    release with the scale identity of the loss -- the ``loss-consistency`` test of :func:`audit_pair` (2e5 draws per
    world, false-alarm probability 1e-6).

    Args:
      pair: a :class:`~pdp_audit.mechanisms.base.NeighbourPair`.

    Raises:
      AssertionError: naming the first check that fails.
      InputError: ``pair`` without ``sample`` and ``privacy_loss`` (None, say).

    Example::

        pdp_audit.check_pair(MyPair())  # None, or AssertionError("check_antisymmetry: ...")
    """
    from pdp_audit.verify.evidence.contract import check_pair as contract

    _pair(pair)

    contract(pair)


def list_audits() -> dict[str, str]:
    """The built-in audits (``pdp-audit list``): name -> one line on what it audits.

    Example::

        sorted(pdp_audit.list_audits())[:3]  # ['adaops', 'adassp', 'gaussian']
    """
    from pdp_audit.verify.catalogue.plans import plans_by_name

    return {name: plan.help for name, plan in plans_by_name().items()}


@with_own_float_rules
def run_audit(
    name: str,
    *,
    seed: int = 0,
    alpha: float = DEFAULT_ALPHA,
    workers: int = 1,
    paper_claims: bool = False,
    progress: bool = False,
    **options: Any,
) -> Run:
    """Run a built-in audit: what ``pdp-audit run NAME`` computes, with its options as keywords.

    Args:
      name: an audit of :func:`list_audits` (``"gaussian"``, ``"objpert"``, …).
      seed: root seed, >= 0 (``--seed``): the same seed and options give the same numbers and report bytes.
      alpha: family-wise false-alarm probability of the run (``--alpha``).
      workers: worker processes, 1 to 256; results do not depend on it.
      paper_claims: also check the papers' statements as printed (``run.findings``); never changes the verdict.
      progress: show progress on stderr.
      **options: the audit's ``run`` options with dashes as underscores (``claim_epsilon=0.5``, ``trials=2e4``,
        ``synthetic="200,5"``; a flag is ``True``); ``pdp-audit run NAME --help`` lists them.

    Returns:
      The decided :class:`~pdp_audit.reports.records.Run`.

    Raises:
      InputError: an unknown audit or option, or a value out of its range (before any computation).

    Example::

        run = pdp_audit.run_audit("gaussian", claim_epsilon=1.0, claim_delta=1e-5, trials=20_000)
        run.exit_code  # 0
        pdp_audit.write_report(run, pdf="gaussian.pdf")
    """
    plans = audit_plans()
    if name not in plans:
        raise InputError(f"name must be an audit of `pdp-audit list` ({', '.join(plans)}), got {name!r}")
    workers = pair_value("workers", workers)
    plan = plans[name]
    config = plan.configure({**options, "seed": seed, "alpha": alpha, **plan.paper_option(paper_claims)})
    return run_config(plan, config, workers, progress)


def run_cell(audit: str, seed: int, alpha: float, options: Mapping[str, Any], checks: Any, where: str) -> tuple:
    """The cell of ``pdp-audit sweep`` with ``mechanism = audit``, root seed ``seed`` and ``options`` (keywords,
    errors naming ``where``), run at ``alpha`` with the check ids ``checks`` selected (None: all): ``(cell, alpha,
    result)`` with ``alpha`` as checked, what the pytest plugin's ``privacy_audit.run`` asserts on."""
    from pdp_audit.verify.sweeps.catalogue import SWEEPS
    from pdp_audit.verify.sweeps.spec import cell_from_options

    mechanisms = {m.name: m for m in SWEEPS}
    if audit not in mechanisms:
        raise ValueError(f"audit must be one of {', '.join(sorted(mechanisms))}, got {audit!r}")
    alpha = pair_value("alpha", alpha)
    mechanism = mechanisms[audit]
    cell = cell_from_options(mechanism, seed, options, where)
    selected = tuple(checks) if checks else None
    unknown = [c for c in selected or () if not mechanism.has_check(c)]
    if unknown:
        raise ValueError(f"checks: {audit!r} has no check {unknown[0]!r} (valid: {mechanism.valid_checks()})")
    return cell, alpha, mechanism.cell(dict(cell.parameters), cell.seed, alpha, selected)


def audit_plans() -> dict:
    """Every built-in audit's :class:`~pdp_audit.verify.core.plan.AuditPlan` by its ``run`` name, in the order
    ``pdp-audit list`` shows them: what :func:`run_audit` runs and ``pdp-audit run NAME`` generates its parser from."""
    from pdp_audit.verify.catalogue.plans import plans_by_name

    return plans_by_name()


def command_line_config(plan: Any, args: Any) -> Any:
    """The config of ``plan`` from a parsed ``pdp-audit run NAME`` command line (its defaults for the rest), every
    value checked before any work, errors naming the flags."""
    from pdp_audit.verify.catalogue.arguments import configure_from_args

    return configure_from_args(plan, args)


def run_config(plan: Any, config: Any, workers: int = 1, progress: bool = False) -> Run:
    """Run ``plan`` on its ``config`` (:func:`command_line_config`) over ``workers`` processes: the decided run
    :func:`run_audit` returns and ``pdp-audit run NAME`` reports."""
    return plan.execute(config, workers=workers, progress=bool(progress))


@with_own_float_rules
def certify(
    deployment: str | os.PathLike | Mapping[str, Any], *, workers: int | None = None, progress: bool = False
) -> Run:
    """Certify a deployment: run the guarantees of its audit on exactly its parameters, data and claim.

    What ``pdp-audit certify DEPLOY.toml`` computes.  The result carries ``certified``: the mechanism, every
    parameter (defaults resolved), the claim, the budget, the data's SHA-256 and shape, the code version and the
    deployment's own SHA-256.  Paper findings are never part of a certificate.

    ``mechanism`` may name your own factory, ``"module:factory"`` (the deployment's folder, or the current one for
    a mapping, is importable): ``factory(**parameters)`` returns a pair, decided by :func:`audit_pair`'s checks
    (or :func:`audit_blackbox`'s for a pair with ``sample`` only: never certified), with each pair of its
    ``per_instance()`` if it has one; δ = 0 may be claimed (:mod:`pdp_audit.verify.own_mechanism`).  A ``release``
    list of ``{"mechanism", "parameters"}`` certifies several releases as one (:mod:`pdp_audit.verify.joint_release`).

    Args:
      deployment: the path of a deployment file (TOML), or the same document as a mapping (``{"mechanism":
        "gaussian", "claim": {"epsilon": 1.0, "delta": 1e-5}, "parameters": {...}, "audit": {...}}``), whose
        relative ``data`` path is then relative to the current folder.
      workers: worker processes (default: ``[audit] workers``, else 1); results do not depend on it.
      progress: show progress on stderr.

    Returns:
      The decided :class:`~pdp_audit.reports.records.Run`; ``exit_code`` 0 means certified.

    Raises:
      InputError: the file, a key or a value is wrong (one line naming the key), before any computation.

    Example::

        run = pdp_audit.certify("deploy.toml")
        run.exit_code, run.certified["data_sha256"]
    """
    from pdp_audit.verify.deployment import deployment_from_mapping

    if isinstance(deployment, Mapping):
        loaded = deployment_from_mapping(deployment)
    elif isinstance(deployment, (str, os.PathLike)):
        loaded = load_deployment(os.fspath(deployment))
    else:
        raise InputError(f"deployment must be a file path or a mapping, got {type(deployment).__name__}")
    return certify_loaded(loaded, workers=workers, progress=progress)


def load_deployment(path: str) -> Any:
    """The deployment file at ``path``, its structure checked (one-line errors naming the file and the key):
    :class:`pdp_audit.verify.deployment.Deployment`, what ``pdp-audit certify`` checks its files against."""
    from pdp_audit.verify.deployment import load_deployment as load

    return load(path)


def certify_loaded(deployment: Any, workers: int | None = None, progress: bool = False) -> Run:
    """Certify a loaded deployment (:func:`load_deployment`): what :func:`certify` and ``pdp-audit certify``
    return."""
    from pdp_audit.verify.joint_release import certify as certify_deployment

    return certify_deployment(deployment, workers=workers, progress=progress)


def write_report(run: Run, pdf: str | os.PathLike | None = None, json: str | os.PathLike | None = None) -> None:
    """Write a run's PDF report and/or JSON document, both complete before either replaces what was there.

    The same run gives byte-identical files.  A symbolic link is followed to its target; a folder that does not
    exist or cannot be written is one InputError naming the argument, before anything is rendered.

    Args:
      run: a :class:`~pdp_audit.reports.records.Run` from any function of this API.
      pdf: where to write the PDF (None: no PDF).
      json: where to write the JSON document (None: no JSON; ``"-"``: standard output).

    Raises:
      InputError: an output path that cannot be written.

    Example::

        pdp_audit.write_report(run, pdf="audit.pdf", json="audit.json")
    """
    if not isinstance(run, Run):
        raise InputError(f"run must be a pdp_audit.Run, got {type(run).__name__}")
    pdf = None if pdf is None else os.fspath(pdf)
    json = None if json is None else os.fspath(json)
    check_outputs({"pdf": pdf, "json": json}, pdfs=("pdf",))
    publish(run, pdf, json)


def publish(run: Run, pdf: str | None, json: str | None) -> None:
    """Write a run's PDF and JSON (``"-"``: standard output) to paths its caller checked already, in its own words
    (``--report``, ``--json``): both complete before either replaces what was there."""
    from pdp_audit.reports.publish import write_run_reports

    write_run_reports(run, pdf, json)


def read_sweep(path: str | os.PathLike) -> pandas.DataFrame:
    """A sweep store (``pdp-audit sweep``'s SQLite file) as a pandas DataFrame: one row per cell and check.

    Columns: the cell's parameters (one column each); ``cell_id``, ``position``, ``seed``, ``alpha`` and the
    cell's ``verdict``; the check's ``check``, ``role``, ``check_verdict``, ``estimate``, ``ci_lo``, ``ci_hi``,
    ``level`` and ``exact``.  The store is opened read-only, complete or not.

    Args:
      path: the store.

    Returns:
      A ``pandas.DataFrame``.

    Raises:
      InputError: not a sweep store, or a damaged one.

    Example::

        frame = pdp_audit.read_sweep("sweep-small.sqlite")
        frame.groupby("check")["estimate"].describe()
    """
    from pdp_audit.verify.sweeps.store import read_frame

    return read_frame(os.fspath(path))


# --------------------------------------------------------------------------------------------------
# Black box: a search over neighbouring inputs, and a witness's re-check
# --------------------------------------------------------------------------------------------------
@with_own_float_rules
def audit_blackbox_search(
    mechanism: Any, epsilon: float, delta: float, *, seed: int = 0, alpha: float = DEFAULT_ALPHA, options: Any = None
) -> Any:
    """Search neighbouring inputs of a sampled mechanism for a pair that refutes an (ε, δ)-DP claim.

    Candidate pairs (the StatDP / DP-Sniper input patterns, random pairs, or optuna's proposals) are ranked by the
    ε bound of a pilot attack on each; the chosen pair is attacked on fresh releases and that bound alone decides:
    the pilots only select, so no correction for the search is needed (:mod:`pdp_audit.audits.blackbox.search`).

    Args:
      mechanism: an object with ``dimension`` (the dataset's length) and ``release(dataset, size, rng)``
        (:class:`pdp_audit.audits.blackbox.search.SearchMechanism`).
      epsilon: the claimed ε, finite and >= 0.
      delta: the claimed δ, in [0, 1).
      seed: root seed, >= 0 (pilots and the final attack draw from independent streams of it).
      alpha: false-alarm probability, in [1e-50, 1).
      options: a :class:`SearchOptions` (default: patterns under ``linf:1``, 16 candidates, pilots of 2e4
        releases per world with the logistic test, the chosen pair attacked by the event test on 8e6 fresh
        releases per world; ``workers``, ``scheduler`` or ``dask_local``: where the blocks are drawn).

    Returns:
      A :class:`~pdp_audit.audits.blackbox.search_check.SearchOutcome`: ``run`` (verdict ``fail`` or
      ``inconclusive``, never certified), ``result`` (the ranking, the chosen pair, the final attack) and
      ``witness`` (the pair and the learned test as JSON-ready data).

    Raises:
      InputError: an argument or option out of its range, or a mechanism without ``dimension`` and ``release``.

    Example::

        import numpy as np
        import pdp_audit

        class NoisyMax:  # releases the noisy maximum: not 0.1-DP
            dimension = 5
            def release(self, answers, size, rng):
                return np.max(answers + rng.laplace(scale=20.0, size=(size, 5)), axis=1)

        outcome = pdp_audit.audit_blackbox_search(NoisyMax(), epsilon=0.1, delta=0.0)
        outcome.result.chosen.name, outcome.run.verdict
    """
    from pdp_audit.audits.blackbox.search_check import audit_blackbox_search_with

    name = type(mechanism).__qualname__
    return audit_blackbox_search_with(mechanism, (epsilon, delta, alpha), seed, options, name)
