"""Spread beside every mean, --time cpu|wall, and the hardest instances, on a real study.

Each printed number is checked against the same quantity computed here from the
stored scores and timings.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from metaeval.benchmark import compute_metrics, task_times, value_captured
from metaeval.cli import app
from metaeval.hardness import instance_hardness
from metaeval.ranking import a3r
from metaeval.store import Store

runner = CliRunner()


def _run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def store(cli_store):
    """labor, fertility and haberman x NB, DT, 3NN, 3-fold CV, run by ``metaeval run``
    once per test run: only read it."""
    return cli_store


def _rows(output, title):
    """Cells of the rows of the table whose title contains ``title``."""
    block = output.split(title, 1)[1]
    rows = []
    for line in block.splitlines()[1:]:
        if line.startswith("└"):
            break
        if line.startswith("│"):
            rows.append([c.strip() for c in line.strip("│").split("│")])
    return rows


def _accuracy(path):
    sf = Store(path).scores_frame()
    m = compute_metrics(sf, metrics=["accuracy"], level="fold")
    return m[["dataset", "algorithm", "fold", "value"]]


@pytest.mark.parametrize("clock, words", [("cpu", "CPU seconds"), ("wall", "wall-clock")])
def test_rank_a3r_uses_the_time_asked_for_and_says_which(store, clock, words):
    args = ["rank", "--store", store, "--method", "a3r"]
    result = _run(*args, *(["--time", clock] if clock == "wall" else []))  # cpu: default
    assert result.exit_code == 0, result.output
    title = next(line for line in result.output.splitlines() if line.startswith("A3R"))
    assert words in title
    times = task_times(Store(store).timings(), clock=clock)
    expected = a3r(_accuracy(store), times, n=8)
    rows = _rows(result.output, "A3R (n=8)")
    assert [r[1] for r in rows] == expected["algorithm"].tolist()
    np.testing.assert_allclose([float(r[2]) for r in rows], expected["score"], atol=5e-5)
    for r in rows:  # the interval: "low to high"
        low, high = map(float, r[3].split(" to "))
        assert low <= high


def test_rank_prints_a_bootstrap_interval_for_every_method(store):
    result = _run("rank", "--store", store, "--draws", "200")
    assert result.exit_code == 0, result.output
    for title in ("AR,", "SRR,", "SW,", "ARR (AccD=0.1)", "A3R (n=8)"):
        rows = _rows(result.output, title)
        assert len(rows) == 3 and all(re.fullmatch(r"[-\d.]+ to [-\d.]+", r[3]) for r in rows)
    ar = _rows(result.output, "AR,")
    assert all(1.0 <= float(x) <= 3.0 for r in ar for x in r[3].split(" to "))
    assert "95 % bootstrap over the 3 datasets (200 draws" in result.output


@pytest.mark.parametrize("args, message", [
    (["rank", "--time", "gpu"], "--time must be one of cpu, wall"),
    (["benchmark", "--time", "gpu"], "--time must be one of cpu, wall"),
    (["hardness", "--top", "3"], "--method and --top go with --instances"),
    (["hardness", "--instances", "labor", "--method", "best"], "--method must be one of"),
    (["hardness", "--instances", "nosuch"], "'nosuch' is not in the store"),
    (["hardness", "--instances", "labor", "--top", "0"], "--top must be a positive"),
])
def test_bad_options_exit_2_with_one_line(store, args, message):
    result = _run(*args, "--store", store)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_hardness_instances_lists_the_hardest_by_pool_hardness(store):
    result = _run("hardness", "--store", store, "--instances", "labor", "--method",
                  "rate-driven", "--top", "4")
    assert result.exit_code == 0, result.output
    y, S, algorithms = Store(store).scores("labor")
    H = instance_hardness(y, S, "rate-driven")
    pool = H.mean(axis=1)
    rows = _rows(result.output, "the 4 hardest of 57 instances under rate-driven")
    assert len(rows) == 4
    got = [int(r[0]) for r in rows]
    assert got == np.argsort(-pool, kind="stable")[:4].tolist()
    for r in rows:
        i = int(r[0])
        assert int(r[1]) == y[i]
        np.testing.assert_allclose([float(x) for x in r[2:]], [pool[i], *H[i]], atol=5e-5)
    every = _run("hardness", "--store", store, "--instances", "labor")
    assert every.output.count("hardest of 57 instances") == 5


def test_hardness_shows_the_sd_over_folds_and_over_datasets(store):
    result = _run("hardness", "--store", store)
    assert result.exit_code == 0, result.output
    sf = Store(store).scores_frame("labor")
    nb = sf[sf["algorithm"] == "NB"].sort_values("row")
    h = instance_hardness(nb["y"].to_numpy(), nb["score"].to_numpy(), "score-fixed")
    per_fold = pd.Series(h).groupby(nb["fold"].to_numpy()).mean()
    row = next(r for r in _rows(result.output, "labor (n = 57;") if r[0] == "NB")
    mean, sd = (float(x) for x in row[1].split("±"))
    assert mean == pytest.approx(h.mean(), abs=5e-5)
    assert sd == pytest.approx(per_fold.std(ddof=1), abs=5e-5)
    over = _rows(result.output, "Over the 3 datasets")
    assert {r[0] for r in over} == {"NB", "DT", "3NN"}


def test_benchmark_value_captured_sd_over_datasets(store):
    result = _run("benchmark", "--store", store)
    assert result.exit_code == 0, result.output
    from metaeval.benchmark import SKLEARN_METRICS

    vc = value_captured(compute_metrics(Store(store).scores_frame(),
                                        metrics=list(SKLEARN_METRICS)))
    per_dataset = vc.groupby(["algorithm", "dataset"])["value"].mean()
    rows = _rows(result.output, "Value captured")
    for r in rows:
        assert float(r[3]) == pytest.approx(per_dataset[r[1]].std(ddof=1), abs=5e-4)
    assert "CPU seconds" in result.output  # the runtime score says which time
    assert "mean over all 3 datasets (fewer than --n-slowest 20)" in result.output
    portfolio = _rows(result.output, "Greedy portfolio")
    assert len(portfolio) == 3 and all(len(r) == 5 for r in portfolio)
