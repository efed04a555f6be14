r"""A plan within a time budget: how long each configuration will take on a new dataset.

The knowledge base records, for each (dataset, configuration), the CPU (and wall) seconds
of one *task*: one whole k-fold cross-validation of the configuration on the dataset
(every fold's fit and prediction, and loading the data), run on one thread, averaged
over the repetitions of the cross-validation. That is the protocol every time predicted
here is for.

:class:`TimeModel` predicts it on a new dataset from its rows :math:`n` and columns
:math:`p` (the columns of the data as given, a categorical column counting once). For
each configuration :math:`a`,

.. math::

    \log t_a = \alpha_a + \beta_a \log n + \delta_a (\log n)^2 + \gamma_a \log p,

fitted by least squares over the past datasets on which :math:`a` ran. The square of
:math:`\log n` lets the time grow slowly where a fixed cost (loading, setting up) rules,
on small data, and faster on large data; outside the past datasets' range of rows it is
continued along its tangent (the growth with :math:`\log n` stays that at the nearest
edge, never steeper). The slopes :math:`w_a = (\beta_a, \delta_a, \gamma_a)` are shrunk
toward the pool's shared slopes :math:`w_0` by a ridge penalty :math:`\lambda` (Hoerl &
Kennard 1970):

.. math::

    w_a = w_0 + (X_a^\top X_a + \lambda I)^{-1} X_a^\top (y_a - X_a w_0),

with :math:`X_a` and :math:`y_a` centred on the configuration's own means and
:math:`\alpha_a` the intercept through those means.

Rows and columns do not say how large the trees grow nor how much of the data is
numeric, and a random forest on dense, numeric, noisy data takes several times what it
takes on categorical data of the same shape. Where the knowledge base stores its datasets'
pymfe meta-features (computed on a stratified sample of at most 1,000 rows), the model also
reads two traits of the data (:func:`data_traits`), each with its own slope per
configuration, shrunk alike: the log of pymfe's decision tree's internal nodes per row
(``model-based.nodes_per_inst``, at least 0.001), and the share of numeric columns,
(``general.nr_num`` + 1) / (``general.nr_attr`` + 1). A new dataset's traits come from
:func:`~metaeval.recommend.describe_dataset` with the knowledge base's own settings.

The shared slopes are the within-configuration least-squares fit (every configuration
its own intercept, one set of slopes for all). A configuration with one past dataset
gets the shared slopes; with many, nearly its own. Without the datasets' column counts
(no meta-features in the knowledge base) the model uses rows only.

On the shipped knowledge base, leaving one family of datasets out at a time, the median
|log(predicted / measured)| is log 1.27 with the two traits, log 1.32 with rows and
columns only, log 1.48 without the square of log n (the linear-in-rows rule: log 2.32);
``benchmarks/bench_time_model.py`` measures it, also on files of its own outside the
knowledge base.

The rule it replaces scaled each past dataset's time linearly with the number of rows and
took the geometric mean over the past datasets, columns ignored
(:func:`linear_rows_prediction`). :func:`lofo_errors` scores either one leaving one
family of datasets out at a time.

:func:`plan_budget` keeps the strategy's order and skips each configuration predicted not
to fit in what is left of the budget, so that the cumulative predicted time never exceeds
it. An order built for the budget (greedy by expected gain per predicted second) was
tried and not adopted: on the shipped knowledge base it lost more than ``auto``'s order
at 1 CPU-s under accuracy (``docs/budgets.md``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: The default ridge penalty on a configuration's departure from the shared slopes, in
#: units of the centred sum of squares of log rows (a knowledge base of 72 datasets
#: spanning 57 to 28,056 rows has about 120): small, so that a configuration with a few
#: datasets keeps mostly the shared slopes and one with many its own (on the shipped
#: knowledge base 0, 1 and 10 give the same median error within 1 %).
PENALTY = 1.0

#: The pymfe meta-features the time model's traits of the data are made of, and the pymfe
#: groups that give them.
TRAIT_METAFEATURES = ("model-based.nodes_per_inst", "general.nr_num", "general.nr_attr")
TRAIT_GROUPS = ("general", "model-based")
#: The least tree size read (internal nodes per row): a tree of one split on 1,000 rows.
MIN_TREE_SIZE = 1e-3

_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0}
_BUDGET = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([smh]?)\s*$", re.IGNORECASE)


def parse_budget(value, name: str = "budget") -> float:
    """Seconds of a time budget: a number of seconds, or text such as ``"600"``,
    ``"600s"``, ``"10m"``, ``"1h"``, ``"1.5h"``.

    Raises
    ------
    ValueError
        Anything else, or a budget that is not positive and finite, naming ``name``.

    Examples
    --------
    >>> parse_budget("10m"), parse_budget("1.5h"), parse_budget(600)
    (600.0, 5400.0, 600.0)
    """
    seconds = None
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str):
        match = _BUDGET.match(value)
        if match:
            seconds = float(match.group(1)) * _UNITS[match.group(2).lower()]
    if seconds is None or not math.isfinite(seconds) or seconds <= 0:
        raise ValueError(f"{name} must be a positive time in seconds, or with a unit such "
                         f"as 600s, 10m, 1h or 1.5h; got {value!r}.")
    return seconds


def data_traits(metafeatures) -> np.ndarray:
    """The time model's traits of the data from pymfe meta-features.

    Parameters
    ----------
    metafeatures : DataFrame or Series
        One row per dataset (or one dataset's Series), with the columns (index) of
        :data:`TRAIT_METAFEATURES`.

    Returns
    -------
    ndarray of shape (D, 2), or (2,) for a Series
        log max(``model-based.nodes_per_inst``, 0.001) and (``general.nr_num`` + 1) /
        (``general.nr_attr`` + 1); NaN where a meta-feature is missing.

    Examples
    --------
    A tree of 107 internal nodes on a 1,000-row sample, 20 numeric columns of 20:

    >>> v = pd.Series({"model-based.nodes_per_inst": 0.107, "general.nr_num": 20.0,
    ...                "general.nr_attr": 20.0})
    >>> np.round(data_traits(v), 4).tolist()
    [-2.2349, 1.0]
    """
    single = isinstance(metafeatures, pd.Series)
    frame = metafeatures.to_frame().T if single else metafeatures
    values = {}
    for name in TRAIT_METAFEATURES:
        values[name] = (pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=np.float64)
                        if name in frame.columns else np.full(len(frame), np.nan))
    with np.errstate(divide="ignore", invalid="ignore"):
        tree = np.log(np.maximum(values["model-based.nodes_per_inst"], MIN_TREE_SIZE))
        share = (values["general.nr_num"] + 1.0) / (values["general.nr_attr"] + 1.0)
    out = np.column_stack([tree, share])
    out[~np.isfinite(out)] = np.nan
    return out[0] if single else out


def _features(rows, cols, span, traits=None):
    """log n, its square (continued along its tangent outside ``span``, the past datasets'
    range of log n), log p, and the traits of the data (if any)."""
    ln = np.log(np.asarray(rows, dtype=np.float64))
    lo, hi = span
    edge = np.clip(ln, lo, hi)
    columns = [ln, edge ** 2 + 2.0 * edge * (ln - edge)]
    if cols is not None:
        columns.append(np.log(np.asarray(cols, dtype=np.float64)))
    out = np.column_stack(columns)
    if traits is not None:
        out = np.column_stack([out, np.asarray(traits, dtype=np.float64).reshape(len(out), -1)])
    return out


@dataclass(frozen=True, eq=False)
class TimeModel:
    """Per configuration, log time linear in log rows (and log columns, and traits of
    the data).

    Attributes
    ----------
    algorithms : tuple of str
    intercept : ndarray of shape (A,)
    slopes : ndarray of shape (A, k)
        Per configuration, the slopes on log rows, its square (then log columns, then
        each trait of the data, where the model reads them).
    shared : ndarray of shape (k,)
        The pool's shared slopes.
    span : tuple of float
        The past datasets' range of log rows (the square is continued along its tangent
        outside it).
    n_datasets : ndarray of shape (A,)
        Past datasets each configuration was fitted on.
    penalty : float
    uses_columns : bool
        Whether the past datasets' columns were known (else rows only).
    notes : tuple of str
        Configurations without any recorded time (predicted as the pool's median).
    n_traits : int
        Traits of the data read beside rows and columns (0: none; 2: those of
        :func:`data_traits`).
    """

    algorithms: tuple
    intercept: np.ndarray
    slopes: np.ndarray
    shared: np.ndarray
    n_datasets: np.ndarray
    span: tuple = (0.0, 0.0)
    penalty: float = PENALTY
    uses_columns: bool = True
    notes: tuple = field(default=())
    n_traits: int = 0

    @classmethod
    def fit(cls, rows, cols, times, algorithms=None, *, traits=None,
            penalty: float = PENALTY):
        """Fit on past datasets.

        Parameters
        ----------
        rows : array-like of shape (D,)
            Rows of each past dataset (> 0).
        cols : array-like of shape (D,) or None
            Columns of each past dataset (> 0); None: rows only.
        times : array-like of shape (D, A)
            Seconds of each (dataset, configuration); NaN or <= 0 where not recorded.
        algorithms : sequence of str, optional
        traits : array-like of shape (D, k), optional
            Traits of each past dataset (finite), e.g. :func:`data_traits`; needs
            ``cols``. Then :meth:`predict` needs the new datasets' traits too.
        penalty : float, default=PENALTY
            Ridge penalty on a configuration's departure from the shared slopes (0: each
            configuration its own least squares; ``inf``: the shared slopes for all).

        Examples
        --------
        Times of exactly 0.01 n p^0.5 and 0.1 n^2 are recovered (slopes on log n,
        (log n)^2 and log p):

        >>> n, p = np.array([100., 1000., 10000., 300.]), np.array([4., 16., 9., 25.])
        >>> t = np.column_stack([0.01 * n * p ** 0.5, 0.1 * n ** 2])
        >>> m = TimeModel.fit(n, p, t, penalty=0.0)
        >>> (np.round(m.slopes, 6) + 0.0).tolist(), np.round(np.exp(m.intercept), 6).tolist()
        ([[1.0, 0.0, 0.5], [2.0, 0.0, 0.0]], [0.01, 0.1])
        """
        times = np.asarray(times, dtype=np.float64)
        if times.ndim != 2:
            raise ValueError(f"times must be 2-D (datasets, algorithms), got {times.shape}.")
        D, A = times.shape
        rows = np.asarray(rows, dtype=np.float64)
        if rows.shape != (D,) or (cols is not None and np.shape(cols) != (D,)):
            raise ValueError(f"rows (and cols) must have {D} values, one per dataset.")
        if not np.all(np.isfinite(rows) & (rows > 0)):
            raise ValueError("rows and cols must be positive and finite.")
        span = (float(np.log(rows.min())), float(np.log(rows.max())))
        n_traits = 0
        if traits is not None:
            traits = np.asarray(traits, dtype=np.float64)
            if cols is None or traits.ndim != 2 or traits.shape[0] != D:
                raise ValueError(f"traits must be of shape ({D}, k), one row per dataset, "
                                 "and needs cols.")
            if not np.all(np.isfinite(traits)):
                raise ValueError("traits must be finite.")
            n_traits = traits.shape[1]
        X = _features(rows, cols, span, traits)
        if not np.all(np.isfinite(X)):
            raise ValueError("rows and cols must be positive and finite.")
        if not penalty >= 0:
            raise ValueError(f"penalty must be >= 0, got {penalty!r}.")
        algorithms = tuple(str(a) for a in (range(A) if algorithms is None else algorithms))
        ok = np.isfinite(times) & (times > 0)
        y = np.log(np.where(ok, times, 1.0))
        k = X.shape[1]
        # the shared slopes: least squares within configurations (own intercept each)
        xtx, xty = np.zeros((k, k)), np.zeros(k)
        centred = []
        for a in range(A):
            m = ok[:, a]
            xc = X[m] - X[m].mean(axis=0) if m.any() else X[m]
            yc = y[m, a] - y[m, a].mean() if m.any() else y[m, a]
            centred.append((xc, yc))
            xtx += xc.T @ xc
            xty += xc.T @ yc
        shared = np.linalg.lstsq(xtx, xty, rcond=None)[0]
        intercept, slopes = np.full(A, np.nan), np.tile(shared, (A, 1))
        for a, (xc, yc) in enumerate(centred):
            m = ok[:, a]
            if not m.any():
                continue
            if np.isfinite(penalty) and m.sum() > 1:
                gram = xc.T @ xc + penalty * np.eye(k)
                slopes[a] = shared + np.linalg.lstsq(gram, xc.T @ (yc - xc @ shared),
                                                     rcond=None)[0]
            intercept[a] = y[m, a].mean() - X[m].mean(axis=0) @ slopes[a]
        notes = ()
        missing = ~np.isfinite(intercept)
        if missing.any():  # never ran anywhere: the pool's median configuration
            intercept[missing] = np.median(intercept[~missing]) if (~missing).any() else 0.0
            notes = (f"{int(missing.sum())} configuration(s) without any recorded time: "
                     "predicted as the pool's median configuration",)
        return cls(algorithms, intercept, slopes, shared, ok.sum(axis=0), span,
                   float(penalty), cols is not None, notes, n_traits)

    def predict(self, rows, cols=None, traits=None) -> np.ndarray:
        """Predicted seconds of every configuration on data of ``rows`` x ``cols`` (with
        ``traits``, of shape (k,) or (N, k), where the model was fitted with them):
        shape (A,) for one dataset, (N, A) for arrays of N."""
        scalar = np.ndim(rows) == 0
        rows = np.atleast_1d(np.asarray(rows, dtype=np.float64))
        if self.uses_columns:
            if cols is None:
                raise ValueError("cols is needed: the model was fitted with columns.")
            cols = np.broadcast_to(np.asarray(cols, dtype=np.float64), rows.shape)
        if self.n_traits:
            if traits is None:
                raise ValueError(f"traits is needed: the model was fitted with "
                                 f"{self.n_traits} traits of the data.")
            traits = np.asarray(traits, dtype=np.float64)
            if traits.shape not in ((self.n_traits,), (rows.size, self.n_traits)):
                raise ValueError(f"traits must be of shape ({self.n_traits},) or "
                                 f"({rows.size}, {self.n_traits}), got {traits.shape}.")
            if not np.all(np.isfinite(traits)):
                raise ValueError("traits must be finite.")
            traits = np.broadcast_to(traits, (rows.size, self.n_traits))
        elif traits is not None:
            raise ValueError("traits were given, but the model was fitted without them.")
        with np.errstate(divide="ignore", invalid="ignore"):
            X = _features(rows, cols if self.uses_columns else None, self.span,
                          traits if self.n_traits else None)
        if not np.all(np.isfinite(X)):
            raise ValueError("rows and cols must be positive and finite.")
        out = np.exp(self.intercept[None, :] + X @ self.slopes.T)
        return out[0] if scalar else out


def knowledge_shape(kb):
    """Rows, columns (None without meta-features) and recorded times (NaN where imputed)
    of a :class:`KnowledgeBase`'s datasets."""
    rows = np.asarray(kb.n_instances, dtype=np.float64)
    cols = None
    mf = kb.metafeatures
    if mf is not None and "general.nr_attr" in mf.columns:
        cols = mf.loc[list(kb.datasets), "general.nr_attr"].to_numpy(dtype=np.float64)
        if not np.all(np.isfinite(cols) & (cols > 0)):
            cols = None
    times = np.array(kb.times, dtype=np.float64)
    if kb.imputed_times is not None:
        times[np.asarray(kb.imputed_times, dtype=bool)] = np.nan
    return rows, cols, times


def knowledge_traits(kb):
    """:func:`data_traits` of a :class:`KnowledgeBase`'s datasets, shape (D, 2), or None
    when its meta-features lack one of :data:`TRAIT_METAFEATURES` for any dataset."""
    mf = kb.metafeatures
    if mf is None or not all(c in mf.columns for c in TRAIT_METAFEATURES):
        return None
    traits = data_traits(mf.loc[list(kb.datasets), list(TRAIT_METAFEATURES)])
    return traits if np.all(np.isfinite(traits)) else None


def linear_rows_prediction(rows, times, new_rows) -> np.ndarray:
    """The former rule: each past dataset's time scaled linearly by the rows, geometric
    mean over the past datasets (columns ignored); shape (N, A) for N new datasets."""
    rows = np.asarray(rows, dtype=np.float64)
    times = np.asarray(times, dtype=np.float64)
    ok = np.isfinite(times) & (times > 0)
    logs = np.where(ok, np.log(np.where(ok, times, 1.0)) - np.log(rows)[:, None], 0.0)
    mean = logs.sum(axis=0) / np.maximum(ok.sum(axis=0), 1)
    return np.exp(mean[None, :] + np.log(np.atleast_1d(new_rows).astype(np.float64))[:, None])


def lofo_errors(rows, cols, times, families, predict=None) -> pd.DataFrame:
    """|log(predicted / measured)| of every recorded (dataset, configuration), each
    dataset's prediction made without its family.

    Parameters
    ----------
    rows, cols, times
        As :meth:`TimeModel.fit`.
    families : sequence of str, length D
    predict : callable, optional
        ``predict(train_mask, test_mask) -> (n_test, A)`` seconds; default
        :class:`TimeModel` with its default penalty.

    Returns
    -------
    DataFrame
        ``dataset`` (index into rows), ``algorithm`` (column index), ``error``.
    """
    rows = np.asarray(rows, dtype=np.float64)
    times = np.asarray(times, dtype=np.float64)
    families = np.asarray([str(f) for f in families])
    if predict is None:
        def predict(train, test):
            model = TimeModel.fit(rows[train], None if cols is None else np.asarray(cols)[train],
                                  times[train])
            return model.predict(rows[test], None if cols is None else np.asarray(cols)[test])
    out = []
    for family in dict.fromkeys(families):
        test = families == family
        predicted = np.asarray(predict(~test, test), dtype=np.float64)
        measured = times[test]
        ok = np.isfinite(measured) & (measured > 0)
        i, j = np.nonzero(ok)
        out.append(pd.DataFrame({"dataset": np.flatnonzero(test)[i], "algorithm": j,
                                 "error": np.abs(np.log(predicted[i, j] / measured[i, j]))}))
    return pd.concat(out, ignore_index=True).sort_values(["dataset", "algorithm"],
                                                         ignore_index=True)


@dataclass(frozen=True, eq=False)
class BudgetPlan:
    """The configurations to run within a time budget, in the strategy's order.

    Attributes
    ----------
    budget : float
        Seconds.
    protocol : str
        What each predicted time is for (e.g. one 5-fold cross-validation).
    table : DataFrame
        ``rank`` (in the strategy's whole order), ``algorithm``, ``predicted_time``,
        ``cumulative_time``: the planned configurations, first to run first.
    skipped : tuple of str
        Configurations of the order predicted not to fit in what was left.
    expected_best, expected_best_sd : float
        Mean and standard deviation over the knowledge base's datasets of the best
        success among the planned configurations (NaN when none is planned).
    oracle_best : float
        Mean over the same datasets of the best success of the whole pool.
    """

    budget: float
    protocol: str
    table: pd.DataFrame
    skipped: tuple
    expected_best: float
    expected_best_sd: float
    oracle_best: float


def plan_budget(algorithms, predicted, budget, success=None, *, rank=None,
                protocol="") -> BudgetPlan:
    """Keep the configurations of an order that fit in ``budget``, in that order.

    Each configuration is kept when its predicted time fits in what is left; one that
    does not is skipped (a later, cheaper one may still fit). The cumulative predicted
    time of the plan therefore never exceeds the budget.

    Parameters
    ----------
    algorithms : sequence of str
        The strategy's order, first to try first.
    predicted : array-like of float
        Predicted seconds of each, in the same order.
    budget : float
        Seconds.
    success : array-like of shape (D, len(algorithms)), optional
        Past datasets' success of each configuration (same column order), for the
        expected best-so-far success at the budget.
    rank : array-like of int, optional
        Each configuration's rank in the whole order (default 1, 2, ...).

    Examples
    --------
    >>> plan = plan_budget(["A", "B", "C"], [4.0, 7.0, 5.0], 10.0)
    >>> plan.table["algorithm"].tolist(), plan.table["cumulative_time"].tolist()
    (['A', 'C'], [4.0, 9.0])
    >>> plan.skipped
    ('B',)
    """
    budget = parse_budget(budget)
    algorithms = [str(a) for a in algorithms]
    predicted = np.asarray(predicted, dtype=np.float64)
    if predicted.shape != (len(algorithms),):
        raise ValueError(f"predicted must have one time per algorithm "
                         f"({len(algorithms)}), got shape {predicted.shape}.")
    if not np.all(np.isfinite(predicted) & (predicted >= 0)):
        raise ValueError("predicted times must be finite and >= 0.")
    rank = np.arange(1, len(algorithms) + 1) if rank is None else np.asarray(rank)
    kept, cumulative, skipped, total = [], [], [], 0.0
    for j, t in enumerate(predicted):
        if total + t <= budget:
            total += float(t)
            kept.append(j)
            cumulative.append(total)
        else:
            skipped.append(algorithms[j])
    table = pd.DataFrame({"rank": rank[kept].astype(np.int64),
                          "algorithm": [algorithms[j] for j in kept],
                          "predicted_time": predicted[kept],
                          "cumulative_time": np.asarray(cumulative, dtype=np.float64)})
    best = sd = oracle = float("nan")
    if success is not None:
        success = np.asarray(success, dtype=np.float64)
        oracle = float(np.mean(success.max(axis=1)))
        if kept:
            per_dataset = success[:, kept].max(axis=1)
            best, sd = float(per_dataset.mean()), float(per_dataset.std(ddof=1)
                                                        if per_dataset.size > 1 else 0.0)
    return BudgetPlan(budget, protocol, table, tuple(skipped), best, sd, oracle)


def predicted_times(kb, rows, cols, traits=None):
    """Predicted seconds of each of ``kb``'s configurations on data of ``rows`` x
    ``cols`` (:class:`TimeModel` fitted on all of ``kb``; with the data's ``traits``,
    :func:`data_traits`, where given and ``kb`` stores them for its datasets), or None
    when ``kb`` does not know its datasets' rows."""
    return predicted_times_and_basis(kb, rows, cols, traits)[0]


def predicted_times_and_basis(kb, rows, cols, traits=None):
    """:func:`predicted_times` and, in words, what the prediction read: ``"this data's
    rows, columns, tree size and numeric share"``, ``"this data's rows and columns"``,
    ``"this data's rows"``, or ``""`` when there is none."""
    past_rows, past_cols, times = knowledge_shape(kb)
    if not np.all(past_rows > 0) or not np.isfinite(times).any():
        return None, ""
    past_traits = None
    if past_cols is not None and traits is not None and np.all(np.isfinite(traits)):
        past_traits = knowledge_traits(kb)
    model = TimeModel.fit(past_rows, past_cols, times, kb.algorithms, traits=past_traits)
    if model.n_traits:
        return (model.predict(rows, cols, traits),
                "this data's rows, columns, tree size and numeric share")
    return (model.predict(rows, cols if model.uses_columns else None),
            "this data's rows and columns" if model.uses_columns else "this data's rows")


def protocol_of(source) -> str:
    """What a knowledge base's recorded times are for, in words."""
    folds = None
    provenance = getattr(source, "provenance", None)
    if isinstance(provenance, dict) and isinstance(provenance.get("study"), dict):
        folds = provenance["study"].get("folds")
    elif isinstance(source, (str, bytes)) or hasattr(source, "__fspath__") \
            or hasattr(source, "study_config"):
        try:  # a store: its study's folds
            from metaeval.store import Store

            store = source if hasattr(source, "study_config") else Store(source)
            folds = (store.study_config() or {}).get("folds") if store.exists() else None
        except Exception:  # noqa: BLE001 - the words only; the plan does not need them
            folds = None
    what = f"one {folds}-fold cross-validation" if folds else \
        "one cross-validation as in the knowledge base's study"
    return f"{what} (reading the data, then every fold's fit and prediction, one thread)"


def format_seconds(seconds: float) -> str:
    """``42 s``, ``12.5 min``, ``1.5 h``."""
    if seconds < 120:
        return f"{seconds:.3g} s"
    if seconds < 7200:
        return f"{seconds / 60:.3g} min"
    return f"{seconds / 3600:.3g} h"
