"""The evaluation's protocol: the algorithm kept after each test is chosen on results
the score does not see; the random order's closed form with such a choice; every
column in the JSON; figures that do not depend on the machine's summation order."""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval.recommend._curves import (
    kept,
    log_widths,
    loss_curve,
    random_loss_at,
    random_losses,
)

_values = st.lists(st.sampled_from([0.5, 0.6, 0.7, 0.8, 0.9]), min_size=1, max_size=5)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_kept_is_the_best_so_far_by_the_chooser_earliest_on_ties(data):
    chooser = data.draw(_values)
    n = len(chooser)
    order = data.draw(st.permutations(range(n)))
    got = kept(order, chooser).tolist()
    for k in range(1, n + 1):
        tested = order[:k]
        best = max(chooser[j] for j in tested)
        assert got[k - 1] == next(j for j in tested if chooser[j] == best)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_kept_of_many_orders_is_each_order_s_best_so_far(data):
    """Several orders at once (the random baseline's thousands), negative values, and
    ties, also of values one bit apart."""
    n = data.draw(st.integers(1, 7))
    chooser = data.draw(st.lists(st.sampled_from([-1.0, 0.0, 0.3, 0.3 + 1e-16, 2.0]),
                                 min_size=n, max_size=n))
    orders = np.array([data.draw(st.permutations(range(n))) for _ in range(4)])
    got = kept(orders, chooser)
    assert got.shape == orders.shape
    for order, row in zip(orders.tolist(), got.tolist(), strict=True):
        best = order[0]
        for k, j in enumerate(order):
            if chooser[j] > chooser[best]:
                best = j
            assert row[k] == best


@settings(max_examples=60, deadline=None)
@given(elapsed=st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0, 100.0, math.inf]),
                        min_size=1, max_size=6).map(sorted),
       time_range=st.sampled_from([(0.5, 3.0), (1.0, 100.0), (0.1, 1.0)]))
def test_log_widths_are_each_step_s_share_of_the_log_range(elapsed, time_range):
    """Step 0 holds from 0 to the first completion, step k from the k-th to the next,
    the last to infinity; each width is that interval's within [lo, hi] on a log axis."""
    lo, hi = time_range
    got = log_widths(np.array([elapsed, elapsed]), time_range)
    bounds = [0.0, *elapsed, math.inf]
    for k in range(len(bounds) - 1):
        a, b = (min(max(t, lo), hi) for t in (bounds[k], bounds[k + 1]))
        assert math.isclose(got[0, k], max(math.log(b) - math.log(a), 0.0), abs_tol=1e-12)
    assert got[0].tolist() == got[1].tolist()
    assert math.isclose(got[0].sum(), math.log(hi / lo), rel_tol=1e-12)


@settings(max_examples=100, deadline=None)
@given(success=st.lists(st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.7, 1234.5678, 12000.0]),
                        min_size=1, max_size=40),
       data=st.data())
def test_random_losses_are_each_k_s_closed_form_to_the_last_bit(success, data):
    """All k at once, with ties of up to 40 (sums of more than eight weights, which
    NumPy's pairwise summation would add in another order), with and without a chooser."""
    chooser = data.draw(st.none() | st.lists(st.sampled_from([0.0, 0.5, 3.0]),
                                             min_size=len(success), max_size=len(success)))
    got = random_losses(success, chooser)
    want = [random_loss_at(success, k, chooser) for k in range(1, len(success) + 1)]
    assert got.tolist() == want


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_random_loss_with_a_chooser_is_the_mean_over_every_order(data):
    """Brute force: every permutation of up to 5 algorithms, ties in the chooser
    included (the earliest tested of a tied block is kept)."""
    success = data.draw(_values)
    n = len(success)
    chooser = data.draw(st.lists(st.sampled_from([0.5, 0.6, 0.7]), min_size=n, max_size=n))
    orders = np.array(list(itertools.permutations(range(n))))
    loss, _ = loss_curve(success, np.ones(n), orders, chooser=chooser)
    for k in range(1, n + 1):
        assert math.isclose(random_loss_at(success, k, chooser), loss[:, k - 1].mean(),
                            abs_tol=1e-12)
        # chosen on the truth itself: the old closed form
        same, _ = loss_curve(success, np.ones(n), orders)
        assert math.isclose(random_loss_at(success, k), same[:, k - 1].mean(),
                            abs_tol=1e-12)


def test_collaborative_filtering_ignores_the_last_bits_of_its_svds(monkeypatch):
    """Another machine's BLAS kernels give SVDs that differ in the last bits (seen:
    scores 1e-14 apart between OpenBLAS's Haswell and Prescott kernels changed most trees
    of the forest, and the published figures by up to 1.8e-4). With every SVD perturbed
    so, the fitted model and its choices are the same."""
    from metaeval.recommend import CollaborativeFiltering, Condition, load_knowledge
    from metaeval.recommend.evaluation._scoring import HeldOut

    condition = Condition()
    kb = load_knowledge().knowledge_base(condition)
    held_out = [kb.datasets.index(n) for n in ("soybean-brown-spot", "abalone9-18")]
    train = kb.subset(np.isin(np.arange(len(kb.datasets)), held_out, invert=True))

    def fitted_and_picks():
        f = CollaborativeFiltering().fit(train, condition, seed=None)
        picks = []
        for i in held_out:
            for r in range(kb.n_repetitions):
                held = HeldOut(kb.repetitions[r, i], kb.times[i])
                f.run(kb.query(i), held.test)
                picks.append(held.tested[:10])
        return f, picks

    here, picks_here = fitted_and_picks()
    svd = np.linalg.svd
    rng = np.random.default_rng(0)

    def elsewhere(a, *args, **kwargs):
        u, s, vt = svd(a, *args, **kwargs)
        return u, s, vt * (1 + 1e-13 * rng.standard_normal(vt.shape))

    monkeypatch.setattr(np.linalg, "svd", elsewhere)
    there, picks_there = fitted_and_picks()
    assert here.selection_["params"] == there.selection_["params"]
    np.testing.assert_array_equal(here._forest.train_pred, there._forest.train_pred)
    assert picks_here == picks_there


# ------------------------------------------------------------------ fair baselines
def _timed_kb():
    from metaeval.recommend import KnowledgeBase

    # A: best on average, slow (100 s); B: second, fast (1 s); C: worst, 10 s
    success = [[.90, .85, .70], [.88, .86, .70], [.92, .80, .71], [.90, .84, .69]]
    times = [[100.0, 1.0, 10.0]] * 4
    return KnowledgeBase(["d1", "d2", "d3", "d4"], ["A", "B", "C"], success, times,
                         families=["f1", "f2", "f3", "f4"])


def test_time_aware_single_best_by_mean_log_a3r():
    """Mean log success, by hand: A -.1055, B -.1777, C -.3567. At P = 1/64, log A3R =
    log SR - P log T: A -.1055 - ln(100)/64 = -.1774, B -.1777 - 0, C -.3567 - .0360 =
    -.3927 (A still first, by .0003); at P = 1/16: A -.1055 - .2878 = -.3933 below B
    -.1777: B first, then A before C (-.3567 - .1439 = -.5006)."""
    from metaeval.recommend import Condition, SingleBestA3R

    kb = _timed_kb()
    order = {p: [kb.algorithms[j] for j in
                 SingleBestA3R().fit(kb, Condition(time_weight=p)).rank(kb.query(0)).order]
             for p in (0, 1 / 64, 1 / 16)}
    assert order == {0: ["A", "B", "C"], 1 / 64: ["A", "B", "C"], 1 / 16: ["B", "A", "C"]}


def test_fast_first_puts_the_best_fast_configuration_first():
    """Shares of the pool's time (111 s): A .90, B .009, C .09. Only B is at most 1 %:
    B first, then A and C in the single best's order; with share 0.1, C is fast too, and
    B, the better of B and C, is first."""
    from metaeval.recommend import Condition, FastFirst

    kb = _timed_kb()
    for share, expected in ((0.01, ["B", "A", "C"]), (0.1, ["B", "A", "C"]),
                            (0.001, ["A", "B", "C"])):
        ranked = FastFirst(share).fit(kb, Condition()).rank(kb.query(0)).order
        assert [kb.algorithms[j] for j in ranked] == expected


def test_time_counts_primary_comparison_is_against_the_time_aware_baseline():
    from metaeval.recommend import Condition, evaluate_recommenders

    ev = evaluate_recommenders(_timed_kb(), Condition(time_weight=1 / 16),
                               strategies=["auto", "single-best", "single-best-a3r",
                                           "fast-first"], n_boot=20)
    primary = ev.comparisons[ev.comparisons["family"] == "primary"]
    assert sorted(zip(primary["a"], primary["b"], primary["measure"], strict=True)) == [
        ("auto", "single-best-a3r", "loss_at_1"), ("auto", "single-best-a3r", "mil")]
    against = set(zip(ev.comparisons["a"], ev.comparisons["b"], strict=True))
    assert {("auto", "single-best"), ("auto", "fast-first"),
            ("single-best-a3r", "single-best")} <= against
