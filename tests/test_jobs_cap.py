"""``--jobs`` above the usable cores is lowered to them, with one line; a stop signal ends
every worker process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.cli._jobs import cap_jobs, usable_cores

runner = CliRunner()


def test_cap_jobs_lowers_to_the_usable_cores_and_says_so(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    said = []
    assert cap_jobs(1000, say=said.append) == 2
    assert said == ["Note: --jobs 1000 is more than the 2 usable core(s) of this machine; "
                    "2 worker process(es) are used."]
    assert cap_jobs(2, say=said.append) == 2 and cap_jobs(None, say=said.append) is None
    assert len(said) == 1
    with pytest.raises(ValueError, match="--jobs must be a positive integer, got 0"):
        cap_jobs(0)


@pytest.mark.parametrize("args", [
    ["recommend", "--evaluate", "--knowledge", "BAD"],
    ["knowledge", "build", "--store", "MISSING", "--out", "OUT"],
    ["report", "--store", "MISSING", "--out", "OUT", "--no-cache"],
    ["run", "--datasets", "MISSING", "--algorithms", "NB", "--store", "OUT"],
], ids=lambda a: " ".join(a[:2]))
def test_every_command_with_jobs_caps_them_in_one_line(args, tmp_path, monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    bad = tmp_path / "bad.npz"
    bad.write_text("garbage\n")
    names = {"BAD": bad, "MISSING": tmp_path / "missing.duckdb", "OUT": tmp_path / "out"}
    argv = [str(names.get(a, a)) for a in args] + ["--jobs", "1000"]
    result = runner.invoke(app, argv, env={"COLUMNS": "400"})
    assert ("Note: --jobs 1000 is more than the 2 usable core(s) of this machine; 2 worker "
            "process(es) are used.") in result.output, result.output
    assert result.output.count("--jobs 1000") == 1


def test_a_study_files_jobs_are_capped_as_jobs_is(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    study = tmp_path / "study.toml"
    study.write_text('datasets = ["labor"]\nalgorithms = ["NB"]\nfolds = 2\n'
                     f'store = "{tmp_path / "s.duckdb"}"\n[executor]\njobs = 64\n')
    result = runner.invoke(app, ["run", str(study)], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert ("Note: jobs (study file) 64 is more than the 1 usable core(s) of this machine; "
            "1 worker process(es) are used.") in result.output, result.output
    assert "1 local process;" in result.output


def _group(leader: int) -> dict[int, str]:
    """The live processes of the process group ``leader`` leads: pid -> command line."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == leader and fields[0] not in ("Z", "X"):
            found[int(entry.name)] = cmdline
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="Linux /proc")
def test_sigterm_ends_every_worker_of_recommend_evaluate():
    process = subprocess.Popen(
        [sys.executable, "-m", "metaeval", "recommend", "--evaluate", "--jobs", "3",
         "--strategy", "single-best"], start_new_session=True, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env={**os.environ, "COLUMNS": "400"})
    try:
        workers = {}
        for _ in range(1200):  # until its workers run (about 20 s on a busy machine)
            workers = {p: c for p, c in _group(process.pid).items() if "loky" in c.lower()
                       and "resource_tracker" not in c}
            if workers or process.poll() is not None:
                break
            time.sleep(0.25)
        assert workers, "no worker started"
        assert len(workers) <= min(3, usable_cores())
        os.kill(process.pid, signal.SIGTERM)
        _, stderr = process.communicate(timeout=120)
        assert process.returncode == 128 + signal.SIGTERM, stderr
        assert "Interrupted (SIGTERM)" in stderr.decode()
        for _ in range(240):  # polled: a busy machine only makes it slower
            left = _group(process.pid)
            if not left:
                break
            time.sleep(0.25)
        assert not left, left
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for pid in _group(process.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
