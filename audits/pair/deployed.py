"""A user's own mechanism in a deployment file: ``mechanism = "package.module:factory"``.

    mechanism = "histogram:make"      # histogram.py beside the deployment file (or an installed module)
    [claim]
    epsilon = 1.0
    delta = 0.0                       # pure DP may be claimed (a pass states the δ bound actually certified)
    [parameters]                      # keyword arguments of make(); a string `data` is a path relative to the file
    data = "my-data.csv"
    scale = 2.0
    [audit]                           # trials (per world, and per individual), seed, alpha
    trials = 1e5

The deployment file's folder is importable for the whole audit (first on ``sys.path`` from the module's import to
the certificate, then removed), so a sampler may import a module beside it lazily.  The module's source bytes are
read once, hashed (SHA-256) and executed: the code certified is the code hashed.
``factory(**parameters)`` returns a pair:

* **white-box** -- ``sample(world, size, rng)``, ``privacy_loss(outputs)`` and ``output_dim`` (the
  :class:`~pdp_audit.mechanisms.base.NeighbourPair` protocol): decided as :func:`pdp_audit.audit_pair` decides it
  (:func:`pdp_audit.verify.evidence.pair_checks.validated_dp_checks`: ``pair-protocol``, ``loss-consistency``,
  ``noise-view`` where the pair has a noise view, ``dp-forward`` and ``dp-reverse``);
* **black-box** -- ``sample`` only: decided as :func:`pdp_audit.audit_blackbox` decides it (a learned test; it
  can refute a claim, never certify it: the verdict is ``fail`` or ``inconclusive``, never ``pass``).

A pair with ``per_instance()`` yielding ``(id, pair)`` items has each individual's pair audited too, as a
per-instance DP claim at the same (ε, δ) and budget (Wang 2019, §2); at most :data:`MAX_INDIVIDUALS`
individuals.  Every check is a guarantee of one family (Holm at ``alpha``): the certificate passes only when every
guarantee, the pair's and each individual's, passes.

**Data.**  A string parameter ``data`` names a file relative to the deployment file.  Its bytes are read once
(:func:`pdp_audit.verify.inputs.datasets.pinned_bytes`), fingerprinted (SHA-256, and the shape of its numeric table
as for the built-in audits) and written to a private copy of the same file name, whose path the factory receives:
the bytes the mechanism reads are the bytes fingerprinted, even if the file changes meanwhile.  The copy (mode 0600,
in a ``pdp-audit-data-*`` folder of mode 0700 in the temporary directory) is removed when the audit ends: normally,
on an error, on Ctrl-C and, through :func:`pdp_audit.verify.core.processes.terminations_raise`, on SIGTERM or SIGHUP.

**The user's code is behind a boundary.**  A module that cannot be imported (or raises while imported), a missing
factory, a factory that raises or calls ``sys.exit``, that returns no pair, or whose pair's ``sample``,
``privacy_loss`` or ``per_instance`` raises on a first small probe is one :class:`InputError` naming the user's
function (exit 2), before any long computation.  What the user's code raises later, mid-audit, is the exact fail
``pair-protocol`` (the pair broke its protocol), never an internal error.  ``pdp-audit certify`` runs all of this
in a child process (:func:`pdp_audit.verify.core.sandbox.run_isolated`): user code that ends the process itself
(an exit that skips Python's own, a segfault) is one InputError naming the code and how its process ended, never
exit 0; the child ends as Python ends, so the files the user's code left open are flushed and closed as plain Python
leaves them.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
import os
import pickle
import sys
import tempfile
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from pdp_audit.audits.pair.config import PairAuditConfig, own_budget
from pdp_audit.audits.pair.pages import per_instance_page
from pdp_audit.mechanisms.base import MalformedPair, checked_releases, pair_attribute, user_error
from pdp_audit.reports.records import Run
from pdp_audit.verify.core.checks import finalize, make_run
from pdp_audit.verify.core.config import LAW_OPTION, LAW_SCOPES
from pdp_audit.verify.core.module_fingerprints import HelperModules, libraries
from pdp_audit.verify.core.sandbox import user_state
from pdp_audit.verify.estimators.progress import progress_bar
from pdp_audit.verify.evidence import pair_sequential as sequential
from pdp_audit.verify.evidence.user_code import call_factory, importable, load_factory
from pdp_audit.verify.inputs.datasets import load_csv, pinned_bytes
from pdp_audit.verify.inputs.interruptions import INTERRUPTIONS
from pdp_audit.verify.inputs.validation import InputError, not_a_regular_file, quoted, shown

#: The most individuals of ``per_instance()`` one certificate audits (each costs as much as the pair itself).
MAX_INDIVIDUALS = 20
#: The methods of a user's pair that run the user's code mid-audit (behind :class:`GuardedPair`).
GUARDED = ("sample", "privacy_loss", "release_from_noise")
EVIDENCE = {
    "white-box": "white-box: pair-protocol, loss-consistency, noise-view (where the pair has one), dp-forward and "
    "dp-reverse on sample() and its exact privacy_loss()",
    "black-box": "black-box: a learned test of D against D' on sample()'s releases (can refute, never certify)",
}


# --- the pair behind a boundary ------------------------------------------------------------------------------


class _GuardedMethod:
    def __init__(self, method: Any, name: str):
        self.method, self.name = method, name

    def __call__(self, *args: Any) -> Any:
        # the user's code gets its own copy of every array we pass it: a privacy_loss that writes into its input
        # must not change the releases the checks compare afterwards (a correct pair failed noise-view so)
        owned = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
        try:
            with user_state():
                return self.method(*owned)
        except BaseException as err:
            if isinstance(err, INTERRUPTIONS):  # Ctrl-C, SIGTERM: a wish to stop, not a fault
                raise
            called = ", ".join(repr(a) if isinstance(a, (str, int)) else type(a).__name__ for a in args)
            raise MalformedPair(f"{self.name}({called}) raised {user_error(err)}") from None


class GuardedPair:
    """A user's pair whose :data:`GUARDED` methods turn whatever they raise into
    :class:`~pdp_audit.mechanisms.base.MalformedPair` (the exact fail ``pair-protocol``, naming the call); every
    other attribute is the pair's own (its noise view, ``output_dim``)."""

    def __init__(self, pair: Any, owner: str):
        self._pair, self._owner = pair, owner

    def __reduce__(self) -> tuple:
        # sent to worker processes as the pair and its owner (pickle's own lookups would reach __getattr__ first)
        return (GuardedPair, (self._pair, self._owner))

    @property
    def built_from_law(self) -> bool:
        """Whether the pair behind the boundary is its declared law by construction (a pair the suite built:
        :func:`pdp_audit.verify.estimators.view_replay.built_from_law`)."""
        # deferred: loads scipy; program --help must not
        from pdp_audit.verify.estimators.view_replay import built_from_law

        return built_from_law(self._pair)

    def __getattr__(self, attr: str) -> Any:
        value = pair_attribute(self._pair, attr, self._owner)
        if value is None:
            raise AttributeError(attr)
        if attr in GUARDED and callable(value):
            return _GuardedMethod(value, f"{self._owner}: {attr}")
        return value


def kind_of(where: str, pair: Any, owner: str) -> str:
    """``white-box`` (sample, privacy_loss, a whole output_dim >= 1) or ``black-box`` (sample only)."""
    try:
        return _kind(where, pair, owner)
    except MalformedPair as err:  # a property of the user's that raises
        raise InputError(f"{where}: {err}") from None


def _kind(where: str, pair: Any, owner: str) -> str:
    if not callable(pair_attribute(pair, "sample", owner)):
        raise InputError(
            f"{where}: {owner} must return a pair with sample(world, size, rng) (and privacy_loss(outputs) for a "
            f"white-box certificate); got {type(pair).__name__}"
        )
    if not callable(pair_attribute(pair, "privacy_loss", owner)):
        return "black-box"
    dim = pair_attribute(pair, "output_dim", owner)
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool) or dim < 1:
        raise InputError(f"{where}: {owner} returned a pair whose output_dim is {dim!r}; expected a whole number >= 1")
    return "white-box"


def probe(where: str, pair: Any, kind: str, owner: str) -> None:
    """A few releases per world (and their losses, where they have the protocol's shape), so that a pair whose
    methods raise is refused before any long computation (InputError naming the method)."""
    for world in ("D", "D'"):
        try:
            outputs = pair.sample(world, 2, np.random.default_rng(0))
            if kind == "white-box":
                try:
                    outputs = checked_releases(pair, world, 2, outputs)
                except MalformedPair:  # a wrong shape is the audit's pair-protocol fail, not a usage error
                    continue
                pair.privacy_loss(outputs)
        except MalformedPair as err:
            raise InputError(f"{where}: {err}") from None


@dataclass(frozen=True)
class Individual:
    """One individual of ``per_instance()``: her id as shown, and her pair behind the boundary."""

    id: str
    pair: GuardedPair


def individuals(where: str, pair: Any, kind: str, owner: str) -> list[Individual]:
    """The items of ``pair.per_instance()`` (none without it), checked and probed; more than
    :data:`MAX_INDIVIDUALS` is refused."""
    per_instance = getattr(pair, "per_instance", None)
    if per_instance is None:
        return []
    try:
        items = list(itertools.islice(iter(per_instance()), MAX_INDIVIDUALS + 1))
    except BaseException as err:
        if isinstance(err, INTERRUPTIONS):  # Ctrl-C, SIGTERM: a wish to stop, not a fault
            raise
        raise InputError(f"{where}: {owner}: per_instance() raised {user_error(err)}") from None
    if len(items) > MAX_INDIVIDUALS:
        raise InputError(
            f"{where}: {owner}: per_instance() yields more than {MAX_INDIVIDUALS} individuals; a certificate audits at "
            f"most {MAX_INDIVIDUALS} (yield those the release must guarantee, e.g. the most exposed)"
        )
    found, seen = [], set()
    for item in items:
        if not (isinstance(item, tuple) and len(item) == 2):
            raise InputError(f"{where}: {owner}: per_instance() must yield (id, pair) items; got {shown(repr(item))}")
        ident = shown(str(item[0]))
        if ident in seen:
            raise InputError(f"{where}: {owner}: per_instance() yields the id {ident} twice")
        seen.add(ident)
        name = f"{owner}: per_instance() {ident}"
        if kind_of(where, item[1], name) != kind:
            raise InputError(f"{where}: {name} must be a {kind} pair, as the mechanism's own pair is")
        guarded = GuardedPair(item[1], name)
        probe(where, guarded, kind, name)
        found.append(Individual(ident, guarded))
    return found


# --- certifying ------------------------------------------------------------------------------------------------


@contextmanager
def deployed_data(where: str, folder: Path, parameters: dict[str, Any]) -> Iterator[tuple[dict, tuple]]:
    """The factory's keyword arguments (``data``: the path of a private copy of the pinned bytes) and the data's
    fingerprint ``(source, data as written, sha256, shape)``."""
    check_values(where, parameters)
    data = parameters.get("data")
    if not isinstance(data, str):
        yield dict(parameters), ("module", None, None, None)
        return
    path = folder / data
    why = not_a_regular_file(path, "data file")
    if why is not None:
        raise InputError(f"{where}: parameters.data: {str(path)!r} {why} (relative to the deployment file)")
    with ExitStack() as stack:
        content = stack.enter_context(pinned_bytes(path))
        try:
            shape = list(load_csv(path).features.shape)  # the pinned bytes, parsed as the built-in audits do
        except InputError as err:
            raise InputError(f"{where}: parameters.data: {str(err).removeprefix('--data: ')}") from None
        copy = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pdp-audit-data-"))) / path.name
        private_copy(copy, content)
        yield {**parameters, "data": str(copy)}, ("file", data, hashlib.sha256(content).hexdigest(), shape)


def private_copy(path: Path, content: bytes) -> None:
    """Write ``content`` to the new file ``path``, readable by its owner only (0600, whatever the umask): it is a copy
    of private data (``Path.write_bytes`` gave 0644 under the usual umask)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as sink:
        sink.write(content)


def check_values(where: str, table: dict[str, Any], prefix: str = "parameters") -> None:
    """Parameters a certificate can record: numbers (finite), strings, booleans, arrays and tables of them."""
    for key, value in table.items():
        name = f"{prefix}.{key}"
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else None
        if items is not None:
            check_values(where, dict((str(k), v) for k, v in items), name)
        elif isinstance(value, float) and not math.isfinite(value):
            raise InputError(f"{where}: {quoted(name)} must be a finite number, got {value!r}")
        elif not isinstance(value, (str, int, float, bool)):
            raise InputError(f"{where}: {quoted(name)} must be a number, string, boolean, array or table, got {value}")


@dataclass(frozen=True)
class SamplerAudit:
    """What the certificate of a sampler-only pair needs of the black-box audit, passed in by the catalogue (an
    audit imports no other audit): ``checks(samplers, ε, δ, trials, seed, progress, workers=…, stop=…, law=…)``, its
    evidence (:func:`pdp_audit.audits.blackbox.evidence.blackbox_checks`), and ``default_trials(samplers, workers,
    runs)``, its default fresh budget fitted to the samplers' speed for ``runs`` audits (the mechanism's and one per
    individual), as ``pdp-audit blackbox`` fits it -- the budget of a deployment whose ``[audit]`` names none."""

    checks: Any
    default_trials: Any


def certify_own(deployment, code_version: str, blackbox: SamplerAudit, progress: bool = False) -> Run:
    """Certify the deployment's own mechanism (see the module notes): the decided run with its ``certified``.
    ``blackbox``: the black-box audit (:class:`SamplerAudit`), which decides a pair with ``sample`` only; the
    deployments that reach both audits pass it in.  ``progress``: the budget stated on stderr before the draws
    (:func:`stated_budget`) and a bar with the estimated time on a terminal."""
    where = shown(deployment.path)
    budget = own_budget(deployment)
    # the folder stays importable for the whole audit, not only while the module loads: a sample() that imports a
    # sibling module lazily got ModuleNotFoundError, and a correct mechanism was reported as the user's fault
    with importable(deployment.folder):
        return _certify_own(deployment, code_version, blackbox, where, (budget, progress))


def _certify_own(deployment, code_version: str, blackbox: SamplerAudit, where: str, planned: tuple) -> Run:
    budget, progress = planned
    factory = load_factory(where, deployment.folder, deployment.mechanism)
    helpers = HelperModules(deployment.folder, deployment.mechanism.partition(":")[0])
    helpers.update()  # the helpers the factory's module imported, hashed before any of its code runs again
    with deployed_data(where, deployment.folder, deployment.parameters) as (arguments, fingerprint):
        pair = call_factory(where, factory, arguments)
        kind = kind_of(where, pair, f"{factory.qualname}()")
        guarded = GuardedPair(pair, factory.qualname)
        probe(where, guarded, kind, factory.qualname)
        people = individuals(where, pair, kind, factory.qualname)
        # the workers are chosen before the draws where a budget is stated (its statement names them), else after
        # the pair's rng probe (pair_checks.MainPass)
        white = kind == "white-box"
        place = pair_workers(guarded, budget.workers, timed=True, loss=white) if progress else None
        chosen: list[int] = [] if place is None else [place.workers]

        def workers() -> int:
            if not chosen:
                chosen.append(pair_workers(guarded, budget.workers, loss=white).workers)
            return chosen[0]

        if not white and "trials" not in deployment.audit:  # the black box's default budget, as `blackbox` has
            budget = _sampler_budget(guarded, budget, blackbox, workers(), 1 + len(people))
        if progress:
            stated = stated_budget(guarded, kind, budget, len(people), place)
            print(f"pdp-audit certify: {stated}", file=sys.stderr, flush=True)
        stop = sequential.Stopping.of(budget.alpha, budget.early_stop, budget.time_limit)  # one clock for every pass
        if stop is not None and people:  # each pass read against the certificate's one family of every pass's checks
            stop = replace(stop, others=len(people) * (sequential.PASS_CHECKS if white else 1))
        # a bar of the pairs audited (the deployment's, then each individual's, on the same budget), over their passes'
        with progress_bar(1 + len(people), "pdp-audit certify, pairs audited", "pair", progress) as bar:
            evidence = pair_evidence(guarded, kind, budget, False, blackbox.checks, (progress, workers, stop))
            for person in people:  # at the mechanism's workers where the individual's pair pickles too
                if bar is not None:
                    bar.update(1)
                shipped = functools.partial(_shippable, person.pair, workers)
                found = pair_evidence(person.pair, kind, budget, True, blackbox.checks, (progress, shipped, stop))
                evidence += [_of(e, person.id) for e in found]
    parameters = {
        "pair": f"the one {factory.qualname} returns for the deployment's parameters",
        "claim": "DP" if kind == "white-box" else "DP (black box)",
        "epsilon": budget.epsilon,
        "delta": budget.delta,
        "trials": budget.trials,
        **sequential.stated(budget.early_stop, budget.time_limit),
        **({"data": deployment.parameters["data"]} if fingerprint[0] == "file" else {}),
        "individuals": len(people),
        **(_scope(budget.law) if kind == "white-box" else _blackbox_law(budget.law)),
    }
    helpers.update()  # and those imported lazily, by the factory or the sampler
    checks = finalize(evidence, budget.alpha)
    pages = [per_instance_page(checks, people, budget, kind)] if people else []
    run = make_run(deployment.mechanism, checks, budget.alpha, parameters, budget.seed, pages=pages, paper_claims=True)
    source, data, digest, shape = fingerprint
    certified = {
        "mechanism": deployment.mechanism,
        "factory": factory.qualname,
        "module_file": {"name": factory.file_name, "sha256": factory.sha256},
        "helper_modules": helpers.records(),
        "libraries": libraries(helpers.modules(), (pair,)),
        "evidence": kind,
        "claim": dict(deployment.claim),
        "parameters": dict(deployment.parameters),
        "audit": {
            "trials": budget.trials,
            "seed": budget.seed,
            "alpha": budget.alpha,
            **sequential.stated(budget.early_stop, budget.time_limit),
            **({"law": budget.law} if kind == "white-box" else _blackbox_law(budget.law)),
        },
        "individuals": [p.id for p in people],
        "data_source": source,
        "data": data,
        "data_sha256": digest,
        "data_shape": shape,
        "code_version": code_version,
    }
    return replace(run, certified=certified)


def _blackbox_law(law: str) -> dict[str, str]:
    """A black-box run's law where it is not the default (its records unchanged otherwise): the real-valued law, the
    float implementation not audited (a black box refutes or finds nothing; it never certifies)."""
    return {} if law == LAW_OPTION.default else {"law": f"{law} (the float implementation was not audited)"}


def _scope(law: str) -> dict[str, str]:
    """The law a white-box certificate is about and its scope in one line
    (:data:`pdp_audit.verify.core.config.LAW_SCOPES`)."""
    return {"law": law, "scope": LAW_SCOPES[law]}


def _sampler_budget(pair: GuardedPair, budget: PairAuditConfig, blackbox: SamplerAudit, workers: int, runs: int):
    """``budget`` with the black box's default fresh releases for ``runs`` audits of ``pair``'s samplers on
    ``workers`` processes; unchanged where the samplers cannot be timed (the checks then say why)."""
    try:
        trials = blackbox.default_trials(tuple(_samplers(pair)), workers, runs)
    except MalformedPair:
        return budget
    return replace(budget, trials=int(trials))


def pair_evidence(
    pair: GuardedPair,
    kind: str,
    budget: PairAuditConfig,
    per_instance: bool,
    blackbox_checks: Any,
    running: tuple = (False, 1, None),
) -> list:
    """The evidence ``pdp_audit.audit_pair`` (white-box) or ``pdp_audit.audit_blackbox`` (black-box, through
    ``blackbox_checks(samplers, ε, δ, trials, seed, progress, workers=…, stop=…, law=…)``) decides; ``running``:
    (progress, the workers of the pass: a number or a function choosing them,
    :class:`pdp_audit.verify.evidence.pair_checks.MainPass` white-box, the black box's releases otherwise; the white-box
    pass's :class:`~pdp_audit.verify.evidence.pair_sequential.Stopping`, or None: the fixed pass)."""
    # deferred: loads scipy; program --help must not
    from pdp_audit.verify.evidence.pair_checks import MainPass, validated_dp_checks

    progress, workers, stop = running
    claim = (budget.epsilon, budget.delta, budget.trials, budget.seed)
    if kind == "white-box":
        drawing = MainPass(progress, workers, stop, budget.law)
        return validated_dp_checks(pair, *claim, per_instance, drawing=drawing)
    chosen = workers() if callable(workers) else workers
    return blackbox_checks(tuple(_samplers(pair)), *claim, progress, workers=chosen, stop=stop, law=budget.law)


def _shippable(pair: Any, workers: Any) -> int:
    """``workers()`` (those of the mechanism's own pair) for an individual's pair that pickles, else 1."""
    if workers() == 1:
        return 1
    try:
        pickle.dumps(pair)
    except Exception:  # noqa: BLE001 - any pickling failure means the same thing here
        return 1
    return workers()


def _samplers(pair: Any, loss: bool = False) -> list:
    """One ``(size, rng)`` function per world: ``sample``, followed by ``privacy_loss`` with ``loss``."""
    return [WorldSampler(pair, world, loss) for world in ("D", "D'")]


@dataclass(frozen=True)
class WorldSampler:
    """``(size, rng) -> pair.sample(world, size, rng)`` (its losses with ``loss``): a sampler of one world that
    pickles where the pair does, so worker processes can draw it (a lambda could not be sent)."""

    pair: Any
    world: str
    loss: bool = False

    def __call__(self, size: int, rng: Any) -> Any:
        releases = self.pair.sample(self.world, size, rng)
        return self.pair.privacy_loss(releases) if self.loss else releases


@dataclass(frozen=True)
class PairWorkers:
    """The processes a white-box pair's pass draws on, why (one sentence; "" where the user named them), and the
    measured cost of a release of ``sample`` and ``privacy_loss`` (None where nothing was timed)."""

    workers: int
    why: str = ""
    cost: float | None = None


def pair_workers(pair: Any, workers: int | None, timed: bool = False, loss: bool = True) -> PairWorkers:
    """``workers`` where the user named them, else chosen by the rule the black box follows
    (:func:`pdp_audit.verify.evidence.user_audits.chosen_workers`): the available cores for a pair whose ``sample``
    and ``privacy_loss`` (``sample`` alone without ``loss``: a black-box pair) cost at least ``PARALLEL_FROM_S`` a
    release and that pickles, one process otherwise.  The pair is timed only where that decides (or ``timed``: a
    budget to state); a pair that raises while timed gets one process (its checks say why).  The numbers never depend
    on the workers."""
    # deferred: read at call time (tests replace user_audits.available_cores)
    from pdp_audit.verify.evidence.user_audits import available_cores, chosen_workers, sampler_cost

    if workers is not None and not timed:
        return PairWorkers(int(workers))
    if workers is None and not timed and available_cores() < 2:
        return PairWorkers(1, "Workers: one process -- this process may run on one core only.")
    try:
        cost = sampler_cost(_samplers(pair, loss=loss))
    except MalformedPair:
        return PairWorkers(1 if workers is None else int(workers), "")
    if workers is not None:
        return PairWorkers(int(workers), "", cost)
    chosen, why = chosen_workers(pair, cost, "the pair (sample and privacy_loss)" if loss else "the sampler")
    return PairWorkers(chosen, why, cost)


def stated_budget(pair: GuardedPair, kind: str, budget: PairAuditConfig, individuals: int, place=None) -> str:
    """What certify says before it draws: the releases per world, the cost of one (``sample`` and, white-box,
    ``privacy_loss``, timed on up to 2,000 per world), the minutes they make and, white-box, the workers of the pass
    (``place``, a :class:`PairWorkers` with its cost) and why; a black-box pair's ``sample`` alone is timed."""
    # deferred: read at call time (tests replace user_audits.sampler_cost)
    from pdp_audit.verify.evidence.user_audits import duration, per_release, sampler_cost

    try:
        cost = place.cost if place is not None and place.cost is not None else None
        cost = sampler_cost(_samplers(pair, loss=kind == "white-box")) if cost is None else cost
    except MalformedPair:
        return "Budget: the pair could not be timed (its checks say why)."
    releases = budget.trials * (1 + individuals)
    drawn = "one pass for every check" if kind == "white-box" else "beside those the black box learns from"
    # a pass drawn in looks stops once decided: the budget is its maximum, and the statement says so
    most = "at most " if budget.early_stop or budget.time_limit is not None else ""
    workers = place.workers if place is not None else 1
    where = f"on {workers} worker processes" if workers > 1 else "in this process (one core)"
    minutes = 2 * releases * cost / 60 / workers
    said = (
        f"Budget: {most}{releases:,} releases per world ({drawn}{', and one per individual' if individuals else ''}), "
        f"the draws take {most}about {duration(minutes)} at {per_release(cost)}, {where}."
    )
    return f"{said} {place.why}" if place is not None and place.why else said


def _of(evidence, ident: str):
    """An individual's evidence: ``<id>/<check>``, its title naming her."""
    spec = replace(evidence.spec, id=f"{ident}/{evidence.spec.id}", title=f"individual {ident}: {evidence.spec.title}")
    return replace(evidence, spec=spec)
