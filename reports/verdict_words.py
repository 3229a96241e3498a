"""The words of a verdict, one vocabulary for every place a person reads one.

A verdict is stored as ``pass``, ``fail`` or ``inconclusive`` (the JSON's stable ``verdict`` values, the
:data:`~pdp_audit.reports.records.Verdict` of every record).  Every line a person reads -- the CLI's headlines and
check lines, a PDF's banner and tables, ``describe()``, the pytest plugin's messages and summary -- says it with the
word this module gives: **CERTIFIED**, **REFUTED** or **UNDECIDED** about the claim (exit 0, 1, 3), the same words in
lower case for each check.  A check's ``pass`` is "certified" in the check's own sense: its interval lies on the
claim's side, or its exact comparison holds (docs/explanation/verdicts.md).  This module imports nothing of the
suite's, so any renderer may use it.
"""

from __future__ import annotations

#: The word of each stored verdict, about the claim (upper case: a headline's first word).
CLAIM_WORDS = {"pass": "CERTIFIED", "fail": "REFUTED", "inconclusive": "UNDECIDED"}
#: The stored verdicts and the one word of each, in the order of their exit codes 0, 1, 3.
WORDS = tuple(word.lower() for word in CLAIM_WORDS.values())


def claim_word(verdict: str) -> str:
    """``CERTIFIED``, ``REFUTED`` or ``UNDECIDED``: a run's verdict about its claim (``pass``, ``fail``,
    ``inconclusive``).  Anything else is shown as it is, upper case (a record written by something else)."""
    return CLAIM_WORDS.get(verdict, str(verdict).upper())


def check_word(verdict: str) -> str:
    """``certified``, ``refuted`` or ``undecided``: one check's verdict, as its line prints it."""
    return claim_word(verdict).lower()
