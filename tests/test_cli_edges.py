"""Command-line edge cases of the store and its options: one line, exit 2."""

from __future__ import annotations

import pandas as pd
import pytest
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.recommend import Condition

runner = CliRunner()


def _one_line_exit_2(result, *words):
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:"), result.output
    for word in words:
        assert word in lines[0], (word, result.output)


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("command", [["status"], ["rank"], ["run", "--datasets", "labor",
                                                            "--algorithms", "NB", "--folds",
                                                            "2", "--jobs", "1", "-q"]])
def test_a_csv_or_parquet_file_given_as_store_is_refused(tmp_path, kind, command):
    path = tmp_path / f"table.{kind}"
    frame = pd.DataFrame({"a": [1, 2], "b": [3, 4]})
    frame.to_csv(path, index=False) if kind == "csv" else frame.to_parquet(path)
    before = path.read_bytes()
    result = runner.invoke(app, [*command, "--store", str(path)])
    _one_line_exit_2(result, str(path), "not a DuckDB database file")
    assert path.read_bytes() == before


def test_a3r_with_a_huge_time_weight_is_a_value_error_not_infinities():
    with pytest.raises(ValueError, match=r"time_weight \(P of A3R\) = 1e\+308 is too large"):
        Condition("accuracy", time_weight=1e308).a3r_values([0.8, 0.9], [0.5, 2.0])
    values = Condition("accuracy", time_weight="1/8").a3r_values([0.8, 0.9], [0.5, 2.0])
    assert values.tolist() == pytest.approx([0.8 / 0.5 ** 0.125, 0.9 / 2.0 ** 0.125])


@pytest.fixture(scope="module")
def study_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("edges") / "s.duckdb"
    result = runner.invoke(app, ["run", "--datasets", "labor,fertility,appendicitis",
                                 "--algorithms", "NB,DT", "--folds", "2", "--jobs", "1", "-q",
                                 "--store", str(path)])
    assert result.exit_code == 0, result.output
    return path


def test_recommend_with_a_huge_time_weight_is_one_line(study_store):
    result = runner.invoke(app, ["recommend", "--evaluate", "--store", str(study_store),
                                 "--time-weight", "1e308"])
    _one_line_exit_2(result, "time_weight", "too large")
