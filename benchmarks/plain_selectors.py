"""Two plain algorithm selectors written directly with scikit-learn, beside metaeval's.

They use no metaeval learner code: only the scenario as :func:`read_aslib` reads it (the
performance matrix, the default feature steps' features and their costs, the
``cv.arff`` folds), so that the figures metaeval's strategies reach can be read against
what a few dozen lines of scikit-learn reach on the same folds.

- ``plain-rf``: one ``RandomForestRegressor`` (200 trees, seeded) per algorithm on the
  scenario's performance (PAR10 for a runtime scenario, the measure otherwise), the
  features' missing values imputed with the training medians; the pick is the
  algorithm with the best predicted performance (as LLAMA's and Tornede et al.'s
  per-algorithm regression forests). The trees are grown as R's ``randomForest`` grows
  regression trees, which LLAMA's forests use (Liaw & Wiener 2002): a third of the
  features tried at each split and at least 5 instances a leaf (scikit-learn's
  defaults, every feature and 1 instance, cost about four times the CPU time).
- ``plain-knn``: the features imputed with the training medians and standardised with
  the training means and standard deviations; the pick is the algorithm with the best
  mean performance over the k nearest training instances (Euclidean), k from 1 to 30
  chosen by leave-one-out on the training part (the k whose left-out picks have the
  best mean performance; ties to the smaller k).

:func:`score` scores their picks by the rules of :func:`evaluate_aslib` (the feature
costs of the default steps added to the first pick's runtime, a run that then reaches
the cutoff a timeout; the gap closed against the training folds' and the whole
scenario's single best, with the evaluation's own bootstrap draws); ``bench_aslib.py``
checks it by scoring the evaluation's own picks and comparing.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.ensemble import RandomForestRegressor
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import StandardScaler

PLAIN = ("plain-rf", "plain-knn")
#: Neighbour counts tried by ``plain-knn``'s leave-one-out.
K_RANGE = range(1, 31)


def features(scenario):
    """The features every feature-reading strategy reads, and their cost per instance."""
    kb = scenario.knowledge
    parts = [f for f in (kb.metafeatures, kb.landmarks) if f is not None]
    x = np.hstack([p.to_numpy(dtype=np.float64) for p in parts])
    cost = np.zeros(len(kb.datasets))
    for frame, t in ((kb.metafeatures, kb.metafeature_time),
                     (kb.landmarks, kb.landmark_time)):
        if frame is not None and t is not None:
            cost = cost + np.asarray(t, dtype=np.float64)
    return x, cost


def _loss(scenario):
    """Performance oriented lower-is-better (PAR10 for runtime)."""
    perf = np.asarray(scenario.performance, dtype=np.float64)
    return -perf if scenario.maximize else perf


def _impute(train, test):
    """Missing values replaced by the training medians (0 where a column has none)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-missing column
        med = np.nanmedian(train, axis=0)
    med = np.where(np.isnan(med), 0.0, med)
    return (np.where(np.isnan(train), med, train), np.where(np.isnan(test), med, test))


def _forest(xtr, y, xte, seed):
    forest = RandomForestRegressor(n_estimators=200, max_features=1 / 3,
                                   min_samples_leaf=5, random_state=seed, n_jobs=1)
    return forest.fit(xtr, y).predict(xte)


def _knn(xtr, ytr, xte):
    scaler = StandardScaler().fit(xtr)
    ztr, zte = scaler.transform(xtr), scaler.transform(xte)
    n = ztr.shape[0]
    kmax = min(max(K_RANGE), n - 1)
    # leave-one-out: each training instance's nearest other training instances
    _, near = NearestNeighbors(n_neighbors=kmax + 1).fit(ztr).kneighbors(ztr)
    others = np.array([row[row != i][:kmax] for i, row in enumerate(near)])
    totals = np.cumsum(ytr[others], axis=1)  # (n, kmax, algorithms)
    best_k, best = 1, np.inf
    for k in K_RANGE:
        if k > kmax:
            break
        pick = np.argmin(totals[:, k - 1, :], axis=1)
        value = ytr[np.arange(n), pick].mean()
        if value < best:
            best_k, best = k, value
    _, near = NearestNeighbors(n_neighbors=best_k).fit(ztr).kneighbors(zte)
    return ytr[near].mean(axis=1), best_k


def picks(scenario, name, seed=0, n_jobs=1):
    """Each instance's pick (algorithm index) in each repetition of ``cv.arff``.

    Returns an int array of shape (n_repetitions, n_instances) and, for ``plain-knn``,
    the k chosen on each (repetition, fold). ``plain-rf``'s forests (one per fold and
    algorithm) are fitted on ``n_jobs`` processes; the picks are the same for any
    number."""
    if name not in PLAIN:
        raise ValueError(f"name must be one of {', '.join(PLAIN)}, got {name!r}.")
    x, _ = features(scenario)
    y = _loss(scenario)
    cv = scenario.cv
    out = np.empty((cv.shape[1], cv.shape[0]), dtype=np.int64)
    chosen, tasks = {}, []
    for r, rep in enumerate(cv.columns):
        fold = cv[rep].to_numpy()
        for f in np.unique(fold):
            test = fold == f
            xtr, xte = _impute(x[~test], x[test])
            if name == "plain-knn":
                pred, chosen[rep, int(f)] = _knn(xtr, y[~test], xte)
                out[r, test] = np.argmin(pred, axis=1)
            else:
                tasks.append((r, test, xtr, y[~test], xte))
    if tasks:
        preds = Parallel(n_jobs=n_jobs)(
            delayed(_forest)(xtr, ytr[:, j], xte, seed)
            for _, _, xtr, ytr, xte in tasks for j in range(y.shape[1]))
        a = y.shape[1]
        for t, (r, test, *_) in enumerate(tasks):
            pred = np.column_stack(preds[t * a:(t + 1) * a])
            out[r, test] = np.argmin(pred, axis=1)
    return out, chosen


def first_performance(scenario, pick, feature_costs=True, presolved=False):
    """The performance of the picks (shape (R, D)), feature costs added as
    :func:`evaluate_aslib` adds them (runtime scenarios with costs, when asked), and
    with ``presolved`` an instance a feature step presolved solved in its feature cost
    (0 s when not recorded)."""
    perf = np.asarray(scenario.performance, dtype=np.float64)
    rows = np.arange(perf.shape[0])
    value = perf[rows, pick]
    if not (feature_costs and scenario.runtime and scenario.feature_costs):
        return value
    _, cost = features(scenario)
    credit = scenario.presolved if presolved and scenario.presolved is not None else \
        np.zeros(cost.shape, dtype=bool)
    solved = scenario.solved[rows, pick] | credit
    runtime = np.where(credit, cost, value + cost)
    timeout = solved & (cost > 0) & (runtime >= scenario.cutoff)
    return np.where(solved, np.where(timeout, 10.0 * scenario.cutoff, runtime), value)


def score(ev, pick, n_boot=1000, alpha=0.05, seed=0):
    """Gap closed (training folds' and whole scenario's single best) of picks of shape
    (R, D), each with its percentile bootstrap interval, by the rules and with the
    bootstrap draws of the evaluation ``ev`` (:func:`evaluate_aslib`)."""
    sc = ev.scenario
    kb = sc.knowledge
    value = first_performance(sc, pick, ev.feature_costs, ev.presolved)
    frame = pd.DataFrame(sc.sign * value + sc.shift, columns=kb.datasets,
                         index=sc.cv.columns).mean(axis=0)
    per = ev.per_instance
    per = per[per["strategy"] == ev.strategies[0]]
    ref = per.groupby("dataset", sort=False)[
        ["single_best_success", "sbs_whole_success", "oracle_success"]].mean()
    datasets = list(dict.fromkeys(per["dataset"]))
    ref = ref.reindex(datasets)
    s = frame.reindex(datasets).to_numpy()
    oracle = ref["oracle_success"].to_numpy()
    n = len(datasets)
    boot = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
    q = (100 * alpha / 2, 100 * (1 - alpha / 2))
    out = {"performance": float(sc.to_performance(s).mean())}
    for column, sb in (("gap_closed", ref["single_best_success"].to_numpy()),
                       ("gap_closed_whole_sbs", ref["sbs_whole_success"].to_numpy())):
        out[column] = float(_gap(s.mean(), sb.mean(), oracle.mean()))
        gaps = _gap(s[boot].mean(axis=1), sb[boot].mean(axis=1), oracle[boot].mean(axis=1))
        gaps = gaps[np.isfinite(gaps)]
        out[f"{column}_low"], out[f"{column}_high"] = (
            np.percentile(gaps, q) if gaps.size else (np.nan, np.nan))
    return out


def evaluation_picks(ev, strategy):
    """The first picks (algorithm index, shape (R, D)) of one of ``ev``'s strategies."""
    kb = ev.scenario.knowledge
    curves = ev.curves[(ev.curves["step"] == 1) & (ev.curves["strategy"] == strategy)]
    col = {a: j for j, a in enumerate(kb.algorithms)}
    out = np.empty((ev.scenario.cv.shape[1], len(kb.datasets)), dtype=np.int64)
    row = {d: i for i, d in enumerate(kb.datasets)}
    for r, rep in enumerate(ev.scenario.cv.columns):
        mine = curves[curves["repetition"] == rep]
        out[r, [row[d] for d in mine["dataset"]]] = [col[a] for a in mine["algorithm"]]
    return out


def _gap(s, sb, oracle):
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = (np.asarray(s) - sb) / (oracle - sb)
    return np.where(np.isclose(oracle - sb, 0.0), np.nan, gap)
