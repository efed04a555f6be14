"""The time model, its leave-one-family-out error, and the plan within a budget."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.datasets import load_dataset
from metaeval.recommend import (
    KnowledgeBase,
    TimeModel,
    load_knowledge,
    parse_budget,
    plan_budget,
    recommend,
)
from metaeval.recommend.knowledge._budget import (
    data_traits,
    knowledge_shape,
    knowledge_traits,
    linear_rows_prediction,
    lofo_errors,
    predicted_times,
    predicted_times_and_basis,
)
from metaeval.recommend.knowledge._describe import describe_dataset

runner = CliRunner()

# four past datasets: rows and columns
N = np.array([100.0, 1000.0, 10000.0, 300.0])
P = np.array([4.0, 16.0, 9.0, 25.0])


def test_time_model_recovers_exact_power_laws_by_hand():
    # A: 0.01 n p^0.5; B: 0.1 n^2 (no columns); C: 2 n^0.5 p, recorded on two datasets
    times = np.column_stack([0.01 * N * np.sqrt(P), 0.1 * N ** 2, 2 * np.sqrt(N) * P])
    times[[1, 2], 2] = np.nan
    m = TimeModel.fit(N, P, times, ["A", "B", "C"], penalty=0.0)
    np.testing.assert_allclose(m.slopes[0], [1.0, 0.0, 0.5], atol=1e-9)
    np.testing.assert_allclose(m.slopes[1], [2.0, 0.0, 0.0], atol=1e-9)
    np.testing.assert_allclose(np.exp(m.intercept[:2]), [0.01, 0.1], rtol=1e-9)
    # 2000 rows x 36 columns: A 0.01 * 2000 * 6 = 120 s, B 0.1 * 2000^2 = 400,000 s
    np.testing.assert_allclose(m.predict(2000, 36)[:2], [120.0, 4e5], rtol=1e-9)
    # C: recorded twice only, so least squares cannot pin down three slopes; its two
    # datasets are fitted exactly all the same
    np.testing.assert_allclose(m.predict(N[[0, 3]], P[[0, 3]])[:, 2],
                               times[[0, 3], 2], rtol=1e-9)
    assert m.n_datasets.tolist() == [4, 4, 2]


def test_shared_slopes_are_recovered_whatever_the_penalty():
    # every configuration 1.5 log n + 0.5 log p (+ its own intercept): the shared slopes
    # explain everything, so any penalty gives them, and a configuration seen once too
    base = N ** 1.5 * np.sqrt(P)
    times = np.column_stack([0.001 * base, 0.02 * base, 0.3 * base])
    times[1:, 2] = np.nan
    for penalty in (0.0, 1.0, 1e3, np.inf):
        m = TimeModel.fit(N, P, times, penalty=penalty)
        np.testing.assert_allclose(m.shared, [1.5, 0.0, 0.5], atol=1e-9)
        np.testing.assert_allclose(m.slopes, [[1.5, 0.0, 0.5]] * 3, atol=1e-9)
        np.testing.assert_allclose(m.predict(50000, 7),
                                   np.array([0.001, 0.02, 0.3]) * 50000 ** 1.5 * 7 ** 0.5,
                                   rtol=1e-9)


def test_the_square_of_log_rows_is_continued_along_its_tangent():
    # log t = (log n)^2 on the past datasets: beyond the largest, the growth stays that at
    # the edge (2 log n_max per unit of log n), never steeper
    rows = np.array([10.0, 100.0, 1000.0, 10000.0])
    times = np.exp(np.log(rows) ** 2)[:, None]
    m = TimeModel.fit(rows, None, times, penalty=0.0)
    edge = np.log(10000.0)
    far = np.log(m.predict(np.array([1e5, 1e6]))[:, 0])
    np.testing.assert_allclose(far, edge ** 2 + 2 * edge * (np.log([1e5, 1e6]) - edge),
                               rtol=1e-9)
    np.testing.assert_allclose(m.predict(np.array([10.0, 10000.0]))[:, 0], times[[0, 3], 0],
                               rtol=1e-9)


def test_fit_refuses_bad_input():
    with pytest.raises(ValueError, match="rows and cols must be positive"):
        TimeModel.fit([0.0, 10.0], None, [[1.0], [2.0]])
    with pytest.raises(ValueError, match="one per dataset"):
        TimeModel.fit([5.0, 10.0, 20.0], None, [[1.0], [2.0]])
    with pytest.raises(ValueError, match="penalty"):
        TimeModel.fit([5.0, 10.0], None, [[1.0], [2.0]], penalty=-1.0)
    m = TimeModel.fit(N, P, np.ones((4, 1)))
    with pytest.raises(ValueError, match="cols is needed"):
        m.predict(100)


def test_traits_get_their_own_exact_slopes_by_hand():
    # A: 0.01 n p^0.5 e^(0.7 s) 3^u; B: 0.1 n (no trait matters): with penalty 0 the
    # slopes on the two traits are recovered exactly (0.7 and log 3; 0 and 0)
    s = np.array([-2.0, -4.0, -1.0, -3.0, -2.5, -0.5])
    u = np.array([1.0, 0.5, 0.2, 0.9, 0.0, 0.7])
    n = np.array([100.0, 1000.0, 10000.0, 300.0, 2000.0, 50.0])
    p = np.array([4.0, 16.0, 9.0, 25.0, 3.0, 7.0])
    times = np.column_stack([0.01 * n * np.sqrt(p) * np.exp(0.7 * s) * 3.0 ** u, 0.1 * n])
    m = TimeModel.fit(n, p, times, ["A", "B"], traits=np.column_stack([s, u]), penalty=0.0)
    assert m.n_traits == 2 and m.slopes.shape == (2, 5)
    np.testing.assert_allclose(m.slopes, [[1.0, 0.0, 0.5, 0.7, np.log(3.0)],
                                          [1.0, 0.0, 0.0, 0.0, 0.0]], atol=1e-8)
    # 400 rows x 16 columns, s = -2, u = 1: A 0.01 * 400 * 4 * e^-1.4 * 3 = 11.8367 s
    np.testing.assert_allclose(m.predict(400, 16, [-2.0, 1.0]),
                               [0.01 * 400 * 4 * np.exp(-1.4) * 3.0, 40.0], rtol=1e-9)
    assert m.predict(400, 16, [-2.0, 1.0])[0] == pytest.approx(11.8367, abs=1e-4)
    # several new datasets at once, each with its traits
    many = m.predict(np.array([400.0, 400.0]), 16, np.array([[-2.0, 1.0], [-3.0, 1.0]]))
    np.testing.assert_allclose(many[1, 0] / many[0, 0], np.exp(-0.7), rtol=1e-9)


def test_traits_are_refused_where_they_do_not_fit():
    times = np.column_stack([N, N ** 2])
    traits = np.column_stack([[-1.0, -2.0, -3.0, -1.5], [1.0, 0.5, 0.2, 0.9]])
    with pytest.raises(ValueError, match=r"^traits must be of shape \(4, k\)"):
        TimeModel.fit(N, P, times, traits=traits[:3])
    with pytest.raises(ValueError, match="needs cols"):
        TimeModel.fit(N, None, times, traits=traits)
    with pytest.raises(ValueError, match="^traits must be finite"):
        TimeModel.fit(N, P, times, traits=np.where(traits > 0.8, np.nan, traits))
    m = TimeModel.fit(N, P, times, traits=traits)
    with pytest.raises(ValueError, match="^traits is needed"):
        m.predict(100, 4)
    with pytest.raises(ValueError, match=r"^traits must be of shape \(2,\)"):
        m.predict(100, 4, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="^traits must be finite"):
        m.predict(100, 4, [np.inf, 1.0])
    with pytest.raises(ValueError, match="fitted without them"):
        TimeModel.fit(N, P, times).predict(100, 4, [1.0, 2.0])


def test_data_traits_by_hand_and_where_a_meta_feature_is_missing():
    import pandas as pd

    frame = pd.DataFrame({"model-based.nodes_per_inst": [0.107, 0.0, 0.05],
                          "general.nr_num": [20.0, 0.0, 3.0],
                          "general.nr_attr": [20.0, 9.0, np.nan]})
    got = data_traits(frame)
    # log 0.107; a tree without a split read as 0.001; (0 + 1) / (9 + 1); a missing count
    np.testing.assert_allclose(got[:2], [[np.log(0.107), 1.0], [np.log(0.001), 0.1]])
    assert np.isnan(got[2, 1]) and got[2, 0] == pytest.approx(np.log(0.05))
    assert np.isnan(data_traits(frame.drop(columns="general.nr_num"))[:, 1]).all()


def test_the_knowledge_bases_traits_are_what_describe_dataset_gives():
    # a new dataset's traits are computed as the past datasets' were: describing a
    # dataset of the shipped knowledge base with its own settings gives its stored values
    from metaeval.recommend._recommend import _describe_settings

    archive = load_knowledge()
    kb = archive.knowledge_base()
    settings = _describe_settings(archive.provenance.get("description_settings"))
    traits = knowledge_traits(kb)
    assert traits.shape == (len(kb.datasets), 2) and np.isfinite(traits).all()
    for name in ("labor", "haberman"):
        d = describe_dataset(load_dataset(name), groups=("general", "model-based"),
                             landmarkers=(), **settings)
        np.testing.assert_allclose(data_traits(d.metafeature_vector()),
                                   traits[kb.datasets.index(name)], rtol=1e-12)


def test_without_stored_traits_the_model_reads_rows_and_columns(shipped):
    kb = shipped.knowledge_base()
    with_traits = predicted_times_and_basis(kb, 306, 3, [np.log(0.05), 0.75])
    assert with_traits[1] == "this data's rows, columns, tree size and numeric share"
    # traits not given, or not finite: the rows-and-columns model, said so
    for traits in (None, [np.nan, 0.75]):
        got = predicted_times_and_basis(kb, 306, 3, traits)
        assert got[1] == "this data's rows and columns"
        np.testing.assert_allclose(got[0], predicted_times(kb, 306, 3), rtol=1e-12)
    assert not np.allclose(with_traits[0], predicted_times(kb, 306, 3), rtol=0.05)
    # a knowledge base without the meta-features: rows and columns only
    bare = KnowledgeBase(kb.datasets, kb.algorithms, success=kb.success, times=kb.times,
                         n_instances=kb.n_instances,
                         metafeatures=kb.metafeatures.drop(
                             columns="model-based.nodes_per_inst"))
    assert knowledge_traits(bare) is None
    assert predicted_times_and_basis(bare, 306, 3, [np.log(0.05), 0.75])[1] == \
        "this data's rows and columns"


def test_former_rule_by_hand():
    # 100 rows in 1 s and 200 rows in 4 s, scaled to 400 rows: 4 s and 8 s, geometric
    # mean sqrt(32)
    got = linear_rows_prediction([100.0, 200.0], [[1.0], [4.0]], [400.0])
    np.testing.assert_allclose(got, [[np.sqrt(32.0)]])


def test_lofo_errors_match_a_brute_force_loop():
    rng = np.random.default_rng(0)
    D, A = 9, 3
    rows = np.exp(rng.uniform(3, 9, D))
    cols = np.exp(rng.uniform(1, 4, D)).round()
    times = np.exp(rng.normal(0, 1, (D, A)) + 0.8 * np.log(rows)[:, None])
    times[2, 1] = np.nan
    families = ["f0", "f0", "f1", "f2", "f2", "f2", "f3", "f4", "f4"]
    got = lofo_errors(rows, cols, times, families)
    expect = []
    for i in range(D):
        train = np.array([f != families[i] for f in families])
        m = TimeModel.fit(rows[train], cols[train], times[train])
        pred = m.predict(rows[i], cols[i])
        for j in range(A):
            if np.isfinite(times[i, j]):
                expect.append((i, j, abs(np.log(pred[j] / times[i, j]))))
    assert list(zip(got["dataset"], got["algorithm"], strict=True)) == [e[:2] for e in expect]
    np.testing.assert_allclose(got["error"], [e[2] for e in expect], rtol=1e-12)


@pytest.mark.parametrize("text, seconds", [
    ("600", 600.0), ("600s", 600.0), ("10m", 600.0), ("1h", 3600.0), ("1.5h", 5400.0),
    (" 90 S ", 90.0), (".5m", 30.0), (600, 600.0), (2.5, 2.5)])
def test_parse_budget_reads_seconds_and_units(text, seconds):
    assert parse_budget(text) == seconds


@pytest.mark.parametrize("bad", ["", "10x", "ten minutes", "-5", "0", "0m", "1e3", "5 mins",
                                 True, None, float("inf"), float("nan"), -1, "1h30m"])
def test_parse_budget_names_the_argument(bad):
    with pytest.raises(ValueError, match="^--budget must be a positive time"):
        parse_budget(bad, "--budget")


def test_plan_by_hand():
    # budget 10: A (4) fits, B (7) does not fit in the 6 left, C (5) does, D (1.5) not
    success = [[0.5, 0.9, 0.6, 0.7], [0.8, 0.1, 0.7, 0.9]]
    plan = plan_budget(["A", "B", "C", "D"], [4.0, 7.0, 5.0, 1.5], 10.0, success,
                       protocol="one 5-fold cross-validation")
    assert plan.table["algorithm"].tolist() == ["A", "C"]
    assert plan.table["rank"].tolist() == [1, 3]
    assert plan.table["cumulative_time"].tolist() == [4.0, 9.0]
    assert plan.skipped == ("B", "D")
    # best of A and C per dataset: 0.6 and 0.8; the whole pool's: 0.9 and 0.9
    assert plan.expected_best == pytest.approx(0.7)
    assert plan.expected_best_sd == pytest.approx(np.std([0.6, 0.8], ddof=1))
    assert plan.oracle_best == pytest.approx(0.9)
    empty = plan_budget(["A"], [4.0], 1.0, [[0.5]])
    assert empty.table.empty and empty.skipped == ("A",) and np.isnan(empty.expected_best)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.0, 1e4, allow_nan=False), min_size=1, max_size=30),
       st.floats(1e-3, 1e5, allow_nan=False))
def test_plan_never_exceeds_the_budget(times, budget):
    names = [f"a{i}" for i in range(len(times))]
    plan = plan_budget(names, times, budget)
    kept = plan.table["algorithm"].tolist()
    assert np.max(plan.table["cumulative_time"].to_numpy(), initial=0.0) <= budget
    np.testing.assert_array_equal(plan.table["cumulative_time"],
                                  np.cumsum(plan.table["predicted_time"]))
    # the order is kept; every configuration is planned or skipped, and a skipped one
    # did not fit in what was left at its turn
    assert sorted(kept + list(plan.skipped), key=names.index) == names
    assert kept == sorted(kept, key=names.index)
    spent = 0.0
    for name, t in zip(names, times, strict=True):
        if name in kept:
            spent += t
        else:
            assert spent + t > budget


def test_knowledge_shape_masks_imputed_times():
    kb = KnowledgeBase(["d1", "d2"], ["A", "B"], success=[[0.9, 0.8], [0.7, 0.6]],
                       times=[[1.0, 2.0], [3.0, 4.0]], n_instances=[10, 20],
                       imputed_times=[[False, True], [False, False]])
    rows, cols, times = knowledge_shape(kb)
    assert rows.tolist() == [10.0, 20.0] and cols is None
    assert np.isnan(times[0, 1]) and times[1, 1] == 4.0


@pytest.fixture(scope="module")
def shipped():
    return load_knowledge()


@pytest.fixture(scope="module")
def haberman(tmp_path_factory):
    ds = load_dataset("haberman")
    path = tmp_path_factory.mktemp("budget") / "haberman.csv"
    ds.X.assign(**{"class": ds.y}).to_csv(path, index=False)
    return ds, path


def test_recommend_times_are_the_time_model_and_the_plan_fits(shipped, haberman):
    ds, _ = haberman
    rec = recommend(ds, shipped, strategy="single-best", budget="3s")
    kb = shipped.knowledge_base()
    # the expected times are the model's for 306 rows x 3 columns and the data's traits
    # (pymfe's tree size and numeric share; not the former linear-in-rows rule)
    v = describe_dataset(ds, groups=("general", "model-based"), landmarkers=(),
                         max_rows=1000, seed=0).metafeature_vector()
    traits = [np.log(max(v["model-based.nodes_per_inst"], 1e-3)),
              (v["general.nr_num"] + 1) / (v["general.nr_attr"] + 1)]
    predicted = predicted_times(kb, 306, 3, traits)
    order = [kb.algorithms.index(a) for a in rec.table["algorithm"]]
    np.testing.assert_allclose(rec.table["expected_time"], predicted[order], rtol=1e-12)
    former = linear_rows_prediction(kb.n_instances, kb.times, [306])[0][order]
    assert not np.allclose(rec.table["expected_time"], former, rtol=0.05)
    plan = rec.plan
    assert plan.budget == 3.0 and "one 5-fold cross-validation" in plan.protocol
    assert 0 < len(plan.table) < len(rec.table)
    assert plan.table["cumulative_time"].iloc[-1] <= 3.0
    assert len(plan.table) + len(plan.skipped) == len(rec.table)
    assert plan.table["algorithm"].iloc[0] == rec.table["algorithm"].iloc[0]
    assert rec.time_protocol == plan.protocol
    assert rec.time_basis == "this data's rows, columns, tree size and numeric share"
    with pytest.raises(ValueError, match="^budget must be a positive time"):
        recommend(ds, shipped, strategy="single-best", budget="soon")


def _plain(output):
    return " ".join(output.split())


def test_cli_budget_prints_the_plan(haberman):
    _, path = haberman
    result = runner.invoke(app, ["recommend", str(path), "--strategy", "single-best",
                                 "--budget", "3s", "--top", "0"], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    rec = recommend(path, strategy="single-best", budget=3)
    text = _plain(result.output)
    assert f"Within a budget of 3 s (cpu): {len(rec.plan.table)} configuration(s)" in text
    assert "expected cpu s: one 5-fold cross-validation (reading the data, then every fold's " \
        "fit and prediction, one thread), predicted from this data's rows, columns, tree size " \
        "and numeric share" in text
    assert f"Expected best success at the budget: {rec.plan.expected_best:.4f}" in text
    assert ("Each time is predicted for one 5-fold cross-validation (reading the data, then "
            "every fold's fit and prediction, one thread) from this data's rows, columns, "
            "tree size and numeric share, by a model") in text
    planned = result.output.split("Within a budget")[1]
    for r in rec.plan.table.itertuples(index=False):
        assert f"{r.cumulative_time:.3g}" in planned
    assert rec.plan.table["algorithm"].iloc[-1] in planned


def test_cli_budget_says_what_the_prediction_read(haberman, monkeypatch):
    # where the traits cannot be had, the plan's words say rows and columns, not traits
    from metaeval.recommend import _recommend

    _, path = haberman
    monkeypatch.setattr(_recommend, "knowledge_traits", lambda kb: None)
    result = runner.invoke(app, ["recommend", str(path), "--strategy", "single-best",
                                 "--budget", "3s"], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    text = _plain(result.output)
    assert "one thread) from this data's rows and columns, by a model" in text
    assert "tree size" not in text


@pytest.mark.parametrize("args, message", [
    (["--budget", "10 minutes"], "--budget must be a positive time"),
    (["--budget", "0"], "--budget must be a positive time"),
])
def test_cli_bad_budget_is_one_line_exit_2(haberman, args, message):
    _, path = haberman
    result = runner.invoke(app, ["recommend", str(path), *args])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.output


def test_cli_budget_with_evaluate_is_refused():
    result = runner.invoke(app, ["recommend", "--evaluate", "--budget", "10m"])
    assert result.exit_code == 2 and "--budget goes with DATA_FILE" in result.output


def test_protocol_of_a_store_reads_its_folds_and_never_creates_one(tmp_path, quick_store):
    from metaeval.recommend.knowledge._budget import protocol_of
    from metaeval.store import Store

    folds = Store(quick_store).study_config()["folds"]
    assert protocol_of(quick_store).startswith(f"one {folds}-fold cross-validation")
    missing = tmp_path / "none.duckdb"
    assert protocol_of(missing).startswith("one cross-validation as in")
    assert not missing.exists()


def test_cli_budget_shows_the_first_top_of_the_plan(haberman):
    _, path = haberman
    result = runner.invoke(app, ["recommend", str(path), "--strategy", "single-best",
                                 "--budget", "1h", "--top", "2"], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    rec = recommend(path, strategy="single-best", budget="1h")
    planned = result.output.split("Within a budget")[1]
    assert "The first 2 of the " + str(len(rec.plan.table)) + " planned" in _plain(planned)
    assert rec.plan.table["algorithm"].iloc[1] in planned
    assert rec.plan.table["algorithm"].iloc[2] not in planned.split("Each time")[0]


def test_without_the_past_datasets_sizes_no_model_is_claimed(shipped, monkeypatch):
    # a knowledge base that does not know its datasets' rows: no prediction, and the
    # words say the expected times are the past datasets' geometric mean instead
    from metaeval.recommend.knowledge import _budget

    kb = shipped.knowledge_base()
    rows, cols, times = _budget.knowledge_shape(kb)
    monkeypatch.setattr(_budget, "knowledge_shape",
                        lambda kb: (np.zeros_like(rows), cols, times))
    assert _budget.predicted_times_and_basis(kb, 306, 3) == (None, "")
    assert _budget.predicted_times(kb, 306, 3) is None
