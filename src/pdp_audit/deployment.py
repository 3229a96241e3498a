"""A deployment file: the mechanism, exactly the parameters shipped, the data and the claim, in TOML.

``pdp-audit certify DEPLOY.toml`` certifies what such a file describes::

    mechanism = "gaussian"            # an audit of `pdp-audit list` (or "module:factory", a user's own)
    [claim]                           # the (ε, δ)-DP claim certified (both required)
    epsilon = 1.0
    delta = 1e-5
    [parameters]                      # exactly what is deployed: the options of `pdp-audit run gaussian --help`
    query = "sum"                     # with dashes as underscores; flags are true/false
    sensitivity = 1.0
    data = "my-data.csv"              # relative to this file (or: dataset = "diabetes", a shipped data set)
    [audit]                           # the certification's budget (optional): trials, seed, alpha, workers,
    seed = 0                          # and the audit's own budgets (search_trials, search, matrices, repetitions)

``mechanism = "module:factory"`` names the user's own mechanism instead: ``[parameters]`` are the factory's keyword
arguments, [claim] may have δ = 0, [audit] has trials, seed, alpha (:mod:`pdp_audit.audits.pair.deployed`).
``[[release]]`` tables (each a ``mechanism`` and its ``[release.parameters]``) instead of ``mechanism`` and
[parameters] certify several releases as one joint release (:mod:`pdp_audit.audits.joint`).  ``program =
"module:function"`` instead of ``mechanism`` certifies a DP program ``function(data, rng)`` with the options of
``pdp-audit program`` ([claim] neighbours, [parameters] data and bounds, [audit] trials, draw_sets, seed, alpha, law:
:mod:`pdp_audit.audits.program.deployed`).

The file's tables are the audit's config (:func:`deployment_config`, by the same function and declaration as
``pdp-audit run NAME``'s options), so every option, default and rule is the one ``run`` has.  Every problem --
invalid TOML, an unknown key, a key in the wrong table, a value of the wrong type, a missing data file, an
out-of-range value -- is one :class:`~pdp_audit.verify.inputs.validation.InputError` naming the file and the key
(``claim.epsilon``, ``parameters.sigma``, ``audit.trials``), raised before any computation.

**Data fingerprint** (``data_sha256``, ``data_shape`` of :func:`certificate`):
:mod:`pdp_audit.verify.core.data_fingerprint`.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import sys
from contextlib import nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping

from pdp_audit.audits.program.config import program_problem
from pdp_audit.catalogue.kinds import deployed_kind
from pdp_audit.catalogue.plans import plans_by_name
from pdp_audit.reports.json_report import code_version
from pdp_audit.reports.records import Run
from pdp_audit.verify.core.checks import without_findings
from pdp_audit.verify.core.config import WORKERS_OPTION, Table, in_file, parse, table_values, unknown_key, values_of
from pdp_audit.verify.core.data_fingerprint import data_fingerprint
from pdp_audit.verify.core.plan import named_keys
from pdp_audit.verify.evidence.user_code import check_target, is_own
from pdp_audit.verify.inputs.datasets import pinned_file
from pdp_audit.verify.inputs.validation import InputError, not_a_regular_file, quoted, shown

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

TABLES: tuple[Table, ...] = ("claim", "parameters", "audit")
MAPPING = "<mapping>"  # the name of a deployment given as a mapping (pdp_audit.certify)
CLAIM_KEYS = ("epsilon", "delta")
#: Options of ``run`` that a deployment file does not set (certify's command line has the outputs).
NOT_IN_DEPLOYMENT = {
    "claim_epsilon": "is [claim] epsilon",
    "claim_delta": "is [claim] delta",
    "report": "is certify's --report option",
    "json": "is certify's --json option",
    "quiet": "is certify's --quiet option",
    "workers": "is [audit] workers (or certify's --workers)",
}


@dataclass(frozen=True)
class Deployment:
    """A parsed deployment: where it came from (a file, or ``<mapping>`` for one given in Python), the SHA-256 of its
    bytes (of its canonical JSON form for a mapping), and its four parts as written."""

    path: str
    sha256: str
    mechanism: str
    claim: dict[str, Any]  # epsilon and delta (floats); a program's neighbours too
    parameters: dict[str, Any]
    audit: dict[str, Any]
    base: str | None = None  # the folder relative data paths start from (None: the file's folder)
    releases: tuple[tuple[str, dict[str, Any]], ...] = ()  # [[release]] tables: (mechanism, parameters) each
    program: str | None = None  # ``program = "module:function"``: a DP program's deployment (mechanism "program")

    @property
    def folder(self) -> Path:
        """The folder data paths are relative to."""
        return Path(self.base) if self.base is not None else Path(self.path).parent


def load_deployment(path: str) -> Deployment:
    """Read and check the file's structure (tables, mechanism, claim); InputError naming the file and key."""
    document, digest = _read_toml(path)
    return _deployment(document, path, digest)


def _named(path: str) -> str:
    """The deployment file as messages start: its path as typed (quoted if it holds an unprintable character)."""
    return shown(path)


def deployment_from_mapping(document: Mapping[str, Any]) -> Deployment:
    """A deployment given as a mapping (the TOML file's document): checked like a file, named ``<mapping>``, its
    relative ``data`` path relative to the current folder, its digest the SHA-256 of its canonical JSON."""
    try:
        canonical = json.dumps(document, sort_keys=True, ensure_ascii=True, allow_nan=False).encode("ascii")
    except (TypeError, ValueError) as err:
        raise InputError(
            f"deployment: the mapping must hold only TOML values (numbers, strings, tables): {err}"
        ) from None
    deployment = _deployment(dict(document), MAPPING, hashlib.sha256(canonical).hexdigest())
    return replace(deployment, base=".")


def _deployment(document: dict[str, Any], path: str, digest: str) -> Deployment:
    """Check the document's structure (tables, mechanism, claim); InputError naming ``path`` and the key."""
    where = _named(path)
    for key in document:
        if key not in ("mechanism", "release", "program") and key not in TABLES:
            raise InputError(
                f"{where}: unknown key {key!r}; a deployment file has mechanism, [claim], [parameters], [audit] "
                "(or [[release]] tables instead of mechanism and [parameters], or program instead of mechanism)"
            )
    if "program" in document:  # a DP program (pdp_audit.audits.program.deployed), with the options of `program`
        return _program_deployment(document, path, digest)
    if "release" in document:  # several releases, certified as one joint release (pdp_audit.audits.joint)
        releases = _releases(where, document)
        tables = _tables(where, document)
        name = "+".join(mechanism for mechanism, _ in releases)
        return Deployment(path, digest, name, _claim(path, tables["claim"]), {}, tables["audit"], releases=releases)
    mechanism = document.get("mechanism")
    if not isinstance(mechanism, str):
        raise InputError(
            f"{where}: mechanism must be a string naming an audit of `pdp-audit list` or MODULE:FACTORY, "
            f"got {mechanism!r}"
        )
    if is_own(mechanism):
        check_target(where, mechanism)
    elif mechanism not in plans_by_name():
        raise InputError(f"{where}: mechanism {mechanism!r} is not an audit; one of {sorted(plans_by_name())}")
    tables = _tables(where, document)
    return Deployment(path, digest, mechanism, _claim(path, tables["claim"]), tables["parameters"], tables["audit"])


def _program_deployment(document: dict[str, Any], path: str, digest: str) -> Deployment:
    """``program = "module:function"``, its [claim] (epsilon, delta and neighbours), [parameters] and [audit];
    neither mechanism nor [[release]] beside it (the options' values are checked by the program's config)."""
    where = _named(path)
    if "mechanism" in document or "release" in document:
        raise InputError(
            f'{where}: a program\'s deployment has program = "module:function" instead of mechanism; not both '
            "(and no [[release]] tables)"
        )
    program = document["program"]
    if not isinstance(program, str) or program_problem(program) is not None:
        raise InputError(
            f'{where}: program must be MODULE:FUNCTION (e.g. "program_sum:fixed", the function fixed of '
            f"program_sum.py beside the deployment file), got {program!r}"
        )
    tables = _tables(where, document)
    claim = _claim(path, tables["claim"], extra=("neighbours",))
    return Deployment(path, digest, "program", claim, tables["parameters"], tables["audit"], program=program)


def _tables(where: str, document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    tables: dict[str, dict[str, Any]] = {}
    for name in TABLES:
        table = document.get(name, {})
        if not isinstance(table, dict):
            raise InputError(f"{where}: {name} must be a table ([{name}]), got {type(table).__name__}")
        tables[name] = table
    return tables


def _releases(where: str, document: dict[str, Any]) -> tuple[tuple[str, dict[str, Any]], ...]:
    """``[[release]]`` tables: each an audit's ``mechanism`` and its own ``[release.parameters]``; no top-level
    mechanism or [parameters] beside them (one-line errors naming ``release[i].key``, counted from 1)."""
    if "mechanism" in document or "parameters" in document:
        raise InputError(
            f"{where}: a deployment with [[release]] tables has no top-level mechanism or [parameters]: each release "
            "has its own (mechanism = ..., [release.parameters])"
        )
    tables = document["release"]
    if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
        raise InputError(f"{where}: release must be one or more [[release]] tables, got {tables!r}")
    releases = []
    for i, table in enumerate(tables, start=1):
        for key in table:
            if key not in ("mechanism", "parameters"):
                raise InputError(
                    f"{where}: unknown key {quoted(f'release[{i}].{key}')}; a release has mechanism and "
                    "[release.parameters]"
                )
        mechanism, parameters = table.get("mechanism"), table.get("parameters", {})
        if not isinstance(mechanism, str) or mechanism not in plans_by_name():
            raise InputError(f"{where}: release[{i}].mechanism must be an audit of `pdp-audit list`, got {mechanism!r}")
        if not isinstance(parameters, dict):
            raise InputError(f"{where}: release[{i}].parameters must be a table, got {type(parameters).__name__}")
        releases.append((mechanism, parameters))
    return tuple(releases)


def _read_toml(path: str) -> tuple[dict[str, Any], str]:
    """The parsed TOML document and the SHA-256 of the file's bytes."""
    file = Path(path)
    why = not_a_regular_file(file, "deployment file")  # a FIFO or device would block or never end
    if why is not None and why != "does not exist":
        raise InputError(f"certify: {path!r} {why}")
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        raise InputError(f"certify: no such deployment file {path!r}") from None
    except OSError as err:
        raise InputError(f"certify: cannot read {path!r}: {err.strerror or err}") from None
    try:
        document = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise InputError(f"{_named(path)}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"{_named(path)}: not valid TOML: {err}") from None
    return document, hashlib.sha256(raw).hexdigest()


def _claim(path: str, table: dict[str, Any], extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """[claim]: epsilon and delta, both numbers (their ranges are the options', checked with the config), and the
    ``extra`` keys a kind's claim has (a program's neighbours: kept as written, checked with its config)."""
    for key in table:
        if key not in CLAIM_KEYS + extra:
            has = " and ".join((", ".join(CLAIM_KEYS + extra[:-1]), extra[-1])) if extra else "epsilon and delta"
            raise InputError(f"{_named(path)}: unknown key {quoted('claim.' + key)}; [claim] has {has}")
    claim: dict[str, Any] = {}
    for key in CLAIM_KEYS:
        if key not in table:
            raise InputError(f"{_named(path)}: [claim] needs {key} (the claimed {'ε' if key == 'epsilon' else 'δ'})")
        try:
            value = float(table[key]) if _is_number(table[key]) else None
        except OverflowError:  # an integer beyond the doubles, such as 10**400
            value = None
        if value is None:
            raise InputError(f"{_named(path)}: claim.{key} must be a finite number, got {table[key]!r}")
        claim[key] = value
    return {**claim, **{key: table[key] for key in extra if key in table}}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# --- the deployment as the audit's config --------------------------------------------------------------------


def audit_values(deployment: Deployment) -> tuple[dict[str, Any], int | None]:
    """The option values the deployment's tables give (keys as the config has them) and ``[audit] workers``.

    Every key is checked against the table it belongs in: the claim in [claim], the deployed parameters in
    [parameters], the certification's budgets in [audit] (one line naming the file and the key otherwise).
    """
    plan = plans_by_name()[deployment.mechanism]
    tables: dict[str, dict[str, Any]] = {table: getattr(deployment, table) for table in TABLES}
    tables["audit"] = {key: value for key, value in deployment.audit.items() if key != "workers"}  # :func:`_workers`
    values = table_values(_named(deployment.path), tables, plan.options(), lambda t, k: _misplaced(plan, t, k))
    if "data" in values:
        values["data"] = _data_path(deployment, "data", values["data"])
    _require_data(deployment, plan)
    return values, _workers(deployment)


def _misplaced(plan, table: str, key: str) -> str:
    """Why ``table.key`` is not an option of the deployment: another table's, not part of one, or unknown."""
    elsewhere = [o for o in plan.options().values() if (o.table_key or o.key) == key and o.table != table]
    if elsewhere and elsewhere[0].table == "audit":
        return f"{table}.{key} is a budget of the certification; put it in [audit]"
    if elsewhere and elsewhere[0].table == "none":
        return f"{table}.{key} is not part of a certificate (paper findings never are)"
    if elsewhere:
        return f"{table}.{key} belongs in [{elsewhere[0].table}] ({elsewhere[0].in_table})"
    if table == "parameters" and key in NOT_IN_DEPLOYMENT:
        return f"parameters.{key} {NOT_IN_DEPLOYMENT[key]}"
    if table == "parameters":
        allowed = [o.table_key or o.key for o in plan.options().values() if o.table == table]
        hint = difflib.get_close_matches(key, allowed, n=1)
        suggestion = f"did you mean {hint[0]!r}? " if hint else ""
        listed = ", ".join(sorted(allowed))
        return f"unknown key {quoted('parameters.' + key)}; {suggestion}`pdp-audit run {plan.name}` has {listed}"
    return unknown_key(plan.options(), table, key, also=("workers",) if table == "audit" else ())


def _workers(deployment: Deployment) -> int | None:
    value = deployment.audit.get("workers")
    if value is None:
        return None
    return parse(WORKERS_OPTION, value, in_file(str(deployment.path)))


def _data_path(deployment: Deployment, key: str, value: Any) -> Any:
    """``data`` relative to the deployment file (must exist); other values unchanged."""
    if not isinstance(value, str):
        return value
    if not value.strip():  # the folder itself ('.' is a directory) would name the wrong mistake
        raise InputError(f"{_named(deployment.path)}: parameters.data must name a CSV file, got an empty string")
    path = deployment.folder / value
    why = not_a_regular_file(path, "CSV file")
    if why == "does not exist":
        raise InputError(
            f"{_named(deployment.path)}: parameters.data: no such file {str(path)!r} (relative to the deployment file)"
        )
    if why is not None:
        raise InputError(f"{_named(deployment.path)}: parameters.data: {str(path)!r} {why}")
    return str(path)


def _require_data(deployment: Deployment, plan) -> None:
    """An audit that can take a data file certifies named data: ``data`` or ``dataset`` is required."""
    known = plan.options()
    if "data" in known and not {"data", "dataset", "synthetic"} & deployment.parameters.keys():
        choices = known["dataset"].choices if "dataset" in known else None
        shipped = f" or dataset = one of {sorted(choices)}" if choices else ""
        raise InputError(
            f"{_named(deployment.path)}: [parameters] must name the deployed data: "
            f'data = "FILE.csv" (relative to the deployment file){shipped}'
        )


def deployment_config(deployment: Deployment) -> tuple[Any, int | None]:
    """The audit's config from the deployment (one-line errors naming the file and the key) and its workers."""
    values, workers = audit_values(deployment)
    return plans_by_name()[deployment.mechanism].configure(values, in_file(deployment.path)), workers


# --- what a certificate certifies ---------------------------------------------------------------------------


def certificate(deployment: Deployment, config: Any) -> dict[str, Any]:
    """What ``pdp-audit certify`` certified: the mechanism, every parameter (defaults resolved), the claim, the
    certification's budget, the data and its fingerprint, the code version and the deployment file's SHA-256."""
    known = plans_by_name()[deployment.mechanism].options()
    values = values_of(config, known)
    parameters = {o.table_key or o.key: values[k] for k, o in known.items() if o.table == "parameters"}
    if "data" in deployment.parameters:  # as written in the file
        parameters["data"] = deployment.parameters["data"]
    budgets = [k for k, o in known.items() if o.table == "audit"]
    shared = [k for k in ("trials", "seed", "alpha") if k in budgets]  # the shared budgets first, then the audit's
    audit = {k: values[k] for k in shared + [k for k in budgets if k not in shared]}
    source, name, digest, shape = data_fingerprint(config)
    return {
        "mechanism": deployment.mechanism,
        "claim": dict(deployment.claim),
        "parameters": parameters,
        "audit": audit,
        "data_source": source,
        "data": name if source != "file" else deployment.parameters.get("data"),
        "data_sha256": digest,
        "data_shape": shape,
        "evidence": "built-in",
        "code_version": code_version(),
        "deployment_file": _file_record(deployment),
    }


def _file_record(deployment: Deployment) -> dict[str, str]:
    return {"path": deployment_name(deployment), "sha256": deployment.sha256}


def deployment_name(deployment: Deployment) -> str:
    """The deployment file as a certificate records it: its file name, however its path was typed (``x.toml``,
    ``./x.toml``, an absolute path, a symbolic link to it), so the certificate's bytes depend on the file's content
    only.  Through a link it is the name of the file the link resolves to -- the file whose bytes were hashed, which
    a reviewer finds in the repository beside its SHA-256 -- not the link's (``current.toml`` is re-pointed at the
    next release, and would then name another file)."""
    return deployment.path if deployment.path == MAPPING else Path(os.path.realpath(deployment.path)).name


# --- certifying ---------------------------------------------------------------------------------------------


def certify_deployment(deployment: Deployment, workers: int | None = None, progress: bool = False) -> Run:
    """Run the guarantees of the deployment's audit on exactly its parameters, data and claim: the certificate.

    The deployment becomes the audit's config (:func:`deployment_config`: every option, default and rule is the one
    ``run`` has; errors name the file and the key) before any computation.  ``workers`` overrides ``[audit]
    workers``.  A deployment of a user-facing kind (a user's own mechanism, several releases as one:
    :func:`pdp_audit.catalogue.kinds.deployed_kind`) is certified by its kind.
    """
    kind = deployed_kind(deployment)
    if kind is not None:  # a joint release, a user's factory: the kind's certificate
        assert kind.certify is not None  # a kind a deployment file describes certifies it (AuditKind)
        if workers is not None:  # --workers reaches the kind as the file's [audit] workers (it was dropped)
            deployment = replace(deployment, audit={**deployment.audit, "workers": workers})
        run = kind.certify(deployment, progress)
        assert run.certified is not None  # a kind's certificate states what it certified
        return replace(run, certified={**run.certified, "deployment_file": _file_record(deployment)})
    config, deployed_workers = deployment_config(deployment)
    data, plan = getattr(config, "data", None), plans_by_name()[deployment.mechanism]
    with named_keys(plan, in_file(deployment.path)):  # the reader of the data names --data; the file has a key
        with pinned_file(data) if data is not None else nullcontext():  # the bytes hashed are the bytes audited
            certified = certificate(deployment, config)
            run = plan.execute(config, workers or deployed_workers or 1, progress)
    if isinstance(deployment.parameters.get("data"), str):  # as written: relative to the deployment's folder
        run = replace(run, parameters={**run.parameters, "data": deployment.parameters["data"]})
    resolved = resolved_parameters(certified["parameters"], run.parameters)
    return replace(without_findings(run), certified={**certified, "parameters": resolved})


def resolved_parameters(written: Mapping[str, Any], used: Mapping[str, Any]) -> dict[str, Any]:
    """The certificate's parameters with each default left open (``None``: "calibrate σ", "λ from Theorem 5")
    replaced by the value the run resolved and used, and one that did not apply to the run (still ``None``)
    omitted: a certificate states what was deployed, never ``null``."""
    out = {}
    for key, value in written.items():
        value = used.get(key) if value is None else value
        if value is not None:
            out[key] = value
    return out
