"""What a black-box search, a reported attack or a witness's re-check hands back (:class:`SearchOutcome`): the
decided run, its JSON fields and the plain record of its PDF, with the witness's test as a reader sees it
(:func:`statistic_rows`: the score's parameters that matter, the events, the outcomes by name).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pdp_audit.audits.blackbox.score_data import decoded_outcomes
from pdp_audit.reports.blackbox_report import BlackBoxReport
from pdp_audit.reports.json_report import check_to_dict


@dataclass(frozen=True)
class SearchOutcome:
    """A search, a plain attack with its witness, or a witness's re-check: the decided ``run``, the search's
    ``result`` (:class:`pdp_audit.audits.blackbox.search.SearchResult`; ``chosen`` None for a plain attack, None
    for a re-check or a broken protocol), the ``witness`` written (None for a re-check; a re-check's ``rechecked``:
    the witness it re-applied) and the ``attack`` the bound came from (pooled-rank or event test)."""

    run: Any
    result: Any = None
    witness: dict | None = None
    attack: Any = None
    rechecked: dict | None = None

    @property
    def chosen_name(self) -> str | None:
        chosen = getattr(self.result, "chosen", None)
        return None if chosen is None else chosen.name

    def documents(self) -> dict:
        """The JSON fields beyond the run's parameters: the check, the search's ranking, the witness."""
        (check,) = self.run.checks
        doc: dict = {"check": check_to_dict(check)}
        if self.result is not None and self.result.ranking:
            assert self.result.chosen is not None  # a search chose its pair
            doc["search"] = {
                "chosen": self.result.chosen.name,
                "ranking": [
                    {
                        "pair": r.candidate.name,
                        "D": list(r.candidate.d),
                        "D'": list(r.candidate.dprime),
                        "pilot_bound": r.pilot_bound,
                        "pilot_trials": r.pilot_trials,
                    }
                    for r in self.result.ranking
                ],
            }
        if self.witness is not None:
            doc["witness"] = self.witness
        return doc

    def report_record(self):
        """The plain record :func:`pdp_audit.reports.blackbox_report.render_blackbox_pdf` renders."""
        pair, ranking = (), ()
        if self.result is not None and self.result.chosen is not None:
            c = self.result.chosen
            pair = (f"pair chosen: {c.name}", f"D  = {shown_vector(c.d)}", f"D' = {shown_vector(c.dprime)}")
            ranking = tuple(
                f"{i + 1:<4}  {r.pilot_bound:>8.4f}  {r.pilot_trials:>9,}  {r.candidate.name[:36]:<36}  "
                f"{shown_vector(r.candidate.d, 32):<32}  {shown_vector(r.candidate.dprime, 32)}"
                for i, r in enumerate(self.result.ranking)
            )
        elif self.result is not None:
            pair = ("pair: the target's two worlds D and D', as its sample(world, size, rng) draws them (no search)",)
        witness, statistic = (), ()
        shown = self.witness if self.witness is not None else self.rechecked
        if shown is not None:
            w = shown
            if self.rechecked is not None:
                pair = (
                    f"re-check of the witness found with seed {w.get('seed')} (its bound "
                    f"{w.get('epsilon_lower_bound')!r}): the same test on fresh releases",
                    *(
                        (f"D  = {shown_vector(w['pair']['D'])}", f"D' = {shown_vector(w['pair'][chr(68) + chr(39)])}")
                        if w.get("pair")
                        else ("pair: the target's two worlds, as its sample draws them",)
                    ),
                )
            threshold = w.get("threshold")
            witness = (
                f"target: {w['target']}",
                f"statistic: {_summary(w['statistic'])}",
                *(
                    (f"threshold on the learned score: {threshold:.6g} (to full precision in the JSON)",)
                    if threshold is not None and w["statistic"].get("kind") != "events"
                    else ()
                ),
                *((witness_event_line(w["witness_event"]),) if isinstance(w.get("witness_event"), dict) else ()),
                f"fresh releases: {w['trials']:,} per world, seed {w['seed']}; learned on {w['train_trials']:,}",
            )
            if self.rechecked is not None:
                here = f"{self.run.parameters.get('trials', 0):,} fresh releases per world, seed {self.run.seed}"
                witness = (*witness[:-1], f"the witness's run: {witness[-1]}", f"this re-check: {here}")
            statistic = statistic_rows(w["statistic"])
        return BlackBoxReport(self.run, pair, ranking, witness, statistic)


def witness_event_line(event: dict) -> str:
    """The witness's event with its count and frequency in each world; one that a world never reached says so."""
    hits = (event["hits_d"], event["hits_dprime"])
    sizes = (max(event["released_d"], 1), max(event["released_dprime"], 1))
    line = (
        f"witness event {event['event']}: {hits[0]:,} of {sizes[0]:,} releases of D ({hits[0] / sizes[0]:.4g}), "
        f"{hits[1]:,} of {sizes[1]:,} of D' ({hits[1] / sizes[1]:.4g})"
    )
    if min(hits) == 0 < max(hits):
        line += f"; never in {'D' if hits[0] == 0 else chr(68) + chr(39)}: seen in one world only"
    return line


def shown_vector(values, width: int = 120) -> str:
    """A dataset as the report shows it, cut to ``width`` characters."""
    text = "(" + ", ".join(f"{v:g}" for v in values) + ")"
    return text if len(text) <= width else text[: width - 1] + "…"


def _summary(stat: dict) -> str:
    """The witness's test in one line."""
    kind = stat.get("kind")
    if kind == "events":
        score = stat["score"]
        columns = f"{stat['dimension']} columns" + (", with the structure of their numbers" if stat["numbers"] else "")
        return f"exact event test on the {stat['chosen']} score ({_score_summary(score)}; releases of {columns})"
    return _score_summary(stat)


def _score_summary(score: dict) -> str:
    kind = score.get("kind")
    if kind == "logistic":
        return (
            f"logistic on {score['dimension']} columns: {len(score['coefficients'])} coefficients, "
            f"{len(score['atoms'])} columns with point masses"
        )
    if kind == "trees":
        nodes = sum(len(t["left"]) for t in score["trees"])
        leaves = sum(sum(1 for v in t["left"] if v < 0) for t in score["trees"])
        return f"gradient-boosted trees: {len(score['trees'])} trees, {leaves:,} leaves of {nodes:,} nodes"
    if kind == "histograms":
        bins = sum(len(r) for r in score["log_ratio"])
        of = "first differences of the columns" if score["differences"] else "the columns"
        return f"histograms of {of}: {len(score['edges'])} columns, {bins:,} bins"
    if kind == "pooled":
        return f"histograms pooled over {len(score['edges'])} columns: {len(score['log_ratio'])} bin ranks"
    if kind == "outcomes":
        return f"likelihood ratio of {len(score['table']):,} repeated outcomes"
    return f"{kind}, not stored as data"


#: At most this many of a score's parameters are listed (the JSON holds them all).
LISTED = 8


def statistic_rows(stat: dict) -> tuple[str, ...]:
    """The witness's test as a reader sees it: for the event test its events, then the score's parameters that weigh
    most (the largest coefficients, the most used columns of the trees, the bins or outcomes of largest log ratio,
    each outcome with its values and the events that hold it)."""
    if stat.get("kind") != "events":
        return tuple(_score_rows(stat, ()))
    events = tuple((e["favours"] == "D", e["threshold"]) for e in stat["events"])
    rows = [f"releases: {stat['dimension']} columns"]
    if stat["numbers"]:
        rows[0] += f"; the score reads {stat['releases']}"
    rows += [
        f"event {k + 1}: the releases with score {'>=' if d else '<='} {t!r} (favours {'D' if d else 'D' + chr(39)})"
        for k, (d, t) in enumerate(events)
    ] or ["no event: the bound is 0"]
    return (*rows, "", *_score_rows(stat["score"], events))


def _score_rows(score: dict, events: tuple) -> list[str]:
    kind = score.get("kind")
    if kind == "logistic":
        return _logistic_rows(score)
    if kind == "trees":
        return _tree_rows(score)
    if kind == "histograms":
        return _histogram_rows(score)
    if kind == "pooled":
        ratios = ", ".join(f"{v:+.3f}" for v in score["log_ratio"])
        return [
            f"score: sum over the columns of the log ratio of the release's bin rank ({len(score['edges'])} columns, "
            f"each cut at its own training quantiles): by rank, {ratios}"
        ]
    if kind == "outcomes":
        return _outcome_rows(score, events)
    return []


def _logistic_rows(score: dict) -> list[str]:
    d = score["dimension"]
    names = [f"z{j + 1}" for j in range(d)] + [f"z{j + 1}²" for j in range(d)]
    names += [f"[o{a['column'] + 1} = {v:g}]" for a in score["atoms"] for v in a["values"]]
    weight = np.asarray(score["coefficients"], float) / np.asarray(score["feature_scale"], float)
    top = np.argsort(-np.abs(weight), kind="stable")[:LISTED]
    shown = ", ".join(f"{names[k]} {weight[k]:+.4g}" for k in top)
    return [
        "score: logistic regression on the standardised columns z, their squares and the point masses' indicators",
        f"largest weights (coefficient / feature scale, of {len(names)}): {shown}",
    ]


def _tree_rows(score: dict) -> list[str]:
    splits: dict[int, int] = {}
    for tree in score["trees"]:
        for f in tree["feature"]:
            if f >= 0:
                splits[f] = splits.get(f, 0) + 1
    used = sorted(splits.items(), key=lambda kv: (-kv[1], kv[0]))[:LISTED]
    return [
        f"score: {score['baseline']:+.4g} + the sum of {len(score['trees'])} trees' leaf values (thresholds on single "
        "columns)",
        "splits per column: " + (", ".join(f"column {f + 1}: {n}" for f, n in used) or "none"),
    ]


def _histogram_rows(score: dict) -> list[str]:
    bins = []
    for j, (cut, ratio) in enumerate(zip(score["edges"], score["log_ratio"])):
        ends = [-np.inf, *cut, np.inf]
        bins += [(abs(r), j, ends[b], ends[b + 1], r) for b, r in enumerate(ratio)]
    bins.sort(key=lambda row: (-row[0], row[1], row[2]))
    of = "o_j − o_(j−1)" if score["differences"] else "o_j"
    return [
        f"score: sum over the columns j of the log ratio of the bin of {of}",
        "bins of largest |log ratio|: "
        + "; ".join(f"column {j + 1} in ({lo:.4g}, {hi:.4g}]: {r:+.3f}" for _, j, lo, hi, r in bins[:LISTED]),
    ]


def _outcome_rows(score: dict, events: tuple) -> list[str]:
    table = np.array([int(h, 16) for h in score["table"]], dtype=np.uint64)
    names = decoded_outcomes(tuple(np.asarray(a, float) for a in score["atoms"]), table) or {}
    ratio = np.asarray(score["log_ratio"], float)
    top = np.argsort(-np.abs(ratio), kind="stable")[:LISTED]
    rows = [
        f"score: the log ratio of the release's outcome (its values that are atoms of their column, · for any "
        f"other), counted on {score['sizes'][0]:,} + {score['sizes'][1]:,} releases; the largest |log ratio|:"
    ]
    for k in top:
        values = names.get(int(table[k]))
        name = "(" + ", ".join("·" if v is None else f"{v:g}" for v in values) + ")" if values else score["table"][k]
        held = [str(i + 1) for i, (d, t) in enumerate(events) if (ratio[k] >= t if d else ratio[k] <= t)]
        rows.append(
            f"  {shown_vector_text(name)}: {ratio[k]:+.4f}, seen {score['counts_d'][k]:,} in D and "
            f"{score['counts_dprime'][k]:,} in D'" + (f"; in event {', '.join(held)}" if held else "")
        )
    return rows


def shown_vector_text(text: str, width: int = 60) -> str:
    """``text`` cut to ``width`` characters."""
    return text if len(text) <= width else text[: width - 1] + "…"
