"""Bootstrap stability of pairwise conclusions over datasets and metrics.

After the algorithm-benchmark web page on value captured, metric disagreement and
bootstrap stability (no printed reference; it follows Caruana & Niculescu-Mizil 2006).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from metaeval.benchmark._frames import oriented_tensor
from metaeval.benchmark._value import _capture

# a mean difference of value captured (percent) within this of 0 is a tie
_TIE = 1e-9
# elements of the gathered (chunk, d, m) block, to bound memory (~32 MB of float64)
_CHUNK_ELEMENTS = 1 << 22


def pair_differences(V):
    """Difference tensor ``delta[dataset, metric, pair] = V[..., a] - V[..., b]`` for a < b."""
    a, b = np.triu_indices(V.shape[2], k=1)
    return V[:, :, a] - V[:, :, b]


def drawn_pair_differences(V, pair):
    """``pair_differences(V)[..., pair]`` without the others: ``(delta, positions)``.

    Only the pairs drawn are computed (at most one per draw, whatever the number of
    algorithms: 500 algorithms make 124,750 pairs, a gigabyte of differences over 100
    datasets and 10 metrics); ``positions`` index ``delta``'s last axis like ``pair``
    indexed the full tensor.
    """
    used, positions = np.unique(pair, return_inverse=True)
    a, b = np.triu_indices(V.shape[2], k=1)
    return V[:, :, a[used]] - V[:, :, b[used]], positions.reshape(np.shape(pair))


def verdict(mean):
    """Sign of a mean difference, 0 within the tie tolerance."""
    return np.where(mean > _TIE, 1, np.where(mean < -_TIE, -1, 0)).astype(np.int8)


def draw_indices(rng, B, n_datasets, n_metrics, n_pairs, d_max, m_max):
    """Draw index arrays once: datasets (B, d_max), metrics (B, m_max), pairs (B,)."""
    ds = rng.integers(0, n_datasets, size=(B, d_max))
    ms = rng.integers(0, n_metrics, size=(B, m_max))
    pair = rng.integers(0, n_pairs, size=B)
    return ds, ms, pair


def nested_counts(delta, ds, ms, pair, d_values, m_values):
    """Count, per (d, m) cell, the draws whose conclusion differs from the full one.

    Draw ``b`` uses datasets ``ds[b, :d]`` and metrics ``ms[b, :m]``: the sum over
    the d x m product is the (d, m) entry of the two-dimensional prefix sum of
    ``delta[ds[b], :][:, ms[b], pair[b]]``, so one gather of ``d_max x m_max``
    values per draw serves every cell. Chunked over draws to bound memory.
    """
    D, M, P = delta.shape
    full = verdict(delta.mean(axis=(0, 1)))
    d_idx = np.asarray(d_values) - 1
    m_idx = np.asarray(m_values) - 1
    size = np.outer(np.asarray(d_values, float), np.asarray(m_values, float))
    flat = delta.transpose(2, 0, 1).reshape(-1)  # (pair, dataset, metric) contiguous
    B, d_max = ds.shape
    m_max = ms.shape[1]
    chunk = max(1, _CHUNK_ELEMENTS // (d_max * m_max))
    counts = np.zeros((d_idx.size, m_idx.size), dtype=np.int64)
    for start in range(0, B, chunk):
        sl = slice(start, start + chunk)
        idx = (pair[sl, None, None] * D + ds[sl, :, None]) * M + ms[sl, None, :]
        block = flat[idx]
        np.cumsum(block, axis=1, out=block)
        np.cumsum(block, axis=2, out=block)
        sums = block[:, d_idx][:, :, m_idx]
        differs = verdict(sums / size) != full[pair[sl], None, None]
        counts += differs.sum(axis=0)
    return counts


def independent_counts(delta, ds, ms, pair):
    """Count the draws of one cell (d = ds.shape[1], m = ms.shape[1]) that differ."""
    D, M, _ = delta.shape
    full = verdict(delta.mean(axis=(0, 1)))
    flat = delta.transpose(2, 0, 1).reshape(-1)
    B, d = ds.shape
    m = ms.shape[1]
    chunk = max(1, _CHUNK_ELEMENTS // (d * m))
    count = 0
    for start in range(0, B, chunk):
        sl = slice(start, start + chunk)
        idx = (pair[sl, None, None] * D + ds[sl, :, None]) * M + ms[sl, None, :]
        means = flat[idx].sum(axis=(1, 2)) / (d * m)
        count += int((verdict(means) != full[pair[sl]]).sum())
    return count


def _check_grid(values, name):
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "iu":
        raise ValueError(f"{name} must be a non-empty 1-d sequence of integers, got {values!r}.")
    if arr.min() < 1:
        raise ValueError(f"{name} must hold integers >= 1, got {values!r}.")
    return arr.astype(np.int64)


def bootstrap_stability(metrics, d_values, m_values, B=50_000, seed=0, *, draws="nested",
                        higher_is_better=None):
    """Share of bootstrap draws whose pairwise conclusion differs from the full one.

    With :math:`\\mathrm{VC}_{d,m}(a)` the value captured (:func:`value_captured`)
    and, for a pair :math:`(a, b)`, :math:`\\Delta_{d,m} = \\mathrm{VC}_{d,m}(a) -
    \\mathrm{VC}_{d,m}(b)`, a draw of datasets :math:`d_1..d_n` and metrics
    :math:`m_1..m_k` (with replacement) and of a random pair concludes

    .. math::

        c = \\operatorname{sign} \\frac{1}{nk} \\sum_{i=1}^{n} \\sum_{j=1}^{k}
        \\Delta_{d_i, m_j},

    and the cell :math:`(n, k)` reports :math:`P(c \\neq c_{\\text{all}})`,
    :math:`c_{\\text{all}}` the sign of the mean of :math:`\\Delta` over all
    datasets and metrics.

    Parameters
    ----------
    metrics : pandas.DataFrame
        ``[dataset, algorithm, metric, value]`` with a finite value for every
        (dataset, algorithm, metric) (raw metrics; value captured is computed here).
    d_values, m_values : sequence of int
        Numbers of datasets and of metrics drawn (each >= 1; may exceed the number
        available, as draws are with replacement).
    B : int, default=50_000
        Draws per cell.
    seed : int, default=0
        Seed of ``np.random.default_rng``; the same seed gives the same result.
    draws : {"nested", "independent"}, default="nested"
        ``"nested"``: each draw picks ``max(d_values)`` datasets and
        ``max(m_values)`` metrics and cell (n, k) uses the first n and the first k
        of them -- each cell still sees B draws of exactly the stated law, the
        cells share random numbers (common random numbers: differences between
        cells are estimated with less noise), and a two-dimensional prefix sum
        gives all cells from one gather. ``"independent"``: fresh draws for
        every cell, cells in row-major order (slower: about
        :math:`B \\sum n k` gathered values).
    higher_is_better : mapping of str to bool, optional
        Direction of metrics not in :data:`METRICS`.

    Returns
    -------
    pandas.DataFrame
        ``[n_datasets, n_metrics, p_different]``, one row per cell, ``d_values``
        outer and ``m_values`` inner, in the given order; ``attrs`` records
        ``B``, ``seed`` and ``draws``.

    Notes
    -----
    The conclusion compares mean value captured (normalised per dataset and
    metric, so metrics on different scales weigh alike, and loss metrics are
    already flipped). A mean difference within 1e-9 (percent) of 0 is a tie,
    a conclusion of its own: a tied draw differs from a full-data winner, and a
    winner differs from a full-data tie. The pair is drawn uniformly from the
    unordered pairs of algorithms.

    References
    ----------
    The algorithm-benchmark web page: "we take bootstrap samples of the available
    datasets and metrics and do a pairwise comparison of two random algorithms ... 50000
    times for each square in the grid, then measure the percentage of the time the
    comparison ... would lead us to a different conclusion than using all metrics and
    datasets."

    Examples
    --------
    >>> import pandas as pd
    >>> m = pd.DataFrame({"dataset": ["d", "d", "e", "e"], "metric": "auc",
    ...                   "algorithm": ["A", "B", "A", "B"], "value": [0.9, 0.8, 0.7, 0.8]})
    >>> bootstrap_stability(m, [1, 2], [1], B=1000, seed=0)  # full data: a tie
       n_datasets  n_metrics  p_different
    0           1          1        1.000
    1           2          1        0.477
    """
    if draws not in ("nested", "independent"):
        raise ValueError(f"draws must be 'nested' or 'independent', got {draws!r}.")
    if isinstance(B, bool) or not isinstance(B, (int, np.integer)) or B < 1:
        raise ValueError(f"B must be a positive integer, got {B!r}.")
    d_arr = _check_grid(d_values, "d_values")
    m_arr = _check_grid(m_values, "m_values")
    _, _, algorithms, X, _ = oriented_tensor(
        metrics, higher_is_better=higher_is_better, complete=True
    )
    if len(algorithms) < 2:
        raise ValueError("metrics must hold at least two algorithms to compare.")
    V = _capture(X)
    D, M, A = V.shape
    P = A * (A - 1) // 2
    rng = np.random.default_rng(seed)
    if draws == "nested":
        ds, ms, pair = draw_indices(rng, int(B), D, M, P, int(d_arr.max()), int(m_arr.max()))
        delta, pair = drawn_pair_differences(V, pair)
        share = nested_counts(delta, ds, ms, pair, d_arr, m_arr) / B
    else:
        share = np.empty((d_arr.size, m_arr.size))
        for i, d in enumerate(d_arr):
            for j, m in enumerate(m_arr):
                ds, ms, pair = draw_indices(rng, int(B), D, M, P, int(d), int(m))
                delta, pair = drawn_pair_differences(V, pair)
                share[i, j] = independent_counts(delta, ds, ms, pair) / B
    out = pd.DataFrame(
        {
            "n_datasets": np.repeat(d_arr, m_arr.size),
            "n_metrics": np.tile(m_arr, d_arr.size),
            "p_different": share.reshape(-1),
        }
    )
    out.attrs.update(B=int(B), seed=seed, draws=draws)
    return out
