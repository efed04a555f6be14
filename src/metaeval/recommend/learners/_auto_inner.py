"""``auto``'s inner orders: each training dataset ranked by a candidate fitted without
the dataset's family (leave-one-family-out), for the candidates that do not give their
own (``inner_orders_``)."""

from __future__ import annotations

import numpy as np

from metaeval.recommend._condition import SUCCESS_FLOOR
from metaeval.recommend.learners._learners import complete_order
from metaeval.recommend.learners._neighbours import _distances
from metaeval.recommend.learners._portfolio_loo import greedy_portfolio_orders_without
from metaeval.recommend.learners._strategies import _a3r_order


def _inner_orders(fitted, kb, condition, codes, n_families):
    """The inner leave-one-family-out order of every training dataset, (D, A)."""
    name = fitted.strategy.name
    if hasattr(fitted, "inner_orders_"):  # learners and k-NN: their own inner orders
        return fitted.inner_orders_
    orders = np.empty(kb.success.shape, dtype=np.int64)
    ranked = (_family_a3r_orders(kb, condition, codes, n_families)
              if name in ("average-ranking", "zero-shot-portfolio") else None)
    values = condition.a3r_values(kb.success, kb.times)
    heads = (greedy_portfolio_orders_without(values.max(axis=1, keepdims=True) - values,
                                             codes, n_families)
             if name == "zero-shot-portfolio" else None)
    for f in range(n_families):
        out, rows = codes != f, np.flatnonzero(codes == f)
        if name == "single-best":
            order = np.argsort(-kb.success[out].mean(axis=0), kind="stable")
            orders[rows] = order
        elif name == "average-ranking":
            orders[rows] = (ranked[f] if ranked is not None else
                            _a3r_order(_View(kb, out), condition)[0])
        elif name == "zero-shot-portfolio":
            head = heads[f]
            if ranked is None:
                orders[rows] = complete_order(head, _View(kb, out), condition)
            else:
                orders[rows] = np.concatenate([head, ranked[f][~np.isin(ranked[f], head)]])
        elif name in ("knn-metafeatures", "cost-landmarking"):
            table = kb.metafeatures if name == "knn-metafeatures" else kb.landmarks
            log_a3r = np.log(np.maximum(kb.success, SUCCESS_FLOOR)) - (
                condition.time_weight * np.log(kb.times))
            candidates = np.flatnonzero(out)
            others = table.iloc[candidates]  # once per family, not per dataset
            for i in rows:
                dist = _distances(others, table.iloc[i])
                nearest = candidates[np.argsort(dist, kind="stable")[: fitted.strategy.k]]
                orders[i] = np.argsort(-log_a3r[nearest].mean(axis=0), kind="stable")
        else:  # any other static strategy: fitted without the family
            sub = kb.subset(out)
            f_fit = fitted.strategy.fit(sub, condition, seed=fitted.seed)
            for i, r in zip(rows, f_fit.rank_many([kb.query(i) for i in rows]), strict=True):
                orders[i] = r.order
    return orders


def _family_a3r_orders(kb, condition, codes, n_families):
    """The A3R average ranking of the datasets outside each family, (n_families, A), or
    None where the ranking would check what a matrix cannot (then each is computed).

    Each dataset's ranks do not depend on the other datasets, and ranks are halves
    whose sums are exact: the mean rank outside a family is the total minus the
    family's, over the count, the same numbers as ranking the subset (Abdulrahman et
    al. 2018's average ranking, as :func:`metaeval.ranking.average_ranks`).
    """
    from metaeval.ranking._frames import _ranks, _snap_ties
    from metaeval.ranking._methods import _average_rank_order

    values = condition.a3r_values(kb.success, kb.times)
    if _average_rank_order(values, kb.datasets, kb.algorithms) is None:
        return None
    cols = np.argsort(np.asarray(kb.algorithms, dtype=object), kind="stable")
    ranks = _ranks(values[:, cols], True)
    family = np.zeros((n_families, ranks.shape[1]))
    np.add.at(family, codes, ranks)
    counts = np.bincount(codes, minlength=n_families)
    score = (ranks.sum(axis=0) - family) / (len(codes) - counts)[:, None]
    return np.array([cols[np.argsort(_snap_ties(row), kind="stable")] for row in score],
                    dtype=np.int64)


class _View:
    """The few attributes of a knowledge base that the A3R order reads, for a subset of
    its datasets without building one."""

    def __init__(self, kb, mask):
        self.success = kb.success[mask]
        self.times = kb.times[mask]
        self.datasets = tuple(d for d, m in zip(kb.datasets, mask, strict=True) if m)
        self.algorithms = kb.algorithms

    def long(self, values=None, name="value"):
        from metaeval.recommend.knowledge._knowledge import KnowledgeBase

        return KnowledgeBase.long(self, values, name)
