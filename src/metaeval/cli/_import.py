"""``metaeval import``: predictions made elsewhere into a store, without refitting."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from metaeval.cli._app import StoreOption, _bad_input, app, err, out
from metaeval.store import Store
from metaeval.study import DEFAULT_STORE


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
    before = None
    try:
        with _bad_input():
            target = Store(store)
            with target.writing():
                before = _finished(target)
                summary = target.import_predictions(source, format=format, dataset=dataset,
                                                    algorithm=algorithm, pos_label=pos_label,
                                                    folds=folds)
        table = Table("dataset", "algorithm", "repeat", "rows", "folds",
                      title=f"Imported into {store}")
        for row in summary.itertuples(index=False):
            table.add_row(row.dataset, row.algorithm, str(row.repeat), str(row.rows),
                          str(row.folds))
        out.print(table)
    except KeyboardInterrupt:  # the store turns DuckDB's interrupted query into one
        _interrupted(target if before is not None else None, before, store)


def _finished(store) -> int:
    """Finished tasks in the store: an import adds some, all together, or none."""
    return int(store.status_counts()["done"])


def _interrupted(store, before, store_path) -> None:
    """Ctrl-C: one line saying whether the import was committed, and exit 130.

    The import is one transaction, so the store holds all of it or none of it; which
    one is read back from the store (the signal may come just after the commit).
    """
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):  # one clean message, whatever comes next
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
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
    err.print(f"Interrupted (SIGINT); {what}.", markup=False)
    raise typer.Exit(130)
