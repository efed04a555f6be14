"""What ``metaeval rank`` and ``metaeval benchmark`` read from a store, read fast.

The same selection as the report's ``StudyView`` -- the datasets where at least two
algorithms finished (repeat 0), the algorithms finished on every one of them, the
scores of their finished tasks -- but read in one query as arrays, with the metrics of
all (dataset, algorithm, fold) groups computed in vectorised passes, and without
importing the plotting library.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from metaeval.store import coverage_of

__all__ = ["Results", "results_view", "STREAM_ABOVE"]

#: above this many scores, ``rank`` and ``benchmark`` read the store one dataset at a
#: time (the report's view) instead of all at once (about 21 bytes a score in memory)
STREAM_ABOVE = 20_000_000


def results_view(store, *, threshold: float = 0.5):
    """:class:`Results` for a store that fits in memory at once, else the report's
    streaming :class:`~metaeval.report._plots.StudyView` (the same numbers)."""
    with store._reading() as con:
        n = con.execute("SELECT count(*) FROM scores").fetchone()[0]
    if n > STREAM_ABOVE:
        from metaeval.report._plots import StudyView

        return StudyView(store, t=threshold)
    return Results(store, threshold=threshold)


class Results:
    """The finished scores of a store, and the per-fold and pooled metrics of them.

    Parameters
    ----------
    store : metaeval.store.Store
    threshold : float, default=0.5
        Threshold of the crisp metrics and of score-fixed hardness.
    """

    def __init__(self, store, *, threshold: float = 0.5):
        self.store = store
        self.threshold = float(threshold)
        cols, self._datasets, self._algorithms = store.done_scores()
        d, a = cols["dataset"], cols["algorithm"]
        first = cols["repeat"] == 0
        n_d, n_a = len(self._datasets), len(self._algorithms)
        present = np.zeros((n_d, n_a), dtype=bool)
        present[d[first], a[first]] = True
        # the store's one definition of the results every dataset has (status shares it)
        self.coverage = coverage_of(present, self._datasets, self._algorithms)
        self._usable, self._common = self.coverage.usable, self.coverage.common
        usable = np.isin(self._datasets, self._usable)
        common = np.isin(self._algorithms, self._common)
        keep = usable[d] & common[a]
        self._scores = pd.DataFrame({k: v[keep] for k, v in cols.items()})
        self._cache: dict = {}

    # the names StudyView uses, so that the shared helpers take either
    def algorithms(self) -> pd.DataFrame:
        return pd.DataFrame({"name": self._algorithms})

    def dataset_names(self) -> list[str]:
        return list(self._datasets)

    def usable_datasets(self) -> list[str]:
        """Datasets with finished scores of at least two algorithms (repeat 0)."""
        return list(self._usable)

    def common_algorithms(self) -> list[str]:
        """Algorithms finished on every usable dataset, in registration order."""
        return list(self._common)

    def _named(self, frame: pd.DataFrame, keys) -> pd.DataFrame:
        frame = frame.assign(
            dataset=np.asarray(self._datasets, dtype=object)[frame["dataset"].to_numpy(int)],
            algorithm=np.asarray(self._algorithms, dtype=object)[
                frame["algorithm"].to_numpy(int)],
        )
        return frame.sort_values(list(keys), kind="stable").reset_index(drop=True)

    def success(self, measure: str) -> tuple[pd.DataFrame, bool]:
        """``[dataset, algorithm, fold, value]`` per fold, and whether higher is better.

        A ``hardness:<method>`` measure becomes the success ``1 - mean hardness``; with
        several repeats, fold ``f`` of repeat ``r`` is numbered ``r * n_folds + f``.
        """
        from metaeval.benchmark import METRICS, compute_metrics

        if measure not in METRICS:
            raise ValueError(f"measure must be one of {list(METRICS)}, got {measure!r}")
        if ("success", measure) not in self._cache:
            m = compute_metrics(self._scores, metrics=[measure], level="fold",
                                threshold=self.threshold)
            n_folds = int(m["fold"].max()) + 1
            m = m.assign(fold=m["repeat"].astype(int) * n_folds + m["fold"].astype(int))
            m = self._named(m[["dataset", "algorithm", "fold", "value"]],
                            ["dataset", "algorithm", "fold"])
            if measure.startswith("hardness:"):
                self._cache["success", measure] = (m.assign(value=1.0 - m["value"]), True)
            else:
                self._cache["success", measure] = (m, bool(METRICS[measure].higher_is_better))
        return self._cache["success", measure]

    def metrics(self) -> pd.DataFrame:
        """The ten metrics of the algorithm-benchmark web page, folds pooled:
        ``[dataset, algorithm, metric, value]``."""
        from metaeval.benchmark import SKLEARN_METRICS, compute_metrics

        if "metrics" not in self._cache:
            m = compute_metrics(self._scores, metrics=list(SKLEARN_METRICS),
                                threshold=self.threshold)
            order = {name: i for i, name in enumerate(SKLEARN_METRICS)}
            m = self._named(m[["dataset", "algorithm", "metric", "value"]].assign(
                _o=m["metric"].map(order)), ["dataset", "algorithm", "_o"])
            self._cache["metrics"] = m.drop(columns="_o")
        return self._cache["metrics"]

    def value_captured(self) -> pd.DataFrame:
        from metaeval.benchmark import value_captured

        if "value_captured" not in self._cache:
            self._cache["value_captured"] = value_captured(self.metrics())
        return self._cache["value_captured"]
