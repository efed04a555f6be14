"""Benchmark: ``metaeval report`` from scratch and warm, and ``rank``, ``benchmark``, ``hardness``.

Each command is run as a user runs it (a fresh ``metaeval`` process, wall time) on a
copy of a store, and printed beside one plain DuckDB scan of the same store's scores
(every row of the ``scores`` table read into NumPy), measured in the same run, so the
figures compare across machines and loads. Wall and CPU seconds are both printed (CPU
only for commands that ran in one process): on a shared machine the wall time also
counts the waits for a core.

- ``report (--no-cache)``: the cold report, every figure drawn, on all the cores this
  process may use, nothing read from or written to a cache;
- ``report (scratch)``: the first report of the copy (no ``report_cache`` table): the
  cold report, plus writing every section and figure into the cache;
- ``report (warm)``: the same command again, nothing changed: every figure and section
  comes from the cache kept in the store;
- ``report (1 changed)``: after one score of one dataset changed: that dataset's
  figures and the whole-study ones are drawn again, the other datasets' are not;
- ``rank``, ``benchmark``, ``hardness``: the analysis commands, for comparison.

Do not edit metaeval's sources while it runs: the cache keys include them, so an edit
between two runs makes the second one draw everything again.

Targets on the 51-dataset store, 2 cores: the cold report (``--no-cache``) under 30 s and
under 3 s when nothing changed; rank, benchmark and hardness under 3 s.

Run: ``python benchmarks/bench_report.py [--store STORE] [--jobs N]``
(default store: ``metaeval-results/study.duckdb``, the one ``make run`` writes; the
store itself is never written, only a copy).

To compare with another commit on a machine whose speed drifts, run both back to back,
in turns: ``git worktree add /tmp/base <commit>``, then
``PYTHONPATH=/tmp/base/src python /tmp/base/benchmarks/bench_report.py ...`` (the
commands then run that commit's code) alternating with this script.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb


def scan_seconds(path: Path, repeats: int = 5) -> tuple[float, int]:
    """Fastest of ``repeats`` plain scans of the scores table (connect, read, close)."""
    best, n = float("inf"), 0
    for _ in range(repeats):
        t = time.perf_counter()
        con = duckdb.connect(str(path), read_only=True)
        got = con.execute("SELECT * FROM scores").fetchnumpy()
        con.close()
        best = min(best, time.perf_counter() - t)
        n = len(got["score"])
    return best, n


def copy_store(source: Path, work: Path) -> Path:
    """A copy of the store ``source`` (and its write-ahead log, if any) in ``work``."""
    store = work / "study.duckdb"
    shutil.copy(source, store)
    if Path(f"{source}.wal").exists():
        shutil.copy(f"{source}.wal", f"{store}.wal")
    return store


def metaeval_bin() -> list[str]:
    exe = Path(sys.executable).with_name("metaeval")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "metaeval"]


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(args: list[str]) -> tuple[float, float, str]:
    """Wall and CPU seconds (the command and its worker processes) of one command."""
    t, c = time.perf_counter(), _children_cpu()
    run = subprocess.run(metaeval_bin() + args, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t, _children_cpu() - c
    if run.returncode != 0:
        raise SystemExit(f"metaeval {' '.join(args)} failed ({run.returncode}):\n"
                         f"{run.stdout}\n{run.stderr}")
    return wall, cpu, (run.stderr.strip().splitlines() or [""])[-1]


def change_one_score(path: Path) -> str:
    """Nudge one score of the last dataset (stays in [0, 1]); returns the dataset's name."""
    con = duckdb.connect(str(path))
    did, name = con.execute("SELECT id, name FROM datasets ORDER BY id DESC LIMIT 1").fetchone()
    con.execute("UPDATE scores SET score = CASE WHEN score > 0.5 THEN score - 1e-3 "
                "ELSE score + 1e-3 END WHERE dataset_id = ? AND row = 0 AND algorithm_id = "
                "(SELECT min(algorithm_id) FROM scores WHERE dataset_id = ?)", [did, did])
    con.close()
    return name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default="metaeval-results/study.duckdb")
    parser.add_argument("--jobs", type=int, default=None,
                        help="report worker processes [default: all cores]")
    args = parser.parse_args()
    source = Path(args.store)
    if not source.is_file():
        print(f"bench_report: no store at {source}, skipped (run `make run` first, or pass "
              "--store)")
        return
    work = Path(tempfile.mkdtemp(prefix="bench-report-"))
    try:
        store = copy_store(source, work)
        con = duckdb.connect(str(store))
        con.execute("DROP TABLE IF EXISTS report_cache")
        n_datasets = con.execute("SELECT count(*) FROM datasets").fetchone()[0]
        con.close()
        jobs = [] if args.jobs is None else ["--jobs", str(args.jobs)]
        report = ["report", "--store", str(store), "--out", str(work / "report")] + jobs
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
            os.cpu_count()
        scan, n_rows = scan_seconds(store)
        rows = []
        rows.append(("report (--no-cache)", *timed(report + ["--no-cache"])))
        rows.append(("report (scratch)", *timed(report)))
        rows.append(("report (warm)", *timed(report)))
        changed = change_one_score(store)
        rows.append((f"report (1 changed: {changed})", *timed(report)))
        for cmd in (["rank"], ["benchmark"], ["hardness"]):
            rows.append((cmd[0], *timed(cmd + ["--store", str(store)])))
        scan_after, _ = scan_seconds(store)
        scan = min(scan, scan_after)
        print(f"store: {source} ({n_datasets} datasets, {n_rows:,} score rows); "
              f"{cores} cores; Python {sys.version.split()[0]}")
        print(f"baseline: one plain DuckDB scan of the scores table = {scan * 1000:.1f} ms "
              "(fastest of 10, before and after)")
        print(f"{'command':34s} {'wall s':>8s} {'x scan':>8s} {'CPU s':>8s} {'x scan':>8s}")
        for name, wall, cpu, note in rows:
            # worker processes are the forkserver's children, not counted by rusage: the
            # report's last line says their CPU seconds ("(… CPU-s)")
            pooled = " processes" in note
            workers = re.search(r"\(([0-9.]+) CPU-s\)", note)
            if pooled and workers:
                cpu += float(workers.group(1))
            cpu_text = f"{'-':>8s} {'-':>8s}" if pooled and not workers else \
                f"{cpu:8.2f} {cpu / scan:8.0f}"
            print(f"{name:34s} {wall:8.2f} {wall / scan:8.0f} {cpu_text}")
        print("(CPU: user + system seconds of the command and its report workers; on a shared "
              "machine wall time also counts the waits for a core, CPU time does not)")
        for name, _, _, note in rows:
            if name.startswith("report") and note:
                print(f"  {name}: {note}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
