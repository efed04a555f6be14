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


# ------------------------------------------------------------------ outputs never replace
import hashlib  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from metaeval.cli._outputs import check_output, kind_of, package_folder  # noqa: E402

SHIPPED = package_folder() / "recommend" / "data" / "knowledge.npz"

#: (command, output option, the arguments with STORE and VICTIM to fill in, the suffix
#: the output must have, whether it is a folder)
COMMANDS = {
    "knowledge build --out": (["knowledge", "build", "--store", "STORE", "--out", "VICTIM",
                               "-q"], ".npz", False),
    "knowledge build --evaluations": (["knowledge", "build", "--store", "STORE", "--out",
                                       "OTHER", "--evaluations", "VICTIM", "-q"],
                                      ".json", False),
    "recommend --evaluate --json": (["recommend", "--evaluate", "--store", "STORE",
                                     "--json", "VICTIM"], ".json", False),
    "recommend --evaluate --knowledge --json": (["recommend", "--evaluate", "--knowledge",
                                                 "KNOWLEDGE", "--json", "VICTIM"],
                                                ".json", False),
    "export --parquet": (["export", "--store", "STORE", "--parquet", "VICTIM",
                          "--no-hardness"], "", True),
    "export --aslib": (["export", "--store", "STORE", "--aslib", "VICTIM"], "", True),
    "report --out": (["report", "--store", "STORE", "--out", "VICTIM", "--jobs", "1", "-q",
                      "--no-cache"], "", True),
    "plot --out": (["plot", "arr", "--store", "STORE", "--out", "VICTIM"], ".png", False),
}
VICTIMS = ("input", "store", "csv", "arff", "parquet", "knowledge", "aslib", "package")


def _digest(path: Path) -> str:
    """The checksum of a file, or of a folder's names and contents."""
    h = hashlib.sha256()
    if path.is_dir():
        for item in sorted(path.rglob("*")):
            h.update(str(item.relative_to(path)).encode())
            if item.is_file():
                h.update(item.read_bytes())
    elif path.exists():
        h.update(path.read_bytes())
    else:
        h.update(b"absent")
    return h.hexdigest()


def _victim(kind: str, where: Path, store: Path, knowledge: Path, suffix: str,
            folder: bool, input_: Path) -> Path:
    if kind == "package":
        if folder:
            return SHIPPED.parent
        return SHIPPED if suffix == ".npz" else SHIPPED.with_name(f"victim{suffix}")
    if kind == "input":  # the input itself, through a symbolic link named as an output
        link = where / f"link{suffix}"
        link.symlink_to(input_)
        return link
    name = {"store": "other", "csv": "victim", "arff": "victim", "parquet": "victim",
            "knowledge": "kb", "aslib": "scenario"}[kind]
    natural = {"csv": ".csv", "arff": ".arff", "parquet": ".parquet"}.get(kind, "")
    path = where / f"{name}{suffix or natural}"
    if kind == "store":
        shutil.copy(store, path)
    elif kind == "csv":
        path = path.with_suffix(".csv")
        path.write_text("a,class\n1,0\n2,1\n")
    elif kind == "arff":
        path = path.with_suffix(".arff")
        path.write_text("@relation x\n@attribute a numeric\n@data\n1\n")
    elif kind == "parquet":
        import pandas as pd

        pd.DataFrame({"a": [1, 2], "class": [0, 1]}).to_parquet(path)
    elif kind == "knowledge":
        shutil.copy(knowledge, path)
    elif kind == "aslib":
        path.mkdir()
        (path / "description.txt").write_text("scenario_id: x\n")
        (path / "algorithm_runs.arff").write_text("@relation runs\n")
    return path


@pytest.fixture(scope="module")
def small_knowledge(tmp_path_factory) -> Path:
    """A knowledge base file of another name than the shipped one (a copy of it)."""
    path = tmp_path_factory.mktemp("kb") / "knowledge.npz"
    shutil.copy(SHIPPED, path)
    return path


@pytest.mark.parametrize("victim", VICTIMS)
@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_output_never_replaces_an_input_the_package_or_a_file_of_another_kind(
        command, victim, cli_store, small_knowledge, tmp_path):
    args, suffix, folder = COMMANDS[command]
    own = {"knowledge build --out": "knowledge", "plot --out": None}.get(command)
    if victim == own:
        pytest.skip("a file of the output's own kind may be written over")
    where = tmp_path
    store = where / "study.duckdb"
    shutil.copy(cli_store, store)
    knowledge = where / "k.npz"
    shutil.copy(small_knowledge, knowledge)
    path = _victim(victim, where, store, knowledge, suffix, folder,
                   knowledge if "KNOWLEDGE" in args else store)
    before = {p: _digest(p) for p in (path, store, knowledge)}
    argv = [{"STORE": str(store), "VICTIM": str(path), "KNOWLEDGE": str(knowledge),
             "OTHER": str(where / "new.npz")}.get(a, a) for a in args]
    result = runner.invoke(app, argv, env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error:"), result.output
    assert str(path) in lines[0] or path.name in lines[0], lines[0]
    reason = {"input": ("an input of this command",),
              "package": ("inside the installed metaeval package",)}.get(
        victim, ("exists and is", "is a directory", "is a file, not a directory",
                 "must end in"))
    assert any(words in lines[0] for words in reason), lines[0]
    assert "Traceback" not in result.output
    assert {p: _digest(p) for p in before} == before
    assert not (where / "new.npz").exists()


def test_the_reason_is_said_for_each_kind_of_victim(cli_store, small_knowledge, tmp_path):
    link = tmp_path / "store.json"
    link.symlink_to(cli_store)
    with pytest.raises(ValueError, match=r"^--json: .*store\.json is the file of --store "
                       r".*an input of this command"):
        check_output(link, "--json", "json", [(cli_store, "--store")])
    # another spelling of the same path, and a hard link
    spelled = Path(os.path.relpath(cli_store)).parent / ".." / cli_store.parent.name / \
        cli_store.name
    with pytest.raises(ValueError, match="an input of this command"):
        check_output(spelled, "--out", "store", [(cli_store, "--store")])
    hard = tmp_path / "hard.json"
    os.link(small_knowledge, hard)
    with pytest.raises(ValueError, match="an input of this command"):
        check_output(hard, "--json", "json", [(small_knowledge, "--knowledge")])
    with pytest.raises(ValueError, match="inside the installed metaeval package"):
        check_output(SHIPPED, "--out", "knowledge")
    with pytest.raises(ValueError, match="exists and is a metaeval store .*not a JSON"):
        check_output(cli_store, "--json", "json")
    with pytest.raises(ValueError, match="exists and is a knowledge base file, not a JSON"):
        check_output(small_knowledge, "--json", "json")
    assert kind_of(cli_store) == "store" and kind_of(small_knowledge) == "knowledge"


def test_an_output_of_the_same_kind_may_be_written_over(cli_store, small_knowledge,
                                                        tmp_path):
    check_output(small_knowledge, "--out", "knowledge", [(cli_store, "--store")])
    old = tmp_path / "old.json"
    old.write_text("{}\n")
    check_output(old, "--json", "json", [(cli_store, "--store")])
    check_output(tmp_path / "new.json", "--json", "json", [(cli_store, "--store")])
    figure = tmp_path / "arr.png"
    for _ in range(2):  # the second time over the first one's figure
        result = runner.invoke(app, ["plot", "arr", "--store", str(cli_store), "--out",
                                     str(figure)], env={"COLUMNS": "400"})
        assert result.exit_code == 0, result.output
    assert kind_of(figure) == "figure"
