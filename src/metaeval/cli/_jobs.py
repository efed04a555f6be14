"""``--jobs`` of every command: never more worker processes than usable cores.

More processes than cores make nothing faster: each holds its own copy of the data and
the models (13.8 GiB for 63 workers on 2 cores), and they take turns on the cores. A
``--jobs`` above the cores this process may use (its CPU affinity) is lowered to them,
and one line on standard error says so.

Standard library only: used before the heavy imports.
"""

from __future__ import annotations

from metaeval._validation import usable_cores

__all__ = ["cap_jobs", "usable_cores"]


def cap_jobs(jobs: int | None, what: str = "--jobs", say=None) -> int | None:
    """``jobs`` lowered to the usable cores (None, the default of every core, stays None).

    ``say(line)`` is told when it was lowered (by default the command line's standard
    error); a ``jobs`` below 1 is refused (``ValueError`` naming ``what``).
    """
    if jobs is None:
        return None
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"{what} must be a positive integer, got {jobs}.")
    cores = usable_cores()
    if jobs <= cores:
        return jobs
    line = (f"Note: {what} {jobs} is more than the {cores} usable core(s) of this "
            f"machine; {cores} worker process(es) are used.")
    if say is None:
        from metaeval.cli._app import err

        err.print(line, markup=False, highlight=False)
    else:
        say(line)
    return cores
