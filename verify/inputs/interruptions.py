"""The ways a command is ended from outside while it runs: Ctrl-C (Python's KeyboardInterrupt) and SIGTERM or SIGHUP
(:class:`Terminated`, raised by the command's handler, ``pdp_audit.verify.core.processes.terminations_raise``).

Every guard of the user's code -- where what the user's import, factory, sampler or method raises becomes the user's
fault (``MalformedPair``, an ``InputError``) -- re-raises these as they came: an interruption is never a verdict about
the user's code, and it must unwind every ``finally`` so that nothing is left behind.  They live here, in the lowest
layer and importing nothing, so that a guard at any level can name them.
"""

from __future__ import annotations


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived (``signum``).  Raised in the main thread like KeyboardInterrupt, so that every
    ``finally`` and context manager runs -- the private copy of the user's data and the temporaries of half-written
    reports are removed -- before the process ends by that signal (``pdp_audit.verify.core.processes.end_by``).  The
    default disposition of these signals ends the process at once and left ``pdp-audit-data-*`` copies of private data
    in the temporary folder."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


#: What a guard of the user's code lets through, for ``except`` and ``isinstance``: a SIGTERM read as the sampler's
#: fault once kept the audit's process running until it was killed, its cleanup skipped.  SystemExit is not here:
#: our code never exits inside a guard, so a ``sys.exit`` there is the user's.
INTERRUPTIONS = (KeyboardInterrupt, Terminated)
