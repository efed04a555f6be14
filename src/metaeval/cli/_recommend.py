"""``metaeval recommend``: which algorithms to try on a new dataset, and how good that is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from metaeval.cli._app import _bad_input, app, err, out, working


@app.command("recommend")
def recommend_command(
    data_file: Annotated[Path | None, typer.Argument(
        help="The new dataset (CSV, TSV, Parquet, ARFF or KEEL).", show_default=False)] = None,
    target: Annotated[str, typer.Option(help="The class column of DATA_FILE.")] = "class",
    pos_label: Annotated[str | None, typer.Option(
        "--pos-label", help="The label of DATA_FILE that becomes class 1 "
        "[default: the minority class].")] = None,
    store: Annotated[Path | None, typer.Option(
        "--store", help="Recommend from a study (its algorithms) instead of the shipped "
        "knowledge base.", show_default=False)] = None,
    knowledge: Annotated[Path | None, typer.Option(
        "--knowledge", help="A knowledge base file (`metaeval knowledge build`) instead of "
        "the shipped one.", show_default=False)] = None,
    measure: Annotated[str, typer.Option(
        help="Success: accuracy, auc, ... (the ten benchmark metrics) or hardness:<method> "
        "(1 - mean instance hardness).")] = "accuracy",
    cost: Annotated[float | None, typer.Option(
        help="Point cost proportion c in [0, 1] (hardness measures).")] = None,
    cost_beta: Annotated[str | None, typer.Option(
        "--cost-beta", help="Beta(A, B) cost distribution as A,B (hardness measures).")] = None,
    time_weight: Annotated[str, typer.Option(
        "--time-weight", help="P of A3R: 0 ignores time; e.g. 1/64.")] = "0",
    strategy: Annotated[str | None, typer.Option(
        help="A strategy (`--evaluate` lists them) [default: average-ranking; with "
        "--evaluate: all].")] = None,
    top: Annotated[int | None, typer.Option(help="Show the first K algorithms.")] = None,
    clock: Annotated[str, typer.Option(
        "--time", help="cpu or wall: which recorded seconds count as time.")] = "cpu",
    evaluate: Annotated[bool, typer.Option(
        "--evaluate", help="Evaluate the strategies leave-one-family-out on the knowledge "
        "base (or --store).")] = False,
    json_file: Annotated[Path | None, typer.Option(
        "--json", help="With --evaluate: write the summary and curves as JSON.")] = None,
    aslib: Annotated[Path | None, typer.Option(
        "--aslib", help="With --evaluate: an ASlib scenario folder, evaluated on its own "
        "cv.arff folds (--measure: one of its performance measures, default the first).")
    ] = None,
) -> None:
    """Recommend the order in which to try algorithms on a new dataset (or --evaluate).

    Without --store or --knowledge, the knowledge base shipped with metaeval answers: 152
    scikit-learn configurations of 16 families run on the 51 built-in datasets.
    """
    from metaeval.recommend import Condition

    if aslib is not None:
        from metaeval.cli._aslib import evaluate_aslib_command

        evaluate_aslib_command(aslib, evaluate=evaluate, data_file=data_file, measure=measure,
                               cost=cost, cost_beta=cost_beta, time_weight=time_weight,
                               strategy=strategy, json_file=json_file)
        return
    with _bad_input():
        if clock not in ("cpu", "wall"):
            raise ValueError(f"--time must be cpu or wall, got {clock!r}.")
        if store is not None and knowledge is not None:
            raise ValueError("give --store (a study) or --knowledge (a knowledge base), "
                             "not both.")
        condition = Condition(measure, cost=cost, cost_beta=cost_beta, time_weight=time_weight)
        source = _source(store, knowledge)
        if evaluate:
            if data_file is not None:
                raise ValueError("give DATA_FILE to get a recommendation, or --evaluate to "
                                 "evaluate the strategies, not both.")
            _evaluate(source, condition, strategy, json_file, clock)
            return
        if data_file is None:
            raise ValueError("missing DATA_FILE (the new dataset), or pass --evaluate.")
        if json_file is not None:
            raise ValueError("--json goes with --evaluate.")
        _recommend(data_file, source, condition, strategy or "average-ranking", top,
                   target, pos_label, clock)


def _source(store, knowledge):
    """The past results to recommend from: a store, a knowledge file, or the shipped one."""
    from metaeval.recommend import load_knowledge
    from metaeval.store import Store

    if store is not None:
        if not Store(store).exists():
            raise ValueError(f"the store {store} does not exist (run a study first, or leave "
                             "--store out to use the shipped knowledge base).")
        return store
    return load_knowledge(knowledge)


def _recommend(data_file, source, condition, strategy, top, target, pos_label, clock):
    from metaeval.datasets import read_dataset
    from metaeval.recommend import recommend

    dataset = read_dataset(data_file, target=target, pos_label=pos_label)
    with working(f"Describing {dataset.name} and ranking the algorithms"):
        rec = recommend(dataset, source, condition, strategy=strategy, top=top, clock=clock)
    for note in rec.notes:
        err.print(f"Note: {note}", markup=False)
    table = Table("rank", "algorithm", "score", "expected success", f"expected {clock} s",
                  f"cumulative {clock} s",
                  title=f"{rec.strategy} for {rec.dataset} ({condition.label})",
                  caption=f"score: {_SCORE_MEANING.get(rec.strategy, 'the strategy score')} "
                  "(sets the order)")
    for row in rec.table.itertuples(index=False):
        table.add_row(str(row.rank), str(row.algorithm), _fmt(row.score),
                      f"{row.expected_success:.4f}", f"{row.expected_time:.3g}",
                      f"{row.cumulative_time:.3g}")
    out.print(table)
    shown = ", ".join(rec.drivers[:10]) + (", ..." if len(rec.drivers) > 10 else "")
    out.print(f"Driven by {len(rec.drivers)} past dataset(s): {shown}", markup=False)
    if rec.overhead:
        out.print(f"Describing {rec.dataset} took {rec.overhead:.2f} {clock} s.", markup=False)


_SCORE_MEANING = {
    "average-ranking": "mean rank of A3R over the past datasets (lower first)",
    "single-best": "mean success over the past datasets",
    "knn-metafeatures": "A3R over the nearest past datasets",
    "cost-landmarking": "A3R over the nearest past datasets",
    "active-testing": "expected A3R gain over the first pick",
    "pairwise": "votes of the pairwise forests among the candidates (the rest: no score, "
                "A3R average-ranking order)",
    "regression": "predicted log A3R relative to the dataset's mean",
    "collaborative": "predicted log A3R of the low-rank model before any test",
    "zero-shot-portfolio": "mean loss of the best so far over the past datasets",
}


def _fmt(value):
    value = float(value)
    return "-" if value != value else f"{value:.4g}"


def _evaluate(source, condition, strategy, json_file, clock):
    from metaeval.recommend import KnowledgeArchive, evaluate_recommenders

    if isinstance(source, KnowledgeArchive):
        source = source.knowledge_base(condition, clock=clock)
    with working("Evaluating the strategies, leaving one family out at a time"):
        ev = evaluate_recommenders(source, condition, strategies=None if strategy is None
                                   else [strategy], clock=clock)
    for note in ev.notes:
        err.print(f"Note: {note}", markup=False)
    lo, hi = ev.time_range
    span = (f"[{lo:.0%}, {hi:.0%}] of the pool's {clock} time on each held-out dataset"
            if ev.time_axis == "relative" else f"[{lo:g}, {hi:g}] {clock} s")
    table = Table("strategy", "MIL", "loss@1", "loss@3", "loss@5", "closed gap",
                  title=f"Leave-one-family-out over {ev.per_dataset['dataset'].nunique()} "
                  f"datasets x {ev.n_algorithms} algorithms ({condition.label}); MIL over "
                  f"{span}; 95% bootstrap intervals",
                  caption="Loss: best success on the dataset minus the best tested so far "
                  "(before the first test: best minus worst). The random order's loss@k is "
                  "exact, its MIL from 10,000 orders.")
    for row in ev.summary.to_dict(orient="records"):
        table.add_row(row["strategy"], *(_interval(row, c) for c in (
            "mil", "loss_at_1", "loss_at_3", "loss_at_5", "closed_gap")))
    out.print(table)
    if ev.comparisons is not None and len(ev.comparisons):
        comp = ev.comparisons
        supported = comp[comp["supported"]]
        out.print(f"{len(comp)} paired comparisons (families resampled, Holm-corrected); "
                  f"supported claims ({len(supported)}):", markup=False)
        for r in supported.itertuples(index=False):
            out.print(f"  {r.a} has lower {r.measure} than {r.b}: by {r.difference:.4f} "
                      f"[{r.low:.4f}, {r.high:.4f}], Holm p = {r.p_holm:.3g}", markup=False)
    cd = ev.critical_difference
    if cd is not None:
        groups = "; ".join(", ".join(g) for g in cd.groups) or "none"
        out.print(f"Friedman p = {cd.friedman.p_value:.3g}; Nemenyi CD = {cd.cd:.2f}; "
                  f"not significantly different: {groups}", markup=False)
    if json_file is not None:
        json_file.parent.mkdir(parents=True, exist_ok=True)
        json_file.write_text(json.dumps(ev.to_json(), indent=1) + "\n")
        out.print(f"JSON written to {json_file}", markup=False)


def _interval(row, column):
    value, low, high = row[column], row[f"{column}_low"], row[f"{column}_high"]
    if value != value:  # NaN
        return "-"
    return f"{value:.4f} [{low:.4f}, {high:.4f}]"
