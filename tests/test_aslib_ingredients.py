"""The algorithm-selection literature's ingredients, each an option worked by hand on the
toy scenarios of test_aslib: presolved instances credited as ASlib defines."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from metaeval.recommend import evaluate_aslib, read_aslib


def _module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_T = _module(Path(__file__).with_name("test_aslib.py"), "_aslib_toy")
_E = _module(Path(__file__).with_name("test_aslib_edges.py"), "_aslib_edges_toy")
plain = _module(Path(__file__).resolve().parents[1] / "benchmarks" / "plain_selectors.py",
                "_plain_selectors")

# i1 presolved by the default step (cost 9.5 s), i3 too but its cost is not recorded,
# i4 by the probe step, which is not used
PRESOLVED_STATUS = _T.STATUS.replace("i1,1,ok,ok", "i1,1,presolved,ok").replace(
    "i3,1,ok,ok", "i3,1,presolved,ok").replace("i4,1,ok,ok", "i4,1,ok,presolved")


def _presolved(root):
    return read_aslib(_T._write(root, description=_T.RUNTIME, algorithm_runs=_T.RUNTIME_RUNS,
                                feature_costs=_E.COSTS, feature_runstatus=PRESOLVED_STATUS))


def test_a_presolved_instance_counts_solved_at_its_feature_cost(tmp_path):
    """test_aslib_edges' by-hand scenario (cutoff 10 s; B runs 5, 2, 3 s and a crash;
    default-step costs 9.5, 8, missing and 0.5 s). Always-B reading the features scored
    (100 + 100 + 3 + 100) / 4 = 75.75; with i1 presolved by the feature step it is
    solved in its 9.5 s, and i3, whose cost is not recorded, in 0 s:
    (9.5 + 100 + 0 + 100) / 4 = 52.375, half solved. i4 was presolved by a step not
    used: nothing. The strategy reading no features, the single best and the virtual
    best do not change."""
    sc = _presolved(tmp_path / "rt")
    np.testing.assert_array_equal(sc.presolved, [True, False, True, False])
    assert any("2 instance(s) presolved by a feature step" in n for n in sc.notes)
    strategies = [_E._Fixed("b-reading", [1, 0]), _E._Fixed("b-blind", [1, 0], uses=None),
                  "single-best", "oracle"]
    off = evaluate_aslib(sc, strategies, n_boot=20, presolved=False)
    on = evaluate_aslib(sc, strategies, n_boot=20, presolved=True)
    # the default credits them (the feature costs paid)
    default = evaluate_aslib(sc, strategies, n_boot=20)
    assert default.presolved is True
    assert default.summary.set_index("strategy").loc["b-reading", "performance"] == 52.375
    s, t = off.summary.set_index("strategy"), on.summary.set_index("strategy")
    assert s.loc["b-reading", "performance"] == 75.75
    assert t.loc["b-reading", "performance"] == 52.375
    assert t.loc["b-reading", "solved"] == 0.5
    assert t.loc["b-reading", "gap_closed_whole_sbs"] == pytest.approx(
        (26 - 52.375) / (26 - 1.5))
    for name in ("b-blind", "single-best", "oracle"):
        assert t.loc[name, "performance"] == s.loc[name, "performance"], name
    assert (on.sbs, on.vbs, on.sbs_whole) == (off.sbs, off.vbs, off.sbs_whole)
    assert on.to_json()["presolved_credited"] is True
    assert off.to_json()["presolved_credited"] is False
    # without the feature costs nothing is credited (the features cost nothing)
    free = evaluate_aslib(sc, strategies, n_boot=20, feature_costs=False)
    assert free.summary.set_index("strategy").loc["b-reading", "performance"] == 27.5
    assert free.presolved is False
    with pytest.raises(ValueError, match="presolved=True credits presolved instances in "
                                         "their feature cost, and needs feature_costs=True"):
        evaluate_aslib(sc, strategies, presolved=True, feature_costs=False)
    with pytest.raises(ValueError, match="presolved must be True, False or None"):
        evaluate_aslib(sc, strategies, presolved="yes")


def test_the_plain_selectors_scorer_credits_presolved_instances_the_same_way(tmp_path):
    sc = _presolved(tmp_path / "rt")
    ev = evaluate_aslib(sc, ["knn-metafeatures", "single-best"], n_boot=30, presolved=True)
    mine = plain.score(ev, plain.evaluation_picks(ev, "knn-metafeatures"), n_boot=30)
    s = ev.summary.set_index("strategy").loc["knn-metafeatures"]
    assert mine["performance"] == s["performance"]
    assert mine["gap_closed_whole_sbs"] == pytest.approx(s["gap_closed_whole_sbs"], rel=1e-12)
    np.testing.assert_array_equal(
        plain.first_performance(sc, np.array([[1, 1, 1, 1]]), True, True),
        [[9.5, 100, 0, 100]])


def test_auto_is_credited_on_the_folds_where_its_candidate_reads_features(tmp_path):
    sc = _presolved(tmp_path / "rt")
    ev = evaluate_aslib(sc, ["auto", "single-best"], n_boot=10, presolved=True)
    rows = ev.per_instance[ev.per_instance["strategy"] == "auto"]
    assert rows["chosen"].notna().all()
    readers = {"knn-metafeatures", "regression", "pairwise", "collaborative"}
    cost = dict(zip(sc.knowledge.datasets, sc.knowledge.metafeature_time, strict=True))
    done = dict(zip(sc.knowledge.datasets, sc.presolved, strict=True))
    for r in rows.to_dict(orient="records"):
        # the candidate chosen, or the vote of learners (a+b+...), reads the features
        credited = done[r["dataset"]] and any(
            part.removesuffix("-linear") in readers for part in r["chosen"].split("+"))
        assert bool(r["feature_presolved"]) == credited
        if credited:
            assert r["performance"] == cost[r["dataset"]]


def test_presolved_on_the_command_line_reaches_the_library_s_switch(tmp_path):
    """``recommend --evaluate --aslib DIR`` credits presolved instances by default,
    ``--no-presolved`` does not: the JSON says which, and the single best (which
    computes no feature) scores the same with and without; ``--presolved`` is refused
    without the feature costs, and either flag without --aslib."""
    import json

    root = tmp_path / "rt"
    _presolved(root)
    runs = {}
    for flags in (("--no-presolved",), ("--presolved",), ()):
        out = tmp_path / f"ev{len(flags)}.json"
        result = _T._run("recommend", "--evaluate", "--aslib", root, "--strategy",
                         "knn-metafeatures", *flags, "--json", out)
        assert result.exit_code == 0, result.output
        runs[flags] = json.loads(out.read_text())
    assert runs[("--no-presolved",)]["presolved_credited"] is False
    assert runs[("--presolved",)]["presolved_credited"] is True
    assert runs[()] == runs[("--presolved",)]
    ev = evaluate_aslib(_presolved(tmp_path / "again"), ["knn-metafeatures"], n_boot=1000,
                        presolved=True)
    par10 = ev.summary.set_index("strategy").loc["knn-metafeatures", "performance"]
    assert runs[("--presolved",)]["strategies"]["knn-metafeatures"]["par10"] == \
        pytest.approx(par10)
    assert runs[("--no-presolved",)]["sbs"] == runs[("--presolved",)]["sbs"]
    # the credit changes the figure the command line prints and writes
    assert runs[("--no-presolved",)]["strategies"]["knn-metafeatures"]["par10"] != par10
    free = _T._run("recommend", "--evaluate", "--aslib", root, "--presolved",
                   "--no-feature-costs")
    assert free.exit_code == 2 and "--presolved goes with the feature costs paid" in \
        free.output, free.output
    wrong = _T._run("recommend", "x.csv", "--presolved")
    assert wrong.exit_code == 2 and "--presolved goes with --evaluate --aslib" in \
        wrong.output, wrong.output
    wrong = _T._run("recommend", "x.csv", "--no-presolved")
    assert wrong.exit_code == 2 and "--no-presolved goes with --evaluate --aslib" in \
        wrong.output, wrong.output


# --------------------------------------------------- censored runtimes (regression)
def _censored_kb(n=60, cutoff=5.0):
    """One feature x in [0, 3); A runs exp(x) s (a timeout past the cutoff 5 s, when
    x > log 5), B 3 s everywhere; success = 10 x cutoff - PAR10."""
    import pandas as pd

    from metaeval.recommend import KnowledgeBase

    x = (np.arange(n) * 0.618034) % 1.0 * 3
    runtime = np.column_stack([np.exp(x), np.full(n, 3.0)])
    par10 = np.where(runtime < cutoff, runtime, 10 * cutoff)
    names = [f"i{i}" for i in range(n)]
    return KnowledgeBase(names, ["A", "B"], 10 * cutoff - par10,
                         np.minimum(runtime, cutoff),
                         metafeatures=pd.DataFrame({"x": x}, index=names)), x


def test_censored_costs_are_imputed_between_the_cutoff_and_the_ceiling():
    from metaeval.recommend import Condition
    from metaeval.recommend.learners._learners_forest import (
        ConfigurationRegression,
        _impute_censored,
    )

    kb, x = _censored_kb()
    learner = ConfigurationRegression(cost_ceiling=50.0, censored_cutoff=5.0)
    target = learner.target(kb, Condition())
    weights = np.ones((20, len(x)))
    imputed = _impute_censored(learner, kb, x[:, None].astype(np.float32), target,
                               weights, seed=0)
    censored = np.exp(x) >= 5.0
    assert censored.any() and (~censored).any()
    # the runs that finished keep their -log runtime; B never times out
    np.testing.assert_array_equal(imputed[~censored, 0], target[~censored, 0])
    np.testing.assert_array_equal(imputed[:, 1], target[:, 1])
    # a timeout's cost is at least the cutoff and at most PAR10's ceiling
    cost = np.exp(-imputed[censored, 0])
    assert np.all(cost >= 5.0) and np.all(cost <= 50.0)
    assert np.all(target[censored, 0] == -np.log(50.0))  # without: log PAR10
    assert np.any(cost < 50.0)  # imputed, not left at PAR10
    # the same seed, the same imputation
    again = _impute_censored(learner, kb, x[:, None].astype(np.float32), target,
                             weights, seed=0)
    np.testing.assert_array_equal(again, imputed)


def test_without_censored_runs_the_option_changes_nothing_and_is_checked():
    from metaeval.recommend import Condition
    from metaeval.recommend.learners._learners_forest import ConfigurationRegression

    kb, _ = _censored_kb(cutoff=100.0)  # every run finishes
    features = ("metafeatures",)
    plain_fit = ConfigurationRegression(cost_ceiling=1000.0, features=features).fit(
        kb, Condition())
    censored_fit = ConfigurationRegression(cost_ceiling=1000.0, censored_cutoff=100.0,
                                           features=features).fit(kb, Condition())
    np.testing.assert_array_equal(plain_fit.inner_orders_, censored_fit.inner_orders_)
    assert censored_fit.selection_["target"] == "-log cost, censored costs imputed"
    for bad, message in (({"censored_cutoff": 5.0}, "censored_cutoff needs cost_ceiling"),
                         ({"cost_ceiling": 50.0, "censored_cutoff": 60.0},
                          "between 0 and cost_ceiling"),
                         ({"cost_ceiling": 50.0, "censored_cutoff": True},
                          "between 0 and cost_ceiling")):
        with pytest.raises(ValueError, match=message):
            ConfigurationRegression(**bad)


# --------------------------------------------------- are the features worth their cost
def _switch_kb(cost):
    """40 instances; feature x decides which of A and B takes 1 s (the other 2 s); the
    features cost ``cost`` seconds an instance; cutoff 10 s (success = 100 - PAR10)."""
    import pandas as pd

    from metaeval.recommend import KnowledgeBase

    n = 40
    x = (np.arange(n) * 0.618034) % 1.0
    runtime = np.where(x[:, None] < 0.5, [1.0, 2.0], [2.0, 1.0])
    names = [f"i{i}" for i in range(n)]
    return KnowledgeBase(names, ["A", "B"], 100.0 - runtime, runtime,
                         metafeatures=pd.DataFrame({"x": x}, index=names),
                         metafeature_time=np.full(n, cost))


@pytest.mark.parametrize(("cost", "charged"), [(0.01, "knn-metafeatures"),
                                               (5.0, "single-best")])
def test_auto_charges_the_features_cost_in_its_inner_losses(cost, charged):
    """Reading x saves 0.5 s an instance on average against the single best (1.5 s).
    Uncharged, auto takes k-NN whatever the features cost; charged, it does when they
    cost 0.01 s, and keeps the single best when they cost 5 s (1 + 5 s a pick)."""
    from metaeval.recommend import Condition
    from metaeval.recommend.learners._auto import Auto

    kb = _switch_kb(cost)
    candidates = ("single-best", "knn-metafeatures")
    blind = Auto(candidates=candidates).fit(kb, Condition())
    assert blind.selection_["strategy"] == "knn-metafeatures"
    fitted = Auto(candidates=candidates, feature_cutoff=10.0).fit(kb, Condition())
    assert fitted.selection_["strategy"] == charged
    # the single best's inner loss is not charged: the same either way
    assert fitted.selection_["inner"]["single-best"] == blind.selection_["inner"][
        "single-best"]
    if cost == 5.0:  # k-NN's picks charged 5 s: about 1 + 5 - 1 = 5 s lost each
        assert fitted.selection_["inner"]["knn-metafeatures"] > 4.5
    with pytest.raises(ValueError, match="feature_cutoff must be a positive number"):
        Auto(feature_cutoff=0)
