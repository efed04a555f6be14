"""How ``metaeval recommend --evaluate --aslib`` scales with a scenario's size, on synthetic
runtime scenarios: a benchmark, not a timed test, and no ASlib data.

Writes an ASlib runtime scenario of N instances x A algorithms x F features (in S feature
steps, each with a cost), 10 random folds, a cutoff that about a quarter of the runs
reach (timeouts), then runs ``metaeval recommend --evaluate --aslib DIR`` (every
strategy) in a new process and prints its wall and CPU seconds (its own and its
workers') and the peak resident memory of the largest of its processes. A run's figures
mean nothing: the point is the time at a size, beside the time of the calibration size
(that of SAT12-INDU, 1,167 x 31 x 115 in 10 steps, the longest of the development
scenarios) measured in the same run, as a ratio.

The runtimes: log runtime of algorithm a on instance i is
``5.2 + X_i . w_a + e``, X standard normal features (the first 8 informative), w_a drawn
per algorithm, e ~ N(0, 1); a run at or past the cutoff is a timeout.

Usage: python benchmarks/bench_aslib_size.py [N,A,F ...] [--jobs J] [--workdir DIR]
       default sizes: 1167,31,115 (calibration) 4021,22,198 4642,11,155 5000,31,115
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

CUTOFF = 1000.0
STEPS = 10
DEFAULT = ["1167,31,115", "4021,22,198", "4642,11,155", "5000,31,115"]


def _arff(path, relation, attributes, rows):
    with open(path, "w") as f:
        f.write(f"@RELATION {relation}\n\n")
        for name, kind in attributes:
            f.write(f"@ATTRIBUTE {name} {kind}\n")
        f.write("\n@DATA\n")
        for row in rows:
            f.write(",".join(row) + "\n")


def write_scenario(folder: Path, n: int, a: int, n_features: int, seed: int = 0) -> Path:
    """A synthetic ASlib runtime scenario in ``folder`` (created)."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True)
    name = f"SYNTH-{n}x{a}x{n_features}"
    X = rng.normal(size=(n, n_features))
    w = rng.normal(scale=0.8, size=(min(8, n_features), a))
    log_rt = 5.2 + X[:, : w.shape[0]] @ w + rng.normal(size=(n, a))
    runtime = np.minimum(np.exp(log_rt), CUTOFF)
    instances = [f"inst{i:05d}" for i in range(n)]
    algorithms = [f"algo{j:02d}" for j in range(a)]
    features = [f"feat{k:03d}" for k in range(n_features)]
    steps = [f"step{s}" for s in range(STEPS)]
    provides = {s: features[k::STEPS] for k, s in enumerate(steps)}
    lines = [f"scenario_id: {name}", "performance_measures:", "- runtime", "maximize:",
             "- false", "performance_type:", "- runtime",
             f"algorithm_cutoff_time: {CUTOFF:g}", "algorithm_cutoff_memory: '?'",
             "features_cutoff_time: '?'", "features_cutoff_memory: '?'",
             "features_deterministic:", *[f"- {f}" for f in features],
             "features_stochastic: null", f"number_of_feature_steps: {STEPS}",
             "default_steps:", *[f"- {s}" for s in steps], "feature_steps:"]
    for s in steps:
        lines += [f"  {s}:", "    provides:", *[f"    - {f}" for f in provides[s]]]
    lines += ["metainfo_algorithms:"]
    for alg in algorithms:
        lines += [f"  {alg}:", "    configuration: ''", "    deterministic: true"]
    (folder / "description.txt").write_text("\n".join(lines) + "\n")
    _arff(folder / "algorithm_runs.arff", f"ALGORITHM_RUNS_{name}",
          [("instance_id", "STRING"), ("repetition", "NUMERIC"), ("algorithm", "STRING"),
           ("runtime", "NUMERIC"), ("runstatus", "{ok, timeout}")],
          ([inst, "1", alg, f"{runtime[i, j]:.4f}",
            "timeout" if runtime[i, j] >= CUTOFF else "ok"]
           for i, inst in enumerate(instances) for j, alg in enumerate(algorithms)))
    _arff(folder / "feature_values.arff", f"FEATURE_VALUES_{name}",
          [("instance_id", "STRING"), ("repetition", "NUMERIC")]
          + [(f, "NUMERIC") for f in features],
          ([inst, "1", *(f"{v:.6f}" for v in X[i])] for i, inst in enumerate(instances)))
    costs = np.exp(rng.normal(-2.0, 1.0, size=(n, STEPS)))
    _arff(folder / "feature_costs.arff", f"FEATURE_COSTS_{name}",
          [("instance_id", "STRING"), ("repetition", "NUMERIC")]
          + [(s, "NUMERIC") for s in steps],
          ([inst, "1", *(f"{c:.4f}" for c in costs[i])] for i, inst in enumerate(instances)))
    _arff(folder / "feature_runstatus.arff", f"FEATURE_RUNSTATUS_{name}",
          [("instance_id", "STRING"), ("repetition", "NUMERIC")]
          + [(s, "{ok, timeout, memout, presolved, crash, other}") for s in steps],
          ([inst, "1", *(["ok"] * STEPS)] for inst in instances))
    fold = rng.permutation(np.arange(n) % 10) + 1
    _arff(folder / "cv.arff", f"CV_{name}",
          [("instance_id", "STRING"), ("repetition", "NUMERIC"), ("fold", "NUMERIC")],
          ([inst, "1", str(fold[i])] for i, inst in enumerate(instances)))
    return folder


#: Runs a command and prints the largest peak resident memory of it and its workers (KB).
_PEAK = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
         "stdout=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN)"
         ".ru_maxrss)")


def timed_evaluation(folder: Path, jobs: int | None) -> tuple[float, float, float]:
    """Wall and CPU seconds (the process and its workers) of the command, and the peak
    resident memory (GB) of the largest of its processes."""
    command = [str(Path(sys.executable).with_name("metaeval")), "recommend", "--evaluate",
               "--aslib", str(folder)]
    if jobs is not None:
        command += ["--jobs", str(jobs)]
    before = os.times()
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _PEAK, *command], check=True,
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = os.times()
    return wall, (after.children_user - before.children_user
                  + after.children_system - before.children_system), (
        int(done.stdout.split()[-1]) / 1e6)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="*", default=DEFAULT, help="N,A,F")
    parser.add_argument("--jobs", type=int)
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args(argv)
    sizes = [tuple(int(x) for x in s.split(",")) for s in args.sizes]
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        base = None
        for n, a, f in sizes:
            folder = write_scenario(Path(tmp) / f"s{n}x{a}x{f}", n, a, f)
            wall, cpu, peak = timed_evaluation(folder, args.jobs)
            base = base or wall
            print(f"{n:5d} instances x {a:2d} algorithms x {f:3d} features: {wall:6.1f} s "
                  f"wall, {cpu:6.1f} CPU-s, {peak:.2f} GB at most in one process; "
                  f"{wall / base:.2f} x the first size", flush=True)


if __name__ == "__main__":
    main()
