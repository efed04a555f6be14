"""The verdict of docs/aslib_schedule_plan.md from the confirming run's log.

Reads the log of ``bench_aslib.py /work/aslib-dev/* --no-plain --strategies auto`` (each
scenario's ``AslibScenario('NAME' ...`` line and its ``auto`` row: gap closed against
the training folds' and the whole scenario's single best) and prints, beside the
present vote's figures (docs/aslib.md, presolved instances credited), LLAMA's best and
the two plain selectors: the table, the mean over the scenarios, each target of the
plan, and the plan's one pre-registered comparison: Wilcoxon's one-sided signed-rank
test over scenarios of the paired differences (the new rule higher), with a percentile
bootstrap interval of the mean difference (scenarios resampled, 10,000 times, seed 0).

Usage: python benchmarks/schedule_verdict.py LOG
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
from scipy.stats import wilcoxon

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_aslib import LLAMA  # noqa: E402

#: The vote before the plan (full Borda count, no schedule), gap closed against the whole
#: scenario's single best, presolved instances credited: docs/aslib.md, the sections
#: "auto's vote on the 21 development scenarios" and "Presolved instances credited".
PRESENT = {
    "OPENML-WEKA-2017": 0.067, "SAT11-HAND": 0.667, "MAXSAT12-PMS": 0.945,
    "ASP-POTASSCO": 0.820, "CSP-2010": 0.748, "SAT11-INDU": 0.380, "SAT11-RAND": 0.825,
    "SAT12-HAND": 0.764, "QBF-2011": 0.851, "SAT12-INDU": 0.439, "QBF-2014": 0.781,
    "QBF-2016": 0.696, "CPMP-2015": 0.362, "BNSL-2016": 0.876, "MAXSAT-PMS-2016": 0.519,
    "MAXSAT15-PMS-INDU": 0.682, "MIP-2016": 0.241, "SAT15-INDU": 0.412,
    "SAT18-EXP": 0.487, "GLUHACK-18": 0.432, "CSP-Minizinc-Time-2016": 0.543,
}
#: (plain RF, plain k-NN), whole-scenario single best, presolved instances credited
#: (docs/aslib.md, "Beside two plain scikit-learn selectors" and "Presolved instances
#: credited").
PLAIN = {
    "SAT11-HAND": (0.703, 0.478), "MAXSAT12-PMS": (0.850, 0.905),
    "ASP-POTASSCO": (0.690, 0.806), "CSP-2010": (0.657, 0.522),
    "SAT11-INDU": (0.248, 0.328), "SAT11-RAND": (0.947, 0.864), "QBF-2011": (0.876, 0.845),
    "QBF-2014": (0.796, 0.725), "QBF-2016": (0.668, 0.634), "CPMP-2015": (0.292, 0.313),
    "BNSL-2016": (0.861, 0.820), "MIP-2016": (-0.235, -0.106), "SAT15-INDU": (0.410, 0.011),
    "SAT18-EXP": (0.546, 0.494), "GLUHACK-18": (0.452, 0.440),
    "CSP-Minizinc-Time-2016": (0.345, 0.714), "OPENML-WEKA-2017": (-0.006, 0.147),
    "MAXSAT-PMS-2016": (0.381, 0.582), "MAXSAT15-PMS-INDU": (0.677, 0.711),
    "SAT12-HAND": (0.759, 0.728), "SAT12-INDU": (0.431, 0.445),
}
_NUM = r"([+-]\d+\.\d+)"


def read_log(text):
    """{scenario: (gap closed, training SBS; gap closed, whole SBS)} of ``auto``."""
    out, name = {}, None
    for line in text.splitlines():
        m = re.match(r"AslibScenario\('([^']+)'", line)
        if m:
            name = m.group(1)
            continue
        m = re.match(rf"auto\s+{_NUM} \[{_NUM}, {_NUM}\]\s+{_NUM} \[{_NUM}, {_NUM}\]", line)
        if m and name is not None:
            out[name] = (float(m.group(1)), float(m.group(4)))
            name = None
    return out


def main(path):
    got = read_log(Path(path).read_text())
    names = [n for n in PRESENT if n in got]
    missing = [n for n in PRESENT if n not in got]
    new = np.array([got[n][1] for n in names])
    old = np.array([PRESENT[n] for n in names])
    print("| scenario | present vote | truncated vote + schedule | LLAMA's best | "
          "plain RF | plain k-NN |")
    print("|---|---:|---:|---:|---:|---:|")
    for n, a, b in zip(names, old, new, strict=True):
        rf, knn = PLAIN[n]
        print(f"| {n} | {a:+.3f} | {b:+.3f} | {LLAMA[n][1]} | {rf:+.3f} | {knn:+.3f} |")
    print(f"\n{len(names)} scenarios" + (f"; missing from the log: {missing}" if missing
                                           else ""))
    print(f"mean gap closed: {new.mean():.4f} (present vote {old.mean():.4f}; target 0.65)")
    at_llama = [n for n in names if LLAMA[n][2] is None or got[n][1] >= LLAMA[n][2]]
    print(f"at least LLAMA's best: {len(at_llama)} of {len(names)} (target 15); below: "
          f"{[n for n in names if n not in at_llama]}")
    print(f"lowest gap closed (never more than 0.02 below the single best): "
          f"{new.min():+.3f} ({names[int(np.argmin(new))]})")
    weaker = [n for n in names if got[n][1] < min(PLAIN[n])]
    print(f"below the weaker plain selector: {weaker}; mean of the plain selectors over "
          f"these scenarios: RF {np.mean([PLAIN[n][0] for n in names]):.4f}, k-NN "
          f"{np.mean([PLAIN[n][1] for n in names]):.4f}")
    for n, target in (("ASP-POTASSCO", 0.83), ("SAT11-INDU", 0.44)):
        if n in got:
            print(f"{n}: {got[n][1]:+.3f} (target {target})")
    diff = new - old
    p = wilcoxon(diff, alternative="greater", zero_method="wilcox").pvalue
    rng = np.random.default_rng(0)
    boot = diff[rng.integers(0, diff.size, (10_000, diff.size))].mean(axis=1)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    print(f"against the present vote: mean difference {diff.mean():+.4f} [{lo:+.4f}, "
          f"{hi:+.4f}] (95 % bootstrap over scenarios), higher on {(diff > 0).sum()}, "
          f"lower on {(diff < 0).sum()}; Wilcoxon one-sided p = {p:.3g} (a family of one: "
          f"Holm changes nothing)")
    keep = new.mean() > old.mean() and new.min() >= -0.02
    print(f"adoption rule (mean above the present vote's, nowhere below -0.02): "
          f"{'kept' if keep else 'not kept'}")


if __name__ == "__main__":
    main(sys.argv[1])
