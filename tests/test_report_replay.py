"""SVG markup of a frame's fixed artists, replayed: the markup of drawing them anew."""

import re

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.markers import TICKDOWN

from metaeval.report import _backdrop, _replay
from metaeval.report.html import figure_to_svg


def _same_svg(a, b):
    strip = lambda s: re.sub(r'(id="|url\(#|href="#)f[0-9a-f]{12}-', r"\1", s)  # noqa: E731
    return strip(a) == strip(b)


def _frame():
    """Two panels with titles, hatched backgrounds, a reference line and a colour bar:
    all fixed."""
    fig = Figure(figsize=(5, 2.5))
    axes = fig.subplots(1, 2)
    for k, ax in enumerate(axes):
        ax.set_title(f"panel {k}")
        ax.set_xlim(0, 1)
        ax.set_xlabel("c")
        ax.patch.set_hatch("//")
        ax.patch.set_edgecolor("0.8")
    axes[1].set_ylim(0, 1)
    axes[1].axhline(0.25, color="0.4", gid="reference")  # clipped to its panel
    fig.colorbar(ScalarMappable(Normalize(0, 1)), ax=axes[1])
    return fig, axes


def _fixed(fig, axes):
    return [a for ax in axes
            for a in (ax.patch, *ax.spines.values(), ax.xaxis, ax.yaxis, ax.title)
            ] + [axes[1].lines[0], fig.axes[2]]


def _content(fig, axes, trial):
    """A few lines (their number changes the renderer's group counters before the
    spines and titles are drawn), y limits among three, and, in trial 3, a line whose
    markers are the x axis's own tick marks, drawn before the axis (which must then not
    define them)."""
    rng = np.random.default_rng(trial)
    for k in range(1 + trial % 3):
        axes[0].plot(rng.random(5), rng.random(5), color=f"C{k}")
    if trial == 3:
        axes[0].plot([0.5], [0.5], marker=TICKDOWN, markersize=3.5, markeredgewidth=0.8,
                     color="black", ls="none", zorder=1)  # below the axis (1.5)
    axes[0].set_ylim(0, (1, 2, 4)[trial % 3])
    axes[1].text(0.5, 0.5, f"trial {trial}")


def _fresh(trial):
    fig, axes = _frame()
    _content(fig, axes, trial)
    return fig


@pytest.fixture
def counted(monkeypatch):
    counts = {"replayed": 0, "drawn": 0}
    replay, draw = _replay._Record.replay, _replay._draw_recording

    def replayed(self, svg):
        counts["replayed"] += 1
        return replay(self, svg)

    def drawn(*args):
        counts["drawn"] += 1
        return draw(*args)
    monkeypatch.setattr(_replay._Record, "replay", replayed)
    monkeypatch.setattr(_replay, "_draw_recording", drawn)
    return counts


def test_replayed_markup_is_the_markup_of_a_new_figure(counted):
    _backdrop._BACKDROPS.clear()
    frame = _backdrop.frame(("test-replay",), _frame, _fixed)
    n_fixed = len(_fixed(frame.fig, frame.axes))
    for trial in [0, 1, 2, 0, 1, 2, 3, 0, 3, 1]:
        got = frame.svg(_content, trial)
        assert _same_svg(got, figure_to_svg(_fresh(trial), page_font=True)), f"trial {trial}"
    # each fixed artist drawn once per state (the first panel's axes and spines in three
    # y ranges, the rest in one), and again where the tick marks were defined before them
    assert counted["drawn"] < 2 * n_fixed + 16
    assert counted["replayed"] > 5 * n_fixed
    assert counted["replayed"] + counted["drawn"] == 10 * n_fixed


def test_the_group_ids_follow_the_content_drawn_before():
    _backdrop._BACKDROPS.clear()
    frame = _backdrop.frame(("test-replay-ids",), _frame, _fixed)
    for trial in (0, 1, 2, 0, 1, 2):
        got = frame.svg(_content, trial)
        # one, two, three lines drawn before the replayed tick lines: every line numbered
        # once, in drawing order (a replayed piece keeping its old numbers would repeat
        # some, which figure_to_svg would then tell apart as "line2d_5-2")
        ids = re.findall(r' id="f[0-9a-f]{12}-line2d_([^"]+)"', got)
        assert ids == [str(k) for k in range(1, len(ids) + 1)], f"trial {trial}"


def test_other_renderers_draw_as_before():
    _backdrop._BACKDROPS.clear()
    frame = _backdrop.frame(("test-replay-pixels",), _frame, _fixed)
    frame.svg(_content, 0)  # recorded
    with frame.holding():
        _content(frame.fig, frame.axes, 0)
        canvas = FigureCanvasAgg(frame.fig)
        canvas.draw()
        got = np.asarray(canvas.buffer_rgba()).copy()
    fresh = FigureCanvasAgg(_fresh(0))
    fresh.draw()
    assert np.array_equal(got, np.asarray(fresh.buffer_rgba()))


def test_a_state_is_recorded_once_and_old_ones_dropped():
    fig, axes = _frame()
    _replay.install([axes[0].yaxis])
    _replay.install([axes[0].yaxis])  # installing twice wraps once
    replayed = axes[0].yaxis.__dict__["draw"]
    assert not isinstance(replayed.draw, _replay._Replayed)
    for top in range(1, _replay.MAX_STATES + 5):
        axes[0].set_ylim(0, top)
        figure_to_svg(fig)
        figure_to_svg(fig)
    assert len(replayed.records) == _replay.MAX_STATES


def test_a_renderer_without_the_expected_bookkeeping_draws(monkeypatch):
    # another matplotlib version's SVG renderer (here: one lacking a counter the replay
    # updates): nothing is recorded, every artist is drawn, the markup is the same
    monkeypatch.setattr(_replay, "_RENDERER_STATE",
                        (*_replay._RENDERER_STATE, "_a_counter_of_another_version"))
    _backdrop._BACKDROPS.clear()
    frame = _backdrop.frame(("test-replay-other",), _frame, _fixed)
    for trial in (0, 0, 1):
        got = frame.svg(_content, trial)
        assert _same_svg(got, figure_to_svg(_fresh(trial), page_font=True))
    assert all(not a.__dict__["draw"].records for a in _fixed(frame.fig, frame.axes))
