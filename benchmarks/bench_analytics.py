"""Benchmark: the bootstrap-stability grid, vectorised vs a per-draw loop.

The grid is that of the algorithm-benchmark web page on value captured, metric
disagreement and bootstrap stability (no printed reference; it follows Caruana &
Niculescu-Mizil 2006).

Grid: 50 datasets x 10 metrics x 8 algorithms (synthetic, seeded), d = 1..50,
m = 1..10, B = 50,000 draws per cell (500 cells, 25 million draws in all).
The straightforward per-draw Python loop is timed on a few cells with the
same draws, its counts checked against the vectorised ones, and the per-draw
time ratio reported. Target: the full grid in under a minute on 2 cores.

Run: ``python benchmarks/bench_analytics.py [--B 50000] [--loop-draws 2000]
[--independent]``.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
import pandas as pd

from metaeval.benchmark import METRICS, SKLEARN_METRICS, bootstrap_stability
from metaeval.benchmark._bootstrap import (
    draw_indices,
    independent_counts,
    nested_counts,
    pair_differences,
)
from metaeval.benchmark._frames import oriented_tensor
from metaeval.benchmark._value import _capture

N_DATASETS, N_ALGORITHMS = 50, 8
LOOP_CELLS = ((1, 1), (5, 2), (20, 5), (50, 10))


def synthetic_metrics(seed=0):
    """Metrics frame: algorithm skill + dataset difficulty + noise, losses on their scale."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0, 0.04, N_ALGORITHMS)
    rows = []
    for d in range(N_DATASETS):
        base = rng.uniform(0.6, 0.95)
        for j, metric in enumerate(SKLEARN_METRICS):
            shift = rng.normal(0, 0.02, N_ALGORITHMS)  # metric x dataset interaction
            q = np.clip(base + skill + shift + rng.normal(0, 0.02, N_ALGORITHMS), 0.01, 0.99)
            value = q if METRICS[metric].higher_is_better else (1 - q) * (0.3 + 0.1 * j)
            rows += [(f"ds{d:02d}", f"alg{a}", metric, value[a]) for a in range(N_ALGORITHMS)]
    return pd.DataFrame(rows, columns=["dataset", "algorithm", "metric", "value"])


def loop_count(delta, ds, ms, pair, d, m):
    """The straightforward reference: one Python iteration per draw."""
    full = np.sign(np.round(delta.mean(axis=(0, 1)), 12))
    differ = 0
    for b in range(len(pair)):
        total = delta[np.ix_(ds[b, :d], ms[b, :m])][:, :, pair[b]].sum() / (d * m)
        c = 1 if total > 1e-9 else (-1 if total < -1e-9 else 0)
        differ += c != full[pair[b]]
    return differ


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--B", type=int, default=50_000)
    parser.add_argument("--loop-draws", type=int, default=2_000)
    parser.add_argument("--independent", action="store_true",
                        help="also time draws='independent' on the full grid")
    args = parser.parse_args()
    B = args.B
    d_values, m_values = np.arange(1, 51), np.arange(1, 11)
    n_cells = d_values.size * m_values.size
    print(f"python {platform.python_version()}, numpy {np.__version__}, "
          f"grid {d_values.size} x {m_values.size} = {n_cells} cells, B = {B:,}")

    metrics = synthetic_metrics()
    t0, c0 = time.perf_counter(), time.process_time()
    grid = bootstrap_stability(metrics, d_values, m_values, B=B, seed=0)
    t_nested, c_nested = time.perf_counter() - t0, time.process_time() - c0
    per_draw_cell = t_nested / (B * n_cells)
    print(f"nested (default): full grid {t_nested:.2f} s wall, {c_nested:.2f} s CPU = "
          f"{1e9 * per_draw_cell:.1f} ns per (draw, cell); {B * n_cells / 1e6:.0f} M draw-cells")
    wide = grid.pivot(index="n_datasets", columns="n_metrics", values="p_different")
    print("p_different at d = 1, 5, 10, 15, 25, 50 (rows) x m = 1, 3, 10 (columns):")
    print(wide.loc[[1, 5, 10, 15, 25, 50], [1, 3, 10]].round(3).to_string())

    if args.independent:
        t0, c0 = time.perf_counter(), time.process_time()
        indep = bootstrap_stability(metrics, d_values, m_values, B=B, seed=0,
                                    draws="independent")
        t_ind, c_ind = time.perf_counter() - t0, time.process_time() - c0
        gap = np.abs(indep["p_different"] - grid["p_different"]).max()
        print(f"independent: full grid {t_ind:.2f} s wall, {c_ind:.2f} s CPU; "
              f"max |nested - independent| = {gap:.4f}")

    # the per-draw loop on a few cells, with the same draws as the vectorised code
    _, _, _, X, _ = oriented_tensor(metrics, complete=True)
    delta = pair_differences(_capture(X))
    D, M, P = delta.shape
    L = args.loop_draws
    print(f"per-draw Python loop on {L:,} draws per cell; the same draws fed to the "
          "vectorised code give the same count (check column).")
    print("per-draw times in us: loop | independent one cell (B draws) | nested full grid "
          "per (draw, cell)")
    print("    d   m      loop   indep.   nested   loop/indep.   loop/nested   check")
    t_loops = []
    for d, m in LOOP_CELLS:
        ds, ms, pair = draw_indices(np.random.default_rng(d * 100 + m), L, D, M, P, d, m)
        t0 = time.perf_counter()
        ref = loop_count(delta, ds, ms, pair, d, m)
        t_loop = (time.perf_counter() - t0) / L
        t_loops.append(t_loop)
        same = ref == independent_counts(delta, ds, ms, pair) == nested_counts(
            delta, ds, ms, pair, [d], [m])[0, 0]
        ds, ms, pair = draw_indices(np.random.default_rng(d * 100 + m), B, D, M, P, d, m)
        t0 = time.perf_counter()
        independent_counts(delta, ds, ms, pair)
        t_vec = (time.perf_counter() - t0) / B
        print(f"  {d:3d} {m:3d}  {1e6 * t_loop:8.2f} {1e6 * t_vec:8.3f} "
              f"{1e6 * per_draw_cell:8.3f}   {t_loop / t_vec:11.0f}x  "
              f"{t_loop / per_draw_cell:11.0f}x   {same}")
    # loop cost per draw ~ a + b * d * m: fit on the timed cells, sum over the grid
    size = np.array([d * m for d, m in LOOP_CELLS], float)
    b, a = np.polyfit(size, t_loops, 1)
    grid_size = np.outer(d_values, m_values).ravel()
    t_loop_grid = B * float(np.sum(a + b * grid_size))
    print(f"loop cost per draw ~ {1e6 * a:.2f} + {1e9 * b:.1f}e-3 * d * m us -> the full grid "
          f"by loop ~ {t_loop_grid / 60:.0f} min, {t_loop_grid / t_nested:,.0f}x the nested "
          f"{t_nested:.1f} s")


if __name__ == "__main__":
    main()
