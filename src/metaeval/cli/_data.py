"""``metaeval datasets``, ``metaeval algorithms`` and ``metaeval export``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from metaeval.cli._app import (
    StoreOption,
    _bad_input,
    app,
    datasets_app,
    err,
    out,
    print_table,
    steps,
)
from metaeval.cli._early import DEFAULT_STORE

# the store is imported by the commands that read it, after the arguments are parsed


# ------------------------------------------------------------------------------ datasets
@datasets_app.callback()
def _datasets_default(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is None:
        datasets_list(subset="full")


@datasets_app.command("list")
def datasets_list(
    subset: Annotated[str, typer.Option(
        help="quick (15 datasets), full (51) or kb (72, the knowledge base's suite).")
    ] = "full",
) -> None:
    """List the built-in datasets."""
    from metaeval.datasets import list_datasets, manifest

    with _bad_input():
        names = list_datasets(subset)
    m = manifest("kb").set_index("name")
    rows = []
    for name in names:
        r = m.loc[name]
        rows.append([name, str(r["subset"]), str(r["n_rows"]), str(r["n_features"]),
                     str(r["n_categorical"]), f"{float(r['positive_fraction']):.3f}",
                     str(r["family"])])
    print_table(f"Built-in datasets ({subset}: {len(names)})",
                [(h, "left") for h in ("name", "subset", "rows", "features", "categorical",
                                       "class 1", "family")], rows)


@datasets_app.command("show")
def datasets_show(name: Annotated[str, typer.Argument(help="Dataset name.")]) -> None:
    """Describe one built-in dataset (verifies its checksum)."""
    import difflib

    from metaeval.datasets import list_datasets, load_dataset, manifest

    known = list_datasets("kb")
    if name not in known:
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
        hint = f" The closest names: {', '.join(close)}." if close else ""
        err.print(f"Error: there is no built-in dataset named {name!r}.{hint} "
                  "`metaeval datasets list` shows them all.", markup=False)
        raise typer.Exit(2)
    with _bad_input():
        data = load_dataset(name)
    m = manifest("kb").set_index("name")
    rows = [["instances", str(data.n_instances)],
            ["features", f"{data.n_features} ({len(data.categorical)} categorical)"],
            ["class 1 fraction", f"{data.positive_fraction:.4f}"], ["family", data.family],
            ["sha256", data.sha256], ["source", data.source]]
    if name in m.index:
        for key in ("positive_class", "negative_class", "origin", "url", "citation",
                    "license_note", "notes"):
            value = m.at[name, key]
            if isinstance(value, str) and value:
                rows.append([key.replace("_", " "), value])
    print_table(name, [("", "left"), ("", "left")], rows)  # no header: a record


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
    rows = []
    for name in names:
        a = get_algorithm(name)
        params = ", ".join(f"{k}={v!r}" for k, v in a.params)
        rows.append([a.name, family_of(a), a.estimator, params, a.score_method,
                     "yes" if getattr(a, "scale", False) else "no"])
    print_table(f"Algorithms ({pool} pool, {len(names)})",
                [(h, "left") for h in ("name", "family", "estimator", "params", "score",
                                       "scaled")], rows, wrap=0)


# ------------------------------------------------------------------------------ export
@app.command()
def export(
    parquet: Annotated[
        Path | None, typer.Option("--parquet", help="Directory to write the Parquet files to.",
                                  show_default=False)
    ] = None,
    store: StoreOption = Path(DEFAULT_STORE),
    hardness: Annotated[
        bool, typer.Option("--hardness/--no-hardness",
                           help="Also write instance_hardness.parquet: the hardness of "
                           "every instance for every algorithm and threshold choice "
                           "method (Prudêncio 2019), one row each.")
    ] = True,
    aslib: Annotated[
        Path | None, typer.Option("--aslib", help="Write the study under one condition as "
                                  "an ASlib scenario folder instead (a new folder).",
                                  show_default=False)
    ] = None,
    measure: Annotated[str, typer.Option(help="With --aslib: the success measure.")
                       ] = "accuracy",
    cost: Annotated[float | None, typer.Option(
        help="With --aslib: point cost proportion c (hardness measures).")] = None,
    cost_beta: Annotated[str | None, typer.Option(
        "--cost-beta", help="With --aslib: Beta(A, B) cost distribution as A,B.")] = None,
    time_weight: Annotated[str, typer.Option(
        "--time-weight", help="With --aslib: P of A3R (recorded in readme.txt).")] = "0",
    knowledge: Annotated[str | None, typer.Option(
        "--knowledge", help="With --aslib: export a knowledge base file instead of the "
        "store ('shipped': the one shipped with metaeval).", show_default=False)] = None,
) -> None:
    """Export a store's tables to Parquet files (or the study as an ASlib scenario).

    The tables (datasets, algorithms, tasks, scores, timings), how the results were made
    (runs with their library versions, CPU model and cores; each algorithm's full
    hyperparameters; the fold seeds) and, by default, the per-instance hardness as a
    long table: dataset, repeat, row, algorithm, method, hardness.
    """
    if (parquet is None) == (aslib is None):
        err.print("Error: give --parquet DIR or --aslib DIR (one of them).", markup=False)
        raise typer.Exit(2)
    if aslib is not None:
        from metaeval.cli._aslib import export_aslib_command

        export_aslib_command(aslib, store=store, measure=measure, cost=cost,
                             cost_beta=cost_beta, time_weight=time_weight,
                             knowledge=knowledge)
        return
    from metaeval.store import Store

    with _bad_input():
        _check_parquet_target(Path(parquet), store)
        st = Store(store)
        with steps(f"Exporting the tables of {store}", 1) as bar:
            paths = st.export_parquet(parquet)
            bar.advance()
        if st.runs().empty:
            err.print("Note: this store was written before metaeval recorded its runs, the "
                      "algorithms' full hyperparameters and the fold seeds; they are not "
                      "recorded, so runs, algorithm_hyperparameters and fold_seeds are not "
                      "written.", markup=False)
        if hardness:
            paths.append(_export_hardness(st, Path(parquet) / "instance_hardness.parquet"))
    for path in paths:
        out.print(str(path), markup=False)


#: the files ``export --parquet DIR`` writes in DIR (``Store.export_parquet`` and the
#: hardness table)
PARQUET_FILES = ("datasets", "algorithms", "tasks", "scores", "timings", "runs",
                 "algorithm_hyperparameters", "fold_seeds", "instance_hardness", "units")


def _check_parquet_target(directory: Path, store) -> None:
    """The folder and every file ``export --parquet`` writes: none an input, inside the
    package, or of another kind."""
    from metaeval.cli._outputs import check_output

    inputs = [(store, "--store")]
    check_output(directory, "--parquet", "parquet", inputs)
    if directory.is_dir():
        for name in PARQUET_FILES:
            check_output(directory / f"{name}.parquet", "--parquet", "data", inputs)
        check_output(directory / "study.json", "--parquet", "json", inputs)


def _export_hardness(st, target: Path) -> Path:
    """Write the instance hardness of every finished task, a few datasets at a time."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("dataset", pa.string()), ("repeat", pa.int16()),
                        ("row", pa.int32()), ("algorithm", pa.string()),
                        ("method", pa.string()), ("hardness", pa.float64())])
    tasks = st.tasks()
    done = tasks[tasks["status"] == "done"][["dataset", "repeat"]].drop_duplicates()
    with pq.ParquetWriter(target, schema) as writer, \
            steps("Instance hardness", len(done)) as bar:
        for repeat in sorted(done["repeat"].unique()):
            names = done.loc[done["repeat"] == repeat, "dataset"].tolist()
            for name, y, S, algos, _ in st.iter_scores(names, repeat=int(repeat)):
                bar.advance(f"Instance hardness: {name}")
                writer.write_table(_hardness_table(name, int(repeat), y, S, algos, schema))
    return target


def _hardness_table(name, repeat, y, S, algos, schema):
    """One dataset's instance hardness, long: one row per (row, algorithm, method)."""
    import numpy as np
    import pyarrow as pa

    from metaeval.hardness import METHODS, instance_hardness_by_method

    n, k = S.shape
    m = len(METHODS)
    H = instance_hardness_by_method(y, S)
    values = np.stack([H[method] for method in METHODS], axis=2).reshape(-1)
    return pa.table({
        "dataset": pa.array([name] * values.size, pa.string()),
        "repeat": np.full(values.size, repeat, dtype=np.int16),
        "row": np.repeat(np.arange(n, dtype=np.int32), k * m),
        "algorithm": pa.DictionaryArray.from_arrays(
            np.tile(np.repeat(np.arange(k, dtype=np.int32), m), n), algos),
        "method": pa.DictionaryArray.from_arrays(
            np.tile(np.arange(m, dtype=np.int32), n * k), list(METHODS)),
        "hardness": values,
    }).cast(schema)
