"""The analytics commands (rank, benchmark, report, plot) against a real small study.

Each command's table is checked against the same quantity computed here
independently, from the stored scores and scikit-learn.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn.metrics import accuracy_score
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.hardness import instance_hardness
from metaeval.ranking import average_ranks, success_rate_ratios
from metaeval.store import Store

runner = CliRunner()


def _run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def store(cli_store):
    """labor, fertility and haberman x NB, DT, 3NN, 3-fold CV: a finished study (run by
    ``metaeval run``, once per test run: only read it)."""
    return cli_store


def _table_order(output, title):
    """Algorithms in the order the table titled ``title`` lists them."""
    block = output.split(title, 1)[1]
    names = []
    for line in block.splitlines():
        cells = [c.strip() for c in re.split(r"[│┃]", line) if c.strip()]
        if len(cells) >= 3 and cells[0].replace(".", "").isdigit():
            names.append(cells[1])
        elif names and line.startswith("└"):
            break
    return names


def _per_fold_success(path, value):
    """[dataset, algorithm, fold, value] computed directly from the stored scores."""
    import pandas as pd

    sf = Store(path).scores_frame()
    rows = [
        {"dataset": d, "algorithm": a, "fold": f, "value": value(g["y"].to_numpy(),
                                                                  g["score"].to_numpy())}
        for (d, a, f), g in sf.groupby(["dataset", "algorithm", "fold"])
    ]
    return pd.DataFrame(rows)


def test_rank_average_ranks_match_accuracy_computed_with_sklearn(store):
    success = _per_fold_success(store, lambda y, s: accuracy_score(y, (s > 0.5).astype(int)))
    expected = average_ranks(success)["algorithm"].tolist()
    result = _run("rank", "--store", store, "--method", "ar")
    assert result.exit_code == 0, result.output
    assert _table_order(result.output, "AR, measure: accuracy") == expected
    assert "SRR" not in result.output  # only the requested method
    assert "ARR" not in result.output  # "AR" must not also match "ARR"


def test_rank_by_hardness_uses_one_minus_mean_hardness(store):
    success = _per_fold_success(
        store, lambda y, s: 1.0 - instance_hardness(y, s, "rate-driven").mean())
    expected = success_rate_ratios(success)
    result = _run("rank", "--store", store, "--method", "srr", "--measure",
                  "hardness:rate-driven")
    assert result.exit_code == 0, result.output
    assert _table_order(result.output, "SRR") == expected["algorithm"].tolist()
    top = expected.iloc[0]
    assert f"{top['score']:.4f}" in result.output


def test_rank_prints_all_five_rankings_by_default(store):
    result = _run("rank", "--store", store)
    assert result.exit_code == 0, result.output
    for title in ("AR,", "SRR,", "SW,", "ARR (AccD=0.1)", "A3R (n=8)"):
        assert title in result.output


@pytest.mark.parametrize("args, message", [
    (["--method", "best"], "--method must be one of"),
    (["--measure", "speed"], "measure must be one of"),
])
def test_rank_bad_input_exits_2(store, args, message):
    result = _run("rank", "--store", store, *args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_rank_on_a_missing_store_exits_2(tmp_path):
    result = _run("rank", "--store", tmp_path / "none.duckdb")
    assert result.exit_code == 2
    assert "does not exist" in result.output
    assert not (tmp_path / "none.duckdb").exists()


def test_benchmark_greedy_first_pick_is_the_best_value_captured(store):
    # f({a}) is a's mean value captured, so the greedy portfolio's first pick must
    # be the top of the value-captured table
    result = _run("benchmark", "--store", store, "--k", "1")
    assert result.exit_code == 0, result.output
    value_order = _table_order(result.output, "Value captured")
    assert sorted(value_order) == ["3NN", "DT", "NB"]
    portfolio = result.output.split("Greedy portfolio", 1)[1]
    first = next(line for line in portfolio.splitlines() if re.search(r"│\s*1\s*│", line))
    assert value_order[0] in first
    assert "Metric disagreement (k = 1" in result.output
    assert "Runtime score" in result.output


def test_report_writes_a_self_contained_page(cli_report):
    # `metaeval report --store S --out OUT --jobs 1` (not about pools) of a copy of the
    # module's study, run once per test run (exit code 0 checked there): its page
    out = cli_report["out"]
    page = (out / "index.html").read_text(encoding="utf-8")
    assert page.lstrip().lower().startswith("<!doctype html")
    assert "fertility" in page and "haberman" in page
    # nothing is loaded from elsewhere (namespace URIs inside inline SVG are not loads)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<link" not in page.lower()


def test_plot_writes_each_format(store, tmp_path):
    for suffix, magic in ((".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")):
        target = tmp_path / f"fig{suffix}"
        result = _run("plot", "dendrograms", "--store", store, "--out", target,
                      "-o", "dataset=haberman")
        assert result.exit_code == 0, result.output
        assert target.read_bytes().startswith(magic)
    # a figure of Abdulrahman & Brazdil (2014) needs no store at all
    result = _run("plot", "arr", "--out", tmp_path / "arr.png", "--store",
                  tmp_path / "absent.duckdb")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("args, message", [
    (["dendrograms", "--out", "x.gif"], "must end in .png, .svg or .pdf"),
    (["dendrograms"], "--out FILE"),
    (["dendrogram", "--out", "x.png"], "Did you mean 'dendrograms'?"),
])
def test_plot_bad_input_exits_2(store, args, message):
    result = _run("plot", *args, "--store", store)
    assert result.exit_code == 2
    assert message in result.output


def test_plot_list_names_every_kind():
    from metaeval.report import PLOT_KINDS

    result = _run("plot", "--list")
    assert result.exit_code == 0
    listed = {line.split()[0] for line in result.output.splitlines() if line.strip()}
    assert set(PLOT_KINDS) <= listed
    assert np.all([len(k) > 0 for k in PLOT_KINDS])


def test_message_lines_are_not_wrapped_whatever_the_path_length(store, tmp_path):
    # a non-terminal console is 120 columns wide; a long store path must not split the
    # status line that scripts grep
    deep = tmp_path / ("d" * 130)
    deep.mkdir()
    target = deep / "study.duckdb"
    target.write_bytes(store.read_bytes())
    result = _run("status", "--store", target)
    assert result.exit_code == 0, result.output
    assert f"{target}: 9 tasks: 9 done, 0 failed, 0 pending." in result.output


@pytest.fixture(scope="module")
def extended_store(store, tmp_path_factory):
    """The module's study plus LR on labor only: LR is not finished on every dataset."""
    path = tmp_path_factory.mktemp("extended") / "study.duckdb"
    path.write_bytes(store.read_bytes())
    result = _run("run", "--datasets", "labor", "--algorithms", "LR", "--folds", "3",
                  "--jobs", "1", "--quiet", "--store", path)
    assert result.exit_code == 0, result.output
    return path


def test_rank_and_benchmark_say_what_they_leave_out(extended_store):
    for command in ("rank", "benchmark"):
        result = _run(command, "--store", extended_store)
        assert result.exit_code == 0, result.output
        assert "Note: left out LR: not finished on every dataset" in result.output
    # the runtime score ranks the same algorithms as the value captured (LR, fastest on
    # the one dataset it ran on, must not appear)
    result = _run("benchmark", "--store", extended_store)
    runtime = _table_order(result.output, "Runtime score")
    assert sorted(runtime) == sorted(_table_order(result.output, "Value captured"))
    assert "LR" not in runtime


@pytest.mark.parametrize("args, code, message", [
    (["--dataset", "nope"], 2, "'nope' not in the store"),
    (["--repeat", "-1"], 2, "--repeat must be >= 0"),
    (["--repeat", "3"], 1, "No dataset has finished scores for repeat 3"),
])
def test_hardness_rejects_what_it_cannot_show(store, args, code, message):
    result = _run("hardness", "--store", store, *args)
    assert result.exit_code == code, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_unusable_output_paths_exit_2(store, tmp_path):
    a_file = tmp_path / "taken"
    a_file.write_text("not a folder")
    for args in (["export", "--parquet", a_file], ["report", "--out", a_file]):
        result = _run(*args, "--store", store)
        assert result.exit_code == 2, result.output
        assert "Error:" in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("command", [["rank"], ["rank", "--measure", "auc"], ["benchmark"],
                                     ["benchmark", "--by-family", "best"]])
def test_a_store_read_dataset_by_dataset_prints_the_same_tables(store, monkeypatch, command):
    # above STREAM_ABOVE scores rank and benchmark stream the store (the report's view):
    # the same numbers as reading it all at once
    from metaeval.cli import _results

    whole = _run(*command, "--store", store)
    monkeypatch.setattr(_results, "STREAM_ABOVE", 0)
    calls = []
    real = _results.results_view

    def spy(st, **kw):
        calls.append(view := real(st, **kw))
        return view

    monkeypatch.setattr(_results, "results_view", spy)
    streamed = _run(*command, "--store", store)
    assert whole.exit_code == streamed.exit_code == 0, streamed.output
    assert calls and all(type(v).__name__ == "StudyView" for v in calls)
    assert streamed.output == whole.output


@pytest.mark.parametrize("command", [["hardness"], ["hardness", "--instances", "labor"],
                                     ["rank", "--draws", "20"], ["benchmark"], ["status"],
                                     ["plot", "value-captured"]])
def test_a_command_opens_the_store_once(store, monkeypatch, tmp_path, command):
    # a DuckDB database costs some 17 ms of CPU to open: the command's check that the
    # store holds results and its reads go through one connection, not one each
    from metaeval.store import _connection, _store

    opened = []

    def counting(path, *, read_only):
        opened.append(read_only)
        return _connection._connect(path, read_only=read_only)

    monkeypatch.setattr(_store, "_connect", counting)
    out = ["--out", tmp_path / "figure.svg"] if command[0] == "plot" else []
    result = _run(*command, "--store", store, *out)
    assert result.exit_code == 0, result.output
    assert opened == [True]
