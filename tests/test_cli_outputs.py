"""Files a command writes, study files and knowledge files read by the command line.

An output never replaces an input of the same command, a file inside the installed
package or an existing file of another kind; a study file that gives a key twice says
what to change; a bad knowledge file is reported before its reading is said done.
"""

from __future__ import annotations

from typer.testing import CliRunner

from metaeval.cli import app

runner = CliRunner()


def test_a_study_file_with_a_list_and_tables_of_datasets_says_what_to_change(tmp_path):
    path = tmp_path / "both.toml"
    path.write_text('name = "x"\ndatasets = ["a.csv"]\n[[datasets]]\npath = "b.csv"\n')
    result = runner.invoke(app, ["run", str(path), "--store", str(tmp_path / "s.duckdb")],
                           env={"COLUMNS": "400"})
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert str(path) in lines[0] and "line 3" in lines[0]
    assert "'datasets' is given twice" in lines[0] and "keep one form" in lines[0]
    assert "immutable namespace" not in lines[0]
    assert not (tmp_path / "s.duckdb").exists()
