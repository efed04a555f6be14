"""Fit once, rank many: the fitted selectors give the per-query orders of a fit per query,
evaluation fits once per held-out family, and reads an archive with its own imputation."""

from __future__ import annotations

import numpy as np
import pytest
from tests.test_recommend_learners import _planted

import metaeval.recommend.evaluation._evaluate as evaluate_module
from metaeval.recommend import (
    STRATEGIES,
    Condition,
    KnowledgeBase,
    SingleBest,
    evaluate_recommenders,
    get_strategy,
    load_knowledge,
)
from metaeval.recommend.learners._strategies import Fitted

STATIC = [n for n in STRATEGIES if n not in ("oracle", "random")]


@pytest.fixture(scope="module")
def planted():
    return _planted(n_datasets=14, n_configs=6)


@pytest.mark.parametrize("name", STATIC)
def test_one_fit_ranks_every_query_as_a_fit_per_query_does(planted, name):
    """Fitted once on the training datasets, each new dataset gets the order (and
    scores) that a fit made together with it (``rank(train, query, ...)``) gives."""
    kb = planted
    train = kb.subset(np.arange(len(kb.datasets)) >= 4)
    queries = [kb.query(i) for i in range(4)]
    cond = Condition(time_weight=1 / 64)
    fitted = get_strategy(name).fit(train, cond, seed=5)
    assert isinstance(fitted, Fitted) and fitted.name == name
    together = fitted.rank_many(queries)
    for q, r in zip(queries, together, strict=True):
        alone = get_strategy(name).rank(train, q, cond, seed=5)
        one = fitted.rank(q)
        np.testing.assert_array_equal(r.order, alone.order)
        np.testing.assert_array_equal(one.order, alone.order)
        np.testing.assert_array_equal(np.nan_to_num(r.score, nan=-1.0),
                                      np.nan_to_num(alone.score, nan=-1.0))
        assert sorted(r.order.tolist()) == list(range(len(kb.algorithms)))


def test_evaluation_orders_are_those_of_one_fit_per_family(planted, monkeypatch):
    """Every held-out dataset of a family is ranked by the one fit on the other
    families, seeded by the family's first dataset, and fit is called once per family."""
    kb = planted
    calls = []
    small = {"candidates": (3,), "trees": (8,)}
    real_fit = type(get_strategy("pairwise")).fit

    def counting(self, knowledge, condition=None, *, seed=0):
        calls.append((knowledge.datasets, seed))
        return real_fit(self, knowledge, condition, seed=seed)

    monkeypatch.setattr(type(get_strategy("pairwise")), "fit", counting)
    ev = evaluate_recommenders(kb, strategies=[get_strategy("pairwise", **small)], n_boot=2,
                               compare=False, seed=3)
    families = np.array(kb.families)
    assert len(calls) == len(set(kb.families))
    monkeypatch.undo()
    first = ev.curves[ev.curves["step"] == 1].set_index("dataset")["algorithm"]
    for i, name in enumerate(kb.datasets[:6]):  # three families of two datasets
        lead = int(np.flatnonzero(families == families[i])[0])
        train = kb.subset(families != families[i])
        fitted = get_strategy("pairwise", **small).fit(train, kb.condition,
                                                       seed=evaluate_module._seed(3, lead, 0))
        assert kb.algorithms[fitted.rank(kb.query(i)).order[0]] == first[name]


class _Recording(SingleBest):
    name = "recording"
    trained: list = []

    def fit(self, knowledge, condition=None, *, seed=0):
        _Recording.trained.append(knowledge)
        return super().fit(knowledge, condition, seed=seed)


def test_an_archive_is_evaluated_directly_with_training_medians_for_failed_times():
    """``evaluate_recommenders(load_knowledge(), ...)`` works, and a failed cell's time is
    the median over the *training* datasets' recorded times: the held-out dataset's own
    time of that configuration never enters it."""
    archive = load_knowledge()
    times = np.asarray(archive.times["cpu"], dtype=np.float64)
    bad = ~(times > 0)
    assert bad.any()
    # the archive's knowledge base marks the cells it imputed (the CLI evaluates that)
    np.testing.assert_array_equal(archive.knowledge_base(Condition()).imputed_times, bad)
    _Recording.trained = []
    evaluate_recommenders(archive, Condition(), strategies=[_Recording()], n_boot=2,
                          compare=False)
    families = np.array(archive.families)
    checked = 0
    for train in _Recording.trained:
        mask = np.isin(np.array(archive.datasets), train.datasets)
        held = ~mask
        for j in np.flatnonzero(bad.any(axis=0)):
            if not (bad[mask, j].any() and (~bad[held, j]).any()):
                continue  # no failed training cell, or no recorded held-out time
            expected = np.median(times[mask & ~bad[:, j], j])
            everywhere = np.median(times[~bad[:, j], j])
            got = train.times[bad[mask, j], j]
            np.testing.assert_allclose(got, expected, rtol=1e-12)
            checked += expected != everywhere
    assert checked > 0
    assert len(_Recording.trained) == len(set(families))


def test_a_knowledge_base_marks_what_it_imputed_and_keeps_it_in_subsets():
    kb = KnowledgeBase(["a", "b", "c"], ["X", "Y"], [[.9, .8]] * 3, [[1, 2], [3, 4], [5, 6]],
                       imputed_times=[[False, True], [False, False], [False, False]])
    assert kb.subset([True, False, True]).imputed_times.tolist() == [[False, True],
                                                                      [False, False]]
    fold = evaluate_module._impute_times(kb, np.array([False, True, True]))
    assert fold.times[0, 1] == 5.0  # the median of 4 and 6, not of 2, 4 and 6
    with pytest.raises(ValueError, match="imputed_times must have shape"):
        KnowledgeBase(["a", "b", "c"], ["X", "Y"], [[.9, .8]] * 3, [[1, 2]] * 3,
                      imputed_times=[[True, False]])
