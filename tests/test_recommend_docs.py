"""docs/recommend.py: its computed claims agree with the evaluation they summarise."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from metaeval.recommend import KnowledgeBase

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "docs" / "recommend.py"


def _load():
    spec = importlib.util.spec_from_file_location("docs_recommend", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


rd = _load()


def _kb(seed=0, n_datasets=9, n_algorithms=5):
    rng = np.random.default_rng(seed)
    success = np.clip(rng.uniform(0.6, 0.9, n_algorithms)
                      + rng.normal(0, 0.05, (n_datasets, n_algorithms)), 0.01, 1)
    times = rng.uniform(0.05, 5, n_algorithms) * rng.uniform(0.5, 20, (n_datasets, 1))
    names = [f"d{i}" for i in range(n_datasets)]
    return KnowledgeBase(
        names, [f"a{j}" for j in range(n_algorithms)], success, times,
        metafeatures=pd.DataFrame(rng.normal(size=(n_datasets, 2)), index=names),
        metafeature_time=np.full(n_datasets, 0.2),
        landmarks=pd.DataFrame(success[:, :2], index=names), landmark_time=np.full(9, 0.4))


def test_helpers():
    assert rd.p_text(0) == "0" and rd.p_text(1 / 64) == "1/64"
    table = rd.markdown_table(pd.DataFrame({"a": [1.0]}, index=pd.Index(["x"], name="k")))
    assert table.splitlines() == ["| k | a |", "|---|---|", "| x | 1.0000 |"]
    row = {"g": 0.25, "g_low": -0.1, "g_high": 0.5}
    assert rd.interval(row, "g", pct=True) == "+25.0% [-10.0%, +50.0%]"


def _one_condition(monkeypatch):
    monkeypatch.setattr(rd, "CONDITIONS", (("accuracy", {"measure": "accuracy"}),))


def _evaluations(monkeypatch, seed=0):
    _one_condition(monkeypatch)
    kb = _kb(seed=seed)
    return rd.evaluate_all(lambda condition: kb, 50, "test")


@pytest.fixture(scope="module")
def evaluations():
    """``_evaluations`` of seed 0, computed once for the tests that only read them."""
    with pytest.MonkeyPatch.context() as mp:
        return _evaluations(mp)


def _document_comparisons(evals):
    comparisons = rd.comparisons_of(evals, "knowledge")
    rd.holm_by_family(comparisons, rd.ALPHA)
    comparisons["p_holm_document"] = comparisons["p_holm"]
    comparisons["supported_document"] = comparisons["supported"]
    return comparisons


def test_holm_runs_within_the_primary_and_the_exploratory_family(evaluations):
    evals = evaluations
    comparisons = _document_comparisons(evals)
    # every evaluation's comparisons are in the document's table, once
    assert len(comparisons) == sum(len(ev.comparisons) for ev in evals.values())
    # the primary family: at P = 0 auto and each learner against the single best on
    # loss@1; where P > 0 auto against the time-aware single best on loss@1 and MIL
    primary = comparisons[comparisons["family"] == "primary"]
    expected = {(p, a, b, m) for p in rd.TIME_WEIGHTS
                for a in (("auto", "pairwise", "regression", "collaborative") if p == 0
                          else ("auto",))
                for b in (("single-best",) if p == 0 else ("single-best-a3r",))
                for m in (("loss_at_1",) if p == 0 else ("loss_at_1", "mil"))}
    assert set(zip(primary["P"], primary["a"], primary["b"], primary["measure"],
                   strict=True)) == {(rd.p_text(p), a, b, m) for p, a, b, m in expected}
    # by hand: Holm over a family of m p-values multiplies its smallest by m
    for _, part in comparisons.groupby("family"):
        m = len(part)
        assert part["p_holm_document"].min() == pytest.approx(min(1.0, m * part["p"].min()))


def test_target_rows_compare_auto_and_name_the_best_other_first_pick(evaluations):
    evals = evaluations
    comparisons = _document_comparisons(evals)
    rows = rd.target_rows(evals, comparisons)
    assert len(rows) == len(evals)
    for row, ((_tag, p), ev) in zip(rows.to_dict(orient="records"), evals.items(),
                                   strict=True):
        s = ev.summary.set_index("strategy")
        others = s.drop(index=["oracle", "single-best", "random", "auto"])
        assert row["best other first pick"].split()[0] == others["loss_at_1"].idxmin()
        assert row["P"] == rd.p_text(p)
        assert row["auto loss@1"] == f"{s.loc['auto', 'loss_at_1']:.4f}"
        gap = s.loc["auto", "closed_gap"]
        assert row[f"auto closes ≥ {rd.GAP_TARGET:.0%}"] == ("yes" if gap >= rd.GAP_TARGET
                                                              else "no")


def test_source_section_has_every_table_and_figure(tmp_path, monkeypatch, evaluations):
    _one_condition(monkeypatch)
    evals = evaluations
    comparisons = _document_comparisons(evals)
    text = rd.source_section("KB", "intro\n", evals, comparisons, "knowledge", "kb",
                             tmp_path, None)
    assert text.count("### accuracy, P = ") == len(rd.TIME_WEIGHTS)
    claims = [line for line in text.splitlines() if " < " in line and "(loss_at_1)" in line
              or "(mil)" in line]
    assert len(claims) == len(comparisons)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "recommend_kb_accuracy_tests.png", "recommend_kb_accuracy_time.png"]
    assert "/work/" not in text  # no machine paths


def test_noise_paragraph_by_hand():
    # three datasets of 100 instances; A is best everywhere (0.9): the single best of the
    # other families is A, loss 0; SE of 0.9 on 100 instances = 0.03; B (0.88) is within
    # one SE of the best on every dataset, C (0.5) on none: 2 configurations near the best
    kb = KnowledgeBase(["d1", "d2", "d3"], ["A", "B", "C"], [[0.9, 0.88, 0.5]] * 3,
                       [[1.0, 1.0, 1.0]] * 3, n_instances=[100, 100, 100])
    text = rd.noise_paragraph(kb)
    assert "mean loss@1 is 0.0000" in text
    assert "standard error of the best configuration's accuracy of 0.0300" in text
    assert "within one standard error of the best on 100%" in text
    assert "a median of 2 configurations" in text


def test_scoring_section_gives_both_ways_for_repetitions(monkeypatch):
    """With two repetitions: every primary comparison of the document scored on the
    unseen repetition (the document's numbers) beside the same repetition (Holm over its
    own family), loss@1 differences equal both ways; and every strategy's P = 0 losses
    both ways. With one repetition, a paragraph says the tables use the same one."""
    import dataclasses

    _one_condition(monkeypatch)
    base = _kb()
    rng = np.random.default_rng(5)
    reps = np.clip(base.success[None] + rng.normal(0, 0.02, (2, *base.shape)), 0.01, 1)
    kb = dataclasses.replace(base, success=reps.mean(axis=0), repetitions=reps)
    evals = rd.evaluate_all(lambda condition: kb, 20, "test")
    assert evals["accuracy", 0.0].scored_on == "unseen repetition"
    comparisons = _document_comparisons(evals)
    text = rd.scoring_section(lambda condition: kb, evals, comparisons, 20)
    primary = comparisons[comparisons["family"] == "primary"]
    rows = [line.split(" | ") for line in text.splitlines() if line.startswith("| accuracy | ")]
    assert len(rows) == len(primary) > 0
    for row, r in zip(rows, primary.itertuples(index=False), strict=True):
        assert row[1] == r.P and row[2].startswith(f"{r.a} vs single-best")
        assert row[3].startswith(f"{r.difference:+.4f} [{r.low:+.4f}, {r.high:+.4f}], "
                                 f"Holm p {r.p_holm_document:.2g}")
        if r.measure == "loss_at_1":  # the reference cancels in a difference
            assert row[4].split(", Holm")[0] == row[3].split(", Holm")[0]
    same = rd.evaluate_recommenders(kb, scored_on="same", n_boot=20,
                                    alpha=rd.ALPHA).summary.set_index("strategy")
    unseen = evals["accuracy", 0.0].summary.set_index("strategy")
    table = [line.split(" | ") for line in text.splitlines()
             if line.startswith("| accuracy, P = 0 | ")]
    assert [t[1] for t in table] == list(unseen.index)
    sb = table[[t[1] for t in table].index("single-best")]
    assert sb[2] == rd.interval(unseen.loc["single-best"], "loss_at_1")
    assert sb[3] == rd.interval(same.loc["single-best"], "loss_at_1")
    # the oracle's loss@1 is 0 both ways
    oracle = table[[t[1] for t in table].index("oracle")]
    assert oracle[2].startswith("0.0000") and oracle[3].startswith("0.0000")
    cheap = {"strategies": ["single-best", "oracle"], "n_boot": 20, "compare": False}
    one = rd.scoring_section(lambda condition: base, {
        ("accuracy", 0.0): rd.evaluate_recommenders(base, **cheap)}, None, 20)
    assert "holds one repetition" in one and "|" not in one


def test_advice_says_when_the_evaluation_scored_an_unseen_repetition():
    from metaeval.recommend import Condition
    from metaeval.recommend._advice import advice

    entry = {"condition": Condition().to_dict(), "n_datasets": 72, "n_families": 50,
             "label": "accuracy, P = 0", "clock": "cpu",
             "strategies": {"single-best": {"loss_at_1": [0.01, 0.0, 0.02],
                                            "loss_at_3": [0.0, 0.0, 0.01]}}}
    plain = advice("single-best", Condition(), {"conditions": [entry]})
    unseen = advice("single-best", Condition(),
                    {"conditions": [{**entry, "scored_on": "unseen repetition"}]})
    assert "repetition" not in plain
    assert "each scored on a repetition of the cross-validation no choice was made on" \
        in unseen
