"""Progress of the long passes and commands (blocks of draws, the black box's releases, a sweep's cells, the mutant
zoo, the claims ledger): one tqdm bar on standard error, with its total, rate and estimated time left.

Where a bar goes is decided here once.  A command asks for progress (``progress=True``; ``--quiet`` asks for
none), and an audit asked for it says so for every pass it runs (:func:`asking`: a pass given no ``progress`` of its
own follows the audit's).  A bar is drawn only where standard error is a terminal.  On a file or a
pipe (a CI log, ``2>log``, ``| tee``) the same progress is plain lines instead (:func:`line_progress`): the first
after :data:`LINE_INTERVAL` seconds, then at most one every :data:`LINE_INTERVAL` seconds, each a whole line with
the count, the total, the time so far and the time left, and only the outermost bar's (a pass inside an audit or a
sweep's cell adds none): a Dask sweep in a pipe printed nothing for 88 s.  Standard output, the JSON and the
reports never see either.  The environment variable ``PDP_AUDIT_PROGRESS`` overrides: ``1`` draws the bars
wherever progress is asked for, ``0`` shows nothing.  A bar appears only after :data:`DELAY` seconds, so a
short pass shows nothing, and tqdm redraws it at most every :data:`MININTERVAL` seconds, so an update between two
redraws costs a comparison.

A built-in audit also shows one bar for the whole audit (:func:`audit_bar`, opened by
:meth:`pdp_audit.verify.core.plan.AuditPlan.run`): its unit is a draw, every pass's blocks advance it as they come
(:func:`with_progress` given the blocks' sizes), and its total is what the audit plans before its first draw
(:func:`planned`: the draws of every pass it will run, so a pass weighs what it draws), whence the rate and the
time left of the whole command.  An audit whose draws differ in cost weighs a costly pass's draws
(:func:`weighted`) and plans the same weights.  An audit that plans nothing shows the count and the rate.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from contextvars import ContextVar
from typing import Any, ContextManager, Iterable, Iterator, Sequence

#: The environment variable that forces the bars on (``1``) or off (``0``) where a command asks for progress.
ENV = "PDP_AUDIT_PROGRESS"
#: Seconds a bar waits before it appears (a pass that ends sooner never shows one).
DELAY = 1.0
#: Seconds between two redraws of a bar, at most one in between (tqdm's rate limit).
MININTERVAL = 0.2
#: Seconds before the first plain progress line where standard error is no terminal, and between two lines.
LINE_INTERVAL = 10.0
_ON, _OFF = ("1", "yes", "true", "on"), ("0", "no", "false", "off")
_ASKED: ContextVar[bool] = ContextVar("pdp_audit_progress", default=False)
_LABEL: ContextVar[str] = ContextVar("pdp_audit_progress_label", default="")
#: The bar of the whole audit running in this context (None: none shown).
_AUDIT: ContextVar[Any] = ContextVar("pdp_audit_audit_bar", default=None)
#: What one draw of the passes running in this context weighs on the whole audit's bar (:func:`weighted`).
_WEIGHT: ContextVar[int] = ContextVar("pdp_audit_draw_weight", default=1)


@contextlib.contextmanager
def asking(progress: bool, label: str = "") -> Iterator[None]:
    """Inside the block, a pass given no ``progress`` of its own (None) shows a bar where ``progress`` is true: an
    audit says once whether its command asked for progress, not through every function between it and its passes
    (a context variable: a thread or a worker process starts without the ask).  ``label``: the audit's name, put
    before every bar's own (``gaussian: rare/D||D'``), so a pass says whose it is."""
    tokens = _ASKED.set(bool(progress)), _LABEL.set(label or _LABEL.get())
    try:
        yield
    finally:
        _LABEL.reset(tokens[1])
        _ASKED.reset(tokens[0])


def forced() -> bool | None:
    """What ``PDP_AUDIT_PROGRESS`` says: True (bars wherever progress is asked for), False (none) or None (unset or
    not a yes/no word: standard error decides)."""
    value = os.environ.get(ENV, "").strip().lower()
    return True if value in _ON else False if value in _OFF else None


def shows_progress(progress: bool | None) -> bool:
    """Whether a pass asked for ``progress`` (None: as its audit was, :func:`asking`) shows it: a bar or lines
    (:func:`draws_bars`), unless :func:`forced` says none."""
    if not (_ASKED.get() if progress is None else progress):
        return False
    return forced() is not False


def draws_bars() -> bool:
    """Whether progress is drawn as bars (a terminal's stderr, or :func:`forced` on) rather than plain lines."""
    say = forced()
    if say is not None:
        return say
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # no standard error, or a closed one
        return False


def progress_bar(
    total: int | None, desc: str, unit: str, progress: bool | None = None, *, initial: int = 0, unit_scale: bool = False
) -> ContextManager[Any]:
    """A bar of ``total`` ``unit``s named ``desc`` (a context manager giving the tqdm bar, or None where no bar is
    shown: :func:`shows_progress`); ``unit_scale``: counts as 1.3M.  With a total tqdm shows the count of it, the
    rate and the estimated time left; the bar clears itself when it closes."""
    if not shows_progress(progress):
        return contextlib.nullcontext(None)
    label = _LABEL.get()
    if not draws_bars():
        return line_progress(total, f"{label}: {desc}" if label else desc, unit, initial, unit_scale)
    from tqdm import tqdm

    return tqdm(
        total=total,
        initial=initial,
        desc=f"{label}: {desc}" if label else desc,
        unit=unit,
        unit_scale=unit_scale,
        delay=DELAY,
        mininterval=MININTERVAL,
        file=sys.stderr,
        leave=False,
        dynamic_ncols=True,
    )


#: Plain progress shown now in this process (:func:`line_progress`): one at a time, the outermost.
_LINES_SHOWN: list[Any] = []


class _Lines:
    """Standard error as whole lines for tqdm: each state it draws (``\\r`` and the text) becomes one line, and the
    blanks it clears a bar with are dropped, so a log holds plain lines."""

    def __init__(self, stream: Any, interval: float) -> None:
        self.stream, self.interval = stream, interval
        self.started, self.last = time.monotonic(), -math.inf

    def write(self, text: str) -> None:
        # tqdm's ``delay`` holds back its own refreshes only: a new description (the black box names each pass)
        # redraws at once, so the interval is kept here, where every redraw passes
        now = time.monotonic()
        if now - self.started < self.interval or now - self.last < self.interval:
            return
        parts = [part.rstrip() for part in text.replace("\n", "\r").split("\r") if part.strip()]
        if parts:
            self.stream.write(parts[-1] + "\n")
            self.last = now

    def flush(self) -> None:
        self.stream.flush()


@contextlib.contextmanager
def line_progress(total: int | None, desc: str, unit: str, initial: int = 0, unit_scale: bool = False) -> Iterator[Any]:
    """Progress as plain lines on standard error (a tqdm whose redraws are lines, :class:`_Lines`): the first after
    :data:`LINE_INTERVAL` seconds, then at most one every :data:`LINE_INTERVAL` seconds, with tqdm's count, total,
    elapsed and remaining time, and rate.  Inside another one (a pass inside an audit): none (None)."""
    if _LINES_SHOWN:
        yield None
        return
    from tqdm import tqdm

    with tqdm(
        total=total,
        initial=initial,
        desc=desc,
        unit=unit,
        unit_scale=unit_scale,
        delay=LINE_INTERVAL,
        mininterval=LINE_INTERVAL,
        maxinterval=LINE_INTERVAL,
        file=_Lines(sys.stderr, LINE_INTERVAL),
        leave=False,
        ncols=0,  # no bar graphic: the counts and the times only
    ) as bar:
        _LINES_SHOWN.append(bar)
        try:
            yield bar
        finally:
            _LINES_SHOWN.remove(bar)


def with_progress(
    items: Iterable[Any],
    total: int,
    desc: str,
    unit: str,
    progress: bool | None = None,
    units: Sequence[int] | None = None,
) -> Iterator[Any]:
    """``items`` one by one, each counted on a bar (:func:`progress_bar`) that closes when they run out.  ``units``:
    the draws of each item (a block's size), which advance the whole audit's bar (:func:`audit_bar`) as each item
    comes -- before it is handed on, so that a consumer that stops at the last item still counts it."""
    audit = _AUDIT.get() if units is not None else None
    weight = _WEIGHT.get()
    with progress_bar(total, desc, unit, progress) as bar:
        for k, item in enumerate(items):
            if audit is not None:
                audit.update(units[k] * weight)  # type: ignore[index]
            yield item
            if bar is not None:
                bar.update(1)


@contextlib.contextmanager
def audit_bar(progress: bool | None = None) -> Iterator[Any]:
    """One bar of the whole audit inside the block (the tqdm bar, or None where none is shown: :func:`shows_progress`;
    inside another audit's bar, that one: a command's audits share its bar).  Its unit is a draw; its total grows by
    what :func:`planned` is told; the passes advance it (:func:`with_progress`)."""
    outer = _AUDIT.get()
    if outer is not None:
        yield outer
        return
    with progress_bar(None, "the audit's draws", "draw", progress, unit_scale=True) as bar:
        token = _AUDIT.set(bar)
        try:
            yield bar
        finally:
            _AUDIT.reset(token)


@contextlib.contextmanager
def weighted(weight: int) -> Iterator[None]:
    """Inside the block a draw advances the whole audit's bar by ``weight`` (an integer ≥ 1): for an audit whose
    passes draw things of very different costs (a d×d matrix's eigenvalues against a scalar privacy loss), a draw of
    a pass weighs about its cost in units of the cheapest, so the bar's rate and time left follow the work, not the
    count.  The audit plans the same weights (:func:`planned`)."""
    token = _WEIGHT.set(max(1, int(weight)))
    try:
        yield
    finally:
        _WEIGHT.reset(token)


@contextlib.contextmanager
def at_most(draws: int) -> Iterator[None]:
    """Passes planned as at most ``draws`` (their count data-dependent: a profile's points decided by the pair a search
    found): inside the block they advance the whole audit's bar as they draw; on leaving it, the bar's total takes
    back what they did not draw, so the bar still ends at its total.  ``draws`` are weighed as the draws inside
    (:func:`weighted`)."""
    bar = _AUDIT.get()
    start = bar.n if bar is not None else 0
    yield
    if bar is not None:
        bar.total = (bar.total or 0) + (bar.n - start) - int(draws) * _WEIGHT.get()


def planning() -> bool:
    """Whether a whole audit's bar is shown here, so that working out the draws it plans (:func:`planned`) is worth
    its cost (none where no bar is shown)."""
    return _AUDIT.get() is not None


def planned(draws: int) -> None:
    """Add ``draws`` to the total of the whole audit's bar (nothing where none is shown): an audit says, before its
    first draw, what its passes will draw."""
    bar = _AUDIT.get()
    if bar is None:
        return
    if bar.n == 0:  # the first draw is still to come: the rate (and the time left) counts from now (tqdm's clock is
        bar.start_t = bar.last_print_t = time.time()  # time.time), not from the audit's setup (its data, its pairs)
    bar.total = (bar.total or 0) + int(draws)  # shown at the next update (a refresh would skip DELAY)


def say(line: str, file: Any = None) -> None:
    """Print ``line`` (to standard error by default) above any bar shown: tqdm clears the bars, writes the line and
    its newline, and redraws them, so a command's own lines and its bars do not overwrite each other on a terminal;
    the bytes written are those of ``print(line, file=file)``."""
    from tqdm import tqdm

    out = sys.stderr if file is None else file
    tqdm.write(line, file=out)
    out.flush()


def stage(line: str, since: float) -> None:
    """``line`` on standard error (:func:`say`): the start of a stage that draws no bar of its own, so a command is not
    silent for its first seconds or minutes (``pdp-audit program``'s record, replay and exact composition before its
    black box).  As the bars are: only where progress is asked for (:func:`shows_progress`; ``--quiet`` asks for
    none), at once where bars are drawn (:func:`draws_bars`), and on a file or a pipe only once
    :data:`LINE_INTERVAL` seconds have passed ``since`` (``time.monotonic()`` at the command's start) -- so a command
    that ends sooner, with one line saying why it stopped (a fault in the user's program), still ends with that one
    line only.  A standard error that cannot be written to is not the audit's failure."""
    if not shows_progress(None):
        return
    if not draws_bars() and time.monotonic() - since < LINE_INTERVAL:
        return
    try:
        say(line)
    except (OSError, ValueError, AttributeError):  # closed or missing standard error: the lines are a courtesy
        pass
