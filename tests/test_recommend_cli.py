"""``metaeval recommend`` on a real small study: the order, the evaluation, bad input."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from metaeval.cli import COMMAND_MODULES, app
from metaeval.datasets import load_dataset
from metaeval.recommend import Condition, recommend

runner = CliRunner()


def _run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """labor, fertility, appendicitis and promoters x NB, DT, 3NN, 3-fold CV."""
    path = tmp_path_factory.mktemp("recommend") / "study.duckdb"
    result = _run("run", "--datasets", "labor,fertility,appendicitis,promoters", "--algorithms",
                  "NB,DT,3NN", "--folds", "3", "--jobs", "1", "--quiet", "--store", path)
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture(scope="module")
def data_file(tmp_path_factory):
    ds = load_dataset("haberman")
    path = tmp_path_factory.mktemp("data") / "haberman.csv"
    ds.X.assign(**{"class": ds.y}).to_csv(path, index=False)
    return path


def _names(output):
    """The algorithms of a printed table, in order (a name wrapped onto more lines
    joined again)."""
    names = []
    for line in output.splitlines():
        if "│" not in line:
            continue
        rank, name = line.split("│")[1:3]
        if rank.strip():
            names.append(name.strip())
        else:
            names[-1] += name.strip()
    return names


def test_recommend_is_registered():
    assert "_recommend" in COMMAND_MODULES


def test_recommend_prints_the_order_of_the_python_api(store, data_file):
    result = _run("recommend", data_file, "--store", store, "--measure",
                  "hardness:rate-driven", "--cost", "0.3", "--time-weight", "1/64")
    assert result.exit_code == 0, result.output
    from metaeval.datasets import read_dataset

    rec = recommend(read_dataset(data_file), store,
                    Condition("hardness:rate-driven", cost=0.3, time_weight=1 / 64))
    order = _names(result.output)
    assert order == rec.table["algorithm"].tolist()
    assert "Driven by 4 past dataset(s)" in result.output
    top = _run("recommend", data_file, "--store", store, "--top", "1", "--strategy",
               "active-testing")
    assert top.exit_code == 0, top.output
    assert len(_names(top.output)) == 1
    assert f"The first 1 of {len(rec.table)} algorithms; --top 0 shows all." in top.output


def test_evaluate_writes_the_json_document(store, tmp_path):
    target = tmp_path / "ev.json"
    result = _run("recommend", "--evaluate", "--store", store, "--measure", "auc",
                  "--time-weight", "1/64", "--json", target)
    assert result.exit_code == 0, result.output
    assert "average-ranking" in result.output and "Friedman p" in result.output
    doc = json.loads(target.read_text())
    assert doc["condition"]["measure"] == "auc"
    assert doc["condition"]["time_weight"] == 1 / 64
    # the store is not described: the strategies that need descriptions are skipped, and
    # the note says which command describes it
    from metaeval.recommend import STRATEGIES

    assert set(doc["strategies"]) == {"average-ranking", "active-testing", "single-best",
                                      "single-best-a3r", "fast-first",
                                      "random", "oracle", "zero-shot-portfolio",
                                      *({"auto"} & set(STRATEGIES))}
    assert f"metaeval describe --store {store}" in result.output.replace("\n", " ")
    assert doc["clock"] == "cpu" and doc["time_axis"] == "relative"
    assert doc["n_algorithms"] >= 2 and isinstance(doc["comparisons"], list)
    assert {"a", "b", "measure", "difference", "low", "high", "p", "p_holm",
            "supported"} <= set(doc["comparisons"][0])
    entry = doc["strategies"]["average-ranking"]
    assert set(entry["loss_at"]) == {"1", "3", "5"}
    # every column of the summary: the loss at 1 %, 10 % and all of the pool's time too
    assert set(entry["loss_at_time"]) == {"0.01", "0.1", "1"}
    assert all(isinstance(v, float) for v in entry["loss_at_time"].values())
    assert {"loss_at_time_0.01", "loss_at_time_0.1", "loss_at_time_1"} <= \
        set(entry["intervals"])
    assert {"mil", "closed_gap"} <= set(entry)
    assert set(doc["curves"][0]) >= {"dataset", "strategy", "step", "algorithm", "elapsed",
                                     "loss"}
    # a study of one repetition: scored on it, and said so
    assert doc["scored_on"] == "same repetition" and doc["n_repetitions"] == 1
    assert doc["n_families"] >= 2 and doc["n_datasets_5000_rows"] == 0
    # the losses at budgets: every column of the budget summary, for every strategy and
    # the budget's own baseline, through the JSON
    budgets = doc["budgets"]
    assert budgets["seconds"] == [1.0, 10.0, 60.0, 600.0] and "skipped" in budgets["rule"]
    assert {r["strategy"] for r in budgets["summary"]} == set(doc["strategies"]) | {
        "single-best-budget"}
    assert all(set(r) == {"strategy", "budget", "loss", "low", "high", "n_datasets"}
               for r in budgets["summary"])
    assert {r["loss"] for r in budgets["summary"] if r["strategy"] == "oracle"} == {0.0}
    assert "loss in 10 cpu s" in result.output
    assert "one repetition of the cross-validation, scored on the same repetition" in \
        " ".join(result.output.split())


def test_scored_on_is_checked_in_one_line(store, data_file):
    for args, message in (
            (["--evaluate", "--scored-on", "both"], "--scored-on must be unseen or same"),
            ([data_file, "--scored-on", "same"], "--scored-on goes with --evaluate"),
            (["--evaluate", "--scored-on", "unseen"],
             "needs a knowledge base of at least 2 repetitions")):
        result = _run("recommend", "--store", store, *args)
        assert result.exit_code == 2, result.output
        assert message in result.output and "Traceback" not in result.output
        assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("args, message", [
    (["--measure", "foo"], "Unknown measure 'foo'"),
    (["--cost", "0.3"], "hardness measures only"),
    (["--measure", "hardness:rate-driven", "--cost", "0.3", "--cost-beta", "2,2"], "not both"),
    (["--cost-beta", "2"], "cost_beta"),
    (["--time-weight", "-1"], "time_weight"),
    (["--strategy", "bogus"], "Unknown strategy 'bogus'"),
    (["--strategy", "oracle"], "oracle"),
    (["--top", "-1"], "--top must be a positive number"),
])
def test_bad_condition_or_strategy_exits_2_with_one_line(store, data_file, args, message):
    result = _run("recommend", data_file, "--store", store, *args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_bad_files_exit_2(store, data_file, tmp_path):
    no_class = tmp_path / "x.csv"
    no_class.write_text("a,b\n1,2\n3,4\n")
    for args, message in (
        ([no_class, "--store", store], "target column 'class' is not in the data"),
        ([no_class, "--store", store], "Name the class column with --target."),
        ([no_class, "--target", "label", "--store", store], "column 'label'"),
        (["--store", store], "missing DATA_FILE"),
        ([data_file, "--evaluate", "--store", store], "not both"),
        ([data_file, "--store", tmp_path / "none.duckdb"], "does not exist"),
        (["--evaluate", "--strategy", "knn-metafeatures", "--store", tmp_path / "none.duckdb"],
         "does not exist"),
    ):
        result = _run("recommend", *args)
        assert result.exit_code == 2, result.output
        assert message in result.output
        assert "Traceback" not in result.output


def test_a_store_with_two_datasets_exits_2(tmp_path, data_file):
    path = tmp_path / "two.duckdb"
    result = _run("run", "--datasets", "labor,fertility", "--algorithms", "NB,DT", "--folds",
                  "2", "--jobs", "1", "--quiet", "--store", path)
    assert result.exit_code == 0, result.output
    result = _run("recommend", data_file, "--store", path)
    assert result.exit_code == 2
    assert "at least 3" in result.output
