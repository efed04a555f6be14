"""A store that cannot be written, or a path that is not a store: one line, exit 2."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.datasets import load_dataset
from metaeval.study import LocalExecutor, Study, run_study


@pytest.fixture(scope="module")
def base_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("access") / "base.duckdb"
    run_study(Study(datasets=["labor"], algorithms=["NB"], folds=2,
                    executor=LocalExecutor(jobs=1), store=path))
    return path


def _table(path: Path) -> Path:
    y = load_dataset("labor").y.astype(int)
    pd.DataFrame({"dataset": "labor", "row": np.arange(len(y)), "fold": np.arange(len(y)) % 2,
                  "algorithm": "ext", "score": np.linspace(0, 1, len(y)), "y": y}
                 ).to_csv(path, index=False)
    return path


def _commands(store: Path, table: Path) -> dict[str, list[str]]:
    return {"run": ["run", "--datasets", "labor", "--algorithms", "NB,LR", "--folds", "2",
                    "--jobs", "1", "--store", str(store), "-q"],
            "import": ["import", str(table), "--store", str(store)]}


def _one_line(output: str, *words) -> None:
    lines = [line for line in output.strip().splitlines() if "RuntimeWarning" not in line
             and not line.startswith("  return")]
    assert len(lines) == 1 and lines[0].startswith("Error:"), output
    for word in words:
        assert word in lines[0], (word, output)


@pytest.mark.parametrize("command", ["run", "import"])
def test_an_immutable_store_file_is_one_line_exit_2(base_store, tmp_path, command):
    store = tmp_path / "s.duckdb"
    shutil.copy(base_store, store)
    if shutil.which("chattr") is None or subprocess.run(
            ["chattr", "+i", str(store)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available here")
    try:
        result = CliRunner().invoke(app, _commands(store, _table(tmp_path / "t.csv"))[command])
    finally:
        subprocess.run(["chattr", "-i", str(store)], check=True)
    assert result.exit_code == 2, result.output
    _one_line(result.output, str(store), "Operation not permitted")


@pytest.mark.parametrize("command", ["run", "import"])
def test_a_store_in_a_read_only_directory_is_one_line_exit_2(base_store, command, request):
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to run the command as another user")
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    if subprocess.run([*as_nobody, sys.executable, "-c", "import metaeval.cli"],
                      capture_output=True, timeout=120).returncode != 0:
        # a checkout in a private folder (mode 0700, as mktemp -d makes): the other user
        # cannot read metaeval's sources at all, so nothing here could be tested
        pytest.skip("the user 'nobody' cannot import metaeval from this checkout")
    # not under pytest's temporary folder: pytest (of this or another session) resets
    # its folder to mode 0700, which the other user cannot enter
    outside = Path(tempfile.mkdtemp(prefix="metaeval-ro-"))
    request.addfinalizer(lambda: shutil.rmtree(outside, ignore_errors=True))
    outside.chmod(0o755)
    folder = outside / "ro"
    folder.mkdir()
    store = folder / "s.duckdb"
    shutil.copy(base_store, store)
    table = _table(outside / "t.csv")
    store.chmod(0o666)
    table.chmod(0o644)
    folder.chmod(0o555)
    request.addfinalizer(lambda: folder.chmod(0o755))
    before = store.read_bytes()
    script = "import sys; from metaeval.cli import main; sys.argv[0] = 'metaeval'; main()"
    result = subprocess.run(
        [*as_nobody, sys.executable, "-W", "ignore", "-c", script,
         *_commands(store, table)[command]],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "HOME": str(outside), "PYTHONWARNINGS": "ignore"})
    assert result.returncode == 2, result.stdout + result.stderr
    _one_line(result.stderr, "Permission denied", ".wal")
    assert store.read_bytes() == before
