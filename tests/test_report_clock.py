"""One clock for the time of ARR, A3R and the runtime score: the report's and the CLI's.

A small study's wall-clock times are made to disagree with its CPU times (NB the fastest
by CPU time, the slowest by far by wall-clock time), so that the two clocks give different
orders. The report must give the order and the scores ``metaeval rank`` and ``metaeval
benchmark`` give, on CPU time by default and on wall time with ``--time wall``, name the
clock it used, and not serve one clock's page from the cache for the other.
"""

from __future__ import annotations

import html
import re
import shutil

import pytest
from typer.testing import CliRunner

from metaeval.cli import app

runner = CliRunner()


def _run(*args):
    result = runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def store(cli_report):
    """The study of the command line's tests (labor, fertility, haberman x NB, DT, 3NN,
    3-fold CV) with times of its own (conftest's ``CLI_REPORT_TIMES``: by CPU time NB is
    the fastest, by wall-clock time the slowest by far), reported on CPU time with the
    cache by ``cli_report``, once per test run: only read it."""
    return cli_report["store"]


@pytest.fixture(scope="module")
def pages(cli_report, build_once):
    """``{"cpu": page, "wall": page}``: the store reported with the cache (the CLI's
    default), first on CPU time (``cli_report``: ``metaeval report --jobs 1 --quiet``, and
    ``--summary``), then, on a copy of the store and of the cache that report left beside
    it, with ``--time wall``, so that the second report finds the first one's cache.
    Built once per test run."""
    def build(where):
        copy = where / "study.duckdb"
        for stale in (copy, where / "study.duckdb.wal"):
            stale.unlink(missing_ok=True)
        shutil.rmtree(where / "study.duckdb.report-cache", ignore_errors=True)
        shutil.rmtree(where / "wall", ignore_errors=True)
        shutil.copy(cli_report["store"], copy)
        shutil.copytree(f"{cli_report['store']}.report-cache", f"{copy}.report-cache")
        page = _report(copy, where / "wall", "--time", "wall")
        (where / "wall.html").write_text(page, encoding="utf-8")
        return where

    where = build_once("clock-pages", build)
    return {"cpu": (cli_report["out"] / "index.html").read_text(encoding="utf-8"),
            "wall": (where / "wall.html").read_text(encoding="utf-8")}


def _rows(output, title):
    """``[(algorithm, score)]`` of the CLI table whose title starts with ``title``."""
    block = output.split(title, 1)[1]
    rows = []
    for line in block.splitlines():
        cells = [c.strip() for c in re.split(r"[│┃]", line) if c.strip()]
        if len(cells) >= 3 and cells[0].replace(".", "").isdigit():
            rows.append((cells[1], float(cells[2])))
        elif rows and line.startswith("└"):
            break
    return rows


def _cells(row_html):
    return [html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
            for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row_html, re.S)]


def _page_a3r(page):
    """``[(algorithm, score)]`` of the report's rankings table, by A3R rank."""
    section = page.split('<section id="rankings">', 1)[1].split("</section>", 1)[0]
    table = section.split("<table", 1)[1].split("</table>", 1)[0]
    rows = [_cells(r) for r in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)]
    head = rows[0]
    rank = head.index("A3R (n=8) rank")
    score = head.index("A3R (n=8) score")
    body = [r for r in rows[1:] if len(r) == len(head)]
    body.sort(key=lambda r: float(r[rank]))
    return [(r[0], float(r[score])) for r in body]


def _page_runtime(page):
    """``(fastest, slowest, its runtime score)`` stated by the report's summary."""
    m = re.search(r"fastest: <b>([^<]+)</b>; slowest: <b>([^<]+)</b> \(runtime score "
                  r"([0-9.]+), (CPU|wall-clock) seconds\)", page)
    assert m, "the summary states the fastest and the slowest algorithm"
    return m.group(1), m.group(2), float(m.group(3))


def _cli(store, *time):
    a3r = _rows(_run("rank", "--store", store, "--method", "a3r", "--draws", "50", *time),
                "A3R (n=8)")
    runtime = _rows(_run("benchmark", "--store", store, *time), "Runtime score")
    return a3r, runtime


def _report(store, out, *time):
    _run("report", "--store", store, "--out", out, "--jobs", "1", "--quiet", *time)
    return (out / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("time", [(), ("--time", "wall")], ids=["cpu", "wall"])
def test_the_report_ranks_by_the_clock_the_cli_uses(store, pages, time):
    a3r, runtime = _cli(store, *time)
    page = pages["wall" if time else "cpu"]
    got = _page_a3r(page)
    assert [a for a, _ in got] == [a for a, _ in a3r]
    for (_, x), (_, y) in zip(got, a3r, strict=True):
        assert x == pytest.approx(y, rel=5e-3)  # the page: as many digits as it needs
    fastest, slowest, score = _page_runtime(page)
    assert (fastest, slowest) == (runtime[0][0], runtime[-1][0])
    assert score == pytest.approx(runtime[-1][1], abs=6e-3)
    words = "wall-clock seconds" if time else "CPU seconds"
    assert f"time: fit + predict {words} over the folds" in page  # the rankings table
    assert f"(ARR and A3R on {words})" in page  # the findings
    assert f"(runtime score {score:.2f}, {words})" in page  # the summary


def test_the_clocks_disagree_and_the_cache_keeps_them_apart(store, pages):
    cpu = _cli(store)
    wall = _cli(store, "--time", "wall")
    assert [a for a, _ in cpu[0]] != [a for a, _ in wall[0]]  # the test can tell them apart
    assert cpu[1][0][0] == wall[1][-1][0] == "NB"
    # with the cache (the CLI's default): the wall-clock report came second, beside the
    # cache the CPU-time report had left in the same store
    first, second = pages["cpu"], pages["wall"]
    assert [a for a, _ in _page_a3r(second)] == [a for a, _ in wall[0]]
    assert _page_a3r(first) != _page_a3r(second)


def test_a_bad_clock_is_one_line_and_exit_2(store, tmp_path):
    result = runner.invoke(app, ["report", "--store", str(store), "--out",
                                 str(tmp_path / "r"), "--time", "sundial"])
    assert result.exit_code == 2
    assert "--time must be one of cpu, wall" in result.output
    with pytest.raises(ValueError, match="clock must be one of cpu, wall"):
        from metaeval.report import write_report

        write_report(store, tmp_path / "api", clock="sundial")
