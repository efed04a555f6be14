"""Tasks of a study and the random seeds that make them reproducible.

A task is one (dataset, algorithm, repeat): a full stratified k-fold cross-validation of
one algorithm on one dataset. Every random number a task uses is derived from the study
seed and the task's names by :func:`derive_seed`, never from Python's (salted) ``hash``
or from the order in which tasks happen to run, so the same study gives the same scores
bit for bit on any executor and any number of workers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

__all__ = ["Task", "derive_seed", "plan_tasks"]


def derive_seed(seed: int, *keys: str | int) -> int:
    """Derive a 32-bit random state from the study seed and a tuple of names.

    The entropy given to :class:`numpy.random.SeedSequence` is the seed followed, for
    each key, by its length and its UTF-8 bytes (an integer key is written in decimal),
    so ``("ab", "c")`` and ``("a", "bc")`` give different seeds, and the result does not
    depend on the Python process (unlike ``hash``).

    Parameters
    ----------
    seed : int
        The study seed, >= 0.
    *keys : str or int
        What the seed is for, e.g. ``("folds", dataset, repeat)``.

    Returns
    -------
    random_state : int in [0, 2**32)

    Examples
    --------
    >>> derive_seed(0, "folds", "labor", 0) == derive_seed(0, "folds", "labor", 0)
    True
    >>> derive_seed(0, "ab", "c") != derive_seed(0, "a", "bc")
    True
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}.")
    entropy = [int(seed)]
    for key in keys:
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            key = str(int(key))
        if not isinstance(key, str):
            raise ValueError(f"keys must be str or int, got {key!r}.")
        data = key.encode("utf-8")
        entropy.append(len(data))
        entropy.extend(data)
    state = np.random.SeedSequence(entropy).generate_state(1, dtype=np.uint32)
    return int(state[0])


@dataclass(frozen=True)
class Task:
    """One unit of work: cross-validate one algorithm on one dataset, once.

    Parameters
    ----------
    dataset : str
        Dataset name.
    algorithm : metaeval.algorithms.Algorithm
        The algorithm (picklable; sent to the worker).
    repeat : int
        Index of the repetition of the cross-validation (0-based).
    folds : int
        Number of stratified folds asked for.
    seed : int
        The study seed.
    timeout : float or None
        Time limit of the whole task in seconds.
    data : metaeval.datasets.Dataset or None
        The data itself for datasets that are not built in; None for built-in datasets,
        which the worker loads by name (cheaper than sending the frame).
    """

    dataset: str
    algorithm: Any
    repeat: int
    folds: int
    seed: int
    timeout: float | None = None
    data: Any = None

    @property
    def key(self) -> tuple[str, str, int]:
        """``(dataset, algorithm name, repeat)``, the task's identity in the store."""
        return (self.dataset, self.algorithm.name, self.repeat)

    @property
    def fold_seed(self) -> int:
        """Random state of the StratifiedKFold shuffle (same for every algorithm)."""
        return derive_seed(self.seed, "folds", self.dataset, self.repeat)

    def model_seed(self, fold: int) -> int:
        """Random state of the model fitted on ``fold``."""
        return derive_seed(
            self.seed, "model", self.dataset, self.algorithm.name, self.repeat, fold
        )


class _Plan(Protocol):
    """What planning reads of a :class:`~metaeval.study.Study` (this module does not import
    the study's configuration, which imports the executors, which import this module)."""

    datasets: Sequence[Any]
    algorithms: Sequence[Any]
    repeats: int
    folds: int
    seed: int
    timeout: float | None


def plan_tasks(study: _Plan) -> list[Task]:
    """List the tasks of a study: every (dataset, algorithm, repeat), in study order.

    Parameters
    ----------
    study : Study

    Returns
    -------
    tasks : list of Task
        ``len(datasets) * len(algorithms) * repeats`` tasks, repeat-major, then dataset,
        then algorithm.

    Examples
    --------
    >>> from metaeval.study import Study
    >>> study = Study(datasets=["labor", "sonar"], algorithms=["NB", "DT"], repeats=2)
    >>> [t.key for t in plan_tasks(study)][:3]
    [('labor', 'NB', 0), ('labor', 'DT', 0), ('sonar', 'NB', 0)]
    """
    tasks = []
    for repeat in range(study.repeats):
        for entry in study.datasets:
            name, data = (entry, None) if isinstance(entry, str) else (entry.name, entry)
            for algorithm in study.algorithms:
                tasks.append(
                    Task(name, algorithm, repeat, study.folds, study.seed, study.timeout, data)
                )
    return tasks
