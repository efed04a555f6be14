"""Benchmark: the meta-learners' whole leave-one-family-out evaluation, and their quality.

Each learner (pairwise, regression, collaborative, zero-shot-portfolio) is evaluated
with :func:`metaeval.recommend.evaluate_recommenders` (outer leave-one-family-out, the
inner hyperparameter selection included) on a synthetic knowledge base of 51 datasets
(39 families) x 152 configurations (16 families) whose winner depends on a meta-feature,
and, with ``--knowledge FILE`` or ``--store FILE``, on a real one. Baseline measured in
the same run: the same evaluation of ``single-best``, and one scikit-learn random forest
of 100 trees fitted on the same meta-features (CPU seconds, process time). Target: every
strategy together under 60 s on 2 cores.

Run: ``python benchmarks/bench_learners.py [--knowledge FILE | --store FILE]
[--measure accuracy] [--cost 0.3] [--beta 2 8] [--time-weight 0.015625]``.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

from metaeval.recommend import Condition, KnowledgeBase, evaluate_recommenders

LEARNERS = ("pairwise", "regression", "collaborative", "zero-shot-portfolio")


def synthetic_knowledge(n_datasets=51, n_families=39, n_configs=152, n_features=60,
                        noise=0.02, seed=0):
    """A knowledge base whose best configuration family is set by meta-feature ``m0``.

    Each configuration belongs to one of 4 regimes; a dataset's regime is the quartile
    of its ``general.m0``; a configuration of the dataset's regime gains 0.08 in success.
    The other meta-features are noise (10 % missing); times are log-normal.
    """
    rng = np.random.default_rng(seed)
    names = [f"d{i:02d}" for i in range(n_datasets)]
    families = [f"f{i:02d}" for i in range(n_families)]
    families += [f"f{i:02d}" for i in rng.integers(0, n_families, n_datasets - n_families)]
    m0 = rng.uniform(0, 1, n_datasets)
    regime = np.minimum((m0 * 4).astype(int), 3)
    kind = np.arange(n_configs) % 4
    quality = rng.normal(0, 0.01, n_configs)
    base = rng.uniform(0.6, 0.85, (n_datasets, 1))
    success = (base + quality + 0.08 * (kind[None, :] == regime[:, None])
               + rng.normal(0, noise, (n_datasets, n_configs)))
    success = np.clip(success, 0.01, 1.0)
    times = (np.exp(rng.normal(0, 1, n_configs))[None, :]
             * np.exp(rng.normal(0, 1, n_datasets))[:, None])
    X = rng.normal(size=(n_datasets, n_features))
    X[rng.random(X.shape) < 0.1] = np.nan
    X[:, 0] = m0
    meta = pd.DataFrame(X, index=names, columns=[f"general.m{j}" for j in range(n_features)])
    land = pd.DataFrame(success[:, :4] + rng.normal(0, 0.05, (n_datasets, 4)), index=names,
                        columns=[f"L{j}.success" for j in range(4)])
    return KnowledgeBase(names, [f"c{j:03d}" for j in range(n_configs)], success, times,
                         families=families, n_instances=np.full(n_datasets, 500),
                         metafeatures=meta, metafeature_time=np.full(n_datasets, 0.5),
                         landmarks=land, landmark_time=np.full(n_datasets, 1.0),
                         condition=Condition())


def _cpu(fn):
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def _forest_baseline(kb):
    X = kb.metafeatures.fillna(kb.metafeatures.median()).fillna(0.0).to_numpy()
    return RandomForestRegressor(100, random_state=0, n_jobs=1).fit(X, kb.success)


def bench(kb, condition, label):
    print(f"\n== {label}: {kb!r}, condition {condition.label}")
    base_sb, ev_sb = _cpu(lambda: evaluate_recommenders(
        kb, condition, strategies=["single-best", "oracle"], n_boot=200))
    base_rf, _ = _cpu(lambda: _forest_baseline(kb))
    print(f"baseline single-best evaluation {base_sb:.2f} CPU-s; one 100-tree forest "
          f"{base_rf:.3f} CPU-s")
    rows = []
    total = 0.0
    for name in LEARNERS:
        seconds, ev = _cpu(lambda n=name: evaluate_recommenders(
            kb, condition, strategies=[n, "single-best", "oracle"], n_boot=200))
        total += seconds
        s = ev.summary.set_index("strategy")
        rows.append({
            "strategy": name, "cpu_s": round(seconds, 2),
            "x_single_best_eval": round(seconds / base_sb, 1),
            "x_one_forest": round(seconds / base_rf, 1),
            "loss@1": s.loc[name, "loss_at_1"], "sb_loss@1": s.loc["single-best", "loss_at_1"],
            "closed_gap": s.loc[name, "closed_gap"],
            "loss@3": s.loc[name, "loss_at_3"], "mil": s.loc[name, "mil"],
        })
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print(f"all learners: {total:.1f} CPU-s ({total / base_rf:.0f} forests)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--knowledge", help="a knowledge-base file (load_knowledge)")
    parser.add_argument("--store", help="a described store (KnowledgeBase.from_store, CPU)")
    parser.add_argument("--measure", default="accuracy")
    parser.add_argument("--cost", type=float)
    parser.add_argument("--beta", type=float, nargs=2)
    parser.add_argument("--time-weight", type=float, default=0.0)
    args = parser.parse_args()
    print(f"{platform.platform()}, {platform.python_version()}; the machine may be loaded: "
          "compare ratios, not seconds")
    condition = Condition(args.measure, cost=args.cost,
                          cost_beta=None if args.beta is None else tuple(args.beta),
                          time_weight=args.time_weight)
    bench(synthetic_knowledge(), Condition(time_weight=args.time_weight), "synthetic")
    if args.knowledge:
        from metaeval.recommend import load_knowledge

        kb = load_knowledge(args.knowledge).knowledge_base(condition.replace(time_weight=0))
        bench(kb, condition, args.knowledge)
    if args.store:
        kb = KnowledgeBase.from_store(args.store, condition.replace(time_weight=0),
                                      clock="cpu")
        bench(kb, condition, args.store)


if __name__ == "__main__":
    main()
