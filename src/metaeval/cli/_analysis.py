"""``metaeval hardness``, ``metaeval rank`` and ``metaeval benchmark``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from metaeval.cli._app import (
    StoreOption,
    _bad_input,
    _note_exclusions,
    _split,
    app,
    check_store_exists,
    did_you_mean,
    err,
    plural,
    print_table,
    reading_results,
    say,
    steps,
)
from metaeval.cli._early import DEFAULT_STORE

# the store is imported by the commands that read it, after the arguments are parsed


# ------------------------------------------------------------------------------ hardness
@app.command()
def hardness(
    store: StoreOption = Path(DEFAULT_STORE),
    repeat: Annotated[int, typer.Option(help="Which repetition's scores.")] = 0,
    dataset: Annotated[
        str | None, typer.Option(help="Comma-separated datasets [default: all].")
    ] = None,
    instances: Annotated[
        str | None, typer.Option(
            "--instances", metavar="DATASET",
            help="List the hardest instances of this dataset instead: row, class, and "
            "the hardness of the instance for each algorithm.")
    ] = None,
    method: Annotated[
        str | None, typer.Option(help="With --instances: only this threshold choice "
                                 "method [default: all five].")
    ] = None,
    top: Annotated[int, typer.Option(help="With --instances: how many instances.")] = 10,
) -> None:
    """Mean instance hardness of each algorithm under each threshold choice method.

    One table per dataset, algorithms as rows and methods as columns (as in Table 1 of
    Melo & Prudêncio 2014); each mean is followed by its standard deviation over the
    cross-validation folds (the mean over each fold's instances). A last table averages
    over the datasets (± the standard deviation over datasets). With --instances, the
    hardest instances of one dataset instead, by pool hardness (the mean over the
    algorithms, Prudêncio 2019).
    """
    check_store_exists(store)  # before the heavy imports
    with reading_results(store, what="`metaeval hardness`", algorithms=1) as (st, tasks):
        _hardness(st, tasks, repeat, dataset, instances, method, top)


def _hardness(st, tasks, repeat, dataset, instances, method, top) -> None:
    """The body of :func:`hardness`, on the store held open (``reading_results``)."""
    from metaeval.hardness import METHODS

    with _bad_input():
        if repeat < 0:
            raise ValueError(f"--repeat must be >= 0; got {repeat}.")
        if method is not None and method not in METHODS:
            raise ValueError(f"--method must be one of {', '.join(METHODS)}; got {method!r}."
                             + did_you_mean(method, METHODS))
        if instances is None and (method is not None or top != 10):
            raise ValueError("--method and --top go with --instances DATASET.")
        known = st.datasets()["name"].tolist()
        if instances is not None:
            if dataset is not None:
                raise ValueError("give either --instances DATASET or --dataset, not both.")
            if top < 1:
                raise ValueError(f"--top must be a positive integer; got {top}.")
            if instances not in known:
                raise ValueError(f"--instances: {instances!r} is not in the store (it holds "
                                 f"{', '.join(known)})." + did_you_mean(instances, known))
            _hardest_instances(st, instances, repeat, (method,) if method else METHODS, top)
            return
        names = _split(dataset) or known
        unknown = [name for name in names if name not in known]
        if unknown:
            raise ValueError(f"--dataset: {', '.join(map(repr, unknown))} not in the store "
                             f"(it holds {', '.join(known)})."
                             + did_you_mean(unknown[0], known))
        done = set(tasks.loc[(tasks["status"] == "done") & (tasks["repeat"] == repeat),
                             "dataset"])
        tables, overall = [], []
        for name in names:
            if name not in done:
                err.print(f"{name}: no finished scores (repeat {repeat}); skipped.",
                          markup=False)
        with steps("Instance hardness", len(names)) as bar:
            for name, y, S, algos, folds in st.iter_scores(
                    [n for n in names if n in done], repeat=repeat):
                bar.advance(f"Instance hardness: {name}")
                means, sds = _mean_hardness(y, S, folds)
                overall.append((algos, means))
                rows = [[algo, *(f"{means[m][j]:.4f} ± {sds[m][j]:.4f}" for m in METHODS)]
                        for j, algo in enumerate(algos)]
                tables.append((f"{name} (n = {y.shape[0]}; mean ± sd over "
                               f"{plural(np.unique(folds).size, 'fold')})", rows))
        columns = [("algorithm", "left")] + [(m, "right") for m in METHODS]
        for title, rows in tables:
            print_table(title, columns, rows, wrap=0)
        if len(overall) > 1:
            print_table(*_over_datasets(overall), wrap=0)
    if not overall:
        err.print(f"No dataset has finished scores for repeat {repeat}.", markup=False)
        raise typer.Exit(1)


def _mean_hardness(y, S, folds) -> tuple[dict, dict]:
    """Mean instance hardness per model (column of S) for every method, and the standard
    deviation over folds of the per-fold mean."""
    from metaeval.hardness import instance_hardness_by_method

    H = instance_hardness_by_method(y, S)
    ids, inverse = np.unique(folds, return_inverse=True)
    counts = np.bincount(inverse, minlength=ids.size)[:, None]
    means, sds = {}, {}
    onehot = (inverse[:, None] == np.arange(ids.size)).T.astype(np.float64)
    for m, h in H.items():
        means[m] = h.mean(axis=0)
        per_fold = onehot @ h / counts
        sds[m] = per_fold.std(axis=0, ddof=1) if ids.size > 1 else np.full(h.shape[1], np.nan)
    return means, sds


def _over_datasets(overall) -> tuple[str, list, list]:
    """Mean over datasets of each algorithm's mean hardness, ± sd over datasets: the
    title, columns and rows of :func:`print_table`."""
    from metaeval.hardness import METHODS

    order = list(dict.fromkeys(a for algos, _ in overall for a in algos))
    title = f"Over the {len(overall)} datasets: mean instance hardness ± sd over datasets"
    columns = [*_left("algorithm", "datasets"), *((m, "right") for m in METHODS)]
    table = []
    for algo in order:
        rows = [{m: means[m][algos.index(algo)] for m in METHODS}
                for algos, means in overall if algo in algos]
        cells = []
        for m in METHODS:
            v = np.array([r[m] for r in rows])
            sd = f"{v.std(ddof=1):.4f}" if v.size > 1 else "n/a"
            cells.append(f"{v.mean():.4f} ± {sd}")
        table.append([algo, str(len(rows)), *cells])
    return title, columns, table


def _hardest_instances(st, name, repeat, methods, top) -> None:
    from metaeval.hardness import instance_hardness_by_method

    y, S, algos = st.scores(name, repeat=repeat)
    H = instance_hardness_by_method(y, S, methods)
    k = min(top, y.shape[0])
    for m in methods:
        pool = H[m].mean(axis=1)
        order = np.argsort(-pool, kind="stable")[:k]
        rows = [[str(int(i)), str(int(y[i])), f"{pool[i]:.4f}",
                 *(f"{H[m][i, j]:.4f}" for j in range(len(algos)))] for i in order]
        print_table(f"{name}: the {k} hardest of {plural(y.shape[0], 'instance')} under {m} "
                    f"(by pool hardness, the mean over the {plural(len(algos), 'algorithm')}; "
                    f"repeat {repeat})",
                    _left("row", "class", "pool", *algos), rows, keys=3)


TimeOption = Annotated[
    str | None, typer.Option("--time", help="The time of ARR, A3R and the runtime score: "
                             "cpu (CPU seconds of fit + predict, summed over the folds; "
                             "steady on a shared machine) or wall (wall-clock seconds) "
                             "[default: cpu].", show_default=False)
]


def _check_clock(clock: str | None) -> None:
    from metaeval.benchmark import CLOCKS

    if clock is not None and clock not in CLOCKS:
        raise ValueError(f"--time must be one of {', '.join(CLOCKS)}; got {clock!r}."
                         + did_you_mean(clock, CLOCKS))


def _times(st, clock: str | None):
    """``(times, clock)``: task times by ``clock`` (None: CPU, or wall time with a note
    when the store has no CPU times); an explicit cpu on such a store is an error."""
    from metaeval.benchmark import task_times

    timings = st.timings()
    if clock != "wall" and timings["fit_cpu"].isna().any():
        if clock == "cpu":
            raise ValueError(f"the store {st.path} has no CPU times recorded (written by an "
                             "older metaeval); use --time wall, or run the study into a new "
                             "store.")
        err.print(f"Note: the store {st.path} has no CPU times recorded (written by an older "
                  "metaeval); using wall-clock time.", markup=False)
        clock = "wall"
    clock = clock or "cpu"
    return task_times(timings, clock=clock), clock


def _check_measure(measure: str) -> None:
    """A ValueError naming --measure, with the closest measure, for an unknown one."""
    from metaeval.benchmark import METRICS

    if measure not in METRICS:
        raise ValueError(f"--measure must be one of {', '.join(METRICS)}; got {measure!r}."
                         + did_you_mean(measure, METRICS))


def _clock_words(clock: str) -> str:
    return ("CPU seconds of fit + predict over the folds" if clock == "cpu"
            else "wall-clock seconds of fit + predict over the folds")


ByFamilyOption = Annotated[
    str | None, typer.Option(
        "--by-family", metavar="best|mean",
        help="Tables by algorithm family (the part of a name before the colon) instead of "
        "by algorithm: each family represented on each dataset by its best member (best) "
        "or by the mean of its members (mean).", show_default=False)
]


def _check_by_family(how: str | None) -> None:
    from metaeval.ranking import FAMILY_HOW

    if how is not None and how not in FAMILY_HOW:
        raise ValueError(f"--by-family must be one of {', '.join(FAMILY_HOW)}; got {how!r}."
                         + did_you_mean(how, FAMILY_HOW))


def _family_map(algorithms) -> dict[str, str]:
    """``{algorithm: family}``; a ValueError when the algorithms make fewer than 2 families."""
    from metaeval.algorithms import families

    fams = families(sorted(set(map(str, algorithms))))
    if len(set(fams.values())) < 2:
        raise ValueError(f"--by-family: the {plural(len(fams), 'algorithm')} all belong to "
                         "the family "
                         f"{next(iter(fams.values()), '?')!r}; comparing families needs two.")
    return fams


def _family_words(how: str) -> str:
    return ("each family by its best member on each dataset" if how == "best"
            else "each family by the mean of its members")


# ------------------------------------------------------------------------------ rank
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
    time: TimeOption = None,
    draws: Annotated[int, typer.Option(help="Bootstrap draws of the intervals.")] = 1000,
    by_family: ByFamilyOption = None,
) -> None:
    """Rank the algorithms by accuracy and time (AR, SRR, SW, ARR, A3R), best first.

    The methods of Abdulrahman & Brazdil (2014). Each score comes with a 95 % bootstrap
    interval over the datasets: how much it would move on other datasets. With
    --by-family best|mean, the families are ranked instead, each represented on each
    dataset by its best member or by its members' mean.
    """
    check_store_exists(store)  # before the heavy imports
    import warnings

    from metaeval.cli._results import results_view
    from metaeval.ranking import RANKING_METHODS, rank_algorithms, ranking_intervals

    with reading_results(store, what="`metaeval rank`") as (st, _), _bad_input():
        _check_by_family(by_family)
        _check_measure(measure)
        if method is not None and method not in RANKING_METHODS:
            raise ValueError(f"--method must be one of {', '.join(RANKING_METHODS)}; "
                             f"got {method!r}." + did_you_mean(method, RANKING_METHODS))
        _check_clock(time)
        if draws < 2:
            raise ValueError(f"--draws must be at least 2; got {draws}.")
        methods = [method] if method is not None else list(RANKING_METHODS)
        with st.reading(), steps("Rankings", 2 + len(methods)) as bar:
            view = results_view(st)
            bar.advance("Rankings: reading the scores")
            success, hib = view.success(measure)
            bar.advance("Rankings: times")
            times, time = _times(st, time)
            times = times[times["dataset"].isin(success["dataset"].unique())
                          & times["algorithm"].isin(success["algorithm"].unique())]
            n_datasets = success["dataset"].nunique()
            label, extra = "algorithm", {}
            if by_family is not None:
                from metaeval.ranking import family_members, family_success, family_times

                fams = _family_map(success["algorithm"])
                times = family_times(times, success, fams, how=by_family, higher_is_better=hib)
                if by_family == "best":
                    often = family_members(success, fams, higher_is_better=hib)
                    often = often.groupby("family")["member"].agg(
                        lambda m: m.value_counts().sort_index().idxmax())
                    extra["best member (most datasets)"] = often
                from collections import Counter

                extra = {"configurations": Counter(fams.values()), **extra}
                success = family_success(success, fams, how=by_family, higher_is_better=hib)
                label = "family"
            results = []
            for m in methods:
                bar.advance(f"Rankings: {m.upper()}")
                kw = {"higher_is_better": hib}
                title = m.upper()
                if m == "arr":
                    kw["accd"], title = accd, f"ARR (AccD={accd:g})"
                elif m == "a3r":
                    kw["n"], title = n, f"A3R (n={n:g})"
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)  # ARR's pole: NaN, shown
                    frame = rank_algorithms(success, times if m in ("arr", "a3r") else None,
                                            method=m, **kw)
                    ci = ranking_intervals(success, times, method=m, B=draws,
                                           **{k: v for k, v in kw.items()})
                results.append((m, title, frame, ci.set_index("algorithm")))
            _note_exclusions(view)
    for m, title, frame, ci in results:
        caption = f"{title}, measure: {measure}"
        if m in ("arr", "a3r"):
            caption += f", time: {_clock_words(time)}"
        caption += "; " + ("lower is better" if m == "ar" else "higher is better")
        if by_family is not None:
            caption = f"Families, {_family_words(by_family)}: {caption}"
        rows = []
        for row in frame.itertuples(index=False):
            lo, hi = ci.at[row.algorithm, "low"], ci.at[row.algorithm, "high"]
            rows.append([f"{row.rank:g}", str(row.algorithm),
                         *(str(col.get(row.algorithm, "")) for col in extra.values()),
                         f"{row.score:.4f}", f"{lo:.4f} to {hi:.4f}"])
        print_table(caption, _left("rank", label, *extra, "score", "95 % interval"), rows,
                    keys=2, wrap=1)
    say(f"Intervals: 95 % bootstrap over the {plural(n_datasets, 'dataset')} ({draws} draws "
        "of the datasets with replacement).")


# ------------------------------------------------------------------------------ benchmark
@app.command()
def benchmark(
    store: StoreOption = Path(DEFAULT_STORE),
    k: Annotated[int, typer.Option(help="Metric disagreement: an error case is when at "
                                   "most k other metrics agree.")] = 2,
    n_slowest: Annotated[int, typer.Option(help="Runtime score over this many of the "
                                           "slowest datasets.")] = 20,
    time: TimeOption = None,
    by_family: ByFamilyOption = None,
) -> None:
    """Benchmark analytics: value captured, runtime score, metric disagreement, portfolio.

    Every mean comes with its standard deviation over the datasets. With --by-family
    best|mean, the value captured, the metric means and the portfolio are by algorithm
    family instead, each family represented in each (dataset, metric) by its best
    member or by its members' mean.
    """
    check_store_exists(store)  # before the heavy imports
    from metaeval.benchmark import (
        greedy_portfolio,
        metric_disagreement,
        overall_value,
        portfolio_spread,
        runtime_score,
        runtime_spread,
        value_spread,
    )
    from metaeval.cli._results import results_view

    with reading_results(store, what="`metaeval benchmark`") as (st, _), _bad_input():
        _check_clock(time)
        _check_by_family(by_family)
        if by_family is not None:
            _benchmark_by_family(store, by_family)
            return
        with st.reading(), steps("Benchmark", 4) as bar:
            view = results_view(st)
            bar.advance("Benchmark: metrics")
            vc = view.value_captured()
            bar.advance("Benchmark: times")
            times, time = _times(st, time)
            times = times[times["algorithm"].isin(view.common_algorithms())
                          & times["dataset"].isin(view.usable_datasets())]
            runtime = runtime_score(times, n_slowest=n_slowest)
            used = runtime.attrs["datasets"]
            bar.advance("Benchmark: metric disagreement")
            dis = metric_disagreement(view.metrics(), k=k)
            bar.advance("Benchmark: portfolio")
            port = greedy_portfolio(vc)
            port_sd = portfolio_spread(vc, port["algorithm"].tolist())
            _note_exclusions(view)
        n_vc = vc["dataset"].nunique()
        tables = [
            (f"Value captured (%, mean over the {plural(n_vc, 'dataset')} and the metrics; "
             "sd over datasets)", overall_value(vc), value_spread(vc)),
            (f"Runtime score (log2 of time / fastest on each dataset, {_clock_words(time)}; "
             + (f"mean over the {len(used)} slowest datasets" if len(used) == n_slowest
                else f"mean over all {plural(len(used), 'dataset')} (fewer than "
                f"--n-slowest {n_slowest})")
             + "; lower is faster; sd over those datasets)", runtime,
             runtime_spread(times, used)),
        ]
        for title, frame, spread in tables:
            sd = spread.set_index("algorithm")["sd"]
            print_table(title, _left("rank", "algorithm", "score", "sd"),
                        [[f"{row.rank:g}", str(row.algorithm), f"{row.score:.3f}",
                          _fmt(sd.get(row.algorithm), ".3f")]
                         for row in frame.itertuples(index=False)], keys=2, wrap=1)
        print_table(f"Metric disagreement (k = {k}; all metrics agree on "
                    f"{100 * dis.all_agree:.1f} % of {dis.n_comparisons} comparisons)",
                    _left("metric", "error cases", "error rate"),
                    [[str(row.metric), str(row.error_cases), f"{row.error_rate:.3f}"]
                     for row in dis.per_metric.itertuples(index=False)])
        print_table("Greedy portfolio (value: % captured, mean over datasets and metrics; sd "
                    "over datasets)", _left("step", "algorithm", "gain", "value", "sd"),
                    [[str(row.step), str(row.algorithm), f"{row.gain:.2f}",
                      f"{row.value:.2f}", _fmt(sd, ".2f")]
                     for row, sd in zip(port.itertuples(index=False), port_sd, strict=True)],
                    keys=2, wrap=1)


def _benchmark_by_family(store: Path, how: str) -> None:
    """The family tables of ``metaeval benchmark --by-family``."""
    from metaeval.benchmark import (
        family_metrics,
        family_value,
        family_value_captured,
        greedy_portfolio,
        overall_value,
        portfolio_spread,
        value_spread,
    )
    from metaeval.cli._results import results_view
    from metaeval.report._glossary import human_name
    from metaeval.store import Store

    st = Store(store)
    with st.reading(), steps("Benchmark by family", 3) as bar:
        view = results_view(st)
        bar.advance("Benchmark by family: metrics")
        vc = view.value_captured()
        metrics = view.metrics()
        fams = _family_map(vc["algorithm"])
        bar.advance("Benchmark by family: value captured")
        fvc = family_value_captured(vc, fams, how=how)
        members = family_value(vc, fams).set_index("family")
        fm = family_metrics(metrics, fams, how=how)
        bar.advance("Benchmark by family: portfolio")
        port = greedy_portfolio(fvc)
        port_sd = portfolio_spread(fvc, port["algorithm"].tolist())
        _note_exclusions(view)
    n_vc = vc["dataset"].nunique()
    sd = value_spread(fvc).set_index("algorithm")["sd"]
    rows = []
    for row in overall_value(fvc).itertuples(index=False):
        info = members.loc[row.algorithm]
        rows.append([f"{row.rank:g}", str(row.algorithm), str(int(info["configurations"])),
                     f"{row.score:.2f}", _fmt(sd.get(row.algorithm), ".2f"),
                     str(info["best member"]), f"{info['best member score']:.2f}",
                     f"{info['mean']:.2f}"])
    print_table(f"Value captured by family (%, {_family_words(how)} and metric, against the "
                f"whole pool; mean over the {plural(n_vc, 'dataset')} and the metrics, sd "
                "over datasets; best member: the member of highest value captured, and the "
                "mean of the members' values)",
                _left("rank", "family", "configurations", "score", "sd", "best member",
                      "its value", "members' mean"), rows, keys=2)
    means = fm.pivot_table(index="algorithm", columns="metric", values="value",
                           aggfunc="mean", sort=False)
    print_table(f"Metrics by family ({_family_words(how)} and metric; mean over the "
                "datasets)", _left("family", *(human_name(m) for m in means.columns)),
                [[str(fam), *(_fmt(v, ".3f") for v in row)] for fam, row in means.iterrows()])
    print_table("Greedy portfolio of families (value: % captured, mean over datasets and "
                "metrics; sd over datasets)", _left("step", "family", "gain", "value", "sd"),
                [[str(row.step), str(row.algorithm), f"{row.gain:.2f}", f"{row.value:.2f}",
                  _fmt(spread, ".2f")]
                 for row, spread in zip(port.itertuples(index=False), port_sd, strict=True)],
                keys=2)


def _left(*headers) -> list[tuple[str, str]]:
    """The columns of :func:`print_table`, each left-justified (as rich's tables were)."""
    return [(h, "left") for h in headers]


def _fmt(value, spec: str) -> str:
    return "n/a" if value is None or not np.isfinite(value) else format(value, spec)
