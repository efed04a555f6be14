"""How long does the full suite x the wide pool take? Measure a sample, extrapolate.

Two steps:

``python benchmarks/wide_grid_time.py run --store S --budget 1800``
    Runs every configuration of the wide pool (5-fold CV, ``--jobs`` workers) on a sample
    of the built-in datasets that spans the suite's sizes, smallest first, one dataset
    at a time, until the wall-clock budget is spent (the study is resumable: the same
    command continues it). ``--subsample NAME:ROWS`` adds a stratified subsample of a
    large dataset, so that the sample reaches the suite's large sizes.

``python benchmarks/wide_grid_time.py estimate --store S``
    Reads each task's CPU seconds from the store and fits, per family f, the model

        log T_f(d) = a_f + b_f log n_d + c_f log p_d

    where T_f(d) is the family's CPU seconds on dataset d (all its configurations, one
    5-fold CV each), n_d the rows and p_d the encoded features (numeric columns plus one
    column per category). It predicts T_f for each of the suite's datasets, sums, and
    divides by the number of cores (2 workers on 2 cores: wall ~= CPU / 2). The interval
    is a bootstrap over the sampled datasets (refit on resampled datasets, 1,000 times,
    5th-95th percentiles). Failed and timed-out tasks count with the CPU they used.

CPU seconds, not wall: on a shared machine the wall clock of a task depends on the
other users, its CPU time much less so (caches and memory bandwidth still are shared,
so the figure is, if anything, pessimistic).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pandas as pd

SAMPLE = ("labor", "hepatitis", "sonar", "breast-cancer", "vote", "musk1", "diabetes",
          "credit-g", "kc1", "spambase")


def _subsample(spec: str):
    from sklearn.model_selection import train_test_split

    from metaeval.datasets import Dataset, load_dataset

    name, _, rows = spec.partition(":")
    ds = load_dataset(name)
    keep, _ = train_test_split(np.arange(ds.n_instances), train_size=int(rows), random_state=0,
                               stratify=ds.y)
    keep = np.sort(keep)
    return Dataset(f"{name}-{rows}", ds.X.iloc[keep].reset_index(drop=True), ds.y[keep],
                   categorical=ds.categorical, family=ds.family,
                   sha256=f"subsample-{rows}-of-{ds.sha256}", source=f"{rows} rows of {name}",
                   class_names=ds.class_names)


def _every(k: int) -> list[str]:
    """Every k-th configuration of each family (all when k = 1), spread over its grid."""
    from metaeval.algorithms import WIDE_FAMILIES, family_of, list_algorithms

    names = list_algorithms("wide")
    out = []
    for f in WIDE_FAMILIES:
        members = [n for n in names if family_of(n) == f]
        out += members[::k] if k > 1 else members
    return out


def run(args) -> int:
    from metaeval.study import LocalExecutor, Study, run_study

    start = time.monotonic()
    datasets = list(args.datasets.split(",")) if args.datasets else list(SAMPLE)
    datasets += [_subsample(s) for s in args.subsample]
    algorithms = _every(args.every)
    for ds in datasets:
        left = args.budget - (time.monotonic() - start)
        if left <= 0:
            print("budget spent; run the same command again to continue", flush=True)
            return 0
        study = Study(datasets=[ds], algorithms=algorithms, folds=5, timeout=args.timeout,
                      executor=LocalExecutor(jobs=args.jobs), store=args.store)
        t0 = time.monotonic()
        summary = run_study(study)
        name = ds if isinstance(ds, str) else ds.name
        print(f"{name}: {summary.n_done} done, {summary.n_failed} failed, "
              f"{time.monotonic() - t0:.0f} s wall", flush=True)
    return 0


def _encoded_features(ds) -> int:
    p = len(ds.X.columns) - len(ds.categorical)
    for c in ds.categorical:
        p += ds.X[c].nunique(dropna=False)
    return p


def _sizes(names) -> pd.DataFrame:
    from metaeval.datasets import load_dataset

    rows = []
    for name in names:
        if name in _sizes.cache:
            rows.append(_sizes.cache[name])
            continue
        base, _, sub = name.rpartition("-")
        if sub.isdigit() and base:
            ds = load_dataset(base)
            n, p = int(sub), _encoded_features(ds)
        else:
            ds = load_dataset(name)
            n, p = ds.n_instances, _encoded_features(ds)
        _sizes.cache[name] = (name, n, p)
        rows.append(_sizes.cache[name])
    return pd.DataFrame(rows, columns=["dataset", "n", "p"]).set_index("dataset")


_sizes.cache = {}


def _fit(frame: pd.DataFrame) -> np.ndarray:
    A = np.column_stack([np.ones(len(frame)), np.log(frame["n"]), np.log(frame["p"])])
    coef, *_ = np.linalg.lstsq(A, np.log(frame["cpu"]), rcond=None)
    return coef


def _predict(coef, sizes: pd.DataFrame) -> np.ndarray:
    return np.exp(coef[0] + coef[1] * np.log(sizes["n"]) + coef[2] * np.log(sizes["p"]))


def estimate(args) -> int:
    from metaeval.algorithms import WIDE_FAMILIES, family_of
    from metaeval.datasets import list_datasets
    from metaeval.store import Store

    tasks = Store(args.store).tasks()
    tasks["family"] = tasks["algorithm"].map(family_of)
    tasks["cpu"] = tasks["cpu"].fillna(0.0)
    per = tasks.groupby(["family", "dataset"])["cpu"].agg(["mean", "size"]).reset_index()
    # a family's CPU on a dataset: mean per configuration run x the family's size (all of
    # it on the small datasets, every k-th configuration on the large ones)
    per["cpu"] = per["mean"] * per["family"].map(lambda f: len(WIDE_FAMILIES[f].configs()))
    per = per.drop(columns=["mean", "size"])
    sampled = sorted(per["dataset"].unique())
    sizes = _sizes(sampled)
    per = per.join(sizes, on="dataset")
    per = per[per["cpu"] > 0]
    suite = _sizes(list_datasets("full"))
    fams = sorted(per["family"].unique())
    rng = np.random.default_rng(0)

    def total(frame) -> tuple[float, dict]:
        out = {}
        for f in fams:
            sub = frame[frame["family"] == f]
            if sub["dataset"].nunique() < 3:
                return np.nan, {}
            out[f] = float(_predict(_fit(sub), suite).sum())
        return sum(out.values()), out

    point, by_family = total(per)
    boots = []
    for _ in range(args.bootstrap):
        pick = rng.choice(sampled, size=len(sampled), replace=True)
        frame = pd.concat([per[per["dataset"] == d] for d in pick], ignore_index=True)
        value, _ = total(frame)
        if np.isfinite(value):
            boots.append(value)
    lo, hi = np.percentile(boots, [5, 95]) if boots else (np.nan, np.nan)
    measured = tasks["cpu"].sum()
    print(f"sampled datasets ({len(sampled)}): "
          + ", ".join(f"{d} (n={sizes.at[d, 'n']}, p={sizes.at[d, 'p']})" for d in sampled))
    print(f"tasks: {len(tasks)} ({(tasks['status'] == 'failed').sum()} failed), measured CPU "
          f"{measured:.0f} s")
    print("family   b(n)   c(p)   suite CPU s")
    for f in fams:
        coef = _fit(per[per["family"] == f])
        print(f"{f:8s} {coef[1]:5.2f}  {coef[2]:5.2f}  {by_family.get(f, np.nan):10.0f}")
    cores = args.cores
    print(f"full suite ({len(suite)} datasets) x wide pool, 5-fold: CPU {point:.0f} s "
          f"(90% bootstrap interval {lo:.0f}-{hi:.0f}); wall with --jobs {cores} on {cores} "
          f"cores ~ {point / cores / 3600:.2f} h ({lo / cores / 3600:.2f}-"
          f"{hi / cores / 3600:.2f} h)")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    r = sub.add_parser("run")
    r.add_argument("--store", required=True)
    r.add_argument("--budget", type=float, default=1800.0, help="wall seconds")
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--timeout", type=float, default=300.0, help="per task, seconds")
    r.add_argument("--datasets", default="", help="comma-separated (default: a sample)")
    r.add_argument("--subsample", action="append", default=[], metavar="NAME:ROWS")
    r.add_argument("--every", type=int, default=1,
                   help="run every k-th configuration of each family (large datasets)")
    e = sub.add_parser("estimate")
    e.add_argument("--store", required=True)
    e.add_argument("--cores", type=int, default=2)
    e.add_argument("--bootstrap", type=int, default=1000)
    args = parser.parse_args(argv)
    return run(args) if args.step == "run" else estimate(args)


if __name__ == "__main__":
    sys.exit(main())
