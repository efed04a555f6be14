"""Knowledge bases with several repetitions of the cross-validation, scored on the unseen one.

Strategies learn from the training datasets' mean over repetitions; a held-out dataset
is scored on repetition r while the oracle (the loss's reference) chooses on the other
one, both ways, averaged. A worked example checked by hand, the old figures reproduced
by ``scored_on="same repetition"``, and a real study of two repetitions through build,
save, load and evaluation.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.recommend import (
    Condition,
    KnowledgeBase,
    build_knowledge,
    evaluate_recommenders,
    load_knowledge,
)
from metaeval.recommend.knowledge._archive_file import QUANTUM
from metaeval.recommend.knowledge._knowledge import complete_repeats
from metaeval.store import Store

# Worked example: 4 datasets (each its own family), algorithms A, B, C (1 s each), two
# repetitions r0 and r1 of the cross-validation.
REPS = np.array([
    # d1            d2                d3                d4
    [[.80, .70, .60], [.90, .80, .70], [.60, .65, .50], [.85, .80, .90]],  # r0
    [[.70, .75, .60], [.90, .80, .70], [.60, .55, .50], [.85, .80, .90]],  # r1
])
NAMES = ("d1", "d2", "d3", "d4")


def _kb(repetitions=True):
    return KnowledgeBase(NAMES, ("A", "B", "C"), REPS.mean(axis=0), np.ones((4, 3)),
                         repetitions=REPS if repetitions else None)


def test_unseen_repetition_worked_example():
    """loss@1 of the single best, by hand.

    The mean success (what strategies learn from): d1 [.75, .725, .60], d2 [.9, .8, .7],
    d3 [.60, .60, .50], d4 [.85, .80, .90]. The single best of the training datasets
    is A in every fold (held out d1: A (.9+.6+.85)/3 = .783 > B .733 > C .70; d2: A .733;
    d3: A .833; d4: A .75).

    Unseen repetition, held-out d1: scored on r0 ([.80, .70, .60]) the oracle chooses on
    r1 ([.70, .75, .60]): B, whose r0 success .70 is the reference; A gives .80, loss
    .70 - .80 = -.10. Scored on r1, the oracle chooses on r0: A (.70 on r1), A gives
    .70, loss 0. Mean -.05. d2: both repetitions alike, loss .9 - .9 = 0. d3: on r0 the
    oracle picks A (r1's best), reference .60 = A's: 0; on r1 it picks B (r0's best),
    reference .55, A gives .60: -.05; mean -.025. d4: the oracle picks C, .90 - .85 =
    .05. Mean over datasets: (-.05 + 0 - .025 + .05) / 4 = -.00625.

    After each test the algorithm kept is the best tested so far on the repetition
    not scored (a user's own cross-validation picks it), its success read on the scored
    one. The oracle's losses are then all 0: it tests first the algorithm best on the
    other repetition, which stays kept. Having tested all three, every strategy keeps
    the oracle's pick: loss@3 is 0. The single best on d1 tests A, B, C: after A, -.05
    (above); after A and B, on r0 it keeps B (.75 > .70 on r1), .70 - .70 = 0, and on
    r1 it keeps A (.80 > .70 on r0), .70 - .70 = 0: 0 (choosing on the scored
    repetition instead would keep A on r0 and B on r1, (-.10 - .05) / 2 = -.075).

    The random order's loss@1 is the reference minus the truth's mean: d1 (.70 - .70 +
    .70 - .68333) / 2 = .008333, d2 .9 - .8 = .1, d3 (.60 - .58333 + .55 - .55) / 2 =
    .008333, d4 .90 - .85 = .05; mean .041667.
    """
    ev = evaluate_recommenders(_kb(), strategies=["single-best", "oracle", "random"],
                               n_boot=10, n_random=50, compare=False)
    assert ev.scored_on == "unseen repetition" and ev.n_repetitions == 2
    table = ev.summary.set_index("strategy")
    assert table.loc["single-best", "loss_at_1"] == pytest.approx(-0.00625, abs=1e-12)
    assert table.loc["oracle", "loss_at_1"] == pytest.approx(0.0, abs=1e-12)
    for name in ("single-best", "oracle", "random"):
        assert table.loc[name, "loss_at_3"] == pytest.approx(0.0, abs=1e-12)
    oracle = ev.per_dataset[ev.per_dataset["strategy"] == "oracle"]
    for column in ("loss_at_1", "loss_at_3", "loss_at_5", "loss_at_time_1"):
        np.testing.assert_allclose(oracle[column], 0.0, atol=1e-12)
    # before its first test (1/3 of the pool's time) the loss is that of the worst
    for column in ("mil", "loss_at_time_0.01", "loss_at_time_0.1"):
        assert (oracle[column] > 0).all()
    assert table.loc["random", "loss_at_1"] == pytest.approx(0.041667, abs=1e-6)
    rows = ev.per_dataset.set_index(["dataset", "strategy"])
    assert len(rows) == 4 * 3  # one row per (dataset, strategy)
    sb = rows.xs("single-best", level="strategy")
    np.testing.assert_allclose(sb["loss_at_1"], [-0.05, 0.0, -0.025, 0.05], atol=1e-12)
    # the oracle's success on the scored repetition, averaged: d1 (.70 + .70) / 2
    np.testing.assert_allclose(sb["oracle_success"], [0.70, 0.90, 0.575, 0.90], atol=1e-12)
    np.testing.assert_allclose(sb["single_best_success"], [0.75, 0.90, 0.60, 0.85],
                               atol=1e-12)
    # the curves: a negative loss is kept as it is; d1's oracle tests B then A on r0 and
    # A then B on r1: no step names one algorithm but the last (C both ways)
    c = ev.curves[(ev.curves["dataset"] == "d1") & (ev.curves["strategy"] == "oracle")]
    np.testing.assert_allclose(c["loss"], [(0.10 + 0.10) / 2, 0.0, 0.0, 0.0], atol=1e-12)
    assert c["algorithm"].isna().tolist() == [True, True, True, False]
    assert c["algorithm"].iloc[3] == "C"
    sb_curve = ev.curves[(ev.curves["dataset"] == "d1")
                         & (ev.curves["strategy"] == "single-best")]
    np.testing.assert_allclose(sb_curve["loss"], [0.10, -0.05, 0.0, 0.0], atol=1e-12)
    doc = ev.to_json()
    assert doc["scored_on"] == "unseen repetition" and doc["n_repetitions"] == 2
    assert doc["n_families"] == 4 and doc["n_datasets_5000_rows"] == 0
    json.dumps(doc)


def test_same_repetition_is_the_single_repetition_evaluation():
    """On the same repetition (the mean), loss@1 of the single best is the old one:
    d4 .90 - .85 = .05, 0 elsewhere (d3's best .60 is A's, tied with B): .0125; and the
    whole evaluation is that of the knowledge base without its repetitions."""
    kwargs = {"strategies": ["single-best", "oracle", "random", "average-ranking"],
              "n_boot": 20, "n_random": 50}
    same = evaluate_recommenders(_kb(), scored_on="same", **kwargs)
    one = evaluate_recommenders(_kb(repetitions=False), **kwargs)
    assert same.scored_on == one.scored_on == "same repetition"
    assert one.n_repetitions == 1 and same.n_repetitions == 2
    assert same.summary.set_index("strategy").loc["single-best", "loss_at_1"] == \
        pytest.approx(0.0125, abs=1e-12)
    pd.testing.assert_frame_equal(same.per_dataset, one.per_dataset)
    pd.testing.assert_frame_equal(same.summary, one.summary)
    pd.testing.assert_frame_equal(same.curves, one.curves)
    pd.testing.assert_frame_equal(same.comparisons, one.comparisons)
    assert (same.per_dataset["loss_at_1"] >= 0).all()


def test_scored_on_is_checked():
    with pytest.raises(ValueError, match="scored_on must be one of"):
        evaluate_recommenders(_kb(), strategies=["oracle"], scored_on="other")
    with pytest.raises(ValueError, match="needs a knowledge base of at least 2 repetitions"):
        evaluate_recommenders(_kb(repetitions=False), strategies=["oracle"],
                              scored_on="unseen")
    with pytest.raises(ValueError, match="repetitions must have shape"):
        KnowledgeBase(NAMES, ("A", "B", "C"), REPS.mean(axis=0), np.ones((4, 3)),
                      repetitions=REPS[:1])


# ----------------------------------------------------------------------------- a real study
@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """4 small built-in datasets x NB, DT, LR, 2-fold cross-validation repeated twice."""
    from metaeval.study import LocalExecutor, Study, run_study

    path = tmp_path_factory.mktemp("reps") / "study.duckdb"
    run_study(Study(datasets=["labor", "fertility", "appendicitis", "hepatitis"],
                    algorithms=["NB", "DT", "LR"], folds=2, repeats=2, store=str(path),
                    executor=LocalExecutor(jobs=1)))
    store = Store(path)
    archive = build_knowledge(store, require_descriptions=False)
    saved = archive.save(path.with_name("k.npz"))
    return store, archive, load_knowledge(saved), saved


def test_a_study_of_two_repetitions_is_kept_per_repetition(study):
    store, archive, loaded, _ = study
    assert loaded.n_repetitions == 2 and loaded.by_repetition["repeats"] == (0, 1)
    assert loaded.provenance["repetitions"] == [0, 1]
    assert loaded.provenance["dropped_repetitions"] == []
    conditions = ((Condition("accuracy"), 0.0), (Condition("auc"), 0.0),
                  (Condition("hardness:rate-driven", cost=0.3), QUANTUM))
    for r in (0, 1):
        for i, name in enumerate(loaded.datasets):
            y, S, algos = store.scores(name, repeat=r)
            cols = [loaded.algorithms.index(a) for a in algos]
            for condition, tol in conditions:
                # independently: Condition.success on that repetition's scores
                per = loaded.repetition_success(condition)
                np.testing.assert_allclose(per[r, i, cols], condition.success(y, S),
                                           rtol=0, atol=tol)
    for condition, _ in conditions:
        per = loaded.repetition_success(condition)
        np.testing.assert_allclose(loaded.success(condition), per.mean(axis=0),
                                   rtol=0, atol=1e-12)
    # new folds and seeds: the two repetitions differ somewhere
    acc = loaded.repetition_success(Condition("accuracy"))
    assert not np.array_equal(acc[0], acc[1])
    # times: the mean over the repetitions of the recorded task times
    tasks = store.tasks()
    t = tasks.groupby(["dataset", "algorithm"])["cpu"].mean()
    for i, name in enumerate(loaded.datasets):
        for j, a in enumerate(loaded.algorithms):
            assert loaded.times["cpu"][i, j] == pytest.approx(t[name, a], rel=1e-12)


def test_the_store_and_the_archive_give_the_same_repetitions(study):
    store, _, loaded, _ = study
    condition = Condition("accuracy")
    kb = KnowledgeBase.from_store(store, condition)
    akb = loaded.knowledge_base(condition)
    assert kb.n_repetitions == akb.n_repetitions == 2
    np.testing.assert_allclose(kb.repetitions, akb.repetitions, rtol=0, atol=1e-15)
    np.testing.assert_allclose(kb.success, akb.success, rtol=0, atol=1e-15)


def test_a_build_of_two_repetitions_is_deterministic_and_evaluates(study, tmp_path):
    store, archive, loaded, saved = study
    again = build_knowledge(store, require_descriptions=False).save(tmp_path / "k.npz")
    assert again.read_bytes() == saved.read_bytes()
    ev = evaluate_recommenders(loaded, strategies=["single-best", "oracle", "random"],
                               n_boot=20, n_random=50, compare=False)
    assert ev.scored_on == "unseen repetition"
    doc = ev.to_json()
    assert (doc["n_repetitions"], doc["n_families"], doc["n_datasets"]) == (2, 4, 4)
    assert doc["strategies"]["oracle"]["loss_at"]["1"] == pytest.approx(0.0, abs=1e-12)


def test_cli_evaluate_says_how_it_scored_and_show_counts_repetitions(study, tmp_path):
    *_, saved = study
    runner = CliRunner()
    out = tmp_path / "ev.json"
    result = runner.invoke(app, ["recommend", "--evaluate", "--knowledge", str(saved),
                                 "--strategy", "single-best", "--scored-on", "same",
                                 "--json", str(out)], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    assert "scored on the same repetition" in result.output
    assert json.loads(out.read_text())["scored_on"] == "same repetition"
    result = runner.invoke(app, ["recommend", "--evaluate", "--knowledge", str(saved),
                                 "--strategy", "single-best", "--scored-on", "twice"])
    assert result.exit_code == 2 and "--scored-on" in result.output
    result = runner.invoke(app, ["knowledge", "show", str(saved)])
    assert result.exit_code == 0, result.output
    assert "2 repetitions of the cross-validation (repeats 0, 1)" in result.output


def test_an_unfinished_repetition_is_left_out_whole():
    """Repeat 1 lacking a task of repeat 0 (or still pending) is dropped; a task done in
    one repetition and failed in another keeps both repetitions."""
    rows = [("d", a, r, "done") for a in "AB" for r in (0, 1)]
    rows += [("e", "A", 0, "done"), ("e", "B", 0, "failed"), ("e", "A", 1, "done"),
             ("e", "B", 1, "done"), ("e", "A", 2, "done"), ("e", "B", 2, "pending"),
             ("d", "A", 2, "done"), ("d", "B", 2, "done"), ("d", "A", 3, "done")]
    tasks = pd.DataFrame(rows, columns=["dataset", "algorithm", "repeat", "status"])
    kept, dropped = complete_repeats(tasks, ["d", "e"])
    assert kept == [0, 1]
    assert dropped == [{"repeat": 2, "why": "1 task(s) not finished, 1 task(s) of repeat 0 "
                                            "missing"},
                       {"repeat": 3, "why": "3 task(s) of repeat 0 missing"}]


def test_knowledge_build_evaluations_are_those_the_docs_write(study, tmp_path, monkeypatch):
    """``evaluate_for_advice`` (``knowledge build --evaluations``) gives the document
    ``docs/recommend.py`` writes for the advice: the same entries, verdicts included."""
    import importlib.util

    from metaeval.recommend import _advice

    _, _, loaded, _ = study
    spec = importlib.util.spec_from_file_location(
        "docs_recommend_reps", Path(__file__).resolve().parents[1] / "docs" / "recommend.py")
    rd = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rd)
    one = (("accuracy", {"measure": "accuracy"}),)
    for module in (_advice, rd):
        monkeypatch.setattr(module, "CONDITIONS", one)
        monkeypatch.setattr(module, "TIME_WEIGHTS", (0.0,))
    seen = []
    document = _advice.evaluate_for_advice(loaded, n_boot=20, progress=seen.append)
    assert seen == ["accuracy, P = 0"]
    evals = rd.evaluate_all(lambda condition: loaded.knowledge_base(condition), 20, "test")
    comparisons = rd.comparisons_of(evals, "knowledge")
    rd.holm_by_family(comparisons, rd.ALPHA)
    comparisons["p_holm_document"] = comparisons["p_holm"]
    comparisons["supported_document"] = comparisons["supported"]
    rd.write_evaluations(tmp_path / "e.json", evals, comparisons,
                         loaded.provenance["checksum"])
    written = json.loads((tmp_path / "e.json").read_text())
    assert document["conditions"] == written["conditions"]
    # both name the knowledge base they describe (the file's checksum)
    assert document["knowledge"] == written["knowledge"] == {
        "checksum": loaded.provenance["checksum"]}
    entry = document["conditions"][0]
    assert entry["scored_on"] == "unseen repetition" and entry["n_repetitions"] == 2
    assert "single-best" in entry["strategies"] and entry["n_datasets"] == 4
