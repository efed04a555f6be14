"""Tests of the metaeval command line (typer): commands, messages and exit codes."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.hardness import METHODS, instance_hardness
from metaeval.store import Store

runner = CliRunner()


def _run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    """A finished study: labor and fertility x NB, DT (3 folds)."""
    store = tmp_path_factory.mktemp("cli") / "study.duckdb"
    result = _run("run", "--datasets", "labor,fertility", "--algorithms", "NB,DT",
                  "--folds", "3", "--jobs", "1", "--store", store)
    assert result.exit_code == 0, result.output
    assert "Ran 4 tasks on 1 local process" in result.output
    assert str(store) in result.output
    return store


def test_run_twice_is_a_no_op_that_says_so(small_store):
    result = _run("run", "--datasets", "labor,fertility", "--algorithms", "NB,DT",
                  "--folds", "3", "--jobs", "1", "--store", small_store, "--quiet")
    assert result.exit_code == 0
    assert "Nothing to do: all 4 tasks of this study are already in" in result.output


def test_bad_input_exits_2_without_a_traceback(small_store, tmp_path):
    cases = [
        (["run", "--algorithms", "NB,KNN9", "--store", tmp_path / "x.duckdb"],
         "unknown algorithm 'KNN9'"),
        (["run", "--suite", "quick", "--datasets", "labor"], "either --suite or --datasets"),
        (["run", "--suite", "medium", "--store", tmp_path / "x.duckdb"], "'quick', 'full'"),
        (["run", "--jobs", "2", "--dask-workers", "2"], "--jobs is for local processes"),
        (["run", "--datasets", "labor", "--algorithms", "NB", "--folds", "5",
          "--store", small_store], "holds a different study"),
        (["run", tmp_path / "missing.toml"], "Cannot read the study file"),
        (["status", "--store", tmp_path / "missing.duckdb"], "does not exist"),
        (["datasets", "show", "nope"], "nope"),
        (["hardness", "--store", tmp_path / "missing.duckdb"], "does not exist"),
    ]
    for args, message in cases:
        result = _run(*args)
        assert result.exit_code == 2, (args, result.output)
        assert "Traceback" not in result.output
        assert message in result.output, (args, result.output)
    # typer's own usage errors are 2 as well
    assert _run("run", "--no-such-option").exit_code == 2


def test_failed_tasks_exit_1_and_status_lists_them(tmp_path):
    study = tmp_path / "study.toml"
    study.write_text(textwrap.dedent(f"""\
        datasets = ["labor"]
        folds = 3
        store = "{tmp_path / 'bad.duckdb'}"

        [executor]
        jobs = 1

        [[algorithms]]
        name = "NB"

        [[algorithms]]
        name = "LR_bad"
        base = "LR"
        params = {{ C = -1.0 }}
    """))
    result = _run("run", study)
    assert result.exit_code == 1, result.output
    assert "1 done, 1 failed" in result.output
    status = _run("status", "--store", tmp_path / "bad.duckdb")
    assert status.exit_code == 0
    assert "2 tasks: 1 done, 1 failed, 0 pending" in status.output
    assert "LR_bad" in status.output and "InvalidParameterError" in status.output
    # options override the study file: --folds 4 is another study for the same store
    assert _run("run", study, "--folds", "4").exit_code == 2


def test_status_of_a_store_in_use_shows_the_run_progress(small_store):
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys
            from metaeval.store import Store
            store = Store({str(small_store)!r})
            with store.writing():
                store.write_progress({{"pid": 4242, "started": "then", "updated": "now",
                    "executor": "2 local processes", "done": 3, "failed": 1,
                    "remaining": 5, "to_run": 9, "skipped": 0}})
                print("locked", flush=True)
                sys.stdin.readline()
                store.write_progress(None)
        """)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        result = _run("status", "--store", small_store)
        assert result.exit_code == 0
        assert "A run is in progress (pid 4242" in result.output
        assert "3 done, 1 failed, 5 remaining of 9" in result.output
        blocked = _run("hardness", "--store", small_store)
        assert blocked.exit_code == 2 and "in use by process" in blocked.output
    finally:
        holder.communicate("\n", timeout=30)


def test_status_export_and_hardness(small_store, tmp_path):
    status = _run("status", "--store", small_store)
    assert status.exit_code == 0
    assert "4 tasks: 4 done, 0 failed, 0 pending" in status.output
    assert "2 datasets x 2 algorithms x 1 repeat, 3-fold CV, seed 0" in status.output

    export = _run("export", "--parquet", tmp_path / "pq", "--store", small_store)
    assert export.exit_code == 0
    scores = pd.read_parquet(tmp_path / "pq" / "scores.parquet")
    pd.testing.assert_frame_equal(scores, Store(small_store).scores_frame(),
                                  check_dtype=False)

    hardness = _run("hardness", "--store", small_store)
    assert hardness.exit_code == 0, hardness.output
    assert "labor (n = 57;" in hardness.output and "fertility (n = 100;" in hardness.output
    for method in METHODS:
        assert method in hardness.output
    # the printed numbers are the mean instance hardness of each algorithm's scores
    y, S, algorithms = Store(small_store).scores("labor")
    lines = [line for line in hardness.output.splitlines() if "NB" in line]
    nb = [float(cell.split("±")[0]) for cell in lines[0].split("│")[2:-1]]
    expected = [instance_hardness(y, S[:, algorithms.index("NB")], m).mean() for m in METHODS]
    np.testing.assert_allclose(nb, expected, atol=5e-5)
    only = _run("hardness", "--store", small_store, "--dataset", "fertility")
    assert "labor" not in only.output and "fertility" in only.output


def test_datasets_and_algorithms_listings():
    listing = _run("datasets", "list", "--subset", "quick")
    assert listing.exit_code == 0
    assert "Built-in datasets (quick: 15)" in listing.output and "credit-g" in listing.output
    assert "labor" not in listing.output
    assert "labor" in _run("datasets").output  # default: the full list
    show = _run("datasets", "show", "labor")
    assert show.exit_code == 0
    assert "57" in show.output and "sha256" in show.output
    algorithms = _run("algorithms")
    assert algorithms.exit_code == 0
    for name in ("3NN", "5NN", "DT", "NB", "LR", "RF", "SVM_LIN", "SVM_RBF"):
        assert name in algorithms.output
    assert "tree_votes" in algorithms.output


def test_python_dash_m_metaeval_runs_the_cli():
    result = subprocess.run([sys.executable, "-m", "metaeval", "--help"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    for command in ("run", "status", "datasets", "algorithms", "export", "hardness"):
        assert command in result.stdout


# ------------------------------------------------------------------ messages a user understands
def test_version():
    result = _run("--version")
    assert result.exit_code == 0
    from importlib.metadata import version

    assert result.output.strip() == f"metaeval {version('metaeval')}"


def test_datasets_show_an_unknown_name_points_to_the_list_and_the_closest_names():
    result = _run("datasets", "show", "ecoli")
    assert result.exit_code == 2
    assert "`metaeval datasets list`" in result.output
    assert "ecoli3, ecoli1, ecoli-0_vs_1" in result.output
    assert "list_datasets()" not in result.output and "Traceback" not in result.output


def _one_line_error(result, code=2):
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, result.output
    return errors[0]


def test_analyses_of_a_store_with_one_algorithm_or_only_failures_say_what_is_missing(tmp_path):
    one = tmp_path / "one.duckdb"
    assert _run("run", "--datasets", "labor", "--algorithms", "NB", "--folds", "3",
                "--jobs", "1", "--store", one, "--quiet").exit_code == 0
    for args in (["rank"], ["benchmark"], ["report", "--out", tmp_path / "r"],
                 ["plot", "dendrograms", "--out", tmp_path / "d.png", "-o", "dataset=labor"]):
        line = _one_line_error(_run(*args, "--store", one))
        assert "needs at least 2 finished on one dataset" in line, line
        assert "has only NB" in line and "--algorithms NB," in line
    assert not (tmp_path / "r" / "index.html").exists()
    assert _run("hardness", "--store", one).exit_code == 0  # one algorithm is enough

    study = tmp_path / "bad.toml"
    study.write_text(textwrap.dedent(f"""\
        datasets = ["labor"]
        folds = 3
        store = "{tmp_path / 'failed.duckdb'}"
        [executor]
        jobs = 1
        [[algorithms]]
        name = "LR_bad"
        base = "LR"
        params = {{ C = -1.0 }}
        """))
    assert _run("run", study, "--quiet").exit_code == 1
    for args in (["hardness"], ["rank"], ["benchmark"], ["report", "--out", tmp_path / "r"]):
        line = _one_line_error(_run(*args, "--store", tmp_path / "failed.duckdb"))
        assert "every task of the store" in line and "failed (1)" in line, line
        assert "metaeval status --store" in line and "--retry-failed" in line


def test_fewer_folds_than_asked_are_reported_by_run_and_status(tmp_path):
    data = tmp_path / "small.csv"
    rows = [f"{i},{'a' if i < 3 else 'b'}" for i in range(30)]  # class a: 3 rows
    data.write_text("x,class\n" + "\n".join(rows) + "\n")
    study = tmp_path / "small.toml"
    study.write_text(textwrap.dedent("""\
        folds = 10
        algorithms = ["NB"]
        [[datasets]]
        name = "small"
        path = "small.csv"
        """))
    store = tmp_path / "small.duckdb"
    result = _run("run", study, "--jobs", "1", "--store", store, "--quiet")
    assert result.exit_code == 0, result.output
    assert ("Note: fewer folds than the 10 asked, because a class has fewer instances than "
            "that: small 3.") in result.output
    status = _run("status", "--store", store)
    assert ("Fewer folds than the 10 asked, because a class has fewer instances than that: "
            "small 3.") in status.output
    assert Store(store).tasks()["n_folds"].tolist() == [3]


def test_status_says_which_failed_tasks_run_again_and_how_to_retry_the_others(tmp_path):
    store = Store(tmp_path / "s.duckdb")
    with store.writing():
        store.sync_study({"folds": 3, "seed": 0}, datasets=[
            {"name": "toy", "sha256": "0" * 64, "n_instances": 4, "n_features": 1,
             "positive_fraction": 0.5, "family": "toy", "source": "test"}],
            algorithms=[{"name": a, "estimator": "m.A", "params": "{}",
                         "score_method": "predict_proba", "versions": "{}"}
                        for a in ("A", "B", "C")],
            tasks=[("toy", "A", 0), ("toy", "B", 0), ("toy", "C", 0)])
        store.record_task("toy", "A", 0, status="failed",
                          error="worker process died (killed by signal 9) while running "
                          "the task.")
        store.record_task("toy", "B", 0, status="failed",
                          error="ValueError in fit (fold 0 of 3): bad")
        store.record_task("toy", "C", 0, status="failed",
                          error="time limit of 5 s exceeded (5.1 s elapsed; worker process "
                          "killed).")
    result = _run("status", "--store", store.path)
    assert result.exit_code == 0
    assert "worker died" in result.output and "time limit" in result.output
    assert ("1 failed task whose worker process died will run again when the study is run "
            "again.") in result.output
    assert "2 failed tasks (error, time limit) stay failed" in result.output
    assert "--retry-failed" in result.output
