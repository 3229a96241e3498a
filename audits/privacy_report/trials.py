"""Repetitions of the whole pipeline ObjPert → privacy report, batched, with every quantity the coverage
checks of :mod:`pdp_audit.audits.privacy_report.evidence` need.

One *repetition* draws ObjPert's noise b, then the report's noise (GOE matrix Z, gradient noise e, the
λ_min noise) and a uniformly random row of D, in that order, from the block's generator; solves ObjPert
exactly (batched Newton, :mod:`pdp_audit.mechanisms.objpert.mechanism`); forms H = ∇²J(θ̂ᴾ; D), the releases
and the report
for every row of D and for one out-of-sample individual; and compares the report with the exact ex-post
pDP ε₁ of Corollary 7.  The all-x matrix inequalities of Propositions 12 and 21 are decided through the
eigenvalues of the generalized problem: with H = LLᵀ and P = L⁻¹(Ĥ − H)L⁻ᵀ,

    a xᵀĤ⁻¹x ≤ xᵀH⁻¹x ≤ c xᵀĤ⁻¹x  for all x   ⟺   1/c ≤ 1 + λ_i(P) ≤ 1/a  for all i   (Ĥ ≻ 0),

and the regularised version with Ĥ + τσ₃I in place of Ĥ.

What is computed exactly, and what is certified (:mod:`pdp_audit.audits.privacy_report.screening`): the three
targets' fields exactly (leverages xᵀA⁻¹x = ‖L_A⁻¹x‖² by Cholesky factors and triangular solves); every user's
event from intervals on the leverages, exactly only for the (repetition, user) pairs they leave open; Lemma 20
and Proposition 21 by Cholesky certificates, with the eigenvalues only where these do not decide (the adaptive
report keeps P's and P_reg's eigenvalues: its thresholds depend on λ̂).  Each repetition returns one row of
:data:`COLUMNS`; blocks are seeded by :mod:`pdp_audit.verify.estimators.engine`, so results depend on the seed only.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from functools import cached_property

import numpy as np

from pdp_audit.audits.privacy_report import dependent_screen, screening
from pdp_audit.mechanisms.objpert import mechanism as op
from pdp_audit.mechanisms.privacy_report import mechanism as pr
from pdp_audit.verify.estimators.engine import run_blocks
from pdp_audit.verify.estimators.progress import weighted
from pdp_audit.verify.inputs.blas_threads import native_pools

#: Repetitions per seeded block (part of the code version: results depend on it).
REPETITION_BLOCK = 256
#: Repetitions processed together inside a block (memory: CHUNK·(n+1)·d doubles).
CHUNK = 64

TARGETS = ("median", "added", "random")
_TARGET_FIELDS = ("eps1", "bar", "bar_printed", "log_true", "log_bar", "add_statement", "add_proof")
COLUMNS: tuple[str, ...] = tuple(f"{t}_{f}" for t in TARGETS for f in _TARGET_FIELDS) + (
    "random_index",
    "lemma20_fail",
    "lemma20_printed_fail",
    "prop21_fail",
    "p_min",
    "p_max",
    "preg_min",
    "preg_max",
    "lambda_min",
    "lambda_raw",
    "prop15_uniform_fail",
    "prop15_l1_fail",
    "prop15_alg2_fail",
    "prop15_uniform_lower_fail",
    "users_lower_fail",
)
INDEX = {name: i for i, name in enumerate(COLUMNS)}


class PipelineTrials:
    """Picklable block work: ``size`` repetitions of ObjPert → report on (X, y) → rows of :data:`COLUMNS`.

    ``median`` is the index of the designated in-sample target (removed neighbour), ``x_new, y_new`` the
    out-of-sample one (added neighbour).
    """

    def __init__(
        self,
        X: np.ndarray,
        y: np.ndarray,
        cal: pr.ReportCalibration,
        median: int,
        x_new: np.ndarray,
        y_new: float,
        need_lambda_min: bool = False,
        rtol: float = 1e-10,
    ):
        self.X, self.y, self.cal = np.asarray(X, float), np.asarray(y, float), cal
        self.n, self.d = self.X.shape
        self.median = int(median)
        self.added = (np.asarray(x_new, float), float(y_new))
        self._derive()
        self.need_lambda_min = bool(need_lambda_min or cal.mode == "adaptive")
        self.rtol = rtol
        self._pair: op.ObjPertPair | None = None
        self._reference: tuple[np.ndarray, float, np.ndarray] | None = None
        self._token = os.urandom(16).hex()  # this work's identity in the workers it is sent to

    def _derive(self) -> None:
        """The arrays of D ∪ {z} made from (X, y) and the added individual (:data:`_DERIVED`)."""
        x_new, y_new = self.added
        self.Xall = np.vstack([self.X, x_new[None]])
        self.yall = np.append(self.y, y_new)
        self.member = np.append(np.ones(self.n, bool), False)
        self.xn2 = np.einsum("ij,ij->i", self.Xall, self.Xall)
        self.xn = np.sqrt(self.xn2)
        self.xn1 = np.abs(self.Xall).sum(axis=1)

    def __getstate__(self):
        state = {k: v for k, v in self.__dict__.items() if k not in _DERIVED}  # made again in the worker: half the
        state["_pair"] = None  # bytes sent with every block; the pair rebuilt (and its reference solution
        state["_reference"] = None  # recomputed) in each worker, once
        return state

    def __setstate__(self, state):
        """A worker receives the work again with every block: it takes the pair, reference and derived arrays it
        made for the last copy of the same work (rebuilding the pair -- two n × d(d+1)/2 packed outer products, a
        Newton solve -- took 12–70 ms of a 256-repetition block's ~90 ms at n = 1000, d = 50)."""
        global _LAST_RECEIVED
        self.__dict__.update(state)
        last = _LAST_RECEIVED
        if last is not None and last._token == self._token:
            self._pair, self._reference = last._pair, last._reference
            self.__dict__.update({k: last.__dict__[k] for k in _DERIVED if k in last.__dict__})
        if any(k not in self.__dict__ for k in _DERIVED[:6]):
            self._derive()
        _LAST_RECEIVED = self

    @property
    def pair(self) -> op.ObjPertPair:
        if self._pair is None:
            cal = self.cal
            self._pair = op.ObjPertPair(
                self.X,
                self.y,
                self.X[0],
                self.y[0],
                relation="remove",
                mechanism=op.ObjPertMechanism(cal.lam, cal.sigma, cal.loss),
                rtol=self.rtol,
            )
        return self._pair

    def draw(self, size: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """All randomness of ``size`` repetitions, in a fixed order."""
        cal, d = self.cal, self.d
        draws: dict[str, np.ndarray] = {"b": cal.sigma * rng.standard_normal((size, d))}
        if cal.mode != "independent":
            draws["N"] = pr.goe_noise(d, cal.sigma3 * cal.noise_scale3, rng, size)
            draws["e"] = cal.sigma2 * cal.noise_scale2 * rng.standard_normal((size, d))
        if cal.mode == "adaptive":
            draws["xi4"] = rng.standard_normal(size)
        draws["random"] = rng.integers(0, self.n, size=size)
        return draws

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        # d×d factorisations and n×d GEMMs are too small for threaded BLAS: one thread is ~3× faster (measured,
        # benchmarks/bench_privacy_report.py); parallelism comes from --workers.
        with _blas().limit(limits=1, user_api="blas"):
            return self._run(size, rng)

    def _run(self, size: int, rng: np.random.Generator) -> np.ndarray:
        draws = self.draw(size, rng)
        theta = self.pair.release_from_noise("D", draws["b"])
        out = np.full((size, len(COLUMNS)), np.nan)
        for lo in range(0, size, CHUNK):
            sl = slice(lo, min(size, lo + CHUNK))
            out[sl] = self._chunk(theta[sl], {k: v[sl] for k, v in draws.items()})
        return out

    @cached_property
    def quantiles(self) -> tuple[float, float]:
        """Φ⁻¹(1 − ρ/2) of the report and Proposition 15's union-bound Φ⁻¹(1 − ρ/(4n)) (each a scipy call)."""
        return pr.normal_quantile(self.cal.rho), pr.proposition15_quantile(self.cal.rho, self.n)

    @cached_property
    def lemma20_thresholds(self) -> list[tuple[str, float]]:
        """Lemma 20's events ‖N‖₂ > τσ₃: the run's τ, and (τ of Algorithm 6 only) the printed unit-GOE τ/√2, as
        :func:`pdp_audit.audits.privacy_report.statements.lemma20_checks` states them."""
        cal = self.cal
        out = [("lemma20_fail", cal.tau * cal.sigma3)]
        if cal.readings.tau == "algorithm6":
            out.append(("lemma20_printed_fail", cal.exact_tau / math.sqrt(2) * cal.sigma3))
        return out

    @property
    def reference(self) -> tuple[np.ndarray, float, np.ndarray]:
        """H₀ = ∇²J(θ̂; D) at the non-private fit, λ_min(H₀) and the leverages xᵀH₀⁻¹x of every row (cached; the
        screen of :mod:`pdp_audit.audits.privacy_report.screening` bounds each repetition's leverages by them)."""
        if self._reference is None:
            H0 = self.pair.obj_d.hessian(self.pair.reference("D")[0][None])[0]
            lam0 = float(np.linalg.eigvalsh(H0)[0])
            mu0 = np.einsum("ij,ji->i", self.Xall, np.linalg.solve(H0, self.Xall.T))
            self._reference = (H0, lam0, mu0)
        return self._reference

    # ------------------------------------------------------------------------------------------
    def _chunk(self, theta: np.ndarray, dr: dict[str, np.ndarray]) -> np.ndarray:
        """The rows of :data:`COLUMNS` for the repetitions θ̂ᴾ = ``theta`` with their draws ``dr``."""
        cal, loss = self.cal, self.pair.obj_d.glm_loss  # the report's: a GLM loss, its f' and f'' in closed form
        c, d, n = theta.shape[0], self.d, self.n
        out = np.full((c, len(COLUMNS)), np.nan)
        t = theta @ self.Xall.T
        st = _State(t, loss.f1_near(t, self.yall), loss.f2(t, self.yall), dr["b"] @ self.Xall.T)
        H = self.pair.obj_d.glm_hessian(theta, st.f2[:, :n])  # f'' of D's rows: the same bits as hessian(theta)
        st.H = _Factors.of(H, np.ones(c, bool))  # xᵀH⁻¹x = ‖L⁻¹x‖²
        if any(f is None for f in st.H.factors):  # H ⪰ λI: only a broken input gets here
            raise np.linalg.LinAlgError("the Hessian of a repetition is not positive definite")
        lam_min = np.linalg.eigvalsh(H)[:, 0] if self.need_lambda_min else np.full(c, np.nan)
        out[:, INDEX["lambda_min"]] = lam_min
        if cal.mode != "independent":
            N = dr["N"]
            norm_lo = screening.norm_lower_bound(N)
            for column, threshold in self.lemma20_thresholds:
                out[:, INDEX[column]] = _norm_exceeds(N, threshold, norm_lo)
            if cal.mode == "dependent":  # Proposition 21's P only where two Cholesky factorisations do not decide
                p_min, p_max = np.full(c, -0.5), np.full(c, 0.5)
                # ‖N‖₂ ≤ τσ₃ < ½λ_min(H) (Algorithm 2 requires λ ≥ 2τσ₃) already implies |λ_i(P)| < ½
                H0, lam0, _ = self.reference
                st.r = screening.deviation(H, H0, lam0)
                t1 = self.lemma20_thresholds[0][1]
                open_ = ~((out[:, INDEX["lemma20_fail"]] == 0) & (t1 * (1 + screening.SLACK) < 0.5 * (1 - st.r) * lam0))
                open_[open_] = ~screening.pencil_inside(N[open_], H[open_], 0.5)
                if np.any(open_):
                    Lo = np.linalg.inv(st.H.lower(open_))
                    ev = np.linalg.eigvalsh(Lo @ N[open_] @ np.swapaxes(Lo, 1, 2))
                    p_min[open_], p_max[open_] = ev[:, 0], ev[:, -1]
                    out[open_, INDEX["p_min"]], out[open_, INDEX["p_max"]] = ev[:, 0], ev[:, -1]
                out[:, INDEX["prop21_fail"]] = (p_min < -0.5) | (p_max > 0.5)
            else:
                Linv = np.linalg.inv(st.H.lower(np.ones(c, bool)))
                P = Linv @ N @ np.swapaxes(Linv, 1, 2)
                ev = np.linalg.eigvalsh(P)
                out[:, INDEX["p_min"]], out[:, INDEX["p_max"]] = p_min, p_max = ev[:, 0], ev[:, -1]
            st.spectrum = p_min, p_max  # exact, or the certified (−½, ½)
            st.hat = _Factors.of(H, p_min > -1, N)  # Ĥ = H + N = L(I + P)Lᵀ ≻ 0 ⟺ λ_min(P) > −1
            st.xj = (-dr["b"] + dr["e"]) @ self.Xall.T  # (J^P)ᵀx, J^P = ∇J(θ̂ᴾ; D) + e = −b + e
            if cal.mode == "adaptive":
                ts3 = cal.tau_sigma3
                Preg = P + ts3 * (Linv @ np.swapaxes(Linv, 1, 2))
                evr = np.linalg.eigvalsh(Preg)
                out[:, INDEX["preg_min"]], out[:, INDEX["preg_max"]] = st.reg_spectrum = evr[:, 0], evr[:, -1]
                st.reg = _Factors.of((H + N) + ts3 * np.eye(d), evr[:, 0] > -1)  # Ĥ + τσ₃I
                raw = lam_min + cal.sigma4 * dr["xi4"]
                out[:, INDEX["lambda_raw"]] = raw
                st.lam_hat = (
                    raw
                    if cal.readings.lambda_hat == "raw"
                    else pr.lambda_hat_shifted(raw, cal.lam, cal.sigma4, cal.rho)
                )

        # Every user's decision from certified intervals; exactly: the targets and the users left open.
        events = self._screen(H, st)
        rows = np.arange(c)
        targets = {"median": np.full(c, self.median), "added": np.full(c, n), "random": dr["random"]}
        need = np.zeros((c, n + 1), bool)  # the (repetition, row) pairs whose leverages are computed
        for idx in targets.values():
            need[rows, idx] = True
        for _, pairs in events.values():
            need[:, :n] |= pairs
        reps, cols = np.nonzero(need)  # grouped by repetition
        fields, exact_events = self._exact(st, reps, cols)
        at = np.zeros((c, n + 1), np.intp)
        at[reps, cols] = np.arange(reps.size)
        for target, idx in targets.items():
            for name, arr in fields.items():
                out[:, INDEX[f"{target}_{name}"]] = arr[at[rows, idx]]
        out[:, INDEX["random_index"]] = dr["random"]
        user = cols < n
        user_pairs = reps[user], cols[user]
        for name, (settled, pairs) in events.items():
            hit = exact_events[name] & user
            hit[user] &= pairs[user_pairs]
            out[:, INDEX[name]] = settled | (np.bincount(reps[hit], minlength=c) > 0)
        if cal.mode == "dependent":
            out[:, INDEX["prop15_alg2_fail"]] = out[:, INDEX["users_lower_fail"]]
        return out

    def _exact(
        self, st: _State, reps: np.ndarray, cols: np.ndarray
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """The report's quantities (the target fields) and the users' events, exactly, for the (repetition, row)
        pairs (``reps``, ``cols``) of D ∪ {z}, grouped by repetition: one value a pair (elementwise, so the same bits
        as on any other array of pairs)."""
        cal = self.cal
        xn, xn2 = self.xn[cols], self.xn2[cols]
        loss = self.pair.obj_d.glm_loss  # the report's: a GLM loss, its f' and f'' in closed form
        f1, f2 = loss.f1(st.t[reps, cols], self.yall[cols]), st.f2[reps, cols]  # f' exactly here
        member = self.member[cols]
        stacks = [st.H] if cal.mode == "independent" else [st.H, st.hat] + ([st.reg] if cal.mode == "adaptive" else [])
        mu, *mu_hat_reg = _Factors.leverages(stacks, self.Xall, reps, cols)  # under H, Ĥ (and Ĥ + τσ₃I)
        eps1 = pr.objpert_epsilon(f1, f2, xn2, st.xb[reps, cols], mu, cal.sigma, member)
        pm = np.where(member, -1.0, 1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            log_true = np.abs(np.log1p(pm * f2 * mu))
        q, qn = self.quantiles
        if cal.mode == "independent":
            mu_bar = xn2 / cal.lam
            gbar = pr.gbar_independent(f1, xn, cal.sigma, q)
            gbar_printed = gbar
        else:
            mu_hat = mu_hat_reg[0]
            xj = st.xj[reps, cols]
            both = cal.mode == "dependent"  # Algorithm 2 takes the minimum with the data-independent bound, 4 not
            gbar = pr.gbar_dependent(f1, xj, xn, cal.sigma, cal.sigma2, q, cal.readings.gradient, both)
            gbar_printed = pr.gbar_dependent(f1, xj, xn, cal.sigma, cal.sigma2, q, "printed", both)
            if cal.mode == "dependent":
                mu_bar = pr.mu_bar_dependent(mu_hat, xn2, cal.lam, cal.readings.leverage_minimum)
            else:
                mu_reg = mu_hat_reg[1]
                mu_bar = pr.mu_bar_adaptive(mu_hat, mu_reg, xn2, st.lam_hat[reps], cal.tau_sigma3)
        log_bar = pr.log_term(f2, mu_bar)
        bar = pr.report_epsilon1(log_bar, f1, xn2, gbar, cal.sigma)
        bar_printed = pr.report_epsilon1(log_bar, f1, xn2, gbar_printed, cal.sigma)
        finite_s2 = math.isfinite(cal.sigma2)
        add_stmt = (
            pr.theorem10_additive(f1, xn, cal.sigma, cal.sigma2, cal.rho, "statement")
            if finite_s2
            else np.zeros_like(f1)
        )
        add_proof = pr.theorem10_additive(f1, xn, cal.sigma, cal.sigma2 if finite_s2 else math.inf, cal.rho, "proof")
        fields = {
            "eps1": eps1,
            "bar": bar,
            "bar_printed": bar_printed,
            "log_true": log_true,
            "log_bar": log_bar,
            "add_statement": add_stmt,
            "add_proof": add_proof,
        }
        events = {"users_lower_fail": eps1 > bar}
        if cal.mode == "dependent":
            # Proposition 15: (1) the uniform report (union-bound quantile over the n users); (2) the l1 third term;
            # (3) read literally: Algorithm 2's per-individual report, all users at once (lower bound).
            gbar_u = pr.gbar_dependent(f1, xj, xn, cal.sigma, cal.sigma2, qn, cal.readings.gradient)
            bar_u = pr.report_epsilon1(log_bar, f1, xn2, gbar_u, cal.sigma)
            add15 = pr.proposition15_additive(f1, xn, cal.sigma2, self.n, cal.rho)
            lower_u = eps1 > bar_u
            events["prop15_uniform_lower_fail"] = lower_u
            events["prop15_uniform_fail"] = lower_u | (bar_u > 12 * eps1 + add15)
            l1 = pr.proposition15_l1_term(f1, self.xn1[cols], cal.sigma, self.d, cal.rho)
            bar_l1 = log_bar + f1**2 * xn2 / (2 * cal.sigma**2) + l1
            events["prop15_l1_fail"] = (eps1 > bar_l1) | (bar_l1 > 12 * eps1 + l1)
        return fields, events

    def _screen(self, H: np.ndarray, st: _State) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """The users' events of :meth:`_exact` from certified intervals (:mod:`~.screening`): per event, the
        repetitions it certainly holds on and the (repetition, user) pairs left to compute exactly."""
        cal, n = self.cal, self.n
        users = slice(0, n)
        f1, f2, xn, xn2 = st.f1[:, users], st.f2[:, users], self.xn[users], self.xn2[users]
        H0, lam0, mu0 = self.reference
        r = st.r if st.r is not None else screening.deviation(H, H0, lam0)
        scaled = self._screen_dependent(r, st) if cal.mode == "dependent" else None
        if scaled is not None:
            return scaled
        mu = screening.leverage_interval(mu0[users], r)
        s2 = cal.sigma**2
        t2 = f1**2 * xn2 / (2 * s2)
        eps1 = screening.epsilon1_interval(mu, f2, t2 + f1 * st.xb[:, users] / s2)
        q, qn = self.quantiles
        if cal.mode == "independent":
            exact_log = pr.log_term(f2, xn2 / cal.lam)
            log_bar = screening.Interval(exact_log, exact_log)
            gbar = pr.gbar_independent(f1, xn, cal.sigma, q)
        else:
            xj = st.xj[:, users]
            both = cal.mode == "dependent"
            gbar = pr.gbar_dependent(f1, xj, xn, cal.sigma, cal.sigma2, q, cal.readings.gradient, both)
            log_bar = self._log_bar_interval(mu, f2, xn2, st)
        bar = log_bar.shifted(t2 + np.abs(gbar) / s2)
        lower = screening.greater(eps1, bar)
        events = {"users_lower_fail": lower}
        if cal.mode == "dependent":
            gbar_u = pr.gbar_dependent(f1, xj, xn, cal.sigma, cal.sigma2, qn, cal.readings.gradient)
            bar_u = log_bar.shifted(t2 + np.abs(gbar_u) / s2)
            add15 = pr.proposition15_additive(f1, xn, cal.sigma2, n, cal.rho)
            lower_u = screening.greater(eps1, bar_u)
            events["prop15_uniform_lower_fail"] = lower_u
            events["prop15_uniform_fail"] = lower_u | screening.greater(bar_u, eps1.scaled(12.0, add15))
            l1 = pr.proposition15_l1_term(f1, self.xn1[users], cal.sigma, self.d, cal.rho)
            bar_l1 = log_bar.shifted(t2 + l1)
            events["prop15_l1_fail"] = screening.greater(eps1, bar_l1) | screening.greater(
                bar_l1, eps1.scaled(12.0, l1)
            )
        return {name: screening.settle(decision) for name, decision in events.items()}

    @cached_property
    def _user_scales(self) -> dict[str, np.ndarray]:
        """The factors of |f'| (and of f'²) in the data-dependent report's terms, per user of D
        (:meth:`_screen_dependent`)."""
        cal, n, (q, qn) = self.cal, self.n, self.quantiles
        xn = self.xn[:n]
        return {
            "t2": self.xn2[:n] / (2 * cal.sigma**2),  # f'²‖x‖²/(2σ²)
            "independent": cal.sigma * xn * q,  # ḡ's data-independent bound
            "dependent": cal.sigma2 * xn * q,  # ... and its data-dependent one, beside |f'(J^P)ᵀx|
            "uniform": cal.sigma2 * xn * qn,  # both again at Proposition 15's union-bound quantile
            "uniform_independent": cal.sigma * xn * qn,
            "add15": xn * math.sqrt(2 * math.log(n / cal.rho)) / cal.sigma2,
            "l1": self.xn1[:n] * math.sqrt(2 * math.log(2 * self.d / cal.rho)) / cal.sigma,
            "cap": self.xn2[:n] / cal.lam,  # μ̄'s minimum with ‖x‖²/λ
        }

    def _screen_dependent(self, r: np.ndarray, st: _State) -> dict[str, tuple[np.ndarray, np.ndarray]] | None:
        """:meth:`_screen` of Algorithm 2's data-dependent report, with the same intervals in fewer passes over the
        (repetition, user) arrays (:mod:`~.dependent_screen`); None (the general screen) where some interval of the
        chunk is unbounded (r ≥ 1, 1 + λ_min(P) below screening's margin, f''μ̄ ≥ 1)."""
        cal, n, S = self.cal, self.n, screening.SLACK
        ev_min, ev_max = st.spectrum
        if not (np.all(r < 1) and np.all(1 + ev_min >= screening.MIN_DEFINITE)):
            return None
        k_lo, k_hi = (1 - S) / (1 + r), (1 + S) / (1 - r)
        factors = (k_lo * (1 - S) / (1 + ev_max), k_hi * (1 + S) / (1 + ev_min))
        scales: dict[str, np.ndarray | None] = dict(self._user_scales, mu0=self.reference[2][:n])
        if not cal.readings.leverage_minimum:
            scales["cap"] = None
        terms = dependent_screen.Terms(
            st.f1[:, :n],
            st.f2[:, :n],
            st.xb[:, :n],
            st.xj[:, :n],
            (k_lo, k_hi),
            tuple(1.5 * f for f in factors),
            cal.readings.gradient == "printed",
            scales,
            cal.sigma**2,
        )
        return dependent_screen.screen(terms)

    def _log_bar_interval(
        self, mu: screening.Interval, f2: np.ndarray, xn2: np.ndarray, st: _State
    ) -> screening.Interval:
        """|log(1 − f''μ̄)| over the leverage intervals (μ̄ monotone in μ̂ and the regularised leverage)."""
        cal = self.cal
        mu_hat = screening.relative_interval(mu, *st.spectrum)
        if cal.mode == "dependent":
            ends = [pr.mu_bar_dependent(m, xn2, cal.lam, cal.readings.leverage_minimum) for m in (mu_hat.lo, mu_hat.hi)]
        else:
            mu_reg = screening.relative_interval(mu, *st.reg_spectrum)
            lam_hat = st.lam_hat[:, None]
            with np.errstate(invalid="ignore", divide="ignore"):
                ends = [
                    pr.mu_bar_adaptive(a, b, xn2, lam_hat, cal.tau_sigma3)
                    for a, b in ((mu_hat.lo, mu_reg.lo), (mu_hat.hi, mu_reg.hi))
                ]
        a, b = (pr.log_term(f2, m) for m in ends)
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        if cal.mode == "adaptive":  # μ̄ is monotone only for λ̂ > 0; elsewhere only |log(…)| ≥ 0 is certain
            positive = (st.lam_hat > 0)[:, None]
            lo, hi = np.where(positive, lo, 0.0), np.where(positive, hi, np.inf)
        return screening.Interval(lo, hi)


def _norm_exceeds(N: np.ndarray, threshold: float, norm_lo: np.ndarray) -> np.ndarray:
    """‖N_t‖₂ > threshold per stacked N: certain above the power-iteration bound ``norm_lo``, certainly not where
    ±N ≺ threshold·I factorise; the eigenvalues of the rest."""
    above = norm_lo > threshold * (1 + screening.SLACK)
    out = above.astype(float)
    rest = np.flatnonzero(~above)
    rest = rest[~screening.pencil_inside(N[rest], None, threshold)]
    if rest.size:
        ev = np.linalg.eigvalsh(N[rest])
        out[rest] = np.maximum(-ev[:, 0], ev[:, -1]) > threshold
    return out


#: What :meth:`PipelineTrials.__getstate__` leaves out, made again from the rest (the same bits): the arrays of
#: D ∪ {z} (:meth:`PipelineTrials._derive`) and the per-user scales of the data-dependent screen.
_DERIVED = ("Xall", "yall", "member", "xn2", "xn", "xn1", "_user_scales")

#: In a worker: the last work received (:meth:`PipelineTrials.__setstate__`), whose rebuilt pair the next copy of
#: the same work reuses.  It lives as long as the worker (an audit's pool ends with the audit).
_LAST_RECEIVED: PipelineTrials | None = None


def _blas():
    """threadpoolctl's controller of the BLAS that numpy's and scipy's LAPACK calls use (:func:`native_pools`: made
    again only after an import; making one scans the loaded libraries, 1–10 ms, up to a tenth of a block's work on
    a busy machine)."""
    import scipy.linalg.lapack  # noqa: F401  loaded before the scan, so that its BLAS is limited too

    return native_pools()


class _Factors:
    """Lower Cholesky factors of stacked symmetric matrices A_t; xᵀA_t⁻¹x = ‖L_t⁻¹x‖², one triangular solve per
    matrix for the rows it needs.  +∞ where A_t is not positive definite (no bound).

    One LAPACK call per matrix, in a loop: at these sizes (d ≈ 50, the three targets' right-hand sides) a loop of
    dtrtrs costs less than numpy's stacked ``solve`` or a forward substitution vectorised over the stack (4–7× per
    matrix, benchmarks/bench_privacy_report.py's setting), and a loop of scipy's dpotrf about half numpy's stacked
    Cholesky (numpy's wheel bundles another OpenBLAS: the two factors may differ in the last bits)."""

    def __init__(self, factors: list[np.ndarray | None]):
        self.factors = factors  # Fortran-ordered (LAPACK copies any other)

    @classmethod
    def of(cls, A: np.ndarray, pd: np.ndarray, plus: np.ndarray | None = None) -> _Factors:
        """The factors of A_t (of A_t + ``plus``_t) where ``pd`` (and the factorisation succeeds: a knife-edge
        λ_min(P) ≈ −1 is +∞).  The matrices factorised are one stacked copy (or sum, elementwise: the same bits as a
        matrix at a time), each factorised in place: no array made per matrix."""
        from scipy.linalg.lapack import dpotrf  # per matrix: numpy's stacked Cholesky raises for the whole stack

        factors: list[np.ndarray | None] = [None] * A.shape[0]
        which = np.flatnonzero(pd)
        stack = A[which]  # a copy (fancy indexing)
        if plus is not None:
            stack += plus[which]
        for i, a in zip(which.tolist(), stack):
            # a symmetric: its transpose is the Fortran-ordered a, factorised where it lies (the factor is a view)
            L, info = dpotrf(a.T, lower=1, clean=0, overwrite_a=1)
            factors[i] = L if info == 0 else None
        return cls(factors)

    def lower(self, which: np.ndarray) -> np.ndarray:
        """The factors L_t where ``which`` (all factorised), stacked, zero above the diagonal."""
        stacked = []
        for i in np.flatnonzero(which):
            factor = self.factors[i]
            assert factor is not None  # ``which`` selects factorised ones
            stacked.append(factor)
        return np.tril(np.stack(stacked))

    def quadratic(self, X: np.ndarray, need: np.ndarray) -> np.ndarray:
        """xᵀA_t⁻¹x for the rows x of X (k, d) where ``need`` (T, k); NaN elsewhere."""
        out = np.full(need.shape, np.nan)
        rows, cols = np.nonzero(need)
        out[rows, cols] = self.pairs(X, rows, cols)
        return out

    def pairs(self, X: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """x_jᵀA_t⁻¹x_j for the pairs (t, j) = (``rows``, ``cols``), grouped by t (sorted ``rows``)."""
        return _Factors.leverages((self,), X, rows, cols)[0]

    @staticmethod
    def leverages(stacks: Sequence[_Factors], X: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> list[np.ndarray]:
        """:meth:`pairs` of each stack of factors at the same pairs, in one pass over t: the columns x gathered and
        the groups of ``rows`` found once for all stacks (one dtrtrs per matrix and group, as one stack at a time)."""
        from scipy.linalg.lapack import dtrtrs

        bounds = np.searchsorted(rows, np.arange(len(stacks[0].factors) + 1)).tolist()  # t's pairs: lo:hi
        first = X[cols].T  # Fortran-ordered: solved in place into L_t⁻¹x; one sum of squares for all
        Zs = [first] + [first.copy(order="F") for _ in stacks[1:]]
        definite = [np.ones(rows.size, bool) for _ in stacks]
        columns = list(zip([s.factors for s in stacks], Zs, definite))
        for t, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
            if lo == hi:
                continue
            for factors, Z, ok in columns:
                L = factors[t]
                if L is None:
                    ok[lo:hi] = False
                    continue
                b = Z[:, lo:hi]
                x = dtrtrs(L, b, lower=1, overwrite_b=1)[0]
                if x is not b:  # dtrtrs solves a Fortran-ordered block in place (no copy back); any other it copies
                    b[...] = x
        return [np.where(ok, np.einsum("ij,ij->j", Z, Z), np.inf) for Z, ok in zip(Zs, definite)]


class _State:
    """What one chunk's exact and screened evaluations share: t = xᵀθ̂ᴾ, f'' there, f' to its last places (the
    screen's: its margins are far wider; :meth:`_exact` evaluates f' exactly) and bᵀx for every row of D ∪ {z},
    H's factor, and (data-dependent reports) (J^P)ᵀx, the spectra and inverses of Ĥ (and of Ĥ + τσ₃I)."""

    def __init__(self, t: np.ndarray, f1_near: np.ndarray, f2: np.ndarray, xb: np.ndarray):
        self.t, self.f1, self.f2, self.xb = t, f1_near, f2, xb
        self.r: np.ndarray | None = None  # H's screening.deviation from H₀, where computed
        self.H: _Factors
        self.xj: np.ndarray
        self.spectrum: tuple[np.ndarray, np.ndarray]
        self.reg_spectrum: tuple[np.ndarray, np.ndarray]
        self.hat: _Factors
        self.reg: _Factors
        self.lam_hat: np.ndarray


#: What one repetition of the pipeline weighs on the whole audit's progress bar, by mode, in privacy-loss draws of
#: the report's Gaussian releases (:func:`pdp_audit.verify.estimators.progress.weighted`): the CPU time of one
#: repetition at the default data (1,000 rows, d = 50) over that of one loss draw, plain and importance-sampled,
#: measured once and rounded (not kept in step with later speed-ups of either).  Only the bar's estimate of the time
#: left depends on them: a weight that is off, or other data, makes that estimate approximate, never the total or any
#: result.
REPETITION_WEIGHT = {"dependent": 830, "independent": 2500, "adaptive": 4600}


def run_trials(
    work: PipelineTrials, repetitions: int, seed: int, stream: str = "pipeline", executor=None, progress: bool = False
) -> dict[str, np.ndarray]:
    """``repetitions`` repetitions of the pipeline; returns column name → array.  Each repetition weighs
    :data:`REPETITION_WEIGHT` of its mode on the whole audit's progress bar."""
    with weighted(REPETITION_WEIGHT[work.cal.mode]):
        table = run_blocks(work, repetitions, seed, stream, executor, progress, block_size=REPETITION_BLOCK)
    return {name: table[:, i] for i, name in enumerate(COLUMNS)}
