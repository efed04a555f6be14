"""Footprints, per-instance selection and IRT in the report and `metaeval plot`, on a real
small study (labor and fertility x NB, DT, 3NN, 3-fold CV)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from numpy.testing import assert_allclose
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.hardness import instance_hardness_at
from metaeval.report import PLOT_KINDS, plot
from metaeval.report._instance_selection import (
    footprint_data,
    footprint_figure,
    irt_correlation_figure,
    irt_data,
    selection_data,
    selection_figure,
)
from metaeval.report._plots import StudyView
from metaeval.selection import footprint
from metaeval.store import Store

runner = CliRunner()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("selection") / "study.duckdb"
    result = runner.invoke(app, ["run", "--datasets", "labor,fertility", "--algorithms",
                                 "NB,DT,3NN", "--folds", "3", "--jobs", "1", "--quiet",
                                 "--store", str(path)])  # fmt: skip
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture(scope="module")
def view(store):
    return StudyView(store)


def test_plot_kinds_are_registered():
    for kind in ("footprints", "selection", "irt"):
        assert kind in PLOT_KINDS and PLOT_KINDS[kind].needs_store
    assert PLOT_KINDS["footprints"].per_dataset and not PLOT_KINDS["selection"].per_dataset


def test_footprint_data_follows_the_stored_scores(view, store):
    xy, fps, good = footprint_data(view, "fertility", costs=(0.2, 0.8), epsilon=0.1)
    y, S, algs = Store(store).scores("fertility")
    assert list(fps) == [0.2, 0.8] and list(good[0.2]) == algs
    for c in (0.2, 0.8):
        H = instance_hardness_at(y, S, "score-driven", c)
        for j, a in enumerate(algs):
            np.testing.assert_array_equal(good[c][a], H[:, j] <= 0.1)
            expected = footprint(xy, H[:, j] <= 0.1)
            assert fps[c][a].area == pytest.approx(expected.area)
            assert fps[c][a].elements == expected.elements
    fig = footprint_figure(xy, fps, good=good)
    # three algorithms, two to a row, each with two conditions: 2 rows x 4 columns
    assert isinstance(fig, Figure) and sum(ax.get_visible() for ax in fig.axes) == 6
    assert fig.axes[0].get_title().startswith(f"{algs[0]}, c = 0.2")
    # the area is the table's (a share of the space's footprint), named so, 3 decimals
    share = fps[0.2][algs[0]].area / fps[0.2]["space"].area
    assert f"area {share:.3f} of space" in fig.axes[0].get_title()
    assert f"purity {fps[0.2][algs[0]].purity:.3f}" in fig.axes[0].get_title()


def test_cli_plot_footprints(store, tmp_path):
    target = tmp_path / "fp.png"

    def run(*options):
        args = ["plot", "footprints", "--store", str(store), "--out", str(target)]
        return runner.invoke(app, args + [a for o in options for a in ("-o", o)])

    result = run("dataset=labor", "cost_proportions=0.3,0.7", "algorithms=NB,DT")
    assert result.exit_code == 0, result.output
    assert target.read_bytes().startswith(b"\x89PNG")
    bad = run("dataset=labor", "algorithms=XGB")
    assert bad.exit_code == 2 and "unknown algorithm" in bad.output
    bad = run("dataset=labor", "epsilon=1.5")
    assert bad.exit_code == 2 and "epsilon" in bad.output


def test_selection_data_and_figure(view):
    per, table = selection_data(view, costs=(0.3, 0.7))
    assert set(per["dataset"]) == {"labor", "fertility"}
    assert_allclose(table["single best"], per.groupby("c")["loss_single_best"].mean())
    assert np.all(table["oracle"] <= table["selector"] + 1e-12)
    fig = selection_figure(table[["c", "single best", "selector", "oracle"]])
    assert len(fig.axes) == 2
    with pytest.raises(ValueError, match="columns"):
        selection_figure(pd.DataFrame({"c": [0.5]}))


def test_irt_data_and_figure(view):
    fit, corr, groups = irt_data(view, "labor")
    assert fit.ability.shape == (3,) and fit.difficulty.shape == (57,)
    assert groups["kDN"] == "classic" and groups["rate-driven"] == "cost-sensitive"
    assert np.all(np.abs(corr.dropna()) <= 1)
    # the pool's true-class probability loss ranks instances much as the difficulty does
    assert corr["true_class_probability_loss"] > 0.5
    fig = irt_correlation_figure(corr, groups=groups)
    assert isinstance(fig, Figure)
    with pytest.raises(ValueError, match="Series"):
        irt_correlation_figure([0.1, 0.2])


def test_plot_selection_and_irt_kinds(view):
    assert plot("selection", view, cost_proportions=[0.5]).axes
    assert plot("irt", view, dataset="fertility").axes
    with pytest.raises(ValueError, match="dataset"):
        plot("irt", view)


def test_report_section_draws_footprints_of_the_best_algorithms_only(view):
    # a wide pool would get one footprint panel per algorithm and condition (minutes to
    # draw, unreadable); beyond max_algorithms the section keeps the best by average rank
    from metaeval.report._instance_selection import report_section
    from metaeval.report.html import _Page

    page = _Page(view, dpi=72, strict=True)
    ar = next(iter(view.rankings().values())).set_index("algorithm")["rank"].astype(float)
    best_two = list(ar.sort_values(kind="stable").index[:2])
    html = report_section(page, ["labor", "fertility"], selection_costs=(0.5,),
                          max_algorithms=2)
    assert f"The 2 of 3 algorithms best by average rank (AR): {', '.join(best_two)}." in html
    left_out = (set(view.scores("labor")[2]) - set(best_two)).pop()
    footprint_part = html.split("<h3>Cost-sensitive per-instance selection</h3>")[0]
    assert f'<td class="text">{left_out}</td>' not in footprint_part
    assert all(f'<td class="text">{a}</td>' in footprint_part for a in best_two)
    # with room for all three, nothing is left out and no note is written
    html_all = report_section(_Page(view, dpi=72, strict=True), ["labor"],
                              selection_costs=(0.5,), max_algorithms=3)
    assert "algorithms best by average rank" not in html_all


def test_the_selection_reads_the_folds_every_algorithm_was_cross_validated_on(view):
    # the store's one-column read of the folds against every score in long form, for
    # each algorithm: the same folds, in row order
    from metaeval.report._instance_selection import _folds

    for name in view.dataset_names():
        frame = view.store.scores_frame(name)
        folds = _folds(view, name, view.scores(name)[2][0])
        assert sorted(set(folds.tolist())) == [0, 1, 2]  # the study's 3 folds
        for algorithm in view.scores(name)[2]:
            own = frame[(frame["algorithm"] == algorithm) & (frame["repeat"] == 0)]
            np.testing.assert_array_equal(own.sort_values("row")["fold"].to_numpy(), folds)
            np.testing.assert_array_equal(_folds(view, name, algorithm), folds)
