"""Per-instance selection on a study store, against DESlib's KNORA-E and META-DES.

For every dataset of a store (or those given), on the study's own cross-validation
folds and its stored out-of-fold scores:

* ``single best``: the model with the lowest mean loss on the outer training part;
* ``selector``: :func:`metaeval.selection.evaluate_selection` (the model with the
  lowest mean instance cost curve at ``c`` among the k nearest training instances,
  k tuned by inner cross-validation);
* ``KNORA-E`` and ``META-DES`` (DESlib, default settings but soft voting, see
  :func:`des_scores`): dynamic ensemble
  selection whose pool is the study's models, seen through their stored scores. The
  outer training part is DESlib's DSEL (its out-of-fold scores are what the pool
  "predicts" there, as DESlib recommends a DSEL the pool was not fitted on); the
  outer test fold gets the stored scores of the models fitted without it. Each
  ensemble's ``predict_proba`` is the score whose instance cost curve is evaluated;
* ``oracle``: the best model for each instance.

Losses are instance cost curves at each cost proportion ``c`` under the
score-driven threshold choice method (Prudêncio 2019), averaged per dataset. The
tables give the mean loss over datasets, the share of the single best-to-oracle gap
closed (ratio of the summed losses, and the median of the per-dataset ratios), and
the number of datasets where each strategy beats the single best.

DESlib 0.3.7 calls ``BaseEstimator._validate_data``, which scikit-learn removed in
1.6; this script restores it on DESlib's base class as a call of
``sklearn.utils.validation.validate_data``. Checked against DESlib under scikit-learn
1.5.2 / numpy 1.23.5 (where the method still exists) with :func:`des_scores` on
diabetes, credit-g and vote: identical ensemble scores, except 3 (KNORA-E) and 7
(META-DES) of vote's 435 rows, a dataset of many duplicate rows where the two
scikit-learn versions order tied neighbours differently.

Run: ``python benchmarks/compare_selection.py --store /work/stores/full.duckdb
[--datasets labor sonar] [--costs 0.1 0.3 0.5 0.7 0.9] [--max-rows 6000] [--voting hard]
[--csv out.csv]``.
DESlib is optional (``pip install deslib``): without it only the selector runs.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin

# ----------------------------------------------------------------------------- DESlib part
# (numpy, scikit-learn and DESlib only, so that it also runs where metaeval is absent)


def _patch_deslib():
    """Give DESlib's base class the ``_validate_data`` scikit-learn >= 1.6 removed."""
    import deslib.base

    if hasattr(deslib.base.BaseDS, "_validate_data"):
        return False
    from sklearn.utils.validation import validate_data

    def _validate_data(self, X="no_validation", y="no_validation", reset=True, **kwargs):
        return validate_data(self, X=X, y=y, reset=reset, **kwargs)

    deslib.base.BaseDS._validate_data = _validate_data
    return True


class StoredScores(ClassifierMixin, BaseEstimator):
    """A fitted binary classifier that answers with stored scores.

    The last column of ``X`` carries the row id times ``1e-12`` (a shift far below
    any distance in the data); the row's stored score for model ``j`` is returned.
    Class 1 is predicted when the score exceeds 0.5 (metaeval's convention).
    """

    def __init__(self, scores, j):
        self.scores, self.j = scores, j
        self.classes_ = np.array([0, 1])

    def _s(self, X):
        rows = np.rint(np.asarray(X)[:, -1] * 1e12).astype(np.int64)
        return self.scores[rows, self.j]

    def predict(self, X):
        return (self._s(X) > 0.5).astype(int)

    def predict_proba(self, X):
        s = self._s(X)
        return np.c_[1.0 - s, s]

    def fit(self, X, y):  # already fitted: the study fitted it
        return self

    def __sklearn_is_fitted__(self):
        return True


def des_scores(X, y, S, folds, *, voting="soft", random_state=0):
    """Out-of-fold ensemble scores of KNORA-E and META-DES on the given folds.

    DESlib's defaults otherwise (k = 7; META-DES: Kp = 5, Hc = 1, naive Bayes
    meta-classifier). Where every model predicts the same class DESlib returns the
    pool's mean probability; elsewhere the selected models' mean probability
    (``voting="soft"``) or their vote share (``"hard"``, DESlib's default, which
    makes the score crisp when one model is selected).

    Returns a dict name -> (n,) array of P(class 1).
    """
    from deslib.des import KNORAE, METADES

    n = X.shape[0]
    Xid = np.c_[X, np.arange(n) * 1e-12]
    pool = [StoredScores(S, j) for j in range(S.shape[1])]
    out = {"KNORA-E": np.empty(n), "META-DES": np.empty(n)}
    for fold in np.unique(folds):
        test, train = folds == fold, folds != fold
        for name, cls in (("KNORA-E", KNORAE), ("META-DES", METADES)):
            des = cls(pool, voting=voting, n_jobs=1, random_state=random_state)
            des = des.fit(Xid[train], y[train])
            out[name][test] = des.predict_proba(Xid[test])[:, 1]
    return out


# ----------------------------------------------------------------------------- metaeval part


def _load(store, name):
    from metaeval.datasets import load_dataset
    from metaeval.hardness.classic import encode_features

    y, S, algorithms = store.scores(name)
    frame = store.scores_frame(name)
    first = frame[frame["algorithm"] == algorithms[0]].sort_values("row")
    folds = first["fold"].to_numpy()
    ds = load_dataset(name)
    if not np.array_equal(np.asarray(ds.y), y):
        raise RuntimeError(f"{name}: the store's labels differ from the built-in dataset's.")
    X = encode_features(ds.X, list(ds.categorical))
    return X, y.astype(int), S, folds, algorithms


def run(store_path, datasets, costs, *, max_rows, use_des, voting, method="score-driven"):
    from metaeval.hardness import instance_hardness_at
    from metaeval.selection import evaluate_selection
    from metaeval.store import Store

    store = Store(store_path)
    names = store.datasets()
    names = names[names["n_instances"] <= max_rows]["name"].tolist()
    if datasets:
        names = [d for d in names if d in datasets]
    rows, timing = [], []
    for name in names:  # a loop over datasets
        X, y, S, folds, algorithms = _load(store, name)
        t0 = time.process_time()
        table = evaluate_selection(X, y, S, folds, c=costs, method=method, algorithms=algorithms)
        t_sel = time.process_time() - t0
        des, t_des = {}, float("nan")
        if use_des:
            t0 = time.process_time()
            des = des_scores(X, y, S, folds, voting=voting)
            t_des = time.process_time() - t0
        for r in table.itertuples():
            row = {
                "dataset": name,
                "n": len(y),
                "c": r.c,
                "single best": r.loss_single_best,
                "selector": r.loss_selected,
                "oracle": r.loss_oracle,
                "k": r.k,
            }
            for key, s in des.items():
                row[key] = float(instance_hardness_at(y, s, method, r.c).mean())
            rows.append(row)
        timing.append({"dataset": name, "n": len(y), "selector_cpu": t_sel, "des_cpu": t_des})
        print(f"  {name:26s} n={len(y):6d}  selector {t_sel:6.1f}s  DESlib {t_des:6.1f}s",
              flush=True)  # fmt: skip
    return pd.DataFrame(rows), pd.DataFrame(timing)


def summarize(results):
    """Mean loss per strategy, gap closed (pooled and median) and wins, per c."""
    strategies = [s for s in ("selector", "KNORA-E", "META-DES") if s in results]
    out = []
    for c, g in results.groupby("c"):
        sb, oracle = g["single best"], g["oracle"]
        row = {"c": c, "single best": sb.mean(), "oracle": oracle.mean()}
        open_gap = sb - oracle
        for s in strategies:
            row[s] = g[s].mean()
            row[f"gap {s}"] = (sb.sum() - g[s].sum()) / open_gap.sum()
            per = ((sb - g[s]) / open_gap)[open_gap > 1e-12]
            row[f"median gap {s}"] = per.median()
            row[f"wins {s}"] = int((g[s] < sb - 1e-12).sum())
            row[f"losses {s}"] = int((g[s] > sb + 1e-12).sum())
        out.append(row)
    return pd.DataFrame(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default="/work/stores/full.duckdb")
    parser.add_argument("--datasets", nargs="*", default=None)
    parser.add_argument("--costs", nargs="*", type=float, default=[0.1, 0.3, 0.5, 0.7, 0.9])
    parser.add_argument("--max-rows", type=int, default=10**9)
    parser.add_argument("--no-des", action="store_true", help="skip DESlib")
    parser.add_argument(
        "--voting",
        choices=["soft", "hard"],
        default="soft",
        help="DESlib's combination of the selected models",
    )
    parser.add_argument("--csv", default=None, help="write the per-dataset results here")
    args = parser.parse_args()
    use_des = not args.no_des
    if use_des:
        try:
            patched = _patch_deslib()
            print(f"DESlib found; _validate_data restored for scikit-learn >= 1.6: {patched}")
        except ImportError:
            print("DESlib is not installed (pip install deslib): only the selector runs.")
            use_des = False
    print(f"{platform.platform()}, {os.cpu_count()} CPUs, load {os.getloadavg()}")
    results, timing = run(
        args.store,
        args.datasets,
        args.costs,
        max_rows=args.max_rows,
        use_des=use_des,
        voting=args.voting,
    )
    if args.csv:
        Path(args.csv).parent.mkdir(parents=True, exist_ok=True)
        results.to_csv(args.csv, index=False)
    pd.set_option("display.width", 200)
    print(f"\n{results['dataset'].nunique()} datasets, score-driven, mean over datasets:")
    print(summarize(results).round(4).to_string(index=False))
    print("\nCPU seconds (all datasets):", timing[["selector_cpu", "des_cpu"]].sum().round(1)
          .to_dict())  # fmt: skip


if __name__ == "__main__":
    main()
