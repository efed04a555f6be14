"""The report's rankings and benchmark sections on a wide pool: top k and families.

A synthetic store of 30 configurations in 3 families (imported predictions, no fitting):
the rankings section lists only the 20 best by average rank, says so, and adds the
rankings of the families; the benchmark section's per-algorithm figures show 20 too and a
family table follows. With 8 algorithms neither section changes.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from metaeval.report import write_report
from metaeval.report._plots import StudyView
from metaeval.store import Store


def _store(path, algorithms, datasets=("labor", "fertility"), folds=2, seed=3):
    from metaeval.datasets import load_dataset

    rng = np.random.default_rng(seed)
    store = Store(path)
    with store.writing():
        store._writer().execute("INSERT INTO meta VALUES ('study', ?)",
                                [f'{{"folds": {folds}}}'])
        for ds in datasets:
            y = load_dataset(ds).y.astype(int)
            n = len(y)
            frames = []
            for j, a in enumerate(algorithms):
                q = 0.05 + 0.4 * j / len(algorithms)  # later configurations are better
                s = np.clip(0.5 + (2 * y - 1) * q + 0.3 * rng.normal(size=n), 0, 1)
                frames.append(pd.DataFrame({"dataset": ds, "algorithm": a, "row": np.arange(n),
                                            "fold": np.arange(n) % folds, "score": s,
                                            "fit_time": 0.01 * (1 + j % 7)}))
            store.import_predictions(pd.concat(frames), format="long")
    return store


def _section(text, anchor):
    return text.split(f'<section id="{anchor}">')[1].split("</section>")[0]


def _first_column(table_html):
    return re.findall(r'<tr><td class="text">([^<]*)</td>', table_html)


@pytest.fixture(scope="module")
def wide(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wide-report")
    names = [f"{f}:c={i}" for i in range(10) for f in ("knn", "lr", "rf")]
    store = _store(tmp / "wide.duckdb", names)
    path = write_report(store, tmp / "r", datasets=[], bootstrap_draws=10)
    return store, path.read_text()


def test_the_rankings_of_a_wide_pool_show_the_top_20_and_the_families(wide):
    store, text = wide
    ar = StudyView(store).rankings()["AR"]
    expected = ar["algorithm"].head(20).tolist()
    section = _section(text, "rankings")
    assert "the 20 of 30 algorithms best by AR" in section
    tables = section.split("<table>")
    assert _first_column(tables[1]) == expected  # the top 20 by AR, in order
    for name in ar["algorithm"].tail(10):  # the 10 others are nowhere in the section
        assert f">{name}<" not in section
    assert "Rankings of the 3 algorithm families" in section
    assert sorted(_first_column(tables[2])) == ["knn", "lr", "rf"]
    assert "configurations" in tables[2]
    assert "Only the 20 of 30 algorithms best by AR, ranked among themselves." in section
    assert "Figure not drawn" not in section


def test_the_benchmark_of_a_wide_pool_shows_the_top_20_and_the_families(wide):
    _, text = wide
    section = _section(text, "benchmark")
    assert "show the 20 of 30 algorithms best by value captured" in section
    assert section.count("Only the 20 of 30 algorithms best by value captured.") == 4
    assert "Value captured by the 3 algorithm families" in section
    assert "Figure not drawn" not in section


def test_the_critical_difference_of_a_subset_ranks_it_among_itself(wide):
    from metaeval.report import plot

    store, _ = wide
    fig = plot("critical-difference", store, algorithms=["rf:c=9", "lr:c=9", "knn:c=9"])
    gids = {a.get_gid() for a in fig.axes[0].get_children() if a.get_gid()}
    assert {"rank:rf:c=9", "rank:lr:c=9", "rank:knn:c=9"} <= gids
    assert not any(g.startswith("rank:") and g.endswith("c=0") for g in gids)
    with pytest.raises(ValueError, match="no results"):
        plot("critical-difference", store, algorithms=["nope"])


def test_eight_algorithms_change_nothing(tmp_path):
    from metaeval.report.html import _benchmark, _Page, _rankings

    names = [f"{f}:c={i}" for i in range(4) for f in ("knn", "lr")]
    store = _store(tmp_path / "eight.duckdb", names)
    view = StudyView(store)
    page = _Page(view, dpi=72, strict=True)
    calls = []
    page.figure = lambda kind, caption, **options: calls.append((kind, caption, options)) or ""
    rankings = _rankings(page, accd=0.1, a3r_n=8)
    benchmark = _benchmark(page, bootstrap_draws=10)
    for html in (rankings, benchmark):
        assert "algorithms best by" not in html and "algorithm families" not in html
    assert sorted(_first_column(rankings)) == sorted(names)  # all 8, one table
    assert len(calls) == 11
    assert not any("algorithms" in options or "Only the" in caption
                   for _, caption, options in calls)
    # the same pool with k = 4: cut to the best 4, families added (the switch works)
    calls.clear()
    html = _rankings(page, accd=0.1, a3r_n=8, k=4)
    assert "the 4 of 8 algorithms best by AR" in html
    assert "Rankings of the 2 algorithm families" in html
    assert calls[0][2] == {"algorithms": view.rankings()["AR"]["algorithm"].head(4).tolist()}


def test_the_benchmark_figures_show_the_algorithms_asked_for(wide):
    from metaeval.report import plot

    store, _ = wide
    chosen = ["rf:c=9", "knn:c=0", "lr:c=5"]
    for kind in ("value-captured", "runtime-scores"):
        full = plot(kind, store)
        part = plot(kind, store, algorithms=chosen)
        labels = {t.get_text() for t in part.axes[0].get_yticklabels()}
        assert labels == set(chosen), kind
        assert len({t.get_text() for t in full.axes[0].get_yticklabels()}) == 30
    for kind in ("heatmap-datasets", "heatmap-metrics"):
        image = plot(kind, store, algorithms=chosen).axes[0].get_images()[0]
        assert 3 in image.get_array().shape, kind
    with pytest.raises(ValueError, match="not among"):
        plot("value-captured", store, algorithms=["nope"])


def test_the_dataset_sections_of_a_wide_pool_show_the_best_by_average_rank(wide):
    from metaeval.report.html import _dataset_section, _Page

    store, _ = wide
    view = StudyView(store)
    page = _Page(view, dpi=72, strict=True)
    calls = []
    page.figure = lambda kind, caption, **options: calls.append((kind, options)) or ""
    html = _dataset_section(page, "labor", cost_proportions=(0.5,), cut_height=None,
                            instance_space_max_rows=0)
    ar = view.rankings()["AR"]["algorithm"].tolist()
    # the mean hardness table: the 20 best by AR, in rank order, and a note that says so
    assert "The 20 of 30 algorithms best by average rank (AR)" in html
    assert _first_column(html.split("<table>")[1]) == ar[:20]
    # the instance cost curves: one line for each of the 8 best
    assert "The 8 of 30 algorithms best by average rank (AR)" in html
    options = dict(calls)["instance-cost-curves"]
    assert options["algorithms"] == ar[:8]


def test_a_dendrogram_of_more_leaves_than_can_be_read_names_none():
    from scipy.cluster.hierarchy import linkage

    from metaeval.report import figures

    rng = np.random.default_rng(0)
    for n, named in ((60, True), (61, False)):
        Z = linkage(rng.random((n, 3)), method="average")
        fig = figures.dendrograms({"score-driven": Z}, [f"a{i}" for i in range(n)])
        labels = [t.get_text() for t in fig.axes[0].get_xticklabels() if t.get_text()]
        assert (len(labels) == n) is named
        notes = [t.get_text() for t in fig.texts]
        assert any(f"{n} leaves, not named" in t for t in notes) is not named
