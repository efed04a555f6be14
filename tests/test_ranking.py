"""Tests of metaeval.ranking: AR, SRR, SW, ARR, A3R and the Abdulrahman & Brazdil sweeps.

The worked example (3 algorithms x 4 datasets) is computed by hand in the
comments; properties are checked with hypothesis.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats

from metaeval.ranking import (
    RANKING_METHODS,
    ARRPoleWarning,
    a3r,
    a3r_sweep,
    adjusted_ratio_of_ratios,
    arr_pole,
    arr_ratios,
    arr_sweep,
    average_ranks,
    dataset_ranks,
    iso_a3r_curves,
    monotonicity_breaks,
    rank_algorithms,
    significant_wins,
    success_from_folds,
    success_rate_ratios,
)

ALGS = ["A", "B", "C"]
DATASETS = ["d1", "d2", "d3", "d4"]

# accuracy of the worked example
#         A     B     C
# d1    0.80  0.60  0.40
# d2    0.90  0.60  0.30
# d3    0.50  0.50  0.50
# d4    0.60  0.80  0.40
ACC = np.array([[0.8, 0.6, 0.4], [0.9, 0.6, 0.3], [0.5, 0.5, 0.5], [0.6, 0.8, 0.4]])


def long_frame(matrix, datasets=None, algorithms=None, col="value"):
    matrix = np.asarray(matrix, dtype=float)
    d, k = matrix.shape
    datasets = datasets or [f"d{i + 1}" for i in range(d)]
    algorithms = algorithms or [f"a{j}" for j in range(k)]
    return pd.DataFrame(
        {
            "dataset": np.repeat(datasets, k),
            "algorithm": np.tile(algorithms, d),
            col: matrix.reshape(-1),
        }
    )


def fold_frame(cube, algorithms=None):
    """cube (n_datasets, n_algorithms, n_folds) -> long frame with a fold column."""
    d, k, f = cube.shape
    algorithms = algorithms or [f"a{j}" for j in range(k)]
    idx = np.indices((d, k, f)).reshape(3, -1)
    return pd.DataFrame(
        {
            "dataset": [f"d{i}" for i in idx[0]],
            "algorithm": [algorithms[j] for j in idx[1]],
            "fold": idx[2],
            "value": cube.reshape(-1),
        }
    )


@pytest.fixture
def acc():
    return long_frame(ACC, DATASETS, ALGS)


def times_frame(per_algorithm, n_datasets=4):
    return long_frame(np.tile(per_algorithm, (n_datasets, 1)), DATASETS, ALGS, col="time")


def as_dict(frame):
    return dict(zip(frame["algorithm"], frame["score"], strict=True))


# --------------------------------------------------------------------------- worked examples


def test_average_ranks_worked_example(acc):
    # d1: A1 B2 C3; d2: A1 B2 C3; d3: all tie -> 2 2 2; d4: B1 A2 C3
    # A = (1+1+2+2)/4 = 1.5, B = (2+2+2+1)/4 = 1.75, C = (3+3+2+3)/4 = 2.75
    out = average_ranks(acc)
    assert list(out.columns) == ["algorithm", "score", "rank"]
    assert out["algorithm"].tolist() == ["A", "B", "C"]
    np.testing.assert_allclose(out["score"], [1.5, 1.75, 2.75])
    np.testing.assert_array_equal(out["rank"], [1.0, 2.0, 3.0])


def test_dataset_ranks_ties_get_average_rank(acc):
    r = dataset_ranks(acc)
    d3 = r[r["dataset"] == "d3"]["rank"].to_numpy()
    np.testing.assert_array_equal(d3, [2.0, 2.0, 2.0])  # three-way tie of ranks 1, 2, 3
    d4 = r[r["dataset"] == "d4"].set_index("algorithm")["rank"]
    assert d4.to_dict() == {"A": 2.0, "B": 1.0, "C": 3.0}


def test_success_rate_ratios_worked_example(acc):
    # A/B per dataset: 0.8/0.6, 0.9/0.6, 1, 0.6/0.8 = 4/3, 1.5, 1, 0.75 -> mean 4.58333/4
    # A/C: 2, 3, 1, 1.5 -> mean 1.875               SRR_A = mean of the two
    # B/A: 0.75, 2/3, 1, 4/3 -> 0.9375; B/C: 1.5, 2, 1, 2 -> 1.625
    # C/A: 0.5, 1/3, 1, 2/3 -> 0.625;   C/B: 2/3, 0.5, 1, 0.5 -> 2/3
    expected = {
        "A": ((4 / 3 + 1.5 + 1 + 0.75) / 4 + 1.875) / 2,  # 1.5104
        "B": (0.9375 + 1.625) / 2,  # 1.28125
        "C": (0.625 + 2 / 3) / 2,  # 0.6458
    }
    out = success_rate_ratios(acc)
    assert out["algorithm"].tolist() == ["A", "B", "C"]
    for name, value in as_dict(out).items():
        assert value == pytest.approx(expected[name])


def test_success_rate_ratios_geometric_worked_example(acc):
    # geometric mean over datasets: A/B: (4/3*1.5*1*0.75)^(1/4) = 1.5^(1/4); A/C: 9^(1/4)
    # B/C: (1.5*2*1*2)^(1/4) = 6^(1/4); the reverse pairs are the reciprocals
    expected = {
        "A": (1.5**0.25 + 9**0.25) / 2,
        "B": (1.5**-0.25 + 6**0.25) / 2,
        "C": (9**-0.25 + 6**-0.25) / 2,
    }
    out = success_rate_ratios(acc, aggregate="geometric")
    assert out["algorithm"].tolist() == ["A", "B", "C"]
    for name, value in as_dict(out).items():
        assert value == pytest.approx(expected[name])


def test_arr_worked_example_speed_reorders(acc):
    # times A 10 s, B 1 s, C 100 s on every dataset, AccD = 0.1
    # denominators 1 + 0.1*log10(T_p/T_q): A/B 1.1, A/C 0.9, B/A 0.9, B/C 0.8, C/A 1.1, C/B 1.2
    # constant over datasets, so the geometric mean is geo(SRR)/den:
    # ARR_A = (1.5^.25/1.1 + 9^.25/0.9)/2 = 1.4653
    # ARR_B = (1.5^-.25/0.9 + 6^.25/0.8)/2 = 1.4802   -> B overtakes A by being 10x faster
    # ARR_C = (9^-.25/1.1 + 6^-.25/1.2)/2 = 0.5287
    expected = {
        "A": (1.5**0.25 / 1.1 + 9**0.25 / 0.9) / 2,
        "B": (1.5**-0.25 / 0.9 + 6**0.25 / 0.8) / 2,
        "C": (9**-0.25 / 1.1 + 6**-0.25 / 1.2) / 2,
    }
    out = adjusted_ratio_of_ratios(acc, times_frame([10.0, 1.0, 100.0]), accd=0.1)
    assert out["algorithm"].tolist() == ["B", "A", "C"]
    for name, value in as_dict(out).items():
        assert value == pytest.approx(expected[name])
    np.testing.assert_array_equal(out["rank"], [1.0, 2.0, 3.0])


def test_a3r_worked_example(acc):
    # times A 16, B 1, C 256; n = 4, so (T_p/T_q)^(1/4):
    # A/B 2, A/C 0.5, B/A 0.5, B/C 0.25, C/A 2, C/B 4
    # A3R_A = (1.5^.25/2 + 9^.25/0.5)/2 = 2.0087
    # A3R_B = (1.5^-.25/0.5 + 6^.25/0.25)/2 = 4.0338
    # A3R_C = (9^-.25/2 + 6^-.25/4)/2 = 0.2242
    expected = {
        "A": (1.5**0.25 / 2 + 9**0.25 / 0.5) / 2,
        "B": (1.5**-0.25 / 0.5 + 6**0.25 / 0.25) / 2,
        "C": (9**-0.25 / 2 + 6**-0.25 / 4) / 2,
    }
    t = times_frame([16.0, 1.0, 256.0])
    out = a3r(acc, t, n=4)
    assert out["algorithm"].tolist() == ["B", "A", "C"]
    for name, value in as_dict(out).items():
        assert value == pytest.approx(expected[name])
    # P = 1/n is the same thing
    pd.testing.assert_frame_equal(out, a3r(acc, t, p=0.25))


def test_a3r_default_root_is_eight(acc):
    t = times_frame([16.0, 1.0, 256.0])
    pd.testing.assert_frame_equal(a3r(acc, t), a3r(acc, t, n=8))


def test_significant_wins_worked_example():
    # d1, folds 0..2:  A .9 .9 .9 | B .8 .7 .6 | C .5 .5 .5
    #   A-B = .1 .2 .3: t = .2/(.1/sqrt 3) = 3.464, df 2, p = 1 - 3.464/sqrt(14) = 0.0742
    #   A-C = .4 constant: a sure win (t = inf);  B-C = .3 .2 .1: p = 0.0742
    # d2:  A .6 .6 .6 | B .8 .8 .8 | C .6 .6 .6
    #   B-A, B-C = .2 constant: B wins;  A = C: no evidence
    cube = np.array(
        [
            [[0.9, 0.9, 0.9], [0.8, 0.7, 0.6], [0.5, 0.5, 0.5]],
            [[0.6, 0.6, 0.6], [0.8, 0.8, 0.8], [0.6, 0.6, 0.6]],
        ]
    )
    frame = fold_frame(cube, ALGS)
    p = stats.ttest_rel([0.9] * 3, [0.8, 0.7, 0.6]).pvalue
    assert p == pytest.approx(1 - 2 * np.sqrt(3) / np.sqrt(14))
    # alpha 0.05 -- wins: d1 A>C; d2 B>A, B>C
    # SW_A = (0/2 + 1/2)/2 = 0.25; SW_B = (1/2 + 1/2)/2 = 0.5; SW_C = 0
    out = significant_wins(frame, alpha=0.05)
    assert out["algorithm"].tolist() == ["B", "A", "C"]
    np.testing.assert_allclose(out["score"], [0.5, 0.25, 0.0])
    # alpha 0.1 adds d1 A>B and B>C: SW_A = (1/2 + 1/2)/2, SW_B = (1/2 + 2/2)/2
    out = significant_wins(frame, alpha=0.1)
    assert as_dict(out) == pytest.approx({"A": 0.5, "B": 0.75, "C": 0.0})
    # net at 0.05: A: (-1/2 + 1/2)/2 = 0, B: (1/2 + 1/2)/2 = .5, C: (-1/2 - 1/2)/2 = -.5
    out = significant_wins(frame, alpha=0.05, score="net")
    assert as_dict(out) == pytest.approx({"A": 0.0, "B": 0.5, "C": -0.5})


def brute_force_sw(cube, alpha, higher_is_better):
    d, k, _ = cube.shape
    wins = np.zeros((k, k))
    for i in range(d):
        for p in range(k):
            for q in range(k):
                if p == q:
                    continue
                diff = cube[i, p] - cube[i, q]
                if np.all(diff == 0):
                    continue
                if np.all(diff == diff[0]):
                    pval, sign = 0.0, np.sign(diff[0])
                else:
                    res = stats.ttest_rel(cube[i, p], cube[i, q])
                    pval, sign = res.pvalue, np.sign(res.statistic)
                if not higher_is_better:
                    sign = -sign
                wins[p, q] += (pval <= alpha) and sign > 0
    return (wins / d).sum(axis=1) / (k - 1)


@settings(max_examples=40, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 4), st.integers(2, 4), st.integers(2, 5)),
    seed=st.integers(0, 2**32 - 1),
    hib=st.booleans(),
)
def test_significant_wins_matches_per_pair_ttests(shape, seed, hib):
    rng = np.random.default_rng(seed)
    cube = rng.normal(0.7, 0.05, shape) + rng.normal(0, 0.05, shape[:2])[:, :, None]
    out = significant_wins(fold_frame(cube), alpha=0.1, higher_is_better=hib)
    expected = brute_force_sw(cube, 0.1, hib)
    got = as_dict(out)
    for j in range(shape[1]):
        assert got[f"a{j}"] == pytest.approx(expected[j])


# --------------------------------------------------------------------------- best first


def test_best_first_for_accuracy_and_error():
    # A best, then B, then C on every dataset
    accuracy = np.array([[0.9, 0.8, 0.6], [0.95, 0.7, 0.5], [0.85, 0.8, 0.7]])
    up = long_frame(accuracy, ["d1", "d2", "d3"], ALGS)
    down = up.assign(value=1.0 - up["value"])  # error rate, lower is better
    for method in ("ar", "srr"):
        assert rank_algorithms(up, method=method)["algorithm"].tolist() == ALGS
        out = rank_algorithms(down, method=method, higher_is_better=False)
        assert out["algorithm"].tolist() == ALGS
        assert out["rank"].tolist() == [1.0, 2.0, 3.0]
    # wrongly declaring the error as higher-is-better reverses the order
    assert average_ranks(down)["algorithm"].tolist() == ALGS[::-1]


def test_best_first_for_time_as_the_measure():
    # time is lower-is-better: the fastest algorithm must come first
    t = long_frame([[5.0, 1.0, 30.0], [6.0, 2.0, 60.0]], ["d1", "d2"], ALGS)
    assert average_ranks(t, higher_is_better=False)["algorithm"].tolist() == ["B", "A", "C"]
    assert success_rate_ratios(t, higher_is_better=False)["algorithm"].tolist() == [
        "B",
        "A",
        "C",
    ]


def test_error_ratio_is_inverted():
    # for a loss L the ratio is L_q / L_p: errors A .1, B .2 on one dataset -> A scores 2
    err = long_frame([[0.1, 0.2]], ["d1"], ["A", "B"])
    out = success_rate_ratios(err, higher_is_better=False)
    assert as_dict(out) == pytest.approx({"A": 2.0, "B": 0.5})


def test_ties_in_final_score_share_the_average_rank():
    # A and B mirror each other -> AR 1.5 each, listed in label order
    acc = long_frame([[0.9, 0.8, 0.1], [0.8, 0.9, 0.1]], ["d1", "d2"], ALGS)
    out = average_ranks(acc)
    assert out["algorithm"].tolist() == ["A", "B", "C"]
    assert out["rank"].tolist() == [1.5, 1.5, 3.0]


# --------------------------------------------------------------------------- ARR pole


def test_arr_pole_is_flagged_warned_and_nan():
    # AccD = 0.5: pole at T_p/T_q = 10**-2; "fast" is 1000x faster -> 1 + 0.5*(-3) = -0.5 < 0
    acc = long_frame([[0.9, 0.9]], ["d1"], ["fast", "slow"])
    t = long_frame([[1.0, 1000.0]], ["d1"], ["fast", "slow"], col="time")
    raw = arr_ratios(acc, t, accd=0.5).set_index("algorithm")
    assert raw.loc["fast", "denominator"] == pytest.approx(-0.5)
    assert raw.loc["fast", "arr"] == pytest.approx(-2.0)  # raw value, not hidden
    assert bool(raw.loc["fast", "pole"]) and not bool(raw.loc["slow", "pole"])
    assert raw.loc["slow", "arr"] == pytest.approx(1 / 2.5)  # 1 + 0.5*3
    with pytest.warns(ARRPoleWarning, match="fast"):
        out = adjusted_ratio_of_ratios(acc, t, accd=0.5)
    # the faster algorithm's ARR is undefined: NaN, listed last, NaN rank
    assert out["algorithm"].tolist() == ["slow", "fast"]
    assert np.isnan(out["score"].iloc[1]) and np.isnan(out["rank"].iloc[1])
    with pytest.raises(ValueError, match="pole"):
        adjusted_ratio_of_ratios(acc, t, accd=0.5, on_pole="raise")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        adjusted_ratio_of_ratios(acc, t, accd=0.5, on_pole="ignore")
    # no pole with a small AccD (pole at 10**-10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = adjusted_ratio_of_ratios(acc, t, accd=0.1)
    assert out["algorithm"].tolist() == ["fast", "slow"]


def test_arr_ratios_match_equation_one(acc):
    t = times_frame([10.0, 1.0, 100.0])
    raw = arr_ratios(acc, t, accd=0.3)
    assert len(raw) == 4 * 3 * 2
    row = raw[(raw["dataset"] == "d2") & (raw["algorithm"] == "A") & (raw["rival"] == "C")]
    # (0.9/0.3) / (1 + 0.3*log10(10/100)) = 3/0.7
    assert row["arr"].item() == pytest.approx(3 / 0.7)
    assert row["time_ratio"].item() == pytest.approx(0.1)


# ------------------------------------------------------- Abdulrahman & Brazdil (2014) sweeps


def test_arr_sweep_values_and_pole_flags():
    sweep = arr_sweep([0.2, 0.3, 0.7])
    assert len(sweep) == 3 * 41
    x = sweep["log2_time_ratio"].to_numpy()
    a = sweep["accd"].to_numpy()
    np.testing.assert_allclose(sweep["time_ratio"], 2.0**x)
    # independent evaluation of eq. (1) at SRR = 1: log10(2**x) = x*log10(2)
    np.testing.assert_allclose(sweep["value"], 1.0 / (1.0 + a * x * np.log10(2.0)))
    np.testing.assert_array_equal(sweep["pole"], x < -1.0 / (a * np.log10(2.0)))
    # SRR scales the whole curve
    np.testing.assert_allclose(arr_sweep([0.2], srr=1.1)["value"], 1.1 * arr_sweep([0.2])["value"])


def test_arr_pole_position():
    # 1 + AccD*log10(r) = 0  <=>  r = 10**(-1/AccD)
    assert arr_pole(0.5) == pytest.approx(0.01)
    assert arr_pole(0.25) == pytest.approx(1e-4)
    accd = np.array([0.2, 0.3, 0.7])
    np.testing.assert_allclose(1 + accd * np.log10(arr_pole(accd)), 0.0, atol=1e-12)
    assert arr_pole(0.0) == 0.0


def test_monotonicity_breaks_bracket_the_pole():
    # poles in log2: -1/(AccD*log10 2) = -16.61 (0.2), -11.07 (0.3), -4.75 (0.7); -33.2 for 0.1
    breaks = monotonicity_breaks(arr_sweep([0.1, 0.2, 0.3, 0.7])).set_index("accd")
    assert bool(breaks.loc[0.1, "monotonic"])  # its pole lies outside [-20, 20]
    for accd, lo, hi in [(0.2, -17, -16), (0.3, -12, -11), (0.7, -5, -4)]:
        assert not bool(breaks.loc[accd, "monotonic"])
        assert (breaks.loc[accd, "break_from"], breaks.loc[accd, "break_to"]) == (lo, hi)
        assert lo < breaks.loc[accd, "pole_log2_time_ratio"] < hi
        assert np.log2(arr_pole(accd)) == pytest.approx(breaks.loc[accd, "pole_log2_time_ratio"])
    # a finer grid pins the pole down: the break step contains it
    fine = monotonicity_breaks(arr_sweep([0.7], log2_ratio=np.linspace(-20, 20, 4001)))
    assert fine["break_from"].item() < np.log2(arr_pole(0.7)) < fine["break_to"].item()
    assert fine["break_to"].item() - fine["break_from"].item() == pytest.approx(0.01)


def test_a3r_sweep_is_monotonic_and_matches_abdulrahman_brazdil_numbers():
    sweep = a3r_sweep()
    assert sorted(sweep["n"].unique()) == [4, 8, 16]
    assert bool(monotonicity_breaks(sweep)["monotonic"].all())
    # Abdulrahman & Brazdil (2014), sec. 3: ratio 10 -> 8th root 1.33 (2nd root 3.16);
    # ratio 0.1 -> 0.74 (0.31)
    x = np.log2([10.0, 0.1])
    root8 = 1 / a3r_sweep([8], log2_ratio=x)["value"].to_numpy()
    root2 = 1 / a3r_sweep([2], log2_ratio=x)["value"].to_numpy()
    np.testing.assert_allclose(root8, [1.33, 0.75], atol=0.01)
    np.testing.assert_allclose(root2, [3.16, 0.32], atol=0.01)
    # n = 4 at 2**8: 1/2**(8/4) = 0.25
    assert a3r_sweep([4], log2_ratio=[8])["value"].item() == pytest.approx(0.25)


def test_iso_a3r_curves_solve_equation_two():
    iso = iso_a3r_curves()
    assert sorted(iso["level"].unique()) == [0.9, 1.0, 1.1]
    # plugging the SRR back into eq. (2) gives the level
    a3r_value = iso["srr"] / iso["time_ratio"] ** (1 / iso["n"])
    np.testing.assert_allclose(a3r_value, iso["level"])
    # level 1.1, n 8, 2**8 slower: SRR = 1.1 * 2 = 2.2; 2**-8 faster: 1.1 / 2 = 0.55
    row = iso_a3r_curves([1.1], n=8, log2_ratio=[-8, 8])["srr"].to_numpy()
    np.testing.assert_allclose(row, [0.55, 2.2])
    # a faster algorithm needs a lower SRR: increasing in log time ratio
    for _, curve in iso.groupby("level"):
        assert np.all(np.diff(curve.sort_values("log2_time_ratio")["srr"]) > 0)


# --------------------------------------------------------------------------- inputs


def test_success_from_folds_mean_and_either_input():
    rng = np.random.default_rng(3)
    cube = rng.uniform(0.5, 0.9, (3, 3, 4))
    folds = fold_frame(cube)
    means = success_from_folds(folds)
    assert list(means.columns) == ["dataset", "algorithm", "value"]
    np.testing.assert_allclose(means["value"], cube.mean(axis=2).reshape(-1))
    t = long_frame(rng.uniform(1, 10, (3, 3)), ["d0", "d1", "d2"], col="time")
    for method in ("ar", "srr", "arr", "a3r"):
        pd.testing.assert_frame_equal(
            rank_algorithms(folds, t, method=method), rank_algorithms(means, t, method=method)
        )


def test_missing_cell_is_named(acc):
    with pytest.raises(ValueError, match=r"missing 1 \(dataset, algorithm\).*\('d3', 'B'\)"):
        average_ranks(acc.drop(index=7))
    t = times_frame([1.0, 2.0, 3.0]).drop(index=0)
    with pytest.raises(ValueError, match=r"times is missing.*\('d1', 'A'\)"):
        a3r(acc, t)


def test_missing_fold_cell_is_named():
    folds = fold_frame(np.full((2, 2, 3), 0.5))
    with pytest.raises(ValueError, match=r"\('d1', 'a1', 2\)"):
        significant_wins(folds.iloc[:-1])


def test_nan_and_bad_values_are_rejected(acc):
    bad = acc.copy()
    bad.loc[4, "value"] = np.nan
    with pytest.raises(ValueError, match=r"NaN.*\('d2', 'B'\)"):
        average_ranks(bad)
    bad.loc[4, "value"] = np.inf
    with pytest.raises(ValueError, match="infinite"):
        success_rate_ratios(bad)
    with pytest.raises(ValueError, match="numeric"):
        average_ranks(acc.assign(value="x"))
    with pytest.raises(ValueError, match="missing column"):
        average_ranks(acc.rename(columns={"value": "accuracy"}))
    with pytest.raises(ValueError, match="DataFrame"):
        average_ranks(ACC)
    with pytest.raises(ValueError, match="duplicate"):
        average_ranks(pd.concat([acc, acc.iloc[:1]]))
    with pytest.raises(ValueError, match="positive"):
        success_rate_ratios(acc.assign(value=acc["value"] - 0.5))
    with pytest.raises(ValueError, match="at least two"):
        average_ranks(acc[acc["algorithm"] == "A"])


def test_times_must_be_positive_and_finite(acc):
    for bad_time, pattern in [(0.0, "positive"), (-1.0, "positive"), (np.nan, "NaN")]:
        t = times_frame([1.0, 2.0, 3.0])
        t.loc[5, "time"] = bad_time
        for fn in (adjusted_ratio_of_ratios, a3r):
            with pytest.raises(ValueError, match=pattern):
                fn(acc, t)


def test_parameter_validation(acc):
    t = times_frame([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="either n or p"):
        a3r(acc, t, n=4, p=0.25)
    with pytest.raises(ValueError, match="n must be"):
        a3r(acc, t, n=0)
    with pytest.raises(ValueError, match="accd"):
        adjusted_ratio_of_ratios(acc, t, accd=-0.1)
    with pytest.raises(ValueError, match="method"):
        rank_algorithms(acc, method="elo")
    with pytest.raises(ValueError, match="needs times"):
        rank_algorithms(acc, method="arr")
    with pytest.raises(ValueError, match="fold"):
        significant_wins(acc)
    with pytest.raises(ValueError, match="two folds"):
        significant_wins(fold_frame(np.full((1, 2, 1), 0.5)))
    with pytest.raises(ValueError, match="alpha"):
        significant_wins(fold_frame(np.full((1, 2, 2), 0.5)), alpha=1.5)
    with pytest.raises(ValueError, match="aggregate"):
        success_rate_ratios(acc, aggregate="median")
    with pytest.raises(ValueError, match="higher_is_better"):
        average_ranks(acc, higher_is_better="no")
    with pytest.raises(ValueError, match="log2_ratio"):
        arr_sweep([0.1], log2_ratio=[])
    with pytest.raises(ValueError, match="n_values"):
        a3r_sweep([0])
    with pytest.raises(ValueError, match="sweep"):
        monotonicity_breaks(acc)


# --------------------------------------------------------------------------- properties

matrices = st.tuples(st.integers(1, 5), st.integers(2, 5)).flatmap(
    lambda s: hnp.arrays(np.float64, s, elements=st.floats(0.05, 1.0))
)


def all_rankings(success, times, folds=None):
    out = {m: rank_algorithms(success, times, method=m) for m in ("ar", "srr", "a3r")}
    out["arr"] = rank_algorithms(success, times, method="arr", accd=0.1, on_pole="ignore")
    if folds is not None:
        out["sw"] = significant_wins(folds)
    return out


@settings(max_examples=50, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 4), st.integers(2, 4), st.integers(2, 3)),
    seed=st.integers(0, 2**32 - 1),
)
def test_rankings_invariant_to_row_order(shape, seed):
    rng = np.random.default_rng(seed)
    cube = np.round(rng.uniform(0.5, 1.0, shape), 2)  # rounding makes ties likely
    folds = fold_frame(cube)
    success = success_from_folds(folds)
    times = long_frame(
        rng.uniform(0.1, 100, shape[:2]), [f"d{i}" for i in range(shape[0])], col="time"
    )
    before = all_rankings(success, times, folds)
    perm = rng.permutation
    after = all_rankings(
        success.iloc[perm(len(success))],
        times.iloc[perm(len(times))],
        folds.iloc[perm(len(folds))],
    )
    for method in before:
        pd.testing.assert_frame_equal(before[method], after[method])


@settings(max_examples=50, deadline=None)
@given(
    values=st.tuples(st.integers(1, 5), st.integers(2, 6)).flatmap(
        lambda s: hnp.arrays(np.int64, s, elements=st.integers(0, 3))
    ),
    hib=st.booleans(),
)
def test_dataset_ranks_sum_to_k_k_plus_1_over_2(values, hib):
    d, k = values.shape
    r = dataset_ranks(long_frame(values), higher_is_better=hib)
    sums = r.groupby("dataset")["rank"].sum().to_numpy()
    np.testing.assert_allclose(sums, k * (k + 1) / 2)
    assert r["rank"].between(1, k).all()
    # and the average rank is their mean
    ar = as_dict(average_ranks(long_frame(values), higher_is_better=hib))
    np.testing.assert_allclose(
        [ar[a] for a in sorted(ar)], r.groupby("algorithm")["rank"].mean().to_numpy()
    )


@settings(max_examples=50, deadline=None)
@given(values=matrices, n=st.floats(0.5, 32), t=st.floats(0.01, 100))
def test_a3r_equal_times_is_geometric_srr(values, n, t):
    success = long_frame(values)
    times = long_frame(np.full(values.shape, t), col="time")
    expected = success_rate_ratios(success, aggregate="geometric")
    got = a3r(success, times, n=n)
    pd.testing.assert_frame_equal(
        got.sort_values("algorithm", ignore_index=True)[["algorithm", "score"]],
        expected.sort_values("algorithm", ignore_index=True)[["algorithm", "score"]],
    )
    np.testing.assert_array_equal(
        got.sort_values("algorithm")["rank"], expected.sort_values("algorithm")["rank"]
    )


@settings(max_examples=50, deadline=None)
@given(values=matrices, seed=st.integers(0, 2**32 - 1))
def test_arr_with_zero_accd_and_a3r_with_zero_p_are_geometric_srr(values, seed):
    rng = np.random.default_rng(seed)
    success = long_frame(values)
    times = long_frame(10 ** rng.uniform(-3, 3, values.shape), col="time")
    expected = success_rate_ratios(success, aggregate="geometric").sort_values("algorithm")
    for got in (adjusted_ratio_of_ratios(success, times, accd=0.0), a3r(success, times, p=0.0)):
        got = got.sort_values("algorithm")
        np.testing.assert_allclose(got["score"], expected["score"], rtol=1e-12)
        np.testing.assert_array_equal(got["rank"], expected["rank"])


@settings(max_examples=50, deadline=None)
@given(values=matrices)
def test_loss_ratio_is_success_ratio_of_reciprocal(values):
    # SRR of a loss L (higher_is_better=False) uses L_q/L_p = (1/L_p)/(1/L_q)
    for how in ("arithmetic", "geometric"):
        loss = success_rate_ratios(long_frame(values), higher_is_better=False, aggregate=how)
        recip = success_rate_ratios(long_frame(1.0 / values), aggregate=how)
        np.testing.assert_allclose(loss["score"], recip["score"], rtol=1e-12)
        assert loss["algorithm"].tolist() == recip["algorithm"].tolist()


@settings(max_examples=50, deadline=None)
@given(values=matrices)
def test_rank_based_methods_flip_with_the_sign(values):
    # a loss -v with higher_is_better=False ranks exactly as v with higher_is_better=True
    pd.testing.assert_frame_equal(
        average_ranks(long_frame(values)),
        average_ranks(long_frame(-values), higher_is_better=False),
    )


@settings(max_examples=40, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 4), st.integers(2, 5)),
    seed=st.integers(0, 2**32 - 1),
    best=st.integers(0, 4),
)
def test_all_rankings_agree_on_a_dominating_algorithm(shape, seed, best):
    # the dominating algorithm is better on every fold of every dataset by a margin the
    # paired t-test detects (diffs in [0.3, 0.7] over 5 folds -> t >= 3 > t_4(0.975) = 2.78)
    # and strictly the fastest everywhere
    d, k = shape
    best = best % k
    rng = np.random.default_rng(seed)
    cube = rng.uniform(0.3, 0.6, (d, k, 5))
    cube[:, best, :] = rng.uniform(0.9, 1.0, (d, 5))
    times = 10 ** rng.uniform(0, 2, (d, k))
    times[:, best] = np.delete(times, best, axis=1).min(axis=1) / rng.uniform(1.5, 10, d)
    folds = fold_frame(cube)
    success = success_from_folds(folds)
    t = long_frame(times, [f"d{i}" for i in range(d)], col="time")
    for method, out in all_rankings(success, t, folds).items():
        assert out["algorithm"].iloc[0] == f"a{best}", method
        assert out["rank"].iloc[0] == 1.0 and out["rank"].iloc[1] > 1.0, method


def test_methods_tuple():
    assert RANKING_METHODS == ("ar", "srr", "sw", "arr", "a3r")


def test_algorithms_equal_on_every_dataset_tie_whatever_the_rounding():
    # The falsifying example hypothesis found: a1, a2 and a4 are equal on both datasets,
    # but their SRR scores of the reciprocal losses differed in the last bit, which
    # ordered them by rounding noise instead of as ties (label order).
    values = np.array([[0.18400527, 0.0546875, 0.0546875, 0.25, 0.0546875],
                       [0.0546875, 0.0546875, 0.0546875, 0.0546875, 0.0546875]])
    for how in ("arithmetic", "geometric"):
        got = success_rate_ratios(long_frame(1.0 / values), aggregate=how)
        tied = got[got["algorithm"].isin(["a1", "a2", "a4"])]
        assert tied["algorithm"].tolist() == ["a1", "a2", "a4"]
        assert tied["rank"].nunique() == 1


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 30), st.integers(2, 9), st.integers(0, 2**32 - 1))
def test_ratios_are_averaged_one_dataset_at_a_time_exactly_as_a_stack(d, k, seed):
    # ARR, A3R and SRR average (k, k) matrices over the datasets one dataset at a time
    # (a 500-algorithm, 100-dataset stack is 200 MB an array); the sum runs in dataset
    # order as numpy's mean over axis 0 of the stack does, so the result is the same to
    # the last bit, NaN (an ARR pole) included
    from metaeval.ranking._methods import _mean_over_datasets

    rng = np.random.default_rng(seed)
    stack = rng.lognormal(size=(d, k, k))
    stack[rng.random(stack.shape) < 0.05] = np.nan
    before = stack.copy()
    for geometric in (False, True):
        got = _mean_over_datasets(lambda i: stack[i], d, geometric=geometric)
        with np.errstate(invalid="ignore", divide="ignore"):
            want = (np.exp(np.mean(np.log(stack), axis=0)) if geometric
                    else stack.mean(axis=0))
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(stack, before)  # the matrices it was given, untouched


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 7), st.integers(2, 8), st.integers(0, 2), st.booleans(),
       st.randoms(use_true_random=False))
def test_the_matrix_average_ranking_is_average_ranks_of_the_long_frame(d, a, decimals, twin,
                                                                        rnd):
    # the recommenders' fast path: the same order (ties in the frame's label order) and
    # the same scores, bit for bit, on values with many ties and labels in any order
    from metaeval.ranking._methods import _average_rank_order

    rng = np.random.default_rng(rnd.randrange(2**32))
    values = np.round(rng.uniform(0, 1, (d, a)), decimals)
    if twin:  # two algorithms alike on every dataset
        values[:, 1] = values[:, 0]
    datasets = [f"d{k}" for k in rng.permutation(20)[:d]]
    algorithms = [f"{chr(97 + k)}{k}" for k in rng.permutation(26)[:a]]
    long = pd.DataFrame({"dataset": np.repeat(np.array(datasets, dtype=object), a),
                         "algorithm": np.tile(np.array(algorithms, dtype=object), d),
                         "value": values.reshape(-1)})
    frame = average_ranks(long)
    order, score = _average_rank_order(values, datasets, algorithms)
    assert [algorithms[j] for j in order] == list(frame["algorithm"])
    assert np.array_equal(score, frame["score"].to_numpy())


def test_the_matrix_average_ranking_leaves_to_the_frame_what_it_does_not_check():
    from metaeval.ranking._methods import _average_rank_order

    good = np.array([[0.9, 0.8], [0.7, 0.6]])
    assert _average_rank_order(good, ["d1", "d2"], ["A", "B"]) is not None
    for values, datasets, algorithms in [
            (np.array([[0.9, np.nan], [0.7, 0.6]]), ["d1", "d2"], ["A", "B"]),
            (good, ["d1", "d1"], ["A", "B"]),
            (good, ["d1", "d2"], ["A", "A"]),
            (good[:, :1], ["d1", "d2"], ["A"]),
            (good, ["d1", None], ["A", "B"])]:
        assert _average_rank_order(values, datasets, algorithms) is None
