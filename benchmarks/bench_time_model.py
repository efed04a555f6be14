"""How well the time model predicts a configuration's CPU time on a new dataset.

The knowledge base records, per (dataset, configuration), the CPU seconds of one whole
5-fold cross-validation (every fold's fit and prediction, one thread; the mean of the two
repetitions). Two measurements, each with the former rule as the baseline in the same
run (each past dataset's time scaled linearly with the rows, geometric mean over the
past datasets, columns ignored):

1. Leave one family out on the shipped knowledge base: every recorded cell of a held-out
   family predicted by a model fitted on the other families; the median
   |log(predicted / measured)| over the cells (also over the cells of 1 s or more and of
   10 s or more, those a budget is about), beside the same for the former rule and for
   the model without the traits of the data, without columns, or with shared slopes only.
2. Three data files of our own, outside the knowledge base, written as CSV and read back
   as ``metaeval recommend`` reads them: the first configurations of the default order
   and a few of other families run for real, with the protocol predicted (metaeval's own
   ``run_task``, one 5-fold cross-validation, its CPU seconds on one thread), against
   ``recommend``'s ``expected_time`` (the model fitted on the whole knowledge base, with
   the data's traits), the model of rows and columns only, and the former rule.
   ``--set development`` (default): the three ``make_classification`` files that chose
   the traits (``SHAPES``, or ``--shape``); ``--set confirm``: the three new files of the
   pre-registered plan, docs/time_model_plan.md (numeric 6,000 x 30, mixed 4,000 x 24
   with 8 text columns, wide 2,500 x 200).

The measured CPU seconds are this machine's, the knowledge base's were another's; on a
shared machine CPU seconds are steadier than wall seconds but not exact (caches, memory
bandwidth). The load average is printed.

With ``--calibrate`` it also runs six recorded (dataset, configuration) pairs of the
knowledge base again and prints the ratio of this machine's CPU seconds now to the
recorded ones (a check that the machine and its load do not explain the errors).

Usage: python benchmarks/bench_time_model.py [--first 4] [--quick] [--shape 1500x120 ...]
       [--set development|confirm] [--no-lofo] [--no-files] [--calibrate]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from metaeval.recommend import load_knowledge
from metaeval.recommend.knowledge._budget import (
    TimeModel,
    knowledge_shape,
    knowledge_traits,
    linear_rows_prediction,
    lofo_errors,
)

#: Configurations of other families run on each file besides the default order's first.
OTHERS = ("lr:C=1,penalty=l2", "knn:k=5,weights=distance,metric=euclidean",
          "hgb:rate=0.1,leaves=31", "svm_rbf:C=1,gamma=scale", "gnb:smoothing=1e-09")
#: (rows, columns) of the three files.
SHAPES = ((3000, 20), (10000, 50), (1500, 120))


def ratio(errors) -> float:
    """exp(median |log(predicted / measured)|): a typical factor of error."""
    return float(np.exp(np.median(errors))) if len(errors) else float("nan")


def lofo(kb):
    rows, cols, times = knowledge_shape(kb)
    families = kb.families

    traits = knowledge_traits(kb)

    def model(with_cols=True, with_traits=True, **kw):
        def predict(train, test):
            c = cols if with_cols else None
            t = traits if with_cols and with_traits else None
            m = TimeModel.fit(rows[train], None if c is None else c[train], times[train],
                              traits=None if t is None else t[train], **kw)
            return m.predict(rows[test], None if c is None else c[test],
                             None if t is None else t[test])
        return predict

    def old(train, test):
        return linear_rows_prediction(rows[train], times[train], rows[test])

    results = {
        "former rule (linear in rows, no columns)": lofo_errors(rows, cols, times, families,
                                                                old),
        "time model (default: with the traits)": lofo_errors(rows, cols, times, families,
                                                             model()),
        "time model, rows and columns only": lofo_errors(rows, cols, times, families,
                                                         model(with_traits=False)),
        "time model, rows only": lofo_errors(rows, cols, times, families, model(False)),
        "time model, shared slopes only": lofo_errors(rows, cols, times, families,
                                                      model(penalty=np.inf)),
    }
    measured = None
    print(f"1. Leave one family out on the shipped knowledge base ({len(kb.datasets)} "
          f"datasets, {len(set(families))} families, {len(kb.algorithms)} configurations): "
          "exp(median |log(predicted/measured)|)")
    print(f"   {'':44s} {'all cells':>10s} {'>= 1 s':>8s} {'>= 10 s':>8s}")
    for name, e in results.items():
        measured = times[e["dataset"], e["algorithm"]]
        print(f"   {name:44s} {ratio(e['error']):10.3f} {ratio(e['error'][measured >= 1]):8.3f}"
              f" {ratio(e['error'][measured >= 10]):8.3f}")
    print(f"   cells: {len(measured)} (>= 1 s: {int((measured >= 1).sum())}, >= 10 s: "
          f"{int((measured >= 10).sum())}); target: at most 1.5")
    base = ratio(results["former rule (linear in rows, no columns)"]["error"])
    new = ratio(results["time model (default: with the traits)"]["error"])
    print(f"   log-error ratio model / former rule: {np.log(new) / np.log(base):.3f}")


def mixed_frame(n=4000, seed=202):
    """A mixed file of the confirming set (docs/time_model_plan.md): 16 numeric columns,
    8 text columns of 3 to 6 levels, the class a noisy logistic function of 6 numeric
    and 2 text columns."""
    rng = np.random.default_rng(seed)
    num = rng.standard_normal((n, 16))
    levels = rng.integers(3, 7, size=8)
    text = np.column_stack([rng.integers(0, k, size=n) for k in levels])
    logit = num[:, :6] @ rng.normal(0, 1, 6) + 0.8 * (text[:, 0] == 0) - 0.8 * (text[:, 1] == 1)
    y = (logit + rng.logistic(0, 1, n) > 0.5).astype(int)
    frame = pd.DataFrame(num, columns=[f"x{i}" for i in range(16)])
    for j in range(8):
        frame[f"c{j}"] = np.array([f"level{v}" for v in text[:, j]])
    return frame.assign(**{"class": y})


def synthetic_frame(n, p, **kw):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=n, n_features=p, **kw)
    return pd.DataFrame(X, columns=[f"x{i}" for i in range(p)]).assign(**{"class": y})


def development_files(shapes):
    """The three files that chose the model (and any --shape): make_classification."""
    return [(f"{n} x {p}", lambda n=n, p=p: synthetic_frame(
        n, p, n_informative=max(2, p // 4), weights=[0.7], flip_y=0.05, random_state=n + p))
        for n, p in shapes]


#: The confirming set of docs/time_model_plan.md, new files never run before the plan.
CONFIRM = (
    ("6000 x 30", lambda: synthetic_frame(6000, 30, n_informative=8, weights=[0.6],
                                          flip_y=0.02, random_state=101)),
    ("mixed 4000 x 24", mixed_frame),
    ("2500 x 200", lambda: synthetic_frame(2500, 200, n_informative=10, flip_y=0.1,
                                           random_state=303)),
)


def files(kb, first, specs):
    """Run the configurations on each file; the prediction is ``recommend``'s own
    ``expected_time`` (the time model with the data's traits), beside the model of rows
    and columns only and the former rule."""
    from metaeval.algorithms import get_algorithm
    from metaeval.datasets import read_dataset
    from metaeval.recommend import recommend
    from metaeval.study import run_task
    from metaeval.study._plan import Task

    rows, cols, times = knowledge_shape(kb)
    shape_model = TimeModel.fit(rows, cols, times, kb.algorithms)
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, make in specs:
            path = Path(tmp) / f"{label.replace(' ', '_')}.csv"
            make().to_csv(path, index=False)
            data = read_dataset(path, target="class")
            rec = recommend(data)
            order = rec.table["algorithm"].tolist()
            predicted = rec.table.set_index("algorithm")["expected_time"]
            print(f"   {label}: {data.n_instances} rows, {data.X.shape[1]} columns; "
                  f"predicted from {rec.time_basis}", flush=True)
            shape = shape_model.predict(data.n_instances, data.X.shape[1])
            former = linear_rows_prediction(rows, times, [data.n_instances])[0]
            chosen = list(dict.fromkeys(order[:first] + list(OTHERS)))
            for name in chosen:
                j = kb.algorithms.index(name)
                task = Task(data.name, get_algorithm(name), repeat=0, folds=5, seed=0,
                            data=data)
                result = run_task(task)
                if result.status != "done":
                    print(f"   {name} failed on {data.name}: {result.error}")
                    continue
                out.append({"file": label, "algorithm": name, "measured": result.cpu,
                            "model": float(predicted[name]), "shape": shape[j],
                            "former": former[j]})
                print(f"   {label:16s} {name:44s} measured {result.cpu:8.2f}  model "
                      f"{predicted[name]:8.2f}  rows+columns {shape[j]:8.2f}  former rule "
                      f"{former[j]:8.2f}", flush=True)
    frame = pd.DataFrame(out)
    err = {k: np.abs(np.log(frame[k] / frame["measured"]))
           for k in ("model", "shape", "former")}
    print(f"   {len(frame)} runs: exp(median |log(predicted/measured)|) model "
          f"{ratio(err['model']):.3f}, rows and columns only {ratio(err['shape']):.3f}, "
          f"former rule {ratio(err['former']):.3f}; per file (model / rows and columns / "
          "former):")
    for name, part in frame.groupby("file", sort=False):
        idx = part.index
        print(f"     {name:16s} {ratio(err['model'][idx]):.3f} / {ratio(err['shape'][idx]):.3f}"
              f" / {ratio(err['former'][idx]):.3f}")
    print(f"   sum of measured {frame['measured'].sum():.1f} CPU s, predicted by the model "
          f"{frame['model'].sum():.1f}, by rows and columns only {frame['shape'].sum():.1f}, "
          f"by the former rule {frame['former'].sum():.1f}")
    print(f"   target: at most 1.5 -> {'met' if ratio(err['model']) <= 1.5 else 'missed'}")


def calibrate(archive):
    """The knowledge base's recorded CPU seconds against this machine's now, on two of
    its own datasets: whether this machine (and its load) runs as fast as the one that
    recorded them."""
    from metaeval.algorithms import get_algorithm
    from metaeval.study import run_task
    from metaeval.study._plan import Task

    print("3. This machine now against the knowledge base's records (same protocol)")
    ratios = []
    for ds in ("spambase", "satimage"):
        i = archive.datasets.index(ds)
        for name in ("rf:trees=100,features=sqrt,leaf=1", "hgb:rate=0.1,leaves=31",
                     "lr:C=1,penalty=l2"):
            j = archive.algorithms.index(name)
            recorded = float(archive.times["cpu"][i, j])
            r = run_task(Task(ds, get_algorithm(name), repeat=0, folds=5, seed=0))
            ratios.append(r.cpu / recorded)
            print(f"   {ds:10s} {name:36s} now {r.cpu:6.2f}  recorded {recorded:6.2f}  "
                  f"ratio {r.cpu / recorded:.2f}", flush=True)
    print(f"   median ratio now / recorded: {np.median(ratios):.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", type=int, default=4,
                        help="configurations of the default order run on each file")
    parser.add_argument("--quick", action="store_true", help="one file only")
    parser.add_argument("--shape", action="append", default=None, metavar="ROWSxCOLS",
                        help="a file's shape, e.g. 1500x120 (repeatable; default the three "
                        "of SHAPES)")
    parser.add_argument("--set", choices=("development", "confirm"), default="development",
                        help="which three files (default: development)")
    parser.add_argument("--no-lofo", action="store_true",
                        help="skip the leave-one-family-out part")
    parser.add_argument("--no-files", action="store_true", help="skip the synthetic files")
    parser.add_argument("--calibrate", action="store_true",
                        help="also time 6 recorded runs of the knowledge base again")
    args = parser.parse_args()
    shapes = (tuple(tuple(int(v) for v in s.lower().split("x")) for s in args.shape)
              if args.shape else SHAPES[:1] if args.quick else SHAPES)
    print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    archive = load_knowledge()
    kb = archive.knowledge_base(clock="cpu")
    if not args.no_lofo:
        lofo(kb)
    if not args.no_files:
        specs = CONFIRM if args.set == "confirm" else development_files(shapes)
        print(f"2. {len(specs)} file(s) of the {args.set} set, outside the knowledge base, "
              "one 5-fold cross-validation each, CPU seconds (this machine)")
        files(kb, args.first, specs)
    if args.calibrate:
        calibrate(archive)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
