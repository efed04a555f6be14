"""``auto``'s vote (the default, ``combine="vote"``): its learners' Borda count, worked by
hand, its behaviour on synthetic knowledge bases, and how an ASlib evaluation charges
and credits it."""

from __future__ import annotations

import numpy as np
import pytest
from tests.test_recommend_learners import _planted

from metaeval.recommend import Condition, KnowledgeBase
from metaeval.recommend.learners._auto import Auto, _lower, borda
from metaeval.recommend.learners._learners_forest import ConfigurationRegression


def test_borda_by_hand():
    """Four algorithms (w, x, y, z), three voters on one dataset:

    - voter 0 orders x, w, z, y: positions w 1, x 0, y 3, z 2;
    - voter 1 orders w, x, y, z: positions w 0, x 1, y 2, z 3;
    - voter 2 orders y, x, w, z: positions w 2, x 1, y 0, z 3.

    Sums: w 3, x 2, y 5, z 8: the vote orders x, w, y, z whichever voter leads. Where
    sums tie, the lead voter's order decides."""
    orders = [np.array([[1, 0, 3, 2]]), np.array([[0, 1, 2, 3]]), np.array([[2, 1, 0, 3]])]
    for lead in range(3):
        assert borda(orders, lead).tolist() == [[1, 0, 2, 3]]
    # two voters disagreeing everywhere: every sum is 3, the lead's order
    tie = [np.array([[0, 1, 2, 3]]), np.array([[3, 2, 1, 0]])]
    assert borda(tie, 0).tolist() == [[0, 1, 2, 3]]
    assert borda(tie, 1).tolist() == [[3, 2, 1, 0]]
    # several datasets at once, each its own row
    many = [np.vstack([o, o[:, ::-1]]) for o in orders]
    got = borda(many, 0)
    assert got[0].tolist() == [1, 0, 2, 3]
    # each voter's order reversed: positions w 2, x 3, y 0, z 1; w 3, x 2, y 1, z 0;
    # w 1, x 2, y 3, z 0: sums w 6, x 7, y 4, z 1 -> z, y, w, x
    assert got[1].tolist() == [3, 2, 0, 1]


def test_leaving_the_vote_by_hand():
    """A candidate that reads nothing replaces the vote only when clearly lower. Six
    families where it is lower each time: the signed-rank p is 1/2**6 = 0.0156, below
    0.05 / 3 = 0.0167 (three such candidates, the best of them taken) but not below
    0.05 / 4 = 0.0125.
    Four families: 1/16 > 0.05. Every family tied: p = 1."""
    vote = np.full(6, 0.3)
    static = np.array([0.2, 0.1, 0.25, 0.0, 0.15, 0.05])
    sel = {}
    assert _lower(static, vote, "wilcoxon", 0.05, 1, sel)
    assert sel["p"] == pytest.approx(1 / 64)
    assert _lower(static, vote, "wilcoxon", 0.05, 3, {})
    assert not _lower(static, vote, "wilcoxon", 0.05, 4, {})
    assert not _lower(static[:4], vote[:4], "wilcoxon", 0.05, 1, {})
    sel = {}
    assert not _lower(vote, vote, "wilcoxon", 0.05, 1, sel) and sel["p"] == 1.0
    # the margin: differences mean 0.175, sd 0.0935, se 0.0382: 4.6 se > z(0.05 / 3)
    sel = {}
    assert _lower(static, vote, "margin", 0.05, 3, sel)
    assert sel["margin"] == pytest.approx(2.128, abs=1e-3)


def test_the_vote_on_a_planted_knowledge_base():
    """Planted: a meta-feature decides the winner; every learner finds it, and the vote
    of the learners is kept. Its order of a new dataset is the Borda count of the
    learners' orders truncated at 2 (``top=None``: the full count), each as fitted alone
    with the same seed."""
    kb = _planted()
    fitted = Auto().fit(kb, Condition(), seed=1)
    sel = fitted.selection_
    assert sel["combine"] == "vote"
    assert sel["voters"] == ["knn-metafeatures", "cost-landmarking", "regression",
                             "pairwise"]
    assert sel["strategy"] == "+".join(sel["voters"])
    assert sel["inner"][sel["strategy"]] < sel["inner"]["single-best"]
    assert sel["best_static"] in ("single-best", "zero-shot-portfolio", "average-ranking")
    assert sel["p"] > 0.5  # the best static candidate is not lower than the vote
    vote = fitted.chosen
    parts = [s.fit(kb, Condition(), seed=1) for s in Auto().voters(Auto().strategies(kb))]
    queries = [kb.query(i) for i in range(4)]
    orders = [np.array([r.order for r in p.rank_many(queries)]) for p in parts]
    lead = sel["voters"].index(sel["lead"])
    expected = borda(orders, lead, top=2)
    got = np.array([r.order for r in fitted.rank_many(queries)])
    np.testing.assert_array_equal(got, expected)
    full = Auto(top=None).fit(kb, Condition(), seed=1)
    assert full.selection_["lead"] == sel["lead"]
    np.testing.assert_array_equal(np.array([r.order for r in full.rank_many(queries)]),
                                  borda(orders, lead))
    assert not np.array_equal(borda(orders, lead), expected)  # the truncation matters
    np.testing.assert_array_equal(fitted.rank(queries[0]).order, expected[0])
    # it reads what its voters read, and pays each description once
    assert set(fitted.uses) == {"metafeatures", "landmarks"}
    assert vote.overhead(queries[0]) == pytest.approx(0.25 + 0.5)
    # the same figures on a refit
    again = Auto().fit(kb, Condition(), seed=1)
    np.testing.assert_array_equal(np.array([r.order for r in again.rank_many(queries)]),
                                  got)


def test_a_candidate_reading_nothing_replaces_the_vote_only_when_clearly_better():
    """Shuffled meta-features, P = 0: nothing to learn, the vote's inner loss@1 (0.0668)
    a little above the single best's (0.0637), not clearly (signed-rank p 0.48): the
    vote is kept, the burden of proof on the candidates that read nothing. When time
    counts (P = 1/64, the mean interval loss over the whole curve, the descriptions'
    time included), the zero-shot portfolio is lower than the vote on the families,
    clearly (p < 0.001 < 0.05 / 3), planted or shuffled: it replaces the vote, and the
    order is then the same for every dataset."""
    kb = _planted(shuffle=True)
    fitted = Auto(candidates=("single-best", "regression", "pairwise")).fit(
        kb, Condition(), seed=1)
    sel = fitted.selection_
    assert sel["strategy"] == "regression+pairwise"
    assert sel["inner"]["single-best"] < sel["inner"]["regression+pairwise"]
    assert 0.05 < sel["p"] < 0.95
    for shuffle in (False, True):
        timed = Auto().fit(_planted(shuffle=shuffle), Condition(time_weight=1 / 64), seed=1)
        sel = timed.selection_
        assert sel["criterion"] == "MIL"
        assert sel["strategy"] == "zero-shot-portfolio", sel
        assert sel["p"] < 0.05 / 3
        assert timed.uses in (None, ())
        q = kb.query(0)
        np.testing.assert_array_equal(timed.rank(q).order, timed.chosen.rank(q).order)


def test_one_voter_is_that_learner_and_choose_keeps_the_former_rule():
    """With one learner among the candidates the vote is that learner (its order, its
    name); ``combine="choose"`` is the former rule (one candidate, reported as
    ``best``)."""
    cheap = ("single-best", "average-ranking", "regression")
    kb = _planted()
    vote = Auto(candidates=cheap).fit(kb, Condition(), seed=1)
    assert vote.selection_["strategy"] == "regression"
    alone = ConfigurationRegression().fit(kb, Condition(), seed=1)
    q = kb.query(3)
    np.testing.assert_array_equal(vote.rank(q).order, alone.rank(q).order)
    chosen = Auto(candidates=cheap, combine="choose").fit(kb, Condition(), seed=1)
    assert chosen.selection_["strategy"] == "regression" and "best" in chosen.selection_
    assert "combine='choose'" in repr(Auto(combine="choose"))
    assert "combine" not in repr(Auto())
    with pytest.raises(ValueError, match="combine must be one of"):
        Auto(combine="stack")


def test_regression_votes_twice_given_a_cost_ceiling():
    """With a cost ceiling (an ASlib runtime scenario) ``regression`` votes on the log
    cost and on the linear scale; without one, once."""
    auto = Auto(params={"regression": {"cost_ceiling": 50.0}})
    kb = _planted()
    names = [(v.name, getattr(v, "scale", None)) for v in auto.voters(auto.strategies(kb))]
    assert ("regression", "log") in names and ("regression", "linear") in names
    plain = Auto()
    assert [v.name for v in plain.voters(plain.strategies(kb))].count("regression") == 1
    with pytest.raises(ValueError, match="scale must be one of"):
        ConfigurationRegression(scale="sqrt")
    with pytest.raises(ValueError, match="scale='linear' needs cost_ceiling"):
        ConfigurationRegression(scale="linear")
    assert "scale='linear'" in repr(ConfigurationRegression(cost_ceiling=5.0,
                                                            scale="linear"))


def test_the_linear_scale_learns_the_success_over_the_ceiling():
    """Runtimes 1 and 9 s (A) and 5 s (B) under a ceiling of 100: the linear target is
    (100 - runtime) / 100: 0.99, 0.91 and 0.95; the log one -log(runtime)."""
    kb = KnowledgeBase(["d1", "d2"], ["A", "B"], [[99.0, 95.0], [91.0, 95.0]],
                       [[1.0, 5.0], [9.0, 5.0]])
    lin = ConfigurationRegression(cost_ceiling=100.0, scale="linear").target(kb, Condition())
    np.testing.assert_allclose(lin, [[0.99, 0.95], [0.91, 0.95]])
    log = ConfigurationRegression(cost_ceiling=100.0).target(kb, Condition())
    np.testing.assert_allclose(log, -np.log([[1.0, 5.0], [9.0, 5.0]]))


def test_the_vote_reuses_the_orders_its_prefitted_voters_gave_the_same_queries():
    """An evaluation's fold ranks its held-out datasets with each strategy, then with
    auto: the vote's prefitted voters are not asked again for the same list of queries
    (their orders depend on the fitted voter and the queries only), and the vote's
    orders are those it gives without that memory."""
    from metaeval.recommend.learners._registry import get_strategy

    kb = _planted()
    train, queries = kb.subset(np.arange(32) >= 4), [kb.query(i) for i in range(4)]
    condition = Condition()
    plain = Auto().fit(train, condition, seed=3).rank_many(list(queries))
    cache, calls = {}, []
    for name in ("knn-metafeatures", "regression", "pairwise"):
        fitted = get_strategy(name).fit(train, condition, seed=3)

        def counted(qs, fitted=fitted, name=name):
            calls.append(name)
            return type(fitted).rank_many(fitted, qs)

        fitted.rank_many = counted
        first = fitted.ranked(queries)
        assert calls == [name]
        again = fitted.ranked(list(queries))  # the same queries, in another list
        assert calls == [name]  # not ranked again
        assert all(a is b for a, b in zip(again, first, strict=True))
        changed = list(queries)
        changed[0] = kb.query(5)
        fitted.ranked(changed)  # a query replaced: ranked anew
        assert calls == [name, name]
        queries.append(kb.query(6))  # the list changed in place: ranked anew
        fitted.ranked(queries)
        assert calls == [name] * 3
        queries.pop()
        fitted.ranked(queries)  # the fold's queries, remembered for the vote
        calls.clear()
        cache[repr(get_strategy(name))] = fitted
    auto = Auto().fit(train, condition, seed=3, prefitted=cache)
    parts = auto.chosen.parts  # the vote, of the prefitted voters
    assert {id(p) for p in parts} >= {id(f) for f in cache.values()}
    got = auto.ranked(queries)
    assert calls == []  # every voter's orders remembered
    for a, b in zip(got, plain, strict=True):
        np.testing.assert_array_equal(a.order, b.order)
        np.testing.assert_array_equal(a.score, b.score)
