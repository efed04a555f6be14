"""The tongue-in-cheek random paper abstract.

After the algorithm-benchmark web page on value captured, metric disagreement and
bootstrap stability (no printed reference; it follows Caruana & Niculescu-Mizil 2006).
"""

from __future__ import annotations

import numpy as np

from metaeval.benchmark._frames import oriented_tensor
from metaeval.benchmark._metrics import METRICS

_OPENINGS = (
    "We present a careful empirical study of {alg}.",
    "Despite its simplicity, {alg} remains surprisingly competitive.",
    "We revisit {alg}, a method often overlooked in favour of {rival}.",
)
_CLOSINGS = (
    "These results suggest that {alg} should be preferred over {rival} in practice.",
    "Our findings call into question the widespread use of {rival}.",
    "{alg} thus emerges as a strong default choice.",
)


def random_paper_abstract(metrics, algorithm, rival, seed=0, *, n_claims=3,
                          higher_is_better=None):
    """Write a cherry-picked abstract in which ``algorithm`` beats ``rival``.

    **Purpose: to show that cherry-picking works.** Any algorithm can be made
    to look better than any other by choosing datasets and metrics on which it
    happens to win. The abstract quotes real numbers from ``metrics`` but hides
    every cell where ``algorithm`` loses; do not use it to make claims.

    The winning cells are

    .. math::

        W = \\{(d, m) : \\tilde p_{d,m}(\\text{algorithm}) > \\tilde p_{d,m}(\\text{rival})\\},

    :math:`\\tilde p` the metric oriented so that higher is better. The cells of
    ``W`` are shuffled (seeded) and the first cell of each dataset is kept, up to
    ``n_claims`` datasets.

    Parameters
    ----------
    metrics : pandas.DataFrame
        ``[dataset, algorithm, metric, value]``, raw metric values.
    algorithm, rival : str
        The algorithm to flatter and the one to beat.
    seed : int, default=0
        Seed of ``np.random.default_rng`` (which cells and which phrasing).
    n_claims : int, default=3
        At most this many (dataset, metric) claims, on distinct datasets.
    higher_is_better : mapping of str to bool, optional
        Direction of metrics not in :data:`METRICS`.

    Returns
    -------
    str
        A short abstract.

    Raises
    ------
    ValueError
        When ``algorithm`` wins no (dataset, metric) cell against ``rival``.

    References
    ----------
    The algorithm-benchmark web page: "a random paper abstract for your favorite
    learning algorithm, backed by hard experimental data. Obviously, this is
    tongue-in-cheek, but it illustrates a valuable point".

    Examples
    --------
    >>> import pandas as pd
    >>> m = pd.DataFrame({"dataset": ["d", "d", "e", "e"], "metric": "auc",
    ...                   "algorithm": ["NB", "RF"] * 2, "value": [0.9, 0.8, 0.6, 0.95]})
    >>> print(random_paper_abstract(m, "NB", "RF", seed=1))  # doctest: +NORMALIZE_WHITESPACE
    Despite its simplicity, NB remains surprisingly competitive. On the d benchmark,
    NB outperforms RF: AUC 0.900 vs. 0.800 on d. Our findings call into question the
    widespread use of RF.
    """
    if isinstance(n_claims, bool) or not isinstance(n_claims, (int, np.integer)) or n_claims < 1:
        raise ValueError(f"n_claims must be a positive integer, got {n_claims!r}.")
    datasets, names, algorithms, X, _ = oriented_tensor(
        metrics, higher_is_better=higher_is_better
    )
    for arg, value in (("algorithm", algorithm), ("rival", rival)):
        if value not in algorithms:
            raise ValueError(f"{arg}={value!r} is not an algorithm in metrics: {algorithms}.")
    if algorithm == rival:
        raise ValueError("algorithm and rival must differ.")
    a, r = algorithms.index(algorithm), algorithms.index(rival)
    wins = np.argwhere(X[:, :, a] > X[:, :, r])  # NaN compares False: never a win
    if wins.size == 0:
        raise ValueError(
            f"{algorithm!r} beats {rival!r} on no (dataset, metric); even cherry-picking fails."
        )
    rng = np.random.default_rng(seed)
    wins = wins[rng.permutation(len(wins))]
    _, first = np.unique(wins[:, 0], return_index=True)
    chosen = wins[np.sort(first)][:n_claims]
    claims = []
    for d, m in chosen:
        metric = METRICS[names[m]].label if names[m] in METRICS else names[m]
        flip = -1.0 if _is_loss(names[m], higher_is_better) else 1.0
        va, vr = flip * X[d, m, a], flip * X[d, m, r]
        claims.append(f"{metric} {va:.3f} vs. {vr:.3f} on {datasets[d]}")
    ds_names = [datasets[d] for d, _ in chosen]
    where = (
        f"the {ds_names[0]} benchmark"
        if len(ds_names) == 1
        else f"{len(ds_names)} benchmark datasets ({', '.join(ds_names)})"
    )
    opening = _OPENINGS[rng.integers(len(_OPENINGS))].format(alg=algorithm, rival=rival)
    closing = _CLOSINGS[rng.integers(len(_CLOSINGS))].format(alg=algorithm, rival=rival)
    body = f"On {where}, {algorithm} outperforms {rival}: {'; '.join(claims)}."
    return " ".join((opening, body, closing))


def _is_loss(name, higher_is_better):
    if higher_is_better is not None and name in higher_is_better:
        return not bool(higher_is_better[name])
    return not METRICS[name].higher_is_better
