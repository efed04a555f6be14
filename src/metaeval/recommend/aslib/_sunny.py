r"""SUNNY's per-instance schedules on an ASlib runtime scenario (an option, not a default).

SUNNY (Amadini, Gabbrielli & Mauro 2014) does not pick one algorithm: for a new instance
it finds the :math:`k` training instances nearest by their features, and runs a schedule
of several algorithms within the cutoff:

1. the sub-portfolio :math:`S` of at most :math:`\lambda` algorithms that solves the most
   neighbours (ties: the least total time on them, each neighbour counted at the time
   of the fastest algorithm of :math:`S` that solves it, :math:`\kappa` when none does;
   then the fewer algorithms; then the earlier in the scenario's order);
2. a time slot for each algorithm of :math:`S` proportional to the neighbours it
   solves, :math:`n_s`, and for a backup algorithm (the one that solves the most
   training instances, ties to the lower mean PAR10) one proportional to the
   neighbours :math:`S` leaves unsolved, :math:`k - m`: with :math:`T` the time left,
   the unit is :math:`T / (\sum_{s \in S} n_s + k - m)`;
3. the algorithms run in increasing order of their mean time on the neighbours (a
   neighbour they do not solve counted at :math:`\kappa`), the backup's slot added to
   its own when it is in :math:`S`, placed by the same rule otherwise.

As in ASlib's evaluations the features are paid for first: an instance of feature cost
:math:`c` has :math:`T = \kappa - c` left for its schedule; it is solved by the first
algorithm of the schedule whose runtime fits in its slot, at the time spent so far plus
that runtime (features included), and scores PAR10 :math:`10 \kappa` otherwise. An
instance a used feature step presolved costs its feature cost (credited as ASlib and
LLAMA credit it), when the feature costs are paid.

The neighbours: Euclidean distance on the features imputed with their training medians
and standardised with the training means and standard deviations (features constant on
the training instances left out), ties to the earlier instance. :math:`k` and
:math:`\lambda`, unless given, are chosen on each fold's training instances alone, as
sunny-as2 chooses them (Liu et al. 2021): each training instance is scheduled from its
neighbours among the other training instances (leave-one-out), and the pair of
:data:`K_FACTORS` (times the square root of the number of training instances, SUNNY's
ASlib default) and :data:`LAMBDAS` of lowest mean training PAR10 is kept (ties to the
earlier in the grid: the smaller :math:`\lambda`, then the smaller :math:`k`).

References
----------
R. Amadini, M. Gabbrielli and J. Mauro, "SUNNY: a lazy portfolio approach for constraint
solving", Theory and Practice of Logic Programming 14(4-5):509-524 (2014); T. Liu,
R. Amadini, J. Mauro and M. Gabbrielli, "sunny-as2: enhancing SUNNY for algorithm
selection", Journal of Artificial Intelligence Research 72:329-376 (2021).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np
import pandas as pd
from scipy.spatial.distance import cdist

#: Neighbourhood sizes tried, as factors of the square root of the training instances.
K_FACTORS = (0.5, 1.0, 2.0)
#: Largest sub-portfolios tried.
LAMBDAS = (1, 2, 3)


@dataclass(frozen=True)
class SunnyEvaluation:
    """SUNNY's schedules on a scenario's ``cv.arff`` folds.

    Attributes
    ----------
    per_instance : DataFrame
        One row per instance and ``cv.arff`` repetition: ``repetition``, ``instance``,
        ``fold``, ``k`` and ``lam`` (as given, or chosen on the fold's training
        instances), ``schedule`` (``algorithm:seconds`` steps, in order), ``par10``
        (features included), ``solved``, ``feature_cost``.
    par10 : float
        Mean PAR10 over the rows.
    sbs_whole, vbs : float
        The whole scenario's single best (chosen as LLAMA chooses it: the lowest mean
        runtime, unsolved runs at the cutoff; its mean PAR10) and virtual best, as
        :func:`evaluate_aslib` gives them.
    gap_closed_whole_sbs : float
        :math:`(SBS - PAR10) / (SBS - VBS)`.
    k, lam : int or None
        As given (None: chosen per fold).
    """

    per_instance: pd.DataFrame
    par10: float
    sbs_whole: float
    vbs: float
    gap_closed_whole_sbs: float
    k: int | None
    lam: int | None


def sunny_schedule(neighbour_runtime, neighbour_solved, cutoff, time_left, backup, lam=3):
    r"""One instance's schedule from its neighbours' runs (the module's rules 1-3).

    Parameters
    ----------
    neighbour_runtime : ndarray of shape (k, n_algorithms)
        The neighbours' runtimes (any value where not solved).
    neighbour_solved : ndarray of bool, shape (k, n_algorithms)
    cutoff : float
        :math:`\kappa`: a neighbour not solved counts this long.
    time_left : float
        :math:`T`, the seconds the schedule shares out.
    backup : int
        The backup algorithm's column.
    lam : int
        Largest sub-portfolio.

    Returns
    -------
    list of (int, float)
        ``(column, seconds)`` in the order run; slots sum to ``time_left``.

    Examples
    --------
    Four neighbours, cutoff 100: A solves the first two in 10 s, B the third in 50 s;
    nothing solves the fourth. :math:`S = \{A, B\}` (3 solved); A gets 2 units, B 1,
    the backup C the 1 unit of the unsolved neighbour: 25 s each; A (mean time
    (10 + 10 + 100 + 100) / 4 = 55) runs before B (87.5), and C last (100).

    >>> rt = np.array([[10., 100, 100], [10, 100, 100], [100, 50, 100], [100, 100, 100]])
    >>> ok = rt < 100
    >>> sunny_schedule(rt, ok, 100.0, 100.0, backup=2, lam=2)
    [(0, 50.0), (1, 25.0), (2, 25.0)]
    """
    solved = np.asarray(neighbour_solved, dtype=bool)
    k, n = solved.shape
    t = np.where(solved, np.asarray(neighbour_runtime, dtype=np.float64), float(cutoff))
    best = None  # (-solved, time, size, subset)
    for size in range(1, min(lam, n) + 1):
        subsets = _subsets(n, size)
        covered = solved[:, subsets].any(axis=2).sum(axis=0)  # (n_subsets,)
        spent = t[:, subsets].min(axis=2).sum(axis=0)
        # the first subset of the lowest (-covered, spent): lexsort keeps the order of ties
        i = int(np.lexsort((spent, -covered))[0])
        key = (-int(covered[i]), float(spent[i]), size)
        if best is None or key < best[:3]:
            best = (*key, tuple(int(j) for j in subsets[i]))
    chosen = list(best[3])
    n_s = {j: int(solved[:, j].sum()) for j in chosen}
    m = -best[0]
    weights = dict(n_s)
    if k - m > 0:
        weights[backup] = weights.get(backup, 0) + (k - m)
    total = sum(weights.values())
    if total == 0:  # nothing solves any neighbour: the backup gets all the time
        weights, total = {backup: 1}, 1
    mean_time = t.mean(axis=0)
    order = sorted((j for j in weights if weights[j] > 0), key=lambda j: (mean_time[j], j))
    return [(j, float(time_left) * weights[j] / total) for j in order]


@lru_cache(maxsize=64)
def _subsets(n, size):
    """Every subset of ``size`` of ``n`` columns, as rows (lexicographic order)."""
    out = np.array(list(combinations(range(n), size)), dtype=np.int64)
    out.setflags(write=False)
    return out


def run_schedule(schedule, runtime, solved, cutoff, start=0.0) -> tuple[float, bool]:
    """PAR10 of running ``schedule`` on one instance (its ``runtime`` and ``solved`` per
    algorithm), ``start`` seconds already spent (the features): the first algorithm
    whose runtime fits its slot solves it at the time spent so far plus that runtime,
    if that is below ``cutoff``; otherwise PAR10 = 10 x cutoff.

    >>> run_schedule([(0, 50.0), (1, 25.0)], np.array([60.0, 5.0]), np.array([True, True]),
    ...              100.0, start=2.0)
    (57.0, True)
    """
    spent = float(start)
    for j, seconds in schedule:
        if solved[j] and runtime[j] <= seconds and spent + runtime[j] < cutoff:
            return spent + float(runtime[j]), True
        spent += seconds
    return 10.0 * float(cutoff), False


def evaluate_sunny(scenario, *, k=None, lam=None, feature_costs=True) -> SunnyEvaluation:
    """SUNNY's schedules on each fold of the scenario's ``cv.arff``, fitted on the other
    folds (the module's rules), scored as :func:`evaluate_aslib` scores a first pick.

    Parameters
    ----------
    scenario : AslibScenario or path
        A runtime scenario with features.
    k : int, optional
        Neighbours; default chosen on each fold's training instances (the module's
        description).
    lam : int, optional
        Largest sub-portfolio; default chosen likewise.
    feature_costs : bool, default=True
        Pay each instance's feature cost first (and credit presolved instances).

    Returns
    -------
    SunnyEvaluation
    """
    from metaeval.recommend.aslib._aslib import AslibScenario, read_aslib
    from metaeval.recommend.aslib._aslib_evaluate import _whole_single_best

    sc = scenario if isinstance(scenario, AslibScenario) else read_aslib(scenario)
    if not sc.runtime:
        raise ValueError(f"scenario {sc.name!r} measures {sc.measure}, not runtime: SUNNY's "
                         "schedules share out a cutoff's time.")
    for name, value, least in (("k", k, 1), ("lam", lam, 1)):
        if value is not None and (isinstance(value, bool) or not isinstance(
                value, (int, np.integer)) or value < least):
            raise ValueError(f"{name} must be a positive integer, got {value!r}.")
    kb = sc.knowledge
    if kb.metafeatures is None or kb.metafeatures.shape[1] == 0:
        raise ValueError(f"scenario {sc.name!r} has no features to find neighbours by.")
    X = kb.metafeatures.to_numpy(dtype=np.float64)
    perf, solved, kappa = sc.performance, np.asarray(sc.solved, dtype=bool), float(sc.cutoff)
    paid = bool(feature_costs) and sc.feature_costs
    cost = np.asarray(kb.metafeature_time, dtype=np.float64) if paid else np.zeros(len(X))
    presolved = (np.asarray(sc.presolved, dtype=bool) if paid and sc.presolved is not None
                 else np.zeros(len(X), dtype=bool))
    def scored(i, near, n_k, n_lam, backup):
        """Instance i scheduled from its neighbours ``near`` (nearest first)."""
        schedule = sunny_schedule(perf[near[:n_k]], solved[near[:n_k]], kappa,
                                  max(kappa - cost[i], 0.0), backup, n_lam)
        if presolved[i]:
            return schedule, *((cost[i], True) if cost[i] < kappa else (10 * kappa, False))
        return schedule, *run_schedule(schedule, perf[i], solved[i], kappa, cost[i])

    rows = []
    for rep in sc.cv.columns:
        fold = sc.cv[rep].to_numpy()
        for f in np.unique(fold):
            train, test = np.flatnonzero(fold != f), np.flatnonzero(fold == f)
            Z_train, Z_test = _standardised(X[train], X[test])
            counts = solved[train].sum(axis=0)
            backup = int(np.lexsort((perf[train].mean(axis=0), -counts))[0])
            n_k, n_lam = _chosen(Z_train, train, k, lam, scored, backup)
            nearest = train[np.argsort(cdist(Z_test, Z_train, "sqeuclidean"), axis=1,
                                       kind="stable")]
            for i, near in zip(test, nearest, strict=True):
                schedule, par10, ok = scored(i, near, n_k, n_lam, backup)
                rows.append((rep, kb.datasets[i], int(f), n_k, n_lam, ";".join(
                    f"{kb.algorithms[j]}:{s:.6g}" for j, s in schedule), par10, ok, cost[i]))
    per = pd.DataFrame(rows, columns=["repetition", "instance", "fold", "k", "lam",
                                      "schedule", "par10", "solved", "feature_cost"])
    mean = per.groupby("instance", sort=False)["par10"].mean().mean()
    sbs_whole = float(perf[:, _whole_single_best(sc)].mean())  # as LLAMA chooses it
    vbs = float(perf.min(axis=1).mean())
    gap = (sbs_whole - mean) / (sbs_whole - vbs) if sbs_whole > vbs else float("nan")
    return SunnyEvaluation(per, float(mean), sbs_whole, vbs, float(gap), k, lam)


def _chosen(Z, train, k, lam, scored, backup):
    """``(k, lam)``: as given, or the pair of the grid of lowest mean PAR10 over the
    training instances, each scheduled from its nearest other training instances."""
    root = np.sqrt(train.size)
    ks = [k] if k is not None else sorted({max(1, int(round(f * root))) for f in K_FACTORS})
    ks = [min(n, train.size - 1) for n in ks] if k is None else [min(k, train.size)]
    lams = [lam] if lam is not None else list(LAMBDAS)
    if len(ks) == 1 and len(lams) == 1:
        return ks[0], lams[0]
    d = cdist(Z, Z, "sqeuclidean")
    np.fill_diagonal(d, np.inf)  # each is scheduled from the others
    order = train[np.argsort(d, axis=1, kind="stable")]
    best = None
    for n_lam in lams:
        for n_k in ks:
            total = sum(scored(i, order[r], n_k, n_lam, backup)[1]
                        for r, i in enumerate(train))
            if best is None or total < best[0]:
                best = (total, n_k, n_lam)
    return best[1], best[2]


def _standardised(train, test):
    """Training medians for missing values, training means and standard deviations for
    the scale; features constant (or missing) on the training rows left out."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a feature missing everywhere
        median = np.nanmedian(np.where(np.isfinite(train), train, np.nan), axis=0)
    median = np.where(np.isfinite(median), median, 0.0)
    train = np.where(np.isfinite(train), train, median)
    test = np.where(np.isfinite(test), test, median)
    mu, sd = train.mean(axis=0), train.std(axis=0)
    keep = sd > 0
    return (train[:, keep] - mu[keep]) / sd[keep], (test[:, keep] - mu[keep]) / sd[keep]
