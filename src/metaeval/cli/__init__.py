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
    only; with none for ``--version`` or an unknown option; for a misspelled command,
    with the module of the closest command only (Click suggests its name, as it would
    among all); with every command for ``--help`` or no command (the list of commands)."""
    words = list(argv[1:])
    if not words or words[0] in ("--help", "-h"):
        return _full_app()
    first = words[0]
    module = COMMANDS.get(first)
    if module is None and not first.startswith("-"):
        import difflib

        close = difflib.get_close_matches(first, list(COMMANDS), n=1, cutoff=0.6)
        module = COMMANDS[close[0]] if close else None
    if module is not None:
        importlib.import_module(f"metaeval.cli.{module}")
    from metaeval.cli._app import app

    return app


def main() -> None:
    """Entry point of the ``metaeval`` console script."""
    _program_app(sys.argv)(prog_name="metaeval")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
