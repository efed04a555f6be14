"""The ``metaeval`` command line: a thin typer layer over the public Python API.

Commands: ``run`` (a study), ``status`` (of a store), ``datasets`` (the built-in suite),
``algorithms`` (the pool), ``export`` (a store to Parquet) and ``hardness`` (mean instance
hardness per algorithm and threshold choice method, per dataset: seed 001 Table 1).

Exit codes: 0 success, 1 some tasks failed, 2 bad input (a usage error, an invalid study,
a store that cannot be used), 130 interrupted.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from metaeval.store import Store, StoreLockedError
from metaeval.study import DEFAULT_STORE, DaskExecutor, LocalExecutor, Study, run_study

__all__ = ["app", "main"]

app = typer.Typer(
    name="metaeval",
    help="Cost-sensitive instance hardness, algorithm similarity and rankings for "
    "meta-learning studies.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
datasets_app = typer.Typer(help="The built-in datasets (list, or show one).",
                           invoke_without_command=True, no_args_is_help=False)
app.add_typer(datasets_app, name="datasets")

# Not a terminal (a pipe, a file, CI logs): wide enough for a hardness table.
out = Console(highlight=False, soft_wrap=True, width=None if Console().is_terminal else 120)
err = Console(stderr=True, highlight=False, soft_wrap=True)

StoreOption = Annotated[
    Path, typer.Option("--store", help="The results store (a DuckDB file).")
]


@contextmanager
def _bad_input():
    """Turn validation errors into a clean message and exit code 2 (no traceback).

    ``OSError`` covers paths that cannot be used (a file where a folder is wanted, a
    folder where a file is wanted, no permission).
    """
    try:
        yield
    except (ValueError, StoreLockedError, OSError) as exc:
        err.print(f"Error: {exc}", markup=False)
        raise typer.Exit(2) from None


def _split(text: str | None) -> list[str] | None:
    if text is None:
        return None
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise ValueError(f"expected a comma-separated list, got {text!r}.")
    return items


# ------------------------------------------------------------------------------ run
@app.command()
def run(
    study_file: Annotated[
        Path | None, typer.Argument(help="A study file (TOML). Options below override it.")
    ] = None,
    suite: Annotated[
        str | None, typer.Option(help="Built-in suite: quick (15 datasets) or full (50).")
    ] = None,
    datasets: Annotated[
        str | None, typer.Option(help="Comma-separated dataset names (instead of --suite).")
    ] = None,
    algorithms: Annotated[
        str | None,
        typer.Option(help="Comma-separated algorithm names (default: the 8 of the seeds)."),
    ] = None,
    folds: Annotated[int | None, typer.Option(help="Stratified folds [default: 10].")] = None,
    repeats: Annotated[
        int | None, typer.Option(help="Repetitions of the cross-validation [default: 1].")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Study seed [default: 0].")] = None,
    store: Annotated[
        Path | None, typer.Option(help=f"Results store [default: {DEFAULT_STORE}].")
    ] = None,
    jobs: Annotated[
        int | None, typer.Option(help="Local worker processes [default: all cores].")
    ] = None,
    scheduler: Annotated[
        str | None, typer.Option(help="Run on this Dask scheduler (tcp://host:port).")
    ] = None,
    dask_workers: Annotated[
        int | None, typer.Option(help="Run on a local Dask cluster of this many workers.")
    ] = None,
    timeout: Annotated[
        float | None, typer.Option(help="Time limit per task, in seconds.")
    ] = None,
    retry_failed: Annotated[
        bool, typer.Option("--retry-failed", help="Run failed tasks again.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Run a study (or continue it): every algorithm cross-validated on every dataset."""
    with _bad_input():
        if suite is not None and datasets is not None:
            raise ValueError("give either --suite or --datasets, not both.")
        if jobs is not None and (scheduler is not None or dask_workers is not None):
            raise ValueError("--jobs is for local processes; it cannot go with --scheduler "
                             "or --dask-workers.")
        study = Study.from_toml(study_file) if study_file is not None else Study()
        changes = {
            "datasets": suite if suite is not None else _split(datasets),
            "algorithms": _split(algorithms),
            "folds": folds, "repeats": repeats, "seed": seed, "timeout": timeout,
            "store": store,
        }
        if scheduler is not None or dask_workers is not None:
            changes["executor"] = DaskExecutor(scheduler=scheduler, n_workers=dask_workers)
        elif jobs is not None:
            changes["executor"] = LocalExecutor(jobs=jobs)
        changes = {k: v for k, v in changes.items() if v is not None}
        if changes:
            study = replace(study, **changes)
        show = not quiet and err.is_terminal
        if not quiet:
            err.print(
                f"Study: {len(study.datasets)} datasets x {len(study.algorithms)} algorithms x "
                f"{study.repeats} repeat(s), {study.folds}-fold CV, seed {study.seed}; "
                f"store {study.store}; {study.executor.describe()}.",
                markup=False,
            )
        try:
            summary = run_study(study, progress=show, retry_failed=retry_failed)
        except KeyboardInterrupt:
            err.print("Interrupted. Finished tasks are saved; run the same command again "
                      "to continue.", markup=False)
            raise typer.Exit(130) from None
    out.print(summary.message(), markup=False)
    raise typer.Exit(summary.exit_code)


# ------------------------------------------------------------------------------ status
@app.command()
def status(store: StoreOption = Path(DEFAULT_STORE)) -> None:
    """Tasks of a store per status, and the failed ones with their errors."""
    with _bad_input():
        st = Store(store)
        if st.locked():
            progress = st.progress()
            if progress is None:
                raise StoreLockedError(f"The store {store} is in use by another process.")
            out.print(
                f"A run is in progress (pid {progress['pid']}, started {progress['started']}, "
                f"{progress['executor']}): {progress['done']} done, {progress['failed']} "
                f"failed, {progress['remaining']} remaining of {progress['to_run']} "
                f"({progress['skipped']} finished earlier). Updated {progress['updated']}.",
                markup=False,
            )
            return
        counts = st.status_counts()
        config = st.study_config() or {}
        tasks = st.tasks()
    out.print(
        f"Store {store}: {sum(counts.values())} tasks: {counts['done']} done, "
        f"{counts['failed']} failed, {counts['pending']} pending.",
        markup=False,
    )
    if config:
        out.print(
            f"Study: {len(config.get('datasets', []))} datasets x "
            f"{len(config.get('algorithms', []))} algorithms x {config.get('repeats')} "
            f"repeat(s), {config.get('folds')}-fold CV, seed {config.get('seed')}.",
            markup=False,
        )
    if counts["pending"]:
        out.print("Pending tasks run when the study is run again.", markup=False)
    failed = tasks[tasks["status"] == "failed"]
    if len(failed):
        table = Table("dataset", "algorithm", "repeat", "error", title="Failed tasks")
        for row in failed.itertuples(index=False):
            first = (row.error or "").strip().splitlines()
            table.add_row(row.dataset, row.algorithm, str(row.repeat), first[0] if first else "")
        out.print(table)


# ------------------------------------------------------------------------------ datasets
@datasets_app.callback()
def _datasets_default(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is None:
        datasets_list(subset="full")


@datasets_app.command("list")
def datasets_list(
    subset: Annotated[str, typer.Option(help="quick (15 datasets) or full (50).")] = "full",
) -> None:
    """List the built-in datasets."""
    from metaeval.datasets import list_datasets, manifest

    with _bad_input():
        names = list_datasets(subset)
    m = manifest().set_index("name")
    table = Table("name", "subset", "rows", "features", "categorical", "class 1", "family",
                  title=f"Built-in datasets ({subset}: {len(names)})")
    for name in names:
        r = m.loc[name]
        table.add_row(name, str(r["subset"]), str(r["n_rows"]), str(r["n_features"]),
                      str(r["n_categorical"]), f"{float(r['positive_fraction']):.3f}",
                      str(r["family"]))
    out.print(table)


@datasets_app.command("show")
def datasets_show(name: Annotated[str, typer.Argument(help="Dataset name.")]) -> None:
    """Describe one built-in dataset (verifies its checksum)."""
    from metaeval.datasets import load_dataset, manifest

    with _bad_input():
        data = load_dataset(name)
    m = manifest().set_index("name")
    table = Table("", "", show_header=False, title=name)
    table.add_row("instances", str(data.n_instances))
    table.add_row("features", f"{data.n_features} ({len(data.categorical)} categorical)")
    table.add_row("class 1 fraction", f"{data.positive_fraction:.4f}")
    table.add_row("family", data.family)
    table.add_row("sha256", data.sha256)
    table.add_row("source", data.source)
    if name in m.index:
        for key in ("positive_class", "negative_class", "origin", "url", "citation",
                    "license_note", "notes"):
            value = m.at[name, key]
            if isinstance(value, str) and value:
                table.add_row(key.replace("_", " "), value)
    out.print(table)


# ------------------------------------------------------------------------------ algorithms
@app.command()
def algorithms() -> None:
    """List the algorithm pool and how each one scores."""
    from metaeval.algorithms import get_algorithm, list_algorithms

    table = Table("name", "estimator", "params", "score", "scaled", title="Algorithms")
    for name in list_algorithms():
        a = get_algorithm(name)
        params = ", ".join(f"{k}={v!r}" for k, v in a.params)
        table.add_row(a.name, a.estimator, params, a.score_method,
                      "yes" if getattr(a, "scale", False) else "no")
    out.print(table)


# ------------------------------------------------------------------------------ export
@app.command()
def export(
    parquet: Annotated[
        Path, typer.Option("--parquet", help="Directory to write the Parquet files to.")
    ],
    store: StoreOption = Path(DEFAULT_STORE),
) -> None:
    """Export a store's tables to Parquet files."""
    with _bad_input():
        paths = Store(store).export_parquet(parquet)
    for path in paths:
        out.print(str(path), markup=False)


# ------------------------------------------------------------------------------ hardness
@app.command()
def hardness(
    store: StoreOption = Path(DEFAULT_STORE),
    repeat: Annotated[int, typer.Option(help="Which repetition's scores.")] = 0,
    dataset: Annotated[
        str | None, typer.Option(help="Comma-separated datasets [default: all].")
    ] = None,
) -> None:
    """Mean instance hardness of each algorithm under each threshold choice method.

    One table per dataset, algorithms as rows and methods as columns (seed 001, Table 1).
    """
    from metaeval.hardness import METHODS

    with _bad_input():
        if repeat < 0:
            raise ValueError(f"--repeat must be >= 0; got {repeat}.")
        st = Store(store)
        known = st.datasets()["name"].tolist()
        names = _split(dataset) or known
        unknown = [name for name in names if name not in known]
        if unknown:
            raise ValueError(f"--dataset: {', '.join(map(repr, unknown))} not in the store "
                             f"(it holds {', '.join(known)}).")
        done = st.tasks()
        done = set(done.loc[(done["status"] == "done") & (done["repeat"] == repeat),
                            "dataset"])
        printed = 0
        for name in names:
            if name not in done:
                err.print(f"{name}: no finished scores (repeat {repeat}); skipped.",
                          markup=False)
                continue
            printed += 1
            y, S, algos = st.scores(name, repeat=repeat)
            means = _mean_hardness(y, S)
            table = Table("algorithm", title=f"{name} (n = {y.shape[0]})")
            for method in METHODS:
                table.add_column(method, justify="right", min_width=len(method))
            for j, algo in enumerate(algos):
                table.add_row(algo, *(f"{means[m][j]:.4f}" for m in METHODS))
            out.print(table)
    if not printed:
        err.print(f"No dataset has finished scores for repeat {repeat}.", markup=False)
        raise typer.Exit(1)


@app.command()
def rank(
    store: StoreOption = Path(DEFAULT_STORE),
    measure: Annotated[
        str, typer.Option(help="Success measure: accuracy, auc, ... or hardness:<method> "
                          "(success = 1 - mean instance hardness).")
    ] = "accuracy",
    method: Annotated[
        str | None, typer.Option(help="ar, srr, sw, arr or a3r [default: all five].")
    ] = None,
    accd: Annotated[float, typer.Option(help="ARR: accuracy traded for a 10x speed-up.")] = 0.1,
    n: Annotated[float, typer.Option("--n", help="A3R: the n-th root of the time ratio.")] = 8,
) -> None:
    """Rank the algorithms by accuracy and time (AR, SRR, SW, ARR, A3R), best first."""
    from metaeval.ranking import RANKING_METHODS
    from metaeval.report import StudyView

    with _bad_input():
        if method is not None and method not in RANKING_METHODS:
            raise ValueError(f"--method must be one of {', '.join(RANKING_METHODS)}; "
                             f"got {method!r}.")
        view = StudyView(Store(store), measure=measure)
        frames = view.rankings(measure, accd=accd, n=n)
        _note_exclusions(view)
        for title, frame in frames.items():
            # titles are "AR", "SRR", "SW", "ARR (AccD=...)", "A3R (n=...)"
            if method is not None and title.split(" ")[0].lower() != method:
                continue
            table = Table("rank", "algorithm", "score", title=f"{title}, measure: {measure}")
            for row in frame.itertuples(index=False):
                table.add_row(f"{row.rank:g}", str(row.algorithm), f"{row.score:.4f}")
            out.print(table)


@app.command()
def benchmark(
    store: StoreOption = Path(DEFAULT_STORE),
    k: Annotated[int, typer.Option(help="Metric disagreement: an error case is when at "
                                   "most k other metrics agree.")] = 2,
    n_slowest: Annotated[int, typer.Option(help="Runtime score over this many of the "
                                           "slowest datasets.")] = 20,
) -> None:
    """Seed 004's analytics: value captured, runtime score, metric disagreement, portfolio."""
    from metaeval.benchmark import (
        greedy_portfolio,
        metric_disagreement,
        overall_value,
        runtime_score,
    )
    from metaeval.report import StudyView

    with _bad_input():
        view = StudyView(Store(store))
        _note_exclusions(view)
        vc = view.value_captured()
        times = view.times()
        times = times[times["algorithm"].isin(view.common_algorithms())
                      & times["dataset"].isin(view.usable_datasets())]
        tables = [
            ("Value captured (mean over datasets and metrics, %)", overall_value(vc)),
            (f"Runtime score (log2 of time / fastest, {n_slowest} slowest datasets; "
             "lower is faster)", runtime_score(times, n_slowest=n_slowest)),
        ]
        for title, frame in tables:
            table = Table("rank", "algorithm", "score", title=title)
            for row in frame.itertuples(index=False):
                table.add_row(f"{row.rank:g}", str(row.algorithm), f"{row.score:.3f}")
            out.print(table)
        dis = metric_disagreement(view.metrics(), k=k)
        table = Table("metric", "error cases", "error rate",
                      title=f"Metric disagreement (k = {k}; all metrics agree on "
                      f"{100 * dis.all_agree:.1f} % of {dis.n_comparisons} comparisons)")
        for row in dis.per_metric.itertuples(index=False):
            table.add_row(str(row.metric), str(row.error_cases), f"{row.error_rate:.3f}")
        out.print(table)
        port = greedy_portfolio(vc)
        table = Table("step", "algorithm", "gain", "value", title="Greedy portfolio")
        for row in port.itertuples(index=False):
            table.add_row(str(row.step), str(row.algorithm), f"{row.gain:.2f}",
                          f"{row.value:.2f}")
        out.print(table)


@app.command()
def report(
    store: StoreOption = Path(DEFAULT_STORE),
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for index.html.")] = Path(
        "metaeval-results/report"),
) -> None:
    """Write the self-contained HTML report of a store (DIR/index.html)."""
    from metaeval.report import write_report

    with _bad_input():
        path = write_report(Store(store), out_dir)
    out.print(f"Report written to {path}", markup=False)


@app.command()
def plot(
    kind: Annotated[str, typer.Argument(help="The figure: see --list.")] = "",
    out_file: Annotated[Path | None, typer.Option(
        "--out", help="FILE.png, FILE.svg or FILE.pdf.")] = None,
    store: StoreOption = Path(DEFAULT_STORE),
    option: Annotated[list[str] | None, typer.Option(
        "--option", "-o", help="KEY=VALUE options of the figure (repeatable).")] = None,
    list_kinds: Annotated[bool, typer.Option("--list", help="List the figures.")] = False,
) -> None:
    """Write any single figure of the report to a file."""
    from metaeval.report import PLOT_KINDS, parse_plot_options
    from metaeval.report import plot as make_plot

    if list_kinds or not kind:
        for name, spec in PLOT_KINDS.items():
            out.print(f"{name:24s} {getattr(spec, 'description', '')}", markup=False)
        return
    with _bad_input():
        if out_file is None:
            raise ValueError("--out FILE.{png,svg,pdf} is required.")
        if out_file.suffix.lower() not in (".png", ".svg", ".pdf"):
            raise ValueError(f"--out must end in .png, .svg or .pdf; got {out_file.name!r}.")
        options = parse_plot_options(option or [])
        spec = PLOT_KINDS.get(kind)
        fig = make_plot(kind, Store(store) if spec is None or spec.needs_store else None,
                        **options)
        out_file.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out_file)
    out.print(f"Figure written to {out_file}", markup=False)


def _note_exclusions(view) -> None:
    """Say on stderr which algorithms and datasets the cross-dataset tables leave out.

    Rankings and benchmark analytics need every algorithm on every dataset, so they use
    the algorithms finished on every usable dataset (see ``StudyView.common_algorithms``).
    """
    algorithms = view.algorithms()["name"].tolist()
    left_out = [a for a in algorithms if a not in view.common_algorithms()]
    if left_out:
        err.print(f"Note: left out {', '.join(left_out)}: not finished on every dataset "
                  "(see `metaeval status`).", markup=False)
    datasets = [d for d in view.dataset_names() if d not in view.usable_datasets()]
    if datasets:
        err.print(f"Note: left out {', '.join(datasets)}: fewer than two algorithms "
                  "finished.", markup=False)


def _mean_hardness(y, S) -> dict:
    """Mean instance hardness per model (column of S) for every method."""
    from metaeval.hardness import METHODS, instance_hardness

    return {m: instance_hardness(y, S, m).mean(axis=0) for m in METHODS}


def main() -> None:
    """Entry point of the ``metaeval`` console script."""
    app(prog_name="metaeval")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
