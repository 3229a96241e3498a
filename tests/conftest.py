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
