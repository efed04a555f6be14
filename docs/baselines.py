"""Run the pre-registered family of docs/baselines.md on the shipped knowledge base and
print its results as Markdown (the tables appended to docs/baselines.md).

    python docs/baselines.py [--jobs N] [--n-boot B]

Three primary conditions at P = 1/64, CPU time, leave-one-family-out, scored on the
unseen repetition: auto, the time-blind and the time-aware single best, the fast-first
order and the oracle; auto against the time-aware single best on loss@1 and MIL,
Holm-corrected over the six comparisons.
"""

from __future__ import annotations

import argparse

import pandas as pd

from metaeval.recommend import Condition, evaluate_recommenders, load_knowledge
from metaeval.recommend._advice import CONDITIONS
from metaeval.recommend.evaluation._summary import holm

STRATEGIES = ["auto", "single-best-a3r", "fast-first", "single-best", "oracle"]
P = 1 / 64
ALPHA = 0.05


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=-1)
    parser.add_argument("--n-boot", type=int, default=1000)
    args = parser.parse_args(argv)
    archive = load_knowledge()
    rows, family = [], []
    for _, spec in CONDITIONS:
        condition = Condition(**spec, time_weight=P)
        ev = evaluate_recommenders(archive.knowledge_base(condition), condition,
                                   strategies=STRATEGIES, n_boot=args.n_boot, alpha=ALPHA,
                                   n_jobs=args.jobs)
        s = ev.summary.set_index("strategy")
        for name in STRATEGIES:
            rows.append({"condition": condition.label, "strategy": name,
                         **{c: f"{s.loc[name, c]:.4f} [{s.loc[name, c + '_low']:.4f}, "
                               f"{s.loc[name, c + '_high']:.4f}]"
                            for c in ("mil", "loss_at_1", "loss_at_3")}})
        c = ev.comparisons
        family.append(c[c["family"] == "primary"].assign(condition=condition.label))
    family = pd.concat(family, ignore_index=True)
    family["p_holm"] = holm(family["p"].to_numpy())  # over the six, as pre-registered
    family["supported"] = ((family["low"] > 0) & (family["p_holm"] < ALPHA)
                           & (family["p_wilcoxon"] < ALPHA))
    print("| condition | strategy | MIL | loss@1 | loss@3 |\n|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['condition']} | {r['strategy']} | {r['mil']} | {r['loss_at_1']} | "
              f"{r['loss_at_3']} |")
    print("\n| condition | comparison | measure | difference (b - a) [95 %] | sign-flip p "
          "| Wilcoxon p | Holm p (6) | supported |\n|---|---|---|---|---|---|---|---|")
    for r in family.itertuples(index=False):
        print(f"| {r.condition} | {r.a} vs {r.b} | {r.measure} | {r.difference:.4f} "
              f"[{r.low:.4f}, {r.high:.4f}] | {r.p:.3g} | {r.p_wilcoxon:.3g} | "
              f"{r.p_holm:.3g} | {'yes' if r.supported else 'no'} |")


if __name__ == "__main__":
    main()
