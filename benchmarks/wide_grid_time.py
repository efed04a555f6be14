"""How long does the full suite x the wide pool take? Measure a sample, extrapolate.

Two steps:

``python benchmarks/wide_grid_time.py run --store S --budget 1800``
    Runs every configuration of the wide pool (5-fold CV, ``--jobs`` workers) on a sample
    of the built-in datasets that spans the suite's sizes, smallest first, one dataset
    at a time, until the wall-clock budget is spent (the study is resumable: the same
    command continues it). ``--subsample NAME:ROWS`` adds a stratified subsample of a
    large dataset, so that the sample reaches the suite's large sizes.

``python benchmarks/wide_grid_time.py estimate --store S [--reference R]``
    Reads each task's CPU seconds from the store and fits, per family f, the model

        t_f(d) = alpha_f + beta_f * w_f(n_d, p_d)

    where t_f(d) is the mean CPU seconds of one configuration of the family (one 5-fold
    CV) on dataset d, alpha_f the fixed cost of a task (pipeline, folds, scoring),
    n_d the rows, p_d the encoded features (numeric columns plus one column per
    category) and w_f the family's work: n p for linear models, trees, boosting, naive
    Bayes and MLPs; n^2 p for RBF SVMs and kNN (kernel evaluations, test x train
    distances); n p^2 for LDA/QDA. alpha, beta >= 0 by least squares. The suite's CPU is
    the sum over its datasets and families of t_f(d) times the family's configurations;
    wall with 2 workers on 2 cores ~= CPU / 2. The interval is a bootstrap over the
    sampled datasets (refit on resampled datasets, 1,000 times, 5th-95th percentiles); a
    power law log t = a + b log n + c log p is printed as a sensitivity check, and
    ``--reference`` compares the model's growth to the largest datasets with the growth
    measured for the default algorithms in a store of the whole suite. Failed and
    timed-out tasks count with the CPU they used.

``python benchmarks/wide_grid_time.py estimate-kb --store S [--every 4]``
    The knowledge-base study: the wide pool, 5 folds, ``--repetitions`` (2) on the
    ``kb`` suite. One repetition of its 51 ``full`` datasets costs what the first wide
    study measured here (3,114 CPU-s). For each other dataset, a sample run here
    (``run --every 4 --datasets ...``: every 4th configuration of each family) gives the
    estimate sum_f (configurations of f) x (mean CPU of f's sampled members), corrected
    by how that estimate compares with the whole grid on the 51 datasets where the
    shipped knowledge base holds every cell (median ratio; the 90% interval draws each
    new dataset's ratio from those 51). A model of cost by size fitted on the knowledge
    base's cells (the work model above, or a power law) was tried first and predicted
    its own datasets left out one at a time badly (magic 0.3x, coil2000 2x), so the
    new datasets are measured, not extrapolated.

CPU seconds, not wall: on a shared machine the wall clock of a task depends on the
other users, its CPU time much less so (caches and memory bandwidth still are shared,
so the figure is, if anything, pessimistic).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pandas as pd

SAMPLE = ("labor", "hepatitis", "sonar", "breast-cancer", "vote", "musk1", "diabetes",
          "credit-g", "kc1", "spambase")


def _subsample(spec: str):
    from sklearn.model_selection import train_test_split

    from metaeval.datasets import Dataset, load_dataset

    name, _, rows = spec.partition(":")
    ds = load_dataset(name)
    keep, _ = train_test_split(np.arange(ds.n_instances), train_size=int(rows), random_state=0,
                               stratify=ds.y)
    keep = np.sort(keep)
    return Dataset(f"{name}-{rows}", ds.X.iloc[keep].reset_index(drop=True), ds.y[keep],
                   categorical=ds.categorical, family=ds.family,
                   sha256=f"subsample-{rows}-of-{ds.sha256}", source=f"{rows} rows of {name}",
                   class_names=ds.class_names)


def _every(k: int) -> list[str]:
    """Every k-th configuration of each family (all when k = 1), from the middle of its grid
    (so that a family smaller than k is represented by a middle configuration, not its
    cheapest or dearest corner)."""
    from metaeval.algorithms import WIDE_FAMILIES, family_of, list_algorithms

    names = list_algorithms("wide")
    out = []
    for f in WIDE_FAMILIES:
        members = [n for n in names if family_of(n) == f]
        out += members[min(k, len(members)) // 2::k] if k > 1 else members
    return out


def run(args) -> int:
    from metaeval.study import LocalExecutor, Study, run_study

    start = time.monotonic()
    from metaeval.datasets import list_datasets, load_dataset

    datasets = list(args.datasets.split(",")) if args.datasets else list(SAMPLE)
    # a study names only the full suite's datasets; the kb suite's others go in as data
    full = set(list_datasets("full"))
    datasets = [d if d in full else load_dataset(d) for d in datasets]
    datasets += [_subsample(s) for s in args.subsample]
    algorithms = _every(args.every)
    for ds in datasets:
        left = args.budget - (time.monotonic() - start)
        if left <= 0:
            print("budget spent; run the same command again to continue", flush=True)
            return 0
        study = Study(datasets=[ds], algorithms=algorithms, folds=5, timeout=args.timeout,
                      executor=LocalExecutor(jobs=args.jobs), store=args.store)
        t0 = time.monotonic()
        summary = run_study(study)
        name = ds if isinstance(ds, str) else ds.name
        print(f"{name}: {summary.n_done} done, {summary.n_failed} failed, "
              f"{time.monotonic() - t0:.0f} s wall", flush=True)
    return 0


def _encoded_features(ds) -> int:
    p = len(ds.X.columns) - len(ds.categorical)
    for c in ds.categorical:
        p += ds.X[c].nunique(dropna=False)
    return p


def _sizes(names) -> pd.DataFrame:
    from metaeval.datasets import list_datasets, load_dataset

    rows = []
    for name in names:
        if name in _sizes.cache:
            rows.append(_sizes.cache[name])
            continue
        base, _, sub = name.rpartition("-")
        if sub.isdigit() and base and name not in list_datasets("kb"):  # a subsample
            ds = load_dataset(base)
            n, p = int(sub), _encoded_features(ds)
        else:
            ds = load_dataset(name)
            n, p = ds.n_instances, _encoded_features(ds)
        _sizes.cache[name] = (name, n, p)
        rows.append(_sizes.cache[name])
    return pd.DataFrame(rows, columns=["dataset", "n", "p"]).set_index("dataset")


_sizes.cache = {}


KERNEL = ("svm_rbf", "knn")  # cost ~ n^2 p: kernel evaluations, test x train distances
COVARIANCE = ("lda", "qda")   # cost ~ n p^2: covariance matrices


def work(family: str, n, p):
    """The work proxy of the model: n p, n^2 p or n p^2 by family, in units of 1e6."""
    n, p = np.asarray(n, dtype=float), np.asarray(p, dtype=float)
    if family in KERNEL:
        return n * n * p / 1e6
    if family in COVARIANCE:
        return n * p * p / 1e6
    return n * p / 1e6


def _fit(frame: pd.DataFrame, family: str) -> np.ndarray:
    """(alpha, beta) >= 0 of t = alpha + beta * work, least squares on the sample."""
    from scipy.optimize import nnls

    A = np.column_stack([np.ones(len(frame)), work(family, frame["n"], frame["p"])])
    coef, _ = nnls(A, frame["t"].to_numpy(dtype=float))
    return coef


def _fit_power(frame: pd.DataFrame) -> np.ndarray:
    """Sensitivity model: log t = a + b log n + c log p."""
    A = np.column_stack([np.ones(len(frame)), np.log(frame["n"]), np.log(frame["p"])])
    coef, *_ = np.linalg.lstsq(A, np.log(frame["t"]), rcond=None)
    return coef


#: The default algorithm (Melo & Prudêncio 2014) whose measured cost across the suite a
#: family's cost is assumed to follow (the same estimator where there is one).
PROFILE = {"knn": "5NN", "dt": "DT", "gnb": "NB", "lr": "LR", "rf": "RF", "svm_lin": "SVM_LIN",
           "svm_rbf": "SVM_RBF", "et": "RF", "ada": "DT", "hgb": "DT", "mlp": "LR",
           "sgd": "LR", "ridge": "LR", "bnb": "NB", "lda": "LR", "qda": "LR"}


def _profile_total(per, ref, fams, size_of, datasets) -> tuple[float, dict]:
    """Model 1: t_f(d) = alpha_f + beta_f * C_g(d), C_g the reference CPU of PROFILE[f]."""
    from scipy.optimize import nnls

    out = {}
    for f in fams:
        C = ref.get(PROFILE[f])
        sub = per[(per["family"] == f) & per["dataset"].isin(C.index)]
        if sub["dataset"].nunique() < 2:
            return np.nan, {}
        A = np.column_stack([np.ones(len(sub)), C.loc[sub["dataset"]].to_numpy()])
        (a, b), _ = nnls(A, sub["t"].to_numpy(dtype=float))
        out[f] = float(np.sum(a + b * C.reindex(datasets).to_numpy())) * size_of[f]
    return sum(out.values()), out


def estimate(args) -> int:
    from metaeval.algorithms import WIDE_FAMILIES, family_of
    from metaeval.datasets import list_datasets
    from metaeval.store import Store

    tasks = Store(args.store).tasks()
    tasks["family"] = tasks["algorithm"].map(family_of)
    tasks["cpu"] = tasks["cpu"].fillna(0.0)
    # t: mean CPU seconds of one configuration (one 5-fold CV) of the family on the dataset
    per = tasks.groupby(["family", "dataset"])["cpu"].agg(["mean", "size"]).reset_index()
    per = per.rename(columns={"mean": "t", "size": "configs_run"})
    sampled = sorted(per["dataset"].unique())
    sizes = _sizes(sampled)
    per = per.join(sizes, on="dataset")
    suite = _sizes(list_datasets("full"))
    fams = sorted(per["family"].unique())
    size_of = {f: len(WIDE_FAMILIES[f].configs()) for f in fams}
    rng = np.random.default_rng(0)

    def _work_total(frame, power=False) -> tuple[float, dict]:
        out = {}
        for f in fams:
            sub = frame[frame["family"] == f]
            if sub["dataset"].nunique() < 2:
                return np.nan, {}
            if power:
                c = _fit_power(sub)
                t = np.exp(c[0] + c[1] * np.log(suite["n"]) + c[2] * np.log(suite["p"]))
            else:
                a, b = _fit(sub, f)
                t = a + b * work(f, suite["n"], suite["p"])
            out[f] = float(np.sum(t)) * size_of[f]
        return sum(out.values()), out

    ref = None
    if args.reference:
        r = Store(args.reference).tasks()
        r = r[r["status"] == "done"]
        ref = {g: r[r["algorithm"] == g].groupby("dataset")["cpu"].mean()
               for g in set(PROFILE.values())}
        missing = [d for d in suite.index if any(d not in v.index for v in ref.values())]
        if missing:
            raise SystemExit(f"the reference store lacks {missing[:5]}...: finish it first")

        def total(frame, power=False):  # noqa: F811 - model 1 replaces the work model
            return (_work_total(frame, power) if power
                    else _profile_total(frame, ref, fams, size_of, list(suite.index)))
    else:
        def total(frame, power=False):  # noqa: F811
            return _work_total(frame, power)

    point, by_family = total(per)
    work_point, _ = _work_total(per)
    power_point, _ = _work_total(per, power=True)
    boots = []
    for _ in range(args.bootstrap):
        pick = rng.choice(sampled, size=len(sampled), replace=True)
        frame = pd.concat([per[per["dataset"] == d] for d in pick], ignore_index=True)
        value, _ = total(frame)
        if np.isfinite(value):
            boots.append(value)
    lo, hi = np.percentile(boots, [5, 95]) if boots else (np.nan, np.nan)
    print(f"sampled datasets ({len(sampled)}): " + ", ".join(
        f"{d} (n={sizes.at[d, 'n']}, p={sizes.at[d, 'p']}, "
        f"{int(tasks[tasks['dataset'] == d].shape[0])} tasks)" for d in sampled))
    print(f"tasks: {len(tasks)} ({(tasks['status'] == 'failed').sum()} failed), measured CPU "
          f"{tasks['cpu'].sum():.0f} s")
    model = (f"cost profile of the default algorithms in {args.reference}" if ref is not None
             else "fixed cost + work (n p, n^2 p, n p^2)")
    print(f"model: {model}")
    print("family   configs  profile  suite CPU s")
    for f in fams:
        print(f"{f:8s} {size_of[f]:7d}  {PROFILE[f] if ref is not None else '-':7s} "
              f"{by_family.get(f, np.nan):11.0f}")
    cores = args.cores
    h = lambda x: x / cores / 3600  # noqa: E731
    print(f"full suite ({len(suite)} datasets) x wide pool ({sum(size_of.values())} "
          f"configurations), 5-fold: CPU {point:.0f} s (90% bootstrap over the sampled "
          f"datasets {lo:.0f}-{hi:.0f}); other models: work {work_point:.0f} s, power law "
          f"{power_point:.0f} s")
    print(f"wall with --jobs {cores} on {cores} dedicated cores ~ CPU / {cores}: "
          f"{h(point):.2f} h ({h(lo):.2f}-{h(hi):.2f} h); work model {h(work_point):.2f} h, "
          f"power law {h(power_point):.2f} h")
    if args.reference:
        _check_scaling(args.reference, per, suite)
    return 0


def _check_scaling(reference, per, suite) -> None:
    """Compare the work model's growth from a sampled dataset to the suite's largest with
    the growth measured in a store of the 8 default algorithms on the whole suite."""
    from metaeval.store import Store

    ref = Store(reference).tasks()
    ref = ref[ref["status"] == "done"]
    common = [d for d in per["dataset"].unique() if d in set(ref["dataset"])]
    if not common:
        print("reference: no sampled dataset in the reference store")
        return
    base = max(common, key=lambda d: suite.at[d, "n"] if d in suite.index else 0)
    big = [d for d in ("letter", "magic", "coil2000", "satimage") if d in set(ref["dataset"])]
    print(f"scaling check against {reference} (default algorithms, 10-fold): growth from "
          f"{base} to the largest datasets, measured / model")
    for f in ("knn", "dt", "gnb", "lr", "rf", "svm_lin", "svm_rbf"):  # same estimators
        g = PROFILE[f]
        r = ref[ref["algorithm"] == g].set_index("dataset")["cpu"]
        sub = per[per["family"] == f]
        if base not in r.index or sub.empty:
            continue
        a, b = _fit(sub, f)
        t = {d: a + b * work(f, suite.at[d, "n"], suite.at[d, "p"]) for d in [base, *big]}
        cells = [f"{d} {r[d] / r[base]:.1f}x / {t[d] / t[base]:.1f}x" for d in big
                 if d in r.index]
        print(f"  {f:8s} ({g}): " + ", ".join(cells))


#: CPU seconds of the wide pool on the 51 ``full`` datasets measured on this project's
#: 2-core machine (README, "Hundreds of algorithms"); the shipped knowledge base holds the
#: same study's cells as measured on the machine it was built on.
FULL_STUDY_HERE = 3114.0


def _grid_estimate(cpu: pd.DataFrame, configs) -> pd.Series:
    """Per dataset (row of ``cpu``): sum over families of (configurations in the family)
    x (mean CPU of its sampled members), the sampled members being ``configs``."""
    from metaeval.algorithms import WIDE_FAMILIES, family_of, list_algorithms

    pool = list_algorithms("wide")
    out = pd.Series(0.0, index=cpu.index)
    for f in WIDE_FAMILIES:
        members = [c for c in pool if family_of(c) == f]
        sampled = [c for c in configs if family_of(c) == f and c in cpu.columns]
        if not sampled:
            raise SystemExit(f"the sample has no configuration of family {f!r}")
        out += len(members) * cpu[sampled].mean(axis=1)
    return out


def estimate_kb(args) -> int:
    from metaeval.datasets import list_datasets
    from metaeval.recommend import load_knowledge
    from metaeval.store import Store

    kb = load_knowledge()
    # failed cells (35 QDA fits) count as 0 s, as a failed task's unrecorded CPU would
    truth = pd.DataFrame(kb.times["cpu"], index=list(kb.datasets),
                         columns=list(kb.algorithms)).fillna(0.0)
    configs = _every(args.every)
    # how well the sampled members stand for the whole grid, on the 51 datasets where
    # the whole grid was run: whole / sampled-member estimate, one ratio per dataset
    ratio = truth.sum(axis=1) / _grid_estimate(truth, configs)
    suite = list_datasets("kb")
    new = [d for d in suite if d not in set(kb.datasets)]
    tasks = Store(args.store).tasks()
    tasks["cpu"] = tasks["cpu"].fillna(0.0)
    here = tasks.groupby(["dataset", "algorithm"])["cpu"].mean().unstack()
    missing = [d for d in new if d not in here.index]
    if missing:
        raise SystemExit(f"the sample lacks {missing}: run them first (run --every "
                         f"{args.every} --datasets ...)")
    lacking = sorted(set(configs) - set(here.columns))
    if lacking:
        raise SystemExit(f"the sample lacks configurations of --every {args.every}: "
                         f"{lacking[:3]}...")
    sampled_here = _grid_estimate(here.loc[new, configs], configs)
    point_new = float((sampled_here * ratio.median()).sum())
    rng = np.random.default_rng(0)
    draws = rng.choice(ratio.to_numpy(), size=(args.bootstrap, len(new)), replace=True)
    totals = args.repetitions * (FULL_STUDY_HERE + draws @ sampled_here.to_numpy())
    point = args.repetitions * (FULL_STUDY_HERE + point_new)
    lo, hi = np.percentile(totals, [5, 95])
    n_tasks = len(suite) * len(list(truth.columns)) * args.repetitions
    print(f"kb suite: {len(suite)} datasets ({len(new)} beyond full) x wide pool "
          f"({truth.shape[1]} configurations) x {args.repetitions} repetitions of 5-fold CV "
          f"= {n_tasks} tasks")
    print(f"sample run here ({args.store}): every {args.every}th configuration of each "
          f"family ({len(configs)}) on the {len(new)} new datasets, "
          f"{here.loc[new, configs].to_numpy().sum():.0f} CPU-s, "
          f"{int((tasks['status'] == 'failed').sum())} failed task(s)")
    print(f"whole grid / sampled-member estimate on the knowledge base's 51 datasets: median "
          f"{ratio.median():.3f}, 5th-95th percentile {ratio.quantile(0.05):.3f}-"
          f"{ratio.quantile(0.95):.3f}")
    old = [d for d in here.index if d in truth.index]
    if old:
        sub = here.loc[old, configs].to_numpy()
        print(f"this machine / the knowledge base's machine on {len(old)} shared dataset(s): "
              f"{np.nansum(sub) / truth.loc[old, configs].to_numpy().sum():.3f}")
    print("new dataset                     rows  feats  sampled CPU-s  grid CPU-s (1 rep.)")
    for d in sampled_here.sort_values(ascending=False).index:
        n, p = _sizes([d]).loc[d]
        print(f"  {d:30s} {n:6d} {p:5d} {here.loc[d, configs].sum():13.1f} "
              f"{sampled_here[d] * ratio.median():11.0f}")
    failed = tasks[tasks["status"] == "failed"]
    for (d, a), err in failed.set_index(["dataset", "algorithm"])["error"].items():
        print(f"  failed: {d} {a}: {str(err).splitlines()[0][:110]}")
    h = lambda x: x / args.cores / 3600  # noqa: E731
    print(f"one repetition: the 51 full datasets {FULL_STUDY_HERE:.0f} s (measured) + the "
          f"{len(new)} new {point_new:.0f} s (estimated)")
    print(f"kb study, {args.repetitions} repetitions, on this machine: CPU {point:.0f} s "
          f"(90% interval {lo:.0f}-{hi:.0f}, drawing each new dataset's ratio from the 51); "
          f"wall with --jobs {args.cores} on {args.cores} dedicated cores ~ {h(point):.2f} h "
          f"({h(lo):.2f}-{h(hi):.2f} h)")
    # the first repetition of the 51 is the wide study already run: extending its store
    # runs the second repetition there and both on the new datasets
    reuse = FULL_STUDY_HERE + args.repetitions * point_new
    r_lo, r_hi = (FULL_STUDY_HERE + (x - args.repetitions * FULL_STUDY_HERE)
                  for x in (lo, hi))
    print(f"extending the first wide study's store instead (its repetition 0 reused): CPU "
          f"{reuse:.0f} s ({r_lo:.0f}-{r_hi:.0f}); ~ {h(reuse):.2f} h "
          f"({h(r_lo):.2f}-{h(r_hi):.2f} h) on {args.cores} dedicated cores")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    r = sub.add_parser("run")
    r.add_argument("--store", required=True)
    r.add_argument("--budget", type=float, default=1800.0, help="wall seconds")
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--timeout", type=float, default=300.0, help="per task, seconds")
    r.add_argument("--datasets", default="", help="comma-separated (default: a sample)")
    r.add_argument("--subsample", action="append", default=[], metavar="NAME:ROWS")
    r.add_argument("--every", type=int, default=1,
                   help="run every k-th configuration of each family (large datasets)")
    e = sub.add_parser("estimate")
    e.add_argument("--store", required=True)
    e.add_argument("--cores", type=int, default=2)
    e.add_argument("--bootstrap", type=int, default=1000)
    e.add_argument("--reference", default=None,
                   help="a store of the default algorithms on the suite, to check scaling")
    k = sub.add_parser("estimate-kb")
    k.add_argument("--store", required=True, help="a sample run here (run --every K ...)")
    k.add_argument("--every", type=int, default=4, help="the K of the sample run")
    k.add_argument("--repetitions", type=int, default=2)
    k.add_argument("--cores", type=int, default=2)
    k.add_argument("--bootstrap", type=int, default=10000)
    args = parser.parse_args(argv)
    if args.step == "estimate-kb":
        return estimate_kb(args)
    return run(args) if args.step == "run" else estimate(args)


if __name__ == "__main__":
    sys.exit(main())
