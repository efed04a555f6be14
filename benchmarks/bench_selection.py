"""Benchmark: footprints, per-instance selection and β³-IRT on the largest built-in dataset.

On ``letter`` (20,000 rows; or ``--dataset``) and the full pool of the study store
(the 8 algorithms of Melo & Prudêncio 2014, 10-fold CV):

* baseline: fitting the pool once on all rows (each algorithm's scikit-learn
  pipeline, as a study fits it in one fold) and scoring the rows;
* footprints: the 2-D projection plus every algorithm's footprint at two cost
  proportions (``condition_footprints``);
* selection: ``evaluate_selection`` at five cost proportions, nested CV on the
  study's 10 folds;
* IRT: ``fit_beta3_irt`` on the true-class probabilities (rows x 8).

For each: CPU seconds (``time.process_time``, this process), wall seconds, the
ratio to the baseline's CPU seconds, and the peak memory traced by ``tracemalloc``
(Python and numpy allocations; compare it with the size of the score matrix).
Timings on a shared machine are noisy: the load average is printed with them.

Run: ``python benchmarks/bench_selection.py [--store /work/stores/full.duckdb]
[--dataset letter]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import tracemalloc


def measure(fn):
    """(result, cpu seconds, wall seconds, peak traced MiB) of one call."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return out, cpu, wall, peak


def fit_pool_once(ds, algorithms):
    from metaeval.algorithms import get_algorithm

    categorical = list(ds.categorical)
    numeric = [c for c in ds.X.columns if c not in categorical]
    for name in algorithms:  # a loop over the pool
        algo = get_algorithm(name)
        model = algo.build(categorical=categorical, numeric=numeric, random_state=0)
        model.fit(ds.X, ds.y)
        algo.score(model, ds.X)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default="/work/stores/full.duckdb")
    parser.add_argument("--dataset", default="letter")
    args = parser.parse_args()

    from metaeval.datasets import load_dataset
    from metaeval.hardness.classic import encode_features
    from metaeval.instance_space import project_instances
    from metaeval.selection import (
        condition_footprints,
        evaluate_selection,
        fit_beta3_irt,
        irt_responses,
    )
    from metaeval.store import Store

    store = Store(args.store)
    y, S, algorithms = store.scores(args.dataset)
    frame = store.scores_frame(args.dataset)
    first = frame[(frame["algorithm"] == algorithms[0]) & (frame["repeat"] == 0)]
    folds = first.sort_values("row")["fold"].to_numpy()
    ds = load_dataset(args.dataset)
    print(f"{platform.platform()}, {os.cpu_count()} CPUs, load {os.getloadavg()}")
    print(f"{args.dataset}: {len(y)} rows, {ds.X.shape[1]} features; pool {algorithms}; "
          f"scores {S.nbytes / 2**20:.1f} MiB")  # fmt: skip

    rows = []

    def report(name, cpu, wall, peak, base=None):
        ratio = "" if base is None else f"{cpu / base:8.2f}"
        rows.append((name, cpu, wall, peak))
        print(f"{name:<34} {cpu:8.1f} {wall:8.1f} {peak:9.1f} {ratio}", flush=True)

    print(f"\n{'stage':<34} {'cpu s':>8} {'wall s':>8} {'peak MiB':>9} {'/ pool':>8}")
    _, base, wall, peak = measure(lambda: fit_pool_once(ds, algorithms))
    report("baseline: fit + score the pool once", base, wall, peak)
    Z = encode_features(ds.X, list(ds.categorical))
    xy, cpu, wall, peak = measure(lambda: project_instances(Z, encode=False))
    report("projection (PCA of encoded features)", cpu, wall, peak, base)
    fps, cpu, wall, peak = measure(
        lambda: condition_footprints(xy, y, S, costs=(0.2, 0.8), algorithms=algorithms)
    )
    report("footprints: 8 algorithms x 2 costs", cpu, wall, peak, base)
    table, cpu, wall, peak = measure(
        lambda: evaluate_selection(
            Z, y, S, folds, c=(0.1, 0.3, 0.5, 0.7, 0.9), algorithms=algorithms
        )  # fmt: skip
    )
    report("selection: nested CV, 5 costs", cpu, wall, peak, base)
    fit, cpu, wall, peak = measure(lambda: fit_beta3_irt(irt_responses(y, S)))
    report("IRT: beta3 fit, rows x 8", cpu, wall, peak, base)
    total = sum(r[1] for r in rows[1:])
    print(f"{'all three analyses':<34} {total:8.1f} {'':8} {'':9} {total / base:8.2f}")
    print(f"\nload after: {os.getloadavg()}")
    print("\nfootprint areas (normalised) at c = 0.2 / 0.8:")
    for a in algorithms:
        print(f"  {a:8s} {fps[0.2][a].area / fps[0.2]['space'].area:.3f} / "
              f"{fps[0.8][a].area / fps[0.8]['space'].area:.3f}")  # fmt: skip
    print("\nselection (mean loss per instance):")
    print(table[["c", "loss_single_best", "loss_selected", "loss_oracle", "gap_closed", "k"]]
          .round(4).to_string(index=False))  # fmt: skip
    print(
        f"\nIRT: converged {fit.converged} in {fit.n_iter} iterations; abilities "
        + ", ".join(f"{a} {t:.3f}" for a, t in zip(algorithms, fit.ability, strict=True))
    )


if __name__ == "__main__":
    main()
