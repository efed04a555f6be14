"""ASlib formats the shared scenarios lack, on small synthetic scenarios worked by hand:
solution-quality scenarios whose runs that timed out record the quality they reached,
several performance measures (the first evaluated unless another is asked for), and
the older ``key: value`` description beside the YAML one."""

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
