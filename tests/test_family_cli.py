"""``metaeval rank --by-family`` and ``metaeval benchmark --by-family`` on a small store.

The store is built here from imported predictions: three datasets, six configurations
in three families (``knn``, ``lr``, ``rf``), 3-fold. The family table of ``rank`` is
checked against the family ranking computed independently from the stored scores.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.ranking import rank_families
from metaeval.store import Store

runner = CliRunner()

ALGORITHMS = ["knn:k=1", "knn:k=5", "lr:C=1", "lr:C=10", "rf:trees=10", "rf:trees=50"]


def build_family_store(path, algorithms, datasets=("labor", "fertility", "haberman"),
                       folds=3, seed=0):
    """A store of imported predictions; a family's members share its quality."""
    from metaeval.datasets import load_dataset

    rng = np.random.default_rng(seed)
    fams = list(dict.fromkeys(a.split(":")[0] for a in algorithms))
    store = Store(path)
    with store.writing():
        store._writer().execute("INSERT INTO meta VALUES ('study', ?)",
                                [f'{{"folds": {folds}}}'])
        for ds in datasets:
            y = load_dataset(ds).y.astype(int)
            n = len(y)
            fold = rng.permutation(np.arange(n) % folds)
            frames = []
            for j, a in enumerate(algorithms):
                q = 0.15 + 0.25 * fams.index(a.split(":")[0]) / max(1, len(fams) - 1)
                s = np.clip(0.5 + (2 * y - 1) * (q + 0.05 * (j % 2)) + 0.35 * rng.normal(size=n),
                            0, 1)
                frames.append(pd.DataFrame({"dataset": ds, "algorithm": a, "row": np.arange(n),
                                            "fold": fold, "score": s,
                                            "fit_time": 0.01 * (1 + j)}))
            store.import_predictions(pd.concat(frames), format="long")
    return path


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return build_family_store(tmp_path_factory.mktemp("family") / "f.duckdb", ALGORITHMS)


def _run(*args):
    return runner.invoke(app, [str(a) for a in args])


def _rows(output, title):
    """The first two cells of each row of the table titled ``title``."""
    block = output.split(title, 1)[1]
    rows = []
    for line in block.splitlines():
        cells = [c.strip() for c in re.split(r"[│┃]", line) if c.strip()]
        if len(cells) >= 3 and cells[0].replace(".", "").isdigit():
            rows.append(cells)
        elif rows and line.startswith("└"):
            break
    return rows


def _success(path):
    sf = Store(path).scores_frame()
    rows = [{"dataset": d, "algorithm": a, "fold": f,
             "value": accuracy_score(g["y"], (g["score"] > 0.5).astype(int))}
            for (d, a, f), g in sf.groupby(["dataset", "algorithm", "fold"])]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("how", ["best", "mean"])
def test_rank_by_family_matches_the_family_ranking_of_the_scores(store, how):
    fams = {a: a.split(":")[0] for a in ALGORITHMS}
    expected = rank_families(_success(store), fams, method="ar", how=how)
    result = _run("rank", "--store", store, "--method", "ar", "--by-family", how,
                  "--draws", "50")
    assert result.exit_code == 0, result.output
    rows = _rows(result.output, "AR, measure: accuracy")
    assert [r[1] for r in rows] == expected["family"].tolist()
    assert [float(r[-2]) for r in rows] == pytest.approx(expected["score"].tolist(), abs=1e-4)
    assert [r[2] for r in rows] == ["2", "2", "2"]  # configurations
    if how == "best":  # the member best on most datasets, one of the family's
        assert all(r[3] in ALGORITHMS and r[3].startswith(r[1] + ":") for r in rows)
    else:  # no per-algorithm table, no member column
        assert len(rows[0]) == 5 and not any(a in result.output for a in ALGORITHMS)


def test_rank_by_family_every_method(store):
    result = _run("rank", "--store", store, "--by-family", "best", "--draws", "20")
    assert result.exit_code == 0, result.output
    for title in ("AR,", "SRR,", "SW,", "ARR (AccD=0.1),", "A3R (n=8),"):
        assert f"each family by its best member on each dataset: {title}" in result.output


def test_benchmark_by_family(store):
    best = _run("benchmark", "--store", store, "--by-family", "best")
    mean = _run("benchmark", "--store", store, "--by-family", "mean")
    assert best.exit_code == 0, best.output
    assert mean.exit_code == 0, mean.output
    b = {r[1]: r for r in _rows(best.output, "Value captured by family")}
    m = {r[1]: r for r in _rows(mean.output, "Value captured by family")}
    assert set(b) == set(m) == {"knn", "lr", "rf"}
    for fam, row in b.items():
        assert row[2] == "2"
        assert row[5].startswith(fam + ":")  # its best member
        score, member, members_mean = float(row[3]), float(row[6]), float(row[7])
        assert score >= member >= members_mean
        assert score >= float(m[fam][3])  # best member per cell never below the mean
    assert "Metrics by family" in best.output and "Greedy portfolio of families" in best.output
    assert "Runtime score" not in best.output  # the family tables replace the others


@pytest.mark.parametrize("command", ["rank", "benchmark"])
def test_a_bad_by_family_value_is_one_line_and_exit_2(store, command):
    result = _run(command, "--store", store, "--by-family", "median")
    assert result.exit_code == 2
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "--by-family must be one of best, mean" in lines[0]


def test_one_family_only_is_a_clear_error(tmp_path):
    path = build_family_store(tmp_path / "one.duckdb", ["knn:k=1", "knn:k=5"],
                              datasets=("labor", "fertility"))
    result = _run("rank", "--store", path, "--by-family", "best", "--method", "ar")
    assert result.exit_code == 2
    assert "all belong to the family 'knn'" in result.output
