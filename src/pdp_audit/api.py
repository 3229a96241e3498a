"""The public Python API, re-exported by :mod:`pdp_audit` (import it from there: ``import pdp_audit``).

Every way into the suite goes through these functions: the pytest plugin's assertions are :func:`audit_pair`,
:func:`audit_blackbox` and :func:`audit_coverage` plus pytest's pass/fail/skip; ``pdp-audit run``, ``certify`` and
``blackbox`` are :func:`run_audit`, :func:`certify` and :func:`audit_blackbox` plus the files and the exit code.
Each returns a :class:`~pdp_audit.reports.records.Run`: the decided checks, the verdict and the exit code the
command line would give, which :func:`write_report` renders as the same PDF and JSON.  The user-facing audits'
functions live in their audits' folders, and :mod:`pdp_audit`'s one table of public names finds them there:
:func:`~pdp_audit.audits.pair.audit.audit_pair` (``audits/pair/audit.py``),
:func:`~pdp_audit.audits.blackbox.audit.audit_blackbox` and ``audit_blackbox_search`` (``audits/blackbox/audit.py``),
:func:`~pdp_audit.audits.coverage.audit.audit_coverage` (``audits/coverage/audit.py``), ``audit_canary_scores`` and
``audit_one_run`` (``audits/canaries/evidence.py``).  What a command or the pytest plugin does around an audit (its
files checked and written, a user's code in a process of its own) is :mod:`pdp_audit.use_cases`.

Verdicts (see :mod:`pdp_audit.verify.core.checks`): a check **fails** when the samples contradict its claim at the
run's family-wise false-alarm probability ``alpha`` (Holm's step-down over the run's statistical checks), **passes**
when its whole confidence interval lies on the claim's side, and is **inconclusive** otherwise.  Exit codes: 0 every
guarantee passes, 1 one fails, 3 none fails but one is inconclusive.

Bad arguments raise :class:`~pdp_audit.verify.inputs.validation.InputError` (a ``ValueError``) with one line naming
the argument and its valid range, before any sampling.  Heavy modules are imported inside the functions, so that
``import pdp_audit`` (and with it the pytest plugin, which every test run of a project with pdp-audit installed
loads) stays light.
"""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from pdp_audit.reports.records import Run
from pdp_audit.reports.run_text import describe as account
from pdp_audit.verify.core.config import KEYWORDS, LAW_OPTION, LAW_SCOPES, pair_value, parse
from pdp_audit.verify.core.float_rules import with_own_float_rules
from pdp_audit.verify.core.outputs import check_outputs
from pdp_audit.verify.evidence.user_audits import DEFAULT_ALPHA, check_protocol, flag
from pdp_audit.verify.inputs.validation import InputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from pdp_audit.mechanisms.base import NeighbourPair


@with_own_float_rules
def check_pair(pair: NeighbourPair, *, law: str = LAW_OPTION.default) -> str:
    """Run the contract suite every built-in mechanism passes on ``pair`` (cf. scikit-learn's ``check_estimator``).

    Checks output shapes, determinism under the same generator, independence from how the draws are split into
    blocks, antisymmetry of the loss under swapping the worlds, and the likelihood-ratio identities on events of the
    release with the scale identity of the loss -- the ``loss-consistency`` test of :func:`audit_pair` (2e5 draws per
    world, false-alarm probability 1e-6).  As implemented (the default) the events include the releases' structure
    as doubles (:mod:`pdp_audit.verify.estimators.float_structure`): a sampler whose doubles differ between the
    worlds fails whatever its real-valued law (Mironov, CCS 2012; Haney et al. 2022), the witness event named with
    its frequency in each world.

    Args:
      pair: a :class:`~pdp_audit.mechanisms.base.NeighbourPair`.
      law: what is checked (:func:`audit_pair`'s ``law``, ``PairBudget(law=)``): ``"as-implemented"`` (the default),
        the floating-point program ``sample`` is, its releases' bits included; ``"ideal"``, the real-valued law it
        stands for (the float implementation is not checked).

    Returns:
      The scope line of what passed: ``"the floating-point program as implemented, its releases' bits included"``,
      or ``"the real-valued law; the float implementation was not audited"`` under ``law="ideal"``.

    Raises:
      AssertionError: naming the first check that fails, its message ending with the scope line.
      InputError: ``pair`` without ``sample`` and ``privacy_loss`` (None, say), or ``law`` not one of
        as-implemented, ideal (before any draw).

    Example::

        pdp_audit.check_pair(MyPair())  # the scope line, or AssertionError("check_antisymmetry: ...")
        pdp_audit.check_pair(MyPair(), law="ideal")  # its real-valued law only
    """
    # deferred: loads scipy; list --help must not
    from pdp_audit.verify.evidence.contract import check_pair as contract

    law = parse(dataclasses.replace(LAW_OPTION, required=True), law, KEYWORDS)  # the option's one check
    check_protocol(pair)
    try:
        contract(pair, law=law)
    except AssertionError as err:
        raise AssertionError(f"{err}\n  (scope: {LAW_SCOPES[law]})") from err
    return LAW_SCOPES[law]


def list_audits() -> dict[str, str]:
    """The built-in audits (``pdp-audit list``): name -> one line on what it audits.

    Example::

        sorted(pdp_audit.list_audits())[:3]  # ['adaops', 'adassp', 'gaussian']
    """
    # deferred: read at call time (tests replace plans.plans_by_name)
    from pdp_audit.catalogue.plans import plans_by_name

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
    # deferred: read at call time (tests replace plans.plans_by_name)
    from pdp_audit.catalogue.plans import plans_by_name

    plans = plans_by_name()
    if not isinstance(name, str) or name not in plans:  # a list raised TypeError (unhashable)
        raise InputError(f"name must be an audit of `pdp-audit list` ({', '.join(plans)}), got {name!r}")
    workers = pair_value("workers", workers)
    paper_claims, progress = flag("paper_claims", paper_claims), flag("progress", progress)
    plan = plans[name]
    config = plan.configure({**options, "seed": seed, "alpha": alpha, **plan.paper_option(paper_claims)})
    return plan.execute(config, workers=workers, progress=bool(progress))


#: The budget ``audit_program`` takes as keywords (each checked by its declaration in
#: :mod:`pdp_audit.audits.program.config`); ``privacy_audit.assert_program_dp`` takes the same but the seed and α.
PROGRAM_BUDGET = ("trials", "draw_sets", "seed", "alpha", "law", "search", "candidates")


@with_own_float_rules
def audit_program(
    program: Any,
    data: Any,
    epsilon: float,
    delta: float = 0.0,
    *,
    neighbours: str = "add-remove",
    bounds: Any = None,
    **budget: Any,
) -> Run:
    """Audit the (ε, δ)-DP claim of a program that calls noise primitives, without the program's authors rewriting it.

    ``program(data, rng)`` is run on ``data`` with a recording ``numpy.random.Generator``; every primitive it calls
    (the generator's methods, diffprivlib mechanisms' ``randomise``) is recorded -- its parameters, the value it is
    applied to, the noise it drew -- and the program is replayed with the same draws on neighbouring datasets (records
    removed, added or replaced: the domain's extremes, outliers, NaN and ±inf, duplicates, a new class, the rarest
    class's only member).  A control-flow divergence, a release that differs where no noise carries it, a scale taken
    from the data are findings with their witness pair; the recorded primitives' exact privacy-loss laws are composed
    on each pair (:mod:`pdp_audit.audits.program.accounting`) and refute the claim where the noise the release carries
    exceeds it (double spending, a wrong sensitivity, a wrong neighbour relation); a finding is confirmed on the
    final release by the black box's attack on its witness pair, the p-value beside it
    (:mod:`pdp_audit.audits.program.audit`).

    Args:
      program: a function ``program(data, rng)`` returning the release (a number, an array, a pandas object, or a
        tuple/list/dict of them), drawing its randomness from ``rng``.
      data: the dataset: a numpy array of records (one per row) or a pandas DataFrame.
      epsilon: the claimed ε, finite and >= 0.
      delta: the claimed δ, in [0, 1).
      neighbours: ``"add-remove"`` or ``"replace-one"``: the relation the claim is about.
      bounds: the declared domain of a record (the program's clipping bounds and categories), or None: ``(low,
        high)`` for every numeric field; per field a mapping ``{"age": (0, 120), "label": ["a", "b", "c"]}`` (a pair
        of numbers is a range, another list or a set of values a category set) or, for an array record, a list of
        one pair per field ``[(0, 1), (0, 10)]``; or the text of ``--bounds`` (``"age=0,120;label={a,b,c}"``).  A
        field not named keeps the data's own range (numbers) or the values it holds (text); outliers beyond the
        domain and a value outside a category set are tried too (:mod:`pdp_audit.audits.program.domain`).
      **budget: ``trials`` -- the most fresh releases per world the black box's confirmation draws, 100 to 1e9
        (default 20,000: a cap; it draws first what the exact law of the noise says suffices and stops once decided,
        :mod:`pdp_audit.audits.program.confirmation_looks`); ``draw_sets`` -- sets of noise draws the program is
        recorded on, 1 to 16 (default 8: the neighbours are replayed on the first, and on each further one where the
        program takes a path no earlier one took, at most 4 paths);
        ``seed`` -- root seed, >= 0 (default 0); ``alpha`` -- family-wise false-alarm probability, in
        [1e-50, 1) (default 1e-6); ``law`` -- ``"as-implemented"`` (the default: the program as it runs in
        floating point, so a release carrying continuous float noise added to a value -- numpy's or diffprivlib's
        Laplace or Gaussian -- is not certified, being porous in float64: Mironov, CCS 2012) or ``"ideal"`` (the
        primitives' real-valued laws; the certificate says the float implementation was not audited); ``search`` --
        how neighbours are searched beyond the named ones: ``"named"`` (those only), ``"random"`` (the default) or
        ``"optuna"`` (TPE; ``pip install optuna``), each proposing ``candidates`` records (0 to 100,000, default 32)
        ranked by the replay's own criterion (:mod:`pdp_audit.audits.program.search`).

    Returns:
      The decided :class:`~pdp_audit.reports.records.Run`: checks ``program-record``, ``program-structure``,
      ``program-composition`` and, where one of them does not pass, ``program-confirm``.

    Raises:
      InputError: an argument out of its range (before the program runs).

    Example::

        import numpy as np
        import pdp_audit

        def noisy_sum(data, rng):  # a sum of values in [0, 1] (NaN mapped to 0 first), Laplace noise of scale 1/ε
            return np.clip(np.nan_to_num(data), 0.0, 1.0).sum() + rng.laplace(0.0, 1.0)

        run = pdp_audit.audit_program(noisy_sum, np.linspace(0, 1, 20), epsilon=1.0, bounds=(0, 1), law="ideal")
        run.verdict  # 'pass' (as implemented, the default: 'inconclusive', its float noise porous)
    """
    # deferred: loads hashlib; list --help must not
    from pdp_audit.catalogue.kinds import kinds_by_name

    unknown = sorted(set(budget) - set(PROGRAM_BUDGET))
    if unknown:
        allowed = ", ".join(PROGRAM_BUDGET)
        raise InputError(f"audit_program() has no argument {unknown[0]!r} (its budget: {allowed})"[:200])
    _check_records(data)
    values: dict[str, Any] = {"claim_epsilon": epsilon, "claim_delta": delta, "neighbours": neighbours, **budget}
    if bounds is not None:  # written and checked by the option, as --bounds is (pdp_audit.audits.program.domain)
        values["bounds"] = bounds
    plan = kinds_by_name()["program"].plan
    return plan.execute(plan.configure(values, None, (program, data)))


def _check_records(data: Any) -> None:
    """One-line InputError naming ``data`` unless it holds records: a DataFrame, or anything numpy reads as an array
    of at least one dimension (None, a number or a generator is no dataset; the audit would fail on its length)."""
    if hasattr(data, "iloc"):
        return
    try:
        dimensions = np.ndim(data)
    except (TypeError, ValueError):  # a ragged list: the audit names it where it reads the records
        return
    if dimensions == 0:
        raise InputError(
            f"data must be a numpy array of records (one per row), a list of them or a pandas DataFrame, "
            f"got {type(data).__name__}"
        )


def describe(run: Run) -> str:
    """A readable account of a run: its verdict, then each check's claim, formula, estimate, interval and
    Holm-adjusted p-value (the note of each check that did not pass).

    Example::

        print(pdp_audit.describe(run))

    Anything but a :class:`~pdp_audit.reports.records.Run` is a one-line InputError naming what it takes.
    """
    if not isinstance(run, Run):
        raise InputError(
            "run: describe takes a Run (what pdp_audit.run_audit, audit_pair, audit_blackbox, audit_program, "
            "audit_canary_scores, audit_coverage and certify return; a search's outcome holds it as .run), "
            f"got {type(run).__name__}"
        )
    return account(run)


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
    ``per_instance()`` if it has one; δ = 0 may be claimed (:mod:`pdp_audit.audits.pair.deployed`).  A ``release``
    list of ``{"mechanism", "parameters"}`` certifies several releases as one (:mod:`pdp_audit.audits.joint`);
    ``"program": "module:function"`` instead of ``mechanism`` a DP program, with the options of
    :func:`audit_program` (:mod:`pdp_audit.audits.program.deployed`).

    Args:
      deployment: the path of a deployment file (TOML), or the same document as a mapping (``{"mechanism":
        "gaussian", "claim": {"epsilon": 1.0, "delta": 1e-5}, "parameters": {...}, "audit": {...}}``), whose
        relative ``data`` path is then relative to the current folder.
      workers: worker processes (default: ``[audit] workers``, else 1); results do not depend on it.
      progress: show progress on stderr.

    Returns:
      The decided :class:`~pdp_audit.reports.records.Run`; ``exit_code`` 0 means certified.

    Raises:
      InputError: the file, a key or a value is wrong (one line naming the key), or ``workers`` is not a whole
        number in [1, 256] (as :func:`run_audit`'s), before any computation.

    Example::

        run = pdp_audit.certify("deploy.toml")
        run.exit_code, run.certified["data_sha256"]
    """
    # deferred: loads importlib.metadata; list --help must not
    from pdp_audit.deployment import certify_deployment, deployment_from_mapping, load_deployment

    if workers is not None:  # 0 ran on one process; a string raised TypeError deep in the run
        workers = pair_value("workers", workers)
    if isinstance(deployment, Mapping):
        loaded = deployment_from_mapping(deployment)
    elif isinstance(deployment, (str, os.PathLike)):
        loaded = load_deployment(os.fspath(deployment))
    else:
        raise InputError(f"deployment must be a file path or a mapping, got {type(deployment).__name__}")
    return certify_deployment(loaded, workers=workers, progress=progress)


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
    # deferred: loads importlib.metadata; list --help must not
    from pdp_audit.reports.publish import write_run_reports
    from pdp_audit.reports.records import Run

    if not isinstance(run, Run):
        raise InputError(f"run must be a pdp_audit.Run, got {type(run).__name__}")
    pdf = None if pdf is None else os.fspath(pdf)
    json = None if json is None else os.fspath(json)
    check_outputs({"pdf": pdf, "json": json}, pdfs=("pdf",))
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
    # deferred: loads scipy; list --help must not
    from pdp_audit.sweeps.store import read_frame

    if not isinstance(path, (str, os.PathLike)):  # None or a number raised TypeError out of os.fspath
        raise InputError(f"path must be the path of a sweep store, got {path!r}"[:200])
    return read_frame(os.fspath(path))
