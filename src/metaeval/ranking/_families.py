"""Rankings of algorithm families: each family stands for its members on every dataset.

A wide pool holds many configurations of one model family (``knn:k=1``, ``knn:k=5``,
...). To compare the families, each one is represented on every dataset by a single
success value, either its best member's (the family as tuned on that dataset, the
default) or the mean over its members (the family as used without tuning); the five
rankings of Abdulrahman & Brazdil (2014) and the tests of Demšar (2006) then apply to
the families exactly as they apply to algorithms. Frames in, frames out; no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from metaeval.ranking._frames import (
    ALGORITHM,
    DATASET,
    FOLD,
    TIME,
    VALUE,
    _check_bool,
    _check_frame,
    _fold_cube,
    _show,
    _success_matrix,
)
from metaeval.ranking._methods import RANKING_METHODS, rank_algorithms

#: How a family is represented on a dataset: its best member, or the mean of its members.
FAMILY_HOW = ("best", "mean")

FAMILY = "family"
MEMBER = "member"


def _check_how(how):
    if not isinstance(how, str) or how not in FAMILY_HOW:
        raise ValueError(f"how must be one of {FAMILY_HOW}, got {how!r}.")
    return how


def _family_codes(algorithms, families):
    """Family label of each algorithm (sorted family names, one code per algorithm)."""
    if not isinstance(families, Mapping):
        raise ValueError(
            f"families must be a mapping of algorithm -> family, got {type(families).__name__}."
        )
    missing = [a for a in algorithms if a not in families]
    if missing:
        raise ValueError(
            f"families has no family for {len(missing)} algorithm(s) of success: "
            f"{_show([(a,) for a in missing])}."
        )
    labels = [families[a] for a in algorithms]
    bad = [a for a, f in zip(algorithms, labels, strict=True) if not isinstance(f, str) or not f]
    if bad:
        raise ValueError(f"families must map each algorithm to a non-empty str; "
                         f"{_show([(a, families[a]) for a in bad])} are not.")
    codes, names = pd.factorize(np.asarray(labels, dtype=object), sort=True)
    return codes, pd.Index(names, dtype=object, name=FAMILY)


def family_members(success, families, *, higher_is_better=True):
    """The best member of each family on each dataset.

    The member with the best success averaged over the folds; ties go to the member
    whose name sorts first.

    Parameters
    ----------
    success : DataFrame
        Long frame ``[dataset, algorithm, (fold,) value]`` with one value per
        (dataset, algorithm[, fold]); every algorithm needs a value on every dataset.
    families : mapping of str to str
        The family of each algorithm (e.g. :func:`metaeval.algorithms.families`);
        it must name every algorithm of ``success``.
    higher_is_better : bool, default=True
        False for losses.

    Returns
    -------
    DataFrame
        Columns ``dataset``, ``family``, ``member``, ``value`` (the member's success,
        averaged over folds), sorted by dataset then family.

    Examples
    --------
    >>> import pandas as pd
    >>> acc = pd.DataFrame({"dataset": ["d1"] * 3 + ["d2"] * 3,
    ...                     "algorithm": ["a1", "a2", "b1"] * 2,
    ...                     "value": [0.7, 0.9, 0.8, 0.6, 0.5, 0.4]})
    >>> family_members(acc, {"a1": "a", "a2": "a", "b1": "b"})
      dataset family member  value
    0      d1      a     a2    0.9
    1      d1      b     b1    0.8
    2      d2      a     a1    0.6
    3      d2      b     b1    0.4
    """
    higher_is_better = _check_bool(higher_is_better, "higher_is_better")
    matrix = _success_matrix(success)
    codes, names = _family_codes(list(matrix.algorithms), families)
    chosen = _best_members(matrix.values, codes, len(names), higher_is_better)
    n_d, n_f = chosen.shape
    return pd.DataFrame({
        DATASET: np.repeat(matrix.datasets.to_numpy(dtype=object), n_f),
        FAMILY: np.tile(names.to_numpy(dtype=object), n_d),
        MEMBER: matrix.algorithms.to_numpy(dtype=object)[chosen.reshape(-1)],
        VALUE: np.take_along_axis(matrix.values, chosen, axis=1).reshape(-1),
    })


def _best_members(values, codes, n_families, higher_is_better):
    """Column index of each family's best member per row, shape (n_rows, n_families)."""
    oriented = values if higher_is_better else -values
    out = np.empty((values.shape[0], n_families), dtype=np.intp)
    for f in range(n_families):
        cols = np.flatnonzero(codes == f)  # sorted names: argmax's first maximum wins ties
        out[:, f] = cols[np.argmax(oriented[:, cols], axis=1)]
    return out


def family_success(success, families, *, how="best", higher_is_better=True):
    r"""Success of each family on each dataset: its best member's, or its members' mean.

    With ``how="best"`` the family's value on dataset :math:`d_i` is that of the member
    best on :math:`d_i` (averaged over the folds; see :func:`family_members`), per fold
    when the input has folds; with ``how="mean"``,

    .. math::

        SR_{F}^{d_i} = \frac{1}{|F|} \sum_{a \in F} SR_{a}^{d_i}

    (per fold when there are folds). The result is a success frame whose
    ``algorithm`` column holds family names, so every ranking of
    :mod:`metaeval.ranking` applies to it unchanged.

    Parameters
    ----------
    success : DataFrame
        Long frame ``[dataset, algorithm, (fold,) value]``; every algorithm needs a value
        on every dataset (and on every fold of it).
    families : mapping of str to str
        The family of each algorithm; it must name every algorithm of ``success``.
    how : {"best", "mean"}, default="best"
    higher_is_better : bool, default=True
        False for losses ("best" is then the smallest value).

    Returns
    -------
    DataFrame
        ``[dataset, algorithm, (fold,) value]`` with one row per (dataset, family[, fold]),
        sorted by dataset, family (and fold).

    References
    ----------
    Brazdil, Soares & da Costa (2003) and Abdulrahman & Brazdil (2014) for the rankings
    the result feeds.

    Examples
    --------
    Two families of two members on three datasets:

    >>> import pandas as pd
    >>> acc = pd.DataFrame({"dataset": [d for d in ("d1", "d2", "d3") for _ in range(4)],
    ...                     "algorithm": ["a1", "a2", "b1", "b2"] * 3,
    ...                     "value": [.9, .5, .8, .8, .6, .6, .7, .3, .8, .4, .7, .9]})
    >>> fams = {"a1": "a", "a2": "a", "b1": "b", "b2": "b"}
    >>> family_success(acc, fams).pivot(index="dataset", columns="algorithm", values="value")
    ... # doctest: +NORMALIZE_WHITESPACE
    algorithm    a    b
    dataset
    d1         0.9  0.8
    d2         0.6  0.7
    d3         0.8  0.9
    >>> family_success(acc, fams, how="mean")["value"].round(2).tolist()
    [0.7, 0.8, 0.6, 0.5, 0.6, 0.8]
    """
    how = _check_how(how)
    higher_is_better = _check_bool(higher_is_better, "higher_is_better")
    matrix = _success_matrix(success)  # validates; fold-averaged (datasets, algorithms)
    codes, names = _family_codes(list(matrix.algorithms), families)
    long = _check_frame(success, "success", VALUE)
    if FOLD in long.keys:
        cube, present = _fold_cube(long)  # (datasets, algorithms, folds)
        folds = long.labels[2]
    else:
        cube, present = matrix.values[:, :, None], np.ones((len(matrix.datasets), 1), bool)
        folds = None
    n_d, n_f = len(matrix.datasets), len(names)
    if how == "best":
        chosen = _best_members(matrix.values, codes, n_f, higher_is_better)
        out = np.take_along_axis(cube, chosen[:, :, None], axis=1)  # (datasets, families, folds)
    else:
        out = np.empty((n_d, n_f, cube.shape[2]))
        for f in range(n_f):
            out[:, f, :] = cube[:, codes == f, :].mean(axis=1)
    d_idx, f_idx, k_idx = np.nonzero(np.broadcast_to(present[:, None, :], out.shape))
    frame = {DATASET: matrix.datasets.to_numpy(dtype=object)[d_idx],
             ALGORITHM: names.to_numpy(dtype=object)[f_idx]}
    if folds is not None:
        frame[FOLD] = folds.to_numpy(dtype=object)[k_idx]
    frame[VALUE] = out[d_idx, f_idx, k_idx]
    result = pd.DataFrame(frame)
    if folds is not None:
        result[FOLD] = result[FOLD].infer_objects()
    return result


def family_times(times, success, families, *, how="best", higher_is_better=True):
    """Times of each family on each dataset, to go with :func:`family_success`.

    With ``how="best"`` a family's time on a dataset is the time of the member
    :func:`family_members` picks there (the best by success, not the fastest); with
    ``how="mean"`` it is the mean of its members' times. Rows of ``times`` for
    algorithms absent from ``success`` are ignored.

    Parameters
    ----------
    times : DataFrame
        Long frame ``[dataset, algorithm, (fold,) time]``.
    success : DataFrame
        The success frame given to :func:`family_success`.
    families : mapping of str to str
    how : {"best", "mean"}, default="best"
    higher_is_better : bool, default=True
        The direction of ``success`` (it decides the best member).

    Returns
    -------
    DataFrame
        ``[dataset, algorithm, (fold,) time]``, the ``algorithm`` column holding family
        names, sorted by dataset, family (and fold).

    Examples
    --------
    >>> import pandas as pd
    >>> acc = pd.DataFrame({"dataset": "d1", "algorithm": ["a1", "a2", "b1"],
    ...                     "value": [0.7, 0.9, 0.8]})
    >>> t = pd.DataFrame({"dataset": "d1", "algorithm": ["a1", "a2", "b1"],
    ...                   "time": [1.0, 3.0, 2.0]})
    >>> fams = {"a1": "a", "a2": "a", "b1": "b"}
    >>> family_times(t, acc, fams)["time"].tolist()   # a2 is a's best member
    [3.0, 2.0]
    >>> family_times(t, acc, fams, how="mean")["time"].tolist()
    [2.0, 2.0]
    """
    how = _check_how(how)
    _check_frame(times, "times", TIME)  # columns, finite values, no duplicate rows
    keys = [DATASET, FAMILY] + ([FOLD] if FOLD in times.columns else [])
    if how == "best":
        chosen = family_members(success, families, higher_is_better=higher_is_better)
        frame = times.merge(chosen[[DATASET, FAMILY, MEMBER]],
                            left_on=[DATASET, ALGORITHM], right_on=[DATASET, MEMBER],
                            how="inner")
        out = frame[keys + [TIME]]
    else:
        matrix = _success_matrix(success)
        algorithms = list(matrix.algorithms)
        _family_codes(algorithms, families)  # every algorithm of success has a family
        frame = times[times[ALGORITHM].isin(algorithms)]
        frame = frame.assign(**{FAMILY: frame[ALGORITHM].map(families)})
        out = frame.groupby(keys, sort=False)[TIME].mean().reset_index()
    out = out.rename(columns={FAMILY: ALGORITHM})
    order = [DATASET, ALGORITHM] + ([FOLD] if FOLD in out.columns else [])
    return out.sort_values(order, kind="stable").reset_index(drop=True)


def rank_families(success, families, times=None, method="ar", *, how="best", **kwargs):
    """Rank the algorithm families with one of the five methods; best first.

    Each family is represented on each dataset by its best member (``how="best"``) or
    by the mean of its members (``how="mean"``), see :func:`family_success` and
    :func:`family_times`; the families are then ranked by
    :func:`metaeval.ranking.rank_algorithms` exactly as algorithms are.

    Parameters
    ----------
    success : DataFrame
        Long frame ``[dataset, algorithm, (fold,) value]``.
    families : mapping of str to str
        The family of each algorithm; at least two families.
    times : DataFrame, optional
        ``[dataset, algorithm, (fold,) time]``; needed by ``"arr"`` and ``"a3r"``.
    method : {"ar", "srr", "sw", "arr", "a3r"}, default="ar"
    how : {"best", "mean"}, default="best"
    **kwargs
        Passed on to :func:`metaeval.ranking.rank_algorithms` (``higher_is_better``,
        ``accd``, ``n``, ...).

    Returns
    -------
    DataFrame
        Columns ``family``, ``score``, ``rank`` (1 = best) and ``configurations`` (the
        number of members), best first. For ``"ar"`` a lower score is better.

    References
    ----------
    Abdulrahman & Brazdil (2014); Brazdil, Soares & da Costa (2003).

    Examples
    --------
    The families of :func:`family_success`'s example: ``b`` wins on two of three
    datasets with its best member, and on two of three with its mean too.

    >>> import pandas as pd
    >>> acc = pd.DataFrame({"dataset": [d for d in ("d1", "d2", "d3") for _ in range(4)],
    ...                     "algorithm": ["a1", "a2", "b1", "b2"] * 3,
    ...                     "value": [.9, .5, .8, .8, .6, .6, .7, .3, .8, .4, .7, .9]})
    >>> fams = {"a1": "a", "a2": "a", "b1": "b", "b2": "b"}
    >>> rank_families(acc, fams)
      family     score  rank  configurations
    0      b  1.333333   1.0               2
    1      a  1.666667   2.0               2
    """
    how = _check_how(how)
    if method not in RANKING_METHODS:
        raise ValueError(f"method must be one of {RANKING_METHODS}, got {method!r}.")
    hib = kwargs.get("higher_is_better", True)
    fs = family_success(success, families, how=how, higher_is_better=hib)
    n_families = fs[ALGORITHM].nunique()
    if n_families < 2:
        raise ValueError(f"families puts every algorithm of success in {n_families} family; "
                         "ranking families needs at least two.")
    ft = None
    if times is not None and method in ("arr", "a3r"):
        ft = family_times(times, success, families, how=how, higher_is_better=hib)
    out = rank_algorithms(fs, ft, method=method, **kwargs)
    members = pd.Series([families[a] for a in pd.unique(success[ALGORITHM])]).value_counts()
    out = out.rename(columns={ALGORITHM: FAMILY})
    out["configurations"] = out[FAMILY].map(members).astype(int).to_numpy()
    return out
