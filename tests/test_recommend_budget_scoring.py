"""Losses at time budgets (metaeval.recommend.evaluation._budget_scoring): the skip rule
and the loss against plain loops written from the definitions, the oracle's 0, the budget baseline,
and the evaluation's figures."""

from __future__ import annotations

import numpy as np
import pytest

from metaeval.recommend import KnowledgeBase, evaluate_recommenders
from metaeval.recommend.evaluation._budget_scoring import (
    BUDGET_BASELINE,
    budget_baseline_orders,
    budget_column,
    budget_losses,
    budget_reference,
    budget_runs,
    check_budgets,
)


def _runs_by_loop(times, order, overhead, budget):
    total, out = overhead, []
    for j in order:
        fits = total + times[j] <= budget
        out.append(fits)
        total += times[j] if fits else 0.0
    return out


def _loss_by_loop(times, order, overhead, budget, truth, chooser):
    fitting = [j for j in range(len(times)) if times[j] <= budget]
    if not fitting:
        return 0.0
    ref = min(fitting, key=lambda j: (-chooser[j], times[j]))
    ran = [j for j, ok in zip(order, _runs_by_loop(times, order, overhead, budget),
                              strict=True) if ok]
    if not ran:
        return truth[ref] - min(truth)
    kept = ran[0]
    for j in ran[1:]:
        if chooser[j] > chooser[kept]:  # the earliest on ties
            kept = j
    return truth[ref] - truth[kept]


@pytest.mark.parametrize("seed", range(5))
def test_skip_rule_and_loss_match_loops(seed):
    rng = np.random.default_rng(seed)
    n = 9
    times = rng.choice([0.2, 0.5, 1.0, 3.0, 8.0], n)
    truth = rng.uniform(0.5, 0.9, n).round(2)  # rounded: ties of the chooser too
    chooser = (truth + rng.normal(0, 0.05, n)).round(1)
    orders = np.array([rng.permutation(n) for _ in range(6)])
    budgets = [0.1, 1.0, 4.0, 12.0, 100.0]
    overhead = float(rng.choice([0.0, 0.3]))
    run = budget_runs(times, orders, overhead, budgets)
    loss = budget_losses(run, orders, truth, chooser,
                         budget_reference(chooser, times, budgets))
    for k, b in enumerate(budgets):
        for r, order in enumerate(orders):
            assert run[k, r].tolist() == _runs_by_loop(times, order, overhead, b)
            assert loss[k, r] == pytest.approx(
                _loss_by_loop(times, order, overhead, b, truth, chooser), abs=1e-12)
    one = budget_runs(times, orders[0], overhead, budgets)  # one order: (m, n)
    assert np.array_equal(one, run[:, 0])


def test_the_oracle_order_loses_nothing_at_any_budget():
    rng = np.random.default_rng(3)
    times, chooser = rng.uniform(0.1, 20, 12), rng.uniform(0.5, 0.9, 12)
    truth = chooser + rng.normal(0, 0.03, 12)  # scored on another repetition
    order = np.lexsort((times, -chooser))
    budgets = [0.5, 2.0, 10.0, 60.0, 600.0]
    loss = budget_losses(budget_runs(times, order, 0.0, budgets), order, truth, chooser,
                         budget_reference(chooser, times, budgets))
    assert loss.tolist() == [0.0] * len(budgets)


def test_budget_baseline_first_pick_is_the_best_that_fits_on_training_data():
    rng = np.random.default_rng(1)
    success, times = rng.uniform(0.5, 0.9, (6, 8)), rng.uniform(0.1, 30, (6, 8))
    budgets = [1.0, 10.0, 100.0]
    orders = budget_baseline_orders(success, times, budgets)
    single_best = list(np.argsort(-success.mean(axis=0), kind="stable"))
    for k, b in enumerate(budgets):
        value = [np.mean([success[d, a] if times[d, a] <= b else success[d].min()
                          for d in range(6)]) for a in range(8)]
        assert orders[k, 0] == int(np.argmax(value))
        assert orders[k, 1:].tolist() == [a for a in single_best if a != orders[k, 0]]


def test_check_budgets_names_the_argument():
    assert check_budgets([60, 1]) == (1.0, 60.0) and check_budgets(None) == ()
    for bad in ([0, 1], [1, 1], ["x"], [float("inf")]):
        with pytest.raises(ValueError, match="budgets must be"):
            check_budgets(bad)


def _kb(seed=0, n_datasets=8, n_algorithms=6):
    rng = np.random.default_rng(seed)
    reps = np.clip(rng.uniform(0.6, 0.9, n_algorithms)
                   + rng.normal(0, 0.05, (2, n_datasets, n_algorithms)), 0.01, 1)
    times = rng.uniform(0.05, 5, n_algorithms) * rng.uniform(0.5, 4, (n_datasets, 1))
    return KnowledgeBase([f"d{i}" for i in range(n_datasets)],
                         [f"a{j}" for j in range(n_algorithms)], reps.mean(axis=0), times,
                         repetitions=reps)


def test_evaluation_scores_every_strategy_at_the_budgets():
    kb = _kb()
    ev = evaluate_recommenders(kb, strategies=["single-best", "single-best-a3r", "oracle",
                                               "random"], n_boot=20, budgets=(1, 10),
                               n_random=50)
    assert ev.scored_on == "unseen repetition" and ev.budgets == (1.0, 10.0)
    s = ev.budget_summary.set_index(["strategy", "budget"])
    assert set(s.index.get_level_values(0)) == {"single-best", "single-best-a3r", "oracle",
                                                "random", BUDGET_BASELINE}
    assert (s.loc["oracle", "loss"] == 0).all()  # never negative: exactly 0
    # the single best's loss at 1 s, by the loops, over the two ways of scoring
    per = ev.budget_per_dataset
    i = 0
    train = np.arange(len(kb.datasets)) != i
    order = np.argsort(-kb.success[train].mean(axis=0), kind="stable")
    want = np.mean([_loss_by_loop(kb.times[i], order, 0.0, 1.0, kb.repetitions[r, i],
                                  kb.repetitions[1 - r, i]) for r in (0, 1)])
    got = per[(per["dataset"] == "d0") & (per["strategy"] == "single-best")]
    assert got[budget_column(1)].item() == pytest.approx(want)
    # the same columns in the per-dataset table of the strategies evaluated
    assert {budget_column(1), budget_column(10)} <= set(ev.per_dataset.columns)
    none = evaluate_recommenders(kb, strategies=["single-best"], n_boot=5, budgets=None)
    assert none.budgets == () and none.budget_summary is None
    assert budget_column(1) not in none.per_dataset.columns
    with pytest.raises(ValueError, match="budgets must be"):
        evaluate_recommenders(kb, strategies=["single-best"], budgets=[-1])
