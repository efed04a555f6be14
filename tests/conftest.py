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


@pytest.fixture(scope="session")
def quick_report(tmp_path_factory) -> Path:
    """The HTML report of a small real study: labor and hepatitis, NB, DT and LR, 3 folds.

    Built once per test run (the study and the report take most of a minute), strict, with
    200 bootstrap draws. Returns the path of ``index.html``; read it, do not change it.
    """
    if sys.platform.startswith("win"):  # pragma: no cover - no lock: one per worker
        where = tmp_path_factory.mktemp("quick-report")
    else:
        where = _shared_dir(tmp_path_factory) / "shared-quick-report"
    with _built_once(where):
        done = where / "done.json"
        if done.exists():
            return Path(json.loads(done.read_text())["index"])
        from metaeval.report import write_report
        from metaeval.study import LocalExecutor, Study, run_study

        store = where / "study.duckdb"
        for stale in (store, where / "study.duckdb.wal", where / "report"):  # a failed try
            if stale.is_dir():
                shutil.rmtree(stale)
            elif stale.exists():
                stale.unlink()
        study = Study(datasets=["labor", "hepatitis"], algorithms=["NB", "DT", "LR"],
                      folds=3, executor=LocalExecutor(jobs=1), store=str(store))
        summary = run_study(study)
        assert summary.n_done == 6, summary
        index = write_report(store, where / "report", strict=True, bootstrap_draws=200)
        done.write_text(json.dumps({"index": str(index)}))
        return index


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
