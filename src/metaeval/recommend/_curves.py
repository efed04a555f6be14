r"""Loss curves of a test order and their summaries (pure functions).

Testing algorithms one after another on a dataset, the loss after ``k`` tests is the
success of the best algorithm of the pool minus the success of the best one tested so
far (Leite, Brazdil & Vanschoren 2012; Abdulrahman, Brazdil, van Rijn & Vanschoren
2018). Against time, test ``k`` completes at the elapsed time

.. math:: e_k = o + \sum_{i \le k} T_{a_i},

``o`` being the time spent describing the dataset first (meta-features, landmarkers).
Before the first test completes the loss is :math:`L_0`, the loss of the worst
algorithm of the pool (nothing better is in hand yet).
"""

from __future__ import annotations

import numpy as np


def loss_curve(success, times, order, *, overhead=0.0, chooser=None):
    """Loss and elapsed time after each test of ``order``.

    After test ``k`` the algorithm kept is the best of the ``k`` tested by ``chooser``
    (the results the choice is made on; default ``success`` itself), the earliest on
    ties, and the loss is ``max(success)`` minus its ``success``: scored on results the
    choice did not see (another repetition of the cross-validation), a noisy choice
    pays for its noise.

    Parameters
    ----------
    success : array-like of shape (n_algorithms,)
        True success of every algorithm on the dataset (higher is better).
    times : array-like of shape (n_algorithms,)
        Time each test takes (seconds).
    order : array-like of int, shape (n_tests,) or (n_orders, n_tests)
        Indices of the algorithms, in the order tested (several orders as rows).
    overhead : float, default=0.0
        Seconds spent before the first test.
    chooser : array-like of shape (n_algorithms,), optional
        What the best so far is chosen by (default ``success``: the loss is then
        ``max(success) - max(success[order[:k]])``).

    Returns
    -------
    loss : ndarray, shape of ``order``
        ``max(success) - success[kept_k]``, ``kept_k`` the best by ``chooser`` of
        ``order[:k]``.
    elapsed : ndarray, shape of ``order``
        Time at which test ``k`` completes.

    Examples
    --------
    >>> loss, elapsed = loss_curve([0.9, 0.7, 0.8], [10.0, 1.0, 2.0], [1, 2, 0], overhead=1.0)
    >>> loss.round(2).tolist(), elapsed.tolist()
    ([0.2, 0.1, 0.0], [2.0, 4.0, 14.0])

    Chosen on other results, which rank the third test below the second:

    >>> loss, _ = loss_curve([0.9, 0.7, 0.8], [10.0, 1.0, 2.0], [1, 2, 0],
    ...                      chooser=[0.9, 0.8, 0.7])
    >>> loss.round(2).tolist()
    [0.2, 0.2, 0.0]
    """
    success = np.asarray(success, dtype=np.float64)
    times = np.asarray(times, dtype=np.float64)
    order = np.asarray(order, dtype=np.int64)
    elapsed = float(overhead) + np.cumsum(times[order], axis=-1)
    return success.max() - success[kept(order, chooser, success)], elapsed


def kept(order, chooser=None, success=None):
    """The algorithm kept after each test of ``order``: the best by ``chooser`` of those
    tested so far, the earliest on ties (``chooser`` None: by ``success``).

    Examples
    --------
    >>> kept([2, 0, 1], [0.5, 0.9, 0.7]).tolist()
    [2, 2, 1]
    """
    order = np.asarray(order, dtype=np.int64)
    values = np.asarray(success if chooser is None else chooser, dtype=np.float64)
    n = order.shape[-1]
    if values.ndim != 1 or not n or not np.isfinite(values).all():
        return _kept_by_steps(order, values)
    # each test's key: its algorithm's rank among the values (equal values, equal
    # ranks) times n, plus n - 1 - its step; the largest key so far is the best value
    # so far at its earliest step, which the key's remainder gives. Integers, so the
    # same choice as comparing the values step by step (tested), in a third of the time
    # on the random baseline's thousands of orders
    _, rank = np.unique(values, return_inverse=True)
    kind = np.int32 if max(values.size * n, order.size) < 2**31 else np.int64
    key = rank.astype(kind).take(order)
    key *= kind(n)
    key += np.arange(n - 1, -1, -1, dtype=kind)
    np.maximum.accumulate(key, axis=-1, out=key)
    np.remainder(key, kind(n), out=key)
    # the kept test's flat position: its row's start plus n - 1 - the remainder
    key -= np.arange(0, order.size, n, dtype=kind).reshape(order.shape[:-1] + (1,))
    key -= kind(n - 1)
    np.negative(key, out=key)
    return order.ravel().take(key)


def _kept_by_steps(order, values):
    """:func:`kept` by comparing each test's value with the best before it."""
    c = values[order]
    before = np.maximum.accumulate(c, axis=-1)[..., :-1]
    new = np.concatenate([np.ones(c.shape[:-1] + (1,), dtype=bool), c[..., 1:] > before],
                         axis=-1)
    step = np.broadcast_to(np.arange(c.shape[-1]), c.shape)
    at = np.maximum.accumulate(np.where(new, step, 0), axis=-1)
    return np.take_along_axis(order, at, axis=-1)


def mean_interval_loss(loss, elapsed, loss0, time_range):
    r"""Mean loss over a log-time interval (MIL, Abdulrahman et al. 2018).

    .. math::

        MIL = \frac{1}{\ln t_{hi} - \ln t_{lo}} \int_{t_{lo}}^{t_{hi}} L(t)\, d\ln t,

    where :math:`L(t)` is the step function equal to :math:`L_0` before the first test
    completes and to the loss after test ``k`` from :math:`e_k` on.

    Parameters
    ----------
    loss, elapsed : array-like of shape (n_tests,) or (n_orders, n_tests)
        From :func:`loss_curve`.
    loss0 : float
        The loss before any test completes.
    time_range : (float, float)
        :math:`(t_{lo}, t_{hi})`, seconds, ``0 < t_lo < t_hi``.

    Returns
    -------
    mil : float or ndarray of shape (n_orders,)

    Examples
    --------
    Loss 1 until 10 s, then 0; over [1, 100] s half of the log interval has loss 1:

    >>> float(mean_interval_loss([0.0], [10.0], 1.0, (1.0, 100.0)))
    0.5
    """
    lo, hi = _check_range(time_range)
    return _interval_mean(loss, loss0, log_widths(elapsed, (lo, hi)), (lo, hi))


def log_widths(elapsed, time_range) -> np.ndarray:
    """The log-time width within ``time_range`` of each step of a curve: before the first
    test, then after each test (shape of ``elapsed`` plus one step). They depend on the
    times only: curves of one order scored on several truths share them."""
    lo, hi = _check_range(time_range)
    elapsed = np.asarray(elapsed, dtype=np.float64)
    # step i holds from bound i to bound i + 1: 0, the completion times, infinity, each
    # clipped to the range (0 and infinity to its ends), written into one array
    bounds = np.empty(elapsed.shape[:-1] + (elapsed.shape[-1] + 2,))
    bounds[..., 0] = lo
    np.clip(elapsed, lo, hi, out=bounds[..., 1:-1])
    bounds[..., -1] = hi
    np.log(bounds, out=bounds)
    out = np.subtract(bounds[..., 1:], bounds[..., :-1])
    return np.maximum(out, 0.0, out=out)


def _interval_mean(loss, loss0, width, time_range):
    """:func:`mean_interval_loss` from the steps' widths (:func:`log_widths`)."""
    lo, hi = time_range
    loss = np.asarray(loss, dtype=np.float64)
    steps = np.concatenate([np.full(loss.shape[:-1] + (1,), float(loss0)), loss], axis=-1)
    return np.sum(steps * width, axis=-1) / np.log(hi / lo)


def loss_at(loss, k):
    """Loss after ``k`` tests (the last loss when fewer tests were made).

    Examples
    --------
    >>> loss_at([0.3, 0.1, 0.0], 5)
    0.0
    """
    loss = np.asarray(loss, dtype=np.float64)
    out = loss[..., min(int(k), loss.shape[-1]) - 1]
    return float(out) if out.ndim == 0 else out


def loss_by_time(loss, elapsed, loss0, t):
    """Loss at time ``t``: the loss of the last test completed by then (else ``loss0``).

    Examples
    --------
    >>> float(loss_by_time([0.3, 0.0], [2.0, 5.0], 1.0, 4.0))
    0.3
    """
    elapsed = np.asarray(elapsed, dtype=np.float64)
    return _loss_after(loss, loss0, (elapsed <= t).sum(axis=-1))


def _loss_after(loss, loss0, done):
    """The loss after ``done`` tests (``loss0`` after none), per curve."""
    loss = np.asarray(loss, dtype=np.float64)
    padded = np.concatenate([np.full(loss.shape[:-1] + (1,), float(loss0)), loss], axis=-1)
    return np.take_along_axis(padded, np.asarray(done)[..., None], axis=-1)[..., 0]


def random_loss_at(success, k, chooser=None) -> float:
    r"""Expected loss after ``k`` tests of a uniformly random order (closed form).

    With the successes sorted, :math:`s_{(1)} \le \dots \le s_{(n)}`, the best of a random
    ``k``-subset is :math:`s_{(j)}` with probability :math:`\binom{j-1}{k-1} / \binom{n}{k}`
    (ties included: the formula counts positions, not values), so

    .. math:: E[L_k] = s_{(n)} - \sum_{j=k}^{n} s_{(j)} \binom{j-1}{k-1} \Big/ \binom{n}{k}.

    Examples
    --------
    Three algorithms, one test: the expected loss is the best minus the mean.

    >>> round(random_loss_at([0.9, 0.7, 0.8], 1), 12)
    0.1
    >>> round(random_loss_at([0.9, 0.7, 0.8], 2), 12)  # best of 2: .9 w.p. 2/3, .8 w.p. 1/3
    0.033333333333

    With ``chooser`` (the kept algorithm is the best of the ``k`` by it, as in
    :func:`loss_curve`), the same weights go to the algorithms sorted by ``chooser``,
    each block of ties sharing its weights equally (the earliest tested of a tied
    block is any of them with equal chance), and the loss is
    ``max(success)`` minus the expected ``success`` of the one kept:

    >>> round(random_loss_at([0.9, 0.7, 0.8], 2, chooser=[0.9, 0.8, 0.7]), 12)
    0.066666666667
    """
    from scipy.special import gammaln

    success = np.asarray(success, dtype=np.float64)
    by = success if chooser is None else np.asarray(chooser, dtype=np.float64)
    rank = np.argsort(by, kind="stable")
    n = success.size
    k = min(int(k), n)
    j = np.arange(k, n + 1)
    log_w = (gammaln(j) - gammaln(k) - gammaln(j - k + 1)
             - (gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)))
    w = np.zeros(n)
    w[k - 1:] = np.exp(log_w)
    sorted_by = by[rank]
    _, block, size = np.unique(sorted_by, return_inverse=True, return_counts=True)
    w = (np.bincount(block, weights=w) / size)[block]  # ties share their weights
    return float(success.max() - np.sum(success[rank] * w))


def random_losses(success, chooser=None) -> np.ndarray:
    """:func:`random_loss_at` for every ``k`` from 1 to the number of algorithms, the same
    numbers (each ``k``'s weights and sums computed as it computes them), at once.

    Examples
    --------
    >>> random_losses([0.9, 0.7, 0.8]).round(12).tolist()
    [0.1, 0.033333333333, 0.0]
    """
    from scipy.special import gammaln

    success = np.asarray(success, dtype=np.float64)
    by = success if chooser is None else np.asarray(chooser, dtype=np.float64)
    rank = np.argsort(by, kind="stable")
    n = success.size
    k = np.arange(1, n + 1)[:, None]
    j = np.arange(1, n + 1)[None, :]
    # row k - 1: the log weights of j = k..n (the terms of random_loss_at, in its order);
    # the cells j < k are not weights and are set to 0 below
    with np.errstate(invalid="ignore"):
        log_w = (np.ascontiguousarray(gammaln(j) - gammaln(k) - gammaln(np.maximum(j - k + 1, 1)))
                 - (gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)))
    w = np.exp(log_w)
    w[j < k] = 0.0
    _, block, size = np.unique(by[rank], return_inverse=True, return_counts=True)
    # each block's sum as bincount adds it: from 0, its weights one after another
    starts = np.r_[0, np.cumsum(size)[:-1]]
    sums = np.zeros((n, size.size))
    for t in range(int(size.max()) if n else 0):
        has = size > t
        sums[:, has] += w[:, starts[has] + t]
    w = np.ascontiguousarray((sums / size)[:, block])  # ties share their weights
    return success.max() - np.sum(success[rank] * w, axis=1) if n else np.zeros(0)


def _check_range(time_range):
    try:
        lo, hi = (float(v) for v in time_range)
    except (TypeError, ValueError):
        raise ValueError(f"time_range must be two numbers (lo, hi), got {time_range!r}.") from None
    if not (0 < lo < hi < np.inf):
        raise ValueError(f"time_range must satisfy 0 < lo < hi < inf, got {time_range!r}.")
    return lo, hi
