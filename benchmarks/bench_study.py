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

Scaling (``--scaling``): the same study on 1, 2, 4, 8, 16 local processes and on a local
Dask cluster of 16 workers (``--jobs 1,2,4,8,16 --dask 16`` pick the subset; ``--pool
wide`` the 150+ configurations), with each run's wall, the CPU of its units of work, its
parallel efficiency (CPU of work / (wall x workers)) and its speed against 1 process
(measured in the same invocation when 1 is among ``--jobs``)::

    python benchmarks/bench_study.py --scaling --suite full --jobs 1,16 --dask 16
    python benchmarks/bench_study.py --scaling --suite quick --pool wide --jobs 16

Simulation (``--simulate STORE``, any machine): from a store's recorded units of work (or,
for a store written before units were recorded, its tasks and their per-fold times), the
makespan of the longest-first schedule on k workers against the even share total/k, for
whole tasks as units, for every fold as a unit, and for the units the runner's ``auto``
mode makes for k workers, each in two orders: by the true CPU (LPT, an oracle) and by the
cost estimated before the run (what the runner does)::

    python benchmarks/bench_study.py --simulate metaeval-results/study.duckdb --workers 2,16
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


def _list_makespan(costs, workers: int) -> float:
    """Each unit in the order given to the worker free first: the finish of the last."""
    import heapq

    loads = [0.0] * workers
    for cost in costs:
        heapq.heappush(loads, heapq.heappop(loads) + float(cost))
    return max(loads)


def _recorded_units(path: str):
    """(tasks, folds) of a store: per task its CPU, size and algorithm; per fold its CPU.

    Fold CPU: the fold's fit and score CPU plus an even share of the rest of its task's
    CPU (loading, splitting, building the model), so that the folds add up to the task.
    """
    from metaeval.store import Store

    store = Store(path)
    tasks = store.tasks()
    tasks = tasks[tasks["status"] == "done"]
    timings = store.timings()
    sizes = store.datasets().set_index("name")
    fold_cpu = (timings["fit_cpu"] + timings["predict_cpu"]).groupby(
        [timings["dataset"], timings["algorithm"], timings["repeat"]]).apply(list)
    rows = []
    for t in tasks.itertuples(index=False):
        folds = fold_cpu.get((t.dataset, t.algorithm, t.repeat), [])
        rest = max(float(t.cpu) - sum(folds), 0.0) / max(len(folds), 1)
        rows.append({"key": (t.dataset, t.algorithm, t.repeat), "cpu": float(t.cpu),
                     "folds": [c + rest for c in folds],
                     "n": int(sizes.at[t.dataset, "n_instances"]),
                     "p": int(sizes.at[t.dataset, "n_features"])})
    return rows, store.units()


def _simulate(path: str, workers: list[int]) -> None:
    from metaeval.algorithms import get_algorithm
    from metaeval.study._units import MIN_SPLIT, estimate_cost

    rows, recorded = _recorded_units(path)
    if not rows:
        sys.exit(f"{path} holds no finished task.")
    total = sum(r["cpu"] for r in rows)
    estimates = []
    for r in rows:
        try:
            algorithm = get_algorithm(r["key"][1])
        except ValueError:
            algorithm = None
        estimates.append(estimate_cost(algorithm, r["n"], r["p"], max(len(r["folds"]), 1)))
    print(f"{path}: {len(rows)} tasks, {sum(len(r['folds']) for r in rows)} folds, "
          f"{total:.1f} CPU-s; {len(recorded)} units recorded; simulated on "
          f"{os.cpu_count()} cores of {os.uname().nodename} (a pure computation).")
    for k in workers:
        even = total / k
        threshold_est = max(sum(estimates) / (4 * k), MIN_SPLIT)  # as the runner's auto
        plans = {
            "whole tasks": [(r["cpu"], e) for r, e in zip(rows, estimates, strict=True)],
            "every fold": [(c, e / len(r["folds"])) for r, e in zip(rows, estimates,
                                                                   strict=True)
                           for c in r["folds"]],
            "auto": [pair for r, e in zip(rows, estimates, strict=True) for pair in (
                [(c, e / len(r["folds"])) for c in r["folds"]]
                if e > threshold_est and len(r["folds"]) >= 2 else [(r["cpu"], e)])],
        }
        if len(recorded):
            # the units as the run recorded them (the last run of each unit), and the
            # estimate it ordered them by
            last = recorded.drop_duplicates(["dataset", "algorithm", "repeat", "fold"],
                                            keep="last")
            plans["recorded"] = list(zip(last["cpu"].astype(float),
                                         last["estimate"].fillna(0).astype(float),
                                         strict=True))
        for name, units in plans.items():
            true = [c for c, _ in units]
            lpt = _list_makespan(sorted(true, reverse=True), k)
            by_estimate = _list_makespan([c for c, _ in sorted(units, key=lambda u: -u[1])], k)
            print(f"  k={k:3d} {name:12s} units {len(units):5d}  largest {max(true):6.2f} CPU-s "
                  f"= {max(true) / total:6.1%} of the study  LPT makespan / (total/k) "
                  f"{lpt / even:5.2f}  by estimate {by_estimate / even:5.2f}")


def _scaling(args) -> None:
    """Run the study on each setting in a fresh process; print wall, efficiency, speed-up."""
    settings = [("jobs", int(j)) for j in args.jobs.split(",") if j] + \
               [("dask", int(d)) for d in args.dask.split(",") if d]
    print(f"suite={args.suite}, pool={args.pool}, units={args.units}; this machine: "
          f"{os.cpu_count()} cores ({os.uname().nodename}), load average before "
          f"{os.getloadavg()[0]:.1f}")
    base = None
    for kind, n in settings:
        done = subprocess.run([sys.executable, __file__, "--part", f"{kind}={n}", "--suite",
                               args.suite, "--pool", args.pool, "--units", args.units],
                              capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"{kind}={n} failed:\n{done.stderr[-3000:]}")
        got = json.loads(done.stdout.strip().splitlines()[-1])
        if (kind, n) == ("jobs", 1):
            base = got["wall"]
        speed = f"{base / got['wall']:6.2f}x" if base else "   n/a"
        print(f"  {kind} {n:3d}: wall {got['wall']:7.1f} s, units {got['units']:5d}, "
              f"{got['unit_cpu']:7.1f} CPU-s of work, efficiency {got['efficiency']:5.1%}, "
              f"speed vs 1 process {speed}, makespan / (work/workers) "
              f"{got['wall'] / (got['unit_cpu'] / n):5.2f}", flush=True)


def _scaling_part(setting: str, suite: str, pool: str, units: str) -> dict:
    from metaeval.study import DaskExecutor, LocalExecutor, Study, run_study

    kind, n = setting.split("=")
    executor = LocalExecutor(jobs=int(n)) if kind == "jobs" else DaskExecutor(n_workers=int(n))
    with tempfile.TemporaryDirectory() as tmp:
        study = Study(datasets=suite, algorithms=pool, executor=executor,
                      store=os.path.join(tmp, "bench.duckdb"))
        t0 = time.perf_counter()
        summary = run_study(study, units=units)
        wall = time.perf_counter() - t0
    return {"wall": wall, "units": summary.n_units, "unit_cpu": summary.unit_cpu,
            "efficiency": summary.efficiency or 0.0, "failed": summary.n_failed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="quick", choices=["quick", "full"])
    parser.add_argument("--rounds", type=int, default=1,
                        help="repeat each measurement and keep the fastest")
    parser.add_argument("--scaling", action="store_true",
                        help="wall and parallel efficiency on --jobs and --dask")
    parser.add_argument("--jobs", default="1,2,4,8,16", help="local processes, e.g. 1,16")
    parser.add_argument("--dask", default="16", help="local Dask cluster sizes ('' none)")
    parser.add_argument("--pool", default="default", choices=["default", "wide"])
    parser.add_argument("--units", default="auto", choices=["auto", "fold", "task"])
    parser.add_argument("--simulate", metavar="STORE",
                        help="longest-first makespan of a store's recorded units")
    parser.add_argument("--workers", default="1,2,4,8,16", help="k for --simulate")
    parser.add_argument("--part", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.simulate:
        _simulate(args.simulate, [int(k) for k in args.workers.split(",")])
        return
    if args.part and "=" in args.part:
        print(json.dumps(_scaling_part(args.part, args.suite, args.pool, args.units)))
        return
    if args.scaling:
        _scaling(args)
        return
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
