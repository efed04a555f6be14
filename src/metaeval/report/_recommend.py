"""The report's "Recommendation" section: loss curves, the summary table, the CD diagram.

Computing (:func:`loss_curve_data`, :func:`summary_display`) and drawing
(:func:`loss_curves_figure`) are separate functions; :func:`recommendation_section`
evaluates the strategies leave-one-dataset-out under accuracy and a cost-sensitive
condition and assembles the HTML.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # matplotlib is imported where a figure is drawn, not to read a cache
    from matplotlib.figure import Figure

__all__ = ["REPORT_CONDITIONS", "loss_curve_data", "loss_curves_figure", "summary_display",
           "time_weight_figure", "recommendation_section", "page_section"]

#: The conditions of the report's section: accuracy, and rate-driven hardness at c = 0.3.
REPORT_CONDITIONS = (
    {"measure": "accuracy", "time_weight": 1 / 64},
    {"measure": "hardness:rate-driven", "cost": 0.3, "time_weight": 1 / 64},
)

#: colour and line style of each strategy: no two strategies alike (a strategy of
#: another name gets the first unused pair of :data:`_SPARE`)
_STYLE = {
    "average-ranking": ("#1f77b4", "-"),
    "knn-metafeatures": ("#2ca02c", "-"),
    "cost-landmarking": ("#9467bd", "-"),
    "active-testing": ("#d62728", "-"),
    "pairwise": ("#ff7f0e", "-"),
    "regression": ("#8c564b", "-"),
    "collaborative": ("#e377c2", "-"),
    "zero-shot-portfolio": ("#17becf", "--"),
    "auto": ("#000080", "--"),
    "single-best": ("#7f7f7f", "--"),
    "random": ("#bcbd22", ":"),
    "oracle": ("black", "-."),
}
_SPARE = [(colour, style) for style in ("-.", ":", "--", "-")
          for colour in ("#1f77b4", "#2ca02c", "#9467bd", "#d62728", "#ff7f0e", "#8c564b",
                         "#e377c2", "#17becf", "#bcbd22", "#7f7f7f")]


def strategy_styles(strategies) -> dict:
    """``{strategy: (colour, line style)}``, a different pair for each strategy."""
    styles = {s: _STYLE[s] for s in strategies if s in _STYLE}
    spare = iter(p for p in _SPARE if p not in set(styles.values()))
    for s in strategies:
        if s not in styles:
            styles[s] = next(spare)
    return styles


#: what the oracle's MIL means beside the others' (the section says it once)
ORACLE_NOTE = ("The oracle tests the truly best algorithm first: it is the upper end of the "
               "closed gap, not a lower bound on MIL once time counts (a strategy that "
               "starts with a cheap algorithm can have a lower MIL).")


def loss_curve_data(evaluation, *, axis="time", n_points=200) -> pd.DataFrame:
    """Mean loss over the held-out datasets, against time or the number of tests.

    Parameters
    ----------
    evaluation : RecommenderEvaluation
    axis : {"time", "tests"}
        ``"time"``: on ``n_points`` log-spaced times of the evaluation's time range (the
        loss of the last test completed by then); ``"tests"``: after 0, 1, 2, ... tests.
    n_points : int, default=200

    Returns
    -------
    DataFrame
        Columns ``strategy``, ``x``, ``loss``. For ``random`` the curve is that of its
        mean order (mean loss and mean elapsed time at each step).

    Examples
    --------
    >>> from metaeval.recommend import KnowledgeBase, evaluate_recommenders
    >>> kb = KnowledgeBase(["d1", "d2", "d3"], ["A", "B"], [[.9, .8], [.7, .8], [.9, .6]],
    ...                    [[1, 2]] * 3)
    >>> ev = evaluate_recommenders(kb, strategies=["oracle"], n_boot=5)
    >>> loss_curve_data(ev, axis="tests")["loss"].round(3).tolist()
    [0.167, 0.0, 0.0]
    """
    if axis not in ("time", "tests"):
        raise ValueError(f"axis must be 'time' or 'tests', got {axis!r}.")
    curves = evaluation.curves
    rows = []
    for strategy in evaluation.strategies:
        part = curves[curves["strategy"] == strategy]
        if axis == "tests":
            mean = part.groupby("step")["loss"].mean()
            rows.append(pd.DataFrame({"strategy": strategy, "x": mean.index.to_numpy(),
                                      "loss": mean.to_numpy()}))
            continue
        lo, hi = evaluation.time_range
        grid = np.geomspace(lo, hi, int(n_points))
        total = np.zeros(grid.size)
        groups = part.groupby("dataset", sort=False)
        for _, g in groups:
            g = g.sort_values("step")
            elapsed = g["elapsed"].to_numpy()[1:]
            loss = g["loss"].to_numpy()
            total += loss[np.searchsorted(elapsed, grid, side="right")]
        rows.append(pd.DataFrame({"strategy": strategy, "x": grid,
                                  "loss": total / max(groups.ngroups, 1)}))
    out = pd.concat(rows, ignore_index=True)
    out.attrs["time_axis"] = getattr(evaluation, "time_axis", "seconds")
    return out


def loss_curves_figure(data, *, axis="time", title=None) -> Figure:
    """Loss curves of the strategies: one line each (log time axis for ``axis="time"``).

    Parameters
    ----------
    data : DataFrame
        From :func:`loss_curve_data`.
    axis : {"time", "tests"}
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        One line per strategy, with gid ``"strategy:<name>"``.

    References
    ----------
    The loss-time curves of Abdulrahman, Brazdil, van Rijn & Vanschoren (2018), Machine
    Learning 107:79-108.
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.6, 3.6), layout="constrained")
    ax = fig.add_subplot()
    styles = strategy_styles(list(data["strategy"].unique()))
    for strategy, part in data.groupby("strategy", sort=False):
        colour, style = styles[strategy]
        draw = ax.step if axis == "tests" else ax.plot
        kwargs = {"where": "post"} if axis == "tests" else {}
        draw(part["x"], part["loss"], label=strategy, color=colour, linestyle=style, lw=1.5,
             gid=f"strategy:{strategy}", **kwargs)
    if axis == "time":
        ax.set_xscale("log")
        ax.set_xlabel("fraction of the pool's CPU time (log scale): description + tests"
                      if data.attrs.get("time_axis", "relative") == "relative"
                      else "elapsed time (s, log scale): description + tests")
    else:
        ax.set_xlabel("number of tests")
    ax.set_ylabel("mean loss (best success - best tested)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=10, frameon=False)
    if title:
        ax.set_title(title, fontsize=11)
    return fig


def time_weight_figure(sweep, *, title=None) -> Figure:
    """Mean interval loss of each strategy against A3R's time weight P, with intervals.

    Parameters
    ----------
    sweep : DataFrame
        Columns ``time_weight``, ``strategy``, ``mil``, ``mil_low``, ``mil_high`` (as
        :func:`metaeval.recommend.sweep_time_weight` returns).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        P = 0 is drawn at the left end of a log axis (labelled 0).
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.6, 3.4), layout="constrained")
    ax = fig.add_subplot()
    ps = np.sort(sweep["time_weight"].unique())
    positive = ps[ps > 0]
    zero_at = positive.min() / 4 if positive.size else 1.0
    styles = strategy_styles(list(sweep["strategy"].unique()))
    for strategy, part in sweep.groupby("strategy", sort=False):
        part = part.sort_values("time_weight")
        x = np.where(part["time_weight"] > 0, part["time_weight"], zero_at)
        colour, style = styles[strategy]
        ax.errorbar(x, part["mil"], yerr=[part["mil"] - part["mil_low"],
                                          part["mil_high"] - part["mil"]],
                    label=strategy, color=colour, linestyle=style, marker="o", ms=3,
                    capsize=2, lw=1.2, gid=f"strategy:{strategy}")
    ax.set_xscale("log")
    ticks = [zero_at, *positive]
    ax.set_xticks(ticks, ["0", *(_p_label(p) for p in positive)], fontsize=10)
    ax.minorticks_off()
    ax.set_xlabel("time weight P of A3R")
    ax.set_ylabel("mean interval loss (MIL)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=10, frameon=False)
    if title:
        ax.set_title(title, fontsize=11)
    return fig


def _p_label(p):
    inverse = 1 / p
    return f"1/{round(inverse)}" if abs(inverse - round(inverse)) < 1e-9 else f"{p:g}"


def summary_display(evaluation) -> pd.DataFrame:
    """The summary table for display: each mean with its bootstrap interval, as text.

    Returns
    -------
    DataFrame
        Indexed by strategy; columns MIL, loss@1, loss@3, loss@5, closed gap and
        "vs random" (MIL difference to random and Wilcoxon p).
    """
    s = evaluation.summary.set_index("strategy")
    names = {"mil": "MIL", "loss_at_1": "loss@1", "loss_at_3": "loss@3",
             "loss_at_5": "loss@5", "closed_gap": "closed gap"}
    out = pd.DataFrame(index=s.index)
    for column, label in names.items():
        out[label] = [_with_interval(v, lo, hi) for v, lo, hi in zip(
            s[column], s[f"{column}_low"], s[f"{column}_high"], strict=True)]
    versus = evaluation.versus_random.set_index("strategy")
    out["vs random (MIL)"] = [
        f"{versus.loc[n, 'mil_difference']:+.4f} (p = {versus.loc[n, 'p_value']:.2g})"
        if n in versus.index else "" for n in out.index]
    out.index.name = "strategy"
    return out


def _with_interval(value, low, high):
    if not np.isfinite(value):
        return "–"
    return f"{_four(value)} [{_four(low)}, {_four(high)}]"


def _four(value) -> str:
    """``value`` to 4 decimals, never ``-0.0000`` (a tiny negative rounding error of a
    value that is zero by construction, such as the single best's closed gap)."""
    text = f"{value:.4f}"
    return text[1:] if text == "-0.0000" else text


def section_notes(notes) -> list[str]:
    """The evaluation's notes, the strategies skipped for want of descriptions gathered
    in one note that names the command describing the study's datasets (not the store's
    path, which the page gives at its top: a page does not depend on where the store
    lies)."""
    import re

    skipped, others = [], []
    for note in notes:
        found = re.match(r"skipped (\S+) needs .*describe its datasets first", note)
        if found:
            skipped.append(found.group(1))
        else:
            others.append(note)
    if skipped:
        names = (", ".join(skipped[:-1]) + " and " + skipped[-1]) if len(skipped) > 1 \
            else skipped[0]
        others.insert(0, f"{names} not evaluated: they need the meta-features or "
                         "landmarks of the study's datasets, which are not described yet: "
                         "run `metaeval describe --store` on this store, then the report "
                         "again.")
    return others


def recommendation_section(store, *, conditions=REPORT_CONDITIONS, figure_html=None,
                           table_html=None, seed=0, scores=None) -> str:
    """HTML of the "Recommendation" section for a store (needs 3 datasets and 2 families).

    Parameters
    ----------
    store : Store or path
    conditions : sequence of dict
        Keyword arguments of :class:`metaeval.recommend.Condition`.
    figure_html : callable, optional
        ``figure_html(fig, caption) -> str``; default an inline SVG figure.
    table_html : callable, optional
        ``table_html(frame) -> str``; default a plain escaped table.
    seed : int, default=0
    scores : callable, optional
        ``name -> (y, S, algorithms)``, read instead of the store (scores in memory).

    Returns
    -------
    str
    """
    from html import escape

    from metaeval.recommend import Condition, KnowledgeBase, evaluate_recommenders
    from metaeval.report.figures import critical_difference_diagram
    from metaeval.store import Store

    info = Store(store).datasets()
    if len(info) < 3 or info["family"].fillna(info["name"]).nunique() < 2:
        return ('<p class="note">Recommendation is evaluated leave-one-dataset-out; it needs '
                "at least 3 datasets from at least 2 families.</p>")

    if figure_html is None:
        from metaeval.report._encode import figure_to_svg

        def figure_html(fig, caption):
            return f"<figure>{figure_to_svg(fig)}<figcaption>{escape(caption)}</figcaption>" \
                   "</figure>"
    if table_html is None:
        def table_html(frame):
            return frame.to_html(escape=True)

    parts = [
        "<p>Which algorithms to try first on a new dataset, learnt from the other datasets of "
        "the store: each dataset is held out with its whole family, and each strategy orders "
        "the algorithms for it. Loss = success of the best algorithm on the held-out "
        "dataset minus that of the best algorithm tested so far (before the first test: "
        "best minus worst){SCORING}; time is CPU seconds as a fraction of the whole pool's "
        "time on the held-out dataset, counting the tests and the description of the dataset "
        "(meta-features, landmarkers). MIL is the mean loss over the log-time interval from "
        "1 % to 100 % of the pool's time; intervals are 95% bootstrap intervals over "
        "held-out datasets. Each strategy is compared with the single best and with the "
        "random order over families, with Holm's correction within the pre-registered "
        "primary family (auto and each learner against the single best, on loss@1 and, "
        "where time counts, on MIL) and, apart, within the exploratory rest. "
        f"{ORACLE_NOTE}</p>"
    ]
    from metaeval.recommend.evaluation._summary import holm_by_family

    evaluations = []
    for spec in conditions:
        condition = Condition(**spec)
        kb = KnowledgeBase.from_store(store, condition, scores=scores)
        evaluations.append(evaluate_recommenders(kb, condition, seed=seed))
    parts[0] = parts[0].replace(
        "{SCORING}", escape(scoring_note(evaluations[0])) if evaluations else "")
    comparisons = pd.concat([ev.comparisons.assign(condition=ev.condition.label)
                             for ev in evaluations if ev.comparisons is not None],
                            ignore_index=True)
    if len(comparisons):
        holm_by_family(comparisons, 0.05)  # primary and exploratory, each on its own
    said = set()  # a note said under one condition is not said again under the next
    for ev in evaluations:
        condition = ev.condition
        lo, hi = ev.time_range
        parts.append(f"<h3>{escape(condition.label)}</h3>")
        notes = [n for n in section_notes(ev.notes) if n not in said]
        said.update(notes)
        if notes:
            parts.append('<p class="note">' + escape(" ".join(
                n if n.endswith(".") else n + "." for n in notes)) + "</p>")
        parts.append(table_html(summary_display(ev)))
        mine = comparisons[comparisons["condition"] == condition.label] if len(
            comparisons) else comparisons
        supported = mine[mine["supported"]] if len(mine) else mine
        claims = "; ".join(
            f"{r.a} has lower {'loss@1' if r.measure == 'loss_at_1' else 'MIL'} than {r.b} "
            f"({r.difference:+.4f} [{r.low:+.4f}, {r.high:+.4f}], Holm p = {r.p_holm:.2g})"
            for r in supported.itertuples(index=False)) or "none"
        parts.append(f'<p class="note">Supported claims ({len(mine)} comparisons of this '
                     f"condition, {len(comparisons)} in the section, Holm-corrected within "
                     "the primary and the exploratory family): "
                     f"{escape(claims)}.</p>")
        span = (f"{lo:.0%} to {hi:.0%} of the pool's CPU time" if ev.time_axis == "relative"
                else f"[{lo:g}, {hi:g}] s")
        figures = [
            figure_html(loss_curves_figure(loss_curve_data(ev, axis="time"), axis="time"),
                        f"Mean loss against time, MIL over {span}"),
            figure_html(loss_curves_figure(loss_curve_data(ev, axis="tests"), axis="tests"),
                        "Mean loss against the number of tests"),
        ]
        cd = ev.critical_difference
        if cd is not None:
            ranks = cd.average_ranks.set_index("algorithm")["score"]
            figures.append(figure_html(
                critical_difference_diagram(ranks, cd.cd, cd.groups),
                f"Strategies ranked by MIL over {cd.n_datasets} held-out datasets "
                f"(Friedman p = {cd.friedman.p_value:.2g})"))
        parts.append('<div class="row">' + "".join(figures) + "</div>")
    return "\n".join(parts)


def scoring_note(evaluation) -> str:
    """How the held-out datasets were scored, as a clause of the section's first sentence.

    With a study of several cross-validation repetitions the truth is one repetition and
    "the best algorithm" is chosen on the others (both ways averaged), so the oracle pays
    for its own noise and a loss can be negative; with one repetition, the same one.
    """
    if evaluation.scored_on == "unseen repetition":
        return (f" - with the study's {evaluation.n_repetitions} repetitions of the "
                "cross-validation, each held-out dataset is scored on one repetition while "
                "its best algorithm is chosen on the others, both ways averaged, so a "
                "strategy can beat that reference and a loss can be negative")
    return ""


def page_section(page) -> str:
    """The section for :func:`metaeval.report.write_report` (figures counted, problems noted)."""
    from metaeval.report._encode import figure_to_svg
    from metaeval.report._markup import _esc, _table
    from metaeval.report.figures import drawing_style

    def figure_html(fig, caption):
        page.n_figures += 1
        svg = figure_to_svg(fig, page_font=True)
        return f"<figure>{svg}<figcaption>{_esc(caption)}</figcaption></figure>"

    def table_html(frame):
        return _table(frame, text_columns=tuple(frame.columns))

    def section():
        # made and drawn in the report's drawing style, as its other figures: titles at
        # the top of their axes (none of these has decorations above its axes: the same
        # markup) instead of measured over every tick label; a seventh less CPU time
        with drawing_style():
            return recommendation_section(page.view.store, figure_html=figure_html,
                                          table_html=table_html, scores=page.view.scores)

    return page.attempt(
        "recommendation", section,
        default='<p class="problem">The recommendation section could not be computed.</p>')
