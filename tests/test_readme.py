"""The README's examples work as written.

Each Python block runs as a plain script (``python block.py``) in an empty directory, as
a reader who copies it would run it: no ``if __name__ == "__main__":`` guard, a fresh
interpreter, the default executor (worker processes). Each TOML block is a valid study
file, and each command of the shell blocks is one the command line accepts.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.store import Store
from metaeval.study import Study

README = Path(__file__).resolve().parents[1] / "README.md"
TEXT = README.read_text(encoding="utf-8")


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", TEXT, re.S)


@pytest.mark.parametrize("index", range(len(_blocks("python"))))
def test_readme_python_block_runs_as_a_plain_script(index, tmp_path):
    block = _blocks("python")[index]
    script = tmp_path / f"block{index}.py"
    script.write_text(block, encoding="utf-8")
    done = subprocess.run([sys.executable, script.name], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    if "run_study" in block:
        store = Store(tmp_path / "metaeval-results" / "notebook-study.duckdb")
        tasks = store.tasks()
        assert len(tasks) == 6 and (tasks["status"] == "done").all(), tasks
        y, S, algorithms = store.scores("labor")
        assert S.shape == (57, 3) and algorithms == ["NB", "DT", "3NN"]


def test_readme_has_both_kinds_of_python_block():
    blocks = _blocks("python")
    assert any("instance_hardness" in b for b in blocks)
    assert any("run_study" in b and "__main__" not in b for b in blocks)
    # the notebook route of the recommendation: a DataFrame as it is, the knowledge base
    assert any("recommend(df, target=" in b and "evaluate_recommenders(load_knowledge()" in b
               for b in blocks)


def test_readme_study_files_are_valid_studies(tmp_path):
    blocks = _blocks("toml")
    assert len(blocks) >= 2
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "churn.csv").write_text(
        "minutes,plan,churned\n" + "".join(
            f"{i},{'ab'[i % 2]},{'yes' if i % 3 == 0 else 'no'}\n" for i in range(30)))
    studies = []
    for i, block in enumerate(blocks):
        path = tmp_path / f"study{i}.toml"
        path.write_text(block, encoding="utf-8")
        studies.append(Study.from_toml(path))
    assert studies[0].algorithm_names == ["RF", "MLP"]
    assert (studies[0].folds, studies[0].timeout) == (10, 1800)
    assert studies[0].executor.n_jobs == 4
    assert studies[0].store == tmp_path / "metaeval-results" / "my-study.duckdb"
    churn = studies[1].datasets[-1]
    assert churn.name == "churn" and churn.class_names == ("no", "yes")
    # without `store`, a study file writes to metaeval-results/<its stem>.duckdb
    assert studies[1].store == Path("metaeval-results") / "study1.duckdb"


def test_readme_commands_are_accepted_one_per_line():
    runner = CliRunner()
    commands = [line.split("#")[0].strip() for block in _blocks("bash")
                for line in block.splitlines()]
    commands = [c for c in commands if c.startswith("metaeval")]
    assert len(commands) >= 10
    for command in commands:
        args = shlex.split(command)[1:]
        assert "|" not in args, f"one command per line: {command}"
        if args != ["--version"]:
            args.append("--help")
        result = runner.invoke(app, args)
        assert result.exit_code == 0, (command, result.output)


def test_readme_quick_start_is_make_run_and_make_test():
    quick = TEXT.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", quick, re.S).group(1)
    assert [line.split("#")[0].strip() for line in block.splitlines()] == ["make run",
                                                                            "make test"]


def test_readme_documents_every_exit_code():
    from metaeval.cli._app import EXIT_CODES

    table = TEXT.split("### Exit codes", 1)[1].split("\n## ", 1)[0]
    documented = {int(code) for code in re.findall(r"^\| (\d+) \|", table, re.M)}
    assert documented == set(EXIT_CODES)
