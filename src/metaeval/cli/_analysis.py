"""``metaeval hardness``, ``metaeval rank`` and ``metaeval benchmark``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from metaeval.cli._app import (
    StoreOption,
    _bad_input,
    _note_exclusions,
    _split,
    app,
    err,
    out,
    require_results,
)
from metaeval.store import Store
from metaeval.study import DEFAULT_STORE


# ------------------------------------------------------------------------------ hardness
@app.command()
def hardness(
    store: StoreOption = Path(DEFAULT_STORE),
    repeat: Annotated[int, typer.Option(help="Which repetition's scores.")] = 0,
    dataset: Annotated[
        str | None, typer.Option(help="Comma-separated datasets [default: all].")
    ] = None,
) -> None:
    """Mean instance hardness of each algorithm under each threshold choice method.

    One table per dataset, algorithms as rows and methods as columns (as in Table 1 of
    Melo & Prudêncio 2014).
    """
    from metaeval.hardness import METHODS

    require_results(store, what="`metaeval hardness`", algorithms=1)
    with _bad_input():
        if repeat < 0:
            raise ValueError(f"--repeat must be >= 0; got {repeat}.")
        st = Store(store)
        known = st.datasets()["name"].tolist()
        names = _split(dataset) or known
        unknown = [name for name in names if name not in known]
        if unknown:
            raise ValueError(f"--dataset: {', '.join(map(repr, unknown))} not in the store "
                             f"(it holds {', '.join(known)}).")
        done = st.tasks()
        done = set(done.loc[(done["status"] == "done") & (done["repeat"] == repeat),
                            "dataset"])
        printed = 0
        for name in names:
            if name not in done:
                err.print(f"{name}: no finished scores (repeat {repeat}); skipped.",
                          markup=False)
                continue
            printed += 1
            y, S, algos = st.scores(name, repeat=repeat)
            means = _mean_hardness(y, S)
            table = Table("algorithm", title=f"{name} (n = {y.shape[0]})")
            for method in METHODS:
                table.add_column(method, justify="right", min_width=len(method))
            for j, algo in enumerate(algos):
                table.add_row(algo, *(f"{means[m][j]:.4f}" for m in METHODS))
            out.print(table)
    if not printed:
        err.print(f"No dataset has finished scores for repeat {repeat}.", markup=False)
        raise typer.Exit(1)


@app.command()
def rank(
    store: StoreOption = Path(DEFAULT_STORE),
    measure: Annotated[
        str, typer.Option(help="Success measure: accuracy, auc, ... or hardness:<method> "
                          "(success = 1 - mean instance hardness).")
    ] = "accuracy",
    method: Annotated[
        str | None, typer.Option(help="ar, srr, sw, arr or a3r [default: all five].")
    ] = None,
    accd: Annotated[float, typer.Option(help="ARR: accuracy traded for a 10x speed-up.")] = 0.1,
    n: Annotated[float, typer.Option("--n", help="A3R: the n-th root of the time ratio.")] = 8,
) -> None:
    """Rank the algorithms by accuracy and time (AR, SRR, SW, ARR, A3R), best first."""
    from metaeval.ranking import RANKING_METHODS
    from metaeval.report import StudyView

    require_results(store, what="`metaeval rank`")
    with _bad_input():
        if method is not None and method not in RANKING_METHODS:
            raise ValueError(f"--method must be one of {', '.join(RANKING_METHODS)}; "
                             f"got {method!r}.")
        view = StudyView(Store(store), measure=measure)
        frames = view.rankings(measure, accd=accd, n=n)
        _note_exclusions(view)
        for title, frame in frames.items():
            # titles are "AR", "SRR", "SW", "ARR (AccD=...)", "A3R (n=...)"
            if method is not None and title.split(" ")[0].lower() != method:
                continue
            table = Table("rank", "algorithm", "score", title=f"{title}, measure: {measure}")
            for row in frame.itertuples(index=False):
                table.add_row(f"{row.rank:g}", str(row.algorithm), f"{row.score:.4f}")
            out.print(table)


@app.command()
def benchmark(
    store: StoreOption = Path(DEFAULT_STORE),
    k: Annotated[int, typer.Option(help="Metric disagreement: an error case is when at "
                                   "most k other metrics agree.")] = 2,
    n_slowest: Annotated[int, typer.Option(help="Runtime score over this many of the "
                                           "slowest datasets.")] = 20,
) -> None:
    """Benchmark analytics: value captured, runtime score, metric disagreement, portfolio."""
    from metaeval.benchmark import (
        greedy_portfolio,
        metric_disagreement,
        overall_value,
        runtime_score,
    )
    from metaeval.report import StudyView

    require_results(store, what="`metaeval benchmark`")
    with _bad_input():
        view = StudyView(Store(store))
        _note_exclusions(view)
        vc = view.value_captured()
        times = view.times()
        times = times[times["algorithm"].isin(view.common_algorithms())
                      & times["dataset"].isin(view.usable_datasets())]
        tables = [
            ("Value captured (mean over datasets and metrics, %)", overall_value(vc)),
            (f"Runtime score (log2 of time / fastest, {n_slowest} slowest datasets; "
             "lower is faster)", runtime_score(times, n_slowest=n_slowest)),
        ]
        for title, frame in tables:
            table = Table("rank", "algorithm", "score", title=title)
            for row in frame.itertuples(index=False):
                table.add_row(f"{row.rank:g}", str(row.algorithm), f"{row.score:.3f}")
            out.print(table)
        dis = metric_disagreement(view.metrics(), k=k)
        table = Table("metric", "error cases", "error rate",
                      title=f"Metric disagreement (k = {k}; all metrics agree on "
                      f"{100 * dis.all_agree:.1f} % of {dis.n_comparisons} comparisons)")
        for row in dis.per_metric.itertuples(index=False):
            table.add_row(str(row.metric), str(row.error_cases), f"{row.error_rate:.3f}")
        out.print(table)
        port = greedy_portfolio(vc)
        table = Table("step", "algorithm", "gain", "value", title="Greedy portfolio")
        for row in port.itertuples(index=False):
            table.add_row(str(row.step), str(row.algorithm), f"{row.gain:.2f}",
                          f"{row.value:.2f}")
        out.print(table)


def _mean_hardness(y, S) -> dict:
    """Mean instance hardness per model (column of S) for every method."""
    from metaeval.hardness import METHODS, instance_hardness

    return {m: instance_hardness(y, S, m).mean(axis=0) for m in METHODS}
