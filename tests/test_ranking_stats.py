"""Tests of the statistical comparison over datasets (Demšar 2006, JMLR 7)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats

from metaeval.ranking import (
    critical_difference_data,
    friedman_test,
    holm_adjust,
    nemenyi_critical_difference,
    nemenyi_critical_value,
    wilcoxon_holm,
)


def long_frame(matrix, algorithms=None, col="value"):
    matrix = np.asarray(matrix, dtype=float)
    d, k = matrix.shape
    algorithms = algorithms or [f"a{j}" for j in range(k)]
    return pd.DataFrame(
        {
            "dataset": np.repeat([f"d{i:02d}" for i in range(d)], k),
            "algorithm": np.tile(algorithms, d),
            col: matrix.reshape(-1),
        }
    )


# Ranks of 4 algorithms on 14 datasets whose average ranks are those of Demšar's
# worked example (sec. 3.2.2): 3.143, 2.000, 2.893, 1.964, i.e. rank sums 44, 28,
# 40.5, 27.5 (the last dataset ties algorithms 3 and 4 at 2.5).
DEMSAR_RANKS = np.array(
    [
        [4, 2, 3, 1],
        [4, 1, 3, 2],
        [4, 2, 1, 3],
        [3, 1, 4, 2],
        [2, 4, 3, 1],
        [1, 2, 4, 3],
        [3, 4, 1, 2],
        [3, 1, 2, 4],
        [3, 2, 4, 1],
        [3, 4, 2, 1],
        [4, 1, 3, 2],
        [3, 2, 4, 1],
        [3, 1, 4, 2],
        [4, 1, 2.5, 2.5],
    ]
)
DEMSAR_ALGS = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]


def demsar_frame():
    return long_frame(5.0 - DEMSAR_RANKS, DEMSAR_ALGS)  # higher value = better rank


# --------------------------------------------------------------------------- Friedman


def test_friedman_reproduces_demsar_example():
    np.testing.assert_allclose(DEMSAR_RANKS.sum(axis=0), [44, 28, 40.5, 27.5])
    # chi2_F = 12*14/(4*5) * [(44^2 + 28^2 + 40.5^2 + 27.5^2)/14^2 - 4*5^2/4]
    #        = 8.4 * (26.1046 - 25) = 9.28;  F_F = 13*9.28 / (14*3 - 9.28) = 3.69
    res = friedman_test(demsar_frame(), tie_correction=False)
    assert res.chi2 == pytest.approx(8.4 * (5116.5 / 196 - 25))
    assert round(res.chi2, 2) == 9.28
    assert round(res.f_statistic, 2) == 3.69
    assert res.chi2_df == 3 and res.f_df == (3, 39)
    assert res.n_algorithms == 4 and res.n_datasets == 14
    # Demšar: the critical value of F(3, 39) at 0.05 is 2.85, so the null is rejected
    assert stats.f.ppf(0.95, 3, 39) == pytest.approx(2.85, abs=0.005)
    assert res.f_pvalue < 0.05
    assert res.p_value == res.f_pvalue  # the recommended (Iman-Davenport) p-value
    # best first: C4.5+m+cf (1.964), C4.5+m (2.000), C4.5+cf (2.893), C4.5 (3.143)
    ranks = res.average_ranks
    assert ranks["algorithm"].tolist() == ["C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5"]
    np.testing.assert_allclose(ranks["score"], [27.5 / 14, 2.0, 40.5 / 14, 44 / 14])
    # with the tie correction: one tie of 2 -> factor 1 - (8 - 2)/(14*4*15)
    corrected = friedman_test(demsar_frame())
    assert corrected.chi2 == pytest.approx(res.chi2 / (1 - 6 / 840))


def test_friedman_matches_scipy_on_demsar_example():
    ref = stats.friedmanchisquare(*(5.0 - DEMSAR_RANKS).T)
    res = friedman_test(demsar_frame())
    assert res.chi2 == pytest.approx(ref.statistic)
    assert res.chi2_pvalue == pytest.approx(ref.pvalue)


@settings(max_examples=60, deadline=None)
@given(
    values=st.tuples(st.integers(2, 8), st.integers(3, 6)).flatmap(
        lambda s: hnp.arrays(np.int64, s, elements=st.integers(0, 4))
    )
)
def test_friedman_chi2_matches_scipy_with_ties(values):
    # integer values make ties frequent; scipy applies the same tie correction
    if np.all(values == values[:, :1]):
        return  # every dataset ties all algorithms: scipy's statistic is 0/0
    ref = stats.friedmanchisquare(*values.T)
    res = friedman_test(long_frame(values))
    assert res.chi2 == pytest.approx(ref.statistic, rel=1e-9, abs=1e-12)
    assert res.chi2_pvalue == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-12)
    n, k = values.shape
    # Iman-Davenport from the same chi2
    if res.chi2 < n * (k - 1) - 1e-9:
        assert res.f_statistic == pytest.approx((n - 1) * res.chi2 / (n * (k - 1) - res.chi2))
        assert res.f_pvalue == pytest.approx(stats.f.sf(res.f_statistic, k - 1, (k - 1) * (n - 1)))


def test_friedman_degenerate_cases():
    # identical rankings on every dataset: chi2 = N(k-1) -> F_F infinite, p = 0
    same = long_frame([[0.9, 0.8, 0.7]] * 4)
    res = friedman_test(same)
    assert res.chi2 == pytest.approx(4 * 2)
    assert res.f_statistic == np.inf and res.f_pvalue == 0.0
    # all algorithms tied everywhere: no evidence, chi2 = 0, p = 1
    tied = friedman_test(long_frame(np.full((3, 3), 0.5)))
    assert tied.chi2 == 0.0 and tied.chi2_pvalue == 1.0
    with pytest.raises(ValueError, match="at least 2"):
        friedman_test(long_frame([[0.9, 0.8, 0.7]]))


def test_friedman_orders_losses_best_first():
    acc = demsar_frame()
    err = acc.assign(value=1.0 - acc["value"] / 10)
    a = friedman_test(acc)
    b = friedman_test(err, higher_is_better=False)
    pd.testing.assert_frame_equal(a.average_ranks, b.average_ranks)
    assert a.chi2 == pytest.approx(b.chi2)


# --------------------------------------------------------------------------- Nemenyi

# Demšar (2006), Table 5(a): critical values q_alpha for the two-tailed Nemenyi test
TABLE_5A_005 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
TABLE_5A_010 = [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]


@pytest.mark.parametrize("k", range(2, 11))
def test_nemenyi_critical_values_match_demsar_table_5a(k):
    # the exact studentized-range quantiles differ from the printed table by < 0.001
    # (e.g. k=3: 2.3437 printed 2.343; k=7: 2.9483 printed 2.949)
    assert nemenyi_critical_value(k, alpha=0.05) == pytest.approx(TABLE_5A_005[k - 2], abs=1e-3)
    assert nemenyi_critical_value(k, alpha=0.10) == pytest.approx(TABLE_5A_010[k - 2], abs=1e-3)


def test_nemenyi_two_algorithms_is_the_normal_quantile():
    # k = 2: q/sqrt(2) is z_{1-alpha/2}
    assert nemenyi_critical_value(2) == pytest.approx(stats.norm.ppf(0.975), rel=1e-6)


def test_nemenyi_critical_difference_demsar_example():
    # CD = 2.569 * sqrt(4*5/(6*14)) = 1.25 (Demšar, sec. 3.2.2)
    cd = nemenyi_critical_difference(4, 14)
    assert cd == pytest.approx(nemenyi_critical_value(4) * np.sqrt(20 / 84))
    assert round(cd, 2) == 1.25


def test_nemenyi_validation():
    with pytest.raises(ValueError, match="n_algorithms"):
        nemenyi_critical_value(1)
    with pytest.raises(ValueError, match="alpha"):
        nemenyi_critical_value(3, alpha=0)
    with pytest.raises(ValueError, match="n_datasets"):
        nemenyi_critical_difference(3, 0)


# --------------------------------------------------------------------------- Holm


def test_holm_worked_example():
    # sorted: .005*4 = .02, .01*3 = .03, .03*2 = .06, .04*1 = .04 -> running max .06
    np.testing.assert_allclose(holm_adjust([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(holm_adjust([0.5, 0.6]), [1.0, 1.0])  # capped at 1
    with pytest.raises(ValueError, match="p_values"):
        holm_adjust([0.1, 1.5])


def holm_step_down(p, alpha):
    """Holm (1979) as written: reject H_(1..i-1), stop at the first p_(i) > alpha/(m-i+1)."""
    m = len(p)
    reject = np.zeros(m, dtype=bool)
    for step, idx in enumerate(np.argsort(p, kind="stable")):
        if p[idx] > alpha / (m - step):
            break
        reject[idx] = True
    return reject


@settings(max_examples=100, deadline=None)
@given(
    p=hnp.arrays(np.float64, st.integers(1, 12), elements=st.floats(0, 1)),
    alpha=st.sampled_from([0.01, 0.05, 0.1]),
)
def test_holm_adjusted_p_reproduces_step_down_rejections(p, alpha):
    adjusted = holm_adjust(p)
    assert np.all(adjusted >= p) and np.all(adjusted <= 1)
    np.testing.assert_array_equal(adjusted <= alpha, holm_step_down(p, alpha))


# --------------------------------------------------------------------------- Wilcoxon


def exact_wilcoxon_p(d):
    """Two-sided exact p by enumerating all 2^n sign patterns (no ties, no zeros)."""
    ranks = stats.rankdata(np.abs(d))
    w_plus = ranks[d > 0].sum()
    signs = np.array(list(itertools.product([0, 1], repeat=len(d))))
    null = signs @ ranks
    return min(1.0, 2 * min(np.mean(null <= w_plus), np.mean(null >= w_plus)))


def test_wilcoxon_holm_against_enumeration():
    # 8 datasets, 3 algorithms; all |differences| distinct and non-zero
    a = np.array([0.91, 0.85, 0.78, 0.88, 0.95, 0.70, 0.83, 0.90])
    b = a - np.array([0.010, 0.030, -0.020, 0.050, 0.070, 0.015, 0.041, 0.062])
    c = a - np.array([0.11, 0.135, 0.17, 0.12, 0.19, 0.14, 0.16, 0.18])
    frame = long_frame(np.column_stack([a, b, c]), ["A", "B", "C"])
    out = wilcoxon_holm(frame)
    # best first by average rank: A, B, C; pairs (A,B), (A,C), (B,C)
    assert list(zip(out["algorithm"], out["rival"], strict=True)) == [
        ("A", "B"),
        ("A", "C"),
        ("B", "C"),
    ]
    for row, (x, y) in zip(out.itertuples(), [(a, b), (a, c), (b, c)], strict=True):
        assert row.p_value == pytest.approx(exact_wilcoxon_p(x - y))
    # A-B: ranks of |d| 1..8, negative one (-.02) has rank 3 -> T = min(33, 3) = 3
    assert out["statistic"].iloc[0] == 3.0
    # A beats C on all 8: p = 2/256; Holm: 3 * 2/256 = 0.0234 (smallest of 3)
    assert out["p_value"].iloc[1] == pytest.approx(2 / 256)
    np.testing.assert_allclose(out["p_holm"], holm_adjust(out["p_value"].to_numpy()))
    assert out["winner"].iloc[1] == "A" and bool(out["significant"].iloc[1])
    assert out["p_holm"].iloc[1] == pytest.approx(3 * 2 / 256)


def test_wilcoxon_holm_loss_and_ties():
    acc = np.array([[0.9, 0.8], [0.8, 0.7], [0.7, 0.6], [0.6, 0.6], [0.95, 0.7], [0.85, 0.8]])
    up = wilcoxon_holm(long_frame(acc, ["A", "B"]))
    down = wilcoxon_holm(long_frame(1 - acc, ["A", "B"]), higher_is_better=False)
    pd.testing.assert_frame_equal(up, down)
    assert up["algorithm"].item() == "A"  # best first for both orientations
    # identical algorithms: all differences zero -> p = 1, no winner
    same = wilcoxon_holm(long_frame(np.column_stack([acc[:, 0], acc[:, 0]])))
    assert same["p_value"].item() == 1.0 and same["winner"].item() is None


# --------------------------------------------------------------------------- CD diagram


def brute_force_groups(names, ranks, cd):
    """All maximal subsets (by inclusion) whose rank range is < cd."""
    k = len(names)
    ok = [
        set(s)
        for size in range(1, k + 1)
        for s in itertools.combinations(range(k), size)
        if max(ranks[list(s)]) - min(ranks[list(s)]) < cd
    ]
    maximal = [s for s in ok if not any(s < t for t in ok)]
    return {tuple(names[i] for i in sorted(s)) for s in maximal}


@settings(max_examples=60, deadline=None)
@given(
    values=st.tuples(st.integers(2, 6), st.integers(2, 6)).flatmap(
        lambda s: hnp.arrays(np.int64, s, elements=st.integers(0, 5))
    ),
    alpha=st.sampled_from([0.05, 0.1]),
)
def test_cd_groups_are_the_maximal_cliques(values, alpha):
    data = critical_difference_data(long_frame(values), alpha=alpha, include_singletons=True)
    ranks = data.average_ranks
    names = ranks["algorithm"].tolist()
    avg = ranks["score"].to_numpy()
    assert np.all(np.diff(avg) >= 0)  # best (lowest average rank) first
    n, k = values.shape
    assert data.cd == pytest.approx(nemenyi_critical_difference(k, n, alpha=alpha))
    assert set(data.groups) == brute_force_groups(names, avg, data.cd)
    for group in data.groups:  # each group lists its members best first
        assert list(group) == [x for x in names if x in group]
    bars = critical_difference_data(long_frame(values), alpha=alpha).groups
    assert bars == tuple(g for g in data.groups if len(g) > 1)


def test_cd_demsar_example_groups():
    # average ranks 1.964, 2.000, 2.893, 3.143; CD = 1.25: 3.143 - 1.964 = 1.18 < 1.25,
    # so all four form one group (Demšar: the post-hoc test cannot separate them at 0.05)
    data = critical_difference_data(demsar_frame())
    assert data.groups == (("C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5"),)
    assert data.q_alpha == pytest.approx(2.569, abs=1e-3)
    assert data.friedman.f_pvalue < 0.05


def test_cd_best_first_with_accuracy_error_and_time():
    # 6 datasets, A always best, C always worst: R = (1, 2, 3)
    acc = np.tile([0.9, 0.8, 0.5], (6, 1)) + np.linspace(0, 0.05, 6)[:, None]
    up = critical_difference_data(long_frame(acc, ["A", "B", "C"]))
    assert up.average_ranks["algorithm"].tolist() == ["A", "B", "C"]
    np.testing.assert_allclose(up.average_ranks["score"], [1, 2, 3])
    # CD = 2.343*sqrt(12/36) = 1.353: A-B and B-C are within CD, A-C is not
    assert up.cd == pytest.approx(nemenyi_critical_value(3) * np.sqrt(12 / 36))
    assert up.groups == (("A", "B"), ("B", "C"))
    err = critical_difference_data(long_frame(1 - acc, ["A", "B", "C"]), higher_is_better=False)
    assert err.average_ranks["algorithm"].tolist() == ["A", "B", "C"]
    assert err.groups == up.groups
    # time: lower is better -> the fastest first
    t = np.tile([30.0, 1.0, 5.0], (6, 1))
    fast = critical_difference_data(
        long_frame(t, ["slow", "fast", "mid"], col="value"), higher_is_better=False
    )
    assert fast.average_ranks["algorithm"].tolist() == ["fast", "mid", "slow"]
    assert fast.average_ranks["rank"].tolist() == [1.0, 2.0, 3.0]


def test_cd_singletons_only_on_request():
    # k = 2, N = 6, A better everywhere: R = (1, 2), CD = 1.960*sqrt(2*3/36) = 0.80 < 1
    acc = long_frame(np.tile([0.9, 0.7], (6, 1)), ["A", "B"])
    data = critical_difference_data(acc)
    assert data.cd == pytest.approx(1.959964 * np.sqrt(6 / 36), rel=1e-6)
    assert data.groups == ()  # no bar to draw: A and B differ significantly
    assert critical_difference_data(acc, include_singletons=True).groups == (("A",), ("B",))
