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


def test_a_bad_knowledge_file_is_said_before_the_data_file_is_said_read(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("a,b,class\n1,2,0\n2,3,1\n3,1,0\n4,4,1\n5,2,0\n6,1,1\n")
    bad = tmp_path / "bad.npz"
    bad.write_text("garbage\n")
    result = runner.invoke(app, ["recommend", str(data), "--knowledge", str(bad)],
                           env={"COLUMNS": "400"})
    assert result.exit_code == 2
    assert "not a metaeval knowledge base" in result.output
    assert "done" not in result.output, result.output
