"""The ``metaeval`` command line: a thin typer layer over the public Python API.

Commands: ``run`` (a study), ``status`` (of a store), ``check`` (verify a store),
``datasets`` (the built-in suite), ``algorithms`` (the pool), ``import`` (predictions
made elsewhere), ``export`` (a store to Parquet), ``hardness`` (mean instance
hardness per algorithm and threshold choice method, per dataset, as in Table 1 of
Melo & Prudêncio 2014), ``rank``, ``benchmark``, ``report``, ``plot`` and ``recommend``.
Each group of commands lives in its own module and registers itself on :data:`app`.

The ``metaeval`` program imports only the module of the command it runs (and
``--version`` none), so that a usage error or a missing file is reported before NumPy,
pandas, scikit-learn or DuckDB are imported; :data:`app` itself (for Python callers and
tests) has every command.

Exit codes (:data:`metaeval.cli._app.EXIT_CODES`): 0 success, 1 some tasks failed, 2 bad
input (a usage error, an invalid study or data file, a store that cannot be used or lacks
what the command needs), 3 a damaged store, 4 no space left on the device, 130 / 143 /
129 stopped by SIGINT / SIGTERM / SIGHUP.
"""

from __future__ import annotations

import importlib
import sys

from metaeval.cli import _early

# `metaeval report`: its workers' fork server imports on another core from now on
_early.start_report_workers()

# Each module registers its commands on ``app`` when imported; this order is --help's order.
COMMAND_MODULES = ("_study", "_check", "_data", "_import", "_analysis", "_report",
                   "_recommend", "_knowledge")
#: the module that registers each command (the program imports only that one)
COMMANDS = {
    "run": "_study", "status": "_study", "check": "_check", "datasets": "_data",
    "algorithms": "_data", "export": "_data", "import": "_import", "hardness": "_analysis",
    "rank": "_analysis", "benchmark": "_analysis", "report": "_report", "plot": "_report",
    "recommend": "_recommend", "knowledge": "_knowledge", "describe": "_knowledge",
}

__all__ = ["app", "main", "COMMAND_MODULES", "COMMANDS"]


def _full_app():
    """The application with every command registered, in :data:`COMMAND_MODULES` order."""
    for name in COMMAND_MODULES:
        importlib.import_module(f"metaeval.cli.{name}")
    from metaeval.cli._app import app

    return app


def __getattr__(name):
    if name == "app":
        return _full_app()
    raise AttributeError(f"module 'metaeval.cli' has no attribute {name!r}")


def _program_app(argv):
    """The application the program needs for ``argv``: with the named command's module
    only; with none for ``--version``; with every command otherwise (``--help``, no
    command, a misspelled one that Click suggests a name for)."""
    words = list(argv[1:])
    if words and words[0] == "--version":
        from metaeval.cli._app import app

        return app
    module = COMMANDS.get(words[0]) if words else None
    if module is None:
        return _full_app()
    importlib.import_module(f"metaeval.cli.{module}")
    from metaeval.cli._app import app

    return app


def main() -> None:
    """Entry point of the ``metaeval`` console script."""
    _program_app(sys.argv)(prog_name="metaeval")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
