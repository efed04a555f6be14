"""Which results the cross-dataset analyses use: the one definition of "finished".

Rankings, benchmark analytics and the report compare algorithms across datasets, so
they need every algorithm on every dataset. They use

* the *usable* datasets: those where at least two algorithms finished (a done task in
  repeat 0), and
* the *common* algorithms: those finished on every usable dataset.

An algorithm left out is one that did not finish on some usable dataset -- because its
task failed, is still pending, or was never planned there (predictions imported for a
few datasets only). ``metaeval status`` names them with the datasets they lack, and
``metaeval rank`` / ``benchmark`` note that they were left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Coverage", "coverage_of"]


@dataclass(frozen=True)
class Coverage:
    """The usable datasets and common algorithms of a store (see the module docstring).

    Attributes
    ----------
    datasets, algorithms : list of str
        Every dataset and algorithm of the store, in registration order.
    usable : list of str
        Datasets where at least two algorithms finished, in registration order.
    common : list of str
        Algorithms finished on every usable dataset, in registration order.
    missing : dict of str to list of str
        Each algorithm left out (not in ``common``), with the usable datasets it has not
        finished on.
    """

    datasets: list = field(default_factory=list)
    algorithms: list = field(default_factory=list)
    usable: list = field(default_factory=list)
    common: list = field(default_factory=list)
    missing: dict = field(default_factory=dict)

    @property
    def left_out_datasets(self) -> list[str]:
        """Datasets with fewer than two finished algorithms."""
        usable = set(self.usable)
        return [d for d in self.datasets if d not in usable]


def coverage_of(present, datasets, algorithms) -> Coverage:
    """:class:`Coverage` from a (datasets x algorithms) table of finished tasks.

    Parameters
    ----------
    present : array-like of bool, shape (n_datasets, n_algorithms)
        Whether the algorithm finished on the dataset (repeat 0).
    datasets, algorithms : sequence of str
        Names of the rows and columns, in registration order.
    """
    present = np.asarray(present, dtype=bool).reshape(len(datasets), len(algorithms))
    usable = present.sum(axis=1) >= 2
    common = (present[usable].all(axis=0) if usable.any()
              else np.zeros(len(algorithms), dtype=bool))
    usable_names = [datasets[i] for i in np.flatnonzero(usable)]
    missing = {}
    if usable.any():
        for j in np.flatnonzero(~common):
            missing[algorithms[j]] = [datasets[i] for i in np.flatnonzero(usable & ~present[:, j])]
    return Coverage(datasets=list(datasets), algorithms=list(algorithms), usable=usable_names,
                    common=[algorithms[j] for j in np.flatnonzero(common)], missing=missing)
