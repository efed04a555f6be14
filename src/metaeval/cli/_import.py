"""``metaeval import``: predictions made elsewhere into a store, without refitting."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from metaeval.cli._app import StoreOption, _bad_input, app, print_table
from metaeval.cli._early import DEFAULT_STORE
from metaeval.cli._signals import exit_stopped, stop_on_signals

# the store is imported by the command, after its arguments are parsed


@app.command("import")
def import_(
    source: Annotated[Path, typer.Argument(
        help="An OpenML predictions.arff, or a long or wide table (.csv or .parquet).")],
    store: StoreOption = Path(DEFAULT_STORE),
    format: Annotated[str | None, typer.Option(
        "--format", help="openml, long or wide [default: guessed from the file].")] = None,
    dataset: Annotated[str | None, typer.Option(
        help="The dataset (needed for an OpenML file; a table may name it in a column).")
    ] = None,
    algorithm: Annotated[str | None, typer.Option(
        help="The name the predictions are stored under (needed for an OpenML file).")
    ] = None,
    pos_label: Annotated[str | None, typer.Option(
        help="The OpenML class that is class 1 [default: the built-in dataset's].")] = None,
    folds: Annotated[int | None, typer.Option(
        help="The folds that exist [default: the store's study, else the file's].")] = None,
) -> None:
    """Import out-of-fold predictions made elsewhere (no refit), all or nothing.

    Re-using stored results instead of running algorithms again, as Abdulrahman &
    Brazdil (2014) propose. Rows are checked against the stored dataset first:
    duplicates, unknown or missing rows, folds that do not exist, NaN scores and classes
    that differ are reported with the first offending rows, and nothing is imported.
    """
    from metaeval.store import Store

    before = target = None
    try:
        with stop_on_signals(), _bad_input():
            target = Store(store)
            with target.writing():
                before = _finished(target)
                summary = target.import_predictions(source, format=format, dataset=dataset,
                                                    algorithm=algorithm, pos_label=pos_label,
                                                    folds=folds)
    except KeyboardInterrupt as exc:  # SIGINT, SIGTERM, SIGHUP: the store holds all or none
        _interrupted(target if before is not None else None, before, store, exc)
    try:
        print_table(f"Imported into {store}",
                    [(h, "left") for h in ("dataset", "algorithm", "repeat", "rows", "folds")],
                    [[str(row.dataset), str(row.algorithm), str(row.repeat), str(row.rows),
                      str(row.folds)] for row in summary.itertuples(index=False)], keys=2)
    except KeyboardInterrupt as exc:  # the import is committed: only the table is cut
        exit_stopped(exc, f"the import was committed: the predictions are in {store}")


def _finished(store) -> int:
    """Finished tasks in the store: an import adds some, all together, or none."""
    return int(store.status_counts()["done"])


def _interrupted(store, before, store_path, exc) -> None:
    """Stopped (SIGINT, SIGTERM, SIGHUP): one line saying whether the import was
    committed, and the signal's exit code (130, 143, 129).

    The import is one transaction, so the store holds all of it or none of it; which
    one is read back from the store (the signal may come just after the commit).
    """
    from metaeval.cli._signals import ignore_stop_signals
    from metaeval.store import Store

    ignore_stop_signals()  # one clean message, whatever comes next
    if store is None:
        what = f"nothing was imported: {store_path} is as it was"
    else:
        try:
            committed = Store(store.path).status_counts()["done"] > before
        except Exception:  # noqa: BLE001 - the store cannot say: say so
            committed = None
        what = {True: f"the import was committed: the predictions are in {store.path}",
                False: f"nothing was imported: {store.path} is as it was",
                None: f"whether the import was committed is unknown: see `metaeval status "
                      f"--store {store.path}`"}[committed]
    exit_stopped(exc, what)
