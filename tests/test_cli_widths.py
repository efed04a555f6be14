"""Every table and line the command line prints fits ``COLUMNS``, and loses nothing.

Each command is run three times in this process: wide (``COLUMNS=1000``, nothing to
wrap), then at 80 and 60 columns. The narrow outputs must have no line longer than
``COLUMNS`` (but a word longer than that, alone on its line) and hold every number of
the wide output (as many times): wrapped or split into groups of columns, never cut,
truncated with an ellipsis or rounded.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.cli._tables import fit_table

runner = CliRunner()

#: a number standing on its own: not a digit inside a word (a checksum, ``3NN``)
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w.])")

#: the toy ASlib scenario of two algorithms on four instances (as in test_aslib)
SCENARIO = {
    "description.txt": "scenario_id: TOY\nperformance_measures:\n- accuracy\n- runtime\n"
    "maximize:\n- true\n- false\nperformance_type:\n- solution_quality\n- runtime\n"
    "algorithm_cutoff_time: 100\nalgorithm_cutoff_memory: '?'\nmetainfo_algorithms:\n"
    "  A:\n    configuration: ''\n    deterministic: true\n  B:\n    configuration: ''\n"
    "    deterministic: true\ndefault_steps:\n- basic\nfeature_steps:\n  basic:\n"
    "    provides:\n    - f1\n",
    "algorithm_runs.arff": "@RELATION runs\n@ATTRIBUTE instance_id STRING\n"
    "@ATTRIBUTE repetition NUMERIC\n@ATTRIBUTE algorithm STRING\n"
    "@ATTRIBUTE accuracy NUMERIC\n@ATTRIBUTE runtime NUMERIC\n"
    "@ATTRIBUTE runstatus {ok, timeout, memout, not_applicable, crash, other}\n@DATA\n"
    "i1,1,A,0.9,1.0,ok\ni1,1,B,0.8,2.0,ok\ni2,1,A,0.6,3.0,ok\ni2,1,B,0.7,4.0,ok\n"
    "i3,1,A,0.5,5.0,ok\ni3,1,B,0.9,6.0,ok\ni4,1,A,0.8,7.0,ok\ni4,1,B,0.6,8.0,ok\n",
    "feature_values.arff": "@RELATION features\n@ATTRIBUTE instance_id STRING\n"
    "@ATTRIBUTE repetition NUMERIC\n@ATTRIBUTE f1 NUMERIC\n@DATA\n"
    "i1,1,1.0\ni2,1,2.0\ni3,1,3.0\ni4,1,4.0\n",
    "feature_runstatus.arff": "@RELATION status\n@ATTRIBUTE instance_id STRING\n"
    "@ATTRIBUTE repetition NUMERIC\n"
    "@ATTRIBUTE basic {ok, timeout, memout, presolved, crash, other, unknown}\n@DATA\n"
    "i1,1,ok\ni2,1,ok\ni3,1,ok\ni4,1,ok\n",
    "cv.arff": "@RELATION cv\n@ATTRIBUTE instance_id STRING\n@ATTRIBUTE repetition NUMERIC\n"
    "@ATTRIBUTE fold NUMERIC\n@DATA\ni1,1,1\ni2,1,1\ni3,1,2\ni4,1,2\n",
}

#: every command that prints a table (or long lines), with ``{store}``, ``{csv}`` and
#: ``{aslib}`` to fill in; ``recommend`` reads the shipped knowledge base
COMMANDS = {
    "status": ["status", "--store", "{store}"],
    "status, failed tasks": ["status", "--store", "{failed}"],
    "check": ["check", "--store", "{store}"],
    "hardness": ["hardness", "--store", "{store}"],
    "hardness --instances": ["hardness", "--store", "{store}", "--instances", "labor"],
    "rank": ["rank", "--store", "{store}", "--draws", "20"],
    "rank --by-family": ["rank", "--store", "{store}", "--draws", "20", "--method", "a3r",
                         "--by-family", "best"],
    "benchmark": ["benchmark", "--store", "{store}"],
    "benchmark --by-family": ["benchmark", "--store", "{store}", "--by-family", "best"],
    "datasets list": ["datasets", "list"],
    "datasets show": ["datasets", "show", "labor"],
    "algorithms": ["algorithms"],
    "knowledge show": ["knowledge", "show"],
    "plot --list": ["plot", "--list"],
    "recommend": ["recommend", "{csv}", "--strategy", "average-ranking"],
    "recommend --evaluate": ["recommend", "--evaluate", "--store", "{store}", "--strategy",
                             "single-best"],
    "recommend --evaluate --aslib": ["recommend", "--evaluate", "--aslib", "{aslib}",
                                     "--strategy", "single-best"],
}


@pytest.fixture(scope="module")
def inputs(cli_store, tmp_path_factory):
    from metaeval.datasets import load_dataset

    where = tmp_path_factory.mktemp("widths")
    data = load_dataset("haberman")
    csv = where / "haberman.csv"
    data.X.assign(**{"class": data.y}).to_csv(csv, index=False)
    aslib = where / "toy"
    aslib.mkdir()
    for name, text in SCENARIO.items():
        (aslib / name).write_text(text)
    return {"store": cli_store, "csv": csv, "aslib": aslib, "failed": _failed(where)}


def _failed(where):
    """A store of three failed tasks, their errors long (as in test_cli)."""
    from metaeval.store import Store

    store = Store(where / "failed.duckdb")
    with store.writing():
        store.sync_study({"folds": 3, "seed": 0}, datasets=[
            {"name": "toy", "sha256": "0" * 64, "n_instances": 4, "n_features": 1,
             "positive_fraction": 0.5, "family": "toy", "source": "test"}],
            algorithms=[{"name": a, "estimator": "m.A", "params": "{}",
                         "score_method": "predict_proba", "versions": "{}"}
                        for a in ("A", "B", "C")],
            tasks=[("toy", "A", 0), ("toy", "B", 0), ("toy", "C", 0)])
        store.record_task("toy", "A", 0, status="failed",
                          error="worker process died (killed by signal 9) while running "
                          "the task.")
        store.record_task("toy", "B", 0, status="failed",
                          error="ValueError in fit (fold 0 of 3): the estimator refused "
                          "12 rows of 4 features with 2 classes")
        store.record_task("toy", "C", 0, status="failed",
                          error="time limit of 5 s exceeded (5.1 s elapsed; worker process "
                          "killed).")
    return store.path


def _run(args, columns):
    result = runner.invoke(app, args, env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return result


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_fits_80_and_60_columns_and_loses_no_number(name, inputs):
    args = [a.format(**{k: str(v) for k, v in inputs.items()}) for a in COMMANDS[name]]
    wide = _run(args, 1000)
    numbers = Counter(NUMBER.findall(wide.stdout))
    assert numbers  # something to lose
    for columns in (80, 60):
        narrow = _run(args, columns)
        lines = narrow.output.splitlines()
        # (but for a word longer than the width on a line of its own: a long temporary
        # path, never cut)
        over = [line for line in lines if len(line) > columns and " " in line.strip()]
        assert not over, f"{len(over)} line(s) over {columns} columns:\n" + "\n".join(over)
        assert "…" not in narrow.output
        lost = numbers - Counter(NUMBER.findall(narrow.stdout))
        assert not lost, f"at {columns} columns, lost {dict(lost)}:\n{narrow.stdout}"


def test_a_stage_line_on_standard_error_fits_columns(monkeypatch, capsys):
    from metaeval.cli._app import stage

    monkeypatch.setenv("COLUMNS", "40")
    text = "Choosing a strategy (describing haberman if it needs to) and ranking"
    with stage(text):
        pass
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) > 1 and max(map(len, lines)) <= 40
    assert " ".join(lines).startswith(f"{text}: done in ")


# ----------------------------------------------------------------- the table itself
def test_a_table_that_fits_is_drawn_as_it_is():
    columns = [("rank", "right"), ("algorithm", "left"), ("score", "right")]
    rows = [["1", "NB", "0.91"], ["2", "rf:trees=100", "0.875"]]
    assert fit_table("T", columns, rows, width=80) == [
        "T",
        "┏━━━━━━┳━━━━━━━━━━━━━━┳━━━━━━━┓",
        "┃ rank ┃ algorithm    ┃ score ┃",
        "┡━━━━━━╇━━━━━━━━━━━━━━╇━━━━━━━┩",
        "│    1 │ NB           │  0.91 │",
        "│    2 │ rf:trees=100 │ 0.875 │",
        "└──────┴──────────────┴───────┘",
    ]


def test_cells_wrap_at_their_spaces_the_widest_column_first():
    columns = [("name", "left"), ("interval", "left")]
    rows = [["a", "0.1234 [0.1000, 0.2000]"]]
    lines = fit_table("", columns, rows, width=24)
    assert lines == [
        "┏━━━━━━┳━━━━━━━━━━━━━━━┓",
        "┃ name ┃ interval      ┃",
        "┡━━━━━━╇━━━━━━━━━━━━━━━┩",
        "│ a    │ 0.1234        │",
        "│      │ [0.1000,      │",
        "│      │ 0.2000]       │",
        "└──────┴───────────────┘",
    ]


def test_too_many_columns_are_split_into_groups_that_repeat_the_keys():
    columns = [("rank", "right"), ("algorithm", "left")] + [(f"m{i}", "right")
                                                            for i in range(6)]
    rows = [["1", "NB", *(f"0.{i}00{i}" for i in range(6))],
            ["2", "DT", *(f"0.{i}11{i}" for i in range(6))]]
    lines = fit_table("T", columns, rows, width=48, keys=2)
    assert max(map(len, lines)) <= 48
    heads = [line for line in lines if line.startswith("┃")]
    assert len(heads) == 2  # two tables
    assert all(h.split("┃")[1:3] == [" rank ", " algorithm "] for h in heads)
    body = "\n".join(lines)
    for row in rows:
        for cell in row[2:]:
            assert body.count(cell) == 1
    # the groups keep the columns in order
    assert [m for h in heads for m in re.findall(r"m\d", h)] == [f"m{i}" for i in range(6)]


def test_a_word_longer_than_any_column_can_be_is_folded_only_then():
    checksum = "6124c53de314c4dfbfee4f949d944c3e9d3cf3878c495e8d33fac7a0b96ffb84"
    rows = [["sha256", checksum], ["family", "labor"]]
    at_80 = fit_table("labor", [("", "left"), ("", "left")], rows, width=80)
    assert any(checksum in line for line in at_80)  # whole when it can be
    at_40 = fit_table("labor", [("", "left"), ("", "left")], rows, width=40)
    assert max(map(len, at_40)) <= 40
    pieces = [line.split("│")[2].strip() for line in at_40 if line.startswith("│")]
    assert "".join(pieces[:-1]) == checksum


WORD = st.one_of(st.from_regex(r"[a-z]{1,9}", fullmatch=True),
                 st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: f"{v:.4g}"))
CELL = st.lists(WORD, min_size=1, max_size=4).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 9).flatmap(lambda n: st.tuples(
    st.lists(st.from_regex(r"[a-z]{1,8}( [a-z]{1,8})?", fullmatch=True), min_size=n,
             max_size=n),
    st.lists(st.lists(CELL, min_size=n, max_size=n), max_size=5))),
    st.integers(60, 160), st.integers(0, 2))
def test_any_table_fits_its_width_and_keeps_every_word_whole(table, width, keys):
    # (a word is at most 10 characters: the keys and any one column fit 60 unfolded)
    heads, rows = table
    columns = [(h, "left") for h in heads]
    lines = fit_table("a title that is long enough to need wrapping at some widths",
                      columns, rows, width=width, keys=keys)
    assert max(map(len, lines)) <= width
    drawn = Counter(re.findall(r"\S+", "\n".join(lines)))
    given_words = Counter(w for row in rows for cell in row for w in cell.split(" "))
    assert not given_words - drawn, lines
