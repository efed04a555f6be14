"""``metaeval run`` and ``metaeval status``."""

from __future__ import annotations

import signal
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from metaeval.cli._app import (
    StoreOption,
    _bad_input,
    _split,
    app,
    check_store_exists,
    err,
    out,
    plural,
    print_table,
    say,
)
from metaeval.cli._early import DEFAULT_STORE, DEFAULT_TIMEOUT

# the study, the store and the algorithms are imported by the commands that use them,
# after the arguments are parsed: a usage error comes before NumPy and pandas load


def _ignore_stop_signals() -> None:
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)


# ------------------------------------------------------------------------------ run
@app.command()
def run(
    study_file: Annotated[
        Path | None, typer.Argument(help="A study file (TOML). Options below override it.")
    ] = None,
    suite: Annotated[
        str | None, typer.Option(help="Built-in suite: quick (15 datasets), full (51) or kb (72).")
    ] = None,
    datasets: Annotated[
        str | None, typer.Option(help="Comma-separated dataset names (instead of --suite).")
    ] = None,
    algorithms: Annotated[
        str | None,
        typer.Option(help="Comma-separated algorithm names (default: the 8 of "
                     "Melo & Prudêncio 2014)."),
    ] = None,
    pool: Annotated[
        str | None,
        typer.Option(help="A built-in pool instead of --algorithms: default (the 8 of "
                     "Melo & Prudêncio 2014) or wide (150+ configurations).")
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
        str | None, typer.Option(help="Run on this Dask scheduler (tcp://host:port); one "
                                 "that does not answer in 10 s is an error (Dask config "
                                 "key metaeval.scheduler-timeout: another wait).")
    ] = None,
    dask_workers: Annotated[
        int | None, typer.Option(help="Run on a local Dask cluster of this many workers.")
    ] = None,
    timeout: Annotated[
        float | None, typer.Option(
            help=f"Time limit per task in seconds [default: {DEFAULT_TIMEOUT:g}; 0: none]. "
            "A local worker past it is killed; on Dask it is checked between folds.")
    ] = None,
    retry_failed: Annotated[
        bool, typer.Option("--retry-failed", help="Also run again the tasks whose estimator "
                           "raised an error or ran out of time (tasks whose worker process "
                           "died are always run again).")
    ] = False,
    units: Annotated[
        str, typer.Option(help="The unit of work given to a worker: auto (the folds of the "
                          "long tasks, other tasks whole), fold (every fold) or task (every "
                          "task whole). The scores do not depend on it.")
    ] = "auto",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Run a study (or continue it): every algorithm cross-validated on every dataset."""
    with _bad_input():
        if study_file is not None:
            from metaeval.cli._files import input_problem

            problem = input_problem(study_file)
            if problem is not None:
                raise ValueError(f"Cannot read the study file {str(study_file)!r}: "
                                 f"{problem}.")
        if suite is not None and datasets is not None:
            raise ValueError("give either --suite or --datasets, not both.")
        from metaeval.study._units import UNIT_MODES

        if units not in UNIT_MODES:
            raise ValueError(f"--units must be one of {', '.join(UNIT_MODES)}, got "
                             f"{units!r}.")
        if pool is not None and algorithms is not None:
            raise ValueError("give either --pool or --algorithms, not both.")
        if jobs is not None and (scheduler is not None or dask_workers is not None):
            raise ValueError("--jobs is for local processes; it cannot go with --scheduler "
                             "or --dask-workers.")
        from metaeval.algorithms._wide import split_names
        from metaeval.study import DaskExecutor, LocalExecutor, Study, run_study

        study = Study.from_toml(study_file) if study_file is not None else Study()
        changes = {
            "datasets": suite if suite is not None else _split(datasets),
            "algorithms": pool if pool is not None else split_names(algorithms),
            "folds": folds, "repeats": repeats, "seed": seed, "timeout": timeout,
            "store": store,
        }
        if scheduler is not None or dask_workers is not None:
            changes["executor"] = DaskExecutor(scheduler=scheduler, n_workers=dask_workers)
        elif jobs is not None:
            from metaeval.cli._jobs import cap_jobs

            # below 1: the executor says what is wrong
            changes["executor"] = LocalExecutor(jobs=cap_jobs(jobs) if jobs >= 1 else jobs)
        elif isinstance(study.executor, LocalExecutor) and study.executor.jobs is not None:
            from metaeval.cli._jobs import cap_jobs

            # the study file's jobs, lowered as --jobs is (the file checked it is >= 1)
            capped = cap_jobs(study.executor.jobs, what="jobs (study file)")
            if capped != study.executor.jobs:
                changes["executor"] = LocalExecutor(jobs=capped)
        changes = {k: v for k, v in changes.items() if v is not None}
        if changes:
            study = replace(study, **changes)
        show = not quiet and err.is_terminal
        if not quiet:
            err.print(
                f"Study: {plural(len(study.datasets), 'dataset')} x "
                f"{plural(len(study.algorithms), 'algorithm')} x "
                f"{plural(study.repeats, 'repeat')}, {study.folds}-fold CV, seed {study.seed}; "
                f"store {study.store}; {study.executor.describe()}; "
                + (f"time limit {study.timeout:g} s per task." if study.timeout is not None
                   else "no time limit."),
                markup=False,
            )
        try:
            summary = run_study(study, progress=show, retry_failed=retry_failed,
                                units=units)
        except KeyboardInterrupt as exc:
            _ignore_stop_signals()  # one clean message, whatever comes next
            signum = getattr(exc, "signum", signal.SIGINT)
            err.print(f"Interrupted ({signal.Signals(signum).name}). Finished tasks are "
                      "saved; run the same command again to continue.", markup=False)
            raise typer.Exit(getattr(exc, "exit_code", 130)) from None
    out.print(summary.message(), markup=False)
    raise typer.Exit(summary.exit_code)


# ------------------------------------------------------------------------------ status
@app.command()
def status(store: StoreOption = Path(DEFAULT_STORE)) -> None:
    """Tasks of a store per status, and the failed ones with their errors."""
    check_store_exists(store)
    from metaeval.store import Store, StoreLockedError
    from metaeval.study import failure_kind

    with _bad_input(), ExitStack() as held:
        st = Store(store)
        try:  # one connection for the four reads; none to be had while a run writes
            held.enter_context(st.reading())
        except StoreLockedError:
            progress = st.progress()
            if progress is None:
                raise StoreLockedError(
                    f"The store {store} is in use by another process.") from None
            say(f"A run is in progress (pid {progress['pid']}, started {progress['started']}, "
                f"{progress['executor']}): {progress['done']} done, {progress['failed']} "
                f"failed, {progress['remaining']} remaining of {progress['to_run']} "
                f"({progress['skipped']} finished earlier). Updated {progress['updated']}.")
            return
        counts = st.status_counts()
        config = st.study_config() or {}
        tasks = st.tasks()
        coverage = st.coverage()
    say(f"Store {store}: {plural(sum(counts.values()), 'task')}: {counts['done']} done, "
        f"{counts['failed']} failed, {counts['pending']} pending.")
    folds = config.get("folds")
    if config:
        say(f"Study: {plural(len(config.get('datasets', [])), 'dataset')} x "
            f"{plural(len(config.get('algorithms', [])), 'algorithm')} x "
            f"{plural(int(config.get('repeats') or 1), 'repeat')}, {folds}-fold CV, "
            f"seed {config.get('seed')}.")
    done = tasks[(tasks["status"] == "done") & tasks["n_folds"].notna()]
    if folds:
        used = done[done["n_folds"] < folds].groupby("dataset", sort=False)["n_folds"].min()
        if len(used):
            shown = ", ".join(f"{name} {int(k)}" for name, k in used.items())
            say(f"Fewer folds than the {folds} asked, because a class has fewer instances "
                f"than that: {shown}.")
    if counts["pending"]:
        say("Pending tasks run when the study is run again.")
    _print_coverage(coverage)
    failed = tasks[tasks["status"] == "failed"]
    if len(failed):
        kinds = [failure_kind(e) for e in failed["error"]]
        rows = []
        for row, kind in zip(failed.itertuples(index=False), kinds, strict=True):
            first = (row.error or "").strip().splitlines()
            rows.append([str(row.dataset), str(row.algorithm), str(row.repeat), _WHY[kind],
                         first[0] if first else ""])
        print_table("Failed tasks", [(h, "left") for h in ("dataset", "algorithm", "repeat",
                                                           "why", "error")], rows, keys=2)
        lost = kinds.count("lost")
        if lost:
            say(f"{lost} failed task{'s' if lost != 1 else ''} whose worker process died will "
                "run again when the study is run again.")
        if len(kinds) - lost:
            say(f"{len(kinds) - lost} failed task{'s' if len(kinds) - lost != 1 else ''} "
                "(error, time limit) stay failed: after fixing the cause, run the study again "
                f"with `metaeval run ... --store {store} --retry-failed` "
                "(`run_study(..., retry_failed=True)`).")


def _print_coverage(coverage, show: int = 10) -> None:
    """Say what the cross-dataset commands leave out, by the store's one definition."""
    if coverage.missing:
        items = list(coverage.missing.items())
        shown = "; ".join(f"{a} (not finished on {_few(missing)})"
                          for a, missing in items[:show])
        if len(items) > show:
            shown += f"; and {len(items) - show} more algorithms"
        say(f"rank, benchmark and report compare the {len(coverage.common)} algorithm(s) "
            "finished on every dataset where at least two finished, and leave out: "
            f"{shown}.")
    if coverage.usable and coverage.left_out_datasets:
        say("rank, benchmark and report leave out the dataset(s) where fewer than two "
            f"algorithms finished: {_few(coverage.left_out_datasets)}.")


def _few(names, show: int = 5) -> str:
    return ", ".join(names[:show]) + (f" and {len(names) - show} more" if len(names) > show
                                      else "")


_WHY = {"lost": "worker died", "timeout": "time limit", "error": "error"}
