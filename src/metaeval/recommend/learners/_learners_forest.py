"""Forest meta-learners: pairwise cost-sensitive classification and per-configuration regression.

Both grow random forests whose trees are fitted on bootstrap samples of whole *families*
of training datasets. A tree that did not draw a family is a tree of a forest trained
without that family, so the trees out of bag for a family give its inner
leave-one-family-out prediction without any refit: one forest serves every inner fold of
the hyperparameter selection, and the forest finally used is the same one.
"""

from __future__ import annotations

import threading

import numpy as np
from sklearn.tree import DecisionTreeRegressor

from metaeval.recommend.learners._learners import (
    FEATURE_SOURCES,
    Design,
    Learner,
    _blend,
    _grid,
    _positive_int,
    a3r_target,
    family_bags,
    family_codes,
    first_pick_loss,
    greedy_portfolio_order,
    nested_record,
    one_blas_thread,
    one_se_without_each,
    portfolio_loss,
    select_one_se,
)
from metaeval.recommend.learners._strategies import Fitted, Ranking, _a3r_order
from metaeval.recommend.learners._trees import RegressionTreeBatch, TreeBatch

_MAX_SEED = 2**31 - 1


def _tree(seed, min_samples_leaf=1, min_samples_split=2):
    return DecisionTreeRegressor(max_features="sqrt", min_samples_leaf=min_samples_leaf,
                                 min_samples_split=min_samples_split, random_state=int(seed))


def _fitted(seed, X, y, w, min_samples_leaf=1, min_samples_split=2):
    """``_tree(seed, min_samples_leaf).fit(X, y, sample_weight=w)``, without the input
    checks that are half the time of the thousands of small trees a ranking grows.

    ``X`` is made C-ordered float32 and ``y``, ``w`` float64, what the checks would make
    of them: the tree is then the one the checked fit grows (tested). An ``X`` with
    missing values gets the checked fit (the design matrix is imputed: it has none). The
    parameters, fixed here, are valid.

    The tree draws its randomness from this thread's one ``RandomState``, seeded with
    ``seed``: the state ``RandomState(seed)`` starts in, so the same tree, without making
    a new generator per tree (92 us each, most of it gathering fresh entropy that the
    seed then overwrites: as long as growing one of these trees).
    """
    from sklearn import config_context

    X = np.ascontiguousarray(X, dtype=np.float32)
    if not np.isfinite(X).all():  # missing values: the checked fit, which handles them
        return _tree(seed, min_samples_leaf, min_samples_split).fit(X, y, sample_weight=w)
    tree = _tree(seed, min_samples_leaf, min_samples_split)
    tree.random_state = _seeded(int(seed))
    with config_context(skip_parameter_validation=True):
        tree.fit(X, np.asarray(y, dtype=np.float64),
                 sample_weight=np.asarray(w, dtype=np.float64), check_input=False)
    tree.random_state = int(seed)  # the fitted tree's parameters, as _tree(seed) gave
    return tree


_GENERATORS = threading.local()


def _seeded(seed: int) -> np.random.RandomState:
    """This thread's ``RandomState``, reseeded with ``seed``."""
    rs = getattr(_GENERATORS, "rs", None)
    if rs is None:
        rs = _GENERATORS.rs = np.random.RandomState()
    rs.seed(seed)
    return rs


def _prefix_means(values, mask, sizes):
    """Mean over the first ``t`` trees (for each ``t`` in ``sizes``) where ``mask`` holds.

    ``values``: (..., T, N); ``mask``: (T, N). Returns (len(sizes), ..., N), NaN where no
    tree of the prefix qualifies.

    The sums are ``np.cumsum(values * mask, axis=-2)`` at the sizes, the same additions
    in the same order (the first tree's term, then each next one added), a tree at a
    time: no temporaries of the size of ``values`` (the pairwise learner's are some
    160 MB a fold, whose fresh pages cost more system time than the sums).
    """
    mask = mask.astype(np.float64)
    count = np.cumsum(mask, axis=0)
    wanted = {int(t) - 1 for t in sizes}
    total, at = None, {}
    for b in range(max(wanted) + 1):
        term = values[..., b, :] * mask[b]
        total = term if total is None else np.add(total, term, out=total)
        if b in wanted:
            at[b] = total.copy()
    out = []
    for t in sizes:
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(at[t - 1] / count[t - 1])
    return np.stack(out)


#: Out-of-bag (tree, dataset) entries predicted at a time by :func:`_out_of_bag_means`.
_OOB_CHUNK = 1 << 22


def _out_of_bag_means(forest, X, oob, n_forests, sizes):
    """Each training row's mean prediction over the first ``t`` trees of each forest
    (``t`` in ``sizes``) that are out of bag for it (``oob``, (trees, rows), the same
    bags for every forest), (len(sizes), n_forests, rows): :func:`_prefix_means` of
    the predictions, only the trees out of bag read (the others count 0 there).

    A few forests at a time, about :data:`_OOB_CHUNK` entries: each forest's means are
    its own sums in the same order, so the numbers are those of all at once, without
    the (forests x trees x rows) array (670 MB for 231 pairwise forests on 3,600 rows).
    """
    n_trees, n_rows = oob.shape
    t_oob, p_oob = np.nonzero(oob)  # one forest's entries, tree by tree
    out = np.empty((len(sizes), n_forests, n_rows))
    step = max(1, _OOB_CHUNK // max(t_oob.size, 1))
    for a in range(0, n_forests, step):
        m = min(step, n_forests - a)
        local = (np.arange(m)[:, None] * n_trees + t_oob).ravel()
        point = np.tile(p_oob, m)
        prob = np.zeros((m * n_trees, n_rows))
        prob[local, point] = forest.predict_at(X, local + a * n_trees, point)
        out[:, a:a + m] = _prefix_means(prob.reshape(m, n_trees, n_rows), oob, sizes)
    return out


def _inner_record(train, codes, n_families, in_bag):
    """For each family: the training datasets seen by the trees out of bag for it."""
    in_bag = np.asarray(in_bag, dtype=bool)
    # seen[f, c]: some tree out of bag for family f has family c in its bag
    seen = ((~in_bag).T.astype(np.float32) @ in_bag.astype(np.float32)) > 0
    names = np.array(train.datasets, dtype=object)
    families = np.array(train.families, dtype=object)
    first = np.zeros(n_families, dtype=np.int64)
    present, at = np.unique(codes, return_index=True)  # each family's first dataset
    first[present] = at
    return [(str(families[first[f]]), tuple(names[seen[f][codes]].tolist()))
            for f in range(n_families)]


def _candidates(loss, k):
    """The first ``k`` configurations of the greedy portfolio, then by mean loss."""
    head = greedy_portfolio_order(loss)
    by_mean = np.argsort(loss.mean(axis=0), kind="stable")
    rest = by_mean[~np.isin(by_mean, head)]
    return np.concatenate([head, rest])[:k]


class PairwiseClassification(Learner):
    r"""Pairwise cost-sensitive classification on meta-features, votes summed.

    For each pair :math:`(a_j, a_k)` of candidate configurations a forest learns from the
    training datasets' descriptions whether :math:`a_j` beats :math:`a_k`, each training
    dataset :math:`d` weighted by how much the choice matters there,

    .. math:: w_d = \left| A3R^d_{a_j} - A3R^d_{a_k} \right|,
              \qquad A3R^d_a = SR^d_a / (T^d_a)^P,

    (the absolute success difference at P = 0); datasets where the two tie are left out.
    For a new dataset each forest votes for the winner it predicts; the candidates are
    ordered by votes summed over every pair (ties by the summed predicted probabilities,
    then the candidates' order), and the other configurations follow in A3R
    average-ranking order (SATzilla 2012's selector).

    The candidates are every configuration when there are at most 30, else the first
    ``candidates`` configurations of the greedy portfolio of the training datasets (each
    next one the configuration that most reduces the mean loss of the best so far), then
    by mean loss: every pair among them gets a forest (20 candidates: 190 forests). They
    are chosen once on all training datasets. Each forest has ``trees`` extremely
    randomised trees (:class:`~metaeval.recommend.learners._trees.TreeBatch`), each grown on a
    bootstrap sample of whole families of training datasets; the trees out of bag for a
    family give its inner leave-one-family-out prediction without a refit.

    Parameters
    ----------
    candidates : int or sequence of int, optional
        Number of candidates (default: all configurations up to 30, else 20). Several
        values are a grid, chosen by the inner loss of the first pick with the
        one-standard-error rule toward fewer candidates.
    trees : int or sequence of int, default=100
        Trees per forest; several values, a grid as above (toward fewer trees).
    features : tuple of {"metafeatures", "landmarks"}, default=both
    max_samples : int, optional
        Families drawn (with replacement) for each tree's bootstrap sample, at most as
        many as there are; default: as many as there are (Breiman 2001). Subsampling
        is faster and can cost much: on ASP-POTASSCO (about 1,165 training instances a
        fold, 55 pairs) 256 took a third of the CPU time and closed 0.667 of the gap
        against 0.612, but on MAXSAT12-PMS it closed 0.784 (512: 0.905) against 0.944.

    References
    ----------
    L. Xu, F. Hutter, H. H. Hoos and K. Leyton-Brown, "Evaluating component solver
    contributions to portfolio-based algorithm selectors", SAT 2012 (SATzilla 2012's
    pairwise cost-sensitive random forests); M. Lindauer, H. H. Hoos, F. Hutter and
    T. Schaub, "AutoFolio: an automatically configured algorithm selector", JAIR 53
    (2015); P. Geurts, D. Ernst and L. Wehenkel, "Extremely randomized trees", Machine
    Learning 63 (2006).
    """

    name = "pairwise"
    #: With at most this many configurations, every one is a candidate.
    ALL_UP_TO = 30
    #: Candidates when there are more configurations than :attr:`ALL_UP_TO`.
    DEFAULT_CANDIDATES = 20

    def __init__(self, candidates=None, trees=100, features=FEATURE_SOURCES,
                 max_samples=None):
        super().__init__(features)
        self.max_samples = None if max_samples is None else _positive_int(max_samples,
                                                                          "max_samples")
        if candidates is not None:
            candidates = (candidates,) if isinstance(candidates, (int, np.integer)) \
                else candidates
            candidates = tuple(sorted(set(_grid(candidates, "candidates"))))
        self.candidates = candidates
        trees = (trees,) if isinstance(trees, (int, np.integer)) else trees
        self.trees = tuple(sorted(set(_grid(trees, "trees"))))

    def __repr__(self) -> str:
        return (f"PairwiseClassification(candidates={self.candidates}, trees={self.trees}, "
                f"features={self.features}, max_samples={self.max_samples})")

    def _fit(self, knowledge, condition, seed) -> Fitted:
        return _FittedPairwise(self, knowledge, condition, seed)


class _FittedPairwise(Fitted):
    """The pairwise forests of the chosen candidates, fitted once."""

    @one_blas_thread
    def __init__(self, strategy, train, condition, seed):
        super().__init__(strategy, train, condition, seed)
        self._design = design = Design(train, strategy.features, strategy.name)
        X = design.X
        n_configs = len(train.algorithms)
        grid = strategy.candidates
        if grid is None:
            grid = (n_configs if n_configs <= strategy.ALL_UP_TO
                    else strategy.DEFAULT_CANDIDATES,)
        grid = tuple(min(K, n_configs) for K in grid)
        rng = np.random.default_rng(seed)
        codes, n_families = family_codes(train)
        value = condition.a3r_values(train.success, train.times)
        loss = portfolio_loss(train, condition)
        final = _candidates(loss, max(grid))
        pairs = [(int(j), int(k)) for a, j in enumerate(final) for k in final[a + 1:]]
        n_trees = max(strategy.trees)
        size = None if strategy.max_samples is None else min(n_families,
                                                              strategy.max_samples)
        weights, in_bag = family_bags(codes, n_families, n_trees, rng, size)
        n_pairs = len(pairs)
        first = np.array([j for j, _ in pairs], dtype=np.int64)
        second = np.array([k for _, k in pairs], dtype=np.int64)
        label = (value[:, first] > value[:, second]).T.astype(np.float64)  # (pairs, D)
        cost = np.abs(value[:, first] - value[:, second]).T
        # tree b of pair p: the pair's labels, its costs times bag b's weights
        self._forest = TreeBatch.forests(X, label, cost, weights, rng)
        oob = ~in_bag[:, codes]
        pair_index = {pair: p for p, pair in enumerate(pairs)}
        sizes = list(strategy.trees)
        inner_prob = _out_of_bag_means(self._forest, X, oob, n_pairs, sizes)
        losses, heads = {}, {}
        for K in sorted(set(grid)):  # simplest first: fewer candidates, then fewer trees
            for s, t in enumerate(sizes):
                p_all = np.nan_to_num(inner_prob[s], nan=0.5)
                heads[(K, t)] = head = _vote(final[:K], p_all, pair_index)[0]
                losses[(K, t)] = first_pick_loss(train.success, head[:, 0])
        (K, t), means, se = select_one_se(losses, codes, n_families)
        settings = list(losses)
        nested = one_se_without_each(losses, codes, n_families)[codes]
        ar_order, _ = _a3r_order(train, condition)
        #: each training dataset's order by the trees out of bag for its family, with the
        #: setting chosen without its family (the candidates and the rest's A3R order are
        #: those of all training datasets)
        self.inner_orders_ = np.array([
            np.concatenate([h, ar_order[~np.isin(ar_order, h)]])
            for h in (heads[settings[j]][i] for i, j in enumerate(nested))], dtype=np.int64)
        self._K, self._t, self._n_trees, self._ar_order = K, t, n_trees, ar_order
        self._final, self._pair_index, self._n_pairs = final, pair_index, n_pairs
        self.selection_ = {"params": {"candidates": K, "trees": t},
                           "inner_loss": means, "inner_se": se, "rule": "one-SE",
                           "inner": _inner_record(train, codes, n_families, in_bag[:t]),
                           "nested": nested_record(settings, nested, codes),
                           "pairs": n_pairs}

    @one_blas_thread
    def rank_many(self, queries) -> list:
        points = np.array([self._design.point(q) for q in queries])
        prob = self._forest.predict(points).reshape(self._n_pairs, self._n_trees, -1)
        heads, votes = _vote(self._final[:self._K], prob[:, :self._t].mean(axis=1),
                             self._pair_index)
        out = []
        ar = self._ar_order  # complete_order's rest, computed once at fit
        for head, vote in zip(heads, votes, strict=True):
            order = np.concatenate([head, ar[~np.isin(ar, head)]])
            score = np.concatenate([vote, np.full(order.size - head.size, np.nan)])
            out.append(Ranking(order, score, self.knowledge.datasets))
        return out

    def rank(self, query) -> Ranking:
        return self.rank_many([query])[0]


def _vote(cand, prob, pair_index):
    """Candidates of each column of ``prob`` ordered by votes, then summed probability.

    ``prob`` (n_pairs, N): probability that the pair's first configuration wins.
    Returns (order (N, K), votes (N, K)).
    """
    K = len(cand)
    n = prob.shape[1]
    votes = np.zeros((n, K))
    mass = np.zeros((n, K))
    for a in range(K):
        for b in range(a + 1, K):
            j, k = int(cand[a]), int(cand[b])
            if (j, k) in pair_index:
                pj = prob[pair_index[(j, k)]]
            else:
                pj = 1.0 - prob[pair_index[(k, j)]]
            votes[:, a] += pj > 0.5
            votes[:, b] += pj < 0.5
            mass[:, a] += pj
            mass[:, b] += 1.0 - pj
    position = np.broadcast_to(np.arange(K), (n, K))
    idx = np.lexsort((position, -mass, -votes), axis=-1)
    return np.asarray(cand)[idx], np.take_along_axis(votes, idx, axis=1)


class ConfigurationRegression(Learner):
    r"""One random forest per configuration, each predicting its success on a new dataset.

    For each configuration :math:`a` a forest of regression trees learns, from the
    training datasets' descriptions, the log A3R of :math:`a` under the condition,

    .. math:: y_{d a} = \log A3R^d_a = \log SR^d_a - P \log T^d_a,

    and the configurations are ordered by the prediction, best first (the per-algorithm
    performance models of SATzilla and of LLAMA's regressions). When the success is a
    ceiling minus a cost, :math:`SR = c - C` (an ASlib runtime scenario: :math:`c = 10
    \kappa` and :math:`C` the PAR10 score), the forests learn the negated log cost
    instead, :math:`y_{d a} = -\log C^d_a - P \log T^d_a` (at P = 0: log PAR10, as
    LLAMA's regressions do; Bischl et al. 2016).

    The forests follow Breiman's random forest: each tree is grown on a bootstrap
    sample, here of whole families of training datasets (so that the trees out of bag
    for a family give its inner leave-one-family-out prediction without a refit), and
    splits no node of fewer than 5 training datasets (the regression node size of Liaw &
    Wiener's randomForest). The bootstrap samples are shared by the configurations'
    forests (tree :math:`b` of every configuration grows on sample :math:`b`). By
    default (``splitter="random"``) the trees are extremely randomised (Geurts, Ernst &
    Wehenkel 2006): each node draws :math:`\lceil\sqrt{F}\rceil` features (at least 8,
    every feature when there are fewer) and a random threshold for each, between the
    node's smallest and largest value, and keeps the one that leaves the lowest
    weighted sum of squares; the node size counts the bootstrap's duplicates, as
    randomForest does (:class:`~metaeval.recommend.learners._trees.RegressionTreeBatch`, every
    tree of every configuration grown at once). ``splitter="best"`` grows CART trees
    instead (scikit-learn's ``DecisionTreeRegressor``, the best threshold of
    :math:`\lfloor\sqrt{F}\rfloor` features drawn at each node, the node size
    counting distinct datasets), one at a time: on the shipped knowledge base's shape
    (49 training datasets, 110 features, 152 configurations x 50 trees) the batch grows
    and applies a fold's forests in a seventh of CART's CPU time (0.41 against 2.8
    CPU-s), where few rows make per-tree bookkeeping the cost; evaluating regression on
    ASP-POTASSCO (about 1,165 instances a fold, 11 configurations) took 20 against 26
    CPU-s. Their first picks were within the noise of each other there (gap closed
    0.69, standard deviation 0.05 over five seeds, against CART's 0.71, 0.02) and on the
    shipped knowledge base (loss@1 0.0152 both under accuracy at P = 0; 0.0155 both,
    means of three and two seeds, under Beta(2, 8) score-driven hardness, where seeds
    alone move it by 0.001).

    One hyperparameter is chosen by inner leave-one-family-out on the training datasets
    (loss of the first pick, averaged within families) with the one-standard-error rule
    toward the simpler setting: how much to trust the forests, the prediction being
    :math:`\beta \hat y_a + (1 - \beta) \bar y_a` with :math:`\bar y_a` the training
    mean (:math:`\beta = 0` orders by the mean, close to the single best). A grid of
    leaf sizes or forest sizes may be given, and is chosen by the same rule (larger
    leaves, fewer trees first).

    Parameters
    ----------
    min_leaf : sequence of int, default=(1,)
    trees : sequence of int, default=(50,)
    blend : sequence of float in [0, 1], default=(0.0, 0.5, 1.0)
        The weights :math:`\beta` tried (ties go to the first).
    cost_ceiling : float, optional
        :math:`c` above: the success is ``cost_ceiling`` minus a positive cost whose log
        the forests learn (costs are floored at ``1e-6 * cost_ceiling``). Default: the
        log A3R.
    features : tuple of {"metafeatures", "landmarks"}, default=both
    splitter : {"random", "best"}, default="random"
        Extremely randomised trees grown together, or scikit-learn's CART trees one by
        one (see above).
    censored_cutoff : float, optional
        With ``cost_ceiling``: costs at the ceiling are runs censored at this cutoff
        (an ASlib runtime scenario's timeouts: PAR10 = 10 x the cutoff, the true
        runtime only known to be at least the cutoff). Their log cost is imputed by
        Schmee & Hahn's iteration, as Tornede et al. (2020) impute timeouts for
        per-algorithm forests: the forests are fitted, and each censored log cost
        replaced by its expectation under a normal distribution of the forests'
        prediction mean and the trees' standard deviation truncated below at the log
        cutoff (kept between the log cutoff and the log ceiling), three times; the
        forests finally used learn the imputed targets. Default: the ceiling is learnt
        as it is (log PAR10).
    scale : {"log", "linear"}, default="log"
        With ``cost_ceiling``: ``"linear"`` learns the success itself over the ceiling
        (:math:`1 - \text{PAR10} / 10\kappa` on a runtime scenario) instead of the
        log cost, as LLAMA's and the plain per-algorithm forests learn PAR10. The log
        damps a timeout's weight; the linear scale keeps it (on the ASlib development
        scenarios it did better on the QBF ones, worse on the SAT ones: see
        docs/aslib.md). ``auto`` has both vote (see :class:`Auto`).

    References
    ----------
    L. Breiman, "Random forests", Machine Learning 45 (2001); P. Geurts, D. Ernst and
    L. Wehenkel, "Extremely randomized trees", Machine Learning 63 (2006); A. Liaw and
    M. Wiener,
    "Classification and regression by randomForest", R News 2(3) (2002); L. Xu,
    F. Hutter, H. H. Hoos and K. Leyton-Brown, "SATzilla: portfolio-based algorithm
    selection for SAT", JAIR 32 (2008); L. Kotthoff, "LLAMA: leveraging learning to
    automatically manage algorithms", arXiv:1306.1031 (2013); Bischl et al., "ASlib",
    AIJ 237 (2016); J. Schmee and G. J. Hahn, "A simple method for regression analysis
    with censored data", Technometrics 21 (1979); A. Tornede, M. Wever, S. Werner,
    F. Mohr and E. Hüllermeier, "Run2Survive: a decision-theoretic approach to algorithm
    selection based on survival analysis", ACML 2020.
    """

    name = "regression"
    #: Schmee & Hahn imputation rounds with ``censored_cutoff``.
    IMPUTATION_ROUNDS = 3
    #: The ways of growing the trees.
    SPLITTERS = ("random", "best")
    #: The scales of the cost learnt with ``cost_ceiling``.
    SCALES = ("log", "linear")

    def __init__(self, min_leaf=(1,), trees=(50,), blend=(0.0, 0.5, 1.0),
                 cost_ceiling=None, features=FEATURE_SOURCES, splitter="random",
                 censored_cutoff=None, scale="log"):
        super().__init__(features)
        if not isinstance(scale, str) or scale not in self.SCALES:
            raise ValueError(f"scale must be one of {self.SCALES}, got {scale!r}.")
        if scale == "linear" and (cost_ceiling is None or censored_cutoff is not None):
            raise ValueError("scale='linear' needs cost_ceiling and no censored_cutoff "
                             "(the success itself over the ceiling is learnt).")
        self.scale = scale
        if not isinstance(splitter, str) or splitter not in self.SPLITTERS:
            raise ValueError(f"splitter must be one of {self.SPLITTERS}, got {splitter!r}.")
        self.splitter = splitter
        self.blend = _blend(blend)
        min_leaf = (min_leaf,) if isinstance(min_leaf, (int, np.integer)) else min_leaf
        self.min_leaf = _grid(min_leaf, "min_leaf")
        trees = (trees,) if isinstance(trees, (int, np.integer)) else trees
        self.trees = tuple(sorted(set(_grid(trees, "trees"))))
        if cost_ceiling is not None:
            if isinstance(cost_ceiling, bool) or not isinstance(
                    cost_ceiling, (int, float, np.integer, np.floating)) or not (
                    np.isfinite(cost_ceiling) and cost_ceiling > 0):
                raise ValueError(f"cost_ceiling must be a positive number, got "
                                 f"{cost_ceiling!r}.")
            cost_ceiling = float(cost_ceiling)
        self.cost_ceiling = cost_ceiling
        if censored_cutoff is not None:
            if cost_ceiling is None:
                raise ValueError("censored_cutoff needs cost_ceiling (censored costs are "
                                 "those at the ceiling).")
            if isinstance(censored_cutoff, bool) or not isinstance(
                    censored_cutoff, (int, float, np.integer, np.floating)) or not (
                    0 < censored_cutoff < cost_ceiling):
                raise ValueError(f"censored_cutoff must be a number between 0 and "
                                 f"cost_ceiling, got {censored_cutoff!r}.")
            censored_cutoff = float(censored_cutoff)
        self.censored_cutoff = censored_cutoff

    def __repr__(self) -> str:
        ceiling = "" if self.cost_ceiling is None else f"cost_ceiling={self.cost_ceiling:g}, "
        if self.censored_cutoff is not None:
            ceiling += f"censored_cutoff={self.censored_cutoff:g}, "
        if self.scale != "log":
            ceiling += f"scale={self.scale!r}, "
        return (f"ConfigurationRegression(min_leaf={self.min_leaf}, trees={self.trees}, "
                f"blend={self.blend}, {ceiling}features={self.features}, "
                f"splitter={self.splitter!r})")

    def target(self, train, condition) -> np.ndarray:
        """What the forests learn of each training dataset and configuration, (D, A)."""
        if self.cost_ceiling is None:
            return a3r_target(train, condition)
        if self.scale == "linear":
            return np.asarray(train.success, dtype=np.float64) / self.cost_ceiling
        cost = np.maximum(self.cost_ceiling - np.asarray(train.success, dtype=np.float64),
                          1e-6 * self.cost_ceiling)
        y = -np.log(cost)
        if condition.time_weight:
            y = y - condition.time_weight * np.log(np.asarray(train.times, dtype=np.float64))
        return y

    def _fit(self, knowledge, condition, seed) -> Fitted:
        return _FittedRegression(self, knowledge, condition, seed)


class _FittedRegression(Fitted):
    """The forests of the configurations, fitted once."""

    @one_blas_thread
    def __init__(self, strategy, train, condition, seed):
        super().__init__(strategy, train, condition, seed)
        self._design = design = Design(train, strategy.features, strategy.name)
        rng = np.random.default_rng(seed)
        codes, n_families = family_codes(train)
        target = strategy.target(train, condition)
        n_trees = max(strategy.trees)
        weights, in_bag = family_bags(codes, n_families, n_trees, rng)
        points = design.X.astype(np.float32)
        if strategy.censored_cutoff is not None:
            target = _impute_censored(strategy, train, points, target, weights, seed)
        oob = ~in_bag[:, codes]
        sizes = list(strategy.trees)
        # each inner fold's fallback: the mean target of the datasets outside its family
        totals = np.zeros((n_families, target.shape[1]))
        np.add.at(totals, codes, target)
        counts = np.bincount(codes, minlength=n_families)[:, None]
        outside = ((target.sum(axis=0) - totals) / np.maximum(len(codes) - counts, 1))[codes]
        scores, forests, inner_means = {}, {}, {}
        for leaf in strategy.min_leaf:
            if strategy.splitter == "best":
                seeds = rng.integers(0, _MAX_SEED, size=(n_trees, target.shape[1]))
                forest = ColumnForests(points, target, weights, seeds, leaf)
                train_pred = forest.train_pred
            else:
                forest = RegressionTreeBatch(points, target, weights, rng, min_leaf=leaf)
                train_pred = forest.predict(points)
            forests[leaf] = forest
            inner = _prefix_means(np.moveaxis(train_pred, 2, 0), oob, sizes)
            for s, t in enumerate(sizes):
                pred = np.where(np.isnan(inner[s]), outside.T, inner[s])  # (A, D)
                for blend in strategy.blend:
                    mean = blend * pred + (1.0 - blend) * outside.T
                    picks = np.argmax(mean, axis=0)
                    key = (leaf, t, blend)
                    scores[key] = first_pick_loss(train.success, picks)
                    inner_means[key] = mean
        # simplest first: the training mean alone (blend 0), larger leaves, fewer trees
        simple = sorted(scores, key=lambda k: (k[2], -k[0], k[1]))
        if n_families > 1:
            key, means, se = select_one_se({k: scores[k] for k in simple}, codes,
                                           n_families)
            nested = one_se_without_each({k: scores[k] for k in simple}, codes,
                                         n_families)[codes]
        else:  # nothing held out: the forests as they are
            key = max(simple, key=lambda k: (k[2], -k[0], k[1]))
            means, se = {k: float(scores[k].mean()) for k in simple}, dict.fromkeys(simple,
                                                                                     0.0)
            nested = np.full(len(codes), simple.index(key))
        leaf, t, blend = key
        self._inner_settings = [simple[j] for j in nested]  # each training dataset's
        self._forest, self._t, self._blend = forests[leaf], t, blend
        self._mean = target.mean(axis=0)
        #: each training dataset's order by the trees out of bag for its family, with the
        #: setting chosen without its family
        self.inner_orders_ = np.empty(target.shape, dtype=np.int64)
        for j in np.unique(nested):
            rows = nested == j
            self.inner_orders_[rows] = np.argsort(-inner_means[simple[j]].T[rows], axis=1,
                                                  kind="stable")
        self.selection_ = {"params": {"min_leaf": leaf, "trees": t, "blend": blend},
                           "inner_loss": means, "inner_se": se, "rule": "one-SE",
                           "target": ("log A3R" if strategy.cost_ceiling is None else
                                      "success / ceiling" if strategy.scale == "linear"
                                      else "-log cost" if strategy.censored_cutoff is None else
                                      "-log cost, censored costs imputed"),
                           "splitter": strategy.splitter,
                           "inner": _inner_record(train, codes, n_families, in_bag[:t]),
                           "nested": nested_record(simple, nested, codes)}

    @one_blas_thread
    def rank_many(self, queries) -> list:
        points = np.array([self._design.point(q) for q in queries]).astype(np.float32)
        pred = self._forest.predict(points, self._t).mean(axis=0)  # (N, A)
        out = []
        for n in range(points.shape[0]):
            predicted = self._blend * pred[n] + (1.0 - self._blend) * self._mean
            order = np.argsort(-predicted, kind="stable")
            out.append(Ranking(order, predicted[order], self.knowledge.datasets))
        return out

    def rank(self, query) -> Ranking:
        return self.rank_many([query])[0]


def _impute_censored(strategy, train, points, target, weights, seed):
    """The target with each censored entry (cost at the ceiling) imputed by Schmee &
    Hahn's iteration (see :class:`ConfigurationRegression`); the imputation's forests
    draw from their own generator, so the forests finally used are grown as without."""
    from scipy.stats import norm

    ceiling = strategy.cost_ceiling
    cost = ceiling - np.asarray(train.success, dtype=np.float64)
    censored = cost >= ceiling * (1 - 1e-9)
    if not censored.any():
        return target
    # target = -log cost - P log T: the censored entries' -log cost is at most -log cutoff
    shift = target + np.log(np.maximum(cost, 1e-6 * ceiling))  # -P log T, kept
    low, high = np.log(strategy.censored_cutoff), np.log(ceiling)
    z = np.where(censored, low, -(target - shift))  # log cost, censored at the cutoff
    rng = np.random.default_rng([int(seed), 1])
    leaf = min(strategy.min_leaf)
    for _ in range(strategy.IMPUTATION_ROUNDS):
        forest = RegressionTreeBatch(points, z, weights, rng, min_leaf=leaf)
        pred = forest.predict(points)  # (T, N, A)
        mu, sigma = pred.mean(axis=0), pred.std(axis=0)
        sigma = np.maximum(sigma, 1e-6)
        alpha = (low - mu) / sigma
        tail = np.maximum(norm.sf(alpha), 1e-300)
        expected = mu + sigma * norm.pdf(alpha) / tail
        z = np.where(censored, np.clip(expected, low, high), z)
    return -z + shift


class ColumnForests:
    """One regression forest per column of ``target``, the trees of bag ``b`` of every
    column grown on the same bootstrap sample.

    Tree ``(b, a)`` is ``DecisionTreeRegressor(max_features="sqrt", min_samples_leaf=
    min_leaf, min_samples_split=min_split, random_state=seeds[b, a])`` fitted on the
    rows with ``weights[b] > 0``, the bootstrap counts as sample weights, to column
    ``a``. ``train_pred`` (T, N, A): each tree's prediction of the training points.

    Parameters
    ----------
    points : ndarray (N, F), float32
    target : ndarray (N, A)
    weights : ndarray (T, N)
    seeds : ndarray of int (T, A)
    min_leaf, min_split : int
    """

    def __init__(self, points, target, weights, seeds, min_leaf=1, min_split=5):
        points = np.ascontiguousarray(points, dtype=np.float32)
        target = np.asarray(target, dtype=np.float64)
        self._trees = []
        for b in range(seeds.shape[0]):
            rows = weights[b] > 0
            X, w = np.ascontiguousarray(points[rows]), weights[b][rows]
            self._trees.append([_fitted(seeds[b, a], X, target[rows, a], w, min_leaf,
                                        min_split) for a in range(target.shape[1])])
        self.train_pred = self.predict(points)

    def predict(self, points, n_trees=None) -> np.ndarray:
        """The first ``n_trees`` trees of every column's forest at ``points``, (T, N, A)."""
        points = np.ascontiguousarray(points, dtype=np.float32)
        trees = self._trees[:n_trees]
        if not trees:
            return np.empty((0, points.shape[0], 0))
        return np.stack([np.stack([tree.predict(points, check_input=False) for tree in row],
                                  axis=1) for row in trees])


class LeafForest:
    """Trees of :func:`forest_leaf_means`, kept to predict new points.

    ``train_pred`` (T, N, A): each tree's prediction of the training points.
    """

    def __init__(self, points, target, weights, seeds, min_leaf=1, components=8):
        self._trees = [_leaf_tree(points, target, weights[b], seed, min_leaf, components)
                       for b, seed in enumerate(seeds)]
        self.train_pred = np.stack([means[np.searchsorted(ids, tree.apply(
            points, check_input=False))] for tree, ids, means in self._trees]) if len(
            self._trees) else np.empty((0, points.shape[0], target.shape[1]))

    def predict(self, points, n_trees=None) -> np.ndarray:
        """The first ``n_trees`` trees' predictions of ``points`` (float32), (T, N, A)."""
        trees = self._trees[:n_trees]
        return np.stack([means[np.searchsorted(ids, tree.apply(points, check_input=False))]
                         for tree, ids, means in trees])


def forest_leaf_means(points, target, weights, seeds, min_leaf=1, components=8):
    """Each tree's prediction of the full target vectors, shape (T, N, A).

    Tree ``b`` is grown on the training rows with ``weights[b] > 0`` (bootstrap counts
    as sample weights), its splits judged on the first ``components`` principal
    components of its sample's targets; it predicts for each row of ``points`` (the
    training rows, then any new ones) the weighted mean target of its leaf.
    """
    out = np.empty((len(seeds), points.shape[0], target.shape[1]))
    train = points[:target.shape[0]]
    for b, seed in enumerate(seeds):
        tree, ids, means = _leaf_tree(train, target, weights[b], seed, min_leaf, components)
        out[b] = means[np.searchsorted(ids, tree.apply(points, check_input=False))]
    return out


def _leaf_tree(points, target, weight, seed, min_leaf, components):
    """One tree on a bootstrap sample of the training ``points``: (tree, leaf ids, the
    mean target of each leaf (L, A))."""
    rows = weight > 0
    Y = target[rows]
    w = weight[rows]
    centre = np.average(Y, axis=0, weights=w)
    _, _, vt = np.linalg.svd((Y - centre) * np.sqrt(w)[:, None], full_matrices=False)
    # on a grid of 2**-20: the last bits of an SVD differ between machines (BLAS kernels
    # summing in another order), and a tree's choice among splits that tie but for
    # those bits with them; on the grid the trees are the same on every machine (a sign
    # flip of a component negates its scores exactly, which the squared error ignores)
    scores = np.round(((Y - centre) @ vt[:components].T) * 2.0**20) / 2.0**20
    tree = _fitted(seed, points[rows], scores, w, min_leaf)
    train_leaves = tree.apply(points[rows], check_input=False)
    ids, inverse = np.unique(train_leaves, return_inverse=True)
    sums = np.zeros((ids.size, Y.shape[1]))
    np.add.at(sums, inverse, Y * w[:, None])
    totals = np.bincount(inverse, weights=w, minlength=ids.size)
    return tree, ids, sums / totals[:, None]
