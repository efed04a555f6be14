"""Benchmark: the family-level measures on a wide pool, against their per-algorithm twins.

Synthetic, seeded: 100 datasets x 500 configurations in 16 families (about 31 each),
5 folds. Each family-level step is timed against the per-algorithm computation it
builds on, measured in the same run:

* ``rank_families`` (AR, best member; AR, mean; SRR, best) against ``average_ranks``
  of the 500 algorithms (Abdulrahman & Brazdil 2014);
* ``family_value_captured`` + ``family_value`` against ``value_captured`` of the 500
  algorithms (10 metrics);
* ``family_dissimilarity`` of a 500 x 500 dissimilarity against its average-linkage
  clustering (Melo & Prudêncio 2014).

Goal: each family step within 2x its baseline (a family view must not cost more than
the per-algorithm one it summarises). Best of ``--repeat`` runs.

Run: ``python benchmarks/bench_families.py [--datasets 100] [--algorithms 500]
[--repeat 3]``.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
import pandas as pd

from metaeval.benchmark import (
    SKLEARN_METRICS,
    family_value,
    family_value_captured,
    value_captured,
)
from metaeval.ranking import average_ranks, rank_families
from metaeval.similarity import average_linkage, family_dissimilarity

N_FAMILIES = 16


def synthetic(n_datasets, n_algorithms, folds=5, seed=0):
    rng = np.random.default_rng(seed)
    names = [f"f{i % N_FAMILIES}:c={i // N_FAMILIES}" for i in range(n_algorithms)]
    fams = {n: n.split(":")[0] for n in names}
    skill = rng.normal(size=n_algorithms) * 0.05
    acc = np.clip(0.75 + skill[None, :, None]
                  + rng.normal(size=(n_datasets, n_algorithms, folds)) * 0.05, 0.01, 1)
    d, a, f = np.indices(acc.shape).reshape(3, -1)
    success = pd.DataFrame({"dataset": np.array([f"d{i:03d}" for i in range(n_datasets)])[d],
                            "algorithm": np.array(names, dtype=object)[a], "fold": f,
                            "value": acc.reshape(-1)})
    metrics = list(SKLEARN_METRICS)
    vals = rng.random((n_datasets, len(metrics), n_algorithms))
    d, m, a = np.indices(vals.shape).reshape(3, -1)
    long = pd.DataFrame({"dataset": np.array([f"d{i:03d}" for i in range(n_datasets)])[d],
                         "algorithm": np.array(names, dtype=object)[a],
                         "metric": np.array(metrics, dtype=object)[m],
                         "value": vals.reshape(-1)})
    X = rng.normal(size=(n_algorithms, 8))
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    return success, long, D, names, fams


def best_of(repeat, fn):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=100)
    parser.add_argument("--algorithms", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    success, metrics, D, names, fams = synthetic(args.datasets, args.algorithms)
    vc = value_captured(metrics)
    print(f"{platform.processor() or platform.machine()}; {args.datasets} datasets x "
          f"{args.algorithms} algorithms in {N_FAMILIES} families, 5 folds; best of "
          f"{args.repeat}")
    rows = []
    base = best_of(args.repeat, lambda: average_ranks(success))
    for label, fn in (
        ("rank_families AR, best", lambda: rank_families(success, fams)),
        ("rank_families AR, mean", lambda: rank_families(success, fams, how="mean")),
        ("rank_families SRR, best", lambda: rank_families(success, fams, method="srr")),
    ):
        rows.append((label, "average_ranks, all algorithms", best_of(args.repeat, fn), base))
    base = best_of(args.repeat, lambda: value_captured(metrics))
    rows.append(("family_value_captured + family_value", "value_captured, all algorithms",
                 best_of(args.repeat, lambda: (family_value_captured(vc, fams),
                                               family_value(vc, fams))), base))
    base = best_of(args.repeat, lambda: average_linkage(D))
    rows.append(("family_dissimilarity", f"average_linkage {len(names)} x {len(names)}",
                 best_of(args.repeat, lambda: family_dissimilarity(D, names, fams)), base))
    width = max(len(r[0]) for r in rows)
    for label, baseline, t, b in rows:
        print(f"{label:<{width}}  {t:8.3f} s  = {t / b:5.2f} x {baseline} ({b:.3f} s)")


if __name__ == "__main__":
    main()
