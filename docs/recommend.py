"""Generate ``docs/recommendation.md``: which strategy recommends best, under which condition.

Usage::

    python docs/recommend.py --out docs/                                  # shipped knowledge
    python docs/recommend.py --store quick.duckdb --aslib ../shared/aslib/OPENML-WEKA-2017

Every recommendation strategy of :mod:`metaeval.recommend` is evaluated
leave-one-family-out on the knowledge base shipped with metaeval (72 datasets x 152
configurations, two repetitions of the cross-validation; or ``--knowledge FILE``), under
accuracy and two cost-sensitive conditions, each at A3R time weights P = 0 and P = 1/64;
optionally on a study store (``--store``, described if needed in a copy) and on an ASlib
scenario with its own folds (``--aslib``). Every sentence that states a result is
computed from the evaluation; every "better than" claim carries its paired evidence over
families and a sign-flip null. With a knowledge base of several repetitions of the
cross-validation, the tables score each held-out dataset on a repetition its oracle did
not choose on (the default of ``evaluate_recommenders``), and a table beside them gives
the figures scored on the same repetition (the mean). The pre-registered primary
comparisons (per condition of the shipped knowledge base: at P = 0, ``auto`` and each
learner against the single best on loss@1; where time counts, P > 0, ``auto`` against
the time-aware single best on loss@1 and MIL, ``docs/baselines.md``) are Holm-corrected
as one family; every other comparison (against the single best, the time-aware single
best, the fast-first and the random order) is exploratory, Holm-corrected over its own
family. Times are CPU seconds, on a relative axis (fractions of the whole pool's time on
each held-out dataset); the losses at budgets of 1, 10, 60 and 600 CPU-s per dataset
(``docs/budgets.md``) are tabled at P = 1/64. No machine path is printed.

With the shipped knowledge base (no ``--knowledge``), it also writes the figures that
``recommend`` quotes in its advice, ``src/metaeval/recommend/data/evaluations.json``
(``--evaluations FILE`` elsewhere, ``--no-evaluations`` not at all): deterministic, the
same bytes for the same knowledge base and metaeval.
"""

from __future__ import annotations

import argparse
import importlib.metadata
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
    load_knowledge,
)
from metaeval.recommend._advice import CONDITIONS, TIME_WEIGHTS, evaluations_document
from metaeval.recommend.evaluation._summary import N_NULL, best_versus, holm_by_family
from metaeval.store import Store

# The operating conditions evaluated, (short name, Condition fields), and the A3R time
# weights of the main tables: CONDITIONS and TIME_WEIGHTS, those whose evaluations
# recommend's advice quotes (metaeval.recommend._advice).
#: Where the ASlib results live when no scenario is evaluated here.
ASLIB_POINTER = (
    "\n## ASlib scenarios\n\n"
    "Every shared ASlib scenario (Bischl et al. 2016), each evaluated on its own\n"
    "cross-validation folds beside the published LLAMA results, with and without the\n"
    "instances' feature costs: [aslib.md](aslib.md) (`python benchmarks/bench_aslib.py\n"
    "--markdown docs/aslib.md`).\n")
#: The weights of the descriptive sweep (not a choice: it is read on the evaluation data).
SWEEP = (0.0, 1 / 256, 1 / 64, 1 / 16, 1 / 4)
ALPHA = 0.05
#: The share of the single-best -> oracle gap a strategy's first pick must close.
GAP_TARGET = 0.30


def p_text(p):
    if p == 0:
        return "0"
    inverse = 1 / p
    return f"1/{round(inverse)}" if abs(inverse - round(inverse)) < 1e-9 else f"{p:g}"


def markdown_table(frame, index=True):
    frame = frame.reset_index() if index else frame
    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(_cell(v) for v in row) + " |"
            for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def _cell(v):
    if isinstance(v, (float, np.floating)):
        return "–" if not np.isfinite(v) else f"{v:.4f}"
    return str(v)


def interval(row, column, pct=False):
    v, lo, hi = row[column], row[f"{column}_low"], row[f"{column}_high"]
    if not np.isfinite(v):
        return "–"
    if pct:
        def cent(x):  # never "-0.0%" (rounding of a gap that is zero by construction)
            text = f"{100 * x:+.1f}%"
            return "+0.0%" if text == "-0.0%" else text
        return f"{cent(v)} [{cent(lo)}, {cent(hi)}]"
    return f"{v:.4f} [{lo:.4f}, {hi:.4f}]"


def summary_table(ev):
    rows = []
    for r in ev.summary.to_dict(orient="records"):
        rows.append({
            "strategy": r["strategy"],
            "loss@1": interval(r, "loss_at_1"),
            "loss@3": f"{r['loss_at_3']:.4f}",
            "loss@5": f"{r['loss_at_5']:.4f}",
            "loss at 1% / 10% / 100% of the pool's time": " / ".join(
                f"{r[f'loss_at_time_{t:g}']:.4f}" for t in (0.01, 0.1, 1.0)),
            "MIL": interval(r, "mil"),
            "closed gap (first pick)": interval(r, "closed_gap", pct=True),
        })
    return markdown_table(pd.DataFrame(rows), index=False)


def evaluate_all(kb, n_boot, label, n_jobs=None):
    """{(tag, P): evaluation} for every condition and P of the main tables."""
    out = {}
    for tag, spec in CONDITIONS:
        condition = Condition(**spec)
        scored = kb(condition) if callable(kb) else kb
        for p in TIME_WEIGHTS:
            out[tag, p] = evaluate_recommenders(scored, condition.replace(time_weight=p),
                                                n_boot=n_boot, alpha=ALPHA, n_jobs=n_jobs)
        print(f"{label}: {condition.label.split(', P')[0]} evaluated", file=sys.stderr)
    return out


def comparisons_of(evals, source):
    frames = []
    for (_tag, p), ev in evals.items():
        c = ev.comparisons.copy()
        c.insert(0, "P", p_text(p))
        c.insert(0, "condition", ev.condition.label.split(", P")[0])
        c.insert(0, "source", source)
        frames.append(c)
    return pd.concat(frames, ignore_index=True)


def baseline_of(p, names):
    """The baseline of the primary comparisons at time weight ``p``: the single best at
    P = 0, the time-aware single best where time counts (when it was evaluated)."""
    return "single-best-a3r" if p > 0 and "single-best-a3r" in names else "single-best"


def target_rows(evals, comparisons):
    """Per setting: ``auto`` against the baseline of the primary comparisons (the single
    best at P = 0, the time-aware single best at P > 0), and the best other first pick
    against the single best with its p-value adjusted for having been picked as the
    best."""
    rows = []
    for (_tag, p), ev in evals.items():
        s = ev.summary.set_index("strategy")
        label = ev.condition.label.split(", P")[0]
        base = baseline_of(p, s.index)
        c = comparisons[(comparisons["condition"] == label) & (comparisons["P"] == p_text(p))
                        & (comparisons["a"] == "auto") & (comparisons["b"] == base)
                        & (comparisons["measure"] == "loss_at_1")].iloc[0]
        contenders = [n for n in s.index if n not in ("oracle", "single-best", "random",
                                                      "auto")]
        best = best_versus(ev.per_dataset, contenders, n_boot=1000, seed=0)
        chosen = ev.chosen("auto")
        gap = s.loc["auto", "closed_gap"]
        rows.append({
            "condition": label, "P": p_text(p),
            "baseline": base,
            "baseline loss@1": f"{s.loc[base, 'loss_at_1']:.4f}",
            "auto loss@1": f"{s.loc['auto', 'loss_at_1']:.4f}",
            "auto closed gap": interval(s.loc["auto"], "closed_gap", pct=True),
            "auto vs baseline [95%]": f"{c['difference']:+.4f} [{c['low']:+.4f}, "
                                      f"{c['high']:+.4f}]",
            f"Holm p ({c['family']})": f"{c['p_holm_document']:.3g}",
            "supported": "yes" if c["supported_document"] else "no",
            "auto chose (held-out datasets)": ", ".join(
                f"{k} {v}" for k, v in sorted(chosen.items(), key=lambda kv: -kv[1])),
            "best other first pick": f"{best['strategy']} {best['difference']:+.4f}, "
                                     f"p = {best['p_selected']:.2g} adjusted for the pick "
                                     f"of {best['n_contenders']} ({best['p_unadjusted']:.2g}"
                                     " unadjusted)",
            f"auto closes ≥ {GAP_TARGET:.0%}": "yes" if gap >= GAP_TARGET else "no",
        })
    return pd.DataFrame(rows)


def comparison_table(comparisons, source):
    part = comparisons[comparisons["source"] == source]
    rows = [{"condition": r.condition, "P": r.P, "claim": f"{r.a} < {r.b} ({r.measure})",
             "difference [95%]": f"{r.difference:+.4f} [{r.low:+.4f}, {r.high:+.4f}]",
             "wins/losses/ties (families)": f"{r.wins}/{r.losses}/{r.ties}",
             "Wilcoxon p": f"{r.p_wilcoxon:.2g}", "sign-flip p": f"{r.p:.2g}",
             "family": r.family, "Holm p (its family)": f"{r.p_holm_document:.2g}",
             "supported": "yes" if r.supported_document else "no"}
            for r in part.itertuples(index=False)]
    return markdown_table(pd.DataFrame(rows), index=False)


def figures(evals, tag, source_tag, figures_dir):
    from metaeval.report._recommend import loss_curve_data, loss_curves_figure

    ev = evals[tag, 1 / 64]
    label = ev.condition.label
    stem = f"recommend_{source_tag}_{tag}"
    for axis in ("time", "tests"):
        fig = loss_curves_figure(loss_curve_data(ev, axis=axis), axis=axis, title=label)
        fig.savefig(figures_dir / f"{stem}_{axis}.png", dpi=90)
    return (f"![Loss against the pool's time]({figures_dir.name}/{stem}_time.png)\n"
            f"![Loss against tests]({figures_dir.name}/{stem}_tests.png)\n\n"
            f"*{label}: mean loss over held-out datasets against the fraction of the pool's "
            "CPU time spent (log scale; the description time counts first) and against the "
            "number of tests.*\n")


def budget_section(evals):
    """Per condition at P = 1/64: every strategy's loss at each budget, and ``auto``
    against the time-aware single best there (Holm-corrected within the evaluation)."""
    rows, verdicts = [], []
    for tag, _ in CONDITIONS:
        ev = evals.get((tag, 1 / 64))
        if ev is None or ev.budget_summary is None or not len(ev.budget_summary):
            continue
        label = ev.condition.label
        cells = {(r["strategy"], r["budget"]): r
                 for r in ev.budget_summary.to_dict(orient="records")}
        for name in dict.fromkeys(ev.budget_summary["strategy"]):
            rows.append({"condition": label, "strategy": name, **{
                f"{b:g} s": interval({"v": cells[name, b]["loss"],
                                      "v_low": cells[name, b]["low"],
                                      "v_high": cells[name, b]["high"]}, "v")
                for b in ev.budgets}})
        comp = ev.budget_comparisons
        if comp is not None and len(comp):
            for r in comp[comp["family"] == "primary"].itertuples(index=False):
                verdicts.append(f"{label}, {r.measure.split('_')[-1]}: {r.difference:+.4f} "
                                f"[{r.low:+.4f}, {r.high:+.4f}]")
    if not rows:
        return ""
    return ("### Losses at time budgets (P = 1/64)\n\n"
            "The loss at a budget of CPU seconds per held-out dataset: each order run with "
            "the recorded times, after the strategy's description time; a configuration "
            "that does not fit in what is left is skipped and the next tried (the rule of "
            "`recommend --budget`); the loss is the success of the configuration the "
            "oracle runs within the budget minus that of the one kept, on the unseen "
            "repetition (the oracle's is 0). `single-best-budget`: the best configuration "
            "that fits the budget on the training datasets first, then the single best's "
            "order. 95 % intervals over families. The pre-registered family (auto against "
            "the time-aware single best at each budget and condition, Holm over the 12) "
            "and its verdict: `docs/budgets.md`.\n\n"
            + markdown_table(pd.DataFrame(rows), index=False) + "\n\n"
            "auto against the time-aware single best (the latter's loss minus auto's, "
            "positive favours auto; 95 % interval over families): "
            + "; ".join(verdicts) + ".\n")


def sweep_table(kb, n_jobs=None):
    rows = []
    for _tag, spec in CONDITIONS:
        condition = Condition(**spec)
        scored = kb(condition) if callable(kb) else kb
        for p in SWEEP:
            ev = evaluate_recommenders(scored, condition.replace(time_weight=p), n_boot=10,
                                       strategies=["average-ranking", "active-testing"],
                                       compare=False, n_jobs=n_jobs)
            s = ev.summary.set_index("strategy")
            rows.append({"condition": condition.label.split(", P")[0], "P": p_text(p),
                         **{f"MIL {n}": s.loc[n, "mil"] for n in s.index},
                         **{f"loss@1 {n}": s.loc[n, "loss_at_1"] for n in s.index}})
    return markdown_table(pd.DataFrame(rows), index=False)


def noise_paragraph(kb):
    """Why the first pick is hard to improve: the single best's gap against sampling noise.

    Under accuracy, each configuration's accuracy on a dataset of n instances has a binomial
    standard error sqrt(a (1 - a) / n); computed on every dataset with the single best of
    the other families (as in the evaluation).
    """
    fam = np.array(kb.families)
    gaps, ses, near = [], [], []
    for i in range(len(kb.datasets)):
        j = int(np.argmax(kb.success[fam != fam[i]].mean(axis=0)))
        best = kb.success[i].max()
        se = np.sqrt(best * (1 - best) / max(int(kb.n_instances[i]), 1))
        gaps.append(best - kb.success[i, j])
        ses.append(se)
        near.append(int(np.sum(kb.success[i] >= best - se)))
    gaps, ses = np.array(gaps), np.array(ses)
    return (
        "**Why the first pick is hard to improve on** (accuracy, from the knowledge base): "
        f"the single best's mean loss@1 is {gaps.mean():.4f}, against a mean binomial "
        f"standard error of the best configuration's accuracy of {ses.mean():.4f}; the "
        f"single best is within one standard error of the best on "
        f"{np.mean(gaps <= ses):.0%} of the datasets and within two on "
        f"{np.mean(gaps <= 2 * ses):.0%}, and a median of {np.median(near):.0f} "
        "configurations lie within one standard error of each dataset's best. Most of the "
        "gap a learner could close is noise of the cross-validation estimate itself.\n")


def source_section(title, intro, evals, comparisons, source, source_tag, figures_dir,
                   sweep, why=None):
    lines = [f"## {title}\n", intro]
    lines.append("### Can `auto` beat the baseline at the first pick?\n")
    lines.append(
        "For each setting, `auto` (the strategy of `recommend` by default, whose order "
        "reads the new dataset only where this evaluation supports it: per training set, "
        "the Borda vote of its learners' orders, left for a candidate that reads nothing -- "
        "the single best, the zero-shot portfolio, the average ranking -- only when that "
        "one's inner leave-one-family-out losses are lower by Wilcoxon's one-sided "
        "signed-rank test over families at 0.05 / 3) against "
        "the baseline of the pre-registered comparisons: at P = 0 the single best (the "
        "training datasets' best on average), where time counts (P > 0) the time-aware "
        "single best (the best mean log A3R, `docs/baselines.md`): the closed gap of its "
        "first pick with a bootstrap interval over "
        "families, and the pre-registered paired comparison of loss@1 over families, "
        "Holm-corrected over the primary family. *auto chose*: how many held-out datasets "
        "were ranked by each strategy it chose on their fold. *Best other first pick*: the "
        "non-oracle strategy with the lowest loss@1, its difference to the single best and "
        "the sign-flip p-value of the best of all of them (max-T, Westfall & Young 1993), "
        "which does not count the luck of picking the best of many as evidence.\n")
    lines.append(markdown_table(target_rows(evals, comparisons[comparisons["source"]
                                                               == source]), index=False)
                 + "\n")
    if why is not None:
        lines.append(why)
    for tag, _ in CONDITIONS:
        for p in TIME_WEIGHTS:
            ev = evals[tag, p]
            lines.append(f"### {ev.condition.label}\n")
            if ev.notes:
                lines.append("Notes: " + "; ".join(ev.notes) + ".\n")
            lines.append(summary_table(ev) + "\n")
        lines.append(figures(evals, tag, source_tag, figures_dir))
    lines.append(budget_section(evals))
    lines.append(f"### Every comparison ({source})\n")
    lines.append(
        "Each strategy against the single best, the time-aware single best, the fast-first "
        "order and the random order, on loss@1 and MIL; difference = the second minus the "
        "first (positive favours the first), averaged over families; interval: paired "
        "bootstrap over families; sign-flip p: how "
        f"often a null model (the two exchangeable in every family) gives a difference at "
        f"least as favourable ({N_NULL:,} random sign patterns: the smallest p it can give "
        f"is {1 / (N_NULL + 1):.0e}); *family*: primary (pre-registered) or exploratory; "
        "Holm p: corrected within its family over the whole document; *supported*: "
        "interval above 0, Holm p below 0.05 and Wilcoxon p below 0.05.\n")
    lines.append(comparison_table(comparisons, source) + "\n")
    if sweep is not None:
        lines.append("### The time weight P, described (not chosen)\n")
        lines.append(
            "MIL and loss@1 of average ranking and active testing at several P. These are "
            "read on the evaluation data itself, so no P is *chosen* here: a P picked from "
            "this table would be tuned on what it is judged on. (The learners choose their "
            "own hyperparameters by an inner leave-one-family-out on training datasets.)\n")
        lines.append(sweep + "\n")
    return "\n".join(lines)


def scoring_section(kb, evals, comparisons, n_boot, n_jobs=None):
    """The figures scored on the unseen and on the same repetition, side by side: the
    pre-registered primary comparisons of every condition and P, then each strategy's
    losses at P = 0.

    ``kb``: condition -> knowledge base; ``evals``: the main tables' evaluations (scored
    as :func:`evaluate_recommenders` does by default); ``comparisons``: the document's,
    Holm-corrected. The same-repetition evaluations refit nothing that differs (the
    strategies learn from the training datasets' mean over repetitions either way); their
    primary comparisons are Holm-corrected as one family of their own.
    """
    first = next(iter(evals.values()))
    title = "### Scored on an unseen repetition, or on the same one\n"
    if first.n_repetitions < 2:
        return (f"{title}\nThis knowledge base holds one repetition of the "
                "cross-validation, so the tables score each held-out dataset on the same "
                "results its oracle chose on (the oracle's own noise then favours it). A "
                "knowledge base of two repetitions is scored on the unseen one by default: "
                "the truth is one repetition, the oracle chooses on the other, both ways "
                "averaged.\n")
    same = {}
    for tag, spec in CONDITIONS:
        condition = Condition(**spec)
        for p in TIME_WEIGHTS:
            same[tag, p] = evaluate_recommenders(
                kb(condition), condition.replace(time_weight=p), n_boot=n_boot,
                alpha=ALPHA, scored_on="same repetition", n_jobs=n_jobs)
        print(f"same repetition: {condition.label.split(', P')[0]} evaluated",
              file=sys.stderr)
    same_c = comparisons_of(same, "knowledge, same repetition")
    same_c = holm_by_family(same_c[same_c["family"] == "primary"].copy(), ALPHA)
    unseen_c = comparisons[(comparisons["source"] == "knowledge")
                           & (comparisons["family"] == "primary")]
    key = ["condition", "P", "a", "b", "measure"]
    both = unseen_c.merge(same_c, on=key, suffixes=("_u", "_s"), validate="one_to_one")

    def cell(r, end, holm):
        return (f"{r['difference' + end]:+.4f} [{r['low' + end]:+.4f}, "
                f"{r['high' + end]:+.4f}], Holm p {r[holm]:.2g}"
                + (", **supported**" if r[("supported_document" if end == "_u" else
                                            "supported_s")] else ""))

    primary = [{"condition": r["condition"], "P": r["P"],
                "comparison": f"{r['a']} vs {r['b']}, {r['measure'].replace('_at_', '@')}",
                "unseen repetition (the tables)": cell(r, "_u", "p_holm_document"),
                "same repetition": cell(r, "_s", "p_holm_s")}
               for _, r in both.iterrows()]
    n_supported = (int(both["supported_document"].sum()), int(both["supported_s"].sum()))
    rows = []
    for tag, spec in CONDITIONS:
        condition = Condition(**spec)
        unseen = evals[tag, 0.0].summary.set_index("strategy")
        once = same[tag, 0.0].summary.set_index("strategy")
        for name in unseen.index:
            rows.append({
                "condition": condition.label, "strategy": name,
                "loss@1, unseen": interval(unseen.loc[name], "loss_at_1"),
                "loss@1, same": interval(once.loc[name], "loss_at_1"),
                "MIL, unseen": interval(unseen.loc[name], "mil"),
                "MIL, same": interval(once.loc[name], "mil"),
                "closed gap, unseen": interval(unseen.loc[name], "closed_gap", pct=True),
                "closed gap, same": interval(once.loc[name], "closed_gap", pct=True)})
    return (f"{title}\nThe tables above score each held-out dataset on the unseen "
            f"repetition: with {first.n_repetitions} repetitions of the cross-validation "
            "(new folds and seeds), the truth is one repetition while every choice is made on "
            "the others -- the oracle's, the loss's reference, and after each test the "
            "algorithm kept, the best tested so far -- each way in turn, averaged; the "
            "oracle pays its own noise, its losses are 0 and another's can be negative. "
            "Scored on the same "
            "repetition (the mean over repetitions, the oracle choosing on the truth "
            "itself) the losses are those of a single repetition: the oracle's luck then "
            "counts against every strategy. The strategies are fitted alike both ways "
            "(they learn from the training datasets' mean over repetitions); only the "
            "scoring differs. A difference of loss@1 between two strategies does not depend "
            "on it: the reference (the oracle's success on the scored repetition) is the "
            "same for both and cancels, and the mean over repetitions of a success is its "
            "success on the mean. What the scoring moves is each strategy's own loss, the "
            "gap the closed-gap shares divide by, and MIL through the loss before the first "
            "test.\n\n"
            "**The pre-registered primary comparisons, both ways.** Paired over families "
            "(the difference is the baseline's loss minus the strategy's: positive "
            "favours the strategy; 95 % interval over families). Each column is "
            "Holm-corrected as one family: the unseen column within the document's "
            "primary family, the same-repetition column over its own "
            f"{len(both)} comparisons. Supported: {n_supported[0]} of {len(both)} "
            f"scored on the unseen repetition, {n_supported[1]} of {len(both)} on the "
            "same one.\n\n"
            + markdown_table(pd.DataFrame(primary), index=False) + "\n\n"
            "**Every strategy's losses at P = 0, both ways:**\n\n"
            + markdown_table(pd.DataFrame(rows), index=False) + "\n")


def prepare_store(path, work):
    """The store to read: ``path`` if its datasets are described, else a described copy."""
    store = Store(path)
    if set(store.datasets()["name"]) <= set(store.metafeature_groups()["dataset"]):
        return store
    copy = Path(work) / "described.duckdb"
    shutil.copy2(path, copy)
    describe_store(copy)
    return Store(copy)


def aslib_section(path, n_boot, n_jobs=None):
    from metaeval.recommend import evaluate_aslib, read_aslib

    scenario = read_aslib(path)
    ev = evaluate_aslib(scenario, n_boot=n_boot, n_jobs=n_jobs)
    s = ev.summary
    rows = []
    for r in s.to_dict(orient="records"):
        rows.append({
            "strategy": r["strategy"],
            "gap closed": interval(r, "gap_closed", pct=True),
            "loss@1": f"{r['loss_at_1']:.4f}",
            "loss@3": f"{r['loss_at_3']:.4f}",
            "wins / losses / ties vs SBS": f"{r['wins']} / {r['losses']} / {r['ties']}",
            "Holm p": "–" if not np.isfinite(r["p_holm"]) else f"{r['p_holm']:.3g}",
            "better than SBS": "yes" if r["supported"] else "no",
        })
    kb = scenario.knowledge
    return "\n".join([
        f"## An ASlib scenario: {Path(path).name}\n",
        f"{len(kb.datasets)} instances (datasets), {len(kb.algorithms)} algorithms, "
        f"{kb.metafeatures.shape[1]} meta-features ({int(kb.metafeatures.isna().sum().sum())} "
        f"missing values). Evaluated on the scenario's own `cv.arff` folds, the single best "
        f"(SBS) chosen on the training folds; SBS {ev.sbs:.4f}, virtual best (VBS) "
        f"{ev.vbs:.4f}. Gap closed = (SBS − s) / (SBS − VBS) in the measure's terms, with a "
        f"95% bootstrap interval over instances; paired test of each first pick against the "
        f"SBS's, Holm-corrected over the strategies.\n",
        markdown_table(pd.DataFrame(rows), index=False) + "\n",
        LITERATURE,
    ])


LITERATURE = """**Published reference numbers** on the same scenario (OASC 2017's "Oberon"), from
Lindauer, van Rijn & Kotthoff (2019), "The algorithm selection competitions 2015 and 2017",
*Artificial Intelligence* 272, Table E.9: the remaining gap (0 = VBS, 1 = SBS) of each
submission on the competition's **single hidden train/test split**, shown as gap closed =
1 − remaining gap. Another protocol than the 10-fold table above.

| OASC 2017 submission | remaining gap | gap closed |
|---|---|---|
| Sunny-fkvar | 0.787 | +21.3% |
| Sunny-autok | 0.877 | +12.3% |
| ASAP.v2 (overall winner of OASC 2017) | 0.950 | +5.0% |
| ASAP.v3 | 0.950 | +5.0% |
| \\*Zilla (both variants) | 1.000 | 0.0% |
| AS-RF | 3.798 | −279.8% |
| AS-ASL | 7.233 | −623.3% |
| organisers' baseline, random-forest regression (Section 5.7) | 0.675 | +32.5% |

The same paper (Section 5.7, Fig. 7) reports that this baseline, re-run on many resampled
holdout sets, closed no more than 10% of the gap on half of them: on this scenario a single
split's gap closed is mostly noise.
"""


EVALUATIONS_FILE = (Path(__file__).resolve().parent.parent / "src" / "metaeval" / "recommend"
                    / "data" / "evaluations.json")


def write_evaluations(path, evals, comparisons, knowledge):
    """The figures ``recommend``'s advice quotes, one entry per condition and P, with the
    verdicts of the primary comparisons as corrected in this document."""
    import json

    by_key = {}
    for (tag, p), ev in evals.items():
        label = ev.condition.label.split(", P")[0]
        mine = comparisons[(comparisons["source"] == "knowledge")
                           & (comparisons["condition"] == label)
                           & (comparisons["P"] == p_text(p))].copy()
        mine["p_holm"] = mine["p_holm_document"]
        mine["supported"] = mine["supported_document"]
        by_key[tag, p] = mine
    document = evaluations_document(evals, by_key, knowledge=knowledge)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")


def head(args, seconds, comparisons, scored_on="same repetition", n_repetitions=1):
    versions = ", ".join(f"{p} {importlib.metadata.version(p)}" for p in
                         ("metaeval", "numpy", "scipy", "scikit-learn", "pandas"))
    shown = ["docs/recommend.py"]
    if args.store:
        shown += ["--store", Path(args.store).name]
    if args.aslib:
        shown += ["--aslib", Path(args.aslib).name]
    n_null = N_NULL
    if scored_on == "unseen repetition":
        scoring = (f"**an unseen repetition** (the tables): the knowledge base holds "
                   f"{n_repetitions} repetitions of the\n  cross-validation (new folds and "
                   "seeds); strategies learn from the training datasets' mean, while each\n"
                   "  held-out dataset's truth is one repetition and its best algorithm (the "
                   "oracle's pick,\n  the loss's reference) is chosen on the others, and so is "
                   "the algorithm kept after each\n  test (the best tested so far), each "
                   "way in turn, averaged. The oracle pays its own noise,\n  its losses are "
                   "0 and another's can be negative. The same-repetition figures are given "
                   "beside them.")
    else:
        scoring = ("**the same repetition** (the tables): the knowledge base holds one "
                   "repetition of the\n  cross-validation, so the oracle chooses on the "
                   "results it is scored on.")
    n_primary = int((comparisons["family"] == "primary").sum())
    n_exploratory = len(comparisons) - n_primary
    return f"""# Recommending algorithms for a new dataset

*Generated by `python {' '.join(shown)}` in {seconds:.0f} s; {versions}.*

The question: *here is my dataset, my costs and my patience — which algorithms should I try,
in what order?* Each strategy of `metaeval.recommend` answers it for every dataset of a
knowledge base from the other datasets, holding out the dataset's whole family (ecoli*,
yeast*, ...: tasks cut from the same base data). The held-out dataset's results are read
only as the strategy tests them (a test proves it).

- **Loss** after k tests (**loss@k**): success of the best algorithm on the held-out
  dataset minus that of the best tested so far (Leite, Brazdil & Vanschoren 2012). Before
  the first test completes the loss is that of the pool's worst algorithm (best minus worst
  success): nothing is in hand yet.
- **Scored on** {scoring}
- **Time** is CPU seconds, as a **fraction of the pool's time** on the held-out dataset
  (the time every algorithm of the pool takes there together): curves and MIL then compare
  across datasets and machines. It counts the tests and, first, the description of the
  dataset (pymfe meta-features, cost-sensitive landmarkers) for the strategies that use it.
  Times come from the knowledge base, so the numbers below are identical on every run.
- **MIL**: the mean loss over the log-time interval from 1% to 100% of the pool's time
  (Abdulrahman, Brazdil, van Rijn & Vanschoren 2018); **loss at 1% / 10% / 100%** of the
  pool's time beside loss@1/3/5.
- **Closed gap** of the first pick: (mean success of the first pick − single best's) /
  (oracle's − single best's). The **single best** is the training datasets' best on
  average; the **oracle** tests the truly best algorithm first ("best first"): it is the
  upper end of the closed gap, not a lower bound on MIL once time counts (a strategy that
  starts with a cheap algorithm can have a lower MIL).
- **vs random**: the random order's loss@k is exact (closed form over all orders); its MIL
  and loss at a time come from 10,000 seeded orders (Monte-Carlo error below 0.001).
- **Time weight P** of A3R (Abdulrahman & Brazdil 2014): strategies compare algorithms on
  success / time^P; P = 0 ignores time. The tables use P = 0 and P = 1/64.
- **Evidence**: intervals are 95% percentile bootstrap intervals over **families** (whole
  families of held-out datasets resampled, closed gaps included; in the comparisons the
  datasets of one family are averaged first, so related datasets count once). Every
  "better than" claim is a paired comparison with a sign-flip null ({n_null:,} random
  sign patterns) and a Wilcoxon signed-rank test. **Pre-registered primary family**
  ({n_primary} comparisons): per condition of the shipped knowledge base, at P = 0 `auto`
  and each learner (pairwise, regression, collaborative) against the single best on
  loss@1; where time counts (P > 0) `auto` against the time-aware single best
  (`single-best-a3r`, the best mean log A3R; `docs/baselines.md`) on loss@1 and MIL.
  Holm's correction runs over that family only. The other {n_exploratory} comparisons
  (each strategy against the single best, the time-aware single best, the fast-first
  order and the random order) are exploratory, Holm-corrected over their own family.
- **Budgets**: the loss at 1, 10, 60 and 600 CPU seconds per held-out dataset, each
  order run with the recorded times and a configuration that does not fit in what is
  left skipped, against the best the budget allows (`docs/budgets.md`, whose
  pre-registered family and results are there).

"""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--knowledge", default=None,
                        help="A knowledge base file [default: the shipped one].")
    parser.add_argument("--store", default=None, help="Also a study store.")
    parser.add_argument("--aslib", default=None, help="Also an ASlib scenario folder.")
    parser.add_argument("--out", default="docs", help="Folder of recommendation.md.")
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=-1,
                        help="Worker processes of each evaluation, one held-out family at "
                        "a time; the figures do not depend on it [default: all cores].")
    parser.add_argument("--evaluations", default=str(EVALUATIONS_FILE),
                        help="Where to write the evaluations that recommend quotes.")
    parser.add_argument("--no-evaluations", action="store_true",
                        help="Do not write them.")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    out = Path(args.out)
    figures_dir = out / "figures"
    figures_dir.mkdir(parents=True, exist_ok=True)
    archive = load_knowledge(args.knowledge)
    evals = {"knowledge": evaluate_all(lambda c: archive.knowledge_base(c), args.n_boot,
                                       "knowledge base", args.jobs)}
    store = None
    if args.store:
        work = Path(tempfile.mkdtemp(prefix="metaeval-recommend-"))
        store = prepare_store(args.store, work)
        evals["store"] = evaluate_all(lambda c: KnowledgeBase.from_store(store, c),
                                      args.n_boot, "store", args.jobs)
    comparisons = pd.concat([comparisons_of(e, source) for source, e in evals.items()],
                            ignore_index=True)
    # the primary family is pre-registered on the shipped knowledge base only
    comparisons.loc[comparisons["source"] != "knowledge", "family"] = "exploratory"
    holm_by_family(comparisons, ALPHA)
    comparisons["p_holm_document"] = comparisons["p_holm"]
    comparisons["supported_document"] = comparisons["supported"]
    if args.knowledge is None and not args.no_evaluations:
        write_evaluations(Path(args.evaluations), evals["knowledge"], comparisons,
                          archive.provenance["checksum"])
    name = "the shipped knowledge base" if args.knowledge is None else Path(
        args.knowledge).name
    prov = archive.provenance
    env = (prov.get("runs") or [{}])[0].get("environment", {})
    intro = (
        f"{len(archive.datasets)} datasets ({len(set(archive.families))} families) x "
        f"{len(archive.algorithms)} scikit-learn configurations, "
        f"{(prov.get('study') or {}).get('folds', '?')}-fold cross-validation "
        f"({archive.n_repetitions} repetition{'s' if archive.n_repetitions > 1 else ''}); "
        "results run "
        f"by {env.get('executor', '?')} ({env.get('cpu_model', '?')}, scikit-learn "
        f"{env.get('versions', {}).get('scikit-learn', '?')}), every dataset described "
        f"with pymfe groups and landmarkers under CPU-second budgets "
        f"({(prov.get('description_settings') or {}).get('time_budget', '?')} s a group). "
        f"{prov.get('failed_cells', 0)} failed (dataset, configuration) cells are scored as "
        "the dataset's worst.\n")
    sections = [source_section("The shipped knowledge base" if args.knowledge is None
                               else f"Knowledge base {name}", intro, evals["knowledge"],
                               comparisons, "knowledge", "knowledge", figures_dir,
                               sweep_table(lambda c: archive.knowledge_base(c), args.jobs),
                               noise_paragraph(archive.knowledge_base(Condition()))),
                scoring_section(lambda c: archive.knowledge_base(c), evals["knowledge"],
                                comparisons, args.n_boot, args.jobs)]
    if store is not None:
        info = store.datasets()
        algos = store.algorithms()["name"].tolist()
        intro = (f"{len(info)} datasets ({info['family'].nunique()} families) x {len(algos)} "
                 f"algorithms ({', '.join(algos[:10])}).\n")
        sections.append(source_section(f"A study store: {Path(args.store).name}", intro,
                                       evals["store"], comparisons, "store", "store",
                                       figures_dir, None))
    if args.aslib:
        sections.append(aslib_section(args.aslib, args.n_boot, args.jobs))
    else:
        sections.append(ASLIB_POINTER)
    first = next(iter(evals["knowledge"].values()))
    text = head(args, time.perf_counter() - start, comparisons, first.scored_on,
                first.n_repetitions) + "\n".join(sections)
    (out / "recommendation.md").write_text(text)
    print(f"wrote {out / 'recommendation.md'}")


if __name__ == "__main__":
    main()
