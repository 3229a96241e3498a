"""pytest plugin: assert (per-instance) differential-privacy claims about your own mechanisms.

Registered through the ``pytest11`` entry point ``pdp_audit``, so installing pdp-audit is enough::

    @pytest.mark.audit
    def test_my_mechanism_is_dp(privacy_audit):
        privacy_audit.assert_dp(MyPair(...), epsilon=1.0, delta=1e-5)

The ``privacy_audit`` fixture runs the suite's checks on a :class:`pdp_audit.mechanisms.base.NeighbourPair` and
fails the test with a readable message on a **fail** verdict; an **inconclusive** one is not green: the
test is reported as UNDECIDED (its own outcome in pytest's closing line, not a skip) with the reason and the budget
that would decide it (``--audit-strict`` makes it a failure); every verdict is recorded.

Every DP assertion first validates the pair: releases and losses of the right shape, no NaN and no
impossible infinity (else the exact fail ``pair-protocol``), the loss consistent with the sampler
(``loss-consistency``) and, where the pair exposes a noise view, the view consistent with ``sample``
(``noise-view``); see :mod:`pdp_audit.verify.evidence.pair_validation`.  A closed form passed as ``exact_delta`` is a
claim to check (``closed-form``), never evidence.

* ``assert_dp(pair, ε, δ)`` -- δ_{D‖D'}(ε) ≤ δ and δ_{D'‖D}(ε) ≤ δ (hockey-stick divergences, plain
  tails with Clopper–Pearson where δ·trials ≥ 30, importance sampling with empirical Bernstein
  intervals below that when the pair exposes a Gaussian noise view;
  :func:`pdp_audit.verify.evidence.builders.dp_claim_check`);
* ``assert_pdp(pair, ε, δ)`` -- the same inequalities, stated as the per-instance claim about the one
  (D, z) the pair was built from (Wang 2019, §2);
* ``assert_dp_blackbox(sample_D, sample_D_prime, ε, δ)`` -- for a mechanism that can only be sampled: a
  learned test (:mod:`pdp_audit.audits.blackbox.attack`) tries to refute the claim; it can fail or be inconclusive,
  never pass;
* ``run(NAME, **options)`` -- any built-in audit (``pdp-audit run NAME``) with its ``run`` options, asserting on
  its verdict; the same cell, seed and numbers as ``pdp-audit sweep`` (see :meth:`PrivacyAudit.run`);
* ``assert_coverage(holds, ρ)`` -- an event "holds with probability ≥ 1 − ρ": exact binomial test of
  the failure count; ``holds`` is a vectorised sampler ``(size, rng) -> bool array``, a per-trial
  ``rng -> bool`` function, or an array of outcomes.

Each assertion is one family: Holm at ``--audit-alpha`` (default 1e-6) over its checks.  Its seed is
derived from ``--audit-seed`` and the test's node id and the assertion's position in the test, so
results do not depend on test order, selection or pytest-xdist.  ``--audit-report PATH`` writes all
results, keyed by node id, to PATH.pdf and PATH.json at the end of the session (a ``.pdf`` or ``.json`` suffix of
PATH is dropped first; both files are written, and an existing one replaced, even when only one was named; neither
may be a test file, a conftest or a module the session imported); under xdist each worker
ships its records to the controller through ``workeroutput`` and the controller merges them, so the
merged report is identical with or without ``-n`` (:mod:`pdp_audit.pytest_session`).
"""

from __future__ import annotations

import zlib
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

import pytest

from pdp_audit import api
from pdp_audit.pytest_session import AuditSession, check_report_outputs
from pdp_audit.reports.run_text import check_lines, verdict_words
from pdp_audit.use_cases import run_cell
from pdp_audit.verify.core.checks import without_figures
from pdp_audit.verify.core.config import COMMAND_LINE, PAIR_OPTIONS, Names, pair_value
from pdp_audit.verify.inputs.validation import InputError

MARKER = "audit: privacy audits of mechanisms with the privacy_audit fixture (pdp-audit); select with -m audit"


# --------------------------------------------------------------------------------------------
# Options and registration
# --------------------------------------------------------------------------------------------
# The largest budget per assertion (verify.core.config.PAIR_TRIALS): 1e8 samples per world (about 20 s for a Gaussian
# pair).  Losses are streamed a block at a time (pdp_audit.verify.evidence.pair_stream.stream_losses): peak resident
# memory of a pytest process with one assertion measured at 158 MB for 1e6 and 162 MB for 1e7 and 1e8 per world.

#: The budget flags: the pair options they set (declared once, with the API's ranges), metavar and help.
_BUDGET_FLAGS = {
    "--audit-trials": ("trials", "N", "Monte Carlo samples per world for each privacy assertion (accepts 1e6)"),
    "--audit-seed": ("seed", "K", "root seed of the privacy audits"),
    "--audit-alpha": ("alpha", "A", "false-alarm probability of each privacy assertion"),
}


def budget_from_options(config: pytest.Config) -> dict:
    """The session's trials, seed and alpha from the command line, checked as the API checks them."""
    budget = {}
    for flag, (name, _, _) in _BUDGET_FLAGS.items():
        names = _named_by(flag)
        try:
            budget[name] = pair_value(name, config.getoption(flag), names)
        except InputError as err:
            raise pytest.UsageError(str(err)) from None
    return budget


def pytest_addoption(parser: pytest.Parser) -> None:
    """The plugin's command-line options (``--audit-trials``, ``--audit-seed``, ``--audit-alpha``, …)."""
    group = parser.getgroup("pdp-audit", "privacy audits (pdp-audit)")
    for flag, (name, metavar, help_text) in _BUDGET_FLAGS.items():
        default = PAIR_OPTIONS[name].default
        group.addoption(flag, default=str(default), metavar=metavar, help=f"{help_text} (default {default:g})")
    group.addoption(
        "--audit-report",
        default=None,
        metavar="PATH",
        help="write all audit results to PATH.pdf and PATH.json, both of them (PATH's .pdf or .json suffix dropped "
        "first; an existing file at either path is replaced; merged over xdist workers)",
    )
    group.addoption(
        "--audit-no-early-stop",
        action="store_false",
        dest="audit_early_stop",
        default=PAIR_OPTIONS["early_stop"].default,
        help="draw each assertion's whole budget in one pass (the numbers of the versions before early stopping was "
        "the default); by default a white-box pass and a coverage sampler's draws are drawn in looks and a black-box "
        "fresh pass in rounds, each stopped once decided, --audit-trials the maximum (the verdicts keep their level: "
        "a look spends a fixed share of the false-alarm probability, a coverage count is read by a confidence "
        "sequence)",
    )
    group.addoption(
        "--audit-early-stop",
        action="store_true",
        dest="audit_early_stop",
        help="the default: each assertion's pass stopped once decided (kept for the sessions of earlier versions)",
    )
    group.addoption(
        "--audit-strict",
        action="store_true",
        default=False,
        help="fail tests whose privacy assertion is inconclusive (default: record only)",
    )


#: ends the skip message of an inconclusive assertion: how :func:`pytest_report_teststatus` knows it (xdist ships a
#: worker's report to the controller as data, with its message and without the exception that made it)
UNDECIDED_NOTE = "undecided: not evidence of the claim; --audit-strict makes this a failure"


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config):
    """An inconclusive privacy assertion is its own outcome, never a skip: ``U`` in the progress line, ``UNDECIDED``
    with ``-v`` and "N undecided" in pytest's closing line ("1 passed, 1 undecided"), so a claim the draws could
    not decide is not mistaken for a test that did not apply.  pytest's exit code is unchanged (0 unless a test
    failed); ``--audit-strict`` makes it a failure."""
    if report.skipped and isinstance(report.longrepr, tuple) and report.longrepr[2].endswith(f"({UNDECIDED_NOTE})"):
        return "undecided", "U", ("UNDECIDED", {"yellow": True})
    return None


def pytest_configure(config: pytest.Config) -> None:
    """Validate the options and register the session that collects every assertion."""
    config.addinivalue_line("markers", MARKER)
    budget_from_options(config)  # checked now: one line naming the flag
    report = config.getoption("--audit-report")
    if report:  # checked now, not after the whole session has run
        try:
            check_report_outputs(config)
        except InputError as err:
            raise pytest.UsageError(str(err)) from None
    config.pluginmanager.register(AuditSession(config), "pdp_audit_session")


def _named_by(flag: str) -> Names:
    """How a budget option is named in its messages: by its pytest flag, its value given as text."""
    return Names(lambda option: flag, text=COMMAND_LINE.text)


@dataclass(frozen=True)
class Settings:
    """The plugin options every assertion of a session shares."""

    trials: int
    seed: int
    alpha: float
    strict: bool
    # white-box passes and coverage draws in looks, black-box fresh passes in rounds, stopped once decided;
    # --audit-no-early-stop: off
    early_stop: bool = PAIR_OPTIONS["early_stop"].default
    # each check's figure drawn: only where --audit-report writes the session's PDF, whose pages show them
    figures: bool = True

    @classmethod
    def from_config(cls, config: pytest.Config) -> "Settings":
        budget = budget_from_options(config)
        strict, early = config.getoption("--audit-strict"), config.getoption("audit_early_stop")
        figures = bool(config.getoption("--audit-report"))
        return cls(budget["trials"], budget["seed"], budget["alpha"], strict, early, figures)


# --------------------------------------------------------------------------------------------
# Checks for one assertion (pure functions: usable without pytest)
# --------------------------------------------------------------------------------------------
def assertion_seed(root: int, nodeid: str, index: int) -> int:
    """Seed of one assertion: the root seed and crc32 of ``nodeid#index``, so it depends on identity only."""
    return int(root) * 2**32 + zlib.crc32(f"{nodeid}#{index}".encode("utf-8"))


# --------------------------------------------------------------------------------------------
# The fixture
# --------------------------------------------------------------------------------------------
def describe(checks, verdict: str, header: str, settings: Settings, trials: int) -> str:
    """A readable multi-line account of one assertion (used in failure messages)."""
    lines = [f"pdp-audit: {header}: {verdict_words(verdict, checks)}", *check_lines(checks)]
    stopped = next((c.details["early_stop"] for c in checks if c.details and "early_stop" in c.details), None)
    samples = f"{trials:,} samples"
    if stopped is not None:  # a pass stopped once decided: the draws used, of the budget, and why it stopped
        # a white-box pass records its draws per world; the black box's fresh pass, each world's fresh releases
        drawn = stopped.get("drawn_per_world") or max(stopped.get("fresh_drawn", {}).values(), default=0)
        samples = f"{drawn:,} of at most {samples}, {stopped['stopped']}"
    lines.append(
        f"  ({samples}, seed {settings.seed}, false-alarm probability α = {settings.alpha:g}, "
        f"Holm over {len(checks)} checks)"
    )
    return "\n".join(lines)


@dataclass(frozen=True)
class DecidedAssertion:
    """One decided assertion, as the session records it: its ``kind`` (dp, pdp, blackbox, coverage or run), the
    ``header`` of its message, the decided ``checks`` and ``verdict``, and what decided them -- ``trials``, the
    assertion's ``index`` in its test, its ``seed`` and ``alpha`` -- with the ``claim`` it asserted; ``mechanism`` and
    ``parameters`` are its run's (what the report's pages state, as ``pdp-audit run`` does)."""

    kind: str
    header: str
    checks: list
    verdict: str
    trials: int
    index: int
    seed: int
    alpha: float
    claim: dict
    mechanism: str = ""
    parameters: dict = field(default_factory=dict)


class PrivacyAudit:
    """What the ``privacy_audit`` fixture returns: privacy assertions recorded under the test's node id."""

    def __init__(self, nodeid: str, settings: Settings, session: "AuditSession"):
        self.nodeid, self.settings, self.session = nodeid, settings, session
        self._index = 0

    def _seed(self) -> int:
        """The seed of the next assertion (:func:`assertion_seed`); :meth:`_taken` moves on once it is accepted."""
        return assertion_seed(self.settings.seed, self.nodeid, self._index)

    def _taken(self) -> int:
        """The index of the assertion whose arguments were just accepted; the next one gets the next index."""
        self._index += 1
        return self._index - 1

    def _trials(self, trials: int | None) -> int:
        return self.settings.trials if trials is None else trials

    def _drawing(self):
        """Where the assertion's run is drawn: with its figures where ``--audit-report`` writes the session's PDF
        (:attr:`Settings.figures`), without them otherwise (no page shows them; verdicts, numbers and messages are
        the same either way: :func:`pdp_audit.verify.core.checks.without_figures`)."""

        return nullcontext() if self.settings.figures else without_figures()

    def _decide(self, kind: str, header: str, run, claim: dict) -> "AuditOutcome":
        """Record and act on an assertion the API decided (its arguments accepted: the index moves on)."""
        index = self._taken()
        trials = int(run.parameters["trials"])
        decided = DecidedAssertion(
            kind,
            header,
            list(run.checks),
            run.verdict,
            trials,
            index,
            run.seed,
            run.alpha,
            claim,
            run.mechanism,
            dict(run.parameters),
        )
        return self._assert(decided)

    def _assert(self, decided: DecidedAssertion) -> "AuditOutcome":
        """Record one decided assertion and act on its verdict (fail; skip when inconclusive, unless strict)."""
        # deferred: loads pdp_audit.reports.figure_json; pytest's start-up must not
        from pdp_audit.reports.figure_json import figure_to_dict
        from pdp_audit.reports.json_report import check_to_dict, clean

        checks, verdict = decided.checks, decided.verdict
        self.session.add(
            {
                "nodeid": self.nodeid,
                "index": decided.index,
                "kind": decided.kind,
                "header": decided.header,
                "verdict": verdict,
                "trials": decided.trials,
                "seed": decided.seed,
                "alpha": decided.alpha,
                "claim": decided.claim,
                "mechanism": decided.mechanism,
                "parameters": clean(decided.parameters),
                # the figure travels with the record (xdist ships records as JSON) for the report's pages
                "checks": [{**check_to_dict(c), "figure": figure_to_dict(c.figure)} for c in checks],
            }
        )
        shown = self.settings
        if decided.kind == "run":  # a run shows its cell's seed and alpha
            shown = replace(self.settings, seed=decided.seed, alpha=decided.alpha)
        message = describe(checks, verdict, decided.header, shown, decided.trials)
        if decided.parameters.get("scope"):  # what the assertion is about: the program as implemented, or a law
            message += f"\n  (scope: {decided.parameters['scope']})"
        if verdict == "fail" or (verdict == "inconclusive" and self.settings.strict):
            pytest.fail(
                message + ("\n  (--audit-strict: undecided counts as failure)" if verdict != "fail" else ""),
                pytrace=False,
            )
        if verdict == "inconclusive":  # not green: reported as UNDECIDED (pytest_report_teststatus), not a skip
            pytest.skip(f"{message}\n  ({UNDECIDED_NOTE})")
        return AuditOutcome(verdict, checks, message)

    def assert_dp(
        self,
        pair,
        epsilon: float,
        delta: float,
        *,
        exact_delta: float | None = None,
        trials: int | None = None,
        law: str | None = None,
    ) -> "AuditOutcome":
        """Assert (ε, δ)-DP on the neighbouring pair: δ_{D‖D'}(ε) ≤ δ and δ_{D'‖D}(ε) ≤ δ.

        ``exact_delta``: a closed form for δ(ε) you believe in.  It is a claim to check (``closed-form``: fails
        where sampling excludes it), never evidence: the DP checks pass only when the sampled upper confidence
        bound on δ(ε) is below δ.  ``law``: what is asserted -- the floating-point program as implemented (None,
        the pair audit's default ``"as-implemented"``: the releases' bits are read too) or ``"ideal"``, the
        real-valued law ``sample`` stands for (``pdp_audit.audit_pair``'s ``law``).
        """
        return self._dp("dp", pair, (epsilon, delta), exact_delta, trials, law)

    def assert_pdp(
        self,
        pair,
        epsilon: float,
        delta: float,
        *,
        exact_delta: float | None = None,
        trials: int | None = None,
        law: str | None = None,
    ) -> "AuditOutcome":
        """Assert (ε, δ)-per-instance DP for the one dataset D and individual z of ``pair`` (Wang 2019); ``law``
        as for :meth:`assert_dp`."""
        return self._dp("pdp", pair, (epsilon, delta), exact_delta, trials, law)

    def _dp(self, kind: str, pair, claim: tuple, exact_delta, trials, law) -> "AuditOutcome":
        # deferred: loads pdp_audit.audits.pair.audit; pytest's start-up must not
        from pdp_audit.audits.pair.audit import audit_pair  # on use: the plugin's import draws nothing
        from pdp_audit.audits.pair.config import PairBudget

        epsilon, delta = claim
        budget = self._trials(trials)
        with self._drawing():
            run = audit_pair(
                pair,
                epsilon,
                delta,
                trials=PairBudget(
                    budget, early_stop=self.settings.early_stop, **({} if law is None else {"law": law})
                ),
                seed=self._seed(),
                alpha=self.settings.alpha,
                per_instance=kind == "pdp",
                exact_delta=exact_delta,
            )
        epsilon, delta = run.parameters["epsilon"], run.parameters["delta"]
        label = "per-instance DP claim for this (D, z)" if kind == "pdp" else "DP claim"
        header = f"({epsilon:g}, {delta:g}) {label} of {type(pair).__name__}"
        return self._decide(kind, header, run, {"epsilon": epsilon, "delta": delta})

    def assert_dp_blackbox(
        self,
        sample_D,
        sample_D_prime,
        epsilon: float,
        delta: float,
        *,
        trials: int | None = None,
        law: str | None = None,
    ) -> "AuditOutcome":
        """Try to refute (ε, δ)-DP of a mechanism that can only be sampled: ``sample_D(size, rng)`` and
        ``sample_D_prime(size, rng)`` return (size, d) releases.  A test statistic is learned on ``trials``
        releases per world and ε bounded on as many fresh ones (:mod:`pdp_audit.audits.blackbox.attack`).  Fails when
        the claim
        is refuted; otherwise inconclusive (a skip, or a failure under ``--audit-strict``): it never passes.
        ``law``: ``"as-implemented"`` (default: float releases are read with their structure as numbers too) or
        ``"ideal"`` (the real-valued law; the float implementation not audited)."""
        # deferred: loads pdp_audit.audits.blackbox.audit; pytest's start-up must not
        from pdp_audit.audits.blackbox.audit import audit_blackbox  # on use: its module draws
        from pdp_audit.audits.blackbox.evidence import BlackBoxBudget

        with self._drawing():
            run = audit_blackbox(
                (sample_D, sample_D_prime),
                epsilon,
                delta,
                trials=self._trials(trials),
                seed=self._seed(),
                alpha=self.settings.alpha,
                budget=BlackBoxBudget(early_stop=self.settings.early_stop, law=law or BlackBoxBudget.law),
            )
        epsilon, delta = run.parameters["epsilon"], run.parameters["delta"]
        header = f"({epsilon:g}, {delta:g}) DP claim, black box ({run.mechanism})"
        return self._decide("blackbox", header, run, {"epsilon": epsilon, "delta": delta})

    def run(
        self, audit: str, *, checks: Sequence[str] | None = None, alpha: float | None = None, **options
    ) -> "AuditOutcome":
        """Run a built-in audit -- any ``pdp-audit run NAME`` -- with its ``run`` options as keywords (dashes as
        underscores: ``run("objpert", claim_epsilon=1.0, synthetic="200,5", trials=2e4)``) and assert on its
        verdict: fails on a fail, skips when inconclusive (``--audit-strict``: fails).

        The audit is the cell of ``pdp-audit sweep`` with ``mechanism = NAME``, root seed ``--audit-seed`` and these
        options: the same canonical parameters, so the same seed and, at the same α, the same numbers.  A sweep of m
        cells audits each at α/m; ``alpha`` (default ``--audit-alpha``) sets this cell's, so a spec whose
        ``alpha`` is m × ``--audit-alpha`` reproduces a test grid of m cells exactly
        (``examples/test_audit_grid.py`` and ``examples/sweep-audit-grid.toml``).  ``checks`` selects check ids as
        ``[sweep] checks`` does.  Bad options raise :class:`~pdp_audit.verify.inputs.validation.InputError` naming them.
        """
        # deferred: loads pdp_audit.reports.json_report; pytest's start-up must not
        from pdp_audit.reports.json_report import check_from_dict

        where = f"privacy_audit.run({audit!r})"
        given_alpha = self.settings.alpha if alpha is None else alpha
        with self._drawing():
            cell, alpha, result = run_cell(audit, self.settings.seed, given_alpha, options, checks, where)
        index = self._taken()  # the position in the test; the seed is the cell's (as in a sweep)
        decided = [check_from_dict(c) for c in result["checks"]]
        given = ", ".join(f"{k}={v!r}" for k, v in options.items())
        header = f"run {audit} ({given or 'defaults'})"
        trials = int(cell.parameters.get("trials") or 0)
        claim = {"audit": audit, "options": dict(options), "cell_id": cell.cell_id}
        # the run's own parameters, as `pdp-audit run` states them (the claim's ε and δ, the data it resolved: a
        # cell's options named the default data set beside the synthetic data it ran on)
        parameters = {"audit": audit, **dict(result.get("parameters") or cell.parameters)}
        return self._assert(
            DecidedAssertion(
                "run", header, decided, result["verdict"], trials, index, cell.seed, alpha, claim, audit, parameters
            )
        )

    def assert_program_dp(
        self,
        program,
        data,
        epsilon: float,
        delta: float = 0.0,
        *,
        neighbours: str = "add-remove",
        bounds=None,
        **options: object,
    ) -> "AuditOutcome":
        """Assert a DP program ``program(data, rng)`` as it ships is (ε, δ)-DP under ``neighbours``:
        :func:`pdp_audit.audit_program` (its primitives recorded and replayed on neighbouring datasets, their exact
        laws composed, a finding confirmed by the black box on its witness pair).  Fails when refuted; passes when
        certified on the pairs searched; otherwise inconclusive (a skip, or a failure under ``--audit-strict``).

        ``bounds``: the declared domain of a record as ``audit_program`` takes it -- ``(low, high)`` for every numeric
        field, a mapping ``{"age": (0, 120), "label": ["a", "b"]}``, one pair per field of an array record, or the
        text of ``--bounds`` (:mod:`pdp_audit.audits.program.domain`).

        ``options``: the program audit's budget as ``audit_program`` and ``pdp-audit program`` take it, each checked
        by its one declaration (a bad value: an ``InputError`` naming it), None for its default: ``trials`` (the
        confirmation's releases per world), ``draw_sets``, ``search``, ``candidates``, ``law`` (``"as-implemented"``,
        the default: float noise added to a value is not certified; or ``"ideal"``, its real-valued law).  The seed
        and α are the session's (``--audit-seed``, ``--audit-alpha``)."""
        allowed = [name for name in api.PROGRAM_BUDGET if name not in ("seed", "alpha")]
        unknown = sorted(set(options) - set(allowed))
        if unknown:
            raise InputError(
                f"assert_program_dp() has no option {unknown[0]!r} (its options: {', '.join(allowed)}; the seed and "
                "alpha are --audit-seed's and --audit-alpha's)"
            )
        budget: dict[str, Any] = {"seed": self._seed(), "alpha": self.settings.alpha}
        budget.update({name: value for name, value in options.items() if value is not None})
        with self._drawing():
            run = api.audit_program(program, data, epsilon, delta, neighbours=neighbours, bounds=bounds, **budget)
        epsilon, delta = run.parameters["epsilon"], run.parameters["delta"]
        header = f"({epsilon:g}, {delta:g}) DP claim of the program {run.mechanism} under {neighbours}"
        return self._decide("program", header, run, {"epsilon": epsilon, "delta": delta})

    def assert_coverage(
        self, holds, rho: float, *, trials: int | None = None, exact_failure: float | None = None
    ) -> "AuditOutcome":
        """Assert an event holds with probability ≥ 1 − ρ (a sampler's draws stopped once decided, as
        :func:`pdp_audit.audit_coverage` stops them; ``--audit-no-early-stop``: the exact binomial test of them all)."""
        # deferred: loads pdp_audit.audits.coverage.audit; pytest's start-up must not
        from pdp_audit.audits.coverage.audit import audit_coverage  # on use: the plugin's import draws nothing

        with self._drawing():
            run = audit_coverage(
                holds,
                rho,
                trials=self._trials(trials),
                seed=self._seed(),
                alpha=self.settings.alpha,
                exact_failure=exact_failure,
                early_stop=self.settings.early_stop,
            )
        header = f"coverage claim (ρ = {run.parameters['rho']:g}) of {run.mechanism}"
        return self._decide("coverage", header, run, {"rho": run.parameters["rho"]})


@dataclass(frozen=True)
class AuditOutcome:
    """The verdict of one privacy assertion, its checks and the readable account."""

    verdict: str
    checks: list
    message: str


@pytest.fixture
def privacy_audit(request: pytest.FixtureRequest) -> PrivacyAudit:
    """Privacy assertions (``assert_dp``, ``assert_pdp``, ``assert_coverage``) recorded under this test."""
    session = request.config.pluginmanager.get_plugin("pdp_audit_session")
    assert isinstance(session, AuditSession)  # registered by pytest_configure
    return PrivacyAudit(request.node.nodeid, Settings.from_config(request.config), session)
