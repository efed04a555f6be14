"""Leave-one-dataset-out evaluation: no leakage, families held out, summaries checked."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metaeval.recommend.evaluation._evaluate as evaluate_module
import metaeval.recommend.evaluation._scoring as scoring_module
from metaeval._validation import json_records
from metaeval.recommend import (
    LOSS_STEPS,
    AverageRanking,
    Condition,
    HeldOut,
    KnowledgeBase,
    evaluate_recommenders,
    sweep_time_weight,
)


def _synthetic(n_datasets=8, n_algorithms=6, seed=0, families=None, features=True):
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.6, 0.9, n_algorithms)
    success = np.clip(skill + rng.normal(0, 0.05, (n_datasets, n_algorithms)), 0.01, 1)
    times = rng.uniform(0.05, 5, n_algorithms) * rng.uniform(0.5, 20, (n_datasets, 1))
    names = [f"d{i}" for i in range(n_datasets)]
    extra = {}
    if features:
        extra["metafeatures"] = pd.DataFrame(rng.normal(size=(n_datasets, 3)), index=names,
                                             columns=["general.a", "general.b", "general.c"])
        extra["metafeature_time"] = np.full(n_datasets, 0.3)
        extra["landmarks"] = pd.DataFrame(success[:, :2] + rng.normal(0, .01, (n_datasets, 2)),
                                          index=names, columns=["NB.success", "LR.success"])
        extra["landmark_time"] = np.full(n_datasets, 0.7)
    return KnowledgeBase(names, [f"a{j}" for j in range(n_algorithms)], success, times,
                         families=families, n_instances=np.full(n_datasets, 100), **extra)


class _Recorder(HeldOut):
    """A HeldOut that writes every access to a shared log."""

    log: list = []
    count = 0

    def __init__(self, success, times):
        super().__init__(success, times)
        _Recorder.count += 1
        self.id = _Recorder.count
        _Recorder.log.append((self.id, "open", None))

    def test(self, j):
        _Recorder.log.append((self.id, "test", int(j)))
        return super().test(j)

    def reveal(self):
        _Recorder.log.append((self.id, "reveal", None))
        return super().reveal()


def test_held_out_results_are_read_only_when_tested(monkeypatch):
    """Every strategy but the oracle reads a held-out result only by testing it, one at a
    time, and sees all results (to score its curve) only after its last test."""
    monkeypatch.setattr(scoring_module, "HeldOut", _Recorder)
    _Recorder.log = []
    kb = _synthetic()
    names = ["average-ranking", "knn-metafeatures", "cost-landmarking", "active-testing",
             "single-best", "random", "oracle"]
    evaluate_recommenders(kb, strategies=names, n_random=3, n_boot=10)
    by_object = {}
    for obj, kind, j in _Recorder.log:
        by_object.setdefault(obj, []).append((kind, j))
    n = len(kb.algorithms)
    # per dataset: the 6 non-random strategies; the random baseline draws its orders
    # without asking for any result (it reads the truth only to score them)
    assert len(by_object) == len(kb.datasets) * (len(names) - 1)
    oracles = 0
    for events in by_object.values():
        kinds = [k for k, _ in events]
        assert kinds[0] == "open"
        if kinds[1] == "reveal":  # the oracle: reads the truth, then tests its order
            oracles += 1
            assert kinds[2:] == ["test"] * n + ["reveal"]
            continue
        # the truth is read once the n tests are done
        assert kinds[1:] == ["test"] * n + ["reveal"], kinds
        assert sorted(j for k, j in events if k == "test") == list(range(n))
    assert oracles == len(kb.datasets)


@pytest.mark.parametrize("name", ["active-testing", "average-ranking", "knn-metafeatures",
                                  "cost-landmarking", "single-best"])
def test_choices_depend_only_on_results_already_tested(name):
    """Changing the held-out results of untested algorithms never changes earlier choices."""
    kb = _synthetic(n_datasets=6, n_algorithms=7, seed=3)
    strategy = evaluate_module.get_strategy(name)
    i = 0
    train = kb.subset(np.arange(len(kb.datasets)) != i)
    query = kb.query(i)
    rng = np.random.default_rng(1)

    def order_with(success, times):
        held = HeldOut(success, times)
        if strategy.interactive:
            strategy.run(train, query, Condition(time_weight=1 / 64), held.test)
            return held.tested
        return strategy.rank(train, query, Condition(time_weight=1 / 64)).order.tolist()

    base = order_with(kb.success[i], kb.times[i])
    for step in range(1, len(base)):
        seen = base[:step]
        success, times = kb.success[i].copy(), kb.times[i].copy()
        unseen = [j for j in range(len(base)) if j not in seen]
        success[unseen] = rng.uniform(0.01, 1.0, len(unseen))
        times[unseen] = rng.uniform(0.01, 100.0, len(unseen))
        assert order_with(success, times)[: step + 1] == base[: step + 1]


class _FamilyGuard(AverageRanking):
    name = "guarded"
    seen: list = []
    fits: list = []

    def fit(self, knowledge, condition=None, *, seed=0):
        fitted = super().fit(knowledge, condition, seed=seed)
        _FamilyGuard.fits.append(knowledge.datasets)
        rank = fitted.rank

        def guarded(query):
            _FamilyGuard.seen.append((query.name, knowledge.datasets))
            return rank(query)

        fitted.rank = guarded
        return fitted


def test_whole_families_are_held_out_together():
    families = ["ecoli", "ecoli", "yeast", "yeast", "yeast", "sonar", "glass", "iris"]
    kb = _synthetic(families=families)
    _FamilyGuard.seen, _FamilyGuard.fits = [], []
    evaluate_recommenders(kb, strategies=[_FamilyGuard()], n_boot=10)
    family = dict(zip(kb.datasets, families, strict=True))
    assert len(_FamilyGuard.seen) == len(kb.datasets)
    assert len(_FamilyGuard.fits) == len(set(families))  # fitted once per held-out family
    for held, train in _FamilyGuard.seen:
        assert all(family[d] != family[held] for d in train)
        assert len(train) == sum(f != family[held] for f in families)


def test_summary_worked_example_and_baselines():
    # three datasets, each its own family; single best of the training part picks B
    kb = KnowledgeBase(["d1", "d2", "d3"], ["A", "B", "C"],
                       success=[[0.9, 0.8, 0.7], [0.6, 0.8, 0.7], [0.7, 0.8, 0.9]],
                       times=[[1.0, 1.0, 1.0]] * 3)
    ev = evaluate_recommenders(kb, strategies=["single-best", "oracle", "random"],
                               n_random=200, time_range=(0.5, 4.0), n_boot=50,
                               time_axis="seconds")
    s = ev.summary.set_index("strategy")
    # held out d1: train d2, d3 -> means A .65 B .8 C .8 -> B (tie with C, label order);
    # d2: train d1, d3 -> A .8 B .8 C .8 -> A; d3: train d1, d2 -> A .75 B .8 C .7 -> B
    pd_ = ev.per_dataset.set_index(["strategy", "dataset"])
    assert pd_.loc[("single-best", "d1"), "first_success"] == 0.8
    assert pd_.loc[("single-best", "d2"), "first_success"] == 0.6
    assert pd_.loc[("single-best", "d3"), "first_success"] == 0.8
    assert s.loc["single-best", "loss_at_1"] == pytest.approx((0.1 + 0.2 + 0.1) / 3)
    assert s.loc["oracle", "loss_at_1"] == 0.0
    assert s.loc["oracle", "closed_gap"] == 1.0
    assert s.loc["single-best", "closed_gap"] == 0.0
    # oracle: L0 = best - worst until 1 s, then 0; over [0.5, 4] s:
    # MIL = L0 * ln(2) / ln(8) = L0 / 3, L0 = 0.2, 0.2, 0.2
    assert s.loc["oracle", "mil"] == pytest.approx(0.2 / 3)
    # random: expected first-pick loss = best - mean success = 0.1, 0.1, 0.1 (200 orders)
    assert s.loc["random", "loss_at_1"] == pytest.approx(0.1, abs=0.02)
    for c in ("mil", "loss_at_1", "closed_gap"):
        assert (s[f"{c}_low"] <= s[c] + 1e-12).all() and (s[c] <= s[f"{c}_high"] + 1e-12).all()
    assert ev.critical_difference.average_ranks["algorithm"].iloc[0] == "oracle"


@pytest.fixture(scope="module")
def default_evaluation():
    """Every strategy on ``_synthetic()``, relative time axis: read by two tests."""
    return evaluate_recommenders(_synthetic(), n_random=5, n_boot=10)


def test_curves_start_at_the_description_time_and_end_at_zero_loss(default_evaluation):
    kb = _synthetic()
    ev = evaluate_recommenders(kb, n_random=5, n_boot=10, time_axis="seconds")
    curves = ev.curves
    n = len(kb.algorithms)
    assert set(curves["strategy"]) == set(ev.strategies) == {
        "auto", "average-ranking", "knn-metafeatures", "cost-landmarking", "active-testing",
        "pairwise", "regression", "collaborative", "zero-shot-portfolio",
        "single-best", "single-best-a3r", "fast-first", "random", "oracle"}
    first = curves[curves["step"] == 0].set_index(["strategy", "dataset"])["elapsed"]
    assert (first.loc["knn-metafeatures"] == 0.3).all()
    assert (first.loc["cost-landmarking"] == 0.7).all()
    assert (first.loc["average-ranking"] == 0.0).all()
    last = curves[curves["step"] == n]
    assert np.allclose(last["loss"], 0.0)
    # on the relative axis every time is a fraction of the held-out dataset's pool time:
    # the last test of every order ends at overhead / pool + 1
    rel = default_evaluation.curves  # evaluate_recommenders(kb, n_random=5, n_boot=10)
    pool = dict(zip(kb.datasets, kb.times.sum(axis=1), strict=True))
    for (strategy, dataset), c in rel.groupby(["strategy", "dataset"]):
        start = c.loc[c["step"] == 0, "elapsed"].iloc[0]
        end = c.loc[c["step"] == n, "elapsed"].iloc[0]
        assert end == pytest.approx(start + 1.0), (strategy, dataset)
        seconds = first.loc[(strategy, dataset)]
        assert start == pytest.approx(seconds / pool[dataset])
    steps = curves.groupby(["strategy", "dataset"])["elapsed"].apply(
        lambda e: bool(np.all(np.diff(e.to_numpy()) >= 0)))
    assert steps.all()


def test_json_document_has_the_documented_keys(default_evaluation):
    ev = default_evaluation  # evaluate_recommenders(_synthetic(), n_random=5, n_boot=10)
    doc = ev.to_json()
    assert {"condition", "strategies", "curves"} <= set(doc)
    for name, entry in doc["strategies"].items():
        assert name in ev.strategies
        assert set(entry) >= {"mil", "loss_at", "closed_gap"}
        assert set(entry["loss_at"]) == {str(k) for k in LOSS_STEPS}
    assert set(doc["curves"][0]) >= {"dataset", "strategy", "step", "algorithm", "elapsed",
                                     "loss"}
    assert doc["condition"]["measure"] == "accuracy"


def test_json_curves_are_the_frames_records_with_missing_numbers_as_none(
        default_evaluation):
    # the column-wise records equal pandas' records with every float made a number or None
    def plain(v):
        return (None if not np.isfinite(v) else float(v)) if isinstance(v, float) else v

    frame = default_evaluation.curves[["dataset", "strategy", "step", "algorithm",
                                       "elapsed", "loss"]]
    odd = pd.DataFrame({"a": [1.5, np.nan, np.inf, -np.inf], "b": ["x", None, np.nan, "y"],
                        "c": [1, 2, 3, 4], "d": [True, False, True, False]})
    for f in (frame, odd):
        want = [{k: plain(v) for k, v in r.items()} for r in f.to_dict(orient="records")]
        got = json_records(f)
        assert got == want
        assert [list(map(type, r.values())) for r in got] == [
            list(map(type, r.values())) for r in want]
    assert json_records(odd)[1] == {"a": None, "b": None, "c": 2, "d": False}
    assert default_evaluation.to_json()["curves"] == json_records(frame)


def test_versus_random_is_a_paired_comparison():
    ev = evaluate_recommenders(_synthetic(n_datasets=10), n_random=20, n_boot=100)
    v = ev.versus_random.set_index("strategy")
    mil = ev.per_dataset.pivot(index="dataset", columns="strategy", values="mil")
    d = mil["random"] - mil["average-ranking"]
    assert v.loc["average-ranking", "mil_difference"] == pytest.approx(d.mean())
    assert v.loc["average-ranking", "wins"] == (d > 0).sum()
    assert 0 <= v.loc["average-ranking", "p_value"] <= 1


def test_time_budget_reports_the_loss_at_the_budget():
    kb = _synthetic()
    ev = evaluate_recommenders(kb, Condition(time_budget=2.0), strategies=["oracle"], n_boot=5)
    assert "loss_at_budget" in ev.per_dataset.columns
    assert (ev.per_dataset["loss_at_budget"] >= 0).all()


def test_sweep_time_weight_one_row_per_weight_and_strategy():
    out = sweep_time_weight(_synthetic(), time_weights=(0, 1 / 64, 1 / 4), n_boot=5)
    assert out["time_weight"].tolist() == [0, 0, 1 / 64, 1 / 64, 0.25, 0.25]
    assert out["strategy"].tolist() == ["average-ranking", "active-testing"] * 3


def test_bad_input_is_a_value_error_naming_the_problem():
    kb = _synthetic(features=False)
    with pytest.raises(ValueError, match="at least 3"):
        evaluate_recommenders(kb.subset([True, True] + [False] * 6))
    with pytest.raises(ValueError, match="one family"):
        evaluate_recommenders(_synthetic(families=["f"] * 8))
    with pytest.raises(ValueError, match="Unknown strategy 'best'"):
        evaluate_recommenders(kb, strategies=["best"])
    with pytest.raises(ValueError, match="knn-metafeatures needs metafeatures"):
        evaluate_recommenders(kb, strategies=["knn-metafeatures"])
    with pytest.raises(ValueError, match="scored under"):
        evaluate_recommenders(
            KnowledgeBase(kb.datasets, kb.algorithms, kb.success, kb.times,
                          condition=Condition("auc")), Condition("accuracy"))
    ev = evaluate_recommenders(kb, n_random=2, n_boot=5)  # skipped with a note, not an error
    assert "knn-metafeatures" not in ev.strategies
    assert any("skipped knn-metafeatures" in note for note in ev.notes)


@pytest.mark.parametrize("strategies", [None, ["average-ranking", "active-testing"]])
def test_the_curves_are_the_frames_of_every_curve_concatenated(monkeypatch, strategies):
    # the curves are made in one frame from every curve's columns: the frame that
    # concatenating one frame per curve gave (values, dtypes, and None where the random
    # baseline names no algorithm, NaN where a strategy's first step names none)
    parts = []
    build = evaluate_module._curves_frame

    def kept(got):
        parts.extend(got)
        return build(got)
    monkeypatch.setattr(evaluate_module, "_curves_frame", kept)
    ev = evaluate_recommenders(_synthetic(), Condition(time_weight=1 / 16), n_boot=20,
                               strategies=strategies)
    assert len(parts) > 8
    frames = [pd.DataFrame({"dataset": p["dataset"], "family": p["family"],
                            "strategy": p["strategy"], "step": p["step"],
                            "algorithm": pd.Series(list(p["algorithm"])),
                            "elapsed": p["elapsed"], "loss": p["loss"]}) for p in parts]
    reference = pd.concat(frames, ignore_index=True)
    pd.testing.assert_frame_equal(ev.curves, reference, check_exact=True)
    assert ([type(v) for v in ev.curves["algorithm"]]
            == [type(v) for v in reference["algorithm"]])
    assert ev.curves["algorithm"].isna().sum() >= len(parts)  # each curve's step 0
