"""The ``pdp-audit`` command line.

Exit codes (from the guarantees only; paper findings never change them): 0 every guarantee passes,
1 a guarantee fails, 3 no fail but a guarantee is inconclusive,
2 bad usage or input (one line on stderr naming the option and its valid range: an
:class:`~pdp_audit.verify.inputs.validation.InputError`), 4 an internal error (a bug of ours: the traceback is
printed, and no verdict is claimed), 130 interrupted (Ctrl-C).  SIGTERM and SIGHUP end the command by that signal
(a shell reports 143 or 129) after the same cleanup as Ctrl-C: no temporary file of ours is left behind.
"""

from __future__ import annotations

import argparse
import errno
import functools
import importlib.util
import os
import signal
import sys
import time
import traceback

from pdp_audit.cli.commands import COMMAND_HELP
from pdp_audit.verify.core.parser import Parser

# Only what `pdp-audit --help` and `--version` need is imported here (no numpy, no audit): the rest where it is used.
from pdp_audit.verify.inputs.validation import InputError, one_line, quoted, shown

#: The arguments that need nothing but the command's names and help: no audit is imported for them.
LIGHT_ARGUMENTS = frozenset({"-h", "--help", "--version"})

EXIT_USAGE = 2
EXIT_INTERNAL_ERROR = 4
EXIT_INTERRUPTED = 130


#: What ``pdp-audit list --help`` says the command does.
LIST_DESCRIPTION = (
    "List the audits `pdp-audit run NAME` offers, the mechanisms of the contract suite, and the library adapters "
    "with whether each library is installed."
)
#: What every run writes and how it exits, in ``run --help`` and ``run NAME --help``.
RUN_OUTPUTS = (
    "Writes the PDF report (--report, default pdp-audit-{name}.pdf; none to skip) and the JSON (--json); exit 0 "
    "every guarantee passes, 1 one fails, 3 one is inconclusive, 2 bad usage or input."
)
RUN_DESCRIPTION = (
    "Audit one mechanism of the catalogue (NAME: `pdp-audit list`); `pdp-audit run NAME --help` lists its options. "
    + RUN_OUTPUTS.format(name="NAME")
)


def build_parser(light: bool = False, only: str | None = None) -> Parser:
    """``list`` and ``run`` are built in; the other subcommands are the modules of :func:`command_module`.

    A command module exposes ``add_parser(subparsers)``, which adds its subparser and sets
    ``handler`` (a function of the parsed arguments returning the exit code) as a default.  ``light``: the
    subcommands by name and help only (:data:`~pdp_audit.cli.commands.COMMAND_HELP`), enough for
    ``--help`` and ``--version``, with no audit imported.  ``only``: that subcommand built in full and the others
    by name and help, which parses a command line naming it as the full parser does (argparse reads the
    subparser of the name given, no other), without importing the other commands' modules: ``pdp-audit certify
    --help`` imports no audit's plan; with ``only="run"`` each audit's options are added when its parser is used
    (:meth:`~pdp_audit.verify.core.parser.Parser.defer`), so ``run --help`` and ``run NAME`` build none but NAME's.
    """
    parser = Parser(prog="pdp-audit", description="Certify (per-instance) differential-privacy claims by simulation.")
    parser.add_argument("--version", action=VersionAction, help="the version and the commit it was built from")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    if light:
        for name, text in COMMAND_HELP.items():
            sub.add_parser(name, help=text)
        return parser
    full = set(COMMAND_HELP) if only is None else {only}
    for name in COMMAND_HELP:  # in the order --help lists them
        if name not in full:
            sub.add_parser(name, help=COMMAND_HELP[name])
        elif name == "list":
            listing = sub.add_parser("list", help=COMMAND_HELP["list"], description=LIST_DESCRIPTION)
            listing.set_defaults(handler=lambda args: command_list())
        elif name == "run":
            add_run_parser(sub, deferred=only == "run")
        else:
            command_module(name).add_parser(sub)
    return parser


def add_run_parser(sub, deferred: bool = False) -> None:
    """``pdp-audit run NAME``: one subparser an audit of the catalogue, its options generated from its config (when
    the subparser is first used if ``deferred``: argparse uses NAME's alone)."""
    # deferred: loads numpy; --help must not
    from pdp_audit.catalogue.arguments import add_run_arguments
    from pdp_audit.use_cases import audit_plans

    run = sub.add_parser("run", help=COMMAND_HELP["run"], description=RUN_DESCRIPTION)
    run.set_defaults(handler=command_run)
    mechanisms = run.add_subparsers(dest="mechanism", required=True, parser_class=Parser)
    for name, audit in audit_plans().items():
        description = f"{audit.help}. {RUN_OUTPUTS.format(name=name)}"
        parser = mechanisms.add_parser(name, help=audit.help, description=description)
        if deferred:
            parser.defer(functools.partial(add_run_arguments, parser, audit))
        else:
            add_run_arguments(parser, audit)


def command_module(name: str):
    """The module of a subcommand besides ``list`` and ``run`` (``src/pdp_audit/cli/NAME.py``), imported when that
    command runs or shows its help, not for another's."""
    return importlib.import_module(f"pdp_audit.cli.{name}")


class VersionAction(argparse.Action):
    """``--version``: print :func:`version_text` on standard output and end with exit 0, as argparse's own version
    action does; the text (the package's metadata and the commit) is read when it is asked for, not while every
    command's parser is built (importlib.metadata: a tenth of a second of each).  A public ``argparse.Action``, not
    a subclass of argparse's private ``_VersionAction``."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write(version_text() + "\n")
        sys.stdout.flush()
        parser.exit()


def version_text() -> str:
    """``pdp-audit 0.1.0 (git 1a2b3c4d5e6f)``: the version and the commit, as every report and certificate says them
    (``+dirty`` after a commit whose tree had changes; ``commit unknown`` for a build without git)."""
    # deferred: loads importlib.metadata; --help must not
    from pdp_audit.reports.code_commit import code_version

    return f"pdp-audit {code_version()}"


def command_list() -> int:
    """``pdp-audit list``: the audits ``run`` offers and the mechanisms of the contract suite."""
    # deferred: loads numpy; --help must not
    from pdp_audit.api import list_audits
    from pdp_audit.mechanisms.catalogue import registered

    # deferred: loads tempfile; --help must not
    from pdp_audit.reports.files import print_out

    print_out("Audits (pdp-audit run NAME):")
    for name, text in list_audits().items():
        print_out(f"  {name:24s} {text}")
    print_out("\nRegistered mechanisms (common contract suite):")
    for name, mech in registered().items():
        print_out(f"  {name:24s} {mech.description}")
    print_out("\nLibrary adapters (pdp_audit.mechanisms.adapters; pip install opendp diffprivlib 'scikit-learn<1.8'):")
    for name, (library, text) in ADAPTERS.items():
        installed = "installed" if importlib.util.find_spec(library) is not None else "not installed"
        print_out(f"  {name:32s} {text} ({library}: {installed})")
    print_out("  (a factory NAME:F is audited as pdp-audit blackbox pdp_audit.mechanisms.adapters.NAME:F)")
    return 0


#: The library adapters ``list`` names: class -> (the library it needs, one line on what it wraps).
ADAPTERS = {
    "opendp.MeasurementPair": ("opendp", "an OpenDP Measurement (Laplace, Gaussian) on two inputs, white-box"),
    "diffprivlib.MechanismPair": (
        "diffprivlib",
        "a diffprivlib mechanism (Laplace, bounded Laplace, Geometric, Gaussian, Exponential, Binary), white-box",
    ),
    "diffprivlib.ToolPair": ("diffprivlib", "a diffprivlib tool (tools.mean, …) on two datasets, black-box"),
    "diffprivlib_tools:histogram": ("diffprivlib", "tools.histogram, a dataset and one record more (blackbox)"),
    "diffprivlib_tools:count_nonzero": ("diffprivlib", "tools.count_nonzero, likewise (blackbox)"),
}


def print_summary(run, elapsed: float) -> None:
    """The run's summary (:func:`pdp_audit.reports.run_text.summary_lines`) on stdout."""
    # deferred: loads tempfile; --help must not
    from pdp_audit.reports.files import print_out
    from pdp_audit.reports.run_text import summary_lines

    print_out("\n".join(summary_lines(run, elapsed)))


def command_run(args: argparse.Namespace) -> int:
    """``pdp-audit run NAME``: :func:`pdp_audit.use_cases.run_files` -- the audit's config built and the outputs
    checked before it runs, its reports written after -- and its summary printed; the exit code."""
    # deferred: loads pdp_audit.cli.warnings; --help must not
    from pdp_audit.cli.warnings import print_warnings
    from pdp_audit.reports.files import print_out

    # deferred: loads numpy; --help must not
    from pdp_audit.use_cases import run_files

    start = time.perf_counter()
    run, report = run_files(args)
    if not args.quiet and args.json != "-":
        print_summary(run, time.perf_counter() - start)
        if report is not None:
            print_out(f"  report: {shown(report)}")
    if not args.quiet:
        print_warnings(run)
    return run.exit_code


def main(argv: list[str] | None = None) -> int:
    """The ``pdp-audit`` entry point; returns the exit code (see the module docstring).  On SIGTERM or SIGHUP it
    does not return: :class:`~pdp_audit.verify.core.processes.Terminated` unwinds every ``finally`` (temporaries
    removed)
    and the process then ends by that signal."""
    if argv is None:  # the process's own streams (never a caller's): whatever their encoding, every line prints,
        _escape_what_streams_cannot_encode()  # and a reader that leaves ends no command early
        # deferred: loads tempfile; --help must not
        from pdp_audit.reports.files import streams_whose_readers_may_leave

        streams_whose_readers_may_leave()
    if _light(argv):  # --help, --version or nothing: no worker, no file, nothing for a signal to clean up
        return _command(argv)
    # deferred: loads numpy; --help must not
    from pdp_audit.verify.core.processes import Terminated, end_by, terminations_raise

    with terminations_raise():
        try:
            code = _command(argv)
        except Terminated as ended:
            name = signal.Signals(ended.signum).name
            try:
                print(f"pdp-audit: {name} received; temporary files removed, no partial report left", file=sys.stderr)
            except OSError:  # no one reads stderr any more (a closed terminal): end all the same
                pass
            end_by(ended.signum)
    if argv is None:  # the process's own entry point (the console script, ``python -m``), not a caller's function
        _stdout_flushed()
    return code


def _stdout_flushed() -> None:
    """What the command printed, still in standard output's buffer, written out before the exit: a reader that left
    (``pdp-audit blackbox ... | true``) is no error, and the exit code stays the verdict's (a refuted claim exits 1
    whether or not its lines were read), where Python's flush at exit would fail and exit 120."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        # deferred: loads tempfile; --help must not
        from pdp_audit.reports.files import reader_left

        reader_left()
    except (AttributeError, ValueError, OSError):  # no standard output (started with it closed), or it was closed:
        pass  # the exit reports it as before


def _escape_what_streams_cannot_encode() -> None:
    """Standard output and error write a character their encoding lacks as an escape (``ε`` as ``\\u03b5``; in
    JSON the same string): under ``PYTHONIOENCODING=ascii`` or a C locale without UTF-8 mode, printing a verdict
    line with its ε raised UnicodeEncodeError, exit 4, after the audit was done."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)  # io's text streams have it (not None, not a replacement)
        try:
            if reconfigure is not None:
                reconfigure(errors="backslashreplace")
        except (ValueError, OSError):  # closed
            pass


def _light(argv: list[str] | None) -> bool:
    """Whether the arguments need only the commands' names and help (:data:`LIGHT_ARGUMENTS`, or none at all)."""
    return set(sys.argv[1:] if argv is None else argv) <= LIGHT_ARGUMENTS


def _named_command(argv: list[str] | None) -> str | None:
    """The subcommand the command line names first (``certify`` of ``pdp-audit certify d.toml``), or None when its
    first word is none (an option or a misspelling: the full parser then says so in argparse's words)."""
    words = sys.argv[1:] if argv is None else argv
    return words[0] if words and words[0] in COMMAND_HELP else None


def _printed_flushed() -> None:
    """What the command printed (argparse's help or version text, a verdict's lines), still in Python's buffer,
    written out now: a full disk behind the redirection is then an :class:`~pdp_audit.reports.files.OutputError`
    naming standard output (one line, exit 2, as any command's output), where the flush at the process's end failed
    with a traceback-like "Exception ignored" and exit 120, or silently with exit 0 and nothing written.  A reader
    that left stays a BrokenPipeError (exit 0); no standard output at all (argparse then printed to standard error)
    has nothing to flush."""
    try:
        sys.stdout.flush()
    except OSError as err:
        _raise_as_standard_output(err)
    except (AttributeError, ValueError):  # sys.stdout None (started with it closed) or closed
        pass


def _raise_as_standard_output(err: OSError) -> None:
    """``err``, a write to standard output that failed, as the :class:`~pdp_audit.reports.files.OutputError` naming
    it (a BrokenPipeError as it is: the reader left).  What the buffer still holds is sent nowhere: Python's flush
    at exit would fail again, and exit 120 after the one line."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (AttributeError, ValueError, OSError):  # no descriptor (a harness's stream): nothing flushes at exit
        pass
    if isinstance(err, BrokenPipeError):
        raise err
    # deferred: loads tempfile; --help must not
    from pdp_audit.reports.files import STDOUT, OutputError

    raise OutputError(err.errno, err.strerror or str(err), STDOUT) from err


def _command(argv: list[str] | None) -> int:
    try:
        if not _light(argv):  # an output over a file the command read (the user's code too) is refused
            # deferred: loads numpy; --help must not
            from pdp_audit.use_cases import record_inputs

            record_inputs()
        try:
            args = build_parser(light=_light(argv), only=_named_command(argv)).parse_args(argv)
        except SystemExit as done:  # argparse's --help and --version, printed
            if argv is None and (done.code is None or type(done.code) is int):  # the process's own command line:
                _printed_flushed()
                return done.code or 0
            raise
        except OSError as err:  # a help or version text standard output refused (Parser.print_help, VersionAction)
            _raise_as_standard_output(err)
        # deferred: loads numpy; --help must not
        from pdp_audit.verify.core.float_rules import own_float_rules

        with own_float_rules():  # whatever np.seterr or warning filter the user's module sets
            code = args.handler(args)
        _printed_flushed()  # before the exit code is returned: a failed write is this command's error
        return code
    except InputError as err:  # bad usage or input: one line naming the option or file
        message = one_line(str(err))  # whatever a file, a key or an argument held: one line
        print(message if message.startswith("pdp-audit") else f"pdp-audit: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # a write past print_out and write_stdout (a progress line): the reader left; its stream
        # deferred: loads tempfile; --help must not
        from pdp_audit.reports.files import reader_left  # goes to the null device (stdout's if unknown)

        reader_left()
        return 0
    except OSError as err:  # after BrokenPipeError, which is one: the system's condition, named by its path
        line = os_error_line(err, argv)
        if line is None:
            return _internal_error()
        print(line, file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as err:
        # deferred: loads numpy; --help must not
        from pdp_audit.verify.core.processes import raised_without_signal

        if raised_without_signal(err):  # raised by the code under audit (it ran in this process): its fault
            print(
                "pdp-audit: error: the code under audit raised KeyboardInterrupt, but no interrupt (SIGINT) reached "
                "pdp-audit; this is a fault in that code",
                file=sys.stderr,
            )
            return EXIT_USAGE
        print(
            "pdp-audit: interrupted; reports are written only when complete, so no partial file was left",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    except Exception:  # a bug of ours, never a verdict (1) nor bad usage (2)
        return _internal_error()
    except SystemExit:  # argparse's --help and --version
        raise
    except BaseException as err:  # neither Exception nor an exit: escaped from where no user code runs, so ours
        # deferred: loads numpy; --help must not
        from pdp_audit.verify.core.processes import Terminated

        if isinstance(err, Terminated):  # SIGTERM/SIGHUP: main ends the process by that signal
            raise
        return _internal_error()  # Python's own handler would exit 1, which reads as "a guarantee fails"


#: Conditions of the system rather than of our code, reported in one line even when the error names no file.
SYSTEM_CONDITIONS = frozenset(
    getattr(errno, name)
    for name in "ENOSPC EDQUOT EROFS EIO EFBIG ENOMEM EMFILE ENFILE ELOOP ENAMETOOLONG EAGAIN".split()
    if hasattr(errno, name)
)


def os_error_line(err: OSError, argv: list[str] | None) -> str | None:
    """The one line an operating-system error is reported in (a full disk, a read-only file system, a symbolic link
    loop, a name too long, a permission): the option and the path it concerns and the system's words; None for an
    OSError that names no path and is no condition of the system (a bug of ours: exit 4)."""
    # deferred: loads tempfile; --help must not
    from pdp_audit.reports.files import STDOUT, OutputError

    if err.filename is None and err.errno == errno.EBADF and _stdout_closed():  # the user's code closed it
        return "pdp-audit: error: cannot write standard output: it was closed while the command ran"
    if err.filename is None and err.errno not in SYSTEM_CONDITIONS:
        return None
    reason = err.strerror or type(err).__name__
    if err.errno == errno.ENAMETOOLONG:
        reason = "file name too long"
    if err.filename is None:
        return one_line(f"pdp-audit: error: {reason}")
    where = _option_of(err.filename, argv)
    if isinstance(err, OutputError):
        path = STDOUT if err.filename == STDOUT else quoted(err.filename)
        kept = "" if err.filename == STDOUT else "; the file that was there is unchanged"
        return one_line(f"pdp-audit: error: {where}cannot write {path}: {reason}{kept}")
    other = f" (and {quoted(err.filename2)})" if err.filename2 else ""
    return one_line(f"pdp-audit: error: {where}{quoted(err.filename)}{other}: {reason}")


def _stdout_closed() -> bool:
    """Whether standard output has no open file behind it any more (``os.close(1)`` in the user's module)."""
    try:
        os.fstat(sys.stdout.fileno())
    except (AttributeError, ValueError, OSError):
        return True
    return False


def _internal_error() -> int:
    traceback.print_exc()
    print(
        f"pdp-audit: internal error (exit {EXIT_INTERNAL_ERROR}); please report it with the traceback above",
        file=sys.stderr,
    )
    return EXIT_INTERNAL_ERROR


def _option_of(filename, argv: list[str] | None) -> str:
    """``"--data: "`` when ``filename`` is (or ends with the name of) the value given after ``--data`` (else the
    argument's place)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    name = os.path.basename(str(filename or ""))
    exact = [i for i, token in enumerate(argv) if token == str(filename)]
    near = [i for i, token in enumerate(argv) if name and token.endswith(name)]
    for i in exact + near:
        option = argv[i - 1] if i > 0 else ""
        return f"{option}: " if option.startswith("-") and option != "-" else f"argument {argv[i][:20]!r}…: "
    return ""


if __name__ == "__main__":
    sys.exit(main())
