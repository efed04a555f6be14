"""Run the pre-registered family of docs/budgets.md on the shipped knowledge base and
print its results as Markdown (the tables appended to docs/budgets.md).

    python docs/budgets.py [--jobs N] [--n-boot B]

Three primary conditions at P = 1/64, CPU time, leave-one-family-out, scored on the
unseen repetition; the loss at budgets of 1, 10, 60 and 600 CPU-s per dataset of auto,
the time-aware single best, the best configuration that fits the budget, the fast-first
order, the time-blind single best and the oracle; auto against the time-aware single
best at each budget, Holm-corrected over the twelve comparisons.
"""

from __future__ import annotations

import argparse

import pandas as pd

from metaeval.recommend import Condition, evaluate_recommenders, load_knowledge
from metaeval.recommend._advice import CONDITIONS
from metaeval.recommend.evaluation._budget_scoring import BUDGET_BASELINE, BUDGETS, budget_column
from metaeval.recommend.evaluation._summary import holm

STRATEGIES = ["auto", "single-best-a3r", "fast-first", "single-best", "oracle"]
SHOWN = ["auto", "single-best-a3r", BUDGET_BASELINE, "fast-first", "single-best", "oracle"]
P = 1 / 64
ALPHA = 0.05


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=-1)
    parser.add_argument("--n-boot", type=int, default=1000)
    args = parser.parse_args(argv)
    archive = load_knowledge()
    cells, family = {}, []
    labels = []
    for _, spec in CONDITIONS:
        condition = Condition(**spec, time_weight=P)
        ev = evaluate_recommenders(archive.knowledge_base(condition), condition,
                                   strategies=STRATEGIES, n_boot=args.n_boot, alpha=ALPHA,
                                   n_jobs=args.jobs, budgets=BUDGETS)
        labels.append(condition.label)
        for r in ev.budget_summary.to_dict(orient="records"):
            cells[condition.label, r["budget"], r["strategy"]] = (
                f"{r['loss']:.4f} [{r['low']:.4f}, {r['high']:.4f}]")
        c = ev.budget_comparisons
        family.append(c[c["family"] == "primary"].assign(condition=condition.label))
    family = pd.concat(family, ignore_index=True)
    family["p_holm"] = holm(family["p"].to_numpy())  # over the twelve, as pre-registered
    family["supported"] = ((family["low"] > 0) & (family["p_holm"] < ALPHA)
                           & (family["p_wilcoxon"] < ALPHA))
    family["worse"] = family["high"] < 0
    print("| budget | condition | " + " | ".join(SHOWN) + " |\n|---|---|"
          + "---|" * len(SHOWN))
    for b in BUDGETS:
        for label in labels:
            print(f"| {b:g} s | {label} | "
                  + " | ".join(cells[label, b, name] for name in SHOWN) + " |")
    print("\n| condition | budget | difference (b - a) [95 %] | wins / losses / ties "
          "| sign-flip p | Wilcoxon p | Holm p (12) | supported | worse beyond interval |"
          "\n|---|---|---|---|---|---|---|---|---|")
    order = {budget_column(b): b for b in BUDGETS}
    for r in family.itertuples(index=False):
        print(f"| {r.condition} | {order[r.measure]:g} s | {r.difference:.4f} "
              f"[{r.low:.4f}, {r.high:.4f}] | {r.wins} / {r.losses} / {r.ties} | "
              f"{r.p:.3g} | {r.p_wilcoxon:.3g} | {r.p_holm:.3g} | "
              f"{'yes' if r.supported else 'no'} | {'yes' if r.worse else 'no'} |")
    print(f"\nSupported: {int(family['supported'].sum())} of {len(family)}; worse beyond "
          f"the interval: {int(family['worse'].sum())} of {len(family)}.")


if __name__ == "__main__":
    main()
