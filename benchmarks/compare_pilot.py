"""Compare metaeval's instance space (PCA) with PILOT's (the instance-space projection).

PILOT (Muñoz et al. 2018, "Instance spaces for machine learning classification")
finds the 2-D linear projection of the instance features from which both the
features and the algorithms' performances are best linearly predicted. This script
runs the analytic PILOT of the ``pyispace`` package (the one PyHard uses) on the
same inputs as metaeval's PCA view: the encoded features of a dataset and, as
performance, each algorithm's instance hardness from the study store. It then
compares the two projections on:

* R² of predicting each algorithm's hardness linearly from the 2-D coordinates
  (what PILOT optimises for);
* the Spearman correlation of pairwise distances in 2-D with those between the
  encoded features (how much of the space's geometry the view keeps);
* metaeval's footprints (area normalised by the space, purity) in each view.

``pyispace`` is not a dependency of metaeval; its ``pilot.py`` and
``preprocessing.py`` need only numpy, scipy and scikit-learn, so they are loaded
from an installed (or unpacked) copy by path, without importing the package's
``__init__`` (whose TRACE stage needs shapely 1.8, which does not install beside
numpy 2). The ``instancespace`` package (the Python port of the MATLAB toolkit)
requires Python >= 3.12.

Run: ``python benchmarks/compare_pilot.py --pyispace DIR [--store ...] [--datasets ...]``
with DIR the folder holding ``pyispace/pilot.py`` (e.g. a wheel unpacked with unzip).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.spatial.distance import pdist
from scipy.stats import spearmanr


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _r2(xy, H):
    """R² of the least-squares fit of each column of H on (1, x, y)."""
    A = np.c_[np.ones(len(xy)), xy]
    coef, *_ = np.linalg.lstsq(A, H, rcond=None)
    resid = H - A @ coef
    tot = ((H - H.mean(axis=0)) ** 2).sum(axis=0)
    return np.where(tot > 0, 1 - (resid**2).sum(axis=0) / np.where(tot > 0, tot, 1), np.nan)


def _distance_rank_corr(Z, xy, rng, n=1500):
    rows = rng.choice(len(Z), size=min(n, len(Z)), replace=False)
    return spearmanr(pdist(Z[rows]), pdist(xy[rows]))[0]


def compare(store, name, pilot_mod, prep_mod, method, cost, rng):
    from metaeval.datasets import load_dataset
    from metaeval.hardness import instance_hardness
    from metaeval.hardness.classic import encode_features
    from metaeval.instance_space import project_instances
    from metaeval.selection import condition_footprints, footprint_table

    y, S, algorithms = store.scores(name)
    ds = load_dataset(name)
    Z = encode_features(ds.X, list(ds.categorical))
    H = instance_hardness(y, S, method)  # (n, m), in [0, 1]
    keep = np.ptp(Z, axis=0) > 0
    Xp = prep_mod.auto_normalize(prep_mod.bound_outliers(Z[:, keep]))
    Yp = prep_mod.auto_normalize(H)
    with warnings.catch_warnings():  # pyispace's eig of a symmetric matrix: complex dtype
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        zp = pilot_mod.pilot(Xp, Yp, analytic=True, ntries=1).Z
    if np.abs(np.imag(zp)).max() > 1e-8 * max(1.0, np.abs(zp).max()):
        raise RuntimeError(f"{name}: PILOT returned complex coordinates")
    views = {"PCA (metaeval)": project_instances(Z, encode=False), "PILOT (pyispace)": np.real(zp)}
    rows = []
    for view, xy in views.items():
        r2 = _r2(xy, H)
        fps = condition_footprints(xy, y, S, costs=[cost], method="score-driven",
                                   algorithms=algorithms)[cost]  # fmt: skip
        table = footprint_table(fps)
        rows.append({
            "dataset": name,
            "view": view,
            "mean R2 hardness": float(np.nanmean(r2)),
            "distance rank corr": float(_distance_rank_corr(Z, xy, rng)),
            "mean footprint area": float(table["area_normalized"].mean()),
            "mean footprint purity": float(table["purity"].mean()),
            "spread of areas": float(table["area_normalized"].std()),
        })  # fmt: skip
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pyispace", required=True, help="folder holding pyispace/pilot.py")
    parser.add_argument("--store", default="/work/stores/full.duckdb")
    parser.add_argument(
        "--datasets",
        nargs="*",
        default=["diabetes", "credit-g", "spambase", "phoneme", "segment0"],
    )
    parser.add_argument("--method", default="rate-driven")
    parser.add_argument("--cost", type=float, default=0.5)
    args = parser.parse_args()
    from metaeval.store import Store

    root = Path(args.pyispace) / "pyispace"
    pilot_mod = _load(root / "pilot.py", "pyispace_pilot")
    prep_mod = _load(root / "preprocessing.py", "pyispace_preprocessing")
    store = Store(args.store)
    rng = np.random.default_rng(0)
    print(f"load {os.getloadavg()}; performance: {args.method} instance hardness; "
          f"footprints: score-driven at c = {args.cost}")  # fmt: skip
    rows = []
    for name in args.datasets:  # a loop over datasets
        rows += compare(store, name, pilot_mod, prep_mod, args.method, args.cost, rng)
    frame = pd.DataFrame(rows)
    pd.set_option("display.width", 200)
    print(frame.round(3).to_string(index=False))
    print("\nmean over datasets:")
    print(frame.groupby("view").mean(numeric_only=True).round(3).to_string())


if __name__ == "__main__":
    main()
