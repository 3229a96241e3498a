"""Whether the program's replay on D reproduces its record: the check every reading of the record rests on.

The record is one run of ``program(D, rng)``.  Every reading after it -- the probe, each neighbour's replay, the exact
shifts, the landings -- runs the program again with the recorded draws and reads what changed as the data's doing or
the noise's.  That holds only where a run is a function of the data and the recorded draws.  A replay on D that gives
another release, or takes another path -- calls another primitive, makes more or fewer calls (a
:class:`~.recorder.Divergence`) -- shows that the program is not such a function: it draws randomness the recorder does
not see, or it keeps a state between calls (a counter, a cache, a generator kept from an earlier call).  Either way no
reading of the replays is trusted and the claim stays undecided (:mod:`.decision`).  The difference is no finding
against the claim either: a state that changes the release from call to call is not in itself a privacy loss (the
k-th call releasing ``10·k + x + Lap(1)`` is DP at every k, and its replays on D and D′ made at other k differ by
10 per call between them), and randomness the audit does not see is noise it cannot read.

D is replayed right after the record (:func:`~.probing.probe`) and once more after every neighbour was replayed and
read (:func:`~.analysis.analyse`), each draw set's record: a state that moves while the audit runs (a counter past
which the program takes another path, a cache filled on the first call) is seen by the second replay where the first
cannot see it.  Sound for a state that stays moved; a state that moves and moves back between the two replays (a
branch taken on the k-th call only) is seen by neither, and shows as the findings of the replays it touched
(a divergence, noise not read as affine), which keep the claim undecided without naming the state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from pdp_audit.audits.program.recorder import Divergence
from pdp_audit.audits.program.sources import replayable
from pdp_audit.verify.inputs import release_codec


@dataclass(frozen=True)
class Reproduction:
    """Whether a replay on D gave the recorded release (``same``), and where not, how it departed, in words (``how``;
    "" where the record's own notes say why: a source it could not replay)."""

    same: bool
    how: str = ""


def reproduced(replayed: Callable[[], Any], recorded: Any) -> Reproduction:
    """The replay ``replayed()`` on D (a :class:`~.trace.Run`) against the ``recorded`` run on D (module notes): the
    same structure and the same bits, and no source noted that the record cannot replay.  A divergence is caught
    here (before, D's replay raised it out of the audit: an internal error, exit 4, for a program's counter); what
    the program raises is its own fault, and passes."""
    try:
        again = replayed()
    except Divergence as divergence:
        return Reproduction(False, f"takes another path ({divergence.words()})")
    if again.structure != recorded.structure or again.numbers.size != recorded.numbers.size:
        return Reproduction(False, "gives a release of another structure")
    if not release_codec.same_bits(again.numbers, recorded.numbers):
        i = int(release_codec.differ(again.numbers, recorded.numbers).argmax())
        shown = f"number {i}: recorded {recorded.numbers[i]:.6g}, replayed {again.numbers[i]:.6g}"
        return Reproduction(False, f"gives another release ({shown})")
    if not replayable(recorded.unrecorded) or not replayable(again.unrecorded):
        return Reproduction(False)
    return Reproduction(True)
