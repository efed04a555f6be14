"""Leave-one-dataset-out evaluation of recommendation strategies, families held out whole.

For each dataset of a knowledge base, every dataset of its family (tasks cut from the
same base data: ecoli*, yeast*, ...) is removed from the training part; each strategy
then orders the algorithms for the held-out dataset, whose results it receives only
through a :class:`HeldOut` object, one test at a time, and only after choosing the test.
The loss curve of the order is computed once the order is complete.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from metaeval.recommend._condition import Condition
from metaeval.recommend._curves import (
    _check_range,
    loss_at,
    loss_by_time,
    loss_curve,
    mean_interval_loss,
)
from metaeval.recommend._knowledge import KnowledgeBase, describe_store
from metaeval.recommend._learners import Learner, uses_of
from metaeval.recommend._strategies import STRATEGIES, SingleBest, Strategy, get_strategy
from metaeval.recommend._summary import summarise

#: The default log-time interval of the mean interval loss (seconds).
DEFAULT_TIME_RANGE = (0.1, 1000.0)
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


@dataclass(frozen=True, eq=False)
class RecommenderEvaluation:
    """The outcome of :func:`evaluate_recommenders`.

    Attributes
    ----------
    condition : Condition
    time_range : (float, float)
        The log-time interval of the mean interval loss, seconds.
    strategies : tuple of str
    curves : DataFrame
        ``dataset, family, strategy, step, algorithm, elapsed, loss``; step 0 is the
        state before the first test (elapsed = description time, loss = :math:`L_0`).
        For ``random``, the mean over its seeded orders (algorithm is None).
    per_dataset : DataFrame
        ``dataset, family, strategy, mil, loss_at_1, loss_at_3, loss_at_5,
        first_success, overhead, loss0`` (and ``loss_at_budget`` under a time budget),
        plus ``single_best_success`` and ``oracle_success`` of the first picks.
    summary : DataFrame
        Per strategy: the means over held-out datasets with bootstrap intervals
        (``*_low``, ``*_high``) and the closed gap of the first pick.
    versus_random : DataFrame
        Per strategy: mean MIL difference to ``random`` (positive = better than random),
        its bootstrap interval, and the Wilcoxon signed-rank p-value.
    critical_difference : CriticalDifferenceData or None
        Friedman and Nemenyi over the held-out datasets, on MIL.
    notes : tuple of str
    """

    condition: Condition
    time_range: tuple
    strategies: tuple
    curves: pd.DataFrame
    per_dataset: pd.DataFrame
    summary: pd.DataFrame
    versus_random: pd.DataFrame
    critical_difference: object
    notes: tuple = field(default=())

    def to_json(self) -> dict:
        """The ``metaeval recommend --evaluate --json`` document."""
        strategies = {}
        for row in self.summary.itertuples(index=False):
            r = row._asdict()
            strategies[r["strategy"]] = {
                "mil": _num(r["mil"]),
                "loss_at": {str(k): _num(r[f"loss_at_{k}"]) for k in LOSS_STEPS},
                "closed_gap": _num(r["closed_gap"]),
                "intervals": {
                    name: [_num(r[f"{name}_low"]), _num(r[f"{name}_high"])]
                    for name in ("mil", *(f"loss_at_{k}" for k in LOSS_STEPS), "closed_gap")
                },
            }
        curves = self.curves[["dataset", "strategy", "step", "algorithm", "elapsed", "loss"]]
        cd = self.critical_difference
        return {
            "condition": {**self.condition.to_dict(), "time_range": list(self.time_range)},
            "strategies": strategies,
            "curves": [
                {k: (_num(v) if isinstance(v, float) else v) for k, v in rec.items()}
                for rec in curves.to_dict(orient="records")
            ],
            "n_datasets": int(self.per_dataset["dataset"].nunique()),
            "friedman": None if cd is None else {
                "p_value": _num(cd.friedman.p_value),
                "cd": _num(cd.cd),
                "average_ranks": dict(zip(cd.average_ranks["algorithm"],
                                          map(_num, cd.average_ranks["score"]), strict=True)),
                "groups": [list(g) for g in cd.groups],
            },
            "notes": list(self.notes),
        }


def _num(v):
    v = float(v)
    return v if np.isfinite(v) else None


def evaluate_recommenders(
    source,
    condition=None,
    *,
    strategies=None,
    k=5,
    n_random=100,
    time_range=DEFAULT_TIME_RANGE,
    n_boot=1000,
    alpha=0.05,
    seed=0,
    describe=False,
    clock="wall",
    folds=None,
) -> RecommenderEvaluation:
    """Leave-one-dataset-out evaluation of recommendation strategies.

    For each held-out dataset (its whole family removed from training), each strategy
    gives the order of tests; the loss after each test is the success of the best
    algorithm on that dataset minus that of the best algorithm tested so far, and its
    time axis adds the tests' times to the time spent describing the dataset.

    Parameters
    ----------
    source : KnowledgeBase, Store or path
        A store is read under ``condition`` (:meth:`KnowledgeBase.from_store`).
    condition : Condition, optional
        Default: the knowledge base's own (or accuracy with P = 0 for a store). With a
        knowledge base, only ``time_weight`` and ``time_budget`` may differ from the
        condition its success was computed under.
    strategies : sequence of str or Strategy, optional
        Default: every strategy of :data:`STRATEGIES` whose inputs exist (strategies
        needing meta-features are skipped, with a note, when the store has none).
    k : int, default=5
        Neighbours of ``knn-metafeatures`` and ``cost-landmarking``.
    n_random : int, default=100
        Seeded orders averaged for ``random``.
    time_range : (float, float), default=(0.1, 1000.0)
        Log-time interval (seconds) of the mean interval loss.
    n_boot : int, default=1000
        Bootstrap resamples of the held-out datasets for the intervals.
    alpha : float, default=0.05
        1 - coverage of the intervals; level of the Nemenyi test.
    seed : int, default=0
    describe : bool, default=False
        With a store as ``source``: describe (pymfe and landmarkers) the datasets not
        yet described and cache them in the store before reading it, when a strategy
        needs them.
    clock : {"wall", "cpu"}, default="wall"
        With a store as ``source``: which recorded time of the tests and descriptions.
    folds : array-like of shape (n_datasets,), optional
        Outer fold of each dataset of the knowledge base (e.g. an ASlib scenario's
        ``cv.arff``): a held-out dataset is recommended for from the datasets of the
        other folds only. Default: its family (leave-one-family-out).

    Returns
    -------
    RecommenderEvaluation

    Raises
    ------
    ValueError
        Fewer than 3 datasets or 2 families, an unknown strategy, a strategy whose
        inputs the knowledge base lacks, a condition the knowledge base was not scored
        under.

    References
    ----------
    Abdulrahman, Brazdil, van Rijn & Vanschoren (2018), Machine Learning 107:79-108
    (loss-time curves, mean interval loss); Leite, Brazdil & Vanschoren (2012);
    Demšar (2006), JMLR 7 (Friedman and Nemenyi).

    Examples
    --------
    >>> kb = KnowledgeBase(["d1", "d2", "d3", "d4"], ["A", "B", "C"],
    ...                    success=[[.9, .8, .7], [.8, .9, .7], [.9, .7, .8], [.9, .8, .6]],
    ...                    times=[[1, 2, 3]] * 4)
    >>> ev = evaluate_recommenders(kb, strategies=["single-best", "oracle"], n_boot=10)
    >>> ev.summary.set_index("strategy").loc["oracle", "loss_at_1"]
    np.float64(0.0)
    """
    if describe and not isinstance(source, KnowledgeBase):
        names = list(STRATEGIES) if strategies is None else strategies
        names = [names] if isinstance(names, (str, Strategy)) else names
        if any(get_strategy(n).uses is not None for n in names if n not in ("random",)):
            describe_store(source)
    kb, condition = _knowledge(source, condition, clock)
    lo_hi = _check_range(time_range)
    chosen, notes = _strategies(strategies, kb, k, n_random)
    if len(kb.datasets) < 3:
        raise ValueError(f"the knowledge base holds {len(kb.datasets)} dataset(s); "
                         "leave-one-dataset-out needs at least 3.")
    families = np.array(kb.families, dtype=object)
    if folds is None:
        groups = families
    else:
        groups = np.asarray(folds, dtype=object)
        if groups.shape != (len(kb.datasets),):
            raise ValueError(f"folds must give one fold per dataset ({len(kb.datasets)}), "
                             f"got shape {groups.shape}.")
    if np.unique(groups).size < 2:
        raise ValueError("every dataset belongs to one family (or fold); holding it out "
                         "would leave nothing to learn from.")
    curve_rows, metric_rows = [], []
    single_best = SingleBest()
    for i, name in enumerate(kb.datasets):
        train = kb.subset(groups != groups[i])
        query = kb.query(i)
        for strategy in chosen:
            order, loss, elapsed, success, overhead = _one(strategy, train, query, condition,
                                                          kb, i, seed)
            loss0 = float(success.max() - success.min())
            row = {
                "dataset": name, "family": families[i], "strategy": strategy.name,
                "mil": float(np.mean(mean_interval_loss(loss, elapsed, loss0, lo_hi))),
                **{f"loss_at_{s}": float(np.mean(loss_at(loss, s))) for s in LOSS_STEPS},
                "first_success": float(np.mean(success[order[..., 0]])),
                "overhead": overhead, "loss0": loss0,
                "total_time": float(np.mean(elapsed[..., -1])),
            }
            if condition.time_budget is not None:
                row["loss_at_budget"] = float(np.mean(
                    loss_by_time(loss, elapsed, loss0, condition.time_budget)))
            metric_rows.append(row)
            curve_rows.append(_curve_frame(name, families[i], strategy, train, order, loss,
                                           elapsed, overhead, loss0))
        sb_first = single_best.rank(train, query, condition).order[0]
        for row in metric_rows[-len(chosen):]:
            row["single_best_success"] = float(kb.success[i, sb_first])
            row["oracle_success"] = float(kb.success[i].max())
    per_dataset = pd.DataFrame(metric_rows)
    curves = pd.concat(curve_rows, ignore_index=True)
    summary, versus, cd = summarise(per_dataset, [s.name for s in chosen], n_boot=n_boot,
                                    alpha=alpha, seed=seed)
    return RecommenderEvaluation(condition, lo_hi, tuple(s.name for s in chosen), curves,
                                 per_dataset, summary, versus, cd, tuple(kb.notes) + notes)


def _knowledge(source, condition, clock="wall"):
    if isinstance(source, KnowledgeBase):
        kb = source
        if condition is None:
            condition = kb.condition or Condition()
        elif kb.condition is not None:
            same = ("measure", "cost", "cost_beta", "threshold")
            if any(getattr(kb.condition, f) != getattr(condition, f) for f in same):
                raise ValueError(
                    f"the knowledge base was scored under {kb.condition.label!r}; it cannot "
                    f"be evaluated under {condition.label!r} (read the store again)."
                )
        if not isinstance(condition, Condition):
            raise ValueError(f"condition must be a Condition, got {condition!r}.")
        return kb, condition
    condition = Condition() if condition is None else condition
    return KnowledgeBase.from_store(source, condition, clock=clock), condition


def _strategies(strategies, kb, k, n_random):
    notes = []
    explicit = strategies is not None
    names = list(STRATEGIES) if strategies is None else strategies
    if isinstance(names, (str, Strategy)):
        names = [names]
    chosen = []
    for name in names:
        params = {}
        if name in ("knn-metafeatures", "cost-landmarking"):
            params = {"k": k}
        elif name == "random":
            params = {"repeats": n_random}
        strategy = get_strategy(name, **params)
        available = {"metafeatures": kb.metafeatures, "landmarks": kb.landmarks}
        uses = uses_of(strategy)
        missing = [u for u in uses if available[u] is None]
        if isinstance(name, str) and isinstance(strategy, Learner) and len(missing) < len(uses):
            strategy = get_strategy(name, **params,  # a learner uses what is described
                                    features=[u for u in uses if u not in missing])
            missing = []
        if missing:
            why = (f"{strategy.name} needs {' and '.join(missing)} of every dataset, and the "
                   "knowledge base has none (describe the store's datasets first)")
            if explicit:
                raise ValueError(why + ".")
            notes.append("skipped " + why)
            continue
        chosen.append(strategy)
    if not chosen:
        raise ValueError("no strategy to evaluate.")
    if len({s.name for s in chosen}) != len(chosen):
        raise ValueError("strategies must not repeat a name.")
    return chosen, tuple(notes)


def _one(strategy, train, query, condition, kb, i, seed):
    """One strategy on one held-out dataset: (order, loss, elapsed, success, overhead)."""
    n = len(kb.algorithms)
    overhead = strategy.overhead(query)
    if strategy.needs_truth:
        held = HeldOut(kb.success[i], kb.times[i])
        order = strategy.rank_truth(*held.reveal()).order
        held.test_order(order)
    elif strategy.interactive:
        held = HeldOut(kb.success[i], kb.times[i])
        strategy.run(train, query, condition, held.test)
        order = np.array(held.tested, dtype=np.int64)
    else:
        repeats = getattr(strategy, "repeats", 1)
        orders = []
        for r in range(repeats):
            held = HeldOut(kb.success[i], kb.times[i])
            ranked = strategy.rank(train, query, condition, seed=_seed(seed, i, r))
            held.test_order(ranked.order)
            orders.append(np.array(held.tested, dtype=np.int64))
        order = orders[0] if repeats == 1 else np.stack(orders)
    if order.shape[-1] != n or not np.all(np.sort(order.reshape(-1, n), axis=1) == np.arange(n)):
        raise ValueError(f"strategy {strategy.name!r} did not test every algorithm once.")
    success, times = held.reveal()
    loss, elapsed = loss_curve(success, times, order, overhead=overhead)
    return order, loss, elapsed, success, overhead


def _seed(seed, i, r):
    return int(np.random.SeedSequence([seed, i, r]).generate_state(1)[0])


def _curve_frame(name, family, strategy, train, order, loss, elapsed, overhead, loss0):
    n = loss.shape[-1]
    if loss.ndim == 2:  # random: the mean curve over the seeded orders
        loss, elapsed, algorithms = loss.mean(axis=0), elapsed.mean(axis=0), [None] * n
    else:
        algorithms = [train.algorithms[j] for j in order]
    return pd.DataFrame({
        "dataset": name, "family": family, "strategy": strategy.name,
        "step": np.arange(n + 1),
        "algorithm": [None, *algorithms],
        "elapsed": np.concatenate([[overhead], elapsed]),
        "loss": np.concatenate([[loss0], loss]),
    })


def sweep_time_weight(source, condition=None, time_weights=(0, 1 / 256, 1 / 64, 1 / 16, 1 / 4),
                      *, strategies=("average-ranking", "active-testing"), **kwargs):
    """Evaluate strategies at several A3R time weights P; one summary row per (P, strategy).

    Parameters
    ----------
    source, condition
        As in :func:`evaluate_recommenders` (the condition's own P is replaced).
    time_weights : sequence of float
    strategies : sequence of str
    **kwargs
        Passed to :func:`evaluate_recommenders`.

    Returns
    -------
    DataFrame
        ``time_weight`` followed by the columns of :attr:`RecommenderEvaluation.summary`.

    Examples
    --------
    With P = 1 the fast algorithm B comes first and the slow, more accurate A second:

    >>> kb = KnowledgeBase(["d1", "d2", "d3"], ["A", "B"], [[.9, .8]] * 3, [[100, 1]] * 3)
    >>> out = sweep_time_weight(kb, time_weights=(0, 1), strategies=["average-ranking"],
    ...                         n_boot=5, time_range=(1, 1000))
    >>> out[["time_weight", "loss_at_1"]].round(2).values.tolist()
    [[0.0, 0.0], [1.0, 0.1]]
    """
    kb, condition = _knowledge(source, condition)
    frames = []
    for p in time_weights:
        ev = evaluate_recommenders(kb, condition.replace(time_weight=p),
                                   strategies=strategies, **kwargs)
        frames.append(ev.summary.assign(time_weight=float(p)))
    out = pd.concat(frames, ignore_index=True)
    return out[["time_weight", *[c for c in out.columns if c != "time_weight"]]]
