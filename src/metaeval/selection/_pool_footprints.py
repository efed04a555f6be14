"""Footprints of a pool of models: good instances, one footprint per model, TRACE's table.

Builds on :func:`metaeval.selection.footprint` (the geometry); the hardness comes
from the cost-sensitive measures (instance cost curves at an operating condition,
Prudêncio 2019) or any loss matrix.
"""

from __future__ import annotations

import numpy as np

from metaeval.selection._footprints import _check_xy, default_max_edge, footprint

# losses within this of each other (or of epsilon) are tied
_TIE = 1e-12

__all__ = ["good_instances", "algorithm_footprints", "footprint_table", "condition_footprints"]


def _names(algorithms, m):
    if algorithms is None:
        return [f"model_{j}" for j in range(m)]
    if isinstance(algorithms, str) or len(algorithms) != m:
        raise ValueError(
            f"algorithms must be a sequence of {m} names, one per column of hardness, "
            f"got {algorithms!r}."
        )
    names = [str(a) for a in algorithms]
    if len(set(names)) != m:
        raise ValueError(f"algorithms has duplicated names: {names!r}.")
    return names


def good_instances(hardness, *, epsilon=0.2, kind="good"):
    r"""Which instances each algorithm handles well, from its instance hardness.

    .. math::

        \text{good}_{ij} = [IH_{ij} \le \varepsilon], \qquad
        \text{best}_{ij} = [IH_{ij} = \min_k IH_{ik}]

    (ties: every algorithm reaching the minimum is best; a loss within 1e-12 of
    :math:`\varepsilon` or of the minimum counts as equal to it, so that rounding
    does not split a tie, e.g. a class-1 error at :math:`c = 0.7` costs
    :math:`2(1 - c) = 0.6000000000000001` in floating point).

    Parameters
    ----------
    hardness : array-like of shape (n_instances, n_algorithms)
        Instance hardness of each algorithm, e.g.
        :func:`metaeval.hardness.instance_hardness_at` at one cost proportion (a loss
        in [0, 2]: a misclassified class-0 instance costs :math:`2c`, a class-1 one
        :math:`2(1-c)`) or :func:`metaeval.hardness.instance_hardness` (in [0, 1]).
    epsilon : float in [0, 1], default=0.2
        Largest hardness that counts as good (``kind="good"``). At one cost
        proportion, an :math:`\varepsilon` below both error costs :math:`2c` and
        :math:`2(1 - c)` counts the instances the model gets right; one between them
        also counts the cheap errors.
    kind : {"good", "best"}, default="good"

    Returns
    -------
    good : ndarray of bool, shape (n_instances, n_algorithms)

    Examples
    --------
    >>> good_instances([[0.0, 0.4], [0.7, 0.2]], epsilon=0.3)
    array([[ True, False],
           [False,  True]])
    >>> good_instances([[0.0, 0.0], [0.7, 0.2]], kind="best")
    array([[ True,  True],
           [False,  True]])
    """
    H = np.asarray(hardness, dtype=np.float64)
    if H.ndim != 2 or 0 in H.shape:
        raise ValueError(f"hardness must have shape (n_instances, n_algorithms), got {H.shape}.")
    if not np.all(np.isfinite(H)) or H.min() < 0:
        raise ValueError("hardness must hold finite, non-negative losses.")
    if kind not in ("good", "best"):
        raise ValueError(f"kind must be 'good' or 'best', got {kind!r}.")
    if not (np.isscalar(epsilon) and 0.0 <= epsilon <= 1.0):
        raise ValueError(f"epsilon must be a number in [0, 1], got {epsilon!r}.")
    # a loss equal to the threshold up to rounding (2(1 - c) at c = 0.7 is
    # 0.6000000000000001) counts as equal: ties are ties whichever class they cost
    if kind == "best":
        return H <= H.min(axis=1, keepdims=True) + _TIE
    return H <= epsilon + _TIE


def algorithm_footprints(
    xy,
    hardness,
    *,
    algorithms=None,
    include=None,
    epsilon=0.2,
    kind="good",
    max_edge=None,
    purity=0.55,
):
    """Footprint of every algorithm of a pool, and of the whole space.

    Parameters
    ----------
    xy : array-like of shape (n_instances, 2)
    hardness : array-like of shape (n_instances, n_algorithms)
        As in :func:`good_instances`.
    algorithms : sequence of str, optional
        Names of the columns of ``hardness``.
    include : sequence of str, optional
        Only these algorithms (names from ``algorithms``); ``kind="best"`` still
        compares each with the whole pool.
    epsilon, kind
        As in :func:`good_instances`.
    max_edge, purity
        As in :func:`footprint`; ``max_edge`` defaults to :func:`default_max_edge`
        of ``xy`` and is the same for every algorithm.

    Returns
    -------
    footprints : dict of str to Footprint
        One per algorithm, in column order, then ``"space"``: the footprint of all
        instances (every instance good), the reference for normalised area and
        density.

    Examples
    --------
    >>> xy = [[0, 0], [1, 0], [0, 1], [1, 1], [2, 0], [2, 1]]
    >>> H = [[0, 1], [0, 0], [0, 1], [0, 0], [1, 0], [1, 0]]
    >>> fps = algorithm_footprints(xy, H, algorithms=["A", "B"], max_edge=1.5)
    >>> {name: fp.area for name, fp in fps.items()}
    {'A': 1.0, 'B': 1.0, 'space': 2.0}
    """
    xy = _check_xy(xy)
    good = good_instances(hardness, epsilon=epsilon, kind=kind)
    if good.shape[0] != xy.shape[0]:
        raise ValueError(
            f"hardness has {good.shape[0]} rows but xy has {xy.shape[0]}; "
            "give one row per instance."
        )
    names = _names(algorithms, good.shape[1])
    columns = list(range(len(names)))
    if include is not None:
        if isinstance(include, str):
            include = [include]
        unknown = [a for a in include if a not in names]
        if unknown:
            raise ValueError(f"unknown algorithm(s) {unknown!r}; the pool has {names!r}.")
        columns = [names.index(a) for a in include]
    if max_edge is None:
        max_edge = default_max_edge(xy)
    out = {
        names[j]: footprint(xy, good[:, j], max_edge=max_edge, purity=purity)
        for j in columns  # a loop over algorithms, not instances
    }
    if "space" in out:
        raise ValueError("algorithms must not use the reserved name 'space'.")
    out["space"] = footprint(xy, np.ones(xy.shape[0], dtype=bool), max_edge=max_edge)
    return out


def footprint_table(footprints):
    """TRACE's summary table: one row per algorithm, normalised by the space.

    Parameters
    ----------
    footprints : dict of str to Footprint
        As returned by :func:`algorithm_footprints` (with its ``"space"`` entry).

    Returns
    -------
    table : DataFrame
        Index: algorithms. Columns ``area``, ``area_normalized`` (area / the space's),
        ``density``, ``density_normalized`` (density / the space's), ``purity``,
        ``elements``, ``good_elements``, ``n_regions``, ``n_holes``.

    Examples
    --------
    >>> xy = [[0, 0], [1, 0], [0, 1], [1, 1], [2, 0], [2, 1]]
    >>> H = [[0, 1], [0, 0], [0, 1], [0, 0], [1, 0], [1, 0]]
    >>> table = footprint_table(algorithm_footprints(xy, H, algorithms=["A", "B"], max_edge=1.5))
    >>> table[["area", "area_normalized", "purity"]]
       area  area_normalized  purity
    A   1.0              0.5     1.0
    B   1.0              0.5     1.0
    """
    import pandas as pd

    if not isinstance(footprints, dict) or "space" not in footprints:
        raise ValueError("footprints must be the dict of algorithm_footprints (with 'space').")
    space = footprints["space"]
    rows = {name: fp.summary() for name, fp in footprints.items() if name != "space"}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.insert(1, "area_normalized", table["area"] / space.area if space.area else 0.0)
    dens = table["density"] / space.density if space.density else 0.0
    table.insert(table.columns.get_loc("density") + 1, "density_normalized", dens)
    return table[
        ["area", "area_normalized", "density", "density_normalized", "purity",
         "elements", "good_elements", "n_regions", "n_holes"]
    ]  # fmt: skip


def condition_footprints(
    xy,
    y,
    S,
    *,
    costs=(0.2, 0.8),
    method="score-driven",
    epsilon=0.2,
    kind="good",
    algorithms=None,
    include=None,
    pos_label=1,
    t=0.5,
    max_edge=None,
    purity=0.55,
):
    r"""Footprints of a pool's models at several operating conditions.

    At each cost proportion :math:`c`, the hardness of model :math:`m` on instance
    :math:`x` is its instance cost curve :math:`QI_m(x, c)` under ``method``
    (:func:`metaeval.hardness.instance_hardness_at`, Prudêncio 2019): 0 when the
    instance is classified right, the cost of the error otherwise (:math:`2c` for
    class 0, :math:`2(1 - c)` for class 1, averaged over the method's randomness).
    A footprint moves when the costs change: the threshold the method picks moves
    with :math:`c`, and with ``epsilon`` between the two error costs the cheap errors
    count as good.

    Parameters
    ----------
    xy : array-like of shape (n_instances, 2)
    y : array-like of shape (n_instances,)
    S : array-like of shape (n_instances, n_models)
        Stored out-of-fold scores of the pool.
    costs : sequence of float in [0, 1], default=(0.2, 0.8)
    method : str, default="score-driven"
    epsilon, kind
        As in :func:`good_instances`.
    algorithms, include
        As in :func:`algorithm_footprints`.
    pos_label, t
        As in :func:`metaeval.hardness.instance_hardness_at`.
    max_edge, purity
        As in :func:`footprint` (``max_edge`` is the same at every condition).

    Returns
    -------
    footprints : dict of float to dict of str to Footprint
        For each cost proportion, :func:`algorithm_footprints`'s result.

    Examples
    --------
    Two models on a unit grid: A errs on the class-0 column x = 3, B on the class-1
    column x = 0. At c = 0.2 an error on class 0 costs 2c = 0.4 <= epsilon = 0.5, at
    c = 0.8 it costs 1.6 (and the converse for class 1):

    >>> import numpy as np
    >>> xy = np.array([[i, j] for i in range(4) for j in range(4)], dtype=float)
    >>> y = (xy[:, 0] <= 1).astype(int)
    >>> S = np.c_[np.where(xy[:, 0] == 3, 0.9, y * 0.8 + 0.1),
    ...           np.where(xy[:, 0] == 0, 0.1, y * 0.8 + 0.1)]
    >>> fps = condition_footprints(xy, y, S, algorithms=["A", "B"], epsilon=0.5, max_edge=1.5)
    >>> {c: (f["A"].area, f["B"].area) for c, f in fps.items()}
    {0.2: (9.0, 6.0), 0.8: (6.0, 9.0)}
    """
    from metaeval.hardness import instance_hardness_at

    xy = _check_xy(xy)
    cs = np.atleast_1d(np.asarray(costs, dtype=np.float64))
    if cs.ndim != 1 or cs.size == 0 or np.any(np.isnan(cs)) or np.any((cs < 0) | (cs > 1)):
        raise ValueError(f"costs must be cost proportions in [0, 1], got {costs!r}.")
    if max_edge is None:
        max_edge = default_max_edge(xy)
    out = {}
    for c in cs:  # a loop over operating conditions
        H = instance_hardness_at(y, S, method, float(c), t=t, pos_label=pos_label)
        if H.ndim == 1:
            H = H[:, None]
        out[float(c)] = algorithm_footprints(
            xy,
            H,
            algorithms=algorithms,
            include=include,
            epsilon=epsilon,
            kind=kind,
            max_edge=max_edge,
            purity=purity,
        )
    return out
