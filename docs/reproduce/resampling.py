"""Resampling: bootstrap batches, null models and the small helpers they share."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .study import (
    RD,
    SD,
    Trees,
)


@dataclass
class Batches:
    """Matrices (B, M, k, k) for the full data, the bootstrap and the null draws."""

    full: np.ndarray
    boot: np.ndarray
    null: np.ndarray
    trees: dict = field(default_factory=dict)

    def tree(self, which) -> Trees:
        if which not in self.trees:
            self.trees[which] = Trees(getattr(self, which))
        return self.trees[which]


def aggregated_batches(stack, rng, n_boot, n_null, *, chunk=100) -> Batches:
    """Aggregated dissimilarities (Melo & Prudêncio 2014, eq. 25) over resampled datasets.

    The full data is :func:`metaeval.similarity.aggregate_dissimilarity` of every
    dataset; eq. 25 is a plain mean over datasets, so the resamples are the same mean
    taken over datasets drawn with replacement. The null permutes the algorithm labels
    of each dataset independently (one permutation per dataset, shared by the three
    methods): each dataset keeps its own spread of dissimilarities, but which algorithm is
    which no longer carries over from one dataset to the next.
    """
    from metaeval.similarity import aggregate_dissimilarity

    N, M, k, _ = stack.shape
    full = np.stack([aggregate_dissimilarity(stack[:, m]) for m in range(M)])[None]
    assert np.allclose(full[0], stack.mean(axis=0))  # eq. 25 is the mean
    idx = rng.integers(0, N, size=(n_boot, N))
    boot = np.stack([stack[i].mean(axis=0) for i in idx]) if n_boot else full[:0]
    null = np.empty((n_null, M, k, k))
    for start in range(0, n_null, chunk):
        b = min(chunk, n_null - start)
        perm = rng.permuted(np.broadcast_to(np.arange(k), (b, N, k)), axis=-1)
        n_idx = np.arange(N)[None, :, None, None]
        g = stack[n_idx, :, perm[..., :, None], perm[..., None, :]]  # (b, N, k, k, M)
        null[start:start + b] = g.mean(axis=1).transpose(0, 3, 1, 2)
    return Batches(full, boot, null)


def method_swap_null(stack, rng, n_null, a=SD, b=RD) -> np.ndarray:
    """Null for claims that compare two methods: swap their matrices on a random half of
    the datasets (each dataset independently), then aggregate."""
    N = stack.shape[0]
    swap = rng.random((n_null, N)) < 0.5
    A = np.where(swap[..., None, None], stack[None, :, b], stack[None, :, a]).mean(axis=1)
    Bm = np.where(swap[..., None, None], stack[None, :, a], stack[None, :, b]).mean(axis=1)
    out = np.repeat(stack.mean(axis=0)[None], n_null, axis=0)
    out[:, a], out[:, b] = A, Bm
    return out


def instance_batches(H, rng, n_boot, n_null, *, independent=False) -> tuple[Batches, np.ndarray]:
    """Dissimilarities on one dataset: full data, instances resampled, labels permuted.

    Parameters
    ----------
    H : ndarray of shape (n_instances, M, k)
        Instance hardness per method and model, computed once on the full data; a
        resample draws instances with replacement and recomputes the dissimilarity
        (:func:`metaeval.similarity.dissimilarity_matrix`) and the mean hardness over the
        drawn instances (the hardness of an instance is not recomputed).
    independent : bool
        Null draws permute the model labels independently per method (for claims that
        compare the trees of two methods); otherwise one permutation per draw, shared.

    Returns
    -------
    Batches, and the mean hardness per resample, shape (n_boot, M, k).
    """
    from metaeval.similarity import dissimilarity_matrix

    n, M, k = H.shape
    full = np.stack([dissimilarity_matrix(H[:, m]) for m in range(M)])[None]
    idx = rng.integers(0, n, size=(n_boot, n))
    boot = np.empty((n_boot, M, k, k))
    means = np.empty((n_boot, M, k))
    for b, i in enumerate(idx):
        Hb = H[i]
        means[b] = Hb.mean(axis=0)
        for m in range(M):
            boot[b, m] = dissimilarity_matrix(Hb[:, m])
    null = permuted_labels(full[0], rng, n_null, independent=independent)
    return Batches(full, boot, null), means


def permuted_labels(mats, rng, n_null, *, independent=False) -> np.ndarray:
    """Copies of ``mats`` (M, k, k) with the model labels permuted at random."""
    M, k, _ = mats.shape
    shape = (n_null, M if independent else 1, k)
    perm = rng.permuted(np.broadcast_to(np.arange(k), shape), axis=-1)
    perm = np.broadcast_to(perm, (n_null, M, k))
    m_idx = np.arange(M)[None, :, None, None]
    return mats[m_idx, perm[..., :, None], perm[..., None, :]]


def label_free_hardness(y01, S, methods) -> np.ndarray:
    """Hardness of every instance as if it were class 0 and as if it were class 1.

    Parameters
    ----------
    y01 : ndarray of shape (n,)
        0/1 labels (1 = the class the scores estimate).
    S : ndarray of shape (n, k)
    methods : sequence of str

    Returns
    -------
    ndarray of shape (2, n, M, k)
        Rates depend on the scores only, so calling
        :func:`metaeval.hardness.instance_hardness_by_method` with the labels and with
        the labels flipped gives both; a permuted labelling ``y'`` then has hardness
        ``out[y'[i], i]``, exactly what the library computes for ``(y', S)``.
    """
    from metaeval.hardness import instance_hardness_by_method

    y01 = np.asarray(y01).astype(int)
    Hy = instance_hardness_by_method(y01, S, methods)
    Hf = instance_hardness_by_method(1 - y01, S, methods)
    as_y = np.stack([Hy[m] for m in methods], axis=1)
    as_f = np.stack([Hf[m] for m in methods], axis=1)
    c = y01[:, None, None]
    return np.stack([np.where(c == 0, as_y, as_f), np.where(c == 1, as_y, as_f)])


# --------------------------------------------------------------------------- small helpers
def present(labels, names) -> list:
    """Names of ``names`` missing from ``labels`` (empty when all are there)."""
    return [a for a in names if a not in labels]


def tied_share(s) -> float:
    """Share of the scores equal to at least one other score of the column."""
    _, inverse, counts = np.unique(np.asarray(s), return_inverse=True, return_counts=True)
    return float(np.mean(counts[inverse] > 1))


def fraction_fit(values, n) -> float:
    """Largest distance of ``values`` from the nearest multiple of ``1/n``.

    Score-fixed mean hardness is an error count over ``n`` instances, so a printed IH_sf
    column is a set of multiples of ``1/n`` (up to its rounding) only for the right ``n``.
    """
    v = np.asarray(values, dtype=float) * n
    return float(np.abs(v - np.round(v)).max() / n)


def rate_driven_floor(n_class1, n) -> float:
    """Mean rate-driven hardness of a perfect ranking of ``n`` instances, ``n_class1`` of
    class 1 (all class-0 instances scored below all class-1 ones, no ties), computed by
    :func:`metaeval.hardness.instance_hardness`: no ranking has a lower mean. (Tie-aware,
    each instance averages u² or (1 − u)² over its own rate interval, so the floor is
    (π₀³ + π₁³) / 3.)"""
    from metaeval.hardness import instance_hardness

    y = np.r_[np.zeros(n - n_class1, int), np.ones(n_class1, int)]
    return float(instance_hardness(y, np.linspace(0.0, 1.0, n), "rate-driven").mean())


def mad(a, b, axis=-1) -> np.ndarray:
    """Mean absolute difference along ``axis``."""
    return np.abs(np.asarray(a) - np.asarray(b)).mean(axis=axis)


def _boot_idx(rng, n, n_boot) -> np.ndarray:
    return rng.integers(0, n, size=(n_boot, n))


def permuted_class_means(LF, y01, rng, n_null) -> tuple[np.ndarray, np.ndarray]:
    """Class means of hardness under permuted class labels.

    Parameters
    ----------
    LF : ndarray of shape (2, n, ...)
        From :func:`label_free_hardness`.
    y01 : ndarray of shape (n,)

    Returns
    -------
    mean0, mean1 : ndarrays of shape (n_null, ...)
        Mean hardness of the instances labelled 0 (resp. 1) by each permutation.
    """
    n = y01.size
    rest = LF.shape[2:]
    perm = rng.permuted(np.broadcast_to(y01, (n_null, n)), axis=-1)
    P1 = (perm == 1).astype(float)
    P0 = 1.0 - P1
    n1 = int(y01.sum())
    m0 = P0 @ LF[0].reshape(n, -1) / (n - n1)
    m1 = P1 @ LF[1].reshape(n, -1) / n1
    return m0.reshape((n_null, *rest)), m1.reshape((n_null, *rest))
