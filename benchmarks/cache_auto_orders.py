"""Cache, per ASlib scenario and ``cv.arff`` fold, every candidate of ``auto``'s inner
(leave-one-family-out) orders of the training instances and its orders of the held-out
instances, so that rules combining them can be compared without refitting.

Each fold is fitted exactly as :func:`evaluate_aslib` fits it (the training part's
times imputed, the fold's seed, ``regression`` given the PAR10 ceiling). Writes
``OUT/NAME.npz``. A design tool for ``auto`` (docs/aslib_plan.md), not a benchmark.

Usage: python benchmarks/cache_auto_orders.py DIR ... --out FOLDER [--jobs N]
       [--extra NAME,...]

``--extra``: fit only these strategies (by name, default parameters and the features
the scenario has, as ``auto`` builds its candidates, e.g. ``collaborative``) and add
their orders to the scenario's existing ``OUT/NAME.npz``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

from metaeval.recommend import Condition, read_aslib
from metaeval.recommend.evaluation._evaluate import _impute_times, _seed
from metaeval.recommend.learners._auto import Auto
from metaeval.recommend.learners._auto_inner import _inner_orders
from metaeval.recommend.learners._learners import family_codes
from metaeval.recommend.learners._learners_forest import ConfigurationRegression


class RawRegression(ConfigurationRegression):
    """``regression`` learning PAR10 / ceiling (not its log), as plain-rf learns PAR10."""

    name = "regression-raw"

    def target(self, train, condition):
        return np.asarray(train.success, dtype=np.float64) / self.cost_ceiling


def _fold(kb, fold, f, params, seed=0, extra=()):
    mask = fold != f
    members = np.flatnonzero(~mask)
    fkb = _impute_times(kb, mask)
    train = fkb.subset(mask)
    fold_seed = _seed(seed, int(members[0]), 0)
    queries = [fkb.query(i) for i in members]
    condition = Condition()
    auto = Auto(params=params)
    strategies = (Auto(candidates=extra).strategies(train) if extra
                  else auto.strategies(train))
    if "regression" in params and not extra:
        reg = next(s for s in strategies if s.name == "regression")
        strategies.append(RawRegression(**params["regression"], features=reg.features))
    codes, n_families = family_codes(train)
    out = {}
    for s in strategies:
        t0 = time.process_time()
        fitted = s.fit(train, condition, seed=fold_seed)
        inner = _inner_orders(fitted, train, condition, codes, n_families)
        test = np.array([r.order for r in fitted.rank_many(queries)], dtype=np.int64)
        out[s.name] = (inner, test, time.process_time() - t0)
    return f, members, np.flatnonzero(mask), codes, out, None


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("directories", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--extra", default="")
    args = parser.parse_args(argv)
    extra = tuple(n for n in args.extra.split(",") if n)
    args.out.mkdir(parents=True, exist_ok=True)
    for root in args.directories:
        start = time.perf_counter()
        sc = read_aslib(root)
        kb = sc.knowledge
        params = {"regression": {"cost_ceiling": float(sc.shift)}} if sc.runtime else {}
        fold = sc.cv.iloc[:, 0].to_numpy()
        done = Parallel(n_jobs=args.jobs)(delayed(_fold)(kb, fold, f, params, extra=extra)
                                          for f in np.unique(fold))
        names = list(done[0][4])
        if extra:  # added to the cached scenario
            with np.load(args.out / f"{sc.name}.npz") as z:
                save = dict(z)
            names = [n for n in save["names"] if n not in names] + names
            save["names"] = np.array(names)
        else:
            save = {"success": kb.success, "fold": fold, "names": np.array(names),
                    "runtime": sc.runtime, "shift": sc.shift, "sign": sc.sign,
                    "cutoff": sc.cutoff if sc.runtime else np.nan,
                    "performance": np.asarray(sc.performance, dtype=np.float64),
                    "solved": sc.solved if sc.runtime else np.zeros(0),
                    "feature_costs": bool(sc.runtime and sc.feature_costs),
                    "cost": (np.nan_to_num(np.asarray(kb.metafeature_time, dtype=np.float64))
                             if kb.metafeature_time is not None else np.zeros(len(kb.datasets)))}
        cpu = {}
        for f, members, train_rows, codes, out, _ in done:
            save[f"members_{f}"] = members
            save[f"train_{f}"] = train_rows
            save[f"codes_{f}"] = codes
            for n, (inner, test, t) in out.items():
                save[f"inner_{f}_{n}"] = inner
                save[f"test_{f}_{n}"] = test
                cpu[n] = cpu.get(n, 0.0) + t
        np.savez_compressed(args.out / f"{sc.name}.npz", **save)
        print(f"{sc.name}: {time.perf_counter() - start:.0f} s wall; CPU-s by candidate "
              + ", ".join(f"{n} {t:.0f}" for n, t in cpu.items()), flush=True)


if __name__ == "__main__":
    main()
