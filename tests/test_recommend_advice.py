"""The trust sentence: quoted only from an evaluation of the same knowledge base
(checksum), condition, P, clock and budget, else said plainly to be missing; evaluations
kept beside a knowledge base file by ``recommend --evaluate --knowledge`` are quoted by
``recommend --knowledge``."""

from __future__ import annotations

import dataclasses
import json

import pytest
from tests.test_recommend_archive import _store
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.datasets import load_dataset
from metaeval.recommend import Condition, build_knowledge, load_knowledge, recommend
from metaeval.recommend._advice import advice, evaluations_file, stored_evaluations

runner = CliRunner()
SUM = "sha256:" + "a" * 64
OTHER = "sha256:" + "b" * 64


def _doc(**entry):
    base = {"condition": Condition().to_dict(), "label": "accuracy, P = 0", "clock": "cpu",
            "n_datasets": 9, "n_families": 7, "protocol": 2,
            "strategies": {"auto": {"loss_at_1": [0.02, 0.01, 0.03],
                                    "loss_at_3": [0.01, 0.0, 0.02]},
                           "single-best": {"loss_at_1": [0.03, 0.02, 0.04],
                                           "loss_at_3": [0.02, 0.01, 0.03]}}}
    base.update(entry)
    return {"format": "metaeval-evaluations/2", "knowledge": {"checksum": SUM},
            "conditions": [base]}


def test_the_same_condition_and_knowledge_base_is_quoted():
    text = advice("auto", Condition(), _doc(), knowledge=SUM)
    assert text.startswith("On 9 past datasets (7 families) under accuracy, P = 0 (CPU time)")
    assert "0.0200 [0.0100, 0.0300]" in text and "0.0300 [0.0200, 0.0400]" in text


@pytest.mark.parametrize(("condition", "clock", "said"), [
    (Condition("f1"), "cpu", "No stored evaluation matches F1 score, P = 0 with CPU time"),
    (Condition(time_weight=2), "cpu", "No stored evaluation matches accuracy, P = 2 with"),
    (Condition(time_weight=1 / 64), "cpu", "matches accuracy, P = 1/64 with CPU time"),
    (Condition(), "wall", "No stored evaluation matches accuracy, P = 0 with WALL time"),
    (Condition(time_budget=60), "cpu", "with CPU time, a budget of 60 s"),
])
def test_another_condition_clock_or_budget_is_said_never_quoted(condition, clock, said):
    text = advice("auto", condition, _doc(), clock=clock, knowledge=SUM)
    assert said in text and "nothing is quoted" in text
    assert "0.0200" not in text and "nearest" not in text


def test_another_knowledge_base_is_said_never_quoted():
    text = advice("auto", Condition(), _doc(), knowledge=OTHER)
    assert text.startswith("The stored evaluations describe another knowledge base "
                           f"({SUM[:19]}..., this one {OTHER[:19]}...)")
    assert "0.0200" not in text
    old = {**_doc(), "format": "metaeval-evaluations/1"}
    del old["knowledge"]
    assert advice("auto", Condition(), old, knowledge=SUM).startswith(
        "The stored evaluations name no knowledge base")


def test_a_former_protocol_quotes_the_first_pick_only():
    text = advice("auto", Condition(), _doc(protocol=1, scored_on="unseen repetition"),
                  knowledge=SUM)
    assert "0.0200 [0.0100, 0.0300]" in text and "best of three" in text
    assert "0.0100 [0.0000, 0.0200]" not in text and "are not quoted" in text


def test_the_shipped_evaluations_name_the_shipped_knowledge_base():
    assert stored_evaluations()["knowledge"]["checksum"] == \
        load_knowledge().provenance["checksum"]
    labor = load_dataset("labor")
    rec = recommend(labor, strategy="single-best")
    assert rec.advice.startswith("On 72 past datasets (63 families) under accuracy, P = 0 "
                                 "(CPU time)")
    for condition, clock, said in ((Condition("f1"), "cpu", "F1 score, P = 0 with CPU"),
                                   (Condition(time_weight=2), "cpu", "P = 2 with CPU"),
                                   (Condition(), "wall", "P = 0 with WALL time")):
        rec = recommend(labor, condition=condition, clock=clock, strategy="single-best")
        assert rec.advice.startswith(f"No stored evaluation matches {condition.label}")
        assert said in rec.advice


# ------------------------------------------------------------ a knowledge file of one's own
@pytest.fixture(scope="module")
def files(tmp_path_factory):
    where = tmp_path_factory.mktemp("advice")
    store = _store(where / "s.duckdb", describe=False)
    archive = build_knowledge(store, require_descriptions=False)
    knowledge = archive.save(where / "mine.npz")
    data = where / "labor.csv"
    ds = load_dataset("labor")
    ds.X.assign(**{"class": ds.y}).to_csv(data, index=False)
    return store, archive, knowledge, data


def _run(*args):
    result = runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})
    return result, " ".join(result.output.split())


def test_a_study_store_says_no_evaluation_is_stored(files):
    store, _, _, data = files
    result, text = _run("recommend", data, "--store", store.path, "--strategy",
                        "single-best")
    assert result.exit_code == 0, result.output
    assert "No stored evaluation describes a study's results: nothing is quoted" in text


def test_evaluate_keeps_what_recommend_knowledge_quotes(files):
    _, archive, knowledge, data = files
    kept = evaluations_file(knowledge)
    result, text = _run("recommend", data, "--knowledge", knowledge, "--strategy",
                        "single-best")
    assert result.exit_code == 0, result.output
    assert "No stored evaluation describes this knowledge base" in text
    result, text = _run("recommend", "--evaluate", "--knowledge", knowledge, "--strategy",
                        "single-best", "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert f"Evaluation kept in {kept}" in text
    document = json.loads(kept.read_text())
    assert document["knowledge"]["checksum"] == load_knowledge(knowledge).provenance[
        "checksum"]
    [entry] = document["conditions"]
    assert entry["clock"] == "cpu" and entry["condition"]["measure"] == "accuracy"
    result, text = _run("recommend", data, "--knowledge", knowledge, "--strategy",
                        "single-best")
    assert result.exit_code == 0, result.output
    loss = entry["strategies"]["single-best"]["loss_at_1"]
    assert ("On 4 past datasets (4 families) under accuracy, P = 0 (CPU time), the single "
            f"best's first pick lost {loss[0]:.4f} [{loss[1]:.4f}, {loss[2]:.4f}]") in text
    # another clock, P or measure: said, not quoted
    for extra, said in ((("--time", "wall"), "accuracy, P = 0 with WALL time"),
                        (("--time-weight", "1/64"), "accuracy, P = 1/64 with CPU time"),
                        (("--measure", "auc"), "AUC, P = 0 with CPU time")):
        result, text = _run("recommend", data, "--knowledge", knowledge, "--strategy",
                            "single-best", *extra)
        assert result.exit_code == 0, result.output
        assert f"No stored evaluation matches {said}" in text
    # a second evaluation is added beside the first
    result, text = _run("recommend", "--evaluate", "--knowledge", knowledge, "--strategy",
                        "single-best", "--time", "wall", "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert len(json.loads(kept.read_text())["conditions"]) == 2
    # the knowledge file replaced by another: its old evaluations are not quoted
    dataclasses.replace(archive, provenance={**archive.provenance, "note": "other"}).save(
        knowledge)
    result, text = _run("recommend", data, "--knowledge", knowledge, "--strategy",
                        "single-best")
    assert result.exit_code == 0, result.output
    assert "The stored evaluations describe another knowledge base" in text
    assert "On 4 past datasets" not in text


def test_a_foreign_file_where_evaluations_are_kept_is_refused(files, tmp_path):
    _, archive, _, _ = files
    knowledge = archive.save(tmp_path / "k.npz")
    evaluations_file(knowledge).write_text("not json")
    result, text = _run("recommend", "--evaluate", "--knowledge", knowledge, "--strategy",
                        "single-best", "--jobs", "1")
    assert result.exit_code == 2
    assert "is not an evaluations document" in text
    assert evaluations_file(knowledge).read_text() == "not json"


def test_where_time_counts_the_sentence_compares_with_the_time_aware_single_best():
    entry = _doc()["conditions"][0]
    entry["condition"] = Condition(time_weight=1 / 64).to_dict()
    entry["label"] = "accuracy, P = 1/64"
    entry["strategies"]["single-best-a3r"] = {"loss_at_1": [0.025, 0.015, 0.035],
                                              "loss_at_3": [0.012, 0.005, 0.02],
                                              "mil": [0.05, 0.04, 0.06]}
    entry["strategies"]["auto"]["mil"] = [0.045, 0.035, 0.055]
    entry["versus_time_aware"] = {"auto": {
        "loss_at_1": {"supported": False, "p_holm": 0.2},
        "mil": {"supported": False, "p_holm": 0.3}}}
    document = {**_doc(), "conditions": [entry]}
    text = advice("auto", Condition(time_weight=1 / 64), document, knowledge=SUM)
    assert "against the time-aware single best's 0.0250 [0.0150, 0.0350]" in text
    assert "first-pick loss not shown to be lower (Holm p = 0.2)" in text
    assert "0.0450 [0.0350, 0.0550] against 0.0500 [0.0400, 0.0600], MIL not shown" in text
    assert "0.0300 [0.0200, 0.0400]" not in text  # not the time-blind single best's
