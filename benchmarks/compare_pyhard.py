"""Cross-check metaeval's pool hardness against PyHard's instance hardness (IH).

PyHard (PyPI ``pyhard``, checked with version 2.2.4; Paiva, Moreno, Smith-Miles,
Valeriano & Lorena 2022, "Relating instance hardness to classification performance
in a dataset: a visual approach", Machine Learning 111) computes its IH in
``pyhard/base.py``, ``LearnersPool.estimate_ih``::

    IH = 1 - (1 / L) * self.predicted_proba.sum(axis=1)

where ``predicted_proba`` has one column per algorithm of the pool, filled by
``pyhard/classification.py``, ``ClassifiersPool.run_all`` -> ``run``: for each
algorithm, ``n_iter`` repetitions of a ``StratifiedKFold(n_folds, shuffle=True,
random_state=PYHARD_SEED)``; in each fold the training part is SMOTE-oversampled when
the classes are imbalanced (``resampling="over"``, the default), standard-scaled, the
classifier is wrapped in ``CalibratedClassifierCV(method="sigmoid", cv=3,
ensemble=False)`` and ``ClassifiersPool.score`` returns, per test instance, the
metric (``logloss`` by default, or ``brier``, ``pyhard/metrics.py``) and the
predicted probability of the TRUE class, ``y_pred[y_true == 1]``; the column is the
mean of that probability over the ``n_iter`` repetitions. So, with ``p_m(x)`` the
probability that algorithm ``m`` gives to the true class of ``x``::

    IH_pyhard(x) = 1 - (1/L) sum_m p_m(x) = (1/L) sum_m (1 - p_m(x)).

metaeval's instance hardness under the score-uniform threshold choice method with
uniform costs is ``s`` for a class-0 instance and ``1 - s`` for a class-1 instance
(``s`` the score, an estimate of P(y = 1)), i.e. exactly ``1 - p(true class)``; so::

    IH_pyhard(x) = pool_hardness(y, S, "score-uniform")(x)
                 = classic.pool_true_class_probability_loss(y, S)(x)

for the same probabilities (two classes), with no change of scale. PyHard's
per-algorithm ``brier`` metric sums over both one-hot columns, ``(1-p)^2 + (1-p)^2``,
so it is exactly twice metaeval's score-driven instance hardness ``(s - y)^2``.
PyHard's default metric ``logloss`` (``-log p``, clipped at 1e-15) has no
counterpart among the cost-curve measures (it is unbounded); it only feeds PyHard's
instance space (metadata ``algo_*`` columns), not its IH.

What the script measures, per dataset (built-in binary datasets of metaeval):

1. *Same probabilities, metaeval -> PyHard*: the out-of-fold scores of a metaeval
   study (its 8 default algorithms, 10 folds, seed 0) are turned into the (n, 2)
   class-probability matrices that PyHard's ``ClassifiersPool.score`` takes, and
   PyHard's own code extracts ``p(true class)``, the brier and log-loss metrics and
   ``estimate_ih``; compared with ``pool_hardness(..., "score-uniform")``,
   ``pool_true_class_probability_loss`` and ``2 * instance_hardness(...,
   "score-driven")``: max absolute differences.
2. *Same probabilities, PyHard -> metaeval*: PyHard's end-to-end run (its default
   pool of 7 classifiers, ``n_folds=5``, ``n_iter=1``, no HPO, SMOTE, sigmoid
   calibration, ``PYHARD_SEED=0``) gives ``predicted_proba`` (probability of the true
   class per algorithm); these are turned back into scores ``s = p`` (y = 1) or
   ``1 - p`` (y = 0) and fed to metaeval's ``pool_hardness``: max absolute
   difference with PyHard's ``estimate_ih``.
3. *End to end*: Spearman correlation between PyHard's IH (its own CV and pool) and
   metaeval's pool hardness from the metaeval study (score-uniform, score-driven,
   score-fixed, rate-uniform), i.e. two different pools, CV schemes and
   preprocessing.

How to run. PyHard pins ``pandas~=1.5``, ``numpy~=1.23`` and ``scikit-learn~=1.5``
while metaeval needs ``pandas>=2``, so the two do not share a virtualenv. PyHard goes
in its own (it installs and imports on Python 3.11 with its pinned dependencies)::

    python3 -m venv /tmp/pyhardenv
    /tmp/pyhardenv/bin/pip install pyhard==2.2.4

and the script runs in metaeval's virtualenv, calling PyHard's interpreter in a
subprocess (this same file with ``--worker``; only numpy, pandas and scipy are
imported at module level, PyHard and metaeval only inside functions)::

    .venv/bin/python benchmarks/compare_pyhard.py --pyhard-python /tmp/pyhardenv/bin/python \
        [--datasets labor fertility haberman diabetes] [--n-iter 1] [--n-folds 5]

Everything runs on one core (``n_jobs=1`` for PyHard's random forest and bagging,
``LocalExecutor(jobs=1)`` for the metaeval study).

Measured (2026-11-28, pyhard 2.2.4 with numpy 1.23.5, pandas 1.5.3, scikit-learn
1.5.2; metaeval with numpy 2.4.6, scikit-learn 1.9.1; metaeval study: 8 algorithms,
10 folds, seed 0; PyHard: 7 classifiers, 5 folds, seed 0; 2 shared CPU cores)::

                                       labor  fertility  haberman  diabetes
    n                                     57        100       306       768
    max|IH_pyhard - pool_su|        1.67e-16    1.8e-16  2.22e-16  2.22e-16
    max|IH_pyhard - ptcp_loss|      1.11e-16   1.11e-16  2.22e-16  2.22e-16
    max|brier_pyhard - 2*sd|        5.55e-17   5.55e-17  5.55e-17  5.55e-17
    max|logloss_pyhard - (-log p)|         0          0         0         0
    n_iter=1:
    max|IH_pyhard_own - pool_su(own)| 2.57e-16 2.36e-16  3.33e-16  2.78e-16
    rho(IH_pyhard, pool_su)            0.633      0.853     0.822     0.898
    rho(IH_pyhard, pool_sd)            0.628      0.848     0.817     0.888
    rho(IH_pyhard, pool_sf)            0.629      0.817     0.757     0.814
    rho(IH_pyhard, pool_ru)            0.349      0.590     0.685     0.819
    PyHard run, s                       5.5        6.2       9.9      12.7
    n_iter=10 (``--n-iter 10``):
    max|IH_pyhard_own - pool_su(own)| 1.94e-16 2.22e-16  2.22e-16  2.64e-16
    rho(IH_pyhard, pool_su)            0.670      0.847     0.827     0.909
    rho(IH_pyhard, pool_sd)            0.662      0.846     0.820     0.899
    rho(IH_pyhard, pool_sf)            0.622      0.804     0.762     0.824
    rho(IH_pyhard, pool_ru)            0.406      0.581     0.684     0.833
    PyHard run, s                      62.7       70.5      92.4     125

(su, sd, sf, ru: score-uniform, score-driven, score-fixed at t = 0.5, rate-uniform;
ptcp_loss: ``classic.pool_true_class_probability_loss``; the run times vary with the
load of the shared machine: a second n_iter=1 run took 5.9, 8.9, 12.4 and 16.8 s with
identical values.) The differences are at the
level of float rounding: the correspondence is exact. The end-to-end correlations
are between different pools and protocols (PyHard: linear and RBF SVC, random forest,
gradient boosting, bagging, logistic regression, MLP, all sigmoid-calibrated, SMOTE
in every training fold since all four datasets have a class ratio above PyHard's
1.5 tolerance, standard-scaled features; metaeval: 3NN, 5NN, DT, NB, LR, RF, linear
and RBF SVM with their default, uncalibrated scores) and different fold assignments,
so they are not expected to be 1. PyHard is given metaeval's encoded features
(``classic.encode_features``: imputed, min-max scaled, one-hot), as it needs numeric
features without missing values.

Note that with ``PYHARD_SEED`` set, PyHard builds one ``StratifiedKFold(...,
random_state=seed)`` per algorithm and calls ``split`` ``n_iter`` times: every
repetition uses the same folds (and the same model ``random_state``), so its
``n_iter`` repetitions differ only through SMOTE and unseeded randomness.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

DEFAULT_DATASETS = ["labor", "fertility", "haberman", "diabetes"]

# PyHard's default pool (pyhard/conf/config.yaml, ``algos.pool``; "dummy" is commented out).
PYHARD_POOL = [
    "svc_linear",
    "svc_rbf",
    "random_forest",
    "gradient_boosting",
    "bagging",
    "logistic_regression",
    "mlp",
]


# ---------------------------------------------------------------------------------------
# worker: runs under PyHard's interpreter; imports pyhard, never metaeval
# ---------------------------------------------------------------------------------------


def _pyhard_worker(path_in: str, path_out: str, n_folds: int, n_iter: int, seed: int) -> None:
    os.environ["PYHARD_SEED"] = str(seed)
    import logging

    import pyhard
    from pyhard.classification import ClassifiersPool

    logging.getLogger().setLevel(logging.WARNING)
    # SMOTE() in ClassifiersPool.run draws from numpy's global random state
    np.random.seed(seed)  # noqa: NPY002

    data = np.load(path_in, allow_pickle=False)
    Z, y, S = data["Z"], data["y"].astype(np.int64), data["S"]
    frame = pd.DataFrame(Z, columns=[f"x{j}" for j in range(Z.shape[1])])
    frame["class"] = y

    # 1. metaeval's scores through PyHard's own extraction of p(true class), metrics and IH.
    pool = ClassifiersPool(frame, labels_col="class")
    brier = np.empty_like(S)
    logloss = np.empty_like(S)
    proba = {}
    for j in range(S.shape[1]):
        y_pred = np.column_stack([1.0 - S[:, j], S[:, j]])  # columns: classes 0, 1
        brier[:, j], p_true = pool.score("brier", y, y_pred, classes_order=np.array([0, 1]))
        logloss[:, j], _ = pool.score("logloss", y, y_pred, classes_order=np.array([0, 1]))
        proba[f"m{j}"] = p_true
    pool.predicted_proba = pd.DataFrame(proba)
    ih_from_metaeval = pool.estimate_ih()

    # 2. PyHard end to end: its default pool, CV, resampling and calibration, no HPO.
    pool = ClassifiersPool(frame, labels_col="class")
    t0 = time.perf_counter()
    pool.run_all(
        metric="logloss",
        n_folds=n_folds,
        n_iter=n_iter,
        algo_list=PYHARD_POOL,
        parameters={"random_forest": {"n_jobs": 1}, "bagging": {"n_jobs": 1}},
        resampling="over",
        hyper_param_optm=False,
    )
    wall = time.perf_counter() - t0
    ih_own = pool.estimate_ih()
    P_own = pool.predicted_proba[sorted(PYHARD_POOL)].to_numpy()  # run_all sorts the names

    np.savez(
        path_out,
        brier=brier,
        logloss=logloss,
        ih_from_metaeval=np.asarray(ih_from_metaeval, dtype=float),
        ih_own=np.asarray(ih_own, dtype=float),
        P_own=P_own,
        wall=wall,
        version=pyhard.__version__,
    )


# ---------------------------------------------------------------------------------------
# main: runs under metaeval's interpreter
# ---------------------------------------------------------------------------------------


def _metaeval_scores(names, store_path, seed):
    from metaeval.store import Store
    from metaeval.study import LocalExecutor, Study, run_study

    study = Study(
        datasets=list(names), folds=10, seed=seed, executor=LocalExecutor(jobs=1), store=store_path
    )
    summary = run_study(study)
    if summary.exit_code != 0:
        raise RuntimeError(summary.message())
    store = Store(store_path)
    return {name: store.scores(name) for name in names}


def _compare(name, y, S, algorithms, out):
    from metaeval.hardness import instance_hardness, pool_hardness
    from metaeval.hardness.classic import pool_true_class_probability_loss

    y = np.asarray(y, dtype=np.int64)
    row = {"dataset": name, "n": len(y), "metaeval_models": len(algorithms)}

    # 1. same (metaeval) probabilities through both libraries
    su = pool_hardness(y, S, "score-uniform")
    row["max|IH_pyhard - pool_su|"] = np.abs(out["ih_from_metaeval"] - su).max()
    row["max|IH_pyhard - ptcp_loss|"] = np.abs(
        out["ih_from_metaeval"] - pool_true_class_probability_loss(y, S)
    ).max()
    sd = instance_hardness(y, S, "score-driven")
    row["max|brier_pyhard - 2*sd|"] = np.abs(out["brier"] - 2.0 * sd).max()
    p_true = np.where(y[:, None] == 1, S, 1.0 - S)
    ll = -np.log(np.clip(p_true, 1e-15, 1 - 1e-15))
    row["max|logloss_pyhard - (-log p)|"] = np.abs(out["logloss"] - ll).max()

    # 2. same (PyHard's own) probabilities through both libraries
    P = out["P_own"]
    S_own = np.where(y[:, None] == 1, P, 1.0 - P)
    row["max|IH_pyhard_own - pool_su(own)|"] = np.abs(
        out["ih_own"] - pool_hardness(y, S_own, "score-uniform")
    ).max()

    # 3. end to end: PyHard's IH vs metaeval's pool hardness from its study
    for method, short in [
        ("score-uniform", "su"),
        ("score-driven", "sd"),
        ("score-fixed", "sf"),
        ("rate-uniform", "ru"),
    ]:
        row[f"rho(IH_pyhard, pool_{short})"] = spearmanr(
            out["ih_own"], pool_hardness(y, S, method)
        )[0]
    row["pyhard_wall_s"] = float(out["wall"])
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--pyhard-python",
        default="/tmp/pyhardenv/bin/python",
        help="interpreter of the virtualenv where pyhard is installed",
    )
    parser.add_argument("--datasets", nargs="+", default=DEFAULT_DATASETS)
    parser.add_argument("--n-folds", type=int, default=5, help="PyHard's CV folds (its default 5)")
    parser.add_argument("--n-iter", type=int, default=1, help="PyHard's CV repeats (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--worker", nargs=2, metavar=("IN", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        _pyhard_worker(*args.worker, args.n_folds, args.n_iter, args.seed)
        return 0

    from metaeval.datasets import load_dataset
    from metaeval.hardness.classic import encode_features

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        scores = _metaeval_scores(args.datasets, str(tmp / "study.duckdb"), args.seed)
        print(
            f"metaeval study: {len(args.datasets)} datasets x 8 algorithms, 10 folds, "
            f"{time.perf_counter() - t0:.1f} s",
            flush=True,
        )
        version = None
        for name in args.datasets:
            y, S, algorithms = scores[name]
            ds = load_dataset(name)
            if not np.array_equal(np.asarray(ds.y), y):
                raise RuntimeError(f"{name}: the store's labels differ from the dataset's")
            # PyHard needs numeric features without missing values: metaeval's encoding
            # (median / mode imputation, min-max scaling, one-hot categories).
            Z = encode_features(ds.X, list(ds.categorical))
            path_in, path_out = tmp / f"{name}_in.npz", tmp / f"{name}_out.npz"
            np.savez(path_in, Z=Z, y=y, S=S)
            cmd = [
                args.pyhard_python,
                os.path.abspath(__file__),
                "--worker",
                str(path_in),
                str(path_out),
                "--n-folds",
                str(args.n_folds),
                "--n-iter",
                str(args.n_iter),
                "--seed",
                str(args.seed),
            ]
            env = {
                **os.environ,
                "PYTHONWARNINGS": "ignore",
                "OMP_NUM_THREADS": "1",
                "OPENBLAS_NUM_THREADS": "1",
                "MKL_NUM_THREADS": "1",
            }
            env.pop("PYTHONPATH", None)
            subprocess.run(cmd, check=True, env=env, cwd=str(tmp))
            with np.load(path_out, allow_pickle=False) as f:
                out = {k: f[k] for k in f.files}
            version = str(out["version"])
            row = _compare(name, y, S, algorithms, out)
            rows.append(row)
            print(
                json.dumps(
                    {
                        k: (float(v) if isinstance(v, (float, np.floating)) else v)
                        for k, v in row.items()
                    }
                ),
                flush=True,
            )

    table = pd.DataFrame(rows).set_index("dataset").T
    with pd.option_context("display.float_format", "{:.3g}".format, "display.width", 160):
        print(
            f"\npyhard {version}; PyHard pool {len(PYHARD_POOL)} classifiers, "
            f"n_folds={args.n_folds}, n_iter={args.n_iter}, seed={args.seed}"
        )
        print(table.to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main())
