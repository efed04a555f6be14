"""The ``metaeval`` command line: a thin typer layer over the public Python API.

Commands: ``run`` (a study), ``status`` (of a store), ``check`` (verify a store),
``datasets`` (the built-in suite), ``algorithms`` (the pool), ``import`` (predictions
made elsewhere), ``export`` (a store to Parquet), ``hardness`` (mean instance
hardness per algorithm and threshold choice method, per dataset, as in Table 1 of
Melo & Prudêncio 2014), ``rank``, ``benchmark``, ``report``, ``plot`` and ``recommend``.
Each group of commands lives in its own module and registers itself on :data:`app`.

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

from metaeval.cli._app import app  # noqa: E402 - after the early start

# Each module registers its commands on ``app`` when imported; this order is --help's order.
COMMAND_MODULES = ("_study", "_check", "_data", "_import", "_analysis", "_report",
                   "_recommend", "_knowledge")
for _name in COMMAND_MODULES:
    importlib.import_module(f"metaeval.cli.{_name}")

__all__ = ["app", "main"]


def main() -> None:
    """Entry point of the ``metaeval`` console script."""
    app(prog_name="metaeval")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
