"""Rank statistics for the rate-based threshold choice methods (private).

For every score, the rate-based methods need ``R(s)``, the fraction of the column's
``n`` instances with a score ``<= s``, and ``L = l / n``, the share of the tied group
containing ``s`` (Prudêncio 2019, Sect. 3.3). Both depend only on the tied group, so
they are computed once per group: one ``argsort`` per column, one pass over the sorted
scores to find the groups, and one scatter of the group number back to the original
order.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# Columns of a pool are processed in blocks of at most this many scores, which bounds the
# temporary memory (about 17 bytes per score in a block) for very large pools.
_BLOCK_SCORES = 1 << 20


class RankStatistics(NamedTuple):
    """Tied groups of the scores of each column.

    Attributes
    ----------
    group : ndarray of int, same shape as the scores
        Index of each score's tied group in ``below`` and ``size``.
    below : ndarray of int, shape (n_groups,)
        Number of instances of the same column with a strictly smaller score.
    size : ndarray of int, shape (n_groups,)
        Size ``l`` of the tied group.
    n : int
        Number of instances per column.
    """

    group: np.ndarray
    below: np.ndarray
    size: np.ndarray
    n: int

    def rate(self):
        """``R`` of every score: fraction of its column with a score ``<= s``."""
        return ((self.below + self.size.astype(np.float64)) / self.n)[self.group]

    def width(self):
        """``L = l / n`` of every score."""
        return (self.size / self.n)[self.group]


def _index_dtype(count):
    return np.int32 if count < np.iinfo(np.int32).max else np.int64


def _rank_block(block):
    """Tied groups of each row of a C-contiguous float64 array of shape (n_rows, n).

    The steps are ordered so that at most about 17 bytes per score are alive at once.
    """
    n_rows, n = block.shape
    total = n_rows * n
    order = np.argsort(block, axis=1)
    if n_rows > 1:
        order += (np.arange(n_rows) * n)[:, None]
    order = order.reshape(total)
    ranked = block.reshape(total)[order]
    new_group = np.empty(total, dtype=bool)
    new_group[0] = True
    np.not_equal(ranked[1:], ranked[:-1], out=new_group[1:])
    del ranked
    if n_rows > 1:
        new_group[::n] = True  # a group never spans two rows
    dtype = _index_dtype(total)
    ranked_group = np.cumsum(new_group, dtype=dtype)
    ranked_group -= 1
    group = np.empty(total, dtype=dtype)
    group[order] = ranked_group
    del order
    # number of groups in each row, from the group number of the row's last score
    row_ends = np.append(0, ranked_group[n - 1 :: n] + 1)
    del ranked_group
    starts = np.flatnonzero(new_group)
    del new_group
    for row in range(1, n_rows):  # positions within the row (a loop over rows only)
        starts[row_ends[row] : row_ends[row + 1]] -= row * n
    count_dtype = _index_dtype(n + 1)
    below = starts.astype(count_dtype)
    del starts
    size = np.empty_like(below)
    np.subtract(below[1:], below[:-1], out=size[:-1])
    size[row_ends[1:] - 1] = n - below[row_ends[1:] - 1]  # the last group of each row
    return group.reshape(n_rows, n), below, size


def rank_statistics(s):
    """Tied groups of the scores, per column.

    Parameters
    ----------
    s : ndarray of float64, shape (n,) or (n, n_models)
        Finite scores, at least one instance (and one column).

    Returns
    -------
    RankStatistics
    """
    n = s.shape[0]
    if s.ndim == 1:
        group, below, size = _rank_block(np.ascontiguousarray(s)[None, :])
        return RankStatistics(group.reshape(n), below, size, n)
    n_models = s.shape[1]
    width = max(1, _BLOCK_SCORES // n)
    group = np.empty((n, n_models), dtype=_index_dtype(n * n_models))
    belows, sizes, offset = [], [], 0
    for j0 in range(0, n_models, width):
        j1 = min(n_models, j0 + width)
        block_group, below, size = _rank_block(np.ascontiguousarray(s[:, j0:j1].T))
        target = group[:, j0:j1]
        target[...] = block_group.T
        del block_group
        if offset:
            target += offset
        belows.append(below)
        sizes.append(size)
        offset += size.size
    below = np.concatenate(belows)
    del belows
    return RankStatistics(group, below, np.concatenate(sizes), n)
