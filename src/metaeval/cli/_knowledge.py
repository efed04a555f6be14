"""``metaeval describe`` and ``metaeval knowledge``: describe a store's datasets, build a
knowledge base file from a study."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from metaeval.cli._app import StoreOption, _bad_input, app, err, out
from metaeval.study import DEFAULT_STORE

knowledge_app = typer.Typer(help="Knowledge bases for `metaeval recommend` (build, show).",
                            no_args_is_help=True)
app.add_typer(knowledge_app, name="knowledge")


def _progress(quiet):
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=err, disable=quiet or not err.is_terminal,
                    transient=True)


@app.command("describe")
def describe_command(
    store: StoreOption = Path(DEFAULT_STORE),
    time_budget: Annotated[float, typer.Option(
        "--time-budget", help="CPU seconds each pymfe group may take.")] = 2.0,
    groups: Annotated[str | None, typer.Option(
        help="Comma-separated pymfe groups [default: general, statistical, info-theory, "
        "model-based, landmarking].", show_default=False)] = None,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="No progress bar.")] = False,
) -> None:
    """Describe the store's datasets (pymfe meta-features and cost-sensitive landmarkers)
    and cache the descriptions in the store; datasets already described are skipped."""
    from metaeval.recommend import describe_store
    from metaeval.store import Store

    with _bad_input():
        st = Store(store)
        if not st.exists():
            raise ValueError(f"no store at {store}.")
        names = st.datasets()["name"].tolist()
        todo = len(set(names) - set(st.metafeature_groups()["dataset"]))
        with _progress(quiet) as bar:
            task = bar.add_task("Describing datasets", total=todo)

            def advance(name, description):
                bar.update(task, advance=1, description=f"Described {name}")

            extra = {} if groups is None else {
                "groups": tuple(g.strip() for g in groups.split(",") if g.strip())}
            groups = describe_store(st, progress=advance, time_budget=time_budget, **extra)
    if not len(groups):
        out.print(f"Every dataset of {store} was already described.", markup=False)
        return
    timeouts = groups[groups["status"] != "ok"]
    out.print(f"Described {groups['dataset'].nunique()} dataset(s) in "
              f"{groups['cpu'].sum():.1f} CPU s; {len(timeouts)} group(s) failed or ran out of "
              "their budget (their features are missing).", markup=False)


@knowledge_app.command("build")
def build_command(
    store: StoreOption = Path(DEFAULT_STORE),
    out_file: Annotated[Path, typer.Option(
        "--out", help="The knowledge base file to write (.npz).")] = Path(
        "metaeval-results/knowledge.npz"),
    jobs: Annotated[int, typer.Option(help="Worker processes.")] = 1,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="No progress bar.")] = False,
) -> None:
    """Build a knowledge base file from a finished, described study (deterministic).

    It keeps, for every (dataset, algorithm), the ten benchmark metrics, the mean instance
    cost curve of each threshold choice method and the CPU and wall seconds, and every
    dataset's description: what `metaeval recommend --knowledge FILE` needs under any
    operating condition.
    """
    from metaeval._validation import check_output_file
    from metaeval.recommend import build_knowledge
    from metaeval.store import Store

    with _bad_input():
        check_output_file(out_file, "--out")  # before the work, not after it
        st = Store(store)
        if not st.exists():
            raise ValueError(f"no store at {store}.")
        total = len(st.datasets())
        with _progress(quiet) as bar:
            task = bar.add_task("Summarising datasets", total=total)
            archive = build_knowledge(st, jobs=jobs,
                                      progress=lambda name: bar.update(task, advance=1))
        path = archive.save(out_file, what="--out")
    out.print(f"{archive!r} written to {path} ({path.stat().st_size / 2**20:.1f} MiB).",
              markup=False)


@knowledge_app.command("show")
def show_command(
    knowledge: Annotated[Path | None, typer.Argument(
        help="A knowledge base file [default: the shipped one].", show_default=False)] = None,
) -> None:
    """What a knowledge base holds and how it was made."""
    from metaeval.recommend import load_knowledge

    with _bad_input():
        archive = load_knowledge(knowledge)
    p = archive.provenance
    out.print(repr(archive), markup=False)
    study = p.get("study") or {}
    out.print(f"Study: {study.get('folds', '?')}-fold CV, seed {study.get('seed', '?')}; "
              f"{p.get('failed_cells', 0)} failed (dataset, algorithm) cells.", markup=False)
    for run in p.get("runs", []):
        env = run.get("environment", {})
        versions = env.get("versions", {})
        out.print(f"Run {run.get('started')}: {env.get('executor', '?')} on "
                  f"{env.get('cpu_model', '?')}; scikit-learn {versions.get('scikit-learn')}, "
                  f"metaeval {versions.get('metaeval')}.", markup=False)
    for key, value in (p.get("accuracy") or {}).items():
        out.print(f"Error against the store: {key}: {value}", markup=False)
