"""``metaeval report`` and ``metaeval plot``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from metaeval.cli._app import StoreOption, _bad_input, app, out, require_results
from metaeval.store import Store
from metaeval.study import DEFAULT_STORE


@app.command()
def report(
    store: StoreOption = Path(DEFAULT_STORE),
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for index.html.")] = Path(
        "metaeval-results/report"),
) -> None:
    """Write the self-contained HTML report of a store (DIR/index.html)."""
    from metaeval.report import write_report

    require_results(store, what="`metaeval report`", verify=True)
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
        if spec is not None and spec.needs_store:
            require_results(store, what=f"`metaeval plot {kind}`",
                            algorithms=2 if kind == "dendrograms" else 1)
        fig = make_plot(kind, Store(store) if spec is None or spec.needs_store else None,
                        **options)
        out_file.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out_file)
    out.print(f"Figure written to {out_file}", markup=False)
