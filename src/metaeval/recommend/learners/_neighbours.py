"""Strategies that recommend from the most similar past datasets.

``knn-metafeatures`` finds the nearest training datasets by their standardised pymfe
meta-features and orders the configurations as SUNNY does (Amadini, Gabbrielli & Mauro
2014): the first pick, then the neighbours' best configurations as a portfolio;
``cost-landmarking`` finds them by cheap landmarkers' instance hardness under the
operating condition (Prudêncio 2019). Both are :class:`Strategy` objects fitted once.
"""

from __future__ import annotations

import warnings

import numpy as np

from metaeval.ranking import a3r
from metaeval.recommend._condition import SUCCESS_FLOOR
from metaeval.recommend.learners._learners import (
    Design,
    family_codes,
    first_pick_loss,
    greedy_portfolio_order,
    nested_record,
    one_se_without_each,
    select_one_se,
)
from metaeval.recommend.learners._strategies import Fitted, Ranking, Strategy, _a3r_order


class _Neighbours(Strategy):
    """The k training datasets nearest to the new one, then their A3R ranking."""

    k: int = 5

    def __init__(self, k=5):
        if k is None:  # the strategy's default
            k = 5
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}.")
        self.k = int(k)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(k={self.k})"

    def _features(self, train, query):
        raise NotImplementedError  # pragma: no cover

    def _fit(self, knowledge, condition, seed) -> Fitted:
        return _FittedNeighbours(self, knowledge, condition, seed)


class _FittedNeighbours(Fitted):
    def rank(self, query) -> Ranking:
        train, condition = self.knowledge, self.condition
        table, point = self.strategy._features(train, query)
        nearest = np.argsort(_distances(table, point), kind="stable")[: self.strategy.k]
        sub = train.subset(np.isin(np.arange(len(train.datasets)), nearest))
        success = sub.long(np.maximum(sub.success, SUCCESS_FLOOR))
        times = sub.long(sub.times, "time")
        frame = a3r(success, times, p=condition.time_weight)
        index = {a: j for j, a in enumerate(train.algorithms)}
        order = np.array([index[a] for a in frame["algorithm"]], dtype=np.int64)
        drivers = tuple(train.datasets[i] for i in nearest)
        return Ranking(order, frame["score"].to_numpy(dtype=np.float64), drivers)


def _distances(table, point):
    r"""Range-normalised L1 distance of each row of ``table`` to ``point``.

    .. math:: dist(d_i, d) = \operatorname{mean}_x \frac{|x_{d_i} - x_d|}{\max_x - \min_x}

    over the features known for both (Brazdil, Soares & da Costa 2003, with the sum
    replaced by a mean so that missing features do not shrink distances); features
    constant over the training datasets are left out.
    """
    X = table.to_numpy(dtype=np.float64)
    p = point.reindex(table.columns).to_numpy(dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns and rows
        span = np.nanmax(X, axis=0) - np.nanmin(X, axis=0)
        usable = np.isfinite(span) & (span > 0) & np.isfinite(p)
        if not usable.any():
            return np.zeros(X.shape[0])
        diff = np.abs(X[:, usable] - p[usable]) / span[usable]
        dist = np.nanmean(diff, axis=1)
    return np.where(np.isnan(dist), np.inf, dist)


class KnnMetafeatures(_Neighbours):
    r"""The k training datasets nearest by standardised meta-features, SUNNY's portfolio.

    The meta-features are imputed with their training medians (features constant over
    the training datasets left out) and standardised with the training datasets' means
    and standard deviations only; a new dataset is placed in the same scale (it never
    changes it) and its neighbours are the k training datasets nearest in Euclidean
    distance (ties to the earlier dataset). The first pick is the configuration with
    the best mean over the neighbours of :math:`\log A3R = \log SR - P \log T`
    (Abdulrahman & Brazdil 2014); then, as SUNNY does, the neighbours' best
    configurations: the greedy portfolio that most reduces the neighbours' mean loss of
    the best configuration so far (:func:`greedy_portfolio_order`, started from the first
    pick), and the other configurations by the neighbours' mean log A3R.

    Without ``k``, it is chosen on the training datasets: each is ranked from its
    nearest datasets of other families (leave-one-family-out), and the largest k whose
    mean loss of the first pick (averaged within families) is within one standard error
    of the lowest is kept (the one-standard-error rule toward the simpler, smoother
    neighbourhood; Hastie, Tibshirani & Friedman 2009, sec. 7.10). The choice is
    reported in ``selection_``.

    Parameters
    ----------
    k : int or sequence of int, optional
        A fixed number of neighbours, or the sizes to choose from; default
        :attr:`K_GRID`.

    References
    ----------
    R. Amadini, M. Gabbrielli and J. Mauro, "SUNNY: a lazy portfolio approach for
    constraint solving", Theory and Practice of Logic Programming 14 (2014);
    P. B. Brazdil, C. Soares and J. P. da Costa, "Ranking learning algorithms: using IBL
    and meta-learning on accuracy and time results", Machine Learning 50(3):251-277
    (2003); Abdulrahman & Brazdil (2014), eq. 2; pymfe: Alcobaça et al., JMLR 21 (2020).

    Examples
    --------
    >>> from metaeval.recommend import Condition, KnowledgeBase, Query
    >>> import pandas as pd
    >>> kb = KnowledgeBase(["d1", "d2", "d3"], ["A", "B"], [[.9, .5], [.6, .8], [.9, .4]],
    ...                    [[1, 1]] * 3,
    ...                    metafeatures=pd.DataFrame({"f": [0.0, 1.0, 5.0]},
    ...                                              index=["d1", "d2", "d3"]))
    >>> ranked = KnnMetafeatures(k=2).rank(kb, Query("new", 10, metafeatures=pd.Series(
    ...     {"f": 0.4})), Condition())
    >>> ranked.drivers, [kb.algorithms[j] for j in ranked.order]
    (('d1', 'd2'), ['A', 'B'])
    """

    name = "knn-metafeatures"
    uses = "metafeatures"
    #: The neighbourhood sizes tried when ``k`` is not given, simplest (largest) first.
    K_GRID = (20, 10, 5, 3, 1)

    def __init__(self, k=None):
        if k is None:
            self.k, self.grid = None, self.K_GRID
        elif isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            super().__init__(k)
            self.grid = (self.k,)
        else:
            grid = tuple(k)
            if not grid or any(isinstance(v, bool) or not isinstance(v, (int, np.integer))
                               or v < 1 for v in grid):
                raise ValueError(f"k must be a positive integer or a sequence of them, got "
                                 f"{k!r}.")
            self.k = None
            self.grid = tuple(sorted({int(v) for v in grid}, reverse=True))

    def __repr__(self) -> str:
        if self.k is None and self.grid != self.K_GRID:
            return f"KnnMetafeatures(k={self.grid})"
        return f"KnnMetafeatures(k={self.k})"

    def _features(self, train, query):
        if train.metafeatures is None:
            raise ValueError(f"{self.name} needs meta-features of every dataset "
                             "(describe the store first: `metaeval describe --store ...`).")
        if query.metafeatures is None:
            raise ValueError(f"{self.name} could not describe the new dataset (every pymfe "
                             "group failed on it); use another strategy, e.g. "
                             "average-ranking.")
        return train.metafeatures, query.metafeatures

    def _fit(self, knowledge, condition, seed) -> Fitted:
        if knowledge.metafeatures is None:
            self._features(knowledge, None)
        return _FittedKnn(self, knowledge, condition, seed)


class _FittedKnn(Fitted):
    """The standardised training meta-features, and the chosen number of neighbours."""

    def __init__(self, strategy, train, condition, seed):
        super().__init__(strategy, train, condition, seed)
        self._design = design = Design(train, ("metafeatures",), strategy.name)
        X = design.X
        self._centre = X.mean(axis=0)
        scale = X.std(axis=0)
        self._scale = np.where(scale > 0, scale, 1.0)
        self._Z = (X - self._centre) / self._scale
        values = condition.a3r_values(train.success, train.times)
        self._log = np.log(values)
        self._loss = values.max(axis=1, keepdims=True) - values
        self._ar_order = None
        n = len(train.datasets)
        codes, n_families = family_codes(train)
        grid = tuple(dict.fromkeys(min(k, n) for k in strategy.grid))
        self._codes = codes
        self._inner_nearest = None
        self._inner_orders = None
        if len(grid) == 1 or n_families < 2:
            k = grid[0] if len(grid) == 1 else min(5, n)
            self.selection_ = ({} if strategy.k is not None else
                               {"params": {"k": k}, "rule": "default (one family)"})
            self._inner_k = np.full(n, int(k))
        else:
            nearest, valid = self._inner_neighbours(max(grid))
            losses = {}
            for k in grid:
                picks = _first_picks(self._log, nearest[:, :k], valid[:, :k])
                losses[k] = first_pick_loss(train.success, picks)
            k, means, se = select_one_se(losses, codes, n_families)
            # each training dataset's inner order uses the k chosen without its family
            nested = one_se_without_each(losses, codes, n_families)[codes]
            self._inner_k = np.array(grid)[nested]
            self.selection_ = {"params": {"k": int(k)}, "inner_loss": means,
                               "inner_se": se, "rule": "one-SE",
                               "nested": nested_record(list(grid), nested, codes)}
        self.k = int(k)

    def _inner_neighbours(self, k):
        """Each training dataset's ``k`` nearest training datasets of other families,
        (D, k), and which of them exist (a family may leave fewer than ``k``)."""
        if self._inner_nearest is None or self._inner_nearest[0].shape[1] < k:
            Z, codes = self._Z, self._codes
            sq = (Z**2).sum(axis=1)
            dist = np.maximum(sq[:, None] + sq[None, :] - 2.0 * Z @ Z.T, 0.0)
            dist[codes[:, None] == codes[None, :]] = np.inf
            k = min(k, dist.shape[1])
            nearest = np.argsort(dist, axis=1, kind="stable")[:, :k]
            valid = np.isfinite(np.take_along_axis(dist, nearest, axis=1))
            self._inner_nearest = nearest, valid
        return self._inner_nearest

    @property
    def inner_orders_(self) -> np.ndarray:
        """Each training dataset's order from its k nearest datasets of other families
        (the inner leave-one-family-out orders ``auto`` judges it by), k chosen without
        the dataset's family, (D, A)."""
        if self._inner_orders is None:  # computed once (auto and the evaluation ask)
            nearest, valid = self._inner_neighbours(int(self._inner_k.max()))
            self._inner_orders = np.array([self._order(nb[:k][ok[:k]])[0] for nb, ok, k in zip(
                nearest, valid, self._inner_k, strict=True)], dtype=np.int64)
        return self._inner_orders.copy()

    def _order(self, nearest):
        """SUNNY's order from the neighbours ``nearest``: (order, score)."""
        if nearest.size == 0:  # no neighbour: the training datasets' A3R ranking
            if self._ar_order is None:
                self._ar_order = _a3r_order(self.knowledge, self.condition)[0]
            return self._ar_order.copy(), np.full(self._ar_order.size, np.nan)
        mean = self._log[nearest].mean(axis=0)
        by_mean = np.argsort(-mean, kind="stable")
        head = greedy_portfolio_order(self._loss[nearest], head=[int(by_mean[0])])
        order = np.concatenate([head, by_mean[~np.isin(by_mean, head)]])
        return order, mean[order]

    def rank_many(self, queries) -> list:
        for q in queries:
            if q.metafeatures is None:
                self.strategy._features(self.knowledge, q)
        Z = self._Z
        points = (np.array([self._design.point(q) for q in queries]) - self._centre) \
            / self._scale
        dist = ((points**2).sum(axis=1)[:, None] + (Z**2).sum(axis=1)[None, :]
                - 2.0 * points @ Z.T)
        nearest = np.argsort(dist, axis=1, kind="stable")[:, :self.k]
        out = []
        datasets = self.knowledge.datasets
        for nb in nearest:
            order, score = self._order(nb)
            out.append(Ranking(order, score, tuple(datasets[i] for i in nb)))
        return out

    def rank(self, query) -> Ranking:
        return self.rank_many([query])[0]


def _first_picks(log_values, nearest, valid):
    """The configuration with the best mean of ``log_values`` over each row's valid
    neighbours (ties to the first; none valid: the best mean over all rows)."""
    counts = valid.sum(axis=1)
    sums = (log_values[nearest] * valid[:, :, None]).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = sums / counts[:, None]
    mean = np.where(counts[:, None] > 0, mean, log_values.mean(axis=0))
    return np.argmax(mean, axis=1)


class CostLandmarking(_Neighbours):
    """The k most similar training datasets by their landmarkers' cost-sensitive success.

    Cheap landmarkers (naive Bayes, a decision stump, 1-NN, logistic regression) are
    cross-validated with a few folds; their success under the condition -- for a
    hardness measure, one minus their mean instance hardness, and the mean hardness of
    each class -- describes the dataset. Their runtime counts in every time curve.

    Parameters
    ----------
    k : int, default=5

    References
    ----------
    B. Pfahringer, H. Bensusan and C. Giraud-Carrier, "Meta-learning by landmarking
    various learning algorithms", ICML 2000; Melo & Prudêncio (2014), cost-sensitive
    measures of algorithm similarity for meta-learning; Prudêncio (2019), instance
    hardness under threshold choice methods.
    """

    name = "cost-landmarking"
    uses = "landmarks"

    def _features(self, train, query):
        if train.landmarks is None:
            raise ValueError(f"{self.name} needs landmark features of every dataset "
                             "(describe the store first: `metaeval describe --store ...`).")
        if query.landmarks is None:
            raise ValueError(f"{self.name} could not describe the new dataset (every "
                             "landmarker failed on it); use another strategy, e.g. "
                             "average-ranking.")
        return train.landmarks, query.landmarks
