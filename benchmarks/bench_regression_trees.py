"""Benchmark: growing the regression meta-learner's forests, batched against one by one.

The ``regression`` strategy grows one forest per configuration on the training
datasets' descriptions, once per outer fold: on the shipped knowledge base 152
configurations x 50 trees, each tree on a bootstrap sample of whole families of the
training datasets (about 45 datasets, 110 meta-features). This times, on that design
matrix and target (log success under accuracy, P = 0), with the same bags:

- ``ColumnForests``: one scikit-learn ``DecisionTreeRegressor`` (CART, best split of
  floor(sqrt(F)) features drawn at each node) per tree, fitted one at a time;
- ``RegressionTreeBatch``: extremely randomised trees (Geurts, Ernst & Wehenkel 2006),
  every tree of every configuration grown at once, one depth level at a time.

Both fit and predict the training points (what the strategy does with them: the
out-of-bag inner predictions). CPU seconds (process time, the best of ``--repeat``
runs), and their ratio, measured in the same run.

Measured on the busy 2-core machine (load average 5-7): batch 0.412 CPU-s, CART 2.825
CPU-s (6.9x); the forests' mean fits the training points as closely (RMSE 0.081 both).

Run: ``python benchmarks/bench_regression_trees.py [--trees 50] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import platform

import numpy as np

from _timing import best_cpu  # a sibling script
from metaeval.recommend import Condition, load_knowledge
from metaeval.recommend.learners._learners import Design, a3r_target, family_bags, family_codes
from metaeval.recommend.learners._learners_forest import ColumnForests
from metaeval.recommend.learners._trees import RegressionTreeBatch


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trees", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--leave-out", type=int, default=0,
                        help="family left out of training, as in one outer fold")
    args = parser.parse_args(argv)
    kb = load_knowledge().knowledge_base(Condition())
    codes, _ = family_codes(kb)
    train = kb.subset(codes != args.leave_out)
    design = Design(train, ("metafeatures", "landmarks"), "regression")
    X = design.X.astype(np.float32)
    target = a3r_target(train, Condition())
    codes, n_families = family_codes(train)
    rng = np.random.default_rng(0)
    weights, _ = family_bags(codes, n_families, args.trees, rng)
    seeds = rng.integers(0, 2**31 - 1, size=(args.trees, target.shape[1]))
    print(f"{platform.node()}: {X.shape[0]} training datasets, {X.shape[1]} features, "
          f"{target.shape[1]} configurations, {args.trees} trees each "
          f"({args.trees * target.shape[1]:,} trees)")

    def batch():
        forest = RegressionTreeBatch(X, target, weights, np.random.default_rng(1))
        return forest, forest.predict(X)

    def cart():
        forest = ColumnForests(X, target, weights, seeds)
        return forest, forest.train_pred

    t_batch, (forest, pred_batch) = best_cpu(batch, args.repeat)
    t_cart, (_, pred_cart) = best_cpu(cart, args.repeat)
    print(f"RegressionTreeBatch: {t_batch:7.3f} CPU-s ({forest.value.size:,} nodes)")
    print(f"ColumnForests (CART): {t_cart:7.3f} CPU-s")
    print(f"ratio CART / batch: {t_cart / t_batch:.1f}x")
    for name, pred in (("batch", pred_batch), ("CART", pred_cart)):
        err = np.sqrt(np.mean((pred.mean(axis=0) - target) ** 2))
        print(f"  {name}: RMSE of the forests' mean on the training points {err:.4f}")


if __name__ == "__main__":
    main()
