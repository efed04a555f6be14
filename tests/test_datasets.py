"""Tests for metaeval.datasets: built-in suite, readers, OpenML (offline paths only)."""

from __future__ import annotations

import csv
import gzip
import importlib.util
import io
import shutil
import socket
import sys
import types
from importlib import resources

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval.datasets import (
    Dataset,
    _builtin,
    list_datasets,
    load_dataset,
    load_openml,
    load_suite,
    manifest,
    read_dataset,
)
from metaeval.datasets import openml as openml_mod

DATA = resources.files("metaeval.datasets").joinpath("data")
MANIFEST = pd.read_csv(
    io.StringIO(DATA.joinpath("manifest.csv").read_text()), dtype=str, keep_default_na=False
)
ALL_NAMES = MANIFEST["name"].tolist()


# --------------------------------------------------------------------------- built-in suite


def test_lists_and_manifest():
    full, quick = list_datasets(), list_datasets("quick")
    assert full == ALL_NAMES and len(full) == 51
    assert len(quick) == 15 and set(quick) <= set(full)
    assert quick == [n for n in full if n in set(quick)]  # manifest order kept
    m = manifest()
    assert (m.loc[m["subset"] == "quick", "n_rows"] <= 1000).all()
    assert m["n_rows"].dtype == np.int64 and m["positive_fraction"].dtype == np.float64
    m.loc[0, "name"] = "changed"  # a copy: the next call is unaffected
    assert manifest().loc[0, "name"] == "hepatitis"
    with pytest.raises(ValueError, match="subset"):
        list_datasets("medium")


@pytest.mark.parametrize("name", ALL_NAMES)
def test_builtin_matches_manifest(name):
    row = MANIFEST.set_index("name").loc[name]
    ds = load_dataset(name)
    assert isinstance(ds, Dataset) and ds.name == name
    assert ds.X.shape == (int(row["n_rows"]), int(row["n_features"]))
    assert ds.y.dtype == np.int8 and set(np.unique(ds.y)) == {0, 1}
    assert int(ds.y.sum()) == int(row["n_positive"])
    assert int(ds.X.isna().to_numpy().sum()) == int(row["n_missing"])
    cats = [c for c in row["categorical_columns"].split("|") if c]
    assert set(ds.categorical) == set(cats) and len(ds.categorical) == int(row["n_categorical"])
    for c in ds.X.columns:
        if c in cats:
            assert ds.X[c].dtype == object
            present = ds.X[c].dropna()
            assert all(isinstance(v, str) for v in present)
            assert not present.isin(["nan", "NaN", ""]).any()
        else:
            assert ds.X[c].dtype == np.float64
    assert ds.family == row["family"]
    assert ds.sha256 == row["sha256"]
    assert ds.class_names == (row["negative_class"], row["positive_class"])
    assert ds.positive_fraction == pytest.approx(float(row["positive_fraction"]), abs=1e-4)
    assert ds.numeric == tuple(c for c in ds.X.columns if c not in set(cats))


@pytest.mark.parametrize("name", ["hepatitis", "labor", "credit-g", "wdbc", "coil2000"])
def test_values_equal_the_file_text(name):
    # Independent reference: the csv module plus Python's float() (correctly rounded).
    file = MANIFEST.set_index("name").loc[name, "file"]
    with gzip.open(io.BytesIO(DATA.joinpath(file).read_bytes()), "rt", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    ds = load_dataset(name)
    assert list(ds.X.columns) == header[:-1]
    assert ds.y.tolist() == [int(r[-1]) for r in body]
    for j, c in enumerate(header[:-1]):
        text = [r[j] for r in body]
        got = ds.X[c].tolist()
        if c in ds.categorical:
            assert [None if t == "" else t for t in text] == [
                None if (isinstance(v, float) and np.isnan(v)) else v for v in got
            ]
        else:
            ref = np.array([np.nan if t == "" else float(t) for t in text])
            np.testing.assert_array_equal(ds.X[c].to_numpy(), ref)


def test_categorical_codes_stay_strings():
    ds = load_dataset("hepatitis")  # SEX coded 1 = male / 2 = female in UCI
    assert set(ds.X["SEX"].unique()) == {"1", "2"}
    labor = load_dataset("labor")  # 'none' is a real category, not a missing value
    assert "none" in set(labor.X["pension"].dropna())


def test_load_returns_fresh_copies():
    a = load_dataset("sonar")
    a.X.iloc[0, 0] = -1.0
    a.y[0] = 1 - a.y[0]
    b = load_dataset("sonar")
    assert b.X.iloc[0, 0] != -1.0 and b.y[0] != a.y[0]


def test_load_suite_quick():
    suite = load_suite("quick")
    assert [d.name for d in suite] == list_datasets("quick")
    assert all(d.n_instances <= 1000 for d in suite)


def test_unknown_name_suggests():
    with pytest.raises(ValueError, match="hepatitis"):
        load_dataset("hepatitus")
    with pytest.raises(ValueError, match="not a built-in dataset"):
        load_dataset("no-such-data")


def _copy_suite(tmp_path, names=("hepatitis",)):
    shutil.copy(DATA.joinpath("manifest.csv"), tmp_path / "manifest.csv")
    for n in names:
        f = f"{n}.csv.gz"
        (tmp_path / f).write_bytes(DATA.joinpath(f).read_bytes())
    return tmp_path


def test_sha256_verified(tmp_path):
    root = _copy_suite(tmp_path)
    intact = _builtin._load_builtin("hepatitis", str(root))  # untouched copy loads
    pd.testing.assert_frame_equal(intact.X, load_dataset("hepatitis").X)
    # Tamper: change one value and re-gzip, so the file is still a valid gzip CSV.
    path = root / "hepatitis.csv.gz"
    text = gzip.decompress(path.read_bytes()).decode()
    first = text.index("\n") + 1
    tampered = text[:first] + "31" + text[first + 2 :]  # AGE 30 -> 31 in row 1
    assert tampered != text
    path.write_bytes(gzip.compress(tampered.encode(), mtime=0))
    _builtin._load_builtin.cache_clear()
    with pytest.raises(ValueError, match="SHA-256 mismatch"):
        _builtin._load_builtin("hepatitis", str(root))


def test_dataset_validation():
    X = pd.DataFrame({"a": [1.0, 2.0]})
    with pytest.raises(ValueError, match="one label per row"):
        Dataset("d", X, np.array([0, 1, 1]))
    with pytest.raises(ValueError, match="only 0 and 1"):
        Dataset("d", X, np.array([0, 2]))
    with pytest.raises(ValueError, match="not in X"):
        Dataset("d", X, np.array([0, 1]), categorical=("b",))
    ds = Dataset("d", X, np.array([0, 1]))
    assert ds.family == "d" and "n_instances=2" in repr(ds)


# --------------------------------------------------------------------------- readers

FRAME = pd.DataFrame(
    {
        "width": [1.5, 2.0, np.nan, 4.25, 0.1],
        "colour": ["red", None, "blue", "red", "green, dark"],
        "code": ["1", "2", "2", "1", "1"],
        "class": ["yes", "no", "no", "no", "yes"],
    }
)


def _check_frame(ds, *, code_categorical):
    assert list(ds.X.columns) == ["width", "colour", "code"]
    np.testing.assert_array_equal(ds.X["width"].to_numpy(), [1.5, 2.0, np.nan, 4.25, 0.1])
    assert ds.X["colour"].dtype == object
    assert ds.X["colour"].tolist()[:1] + ds.X["colour"].tolist()[2:] == [
        "red",
        "blue",
        "red",
        "green, dark",
    ]
    assert pd.isna(ds.X["colour"].iloc[1]) and ds.X["colour"].iloc[1] != "nan"
    if code_categorical:
        assert ds.X["code"].tolist() == ["1", "2", "2", "1", "1"]
    else:
        assert ds.X["code"].tolist() == [1.0, 2.0, 2.0, 1.0, 1.0]
    # 'yes' is the minority label (2 of 5) -> class 1
    assert ds.y.tolist() == [1, 0, 0, 0, 1] and ds.class_names == ("no", "yes")


def test_csv_round_trip(tmp_path):
    p = tmp_path / "toy.csv"
    FRAME.to_csv(p, index=False)
    ds = read_dataset(p)
    _check_frame(ds, code_categorical=False)
    assert ds.categorical == ("colour",) and ds.name == "toy"
    ds2 = read_dataset(p, categorical=["code"])
    _check_frame(ds2, code_categorical=True)
    assert ds2.categorical == ("colour", "code")
    import hashlib

    assert ds.sha256 == hashlib.sha256(p.read_bytes()).hexdigest()


def test_tsv_gz_round_trip(tmp_path):
    p = tmp_path / "toy.tsv.gz"
    p.write_bytes(gzip.compress(FRAME.to_csv(sep="\t", index=False).encode()))
    ds = read_dataset(p, categorical=["code"])
    _check_frame(ds, code_categorical=True)
    assert ds.name == "toy"


def test_parquet_round_trip(tmp_path):
    p = tmp_path / "toy.parquet"
    frame = FRAME.copy()
    frame["code"] = frame["code"].astype("category")
    frame["flag"] = [True, False, True, True, False]
    frame["class"] = [1, 0, 0, 0, 1]
    frame.to_parquet(p)
    ds = read_dataset(p)
    assert ds.categorical == ("colour", "code")
    assert ds.X["flag"].tolist() == [1.0, 0.0, 1.0, 1.0, 0.0]
    assert ds.y.tolist() == [1, 0, 0, 0, 1] and ds.class_names == ("0", "1")
    np.testing.assert_array_equal(ds.X["width"].to_numpy(), FRAME["width"].to_numpy())


ARFF = """% a comment line
@RELATION 'toy relation'

@ATTRIBUTE 'plant width' NUMERIC
@attribute colour {red, 'green, dark', blue}
@attribute note string
@attribute n integer
@attribute class {yes,no}   % trailing comment

@data
% comment inside data
1.5, red, 'it''s', 3, yes
2,?,"say \\"hi\\"",?,no
?, blue, '?', 7, no

4.25,'green, dark',plain,1,no
"""


def test_arff_parser(tmp_path):
    p = tmp_path / "toy.arff"
    p.write_text(ARFF.replace("'it''s'", "'it\\'s'"))
    ds = read_dataset(p)
    assert list(ds.X.columns) == ["plant width", "colour", "note", "n"]
    assert ds.categorical == ("colour", "note")
    np.testing.assert_array_equal(ds.X["plant width"], [1.5, 2.0, np.nan, 4.25])
    np.testing.assert_array_equal(ds.X["n"], [3.0, np.nan, 7.0, 1.0])
    colour = ds.X["colour"].tolist()
    assert colour[0] == "red" and pd.isna(colour[1]) and colour[2:] == ["blue", "green, dark"]
    # quoted '?' is the text "?", unquoted ? is missing; escapes are decoded
    assert ds.X["note"].tolist() == ["it's", 'say "hi"', "?", "plain"]
    assert ds.y.tolist() == [1, 0, 0, 0]  # yes is the minority


def test_arff_sparse(tmp_path):
    p = tmp_path / "sparse.arff"
    p.write_text(
        "@relation s\n@attribute a numeric\n@attribute b numeric\n"
        "@attribute c {x,y}\n@attribute class {p,n}\n@data\n"
        "{1 2.5, 3 n}\n{0 1, 2 y, 3 p}\n{2 ?}\n"
    )
    ds = read_dataset(p)
    # absent numeric -> 0, absent nominal -> its first value, absent class -> 'p'
    np.testing.assert_array_equal(ds.X["a"], [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(ds.X["b"], [2.5, 0.0, 0.0])
    assert ds.X["c"].tolist()[:2] == ["x", "y"] and pd.isna(ds.X["c"].iloc[2])
    assert ds.class_names == ("p", "n") and ds.y.tolist() == [1, 0, 0]


KEEL = """@relation ecoli-toy
@attribute Mcg real [0.0, 0.89]
@attribute Sex {M, F}
@attribute Age integer[21,81]
@attribute Class {positive, negative}
@inputs Mcg, Sex, Age
@outputs Class
@data
0.49, M, 21, negative
0.07, <null>, 40, positive
<null>, F, 81, negative
0.5, F, ?, negative
"""


def test_keel_parser(tmp_path):
    p = tmp_path / "ecoli-toy.dat"
    p.write_text(KEEL)
    ds = read_dataset(p)  # default target 'class' finds 'Class'
    assert list(ds.X.columns) == ["Mcg", "Sex", "Age"] and ds.categorical == ("Sex",)
    np.testing.assert_array_equal(ds.X["Mcg"], [0.49, 0.07, np.nan, 0.5])
    np.testing.assert_array_equal(ds.X["Age"], [21.0, 40.0, 81.0, np.nan])
    assert pd.isna(ds.X["Sex"].iloc[1])
    assert ds.y.tolist() == [0, 1, 0, 0] and ds.class_names == ("negative", "positive")
    # @outputs is used when no column is called class at all
    p2 = tmp_path / "renamed.dat"
    p2.write_text(KEEL.replace("Class", "Diagnosis"))
    assert read_dataset(p2).y.tolist() == [0, 1, 0, 0]


def _write_arff(rows, target_values) -> str:
    """Independent ARFF writer: every text value single-quoted with \\ escapes."""

    def q(v):
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"

    lines = ["@relation h", "@attribute num numeric", "@attribute txt string"]
    lines.append("@attribute class {" + ",".join(q(t) for t in target_values) + "}")
    lines.append("@data")
    for num, txt, cls in rows:
        lines.append(
            ",".join(["?" if num is None else repr(num), "?" if txt is None else q(txt), q(cls)])
        )
    return "\n".join(lines) + "\n"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False, width=64)),
            st.one_of(st.none(), st.text(alphabet="ab ,'\"\\%{}?\t", max_size=8)),
            st.sampled_from(["p q", "n,m"]),
        ),
        min_size=2,
        max_size=12,
    ).filter(lambda rows: len({r[2] for r in rows}) == 2)
)
def test_arff_round_trip_property(tmp_path_factory, rows):
    p = tmp_path_factory.mktemp("arff") / "h.arff"
    p.write_text(_write_arff(rows, ["p q", "n,m"]))

    def copies_class(column):
        # one value on every row of one class and another on every row of the other (no
        # missing value, each class at least two rows): the loader refuses such a leak
        by_class = {}
        for r in rows:
            by_class.setdefault(r[2], []).append(r[column])
        if any(v is None for r in rows for v in [r[column]]):
            return False
        if min(len(v) for v in by_class.values()) < 2:
            return False
        firsts = [str(v[0]) for v in by_class.values()]
        return (all(len({str(x) for x in v}) == 1 for v in by_class.values())
                and firsts[0] != firsts[1])

    if copies_class(0) or copies_class(1):
        with pytest.raises(ValueError, match="is a copy of target column|are copies of"):
            read_dataset(p, pos_label="n,m")
        return
    ds = read_dataset(p, pos_label="n,m")
    ref = [np.nan if r[0] is None else r[0] for r in rows]
    np.testing.assert_array_equal(ds.X["num"].to_numpy(), ref)
    got = [None if (isinstance(v, float) and np.isnan(v)) else v for v in ds.X["txt"]]
    assert got == [r[1] for r in rows]
    assert ds.y.tolist() == [int(r[2] == "n,m") for r in rows]


def _csv(tmp_path, text, name="d.csv"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_pos_label_rules(tmp_path):
    # 0/1 labels: 1 is class 1 even when it is the majority
    p = _csv(tmp_path, "a,class\n1,1\n2,1\n3,0\n")
    assert read_dataset(p).y.tolist() == [1, 1, 0]
    # other labels: minority is class 1
    p = _csv(tmp_path, "a,class\n1,b\n2,a\n3,a\n")
    assert read_dataset(p).y.tolist() == [1, 0, 0]
    # tie (2 vs 2): the label sorting last ('yes' > 'no') is class 1
    p = _csv(tmp_path, "a,class\n1,no\n2,yes\n3,yes\n4,no\n")
    ds = read_dataset(p)
    assert ds.y.tolist() == [0, 1, 1, 0] and ds.class_names == ("no", "yes")
    # explicit pos_label, matched by text: 2 finds "2"
    p = _csv(tmp_path, "a,label\n1,2\n2,4\n3,4\n")
    assert read_dataset(p, target="label", pos_label=4).y.tolist() == [0, 1, 1]
    with pytest.raises(ValueError, match="pos_label=5 is not one of the labels"):
        read_dataset(p, target="label", pos_label=5)


@pytest.mark.parametrize(
    ("text", "kwargs", "message"),
    [
        ("a,class\n1,x\n2,x\n", {}, "Only one class"),
        ("a,class\n1,x\n2,y\n3,z\n", {}, "3 classes"),
        ("a,class\n1,x\n2,y\n", {"target": "label"}, "target column 'label' is not in the data"),
        ("a,class\n", {}, "no data rows"),
        ("", {}, "empty"),
        ("a,class\n1,x\n2,\n", {}, "missing label"),
        ("class\nx\ny\n", {}, "no feature columns"),
        ("a,class\n1,x\n2,y\n", {"categorical": ["b"]}, "not features"),
        ("a,class\n1,x\n2,y\n", {"format": "xlsx"}, "format must be one of"),
    ],
)
def test_reader_errors(tmp_path, text, kwargs, message):
    p = _csv(tmp_path, text)
    with pytest.raises(ValueError, match=message):
        read_dataset(p, **kwargs)


def test_corrupt_binary_files(tmp_path):
    gz = tmp_path / "d.csv.gz"
    gz.write_bytes(b"not gzip at all")
    with pytest.raises(ValueError, match="not a valid gzip"):
        read_dataset(gz)
    pq = tmp_path / "d.parquet"
    pq.write_bytes(b"PAR1 garbage")
    with pytest.raises(ValueError, match="Parquet"):
        read_dataset(pq)
    with pytest.raises(ValueError, match="name must be a string"):
        load_dataset(["hepatitis"])


def test_unknown_extension(tmp_path):
    p = _csv(tmp_path, "a,class\n1,x\n2,y\n", name="d.xlsx")
    with pytest.raises(ValueError, match="cannot tell the format"):
        read_dataset(p)
    assert read_dataset(p, format="csv").n_instances == 2


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("@attribute a numeric\n@attribute class {x,y}\n@data\nabc,x\n", "line 4.*not a number"),
        ("@attribute a numeric\n@attribute class {x,y}\n@data\n1,x,3\n", "line 4: 3 values"),
        ("@attribute a numeric\n@attribute class {x,y}\n", "no @data"),
        ("@attribute a blob\n@data\n", "unknown type"),
        ("@attribute a numeric\n@attribute class {x,y}\n@data\n'1,x\n", "unterminated"),
        ("@attribute a numeric\n@attribute a numeric\n@data\n", "more than once"),
    ],
)
def test_arff_errors(tmp_path, body, message):
    p = tmp_path / "bad.arff"
    p.write_text(body)
    with pytest.raises(ValueError, match=message):
        read_dataset(p)


# --------------------------------------------------------------------------- OpenML


@pytest.mark.skipif(importlib.util.find_spec("openml") is not None, reason="openml installed")
def test_openml_not_installed_names_the_extra():
    with pytest.raises(ImportError, match=r"metaeval\[openml\]"):
        load_openml(37)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _fake_openml(server: str, dataset=None):
    calls = []

    def get_dataset(data_id, **kw):
        calls.append(data_id)
        if dataset is None:
            raise AssertionError("must not be called offline")
        return dataset

    mod = types.ModuleType("openml")
    mod.config = types.SimpleNamespace(server=server, connection_n_retries=5)
    mod.datasets = types.SimpleNamespace(get_dataset=get_dataset)
    return mod, calls


def test_openml_offline_fails_fast(monkeypatch):
    fake, calls = _fake_openml(f"http://127.0.0.1:{_closed_port()}/api/v1/xml")
    monkeypatch.setitem(sys.modules, "openml", fake)
    with pytest.raises(ConnectionError, match="cannot be reached"):
        load_openml(37, timeout=2.0)
    assert calls == []  # nothing was requested from OpenML


def test_openml_conversion_with_fake_server(monkeypatch):
    frame = pd.DataFrame(
        {
            "plas": [148.0, 85.0, 183.0, 89.0],
            "kind": pd.Categorical(["a", "b", None, "a"]),
            "class": pd.Categorical(["tested_positive", "tested_negative"] * 2),
        }
    )

    class FakeDataset:
        name = "fake-diabetes"
        version = 1
        default_target_attribute = "class"
        ignore_attribute = None
        row_id_attribute = None

        def get_data(self, target=None):
            return frame.copy(), None, [False, True, True], list(frame.columns)

    fake, calls = _fake_openml("https://example.invalid", FakeDataset())
    monkeypatch.setitem(sys.modules, "openml", fake)
    monkeypatch.setattr(openml_mod, "_probe", lambda url, timeout: None)
    ds = load_openml(37)
    assert calls == [37] and fake.config.connection_n_retries == 1
    assert ds.name == "fake-diabetes" and ds.categorical == ("kind",)
    assert ds.X["kind"].tolist()[:2] == ["a", "b"] and pd.isna(ds.X["kind"].iloc[2])
    assert ds.X["plas"].dtype == np.float64
    # tie 2/2: 'tested_positive' sorts last -> class 1
    assert ds.y.tolist() == [1, 0, 1, 0] and "OpenML dataset 37" in ds.source


def test_openml_bad_arguments(monkeypatch):
    with pytest.raises(ValueError, match="data_id"):
        load_openml(-3)
    fake, _ = _fake_openml("https://example.invalid")
    monkeypatch.setitem(sys.modules, "openml", fake)
    with pytest.raises(ValueError, match="timeout"):
        load_openml(37, timeout=0)


# ------------------------------------------------------------------ data that cannot lie
def test_duplicated_column_names_are_an_error_naming_them(tmp_path):
    # the first `class` would be the target and the second a feature (`class.1`) that
    # gives the label away
    p = _csv(tmp_path, "a,class,c,class\n1,x,2,x\n2,y,3,y\n3,x,1,x\n4,y,0,y\n")
    with pytest.raises(ValueError, match=r"duplicated column names: 'class' \(columns 2, 4\)"):
        read_dataset(p)
    p = _csv(tmp_path, "a,b,a,class\n1,2,3,x\n2,3,4,y\n3,1,0,x\n4,0,1,y\n")
    with pytest.raises(ValueError, match=r"'a' \(columns 1, 3\)"):
        read_dataset(p)
    import pyarrow as pa
    import pyarrow.parquet

    pq = tmp_path / "dup.parquet"
    pyarrow.parquet.write_table(pa.Table.from_arrays(
        [pa.array([1, 2]), pa.array(["x", "y"]), pa.array([2, 3])], names=["a", "class", "a"]),
        pq)
    with pytest.raises(ValueError, match="duplicated column names|not a readable Parquet"):
        read_dataset(pq)


def test_a_feature_that_copies_the_target_is_an_error(tmp_path):
    p = _csv(tmp_path, "a,leak,class\n1,p,x\n2,q,y\n3,p,x\n4,q,y\n5,p,x\n")
    with pytest.raises(ValueError, match="feature 'leak' is a copy of target column 'class'"):
        read_dataset(p)
    # recoded as numbers, it is still a copy
    p = _csv(tmp_path, "a,code,class\n1,0,x\n2,1,y\n3,0,x\n4,1,y\n")
    with pytest.raises(ValueError, match="'code' is a copy"):
        read_dataset(p)
    # one row of class 1 that differs is not enough to tell
    ok = read_dataset(_csv(tmp_path, "a,b,class\n1,0,x\n2,1,y\n3,1,x\n4,1,y\n"))
    assert ok.n_features == 2


def test_the_study_refuses_infinite_cells_and_a_one_row_class_naming_file_column_row(
        tmp_path):
    from metaeval.study import Study

    (tmp_path / "inf.csv").write_text("a,b,class\n1,2,x\n2,inf,y\n3,3,x\n4,1,y\n")
    (tmp_path / "one.csv").write_text("a,b,class\n1,2,x\n2,3,y\n3,3,x\n4,1,x\n")
    study = tmp_path / "s.toml"
    study.write_text('[[datasets]]\npath = "inf.csv"\n\n[[datasets]]\npath = "one.csv"\n')
    with pytest.raises(ValueError) as info:
        Study.from_toml(study)
    message = str(info.value)
    assert (f"line 2: datasets[0].path: the file '{tmp_path / 'inf.csv'}': column 'b' holds "
            "an infinite value (inf) in row 2") in message
    assert (f"line 5: datasets[1].path: the file '{tmp_path / 'one.csv'}': class 'y' of target "
            "column 'class' has 1 row (row 2)") in message
    # a Dataset made in Python is checked the same way
    data = Dataset("mine", pd.DataFrame({"x": [1.0, np.inf, 2.0, 3.0]}),
                   np.array([0, 1, 0, 1]))
    with pytest.raises(ValueError, match="dataset 'mine': column 'x' holds an infinite value"):
        Study(datasets=[data])


def test_the_datasets_readme_table_is_generated_from_the_data():
    from metaeval.datasets._table import README_PATH, datasets_table, render_readme

    text = README_PATH.read_text(encoding="utf-8")
    assert render_readme(text) == text, (
        "the table is out of date: run `python -m metaeval.datasets._table --write`")
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ")
            for line in datasets_table().splitlines()[2:]}
    assert len(rows) == 51
    # single rounding from the exact counts: 42/731 = 0.05746 -> 0.057 (not 0.0575 -> 0.058),
    # 403/830 = 0.48554 -> 0.486, 329/2308 = 0.14255 -> 0.143
    assert rows["abalone9-18"][2:7] == ["731", "8", "1", "0", "0.057"]
    assert rows["mammographic"][6] == "0.486"
    assert rows["segment0"][6] == "0.143"
    assert int(load_dataset("abalone9-18").y.sum()) == 42
