"""Speed of recommending from the shipped knowledge base (51 datasets x 152 configurations).

Timed in this run, each against a baseline measured in the same run:

1. ``metaeval recommend --evaluate --json`` (every strategy, leave-one-family-out, on the
   shipped knowledge base), as a subprocess, against reading the knowledge base file
   (``load_knowledge``) and against one leave-one-family-out pass of the single best
   (a plain NumPy loop over held-out families);
2. ``metaeval recommend FILE`` on a synthetic 10,000 x 50 CSV (description included), as a
   subprocess, against reading that CSV with pandas and fitting one scikit-learn
   ``LogisticRegression`` on it.

Wall and CPU seconds (the process and its children) and the load average are printed: the
machine may be shared. Targets: evaluation < 60 s (a knowledge base of one repetition;
< 90 s for one of two repetitions, scored on the unseen one) and a recommendation < 15 s
on 2 cores. The evaluation's JSON says how it scored (``scored_on``, ``n_repetitions``).

Usage: python benchmarks/bench_knowledge.py [--repeats 3] [--condition accuracy]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression

from metaeval.recommend import Condition, load_knowledge


def _children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(fn):
    w, c, cc = time.perf_counter(), time.process_time(), _children_cpu()
    fn()
    return (time.perf_counter() - w,
            time.process_time() - c + _children_cpu() - cc)


def metaeval(*args):
    exe = Path(sys.executable).with_name("metaeval")
    subprocess.run([str(exe), *map(str, args)], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def single_best_pass(kb):
    fam = np.array(kb.families)
    loss = []
    for i in range(len(kb.datasets)):
        train = fam != fam[i]
        j = int(np.argmax(kb.success[train].mean(axis=0)))
        loss.append(kb.success[i].max() - kb.success[i, j])
    return float(np.mean(loss))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="metaeval-bench-knowledge-"))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(10_000, 50))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 + rng.normal(size=10_000) > 0.8, "yes", "no")
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(50)])
    frame["churned"] = y
    csv = work / "churn.csv"
    frame.to_csv(csv, index=False)
    print(f"load average at start: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    rows = []
    for r in range(args.repeats):
        load = timed(load_knowledge)
        kb = load_knowledge().knowledge_base(Condition("accuracy"))
        sb = timed(lambda kb=kb: single_best_pass(kb))
        evaluate = timed(lambda: metaeval("recommend", "--evaluate", "--json",
                                          work / "ev.json"))
        read = timed(lambda: pd.read_csv(csv))
        logreg = timed(lambda: LogisticRegression(max_iter=1000).fit(X, y))
        recommend = timed(lambda: metaeval("recommend", csv, "--target", "churned",
                                           "--strategy", "knn-metafeatures"))
        rows.append({"run": r, "load_s": load[0], "single_best_s": sb[0],
                     "evaluate_s": evaluate[0], "evaluate_cpu_s": evaluate[1],
                     "evaluate_x_load": evaluate[0] / load[0],
                     "read_csv_s": read[0], "logreg_s": logreg[0],
                     "recommend_s": recommend[0], "recommend_cpu_s": recommend[1],
                     "recommend_x_logreg": recommend[0] / logreg[0]})
    import json

    doc = json.loads((work / "ev.json").read_text())
    print(f"evaluation scored on the {doc.get('scored_on')} ({doc.get('n_repetitions')} "
          f"repetition(s), {doc.get('n_datasets')} datasets, {doc.get('n_families')} "
          f"families, {doc.get('n_datasets_5000_rows')} of 5000 rows or more)")
    table = pd.DataFrame(rows).set_index("run")
    with pd.option_context("display.width", 200, "display.precision", 3):
        print(table.to_string())
    print(f"evaluate every strategy: {table['evaluate_s'].min():.1f}-"
          f"{table['evaluate_s'].max():.1f} s wall (target < 90 s); recommend 10,000 x 50: "
          f"{table['recommend_s'].min():.1f}-{table['recommend_s'].max():.1f} s "
          f"(target < 15 s); load average now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
