"""Meta-learners that can beat the single best: shared machinery and the zero-shot portfolio.

Every learner here is conditioned on the operating condition and its time weight P: what
it learns to predict for each past dataset is the dataset's A3R values under the
condition, :math:`SR / T^P` (Abdulrahman & Brazdil 2014), so that P = 0 is plain success.
Each hyperparameter (forest size, number of candidates, rank, neighbours, which
descriptions to use) is chosen by an inner leave-one-family-out over the *training*
datasets only, by the mean loss of the first pick (the success of the best configuration
minus that of the first pick). Meta-features are imputed with their median over the
training datasets, and features constant on the training datasets are left out.
"""

from __future__ import annotations

import functools

import numpy as np
from threadpoolctl import ThreadpoolController

from metaeval.recommend.learners._strategies import Fitted, Ranking, Strategy, _a3r_order, _Static

#: What a learner may describe a new dataset with, in the order they are concatenated.
FEATURE_SOURCES = ("metafeatures", "landmarks")


def uses_of(strategy) -> tuple:
    """What a strategy (or a fitted one) needs about the new dataset, as a tuple (empty
    for none)."""
    uses = strategy.uses
    if uses is None:
        return ()
    return (uses,) if isinstance(uses, str) else tuple(uses)


_CONTROLLER = []


def _controller() -> ThreadpoolController:
    """One ``ThreadpoolController`` for the process, made at first use: making one
    inspects every loaded library (5 ms), limiting through it does not (0.04 ms). The
    BLAS it limits is NumPy's, loaded with NumPy, before any learner runs."""
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0]


def one_blas_thread(method):
    """Run ``method`` with one BLAS thread: the learners' matrices are small, and a
    threaded BLAS on a loaded machine can take a hundred times longer for them."""

    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        with _controller().limit(limits=1, user_api="blas"):
            return method(*args, **kwargs)

    return wrapper


def _check_features(features, name):
    if isinstance(features, str):
        features = (features,)
    features = tuple(features)
    if not features or any(f not in FEATURE_SOURCES for f in features) or (
            len(set(features)) != len(features)):
        raise ValueError(f"features of {name} must be a non-empty subset of "
                         f"{FEATURE_SOURCES}, got {features!r}.")
    return tuple(f for f in FEATURE_SOURCES if f in features)


def _positive_int(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}.")
    return int(value)


def _grid(values, name):
    values = tuple(values)
    if not values:
        raise ValueError(f"{name} must list at least one value.")
    return tuple(_positive_int(v, name) for v in values)


def _blend(values):
    values = tuple(float(v) for v in values)
    if not values or not all(0.0 <= v <= 1.0 for v in values):
        raise ValueError(f"blend must list weights in [0, 1], got {values!r}.")
    return values


class Learner(Strategy):
    """Base class of the meta-learners: what they describe a dataset with, and checks.

    Parameters
    ----------
    features : tuple of {"metafeatures", "landmarks"}
        The descriptions of a dataset the learner reads; the time spent computing each
        counts in every time curve (:meth:`overhead`).

    Attributes
    ----------
    selection_ : dict
        Set by the last :meth:`fit` (and so :meth:`rank`), as the fitted selector's
        ``selection_``: ``params`` (the hyperparameters chosen),
        ``inner_loss`` (mean inner loss@1 of each candidate setting), ``inner``
        (for each inner held-out family, the training datasets its predictor saw) and,
        for the forests and ``knn-metafeatures``, ``nested`` (how many families' inner
        orders used each setting, chosen without the family: what ``auto`` judges).
    """

    def __init__(self, features=FEATURE_SOURCES):
        self.features = _check_features(features, self.name)
        self.selection_ = {}

    @property
    def uses(self):
        return self.features

    def fit(self, knowledge, condition=None, *, seed=0):
        fitted = super().fit(knowledge, condition, seed=seed)
        self.selection_ = fitted.selection_
        return fitted


def design_matrix(train, query, features, name):
    """Training meta-features and the new dataset's, ready for a learner.

    The descriptions named in ``features`` are concatenated; infinite values count as
    missing; features missing on every training dataset or constant on the training
    datasets are left out; the remaining missing values (training and new) are replaced
    by the training median (:class:`Design` does the same in two steps).

    Returns
    -------
    X : ndarray of shape (n_train, n_features)
    x : ndarray of shape (n_features,)
    columns : list of str

    Raises
    ------
    ValueError
        When the training datasets or the new one lack a description in ``features``.
    """
    design = Design(train, features, name)
    return design.X, design.point(query), design.columns


class Design:
    """The training datasets' design matrix, and where a new dataset lies in it.

    Fitted once on the training datasets (``X``, the columns kept and the training
    medians); :meth:`point` places each new dataset in the same columns.

    Parameters
    ----------
    train : KnowledgeBase
    features : tuple of {"metafeatures", "landmarks"}
    name : str
        The learner's name, for error messages.
    """

    def __init__(self, train, features, name):
        tables = []
        for source in features:
            table = getattr(train, source)
            if table is None:
                raise ValueError(f"{name} needs {source} of every training dataset, and the "
                                 "knowledge base has none (describe the datasets first).")
            tables.append(table)
        self.features, self.name = tuple(features), name
        self._sources = [t.columns for t in tables]
        X = np.concatenate([t.to_numpy(dtype=np.float64) for t in tables], axis=1)
        columns = [f"{s}:{c}" for s, t in zip(features, tables, strict=True) for c in t.columns]
        X = np.where(np.isfinite(X), X, np.nan)
        self._known = known = ~np.all(np.isnan(X), axis=0)
        X = X[:, known]
        columns = [c for c, k in zip(columns, known, strict=True) if k]
        self._median = median = np.nanmedian(X, axis=0)
        X = np.where(np.isnan(X), median, X)
        self._varies = varies = X.max(axis=0) > X.min(axis=0)
        if not varies.any():  # nothing tells the datasets apart: one constant column
            self.X, self.columns = np.zeros((X.shape[0], 1)), ["constant"]
        else:
            self.X = X[:, varies]
            self.columns = [c for c, v in zip(columns, varies, strict=True) if v]

    def point(self, query) -> np.ndarray:
        """The new dataset's row of the design matrix, shape (n_features,).

        Raises
        ------
        ValueError
            When the new dataset lacks a description the learner reads.
        """
        points = []
        for source, columns in zip(self.features, self._sources, strict=True):
            point = getattr(query, source)
            if point is None:
                raise ValueError(f"{self.name} needs the {source} of the new dataset "
                                 f"{query.name!r}, and it has none (describe it first).")
            points.append(point.reindex(columns).to_numpy(dtype=np.float64))
        x = np.concatenate(points)
        x = np.where(np.isfinite(x), x, np.nan)[self._known]
        x = np.where(np.isnan(x), self._median, x)
        if not self._varies.any():
            return np.zeros(1)
        return x[self._varies]


def a3r_target(train, condition):
    """The log A3R values of the training datasets, shape (D, A) (log success at P = 0)."""
    return np.log(condition.a3r_values(train.success, train.times))


def family_codes(train):
    """Integer family of each training dataset, and the number of families."""
    _, codes = np.unique(np.array(train.families, dtype=object), return_inverse=True)
    return codes.astype(np.int64), int(codes.max()) + 1


def first_pick_loss(success, picks):
    """Loss@1 of each dataset: its best success minus the success of its pick."""
    rows = np.arange(success.shape[0])
    return success.max(axis=1) - success[rows, np.asarray(picks, dtype=np.int64)]


def family_bags(codes, n_families, n_bags, rng, size=None):
    """Bootstrap samples of whole families (pseudo-replication by family respected).

    Each bag draws ``size`` families with replacement (default: as many as there are;
    fewer make smaller, faster trees and leave more families out of each bag).

    Returns
    -------
    weights : ndarray of shape (n_bags, n_datasets)
        How many times each dataset's family was drawn in each bag.
    in_bag : ndarray of bool, shape (n_bags, n_families)
    """
    size = n_families if size is None else int(size)
    draws = rng.integers(0, n_families, size=(n_bags, size))
    counts = np.zeros((n_bags, n_families))
    np.add.at(counts, (np.repeat(np.arange(n_bags), size), draws.reshape(-1)), 1.0)
    return counts[:, codes], counts > 0


def select(scores):
    """The key of the lowest score; ties go to the first key (grids list simple first)."""
    keys = list(scores)
    values = np.array([scores[k] for k in keys])
    return keys[int(np.flatnonzero(values <= values.min() + 1e-12)[0])]


def select_one_se(losses, codes, n_families):
    """The one-standard-error rule: the first (simplest) key whose mean loss over
    families is within one standard error of the lowest.

    ``losses`` maps each setting, simplest first, to its per-dataset inner loss; values
    are averaged within families (related datasets count once), and the standard error
    is that of the paired differences over families between a setting and the best one
    (Hastie, Tibshirani & Friedman 2009, sec. 7.10).

    Returns
    -------
    key, means (dict of mean loss over families), se (dict)
    """
    keys = list(losses)
    values = _family_values(losses, codes, n_families)
    chosen, mean, se = _one_se(values)
    return (keys[chosen], dict(zip(keys, map(float, mean), strict=True)),
            dict(zip(keys, map(float, se), strict=True)))


def one_se_without_each(losses, codes, n_families) -> np.ndarray:
    """For each family, the setting the one-standard-error rule chooses without it.

    The nested choice behind a family's inner order: :func:`select_one_se` applied to
    the other families' values (a family's inner order is then judged with
    hyperparameters chosen without it, so that the choice does not flatter the
    learner). Returns the index into ``losses``' keys of each family's setting, shape
    (n_families,); all 0 with a single setting.
    """
    keys = list(losses)
    if len(keys) == 1 or n_families < 2:
        return np.zeros(n_families, dtype=np.int64)
    values = _family_values(losses, codes, n_families)
    return np.array([_one_se(np.delete(values, f, axis=1))[0] for f in range(n_families)],
                    dtype=np.int64)


def nested_record(settings, nested, codes) -> dict:
    """How many families' inner orders used each setting (``nested``: each dataset's
    index into ``settings``, chosen without its family), for ``selection_``."""
    first = np.unique(codes, return_index=True)[1]  # one dataset per family
    counts = np.bincount(np.asarray(nested)[first], minlength=len(settings))
    return {settings[j]: int(c) for j, c in enumerate(counts) if c}


def _family_values(losses, codes, n_families):
    """Each setting's per-dataset losses averaged within families, (settings, families)."""
    counts = np.bincount(codes, minlength=n_families)
    return np.array([np.bincount(codes, weights=losses[k], minlength=n_families) / counts
                     for k in losses])


def _one_se(values):
    """The one-SE rule on (settings, families) values: (chosen index, means, SEs)."""
    mean = values.mean(axis=1)
    best = int(np.argmin(mean))
    diff = values - values[best]
    n = values.shape[1]
    se = diff.std(axis=1, ddof=1) / np.sqrt(n) if n > 1 else np.zeros(values.shape[0])
    chosen = next(i for i in range(values.shape[0])
                  if mean[i] - mean[best] <= se[i] + 1e-15)
    return chosen, mean, se


def greedy_portfolio_order(loss, head=()):
    r"""Greedy order of configurations minimising the mean loss of the best so far.

    Step :math:`k` adds the configuration :math:`a` minimising

    .. math:: \frac{1}{|D|} \sum_{d \in D} \min_{b \in S_{k-1} \cup \{a\}} L_{d b},

    ties to the earlier column. It stops when no configuration reduces the loss any more
    (the rest of the order is left to the caller).

    Parameters
    ----------
    loss : ndarray of shape (D, A), non-negative
    head : sequence of int, optional
        Configurations already chosen, in order: the portfolio starts with them (the
        first pick of a selector, as SUNNY's portfolio of the neighbours' best
        configurations follows it; Amadini, Gabbrielli & Mauro 2014).

    Returns
    -------
    order : ndarray of int
        The portfolio, at most A configurations (``head`` first).

    Examples
    --------
    >>> loss = np.array([[0.0, 0.3, 0.1], [0.4, 0.0, 0.2], [0.5, 0.0, 0.1]])
    >>> greedy_portfolio_order(loss).tolist()
    [1, 0]
    >>> greedy_portfolio_order(loss, head=[2]).tolist()
    [2, 1, 0]
    """
    loss = np.asarray(loss, dtype=np.float64)
    n_datasets, n_configs = loss.shape
    head = [int(j) for j in head]
    if not n_datasets:  # no loss to lower: the head alone
        return np.array(head, dtype=np.int64)
    best = loss[:, head].min(axis=1) if head else np.full(n_datasets, np.inf)
    taken = np.zeros(n_configs, dtype=bool)
    taken[head] = True
    order = list(head)
    current = _portfolio_mean(best) if head else np.inf
    work = np.empty_like(loss)
    value = np.empty(n_configs)
    while len(order) < n_configs:
        pick = greedy_step(loss, best, taken, current, work, value)
        if pick < 0:
            break
        order.append(pick)
        taken[pick] = True
        best = np.minimum(best, loss[:, pick])
        current = _portfolio_mean(best)
    return np.array(order, dtype=np.int64)


def _portfolio_mean(best) -> float:
    """The mean loss of a portfolio's best so far, as :func:`greedy_portfolio_order`
    computes it (the sum's reduction, then one division)."""
    return float(np.add.reduce(best) / best.shape[0])


def greedy_step(loss, best, taken, current, work, value) -> int:
    """One step of :func:`greedy_portfolio_order`: the configuration it adds to the
    portfolio whose per-dataset best loss is ``best`` and mean loss ``current``
    (``taken``: the configurations in it), or -1 where it stops. ``work`` (the shape of
    ``loss``) and ``value`` (one per configuration) are scratch arrays."""
    # every column at once (a taken one cannot lower the loss: it is masked), the
    # same column means as over the remaining columns alone, without gathering them;
    # means as np.mean computes them, without its per-call checks (this runs thousands
    # of times in an evaluation)
    np.divide(np.add.reduce(np.minimum(best[:, None], loss, out=work), axis=0),
              loss.shape[0], out=value)
    value[taken] = np.inf
    pick = int(value.argmin())
    return pick if value[pick] < current - 1e-15 else -1


def portfolio_loss(train, condition):
    """Per-dataset loss of each configuration in A3R terms: max A3R minus its A3R.

    At P = 0 it is the loss the evaluation measures (best success minus success).
    """
    v = condition.a3r_values(train.success, train.times)
    return v.max(axis=1, keepdims=True) - v


def complete_order(head, train, condition):
    """``head`` followed by every other configuration in A3R average-ranking order."""
    head = np.asarray(head, dtype=np.int64)
    order, _ = _a3r_order(train, condition)
    rest = order[~np.isin(order, head)]
    return np.concatenate([head, rest])


class ZeroShotPortfolio(Strategy):
    r"""The greedy portfolio of the training datasets, tried in the order it was built.

    The first configuration is the one with the lowest mean loss over the training
    datasets; each next one is the one that most reduces the mean (over training
    datasets) loss of the best configuration so far,

    .. math:: a_k = \arg\min_a \frac{1}{|D|} \sum_{d \in D}
              \min_{b \in \{a_1, \dots, a_{k-1}, a\}} L_{d b},

    with :math:`L_{d b}` the A3R loss of :math:`b` on :math:`d` under the condition (at
    P = 0, the best success minus :math:`b`'s). Once the portfolio has no loss left on
    any training dataset, the other configurations follow in A3R average-ranking order.
    The same fixed order is used for every new dataset (zero-shot: nothing about the new
    dataset is read), and it has no hyperparameter. This is the greedy submodular
    portfolio of the benchmark analytics (:func:`metaeval.benchmark.greedy_portfolio`),
    on loss instead of value captured.

    References
    ----------
    D. Salinas and N. Erickson, "TabRepo: a large scale repository of tabular model
    evaluations and its AutoML applications", arXiv:2311.02971 (2023); G. L. Nemhauser,
    L. A. Wolsey and M. L. Fisher, "An analysis of approximations for maximizing
    submodular set functions", Mathematical Programming 14 (1978).

    Examples
    --------
    A is best on d1, B on d2 and d3, C never; B has the lowest mean loss, then A
    removes what is left:

    >>> from metaeval.recommend import Condition, KnowledgeBase, Query
    >>> kb = KnowledgeBase(["d1", "d2", "d3"], ["A", "B", "C"],
    ...                    [[.9, .6, .7], [.6, .9, .8], [.7, .9, .8]], [[1, 1, 1]] * 3)
    >>> ranked = ZeroShotPortfolio().rank(kb, Query("new", 10), Condition())
    >>> [kb.algorithms[j] for j in ranked.order], ranked.score.round(3).tolist()
    (['B', 'A', 'C'], [0.1, 0.0, 0.0])
    """

    name = "zero-shot-portfolio"

    def _fit(self, knowledge, condition, seed) -> Fitted:
        loss = portfolio_loss(knowledge, condition)
        head = greedy_portfolio_order(loss)
        order = complete_order(head, knowledge, condition)
        best = np.minimum.accumulate(loss[:, order], axis=1).mean(axis=0)
        return _Static(self, knowledge, condition, seed,
                       Ranking(order, best, knowledge.datasets))
