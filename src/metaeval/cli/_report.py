"""``metaeval report`` and ``metaeval plot``."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from metaeval.cli._analysis import TimeOption, _check_clock
from metaeval.cli._app import (
    StoreOption,
    _bad_input,
    app,
    check_store_exists,
    did_you_mean,
    err,
    out,
    plural,
    require_results,
)
from metaeval.cli._early import DEFAULT_STORE
from metaeval.cli._signals import exit_stopped, stop_on_signals

if TYPE_CHECKING:
    from metaeval.store import Store

# the store is imported by the commands that use it, after the arguments are parsed


class _SectionBar:
    """A rich progress bar of the report's sections, on standard error."""

    def __init__(self, show: bool):
        self.show = show
        self.summary = None
        self._bar = self._task = None

    def __enter__(self):
        if self.show:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self._bar = Progress(TextColumn("[bold]report[/]"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(),
                                 TextColumn("{task.description}"), console=err)
            self._bar.start()
            self._task = self._bar.add_task("checking the store", total=None)
        return self

    def status(self, text: str) -> None:
        if self._bar is not None:
            self._bar.update(self._task, description=text)

    def __call__(self, done: int, total: int, label: str) -> None:
        self.summary = label  # the last call says what was drawn
        if self._bar is not None:
            self._bar.update(self._task, completed=done, total=total,
                             description=label if done < total else "writing the page")

    def __exit__(self, *exc):
        if self._bar is not None:
            self._bar.stop()
        return False


@app.command()
def report(
    store: StoreOption = Path(DEFAULT_STORE),
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for index.html.")] = Path(
        "metaeval-results/report"),
    jobs: Annotated[int | None, typer.Option(
        "--jobs", help="Worker processes drawing the sections [default: all cores].")] = None,
    no_cache: Annotated[bool, typer.Option(
        "--no-cache", help="Draw every figure again and keep none (by default figures and "
        "sections are kept in the store, table report_cache, with the per-dataset "
        "intermediates in the directory STORE.report-cache beside it, and redrawn only "
        "when what they show changed).")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    time: TimeOption = None,
    summary: Annotated[bool, typer.Option(
        "--summary", help="Also print a short summary of the study: its tasks and time, "
        "the 3 hardest datasets and the best algorithm by A3R.")] = False,
) -> None:
    """Write the self-contained HTML report of a store (DIR/index.html).

    ARR, A3R and the runtime score use the clock --time names (CPU by default), as
    `metaeval rank` and `metaeval benchmark` do: the same store gives the same scores.
    """
    from metaeval.report import write_report

    with _bad_input():
        if jobs is not None and jobs < 1:
            raise ValueError(f"--jobs must be a positive integer, got {jobs}.")
        from metaeval.cli._jobs import cap_jobs

        jobs = cap_jobs(jobs)
        _check_clock(time)
        from metaeval._validation import check_output_dir, check_output_file
        from metaeval.cli._outputs import check_output

        # an input given as --out is said as such first, whatever else is wrong with it
        check_output(out_dir, "--out", "report", [(store, "--store")])
        check_output_dir(out_dir, "--out")  # a folder: never a file, a device, read-only
        check_output_file(out_dir / "index.html", "--out")
        check_output(out_dir / "index.html", "--out", "report", [(store, "--store")])
    from metaeval.report._render import start_workers_early

    try:
        with stop_on_signals():
            # the workers' fork server imports what they draw with while the store is
            # checked
            start_workers_early(store, jobs=jobs, cache=not no_cache)
            with _SectionBar(show=not quiet and err.is_terminal) as bar:
                require_results(store, what="`metaeval report`", verify=True)
                bar.status("reading the cache")
                from metaeval.store import Store

                with _bad_input():
                    st = Store(store)
                    clock = _clock(st, time)
                    path = write_report(st, out_dir, jobs=jobs, cache=not no_cache,
                                        progress=bar, clock=clock)
    except KeyboardInterrupt as exc:
        exit_stopped(exc, f"the report in {out_dir} was not finished")
    if bar.summary and not quiet:
        err.print(bar.summary, markup=False, highlight=False)
    if summary:
        for line in study_summary(st, store, clock):
            out.print(line, markup=False, highlight=False)
    out.print(f"Report written to {path}", markup=False)


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


def study_summary(st: Store, store_arg, clock: str) -> list[str]:
    """A few lines on a store: its tasks and time, the 3 hardest datasets (mean pool
    hardness, rate-driven), the best algorithm by accuracy alone (AR, SRR, SW: the
    report's first rankings) and by A3R (accuracy and time), and where the full tables
    are."""
    import numpy as np

    from metaeval.report._plots import StudyView
    from metaeval.report.data import task_times_on

    view = StudyView(st, methods=("rate-driven",), clock=clock)
    tasks = st.tasks()
    done = int((tasks["status"] == "done").sum())
    runs = st.runs()
    spent = (runs["finished"] - runs["started"]).dropna()
    seconds = float(spent.dt.total_seconds().sum()) if len(spent) else 0.0
    n_datasets, n_algorithms = tasks["dataset"].nunique(), tasks["algorithm"].nunique()
    spent_on = float(task_times_on(st.timings(), clock)["time"].sum()) if done else 0.0
    what = "CPU" if clock == "cpu" else "wall-clock"
    lines = [f"Tasks: {done} of {len(tasks)} done ({plural(n_datasets, 'dataset')} x "
             f"{plural(n_algorithms, 'algorithm')}), {_duration(seconds)} of running "
             f"over {plural(len(spent), 'run')} ({spent_on:.1f} {what} seconds of fit + "
             "predict)."]
    names = view.usable_datasets()
    if names:
        means = sorted(((float(np.mean(view.hardness(n)[:, 0])), n) for n in names),
                       reverse=True)[:3]
        head = ("The hardest dataset" if len(means) == 1
                else f"The {len(means)} hardest datasets")
        lines.append(f"{head} (mean instance hardness of the pool, rate-driven, 0 to 1): "
                     + ", ".join(f"{n} {h:.3f}" for h, n in means) + ".")
        try:
            rankings = view.rankings()
        except (KeyError, ValueError):
            rankings = {}
        a3r = rankings.get("A3R (n=8)")
        by_success = _firsts(rankings, ("AR", "SRR", "SW"))
        if by_success:
            lines.append(f"Best algorithm by accuracy alone: {by_success}.")
        if a3r is not None and len(a3r):
            lines.append(f"Best algorithm by A3R (n=8; accuracy and {what} time): "
                         f"{a3r['algorithm'].iloc[0]} (A3R {a3r['score'].iloc[0]:.3f}).")
    lines.append(f"Full tables: metaeval hardness --store {store_arg} (also: rank, "
                 "benchmark, status).")
    return lines


def _firsts(rankings: dict, names) -> str:
    """``"RF (AR, SRR and SW)"``, or ``"RF (AR, SRR), 3NN (SW)"`` when they differ: the
    first algorithm of each ranking, each ranking named."""
    firsts: dict = {}
    for name in names:
        frame = rankings.get(name)
        if frame is not None and len(frame):
            firsts.setdefault(str(frame["algorithm"].iloc[0]), []).append(name)
    parts = []
    for algorithm, by in firsts.items():
        said = by[0] if len(by) == 1 else ", ".join(by[:-1]) + " and " + by[-1]
        parts.append(f"{algorithm} ({said})")
    return ", ".join(parts)


def _clock(st: Store, clock: str | None) -> str:
    """The clock of the report, as `metaeval rank` takes it: CPU unless --time wall, or
    wall with a note when the store has no CPU times (an explicit cpu is then an error)."""
    if clock == "wall":
        return clock
    if st.timings()["fit_cpu"].isna().any():
        if clock == "cpu":
            raise ValueError(f"the store {st.path} has no CPU times recorded (written by an "
                             "older metaeval); use --time wall.")
        err.print(f"Note: the store {st.path} has no CPU times recorded (written by an older "
                  "metaeval); using wall-clock time.", markup=False)
        return "wall"
    return "cpu"


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
        from metaeval.cli._app import say

        for name, spec in PLOT_KINDS.items():  # the descriptions wrapped under themselves
            say(f"{name:24s} {getattr(spec, 'description', '')}", hang=25)
        return
    with _bad_input():
        if out_file is None:
            raise ValueError("--out FILE.{png,svg,pdf} is required.")
        if out_file.suffix.lower() not in (".png", ".svg", ".pdf"):
            raise ValueError(f"--out must end in .png, .svg or .pdf; got {out_file.name!r}.")
        from metaeval._validation import check_output_file

        check_output_file(out_file, "--out")  # before the figure is drawn
        from metaeval.cli._outputs import check_output

        check_output(out_file, "--out", "figure", [(store, "--store")])
        if kind not in PLOT_KINDS:
            raise ValueError(f"no figure {kind!r} (`metaeval plot --list` lists them)."
                             + did_you_mean(kind, PLOT_KINDS))
        options = parse_plot_options(option or [])
        spec = PLOT_KINDS.get(kind)
        from metaeval.store import Store

        st = Store(store) if spec is None or spec.needs_store else None
        with ExitStack() as held:
            if spec is not None and spec.needs_store:
                # one connection for the check and the figure's reads, not one per read
                check_store_exists(store)
                held.enter_context(st.reading())
                require_results(st, what=f"`metaeval plot {kind}`",
                                algorithms=2 if kind == "dendrograms" else 1)
            fig = make_plot(kind, st, **options)
        from metaeval._validation import atomic_output

        with atomic_output(out_file, "--out", make_parents=True) as fh:
            fig.savefig(fh, format=out_file.suffix.lower()[1:])
    out.print(f"Figure written to {out_file}", markup=False)
