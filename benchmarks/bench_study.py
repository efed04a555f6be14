"""Benchmark of the study runner on the quick suite with 8 algorithms (10-fold CV).

The algorithms are the 8 of Melo & Prudêncio (2014): 3NN, 5NN, DT, NB, LR, RF, SVM_LIN,
SVM_RBF.

(a) runner with 1 job / a plain scikit-learn loop doing the same fits  (target <= 1.05)
(b) runner with 2 jobs / runner with 1 job                              (target <= 0.6)
(c) peak memory (max RSS) of the driver process

Each measurement runs in a fresh Python process (same imports, its own max RSS). The plain
loop is ``cross_val_predict``-style code: for each dataset and algorithm, the same
StratifiedKFold folds and the same per-fold model seeds as the runner, fit then score,
with BLAS/OpenMP held to one thread as the runner does. Both produce the same scores; the
script checks it. Usage::

    python benchmarks/bench_study.py [--suite quick|full] [--rounds 1]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time


def _fingerprint(scores) -> str:
    return hashlib.sha256(b"".join(s.tobytes() for s in scores)).hexdigest()[:16]


def _plain(suite: str) -> dict:
    import numpy as np
    from sklearn.model_selection import StratifiedKFold
    from threadpoolctl import threadpool_limits

    from metaeval.algorithms import DEFAULT_POOL, get_algorithm
    from metaeval.datasets import list_datasets, load_dataset
    from metaeval.study import derive_seed

    t0 = time.perf_counter()
    out = []
    with threadpool_limits(limits=1):
        for name in list_datasets(suite):
            data = load_dataset(name)
            categorical, numeric = list(data.categorical), list(data.numeric)
            for algorithm in map(get_algorithm, DEFAULT_POOL):
                cv = StratifiedKFold(10, shuffle=True,
                                     random_state=derive_seed(0, "folds", name, 0))
                s = np.empty(data.n_instances)
                for k, (train, test) in enumerate(cv.split(data.X, data.y)):
                    model = algorithm.build(
                        categorical, numeric,
                        random_state=derive_seed(0, "model", name, algorithm.name, 0, k))
                    model.fit(data.X.iloc[train], data.y[train])
                    s[test] = algorithm.score(model, data.X.iloc[test])
                out.append(s)
    return {"wall": time.perf_counter() - t0, "fingerprint": _fingerprint(out)}


def _runner(suite: str, jobs: int) -> dict:
    from metaeval.store import Store
    from metaeval.study import LocalExecutor, Study, run_study

    with tempfile.TemporaryDirectory() as tmp:
        study = Study(datasets=suite, executor=LocalExecutor(jobs=jobs),
                      store=os.path.join(tmp, "bench.duckdb"))
        t0 = time.perf_counter()
        summary = run_study(study)
        wall = time.perf_counter() - t0
        assert summary.n_done == study.n_tasks, summary.message()
        scores = Store(study.store).scores_frame()
        per_task = [g["score"].to_numpy() for _, g in
                    scores.groupby(["dataset", "algorithm"], sort=False)]
    return {"wall": wall, "fingerprint": _fingerprint(per_task)}


def _measure(part: str, suite: str) -> dict:
    # The same imports, outside the timed region, for every part.
    import sklearn.ensemble  # noqa: F401
    import sklearn.model_selection  # noqa: F401
    import sklearn.neighbors  # noqa: F401
    import sklearn.svm  # noqa: F401

    import metaeval.algorithms  # noqa: F401
    import metaeval.datasets  # noqa: F401
    import metaeval.store  # noqa: F401
    import metaeval.study  # noqa: F401

    cpu0 = _cpu_all_processes()
    if part == "plain":
        result = _plain(suite)
    else:
        result = _runner(suite, int(part[-1]))
    result["cpu_all_processes"] = _cpu_all_processes() - cpu0
    result["driver_max_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


def _cpu_all_processes() -> float:
    """CPU seconds (user + system) of this process and its finished children."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="quick", choices=["quick", "full"])
    parser.add_argument("--rounds", type=int, default=1,
                        help="repeat each measurement and keep the fastest")
    parser.add_argument("--part", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.part:
        print(json.dumps(_measure(args.part, args.suite)))
        return

    results: dict[str, dict] = {}
    for _ in range(args.rounds):
        for part in ("plain", "runner1", "runner2"):
            done = subprocess.run([sys.executable, __file__, "--part", part, "--suite",
                                   args.suite], capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"{part} failed:\n{done.stderr}")
            got = json.loads(done.stdout.strip().splitlines()[-1])
            if part not in results or got["wall"] < results[part]["wall"]:
                results[part] = got
            print(f"  {part:8s} wall {got['wall']:7.1f} s  cpu {got['cpu_all_processes']:7.1f} s"
                  f"  driver max RSS {got['driver_max_rss_mib']:6.0f} MiB", flush=True)

    plain, one, two = results["plain"], results["runner1"], results["runner2"]
    same = len({plain["fingerprint"], one["fingerprint"], two["fingerprint"]}) == 1
    a = one["wall"] / plain["wall"]
    b = two["wall"] / one["wall"]
    print(f"\nsuite={args.suite}, 8 algorithms, 10-fold CV, {os.cpu_count()} cores, "
          f"load average before: {os.getloadavg()[0]:.1f}")
    print(f"(a) runner 1 job / plain loop : {one['wall']:.1f} / {plain['wall']:.1f} s = "
          f"{a:.3f}  (target <= 1.05) {'OK' if a <= 1.05 else 'MISSED'}")
    print(f"(b) runner 2 jobs / 1 job      : {two['wall']:.1f} / {one['wall']:.1f} s = "
          f"{b:.3f}  (target <= 0.6) {'OK' if b <= 0.6 else 'MISSED'}")
    print(f"(c) driver peak RSS            : {one['driver_max_rss_mib']:.0f} MiB with 1 job "
          f"(fits in the driver), {two['driver_max_rss_mib']:.0f} MiB with 2 jobs")
    print(f"same scores in all three       : {same}")
    print(f"CPU seconds (all processes)    : plain {plain['cpu_all_processes']:.1f}, "
          f"runner 1 job {one['cpu_all_processes']:.1f} "
          f"({one['cpu_all_processes'] / plain['cpu_all_processes']:.3f}x), "
          f"2 jobs {two['cpu_all_processes']:.1f}")


if __name__ == "__main__":
    main()
