"""What a new user meets first: a DataFrame as a dataset, files checked before the heavy
imports with one line naming them, output that fits the terminal."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from metaeval.cli import _app, _files, app
from metaeval.datasets import Dataset, read_dataset
from metaeval.datasets._frame import as_dataset

runner = CliRunner()


def _frame():
    return pd.DataFrame({
        "city": ["lyon", "nice", None, "lyon", "paris", "nice"],
        "plan": pd.Categorical(["a", "b", "a", "b", "a", "b"]),
        "calls": [3, 1, 4, 1, 5, 9],
        "age": ["31", "40", None, "22", "58", "36"],  # numbers kept as text
        "vip": [True, False, False, False, True, False],
        "churn": ["yes", "no", "no", "yes", "no", "no"],
    }, index=[10, 11, 12, 13, 14, 15])


# ----------------------------------------------------------------- a DataFrame as a dataset
def test_a_frame_is_typed_as_the_readers_type_a_csv_file(tmp_path):
    df = _frame()
    ds = as_dataset(df, target="churn", name="churn")
    assert ds.categorical == ("city", "plan")
    assert ds.y.tolist() == [1, 0, 0, 1, 0, 0] and ds.class_names == ("no", "yes")
    assert ds.X["age"].dtype == np.float64 and np.isnan(ds.X["age"][2])
    assert ds.X["vip"].tolist() == [1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
    assert ds.X["city"][2] != ds.X["city"][2]  # NaN, not "None"
    assert ds.X.index.equals(pd.RangeIndex(6))
    # the same frame written as CSV and read back: the same types and values (but for
    # the booleans, which a CSV file holds as the text True/False)
    path = tmp_path / "churn.csv"
    df.drop(columns="vip").to_csv(path, index=False)
    read = read_dataset(path, target="churn")
    assert read.categorical == ds.categorical and read.y.tolist() == ds.y.tolist()
    pd.testing.assert_frame_equal(read.X, ds.X.drop(columns="vip"))
    assert as_dataset(path, target="churn").categorical == ds.categorical
    assert as_dataset(df, target="churn", pos_label="no").y.tolist() == [0, 1, 1, 0, 1, 1]
    assert as_dataset(df, target="Churn", categorical=["calls"]).categorical == \
        ("city", "plan", "calls")


def test_a_dataset_with_an_undeclared_text_column_gets_it_declared():
    df = _frame()
    raw = Dataset("churn", df.drop(columns="churn").reset_index(drop=True),
                  (df["churn"] == "yes").to_numpy().astype(np.int8))
    assert raw.categorical == ()
    ds = as_dataset(raw)
    assert ds.categorical == ("city", "plan") and ds.X["age"].dtype == np.float64
    assert ds.y is raw.y and ds.name == "churn"
    typed = as_dataset(_frame(), target="churn")
    assert as_dataset(typed) is typed  # nothing to declare
    with pytest.raises(ValueError, match="already 0/1"):
        as_dataset(typed, pos_label="yes")


@pytest.mark.parametrize("data, kwargs, message", [
    ([[1, 2]], {}, "data must be a pandas DataFrame, a path"),
    (_frame(), {"target": "chrn"}, "closest: 'churn'"),
    (_frame()[["churn"]], {"target": "churn"}, "no feature columns"),
    (_frame().assign(churn="yes"), {"target": "churn"}, "Only one class"),
    (_frame().assign(when=pd.Timestamp("2020-01-01")), {"target": "churn"}, "dates"),
    (_frame(), {"target": "churn", "pos_label": "maybe"}, "not one of the labels"),
    (_frame(), {"target": "churn", "categorical": "city"}, "not a string"),
    (_frame().set_axis(["a", "a", "b", "c", "d", "churn"], axis=1), {"target": "churn"},
     "duplicated column names"),
])
def test_a_bad_frame_is_one_value_error_naming_the_problem(data, kwargs, message):
    with pytest.raises(ValueError, match=message):
        as_dataset(data, **kwargs)


# ----------------------------------------------------------------- files, checked early
def test_the_early_checks_know_the_readers_extensions():
    from metaeval.datasets import readers

    assert _files.DATA_EXTENSIONS == readers._EXTENSIONS


def _files_of_every_kind(tmp_path):
    png = tmp_path / "plot.csv"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    tsv = tmp_path / "tabs.csv"
    tsv.write_text("mean radius\tmean texture\tclass\n1\t2\tyes\n3\t4\tno\n")
    semi = tmp_path / "semi.csv"
    semi.write_text("a;b;class\n1;2;yes\n3;4;no\n")
    commas = tmp_path / "commas.tsv"
    commas.write_text("a,b,class\n1,2,yes\n3,4,no\n")
    return [(tmp_path / "nothere.csv", "'{}': it does not exist"),
            (tmp_path, "it is a folder"),
            (png, "is not a CSV file: it holds a PNG image"),
            (tsv, "looks tab-separated"),
            (semi, "looks semicolon-separated"),
            (commas, "looks comma-separated")]


def test_a_bad_data_file_is_one_line_naming_it_before_any_heavy_import(tmp_path):
    for path, message in _files_of_every_kind(tmp_path):
        with pytest.raises(ValueError, match=message.format(path).replace("(", r"\(")):
            _files.check_data_file(path)
        result = runner.invoke(app, ["recommend", str(path)])
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and str(path) in lines[0], result.output
        assert "Errno" not in result.output


def test_the_readers_name_the_file_and_read_latin_1(tmp_path):
    latin = tmp_path / "latin.csv"
    latin.write_bytes("city,n,class\nSète,1,yes\nNîmes,2,no\nSète,3,no\n"
                      .encode("latin-1"))
    ds = read_dataset(latin)
    assert ds.X["city"].tolist() == ["Sète", "Nîmes", "Sète"]
    for path, message in _files_of_every_kind(tmp_path)[2:]:
        with pytest.raises(ValueError, match=message.split(":")[0]) as caught:
            read_dataset(path)
        assert repr(str(path)) in str(caught.value)


def test_a_missing_file_is_named_without_python_s_errno():
    error = FileNotFoundError(2, "No such file or directory", "nothere.csv")
    assert _app._os_error_text(error) == "No such file or directory: 'nothere.csv'."


def test_the_program_checks_a_missing_file_before_importing_numpy_or_pandas(tmp_path):
    # and a misspelled command: Click's suggestion, among the commands' modules only the
    # closest one imported
    code = (
        "import sys\n"
        "from metaeval.cli import main\n"
        f"for sys.argv in (['metaeval', 'recommend', {str(tmp_path / 'no.csv')!r}],\n"
        "                 ['metaeval', 'recomend', 'x']):\n"
        "    try:\n        main()\n    except SystemExit as e:\n        print(e.code)\n"
        "heavy = ('numpy', 'pandas', 'sklearn', 'duckdb', 'scipy', 'metaeval.cli._study')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n")
    probe = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, timeout=120)
    assert probe.stdout.split() == ["2", "2", "[]"], probe.stdout + probe.stderr
    lines = probe.stderr.strip().splitlines()
    assert lines[0] == f"Error: the data file '{tmp_path / 'no.csv'}': it does not exist."
    assert lines[-1] == "Error: No such command 'recomend'. Did you mean 'recommend'?"


# ----------------------------------------------------------------- the recommendation
def test_names_are_wrapped_at_their_commas_never_cut():
    from metaeval.recommend import load_knowledge

    names = list(load_knowledge().algorithms)
    for width in (12, 20, 41):
        for name in names:
            parts = _app.wrap_name(name, width)
            assert "".join(parts) == name and max(map(len, parts)) <= width
    rows = [[str(i + 1), n, "0.5", "0.9", "1", "2"] for i, n in enumerate(names)]
    columns = [("rank", "right"), ("algorithm", "left"), ("score", "right"),
               ("expected\nsuccess", "right"), ("t", "right"), ("total\nt", "right")]
    for width in (60, 80, 200):
        lines = _app.fit_table("T", columns, rows, width=width, wrap=1, keys=2)
        assert max(len(line) for line in lines) <= width
        # narrow, the columns are split into tables that each repeat rank and algorithm
        tables = "\n".join(lines).split("┏")[1:]
        assert len(tables) == (1 if width > 60 else 2)
        for table in tables:
            cells = [line.split("│")[1:3] for line in table.splitlines() if "│" in line]
            joined = []
            for rank, name in cells:
                if rank.strip():
                    joined.append(name.strip())
                else:
                    joined[-1] += name.strip()
            assert joined == names


def test_recommend_at_80_columns_fits_and_says_how_to_see_all(tmp_path, monkeypatch):
    from metaeval.datasets import load_dataset

    ds = load_dataset("haberman")
    path = tmp_path / "haberman.csv"
    ds.X.assign(**{"class": ds.y}).to_csv(path, index=False)
    monkeypatch.setenv("COLUMNS", "80")
    # (average ranking: the library's default strategy may first choose one, seconds)
    result = runner.invoke(app, ["recommend", str(path), "--top", "6", "--strategy",
                                 "average-ranking"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "…" not in result.output and max(len(line) for line in lines) <= 80
    assert len(lines) <= 40
    assert "The first 6 of 152 algorithms; --top 0 shows all." in result.output
    # the shipped knowledge base's own notes: pointed to once, not repeated as notes
    assert "failed (dataset, configuration)" not in result.output
    assert "note(s) on the shipped knowledge base: `metaeval knowledge show`" in result.output
    assert "Ranking the algorithms: done in" in result.output
    assert "Describing" not in result.output  # average ranking describes nothing


@pytest.mark.parametrize("strategy, says", [
    ("average-ranking", "Ranking the algorithms"),
    ("single-best", "Ranking the algorithms"),
    ("knn-metafeatures", "Describing churn (meta-features) and ranking the algorithms"),
    ("cost-landmarking", "Describing churn (landmarkers) and ranking the algorithms"),
])
def test_progress_says_describing_only_for_a_strategy_that_describes(strategy, says):
    from metaeval.cli._recommend import _work

    assert _work("churn", strategy) == says


def test_recommend_passes_what_was_given_and_nothing_else(tmp_path, monkeypatch):
    import metaeval.cli._aslib as aslib
    import metaeval.recommend as library

    seen = {}
    monkeypatch.setattr(aslib, "evaluate_aslib_command",
                        lambda directory, **kw: seen.setdefault("aslib", []).append(kw))
    for extra in ([], ["--measure", "accuracy"]):
        runner.invoke(app, ["recommend", "--evaluate", "--aslib", str(tmp_path), *extra])
    # the option's value when given, None (the scenario's first measure) when not
    assert [kw["measure"] for kw in seen["aslib"]] == [None, "accuracy"]

    class Stop(Exception):
        pass

    def fake(dataset, source, condition, **kw):
        seen["recommend"] = kw
        raise Stop

    monkeypatch.setattr(library, "recommend", fake)
    path = tmp_path / "d.csv"
    path.write_text("a,class\n1,x\n2,y\n3,x\n4,y\n")
    result = runner.invoke(app, ["recommend", str(path)])
    assert isinstance(result.exception, Stop)
    assert "strategy" not in seen["recommend"]  # the library's default strategy


def test_evaluate_refuses_a_device_as_json_before_evaluating():
    result = runner.invoke(app, ["recommend", "--evaluate", "--json", "/dev/null"])
    assert result.exit_code == 2, result.output
    assert "--json" in result.output and "/dev/null" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_the_condition_comes_without_the_strategies_and_every_public_name_resolves():
    """A bad --measure is answered from the Condition alone: importing it does not import
    the strategies, learners or ASlib readers (the package imports each name when used)."""
    code = ("import sys; from metaeval.recommend import Condition; "
            "print(sorted(m for m in sys.modules if m.startswith('metaeval.recommend.')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    loaded = done.stdout
    assert "metaeval.recommend._condition" in loaded
    for heavy in ("_evaluate", "_strategies", "_learners_forest", "_aslib", "_auto"):
        assert f"metaeval.recommend.{heavy}'" not in loaded, loaded
    import metaeval.recommend as package

    for name in package.__all__:
        assert getattr(package, name) is not None
    assert set(package.__all__) <= set(dir(package))
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        package.nothing_here  # noqa: B018
