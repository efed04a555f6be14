"""Losses at time budgets (:func:`evaluate_recommenders`): pure functions.

Beside the mean interval loss, an evaluation scores each strategy's order at fixed
budgets of CPU (or wall) seconds per held-out dataset, :data:`BUDGETS`: 1, 10, 60 and
600 s, in the knowledge base's recorded seconds of one task (one whole cross-validation
of a configuration on the dataset).

**What counts.** The time spent describing the dataset (a strategy's overhead) is spent
first. Then the configurations are taken in the strategy's order, each with its recorded
time on the held-out dataset: one that fits in what is left of the budget runs, one that
does not is *skipped* and the next is tried -- the rule of ``recommend --budget``
(:func:`plan_budget`), which skips a configuration predicted not to fit, here applied
with the recorded times, as if each time were predicted exactly (every strategy is
scored so; the time model's error is measured on its own, ``bench_time_model.py``). No
configuration is stopped half-way, and none that would overrun is counted.

**The loss at a budget.** The reference is what the budget allows: the configuration
the oracle runs within it, the best on the repetitions not scored (the chooser) among
those whose recorded time alone fits the budget (the faster on ties). The loss is its
success on the scored repetition minus that of the configuration kept, the best on the
chooser of those that ran (the earliest on ties); with none run, minus the worst
success of the pool, as before the first test of a loss curve. The oracle's order
(best on the chooser first) runs the reference first, so its loss at every budget is 0;
another strategy's can be negative on an unseen repetition, as its loss@k can. Where no
configuration fits the budget at all, nothing can be run by anyone, and every loss there
is 0.
"""

from __future__ import annotations

import numpy as np

#: Budgets (seconds per held-out dataset) an evaluation scores by default.
BUDGETS = (1.0, 10.0, 60.0, 600.0)
#: The baseline scored at budgets only, built as ``fast-first`` is: first the best
#: configuration that fits the budget by the training data (the best mean success over
#: the training datasets, a configuration whose recorded time on a training dataset
#: exceeds the budget counting that dataset's worst success there), then every other
#: configuration in the single best's order.
BUDGET_BASELINE = "single-best-budget"
#: Of the random baseline's seeded orders, those scored at budgets (the first; its loss
#: at a budget is their mean, a Monte-Carlo error far below the spread over datasets).
RANDOM_ORDERS = 1000


def budget_column(budget) -> str:
    """The column of the loss at ``budget`` seconds: ``loss_within_10s``."""
    return f"loss_within_{float(budget):g}s"


def check_budgets(budgets) -> tuple:
    """``budgets`` as a tuple of positive finite floats, increasing (None: none).

    Raises
    ------
    ValueError
        Naming ``budgets``.
    """
    if budgets is None:
        return ()
    try:
        values = np.asarray(budgets, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"budgets must be seconds (positive numbers), got {budgets!r}.") \
            from None
    if not np.all(np.isfinite(values) & (values > 0)) or np.unique(values).size != values.size:
        raise ValueError(f"budgets must be distinct positive finite seconds, got {budgets!r}.")
    return tuple(float(v) for v in np.sort(values))


def budget_runs(times, order, overhead, budgets) -> np.ndarray:
    """Which tests of ``order`` run within each budget (the skip rule of the module's text).

    Parameters
    ----------
    times : array-like of shape (n,)
        Seconds of each configuration on the dataset.
    order : array-like of int, shape (n,) or (R, n)
    overhead : float
        Seconds spent before the first test.
    budgets : sequence of float, length m

    Returns
    -------
    ndarray of bool, shape (m,) + order's shape
        Whether the test at each position of the order runs.

    Examples
    --------
    >>> budget_runs([4.0, 7.0, 5.0], [0, 1, 2], 0.0, [10.0, 20.0]).tolist()
    [[True, False, True], [True, True, True]]
    """
    times = np.asarray(times, dtype=np.float64)
    order = np.asarray(order, dtype=np.int64)
    budgets = np.asarray(budgets, dtype=np.float64)
    t = times[order]
    m = budgets.size
    run = np.zeros((m,) + t.shape, dtype=bool)
    # every row of the order holds the same configurations (each of them once)
    every = float(overhead) + float(t.reshape(-1, t.shape[-1])[0].sum()) <= budgets
    run[every] = True
    todo = np.flatnonzero(~every)
    if todo.size and t.shape[-1] and t.ndim == 1:  # one order: plain floats are faster
        tests = t.tolist()
        for k in todo:
            limit, total, row = float(budgets[k]), float(overhead), run[k]
            for j, tj in enumerate(tests):
                if total + tj <= limit:
                    total += tj
                    row[j] = True
    elif todo.size and t.shape[-1]:
        limit = budgets[todo].reshape((-1,) + (1,) * (t.ndim - 1))
        lead = np.broadcast_shapes(limit.shape, t.shape[:-1])
        run[todo] = np.moveaxis(_scan(np.moveaxis(t, -1, 0), overhead, limit, lead,
                                      float(times.min())), 0, -1)
    return run


def _scan(t, overhead, limit, lead, fastest):
    """The skip rule along the first axis of ``t`` (positions first, contiguous), for
    orders of shape ``lead`` each within its ``limit``: which positions run."""
    t = np.ascontiguousarray(t)
    total = np.full(lead, float(overhead))
    runs = np.zeros((t.shape[0],) + lead, dtype=bool)
    for j in range(t.shape[0]):
        fits = total + t[j] <= limit
        runs[j] = fits
        total += t[j] * fits
        if np.all(total + fastest > limit):  # nothing more can fit anywhere
            break
    return runs


def budget_reference(chooser, times, budgets) -> np.ndarray:
    """The oracle's configuration at each budget: the best on ``chooser`` among those
    whose time alone fits (the faster on ties); -1 where none fits."""
    chooser = np.asarray(chooser, dtype=np.float64)
    times = np.asarray(times, dtype=np.float64)
    ranked = np.lexsort((times, -chooser))
    fits = times[ranked][None, :] <= np.asarray(budgets, dtype=np.float64)[:, None]
    first = fits.argmax(axis=1)
    return np.where(fits.any(axis=1), ranked[first], -1)


def budget_losses(run, order, truth, chooser, reference) -> np.ndarray:
    """The loss at each budget of the tests that ran (:func:`budget_runs`), scored on
    ``truth`` with the algorithm kept chosen on ``chooser``; shape ``run.shape[:-1]``
    (m,) or (m, R).

    Examples
    --------
    Within 10 s the second configuration (7 s, the best) is skipped and the third kept;
    the oracle would have run the second alone:

    >>> run = budget_runs([4.0, 7.0, 5.0], [0, 1, 2], 0.0, [10.0])
    >>> ref = budget_reference([0.7, 0.9, 0.8], [4.0, 7.0, 5.0], [10.0])
    >>> ref.tolist()
    [1]
    >>> budget_losses(run, [0, 1, 2], [0.7, 0.9, 0.8], [0.7, 0.9, 0.8], ref).round(2).tolist()
    [0.1]
    """
    truth = np.asarray(truth, dtype=np.float64)
    chooser = truth if chooser is None else np.asarray(chooser, dtype=np.float64)
    order = np.broadcast_to(np.asarray(order, dtype=np.int64), run.shape[1:])
    # the chooser's dense rank (equal values equal ranks) as small integers: the first
    # maximum of the ranks of those run is the earliest tested of the best
    _, rank = np.unique(chooser, return_inverse=True)
    key = (rank.astype(np.int16 if rank.size < 32_000 else np.int32) + 1)[order]
    m = run.shape[0]
    kept = np.empty(run.shape[:-1], dtype=np.int64)
    whole = run.reshape(m, -1).all(axis=1)  # every test ran: one choice for all of them
    if whole.any():
        kept[whole] = np.take_along_axis(order, key.argmax(axis=-1)[..., None], axis=-1)[..., 0]
    for k in np.flatnonzero(~whole):
        at = np.where(run[k], key, 0).argmax(axis=-1)
        kept[k] = np.take_along_axis(order, at[..., None], axis=-1)[..., 0]
    reference = np.asarray(reference, dtype=np.int64).reshape((-1,) + (1,) * (kept.ndim - 1))
    best = truth[np.maximum(reference, 0)]
    loss = np.where(run.any(axis=-1), best - truth[kept], best - truth.min())
    return np.where(reference >= 0, loss, 0.0)


def budget_figures(order, times, overhead, truth, chooser, budgets, memo=None) -> dict:
    """``{budget_column(b): loss}`` of one order (or the mean over several) on one
    held-out dataset. ``memo``: a dict shared by the scorings of the same orders on
    several truths (the runs depend on the order and times only)."""
    if not budgets:
        return {}
    order = np.asarray(order)
    if order.ndim == 2:  # the random orders: the first RANDOM_ORDERS of them
        order = order[:RANDOM_ORDERS]
    if memo is not None and "budget_runs" in memo:
        run = memo["budget_runs"]
    else:
        run = budget_runs(times, order, overhead, budgets)
        if memo is not None:
            memo["budget_runs"] = run
    reference = budget_reference(chooser if chooser is not None else truth, times, budgets)
    loss = budget_losses(run, order, truth, chooser, reference)
    loss = loss.reshape(len(budgets), -1).mean(axis=1)
    return {budget_column(b): float(v) for b, v in zip(budgets, loss, strict=True)}


def budget_baseline_orders(success, times, budgets) -> np.ndarray:
    """:data:`BUDGET_BASELINE`'s order at each budget, from the training datasets'
    ``success`` and ``times`` (D, n): shape (m, n).

    Examples
    --------
    Within 1 s only B runs on both datasets (A and C count the worst success there), so
    B comes first, then the single best's order; within 10 s A, the best, fits too:

    >>> success = [[.9, .8, .6], [.9, .7, .5]]
    >>> budget_baseline_orders(success, [[5, .5, 50]] * 2, [1, 10]).tolist()
    [[1, 0, 2], [0, 1, 2]]
    """
    success = np.asarray(success, dtype=np.float64)
    times = np.asarray(times, dtype=np.float64)
    worst = success.min(axis=1, keepdims=True)
    single_best = np.argsort(-success.mean(axis=0), kind="stable")
    out = []
    for b in budgets:
        first = int(np.argmax(np.where(times <= b, success, worst).mean(axis=0)))
        out.append(np.concatenate([[first], single_best[single_best != first]]))
    return np.array(out, dtype=np.int64).reshape(len(budgets), success.shape[1])


def baseline_budget_figures(orders, times, truth, chooser, budgets, memo=None) -> dict:
    """:func:`budget_figures` of :data:`BUDGET_BASELINE`: each budget its own order
    (``orders``, (m, n)); ``memo`` as there."""
    times = np.asarray(times, dtype=np.float64)
    if memo is not None and "baseline_runs" in memo:
        run = memo["baseline_runs"]
    else:  # (m, 1, n): each budget its order, one scan for all
        limit = np.asarray(budgets, dtype=np.float64)
        run = np.moveaxis(_scan(times[orders].T, 0.0, limit, limit.shape,
                                float(times.min())), 0, -1)[:, None, :]
        if memo is not None:
            memo["baseline_runs"] = run
    reference = budget_reference(chooser if chooser is not None else truth, times, budgets)
    out = {}
    for k, b in enumerate(budgets):
        out[budget_column(b)] = float(budget_losses(run[k:k + 1], orders[k], truth, chooser,
                                                    reference[k:k + 1]).reshape(-1)[0])
    return out


def summarise_budgets(frame, names, budgets, *, n_boot=1000, alpha=0.05, seed=0):
    """Per strategy and budget: the mean loss over held-out datasets with its bootstrap
    interval (whole families resampled, as the evaluation's summary).

    Parameters
    ----------
    frame : DataFrame
        ``dataset, family, strategy`` and a :func:`budget_column` per budget.
    names : sequence of str
        The strategies, in table order.

    Returns
    -------
    DataFrame
        ``strategy, budget, loss, low, high, n_datasets``.
    """
    import pandas as pd

    from metaeval.recommend.evaluation._summary import family_weights

    columns = ["strategy", "budget", "loss", "low", "high", "n_datasets"]
    if not budgets or frame is None or not len(frame):
        return pd.DataFrame(columns=columns)
    base = frame.drop_duplicates("dataset").set_index("dataset")
    weight, _ = family_weights(base["family"].to_numpy(), n_boot, seed)
    q = (100 * alpha / 2, 100 * (1 - alpha / 2))
    rows = []
    for b in budgets:
        wide = frame.pivot(index="dataset", columns="strategy",
                           values=budget_column(b)).loc[base.index, list(names)]
        values = wide.to_numpy(dtype=np.float64)
        low, high = np.percentile(weight @ values, q, axis=0)
        for k, name in enumerate(names):
            rows.append([name, float(b), float(values[:, k].mean()), float(low[k]),
                         float(high[k]), int(values.shape[0])])
    return pd.DataFrame(rows, columns=columns)


def compare_at_budgets(frame, budgets, *, n_boot=1000, alpha=0.05, seed=0):
    """``auto`` against the time-aware single best (``single-best-a3r``: the primary
    family, one comparison per budget) and against :data:`BUDGET_BASELINE` (exploratory)
    on the loss at each budget, families resampled, Holm-corrected within each family
    (:func:`compare_strategies`); None when ``auto`` was not evaluated."""
    from metaeval.recommend.evaluation._summary import compare_strategies

    if not budgets or frame is None or "auto" not in set(frame["strategy"]):
        return None
    measures = [budget_column(b) for b in budgets]
    primary = {("auto", "single-best-a3r", m) for m in measures}
    return compare_strategies(frame, ["auto"], baselines=("single-best-a3r",
                                                           BUDGET_BASELINE),
                              measures=measures, n_boot=n_boot, alpha=alpha, seed=seed,
                              primary=primary)
