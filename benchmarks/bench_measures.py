"""Benchmark of the core measures against baselines timed in the same run.

Prints, for scores with ties (rounded to 3 decimals) at n = 10**6 and 10**7:

* all five threshold choice methods / one ``np.argsort`` of the same array (target <= 3),
  both as five ``instance_hardness`` calls and as one ``instance_hardness_by_method``
  call (which shares the sort between the two rate-based methods);
* the same / ``sklearn.metrics.roc_auc_score`` on the same data;
* peak traced memory (tracemalloc) of one call / input size (target < 3).

under Beta cost distributions (n = 10**6): all five methods / ``np.argsort``, for
Beta(2, 5) and the concentrated Beta(10**5, 10**5), on 3-decimal scores (about a thousand
tied groups) and on 6-decimal scores (mostly untied, many small tied groups);

and, for a pool of 200 models x 10**5 instances, the dissimilarity matrix /
``scipy.spatial.distance.cdist(H.T, H.T, "cityblock") / n`` (target <= 1.2) with its
peak memory / input size. Times are the best CPU times of a few interleaved repeats.

Usage: ``python benchmarks/bench_measures.py [--quick] [--only beta]`` (``--quick``: 10x
smaller; ``--only beta``: the Beta part alone).
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.metrics import roc_auc_score

from metaeval.hardness import METHODS, instance_hardness, instance_hardness_by_method
from metaeval.similarity import dissimilarity_matrix


def best_times(functions, repeats):
    """Best CPU time (``time.process_time``) of each function over the repeats.

    Every operation timed here is single-threaded, so CPU time equals wall time on an idle
    machine and does not count the time the process waits for a core on a busy one. The
    functions take turns in every repeat, so that a change of load (memory bandwidth)
    hits baseline and candidate alike.
    """
    best = {name: float("inf") for name in functions}
    for _ in range(repeats):
        for name, fn in functions.items():
            gc.collect()
            start = time.process_time()
            fn()
            best[name] = min(best[name], time.process_time() - start)
    return best


def peak_memory(fn):
    """Peak bytes allocated (and traced) while ``fn`` runs, beyond what existed before."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak


def five_separately(y, s):
    return [instance_hardness(y, s, method) for method in METHODS]


def five_at_once(y, s):
    return instance_hardness_by_method(y, s, METHODS)


def bench_scores(n, repeats, rng):
    s = np.round(rng.random(n), 3)  # at most 1001 distinct values: heavy ties
    y = (rng.random(n) < s).astype(np.int8)
    input_bytes = s.nbytes + y.nbytes
    times = best_times(
        {
            "argsort": lambda: np.argsort(s),
            "auc": lambda: roc_auc_score(y, s),
            "separately": lambda: five_separately(y, s),
            "at once": lambda: five_at_once(y, s),
            "rate-driven": lambda: instance_hardness(y, s, "rate-driven"),
        },
        repeats,
    )
    t_sort, t_auc, t_sep, t_once, t_rd = times.values()
    peak_single = max(
        peak_memory(lambda m=method: instance_hardness(y, s, m)) for method in METHODS
    )
    print(
        f"\nn = {n:.0e} scores, 3 decimals ({np.unique(s).size} distinct values), "
        f"best of {repeats}"
    )
    print(f"  np.argsort                        {t_sort:8.3f} s")
    print(f"  roc_auc_score                     {t_auc:8.3f} s")
    print(f"  rate-driven alone                 {t_rd:8.3f} s   {t_rd / t_sort:5.2f} x argsort")
    print(
        f"  five methods, one call            {t_once:8.3f} s   "
        f"{t_once / t_sort:5.2f} x argsort (target <= 3)   "
        f"{t_once / t_auc:5.2f} x roc_auc_score"
    )
    print(
        f"  five methods, five calls          {t_sep:8.3f} s   "
        f"{t_sep / t_sort:5.2f} x argsort (target <= 3)   "
        f"{t_sep / t_auc:5.2f} x roc_auc_score"
    )
    print(
        f"  peak memory, worst single method  {peak_single / 2**20:8.1f} MiB "
        f"{peak_single / input_bytes:5.2f} x input (s float64 + y int8; target < 3)"
    )


def bench_beta(n, repeats, rng):
    s3 = np.round(rng.random(n), 3)
    s6 = np.round(rng.random(n), 6)  # about 0.6 n distinct values, many tied pairs
    y = (rng.random(n) < s3).astype(np.int8)
    cases = {
        "argsort": lambda: np.argsort(s6),
        "3 dec., Beta(2, 5)": lambda: instance_hardness_by_method(
            y, s3, METHODS, cost_distribution=(2, 5)
        ),
        "3 dec., Beta(1e5, 1e5)": lambda: instance_hardness_by_method(
            y, s3, METHODS, cost_distribution=(1e5, 1e5)
        ),
        "6 dec., Beta(2, 5)": lambda: instance_hardness_by_method(
            y, s6, METHODS, cost_distribution=(2, 5)
        ),
        "6 dec., Beta(1e5, 1e5)": lambda: instance_hardness_by_method(
            y, s6, METHODS, cost_distribution=(1e5, 1e5)
        ),
    }
    times = best_times(cases, repeats)
    t_sort = times.pop("argsort")
    print(f"\nBeta cost distributions, n = {n:.0e}, five methods in one call, best of {repeats}")
    print(f"  np.argsort (6 decimals)           {t_sort:8.3f} s")
    for name, t in times.items():
        print(f"  {name:<33} {t:8.3f} s   {t / t_sort:5.2f} x argsort")


def bench_pool(n, n_models, repeats, rng):
    H = np.round(rng.random((n, n_models)), 3)
    times = best_times(
        {
            "cdist": lambda: cdist(H.T, H.T, "cityblock") / n,
            "ours": lambda: dissimilarity_matrix(H),
        },
        repeats,
    )
    t_cdist, t_ours = times.values()
    D = dissimilarity_matrix(H)
    ref = cdist(H.T, H.T, "cityblock") / n
    peak = peak_memory(lambda: dissimilarity_matrix(H))
    print(f"\npool: {n_models} models x {n:.0e} instances, best of {repeats}")
    print(f"  cdist(H.T, H.T, 'cityblock') / n  {t_cdist:8.3f} s")
    print(
        f"  dissimilarity_matrix              {t_ours:8.3f} s   "
        f"{t_ours / t_cdist:5.2f} x cdist (target <= 1.2)   "
        f"max |diff| {np.abs(D - ref).max():.1e}"
    )
    print(
        f"  peak memory                       {peak / 2**20:8.1f} MiB "
        f"{peak / H.nbytes:5.2f} x input (target < 3)"
    )
    S = np.round(rng.random((n, n_models)), 3)
    y = (rng.random(n) < S[:, 0]).astype(np.int8)
    times = best_times(
        {
            "argsort": lambda: np.argsort(S, axis=0),
            "pool": lambda: instance_hardness(y, S, "rate-driven"),
        },
        repeats,
    )
    t_sort2, t_pool = times.values()
    peak_pool = peak_memory(lambda: instance_hardness(y, S, "rate-driven"))
    print(
        f"  rate-driven hardness of the pool  {t_pool:8.3f} s   "
        f"{t_pool / t_sort2:5.2f} x np.argsort(S, axis=0)   peak memory "
        f"{peak_pool / (S.nbytes + y.nbytes):4.2f} x input"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10x smaller sizes")
    parser.add_argument("--only", choices=["beta"], help="run one part only")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(20240611)
    scale = 10 if args.quick else 1
    print("metaeval core measures benchmark" + (" (quick)" if args.quick else ""))
    if args.only == "beta":
        bench_beta(10**6 // scale, 5, rng)
        return
    bench_scores(10**6 // scale, 7, rng)
    bench_scores(10**7 // scale, 5, rng)
    bench_beta(10**6 // scale, 5, rng)
    bench_pool(10**5 // scale, 200, 3, rng)


if __name__ == "__main__":
    main()
