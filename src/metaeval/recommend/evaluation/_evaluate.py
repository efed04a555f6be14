"""Leave-one-dataset-out evaluation of recommendation strategies, families held out whole.

For each dataset of a knowledge base, every dataset of its family (tasks cut from the
same base data: ecoli*, yeast*, ...) is removed from the training part; each strategy
then orders the algorithms for the held-out dataset, whose results it receives only
through a :class:`HeldOut` object, one test at a time, and only after choosing the test.
The loss curve of the order is computed once the order is complete.

With several repetitions of the cross-validation in the knowledge base (new folds and
seeds), a held-out dataset is scored on a repetition no choice saw: for each
repetition r, its truth is repetition r, while every choice is made on the other
repetitions (their mean) -- the oracle's order, with it the reference of the loss ("the
best algorithm"), and after each test the algorithm kept, the best of those tested so
far, as a user's own cross-validation would pick it -- and scored on r; the figures are
averaged over the repetitions r. The oracle then pays its own noise, as every strategy
does (they learn from the training datasets' mean over repetitions); its losses are 0,
and a strategy's loss can be negative: one that keeps an algorithm better on r than the
oracle's pick. ``scored_on="same repetition"`` scores on the mean success, every choice
made on the truth itself (loss >= 0), as with one repetition.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from metaeval._validation import json_records
from metaeval.recommend._condition import Condition
from metaeval.recommend._curves import _check_range
from metaeval.recommend.evaluation._budget_scoring import (
    BUDGET_BASELINE,
    BUDGETS,
    baseline_budget_figures,
    budget_baseline_orders,
    budget_column,
    check_budgets,
    compare_at_budgets,
    summarise_budgets,
)
from metaeval.recommend.evaluation._parallel import _folds_in_workers, _n_jobs
from metaeval.recommend.evaluation._scoring import (  # noqa: F401 (HeldOut: the public name's home)
    LOSS_STEPS,
    HeldOut,
    _curve_columns,
    _curves_frame,
    _impute_times,
    _mean_rows,
    _score,
    _seed,
    _ways,
)
from metaeval.recommend.evaluation._summary import (
    compare_strategies,
    primary_comparisons,
    summarise,
)
from metaeval.recommend.knowledge._archive import KnowledgeArchive
from metaeval.recommend.knowledge._knowledge import KnowledgeBase, describe_store
from metaeval.recommend.learners._auto import Auto
from metaeval.recommend.learners._learners import Learner, uses_of
from metaeval.recommend.learners._registry import STRATEGIES, get_strategy
from metaeval.recommend.learners._strategies import RandomOrder, SingleBest, Strategy

#: The default log-time interval of the mean interval loss, as fractions of the whole
#: pool's time on the held-out dataset (``time_axis="relative"``).
DEFAULT_TIME_RANGE = (0.01, 1.0)
#: The default interval in seconds (``time_axis="seconds"``).
DEFAULT_SECONDS_RANGE = (0.1, 1000.0)
#: Fractions of the pool's time at which the loss is reported (relative time axis).
LOSS_TIMES = (0.01, 0.1, 1.0)
#: How a held-out dataset is scored (see the module's text).
SCORED_ON = ("unseen repetition", "same repetition")
#: The baselines every strategy is compared with (those evaluated): the time-blind and
#: the time-aware single best, the fast-first order, the random order.
BASELINES = ("single-best", "single-best-a3r", "fast-first", "random")
#: Datasets of at least this many rows are counted in the evaluation's JSON.
LARGE_ROWS = 5000


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
    time_axis : {"relative", "seconds"}
        ``"relative"``: times are fractions of the pool's time on each held-out dataset.
    clock : {"cpu", "wall"}
    n_algorithms : int
    comparisons : DataFrame or None
        Every paired comparison the evaluation makes (each strategy against each
        evaluated baseline of :data:`BASELINES`: the time-blind and the time-aware single
        best, the fast-first and the random order, on loss@1 and MIL), families
        resampled. The pre-registered primary comparisons (:func:`primary_comparisons`:
        at P = 0 ``auto`` and each learner against the single best on loss@1; at P > 0
        ``auto`` against the time-aware single best on loss@1 and MIL) and the
        exploratory rest are Holm-corrected each within its own family (column
        ``family``; :func:`compare_strategies`).
    scored_on : {"unseen repetition", "same repetition"}
        How held-out datasets were scored (:func:`evaluate_recommenders`).
    n_repetitions : int
        Repetitions of the cross-validation in the knowledge base.
    n_families : int
        Dataset families held out.
    n_datasets_5000_rows : int
        Held-out datasets of at least 5000 rows.
    budgets : tuple of float
        The budgets (seconds per held-out dataset) at which the orders were scored
        (:mod:`~metaeval.recommend.evaluation._budget_scoring` says what counts).
    budget_per_dataset : DataFrame or None
        ``dataset, family, strategy`` and the loss at each budget
        (``loss_within_1s``, ...) of every strategy evaluated and of the baseline
        ``single-best-budget`` (the best configuration that fits the budget by the
        training data first).
    budget_summary : DataFrame or None
        ``strategy, budget, loss, low, high, n_datasets``: the mean loss at each budget
        with its bootstrap interval (families resampled).
    budget_comparisons : DataFrame or None
        ``auto`` against the time-aware single best at each budget (primary) and against
        ``single-best-budget`` (exploratory), as :attr:`comparisons`.
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
    time_axis: str = "seconds"
    clock: str = "cpu"
    n_algorithms: int = 0
    comparisons: pd.DataFrame | None = None
    scored_on: str = "same repetition"
    n_repetitions: int = 1
    n_families: int = 0
    n_datasets_5000_rows: int = 0
    budgets: tuple = ()
    budget_per_dataset: pd.DataFrame | None = None
    budget_summary: pd.DataFrame | None = None
    budget_comparisons: pd.DataFrame | None = None

    def chosen(self, strategy="auto") -> dict:
        """How many held-out datasets ``auto`` ranked with each strategy it chose on their
        fold's training datasets ({} for another strategy)."""
        if "chosen" not in self.per_dataset.columns:
            return {}
        rows = self.per_dataset[self.per_dataset["strategy"] == strategy]["chosen"].dropna()
        return {str(k): int(v) for k, v in rows.value_counts().sort_index().items()}

    def to_json(self) -> dict:
        """The ``metaeval recommend --evaluate --json`` document."""
        strategies = {}
        # records, not named tuples: a named tuple renames the columns whose names hold
        # a "." (the loss at 1 % and 10 % of the time)
        for r in self.summary.to_dict(orient="records"):
            times = [t for t in LOSS_TIMES if f"loss_at_time_{t:g}" in r]
            strategies[r["strategy"]] = {
                "mil": _num(r["mil"]),
                "loss_at": {str(k): _num(r[f"loss_at_{k}"]) for k in LOSS_STEPS},
                "loss_at_time": {f"{t:g}": _num(r[f"loss_at_time_{t:g}"]) for t in times},
                "closed_gap": _num(r["closed_gap"]),
                "first_success": _num(r["first_success"]),
                "intervals": {
                    name: [_num(r[f"{name}_low"]), _num(r[f"{name}_high"])]
                    for name in ("mil", *(f"loss_at_{k}" for k in LOSS_STEPS),
                                 *(f"loss_at_time_{t:g}" for t in times), "closed_gap")
                },
            }
            if "mil_se" in r and r["mil_se"] == r["mil_se"]:
                strategies[r["strategy"]]["mil_monte_carlo_se"] = _num(r["mil_se"])
            chosen = self.chosen(r["strategy"])
            if chosen:
                strategies[r["strategy"]]["chosen"] = chosen
        curves = self.curves[["dataset", "strategy", "step", "algorithm", "elapsed", "loss"]]
        cd = self.critical_difference
        return {
            "condition": {**self.condition.to_dict(), "time_range": list(self.time_range)},
            "strategies": strategies,
            "curves": json_records(curves),
            "n_datasets": int(self.per_dataset["dataset"].nunique()),
            "n_algorithms": int(self.n_algorithms),
            "n_repetitions": int(self.n_repetitions),
            "n_families": int(self.n_families),
            "n_datasets_5000_rows": int(self.n_datasets_5000_rows),
            "scored_on": self.scored_on,
            "clock": self.clock,
            "time_axis": self.time_axis,
            "loss_before_first_test": "the loss of the worst algorithm of the pool (best "
                                      "minus worst success): nothing is in hand yet",
            "loss_reference": (
                "the success on the scored repetition of the algorithm best on the other "
                "repetitions (the oracle's first pick) minus that of the algorithm kept, "
                "the best tested so far on the other repetitions: the oracle's losses are "
                "0, a strategy's can be negative"
                if self.scored_on == SCORED_ON[0] else
                "the best success on the held-out dataset (losses are >= 0)"),
            "comparisons": [] if self.comparisons is None else [
                {k: (_num(v) if isinstance(v, float) else v) for k, v in rec.items()}
                for rec in self.comparisons.to_dict(orient="records")],
            "friedman": None if cd is None else {
                "p_value": _num(cd.friedman.p_value),
                "cd": _num(cd.cd),
                "average_ranks": dict(zip(cd.average_ranks["algorithm"],
                                          map(_num, cd.average_ranks["score"]), strict=True)),
                "groups": [list(g) for g in cd.groups],
            },
            "budgets": self._budgets_json(),
            "notes": list(self.notes),
        }

    def _budgets_json(self) -> dict | None:
        """The losses at budgets: every column of :attr:`budget_summary` and of
        :attr:`budget_comparisons`, as records."""
        if not self.budgets or self.budget_summary is None:
            return None
        records = self.budget_summary.to_dict(orient="records")
        comparisons = self.budget_comparisons
        return {
            "seconds": [float(b) for b in self.budgets],
            "clock": self.clock,
            "rule": BUDGET_RULE,
            "summary": [{k: (_num(v) if isinstance(v, float) else v) for k, v in r.items()}
                        for r in records],
            "comparisons": [] if comparisons is None else [
                {k: (_num(v) if isinstance(v, float) else v) for k, v in rec.items()}
                for rec in comparisons.to_dict(orient="records")],
        }


#: What the loss at a budget is, in words (the JSON's and the command's).
BUDGET_RULE = (
    "the strategy's order run with the recorded time of each configuration on the held-out "
    "dataset, after the strategy's own description time: a configuration that does not "
    "fit in what is left of the budget is skipped (as recommend --budget skips one "
    "predicted not to fit) and the next is tried; the loss is the success, on the scored "
    "repetition, of the configuration the oracle runs within the budget (the best on the "
    "other repetitions among those that fit it) minus that of the one kept, the best on "
    "the other repetitions of those run (minus the pool's worst when none ran): the "
    "oracle's is 0")


def _num(v):
    v = float(v)
    return v if np.isfinite(v) else None


def evaluate_recommenders(
    source,
    condition=None,
    *,
    strategies=None,
    k=None,
    n_random=10_000,
    time_range=None,
    n_boot=1000,
    alpha=0.05,
    seed=0,
    describe=False,
    clock="cpu",
    folds=None,
    time_axis="relative",
    compare=True,
    scored_on=None,
    n_jobs=None,
    budgets=BUDGETS,
    progress=None,
) -> RecommenderEvaluation:
    """Leave-one-dataset-out evaluation of recommendation strategies.

    For each held-out dataset (its whole family removed from training), each strategy
    gives the order of tests; the loss after each test is the success of the best
    algorithm on that dataset minus that of the best algorithm tested so far, and its
    time axis adds the tests' times to the time spent describing the dataset.

    Parameters
    ----------
    source : KnowledgeArchive, KnowledgeBase, Store or path
        An archive (such as :func:`load_knowledge`'s) or a store is read under
        ``condition`` (:meth:`KnowledgeArchive.knowledge_base`,
        :meth:`KnowledgeBase.from_store`).
    condition : Condition, optional
        Default: the knowledge base's own (or accuracy with P = 0 for a store). With a
        knowledge base, only ``time_weight`` and ``time_budget`` may differ from the
        condition its success was computed under.
    strategies : sequence of str or Strategy, optional
        Default: every strategy of :data:`STRATEGIES` whose inputs exist (strategies
        needing meta-features are skipped, with a note, when the store has none).
    k : int, optional
        Neighbours of ``knn-metafeatures`` and ``cost-landmarking``. Default: each
        strategy's own (``knn-metafeatures`` chooses k among 20, 10, 5, 3 and 1 by an
        inner leave-one-family-out with the one-standard-error rule toward more
        neighbours; ``cost-landmarking`` uses 5).
    n_random : int, default=10000
        Seeded random orders behind the random baseline's mean interval loss and loss at
        a time (their Monte-Carlo standard error is reported); its loss after ``k``
        tests is exact (closed form), whatever ``n_random``.
    time_range : (float, float), optional
        Log-time interval of the mean interval loss: fractions of the pool's time
        (default (0.01, 1): from 1 % of the time the whole pool takes on the held-out
        dataset to all of it) or seconds (default (0.1, 1000)), as ``time_axis`` says.
    time_axis : {"relative", "seconds"}, default="relative"
        ``"relative"``: each held-out dataset's times (tests and description) are
        divided by the total time of every algorithm of the pool on it, so curves and
        MIL compare across datasets and machines; ``"seconds"``: as recorded.
    compare : bool, default=True
        Paired comparisons of every strategy with the baselines evaluated (the
        time-blind and time-aware single best, the fast-first and the random order),
        families resampled, Holm-corrected (:attr:`RecommenderEvaluation.comparisons`).
    scored_on : {"unseen repetition", "same repetition"}, optional
        Default: ``"unseen repetition"`` when the knowledge base holds R >= 2 repetitions
        of the cross-validation (:attr:`KnowledgeBase.repetitions`), else ``"same
        repetition"`` (``"unseen"`` and ``"same"`` are accepted too). Unseen: each
        held-out dataset is scored R times, its truth being repetition r and the oracle
        (the loss's reference: the best algorithm) chosen on the mean of the other
        repetitions, then scored on r; each per-dataset figure is the mean over r, and
        each curve the mean over r (``algorithm`` None at a step where the orders
        differ). The strategies learn from the training datasets' mean over
        repetitions either way. Losses may then be negative (an algorithm kept better on
        r than the oracle's pick), and so may MIL; the oracle's are 0. Same: scored on
        the mean success, the figures of a single repetition.
    n_boot : int, default=1000
        Bootstrap resamples of the held-out datasets for the intervals.
    n_jobs : int, optional
        Worker processes over which the outer folds (families, or ``folds``) are spread,
        each fitting every strategy on its training datasets and scoring its held-out
        ones, with one BLAS/OpenMP thread (as the folds run without workers); the
        figures are the same for any number. scikit-learn's convention: None is 1
        unless an enclosing ``joblib.parallel_config`` sets ``n_jobs``, -1 is every
        usable core, -2 all but one.
    alpha : float, default=0.05
        1 - coverage of the intervals; level of the Nemenyi test.
    seed : int, default=0
    describe : bool, default=False
        With a store as ``source``: describe (pymfe and landmarkers) the datasets not
        yet described and cache them in the store before reading it, when a strategy
        needs them.
    clock : {"cpu", "wall"}, default="cpu"
        With a store as ``source``: which recorded time of the tests and descriptions.
    folds : array-like of shape (n_datasets,), optional
        Outer fold of each dataset of the knowledge base (e.g. an ASlib scenario's
        ``cv.arff``): a held-out dataset is recommended for from the datasets of the
        other folds only. Default: its family (leave-one-family-out).
    budgets : sequence of float or None, default=BUDGETS
        Seconds per held-out dataset (1, 10, 60 and 600 by default) at which every
        order is scored too, with the baseline ``single-best-budget``
        (:mod:`~metaeval.recommend.evaluation._budget_scoring`: the skip rule, the loss, the
        reference); None or () for none.
    progress : callable, optional
        Called as ``progress(done, total)`` in the calling process each time the
        evaluation of an outer fold ends (``total``: the folds), e.g. to show progress;
        it changes nothing else.

    Returns
    -------
    RecommenderEvaluation

    Raises
    ------
    ValueError
        Fewer than 3 datasets or 2 families, an unknown strategy, a strategy whose
        inputs the knowledge base lacks, a condition the knowledge base was not scored
        under, an ``n_jobs`` that is not a nonzero integer or None.
    WorkerLostError
        A worker process (``n_jobs`` other than 1) was killed by the system, most often
        for want of memory: nothing is returned; fewer workers may do.

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
    _n_jobs(n_jobs, 1)  # checked before any work
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a callable or None, got {progress!r}.")
    if describe and not isinstance(source, (KnowledgeBase, KnowledgeArchive)):
        names = list(STRATEGIES) if strategies is None else strategies
        names = [names] if isinstance(names, (str, Strategy)) else names
        if any(get_strategy(n).uses is not None for n in names if n not in ("random",)):
            describe_store(source)
    kb, condition = _knowledge(source, condition, clock)
    scored_on = _scored_on(scored_on, kb)
    unseen = scored_on == SCORED_ON[0]
    if time_axis not in ("relative", "seconds"):
        raise ValueError(f"time_axis must be 'relative' or 'seconds', got {time_axis!r}.")
    relative = time_axis == "relative"
    if time_range is None:
        time_range = DEFAULT_TIME_RANGE if relative else DEFAULT_SECONDS_RANGE
    lo_hi = _check_range(time_range)
    budgets = check_budgets(budgets)
    if isinstance(n_random, bool) or not isinstance(n_random, (int, np.integer)) \
            or n_random < 1:
        raise ValueError(f"n_random must be a positive integer, got {n_random!r}.")
    chosen, notes = _strategies(strategies, kb, k, n_random, _describe_hint(source))
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
    times_at = LOSS_TIMES if relative else ()
    order = list(dict.fromkeys(groups))  # each fold once: fit, then rank all its datasets
    work = {"kb": kb, "groups": groups, "families": families, "chosen": chosen,
            "condition": condition, "seed": seed, "unseen": unseen, "relative": relative,
            "lo_hi": lo_hi, "times_at": times_at, "budgets": budgets}
    n_jobs = _n_jobs(n_jobs, len(order))
    if n_jobs == 1:  # no pool: the folds in turn, in this process
        from threadpoolctl import threadpool_limits

        done = []
        with threadpool_limits(limits=1):  # as in a worker (the same sums)
            for group in order:
                done.append(_fold(group, **work))
                if progress is not None:
                    progress(len(done), len(order))
    else:
        done = _folds_in_workers(_fold, order, work, n_jobs, progress)
    rows_of, curves_of, extra_of = {}, {}, {}
    for fold_rows in done:
        for i, rows, parts, extra in fold_rows:
            rows_of[i], curves_of[i], extra_of[i] = rows, parts, extra
    metric_rows = [r for i in range(len(kb.datasets)) for r in rows_of[i]]
    curve_rows = [c for i in range(len(kb.datasets)) for c in curves_of[i]]
    per_dataset = pd.DataFrame(metric_rows)
    curves = _curves_frame(curve_rows)
    names = [s.name for s in chosen]
    summary, versus, cd = summarise(per_dataset, names, n_boot=n_boot, alpha=alpha,
                                    seed=seed)
    comparisons = (compare_strategies(
        per_dataset, names, n_boot=n_boot, alpha=alpha, seed=seed, baselines=BASELINES,
        primary=primary_comparisons(names, condition.time_weight)) if compare else None)
    at_budgets = budget_frame = budget_comparisons = None
    if budgets:
        keep = ["dataset", "family", "strategy", *(budget_column(b) for b in budgets)]
        budget_frame = pd.concat(
            [per_dataset[keep], pd.DataFrame([r for i in range(len(kb.datasets))
                                              for r in extra_of[i]], columns=keep)],
            ignore_index=True)
        at_budgets = summarise_budgets(budget_frame, [*names, BUDGET_BASELINE], budgets,
                                       n_boot=n_boot, alpha=alpha, seed=seed)
        budget_comparisons = (compare_at_budgets(budget_frame, budgets, n_boot=n_boot,
                                                 alpha=alpha, seed=seed)
                              if compare else None)
    return RecommenderEvaluation(condition, lo_hi, tuple(names), curves, per_dataset,
                                 summary, versus, cd, tuple(kb.notes) + notes,
                                 time_axis=time_axis, clock=clock,
                                 n_algorithms=len(kb.algorithms), comparisons=comparisons,
                                 scored_on=scored_on, n_repetitions=kb.n_repetitions,
                                 n_families=len(set(kb.families)),
                                 n_datasets_5000_rows=int(np.sum(kb.n_instances
                                                                 >= LARGE_ROWS)),
                                 budgets=budgets, budget_per_dataset=budget_frame,
                                 budget_summary=at_budgets,
                                 budget_comparisons=budget_comparisons)


def _fold(group, *, kb, groups, families, chosen, condition, seed, unseen, relative, lo_hi,
          times_at, budgets=()) -> list:
    """One outer fold: every strategy fitted once on the datasets outside ``group``, then
    each of the group's datasets ranked and scored; ``[(i, rows, curve parts, budget
    baseline rows)]`` in the datasets' order. The seeds come from the fold's first
    dataset (and the held-out dataset), so a fold gives the same in a worker process as
    in the caller's."""
    members = np.flatnonzero(groups == group)
    mask = groups != group
    fold = _impute_times(kb, mask)
    train = fold.subset(mask)
    fold_seed = _seed(seed, int(members[0]), 0)
    queries = [fold.query(i) for i in members]
    fitted, cache = {}, {}
    for strategy in sorted(chosen, key=lambda s: isinstance(s, Auto)):  # auto last
        if isinstance(strategy, RandomOrder) or strategy.needs_truth:
            continue
        extra = {"prefitted": cache} if isinstance(strategy, Auto) else {}
        f = strategy.fit(train, condition, seed=None if strategy.interactive else fold_seed,
                         **extra)
        cache[repr(strategy)] = f
        fitted[strategy.name] = (f, None if f.interactive else f.ranked(queries))
    sb_first = SingleBest().fit(train, condition).rank(queries[0]).order[0]
    # the baseline at budgets: its order at each budget, from the training datasets
    budget_orders = (budget_baseline_orders(train.success, train.times, budgets)
                     if budgets else None)
    out = []
    for m, i in enumerate(members):
        name = kb.datasets[i]
        unit = float(fold.times[i].sum()) if relative else 1.0
        ways = _ways(kb, i, unseen)
        rows, parts = [], []
        for strategy in chosen:
            f, ranked = fitted.get(strategy.name, (None, None))
            # the random orders, and a static strategy's order, and their times are the
            # same whatever the truth: drawn and measured once for the ways of scoring
            memo = {} if isinstance(strategy, RandomOrder) or ranked is not None else None
            scored = [_score(strategy, f, None if ranked is None else ranked[m],
                             queries[m], fold, i, seed, unit, truth, chooser, lo_hi,
                             times_at, condition.time_budget, sb_first, memo, budgets)
                      for truth, chooser in ways]
            row = {"dataset": name, "family": families[i], "strategy": strategy.name,
                   **_mean_rows([r for r, _ in scored])}
            ends = {k: row.pop(k) for k in ("single_best_success", "oracle_success")}
            if isinstance(strategy, Auto):  # the strategy it chose on this fold
                row["chosen"] = f.selection_["strategy"]
                if "presolver" in f.selection_:  # its pre-solving schedule (ASlib)
                    pre = f.selection_["presolver"] or {}
                    row["presolver"] = pre.get("algorithm")
                    row["presolve_seconds"] = float(pre.get("seconds", 0.0))
            rows.append({**row, **ends})
            parts.append(_curve_columns(name, families[i], strategy, train,
                                        [c for _, c in scored]))
        extra = []
        if budgets:
            memo = {}
            figures = [baseline_budget_figures(budget_orders, fold.times[i], truth, chooser,
                                               budgets, memo) for truth, chooser in ways]
            extra.append({"dataset": name, "family": families[i],
                          "strategy": BUDGET_BASELINE, **_mean_rows(figures)})
        out.append((int(i), rows, parts, extra))
    return out


def _scored_on(scored_on, kb) -> str:
    """The checked ``scored_on`` (its default from the knowledge base's repetitions)."""
    if scored_on is None:
        return SCORED_ON[0] if kb.n_repetitions >= 2 else SCORED_ON[1]
    short = {"unseen": SCORED_ON[0], "same": SCORED_ON[1]}
    if not isinstance(scored_on, str) or short.get(scored_on, scored_on) not in SCORED_ON:
        raise ValueError(f"scored_on must be one of {list(SCORED_ON)} (or 'unseen', "
                         f"'same'), got {scored_on!r}.")
    scored_on = short.get(scored_on, scored_on)
    if scored_on == SCORED_ON[0] and kb.n_repetitions < 2:
        raise ValueError("scored_on='unseen repetition' needs a knowledge base of at least "
                         "2 repetitions of the cross-validation; this one has 1 (use "
                         "'same repetition').")
    return scored_on


def _describe_hint(source):
    if isinstance(source, (KnowledgeBase, KnowledgeArchive)):
        return "describe its datasets first"
    path = getattr(source, "path", source)
    return f"describe them first: `metaeval describe --store {path}`"


def _knowledge(source, condition, clock="cpu"):
    if isinstance(source, KnowledgeArchive):
        condition = Condition() if condition is None else condition
        if not isinstance(condition, Condition):
            raise ValueError(f"condition must be a Condition, got {condition!r}.")
        return archive_knowledge(source, condition, clock), condition
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


def archive_knowledge(archive, condition, clock="cpu"):
    """:meth:`KnowledgeArchive.knowledge_base`, with its failed cells' times marked
    (``imputed_times``) so that an evaluation imputes them from its training datasets."""
    kb = archive.knowledge_base(condition, clock=clock)
    if kb.imputed_times is None:
        bad = ~(np.asarray(archive.times[clock], dtype=np.float64) > 0)
        if bad.any():
            kb = dataclasses.replace(kb, imputed_times=bad)
    return kb


def _strategies(strategies, kb, k, n_random, hint="describe the store's datasets first"):
    notes = []
    explicit = strategies is not None
    names = list(STRATEGIES) if strategies is None else strategies
    if isinstance(names, (str, Strategy)):
        names = [names]
    chosen = []
    for name in names:
        params = {}
        if name in ("knn-metafeatures", "cost-landmarking", "auto"):
            params = {"k": k}
        elif name == "random":
            params = {"repeats": n_random}
        strategy = get_strategy(name, **params)
        available = {"metafeatures": kb.metafeatures, "landmarks": kb.landmarks}
        uses = uses_of(strategy)
        lacking = [u for u in uses if available[u] is None]
        if isinstance(name, str) and isinstance(strategy, Learner) and len(lacking) < len(uses):
            strategy = get_strategy(name, **params,  # a learner uses what is described
                                    features=[u for u in uses if u not in lacking])
            lacking = []
        if lacking:
            why = (f"{strategy.name} needs {' and '.join(lacking)} of every dataset, and the "
                   f"knowledge base has none ({hint})")
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
