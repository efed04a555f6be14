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

With ``--repeats R``, it then times R more reports of the copy in this process (warm:
what a second report of a session costs, as in the test suite), each beside a
baseline drawn in the same run, in turns: the same figures (every one the report
drew, each by its kind and options) made with :func:`metaeval.report.plot` on a fresh
view of the store and saved with plain matplotlib ``savefig(format="svg")``. It prints
the median CPU seconds of each and their ratio: the report's pipeline against plain
matplotlib on the same machine and load (the report also writes its tables, the
recommendation and selection sections, which the baseline does not).

``--small`` reports a small study made first in a temporary folder (three datasets,
three algorithms, 3-fold cross-validation: the size of the test suite's reports)
instead of a store.

Run: ``python benchmarks/bench_report_parts.py [--store STORE | --small] [--repeats R]``
(default store: ``metaeval-results/study.duckdb``, the one ``make run`` writes; only a
copy is written). To compare two commits, run it with each one's sources, in turns
(``PYTHONPATH=/tmp/base/src python benchmarks/bench_report_parts.py ...`` after ``git
worktree add /tmp/base <commit>``).
"""

from __future__ import annotations

import argparse
import collections
import io
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_report import copy_store, metaeval_bin, scan_seconds  # noqa: E402

#: ``--small``'s study: the size of the test suite's reports (its ``cli_store``)
SMALL_STUDY = ["--datasets", "labor,fertility,haberman", "--algorithms", "NB,DT,3NN",
               "--folds", "3", "--jobs", "1"]


def small_store(work: Path) -> Path:
    """``metaeval run`` of :data:`SMALL_STUDY` into ``work``; the store's path."""
    store = work / "small.duckdb"
    subprocess.run(metaeval_bin() + ["run", *SMALL_STUDY, "--quiet", "--store", str(store)],
                   check=True, capture_output=True)
    return store


def repeated(store: Path, work: Path, repeats: int) -> None:
    """Median CPU seconds of ``repeats`` warm reports of ``store`` and of as many
    baselines (the report's figures by :func:`metaeval.report.plot`, plain ``savefig``
    to SVG), in turns, and their ratio."""
    from metaeval.report import _page, plot
    from metaeval.report._plots import StudyView
    from metaeval.report.html import write_report

    drawn = []  # (kind, options) of every figure of the report, in page order
    figure = _page._Page.figure

    def recording(self, kind, caption, **options):
        drawn.append((kind, {k: v for k, v in options.items()
                             if k not in ("fmt", "alt", "colors", "max_dpi")}))
        return figure(self, kind, caption, **options)

    def report(n):
        t = time.process_time()
        write_report(store, work / f"warm-{n}", jobs=1, cache=False)
        return time.process_time() - t

    def baseline():
        t = time.process_time()
        view = StudyView(store)
        for kind, options in drawn:
            fig = plot(kind, view, **options)
            fig.savefig(io.StringIO(), format="svg")
        return time.process_time() - t

    _page._Page.figure = recording
    try:
        report("first")  # the figures to draw again, and the process warmed up
    finally:
        _page._Page.figure = figure
    baseline()
    times = {"report": [], "baseline": []}
    for n in range(repeats):
        times["report"].append(report(n))
        times["baseline"].append(baseline())
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"\nwarm, in this process, {repeats} repeats in turns (median CPU-s, min-max):")
    print(f"  report (jobs=1, no cache, {len(drawn)} figures + recommendation): "
          f"{med['report']:6.2f}  ({min(times['report']):.2f}-{max(times['report']):.2f})")
    print(f"  baseline: the same {len(drawn)} figures, plot() + plain savefig(svg): "
          f"{med['baseline']:6.2f}  ({min(times['baseline']):.2f}-"
          f"{max(times['baseline']):.2f})")
    print(f"  report / baseline: {med['report'] / med['baseline']:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default="metaeval-results/study.duckdb")
    parser.add_argument("--small", action="store_true",
                        help="report a small study made first (3 datasets, 3 algorithms)")
    parser.add_argument("--repeats", type=int, default=0,
                        help="warm reports timed against the plain-savefig baseline")
    args = parser.parse_args()
    made = Path(tempfile.mkdtemp(prefix="bench-report-small-")) if args.small else None
    try:
        source = small_store(made) if made else Path(args.store)
        parts(source, args.repeats)
    finally:
        if made:
            shutil.rmtree(made, ignore_errors=True)


def parts(source: Path, repeats: int) -> None:
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
        if repeats > 0:
            with threadpool_limits(limits=1):
                repeated(store, work, repeats)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
