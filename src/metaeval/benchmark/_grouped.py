"""Metrics of many groups at once (one group per dataset, algorithm and fold).

Calling a scikit-learn metric costs about a millisecond of input checks whatever the
size of its input, so a study's thousands of (dataset, algorithm, fold) groups spend
seconds in checks alone. Here the same definitions are computed for all groups in a
few vectorised passes: the confusion-matrix metrics from per-group counts, the Brier
score and the log loss from per-group sums, the AUC from per-group average ranks (the
Mann-Whitney statistic) and the average precision from per-group running counts. Each
follows scikit-learn's definition, degenerate cases included (``zero_division=0``, MCC
0 on a zero denominator, balanced accuracy of one class, log loss clipped at the
float64 machine epsilon); the tests compare them with scikit-learn on random groups
with ties and single-class groups.
"""

from __future__ import annotations

import numpy as np

__all__ = ["GROUPED", "grouped_metrics"]

#: The metrics computed here; the others are computed group by group.
GROUPED = ("accuracy", "balanced_accuracy", "f1", "mcc", "precision", "recall", "auc",
           "average_precision", "brier", "log_loss")


def _div(num, den):
    """num / den, 0 where den is 0 (scikit-learn's ``zero_division=0``)."""
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _blocks(y, s, g, n_groups):
    """The instances sorted by group, then by score, cut into blocks of tied scores.

    Returns the group of each block, its first position and its end (one past its last)
    in the sorted order, its number of class-1 instances, and each group's first
    position.
    """
    order = np.lexsort((s, g))
    gs, ss = g[order], s[order]
    n = y.size
    new_block = np.ones(n, dtype=bool)
    new_block[1:] = (gs[1:] != gs[:-1]) | (ss[1:] != ss[:-1])
    starts = np.flatnonzero(new_block)
    ends = np.r_[starts[1:], n]
    positives = np.add.reduceat((y[order] == 1).astype(np.float64), starts)
    first = np.ones(n, dtype=bool)
    first[1:] = gs[1:] != gs[:-1]
    group_start = np.zeros(n_groups, dtype=np.int64)
    group_start[gs[first]] = np.flatnonzero(first)
    return gs[starts], starts, ends, positives, group_start


def _auc(blocks, n_groups, n1, n0):
    """Mann-Whitney AUC per group, with average ranks for tied scores."""
    group, starts, ends, positives, group_start = blocks
    rank = (starts + ends + 1) / 2.0 - group_start[group]  # 1-based, within the group
    sum_ranks = np.bincount(group, weights=positives * rank, minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        auc = (sum_ranks - n1 * (n1 + 1) / 2.0) / (n1 * n0)
    return np.where((n1 > 0) & (n0 > 0), auc, np.nan)


def _average_precision(blocks, n_groups, n1, n0, n):
    """Average precision per group: the sum over the distinct thresholds, from the
    highest score down, of the gain in recall times the precision there."""
    group, starts, _, positives, group_start = blocks
    before = np.cumsum(positives) - positives  # class-1 instances before each block...
    first = np.r_[True, group[1:] != group[:-1]]
    base = np.zeros(n_groups)
    base[group[first]] = before[first]
    before -= base[group]  # ...within its group
    tps = n1[group] - before  # class-1 instances scored at or above the block's score
    seen = group_start[group] + n[group] - starts  # all instances scored at or above it
    terms = positives * tps / seen
    with np.errstate(invalid="ignore", divide="ignore"):
        ap = np.bincount(group, weights=terms, minlength=n_groups) / n1
    return np.where((n1 > 0) & (n0 > 0), ap, np.nan)


def grouped_metrics(y, s, groups, n_groups, names, *, threshold=0.5):
    """Metrics of every group: ``{name: ndarray of shape (n_groups,)}``.

    Parameters
    ----------
    y : ndarray of int, 0/1
    s : ndarray of float in [0, 1]
    groups : ndarray of int in [0, n_groups)
        The group of each instance; every group has at least one instance.
    n_groups : int
    names : iterable of str
        Names from :data:`GROUPED`.
    threshold : float
        An instance is predicted class 1 when ``s > threshold``.
    """
    y = np.asarray(y).astype(np.int64)
    s = np.asarray(s, dtype=np.float64)
    g = np.asarray(groups, dtype=np.int64)

    def count(mask):
        return np.bincount(g[mask], minlength=n_groups).astype(np.float64)

    pred = s > threshold
    pos = y == 1
    tp, fp = count(pos & pred), count(~pos & pred)
    fn, tn = count(pos & ~pred), count(~pos & ~pred)
    n1, n0 = tp + fn, fp + tn
    n = n1 + n0
    out, blocks = {}, None
    for name in names:
        if name == "accuracy":
            out[name] = (tp + tn) / n
        elif name == "balanced_accuracy":
            tpr, tnr = _div(tp, n1), _div(tn, n0)
            both = (n1 > 0) & (n0 > 0)
            out[name] = np.where(both, (tpr + tnr) / 2.0, np.where(n1 > 0, tpr, tnr))
        elif name == "precision":
            out[name] = _div(tp, tp + fp)
        elif name == "recall":
            out[name] = _div(tp, n1)
        elif name == "f1":
            out[name] = _div(2.0 * tp, 2.0 * tp + fp + fn)
        elif name == "mcc":
            p1, p0 = tp + fp, fn + tn  # predicted class sizes
            cov_ytyp = (tp + tn) * n - (n1 * p1 + n0 * p0)
            cov_ypyp = n ** 2 - (p1 ** 2 + p0 ** 2)
            cov_ytyt = n ** 2 - (n1 ** 2 + n0 ** 2)
            den = cov_ytyt * cov_ypyp
            with np.errstate(invalid="ignore", divide="ignore"):
                out[name] = np.where(den == 0, 0.0, cov_ytyp / np.sqrt(den))
        elif name == "brier":
            out[name] = np.bincount(g, weights=(y - s) ** 2, minlength=n_groups) / n
        elif name == "log_loss":
            eps = np.finfo(np.float64).eps
            p = np.clip(s, eps, 1 - eps)
            loss = -np.where(pos, np.log(p), np.log1p(-p))
            out[name] = np.bincount(g, weights=loss, minlength=n_groups) / n
        elif name == "auc":
            blocks = blocks or _blocks(y, s, g, n_groups)
            out[name] = _auc(blocks, n_groups, n1, n0)
        elif name == "average_precision":
            blocks = blocks or _blocks(y, s, g, n_groups)
            out[name] = _average_precision(blocks, n_groups, n1, n0, n)
        else:
            raise ValueError(f"{name!r} is not computed here; known: {GROUPED}.")
    return out
