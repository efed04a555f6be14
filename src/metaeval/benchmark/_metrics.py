"""The metric registry and :func:`compute_metrics`.

The ten scikit-learn metrics are those of the algorithm-benchmark web page on value
captured, metric disagreement and bootstrap stability (no printed reference; it follows
Caruana & Niculescu-Mizil 2006).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from metaeval._validation import check_binary_target
from metaeval.benchmark._checks import check_frame, check_numeric

# The five canonical threshold choice methods (ARCHITECTURE.md); metaeval.hardness.METHODS.
_HARDNESS_METHODS = ("score-fixed", "score-driven", "rate-driven", "score-uniform", "rate-uniform")


def _mean_hardness(y, s, *, method, t=0.5):
    """Mean instance hardness of ``s`` under ``method`` (a loss: lower is better)."""
    from metaeval.hardness import instance_hardness  # lazy: hardness is a sibling measure

    return float(np.mean(instance_hardness(y, s, method, t=t)))


class _Sklearn:
    """A :mod:`sklearn.metrics` function by name, imported when first called (importing
    scikit-learn's metrics costs about half a second, which commands that never call
    them -- all ten have a vectorised twin in ``_grouped`` -- need not pay)."""

    def __init__(self, name: str):
        self.name = name

    def resolve(self) -> Callable:
        from sklearn import metrics

        return getattr(metrics, self.name)

    def __call__(self, *args, **kwargs):
        return self.resolve()(*args, **kwargs)

    def __repr__(self) -> str:
        return f"sklearn.metrics.{self.name}"


@dataclass(frozen=True)
class Metric:
    """One performance metric of a binary scorer, as used by :func:`compute_metrics`.

    Attributes
    ----------
    name : str
        Registry key, e.g. ``"auc"`` or ``"hardness:rate-driven"``.
    label : str
        Human-readable name for tables and abstracts.
    function : callable
        The implementation: a :mod:`sklearn.metrics` function (held by name and imported
        when first called; :attr:`implementation` gives the function itself), or the
        mean of :func:`metaeval.hardness.instance_hardness` for the hardness metrics.
    higher_is_better : bool
        False for losses (Brier score, log loss, mean hardness).
    needs : {"labels", "scores", "hardness"}
        ``"labels"``: called as ``function(y, y_pred, **kwargs)`` on crisp predictions
        ``y_pred = (s > threshold)``; ``"scores"``: ``function(y, s, **kwargs)``;
        ``"hardness"``: ``function(y, s, t=threshold)``.
    kwargs : tuple of (str, object) pairs
        Fixed keyword arguments passed to ``function``.
    needs_both_classes : bool
        The metric is undefined (NaN) when ``y`` holds one class only.

    Examples
    --------
    >>> METRICS["accuracy"]([0, 1, 1, 0], [0.2, 0.9, 0.4, 0.5])
    0.75
    >>> METRICS["brier"].higher_is_better
    False
    """

    name: str
    label: str
    function: Callable
    higher_is_better: bool
    needs: str
    kwargs: tuple = ()
    needs_both_classes: bool = False

    @property
    def implementation(self) -> Callable:
        """The function itself (a :mod:`sklearn.metrics` function is imported now)."""
        f = self.function
        return f.resolve() if isinstance(f, _Sklearn) else f

    def __call__(self, y, s, *, threshold=0.5):
        """Evaluate on class-1 indicators ``y`` (0/1) and scores ``s`` = P(y = 1)."""
        y = np.asarray(y)
        s = np.asarray(s, dtype=np.float64)
        one_class = y.min() == y.max()
        if one_class and self.needs_both_classes:
            return float("nan")
        kwargs = dict(self.kwargs)
        if self.needs == "hardness":
            return float(self.function(y, s, t=threshold))
        arg = (s > threshold).astype(np.int8) if self.needs == "labels" else s
        import sklearn

        with sklearn.config_context(skip_parameter_validation=True), warnings.catch_warnings():
            # with one class present, balanced accuracy averages the recall of that class
            # and warns that y_pred holds the other; the case is documented, not an error.
            warnings.filterwarnings("ignore", message="y_pred contains classes not in y_true")
            return float(self.function(y, arg, **kwargs))


def _metric(name, label, function, higher_is_better, needs, needs_both_classes=False, **kwargs):
    return Metric(
        name, label, function, higher_is_better, needs, tuple(kwargs.items()), needs_both_classes
    )


#: All metrics known to :func:`compute_metrics`, in the order tables show them.
METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        _metric("accuracy", "accuracy", _Sklearn("accuracy_score"), True, "labels"),
        _metric("balanced_accuracy", "balanced accuracy", _Sklearn("balanced_accuracy_score"),
                True, "labels"),
        _metric("f1", "F1 score", _Sklearn("f1_score"), True, "labels", pos_label=1,
                zero_division=0.0),
        _metric("mcc", "Matthews correlation", _Sklearn("matthews_corrcoef"), True, "labels"),
        _metric("precision", "precision", _Sklearn("precision_score"), True, "labels",
                pos_label=1, zero_division=0.0),
        _metric("recall", "recall", _Sklearn("recall_score"), True, "labels", pos_label=1,
                zero_division=0.0),
        _metric("auc", "AUC", _Sklearn("roc_auc_score"), True, "scores",
                needs_both_classes=True),
        _metric("average_precision", "average precision", _Sklearn("average_precision_score"),
                True, "scores", needs_both_classes=True, pos_label=1),
        _metric("brier", "Brier score", _Sklearn("brier_score_loss"), False, "scores",
                pos_label=1),
        _metric("log_loss", "log loss", _Sklearn("log_loss"), False, "scores", labels=[0, 1]),
        *(
            _metric(f"hardness:{m}", f"mean instance hardness ({m})",
                    partial(_mean_hardness, method=m), False, "hardness")
            for m in _HARDNESS_METHODS
        ),
    )
}

#: The ten scikit-learn metrics of the algorithm-benchmark web page.
SKLEARN_METRICS = tuple(list(METRICS)[:10])
#: Mean instance hardness under each threshold choice method (losses).
HARDNESS_METRICS = tuple(list(METRICS)[10:])


def _check_metrics(metrics, threshold) -> list[str]:
    """The metric names asked for (all by default) and a valid threshold, or a ValueError."""
    names = list(METRICS) if metrics is None else list(metrics)
    if isinstance(metrics, str):
        raise ValueError("metrics must be a sequence of metric names, not a single string.")
    if not names:
        raise ValueError("metrics is empty; name at least one metric.")
    unknown = [m for m in names if m not in METRICS]
    if unknown:
        raise ValueError(f"metrics contains unknown name(s) {unknown}; known: {list(METRICS)}.")
    if len(set(names)) != len(names):
        raise ValueError("metrics contains duplicate names.")
    if (isinstance(threshold, bool)
            or not isinstance(threshold, (int, float, np.integer, np.floating))
            or not 0.0 <= float(threshold) <= 1.0):
        raise ValueError(f"threshold must be a number in [0, 1], got {threshold!r}.")
    return names


def compute_metrics(scores, *, metrics=None, threshold=0.5, level="pooled", pos_label=1):
    """Compute performance metrics per (dataset, algorithm) from out-of-fold scores.

    Crisp metrics use the metaeval convention at threshold :math:`t`:

    .. math::

        \\hat y_i = 1 \\iff s_i > t, \\qquad \\hat y_i = 0 \\iff s_i \\le t,

    where :math:`s_i` estimates :math:`P(y_i = 1)`. Every metric is the
    scikit-learn implementation named in :data:`METRICS` (or the mean of
    :func:`metaeval.hardness.instance_hardness` for ``"hardness:<method>"``).

    Parameters
    ----------
    scores : pandas.DataFrame
        Long frame with columns ``dataset``, ``algorithm``, ``y`` (two labels),
        ``score`` (in [0, 1], the estimate of P(y = ``pos_label``)), and
        optionally ``repeat`` and ``fold`` (e.g. ``Store.scores_frame()``).
        Other columns are ignored.
    metrics : sequence of str, optional
        Names from :data:`METRICS`; default all fifteen (the ten of the
        algorithm-benchmark web page and the mean hardness under the five threshold
        choice methods).
    threshold : float, default=0.5
        The threshold :math:`t` for the crisp metrics and for ``score-fixed`` hardness.
    level : {"pooled", "fold"}, default="pooled"
        ``"pooled"``: each metric on all out-of-fold scores of one repeat (folds
        pooled), then the mean over repeats. ``"fold"``: one value per fold,
        keeping the ``repeat`` (if any) and ``fold`` columns.
    pos_label : scalar, default=1
        The label of ``y`` that is class 1.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset``, ``algorithm``, [``repeat``, ``fold``,] ``metric``,
        ``value``, sorted by dataset and algorithm, metrics in the requested order.

    Notes
    -----
    Degenerate cases, handled explicitly:

    - ``auc`` and ``average_precision`` rank instances of both classes; when a
      group holds one class only they are NaN (scikit-learn would return NaN
      with a warning for AUC, and 0 or 1 for average precision).
    - ``precision``, ``recall`` and ``f1`` use ``zero_division=0``: precision
      with no predicted class-1 instance is 0, recall with no class-1 instance is 0.
    - ``mcc`` is 0 when its denominator is 0 (scikit-learn's rule).
    - ``balanced_accuracy`` with one class present is the recall of that class.
    - ``log_loss`` is computed with ``labels=[0, 1]``; scikit-learn clips the
      scores to :math:`[\\varepsilon, 1 - \\varepsilon]`, :math:`\\varepsilon` the float64
      machine epsilon, so a confidently wrong score costs
      :math:`-\\ln \\varepsilon \\approx 36.04`.
    - ``f1``, ``precision``, ``recall`` and ``average_precision`` treat class 1
      (the class the score estimates) as scikit-learn's positive class.

    References
    ----------
    The algorithm-benchmark web page: "We evaluate each algorithm on each dataset using
    ten different metrics"; the hardness metrics follow Melo & Prudêncio (2014) and
    Prudêncio (2019).

    Examples
    --------
    >>> import pandas as pd
    >>> scores = pd.DataFrame({
    ...     "dataset": "toy", "algorithm": "A",
    ...     "y": [0, 0, 1, 1], "score": [0.1, 0.6, 0.4, 0.9]})
    >>> compute_metrics(scores, metrics=["accuracy", "auc"])
      dataset algorithm    metric  value
    0     toy         A  accuracy   0.50
    1     toy         A       auc   0.75
    """

    check_frame(scores, "scores", ("dataset", "algorithm", "y", "score"))
    names = _check_metrics(metrics, threshold)
    if level not in ("pooled", "fold"):
        raise ValueError(f"level must be 'pooled' or 'fold', got {level!r}.")
    if level == "fold" and "fold" not in scores.columns:
        raise ValueError("level='fold' needs a 'fold' column in scores.")
    y = check_binary_target(scores["y"].to_numpy(), pos_label=pos_label, name="scores['y']")
    s = check_numeric(scores["score"].to_numpy(), "scores", "score")
    if s.min() < 0.0 or s.max() > 1.0:
        raise ValueError(
            f"scores['score'] must lie in [0, 1] (estimates of P(y = 1)); "
            f"found values in [{s.min():g}, {s.max():g}]."
        )
    keys = ["dataset", "algorithm"] + [c for c in ("repeat",) if c in scores.columns]
    if level == "fold":
        keys.append("fold")
    for k in keys:
        if scores[k].isna().any():
            raise ValueError(f"scores[{k!r}] contains missing values.")
    from metaeval.benchmark._grouped import GROUPED, grouped_metrics

    grouper = scores.groupby(keys, sort=True)
    labels = grouper.size().index  # sorted group keys
    gid = grouper.ngroup().to_numpy()
    n_groups = len(labels)
    fast = grouped_metrics(y, s, gid, n_groups, [m for m in names if m in GROUPED],
                           threshold=float(threshold))
    slow = [METRICS[m] for m in names if m not in GROUPED]
    if slow:
        indices = grouper.indices
        for m in slow:
            fast[m.name] = np.array([m(y[indices[key]], s[indices[key]],
                                       threshold=float(threshold)) for key in labels])
    key_columns = {
        k: np.repeat(np.asarray(labels.get_level_values(i) if len(keys) > 1 else labels,
                                dtype=object), len(names))
        for i, k in enumerate(keys)
    }
    out = pd.DataFrame({
        **key_columns,
        "metric": np.tile(np.asarray(names, dtype=object), n_groups),
        "value": np.column_stack([fast[m] for m in names]).ravel().astype(float),
    })
    for k in keys:  # the key columns keep their dtypes
        out[k] = out[k].astype(scores[k].dtype) if scores[k].dtype != object else out[k]
    if level == "pooled" and "repeat" in keys:
        out = (
            out.groupby(["dataset", "algorithm", "metric"], sort=False)["value"]
            .mean()
            .reset_index()
        )
    order = {m: i for i, m in enumerate(names)}
    sort_keys = [k for k in out.columns if k not in ("metric", "value")]
    out = out.assign(_o=out["metric"].map(order)).sort_values([*sort_keys, "_o"], kind="stable")
    return out.drop(columns="_o").reset_index(drop=True)


def matrix_metrics(y, S, algorithms, *, dataset, folds=None, metrics=None, threshold=0.5,
                   pos_label=1):
    """:func:`compute_metrics` of one dataset's score matrix, without a long frame.

    The same values, in the same layout, as ``compute_metrics`` of the long frame of
    ``(y, S)`` (pooled, or per fold with ``folds``); the matrix a store reads
    (:meth:`metaeval.store.Store.scores`, :meth:`~metaeval.store.Store.folds`) goes in
    as it is, so a study of hundreds of algorithms builds no frame of strings.

    Parameters
    ----------
    y : array-like of shape (n_instances,)
    S : array-like of shape (n_instances, n_algorithms)
        Out-of-fold scores in [0, 1], estimates of P(y = ``pos_label``).
    algorithms : sequence of str of length n_algorithms
    dataset : str
        The value of the ``dataset`` column.
    folds : array-like of shape (n_instances,), optional
        The fold of each instance: one value per (algorithm, fold), as ``level="fold"``.
    metrics, threshold, pos_label
        As in :func:`compute_metrics`.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset``, ``algorithm``, [``fold``,] ``metric``, ``value``, sorted by
        algorithm (and fold), metrics in the requested order.

    Examples
    --------
    >>> import numpy as np
    >>> S = np.array([[0.1, 0.7], [0.6, 0.2], [0.4, 0.9], [0.9, 0.8]])
    >>> matrix_metrics([0, 0, 1, 1], S, ["A", "B"], dataset="toy", metrics=["accuracy"])
      dataset algorithm    metric  value
    0     toy         A  accuracy   0.50
    1     toy         B  accuracy   0.75
    """
    from metaeval.benchmark._grouped import GROUPED, grouped_metrics

    names = _check_metrics(metrics, threshold)
    y01 = check_binary_target(y, pos_label=pos_label, name="y")
    S = np.asarray(S)
    if S.ndim != 2 or S.shape[0] != y01.size or S.shape[1] == 0:
        raise ValueError(f"S must have shape ({y01.size}, n_algorithms) with at least one "
                         f"algorithm, got {S.shape}.")
    if S.dtype.kind not in "biuf":
        raise ValueError(f"S must be numeric, got dtype {S.dtype}.")
    S = S.astype(np.float64, copy=False)
    if not np.isfinite(S).all():
        raise ValueError("S contains NaN or infinite values.")
    if S.min() < 0.0 or S.max() > 1.0:
        raise ValueError(f"S must lie in [0, 1] (estimates of P(y = 1)); found values in "
                         f"[{S.min():g}, {S.max():g}].")
    algorithms = [str(a) for a in algorithms]
    if len(algorithms) != S.shape[1] or len(set(algorithms)) != len(algorithms):
        raise ValueError(f"algorithms must name the {S.shape[1]} columns of S, each once; "
                         f"got {algorithms!r}.")
    n, n_alg = S.shape
    order = np.argsort(np.asarray(algorithms, dtype=object), kind="stable")  # as groupby
    S = S[:, order]
    algorithms = [algorithms[j] for j in order]
    if folds is None:
        fold_ids, codes = None, np.zeros(n, dtype=np.int64)
    else:
        folds = np.asarray(folds)
        if folds.shape != (n,):
            raise ValueError(f"folds must have shape ({n},), one per instance, got "
                             f"{folds.shape}.")
        fold_ids, codes = np.unique(folds, return_inverse=True)
    n_f = 1 if fold_ids is None else fold_ids.size
    gid = (np.repeat(np.arange(n_alg) * n_f, n) + np.tile(codes, n_alg))
    y_flat, s_flat = np.tile(y01, n_alg), S.T.ravel()  # algorithm-major
    n_groups = n_alg * n_f
    values = grouped_metrics(y_flat, s_flat, gid, n_groups, [m for m in names if m in GROUPED],
                             threshold=float(threshold))
    slow = [METRICS[m] for m in names if m not in GROUPED]
    if slow:
        members = np.argsort(gid, kind="stable")
        bounds = np.searchsorted(gid[members], np.arange(n_groups + 1))
        for m in slow:
            values[m.name] = np.array([
                m(y_flat[members[a:b]], s_flat[members[a:b]], threshold=float(threshold))
                for a, b in zip(bounds[:-1], bounds[1:], strict=True)])
    out = {"dataset": np.full(n_groups * len(names), str(dataset), dtype=object),
           "algorithm": np.repeat(np.asarray(algorithms, dtype=object), n_f * len(names))}
    if fold_ids is not None:
        out["fold"] = np.tile(np.repeat(fold_ids, len(names)), n_alg)
    out["metric"] = np.tile(np.asarray(names, dtype=object), n_groups)
    out["value"] = np.column_stack([values[m] for m in names]).ravel().astype(float)
    return pd.DataFrame(out)
