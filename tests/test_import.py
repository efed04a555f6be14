"""Importing predictions made elsewhere: OpenML predictions.arff, long and wide tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.datasets import load_dataset
from metaeval.store import Store
from metaeval.study import LocalExecutor, Study, run_study


@pytest.fixture(scope="module")
def base_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("imp") / "base.duckdb"
    run_study(Study(datasets=["labor"], algorithms=["NB"], folds=2,
                    executor=LocalExecutor(jobs=1), store=path))
    return path


@pytest.fixture
def store(base_store, tmp_path):
    target = tmp_path / "s.duckdb"
    target.write_bytes(base_store.read_bytes())
    return Store(target)


def _openml_arff(path, y, class_names, *, repeat=1, folds=10, seed=0, flip=()):
    """Write an OpenML-style predictions.arff for a dataset with classes y (0/1)."""
    rng = np.random.default_rng(seed)
    neg, pos = class_names
    lines = ["@RELATION openml_task_1_predictions", "",
             "@ATTRIBUTE repeat NUMERIC", "@ATTRIBUTE fold NUMERIC", "@ATTRIBUTE row_id NUMERIC",
             f"@ATTRIBUTE 'confidence.{neg}' NUMERIC", f"@ATTRIBUTE 'confidence.{pos}' NUMERIC",
             f"@ATTRIBUTE prediction {{{neg},{pos}}}", f"@ATTRIBUTE correct {{{neg},{pos}}}",
             "", "@DATA"]
    conf = {}
    for r in range(repeat):
        fold_of = rng.permutation(len(y)) % folds
        for row in range(len(y)):
            p = float(np.clip(0.7 * y[row] + 0.3 * rng.random(), 0, 1))
            conf[(r, row)] = p
            pred = pos if p > 0.5 else neg
            if row in flip:
                pred = neg if pred == pos else pos
            truth = pos if y[row] == 1 else neg
            lines.append(f"{r},{fold_of[row]},{row},{1 - p:.6f},{p:.6f},{pred},'{truth}'")
    path.write_text("\n".join(lines) + "\n")
    return conf


def test_openml_predictions_are_imported_by_row_id(store, tmp_path):
    ds = load_dataset("labor")
    arff = tmp_path / "predictions.arff"
    conf = _openml_arff(arff, ds.y, ds.class_names, repeat=1, folds=2)
    with store.writing():
        summary = store.import_predictions(arff, dataset="labor", algorithm="openml:run=1")
    assert summary.to_dict("records") == [{"dataset": "labor", "algorithm": "openml:run=1",
                                           "repeat": 0, "rows": 57, "folds": 2}]
    y, S, algorithms = store.scores("labor")
    assert algorithms == ["NB", "openml:run=1"]
    np.testing.assert_allclose(S[:, 1], [conf[(0, i)] for i in range(57)], atol=1e-6)
    assert store.verify() == []


def test_openml_rows_whose_prediction_disagrees_are_reported(store, tmp_path):
    ds = load_dataset("labor")
    arff = tmp_path / "predictions.arff"
    _openml_arff(arff, ds.y, ds.class_names, folds=2, flip=(3, 11))
    with store.writing(), pytest.raises(ValueError,
                                        match=r"2 rows .* disagree .* row_id 3, 11"):
        store.import_predictions(arff, dataset="labor", algorithm="openml:run=2")
    assert Store(store.path).algorithms()["name"].tolist() == ["NB"]


def test_openml_needs_a_positive_class_for_a_dataset_it_cannot_look_up(store, tmp_path):
    arff = tmp_path / "predictions.arff"
    _openml_arff(arff, load_dataset("labor").y, ("bad", "good"), folds=2)
    with store.writing(), pytest.raises(ValueError, match="pos_label='yes' is not a class"):
        store.import_predictions(arff, dataset="labor", algorithm="x", pos_label="yes")


def _long(y, algorithms=("ext_a", "ext_b"), folds=2, seed=1):
    rng = np.random.default_rng(seed)
    frames = []
    for a in algorithms:
        frames.append(pd.DataFrame({"dataset": "labor", "row": np.arange(len(y)),
                                    "fold": np.arange(len(y)) % folds, "algorithm": a,
                                    "score": rng.random(len(y)), "y": y,
                                    "fit_time": 0.25}))
    return pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_long_and_wide_tables_import_the_same_scores(store, tmp_path, suffix):
    y = load_dataset("labor").y.astype(int)
    long = _long(y)
    path = tmp_path / f"long{suffix}"
    long.to_csv(path, index=False) if suffix == ".csv" else long.to_parquet(path)
    with store.writing():
        store.import_predictions(path)
    _, S, names = store.scores("labor")
    assert names == ["NB", "ext_a", "ext_b"]
    np.testing.assert_allclose(S[:, 1], long[long.algorithm == "ext_a"]["score"])
    t = Store(store.path).timings()
    assert t[t.algorithm == "ext_a"]["fit_wall"].tolist() == [0.25, 0.25]

    wide = long.pivot_table(index=["dataset", "row", "fold", "y"], columns="algorithm",
                            values="score").reset_index()
    wide.columns = [str(c) for c in wide.columns]
    wide = wide.rename(columns={"ext_a": "w_a", "ext_b": "w_b"})
    path = tmp_path / f"wide{suffix}"
    wide.to_csv(path, index=False) if suffix == ".csv" else wide.to_parquet(path)
    with store.writing():
        store.import_predictions(path, format="wide")
    _, S2, names = store.scores("labor")
    assert names[-2:] == ["w_a", "w_b"]
    np.testing.assert_allclose(S2[:, 3], S[:, 1])
    assert Store(store.path).verify() == []


@pytest.mark.parametrize("change, words", [
    (lambda f: pd.concat([f, f.iloc[[4]]]), "rows 4 appear more than once"),
    (lambda f: f.assign(row=f["row"].where(f["row"] != 7, 99)), "rows 99 are not rows"),
    (lambda f: f[f["row"] != 5], "rows 5 have no score"),
    (lambda f: f.assign(fold=f["fold"].where(f["row"] != 2, 4)), "rows 2 are in folds [4]"),
    (lambda f: f.assign(score=f["score"].where(f["row"] != 6, np.nan)), "rows 6 have scores"),
    (lambda f: f.assign(y=f["y"].where(f["row"] != 1, 1 - f["y"])), "rows 1 have a class"),
])
def test_bad_tables_name_the_first_offending_rows_and_import_nothing(store, change, words):
    y = load_dataset("labor").y.astype(int)
    good = _long(y, algorithms=("fine",))
    bad = change(_long(y, algorithms=("broken",)))
    before = len(store.scores_frame())
    with store.writing(), pytest.raises(ValueError, match=words.replace("[", r"\[")
                                        .replace("]", r"\]")):
        store.import_predictions(pd.concat([good, bad], ignore_index=True))
    assert len(Store(store.path).scores_frame()) == before  # not half imported
    assert Store(store.path).algorithms()["name"].tolist() == ["NB"]


def test_an_import_never_overwrites_a_task_or_a_run_algorithm(store):
    y = load_dataset("labor").y.astype(int)
    with store.writing(), pytest.raises(ValueError, match="'NB' is in the store as an "
                                                          "algorithm the study runs"):
        store.import_predictions(_long(y, algorithms=("NB",)))
    with store.writing():
        store.import_predictions(_long(y, algorithms=("once",)))
    with store.writing(), pytest.raises(ValueError, match="already in the store"):
        store.import_predictions(_long(y, algorithms=("once",)))


def test_a_file_in_the_wrong_format_is_a_value_error(store, tmp_path):
    path = tmp_path / "p.arff"
    path.write_text("not an arff file\n")
    with store.writing(), pytest.raises(ValueError, match="is not an ARFF file"):
        store.import_predictions(path, dataset="labor", algorithm="x")
    path = tmp_path / "p.json"
    path.write_text("{}")
    with store.writing(), pytest.raises(ValueError, match="unknown file type '.json'"):
        store.import_predictions(path)
    with store.writing(), pytest.raises(ValueError, match=r"needs the column\(s\) \['row'"):
        store.import_predictions(pd.DataFrame({"dataset": ["labor"], "fold": [0],
                                               "algorithm": ["a"], "score": [0.5]}))


def test_cli_import(store, tmp_path):
    ds = load_dataset("labor")
    arff = tmp_path / "predictions.arff"
    _openml_arff(arff, ds.y, ds.class_names, folds=2)
    runner = CliRunner()
    result = runner.invoke(app, ["import", str(arff), "--store", str(store.path),
                                 "--dataset", "labor", "--algorithm", "openml:run=7"])
    assert result.exit_code == 0, result.output
    assert "openml:run=7" in result.output
    result = runner.invoke(app, ["import", str(arff), "--store", str(store.path),
                                 "--dataset", "labor", "--algorithm", "openml:run=7"])
    assert result.exit_code == 2 and "already in the store" in result.output
    result = runner.invoke(app, ["import", str(tmp_path / "none.csv"), "--store",
                                 str(store.path)])
    assert result.exit_code == 2 and "is not a file" in result.output


# --------------------------------------------------------------- refused, never stored wrong
def _cli_import(path, store, *extra):
    return CliRunner().invoke(app, ["import", str(path), "--store", str(store.path), *extra])


def _refused(result, *words):
    """Exit 2 with one line naming each of ``words``, and no traceback."""
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:"), result.output
    for word in words:
        assert word in lines[0], (word, lines[0])


@pytest.mark.parametrize("bad", [-0.5, "inf", "nan", "fast"])
def test_negative_or_non_finite_fit_times_are_refused_naming_file_and_line(store, tmp_path,
                                                                          bad):
    y = load_dataset("labor").y.astype(int)
    table = _long(y, algorithms=("ext",)).astype({"fit_time": object})
    table.loc[6, "fit_time"] = bad
    if bad == "nan":  # one missing time among given ones: which time is the fold's?
        table.loc[6, "fit_time"] = None
    path = tmp_path / "times.csv"
    table.to_csv(path, index=False)
    row = "on rows 6 but given on others" if bad == "nan" else "row 6 of 'labor'"
    _refused(_cli_import(path, store), "times.csv", "line(s) 8", row, "fit_time")
    assert Store(store.path).algorithms()["name"].tolist() == ["NB"]


def test_fit_times_are_stored_as_given(store):
    y = load_dataset("labor").y.astype(int)
    table = _long(y, algorithms=("ext",))
    table["fit_time"] = np.where(table["fold"] == 0, 0.125, 2.5)
    with store.writing():
        store.import_predictions(table)
    t = Store(store.path).timings()
    assert t[t.algorithm == "ext"]["fit_wall"].tolist() == [0.125, 2.5]


def test_fit_times_that_differ_inside_one_fold_are_refused(store, tmp_path):
    y = load_dataset("labor").y.astype(int)
    table = _long(y, algorithms=("ext",))
    table.loc[4, "fit_time"] = 3.0  # row 4 is in fold 0, whose other rows say 0.25
    path = tmp_path / "t.csv"
    table.to_csv(path, index=False)
    _refused(_cli_import(path, store), "t.csv", "fold 0 has different fit times")
    assert Store(store.path).algorithms()["name"].tolist() == ["NB"]


def test_a_wide_table_with_a_repeated_algorithm_column_is_refused(store, tmp_path):
    import pyarrow
    import pyarrow.parquet
    y = load_dataset("labor").y.astype(int)
    rng = np.random.default_rng(0)
    path = tmp_path / "wide.csv"
    lines = ["dataset,row,fold,W1,W1"] + [
        f"labor,{i},{i % 2},{rng.random():.4f},{rng.random():.4f}" for i in range(len(y))]
    path.write_text("\n".join(lines) + "\n")
    _refused(_cli_import(path, store, "--format", "wide"), "wide.csv", "'W1'",
             "more than once")
    assert Store(store.path).algorithms()["name"].tolist() == ["NB"]
    table = pyarrow.Table.from_arrays(
        [pyarrow.array(["labor"] * len(y)), pyarrow.array(np.arange(len(y))),
         pyarrow.array(np.arange(len(y)) % 2), pyarrow.array(rng.random(len(y))),
         pyarrow.array(rng.random(len(y)))], names=["dataset", "row", "fold", "W1", "W1"])
    pyarrow.parquet.write_table(table, tmp_path / "wide.parquet")
    _refused(_cli_import(tmp_path / "wide.parquet", store, "--format", "wide"),
             "wide.parquet", "'W1'", "more than once")
    frame = pd.DataFrame(np.zeros((2, 2)), columns=["row", "row"])
    with store.writing(), pytest.raises(ValueError, match=r"\['row'\] more than once"):
        store.import_predictions(frame)


@pytest.mark.parametrize("cell", [None, "", "  "])
def test_an_empty_algorithm_cell_is_refused_not_read_as_nan(store, tmp_path, cell):
    y = load_dataset("labor").y.astype(int)
    table = _long(y, algorithms=("ext",))
    table.loc[9, "algorithm"] = cell
    path = tmp_path / "long.csv"
    table.to_csv(path, index=False)
    _refused(_cli_import(path, store), "long.csv", "line(s) 11", "algorithm is missing")
    assert Store(store.path).algorithms()["name"].tolist() == ["NB"]


def _arff_with_classes(path, classes, y, *, pos):
    """An OpenML predictions.arff whose confidence columns are ``classes``."""
    rng = np.random.default_rng(3)
    head = ["@RELATION p", "@ATTRIBUTE repeat NUMERIC", "@ATTRIBUTE fold NUMERIC",
            "@ATTRIBUTE row_id NUMERIC"]
    head += [f"@ATTRIBUTE 'confidence.{c}' NUMERIC" for c in classes]
    head += [f"@ATTRIBUTE prediction {{{','.join(classes)}}}", "@DATA"]
    rows = []
    for i in range(len(y)):
        conf = np.full(len(classes), 0.0)
        conf[pos if y[i] else 0] = 1.0 if rng.random() < 0.8 else 0.0
        if conf.sum() == 0:
            conf[0] = 1.0
        pred = classes[int(np.argmax(conf))]
        rows.append(f"0,{i % 2},{i}," + ",".join(f"{c:.1f}" for c in conf) + f",{pred}")
    path.write_text("\n".join(head + rows) + "\n")


def test_openml_predictions_with_three_classes_are_refused(store, tmp_path):
    ds = load_dataset("labor")
    arff = tmp_path / "p.arff"
    _arff_with_classes(arff, ["good", "bad", "meh"], ds.y, pos=1)
    _refused(_cli_import(arff, store, "--dataset", "labor", "--algorithm", "o",
                         "--pos-label", "bad"), "p.arff", "['bad', 'good', 'meh']",
             "['good', 'bad']")
    assert Store(store.path).algorithms()["name"].tolist() == ["NB"]


def test_openml_predictions_of_other_classes_are_refused_naming_both(store, tmp_path):
    ds = load_dataset("labor")  # classes good (0), bad (1)
    arff = tmp_path / "p.arff"
    _arff_with_classes(arff, ["no", "yes"], ds.y, pos=1)
    _refused(_cli_import(arff, store, "--dataset", "labor", "--algorithm", "o",
                         "--pos-label", "yes"), "['no', 'yes']", "['good', 'bad']")
    arff2 = tmp_path / "q.arff"
    _arff_with_classes(arff2, ["good", "bad"], ds.y, pos=1)
    _refused(_cli_import(arff2, store, "--dataset", "labor", "--algorithm", "o",
                         "--pos-label", "good"), "pos_label='good' is class 0", "'bad'")
    assert Store(store.path).algorithms()["name"].tolist() == ["NB"]
    result = _cli_import(arff2, store, "--dataset", "labor", "--algorithm", "o")
    assert result.exit_code == 0, result.output


def test_a_repeat_the_study_does_not_have_is_refused(store, tmp_path):
    y = load_dataset("labor").y.astype(int)
    table = _long(y, algorithms=("ext",)).assign(repeat=1)  # the study has 1 repeat
    path = tmp_path / "r.csv"
    table.to_csv(path, index=False)
    _refused(_cli_import(path, store), "r.csv", "no repeat 1", "repeats 0..0")
    assert Store(store.path).algorithms()["name"].tolist() == ["NB"]


def test_a_y_column_of_class_names_is_accepted_when_they_are_the_datasets(store, tmp_path):
    ds = load_dataset("labor")
    table = _long(ds.y.astype(int), algorithms=("ext",))
    table["y"] = np.asarray(ds.class_names, dtype=object)[ds.y.astype(int)]
    path = tmp_path / "names.csv"
    table.to_csv(path, index=False)
    result = _cli_import(path, store)
    assert result.exit_code == 0, result.output
    y, S, names = Store(store.path).scores("labor")
    assert names == ["NB", "ext"] and y.tolist() == ds.y.tolist()
    flipped = table.assign(algorithm="ext2", y=np.asarray(ds.class_names, dtype=object)[
        1 - ds.y.astype(int)])
    flipped.to_csv(path, index=False)
    _refused(_cli_import(path, store), "rows", "have a class that differs")
    other = table.assign(algorithm="ext3", y=np.where(ds.y == 1, "yes", "no"))
    other.to_csv(path, index=False)
    _refused(_cli_import(path, store), "['no', 'yes']", "['good', 'bad']")


def test_a_truncated_gzip_table_is_one_line(store, tmp_path):
    y = load_dataset("labor").y.astype(int)
    path = tmp_path / "t.csv.gz"
    _long(y, algorithms=("ext",)).to_csv(path, index=False)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    _refused(_cli_import(path, store), "t.csv.gz", "cannot be read")


@pytest.fixture
def restore_signals():
    import signal

    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    # as in a terminal: whatever an earlier test in this worker process left behind (an
    # ignored SIGINT is kept ignored by the import, rightly), Ctrl-C starts at its default
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    for number, handler in saved.items():
        signal.signal(number, handler)


def test_ctrl_c_during_the_write_says_nothing_was_imported(store, tmp_path, monkeypatch,
                                                           restore_signals):
    import pyarrow

    y = load_dataset("labor").y.astype(int)
    path = tmp_path / "l.csv"
    _long(y, algorithms=("ext",)).to_csv(path, index=False)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(pyarrow, "table", interrupted)  # inside the import's transaction
    result = _cli_import(path, store)
    assert result.exit_code == 130, result.output
    assert result.output.strip().splitlines() == [
        f"Interrupted (SIGINT); nothing was imported: {store.path} is as it was."]
    assert Store(store.path).algorithms()["name"].tolist() == ["NB"]


def test_ctrl_c_after_the_commit_says_the_import_was_committed(store, tmp_path, monkeypatch,
                                                               restore_signals):
    import metaeval.cli._import as cli_import

    y = load_dataset("labor").y.astype(int)
    path = tmp_path / "l.csv"
    _long(y, algorithms=("ext",)).to_csv(path, index=False)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_import, "print_table", interrupted)  # after the commit
    result = _cli_import(path, store)
    assert result.exit_code == 130, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "the import was committed" in lines[0], result.output
    assert Store(store.path).algorithms()["name"].tolist() == ["NB", "ext"]


def test_a_real_ctrl_c_during_the_write_is_held_until_between_queries(store, tmp_path,
                                                                      monkeypatch,
                                                                      restore_signals):
    # DuckDB answers a signal that interrupts a query with one of several errors; the
    # import holds SIGINT while a query runs and stops between two, then rolls back
    import os
    import signal

    import pyarrow

    y = load_dataset("labor").y.astype(int)
    path = tmp_path / "l.csv"
    _long(y, algorithms=("ext", "ext2")).to_csv(path, index=False)
    real = pyarrow.table

    went_on = []

    def table_then_ctrl_c(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)
        went_on.append(True)  # not interrupted here: held until between two queries
        return real(*args, **kwargs)

    monkeypatch.setattr(pyarrow, "table", table_then_ctrl_c)
    result = _cli_import(path, store)
    assert result.exit_code == 130, result.output
    assert result.output.strip().splitlines() == [
        f"Interrupted (SIGINT); nothing was imported: {store.path} is as it was."]
    assert Store(store.path).algorithms()["name"].tolist() == ["NB"]
    assert went_on == [True, True]  # the first task's two tables, then stopped


@pytest.mark.parametrize("error", ["InterruptException", "RuntimeError"])
def test_duckdb_reporting_an_interrupted_query_is_a_keyboard_interrupt(store, monkeypatch,
                                                                       error):
    import duckdb

    import metaeval.store._import as store_import

    def interrupted(*args, **kwargs):
        if error == "RuntimeError":
            raise RuntimeError("Query interrupted")
        raise duckdb.InterruptException("INTERRUPT Error: Interrupted!")

    monkeypatch.setattr(store_import, "_stored_labels", interrupted)  # a query of the checks
    y = load_dataset("labor").y.astype(int)
    with store.writing(), pytest.raises(KeyboardInterrupt):
        store.import_predictions(_long(y, algorithms=("ext",)))
    assert Store(store.path).algorithms()["name"].tolist() == ["NB"]
