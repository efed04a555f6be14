"""Recommendation strategies: the order in which to try algorithms on a new dataset.

Strategies follow the split of scikit-learn's estimators: :meth:`Strategy.fit` learns
from the past datasets of a :class:`KnowledgeBase` under an operating :class:`Condition`
and returns a :class:`Fitted` selector, whose :meth:`Fitted.rank` orders the
configurations for one new dataset from its :class:`Query` (what describes it before any
test). Static strategies return a whole order at once; interactive ones (active testing,
collaborative filtering) ask for one test result at a time (:meth:`Fitted.run`), on the
same fitted model. ``strategy.rank(train, query, condition)`` is
``strategy.fit(train, condition).rank(query)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from metaeval.ranking import average_ranks
from metaeval.ranking._methods import _average_rank_order
from metaeval.recommend._condition import Condition


@dataclass(frozen=True, eq=False)
class Ranking:
    """A strategy's order of algorithms.

    Attributes
    ----------
    order : ndarray of int
        Indices into the knowledge base's algorithms, first to test first.
    score : ndarray of float
        The strategy's score of each algorithm in ``order`` (its meaning depends on the
        strategy: an average rank, an A3R value, a mean success, ...).
    drivers : tuple of str
        The past datasets the order was built from.
    """

    order: np.ndarray
    score: np.ndarray
    drivers: tuple


class Strategy:
    """Base class: a named recommendation strategy.

    Attributes
    ----------
    name : str
        Its name (``"average-ranking"``, ...).
    uses : {None, "metafeatures", "landmarks"} or tuple of them
        What it needs to know about the new dataset; the time spent computing it counts
        in every time curve.
    interactive : bool
        Whether it needs test results as it goes (:meth:`Fitted.run`).
    needs_truth : bool
        Only the oracle: it is given every result of the new dataset.
    """

    name: ClassVar[str] = ""
    uses: ClassVar[str | tuple | None] = None
    interactive: ClassVar[bool] = False
    needs_truth: ClassVar[bool] = False

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def overhead(self, query) -> float:
        """Seconds spent describing the new dataset before the first test (every
        description in :attr:`uses`)."""
        uses = (self.uses,) if isinstance(self.uses, str) else tuple(self.uses or ())
        seconds = {"metafeatures": query.metafeature_time, "landmarks": query.landmark_time}
        return float(sum(seconds[u] for u in uses))

    def fit(self, knowledge, condition=None, *, seed=0) -> Fitted:
        """Learn from the past datasets of ``knowledge`` under ``condition``, once.

        Parameters
        ----------
        knowledge : KnowledgeBase
            The training datasets.
        condition : Condition, optional
            Default: the knowledge base's own (accuracy with P = 0 when it has none).
        seed : int or None, default=0
            Seed of any randomness (forests, random orders); None: the strategy's own.

        Returns
        -------
        Fitted
            Its :meth:`Fitted.rank` orders the configurations for each new dataset.
        """
        if condition is None:
            condition = getattr(knowledge, "condition", None) or Condition()
        if not isinstance(condition, Condition):
            raise ValueError(f"condition must be a Condition, got {condition!r}.")
        return self._fit(knowledge, condition, 0 if seed is None else int(seed))

    def _fit(self, knowledge, condition, seed) -> Fitted:
        """A subclass implements this; one that implements only the per-query
        :meth:`rank` (and :meth:`run`) is fitted as a wrapper that calls them."""
        if type(self).rank is Strategy.rank and type(self).run is Strategy.run:
            raise NotImplementedError(f"{type(self).__name__} implements neither _fit nor "
                                      "rank.")
        return _PerQuery(self, knowledge, condition, seed)

    def rank(self, train, query, condition, *, seed=0) -> Ranking:
        """The order to test the algorithms in, from the training datasets only:
        ``self.fit(train, condition, seed=seed).rank(query)``."""
        return self.fit(train, condition, seed=seed).rank(query)

    def run(self, train, query, condition, test) -> None:
        """Test algorithms one at a time through ``test(j) -> (success, time)``:
        ``self.fit(train, condition, seed=None).run(query, test)``."""
        self.fit(train, condition, seed=None).run(query, test)


class Fitted:
    """A strategy fitted on a knowledge base: orders the configurations of new datasets.

    Made by :meth:`Strategy.fit`; one fit serves every new dataset (every held-out
    dataset of an evaluation fold).

    Attributes
    ----------
    strategy : Strategy
    knowledge : KnowledgeBase
        The training datasets it was fitted on.
    condition : Condition
    seed : int
    selection_ : dict
        What was chosen on the training data (hyperparameters, the strategy ``auto``
        chose, ...); empty when nothing was.
    """

    def __init__(self, strategy, knowledge, condition, seed=0):
        self.strategy = strategy
        self.knowledge = knowledge
        self.condition = condition
        self.seed = seed
        self.selection_ = {}

    def __repr__(self) -> str:
        return (f"Fitted({self.strategy!r}, {len(self.knowledge.datasets)} datasets, "
                f"{self.condition.label!r})")

    @property
    def name(self) -> str:
        return self.strategy.name

    @property
    def interactive(self) -> bool:
        return self.strategy.interactive

    @property
    def uses(self):
        """What it needs to know about a new dataset (:attr:`Strategy.uses`)."""
        return self.strategy.uses

    def overhead(self, query) -> float:
        """Seconds spent describing the new dataset (:meth:`Strategy.overhead`)."""
        return self.strategy.overhead(query)

    def rank(self, query) -> Ranking:  # pragma: no cover
        """The order to test the configurations in on the new dataset ``query``."""
        raise NotImplementedError

    def rank_many(self, queries) -> list:
        """:meth:`rank` of each query (learners predict them together)."""
        return [self.rank(q) for q in queries]

    def ranked(self, queries) -> list:
        """:meth:`rank_many` of ``queries``, computed once for the same list: an
        evaluation's fold ranks its held-out datasets with each strategy, and then
        ``auto``'s vote with the same fitted strategies (orders depend on the fitted
        strategy and the queries only)."""
        memo = self.__dict__.get("_ranked_memo")
        # the same query objects in the same order (a copy of the list is kept: a list
        # changed in place, or a new one, is ranked anew)
        if memo is not None and len(memo[0]) == len(queries) and all(
                a is b for a, b in zip(memo[0], queries, strict=True)):
            return list(memo[1])
        out = self.rank_many(queries)
        self._ranked_memo = (list(queries), list(out))
        return out

    def run(self, query, test) -> None:
        """Test configurations one at a time through ``test(j) -> (success, time)``.

        The default tests the whole of :meth:`rank`'s order.
        """
        for j in self.rank(query).order:
            test(int(j))


class _PerQuery(Fitted):
    """A strategy that only implements the per-query ``rank(train, query, condition)``
    (and ``run``): each new dataset is ranked by a call of its own."""

    def rank(self, query) -> Ranking:
        return self.strategy.rank(self.knowledge, query, self.condition, seed=self.seed)

    def run(self, query, test) -> None:
        if type(self.strategy).run is not Strategy.run:
            self.strategy.run(self.knowledge, query, self.condition, test)
        else:
            super().run(query, test)


class _Static(Fitted):
    """A fitted strategy whose order is the same for every new dataset."""

    def __init__(self, strategy, knowledge, condition, seed, ranking):
        super().__init__(strategy, knowledge, condition, seed)
        self._ranking = ranking

    def rank(self, query) -> Ranking:
        r = self._ranking
        return Ranking(r.order.copy(), r.score.copy(), r.drivers)


def _a3r_order(train, condition):
    """Average ranking of the per-dataset A3R values (Abdulrahman et al. 2018)."""
    values = condition.a3r_values(train.success, train.times)
    # the matrix as it is (the strategies' evaluation ranks it hundreds of times); the
    # long frame of average_ranks where it checks what the matrix cannot
    got = _average_rank_order(values, train.datasets, train.algorithms)
    if got is not None:
        return got[0].astype(np.int64), got[1]
    frame = average_ranks(train.long(values))
    index = {a: j for j, a in enumerate(train.algorithms)}
    return (np.array([index[a] for a in frame["algorithm"]], dtype=np.int64),
            frame["score"].to_numpy(dtype=np.float64))


class AverageRanking(Strategy):
    """One order for every new dataset: mean rank of A3R over the training datasets.

    On each training dataset the algorithms are ranked by A3R under the condition
    (success over time to the power P, Abdulrahman & Brazdil 2014, eq. 2); the order is
    the mean rank, best first (:func:`metaeval.ranking.average_ranks`).

    References
    ----------
    S. M. Abdulrahman, P. Brazdil, J. N. van Rijn and J. Vanschoren, "Speeding up
    algorithm selection using average ranking and active testing by introducing
    runtime", Machine Learning 107:79-108 (2018).

    Examples
    --------
    >>> from metaeval.recommend import Condition, KnowledgeBase, Query
    >>> kb = KnowledgeBase(["d1", "d2"], ["A", "B"], [[.9, .8], [.9, .8]], [[100, 1]] * 2)
    >>> [kb.algorithms[j] for j in AverageRanking().rank(kb, Query("new", 10),
    ...                                                  Condition(time_weight=1)).order]
    ['B', 'A']
    """

    name = "average-ranking"

    def _fit(self, knowledge, condition, seed) -> Fitted:
        order, score = _a3r_order(knowledge, condition)
        return _Static(self, knowledge, condition, seed,
                       Ranking(order, score, knowledge.datasets))


#: expected gains within this fraction of each other are equal: ``A3R_k / A3R_best - 1``
#: summed in another order (or through logarithms) differs in the last bits, which must
#: not decide between algorithms whose gains are equal (ties go to the average ranking)
_GAIN_TIE = 1e-9


def _first_of_max(values) -> int:
    """Index of the first value within :data:`_GAIN_TIE` (relative) of the largest."""
    top = values.max()
    return int(np.argmax(values >= top - _GAIN_TIE * abs(top)))


def _by_gain(gain) -> np.ndarray:
    """Positions of ``gain`` by decreasing gain; gains within :data:`_GAIN_TIE` of the
    largest left are equal, in their given order (the average ranking's)."""
    left = np.arange(gain.size)
    out = []
    while left.size:
        pick = _first_of_max(gain[left])
        out.append(left[pick])
        left = np.delete(left, pick)
    return np.array(out, dtype=np.int64)


class ActiveTesting(Strategy):
    r"""Test one algorithm at a time: next, the one most likely to beat the current best.

    Start with the top of the A3R average ranking. Then, with :math:`a_{best}` the best
    algorithm tested so far (by A3R on the new dataset), test the candidate maximising

    .. math::

        \Delta P(a_k, a_{best}) = \sum_{d} w_d \,
            \max\!\left(0, A3R^{d}_{a_k a_{best}} - 1\right),

    the expected A3R gain over the training datasets :math:`d`, weighted by their
    similarity to the new dataset: :math:`w_d` is the fraction of pairs of algorithms
    tested so far whose A3R order on :math:`d` agrees with the order observed on the new
    dataset (relative landmarks; all weights equal before two tests).

    References
    ----------
    R. Leite, P. Brazdil and J. Vanschoren, "Selecting classification algorithms with
    active testing", MLDM 2012; S. M. Abdulrahman, P. Brazdil, J. N. van Rijn and
    J. Vanschoren, Machine Learning 107:79-108 (2018) (active testing with A3R).
    """

    name = "active-testing"
    interactive = True

    def _fit(self, knowledge, condition, seed) -> Fitted:
        return _FittedActiveTesting(self, knowledge, condition, seed)


class _FittedActiveTesting(Fitted):
    def __init__(self, strategy, knowledge, condition, seed):
        super().__init__(strategy, knowledge, condition, seed)
        self._ar_order, _ = _a3r_order(knowledge, condition)
        self._v = np.log(condition.a3r_values(knowledge.success, knowledge.times))  # (D, A)

    def rank(self, query) -> Ranking:
        """Without test results: the first pick, then the candidates by expected gain."""
        order, v = self._ar_order, self._v
        first = order[0]
        rest = order[1:]
        gain = np.maximum(np.exp(v[:, rest] - v[:, [first]]) - 1.0, 0.0).sum(axis=0)
        by_gain = _by_gain(gain)
        full = np.concatenate([[first], rest[by_gain]])
        score = np.concatenate([[np.nan], gain[by_gain]])
        return Ranking(full, score, self.knowledge.datasets)

    def run(self, query, test) -> None:
        condition, ar_order, v = self.condition, self._ar_order, self._v
        n_datasets, n_algorithms = v.shape
        untested = np.ones(n_algorithms, dtype=bool)
        observed = np.full(n_algorithms, np.nan)
        tested = []
        agree = np.zeros(n_datasets)
        pairs = 0
        best = None

        def do(j):
            nonlocal pairs, best
            s, t = test(int(j))
            untested[j] = False
            observed[j] = np.log(condition.a3r_values(s, t))
            if tested:
                prev = np.array(tested)
                on_new = np.sign(observed[j] - observed[prev])
                on_past = np.sign(v[:, [j]] - v[:, prev])
                agree[:] += (on_past == on_new).sum(axis=1)
                pairs += prev.size
            tested.append(int(j))
            if best is None or observed[j] > observed[best]:
                best = int(j)

        do(ar_order[0])
        while untested.any():
            candidates = ar_order[untested[ar_order]]
            w = agree / pairs if pairs else np.ones(n_datasets)
            if not w.sum() > 0:
                w = np.ones(n_datasets)
            gain = np.maximum(np.exp(v[:, candidates] - v[:, [best]]) - 1.0, 0.0)
            expected = w @ gain
            do(candidates[_first_of_max(expected)] if expected.max() > 0 else candidates[0])


class SingleBest(Strategy):
    """Baseline: the algorithms by mean success over the training datasets (time ignored).

    References
    ----------
    The single best solver of algorithm selection benchmarks (e.g. Bischl et al.,
    "ASlib: a benchmark library for algorithm selection", AIJ 237, 2016).
    """

    name = "single-best"

    def _fit(self, knowledge, condition, seed) -> Fitted:
        mean = knowledge.success.mean(axis=0)
        order = np.argsort(-mean, kind="stable")
        return _Static(self, knowledge, condition, seed,
                       Ranking(order, mean[order], knowledge.datasets))


class SingleBestA3R(Strategy):
    r"""Baseline: the time-aware single best, the algorithms by the mean over the training
    datasets of log A3R at the condition's P, :math:`\log SR - P \log T` (at P = 0 the
    mean log success).

    References
    ----------
    A3R: Abdulrahman, Brazdil, van Rijn & Vanschoren (2018), Machine Learning 107:79-108.
    """

    name = "single-best-a3r"

    def _fit(self, knowledge, condition, seed) -> Fitted:
        mean = np.log(condition.a3r_values(knowledge.success, knowledge.times)).mean(axis=0)
        order = np.argsort(-mean, kind="stable")
        return _Static(self, knowledge, condition, seed,
                       Ranking(order, mean[order], knowledge.datasets))


class FastFirst(Strategy):
    """Baseline: first the best (by mean success) of the fast algorithms, those whose
    median share of the pool's time over the training datasets is at most ``share``;
    then every other algorithm in the single best's order.

    Parameters
    ----------
    share : float in (0, 1], default=0.01
    """

    name = "fast-first"

    def __init__(self, share=0.01):
        share = float(share)
        if not 0 < share <= 1:
            raise ValueError(f"share must be in (0, 1], got {share!r}.")
        self.share = share

    def _fit(self, knowledge, condition, seed) -> Fitted:
        mean = knowledge.success.mean(axis=0)
        order = np.argsort(-mean, kind="stable")
        times = np.asarray(knowledge.times, dtype=np.float64)
        share = np.median(times / times.sum(axis=1, keepdims=True), axis=0)
        fast = order[share[order] <= self.share]
        if fast.size:
            order = np.concatenate([fast[:1], order[order != fast[0]]])
        return _Static(self, knowledge, condition, seed,
                       Ranking(order, mean[order], knowledge.datasets))


class Oracle(Strategy):
    """Baseline: the true order on the new dataset, best success first (faster on ties).

    It reads every result of the new dataset before testing anything: a bound, not a
    strategy one can use.

    References
    ----------
    The virtual best solver of algorithm selection benchmarks (Bischl et al. 2016).
    """

    name = "oracle"
    needs_truth = True

    def rank_truth(self, success, times) -> Ranking:
        """The order from the new dataset's true results."""
        success = np.asarray(success, dtype=np.float64)
        order = np.lexsort((np.asarray(times, dtype=np.float64), -success))
        return Ranking(order, success[order], ())

    def _fit(self, knowledge, condition, seed) -> Fitted:
        return _FittedOracle(self, knowledge, condition, seed)


class _FittedOracle(Fitted):
    def rank(self, query) -> Ranking:
        raise ValueError("the oracle needs the new dataset's true results; it can only be "
                         "evaluated, not asked for a recommendation.")


class RandomOrder(Strategy):
    """Baseline: a uniformly random order (evaluated as the mean of many seeded orders).

    Parameters
    ----------
    repeats : int, default=100
        Seeded orders averaged by the evaluation.

    References
    ----------
    The random baseline of Abdulrahman et al. (2018), Machine Learning 107:79-108.
    """

    name = "random"

    def __init__(self, repeats=100):
        if isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)) or repeats < 1:
            raise ValueError(f"repeats must be a positive integer, got {repeats!r}.")
        self.repeats = int(repeats)

    def _fit(self, knowledge, condition, seed) -> Fitted:
        return _FittedRandom(self, knowledge, condition, seed)


class _FittedRandom(Fitted):
    def rank(self, query) -> Ranking:
        n = len(self.knowledge.algorithms)
        order = np.random.default_rng([self.seed, n]).permutation(n)
        return Ranking(order, np.full(order.size, np.nan), ())

