"""The report's family view: summary, family dissimilarity, dendrograms, the HTML section."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metaeval.report._families import (
    MAX_LABELLED_LEAVES,
    family_dendrogram,
    family_dissimilarity,
    family_summary,
    top_k,
)


def test_family_summary_groups_members_and_finds_the_best():
    H = pd.DataFrame({"ST": [0.30, 0.10, 0.25, 0.40], "RD": [0.2, 0.3, 0.1, 0.5]},
                     index=["knn:k=1", "knn:k=5", "lr:C=1", "NB"])
    fams = {"knn:k=1": "knn", "knn:k=5": "knn", "lr:C=1": "lr", "NB": "gnb"}
    ranks = pd.Series({"knn:k=1": 3.0, "knn:k=5": 1.5, "lr:C=1": 1.5, "NB": 4.0})
    out = family_summary(H, fams, ranks)
    assert out.index.tolist() == ["knn", "lr", "gnb"]  # by the best member under ST
    assert out.loc["knn", "configurations"] == 2
    assert out.loc["knn", "mean ST"] == pytest.approx(0.2)
    assert out.loc["knn", "best RD"] == pytest.approx(0.2)
    assert out.loc["knn", "best member"] == "knn:k=5"
    assert out.loc["gnb", "best rank"] == 4.0
    with pytest.raises(ValueError, match="no family for"):
        family_summary(H, {"NB": "gnb"})


def test_family_dissimilarity_is_the_mean_over_member_pairs():
    D = np.array([[0, 1, 4], [1, 0, 6], [4, 6, 0]], dtype=float)
    F, names = family_dissimilarity(D, ["a1", "a2", "b1"], {"a1": "a", "a2": "a", "b1": "b"})
    assert names == ["a", "b"]
    np.testing.assert_allclose(F, [[1.0, 5.0], [5.0, 0.0]])
    with pytest.raises(ValueError, match="D must be 3 x 3"):
        family_dissimilarity(D[:2, :2], ["a1", "a2", "b1"], {})


def test_top_k_keeps_the_best_ranks_with_their_family():
    ranks = pd.Series({"a": 3.0, "b": 1.0, "c": 2.0})
    out = top_k(ranks, {"a": "x", "b": "y", "c": "x"}, k=2)
    assert out.index.tolist() == ["b", "c"] and out["family"].tolist() == ["y", "x"]


def _clustered(n_per, n_fam, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_fam, 5)) * 5
    X = np.repeat(centres, n_per, axis=0) + rng.normal(size=(n_per * n_fam, 5)) * 0.1
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    names = [f"f{i // n_per}:c={i % n_per}" for i in range(n_per * n_fam)]
    return D, names, {n: n.split(":")[0] for n in names}


def test_a_small_dendrogram_colours_its_leaf_labels_by_family():
    D, names, fams = _clustered(3, 3)
    fig = family_dendrogram(D, names, fams)
    ax = fig.axes[0]
    labels = ax.get_xticklabels()
    assert sorted(t.get_text() for t in labels) == sorted(names)
    colour = {t.get_text().split(":")[0]: t.get_color() for t in labels}
    assert len(set(map(str, colour.values()))) == 3  # one colour per family
    for t in labels:  # same family, same colour
        assert t.get_color() == colour[t.get_text().split(":")[0]]


def test_family_colours_are_legible_on_white_and_the_legend_is_off_the_tree():
    # tab20's light blue, orange and green were pale on white, the legend on the root
    from matplotlib.colors import to_rgb

    from metaeval.report._families import _contrast_on_white

    D, names, fams = _clustered(2, 20)
    fig = family_dendrogram(D, names, fams)
    ax = fig.axes[0]
    assert ax.get_legend() is None and len(fig.legends[0].get_texts()) == 20
    for t in ax.get_xticklabels():
        assert _contrast_on_white(to_rgb(t.get_color())) >= 4.5
        assert t.get_fontsize() >= 10
    assert len({t.get_color() for t in ax.get_xticklabels()}) == 20


def test_a_500_leaf_dendrogram_has_a_family_strip_instead_of_labels():
    D, names, fams = _clustered(50, 10)
    assert len(names) == 500 > MAX_LABELLED_LEAVES
    fig = family_dendrogram(D, names, fams)
    ax, strip = fig.axes
    assert [t.get_text() for t in ax.get_xticklabels()] == []
    bars = strip.patches
    assert len(bars) == 500
    # tightly clustered families: the strip has exactly one run of colour per family
    colours = [tuple(b.get_facecolor()) for b in bars]
    runs = 1 + sum(a != b for a, b in zip(colours, colours[1:], strict=False))
    assert runs == 10
    assert len(fig.legends[0].get_texts()) == 10  # under the figure, off the tree


def test_the_report_has_a_family_section(tmp_path):
    from metaeval.report import write_report
    from metaeval.store import Store

    rng = np.random.default_rng(1)
    store = Store(tmp_path / "f.duckdb")
    names = [f"{f}:c={i}" for f in ("knn", "lr", "rf") for i in range(3)]
    with store.writing():
        store._writer().execute("INSERT INTO meta VALUES ('study', '{\"folds\": 2}')")
        for ds in ("labor", "fertility"):
            from metaeval.datasets import load_dataset

            y = load_dataset(ds).y.astype(int)
            frames = []
            for j, a in enumerate(names):
                s = np.clip(0.3 * y + 0.1 * (j // 3) + 0.4 * rng.random(len(y)), 0, 1)
                frames.append(pd.DataFrame({"dataset": ds, "algorithm": a,
                                            "row": np.arange(len(y)),
                                            "fold": np.arange(len(y)) % 2, "score": s,
                                            "fit_time": 0.01 * (1 + j)}))
            store.import_predictions(pd.concat(frames), format="long")
    # the families section is study-wide: no per-dataset section is needed for it
    path = write_report(store, tmp_path / "r", datasets=[], bootstrap_draws=20)
    text = path.read_text()
    assert 'id="families"' in text and "Algorithm families" in text
    section = text.split('id="families"')[1].split("</section>")[0]
    assert "9 algorithms in 3 families" in section
    assert "<svg" in section and "Dendrogram of the families" in section
