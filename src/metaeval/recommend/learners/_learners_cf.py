"""Collaborative filtering: a low-rank model of past results, completed for the new dataset."""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

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
    nested_record,
    one_blas_thread,
    one_se_without_each,
    select,
    select_one_se,
)
from metaeval.recommend.learners._learners_forest import LeafForest, _inner_record
from metaeval.recommend.learners._strategies import Fitted, Ranking


def expected_improvement(mean, sd, best):
    r"""Expected improvement over ``best`` of a Gaussian :math:`N(m, s^2)` (Jones et al.
    1998): :math:`(m - y^*)\,\Phi(u) + s\,\varphi(u)`, :math:`u = (m - y^*) / s`.

    Examples
    --------
    >>> round(float(expected_improvement(0.0, 1.0, 0.0)), 4)  # s * phi(0)
    0.3989
    """
    gap = np.asarray(mean, dtype=np.float64) - best
    u = gap / sd
    # scipy.stats.norm's cdf and pdf, as it computes them (the same numbers), without
    # its per-call argument handling (0.13 ms a call, each test of the active loop)
    return gap * ndtr(u) + sd * (np.exp(-u**2 / 2.0) / _SQRT_2PI)


_SQRT_2PI = np.sqrt(2 * np.pi)


#: Values closer than this, relative to the largest magnitude, are ties when choosing.
TIES = 1e-9


def _steps(x):
    """``x`` on a grid of :data:`TIES` times its largest magnitude (integers as floats):
    configurations whose values differ only by rounding -- identical columns of the
    knowledge base, computed through BLAS kernels that sum in another order on another
    machine -- tie exactly, and ties go to the first, so that the choices are the same on
    every machine.

    Examples
    --------
    >>> _steps(np.array([1.0, 1.0 + 1e-15, 0.5])).tolist()
    [1000000000.0, 1000000000.0, 500000000.0]
    """
    x = np.asarray(x, dtype=np.float64)
    scale = float(np.max(np.abs(x))) if x.size else 0.0
    return np.round(x / (scale * TIES)) if scale > 0 and np.isfinite(scale) else x


def _steps_rows(x):
    """:func:`_steps` of each row of ``x``, (D, A)."""
    return np.array([_steps(row) for row in x]).reshape(np.shape(x))


def _first_best(x) -> int:
    """The first index of the largest value, ties (:func:`_steps`) to the first."""
    return int(np.argmax(_steps(x)))


def _low_rank(Y, rank):
    """Column means and the rank-``rank`` factors ``Z`` (D, r) and ``V`` (A, r) of ``Y``."""
    mu = Y.mean(axis=0)
    u, s, vt = np.linalg.svd(Y - mu, full_matrices=False)
    r = min(rank, s.size)
    return mu, u[:, :r] * s[:r], vt[:r].T


class CollaborativeFiltering(Learner):
    r"""Collaborative filtering of the (dataset x configuration) A3R matrix, tested actively.

    The training datasets' log A3R values under the condition,
    :math:`Y_{d a} = \log SR^d_a - P \log T^d_a`, are modelled as column means plus a
    rank-:math:`r` product (truncated SVD, as OBOE's PCA of the error matrix),

    .. math:: Y_{d a} \approx \mu_a + z_d^\top v_a .

    The new dataset's latent vector :math:`z` is first predicted from its meta-features:
    a random forest of family-bootstrapped multi-output regression trees (each split on
    the first principal components of its sample's rows, as Blockeel, De Raedt & Ramon
    1998's clustering trees) predicts its row relative to the row's mean, to
    which the training datasets' mean level is added, :math:`\hat y`, and
    :math:`z_0 = V^\top (\hat y - \mu)`; the Gaussian prior :math:`N(z_0, \Sigma_0)` has
    the covariance of the same prediction's errors on the training datasets (each
    predicted by the trees that did not see its family). After each test the latent
    vector is re-estimated from the observed entries by Bayesian least squares,

    .. math::

        \Sigma = \left(\Sigma_0^{-1} + V_O^\top V_O / \sigma^2\right)^{-1}, \qquad
        \hat z = \Sigma \left(\Sigma_0^{-1} z_0 + V_O^\top (y_O - \mu_O) / \sigma^2\right),

    :math:`\sigma^2` being the residual variance of the rank-:math:`r` fit. The first test
    is the configuration with the highest predicted value; each next one maximises the
    expected improvement over the best observed value per predicted second,

    .. math::

        \frac{EI_a}{\hat T_a}, \qquad EI_a = (m_a - y^*)\,\Phi(u) + s_a\,\varphi(u),
        \quad u = \frac{m_a - y^*}{s_a},

    with :math:`m_a = \mu_a + \hat z^\top v_a`, :math:`s_a^2 = v_a^\top \Sigma v_a +
    \sigma^2`, and :math:`\hat T_a` the configuration's median training time scaled by the
    new dataset's time factor (the mean ratio of observed to median time over the tests
    run, shrunk towards 1 as if one more test had taken its median time).

    Hyperparameters chosen by inner leave-one-family-out on the training datasets (loss
    of the first pick, averaged within families) with the one-standard-error rule toward
    the simpler setting (the training means, lower rank, larger leaves): the rank
    :math:`r` (each inner fold with its own SVD of the datasets outside the held-out
    family), the forest's minimum leaf size, and how far the prior mean moves from the
    column means towards the forest's prediction,
    :math:`z_0 = \beta V^\top (\hat y - \mu)` (:math:`\beta = 0`: the training means).

    Parameters
    ----------
    ranks : sequence of int, default=(1, 2, 4, 8, 16)
    min_leaf : sequence of int, default=(3,)
    trees : int, default=30
    blend : sequence of float in [0, 1], default=(0.0, 0.5, 1.0)
        The weights :math:`\beta` tried (ties go to the first).
    seed : int, default=0
        Seed of the forest in :meth:`run` and of ``fit(..., seed=None)``
        (:meth:`rank` and :meth:`fit` take their own).
    features : tuple of {"metafeatures", "landmarks"}, default=both

    References
    ----------
    C. Yang, Y. Akimoto, D. W. Kim and M. Udell, "OBOE: collaborative filtering for
    AutoML model selection", KDD 2019; N. Fusi, R. Sheth and M. Elibol, "Probabilistic
    matrix factorization for automated machine learning", NeurIPS 2018; D. R. Jones,
    M. Schonlau and W. J. Welch, "Efficient global optimization of expensive black-box
    functions", J. Global Optimization 13 (1998) (expected improvement); H. Blockeel,
    L. De Raedt and J. Ramon, "Top-down induction of clustering trees", ICML 1998.
    """

    name = "collaborative"
    interactive = True

    def __init__(self, ranks=(1, 2, 4, 8, 16), min_leaf=(3,), trees=30, seed=0,
                 blend=(0.0, 0.5, 1.0), features=FEATURE_SOURCES):
        super().__init__(features)
        self.blend = _blend(blend)
        self.ranks = _grid(ranks, "ranks")
        self.min_leaf = _grid(min_leaf, "min_leaf")
        self.trees = _positive_int(trees, "trees")
        self.seed = int(seed)

    def __repr__(self) -> str:
        return (f"CollaborativeFiltering(ranks={self.ranks}, min_leaf={self.min_leaf}, "
                f"trees={self.trees}, blend={self.blend}, features={self.features})")

    def fit(self, knowledge, condition=None, *, seed=0):
        """As :meth:`Strategy.fit`; ``seed=None`` is the learner's own ``seed``."""
        return super().fit(knowledge, condition, seed=self.seed if seed is None else seed)

    def _fit(self, knowledge, condition, seed) -> Fitted:
        return _FittedCollaborative(self, knowledge, condition, seed)


class _FittedCollaborative(Fitted):
    """The chosen low-rank model and the forest behind each new dataset's prior."""

    @one_blas_thread
    def __init__(self, strategy, train, condition, seed):
        super().__init__(strategy, train, condition, seed)
        self._design = design = Design(train, strategy.features, strategy.name)
        Y = a3r_target(train, condition)
        # the forest learns each dataset's values relative to its own mean (what orders
        # the configurations), and the level is the training datasets' mean
        relative = Y - Y.mean(axis=1, keepdims=True)
        level = float(Y.mean())
        codes, n_families = family_codes(train)
        rng = np.random.default_rng(seed)
        weights, in_bag = family_bags(codes, n_families, strategy.trees, rng)
        points = design.X.astype(np.float32)
        oob = ~in_bag[:, codes]
        folds = [np.flatnonzero(codes == f) for f in range(n_families)]
        if n_families < 2:  # nothing to hold out: every setting scores the same
            folds = []
        bases = [_low_rank(np.delete(Y, rows, axis=0), max(strategy.ranks)) for rows in folds]
        scores, fits, values = {}, {}, {}
        for leaf in strategy.min_leaf:
            seeds = rng.integers(0, 2**31 - 1, size=strategy.trees)
            forest = LeafForest(points, relative, weights, seeds, leaf)
            pred = forest.train_pred + level
            with np.errstate(invalid="ignore", divide="ignore"):
                inner = (pred * oob[:, :, None]).sum(axis=0) / oob.sum(axis=0)[:, None]
            inner = np.where(np.isnan(inner), Y.mean(axis=0), inner)  # no tree: the mean
            fits[leaf] = (forest, inner)
            for r in strategy.ranks:
                for blend in strategy.blend:
                    value = np.broadcast_to(Y.mean(axis=0), Y.shape).copy()
                    for rows, (mu, _, V) in zip(folds, bases, strict=True):
                        Vr = V[:, :r]
                        value[rows] = mu + blend * (inner[rows] - mu) @ Vr @ Vr.T
                    picks = np.full(Y.shape[0], int(np.argmax(Y.mean(axis=0))))
                    for rows in folds:
                        picks[rows] = [_first_best(v) for v in value[rows]]
                    values[(r, leaf, blend)] = value
                    scores[(r, leaf, blend)] = first_pick_loss(train.success, picks)
        if folds:  # simplest first: the training means (blend 0), low rank, large leaves
            simple = sorted(scores, key=lambda k: (k[2], k[0], -k[1]))
            (rank, leaf, blend), means, se = select_one_se(
                {k: scores[k] for k in simple}, codes, n_families)
            nested = one_se_without_each({k: scores[k] for k in simple}, codes,
                                         n_families)[codes]
        else:
            means = {k: float(v.mean()) for k, v in scores.items()}
            rank, leaf, blend = select(means)
            se = {k: 0.0 for k in scores}
            simple = [(rank, leaf, blend)]
            nested = np.zeros(len(codes), dtype=np.int64)
        #: each training dataset's order by the low-rank model of the datasets outside
        #: its family (the forest's prediction out of bag for it), with the setting the
        #: one-SE rule chooses without its family; its first is the pick scored above
        self.inner_orders_ = np.empty(Y.shape, dtype=np.int64)
        for j in np.unique(nested):
            rows = nested == j
            value = (values[simple[j]][rows] if folds else
                     np.broadcast_to(Y.mean(axis=0), (int(rows.sum()), Y.shape[1])))
            self.inner_orders_[rows] = np.argsort(-_steps_rows(value), axis=1, kind="stable")
        forest, inner = fits[leaf]
        mu, Z, V = _low_rank(Y, rank)
        residual = Y - mu - Z @ V.T
        dof = max(Y.size - V.shape[1] * (Y.shape[0] + Y.shape[1]), 1)
        noise = max(float((residual**2).sum() / dof), 1e-8)
        errors = Z - blend * (inner - mu) @ V
        if errors.shape[0] > 1:
            prior_cov = np.atleast_2d(np.cov(errors, rowvar=False))
        else:  # one training dataset: a unit prior in the latent space
            prior_cov = np.eye(V.shape[1])
        prior_cov = prior_cov + 1e-6 * np.eye(V.shape[1])
        self._forest, self._level, self._blend = forest, level, blend
        self._mu, self._V, self._prior_cov, self._noise = mu, V, prior_cov, noise
        self._median_t = np.median(np.log(train.times), axis=0)
        self.selection_ = {
            "params": {"rank": rank, "min_leaf": leaf, "blend": blend},
            "inner_loss": means, "inner_se": se, "rule": "one-SE",
            "inner": _inner_record(train, codes, n_families, in_bag),
            "nested": nested_record(simple, nested, codes),
        }

    def _prior_means(self, queries):
        """The prior mean latent vector z0 of each new dataset, (N, r)."""
        points = np.array([self._design.point(q) for q in queries]).astype(np.float32)
        predicted = (self._forest.predict(points) + self._level).mean(axis=0)  # (N, A)
        # one product per dataset: a matrix product may differ in the last bit
        return [self._blend * (p - self._mu) @ self._V for p in predicted]

    @one_blas_thread
    def rank_many(self, queries) -> list:
        """Without test results: the configurations by their prior predicted value."""
        out = []
        for z0 in self._prior_means(queries):
            predicted = self._mu + self._V @ z0
            order = np.argsort(-_steps(predicted), kind="stable")
            out.append(Ranking(order, predicted[order], self.knowledge.datasets))
        return out

    def rank(self, query) -> Ranking:
        return self.rank_many([query])[0]

    @one_blas_thread
    def run(self, query, test) -> None:
        mu, V, prior_cov, noise, median_t = (self._mu, self._V, self._prior_cov, self._noise,
                                             self._median_t)
        z0 = self._prior_means([query])[0]
        condition = self.condition
        n = mu.size
        precision0 = np.linalg.inv(prior_cov)
        untested = np.ones(n, dtype=bool)
        tested, observed, factors = [], [], []
        pick = _first_best(mu + V @ z0)
        while True:
            s, t = test(pick)
            untested[pick] = False
            tested.append(pick)
            observed.append(float(np.log(condition.a3r_values(s, t))))
            factors.append(float(np.log(t) - median_t[pick]))
            if not untested.any():
                return
            Vo = V[tested]
            precision = precision0 + Vo.T @ Vo / noise
            cov = np.linalg.inv(precision)
            z = cov @ (precision0 @ z0 + Vo.T @ (np.array(observed) - mu[tested]) / noise)
            cand = np.flatnonzero(untested)
            m = mu[cand] + V[cand] @ z
            sd = np.sqrt(np.einsum("ar,rs,as->a", V[cand], cov, V[cand]) + noise)
            factor = sum(factors) / (1 + len(factors))
            per_second = expected_improvement(m, sd, max(observed)) / np.exp(
                median_t[cand] + factor)
            pick = int(cand[_first_best(per_second)] if np.max(per_second) > 0
                       else cand[_first_best(m)])
