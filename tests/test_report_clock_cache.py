"""A report on the other clock redraws only the sections that depend on the clock.

``report --time wall`` after a CPU-time report (and the CPU-time report after it) draws
the sections that show ARR, A3R or the runtime score again, and takes every other
section from the cache; the page is the one drawn without the cache.
"""

from __future__ import annotations

import re
import shutil

from metaeval.report import write_report
from metaeval.store import Store

#: conftest's ``CACHE_OPTIONS``, those of ``cache_reports``
OPTIONS = {"bootstrap_draws": 50}
_STAMP = re.compile(r"Store \S+ · (\d+ datasets) · generated \d{4}-\d\d-\d\d \d\d:\d\d")


def _page(path) -> str:
    return _STAMP.sub(r"Store <path> · \1 · generated <stamp>", path.read_text(encoding="utf-8"))


def _drawn(store, out, clock) -> tuple[int, int]:
    """``(sections drawn, sections)`` of a cached report on ``clock``."""
    lines = []
    write_report(store, out, cache=True, jobs=1, clock=clock, **OPTIONS,
                 progress=lambda d, n, label: lines.append(label))
    got = re.search(r"(\d+) of (\d+) sections drawn", lines[-1])
    return int(got.group(1)), int(got.group(2))


def test_the_other_clock_redraws_only_the_sections_that_depend_on_it(cache_reports,
                                                                      tmp_path):
    shutil.copy(cache_reports / "cached.duckdb", tmp_path / "s.duckdb")
    shutil.copytree(cache_reports / "cached.duckdb.report-cache",
                    tmp_path / "s.duckdb.report-cache")
    store = Store(tmp_path / "s.duckdb")
    n_redrawn, total = _drawn(store, tmp_path / "wall", "wall")  # counts of sections
    assert total == 11  # 9 sections and one per dataset
    assert 0 < n_redrawn < total  # the rankings are drawn again; the datasets' sections not
    cpu, _ = _drawn(store, tmp_path / "cpu", "cpu")
    assert cpu == n_redrawn
    again, _ = _drawn(store, tmp_path / "again", "cpu")
    assert again == 0
    # the same page as the CPU-time report drawn without the cache
    assert _page(tmp_path / "cpu" / "index.html") == _page(cache_reports / "plain" /
                                                           "index.html")
