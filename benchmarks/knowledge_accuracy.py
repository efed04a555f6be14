"""How exactly a knowledge base file gives the success the study's scores give.

For a few datasets of the study behind a knowledge base (by default the two with the
most tied scores among the small ones), every configuration's success under each of 23
conditions (the two global metrics, and 1 - hardness of each threshold choice method at
cost 0.3, at the off-grid cost 0.333, uniform and under Beta(2, 8)) is computed twice:
by :meth:`Condition.success` on the store's out-of-fold scores of every repetition
(exact, tie for tie) and by :meth:`KnowledgeArchive.repetition_success` from the file
(metrics exact, linear curves exact, grid curves interpolated or integrated). The largest
absolute difference of each condition is printed and, with ``--write``, recorded in the
file's provenance (``accuracy``; ``metaeval knowledge show`` prints it). Writing keeps
every array, so the checksum and the other members do not change; running it again gives
the same bytes.

Usage: python benchmarks/knowledge_accuracy.py STORE KNOWLEDGE.npz [--datasets a,b] [--write]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

import numpy as np

from metaeval.hardness import METHODS
from metaeval.recommend import Condition, load_knowledge
from metaeval.store import Store

COSTS = ((0.3, "at c = 0.3"), (0.333, "at c = 0.333"), (None, "(uniform costs)"))


def conditions():
    out = {"accuracy": Condition("accuracy"), "AUC": Condition("auc"),
           "1 - Brier score": Condition("brier")}
    for method in METHODS:
        for cost, text in COSTS:
            out[f"1 - {method} hardness {text}"] = Condition(f"hardness:{method}", cost=cost)
        out[f"1 - {method} hardness under Beta(2, 8)"] = Condition(f"hardness:{method}",
                                                                   cost_beta=(2, 8))
    return out


def tied_datasets(store, archive, n=2, max_rows=400):
    """The ``n`` datasets of at most ``max_rows`` rows whose scores tie most (repeat 0)."""
    small = [d for d, rows in zip(archive.datasets, archive.n_instances, strict=True)
             if rows <= max_rows]
    share = {}
    for name in small:
        _, S, _ = store.scores(name, repeat=0)
        distinct = np.mean([np.unique(col).size / col.size for col in S.T])
        share[name] = 1.0 - distinct
    return sorted(share, key=lambda d: -share[d])[:n]


def measure(store, archive, names):
    """{condition label: largest |file - exact| over the names' cells and repetitions}."""
    index = {d: i for i, d in enumerate(archive.datasets)}
    algos = list(archive.algorithms)
    errors, cells = {}, 0
    for label, condition in conditions().items():
        from_file = archive.repetition_success(condition)  # (R, D, A)
        worst = 0.0
        for name in names:
            for r in range(from_file.shape[0]):
                y, S, run = store.scores(name, repeat=r)
                exact = condition.success(y, S)
                cols = [algos.index(a) for a in run]
                got = from_file[r, index[name], cols]
                worst = max(worst, float(np.nanmax(np.abs(got - exact))))
                if label == "accuracy":
                    cells += len(cols)
        errors[label] = float(f"{worst:.3g}")
    return errors, cells


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("knowledge")
    parser.add_argument("--datasets", default=None, help="Comma-separated names.")
    parser.add_argument("--write", action="store_true",
                        help="Record the figures in the file's provenance.")
    args = parser.parse_args(argv)
    archive = load_knowledge(args.knowledge)
    store = Store(args.store)
    with store.reading():
        names = (args.datasets.split(",") if args.datasets
                 else tied_datasets(store, archive))
        errors, cells = measure(store, archive, names)
    accuracy = {"checked_cells": cells, "checked_datasets": len(names),
                "datasets": names,
                "how": ("against Condition.success on the study's own out-of-fold scores, "
                        f"every repetition ({archive.n_repetitions})"),
                "max_abs_error_of_success": errors}
    print(json.dumps(accuracy, indent=1))
    if args.write:
        provenance = {**archive.provenance, "accuracy": accuracy}
        dataclasses.replace(archive, provenance=provenance).save(args.knowledge)
        again = load_knowledge(args.knowledge)
        assert again.provenance["accuracy"] == accuracy
        print(f"recorded in {args.knowledge}", file=sys.stderr)


if __name__ == "__main__":
    main()
