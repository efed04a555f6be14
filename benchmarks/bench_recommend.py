"""Speed of recommendation: leave-one-dataset-out of every strategy on a large knowledge base.

A synthetic store of 50 datasets x 300 algorithms (out-of-fold scores of 100 instances
each, a family structure, synthetic meta-features and landmark features) is written to a
real DuckDB file. Timed, in this run:

1. the baseline: reading every dataset's results from the store once (``Store.scores``);
2. building the knowledge base (read + score each cell under the condition);
3. ``evaluate_recommenders`` with all seven strategies (random: 100 seeded orders);
4. meta-feature time (pymfe groups and landmarkers) on the largest built-in dataset.

Ratios are against the baseline of the same run; wall and CPU seconds and the load
average are printed, since the machine may be shared.

With ``--shipped`` it times instead what ``metaeval recommend --evaluate`` runs: every
strategy, ``auto`` (nested: its own inner cross-validation in every fold) included, on
the shipped knowledge base under one condition, twice, and checks that the two JSON
documents are identical.

Usage: python benchmarks/bench_recommend.py [--datasets 50] [--algorithms 300]
       [--instances 100] [--no-metafeatures]
       python benchmarks/bench_recommend.py --shipped [--measure accuracy] [--p 0]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np
import pandas as pd

from metaeval.recommend import (
    Condition,
    KnowledgeBase,
    describe_dataset,
    evaluate_recommenders,
    load_knowledge,
)
from metaeval.store import Store


def _clock():
    return time.perf_counter(), time.process_time()


def _since(start):
    wall, cpu = _clock()
    return wall - start[0], cpu - start[1]


def write_store(path, n_datasets, n_algorithms, n_instances, seed=0):
    """A finished synthetic study: algorithm skill + dataset effect + noise."""
    rng = np.random.default_rng(seed)
    store = Store(path)
    names = [f"d{i:02d}" for i in range(n_datasets)]
    algorithms = [f"a{j:03d}" for j in range(n_algorithms)]
    skill = rng.uniform(0.0, 1.5, n_algorithms)
    cost = rng.lognormal(0.0, 1.5, n_algorithms)
    with store.writing():
        store.sync_study(
            {"synthetic": True},
            datasets=[{"name": n, "sha256": None, "n_instances": n_instances, "n_features": 5,
                       "positive_fraction": 0.5, "family": f"f{i // 3}", "source": "bench"}
                      for i, n in enumerate(names)],
            algorithms=[{"name": a, "estimator": "bench.A", "params": "{}",
                         "score_method": "predict_proba", "versions": "{}"}
                        for a in algorithms],
            tasks=[(n, a, 0) for n in names for a in algorithms])
        y = np.tile([0, 1], n_instances // 2).astype(np.int8)
        fold = np.arange(n_instances) % 5
        timings = {k: [0.01] * 5 for k in ("fit_wall", "fit_cpu", "predict_wall",
                                           "predict_cpu")}
        for n in names:
            affinity = rng.normal(0, 0.5, n_algorithms)
            size = rng.uniform(0.2, 5.0)
            for j, a in enumerate(algorithms):
                margin = skill[j] + affinity[j]
                s = 1 / (1 + np.exp(-(margin * (2 * y - 1) + rng.normal(0, 1.5, n_instances))))
                wall = float(cost[j] * size)
                store.record_task(n, a, 0, status="done", wall=wall, cpu=wall, n_folds=5,
                                  fold=fold, y=y, score=s, timings=timings)
    return store, names


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=50)
    parser.add_argument("--algorithms", type=int, default=300)
    parser.add_argument("--instances", type=int, default=100)
    parser.add_argument("--no-metafeatures", action="store_true",
                        help="skip timing pymfe on the largest built-in dataset")
    args = parser.parse_args(argv)
    print(f"load average at start: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        start = _clock()
        store, names = write_store(os.path.join(tmp, "bench.duckdb"), args.datasets,
                                   args.algorithms, args.instances)
        wall, _ = _since(start)
        print(f"wrote {args.datasets} datasets x {args.algorithms} algorithms x "
              f"{args.instances} instances in {wall:.1f} s (set-up, not timed below)")

        start = _clock()
        for name in names:
            store.scores(name)
        read_wall, read_cpu = _since(start)
        print(f"baseline  read every result once:     wall {read_wall:7.2f} s  "
              f"cpu {read_cpu:7.2f} s")

        condition = Condition("accuracy", time_weight=1 / 64)
        start = _clock()
        kb = KnowledgeBase.from_store(store, condition)
        kb_wall, kb_cpu = _since(start)
        print(f"knowledge base (read + score):        wall {kb_wall:7.2f} s  "
              f"cpu {kb_cpu:7.2f} s  ({kb_wall / read_wall:.1f} x baseline)")

    rng = np.random.default_rng(1)
    d = len(kb.datasets)
    kb = KnowledgeBase(
        kb.datasets, kb.algorithms, kb.success, kb.times, kb.families, kb.n_instances,
        metafeatures=pd.DataFrame(rng.normal(size=(d, 100)), index=list(kb.datasets)),
        metafeature_time=rng.uniform(0.5, 5, d),
        landmarks=pd.DataFrame(kb.success[:, :4] + rng.normal(0, 0.01, (d, 4)),
                               index=list(kb.datasets)),
        landmark_time=rng.uniform(0.1, 2, d), condition=condition)
    start = _clock()
    ev = evaluate_recommenders(kb, condition)
    ev_wall, ev_cpu = _since(start)
    print(f"evaluate 7 strategies, {d} held out:  wall {ev_wall:7.2f} s  cpu {ev_cpu:7.2f} s  "
          f"({ev_wall / read_wall:.1f} x baseline)")
    print(ev.summary[["strategy", "mil", "loss_at_1", "loss_at_3", "closed_gap"]].round(4)
          .to_string(index=False))

    if not args.no_metafeatures:
        from metaeval.datasets import load_dataset

        for name in ("magic", "letter"):
            dataset = load_dataset(name)
            start = _clock()
            description = describe_dataset(dataset)
            wall, _ = _since(start)
            groups = description.groups
            parts = ", ".join(f"{r.group} {r.wall:.1f}/{r.cpu:.1f}"
                              for r in groups.itertuples(index=False))
            bad = groups[groups["status"] != "ok"]
            print(f"describe {name} ({dataset.n_instances} rows): wall {wall:.1f} s; pymfe on "
                  f"5000 sampled rows {description.seconds('pymfe'):.1f} s wall / "
                  f"{description.seconds('pymfe', 'cpu'):.1f} s CPU, landmarkers (3 folds, all "
                  f"rows) {description.seconds('landmarker'):.1f} s wall / "
                  f"{description.seconds('landmarker', 'cpu'):.1f} s CPU; per group wall/CPU: "
                  f"{parts}"
                  + (f"; not ok: {bad[['group', 'status']].values.tolist()}" if len(bad)
                     else ""))
    print(f"load average at end: {os.getloadavg()}")


def shipped(argv=None):
    """Every strategy, auto included, on the shipped knowledge base: twice, timed."""
    import json

    parser = argparse.ArgumentParser()
    parser.add_argument("--shipped", action="store_true")
    parser.add_argument("--measure", default="accuracy")
    parser.add_argument("--cost", type=float, default=None)
    parser.add_argument("--beta", default=None, help="A,B of a Beta cost distribution")
    parser.add_argument("--p", type=float, default=0.0)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)
    condition = Condition(args.measure, cost=args.cost, cost_beta=args.beta,
                          time_weight=args.p)
    archive = load_knowledge()
    documents = []
    for r in range(args.repeats):
        start = _clock()
        ev = evaluate_recommenders(archive, condition)
        wall, cpu = _since(start)
        documents.append(json.dumps(ev.to_json(), sort_keys=True))
        print(f"recommend --evaluate, {condition.label}, run {r + 1}: wall {wall:7.2f} s  "
              f"cpu {cpu:7.2f} s  ({len(ev.strategies)} strategies; load average "
              f"{os.getloadavg()[0]:.1f})", flush=True)
    print("identical on rerun:", all(d == documents[0] for d in documents))
    print(ev.summary[["strategy", "mil", "loss_at_1", "loss_at_3", "closed_gap"]].round(4)
          .to_string(index=False))
    print("auto chose:", ev.chosen("auto"))


if __name__ == "__main__":
    import sys

    if "--shipped" in sys.argv:
        shipped()
    else:
        main()
