"""What the black box's stage after the pilot chooses on DP-Sniper's SVT3 pair, against what its scores could tell:
the power of its events by quadrature, over replicates of its training and selection draws (issue 43).

The stage after the pilot of an attack of ``--trials`` fresh releases per world (8e6, the default budget:
:func:`pdp_audit.audits.blackbox.stages.stage_schedule`) learns from T releases per world (81,250; its logistic test
and trees from the first 50,000, the pilot's rows), chooses its statistic and events on S more
(:func:`~pdp_audit.audits.blackbox.events.selection_size`: 162,500) and counts them on its fresh releases (650,000).
Each replicate r draws those T + S releases per world from the pair's sampler (``numpy.random.default_rng([seed,
r])``: not the attack's streams, so the replicates are not the runs of ``blackbox_early_stop.py``), fits the
candidates as the attack does (:func:`~pdp_audit.audits.blackbox.event_choice.candidate_scores`, the learners read the
pilot's rows as :func:`pdp_audit.audits.blackbox.attack._pilots_rows` has them) and chooses as it does
(:func:`~pdp_audit.audits.blackbox.event_choice.select_events`).  Every score is then evaluated on one release standing
for each cell (k, v) of SVT3's exact law (``blackbox_event_ceiling.law``: −1000 before the first positive answer k, its
value v, −2000 after), so an event's rates P and Q are sums of cells, with no sampling error.  Per candidate:

* ``ceiling``: the power of its best threshold event (either direction) -- what a perfect choice of threshold on that
  score reaches;
* ``chosen``: the power of the best of the events its own choice picks (what the stage reads if it keeps it);

and ``kept``: the candidate the choice keeps, and the power of its events.  Power as in ``blackbox_event_ceiling``
(the normal law of the log ratio of the Poisson counts) at the stage's fresh releases, its own events read at the end
of the pass: its share of α less the carried events' (1/16 at 8e6), halved, over K events (α/64 for two).  A
reference score that is not in the package, ``isotonic``: per first-positive position, the value's smoothed log ratio
on ``--bins`` quantile bins fitted by weighted isotonic regression (increasing or decreasing, whichever fits closer):
SVT3's Neyman–Pearson event is a value cutoff per position (``neyman_pearson`` in the summary: the largest value of
each position in it), so its log ratio is close to monotone in the value within a position; its ceiling, fitted on
``--isotonic-train`` further releases per world (default T + S/2, what the outcome score's ranking reads).

Measured 2026-11-26 at 5b13d8f (``--replicates 4 --isotonic-train 162500 362500 1400000``, the stage at 8e6): the events
the choice keeps have power 0.179, 0.0, 0.038, 0.0 (mean 0.054; kept: increments, logistic, outcomes, pooled), against
0.71 for the Neyman–Pearson event at that stage.  The candidates' ceilings, medians over the replicates: per-column
histograms 0.31 (0.537, 0.0, 0.24, 0.384: the only candidate whose ranking of the cells sometimes holds a strong event;
its own choice 0.537, 0.0, 0.24, 0.108, never kept: on replicate 0 its 0.537 lost on merit, 0.1449 against the
increments' 0.1855), outcomes 0.029, pooled 0.025, logistic 0.002, increments 0.002, trees 0.0.  Keeping, on each
replicate, the candidate whose own events are strongest (an oracle's ranking of the candidates) would reach 0.537,
0.038, 0.24, 0.108: 0.23 on average.  The isotonic reference's ceiling, mean over the replicates, learned from 162,500 /
362,500 / 1,400,000 releases per world: 0.18 / 0.47 / 0.61 (per replicate 0.034-0.299 / 0.309-0.667 / 0.514-0.689).  So
within the tenth (1,048,543 releases per world, of which the stage after the pilot counts at most 686,043 fresh, leaving
at most 362,500 to learn and choose from: all the pilot drew), even a smooth score of the right shape with a perfect
choice of threshold refutes SVT3 there with probability about 0.5 on a seed (0.47 at 650,000 fresh and α/64), about 0.1
on all of seeds 0-2; the Neyman–Pearson event itself, 0.80 at 686,043 fresh releases and α/32
(``blackbox_event_ceiling``), about 0.5 on all three.  Reaching the tenth on all three seeds would take a score that
ranks SVT3's cells from at most 362,500 releases far better than any measured here, or events not learned from the run's
own releases.

    python benchmarks/blackbox_stage_choice.py --replicates 4 --isotonic-train 162500 362500 1400000
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from blackbox_event_ceiling import ALPHA, law, power  # noqa: E402
from peer_mechanisms import PEERS  # noqa: E402


class Cells:
    """SVT3's cells (k, v) on ``grid`` with their exact masses ``p`` (on D) and ``q`` (on D'), the last cell no
    positive answer, and ``releases``: one release standing for each."""

    def __init__(self, peer, grid: np.ndarray):
        svt = peer.pair.release
        (rows_d, none_d), (rows_dp, none_dp) = (
            law(np.asarray(x, float), svt.scales(), svt.t, grid) for x in (peer.pair.d, peer.pair.dprime)
        )
        self.p, self.q = np.append(rows_d.ravel(), none_d), np.append(rows_dp.ravel(), none_dp)
        positions, size = rows_d.shape[0], grid.size
        releases = np.full((positions * size + 1, positions), -1000.0)
        for k in range(positions):
            block = releases[k * size : (k + 1) * size]
            block[:, k] = grid
            block[:, k + 1 :] = -2000.0
        self.releases, self.epsilon = releases, peer.claimed_epsilon

    def rates(self, inside: np.ndarray) -> tuple[float, float]:
        return float(self.p[inside].sum()), float(self.q[inside].sum())

    def ceiling(self, scores: np.ndarray, fresh: float, level: float) -> float:
        """The power of the best threshold event {score ≥ t} or {score ≤ t} (NaN scores in none)."""
        finite = np.isfinite(scores)
        best = 0.0
        for sign in (1.0, -1.0):
            order = np.argsort(-sign * scores[finite], kind="stable")
            ranked = sign * scores[finite][order]
            cut = np.append(ranked[1:] != ranked[:-1], True)  # events end between distinct scores
            p, q = np.cumsum(self.p[finite][order])[cut], np.cumsum(self.q[finite][order])[cut]
            p, q = (p, q) if sign > 0 else (q, p)
            best = max(best, float(np.max(power(p, q, fresh, level, self.epsilon))))
        return best

    def neyman_pearson(self, fresh: float, level: float) -> dict:
        """The most powerful event of all (cells by likelihood ratio, favouring D): per position, the largest value
        in it (``none``: whether no positive answer is), and its power."""
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.log(self.p / self.q)
        order = np.argsort(-np.nan_to_num(ratio, nan=-np.inf), kind="stable")
        reach = power(np.cumsum(self.p[order]), np.cumsum(self.q[order]), fresh, level, self.epsilon)
        inside = np.zeros(ratio.size, dtype=bool)
        inside[order[: int(np.argmax(reach)) + 1]] = True
        positions = self.releases.shape[1]
        values = self.releases[:-1].max(axis=1).reshape(positions, -1)
        held = inside[:-1].reshape(positions, -1)
        tops = {str(k + 1): round(float(values[k][held[k]].max()), 2) for k in range(positions) if held[k].any()}
        return {"largest_value": tops, "none": bool(inside[-1]), "power": round(float(reach.max()), 3)}

    def events_power(self, scores: np.ndarray, events, fresh: float, level: float) -> float:
        """The power of the best of ``events`` (each read at ``level``)."""
        best = 0.0
        for event in events:
            p, q = self.rates(event.members(scores))
            p, q = (p, q) if event.favours_d else (q, p)
            best = max(best, float(power(np.array([p]), np.array([q]), fresh, level, self.epsilon)[0]))
        return best


def isotonic_score(train: tuple, bins: int):
    """The reference score (module docstring): a function of SVT3's releases, fitted on ``train`` = (of D, of D')."""
    from sklearn.isotonic import IsotonicRegression

    def position_value(x):
        real = x > -999
        k = np.where(real.any(1), real.argmax(1), x.shape[1])
        return k, np.where(k < x.shape[1], x[np.arange(len(x)), np.minimum(k, x.shape[1] - 1)], 0.0)

    (kd, vd), (kdp, vdp) = (position_value(x) for x in train)
    fitted = []
    for k in range(train[0].shape[1] + 1):
        pooled = np.concatenate([vd[kd == k], vdp[kdp == k]])
        b = bins if k < train[0].shape[1] and pooled.size else 1
        cut = np.quantile(pooled, np.arange(1, b) / b) if b > 1 else np.empty(0)
        cd, cdp = (np.bincount(np.searchsorted(cut, v[kk == k]), minlength=b) + 0.5 for v, kk in ((vd, kd), (vdp, kdp)))
        raw = np.log(cd / len(vd)) - np.log(cdp / len(vdp))
        if b > 1:
            weight = 1 / (1 / cd + 1 / cdp)
            fits = [IsotonicRegression(increasing=up).fit_transform(np.arange(b), raw, sample_weight=weight)
                    for up in (True, False)]  # fmt: skip
            raw = min(fits, key=lambda f: float(np.sum(weight * (raw - f) ** 2)))
        fitted.append((cut, raw))

    def score(x):
        k, v = position_value(x)
        out = np.empty(len(x))
        for j, (cut, ratio) in enumerate(fitted):
            out[k == j] = ratio[np.searchsorted(cut, v[k == j])]
        return out

    return score


def replicate(peer, cells: Cells, stage, r: int, options) -> dict:
    """One replicate of the stage's training, candidates and choice (module docstring)."""
    from pdp_audit.audits.blackbox import event_choice, events
    from pdp_audit.audits.blackbox.attack import _pilots_rows
    from pdp_audit.audits.blackbox.learned_statistics import learn_statistic, learn_trees
    from pdp_audit.verify.estimators.attack import poisson_mean_within

    rng = np.random.default_rng([options.seed, r])
    train = [peer.pair.sample(w, stage.train_trials, rng) for w in ("D", "D'")]
    first = (train[0].shape[1], "sample('D', …)")
    learners = {
        "logistic": lambda d, dp: learn_statistic(d, dp, first, accuracy=False)[0],
        "trees": lambda d, dp: learn_trees(d, dp, first, options.seed, accuracy=False)[0],
    }
    candidates = event_choice.candidate_scores(*train, _pilots_rows(learners, stage.train_trials))
    selected = events.selection_size(stage.trials)
    selection = [peer.pair.sample(w, selected, rng) for w in ("D", "D'")]
    scored = tuple(np.column_stack([score(x) for score in candidates.values()]) for x in selection)
    mean = poisson_mean_within(stage.trials)
    level = ALPHA * (stage.share - stage.carried) / 2
    row: dict = {"replicate": r}
    for c, (name, candidate) in enumerate(candidates.items()):
        choice, score = event_choice._candidate_choice(scored, c, candidate, (mean, mean), 0.0)
        on_cells = score(cells.releases)
        at = level / max(len(choice.events), 1)
        row[name] = {
            "ceiling": round(cells.ceiling(on_cells, stage.trials, level / 2), 3),
            "chosen": round(cells.events_power(on_cells, choice.events, stage.trials, at), 3),
            "merit": round(choice.merit, 4),
        }
    kept = event_choice.select_events(scored, candidates, (mean, mean), 0.0)[0]
    row["kept"] = {"candidate": kept, "power": row[kept]["chosen"]}
    sizes = options.isotonic_train or [stage.train_trials + selected // 2]
    drawn = [peer.pair.sample(w, max(sizes), rng) for w in ("D", "D'")]
    row["isotonic_ceiling"] = {
        str(n): round(cells.ceiling(isotonic_score(tuple(x[:n] for x in drawn), options.bins)(cells.releases),
                                    stage.trials, level / 2), 3)
        for n in sizes
    }  # fmt: skip
    return row


def summary(rows: list[dict]) -> dict:
    names = [k for k in rows[0] if isinstance(rows[0][k], dict) and "ceiling" in rows[0][k]]
    fields = ("ceiling", "chosen")
    medians = {n: {f: round(float(np.median([r[n][f] for r in rows])), 4) for f in fields} for n in names}
    return {
        "median": medians,
        "kept_power_mean": round(float(np.mean([r["kept"]["power"] for r in rows])), 3),
        "kept": [r["kept"]["candidate"] for r in rows],
        "best_ceiling_mean": round(float(np.mean([max(r[n]["ceiling"] for n in names) for r in rows])), 3),
        "isotonic_ceiling_mean": {
            n: round(float(np.mean([r["isotonic_ceiling"][n] for r in rows])), 3) for n in rows[0]["isotonic_ceiling"]
        },
    }


def main() -> None:
    from pdp_audit.audits.blackbox.attack import default_train_trials
    from pdp_audit.audits.blackbox.stages import stage_schedule

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=4, help="replicates of the stage's draws (default 4)")
    parser.add_argument("--trials", type=int, default=8_000_000, help="the attack's fresh budget (default 8e6)")
    parser.add_argument("--seed", type=int, default=0, help="the replicates' seed (default 0)")
    parser.add_argument("--bins", type=int, default=32, help="the isotonic reference's value bins (default 32)")
    parser.add_argument("--isotonic-train", type=int, nargs="+", metavar="N",
                        help="releases per world the isotonic reference learns from, each (default: the stage's "
                        "training and half its selection, 162,500 at 8e6)")  # fmt: skip
    parser.add_argument("--step", type=float, default=0.05, help="the law's grid step (default 0.05)")
    parser.add_argument("--span", type=float, default=300.0, help="the law's grid half-width (default 300)")
    args = parser.parse_args()
    if args.replicates < 1 or args.trials < 1 or args.bins < 2 or args.step <= 0 or args.span <= 0:
        parser.error("--replicates, --trials, --step and --span must be positive and --bins at least 2")
    if args.isotonic_train and min(args.isotonic_train) < 2 * args.bins:
        parser.error(f"--isotonic-train must be at least twice --bins ({2 * args.bins})")
    schedule = stage_schedule(args.trials, default_train_trials(args.trials, "events"))
    if len(schedule) < 3:
        parser.error(f"--trials {args.trials} has no stage after the pilot (at least 3 stages from 2.6e6)")
    start = time.perf_counter()
    stage = schedule[1]
    level = ALPHA * (stage.share - stage.carried) / 4  # two events, the end of the pass at half
    peer = {p.name: p for p in PEERS}["SVT3"]
    cells = Cells(peer, np.arange(-args.span, args.span + args.step / 2, args.step))
    rows = []
    for r in range(args.replicates):
        rows.append(replicate(peer, cells, schedule[1], r, args))
        print(json.dumps({"benchmark": "blackbox_stage_choice", **rows[-1]}), flush=True)
    print(json.dumps({"benchmark": "blackbox_stage_choice", "stage": schedule[1].name, "fresh": schedule[1].trials,
                      "train": schedule[1].train_trials, **summary(rows),
                      "neyman_pearson": cells.neyman_pearson(schedule[1].trials, level),
                      "seconds": round(time.perf_counter() - start, 1)}))  # fmt: skip


if __name__ == "__main__":
    main()
