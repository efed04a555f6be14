"""The greedy portfolio of every leave-one-family-out training set, at once.

``auto`` scores the zero-shot portfolio by its inner leave-one-family-out orders: one
greedy portfolio (:func:`~metaeval.recommend.learners._learners.greedy_portfolio_order`)
per family, each on the datasets outside it. On an ASlib scenario every instance is a
family, and the thousand portfolios of a fold's training part were a tenth of its
evaluation's time. Most of them take the same steps: here the families that have taken
the same steps so far are carried together, and a step is computed once for all of them.
"""

from __future__ import annotations

import numpy as np

from metaeval.recommend.learners._learners import (
    _portfolio_mean,
    greedy_portfolio_order,
    greedy_step,
)

#: Groups of at most this many families finish their portfolios one at a time: a shared
#: step costs passes over every dataset, whatever the group's size (on the shipped
#: knowledge base's 63 families sharing every step was four times slower than one at a
#: time; 8 was as fast, and twice as fast as sharing on SAT12-INDU's instances).
ALONE = 8

#: Unit roundoff of float64.
_U = np.finfo(np.float64).eps / 2


def greedy_portfolio_orders_without(loss, codes, n_families, *, alone=None) -> list:
    r"""``[greedy_portfolio_order(loss[codes != f]) for f in range(n_families)]``, the
    same orders, sharing the steps that the families' portfolios have in common.

    A group of families whose portfolios have taken the same steps shares the best loss
    so far of every dataset; the column sums over all datasets are computed once for the
    group, and each family's mean over the datasets outside it is the total minus its
    own datasets' part. That difference is not the sum that
    :func:`~metaeval.recommend.learners._learners.greedy_portfolio_order` computes, and
    may differ from it in the last bits: with :math:`n` datasets and the unit roundoff
    :math:`u`, both lie within :math:`4 (n + 2) u \sum_d |m_{da}| / n_{out}` (plus
    :math:`4u` of the value) of the exact mean (each summation's error bound, Higham
    2002, section 4.2, twice over). A step is taken from these means only where that
    margin cannot change it: the smallest mean below every other one (and below those of
    earlier columns, which win ties) by more than both margins, and below, or at least,
    the stopping threshold by more than its own. Any other step of a family is computed
    as :func:`greedy_portfolio_order` computes it, on the datasets outside it: the
    orders are the same to the last tie (tested).

    Parameters
    ----------
    loss : ndarray of shape (D, A)
    codes : ndarray of int, shape (D,)
        Each dataset's family, ``0 .. n_families - 1``.
    n_families : int
    alone : int, optional
        Groups of at most this many families finish one family at a time, their shared
        steps so far taken as above (default :data:`ALONE`; 0: every step shared while
        two families take it).

    Returns
    -------
    list of ndarray of int, one per family

    References
    ----------
    N. J. Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., SIAM (2002).
    """
    loss = np.asarray(loss, dtype=np.float64)
    codes = np.asarray(codes, dtype=np.int64)
    alone = ALONE if alone is None else int(alone)
    n, n_configs = loss.shape
    counts = np.bincount(codes, minlength=n_families)
    orders = [None] * n_families
    direct = np.flatnonzero((counts == 0) | (counts == n))
    for f in direct:  # nothing or everything left out: nothing to share
        orders[f] = greedy_portfolio_order(loss[codes != f])
    members = np.flatnonzero((counts > 0) & (counts < n))
    if not members.size or not n_configs or not np.isfinite(loss).all():
        for f in members:
            orders[f] = greedy_portfolio_order(loss[codes != f])
        return orders
    perm = np.argsort(codes, kind="stable")
    present = np.flatnonzero(counts)
    starts = np.r_[0, np.cumsum(counts[present])[:-1]]
    slot = np.full(n_families, -1, dtype=np.int64)
    slot[present] = np.arange(present.size)
    n_out = (n - counts).astype(np.float64)
    signed = bool((loss < 0).any())
    groups = [((), np.full(n, np.inf), members)]
    while groups:
        path, best, fams = groups.pop()
        if len(path) == n_configs:
            for f in fams:
                orders[f] = np.array(path, dtype=np.int64)
            continue
        if fams.size <= alone:  # too few to share a step with: each on its own
            for f in fams:  # the steps so far as its head: the same best losses
                orders[f] = greedy_portfolio_order(loss[codes != f], head=path)
            continue
        picks = _steps(loss, path, best, fams, codes, perm, starts, slot, n_out, signed)
        for f in fams[picks < 0]:
            orders[f] = np.array(path, dtype=np.int64)
        for pick in np.unique(picks[picks >= 0]):
            groups.append((path + (int(pick),), np.minimum(best, loss[:, pick]),
                           fams[picks == pick]))
    return orders


def _steps(loss, path, best, fams, codes, perm, starts, slot, n_out, signed):
    """Each family's next step (-1: it stops) after the shared ``path``."""
    m = np.minimum(best[:, None], loss)
    total = np.add.reduce(m, axis=0)
    size = np.add.reduce(np.abs(m), axis=0) if signed else total
    mine = np.add.reduceat(m[perm], starts, axis=0)[slot[fams]]
    out = n_out[fams][:, None]
    value = (total - mine) / out
    bound = 4 * (loss.shape[0] + 2) * _U * size / out + 4 * _U * np.abs(value)
    value[:, list(path)] = np.inf
    bound[:, list(path)] = 0.0
    rows = np.arange(fams.size)
    pick = value.argmin(axis=1)
    top = value[rows, pick] + bound[rows, pick]
    low = value - bound
    low[:, list(path)] = np.inf
    cols = np.arange(loss.shape[1])
    earlier = cols[None, :] < pick[:, None]
    later = cols[None, :] > pick[:, None]
    clear = np.where(earlier, low > top[:, None], np.where(later, low >= top[:, None], True))
    sure_pick = clear.all(axis=1)
    if path:
        b_total = np.add.reduce(best)
        b_size = np.add.reduce(np.abs(best)) if signed else b_total
        b_mine = np.add.reduceat(best[perm], starts)[slot[fams]]
        current = (b_total - b_mine) / n_out[fams]
        threshold = current - 1e-15
        margin = (4 * (loss.shape[0] + 2) * _U * b_size / n_out[fams]
                  + 4 * _U * np.abs(current) + 4 * _U)
        goes_on = sure_pick & (top < threshold - margin)
        stops = low.min(axis=1) >= threshold + margin
    else:  # the first step: any finite mean is below the start's infinite one
        goes_on, stops = sure_pick, np.zeros(fams.size, dtype=bool)
    picks = np.where(goes_on, pick, -1)
    for i in np.flatnonzero(~(goes_on | stops)):  # too close to tell: as computed alone
        picks[i] = _exact_step(loss, codes != fams[i], path)
    return picks


def _exact_step(loss, out, path):
    """The step :func:`greedy_portfolio_order` takes after ``path`` on ``loss[out]``."""
    own = loss[out]
    best = np.full(own.shape[0], np.inf)
    taken = np.zeros(own.shape[1], dtype=bool)
    for j in path:  # the same best losses, in the same order, as it reaches them
        best = np.minimum(best, own[:, j])
        taken[j] = True
    current = _portfolio_mean(best) if path else np.inf
    return greedy_step(own, best, taken, current, np.empty_like(own),
                       np.empty(own.shape[1]))
