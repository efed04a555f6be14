"""metaeval's algorithm selectors beside asf's (asf-lib 0.1.1) on the shared ASlib scenarios.

asf ("Algorithm Selection Framework", Hadar Shavit and Holger Hoos; PyPI ``asf-lib``,
version 0.1.1, MIT licence) is trained and tested on each scenario's own 10 folds of
``cv.arff`` (1 repetition), and its per-instance picks are scored with exactly metaeval's
rules (``metaeval.recommend.aslib._aslib_evaluate``): PAR10 of the first pick (runtime, or
10 x cutoff for a run at or over the cutoff or whose status is not ok); a selector that
reads features pays their cost (``feature_costs.arff``, the default feature steps) on top
of its pick's runtime, and a run that then reaches the cutoff is a timeout; gap closed
= (SBS - s) / (SBS - VBS), against the single best of each fold's training instances and
against the single best of the whole scenario chosen as LLAMA does, with the ``sbs``,
``sbs_whole`` and ``vbs`` of metaeval's own :func:`evaluate_aslib` run (checked equal to
the ones recomputed here); a percentile bootstrap 95% interval over 1,000 resamples of the
instances, drawn exactly as metaeval draws them (same seed, same instance order), so the
intervals of both libraries come from the same resamples.

asf is not a dependency of metaeval: it lives in its own virtual environment and is
imported only inside :func:`run_asf`. The scenarios are GPLv3 and are read in place; the
intermediate files go to ``--work`` (default ``/tmp/compare_asf``), never into the
repository. Three steps, each runnable alone:

1. ``export`` (metaeval's environment): each scenario read with :func:`read_aslib`
   (features of the default feature steps, NaN where missing or where a step failed;
   PAR10 for runtime scenarios, the measure for quality ones; folds; feature costs) into
   ``WORK/<scenario>.npz``.
2. ``asf`` (asf's environment): for each fold, asf's selectors are fitted on the training
   instances and predict the test instances; picks and CPU seconds into
   ``WORK/<scenario>.asf.json``. Missing features are imputed as asf does it:
   ``SelectorPipeline(preprocessor=asf.preprocessing.get_default_preprocessor())``
   (median imputation, then standard scaling, fitted on the training instances).
3. ``score`` (metaeval's environment): metaeval's :func:`evaluate_aslib` with
   ``single-best``, ``oracle``, ``pairwise``, ``regression`` and ``auto`` (cached in
   ``WORK/<scenario>.metaeval.json`` and reused only when made by the same metaeval code,
   a digest of its recommendation sources, on the same reading of the scenario), then
   the table. asf's picks carry a digest of the export they were made on, and are
   refused when the scenario now reads differently.

``all`` runs the three, the second in ``--asf-python``. Setup and run::

    python3 -m venv /tmp/asfenv
    /tmp/asfenv/bin/pip install "asf-lib[survival,aspeed]==0.1.1"
    .venv/bin/python benchmarks/compare_asf.py all --asf-python /tmp/asfenv/bin/python

or step by step::

    .venv/bin/python benchmarks/compare_asf.py export
    OMP_NUM_THREADS=1 /tmp/asfenv/bin/python benchmarks/compare_asf.py asf
    .venv/bin/python benchmarks/compare_asf.py score [--markdown FILE]

asf's selectors (scikit-learn random forests with their defaults, 100 trees,
``random_state=0`` for repeatability, one core):

- ``asf-pairwise``: ``PairwiseClassifier(RandomForestClassifier)``, SATzilla-style votes
  of one classifier per pair, weighted by the pair's performance difference (asf's
  default ``use_weights=True``);
- ``asf-pairwise-reg``: ``PairwiseRegressor(RandomForestRegressor)``, regression of each
  pair's performance difference, summed;
- ``asf-perfmodel``: ``PerformanceModel(RandomForestRegressor)``, one regression per
  algorithm on log10 of the performance (asf's default ``normalize="log"``);
- ``asf-multiclass``: ``MultiClassClassifier(RandomForestClassifier)``, the best
  algorithm as a class. Its labels are ``argmin`` of the performance whatever
  ``maximize`` says, so on a maximised quality scenario it is given the negated measure.

The selectors are given what metaeval is given: PAR10 (runtime scenarios) or the measure
(quality), features of the default steps (not asf's reader's choice, which also appends
the feature costs as features). Two asf baselines are computed in asf's environment as a
check of the references: ``asf-sbs`` (the algorithm of lowest summed performance on each
fold's training instances, as ``asf.metrics.baselines.single_best_solver`` chooses it;
highest for a maximised measure) and asf's ``virtual_best_solver`` over all instances;
for runtime scenarios asf's own ``running_time_selector_performance`` also scores each
selector's picks with the feature costs (it adds them but never turns a solved run into
a timeout, unlike metaeval, so it may be lower). metaeval's ``pairwise``, ``regression`` and
``auto`` are taken from a fresh :func:`evaluate_aslib` run (``n_jobs=1``) in step 3, not from
docs/aslib.md. LLAMA's best model and its gap closed (whole-scenario SBS, no feature
costs) are those of ``bench_aslib.LLAMA``.

CPU seconds: asf's are ``time.process_time()`` of its process over fit + predict of all
folds (the imputation included); metaeval's are its whole evaluate_aslib run for the
five strategies together (it fits them per fold in one pass), so compare them loosely.

metaeval's ASP-POTASSCO figures below predate the fix of its reader that reads a
feature two feature steps both provide once (``Choices-4`` was a duplicated column, which
asf's pipeline refused, so the asf step keeps one copy): after it, metaeval's
``pairwise`` closes 0.642 and ``regression`` 0.714 there, ``auto`` the same 0.824
(docs/aslib.md).

Measured 2026-11-28, 04:35-05:20 UTC, on a shared 2-core machine (load about 1-1.5),
asf-lib 0.1.1 with scikit-learn 1.9.1, pandas 3.1.1, numpy 2.4.6 (asf 0.1.1's
``asf.selectors`` imports scikit-survival and clingo unconditionally, so
``asf-lib[survival,aspeed]`` is what installs a working asf). Commands::

    .venv/bin/python benchmarks/compare_asf.py export
    OMP_NUM_THREADS=1 /tmp/asfenv/bin/python benchmarks/compare_asf.py asf \
        $S/CSP-2010 $S/MAXSAT12-PMS                       # all four selectors
    OMP_NUM_THREADS=1 /tmp/asfenv/bin/python benchmarks/compare_asf.py asf \
        $S/SAT11-HAND $S/OPENML-WEKA-2017 $S/ASP-POTASSCO \
        --selectors asf-pairwise,asf-perfmodel,asf-multiclass
    .venv/bin/python benchmarks/compare_asf.py score --markdown /tmp/compare_asf/table.md

(``S=/work/shared/aslib``; ``asf-pairwise-reg`` was left out on the three scenarios
with many algorithms or features for time: 185 CPU-s on MAXSAT12-PMS's 15 pairs alone.)
Gap closed with its 95% bootstrap interval; feature costs paid by every selector (asf's
and metaeval's) on SAT11-HAND, MAXSAT12-PMS and ASP-POTASSCO, none in OPENML-WEKA-2017
and CSP-2010; LLAMA's figure adds no feature costs. CPU-s: asf's fit + predict over
the 10 folds. metaeval's evaluate_aslib of its five strategies together took 35.7,
18.2, 18.5, 117.1 and 33.7 CPU-s (OPENML-WEKA, SAT11-HAND, MAXSAT12-PMS, ASP-POTASSCO,
CSP-2010)::

    scenario     selector                        gap, whole SBS       gap, training SBS  CPU-s
    OPENML-WEKA  asf-pairwise           +0.256 [-0.003, +0.481] +0.256 [-0.003, +0.481]    825
    OPENML-WEKA  asf-perfmodel          -0.041 [-0.424, +0.255] -0.041 [-0.424, +0.255]    103
    OPENML-WEKA  asf-multiclass         -0.407 [-1.701, +0.237] -0.407 [-1.701, +0.237]      2
    OPENML-WEKA  metaeval pairwise      +0.224 [-0.145, +0.468] +0.224 [-0.145, +0.468]
    OPENML-WEKA  metaeval regression    -0.069 [-0.215, +0.052] -0.069 [-0.215, +0.052]
    OPENML-WEKA  metaeval auto          -0.052 [-0.182, +0.049] -0.052 [-0.182, +0.049]
    OPENML-WEKA  LLAMA classif randomForest below the SBS (-0.24 to -0.37)
    SAT11-HAND   asf-pairwise           +0.622 [+0.492, +0.732] +0.638 [+0.510, +0.744]    201
    SAT11-HAND   asf-perfmodel          +0.603 [+0.462, +0.727] +0.620 [+0.490, +0.733]     69
    SAT11-HAND   asf-multiclass         +0.574 [+0.431, +0.698] +0.592 [+0.451, +0.710]      3
    SAT11-HAND   metaeval pairwise      +0.693 [+0.563, +0.805] +0.706 [+0.584, +0.807]
    SAT11-HAND   metaeval regression    +0.641 [+0.508, +0.752] +0.656 [+0.530, +0.764]
    SAT11-HAND   metaeval auto          +0.693 [+0.563, +0.805] +0.706 [+0.584, +0.807]
    SAT11-HAND   LLAMA classif ksvm                       0.749
    MAXSAT12-PMS asf-pairwise           +0.918 [+0.841, +0.973] +0.918 [+0.841, +0.973]     34
    MAXSAT12-PMS asf-pairwise-reg       +0.863 [+0.780, +0.938] +0.863 [+0.780, +0.938]    185
    MAXSAT12-PMS asf-perfmodel          +0.903 [+0.829, +0.964] +0.903 [+0.829, +0.964]     51
    MAXSAT12-PMS asf-multiclass         +0.651 [+0.522, +0.772] +0.651 [+0.522, +0.772]      3
    MAXSAT12-PMS metaeval pairwise      +0.944 [+0.885, +0.987] +0.944 [+0.885, +0.987]
    MAXSAT12-PMS metaeval regression    +0.918 [+0.844, +0.973] +0.918 [+0.844, +0.973]
    MAXSAT12-PMS metaeval auto          +0.945 [+0.888, +0.987] +0.945 [+0.888, +0.987]
    MAXSAT12-PMS LLAMA regr randomForest                   0.890
    ASP-POTASSCO asf-pairwise           +0.777 [+0.693, +0.847] +0.777 [+0.693, +0.847]    164
    ASP-POTASSCO asf-perfmodel          +0.693 [+0.594, +0.782] +0.693 [+0.594, +0.782]    535
    ASP-POTASSCO asf-multiclass         +0.386 [+0.230, +0.520] +0.386 [+0.230, +0.520]     10
    ASP-POTASSCO metaeval pairwise      +0.612 [+0.491, +0.727] +0.612 [+0.491, +0.727]
    ASP-POTASSCO metaeval regression    +0.701 [+0.603, +0.786] +0.701 [+0.603, +0.786]
    ASP-POTASSCO metaeval auto          +0.824 [+0.758, +0.891] +0.824 [+0.758, +0.891]
    ASP-POTASSCO LLAMA regr randomForest                   0.765
    CSP-2010     asf-pairwise           +0.629 [+0.403, +0.802] +0.629 [+0.403, +0.802]      3
    CSP-2010     asf-pairwise-reg       +0.691 [+0.505, +0.851] +0.691 [+0.505, +0.851]     41
    CSP-2010     asf-perfmodel          +0.579 [+0.336, +0.769] +0.579 [+0.336, +0.769]     56
    CSP-2010     asf-multiclass         +0.226 [-0.218, +0.512] +0.226 [-0.218, +0.512]      6
    CSP-2010     metaeval pairwise      +0.748 [+0.586, +0.885] +0.748 [+0.586, +0.885]
    CSP-2010     metaeval regression    +0.666 [+0.494, +0.827] +0.666 [+0.494, +0.827]
    CSP-2010     metaeval auto          +0.748 [+0.586, +0.885] +0.748 [+0.586, +0.885]
    CSP-2010     LLAMA classif rpart                      0.832

Checks (all printed by ``score``): the training-folds SBS, whole-scenario SBS and VBS
recomputed here equal metaeval's on all five scenarios; asf's ``virtual_best_solver``
equals metaeval's VBS; the ``asf-sbs`` picks score exactly metaeval's training-folds SBS;
metaeval's own ``pairwise`` and ``regression`` first picks rescored by this script's
rules give metaeval's figures to the last digit. asf's ``single_best_solver`` over the
whole scenario (lowest summed PAR10) is 25589.3 on SAT11-HAND, not LLAMA's 25649.1 (the
other four: equal). asf's own ``running_time_selector_performance`` gives the same mean
PAR10 as metaeval's rules, to the six digits printed, for every asf selector (no pick
reached the cutoff through its feature cost). On ASP-POTASSCO metaeval's reader
lists the feature ``Choices-4`` twice (two feature steps provide it); the asf step
keeps one copy.

Usage: compare_asf.py {export,asf,score,all} [DIR ...] [--work DIR] [--selectors a,b]
       [--asf-python PATH] [--markdown FILE] [--no-cache]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from pathlib import Path

#: asf selectors run by default, in the table's order.
SELECTORS = ("asf-pairwise", "asf-pairwise-reg", "asf-perfmodel", "asf-multiclass")
#: metaeval strategies evaluated beside them.
METAEVAL = ("single-best", "oracle", "pairwise", "regression", "auto")
SCENARIOS = ("OPENML-WEKA-2017", "SAT11-HAND", "MAXSAT12-PMS", "ASP-POTASSCO", "CSP-2010")
N_BOOT, ALPHA, SEED = 1000, 0.05, 0


def _shared():
    env = os.environ.get("METAEVAL_ASLIB_DIR")
    if env:
        return Path(env)
    for parent in Path(__file__).resolve().parents:
        path = parent / "shared" / "aslib"
        if path.is_dir():
            return path
    raise SystemExit("no scenarios: give DIR or set METAEVAL_ASLIB_DIR")


def _dirs(args):
    if args.directories:
        return [Path(d) for d in args.directories]
    root = _shared()
    return [root / n for n in SCENARIOS if (root / n / "description.txt").is_file()]


# ------------------------------------------------------------------ 1. export (metaeval)
def export(dirs, work):
    """Each scenario as metaeval reads it, into ``work/<name>.npz`` (outside the repo)."""
    import numpy as np

    from metaeval.recommend import read_aslib

    names = []
    for root in dirs:
        sc = read_aslib(root)
        kb = sc.knowledge
        costs = (np.asarray(kb.metafeature_time, dtype=np.float64)
                 if kb.metafeature_time is not None and sc.runtime and sc.feature_costs
                 else np.zeros(len(kb.datasets)))
        np.savez(work / f"{sc.name}.npz", digest=_export_digest(sc),
                 instances=np.array(kb.datasets, dtype=str),
                 algorithms=np.array(kb.algorithms, dtype=str),
                 features=kb.metafeatures.to_numpy(dtype=np.float64),
                 feature_names=np.array(kb.metafeatures.columns, dtype=str),
                 performance=sc.performance, folds=sc.cv.iloc[:, 0].to_numpy(),
                 maximize=sc.maximize, runtime=sc.runtime,
                 cutoff=np.nan if sc.cutoff is None else sc.cutoff, costs=costs)
        names.append(sc.name)
        print(f"exported {sc.name}: {sc.performance.shape}, features "
              f"{kb.metafeatures.shape[1]}", flush=True)
    return names


def _export_digest(sc):
    """SHA-256 of what the asf step is given of a scenario as metaeval reads it (the
    instances, algorithms, features, performance, folds and feature costs): the score
    step refuses asf picks made on another reading."""
    import hashlib

    import numpy as np

    kb = sc.knowledge
    h = hashlib.sha256()
    for part in (kb.datasets, kb.algorithms, list(kb.metafeatures.columns)):
        h.update("\x1f".join(map(str, part)).encode() + b"\x1e")
    for a in (kb.metafeatures.to_numpy(dtype=np.float64), sc.performance,
              sc.cv.to_numpy(dtype=np.float64), kb.metafeature_time):
        h.update(np.ascontiguousarray(np.asarray(a, dtype=np.float64)).tobytes()
                 if a is not None else b"none")
    return h.hexdigest()


def _code_digest():
    """SHA-256 of metaeval's version and of its recommendation package's source: the
    cached evaluation is reused only by the code that made it."""
    import hashlib

    import metaeval
    import metaeval.recommend

    h = hashlib.sha256(str(metaeval.__version__).encode())
    for file in sorted(Path(metaeval.recommend.__file__).parent.glob("*.py")):
        h.update(file.name.encode() + file.read_bytes())
    return h.hexdigest()


# ------------------------------------------------------------------------ 2. asf (asf)
def _selector(name, maximize):
    from functools import partial

    from asf.predictors import SklearnWrapper
    from asf.selectors import (
        MultiClassClassifier,
        PairwiseClassifier,
        PairwiseRegressor,
        PerformanceModel,
    )
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

    clf = partial(SklearnWrapper, RandomForestClassifier, {"random_state": 0})
    reg = partial(SklearnWrapper, RandomForestRegressor, {"random_state": 0})
    if name == "asf-pairwise":
        return PairwiseClassifier(model_class=clf, maximize=maximize)
    if name == "asf-pairwise-reg":
        return PairwiseRegressor(model_class=reg, maximize=maximize)
    if name == "asf-perfmodel":
        return PerformanceModel(model_class=reg, maximize=maximize)
    if name == "asf-multiclass":
        return MultiClassClassifier(model_class=clf, maximize=maximize)
    raise SystemExit(f"unknown asf selector {name!r} (known: {', '.join(SELECTORS)})")


def run_asf(names, work, selectors):
    """Fit asf's selectors fold by fold; picks and CPU seconds to ``<name>.asf.json``."""
    import importlib.metadata

    import numpy as np
    import pandas as pd
    from asf.metrics.baselines import (
        running_time_selector_performance,
        single_best_solver,
        virtual_best_solver,
    )
    from asf.preprocessing import get_default_preprocessor
    from asf.selectors import SelectorPipeline

    version = importlib.metadata.version("asf-lib")
    for name in names:
        z = np.load(work / f"{name}.npz")
        inst = [str(i) for i in z["instances"]]  # plain str: sklearn's column
        algos = [str(a) for a in z["algorithms"]]  # checks refuse numpy's str_
        maximize, runtime = bool(z["maximize"]), bool(z["runtime"])
        cutoff = float(z["cutoff"])
        X = pd.DataFrame(z["features"], index=inst, columns=[str(c) for c in z["feature_names"]])
        X = X.loc[:, ~X.columns.duplicated()]  # a feature two steps provide, read twice
        Y = pd.DataFrame(z["performance"], index=inst, columns=algos)
        folds = z["folds"]
        costs = pd.DataFrame({"cost": z["costs"]}, index=inst)
        out = {"scenario": name, "asf_version": version, "selectors": {}}
        # asf's baselines on the same data, to check the references
        out["asf_vbs_mean"] = float(virtual_best_solver(Y, maximize)) / len(inst)
        out["asf_sbs_whole_mean"] = float(single_best_solver(Y, maximize)) / len(inst)
        picks = {}
        for f in np.unique(folds):
            train = folds != f
            agg = Y[train].sum(axis=0)
            best = agg.idxmax() if maximize else agg.idxmin()
            picks.update({i: str(best) for i, t in zip(inst, train, strict=True) if not t})
        out["selectors"]["asf-sbs"] = {"picks": picks, "cpu_s": 0.0}
        for sel in selectors:
            picks, cpu, errors = {}, 0.0, []
            for f in np.unique(folds):
                train, test = folds != f, folds == f
                Ytr = Y[train]
                if sel == "asf-multiclass" and maximize:
                    Ytr = -Ytr  # its labels are argmin whatever maximize says
                start = time.process_time()
                try:
                    pipe = SelectorPipeline(
                        selector=_selector(sel, maximize and sel != "asf-multiclass"),
                        preprocessor=get_default_preprocessor(), maximize=maximize)
                    pipe.fit(X[train], Ytr)
                    pred = pipe.predict(X[test])
                except Exception as exc:  # recorded, reported
                    errors.append(f"fold {int(f)}: {type(exc).__name__}: {exc}")
                    pred = {}
                cpu += time.process_time() - start
                picks.update({str(i): str(s[0][0]) for i, s in pred.items()
                              if i != "pre_solver_schedule"})
            entry = {"picks": picks, "cpu_s": cpu, "errors": errors}
            if runtime and len(picks) == len(inst):
                sched = {i: [(a, cutoff)] for i, a in picks.items()}
                entry["asf_par10_costs_mean"] = float(running_time_selector_performance(
                    sched, Y, cutoff, 10, costs)) / len(inst)
                entry["asf_par10_mean"] = float(running_time_selector_performance(
                    sched, Y, cutoff, 10, None)) / len(inst)
            out["selectors"][sel] = entry
            print(f"{name} {sel}: {cpu:.1f} CPU-s{'; ERRORS ' + str(errors) if errors else ''}",
                  flush=True)
        out["export_digest"] = str(z["digest"])
        (work / f"{name}.asf.json").write_text(json.dumps(out))


# --------------------------------------------------------------------- 3. score (metaeval)
def _metaeval(root, work, cache):
    """metaeval's evaluation (cached): its summary, references and instance order."""
    import numpy as np

    from metaeval.recommend import evaluate_aslib, read_aslib

    sc = read_aslib(root)
    file = work / f"{sc.name}.metaeval.json"
    key = {"code": _code_digest(), "export": _export_digest(sc), "n_boot": N_BOOT,
           "alpha": ALPHA, "seed": SEED}
    if cache and file.is_file():
        doc = json.loads(file.read_text())
        if doc.get("key") == key:  # made by this code on this reading of the scenario
            return sc, doc
    start = time.process_time()
    ev = evaluate_aslib(sc, list(METAEVAL), n_jobs=1, n_boot=N_BOOT, alpha=ALPHA, seed=SEED)
    cpu = time.process_time() - start
    rows = ev.summary[["strategy", "performance", "gap_closed", "gap_closed_low",
                       "gap_closed_high", "gap_closed_whole_sbs", "gap_closed_whole_sbs_low",
                       "gap_closed_whole_sbs_high", "feature_cost"]]
    per = ev.per_instance
    first = per[per["strategy"] == "pairwise"]
    step1 = ev.curves[ev.curves["step"] == 1]
    picks = {name: dict(zip(step1.loc[step1["strategy"] == name, "dataset"],
                            step1.loc[step1["strategy"] == name, "algorithm"], strict=True))
             for name in ("pairwise", "regression")}
    doc = {"summary": json.loads(rows.to_json(orient="records")),
           "sbs": ev.sbs, "sbs_whole": ev.sbs_whole, "vbs": ev.vbs,
           "sbs_whole_algorithm": ev.sbs_whole_algorithm,
           "feature_costs": bool(ev.feature_costs), "cpu_s": cpu,
           "order": list(dict.fromkeys(per["dataset"])),
           "pairwise_cost_mean": float(np.mean(first["feature_cost"])),
           "picks": picks, "key": key}
    file.write_text(json.dumps(doc))
    return sc, doc


def _references(sc):
    """Per-instance success of the training-fold SBS, whole SBS and VBS, as metaeval."""
    import numpy as np

    kb = sc.knowledge
    fold = sc.cv.iloc[:, 0].to_numpy()
    sb = np.empty(len(kb.datasets))
    for f in np.unique(fold):
        j = int(np.argsort(-kb.success[fold != f].mean(axis=0), kind="stable")[0])
        sb[fold == f] = kb.success[fold == f, j]
    if sc.runtime:
        score = -np.where(sc.solved, sc.performance, sc.cutoff).mean(axis=0)
    else:
        score = kb.success.mean(axis=0)
    whole = int(np.argsort(-score, kind="stable")[0])
    return sb, kb.success[:, whole], kb.success.max(axis=1)


def _success(sc, picks, pay):
    """Success of each instance's pick (metaeval's orientation), feature costs if pay."""
    import numpy as np

    kb = sc.knowledge
    col = {a: j for j, a in enumerate(kb.algorithms)}
    j = np.array([col[picks[d]] for d in kb.datasets])
    i = np.arange(len(j))
    perf = sc.performance[i, j]
    cost = np.zeros(len(j))
    if pay:
        cost = np.asarray(kb.metafeature_time, dtype=np.float64)
        solved = sc.solved[i, j]
        runtime = perf + cost
        timeout = solved & (cost > 0) & (runtime >= sc.cutoff)
        perf = np.where(solved, np.where(timeout, 10.0 * sc.cutoff, runtime), perf)
    return sc.sign * perf + sc.shift, cost


def _gaps(s, sb, oracle, boot):
    import numpy as np

    def gap(a, b, c):
        with np.errstate(invalid="ignore", divide="ignore"):
            g = (np.asarray(a) - b) / (c - b)
        return np.where(np.isclose(c - b, 0.0), np.nan, g)

    point = float(gap(s.mean(), sb.mean(), oracle.mean()))
    draws = gap(s[boot].mean(axis=1), sb[boot].mean(axis=1), oracle[boot].mean(axis=1))
    draws = draws[np.isfinite(draws)]
    q = (100 * ALPHA / 2, 100 * (1 - ALPHA / 2))
    low, high = np.percentile(draws, q) if draws.size else (np.nan, np.nan)
    return point, float(low), float(high)


def score(dirs, work, cache):
    """The table: asf's selectors scored by metaeval's rules, beside metaeval and LLAMA."""
    import numpy as np

    results = []
    for root in dirs:
        sc, me = _metaeval(root, work, cache)
        asf = json.loads((work / f"{sc.name}.asf.json").read_text())
        if asf.get("export_digest") != me["key"]["export"]:
            raise SystemExit(f"{sc.name}: asf's picks were made on another reading of the "
                             "scenario (or by an older script): run the export and asf "
                             "steps again.")
        kb = sc.knowledge
        pay = sc.runtime and sc.feature_costs
        sb, whole, oracle = _references(sc)
        to = sc.to_performance
        checks = {
            "sbs": (float(to(sb).mean()), me["sbs"]),
            "sbs_whole": (float(to(whole).mean()), me["sbs_whole"]),
            "vbs": (float(to(oracle).mean()), me["vbs"]),
            "asf vbs": (asf["asf_vbs_mean"], me["vbs"]),
        }
        for name, picks in me.get("picks", {}).items():  # metaeval's picks, scored here
            s, _ = _success(sc, picks, pay)
            theirs = next(m["performance"] for m in me["summary"] if m["strategy"] == name)
            checks[f"metaeval {name} rescored"] = (float(to(s).mean()), theirs)
        order = np.array([kb.datasets.index(d) for d in me["order"]])
        n = len(order)
        boot = np.random.default_rng(SEED).integers(0, n, size=(N_BOOT, n))
        sb_o, whole_o, oracle_o = sb[order], whole[order], oracle[order]
        rows = []
        for sel, entry in asf["selectors"].items():
            if len(entry["picks"]) != n:
                rows.append({"selector": sel, "error": "; ".join(entry.get("errors", []))})
                continue
            reads = sel != "asf-sbs"
            r = {"selector": sel, "cpu_s": entry["cpu_s"], "costs": pay and reads}
            for label, p in (("", pay and reads), ("_nocost", False)):
                s, cost = _success(sc, entry["picks"], p)
                s = s[order]
                r[f"performance{label}"] = float(to(s).mean())
                r[f"gap{label}"] = _gaps(s, sb_o, oracle_o, boot)
                r[f"gap_whole{label}"] = _gaps(s, whole_o, oracle_o, boot)
                if label == "":
                    r["feature_cost"] = float(cost.mean())
            if "asf_par10_costs_mean" in entry:
                r["asf_own_par10"] = entry["asf_par10_costs_mean"] if pay else \
                    entry["asf_par10_mean"]
            if sel == "asf-sbs":
                checks["asf-sbs (training folds)"] = (r["performance_nocost"], me["sbs"])
            rows.append(r)
        results.append((sc, me, asf, rows, checks))
        _print(sc, me, asf, rows, checks)
    return results


def _f(v):
    return "-" if v is None or v != v else f"{v:+.3f}"


def _iv(t):
    return f"{_f(t[0])} [{_f(t[1])}, {_f(t[2])}]"


def _llama(name):
    """The best LLAMA model of a scenario and its gap closed, as ``bench_aslib.LLAMA``
    holds them (a sibling script; metaeval's environment)."""
    from bench_aslib import LLAMA

    return LLAMA.get(name, ("-", "-", None))[:2]


def _me(m, key):
    return _iv((m[key], m[f"{key}_low"], m[f"{key}_high"]))


def _print(sc, me, asf, rows, checks):
    llama = _llama(sc.name)
    print(f"\n{sc!r}; asf-lib {asf['asf_version']}")
    print(f"SBS (training folds) {me['sbs']:.6g}; SBS (whole, {me['sbs_whole_algorithm']}) "
          f"{me['sbs_whole']:.6g}; VBS {me['vbs']:.6g}; feature costs "
          f"{'paid by the selectors reading features' if me['feature_costs'] else 'none'}; "
          f"LLAMA's best {llama[0]}: {llama[1]}")
    for k, (mine, theirs) in checks.items():
        print(f"  check {k}: {mine:.6g} vs metaeval {theirs:.6g} "
              f"({'equal' if abs(mine - theirs) <= 1e-9 * max(1, abs(theirs)) else 'DIFFERENT'})")
    print(f"  asf's single_best_solver over the whole scenario (lowest summed measure): "
          f"{asf['asf_sbs_whole_mean']:.6g}")
    print(f"{'selector':18s} {'first pick':>11s} {'gap (train SBS)':>25s} "
          f"{'gap (whole SBS)':>25s} {'whole SBS, no costs':>25s} {'CPU-s':>7s} "
          f"{'asf own':>9s}")
    for r in rows:
        if "error" in r:
            print(f"{r['selector']:18s} FAILED: {r['error']}")
            continue
        own = r.get("asf_own_par10")
        print(f"{r['selector']:18s} {r['performance']:11.6g} {_iv(r['gap'])} "
              f"{_iv(r['gap_whole'])} {_iv(r['gap_whole_nocost'])} {r['cpu_s']:7.1f} "
              f"{'-' if own is None else f'{own:9.6g}'}")
    for m in me["summary"]:
        if m["strategy"] in ("pairwise", "regression", "auto", "single-best", "oracle"):
            print(f"{'metaeval ' + m['strategy']:18s} {m['performance']:11.6g} "
                  f"{_me(m, 'gap_closed')} {_me(m, 'gap_closed_whole_sbs')}")
    print(f"metaeval evaluate_aslib (5 strategies, n_jobs=1): {me['cpu_s']:.1f} CPU-s",
          flush=True)


def _markdown(results):
    lines = ["| scenario | selector | feature costs | first pick | gap closed (training "
             "SBS) | gap closed (whole SBS) | gap closed (whole SBS, no costs) | CPU-s |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    for sc, me, _asf, rows, _checks in results:
        for r in rows:
            if "error" in r:
                lines.append(f"| {sc.name} | {r['selector']} | - | failed: {r['error']} "
                             "| | | | |")
                continue
            lines.append(f"| {sc.name} | {r['selector']} | {'paid' if r['costs'] else 'none'}"
                         f" | {r['performance']:.6g} | {_iv(r['gap'])} | "
                         f"{_iv(r['gap_whole'])} | {_iv(r['gap_whole_nocost'])} | "
                         f"{r['cpu_s']:.0f} |")
        for m in me["summary"]:
            if m["strategy"] in ("pairwise", "regression", "auto"):
                lines.append(
                    f"| {sc.name} | metaeval {m['strategy']} | "
                    f"{'paid' if me['feature_costs'] else 'none'} | {m['performance']:.6g} | "
                    f"{_me(m, 'gap_closed')} | {_me(m, 'gap_closed_whole_sbs')} | | |")
        llama = _llama(sc.name)
        lines.append(f"| {sc.name} | LLAMA best ({llama[0]}) | none | | | {llama[1]} | | |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("export", "asf", "score", "all"))
    parser.add_argument("directories", nargs="*", type=Path)
    parser.add_argument("--work", type=Path, default=Path("/tmp/compare_asf"))
    parser.add_argument("--selectors", default=",".join(SELECTORS))
    parser.add_argument("--asf-python", default="/tmp/asfenv/bin/python")
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--no-cache", action="store_true",
                        help="rerun metaeval's evaluation even if cached in --work")
    args = parser.parse_args(argv)
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    if Path(__file__).resolve().parents[1] in work.resolve().parents:
        raise SystemExit("--work must be outside the repository (the scenarios are GPLv3)")
    dirs = _dirs(args)
    if args.step in ("export", "all"):
        export(dirs, work)
    if args.step == "asf":
        names = [d.name for d in dirs] if args.directories else [
            n for n in SCENARIOS if (work / f"{n}.npz").is_file()]
        run_asf(names, work, args.selectors.split(","))
    if args.step == "all":
        command = [args.asf_python, __file__, "asf", *map(str, args.directories),
                   "--work", str(work), "--selectors", args.selectors]
        subprocess.run(command, check=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    if args.step in ("score", "all"):
        results = score(dirs, work, not args.no_cache)
        if args.markdown:
            args.markdown.write_text(_markdown(results))
            print(f"\nMarkdown written to {args.markdown}")


if __name__ == "__main__":
    main()
