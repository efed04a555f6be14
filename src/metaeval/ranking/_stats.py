"""Statistical comparison of algorithms over datasets (Demšar 2006, JMLR 7)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from metaeval.ranking._frames import (
    ALGORITHM,
    _check_alpha,
    _check_bool,
    _ranking_frame,
    _ranks,
    _success_matrix,
)


@dataclass(frozen=True, eq=False)
class FriedmanResult:
    """Friedman's test with the Iman-Davenport correction (Demšar 2006, sec. 3.2.2).

    Attributes
    ----------
    chi2 : float
        Friedman's :math:`\\chi^2_F` (tie-corrected unless asked otherwise).
    chi2_df : int
        Its degrees of freedom, :math:`k - 1`.
    chi2_pvalue : float
        Upper tail of :math:`\\chi^2_{k-1}` at ``chi2``.
    f_statistic : float
        Iman and Davenport's :math:`F_F`.
    f_df : tuple of int
        Its degrees of freedom, :math:`(k - 1, (k - 1)(N - 1))`.
    f_pvalue : float
        Upper tail of :math:`F` at ``f_statistic``.
    n_algorithms : int
        :math:`k`.
    n_datasets : int
        :math:`N`.
    average_ranks : DataFrame
        ``algorithm``, ``score`` (average rank), ``rank``, best first.
    """

    chi2: float
    chi2_df: int
    chi2_pvalue: float
    f_statistic: float
    f_df: tuple
    f_pvalue: float
    n_algorithms: int
    n_datasets: int
    average_ranks: pd.DataFrame

    @property
    def p_value(self):
        """The Iman-Davenport p-value ``f_pvalue``, the one Demšar (2006) recommends."""
        return self.f_pvalue


@dataclass(frozen=True, eq=False)
class CriticalDifferenceData:
    """What a critical-difference diagram draws (Demšar 2006, sec. 3.2.2, Fig. 1).

    Attributes
    ----------
    average_ranks : DataFrame
        ``algorithm``, ``score`` (average rank), ``rank``; best (lowest average
        rank) first.
    cd : float
        Nemenyi critical difference.
    q_alpha : float
        The critical value used, :math:`q_\\alpha`.
    alpha : float
    n_algorithms : int
    n_datasets : int
    groups : tuple of tuple of str
        Maximal sets of algorithms, listed best first, whose average ranks
        span less than ``cd`` (not significantly different); the bars of the
        diagram, best group first.
    friedman : FriedmanResult
        The omnibus test that should reject before the post-hoc test is read.
    """

    average_ranks: pd.DataFrame
    cd: float
    q_alpha: float
    alpha: float
    n_algorithms: int
    n_datasets: int
    groups: tuple
    friedman: FriedmanResult


def _rank_matrix(success, higher_is_better, min_datasets=2):
    higher_is_better = _check_bool(higher_is_better, "higher_is_better")
    matrix = _success_matrix(success)
    n = matrix.values.shape[0]
    if n < min_datasets:
        raise ValueError(
            f"success holds {n} dataset(s); comparing algorithms over datasets needs "
            f"at least {min_datasets}."
        )
    return matrix, _ranks(matrix.values, higher_is_better)


def friedman_test(success, *, higher_is_better=True, tie_correction=True):
    r"""Friedman's test over datasets, with the Iman-Davenport F statistic.

    With :math:`R_j` the average rank of algorithm :math:`j` over :math:`N`
    datasets and :math:`k` algorithms (Demšar 2006, sec. 3.2.2):

    .. math::

        \chi^2_F = \frac{12N}{k(k+1)}
        \left[\sum_j R_j^2 - \frac{k(k+1)^2}{4}\right], \qquad
        F_F = \frac{(N-1)\chi^2_F}{N(k-1) - \chi^2_F}

    :math:`\chi^2_F` has :math:`k-1` degrees of freedom and :math:`F_F`
    :math:`(k-1, (k-1)(N-1))`. With ``tie_correction=True`` (the default,
    as :func:`scipy.stats.friedmanchisquare`) :math:`\chi^2_F` is divided by
    :math:`1 - \sum_{i}\sum_{g}(t_{ig}^3 - t_{ig}) / (N k (k^2 - 1))` over the
    groups of :math:`t_{ig}` tied algorithms on each dataset; without ties
    this is 1 and the statistic is Demšar's. When every dataset ties all
    algorithms, :math:`\chi^2_F = 0` and p = 1. When every dataset ranks the
    algorithms the same way, :math:`F_F = \infty` and p = 0.

    Parameters
    ----------
    success : DataFrame
        Long frame ``[dataset, algorithm, (fold,) value]`` with at least two
        datasets; per-fold values are averaged first.
    higher_is_better : bool, default=True
        False for losses.
    tie_correction : bool, default=True
        Divide :math:`\chi^2_F` by the tie correction factor.

    Returns
    -------
    FriedmanResult

    References
    ----------
    Demšar, J. (2006). Statistical comparisons of classifiers over multiple
    data sets. JMLR 7, 1-30, sec. 3.2.2; Iman & Davenport (1980).

    Examples
    --------
    >>> import pandas as pd
    >>> acc = pd.DataFrame({"dataset": [d for d in "wxyz" for _ in range(3)],
    ...                     "algorithm": ["A", "B", "C"] * 4,
    ...                     "value": [.9, .8, .7, .9, .8, .7, .9, .8, .7, .8, .9, .7]})
    >>> res = friedman_test(acc)  # R = (1.25, 1.75, 3): chi2 = 12*4/12*(13.625-12) = 6.5
    >>> round(res.chi2, 3), res.chi2_df, round(res.f_statistic, 3), res.f_df  # F = 3*6.5/1.5
    (6.5, 2, 13.0, (2, 6))
    """
    tie_correction = _check_bool(tie_correction, "tie_correction")
    matrix, ranks = _rank_matrix(success, higher_is_better)
    n, k = ranks.shape
    mean_ranks = ranks.mean(axis=0)
    chi2 = 12.0 * n / (k * (k + 1)) * (np.sum(mean_ranks**2) - k * (k + 1) ** 2 / 4.0)
    chi2 = max(float(chi2), 0.0)
    if tie_correction:
        # sum over tie groups of t^3 - t, from the identity
        # sum_j r_ij^2 = k(k+1)(2k+1)/6 - sum_g (t_g^3 - t_g)/12 for average ranks
        ties = 12.0 * (k * (k + 1) * (2 * k + 1) / 6.0 - np.sum(ranks**2, axis=1))
        factor = 1.0 - np.sum(np.round(ties)) / (n * k * (k * k - 1))
        chi2 = chi2 / factor if factor > 1e-12 else 0.0
    chi2_df = k - 1
    chi2_p = float(stats.chi2.sf(chi2, chi2_df))
    df1, df2 = k - 1, (k - 1) * (n - 1)
    denom = n * (k - 1) - chi2
    if denom <= 1e-12 * n * k:
        f_stat, f_p = np.inf, 0.0
    else:
        f_stat = (n - 1) * chi2 / denom
        f_p = float(stats.f.sf(f_stat, df1, df2))
    return FriedmanResult(
        chi2=float(chi2),
        chi2_df=int(chi2_df),
        chi2_pvalue=chi2_p,
        f_statistic=float(f_stat),
        f_df=(int(df1), int(df2)),
        f_pvalue=float(f_p),
        n_algorithms=int(k),
        n_datasets=int(n),
        average_ranks=_ranking_frame(matrix.algorithms, mean_ranks, larger_is_better=False),
    )


def _check_k(n_algorithms):
    if isinstance(n_algorithms, (bool, np.bool_)) or not isinstance(
        n_algorithms, (int, np.integer)
    ):
        raise ValueError(f"n_algorithms must be an integer >= 2, got {n_algorithms!r}.")
    if n_algorithms < 2:
        raise ValueError(f"n_algorithms must be >= 2, got {n_algorithms}.")
    return int(n_algorithms)


def nemenyi_critical_value(n_algorithms, *, alpha=0.05):
    r"""Critical value :math:`q_\alpha` of the Nemenyi test (Demšar 2006, Table 5a).

    .. math::

        q_\alpha = \frac{q_{1-\alpha}(k, \infty)}{\sqrt{2}}

    where :math:`q_{1-\alpha}(k, \infty)` is the quantile of the Studentized
    range for :math:`k` groups and infinite degrees of freedom
    (:func:`scipy.stats.studentized_range`).

    Parameters
    ----------
    n_algorithms : int
        :math:`k \ge 2`.
    alpha : float, default=0.05

    Returns
    -------
    float

    References
    ----------
    Demšar (2006), JMLR 7, sec. 3.2.2 and Table 5(a).

    Examples
    --------
    >>> round(nemenyi_critical_value(4), 3)
    2.569
    """
    k = _check_k(n_algorithms)
    alpha = _check_alpha(alpha)
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))


def nemenyi_critical_difference(n_algorithms, n_datasets, *, alpha=0.05):
    r"""Nemenyi critical difference of average ranks (Demšar 2006, sec. 3.2.2).

    .. math::

        CD = q_\alpha \sqrt{\frac{k(k+1)}{6N}}

    Two algorithms differ significantly when their average ranks differ by
    at least CD.

    Parameters
    ----------
    n_algorithms : int
        :math:`k \ge 2`.
    n_datasets : int
        :math:`N \ge 1`.
    alpha : float, default=0.05

    Returns
    -------
    float

    References
    ----------
    Demšar (2006), JMLR 7, sec. 3.2.2.

    Examples
    --------
    >>> round(nemenyi_critical_difference(4, 14), 3)  # Demšar's example: 2.569*sqrt(20/84)
    1.254
    """
    k = _check_k(n_algorithms)
    if isinstance(n_datasets, (bool, np.bool_)) or not isinstance(n_datasets, (int, np.integer)):
        raise ValueError(f"n_datasets must be a positive integer, got {n_datasets!r}.")
    if n_datasets < 1:
        raise ValueError(f"n_datasets must be >= 1, got {n_datasets}.")
    q = nemenyi_critical_value(k, alpha=alpha)
    return float(q * np.sqrt(k * (k + 1) / (6.0 * n_datasets)))


def holm_adjust(p_values):
    r"""Holm's step-down adjusted p-values.

    With the :math:`m` p-values sorted, :math:`p_{(1)} \le \dots \le p_{(m)}`:

    .. math::

        \tilde p_{(i)} = \max_{j \le i} \min\left(1, (m - j + 1)\, p_{(j)}\right)

    Hypothesis :math:`(i)` is rejected at level :math:`\alpha` when
    :math:`\tilde p_{(i)} \le \alpha`, which is Holm's procedure.

    Parameters
    ----------
    p_values : array-like of shape (m,)
        Values in [0, 1].

    Returns
    -------
    ndarray of shape (m,)
        Adjusted p-values, in the input order.

    References
    ----------
    Holm (1979), Scand. J. Statist. 6; Demšar (2006), JMLR 7, sec. 3.2.2.

    Examples
    --------
    >>> holm_adjust([0.01, 0.04, 0.03, 0.005])  # 0.005*4, 0.01*3, max(0.03*2, .), 0.04*1 -> .06
    array([0.03, 0.06, 0.06, 0.02])
    """
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"p_values must be 1-dimensional, got shape {p.shape}.")
    if np.any(~np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError("p_values must be finite and lie in [0, 1].")
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.maximum.accumulate(scaled)
    return out


def wilcoxon_holm(success, *, alpha=0.05, higher_is_better=True):
    r"""Pairwise Wilcoxon signed-rank tests over datasets, Holm-corrected.

    For every pair of algorithms, the differences of their values over the
    :math:`N` datasets are tested with :func:`scipy.stats.wilcoxon`
    (two-sided; zero differences dropped, ``zero_method="wilcox"``). With
    :math:`R^+` and :math:`R^-` the sums of the ranks of :math:`|d_i|` where
    the first algorithm is better and worse,

    .. math::

        T = \min(R^+, R^-)

    and the :math:`m = k(k-1)/2` p-values are adjusted by Holm's step-down
    procedure (:func:`holm_adjust`). A pair whose differences are all zero
    gets p = 1.

    Parameters
    ----------
    success : DataFrame
        Long frame ``[dataset, algorithm, (fold,) value]`` with at least two
        datasets; per-fold values are averaged first.
    alpha : float, default=0.05
        Family-wise level for ``significant``.
    higher_is_better : bool, default=True
        False for losses.

    Returns
    -------
    DataFrame
        One row per pair, columns ``algorithm`` (the better of the two by
        average rank), ``rival``, ``statistic`` (T), ``p_value``, ``p_holm``,
        ``significant`` (``p_holm <= alpha``) and ``winner`` (the algorithm
        with the larger signed-rank sum when significant, else None). Rows
        follow the best-first order of the average ranks.

    References
    ----------
    Demšar (2006), JMLR 7, sec. 3.1.3 (Wilcoxon) and 3.2.2 (Holm); Wilcoxon
    (1945); Holm (1979).

    Examples
    --------
    >>> import pandas as pd
    >>> acc = pd.DataFrame({"dataset": [f"d{i}" for i in range(6) for _ in range(2)],
    ...                     "algorithm": ["A", "B"] * 6,
    ...                     "value": [.9, .8, .8, .7, .7, .65, .95, .9, .6, .55, .85, .8]})
    >>> res = wilcoxon_holm(acc)  # A better on all 6: exact two-sided p = 2/2**6
    >>> res[["algorithm", "rival", "p_value", "winner"]]
      algorithm rival  p_value winner
    0         A     B  0.03125      A
    """
    alpha = _check_alpha(alpha)
    matrix, ranks = _rank_matrix(success, higher_is_better)
    higher_is_better = bool(higher_is_better)
    n, k = ranks.shape
    order = np.argsort(ranks.mean(axis=0), kind="stable")  # best first
    labels = matrix.algorithms.to_numpy(dtype=object)
    rows = []
    for a_pos in range(k):
        for b_pos in range(a_pos + 1, k):
            a, b = order[a_pos], order[b_pos]
            diff = matrix.values[:, a] - matrix.values[:, b]
            if not higher_is_better:
                diff = -diff
            nonzero = diff[diff != 0]
            if nonzero.size == 0:
                statistic, p_value, r_plus, r_minus = 0.0, 1.0, 0.0, 0.0
            else:
                res = stats.wilcoxon(nonzero, zero_method="wilcox")
                statistic, p_value = float(res.statistic), float(res.pvalue)
                signed = stats.rankdata(np.abs(nonzero))
                r_plus = float(signed[nonzero > 0].sum())
                r_minus = float(signed[nonzero < 0].sum())
            rows.append((labels[a], labels[b], statistic, p_value, r_plus, r_minus))
    frame = pd.DataFrame(
        rows, columns=[ALGORITHM, "rival", "statistic", "p_value", "_r_plus", "_r_minus"]
    )
    frame["p_holm"] = holm_adjust(frame["p_value"].to_numpy())
    frame["significant"] = frame["p_holm"] <= alpha
    winner = np.where(frame["_r_plus"] >= frame["_r_minus"], frame[ALGORITHM], frame["rival"])
    frame["winner"] = pd.Series(winner, dtype=object).where(frame["significant"], None)
    return frame[[ALGORITHM, "rival", "statistic", "p_value", "p_holm", "significant", "winner"]]


def _cd_groups(sorted_ranks, cd, include_singletons):
    """Maximal runs of consecutive (rank-sorted) algorithms spanning less than cd.

    Returns index ranges (start, stop) into ``sorted_ranks``, best first.
    """
    k = sorted_ranks.size
    # last index j with sorted_ranks[j] - sorted_ranks[i] < cd, for every i
    stop = np.searchsorted(sorted_ranks, sorted_ranks + cd, side="left")
    out = []
    prev_stop = -1
    for i in range(k):
        j = int(stop[i])
        if j > prev_stop:  # not contained in the previous run (runs only grow to the right)
            if j - i >= 2 or include_singletons:
                out.append((i, j))
            prev_stop = j
    return out


def critical_difference_data(
    success, *, alpha=0.05, higher_is_better=True, include_singletons=False
):
    r"""Average ranks, Nemenyi CD and not-significantly-different groups, best first.

    The data for Demšar's critical-difference diagram. Average ranks
    :math:`R_j` (1 = best) are sorted ascending; :math:`CD = q_\alpha
    \sqrt{k(k+1)/(6N)}` (:func:`nemenyi_critical_difference`); a group is a
    maximal set of algorithms whose average ranks span less than CD,

    .. math::

        \max_{j \in G} R_j - \min_{j \in G} R_j < CD,

    which, for ranks on a line, is a run of consecutive algorithms; groups
    contained in others are dropped. These are the bars of the diagram.

    Parameters
    ----------
    success : DataFrame
        Long frame ``[dataset, algorithm, (fold,) value]`` with at least two
        datasets; per-fold values are averaged first.
    alpha : float, default=0.05
    higher_is_better : bool, default=True
        False for losses; either way rank 1 is the best algorithm.
    include_singletons : bool, default=False
        Also list algorithms that differ significantly from all others as
        one-element groups (a diagram draws no bar for them).

    Returns
    -------
    CriticalDifferenceData
        With ``average_ranks`` (best first), ``cd``, ``q_alpha``, ``groups``
        (tuples of algorithm names, best first) and the ``friedman`` test.

    References
    ----------
    Demšar (2006), JMLR 7, sec. 3.2.2 and Fig. 1-2.

    Examples
    --------
    >>> import pandas as pd
    >>> values = [.9, .8, .1, .8, .9, .1, .9, .8, .1, .9, .8, .1, .8, .9, .1] * 2
    >>> acc = pd.DataFrame({"dataset": [d for d in range(10) for _ in range(3)],
    ...                     "algorithm": ["A", "B", "C"] * 10, "value": values})
    >>> cdd = critical_difference_data(acc)  # R = (1.4, 1.6, 3); CD = 2.343*sqrt(12/60)
    >>> round(cdd.cd, 3), cdd.groups
    (1.048, (('A', 'B'),))
    >>> cdd.average_ranks["algorithm"].tolist()
    ['A', 'B', 'C']
    """
    alpha = _check_alpha(alpha)
    include_singletons = _check_bool(include_singletons, "include_singletons")
    friedman = friedman_test(success, higher_is_better=higher_is_better)
    ranks = friedman.average_ranks
    k, n = friedman.n_algorithms, friedman.n_datasets
    q = nemenyi_critical_value(k, alpha=alpha)
    cd = float(q * np.sqrt(k * (k + 1) / (6.0 * n)))
    sorted_ranks = ranks["score"].to_numpy(dtype=np.float64)
    names = ranks[ALGORITHM].tolist()
    groups = tuple(tuple(names[i:j]) for i, j in _cd_groups(sorted_ranks, cd, include_singletons))
    return CriticalDifferenceData(
        average_ranks=ranks,
        cd=cd,
        q_alpha=q,
        alpha=alpha,
        n_algorithms=k,
        n_datasets=n,
        groups=groups,
        friedman=friedman,
    )
