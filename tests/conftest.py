import functools
import os
import signal
import sys
import zlib

import pytest

from tests import in_process, tiers

# Every statistical test in this suite is calibrated to a false-alarm probability of at most 1e-6
# (OpenDP's convention) and runs with a fixed seed, so a failure is a real finding, not bad luck.
FALSE_ALARM = 1e-6


def pytest_configure(config):
    """Commands the tests start must get Ctrl-C as a user's would.  A suite started in the background of a shell
    without job control inherits SIGINT *ignored*, and an ignored signal stays ignored across exec: every command
    a test starts would then shrug off the SIGINT the interrupt tests send (seen: three such tests hung or exited
    1).  A handler of our own is reset to the default in the children at exec."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    config.addinivalue_line(
        "markers", f"{in_process.MARK}: the commands' work in the test's process (tests/in_process.py)"
    )
    if not hasattr(config, "workerinput"):  # once, in the controller, before xdist starts its workers
        compile_the_package()
        keep_matplotlibs_font_cache()
        keep_idle_threads_from_spinning()
        seed_the_workers_hashes(config)
    elif os.environ.pop(SEEDED_WORKERS, None):  # a worker: its own hashes seeded, what it starts as before
        os.environ.pop("PYTHONHASHSEED", None)


#: Set beside the workers' ``PYTHONHASHSEED`` where :func:`seed_the_workers_hashes` set it (the workers then unset both)
SEEDED_WORKERS = "PDP_AUDIT_TESTS_SEEDED_WORKERS"


def seed_the_workers_hashes(config):
    """Start xdist's workers with the hash seed a ``program`` command's audit starts with (0, where the caller set
    none: :func:`pdp_audit.audits.program.fresh_process.audit_environment`), so that a marked test's program commands
    run in the worker itself (tests/in_process.py: ``started_with``) instead of a child that imports 1.6 CPU s before
    its audit starts.  Each worker unsets it again at its start: the commands, pytester sessions and programs a test
    starts get a random seed as before (a test that two processes give the same bytes still sees two seeds).  A seed
    set by the caller is kept, and reaches everything as before."""
    if getattr(config.option, "numprocesses", None) and "PYTHONHASHSEED" not in os.environ:
        os.environ["PYTHONHASHSEED"] = "0"
        os.environ[SEEDED_WORKERS] = "1"


def keep_idle_threads_from_spinning():
    """Let the idle threads of OpenBLAS and of OpenMP (scikit-learn's) sleep at once rather than spin
    (``OPENBLAS_THREAD_TIMEOUT=4``: 2^4 cycles, its least, against 2^28 by default; ``OMP_WAIT_POLICY=passive``) in
    every process the suite starts after this: xdist's workers, the commands and pytester sessions the tests start.
    The thread counts are unchanged (one a core: the numbers, the chunk threads of
    :mod:`pdp_audit.verify.inputs.blas_threads` and what the tests of threads see); only their waiting is.  Between two
    calls each thread spun on the cores the other workers need: under ``-n 2`` on 2 shared cores (load 6-8),
    tests/test_contract.py took 28.4 CPU s spinning BLAS threads against 19.6, test_blackbox_event_witness.py and
    test_consistency_events.py 31.5 spinning OpenMP threads against 27.6.  A value set by the caller is kept."""
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")


def keep_matplotlibs_font_cache():
    """Point every process the suite starts at the font cache matplotlib keeps for this user.  pytester gives each
    subprocess (``runpytest_subprocess``, its xdist workers, the commands they start) a fresh, empty HOME, where
    matplotlib finds no cache and scans the system's fonts again before its first text (0.2 CPU seconds a process
    on a machine with few fonts).  A MPLCONFIGDIR set by the caller is kept."""
    if "MPLCONFIGDIR" not in os.environ:
        import matplotlib

        os.environ["MPLCONFIGDIR"] = matplotlib.get_cachedir()


#: pdp_audit's folders (package-dir maps the checkout's top-level folders into the namespace)
PACKAGES = ("pdp_audit", "pdp_audit.mechanisms", "pdp_audit.verify", "pdp_audit.audits", "pdp_audit.reports")


def compile_the_package():
    """Byte-compile the package's modules before any test starts a process.  Under PYTHONDONTWRITEBYTECODE (set in
    this project's CI environment) nothing writes the bytecode of an editable install's modules, so every command,
    pytester subprocess, sweep or xdist worker a test started compiled each module it imported again (0.10-0.15 CPU
    seconds of the 1.7 of `pdp-audit run gaussian --trials 2000 --report none`).  Python reads the bytecode written
    here even where it may not write it, and compiling an unchanged tree again only compares timestamps."""
    import compileall
    import importlib.util

    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        for folder in (spec.submodule_search_locations or ()) if spec else ():
            compileall.compile_dir(folder, quiet=1)


def pytest_addoption(parser):
    parser.addoption(
        "--tier",
        choices=tiers.CHOICES,
        default="1",
        help="the suite's tier to run (tests/tiers.py): 1, the fast tier (default); 2, the long statistical series "
        "and end-to-end runs (marked tier2); all, both",
    )
    parser.addoption("--run-slow", action="store_true", default=False, help="also run long statistical audits")
    parser.addoption(
        "--slow-shard",
        default=None,
        metavar="I/N",
        help="with --run-slow: only the slow tests in shard I of N (by a hash of the test id; CI rotates I)",
    )


def _shard(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise pytest.UsageError(f"--slow-shard must be I/N with 0 <= I < N, got {text!r}") from None
    if not 0 <= index < count:
        raise pytest.UsageError(f"--slow-shard must be I/N with 0 <= I < N, got {text!r}")
    return index, count


@pytest.hookimpl(wrapper=True)
def pytest_collection(session):
    """Let pytest keep its rewritten test modules while it collects them.  Under PYTHONDONTWRITEBYTECODE (set in this
    project's CI environment) pytest rewrites the asserts of every test module again in each xdist worker and never
    writes the result: about half of a worker's 9 s of collection.  Only the collection's imports may write (into
    ``tests/__pycache__``, as :func:`compile_the_package` compiles the package): a test that imports a user's module
    from its own folder still writes nothing there."""
    saved = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        return (yield)
    finally:
        sys.dont_write_bytecode = saved


#: Seconds a slow test (a long statistical audit, ``--run-slow``) may run before pytest-timeout ends it; the default
#: tests' limit is ``timeout`` in pyproject.toml.
SLOW_TIMEOUT = 7200


@pytest.hookimpl(tryfirst=True)  # the tiers counted before -k or -m deselects any test
def pytest_collection_modifyitems(config, items):
    tiers.select(config, items)
    shard = _shard(config.getoption("--slow-shard"))
    if config.getoption("--run-slow") or os.environ.get("PDP_AUDIT_SLOW"):
        if config.pluginmanager.hasplugin("timeout"):  # the long audits get their own limit, never none
            for item in items:
                if "slow" in item.keywords and item.get_closest_marker("timeout") is None:
                    item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT))
        if shard is not None:  # the slow tests of other shards are deselected
            index, count = shard
            kept = [i for i in items if "slow" not in i.keywords or zlib.crc32(i.nodeid.encode()) % count == index]
            config.hook.pytest_deselected(items=[i for i in items if i not in kept])
            items[:] = kept
        return
    skip = pytest.mark.skip(reason="long audit: opt in with --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def pytest_report_header(config):
    tier = config.getoption("--tier")
    other = "--tier 2 runs the long series, --tier all both" if tier == "1" else "the default runs tier 1"
    return f"tier {tier} of the suite (tests/tiers.py; {other}); --run-slow adds the slow audits"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Under ``-n``, a test module that defines a module-scoped fixture runs on one worker; other tests are spread
    one by one, the modules first, the most tests first (xdist's LoadScopeScheduling with our scopes).

    Plain ``--dist load`` (what ``-n`` picks) sends neighbouring tests to different workers, so each worker built the
    module's costly fixtures again: the same seeded session records, small runs and stores twice (e.g. 14.2 and
    11.9 s for test_session_report's records).  xdist's ``--dist loadgroup`` cannot say this with pytest 9.2 (the
    node id it renames to add the group is no longer the one pytest reports).  Another ``--dist`` is left to xdist.
    """
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ModuleFixtureScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            path = nodeid.split("::", 1)[0]
            return path if _defines_a_module_fixture(config.rootpath / path) else nodeid

    return ModuleFixtureScheduling(config, log)


@functools.lru_cache(maxsize=None)
def _defines_a_module_fixture(path):
    """Whether the test file declares a fixture with ``scope="module"`` (read from its syntax tree: the controller
    collects nothing)."""
    import ast

    try:
        tree = ast.parse(path.read_text())
    except (OSError, SyntaxError, ValueError):
        return False
    decorators = (d for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) for d in node.decorator_list)
    return any(_module_scope(d) for d in decorators)


def _module_scope(decorator):
    keywords = decorator.keywords if hasattr(decorator, "keywords") else ()
    return any(k.arg == "scope" and getattr(k.value, "value", None) == "module" for k in keywords)


@pytest.fixture(autouse=True)
def _run_json_follows_the_published_schema(monkeypatch):
    """Every run or certificate JSON a test builds in-process is validated against ``pdp-audit schema``.

    A violation fails the test at teardown (raising inside the code under test could be caught by the CLI and
    read as an internal error instead).
    """
    from pdp_audit.reports import json_report

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

    from pdp_audit.reports.json_report import run_schema

    schema = run_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


#: What an audit of a user's code imports (certify or blackbox of ``module:factory``, run in this process by the tests
#: that remove the sandbox, and by the Python API): the audits, the black-box attack's scikit-learn, pandas.
USER_PROCESS_IMPORTS = (
    "pandas",
    "pdp_audit.cli.certify",
    "pdp_audit.certify_files",
    "pdp_audit.cli.blackbox",
    "pdp_audit.deployment",
    "pdp_audit.catalogue.kinds",
    "pdp_audit.audits.blackbox.attack",
    "pdp_audit.audits.blackbox.anytime",
    "pdp_audit.audits.blackbox.stages",
    "pdp_audit.verify.estimators.confidence_sequences",
)


@pytest.fixture(scope="session", autouse=True)
def _audit_modules_imported():
    """The modules of :data:`USER_PROCESS_IMPORTS`, imported once in each process that runs tests (never in xdist's
    controller), before :func:`_long_lived_objects_frozen` moves them out of the collector's sight."""
    import importlib

    for name in USER_PROCESS_IMPORTS:
        importlib.import_module(name)


@pytest.fixture(scope="session", autouse=True)
def _long_lived_objects_frozen(_audit_modules_imported):
    """The objects of the libraries imported above (and pytest's) moved out of the cyclic garbage collector's sight
    (``gc.freeze``): they live as long as the process, yet each full collection walked all of them again -- 0.18 s a
    collection in a worker (tests/test_certify_own.py and test_mutants.py: 5 full collections, 0.92 s, against 4 and
    0.46 s frozen; all collections 1.25 s against 0.66 s).  Objects the tests make are collected as before."""
    import gc

    gc.freeze()


#: Libraries the product imports only when it needs them (a data file, a PDF, a learner): imported before a test
#: runs a pytest session in this process (pytester's ``runpytest_inprocess``)
LAZY_LIBRARIES = ("pandas", "matplotlib.pyplot", "matplotlib.backends.backend_pdf", "fontTools.subset")


@pytest.fixture(autouse=True)
def _libraries_before_inprocess_sessions(request):
    """pytester gives sys.modules back after a session it runs in this process, so a library first imported inside
    one is imported a second time by a later test of the same worker, beside the C extensions its first import
    loaded and cached: pandas' read_csv then fails ("the dtype str is not supported for parsing"), matplotlib's clip
    paths and fontTools' subsetting too -- in whichever test xdist happens to schedule after it.  A test that uses
    pytester imports them first, so that the session finds them in sys.modules and they stay."""
    if "pytester" in request.fixturenames:
        import importlib

        for name in LAZY_LIBRARIES:
            importlib.import_module(name)
    yield


@pytest.fixture
def commands_in_process(monkeypatch):
    """The commands' work in this process for the test (tests/in_process.py)."""
    forget = in_process.commands_here(monkeypatch)
    yield
    forget()


@pytest.fixture(autouse=True)
def _commands_in_process_where_marked(request):
    """:func:`commands_in_process` for a test marked ``commands_in_process`` (a module's ``pytestmark``), unless its
    own mark says ``commands_in_process(False)``: a test of what crosses the boundary."""
    mark = request.node.get_closest_marker(in_process.MARK)
    if mark is not None and (not mark.args or mark.args[0]):
        request.getfixturevalue("commands_in_process")


@pytest.fixture
def drawn_pages(monkeypatch):
    """The text objects of every page a report saves, page by page (as ``.ci/wheel-smoke`` reads page 1): a
    report's words as it drew them."""
    from matplotlib.backends.backend_pdf import PdfPages

    pages: list[list[str]] = []
    save = PdfPages.savefig

    def keep(self, figure=None, **kw):
        pages.append([t.get_text() for t in figure.texts])
        return save(self, figure, **kw)

    monkeypatch.setattr(PdfPages, "savefig", keep)
    return pages
