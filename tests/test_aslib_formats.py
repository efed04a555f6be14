"""ASlib formats the shared scenarios lack, on small synthetic scenarios worked by hand:
solution-quality scenarios whose runs that timed out record the quality they reached,
several performance measures (the first evaluated unless another is asked for), the
older ``key: value`` description beside the YAML one, and what the format allows that
an audit against its specification found refused or misread: algorithms run a
different number of times, no ``cv.arff``, categorical features, names YAML would read
as numbers, and older-format steps whose lists overlap."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from metaeval.recommend import evaluate_aslib, read_aslib


def _toy():
    """The toy scenarios of test_aslib (tests import in importlib mode: no sys.path)."""
    spec = importlib.util.spec_from_file_location(
        "_aslib_toy", Path(__file__).with_name("test_aslib.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_T = _toy()
QUALITY, RUNS, RUNTIME, RUNTIME_RUNS = _T.QUALITY, _T.RUNS, _T.RUNTIME, _T.RUNTIME_RUNS
_run, _write = _T._run, _T._write


# --------------------------------------------------- quality runs that timed out
def test_a_quality_scenario_s_timeouts_are_scored_by_the_quality_they_record(tmp_path):
    """i2's B timed out at the cutoff (100 s) with accuracy 0.7; i4's A ran out of memory
    with accuracy 0.3 and no time (counted at the cutoff). The quality they record is
    their performance; the evaluation runs on it: single best on the whole scenario B
    ((0.8 + 0.7 + 0.9 + 0.6) / 4 = 0.75 against (0.9 + 0.6 + 0.5 + 0.3) / 4 = 0.575),
    virtual best (0.9 + 0.7 + 0.9 + 0.6) / 4 = 0.775."""
    runs = RUNS.replace("i2,1,B,0.7,4.0,ok", "i2,1,B,0.7,100,timeout").replace(
        "i4,1,A,0.8,7.0,ok", "i4,1,A,0.3,?,memout")
    sc = read_aslib(_write(tmp_path / "q", algorithm_runs=runs))
    np.testing.assert_array_equal(sc.performance, [[.9, .8], [.6, .7], [.5, .9], [.3, .6]])
    np.testing.assert_array_equal(sc.knowledge.times, [[1, 2], [3, 100], [5, 6], [100, 8]])
    assert any("2 run(s) not ok scored by the accuracy they record" in n for n in sc.notes)
    ev = evaluate_aslib(sc, ["single-best", "oracle"], n_boot=20)
    assert ev.sbs_whole_algorithm == "B" and ev.sbs_whole == pytest.approx(0.75)
    assert ev.vbs == pytest.approx(0.775)
    s = ev.summary.set_index("strategy")
    assert s.loc["oracle", "gap_closed_whole_sbs"] == pytest.approx(1.0)


def test_a_minimised_quality_with_timeouts_is_negated_and_shifted(tmp_path):
    """An objective to minimise (cost) whose timed-out runs record the best cost found:
    success = -cost + shift, and the performance comes back in the measure's units."""
    desc = QUALITY.replace("- accuracy", "- cost").replace("- true\n- false",
                                                           "- false\n- false")
    runs = RUNS.replace("accuracy", "cost").replace("i3,1,A,0.5,5.0,ok",
                                                    "i3,1,A,40,100,timeout")
    sc = read_aslib(_write(tmp_path / "q", description=desc, algorithm_runs=runs))
    assert sc.measure == "cost" and not sc.maximize
    assert sc.performance[2, 0] == 40.0
    assert sc.shift == pytest.approx(40 + 1e-3)
    np.testing.assert_allclose(sc.to_performance(sc.knowledge.success), sc.performance)
    ev = evaluate_aslib(sc, ["single-best", "oracle"], n_boot=20)
    # the whole single best minimises the mean cost: A (0.9+0.6+40+0.8)/4, B 3.0/4
    assert ev.sbs_whole_algorithm == "B" and ev.sbs_whole == pytest.approx(0.75)


def test_a_quality_run_not_ok_without_a_value_is_still_refused(tmp_path):
    runs = RUNS.replace("i2,1,B,0.7,4.0,ok", "i2,1,B,?,100,timeout")
    root = _write(tmp_path / "q", algorithm_runs=runs)
    with pytest.raises(ValueError, match="line 12: run status 'timeout' and no accuracy"):
        read_aslib(root)
    result = _run("recommend", "--evaluate", "--aslib", root)
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1


# --------------------------------------------------- several performance measures
THREE = """\
scenario_id: THREE
performance_measures: [cost, runtime, accuracy]
maximize: [false, false, true]
performance_type: [solution_quality, runtime, solution_quality]
algorithm_cutoff_time: 10
algorithms_deterministic: A, B
default_steps: [basic]
feature_steps:
  basic:
    provides: [f1]
  probe:
    provides: [f2]
"""

THREE_RUNS = """\
@RELATION runs
@ATTRIBUTE instance_id STRING
@ATTRIBUTE repetition NUMERIC
@ATTRIBUTE algorithm STRING
@ATTRIBUTE cost NUMERIC
@ATTRIBUTE runtime NUMERIC
@ATTRIBUTE accuracy NUMERIC
@ATTRIBUTE runstatus {ok, timeout, memout, not_applicable, crash, other}
@DATA
i1,1,A,3,1.0,0.9,ok
i1,1,B,5,5.0,0.8,ok
i2,1,A,7,10,0.6,timeout
i2,1,B,2,2.0,0.7,ok
i3,1,A,4,1.0,?,ok
i3,1,B,6,3.0,0.9,ok
i4,1,A,1,2.0,0.8,ok
i4,1,B,9,0.5,0.6,crash
"""


def test_the_first_of_several_measures_is_evaluated_and_each_other_can_be_chosen(tmp_path):
    """Three measures: by default the first (cost, a quality minimised; the timed-out and
    crashed runs score the cost they record); runtime gives the runs' times (a timeout at
    the cutoff 10 s). Asking for runtime scores PAR10 (timeouts and the crash 100). An
    accuracy missing on an ok run is refused only when accuracy is the measure."""
    root = _write(tmp_path / "three", description=THREE, algorithm_runs=THREE_RUNS)
    sc = read_aslib(root)
    assert (sc.measure, sc.maximize, sc.performance_type) == ("cost", False,
                                                              "solution_quality")
    np.testing.assert_array_equal(sc.performance, [[3, 5], [7, 2], [4, 6], [1, 9]])
    np.testing.assert_array_equal(sc.knowledge.times, [[1, 5], [10, 2], [1, 3], [2, 0.5]])
    rt = read_aslib(root, measure="runtime")
    np.testing.assert_array_equal(rt.performance, [[1, 5], [100, 2], [1, 3], [2, 100]])
    with pytest.raises(ValueError, match="line 14: run status ok but accuracy is missing"):
        read_aslib(root, measure="accuracy")
    ev = evaluate_aslib(sc, ["single-best", "oracle"], n_boot=20)
    # whole single best by mean cost: A (3+7+4+1)/4 = 3.75, B 22/4 = 5.5; VBS (3+2+4+1)/4
    assert (ev.sbs_whole_algorithm, ev.sbs_whole, ev.vbs) == ("A", 3.75, 2.5)
    assert ev.to_json()["scenario"]["measure"] == "cost"


# --------------------------------------------------- the older description format
OLD_QUALITY = """\
scenario_id: TOY
performance_measures: accuracy,runtime
maximize: true,false
performance_type: solution_quality,runtime
algorithm_cutoff_time: 100
algorithm_cutoff_memory: ?
features_cutoff_time: ?
features_cutoff_memory: ?
features_deterministic: f1,f2
features_stochastic:\x20
algorithms_deterministic: A,B
algorithms_stochastic:\x20
number_of_feature_steps: 2
feature_step basic: f1
feature_step probe: f2
default_steps: basic
"""

OLD_RUNTIME = """\
scenario_id: RT
performance_measures: runtime
maximize: false
performance_type: runtime
algorithm_cutoff_time: 10
algorithm_cutoff_memory: ?
algorithms_deterministic: A, B
algorithms_stochastic:
number_of_feature_steps: 2
feature_step basic: f1
feature_step probe: f2
default_steps: basic
"""


@pytest.mark.parametrize(("old", "new", "runs"), [(OLD_QUALITY, QUALITY, RUNS),
                                                  (OLD_RUNTIME, RUNTIME, RUNTIME_RUNS)])
def test_the_older_description_format_reads_as_the_yaml_one(tmp_path, old, new, runs):
    """The scenarios were first published with one ``key: value`` a line (``?`` where
    unknown, which YAML cannot read after a colon) and each feature step as
    ``feature_step NAME: ...``: the same scenario in both formats reads into the same
    knowledge base."""
    a = read_aslib(_write(tmp_path / "old", description=old, algorithm_runs=runs))
    b = read_aslib(_write(tmp_path / "new", description=new, algorithm_runs=runs))
    for attribute in ("name", "measure", "maximize", "performance_type", "cutoff", "shift"):
        assert getattr(a, attribute) == getattr(b, attribute), attribute
    np.testing.assert_array_equal(a.performance, b.performance)
    np.testing.assert_array_equal(a.solved, b.solved)
    ka, kb = a.knowledge, b.knowledge
    assert ka.algorithms == kb.algorithms and ka.datasets == kb.datasets
    np.testing.assert_array_equal(ka.times, kb.times)
    assert list(ka.metafeatures.columns) == ["f1"]
    assert ka.metafeatures.equals(kb.metafeatures)
    np.testing.assert_array_equal(ka.metafeature_time, kb.metafeature_time)


@pytest.mark.parametrize(("text", "message"), [
    (OLD_RUNTIME + "default steps basic\n",
     "description.txt, line 13: expected 'key: value'"),
    (OLD_RUNTIME + "feature_step probe: f1\n",
     "description.txt, line 13: feature_step probe is given twice"),
    (OLD_RUNTIME + "maximize: true\n", "description.txt, line 13: maximize is given twice"),
    (OLD_RUNTIME.replace("default_steps: basic", "default_steps: basic, nope"),
     "feature step 'nope' is not among feature_steps"),
])
def test_a_bad_old_description_is_one_line_naming_the_line(tmp_path, text, message):
    root = _write(tmp_path / "bad", description=text, algorithm_runs=RUNTIME_RUNS)
    with pytest.raises(ValueError) as info:
        read_aslib(root)
    assert message in str(info.value)
    result = _run("recommend", "--evaluate", "--aslib", root)
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert message in result.output


# --------------------------------------------------- found by an audit of the format
def test_algorithms_may_have_different_numbers_of_repetitions(tmp_path):
    """The format's own example runs a stochastic algorithm twice and the deterministic
    ones once. B ran twice on i2 (4 s and 8 s) and on i4 (100 s, a timeout, then 2 s):
    its PAR10 there is the mean of its own runs, (4 + 8) / 2 = 6 and (1000 + 2) / 2 =
    501 (cutoff 100 s, PAR10 1000), solved only if every run solved; A, run once, as
    before."""
    runs = RUNS + "i2,2,B,0.5,8.0,ok\ni4,2,B,0.4,2.0,ok\n"
    runs = runs.replace("i4,1,B,0.6,8.0,ok", "i4,1,B,0.6,100,timeout")
    desc = QUALITY.replace("- accuracy\n- runtime", "- runtime\n- accuracy").replace(
        "- true\n- false", "- false\n- true").replace(
        "- solution_quality\n- runtime", "- runtime\n- solution_quality")
    sc = read_aslib(_write(tmp_path / "reps", description=desc, algorithm_runs=runs))
    np.testing.assert_array_equal(sc.performance, [[1, 2], [3, 6], [5, 6], [7, 501]])
    np.testing.assert_array_equal(sc.solved, [[1, 1], [1, 1], [1, 1], [1, 0]])
    assert any("runs averaged over their repetitions (1 to 2 per algorithm and instance)"
               in n for n in sc.notes), sc.notes
    # an algorithm with no run on an instance is still refused, by name
    with pytest.raises(ValueError, match="no run of 'B' on instance 'i3'"):
        read_aslib(_write(tmp_path / "gap", description=desc, algorithm_runs="".join(
            line for line in runs.splitlines(keepends=True)
            if not line.startswith("i3,1,B"))))


def test_without_cv_arff_ten_folds_are_drawn_the_same_on_every_reading(tmp_path):
    """cv.arff is optional in the format: the folds are scikit-learn's shuffled KFold with
    seed 0 (fewer folds than 10 when there are fewer instances), said in a note."""
    from sklearn.model_selection import KFold

    n = 23
    runs = "".join(line for line in RUNS.splitlines(keepends=True)
                   if line[:2] not in ("i1", "i2", "i3", "i4"))
    runs += "".join(f"j{i},1,A,{0.5 + i / 100},1.0,ok\nj{i},1,B,0.6,2.0,ok\n"
                    for i in range(n))
    features = "".join(line for line in _T.FEATURES.splitlines(keepends=True)
                       if line[:1] != "i") + "".join(f"j{i},1,{i},{2 * i}\n" for i in range(n))
    status = "".join(line for line in _T.STATUS.splitlines(keepends=True)
                     if line[:1] != "i") + "".join(f"j{i},1,ok,ok\n" for i in range(n))
    root = _write(tmp_path / "nocv", algorithm_runs=runs, feature_values=features,
                  feature_runstatus=status, feature_costs=None, cv=None)
    sc = read_aslib(root)
    expected = np.zeros(n, dtype=int)
    for k, (_, test) in enumerate(KFold(10, shuffle=True, random_state=0).split(
            np.zeros(n)), start=1):
        expected[test] = k
    np.testing.assert_array_equal(sc.cv[1].to_numpy(), expected)
    assert list(sc.cv.columns) == [1] and list(sc.cv.index) == [f"j{i}" for i in range(n)]
    assert any("no cv.arff: the instances split at random into 10 folds" in note
               for note in sc.notes), sc.notes
    np.testing.assert_array_equal(read_aslib(root).cv.to_numpy(), sc.cv.to_numpy())
    ev = evaluate_aslib(sc, ["single-best", "oracle"], n_boot=10)
    assert len(ev.per_instance) == 2 * n
    # four instances: four folds of one
    small = read_aslib(_write(tmp_path / "small", cv=None))
    assert sorted(small.cv[1]) == [1, 2, 3, 4]


def test_a_categorical_feature_is_read_as_one_indicator_column_per_value(tmp_path):
    """f2 nominal {low, high} ('?' on i3): columns f2=high and f2=low in f2's place, 1
    where the instance has that value, 0 where the other, missing where f2 is; a step
    that failed makes its indicator columns missing as it would f2."""
    features = _T.FEATURES.replace("@ATTRIBUTE f2 NUMERIC", "@ATTRIBUTE f2 {low, high}")
    features = features.replace("i1,1,1.0,10", "i1,1,1.0,low").replace(
        "i2,1,2.0,20", "i2,1,2.0,high").replace("i3,1,?,30", "i3,1,?,?").replace(
        "i4,1,4.0,40", "i4,1,4.0,low")
    desc = QUALITY.replace("- basic\nfeature_steps", "- basic\n- probe\nfeature_steps")
    sc = read_aslib(_write(tmp_path / "cat", description=desc, feature_values=features))
    mf = sc.knowledge.metafeatures
    assert list(mf.columns) == ["f1", "f2=high", "f2=low"]
    np.testing.assert_array_equal(mf["f2=high"].to_numpy(), [0, 1, np.nan, 0])
    np.testing.assert_array_equal(mf["f2=low"].to_numpy(), [1, 0, np.nan, 1])
    assert any("1 categorical feature(s) read as 2 indicator column(s)" in n
               for n in sc.notes), sc.notes
    status = _T.STATUS.replace("i2,1,ok,ok", "i2,1,ok,crash")
    failed = read_aslib(_write(tmp_path / "crash", description=desc,
                               feature_values=features, feature_runstatus=status))
    row = failed.knowledge.metafeatures.loc["i2"]
    assert row["f1"] == 2.0 and np.isnan(row["f2=high"]) and np.isnan(row["f2=low"])
    ev = evaluate_aslib(sc, ["knn-metafeatures", "single-best"], n_boot=10)
    assert set(ev.strategies) == {"knn-metafeatures", "single-best"}


def test_names_yaml_would_read_as_numbers_or_booleans_are_read_as_written(tmp_path):
    """Unquoted, YAML reads the algorithm 1.10 as the number 1.1 and yes as True; the
    runs name them 1.10 and yes."""
    desc = QUALITY.replace("  A:\n", "  1.10:\n").replace("  B:\n", "  yes:\n")
    runs = RUNS.replace(",A,", ",1.10,").replace(",B,", ",yes,")
    sc = read_aslib(_write(tmp_path / "names", description=desc, algorithm_runs=runs))
    assert list(sc.knowledge.algorithms) == ["1.10", "yes"]
    desc = desc.replace("metainfo_algorithms:", "algorithms_deterministic:\n- 1.10\n- "
                        "'yes'\nalgorithms_stochastic: []\nold_metainfo:")
    sc = read_aslib(_write(tmp_path / "lists", description=desc, algorithm_runs=runs))
    assert list(sc.knowledge.algorithms) == ["1.10", "yes"]


def test_an_older_format_feature_needs_every_step_that_lists_it(tmp_path):
    """In the older format a step lists the features that depend on it: with steps basic
    (f1, f2) and probe (f2) and only basic used, f2 also depends on probe, which is not
    computed: it is left out, and basic's cost alone is paid."""
    old = OLD_QUALITY.replace("feature_step basic: f1", "feature_step basic: f1, f2")
    sc = read_aslib(_write(tmp_path / "old", description=old))
    assert list(sc.knowledge.metafeatures.columns) == ["f1"]
    np.testing.assert_array_equal(sc.knowledge.metafeature_time, [0.5, 0.25, 0.0, 1.0])
    assert any("1 feature(s) left out: they depend on a feature step not used" in n
               for n in sc.notes), sc.notes
    both = read_aslib(_write(tmp_path / "both", description=old.replace(
        "default_steps: basic", "default_steps: basic, probe")))
    assert list(both.knowledge.metafeatures.columns) == ["f1", "f2"]
    np.testing.assert_array_equal(both.knowledge.metafeature_time, [7.5, 7.25, 7.0, 8.0])
