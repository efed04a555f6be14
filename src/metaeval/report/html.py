"""The self-contained HTML report of a study: ``DIR/index.html``.

One file, figures inlined (small vector figures as SVG markup, scatter-heavy
ones as palette PNG in ``data:`` URIs), no scripts, no fonts or style sheets
from elsewhere, every text escaped. Per-dataset sections are collapsed
``<details>`` so a 50-dataset study stays readable and small.
"""

from __future__ import annotations

import datetime as _dt
import re
from contextlib import nullcontext
from pathlib import Path

import numpy as np
import pandas as pd

from metaeval._validation import atomic_output
from metaeval.report import _instance_selection as _isel
from metaeval.report import _render, _template
from metaeval.report._builders import has_instance_space
from metaeval.report._encode import figure_to_png_uri, figure_to_svg
from metaeval.report._markup import _card, _esc, _row, _table  # noqa: F401 (used by sections)
from metaeval.report._page import _Page
from metaeval.report._plots import StudyView
from metaeval.report.data import clock_words
from metaeval.report.figures import METHOD_ABBREVIATIONS

__all__ = ["figure_to_png_uri", "figure_to_svg", "write_report"]


# ---------------------------------------------------------------------------- pieces
def _method_columns(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.rename(columns=lambda m: f"IH {METHOD_ABBREVIATIONS.get(m, m)}")


# ---------------------------------------------------------------------------- sections
def _summary(page: _Page) -> str:
    view = page.view
    ds = view.datasets()
    algs = view.algorithms()
    tasks = view.tasks()
    n_done = int((tasks["status"] == "done").sum()) if not tasks.empty else 0
    failed = tasks[tasks["status"] == "failed"] if not tasks.empty else tasks
    out = ['<div class="cards">', _card(len(ds), "datasets"), _card(len(algs), "algorithms"),
           _card(n_done, "tasks done"), _card(len(failed), "tasks failed", bad=len(failed) > 0),
           "</div>"]
    cfg = page.attempt("study configuration", view.store.study_config) \
        if hasattr(view.store, "study_config") else None
    if cfg:
        keys = [k for k in ("folds", "repeats", "seed", "executor") if k in cfg]
        if keys:
            out.append('<p class="note">Study: ' + ", ".join(
                f"{_esc(k)} = {_esc(cfg[k])}" for k in keys) + ".</p>")
    if len(failed):
        out.append("<h3>Failed tasks</h3>")
        f = failed[["dataset", "algorithm", "repeat", "error"]].copy()
        f["error"] = f["error"].fillna("").astype(str).str.slice(0, 400)
        out.append(_table(f.set_index("dataset"), text_columns=("algorithm", "error"),
                          index_name="dataset"))
    out.append("<h3>Datasets</h3>")
    d = ds.set_index("name")[["family", "n_instances", "n_features", "positive_fraction"]]
    d = d.rename(columns={"n_instances": "instances", "n_features": "features",
                          "positive_fraction": "class 1 share"})
    text_cols = ["family"]
    if not tasks.empty:
        done = tasks[tasks["status"] == "done"].groupby("dataset").size()
        d["tasks done"] = [int(done.get(n, 0)) for n in d.index]
        if "n_folds" in tasks.columns:  # the folds each dataset really ran, and why fewer
            d["folds"], d["note"] = zip(*(_folds_used(tasks, n) for n in d.index), strict=True)
            text_cols += ["folds", "note"]
            if not d["note"].astype(bool).any():
                d = d.drop(columns="note")
                text_cols.remove("note")
    out.append(_table(d, fmt="{:.3f}", text_columns=tuple(text_cols), index_name="dataset"))
    out.append("<h3>Algorithms</h3>")
    a = algs.set_index("name")[["estimator", "score_method"]].copy()
    if "params" in algs.columns:  # what tells 3NN from 5NN
        from metaeval.report._glossary import _params_text

        a.insert(1, "hyperparameters (others at the estimator's defaults)",
                 [_params_text(p) or "defaults" for p in algs["params"]])
    a = a.rename(columns={"score_method": "score from"})
    out.append(_table(a, text_columns=tuple(a.columns), index_name="algorithm"))
    return "\n".join(out)


def _folds_used(tasks: pd.DataFrame, name) -> tuple[str, str]:
    """``(folds, note)`` of a dataset: the folds its finished tasks ran, and the warning."""
    t = tasks[(tasks["dataset"] == name) & (tasks["status"] == "done")]
    folds = pd.to_numeric(t["n_folds"], errors="coerce").dropna().astype(int)
    text = "–" if folds.empty else (str(folds.iloc[0]) if folds.nunique() == 1
                                     else f"{folds.min()}–{folds.max()}")
    notes = t["warning"].dropna().astype(str) if "warning" in t.columns else pd.Series([])
    notes = [w for w in dict.fromkeys(notes) if w.strip()]
    return text, "; ".join(notes)


def _findings(page: _Page, *, accd, a3r_n) -> str:
    view = page.view
    items = []
    agg = page.attempt("aggregated dissimilarity", lambda: view.aggregated_dissimilarity("mean"))
    if agg is not None:
        D, algs = agg
        for m, M in D.items():
            off = M + np.diag(np.full(len(algs), np.inf))
            i, j = np.unravel_index(np.argmin(off), off.shape)
            spread = (M.sum(axis=1)) / (len(algs) - 1)
            far = int(np.argmax(spread))
            items.append(
                f"<li><b>{_esc(m)}</b>: closest pair <b>{_esc(algs[i])}</b> – "
                f"<b>{_esc(algs[j])}</b> (mean dissimilarity {M[i, j]:.3f}); most apart: "
                f"<b>{_esc(algs[far])}</b> (mean {spread[far]:.3f} to the others).</li>")
    ranks = page.attempt("rankings", lambda: view.rankings(accd=accd, n=a3r_n))
    if ranks:
        best = ", ".join(f"{_esc(name)}: <b>{_esc(f['algorithm'].iloc[0])}</b>"
                         for name, f in ranks.items())
        from metaeval.report._glossary import human_name

        items.append(f"<li>Best algorithm by ranking on {_esc(human_name(view.measure))} "
                     f"(ARR and A3R on {clock_words(view.clock)}) — {best}.</li>")
    cd = page.attempt("critical difference", lambda: _cd_summary(view)) \
        if len(view.usable_datasets()) >= 2 else None
    if cd:
        items.append(f"<li>{cd}</li>")
    vc = page.attempt("value captured", lambda: _best_value(view))
    if vc:
        items.append(f"<li>{vc}</li>")
    hard = page.attempt("hardest datasets", lambda: _hardest(view))
    if hard:
        items.append(f"<li>{hard}</li>")
    if not items:
        return '<p class="note">No finding could be computed from this store.</p>'
    return '<ul class="findings">' + "".join(items) + "</ul>"


def _cd_summary(view: StudyView) -> str:
    from metaeval.ranking import critical_difference_data

    success, hib = view.success()
    cdd = critical_difference_data(success, higher_is_better=hib)
    ranks = cdd.average_ranks
    best = ranks["algorithm"].iloc[0]
    tied = sorted({a for g in cdd.groups if best in g for a in g} - {best})
    p = getattr(cdd.friedman, "p_value", None)
    ptxt = f"Friedman p = {p:.3g}; " if p is not None else ""
    same = (", not significantly different from " + ", ".join(map(_esc, tied))) if tied else \
        ", significantly better than all others"
    return (f"{ptxt}best average rank: <b>{_esc(best)}</b> ({ranks['score'].iloc[0]:.2f})"
            f"{same} (Nemenyi CD = {cdd.cd:.2f}, {cdd.n_datasets} dataset"
            f"{'' if cdd.n_datasets == 1 else 's'}).")


def _best_value(view: StudyView) -> str:
    from metaeval.benchmark import overall_value, runtime_score

    ov = overall_value(view.value_captured())
    times = view.times()
    times = times[times["algorithm"].isin(view.common_algorithms())
                  & times["dataset"].isin(view.usable_datasets())]
    rs = runtime_score(times)
    return (f"Most value captured: <b>{_esc(ov['algorithm'].iloc[0])}</b> "
            f"({ov['score'].iloc[0]:.1f} %); fastest: <b>{_esc(rs['algorithm'].iloc[0])}</b>; "
            f"slowest: <b>{_esc(rs['algorithm'].iloc[-1])}</b> "
            f"(runtime score {rs['score'].iloc[-1]:.2f}, {clock_words(view.clock)}).")


def _hardest(view: StudyView) -> str:
    names = view.usable_datasets()
    if not names:
        return ""
    means = pd.DataFrame({n: view.hardness(n).mean(axis=0) for n in names},
                         index=view.methods).T
    parts = [f"{_esc(METHOD_ABBREVIATIONS.get(m, m))}: {_esc(means[m].idxmax())} "
             f"({means[m].max():.3f})" for m in view.methods]
    return "Hardest dataset (mean pool hardness) — " + "; ".join(parts) + "."


def _mean_hardness_overall(page: _Page) -> str:
    view = page.view
    names = view.usable_datasets()
    algs = view.common_algorithms()
    if not names or not algs:
        return '<p class="note">No dataset has finished scores.</p>'
    tables = [view.mean_hardness(n).loc[algs] for n in names]
    mean = sum(tables) / len(tables)
    return ('<p class="note">Mean instance hardness of each algorithm, averaged over '
            f"{len(names)} dataset{'' if len(names) == 1 else 's'} (lower is easier; best of "
            "each method in bold).</p>"
            + _table(_method_columns(mean), best="min", index_name="algorithm"))


def _similarity(page: _Page, *, cut_height) -> str:
    return page.figure(
        "dendrograms",
        "Average-linkage dendrograms of the dissimilarity between algorithms (mean absolute "
        "difference of instance hardness, Melo & Prudêncio 2014, eq. 24 of the MetaSel "
        "version), averaged over datasets (eq. 25); "
        "one per threshold choice method, on one scale. Dashed line: the cut height "
        + ("given" if cut_height is not None else "(middle of the widest gap between merges)")
        + "; each coloured group of branches is a cluster below it, grey joins lie above it.",
        cut_height=cut_height)


def _rankings(page: _Page, *, accd, a3r_n, k=None) -> str:
    from metaeval.report._topk import TOP_K, family_rankings, top_names

    k = TOP_K if k is None else k
    view = page.view
    out = []
    top = None
    ranks = page.attempt("rankings", lambda: view.rankings(accd=accd, n=a3r_n))
    if ranks:
        from metaeval.report._glossary import human_name
        from metaeval.report.data import ranks_table
        from metaeval.report.figures.rankings import _distinct_digits

        def table(frames, label, keep=None, extra=None):
            R, Sc = ranks_table(frames)
            if keep is not None:
                R, Sc = R.loc[keep], Sc.loc[keep]
            tbl = pd.concat({"rank": R, "score": Sc}, axis=1)
            tbl.columns = [f"{b} {a}" for a, b in tbl.columns]
            order = [f"{c} {k_}" for c in R.columns for k_ in ("rank", "score")]
            formats = {c: "{:g}" for c in order if c.endswith(" rank")}
            for c in R.columns:  # enough digits to tell every two different scores apart
                formats[f"{c} score"] = f"{{:.{_distinct_digits(Sc[c].to_numpy(float))}g}}"
            tbl = tbl[order]
            if extra is not None:
                tbl.insert(0, extra.name, extra.reindex(tbl.index).to_numpy())
                formats[extra.name] = "{:g}"
            return _table(tbl, fmt="{:.3f}", index_name=label, formats=formats,
                          best_by={c: "min" for c in order if c.endswith(" rank")})

        first = next(iter(ranks))
        n_algorithms = len(ranks[first])
        top = top_names(ranks[first]["algorithm"], k)
        out.append(f'<p class="note">Success measure: {_esc(human_name(view.measure))}; time: '
                   f"fit + predict {clock_words(view.clock)} over the folds. AR: lower score "
                   "is better; the others: higher is better. Rank 1 = best, in bold.</p>")
        if top is not None:
            out.append(f'<p class="note">Shown: the {k} of {n_algorithms} algorithms best by '
                       f"{_esc(first)} (their ranks are among all {n_algorithms}); the "
                       "families are ranked below.</p>")
        out.append(table(ranks, "algorithm", keep=top))
        if top is not None:
            fam = page.attempt("family rankings",
                               lambda: family_rankings(view, accd=accd, n=a3r_n))
            if fam:
                from metaeval.algorithms import families

                sizes = pd.Series(list(families(ranks[first]["algorithm"]).values()))
                sizes = sizes.value_counts().rename("configurations")
                out.append(f"<h3>Rankings of the {len(sizes)} algorithm families</h3>")
                out.append('<p class="note">A family is the part of a configuration\'s name '
                           "before the colon; on each dataset it is represented by its best "
                           "member (by the success measure; its time goes with it), then "
                           "ranked by the same five methods.</p>")
                out.append(table(fam, "family", extra=sizes))
    if len(view.usable_datasets()) >= 2:
        caption = ("Critical-difference diagram (Demšar 2006): average ranks over the "
                   "datasets, best on the left; the bar is the Nemenyi critical difference; "
                   "thick lines join algorithms not significantly different.")
        if top is None:
            out.append(page.figure("critical-difference", caption))
        else:
            out.append(page.figure("critical-difference", caption + f" Only the {k} of "
                                   f"{n_algorithms} algorithms best by AR, ranked among "
                                   "themselves.", algorithms=top))
    else:
        out.append('<p class="note">The critical-difference diagram needs at least two '
                   "datasets.</p>")
    out.append("<h3>Combining accuracy and time: ARR and A3R (Abdulrahman &amp; Brazdil "
               "2014)</h3>")
    out.append(_row(
        page.figure("arr", f"ARR at SRR = 1 against the time ratio Tp/Tq (algorithm p's "
                           f"time over its rival q's): thick, AccD = {accd:g} as the rankings "
                           "use it; thin, the values of Abdulrahman & Brazdil (2014). The "
                           "denominator 1 + AccD·log10(Tp/Tq) vanishes at the dotted lines "
                           "(the pole), so ARR is neither monotonic nor bounded.",
                    used=accd),
        page.figure("a3r", f"A3R at SRR = 1 against the time ratio Tp/Tq for n = 4, 8, 16 "
                           f"(thick: n = {a3r_n:g}, as the rankings use it): monotonic.",
                    used=a3r_n),
        page.figure("iso-a3r", f"Iso-A3R curves (n = {a3r_n:g}): the success rate ratio an "
                               "algorithm needs for A3R = 0.9, 1.0, 1.1 at each time ratio.",
                    n=a3r_n)))
    return "\n".join(out)


def _benchmark(page: _Page, *, bootstrap_draws, k=None) -> str:
    from metaeval.report._topk import TOP_K, family_value_table, top_names

    k = TOP_K if k is None else k
    view = page.view
    out, opts, only = [], {}, ""
    n_algorithms = len(view.common_algorithms())
    if n_algorithms > k:
        from metaeval.benchmark import overall_value

        ov = page.attempt("value captured", lambda: overall_value(view.value_captured()))
        top = None if ov is None else top_names(ov["algorithm"], k)
        if top is not None:
            opts = {"algorithms": top}
            only = f" Only the {k} of {n_algorithms} algorithms best by value captured."
            out.append(f'<p class="note">The figures by algorithm show the {k} of '
                       f"{n_algorithms} algorithms best by value captured (each valued "
                       "against the whole pool); the families follow.</p>")
    out += [_row(page.figure("value-captured", "Value captured (algorithm-benchmark web page, "
                             "after Caruana & Niculescu-Mizil 2006): per dataset and metric, "
                             "100·(p − Q1)/(max − Q1), averaged." + only, **opts),
                 page.figure("runtime-scores", "Runtime score (algorithm-benchmark web page): "
                             f"mean log2 of the {clock_words(view.clock)} over the fastest "
                             "algorithm's on the "
                             "datasets the title names (the 20 slowest at most); lower is "
                             "faster." + only, **opts)),
            page.figure("heatmap-datasets", "Value captured per algorithm and dataset: were "
                        "the comparison dataset-neutral, each row would have one colour."
                        + only, **opts),
            _row(page.figure("heatmap-metrics", "Value captured per algorithm and metric."
                             + only, **opts),
                 page.figure("portfolio", "Greedy portfolio: value captured by the best "
                             "algorithm of the portfolio after each step (submodular greedy).")),
            _row(page.figure("error-cases", "Error cases per metric (algorithm-benchmark web "
                             "page): the metric prefers one algorithm and at most k = 2 "
                             "others agree."),
                 page.figure("bootstrap-stability", "Bootstrap over datasets and metrics: the "
                             "probability that a subset leads to a different pairwise "
                             "conclusion than all the data.", draws=bootstrap_draws))]
    if opts:
        fam = page.attempt("value captured by family", lambda: family_value_table(view))
        if fam is not None:
            fam = fam.rename(columns={"score": "value captured", "mean": "members' mean",
                                      "best member score": "its value"})
            out.append(f"<h3>Value captured by the {len(fam)} algorithm families</h3>")
            out.append('<p class="note">Value captured (%, against the whole pool) of each '
                       "family with its best member in each dataset and metric; its single "
                       "best member and that member's value; the mean of its members' "
                       "values.</p>")
            cols = ["value captured", "rank", "configurations", "best member", "its value",
                    "members' mean"]
            out.append(_table(fam[cols], fmt="{:.1f}", index_name="family",
                              text_columns=("best member",),
                              formats={"rank": "{:g}", "configurations": "{:g}"},
                              best_by={"value captured": "max"}))
    return "\n".join(out)


#: a wide pool's dataset sections show the best algorithms by average rank: this many
#: rows of the mean hardness table, and lines per panel of the instance cost curves
TOP_ROWS = 20
TOP_LINES = 8
#: above this many leaves a dendrogram names none (see ``figures.dendrograms``)
MAX_NAMED_LEAVES = 60


def _dataset_section(page: _Page, name: str, *, cost_proportions, cut_height,
                     instance_space_max_rows) -> str:
    view = page.view
    row = view.datasets().set_index("name").loc[name]
    meta = (f"{int(row['n_instances'])} instances · {int(row['n_features'])} features · "
            f"class 1 share {float(row['positive_fraction']):.2f} · {row['family']}")
    head = f"<summary>{_esc(name)}<span>{_esc(meta)}</span></summary>"
    # the anchor inside the section: following a link to it opens the collapsed section
    anchor = f' id="{_esc(_dataset_anchor(name))}"'
    if name not in view.usable_datasets():
        note = "fewer than two algorithms finished on this dataset: nothing to compare."
        return (f'<details>{head}<div{anchor}><p class="problem">{_esc(note)}</p></div>'
                "</details>")
    parts = ["<h4>Mean instance hardness (layout of Table 1 of Melo &amp; Prudêncio 2014, "
             "MetaSel version)</h4>"]
    table = page.attempt(f"mean hardness ({name})", lambda: view.mean_hardness(name))
    if table is not None:
        # a wide pool: the best by average rank, as everywhere in the report
        top, top_note = _isel._shown_algorithms(page, name, TOP_ROWS)
        if top is not None:
            table = table.loc[[a for a in top if a in table.index]]
            parts.append(top_note)
        parts.append(_table(_method_columns(table), best="min", index_name="algorithm"))
    parts.append("<h4>Cost curves</h4>")
    parts.append(page.figure("class-cost-curves", "Class cost curves (Prudêncio 2019, Fig. 7): "
                             "mean loss of each class over the pool; CH = class hardness.",
                             fmt="svg", dataset=name))
    lines, lines_note = _isel._shown_algorithms(page, name, TOP_LINES)
    parts.append(lines_note)
    parts.append(page.figure("instance-cost-curves", "Instance cost curves (Prudêncio 2019, Figs. "
                             "1–6) of the hardest and a typical instance of each class, one "
                             "line per algorithm; dashed and hatched: the rate-driven "
                             "stretch where the loss is interpolated (Figs. 3–4).",
                             fmt="png", colors=32, max_dpi=160, dataset=name,
                             **({} if lines is None else {"algorithms": lines})))
    if view.projection(name) is not None:
        parts.append("<h4>Hardness maps (PCA of the features)</h4>")
        parts.append(page.figure("projection", "The instances on their first two principal "
                                 "components (Prudêncio 2019, Fig. 8).", fmt="png", dataset=name))
        parts.append(page.figure("hardness-maps", "Pool instance hardness per class and "
                                 "method (Prudêncio 2019, Figs. 9 and 12); the other class "
                                 "in grey.",
                                 fmt="png", dataset=name))
        parts.append(_row(*(page.figure(
            "cost-hardness-maps", f"Loss of class {k} instances at c = "
            + ", ".join(f"{c:g}" for c in cost_proportions)
            + f" (Prudêncio 2019, Fig. {10 if k == 1 else 11}).", fmt="png", dataset=name,
            target_class=k, cost_proportions=cost_proportions) for k in (0, 1))))
    else:
        parts.append('<p class="note">Features not available (not a built-in dataset, or '
                     "its file changed since the study): no hardness maps.</p>")
    parts.append("<h4>Algorithm similarity on this dataset</h4>")
    # hundreds of leaves: thousands of SVG paths (half a megabyte a dataset), so a PNG
    many = len(view.scores(name)[2]) > MAX_NAMED_LEAVES
    parts.append(page.figure("dendrograms", "Dendrograms of algorithm dissimilarity on this "
                             "dataset (Melo & Prudêncio 2014, Figs. 3–5 of the "
                             "MetaSel version).", fmt="png" if many else "svg", colors=32,
                             dataset=name, cut_height=cut_height))
    if has_instance_space() and view.projection(name) is not None:
        parts.append("<h4>Instance space: classic beside cost-sensitive hardness</h4>")
        if int(row["n_instances"]) > instance_space_max_rows:
            parts.append(f'<p class="note">Skipped: {int(row["n_instances"])} instances, over '
                         f"the limit of {instance_space_max_rows} set for the report "
                         "(<code>metaeval plot instance-space</code> draws it).</p>")
        else:
            parts.append(page.figure("instance-space", "The instances on the first two "
                                     "principal components of the encoded features, coloured "
                                     "by a classic measure (k-disagreeing neighbours, kDN) and "
                                     "by the rate-driven pool hardness.", fmt="png",
                                     dataset=name))
            parts.append(page.figure("instance-space-correlation", "Spearman correlation "
                                     "between the classic measures and the cost-sensitive "
                                     "hardness of the instances.", fmt="svg", dataset=name,
                                     title="Spearman correlation,\nclassic measures × "
                                           "cost-sensitive hardness"))
    # the whole-study selection section reads this dataset's selection: computed here, in
    # parallel with the other datasets (see metaeval.report._render)
    _isel.warm_selection(view, name, max_rows=instance_space_max_rows)
    return f'<details>{head}<div{anchor}>{"".join(parts)}</div></details>'


def _dataset_anchor(name: str) -> str:
    return "ds-" + re.sub(r"[^A-Za-z0-9_-]", "_", str(name))


# ---------------------------------------------------------------------------- entry point
def write_report(store_or_path, out_dir, *, methods=None, t=0.5, measure="accuracy",
                 datasets=None, cut_height=None, cost_proportions=(0.2, 0.5, 0.8), accd=0.1,
                 a3r_n=8, bootstrap_draws=2000, dpi=192, instance_space_max_rows=5000,
                 strict=False, title="metaeval report", jobs=1, cache=False,
                 progress=None, clock="cpu") -> Path:
    """Write the self-contained HTML report of a study to ``out_dir/index.html``.

    Parameters
    ----------
    store_or_path : metaeval.store.Store or path-like
        The results store.
    out_dir : path-like
        Directory to write ``index.html`` into (created if missing).
    methods : sequence of str, optional
        Threshold choice methods shown (default all five).
    t : float, default 0.5
        Threshold of the score-fixed method and of crisp metrics.
    measure : str, default "accuracy"
        Success measure of the rankings (a metric of :data:`metaeval.benchmark.METRICS`).
    datasets : sequence of str, optional
        Datasets that get a per-dataset section (default all).
    cut_height : float, optional
        Dendrogram cut height (default: middle of the widest gap between merges).
    cost_proportions : sequence of float, default (0.2, 0.5, 0.8)
        Cost proportions of the loss maps (Prudêncio 2019, Figs. 10-11).
    accd : float, default 0.1
        AccD of the ARR ranking (accuracy traded for a 10x speed-up).
    a3r_n : float, default 8
        Root of the A3R ranking.
    bootstrap_draws : int, default 2000
        Draws per cell of the bootstrap stability grid.
    dpi : float, default 192
        Resolution of the PNG figures. They are shown at 96 CSS pixels per inch,
        like the SVG ones, so 192 is sharp on a high-density screen and when
        zoomed in; 96 shrinks the file.
    instance_space_max_rows : int, default 5000
        Datasets with more instances get no instance-space view in the report
        (the classic measures are the slowest part on large data).
    strict : bool, default False
        Raise on the first figure that cannot be drawn, instead of noting it
        in the report.
    title : str
    jobs : int or None, default 1
        Worker processes drawing the sections (None: every available core); with 1,
        everything is drawn in this process.
    cache : bool, default False
        Keep each figure and section in the store file (table ``report_cache``), under a
        key made of the data it shows, the options and the code that draws it, and the
        per-dataset intermediates (hardness, dissimilarities, per-instance selection) in
        the directory ``<store>.report-cache`` beside it, and reuse them: a second report
        of an unchanged store draws nothing, and a changed score redraws only the figures
        of its dataset and of the whole study. A store that cannot be written (read-only,
        or a study running) still gets its report.
    progress : callable, optional
        ``progress(done, total, label)``, called as sections are ready and once at the
        end with a one-line account of what was drawn.
    clock : {"cpu", "wall"}, default "cpu"
        The time of ARR, A3R and the runtime score (as ``metaeval rank --time``).

    Returns
    -------
    pathlib.Path
        The path of ``index.html``.

    Examples
    --------
    >>> write_report("no-such-store.duckdb", "out")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: No metaeval store at ...
    """
    view = StudyView(store_or_path, methods=methods, t=t, measure=measure, clock=clock)
    view._metric(measure)  # an unknown measure fails before any work
    from metaeval.store import Store

    if isinstance(view.store, Store) and (jobs is None or (
            isinstance(jobs, int) and not isinstance(jobs, bool) and jobs > 1)):
        # the workers' fork server imports what they draw with while this process
        # reads the store and makes the cache's keys
        _render.start_workers_early(view.store.path, jobs=jobs, cache=cache)

    # one read-only connection for every read of this process (each read otherwise opens
    # the file and checks it); released before the cache is written
    holding = view.store.reading() if isinstance(view.store, Store) else nullcontext()
    with holding:
        page, pieces = _write(view, out_dir, datasets=datasets, cut_height=cut_height,
                              cost_proportions=cost_proportions, accd=accd, a3r_n=a3r_n,
                              bootstrap_draws=bootstrap_draws, dpi=dpi,
                              instance_space_max_rows=instance_space_max_rows,
                              strict=strict, title=title, jobs=jobs, cache=cache,
                              progress=progress)
    # the store is read no more: the cache is written while the page is put together
    pieces.start_saving()
    try:
        path = page()
    finally:
        pieces.finish(progress)
    return path


def _write(view, out_dir, *, datasets, cut_height, cost_proportions, accd, a3r_n,
           bootstrap_draws, dpi, instance_space_max_rows, strict, title, jobs, cache,
           progress):
    """The page of :func:`write_report`: ``(page, pieces)``, ``page()`` writing it (it
    reads the store no more) and returning its path; the cache not yet saved."""
    all_names = view.dataset_names()  # fails early on a missing or foreign file
    if datasets is None:
        chosen = all_names
    else:
        chosen = [str(d) for d in datasets]
        unknown = [d for d in chosen if d not in all_names]
        if unknown:
            raise ValueError(f"datasets {unknown} are not in the store")
    from metaeval._validation import check_cost_proportions

    cost_proportions = tuple(float(c) for c in check_cost_proportions(
        cost_proportions, name="cost_proportions"))
    out_dir = Path(out_dir)
    from metaeval.report._families import families_section
    from metaeval.report._glossary import glossary_html
    from metaeval.report._provenance import provenance_section
    from metaeval.report._recommend import page_section

    def frag(anchor, build, dataset=None, **kwargs):
        return _render.Fragment(anchor, build, kwargs, dataset)

    # (anchor, heading, job label, fragments); a job's fragments share one process and view
    # the whole-study sections in two jobs of about the same time (1.6 s each on the
    # built-in suite), one per core: the rankings' share the metrics of every fold
    first, second = "summary, similarity and selection", "rankings and benchmark"
    layout = [
        ("summary", "Study summary", first, [frag("summary", _summary)]),
        ("findings", "Aggregated findings", second,
         [frag("findings", _findings, accd=accd, a3r_n=a3r_n)]),
        ("hardness", "Mean instance hardness", first,
         [frag("hardness", _mean_hardness_overall)]),
        ("similarity", "Algorithm similarity", first,
         [frag("similarity", _similarity, cut_height=cut_height)]),
        ("families", "Algorithm families", first,
         [frag("families", families_section)]),
        ("rankings", "Rankings", second,
         [frag("rankings", _rankings, accd=accd, a3r_n=a3r_n)]),
        ("benchmark", "Benchmark analytics", second,
         [frag("benchmark", _benchmark, bootstrap_draws=bootstrap_draws)]),
        ("instance-selection", "Where and when each algorithm wins", first,
         [frag("instance-selection", _isel.report_section, datasets=chosen,
               max_rows=instance_space_max_rows)]),
        ("recommendation", "Recommendation", "recommendation",  # reads only the scores
         [_render.Fragment("recommendation", page_section, early=True)]),
        ("datasets", "Per dataset", None,
         [frag(f"dataset:{n}", _dataset_section, n, name=n, cost_proportions=cost_proportions,
               cut_height=cut_height, instance_space_max_rows=instance_space_max_rows)
          for n in chosen]),
    ]
    pieces = _render.draw_pieces(view, layout, dpi=dpi, strict=strict, jobs=jobs, cache=cache,
                          progress=progress)
    sections = []
    problems = []
    for anchor, heading, _, fragments in layout:
        parts = [part for f in fragments for part in pieces.parts(f.name)]
        problems += [p for f in fragments for p in pieces.problems(f.name)]
        if anchor == "datasets":
            jump = " ".join(f'<a href="#{_esc(_dataset_anchor(n))}">{_esc(n)}</a>'
                            for n in chosen)
            parts.insert(0, '<p class="note">Click a dataset to open its section.</p>'
                         f'<p class="jump">{jump}</p>')
        sections.append((anchor, heading, parts))
        if anchor == "recommendation":  # cheap, read fresh every time (not cached)
            try:
                how = provenance_section(view.store)
            except Exception as exc:
                if strict:
                    raise
                how = ""
                problems.append(f"how this was made: {type(exc).__name__}: {exc}")
            sections.append(("provenance", "How this was made", how))
    sections.append(("glossary", "Glossary", glossary_html(view.algorithms())))
    store_path = getattr(view.store, "path", "")
    return (lambda: _page_file(sections, problems, out_dir, title=title,
                               n_datasets=len(all_names), store_path=store_path)), pieces


def _page_file(sections, problems, out_dir, *, title, n_datasets, store_path) -> Path:
    """Write ``out_dir/index.html`` of the report's sections (``(anchor, heading,
    content)``, the content a string or a list of them); its path.

    The page (30 MB on the built-in suite) is written piece by piece, its SVG ids
    renumbered on the way (:func:`metaeval.report._render.renumbered_pieces`), never
    put together in memory: each whole copy of it took some 40 ms.
    """
    if problems:
        items = "".join(f"<li>{_esc(p)}</li>" for p in problems)
        sections.insert(1, ("problems", "Problems",
                            '<p class="problem">Some parts could not be computed:</p>'
                            f"<ul>{items}</ul>"))

    from metaeval import __version__

    nav = "".join(f'<a href="#{a}">{_esc(t_)}</a>' for a, t_, _ in sections)
    stamp = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    subtitle = (f"Store {store_path} · {n_datasets} dataset"
                f"{'' if n_datasets == 1 else 's'} · generated {stamp}")
    marker = "\x00body\x00"
    head, tail = _template.PAGE.format(
        title=_esc(title), intro=_esc(_template.INTRO), subtitle=_esc(subtitle), nav=nav,
        body=marker, css=_template.CSS, version=_esc(__version__)).split(marker)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "index.html"
    counter = iter(range(1 << 30))  # the SVG ids' numbers, in page order
    with atomic_output(path, "--out", mode="w", encoding="utf-8") as fh:
        for piece in _render.renumbered_pieces(head, counter):
            fh.write(piece)
        for i, (a, t_, content) in enumerate(sections):
            fh.write(f'{"" if i == 0 else chr(10)}<section id="{a}"><h2>{_esc(t_)}</h2>\n')
            for part in [content] if isinstance(content, str) else content:
                for piece in _render.renumbered_pieces(part, counter):
                    fh.write(piece)
            fh.write("</section>")
        for piece in _render.renumbered_pieces(tail, counter):
            fh.write(piece)
    return path
