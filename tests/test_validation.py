"""Shared input validation: the numeric fast path agrees with the exact path."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval._validation import check_binary_target


def _outcome(y, pos_label, require_both):
    try:
        return check_binary_target(y, pos_label=pos_label, require_both=require_both)
    except ValueError as exc:
        return type(exc)


@settings(max_examples=200, deadline=None)
@given(
    y=st.lists(st.integers(-1, 2), min_size=1, max_size=30),
    pos_label=st.integers(-1, 3),
    require_both=st.booleans(),
)
def test_numeric_labels_behave_like_the_same_labels_as_strings(y, pos_label, require_both):
    # string labels never take the numeric fast path, so they are the reference
    as_int = _outcome(np.array(y), pos_label, require_both)
    as_str = _outcome(np.array([str(v) for v in y]), str(pos_label), require_both)
    if isinstance(as_str, type):
        assert as_int is as_str
    else:
        np.testing.assert_array_equal(as_int, as_str)
        np.testing.assert_array_equal(as_int, (np.array(y) == pos_label).astype(np.int8))


@pytest.mark.parametrize("y, pos_label, message", [
    ([0, 1, 2], 1, "3 distinct labels"),
    ([0, 2, 2], 1, "pos_label=1 is not one of the labels"),
    ([1.0, np.nan], 1, "NaN or infinite"),
    ([[0, 1]], 1, "1-dimensional"),
    ([], 1, "empty"),
])
def test_bad_labels_name_the_problem(y, pos_label, message):
    with pytest.raises(ValueError, match=message):
        check_binary_target(np.array(y), pos_label=pos_label)


def test_require_both_names_the_single_class():
    with pytest.raises(ValueError, match="Only one class is present in y"):
        check_binary_target(np.array([1, 1, 1]), require_both=True)


def test_json_text_writes_records_one_a_line_whatever_their_strings_hold():
    """The compact records, written in one call and cut between records, are the lines
    a record at a time gives: also where a string holds the cut ``},{``, a record holds
    a list of dicts, or the rows are not dicts (then written a record at a time)."""
    import json

    from metaeval._validation import json_text

    def one_at_a_time(rows):
        lines = ",\n  ".join(json.dumps(r, separators=(",", ":")) for r in rows)
        return f"[\n  {lines}\n ]"

    for rows in ([{"a": 1, "b": "x"}, {"a": None, "b": 2.5}], [{"s": "p},{q"}, {"s": "r"}],
                 [{"l": [{"x": 1}, {"y": 2}]}, {"l": []}], [1, [2, 3]], [{}, {}]):
        text = json_text({"head": 1, "curves": rows})
        assert one_at_a_time(rows) in text
        assert json.loads(text) == {"head": 1, "curves": rows}
        assert text.count("\n  ") == len(rows)  # one record a line


def test_json_text_writes_a_frame_as_its_records_to_the_byte():
    """A frame under a compact key is written as the records json_records makes of it,
    byte for byte: numbers of every size, NaN and infinities (null), signed zeros,
    booleans, None, strings holding commas, quotes, '},{', '%' and non-ASCII letters, an
    object column mixing them (1 and True, 0.0 and -0.0 kept apart), no rows, and
    column names that are not strings."""
    import pandas as pd

    from metaeval._validation import json_records, json_text

    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame({
        "repetition": rng.integers(1, 3, n),
        "da%s,ta": rng.choice(["a,b", 'q"x', "},{", "\u00e9\u20ac", "plain", "%s", "50%"], n),
        "algorithm": pd.Series(rng.choice(["x", None, "y"], n), dtype=object),
        "elapsed": np.where(rng.random(n) < .1, np.nan,
                            rng.normal(size=n) * 10.0 ** rng.integers(-12, 12, n)),
        "loss": np.where(rng.random(n) < .05, np.inf,
                         np.where(rng.random(n) < .05, -0.0, rng.random(n))),
        "flag": rng.random(n) < .5,
        "mixed": pd.Series([1, True, "s", None, 2.5, -0.0, float("nan"), 0.0] * (n // 8),
                           dtype=object),
    })
    for f in (frame, frame.iloc[:0], frame.set_axis([*frame.columns[:-1], 7], axis=1)):
        assert (json_text({"a": 1, "curves": f, "b": [2]})
                == json_text({"a": 1, "curves": json_records(f), "b": [2]}))
