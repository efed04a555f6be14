"""``auto`` adapts the order to the new dataset only where the stored evaluation of the
same knowledge base, condition, P and clock supports it (``adapt="evidence"``, the
default); otherwise it gives the baseline's order, the same for every dataset, and says
why. ``adapt="always"`` keeps ``auto``'s own choice."""

from __future__ import annotations

import copy

import pytest
from tests.test_recommend_archive import _store
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.datasets import load_dataset
from metaeval.recommend import Condition, build_knowledge, load_knowledge, recommend
from metaeval.recommend._advice import stored_evaluations

runner = CliRunner()


@pytest.fixture(scope="module")
def shipped():
    return load_knowledge()


@pytest.fixture(scope="module")
def labor():
    return load_dataset("labor")


@pytest.fixture(scope="module")
def default(shipped, labor):
    return recommend(labor, shipped, evaluations=stored_evaluations())


def _verdict(document, condition, key="versus_single_best"):
    [entry] = [e for e in document["conditions"]
               if e["condition"]["measure"] == condition["measure"]
               and float(e["condition"].get("time_weight") or 0) == condition["p"]
               and e["clock"] == "cpu"]
    return entry, entry[key]["auto"]["loss_at_1"]


def test_an_unsupported_adaptation_gives_the_single_best_order(shipped, labor, default):
    entry, verdict = _verdict(stored_evaluations(), {"measure": "accuracy", "p": 0.0})
    # the shipped evaluation: auto's vote reads the data, and its first-pick loss was not
    # shown to be lower than the single best's
    assert entry["auto_chosen"] != {"single-best": entry["n_datasets"]}
    assert verdict["supported"] is False
    single = recommend(labor, shipped, strategy="single-best")
    assert default.table["algorithm"].tolist() == single.table["algorithm"].tolist()
    assert default.selection["strategy"] == "single-best"
    assert default.selection["adapted"] is False
    assert default.selection["evidence"] == "not supported"
    # what auto had chosen is kept, and the note says why it is not used
    assert default.selection["auto"]["combine"] == "vote"
    auto = entry["strategies"]["auto"]["loss_at_1"][0]
    sb = entry["strategies"]["single-best"]["loss_at_1"][0]
    note = next(n for n in default.notes if n.startswith("this order is the same for every"))
    assert ("auto gives the single best's order (single-best), because in the stored "
            "evaluation of this knowledge base under accuracy, P = 0, auto's own order, "
            f"which reads the data, was not shown to beat it (first-pick loss {auto:.4f} "
            f"against {sb:.4f}, Holm p = {verdict['p_holm']:.2g})") in note
    # said once, not twice
    assert sum("same for every dataset" in n for n in default.notes) == 1
    # the trust sentence is about the order given: the single best's figures
    assert f"the single best's first pick lost {sb:.4f}" in default.advice
    assert "auto's first pick" not in default.advice
    # nothing of the new dataset was read
    assert default.overhead == 0


def test_the_same_order_for_different_data(shipped, default):
    other = recommend(load_dataset("sonar"), shipped, evaluations=stored_evaluations())
    assert other.table["algorithm"].tolist() == default.table["algorithm"].tolist()


def test_a_supported_adaptation_adapts(shipped, labor, default):
    document = copy.deepcopy(stored_evaluations())
    _, verdict = _verdict(document, {"measure": "accuracy", "p": 0.0})
    verdict.update(supported=True, p_holm=0.001)
    adapted = recommend(labor, shipped, evaluations=document)
    assert adapted.selection["adapted"] is True
    assert adapted.selection["evidence"] == "supported"
    assert adapted.selection["combine"] == "vote"
    # the vote's order, not the single best's
    assert adapted.table["algorithm"].tolist() != default.table["algorithm"].tolist()
    assert any("auto adapts this order to the data" in n and "lower than the single "
               "best's with evidence (Holm p = 0.001)" in n for n in adapted.notes)
    assert not any("same for every dataset" in n for n in adapted.notes)
    assert "auto's first pick lost" in adapted.advice
    assert adapted.overhead > 0  # the dataset was described


def test_where_auto_leaves_the_vote_the_note_says_for_what(shipped, labor):
    # at P = 1/64 the zero-shot portfolio, which reads nothing, replaces the vote on the
    # shipped knowledge base: nothing to gate, and the notes say what auto did
    rec = recommend(labor, shipped, Condition(time_weight=1 / 64),
                    evaluations=stored_evaluations())
    assert rec.selection["strategy"] == "zero-shot-portfolio"
    assert "adapted" not in rec.selection
    p = rec.selection["p"]
    assert p < 0.05 / 3
    assert any(n.startswith("under this condition auto left the vote of "
                            "knn-metafeatures, cost-landmarking, regression, pairwise for "
                            "zero-shot-portfolio, which reads nothing of the new dataset "
                            "(inner leave-one-family-out MIL; ")
               and n.endswith(f": p = {p:.2g})") for n in rec.notes), rec.notes
    assert not any("Borda" in n for n in rec.notes)
    assert ("this order is the same for every dataset: zero-shot-portfolio ranks from the "
            "past results only, without reading the new data, and auto chose it (see the "
            "note on auto's choice)") in rec.notes


def test_bad_adapt_is_refused(labor):
    with pytest.raises(ValueError, match="adapt must be 'evidence' or 'always', got "
                                         "'sometimes'."):
        recommend(labor, adapt="sometimes")
    with pytest.raises(ValueError, match="adapt applies to the strategy 'auto' only, not "
                                         "'single-best'"):
        recommend(labor, strategy="single-best", adapt="always")


# ------------------------------------------- a knowledge file of one's own, where time counts
@pytest.fixture(scope="module")
def mine(tmp_path_factory):
    where = tmp_path_factory.mktemp("gate")
    archive = build_knowledge(_store(where / "s.duckdb"))
    return load_knowledge(archive.save(where / "mine.npz"))


def _timed_document(archive, supported):
    condition = Condition(time_weight=1 / 64)
    figures = {"loss_at_1": [0.02, 0.01, 0.03], "loss_at_3": [0.01, 0.0, 0.02],
               "mil": [0.05, 0.04, 0.06]}
    entry = {"condition": condition.to_dict(), "label": condition.label, "clock": "cpu",
             "n_datasets": 4, "n_families": 4, "protocol": 2,
             "strategies": {"auto": figures,
                            "single-best": {**figures, "loss_at_1": [0.01, 0.0, 0.02]},
                            "single-best-a3r": {**figures, "loss_at_1": [0.03, 0.02, 0.04]}},
             "versus_single_best": {},
             "versus_time_aware": {"auto": {"loss_at_1": {"supported": supported,
                                                          "p_holm": 0.3}}}}
    return {"format": "metaeval-evaluations/2",
            "knowledge": {"checksum": archive.provenance["checksum"]},
            "conditions": [entry]}


def test_where_time_counts_the_baseline_is_the_time_aware_single_best(mine, labor):
    condition = Condition(time_weight=1 / 64)
    kept = recommend(labor, mine, condition, evaluations=_timed_document(mine, False))
    assert kept.selection["strategy"] == "single-best-a3r"
    assert kept.selection["adapted"] is False
    # auto's own choice, kept beside: it reads the data on this knowledge base (four
    # families: no static candidate can be lower by Wilcoxon's test at 0.05 / 3)
    assert kept.selection["auto"]["combine"] == "vote"
    assert any("auto gives the time-aware single best's order (single-best-a3r)" in n
               and "(first-pick loss 0.0200 against 0.0300, Holm p = 0.3)" in n
               for n in kept.notes), kept.notes
    assert "the time-aware single best's first pick lost 0.0300" in kept.advice
    assert kept.overhead == 0
    adapted = recommend(labor, mine, condition, evaluations=_timed_document(mine, True))
    assert adapted.selection["adapted"] is True and adapted.overhead > 0
    assert "auto's first pick lost 0.0200" in adapted.advice


def test_no_stored_evaluation_keeps_auto_own_choice_and_says_so(mine, labor):
    rec = recommend(labor, mine, evaluations={})
    assert rec.selection["adapted"] is True
    assert rec.selection["evidence"] == "none stored"
    assert any("on its inner cross-validation alone: no stored evaluation describes this "
               "knowledge base, so nothing checked that adapting pays" in n
               for n in rec.notes), rec.notes
    # asked to adapt whatever the evidence
    rec = recommend(labor, mine, Condition(time_weight=1 / 64), adapt="always",
                    evaluations=_timed_document(mine, False))
    assert rec.selection["adapted"] is True and rec.selection["evidence"] == "asked"
    assert any("as asked (adapt 'always')" in n for n in rec.notes), rec.notes


def test_the_command_line_offers_adapt(mine, tmp_path):
    import json

    from metaeval.recommend._advice import evaluations_file

    path = tmp_path / "labor.csv"
    ds = load_dataset("labor")
    ds.X.assign(**{"class": ds.y}).to_csv(path, index=False)
    knowledge = mine.save(tmp_path / "mine.npz")
    evaluations_file(knowledge).write_text(json.dumps(_timed_document(mine, False)))

    def run(*args):
        result = runner.invoke(app, ["recommend", str(path), "--knowledge", str(knowledge),
                                     "--time-weight", "1/64", *args],
                               env={"COLUMNS": "200"})
        return result, " ".join(result.output.split())

    result, text = run("--adapt", "sometimes")
    assert result.exit_code == 2
    assert "--adapt must be evidence or always, got 'sometimes'." in text
    result, text = run("--strategy", "single-best", "--adapt", "always")
    assert result.exit_code == 2
    assert "--adapt goes with the strategy auto (the default), not single-best." in text
    result, text = run()
    assert result.exit_code == 0, result.output
    assert "auto gives the time-aware single best's order (single-best-a3r)" in text
    assert "--adapt always" in text
    assert "the time-aware single best's first pick lost 0.0300" in text
    result, text = run("--adapt", "always")
    assert result.exit_code == 0, result.output
    assert "as asked (adapt 'always')" in text
