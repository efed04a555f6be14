"""Properties of metaeval.hardness that must hold for any input (hypothesis).

* The closed forms equal a brute-force integration of the instance cost curve, where
  the curve comes from literal classifiers (for rate-based methods: fill a quota of c*n
  class-0 predictions in score order, splitting the straddling tied group pro rata), and
  the integral is exact piecewise Gauss-Legendre quadrature between the breakpoints.
* Under Beta(a, b) cost proportions they equal scipy.integrate.quad of the same curve
  times the Beta density, split at the breakpoints.
* Dataset means equal the global measures of scikit-learn, with and without ties.
* Rate-based hardness depends on ranks only.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy import integrate
from scipy import special as sp
from scipy.stats import rankdata
from sklearn.metrics import brier_score_loss, mean_absolute_error, roc_auc_score, zero_one_loss

from metaeval.hardness import (
    METHODS,
    class_cost_curve,
    instance_cost_curve,
    instance_hardness,
    instance_hardness_by_method,
    pool_cost_curve,
)

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GAUSS_X, GAUSS_W = np.polynomial.legendre.leggauss(3)  # exact up to degree 5


# ---------------------------------------------------------------------------------------
# strategies
# ---------------------------------------------------------------------------------------


@st.composite
def labelled_scores(draw, *, max_n=25, max_models=3, both_classes=False, ties=None):
    """Labels and scores on a coarse grid k/K (heavy ties) or all distinct."""
    n = draw(st.integers(2 if both_classes else 1, max_n))
    m = draw(st.integers(1, max_models))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=np.int8)
    if both_classes:
        y[0], y[1] = 0, 1
    distinct = draw(st.booleans()) if ties is None else not ties
    if distinct:
        cols = [draw(st.permutations(range(n))) for _ in range(m)]
        s = np.array(cols, dtype=np.float64).T / max(n - 1, 1)
    else:
        k = draw(st.integers(1, 6))
        cells = draw(st.lists(st.integers(0, k), min_size=n * m, max_size=n * m))
        s = np.array(cells, dtype=np.float64).reshape(n, m) / k
    if m == 1 and draw(st.booleans()):
        s = s[:, 0]
    return y, s


thresholds = st.sampled_from([0.0, 0.25, 1 / 3, 0.5, 0.6, 1.0])
beta_params = st.tuples(
    st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.5]), st.sampled_from([0.7, 1.0, 2.0, 4.0])
)


# ---------------------------------------------------------------------------------------
# brute force: literal classifiers and piecewise quadrature
# ---------------------------------------------------------------------------------------


def quota_class1_probability(col, c):
    """Rate-driven, literally: a quota of c*n class-0 predictions filled in score order.

    The tied group that straddles the quota has each member predicted class 0 with
    probability (quota left) / (group size). Returns P(class 1), shape (n, len(c)).
    """
    n = col.size
    values, counts = np.unique(col, return_counts=True)
    remaining = np.asarray(c, dtype=np.float64) * n
    p0 = np.empty((n, remaining.size))
    for value, count in zip(values, counts, strict=True):
        take = np.clip(remaining, 0.0, count)
        p0[col == value] = take / count
        remaining = remaining - take
    return 1.0 - p0


def untied_rate_class1_probability(col, c):
    """Rate-driven without the tie correction: class 0 iff R(s) <= c."""
    rate = (col[None, :] <= col[:, None]).sum(axis=1) / col.size
    return (rate[:, None] > np.asarray(c)[None, :]).astype(np.float64)


def integrate_pieces(f, breakpoints):
    """int_0^1 f(x) dx, exact when f is a polynomial of degree <= 5 between breakpoints."""
    b = np.unique(np.clip(np.concatenate([[0.0, 1.0], np.ravel(breakpoints)]), 0.0, 1.0))
    lo, hi = b[:-1], b[1:]
    half = (hi - lo)[:, None] / 2.0
    nodes = ((lo + hi)[:, None] / 2.0 + half * GAUSS_X).ravel()
    weights = (half * GAUSS_W).ravel()
    return f(nodes) @ weights


def literal_class1_probability(method, col, c, t, ties):
    """P(predicted class 1) for one model column at cost proportions c: (n, len(c))."""
    n = col.size
    c = np.asarray(c, dtype=np.float64)
    rate_breaks = np.arange(n + 1) / n
    if method == "score-fixed":
        return np.repeat((col > t)[:, None], c.size, axis=1).astype(np.float64)
    if method == "score-driven":
        return (col[:, None] > c[None, :]).astype(np.float64)
    if method == "score-uniform":  # threshold tau ~ U[0, 1]: integrate [s > tau]
        p1 = integrate_pieces(lambda tau: (col[:, None] > tau).astype(float), col)
        return np.repeat(p1[:, None], c.size, axis=1)
    rate_driven = (
        quota_class1_probability if ties == "interpolate" else (untied_rate_class1_probability)
    )
    if method == "rate-driven":
        return rate_driven(col, c)
    if method == "rate-uniform":  # desired rate r ~ U[0, 1]
        p1 = integrate_pieces(lambda r: rate_driven(col, r), rate_breaks)
        return np.repeat(p1[:, None], c.size, axis=1)
    raise AssertionError(method)


def literal_cost_curve(method, y, col, c, t, ties):
    p1 = literal_class1_probability(method, col, c, t, ties)
    c = np.asarray(c, dtype=np.float64)
    return np.where(y[:, None] == 1, 2 * (1 - c) * (1 - p1), 2 * c * p1)


def columns(s):
    return [s] if s.ndim == 1 else [s[:, j] for j in range(s.shape[1])]


def stack_columns(values, s):
    return values[0] if s.ndim == 1 else np.stack(values, axis=1)


def breakpoints_of(col, t):
    return np.concatenate([np.arange(col.size + 1) / col.size, col, [t]])


def brute_force_hardness(method, y, s, t, ties):
    out = []
    for col in columns(s):
        out.append(
            integrate_pieces(
                lambda c, col=col: literal_cost_curve(method, y, col, c, t, ties),
                breakpoints_of(col, t),
            )
        )
    return stack_columns(out, s)


def beta_quad(qi, a, b, breakpoints):
    """quad of qi(c) * Beta(a, b) pdf(c) over [0, 1], split at the breakpoints. A singular
    end of the pdf (a < 1 at 0, b < 1 at 1) goes into QUADPACK's algebraic weight, so it
    is integrated exactly; everything else stays in the integrand.

    qi is evaluated a hair inside each piece: QUADPACK's weighted rule samples the piece's
    endpoints, where qi may jump to the next piece's value."""
    # a uniform grid as well, so that no piece hides a sharp peak of a concentrated pdf
    grid = np.linspace(0.0, 1.0, 21)
    pieces = np.unique(np.clip(np.concatenate([grid, breakpoints]), 0.0, 1.0))
    total = 0.0
    for lo, hi in zip(pieces[:-1], pieces[1:], strict=True):
        alpha = a - 1.0 if lo == 0.0 and a < 1.0 else 0.0
        beta = b - 1.0 if hi == 1.0 and b < 1.0 else 0.0
        nudge = 1e-13 * (hi - lo)

        def integrand(c, lo=lo, hi=hi, nudge=nudge, alpha=alpha, beta=beta):
            value = qi(min(max(c, lo + nudge), hi - nudge))
            return value * c ** (a - 1.0 - alpha) * (1.0 - c) ** (b - 1.0 - beta)

        if alpha or beta:
            value, _ = integrate.quad(
                integrand,
                lo,
                hi,
                weight="alg",
                wvar=(alpha, beta),
                epsabs=1e-15,
                epsrel=1e-13,
                limit=200,
            )
        else:
            value, _ = integrate.quad(integrand, lo, hi, epsabs=1e-15, epsrel=1e-13, limit=200)
        total += value
    return total / sp.beta(a, b)


def brute_force_beta_hardness(method, y, col, t, ties, a, b):
    breakpoints = breakpoints_of(col, t)
    return np.array(
        [
            beta_quad(
                lambda c, i=i: literal_cost_curve(method, y, col, [c], t, ties)[i, 0],
                a,
                b,
                breakpoints,
            )
            for i in range(col.size)
        ]
    )


# ---------------------------------------------------------------------------------------
# closed forms == brute force
# ---------------------------------------------------------------------------------------


@SETTINGS
@given(data=labelled_scores(), t=thresholds, ties=st.sampled_from(["interpolate", "none"]))
def test_closed_forms_equal_brute_force_integration_of_literal_cost_curves(data, t, ties):
    y, s = data
    hardness = instance_hardness_by_method(y, s, METHODS, t=t, ties=ties)
    for method in METHODS:
        expected = brute_force_hardness(method, y, s, t, ties)
        assert_allclose(hardness[method], expected, rtol=0, atol=1e-9, err_msg=method)


@SETTINGS
@given(
    data=labelled_scores(max_n=12),
    t=thresholds,
    ties=st.sampled_from(["interpolate", "none"]),
    method=st.sampled_from(METHODS),
    extra=st.lists(st.floats(0, 1), max_size=5),
)
def test_cost_curves_equal_literal_classifiers_including_at_breakpoints(
    data, t, ties, method, extra
):
    y, s = data
    n = y.size
    c = np.unique(np.concatenate([np.arange(n + 1) / n, np.ravel(s), [t], extra]))
    curves = instance_cost_curve(y, s, method, c, t=t, ties=ties)
    expected = stack_columns(
        [literal_cost_curve(method, y, col, c, t, ties) for col in columns(s)], s
    )
    assert_allclose(curves, expected, rtol=0, atol=1e-12)


@SETTINGS
@given(
    data=labelled_scores(max_n=12),
    t=thresholds,
    method=st.sampled_from(METHODS),
    picks=st.lists(st.integers(0, 11), min_size=1, max_size=6),
)
def test_cost_curves_of_chosen_rows_equal_the_literal_classifiers_rows(data, t, method, picks):
    # rows= computes only those instances' curves; the rates stay those among all rows
    y, s = data
    rows = np.array([p % y.size for p in picks])
    c = np.unique(np.concatenate([np.arange(y.size + 1) / y.size, np.ravel(s), [t]]))
    got = instance_cost_curve(y, s, method, c, t=t, rows=rows)
    expected = stack_columns(
        [literal_cost_curve(method, y, col, c, t, "interpolate") for col in columns(s)], s
    )[rows]
    assert_allclose(got, expected, rtol=0, atol=1e-12)


@SETTINGS
@given(
    data=labelled_scores(max_n=14, both_classes=True),
    t=thresholds,
    ties=st.sampled_from(["interpolate", "none"]),
    method=st.sampled_from(METHODS),
)
def test_class_cost_curves_are_the_class_means_of_the_instance_curves(data, t, ties, method):
    # the closed forms behind class_cost_curve (p1 constant in c, or a count of the
    # scores above c) against the mean of the literal instance curves, at the kinks too
    y, s = data
    c = np.unique(np.concatenate([np.linspace(0, 1, 11), np.ravel(s), [t]]))
    got = class_cost_curve(y, s, method, c, t=t, ties=ties)
    Q = instance_cost_curve(y, s, method, c, t=t, ties=ties)
    expected = np.stack([Q[y == 0].mean(axis=0), Q[y == 1].mean(axis=0)])
    assert_allclose(got, expected, rtol=0, atol=1e-12)


def test_cost_curve_rows_must_index_the_instances():
    with pytest.raises(ValueError, match="rows must index the 3 instances"):
        instance_cost_curve([0, 1, 0], [0.1, 0.5, 0.9], "rate-driven", 0.5, rows=[0, 3])
    with pytest.raises(ValueError, match="rows must be a 1-dimensional"):
        instance_cost_curve([0, 1, 0], [0.1, 0.5, 0.9], "rate-driven", 0.5, rows=[[0]])


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=labelled_scores(max_n=6, max_models=1),
    t=thresholds,
    ab=beta_params,
    ties=st.sampled_from(["interpolate", "none"]),
    method=st.sampled_from(METHODS),
)
def test_beta_hardness_equals_quad_of_the_cost_curve(data, t, ab, ties, method):
    y, s = data
    col = s if s.ndim == 1 else s[:, 0]
    a, b = ab
    h = instance_hardness(y, col, method, t=t, ties=ties, cost_distribution=(a, b))
    expected = brute_force_beta_hardness(method, y, col, t, ties, a, b)
    assert_allclose(h, expected, rtol=0, atol=1e-9)


@pytest.mark.parametrize("ab", [(0.7, 2.5), (3.0, 1.5), (40.0, 60.0)])
def test_beta_rate_driven_on_many_narrow_groups_equals_quad(ab):
    # n = 400: most tied groups are much narrower than their distance to 0 and 1, which
    # exercises the Gauss-Legendre branch. The reference integrates, with quad, instance
    # i's cost curve written from Prudêncio (2019), eqs. 21 and 25 (the latter with the corrected
    # weight (c - R + l/n)/(l/n)), with R and L counted here by brute force. (The curve
    # itself is checked against the literal quota classifier above.)
    rng = np.random.default_rng(5)
    n = 400
    s = np.round(rng.random(n), 3)
    y = rng.integers(0, 2, n)
    a, b = ab
    h = instance_hardness(y, s, "rate-driven", cost_distribution=ab)
    for i in rng.choice(n, 10, replace=False):
        R = np.sum(s <= s[i]) / n
        L = np.sum(s == s[i]) / n

        def qi(c, i=i, R=R, L=L):
            if y[i] == 0:
                return 2 * c * min(max((R - c) / L, 0.0), 1.0)  # eq. 21 and 2c below
            return 2 * (1 - c) * min(max((c - R + L) / L, 0.0), 1.0)  # eq. 25, 2(1-c) above

        assert h[i] == pytest.approx(beta_quad(qi, a, b, [R - L, R]), abs=1e-10)


@SETTINGS
@given(data=labelled_scores(), t=thresholds, ties=st.sampled_from(["interpolate", "none"]))
def test_beta_one_one_reproduces_the_uniform_closed_forms(data, t, ties):
    y, s = data
    for method in METHODS:
        assert_allclose(
            instance_hardness(y, s, method, t=t, ties=ties, cost_distribution=(1, 1)),
            instance_hardness(y, s, method, t=t, ties=ties),
            rtol=0,
            atol=1e-12,
            err_msg=method,
        )


@SETTINGS
@given(data=labelled_scores(), ab=beta_params)
def test_beta_reflection_swaps_classes_and_parameters(data, ab):
    # c -> 1 - c turns class-0 losses 2c into class-1 losses 2(1 - c): reflecting the
    # scores (s -> 1 - s, or -s for ranks) and swapping the labels and Beta(a, b) -> (b, a)
    # leaves the hardness unchanged. Not for score-fixed (s == t is class 0 on both sides)
    # nor ties="none" (its step sits at R, which counts the tied group on one side only).
    y, s = data
    a, b = ab
    for method, reflected in (
        ("score-driven", 1 - s),
        ("score-uniform", 1 - s),
        ("rate-driven", -s),
        ("rate-uniform", -s),
    ):
        assert_allclose(
            instance_hardness(1 - y, reflected, method, cost_distribution=(b, a)),
            instance_hardness(y, s, method, cost_distribution=(a, b)),
            rtol=0,
            atol=1e-12,
            err_msg=method,
        )


@pytest.mark.parametrize("method", METHODS)
def test_concentrated_beta_approaches_hardness_at_its_mode(method):
    # Beta(K mu, K (1 - mu)) -> a point mass at mu: IH -> QI(mu) where QI is continuous.
    y = np.array([0, 1, 0, 1, 0, 1, 1, 0])
    s = np.array([0.1, 0.3, 0.3, 0.55, 0.7, 0.8, 0.95, 0.95])
    mu, K = 0.43, 1e6
    at_mu = instance_cost_curve(y, s, method, mu)
    concentrated = instance_hardness(y, s, method, cost_distribution=(K * mu, K * (1 - mu)))
    assert_allclose(concentrated, at_mu, atol=5e-3)


# ---------------------------------------------------------------------------------------
# dataset means == global measures (scikit-learn)
# ---------------------------------------------------------------------------------------


@SETTINGS
@given(data=labelled_scores(max_n=40, both_classes=True), t=thresholds)
def test_dataset_means_equal_global_measures_from_sklearn(data, t):
    y, s = data
    pi0, pi1 = np.mean(y == 0), np.mean(y == 1)
    hardness = instance_hardness_by_method(y, s, t=t)
    for j, col in enumerate(columns(s)):
        mean = {m: (h if h.ndim == 1 else h[:, j]).mean() for m, h in hardness.items()}
        # roc_auc_score ranks class 1 (label 1) above class 0 for high s: the papers'
        # ranking is good when class 0 (their positives) scores low, so AUC is oriented
        # the same way and the loss falls as AUC rises.
        auc = roc_auc_score(y, col)
        assert mean["score-fixed"] == pytest.approx(
            zero_one_loss(y, (col > t).astype(int)), abs=1e-12
        )
        assert mean["score-driven"] == pytest.approx(brier_score_loss(y, col), abs=1e-12)
        assert mean["score-uniform"] == pytest.approx(mean_absolute_error(y, col), abs=1e-12)
        assert mean["rate-driven"] == pytest.approx(1 / 3 + pi0 * pi1 * (1 - 2 * auc), abs=1e-12)
        assert mean["rate-uniform"] == pytest.approx(1 / 2 + pi0 * pi1 * (1 - 2 * auc), abs=1e-12)


@SETTINGS
@given(data=labelled_scores(max_n=30))
def test_rate_statistics_agree_with_scipy_rankdata(data):
    y, s = data
    for col in columns(s):
        n = col.size
        R = rankdata(col, method="max") / n
        L = (rankdata(col, method="max") - rankdata(col, method="min") + 1) / n
        rd = instance_hardness(y, col, "rate-driven")
        assert_allclose(
            rd,
            np.where(y == 1, (1 - R) ** 2 + L * (L / 3 + 1 - R), R**2 + L * (L / 3 - R)),
            atol=1e-12,
        )
        # the tie-aware rate-uniform midpoint is (average rank - 1/2) / n, not rank / n
        mid = (rankdata(col, method="average") - 0.5) / n
        assert_allclose(
            instance_hardness(y, col, "rate-uniform"), np.where(y == 1, 1 - mid, mid), atol=1e-12
        )
        assert_allclose(
            instance_hardness(y, col, "rate-driven", ties="none"),
            np.where(y == 1, (1 - R) ** 2, R**2),
            atol=1e-12,
        )


# ---------------------------------------------------------------------------------------
# invariances and consistency
# ---------------------------------------------------------------------------------------


@SETTINGS
@given(
    data=labelled_scores(),
    ties=st.sampled_from(["interpolate", "none"]),
    transform=st.sampled_from(["exp", "affine", "dense-rank", "cube"]),
)
def test_rate_based_hardness_is_invariant_under_increasing_transforms(data, ties, transform):
    y, s = data
    f = {
        "exp": lambda x: 3.0 * np.exp(2.5 * x) - 4.0,
        "affine": lambda x: 7.0 * x - 2.0,
        "dense-rank": lambda x: rankdata(x, method="dense", axis=0).astype(float),
        "cube": lambda x: (x - 0.3) ** 3 * 1e3,
    }[transform]
    for method in ("rate-driven", "rate-uniform"):
        assert_array_equal(
            instance_hardness(y, f(s), method, ties=ties),
            instance_hardness(y, s, method, ties=ties),
        )


@SETTINGS
@given(data=labelled_scores(max_models=4), t=thresholds, ab=st.none() | beta_params)
def test_pool_columns_equal_single_model_calls(data, t, ab):
    y, s = data
    if s.ndim == 1:
        s = s[:, None]
    for method in METHODS:
        pool = instance_hardness(y, s, method, t=t, cost_distribution=ab)
        for j in range(s.shape[1]):
            assert_array_equal(
                pool[:, j], instance_hardness(y, s[:, j], method, t=t, cost_distribution=ab)
            )


def test_blocked_rank_statistics_and_chunked_curves_match(monkeypatch):
    import metaeval.hardness._instance as instance_module
    import metaeval.hardness._rates as rates_module

    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 37)
    y[:2] = [0, 1]
    S = np.round(rng.random((37, 5)), 1)
    c = np.linspace(0, 1, 23)
    expected = {m: instance_hardness(y, S, m) for m in METHODS}
    curves = {m: instance_cost_curve(y, S, m, c) for m in METHODS}
    classes = {m: class_cost_curve(y, S, m, c) for m in METHODS}
    pooled = {m: pool_cost_curve(y, S, m, c) for m in METHODS}
    monkeypatch.setattr(rates_module, "_BLOCK_SCORES", 40)  # one column per block
    monkeypatch.setattr(instance_module, "_CURVE_BLOCK", 50)  # rows and costs chunked
    for m in METHODS:
        assert_array_equal(instance_hardness(y, S, m), expected[m])
        assert_array_equal(instance_cost_curve(y, S, m, c), curves[m])
        assert_allclose(class_cost_curve(y, S, m, c), classes[m], rtol=0, atol=1e-14)
        assert_allclose(pool_cost_curve(y, S, m, c), pooled[m], rtol=0, atol=1e-14)
    monkeypatch.setattr(instance_module, "_CURVE_BLOCK", 500)  # costs chunked only
    for m in METHODS:
        assert_array_equal(instance_cost_curve(y, S, m, c), curves[m])


@SETTINGS
@given(
    data=labelled_scores(max_n=15, both_classes=True),
    t=thresholds,
    method=st.sampled_from(METHODS),
)
def test_class_and_pool_curves_are_means_of_instance_curves(data, t, method):
    y, s = data
    c = np.linspace(0, 1, 11)
    curves = instance_cost_curve(y, s, method, c, t=t)
    classes = class_cost_curve(y, s, method, c, t=t)
    assert_allclose(classes[0], curves[y == 0].mean(axis=0), atol=1e-14)
    assert_allclose(classes[1], curves[y == 1].mean(axis=0), atol=1e-14)
    if s.ndim == 2:
        assert_allclose(pool_cost_curve(y, s, method, c, t=t), curves.mean(axis=1), atol=1e-14)
    # and the class curves integrate to the class hardness
    fine = np.unique(np.concatenate([np.arange(y.size + 1) / y.size, np.ravel(s), [t]]))
    area = integrate_pieces(lambda x: class_cost_curve(y, s, method, x, t=t), fine)
    h = instance_hardness(y, s, method, t=t)
    assert_allclose(area[0], h[y == 0].mean(axis=0), atol=1e-12)
    assert_allclose(area[1], h[y == 1].mean(axis=0), atol=1e-12)
