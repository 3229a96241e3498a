"""``pdp-audit blackbox`` with a search over neighbouring inputs, a witness re-check, or a PDF report.

    pdp-audit blackbox mypkg.mech:make_mechanism --search patterns --neighbours linf:1 --candidates 16 \\
        --claim-epsilon 0.1 --claim-delta 0 --json out.json --report out.pdf
    pdp-audit blackbox mypkg.mech:make_mechanism --witness out.json --seed 7 --claim-epsilon 0.1 --claim-delta 0

With ``--search``, ``FACTORY()`` returns a mechanism (:class:`pdp_audit.audits.blackbox.search.SearchMechanism`:
``dimension`` and ``release(dataset, size, rng)``); candidate pairs are ranked on pilot attacks and the chosen one
attacked on fresh releases.  ``--witness W.json`` re-applies the frozen test of a blackbox JSON (or a bare witness:
a logistic or trees score and its threshold, or the event test's score and events) to fresh releases of the same
target, by default as many as the witness was bounded on (``--seed``: choose one other than the run's; the run's
own reproduces its bound bit for bit).  ``--report R.pdf`` writes the
PDF (banner, claim, the pair, the ROC of the test against the claim's region, the search's ranking); without
``--search`` it attacks the pair ``FACTORY()`` returns, exactly as a plain run, and adds the witness to the JSON.
This module declares the flags; the run is :func:`pdp_audit.blackbox_search_files.blackbox_search_files`.
"""

from __future__ import annotations

import argparse

#: The search options of ``blackbox`` (besides the claim and budget of :data:`...blackbox.BLACKBOX_OPTIONS`).
SEARCH_HELP = {
    "--search": "search neighbouring inputs: patterns (StatDP/DP-Sniper input patterns), random (patterns, then random "
    "pairs), optuna (TPE from the patterns; needs optuna: pip install optuna); FACTORY() then returns a mechanism with "
    "dimension and release(dataset, size, rng)",
    "--neighbours": "the neighbour relation of the search: replace-one, add-remove, l1:R or linf:R (default linf:1)",
    "--candidates": "candidate pairs the search tries at most (default 16)",
    "--pilot-trials": "releases per world of each candidate's pilot attack (default 2e4)",
    "--rounds": "rounds of successive halving of the candidates, each on twice the pilot releases (default 1)",
    "--witness": "re-check the witness of this blackbox JSON (or bare witness) on fresh releases of TARGET",
    "--report": "write the PDF report here",
}


def add_search_arguments(p: argparse.ArgumentParser) -> None:
    """The search, witness and report flags of ``pdp-audit blackbox``."""
    p.add_argument("--search", default=None, choices=("patterns", "random", "optuna"), help=SEARCH_HELP["--search"])
    p.add_argument("--neighbours", default="linf:1", help=SEARCH_HELP["--neighbours"])
    p.add_argument("--candidates", default="16", help=SEARCH_HELP["--candidates"])
    p.add_argument("--pilot-trials", dest="pilot_trials", default="2e4", help=SEARCH_HELP["--pilot-trials"])
    p.add_argument("--rounds", default="1", help=SEARCH_HELP["--rounds"])
    p.add_argument("--witness", default=None, help=SEARCH_HELP["--witness"])
    p.add_argument("--report", default=None, help=SEARCH_HELP["--report"])


def wanted(args: argparse.Namespace) -> bool:
    """Whether this run is a search, a witness re-check or a report (this module), not a plain run."""
    return bool(args.search or args.witness or (args.report and args.report.lower() != "none"))
