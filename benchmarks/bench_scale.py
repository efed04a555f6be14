"""Every measure at the scale of hundreds of algorithms: a benchmark, not a timed test.

Builds a synthetic store of D datasets x A algorithms x 1,000-N_max instances, 5-fold,
by importing long tables (``Store.import_predictions``), then times each analysis
stage, streaming one dataset at a time:

* ``import``      -- the synthetic scores into a new store (checked, one transaction);
* ``scan``        -- the baseline: one DuckDB scan of all scores (count, sum);
* ``read``, ``sort``, ``pdist`` -- lower bounds of the analyses, dataset by dataset: the
  score matrix read (every analysis needs it), read and sorted column by column
  (hardness ranks each algorithm's scores), read and ``scipy.spatial.distance.pdist``
  (cityblock) of its columns once per threshold choice method (the dissimilarity);
* ``hardness``    -- per dataset, instance hardness of every algorithm under every
  threshold choice method (Melo & Prudêncio 2014), averaged;
* ``dissimilarity`` -- per dataset the A x A dissimilarity for every method, and their
  mean across datasets (Melo & Prudêncio 2014, eq. 25);
* ``clustering``  -- average linkage of the aggregated dissimilarities;
* ``rankings``    -- AR, SRR, SW, ARR and A3R (Abdulrahman & Brazdil 2014), Friedman's
  test and the Nemenyi critical difference, from per-fold accuracies (each dataset's
  score matrix and folds, ``metaeval.benchmark.matrix_metrics``);
* ``benchmark``   -- the ten metrics of the algorithm-benchmark page and the value
  captured (streamed per dataset, from the score matrices);
* ``report``      -- (``--report``) the HTML report of the whole store, with its size, as
  ``metaeval report`` makes it (every core, the report cache on), from scratch.

Each stage is printed as seconds and as a ratio to the scan; the peak resident memory
during each stage, of this process and every process it started (the report's
workers), sampled every 20 ms, is printed with it.
Goals: analysis stages within 5x the scan, peak memory under 2 GB. The last lines
print each analysis against its lower bound, which at 500 algorithms is itself many
times the scan (the dissimilarity is O(A^2 n) per dataset, the scan O(A n)).

Sizes: the default is reduced (20 datasets x 100 algorithms x 1,000-2,000 rows, 3 M
scores) so that it runs in minutes on a laptop; ``--full`` is the issue's size
(100 x 500 x 1,000-5,000, about 150 M scores; several GB of disk and a long import).

    python benchmarks/bench_scale.py [--full] [--datasets D --algorithms A --max-rows N]
                                     [--report] [--workdir DIR] [--reuse]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

FAMILIES = ("lr", "svm_lin", "svm_rbf", "knn", "dt", "rf", "et", "hgb", "ada", "gnb", "bnb",
            "lda", "qda", "mlp", "sgd", "ridge")


def _rss_mb() -> float:
    """Memory of this process and all its descendants (the report's workers), in MB.

    The proportional set size where the system gives it (Linux): a page shared by n
    processes (a library, the forked parent's pages) counts 1/n in each, so the sum is
    what the processes take together; their summed resident sizes would count it n times.
    """
    import psutil

    me = psutil.Process()
    total = 0
    for proc in [me, *me.children(recursive=True)]:
        try:
            try:
                total += proc.memory_full_info().pss
            except (AttributeError, psutil.AccessDenied):
                total += proc.memory_info().rss
        except psutil.NoSuchProcess:  # ended between the two calls
            pass
    return total / 2**20


class _Peak:
    """Samples the resident memory in a thread; ``peak`` is the maximum since reset."""

    def __init__(self):
        self.peak = _rss_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, _rss_mb())

    def reset(self):
        self.peak = _rss_mb()

    def stop(self):
        self._stop.set()


RESULTS: list[tuple[str, float, float]] = []
ANALYSES = ("hardness", "dissimilarity", "clustering", "rankings", "benchmark")


@contextmanager
def stage(name: str, peak: _Peak):
    peak.reset()
    t0 = time.perf_counter()
    yield
    RESULTS.append((name, time.perf_counter() - t0, max(peak.peak, _rss_mb())))
    # printed as it ends: a stage killed later (out of memory) does not lose the others
    print(f"  {name}: {RESULTS[-1][1]:.2f} s, peak memory {RESULTS[-1][2]:.0f} MB "
          "(PSS, all processes)", flush=True)


def synthetic(n_datasets, n_algorithms, min_rows, max_rows, seed=0):
    """Yield one long frame per dataset: scores with a family structure.

    Algorithm j of family f scores row i as sigmoid(skill_j * (2y-1) * 2 + z_fi + e_ji):
    a family shares the noise z (so families cluster), each algorithm adds its own.
    """
    rng = np.random.default_rng(seed)
    names = [f"{FAMILIES[j % len(FAMILIES)]}:synthetic={j}" for j in range(n_algorithms)]
    fam = np.array([j % len(FAMILIES) for j in range(n_algorithms)])
    skill = rng.uniform(0.2, 1.2, n_algorithms)
    for d in range(n_datasets):
        n = int(rng.integers(min_rows, max_rows + 1))
        y = (rng.random(n) < rng.uniform(0.2, 0.5)).astype(np.int8)
        z = rng.normal(size=(len(FAMILIES), n))
        logit = (skill[:, None] * (2.0 * y[None, :] - 1) * 2.0 + z[fam]
                 + rng.normal(size=(n_algorithms, n)))
        S = 1.0 / (1.0 + np.exp(-logit))
        fold = rng.permutation(n) % 5
        yield pd.DataFrame({
            "dataset": f"synthetic_{d:03d}",
            "algorithm": np.repeat(names, n),
            "row": np.tile(np.arange(n), n_algorithms),
            "fold": np.tile(fold, n_algorithms),
            "score": S.reshape(-1),
            "y": np.tile(y, n_algorithms),
            "fit_time": np.repeat(rng.lognormal(-2, 1, n_algorithms), n),
        })


def _register(store, frame):
    """Register a synthetic dataset (the import needs its rows and classes)."""
    y = frame.drop_duplicates("row").sort_values("row")["y"].to_numpy()
    name = frame["dataset"].iloc[0]
    con = store._writer()
    next_id = con.execute("SELECT coalesce(max(id) + 1, 0) FROM datasets").fetchall()[0][0]
    con.execute("INSERT INTO datasets VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [int(next_id), name, "0" * 64, len(y), 10, float(y.mean()), name,
                 "synthetic (bench_scale)"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--full", action="store_true", help="the issue's size")
    parser.add_argument("--datasets", type=int, default=None)
    parser.add_argument("--algorithms", type=int, default=None)
    parser.add_argument("--max-rows", type=int, default=None)
    parser.add_argument("--report", action="store_true", help="also time the HTML report")
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--reuse", action="store_true",
                        help="keep the store of an earlier run in --workdir (no import stage)")
    parser.add_argument("--report-only", action="store_true",
                        help="with --report: time the scan and the report, not the analyses")
    args = parser.parse_args(argv)
    D, A, N = (100, 500, 5000) if args.full else (20, 100, 2000)
    D, A, N = args.datasets or D, args.algorithms or A, args.max_rows or N

    from metaeval.store import Store

    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    path = work / "scale.duckdb"
    reuse = args.reuse and path.is_file()
    if not reuse:
        for p in (path, Path(str(path) + ".wal")):
            p.unlink(missing_ok=True)
    store = Store(path)
    peak = _Peak()
    n_scores = 0
    print(f"synthetic store: {D} datasets x {A} algorithms x 1000-{N} rows, 5 folds "
          f"({'the issue size' if args.full else 'reduced size'}); {path}"
          f"{' (reused: no import stage)' if reuse else ''}", flush=True)
    import duckdb

    if reuse:
        con = duckdb.connect(str(path), read_only=True)
        n_scores = con.execute("SELECT count(*) FROM scores").fetchall()[0][0]
        con.close()
    else:
        with stage("import", peak):
            # one dataset per connection: DuckDB keeps the pages it wrote cached until its
            # database is closed, so one connection for the whole import holds them all
            for frame in synthetic(D, A, 1000, N):
                with store.writing():
                    store._writer().execute("INSERT OR REPLACE INTO meta VALUES ('study', ?)",
                                            ['{"folds": 5}'])
                    _register(store, frame)
                    store.import_predictions(frame, format="long")
                n_scores += len(frame)
                del frame

    with stage("scan", peak):
        con = duckdb.connect(str(path), read_only=True)
        count, total = con.execute("SELECT count(*), sum(score) FROM scores").fetchall()[0]
        con.close()
    assert count == n_scores, (count, n_scores)

    from metaeval.benchmark import SKLEARN_METRICS, matrix_metrics, value_captured
    from metaeval.ranking import critical_difference_data, friedman_test, rank_algorithms
    from metaeval.report import data
    from metaeval.similarity import average_linkage

    names = store.datasets()["name"].tolist()
    if args.report_only and args.report:
        return _report_only(store, work, peak, n_scores, path)
    # lower bounds of the analyses, measured the same way: every dataset's score matrix
    # read; and sorted column by column (what hardness needs: the rate-driven method
    # ranks each algorithm's scores); and scipy's pdist (cityblock) of that matrix's
    # columns once per threshold choice method (what the dissimilarity is)
    from scipy.spatial.distance import pdist

    with stage("read", peak):
        for name in names:
            store.scores(name)
    with stage("sort", peak):
        for name in names:
            np.sort(store.scores(name)[1], axis=0)
    with stage("pdist", peak):
        for name in names:
            S = np.ascontiguousarray(store.scores(name)[1].T)
            for _ in range(5):
                pdist(S, "cityblock")
    with stage("hardness", peak):
        for name in names:
            y, S, algs = store.scores(name)
            data.mean_hardness_table(y, S, algs)
    sums, algs0 = None, None
    with stage("dissimilarity", peak):
        for name in names:
            y, S, algs = store.scores(name)
            mats = data.dissimilarity_matrices(y, S)
            if sums is None:
                sums, algs0 = {m: np.zeros_like(v) for m, v in mats.items()}, algs
            for m, v in mats.items():
                sums[m] += v
        agg = {m: v / len(names) for m, v in sums.items()}  # streamed mean (eq. 25)
    with stage("clustering", peak):
        links = {m: average_linkage(v) for m, v in agg.items()}
    per_fold, pooled = [], []
    with stage("rankings", peak):
        for name in names:  # the score matrix and its folds: no long frame of strings
            y, S, algs = store.scores(name)
            m = matrix_metrics(y, S, algs, dataset=name, folds=store.folds(name),
                               metrics=["accuracy"])
            per_fold.append(m[["dataset", "algorithm", "fold", "value"]])
        success = pd.concat(per_fold, ignore_index=True)
        times = store.timings().groupby(["dataset", "algorithm"], as_index=False)[
            "fit_wall"].sum().rename(columns={"fit_wall": "time"})
        times["time"] = times["time"].clip(lower=1e-6)
        for method in ("ar", "srr", "sw"):
            rank_algorithms(success, method=method)
        rank_algorithms(success, times, method="arr", accd=0.1)
        rank_algorithms(success, times, method="a3r", n=8)
        mean = success.groupby(["dataset", "algorithm"], as_index=False)["value"].mean()
        friedman_test(mean)
        critical_difference_data(mean)
    with stage("benchmark", peak):
        for name in names:
            y, S, algs = store.scores(name)
            pooled.append(matrix_metrics(y, S, algs, dataset=name,
                                         metrics=list(SKLEARN_METRICS)))
        metrics = pd.concat(pooled, ignore_index=True)[["dataset", "algorithm", "metric",
                                                        "value"]]
        value_captured(metrics)
    report_size = None
    if args.report:
        out = _time_report(store, work, peak)
        report_size = out.stat().st_size / 1e6
    peak.stop()
    assert len(links) == len(agg) and len(algs0) == A

    scan = next(t for s, t, _ in RESULTS if s == "scan")
    print(f"{n_scores:,} scores, {path.stat().st_size / 1e6:.0f} MB on disk; machine shared "
          "with other users (wall-clock seconds)")
    print(f"{'stage':14s} {'seconds':>9s} {'x scan':>8s} {'peak MB':>12s}")
    for name, seconds, mb in RESULTS:
        print(f"{name:14s} {seconds:9.2f} {seconds / scan:8.1f} {mb:12.0f}")
    timed = dict((s, t) for s, t, _ in RESULTS)
    analysis = sum(t for s, t, _ in RESULTS if s in ANALYSES)
    print(f"analysis stages together: {analysis:.1f} s = {analysis / scan:.1f} x the scan")
    print(f"against their lower bounds: hardness {timed['hardness'] / timed['sort']:.1f} x "
          f"the sort, dissimilarity {timed['dissimilarity'] / timed['pdist']:.1f} x pdist, "
          f"rankings and benchmark {timed['rankings'] / timed['read']:.1f} and "
          f"{timed['benchmark'] / timed['read']:.1f} x the read")
    if report_size is not None:
        print(f"report: {report_size:.1f} MB")
    return 0


def _time_report(store, work, peak):
    """The report as ``metaeval report`` makes it (every core, the cache on), from scratch."""
    import shutil

    import duckdb

    from metaeval.report import write_report

    con = duckdb.connect(str(store.path))
    con.execute("DROP TABLE IF EXISTS report_cache")  # an earlier run's: not from scratch
    con.close()
    shutil.rmtree(f"{store.path}.report-cache", ignore_errors=True)
    with stage("report", peak):
        out = write_report(store, work / "report", bootstrap_draws=200, jobs=None, cache=True)
    return out


def _report_only(store, work, peak, n_scores, path) -> int:
    out = _time_report(store, work, peak)
    peak.stop()
    scan = next(t for s, t, _ in RESULTS if s == "scan")
    print(f"{n_scores:,} scores, {path.stat().st_size / 1e6:.0f} MB on disk")
    for name, seconds, mb in RESULTS:
        print(f"{name:14s} {seconds:9.2f} {seconds / scan:8.1f} {mb:12.0f}")
    print(f"report: {out.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
