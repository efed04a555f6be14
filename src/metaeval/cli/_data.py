"""``metaeval datasets``, ``metaeval algorithms`` and ``metaeval export``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from metaeval.cli._app import StoreOption, _bad_input, app, datasets_app, err, out
from metaeval.store import Store
from metaeval.study import DEFAULT_STORE


# ------------------------------------------------------------------------------ datasets
@datasets_app.callback()
def _datasets_default(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is None:
        datasets_list(subset="full")


@datasets_app.command("list")
def datasets_list(
    subset: Annotated[str, typer.Option(help="quick (15 datasets) or full (51).")] = "full",
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
    import difflib

    from metaeval.datasets import list_datasets, load_dataset, manifest

    known = list_datasets("full")
    if name not in known:
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
        hint = f" The closest names: {', '.join(close)}." if close else ""
        err.print(f"Error: there is no built-in dataset named {name!r}.{hint} "
                  "`metaeval datasets list` shows them all.", markup=False)
        raise typer.Exit(2)
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
def algorithms(
    pool: Annotated[str, typer.Option(help="default (the 8 of Melo & Prudêncio 2014) or "
                                      "wide (150+ configurations of 16 families).")] = "default",
) -> None:
    """List the algorithm pool, each algorithm's family and how it scores."""
    from metaeval.algorithms import family_of, get_algorithm, list_algorithms

    with _bad_input():
        names = list_algorithms(pool)
    table = Table("name", "family", "estimator", "params", "score", "scaled",
                  title=f"Algorithms ({pool} pool, {len(names)})")
    table.columns[0].no_wrap = True  # a configuration's name is one token
    for name in names:
        a = get_algorithm(name)
        params = ", ".join(f"{k}={v!r}" for k, v in a.params)
        table.add_row(a.name, family_of(a), a.estimator, params, a.score_method,
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
