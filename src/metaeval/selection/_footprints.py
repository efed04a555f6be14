r"""Algorithm footprints in a 2-D instance space.

A footprint is the region of the instance space where an algorithm performs
well (Muñoz & Smith-Miles 2017; Muñoz et al. 2018, TRACE). It is built from
the instances the algorithm handles well (its "good" instances):

1. the Delaunay triangulation of the good instances (duplicates merged);
2. triangles with an edge longer than ``max_edge`` are dropped, so that no
   triangle bridges a gap in the space;
3. triangles whose purity (share of good instances among all the instances
   they hold, boundary included) is below ``purity`` are dropped (the removal
   of areas with contradicting evidence);
4. the footprint is the union of the triangles left: several regions, and
   holes, are kept as they come.

Its area is the sum of the triangles' areas (they do not overlap), its density
the number of instances it holds per unit area and its purity the share of
good instances among them, as in TRACE's summary. (The current MATLAB toolkit
first clusters the good instances with DBSCAN and fits a boundary polygon per
cluster before the same per-triangle purity pruning; the triangulation above is
the construction of Muñoz & Smith-Miles 2017. The "best" footprints here keep
ties and do not remove the overlaps between algorithms' footprints.)

Pure functions: arrays in, a small frozen dataclass out; no plotting.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import Delaunay, QhullError
from threadpoolctl import threadpool_limits

__all__ = ["Footprint", "footprint", "default_max_edge"]

# barycentric coordinates within this of 0 put a point on a triangle's edge
_EDGE_TOL = 1e-10


@dataclass(frozen=True)
class Footprint:
    """A footprint: the triangles kept and TRACE's summary numbers.

    Attributes
    ----------
    triangles : ndarray of shape (n_triangles, 3, 2)
        Vertex coordinates of the triangles whose union is the footprint.
    boundary : ndarray of shape (n_edges, 2, 2)
        The footprint's outline (edges of exactly one kept triangle), holes included.
    area : float
        Sum of the triangles' areas.
    elements : int
        Instances lying in the footprint (boundary included).
    good_elements : int
        Good instances among them.
    density : float
        ``elements / area`` (0 for an empty footprint).
    purity : float
        ``good_elements / elements`` (0 for an empty footprint).
    n_regions : int
        Connected regions (triangles touching at a vertex are connected).
    n_holes : int
        Holes: ``n_regions`` minus the Euler characteristic ``V - E + F``.
    """

    triangles: np.ndarray
    boundary: np.ndarray
    area: float
    elements: int
    good_elements: int
    density: float
    purity: float
    n_regions: int
    n_holes: int

    def summary(self) -> dict:
        """TRACE's numbers as a dict (no geometry)."""
        return {
            "area": self.area,
            "elements": self.elements,
            "good_elements": self.good_elements,
            "density": self.density,
            "purity": self.purity,
            "n_regions": self.n_regions,
            "n_holes": self.n_holes,
        }


def _empty():
    return Footprint(np.zeros((0, 3, 2)), np.zeros((0, 2, 2)), 0.0, 0, 0, 0.0, 0.0, 0, 0)


def _check_xy(xy):
    xy = np.asarray(xy, dtype=np.float64) if not isinstance(xy, np.ndarray) else xy
    if xy.dtype.kind not in "biuf":
        raise ValueError(f"xy must be numeric coordinates, got dtype {xy.dtype}.")
    xy = xy.astype(np.float64, copy=False)
    if xy.ndim != 2 or xy.shape[1] != 2:
        raise ValueError(f"xy must have shape (n_instances, 2), got {xy.shape}.")
    if xy.shape[0] == 0:
        raise ValueError("xy is empty; at least one instance is needed.")
    if not np.all(np.isfinite(xy)):
        raise ValueError("xy contains NaN or infinite coordinates.")
    return xy


def _edge_lengths(tri_xy):
    """(t, 3) lengths of the edges opposite vertices 0, 1, 2 of each triangle."""
    sides = [tri_xy[:, (j + 2) % 3] - tri_xy[:, (j + 1) % 3] for j in range(3)]
    return np.stack([np.linalg.norm(side, axis=1) for side in sides], axis=1)


def default_max_edge(xy):
    r"""The default longest edge of a footprint triangle: twice the median Delaunay edge.

    .. math::

        \rho = 2\, \operatorname{median}\{\lVert u - v \rVert : (u, v) \text{ an edge of }
        DT(\text{all instances})\}

    Twice the typical spacing of the instances in the space, so that a
    footprint triangle never spans a gap that the instances themselves leave
    empty. Scale-equivariant; with fewer than 3 distinct, non-collinear
    points it is the largest pairwise distance.

    Parameters
    ----------
    xy : array-like of shape (n_instances, 2)

    Returns
    -------
    rho : float

    Examples
    --------
    >>> grid = [[i, j] for i in range(4) for j in range(4)]
    >>> float(default_max_edge(grid))  # unit grid: edges 1 and sqrt(2), median 1
    2.0
    """
    xy = np.unique(_check_xy(xy), axis=0)
    try:
        tri = Delaunay(xy)
    except (QhullError, ValueError):
        return float(np.ptp(xy, axis=0).max()) if xy.shape[0] > 1 else 0.0
    simplices = np.sort(tri.simplices, axis=1)
    edges = np.unique(np.concatenate([simplices[:, [0, 1]], simplices[:, [1, 2]],
                                      simplices[:, [0, 2]]]), axis=0)  # fmt: skip
    return 2.0 * float(np.median(np.linalg.norm(xy[edges[:, 0]] - xy[edges[:, 1]], axis=1)))


def footprint(xy, good, *, max_edge=None, purity=0.55):
    r"""Footprint of one algorithm: the region of the space its good instances cover.

    Delaunay triangulation of the good instances, minus the triangles with an
    edge longer than ``max_edge`` and those whose purity is below ``purity``;
    the footprint is the union of the triangles left (several regions and holes
    kept). With :math:`T` the kept triangles,

    .. math::

        \text{area} = \sum_{t \in T} |t|, \quad
        \text{density} = \frac{\#\{x_i \in \cup T\}}{\text{area}}, \quad
        \text{purity} = \frac{\#\{x_i \in \cup T : x_i \text{ good}\}}{\#\{x_i \in \cup T\}}.

    A triangle's own purity counts every instance in it, on its boundary
    included (its vertices and any instance coinciding with them, good or not).

    Parameters
    ----------
    xy : array-like of shape (n_instances, 2)
        The instance space (e.g. :func:`metaeval.instance_space.project_instances`).
    good : array-like of bool, shape (n_instances,)
        The instances the algorithm handles well.
    max_edge : float, optional
        Longest edge a triangle may have; default :func:`default_max_edge` of ``xy``.
    purity : float in [0, 1], default=0.55
        Smallest purity of a kept triangle (TRACE's default threshold).

    Returns
    -------
    footprint : Footprint
        Empty (area 0) when fewer than 3 distinct good instances remain or they are
        collinear.

    References
    ----------
    Muñoz, M. A. & Smith-Miles, K. A. (2017). Performance analysis of continuous
    black-box optimization algorithms via footprints in instance space. Evolutionary
    Computation 25(4), 529-554. Muñoz, M. A., Villanova, L., Baatar, D. & Smith-Miles,
    K. (2018). Instance spaces for machine learning classification. Machine Learning
    107(1), 109-147 (TRACE: area, density, purity).

    Examples
    --------
    A unit square split into two triangles, all four corners good, one bad
    instance at its centre (on the shared diagonal, so in both triangles: 4/5
    good each):

    >>> xy = [[0, 0], [1, 0], [0, 1], [1, 1], [0.5, 0.5]]
    >>> fp = footprint(xy, [True, True, True, True, False], max_edge=2)
    >>> fp.area, fp.elements, fp.good_elements, fp.purity, fp.density
    (1.0, 5, 4, 0.8, 5.0)
    >>> footprint(xy, [True, True, True, True, False], max_edge=2, purity=0.9).area
    0.0
    """
    xy = _check_xy(xy)
    good = np.asarray(good)
    if good.dtype != bool or good.shape != (xy.shape[0],):
        raise ValueError(
            f"good must be a boolean array of shape ({xy.shape[0]},), got dtype "
            f"{good.dtype} and shape {good.shape}."
        )
    if not (np.isscalar(purity) and 0.0 <= purity <= 1.0):
        raise ValueError(f"purity must be a number in [0, 1], got {purity!r}.")
    if max_edge is None:
        max_edge = default_max_edge(xy)
    elif not (np.isscalar(max_edge) and np.isfinite(max_edge) and max_edge > 0):
        raise ValueError(f"max_edge must be a positive number, got {max_edge!r}.")
    # merge duplicates: every instance at a good position becomes that vertex's
    unique, inverse = np.unique(xy, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    is_vertex = np.bincount(inverse[good], minlength=unique.shape[0]) > 0
    if is_vertex.sum() < 3:
        return _empty()
    vertex_id = np.full(unique.shape[0], -1)
    vertex_id[is_vertex] = np.arange(is_vertex.sum())
    points = unique[is_vertex]
    try:
        tri = Delaunay(points)
    except (QhullError, ValueError):  # collinear good instances: no area
        return _empty()
    simplices = tri.simplices
    n_tri, n_vert = simplices.shape[0], points.shape[0]
    vertex_of = vertex_id[inverse]  # (n,) vertex of each instance, -1 if none
    at_vertex = vertex_of >= 0
    count_all = np.bincount(vertex_of[at_vertex], minlength=n_vert)
    count_good = np.bincount(vertex_of[at_vertex & good], minlength=n_vert)
    elements = count_all[simplices].sum(axis=1)
    good_in = count_good[simplices].sum(axis=1)
    # instances elsewhere: the triangle holding each, and its neighbour across an edge
    # the instance lies on
    rest = np.flatnonzero(~at_vertex)
    pair_point, pair_tri = np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    if rest.size:
        # qhull's barycentric transforms make one tiny LAPACK call per triangle: a
        # threaded BLAS turns each into a thread hand-off (100x slower on a busy machine)
        with threadpool_limits(limits=1, user_api="blas"):
            where = tri.find_simplex(xy[rest])
        inside = where >= 0
        rest, where = rest[inside], where[inside]
        T = tri.transform[where]
        b = np.einsum("ijk,ik->ij", T[:, :2], xy[rest] - T[:, 2])
        bary = np.c_[b, 1.0 - b.sum(axis=1)]
        across = tri.neighbors[where]  # neighbour j is opposite vertex j
        on_edge = (np.abs(bary) <= _EDGE_TOL) & (across >= 0)
        extra_point = np.repeat(rest, on_edge.sum(axis=1))
        extra_tri = across[on_edge]
        pair_point = np.concatenate([rest, extra_point])
        pair_tri = np.concatenate([where, extra_tri])
        elements += np.bincount(pair_tri, minlength=n_tri)
        good_in += np.bincount(pair_tri, weights=good[pair_point], minlength=n_tri).astype(int)
    tri_xy = points[simplices]
    keep = _edge_lengths(tri_xy).max(axis=1) <= max_edge
    with np.errstate(invalid="ignore", divide="ignore"):
        keep &= good_in >= purity * elements
    if not keep.any():
        return _empty()
    # which instances the union of kept triangles holds
    vertex_kept = np.zeros(n_vert, dtype=bool)
    vertex_kept[simplices[keep].ravel()] = True
    held = at_vertex & vertex_kept[np.maximum(vertex_of, 0)]
    if pair_point.size:
        held[pair_point[keep[pair_tri]]] = True
    kept_xy = tri_xy[keep]
    d1, d2 = kept_xy[:, 1] - kept_xy[:, 0], kept_xy[:, 2] - kept_xy[:, 0]
    area = float(np.abs(d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]).sum() / 2.0)
    n_held, n_good = int(held.sum()), int((held & good).sum())
    regions, holes, boundary = _topology(simplices[keep], n_vert)
    return Footprint(
        triangles=kept_xy,
        boundary=points[boundary],
        area=area,
        elements=n_held,
        good_elements=n_good,
        density=n_held / area if area > 0 else 0.0,
        purity=n_good / n_held if n_held else 0.0,
        n_regions=regions,
        n_holes=holes,
    )


def _topology(simplices, n_vert):
    """Regions, holes and outline edges of a set of triangles (vertex indices)."""
    s = np.sort(simplices, axis=1)
    all_edges = np.concatenate([s[:, [0, 1]], s[:, [1, 2]], s[:, [0, 2]]])
    edges, uses = np.unique(all_edges, axis=0, return_counts=True)
    used = np.unique(s)
    graph = coo_matrix(
        (np.ones(edges.shape[0]), (edges[:, 0], edges[:, 1])), shape=(n_vert, n_vert)
    )
    n_comp, labels = connected_components(graph, directed=False)
    regions = int(np.unique(labels[used]).size)
    euler = used.size - edges.shape[0] + s.shape[0]
    return regions, int(regions - euler), edges[uses == 1]
