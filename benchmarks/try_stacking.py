"""Compare rules that combine ``auto``'s candidates, on orders cached by
``cache_auto_orders.py`` (no refitting): gap closed against the whole scenario's single
best, the feature costs paid by a rule that reads features, as evaluate_aslib scores a
first pick. A design tool for ``auto`` (docs/aslib_plan.md): the rule adopted is
``borda4t rev`` (the Borda count of the four voters, ties to the voter of lowest inner
loss), identical there to ``vote unless static``, which is ``Auto()``'s rule; the others
are the alternatives the plan's table compares.

Usage: python benchmarks/try_stacking.py CACHE/*.npz
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np
from scipy.stats import wilcoxon

READERS = {"knn-metafeatures", "regression", "pairwise", "regression-raw",
           "cost-landmarking"}


def positions(orders):
    """(D, A) rank position of each algorithm in each order, scaled to [0, 1]."""
    d, a = orders.shape
    pos = np.empty((d, a))
    np.put_along_axis(pos, orders, np.arange(a, dtype=np.float64)[None], axis=1)
    return pos / max(a - 1, 1)


def combine(pos_list, weights):
    score = sum(w * p for w, p in zip(weights, pos_list, strict=True) if w)
    top = int(np.argmax(weights))
    score = score + 1e-9 * pos_list[top]  # ties to the heaviest part's order
    return np.argmin(score, axis=1)  # ties: lowest index (stable)


def family_mean(values, codes):
    n = codes.max() + 1
    return np.bincount(codes, weights=values, minlength=n) / np.bincount(codes, minlength=n)


class Scenario:
    def __init__(self, path):
        z = np.load(path, allow_pickle=False)
        self.name = Path(path).stem
        self.z = z
        self.names = [str(n) for n in z["names"]]
        self.success = z["success"]
        self.fold = z["fold"]
        self.folds = np.unique(self.fold)
        self.runtime = bool(z["runtime"])
        perf = z["performance"]
        if self.runtime:
            cutoff = float(z["cutoff"])
            score = -np.where(z["solved"], perf, cutoff).mean(axis=0)
        else:
            score = self.success.mean(axis=0)
        self.whole = int(np.argsort(-score, kind="stable")[0])

    def inner(self, f, n):
        return self.z[f"inner_{f}_{n}"]

    def test(self, f, n):
        return self.z[f"test_{f}_{n}"]

    def first_success(self, rows, pick, reads):
        """Success of the picks, the feature cost charged when ``reads``."""
        z = self.z
        s = self.success[rows, pick]
        if not (reads and bool(z["feature_costs"])):
            return s
        cutoff = float(z["cutoff"])
        perf = z["performance"][rows, pick]
        solved = z["solved"][rows, pick]
        cost = z["cost"][rows]
        runtime = perf + cost
        timeout = solved & (cost > 0) & (runtime >= cutoff)
        par10 = np.where(solved, np.where(timeout, 10 * cutoff, runtime), perf)
        return float(z["sign"]) * par10 + float(z["shift"])

    def gap(self, s):
        sb = self.success[:, self.whole].mean()
        vbs = self.success.max(axis=1).mean()
        return (s.mean() - sb) / (vbs - sb)


def run_rule(sc, rule):
    """Each instance's held-out success under ``rule(sc, f) -> (weights dict)``."""
    out = np.empty(len(sc.fold))
    chosen = []
    for f in sc.folds:
        weights = rule(sc, f)
        chosen.append(weights)
        members = sc.z[f"members_{f}"]
        names = [n for n, w in weights.items() if w]
        pos = [positions(sc.test(f, n)) for n in names]
        pick = combine(pos, [weights[n] for n in names])
        reads = any(n in READERS for n in names)
        out[members] = sc.first_success(members, pick, reads)
    return out, chosen


def inner_loss(sc, f, weights):
    train = sc.z[f"train_{f}"]
    succ = sc.success[train]
    names = [n for n, w in weights.items() if w]
    pick = combine([positions(sc.inner(f, n)) for n in names],
                   [weights[n] for n in names])
    loss = succ.max(axis=1) - succ[np.arange(len(train)), pick]
    return family_mean(loss, sc.z[f"codes_{f}"])


def grid(names, step):
    k = round(1 / step)
    for c in itertools.product(range(k + 1), repeat=len(names)):
        if sum(c) == k:
            yield dict(zip(names, (x / k for x in c), strict=True))


def make_rule(pool, step=None, guard="wilcoxon", alpha=0.05, m=None, single=False):
    def rule(sc, f):
        names = [n for n in pool if n in sc.names]
        if single:
            cands = [{n: 1.0} for n in names]
        else:
            cands = list(grid(names, step))
        losses = [inner_loss(sc, f, w) for w in cands]
        means = [v.mean() for v in losses]
        b = int(np.argmin(means))
        if guard is None:
            return cands[b]
        sb = inner_loss(sc, f, {"single-best": 1.0})
        diff = sb - losses[b]
        if not np.any(diff != 0):
            return {"single-best": 1.0}
        p = wilcoxon(diff, alternative="greater", zero_method="wilcox").pvalue
        mm = m if m is not None else 6
        return cands[b] if p < alpha / mm else {"single-best": 1.0}
    return rule


def main(paths):
    scs = [Scenario(p) for p in paths]
    learners = ["knn-metafeatures", "regression", "pairwise"]
    all_single = ["single-best", "zero-shot-portfolio", "average-ranking",
                  "knn-metafeatures", "regression", "pairwise"]
    def borda(pool, guard=False, m=1, mean=False, reverse=False):
        def rule(sc, f):
            names = [n for n in pool if n in sc.names]
            losses = [inner_loss(sc, f, {n: 1.0}).mean() for n in names]
            w = {n: 1.0 for n in names}
            w[names[int(np.argmin(losses))]] += 1e-6  # ties to the inner best
            if guard:
                diff = inner_loss(sc, f, {"single-best": 1.0}) - inner_loss(sc, f, w)
                if reverse:  # the single best only if the vote is clearly worse
                    if np.any(diff != 0) and wilcoxon(
                            -diff, alternative="greater",
                            zero_method="wilcox").pvalue < 0.05:
                        return {"single-best": 1.0}
                elif mean:
                    if diff.mean() <= 0:
                        return {"single-best": 1.0}
                elif not np.any(diff != 0) or wilcoxon(
                        diff, alternative="greater", zero_method="wilcox").pvalue >= 0.05 / m:
                    return {"single-best": 1.0}
            return w
        return rule

    def soft(pool, guard=True):
        def rule(sc, f):
            names = [n for n in pool if n in sc.names]
            sb = inner_loss(sc, f, {"single-best": 1.0}).mean()
            gains = np.array([sb - inner_loss(sc, f, {n: 1.0}).mean() for n in names])
            if not np.any(gains > 0):
                return {"single-best": 1.0}
            w = dict(zip(names, np.maximum(gains, 0) / gains.max(), strict=True))
            if guard:
                diff = inner_loss(sc, f, {"single-best": 1.0}) - inner_loss(sc, f, w)
                if not np.any(diff != 0) or wilcoxon(diff, alternative="greater",
                                                     zero_method="wilcox").pvalue >= 0.05:
                    return {"single-best": 1.0}
            return w
        return rule

    def borda_or_single(pool, test=True, m=4):
        def rule(sc, f):
            names = [n for n in pool if n in sc.names]
            losses = [inner_loss(sc, f, {n: 1.0}) for n in names]
            w = {n: 1.0 for n in names}
            lead = int(np.argmin([v.mean() for v in losses]))
            w[names[lead]] += 1e-6
            mine = inner_loss(sc, f, w)
            if not test:
                return w if mine.mean() <= losses[lead].mean() else {names[lead]: 1.0}
            diff = mine - losses[lead]
            if np.any(diff != 0) and losses[lead].mean() < mine.mean() and wilcoxon(
                    diff, alternative="greater", zero_method="wilcox").pvalue < 0.05 / m:
                return {names[lead]: 1.0}
            return w
        return rule

    def vote_unless_static(pool, statics=("single-best", "zero-shot-portfolio",
                                          "average-ranking"), alpha=0.05):
        def rule(sc, f):
            names = [n for n in pool if n in sc.names]
            losses = [inner_loss(sc, f, {n: 1.0}) for n in names]
            w = {n: 1.0 for n in names}
            w[names[int(np.argmin([v.mean() for v in losses]))]] += 1e-6
            mine = inner_loss(sc, f, w)
            st = [s for s in statics if s in sc.names]
            sl = [inner_loss(sc, f, {s: 1.0}) for s in st]
            b = int(np.argmin([v.mean() for v in sl]))
            diff = mine - sl[b]
            if sl[b].mean() < mine.mean() and np.any(diff != 0) and wilcoxon(
                    diff, alternative="greater", zero_method="wilcox").pvalue < alpha / len(st):
                return {st[b]: 1.0}
            return w
        return rule

    four = learners + ["regression-raw"]
    rules = {
        "borda3t": borda(learners),
        "borda4t": borda(four),
        "borda4t guard1": borda(four, True, 1),
        "borda4t rev": borda(four, True, reverse=True),
        "vote unless static": vote_unless_static(four),
        "borda|single wilc": borda_or_single(four),
        "auto(now)": make_rule(all_single, single=True),
        "best1 no guard": make_rule(all_single, single=True, guard=None),
        "stack4 1/4 m1": make_rule(learners + ["regression-raw"], 0.25, m=1),
    }
    singles = ["single-best", "knn-metafeatures", "regression", "pairwise",
               "regression-raw"]
    header = f"{'scenario':24s}" + "".join(f"{n[:10]:>11s}" for n in singles) + \
        "".join(f"{n[:16]:>17s}" for n in rules)
    print(header)
    table = {n: [] for n in [*singles, *rules]}
    for sc in scs:
        row = f"{sc.name:24s}"
        for n in singles:
            s, _ = run_rule(sc, lambda sc_, f, n=n: {n: 1.0}) if n in sc.names else (None, 0)
            g = sc.gap(s) if s is not None else np.nan
            table[n].append(g)
            row += f"{g:11.3f}"
        for n, r in rules.items():
            s, _ = run_rule(sc, r)
            g = sc.gap(s)
            table[n].append(g)
            row += f"{g:17.3f}"
        print(row, flush=True)
    print(f"{'mean':24s}" + "".join(f"{np.nanmean(table[n]):11.3f}" for n in singles)
          + "".join(f"{np.nanmean(table[n]):17.3f}" for n in rules))


if __name__ == "__main__":
    main(sys.argv[1:])
