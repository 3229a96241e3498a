"""The pytest plugin's ``--audit-report`` never writes over the session's own files (issue 27): not a collected test
module, not a conftest, not through a symbolic link, and the JSON written beside the PDF is checked like the PDF.
The sessions run in this process (pytester's runpytest_inprocess): the refusals are the plugin's configuration, not a
process boundary; the xdist one runs its own processes."""

from __future__ import annotations

import os

import pytest

pytest_plugins = ["pytester"]

TEST_FILE = "def test_h():\n    assert True\n"
CONFTEST = "import helper_of_conftest  # noqa: F401\n"


@pytest.fixture
def suite(pytester):
    """A test module, a conftest and a module the conftest imports; returns their bytes, to compare afterwards."""
    pytester.makepyfile(test_h=TEST_FILE, helper_of_conftest="VALUE = 1\n")
    pytester.makeconftest(CONFTEST)
    return {name: (pytester.path / name).read_bytes() for name in ("test_h.py", "conftest.py", "helper_of_conftest.py")}


def _refused(pytester, suite, result) -> str:
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR, output
    assert "it would be overwritten" in output and "Traceback" not in output and "INTERNALERROR" not in output, output
    for name, content in suite.items():
        assert (pytester.path / name).read_bytes() == content, name
    return output


@pytest.mark.parametrize(
    "link, target, report",
    [
        ("rep.pdf", "test_h.py", "rep.pdf"),  # the PDF through a link to the running test module
        ("rep2.json", "test_h.py", "rep2.pdf"),  # the JSON written beside the PDF, never named
        pytest.param("c.json", "conftest.py", "c", marks=pytest.mark.slow),  # slow: the same refusal as the first two
        pytest.param(
            "h.pdf", "helper_of_conftest.py", "h.pdf", marks=pytest.mark.slow
        ),  # a module of the session's folder that pytest imported
    ],
)
def test_the_session_report_never_replaces_a_test_file_or_a_module_the_session_imported(
    pytester, suite, link, target, report
):
    os.symlink(target, pytester.path / link)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--audit-report", report)
    _refused(pytester, suite, result)


def test_a_test_file_named_on_the_command_line_is_refused_before_the_session(pytester, suite):
    os.symlink("test_h.py", pytester.path / "rep.pdf")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--audit-report", "rep.pdf", "test_h.py::test_h")
    output = _refused(pytester, suite, result)
    assert "1 passed" not in output  # refused at configuration: no test ran


# slow: fast elsewhere (the refusal: the tests above; an xdist session: test_pytest_plugin's)
@pytest.mark.slow
def test_under_xdist_the_controller_refuses_a_test_module_it_never_imported(pytester, suite):
    pytest.importorskip("xdist")
    os.symlink("test_h.py", pytester.path / "rep.pdf")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "--audit-report", "rep.pdf")
    _refused(pytester, suite, result)


def test_the_help_says_both_files_are_written_and_replaced(pytester):
    help_text = " ".join(pytester.runpytest_inprocess("--help").stdout.str().split())
    assert "PATH.pdf and PATH.json, both of them" in help_text and "is replaced" in help_text, help_text
