"""The report's recommendation section: curve data checked by hand, figures, the HTML."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from metaeval.recommend import KnowledgeBase, evaluate_recommenders
from metaeval.report._recommend import (
    ORACLE_NOTE,
    _with_interval,
    loss_curve_data,
    loss_curves_figure,
    recommendation_section,
    section_notes,
    summary_display,
    time_weight_figure,
)
from metaeval.store import Store


def _kb():
    return KnowledgeBase(["d1", "d2", "d3"], ["A", "B", "C"],
                         success=[[0.9, 0.8, 0.7], [0.6, 0.8, 0.7], [0.7, 0.8, 0.9]],
                         times=[[1.0, 2.0, 4.0]] * 3)


def test_loss_curve_data_by_hand():
    ev = evaluate_recommenders(_kb(), strategies=["single-best", "oracle"], n_boot=5,
                               time_range=(0.5, 100.0), time_axis="seconds")
    tests = loss_curve_data(ev, axis="tests").set_index(["strategy", "x"])["loss"]
    # single best (mean success of the training datasets, ties in column order) tests
    # B, C, A on d1 (loss .1, .1, 0), A, B, C on d2 (.2, 0, 0), B, A, C on d3 (.1, .1, 0);
    # before any test L0 = best - worst = .2 everywhere
    assert tests.loc["single-best"].tolist() == pytest.approx([0.2, 0.4 / 3, 0.2 / 3, 0.0])
    time = loss_curve_data(ev, axis="time", n_points=5).set_index(["strategy", "x"])["loss"]
    grid = np.geomspace(0.5, 100.0, 5)  # 0.5, 1.88, 7.07, 26.6, 100 s
    # oracle: first tests A (1 s) on d1, B (2 s) on d2, C (4 s) on d3
    assert grid.round(2).tolist() == [0.5, 1.88, 7.07, 26.59, 100.0]
    assert time.loc["oracle"].tolist() == pytest.approx([0.2, 0.4 / 3, 0, 0, 0])


def test_figures_draw_one_line_per_strategy():
    ev = evaluate_recommenders(_kb(), n_boot=5, n_random=5)
    for axis in ("time", "tests"):
        fig = loss_curves_figure(loss_curve_data(ev, axis=axis), axis=axis)
        assert isinstance(fig, Figure)
        gids = {line.get_gid() for line in fig.axes[0].get_lines()}
        assert {f"strategy:{s}" for s in ev.strategies} <= gids
    assert fig.axes[0].get_xscale() == "linear"
    sweep = pd.DataFrame({"time_weight": [0, 0, 1 / 64, 1 / 64], "strategy": ["a", "b"] * 2,
                          "mil": [.1, .2, .1, .3], "mil_low": [.05] * 4, "mil_high": [.4] * 4})
    fig = time_weight_figure(sweep)
    assert fig.axes[0].get_xscale() == "log"
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["0", "1/64"]
    table = summary_display(ev)
    assert table.loc["oracle", "loss@1"].startswith("0.0000 [0.0000, 0.0000]")


def _store(path, n_datasets):
    rng = np.random.default_rng(0)
    store = Store(path)
    names = [f"d{i}" for i in range(n_datasets)]
    y = np.array([0, 1] * 10, dtype=np.int8)
    with store.writing():
        store.sync_study({"folds": 2, "seed": 0},
                         datasets=[{"name": n, "n_instances": 20, "n_features": 1,
                                    "family": n} for n in names],
                         algorithms=[{"name": a, "estimator": "m.A", "params": "{}",
                                      "score_method": "predict_proba", "versions": "{}"}
                                     for a in "ABC"],
                         tasks=[(n, a, 0) for n in names for a in "ABC"])
        for n in names:
            for j, a in enumerate("ABC"):
                store.record_task(n, a, 0, status="done", wall=j + 1.0, cpu=j + 1.0,
                                  n_folds=2, fold=np.arange(20) % 2, y=y,
                                  score=np.clip(0.3 * y + rng.random(20) * 0.7, 0, 1),
                                  timings={k: [0.1, 0.1] for k in ("fit_wall", "fit_cpu",
                                                                    "predict_wall",
                                                                    "predict_cpu")})
    return store


def test_section_html_has_both_conditions(tmp_path):
    html = recommendation_section(_store(tmp_path / "s.duckdb", 4))
    assert "<h3>accuracy, P = 1/64</h3>" in html
    assert "<h3>1 - rate-driven hardness at c = 0.3, P = 1/64</h3>" in html
    assert html.count("<figure>") == 6  # time, tests and CD diagram per condition
    # no meta-features cached in this store: the skipped strategies said once, with the
    # command that describes the study's datasets
    assert "skipped knn-metafeatures" not in html
    assert html.count("run `metaeval describe --store` on this store") == 1
    assert re.search(r"knn-metafeatures, cost-landmarking.* not evaluated", html)
    assert ORACLE_NOTE in html.replace("&#x27;", "'")
    # one repetition: scored on it, and no placeholder left in the text
    assert "best minus worst); time is CPU seconds" in html and "{SCORING}" not in html
    # every comparison of the section counted once, Holm within the primary and the
    # exploratory family: the two conditions' notes name the same total, each its share
    notes = re.findall(r"Supported claims \((\d+) comparisons of this condition, (\d+) in "
                       r"the section, Holm-corrected within the primary and the exploratory "
                       r"family\)", html)
    assert len(notes) == 2 and notes[0][1] == notes[1][1]
    assert sum(int(n) for n, _ in notes) == int(notes[0][1])
    assert "of the pool&#x27;s CPU time" in html or "of the pool's CPU time" in html
    small = recommendation_section(_store(tmp_path / "two.duckdb", 2))
    assert "at least 3 datasets" in small and "<figure>" not in small


def test_every_strategy_is_drawn_in_its_own_colour_and_line_style():
    from metaeval.recommend import STRATEGIES

    names = [*STRATEGIES, "my-own", "another"]
    data = pd.DataFrame({"strategy": np.repeat(names, 2), "x": [1.0, 2.0] * len(names),
                         "loss": np.tile([0.2, 0.1], len(names))})
    for figure in (loss_curves_figure(data, axis="tests"), time_weight_figure(pd.DataFrame({
            "time_weight": [0.0, 1 / 64] * len(names), "strategy": np.repeat(names, 2),
            "mil": 0.1, "mil_low": 0.05, "mil_high": 0.2}))):
        drawn = {}
        for line in figure.axes[0].get_lines():
            # (an error bar's caps are lines of markers only, of no line style)
            if (line.get_gid() or "").startswith("strategy:") and \
                    line.get_linestyle() != "None":
                drawn[line.get_gid()] = (line.get_color(), line.get_linestyle())
        assert len(drawn) == len(names)
        assert len(set(drawn.values())) == len(names), drawn


def test_notes_of_undescribed_datasets_are_one_and_name_the_command():
    notes = [f"skipped {s} needs metafeatures of every dataset, and the knowledge base has "
             "none (describe its datasets first)" for s in ("a", "b", "c")]
    said = section_notes([notes[0], "something else", *notes[1:]])
    assert said == ["a, b and c not evaluated: they need the meta-features or landmarks of "
                    "the study's datasets, which are not described yet: run `metaeval "
                    "describe --store` on this store, then the report again.",
                    "something else"]
    assert section_notes(["only this"]) == ["only this"]


def test_a_zero_interval_never_prints_minus_zero():
    assert _with_interval(-0.0, -1e-12, 0.0) == "0.0000 [0.0000, 0.0000]"
    assert _with_interval(0.25, -0.5, 1e-9) == "0.2500 [-0.5000, 0.0000]"


def test_the_section_says_when_held_out_datasets_are_scored_on_an_unseen_repetition():
    from metaeval.recommend import KnowledgeBase, evaluate_recommenders
    from metaeval.report._recommend import scoring_note

    success = [[.9, .8, .7], [.8, .9, .7], [.9, .7, .8], [.9, .8, .6]]
    reps = np.array([success, np.array(success)[:, ::-1]])  # the second repetition reversed
    kb = KnowledgeBase(["d1", "d2", "d3", "d4"], ["A", "B", "C"], success=reps.mean(axis=0),
                       times=[[1, 2, 3]] * 4, repetitions=reps)
    unseen = evaluate_recommenders(kb, strategies=["single-best"], n_boot=5, compare=False)
    same = evaluate_recommenders(kb, strategies=["single-best"], n_boot=5, compare=False,
                                 scored_on="same")
    assert unseen.scored_on == "unseen repetition"
    note = scoring_note(unseen)
    assert "2 repetitions" in note and "negative" in note
    assert scoring_note(same) == ""
