"""A killed ``metaeval report`` leaves no process behind.

A real report is started on two worker processes and killed (SIGTERM, SIGHUP, SIGKILL)
while it draws: within a few seconds none of the processes it started (the fork server,
the resource tracker, the drawing workers) may be alive, and its standard output and
error must be closed (no survivor holds them).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="reads the process table in /proc")


@pytest.fixture(scope="module")
def store(cli_store):
    """labor, fertility and haberman x NB, DT, 3NN, 3-fold CV, run once per test run: the
    reports only read it (``--no-cache``)."""
    return cli_store


def _stat(pid: int):
    """``(state, parent id)`` of a process, or None when there is none."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1])


def _descendants(root: int) -> set[int]:
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            got = _stat(int(entry))
            if got is not None:
                parents[int(entry)] = got[1]
    out, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - out
        out |= frontier
    return out


def _living(pids) -> set[int]:
    return {pid for pid in pids if (_stat(pid) or ("Z",))[0] not in ("Z", "X")}


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL],
                         ids=["SIGTERM", "SIGHUP", "SIGKILL"])
def test_a_killed_report_leaves_no_process(store, tmp_path, signum, request):
    # its temporary files in a folder of the test's own, removed after it: a report killed
    # with SIGKILL cannot remove its own (its spill directory, multiprocessing's), which
    # were left in the system's temporary directory by every run of the suite. A short
    # path, not one under tmp_path: multiprocessing's fork server listens on a socket in
    # it, and a socket's path is limited to 107 bytes (under /dev/shm/pytest-of-...,
    # tmp_path's was too long and the report could not start its workers)
    own_tmp = tempfile.mkdtemp(prefix="sig-")
    request.addfinalizer(lambda: shutil.rmtree(own_tmp, ignore_errors=True))
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "TMPDIR": own_tmp}
    proc = subprocess.Popen(
        [sys.executable, "-m", "metaeval", "report", "--store", str(store), "--out",
         str(tmp_path / "report"), "--jobs", "2", "--no-cache", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env)
    seen: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        # the fork server, the resource tracker and two workers
        while len(seen) < 4 and time.monotonic() < deadline and proc.poll() is None:
            seen |= _descendants(proc.pid)
            time.sleep(0.05)
        assert proc.poll() is None, "the report ended before its workers were seen"
        time.sleep(0.5)  # drawing
        seen |= _descendants(proc.pid)
        assert len(seen) >= 4, seen
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)  # every holder of the pipes gone
        deadline = time.monotonic() + 60
        while _living(seen) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _living(seen), f"alive after the report's {signum.name}: {_living(seen)}"
    finally:
        for pid in _living(seen):
            os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
        proc.wait()
