"""Benchmark: the classic instance hardness measures on credit-g and magic.

For each dataset (encoded as the measures encode it):

* the time of one scikit-learn ``NearestNeighbors(n_neighbors=5)`` fit + query of
  all rows (the baseline, best of 3);
* the time of each measure computed on its own (its public function, which
  recomputes the neighbours, trees or naive Bayes it needs);
* the time of ``classic_hardness`` with all 16 measures (shared work), and that
  total divided by the baseline;
* the peak memory traced by ``tracemalloc`` during ``classic_hardness``.

Then, on magic, a scaling check (rows 2,500 .. 19,020: time and peak memory per
row, to show memory growing linearly) and the agreement of N1's k-NN-graph
approximation with the exact tree. Target: all measures on ~20,000 rows in
under a minute on 2 cores, memory linear in rows.

Run: ``python benchmarks/bench_classic.py [--datasets credit-g magic] [--no-scaling]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.neighbors import NearestNeighbors

from metaeval.hardness import classic as C

DATA = Path(C.__file__).resolve().parents[2] / "datasets" / "data"


def load(name):
    """Features, 0/1 labels and categorical columns of a built-in dataset."""
    try:
        from metaeval.datasets import load_dataset

        ds = load_dataset(name)
        return ds.X, np.asarray(ds.y), list(ds.categorical)
    except Exception as exc:  # the datasets module may not be ready: read the file
        print(f"  (metaeval.datasets.load_dataset failed: {exc!r}; reading the csv)")
        frame = pd.read_csv(DATA / f"{name}.csv.gz")
        row = pd.read_csv(DATA / "manifest.csv").set_index("name").loc[name]
        cats = row["categorical_columns"]
        categorical = [] if pd.isna(cats) else cats.split("|")
        for col in categorical:
            frame[col] = frame[col].astype(str)
        y = frame.pop("class").to_numpy()
        return frame, (y == np.unique(y)[-1]).astype(int), categorical


def best_of(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def single_measure_calls(Z, y):
    return {
        "kDN": lambda: C.k_disagreeing_neighbors(Z, y),
        "DS": lambda: C.disjunct_size(Z, y),
        "DCP": lambda: C.disjunct_class_percentage(Z, y),
        "TD_P": lambda: C.tree_depth_pruned(Z, y),
        "TD_U": lambda: C.tree_depth_unpruned(Z, y),
        "CL": lambda: C.class_likelihood(Z, y),
        "CLD": lambda: C.class_likelihood_difference(Z, y),
        "MV": lambda: C.minority_value(y),
        "CB": lambda: C.class_balance(y),
        "N1": lambda: C.borderline_points(Z, y),
        "N2": lambda: C.intra_extra_ratio(Z, y),
        "LSC": lambda: C.local_set_cardinality(Z, y),
        "LSR": lambda: C.local_set_radius(Z, y),
        "Harmfulness": lambda: C.harmfulness(Z, y),
        "Usefulness": lambda: C.usefulness(Z, y),
        "F1": lambda: C.feature_overlap(Z, y),
    }


def peak_memory(fn):
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def bench_dataset(name):
    X, y, categorical = load(name)
    t0 = time.perf_counter()
    Z = C.encode_features(X, categorical)
    t_encode = time.perf_counter() - t0
    n, d = Z.shape
    print(
        f"\n== {name}: {n} rows, {X.shape[1]} features -> {d} encoded "
        f"({len(categorical)} categorical), encoding {t_encode:.3f} s"
    )
    t_nn = best_of(lambda: NearestNeighbors(n_neighbors=5).fit(Z).kneighbors(Z))
    print(f"baseline NearestNeighbors(k=5) fit+query: {t_nn:.3f} s")
    print(f"{'measure':<12} {'alone (s)':>10} {'/ NN':>7}")
    alone = {}
    for measure, call in single_measure_calls(Z, y).items():
        alone[measure] = best_of(call, repeat=1)
        print(f"{measure:<12} {alone[measure]:>10.3f} {alone[measure] / t_nn:>7.1f}")
    t_all = best_of(lambda: C.classic_hardness(Z, y, encode=False), repeat=1)
    peak = peak_memory(lambda: C.classic_hardness(Z, y, encode=False))
    print(f"sum of the 16 separate calls: {sum(alone.values()):.2f} s")
    print(
        f"classic_hardness, all 16 (shared work): {t_all:.2f} s = {t_all / t_nn:.1f} x "
        f"the NN baseline; peak traced memory {peak / 2**20:.1f} MiB "
        f"({peak / n / 1024:.1f} KiB per row; the data itself is {Z.nbytes / 2**20:.1f} MiB)"
    )
    return Z, y


def scaling(Z, y, sizes):
    print("\n== scaling on magic (all 16 measures, random row subsets)")
    print(f"{'rows':>7} {'time (s)':>9} {'peak MiB':>9} {'KiB/row':>8} {'s/NN':>6}")
    rng = np.random.default_rng(0)
    for size in sizes:
        rows = (
            np.sort(rng.choice(Z.shape[0], size=size, replace=False))
            if size < len(y)
            else (np.arange(len(y)))
        )
        Zs, ys = Z[rows], y[rows]
        t_nn = best_of(lambda Zs=Zs: NearestNeighbors(n_neighbors=5).fit(Zs).kneighbors(Zs))
        t = best_of(lambda Zs=Zs, ys=ys: C.classic_hardness(Zs, ys, encode=False), repeat=1)
        peak = peak_memory(lambda Zs=Zs, ys=ys: C.classic_hardness(Zs, ys, encode=False))
        print(
            f"{size:>7} {t:>9.2f} {peak / 2**20:>9.1f} {peak / size / 1024:>8.1f} {t / t_nn:>6.1f}"
        )


def n1_agreement(Z, y, name):
    t0 = time.perf_counter()
    exact = C.borderline_points(Z, y, exact_max=len(y))
    t_exact = time.perf_counter() - t0
    t0 = time.perf_counter()
    approx = C.borderline_points(Z, y, exact_max=0)
    t_approx = time.perf_counter() - t0
    same = np.mean(np.isclose(exact, approx))
    print(
        f"N1 on {name}: exact (Prim) {t_exact:.2f} s, 10-NN-graph approximation "
        f"{t_approx:.2f} s; equal on {100 * same:.2f} % of rows, mean |diff| "
        f"{np.abs(exact - approx).mean():.4f}"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["credit-g", "magic"])
    parser.add_argument("--no-scaling", action="store_true")
    args = parser.parse_args()
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, "
        f"{os.cpu_count()} CPUs, {platform.machine()}"
    )
    encoded = {}
    for name in args.datasets:
        encoded[name] = bench_dataset(name)
    print()
    for name, (Z, y) in encoded.items():
        n1_agreement(Z, y, name)
    if not args.no_scaling and "magic" in encoded:
        Z, y = encoded["magic"]
        scaling(Z, y, [2500, 5000, 10000, len(y)])


if __name__ == "__main__":
    main()
