"""A damaged report cache is a miss, never a result.

The cache of a small study (the files of ``<store>.report-cache`` and the rows of the
store's table ``report_cache``) is damaged as a disk or a person would damage it: one
bit flipped in every file, a file replaced by a directory, a row that is no longer
JSON, one digit of a row changed, the table emptied. The study is extended by one
dataset (so the whole-study sections are drawn again from the per-dataset
intermediates) and reported again: the page must be the one a report drawn from
scratch gives.

Running the study leaves the report cache as it was, so the study is extended once, in
a template that every test copies, and the page from scratch of that extended study is
drawn once: under xdist, once per test run (``build_once``). The two-dataset study and
its first cached report are those of ``test_report_cache`` (conftest's ``cache_study``
and ``cache_reports``: the same study, reported with the same options), drawn once for
both modules.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import duckdb
import pytest

from metaeval.report import write_report
from metaeval.store import Store

_STAMP = re.compile(r"Store \S+ · (\d+ datasets?) · generated \d{4}-\d\d-\d\d \d\d:\d\d")
OPTIONS = {"bootstrap_draws": 50, "jobs": 1}
ALGORITHMS = ["NB", "LR", "DT"]


def _page(path) -> str:
    return _STAMP.sub(r"Store <path> · \1 · generated <stamp>", path.read_text(encoding="utf-8"))


def _run(path, datasets):
    from metaeval.study import LocalExecutor, Study, run_study

    run_study(Study(datasets=datasets, algorithms=ALGORITHMS, folds=3,
                    executor=LocalExecutor(jobs=1), store=str(path)))


@pytest.fixture(scope="module")
def reported(cache_reports):
    """A two-dataset study (labor and fertility x ``ALGORITHMS``, 3-fold CV) reported
    with the cache on, with ``OPTIONS`` (a template to copy): conftest's
    ``cache_reports``, whose cached store is that study reported so, on one process (then
    reported again from its cache)."""
    path = cache_reports / "cached.duckdb"
    options = json.loads((cache_reports / "runs.json").read_text())["options"]
    assert {**options, "jobs": 1} == OPTIONS
    config = Store(path).study_config()
    assert (config["datasets"], config["folds"]) == (["labor", "fertility"], 3)
    assert list(Store(path).algorithms()["name"]) == ALGORITHMS
    assert len(list(Path(f"{path}.report-cache").iterdir())) == 2 * 3
    return path


@pytest.fixture(scope="module")
def extended(reported, build_once):
    """``reported`` with the study extended by one dataset, its cache as the report left
    it, and the page from scratch of the extended study (a template to copy)."""
    def build(where: Path) -> Path:
        where = _emptied(where / "built")
        path = _copy(reported, where)
        before = _cache_state(path)
        _run(path, ["labor", "fertility", "haberman"])
        assert _cache_state(path) == before  # running the study leaves the cache alone
        (where / "scratch.html").write_text(_from_scratch(path, where / "scratch"),
                                            encoding="utf-8")
        return path

    path = build_once("damage-extended", build)
    return path, (path.parent / "scratch.html").read_text(encoding="utf-8")


def _emptied(directory: Path) -> Path:
    """``directory``, empty (a build that failed may have left something there)."""
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    return directory


def _cache_state(path: Path):
    """The rows of the cache table and the bytes of the files beside the store."""
    con = duckdb.connect(str(path), read_only=True)
    rows = con.execute("SELECT * FROM report_cache ORDER BY key").fetchall()
    con.close()
    files = {f.name: f.read_bytes() for f in Path(f"{path}.report-cache").iterdir()}
    return rows, files


def _copy(reported, tmp_path) -> Path:
    target = tmp_path / "study.duckdb"
    shutil.copy(reported, target)
    shutil.copytree(f"{reported}.report-cache", f"{target}.report-cache")
    return target


def _flip_one_bit(path: Path, offset: int, bit: int) -> None:
    raw = bytearray(path.read_bytes())
    raw[offset] ^= 1 << bit
    path.write_bytes(bytes(raw))


def _from_scratch(path: Path, out: Path) -> str:
    """The page of a copy of the store reported without any cache."""
    fresh = out.parent / "fresh.duckdb"
    shutil.copy(path, fresh)
    con = duckdb.connect(str(fresh))
    con.execute("DROP TABLE IF EXISTS report_cache")
    con.close()
    return _page(write_report(Store(fresh), out, cache=False, **OPTIONS))


def _damage_files(path: Path, *, directory: bool) -> None:
    """One bit flipped in every intermediate (the top byte of its last float, where one
    is); with ``directory``, one of them replaced by a directory."""
    files = sorted(Path(f"{path}.report-cache").iterdir())
    for f in files:
        _flip_one_bit(f, len(f.read_bytes()) - 1, 4)
    if directory:
        files[0].unlink()
        files[0].mkdir()
        (files[0] / "inside").write_text("not an intermediate")


def _check_after(path: Path, tmp_path: Path, scratch: str) -> list[str]:
    """Report the (already extended) study with its damaged cache; ``scratch``: the page
    of the same study drawn without any cache."""
    assert len(Store(path).tasks()) == 3 * 3  # the study extended by one dataset
    lines = []
    cached = write_report(Store(path), tmp_path / "cached", cache=True, **OPTIONS,
                          progress=lambda d, n, label: lines.append(label))
    assert _page(cached) == scratch
    beside = Path(f"{path}.report-cache")
    assert not list(beside.glob("*.tmp"))
    assert all(p.is_file() for p in beside.iterdir())  # the directory replaced
    # and the cache, rewritten, now serves the same page
    again = write_report(Store(path), tmp_path / "again", cache=True, **OPTIONS)
    assert _page(again) == _page(cached)
    return lines


def test_flipped_bits_and_an_emptied_cache_table_give_the_values_from_scratch(extended,
                                                                               tmp_path):
    template, scratch = extended
    path = _copy(template, tmp_path)
    _damage_files(path, directory=False)
    con = duckdb.connect(str(path))
    con.execute("DELETE FROM report_cache")
    con.close()
    _check_after(path, tmp_path, scratch)


def test_damaged_cache_rows_and_a_directory_are_drawn_again(extended, tmp_path):
    template, scratch = extended
    path = _copy(template, tmp_path)
    _damage_files(path, directory=True)
    con = duckdb.connect(str(path))
    rows = con.execute("SELECT key, kind, value FROM report_cache ORDER BY key").fetchall()
    fragments = [r for r in rows if r[1] == "fragment"]
    figures = [r for r in rows if r[1] == "figure"]
    assert fragments and figures
    # every fragment stating a number: one digit changed; one figure: not JSON
    changed = 0
    for key, _, value in fragments:
        m = re.search(r">0\.\d(\d)", value)
        if m is None:
            continue
        digit = str((int(m.group(1)) + 1) % 10)
        con.execute("UPDATE report_cache SET value = ? WHERE key = ?",
                    [value[:m.start(1)] + digit + value[m.end(1):], key])
        changed += 1
    assert changed >= 2
    con.execute("UPDATE report_cache SET value = ? WHERE key = ?",
                [figures[0][2][:len(figures[0][2]) // 2], figures[0][0]])
    con.close()
    lines = _check_after(path, tmp_path, scratch)
    assert f"; {changed + 1} damaged cache entries ignored" in lines[-1]


def test_a_damaged_row_is_a_miss_and_replaced(reported, tmp_path):
    from metaeval.report._cache import ReportCache
    from metaeval.store import _cache as cache_sql

    path = _copy(reported, tmp_path)
    store = Store(path)
    rc = ReportCache(store)
    assert rc.entries and rc.damaged == 0
    key, (kind, value) = next(iter(rc.entries.items()))
    version = rc.version
    raw = cache_sql.read_cache(store, version)[key][1]
    con = duckdb.connect(str(path))
    con.execute("UPDATE report_cache SET value = ? WHERE key = ?", ["{not json", key])
    con.close()
    rc = ReportCache(store)
    assert key not in rc.entries and rc.damaged == 1 and rc.get(key) is None
    rc.put(key, kind, value)
    rc.used |= set(rc.entries)
    assert rc.save() is None
    assert cache_sql.read_cache(store, version)[key][1] == raw  # the damaged row replaced
    assert ReportCache(store).get(key) == value
