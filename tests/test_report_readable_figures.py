"""Each figure of the report, checked for what a reader needs from it.

Text of at least 10 pt and figures at most ~7.3 in wide (full size inside an 800 px
window at 96 px per inch); colour maps a colour-blind reader can read; shared
scales where panels are compared; labels that do not sit on the data; the
settings the rankings used; and the tables' marks, digits and provenance.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from matplotlib.colors import to_rgb
from scipy.cluster.hierarchy import linkage

from metaeval.report import figures
from metaeval.report._plots import StudyView, plot
from metaeval.report.figures import _style as fig_style
from metaeval.report.figures import drawing_style
from metaeval.report.figures import similarity as fig_sim

METHODS = ["score-fixed", "score-driven", "rate-driven", "score-uniform", "rate-uniform"]
ALGS = ["3NN", "5NN", "DT", "LR", "NB", "RF", "SVM_LIN", "SVM_RBF"]
RNG = np.random.default_rng(0)


def _luminance(colour) -> float:
    r, g, b = to_rgb(colour)
    return 0.299 * r + 0.587 * g + 0.114 * b


# deuteranopia, severity 1 (Machado, Oliveira & Fernandes 2009), on linear RGB
_DEUTERANOPIA = np.array([[0.367322, 0.860646, -0.227968],
                          [0.280085, 0.672501, 0.047413],
                          [-0.011820, 0.042940, 0.968881]])


def _as_deuteranope_sees(colour) -> np.ndarray:
    """The sRGB colour a deuteranope sees instead of ``colour``."""
    rgb = np.asarray(to_rgb(colour))
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    out = np.clip(_DEUTERANOPIA @ lin, 0, 1)
    return np.where(out <= 0.0031308, 12.92 * out, 1.055 * out ** (1 / 2.4) - 0.055)


def _drawn(fig):
    fig.draw_without_rendering()  # tick labels get their text
    return fig


def _renderer(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def _synthetic_figures():
    c = np.linspace(0, 1, 101)
    n = 60
    xy = RNG.normal(size=(n, 2))
    y = (RNG.random(n) < 0.4).astype(int)
    Z = linkage(RNG.random(len(ALGS) * (len(ALGS) - 1) // 2), "average")
    x = np.linspace(-20, 20, 201)
    grid = pd.DataFrame(RNG.uniform(0.08, 0.35, (12, 10)), index=range(1, 13),
                        columns=range(1, 11))
    yield "instance cost curves", lambda: figures.instance_cost_curves(
        c, RNG.uniform(0, 2, (5, 4, 8, c.size)), methods=METHODS, models=ALGS,
        instances=["class 0, hardest\nrow 28"] * 4, hardness=RNG.random((5, 4)))
    yield "class cost curves", lambda: figures.class_cost_curves(
        c, RNG.uniform(0, 1, (5, 2, c.size)), RNG.random((5, 2)), methods=METHODS)
    yield "hardness maps", lambda: figures.hardness_maps(xy, y, RNG.random((n, 5)),
                                                         methods=METHODS)
    yield "loss maps", lambda: figures.cost_hardness_maps(
        xy, y, RNG.uniform(0, 2, (n, 2, 3)), methods=METHODS[1:3],
        cost_proportions=[0.2, 0.5, 0.8], target_class=1)
    yield "projection", lambda: figures.projection_map(xy, y, title="d: PCA of the features")
    yield "dendrograms", lambda: figures.dendrograms(
        {m: Z for m in METHODS}, ALGS, cut_height=0.3, title="Algorithm dissimilarity")
    yield "ARR", lambda: figures.arr_curves(
        x, 1 / (1 + 0.3 * np.log10(2.0 ** x))[None], accd=[0.3], poles=[-np.log2(10) / 0.3])
    yield "A3R", lambda: figures.a3r_curves(x, [2.0 ** (-x / 8)], n_roots=[8])
    yield "iso-A3R", lambda: figures.iso_a3r_curves(x, [2.0 ** (x / 8)], levels=[1.0], n_root=8)
    ranks = pd.DataFrame({k: RNG.permutation(8) + 1.0 for k in ("AR", "SRR", "SW", "ARR",
                                                                 "A3R")}, index=ALGS)
    yield "rank table", lambda: figures.rank_table(ranks, scores=ranks / 7)
    yield "critical difference", lambda: figures.critical_difference_diagram(
        dict(zip(ALGS, np.linspace(1.5, 6.5, 8), strict=True)), 2.0, [ALGS[:3]])
    yield "bars", lambda: figures.ranked_bars(dict(zip(ALGS, RNG.uniform(10, 90, 8), strict=True)),
                                      xlabel="value captured (%)", title="Value captured")
    yield "heatmap", lambda: figures.heatmap(pd.DataFrame(RNG.uniform(0, 100, (15, 8)),
                                                  columns=ALGS), title="t", value_label="v",
                                     fmt="{:.0f}")
    yield "bootstrap", lambda: figures.stability_grid(grid)
    yield "portfolio", lambda: figures.portfolio_curve(pd.DataFrame(
        {"algorithm": ALGS, "value": np.linspace(73.9, 100.0, 8)}))
    yield "instance space", lambda: figures.instance_space_map(
        xy, pd.DataFrame({"kDN": RNG.random(n), "RD pool hardness": RNG.random(n) / 2}),
        title="d: classic and cost-sensitive hardness")
    yield "correlation", lambda: figures.correlation_heatmap(pd.DataFrame(
        RNG.uniform(-1, 1, (21, 5)), index=[f"m{i}" for i in range(21)],
        columns=["SF", "SD", "RD", "SU", "RU"]))


_BUILDERS = dict(_synthetic_figures())


@pytest.mark.parametrize("name", list(_BUILDERS))
def test_text_is_10_pt_and_the_figure_fits_an_800_px_window(name):
    fig = _drawn(_BUILDERS[name]())
    assert figures.smallest_font_pt(fig) >= figures.FONT, name
    # 7.3 in at 96 px per inch: inside the report's column at 800 px, so shown at full size
    assert fig.get_size_inches()[0] <= 7.3, (name, fig.get_size_inches())


def test_the_ranks_heatmap_is_colour_blind_safe_and_tells_close_scores_apart():
    r = pd.DataFrame({"SRR": [1.0, 2.0, 3.0, 4.0]}, index=list("abcd"))
    s = pd.DataFrame({"SRR": [1.052, 1.049, 1.047, 1.046]}, index=list("abcd"))
    fig = figures.rank_table(r, scores=s)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts == ["1\n(1.052)", "2\n(1.049)", "3\n(1.047)", "4\n(1.046)"]
    cmap = fig.axes[0].images[0].get_cmap()
    best, worst = (_as_deuteranope_sees(cmap(v)) for v in (0.0, 1.0))
    assert np.linalg.norm(best - worst) > 0.5  # red-yellow-green: 0.11, one grey


def test_dendrograms_share_one_scale_and_label_each_rows_axis():
    Z1 = linkage([0.1, 0.5, 0.45], "average")
    Z2 = linkage([0.05, 0.2, 0.25], "average")
    fig = figures.dendrograms({m: (Z1 if i % 2 else Z2) for i, m in enumerate(METHODS)},
                              ["a", "b", "c"], cut_height={m: 0.1 for m in METHODS})
    assert len({ax.get_ylim() for ax in fig.axes}) == 1
    assert [bool(ax.get_ylabel()) for ax in fig.axes] == [True, False, False, True, False]
    # the cut is in the title, in one format, not a label on the branches
    assert all(ax.get_title().endswith("cut at 0.10") for ax in fig.axes)
    assert not any(t.get_text().startswith("cut") for ax in fig.axes for t in ax.texts)
    assert "Coloured branches" in " ".join(t.get_text() for t in fig.texts)
    # clusters in Okabe & Ito's colour-blind-safe colours, the joins above the cut grey
    from matplotlib.colors import to_hex

    used = {to_hex(c) for coll in fig.axes[0].collections for c in coll.get_colors()}
    assert used <= {"#e69f00", "#56b4e9", "#009e73", "#d55e00", "#cc79a7", "#0072b2",
                    "#595959"}, used
    assert len(used) >= 2


def test_class_cost_curve_panels_keep_their_tick_labels_apart():
    c = np.linspace(0, 1, 11)
    fig = figures.class_cost_curves(c, np.ones((3, 2, 11)) / 2, np.full((3, 2), 0.5),
                                    methods=METHODS[:3])
    renderer = _renderer(fig)
    for left, right in zip(fig.axes, fig.axes[1:], strict=False):
        a = max(t.get_window_extent(renderer).x1 for t in left.get_xticklabels())
        b = min(t.get_window_extent(renderer).x0 for t in right.get_xticklabels())
        assert b - a > 3, "x tick labels of neighbouring panels touch"
    assert len(fig.legends) == 1  # which class is which: once


def test_instance_cost_curves_say_when_lines_coincide_and_show_zero_losses():
    c = np.linspace(0, 1, 11)
    curves = np.zeros((1, 2, 3, 11))
    curves[0, 1] = np.array([2 * c, c, 0 * c])
    fig = figures.instance_cost_curves(c, curves, methods=["score-fixed"], models=list("ABC"),
                                       instances=["class 0, hardest", "class 0, typical"])
    first, second = fig.axes
    assert any("coincide" in t.get_text() for t in first.texts)
    assert not any("coincide" in t.get_text() for t in second.texts)
    assert first.get_ylim()[0] < 0  # a zero loss is drawn above the axis line
    (marks,) = [a for a in second.collections if a.get_gid() == "markers"]
    shapes = {np.round(p.vertices, 9).tobytes() for p in marks.get_paths()}
    assert len(shapes) == 3  # each algorithm its own marker, not only its colour
    # and eight algorithms' colours stay apart for a deuteranope (DT/NB/RF were one olive)
    seen = [_as_deuteranope_sees(c) for c in fig_style._algorithm_colours(ALGS).values()]
    gaps = [np.linalg.norm(a - b) for i, a in enumerate(seen) for b in seen[i + 1:]]
    assert min(gaps) > 0.15  # matplotlib's default colours: 0.115


def test_hardness_maps_start_dark_so_easy_instances_show():
    xy = RNG.normal(size=(10, 2))
    y = np.r_[np.zeros(5, int), np.ones(5, int)]
    fig = figures.hardness_maps(xy, y, np.zeros((10, 2)), methods=METHODS[:2])
    coloured = fig.axes[0].collections[1]
    assert _luminance(coloured.get_cmap()(0.0)) < 0.4
    # class 0's column first, methods down: axes run class 0, then class 1
    assert fig.axes[0].get_title().startswith("class 0 · SF")
    assert fig.axes[2].get_title().startswith("class 1 · SF")
    fig = figures.cost_hardness_maps(xy, y, np.full((10, 1, 1), 0.3), methods=["rate-driven"],
                                     cost_proportions=[0.5], target_class=0)
    assert fig.axes[0].collections[1].get_clim() == (0.0, pytest.approx(0.3))


def test_bootstrap_grid_rows_are_equal_and_its_scale_spans_the_data():
    grid = pd.DataFrame([[0.35, 0.2], [0.2, 0.12], [0.1, 0.08]], index=[1, 4, 15],
                        columns=[1, 2])
    fig = figures.stability_grid(grid)
    ax = fig.axes[0]
    mesh = ax.collections[0]
    assert mesh.get_clim() == (pytest.approx(0.05), pytest.approx(0.35))
    assert [t.get_text() for t in ax.get_yticklabels()] == ["1", "4", "15"]
    assert np.allclose(np.diff(ax.get_yticks()), 1.0)  # one equal row per size
    assert sorted(t.get_text() for t in ax.texts if t.get_text().isdigit()) == sorted(
        ["35", "20", "20", "12", "10", "8"])


def test_bars_and_portfolio_keep_labels_clear_and_say_units():
    fig = figures.ranked_bars({"a": 1.0, "b": 3.0}, xlabel="x", title="t")
    assert all(t.xyann[0] > 0 for t in fig.axes[0].texts)  # off the bar's end
    steps = pd.DataFrame({"algorithm": ["RF", "NB"], "value": [73.9, 100.0]})
    fig = figures.portfolio_curve(steps)
    ax = fig.axes[0]
    assert "%" in ax.get_ylabel()
    renderer = _renderer(fig)
    frame_top = ax.get_window_extent(renderer).y1
    assert all(t.get_window_extent(renderer).y1 < frame_top for t in ax.texts)


def test_arr_curves_show_the_accd_used_on_a_time_ratio_axis():
    fig = plot("arr", accd=[0.2, 0.7], used=0.1)
    ax = fig.axes[0]
    assert "Tp / Tq" in ax.get_xlabel()
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels[0].startswith("AccD = 0.1") and labels[0].endswith("(used)")
    thick = max(ax.lines, key=lambda line: line.get_linewidth())
    assert thick.get_label() == labels[0]
    assert not ax.texts  # pole labels are in the key, not on the curves
    # the pole of AccD = 0.1 (a time ratio of 10^-10) is inside the drawn range
    poles = [line.get_xdata()[0] for line in ax.lines if line.get_gid() == "pole"]
    assert min(poles) == pytest.approx(-10 * np.log2(10))


# ----------------------------------------------------------------- from a real study
@pytest.fixture(scope="module")
def view(quick_store):
    # labor and hepatitis, NB, DT and LR, 3 folds: run once for the whole test run
    return StudyView(quick_store)


def test_runtime_score_says_which_datasets_it_used(view):
    title = plot("runtime-scores", view).axes[0].get_title()
    assert title == "Runtime score (over all 2 datasets)"
    title = plot("runtime-scores", view, n_slowest=1).axes[0].get_title()
    assert title == "Runtime score (over the 1 slowest of 2 datasets)"
    assert "lower is faster" in plot("runtime-scores", view).axes[0].get_xlabel()


def test_value_by_dataset_follows_the_store_order(view):
    fig = plot("heatmap-datasets", view)
    rows = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert rows == view.dataset_names()  # labor (57 rows) before hepatitis (155)


def test_metric_names_are_words(view):
    fig = plot("heatmap-metrics", view)
    rows = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert "balanced accuracy" in rows and not any("_" in r for r in rows)


def test_instance_cost_curve_columns_say_hardest_and_typical_per_class(view):
    fig = plot("instance-cost-curves", view, dataset="labor")
    heads = [t.get_text().split("\n")[0] for t in fig.texts]
    assert heads == ["class 0, hardest", "class 0, typical", "class 1, hardest",
                     "class 1, typical"]


def test_instance_space_uses_the_maps_pca_and_one_labelled_scale(view):
    fig = plot("instance-space", view, dataset="labor")
    assert "% of variance" in fig.axes[0].get_xlabel()
    assert len(fig.axes) == 3  # two panels, one colour bar
    assert fig.axes[2].get_ylabel().startswith("hardness")
    assert {ax.collections[-1].get_clim() for ax in fig.axes[:2]} == {(0.0, 1.0)}


def test_correlation_shows_the_classic_by_cost_sensitive_block(view):
    fig = plot("instance-space-correlation", view, dataset="labor")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["SF", "SD", "RD", "SU", "RU"]
    rows = [t.get_text() for t in ax.get_yticklabels()]
    assert rows[0] == "kDN" and "true-class probability loss" in rows
    texts = [t.get_text() for t in ax.texts]
    assert len(texts) == len(rows) * 5  # a value (or "n/a") in every cell


def test_report_tables_mark_the_best_rank_and_show_settings(quick_report):
    text = quick_report.read_text()  # the report of the same quick study
    rankings = text[text.index('<section id="rankings">'):text.index('<section id="benchmark">')]
    assert rankings.count('<td class="best">1</td>') >= 5  # rank 1 of each of the 5 methods
    summary = text[:text.index('<section id="findings">')]
    assert "max_iter = 1000" in summary  # LR's hyperparameters
    assert '<th class="text">folds</th>' in summary
    assert "0.0000" not in text.replace("0.00000", "")  # three decimals, not four


def test_folds_used_and_their_warning():
    from metaeval.report.html import _folds_used

    tasks = pd.DataFrame({"dataset": ["a", "a", "b"], "algorithm": ["NB", "LR", "NB"],
                          "status": ["done", "done", "done"], "n_folds": [3, 3, 10],
                          "warning": ["folds reduced from 10 to 3: smallest class has 3 rows",
                                      "folds reduced from 10 to 3: smallest class has 3 rows",
                                      None]})
    assert _folds_used(tasks, "a") == ("3", "folds reduced from 10 to 3: smallest class has "
                                            "3 rows")
    assert _folds_used(tasks, "b") == ("10", "")


@given(st.floats(min_value=1e-300, max_value=1e300, allow_nan=False, allow_infinity=False))
def test_nice_ceilings_are_round_and_close_above(x):
    top = fig_sim._nice_ceiling(x)
    assert x * (1 - 1e-12) <= top <= x * 4 / 3 * (1 + 1e-12)  # 1.5+ -> 2 is the widest gap
    mantissa = top / 10.0 ** np.floor(np.log10(top))
    assert any(np.isclose(mantissa, m) for m in fig_sim._NICE)


def test_class_cost_curves_and_dendrograms_end_on_round_values():
    c = np.linspace(0, 1, 11)
    curves = np.stack([np.minimum(c, 1 - c), 0.3 * c])[None] * 0.93
    fig = figures.class_cost_curves(c, curves, [[0.2, 0.1]], methods=["score-driven"])
    assert fig.axes[0].get_ylim() == (0.0, 0.75)  # 1.45 x 0.465 = 0.674, up to a quarter
    Z = linkage([0.1, 0.31, 0.2], method="average")
    fig = figures.dendrograms({"score-driven": Z}, ["A", "B", "C"])
    assert fig.axes[0].get_ylim() == (0.0, 0.3)  # 1.08 x 0.255 = 0.275, up to 0.3


def _texts_outside(fig) -> list[str]:
    """Visible texts (tick labels of ticks in view) that reach outside the figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    shown = set()
    for ax in fig.axes:
        for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            lo, hi = min(lo, hi), max(lo, hi)
            for tick in axis.get_major_ticks():
                if lo - 1e-9 <= tick.get_loc() <= hi + 1e-9:
                    shown.add(id(tick.label1))
                    shown.add(id(tick.label2))
    ticks = {id(t) for ax in fig.axes for t in ax.get_xticklabels() + ax.get_yticklabels()}
    out = []
    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text().strip():
            continue
        if id(t) in ticks and id(t) not in shown:
            continue
        box = t.get_window_extent(renderer)
        if box.x0 < -0.5 or box.y0 < -0.5 or box.x1 > fig.bbox.x1 + 0.5 \
                or box.y1 > fig.bbox.y1 + 0.5:
            out.append(t.get_text())
    return out


def test_a_long_title_and_axis_label_beside_long_names_stay_in_the_figure():
    # the "Metric error cases" title was cut: centred on an axes made narrow by long
    # metric names, it ran off the figure's right edge
    rates = {"negative log-likelihood": 1.2, "area under the ROC curve": 3.4, "accuracy": 10.0,
             "Brier score (mean squared error)": 5.0, "F1": 2.0, "balanced accuracy": 7.0}
    with drawing_style():
        fig = figures.ranked_bars(
            rates, xlabel="error-case rate (%): at most 2 other\nmetrics agree; lower is better",
            title="Metric error cases\n(all metrics agree on 57 % of 420 comparisons)",
            higher_is_better=False, fmt="{:.1f}")
    assert _texts_outside(fig) == []
    assert fig.axes[0].get_title().startswith("Metric error cases")


def test_the_stability_grid_keeps_its_colour_bar_label_and_numbers_clear():
    # the colour bar's rotated label lost its second line at the figure's edge, and the
    # 10 % contour's label lay on the cells' numbers
    rng = np.random.default_rng(3)
    grid = pd.DataFrame(np.sort(rng.uniform(0, 0.4, (6, 5)), axis=0)[::-1],
                        index=[5, 10, 20, 30, 40, 51], columns=[2, 3, 4, 5, 6])
    with drawing_style():
        fig = figures.stability_grid(grid)
    assert _texts_outside(fig) == []
    ax, bar = fig.axes
    numbers = [t.get_text() for t in ax.texts]
    assert numbers == [f"{100 * v:.0f}" for v in grid.to_numpy().ravel()]  # only numbers
    assert "different conclusion" in bar.get_xlabel()  # horizontal, under the grid


def test_values_printed_on_cells_have_a_contrast_of_at_least_4_5():
    # black or white by WCAG contrast, not by a brightness threshold (which put white on
    # mid-tone cells of viridis and magma at under 3:1)
    from matplotlib import colormaps

    from metaeval.report.figures._style import _text_colour

    def luminance(rgb):
        c = np.asarray(rgb, dtype=float)
        c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
        return float(c @ [0.2126, 0.7152, 0.0722])

    cells = [colormaps[name](x)[:3] for name in ("viridis", "magma_r", "RdBu_r", "plasma")
             for x in np.linspace(0, 1, 101)]
    cells += list(np.random.default_rng(0).uniform(0, 1, (500, 3)))
    for cell in cells:
        text = to_rgb(_text_colour(cell))
        hi, lo = sorted([luminance(text), luminance(cell)], reverse=True)
        assert (hi + 0.05) / (lo + 0.05) >= 4.5, (cell, text)


def test_the_greedy_portfolio_title_stays_in_the_figure():
    steps = pd.DataFrame({"algorithm": ["RF", "NB", "LR"], "value": [70.0, 85.0, 86.0]})
    with drawing_style():
        fig = figures.portfolio_curve(steps)
    assert _texts_outside(fig) == []
    assert fig.axes[0].get_title().replace("\n", " ") == (
        "Greedy portfolio: value captured by the best so far")


def test_the_instance_space_and_the_selection_share_one_encoding_of_the_features(view):
    # the view encodes a dataset's features once for both; the measures are those of
    # encoding them inside hardness_frame
    import pandas as pd

    from metaeval.hardness.classic import encode_features
    from metaeval.instance_space import hardness_frame

    fresh = StudyView(view.store)
    ds = fresh.dataset("labor")
    y, S, algs = fresh.scores("labor")
    X = fresh.encoded("labor")
    np.testing.assert_array_equal(X, encode_features(ds.X, list(ds.categorical)))
    assert fresh.encoded("labor") is X  # kept for the dataset's selection
    frame = fresh.instance_space("labor")[0]
    expected = hardness_frame(ds.X, y, S, algs, categorical=list(ds.categorical), t=fresh.t)
    pd.testing.assert_frame_equal(frame, expected, check_exact=True)
    assert frame.attrs == expected.attrs
