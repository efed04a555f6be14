"""A damaged store, and a full disk, say so: which file, what is wrong, what to do.

Damage is made for real, on a copy of a finished store: the file cut short, or bytes
overwritten in a block of one table (found with DuckDB's own ``storage_info``). A full
disk is a real, tiny tmpfs when this runs as root (``mount -t tmpfs``); elsewhere that
test skips and the progress-file test below simulates ENOSPC at the ``os`` boundary.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.store import Store, StoreDamagedError, StoreFullError

runner = CliRunner()


def _run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    store = tmp_path_factory.mktemp("damage") / "study.duckdb"
    result = _run("run", "--datasets", "labor,fertility", "--algorithms", "NB,DT",
                  "--folds", "3", "--jobs", "1", "--store", store, "--quiet")
    assert result.exit_code == 0, result.output
    return store


def _data_of(path: Path, table: str) -> int:
    """Byte offset of data of ``table`` in a block that no other table uses.

    DuckDB verifies a block's checksum over the part it reads, so the bytes changed must
    be ones the table's data occupy (``pragma_storage_info`` gives block and offset).
    """
    con = duckdb.connect(str(path), read_only=True)
    try:
        block_size = con.execute("SELECT block_size FROM pragma_database_size()").fetchone()[0]
        segments = {}
        for name in ("meta", "datasets", "algorithms", "tasks", "scores", "timings"):
            segments[name] = con.execute(
                f"SELECT block_id, block_offset FROM pragma_storage_info('{name}') "
                "WHERE block_id >= 0 ORDER BY block_id, block_offset").fetchall()
    finally:
        con.close()
    others = {b for name, rows in segments.items() if name != table for b, _ in rows}
    own = [(b, o) for b, o in segments[table] if b not in others]
    assert own, f"no block of its own for {table}: {segments}"
    block, offset = own[-1]
    # three 4 KiB file headers, then the blocks, each starting with its 8-byte checksum
    return 3 * 4096 + block * block_size + 8 + offset


def _damaged(finished: Path, tmp_path: Path, how: str) -> Path:
    path = tmp_path / f"{how}.duckdb"
    shutil.copy(finished, path)
    if how == "truncated":
        os.truncate(path, path.stat().st_size - 100_000)
    else:  # bytes overwritten inside a block of the timings or the scores table
        offset = _data_of(path, how)
        with open(path, "r+b") as fh:
            fh.seek(offset)
            fh.write(b"\x55" * 16)
    return path


COMMANDS = [
    ("status",), ("hardness",), ("rank",), ("benchmark",), ("check",),
    ("plot", "dendrograms", "--out", "{tmp}/d.png", "-o", "dataset=labor"),
    ("report", "--out", "{tmp}/report"),
    ("run", "--datasets", "labor,fertility", "--algorithms", "NB,DT", "--folds", "3",
     "--jobs", "1", "--quiet"),
]


@pytest.mark.parametrize("how", ["truncated", "timings"])
def test_every_command_on_a_damaged_store_exits_3_with_one_message(finished, tmp_path, how):
    path = _damaged(finished, tmp_path, how)
    before = path.read_bytes()
    for command in COMMANDS:
        args = [a.format(tmp=tmp_path) for a in command] + ["--store", path]
        result = _run(*args)
        assert result.exit_code == 3, (command, result.output)
        assert "Traceback" not in result.output
        assert f"The store {path} is damaged" in result.output, (command, result.output)
        if command[0] != "check":
            assert "running the study again into a new store" in result.output
            assert len(result.output.strip().splitlines()) == 1, result.output
    assert not (tmp_path / "report" / "index.html").exists()
    assert path.read_bytes() == before  # nothing wrote to it


def test_damaged_scores_pass_the_quick_check_but_not_the_report(finished, tmp_path):
    path = _damaged(finished, tmp_path, "scores")
    assert _run("status", "--store", path).exit_code == 0  # scores are not read by status
    problems = Store(path).verify()
    assert len(problems) == 1 and problems[0].startswith("table scores: the block at byte")
    check = _run("check", "--store", path)
    assert check.exit_code == 3 and "table scores" in check.output
    report = _run("report", "--store", path, "--out", tmp_path / "report")
    assert report.exit_code == 3, report.output
    assert not (tmp_path / "report" / "index.html").exists()
    hardness = _run("hardness", "--store", path)
    assert hardness.exit_code == 3 and "is damaged" in hardness.output
    with pytest.raises(StoreDamagedError, match="fails its checksum"):
        Store(path).scores("labor")


def test_export_saves_what_is_still_readable(finished, tmp_path):
    path = _damaged(finished, tmp_path, "timings")
    result = _run("export", "--parquet", tmp_path / "pq", "--store", path)
    assert result.exit_code == 3, result.output
    assert "timings (" in result.output and "is damaged" in result.output
    written = sorted(p.name for p in (tmp_path / "pq").iterdir())
    assert written == ["algorithm_hyperparameters.parquet", "algorithms.parquet",
                       "datasets.parquet", "fold_seeds.parquet", "runs.parquet",
                       "scores.parquet", "study.json", "tasks.parquet", "units.parquet"]


def test_a_sound_store_passes_check(finished):
    result = _run("check", "--store", finished)
    assert result.exit_code == 0, result.output
    assert "is sound: 4 tasks (4 done, 0 failed, 0 pending)" in result.output
    assert Store(finished).verify() == []


def test_tables_that_disagree_are_damage(finished, tmp_path):
    path = tmp_path / "rows.duckdb"
    shutil.copy(finished, path)
    con = duckdb.connect(str(path))
    con.execute("DELETE FROM scores WHERE row = 3")
    con.close()
    with pytest.raises(StoreDamagedError, match="table scores has 8 rows fewer|table scores"):
        Store(path).tasks()
    problems = Store(path).verify()
    assert any("scores for rows 0..56 (56 distinct), the dataset has 57 rows" in p
               for p in problems), problems


# ------------------------------------------------------------------------------ disk full
@pytest.fixture
def tiny_disk(tmp_path):
    """A real filesystem of a few hundred KiB (tmpfs); needs root."""
    mount = tmp_path / "disk"
    mount.mkdir()

    def make(size: str) -> Path:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                               str(mount)], capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
        return mount

    yield make
    subprocess.run(["umount", str(mount)], capture_output=True)


def _study_into(store):
    return _run("run", "--datasets", "labor,fertility,haberman", "--algorithms", "NB,DT,3NN",
                "--folds", "3", "--jobs", "1", "--store", store, "--quiet")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="mounting needs root")
def test_a_full_disk_is_named_and_exits_4_leaving_no_temporary_file(tiny_disk):
    disk = tiny_disk("40k")  # too small: a commit or the progress file fails mid-run
    result = _study_into(disk / "s.duckdb")
    assert result.exit_code == 4, result.output
    assert "No space left on the device to write " + str(disk / "s.duckdb") in result.output
    assert "Traceback" not in result.output
    assert not list(disk.glob(".progress-*")) and not (disk / "s.duckdb.progress.json").exists()
    # what was committed before is readable
    Store(disk / "s.duckdb").tasks(include_pending=True)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="mounting needs root")
def test_no_room_to_checkpoint_at_the_end_is_said_and_exits_4(tiny_disk):
    disk = tiny_disk("300k")  # room for the tasks, not for merging the write-ahead log
    result = _study_into(disk / "s.duckdb")
    assert result.exit_code == 4, result.output
    assert "9 done, 0 failed" in result.output
    assert f"the results are safe in {disk / 's.duckdb'}.wal" in result.output
    assert (disk / "s.duckdb.wal").exists()
    tasks = Store(disk / "s.duckdb").tasks()
    assert len(tasks) == 9 and (tasks["status"] == "done").all()


def test_progress_file_on_a_full_disk_names_it_and_leaves_nothing(tmp_path, monkeypatch):
    # Simulated at the os boundary (runs without root): the write of the temporary file
    # fails with ENOSPC.
    store = Store(tmp_path / "s.duckdb")

    def full(fd, *args, **kwargs):
        os.close(fd)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fdopen", full)
    with pytest.raises(StoreFullError) as info:
        store.write_progress({"done": 1})
    assert info.value.errno == errno.ENOSPC
    assert info.value.filename == str(tmp_path / "s.duckdb.progress.json")
    assert os.listdir(tmp_path) == []
