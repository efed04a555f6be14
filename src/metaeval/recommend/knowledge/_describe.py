"""Describing a dataset: pymfe meta-features and cost-sensitive landmarkers.

Meta-features come from pymfe (Alcobaça et al. 2020), one group at a time, each under a
time budget; a group that fails or runs out of time is recorded and skipped, never fatal,
and so is a single feature pymfe cannot extract. Landmarkers are cheap algorithms
(naive Bayes, a decision stump, 1-NN, logistic regression) cross-validated with a few
folds; their out-of-fold scores are kept so that their success -- and instance hardness
-- under any operating condition can characterise the dataset (cost-sensitive
landmarking, after Pfahringer, Bensusan & Giraud-Carrier 2000 and Melo & Prudêncio 2014).
Categorical and missing values are handled as the study handles them: numeric columns
median-imputed, categorical ones as text with missing values as their own category.
"""

from __future__ import annotations

import multiprocessing
import signal
import time
import traceback
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from metaeval.algorithms import MISSING_CATEGORY, Algorithm
from metaeval.datasets import Dataset
from metaeval.datasets._base import check_values

#: The pymfe groups described by default, summarised by mean and standard deviation.
PYMFE_GROUPS = ("general", "statistical", "info-theory", "model-based", "landmarking")

#: Every group pymfe 0.4 knows (``pymfe.mfe.MFE.valid_groups()``, checked against the
#: installed pymfe when a dataset is described).
PYMFE_VALID_GROUPS = ("landmarking", "general", "statistical", "model-based", "info-theory",
                      "relative", "clustering", "complexity", "itemset", "concept")

#: The cheap landmarkers of cost-sensitive landmarking.
LANDMARKERS = (
    Algorithm("NB", "sklearn.naive_bayes.GaussianNB"),
    Algorithm("stump", "sklearn.tree.DecisionTreeClassifier", {"max_depth": 1}),
    Algorithm("1NN", "sklearn.neighbors.KNeighborsClassifier", {"n_neighbors": 1}, scale=True),
    Algorithm("LR", "sklearn.linear_model.LogisticRegression", {"max_iter": 1000}, scale=True),
)

#: The largest time budget (CPU seconds, about 11.6 days): the CPU timer and the wait
#: for a group take no more (larger, and infinite, budgets would overflow them).
MAX_TIME_BUDGET = 1e6

# wall seconds a group may take per CPU second of budget before it is stopped anyway
_WALL_FACTOR = 20.0

_GROUP_COLUMNS = ("group", "kind", "status", "wall", "cpu", "n_features", "n_failed", "error")


@dataclass(frozen=True, eq=False)
class Description:
    """What metaeval knows about a dataset before testing any algorithm on it.

    Attributes
    ----------
    dataset : str
    features : DataFrame
        Columns ``group``, ``feature``, ``value`` (NaN where pymfe could not compute
        it), ``error`` (why, when pymfe said).
    groups : DataFrame
        One row per pymfe group and per landmarker: ``group``, ``kind`` (``"pymfe"`` or
        ``"landmarker"``), ``status`` (``"ok"``, ``"failed"``, ``"timeout"``),
        ``wall`` and ``cpu`` (seconds spent: ``time.perf_counter`` and the CPU time of
        the process that ran it), ``n_features``, ``n_failed``, ``error``.
    landmark_y : ndarray of shape (n_instances,)
        The labels the landmarkers were scored on.
    landmark_scores : DataFrame of shape (n_instances, n_landmarkers)
        Out-of-fold scores of each landmarker that ran (column = landmarker name).
    """

    dataset: str
    features: pd.DataFrame
    groups: pd.DataFrame
    landmark_y: np.ndarray
    landmark_scores: pd.DataFrame

    def seconds(self, kind, clock="cpu") -> float:
        """Seconds spent on the pymfe groups (``kind="pymfe"``) or the landmarkers."""
        if clock not in ("wall", "cpu"):
            raise ValueError(f"clock must be 'wall' or 'cpu', got {clock!r}.")
        g = self.groups
        return float(g.loc[g["kind"] == kind, clock].sum())

    @property
    def metafeature_time(self) -> float:
        """CPU seconds spent on the pymfe groups."""
        return self.seconds("pymfe")

    @property
    def landmark_time(self) -> float:
        """CPU seconds spent cross-validating the landmarkers."""
        return self.seconds("landmarker")

    def metafeature_vector(self) -> pd.Series:
        """The meta-features as one Series indexed ``"<group>.<feature>"``."""
        f = self.features
        return pd.Series(f["value"].to_numpy(dtype=np.float64),
                         index=(f["group"] + "." + f["feature"]).to_numpy(), name=self.dataset)


def described_datasets(groups: pd.DataFrame) -> set:
    """The datasets whose cached description can be used, from
    :meth:`Store.metafeature_groups`'s rows.

    A description is complete when at least one of its pymfe groups and one of its
    landmarkers succeeded (or none of that kind was asked for). One whose every group or
    every landmarker failed or ran out of budget is not: describing the store again
    (with a larger budget, or other groups) describes it again instead of skipping it.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"dataset": ["a", "a", "b", "b"],
    ...                      "kind": ["pymfe", "landmarker"] * 2,
    ...                      "status": ["ok", "ok", "timeout", "ok"]})
    >>> sorted(described_datasets(rows))
    ['a']
    """
    if not len(groups):
        return set()
    usable = set(groups["dataset"])
    for kind in ("pymfe", "landmarker"):
        rows = groups[groups["kind"] == kind]
        tried = set(rows["dataset"])
        ok = set(rows.loc[rows["status"] == "ok", "dataset"])
        usable -= tried - ok
    return usable


def landmark_features(y, scores, condition) -> pd.Series:
    """Cost-sensitive landmark features: each landmarker's success under the condition.

    For a hardness measure the mean instance hardness of each class is added
    (``<landmarker>.class0``, ``<landmarker>.class1``), so that a dataset whose hard
    instances sit in one class looks different from one whose hardness is spread.

    Parameters
    ----------
    y : array-like of shape (n_instances,)
        0/1 labels.
    scores : DataFrame of shape (n_instances, n_landmarkers)
        Out-of-fold landmarker scores, one column per landmarker.
    condition : Condition

    Returns
    -------
    features : Series
        Indexed ``"<landmarker>.success"`` (and the class means for hardness measures).

    Examples
    --------
    >>> import pandas as pd
    >>> from metaeval.recommend import Condition
    >>> S = pd.DataFrame({"NB": [0.1, 0.4, 0.35, 0.8]})
    >>> landmark_features([0, 0, 1, 1], S, Condition("accuracy")).tolist()
    [0.75]
    """
    y = np.asarray(y)
    S = scores.to_numpy(dtype=np.float64)
    names = [str(c) for c in scores.columns]
    values = {f"{n}.success": v for n, v in zip(names, condition.success(y, S), strict=True)}
    if condition.method is not None:
        hardness = condition.instance_hardness(y, S)  # rates are ranks over every instance
        for cls in (0, 1):
            mask = y == cls
            if mask.any():
                part = hardness[mask].mean(axis=0)
                values.update({f"{n}.class{cls}": v for n, v in zip(names, part, strict=True)})
    return pd.Series(values, dtype=np.float64)


def describe_dataset(
    dataset,
    *,
    groups=PYMFE_GROUPS,
    landmarkers=LANDMARKERS,
    time_budget=2.0,
    max_rows=1000,
    landmark_rows=2000,
    landmark_folds=3,
    seed=0,
) -> Description:
    """Meta-features (pymfe) and cost-sensitive landmarkers of one dataset.

    Parameters
    ----------
    dataset : Dataset
    groups : sequence of str, default=PYMFE_GROUPS
        pymfe groups (``"general"``, ``"statistical"``, ``"info-theory"``,
        ``"model-based"``, ``"landmarking"``, ...), summarised by mean and sd.
    landmarkers : sequence of Algorithm, default=LANDMARKERS
    time_budget : float or None, default=2.0
        **CPU** seconds each pymfe group may take (user and system time of the child
        process it runs in, so a loaded machine gives the same descriptions as an idle
        one); a group past it is stopped and recorded as ``"timeout"``. None runs every
        group in this process without a limit.
    max_rows : int or None, default=1000
        pymfe sees a stratified, seeded sample of at most this many rows (its cost grows
        faster than linearly).
    landmark_rows : int or None, default=2000
        The landmarkers are cross-validated on a stratified, seeded sample of at most
        this many rows (None: every row).
    landmark_folds : int, default=3
        Stratified folds of the landmarkers' cross-validation.
    seed : int, default=0

    Returns
    -------
    Description

    Raises
    ------
    ValueError
        When ``dataset`` is not a Dataset with two classes and at least one feature; holds
        data :func:`metaeval.study.Study` refuses (an infinite value, a class of fewer than
        2 rows, a copy of the target), named with the column and row; or a parameter is
        out of range.

    Examples
    --------
    >>> from metaeval.datasets import load_dataset
    >>> d = describe_dataset(load_dataset("labor"), groups=["general"], time_budget=None)
    >>> d.groups[["group", "kind", "status"]].values.tolist()[:2]
    [['general', 'pymfe', 'ok'], ['NB', 'landmarker', 'ok']]
    >>> d.landmark_scores.shape
    (57, 4)
    """
    if not isinstance(dataset, Dataset):
        raise ValueError(f"dataset must be a metaeval Dataset, got {type(dataset).__name__}.")
    if dataset.n_features == 0:
        raise ValueError(f"dataset {dataset.name!r} has no feature column to describe.")
    if np.unique(dataset.y).size != 2:
        raise ValueError(f"dataset {dataset.name!r} must hold two classes.")
    # what `metaeval run` refuses: an infinite value (pymfe's features and every
    # landmarker would fail or turn NaN on it), a class of one row (no stratified fold)
    check_values(dataset.X, dataset.y, class_names=dataset.class_names,
                 source=f"dataset {dataset.name!r}")
    if isinstance(groups, str):
        groups = (groups,)
    groups = tuple(groups)
    if time_budget is not None and (
            isinstance(time_budget, bool) or not isinstance(time_budget, (int, float, np.number))
            or not 0 < time_budget <= MAX_TIME_BUDGET):
        raise ValueError(f"time_budget must be > 0 seconds or None (no limit), and at most "
                         f"{MAX_TIME_BUDGET:g} CPU seconds; got {time_budget!r}.")
    if max_rows is not None and (isinstance(max_rows, bool) or int(max_rows) < 10):
        raise ValueError(f"max_rows must be an integer >= 10 or None, got {max_rows!r}.")
    if landmark_rows is not None and (isinstance(landmark_rows, bool)
                                      or int(landmark_rows) < 10):
        raise ValueError(f"landmark_rows must be an integer >= 10 or None, got "
                         f"{landmark_rows!r}.")
    if isinstance(landmark_folds, bool) or int(landmark_folds) < 2:
        raise ValueError(f"landmark_folds must be an integer >= 2, got {landmark_folds!r}.")
    if groups:
        import pymfe.mfe  # imported once here, not in every child process

        check_groups(groups, pymfe.mfe.MFE.valid_groups())

    X, cat_cols = _pymfe_input(dataset)
    y = dataset.y
    idx = _sample_rows(y, max_rows, seed)
    feature_rows, group_rows = [], []
    for group in groups:
        row, rows = _run_group(group, X[idx], y[idx], cat_cols, time_budget, seed)
        group_rows.append(row)
        feature_rows.extend(rows)
    land_idx = _sample_rows(y, landmark_rows, seed)
    land_y, land_scores, land_rows = _landmark(dataset, landmarkers, landmark_folds, seed,
                                               land_idx)
    group_rows.extend(land_rows)
    features = pd.DataFrame(feature_rows, columns=["group", "feature", "value", "error"])
    features["value"] = features["value"].astype(np.float64)
    return Description(
        dataset=dataset.name,
        features=features,
        groups=pd.DataFrame(group_rows, columns=list(_GROUP_COLUMNS)),
        landmark_y=land_y,
        landmark_scores=land_scores,
    )


def check_groups(groups, valid=PYMFE_VALID_GROUPS) -> tuple:
    """Return ``groups`` as a tuple of pymfe group names, each known and given once.

    Raises
    ------
    ValueError
        Naming the unknown or repeated group and the known ones.

    Examples
    --------
    >>> check_groups(["general", "info-theory"])
    ('general', 'info-theory')
    """
    if isinstance(groups, str):
        groups = (groups,)
    groups = tuple(groups)
    for g in groups:
        if not isinstance(g, str) or g not in valid:
            import difflib

            close = difflib.get_close_matches(str(g), list(valid), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise ValueError(f"groups: {g!r} is not a pymfe group; known: "
                             f"{', '.join(valid)}.{hint}")
    seen = [g for i, g in enumerate(groups) if g in groups[:i]]
    if seen:
        raise ValueError(f"groups: {seen[0]!r} is given twice.")
    return groups


# ----------------------------------------------------------------------------- pymfe
def _pymfe_input(dataset):
    """Object array for pymfe: medians for missing numbers, a category for missing text."""
    X = dataset.X
    cats = set(dataset.categorical)
    columns, cat_cols = [], []
    for j, name in enumerate(X.columns):
        col = X[name]
        if name in cats:
            cat_cols.append(j)
            columns.append(col.astype(object).where(col.notna(), MISSING_CATEGORY).astype(str)
                           .to_numpy(dtype=object))
        else:
            values = col.to_numpy(dtype=np.float64)
            fill = np.nanmedian(values) if np.isfinite(values).any() else 0.0
            columns.append(np.where(np.isnan(values), fill, values).astype(object))
    return np.column_stack(columns), cat_cols


def _sample_rows(y, max_rows, seed):
    n = y.shape[0]
    if max_rows is None or n <= max_rows:
        return np.arange(n)
    from sklearn.model_selection import train_test_split

    idx, _ = train_test_split(np.arange(n), train_size=int(max_rows), stratify=y,
                              random_state=seed)
    return np.sort(idx)


def _extract(group, X, y, cat_cols, seed):
    """Run one pymfe group; (names, values, {feature: error}, wall, cpu)."""
    from pymfe.mfe import MFE

    start, start_cpu = time.perf_counter(), time.process_time()
    with one_thread(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mfe = MFE(groups=[group], summary=["mean", "sd"], random_state=seed, num_cv_folds=3)
        numeric_only = X.astype(np.float64) if not cat_cols else X
        mfe.fit(numeric_only, y, cat_cols=cat_cols or None, precomp_groups=None)
        names, values = mfe.extract()
    errors = {}
    for w in caught:
        text = str(w.message)
        if text.startswith("Can't extract feature"):
            feature = text.split("'")[1] if text.count("'") >= 2 else text
            errors[feature] = " ".join(text.split())[:300]
    return (list(names), [_as_float(v) for v in values], errors,
            time.perf_counter() - start, time.process_time() - start_cpu)


def one_thread():
    """A context in which BLAS and OpenMP use one thread (threadpoolctl, a dependency of
    scikit-learn).

    CPU time is only a fair budget on one thread: OpenBLAS's idle threads spin while they
    wait, and on a loaded machine they spin longer. Measured on sonar's ``statistical``
    group (2 cores, load 3): 0.53 to 1.98 CPU seconds on two threads, 0.20 to 0.27 on one.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - scikit-learn brings it
        from contextlib import nullcontext

        return nullcontext()
    return threadpool_limits(limits=1)


def _as_float(v):
    try:
        v = float(v)
    except (TypeError, ValueError):
        return float("nan")
    return v if np.isfinite(v) else float("nan")


def _child(conn, group, X, y, cat_cols, seed, budget):  # pragma: no cover - child process
    # the parent's handlers are not this process's: a terminal's Ctrl-C or hang-up (sent
    # to the whole process group) is the parent's to act on, and the parent's terminate()
    # (SIGTERM) must end this process at once, even inside compiled code
    for name, action in (("SIGINT", signal.SIG_IGN), ("SIGHUP", signal.SIG_IGN),
                         ("SIGTERM", signal.SIG_DFL)):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), action)
    _own_progress_lock()
    # the budget is CPU time: SIGPROF (whose default action ends the process) fires after
    # `budget` seconds of this process's user + system time, also inside compiled code
    signal.setitimer(signal.ITIMER_PROF, float(budget))
    try:
        conn.send(("ok", _extract(group, X, y, cat_cols, seed)))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, never raised
        conn.send(("failed", f"{type(exc).__name__}: {exc}"[:500]))
    finally:
        conn.close()


def _own_progress_lock():
    """Give this forked child a lock of its own for tqdm's progress bars (pymfe makes one).

    tqdm's default lock includes a multiprocessing lock, shared with every process forked
    after the parent made it. A child stopped at its budget (or terminated) while holding
    it would leave it held for good, and the parent's next pymfe extraction (a
    ``time_budget=None`` description) would wait on it forever.
    """
    import threading

    try:  # pymfe's dependency, not metaeval's
        import tqdm.auto
        import tqdm.std
    except ImportError:  # pragma: no cover - a pymfe without progress bars
        return
    for cls in {tqdm.std.tqdm, tqdm.auto.tqdm}:
        cls.set_lock(threading.RLock())


def _cpu_time():
    """CPU seconds of this process and of its finished (reaped) children."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX: this process only
        return time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _run_group(group, X, y, cat_cols, budget, seed):
    """One pymfe group under a time budget; (group row, feature rows).

    CPU time counts the child process too, also when it was stopped at the budget.
    """
    start, start_cpu = time.perf_counter(), _cpu_time()
    if budget is None:
        try:
            outcome = ("ok", _extract(group, X, y, cat_cols, seed))
        except Exception as exc:  # a failing group is recorded, never fatal
            outcome = ("failed", f"{type(exc).__name__}: {exc}"[:500])
    else:
        outcome = _in_child(group, X, y, cat_cols, budget, seed)
    if outcome[0] != "ok":
        wall, cpu = time.perf_counter() - start, _cpu_time() - start_cpu
        return (group, "pymfe", outcome[0], wall, cpu, 0, 0, outcome[1]), []
    names, values, errors, wall, _ = outcome[1]
    cpu = _cpu_time() - start_cpu
    rows = [(group, n, v, _feature_error(n, errors)) for n, v in zip(names, values, strict=True)]
    n_failed = sum(1 for v in values if np.isnan(v))
    return (group, "pymfe", "ok", wall, cpu, len(names), n_failed, None), rows


def _feature_error(name, errors):
    base = name.split(".")[0]
    return errors.get(base)


def _in_child(group, X, y, cat_cols, budget, seed):
    try:
        ctx = multiprocessing.get_context("fork")
    except ValueError:  # pragma: no cover - no fork on this platform
        ctx = multiprocessing.get_context()
    parent, child = ctx.Pipe(duplex=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with native threads alive
        proc = ctx.Process(target=_child, args=(child, group, X, y, cat_cols, seed, budget),
                           daemon=True)
        proc.start()
    child.close()
    timeout = ("timeout", f"group {group!r} took more than its budget of {budget:g} CPU "
                          "seconds")
    try:
        # a safety net in wall time, for a child that waits instead of computing
        if parent.poll(_WALL_FACTOR * budget + 10.0):
            try:
                return parent.recv()
            except EOFError:
                proc.join(5)
                if proc.exitcode == -signal.SIGPROF:
                    return timeout
                return ("failed", f"the pymfe process for group {group!r} died")
        return timeout
    finally:
        parent.close()
        if proc.is_alive():
            proc.terminate()
        proc.join(5)


# ----------------------------------------------------------------------------- landmarkers
def _landmark(dataset, landmarkers, folds, seed, rows=None):
    """Out-of-fold scores of each landmarker on ``rows``; (y, scores frame, group rows)."""
    from sklearn.model_selection import StratifiedKFold

    if rows is not None and len(rows) < dataset.n_instances:
        X = dataset.X.iloc[rows].reset_index(drop=True)
        dataset = Dataset(dataset.name, X, dataset.y[rows], categorical=dataset.categorical,
                          family=dataset.family)
    y = dataset.y
    minority = int(np.bincount(y, minlength=2).min())
    k = min(int(folds), minority)
    if k < 2:
        rows = [(a.name, "landmarker", "failed", 0.0, 0.0, 0, 0,
                 f"class counts {np.bincount(y, minlength=2).tolist()} allow no 2-fold CV")
                for a in landmarkers]
        return y, pd.DataFrame(index=range(y.shape[0])), rows
    split = list(StratifiedKFold(k, shuffle=True, random_state=seed).split(dataset.X, y))
    with one_thread():
        return _cross_validate(dataset, landmarkers, split, seed)


def _cross_validate(dataset, landmarkers, split, seed):
    y = dataset.y
    numeric, categorical = list(dataset.numeric), list(dataset.categorical)
    scores, rows = {}, []
    for algorithm in landmarkers:
        start, start_cpu = time.perf_counter(), time.process_time()
        s = np.empty(y.shape[0])
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for train, test in split:
                    model = algorithm.build(categorical, numeric, random_state=seed)
                    model.fit(dataset.X.iloc[train], y[train])
                    s[test] = algorithm.score(model, dataset.X.iloc[test])
        except Exception as exc:  # recorded, never fatal
            rows.append((algorithm.name, "landmarker", "failed", time.perf_counter() - start,
                         time.process_time() - start_cpu, 0, 0,
                         f"{type(exc).__name__}: {exc}"[:500]))
            traceback.clear_frames(exc.__traceback__)
            continue
        scores[algorithm.name] = s
        rows.append((algorithm.name, "landmarker", "ok", time.perf_counter() - start,
                     time.process_time() - start_cpu, 1, 0, None))
    return y, pd.DataFrame(scores), rows
