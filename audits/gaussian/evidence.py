"""The audit of the Gaussian mechanism: the evidence for every check of :mod:`pdp_audit.audits.gaussian.checks`.

The mechanism releases the clipped sum (or the count) of a real dataset plus N(0, σ²I).  The DP
claim is audited at a worst-case neighbour (a row on the clip sphere, ‖Δ_z‖ = C): the Gaussian
privacy loss L = log p_D(o)/p_D'(o) is N(η²/2, η²) under D with η = ‖Δ_z‖/σ ([RW] Theorem 22), so it
depends on Δ_z only through ‖Δ_z‖ and this pair is the worst case for every dataset.

With ``--query mean`` the release is the clipped sum and the count together
(:mod:`pdp_audit.mechanisms.gaussian_mean`): the worst neighbour moves the sum by C and the count by 1, the loss is
the sum of the two Gaussian losses, and every closed form below is read in the whitened units of that joint release
(sensitivity μ = √(μ_sum² + μ_count²), σ = 1: :attr:`GaussianSetup.closed_form_scale`), where it is exact.

σ is the analytic calibration (Balle & Wang 2018, Theorem 8), the user's ``--sigma``, or the classical
σ = Δ√(2 log(1.25/δ))/ε (Dwork & Roth 2014, Theorem A.1) with ``--calibration classical``, which deploys that
printed calibration and makes ``classical-calibration`` a guarantee
(:meth:`pdp_audit.verify.core.checks.CheckSpec.deployed`).

Every DP or pDP check (``dp-forward``, ``dp-reverse``, ``cor23-pdp``, ``pdp-median-individual`` and the
findings ``classical-epsilon``, ``classical-calibration``) is decided and drawn by
:func:`pdp_audit.verify.evidence.profile_checks.dp_check_with_profile`: importance sampling where δ·trials < 30 (the
defaults), plain tails otherwise, and the privacy profile of its pair (exact, plain, importance-sampled).
Paper findings (:mod:`pdp_audit.audits.gaussian.checks` gives each check's role) are computed only with
``paper_claims`` (``--paper-claims``) or when deployed; the verdict comes from the guarantees only.
"""

from __future__ import annotations

import threading
from concurrent.futures import Executor
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Callable, Sequence

import numpy as np
from scipy import stats

from pdp_audit.audits.gaussian.checks import CHECKS
from pdp_audit.audits.gaussian.config import GaussianAuditConfig, check_data_width
from pdp_audit.audits.gaussian.pages import per_instance_record
from pdp_audit.mechanisms import gaussian as g
from pdp_audit.mechanisms import gaussian_exact
from pdp_audit.mechanisms import gaussian_mean as gm
from pdp_audit.mechanisms import gaussian_pdp as gp
from pdp_audit.mechanisms import gaussian_query as gq
from pdp_audit.mechanisms.row_reductions import ScaledRows, row_norms, sums_in_order
from pdp_audit.reports.records import Check, PerInstance, Run
from pdp_audit.verify.core.beside import computed_beside
from pdp_audit.verify.core.checks import CheckSpec, Evidence, finalize, make_run
from pdp_audit.verify.estimators.attack import likelihood_ratio_attack
from pdp_audit.verify.estimators.coverage import coverage_of
from pdp_audit.verify.estimators.engine import block_rng, sample_privacy_loss
from pdp_audit.verify.estimators.progress import planned, planning
from pdp_audit.verify.estimators.tails import both_directions
from pdp_audit.verify.evidence import builders
from pdp_audit.verify.evidence.clipping import clipping_record
from pdp_audit.verify.evidence.dp_claim import DpClaim, Draws
from pdp_audit.verify.evidence.pair_validation import loss_consistency_check
from pdp_audit.verify.evidence.profile_checks import dp_check_with_profile, profile_draws
from pdp_audit.verify.inputs.datasets import Dataset, load_csv, load_shipped, standardize, synthetic_rows


def _spec(check_id: str, **values) -> CheckSpec:
    return CHECKS[check_id].fill(**values)


def load_rows(config: GaussianAuditConfig) -> tuple[Dataset, np.ndarray]:
    """The dataset and the rows the query sees.

    Shipped data are z-scored and scaled so that 90% of rows lie inside the clip ball (the rest are
    clipped): individuals then have visibly different sensitivities.  A user CSV is used as is.
    """
    if config.data is not None:
        dataset = load_csv(config.data, config.target_column)
        check_data_width(config.data, dataset)
        return dataset, dataset.features
    if config.synthetic is not None:  # iid N(0, 1) already: scaled, not standardised
        dataset = synthetic_rows(*config.synthetic, block_rng(config.seed, "synthetic-data", 0))
        rows = dataset.features
    else:
        assert config.dataset is not None  # set by resolve() without --data or --synthetic
        dataset = load_shipped(config.dataset)
        rows = standardize(dataset.features)
    scale = np.quantile(np.linalg.norm(rows, axis=1), 0.9)
    return dataset, rows * (config.sensitivity / scale)


def epsilon_grid(sigma: float, sensitivity: float, delta: float, extra: list[float]) -> np.ndarray:
    """33 ε from 0 to where δ(ε) falls below min(δ, 1e-3)/100, plus the ε of ``extra``."""
    top = max(g.analytic_epsilon(min(delta, 1e-3) / 100, sigma, sensitivity), max(extra) * 1.1)
    return np.unique(np.concatenate([np.linspace(0, top, 33), extra]))


#: The passes over every row :class:`GaussianSetup` computes once, whichever thread asks first.
_SHARED = ("row_norms", "sensitivities", "sensitivity_order")


def _computed_once(compute: Callable[[Any], np.ndarray]) -> Any:
    """A property computed on first use and kept, as ``cached_property``, and once only when two threads ask at once
    (the second waits for the first's result; ``cached_property`` computes it twice from Python 3.12 on).  Each
    property has its own lock, taken in the order the properties read each other (the order, the sensitivities,
    the norms): a thread waits only for the pass it needs."""
    name = compute.__name__

    def get(self) -> np.ndarray:
        known = self.__dict__.get(name)
        if known is None:
            with self._computing[name]:
                known = self.__dict__.get(name)
                if known is None:
                    known = self.__dict__[name] = compute(self)  # a frozen dataclass's own dict
        return known

    return property(get, doc=compute.__doc__)


@dataclass(frozen=True)
class GaussianSetup:
    """The audited mechanism on its data: the rows the query sees and the calibrated σ.

    For ``--query mean`` (the sum and the count released together), ``query`` is the clipped sum, ``sigma`` and
    ``calibrated`` are the sum's σ, and ``mean`` is the joint mechanism (its count's σ is ``sigma / C``).
    """

    dataset: Dataset
    rows: np.ndarray
    query: gq.Query
    calibrated: float
    sigma: float
    mean: gm.GaussianMeanMechanism | None = None
    _computing: dict[str, threading.Lock] = field(
        default_factory=lambda: {name: threading.Lock() for name in _SHARED}, compare=False, repr=False
    )

    @property
    def mechanism(self) -> g.GaussianMechanism | gm.GaussianMeanMechanism:
        return self.mean if self.mean is not None else g.GaussianMechanism(self.query, self.sigma)

    def clipped(self) -> np.ndarray | ScaledRows | None:
        """The rows as the sum sees them (None for a count, which clips nothing), for the evidence to build its pairs
        from (clipping a 1e6-row matrix is a norm and a product: it was done for every pair and world): the rows with
        their clip factors (:class:`~pdp_audit.mechanisms.row_reductions.ScaledRows`, summed a block at a time),
        or a clipped copy where numpy would not sum them in order (one column)."""
        if self.query.kind == "count":
            return None
        if sums_in_order(self.rows):
            return ScaledRows(self.rows, gq.clip_scale(self.rows, self.query.clip, self.row_norms))
        return self.query.clipped(self.rows, self.row_norms)

    @_computed_once
    def row_norms(self) -> np.ndarray:
        """Every row's L2 norm, computed once: the clip, the sensitivities and the clipping record read it."""
        return row_norms(self.rows)

    @_computed_once
    def sensitivities(self) -> np.ndarray:
        """Every row's per-instance sensitivity (the per-instance check and the run's record both read it)."""
        if self.query.kind == "count":
            return self.mechanism.per_instance_sensitivities(self.rows)
        return self.mechanism.per_instance_sensitivities(self.rows, norms=self.row_norms)

    @_computed_once
    def sensitivity_order(self) -> np.ndarray:
        """``np.argsort(sensitivities)``, sorted once: the median individual is its middle entry, and the per-instance
        record reads the distinct sensitivities from it (a 1e6-row file was sorted twice)."""
        return np.argsort(self.sensitivities, kind="stable")  # ties in row order on every CPU

    @property
    def closed_form_scale(self) -> tuple[float, float]:
        """(sensitivity, σ) of the isotropic Gaussian closed forms at the worst neighbour: the query's (Δ, σ), or for
        the mean the whitened joint release's (μ, 1) (:mod:`pdp_audit.mechanisms.gaussian_mean`)."""
        if self.mean is not None:
            return self.mean.worst_mu, 1.0
        return self.query.sensitivity, self.sigma


def setup(config: GaussianAuditConfig) -> GaussianSetup:
    """Load ``config``'s data and calibrate σ (unless ``--sigma`` fixes it); the noise multiplier scales either."""
    dataset, rows = load_rows(config)
    if config.query == "mean":
        return _mean_setup(config, dataset, rows)
    query = gq.Query(config.query, config.sensitivity if config.query == "sum" else 1.0)
    calibrate = g.classical_sigma if config.deploys_classical else g.analytic_sigma
    calibrated = calibrate(config.epsilon, config.delta, query.sensitivity)
    sigma = (config.sigma if config.sigma is not None else calibrated) * config.noise_multiplier
    return GaussianSetup(dataset, rows, query, calibrated, sigma)


def _calibrated_unit_sigma(config: GaussianAuditConfig) -> float:
    """Noise per unit sensitivity of the joint release: 1/μ of the claim (analytic or classical calibration)."""
    calibrate = g.classical_sigma if config.deploys_classical else g.analytic_sigma
    return calibrate(config.epsilon, config.delta, 1.0)


def _mean_setup(config: GaussianAuditConfig, dataset: Dataset, rows: np.ndarray) -> GaussianSetup:
    """The mean's sum and count σ by the equal-μ rule (:func:`pdp_audit.mechanisms.gaussian_mean.equal_mu_sigmas`),
    from the calibration or from ``--sigma`` (the sum's σ), times the noise multiplier."""
    clip = config.sensitivity
    calibrated_sum, calibrated_count = gm.equal_mu_sigmas(_calibrated_unit_sigma(config), clip)
    if config.sigma is None:
        sigma_sum, sigma_count = calibrated_sum, calibrated_count
    else:
        sigma_sum, sigma_count = config.sigma, config.sigma / clip
    m = config.noise_multiplier
    mean = gm.GaussianMeanMechanism(clip, sigma_sum * m, sigma_count * m)
    return GaussianSetup(dataset, rows, gq.Query("sum", clip), calibrated_sum, sigma_sum * m, mean)


def run_gaussian_audit(config: GaussianAuditConfig, executor: Executor | None = None, progress: bool = False) -> Run:
    """Every check of the Gaussian audit, decided together at family-wise error ``config.alpha``."""
    s = setup(config)
    # every individual's pDP ε beside the checks (array loops, no interpreter lock) -- the sensitivities and their
    # order too, while this thread clips and sums -- in this process only: no thread is running when a pool forks
    with computed_beside(per_instance_summary, config, s, thread=executor is None) as per_instance:
        checks = finalize(gaussian_evidence(config, s, executor, progress), config.alpha)
        return gaussian_run(config, s, checks, per_instance())


def per_instance_summary(config: GaussianAuditConfig, s: GaussianSetup) -> PerInstance:
    """Every individual's exact pDP ε and Corollary 23's bound at her sensitivity (:func:`per_instance_record`)."""
    S, closed_sigma = s.closed_form_scale
    label = "sensitivity ‖Δ_z‖"
    if s.mean is not None:
        label = "whitened sensitivity μ_z = √((‖clip_C(z)‖/σ_sum)² + (1/σ_count)²) (sum and count together)"
    return per_instance_record(
        s.sensitivities, config.delta, closed_sigma, S, config.epsilon, label, order=s.sensitivity_order
    )


def gaussian_run(
    config: GaussianAuditConfig, s: GaussianSetup, checks: Sequence[Check], per_instance: PerInstance | None = None
) -> Run:
    """The run record of decided ``checks``: parameters and the per-instance summary of every individual
    (``per_instance``, where the caller computed it: :func:`per_instance_summary`)."""
    rows, dataset, sigma, calibrated = s.rows, s.dataset, s.sigma, s.calibrated
    parameters = {
        **asdict(config),
        "sigma": sigma,
        "calibrated_sigma": calibrated,
        "sigma_source": sigma_source(config),
        "query_sensitivity": s.query.sensitivity,  # the sum's C for the mean (its joint μ: mu_joint)
        "dataset_description": dataset.description,
        "n_rows": int(len(rows)),
        "dimension": int(rows.shape[1]),
        "worst_case_target": "a row on the clip sphere (‖Δ_z‖ = C), added",
        **_mean_parameters(s),
    }
    if per_instance is None:
        per_instance = per_instance_summary(config, s)
    run = make_run(
        "gaussian",
        checks,
        config.alpha,
        parameters,
        config.seed,
        per_instance=per_instance,
        paper_claims=config.paper_claims,
    )
    clip = None if s.query.kind == "count" else s.query.clip  # a count clips nothing
    return replace(run, clipping=clipping_record(rows, clip, order=2, norms=None if clip is None else s.row_norms))


def _mean_parameters(s: GaussianSetup) -> dict:
    """The mean's own parameters: the count's σ, each part's μ and the joint μ (none for a sum or a count)."""
    if s.mean is None:
        return {}
    m = s.mean
    return {
        "worst_case_target": "a row on the clip sphere, added: the sum moves by C, the count by 1",
        "sigma_count": m.sigma_count,
        "calibration_rule": "equal μ: σ_sum = √2·C·u, σ_count = √2·u, u = the claim's σ per unit sensitivity",
        "mu_sum": m.clip / m.sigma_sum,
        "mu_count": 1 / m.sigma_count,
        "mu_joint": m.worst_mu,
        "released": "noisy clipped sum and noisy count together (mean = their ratio, post-processing)",
    }


def sigma_source(config: GaussianAuditConfig) -> str:
    """Where the released σ comes from, in words."""
    if config.sigma is not None:
        source = "user (--sigma)"
    elif config.deploys_classical:
        source = (
            "classical calibration Δ√(2 log(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1; deployed: --calibration classical)"
        )
    else:
        source = "analytic Gaussian calibration to the claim"
    if config.query == "mean":
        source += ", for the sum; the count's σ = σ/C (equal-μ rule)"
    if config.noise_multiplier != 1.0:
        source += f", times the noise multiplier {config.noise_multiplier:g} (the claim kept)"
    return source


def worst_case_pair(s: GaussianSetup, clipped: np.ndarray | ScaledRows | None = None) -> tuple[np.ndarray, Any]:
    """The worst-case neighbour (the row added, and the pair): a row on the clip sphere, so ‖Δ_z‖ = C (the sum's
    and the mean's) or 1 (the count's).  The audit decides it; a joint release (:mod:`pdp_audit.audits.joint`)
    takes it as this release's part.  ``clipped``: :meth:`GaussianSetup.clipped`, where the caller has it."""
    target = np.zeros(s.rows.shape[1])
    target[0] = s.query.sensitivity
    return target, s.mechanism.pair(s.rows, target, "add", clipped)


def gaussian_evidence(
    config: GaussianAuditConfig, s: GaussianSetup, executor: Executor | None = None, progress: bool = False
) -> list[Evidence]:
    """The evidence of every check, not yet decided (a sweep decides it at its own per-cell α)."""
    mechanism = s.mechanism
    clipped = s.clipped()
    S, sigma = s.closed_form_scale  # closed forms of the (whitened, for the mean) isotropic Gaussian release
    eps, delta, n, seed = config.epsilon, config.delta, config.trials, config.seed

    target, pair = worst_case_pair(s, clipped)
    # a progress bar plans the median individual's draws before the first one: its pair is made here, once, and the
    # check below audits that same pair (no second pass over every row)
    typical = _median_individual(mechanism, s, clipped, config) if planning() else None
    # so is the classical σ's pair, where a check audits it
    uses_classical = config.deploys_classical or config.paper_claims
    made_classical = _classical_pair(s, target, config, clipped) if typical is not None and uses_classical else None
    if typical is not None:
        planned(_planned_draws(config, s, (pair, typical, made_classical)))

    # Theorem 22's 1e5 releases and the typical individual's pair (passes over every row) are numpy's array loops,
    # which hold no interpreter lock: on a second thread while this one draws and decides the checks (not beside a
    # pool, whose workers are forked with no thread running)
    beside = executor is None
    with (
        computed_beside(_theorem22_check, pair, seed, thread=beside) as theorem22,
        computed_beside(_median_individual, mechanism, s, clipped, config, thread=beside)
        if typical is None
        else nullcontext(lambda: typical) as median,
    ):

        def losses(p, stream):
            return (
                sample_privacy_loss(p, "D", n, seed, stream, executor, progress),
                sample_privacy_loss(p, "D'", n, seed, stream, executor, progress),
            )

        loss_d, loss_dp = losses(pair, "dp-pair")
        eps_cor23 = gp.corollary23_pdp_epsilon(delta, sigma, S)
        eps_app_d = g.classical_epsilon(delta, sigma, S)
        grid = epsilon_grid(sigma, S, delta, [eps, eps_cor23, eps_app_d])
        tails = both_directions(loss_d, loss_dp, grid, config.alpha)
        exact_curve = np.array([g.analytic_delta(e, sigma, S) for e in grid])

        def dp_check(spec: CheckSpec, direction: str, epsilon: float) -> Evidence:
            """A DP claim at the worst-case pair, with its privacy profile."""
            return dp_check_with_profile(
                DpClaim(spec, direction, epsilon, delta),
                pair,
                (loss_d, loss_dp),
                Draws(n, seed, config.alpha, executor),
                exact_delta=lambda e: gaussian_exact.delta_upper(e, sigma, S),
                exact_epsilon=lambda d: g.analytic_epsilon(d, sigma, S),
            )

        forward = _spec("dp-forward", eps=eps, delta=delta)
        evidence = [
            dp_check(forward, "D||D'", eps),
            dp_check(_spec("dp-reverse", eps=eps, delta=delta), "D'||D", eps),
            loss_consistency_check(loss_d, loss_dp, guards=forward),
            builders.tail_curve_check(
                _spec("tail-curve"), tails, {"D||D'": exact_curve, "D'||D": exact_curve}, eps, delta
            ),
            _loss_law_check(loss_d, S, sigma, "μ = √(μ_sum² + μ_count²)" if s.mean is not None else "‖Δ‖/σ"),
            _attack_check(loss_d, loss_dp, S, sigma, eps, delta, config.alpha),
            _cor23_coverage_check(loss_d, S, sigma, config.rho),
            dp_check(_spec("cor23-pdp", delta=delta, eps_cor23=eps_cor23), "D||D'", eps_cor23),
            theorem22(),
            _per_instance_check(mechanism, s, median(), config, executor),
        ]

    def classical_check(spec: CheckSpec) -> Evidence:
        made = made_classical if made_classical is not None else _classical_pair(s, target, config, clipped)
        return _classical_calibration_check(spec, made, config, executor)

    classical = _spec(
        "classical-calibration",
        sigma_classical=g.classical_sigma(eps, delta, 1.0 if s.mean is not None else S),
        eps=eps,
        delta=delta,
    )
    if config.deploys_classical:
        evidence.append(classical_check(classical.deployed("--calibration classical")))
    if config.paper_claims:
        evidence.append(dp_check(_spec("classical-epsilon", delta=delta, eps_classical=eps_app_d), "D||D'", eps_app_d))
        if not config.deploys_classical:
            evidence.append(classical_check(classical))
        evidence.append(_example4_check(config))
    return evidence


def _planned_draws(config: GaussianAuditConfig, s: GaussianSetup, pairs: tuple) -> int:
    """The draws :func:`gaussian_evidence` takes, before it takes any (the whole audit's progress bar): ``trials``
    per world at each pair audited (the worst case, the median individual, the classical σ where it runs) and what
    each DP check's profile adds (:func:`~pdp_audit.verify.evidence.profile_checks.profile_draws`).  The fixed
    100,000-release draws of the exact checks (Theorem 22, Example 4) are not counted.  ``pairs``: the worst-case
    pair, :func:`_median_individual`'s tuple and :func:`_classical_pair`'s (None where no check audits it), as the
    checks audit them."""
    pair, typical, made_classical = pairs
    n, delta = config.trials, config.delta
    S, sigma = s.closed_form_scale
    eps_cor23, eps_app_d = gp.corollary23_pdp_epsilon(delta, sigma, S), g.classical_epsilon(delta, sigma, S)
    claims = [("D||D'", config.epsilon), ("D'||D", config.epsilon), ("D||D'", eps_cor23)]
    claims += [("D||D'", eps_app_d)] if config.paper_claims else []
    spec = _spec("dp-forward", eps=config.epsilon, delta=delta)

    def profile(pair, direction: str, epsilon: float, noise: float, sensitivity: float) -> int:
        claim = DpClaim(spec, direction, float(epsilon), delta)
        return profile_draws(claim, pair, n, lambda d: g.analytic_epsilon(d, noise, sensitivity))

    total = 2 * n + sum(profile(pair, direction, e, sigma, S) for direction, e in claims)
    _, median, eps_i, sensitivity = typical
    total += 2 * n + profile(median, "D||D'", eps_i, s.mechanism.sigma, sensitivity)
    if made_classical is not None:
        classical, noise, sensitivity = made_classical
        total += 2 * n + profile(classical, "D||D'", config.epsilon, noise, sensitivity)
    return total


def _loss_law_check(loss_d: np.ndarray, S: float, sigma: float, eta: str):
    """KS of the sampled loss against N(η²/2, η²); ``eta`` says what η is (‖Δ‖/σ, or the mean's joint μ)."""
    mean, sd = gp.privacy_loss_law(S, sigma)
    return builders.loss_law_check(
        _spec("loss-law"), loss_d, stats.norm(mean, sd).cdf, f"N(η²/2, η²), η = {eta} = {sd:.4g}"
    )


def _attack_check(loss_d, loss_dp, S, sigma, eps, delta, alpha):
    attack = likelihood_ratio_attack(loss_d, loss_dp, delta, alpha)
    points = [
        (float(gp.optimal_test_threshold(fpr, S, sigma)), float(gp.optimal_test_tpr(fpr, S, sigma)), fpr)
        for fpr in (1e-3, 1e-2, 1e-1, 0.5)
    ]
    return builders.attack_check(
        _spec("lr-attack"),
        attack,
        eps,
        delta,
        exact_epsilon=gaussian_exact.epsilon_upper(delta, sigma, g.analytic_epsilon(delta, sigma, S), S),
        exact_points=points,
        scores=(loss_d, loss_dp),
    )


def _cor23_coverage_check(loss_d, S, sigma, rho):
    """P[ε(o) > bound] ≤ ρ by Monte Carlo; the exact failure probability P[|N(η²/2, η²)| > bound] is evidence
    too when it satisfies the claim and lies inside the Monte Carlo interval (the suite's closed-form rule)."""
    bound = gp.corollary23_ex_post_bound(rho, sigma, S)
    # Ex-post pDP (Definition D3) is |log p_D(o) − log p_D'(o)|, computed here from the densities.
    cov = coverage_of(np.abs(loss_d) <= bound, rho)
    exact = gp.corollary23_exact_failure_probability(rho, sigma, S)
    check = builders.coverage_check(_spec("cor23-ex-post", rho=rho, bound=bound), cov, exact_failure=exact)

    def supports(ci, alpha) -> bool:
        exact_holds = exact <= rho  # a float closed form, far from ρ at the defaults (0.0072 against 0.01)
        return ci[1] <= rho or (exact_holds and ci[0] <= exact <= ci[1])

    return replace(check, exact=exact, supports=supports)


def _pair_check(spec: CheckSpec, pair, sigma: float, sensitivity: float, epsilon: float, config, stream: str, executor):
    """δ_{D‖D'}(ε) ≤ δ at ``pair`` (a Gaussian pair of noise σ and ‖Δ‖ = ``sensitivity``), from its own
    ``trials`` draws per world (stream ``stream``), with its privacy profile."""
    losses = (
        sample_privacy_loss(pair, "D", config.trials, config.seed, stream, executor),
        sample_privacy_loss(pair, "D'", config.trials, config.seed, stream, executor),
    )
    return dp_check_with_profile(
        DpClaim(spec, "D||D'", epsilon, config.delta),
        pair,
        losses,
        Draws(config.trials, config.seed, config.alpha, executor),
        exact_delta=lambda e: gaussian_exact.delta_upper(e, sigma, sensitivity),
        exact_epsilon=lambda d: g.analytic_epsilon(d, sigma, sensitivity),
    )


def _classical_calibration_check(spec: CheckSpec, made: tuple[Any, float, float], config, executor):
    """Dwork & Roth's σ = Δ√(2 log(1.25/δ))/ε gives (ε, δ)-DP at the worst-case neighbour (proved for ε < 1); for
    the mean, the joint release at that σ per unit sensitivity, split by the equal-μ rule.  ``made``: the pair, its
    noise and its sensitivity (:func:`_classical_pair`)."""
    pair, noise, sensitivity = made
    return _pair_check(spec, pair, noise, sensitivity, config.epsilon, config, "classical", executor)


def _classical_pair(s: GaussianSetup, target, config, clipped=None) -> tuple[Any, float, float]:
    """The worst-case pair at the classical σ, its noise and its sensitivity (those of its closed forms)."""
    query, rows = s.query, s.rows
    if s.mean is not None:
        unit = g.classical_sigma(config.epsilon, config.delta, 1.0)
        mean = gm.GaussianMeanMechanism(query.clip, *gm.equal_mu_sigmas(unit, query.clip))
        return mean.pair(rows, target, "add", clipped), 1.0, mean.worst_mu
    sigma_c = g.classical_sigma(config.epsilon, config.delta, query.sensitivity)
    return g.GaussianMechanism(query, sigma_c).pair(rows, target, "add", clipped), sigma_c, query.sensitivity


def _theorem22_check(pair, seed: int, size: int = 100_000):
    """Theorem 22's formula against the density ratio; the mean's joint pair is read through its whitened view
    (unit noise, :meth:`pdp_audit.mechanisms.gaussian_mean.JointGaussianPair.whitened`), its loss from its densities."""
    outputs = pair.sample("D", size, block_rng(seed, "theorem22", 0))
    seen, isotropic = pair.whitened(outputs) if hasattr(pair, "whitened") else (outputs, pair)
    formula = gp.ex_post_pdp(seen, isotropic.q_d, isotropic.delta_z, isotropic.sigma)
    exact = np.abs(pair.privacy_loss(outputs))
    error = float(np.max(np.abs(formula - exact) / np.maximum(1.0, exact)))
    return builders.exact_check(
        _spec("theorem22"),
        holds=error <= 1e-9,
        estimate=error,
        note=f"Largest relative difference between the formula and the density ratio over {size:.0e} releases: "
        f"{error:.2e} (tolerance 1e-9).",
        releases=size,
    )


def _example4_check(config: GaussianAuditConfig, size: int = 100_000):
    """[RW] Example 4: publishing the exact ex-post pDP of a count reveals the count."""
    sigma = g.analytic_sigma(config.epsilon, config.delta, 1.0)
    count = 1000
    pair = g.GaussianPair(np.array([count]), np.array([count + 1]), sigma)  # D, D+z
    outputs = pair.sample("D", size, block_rng(config.seed, "example4", 0))
    published = np.abs(pair.privacy_loss(outputs))  # the exact ex-post pDP, from the densities
    high, low = gp.example4_candidates(outputs[:, 0], published, sigma)
    # Exact arithmetic makes the second candidate an integer with probability 0; at tolerance 1e-9
    # (floating error here is ~1e-12) that happens with probability ~4e-9 per release.
    integral = [np.abs(c - np.round(c)) <= 1e-9 for c in (high, low)]
    ambiguous = int(np.sum(integral[0] & integral[1]))
    unique = integral[0] ^ integral[1]
    recovered = np.where(integral[0], np.round(high), np.round(low))
    correct = int(np.sum(unique & (recovered == count)))
    wrong = size - correct - ambiguous
    unit_pair = g.GaussianPair(np.zeros(1), np.ones(1), 1.0)
    footnote = gp.example4_candidates(0.1, abs(unit_pair.privacy_loss(np.array([[0.1]]))[0]), 1.0)
    footnote_ok = bool(np.allclose(sorted(footnote), [-0.8, 0.0], atol=1e-12))
    return builders.exact_check(
        _spec("example4"),
        holds=wrong == 0 and footnote_ok,
        estimate=correct / size,
        note=(
            f"Recovered the true count in {correct} of {size} releases (σ = {sigma:.4g}; both candidates integral "
            f"within 1e-9: {ambiguous}; wrong or none: {wrong}); footnote Q(D)=0, o=0.1 gives candidates "
            f"{[round(float(c), 12) for c in sorted(footnote)]} (printed: 0 and −0.8)."
        ),
        recovered=correct,
        releases=size,
        ambiguous=ambiguous,
        wrong=wrong,
        footnote_candidates=[float(c) for c in sorted(footnote)],
    )


def _per_instance_check(mechanism, s: GaussianSetup, median: tuple, config: GaussianAuditConfig, executor):
    """The pDP claim of a typical individual (median sensitivity, removed from D), audited like DP; ``median``:
    :func:`_median_individual`'s."""
    index, pair, eps_i, sensitivity = median
    spec = _spec("pdp-median-individual", index=index, sensitivity=sensitivity, eps_i=eps_i, delta=config.delta)
    return _pair_check(spec, pair, mechanism.sigma, sensitivity, eps_i, config, "median-individual", executor)


def _median_individual(mechanism, s: GaussianSetup, clipped, config: GaussianAuditConfig):
    """The typical individual's row index, its pair (removed from D), its ε_i at the claimed δ and its sensitivity."""
    rows, sens = s.rows, s.sensitivities
    index = int(s.sensitivity_order[len(sens) // 2])
    # the float inversion can sit an ulp below the root: the smallest double with δ(ε_i) ≤ δ proven is claimed
    guess = g.analytic_epsilon(config.delta, mechanism.sigma, sens[index])
    eps_i = gaussian_exact.epsilon_upper(config.delta, mechanism.sigma, guess, sens[index])
    return index, mechanism.pair(rows, rows[index], "remove", clipped), eps_i, sens[index]
