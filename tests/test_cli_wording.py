"""Wording of the command line: a mistyped choice gets "did you mean", and the README's
commands, run from the repository root, write only into metaeval-results/ (ignored by git).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.cli._app import did_you_mean, plural

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("wording") / "study.duckdb"
    result = runner.invoke(app, ["run", "--datasets", "labor", "--algorithms", "NB,DT",
                                 "--folds", "2", "--jobs", "1", "--quiet", "--store",
                                 str(path)])
    assert result.exit_code == 0, result.output
    return path


@pytest.mark.parametrize("args, suggestion", [
    (["rank", "--measure", "accuarcy"], "Did you mean 'accuracy'?"),
    (["rank", "--method", "a3"], "Did you mean 'a3r'?"),
    (["rank", "--time", "wal"], "Did you mean 'wall'?"),
    (["report", "--time", "cpuu"], "Did you mean 'cpu'?"),
    (["hardness", "--instances", "labor", "--method", "rate-drivn"],
     "Did you mean 'rate-driven'?"),
    (["hardness", "--instances", "labr"], "Did you mean 'labor'?"),
    (["plot", "dendrogram", "--out", "x.svg"], "Did you mean 'dendrograms'?"),
])
def test_a_mistyped_choice_gets_did_you_mean(store, tmp_path, args, suggestion):
    result = runner.invoke(app, [*args, "--store", str(store)])
    assert result.exit_code == 2
    assert suggestion in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "x.svg").exists()


def test_nothing_close_gets_no_suggestion():
    assert did_you_mean("zzzz", ["accuracy", "auc"]) == ""
    assert did_you_mean("AUC", ["accuracy", "auc"]) == ""  # not a guess on case alone
    assert did_you_mean("acuracy", ["accuracy", "auc"]) == " Did you mean 'accuracy'?"


def test_plural_forms():
    assert [plural(n, "dataset") for n in (0, 1, 2)] == ["0 datasets", "1 dataset",
                                                         "2 datasets"]


def _readme_paths():
    """Paths the README's commands and scripts write or name, with the command."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.splitlines():
            command = line.split("  #")[0].strip()
            if not command.startswith("metaeval"):
                continue
            args = shlex.split(command)
            flags = ["--out", "--store", "--parquet", "--json"]
            if args[1] == "export":
                flags.append("--aslib")  # written there (recommend --aslib reads one)
            for flag in flags:
                if flag in args:
                    found.append((command, args[args.index(flag) + 1]))
    for block in re.findall(r"```(?:python|toml)\n(.*?)```", text, re.S):
        found += [(line.strip(), m) for line in block.splitlines()
                  for m in re.findall(r"store\s*=\s*\"([^\"]+)\"", line)]
        found += [(line.strip(), m) for line in block.splitlines()
                  for m in re.findall(r"Store\(\"([^\"]+)\"\)", line)]
    return found


def test_readme_commands_write_into_metaeval_results():
    found = _readme_paths()
    assert len(found) >= 5
    outside = [(c, p) for c, p in found if not p.startswith("metaeval-results/")]
    assert outside == []
    assert "metaeval-results/" in (ROOT / ".gitignore").read_text().splitlines()


@pytest.mark.parametrize("args, suggestion", [
    (["rnak"], "Did you mean 'rank'?"),
    (["datasets", "shwo"], "Did you mean 'show'?"),
])
def test_a_mistyped_command_gets_did_you_mean(args, suggestion):
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert suggestion in result.output
