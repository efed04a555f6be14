"""``metaeval recommend``: which algorithms to try on a new dataset, and how good that is."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Annotated

import typer

from metaeval.cli._app import (
    _bad_input,
    app,
    err,
    fit_table,
    folds_done,
    out,
    print_table,
    say,
    stage,
    table_width,
)

#: rows shown when --top is not given
DEFAULT_TOP = 10


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
    measure: Annotated[str | None, typer.Option(
        help="Success: accuracy, auc, ... (the ten benchmark metrics) or hardness:<method> "
        "(1 - mean instance hardness) [default: accuracy; with --aslib: the scenario's "
        "first measure].", show_default=False)] = None,
    cost: Annotated[float | None, typer.Option(
        help="Point cost proportion c in [0, 1] (hardness measures).")] = None,
    cost_beta: Annotated[str | None, typer.Option(
        "--cost-beta", help="Beta(A, B) cost distribution as A,B (hardness measures).")] = None,
    time_weight: Annotated[str, typer.Option(
        "--time-weight", help="P of A3R: 0 ignores time; e.g. 1/64.")] = "0",
    strategy: Annotated[str | None, typer.Option(
        help="A strategy (`--evaluate` lists them) [default: auto, one chosen for the "
        "condition on the knowledge base; with --evaluate: all].")] = None,
    top: Annotated[int, typer.Option(
        help="Show the first K algorithms (0: all of them).")] = DEFAULT_TOP,
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
    scored_on: Annotated[str | None, typer.Option(
        "--scored-on", help="With --evaluate: unseen or same. unseen: each held-out "
        "dataset is scored on one repetition of the cross-validation while the oracle "
        "chooses on another (both ways, averaged), so the oracle pays its own noise; "
        "same: scored on the mean over repetitions [default: unseen when the knowledge "
        "base has several repetitions, else same].", show_default=False)] = None,
    feature_costs: Annotated[bool, typer.Option(
        "--feature-costs/--no-feature-costs", help="With --evaluate --aslib: add each "
        "instance's feature costs (feature_costs.arff) to the first pick's runtime of the "
        "strategies that read features, as ASlib evaluations do.")] = True,
    presolved: Annotated[bool | None, typer.Option(
        "--presolved/--no-presolved", help="With --evaluate --aslib and the feature costs "
        "paid: an instance a used feature step presolved (feature_runstatus.arff) counts "
        "as solved in its feature cost for the strategies that compute the features, as "
        "ASlib and LLAMA count it; --no-presolved charges it the picked solver's run "
        "[default: credited when the feature costs are paid].", show_default=False)] = None,
    jobs: Annotated[int | None, typer.Option(
        "--jobs", help="With --evaluate: worker processes, each fitting the strategies "
        "for one held-out family (or fold) at a time; the figures do not depend on it "
        "[default: all cores].", show_default=False)] = None,
    budget: Annotated[str | None, typer.Option(
        "--budget", help="Time to spend on this machine (--time clock): 600, 600s, 10m, "
        "1h, 1.5h. Lists the configurations of the order predicted to fit, with their "
        "predicted times.", show_default=False)] = None,
    adapt: Annotated[str | None, typer.Option(
        "--adapt", help="With the strategy auto: evidence or always. evidence: the order "
        "reads the new dataset only where the stored evaluation of this knowledge base "
        "and condition found auto better than the single best (at P > 0 the time-aware "
        "one) with evidence, else it is the single best's; always: auto's own choice "
        "[default: evidence].", show_default=False)] = None,
) -> None:
    """Recommend the order in which to try algorithms on a new dataset (or --evaluate).

    Without --store or --knowledge, the knowledge base shipped with metaeval answers: 152
    scikit-learn configurations of 16 families run on the 72 datasets of the
    knowledge-base suite (two repetitions of 5-fold cross-validation).
    """
    with _bad_input():
        _check_adapt(adapt, evaluate, aslib, strategy)
        _check_jobs(jobs, evaluate)
        from metaeval.cli._jobs import cap_jobs

        jobs = cap_jobs(jobs)
    n_jobs = -1 if jobs is None else jobs  # every usable core by default
    if aslib is not None:
        from metaeval.cli._aslib import evaluate_aslib_command

        if scored_on is not None:
            with _bad_input():
                raise ValueError("--scored-on goes with --evaluate on a knowledge base or "
                                 "a store, not with --aslib (a scenario has one "
                                 "repetition).")
        if budget is not None:
            with _bad_input():
                raise ValueError("--budget goes with DATA_FILE and a knowledge base or a "
                                 "store, not with --aslib.")

        # measure None: not given (the scenario's first measure)
        evaluate_aslib_command(aslib, evaluate=evaluate, data_file=data_file, measure=measure,
                               cost=cost, cost_beta=cost_beta, time_weight=time_weight,
                               strategy=strategy, json_file=json_file,
                               feature_costs=feature_costs, n_jobs=n_jobs,
                               presolved=presolved)
        return
    if presolved is not None:
        with _bad_input():
            flag = "--presolved" if presolved else "--no-presolved"
            raise ValueError(f"{flag} goes with --evaluate --aslib (an ASlib "
                             "scenario's presolved instances).")
    if not feature_costs:
        with _bad_input():
            raise ValueError("--no-feature-costs goes with --evaluate --aslib (an ASlib "
                             "scenario's feature costs).")
    with _bad_input():
        # the checks of the arguments and files first, before the heavy imports
        _check_arguments(data_file, store, knowledge, evaluate, json_file, clock, top)
        _check_scored_on(scored_on, evaluate)
        seconds = _check_budget(budget, evaluate)
        from metaeval.recommend import Condition

        condition = Condition("accuracy" if measure is None else measure, cost=cost,
                              cost_beta=cost_beta, time_weight=time_weight)
        if evaluate:
            _evaluate(_source(store, knowledge), condition, strategy, json_file, clock,
                      shipped=store is None and knowledge is None, scored_on=scored_on,
                      n_jobs=n_jobs, knowledge_file=knowledge)
            return
        if strategy is not None:
            from metaeval.recommend import get_strategy

            if get_strategy(strategy).needs_truth:
                raise ValueError(f"{strategy} needs the new dataset's true results; choose "
                                 "another strategy to get a recommendation.")
        shipped = store is None and knowledge is None
        source = None  # the shipped knowledge base, read by recommend() (and its advice)
        if not shipped:  # a bad knowledge file or store is said before the data is read
            with stage("Reading the knowledge base" if store is None
                       else f"Reading the study {store}"):
                source = _source(store, knowledge)
        dataset = _read(data_file, target, pos_label)
        _recommend(dataset, source, condition, strategy, top, clock, shipped=shipped,
                   knowledge_file=knowledge, budget=seconds, adapt=adapt)


def _check_arguments(data_file, store, knowledge, evaluate, json_file, clock, top):
    """Every check that needs no heavy import: one ``ValueError`` line for the first
    problem found."""
    from metaeval.cli._files import check_data_file, check_input_file

    if clock not in ("cpu", "wall"):
        raise ValueError(f"--time must be cpu or wall, got {clock!r}.")
    if top < 0:
        raise ValueError(f"--top must be a positive number of algorithms, or 0 for all; "
                         f"got {top}.")
    if store is not None and knowledge is not None:
        raise ValueError("give --store (a study) or --knowledge (a knowledge base), "
                         "not both.")
    if evaluate and data_file is not None:
        raise ValueError("give DATA_FILE to get a recommendation, or --evaluate to "
                         "evaluate the strategies, not both.")
    if not evaluate:
        if data_file is None:
            raise ValueError("missing DATA_FILE (the new dataset), or pass --evaluate.")
        if json_file is not None:
            raise ValueError("--json goes with --evaluate.")
        check_data_file(data_file)
    if store is not None and not os.path.isfile(store):
        raise ValueError(f"the store {store} does not exist (run a study first, or leave "
                         "--store out to use the shipped knowledge base).")
    if knowledge is not None:
        check_input_file(knowledge, "the knowledge base file")
    if json_file is not None:
        from metaeval._validation import check_output_file

        check_output_file(json_file, "--json")
        from metaeval.cli._outputs import check_output

        check_output(json_file, "--json", "json",
                     [(store, "--store"), (knowledge, "--knowledge"), (data_file, "DATA_FILE")])


def _check_adapt(adapt, evaluate, aslib, strategy):
    if adapt is None:
        return
    if adapt not in ("evidence", "always"):
        raise ValueError(f"--adapt must be evidence or always, got {adapt!r}.")
    if evaluate or aslib is not None:
        raise ValueError("--adapt goes with DATA_FILE (a recommendation), not --evaluate "
                         "or --aslib.")
    if strategy is not None and strategy != "auto":
        raise ValueError(f"--adapt goes with the strategy auto (the default), not "
                         f"{strategy}.")


def _check_jobs(jobs, evaluate):
    if jobs is None:
        return
    if jobs < 1:
        raise ValueError(f"--jobs must be a positive integer, got {jobs}.")
    if not evaluate:
        raise ValueError("--jobs goes with --evaluate.")


def _check_budget(budget, evaluate):
    """Seconds of ``--budget`` (None when not given)."""
    if budget is None:
        return None
    from metaeval.recommend.knowledge._budget import parse_budget

    seconds = parse_budget(budget, "--budget")
    if evaluate:
        raise ValueError("--budget goes with DATA_FILE (a recommendation), not --evaluate.")
    return seconds


def _check_scored_on(scored_on, evaluate):
    if scored_on is None:
        return
    if scored_on not in ("unseen", "same"):
        raise ValueError(f"--scored-on must be unseen or same, got {scored_on!r}.")
    if not evaluate:
        raise ValueError("--scored-on goes with --evaluate.")


def _read(data_file, target, pos_label):
    from metaeval.datasets import read_dataset
    from metaeval.datasets._base import check_values

    with stage(f"Reading {data_file.name}"):
        try:
            dataset = read_dataset(data_file, target=target, pos_label=pos_label)
        except ValueError as error:
            if f"target column {target!r} is not in the data" not in str(error):
                raise
            # the command's own way to name it, which the reader cannot know
            raise ValueError(f"{error} Name the class column with --target.") from error
    # what `metaeval run` refuses, refused before any description, the file named
    check_values(dataset.X, dataset.y, target=target, class_names=dataset.class_names,
                 source=f"the file {str(data_file)!r}")
    return dataset


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


def _width() -> int:
    """The width the output must fit: ``COLUMNS`` when it is set (also in a pipe), else
    the terminal's, else that of a pipe (:func:`~metaeval.cli._app.table_width`)."""
    return table_width()


def _say(text: str, width: int) -> None:
    """Print ``text`` wrapped to ``width`` (no line longer, no word cut)."""
    out.print("\n".join(textwrap.wrap(text, width, break_long_words=False,
                                      break_on_hyphens=False)) or "",
              markup=False, highlight=False, soft_wrap=True)


def _notes(notes) -> None:
    """Each note on standard error, wrapped to the output's width."""
    width = _width()
    for note in notes:
        err.print("\n".join(textwrap.wrap(f"Note: {note}", width, break_long_words=False,
                                          break_on_hyphens=False)),
                  markup=False, highlight=False, soft_wrap=True)


def _work(name: str, strategy: str | None) -> str:
    """What the recommendation does, in words: describing the dataset only for a strategy
    that describes it (``strategy`` None: the library's default strategy)."""
    import inspect

    from metaeval.recommend import get_strategy, recommend

    if strategy is None:
        default = inspect.signature(recommend).parameters.get("strategy")
        if default is None or not isinstance(default.default, str):
            return "Ranking the algorithms"
        strategy = default.default
    if strategy == "auto":
        return f"Choosing a strategy (describing {name} if it needs to) and ranking"
    uses = get_strategy(strategy).uses or ()
    uses = (uses,) if isinstance(uses, str) else tuple(uses)
    if not uses:
        return "Ranking the algorithms"
    what = " and ".join({"metafeatures": "meta-features", "landmarks": "landmarkers"}
                        .get(u, u) for u in uses)
    return f"Describing {name} ({what}) and ranking the algorithms"


def _recommend(dataset, source, condition, strategy, top, clock, *, shipped,
               knowledge_file=None, budget=None, adapt=None):
    from metaeval.recommend import recommend

    work = _work(dataset.name, strategy)
    kwargs = {} if strategy is None else {"strategy": strategy}
    if adapt is not None:
        kwargs["adapt"] = adapt
    if budget is not None:
        kwargs["budget"] = budget
    if knowledge_file is not None:  # the evaluations kept beside it, if any
        from metaeval.recommend._advice import evaluations_file

        kwargs["evaluations"] = evaluations_file(knowledge_file)
    with stage(work):
        if shipped:  # read once, for the recommendation and the notes below
            from metaeval.recommend import load_knowledge
            from metaeval.recommend._advice import stored_evaluations

            source = load_knowledge()
            kwargs["evaluations"] = stored_evaluations() or {}
        rec = recommend(dataset, source, condition, clock=clock, **kwargs)
    known = ()
    if shipped:
        # what every call would repeat about the shipped knowledge base: said once, by
        # `metaeval knowledge show`
        known = source.knowledge_base(condition, clock=clock).notes
    _notes([n for n in rec.notes if n not in known])
    width = _width()
    table = rec.table if top == 0 else rec.table.head(top)
    columns = [("rank", "right"), ("algorithm", "left"), ("score", "right"),
               ("expected\nsuccess", "right"), (f"expected\n{clock} s", "right"),
               (f"cumulative\n{clock} s", "right")]
    rows = [[str(r.rank), str(r.algorithm), _fmt(r.score), f"{r.expected_success:.4f}",
             f"{r.expected_time:.3g}", f"{r.cumulative_time:.3g}"]
            for r in table.itertuples(index=False)]
    title = "\n".join(textwrap.wrap(f"{rec.strategy} for {rec.dataset} ({condition.label})",
                                    width))
    out.print("\n".join(fit_table(title, columns, rows, width=width, wrap=1, keys=2)),
              markup=False, highlight=False, soft_wrap=True)
    chose = rec.selection.get("strategy") if rec.strategy == "auto" else None
    meaning = _SCORE_MEANING.get(chose or rec.strategy, "the strategy's score")
    gave = "whose order auto gave" if rec.selection.get("adapted") is False else \
        "which auto chose"
    _say(f"score: {meaning} (sets the order)" + (f", of {chose}, {gave}"
                                                  if chose else "") + ".", width)
    sd = table["success_sd"].iloc[0] if len(table) else float("nan")
    _say(f"expected success: the mean {condition.label.split(',')[0]} over the "
         f"{len(rec.drivers)} past dataset(s) below"
         + (f" (for the first, {sd:.4f} standard deviation across them)" if sd == sd
            else "") + ", not a prediction for this dataset.", width)
    # what the expected times are for, and what predicted them
    how = (f"predicted from {rec.time_basis}" if rec.time_basis else
           "the geometric mean over those past datasets (their sizes unknown, so not "
           "scaled to this data's)")
    _say(f"expected {clock} s: {rec.time_protocol}, {how}"
         + ("" if rec.plan is not None else "; --budget plans within a time budget") + ".",
         width)
    if rec.advice:  # how far to trust the order: a stored evaluation's sentence, or why
        _say(rec.advice, width)  # none is quoted
    if len(table) < len(rec.table):
        _say(f"The first {len(table)} of {len(rec.table)} algorithms; --top 0 shows all.",
             width)
    shown = ", ".join(rec.drivers[:10]) + (", ..." if len(rec.drivers) > 10 else "")
    _say(f"Driven by {len(rec.drivers)} past dataset(s): {shown}", width)
    if known:
        _say(f"{len(known)} note(s) on the shipped knowledge base: `metaeval knowledge "
             "show`.", width)
    if rec.overhead:
        _say(f"Describing {rec.dataset} took {rec.overhead:.2f} {clock} s.", width)
    if rec.plan is not None:
        _plan(rec, clock, width, shipped, top)


def _plan(rec, clock, width, shipped, top):
    """The configurations to run within the budget, their predicted and cumulative
    times, and the expected best success at the budget."""
    from metaeval.recommend.knowledge._budget import format_seconds

    plan = rec.plan
    out.print("", markup=False)
    shown = plan.table if top == 0 else plan.table.head(top)
    rows = [[str(r.rank), str(r.algorithm), f"{r.predicted_time:.3g}",
             f"{r.cumulative_time:.3g}"] for r in shown.itertuples(index=False)]
    title = "\n".join(textwrap.wrap(
        f"Within a budget of {format_seconds(plan.budget)} ({clock}): "
        f"{len(plan.table)} configuration(s), in the order above", width))
    columns = [("rank", "right"), ("algorithm", "left"), (f"predicted\n{clock} s", "right"),
               (f"cumulative\n{clock} s", "right")]
    if rows:
        out.print("\n".join(fit_table(title, columns, rows, width=width, wrap=1, keys=2)),
                  markup=False, highlight=False, soft_wrap=True)
    else:
        _say(title, width)
    basis = rec.time_basis or "the past datasets' geometric mean time"
    _say(f"Each time is predicted for {plan.protocol} from {basis}, by a model of each "
         "configuration's recorded times on the knowledge base's datasets"
         + (" (on the shipped one, leaving one family out, the median error is a factor "
            "of 1.27, and 1.36 on three files of our own; random forests on dense "
            "numeric data can take several times their prediction)." if shipped else "."),
         width)
    if len(shown) < len(plan.table):
        last = plan.table.iloc[-1]
        _say(f"The first {len(shown)} of the {len(plan.table)} planned (all together "
             f"{last.cumulative_time:.3g} {clock} s); --top 0 shows all.", width)
    if plan.skipped:
        _say(f"Skipped, predicted not to fit in what was left: {len(plan.skipped)} "
             f"configuration(s) (first: {plan.skipped[0]}).", width)
    if rows:
        _say(f"Expected best success at the budget: {plan.expected_best:.4f} (mean over "
             f"the knowledge base's datasets of the best success among these "
             f"configurations; standard deviation {plan.expected_best_sd:.4f}; the whole "
             f"pool's best: {plan.oracle_best:.4f}).", width)
    else:
        _say("No configuration is predicted to fit in this budget.", width)


_SCORE_MEANING = {
    "auto": "the score of the strategy auto chose for this knowledge base",
    "average-ranking": "mean rank of A3R over the past datasets (lower first)",
    "single-best": "mean success over the past datasets",
    "single-best-a3r": "mean log A3R over the past datasets",
    "fast-first": "mean success over the past datasets (the best fast one first)",
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


def _evaluate(source, condition, strategy, json_file, clock, *, shipped, scored_on=None,
              n_jobs=None, knowledge_file=None):
    from metaeval.recommend import KnowledgeArchive, evaluate_recommenders
    from metaeval.recommend._advice import evaluations_file, knowledge_checksum

    checksum, kept = knowledge_checksum(source), None
    if knowledge_file is not None:  # where the evaluation is kept: checked before the work
        from metaeval.recommend._advice import read_evaluations

        kept = evaluations_file(knowledge_file)
        read_evaluations(kept)
    if isinstance(source, KnowledgeArchive):
        source = source.knowledge_base(condition, clock=clock)
    # the shipped knowledge base's own notes: said by `metaeval knowledge show`
    known = source.notes if shipped else ()
    from metaeval.cli._signals import (
        exit_stopped,
        exit_worker_lost,
        stop_on_signals,
        workers_said,
    )
    from metaeval.recommend.evaluation._parallel import WorkerLostError

    try:  # a signal stops the workers too
        with stop_on_signals(), workers_said(), stage(
                "Evaluating the strategies, leaving one family out at a time") as detail:
            ev = evaluate_recommenders(source, condition, strategies=None if strategy is None
                                       else [strategy], clock=clock, scored_on=scored_on,
                                       n_jobs=n_jobs,
                                       progress=folds_done(detail, "families"))
    except KeyboardInterrupt as exc:
        exit_stopped(exc, "nothing was written")
    except WorkerLostError as exc:
        exit_worker_lost(exc)
    _notes([n for n in ev.notes if n not in known])
    lo, hi = ev.time_range
    span = (f"[{lo:.0%}, {hi:.0%}] of the pool's {clock} time on each held-out dataset"
            if ev.time_axis == "relative" else f"[{lo:g}, {hi:g}] {clock} s")
    # the strategies' names whole (a name has no space; the intervals wrap at theirs)
    rows = [[str(row["strategy"]), *(_interval(row, c) for c in (
        "mil", "loss_at_1", "loss_at_3", "loss_at_5", "closed_gap"))]
        for row in ev.summary.to_dict(orient="records")]
    width = _width()
    reps = (f"{ev.n_repetitions} repetitions of the cross-validation" if ev.n_repetitions > 1
            else "one repetition of the cross-validation")
    _say(f"Leave-one-family-out over {ev.per_dataset['dataset'].nunique()} datasets x "
         f"{ev.n_algorithms} algorithms ({condition.label}); MIL over {span}; 95% bootstrap "
         f"intervals; {reps}, scored on the {ev.scored_on}", width)
    print_table("", [(h, "left") for h in ("strategy", "MIL", "loss@1", "loss@3", "loss@5",
                                            "closed gap")], rows)
    if ev.scored_on == "unseen repetition":
        _say("Loss: on one repetition, the success of the algorithm best on the other "
             "repetitions (the oracle's pick) minus that of the one kept, the best tested "
             "so far on the other repetitions, averaged over the repetitions; the "
             "oracle's is 0, another's can be negative (the oracle pays its own noise; "
             "before the first test: that minus the worst). The random order's loss@k is "
             "exact, its MIL from 10,000 orders.", width)
    else:
        _say("Loss: best success on the dataset minus the best tested so far (before the "
             "first test: best minus worst). The random order's loss@k is exact, its MIL "
             "from 10,000 orders.", width)
    _budgets(ev, clock, width)
    if ev.comparisons is not None and len(ev.comparisons):
        comp = ev.comparisons
        supported = comp[comp["supported"]]
        _say(f"{len(comp)} paired comparisons (families resampled, Holm-corrected); "
             f"supported claims ({len(supported)}):", width)
        for r in supported.itertuples(index=False):
            say(f"  {r.a} has lower {r.measure} than {r.b}: by {r.difference:.4f} "
                f"[{r.low:.4f}, {r.high:.4f}], Holm p = {r.p_holm:.3g}")
    cd = ev.critical_difference
    if cd is not None:
        groups = "; ".join(", ".join(g) for g in cd.groups) or "none"
        _say(f"Friedman p = {cd.friedman.p_value:.3g}; Nemenyi CD = {cd.cd:.2f}; "
             f"not significantly different: {groups}", width)
    if known:
        _say(f"{len(known)} note(s) on the shipped knowledge base: `metaeval knowledge "
             "show`.", width)
    if kept is not None:
        from metaeval.recommend._advice import store_evaluation

        _, said = store_evaluation(kept, ev, checksum)
        _say(f"Evaluation kept in {kept}" + (f" ({said})" if said else "")
             + f"; `metaeval recommend DATA --knowledge {knowledge_file}` quotes it under "
             "the same condition and clock.", width)
    if json_file is not None:
        from metaeval._validation import json_text, write_atomic

        write_atomic(json_file, json_text(ev.to_json()) + "\n", "--json",
                     make_parents=True)
        out.print(f"JSON written to {json_file}", markup=False)


def _budgets(ev, clock, width):
    """The losses at the budgets (seconds per held-out dataset): a table of strategies by
    budget, what counts, and the primary comparisons of auto at each budget."""
    summary = ev.budget_summary
    if not ev.budgets or summary is None or not len(summary):
        return
    names = list(dict.fromkeys(summary["strategy"]))
    cells = {(r["strategy"], r["budget"]): r for r in summary.to_dict(orient="records")}
    rows = [[name, *(_interval({"v": cells[name, b]["loss"], "v_low": cells[name, b]["low"],
                                "v_high": cells[name, b]["high"]}, "v")
                     for b in ev.budgets)] for name in names]
    print_table("", [("strategy", "left"), *((f"loss in {b:g} {clock} s", "left")
                                             for b in ev.budgets)], rows)
    _say(f"Loss at a budget of {clock} seconds per dataset: each strategy's order run with "
         "the recorded times, after its own description time; a configuration that does "
         "not fit in what is left is skipped (as recommend --budget skips one predicted "
         "not to fit) and the next tried; the loss is that of the one kept, against the "
         "best the budget allows (the oracle's: 0). single-best-budget: the best "
         "configuration that fits the budget on the training datasets first, then the "
         "single best's order.", width)
    comp = ev.budget_comparisons
    if comp is not None and len(comp):
        primary = comp[comp["family"] == "primary"]
        if len(primary):
            _say(f"At each budget, auto against the time-aware single best (Holm-corrected "
                 f"over the {len(primary)}; difference b - a, positive: auto lower):", width)
        for r in primary.itertuples(index=False):
            verdict = ("lower with evidence" if r.supported else
                       "worse beyond its interval" if r.high < 0 else "not shown to differ")
            say(f"  {r.a} vs {r.b}, {r.measure}: {r.difference:.4f} [{r.low:.4f}, "
                f"{r.high:.4f}], Holm p = {r.p_holm:.3g}: {verdict}")


def _interval(row, column):
    value, low, high = row[column], row[f"{column}_low"], row[f"{column}_high"]
    if value != value:  # NaN
        return "-"
    return f"{_four(value)} [{_four(low)}, {_four(high)}]"


def _four(value) -> str:
    """4 decimals, never ``-0.0000`` (a rounding error of a value that is zero by
    construction, such as the single best's closed gap)."""
    text = f"{value:.4f}"
    return text[1:] if text == "-0.0000" else text
