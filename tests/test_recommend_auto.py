"""``auto``: its choice on training data (the single best unless another candidate beats
it clearly; ``combine="choose"``, the default until the vote, which
test_recommend_auto_vote.py tests), its report, the default of ``recommend``, and the
advice sentence from the stored evaluations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.test_recommend_learners import _planted

from metaeval.recommend import Condition, KnowledgeBase, evaluate_recommenders, recommend
from metaeval.recommend._advice import advice
from metaeval.recommend.learners._auto import Auto
from metaeval.recommend.learners._learners import one_se_without_each, select_one_se


def test_one_se_rule_by_hand():
    """Four families, one dataset each. Losses: simple (0.10, 0.10, 0.10, 0.10), mean 0.10;
    complex (0.02, 0.18, 0.02, 0.10), mean 0.08. Paired differences simple - complex:
    (0.08, -0.08, 0.08, 0), mean 0.02, sd 0.0757, se 0.0379 > 0.02: the simple setting."""
    codes = np.arange(4)
    losses = {"simple": np.full(4, 0.10), "complex": np.array([0.02, 0.18, 0.02, 0.10])}
    key, means, se = select_one_se(losses, codes, 4)
    assert key == "simple"
    assert means["complex"] == pytest.approx(0.08)
    assert se["simple"] == pytest.approx(np.std([0.08, -0.08, 0.08, 0.0], ddof=1) / 2)
    # a clear gain (every family 0.08 better): the complex setting
    losses["complex"] = np.full(4, 0.02)
    assert select_one_se(losses, codes, 4)[0] == "complex"


def test_nested_one_se_rule_by_hand():
    """The same losses: with all four families the rule keeps ``simple``; without family
    1 (the one where ``complex`` loses) ``complex`` is 0.08 better on every other
    family but one that ties: differences (0.08, 0.08, 0), mean 0.0533, se 0.0267 <
    0.0533: ``complex``. Without family 0, 2 or 3 it is ``simple`` again (differences
    (-0.08, 0.08, 0): mean 0). Family 1's inner order is thus judged with ``complex``,
    chosen without it."""
    codes = np.arange(4)
    losses = {"simple": np.full(4, 0.10), "complex": np.array([0.02, 0.18, 0.02, 0.10])}
    np.testing.assert_array_equal(one_se_without_each(losses, codes, 4), [0, 1, 0, 0])
    # one setting: nothing to choose
    np.testing.assert_array_equal(one_se_without_each({"a": losses["simple"]}, codes, 4),
                                  [0, 0, 0, 0])


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 7), st.integers(1, 4), st.data())
def test_nested_one_se_rule_is_the_rule_on_the_other_families(n_families, n_keys, data):
    """Tied losses (a few levels), families of one to three datasets: each family's
    nested choice is :func:`select_one_se` on the datasets of the other families."""
    sizes = data.draw(st.lists(st.integers(1, 3), min_size=n_families, max_size=n_families))
    codes = np.repeat(np.arange(n_families), sizes)
    levels = st.sampled_from([0.0, 0.05, 0.1, 0.2])
    losses = {f"s{j}": np.array(data.draw(st.lists(levels, min_size=codes.size,
                                                    max_size=codes.size)))
              for j in range(n_keys)}
    got = one_se_without_each(losses, codes, n_families)
    keys = list(losses)
    for f in range(n_families):
        out = codes != f
        recoded = np.unique(codes[out], return_inverse=True)[1]
        key = select_one_se({k: v[out] for k, v in losses.items()}, recoded,
                            n_families - 1)[0] if n_keys > 1 else keys[0]
        assert keys[got[f]] == key


CHEAP = ("single-best", "average-ranking", "regression")


def test_auto_leaves_the_single_best_only_when_the_training_data_say_so():
    """Planted: a meta-feature decides the winner, so a learner clearly beats the single
    best on the inner folds; shuffled meta-features: nothing to learn, the single best."""
    planted = Auto(candidates=CHEAP, combine="choose").fit(_planted(), Condition(),
                                                           seed=1)
    assert planted.selection_["strategy"] == "regression"
    assert planted.selection_["criterion"] == "loss@1"
    shuffled = Auto(candidates=CHEAP, combine="choose").fit(_planted(shuffle=True),
                                                            Condition(), seed=1)
    assert shuffled.selection_["strategy"] == "single-best"
    # the chosen strategy ranks: auto's order is the fitted candidate's
    kb = _planted()
    q = kb.query(0)
    np.testing.assert_array_equal(planted.rank(q).order, planted.chosen.rank(q).order)


def test_auto_judges_the_whole_curve_when_time_counts():
    fitted = Auto(candidates=("single-best", "average-ranking")).fit(
        _planted(n_datasets=12), Condition(time_weight=1 / 64))
    assert fitted.selection_["criterion"] == "MIL"
    assert set(fitted.selection_["inner"]) == {"single-best", "average-ranking"}


def test_auto_is_evaluated_with_its_choices_reported():
    kb = _planted(n_datasets=10, n_configs=5)
    simple = ("single-best", "average-ranking")
    ev = evaluate_recommenders(kb, strategies=[Auto(candidates=simple), "single-best"],
                               n_boot=5, n_random=2)
    document = ev.to_json()
    assert "auto" in document["strategies"]
    chosen = document["strategies"]["auto"]["chosen"]
    assert set(chosen) <= set(simple) and sum(chosen.values()) == len(kb.datasets)
    primary = ev.comparisons[ev.comparisons["family"] == "primary"]
    assert set(zip(primary["a"], primary["measure"], strict=True)) == {("auto", "loss_at_1")}


def test_recommend_uses_auto_by_default_and_reports_its_choice():
    from metaeval.datasets import load_dataset

    kb = KnowledgeBase(["d1", "d2", "d3", "d4"], ["A", "B"],
                       [[.9, .8], [.9, .7], [.8, .9], [.9, .8]], [[1.0, 2.0]] * 4)
    rec = recommend(load_dataset("labor"), kb)
    assert rec.strategy == "auto"
    assert rec.selection["strategy"] in ("single-best", "zero-shot-portfolio",
                                         "average-ranking")
    assert any(n.startswith("auto chose ") for n in rec.notes)
    # no meta-features: three candidates, two besides the single best
    assert len(rec.selection["inner"]) == 3
    assert any("lower by Wilcoxon's signed-rank test at 0.05 / 2" in n
               for n in rec.notes), rec.notes
    # not the shipped knowledge base: nothing stored to quote, and said so
    assert rec.advice.startswith("No stored evaluation describes this knowledge base: "
                                 "nothing is quoted")
    margin = recommend(load_dataset("labor"), kb, strategy=Auto(test="margin"))
    assert any("better by 1.96 standard errors" in n for n in margin.notes), margin.notes


def _document():
    def entry(condition, auto, sb, supported):
        return {"condition": condition.to_dict(), "label": condition.label,
                "n_datasets": 51, "n_families": 43, "clock": "cpu",
                "strategies": {"auto": {"loss_at_1": [auto, auto - .004, auto + .004],
                                        "loss_at_3": [auto / 2, auto / 3, auto]},
                               "single-best": {"loss_at_1": [sb, sb - .004, sb + .004],
                                               "loss_at_3": [sb / 2, sb / 3, sb]}},
                "versus_single_best": {"auto": {"loss_at_1": {"supported": supported,
                                                              "p_holm": 0.01}}}}

    beta = Condition(measure="hardness:score-driven", cost_beta=(2, 8))
    return {"conditions": [entry(Condition(), 0.0150, 0.0152, False),
                           entry(Condition(time_weight=1 / 64), 0.0160, 0.0152, False),
                           entry(beta, 0.0120, 0.0153, True)]}


def test_advice_quotes_only_the_same_condition():
    doc = _document()
    text = advice("auto", Condition(measure="hardness:score-driven", cost_beta=(2, 8)), doc)
    assert "0.0120 [0.0080, 0.0160]" in text and "0.0153 [0.0113, 0.0193]" in text
    assert "first-pick loss lower with evidence (Holm p = 0.01)" in text
    assert text.count(".") >= 1 and "\n" not in text
    # another P, or another hardness measure: said, nothing quoted (no nearest one)
    for other in (Condition(time_weight=1 / 32),
                  Condition(measure="hardness:rate-driven", cost=0.3)):
        text = advice("auto", other, doc)
        assert text.startswith(f"No stored evaluation matches {other.label} with CPU time")
        assert "0.01" not in text
    assert "not shown to be lower" in advice("auto", Condition(), doc)
    # where time counts, the MIL comparison too
    timed = doc["conditions"][1]
    timed["strategies"]["auto"]["mil"] = [0.0053, 0.0037, 0.0069]
    timed["strategies"]["single-best"]["mil"] = [0.0832, 0.0683, 0.0957]
    timed["versus_single_best"]["auto"]["mil"] = {"supported": True, "p_holm": 0.0004}
    text = advice("auto", Condition(time_weight=1 / 64), doc)
    assert ("MIL) was 0.0053 [0.0037, 0.0069] against 0.0832 [0.0683, 0.0957], MIL lower "
            "with evidence (Holm p = 0.0004)") in text
    assert advice("auto", Condition(), {"conditions": []}).startswith(
        "No stored evaluation describes this knowledge base")


def test_the_margin_is_a_bonferroni_corrected_one_sided_z():
    """z = Phi^-1(1 - alpha / m) for the m candidates other than the single best: 1.96
    for two others at 0.05 (as scipy's normal quantile gives), 2.39 for the six others
    of the default candidates; None gives the one-standard-error rule."""
    from scipy.stats import norm

    assert Auto().margin(3) == pytest.approx(1.959964, abs=1e-6)
    for m in (2, 4, 7, 10):
        for alpha in (0.01, 0.05, 0.2):
            assert Auto(alpha=alpha).margin(m) == pytest.approx(norm.ppf(1 - alpha / (m - 1)))
    assert Auto(alpha=None, test="margin").margin(7) == 1.0
    for bad in (0, 1, -0.1, 1.5, True, "0.05"):
        with pytest.raises(ValueError, match="alpha must be a number in"):
            Auto(alpha=bad)


def test_choose_by_hand_one_se_and_the_corrected_margin_disagree():
    """Four families. single-best 0.10 everywhere; a: (0.06, 0.10, 0.06, 0.10), mean 0.08;
    b: worse everywhere. Differences single-best - a: (0.04, 0, 0.04, 0), mean 0.02, sd
    0.0231, se 0.01155: 1.73 standard errors. One SE: a. z = 1.96 (two others): the single
    best."""
    from metaeval.recommend.learners._auto import choose

    values = [[.10] * 4, [.06, .10, .06, .10], [.2] * 4]
    names = ["single-best", "a", "b"]
    chosen, best, mean, se = choose(names, values, 1.0)
    assert (chosen, best) == (1, 1)
    assert mean[0] - mean[1] == pytest.approx(0.02)
    assert se[0] == pytest.approx(np.std([0.04, 0, 0.04, 0], ddof=1) / 2)
    assert (mean[0] - mean[1]) / se[0] == pytest.approx(np.sqrt(3))
    assert choose(names, values, Auto().margin(3))[0] == 0
    # the planted structure is clear enough for the corrected margin too
    planted = Auto(candidates=CHEAP, test="margin", combine="choose").fit(
        _planted(), Condition(), seed=1)
    assert planted.selection_["strategy"] == "regression"
    assert planted.selection_["margin"] == pytest.approx(Auto().margin(3))


def test_regression_inner_orders_use_the_setting_chosen_without_the_family():
    """The blend grid changes no forest (the same draws), so each training dataset's
    inner order under the grid is the order a one-setting fit gives with the blend the
    rule chose without its family; some families choose differently here."""
    from metaeval.recommend.learners._learners_forest import ConfigurationRegression

    kb = _planted(noise=0.08, seed=1)
    grid = ConfigurationRegression(blend=(0.0, 0.5, 1.0)).fit(kb, Condition(), seed=3)
    alone = {b: ConfigurationRegression(blend=(b,)).fit(kb, Condition(), seed=3)
             for b in (0.0, 0.5, 1.0)}
    settings_ = grid._inner_settings
    for i, key in enumerate(settings_):
        np.testing.assert_array_equal(grid.inner_orders_[i], alone[key[2]].inner_orders_[i])
    nested = grid.selection_["nested"]
    assert sum(nested.values()) == len(set(kb.families))
    assert len(nested) >= 2  # 5 families judged with blend 0, 23 with the chosen 0.5
    assert grid.selection_["params"]["blend"] == 0.5
    assert set(nested) <= set(grid.selection_["inner_loss"])



def test_collaborative_inner_orders_leave_each_family_out():
    """With blend 0 the model's prior is the training means: each training dataset's inner
    order is then the order of the log A3R column means of the datasets outside its
    family (computed here directly), whatever the rank. With a grid, each dataset's inner
    order is a one-setting fit's under the setting the one-SE rule chose without its
    family (the same forest: the same draws), and its first pick is the one scored."""
    from metaeval.recommend.learners._learners import a3r_target, family_codes, first_pick_loss
    from metaeval.recommend.learners._learners_cf import CollaborativeFiltering

    kb = _planted(noise=0.08, seed=1)
    condition = Condition()
    Y = a3r_target(kb, condition)
    codes, _ = family_codes(kb)
    means_only = CollaborativeFiltering(ranks=(2,), blend=(0.0,)).fit(kb, condition, seed=3)
    for i in range(len(codes)):
        outside = Y[codes != codes[i]].mean(axis=0)
        assert means_only.inner_orders_[i].tolist() == np.argsort(-outside,
                                                                  kind="stable").tolist()
    grid = CollaborativeFiltering(ranks=(1, 4), blend=(0.0, 1.0)).fit(kb, condition, seed=3)
    simple = [(r, 3, b) for b in (0.0, 1.0) for r in (1, 4)]  # simplest first
    alone = {key: CollaborativeFiltering(ranks=(key[0],), blend=(key[2],)).fit(
        kb, condition, seed=3) for key in simple}
    losses = {key: first_pick_loss(kb.success, alone[key].inner_orders_[:, 0])
              for key in simple}
    n_families = int(codes.max()) + 1
    for key in simple:  # the first pick of each setting's order is the one it was judged by
        per_family = np.bincount(codes, weights=losses[key]) / np.bincount(codes)
        assert per_family.mean() == pytest.approx(grid.selection_["inner_loss"][key])
    nested = one_se_without_each(losses, codes, n_families)[codes]
    for i, j in enumerate(nested):
        assert grid.inner_orders_[i].tolist() == alone[simple[j]].inner_orders_[i].tolist()
    assert select_one_se(losses, codes, n_families)[0] == (1, 3, 0.0)  # grid's choice
    assert len(set(nested.tolist())) == 2  # one family judged with blend 1, without it
    assert sum(grid.selection_["nested"].values()) == n_families


def _exact_signed_rank_p(diff):
    """One-sided p of Wilcoxon's signed-rank statistic by enumerating every sign of the
    ranks (distinct nonzero |differences|): the share of the 2**n sign patterns whose
    sum of positive ranks is at least the observed one."""
    import itertools

    diff = np.asarray(diff, dtype=np.float64)
    ranks = np.argsort(np.argsort(np.abs(diff))) + 1
    observed = ranks[diff > 0].sum()
    sums = [sum(r for r, s in zip(ranks, signs, strict=True) if s)
            for signs in itertools.product((False, True), repeat=diff.size)]
    return float(np.mean(np.array(sums) >= observed))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9), st.data())
def test_choose_by_ranks_is_the_exact_signed_rank_test(n, data):
    """On families whose differences to the single best are distinct and nonzero, the p
    ``auto`` reports is the exact one-sided signed-rank p counted over all 2**n sign
    patterns, and it leaves the single best iff p < alpha / m."""
    from metaeval.recommend.learners._auto import choose_by_ranks

    magnitudes = data.draw(st.lists(st.integers(1, 60), min_size=n, max_size=n,
                                    unique=True))
    signs = data.draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n))
    diff = np.array(magnitudes, dtype=np.float64) * signs / 100.0
    sb = np.full(n, 1.0)
    values = [sb, sb - diff, np.full(n, 5.0)]  # a's difference to the single best: diff
    alpha = data.draw(st.sampled_from([0.05, 0.2, 0.5]))
    chosen, p = choose_by_ranks(["single-best", "a", "b"], values, 1, alpha)
    expected = _exact_signed_rank_p(diff)
    assert p == pytest.approx(expected, abs=1e-12)
    assert chosen == (1 if expected < alpha / 2 else 0)


def test_ranks_see_a_candidate_that_a_few_huge_losses_hide_from_the_margin():
    """Twelve families: ``a`` is lower than the single best by 0.01 on ten, by 2.0 on one
    and higher by 1.9 on one (a timeout each way). Mean difference 0.0167, standard
    error 0.24: 0.07 standard errors, so the margin keeps the single best; ranks: a is
    lower on 11 of 12 families, the one it loses is not the largest, so the signed-rank
    test leaves the single best at alpha / 2 = 0.025."""
    from metaeval.recommend.learners._auto import choose, choose_by_ranks

    diff = np.array([0.01] * 10 + [2.0, -1.9])
    values = [np.full(12, 3.0), 3.0 - diff, np.full(12, 9.0)]
    names = ["single-best", "a", "b"]
    chosen, best, mean, se = choose(names, values, Auto().margin(3))
    assert (chosen, best) == (0, 1)
    assert (mean[0] - mean[1]) / se[0] < 0.1
    chosen, p = choose_by_ranks(names, values, best, 0.05)
    assert chosen == 1 and p < 0.025
    # and the other way: a lower on average by one huge family, higher on the rest
    worse = [np.full(12, 3.0), 3.0 - np.array([-0.01] * 11 + [5.0]), np.full(12, 9.0)]
    assert choose_by_ranks(names, worse, 1, 0.05)[0] == 0


def test_auto_with_the_rank_test_reports_it():
    """The rank test is the default; the margin is an option and reports no p."""
    planted = Auto(candidates=CHEAP, combine="choose").fit(_planted(), Condition(),
                                                           seed=1)
    assert planted.selection_["test"] == "wilcoxon"
    assert planted.selection_["strategy"] == "regression"
    assert 0 <= planted.selection_["p"] < 0.05 / (len(CHEAP) - 1)
    shuffled = Auto(candidates=CHEAP, combine="choose", test="wilcoxon").fit(
        _planted(shuffle=True), Condition(), seed=1)
    assert shuffled.selection_["strategy"] == "single-best"
    margin = Auto(candidates=CHEAP, combine="choose", test="margin").fit(
        _planted(), Condition(), seed=1)
    assert margin.selection_["test"] == "margin" and "p" not in margin.selection_
    assert margin.selection_["strategy"] == "regression"
    assert "test='margin'" in repr(Auto(test="margin")) and "test=" not in repr(Auto())
    with pytest.raises(ValueError, match="test must be one of"):
        Auto(test="t-test")
    with pytest.raises(ValueError, match="alpha must be a number.*test='margin'"):
        Auto(alpha=None)
    with pytest.raises(ValueError, match="names must include 'single-best'"):
        from metaeval.recommend.learners._auto import choose_by_ranks

        choose_by_ranks(["a", "b"], [[1.0, 2.0], [2.0, 3.0]], 0, 0.05)
    # without the single best among the candidates both tests keep the one-SE choice
    simple = ("average-ranking", "regression")
    for test in ("margin", "wilcoxon"):
        fitted = Auto(candidates=simple, test=test, combine="choose").fit(
            _planted(), Condition(), seed=1)
        assert "p" not in fitted.selection_
        assert fitted.selection_["strategy"] == Auto(candidates=simple, combine="choose").fit(
            _planted(), Condition(), seed=1).selection_["strategy"]
