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

With ``--curves`` it times making the evaluation's curves frame (the rows of every
strategy's curve on every held-out dataset: 51 datasets x 12 strategies x 153 steps, as
``recommend --evaluate`` on the shipped knowledge base makes) the way the evaluation makes
it, against the way it was made before (one Series per label and curve, concatenated),
both in this run, and checks that the two frames are equal.

With ``--repetitions`` it times ``evaluate_recommenders`` of the cheap strategies on a
synthetic knowledge base of two repetitions scored on the unseen repetition against the
same scored on the same repetition (the extra cost of scoring both ways).

Usage: python benchmarks/bench_recommend.py [--datasets 50] [--algorithms 300]
       [--instances 100] [--no-metafeatures]
       python benchmarks/bench_recommend.py --shipped [--measure accuracy] [--p 0]
       python benchmarks/bench_recommend.py --curves
       python benchmarks/bench_recommend.py --repetitions
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


def _curves_by_series(parts):
    """The curves frame as it was made before: one Series per label and curve,
    concatenated (the baseline of ``--curves``)."""
    labels = ("dataset", "family", "strategy", "algorithm")
    series = [{"dataset": pd.Series([p["dataset"]] * p["step"].size),
               "family": pd.Series([p["family"]] * p["step"].size),
               "strategy": pd.Series([p["strategy"]] * p["step"].size),
               "algorithm": pd.Series([None if a is None or a != a else a
                                       for a in p["algorithm"]])} for p in parts]
    out = {k: pd.concat([s[k] for s in series], ignore_index=True) for k in labels}
    out.update({k: np.concatenate([p[k] for p in parts]) for k in ("step", "elapsed", "loss")})
    return pd.DataFrame(out, columns=["dataset", "family", "strategy", "step", "algorithm",
                                      "elapsed", "loss"])


def curves(argv=None):
    """The curves frame: as the evaluation makes it, against one Series per curve."""
    from metaeval.recommend.evaluation import _evaluate
    from metaeval.recommend.learners._strategies import RandomOrder, SingleBest

    D, A, S = 51, 152, 12
    rng = np.random.default_rng(0)
    train = KnowledgeBase([f"d{i}" for i in range(3)], [f"a{j}" for j in range(A)],
                          np.ones((3, A)), np.ones((3, A)))
    strategies = [SingleBest()] * (S - 1) + [RandomOrder(repeats=10)]
    ways = []
    for i in range(D):
        for s in strategies:
            rand = isinstance(s, RandomOrder)
            order = np.tile(np.arange(A), (10, 1)) if rand else rng.permutation(A)
            ways.append((f"d{i}", s, [{"order": order, "loss": rng.random(A),
                                       "elapsed": np.cumsum(rng.random(A)),
                                       "overhead": 0.1, "loss0": 1.0, "random": rand}]))
    timings = {"now": [], "series": []}
    for _ in range(3):
        start = _clock()
        parts = [_evaluate._curve_columns(n, f"f{n}", s, train, w) for n, s, w in ways]
        now = _evaluate._curves_frame(parts)
        timings["now"].append(_since(start))
        start = _clock()
        parts = [_evaluate._curve_columns(n, f"f{n}", s, train, w) for n, s, w in ways]
        before = _curves_by_series(parts)
        timings["series"].append(_since(start))
    pd.testing.assert_frame_equal(now, before, check_exact=True)
    for k, v in timings.items():
        print(f"curves frame ({len(now)} rows), {k:>6}: best wall {min(w for w, _ in v):.3f} s"
              f"  cpu {min(c for _, c in v):.3f} s")
    print("equal frames: True; load average", os.getloadavg()[0])


def repetitions(argv=None):
    """Unseen against same repetition: the cost of scoring each way."""
    rng = np.random.default_rng(0)
    D, A = 51, 152
    base = rng.uniform(0.5, 0.9, A) + rng.normal(0, 0.05, (D, A))
    reps = np.clip(base[None] + rng.normal(0, 0.01, (2, D, A)), 0, 1)
    kb = KnowledgeBase([f"d{i}" for i in range(D)], [f"a{j}" for j in range(A)],
                       reps.mean(axis=0), rng.uniform(0.1, 10, (D, A)),
                       families=[f"f{i // 2}" for i in range(D)], repetitions=reps)
    names = ["single-best", "average-ranking", "active-testing", "random", "oracle"]
    for scored_on in ("same repetition", "unseen repetition"):
        start = _clock()
        ev = evaluate_recommenders(kb, strategies=names, scored_on=scored_on)
        wall, cpu = _since(start)
        print(f"{scored_on:>17}: wall {wall:6.2f} s  cpu {cpu:6.2f} s; loss@1 of the single "
              f"best {ev.summary.set_index('strategy').loc['single-best', 'loss_at_1']:.4f}")
    print("load average", os.getloadavg()[0])


if __name__ == "__main__":
    import sys

    if "--shipped" in sys.argv:
        shipped()
    elif "--curves" in sys.argv:
        curves()
    elif "--repetitions" in sys.argv:
        repetitions()
    else:
        main()
