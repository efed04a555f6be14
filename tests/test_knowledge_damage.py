"""A knowledge base file is validated in full before it is used.

Every array's shape against the counts the file declares, its values against their range,
names against columns, and the SHA-256 of its arrays against the checksum it carries: a
damaged file is refused with one line that names the file and the array, never read as
wrong numbers, never a traceback. The files checked are of format 2 with two repetitions
of the cross-validation (a leading repetition axis, quantised grid curves); a file of
format 1 (one repetition, no such axis) still loads.
"""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from metaeval.benchmark import SKLEARN_METRICS
from metaeval.cli import app
from metaeval.hardness import METHODS
from metaeval.recommend import GRID, Condition, KnowledgeArchive, load_knowledge
from metaeval.recommend.knowledge._archive import LINEAR_METHODS, mean_over_repetitions
from metaeval.recommend.knowledge._archive_file import (
    CHECKSUM,
    QUANTUM,
    array_checksum,
    read_members,
    write_members,
)

runner = CliRunner()
R, D, A, L, M = 2, 4, 3, 2, len(SKLEARN_METRICS)


def _archive(repetitions=R) -> KnowledgeArchive:
    """A small, valid archive: 4 datasets x 3 configurations, 2 landmarkers, two
    repetitions of the cross-validation (one with ``repetitions=1``)."""
    rng = np.random.default_rng(0)
    counts = np.array([[30, 10], [20, 20], [25, 15], [12, 28]])
    R = repetitions
    metrics = rng.uniform(0.2, 0.9, (R, D, A, M))
    grid = {m: (2 if m in LINEAR_METHODS else GRID.size) for m in METHODS}
    curves = {m: rng.uniform(0, 0.5, (R, D, A, g)) for m, g in grid.items()}
    times = {c: rng.uniform(0.1, 2.0, (R, D, A)) for c in ("cpu", "wall")}
    by_repetition = {"repeats": tuple(range(R)), "metrics": metrics, "curves": curves,
                     "times": times} if R > 1 else {}
    if R > 1:
        metrics, curves, times = mean_over_repetitions(metrics, curves, times)
    else:
        metrics, curves = metrics[0], {m: v[0] for m, v in curves.items()}
        times = {c: v[0] for c, v in times.items()}
    datasets = tuple(f"d{i}" for i in range(D))
    mf = pd.DataFrame(rng.normal(size=(D, 3)), index=list(datasets),
                      columns=["general.a", "general.b", "statistical.c"])
    columns = ["pymfe", "landmarker", "landmarker:NB", "pymfe:general"]
    desc = {c: pd.DataFrame(rng.uniform(0, 1, (D, 4)), index=list(datasets), columns=columns)
            for c in ("cpu", "wall")}
    return KnowledgeArchive(
        datasets, ("f0", "f0", "f1", "f2"), counts.sum(axis=1), ("A", "B", "C"),
        SKLEARN_METRICS, metrics, curves, times, mf, ("NB", "stump"),
        rng.uniform(0.3, 0.9, (D, L, M)),
        {m: rng.uniform(0, 0.5, (D, L, 2, g)) for m, g in grid.items()}, desc,
        {"class_counts": counts.tolist(), "landmark_class_counts": counts.tolist(),
         "grid": {"methods": ["score-driven", "rate-driven"], "points": int(GRID.size)}},
        by_repetition)


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    path = _archive().save(tmp_path_factory.mktemp("k") / "good.npz")
    return path, read_members(path, "good")


def _damaged(tmp_path, good, change, *, reseal=True):
    """A copy of the good file with ``change(arrays)`` applied; resealed (a valid checksum
    for the changed arrays, so that only the structure can refuse it) or not."""
    data = {k: v.copy() for k, v in good[1].items()}
    change(data)
    path = tmp_path / "k.npz"
    if reseal:
        write_members(path, data)
    else:
        np.savez_compressed(path, **data)
    return path


def _set(name, value):
    def change(data):
        data[name] = value
    return change


def _drop(name):
    def change(data):
        del data[name]
    return change


def _provenance(**edit):
    def change(data):
        p = json.loads(str(data["provenance"]))
        for k, v in edit.items():
            if v is None:
                p.pop(k)
            else:
                p[k] = v
        data["provenance"] = np.array(json.dumps(p))
    return change


CASES = {
    # the rate-driven curves on 101 points instead of 201: read at c = 0.6 for c = 0.3
    "half the grid points": (
        lambda d: d.__setitem__("curve:rate-driven", d["curve:rate-driven"][..., ::2]),
        "'curve:rate-driven' has shape (2, 4, 3, 101), expected (2, 4, 3, 201)"),
    "a metric column dropped": (
        lambda d: d.__setitem__("metrics", d["metrics"][..., 1:]),
        "'metrics' has shape (2, 4, 3, 9), expected (2, 4, 3, 10)"),
    "one repetition of the metrics": (
        lambda d: d.__setitem__("metrics", d["metrics"][:1]),
        "'metrics' has shape (1, 4, 3, 10), expected (2, 4, 3, 10) (2 repetitions x"),
    "no repetitions": (_drop("repetitions"), "no array 'repetitions'"),
    "a repeat named twice": (_set("repetitions", np.array([0, 0])),
                             "'repetitions' must name each repeat once"),
    "a negative repeat": (_set("repetitions", np.array([-1, 0])), "'repetitions' holds -1"),
    "grid curves as floats": (
        lambda d: d.__setitem__("curve:score-driven",
                                np.cumsum(d["curve:score-driven"], axis=-1) * QUANTUM),
        "'curve:score-driven' must hold int32 differences"),
    "a failed curve with values": (
        lambda d: d["curve:rate-driven"].__setitem__((1, 2, 0, 0), -1),
        "'curve:rate-driven' marks a failed task (-1) whose other differences are not 0"),
    "a grid curve above 2": (
        lambda d: d["curve:score-driven"].__setitem__((0, 1, 1, 5), 2**30 + 2**29),
        "above its greatest possible value 2"),
    "a grid curve below 0": (
        lambda d: d["curve:rate-driven"].__setitem__((1, 3, 2, 7), -2**28),
        "'curve:rate-driven' holds a curve value of -"),
    "negative CPU times": (
        lambda d: d.__setitem__("time:cpu", -d["time:cpu"]),
        "'time:cpu' holds -"),
    "an infinite wall time": (
        lambda d: d["time:wall"].__setitem__((1, 0, 0), np.inf), "'time:wall' holds infinite"),
    "an accuracy above 1": (
        lambda d: d["metrics"].__setitem__((1, 1, 1, 0), 1.5),
        "accuracy = 1.5, outside [0, 1]"),
    "a negative hardness": (
        lambda d: d["curve:score-fixed"].__setitem__((0, 0, 0, 0), -0.2),
        "'curve:score-fixed' holds -0.2"),
    "a missing landmark array": (_drop("landmark_curve:rate-driven"),
                                 "no array 'landmark_curve:rate-driven'"),
    "scalar datasets": (lambda d: d.__setitem__("datasets", np.array("d0")),
                        "'datasets' must be a 1-dimensional array of names"),
    "times one row short": (lambda d: d.__setitem__("time:cpu", d["time:cpu"][:, :-1]),
                            "'time:cpu' has shape (2, 3, 3), expected (2, 4, 3)"),
    "landmark metrics one row long": (
        lambda d: d.__setitem__("landmark_metrics", np.concatenate(
            [d["landmark_metrics"], d["landmark_metrics"][:1]])),
        "'landmark_metrics' has shape (5, 2, 10)"),
    "a linear curve with one point": (
        lambda d: d.__setitem__("curve:score-uniform", d["curve:score-uniform"][..., :1]),
        "'curve:score-uniform' has shape (2, 4, 3, 1), expected (2, 4, 3, 2)"),
    "provenance without landmark counts": (_provenance(landmark_class_counts=None),
                                           "lacks 'landmark_class_counts'"),
    "class counts that do not add up": (
        _provenance(class_counts=[[1, 1]] * D), "has class counts [1, 1] for 'd0'"),
    "a grid of other points": (_provenance(grid={"points": 101}), "on 201 points"),
    "names short of their columns": (
        lambda d: d.__setitem__("metafeature_names", d["metafeature_names"][:2]),
        "'metafeatures' has shape (4, 3), expected (4, 2)"),
    "an unknown metric name": (
        lambda d: d.__setitem__("metric_names", np.array(["accuracy", *SKLEARN_METRICS[1:-1],
                                                           "speed"])),
        "'metric_names' holds 'speed'"),
    "a duplicated dataset": (lambda d: d.__setitem__("datasets", np.array(["d0", "d1", "d0",
                                                                           "d3"])),
                             "names 'd0' twice"),
    "an object array": (lambda d: d.__setitem__("families", np.array(["a", "b", "c", "d"],
                                                                     dtype="S")),
                        "'families' must be a 1-dimensional array of names"),
    "an unexpected array": (_set("curve:rate_driven", np.zeros(3)),
                            "'curve:rate_driven' is not part of a knowledge base"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_damaged_file_is_refused_naming_the_file_and_the_array(good, tmp_path, case):
    change, message = CASES[case]
    path = _damaged(tmp_path, good, change)
    with pytest.raises(ValueError) as info:
        load_knowledge(path)
    text = str(info.value)
    assert str(path) in text and message in text, text
    assert "\n" not in text


def test_a_value_changed_within_its_range_is_caught_by_the_checksum(good, tmp_path):
    def change(d):
        d["metrics"][1, 0, 0, 0] = 0.5  # a plausible accuracy
    path = _damaged(tmp_path, good, change, reseal=False)
    with pytest.raises(ValueError, match="do not match its checksum"):
        load_knowledge(path)
    path = _damaged(tmp_path, good, _drop(CHECKSUM), reseal=False)
    with pytest.raises(ValueError, match="has no checksum"):
        load_knowledge(path)
    # the same arrays, written by NumPy instead: the checksum is over the arrays
    path = _damaged(tmp_path, good, lambda d: None, reseal=False)
    assert load_knowledge(path).shape == (D, A)


def test_a_bit_flip_in_a_compressed_member_is_one_line(good, tmp_path):
    raw = bytearray(good[0].read_bytes())
    with zipfile.ZipFile(good[0]) as zf:
        info = zf.getinfo("metrics.npy")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    seen = set()
    for offset in (start + info.compress_size // 2, start + 40, start + info.compress_size - 3):
        flipped = bytearray(raw)
        flipped[offset] ^= 0x10
        path = tmp_path / f"flip{offset}.npz"
        path.write_bytes(bytes(flipped))
        with pytest.raises(ValueError) as exc:
            load_knowledge(path)
        assert "array 'metrics'" in str(exc.value) and str(path) in str(exc.value)
        seen.add(str(exc.value).split("(")[-1][:12])
    assert seen


def test_the_shipped_file_carries_the_checksum_of_its_arrays():
    from importlib import resources

    ref = resources.files("metaeval.recommend").joinpath("data", "knowledge.npz")
    with resources.as_file(ref) as real:
        data = read_members(real, "shipped")
    assert str(data[CHECKSUM]) == array_checksum(data)
    assert str(data[CHECKSUM]).startswith("sha256:")


def test_save_gives_bytes_that_do_not_depend_on_the_clock(tmp_path):
    first = _archive().save(tmp_path / "a.npz").read_bytes()
    second = _archive().save(tmp_path / "b.npz").read_bytes()
    assert first == second
    assert load_knowledge(tmp_path / "a.npz").success(Condition("accuracy")).shape == (D, A)


def _format_1(archive, path):
    """``archive`` (one repetition) written as a file of format 1 was: no repetition
    axis, float32 grid curves, no ``repetitions``."""
    arrays = {k: v for k, v in read_members(archive.save(path), "x").items()
              if k not in (CHECKSUM, "repetitions")}
    arrays["format"] = np.array("metaeval-knowledge/1")
    arrays["metrics"] = np.asarray(archive.metrics, dtype=np.float64)
    for m, v in archive.curves.items():
        arrays[f"curve:{m}"] = v.astype(np.float32 if m not in LINEAR_METHODS else np.float64)
    for c, v in archive.times.items():
        arrays[f"time:{c}"] = v
    write_members(path, arrays)
    return path


def test_a_file_of_format_1_is_read_as_one_repetition(tmp_path):
    one = _archive(repetitions=1)
    path = _format_1(one, tmp_path / "v1.npz")
    assert str(read_members(path, "x")["format"]) == "metaeval-knowledge/1"
    back = load_knowledge(path)
    assert back.n_repetitions == 1 and back.by_repetition == {}
    np.testing.assert_array_equal(back.metrics, one.metrics)
    for m in METHODS:  # float32 grid curves: within float32's rounding
        np.testing.assert_allclose(back.curves[m], one.curves[m], rtol=1e-7, atol=0)
    kb = back.knowledge_base(Condition("auc"))
    assert kb.repetitions is None and kb.n_repetitions == 1
    # its checksum is still checked
    data = read_members(path, "x")
    data["metrics"] = data["metrics"].copy()
    data["metrics"][0, 0, 0] = 0.5
    np.savez_compressed(tmp_path / "changed.npz", **data)
    with pytest.raises(ValueError, match="do not match its checksum"):
        load_knowledge(tmp_path / "changed.npz")
    # and saved again it becomes format 2, one repetition
    again = load_knowledge(back.save(tmp_path / "v2.npz"))
    assert str(read_members(tmp_path / "v2.npz", "x")["format"]) == "metaeval-knowledge/2"
    assert again.n_repetitions == 1
    np.testing.assert_array_equal(again.metrics, one.metrics)


def test_two_repetitions_round_trip_within_the_quantum(tmp_path):
    archive = _archive()
    back = load_knowledge(archive.save(tmp_path / "k.npz"))
    assert back.n_repetitions == R and back.by_repetition["repeats"] == (0, 1)
    rep, got = archive.by_repetition, back.by_repetition
    np.testing.assert_array_equal(got["metrics"], rep["metrics"])
    for c in ("cpu", "wall"):
        np.testing.assert_array_equal(got["times"][c], rep["times"][c])
        np.testing.assert_array_equal(back.times[c], archive.times[c])
    for m in METHODS:
        # the grid curves rounded to the nearest multiple of 2**-28: half of it at most
        tol = 0 if m in LINEAR_METHODS else QUANTUM / 2
        np.testing.assert_allclose(got["curves"][m], rep["curves"][m], rtol=0, atol=tol)
    # the mean over the two repetitions is what the knowledge base learns from
    condition = Condition("hardness:score-driven", cost=0.3)
    per = back.repetition_success(condition)
    assert per.shape == (R, D, A)
    np.testing.assert_allclose(back.success(condition), per.mean(axis=0), atol=1e-15)
    kb = back.knowledge_base(condition)
    np.testing.assert_array_equal(kb.repetitions, per)
    np.testing.assert_allclose(kb.success, per.mean(axis=0), atol=1e-15)


def test_save_refuses_devices_and_directories_and_leaves_nothing(tmp_path):
    archive = _archive()
    for target in ("/dev/null", tmp_path):
        with pytest.raises(ValueError, match="--out: .*(character device|directory)"):
            archive.save(target, what="--out")
    assert [p.name for p in tmp_path.iterdir()] == []


def test_cli_refuses_damaged_files_and_wrong_paths_in_one_line(good, tmp_path):
    path = _damaged(tmp_path, good, CASES["negative CPU times"][0])
    for args in (["knowledge", "show", str(path)],
                 ["knowledge", "show", str(tmp_path)]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and str(tmp_path) in lines[0], result.output
    csv = tmp_path / "data.csv"
    csv.write_text("a,b\n1,2\n")
    result = runner.invoke(app, ["knowledge", "show", str(csv)])
    assert result.exit_code == 2 and "pickle" not in result.output
    assert "not a metaeval knowledge base" in result.output


def test_knowledge_show_is_text_that_names_both_kinds_of_family(good):
    result = runner.invoke(app, ["knowledge", "show", str(good[0])])
    assert result.exit_code == 0, result.output
    text = result.output
    assert "KnowledgeArchive(" not in text and "{" not in text
    # 4 datasets of 3 families (f0 twice), 3 configurations of 3 algorithm families
    assert "4 datasets in 3 dataset families (a family of datasets: the tasks cut" in text
    assert "3 configurations of 3 algorithm families (A, B, C)" in text
    assert "2 landmarkers (NB, stump)" in text


def test_a_build_does_not_depend_on_the_clock(tmp_path):
    """Two builds of one store give the same bytes: no build time in the arrays."""
    import datetime

    from tests.test_stops_workers import tiny_store

    from metaeval.recommend import build_knowledge

    store = tiny_store(tmp_path / "s.duckdb")
    first = build_knowledge(store, require_descriptions=False)
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    assert today not in json.dumps(first.provenance)
    a = first.save(tmp_path / "a.npz").read_bytes()
    b = build_knowledge(store, require_descriptions=False).save(tmp_path / "b.npz")
    assert a == b.read_bytes()
