"""`metaeval report` starts its workers' fork server before the command line imports."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from metaeval.cli import _early

PROGRAM = "/venv/bin/metaeval"


@pytest.mark.parametrize("argv, expected", [
    ([PROGRAM, "report"], {"store": _early.DEFAULT_STORE, "jobs": None, "cache": True}),
    ([PROGRAM, "report", "--store", "a.duckdb", "--jobs", "3"],
     {"store": "a.duckdb", "jobs": 3, "cache": True}),
    ([PROGRAM, "report", "--store=b.duckdb", "--jobs=1", "--no-cache", "-q"],
     {"store": "b.duckdb", "jobs": 1, "cache": False}),
    (["/x/lib/metaeval/__main__.py", "report", "--out", "r"],
     {"store": _early.DEFAULT_STORE, "jobs": None, "cache": True}),
    ([PROGRAM, "report", "--help"], None),
    ([PROGRAM, "report", "--jobs", "two"], None),  # the command line says what is wrong
    ([PROGRAM, "rank", "--store", "a.duckdb"], None),
    (["/usr/bin/pytest", "report"], None),  # another program that imports the CLI
    ([PROGRAM], None),
    ([], None),
])
def test_the_report_s_arguments_are_read_without_the_command_line_parser(argv, expected):
    assert _early.report_arguments(argv) == expected


def test_the_early_start_agrees_with_the_report_and_the_study():
    from metaeval.report import _lifeline, _render
    from metaeval.study import DEFAULT_STORE, DEFAULT_TIMEOUT

    assert _early.PARENT_VARIABLE == _lifeline.PARENT_VARIABLE
    assert _early.DEFAULT_STORE == DEFAULT_STORE
    assert _early.DEFAULT_TIMEOUT == DEFAULT_TIMEOUT
    assert tuple(_early.PRELOAD) == _render.PRELOAD


def test_the_fork_server_starts_early_only_for_a_first_report_on_workers(tmp_path,
                                                                        monkeypatch):
    from multiprocessing import forkserver

    started = []
    monkeypatch.setattr(forkserver, "ensure_running", lambda: started.append(True))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.delenv(_early.PARENT_VARIABLE, raising=False)
    store = tmp_path / "s.duckdb"
    store.write_bytes(b"")
    args = [PROGRAM, "report", "--store", str(store)]
    assert _early.start_report_workers(args) is True
    assert os.environ[_early.PARENT_VARIABLE] == str(os.getpid())
    assert _early.start_report_workers(args + ["--no-cache", "--jobs", "2"]) is True
    assert len(started) == 2
    # one job, a missing store, a report cached before (perhaps nothing to draw), one core
    assert _early.start_report_workers(args + ["--jobs", "1"]) is False
    assert _early.start_report_workers([PROGRAM, "report", "--store", "nowhere.duckdb"]) \
        is False
    (tmp_path / "s.duckdb.report-cache").mkdir()
    assert _early.start_report_workers(args) is False
    assert _early.start_report_workers(args + ["--no-cache"]) is True  # draws it all
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert _early.start_report_workers(args + ["--no-cache"]) is False
    assert len(started) == 3


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2 if hasattr(os, "sched_getaffinity")
                    else True, reason="one core: no workers to start")
def test_the_command_line_imports_nothing_heavy_before_the_early_start(tmp_path):
    # what `metaeval report` has imported when it starts the fork server: not NumPy,
    # pandas, matplotlib, DuckDB or SciPy (the server imports them meanwhile)
    store = tmp_path / "s.duckdb"
    store.write_bytes(b"")
    code = (
        "import sys, multiprocessing.forkserver as fs\n"
        "heavy = ('numpy', 'pandas', 'matplotlib', 'duckdb', 'scipy')\n"
        "fs.ensure_running = lambda: print(sorted(m for m in heavy if m in sys.modules))\n"
        f"sys.argv = ['/x/metaeval', 'report', '--store', {str(store)!r}, '--no-cache']\n"
        "import metaeval.cli\n")
    probe = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True)
    assert probe.stdout.strip() == "[]"


def test_a_report_worker_running_the_program_again_starts_no_server(tmp_path):
    # multiprocessing runs the program's file again, as "__mp_main__" and with the
    # report's arguments, in each worker it starts; `metaeval report --no-cache` (no cache
    # folder to stop it) then tried to start a fork server inside the bootstrapping worker,
    # which multiprocessing refuses: every worker died, and the report with them
    program = os.path.join(os.path.dirname(sys.executable), "metaeval")
    if not os.path.isfile(program):
        pytest.skip("no metaeval program beside this Python")
    store = tmp_path / "s.duckdb"
    store.write_bytes(b"")
    code = (
        "import os, runpy, sys, multiprocessing.forkserver as fs\n"
        "os.sched_getaffinity = lambda pid: {0, 1}\n"
        "fs.ensure_running = lambda: print('started')\n"
        "from metaeval.cli import _early\n"
        f"sys.argv = [{program!r}, 'report', '--store', {str(store)!r}, '--no-cache']\n"
        "print(_early.start_report_workers())\n"  # the report's own process starts it
        "sys.modules.pop('metaeval.cli', None)\n"
        f"runpy.run_path({program!r}, run_name='__mp_main__')\n")  # as a worker does
    probe = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True)
    assert probe.stdout.split() == ["started", "True"]


def test_the_program_knows_which_module_registers_every_command():
    """``metaeval CMD`` imports only COMMANDS[CMD]'s module: a command missing from the
    table would be an unknown command for the program, though the app has it."""
    import typer.main

    from metaeval import cli

    group = typer.main.get_command(cli.app)
    assert set(group.commands) == set(cli.COMMANDS)
    for name, module in cli.COMMANDS.items():
        callback = group.commands[name]
        registered = getattr(callback, "callback", None)
        if registered is not None and getattr(registered, "__module__", "").startswith(
                "metaeval.cli."):
            assert registered.__module__ == f"metaeval.cli.{module}", name


def test_an_unknown_measure_is_refused_before_pandas_scipy_or_scikit_learn(tmp_path):
    # `metaeval recommend data.csv --measure foo` names the known measures without
    # importing the metrics (pandas, scikit-learn) or the instance hardness (SciPy)
    data = tmp_path / "t.csv"
    data.write_text("a,b,class\n1,2,x\n3,4,y\n5,6,x\n7,8,y\n")
    code = (
        "import sys\n"
        f"sys.argv = ['/x/metaeval', 'recommend', {str(data)!r}, '--measure', 'foo']\n"
        "from metaeval.cli import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as stop:\n"
        "    print('exit', stop.code)\n"
        "heavy = ('pandas', 'scipy', 'sklearn', 'duckdb', 'matplotlib', 'metaeval.benchmark',"
        " 'metaeval.hardness')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n")
    probe = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True)
    assert probe.stdout.split("\n")[-3:] == ["exit 2", "[]", ""]
    assert "Unknown measure 'foo'" in probe.stderr
    assert "hardness:rate-uniform" in probe.stderr


def test_the_condition_knows_the_measures_of_the_benchmark_and_the_hardness():
    from metaeval.benchmark import SKLEARN_METRICS
    from metaeval.hardness import METHODS
    from metaeval.recommend import _condition

    assert _condition.SKLEARN_METRICS == SKLEARN_METRICS
    assert _condition.METHODS == METHODS
