"""The five ranking methods of Abdulrahman & Brazdil (2014) and its reference [4].

AR, SRR, SW and ARR come from Brazdil, Soares & da Costa (2003), reference [4] of
Abdulrahman & Brazdil (2014), "Measures for combining accuracy and time for
meta-learning"; A3R is the latter's eq. (2).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import special

from metaeval.ranking._frames import (
    ALGORITHM,
    DATASET,
    VALUE,
    _check_alpha,
    _check_bool,
    _check_frame,
    _fold_cube,
    _positive,
    _ranking_frame,
    _ranks,
    _show,
    _snap_ties,
    _success_matrix,
    _time_matrix,
)

RANKING_METHODS = ("ar", "srr", "sw", "arr", "a3r")


class ARRPoleWarning(RuntimeWarning):
    """ARR's denominator ``1 + AccD * log10(T_p / T_q)`` reached zero or below.

    Abdulrahman & Brazdil's (2014) point: for a time ratio at or below
    ``10 ** (-1 / AccD)`` the adjusted ratio of ratios passes through a pole and turns
    negative, so the faster algorithm of the pair gets the *worse* value.
    """


def _check_number(value, name, *, positive=False):
    """``value`` as a finite float that is >= 0 (or > 0 with ``positive``)."""
    kind = "positive" if positive else "non-negative"
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a {kind} number, got {value!r}.") from None
    if not np.isfinite(number) or number < 0 or (positive and number == 0):
        raise ValueError(f"{name} must be finite and {'> 0' if positive else '>= 0'}, "
                         f"got {value!r}.")
    return number


def _check_accd(accd, name="accd"):
    return _check_number(accd, name)


def _root_exponent(n, p):
    """Exponent P = 1/n of the time ratio in A3R; exactly one of n, p may be given."""
    if n is not None and p is not None:
        raise ValueError(f"give either n or p (= 1/n), not both; got n={n!r}, p={p!r}.")
    if p is not None:
        return _check_number(p, "p")
    return 1.0 / _check_number(8 if n is None else n, "n", positive=True)


def _success_ratios(values, higher_is_better):
    """Per-dataset success ratios, shape (n_datasets, k, k): entry [i, p, q] = SR_p / SR_q.

    For a loss L the advantage of p over q is L_q / L_p, so > 1 still means p is better.
    """
    num, den = values[:, :, None], values[:, None, :]
    return num / den if higher_is_better else den / num


def _time_ratios(times):
    """Per-dataset time ratios, shape (n_datasets, k, k): entry [i, p, q] = T_p / T_q."""
    return times[:, :, None] / times[:, None, :]


def _over_rivals(pairwise):
    """Mean over the k - 1 rivals q != p of a (k, k) pairwise matrix (diagonal ignored)."""
    k = pairwise.shape[0]
    off = ~np.eye(k, dtype=bool)
    return np.where(off, pairwise, 0.0).sum(axis=1) / (k - 1)


def _mean_over_datasets(pairwise_of, n_datasets: int, *, geometric: bool):
    """Mean over the datasets of the (k, k) matrices ``pairwise_of(i)``, one at a time.

    The geometric mean is exp of the mean log. Summed in dataset order, as
    ``np.mean(stack, axis=0)`` sums a stack (the same floating-point result), without
    the (n_datasets, k, k) stack: at 500 algorithms and 100 datasets each such array
    is 200 MB.
    """
    total = None
    with np.errstate(invalid="ignore", divide="ignore"):
        for i in range(n_datasets):
            x = pairwise_of(i)
            x = np.log(x) if geometric else np.array(x, dtype=float)
            total = x if total is None else np.add(total, x, out=total)
        mean = total / n_datasets
        return np.exp(mean) if geometric else mean


def average_ranks(success, *, higher_is_better=True):
    r"""Rank algorithms by their average rank over datasets (AR).

    .. math::

        AR_{a_p} = \frac{1}{n} \sum_{i=1}^{n} r_{a_p}^{d_i}

    where :math:`r_{a_p}^{d_i}` is the rank of :math:`a_p` on dataset
    :math:`d_i` (1 = best; tied algorithms share the average of the ranks they
    span). A *lower* score is better.

    Parameters
    ----------
    success : DataFrame
        Long frame ``[dataset, algorithm, (fold,) value]`` with one value per
        (dataset, algorithm[, fold]); per-fold values are averaged first.
    higher_is_better : bool, default=True
        False for losses (error rate, log loss, time).

    Returns
    -------
    DataFrame
        Columns ``algorithm``, ``score`` (the average rank) and ``rank``
        (1 = best, ties averaged), ordered best first.

    See Also
    --------
    dataset_ranks : the per-dataset ranks averaged here.
    friedman_test : whether the average ranks differ significantly.

    References
    ----------
    Brazdil, Soares & da Costa (2003), Machine Learning 50(3), average ranks (reference
    [4] of Abdulrahman & Brazdil 2014, sec. 2). Demšar (2006), JMLR 7, sec. 3.2.2.

    Examples
    --------
    >>> import pandas as pd
    >>> acc = pd.DataFrame({"dataset": ["d1"] * 3 + ["d2"] * 3,
    ...                     "algorithm": ["A", "B", "C"] * 2,
    ...                     "value": [0.9, 0.8, 0.7, 0.6, 0.8, 0.5]})
    >>> average_ranks(acc)
      algorithm  score  rank
    0         A    1.5   1.5
    1         B    1.5   1.5
    2         C    3.0   3.0
    """
    higher_is_better = _check_bool(higher_is_better, "higher_is_better")
    matrix = _success_matrix(success)
    score = _ranks(matrix.values, higher_is_better).mean(axis=0)
    return _ranking_frame(matrix.algorithms, score, larger_is_better=False)


def _average_rank_order(values, datasets, algorithms):
    """:func:`average_ranks` of a dense ``(datasets, algorithms)`` matrix of success
    values (higher is better), without the long frame: ``(columns best first, their
    scores)``, or None where :func:`average_ranks` would check something this does not
    (a value that is not finite, a repeated or missing label, fewer than 2 algorithms):
    then call it. The same order and scores (tested).
    """
    values = np.asarray(values, dtype=np.float64)
    datasets = np.asarray(datasets, dtype=object)
    algorithms = np.asarray(algorithms, dtype=object)
    if values.ndim != 2 or values.shape != (datasets.size, algorithms.size) \
            or values.size == 0 or algorithms.size < 2 or not np.isfinite(values).all():
        return None
    if not all(isinstance(v, str) for v in (*datasets, *algorithms)) \
            or len(set(datasets)) != datasets.size or len(set(algorithms)) != algorithms.size:
        return None
    # columns in the sorted label order of the frame's matrix (ties keep it); the rows'
    # order does not matter: ranks are halves, their sums exact in any order
    cols = np.argsort(algorithms, kind="stable")
    score = _ranks(values[:, cols], True).mean(axis=0)
    order = np.argsort(_snap_ties(score), kind="stable")
    return cols[order], score[order]


def success_rate_ratios(success, *, higher_is_better=True, aggregate="arithmetic"):
    r"""Rank algorithms by their mean success rate ratio (SRR).

    .. math::

        SRR_{a_p a_q}^{d_i} = \frac{SR_{a_p}^{d_i}}{SR_{a_q}^{d_i}}, \qquad
        SRR_{a_p a_q} = \frac{1}{n}\sum_{i=1}^{n} SRR_{a_p a_q}^{d_i}, \qquad
        SRR_{a_p} = \frac{1}{k-1}\sum_{q \ne p} SRR_{a_p a_q}

    Brazdil, Soares & da Costa (2003) average the per-dataset ratios
    arithmetically over datasets (``aggregate="arithmetic"``), then over the
    :math:`k-1` rivals. ``aggregate="geometric"`` uses the geometric mean over
    datasets instead, as ARR and A3R do; it is the accuracy-only limit of both
    (ARR with AccD = 0, A3R with P = 0 or equal times). A *higher* score is
    better. For a loss :math:`L` (``higher_is_better=False``) the ratio is
    inverted, :math:`L_{a_q}^{d_i} / L_{a_p}^{d_i}`, so that a ratio above 1
    still favours :math:`a_p`.

    Parameters
    ----------
    success : DataFrame
        Long frame ``[dataset, algorithm, (fold,) value]``; values must be
        positive (they are divided). Per-fold values are averaged first.
    higher_is_better : bool, default=True
        False for losses.
    aggregate : {"arithmetic", "geometric"}, default="arithmetic"
        Mean over datasets of the per-dataset ratios.

    Returns
    -------
    DataFrame
        Columns ``algorithm``, ``score`` (:math:`SRR_{a_p}`), ``rank``
        (1 = best), ordered best first.

    References
    ----------
    S. M. Abdulrahman and P. Brazdil, "Measures for combining accuracy and time for
    meta-learning", MetaSel workshop at ECAI 2014, sec. 2 (SRR, of which ARR is an
    extension); Brazdil, Soares & da Costa (2003), Machine Learning 50(3), success rate
    ratios.

    Examples
    --------
    >>> import pandas as pd
    >>> acc = pd.DataFrame({"dataset": ["d1", "d1", "d2", "d2"],
    ...                     "algorithm": ["A", "B"] * 2,
    ...                     "value": [0.8, 0.4, 0.5, 0.5]})
    >>> success_rate_ratios(acc)  # A: (2 + 1) / 2;  B: (0.5 + 1) / 2
      algorithm  score  rank
    0         A   1.50   1.0
    1         B   0.75   2.0
    """
    higher_is_better = _check_bool(higher_is_better, "higher_is_better")
    if aggregate not in ("arithmetic", "geometric"):
        raise ValueError(f"aggregate must be 'arithmetic' or 'geometric', got {aggregate!r}.")
    matrix = _success_matrix(success)
    _positive(matrix)
    values = matrix.values
    pairwise = _mean_over_datasets(
        lambda i: _success_ratios(values[i:i + 1], higher_is_better)[0], len(values),
        geometric=aggregate == "geometric")
    return _ranking_frame(matrix.algorithms, _over_rivals(pairwise), larger_is_better=True)


def _paired_t(d):
    """Two-sided paired t-test over axis 0 of the differences ``d``: (t, p).

    The statistic and p-value of :func:`scipy.stats.ttest_rel` (same formula, NaN for
    identical samples, +-inf and p = 0 for a constant non-zero difference), without its
    per-call overhead, which dominated rankings over many datasets.
    """
    n = d.shape[0]
    with np.errstate(all="ignore"):
        t = d.mean(axis=0) / np.sqrt(d.var(axis=0, ddof=1) / n)
        p = 2.0 * special.stdtr(n - 1, -np.abs(t))
    return t, p


def _significance_counts(success, alpha, higher_is_better):
    """Per-pair counts of significant wins and losses over datasets, each shape (k, k)."""
    algorithms, wins, losses = _significance_per_dataset(success, alpha, higher_is_better)
    return algorithms, wins.sum(axis=0), losses.sum(axis=0), wins.shape[0]


def _significance_per_dataset(success, alpha, higher_is_better):
    """Significant wins and losses of each pair on each dataset, each (n_datasets, k, k)."""
    long = _check_frame(success, "success", VALUE)
    cube, present = _fold_cube(long)
    datasets, algorithms = long.labels[0], long.labels[1]
    k = len(algorithms)
    if k < 2:
        raise ValueError(f"success holds {k} algorithm(s); a ranking needs at least two.")
    n_folds = present.sum(axis=1)
    if np.any(n_folds < 2):
        i = int(np.argmax(n_folds < 2))
        raise ValueError(
            f"success has {n_folds[i]} fold on dataset {datasets[i]!r}; the paired "
            "t-test of significant wins needs at least two folds."
        )
    wins = np.zeros((len(datasets), k, k), dtype=np.int64)
    losses = np.zeros((len(datasets), k, k), dtype=np.int64)
    for i in range(len(datasets)):
        x = cube[i][:, present[i]].T  # (n_folds, k)
        statistic, pvalue = _paired_t(x[:, :, None] - x[:, None, :])
        # identical folds give t = NaN (no evidence); a constant non-zero
        # difference gives t = +-inf and p = 0 (a sure win).
        significant = np.nan_to_num(pvalue, nan=1.0) <= alpha
        sign = np.sign(np.nan_to_num(statistic, nan=0.0))
        if not higher_is_better:
            sign = -sign
        wins[i] = significant & (sign > 0)
        losses[i] = significant & (sign < 0)
    return algorithms, wins, losses


def significant_wins(success, *, alpha=0.05, higher_is_better=True, score="wins"):
    r"""Rank algorithms by how often they win significantly (SW).

    On every dataset each pair :math:`(a_p, a_q)` is compared by a paired
    t-test over the cross-validation folds (:func:`scipy.stats.ttest_rel`,
    two-sided); :math:`a_p` wins when :math:`p \le \alpha` and its mean is the
    better one.

    .. math::

        pw_{a_p a_q} = \frac{1}{n}\sum_{i=1}^{n}
        [a_p \text{ significantly better than } a_q \text{ on } d_i], \qquad
        SW_{a_p} = \frac{1}{k-1}\sum_{q \ne p} pw_{a_p a_q}

    This is Brazdil, Soares & da Costa's estimate of the probability of
    winning (``score="wins"``, in [0, 1]). ``score="net"`` subtracts the
    significant losses the same way (in [-1, 1]). A *higher* score is better.
    Folds in which two algorithms agree exactly count as no evidence (no win);
    a constant non-zero difference over the folds counts as a win.

    Parameters
    ----------
    success : DataFrame
        Long frame ``[dataset, algorithm, fold, value]``; every algorithm needs
        a value on every fold of its dataset, and each dataset at least two folds.
    alpha : float, default=0.05
        Significance level of the paired t-test.
    higher_is_better : bool, default=True
        False for losses.
    score : {"wins", "net"}, default="wins"
        Share of (dataset, rival) comparisons won, or won minus lost.

    Returns
    -------
    DataFrame
        Columns ``algorithm``, ``score``, ``rank`` (1 = best), best first.

    References
    ----------
    S. M. Abdulrahman and P. Brazdil, "Measures for combining accuracy and time for
    meta-learning", MetaSel workshop at ECAI 2014, sec. 2 (SW is one of the three basic
    methods of its reference [4]); Brazdil, Soares & da Costa (2003), Machine Learning
    50(3), significant wins.

    Examples
    --------
    >>> import pandas as pd
    >>> folds = pd.DataFrame({
    ...     "dataset": ["d1"] * 6, "fold": [0, 1, 2] * 2, "algorithm": ["A"] * 3 + ["B"] * 3,
    ...     "value": [0.90, 0.92, 0.91, 0.70, 0.71, 0.69]})
    >>> significant_wins(folds)
      algorithm  score  rank
    0         A    1.0   1.0
    1         B    0.0   2.0
    """
    alpha = _check_alpha(alpha)
    higher_is_better = _check_bool(higher_is_better, "higher_is_better")
    if score not in ("wins", "net"):
        raise ValueError(f"score must be 'wins' or 'net', got {score!r}.")
    algorithms, wins, losses, n_datasets = _significance_counts(success, alpha, higher_is_better)
    counts = wins - losses if score == "net" else wins
    values = _over_rivals(counts / n_datasets)
    return _ranking_frame(algorithms, values, larger_is_better=True)


def _arr_parts(success, times, accd, higher_is_better):
    matrix = _success_matrix(success)
    _positive(matrix)
    t = _time_matrix(times, matrix.datasets, matrix.algorithms)
    ratios = _success_ratios(matrix.values, higher_is_better)
    time_ratios = _time_ratios(t)
    denominator = 1.0 + accd * np.log10(time_ratios)
    return matrix, ratios, time_ratios, denominator


def arr_ratios(success, times, *, accd=0.1, higher_is_better=True):
    r"""Per-dataset adjusted ratios of ratios (Abdulrahman & Brazdil eq. 1), pole flagged.

    .. math::

        ARR_{a_p a_q}^{d_i} =
        \frac{SR_{a_p}^{d_i} / SR_{a_q}^{d_i}}
             {1 + AccD \cdot \log_{10}\left(T_{a_p}^{d_i} / T_{a_q}^{d_i}\right)}

    The denominator is zero at the time ratio :math:`10^{-1/AccD}` and
    negative below it: there ARR is undefined (``arr`` is NaN) or negative,
    and ``pole`` is True. These raw values are what
    :func:`adjusted_ratio_of_ratios` aggregates.

    Parameters
    ----------
    success : DataFrame
        Long frame ``[dataset, algorithm, (fold,) value]`` of positive values.
    times : DataFrame
        Long frame ``[dataset, algorithm, (fold,) time]`` of positive times
        (per-fold times are averaged) covering every cell of ``success``;
        other rows are ignored.
    accd : float, default=0.1
        The accuracy the user trades for a ten-fold speed-up (AccD >= 0).
    higher_is_better : bool, default=True
        False when ``success`` holds a loss (its ratio is then inverted).

    Returns
    -------
    DataFrame
        One row per dataset and ordered pair ``algorithm != rival``, columns
        ``dataset``, ``algorithm``, ``rival``, ``success_ratio``,
        ``time_ratio`` (:math:`T_{a_p}/T_{a_q}`), ``denominator``, ``arr``
        (the ratio over the denominator; NaN where the denominator is 0, and
        negative where it is negative) and ``pole`` (denominator <= 0).

    References
    ----------
    S. M. Abdulrahman and P. Brazdil, "Measures for combining accuracy and time for
    meta-learning", MetaSel workshop at ECAI 2014, eq. (1); Brazdil, Soares & da Costa
    (2003), Machine Learning 50(3).

    Examples
    --------
    >>> import pandas as pd
    >>> acc = pd.DataFrame({"dataset": ["d1", "d1"], "algorithm": ["fast", "slow"],
    ...                     "value": [0.9, 0.9]})
    >>> t = pd.DataFrame({"dataset": ["d1", "d1"], "algorithm": ["fast", "slow"],
    ...                   "time": [1.0, 1000.0]})
    >>> arr_ratios(acc, t, accd=0.5)[["algorithm", "time_ratio", "arr", "pole"]]
      algorithm  time_ratio  arr   pole
    0      fast       0.001 -2.0   True
    1      slow    1000.000  0.4  False
    """
    accd = _check_accd(accd)
    higher_is_better = _check_bool(higher_is_better, "higher_is_better")
    matrix, ratios, time_ratios, denominator = _arr_parts(success, times, accd, higher_is_better)
    d, k = matrix.values.shape
    i, p, q = np.nonzero(np.broadcast_to(~np.eye(k, dtype=bool), (d, k, k)))
    den = denominator[i, p, q]
    with np.errstate(divide="ignore", invalid="ignore"):
        arr = np.where(den == 0, np.nan, ratios[i, p, q] / den)
    labels = matrix.algorithms.to_numpy(dtype=object)
    return pd.DataFrame(
        {
            DATASET: matrix.datasets.to_numpy(dtype=object)[i],
            ALGORITHM: labels[p],
            "rival": labels[q],
            "success_ratio": ratios[i, p, q],
            "time_ratio": time_ratios[i, p, q],
            "denominator": den,
            "arr": arr,
            "pole": den <= 0,
        }
    )


def adjusted_ratio_of_ratios(success, times, *, accd=0.1, higher_is_better=True, on_pole="warn"):
    r"""Rank algorithms by the adjusted ratio of ratios (ARR, Abdulrahman & Brazdil eq. 1).

    .. math::

        ARR_{a_p a_q}^{d_i} =
        \frac{SR_{a_p}^{d_i} / SR_{a_q}^{d_i}}
             {1 + AccD \cdot \log_{10}\left(T_{a_p}^{d_i} / T_{a_q}^{d_i}\right)},
        \qquad
        ARR_{a_p} = \frac{1}{k-1} \sum_{q \ne p}
        \Big(\prod_{i=1}^{n} ARR_{a_p a_q}^{d_i}\Big)^{1/n}

    aggregated as Brazdil, Soares & da Costa (2003): geometric mean over the
    :math:`n` datasets, then arithmetic mean over the :math:`k-1` rivals. A
    *higher* score is better. With AccD = 0 this is
    ``success_rate_ratios(..., aggregate="geometric")``.

    **The pole.** Where :math:`T_{a_p}/T_{a_q} \le 10^{-1/AccD}` the
    denominator is zero or negative (Abdulrahman & Brazdil 2014, Fig. 1), so the
    per-dataset ARR is infinite or negative and its geometric mean undefined. This
    function does not hide it: the score of every algorithm with such a pair is NaN
    (listed last, with NaN rank), and with ``on_pole="warn"`` an :class:`ARRPoleWarning`
    names the offending (dataset, algorithm, rival, time ratio); ``on_pole="raise"``
    raises ``ValueError`` instead. The raw per-dataset values, with a ``pole`` flag, are
    in :func:`arr_ratios`. The affected algorithm is always the *faster* one of the
    pair.

    Parameters
    ----------
    success : DataFrame
        Long frame ``[dataset, algorithm, (fold,) value]`` of positive values.
    times : DataFrame
        Long frame ``[dataset, algorithm, (fold,) time]`` of positive times
        covering every cell of ``success`` (per-fold times are averaged).
    accd : float, default=0.1
        The accuracy the user trades for a ten-fold speed-up (AccD >= 0).
    higher_is_better : bool, default=True
        False when ``success`` holds a loss (its ratio is then inverted).
    on_pole : {"warn", "raise", "ignore"}, default="warn"
        What to do, besides the NaN scores, when a denominator is <= 0.

    Returns
    -------
    DataFrame
        Columns ``algorithm``, ``score`` (:math:`ARR_{a_p}`), ``rank``
        (1 = best), best first.

    Warns
    -----
    ARRPoleWarning
        When a denominator is <= 0 and ``on_pole="warn"``.

    References
    ----------
    S. M. Abdulrahman and P. Brazdil, "Measures for combining accuracy and time for
    meta-learning", MetaSel workshop at ECAI 2014, eq. (1) and Fig. 1; Brazdil, Soares &
    da Costa (2003), Machine Learning 50(3), the ARR ranking method.

    Examples
    --------
    >>> import pandas as pd
    >>> acc = pd.DataFrame({"dataset": ["d1", "d1"], "algorithm": ["A", "B"],
    ...                     "value": [0.9, 0.9]})
    >>> t = pd.DataFrame({"dataset": ["d1", "d1"], "algorithm": ["A", "B"],
    ...                   "time": [1.0, 10.0]})
    >>> adjusted_ratio_of_ratios(acc, t, accd=0.1)  # A: 1/(1 - 0.1);  B: 1/(1 + 0.1)
      algorithm     score  rank
    0         A  1.111111   1.0
    1         B  0.909091   2.0
    """
    accd = _check_accd(accd)
    higher_is_better = _check_bool(higher_is_better, "higher_is_better")
    if on_pole not in ("warn", "raise", "ignore"):
        raise ValueError(f"on_pole must be 'warn', 'raise' or 'ignore', got {on_pole!r}.")
    matrix = _success_matrix(success)
    _positive(matrix)
    t = _time_matrix(times, matrix.datasets, matrix.algorithms)
    values = matrix.values
    rows = []  # (dataset, algorithm, rival, time ratio) where the denominator is <= 0

    def per_dataset(i):  # one dataset's (k, k) ARRs: never all datasets' at once
        ratios = _success_ratios(values[i:i + 1], higher_is_better)[0]
        time_ratios = _time_ratios(t[i:i + 1])[0]
        denominator = 1.0 + accd * np.log10(time_ratios)
        pole = denominator <= 0
        if pole.any():
            rows.extend((matrix.datasets[i], matrix.algorithms[b], matrix.algorithms[c],
                         float(time_ratios[b, c]))
                        for b, c in zip(*np.nonzero(pole), strict=True))
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(pole, np.nan, ratios / denominator)

    pairwise = _mean_over_datasets(per_dataset, len(values), geometric=True)
    if rows and on_pole != "ignore":
        message = (
            f"ARR denominator 1 + AccD*log10(T_p/T_q) <= 0 for {len(rows)} (dataset, "
            f"algorithm, rival, time ratio) triple(s) with AccD={accd}: time ratio <= "
            f"10**(-1/AccD) = {10 ** (-1 / accd):.3g}, e.g. {_show(rows)}. ARR has a pole "
            "there (Abdulrahman & Brazdil 2014, Fig. 1) and these algorithms get a NaN score; "
            "see arr_ratios for the raw values, or use a3r."
        )
        if on_pole == "raise":
            raise ValueError(message)
        warnings.warn(message, ARRPoleWarning, stacklevel=2)
    return _ranking_frame(matrix.algorithms, _over_rivals(pairwise), larger_is_better=True)


def a3r(success, times, *, n=None, p=None, higher_is_better=True):
    r"""Rank algorithms by A3R (Abdulrahman & Brazdil eq. 2), the n-th-root trade-off.

    .. math::

        A3R_{a_p a_q}^{d_i} =
        \frac{SR_{a_p}^{d_i} / SR_{a_q}^{d_i}}
             {\left(T_{a_p}^{d_i} / T_{a_q}^{d_i}\right)^{1/n}},
        \qquad
        A3R_{a_p} = \frac{1}{k-1} \sum_{q \ne p}
        \Big(\prod_{i=1}^{n_d} A3R_{a_p a_q}^{d_i}\Big)^{1/n_d}

    aggregated like ARR (geometric mean over the :math:`n_d` datasets, then
    arithmetic mean over the :math:`k-1` rivals). The root exponent can be
    given as ``n`` or as ``p`` :math:`= P = 1/n`; ``p=0`` ignores time (the
    geometric SRR). A3R is monotonic in both ratios and has no pole. A
    *higher* score is better.

    Parameters
    ----------
    success : DataFrame
        Long frame ``[dataset, algorithm, (fold,) value]`` of positive values.
    times : DataFrame
        Long frame ``[dataset, algorithm, (fold,) time]`` of positive times
        covering every cell of ``success`` (per-fold times are averaged).
    n : float, optional
        The root, n > 0; default 8 (Abdulrahman & Brazdil 2014, Fig. 3) when ``p`` is not given.
    p : float, optional
        The exponent P = 1/n >= 0, instead of ``n``.
    higher_is_better : bool, default=True
        False when ``success`` holds a loss (its ratio is then inverted).

    Returns
    -------
    DataFrame
        Columns ``algorithm``, ``score`` (:math:`A3R_{a_p}`), ``rank``
        (1 = best), best first.

    References
    ----------
    S. M. Abdulrahman and P. Brazdil, "Measures for combining accuracy and time for
    meta-learning", MetaSel workshop at ECAI 2014, eq. (2) and Figs. 2-3.

    Examples
    --------
    >>> import pandas as pd
    >>> acc = pd.DataFrame({"dataset": ["d1", "d1"], "algorithm": ["A", "B"],
    ...                     "value": [0.9, 0.9]})
    >>> t = pd.DataFrame({"dataset": ["d1", "d1"], "algorithm": ["A", "B"],
    ...                   "time": [1.0, 256.0]})
    >>> a3r(acc, t, n=8)  # A: 1 / (1/256)**(1/8) = 2;  B: 1 / 256**(1/8) = 0.5
      algorithm  score  rank
    0         A    2.0   1.0
    1         B    0.5   2.0
    """
    exponent = _root_exponent(n, p)
    higher_is_better = _check_bool(higher_is_better, "higher_is_better")
    matrix = _success_matrix(success)
    _positive(matrix)
    t = _time_matrix(times, matrix.datasets, matrix.algorithms)
    values = matrix.values
    pairwise = _mean_over_datasets(
        lambda i: (_success_ratios(values[i:i + 1], higher_is_better)[0]
                   / _time_ratios(t[i:i + 1])[0] ** exponent),
        len(values), geometric=True)
    return _ranking_frame(matrix.algorithms, _over_rivals(pairwise), larger_is_better=True)


def rank_algorithms(success, times=None, method="ar", **kwargs):
    """Rank algorithms with one of the five methods; a tidy frame, best first.

    Dispatches to :func:`average_ranks` (``"ar"``), :func:`success_rate_ratios`
    (``"srr"``), :func:`significant_wins` (``"sw"``),
    :func:`adjusted_ratio_of_ratios` (``"arr"``, Abdulrahman & Brazdil eq. 1) or
    :func:`a3r` (``"a3r"``, eq. 2).

    Parameters
    ----------
    success : DataFrame
        Long frame ``[dataset, algorithm, (fold,) value]``; ``"sw"`` needs the
        ``fold`` column.
    times : DataFrame, optional
        Long frame ``[dataset, algorithm, (fold,) time]``; required by
        ``"arr"`` and ``"a3r"``, ignored by the others.
    method : {"ar", "srr", "sw", "arr", "a3r"}, default="ar"
    **kwargs
        Passed on (``higher_is_better``, ``aggregate``, ``alpha``, ``score``,
        ``accd``, ``on_pole``, ``n``, ``p``).

    Returns
    -------
    DataFrame
        Columns ``algorithm``, ``score``, ``rank`` (1 = best), best first. For
        ``"ar"`` a lower score is better; for the others a higher one.

    References
    ----------
    S. M. Abdulrahman and P. Brazdil, "Measures for combining accuracy and time for
    meta-learning", MetaSel workshop at ECAI 2014, secs. 2-3; Brazdil, Soares & da Costa
    (2003), Machine Learning 50(3).

    Examples
    --------
    >>> import pandas as pd
    >>> acc = pd.DataFrame({"dataset": ["d1", "d1"], "algorithm": ["A", "B"],
    ...                     "value": [0.9, 0.6]})
    >>> rank_algorithms(acc, method="srr")["algorithm"].tolist()
    ['A', 'B']
    """
    if method not in RANKING_METHODS:
        raise ValueError(f"method must be one of {RANKING_METHODS}, got {method!r}.")
    if method in ("arr", "a3r"):
        if times is None:
            raise ValueError(
                f"method={method!r} needs times (a [dataset, algorithm, time] frame)."
            )
        fn = adjusted_ratio_of_ratios if method == "arr" else a3r
        return fn(success, times, **kwargs)
    fn = {"ar": average_ranks, "srr": success_rate_ratios, "sw": significant_wins}[method]
    return fn(success, **kwargs)
