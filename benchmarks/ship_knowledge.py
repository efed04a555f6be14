"""Turn a finished knowledge-base study into the knowledge base metaeval ships.

Steps, each printed with what it measured:

1. the store's tasks per status: a pending task stops here (the study is not finished;
   ``metaeval run`` with the same arguments continues it);
2. the failed tasks, grouped by algorithm family and the first line of their error;
3. the CPU seconds the study spent, per dataset and repetition, against the estimate
   made before it ran (``--estimate``, CPU seconds in all);
4. ``metaeval describe`` (datasets already described are skipped);
5. ``metaeval knowledge build`` twice, to two files: the same bytes, at most 20 MiB;
6. the accuracy of the file against the study's own scores
   (``benchmarks/knowledge_accuracy.py --write``);
7. with ``--install``: the file copied to the package data
   (``src/metaeval/recommend/data/knowledge.npz``).

Usage: python benchmarks/ship_knowledge.py STORE [--out DIR] [--estimate 14951] [--install]
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_FILE = ROOT / "src" / "metaeval" / "recommend" / "data" / "knowledge.npz"
LIMIT = 20 * 2**20


def _metaeval(*args):
    exe = Path(sys.executable).with_name("metaeval")
    start = time.perf_counter()
    before = os.times()
    subprocess.run([str(exe), *args], check=True)
    after = os.times()
    cpu = (after.children_user - before.children_user
           + after.children_system - before.children_system)
    return time.perf_counter() - start, cpu


def study_figures(store):
    """(status counts, failed groups, CPU per dataset and repeat) read from the store."""
    con = duckdb.connect(str(store), read_only=True)
    try:
        status = dict(con.execute(
            "select status, count(*) from tasks group by 1 order by 1").fetchall())
        failed = con.execute(
            "select split_part(a.name, ':', 1) as family, "
            "split_part(coalesce(t.error, ''), chr(10), 1) as error, count(*), "
            "string_agg(distinct d.name, ', ' order by d.name) "
            "from tasks t join algorithms a on a.id = t.algorithm_id "
            "join datasets d on d.id = t.dataset_id where t.status = 'failed' "
            "group by 1, 2 order by 3 desc").fetchall()
        cpu = con.execute(
            "select d.name, t.repeat, sum(t.cpu), count(*) from tasks t "
            "join datasets d on d.id = t.dataset_id where t.status in ('done', 'failed') "
            "group by 1, 2 order by 3 desc").fetchall()
    finally:
        con.close()
    return status, failed, cpu


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--out", default=None, help="Folder of the built files "
                        "[default: the store's folder].")
    parser.add_argument("--estimate", type=float, default=None,
                        help="The CPU seconds estimated before the study ran.")
    parser.add_argument("--install", action="store_true",
                        help="Copy the file to the package data.")
    args = parser.parse_args(argv)
    store = Path(args.store)
    out = Path(args.out) if args.out else store.parent
    status, failed, cpu = study_figures(store)
    print("tasks:", ", ".join(f"{k} {v:,}" for k, v in status.items()))
    if status.get("pending", 0) or status.get("running", 0):
        print(f"the study is not finished: {status.get('pending', 0):,} pending; run it "
              "again with the same arguments to continue.", file=sys.stderr)
        return 2
    print(f"failed tasks: {sum(n for _, _, n, _ in failed):,}")
    for family, error, n, datasets in failed:
        print(f"  {n:5d}  {family}: {error[:160]}  [{datasets[:200]}]")
    total = sum(c for _, _, c, _ in cpu)
    print(f"CPU seconds of fitting and predicting: {total:,.0f}"
          + (f" (estimated before: {args.estimate:,.0f}; measured / estimated "
             f"{total / args.estimate:.2f})" if args.estimate else ""))
    for name, repeat, c, n in cpu[:12]:
        print(f"  {name:<30} repeat {repeat}: {c:8,.0f} CPU s ({n} tasks)")
    wall, spent = _metaeval("describe", "--store", str(store), "--quiet")
    print(f"describe: {wall:.0f} s wall, {spent:.0f} CPU s")
    files = [out / "knowledge.npz", out / "knowledge-again.npz"]
    for f in files:
        wall, spent = _metaeval("knowledge", "build", "--store", str(store), "--out",
                                str(f), "--quiet")
        print(f"knowledge build -> {f}: {wall:.0f} s wall, {spent:.0f} CPU s, "
              f"{f.stat().st_size / 2**20:.2f} MiB")
    if not filecmp.cmp(files[0], files[1], shallow=False):
        print("the two builds differ: not deterministic", file=sys.stderr)
        return 1
    files[1].unlink()
    print("the two builds are the same bytes")
    if files[0].stat().st_size > LIMIT:
        print(f"{files[0]} is over 20 MiB", file=sys.stderr)
        return 1
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "knowledge_accuracy.py"),
                    str(store), str(files[0]), "--write"], check=True)
    if args.install:
        shutil.copyfile(files[0], PACKAGE_FILE)
        print(f"installed as {PACKAGE_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
