"""Figures of the report: the data they draw is checked, not just that they draw.

Worked examples come from Prudêncio (2019), Table 1 (model m1), whose rates the paper
works out by hand; references are numpy, scipy and scikit-learn.
"""

from __future__ import annotations

import base64
import io
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure

from metaeval.report import data, figures
from metaeval.report.html import figure_to_png_uri, figure_to_svg

# Prudêncio (2019), Table 1: labels and the scores of model m1 (instances x1..x10)
Y = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
M1 = np.array([0.70, 0.80, 0.80, 0.70, 0.80, 0.75, 0.10, 0.55, 0.80, 0.15])
TABLE1 = np.array([
    [0.70, 0.60, 0.00, 0.65], [0.80, 1.00, 1.00, 0.90], [0.80, 0.95, 0.93, 0.88],
    [0.70, 0.25, 0.91, 0.48], [0.80, 0.68, 0.78, 0.74], [0.75, 0.64, 0.83, 0.70],
    [0.10, 0.37, 0.78, 0.24], [0.55, 0.30, 0.95, 0.43], [0.80, 0.72, 1.00, 0.76],
    [0.15, 0.25, 0.87, 0.20]])


def _line_data(ax, gid):
    return [(np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float))
            for line in ax.lines if line.get_gid() == gid]


def _segments(ax, gid):
    """The (x, y) of each segment of an axes' line collection(s) with this gid, NaN
    included (``get_segments`` leaves NaN points out)."""
    segments = [np.reshape(path.vertices, (-1, 2)) for coll in ax.collections
                if coll.get_gid() == gid for path in coll.get_paths()]
    return [(seg[:, 0], seg[:, 1]) for seg in segments]


# ---------------------------------------------------------------------------- cost curves
def test_rate_interpolation_interval_matches_prudencio_2019_worked_examples():
    low, high = data.rate_interpolation_interval(M1)
    # x6: score 0.75, six scores <= 0.75 -> R = 0.6; one tied -> previous rate 0.5
    assert (low[5], high[5]) == pytest.approx((0.5, 0.6))
    # x4: score 0.70, five scores <= 0.70 -> R = 0.5; tied with x1 -> previous rate 0.3
    assert (low[3], high[3]) == pytest.approx((0.3, 0.5))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=30), st.integers(1, 3))
def test_rate_interpolation_interval_equals_brute_force_counts(values, n_models):
    rng = np.random.default_rng(len(values))
    S = np.column_stack([rng.permutation(np.array(values, float) / 5)
                         for _ in range(n_models)])
    low, high = data.rate_interpolation_interval(S)
    below = (S[None, :, :] < S[:, None, :]).mean(axis=1)   # share strictly below
    at_most = (S[None, :, :] <= S[:, None, :]).mean(axis=1)  # R(s)
    np.testing.assert_allclose(low, below)
    np.testing.assert_allclose(high, at_most)


def test_rate_driven_curve_draws_the_interpolated_stretch_dashed():
    d = data.cost_curve_data(Y, M1[:, None], [5, 3], methods=["rate-driven"])
    fig = figures.instance_cost_curves(d.c, d.curves, methods=d.methods, instances=d.labels,
                                       models=["m1"], interpolated=d.interpolated,
                                       hardness=d.hardness)
    x6_ax, x4_ax = fig.axes  # the rows in the order given: x6 (row 5), then x4 (row 3)
    (x, q), = _segments(x6_ax, "interpolated")
    # x6 (class 0): loss 2c up to the previous rate 0.5, interpolated down to 0 at R = 0.6
    assert (x.min(), x.max()) == pytest.approx((0.5, 0.6))
    assert (q[0], q[-1]) == pytest.approx((1.0, 0.0))
    (x, q), = _segments(x4_ax, "interpolated")
    # x4 (class 1): loss 0 up to 0.3, interpolated up to 2(1 - 0.5) = 1 at R = 0.5
    assert (x.min(), x.max()) == pytest.approx((0.3, 0.5))
    assert (q[0], q[-1]) == pytest.approx((0.0, 1.0))
    # the solid part leaves the interpolated stretch out
    (xs, qs), = _segments(x6_ax, "solid")
    assert np.isnan(qs[(xs >= 0.5) & (xs <= 0.6)]).all()
    assert np.isfinite(qs[(xs < 0.5) | (xs > 0.6)]).all()


def test_drawn_curves_integrate_to_the_instance_hardness():
    # the area under each drawn curve is the closed-form hardness (Prudêncio 2019, eqs. 6 and 9)
    d = data.cost_curve_data(Y, TABLE1, np.arange(10))
    from metaeval.hardness import instance_hardness

    for i, m in enumerate(d.methods):
        area = np.trapezoid(d.curves[i], d.c, axis=-1)  # (rows, models)
        np.testing.assert_allclose(area, instance_hardness(Y, TABLE1, m), atol=1e-4)
    # x6 with m1, rate-driven: R^2 + L(L/3 - R) = 0.36 + 0.1 (0.1/3 - 0.6) = 0.30333...
    rd = d.methods.index("rate-driven")
    assert np.trapezoid(d.curves[rd, 5, 0], d.c) == pytest.approx(0.36 + 0.1 * (0.1 / 3 - 0.6),
                                                                   abs=2e-4)


def test_instance_cost_curves_layout_and_validation():
    c = np.linspace(0, 1, 11)
    curves = np.zeros((2, 3, 4, 11))
    fig = figures.instance_cost_curves(c, curves, methods=["score-fixed", "score-driven"],
                                       instances=["a", "b", "c"], models=list("ABCD"))
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 6
    assert [t.get_text() for t in fig.legends[0].get_texts()] == list("ABCD")
    with pytest.raises(ValueError, match="models"):
        figures.instance_cost_curves(c, curves, methods=["a", "b"], instances=list("abc"))
    with pytest.raises(ValueError, match="c must be an increasing"):
        figures.instance_cost_curves(c[::-1], curves, methods=["a", "b"], instances=list("abc"),
                                     models=list("ABCD"))
    with pytest.raises(ValueError, match="curves has 11 cost proportions"):
        figures.instance_cost_curves(c[:5], curves, methods=["a", "b"], instances=list("abc"),
                                     models=list("ABCD"))


def test_class_cost_curves_show_class_hardness_from_prudencio_2019_table_1():
    d = data.class_cost_curve_data(Y, M1[:, None], methods=["score-driven", "score-fixed"])
    # score-driven class hardness = mean squared error per class (Prudêncio 2019, eqs. 16, 18)
    ch0 = np.mean(M1[Y == 0] ** 2)
    ch1 = np.mean((1 - M1[Y == 1]) ** 2)
    np.testing.assert_allclose(d.hardness[0], [ch0, ch1])
    # score-fixed: share of errors at t = 0.5: class 0 has 4 of 6 scores > 0.5, class 1 none
    np.testing.assert_allclose(d.hardness[1], [4 / 6, 0.0])
    # each class curve integrates to its class hardness; on the even grid of step h = 0.005
    # a jump of height <= 2 between two nodes costs at most h in the trapezoid rule
    np.testing.assert_allclose(np.trapezoid(d.curves, d.c, axis=-1), d.hardness, atol=5e-3)
    fig = figures.class_cost_curves(d.c, d.curves, d.hardness, methods=d.methods)
    texts = [t.get_text() for t in fig.axes[0].texts if t.get_gid() == "class-hardness"]
    assert texts == [f"CH = {ch0:.3f}", f"CH = {ch1:.3f}"]  # in class order
    # which class is which: one legend for the figure, not one per panel
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["class 0", "class 1"]


def test_class_cost_curves_are_the_class_means_of_every_instance_curve():
    # the closed forms (both classes) and the chunked path (one class) against the pool
    # mean of the instance curves at every grid point, on heavily tied scores
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 80)
    S = rng.integers(0, 6, (80, 3)) / 5
    d = data.class_cost_curve_data(y, S)
    for i, m in enumerate(d.methods):
        Q = data._curves(y, S, m, d.c).mean(axis=1)
        np.testing.assert_allclose(d.curves[i], [Q[y == 0].mean(0), Q[y == 1].mean(0)],
                                   rtol=0, atol=1e-12)
    ones = np.ones(80, dtype=int)
    a = data.class_cost_curve_data(ones, S, chunk=7)
    b = data.class_cost_curve_data(ones, S, chunk=500)
    np.testing.assert_allclose(a.curves, b.curves)
    assert np.isnan(a.curves[:, 0]).all() and not np.isnan(a.curves[:, 1]).any()
    for i, m in enumerate(a.methods):
        np.testing.assert_allclose(a.curves[i, 1], data._curves(ones, S, m, a.c).mean((0, 1)),
                                   rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="hardness must have shape"):
        data.class_cost_curve_data(y, S, hardness=np.zeros((80, 2)))


def test_loss_at_costs_is_the_pool_mean_of_prudencio_2019_curves():
    # score-driven, class 0 instance: 2c when s > c, else 0 (Prudêncio 2019, eq. 15)
    S = np.array([[0.3, 0.7], [0.6, 0.2]])
    got = data.loss_at_costs([0, 1], S, [0.5], ["score-driven"])
    # row 0: (0 + 2 * 0.5) / 2; row 1 (class 1, eq. 17: 2(1 - c) when s <= c): (0 + 1) / 2
    np.testing.assert_allclose(got[:, 0, 0], [0.5, 0.5])


# ---------------------------------------------------------------------------- maps
def test_pca_projection_agrees_with_scikit_learn():
    from sklearn.decomposition import PCA
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4)) @ rng.normal(size=(4, 4))
    xy, explained = data.pca_projection(pd.DataFrame(X))
    pca = PCA(2).fit(StandardScaler().fit_transform(X))
    ref = pca.transform(StandardScaler().fit_transform(X))
    np.testing.assert_allclose(np.abs(xy), np.abs(ref), atol=1e-9)
    np.testing.assert_allclose(explained, pca.explained_variance_ratio_)


def test_pca_projection_encodes_categories_and_missing_values():
    X = pd.DataFrame({"a": [1.0, np.nan, 3.0, 4.0], "b": ["x", "y", None, "x"]})
    xy, explained = data.pca_projection(X)
    assert xy.shape == (4, 2) and np.isfinite(xy).all()
    assert 0 < explained.sum() <= 1 + 1e-12
    with pytest.raises(ValueError, match="X must have at least 2 instances"):
        data.pca_projection(X.iloc[:1])


def test_hardness_maps_colour_each_class_by_its_hardness():
    xy = np.arange(20, dtype=float).reshape(10, 2)
    H = np.column_stack([np.linspace(0, 1, 10), np.linspace(1, 0, 10)])
    fig = figures.hardness_maps(xy, Y, H, methods=["score-driven", "rate-driven"])
    assert len(fig.axes) == 5  # 2 classes x 2 methods + colour bar
    for k, row in enumerate(((0, 1), (2, 3))):
        for j, idx in enumerate(row):
            grey, coloured = fig.axes[idx].collections
            assert len(grey.get_offsets()) == int((Y != k).sum())
            np.testing.assert_allclose(np.sort(coloured.get_array()), np.sort(H[Y == k, j]))
            assert coloured.get_clim() == (0.0, 1.0)
    assert fig.axes[2].get_title() == "class 1 · SD · CH = 0.17"  # mean of 0, 1/9, 2/9, 3/9


def test_cost_hardness_maps_panels_and_validation():
    xy = np.arange(20, dtype=float).reshape(10, 2)
    losses = np.random.default_rng(0).uniform(0, 2, (10, 2, 3))
    fig = figures.cost_hardness_maps(xy, Y, losses, methods=["score-driven", "rate-driven"],
                                     cost_proportions=[0.2, 0.5, 0.8], target_class=0)
    assert len(fig.axes) == 7
    coloured = fig.axes[3].collections[1]  # c = 0.5, rate-driven
    np.testing.assert_allclose(np.sort(coloured.get_array()), np.sort(losses[Y == 0, 1, 1]))
    with pytest.raises(ValueError, match="target_class"):
        figures.cost_hardness_maps(xy, Y, losses, methods=["a", "b"],
                                   cost_proportions=[0.2, 0.5, 0.8], target_class=2)
    with pytest.raises(ValueError, match="y must hold the labels 0 and 1"):
        figures.hardness_maps(xy, Y + 1, losses[:, :, 0], methods=["a", "b"])


def test_projection_and_instance_space_maps():
    xy = np.random.default_rng(0).normal(size=(10, 2))
    fig = figures.projection_map(xy, Y)
    assert [len(c.get_offsets()) for c in fig.axes[0].collections] == [6, 4]
    values = pd.DataFrame({"kDN": np.linspace(0, 1, 10), "rate-driven": np.r_[np.nan, 0.5 *
                                                                              np.ones(9)]})
    fig = figures.instance_space_map(xy, values)
    assert [ax.get_title() for ax in fig.axes[:2]] == ["kDN", "rate-driven"]
    grey, coloured = fig.axes[1].collections
    assert len(grey.get_offsets()) == 1 and len(coloured.get_offsets()) == 9


# ---------------------------------------------------------------------------- dendrograms
def test_dendrograms_mark_the_cut_and_keep_scipys_leaf_order():
    from scipy.cluster.hierarchy import dendrogram, linkage

    D = np.array([[0, 0.05, 0.4, 0.5], [0.05, 0, 0.42, 0.52], [0.4, 0.42, 0, 0.3],
                  [0.5, 0.52, 0.3, 0]])
    from scipy.spatial.distance import squareform

    Z = linkage(squareform(D), "average")
    labels = ["3NN", "5NN", "NB", "SVM"]
    fig = figures.dendrograms({"score-driven": Z, "rate-driven": Z}, labels,
                              cut_height={"score-driven": 0.2, "rate-driven": 0.35})
    assert len(fig.axes) == 2
    for ax, cut in zip(fig.axes, (0.2, 0.35), strict=True):
        (_, yy), = _line_data(ax, "cut")
        assert yy[0] == pytest.approx(cut)
        ticks = [t.get_text() for t in ax.get_xticklabels()]
        assert ticks == dendrogram(Z, labels=labels, no_plot=True)["ivl"]
    with pytest.raises(ValueError, match="not a valid linkage"):
        figures.dendrograms({"sd": Z}, labels[:3])


def test_default_cut_height_is_the_middle_of_the_widest_gap():
    # merges at 0.05, 0.3, 0.46: gaps 0.25 and 0.16 -> cut at (0.05 + 0.3) / 2
    Z = [[0, 1, 0.05, 2], [2, 3, 0.3, 2], [4, 5, 0.46, 4]]
    assert data.default_cut_height(Z) == pytest.approx(0.175)


def test_dissimilarity_matrices_equal_brute_force_mean_absolute_differences():
    from metaeval.hardness import instance_hardness

    D = data.dissimilarity_matrices(Y, TABLE1, ["score-driven", "rate-driven"])
    for m, M in D.items():
        H = instance_hardness(Y, TABLE1, m)
        ref = np.array([[np.mean(np.abs(H[:, a] - H[:, b])) for b in range(4)]
                        for a in range(4)])
        np.testing.assert_allclose(M, ref, atol=1e-12)


def test_mean_hardness_table_equals_scikit_learn_global_measures():
    from sklearn.metrics import accuracy_score, brier_score_loss, mean_absolute_error

    table = data.mean_hardness_table(Y, TABLE1, ["m1", "m2", "m3", "m4"],
                                     ["score-fixed", "score-driven", "score-uniform"])
    for j, name in enumerate(table.index):
        s = TABLE1[:, j]
        assert table.loc[name, "score-driven"] == pytest.approx(brier_score_loss(Y, s))
        assert table.loc[name, "score-uniform"] == pytest.approx(mean_absolute_error(Y, s))
        assert table.loc[name, "score-fixed"] == pytest.approx(1 - accuracy_score(Y, s > 0.5))


def test_choose_instances_takes_the_hardest_and_a_typical_one_per_class():
    H = np.array([[0.1], [0.9], [0.5], [0.4], [0.2], [0.8], [0.3], [0.6], [0.0], [0.7]])
    # class 1, rows 0-3 (0.1, 0.9, 0.5, 0.4): hardest row 1; median 0.45, nearest 0.5 and
    # 0.4 tie, the lower row wins: row 2. Class 0, rows 4-9 (0.2, 0.8, 0.3, 0.6, 0.0, 0.7):
    # hardest row 5; median 0.45, nearest 0.3 (row 6) and 0.6 (row 7): row 6
    assert data.choose_instances(Y, H).tolist() == [1, 2, 5, 6]


# ------------------------------------------------------------- Abdulrahman & Brazdil (2014)
def test_arr_curves_break_at_the_pole():
    from metaeval.ranking import arr_sweep

    x = np.linspace(-20, 20, 401)
    accd = [0.5]
    arr = arr_sweep(accd, log2_ratio=x)["value"].to_numpy()[None]
    pole = -np.log2(10) / 0.5  # 1 + 0.5 log10(r) = 0 at r = 10^-2: log2 r = -6.64
    fig = figures.arr_curves(x, arr, accd=accd, poles=[pole])
    (px, _), = _line_data(fig.axes[0], "pole")
    assert px[0] == pytest.approx(-6.643856, abs=1e-6)
    curve = next(line for line in fig.axes[0].lines if line.get_gid() is None)
    yv = np.asarray(curve.get_ydata(), float)
    left, right = yv[x < pole][-3:], yv[x > pole][:3]
    # no drawn segment joins the two sides of the pole
    assert np.isnan(np.r_[left[-1:], right[:1]]).any()
    assert np.nanmax(np.abs(yv)) <= 6.0 + 10.0  # clipped to the view (+ one span)


def test_a3r_and_iso_a3r_curves():
    x = np.linspace(-16, 16, 33)
    fig = figures.a3r_curves(x, [2.0 ** (-x / 8)], n_roots=[8])
    line = fig.axes[0].lines[0]
    assert line.get_ydata()[x.tolist().index(8.0)] == pytest.approx(0.5)  # 2^(-8/8)
    assert fig.axes[0].get_yscale() == "log"
    fig = figures.iso_a3r_curves(x, [1.1 * 2.0 ** (x / 8)], levels=[1.1], n_root=8)
    assert fig.legends[0].get_texts()[0].get_text() == "A3R = 1.1"
    with pytest.raises(ValueError, match="levels has 2 values"):
        figures.iso_a3r_curves(x, [x], levels=[1.0, 1.1], n_root=8)


def test_critical_difference_diagram_best_left_bar_and_groups():
    ranks = pd.Series({"NB": 3.6, "RF": 1.2, "LR": 2.0, "DT": 3.2})
    fig = figures.critical_difference_diagram(ranks, 1.1, [("RF", "LR"), ("LR", "DT"),
                                                          ("DT", "NB")])
    ax = fig.axes[0]
    x_of = {line.get_gid()[5:]: line.get_xdata()[0] for line in ax.lines
            if str(line.get_gid()).startswith("rank:")}
    assert x_of["RF"] < x_of["LR"] < x_of["DT"] < x_of["NB"]  # best (rank 1) on the left
    (bx, _), = _line_data(ax, "cd-bar")
    assert bx[1] - bx[0] == pytest.approx(1.1) and bx[0] == pytest.approx(1.0)
    groups = _line_data(ax, "group")
    assert len(groups) == 3
    spans = sorted((round(g[0][0] + 0.03, 6), round(g[0][1] - 0.03, 6)) for g in groups)
    assert spans == [(1.2, 2.0), (2.0, 3.2), (3.2, 3.6)]
    labels = [t.get_text() for t in ax.texts if "(" in t.get_text() and "CD" not in t.get_text()]
    assert "RF (1.20)" in labels
    with pytest.raises(ValueError, match="unknown algorithms"):
        figures.critical_difference_diagram(ranks, 1.0, [("RF", "SVM")])
    with pytest.raises(ValueError, match="cd must be"):
        figures.critical_difference_diagram(ranks, -1.0)


def test_rank_table_cells():
    r = pd.DataFrame({"AR": [1.0, 2.0], "A3R": [2.0, 1.0]}, index=["LR", "NB"])
    s = pd.DataFrame({"AR": [1.5, 1.5], "A3R": [0.9, 1.1]}, index=["LR", "NB"])
    fig = figures.rank_table(r, scores=s)
    texts = sorted(t.get_text() for t in fig.axes[0].texts)
    assert texts == ["1\n(1.1)", "1\n(1.5)", "2\n(0.9)", "2\n(1.5)"]
    with pytest.raises(ValueError, match="ranks must be a non-empty DataFrame"):
        figures.rank_table(pd.DataFrame())


# -------------------------------------------------------- the algorithm-benchmark web page
def test_ranked_bars_order_best_first_both_ways():
    fig = figures.ranked_bars({"a": 1.0, "b": 3.0, "c": 2.0}, xlabel="x", title="t")
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["b", "c", "a"]
    fig = figures.ranked_bars({"a": 1.0, "b": 3.0, "c": 2.0}, xlabel="x", title="t",
                              higher_is_better=False)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["a", "c", "b"]
    with pytest.raises(ValueError, match="at least one finite value"):
        figures.ranked_bars({"a": np.nan}, xlabel="x", title="t")


def test_heatmap_stability_grid_and_portfolio_draw_their_data():
    m = pd.DataFrame([[10.0, 90.0], [50.0, np.nan]], index=["A", "B"], columns=["d1", "d2"])
    fig = figures.heatmap(m, title="t", value_label="v")
    np.testing.assert_array_equal(fig.axes[0].images[0].get_array().filled(np.nan), m.values)
    assert sorted(t.get_text() for t in fig.axes[0].texts) == ["10.00", "50.00", "90.00"]
    g = pd.DataFrame([[0.4, 0.3], [0.2, 0.05]], index=[1, 5], columns=[1, 2])
    fig = figures.stability_grid(g)
    np.testing.assert_allclose(fig.axes[0].collections[0].get_array().reshape(2, 2), g.values)
    steps = pd.DataFrame({"algorithm": ["RF", "NB", "LR"], "value": [70.0, 85.0, 86.0]})
    fig = figures.portfolio_curve(steps)
    np.testing.assert_allclose(fig.axes[0].lines[0].get_ydata(), [70, 85, 86])
    with pytest.raises(ValueError, match="column 'value'"):
        figures.portfolio_curve(steps[["algorithm"]])
    corr = pd.DataFrame([[1.0, 0.2], [0.2, 1.0]], index=list("ab"), columns=list("ab"))
    assert figures.correlation_heatmap(corr).axes[0].images[0].get_clim() == (-1.0, 1.0)


# ---------------------------------------------------------------------------- embedding
def test_svg_markup_is_xml_with_ids_unique_across_figures():
    def fig():
        f = Figure(figsize=(2, 2))
        f.add_subplot().plot([0, 1], [1, 0])
        return f

    a, b = figure_to_svg(fig()), figure_to_svg(fig())
    ids = []
    for markup in (a, b):
        root = ET.fromstring(markup)
        assert root.tag.endswith("svg")
        ids += [el.get("id") for el in root.iter() if el.get("id")]
    assert len(ids) == len(set(ids)) > 0


def test_png_uri_decodes_to_the_figure_size():
    import matplotlib.image as mpimg

    f = Figure(figsize=(2, 1))
    f.add_subplot().scatter([0, 1], [0, 1], c=[0.2, 0.8])
    uri = figure_to_png_uri(f, dpi=50)
    img = mpimg.imread(io.BytesIO(base64.b64decode(uri.split(",", 1)[1])), format="png")
    assert img.shape[:2] == (50, 100)
    with pytest.raises(ValueError, match="fig must be a matplotlib Figure"):
        figure_to_png_uri("not a figure")


@pytest.mark.parametrize("models", [[f"m{i}" for i in range(8)],
                                    [f"sgd:synthetic={90 + i}" for i in range(8)],
                                    [f"svm_rbf:C=10,gamma=0.1,k={i}" for i in range(8)]])
def test_the_instance_cost_curves_legend_fits_in_the_figure(models):
    # long configuration names (a wide pool) get fewer legend columns, never a clipped one
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    c = np.linspace(0, 1, 11)
    curves = np.random.default_rng(0).random((2, 4, 8, 11))
    fig = figures.instance_cost_curves(c, curves, methods=["score-driven", "rate-driven"],
                                       instances=list("abcd"), models=models)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    box = fig.legends[0].get_window_extent(canvas.get_renderer())
    assert 0 <= box.x0 and box.x1 <= fig.bbox.width
    assert len(fig.legends[0].get_texts()) == 8


def test_the_figures_package_keeps_the_public_names_of_the_module_it_was():
    # metaeval.report.figures became a package of one module per paper or theme: every
    # name it had is still there, a figure function (not a submodule of the same name)
    import types

    public = ["METHOD_ABBREVIATIONS", "a3r_curves", "arr_curves", "class_cost_curves",
              "correlation_heatmap", "cost_hardness_maps", "critical_difference_diagram",
              "dendrograms", "hardness_maps", "heatmap", "instance_cost_curves",
              "instance_space_map", "iso_a3r_curves", "portfolio_curve", "projection_map",
              "rank_table", "ranked_bars", "smallest_font_pt", "stability_grid"]
    assert sorted(figures.__all__) == sorted(public)
    for name in public[1:] + ["drawing_style"]:
        assert callable(getattr(figures, name)), name
        assert not isinstance(getattr(figures, name), types.ModuleType), name
    assert (figures.FONT, figures.TITLE, figures.MAX_WIDTH) == (10.0, 11.0, 7.2)
    assert figures.METHOD_ABBREVIATIONS["rate-driven"] == "RD"


# ------------------------------------------------- content kept where the drawing changed
SIX_DATASETS = ("sonar", "haberman", "ecoli3", "vote", "hepatitis", "glass-2_vs_rest")


@pytest.mark.parametrize("name", SIX_DATASETS)
def test_instance_cost_curves_draw_every_curve_of_the_data(name):
    # the curves are collections (not a line per model): each panel still holds, per
    # model in the models' order and colours, the solid curve and its interpolated
    # stretch, which make the whole curve, and its markers on the curve
    from matplotlib.colors import to_rgba_array

    from metaeval.datasets import load_dataset
    from metaeval.hardness import instance_hardness
    from metaeval.report.figures import _style

    y = load_dataset(name).y
    rng = np.random.default_rng(len(y))
    S = np.round(rng.uniform(0, 1, (len(y), 4)), 1)  # tied scores: interpolated stretches
    models = ["NB", "DT", "RF", "LR"]
    methods = ["score-fixed", "score-driven", "rate-driven"]
    H = np.stack([instance_hardness(y, S, m) for m in methods], axis=1)
    rows = data.choose_instances(y, H[:, 1], per_class=2)
    d = data.cost_curve_data(y, S, rows, methods=methods)
    fig = figures.instance_cost_curves(d.c, d.curves, methods=d.methods, instances=d.labels,
                                       models=models, interpolated=d.interpolated,
                                       hardness=d.hardness)
    axes = np.asarray(fig.axes).reshape(len(methods), len(rows))
    colours = to_rgba_array([_style._algorithm_colours(models)[m] for m in models])
    seen_interpolated = 0
    for i in range(len(methods)):
        for j in range(len(rows)):
            ax = axes[i, j]
            (solid,), (dashed,), (marks,) = (
                [a for a in ax.collections if a.get_gid() == gid]
                for gid in ("solid", "interpolated", "markers"))
            np.testing.assert_array_equal(solid.get_colors(), colours)
            np.testing.assert_array_equal(dashed.get_colors(), colours)
            assert [ls[1] is not None for ls in dashed.get_linestyle()] == [True]  # dashed
            pieces = zip(_segments(ax, "solid"), _segments(ax, "interpolated"), strict=True)
            on_curve = []
            for k, ((xs, qs), (x, q)) in enumerate(pieces):
                np.testing.assert_array_equal(xs, d.c)
                got = qs.copy()
                if x.size:
                    at = np.searchsorted(d.c, x)
                    np.testing.assert_array_equal(d.c[at], x)
                    assert np.isnan(qs[at]).all()  # left to the dashed stretch...
                    got[at] = q  # ...which fills it
                    seen_interpolated += 1
                np.testing.assert_allclose(got, d.curves[i, j, k], equal_nan=True)
                on_curve += [(xv, yv) for xv, yv in zip(xs, qs, strict=True)
                             if np.isfinite(yv)]
            for collection in (solid, dashed, marks):  # clipped to its panel
                assert collection.get_clip_box() is not None
            # every marker sits on a solid curve of its model's colour
            assert len(marks.get_offsets()) > 0
            points = set(on_curve)
            assert all(tuple(p) in points for p in marks.get_offsets())
            assert {tuple(c) for c in marks.get_facecolor()} <= {tuple(c) for c in colours}
            assert ax.get_title() == f"IH = {d.hardness[i, j]:.3f}"
    assert seen_interpolated > 0


@pytest.mark.parametrize("seed", range(6))
def test_the_stability_grid_marks_the_10_percent_level_between_cells(seed):
    # drawn along the cells' edges: each segment lies between a cell under 10 % and a
    # neighbour at or over it, and every such pair of cells has its segment
    from matplotlib.collections import LineCollection

    rng = np.random.default_rng(seed)
    n_rows, n_cols = 3 + seed % 3, 2 + seed % 4
    values = rng.uniform(0, 0.25, (n_rows, n_cols))
    values[0, 0] = np.nan if seed % 2 else values[0, 0]
    grid = pd.DataFrame(values, index=range(1, n_rows + 1), columns=range(2, n_cols + 2))
    fig = figures.stability_grid(grid)
    ax = fig.axes[0]
    texts = sorted(t.get_text() for t in ax.texts)
    assert texts == sorted(f"{100 * v:.0f}" for v in values.ravel() if np.isfinite(v))
    drawn = [c for c in ax.collections if isinstance(c, LineCollection)]
    segments = {tuple(map(tuple, np.round(s, 6))) for c in drawn for s in c.get_segments()}
    expected = set()
    low = values < 0.1
    for i in range(n_rows):
        for j in range(n_cols):
            if j + 1 < n_cols and np.isfinite(values[i, [j, j + 1]]).all() \
                    and low[i, j] != low[i, j + 1]:
                expected.add(((j + 0.5, i - 0.5), (j + 0.5, i + 0.5)))
            if i + 1 < n_rows and np.isfinite(values[[i, i + 1], j]).all() \
                    and low[i, j] != low[i + 1, j]:
                expected.add(((j - 0.5, i + 0.5), (j + 0.5, i + 0.5)))
    assert segments == expected
    assert ("dashed: the 10 % level" in fig.axes[1].get_xlabel()) == bool(expected)


def test_neighbouring_cost_curve_panels_keep_their_end_ticks_apart():
    # a panel's "1" beside the next panel's "0" read "10": the end labels sit inside
    # their own panel
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    c = np.linspace(0, 1, 11)
    fig = figures.instance_cost_curves(c, np.zeros((2, 4, 3, 11)),
                                       methods=["score-fixed", "score-driven"],
                                       instances=list("abcd"), models=list("ABC"))
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    bottom = np.asarray(fig.axes).reshape(2, 4)[-1]
    for left, right in zip(bottom[:-1], bottom[1:], strict=True):
        one = left.get_xticklabels()[-1]
        zero = right.get_xticklabels()[0]
        assert (one.get_text(), zero.get_text()) == ("1", "0")
        a, b = one.get_window_extent(renderer), zero.get_window_extent(renderer)
        assert a.x1 <= left.bbox.x1 + 0.5 and b.x0 >= right.bbox.x0 - 0.5
        assert b.x0 - a.x1 >= 0.1 * fig.dpi  # a tenth of an inch between them, at least


@pytest.mark.parametrize("shape", [(300, 12), (9, 40), (50, 50), (2, 1), (3, 7)])
def test_pca_projection_gives_the_leading_components_of_the_full_svd(shape):
    # the eigenvectors of the smaller Gram matrix (tall or wide data) against the SVD of
    # the encoded, centred matrix, with categories and a constant column in it
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(shape[0] * 100 + shape[1])
    n, d = shape
    X = pd.DataFrame(rng.normal(size=(n, d)) * rng.uniform(0.1, 10, size=d))
    X["cat"] = rng.choice(["a", "b", "c"], size=n)
    X["const"] = 1.0
    xy, explained = data.pca_projection(X)
    M = np.hstack([StandardScaler().fit_transform(X.drop(columns=["cat", "const"])),
                   pd.get_dummies(X["cat"]).to_numpy(float), np.zeros((n, 1))])
    M -= M.mean(axis=0)
    U, sv, Vt = np.linalg.svd(M, full_matrices=False)
    k = min(2, sv.size)
    ref = U[:, :k] * sv[:k]
    signs = np.sign(Vt[np.arange(k), np.argmax(np.abs(Vt[:k]), axis=1)])
    np.testing.assert_allclose(xy[:, :k], ref * np.where(signs == 0, 1, signs),
                               atol=1e-9 * max(1.0, sv[0]))
    np.testing.assert_allclose(explained[:k], sv[:k] ** 2 / (sv ** 2).sum(), atol=1e-12)
    # each component's largest loading is positive: the signs do not depend on the method
    assert np.all(np.abs(xy[:, k:]) == 0)


@pytest.mark.parametrize("styled", [False, True], ids=["matplotlib", "report"])
def test_each_panels_class_hardness_sits_where_a_legend_of_the_panel_puts_it(styled):
    # the key drawn as two lines and two texts against the legend it replaces, on the
    # same panels: texts and handles within half a point (72 dpi, an SVG figure's units),
    # in matplotlib's settings and in the report's drawing style (unhinted text)
    from contextlib import nullcontext

    with figures.drawing_style() if styled else nullcontext():
        _key_against_a_legend()


def _key_against_a_legend():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    d = data.class_cost_curve_data(Y, M1[:, None], methods=["score-driven", "score-fixed"])
    fig = figures.class_cost_curves(d.c, d.curves, d.hardness, methods=d.methods)
    fig.set_dpi(72)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    for ax in fig.axes[:2]:
        texts = [t for t in ax.texts if t.get_gid() == "class-hardness"]
        keys = [ln for ln in ax.lines if ln.get_gid() == "class-hardness"]
        curves = [ln for ln in ax.lines if ln.get_gid() != "class-hardness"]
        assert len(texts) == len(keys) == len(curves) == 2
        legend = ax.legend(curves, [t.get_text() for t in texts], fontsize=10,
                           loc="upper center", frameon=False, handlelength=1.6,
                           borderaxespad=0.1, labelspacing=0.15)
        canvas.draw()
        for mine, theirs in zip(texts, legend.get_texts(), strict=True):
            np.testing.assert_allclose(mine.get_window_extent(renderer).extents,
                                       theirs.get_window_extent(renderer).extents, atol=0.5)
        for mine, theirs in zip(keys, legend.get_lines(), strict=True):
            ends = [ln.get_transform().transform(np.column_stack(ln.get_data()))[[0, -1]]
                    for ln in (mine, theirs)]
            np.testing.assert_allclose(ends[0], ends[1], atol=0.5)
            assert (mine.get_color(), mine.get_linestyle()) == \
                (theirs.get_color(), theirs.get_linestyle())
        legend.remove()
