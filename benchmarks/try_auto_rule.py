"""``auto``'s two tests of "a candidate beats the single best", side by side on ASlib.

``Auto(test="margin")`` (the default until this comparison) leaves the single best for
the candidate of lowest inner mean loss only if it is lower by more than z = 2.39
standard errors of the paired differences over the training instances;
``Auto(test="wilcoxon")`` (the default since) only if Wilcoxon's one-sided signed-rank
test of those differences gives p < 0.05 / 6. On runtime
scenarios a few timeouts (ten times the cutoff) widen the standard error, and the margin
keeps the single best where the ranks say clearly that a learner is better.

The comparison was pre-registered before either was run with the rank test (2026-11-28,
docs/aslib.md, "auto's test"): a development set of nine scenarios whose results under
the margin were known, a confirmation set of eleven, SAT15-INDU (which suggested the
rank test) apart; the rank test is worth adopting only if, on each set, its mean gap
closed is higher and it wins on at least as many scenarios as it loses.

It prints, per scenario, each test's gap closed against the whole scenario's single best
(95 % bootstrap interval over instances) and the strategies it chose (held-out
instances per strategy).

Usage: python benchmarks/try_auto_rule.py DIR [DIR ...] [--jobs N]
(ASlib scenario folders, read in place: GPLv3 data, never copied into the repository)
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from metaeval.recommend import evaluate_aslib, read_aslib
from metaeval.recommend.learners._auto import Auto


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    for path in map(Path, args.dirs):
        sc = read_aslib(path)
        params = {"regression": {"cost_ceiling": float(sc.shift)}} if sc.runtime else {}
        for test in ("margin", "wilcoxon"):
            start = time.perf_counter()
            ev = evaluate_aslib(sc, [Auto(params=params, test=test)], n_jobs=args.jobs)
            r = ev.summary.to_dict(orient="records")[0]
            print(f"{sc.name:24s} {test:8s} {r['gap_closed_whole_sbs']:+.3f} "
                  f"[{r['gap_closed_whole_sbs_low']:+.3f}, "
                  f"{r['gap_closed_whole_sbs_high']:+.3f}] {ev.chosen('auto')} "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
