"""A tried and dropped selector: a Borda consensus of the three learners, on ASlib.

Stacking or voting several algorithm selectors is a common way to make one that is never
far from the best of them. This script measures the simplest version on the shared ASlib
scenarios: for each new instance it orders the algorithms by the sum of their positions
in the orders of ``pairwise``, ``regression`` and ``knn-metafeatures`` (each fitted once
per ``cv.arff`` fold, as :func:`metaeval.recommend.evaluate_aslib` fits every strategy),
ties going to ``pairwise``'s order. It pays the feature costs of the steps any part
reads, as every strategy does there.

It prints, per scenario, the gap closed against the whole scenario's single best (95 %
bootstrap interval over instances) of the consensus, its three parts and ``auto``.
Measured on 2026-11-28 (docs/aslib.md, "What changed"): the consensus closed more than
``auto`` on OPENML-WEKA-2017 and SAT11-HAND and less on the three others, and never
more than the best of its parts by more than the intervals' width; it is not a strategy
of metaeval.

Usage: python benchmarks/try_consensus.py [DIR ...] [--jobs N]
(default: every scenario of the shared ``aslib`` folder, read in place: GPLv3 data)
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bench_aslib import _scenarios
from metaeval.recommend import evaluate_aslib, read_aslib
from metaeval.recommend.learners._learners import FEATURE_SOURCES
from metaeval.recommend.learners._learners_forest import (
    ConfigurationRegression,
    PairwiseClassification,
)
from metaeval.recommend.learners._neighbours import KnnMetafeatures
from metaeval.recommend.learners._strategies import Fitted, Ranking, Strategy


class Consensus(Strategy):
    """Orders by the summed positions in the orders of ``parts`` (Borda count); a tie
    goes to the first part's order."""

    name = "consensus"

    def __init__(self, parts):
        self.parts = list(parts)

    @property
    def uses(self):
        out = []
        for part in self.parts:
            uses = part.uses
            for u in (uses,) if isinstance(uses, str) else tuple(uses or ()):
                if u not in out:
                    out.append(u)
        return tuple(out)

    def _fit(self, knowledge, condition, seed):
        fitted = [part.fit(knowledge, condition, seed=seed) for part in self.parts]
        return _FittedConsensus(self, knowledge, condition, seed, fitted)


class _FittedConsensus(Fitted):
    def __init__(self, strategy, knowledge, condition, seed, fitted):
        super().__init__(strategy, knowledge, condition, seed)
        self.fitted = fitted

    def rank(self, query) -> Ranking:
        return self.rank_many([query])[0]

    def rank_many(self, queries) -> list:
        orders = [f.rank_many(queries) for f in self.fitted]
        n = len(self.knowledge.algorithms)
        out = []
        for i in range(len(queries)):
            positions = []
            for ranked in orders:
                p = np.empty(n)
                p[ranked[i].order] = np.arange(n)
                positions.append(p)
            total = np.sum(positions, axis=0)
            order = np.lexsort((positions[0], total))
            out.append(Ranking(order, total[order], orders[0][i].drivers))
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="*")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    for path in _scenarios(args.dirs):  # as bench_aslib.py finds them
        sc = read_aslib(path)
        have = tuple(u for u in FEATURE_SOURCES if getattr(sc.knowledge, u) is not None)
        ceiling = {"cost_ceiling": float(sc.shift)} if sc.runtime else {}
        parts = [PairwiseClassification(features=have),
                 ConfigurationRegression(**ceiling, features=have), KnnMetafeatures()]
        start = time.perf_counter()
        ev = evaluate_aslib(sc, [Consensus(parts), "pairwise",
                                 ConfigurationRegression(**ceiling, features=have),
                                 "knn-metafeatures", "auto"], n_jobs=args.jobs)
        s = ev.summary
        print(f"{path.name} ({time.perf_counter() - start:.0f} s): gap closed, whole SBS")
        for r in s.to_dict(orient="records"):
            print(f"  {r['strategy']:18s} {r['gap_closed_whole_sbs']:+.3f} "
                  f"[{r['gap_closed_whole_sbs_low']:+.3f}, "
                  f"{r['gap_closed_whole_sbs_high']:+.3f}]")


if __name__ == "__main__":
    main()
