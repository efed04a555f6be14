"""Generate ``docs/recommendation.md``: which strategy recommends best, under which condition.

Usage::

    python docs/recommend.py --store /work/stores/full.duckdb --out docs/
    python docs/recommend.py --store full.duckdb --store wide.duckdb --out docs/

For each store, every recommendation strategy of :mod:`metaeval.recommend` is evaluated
leave-one-dataset-out (families held out whole) under accuracy and two cost-sensitive
conditions, at several A3R time weights P; the document gives the summary tables with
bootstrap intervals over held-out datasets, each strategy against the random order (the
null), Friedman/Nemenyi, the P that works best, and the figures (under ``OUT/figures/``,
names starting ``recommend_``). Every sentence that states a result is computed from the
evaluation, never typed by hand.

A store without the meta-feature cache is copied into ``--work`` and described there
(pymfe groups and landmarkers, minutes per large dataset); the store given is never
written. Times are the tests' and descriptions' CPU seconds by default (``--clock``):
the machine may be shared, and CPU time moves less with its load than wall time.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from metaeval.recommend import (
    Condition,
    KnowledgeBase,
    describe_store,
    evaluate_recommenders,
    paired_comparison,
)
from metaeval.report._recommend import (
    loss_curve_data,
    loss_curves_figure,
    summary_display,
    time_weight_figure,
)
from metaeval.report.figures import critical_difference_diagram
from metaeval.store import Store

#: The operating conditions evaluated: (short name, Condition fields).
CONDITIONS = (
    ("accuracy", {"measure": "accuracy"}),
    ("rate-driven-c0.3", {"measure": "hardness:rate-driven", "cost": 0.3}),
    ("score-driven-beta2-8", {"measure": "hardness:score-driven", "cost_beta": (2, 8)}),
)
#: The A3R time weights swept.
TIME_WEIGHTS = (0.0, 1 / 256, 1 / 128, 1 / 64, 1 / 32, 1 / 16, 1 / 8, 1 / 4)
#: The weight of the main tables (the literature's best, Abdulrahman et al. 2018).
MAIN_P = 1 / 64
ALPHA = 0.05


def prepare_store(path, work, groups=None):
    """The store to read: ``path`` if it has the meta-feature cache, else a described copy."""
    store = Store(path)
    described = set(store.metafeature_groups()["dataset"])
    names = set(store.datasets()["name"])
    if names <= described:
        return store, None, 0.0
    copy = Path(work) / Path(path).name
    if not copy.exists():
        shutil.copy2(path, copy)
    start = time.perf_counter()
    kwargs = {} if groups is None else {"groups": groups}
    describe_store(copy, **kwargs)
    return Store(copy), copy, time.perf_counter() - start


def best_p_frequency(per_p, strategy, n_boot, seed=0):
    """How often each P has (or ties for) the lowest mean MIL over bootstrap resamples."""
    mil = pd.DataFrame({p: ev.per_dataset[ev.per_dataset["strategy"] == strategy]
                        .set_index("dataset")["mil"] for p, ev in per_p.items()})
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(mil), size=(n_boot, len(mil)))
    means = mil.to_numpy()[idx].mean(axis=1)
    best = means <= means.min(axis=1, keepdims=True) + 1e-12
    return pd.Series(best.mean(axis=0), index=mil.columns)


def verdict(row):
    """Better than random, worse, or no evidence, from the Wilcoxon test at ALPHA."""
    if row["p_value"] < ALPHA:
        return "better than random" if row["mil_difference"] > 0 else "worse than random"
    return "no evidence of a difference from random"


def per_dataset_values(ev, strategy, column="mil"):
    """One strategy's per-dataset values of ``column``, indexed by dataset."""
    frame = ev.per_dataset
    return frame[frame["strategy"] == strategy].set_index("dataset")[column]


def paired(ev_a, a, ev_b, b, column="mil", n_boot=1000):
    """:func:`paired_comparison` of strategy ``a`` (of ``ev_a``) against ``b`` (of ``ev_b``)."""
    return paired_comparison(per_dataset_values(ev_a, a, column),
                             per_dataset_values(ev_b, b, column), n_boot=n_boot, alpha=ALPHA)


def null_text(r):
    """The null's share of the same verdict, in percent (two significant digits)."""
    share = 100 * r["null_same_verdict"]
    return f"{share:.0f}%" if share >= 10 else f"{share:.2g}%"


def paired_text(r, a, b, what="MIL"):
    """One sentence: the paired evidence that ``a`` is better than ``b``."""
    claim = (f"the evidence supports \"{a} is better than {b}\"" if r["supported"] else
             f"this is no evidence that {a} is better than {b}")
    return (f"paired over {r['wins'] + r['losses'] + r['ties']} held-out datasets, "
            f"{what}({b}) − {what}({a}) = {r['difference']:.4f} "
            f"[{r['low']:.4f}, {r['high']:.4f}], {a} lower on {r['wins']}, higher on "
            f"{r['losses']}, tied on {r['ties']} (Wilcoxon p = {r['p_value']:.2g}); a null "
            f"model (the two exchangeable on every dataset) gives a difference at least as "
            f"favourable to {a} in {null_text(r)} of sign flips, so "
            f"{claim}")


def paired_table(rows, n_boot):
    """Markdown table of paired comparisons: ``rows`` = [(label, result dict)]."""
    frame = pd.DataFrame([{"comparison": label, "difference": r["difference"],
                           "low": r["low"], "high": r["high"],
                           "wins/losses/ties": f"{r['wins']}/{r['losses']}/{r['ties']}",
                           "Wilcoxon p": f"{r['p_value']:.2g}",
                           "null same verdict": f"{null_text(r)}",
                           "supported": "yes" if r["supported"] else "no"}
                          for label, r in rows])
    return markdown_table(frame, index=False)


def p_text(p):
    if p == 0:
        return "0"
    inverse = 1 / p
    return f"1/{round(inverse)}" if abs(inverse - round(inverse)) < 1e-9 else f"{p:g}"


def markdown_table(frame, index=True):
    frame = frame.reset_index() if index else frame
    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(_cell(v) for v in row) + " |" for row in frame.itertuples(
        index=False)]
    return "\n".join([head, rule, *body])


def _cell(v):
    if isinstance(v, float):
        return "–" if not np.isfinite(v) else f"{v:.4f}"
    return str(v)


def evaluate_condition(kb, condition, n_boot):
    """Evaluations at every P of TIME_WEIGHTS (same knowledge base)."""
    return {p: evaluate_recommenders(kb, condition.replace(time_weight=p), n_boot=n_boot,
                                     alpha=ALPHA) for p in TIME_WEIGHTS}


def condition_section(tag, store_tag, kb, condition, per_p, figures_dir, n_boot):
    lines = []
    main = per_p[MAIN_P]
    label = condition.replace(time_weight=MAIN_P).label
    lines.append(f"### {label}\n")
    summary = main.summary.set_index("strategy")
    contenders = summary.drop(index=["oracle"], errors="ignore")
    ranked = contenders.sort_values("mil")
    best, second = ranked.index[0], ranked.index[1]
    cd = main.critical_difference
    same_group = any(best in g and second in g for g in cd.groups)
    versus_best = {s_: paired(main, best, main, s_, n_boot=n_boot) for s_ in ranked.index[1:]}
    runner = versus_best[second]
    lines.append(
        f"**Lowest mean MIL: {best}** (MIL {ranked.loc[best, 'mil']:.4f}, 95% interval "
        f"[{ranked.loc[best, 'mil_low']:.4f}, {ranked.loc[best, 'mil_high']:.4f}]); runner-up "
        f"{second} ({ranked.loc[second, 'mil']:.4f}): {paired_text(runner, best, second)}. "
        f"Nemenyi {'does not separate them' if same_group else 'separates them'} "
        f"(CD = {cd.cd:.2f} ranks; Friedman p = {cd.friedman.p_value:.2g}).\n")
    firsts = contenders.sort_values("loss_at_1")
    first, first_2 = firsts.index[0], firsts.index[1]
    first_r = paired(main, first, main, first_2, "loss_at_1", n_boot)
    lines.append(f"Lowest loss after one test: **{first}** "
                 f"(loss@1 {contenders.loc[first, 'loss_at_1']:.4f}); against {first_2} "
                 f"({contenders.loc[first_2, 'loss_at_1']:.4f}): "
                 f"{paired_text(first_r, first, first_2, 'loss@1')}.\n")
    lines.append(markdown_table(summary_display(main)) + "\n")
    versus = main.versus_random.copy()
    versus["verdict"] = versus.apply(verdict, axis=1)
    versus["p_value"] = versus["p_value"].map(lambda v: f"{v:.2g}")
    versus = versus.set_index("strategy")[["mil_difference", "low", "high", "wins", "losses",
                                           "p_value", "verdict"]]
    lines.append("Against the null (the random order), paired over held-out datasets: "
                 "MIL(random) − MIL(strategy), positive = better than random; bootstrap "
                 "interval, wins/losses, two-sided Wilcoxon signed-rank p.\n")
    lines.append(markdown_table(versus) + "\n")
    lines.append(f"Paired evidence for every \"better than\" claim of this condition: the "
                 f"MIL winner against every other strategy, the best first pick against the "
                 f"runner-up, and each strategy against random. Difference = value of the "
                 f"second minus the first (positive favours the first), paired bootstrap "
                 f"interval ({n_boot} resamples of the held-out datasets), Wilcoxon p, and how "
                 f"often a null model -- the two strategies exchangeable on every dataset "
                 f"(random signs of the per-dataset differences) -- gives a difference at "
                 f"least as favourable to the first; *supported* = interval above 0, null "
                 f"below {100 * ALPHA:g}% and Wilcoxon p below {ALPHA:g}.\n")
    rows = [(f"{best} < {s_} (MIL)", r) for s_, r in versus_best.items()]
    rows.append((f"{first} < {first_2} (loss@1)", first_r))
    if "random" in contenders.index:
        rows += [(f"{s_} < random (MIL)", paired(main, s_, main, "random", n_boot=n_boot))
                 for s_ in summary.index if s_ not in ("random", best)]
    lines.append(paired_table(rows, n_boot) + "\n")
    # the P sweep
    rows = []
    for p, ev in per_p.items():
        for r in ev.summary.itertuples(index=False):
            rows.append({"time_weight": p, "strategy": r.strategy, "mil": r.mil,
                         "mil_low": r.mil_low, "mil_high": r.mil_high})
    sweep = pd.DataFrame(rows)
    sweep = sweep[sweep["strategy"].isin(["average-ranking", "active-testing",
                                          "knn-metafeatures", "cost-landmarking"])]
    table = sweep.pivot(index="time_weight", columns="strategy", values="mil")
    table.index = [p_text(p) for p in table.index]
    table.index.name = "P"
    lines.append("Mean interval loss against A3R's time weight P:\n")
    lines.append(markdown_table(table) + "\n")
    p_rows = []
    for strategy in ("average-ranking", "active-testing"):
        freq = best_p_frequency(per_p, strategy, n_boot)
        means = table[strategy]
        tied = [p for p, v in means.items() if v <= means.min() + 1e-12]
        shares = ", ".join(f"{p_text(p)}: {100 * f:.0f}%" for p, f in freq.items() if f > 0)
        best_p = min(per_p, key=lambda p: per_dataset_values(per_p[p], strategy).mean())
        against = []
        for other in dict.fromkeys((MAIN_P, 0.0)):
            if other == best_p:
                continue
            r = paired(per_p[best_p], strategy, per_p[other], strategy, n_boot=n_boot)
            p_rows.append((f"{strategy}: P = {p_text(best_p)} < P = {p_text(other)} (MIL)", r))
            against.append(f"against P = {p_text(other)}: {r['difference']:.4f} "
                           f"[{r['low']:.4f}, {r['high']:.4f}], null "
                           f"{null_text(r)}, "
                           f"{'supported' if r['supported'] else 'not supported'}")
        lines.append(
            f"- {strategy}: lowest mean MIL at **P = {', '.join(tied)}** "
            f"({means.min():.4f}; at P = 0: {means.iloc[0]:.4f}). Share of {n_boot} bootstrap "
            f"resamples of the held-out datasets in which each P is best or tied for best: "
            f"{shares}. Paired: " + ("; ".join(against) or "it is the main P") + ".")
    lines.append("")
    if p_rows:
        lines.append("Paired evidence for the best P (same held-out datasets, MIL at the best "
                     "P against the main P and against P = 0):\n")
        lines.append(paired_table(p_rows, n_boot) + "\n")
    stem = f"recommend_{store_tag}_{tag}"
    figs = {
        "time": loss_curves_figure(loss_curve_data(main, axis="time"), axis="time",
                                   title=label),
        "tests": loss_curves_figure(loss_curve_data(main, axis="tests"), axis="tests",
                                    title=label),
        "cd": critical_difference_diagram(cd.average_ranks.set_index("algorithm")["score"],
                                          cd.cd, cd.groups,
                                          title=f"Strategies by MIL ({label})"),
        "p": time_weight_figure(sweep, title=condition.label.rsplit(", P", 1)[0]),
    }
    for kind, fig in figs.items():
        fig.savefig(figures_dir / f"{stem}_{kind}.png", dpi=90)
    lo, hi = main.time_range
    lines.append(f"![Loss against time]({figures_dir.name}/{stem}_time.png)\n"
                 f"![Loss against tests]({figures_dir.name}/{stem}_tests.png)\n"
                 f"![Critical difference]({figures_dir.name}/{stem}_cd.png)\n"
                 f"![MIL against P]({figures_dir.name}/{stem}_p.png)\n")
    lines.append(f"*Loss against time (log scale, MIL interval [{lo:g}, {hi:g}] s), against "
                 "the number of tests, the strategies' critical-difference diagram on MIL, "
                 "and MIL against P (95% bootstrap intervals).*\n")
    top = sorted({n for g in cd.groups if best in g for n in g} | {best})
    best_p = {s_: table[s_].idxmin() for s_ in ("average-ranking", "active-testing")}
    return "\n".join(lines), {"winner": best, "first": first, "top": top, "best_p": best_p,
                              "winner_supported": runner["supported"], "runner_up": second}


def store_section(path, store, copy, describe_seconds, n_boot, figures_dir, clock):
    tag = Path(path).stem
    info = store.datasets()
    algorithms = store.algorithms()["name"].tolist()
    config = store.study_config() or {}
    groups = store.metafeature_groups()
    lines = [f"## Store `{path}`\n"]
    lines.append(
        f"{len(info)} datasets ({info['family'].nunique()} families), {len(algorithms)} "
        f"algorithms ({', '.join(algorithms[:12])}{', ...' if len(algorithms) > 12 else ''}), "
        f"{config.get('folds', '?')}-fold cross-validation, seed {config.get('seed', '?')}. "
        f"Time axis: the tasks' and descriptions' **{clock}** seconds.\n")
    if copy is not None:
        lines.append(f"The store has no meta-feature cache: it was copied to `{copy}` and "
                     f"its datasets described there (pymfe groups and landmarkers: "
                     f"{groups['wall'].sum():.0f} s wall, {groups['cpu'].sum():.0f} s CPU in "
                     f"all; {describe_seconds:.0f} s of this run).\n")
    not_ok = groups[groups["status"] != "ok"]
    per_dataset = groups.groupby(["kind", "dataset"])[clock].sum()
    pymfe, land = per_dataset.loc["pymfe"], per_dataset.loc["landmarker"]
    largest = info.set_index("name")["n_instances"].idxmax()
    failures = "; ".join(f"{r.dataset} {r.group}: {r.status}"
                         for r in not_ok.itertuples(index=False))
    lines.append(
        f"Describing a dataset ({clock} seconds): pymfe median {pymfe.median():.2f} s, "
        f"max {pymfe.max():.1f} s ({pymfe.idxmax()}); landmarkers median {land.median():.2f} s, "
        f"max {land.max():.1f} s ({land.idxmax()}); on the largest dataset, {largest}: "
        f"{pymfe.get(largest, float('nan')):.1f} s and {land.get(largest, float('nan')):.1f} s. "
        f"Groups not computed: {len(not_ok)}" + (f" ({failures})" if failures else "") + ".\n")
    winners = {}
    for tag_c, spec in CONDITIONS:
        condition = Condition(**spec)
        kb = KnowledgeBase.from_store(store, condition, clock=clock)
        per_p = evaluate_condition(kb, condition, n_boot)
        text, result = condition_section(tag_c, tag, kb, condition, per_p, figures_dir, n_boot)
        winners[condition.label.rsplit(", P =", 1)[0]] = result
        lines.append(text)
    lines.insert(3, summary_claims(winners))
    return "\n".join(lines)


def summary_claims(winners):
    """The answers of the store's section, from the per-condition results."""
    names = list(winners)
    common = set.intersection(*(set(w["top"]) for w in winners.values()))
    same = len({w["winner"] for w in winners.values()}) == 1
    if same:
        change = f"No: {winners[names[0]]['winner']} has the lowest MIL under every condition."
    elif common:
        change = ("Not significantly: the strategy with the lowest MIL differs ("
                  + "; ".join(f"{n}: {w['winner']}" for n, w in winners.items())
                  + f"), but {', '.join(sorted(common))} "
                  + ("is" if len(common) == 1 else "are")
                  + " in the winner's Nemenyi group under every condition.")
    else:
        change = ("Yes: " + "; ".join(f"{n}: {w['winner']} (group: {', '.join(w['top'])})"
                                      for n, w in winners.items()) + ".")
    paired_ = "; ".join(
        f"{n}: {w['winner']} over {w['runner_up']} "
        f"{'supported' if w['winner_supported'] else 'not supported'}"
        for n, w in winners.items())
    change += (" Paired evidence (bootstrap over held-out datasets and a sign-flip null) "
               f"that the lowest-MIL strategy beats the runner-up: {paired_}.")
    firsts = "; ".join(f"{n}: {w['first']}" for n, w in winners.items())
    best_p = "; ".join(
        f"{n}: " + ", ".join(f"{s_} P = {p}" for s_, p in w["best_p"].items())
        for n, w in winners.items())
    return (f"**Does the best strategy change with costs?** {change} (MIL at "
            f"P = {p_text(MAIN_P)}.) Best first pick (loss after one test): {firsts}.\n\n"
            f"**The P that works best** (lowest mean MIL over the sweep): {best_p}.\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", action="append", required=True,
                        help="A study store (repeat for several).")
    parser.add_argument("--out", default="docs", help="Folder of recommendation.md.")
    parser.add_argument("--work", default=None, help="Folder for described copies.")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--groups", default=None,
                        help="Comma-separated pymfe groups for stores described here.")
    args = parser.parse_args(argv)
    out = Path(args.out)
    figures = out / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    work = Path(args.work or tempfile.mkdtemp(prefix="metaeval-recommend-"))
    work.mkdir(parents=True, exist_ok=True)
    groups = None if args.groups is None else args.groups.split(",")
    start = time.perf_counter()
    load = os.getloadavg()
    sections = []
    for path in args.store:
        store, copy, seconds = prepare_store(path, work, groups)
        sections.append(store_section(path, store, copy, seconds, args.n_boot, figures,
                                      args.clock))
    versions = ", ".join(f"{p} {importlib.metadata.version(p)}" for p in
                         ("metaeval", "numpy", "scipy", "scikit-learn", "pandas", "pymfe"))
    head = f"""# Recommending algorithms for a new dataset

*Generated by `python {' '.join(['docs/recommend.py', *sys.argv[1:]])}` in
{time.perf_counter() - start:.0f} s (load average at start {load[0]:.1f}); {versions}.*

The question: *here is my dataset, my costs and my patience — which algorithms should I
try, in what order?* Each strategy of `metaeval.recommend` answers it for every dataset of a
study store from the other datasets, holding out the dataset's whole family (ecoli*,
yeast*, ...: tasks cut from the same base data). The held-out dataset's results are read
only as the strategy tests them (a test proves it).

- **Loss** after k tests: success of the best algorithm on the held-out dataset minus that
  of the best tested so far (Leite, Brazdil & Vanschoren 2012). Before the first test
  completes the loss is that of the pool's worst algorithm.
- **Time**: the tests' times plus the time spent describing the dataset (pymfe
  meta-features for knn-metafeatures, cost-sensitive landmarkers for cost-landmarking).
- **MIL**: the mean loss over the log-time interval of the tables (Abdulrahman, Brazdil,
  van Rijn & Vanschoren 2018); **loss@k** after k tests; **closed gap** of the first pick:
  (mean success of the first pick − single best's) / (oracle's − single best's), where the
  single best is the training datasets' best on average.
- **Uncertainty**: 95% percentile bootstrap intervals over held-out datasets
  ({args.n_boot} resamples); each strategy against the random order with a paired Wilcoxon
  signed-rank test; Friedman and Nemenyi over held-out datasets on MIL (Demšar 2006).
  Every "better than" claim comes with paired evidence: the paired bootstrap interval of
  the per-dataset difference and how often a null model (the two sides exchangeable on
  every held-out dataset: random signs of the differences) gives a difference at least as
  favourable; a claim is *supported* when the interval excludes 0, the null gives the
  same verdict in under {100 * ALPHA:g}% of sign flips and the Wilcoxon signed-rank test
  agrees (p < {ALPHA:g}).
- **Reading the tables**: the oracle tests the truly best algorithm first whatever its
  time, so its MIL is no lower bound once time counts; a time-aware strategy often picks a
  cheaper, slightly worse algorithm first, which lowers MIL but gives a negative closed gap
  of the first pick (the first pick's success is below the single best's).
- **Stores**: each store given (`--store`, repeatable) gets its own section below, and
  every table says which store it comes from.
- **Time weight P** of A3R (Abdulrahman & Brazdil 2014): the strategies compare
  algorithms on success / time^P; P = 0 ignores time. The main tables use
  P = {p_text(MAIN_P)}; each condition sweeps P over
  {', '.join(p_text(p) for p in TIME_WEIGHTS)}.

"""
    (out / "recommendation.md").write_text(head + "\n".join(sections))
    print(f"wrote {out / 'recommendation.md'}")


if __name__ == "__main__":
    main()
