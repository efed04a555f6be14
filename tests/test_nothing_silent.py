"""Nothing silently wrong: output paths, overflowing numbers, descriptions and the
commands that write files.

Every file metaeval writes is a regular file written through a temporary file that is
removed on failure; a device, a FIFO, a directory or a read-only directory is refused
with one line naming the option and the path.
"""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from metaeval._validation import (
    atomic_output,
    check_output_dir,
    check_output_file,
    write_atomic,
)


def _leftovers(directory):
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_output_file_refuses_devices_fifos_and_directories(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "null-link"
    link.symlink_to("/dev/null")
    for path, kind in [("/dev/null", "character device"), (fifo, "FIFO"),
                       (link, "character device"), (tmp_path, "directory")]:
        with pytest.raises(ValueError, match=f"--out: .*{kind}") as info:
            check_output_file(path, "--out")
        assert str(path) in str(info.value)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    # a regular file, a new file, and a new file in a folder still to be made are fine
    (tmp_path / "old.npz").write_bytes(b"x")
    for path in [tmp_path / "old.npz", tmp_path / "new.npz", tmp_path / "sub" / "new.npz"]:
        assert check_output_file(path, "--out") == path
    with pytest.raises(ValueError, match="not a directory"):
        check_output_file(tmp_path / "old.npz" / "inside.npz", "--out")


def test_output_dir_keeps_a_read_only_directory_and_refuses_files(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        with pytest.raises(ValueError, match="--aslib: the directory .*locked is read-only"):
            check_output_dir(locked, "--aslib")
        with pytest.raises(ValueError, match="read-only"):
            check_output_file(locked / "k.npz", "--out")
        assert stat.S_IMODE(locked.stat().st_mode) == 0o555
        assert list(locked.iterdir()) == []
    finally:
        locked.chmod(0o755)
    with pytest.raises(ValueError, match="character device, not a directory"):
        check_output_dir("/dev/null", "--aslib")
    (tmp_path / "f").write_text("x")
    with pytest.raises(ValueError, match="not a directory"):
        check_output_dir(tmp_path / "f", "--aslib")
    assert check_output_dir(tmp_path / "new", "--aslib") == tmp_path / "new"
    assert check_output_dir(locked, "--aslib") == locked


def test_atomic_output_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "k.npz"
    target.write_bytes(b"old")
    target.chmod(0o640)
    with pytest.raises(RuntimeError):
        with atomic_output(target, "--out") as fh:
            fh.write(b"half")
            raise RuntimeError("stopped")
    with pytest.raises(KeyboardInterrupt):
        with atomic_output(target, "--out") as fh:
            raise KeyboardInterrupt
    assert target.read_bytes() == b"old" and _leftovers(tmp_path) == []
    write_atomic(target, b"new", "--out")
    assert target.read_bytes() == b"new" and _leftovers(tmp_path) == []
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    write_atomic(tmp_path / "a" / "b.json", "{}", "--json", make_parents=True)
    assert (tmp_path / "a" / "b.json").read_text() == "{}"
    with pytest.raises(ValueError, match="directory"):
        write_atomic(tmp_path, b"x", "--out")
    assert _leftovers(tmp_path) == []


def test_knowledge_build_refuses_a_fifo_or_a_directory_before_building(tmp_path):
    from typer.testing import CliRunner

    from metaeval.cli import app

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for target in (fifo, tmp_path):
        result = CliRunner().invoke(app, ["knowledge", "build", "--store",
                                          str(tmp_path / "none.duckdb"), "--out", str(target)])
        assert result.exit_code == 2, result.output
        assert f"--out: {target} is" in result.output
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


# ------------------------------------------------------------------ overflowing numbers
@pytest.mark.parametrize("field, value", [("time_weight", "1e400"), ("time_weight", 10**400),
                                          ("cost_beta", "1e400,1"), ("time_budget", "1e400")])
def test_a_number_beyond_floating_point_is_one_value_error(field, value):
    from metaeval.recommend import Condition

    extra = {"measure": "hardness:rate-driven"} if field == "cost_beta" else {}
    with pytest.raises(ValueError, match=f"{field} must be a finite number, got about 1e400"):
        Condition(**extra, **{field: value})


@pytest.mark.parametrize("args", [
    ["recommend", "--evaluate", "--time-weight", "1e400"],
    ["recommend", "--evaluate", "--measure", "hardness:score-driven", "--cost-beta", "1e400,1"],
    ["describe", "--time-budget", "inf"],
    ["describe", "--time-budget", "1e308"],
])
def test_overflowing_options_are_one_line_and_exit_2(args, tmp_path):
    from typer.testing import CliRunner

    from metaeval.cli import app

    result = CliRunner().invoke(app, [*args, "--store" if args[0] == "describe" else
                                      "--json", str(tmp_path / "x")])
    assert result.exit_code == 2, (result.output, result.exception)
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert "Traceback" not in result.output


# ------------------------------------------------------------------ describe
def test_unknown_pymfe_groups_are_refused_before_anything_is_cached(tmp_path):
    from tests.test_stops_workers import tiny_store
    from typer.testing import CliRunner

    from metaeval.cli import app
    from metaeval.cli._knowledge import _PYMFE_GROUPS
    from metaeval.recommend.knowledge._describe import PYMFE_VALID_GROUPS, check_groups

    assert _PYMFE_GROUPS == PYMFE_VALID_GROUPS
    store = tiny_store(tmp_path / "s.duckdb")
    for groups, message in [("nonsense", "'nonsense' is not a pymfe group"),
                            ("general,genral", "Did you mean 'general'?"),
                            ("general,general", "'general' is given twice"),
                            (",", "at least one pymfe group")]:
        result = CliRunner().invoke(app, ["describe", "--store", str(store.path), "-q",
                                          "--groups", groups])
        assert result.exit_code == 2, result.output
        assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert len(store.metafeature_groups()) == 0
    with pytest.raises(ValueError, match="'nonsense' is not a pymfe group"):
        check_groups(["general", "nonsense"])


def test_describe_reads_the_user_s_own_files_through_the_study_file(tmp_path):
    from typer.testing import CliRunner

    from metaeval.cli import app
    from metaeval.datasets import load_dataset, read_dataset
    from metaeval.store import Store

    labor = load_dataset("labor")
    frame = labor.X.copy()
    frame["outcome"] = np.where(labor.y == 1, "good", "bad")
    frame.to_csv(tmp_path / "mine.csv", index=False)
    (tmp_path / "study.toml").write_text(
        'store = "s.duckdb"\nalgorithms = ["NB"]\nfolds = 2\n'
        '[[datasets]]\nname = "mine"\npath = "mine.csv"\ntarget = "outcome"\n'
        'pos_label = "good"\n')
    mine = read_dataset(tmp_path / "mine.csv", target="outcome", pos_label="good", name="mine")
    store = Store(tmp_path / "s.duckdb")
    with store.writing():
        store.sync_study({"folds": 2, "seed": 0}, datasets=[
            {"name": "mine", "sha256": mine.sha256, "n_instances": mine.n_instances,
             "n_features": mine.n_features, "positive_fraction": mine.positive_fraction,
             "family": "mine", "source": "test"}], algorithms=[], tasks=[])
    runner = CliRunner()
    without = runner.invoke(app, ["describe", "--store", str(store.path), "-q"])
    assert without.exit_code == 2 and "--study" in without.output, without.output
    assert "loader" not in without.output
    result = runner.invoke(app, ["describe", "--study", str(tmp_path / "study.toml"), "-q",
                                 "--groups", "general"])
    assert result.exit_code == 0, (result.output, result.exception)
    groups = store.metafeature_groups()
    assert set(groups["dataset"]) == {"mine"} and (groups["status"] == "ok").all()


# ------------------------------------------------------------------ report summary
def test_the_summary_names_the_ranking_of_each_best_algorithm(quick_store):
    import re

    from metaeval.cli._report import _firsts, study_summary
    from metaeval.store import Store

    lines = study_summary(Store(quick_store), quick_store, "cpu")
    accuracy = next(line for line in lines if line.startswith("Best algorithm by accuracy"))
    named = re.findall(r"(\S+) \(([A-Z, and]+)\)", accuracy.split(": ", 1)[1])
    assert named and sorted(re.split(r", | and ", ", ".join(r for _, r in named))) == [
        "AR", "SRR", "SW"], accuracy
    assert any(line.startswith("Best algorithm by A3R (n=8; accuracy and CPU time)")
               for line in lines)
    frame = __import__("pandas").DataFrame
    assert _firsts({"AR": frame({"algorithm": ["RF"]}), "SRR": frame({"algorithm": ["RF"]}),
                    "SW": frame({"algorithm": ["3NN"]})}, ("AR", "SRR", "SW")) == \
        "RF (AR and SRR), 3NN (SW)"


def test_pymfe_groups_and_landmarkers_run_on_one_blas_thread(monkeypatch):
    """CPU seconds are a fair budget on one thread only: idle BLAS threads spin, longer
    on a loaded machine (0.5 to 2.0 CPU-s for one group on two threads, 0.2 on one)."""
    import pymfe.mfe
    from threadpoolctl import threadpool_info

    from metaeval.datasets import load_dataset
    from metaeval.recommend import describe_dataset

    seen = []
    fit = pymfe.mfe.MFE.fit

    def recording_fit(self, *args, **kwargs):
        seen.append({p["num_threads"] for p in threadpool_info()})
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(pymfe.mfe.MFE, "fit", recording_fit)
    landmarker = __import__("metaeval.recommend.knowledge._describe", fromlist=["LANDMARKERS"])
    real_build = type(landmarker.LANDMARKERS[0]).build

    def recording_build(self, *args, **kwargs):
        seen.append({p["num_threads"] for p in threadpool_info()})
        return real_build(self, *args, **kwargs)

    monkeypatch.setattr(type(landmarker.LANDMARKERS[0]), "build", recording_build)
    described = describe_dataset(load_dataset("labor"), groups=["general"], time_budget=None,
                                 landmarkers=landmarker.LANDMARKERS[:1], landmark_folds=2)
    assert described.groups["status"].tolist() == ["ok", "ok"]
    assert seen and all(threads == {1} for threads in seen), seen


def test_report_and_plot_refuse_devices_fifos_and_read_only_folders(tmp_path):
    from typer.testing import CliRunner

    from metaeval.cli import app

    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    folder = tmp_path / "folder.png"
    folder.mkdir()
    store = str(tmp_path / "none.duckdb")
    try:
        for args, said in [
            # (a FIFO last: opened for writing, it would wait for a reader)
            (["plot", "arr", "--out", str(folder)], f"--out: {folder} is a directory"),
            (["report", "--out", str(locked)], f"--out: the directory {locked} is read-only"),
            (["report", "--out", "/dev/null"], "--out: /dev/null is a character device"),
            (["plot", "arr", "--out", str(fifo)], f"--out: {fifo} is a FIFO"),
        ]:
            result = CliRunner().invoke(app, [*args, "--store", store])
            assert result.exit_code == 2, (args, result.output)
            assert said in result.output, result.output
        assert stat.S_ISFIFO(fifo.stat().st_mode) and list(locked.iterdir()) == []
        assert stat.S_IMODE(locked.stat().st_mode) == 0o555
    finally:
        locked.chmod(0o755)
