"""A figure drawn on a frame drawn once gives the very pixels of drawing it whole."""

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.backends.backend_agg import FigureCanvasAgg

from metaeval.report import _backdrop, data, figures
from metaeval.report._agg import TextOnceCanvas
from metaeval.report.figures import benchmark as fig_bench
from metaeval.report.figures import cost_curves as fig_cc
from metaeval.report.figures import drawing_style
from metaeval.report.figures import instance_space as fig_space
from metaeval.report.figures import maps as fig_maps
from metaeval.report.figures import similarity as fig_sim

METHODS = ["score-fixed", "score-driven", "rate-driven", "score-uniform", "rate-uniform"]


def _input(seed, n_models, *, hardness=True, names=None, rows=4):
    """Instance cost curves of ``rows`` rows (instances 0 and 1: one of each class) of
    tied scores (few distinct values, many ties)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 60)
    y[:2] = [0, 1]
    S = rng.integers(0, 5, (60, n_models)) / 4.0  # scores in {0, .25, .5, .75, 1}
    S[:, -1] = S[:, 0]  # two models that agree: some panels coincide
    d = data.cost_curve_data(y, S, list(range(rows)), methods=METHODS)
    return {"c": d.c, "curves": d.curves, "methods": d.methods, "instances": d.labels,
            "models": names or [f"model {k}" for k in range(n_models)],
            "interpolated": d.interpolated, "hardness": d.hardness if hardness else None}


def _whole(kwargs, dpi):
    """The pixels of the whole figure drawn the usual way (on the report's canvas, whose
    text tests/test_report_agg.py compares with matplotlib's own)."""
    with drawing_style():  # drawn in the report's style, as the report draws it
        fig = figures.instance_cost_curves(**kwargs)
        fig.set_dpi(dpi)
        fig.set_facecolor("white")
        canvas = TextOnceCanvas(fig)
        canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].copy(), figures.smallest_font_pt(fig)


def _blitted(kwargs, dpi):
    checked = fig_cc._instance_cost_curves_checked(**kwargs)
    frame = checked["frame"]
    with drawing_style():
        made = _backdrop.backdrop(("test", tuple(sorted(frame.items()))),
                                  lambda: fig_cc._instance_cost_curves_frame(**frame), dpi)
        img, small = made.draw(fig_cc._instance_cost_curves_content, checked)
    assert img.mode == "RGBA" and np.asarray(img)[..., 3].min() == 255  # opaque
    return np.asarray(img)[..., :3], small, made


@pytest.mark.parametrize("dpi", [60, 160])
def test_curves_on_a_reused_frame_are_pixel_for_pixel_the_whole_figure(dpi):
    _backdrop._BACKDROPS.clear()
    frames = set()
    # successive figures on the same frame: other curves, other titles; the models (and
    # so the legend) are the frame's. Two rows of panels (one instance of each class): the
    # figure of four rows is matched pixel for pixel in the tests below
    for seed, n_models, pool in [(0, 3, "a"), (1, 3, "a"), (2, 6, "a"), (3, 3, "a"),
                                 (4, 3, "b")]:
        names = [f"alg {pool}-{k}" for k in range(n_models)]
        kwargs = _input(seed, n_models, names=names, rows=2)
        whole, small_whole = _whole(kwargs, dpi)
        got, small, made = _blitted(kwargs, dpi)
        frames.add(id(made))
        assert got.shape == whole.shape
        assert np.array_equal(got, whole), f"{np.sum(np.any(got != whole, axis=-1))} pixels differ"
        assert small == small_whole
    # one frame for the 3 models "a" (reused), one for 6 (two legend rows), one for "b"
    assert len(frames) == 3


def test_without_panel_titles_the_frame_differs_and_still_matches():
    _backdrop._BACKDROPS.clear()
    for hardness in (True, False):
        kwargs = _input(5, 2, hardness=hardness)
        whole, _ = _whole(kwargs, 50)
        got, _, _ = _blitted(kwargs, 50)
        assert np.array_equal(got, whole)
    assert len(_backdrop._BACKDROPS) == 2


def test_the_frame_is_left_as_it_was_and_at_most_a_few_are_kept():
    _backdrop._BACKDROPS.clear()
    kwargs = _input(7, 3)
    _, _, made = _blitted(kwargs, 40)
    fig = made.fig
    children = [len(ax.get_children()) for ax in fig.axes], len(fig.get_children())
    made.canvas.restore_region(made.background)
    blank = made.rgba()
    for _ in range(2):
        got, _, again = _blitted(kwargs, 40)
        assert again is made
        assert ([len(ax.get_children()) for ax in fig.axes], len(fig.get_children())) == children
        assert all(ax.get_title() == "" for ax in fig.axes)
        assert not np.array_equal(made.rgba(), blank)  # the content was drawn ...
    made.canvas.restore_region(made.background)
    assert np.array_equal(made.rgba(), blank)  # ... on a frame that did not change
    # more frames than are kept: small ones (one empty axes each), as quick to draw as a
    # frame can be, each under a key of its own
    for k in range(_backdrop.MAX_BACKDROPS + 2):
        _backdrop.backdrop(("test-small", k), _small_frame, 41 + k)
    assert len(_backdrop._BACKDROPS) == _backdrop.MAX_BACKDROPS
    assert made not in _backdrop._BACKDROPS.values()  # the least recently used dropped


def _small_frame():
    from matplotlib.figure import Figure

    fig = Figure(figsize=(1, 1))
    return fig, fig.add_subplot()


def test_content_that_fails_leaves_the_frame_clean():
    _backdrop._BACKDROPS.clear()
    kwargs = _input(8, 2)
    _, _, made = _blitted(kwargs, 40)
    n = [len(ax.get_children()) for ax in made.fig.axes]

    def broken(fig, axes, checked):
        fig_cc._instance_cost_curves_content(fig, axes, checked)
        raise RuntimeError("half drawn")

    with pytest.raises(RuntimeError, match="half drawn"):
        made.draw(broken, fig_cc._instance_cost_curves_checked(**kwargs))
    assert [len(ax.get_children()) for ax in made.fig.axes] == n
    got, _, _ = _blitted(kwargs, 40)
    assert np.array_equal(got, _whole(kwargs, 40)[0])


def _map_input(seed, n, *, note=None):
    rng = np.random.default_rng(seed)
    xy = rng.normal(size=(n, 2)) * rng.uniform(0.5, 20, 2) + rng.uniform(-50, 50, 2)
    xy[:5] = np.round(xy[:5])  # a few tied points
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    return xy, y, note


@pytest.mark.parametrize("kind", ["hardness", "cost", "space", "projection"])
def test_maps_on_a_reused_frame_are_pixel_for_pixel_the_whole_figure(kind):
    # each map has its own limits (its data), labels, colour scale and note: only the
    # panels' frame is shared
    _backdrop._BACKDROPS.clear()
    rng = np.random.default_rng(3)
    insets = []
    for seed, n, note in [(0, 40, None), (1, 300, "300 of 9000 drawn"), (2, 25, None),
                          (3, 120, None), (0, 40, None)]:
        xy, y, note = _map_input(seed, n, note=note)
        inset = None
        labels = (f"PC1 ({10 + seed} %)", f"PC2 ({5 + seed} %)")
        if kind == "hardness":
            kwargs = {"xy": xy, "y": y, "hardness": rng.integers(0, 5, (n, 5)) / 4,
                      "methods": METHODS, "axis_labels": labels, "note": note}
            public, checked = figures.hardness_maps, fig_maps._hardness_maps_checked
            frame, content = fig_maps._hardness_maps_frame, fig_maps._hardness_maps_content
        elif kind == "projection":
            kwargs = {"xy": xy, "y": y, "axis_labels": labels, "note": note,
                      "title": f"dataset {seed}"}
            public, checked = figures.projection_map, fig_maps._projection_map_checked
            frame, content = fig_maps._projection_map_frame, fig_maps._projection_map_content
        elif kind == "space":
            values = rng.integers(0, 5, (n, 2)) / 4.0 * (1 + seed % 2)  # a wider scale too
            values[::7, 0] = np.nan  # measures undefined here: grey
            kwargs = {"xy": xy, "values": pd.DataFrame(values, columns=["kDN", "RD"]),
                      "axis_labels": labels, "note": note, "title": f"dataset {seed}"}
            public, checked = figures.instance_space_map, fig_space._instance_space_map_checked
            frame = fig_space._instance_space_map_frame
            content = fig_space._instance_space_map_content
        else:
            losses = np.random.default_rng(seed).uniform(0, 0.5 + seed % 3, (n, 2, 3))
            kwargs = {"xy": xy, "y": y, "losses": losses,
                      "methods": METHODS[1:3], "cost_proportions": [0.2, 0.5, 0.8],
                      "target_class": seed % 2, "axis_labels": labels, "note": note}
            public, checked = figures.cost_hardness_maps, fig_maps._cost_hardness_maps_checked
            frame, content = (fig_maps._cost_hardness_maps_frame,
                              fig_maps._cost_hardness_maps_content)
            # the colour bar, of a few scales: its pixels kept per scale
            inset = lambda got: (("colorbar", got["vmax"]),  # noqa: E731
                                 lambda on: fig_maps._cost_hardness_maps_colorbar(on, got))
        with drawing_style():
            fig = public(**kwargs)
            fig.set_dpi(50)
            fig.set_facecolor("white")
            canvas = TextOnceCanvas(fig)
            canvas.draw()
        whole = np.asarray(canvas.buffer_rgba())[..., :3]
        got = checked(**kwargs)
        with drawing_style():
            made = _backdrop.backdrop((kind, tuple(sorted(got["frame"].items()))),
                                      lambda got=got, frame=frame: frame(**got["frame"]), 50)
            n_axes = len(made.fig.axes)
            labels_before = [(ax.get_xlabel(), ax.get_ylabel()) for ax in made.fig.axes]
            img, small = made.draw(content, got, inset=inset and inset(got))
            insets.append(sum(len(b.insets) for b in _backdrop._BACKDROPS.values()))
        assert np.array_equal(np.asarray(img)[..., :3], whole)
        assert small == figures.smallest_font_pt(fig)
        assert len(made.fig.axes) == n_axes  # the colour bar went with its map
        # the axis labels this map set are the frame's again (empty, or a colour bar's)
        assert [(ax.get_xlabel(), ax.get_ylabel()) for ax in made.fig.axes] == labels_before
        assert labels[0] not in {t for pair in labels_before for t in pair}
    # a frame with room for a note, and one without (the projection leaves no room); for
    # the instance space, one per scale too, and for the loss maps one per class, whose
    # colour bar is drawn once per scale (the fifth map puts the first's back)
    assert len(_backdrop._BACKDROPS) == {"projection": 1, "hardness": 2}.get(kind, 3)
    if kind == "cost":  # the first and third maps share a frame, not a scale
        assert insets == [1, 2, 3, 4, 4]


def _same_svg(a, b):
    import re

    strip = lambda s: re.sub(r'(id="|url\(#|href="#)f[0-9a-f]{12}-', r"\1", s)  # noqa: E731
    return strip(a) == strip(b)


def _drawn(markup):
    """The elements an SVG markup draws, in order, per figure group (one, or one per
    layer): each leaf element's tag, attributes (less its id) and text, with every
    reference (``url(#...)``, ``href="#..."``) replaced by what it refers to, and the
    attributes of the groups around it."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(markup)
    named = {el.get("id"): el for el in root.iter() if el.get("id")}

    def attrs(el):
        out = []
        for k, v in sorted(el.attrib.items()):
            if k == "id":
                continue
            v = re.sub(r"url\(#([^)]+)\)", lambda m: repr(canon(named[m.group(1)])), v)
            if k.endswith("href") and v.startswith("#"):
                v = repr(canon(named[v[1:]]))
            out.append((k.split("}")[-1], v))
        return tuple(out)

    def canon(el):
        return (el.tag.split("}")[-1], attrs(el), (el.text or "").strip(),
                tuple(canon(c) for c in el))

    def walk(el, around, out):
        tag = el.tag.split("}")[-1]
        if tag in ("defs", "clipPath", "pattern", "style", "metadata"):
            return  # drawn where they are referred to
        if tag == "g":
            own = attrs(el)
            for child in el:
                walk(child, around + ((own,) if own else ()), out)
        else:
            out.append((canon(el), around))
    layers = []
    for child in root:
        if str(child.get("id", "")).endswith("-figure_1"):
            layers.append([])
            walk(child, (), layers[-1])
    return layers


def _stacked_like(got, fresh, layered):
    """``got`` draws what ``fresh`` (a new figure's markup) draws: as it is, or (layered)
    the same elements with the frame's below, each layer in the new figure's order."""
    import collections

    if not layered:
        return _same_svg(got, fresh)
    (whole,), layers = _drawn(fresh), _drawn(got)
    mine = [e for layer in layers for e in layer]
    return (len(layers) == 2 and collections.Counter(whole) == collections.Counter(mine)
            and all(_in_order(layer, whole) for layer in layers))


def _in_order(part, whole):
    it = iter(whole)
    return all(any(e == w for w in it) for e in part)


@pytest.mark.parametrize("layered", [False, True])
def test_class_cost_curves_on_a_reused_frame_give_the_markup_of_a_new_figure(layered):
    from metaeval.report._encode import figure_to_svg

    _backdrop._BACKDROPS.clear()
    made, tops, fresh_of = set(), set(), {}
    cases = [(0, METHODS), (1, METHODS), (2, METHODS[:2]), (3, METHODS)]
    if layered:  # six datasets' worth of figures, of several frames
        cases += [(4, METHODS), (5, METHODS[1:])]
    for seed, methods in cases + [(0, METHODS)]:  # again: the same frame, drawn again
        rng = np.random.default_rng(seed)
        y = rng.integers(0, 2, 50)
        y[:2] = [0, 1]
        S = rng.integers(0, 4, (50, 3)) / 3.0  # tied scores
        d = data.class_cost_curve_data(y, S, methods=methods)
        kwargs = {"c": d.c, "curves": d.curves * rng.uniform(0.2, 1.0),
                  "class_hardness": d.hardness, "methods": d.methods}
        with drawing_style():
            if seed not in fresh_of:  # the new figure of seed 0 again: the same, drawn once
                fresh_of[seed] = figure_to_svg(figures.class_cost_curves(**kwargs),
                                               page_font=True)
            fresh = fresh_of[seed]
            checked = fig_cc._class_cost_curves_checked(**kwargs)
            layout = checked["frame"]
            frame = _backdrop.frame(("test-ccc", tuple(sorted(layout.items()))),
                                    lambda lay=layout: fig_cc._class_cost_curves_frame(**lay),
                                    layered=layered)
            made.add(id(frame))
            tops.add(layout["y_top"])
            n_children = len(frame.fig.get_children())
            got = frame.svg(fig_cc._class_cost_curves_content, checked)
        assert _stacked_like(got, fresh, layered), seed
        assert (got.count('-figure_1"') == 2) == layered  # two layers: two figure groups
        assert len(frame.fig.get_children()) == n_children
    assert len(tops) >= 2  # frames of several y ranges
    assert len(made) == len(_backdrop._BACKDROPS) >= 2


def test_dendrograms_on_a_reused_frame_give_the_markup_of_a_new_figure():
    from scipy.cluster.hierarchy import linkage
    from scipy.spatial.distance import pdist

    from metaeval.report._encode import figure_to_svg

    _backdrop._BACKDROPS.clear()
    rng = np.random.default_rng(0)
    for trial in range(4):
        names = [f"alg{k}" for k in range(6)]
        Z = {m: linkage(np.round(pdist(rng.random((6, 3))), 1), method="average")
             for m in METHODS}  # rounded: tied merge heights
        kwargs = {"linkages": Z, "labels": names,
                  "cut_height": None if trial == 2 else 0.3 + 0.1 * trial,
                  "title": f"Algorithm dissimilarity, dataset {trial}"}
        with drawing_style():
            fresh = figure_to_svg(figures.dendrograms(**kwargs), page_font=True)
            checked = fig_sim._dendrograms_checked(**kwargs)
            # as the report makes it: the axes that get no label placed once
            frame = _backdrop.frame(("test-dendro", tuple(sorted(checked["frame"].items()))),
                                    lambda c=checked: fig_sim._dendrograms_unlabelled(
                                        *fig_sim._dendrograms_frame(**c["frame"])))
            got = frame.svg(fig_sim._dendrograms_content, checked)
        assert _same_svg(got, fresh), f"trial {trial}"
        assert f"dataset {trial}" in got  # the figure title is made anew each time


@pytest.mark.parametrize("layered", [False, True])
def test_correlations_on_a_frame_laid_out_once_give_the_markup_of_a_new_figure(layered):
    from metaeval.report._builders import _laid_out
    from metaeval.report._encode import figure_to_svg

    _backdrop._BACKDROPS.clear()
    rows = ["k-disagreeing neighbours", "tree depth (pruned)", "class likelihood", "N1"]
    cols = ["SF", "SD", "RD", "SU", "RU"]
    rng = np.random.default_rng(0)
    for trial in range(6):
        corr = pd.DataFrame(np.round(rng.uniform(-1, 1, (4, 5)), 1), index=rows, columns=cols)
        corr.iloc[trial % 4, trial % 5] = np.nan  # a constant measure: no correlation
        with drawing_style():
            fresh = figure_to_svg(figures.correlation_heatmap(corr, title="Spearman"),
                                  page_font=True)
            checked = fig_bench._heatmap_checked(corr, title="Spearman",
                                               **fig_space._correlation_options(corr))
            layout = checked["frame"]
            frame = _backdrop.frame(("test-corr", tuple(sorted(layout.items()))),
                                    lambda lay=layout: _laid_out(*fig_bench._heatmap_frame(**lay)),
                                    layered=layered)
            got = frame.svg(fig_bench._heatmap_content, checked)
        assert _stacked_like(got, fresh, layered), f"trial {trial}"
        assert (got.count('-figure_1"') == 2) == layered
        assert got.count(">n/a<") == 1
    assert len(_backdrop._BACKDROPS) == 1


@pytest.mark.parametrize("wide", [False, True])
def test_frames_are_released_before_the_whole_study_sections_of_a_wide_study(monkeypatch,
                                                                             wide):
    # a wide study's whole-study sections need the memory; a smaller study keeps its
    # frames for the next report the process draws
    from types import SimpleNamespace

    from metaeval.report import _render

    _backdrop._BACKDROPS.clear()
    _blitted(_input(9, 2), 30)
    assert _backdrop._BACKDROPS
    seen = []

    def build(page):  # what the fragment finds when it runs
        seen.append(len(_backdrop._BACKDROPS))
        return ""

    monkeypatch.setattr(_render, "_view", lambda settings: SimpleNamespace(store=None,
                                                                           _cache=None))
    monkeypatch.setattr(_render, "_wide", lambda view: wide)
    settings = _render.Settings("x.duckdb", (), 0.5, "accuracy", 72, True, {}, "w")
    for fragment, kept in [(_render.Fragment("d", build, dataset="labor"), True),
                           (_render.Fragment("r", build, early=True), True),
                           (_render.Fragment("s", build), not wide)]:
        _render.run_job(settings, _render.Job("j", [fragment]), frozenset(), view=None)
        assert bool(seen[-1]) is kept


def test_a_study_is_wide_when_its_scores_do_not_fit_the_one_scan_budget(monkeypatch,
                                                                        quick_store):
    from metaeval.report import _render
    from metaeval.report._plots import StudyView

    view = StudyView(quick_store)
    n = _render._n_scores(view)
    # labor (57 rows) and hepatitis (155 rows) under 3 algorithms
    assert n == (57 + 155) * 3
    assert not _render._wide(view)
    monkeypatch.setattr(_render, "PREFILL_BUDGET", n * _render.PREFILL_BYTES_PER_SCORE - 1)
    assert _render._wide(view)
    monkeypatch.setattr(_render, "PREFILL_BUDGET", n * _render.PREFILL_BYTES_PER_SCORE)
    assert not _render._wide(view)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, np.nan]), min_size=1, max_size=12),
       st.lists(st.booleans(), min_size=12, max_size=12))
def test_fill_down_makes_the_polygons_of_fill_between(ys, where):
    # stretches of any length (one point too), broken by NaN or by where, tied values
    from matplotlib.figure import Figure

    y = np.array(ys)
    x = np.linspace(0, 1, y.size)
    where = np.array(where[:y.size])
    ax = Figure().add_subplot()
    ours = fig_cc._fill_down(ax, x, y, where, facecolor="none", edgecolor="C1", hatch="//")
    theirs = ax.fill_between(x, 0, y, where=where, facecolor="none", edgecolor="C1",
                             hatch="//")
    assert len(ours.get_paths()) == len(theirs.get_paths())
    for a, b in zip(ours.get_paths(), theirs.get_paths(), strict=True):
        assert np.array_equal(a.vertices, b.vertices)
        assert np.array_equal(a.codes, b.codes)


def test_fill_down_draws_the_pixels_of_fill_between():
    c = np.linspace(0, 1, 101)
    q = np.sin(3 * c) + 1
    q[60] = np.nan
    inside = (c >= 0.3) & (c <= 0.8) | (c > 0.95)
    style = {"facecolor": "none", "edgecolor": "#E69F00", "hatch": "///", "lw": 0,
             "alpha": 0.6, "zorder": 2.52}
    pixels = []
    for fill in (lambda ax: ax.fill_between(c, 0, q, where=inside, **style),
                 lambda ax: fig_cc._fill_down(ax, c, q, inside, **style)):
        from matplotlib.figure import Figure

        fig = Figure(figsize=(3, 2), dpi=100)
        ax = fig.add_subplot(xlim=(0, 1), ylim=(-0.1, 2.1))
        fill(ax)
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        pixels.append(np.asarray(canvas.buffer_rgba()).copy())
    assert np.array_equal(*pixels)


def test_the_smallest_font_is_the_whole_figures_whatever_the_content_adds():
    from matplotlib.figure import Figure

    def frame():
        fig = Figure(figsize=(3, 2))
        ax = fig.add_subplot()
        ax.tick_params(labelsize=8)
        ax.set_xlabel("frame label", fontsize=9)
        return fig, ax

    def content(fig, ax, what):
        if what == "text":
            ax.text(0.5, 0.5, "small", fontsize=6)
        elif what == "title":
            ax.set_title("smaller", fontsize=5)
        elif what == "legend":
            ax.plot([0, 1], label="x")
            fig.legend(fontsize=4)

    _backdrop._BACKDROPS.clear()
    made = _backdrop.backdrop(("test-small",), frame, 40)
    for what, expected in [("text", 6), ("nothing", 8), ("title", 5), ("legend", 4),
                           ("nothing", 8)]:
        _, small = made.draw(content, what)
        with made.holding():  # the same content on the frame, measured whole
            content(made.fig, made.axes, what)
            whole = figures.smallest_font_pt(made.fig)
        assert small == whole == expected, what


@pytest.mark.parametrize("how", ["values", "colour", "legend"])
def test_points_are_the_collection_and_the_pixels_of_scatter(how):
    # the maps' points without scatter's processing: the same offsets, values, colours
    # and pixels (points with a NaN coordinate or value left out as scatter leaves them)
    from matplotlib.figure import Figure

    from metaeval.report.figures import _style

    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(2, 80))
    v = np.round(rng.uniform(0, 1, 80), 1)  # ties
    x[3], v[7], y[11] = np.nan, np.nan, np.nan
    style = {"values": {"c": v, "cmap": _style._hardness_cmap(), "vmin": 0.0, "vmax": 0.8},
             "colour": {"color": "0.9"},
             "legend": {"color": "#0072B2", "alpha": 0.7, "label": "class 1 (80)"}}[how]
    made, pixels = [], []
    for draw in (lambda ax: ax.scatter(x, y, s=7.0, lw=0, zorder=2.6, **style),
                 lambda ax: _style._points(ax, x, y, s=7.0, zorder=2.6, **style)):
        fig = Figure(figsize=(3, 2), dpi=100)
        ax = fig.add_subplot(xlim=(-3, 3), ylim=(-3, 3))
        made.append(draw(ax))
        if how == "legend":
            ax.legend(markerscale=2)
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        pixels.append(np.asarray(canvas.buffer_rgba()).copy())
    theirs, ours = made
    # scatter masks the points it cannot draw; they are not in ours at all
    drawn = ~np.ma.getmaskarray(theirs.get_offsets()).any(axis=1)
    if how == "values":
        drawn &= ~np.ma.getmaskarray(theirs.get_array())
    assert drawn.sum() == 80 - 2 - (how == "values")
    assert np.array_equal(ours.get_offsets(), np.ma.getdata(theirs.get_offsets())[drawn])
    assert np.array_equal(ours.get_sizes(), theirs.get_sizes())
    assert ours.get_label() == theirs.get_label() and ours.get_zorder() == 2.6
    if how == "values":
        assert np.array_equal(ours.get_array(), np.ma.getdata(theirs.get_array())[drawn])
        assert ours.get_clim() == theirs.get_clim() and ours.get_cmap() is theirs.get_cmap()
        assert np.array_equal(ours.get_facecolor(), theirs.get_facecolor()[drawn])
    else:
        assert np.array_equal(ours.get_facecolor(), theirs.get_facecolor())
    assert np.array_equal(*pixels)


def test_a_panels_hatched_stretches_in_one_collection_draw_the_pixels_of_one_per_model():
    # the content puts every model's interpolated stretches of a panel in one collection;
    # drawn with a collection per model instead (fill_between's polygons, the model's
    # colour), the figure has the same pixels
    from matplotlib.collections import PolyCollection

    kwargs = _input(5, 4)
    kwargs["interpolated"] = kwargs["interpolated"].copy()
    models, c = kwargs["models"], kwargs["c"]
    pixels, seen, most = [], 0, 0
    for per_model in (False, True):
        with drawing_style():
            fig = figures.instance_cost_curves(**kwargs)
        axes = np.asarray(fig.axes[:20]).reshape(5, 4)
        if per_model:
            for (i, j), ax in np.ndenumerate(axes):
                merged = [a for a in ax.collections if isinstance(a, PolyCollection)
                          and a.get_zorder() == fig_cc._HATCH_Z]
                seen += len(merged)
                for a in merged:
                    a.remove()
                hatched = 0
                for k, model in enumerate(models):
                    lo, hi = kwargs["interpolated"][i, j, k]
                    if np.isfinite(lo) and np.isfinite(hi) and hi > lo:
                        hatched += 1
                        colour = fig_cc._legend_style(model, models)["color"]
                        fig_cc._fill_down(ax, c, kwargs["curves"][i, j, k],
                                          (c >= lo) & (c <= hi), facecolor="none",
                                          edgecolor=colour, hatch="///", lw=0, alpha=0.6,
                                          zorder=fig_cc._HATCH_Z)
                most = max(most, hatched)
        fig.set_dpi(80)
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        pixels.append(np.asarray(canvas.buffer_rgba()).copy())
    assert seen > 3 and most >= 2  # panels with stretches, of several models in one
    assert np.array_equal(*pixels)


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_the_page_draws_its_figures_in_the_drawing_style(fmt):
    # the style's unhinted text is read when a figure is drawn: a figure the page draws
    # the plain way (build, then encode) is encoded inside the style, not after it
    import matplotlib
    from matplotlib.figure import Figure

    from metaeval.report._encode import figure_to_png_uri, figure_to_svg
    from metaeval.report._page import _Page

    def build(view):
        fig = Figure(figsize=(2.5, 1.2))
        ax = fig.add_subplot()
        ax.set_title("IH = 0.774 · class 0")
        ax.set_xlabel("cost c")
        return fig

    page = _Page(None, dpi=120, strict=True)
    body = page._body(build, fmt, "alt", {}, 64, 120)

    def encoded(hinting):
        with matplotlib.rc_context({"text.hinting": hinting}):
            fig = build(None)
            return (figure_to_png_uri(fig, dpi=120, colors=64) if fmt == "png"
                    else figure_to_svg(fig, page_font=True))

    if fmt == "png":
        assert f'src="{encoded("no_hinting")}"' in body
        assert encoded("no_hinting") != encoded("default")  # the style is seen in pixels
    else:  # vector text is measured unhinted whatever the style: the same markup
        strip = lambda s: re.sub(r'f[0-9a-f]{12}-', "", s)  # noqa: E731 - per-figure ids
        assert strip(body) == strip(encoded("default"))


def test_a_layered_frame_draws_whole_what_changes_it_and_prints_its_layer_anew():
    # content that sets the panels' limits (so their ticks) changes the frame: drawn
    # whole; the next figures, on limits left so, print the frame's layer again
    from matplotlib.figure import Figure

    from metaeval.report._encode import figure_to_svg

    def frame():
        fig = Figure(figsize=(3, 2))
        ax = fig.add_subplot()
        ax.set_title("a frame")
        ax.set_xlim(0, 1)
        return fig, ax

    def content(fig, ax, top):
        ax.plot([0, 1], [0, 1], color="C1")
        ax.set_ylim(0, top)

    def relabelled(fig, ax, words):  # the same ticks, other labels
        ax.set_xticks([0.0, 0.5, 1.0], labels=words)

    _backdrop._BACKDROPS.clear()
    made = _backdrop.frame(("test-layers",), frame, layered=True)
    layers = []
    for draw, arg in [(content, 1.0), (content, 2.0), (content, 2.0), (content, 1.0),
                      (content, 1.0), (relabelled, list("abc")), (relabelled, list("xyz")),
                      (relabelled, list("uvw"))]:
        fig, ax = frame()
        draw(fig, ax, arg)
        fresh = figure_to_svg(fig, page_font=True)
        got = made.svg(draw, arg)
        layers.append(got.count('-figure_1"'))
        assert _stacked_like(got, fresh, layers[-1] == 2), arg
        assert all(f">{w}<" in got for w in (arg if isinstance(arg, list) else ()))
    # a change of limits or of the tick labels: whole (one figure group); the same limits
    # again: two layers
    assert layers == [2, 1, 2, 1, 2, 1, 1, 1]


def test_stack_svg_refuses_what_it_cannot_stack():
    from matplotlib.figure import Figure

    from metaeval.report._encode import figure_to_svg, stack_svg

    a, b = (figure_to_svg(Figure(figsize=size)) for size in ((2, 1), (3, 1)))
    assert stack_svg(a, a).count("<svg") == 1
    with pytest.raises(ValueError, match="different sizes"):
        stack_svg(a, b)
    with pytest.raises(ValueError, match="markup of figure_to_svg"):
        stack_svg(a, "<g/>")


@pytest.mark.parametrize("kind", ["class-cost-curves", "instance-space-correlation"])
def test_the_report_s_layered_figures_draw_what_a_new_figure_draws(quick_store, kind):
    # the report's builders on a real study: its frame's layer and the content's, the
    # elements of the public figure of the same kind (every dataset, twice: the second
    # time on the frame's layer printed by the first)
    from metaeval.report import _builders
    from metaeval.report._encode import figure_to_svg
    from metaeval.report._plots import StudyView, plot

    view = StudyView(quick_store)
    build = {"class-cost-curves": _builders._class_cost_curves_svg,
             "instance-space-correlation": _builders._instance_space_correlation_svg}[kind]
    _backdrop._BACKDROPS.clear()
    fresh_of = {}  # the public figure of a dataset, drawn once: the same both times
    for name in view.dataset_names() * 2:
        with drawing_style():
            got = build(view, dataset=name)
            if name not in fresh_of:
                fresh_of[name] = figure_to_svg(plot(kind, view, dataset=name),
                                               page_font=True)
        fresh = fresh_of[name]
        assert got.count('-figure_1"') == 2, name  # layered
        assert _stacked_like(got, fresh, True), name


def test_a_figure_without_a_copy_is_the_canvas_until_the_next_figure():
    # copy=False (the report, encoding each figure at once): the same pixels as a copy,
    # then those of the next figure drawn on the frame
    _backdrop._BACKDROPS.clear()
    first, second = _input(0, 3), _input(1, 3)
    checked = [fig_cc._instance_cost_curves_checked(**k) for k in (first, second)]
    frame = checked[0]["frame"]
    assert checked[1]["frame"] == frame
    with drawing_style():
        made = _backdrop.backdrop(("test-copy", tuple(sorted(frame.items()))),
                                  lambda: fig_cc._instance_cost_curves_frame(**frame), 60)
        kept, _ = made.draw(fig_cc._instance_cost_curves_content, checked[0])
        own, _ = made.draw(fig_cc._instance_cost_curves_content, checked[0], copy=False)
        assert np.array_equal(np.asarray(own), np.asarray(kept))
        later, _ = made.draw(fig_cc._instance_cost_curves_content, checked[1])
        assert not np.array_equal(np.asarray(later), np.asarray(kept))
        assert np.array_equal(np.asarray(own), np.asarray(later))  # overwritten


def test_a_map_panel_is_framed_by_a_border_that_ignores_the_data_limits():
    # the map's frame keeps its panels' borders in its pixels: none is drawn again with
    # each figure, as spines (whose ends follow the data limits) would be
    from matplotlib.patches import Rectangle

    xy, y, _ = _map_input(0, 40)
    fig = figures.hardness_maps(xy, y, np.zeros((40, 2)), methods=METHODS[:2])
    for ax in fig.axes[:4]:
        assert not any(s.get_visible() for s in ax.spines.values())
        border = [a for a in ax.get_children() if isinstance(a, Rectangle)
                  and a.get_data_transform() == ax.transAxes and not a.get_fill()]
        assert len(border) == 1
        spine = ax.spines["left"]
        assert border[0].get_linewidth() == spine.get_linewidth()
        assert border[0].get_edgecolor() == spine.get_edgecolor()
        assert border[0].get_zorder() == spine.get_zorder()
    checked = fig_maps._hardness_maps_checked(xy, y, np.zeros((40, 2)), methods=METHODS[:2])
    with drawing_style():
        made = _backdrop.Backdrop(*fig_maps._hardness_maps_frame(**checked["frame"]), 50)
    panels = made.fig.axes[:4]  # (the colour bar keeps its outline)
    assert not any(made.spines[ax] for ax in panels)
