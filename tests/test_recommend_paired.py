"""paired_comparison: paired bootstrap and sign-flip null behind every "better than" claim."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from metaeval.recommend import paired_comparison


def _exact_null(d):
    """Share of all 2**n sign patterns with a mean at least the observed one."""
    n = len(d)
    observed = np.mean(d)
    hits = sum(np.mean(np.array(signs) * np.abs(d)) >= observed - 1e-12
               for signs in itertools.product((-1, 1), repeat=n))
    return hits / 2**n


def test_null_share_is_the_exact_sign_flip_p_value():
    rng = np.random.default_rng(0)
    a = rng.uniform(size=9)
    b = a + rng.normal(0.05, 0.1, size=9)
    r = paired_comparison(a, b)
    assert r["null_same_verdict"] == pytest.approx(_exact_null(b - a))
    assert r["difference"] == pytest.approx(np.mean(b - a))
    assert r["low"] <= r["difference"] <= r["high"]
    assert r["wins"] == int(np.sum(b > a)) and r["losses"] == int(np.sum(b < a))


def test_many_datasets_use_random_sign_flips_close_to_the_exact_share():
    rng = np.random.default_rng(1)
    d = rng.normal(0.02, 0.1, size=18)
    exact = _exact_null(d)
    r = paired_comparison(np.zeros(18), d, n_null=20000)
    assert abs(r["null_same_verdict"] - exact) < 0.01


def test_supported_only_with_consistent_differences():
    a = np.linspace(0.1, 0.5, 12)
    assert paired_comparison(a, a + 0.05)["supported"]
    assert not paired_comparison(a + 0.05, a)["supported"]  # the other way round
    noisy = a + np.array([0.05, -0.05] * 6)  # as many wins as losses of the same size
    r = paired_comparison(a, noisy)
    assert not r["supported"] and r["null_same_verdict"] > 0.4
    same = paired_comparison(a, a)
    assert same["ties"] == 12 and same["p_value"] == 1.0 and not same["supported"]


def test_series_are_paired_by_dataset():
    a = pd.Series([0.1, 0.2, 0.3], index=["x", "y", "z"])
    b = pd.Series([0.5, 0.4, 0.2], index=["z", "y", "x"])  # other order
    r = paired_comparison(a, b)
    assert r["difference"] == pytest.approx(np.mean([0.1, 0.2, 0.2]))


@pytest.mark.parametrize("kwargs, message", [
    ({"a": [0.1], "b": [0.2]}, "at least 2 datasets"),
    ({"a": [0.1, 0.2], "b": [0.2, 0.3, 0.4]}, "paired 1-D"),
    ({"a": [0.1, np.nan], "b": [0.2, 0.3]}, "finite"),
    ({"a": [0.1, 0.2], "b": [0.2, 0.3], "n_boot": 0}, "n_boot"),
    ({"a": [0.1, 0.2], "b": [0.2, 0.3], "alpha": 1.5}, "alpha"),
])
def test_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        paired_comparison(**kwargs)


# per-dataset MIL differences of two strategies that share most of their orders (the
# pattern of active-testing against average-ranking on 51 datasets): a few large wins,
# more small losses than small wins, and rounding noise where the orders agree
_WINS = [0.0065, 0.0029, 0.0013, 0.0011, 0.001, 0.00037, 0.0001, 5e-5, 4e-5]
_LOSSES = [-0.00016, -9e-5, -5e-5, -5e-5, -4e-5, -1e-5, -1e-5]


def test_rounding_noise_is_a_tie_for_every_test():
    noise = np.array([1e-16, -1e-16, 2e-17, -3e-17, 1e-16, -1e-16, 5e-17])
    clean = np.array(_WINS + _LOSSES + [0.0] * 35)
    noisy = np.array(_WINS + _LOSSES + noise.tolist() + [0.0] * 28)
    r_clean = paired_comparison(np.zeros(clean.size), clean)
    r_noisy = paired_comparison(np.zeros(noisy.size), noisy)
    assert r_noisy["ties"] == r_clean["ties"] == 35
    assert r_noisy["p_value"] == pytest.approx(r_clean["p_value"])


def test_a_few_large_wins_are_not_enough_when_the_ranks_disagree():
    """Mean, bootstrap and sign-flip null favour A (a few big wins); Wilcoxon does not."""
    d = np.array(_WINS + _LOSSES + [0.0] * 35)
    r = paired_comparison(np.zeros(d.size), d, n_null=20000)
    assert r["difference"] > 0 and r["null_same_verdict"] < 0.05 and r["low"] > 0
    assert r["p_value"] > 0.05
    assert not r["supported"]


def _one_generator_each(a, b, n_boot, n_null, seed):
    """The resamples and sign patterns as a comparison drew them alone, from its own
    generator: the bootstrap means and the null share."""
    d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    rng = np.random.default_rng(seed)
    boot = d[rng.integers(0, d.size, size=(n_boot, d.size))].mean(axis=1)
    signs = 2.0 * rng.integers(0, 2, size=(n_null, d.size)) - 1.0
    tol = 1e-12 * max(1.0, float(np.abs(d).max()))
    null = (signs * np.abs(d)).mean(axis=1)
    return (np.percentile(boot, (2.5, 97.5)),
            (float(np.sum(null >= d.mean() - tol)) + 1.0) / (n_null + 1.0))


def test_many_comparisons_draw_once_what_each_would_draw_alone():
    """paired_comparisons gives, for each A, the dict of paired_comparison(A, b), to the
    last bit: the resamples and sign patterns drawn once per number of datasets are
    those each comparison draws from its own seeded generator (checked against draws
    made here independently); Series are aligned on b per A, so lengths may differ."""
    from metaeval.recommend.evaluation._summary import paired_comparisons

    rng = np.random.default_rng(4)
    b = rng.uniform(size=40)
    many = [b - rng.normal(0.02, 0.1, size=40) for _ in range(4)]
    got = paired_comparisons(many, b, n_boot=300, n_null=500, seed=11)
    for a, r in zip(many, got, strict=True):
        assert r == paired_comparison(a, b, n_boot=300, n_null=500, seed=11)
        (low, high), same = _one_generator_each(a, b, 300, 500, 11)
        assert (r["low"], r["high"], r["null_same_verdict"]) == (low, high, same)
    names = [f"d{i}" for i in range(40)]
    series_b = pd.Series(b, index=names)
    short = pd.Series(many[0][:30], index=names[:30][::-1])  # 30 datasets, reordered
    got = paired_comparisons([pd.Series(many[1], index=names), short], series_b,
                             n_boot=300, n_null=500, seed=11)
    assert got[0] == paired_comparison(many[1], b, n_boot=300, n_null=500, seed=11)
    assert got[1] == paired_comparison(short, series_b, n_boot=300, n_null=500, seed=11)
    assert got[1]["wins"] + got[1]["losses"] + got[1]["ties"] == 30
