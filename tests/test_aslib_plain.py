"""The plain scikit-learn selectors of benchmarks/plain_selectors.py, which bench_aslib.py
prints beside metaeval's strategies: their scorer gives the evaluation's own figures on
the evaluation's own picks (feature costs included), and both selectors find a rule a
single feature decides."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from metaeval.recommend import evaluate_aslib, read_aslib

_ROOT = Path(__file__).resolve().parents[1]


def _module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


plain = _module(_ROOT / "benchmarks" / "plain_selectors.py", "_plain_selectors")
_T = _module(Path(__file__).with_name("test_aslib.py"), "_aslib_toy")
_E = _module(Path(__file__).with_name("test_aslib_edges.py"), "_aslib_edges_toy")


def test_the_scorer_gives_the_evaluation_s_figures_on_its_picks(tmp_path):
    """The by-hand scenario of test_aslib_edges (feature costs that push two runs past the
    cutoff): scored again from the picks alone, k-NN's and the single best's figures are
    the evaluation's to the last digit, intervals included."""
    sc = read_aslib(_T._write(tmp_path / "rt", description=_T.RUNTIME,
                              algorithm_runs=_T.RUNTIME_RUNS, feature_costs=_E.COSTS))
    ev = evaluate_aslib(sc, ["knn-metafeatures", "single-best"], n_boot=50)
    s = ev.summary.set_index("strategy")
    mine = plain.score(ev, plain.evaluation_picks(ev, "knn-metafeatures"), n_boot=50)
    assert mine["performance"] == s.loc["knn-metafeatures", "performance"]
    for key in ("gap_closed", "gap_closed_whole_sbs"):
        for suffix in ("", "_low", "_high"):
            assert mine[key + suffix] == pytest.approx(
                s.loc["knn-metafeatures", key + suffix], rel=1e-12), key + suffix
    # the single best reads no features: scored without costs it is the evaluation's
    blind = plain.first_performance(sc, plain.evaluation_picks(ev, "single-best"), False)
    assert blind.mean() == s.loc["single-best", "performance"]
    # with them, the picks pay the default step's costs (9.5, 8, 0, 0.5 s; cutoff 10 s)
    paid = plain.first_performance(sc, np.array([[1, 1, 1, 1]]), True)
    np.testing.assert_array_equal(paid, [[100, 100, 3, 100]])


def _decided(root, n=40):
    """n instances, one feature x in [0, 1): A takes 1 s when x < 0.5 and 9 s otherwise,
    B the reverse (cutoff 10 s); two folds alternating."""
    x = (np.arange(n) * 0.618034) % 1.0
    root.mkdir()
    (root / "description.txt").write_text(
        "scenario_id: DECIDED\nperformance_measures: [runtime]\nmaximize: [false]\n"
        "performance_type: [runtime]\nalgorithm_cutoff_time: 10\n"
        "algorithms_deterministic: A, B\ndefault_steps: [basic]\n"
        "feature_steps:\n  basic:\n    provides: [x]\n")
    head = "@RELATION r\n@ATTRIBUTE instance_id STRING\n@ATTRIBUTE repetition NUMERIC\n"
    (root / "algorithm_runs.arff").write_text(
        head + "@ATTRIBUTE algorithm STRING\n@ATTRIBUTE runtime NUMERIC\n"
        "@ATTRIBUTE runstatus {ok, timeout}\n@DATA\n" + "".join(
            f"i{i},1,A,{1 if v < 0.5 else 9},ok\ni{i},1,B,{9 if v < 0.5 else 1},ok\n"
            for i, v in enumerate(x)))
    (root / "feature_values.arff").write_text(
        head + "@ATTRIBUTE x NUMERIC\n@DATA\n" + "".join(
            f"i{i},1,{float(v)!r}\n" for i, v in enumerate(x)))
    (root / "feature_runstatus.arff").write_text(
        head + "@ATTRIBUTE basic {ok, timeout}\n@DATA\n" + "".join(
            f"i{i},1,ok\n" for i in range(n)))
    (root / "cv.arff").write_text(
        head + "@ATTRIBUTE fold NUMERIC\n@DATA\n" + "".join(
            f"i{i},1,{1 + i % 2}\n" for i in range(n)))
    return root


@pytest.mark.parametrize("name", plain.PLAIN)
def test_each_plain_selector_learns_a_rule_one_feature_decides(tmp_path, name):
    sc = read_aslib(_decided(tmp_path / "decided"))
    pick, chosen = plain.picks(sc, name)
    best = np.argmin(sc.performance, axis=1)
    # at most the instances nearest the boundary go wrong
    assert (pick[0] == best).mean() >= 0.9
    if name == "plain-knn":
        assert set(chosen) == {(1, 1), (1, 2)} and all(k >= 1 for k in chosen.values())
    again, _ = plain.picks(sc, name, n_jobs=2)
    np.testing.assert_array_equal(again, pick)  # the same picks on any number of jobs


def test_an_unknown_plain_selector_is_refused(tmp_path):
    sc = read_aslib(_decided(tmp_path / "decided", n=6))
    with pytest.raises(ValueError, match="name must be one of plain-rf, plain-knn"):
        plain.picks(sc, "plain-svm")


def test_bench_aslib_writes_the_plain_selectors_beside_the_strategies(tmp_path, capsys):
    bench = _module(_ROOT / "benchmarks" / "bench_aslib.py", "_bench_aslib")
    root = _decided(tmp_path / "decided", n=12)
    out = tmp_path / "table.md"
    bench.main([str(root), "--strategies", "knn-metafeatures,single-best", "--jobs", "1",
                "--n-boot", "20", "--markdown", str(out)])
    printed = capsys.readouterr().out
    assert "scorer checked on knn-metafeatures's picks" in printed
    table = out.read_text()
    assert "| plain RF (whole SBS) | plain k-NN (whole SBS) |" in table
    assert "| plain-rf (scikit-learn) |" in table and "| plain-knn (scikit-learn) |" in table
