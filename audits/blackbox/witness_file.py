"""A witness file (``pdp-audit blackbox --witness W.json``) read and checked: the JSON of a blackbox run's witness,
its target, its pair (neighbours under its own relation) and its frozen test rebuilt from data, every field
checked, with nothing of the attack imported -- the command reads it before the audit's process starts, so a
damaged or edited witness is refused in one line in a fraction of a second.  The witness is written, and re-checked
on fresh releases, by :mod:`pdp_audit.audits.blackbox.search_check` and :mod:`pdp_audit.audits.blackbox.witness`.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from pdp_audit.audits.blackbox.event_statistic import TUNED_AT, Event, EventStatistic
from pdp_audit.audits.blackbox.neighbours import Neighbours
from pdp_audit.audits.blackbox.score_data import FrozenScore, logistic_from_data, score_from_data
from pdp_audit.verify.inputs.validation import InputError, finite_number, not_a_regular_file

#: The witness format's version: 2 since the event test's statistic is stored (schema 1 held the logistic test).
WITNESS_SCHEMA = 2


#: The candidates the event test may keep (:func:`pdp_audit.audits.blackbox.event_choice.candidate_scores`).
EVENT_SCORES = ("logistic", "trees", "histograms", "increments", "pooled", "outcomes")
#: What an ``events-numbers`` score reads, in words (its ``releases`` field).
NUMBERS = (
    "each release o of d columns followed, per column, by four: o_j is an integer (1 or 0), o_j - floor(o_j), the "
    "value of the lowest 8 bits of the float64 significand, its number of trailing zero bits (0-52): 5d columns"
)
#: The most columns a witness's releases may have (a plain run refuses far fewer for memory).
MAX_DIMENSION = 1 << 20


def read_witness(path: str, target: str) -> dict:
    """The witness at ``path``, refused in one line when it is not one, was found on another target, or was damaged
    or edited into something the re-check cannot trust (:func:`_checked_pair`; the statistic's numbers are checked
    by :func:`rebuilt_test`).  A FIFO or device is named, never read."""

    why = not_a_regular_file(path, "witness JSON file")
    if why is not None and why != "does not exist":
        raise InputError(f"witness: {path!r} {why}")

    def no_constant(name: str):  # NaN and Infinity are no JSON numbers: the file was not written by blackbox
        raise ValueError(f"{name} is not a JSON number")

    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f, parse_constant=no_constant)
    except (OSError, ValueError, RecursionError) as err:  # RecursionError: arrays nested beyond the parser's depth
        raise InputError(f"witness: cannot read {path!r} ({type(err).__name__}: {err})") from None
    if isinstance(doc, dict) and "witness" not in doc and "check" in doc:
        raise InputError(
            f"witness: {path!r} is the JSON of a run that wrote no witness; a run with --report or --search writes one"
        )
    witness = doc.get("witness", doc) if isinstance(doc, dict) else None
    if not isinstance(witness, dict) or "statistic" not in witness or not isinstance(witness.get("schema"), int):
        raise InputError(f"witness: {path!r} holds no witness (a blackbox JSON with 'witness', or the witness)")
    schema = witness["schema"]
    if schema != WITNESS_SCHEMA:
        age = "an older" if schema < WITNESS_SCHEMA else "a newer"
        raise InputError(
            f"witness: {path!r} is of schema {schema}, written by {age} pdp-audit; this version reads schema "
            f"{WITNESS_SCHEMA}: run the attack again with it"
        )
    if witness.get("target") != target:
        raise InputError(
            f"witness: found on target {witness.get('target')!r}, not {target!r}; a witness re-checks only its own "
            "target"
        )
    if not isinstance(witness["statistic"], dict):
        raise InputError(f"witness: the statistic is malformed (a {type(witness['statistic']).__name__}, not a table)")
    _checked_pair(witness)
    rebuilt_test(witness["statistic"])  # every number checked now, before the target is loaded or any release drawn
    return witness


def _checked_pair(witness: dict) -> None:
    """A searched witness's pair must be what the search could have chosen: two lists of finite numbers (not
    booleans) that are neighbours under the witness's own relation.  An edited pair (datasets far apart, of other
    lengths) would otherwise be re-checked as if it were a neighbouring pair: a refutation of nothing."""
    pair = witness.get("pair")
    if pair is None:
        return
    if not isinstance(pair, dict) or set(pair) != {"D", "D'"}:
        raise InputError("witness: 'pair' must be null or a table of the datasets 'D' and \"D'\"")
    for world, values in pair.items():
        if not (isinstance(values, list) and values and all(finite_number(v) for v in values)):
            raise InputError(f"witness: pair[{world!r}] must be a non-empty list of finite numbers")
    relation = witness.get("neighbours")
    if not isinstance(relation, str):
        raise InputError(f"witness: a searched witness names its neighbour relation, got {relation!r}")
    try:
        neighbours = Neighbours.parse(relation)
    except InputError as err:
        raise InputError(f"witness: {err}") from None
    d, dprime = np.asarray(pair["D"], float), np.asarray(pair["D'"], float)
    if not neighbours.holds(d, dprime):
        raise InputError(f"witness: its pair is not neighbouring under its relation {relation!r}: it was edited")


def rebuilt_test(data: Any) -> Any:
    """The test a witness's ``statistic`` holds, rebuilt and checked (InputError, one line, for one that is damaged,
    edited or not stored as data): an :class:`~pdp_audit.audits.blackbox.event_statistic.EventStatistic`, or the
    pooled-rank test's score."""
    if not isinstance(data, dict):
        raise InputError(f"witness: the statistic is malformed (a {type(data).__name__}, not a table)")
    return events_from_data(data) if data.get("kind") == "events" else statistic_from_data(data)


def statistic_from_data(data: dict) -> Any:
    """The pooled-rank test's score of :func:`~pdp_audit.audits.blackbox.witness.statistic_to_data`'s data: a
    :class:`~pdp_audit.audits.blackbox.learned_statistics.LearnedStatistic`, or the trees as a
    :class:`~pdp_audit.audits.blackbox.score_data.FrozenScore` (InputError, one line, for anything else)."""
    kind = data.get("kind")
    if kind == "logistic":
        return logistic_from_data(data)
    if kind == "trees":
        width = data.get("dimension")
        if not (isinstance(width, int) and not isinstance(width, bool) and 1 <= width <= MAX_DIMENSION):
            raise InputError(f"witness: the statistic's 'dimension' must be an integer in [1, {MAX_DIMENSION}]")
        return FrozenScore(score_from_data(data, width), (width, "the witness's releases"))
    raise InputError(f"witness: a {kind!r} statistic is not stored as data and cannot be re-checked")


def events_from_data(data: dict) -> EventStatistic:
    """The :class:`~pdp_audit.audits.blackbox.event_statistic.EventStatistic` of
    :func:`~pdp_audit.audits.blackbox.witness.events_to_data`'s data, every field checked (InputError, one line,
    for a damaged or edited one)."""
    dimension, numbers, chosen = data.get("dimension"), data.get("numbers"), data.get("chosen")
    if not (isinstance(dimension, int) and not isinstance(dimension, bool) and 1 <= dimension <= MAX_DIMENSION):
        raise InputError(f"witness: the statistic's 'dimension' must be an integer in [1, {MAX_DIMENSION}]")
    if not isinstance(numbers, bool) or (numbers and data.get("releases") != NUMBERS):
        raise InputError("witness: the statistic's 'numbers' must be true or false (with true, 'releases' as written)")
    if chosen not in EVENT_SCORES:
        raise InputError(f"witness: the statistic's 'chosen' must be one of {', '.join(EVENT_SCORES)}, got {chosen!r}")
    rows = data.get("events")
    if not isinstance(rows, list) or len(rows) > len(TUNED_AT):
        raise InputError(f"witness: the statistic's 'events' must be a list of at most {len(TUNED_AT)} events")
    events = []
    for row in rows:
        if not (isinstance(row, dict) and row.get("favours") in ("D", "D'") and finite_number(row.get("threshold"))):
            raise InputError('witness: each event must be {"favours": "D" or "D\'", "threshold": a finite number}')
        events.append(Event(float(row["threshold"]), row["favours"] == "D"))
    width = dimension * (5 if numbers else 1)
    return EventStatistic(chosen, score_from_data(data.get("score"), width), tuple(events), dimension, numbers)
