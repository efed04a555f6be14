"""Meta-learners: worked examples, planted structure, no leakage, inner selection, seeds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import metaeval.recommend.evaluation._scoring as scoring_module
from metaeval.recommend import (
    STRATEGIES,
    CollaborativeFiltering,
    Condition,
    ConfigurationRegression,
    HeldOut,
    KnowledgeBase,
    PairwiseClassification,
    Query,
    ZeroShotPortfolio,
    evaluate_recommenders,
    get_strategy,
)
from metaeval.recommend.learners._learners import design_matrix, greedy_portfolio_order
from metaeval.recommend.learners._learners_cf import expected_improvement
from metaeval.recommend.learners._learners_forest import _vote

LEARNERS = ("pairwise", "regression", "collaborative")
#: Smaller forests where a test is not about the defaults (the suite's time budget): the
#: pairwise learner's defaults grow 100 trees for each of up to 435 pairs, the regression's
#: 50 for each configuration.
SMALL = {"pairwise": {"candidates": 8, "trees": 50}, "regression": {"trees": 20}}


def _strategies(names):
    """The strategies named, the pairwise learner with :data:`SMALL` forests."""
    return [get_strategy(n, **SMALL.get(n, {})) for n in names]


def _planted(n_datasets=32, n_configs=12, seed=0, shuffle=False, noise=0.01):
    """The winner's regime is the tercile of meta-feature ``general.m0``.

    Regime ``r`` configurations (``j % 3 == r``) gain 0.1 on datasets of regime ``r``;
    configuration 0 is slightly better everywhere, so single-best picks it (regime 0)
    and loses 0.1 on two thirds of the datasets.
    """
    rng = np.random.default_rng(seed)
    names = [f"d{i:02d}" for i in range(n_datasets)]
    families = [f"f{i // 2:02d}" if i < 8 else f"f{i:02d}" for i in range(n_datasets)]
    m0 = rng.uniform(0, 1, n_datasets)
    regime = np.minimum((m0 * 3).astype(int), 2)
    kind = np.arange(n_configs) % 3
    success = (0.7 + 0.1 * (kind[None, :] == regime[:, None]) + 0.03 * (np.arange(n_configs) == 0)
               + rng.normal(0, noise, (n_datasets, n_configs)))
    times = np.exp(rng.normal(0, 0.5, (n_datasets, n_configs)))
    X = np.column_stack([m0, rng.normal(size=(n_datasets, 4))])
    X[rng.random(X.shape) < 0.05] = np.nan
    X[:, 0] = m0
    if shuffle:
        X = X[rng.permutation(n_datasets)]
    meta = pd.DataFrame(X, index=names, columns=[f"general.m{j}" for j in range(5)])
    land = pd.DataFrame(rng.normal(size=(n_datasets, 2)), index=names,
                        columns=["NB.success", "LR.success"])
    return KnowledgeBase(names, [f"c{j:02d}" for j in range(n_configs)], success, times,
                         families=families, n_instances=np.full(n_datasets, 100),
                         metafeatures=meta, metafeature_time=np.full(n_datasets, 0.25),
                         landmarks=land, landmark_time=np.full(n_datasets, 0.5))


def _loss_at_1(kb, names):
    ev = evaluate_recommenders(kb, strategies=_strategies([*names, "single-best"]),
                               n_boot=10, n_random=1, compare=False)
    return ev.summary.set_index("strategy")["loss_at_1"]


# ---------------------------------------------------------------- worked examples
def test_greedy_portfolio_worked_example():
    """Mean losses 0.2, 0.2, 0.1: C first; then A covers d1 (0.1 -> 0) and B d2 (0.1 ->
    0) equally, A wins the tie; then B takes d2 to zero and nothing is left to gain."""
    loss = np.array([[0.0, 0.3, 0.1], [0.3, 0.0, 0.1], [0.3, 0.3, 0.1]])
    assert greedy_portfolio_order(loss).tolist() == [2, 0, 1]
    assert greedy_portfolio_order(np.zeros((2, 3))).tolist() == [0]


def _literal_greedy(loss, head=()):
    """The docstring's rule one configuration and one dataset at a time, in exact
    fractions: the smallest mean loss of the best so far, ties to the earlier column,
    stop when nothing lowers it."""
    from fractions import Fraction

    rows = [[Fraction(v) for v in r] for r in loss.tolist()]
    order = list(head)
    current = (sum(min(r[j] for j in order) for r in rows) / len(rows)) if order else None
    while len(order) < loss.shape[1]:
        values = {a: sum(min([r[a], *(r[j] for j in order)]) for r in rows) / len(rows)
                  for a in range(loss.shape[1]) if a not in order}
        pick = min(values, key=lambda a: (values[a], a))
        if current is not None and not values[pick] < current:
            break
        order.append(pick)
        current = values[pick]
    return order


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 6), st.integers(1, 7), st.data())
def test_greedy_portfolio_equals_the_literal_rule_on_tied_losses(n_datasets, n_configs,
                                                                 data):
    # losses in eighths: sums are exact in floating point, and ties are everywhere
    cells = data.draw(st.lists(st.integers(0, 4), min_size=n_datasets * n_configs,
                               max_size=n_datasets * n_configs))
    loss = np.array(cells, dtype=np.float64).reshape(n_datasets, n_configs) / 8
    head = data.draw(st.lists(st.integers(0, n_configs - 1), unique=True, max_size=2))
    assert greedy_portfolio_order(loss, head).tolist() == _literal_greedy(loss, head)


def test_zero_shot_portfolio_is_single_best_first_then_covers():
    kb = _planted()
    ranked = ZeroShotPortfolio().rank(kb, kb.query(0), Condition())
    assert ranked.order[0] == 0  # best mean success at P = 0
    assert {int(j) % 3 for j in ranked.order[:3]} == {0, 1, 2}  # one of each regime
    assert np.all(np.diff(ranked.score) <= 1e-12)  # mean best-so-far loss never grows
    assert sorted(ranked.order.tolist()) == list(range(len(kb.algorithms)))


def test_vote_worked_example():
    """A beats B (0.9), A beats C (0.4: C wins), B beats C (0.7): one vote each; the
    summed probabilities break the tie, A 1.3 > B 0.8 ... C 0.6 + 0.3 = 0.9."""
    index = {(0, 1): 0, (0, 2): 1, (1, 2): 2}
    order, votes = _vote(np.array([0, 1, 2]), np.array([[0.9], [0.4], [0.7]]), index)
    assert order.tolist() == [[0, 2, 1]]
    assert votes.tolist() == [[1, 1, 1]]


def test_expected_improvement_worked_example():
    """At the best value EI = s phi(0); far above it, the gap; far below, almost 0; it
    grows with the spread."""
    ei = expected_improvement(np.array([0.5, 3.0, -3.0, 0.5]), np.array([1, 1, 1, 2.0]), 0.5)
    np.testing.assert_allclose(ei[0], 0.39894228, rtol=1e-7)
    assert ei[1] == pytest.approx(2.5 * 0.99379033 + 0.01752830, abs=1e-7)  # tables
    assert 0 < ei[2] < 1e-4
    assert ei[3] == pytest.approx(2 * ei[0])


def test_expected_improvement_is_the_formula_with_scipy_normal():
    from scipy.stats import norm

    rng = np.random.default_rng(4)
    m = np.r_[rng.normal(0, 3, 500), 0.0, 40.0, -40.0, np.inf, -np.inf]
    sd = np.r_[rng.uniform(1e-3, 5, 500), 1.0, 0.5, 0.5, 1.0, 1.0]
    gap = m - 0.25
    with np.errstate(invalid="ignore"):  # -inf x 0 at m = -inf, in both
        want = gap * norm.cdf(gap / sd) + sd * norm.pdf(gap / sd)
        np.testing.assert_array_equal(expected_improvement(m, sd, 0.25), want)


def test_collaborative_tests_the_cheaper_of_two_equal_candidates_next():
    """Two twins (same results everywhere) except that one takes 100x longer: after the
    first test the cheap twin comes before the slow one (EI per second)."""
    rng = np.random.default_rng(1)
    n = 12
    names = [f"d{i}" for i in range(n)]
    base = rng.uniform(0.6, 0.8, (n, 1))
    success = np.hstack([base + 0.1, base + rng.normal(0, 0.05, (n, 2)), base - 0.05])
    success[:, 2] = success[:, 1]
    times = np.ones((n, 4))
    times[:, 2] = 100.0
    meta = pd.DataFrame(rng.normal(size=(n, 3)), index=names, columns=["g.a", "g.b", "g.c"])
    kb = KnowledgeBase(names, ["best", "cheap", "slow", "worst"], success, times,
                       metafeatures=meta)
    held = HeldOut(success[0], times[0])
    learner = CollaborativeFiltering(features=("metafeatures",))
    learner.run(kb.subset(np.arange(n) > 0), kb.query(0), Condition(), held.test)
    assert held.tested[0] == 0
    assert held.tested.index(1) < held.tested.index(2)


def test_design_matrix_imputes_with_training_median_and_drops_constants():
    names = ["a", "b", "c"]
    kb = KnowledgeBase(names, ["X", "Y"], [[.9, .8]] * 3, [[1, 1]] * 3,
                       metafeatures=pd.DataFrame({"g.v": [1.0, np.nan, 5.0],
                                                  "g.const": [2.0, 2.0, 2.0],
                                                  "g.inf": [np.inf, 1.0, 3.0],
                                                  "g.none": [np.nan] * 3}, index=names))
    query = Query("new", 10, metafeatures=pd.Series({"g.v": np.nan, "g.const": 7.0,
                                                     "g.inf": 10.0}))
    X, x, columns = design_matrix(kb, query, ("metafeatures",), "pairwise")
    assert columns == ["metafeatures:g.v", "metafeatures:g.inf"]
    assert X.tolist() == [[1.0, 2.0], [3.0, 1.0], [5.0, 3.0]]
    assert x.tolist() == [3.0, 10.0]


def test_missing_metafeatures_is_a_clear_error():
    kb = _planted()
    bare = KnowledgeBase(kb.datasets, kb.algorithms, kb.success, kb.times, kb.families)
    for name in LEARNERS:
        with pytest.raises(ValueError, match="metafeatures"):
            get_strategy(name).rank(bare, kb.query(0), Condition())
        with pytest.raises(ValueError, match="metafeatures"):
            get_strategy(name).rank(kb, Query("new", 10), Condition())
        with pytest.raises(ValueError, match="needs metafeatures and landmarks"):
            evaluate_recommenders(bare, strategies=[name], n_boot=5)
    with pytest.raises(ValueError, match="features"):
        PairwiseClassification(features=("colour",))
    with pytest.raises(ValueError, match="trees"):
        ConfigurationRegression(trees=(0,))


def test_overhead_counts_every_description_used():
    kb = _planted()
    query = kb.query(0)
    assert get_strategy("regression").overhead(query) == pytest.approx(0.75)
    assert get_strategy("regression", features=("metafeatures",)).overhead(query) == 0.25
    assert get_strategy("zero-shot-portfolio").overhead(query) == 0.0


def test_registry_lists_the_learners_everywhere():
    assert {"pairwise", "regression", "collaborative", "zero-shot-portfolio"} <= set(STRATEGIES)
    assert isinstance(get_strategy("collaborative"), CollaborativeFiltering)


# ---------------------------------------------------------------- planted structure
def test_learners_beat_single_best_and_need_the_metafeatures():
    """A meta-feature decides the winner: each learner must beat single-best on held-out
    families; with the meta-features shuffled across datasets the gain must vanish."""
    honest = _loss_at_1(_planted(), LEARNERS)
    shuffled = _loss_at_1(_planted(shuffle=True), LEARNERS)
    sb = honest["single-best"]
    assert sb > 0.05  # single-best loses 0.1 on about two datasets in three
    for name in LEARNERS:
        assert honest[name] < 0.5 * sb, (name, honest[name], sb)
        assert shuffled[name] > honest[name] + 0.02, (name, shuffled[name], honest[name])


def test_learners_run_on_the_smallest_knowledge_base():
    """Three datasets in two families: a held-out pair leaves one training dataset."""
    kb = _planted(n_datasets=3, n_configs=4)
    kb = KnowledgeBase(kb.datasets, kb.algorithms, kb.success, kb.times, ["f", "f", "g"],
                       kb.n_instances, kb.metafeatures, kb.metafeature_time, kb.landmarks,
                       kb.landmark_time)
    names = [*LEARNERS, "zero-shot-portfolio"]
    ev = evaluate_recommenders(kb, strategies=_strategies(names), n_boot=5)
    assert set(ev.per_dataset["strategy"]) == set(names)
    assert np.isfinite(ev.per_dataset["loss_at_1"]).all()


def test_learners_use_only_metafeatures_when_no_landmarks():
    kb = _planted(n_datasets=12)
    meta_only = KnowledgeBase(kb.datasets, kb.algorithms, kb.success, kb.times, kb.families,
                              kb.n_instances, kb.metafeatures, kb.metafeature_time)
    ev = evaluate_recommenders(meta_only, strategies=["regression"], n_boot=5)
    seconds = ev.per_dataset["overhead"] * ev.per_dataset["pool_time"]  # relative axis
    np.testing.assert_allclose(seconds, 0.25)


# ---------------------------------------------------------------- leakage, inner folds
class _Recorder(HeldOut):
    log: list = []
    count = 0

    def __init__(self, success, times):
        super().__init__(success, times)
        _Recorder.count += 1
        self.id = _Recorder.count

    def test(self, j):
        _Recorder.log.append((self.id, "test"))
        return super().test(j)

    def reveal(self):
        _Recorder.log.append((self.id, "reveal"))
        return super().reveal()


def test_held_out_results_are_read_only_by_testing(monkeypatch):
    monkeypatch.setattr(scoring_module, "HeldOut", _Recorder)
    _Recorder.log = []
    kb = _planted(n_datasets=12, n_configs=6)
    evaluate_recommenders(kb, strategies=_strategies([*LEARNERS, "zero-shot-portfolio"]),
                          n_boot=5, compare=False)
    events = {}
    for obj, kind in _Recorder.log:
        events.setdefault(obj, []).append(kind)
    assert len(events) == 4 * len(kb.datasets)
    for kinds in events.values():  # all tests first, then one reveal to score the curve
        assert kinds == ["test"] * len(kb.algorithms) + ["reveal"]


def test_poisoned_held_out_row_does_not_change_its_order():
    """Changing a dataset's own results leaves the order recommended for it unchanged
    (the collaborative learner reacts to test results, so its first pick only)."""
    kb = _planted(n_datasets=12, n_configs=8)
    i = 9  # its own family
    success, times = kb.success.copy(), kb.times.copy()
    success[i] = success[i][::-1] * 0.5
    times[i] = 1e3
    poisoned = KnowledgeBase(kb.datasets, kb.algorithms, success, times, kb.families,
                             kb.n_instances, kb.metafeatures, kb.metafeature_time,
                             kb.landmarks, kb.landmark_time)
    names = [*LEARNERS, "zero-shot-portfolio"]

    def orders(source):
        curves = evaluate_recommenders(source, strategies=_strategies(names), n_boot=5,
                                       compare=False).curves
        mine = curves[(curves["dataset"] == kb.datasets[i]) & (curves["step"] > 0)]
        return {s: g["algorithm"].tolist() for s, g in mine.groupby("strategy")}

    clean, dirty = orders(kb), orders(poisoned)
    for name in names:
        if name == "collaborative":
            assert clean[name][0] == dirty[name][0]
        else:
            assert clean[name] == dirty[name], name


@pytest.mark.parametrize("name", LEARNERS)
def test_inner_selection_sees_training_datasets_only(name):
    kb = _planted()
    families = np.array(kb.families)
    held = 0
    train = kb.subset(families != families[held])
    learner = get_strategy(name)
    learner.rank(train, kb.query(held), Condition(), seed=3)
    inner = learner.selection_["inner"]
    assert {f for f, _ in inner} == set(train.families)
    for family, seen in inner:
        assert seen, family
        assert set(seen) <= set(train.datasets)
        assert not {d for d, f in zip(train.datasets, train.families, strict=True)
                    if f == family} & set(seen)
    # the one-SE rule: the chosen setting is the first (simplest) within one standard
    # error of the lowest inner loss
    scores = learner.selection_["inner_loss"]
    se = learner.selection_["inner_se"]
    chosen = tuple(learner.selection_["params"].values())
    keys = list(scores)
    best = min(scores.values())
    assert scores[chosen] <= best + se[chosen] + 1e-12
    assert all(scores[k] > best + se[k] + 1e-15 for k in keys[:keys.index(chosen)])


@pytest.mark.parametrize("name", [*LEARNERS, "zero-shot-portfolio"])
def test_seeded_learners_are_deterministic(name):
    kb = _planted()
    families = np.array(kb.families)
    train = kb.subset(families != families[0])
    cond = Condition(time_weight=1 / 64)
    a = get_strategy(name).rank(train, kb.query(0), cond, seed=7)
    b = get_strategy(name).rank(train, kb.query(0), cond, seed=7)
    assert a.order.tolist() == b.order.tolist()
    np.testing.assert_array_equal(a.score, b.score)


def test_time_weight_changes_the_target():
    """With P = 1 a configuration 1000x slower loses its lead (A3R, not success)."""
    kb = _planted(n_datasets=16, n_configs=6, noise=0.0)
    times = np.ones_like(kb.times)
    times[:, 0] = 1e3
    slow = KnowledgeBase(kb.datasets, kb.algorithms, kb.success, times, kb.families,
                         kb.n_instances, kb.metafeatures, kb.metafeature_time)
    for name in ("regression", "zero-shot-portfolio", "pairwise"):
        learner = get_strategy(name, **({} if name == "zero-shot-portfolio"
                                        else {"features": ("metafeatures",)}))
        at0 = learner.rank(slow, slow.query(0), Condition()).order
        at1 = learner.rank(slow, slow.query(0), Condition(time_weight=1)).order
        assert 0 in at0[:3].tolist() and at1[-1] == 0, name


@pytest.mark.parametrize("targets", [1, 3])
def test_unchecked_tree_fit_grows_the_checked_tree(targets):
    # the rankings' thousands of small trees skip sklearn's input checks: same tree
    from metaeval.recommend.learners._learners_forest import _fitted, _tree

    rng = np.random.default_rng(4)
    X = np.round(rng.normal(size=(40, 6)), 1)  # ties between rows
    y = rng.normal(size=(40, targets)) if targets > 1 else (rng.random(40) > 0.5) * 1.0
    w = rng.integers(0, 3, 40).astype(float)
    rows = w > 0
    query = rng.normal(size=(7, 6)).astype(np.float32)
    # the trees share one reseeded generator: a seed met again gives its tree again
    for seed in (0, 11, 0, 12345, 11):
        fast = _fitted(seed, X[rows], y[rows], w[rows], 2)
        checked = _tree(seed, 2).fit(X[rows], y[rows], sample_weight=w[rows])
        assert fast.get_params() == checked.get_params()
        np.testing.assert_array_equal(fast.tree_.feature, checked.tree_.feature)
        np.testing.assert_array_equal(fast.tree_.threshold, checked.tree_.threshold)
        np.testing.assert_array_equal(fast.apply(query), checked.apply(query))
        np.testing.assert_array_equal(fast.predict(query), checked.predict(query))
    # with 2 of 6 features tried per split the seed matters: seeds 0 and 11 differ
    assert not np.array_equal(_fitted(0, X[rows], y[rows], w[rows], 2).tree_.feature,
                              _fitted(11, X[rows], y[rows], w[rows], 2).tree_.feature)
    # missing values: the checked fit, which handles them
    X[0, 0] = np.nan
    fast = _fitted(0, X, y, np.ones(40))
    checked = _tree(0).fit(X, y, sample_weight=np.ones(40))
    np.testing.assert_array_equal(fast.predict(X), checked.predict(X))
