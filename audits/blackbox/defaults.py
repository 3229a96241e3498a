"""The black-box audit's defaults, declared once: the statistic and the fresh releases per world of a run that names
neither (:class:`pdp_audit.audits.blackbox.attack.AttackOptions`, :func:`pdp_audit.audit_blackbox`, ``pdp-audit
blackbox``).  A module of its own, importing nothing but the shared options, so that the command line can show them
without importing scikit-learn.

Why these.  The issue's yardstick is DP-Sniper's and StatDP's benchmark of 20 mechanisms (Bichsel et al., IEEE S&P
2021; Ding et al., CCS 2018; ``benchmarks/blackbox_peers.py``): every incorrect variant must be refuted at
α = 10⁻⁶ within the default budget in two minutes on 2 cores.  The logistic test at 1e5 releases per world
refuted 6 of the 9 (not SVT3, SVT4, SVT3‖SVT4).  The exact event test (:mod:`pdp_audit.audits.blackbox.events`)
keeps only counts of its fresh releases (its memory grows only by the selection pass's scores, 12 bytes per fresh
release; the training releases are capped at :data:`EVENT_TRAIN_TRIALS`), and its budget goes to fresh releases.
At 4e6 per world it refuted 26 of the 27
(variant, seed) runs of seeds 0–2, but SVT3 on seed 2 only reached 0.0997 for a claim of 0.1; at 8e6, SVT3 reached 0.165
on that seed, 0.153 and 0.161 on seeds 0 and 1 (measured 2026-11-24: docs/how-to/blackbox.md).
"""

from __future__ import annotations

from pdp_audit.verify.core.config import PAIR_OPTIONS

#: The statistics of a run: ``logistic`` alone, or ``select``: logistic and trees, the better on a validation split;
#: ``events``: the exact event test of :mod:`pdp_audit.audits.blackbox.events` (statistic and events chosen on a
#: validation split among logistic, trees, outcome and histogram scores; Clopper–Pearson on the fresh releases).
#: ``events-numbers``: the same on the releases augmented with the structure of their numbers (integrality,
#: fractional part, low bits of the significand: :func:`pdp_audit.verify.estimators.float_structure.number_structure`).
STATISTICS = ("logistic", "select", "events", "events-numbers")

#: The statistic of a run that names none: the exact event test.
DEFAULT_STATISTIC = "events"

#: Fresh releases per world of a run that gives no ``trials`` (the event test also draws a quarter as many to choose
#: its events, and learns from at most :data:`EVENT_TRAIN_TRIALS`).
DEFAULT_TRIALS = 8_000_000

#: The event test learns from at most this many releases per world unless told otherwise: its fresh pass keeps
#: only counts, so its budget goes to fresh releases (a rate near 1% needs millions to bound a ratio near e^0.1).
#: The learners read at most 1e5 of them (every stage of a staged run, the pilot's 5e4); the histograms and
#: outcomes count all: at 2e5 NumericalSVT's per-column histograms were too noisy to choose a good event (0.021 at
#: confidence 0.9, 0.61× DP-Sniper's; 0.036 at 5e5).
#: Training 5e5 + selection 2e6 + fresh 8e6 = 1.05e7 releases per world: 1/20 of DP-Sniper's 2.107e8.
EVENT_TRAIN_TRIALS = 500_000

#: A search over neighbouring inputs (``--search``; :class:`pdp_audit.audits.blackbox.search_check.
#: SearchOptions`) attacks its chosen pair as a plain run attacks its pair: the event test at :data:`DEFAULT_TRIALS`
#: (a witness records and re-checks every statistic; ``--report`` and ``--witness`` change no default).  Measured
#: 2026-11-24 on the 9 incorrect variants, seed 0, patterns under linf:1, 16 logistic pilots of 2e4
#: (``python benchmarks/blackbox_search_peers.py --trials T --statistic S``): logistic at 1e5 (the previous default)
#: refuted 5 of 9 (not ReportNoisyMax3, SVT3, SVT4, SVT3‖SVT4) in 93 s in all; events at 1e6 refuted 8 (SVT3 0.086)
#: in 118 s; events at 8e6 refuted ReportNoisyMax3 (0.236), SVT3 (0.123), SVT4 (0.149) and SVT3‖SVT4 (0.225) in
#: 32–120 s each on 2 shared cores, the other five being refuted at 1e6 already with a margin (SVT6 0.222 the
#: closest): 9 of 9.
SEARCH_STATISTIC = DEFAULT_STATISTIC
SEARCH_TRIALS = DEFAULT_TRIALS

#: The search's pilots (each candidate pair attacked on ``--pilot-trials`` releases per world, only to rank the
#: pairs) use the logistic test.  Measured as above with the event test at 1e6 for the final attack: event-test
#: pilots took 251 s for the 9 variants against 118 s, and chose pairs no better (final bounds SVT6 0.111 against
#: 0.222, SVT3‖SVT4 0.107 against 0.147, SVT3 0.058 against 0.086; NoisyHist2 11.2 against 9.1): at 2e4 releases the
#: event test's selection pass is too small to rank pairs by.
PILOT_STATISTIC = "logistic"

#: Whether a plain run's fresh pass is drawn in rounds and stopped as soon as it decides (refuted, or every event
#: shown within the claim), the budget its maximum (:mod:`pdp_audit.audits.blackbox.anytime`): the default of every
#: audit that can stop once decided (issue 43), declared once with the shared options; ``False``
#: (``--no-early-stop``, ``early_stop=False``): the whole budget in one pass, the bound Clopper–Pearson's (seeded
#: outputs as before issue 43).
EARLY_STOP: bool = PAIR_OPTIONS["early_stop"].default
