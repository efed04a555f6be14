"""What every section reads: the study's store, its methods and datasets, trees in batch."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

SEED_METHODS = ("score-fixed", "score-driven", "rate-driven")
ALL_METHODS = ("score-fixed", "score-driven", "rate-driven", "score-uniform", "rate-uniform")
ABBREVIATION = {"score-fixed": "SF", "score-driven": "SD", "rate-driven": "RD",
                "score-uniform": "SU", "rate-uniform": "RU"}
SF, SD, RD = 0, 1, 2  # positions of the methods in the stacked matrices
ECOLI = "ecoli3"
CREDIT = "credit-g"


def open_store(path):
    """Open a store for reading; copy it to a temporary folder when a run holds it.

    Returns
    -------
    store : metaeval.store.Store
    snapshot : bool
        True when a copy was read because the file was locked by a run in progress.
    """
    from metaeval.store import Store

    store = Store(path)
    if not store.exists():
        raise ValueError(f"store: no metaeval store at {str(path)!r}")
    if not store.locked():
        return store, False
    folder = Path(tempfile.mkdtemp(prefix="metaeval-reproduce-"))
    copy = folder / store.path.name
    shutil.copy2(store.path, copy)
    wal = store.path.with_name(store.path.name + ".wal")
    if wal.exists():
        shutil.copy2(wal, copy.with_name(copy.name + ".wal"))
    return Store(copy), True


@dataclass
class StudyData:
    """What the document needs from a store, computed in one pass over the datasets."""

    config: dict
    datasets: pd.DataFrame
    algorithms: pd.DataFrame
    tasks: pd.DataFrame
    complete: list
    labels: list
    store: object = None
    scores: dict = field(default_factory=dict)       # kept datasets: name -> (y, S)
    mats: np.ndarray | None = None                   # (n_datasets, 3, k, k): SF, SD, RD
    mats_untied: np.ndarray | None = None            # (n_datasets, k, k): RD, ties="none"
    metrics: pd.DataFrame | None = None              # the web page's ten metrics
    identity_dev: float = 0.0                        # max |mean RU - mean RD - 1/6|
    su_minus_sd: float = np.inf                      # min over instances of IH_su - IH_sd
    ru_minus_rd: float = np.inf                      # min over instances of IH_ru - IH_rd
    n_instances: int = 0


def read_study(store, keep=(ECOLI, CREDIT)) -> StudyData:
    """Read the configuration and stream the complete datasets once.

    Per dataset: instance hardness under the five methods (one sort per model), the
    dissimilarity matrices of the three methods of Melo & Prudêncio (2014) and of the
    untied rate-driven form, the ten metrics of the web page, and the checks of the
    identities of Prudêncio (2019). Scores are kept only for the datasets in ``keep``.
    """
    from metaeval.benchmark import SKLEARN_METRICS, compute_metrics
    from metaeval.hardness import instance_hardness, instance_hardness_by_method
    from metaeval.similarity import dissimilarity_matrix

    config = store.study_config() or {}
    datasets = store.datasets()
    algorithms = store.algorithms()
    tasks = store.tasks()
    labels = list(config.get("algorithms") or algorithms["name"].tolist())
    done = tasks[(tasks["status"] == "done") & (tasks["repeat"] == 0)]
    per_dataset = done.groupby("dataset")["algorithm"].apply(set)
    complete = [name for name in datasets["name"]
                if set(labels) <= per_dataset.get(name, set())]
    data = StudyData(config, datasets, algorithms, tasks, complete, labels, store)
    mats, untied, frames = [], [], []
    for name in complete:
        y, S, algs = store.scores(name)
        S = S[:, [algs.index(a) for a in labels]]
        if name in keep:
            data.scores[name] = (y, S)
        H = instance_hardness_by_method(y, S, ALL_METHODS)
        mats.append(np.stack([dissimilarity_matrix(H[m]) for m in SEED_METHODS]))
        untied.append(dissimilarity_matrix(instance_hardness(y, S, "rate-driven",
                                                             ties="none")))
        gap = H["rate-uniform"].mean(axis=0) - H["rate-driven"].mean(axis=0)
        data.identity_dev = max(data.identity_dev, float(np.abs(gap - 1 / 6).max()))
        data.su_minus_sd = min(data.su_minus_sd,
                               float((H["score-uniform"] - H["score-driven"]).min()))
        data.ru_minus_rd = min(data.ru_minus_rd,
                               float((H["rate-uniform"] - H["rate-driven"]).min()))
        data.n_instances += y.size
        n, k = S.shape
        frame = pd.DataFrame({"dataset": name, "algorithm": np.repeat(labels, n),
                              "y": np.tile(y, k), "score": S.T.ravel()})
        frames.append(compute_metrics(frame, metrics=SKLEARN_METRICS))
    if complete:
        data.mats = np.stack(mats)
        data.mats_untied = np.stack(untied)
        data.metrics = pd.concat(frames, ignore_index=True)
    return data


# --------------------------------------------------------------------------- trees in batch
class Trees:
    """Average-linkage trees of a batch of dissimilarity matrices, merges as bitmasks.

    Leaf ``i`` is the bit ``1 << i``; ``union[b, m, s]`` is the cluster formed by merge
    ``s`` of the tree of matrix ``mats[b, m]`` (built by
    :func:`metaeval.similarity.average_linkage`), ``left``/``right`` its two parts.
    """

    def __init__(self, mats):
        from metaeval.similarity import average_linkage

        mats = np.asarray(mats, dtype=float)
        B, M, k, _ = mats.shape
        self.k = k
        shape = (B, M, k - 1)
        self.left = np.zeros(shape, dtype=np.int64)
        self.right = np.zeros(shape, dtype=np.int64)
        self.height = np.zeros(shape)
        for b in range(B):
            for m in range(M):
                masks = [1 << i for i in range(k)]
                for s, (lo, hi, h, _) in enumerate(average_linkage(mats[b, m])):
                    a, c = masks[int(lo)], masks[int(hi)]
                    self.left[b, m, s], self.right[b, m, s] = a, c
                    self.height[b, m, s] = h
                    masks.append(a | c)
        self.union = self.left | self.right
        self._pop = np.array([bin(i).count("1") for i in range(1 << k)])

    def clade_size(self, members) -> np.ndarray:
        """Size of the smallest cluster holding every leaf of ``members``: (B, M)."""
        mask = _mask(members)
        step = ((self.union & mask) == mask).argmax(axis=-1)
        return self._pop[np.take_along_axis(self.union, step[..., None], -1)[..., 0]]

    def join_step(self, leaf) -> np.ndarray:
        """1-based merge at which the singleton ``leaf`` joins the tree: (B, M)."""
        bit = 1 << int(leaf)
        return ((self.left == bit) | (self.right == bit)).argmax(axis=-1) + 1

    def clade_sets(self, b, m) -> frozenset:
        """The clusters (bitmasks) of one tree."""
        return frozenset(self.union[b, m].tolist())


def _mask(members) -> int:
    return sum(1 << int(i) for i in members)


def pair_rank(mats, i, j) -> np.ndarray:
    """Rank of ``D[i, j]`` among the pairs of each matrix (1 = closest).

    Returns an array of shape ``mats.shape[:-2]``.
    """
    k = mats.shape[-1]
    iu = np.triu_indices(k, 1)
    values = mats[..., iu[0], iu[1]]
    return 1 + np.sum(values < mats[..., i, j][..., None] - 1e-12, axis=-1)


def mean_pair_value(mats) -> np.ndarray:
    """Mean off-diagonal entry of each matrix: shape ``mats[..., 0, 0]``."""
    k = mats.shape[-1]
    iu = np.triu_indices(k, 1)
    return mats[..., iu[0], iu[1]].mean(axis=-1)


def dendrogram_figure(linkages, labels, label):
    from metaeval.report.data import default_cut_height
    from metaeval.report.figures import dendrograms

    cut = {m: default_cut_height(Z) for m, Z in linkages.items()}
    titles = {m: f"{ABBREVIATION.get(m, m)} · {label}" for m in linkages}
    return dendrograms(linkages, labels, cut_height=cut, titles=titles,
                       ylabel="dissimilarity (mean |ΔIH|)")


def save_figure(fig, path: Path) -> Path:
    import matplotlib.pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)
    return path

def study_times(store) -> pd.DataFrame:
    """Fit + predict wall time per (dataset, algorithm), summed over the folds."""
    t = store.timings()
    t = t[t["repeat"] == 0]
    t = t.assign(time=t["fit_wall"] + t["predict_wall"])
    return t.groupby(["dataset", "algorithm"], as_index=False, sort=False)["time"].sum()
