"""A DP program in a deployment file: ``program = "module:function"``, certified by ``pdp-audit certify``.

    program = "program_sum:fixed"     # MODULE:FUNCTION: program_sum.py beside the deployment file (or installed)
    [claim]
    epsilon = 1.0
    delta = 0.0
    neighbours = "add-remove"         # or "replace-one" (default: add-remove)
    [parameters]
    data = "program-values.csv"       # relative to this file: a CSV with a header row, or .npy (required)
    bounds = "0,1"                    # the declared domain of a record (optional): per column
                                      # "age=0,120;label={a,b}", or a table [parameters.bounds]
    [audit]                           # trials, draw_sets, seed, alpha, law (optional)
    trials = 2000

The tables are the options of ``pdp-audit program`` (:mod:`pdp_audit.audits.program.config`), built into the same
config by the same function (:meth:`pdp_audit.verify.core.plan.KindPlan.configure`) and run by the same audit, so a
deployment and the command with the same settings and seed give the same verdict and numbers.  Every problem is one
:class:`~pdp_audit.verify.inputs.validation.InputError` naming the file and the key, before the program runs.

The module's source bytes are read once, hashed and executed (:func:`pdp_audit.verify.evidence.user_code.
load_factory`), and the data file's bytes read once, hashed and parsed (:func:`pdp_audit.audits.program.audit.
parse_data`): the code and the data certified are the code and the data audited.  The deployment file's folder is
first on ``sys.path`` while the program runs, so it may import a module beside it lazily.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path
from typing import Any

from pdp_audit.audits.program import file_reads
from pdp_audit.audits.program.audit import parse_data
from pdp_audit.audits.program.config import ProgramAuditConfig
from pdp_audit.reports.records import Run
from pdp_audit.verify.core.config import in_file, options, table_values, unknown_key, values_of
from pdp_audit.verify.evidence.user_code import importable, load_factory, loaded_library, module_file, not_the_users
from pdp_audit.verify.inputs.validation import InputError, not_a_regular_file, shown

#: How the certificate names the evidence a program's verdict rests on (``certified["evidence"]``).
EVIDENCE = "program"


def program_values(deployment: Any) -> dict[str, Any]:
    """The option values the deployment's tables give, by key (``claim.epsilon`` is ``claim_epsilon``), each key
    checked against the table its option lives in; ``data`` resolved relative to the deployment file."""
    where = shown(deployment.path)
    declared = options(ProgramAuditConfig)
    tables = {table: getattr(deployment, table) for table in ("claim", "parameters", "audit")}
    values = table_values(where, tables, declared, lambda table, key: _unknown(declared, table, key))
    if "data" in values:
        values["data"] = _data_path(deployment, values["data"])
    if "data" not in values:
        raise InputError(
            f'{where}: [parameters] must name the program\'s data: data = "FILE.csv" or "FILE.npy" (relative to '
            "the deployment file)"
        )
    values["program"] = deployment.program
    return values


def _unknown(declared: dict, table: str, key: str) -> str:
    """Why ``table.key`` is not an option of a program's deployment: another table's, or unknown."""
    elsewhere = [o for o in declared.values() if (o.table_key or o.key) == key and o.table not in (table, "none")]
    if elsewhere:
        return f"{table}.{key} belongs in [{elsewhere[0].table}] ({elsewhere[0].in_table})"
    if table == "audit" and key == "workers":
        return "audit.workers: a program's audit runs in one process (its draws are the program's own)"
    return unknown_key(declared, table, key, " of a program")


def _data_path(deployment: Any, value: Any) -> Any:
    """``parameters.data`` relative to the deployment file, a regular file (other values: the config refuses them)."""
    if not isinstance(value, str):
        return value
    where = shown(deployment.path)
    if not value.strip():
        raise InputError(f"{where}: parameters.data must name a CSV or .npy file, got an empty string")
    path = deployment.folder / value
    why = not_a_regular_file(path, "dataset file (CSV or .npy)")
    if why == "does not exist":
        raise InputError(f"{where}: parameters.data: no such file {str(path)!r} (relative to the deployment file)")
    if why is not None:
        raise InputError(f"{where}: parameters.data: {str(path)!r} {why}")
    return str(path)


def program_config(deployment: Any, plan: Any, target: Any = None) -> ProgramAuditConfig:
    """The program's config from the deployment, built by its ``plan`` (the kind's
    :class:`~pdp_audit.verify.core.plan.KindPlan`, as ``pdp-audit program`` builds it; one-line errors naming the
    file and the key), ``target`` the (function, data) audited where already loaded; the module found without
    running it."""
    config = plan.configure(program_values(deployment), in_file(deployment.path), target=target)
    module = deployment.program.partition(":")[0]
    library = loaded_library(deployment.folder, module)
    if library is not None:
        raise InputError(f"{shown(deployment.path)}: program: {not_the_users(module, library)}")
    if module_file(deployment.folder, deployment.program) is None:
        raise InputError(
            f"{shown(deployment.path)}: program: no module {module!r} beside the deployment file or installed "
            f"(expected {module.replace('.', '/')}.py in {str(deployment.folder)!r})"
        )
    return config


def certify_program(deployment: Any, code_version: str, plan: Any, progress: bool = False) -> Run:
    """Certify the deployment's program: its config checked, its module and data read once and hashed, the audit
    run by ``plan`` (the catalogue's program kind, whose run confirms findings with the black box), and the
    certificate (``certified``)."""
    where = shown(deployment.path)
    config = program_config(deployment, plan)  # every key checked before the module runs or the data is read
    path = str(config.data)  # required: program_values refused a deployment without it
    try:
        with file_reads.refused([path]):  # its module's import may not read the data either
            audited, factory, raw, data = _audited(deployment, config, plan, progress)
    except file_reads.DataFileRead as read:
        raise InputError(f"{where}: parameters.data: {read.words(deployment.program)}") from None
    chosen = values_of(config)
    certified = {
        "mechanism": deployment.mechanism,
        "program": deployment.program,
        "factory": factory.qualname,
        "module_file": {"name": factory.file_name, "sha256": factory.sha256},
        "claim": {"epsilon": config.claim_epsilon, "delta": config.claim_delta, "neighbours": config.neighbours},
        "parameters": {"data": deployment.parameters["data"], **({"bounds": config.bounds} if config.bounds else {})},
        "audit": {k: chosen[k] for k, o in options(ProgramAuditConfig).items() if o.table == "audit"},
        "data_source": "file",
        "data": deployment.parameters["data"],
        "data_sha256": hashlib.sha256(raw).hexdigest(),
        "data_shape": _shape(data),
        "evidence": EVIDENCE,
        "code_version": code_version,
        "libraries": list(audited.parameters.get("libraries", [])),  # the versions the run saw
    }
    return replace(audited, certified=certified)


def _audited(deployment: Any, config: Any, plan: Any, progress: bool) -> tuple:
    """The deployment's program audited by ``plan``: (its Run, the program's factory, the data's bytes, the data)."""
    where, path = shown(deployment.path), str(config.data)
    with importable(deployment.folder):  # the program may import a module beside it lazily
        factory = load_factory(where, deployment.folder, deployment.program, key="program")
        try:
            raw = Path(path).read_bytes()
        except OSError as err:
            raise InputError(f"{where}: parameters.data: cannot read {path!r}: {err.strerror}") from None
        try:
            data = parse_data(path, raw)
        except InputError as err:  # the reader names --data; the file has a key
            raise InputError(f"{where}: parameters.data{str(err).removeprefix('--data')}") from None
        audited = plan.execute(replace(config, target=(factory.function, data)), progress)
    return audited, factory, raw, data


def _shape(data: Any) -> list[int]:
    """(records, fields) of the dataset: a table's rows and columns, an array's records and the size of each."""
    shape = [int(n) for n in getattr(data, "shape", (len(data),))]
    fields = 1
    for n in shape[1:]:
        fields *= n
    return [shape[0], fields]
