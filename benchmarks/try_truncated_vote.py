"""Exploratory: ``auto``'s vote with each voter's ranks truncated, on orders cached by
``cache_auto_orders.py`` (no refitting; the scorer of ``try_stacking.py``).

``auto`` orders a new instance's algorithms by the Borda count of its voters' orders
(``knn-metafeatures``, ``regression``, ``pairwise``, ``regression-raw``), ties to the voter
of lowest inner loss. Where one voter is much better than the others the full Borda count
dilutes it. Two classical rank aggregations that weigh the top of each order more are
compared with it, each with ties broken as ``auto`` breaks them:

- truncated Borda (``top t``): a voter's rank r counts as min(r, t), so only its first t
  algorithms are told apart (t = 1: plurality of first picks);
- reciprocal rank fusion (``rrf k``): the score sums 1 / (k + r) over the voters (Cormack,
  Clarke & Buettcher 2009).

For each rule: the mean gap closed over the cached scenarios (feature costs paid,
presolved instances not credited, against the whole scenario's single best), and the
scenarios where it is below the weaker of the two plain selectors of docs/aslib.md.
A design tool, not a result: the truncation was not pre-registered, and these are the
development scenarios it would be chosen on.

Usage: python benchmarks/try_truncated_vote.py CACHE/*.npz
       python benchmarks/try_truncated_vote.py --voter NAME CACHE/*.npz

With ``--voter NAME`` (a strategy whose orders ``cache_auto_orders.py --extra NAME``
added): the truncated vote (top 2) of the four voters, with NAME as a fifth, with NAME
in place of each of the four, and NAME alone, on the scenarios that have its orders.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from scipy.stats import wilcoxon

sys.path.insert(0, str(Path(__file__).resolve().parent))
from try_stacking import Scenario, inner_loss  # noqa: E402

VOTERS = ("knn-metafeatures", "regression", "pairwise", "regression-raw")
#: (plain RF, plain k-NN) gap closed, docs/aslib.md "Beside two plain scikit-learn
#: selectors" and "Presolved instances credited" (the scenarios with both figures).
PLAIN = {
    "SAT11-HAND": (0.703, 0.478), "MAXSAT12-PMS": (0.850, 0.905),
    "ASP-POTASSCO": (0.689, 0.805), "CSP-2010": (0.657, 0.522),
    "SAT11-INDU": (0.247, 0.301), "SAT11-RAND": (0.947, 0.864), "QBF-2011": (0.876, 0.845),
    "QBF-2014": (0.796, 0.725), "QBF-2016": (0.668, 0.634), "CPMP-2015": (0.292, 0.313),
    "BNSL-2016": (0.861, 0.820), "MIP-2016": (-0.235, -0.106), "SAT15-INDU": (0.410, 0.011),
    "SAT18-EXP": (0.546, 0.494), "GLUHACK-18": (0.452, 0.440),
    "CSP-Minizinc-Time-2016": (0.345, 0.714), "OPENML-WEKA-2017": (-0.006, 0.147),
    "MAXSAT-PMS-2016": (0.381, 0.582), "MAXSAT15-PMS-INDU": (0.677, 0.711),
    "SAT12-HAND": (0.759, 0.728),
}


def ranks(order):
    """(D, A) rank of each algorithm (0 first) in each row's order."""
    d, a = order.shape
    out = np.empty((d, a))
    np.put_along_axis(out, order, np.arange(a, dtype=np.float64)[None], axis=1)
    return out


def aggregate(sc, f, names, kind, param):
    """Each held-out instance's first pick under the rule."""
    rk = [ranks(sc.test(f, n)) for n in names]
    a = rk[0].shape[1]
    if kind == "borda":
        score = sum(r / max(a - 1, 1) for r in rk)
    elif kind == "top":
        score = sum(np.minimum(r, param) for r in rk)
    else:  # reciprocal rank fusion
        score = -sum(1.0 / (param + r) for r in rk)
    lead = names[int(np.argmin([inner_loss(sc, f, {n: 1.0}).mean() for n in names]))]
    score = score + 1e-9 * ranks(sc.test(f, lead))  # ties to the inner-best voter
    return np.argmin(score, axis=1)


def evaluate(scenarios, kind, param=None):
    gaps = {}
    for sc in scenarios:
        names = [n for n in VOTERS if n in sc.names]
        out = np.empty(len(sc.fold))
        for f in sc.folds:
            members = sc.z[f"members_{f}"]
            out[members] = sc.first_success(members, aggregate(sc, f, names, kind, param),
                                            True)
        gaps[sc.name] = sc.gap(out)
    return gaps


def main(paths):
    scenarios = [Scenario(p) for p in paths]
    rules = [("borda (auto)", "borda", None)] + [(f"top {t}", "top", t) for t in (1, 2, 3, 5)] \
        + [(f"rrf {k}", "rrf", k) for k in (1, 2, 4, 10)]
    base = None
    print(f"{len(scenarios)} scenarios; gap closed, feature costs paid")
    for label, kind, param in rules:
        gaps = evaluate(scenarios, kind, param)
        below = sorted(n for n, g in gaps.items() if n in PLAIN and g < min(PLAIN[n]))
        line = (f"{label:14s} mean {np.mean(list(gaps.values())):.4f}  below the weaker plain "
                f"selector on {len(below)} {below}")
        if base is None:
            base = gaps
        else:
            d = np.array([gaps[n] - base[n] for n in base])
            p = wilcoxon(d).pvalue if np.any(d != 0) else 1.0
            line += (f"  against borda: {int((d > 0).sum())} higher / {int((d < 0).sum())} "
                     f"lower, Wilcoxon p {p:.3g}")
        print(line, flush=True)
        if kind == "top" and param == 2:
            print("   " + ", ".join(f"{n} {gaps[n]:+.3f}" for n in sorted(gaps)))


def voter_sets(name, paths):
    """The truncated vote with ``name`` added to or swapped into the voters."""
    global VOTERS
    scenarios = [sc for sc in map(Scenario, paths) if name in sc.names]
    base = VOTERS
    variants = {"four voters": base, f"+ {name}": (*base, name)}
    variants.update({f"{name} for {v}": tuple(name if w == v else w for w in base)
                     for v in base})
    variants[f"{name} alone"] = (name,)
    gaps = {}
    try:
        for label, voters in variants.items():
            VOTERS = voters
            gaps[label] = evaluate(scenarios, "top", 2)
    finally:
        VOTERS = base
    print(f"{len(scenarios)} scenarios; gap closed, feature costs paid, no schedule")
    print("| scenario | " + " | ".join(gaps) + " |")
    print("|---|" + "---:|" * len(gaps))
    for sc in scenarios:
        print(f"| {sc.name} | " + " | ".join(f"{g[sc.name]:+.3f}" for g in gaps.values())
              + " |")
    print("| mean | " + " | ".join(f"{np.mean(list(g.values())):+.3f}" for g in gaps.values())
          + " |")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--voter"]:
        voter_sets(sys.argv[2], sys.argv[3:])
    else:
        main(sys.argv[1:])
