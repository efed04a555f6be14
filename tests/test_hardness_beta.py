"""Instance hardness under Beta(a, b) cost proportions: exact at any concentration.

The reference knows nothing of metaeval's formulas. Each method's instance cost curve
QI(c) is written from the definitions of Prudêncio (2019) as polynomial pieces in c
(R and L counted from the scores), and integrated against the Beta(a, b) density with
``mpmath.quad`` in 50-digit arithmetic, cut at the curve's breakpoints and at the mode
of the density. mpmath is slow, so it checks a few rows per case; vectorised checks
cover every row: exact identities of the integrals, bounds, and agreement between
methods that must coincide.

Tolerance: relative error <= 1e-9; where the exact value is 0, absolute error <= 1e-15;
where it is below the smallest normal float (it underflows in any float computation),
the value must be below it too.
"""

import mpmath as mp
import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import special

from metaeval.hardness import (
    METHODS,
    class_hardness,
    instance_hardness,
    instance_hardness_by_method,
    pool_hardness,
)
from metaeval.similarity import algorithm_dissimilarity

DIGITS = 50
TINY = 2.2250738585072014e-308  # the smallest normal float

SYMMETRIC = [0.01, 0.5, 1.0, 2.0, 10.0, 1e3, 1e4, 1e5, 1e6]
SKEWED = [(0.5, 1e4), (1e5, 3.0), (2.0, 1e6), (1e4, 0.5), (3.0, 1e5), (1e6, 2.0)]
PAIRS = [(a, a) for a in SYMMETRIC] + SKEWED


# ---------------------------------------------------------------------------------------
# the reference: E[QI(c)] for c ~ Beta(a, b), QI given as polynomial pieces
# ---------------------------------------------------------------------------------------


def beta_expectation(pieces, a, b):
    """Sum over ``(u, v, g)`` of the integral of ``g(c) w(c)`` over [u, v], at 50 digits.

    ``w`` is the Beta(a, b) density; ``g`` maps an mpf to an mpf. Each piece is cut at the
    mode, so that the density is monotone on every part.
    """
    with mp.workdps(DIGITS):
        a, b = mp.mpf(a), mp.mpf(b)
        log_norm = mp.loggamma(a) + mp.loggamma(b) - mp.loggamma(a + b)
        mode = (a - 1) / (a + b - 2) if a > 1 and b > 1 else None
        total = mp.mpf(0)
        for u, v, g in pieces:
            u, v = mp.mpf(u), mp.mpf(v)
            cuts = [u, v]
            if mode is not None and u < mode < v:
                cuts.insert(1, mode)
            elif a < 1 and b < 1 and u == 0 and v == 1:
                cuts.insert(1, mp.mpf(1) / 2)
            for lo, hi in zip(cuts[:-1], cuts[1:], strict=True):
                if lo < hi:
                    total += _integral(g, lo, hi, a, b, log_norm)
        return total


def _integral(g, lo, hi, a, b, log_norm):
    """Integral of g(c) w(c) over [lo, hi], on which w is monotone.

    The integrand is divided by the density's largest value on the piece (mp.quad stops
    on an absolute error, so a tiny integrand would stop it early). Next to an endpoint
    where w is unbounded (a < 1 at 0, b < 1 at 1), c = t^(1/a) (or 1 - c = t^(1/b))
    removes the singularity.
    """
    if lo == 0 and a < 1:  # c^(a-1) dc = dt / a

        def f(t):
            c = t ** (1 / a)
            return g(c) * mp.exp((b - 1) * mp.log1p(-c) - shift)

        shift = max(0, (b - 1) * mp.log1p(-hi))
        return mp.quad(f, [0, hi**a]) * mp.exp(shift - log_norm) / a
    if hi == 1 and b < 1:  # (1 - c)^(b-1) dc = -dt / b

        def f(t):
            d = t ** (1 / b)
            return g(1 - d) * mp.exp((a - 1) * mp.log1p(-d) - shift)

        shift = max(0, (a - 1) * mp.log(lo)) if lo > 0 else 0
        return mp.quad(f, [0, (1 - lo) ** b]) * mp.exp(shift - log_norm) / b

    def log_w(c):
        return (a - 1) * mp.log(c) + (b - 1) * mp.log1p(-c)

    def f(c):
        if 0 < c < 1:
            return g(c) * mp.exp(log_w(c) - shift)
        return g(c) * mp.exp(-shift) if (a if c == 0 else b) == 1 else mp.mpf(0)

    shift = max((log_w(x) for x in (lo, hi) if 0 < x < 1), default=0)
    return mp.quad(f, [lo, hi]) * mp.exp(shift - log_norm)


def cost_curve_pieces(method, label, col, i):
    """QI(c) of instance i as polynomial pieces, from Prudêncio (2019) directly.

    Class 0 costs 2c when predicted class 1, class 1 costs 2(1 - c) when predicted
    class 0; an instance is predicted class 0 iff its score is <= the threshold.
    (Score-fixed, score-uniform and rate-uniform have QI = 2c p or 2(1 - c) p with p not
    depending on c; they are checked through E[c] below.)
    """
    n = col.size
    R = mp.mpf(int(np.sum(col <= col[i]))) / n  # fraction scored <= s_i
    L = mp.mpf(int(np.sum(col == col[i]))) / n  # its tied group
    if method == "score-driven":  # eqs. 15 and 17: T(c) = c
        s = mp.mpf(float(col[i]))
        if label == 0:
            return [(0, s, lambda c: 2 * c)]  # predicted class 1 iff s > c
        return [(s, 1, lambda c: 2 * (1 - c))]
    if method == "rate-driven":  # eqs. 19-25, a quota of c n class-0 predictions
        lo = R - L  # the quota reaches the tied group [R - L, R] pro rata
        if label == 0:
            return [(0, lo, lambda c: 2 * c), (lo, R, lambda c: 2 * c * (R - c) / L)]
        return [(lo, R, lambda c: 2 * (1 - c) * (c - lo) / L), (R, 1, lambda c: 2 * (1 - c))]
    raise AssertionError(method)


def assert_close_to_reference(value, reference, what=""):
    reference = mp.mpf(reference)
    if reference == 0:
        assert abs(value) <= 1e-15, what
    elif reference < TINY:
        assert 0 <= value < TINY, (what, value, mp.nstr(reference, 5))
    else:
        error = abs(mp.mpf(float(value)) - reference) / reference
        assert error <= 1e-9, (what, value, mp.nstr(reference, 17), float(error))


def test_the_reference_agrees_with_mpmath_betainc():
    # E[2c [c < x]] = 2 a/(a + b) I_x(a + 1, b); mpmath.betainc is fast for these (a, b)
    with mp.workdps(DIGITS):
        for a, b, x in [(0.5, 3.5, "0.3"), (40, 60, "0.55"), (0.01, 2, "0.999")]:
            a, b, x = mp.mpf(a), mp.mpf(b), mp.mpf(x)
            exact = 2 * a / (a + b) * mp.betainc(a + 1, b, 0, x, regularized=True)
            assert abs(beta_expectation([(0, x, lambda c: 2 * c)], a, b) / exact - 1) < 1e-40


# ---------------------------------------------------------------------------------------
# the case that was wrong: a narrow tied group under a concentrated Beta
# ---------------------------------------------------------------------------------------

ISSUE_S = np.r_[np.linspace(0, 0.4, 490), np.full(20, 0.5), np.linspace(0.6, 1, 490)]


@pytest.mark.parametrize("a", [1e3, 3e3, 1e4, 1e5, 1e6])
def test_rate_driven_inside_a_tied_group_under_a_concentrated_beta(a):
    # row 495 lies in the tied group of 20 at 0.5: rates [0.49, 0.51]. The hardness tends
    # to 1/2 as Beta(a, a) concentrates at 1/2 (E[2c clip((0.51 - c)/0.02, 0, 1)] -> 1/2);
    # before the closed forms it lost all precision (a = 1e5 gave 0.337, 1e6 gave 6e-6).
    y = np.zeros(1000, dtype=int)
    h = instance_hardness(y, ISSUE_S, "rate-driven", cost_distribution=(a, a))
    pieces = cost_curve_pieces("rate-driven", 0, ISSUE_S, 495)
    assert_close_to_reference(h[495], beta_expectation(pieces, a, a), f"a = b = {a:g}")


# ---------------------------------------------------------------------------------------
# every method, both classes, a, b from 0.01 to 1e6, on tie-heavy data
# ---------------------------------------------------------------------------------------


def tie_heavy_scores(seed=0, n=20_000):
    """Scores on a grid of 4000 values (about 5 per value) plus a few blocks of hundreds."""
    rng = np.random.default_rng(seed)
    grid = rng.integers(0, 4001, n)
    for start in rng.choice(n - 400, 6, replace=False):
        grid[start : start + rng.integers(50, 400)] = rng.integers(0, 4001)
    return grid / 4000.0


SCORES = tie_heavy_scores()


def rank_statistics_by_counting(s):
    """R (fraction scored <= s) and L (fraction tied with s) of every score."""
    order = np.sort(s)
    R = np.searchsorted(order, s, side="right") / s.size
    L = R - np.searchsorted(order, s, side="left") / s.size
    return R, L


def rows_near(position, target_z, mean, sd):
    """The rows whose ``position`` is nearest to ``mean + z sd`` for each z."""
    return [int(np.argmin(np.abs(position - (mean + z * sd)))) for z in target_z]


@pytest.mark.parametrize("ab", PAIRS, ids=[f"{a:g},{b:g}" for a, b in PAIRS])
def test_every_method_and_class_against_mpmath(ab):
    a, b = ab
    s = SCORES
    n = s.size
    mean = a / (a + b)
    sd = np.sqrt(a * b / (a + b + 1)) / (a + b)
    h0 = instance_hardness_by_method(np.zeros(n, int), s, METHODS, cost_distribution=ab)
    h1 = instance_hardness_by_method(np.ones(n, int), s, METHODS, cost_distribution=ab)
    R, L = rank_statistics_by_counting(s)
    middle = R - L / 2
    label = PAIRS.index(ab) % 2  # the class for the score-driven row alternates
    checks = [  # (method, class, row): in a tail, in a tied block near the mean, ...
        ("rate-driven", 0, rows_near(middle, [-3], mean, sd)[0]),
        ("rate-driven", 1, int(np.argmax(L - np.abs(middle - mean)))),
        ("score-driven", label, rows_near(s, [2 - 4 * label], mean, sd)[0]),
    ]
    for method, label, i in checks:
        value = (h1 if label else h0)[method][i]
        pieces = cost_curve_pieces(method, label, s, i)
        assert_close_to_reference(value, beta_expectation(pieces, a, b), (method, label, i))

    # score-fixed, score-uniform and rate-uniform: QI(c) = 2c p or 2(1 - c) p with p fixed,
    # so every row is 2 E[c] p or 2 E[1 - c] p; E[c] and E[1 - c] by the reference
    with mp.workdps(DIGITS):
        e = beta_expectation([(0, 1, lambda c: c)], a, b)
        e0, e1 = float(e), float(1 - e)
    expected = {
        "score-fixed": ((s > 0.5) * 2 * e0, (s <= 0.5) * 2 * e1),
        "score-uniform": (2 * e0 * s, 2 * e1 * (1 - s)),
        "rate-uniform": (2 * e0 * middle, 2 * e1 * (1 - middle)),
    }
    for method, (want0, want1) in expected.items():
        assert_allclose(h0[method], want0, rtol=1e-12, atol=1e-15, err_msg=method)
        assert_allclose(h1[method], want1, rtol=1e-12, atol=1e-15, err_msg=method)

    # rate-driven, every row: the class-0 value is 2 E[c] times the mean of the CDF of
    # Beta(a + 1, b) over the group's rates, so it lies between the CDF at the group's
    # ends; over the groups, which tile [0, 1], the means weighted by L integrate that
    # CDF: sum L h0 = 2 E[c] (1 - E_{a+1,b}[c]) = 2 E[c] b/(a + b + 1), likewise class 1.
    first = np.unique(s, return_index=True)[1]
    for h, p, q, e, lo, hi in (
        (h0["rate-driven"], a + 1, b, e0, R - L, R),
        (h1["rate-driven"], b + 1, a, e1, 1 - R, 1 - R + L),
    ):
        lower = 2 * e * special.betainc(p, q, lo)
        upper = 2 * e * special.betainc(p, q, hi)
        assert np.all(h >= lower * (1 - 1e-12) - TINY)  # TINY: where both underflow
        assert np.all(h <= upper * (1 + 1e-12) + TINY)
        total = np.sum(L[first] * h[first])
        assert total == pytest.approx(2 * e * q / (a + b + 1), rel=1e-12)

    # score-driven, every row: with the scores replaced by their rates R, score-driven and
    # uncorrected rate-driven both predict class 1 iff R > c
    for y in (np.zeros(n, int), np.ones(n, int)):
        assert_allclose(
            instance_hardness(y, R, "score-driven", cost_distribution=ab),
            instance_hardness(y, s, "rate-driven", ties="none", cost_distribution=ab),
            rtol=1e-9,
            atol=1e-300,
        )


def test_groups_at_the_ends_and_in_far_tails_against_mpmath():
    # Beta(1e6, 1e6): rows 30 standard deviations out (values near 1e-190 and 1e-220), 60
    # out (below the float range), and in the tied block of 13 that holds the mean. A
    # J-shaped Beta(0.01, 0.5): the tied blocks at rate 0 and at rate 1 and an untied row.
    s = np.r_[np.zeros(7), np.arange(1, 494) / 1000, np.full(13, 0.5)]
    s = np.r_[s, 0.5 + np.arange(1, 488) / 1000, np.ones(5)]
    n = s.size
    for ab, label, i in [
        ((1e6, 1e6), 0, 491),
        ((1e6, 1e6), 1, 513),
        ((1e6, 1e6), 0, 480),
        ((1e6, 1e6), 1, 507),
        ((0.01, 0.5), 0, 0),
        ((0.01, 0.5), 1, 7),
        ((0.01, 0.5), 0, n - 1),
    ]:
        h = instance_hardness(np.full(n, label), s, "rate-driven", cost_distribution=ab)
        pieces = cost_curve_pieces("rate-driven", label, s, i)
        assert_close_to_reference(h[i], beta_expectation(pieces, *ab), (ab, label, i))


# ---------------------------------------------------------------------------------------
# the other public functions that take a cost distribution
# ---------------------------------------------------------------------------------------


def test_pool_class_and_dissimilarity_use_the_same_exact_values():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 1000)
    S = np.column_stack([ISSUE_S, np.round(rng.random(1000), 2), ISSUE_S[::-1]])
    for ab in ((1e6, 1e6), (0.5, 1e4)):
        H = instance_hardness(y, S, "rate-driven", cost_distribution=ab)
        for j in range(S.shape[1]):
            assert_array_equal(
                H[:, j], instance_hardness(y, S[:, j], "rate-driven", cost_distribution=ab)
            )
        assert_allclose(pool_hardness(y, S, "rate-driven", cost_distribution=ab), H.mean(1))
        assert_allclose(
            class_hardness(y, S, "rate-driven", cost_distribution=ab),
            [H[y == 0].mean(0), H[y == 1].mean(0)],
        )
        D = algorithm_dissimilarity(y, S, "rate-driven", cost_distribution=ab)
        assert D[0, 2] == pytest.approx(np.abs(H[:, 0] - H[:, 2]).mean(), rel=1e-12)
    # the value of the worked case, through pool_hardness and class_hardness too
    h = pool_hardness(np.zeros(1000, int), ISSUE_S, "rate-driven", cost_distribution=(1e6, 1e6))
    pieces = cost_curve_pieces("rate-driven", 0, ISSUE_S, 495)
    assert_close_to_reference(h[495], beta_expectation(pieces, 1e6, 1e6))
