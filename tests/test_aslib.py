"""ASlib scenarios: reading (every bad file), PAR10 and the closed gap by hand, Holm,
writing with an exact round trip, and the real OPENML-WEKA-2017 scenario when present."""

from __future__ import annotations

import dataclasses
import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.recommend import (
    Condition,
    KnowledgeBase,
    Ranking,
    Strategy,
    evaluate_aslib,
    evaluate_recommenders,
    holm,
    read_aslib,
    write_aslib,
)

runner = CliRunner()


def _run(*args):
    return runner.invoke(app, [str(a) for a in args])


def _scenario_dir():
    """The shared OPENML-WEKA-2017 scenario (GPLv3; read in place, never copied)."""
    env = os.environ.get("METAEVAL_ASLIB_DIR")
    candidates = [Path(env)] if env else []
    for parent in Path(__file__).resolve().parents:
        candidates.append(parent / "shared" / "aslib")
    for base in candidates:
        for path in (base / "OPENML-WEKA-2017", base):
            if (path / "description.txt").is_file() and (path / "cv.arff").is_file():
                return path
    return None


OPENML = _scenario_dir()

# --------------------------------------------------------------------- a tiny scenario
QUALITY = """\
scenario_id: TOY
performance_measures:
- accuracy
- runtime
maximize:
- true
- false
performance_type:
- solution_quality
- runtime
algorithm_cutoff_time: 100
algorithm_cutoff_memory: '?'
metainfo_algorithms:
  A:
    configuration: ''
    deterministic: true
  B:
    configuration: ''
    deterministic: true
default_steps:
- basic
feature_steps:
  basic:
    provides:
    - f1
  probe:
    provides:
    - f2
"""

RUNS = """\
@RELATION runs
@ATTRIBUTE instance_id STRING
@ATTRIBUTE repetition NUMERIC
@ATTRIBUTE algorithm STRING
@ATTRIBUTE accuracy NUMERIC
@ATTRIBUTE runtime NUMERIC
@ATTRIBUTE runstatus {ok, timeout, memout, not_applicable, crash, other}
@DATA
i1,1,A,0.9,1.0,ok
i1,1,B,0.8,2.0,ok
i2,1,A,0.6,3.0,ok
i2,1,B,0.7,4.0,ok
i3,1,A,0.5,5.0,ok
i3,1,B,0.9,6.0,ok
i4,1,A,0.8,7.0,ok
i4,1,B,0.6,8.0,ok
"""

FEATURES = """\
@RELATION features
@ATTRIBUTE instance_id STRING
@ATTRIBUTE repetition NUMERIC
@ATTRIBUTE f1 NUMERIC
@ATTRIBUTE f2 NUMERIC
@DATA
i1,1,1.0,10
i2,1,2.0,20
i3,1,?,30
i4,1,4.0,40
"""

STATUS = """\
@RELATION status
@ATTRIBUTE instance_id STRING
@ATTRIBUTE repetition NUMERIC
@ATTRIBUTE basic {ok, timeout, memout, presolved, crash, other, unknown}
@ATTRIBUTE probe {ok, timeout, memout, presolved, crash, other, unknown}
@DATA
i1,1,ok,ok
i2,1,ok,ok
i3,1,ok,ok
i4,1,ok,ok
"""

COSTS = """\
@RELATION costs
@ATTRIBUTE instance_id STRING
@ATTRIBUTE repetition NUMERIC
@ATTRIBUTE basic NUMERIC
@ATTRIBUTE probe NUMERIC
@DATA
i1,1,0.5,7
i2,1,0.25,7
i3,1,?,7
i4,1,1.0,7
"""

CV = """\
@RELATION cv
@ATTRIBUTE instance_id STRING
@ATTRIBUTE repetition NUMERIC
@ATTRIBUTE fold NUMERIC
@DATA
i1,1,1
i2,1,1
i3,1,2
i4,1,2
"""

FILES = {"description.txt": QUALITY, "algorithm_runs.arff": RUNS,
         "feature_values.arff": FEATURES, "feature_runstatus.arff": STATUS,
         "feature_costs.arff": COSTS, "cv.arff": CV}


def _write(root: Path, **changes) -> Path:
    """The toy scenario in ``root``, with ``changes`` {file stem: text or callable}."""
    root.mkdir(parents=True, exist_ok=True)
    for name, text in FILES.items():
        stem = name.split(".")[0]
        change = changes.get(stem, text)
        if change is None:
            continue
        (root / name).write_text(change(text) if callable(change) else change)
    return root


def test_a_quality_scenario_reads_into_a_knowledge_base(tmp_path):
    sc = read_aslib(_write(tmp_path / "toy"))
    kb = sc.knowledge
    assert kb.datasets == ("i1", "i2", "i3", "i4") and kb.algorithms == ("A", "B")
    np.testing.assert_array_equal(kb.success, [[.9, .8], [.6, .7], [.5, .9], [.8, .6]])
    # the second measure is a runtime: it gives the times
    np.testing.assert_array_equal(kb.times, [[1, 2], [3, 4], [5, 6], [7, 8]])
    # only the default step's features; '?' is missing; its costs (missing cost = 0)
    assert list(kb.metafeatures.columns) == ["f1"]
    assert np.isnan(kb.metafeatures.loc["i3", "f1"])
    np.testing.assert_array_equal(kb.metafeature_time, [0.5, 0.25, 0.0, 1.0])
    assert sc.cv[1].tolist() == [1, 1, 2, 2]
    assert (sc.measure, sc.maximize, sc.performance_type, sc.shift) == (
        "accuracy", True, "solution_quality", 0.0)


def test_the_second_measure_can_be_chosen_and_minimised_measures_are_negated(tmp_path):
    sc = read_aslib(_write(tmp_path / "toy"), measure="runtime")
    # runtime scenario: cutoff 100 s, no run reaches it, PAR10 = the runtime
    np.testing.assert_array_equal(sc.performance, [[1, 2], [3, 4], [5, 6], [7, 8]])
    np.testing.assert_array_equal(sc.knowledge.success, 1000.0 - sc.performance)
    minimise = QUALITY.replace("- true\n- false", "- false\n- false")
    sc = read_aslib(_write(tmp_path / "min", description=minimise))
    # -accuracy is negative: shifted so that the worst run (0.9) scores SUCCESS_FLOOR
    assert sc.shift == pytest.approx(0.9 + 1e-3)
    np.testing.assert_allclose(sc.knowledge.success[0], [0.9 + 1e-3 - 0.9, 0.9 + 1e-3 - 0.8])
    np.testing.assert_allclose(sc.to_performance(sc.knowledge.success), sc.performance)


RUNTIME = """\
scenario_id: RT
performance_measures: [runtime]
maximize: [false]
performance_type: [runtime]
algorithm_cutoff_time: 10
algorithms_deterministic: A, B
default_steps: [basic]
feature_steps:
  basic:
    provides: [f1]
  probe:
    provides: [f2]
"""

RUNTIME_RUNS = """\
@RELATION runs
@ATTRIBUTE instance_id STRING
@ATTRIBUTE repetition NUMERIC
@ATTRIBUTE algorithm STRING
@ATTRIBUTE runtime NUMERIC
@ATTRIBUTE runstatus {ok, timeout, memout, not_applicable, crash, other}
@DATA
i1,1,A,1.0,ok
i1,1,B,5.0,ok
i2,1,A,10.0,ok
i2,1,B,2.0,ok
i3,1,A,1.0,ok
i3,1,B,3.0,ok
i4,1,A,2.0,ok
i4,1,B,0.5,crash
"""


def _runtime(root):
    return _write(root, description=RUNTIME, algorithm_runs=RUNTIME_RUNS)


def test_par10_by_hand(tmp_path):
    """A run at the cutoff (i2, A: 10 s) or not ok (i4, B: crashed at 0.5 s) is a
    timeout: PAR10 = 10 x 10 s = 100; every other run scores its runtime."""
    sc = read_aslib(_runtime(tmp_path / "rt"))
    np.testing.assert_array_equal(sc.performance, [[1, 5], [100, 2], [1, 3], [2, 100]])
    np.testing.assert_array_equal(sc.solved, [[1, 1], [0, 1], [1, 1], [1, 0]])
    # success = 10 x cutoff - PAR10 (0 for a timeout); times capped at the cutoff
    np.testing.assert_array_equal(sc.knowledge.success, 100.0 - sc.performance)
    np.testing.assert_array_equal(sc.knowledge.times, [[1, 5], [10, 2], [1, 3], [2, 0.5]])


def test_a_runtime_scenario_s_regression_learns_log_par10(tmp_path):
    """The cutoff is 10 s: success = 100 - PAR10, and regression (alone and as auto's
    candidate) is given the ceiling 100, so that it learns -log PAR10; the scenario has
    no landmark features, so cost-landmarking is left out with a note."""
    from metaeval.recommend.aslib._aslib_evaluate import _runtime_strategies

    sc = read_aslib(_runtime(tmp_path / "rt"))
    chosen, notes = _runtime_strategies(sc, None, None)
    by_name = {getattr(s, "name", s): s for s in chosen}
    assert by_name["regression"].cost_ceiling == 100.0
    assert by_name["auto"].params == {"regression": {"cost_ceiling": 100.0}}
    target = by_name["regression"].target(sc.knowledge, Condition())
    np.testing.assert_allclose(target, -np.log(sc.performance))
    assert "cost-landmarking" not in by_name
    assert any(n.startswith("skipped cost-landmarking") for n in notes)
    # named strategies are kept as named; a quality scenario's are left as they are
    assert _runtime_strategies(sc, ["single-best"], None) == (["single-best"], [])
    quality = read_aslib(_write(tmp_path / "q"))
    assert _runtime_strategies(quality, None, None) == (None, [])


class _Always(Strategy):
    """Test strategy: the same fixed order on every instance."""

    def __init__(self, name, order):
        self.name = name
        self._order = np.array(order)

    def rank(self, train, query, condition, *, seed=0):
        return Ranking(self._order, np.zeros(self._order.size), ())


def test_gap_closed_solved_and_par10_by_hand(tmp_path):
    """Folds {i1, i2} and {i3, i4}. Held out i1, i2: trained on i3, i4, the SBS is A
    (mean PAR10 1.5 vs 51.5): 1 and 100. Held out i3, i4: the SBS is B (3.5 vs 50.5):
    3 and 100. SBS = (1 + 100 + 3 + 100) / 4 = 51; VBS = (1 + 2 + 1 + 2) / 4 = 1.5.
    Always B: (5 + 2 + 3 + 100) / 4 = 27.5, closing (51 - 27.5) / (51 - 1.5) = 0.4747...
    of the gap and solving 3 of 4; always A: 26, closing 25 / 49.5 = 0.5050..."""
    sc = read_aslib(_runtime(tmp_path / "rt"))
    ev = evaluate_aslib(sc, [_Always("always-b", [1, 0]), _Always("always-a", [0, 1]),
                             "single-best", "oracle"], n_boot=50)
    assert ev.sbs == 51.0 and ev.vbs == 1.5
    assert ev.sbs_solved == 0.5 and ev.vbs_solved == 1.0
    s = ev.summary.set_index("strategy")
    assert s.loc["always-b", "performance"] == 27.5
    assert s.loc["always-b", "gap_closed"] == pytest.approx(23.5 / 49.5)
    assert s.loc["always-b", "solved"] == 0.75
    assert s.loc["always-a", "performance"] == 26.0
    assert s.loc["always-a", "gap_closed"] == pytest.approx(25 / 49.5)
    assert s.loc["single-best", "gap_closed"] == 0.0 and s.loc["oracle", "gap_closed"] == 1.0
    # loss@1 in PAR10 seconds: always-b loses 4, 0, 2, 98 against the VBS
    assert s.loc["always-b", "loss_at_1"] == pytest.approx((4 + 0 + 2 + 98) / 4)
    # the paired comparison: only the two fixed orders are compared with the SBS, Holm over 2
    compared = s.dropna(subset=["p"])
    assert sorted(compared.index) == ["always-a", "always-b"]
    np.testing.assert_allclose(compared["p_holm"], holm(compared["p"].to_numpy()))
    document = ev.to_json()
    assert document["sbs"] == 51.0 and document["vbs"] == 1.5
    assert document["strategies"]["always-b"]["gap_closed"] == pytest.approx(23.5 / 49.5)
    assert document["strategies"]["always-b"]["mean_performance"] == 27.5


def test_holm_worked_example():
    """Sorted 0.01, 0.03, 0.04, 0.5 times 4, 3, 2, 1 = 0.04, 0.09, 0.08, 0.5; the running
    maximum makes the third 0.09. NaN is left out of m."""
    np.testing.assert_allclose(holm([0.04, 0.01, 0.5, 0.03]), [0.09, 0.04, 0.5, 0.09])
    out = holm([0.02, np.nan, 0.6])
    np.testing.assert_allclose(out[[0, 2]], [0.04, 0.6])
    assert np.isnan(out[1])
    assert holm([0.9, 0.8]).tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        holm([1.5])


def test_holm_matches_its_definition_on_random_p_values():
    rng = np.random.default_rng(3)
    for _ in range(20):
        p = rng.random(rng.integers(1, 8)) ** 3
        order = np.argsort(p)
        m = p.size
        expected = np.empty(m)
        running = 0.0
        for rank, i in enumerate(order):
            running = max(running, (m - rank) * p[i])
            expected[i] = min(1.0, running)
        np.testing.assert_allclose(holm(p), expected)


def test_a_feature_two_used_steps_provide_is_read_once(tmp_path):
    # both steps used, both listing f1: one column f1, the file's values; a step that
    # fails makes it missing whichever of the two it is
    text = QUALITY.replace("- basic\nfeature_steps", "- basic\n- probe\nfeature_steps")
    text = text.replace("    - f2\n", "    - f2\n    - f1\n")
    assert text.count("- f1") == 2 and "- probe\nfeature_steps" in text
    sc = read_aslib(_write(tmp_path / "toy", description=text))
    assert list(sc.knowledge.metafeatures.columns) == ["f1", "f2"]
    assert sc.knowledge.metafeatures["f1"].tolist()[:2] == [1.0, 2.0]
    status = STATUS.replace("i2,1,ok,ok", "i2,1,ok,crash")
    sc = read_aslib(_write(tmp_path / "toy2", description=text, feature_runstatus=status))
    assert np.isnan(sc.knowledge.metafeatures.loc["i2", "f1"])
    assert np.isnan(sc.knowledge.metafeatures.loc["i2", "f2"])


def test_a_feature_step_not_ok_makes_its_features_missing(tmp_path):
    status = STATUS.replace("i2,1,ok,ok", "i2,1,crash,ok")
    sc = read_aslib(_write(tmp_path / "toy", feature_runstatus=status))
    assert np.isnan(sc.knowledge.metafeatures.loc["i2", "f1"])
    assert sc.knowledge.metafeatures.loc["i1", "f1"] == 1.0
    assert any("not ok" in n for n in sc.notes)
    # and every strategy still runs with the missing values
    ev = evaluate_aslib(sc, n_boot=20, n_random=3)
    assert "knn-metafeatures" in ev.strategies


def _drop_line(prefix):
    return lambda text: "".join(line for line in text.splitlines(keepends=True)
                                if not line.startswith(prefix))


def _replace(old, new):
    return lambda text: text.replace(old, new, 1)


BAD = {
    "missing feature_runstatus": ({"feature_runstatus": None}, "feature_runstatus.arff: missing"),
    "duplicated run": ({"algorithm_runs": lambda t: t + "i2,1,B,0.7,4.0,ok\n"},
                       "algorithm_runs.arff, line 17: duplicated run (i2, 1, B; first at "
                       "line 12)"),
    "missing run": ({"algorithm_runs": _drop_line("i3,1,B")},
                    "algorithm_runs.arff: no run of 'B' on instance 'i3' (every "
                    "algorithm needs a run on every instance)"),
    "unknown algorithm": ({"algorithm_runs": _replace("i4,1,B", "i4,1,C")},
                          "algorithm_runs.arff, line 16: run of unknown algorithm 'C'"),
    "non-ok run without a value in a quality scenario": (
        {"algorithm_runs": _replace("0.7,4.0,ok", "?,4.0,crash")},
        "algorithm_runs.arff, line 12: run status 'crash' and no accuracy in a "
        "solution-quality scenario"),
    "unknown run status": ({"algorithm_runs": _replace("0.7,4.0,ok", "0.7,4.0,fine")},
                           "algorithm_runs.arff, line 12: unknown runstatus 'fine'"),
    "ok run without a value": ({"algorithm_runs": _replace("0.7,4.0,ok", "?,4.0,ok")},
                               "algorithm_runs.arff, line 12: run status ok but accuracy"),
    "malformed ARFF row": ({"algorithm_runs": _replace("i1,1,A,0.9,1.0,ok", "i1,1,A,0.9,ok")},
                           "algorithm_runs.arff: ARFF line 9: 5 values, but 6 attributes"),
    "not YAML": ({"description": lambda t: t + "feature_steps: [a\n"},
                 "description.txt, line"),
    "measure list mismatch": ({"description": _replace("- true\n- false",
                                                       "- true\n- false\n- true")},
                              "description.txt, line 5: maximize must give one value per"),
    "runtime without cutoff": (
        {"description": RUNTIME.replace("algorithm_cutoff_time: 10", "algorithm_cutoff_time: 0"),
         "algorithm_runs": RUNTIME_RUNS},
        "description.txt, line 5: a runtime scenario needs a positive algorithm_cutoff_time"),
    "negative runtime": ({"description": RUNTIME,
                          "algorithm_runs": RUNTIME_RUNS.replace("i3,1,A,1.0", "i3,1,A,-1")},
                         "algorithm_runs.arff, line 12: negative runtime -1"),
    "unknown feature status": ({"feature_runstatus": _replace("i3,1,ok", "i3,1,bad")},
                               "feature_runstatus.arff, line 9: unknown basic 'bad'"),
    "instance without features": ({"feature_values": _drop_line("i4,")},
                                  "feature_values.arff: no feature values for instance 'i4'"),
    "features of an unknown instance": ({"feature_values": lambda t: t + "i9,1,1,1\n"},
                                        "feature_values.arff, line 11: instance 'i9' has no "
                                        "algorithm runs"),
    "instance without a fold": ({"cv": _drop_line("i2,")}, "cv.arff: no fold for instance"),
    "a step without a status column": (
        {"feature_runstatus": lambda t: t.replace("@ATTRIBUTE basic", "@ATTRIBUTE other")},
        "feature_runstatus.arff: no attribute 'basic'"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_each_bad_scenario_file_is_one_line_exit_2_and_nothing_written(tmp_path, case):
    changes, message = BAD[case]
    root = _write(tmp_path / "bad", **changes)
    with pytest.raises(ValueError) as info:
        read_aslib(root)
    assert message in str(info.value)
    out = tmp_path / "out.json"
    result = _run("recommend", "--evaluate", "--aslib", root, "--json", out)
    assert result.exit_code == 2, result.output
    assert result.output.strip().startswith("Error: ")
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert message in result.output
    assert not out.exists()


def test_an_unknown_measure_is_refused_by_name(tmp_path):
    root = _write(tmp_path / "toy")
    result = _run("recommend", "--evaluate", "--aslib", root, "--measure", "f1")
    assert result.exit_code == 2
    assert "no performance measure 'f1'; the scenario has accuracy, runtime" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_the_cli_evaluates_a_scenario_and_writes_its_json(tmp_path):
    root = _runtime(tmp_path / "rt")
    out = tmp_path / "ev.json"
    result = _run("recommend", "--evaluate", "--aslib", root, "--json", out,
                  "--strategy", "single-best")
    assert result.exit_code == 0, result.output
    assert "PAR10" in result.output
    # the p column is a two-sided test's: the note says so, lest a small p read as better
    assert "two-sided Wilcoxon test's" in " ".join(result.output.split())
    document = json.loads(out.read_text())
    assert document["sbs"] == 51.0 and document["vbs"] == 1.5
    assert document["strategies"]["single-best"]["gap_closed"] == 0.0
    assert document["scenario"]["performance_type"] == "runtime"


# --------------------------------------------------------------------- writing
def test_on_a_terminal_the_spinner_says_how_many_folds_are_done(tmp_path, monkeypatch):
    """A long evaluation (minutes on scenarios of thousands of instances) says how far it
    has come; elsewhere (a pipe, a log) nothing is added."""
    import io

    from rich.console import Console

    from metaeval.cli import _app

    screen = io.StringIO()
    monkeypatch.setattr(_app, "err", Console(file=screen, force_terminal=True, width=200))
    result = _run("recommend", "--evaluate", "--aslib", _runtime(tmp_path / "rt"),
                  "--strategy", "single-best", "--jobs", "1")
    assert result.exit_code == 0, result.output
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen.getvalue())  # no colours
    assert "folds (1/2 folds)" in shown and "folds (2/2 folds)" in shown
    assert "/2 folds" not in result.output


def _kb():
    rng = np.random.default_rng(0)
    names = [f"d{i}" for i in range(12)]
    mf = pd.DataFrame(rng.normal(size=(12, 3)), index=names,
                      columns=["general.a", "x y", "q,r"])
    mf.iloc[2, 1] = np.nan
    land = pd.DataFrame(rng.random(size=(12, 2)), index=names, columns=["NB.all", "LR.all"])
    return KnowledgeBase(names, ["rf(n=1)", "lr", "a b", "c'd"], rng.random((12, 4)),
                         rng.random((12, 4)) * 10 + 0.01, [f"f{i // 2}" for i in range(12)],
                         np.arange(12) + 10, mf, rng.random(12), land, rng.random(12),
                         Condition())


def _same_losses(a, b):
    a = a.set_index(["dataset", "strategy"]).sort_index()
    b = b.set_index(["dataset", "strategy"]).sort_index()
    assert a.index.equals(b.index)
    for column in ("loss_at_1", "loss_at_3", "loss_at_5", "mil", "first_success"):
        np.testing.assert_array_equal(a[column].to_numpy(), b[column].to_numpy(), column)


def test_write_then_read_gives_the_same_knowledge_base_and_losses(tmp_path):
    kb = _kb()
    path = write_aslib(kb, tmp_path / "sc")
    sc = read_aslib(path)
    back = sc.knowledge
    assert back.datasets == kb.datasets and back.algorithms == kb.algorithms
    np.testing.assert_array_equal(back.success, kb.success)
    np.testing.assert_array_equal(back.times, kb.times)
    pd.testing.assert_frame_equal(back.metafeatures, kb.metafeatures, check_names=False)
    pd.testing.assert_frame_equal(back.landmarks, kb.landmarks, check_names=False)
    np.testing.assert_array_equal(back.metafeature_time, kb.metafeature_time)
    np.testing.assert_array_equal(back.landmark_time, kb.landmark_time)
    # cv.arff: leave-one-family-out
    assert sc.cv[1].tolist() == [i // 2 + 1 for i in range(12)]
    condition = Condition(time_weight=1 / 64)
    # a scenario knows its folds, not its families: each instance is its own family
    # (learners bag by family), the folds are the families
    flat = dataclasses.replace(kb, families=kb.datasets)
    # each kind of input: none, meta-features, landmarks (the learners read the same
    # meta-features and landmarks; their forests would cost seconds here)
    strategies = ["average-ranking", "knn-metafeatures", "cost-landmarking",
                  "active-testing", "single-best", "random", "oracle"]
    direct = evaluate_recommenders(flat, condition, strategies=strategies, n_boot=10,
                                   n_random=5, folds=np.array(kb.families))
    exported = evaluate_aslib(sc, strategies, condition=condition, n_boot=10,
                              n_random=5)  # both default k: knn-metafeatures chooses it
    assert exported.strategies == direct.strategies
    _same_losses(direct.per_dataset, exported.per_instance)


def test_write_refuses_a_folder_in_use_and_leaves_nothing_on_failure(tmp_path, monkeypatch):
    import metaeval.recommend.aslib._aslib_write as module

    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("keep")
    with pytest.raises(ValueError, match="not an empty folder"):
        write_aslib(_kb(), tmp_path / "full")
    calls = []

    def failing(*args):
        calls.append(args)
        if len(calls) == 3:
            raise OSError("disk full")
        return write(*args)

    write = module._write_arff
    monkeypatch.setattr(module, "_write_arff", failing)
    with pytest.raises(OSError, match="disk full"):
        write_aslib(_kb(), tmp_path / "new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full"]


def _toy_store(path):
    """A finished study of A, B, C on six small datasets of three families."""
    from metaeval.store import Store

    store = Store(path)
    names = ["ecoli1", "ecoli2", "glass1", "glass2", "iris1", "iris2"]
    with store.writing():
        store.sync_study(
            {"folds": 2, "seed": 0},
            datasets=[{"name": n, "sha256": "0" * 64, "n_instances": 30, "n_features": 2,
                       "positive_fraction": 0.5, "family": n[:-1], "source": "test"}
                      for n in names],
            algorithms=[{"name": a, "estimator": f"m.{a}", "params": "{}",
                         "score_method": "predict_proba", "versions": "{}"}
                        for a in "ABC"],
            tasks=[(n, a, 0) for n in names for a in "ABC"])
        for i, n in enumerate(names):
            rng = np.random.default_rng(100 + i)
            y = np.array([0, 1] * 15, dtype=np.int8)
            for j, a in enumerate("ABC"):
                s = np.clip(y * (0.3 + 0.2 * ((i + j) % 3)) + rng.random(30) * 0.6, 0, 1)
                cpu = 0.1 * (j + 1) * (i + 1)
                store.record_task(n, a, 0, status="done", wall=2 * cpu, cpu=cpu, n_folds=2,
                                  fold=np.arange(30) % 2, y=y, score=s,
                                  timings={k: [0.01, 0.01] for k in
                                           ("fit_wall", "fit_cpu", "predict_wall",
                                            "predict_cpu")})
    return path


def test_export_a_store_as_aslib_and_evaluate_it_gives_the_store_s_losses(tmp_path):
    store = _toy_store(tmp_path / "s.duckdb")
    target = tmp_path / "scenario"
    result = _run("export", "--aslib", target, "--store", store, "--measure",
                  "hardness:rate-driven", "--cost", "0.3")
    assert result.exit_code == 0, result.output
    assert {p.name for p in target.iterdir()} >= {"description.txt", "algorithm_runs.arff",
                                                  "feature_values.arff", "cv.arff",
                                                  "feature_runstatus.arff",
                                                  "feature_costs.arff", "readme.txt"}
    condition = Condition("hardness:rate-driven", cost=0.3)
    kb = KnowledgeBase.from_store(store, condition, clock="cpu")
    sc = read_aslib(target)
    assert sc.measure == "hardness_rate_driven"
    np.testing.assert_array_equal(sc.knowledge.times, kb.times)  # CPU seconds
    strategies = ["average-ranking", "active-testing", "single-best", "random", "oracle"]
    direct = evaluate_recommenders(kb, condition, strategies=strategies, n_boot=10,
                                   n_random=100)
    exported = evaluate_aslib(sc, strategies, n_boot=10, n_random=100)
    _same_losses(direct.per_dataset, exported.per_instance)
    # a second export to the same folder is refused, the first left as it was
    again = _run("export", "--aslib", target, "--store", store)
    assert again.exit_code == 2 and "not an empty folder" in again.output
    both = _run("export", "--aslib", tmp_path / "x", "--parquet", tmp_path / "p",
                "--store", store)
    assert both.exit_code == 2 and "one of them" in both.output


# --------------------------------------------------------------------- the real scenario
@pytest.mark.skipif(OPENML is None, reason="the OPENML-WEKA-2017 scenario is not present "
                    "(set METAEVAL_ASLIB_DIR)")
def test_openml_weka_2017_reads_as_published():
    sc = read_aslib(OPENML)
    kb = sc.knowledge
    assert kb.shape == (105, 30) and kb.metafeatures.shape == (105, 103)
    assert int(kb.metafeatures.isna().to_numpy().sum()) == 884
    assert sc.cv[1].nunique() == 10
    best = kb.success.mean(axis=0)
    assert kb.algorithms[int(best.argmax())] == "2370_weka.LMT"
    assert best.max() == pytest.approx(0.8557, abs=5e-5)
    assert kb.success.max(axis=1).mean() == pytest.approx(0.8757, abs=5e-5)
    ev = evaluate_aslib(sc, ["single-best", "oracle", "average-ranking"], n_boot=50)
    assert ev.vbs == pytest.approx(0.8757, abs=5e-5)
    s = ev.summary.set_index("strategy")
    assert s.loc["oracle", "gap_closed"] == 1.0


def test_an_instance_s_recommendation_ignores_the_features_of_its_own_fold(tmp_path):
    """k-NN normalises features over the training folds only and skips missing ones: the
    features of another held-out instance of the same fold change nothing."""
    base = evaluate_aslib(read_aslib(_write(tmp_path / "a")), ["knn-metafeatures"],
                          k=1, n_boot=5)
    changed = FEATURES.replace("i2,1,2.0,20", "i2,1,-50.0,20")
    other = evaluate_aslib(read_aslib(_write(tmp_path / "b", feature_values=changed)),
                           ["knn-metafeatures"], k=1, n_boot=5)
    mine = [c[c["dataset"] == "i1"][["step", "algorithm", "loss"]].reset_index(drop=True)
            for c in (base.curves, other.curves)]
    pd.testing.assert_frame_equal(*mine)


def test_several_cv_repetitions_are_averaged_per_instance(tmp_path):
    """Repetition 1 as in the PAR10 example (SBS 1, 100, 3, 100). Repetition 2, folds
    {i1, i4} and {i2, i3}: trained on i2, i3 the SBS is B (2.5 vs 50.5): i1 5, i4 100;
    trained on i1, i4 it is A (1.5 vs 52.5): i2 100, i3 1. Per instance 3, 100, 2, 100:
    SBS = 51.25."""
    cv = CV + "i1,2,1\ni2,2,2\ni3,2,2\ni4,2,1\n"
    sc = read_aslib(_write(tmp_path / "rt", description=RUNTIME, algorithm_runs=RUNTIME_RUNS,
                           cv=cv))
    assert list(sc.cv.columns) == [1, 2]
    said = []  # progress: the two folds of each repetition, counted over both
    ev = evaluate_aslib(sc, ["single-best", "oracle"], n_boot=20,
                        progress=lambda done, total: said.append((done, total)))
    assert said == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert len(ev.per_instance) == 2 * 4 * 2
    assert ev.sbs == 51.25 and ev.vbs == 1.5
    with pytest.raises(ValueError, match="progress must be a callable or None"):
        evaluate_aslib(sc, ["single-best"], progress="yes")


def test_aslib_goes_with_evaluate_only(tmp_path):
    result = _run("recommend", "--aslib", _write(tmp_path / "toy"))
    assert result.exit_code == 2
    assert "--aslib DIR goes with --evaluate" in result.output
