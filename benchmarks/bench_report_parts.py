"""Benchmark: where a report's CPU time goes, per figure kind and per section.

``bench_report.py`` times the whole command; this script says which parts make that time.
It writes the report of a copy of a store in this process (one process, no cache, every
figure drawn) and counts the CPU seconds of

- each figure kind (drawing, encoding, and what the figure computes first, such as the
  classic hardness measures of the instance space), per figure and in all;
- each section (a dataset's section includes its figures and its per-instance selection);
- the per-instance selection of the datasets' sections on its own;
- the datasets whose figures take longest, with their costliest kinds;

printed beside one plain DuckDB scan of the same store's scores, measured in the same run,
so the figures compare across machines. Numerical libraries run on one thread, as in
the report's worker processes. A part's share of the whole is its share of the
cold report's CPU time on the report's worker processes too (they run the same code, a
dataset per job).

Run: ``python benchmarks/bench_report_parts.py [--store STORE]`` (default store:
``metaeval-results/study.duckdb``, the one ``make run`` writes; only a copy is written).
"""

from __future__ import annotations

import argparse
import collections
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_report import copy_store, scan_seconds  # noqa: E402 - bench_report's own


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default="metaeval-results/study.duckdb")
    args = parser.parse_args()
    source = Path(args.store)
    if not source.is_file():
        print(f"bench_report_parts: no store at {source}, skipped (run `make run` first, or "
              "pass --store)")
        return
    from metaeval.report import _instance_selection, _page, _render
    from metaeval.report.html import write_report

    figures = collections.defaultdict(list)
    sections = collections.Counter()
    per_dataset = collections.defaultdict(collections.Counter)  # dataset -> kind -> CPU-s
    current = [None]
    selection = [0.0, 0]
    draw = _page._Page._draw

    def timed_draw(self, build, kind, *args, **kwargs):
        t = time.process_time()
        try:
            return draw(self, build, kind, *args, **kwargs)
        finally:
            figures[kind].append(time.process_time() - t)
            per_dataset[current[0]][kind] += figures[kind][-1]

    run_job = _render._run_job

    def timed_job(settings, job, known, view, cpu):
        for frag in job.fragments:
            def build(page, _build=frag.build, _name=frag.build.__qualname__,
                      _dataset=frag.dataset, **kw):
                current[0] = _dataset
                t = time.process_time()
                try:
                    return _build(page, **kw)
                finally:
                    sections[_name] += time.process_time() - t
            frag.build = build
        return run_job(settings, job, known, view, cpu)

    warm = _instance_selection.warm_selection

    def timed_warm(*a, **kw):
        t = time.process_time()
        try:
            return warm(*a, **kw)
        finally:
            selection[0] += time.process_time() - t
            selection[1] += 1

    work = Path(tempfile.mkdtemp(prefix="bench-report-parts-"))
    try:
        store = copy_store(source, work)
        scan, n_rows = scan_seconds(store)
        _page._Page._draw = timed_draw
        _render._run_job = timed_job
        _instance_selection.warm_selection = timed_warm
        try:
            # one thread, as in the report's worker processes
            from threadpoolctl import threadpool_limits

            with threadpool_limits(limits=1):
                t = time.process_time()
                write_report(store, work / "report", jobs=1, cache=False)
                total = time.process_time() - t
        finally:
            _page._Page._draw = draw
            _render._run_job = run_job
            _instance_selection.warm_selection = warm
        print(f"store: {source} ({n_rows:,} score rows); baseline: one plain DuckDB scan of "
              f"the scores table = {scan * 1000:.1f} ms")
        print(f"report, one process, no cache: {total:.1f} CPU-s ({total / scan:.0f} x scan)")
        print(f"\n{'figure kind':28s} {'n':>4s} {'ms/fig':>8s} {'CPU-s':>7s} {'share':>6s}")
        for kind, times in sorted(figures.items(), key=lambda kv: -sum(kv[1])):
            s = sum(times)
            print(f"{kind:28s} {len(times):4d} {1000 * s / len(times):8.1f} {s:7.2f} "
                  f"{s / total:6.1%}")
        s = sum(map(sum, figures.values()))
        print(f"{'all figures':28s} {sum(map(len, figures.values())):4d} {'':8s} {s:7.2f} "
              f"{s / total:6.1%}")
        print(f"{'per-instance selection':28s} {selection[1]:4d} {'':8s} {selection[0]:7.2f} "
              f"{selection[0] / total:6.1%}  (in the datasets' sections)")
        print(f"\n{'dataset (most figure time)':28s} {'CPU-s':>7s}  its costliest kinds")
        ranked = sorted(((k, v) for k, v in per_dataset.items() if k is not None),
                        key=lambda kv: -sum(kv[1].values()))
        for name, kinds in ranked[:8]:
            top = ", ".join(f"{k} {v:.2f}" for k, v in kinds.most_common(3))
            print(f"{name:28s} {sum(kinds.values()):7.2f}  {top}")
        print(f"\n{'section (function)':28s} {'CPU-s':>7s} {'share':>6s}")
        for name, s in sections.most_common():
            print(f"{name:28s} {s:7.2f} {s / total:6.1%}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
