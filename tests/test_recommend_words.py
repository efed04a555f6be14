"""Words that match the output: an order the same for every dataset says so and why; data
outside the knowledge base's range says which; expected success says what it is."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.datasets import load_dataset
from metaeval.recommend import KnowledgeBase, load_knowledge, recommend

runner = CliRunner()


def _frame(n_rows):
    ds = load_dataset("labor")
    frame = ds.X.assign(**{"class": ds.y})
    return frame.iloc[:n_rows] if n_rows <= len(frame) else frame.sample(
        n_rows, replace=True, random_state=0)


@pytest.fixture(scope="module")
def archive():
    return load_knowledge()


def test_a_static_order_says_it_is_the_same_for_every_dataset(archive):
    rec = recommend(_frame(57), archive, strategy="single-best")
    assert ("this order is the same for every dataset: single-best ranks from the past "
            "results only, without reading the new data") in rec.notes
    # auto keeping the single best says why
    kb = KnowledgeBase(["d1", "d2", "d3", "d4"], ["A", "B"],
                       [[.9, .8], [.9, .7], [.8, .9], [.9, .8]], [[1.0, 2.0]] * 4)
    rec = recommend(load_dataset("labor"), kb)  # no meta-features: every candidate static
    why = (f"{rec.selection['strategy']} ranks from the past results only, without "
           "reading the new data, and auto chose it (see the note on auto's choice)")
    assert any(n.startswith(f"this order is the same for every dataset: {why}")
               for n in rec.notes), rec.notes


def test_data_outside_the_knowledge_base_range_is_said(archive):
    low, high = int(archive.n_instances.min()), int(archive.n_instances.max())
    small = recommend(_frame(30), archive, strategy="single-best")
    assert any(f"rows 30, outside the knowledge base's range ({low} to {high})" in n
               for n in small.notes), small.notes
    inside = recommend(_frame(low), archive, strategy="single-best")
    assert not any("outside the knowledge base's range" in n for n in inside.notes)
    # 3 rows of one class in 600: a minority share below every past dataset's (the
    # lowest, 0.0077, by hand from the class counts)
    counts = np.asarray(archive.provenance["class_counts"], dtype=np.float64)
    assert 3 / 600 < (counts.min(axis=1) / counts.sum(axis=1)).min()
    frame = _frame(600)
    frame["class"] = ["good"] * 597 + ["bad"] * 3
    rec = recommend(frame, archive, strategy="single-best")
    assert any("minority-class share 0.005, outside the knowledge base's range" in n
               for n in rec.notes), rec.notes


def test_expected_success_says_what_it_is(tmp_path, archive):
    path = tmp_path / "labor.csv"
    _frame(57).to_csv(path, index=False)
    result = runner.invoke(app, ["recommend", str(path), "--strategy", "single-best"],
                           env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    rec = recommend(pd.read_csv(path), archive, strategy="single-best")
    sd = rec.table["success_sd"].iloc[0]
    success = archive.knowledge_base().success
    first = list(archive.algorithms).index(rec.table["algorithm"].iloc[0])
    assert abs(sd - success[:, first].std(ddof=1)) < 1e-12
    assert (f"expected success: the mean accuracy over the 72 past dataset(s) below (for "
            f"the first, {sd:.4f} standard deviation across them), not a prediction for "
            "this dataset.") in text
    assert ("expected cpu s: one 5-fold cross-validation (reading the data, then every "
            "fold's fit and prediction, one thread), predicted from this data's rows, "
            "columns, tree size and numeric share; --budget plans within a time budget.") in text
