"""Four kinds of file, as a new user would try them: does the default order adapt, and
does the output say so where it does not?

Writes four CSV files of our own (30 rows; 20,000 x 40 numbers; a mixed file with text
and missing values; a 32,561-row file shaped like the adult census data, six numeric
and eight text columns) and runs ``metaeval recommend FILE`` on each, at P = 0 and at
``--time-weight 1/64``, in a subprocess as a user would. Prints, per file and P, the
first three configurations, whether the order read the data, and the note that says
why when it did not; then whether the four orders are the same at each P.

Usage: python benchmarks/four_files.py [--top 3]
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
import pandas as pd
from sklearn.datasets import make_classification


def files(where: Path) -> dict:
    rng = np.random.default_rng(0)
    out = {}
    X, y = make_classification(30, 5, n_informative=3, random_state=0)
    out["30 rows"] = pd.DataFrame(X, columns=[f"x{i}" for i in range(5)]).assign(
        **{"class": np.where(y == 1, "yes", "no")})
    X, y = make_classification(20_000, 40, n_informative=10, random_state=1)
    out["20,000 x 40"] = pd.DataFrame(X, columns=[f"x{i}" for i in range(40)]).assign(
        **{"class": y})
    n = 2_000
    mixed = pd.DataFrame({
        "age": rng.integers(18, 90, n).astype(float),
        "colour": rng.choice(["red", "green", "blue", "mauve"], n),
        "city": rng.choice([f"city{i}" for i in range(30)], n),
        "income": rng.lognormal(10, 1, n)})
    mixed.loc[rng.random(n) < 0.1, "age"] = np.nan
    mixed.loc[rng.random(n) < 0.05, "colour"] = np.nan
    score = (mixed["income"] > 30_000).astype(int) ^ (rng.random(n) < 0.2)
    out["mixed, text and missing"] = mixed.assign(**{"class": np.where(score, "a", "b")})
    n = 32_561
    adult = pd.DataFrame({
        "age": rng.integers(17, 91, n), "fnlwgt": rng.integers(12_285, 1_484_705, n),
        "education_num": rng.integers(1, 17, n), "capital_gain": rng.choice(
            [0, 0, 0, 0, 2174, 14084, 5178], n),
        "capital_loss": rng.choice([0, 0, 0, 0, 0, 1902], n),
        "hours_per_week": rng.integers(1, 100, n),
        **{c: rng.choice([f"{c}_{k}" for k in range(m)], n) for c, m in (
            ("workclass", 8), ("education", 16), ("marital", 7), ("occupation", 14),
            ("relationship", 6), ("race", 5), ("sex", 2), ("country", 41))}})
    logit = (0.04 * (adult["age"] - 38) + 0.3 * (adult["education_num"] - 10)
             + 0.03 * (adult["hours_per_week"] - 40) + 0.0003 * adult["capital_gain"] - 1.2)
    adult["class"] = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), ">50K", "<=50K")
    out["adult-like, 32,561 rows"] = adult
    paths = {}
    for i, (name, frame) in enumerate(out.items()):
        paths[name] = where / f"file{i}.csv"
        frame.to_csv(paths[name], index=False)
    return paths


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"load average at the start: {os.getloadavg()[0]:.2f}")
    orders = {}
    with tempfile.TemporaryDirectory() as where:
        for name, path in files(Path(where)).items():
            for p in ("0", "1/64"):
                start = time.perf_counter()
                run = subprocess.run(
                    [sys.executable, "-m", "metaeval", "recommend", str(path), "--top",
                     str(args.top), "--time-weight", p],
                    capture_output=True, text=True, env={**os.environ, "COLUMNS": "400"})
                took = time.perf_counter() - start
                if run.returncode:
                    print(f"{name}, P = {p}: exit {run.returncode}\n{run.stderr}")
                    continue
                lines = run.stdout.splitlines()
                first = [line.split("│")[2].strip() for line in lines
                         if line.startswith("│") and line.split("│")[1].strip().isdigit()]
                notes = " ".join(run.stderr.split())
                same = "same for every dataset" in notes
                orders.setdefault(p, {})[name] = first
                print(f"\n{name}, P = {p} ({took:.1f} s): {', '.join(first)}")
                print("  the order reads the data" if not same else
                      "  said: " + notes[notes.index("this order is the same"):][:300])
    for p, by_file in orders.items():
        distinct = {tuple(v) for v in by_file.values()}
        print(f"\nP = {p}: {len(distinct)} distinct first-{args.top} order(s) over "
              f"{len(by_file)} files")


if __name__ == "__main__":
    main()
