"""Data a strategy cannot describe faithfully is refused, the same way by ``metaeval run``,
``recommend`` (command line and Python) and ``describe_dataset``; every error names the
column, file or dataset, and the recorded reason."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from tests.test_recommend_learners import _planted
from typer.testing import CliRunner

from metaeval.algorithms import Algorithm
from metaeval.cli import app
from metaeval.datasets import as_dataset
from metaeval.recommend import KnowledgeBase, describe_dataset, recommend
from metaeval.recommend.learners._auto import Auto

runner = CliRunner()


def _frame(n=20):
    rng = np.random.default_rng(0)
    return pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                         "class": ["yes", "no"] * (n // 2)})


def _kb():
    return KnowledgeBase(["d1", "d2", "d3"], ["A", "B"],
                         success=[[0.9, 0.8], [0.9, 0.7], [0.6, 0.8]],
                         times=[[1.0, 2.0]] * 3)


@pytest.fixture
def bad_files(tmp_path):
    inf = _frame()
    inf.loc[3, "a"] = np.inf
    inf.to_csv(tmp_path / "inf.csv", index=False)
    pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [0.5, 0.1, 0.3],
                  "class": ["x", "x", "y"]}).to_csv(tmp_path / "three.csv", index=False)
    return tmp_path


@pytest.mark.parametrize("strategy", ["knn-metafeatures", "single-best"])
def test_recommend_command_refuses_what_run_refuses(bad_files, strategy):
    """Old code: exit 0 with no note (45 of 87 meta-features NaN, other neighbours)."""
    inf = runner.invoke(app, ["recommend", str(bad_files / "inf.csv"), "--strategy", strategy])
    assert inf.exit_code == 2, inf.output
    assert "inf.csv" in inf.output and "column 'a' holds an infinite value (inf) in row 4" \
        in inf.output
    assert "Traceback" not in inf.output
    three = runner.invoke(app, ["recommend", str(bad_files / "three.csv"),
                                "--strategy", strategy])
    assert three.exit_code == 2, three.output
    assert "three.csv" in three.output
    assert "class 'y' of target column 'class' has 1 row (row 3)" in three.output


def test_run_refuses_the_same_files(bad_files, tmp_path):
    study = tmp_path / "study.toml"
    study.write_text(f'store = "{tmp_path / "s.duckdb"}"\nalgorithms = ["NB"]\n'
                     f'[[datasets]]\nname = "inf"\npath = "{bad_files / "inf.csv"}"\n')
    result = runner.invoke(app, ["run", str(study), "--quiet"])
    assert result.exit_code == 2, result.output
    assert "column 'a' holds an infinite value (inf) in row 4" in result.output


@pytest.mark.parametrize("route", ["frame", "file", "dataset"])
def test_python_recommend_refuses_what_run_refuses(bad_files, route):
    """Old code: a recommendation (the knowledge base's order), no error."""
    frame = pd.read_csv(bad_files / "inf.csv")
    given = {"frame": frame, "file": bad_files / "inf.csv",
             "dataset": as_dataset(frame, name="inf")}[route]
    name = {"frame": "the DataFrame", "file": "inf.csv", "dataset": "dataset 'inf'"}[route]
    with pytest.raises(ValueError, match="column 'a' holds an infinite value") as info:
        recommend(given, _kb(), strategy="single-best")
    assert name in str(info.value)
    with pytest.raises(ValueError, match=r"class 'y' .* has 1 row \(row 3\)"):
        recommend(bad_files / "three.csv", _kb(), strategy="single-best")


def test_describe_dataset_refuses_what_run_refuses():
    frame = _frame()
    frame.loc[5, "b"] = -np.inf
    with pytest.raises(ValueError, match=r"dataset 'data': column 'b' holds an infinite "
                                         r"value \(-inf\) in row 6"):
        describe_dataset(as_dataset(frame), groups=(), time_budget=None)
    one = _frame()
    one.loc[0, "class"] = "rare"
    one = one[one["class"] != "yes"]
    one.loc[0, "class"] = "yes"
    with pytest.raises(ValueError, match=r"class 'yes' .* has 1 row"):
        describe_dataset(as_dataset(one), groups=(), time_budget=None)


def _no_features():
    """A feature no landmarker can fit (every value missing)."""
    return pd.DataFrame({"a": [np.nan] * 20, "class": ["y", "n"] * 10})


def test_every_landmarker_failed_gives_the_recorded_reason(monkeypatch):
    """Old code: 'every landmarker failed on it', the reason left out."""
    import metaeval.recommend._recommend as module

    monkeypatch.setattr(module, "LANDMARKERS",
                        (Algorithm("NB", "sklearn.naive_bayes.GaussianNB"),))
    with pytest.raises(ValueError) as info:
        recommend(_no_features(), _planted(), strategy="cost-landmarking")
    text = str(info.value)
    assert text.startswith("cost-landmarking reads the landmark features of the new "
                           "dataset 'data', and every landmarker failed on it (NB: "), text
    assert "NaN or infinite scores" in text  # the recorded reason
    assert "average-ranking" in text


def test_auto_says_it_chose_the_strategy_that_needs_the_description(monkeypatch):
    """Old code: 'regression needs the landmarks of the new dataset ... (describe it
    first)', a strategy the user never chose, and nothing to describe."""
    import metaeval.recommend._recommend as module

    monkeypatch.setattr(module, "LANDMARKERS",
                        (Algorithm("NB", "sklearn.naive_bayes.GaussianNB"),))
    auto = Auto(candidates=("single-best", "average-ranking", "regression"))
    with pytest.raises(ValueError) as info:
        recommend(_no_features(), _planted(), strategy=auto)
    text = str(info.value)
    assert text.startswith("auto chose regression for this condition, and regression "
                           "reads the landmark features"), text
    assert "describe it first" not in text
    assert "--strategy average-ranking" in text


def test_every_pymfe_group_out_of_budget_is_refused_with_the_reason():
    """Old code: a query of NaN meta-features, neighbours by chance, no error."""
    frame = _frame(40)
    with pytest.raises(ValueError) as info:
        recommend(frame, _planted(), strategy="knn-metafeatures", time_budget=1e-6)
    text = str(info.value)
    assert "every pymfe group failed on it (general: " in text, text
    assert "budget" in text


# ---------------------------------------------------------------- the DataFrame route
@pytest.mark.parametrize("cell, kind", [([1, 2], "list"), ({"a": 1}, "dict")])
def test_a_feature_holding_containers_is_refused_naming_the_column(cell, kind):
    """Old code: ``TypeError: unhashable type`` deep in pandas, no column named."""
    frame = _frame(6)
    frame["box"] = [1.0] * 6
    frame["box"] = frame["box"].astype(object)
    frame.at[2, "box"] = cell
    with pytest.raises(ValueError, match=rf"column 'box' holds a {kind} in row 3"):
        as_dataset(frame)


def test_a_target_holding_lists_is_refused_naming_the_column():
    """Old code: numpy's 'setting an array element with a sequence'."""
    frame = pd.DataFrame({"a": range(6), "label": [[1], [0]] * 3})
    with pytest.raises(ValueError, match=r"target column 'label' holds a list in row 1"):
        as_dataset(frame, target="label")


def test_a_dataframe_reads_as_its_csv_file(tmp_path):
    """Spaces around text: one class, one category, as the CSV reader reads them (old
    code: ' yes' and 'yes' two classes from a DataFrame, one from the file; 'yes ' two
    in both)."""
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
                          "town": [" lyon", "lyon ", "nice", " lyon", "nice", " nice"],
                          "class": [" yes", "yes", "no", "no ", "yes ", "no"]})
    path = tmp_path / "spaces.csv"
    frame.to_csv(path, index=False)
    from metaeval.datasets import read_dataset

    for ds in (as_dataset(frame), read_dataset(path)):
        assert ds.class_names == ("no", "yes")
        assert ds.y.tolist() == [1, 1, 0, 0, 1, 0]
        assert ds.X["town"].tolist() == ["lyon", "lyon", "nice", "lyon", "nice", "nice"]


def test_labels_equal_as_numbers_are_one_class():
    """Old code: a target [1, 1.0, 0] was '3 classes (0, 1, 1.0)'."""
    frame = pd.DataFrame({"a": range(6), "class": pd.Series([1, 1.0, 0] * 2, dtype=object)})
    ds = as_dataset(frame)
    assert ds.y.tolist() == [1, 1, 0, 1, 1, 0]
    assert ds.class_names == ("0", "1")
    text = pd.DataFrame({"a": range(4), "class": ["1", "1.0", "0", "0.0"]})
    assert as_dataset(text).y.tolist() == [1, 1, 0, 0]


@pytest.mark.parametrize("column, what", [
    (pd.period_range("2020-01", periods=6, freq="M"), "dates or durations"),
    (pd.Series(pd.date_range("2020-01-01", periods=6)).astype(object), "dates or durations"),
    (pd.Series(pd.to_timedelta(range(6), unit="s")).astype(object), "dates or durations"),
    (pd.Series(np.arange(6) * (1 + 1j)), "complex numbers"),
    (pd.Series(np.arange(6) * (1 + 1j)).astype(object), "complex numbers"),
])
def test_dates_periods_and_complex_numbers_are_refused_like_datetime64(column, what):
    """Old code: Period, object Timestamps and complex columns became text categories
    while a datetime64 column was refused."""
    frame = pd.DataFrame({"when": column, "a": range(6), "class": ["y", "n"] * 3})
    with pytest.raises(ValueError, match=f"column 'when' holds {what}"):
        as_dataset(frame)
    with pytest.raises(ValueError, match="column 'when' holds dates or durations"):
        as_dataset(frame.assign(when=pd.date_range("2020-01-01", periods=6)))


def test_decimal_and_fraction_cells_are_numbers():
    """Old code: a column of Decimal values became a text category."""
    import decimal
    import fractions

    frame = pd.DataFrame({"d": [decimal.Decimal("1.5"), decimal.Decimal("2"),
                                fractions.Fraction(1, 4), None],
                          "class": ["y", "n", "y", "n"]})
    ds = as_dataset(frame)
    assert ds.categorical == ()
    np.testing.assert_array_equal(ds.X["d"].to_numpy(), [1.5, 2.0, 0.25, np.nan])


# ---------------------------------------------------------------- knowledge files
def _archive_with(change):
    from tests.test_knowledge_damage import _archive

    archive = _archive()
    change(archive)
    return archive


def _no_run_finished_on_d1(archive):
    archive.metrics[1] = np.nan
    archive.by_repetition["metrics"][:, 1] = np.nan
    for curves in (archive.curves, archive.by_repetition["curves"]):
        for v in curves.values():
            v[..., 1, :, :] = np.nan
    for times in (archive.times, archive.by_repetition["times"]):
        for v in times.values():
            v[..., 1, :] = np.nan


def _no_time_for_b(archive):
    for times in (archive.times, archive.by_repetition["times"]):
        for v in times.values():
            v[..., 1] = 0.0


def test_a_knowledge_file_with_a_dataset_all_failed_names_the_file_and_dataset(tmp_path,
                                                                              bad_files):
    """Old code: 'success must be finite everywhere (impute failed cells)', neither the
    file nor the dataset named."""
    path = _archive_with(_no_run_finished_on_d1).save(tmp_path / "dead.npz")
    frame = _frame()
    frame.to_csv(tmp_path / "new.csv", index=False)
    result = runner.invoke(app, ["recommend", str(tmp_path / "new.csv"), "--knowledge",
                                 str(path), "--strategy", "single-best"])
    assert result.exit_code == 2, result.output
    assert "dead.npz" in result.output and "dataset 'd1'" in result.output
    assert "Traceback" not in result.output


def test_a_configuration_without_any_time_is_said_not_ranked_fastest():
    """Old code: numpy's 'All-NaN slice encountered' RuntimeWarning, and configuration B
    silently took 1 ms on every dataset (first under a time weight)."""
    import warnings

    from metaeval.recommend import Condition

    archive = _archive_with(_no_time_for_b)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kb = archive.knowledge_base(Condition(time_weight="1/64"))
    others = np.median(archive.times["cpu"][:, [0, 2]], axis=1)
    np.testing.assert_allclose(kb.times[:, 1], others)
    assert any(n.startswith("B: no time recorded on any dataset") for n in kb.notes), kb.notes
    # each dataset's own median: an evaluation's folds need not impute it again (old
    # code: marked imputed, and each fold gave it 1 ms again)
    assert kb.imputed_times is None or not kb.imputed_times[:, 1].any()


def test_a_store_algorithm_without_any_time_is_imputed_by_the_same_rule():
    from metaeval.recommend.knowledge._knowledge import impute_times

    times = np.array([[2.0, 0.0, 4.0], [1.0, np.nan, 9.0], [3.0, 0.0, 1.0]])
    notes = []
    got = impute_times(times, ~(times > 0), ["A", "B", "C"], notes, what="algorithm")
    np.testing.assert_array_equal(got[:, 1], [3.0, 5.0, 2.0])
    assert notes == ["B: no time recorded on any dataset; each dataset's median time over "
                     "the other algorithms stands in"]
    # within a fold: the medians of the training rows only
    some = np.array([[2.0, 1.0], [4.0, 0.0], [8.0, 0.0]])
    got = impute_times(some, ~(some > 0), ["A", "B"], train=np.array([True, True, False]))
    np.testing.assert_array_equal(got, [[2.0, 1.0], [4.0, 1.0], [8.0, 1.0]])


def test_an_aslib_scenario_with_one_algorithm_names_its_file(tmp_path):
    """Old code: 'success holds 1 algorithm(s); a ranking needs at least two', no file."""
    from tests.test_aslib import RUNTIME, RUNTIME_RUNS, _write

    runs = "\n".join(line for line in RUNTIME_RUNS.splitlines() if ",B," not in line) + "\n"
    root = _write(tmp_path / "one", description=RUNTIME.replace("A, B", "A"),
                  algorithm_runs=runs)
    result = runner.invoke(app, ["recommend", "--evaluate", "--aslib", str(root)])
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert "description.txt: declares one algorithm ('A')" in result.output


def test_the_fast_copy_check_is_the_text_rule():
    """The numeric fast exit of the target-copy check decides as the text rule does,
    signed zeros included."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from metaeval.datasets._base import _copies_target

    def by_text(values, y):
        text = values.astype(str).to_numpy()
        zero, one = np.unique(text[y == 0]), np.unique(text[y == 1])
        return zero.size == 1 and one.size == 1 and zero[0] != one[0]

    cell = st.sampled_from([0.0, -0.0, 1.0, 2.5, 1e300])

    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.tuples(cell, st.integers(0, 1)), min_size=4, max_size=10))
    def check(rows):
        values = pd.Series([v for v, _ in rows], dtype=np.float64)
        y = np.array([c for _, c in rows])
        if min((y == 0).sum(), (y == 1).sum()) < 2:
            return
        assert _copies_target(values, y) == by_text(values, y)

    check()


def test_a_knowledge_base_with_a_non_finite_cell_names_the_dataset_and_algorithm():
    """Old code: 'success must be finite everywhere (impute failed cells)', no name."""
    with pytest.raises(ValueError, match=r"dataset 'd2', algorithm 'B' has nan"):
        KnowledgeBase(["d1", "d2", "d3"], ["A", "B"],
                      success=[[0.9, 0.8], [0.9, np.nan], [0.6, 0.8]], times=[[1.0, 2.0]] * 3)


def test_a_parquet_list_column_is_refused_naming_the_file_and_column(tmp_path):
    """Old code: the lists became text categories ('[1 2]')."""
    from metaeval.datasets import read_dataset

    path = tmp_path / "lists.parquet"
    pd.DataFrame({"x": [[1, 2], [3], [4], [5]], "a": [1.0, 2.0, 3.0, 4.0],
                  "class": ["y", "n", "y", "n"]}).to_parquet(path)
    with pytest.raises(ValueError, match=r"lists.parquet': column 'x' holds a ndarray in "
                                         r"row 1"):
        read_dataset(path)


def test_categories_and_bytes_read_as_text():
    """A pandas categorical keeps its kind (numbers stay categories) with spaces dropped;
    bytes (scipy's ARFF reader gives nominal values so) are UTF-8 text. Old code: ' a'
    and 'a' two categories; b'yes' the class name "b'yes'"."""
    frame = pd.DataFrame({"c": pd.Categorical([" a", "a", "b", "b"]),
                          "n": pd.Categorical([1, 2, 1, 2]),
                          "raw": [b"x", b"y ", b"x", b"y"],
                          "class": [b"yes", b"no", b"no", b"yes"]})
    ds = as_dataset(frame)
    assert ds.X.to_dict("list") == {"c": ["a", "a", "b", "b"], "n": ["1", "2", "1", "2"],
                                    "raw": ["x", "y", "x", "y"]}
    assert ds.categorical == ("c", "n", "raw")
    assert ds.class_names == ("no", "yes") and ds.y.tolist() == [1, 0, 0, 1]
