"""``metaeval describe`` and ``metaeval knowledge``: describe a store's datasets, build a
knowledge base file from a study."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from metaeval.cli._app import StoreOption, _bad_input, app, err, out
from metaeval.cli._early import DEFAULT_STORE
from metaeval.cli._signals import exit_stopped, stop_on_signals

knowledge_app = typer.Typer(help="Knowledge bases for `metaeval recommend` (build, show).",
                            no_args_is_help=True)
app.add_typer(knowledge_app, name="knowledge")


def _progress(quiet):
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=err, disable=quiet or not err.is_terminal,
                    transient=True)


#: pymfe's groups (:data:`metaeval.recommend.knowledge._describe.PYMFE_VALID_GROUPS`,
#: tested equal), here so that a mistyped --groups is refused before the heavy imports
_PYMFE_GROUPS = ("landmarking", "general", "statistical", "model-based", "info-theory",
                 "relative", "clustering", "complexity", "itemset", "concept")
#: the largest --time-budget (:data:`metaeval.recommend.knowledge._describe.MAX_TIME_BUDGET`)
_MAX_TIME_BUDGET = 1e6


def _describe_options(groups, time_budget):
    """The checked --groups (a tuple, or None for the default) and --time-budget."""
    import math

    if not math.isfinite(time_budget) or not 0 < time_budget <= _MAX_TIME_BUDGET:
        raise ValueError(f"--time-budget must be a number of CPU seconds in (0, "
                         f"{_MAX_TIME_BUDGET:g}], got {time_budget:g}.")
    if groups is None:
        return None
    names = tuple(g.strip() for g in groups.split(","))
    if not any(names):
        raise ValueError("--groups must name at least one pymfe group, e.g. "
                         "'general,statistical'.")
    for g in names:
        if g not in _PYMFE_GROUPS:
            import difflib

            close = difflib.get_close_matches(g, _PYMFE_GROUPS, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise ValueError(f"--groups: {g!r} is not a pymfe group; known: "
                             f"{', '.join(_PYMFE_GROUPS)}.{hint}")
    repeated = [g for i, g in enumerate(names) if g in names[:i]]
    if repeated:
        raise ValueError(f"--groups: {repeated[0]!r} is given twice.")
    return names


def _own_datasets(study_file):
    """``(study, {name: Dataset})``: a study file and its datasets of your own."""
    from metaeval.datasets import Dataset
    from metaeval.study import Study

    study = Study.from_toml(study_file)
    own = {d.name: d for d in study.datasets if isinstance(d, Dataset)}
    return study, own


def _loader(own, info):
    from metaeval.datasets import load_dataset

    def load(name):
        if name not in own:
            return load_dataset(name)  # built in: describe_store checks nothing else
        dataset = own[name]
        recorded = info.loc[name, "sha256"] if name in info.index else None
        if isinstance(recorded, str) and recorded and recorded != dataset.sha256:
            raise ValueError(
                f"dataset {name!r}: the file the study file names now differs from the one "
                f"the study ran on (SHA-256 {dataset.sha256[:12]}... vs {recorded[:12]}...).")
        return dataset
    return load


@app.command("describe")
def describe_command(
    store: Annotated[Path | None, typer.Option(
        "--store", help="The results store (a DuckDB file) [default: the study file's "
        f"store, or {DEFAULT_STORE}].", show_default=False)] = None,
    study_file: Annotated[Path | None, typer.Option(
        "--study", help="The study file (TOML) that lists the paths of your own datasets: "
        "needed to describe a study of your own files.", show_default=False)] = None,
    time_budget: Annotated[float, typer.Option(
        "--time-budget", help="CPU seconds each pymfe group may take (on one thread).")] = 2.0,
    groups: Annotated[str | None, typer.Option(
        help="Comma-separated pymfe groups [default: general, statistical, info-theory, "
        "model-based, landmarking].", show_default=False)] = None,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="No progress bar.")] = False,
) -> None:
    """Describe the store's datasets (pymfe meta-features and cost-sensitive landmarkers)
    and cache the descriptions in the store; datasets already described are skipped.

    Built-in datasets are read by name; datasets of your own are read from the paths of
    the study file given with --study.
    """
    with _bad_input():
        chosen = _describe_options(groups, time_budget)
        if study_file is not None:
            from metaeval.cli._files import check_input_file

            check_input_file(study_file, "the study file")
    from metaeval.datasets import list_datasets
    from metaeval.recommend import describe_store
    from metaeval.store import Store

    with _bad_input():
        study, own = (None, {}) if study_file is None else _own_datasets(study_file)
        if store is None:
            store = Path(study.store) if study is not None else Path(DEFAULT_STORE)
        st = Store(store)
        if not st.exists():
            raise ValueError(f"no store at {store}.")
        info = st.datasets().set_index("name")
        from metaeval.recommend.knowledge._describe import described_datasets

        done = described_datasets(st.metafeature_groups())
        todo = [n for n in info.index if n not in done]
        builtin = set(list_datasets("kb"))
        missing = [n for n in todo if n not in builtin and n not in own]
        if missing:
            where = (f"the study file {study_file} does not list it" if study_file is not None
                     else "give the study file that lists its path: "
                          f"`metaeval describe --store {store} --study STUDY.toml`")
            raise ValueError(f"dataset {missing[0]!r} of the store is not built in; {where}.")
        try:
            with stop_on_signals(), _progress(quiet) as bar:
                task = bar.add_task("Describing datasets", total=len(todo))

                def advance(name, description):
                    bar.update(task, advance=1, description=f"Described {name}")

                extra = {} if chosen is None else {"groups": chosen}
                described = describe_store(st, progress=advance, time_budget=time_budget,
                                           loader=_loader(own, info) if own else None,
                                           **extra)
        except KeyboardInterrupt as exc:  # the group's process is ended by describe
            exit_stopped(exc, "the datasets described so far are cached; run the same "
                              "command again to describe the others")
    if not len(described):
        out.print(f"Every dataset of {store} was already described.", markup=False)
        return
    timeouts = described[described["status"] != "ok"]
    out.print(f"Described {described['dataset'].nunique()} dataset(s) in "
              f"{described['cpu'].sum():.1f} CPU s; {len(timeouts)} group(s) failed or ran "
              "out of their budget (their features are missing).", markup=False)


@knowledge_app.command("build")
def build_command(
    store: StoreOption = Path(DEFAULT_STORE),
    out_file: Annotated[Path, typer.Option(
        "--out", help="The knowledge base file to write (.npz).")] = Path(
        "metaeval-results/knowledge.npz"),
    jobs: Annotated[int | None, typer.Option(
        help="Worker processes (summarising the datasets, and with --evaluations each "
        "fitting the strategies for one held-out family at a time) [default: every "
        "usable core].", show_default=False)] = None,
    evaluations: Annotated[Path | None, typer.Option(
        "--evaluations", help="Also evaluate the strategies on it under the conditions "
        "recommend's advice quotes and write them (JSON) to this file (slow: about 10 "
        "minutes on 2 cores for the shipped knowledge base).", show_default=False)] = None,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="No progress bar.")] = False,
) -> None:
    """Build a knowledge base file from a finished, described study (deterministic).

    It keeps, for every (dataset, algorithm) and every complete repetition of the
    cross-validation, the ten benchmark metrics, the mean instance cost curve of each
    threshold choice method and the CPU and wall seconds, and every dataset's
    description: what `metaeval recommend --knowledge FILE` needs under any operating
    condition.
    """
    from metaeval._validation import check_output_file
    from metaeval.cli._outputs import check_output
    from metaeval.recommend import build_knowledge
    from metaeval.store import Store

    with _bad_input():
        if jobs is None:
            from metaeval._validation import usable_cores

            jobs = usable_cores()
        if jobs < 1:
            raise ValueError(f"--jobs must be a positive integer, got {jobs}.")
        from metaeval.cli._jobs import cap_jobs

        jobs = cap_jobs(jobs)
        check_output_file(out_file, "--out")  # before the work, not after it
        check_output(out_file, "--out", "knowledge", [(store, "--store")])
        if evaluations is not None:
            check_output_file(evaluations, "--evaluations")
            check_output(evaluations, "--evaluations", "json",
                         [(store, "--store"), (out_file, "--out")])
            if Path(evaluations).resolve() == Path(out_file).resolve():
                raise ValueError("--evaluations must name another file than --out.")
        st = Store(store)
        if not st.exists():
            raise ValueError(f"no store at {store}.")
        total = len(st.datasets())
        try:
            with stop_on_signals(), _progress(quiet) as bar:
                task = bar.add_task("Summarising datasets", total=total)
                archive = build_knowledge(st, jobs=jobs,
                                          progress=lambda name: bar.update(task, advance=1))
                path = archive.save(out_file, what="--out")
        except KeyboardInterrupt as exc:
            exit_stopped(exc, f"no knowledge base was written ({out_file} is as it was)")
    out.print(f"{archive!r} written to {path} ({path.stat().st_size / 2**20:.1f} MiB).",
              markup=False)
    if evaluations is not None:
        _write_evaluations(archive, evaluations, quiet, jobs, knowledge=path)


def _write_evaluations(archive, path, quiet, jobs=1, knowledge=None):
    """Evaluate the strategies as recommend's advice quotes them and write the JSON, the
    held-out families spread over ``jobs`` worker processes; the document names the
    knowledge base file ``knowledge`` (its checksum, as read back)."""
    import json

    from joblib import parallel_config

    from metaeval._validation import write_atomic
    from metaeval.recommend._advice import CONDITIONS, TIME_WEIGHTS, evaluate_for_advice

    with _bad_input():
        try:
            with stop_on_signals(), _progress(quiet) as bar:
                task = bar.add_task("Evaluating the strategies",
                                    total=len(CONDITIONS) * len(TIME_WEIGHTS))
                # evaluate_recommenders' n_jobs=None: the n_jobs of this context
                with parallel_config(n_jobs=jobs):
                    document = evaluate_for_advice(
                        archive, progress=lambda label: bar.update(task, advance=1),
                        knowledge=None if knowledge is None else _checksum(knowledge))
        except KeyboardInterrupt as exc:
            exit_stopped(exc, f"no evaluations were written ({path} is as it was)")
        write_atomic(path, json.dumps(document, indent=1, sort_keys=True) + "\n",
                     "--evaluations", make_parents=True)
    out.print(f"Evaluations of {len(document['conditions'])} conditions written to {path}.",
              markup=False)


def _checksum(path) -> str:
    from metaeval.recommend import load_knowledge

    return load_knowledge(path).provenance["checksum"]


@knowledge_app.command("show")
def show_command(
    knowledge: Annotated[Path | None, typer.Argument(
        help="A knowledge base file [default: the shipped one].", show_default=False)] = None,
) -> None:
    """What a knowledge base holds and how it was made."""
    with _bad_input():
        if knowledge is not None:
            from metaeval.cli._files import check_input_file

            check_input_file(knowledge, "the knowledge base file")
    from metaeval.recommend import load_knowledge

    with _bad_input():
        archive = load_knowledge(knowledge)
    from metaeval.cli._app import say

    for line in describe_archive(archive, knowledge):
        say(line)  # wrapped to COLUMNS, its indentation kept


def describe_archive(archive, path=None) -> list[str]:
    """``metaeval knowledge show``'s lines: what the archive holds, in words."""
    from metaeval.cli._app import plural
    from metaeval.recommend import Condition

    p = archive.provenance
    D, A = archive.shape
    dataset_families = len(set(archive.families))
    algorithm_families = sorted({a.split(":", 1)[0] for a in archive.algorithms})
    where = "the one shipped with metaeval" if path is None else str(path)
    families = plural(dataset_families, "dataset family", "dataset families")
    kinds = plural(len(algorithm_families), "algorithm family", "algorithm families")
    lines = [f"Knowledge base: {where}.",
             f"  {plural(D, 'dataset')} in {families} (a family of datasets: the tasks cut "
             "from one base dataset, held out together when strategies are evaluated).",
             f"  {plural(A, 'configuration')} of {kinds} ({', '.join(algorithm_families)}).",
             f"  Success under {plural(len(archive.metric_names), 'metric')} "
             f"({', '.join(archive.metric_names)}) and the mean instance cost curves of "
             f"{plural(len(archive.curves), 'threshold choice method')}; CPU and wall seconds "
             "of each task."]
    R = archive.n_repetitions
    if R > 1:
        repeats = ", ".join(str(r) for r in archive.by_repetition["repeats"])
        lines.append(f"  {R} repetitions of the cross-validation (repeats {repeats}): "
                     "strategies learn from their mean (success and seconds); an "
                     "evaluation scores each held-out dataset on a repetition its oracle "
                     "did not choose on.")
    else:
        lines.append("  1 repetition of the cross-validation: an evaluation scores held-out "
                     "datasets on the repetition their oracle chooses on.")
    for d in p.get("dropped_repetitions") or []:
        lines.append(f"  Left out repetition {d.get('repeat')} of the study: "
                     f"{d.get('why')}.")
    if archive.metafeatures is not None or archive.landmarkers:
        mf = 0 if archive.metafeatures is None else archive.metafeatures.shape[1]
        lines.append(f"  Descriptions: {plural(mf, 'pymfe meta-feature')}, "
                     f"{plural(len(archive.landmarkers), 'landmarker')}"
                     + (f" ({', '.join(archive.landmarkers)})." if archive.landmarkers else "."))
    else:
        lines.append("  No descriptions: strategies that read meta-features or landmarkers "
                     "cannot use it.")
    study = p.get("study") or {}
    lines.append(f"Study: {study.get('folds', '?')}-fold cross-validation, seed "
                 f"{study.get('seed', '?')}.")
    for run in p.get("runs", []):
        env = run.get("environment", {})
        versions = env.get("versions", {})
        lines.append(f"  Run {run.get('started')}: {env.get('executor', '?')} on "
                     f"{env.get('cpu_model', '?')}; scikit-learn "
                     f"{versions.get('scikit-learn')}, metaeval {versions.get('metaeval')}.")
    settings = p.get("description_settings")
    if isinstance(settings, dict):
        lines.append(f"Described with pymfe {settings.get('pymfe', '?')}: groups "
                     f"{', '.join(settings.get('groups', []))}; {settings.get('time_budget')} "
                     f"CPU s per group; at most {settings.get('max_rows')} rows for pymfe, "
                     f"{settings.get('landmark_rows')} for the landmarkers.")
    try:
        notes = archive.knowledge_base(Condition()).notes
    except ValueError:
        notes = ()
    for note in dict.fromkeys(notes):  # each note once
        lines.append(f"Note: {note}.")
    accuracy = p.get("accuracy") or {}
    errors = accuracy.get("max_abs_error_of_success") or {}
    if errors:
        lines.append(f"Accuracy ({accuracy.get('checked_cells', '?')} cells of "
                     f"{accuracy.get('checked_datasets', '?')} datasets): the largest error "
                     "of a success read from it, "
                     f"{accuracy.get('how', 'against a store')}:")
        width = max(len(k) for k in errors)
        for key in sorted(errors):
            lines.append(f"  {key:<{width}}  {errors[key]:.3g}")
    return lines
