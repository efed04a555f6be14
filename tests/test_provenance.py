"""How the results were made: what a run records, what export writes, old stores."""

from __future__ import annotations

import shutil

import duckdb
import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.hardness import METHODS, instance_hardness
from metaeval.report._provenance import provenance_section
from metaeval.store import Store
from metaeval.study import LocalExecutor, Study, derive_seed, run_study

runner = CliRunner()


def _run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """labor and fertility x NB, DT, 3NN, 3-fold CV, run by this metaeval."""
    path = tmp_path_factory.mktemp("prov") / "new.duckdb"
    run_study(Study(datasets=["labor", "fertility"], algorithms=["NB", "DT", "3NN"], folds=3,
                    store=path, executor=LocalExecutor(jobs=1)))
    return path


@pytest.fixture
def old(made, tmp_path):
    """The same store as the previous metaeval wrote it: no provenance tables."""
    path = tmp_path / "old.duckdb"
    shutil.copy(made, path)
    con = duckdb.connect(str(path))
    for table in ("runs", "algorithm_hyperparameters", "fold_seeds"):
        con.execute(f"DROP TABLE {table}")
    con.close()
    return path


def test_a_run_records_versions_machine_hyperparameters_and_fold_seeds(made):
    store = Store(made)
    runs = store.runs()
    assert len(runs) == 1 and pd.notna(runs.at[0, "finished"])
    env = runs.at[0, "environment"]
    for package in ("metaeval", "python", "scikit-learn", "numpy", "scipy", "duckdb"):
        assert env["versions"][package] not in ("", None, "not installed")
    assert env["cores"] >= 1 and env["cpu_model"] and env["executor"] == "1 local process"
    hyper = store.hyperparameters().set_index("algorithm")["hyperparameters"]
    assert set(hyper.index) == {"NB", "DT", "3NN"}
    assert hyper["DT"]["criterion"] == "gini" and hyper["DT"]["min_samples_leaf"] == 1
    assert hyper["DT"]["random_state"] == "derived per fold from the study seed"
    assert hyper["3NN"]["n_neighbors"] == 3 and hyper["3NN"]["leaf_size"] == 30
    seeds = store.fold_seeds()
    assert sorted(seeds["dataset"]) == ["fertility", "labor"]
    for r in seeds.itertuples(index=False):
        assert r.seed == derive_seed(0, "folds", r.dataset, r.repeat)
    assert store.task_runs()["run"].tolist() == [0] * 6


def test_export_writes_provenance_and_per_instance_hardness(made, tmp_path):
    result = _run("export", "--parquet", tmp_path / "pq", "--store", made)
    assert result.exit_code == 0, result.output
    runs = pd.read_parquet(tmp_path / "pq" / "runs.parquet")
    assert "scikit-learn" in runs.at[0, "environment"]
    hyper = pd.read_parquet(tmp_path / "pq" / "algorithm_hyperparameters.parquet")
    assert sorted(hyper["algorithm"]) == ["3NN", "DT", "NB"]
    assert len(pd.read_parquet(tmp_path / "pq" / "fold_seeds.parquet")) == 2
    h = pd.read_parquet(tmp_path / "pq" / "instance_hardness.parquet")
    assert list(h.columns) == ["dataset", "repeat", "row", "algorithm", "method", "hardness"]
    assert len(h) == (57 + 100) * 3 * len(METHODS)
    y, S, algorithms = Store(made).scores("labor")
    for method in METHODS:
        got = h[(h["dataset"] == "labor") & (h["algorithm"] == "DT")
                & (h["method"] == method)].sort_values("row")
        assert got["row"].tolist() == list(range(57))
        np.testing.assert_array_equal(
            got["hardness"].to_numpy(), instance_hardness(y, S[:, algorithms.index("DT")],
                                                          method))


def test_the_report_section_shows_versions_hyperparameters_and_seeds(made):
    text = provenance_section(Store(made))
    for needle in ("scikit-learn", "NumPy", "SciPy", "DuckDB", "CPU model", "min_samples_leaf",
                   "n_neighbors=3", str(derive_seed(0, "folds", "labor", 0)), "3-fold"):
        assert needle in text, needle
    assert "not recorded" not in text


def test_a_store_of_the_previous_version_opens_and_says_not_recorded(old, tmp_path):
    store = Store(old)
    assert store.runs().empty and store.hyperparameters().empty and store.fold_seeds().empty
    assert store.task_runs()["run"].isna().all()
    text = provenance_section(store)
    assert text.count("not recorded") >= 3
    for command in (["rank"], ["benchmark"], ["hardness"], ["status"],
                    ["hardness", "--instances", "labor"], ["rank", "--time", "wall"]):
        result = _run(*command, "--store", old)
        assert result.exit_code == 0, (command, result.output)
        assert "Traceback" not in result.output
    export = _run("export", "--parquet", tmp_path / "pq", "--store", old)
    assert export.exit_code == 0, export.output
    assert not (tmp_path / "pq" / "runs.parquet").exists()
    assert (tmp_path / "pq" / "instance_hardness.parquet").exists()
    # continuing the old study records the new run; the old tasks stay "not recorded"
    run_study(Study(datasets=["labor", "fertility"], algorithms=["NB", "DT", "3NN", "LR"],
                    folds=3, store=old, executor=LocalExecutor(jobs=1)))
    runs = store.task_runs().set_index(["dataset", "algorithm"])["run"]
    assert runs[("labor", "LR")] == 0 and pd.isna(runs[("labor", "NB")])
    assert "LR" in set(store.hyperparameters()["algorithm"])
    assert len(store.fold_seeds()) == 2


def test_the_report_has_a_how_this_was_made_section(quick_report):
    # the report of a study run by this metaeval: labor and hepatitis, NB, DT, LR
    page = quick_report.read_text()
    assert '<section id="provenance"><h2>How this was made</h2>' in page
    section = page.split('<section id="provenance">', 1)[1].split("</section>", 1)[0]
    for needle in ("scikit-learn", "DuckDB", "CPU model", "min_samples_leaf",
                   str(derive_seed(0, "folds", "hepatitis", 0))):
        assert needle in section, needle


def test_a_store_without_cpu_times_ranks_by_wall_time_and_says_so(old):
    con = duckdb.connect(str(old))
    con.execute("ALTER TABLE timings DROP COLUMN fit_cpu")
    con.execute("ALTER TABLE timings DROP COLUMN predict_cpu")
    con.close()
    assert Store(old).timings()["fit_cpu"].isna().all()
    result = _run("rank", "--store", old, "--time", "cpu")
    assert result.exit_code == 2
    assert "no CPU times recorded" in result.output and "--time wall" in result.output
    default = _run("rank", "--store", old, "--method", "a3r")  # falls back, and says so
    assert default.exit_code == 0, default.output
    assert "using wall-clock time" in default.output and "time: wall-clock" in default.output
    assert _run("rank", "--store", old, "--time", "wall").exit_code == 0
    assert _run("benchmark", "--store", old, "--time", "wall").exit_code == 0
    assert _run("hardness", "--store", old).exit_code == 0
