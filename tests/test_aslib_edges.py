"""ASlib edges: cv.arff folds, explicit measures, output paths that must not be replaced,
empty and BOM-prefixed files, and the feature costs and whole-scenario single best of the
ASlib measures, each worked by hand on the toy scenarios of test_aslib."""

from __future__ import annotations

import importlib.util
import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest

from metaeval.recommend import Ranking, Strategy, evaluate_aslib, read_aslib, write_aslib


def _toy():
    """The toy scenarios of test_aslib (tests import in importlib mode: no sys.path)."""
    spec = importlib.util.spec_from_file_location(
        "_aslib_toy", Path(__file__).with_name("test_aslib.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_T = _toy()
CV, RUNTIME, RUNTIME_RUNS = _T.CV, _T.RUNTIME, _T.RUNTIME_RUNS
_kb, _run, _runtime, _write = _T._kb, _T._run, _T._runtime, _T._write


# ------------------------------------------------------------------- cv.arff folds
@pytest.mark.parametrize(("cv", "line", "problem"), [
    (CV.replace("i3,1,2", "i3,1,2.5"), 8, "fold must be a positive integer, got 2.5"),
    (CV.replace("i3,1,2", "i3,1,0"), 8, "fold must be a positive integer, got 0"),
    (CV.replace("i3,1,2", "i3,1,-1"), 8, "fold must be a positive integer, got -1"),
    (CV.replace("i4,1,2", "i4,1,11").replace("i3,1,2", "i3,1,11"), 8,
     "fold 11 of repetition 1, but its fold 2 holds no instance"),
    (CV.replace("i1,1,1", "i1,1.5,1"), 6, "repetition must be a positive integer"),
    (CV + "i1,3,1\ni2,3,1\ni3,3,2\ni4,3,2\n", 10, "repetition 3, but no repetition 2"),
])
def test_cv_folds_must_be_positive_integers_numbered_without_gaps(tmp_path, cv, line,
                                                                  problem):
    root = _write(tmp_path / "toy", cv=cv)
    with pytest.raises(ValueError) as info:
        read_aslib(root)
    assert f"cv.arff, line {line}: {problem}" in str(info.value)
    result = _run("recommend", "--evaluate", "--aslib", root)
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert f"cv.arff, line {line}: {problem}" in result.output


def test_every_repetition_has_the_same_number_of_folds(tmp_path):
    cv = CV + "i1,2,1\ni2,2,2\ni3,2,3\ni4,2,3\n"
    with pytest.raises(ValueError, match="repetition 2 has 3 folds, repetition 1 2"):
        read_aslib(_write(tmp_path / "toy", cv=cv))


# ------------------------------------------------------------------- options
def test_an_explicit_measure_equal_to_the_default_is_not_taken_as_absent(tmp_path):
    """The runtime scenario has no accuracy: --measure accuracy is refused, not ignored."""
    root = _runtime(tmp_path / "rt")
    out = tmp_path / "ev.json"
    result = _run("recommend", "--evaluate", "--aslib", root, "--measure", "accuracy",
                  "--strategy", "single-best", "--json", out)
    assert result.exit_code == 2, result.output
    assert "no performance measure 'accuracy'; the scenario has runtime" in result.output
    assert not out.exists()


def test_no_measure_means_the_scenario_s_first(tmp_path, capsys):
    from metaeval.cli._aslib import evaluate_aslib_command

    out = tmp_path / "ev.json"
    evaluate_aslib_command(_runtime(tmp_path / "rt"), evaluate=True, data_file=None,
                           measure=None, cost=None, cost_beta=None, time_weight="0",
                           strategy="single-best", json_file=out)
    assert json.loads(out.read_text())["scenario"]["measure"] == "runtime"


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_json_output_must_be_a_regular_file(tmp_path, kind):
    node = tmp_path / "node"
    os.mkfifo(node) if kind == "fifo" else node.mkdir()
    result = _run("recommend", "--evaluate", "--aslib", _runtime(tmp_path / "rt"),
                  "--strategy", "single-best", "--json", node)
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1 and str(node) in result.output
    mode = node.lstat().st_mode
    assert stat.S_ISFIFO(mode) if kind == "fifo" else stat.S_ISDIR(mode)


def test_an_empty_read_only_folder_is_refused_and_kept(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    inode = folder.stat().st_ino
    try:
        with pytest.raises(ValueError, match="read-only"):
            write_aslib(_kb(), folder)
        result = _run("export", "--aslib", folder, "--knowledge", "shipped")
        assert result.exit_code == 2 and "read-only" in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1
        assert folder.stat().st_ino == inode and stat.S_IMODE(folder.stat().st_mode) == 0o555
        assert not any(folder.iterdir())
    finally:
        folder.chmod(0o755)


def test_a_read_only_parent_is_named_not_a_hidden_temporary_folder(tmp_path):
    parent = tmp_path / "parent"
    parent.mkdir()
    parent.chmod(0o555)
    try:
        with pytest.raises(ValueError) as info:
            write_aslib(_kb(), parent / "new")
        assert f"{parent}: read-only" in str(info.value)
        assert "/.new" not in str(info.value)
        assert not any(parent.iterdir())
    finally:
        parent.chmod(0o755)


# ------------------------------------------------------------------- odd files
def test_algorithm_runs_without_data_rows_is_one_line_naming_the_file(tmp_path):
    empty = RUNTIME_RUNS.split("@DATA")[0] + "@DATA\n"
    root = _write(tmp_path / "rt", description=RUNTIME, algorithm_runs=empty)
    result = _run("recommend", "--evaluate", "--aslib", root)
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1
    assert "algorithm_runs.arff: no data rows" in result.output


def test_files_starting_with_a_byte_order_mark_read_as_without(tmp_path):
    plain = read_aslib(_runtime(tmp_path / "plain"))
    root = _runtime(tmp_path / "bom")
    for file in root.iterdir():
        file.write_bytes(b"\xef\xbb\xbf" + file.read_bytes())
    bom = read_aslib(root)
    np.testing.assert_array_equal(bom.performance, plain.performance)
    np.testing.assert_array_equal(bom.knowledge.metafeature_time,
                                  plain.knowledge.metafeature_time)
    assert bom.cv.equals(plain.cv) and bom.knowledge.datasets == plain.knowledge.datasets


# ------------------------------------------------------------------- feature costs
class _Fixed(Strategy):
    """The same order on every instance; reads the meta-features (pays their cost)."""

    uses = "metafeatures"

    def __init__(self, name, order, uses="metafeatures"):
        self.name, self._order, self.uses = name, np.array(order), uses

    def rank(self, train, query, condition, *, seed=0):
        return Ranking(self._order, np.zeros(self._order.size), ())


COSTS = """\
@RELATION costs
@ATTRIBUTE instance_id STRING
@ATTRIBUTE repetition NUMERIC
@ATTRIBUTE basic NUMERIC
@ATTRIBUTE probe NUMERIC
@DATA
i1,1,9.5,7
i2,1,8,7
i3,1,?,7
i4,1,0.5,7
"""


def test_feature_costs_and_the_whole_scenario_single_best_by_hand(tmp_path):
    """Cutoff 10 s; B's runtimes 5, 2, 3 and a crash; the default step's costs 9.5, 8,
    missing (0) and 0.5. Reading features, always-B runs 5 + 9.5 = 14.5 s and 2 + 8 = 10 s:
    both reach the cutoff, PAR10 100; then 3 + 0 = 3 s; the crash stays 100. Mean
    (100 + 100 + 3 + 100) / 4 = 75.75, one of four solved. Without reading features:
    (5 + 2 + 3 + 100) / 4 = 27.5. Single best on the training folds 51 (test_aslib's
    example), on the whole scenario A: (1 + 100 + 1 + 2) / 4 = 26; VBS 1.5."""
    sc = read_aslib(_write(tmp_path / "rt", description=RUNTIME,
                           algorithm_runs=RUNTIME_RUNS, feature_costs=COSTS))
    strategies = [_Fixed("b-reading", [1, 0]), _Fixed("b-blind", [1, 0], uses=None),
                  "single-best", "oracle"]
    ev = evaluate_aslib(sc, strategies, n_boot=20)
    s = ev.summary.set_index("strategy")
    assert s.loc["b-reading", "performance"] == 75.75
    assert s.loc["b-reading", "solved"] == 0.25
    assert s.loc["b-reading", "feature_cost"] == (9.5 + 8 + 0 + 0.5) / 4
    assert s.loc["b-blind", "performance"] == 27.5 and s.loc["b-blind", "feature_cost"] == 0
    assert s.loc["b-reading", "gap_closed"] == pytest.approx((51 - 75.75) / (51 - 1.5))
    assert s.loc["b-reading", "gap_closed_whole_sbs"] == pytest.approx(
        (26 - 75.75) / (26 - 1.5))
    assert s.loc["b-blind", "gap_closed_whole_sbs"] == pytest.approx((26 - 27.5) / 24.5)
    assert s.loc["b-reading", "loss_at_1"] == pytest.approx((99 + 98 + 2 + 98) / 4)
    assert (ev.sbs, ev.sbs_whole, ev.vbs, ev.sbs_whole_algorithm) == (51.0, 26.0, 1.5, "A")
    assert s.loc["single-best", "gap_closed"] == 0.0 and s.loc["oracle", "gap_closed"] == 1
    document = ev.to_json()
    assert document["feature_costs"] is True and document["sbs_whole"] == 26.0
    entry = document["strategies"]["b-reading"]
    assert entry["par10"] == 75.75
    assert entry["gap_closed_whole_sbs"] == pytest.approx((26 - 75.75) / 24.5)
    # without the costs: today's numbers
    off = evaluate_aslib(sc, strategies, n_boot=20, feature_costs=False)
    t = off.summary.set_index("strategy")
    assert t.loc["b-reading", "performance"] == 27.5 and t.loc["b-reading", "solved"] == 0.75
    assert off.to_json()["feature_costs"] is False
    # a scenario without feature_costs.arff pays nothing
    none = read_aslib(_write(tmp_path / "none", description=RUNTIME,
                             algorithm_runs=RUNTIME_RUNS, feature_costs=None))
    assert evaluate_aslib(none, strategies[:1], n_boot=5).summary["performance"][0] == 27.5


def test_the_whole_scenario_single_best_is_chosen_as_llama_chooses_it(tmp_path):
    """A: 1, timeout, 1, 1 s; B: 9 s everywhere (cutoff 10). By mean PAR10 B is best
    (9 against (1 + 100 + 1 + 1) / 4 = 25.75); LLAMA counts the timeout at the cutoff,
    (1 + 10 + 1 + 1) / 4 = 3.25 against 9, and picks A, whose PAR10 25.75 is the
    reference of the published closed gaps."""
    runs = RUNTIME_RUNS.split("@DATA")[0] + "@DATA\n" + "".join(
        f"i{i},1,A,{a},{status}\ni{i},1,B,9.0,ok\n"
        for i, a, status in ((1, 1.0, "ok"), (2, 10.0, "timeout"), (3, 1.0, "ok"),
                             (4, 1.0, "ok")))
    sc = read_aslib(_write(tmp_path / "rt", description=RUNTIME, algorithm_runs=runs))
    ev = evaluate_aslib(sc, ["single-best", "oracle"], n_boot=5)
    assert (ev.sbs_whole_algorithm, ev.sbs_whole) == ("A", 25.75)
    # the VBS: 1, 9, 1, 1
    assert ev.vbs == 3.0
    s = ev.summary.set_index("strategy")
    assert s.loc["oracle", "gap_closed_whole_sbs"] == 1.0


def test_each_cv_fold_is_fitted_once_and_ranks_all_its_instances(tmp_path):
    """Two repetitions of two folds: four fits, eight rankings (one per instance and
    repetition), each fit on the instances outside its fold only."""
    from metaeval.recommend.learners._strategies import Fitted

    fits, ranks = [], []

    class Counting(Strategy):
        name = "counting"

        def _fit(self, knowledge, condition, seed):
            fits.append(knowledge.datasets)

            class _Ranker(Fitted):
                def rank(self, query):
                    ranks.append(query.name)
                    return Ranking(np.arange(2), np.zeros(2), ())

            return _Ranker(self, knowledge, condition, seed)

    cv = CV + "i1,2,1\ni2,2,2\ni3,2,2\ni4,2,1\n"
    sc = read_aslib(_write(tmp_path / "rt", description=RUNTIME, algorithm_runs=RUNTIME_RUNS,
                           cv=cv))
    evaluate_aslib(sc, [Counting()], n_boot=5)
    assert sorted(fits) == [("i1", "i2"), ("i1", "i4"), ("i2", "i3"), ("i3", "i4")]
    assert sorted(ranks) == ["i1", "i1", "i2", "i2", "i3", "i3", "i4", "i4"]


def test_auto_s_choice_per_fold_is_reported(tmp_path):
    sc = read_aslib(_runtime(tmp_path / "rt"))
    ev = evaluate_aslib(sc, ["auto", "single-best"], n_boot=5)
    chosen = ev.to_json()["strategies"]["auto"]["chosen"]
    assert sum(chosen.values()) == 4 and set(chosen) <= set(ev.per_instance["chosen"])
    assert "chosen" not in ev.to_json()["strategies"]["single-best"]
    result = _run("recommend", "--evaluate", "--aslib", tmp_path / "rt", "--strategy", "auto")
    assert result.exit_code == 0, result.output
    assert "auto chose, per fold on its training instances: " in result.output


def test_no_feature_costs_on_the_command_line_gives_the_numbers_without_them(tmp_path):
    """The by-hand scenario above: always-B reading features scores 75.75 with the costs
    and 27.5 without; the command line's --no-feature-costs reaches the library's switch."""
    root = _write(tmp_path / "rt", description=RUNTIME, algorithm_runs=RUNTIME_RUNS,
                  feature_costs=COSTS)
    runs = {}
    for flag in ("--feature-costs", "--no-feature-costs"):
        out = tmp_path / f"{flag}.json"
        result = _run("recommend", "--evaluate", "--aslib", root, "--strategy", "single-best",
                      flag, "--json", out)
        assert result.exit_code == 0, result.output
        runs[flag] = json.loads(out.read_text())
    assert runs["--feature-costs"]["feature_costs"] is True
    assert runs["--no-feature-costs"]["feature_costs"] is False
    wrong = _run("recommend", "x.csv", "--no-feature-costs")
    assert wrong.exit_code == 2 and "--no-feature-costs goes with --evaluate --aslib" in \
        wrong.output, wrong.output
