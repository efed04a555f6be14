"""Benchmark: the meta-learners' whole leave-one-family-out evaluation, and their quality.

Each learner (pairwise, regression, collaborative, zero-shot-portfolio) is evaluated
with :func:`metaeval.recommend.evaluate_recommenders` (outer leave-one-family-out, the
inner hyperparameter selection included) on a synthetic knowledge base of 51 datasets
(39 families) x 152 configurations (16 families) whose winner depends on a meta-feature,
and, with ``--knowledge FILE`` or ``--store FILE``, on a real one. Baseline measured in
the same run: the same evaluation of ``single-best``, and one scikit-learn random forest
of 100 trees fitted on the same meta-features (CPU seconds, process time). Target: every
strategy together under 60 s on 2 cores.

With ``--targets`` (and a real knowledge base) it also measures the issue's targets:
under accuracy, 1 - rate-driven hardness at c = 0.3 and 1 - score-driven hardness under
Beta(2, 8), each at P = 0 and P = 1/64, each learner's loss@1 and closed gap against
single-best, with paired evidence on family means (a family is one unit: pseudo-
replication by family) and Holm's correction over every comparison made.

Run: ``python benchmarks/bench_learners.py [--knowledge FILE | --store FILE]
[--measure accuracy] [--cost 0.3] [--beta 2 8] [--time-weight 0.015625] [--targets]``.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

from metaeval.recommend import (
    Condition,
    KnowledgeBase,
    evaluate_recommenders,
    paired_comparison,
)

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
    start, wall = time.process_time(), time.perf_counter()
    ev = evaluate_recommenders(kb, condition)
    print(f"every strategy ({', '.join(ev.strategies)}): "
          f"{time.process_time() - start:.1f} CPU-s, {time.perf_counter() - wall:.1f} s wall "
          f"({(time.process_time() - start) / base_sb:.0f} x the single-best evaluation)")


TARGET_CONDITIONS = (
    ("accuracy", {}),
    ("hardness:rate-driven", {"cost": 0.3}),
    ("hardness:score-driven", {"cost_beta": (2, 8)}),
)


def holm(p_values):
    """Holm's step-down adjusted p-values (Holm 1979)."""
    p = np.asarray(p_values, dtype=np.float64)
    order = np.argsort(p, kind="stable")
    adjusted = np.maximum.accumulate(p[order] * (p.size - np.arange(p.size)))
    out = np.empty_like(p)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def targets(read, label):
    """Every learner against single-best in the issue's six settings, Holm-corrected."""
    print(f"\n== targets on {label}")
    rows = []
    for measure, extra in TARGET_CONDITIONS:
        kb = read(Condition(measure, **extra))
        for p in (0.0, 1 / 64):
            condition = Condition(measure, time_weight=p, **extra)
            start = time.process_time()
            ev = evaluate_recommenders(kb, condition, strategies=[
                *LEARNERS, "average-ranking", "single-best", "oracle"], n_boot=1000)
            seconds = time.process_time() - start
            s = ev.summary.set_index("strategy")
            per = ev.per_dataset.pivot(index="dataset", columns="strategy",
                                       values="loss_at_1")
            family = ev.per_dataset.drop_duplicates("dataset").set_index("dataset")["family"]
            by_family = per.groupby(family.reindex(per.index)).mean()
            gap = s.loc["single-best", "loss_at_1"] - s.loc["oracle", "loss_at_1"]
            for name in (*LEARNERS, "average-ranking"):
                r = paired_comparison(by_family[name], by_family["single-best"], seed=0)
                rows.append({
                    "condition": condition.label, "strategy": name,
                    "loss@1": s.loc[name, "loss_at_1"],
                    "sb_loss@1": s.loc["single-best", "loss_at_1"], "sb_gap": gap,
                    "closed_gap": s.loc[name, "closed_gap"],
                    "gap_of_means": (s.loc["single-best", "loss_at_1"]
                                     - s.loc[name, "loss_at_1"]) / gap if gap > 0 else np.nan,
                    "diff_low": r["low"], "diff_high": r["high"], "wins": r["wins"],
                    "losses": r["losses"], "p_wilcoxon": r["p_value"],
                    "p_signflip": r["null_same_verdict"], "eval_cpu_s": seconds,
                })
    out = pd.DataFrame(rows)
    out["p_holm"] = holm(np.maximum(out["p_wilcoxon"], out["p_signflip"]))
    out["supported"] = (out["diff_low"] > 0) & (out["p_holm"] < 0.05)
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(out.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print(f"{len(out)} comparisons, Holm over all; p = max(Wilcoxon, sign-flip) per "
          "comparison; units: families (loss@1 averaged within a family)")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--knowledge", help="a knowledge-base file (load_knowledge)")
    parser.add_argument("--store", help="a described store (KnowledgeBase.from_store, CPU)")
    parser.add_argument("--measure", default="accuracy")
    parser.add_argument("--cost", type=float)
    parser.add_argument("--beta", type=float, nargs=2)
    parser.add_argument("--time-weight", type=float, default=0.0)
    parser.add_argument("--targets", action="store_true",
                        help="the issue's six settings on the real knowledge base")
    parser.add_argument("--skip-synthetic", action="store_true")
    args = parser.parse_args()
    print(f"{platform.platform()}, {platform.python_version()}; the machine may be loaded: "
          "compare ratios, not seconds")
    condition = Condition(args.measure, cost=args.cost,
                          cost_beta=None if args.beta is None else tuple(args.beta),
                          time_weight=args.time_weight)
    if not args.skip_synthetic:
        bench(synthetic_knowledge(), Condition(time_weight=args.time_weight), "synthetic")
    read, label = None, None
    if args.knowledge:
        from metaeval.recommend import load_knowledge

        knowledge = load_knowledge(args.knowledge)
        read, label = knowledge.knowledge_base, args.knowledge
    elif args.store:
        def read(c):
            return KnowledgeBase.from_store(args.store, c, clock="cpu")
        label = args.store
    if read is not None:
        bench(read(condition.replace(time_weight=0)), condition, label)
        if args.targets:
            targets(read, label)


if __name__ == "__main__":
    main()
