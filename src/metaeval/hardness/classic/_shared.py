"""The work that several classic measures share, computed once and kept (private)."""

from __future__ import annotations

from functools import cached_property

import numpy as np
from sklearn.naive_bayes import GaussianNB

from metaeval.hardness.classic import _overlap_region as _ov
from metaeval.hardness.classic import _search as _nb
from metaeval.hardness.classic import _tree_fit as _tr


class _Data:
    """Validated inputs plus lazily computed, shared intermediate results."""

    def __init__(
        self,
        X,
        y01,
        *,
        metric="euclidean",
        criterion="entropy",
        pruning="error-based",
        confidence=0.25,
        random_state=0,
        exact_max=20000,
        n_neighbors=10,
        calibration=None,
    ):
        self.X, self.y = X, y01
        self.metric = metric
        self.criterion, self.pruning, self.confidence = criterion, pruning, confidence
        self.random_state = random_state
        self.exact_max, self.n_neighbors = exact_max, n_neighbors
        self.calibration = calibration

    @cached_property
    def class_size(self):
        """n_{y_i}: the size of each instance's class, shape (n,)."""
        return np.bincount(self.y, minlength=2)[self.y]

    @cached_property
    def enemy(self):
        return _nb.nearest_enemy(self.X, self.y, self.metric)

    @cached_property
    def friend_distance(self):
        return _nb.nearest_friend_distance(self.X, self.y, self.metric)

    @cached_property
    def local_sets(self):
        return _nb.local_set_pass(self.X, self.y, self.enemy[0], self.metric)

    @cached_property
    def full_tree(self):
        return _tr.grow_tree(
            self.X, self.y, criterion=self.criterion, random_state=self.random_state
        )

    @cached_property
    def unpruned(self):
        return _tr.unpruned_leaves(self.full_tree, self.X)

    @cached_property
    def pruned(self):
        if isinstance(self.pruning, str):
            return _tr.pruned_leaves(self.full_tree, self.X, self.y, confidence=self.confidence)
        clf = _tr.grow_tree(
            self.X,
            self.y,
            criterion=self.criterion,
            random_state=self.random_state,
            ccp_alpha=float(self.pruning),
        )
        return _tr.unpruned_leaves(clf, self.X)

    @cached_property
    def true_class_posterior(self):
        if not np.any(np.ptp(self.X, axis=0) > 0):  # no feature varies: no evidence
            return np.full(self.y.size, 0.5)
        nb = GaussianNB(priors=[0.5, 0.5])
        if self.calibration == "sigmoid":  # PyHard: Platt scaling fitted on 3 folds
            from sklearn.calibration import CalibratedClassifierCV

            nb = CalibratedClassifierCV(nb, method="sigmoid", cv=3, ensemble=False)
        nb.fit(self.X, self.y)
        return nb.predict_proba(self.X)[np.arange(self.y.size), self.y]

    @cached_property
    def closeness(self):
        return _ov.overlap_closeness(self.X, self.y)
