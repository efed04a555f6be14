"""Validation of the long input frames and their conversion to dense matrices.

Success frames are long, with columns ``dataset``, ``algorithm``, optionally
``fold``, and ``value``; time frames have ``dataset``, ``algorithm``,
optionally ``fold``, and ``time``. Everything downstream works on dense
``(n_datasets, n_algorithms)`` matrices whose rows and columns are sorted by
label, so that no result depends on the row order of the input.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

DATASET = "dataset"
ALGORITHM = "algorithm"
FOLD = "fold"
VALUE = "value"
TIME = "time"

_SHOWN = 5  # how many offending rows an error message names


@dataclass(frozen=True, eq=False)
class _Matrix:
    """A dense (n_datasets, n_algorithms) view of a long frame."""

    datasets: pd.Index
    algorithms: pd.Index
    values: np.ndarray  # float64, shape (n_datasets, n_algorithms)


@dataclass(frozen=True, eq=False)
class _Long:
    """A checked long frame as integer codes into sorted labels, plus float values."""

    name: str
    keys: tuple  # (DATASET, ALGORITHM[, FOLD])
    codes: tuple  # one int array per key
    labels: tuple  # one sorted pd.Index per key
    values: np.ndarray

    def shape(self):
        return tuple(len(u) for u in self.labels)

    def dense(self):
        """Dense array over the label grid (NaN where a cell is absent)."""
        out = np.full(self.shape(), np.nan)
        out[self.codes] = self.values
        return out


def _check_bool(flag, name):
    if not isinstance(flag, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {flag!r}.")
    return bool(flag)


def _check_alpha(alpha, name="alpha"):
    try:
        value = float(alpha)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in (0, 1), got {alpha!r}.") from None
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must lie in (0, 1), got {alpha!r}.")
    return value


def _show(rows):
    """Format up to ``_SHOWN`` label tuples for an error message."""
    rows = list(rows)
    shown = ", ".join(repr(tuple(_plain(v) for v in r)) for r in rows[:_SHOWN])
    more = f" and {len(rows) - _SHOWN} more" if len(rows) > _SHOWN else ""
    return f"{shown}{more}"


def _plain(value):
    """numpy scalars as Python scalars, for readable messages."""
    return value.item() if isinstance(value, np.generic) else value


def _check_frame(frame, name, value_col):
    """Check columns, labels, values and duplicates; return a :class:`_Long`."""
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(
            f"{name} must be a pandas DataFrame with columns "
            f"[{DATASET!r}, {ALGORITHM!r}, ({FOLD!r},) {value_col!r}], "
            f"got {type(frame).__name__}."
        )
    required = [DATASET, ALGORITHM, value_col]
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{name} is missing column(s) {missing}; it needs {required}"
            f" (and optionally {FOLD!r}), got columns {list(frame.columns)}."
        )
    if len(frame) == 0:
        raise ValueError(f"{name} is empty; at least one row is needed.")
    keys = (DATASET, ALGORITHM) + ((FOLD,) if FOLD in frame.columns else ())
    codes, labels = [], []
    for k in keys:
        column = frame[k]
        if column.isna().any():
            raise ValueError(f"{name} has missing labels in column {k!r}.")
        c, u = pd.factorize(column.to_numpy(dtype=object), sort=True)
        codes.append(c)
        labels.append(pd.Index(u, dtype=object, name=k))
    col = frame[value_col]
    if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
        raise ValueError(f"{name}[{value_col!r}] must be numeric, got dtype {col.dtype}.")
    values = col.to_numpy(dtype=np.float64, na_value=np.nan)
    long = _Long(name, keys, tuple(codes), tuple(labels), values)
    bad = ~np.isfinite(values)
    if bad.any():
        what = "NaN" if np.isnan(values[bad]).any() else "infinite"
        raise ValueError(
            f"{name}[{value_col!r}] has {int(bad.sum())} {what} value(s), at "
            f"{_show(_cells(long, np.flatnonzero(bad)))}; "
            "rankings need a finite value in every cell."
        )
    flat = np.ravel_multi_index(long.codes, long.shape())
    counts = np.bincount(flat, minlength=int(np.prod(long.shape())))
    if np.any(counts > 1):
        cells = np.unravel_index(np.flatnonzero(counts > 1), long.shape())
        raise ValueError(
            f"{name} has duplicate rows for {list(keys)}: {_show(_grid_cells(long, cells))}; "
            "aggregate repeats first (for example with success_from_folds)."
        )
    return long


def _cells(long, rows):
    """Label tuples of the given rows of a long frame."""
    return [tuple(u[c[r]] for u, c in zip(long.labels, long.codes, strict=True)) for r in rows]


def _grid_cells(long, index_arrays):
    """Label tuples of grid positions, given one index array per key."""
    return [
        tuple(long.labels[k][i] for k, i in enumerate(idx))
        for idx in zip(*index_arrays, strict=True)
    ]


def _fold_cube(long):
    """Dense (n_datasets, n_algorithms, n_folds) cube and the folds present per dataset.

    Every algorithm must have a value on every fold that appears for its dataset.
    """
    if FOLD not in long.keys:
        raise ValueError(f"{long.name} has no {FOLD!r} column; per-fold values are needed.")
    cube = long.dense()
    present = ~np.all(np.isnan(cube), axis=1)  # (n_datasets, n_folds)
    holes = np.isnan(cube) & present[:, None, :]
    if holes.any():
        cells = np.nonzero(holes)
        raise ValueError(
            f"{long.name} is missing {int(holes.sum())} (dataset, algorithm, fold) cell(s): "
            f"{_show(_grid_cells(long, cells))}; every algorithm needs a value on every "
            "fold of a dataset."
        )
    return cube, present


def _matrix_of(long, values, name):
    """Wrap a dense (datasets, algorithms) array, checking completeness and k >= 2."""
    holes = np.isnan(values)
    if holes.any():
        cells = np.nonzero(holes)
        raise ValueError(
            f"{name} is missing {int(holes.sum())} (dataset, algorithm) cell(s): "
            f"{_show(_grid_cells(long, cells))}; every algorithm needs a value on every "
            "dataset."
        )
    if values.shape[1] < 2:
        raise ValueError(
            f"{name} holds {values.shape[1]} algorithm(s); a ranking needs at least two."
        )
    return _Matrix(long.labels[0], long.labels[1], values)


def _success_matrix(success, name="success"):
    """Dense success matrix; per-fold values are averaged over folds."""
    long = _check_frame(success, name, VALUE)
    if FOLD in long.keys:
        cube, present = _fold_cube(long)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.nansum(cube, axis=2) / present.sum(axis=1)[:, None]
        values[np.all(np.isnan(cube), axis=2)] = np.nan
    else:
        values = long.dense()
    return _matrix_of(long, values, name)


def _time_matrix(times, datasets, algorithms, name="times"):
    """Dense time matrix aligned to (datasets, algorithms); times must be > 0.

    Per-fold times are averaged; rows for other datasets or algorithms are ignored.
    """
    long = _check_frame(times, name, TIME)
    d_idx = datasets.get_indexer(long.labels[0])[long.codes[0]]
    a_idx = algorithms.get_indexer(long.labels[1])[long.codes[1]]
    keep = (d_idx >= 0) & (a_idx >= 0)
    shape = (len(datasets), len(algorithms))
    flat = np.ravel_multi_index((d_idx[keep], a_idx[keep]), shape)
    size = shape[0] * shape[1]
    counts = np.bincount(flat, minlength=size)
    sums = np.bincount(flat, weights=long.values[keep], minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = (sums / counts).reshape(shape)
    holes = counts.reshape(shape) == 0
    if holes.any():
        rows = [(datasets[i], algorithms[j]) for i, j in zip(*np.nonzero(holes), strict=True)]
        raise ValueError(
            f"{name} is missing {len(rows)} (dataset, algorithm) cell(s) present in "
            f"success: {_show(rows)}."
        )
    bad = long.values[keep] <= 0
    if bad.any():
        rows = np.flatnonzero(keep)[bad]
        cells = _cells(long, rows)
        shown = [c + (long.values[r],) for c, r in zip(cells, rows, strict=True)]
        raise ValueError(f"{name}[{TIME!r}] must be positive for time ratios, got {_show(shown)}.")
    return values


def _positive(matrix, name="success"):
    """Success ratios need strictly positive values."""
    if np.any(matrix.values <= 0):
        idx = np.argwhere(matrix.values <= 0)
        rows = [(matrix.datasets[i], matrix.algorithms[j], matrix.values[i, j]) for i, j in idx]
        raise ValueError(
            f"{name}[{VALUE!r}] must be positive for success rate ratios, got {_show(rows)}."
        )


def _ranks(values, higher_is_better):
    """Per-dataset ranks (1 = best, ties get the average rank), shape like ``values``."""
    oriented = -values if higher_is_better else values
    return stats.rankdata(oriented, method="average", axis=-1)


def success_from_folds(success):
    r"""Average per-fold success values into one value per (dataset, algorithm).

    .. math::

        SR_{a_p}^{d_i} = \frac{1}{F_i} \sum_{f=1}^{F_i} SR_{a_p}^{d_i, f}

    Parameters
    ----------
    success : DataFrame
        Long frame with columns ``dataset``, ``algorithm``, optionally
        ``fold``, and ``value`` (one row per cell). With a ``fold`` column,
        every algorithm must have a value on every fold that appears for its
        dataset; without one, the frame is only validated.

    Returns
    -------
    DataFrame
        Columns ``dataset``, ``algorithm``, ``value``, one row per
        (dataset, algorithm), sorted by dataset then algorithm.

    Raises
    ------
    ValueError
        On missing columns, NaN or infinite values, duplicate rows, or missing
        (dataset, algorithm[, fold]) cells; the message names the cells.

    References
    ----------
    Brazdil, Soares & da Costa (2003), Ranking learning algorithms, Machine Learning
    50(3), cited as [4] in Abdulrahman & Brazdil (2014): success rates are estimated by
    cross-validation, i.e. averaged over the folds.

    Examples
    --------
    >>> import pandas as pd
    >>> folds = pd.DataFrame({"dataset": ["d1"] * 4, "algorithm": ["A", "A", "B", "B"],
    ...                       "fold": [0, 1, 0, 1], "value": [0.8, 0.9, 0.6, 0.7]})
    >>> success_from_folds(folds)
      dataset algorithm  value
    0      d1         A   0.85
    1      d1         B   0.65
    """
    matrix = _success_matrix(success)
    return _long(matrix, VALUE)


def _long(matrix, value_col):
    d, k = matrix.values.shape
    return pd.DataFrame(
        {
            DATASET: np.repeat(matrix.datasets.to_numpy(dtype=object), k),
            ALGORITHM: np.tile(matrix.algorithms.to_numpy(dtype=object), d),
            value_col: matrix.values.reshape(-1),
        }
    )


def dataset_ranks(success, *, higher_is_better=True):
    r"""Rank the algorithms on each dataset (1 = best, ties get the average rank).

    .. math::

        r_{a_p}^{d_i} = 1 + \#\{q : SR_{a_q}^{d_i} \succ SR_{a_p}^{d_i}\}
        + \tfrac{1}{2}\#\{q \ne p : SR_{a_q}^{d_i} = SR_{a_p}^{d_i}\}

    where :math:`\succ` is "better than" (greater, or smaller when
    ``higher_is_better=False``). On every dataset the ranks sum to
    :math:`k(k+1)/2`.

    Parameters
    ----------
    success : DataFrame
        Long frame ``[dataset, algorithm, (fold,) value]``; per-fold values are
        averaged first (see :func:`success_from_folds`).
    higher_is_better : bool, default=True
        False for losses (error rate, time, log loss).

    Returns
    -------
    DataFrame
        Columns ``dataset``, ``algorithm``, ``rank``, sorted by dataset then
        algorithm.

    References
    ----------
    Brazdil, Soares & da Costa (2003), sec. on average ranks, cited as [4] in
    Abdulrahman & Brazdil (2014); Demšar (2006), JMLR 7, sec. 3.2.2.

    Examples
    --------
    >>> import pandas as pd
    >>> acc = pd.DataFrame({"dataset": ["d1"] * 3, "algorithm": ["A", "B", "C"],
    ...                     "value": [0.9, 0.7, 0.9]})
    >>> dataset_ranks(acc)
      dataset algorithm  rank
    0      d1         A   1.5
    1      d1         B   3.0
    2      d1         C   1.5
    """
    higher_is_better = _check_bool(higher_is_better, "higher_is_better")
    matrix = _success_matrix(success)
    ranks = _ranks(matrix.values, higher_is_better)
    return _long(_Matrix(matrix.datasets, matrix.algorithms, ranks), "rank")


def _snap_ties(key, rtol=1e-12):
    """Make values equal when they differ only by rounding (relative ``rtol``).

    Two algorithms with the same success on every dataset can get aggregate scores that
    differ in the last bits, depending on the order of the floating-point operations; they
    are tied and must rank as ties. Runs of sorted values whose consecutive gaps are within
    ``rtol`` of the largest magnitude take the value of the run's first member.
    """
    key = np.array(key, dtype=np.float64)
    finite = np.isfinite(key)
    if finite.sum() < 2:
        return key
    values = key[finite]
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    tol = rtol * np.max(np.abs(ordered))
    starts = np.r_[True, np.diff(ordered) > tol]
    ordered = ordered[np.flatnonzero(starts)[np.cumsum(starts) - 1]]
    values[order] = ordered
    key[finite] = values
    return key


def _ranking_frame(algorithms, score, *, larger_is_better):
    """Tidy (algorithm, score, rank) frame, best first; NaN scores last with NaN rank.

    Ties keep the label order of ``algorithms`` (sorted), and share the average rank.
    """
    score = np.asarray(score, dtype=np.float64)
    key = _snap_ties(-score if larger_is_better else score)
    order = np.argsort(key, kind="stable")  # NaN sorts last
    rank = np.full(score.shape, np.nan)
    finite = ~np.isnan(score)
    if finite.any():
        rank[finite] = stats.rankdata(key[finite], method="average")
    labels = np.asarray(
        algorithms.to_numpy(dtype=object) if hasattr(algorithms, "to_numpy") else algorithms,
        dtype=object,
    )
    return pd.DataFrame({ALGORITHM: labels[order], "score": score[order], "rank": rank[order]})
