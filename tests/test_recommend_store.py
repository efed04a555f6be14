"""Recommendation against a real DuckDB store: knowledge base, meta-feature cache, pymfe."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score

from metaeval.datasets import Dataset
from metaeval.recommend import (
    STRATEGIES,
    Condition,
    KnowledgeBase,
    describe_dataset,
    describe_store,
    evaluate_recommenders,
    landmark_features,
    recommend,
)
from metaeval.store import Store

ALGORITHMS = ("A", "B", "C")


def _toy(name, seed, n=30):
    """A small dataset with a numeric, a categorical column and missing values."""
    rng = np.random.default_rng(seed)
    y = np.array([0, 1] * (n // 2), dtype=np.int8)
    x = rng.normal(size=n) + y * (1 + seed % 3)
    x[::7] = np.nan
    cat = np.where(rng.random(n) < 0.5, "u", "v").astype(object)
    cat[::5] = None
    X = pd.DataFrame({"x": x, "z": rng.normal(size=n), "c": cat})
    return Dataset(name, X, y, categorical=("c",), family=name.rstrip("0123456789"))


def _write_store(path, names, *, fail=None):
    """A finished study of ALGORITHMS on the toy datasets; scores known to the test."""
    store = Store(path)
    datasets = {n: _toy(n, i) for i, n in enumerate(names)}
    truth = {}
    with store.writing():
        store.sync_study(
            {"folds": 2, "seed": 0},
            datasets=[{"name": n, "sha256": "0" * 64, "n_instances": d.n_instances,
                       "n_features": d.n_features, "positive_fraction": 0.5,
                       "family": d.family, "source": "test"} for n, d in datasets.items()],
            algorithms=[{"name": a, "estimator": f"m.{a}", "params": "{}",
                         "score_method": "predict_proba", "versions": "{}"}
                        for a in ALGORITHMS],
            tasks=[(n, a, 0) for n in names for a in ALGORITHMS])
        for i, (n, d) in enumerate(datasets.items()):
            rng = np.random.default_rng(100 + i)
            for j, a in enumerate(ALGORITHMS):
                if fail == (n, a):
                    store.record_task(n, a, 0, status="failed", error="boom", wall=0.5)
                    continue
                s = np.clip(d.y * (0.3 + 0.2 * j) + rng.random(d.n_instances) * 0.6, 0, 1)
                wall = 0.1 * (j + 1) * (i + 1)
                store.record_task(n, a, 0, status="done", wall=wall, cpu=wall, n_folds=2,
                                  fold=np.arange(d.n_instances) % 2, y=d.y, score=s,
                                  timings={k: [0.01, 0.01] for k in
                                           ("fit_wall", "fit_cpu", "predict_wall",
                                            "predict_cpu")})
                truth[n, a] = (accuracy_score(d.y, (s > 0.5).astype(int)), wall)
    return store, datasets, truth


def test_knowledge_base_from_store_scores_each_cell_like_scikit_learn(tmp_path):
    names = ["ecoli1", "ecoli2", "sonar1", "glass1"]
    store, _, truth = _write_store(tmp_path / "s.duckdb", names)
    kb = KnowledgeBase.from_store(store, Condition("accuracy"))
    assert kb.datasets == tuple(names)
    assert kb.algorithms == ALGORITHMS
    assert kb.families == ("ecoli", "ecoli", "sonar", "glass")
    for i, n in enumerate(names):
        for j, a in enumerate(ALGORITHMS):
            assert kb.success[i, j] == pytest.approx(truth[n, a][0])
            assert kb.times[i, j] == pytest.approx(truth[n, a][1])
    assert kb.metafeatures is None and kb.landmarks is None


def test_from_store_reads_scores_through_the_given_callable(tmp_path):
    names = ["ecoli1", "ecoli2", "sonar1"]
    store, _, truth = _write_store(tmp_path / "s.duckdb", names)
    read = []

    def scores(name):  # scores in memory, flipped for sonar1: the KB must use these
        read.append(name)
        y, S, algs = store.scores(name)
        return (y, 1 - S, algs) if name == "sonar1" else (y, S, algs)

    kb = KnowledgeBase.from_store(store, Condition("accuracy"), scores=scores)
    assert read == names
    assert kb.success[0, 0] == pytest.approx(truth["ecoli1", ALGORITHMS[0]][0])
    assert kb.success[2, 0] == pytest.approx(1 - truth["sonar1", ALGORITHMS[0]][0], abs=0.2)
    assert kb.success[2, 0] != pytest.approx(truth["sonar1", ALGORITHMS[0]][0])
    with pytest.raises(ValueError, match="scores must be a callable"):
        KnowledgeBase.from_store(store, Condition("accuracy"), scores={"ecoli1": None})


def test_a_failed_task_is_scored_as_the_worst_algorithm_with_a_note(tmp_path):
    store, _, truth = _write_store(tmp_path / "s.duckdb", ["d1", "e1", "f1"], fail=("e1", "B"))
    kb = KnowledgeBase.from_store(store, Condition("accuracy"), clock="wall")
    worst = min(truth["e1", "A"][0], truth["e1", "C"][0])
    assert kb.success[1, 1] == worst
    assert kb.times[1, 1] == 0.5  # the failed task's recorded wall time
    # it recorded no CPU time: on the default clock it gets B's median over datasets
    cpu = KnowledgeBase.from_store(store, Condition("accuracy"))
    assert cpu.times[1, 1] == np.median(cpu.times[[0, 2], 1])
    assert any("failed" in note for note in kb.notes)


def test_a_store_with_fewer_than_three_datasets_is_refused(tmp_path):
    store, _, _ = _write_store(tmp_path / "s.duckdb", ["d1", "e1"])
    with pytest.raises(ValueError, match="at least 3"):
        KnowledgeBase.from_store(store, Condition())
    with pytest.raises(ValueError, match="at least 3"):
        evaluate_recommenders(store)


def test_an_old_store_without_the_cache_tables_still_opens(tmp_path):
    path = tmp_path / "old.duckdb"
    store, _, _ = _write_store(path, ["d1", "e1", "f1"])
    con = duckdb.connect(str(path))
    for table in ("metafeature_groups", "metafeatures", "landmark_scores"):
        con.execute(f"DROP TABLE {table}")
    con.close()
    assert len(store.metafeature_groups()) == 0
    assert list(store.metafeatures().columns) == ["dataset", "group", "feature", "value",
                                                  "error"]
    assert len(store.landmark_scores("d1")) == 0
    kb = KnowledgeBase.from_store(store, Condition())
    assert kb.metafeatures is None
    with store.writing():  # opening for writing adds the tables
        pass
    assert len(store.metafeature_groups()) == 0


def test_describe_dataset_handles_categorical_and_missing_values():
    d = describe_dataset(_toy("t1", 0), groups=["general", "statistical"], time_budget=None)
    groups = d.groups.set_index("group")
    assert groups.loc["general", "status"] == "ok"
    assert groups.loc["statistical", "status"] == "ok"
    general = d.features[d.features["group"] == "general"].set_index("feature")["value"]
    assert general["nr_inst"] == 30
    assert general["nr_attr"] == 3
    assert general["nr_cat"] == 1
    assert list(d.landmark_scores.columns) == ["NB", "stump", "1NN", "LR"]
    assert np.all((d.landmark_scores.to_numpy() >= 0) & (d.landmark_scores.to_numpy() <= 1))
    assert d.landmark_time > 0 and d.metafeature_time > 0


def test_a_failing_or_slow_group_is_recorded_not_fatal(monkeypatch):
    import metaeval.recommend.knowledge._describe as describe_module

    def broken(group, *args):
        raise RuntimeError(f"group {group!r} broke")

    monkeypatch.setattr(describe_module, "_extract", broken)
    failing = describe_dataset(_toy("t1", 0), groups=["general"], time_budget=60,
                               landmarkers=())
    row = failing.groups.set_index("group").loc["general"]
    assert row["status"] == "failed" and "broke" in row["error"]
    inline = describe_dataset(_toy("t1", 0), groups=["general"], time_budget=None,
                              landmarkers=())
    assert inline.groups["status"].tolist() == ["failed"]
    monkeypatch.undo()
    slow = describe_dataset(_toy("t1", 0), groups=["info-theory"], time_budget=1e-4,
                            landmarkers=())
    assert slow.groups["status"].tolist() == ["timeout"]
    assert len(failing.features) == len(slow.features) == 0
    with pytest.raises(ValueError, match="'no-such-group' is not a pymfe group"):
        describe_dataset(_toy("t1", 0), groups=["no-such-group"], time_budget=60,
                         landmarkers=())


def test_landmark_features_under_a_hardness_condition_use_whole_data_ranks():
    y = np.array([0, 0, 1, 1])
    S = pd.DataFrame({"NB": [0.1, 0.6, 0.4, 0.9]})
    cond = Condition("hardness:score-uniform")
    f = landmark_features(y, S, cond)
    # score-uniform hardness: s for class 0, 1 - s for class 1 -> 0.1, 0.6, 0.6, 0.1
    assert f["NB.success"] == pytest.approx(1 - 0.35)
    assert f["NB.class0"] == pytest.approx(0.35)
    assert f["NB.class1"] == pytest.approx(0.35)


@pytest.fixture(scope="module")
def described(tmp_path_factory):
    path = tmp_path_factory.mktemp("rec") / "s.duckdb"
    names = ["ecoli1", "ecoli2", "sonar1", "glass1", "iris1"]
    store, datasets, _ = _write_store(path, names)
    described = describe_store(store, loader=datasets.__getitem__, groups=["general"],
                               time_budget=None)
    return store, datasets, described


def test_describe_store_caches_what_describe_dataset_computes(described):
    store, datasets, groups = described
    assert sorted(groups["dataset"].unique()) == sorted(datasets)
    again = describe_dataset(datasets["sonar1"], groups=["general"], time_budget=None)
    cached = store.metafeatures()
    cached = cached[cached["dataset"] == "sonar1"].set_index("feature")["value"]
    fresh = again.features.set_index("feature")["value"]
    pd.testing.assert_series_equal(cached.sort_index(), fresh.sort_index(), check_names=False)
    land = store.landmark_scores("sonar1")
    wide = land.pivot(index="row", columns="landmarker", values="score")
    np.testing.assert_array_equal(wide[["NB", "LR"]].to_numpy(),
                                  again.landmark_scores[["NB", "LR"]].to_numpy())
    # described datasets are skipped the second time
    assert len(describe_store(store, loader=datasets.__getitem__, groups=["general"])) == 0


def test_describe_store_needs_a_loader_for_datasets_that_are_not_built_in(tmp_path):
    store, _, _ = _write_store(tmp_path / "s.duckdb", ["d1", "e1", "f1"])
    with pytest.raises(ValueError, match="not built in"):
        describe_store(store)


def test_every_strategy_runs_on_a_described_store(described):
    store, datasets, _ = described
    kb = KnowledgeBase.from_store(store, Condition("hardness:rate-driven", cost=0.3))
    assert kb.metafeatures is not None and kb.landmarks is not None
    assert "NB.class0" in kb.landmarks.columns
    ev = evaluate_recommenders(kb, n_random=5, n_boot=20)
    assert len(ev.strategies) == len(STRATEGIES)
    rec = recommend(_toy("new", 7), store, Condition(), strategy="knn-metafeatures", k=2,
                    top=2)
    assert len(rec.table) == 2 and len(rec.drivers) == 2
    assert rec.overhead > 0
    assert set(rec.drivers) <= set(datasets)


def test_record_description_accepts_missing_errors_as_nan(tmp_path):
    # regression: a groups frame whose error column mixes text and NaN (pandas turns None
    # into NaN there) could not be written
    store, _, _ = _write_store(tmp_path / "s.duckdb", ["d1", "e1", "f1"])
    groups = pd.DataFrame({"group": ["general", "info-theory"], "kind": "pymfe",
                           "status": ["ok", "failed"], "wall": [0.1, 0.2], "cpu": [0.1, 0.2],
                           "n_features": [1, 0], "n_failed": [0, 0],
                           "error": [float("nan"), "ValueError: boom"]})
    features = pd.DataFrame({"group": ["general"], "feature": ["nr_inst"], "value": [30.0],
                             "error": [float("nan")]})
    landmarks = pd.DataFrame({"landmarker": ["NB"] * 2, "row": [0, 1], "y": [0, 1],
                              "score": [0.2, 0.7]})
    with store.writing():
        store.record_description("d1", groups=groups, features=features, landmarks=landmarks,
                                 settings={})
    got = store.metafeature_groups().set_index("group")
    assert got.loc["info-theory", "error"] == "ValueError: boom"
    assert pd.isna(got.loc["general", "error"])
    assert store.metafeatures()["value"].tolist() == [30.0]


def test_a_group_stopped_at_its_budget_still_counts_its_cpu_time():
    # regression: the CPU time of a child process killed at the budget was lost.
    # 2000 x 300 numeric columns: info-theory takes ~8 s here (4 s at 150 columns), so a
    # 0.3 s budget stops it even on a machine several times faster (n=400, 3 columns
    # finished inside the budget on a fast CI machine).
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(2000, 300)), columns=[f"x{i}" for i in range(300)])
    y = (X["x0"] > 0).to_numpy().astype(np.int8)
    d = describe_dataset(Dataset("wide", X, y), groups=["info-theory"], time_budget=0.3,
                         landmarkers=())
    row = d.groups.iloc[0]
    assert row["status"] == "timeout"
    assert row["cpu"] > 0.05


@pytest.mark.parametrize("budget", ["5", True, 0, -1.0, float("nan")])
def test_describe_bad_time_budget_is_a_value_error(budget):
    with pytest.raises(ValueError, match="time_budget must be > 0 seconds or None"):
        describe_dataset(_toy("t1", 0), groups=["general"], time_budget=budget)


def test_a_child_stopped_inside_pymfe_s_progress_bar_leaves_the_parent_able_to_describe(
        monkeypatch):
    # pymfe draws a tqdm progress bar under a lock that forked children share with their
    # parent; a child stopped at its budget while holding it must not leave it held, or
    # the parent's next description waits on it forever (seen: a test run that hung)
    import os
    import signal

    import tqdm.auto

    from metaeval.recommend.knowledge import _describe

    lock = tqdm.auto.tqdm.get_lock()  # the parent's, made before the child is forked

    def dies_holding_the_bar_lock(*args):
        with tqdm.auto.tqdm.get_lock():
            os.kill(os.getpid(), signal.SIGKILL)

    monkeypatch.setattr(_describe, "_extract", dies_holding_the_bar_lock)
    d = describe_dataset(_toy("t1", 0), groups=["general"], time_budget=30, landmarkers=())
    assert d.groups["status"].tolist() == ["failed"]
    assert "died" in d.groups["error"].iloc[0]
    free = [lk.acquire(timeout=5) for lk in lock.locks]
    for lk, got in zip(lock.locks, free, strict=True):
        if got:
            lk.release()
    assert all(free), "the child left the parent's progress-bar lock held"


def test_a_description_whose_every_group_failed_is_described_again(tmp_path, monkeypatch):
    import metaeval.recommend.knowledge._describe as describe_module
    from metaeval.recommend import LANDMARKERS

    store, datasets, _ = _write_store(tmp_path / "s.duckdb", ["ecoli1", "sonar1", "iris1"])
    real = describe_module._extract

    def broken(group, *args):
        raise RuntimeError(f"group {group!r} broke")

    monkeypatch.setattr(describe_module, "_extract", broken)
    first = describe_store(store, loader=datasets.__getitem__, groups=["general"],
                           time_budget=None, landmarkers=LANDMARKERS[:1])
    assert set(first.loc[first["kind"] == "pymfe", "status"]) == {"failed"}
    monkeypatch.setattr(describe_module, "_extract", real)
    # not skipped as "already described": every pymfe group of each had failed
    again = describe_store(store, loader=datasets.__getitem__, groups=["general"],
                           time_budget=None, landmarkers=LANDMARKERS[:1])
    assert sorted(again["dataset"].unique()) == sorted(datasets)
    assert set(again.loc[again["kind"] == "pymfe", "status"]) == {"ok"}
    assert len(describe_store(store, loader=datasets.__getitem__, groups=["general"],
                              time_budget=None, landmarkers=LANDMARKERS[:1])) == 0
