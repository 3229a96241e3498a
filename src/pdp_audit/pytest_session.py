"""The pytest plugin's session (:mod:`pdp_audit.pytest_plugin`): the records of every privacy assertion keyed by
(node id, index), merged from pytest-xdist workers through ``workeroutput`` so that the merged report is identical with
or without ``-n``; at the end of the session the ``--audit-report`` PDF and JSON (written only where neither would
replace an input of the session) and the terminal summary.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from pdp_audit.reports.verdict_words import check_word, claim_word
from pdp_audit.verify.core.checks import worst
from pdp_audit.verify.core.outputs import add_reads, check_outputs, read_paths, record_reads
from pdp_audit.verify.inputs.validation import InputError, one_line

#: The xdist workeroutput key of a worker's records.
RECORDS_KEY = "pdp_audit_records"
#: The xdist workeroutput key of the files a worker's tests read (inputs of the report, see record_reads).
READS_KEY = "pdp_audit_reads"


def named_test_files(config: pytest.Config) -> dict[str, Path]:
    """The files named on the command line (``tests/test_x.py::test_y`` names tests/test_x.py), as inputs."""
    here = Path(config.invocation_params.dir)
    named = (here / str(arg).split("::", 1)[0] for arg in config.args)
    return {f"the test file {path}": path for path in named if path.is_file()}


def check_report_outputs(config: pytest.Config) -> None:
    """At the start of a session with ``--audit-report``: from now on every file the session reads (a fixture's, a
    test module) is an input of the report (:func:`~pdp_audit.verify.core.outputs.record_reads`), and the report's
    PDF and JSON are checked against the test files named on the command line (:func:`check_session_outputs`)."""
    record_reads()
    check_session_outputs(config, named_test_files(config))


def check_session_outputs(config: pytest.Config, inputs: dict[str, Path]) -> None:
    """InputError unless ``--audit-report``'s PDF and the JSON written beside it may be written: neither one of
    ``inputs`` (test files), nor a module the session imported (a collected test module, a conftest: see
    :func:`pdp_audit.verify.core.outputs.check_outputs`)."""
    # deferred: loads matplotlib; pytest's start-up must not
    from pdp_audit.reports.audit_session import session_report_paths

    json_path, pdf_path = session_report_paths(Path(config.invocation_params.dir) / config.getoption("--audit-report"))
    outputs = {"--audit-report": str(pdf_path), "--audit-report (the JSON written beside the PDF)": str(json_path)}
    check_outputs(outputs, inputs, pdfs=())


#: The columns the reasons of an undecided assertion are wrapped at in the terminal summary.
REASON_WIDTH = 110


def undecided_reasons(record: dict) -> list[str]:
    """Why an assertion was not decided, for the terminal summary: each check that did not pass, its verdict and its
    whole note (what it lacked, the budget that would decide it), wrapped between words.  An undecided test is
    reported as its own outcome with no message (its reason is the skip's, which pytest prints only for ``-rs``), so
    without ``--audit-strict`` its reason was nowhere on the terminal."""
    lines = []
    for check in record.get("checks", ()):
        if check.get("verdict") == "pass" or not check.get("note"):
            continue
        lines += textwrap.wrap(
            f"[{check['id']}] {check_word(str(check['verdict']))}: {check['note']}",
            width=REASON_WIDTH,
            initial_indent=" " * 6,
            subsequent_indent=" " * 8,
            break_long_words=False,
            break_on_hyphens=False,
        )
    return lines


# --------------------------------------------------------------------------------------------
# The session: records, xdist merge, report
# --------------------------------------------------------------------------------------------
class AuditSession:
    """Collects the records of every assertion, keyed by (node id, index); merges xdist workers' records."""

    def __init__(self, config: pytest.Config):
        self.config = config
        self.records: dict[tuple[str, int], dict] = {}
        self.test_files: set[str] = set()  # of every test reported, relative to the rootdir (xdist's too)

    def add(self, record: dict) -> None:
        self.records[(record["nodeid"], record["index"])] = record

    @property
    def is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    def sorted_records(self) -> list[dict]:
        return [self.records[key] for key in sorted(self.records)]

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Note the file of every test run (the xdist controller gets its workers' reports, not their modules)."""
        self.test_files.add(report.location[0])

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        """xdist controller: take the records a worker shipped in its ``workeroutput``."""
        payload = getattr(node, "workeroutput", {}).get(RECORDS_KEY)
        for record in json.loads(payload) if payload else []:
            self.add(record)
        add_reads(json.loads(getattr(node, "workeroutput", {}).get(READS_KEY) or "[]"))  # the files its tests read

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.is_worker:
            shipped = getattr(self.config, "workeroutput")  # xdist's, on a worker's config (not in pytest's types)
            shipped[RECORDS_KEY] = json.dumps(self.sorted_records())
            shipped[READS_KEY] = json.dumps(read_paths())
            return
        path = self.config.getoption("--audit-report")
        if path:
            # deferred: loads matplotlib; pytest's start-up must not
            from pdp_audit.reports.audit_session import write_session_report
            records = self.sorted_records()
            try:  # again: the test modules are known now (under xdist, only from the records' node ids)
                check_session_outputs(self.config, self._test_files(session, records))
            except InputError as err:
                pytest.exit(one_line(f"pdp-audit: {err}"), returncode=pytest.ExitCode.USAGE_ERROR)
            try:
                self.written = write_session_report(
                    records, worst(r["verdict"] for r in records), Path(self.config.invocation_params.dir) / path
                )
            except OSError as err:  # a full disk, a read-only file system: one line, the earlier report kept
                pytest.exit(
                    one_line(
                        f"pdp-audit: --audit-report: cannot write {err.filename!r}: {err.strerror}; the earlier "
                        "report is unchanged"
                    ),
                    returncode=pytest.ExitCode.USAGE_ERROR,
                )

    def _test_files(self, session: pytest.Session, records: list[dict]) -> dict[str, Path]:
        """Every collected test file and every file a record's node id names, as inputs of the report."""
        root = Path(self.config.rootpath)
        paths = [Path(item.path) for item in session.items] + [root / r["nodeid"].split("::", 1)[0] for r in records]
        paths += [root / name for name in sorted(self.test_files)]
        files = named_test_files(self.config)
        files.update((f"the test file {path}", path) for path in paths if path.is_file())
        return files

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.is_worker or not self.records:
            return
        records = self.sorted_records()
        counts = {v: sum(r["verdict"] == v for r in records) for v in ("pass", "inconclusive", "fail")}
        terminalreporter.section("pdp-audit privacy assertions")
        terminalreporter.write_line(
            f"{len(records)} assertions: {counts['pass']} certified, {counts['inconclusive']} undecided, "
            f"{counts['fail']} refuted"
        )
        for r in records:
            if r["verdict"] != "pass":
                said = claim_word(r["verdict"])
                terminalreporter.write_line(f"  {said:13s} {r['nodeid']} [{r['index']}] {r['header']}")
            if r["verdict"] == "inconclusive":  # why, without --audit-strict: an undecided test shows no message
                for line in undecided_reasons(r):
                    terminalreporter.write_line(line)
        for written in getattr(self, "written", ()):
            terminalreporter.write_line(f"report: {written}")
