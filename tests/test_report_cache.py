"""The report's cache (table report_cache in the store) and its parallel drawing.

A tiny study (two datasets, three algorithms, 3-fold cross-validation) is reported
several times: without cache, with a cold and a warm cache, after one score changed,
on two worker processes, and with a store that cannot be written.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import duckdb
import pytest
from hypothesis import given
from hypothesis import strategies as st

from metaeval.report import html as report_html
from metaeval.report import write_report
from metaeval.report._render import renumber_svg_ids
from metaeval.store import Store
from metaeval.store import _cache as cache_sql

_STAMP = re.compile(r"Store \S+ · (\d+ datasets) · generated \d{4}-\d\d-\d\d \d\d:\d\d")
#: conftest's ``CACHE_OPTIONS``, those of the reports of ``runs``
OPTIONS = {"bootstrap_draws": 50}


def _page(path) -> str:
    """The page without what differs between runs anyway: the store's path and the time."""
    return _STAMP.sub(r"Store <path> · \1 · generated <stamp>", path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def study(cache_study):
    """The study (labor and fertility x NB, LR, DT, 3-fold CV: conftest's
    ``CACHE_STUDY``), run once per test run: only read it; ``_copy`` it to report it with
    the cache."""
    return cache_study


def _copy(study, tmp_path, name) -> Store:
    target = tmp_path / f"{name}.duckdb"
    shutil.copy(study, target)
    return Store(target)


class _Spy:
    """Records the figures drawn in this process: (kind, dataset option)."""

    def __init__(self, monkeypatch):
        self.drawn: list[tuple[str, str | None]] = []
        original = report_html._Page._draw

        def draw(page, build, kind, caption, fmt, alt, options, *args, **kwargs):
            self.drawn.append((kind, options.get("dataset")))
            return original(page, build, kind, caption, fmt, alt, options, *args, **kwargs)

        monkeypatch.setattr(report_html._Page, "_draw", draw)


def _change_one_score(store: Store, dataset: str) -> None:
    con = duckdb.connect(str(store.path))
    con.execute("UPDATE scores SET score = CASE WHEN score > 0.5 THEN score - 0.25 ELSE "
                "score + 0.25 END WHERE row = 0 AND dataset_id = (SELECT id FROM datasets "
                "WHERE name = ?)", [dataset])
    con.close()


@pytest.fixture(scope="module")
def runs(cache_reports, tmp_path_factory):
    """Reports of one store: uncached, cold cache, warm cache (figures drawn recorded).

    Drawn once per test run (conftest's ``cache_reports``, with ``OPTIONS``); each worker
    gets its own copy of the cached store and of its cache directory, which its tests
    change. The uncached report's temporary directory is kept, in ``spill``.
    """
    where = cache_reports
    tmp = tmp_path_factory.mktemp("cache-runs")
    shutil.copy(where / "cached.duckdb", tmp / "cached.duckdb")
    shutil.copytree(where / "cached.duckdb.report-cache", tmp / "cached.duckdb.report-cache")
    return {"plain": where / "plain" / "index.html", "cold": where / "cold" / "index.html",
            "warm": where / "warm" / "index.html", "store": Store(tmp / "cached.duckdb"),
            "tmp": tmp, "spill": where / "spill",
            **json.loads((where / "runs.json").read_text())}


def test_an_unchanged_store_draws_nothing_and_gives_the_same_page(runs):
    assert runs["n_plain"] == runs["n_cold"] > 10
    assert runs["n_warm"] == 0
    assert "0 of 11 sections drawn, 11 from the cache; 0 figures drawn" in runs["lines"][-1]
    # the cold run says what its drawing cost; the warm one drew nothing to count
    cold_line = next(line for line in runs["lines"] if "11 sections drawn" in line)
    assert float(re.search(r"\(([0-9.]+) CPU-s\)", cold_line).group(1)) > 0
    assert "CPU-s" not in runs["lines"][-1]
    plain, cold, warm = (_page(runs[k]) for k in ("plain", "cold", "warm"))
    assert cold == plain
    assert warm == plain


def test_the_cache_is_a_table_of_the_store(runs):
    with runs["store"]._reading() as con:
        kinds = dict(con.execute("SELECT kind, count(*) FROM report_cache GROUP BY kind")
                     .fetchall())
    assert kinds["fragment"] == 11  # 9 sections and one per dataset
    assert kinds["figure"] == runs["n_cold"]
    assert "intermediate" not in kinds  # those are files beside the store
    beside = Path(f"{runs['store'].path}.report-cache")
    # per dataset: pool hardness, dissimilarities and the per-instance selection
    assert len([p for p in beside.iterdir() if not p.name.endswith(".tmp")]) == 2 * 3
    assert runs["store"].verify() == []  # the store's own checks ignore the cache


def test_a_changed_score_redraws_exactly_the_figures_that_show_it(runs, monkeypatch):
    store = runs["store"]
    before, whole = cache_sql.content_digests(store)
    _change_one_score(store, "labor")
    after, whole_after = cache_sql.content_digests(store)
    assert before["fertility"] == after["fertility"]
    assert before["labor"] != after["labor"] and whole != whole_after

    spy = _Spy(monkeypatch)
    from metaeval import selection
    from metaeval.report import data

    sizes = {57: "labor", 100: "fertility"}
    computed = []

    def spy_on(module, name, y_at):
        real = getattr(module, name)

        def spied(*args, **kwargs):
            computed.append((name, sizes[len(args[y_at])]))
            return real(*args, **kwargs)
        monkeypatch.setattr(module, name, spied)

    spy_on(data, "hardness_matrix", 0)
    spy_on(selection, "evaluate_selection", 1)
    beside = Path(f"{store.path}.report-cache")
    before_files = {p.name for p in beside.iterdir()}
    page = write_report(store, runs["tmp"] / "changed", cache=True, **OPTIONS)
    after_files = {p.name for p in beside.iterdir()}
    # the changed dataset's three intermediates replaced, the other's kept
    assert len(before_files - after_files) == len(after_files - before_files) == 3
    assert len(after_files) == len(before_files)
    # the other dataset's intermediates come from the cache, the changed one's are new
    assert ("hardness_matrix", "labor") in computed
    assert ("evaluate_selection", "labor") in computed
    assert not [c for c in computed if c[1] == "fertility"]
    drawn = spy.drawn
    assert drawn, "the changed dataset's figures must be drawn again"
    assert not [d for d in drawn if d[1] == "fertility"]  # the other dataset: all cached
    assert not {"arr", "a3r", "iso-a3r"} & {k for k, _ in drawn}  # no data in them
    per_labor = {k for k, d in drawn if d == "labor"}
    assert {"class-cost-curves", "instance-cost-curves", "dendrograms"} <= per_labor
    study_wide = {k for k, d in drawn if d is None}
    assert {"value-captured", "critical-difference", "dendrograms"} <= study_wide

    # the same page as a report drawn from scratch on two processes, without cache
    fresh = _copy(store.path, runs["tmp"], "fresh")
    con = duckdb.connect(str(fresh.path))
    con.execute("DROP TABLE report_cache")
    con.close()
    parallel = write_report(fresh, runs["tmp"] / "parallel", jobs=2, **OPTIONS)
    assert _page(page) == _page(parallel)
    with fresh._reading() as con:  # cache=False writes nothing
        assert "report_cache" not in {r[0] for r in con.execute("SHOW TABLES").fetchall()}


def test_a_store_that_cannot_be_written_still_gets_its_report(study, tmp_path, monkeypatch):
    from metaeval.store import _store

    store = _copy(study, tmp_path, "readonly")
    real = _store.duckdb.connect

    def connect(path, read_only=False, **kw):
        if not read_only:
            raise duckdb.IOException(f'Cannot open file "{path}": Permission denied')
        return real(path, read_only=read_only, **kw)

    monkeypatch.setattr(_store.duckdb, "connect", connect)
    lines = []
    path = write_report(store, tmp_path / "out", cache=True, datasets=["labor"], **OPTIONS,
                        progress=lambda d, n, label: lines.append(label))
    assert "cache not saved (the store file is read-only)" in lines[-1]
    assert 'id="datasets"' in path.read_text(encoding="utf-8")
    monkeypatch.undo()
    with store._reading() as con:
        assert "report_cache" not in {r[0] for r in con.execute("SHOW TABLES").fetchall()}


def test_entries_of_another_version_or_layout_are_ignored_and_replaced(study, tmp_path):
    store = _copy(study, tmp_path, "versions")
    assert cache_sql.write_cache(store, "0.1", {"a": ("figure", "1")}, {"a"}) is None
    assert cache_sql.read_cache(store, "0.1") == {"a": ("figure", "1")}
    assert cache_sql.read_cache(store, "0.2") == {}  # an older metaeval's cache: unused
    assert cache_sql.write_cache(store, "0.2", {"b": ("figure", "2")}, {"b"}) is None
    with store._reading() as con:
        assert con.execute("SELECT key, version FROM report_cache").fetchall() == [("b", "0.2")]
    # entries the last report did not use are dropped
    assert cache_sql.write_cache(store, "0.2", {"c": ("fragment", "3")}, {"c"}) is None
    assert cache_sql.read_cache(store, "0.2") == {"c": ("fragment", "3")}

    con = duckdb.connect(str(store.path))  # a cache table of another layout
    con.execute("DROP TABLE report_cache")
    con.execute("CREATE TABLE report_cache (key VARCHAR, payload BLOB)")
    con.execute("INSERT INTO report_cache VALUES ('x', 'abc')")
    con.close()
    assert cache_sql.read_cache(store, "0.2") == {}
    assert cache_sql.write_cache(store, "0.2", {"d": ("figure", "4")}, {"d"}) is None
    assert cache_sql.read_cache(store, "0.2") == {"d": ("figure", "4")}


def test_a_figure_shown_twice_gets_ids_of_its_own():
    from matplotlib.figure import Figure

    fig = Figure(figsize=(1, 1))
    fig.add_subplot().plot([0, 1])
    svg = report_html.figure_to_svg(fig)
    page = renumber_svg_ids(f"<div>{svg}{svg}</div>")
    ids = re.findall(r' id="([^"]+)"', page)
    assert len(ids) == len(set(ids)) > 0
    assert {i.split("-")[0] for i in ids} == {"f0", "f1"}
    # references follow their ids
    refs = set(re.findall(r'(?:url\(#|href="#)([^")]+)', page))
    assert refs <= set(ids)
    assert renumber_svg_ids(page) == page


def test_jobs_must_be_a_positive_integer(study, tmp_path):
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="jobs must be a positive integer"):
            write_report(study, tmp_path / "out", jobs=bad)


def test_cli_rejects_bad_jobs(study, tmp_path):
    from typer.testing import CliRunner

    from metaeval.cli import app

    bad = CliRunner().invoke(app, ["report", "--store", str(study), "--out",
                                   str(tmp_path / "r"), "--jobs", "0"])
    assert bad.exit_code == 2 and "--jobs must be a positive integer" in bad.output


def test_one_scan_reads_the_scores_the_per_dataset_read_gives(tmp_path):
    from metaeval.algorithms import custom_algorithm
    from metaeval.study import LocalExecutor, Study, run_study

    bad = custom_algorithm("broken LR", "sklearn.linear_model.LogisticRegression",
                           params={"C": -1.0})
    path = tmp_path / "study.duckdb"
    run_study(Study(datasets=["labor", "fertility"], algorithms=["NB", bad, "DT"], folds=2,
                    executor=LocalExecutor(jobs=1), store=str(path)))
    store = Store(path)
    got = cache_sql.all_scores(store)
    assert sorted(got) == ["fertility", "labor"]
    for name, (y, S, algs) in got.items():
        y0, S0, algs0 = store.scores(name)
        assert algs == algs0 == ["NB", "DT"]  # the failed algorithm left out, as there
        assert y.dtype == y0.dtype and (y == y0).all()
        assert S.dtype == S0.dtype and S.shape == S0.shape and (S == S0).all()


def test_intermediates_are_stored_exactly():
    import numpy as np
    import pandas as pd

    from metaeval.report._intermediates import CODECS

    rng = np.random.default_rng(0)
    H = rng.random((7, 5))
    D = {"score-fixed": rng.random((3, 3)), "rate-driven": rng.random((3, 3))}
    frame = pd.DataFrame({"c": [0.1, 0.3], "loss_selected": rng.random(2), "k": [3, 5],
                          "dataset": ["labor", "labor"]})
    for kind, value in (("hardness", H), ("dissimilarity", D),
                        ("instance-selection:selection", frame),
                        ("instance-selection:selection", None)):
        encode, decode = CODECS[kind]
        back = decode(encode(value))
        if isinstance(value, pd.DataFrame):
            pd.testing.assert_frame_equal(back, value)
        elif isinstance(value, dict):
            assert list(back) == list(value)
            assert all((back[k] == value[k]).all() for k in value)
        elif value is None:
            assert back is None
        else:
            assert back.dtype == value.dtype and (back == value).all()


def test_datasets_are_drawn_before_the_sections_that_read_their_intermediates(runs):
    # the cold run's progress labels in the order the jobs finished (one process): the
    # recommendation (scores only) beside the datasets, the whole-study sections after
    labels = runs["lines"]
    cold = labels[:labels.index(next(line for line in labels if "sections drawn" in line))]
    datasets = [cold.index(name) for name in ("labor", "fertility")]
    assert cold.index("recommendation") < min(datasets)
    for whole in ("summary, similarity and selection", "rankings and benchmark"):
        assert cold.index(whole) > max(datasets)


def test_a_worker_kept_for_the_next_phase_sees_what_the_others_computed(study, monkeypatch,
                                                                         tmp_path):
    # a pool worker's view outlives a job: what the other workers wrote to the shared
    # spill directory since must be found by the kept view
    import numpy as np

    from metaeval.report import _render
    from metaeval.report._intermediates import StoredIntermediates, _npy, seal

    monkeypatch.setattr(_render, "_VIEWS", {})
    base = dict(store_path=str(study), methods=("score-driven",), t=0.5, measure="accuracy",
                dpi=72, strict=True, digests={"labor": "d1"}, whole="w", spill=str(tmp_path))
    first = _render._view(_render.Settings(**base))
    assert isinstance(first._cache, StoredIntermediates)
    assert ("hardness", "labor") not in first._cache
    key = first._cache.key_of(("hardness", "labor"))
    (tmp_path / key).write_bytes(seal(_npy(np.array([0.25, 0.5]))))  # another worker made it
    second = _render._view(_render.Settings(**base))
    assert second is first  # the same view, kept
    assert ("hardness", "labor") in second._cache  # read from what the other worker made
    np.testing.assert_array_equal(second._cache[("hardness", "labor")], [0.25, 0.5])


def test_without_the_cache_the_intermediates_still_go_to_a_shared_directory(runs):
    # the whole-study sections, in whichever process, read what the datasets' sections
    # computed: without the cache too, or a pool worker computes them all again. The
    # uncached report of ``runs`` (cache=False, jobs=1) kept its temporary directory:
    spill = runs["spill"]
    # per dataset: pool hardness, dissimilarities and the per-instance selection
    assert len([p for p in spill.iterdir() if not p.name.endswith(".tmp")]) == 2 * 3


def test_a_symmetric_dissimilarity_is_stored_condensed_and_exactly():
    import numpy as np

    from metaeval.report._intermediates import CODECS, _npy

    rng = np.random.default_rng(1)
    D = rng.random((40, 40))
    D = D + D.T
    np.fill_diagonal(D, 0.0)
    encode, decode = CODECS["dissimilarity"]
    raw = encode({"rate-driven": D})
    assert len(raw) < len(_npy(D)) * 0.55  # 780 of 1,600 entries kept, plus headers
    back = decode(raw)["rate-driven"]
    assert back.dtype == D.dtype and np.array_equal(back, D)


def test_intermediates_beyond_the_memory_budget_are_read_again_from_disk(study, tmp_path,
                                                                        monkeypatch):
    import numpy as np

    from metaeval.report import _intermediates
    from metaeval.report._intermediates import StoredIntermediates
    from metaeval.report._plots import StudyView

    monkeypatch.setattr(_intermediates, "MEMORY_BUDGET", 3 * 8 * 100)  # three of the four
    view = StudyView(study, methods=("score-driven",))
    digests = {f"d{i}": f"digest{i}" for i in range(4)}
    monkeypatch.setattr(view, "_check_dataset", lambda d: d)
    cache = view._cache = StoredIntermediates(view, digests, tmp_path)
    values = {f"d{i}": np.full(100, float(i)) for i in range(4)}
    for name, value in values.items():
        cache[("hardness", name)] = value
    assert len(list(tmp_path.iterdir())) == 4 and len(cache.new) == 4
    # the oldest left memory, and the disk still answers for it, bit for bit
    assert not dict.__contains__(cache, ("hardness", "d0"))
    assert ("hardness", "d0") in cache
    np.testing.assert_array_equal(cache[("hardness", "d0")], values["d0"])
    assert sum(dict.__contains__(cache, ("hardness", n)) for n in values) == 3
    # a kind not kept on disk stays in memory whatever the budget
    cache["datasets"] = "kept"
    assert cache["datasets"] == "kept"


def test_an_unreadable_intermediate_is_computed_again_and_replaced(study, tmp_path):
    import numpy as np

    from metaeval.report._intermediates import StoredIntermediates
    from metaeval.report._plots import StudyView

    view = StudyView(study, methods=("score-driven",))
    cache = view._cache = StoredIntermediates(view, {"labor": "d1"}, tmp_path)
    key = cache.key_of(("hardness", "labor"))
    (tmp_path / key).write_bytes(b"not a numpy file")  # e.g. cut short by a full disk
    assert ("hardness", "labor") not in cache
    H = view.hardness("labor")  # computed, and written over the bad file
    fresh = StoredIntermediates(view, {"labor": "d1"}, tmp_path)
    assert ("hardness", "labor") in fresh
    np.testing.assert_array_equal(fresh[("hardness", "labor")], H)


def test_a_pool_worker_draws_with_one_thread_per_library(study, monkeypatch):
    # two worker processes on two cores: BLAS and OpenMP threads of their own in each
    # would only fight over the same cores
    from threadpoolctl import threadpool_info, threadpool_limits

    from metaeval.report import _render

    monkeypatch.setattr(_render, "_VIEWS", {})
    seen = []

    def build(page):
        import numpy as np

        np.linalg.svd(np.ones((50, 50)))  # BLAS loaded and used
        seen.append({i["user_api"]: i["num_threads"] for i in threadpool_info()})
        return "<p>x</p>"

    settings = _render.Settings(store_path=str(study), methods=("score-driven",), t=0.5,
                                measure="accuracy", dpi=72, strict=True, digests={},
                                whole="w")
    job = _render.Job("probe", [_render.Fragment("probe", build)])
    with threadpool_limits(limits=2):  # as on a two-core machine, whatever this one has
        results, *_ = _render.run_job(settings, job, frozenset())  # as a pool worker does
        assert results["probe"]["html"] == "<p>x</p>"
        assert seen[0] and all(n == 1 for n in seen[0].values())
        # in the report's own process (one worker: no pool) the libraries keep theirs
        view = _render._VIEWS[next(iter(_render._VIEWS))]
        _render.run_job(settings, job, frozenset(), view)
        assert seen[1] and all(n == 2 for n in seen[1].values())


_PRELOADED = ("all(m in __import__('sys').modules for m in ('matplotlib.backends.backend_agg', "
              "'sklearn.neighbors', 'metaeval.report.html', 'metaeval.selection'))")


@pytest.mark.skipif("forkserver" not in __import__("multiprocessing").get_all_start_methods(),
                    reason="no fork server on this platform")
def test_pool_workers_start_with_what_they_draw_with_already_imported():
    # a builtin evaluated in the worker: nothing of this module is imported there, so
    # what it finds was imported by the fork server before it forked the worker
    from metaeval.report import _render

    with _render.worker_pool(1) as pool:
        assert pool.submit(eval, _PRELOADED).result() is True


def test_the_fork_server_starts_early_only_for_a_report_with_nothing_cached(runs, study,
                                                                          tmp_path,
                                                                          monkeypatch):
    from metaeval.report import _render

    started = []
    monkeypatch.setattr(_render, "start_fork_server", lambda: started.append(True))
    monkeypatch.setattr(_render, "available_cores", lambda: 2)
    fresh = _copy(study, tmp_path, "fresh").path
    early = _render.start_workers_early
    assert cache_sql.has_figures(Store(fresh)) is False
    assert cache_sql.has_figures(runs["store"]) is True
    assert early(fresh, jobs=None, cache=True) is True  # a first report: it will draw
    assert early(fresh, jobs=2, cache=False) is True
    assert early(runs["store"].path, jobs=None, cache=False) is True  # draws all anyway
    assert len(started) == 3
    # a cache to draw from (perhaps all of it), one worker, one core, no store: not now
    assert early(runs["store"].path, jobs=None, cache=True) is False
    assert early(fresh, jobs=1, cache=False) is False
    (tmp_path / "not-a-store.duckdb").write_text("no")
    assert early(tmp_path / "not-a-store.duckdb", jobs=2, cache=False) is False
    assert early(tmp_path / "missing.duckdb", jobs=2, cache=False) is False
    monkeypatch.setattr(_render, "available_cores", lambda: 1)
    assert early(fresh, jobs=None, cache=False) is False
    assert len(started) == 3


def test_the_cache_written_beside_the_page_reaches_the_caller_whatever_it_gives():
    # the cache is saved in a thread while the page is put together: finish waits for
    # it and gives its note, or raises its error in the caller's thread
    from metaeval.report import _render

    class Saving:
        def __init__(self, outcome):
            self.outcome, self.thread = outcome, None

        def save(self):
            import threading

            self.thread = threading.current_thread()
            if isinstance(self.outcome, BaseException):
                raise self.outcome
            return self.outcome

    stats = {"total": 1, "drawn": 1, "cached": 0, "workers": 1}
    ok = Saving("the store is read-only")
    pieces = _render.Pieces(ok, {}, {}, stats)
    pieces.start_saving()
    assert "cache not saved (the store is read-only)" in pieces.finish()
    assert ok.thread is not None and ok.thread.name == "metaeval-report-cache"
    broken = _render.Pieces(Saving(RuntimeError("disk on fire")), {}, {}, stats)
    broken.start_saving()
    with pytest.raises(RuntimeError, match="disk on fire"):
        broken.finish()


_SVG_BLOCK = re.compile(r"<svg\b.*?</svg>", re.S)
_ID_PREFIX = re.compile(r'(id="|url\(#|href="#)f([0-9a-f]{12})-')


def _renumbered_by_regex(doc: str) -> str:
    """The page-order renumbering written with one regular expression per block (the
    reference for the faster scan)."""
    counter = iter(range(1 << 30))

    def block(m):
        own = {}

        def sub(p):
            if p.group(2) not in own:
                own[p.group(2)] = f"f{next(counter)}-"
            return p.group(1) + own[p.group(2)]
        return _ID_PREFIX.sub(sub, m.group(0))
    return _SVG_BLOCK.sub(block, doc)


_PIECES = ['<svg width="1">', "<svgx>", "</svg>", '<g id="f0123456789ab-1"/>',
           'url(#fabcdef012345-c)', 'href="#f0123456789ab-2"', 'id="fzz-"', "<svg>", "x",
           "data:image/png;base64,iVBOR", "</sv", "<sv", 'id="f0123456789ab-3"']


@given(st.lists(st.sampled_from(_PIECES), max_size=30))
def test_renumbering_finds_the_blocks_a_regular_expression_finds(pieces):
    doc = "".join(pieces)
    assert renumber_svg_ids(doc) == _renumbered_by_regex(doc)


def test_workers_seal_the_figures_they_draw_as_the_cache_would(study, tmp_path):
    # a report on two workers with the cache on: every figure entry in the table is the
    # sealed JSON of the figure the page shows (made by the worker that drew it)
    from metaeval.report import _cache as report_cache

    store = _copy(study, tmp_path, "sealed")
    write_report(store, tmp_path / "out", cache=True, jobs=2, datasets=["labor"], **OPTIONS)
    con = duckdb.connect(str(store.path), read_only=True)
    rows = con.execute("SELECT key, value FROM report_cache WHERE kind = 'figure'").fetchall()
    con.close()
    assert rows
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    pixels = 0
    for _, value in rows:
        figure = json.loads(report_cache.unseal_text(value))
        assert set(figure) == {"html", "problem"}
        assert value == report_cache.sealed(figure)
        if "<svg" not in figure["html"]:  # (SVG ids are renumbered on the page)
            assert figure["html"] in page
            pixels += 1
    assert pixels > 0
