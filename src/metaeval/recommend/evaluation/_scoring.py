"""Scoring one strategy's order on one held-out dataset (:func:`evaluate_recommenders`).

The evaluator's job split off: the held-out results handed out one test at a time
(:class:`HeldOut`), the ways a dataset is scored (one per repetition of the
cross-validation it was not chosen on), the loss curve of an order and its figures, and
the curves' frame.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd

from metaeval.recommend._curves import (
    _interval_mean,
    _loss_after,
    kept,
    log_widths,
    loss_at,
    loss_by_time,
    loss_curve,
    random_losses,
)
from metaeval.recommend.evaluation._budget_scoring import budget_figures
from metaeval.recommend.learners._strategies import RandomOrder

#: Numbers of tests after which the loss is reported.
LOSS_STEPS = (1, 3, 5)


class HeldOut:
    """The held-out dataset's results, handed out one test at a time.

    The evaluator never gives this object to a strategy: an interactive strategy gets
    :meth:`test` only. Every access goes through one of the three methods below, so a
    subclass can record the order of accesses (the tests do).

    Parameters
    ----------
    success, times : array-like of shape (n_algorithms,)
    """

    def __init__(self, success, times):
        self._success = np.asarray(success, dtype=np.float64)
        self._times = np.asarray(times, dtype=np.float64)
        self.tested: list[int] = []
        self._seen: set[int] = set()

    def test(self, j) -> tuple[float, float]:
        """Run (look up) algorithm ``j`` on the held-out dataset: (success, time)."""
        j = int(j)
        if not 0 <= j < self._success.size:
            raise ValueError(f"no algorithm {j} in a pool of {self._success.size}.")
        if j in self._seen:
            raise ValueError(f"algorithm {j} was already tested on this dataset.")
        self._seen.add(j)
        self.tested.append(j)
        return float(self._success[j]), float(self._times[j])

    def test_order(self, order) -> tuple[np.ndarray, np.ndarray]:
        """Test a whole order chosen beforehand (for static strategies)."""
        out = [self.test(j) for j in order]
        return np.array([o[0] for o in out]), np.array([o[1] for o in out])

    def reveal(self) -> tuple[np.ndarray, np.ndarray]:
        """Every result at once: for the oracle, and for scoring a finished order."""
        return self._success.copy(), self._times.copy()


def _ways(kb, i, unseen):
    """How held-out dataset ``i`` is scored: ``(truth, chooser)`` pairs, the success its
    tests are scored on and the success every choice is made on (the oracle's order,
    and after each test the algorithm kept, the best tested so far)."""
    if not unseen:
        return [(kb.success[i], kb.success[i])]
    reps = kb.repetitions[:, i]
    R = reps.shape[0]
    return [(reps[r], np.delete(reps, r, axis=0).mean(axis=0)) for r in range(R)]


def _score(strategy, fitted, ranked, query, fold, i, seed, unit, truth, chooser, lo_hi,
           times_at, budget, sb_first, memo=None, budgets=()):
    """One strategy on one held-out dataset scored on ``truth``, the loss's reference
    being the success on ``truth`` of the algorithm best on ``chooser`` (the oracle's
    first pick), and the algorithm kept after each test the best so far on ``chooser``
    (its success read on ``truth``): the row's figures and the curve's pieces.

    ``memo``: a dict shared by the calls that score one order (or set of orders) on
    several truths, keeping what depends on the order and times only. ``budgets``: the
    seconds at which the loss is scored too (:mod:`._budget_scoring`)."""
    order, loss, elapsed, success, overhead = _one(strategy, fitted, ranked, query, fold, i,
                                                   seed, unit, truth, chooser, memo)
    memo = {} if memo is None else memo
    best = int(np.lexsort((fold.times[i], -np.asarray(chooser)))[0])
    reference = float(success[best])
    shift = float(success.max()) - reference  # >= 0; 0 when chooser is the truth
    loss = loss - shift
    loss0 = reference - float(success.min())
    if "widths" not in memo:
        memo["widths"] = log_widths(elapsed, lo_hi)
    mil = _interval_mean(loss, loss0, memo["widths"], lo_hi)
    row = {
        "mil": float(np.mean(mil)),
        **{f"loss_at_{s}": float(np.mean(loss_at(loss, s))) for s in LOSS_STEPS},
        "first_success": float(np.mean(success[order[..., 0]])),
        "overhead": overhead, "loss0": loss0,
        "total_time": float(np.mean(elapsed[..., -1])),
        "pool_time": float(fold.times[i].sum()),
    }
    for t in times_at:
        if ("done", t) not in memo:
            memo[("done", t)] = (elapsed <= t).sum(axis=-1)
        row[_time_column(t)] = float(np.mean(_loss_after(loss, loss0, memo[("done", t)])))
    expected = None
    if loss.ndim == 2:  # the random baseline: exact where a closed form exists
        row["mil_se"] = float(np.std(mil, ddof=1) / np.sqrt(mil.size))
        closed = random_losses(success, chooser)  # after k = 1, 2, ... tests
        for s_ in LOSS_STEPS:
            row[f"loss_at_{s_}"] = float(closed[min(s_, closed.size) - 1]) - shift
        row["first_success"] = float(success.mean())
        expected = closed[:loss.shape[-1]] - shift
    if budget is not None:
        row["loss_at_budget"] = float(np.mean(
            loss_by_time(loss, elapsed * unit, loss0, budget)))
    # at budgets of seconds whatever the time axis: the recorded times, the overhead
    row.update(budget_figures(order, fold.times[i], overhead * unit, success, chooser,
                              budgets, memo))
    row["single_best_success"] = float(success[sb_first])
    row["oracle_success"] = reference
    curve = {"order": order, "loss": loss if expected is None else expected,
             "elapsed": elapsed if expected is None else elapsed.mean(axis=0),
             "overhead": overhead, "loss0": loss0, "random": expected is not None}
    return row, curve


def _mean_rows(rows) -> dict:
    """The mean of each figure over the ways a held-out dataset was scored (the random
    baseline's Monte-Carlo error: the mean of the ways' errors, an upper bound on the
    error of the mean)."""
    if len(rows) == 1:
        return rows[0]
    return {k: float(np.mean([r[k] for r in rows])) for k in rows[0]}


def _time_column(t):
    return f"loss_at_time_{t:g}"


def _one(strategy, fitted, ranked, query, kb, i, seed, unit=1.0, truth=None, chooser=None,
         memo=None):
    """One strategy on one held-out dataset: (order, loss, elapsed, success, overhead).

    ``fitted`` is the strategy fitted on the fold's training datasets, and ``ranked``
    its ranking of this dataset (static strategies). Times (tests and overhead) are
    divided by ``unit`` (the pool's time for a relative axis). The random baseline draws
    ``repeats`` seeded permutations at once: it never reads a result, so no test needs
    to go through :class:`HeldOut`. ``truth`` (default ``kb.success[i]``) is the
    success the tests find; ``chooser`` (default ``truth``) the success the oracle
    orders by (another repetition's, for an unseen one).
    """
    n = len(kb.algorithms)
    truth = kb.success[i] if truth is None else np.asarray(truth, dtype=np.float64)
    overhead = (strategy if fitted is None else fitted).overhead(query) / unit
    if isinstance(strategy, RandomOrder):
        success, times = truth.copy(), kb.times[i] / unit
        if memo is not None and "order" in memo:  # the orders of this dataset, drawn
            order, elapsed = memo["order"], memo["elapsed"]
            loss = success.max() - success[kept(order, chooser, success)]
            return order, loss, elapsed, success, overhead
        rng = np.random.default_rng(_seed(seed, i, 0))
        order = rng.permuted(np.tile(np.arange(n), (strategy.repeats, 1)), axis=1)
        loss, elapsed = loss_curve(success, times, order, overhead=overhead, chooser=chooser)
        if memo is not None:
            memo["order"], memo["elapsed"] = order, elapsed
        return order, loss, elapsed, success, overhead
    held = HeldOut(truth, kb.times[i])
    if strategy.needs_truth:
        revealed, times = held.reveal()
        order = strategy.rank_truth(revealed if chooser is None else chooser, times).order
        held.test_order(order)
    elif fitted.interactive:
        fitted.run(query, held.test)
        order = np.array(held.tested, dtype=np.int64)
    else:
        held.test_order(ranked.order)
        order = np.array(held.tested, dtype=np.int64)
    if order.shape[-1] != n or not np.all(np.sort(order.reshape(-1, n), axis=1) == np.arange(n)):
        raise ValueError(f"strategy {strategy.name!r} did not test every algorithm once.")
    success, times = held.reveal()
    loss, elapsed = loss_curve(success, times / unit, order, overhead=overhead,
                               chooser=chooser)
    return order, loss, elapsed, success, overhead


def _impute_times(kb, train):
    """``kb`` with the times of its failed cells imputed from the training datasets only.

    A failed (dataset, configuration) cell has no time of its own; the knowledge base
    imputes the configuration's median over all its datasets, the held-out one
    included. Within a fold it is the median over the training datasets (``train``,
    a mask) of the times that were recorded, for every row (1 ms when none was).
    """
    bad = getattr(kb, "imputed_times", None)
    if bad is None or not bad.any():
        return kb
    recorded = np.where(bad[train], np.nan, kb.times[train])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a configuration failed everywhere
        median = np.nanmedian(recorded, axis=0)
    times = np.where(bad, np.broadcast_to(median, kb.times.shape), kb.times)
    return dataclasses.replace(kb, times=np.where(times > 0, times, 1e-3))


def _seed(seed, i, r):
    return int(np.random.SeedSequence([seed, i, r]).generate_state(1)[0])


def _curve_columns(name, family, strategy, train, ways) -> dict:
    """The rows of one strategy's curve on one held-out dataset: its labels once, the
    algorithm of each step and the numbers as arrays (:func:`_curves_frame` makes the
    columns).

    ``ways``: the curve pieces of each way the dataset was scored (:func:`_score`); the
    curve is their mean, step by step, and a step's algorithm is named when every way
    tested the same one there (the random baseline: the expected curve, no algorithm).
    """
    first = ways[0]
    n = first["loss"].shape[-1]
    loss = np.mean([w["loss"] for w in ways], axis=0)
    elapsed = np.mean([w["elapsed"] for w in ways], axis=0)
    loss0 = float(np.mean([w["loss0"] for w in ways]))
    if first["random"]:
        algorithms = [None] * (n + 1)
    else:
        orders = np.array([w["order"] for w in ways])
        same = (orders == orders[0]).all(axis=0)
        names = [train.algorithms[j] if ok else None
                 for j, ok in zip(orders[0], same, strict=True)]
        # as a column of names: the steps that name none are missing (NaN)
        algorithms = [np.nan, *(np.nan if a is None else a for a in names)]
    return {"dataset": name, "family": family, "strategy": strategy.name,
            "algorithm": algorithms, "named": not first["random"],
            "step": np.arange(n + 1),
            "elapsed": np.concatenate([[first["overhead"]], elapsed]),
            "loss": np.concatenate([[loss0], loss])}


def _curves_frame(parts) -> pd.DataFrame:
    """One frame of every curve's rows: what concatenating one frame per curve gives
    (tested against that: the labels as strings, the algorithm a column of names with NaN
    where a step names none, or of objects with None for the random baseline's curves),
    each column made once instead of one Series per curve."""
    sizes = [p["step"].size for p in parts]
    out = {k: pd.Series(np.repeat(np.array([p[k] for p in parts], dtype=object), sizes)
                        .tolist())
           for k in ("dataset", "family", "strategy")}
    algorithms = [a for p in parts for a in p["algorithm"]]
    # a curve of None only (random) is a column of objects; concatenated with the others
    # the whole column is one of objects
    out["algorithm"] = (pd.Series(algorithms) if all(p["named"] for p in parts)
                        else pd.Series(algorithms, dtype=object))
    out.update({k: np.concatenate([p[k] for p in parts])
                for k in ("step", "elapsed", "loss")})
    return pd.DataFrame(out, columns=["dataset", "family", "strategy", "step", "algorithm",
                                      "elapsed", "loss"])
