"""The knowledge-base suite ``kb``: the 51 tasks of ``full`` plus 21 more, all offline."""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
from importlib import resources

import numpy as np
import pandas as pd
import pytest

from metaeval.datasets import _builtin, list_datasets, load_dataset, manifest
from metaeval.datasets._base import check_values

DATA = resources.files("metaeval.datasets").joinpath("data")


def _read(file):
    text = DATA.joinpath(file).read_text(encoding="utf-8")
    return pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)


FULL = _read("manifest.csv")
KB = _read("manifest_kb.csv")


def test_suites_nest_and_the_papers_suites_do_not_move():
    quick, full, kb = list_datasets("quick"), list_datasets("full"), list_datasets("kb")
    assert full == FULL["name"].tolist() and len(full) == 51 and len(quick) == 15
    assert kb == full + KB["name"].tolist()  # full first, in its order, then the additions
    assert len(set(kb)) == len(kb)
    assert (KB["subset"] == "kb").all()
    assert manifest()["name"].tolist() == full
    assert manifest("quick")["name"].tolist() == quick
    m = manifest("kb")
    assert m["name"].tolist() == kb and m.index.tolist() == list(range(len(kb)))
    with pytest.raises(ValueError, match="subset"):
        manifest("wide")


def test_kb_targets_counted_from_the_data_files():
    # counted from the two manifest files and the gzip bodies, not from manifest()
    both = pd.concat([FULL, KB], ignore_index=True)
    rows = {}
    for file in both["file"]:
        with gzip.open(io.BytesIO(DATA.joinpath(file).read_bytes()), "rt") as f:
            rows[file] = sum(1 for _ in f) - 1
    assert [rows[f] for f in both["file"]] == both["n_rows"].astype(int).tolist()
    assert len(both) >= 70
    assert both["family"].nunique() >= 60
    assert sum(n >= 5000 for n in rows.values()) >= 12


def test_kb_adds_no_base_data_already_in_full():
    # a task cut from a base dataset of ``full`` would belong to that family
    assert not set(KB["family"]) & set(FULL["family"])
    assert not set(KB["sha256_csv"]) & set(FULL["sha256_csv"])
    assert KB["sha256"].is_unique and KB["family"].str.len().gt(0).all()


def test_every_kb_file_matches_its_manifest_row():
    added = 0
    for row in KB.itertuples(index=False):
        raw = DATA.joinpath(row.file).read_bytes()
        assert hashlib.sha256(raw).hexdigest() == row.sha256, row.name
        assert len(raw) == int(row.bytes_gz)
        text = gzip.decompress(raw)
        assert hashlib.sha256(text).hexdigest() == row.sha256_csv, row.name
        header = next(csv.reader(io.StringIO(text[:text.index(b"\n")].decode())))
        assert header[-1] == "class" and len(header) == int(row.n_features) + 1
        for column in ("origin", "url", "citation", "source", "source_file", "license_note"):
            assert getattr(row, column), (row.name, column)
        added += len(raw)
    assert added < 10e6  # the package data stay modest


@pytest.mark.parametrize("name", KB["name"].tolist())
def test_kb_dataset_loads_as_a_binary_task(name):
    row = KB.set_index("name").loc[name]
    ds = load_dataset(name)
    assert ds.X.shape == (int(row["n_rows"]), int(row["n_features"]))
    assert ds.y.dtype == np.int8 and set(np.unique(ds.y)) == {0, 1}
    assert int(ds.y.sum()) == int(row["n_positive"]) <= ds.n_instances / 2  # class 1 = minority
    assert int(ds.X.isna().to_numpy().sum()) == int(row["n_missing"])
    cats = [c for c in row["categorical_columns"].split("|") if c]
    assert list(ds.categorical) == [c for c in ds.X.columns if c in cats]
    assert all(ds.X[c].dtype == np.float64 for c in ds.numeric)
    assert ds.family == row["family"] and ds.sha256 == row["sha256"]
    assert ds.class_names == (row["negative_class"], row["positive_class"])
    assert min(int(ds.y.sum()), int((1 - ds.y).sum())) >= 5  # 5 folds
    if ds.X.size <= 100_000:  # the build script checks the large ones (3 s for sylva alone)
        check_values(ds.X, ds.y, source=name)  # no infinite value, no copy of the target


def test_a_damaged_kb_file_is_refused(tmp_path):
    for file in ("manifest.csv", "manifest_kb.csv"):
        (tmp_path / file).write_bytes(DATA.joinpath(file).read_bytes())
    name = "tae-high"
    raw = bytearray(DATA.joinpath(f"{name}.csv.gz").read_bytes())
    (tmp_path / f"{name}.csv.gz").write_bytes(bytes(raw))
    assert _builtin._load_builtin(name, str(tmp_path)).n_instances == 151
    raw[-9] ^= 1
    (tmp_path / f"{name}.csv.gz").write_bytes(bytes(raw))
    _builtin._load_builtin.cache_clear()
    with pytest.raises(ValueError, match="SHA-256 mismatch"):
        _builtin._load_builtin(name, str(tmp_path))


def test_manifests_that_name_a_dataset_twice_are_refused(tmp_path):
    (tmp_path / "manifest.csv").write_bytes(DATA.joinpath("manifest.csv").read_bytes())
    head = FULL.iloc[:1].copy()
    head["subset"] = "kb"
    head.to_csv(tmp_path / "manifest_kb.csv", index=False)
    with pytest.raises(ValueError, match="twice.*hepatitis"):
        _builtin._manifest(str(tmp_path))


def test_without_the_kb_manifest_the_papers_suites_still_load(tmp_path):
    (tmp_path / "manifest.csv").write_bytes(DATA.joinpath("manifest.csv").read_bytes())
    assert _builtin._names("full", str(tmp_path)) == FULL["name"].tolist()
    with pytest.raises(ValueError, match="manifest_kb.csv"):  # never the 51 under kb's name
        _builtin._names("kb", str(tmp_path))


def test_the_package_docstring_counts_the_suites():
    import metaeval.datasets as package

    doc = " ".join(package.__doc__.split())
    kb = manifest("kb")
    assert f"the {len(list_datasets('full'))} tasks" in doc
    assert f"({len(list_datasets('quick'))} of them in ``quick``)" in doc
    assert f"{len(kb)} tasks in {kb['family'].nunique()} families" in doc


def test_the_data_readme_lists_every_kb_dataset():
    text = DATA.joinpath("README.md").read_text(encoding="utf-8")
    table = text.split("<!-- end of the kb table -->")[0].split("do not edit it by hand. -->")[-1]
    names = [line.split("|")[1].strip() for line in table.strip().splitlines()[2:]]
    assert names == KB["name"].tolist()


def test_a_study_and_the_command_line_know_the_kb_suite(tmp_path):
    from typer.testing import CliRunner

    from metaeval.cli import app
    from metaeval.study import Study

    study = Study(datasets="kb", algorithms=["NB"], store=tmp_path / "s.duckdb")
    assert list(study.datasets) == list_datasets("kb")
    # a kb dataset by name, beyond the papers' suite
    assert list(Study(datasets=["sylva"], algorithms=["NB"],
                      store=tmp_path / "t.duckdb").datasets) == ["sylva"]
    shown = CliRunner().invoke(app, ["datasets", "show", "titanic"])
    assert shown.exit_code == 0, shown.output
    assert "titanic" in shown.output and "2201" in shown.output
    listed = CliRunner().invoke(app, ["datasets", "list", "--subset", "kb"])
    assert listed.exit_code == 0, listed.output
    assert "(kb: 72)" in listed.output
