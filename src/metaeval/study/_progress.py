"""A rich progress bar for a running study: tasks done / failed / remaining and an ETA."""

from __future__ import annotations

import sys

__all__ = ["RichProgress"]


class RichProgress:
    """Show the progress of :func:`metaeval.study.run_study` on the terminal.

    Any object with the methods ``start(total, description)``, ``advance(result)`` and
    ``stop()`` can be given to ``run_study(progress=...)``; this is the one the command
    line uses. Failed tasks are printed above the bar as they come.

    Parameters
    ----------
    console : rich.console.Console, optional
        Where to draw; default a console on standard error.
    """

    def __init__(self, console=None):
        from rich.console import Console

        self.console = console if console is not None else Console(file=sys.stderr)
        self._progress = None
        self._task = None
        self.done = self.failed = self.total = 0

    def start(self, total: int, description: str = "tasks") -> None:
        """Begin: ``total`` tasks are about to run."""
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.total, self.done, self.failed = total, 0, 0
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(
                "[green]{task.fields[done]} done[/] [red]{task.fields[failed]} failed[/] "
                "{task.fields[remaining]} remaining"
            ),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
        )
        self._progress.start()
        self._task = self._progress.add_task(
            description, total=total, done=0, failed=0, remaining=total
        )

    def advance(self, result) -> None:
        """One task finished (a :class:`metaeval.study.TaskResult`)."""
        if result.status == "done":
            self.done += 1
        else:
            self.failed += 1
            first = (result.error or "").strip().splitlines()
            self._progress.console.print(
                f"[red]failed[/] {result.dataset} / {result.algorithm} / repeat "
                f"{result.repeat}: {first[0] if first else ''}",
                markup=True, highlight=False,
            )
        finished = self.done + self.failed
        self._progress.update(
            self._task, completed=finished, done=self.done, failed=self.failed,
            remaining=self.total - finished,
        )

    def stop(self) -> None:
        """End: remove the live display (the last state stays on the terminal)."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
