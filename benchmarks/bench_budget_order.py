"""Exploratory: an order built for the budget against the time-aware single best's order.

For each of the three primary conditions at P = 1/64 (CPU time, leave-one-family-out,
scored on the unseen repetition), each held-out dataset gets, for each budget of 1, 10,
60 and 600 CPU-s, a *greedy plan* from its fold's training datasets: repeatedly the
configuration with the largest mean gain of the best-so-far success over the training
datasets per second predicted for the held-out dataset by the time model
(:class:`~metaeval.recommend.knowledge._budget.TimeModel`, fitted on the training datasets), among
those predicted to fit in what is left of the budget, until none gains; then the rest of
the time-aware single best's order. Both orders are run with the evaluation's skip rule
on the recorded times (``metaeval.recommend.evaluation._budget_scoring``) and scored as there. The
means over held-out datasets are printed, with the per-dataset wins and losses.

Usage: python benchmarks/bench_budget_order.py
"""

from __future__ import annotations

import numpy as np

from metaeval.recommend import Condition, load_knowledge
from metaeval.recommend._advice import CONDITIONS
from metaeval.recommend.evaluation._budget_scoring import (
    BUDGETS,
    budget_losses,
    budget_reference,
    budget_runs,
)
from metaeval.recommend.evaluation._evaluate import archive_knowledge
from metaeval.recommend.evaluation._scoring import _impute_times, _ways
from metaeval.recommend.knowledge._budget import TimeModel, knowledge_shape


def greedy(success, predicted, budget, rest):
    """The greedy plan within ``budget`` (indices), then ``rest`` less the plan."""
    best = success.min(axis=1)  # nothing in hand: the worst of the pool
    left, plan = budget, []
    available = np.ones(success.shape[1], dtype=bool)
    while True:
        fits = available & (predicted <= left)
        if not fits.any():
            break
        gain = (np.maximum(success, best[:, None]) - best[:, None]).mean(axis=0)
        a = int(np.argmax(np.where(fits, gain / predicted, -np.inf)))
        if gain[a] <= 0:
            break
        plan.append(a)
        available[a] = False
        left -= predicted[a]
        best = np.maximum(best, success[:, a])
    return np.array(plan + [j for j in rest if j not in plan])


def main():
    archive = load_knowledge()
    for _, spec in CONDITIONS:
        condition = Condition(**spec, time_weight=1 / 64)
        kb = archive_knowledge(archive, condition)
        families = np.array(kb.families)
        rows, cols, _ = knowledge_shape(kb)
        losses = {"greedy": [], "single-best-a3r": []}
        for family in dict.fromkeys(families):
            mask = families != family
            fold = _impute_times(kb, mask)
            train = fold.subset(mask)
            train_rows, train_cols, train_times = knowledge_shape(train)
            model = TimeModel.fit(train_rows, train_cols, train_times)
            a3r = np.argsort(-np.log(condition.a3r_values(train.success, train.times))
                             .mean(axis=0), kind="stable")
            for i in np.flatnonzero(~mask):
                predicted = model.predict(rows[i], None if cols is None else cols[i])
                orders = {"greedy": [greedy(train.success, predicted, b, a3r)
                                     for b in BUDGETS],
                          "single-best-a3r": [a3r] * len(BUDGETS)}
                for name, chosen in orders.items():
                    ways = []
                    for truth, chooser in _ways(kb, i, True):
                        ref = budget_reference(chooser, fold.times[i], BUDGETS)
                        ways.append([budget_losses(
                            budget_runs(fold.times[i], order, 0.0, [b]), order, truth,
                            chooser, ref[k:k + 1]).item()
                            for k, (b, order) in enumerate(zip(BUDGETS, chosen, strict=True))])
                    losses[name].append(np.mean(ways, axis=0))
        label = condition.label
        for name, values in losses.items():
            print(f"{label} | {name} | " + ", ".join(
                f"{v:.4f}" for v in np.mean(values, axis=0)))
        d = np.array(losses["single-best-a3r"]) - np.array(losses["greedy"])
        print(f"{label} | greedy lower on (datasets) | "
              + ", ".join(str(int(v)) for v in (d > 1e-12).sum(axis=0))
              + " | higher on | " + ", ".join(str(int(v)) for v in (d < -1e-12).sum(axis=0)))


if __name__ == "__main__":
    main()
