import functools
import os

import pytest

# Every statistical test in this suite is calibrated to a false-alarm probability of at most 1e-6
# (OpenDP's convention) and runs with a fixed seed, so a failure is a real finding, not bad luck.
FALSE_ALARM = 1e-6


def pytest_addoption(parser):
    parser.addoption("--run-slow", action="store_true", default=False, help="also run long statistical audits")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--run-slow") or os.environ.get("PDP_AUDIT_SLOW"):
        return
    skip = pytest.mark.skip(reason="long audit: opt in with --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _run_json_follows_the_published_schema(monkeypatch):
    """Every run or certificate JSON a test builds in-process is validated against ``pdp-audit schema``.

    A violation fails the test at teardown (raising inside the code under test could be caught by the CLI and
    read as an internal error instead).
    """
    from reports import json_report

    validator = _run_json_validator()
    build = json_report.run_to_dict
    violations = []

    def validated(run):
        document = build(run)
        violations.extend(f"{run.mechanism}: {e.json_path}: {e.message}" for e in validator.iter_errors(document))
        return document

    monkeypatch.setattr(json_report, "run_to_dict", validated)
    yield
    assert not violations, "run JSON does not follow reports/schema/run.schema.json:\n" + "\n".join(violations)


@functools.lru_cache(maxsize=1)
def _run_json_validator():
    """The published schema's validator (jsonschema is a test extra), built once per session."""
    import jsonschema

    from reports.json_report import run_schema

    schema = run_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)
