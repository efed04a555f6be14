"""ASlib scenarios on the command line: ``recommend --evaluate --aslib DIR`` and
``export --aslib DIR``. The options live on those two commands; the work is done here."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from metaeval._validation import check_output_file, write_atomic
from metaeval.cli._app import _bad_input, err, folds_done, out, print_table, say, working
from metaeval.cli._outputs import check_output


@contextmanager
def _one_line():
    """Errors the user can act on as one line (exit 2 through :func:`_bad_input`)."""
    with _bad_input():
        try:
            yield
        except ValueError as exc:
            raise ValueError(" ".join(str(exc).split())) from None


def evaluate_aslib_command(directory: Path, *, evaluate: bool, data_file, measure,
                           cost, cost_beta, time_weight: str, strategy, json_file,
                           feature_costs: bool = True, n_jobs=None,
                           presolved: bool | None = None) -> None:
    """``metaeval recommend --evaluate --aslib DIR [--json OUT]``.

    ``measure`` None means not given (the scenario's first performance measure); any
    other value, ``accuracy`` included, must be one of the scenario's measures.
    ``feature_costs`` False (``--no-feature-costs``) leaves the feature costs out of
    the first picks' runtimes. ``presolved`` (``--presolved/--no-presolved``; None: not
    given) credits instances a feature step presolved as solved in their feature cost
    (:func:`evaluate_aslib`'s ``presolved``; by default whenever the feature costs are
    paid); True needs the feature costs. ``n_jobs``: worker processes over the
    folds (``--jobs``).
    """
    from metaeval.recommend import Condition, evaluate_aslib, read_aslib

    with _one_line():
        if not evaluate or data_file is not None:
            raise ValueError("--aslib DIR goes with --evaluate (and no DATA_FILE): it "
                             "evaluates the strategies on the scenario's own folds.")
        if json_file is not None:  # before minutes of work
            check_output_file(json_file, "--json")
            check_output(json_file, "--json", "json", [(directory, "--aslib")])
        if presolved is True and not feature_costs:
            raise ValueError("--presolved goes with the feature costs paid (without "
                             "them a feature step costs nothing and nothing is credited): "
                             "drop --no-feature-costs or --presolved.")
        if cost is not None or cost_beta is not None:
            raise ValueError("--cost and --cost-beta do not apply to an ASlib scenario (its "
                             "performance measure is already computed).")
        condition = Condition(time_weight=time_weight)
        with working(f"Reading the ASlib scenario {directory}"):
            scenario = read_aslib(directory, measure=measure)
        from metaeval.cli._signals import (
            exit_stopped,
            exit_worker_lost,
            stop_on_signals,
            workers_said,
        )
        from metaeval.recommend.evaluation._parallel import WorkerLostError

        try:  # a signal stops the workers too
            with stop_on_signals(), workers_said(), working(
                    "Evaluating the strategies on the scenario's cv.arff folds") as detail:
                ev = evaluate_aslib(scenario, None if strategy is None else [strategy],
                                    condition=condition, feature_costs=bool(feature_costs),
                                    n_jobs=n_jobs, presolved=presolved,
                                    progress=folds_done(detail))
        except KeyboardInterrupt as exc:
            exit_stopped(exc, "nothing was written")
        except WorkerLostError as exc:
            exit_worker_lost(exc)
        document = ev.json_text() if json_file is not None else None
    for note in ev.notes:
        err.print(f"Note: {note}", markup=False)
    sc = scenario
    unit = "PAR10 (s)" if sc.runtime else sc.measure
    columns = [("strategy", "left"), (f"first pick: {unit}", "right"),
               ("gap closed", "right"), ("gap closed, whole-scenario SBS", "right"),
               ("loss@1", "right"), ("loss@3", "right"),
               ("loss@5", "right")]
    if sc.runtime:
        columns.append(("solved", "right"))
    columns += [("vs SBS: p (Holm)", "right"), ("better than SBS", "left")]
    rows = []
    for r in ev.summary.to_dict(orient="records"):
        cells = [r["strategy"], _interval(r, "performance"), _interval(r, "gap_closed"),
                 _interval(r, "gap_closed_whole_sbs"),
                 *(_interval(r, f"loss_at_{k}") for k in (1, 3, 5))]
        if sc.runtime:
            cells.append(_interval(r, "solved"))
        compared = r["p_holm"] == r["p_holm"]
        cells += [f"{r['p_holm']:.3g}" if compared else "-",
                  ("yes" if r["supported"] else "no") if compared else "-"]
        rows.append(cells)
    k = ev.per_instance["dataset"].nunique()
    reps = len(sc.cv.columns)
    folds = sc.cv.iloc[:, 0].nunique()
    print_table(f"{sc.name}: {k} instances x {len(sc.knowledge.algorithms)} algorithms, "
                f"{reps} repetition(s) of its {folds} cv.arff folds ({sc.measure}, "
                f"{'max' if sc.maximize else 'min'}imised); 95% bootstrap intervals",
                columns, rows)
    extra = ""
    if sc.runtime:
        extra = f"; solved {ev.sbs_solved:.3f} and {ev.vbs_solved:.3f}"
    if ev.feature_costs:
        paid = "first picks of strategies reading features include their feature costs"
        if ev.presolved:
            paid += (", and an instance a feature step presolved counts as solved in its "
                     "feature cost for them (--no-presolved: charged the picked solver's "
                     "run)")
    elif sc.runtime and sc.feature_costs:
        paid = "feature costs left out (--no-feature-costs)"
    else:
        paid = "no feature costs in this scenario"
    say(f"Single best (chosen on each training part): {ev.sbs:.6g}; over the whole scenario "
        f"({ev.sbs_whole_algorithm}): {ev.sbs_whole:.6g}; virtual best: {ev.vbs:.6g}{extra}; "
        f"{paid}. Gap closed = (SBS - s) / (SBS - VBS) on the mean cost; 'better than SBS' "
        "needs the paired interval above 0, the sign-flip null and Holm-corrected Wilcoxon "
        "p below 0.05 (the p shown is that two-sided Wilcoxon test's: a small p alone "
        "does not say which of the two is better).")
    for name in ev.strategies:
        chosen = ev.chosen(name)
        if chosen:
            say(f"{name} chose, per fold on its training instances: " + ", ".join(
                f"{k} for {v} instance(s)" for k, v in chosen.items()) + ".")
        presolvers = dict(ev.presolvers(name))
        if presolvers:
            solved = presolvers.pop("solved by it")
            say(f"{name}'s pre-solving schedule, chosen per fold on its training instances "
                "(run before the features are computed): " + ", ".join(
                    f"{k} before {v} instance(s)" for k, v in presolvers.items())
                + f"; the pre-solver solved {solved}.")
    if json_file is not None:
        with _bad_input():
            _write_json(json_file, document)
        out.print(f"JSON written to {json_file}", markup=False)


def _write_json(path: Path, text: str) -> None:
    """The document's JSON text (:meth:`AslibEvaluation.json_text`), written atomically
    to a regular file."""
    write_atomic(path, text + "\n", "--json", make_parents=True)


def _interval(row, column):
    value, low, high = row[column], row[f"{column}_low"], row[f"{column}_high"]
    if value != value:  # NaN
        return "-"
    return f"{value:.4f} [{low:.4f}, {high:.4f}]"


def export_aslib_command(directory: Path, *, store: Path, measure, cost, cost_beta,
                         time_weight: str, knowledge=None) -> None:
    """``metaeval export --aslib DIR (--store S | --knowledge FILE|shipped) [condition]``.

    ``measure`` None means not given: accuracy.
    """
    from metaeval.recommend import Condition, KnowledgeBase, load_knowledge, write_aslib
    from metaeval.recommend.aslib._aslib_write import check_aslib_target
    from metaeval.store import Store

    with _one_line():
        condition = Condition("accuracy" if measure is None else measure, cost=cost,
                              cost_beta=cost_beta, time_weight=time_weight)
        target = Path(directory)
        check_output(target, "--aslib", "aslib", [(store, "--store"), (knowledge, "--knowledge")])
        check_aslib_target(target)
        if knowledge is not None:
            archive = load_knowledge(None if knowledge == "shipped" else knowledge)
            kb = archive.knowledge_base(condition, clock="cpu")
            source = ("the knowledge base shipped with metaeval" if knowledge == "shipped"
                      else f"the knowledge base {Path(knowledge).name}")
        else:
            if not Path(store).exists():
                raise ValueError(f"the store {store} does not exist.")
            with working(f"Reading {store} under {condition.label}"):
                kb = KnowledgeBase.from_store(Store(store), condition, clock="cpu")
            source = f"the study {Path(store).name}"
        readme = (
            f"Written by metaeval from {source}: {len(kb.datasets)} "
            f"datasets x {len(kb.algorithms)} algorithms.\n"
            f"The first performance measure is the success under {condition.label} "
            f"(higher is better). The A3R time weight P = {condition.time_weight:g} is "
            "not part of it: give it again to `metaeval "
            "recommend --evaluate --aslib DIR --time-weight P`.\n"
            "cpu_time: CPU seconds of the run (fit and predict over the folds).\n"
            f"cv.arff: one repetition, {len(set(kb.families))} folds, one per family "
            "(leave-one-family-out).\n" + "".join(f"Note: {n}\n" for n in kb.notes))
        if kb.metafeatures is None and kb.landmarks is None:
            readme += ("Note: the store's datasets are not described; the only feature "
                       "is n_instances.\n")
        else:
            readme += ("Feature steps: metafeatures (pymfe), landmarks (cost-sensitive "
                       "landmarkers under the condition); their costs are CPU seconds.\n")
        write_aslib(kb, target, readme=readme)
    for note in kb.notes:
        err.print(f"Note: {note}", markup=False)
    if kb.metafeatures is None and kb.landmarks is None:
        err.print("Note: the store's datasets are not described (no meta-features or "
                  "landmarkers cached); the scenario's only feature is n_instances.",
                  markup=False)
    out.print(f"ASlib scenario written to {target} ({len(kb.datasets)} instances x "
              f"{len(kb.algorithms)} algorithms, {condition.label})", markup=False)
