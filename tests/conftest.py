"""Fixtures shared by several test modules.

The expensive ones are built once for the whole test run: under ``pytest -n 2`` (xdist)
the first worker that needs one builds it under a file lock in the run's shared temporary
directory, and every other worker reuses what it left there. Such a fixture hands out
paths to files that its users only read.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

#: Debian's package is ``chromium``; other systems name it otherwise.
CHROMIUM = next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser",
                                                           "google-chrome")) if p), None)
#: The system Chromium, headless, with nothing that would reach the network on its own.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-extensions", "--mute-audio",
                 "--hide-scrollbars", "--disable-dev-shm-usage"]


#: The test modules that take longest, in the order ``make test`` hands them to its two
#: xdist workers (``--dist loadfile --no-loadscope-reorder``), before every other module:
#: the run then ends on short modules on both workers. xdist's own order (most tests
#: first) left the long modules of few tests (the report cache's damage, the killed
#: reports, the stops) to the end, where one worker ran them while the other had finished
#: (10 s apart at load 8 on 2026-11-29; up to 44 s in a simulation of the same timings).
#: Each module that builds a fixture shared with later ones (``cache_reports``:
#: ``test_report_cache``; ``cli_report``: ``test_cli_analytics``) comes a module before
#: the next user, so that it is built by then, not waited for. Only the order changes: a
#: name that is no longer a test module is ignored.
LONGEST_FIRST = ("tests/test_report_cache.py", "tests/test_dask.py",
                 "tests/test_cli_analytics.py", "tests/test_stops.py",
                 "tests/test_report_cache_damage.py", "tests/test_report_backdrop.py",
                 "tests/test_recommend_archive.py", "tests/test_study.py",
                 "tests/test_units.py", "tests/test_recommend_gate.py",
                 "tests/test_cli_widths.py", "tests/test_report.py",
                 "tests/test_readme.py", "tests/test_report_signals.py",
                 "tests/test_report_clock.py", "tests/test_report_browser.py")


def pytest_collection_modifyitems(config, items):
    """The modules of ``LONGEST_FIRST`` first, in that order; the others as collected."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


@pytest.fixture(autouse=True)
def _no_terminal_size(monkeypatch):
    """Every test sees the output of a pipe: no ``COLUMNS`` or ``LINES`` unless the test
    sets them. pytest-xdist's workers inherit ``COLUMNS=80`` and ``LINES=24`` (a plain
    ``pytest`` process does not), and the command line wraps its prose to ``COLUMNS``, so
    without this the same test would see other output under ``-n 2`` than alone."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


@pytest.fixture(autouse=True)
def _stop_signals_as_they_were():
    """A stopped command run in this process (``CliRunner``) ignores further stop signals
    as it says so and exits, as a real command must; a test process goes on, so the
    handlers are put back after each test. Otherwise a later test in the same xdist
    worker met an ignored SIGINT or SIGTERM (which worker, and so which test, varied:
    ``test_stops_callbacks`` failed after ``test_stops_workers``)."""
    import signal

    names = [name for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)]
    saved = {name: signal.getsignal(getattr(signal, name)) for name in names}
    yield
    for name, handler in saved.items():
        if handler is not None and signal.getsignal(getattr(signal, name)) is not handler:
            signal.signal(getattr(signal, name), handler)


@pytest.fixture
def default_stop_handlers():
    """Python's own handlers for SIGINT, SIGTERM and SIGHUP during the test, put back after.

    A process started in the background by a non-interactive shell (``cmd &``) inherits
    SIGINT ignored, and one under ``nohup`` SIGHUP ignored; the commands keep an ignored
    signal ignored, by design. The tests of what a stop does need the handlers a terminal
    gives, whatever launched the test run."""
    import signal

    defaults = {"SIGINT": signal.default_int_handler, "SIGTERM": signal.SIG_DFL,
                "SIGHUP": signal.SIG_DFL}
    saved = {}
    for name, handler in defaults.items():
        if hasattr(signal, name):
            saved[name] = signal.signal(getattr(signal, name), handler)
    yield
    for name, handler in saved.items():
        if handler is not None:
            signal.signal(getattr(signal, name), handler)


@pytest.fixture(autouse=True, scope="session")
def _one_thread_per_worker():
    """One BLAS/OpenMP thread in each test process: ``pytest -n 2`` already runs a test
    on every core, and a library's thread pool on top of that spins against the other
    worker (a 400-row HistGradientBoosting fit took 59 CPU-s instead of 0.08 beside two
    busy processes). The study's own workers limit themselves the same way; subprocesses
    a test starts are not affected."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield


def _shared_dir(tmp_path_factory) -> Path:
    """A temporary directory that every xdist worker of this run sees."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def _built_once(directory: Path):
    """Hold an exclusive lock on ``directory`` (created), so one process builds in it.

    Without ``fcntl`` (Windows) there is no sharing: each worker builds in its own.
    """
    directory.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Linux or macOS
        yield
        return
    with open(directory / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _clear(*paths: Path) -> None:
    """Remove what a failed build may have left."""
    for path in paths:
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()


def _build_once(tmp_path_factory, name: str, build) -> Path:
    """``build(directory) -> path``, run once per test run; later calls get its path."""
    if sys.platform.startswith("win"):  # pragma: no cover - no lock: one per worker
        return build(tmp_path_factory.mktemp(name))
    where = _shared_dir(tmp_path_factory) / f"shared-{name}"
    with _built_once(where):
        done = where / "done.json"
        if done.exists():
            return Path(json.loads(done.read_text())["path"])
        path = build(where)
        done.write_text(json.dumps({"path": str(path)}))
        return path


@pytest.fixture(scope="session")
def build_once(tmp_path_factory):
    """``build_once(name, build)``: ``build(directory) -> path`` run once per test run.

    For a module's expensive fixture whose tests xdist spreads over several workers:
    the first worker runs ``build`` in a directory every worker sees, the others get
    the path it returned. What it writes there must be read only.
    """
    return lambda name, build: _build_once(tmp_path_factory, name, build)


def _held_open(path: Path, request) -> Path:
    """``path``, a store its users only read, held open read-only in this process until
    the end of the test run.

    Opening a DuckDB file sets a database up (some 17 ms of CPU); while a connection to
    the file is open in the process, DuckDB hands the next ones the same database (under
    0.1 ms). Every test of the store still opens it as a command does (the same
    ``duckdb.connect``, its integrity check, its settings); other processes still read it
    (a read-only connection shares the file). Writing it here, against the contract,
    fails as a store in use does.
    """
    import duckdb

    con = duckdb.connect(str(path), read_only=True)
    request.addfinalizer(con.close)
    return path


#: The quick study: small enough for a test, real enough for every figure of the report.
QUICK_STUDY = {"datasets": ["labor", "hepatitis"], "algorithms": ["NB", "DT", "LR"],
               "folds": 3}


@pytest.fixture(scope="session")
def quick_store(tmp_path_factory, request) -> Path:
    """The store of a small real study (``QUICK_STUDY``), run once per test run.

    Returns the DuckDB file's path. Only read it (``Store``, ``StudyView``, a report with
    its cache off): other workers read it at the same time.
    """
    def build(where: Path) -> Path:
        from metaeval.study import LocalExecutor, Study, run_study

        store = where / "study.duckdb"
        _clear(store, where / "study.duckdb.wal")
        summary = run_study(Study(**QUICK_STUDY, executor=LocalExecutor(jobs=1),
                                  store=str(store)))
        assert summary.n_done == 6, summary
        return store

    return _held_open(_build_once(tmp_path_factory, "quick-store", build), request)


@pytest.fixture(scope="session")
def quick_report(tmp_path_factory, quick_store) -> Path:
    """The HTML report of ``quick_store``, strict, with 200 bootstrap draws.

    Built once per test run (the study and the report take most of a minute). Returns the
    path of ``index.html``; read it, do not change it. Drawn in one process: the page is
    the one worker processes draw (``test_report_cache``), and for two datasets they
    would add some 2.6 CPU-s to a test run that keeps every core busy.
    """
    def build(where: Path) -> Path:
        from metaeval.report import write_report

        _clear(where / "report")
        return write_report(quick_store, where / "report", strict=True, bootstrap_draws=200,
                            jobs=1)

    return _build_once(tmp_path_factory, "quick-report", build)


#: The report cache's study: two datasets, three algorithms, 3-fold CV, one process
#: (``test_report_cache`` and ``test_report_cache_damage``).
CACHE_STUDY = {"datasets": ["labor", "fertility"], "algorithms": ["NB", "LR", "DT"],
               "folds": 3}
#: The options of the report cache's reports.
CACHE_OPTIONS = {"bootstrap_draws": 50}


@pytest.fixture(scope="session")
def cache_study(build_once) -> Path:
    """The store of ``CACHE_STUDY``, run once per test run. Only read it; copy it to
    report it with the cache."""
    def build(where: Path) -> Path:
        from metaeval.study import LocalExecutor, Study, run_study

        path = where / "study.duckdb"
        _clear(path, where / "study.duckdb.wal")
        summary = run_study(Study(**CACHE_STUDY, executor=LocalExecutor(jobs=1),
                                  store=str(path)))
        assert summary.n_done == 6
        return path

    return build_once("cache-study", build)


class _KeptDirectory:
    """A report's temporary directory, kept for a test to look into (``.name``)."""

    def __init__(self, name):
        self.name = str(name)

    def cleanup(self):
        pass


@pytest.fixture(scope="session")
def cache_reports(cache_study, build_once) -> Path:
    """Reports of ``cache_study`` (``CACHE_OPTIONS``, one process), drawn once per test
    run, in the folder returned:

    - ``plain/index.html``: without cache, its temporary directory kept in ``spill``;
    - ``cold/index.html``: with the cache, on ``cached.duckdb`` (a copy of the study),
      whose cache it fills (its table, and ``cached.duckdb.report-cache`` beside it);
    - ``warm/index.html``: the same store with the cache again;
    - ``runs.json``: the figures each drew (``n_plain``, ``n_cold``, ``n_warm``), the
      progress labels of the cached two (``lines``) and the reports' ``options``.

    Read only: copy ``cached.duckdb`` and its ``.report-cache`` folder to change them.
    """
    def build(where: Path) -> Path:
        from metaeval.report import _render, write_report
        from metaeval.report import html as report_html
        from metaeval.store import Store

        for stale in ("spill", "plain", "cold", "warm", "plain.duckdb", "plain.duckdb.wal",
                      "cached.duckdb", "cached.duckdb.wal", "cached.duckdb.report-cache"):
            _clear(where / stale)
        spill = where / "spill"
        spill.mkdir()
        drawn = []
        original = report_html._Page._draw

        def draw(page, build, kind, caption, fmt, alt, options, *args, **kwargs):
            drawn.append(kind)
            return original(page, build, kind, caption, fmt, alt, options, *args, **kwargs)

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(report_html._Page, "_draw", draw)
            with pytest.MonkeyPatch.context() as kept:
                kept.setattr(_render.tempfile, "TemporaryDirectory",
                             lambda *a, **k: _KeptDirectory(spill))
                shutil.copy(cache_study, where / "plain.duckdb")
                write_report(Store(where / "plain.duckdb"), where / "plain", cache=False,
                             jobs=1, **CACHE_OPTIONS)
            n_plain = len(drawn)
            shutil.copy(cache_study, where / "cached.duckdb")
            cached = Store(where / "cached.duckdb")
            lines = []
            write_report(cached, where / "cold", cache=True, **CACHE_OPTIONS,
                         progress=lambda d, n, label: lines.append(label))
            n_cold = len(drawn) - n_plain
            write_report(cached, where / "warm", cache=True, **CACHE_OPTIONS,
                         progress=lambda d, n, label: lines.append(label))
            n_warm = len(drawn) - n_plain - n_cold
        (where / "runs.json").write_text(json.dumps(
            {"n_plain": n_plain, "n_cold": n_cold, "n_warm": n_warm, "lines": lines,
             "options": CACHE_OPTIONS}))
        return where

    return build_once("cache-runs", build)


#: The command line's study: three datasets, three algorithms, 3-fold CV, one process.
CLI_STUDY = ["--datasets", "labor,fertility,haberman", "--algorithms", "NB,DT,3NN",
             "--folds", "3", "--jobs", "1"]


def _cli(*args):
    """``metaeval ARGS`` in this process (CliRunner), 200 columns wide; its stdout."""
    from typer.testing import CliRunner

    from metaeval.cli import app

    result = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="session")
def cli_store(tmp_path_factory, request) -> Path:
    """``metaeval run`` of ``CLI_STUDY``, run once per test run (the command line's tests
    shared one study instead of running it in each of their modules, on each worker).

    Returns the DuckDB file's path. Only read it (the analysis commands, ``Store``): other
    workers read it at the same time. Copy it to change it or to report it with the cache.
    """
    def build(where: Path) -> Path:
        store = where / "study.duckdb"
        _clear(store, where / "study.duckdb.wal")
        _cli("run", *CLI_STUDY, "--quiet", "--store", store)
        return store

    return _held_open(_build_once(tmp_path_factory, "cli-store", build), request)


#: ``(algorithm, fit CPU seconds, fit wall-clock seconds)`` of every fold of
#: ``cli_report``'s study (predicting: 0.001 s of each), the same on every machine: by CPU
#: time NB is the fastest, by wall-clock time (as if it had waited for a busy disk) the
#: slowest by far, so that the two clocks give different orders (``test_report_clock``)
CLI_REPORT_TIMES = (("NB", 0.01, 5.0), ("DT", 0.02, 0.02), ("3NN", 0.04, 0.04))


@pytest.fixture(scope="session")
def cli_report(tmp_path_factory, cli_store) -> dict:
    """``metaeval report --jobs 1 --quiet --summary`` of a copy of ``cli_store`` with the
    times ``CLI_REPORT_TIMES`` (the CLI's default cache on, in the copy), run once per test
    run.

    ``{"store": the copy, "out": the report's folder, "output": what it printed (stdout)}``;
    read them, do not change them (copy the store and its ``.report-cache`` folder to
    report it again).
    """
    def build(where: Path) -> Path:
        import duckdb

        store = where / "study.duckdb"
        _clear(store, where / "study.duckdb.wal", where / "study.duckdb.report-cache",
               where / "report")
        shutil.copy(cli_store, store)
        con = duckdb.connect(str(store))
        for name, cpu, wall in CLI_REPORT_TIMES:
            con.execute("UPDATE timings SET fit_cpu = ?, predict_cpu = 0.001, fit_wall = ?, "
                        "predict_wall = 0.001 WHERE algorithm_id = "
                        "(SELECT id FROM algorithms WHERE name = ?)", [cpu, wall, name])
        con.close()
        output = _cli("report", "--store", store, "--out", where / "report", "--jobs", "1",
                      "--quiet", "--summary")
        (where / "output.txt").write_text(output, encoding="utf-8")
        return where

    where = _build_once(tmp_path_factory, "cli-report", build)
    return {"store": where / "study.duckdb", "out": where / "report",
            "output": (where / "output.txt").read_text(encoding="utf-8")}


@pytest.fixture(scope="session")
def chromium():
    """Open the system Chromium with Playwright: ``with chromium() as browser: ...``.

    Skips, saying why, where no Chromium is installed. Playwright's own browser
    downloads are never used: it drives the system's ``chromium`` by its path.
    """
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (Debian: `apt-get install chromium`); "
                    "the report's browser tests need it")

    @contextlib.contextmanager
    def launch():
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                yield browser
            finally:
                browser.close()

    return launch
