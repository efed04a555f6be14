"""The typer application, its consoles, and the helpers every command shares."""

from __future__ import annotations

import errno
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from metaeval.cli._tables import fit_table, wrap_name  # noqa: F401 (the commands' tables)

__all__ = ["app", "datasets_app", "out", "err", "StoreOption", "require_results",
           "EXIT_CODES", "did_you_mean", "plural"]

#: Every exit code of the command line, and what it means (the README lists them too).
EXIT_CODES = {
    0: "success",
    1: "the study ran, but some tasks failed (`metaeval status` lists them)",
    2: "bad input: a usage error, an invalid study file or data file, a store that does "
       "not exist, is in use, or lacks what the command needs",
    3: "the store is damaged (`metaeval check` says what is wrong)",
    4: "no space left on the device for a file metaeval writes",
    129: "stopped by SIGHUP (the terminal closed)",
    130: "stopped by SIGINT (Ctrl-C)",
    143: "stopped by SIGTERM (`kill`, a batch scheduler, a container stop)",
}
EXIT_BAD_INPUT, EXIT_DAMAGED, EXIT_DISK_FULL = 2, 3, 4

app = typer.Typer(
    name="metaeval",
    help="Cost-sensitive instance hardness, algorithm similarity and rankings for "
    "meta-learning studies.\n\nExit codes: 0 success; 1 some tasks failed; 2 bad input; "
    "3 damaged store; 4 disk full; 130, 143, 129 stopped by SIGINT, SIGTERM, SIGHUP.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
datasets_app = typer.Typer(help="The built-in datasets (list, or show one).",
                           invoke_without_command=True, no_args_is_help=False)
app.add_typer(datasets_app, name="datasets")


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("metaeval")
        except PackageNotFoundError:  # pragma: no cover - run from a source tree
            import metaeval

            number = getattr(metaeval, "__version__", "unknown")
        typer.echo(f"metaeval {number}")
        raise typer.Exit(0)


@app.callback()
def _main(
    version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True,
        help="Print the version of metaeval and exit.")] = False,
) -> None:
    """The options that come before any command."""

#: The width of the tables when the output is not a terminal (a pipe, a file, CI logs)
#: and COLUMNS is not set: that of a hardness table. Prose is then not wrapped.
PIPE_WIDTH = 120
out = Console(highlight=False, soft_wrap=True, width=None if Console().is_terminal else PIPE_WIDTH)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def _columns() -> int | None:
    """``COLUMNS`` when it is set to a positive integer, else None."""
    columns = os.environ.get("COLUMNS", "").strip()
    return int(columns) if columns.isdigit() and int(columns) > 0 else None


def output_width() -> int | None:
    """The width the output must fit: ``COLUMNS`` when it is set (in a pipe too), else the
    terminal's when standard output is one; None when neither (no limit for prose)."""
    columns = _columns()
    if columns is None and out.is_terminal:
        import shutil

        columns = shutil.get_terminal_size().columns
    return columns


def table_width() -> int:
    """The width every table fits: :func:`output_width`, else :data:`PIPE_WIDTH`."""
    return output_width() or PIPE_WIDTH


def say(text: str, hang: int | None = None) -> None:
    """Print a paragraph wrapped at its spaces to :func:`output_width` (a word is never
    cut; a line indented keeps its indentation, or its lines after the first are
    indented by ``hang``); one line where there is no width (a pipe or a file without
    ``COLUMNS``). Errors and notes stay one line each."""
    width = output_width()
    if width is None:
        out.print(text, markup=False, highlight=False, soft_wrap=True)
        return
    import textwrap

    indent = " " * hang if hang is not None else text[:len(text) - len(text.lstrip(" "))]
    out.print("\n".join(textwrap.wrap(text, width, subsequent_indent=indent,
                                      break_long_words=False, break_on_hyphens=False)
                        or [""]), markup=False, highlight=False, soft_wrap=True)


StoreOption = Annotated[
    Path, typer.Option("--store", help="The results store (a DuckDB file).")
]


def did_you_mean(value, choices) -> str:
    """``" Did you mean 'x'?"`` for the choice closest to a mistyped ``value`` (difflib),
    or ``""`` when none is close. Commands are suggested by Click itself."""
    import difflib

    close = difflib.get_close_matches(str(value), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" Did you mean {close[0]!r}?" if close else ""


def plural(n: int, word: str, many: str | None = None) -> str:
    """``"1 dataset"``, ``"2 datasets"`` (``many``: the plural, when not ``word + "s"``)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


class _Never(Exception):
    """An exception class nothing raises (the store's, before the store is imported)."""


@contextmanager
def _bad_input():
    """Turn errors the user can act on into one clean line and an exit code (no traceback).

    A damaged store exits 3, a full disk 4 (both name the file). Validation errors, a
    store in use and paths that cannot be used (``OSError``: a file where a folder is
    wanted, no permission) exit 2.
    """
    try:
        yield
    except Exception as exc:
        # the store's errors, without importing the store (pandas, DuckDB) before a
        # command needs it: an error of the store comes only once the store is imported
        store = sys.modules.get("metaeval.store")
        damaged = store.StoreDamagedError if store is not None else _Never
        locked = store.StoreLockedError if store is not None else _Never
        if isinstance(exc, damaged):
            err.print(f"Error: {exc}", markup=False)
            raise typer.Exit(EXIT_DAMAGED) from None
        if isinstance(exc, OSError):
            if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
                text = str(exc) if exc.filename is None or str(exc.filename) in str(exc) \
                    else f"{exc} ({exc.filename})"
                err.print(f"Error: {text}", markup=False)
                raise typer.Exit(EXIT_DISK_FULL) from None
            err.print(f"Error: {_os_error_text(exc)}", markup=False)
            raise typer.Exit(EXIT_BAD_INPUT) from None
        if not isinstance(exc, (ValueError, locked)):
            raise
        err.print(f"Error: {exc}", markup=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None


def _os_error_text(exc: OSError) -> str:
    """An ``OSError`` in words naming the file (``No such file or directory: 'x.csv'.``),
    without Python's ``[Errno 2]``."""
    if exc.filename is None or not exc.strerror:
        return str(exc)
    named = repr(str(exc.filename))
    if exc.filename2 is not None:
        named += f" -> {str(exc.filename2)!r}"
    return f"{exc.strerror}: {named}."


def check_store_exists(store: Path) -> None:
    """Exit with the store's own line (code 2) when ``store`` does not exist, before the
    store (pandas, DuckDB) is imported."""
    if not os.path.lexists(store):
        err.print(f"Error: No metaeval store at {str(store)!r}: the file does not exist "
                  "(run a study first, or pass the right --store).", markup=False)
        raise typer.Exit(EXIT_BAD_INPUT)


@contextmanager
def reading_results(store: Path, *, what: str, algorithms: int = 2):
    """:func:`require_results`, then the store held open for reading for the block: one
    connection for the command's reads, not one per read (opening the file costs some
    17 ms of CPU, most of it DuckDB's setting up of a database). Yields ``(Store,
    tasks)``; a store that cannot be opened exits as :func:`require_results` says."""
    check_store_exists(store)
    from metaeval.store import Store

    st = Store(store)
    # outermost: a read of the block fails as DuckDB's error, which the store turns into
    # its own (a damaged store, exit 3) as it leaves the held connection
    with _bad_input(), st.reading():
        yield st, require_results(st, what=what, algorithms=algorithms)


def require_results(store, *, what: str, algorithms: int = 2,
                    verify: bool = False):
    """Exit with one line (code 2) when ``store`` lacks the results ``what`` needs.

    ``what`` needs finished tasks, and at least ``algorithms`` algorithms finished on one
    dataset. With ``verify``, the whole store is checked first (a damaged store exits 3),
    so that a command that writes a page never embeds a read error in it. Returns the
    store's finished tasks (``Store.tasks()``).
    """
    from metaeval.store import Store, StoreDamagedError

    if isinstance(store, Store):  # already held open (reading_results)
        st, store = store, store.path
    else:
        check_store_exists(store)
        st = None
    with _bad_input():
        if st is None:
            st = Store(store)
        if verify:
            problems = st.verify()
            if problems:
                raise StoreDamagedError(st.path, "; ".join(problems))
        tasks = st.tasks()
    done = tasks[tasks["status"] == "done"]
    message = None
    if done.empty and tasks.empty:
        message = (f"{what} needs finished tasks, and the store {store} has none yet: run a "
                   f"study into it first (`metaeval run --store {store}`).")
    elif done.empty:
        message = (f"{what} needs finished tasks, and every task of the store {store} failed "
                   f"({len(tasks)}): `metaeval status --store {store}` shows why; fix the "
                   "cause and run the study again with --retry-failed.")
    elif algorithms > 1:
        per_dataset = done.groupby(["dataset", "repeat"])["algorithm"].nunique()
        if per_dataset.max() < algorithms:
            names = ", ".join(sorted(done["algorithm"].unique()))
            message = (f"{what} compares algorithms and needs at least {algorithms} finished "
                       f"on one dataset; the store {store} has only {names}. Add algorithms "
                       f"with `metaeval run --store {store} --algorithms {names},...` (same "
                       "datasets, folds and seed).")
    if message is not None:
        err.print(f"Error: {message}", markup=False)
        raise typer.Exit(EXIT_BAD_INPUT)
    return tasks


def _split(text: str | None) -> list[str] | None:
    if text is None:
        return None
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise ValueError(f"expected a comma-separated list, got {text!r}.")
    return items


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


class _Steps:
    """What :func:`steps` yields: ``advance(description)`` after each unit of work."""

    def __init__(self, bar, task):
        self._bar, self._task = bar, task

    def advance(self, description: str | None = None) -> None:
        if self._bar is not None:
            changes = {} if description is None else {"description": description}
            self._bar.update(self._task, advance=1, **changes)


@contextmanager
def steps(description: str, total: int):
    """A progress bar on standard error while a command works through ``total`` steps.

    Shown on a terminal only (never in a pipe, a file or a test), and removed when the
    work is done, so that the command's output stays what it prints.
    """
    if not err.is_terminal:
        yield _Steps(None, None)
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), console=err, transient=True)
    with bar:
        yield _Steps(bar, bar.add_task(description, total=total))


def print_table(title: str, columns, rows, *, keys: int = 1, wrap: int | None = None) -> None:
    """Print a table drawn like rich's default table, without rich's layout engine, fitted
    to the output's width (:func:`table_width`) by wrapping its cells or splitting its
    columns into groups that repeat the first ``keys`` (:func:`fit_table`).

    ``columns``: ``(header, justify)`` pairs, justify ``"left"`` or ``"right"``;
    ``rows``: sequences of cell strings; ``wrap``: the index of a column of names. The
    title is wrapped as :func:`say` wraps prose. Also for commands that print many
    tables (rich measures every cell of every table, tens of milliseconds per table).
    """
    from metaeval.cli._tables import wrap_text

    # the title is prose: one line in a pipe without COLUMNS, as the other messages
    lines = wrap_text(title, output_width()) if title else []
    lines += fit_table("", columns, rows, width=table_width(), wrap=wrap, keys=keys)
    out.print("\n".join(lines), markup=False, highlight=False, soft_wrap=True)


@contextmanager
def stage(text: str):
    """One stage of a command's work, on standard error: a spinner on a terminal (removed
    when done); elsewhere (a pipe, a file, a log) one line ``text: done in 1.2 s.`` once
    the stage is done, so that a log says what took the time, and a stage that fails
    leaves only its error's one line. Yields ``detail(text)`` as :func:`working` does."""
    if err.is_terminal:
        with err.status(text) as status:
            yield _detail(status, text)
        return
    import time

    started = time.perf_counter()
    yield _no_detail
    # wrapped to the width (COLUMNS), as the lines of the command's output are
    line = f"{text}: done in {time.perf_counter() - started:.1f} s."
    width = output_width()
    if width is not None:
        import textwrap

        line = "\n".join(textwrap.wrap(line, width, break_long_words=False,
                                       break_on_hyphens=False))
    err.print(line, markup=False, highlight=False, soft_wrap=True)


@contextmanager
def working(description: str):
    """A spinner on standard error while a command works on one long step (a terminal
    only, removed when done). Yields ``detail(text)``, which says how far the step has
    come after the spinner's description (on a terminal; nothing elsewhere)."""
    if not err.is_terminal:
        yield _no_detail
        return
    with err.status(description) as status:
        yield _detail(status, description)


def _detail(status, text):
    """``detail(more)``: the spinner ``status`` says ``text (more)``, drawn at once (a
    spinner named anew is redrawn on the spot; a new text alone waits for the next of
    its 12.5 redraws a second)."""
    return lambda more: status.update(f"{text} ({more})", spinner="dots")


def _no_detail(more) -> None:
    """Where no spinner is shown, how far a step has come is not said."""


def folds_done(detail, unit: str = "folds"):
    """``progress(done, total)`` for an evaluation, said by ``detail`` (from
    :func:`working` or :func:`stage`) as "3/10 folds" (short: a spinner's line is cut at
    the terminal's width)."""
    return lambda done, total: detail(f"{done}/{total} {unit}")
