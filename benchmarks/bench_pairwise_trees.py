"""Benchmark: growing the pairwise meta-learner's trees, batched against one by one.

The ``pairwise`` strategy grows one forest per pair of candidate configurations, once per
fold: on an ASlib scenario of 11 algorithms 55 pairs x 100 trees = 5,500 trees, each on
a bootstrap sample of the training instances (about 1,165 of them on ASP-POTASSCO, 138
features). This times, on a design matrix of that shape with random labels and weights
(``--rows``, ``--features``, ``--trees``):

- scikit-learn: one ``ExtraTreeClassifier`` (``max_features="log2"``, grown to purity)
  per tree, fitted one at a time with the tree's sample weights, as a plain loop would;
- ``TreeBatch``: every tree grown at once, one depth level at a time
  (``metaeval.recommend.learners._trees``).

The loop fits ``--sample`` trees and its time is scaled to all of them; both then
predict 130 new points. CPU seconds (process time, the best of ``--repeat`` runs) and
their ratio, measured in the same run.

Run: ``python benchmarks/bench_pairwise_trees.py [--trees 5500] [--sample 200]``.
"""

from __future__ import annotations

import argparse
import platform

import numpy as np
from sklearn.tree import ExtraTreeClassifier

from _timing import best_cpu  # a sibling script
from metaeval.recommend.learners._trees import TreeBatch


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1165)
    parser.add_argument("--features", type=int, default=138)
    parser.add_argument("--trees", type=int, default=5500)
    parser.add_argument("--sample", type=int, default=200,
                        help="trees the scikit-learn loop fits (its time is scaled)")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    n, F, T = args.rows, args.features, args.trees
    X = rng.normal(size=(n, F))
    labels = (rng.random((T, n)) < 0.3 + 0.4 * (X[:, 0] > 0)).astype(np.float64)
    weights = rng.exponential(size=(T, n)) * (rng.random((T, n)) < 0.63)
    points = rng.normal(size=(130, F))

    def batch():
        trees = TreeBatch(X, labels, weights, np.random.default_rng(1))
        return trees.predict(points)

    def loop():
        out = []
        for t in range(args.sample):
            use = weights[t] > 0
            tree = ExtraTreeClassifier(max_features="log2", random_state=t)
            tree.fit(X[use], labels[t, use], sample_weight=weights[t, use])
            proba = tree.predict_proba(points)
            out.append(proba[:, -1] if tree.classes_[-1] == 1 else 1 - proba[:, 0])
        return np.array(out)

    batch_cpu, prob = best_cpu(batch, args.repeat)
    loop_cpu, ref = best_cpu(loop, args.repeat)
    loop_all = loop_cpu * T / args.sample
    truth = (points[:, 0] > 0).astype(float)
    print(f"{platform.processor() or platform.machine()}; {T} trees, {n} rows x {F} "
          f"features, CPU seconds (best of {args.repeat})")
    print(f"TreeBatch, all {T} trees at once:        {batch_cpu:8.2f}")
    print(f"ExtraTreeClassifier loop, scaled to {T}: {loop_all:8.2f} "
          f"({args.sample} fitted: {loop_cpu:.2f})")
    print(f"ratio loop / batch: {loop_all / batch_cpu:.1f}x")
    # the same signal learned: the mean vote of the first --sample trees of each tracks
    # the planted class shift
    print(f"mean vote of {args.sample} trees, correlation with the planted shift: batch "
          f"{np.corrcoef(prob[:args.sample].mean(axis=0), truth)[0, 1]:.3f}, loop "
          f"{np.corrcoef(ref.mean(axis=0), truth)[0, 1]:.3f}")


if __name__ == "__main__":
    main()
