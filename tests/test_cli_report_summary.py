"""``metaeval report --summary`` and ``make run``: a few lines, then the report's path.

The summary's hardest datasets are checked against the pool hardness computed here from
the stored scores, its best algorithm by A3R against ``metaeval rank``.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.hardness import instance_hardness
from metaeval.store import Store

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]


def _run(*args):
    result = runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result


def test_the_summary_is_short_and_the_report_path_comes_last(cli_report):
    # `metaeval report --store S --out R --jobs 1 --quiet --summary` of a study of labor,
    # fertility and haberman x NB, DT, 3NN, 3-fold CV, run once per test run: its stdout
    store = cli_report["store"]
    lines = cli_report["output"].strip().splitlines()
    assert len(lines) <= 6
    assert lines[-1] == f"Report written to {cli_report['out'] / 'index.html'}"
    assert lines[0].startswith("Tasks: 9 of 9 done (3 datasets x 3 algorithms)")
    assert f"metaeval hardness --store {store}" in lines[-2]

    # the three hardest datasets, as computed here from the scores
    st = Store(store)
    means = {}
    for name in ("labor", "fertility", "haberman"):
        y, S, _ = st.scores(name)
        pool = np.mean([instance_hardness(y, S[:, j], "rate-driven")
                        for j in range(S.shape[1])], axis=0)
        means[name] = float(pool.mean())
    hardest = sorted(means, key=means.get, reverse=True)
    stated = next(line for line in lines if "hardest datasets" in line)
    assert stated.startswith("The 3 hardest datasets")
    assert re.findall(r"(\w+) (0\.\d{3})", stated) == [(n, f"{means[n]:.3f}") for n in hardest]

    # the best algorithm by A3R, as metaeval rank says
    ranked = _run("rank", "--store", store, "--method", "a3r", "--draws", "50").stdout
    first = next(line for line in ranked.splitlines() if re.match(r"\W*1\W", line))
    cells = [c.strip() for c in re.split(r"[│┃]", first) if c.strip()]
    best = next(line for line in lines if line.startswith("Best algorithm by A3R"))
    said = re.search(r": (\S+) \(A3R (\d+\.\d{3})\)\.", best)
    assert said and said.group(1) == cells[1], best
    # one score, rounded by the table to its digits and by the summary to 3: rounding the
    # table's figure again to 3 digits may differ in the last one (1.0485 -> 1.048 for a
    # score of 1.04853 that the summary rightly gives as 1.049)
    digits = len(cells[2].split(".")[1])
    assert abs(float(said.group(2)) - float(cells[2])) <= 5e-4 + 0.5 * 10.0**-digits + 1e-12
    assert "CPU time" in best


def test_one_dataset_is_not_plural(tmp_path):
    path = tmp_path / "one.duckdb"
    _run("run", "--datasets", "labor", "--algorithms", "NB,DT", "--folds", "2", "--jobs",
         "1", "--quiet", "--store", path)
    out = _run("report", "--store", path, "--out", tmp_path / "r", "--jobs", "1", "--quiet",
               "--summary").stdout
    assert "(1 dataset x 2 algorithms)" in out and "over 1 run " in out
    assert "The hardest dataset (" in out
    assert "1 datasets" not in out and "1 runs" not in out
    page = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert " · 1 dataset · " in page and "1 datasets" not in page
    status = _run("status", "--store", path).stdout
    assert "Study: 1 dataset x 2 algorithms x 1 repeat, 2-fold CV" in status


def test_make_run_prints_the_summary_not_the_tables():
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = text.split("\nrun:", 1)[1].split("\n\n", 1)[0]
    commands = [line.strip() for line in recipe.splitlines()[1:] if line.startswith("\t")]
    assert not any("metaeval hardness" in c for c in commands)
    assert not any(c.startswith("@echo") for c in commands)
    assert "metaeval report" in commands[-1] and "--summary" in commands[-1]
