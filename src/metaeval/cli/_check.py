"""``metaeval check``: verify a store from end to end."""

from __future__ import annotations

from pathlib import Path

import typer

from metaeval.cli._app import (
    EXIT_DAMAGED,
    StoreOption,
    _bad_input,
    app,
    check_store_exists,
    err,
    say,
    steps,
)
from metaeval.cli._early import DEFAULT_STORE


@app.command()
def check(store: StoreOption = Path(DEFAULT_STORE)) -> None:
    """Verify a store: read every table whole and check that the tables agree.

    Exit code 0 when the store is sound, 3 when it is damaged (each problem is listed).
    """
    check_store_exists(store)  # before the store (pandas, DuckDB) is imported
    from metaeval.store import Store

    with _bad_input():
        st = Store(store)
        with steps(f"Checking every table of {store}", 1) as bar:
            problems = st.verify()
            bar.advance()
        counts = None if problems else st.status_counts()
    if problems:
        err.print(f"The store {store} is damaged ({len(problems)} problem"
                  f"{'s' if len(problems) != 1 else ''}):", markup=False)
        for problem in problems:
            err.print(f"  - {problem}", markup=False)
        err.print("Its scores can be re-created by running the study again into a new store "
                  f"(another --store); `metaeval export --store {store} --parquet DIR` saves "
                  "the tables that are still readable.", markup=False)
        raise typer.Exit(EXIT_DAMAGED)
    say(f"The store {store} is sound: {sum(counts.values())} tasks ({counts['done']} done, "
        f"{counts['failed']} failed, {counts['pending']} pending), every score and timing "
        "read and checked.")
