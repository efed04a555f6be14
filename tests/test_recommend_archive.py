"""The knowledge archive: past results kept for every operating condition, in one file.

Checked against the exact computation from a real DuckDB store (Condition.success on the
out-of-fold scores), on scores with many ties (thirds and tenths, as k-NN and trees give).
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.datasets import load_dataset
from metaeval.hardness import METHODS
from metaeval.recommend import (
    GRID,
    Condition,
    KnowledgeArchive,
    KnowledgeBase,
    beta_weights,
    build_knowledge,
    describe_store,
    landmark_features,
    load_knowledge,
    recommend,
)
from metaeval.store import Store

BUILTIN = ("labor", "fertility", "haberman", "appendicitis")
ALGORITHMS = ("A", "B", "C", "D")


def _store(path, *, describe=True):
    """A finished study of four 'algorithms' on four small built-in datasets.

    Scores are rounded to thirds or tenths: many ties, and jumps of the score-driven
    cost curves exactly at grid points and between them.
    """
    store = Store(path)
    data = {n: load_dataset(n) for n in BUILTIN}
    with store.writing():
        store.sync_study(
            {"folds": 2, "seed": 0},
            datasets=[{"name": n, "sha256": d.sha256, "n_instances": d.n_instances,
                       "n_features": d.n_features, "positive_fraction": d.positive_fraction,
                       "family": d.family, "source": "test"} for n, d in data.items()],
            algorithms=[{"name": a, "estimator": f"m.{a}", "params": "{}",
                         "score_method": "predict_proba", "versions": "{}"}
                        for a in ALGORITHMS],
            tasks=[(n, a, 0) for n in data for a in ALGORITHMS])
        for i, (n, d) in enumerate(data.items()):
            rng = np.random.default_rng(i)
            for j, a in enumerate(ALGORITHMS):
                if (n, a) == ("haberman", "D"):
                    store.record_task(n, a, 0, status="failed", error="boom", wall=0.5)
                    continue
                raw = np.clip(d.y * (0.2 + 0.15 * j) + rng.random(d.n_instances) * 0.7, 0, 1)
                step = 3 if j % 2 else 10
                s = np.round(raw * step) / step
                t = 0.1 * (j + 1) * (i + 1)
                store.record_task(n, a, 0, status="done", wall=2 * t, cpu=t, n_folds=2,
                                  fold=np.arange(d.n_instances) % 2, y=d.y, score=s,
                                  timings={k: [0.01, 0.01] for k in
                                           ("fit_wall", "fit_cpu", "predict_wall",
                                            "predict_cpu")})
    if describe:
        describe_store(store, groups=["general"], time_budget=None)
    return store


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    store = _store(tmp_path_factory.mktemp("arc") / "s.duckdb")
    return store, build_knowledge(store)


_SCORES = {}


def _scores(store):
    """The store's score matrices, read once per test process."""
    def read(name):
        key = (str(store.path), name)
        if key not in _SCORES:
            _SCORES[key] = store.scores(name)
        return _SCORES[key]
    return read


CONDITIONS = [Condition(m) for m in ("accuracy", "auc", "brier", "log_loss", "f1", "mcc")]
for _m in METHODS:
    CONDITIONS += [Condition(f"hardness:{_m}"), Condition(f"hardness:{_m}", cost=0.3),
                   Condition(f"hardness:{_m}", cost=0.335),
                   Condition(f"hardness:{_m}", cost_beta=(2, 8))]


def _exactness(condition):
    """How closely the archive must match: exact unless a grid method is read off-grid."""
    if condition.method in ("score-driven", "rate-driven"):
        on_grid = condition.cost is not None and np.any(np.isclose(GRID, condition.cost,
                                                                    rtol=0, atol=1e-12))
        # curves kept to multiples of 2**-28 (1.9e-9 at most); off the grid: interpolated
        return 1e-6 if on_grid else None
    return 1e-12


@pytest.mark.parametrize("condition", CONDITIONS, ids=lambda c: c.label)
def test_archive_success_equals_the_store_s_exact_success(built, condition):
    store, archive = built
    kb = archive.knowledge_base(condition, clock="cpu")
    exact = KnowledgeBase.from_store(store, condition, clock="cpu", scores=_scores(store))
    assert kb.datasets == exact.datasets and kb.algorithms == exact.algorithms
    np.testing.assert_array_equal(kb.times, exact.times)
    tol = _exactness(condition)
    if tol is not None:
        np.testing.assert_allclose(kb.success, exact.success, rtol=0, atol=tol)
    else:
        # between grid points the curve is the chord of its two neighbours; with costs
        # 0.335 (between 0.33 and 0.34, thirds at 0.333...) the error is real but small
        err = np.abs(kb.success - exact.success).max()
        assert 0 < err < 0.1


def test_the_failed_cell_is_the_dataset_s_worst_as_in_a_store_read(built):
    _, archive = built
    i, j = archive.datasets.index("haberman"), archive.algorithms.index("D")
    assert np.isnan(archive.metrics[i, j]).all() and np.isnan(archive.times["cpu"][i, j])
    kb = archive.knowledge_base(Condition("accuracy"))
    assert kb.success[i, j] == kb.success[i].min()
    assert any("1 failed" in n for n in kb.notes)


def test_point_costs_off_the_grid_interpolate_the_stored_curve_linearly(built):
    _, archive = built
    curve = archive.curves["rate-driven"]
    c = 0.3337
    k = int(np.floor(c * 200))
    lam = (c - GRID[k]) / (GRID[k + 1] - GRID[k])
    expected = 1 - ((1 - lam) * curve[..., k] + lam * curve[..., k + 1])
    got = archive.success(Condition("hardness:rate-driven", cost=c))
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)


@pytest.mark.parametrize("a, b", [(1, 1), (2, 8), (0.5, 0.5), (40, 3), (1, 5)])
def test_beta_weights_integrate_a_piecewise_linear_curve_exactly(a, b):
    rng = np.random.default_rng(int(a * 10 + b))
    grid = np.sort(np.concatenate([[0.0, 1.0], rng.random(30)]))
    g = rng.random(grid.size)
    w = beta_weights(grid, a, b)

    def f(c):
        return np.interp(c, grid, g) * stats.beta.pdf(c, a, b)

    brute = sum(integrate.quad(f, lo, hi, limit=200, epsabs=1e-13)[0]
                for lo, hi in zip(grid[:-1], grid[1:], strict=True))
    assert w @ g == pytest.approx(brute, abs=1e-9)
    assert w.sum() == pytest.approx(1.0, abs=1e-12)  # a constant curve integrates to itself


def test_linear_methods_are_linear_in_the_cost(built):
    """Score-fixed and the uniform methods keep two points: check a third, exactly."""
    store, archive = built
    y, S, _ = store.scores("labor")
    for method in ("score-fixed", "score-uniform", "rate-uniform"):
        c = Condition(f"hardness:{method}", cost=0.71)
        i = archive.datasets.index("labor")
        np.testing.assert_allclose(archive.success(c)[i], c.success(y, S), atol=1e-12)


def test_landmark_features_equal_those_computed_from_the_landmarker_scores(built):
    store, archive = built
    for condition in (Condition("accuracy"), Condition("hardness:rate-driven", cost=0.3),
                      Condition("hardness:score-uniform", cost_beta=(2, 8))):
        feats = archive.landmark_features(condition)
        for name in archive.datasets:
            long = store.landmark_scores(name)
            wide = long.pivot(index="row", columns="landmarker", values="score")
            y = long.drop_duplicates("row").set_index("row")["y"].reindex(wide.index)
            exact = landmark_features(y.to_numpy(), wide, condition)
            np.testing.assert_allclose(feats.loc[name, exact.index].to_numpy(dtype=float),
                                       exact.to_numpy(), atol=1e-6)


def test_save_and_load_round_trip_byte_for_byte(built, tmp_path):
    _, archive = built
    first = archive.save(tmp_path / "a.npz")
    again = load_knowledge(first).save(tmp_path / "b.npz")
    digest = [hashlib.sha256(p.read_bytes()).hexdigest() for p in (first, again)]
    assert digest[0] == digest[1]
    loaded = load_knowledge(first)
    cond = Condition("hardness:score-driven", cost_beta=(2, 8))
    np.testing.assert_allclose(loaded.success(cond), archive.success(cond), atol=1e-6)
    pd.testing.assert_frame_equal(loaded.metafeatures, archive.metafeatures)
    for clock in ("cpu", "wall"):
        times = loaded.description_times[clock]
        pd.testing.assert_frame_equal(times, archive.description_times[clock])
        # each group's and landmarker's own seconds add up to the totals
        for kind in ("pymfe", "landmarker"):
            parts = [c for c in times.columns if c.startswith(kind + ":")]
            assert parts
            np.testing.assert_allclose(times[parts].sum(axis=1), times[kind])


def test_bad_archive_files_are_refused_with_the_file_named(built, tmp_path):
    _, archive = built
    with pytest.raises(ValueError, match="no such file"):
        load_knowledge(tmp_path / "missing.npz")
    good = archive.save(tmp_path / "good.npz").read_bytes()
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good[: len(good) // 2])
    with pytest.raises(ValueError, match="cut.npz"):
        load_knowledge(cut)
    other = tmp_path / "other.npz"
    np.savez(other, format=np.array("something-else/9"))
    with pytest.raises(ValueError, match="format 'something-else/9'"):
        load_knowledge(other)
    with pytest.raises(ValueError, match="threshold 0.5"):
        archive.success(Condition("accuracy", threshold=0.3))


def test_building_needs_descriptions_and_says_which_command(tmp_path):
    store = _store(tmp_path / "s.duckdb", describe=False)
    with pytest.raises(ValueError, match="metaeval describe --store"):
        build_knowledge(store)
    bare = build_knowledge(store, require_descriptions=False)
    assert bare.metafeatures is None and bare.landmarkers == ()
    with pytest.raises(ValueError, match="jobs must be a positive integer"):
        build_knowledge(store, require_descriptions=False, jobs=0)


def test_parallel_build_gives_the_same_archive(built, tmp_path):
    store, archive = built
    other = build_knowledge(store, jobs=2)
    np.testing.assert_array_equal(other.metrics, archive.metrics)
    for m in METHODS:
        np.testing.assert_array_equal(other.curves[m], archive.curves[m])


def test_the_shipped_archive_covers_the_wide_pool_and_states_its_accuracy():
    archive = load_knowledge()
    # the kb suite: at least 70 datasets in 60 families, 12 of them of 5,000 rows or
    # more, every cell in two repetitions of the cross-validation
    assert archive.shape == (72, 152)
    assert len(set(archive.families)) == 63
    assert int((np.asarray(archive.n_instances) >= 5000).sum()) >= 12
    assert archive.n_repetitions == 2
    assert archive.repetition_success(Condition()).shape == (2, 72, 152)
    assert archive.metafeatures.shape[0] == 72 and len(archive.landmarkers) == 4
    accuracy = archive.provenance["accuracy"]["max_abs_error_of_success"]
    # metrics and the linear methods are exact; the grid methods at a grid cost exact to
    # float32; off the grid and under Beta(2, 8) within a thousandth (measured)
    assert accuracy["accuracy"] == 0.0
    assert accuracy["1 - rate-driven hardness at c = 0.3"] < 1e-7
    assert accuracy["1 - score-driven hardness under Beta(2, 8)"] < 1e-3
    for condition in (Condition("accuracy"), Condition("hardness:rate-driven", cost=0.3),
                      Condition("hardness:score-driven", cost_beta=(2, 8))):
        kb = archive.knowledge_base(condition)
        assert np.all((kb.success >= 0) & (kb.success <= 1))
        assert np.all(kb.times > 0)


def test_recommend_from_the_shipped_archive_describes_like_its_datasets():
    data = load_dataset("labor")
    rec = recommend(data, strategy="knn-metafeatures", k=5,
                    condition=Condition("hardness:rate-driven", cost=0.3))
    assert len(rec.table) == 152
    assert rec.overhead > 0
    # labor is itself in the archive: its nearest datasets are neighbours, not itself
    # excluded -- the recommendation reads the past results as they are
    assert len(rec.drivers) == 5


runner = CliRunner()


def test_cli_recommend_without_a_store_uses_the_shipped_knowledge(tmp_path):
    frame = load_dataset("labor").X.copy()
    frame["Outcome"] = np.where(load_dataset("labor").y == 1, "good", "bad")
    path = tmp_path / "mine.csv"
    frame.to_csv(path, index=False)
    wrong = runner.invoke(app, ["recommend", str(path), "--target", "outcomes"])
    assert wrong.exit_code == 2
    assert "(closest: 'Outcome')" in wrong.output
    ok = runner.invoke(app, ["recommend", str(path), "--target", "Outcome", "--pos-label",
                             "good", "--top", "3", "--strategy", "average-ranking"])
    assert ok.exit_code == 0, ok.output
    assert "average-ranking for mine" in ok.output and "score" in ok.output
    ranks = [line.split("│")[1].strip() for line in ok.output.splitlines()
             if line.startswith("│ ") and line.split("│")[1].strip()]
    assert ranks == ["1", "2", "3"], ok.output  # long names wrap onto rank-less lines


def test_cli_knowledge_build_and_show(built, tmp_path):
    store, _ = built
    out = tmp_path / "k.npz"
    result = runner.invoke(app, ["knowledge", "build", "--store", str(store.path), "--out",
                                 str(out), "-q", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert "4 datasets x 4 configurations" in result.output
    shown = runner.invoke(app, ["knowledge", "show", str(out)])
    assert shown.exit_code == 0 and "1 failed" in shown.output
    assert "1 repetition of the cross-validation" in shown.output
    bad = runner.invoke(app, ["knowledge", "build", "--store", str(tmp_path / "no.duckdb")])
    assert bad.exit_code == 2 and "no store" in bad.output


def test_cli_knowledge_build_writes_the_evaluations_advice_quotes(built, tmp_path,
                                                                   monkeypatch):
    from metaeval.recommend import _advice

    store, _ = built
    monkeypatch.setattr(_advice, "CONDITIONS", (("auc", {"measure": "auc"}),))
    monkeypatch.setattr(_advice, "TIME_WEIGHTS", (1 / 64,))
    out, evaluations = tmp_path / "k.npz", tmp_path / "e" / "evaluations.json"
    same = runner.invoke(app, ["knowledge", "build", "--store", str(store.path), "--out",
                               str(out), "--evaluations", str(out), "-q"])
    assert same.exit_code == 2 and "--evaluations must name another file" in same.output
    assert not out.exists()
    result = runner.invoke(app, ["knowledge", "build", "--store", str(store.path), "--out",
                                 str(out), "--evaluations", str(evaluations), "-q",
                                 "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert f"Evaluations of 1 conditions written to {evaluations}" in result.output
    document = json.loads(evaluations.read_text())
    assert document["format"] == _advice.FORMAT
    [entry] = document["conditions"]
    assert entry["label"] == "AUC, P = 1/64" and entry["scored_on"] == "same repetition"
    # it names the file it describes; the advice reads it as it reads the shipped one
    checksum = load_knowledge(out).provenance["checksum"]
    assert document["knowledge"]["checksum"] == checksum
    text = _advice.advice("single-best", Condition("auc", time_weight=1 / 64), document,
                          knowledge=checksum)
    assert text.startswith("On 4 past datasets (4 families) under AUC, P = 1/64")


def test_cli_describe_caches_descriptions(tmp_path):
    store = _store(tmp_path / "s.duckdb", describe=False)
    result = runner.invoke(app, ["describe", "--store", str(store.path), "-q",
                                 "--time-budget", "5", "--groups", "general,statistical"])
    assert result.exit_code == 0, result.output
    assert "Described 4 dataset(s)" in result.output
    groups = store.metafeature_groups()
    assert set(groups["dataset"]) == set(BUILTIN)
    assert set(groups.loc[groups["kind"] == "pymfe", "group"]) == {"general", "statistical"}
    again = runner.invoke(app, ["describe", "--store", str(store.path), "-q"])
    assert "already described" in again.output
    assert isinstance(build_knowledge(store), KnowledgeArchive)


def test_cli_exports_the_shipped_knowledge_base_as_an_aslib_scenario(tmp_path):
    from metaeval.recommend import read_aslib

    target = tmp_path / "scenario"
    result = runner.invoke(app, ["export", "--aslib", str(target), "--knowledge", "shipped",
                                 "--measure", "hardness:rate-driven", "--cost", "0.3"])
    assert result.exit_code == 0, result.output
    condition = Condition("hardness:rate-driven", cost=0.3)
    kb = load_knowledge().knowledge_base(condition)
    scenario = read_aslib(target)
    assert scenario.knowledge.algorithms == kb.algorithms
    # the scenario's success is the knowledge base's (up to the ARFF's printed digits)
    rows = [scenario.knowledge.datasets.index(d) for d in kb.datasets]
    np.testing.assert_allclose(scenario.knowledge.success[rows], kb.success, atol=1e-9)
    assert "knowledge base shipped with metaeval" in (target / "readme.txt").read_text()
