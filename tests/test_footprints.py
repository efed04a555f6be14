"""Tests for metaeval.selection footprints: worked examples, brute force, properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.spatial import Delaunay

from metaeval.selection import (
    algorithm_footprints,
    condition_footprints,
    default_max_edge,
    footprint,
    footprint_table,
    good_instances,
)

GRID = np.array([[i, j] for i in range(4) for j in range(4)], dtype=float)  # 3 x 3 unit cells
# four bad instances in the central cell [1, 2] x [1, 2], one in each quarter, so that
# either diagonal leaves two of them in each of the cell's two triangles
CENTRE_BAD = np.array([[1.5, 1.2], [1.5, 1.8], [1.2, 1.5], [1.8, 1.5]])


def test_square_worked_example():
    # two triangles of area 1/2; the centre lies on the diagonal, so in both
    xy = [[0, 0], [1, 0], [0, 1], [1, 1], [0.5, 0.5]]
    good = np.array([True, True, True, True, False])
    fp = footprint(xy, good, max_edge=2)
    assert (fp.area, fp.elements, fp.good_elements) == (1.0, 5, 4)
    assert (fp.purity, fp.density, fp.n_regions, fp.n_holes) == (0.8, 5.0, 1, 0)
    assert fp.triangles.shape == (2, 3, 2)
    assert fp.boundary.shape == (4, 2, 2)  # the square's four sides, not the diagonal
    # each triangle has purity 4/5: dropped when 0.8 is not enough
    assert footprint(xy, good, max_edge=2, purity=0.81).area == 0.0
    # edges of length sqrt(2) > 1.4 -> no triangle survives
    assert footprint(xy, good, max_edge=1.4).area == 0.0


def test_hole_is_kept():
    # the 16 grid points are good; the central cell holds 4 bad instances, so its
    # two triangles have purity 3/5 each: kept at the default 0.55, dropped at 0.9
    xy = np.vstack([GRID, CENTRE_BAD])
    good = np.r_[np.ones(16, bool), np.zeros(4, bool)]
    full = footprint(xy, good, max_edge=1.5)
    assert (full.area, full.elements, full.good_elements, full.n_holes) == (9.0, 20, 16, 0)
    assert full.purity == 16 / 20
    holed = footprint(xy, good, max_edge=1.5, purity=0.9)
    assert (holed.area, holed.elements, holed.good_elements) == (8.0, 16, 16)
    assert (holed.n_regions, holed.n_holes, holed.purity, holed.density) == (1, 1, 1.0, 2.0)
    # outline: 12 outer unit edges + the hole's 4
    assert holed.boundary.shape == (16, 2, 2)


def test_two_regions_and_long_edges():
    # two unit squares 5 apart: the bridging triangles have edges > 1.5
    left = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], dtype=float)
    xy = np.vstack([left, left + [6, 0]])
    fp = footprint(xy, np.ones(8, bool), max_edge=1.5)
    assert (fp.area, fp.n_regions, fp.n_holes, fp.elements) == (2.0, 2, 0, 8)
    # with a generous max_edge the convex hull is covered
    assert footprint(xy, np.ones(8, bool), max_edge=100).area == 7.0


def test_degenerate_good_sets_give_empty_footprints():
    xy = GRID
    assert footprint(xy, np.zeros(16, bool)).area == 0.0
    two = np.zeros(16, bool)
    two[:2] = True
    assert footprint(xy, two).elements == 0
    line = GRID[:, 0] == 0  # four collinear points
    fp = footprint(xy, line)
    assert (fp.area, fp.n_regions, fp.triangles.shape) == (0.0, 0, (0, 3, 2))
    # duplicates are merged: three positions, many copies, is one triangle
    tri = np.repeat([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]], 3, axis=0)
    fp = footprint(tri, np.ones(9, bool), max_edge=5)
    assert (fp.area, fp.elements, fp.density) == (2.0, 9, 4.5)


def test_default_max_edge_is_twice_the_median_delaunay_edge():
    # unit grid: 24 unit edges and 9 diagonals -> median 1
    assert default_max_edge(GRID) == 2.0
    assert default_max_edge(GRID * 3 + 7) == 6.0
    assert default_max_edge([[0, 0], [3, 0]]) == 3.0  # too few points: the longest span


def _in_closed_triangle(p, t, tol=1e-9):
    """(n_points, n_triangles) membership of points in closed triangles, by signs."""

    def cross(a, b, q):
        return (b[:, 0] - a[:, 0]) * (q[:, None, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (
            q[:, None, 0] - a[:, 0]
        )

    s = np.stack([cross(t[:, k], t[:, (k + 1) % 3], p) for k in range(3)])
    return np.all(s >= -tol, axis=0) | np.all(s <= tol, axis=0)


@st.composite
def spaces(draw, grid=None):
    n = draw(st.integers(6, 60))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if grid is None:
        grid = draw(st.booleans())
    if grid:  # a coarse grid: duplicates, co-circular and collinear points
        xy = rng.integers(0, 5, size=(n, 2)).astype(float)
    else:
        xy = rng.normal(size=(n, 2))
    good = rng.random(n) < draw(st.floats(0.2, 0.9))
    purity = draw(st.sampled_from([0.0, 0.55, 0.8]))
    return xy, good, purity


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spaces())
def test_footprint_matches_brute_force(case):
    xy, good, purity = case
    max_edge = default_max_edge(xy)
    fp = footprint(xy, good, max_edge=max_edge, purity=purity)
    points = np.unique(xy[good], axis=0)
    if points.shape[0] < 3 or np.linalg.matrix_rank(points - points[0]) < 2:
        assert fp.area == 0.0 and fp.elements == 0
        return
    tri = Delaunay(points)
    T = points[tri.simplices]
    inside = _in_closed_triangle(xy, T)  # (n, t), brute force
    n_all = inside.sum(axis=0)
    n_good = inside[good].sum(axis=0)
    edges = np.stack([np.linalg.norm(T[:, k] - T[:, (k + 1) % 3], axis=1) for k in range(3)])
    keep = (edges.max(axis=0) <= max_edge) & (n_good >= purity * n_all)
    expected = sorted(map(tuple, np.sort(T[keep].reshape(-1, 6), axis=1)))
    got = sorted(map(tuple, np.sort(fp.triangles.reshape(-1, 6), axis=1)))
    assert got == expected
    held = inside[:, keep].any(axis=1)
    assert fp.elements == held.sum()
    assert fp.good_elements == (held & good).sum()
    d1, d2 = T[keep, 1] - T[keep, 0], T[keep, 2] - T[keep, 0]
    cross = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]
    assert_allclose(fp.area, np.abs(cross).sum() / 2, rtol=1e-12)
    if fp.area > 0:
        assert_allclose(fp.purity, (held & good).sum() / held.sum())
        # the triangles do not overlap: their union, rasterised, has the summed area
        lo, hi = fp.triangles.reshape(-1, 2).min(0), fp.triangles.reshape(-1, 2).max(0)
        g = np.stack(np.meshgrid(np.linspace(lo[0], hi[0], 120), np.linspace(lo[1], hi[1], 120)))
        g = g.reshape(2, -1).T
        cell = np.prod((hi - lo) / 119)
        covered = _in_closed_triangle(g, fp.triangles, tol=0).any(axis=1).sum() * cell
        assert covered == pytest.approx(fp.area, rel=0.15, abs=6 * cell * 120)
        # Euler: regions - holes = V - E + F
        assert fp.n_regions >= 1 and fp.n_holes >= 0


@settings(max_examples=25, deadline=None)
@given(spaces(grid=False), st.floats(0.1, 10), st.floats(-5, 5))
def test_footprint_scales_with_the_space(case, scale, shift):
    # generic points: the Delaunay triangulation is unique, so it moves with the space
    # (on a grid, co-circular points leave qhull a choice of diagonals)
    xy, good, purity = case
    base = footprint(xy, good, purity=purity)
    moved = footprint(xy * scale + shift, good, purity=purity)
    assert_allclose(moved.area, base.area * scale**2, rtol=1e-8)
    assert (moved.elements, moved.good_elements) == (base.elements, base.good_elements)
    assert (moved.n_regions, moved.n_holes) == (base.n_regions, base.n_holes)


def test_algorithm_footprints_and_table():
    # A is good on the left two columns of cells, B on the right one; C nowhere
    xy = GRID
    H = np.zeros((16, 3))
    H[:, 0] = np.where(xy[:, 0] <= 2, 0.0, 1.0)
    H[:, 1] = np.where(xy[:, 0] >= 2, 0.2, 1.0)
    H[:, 2] = 0.9
    fps = algorithm_footprints(xy, H, algorithms=["A", "B", "C"], epsilon=0.5, max_edge=1.5)
    assert list(fps) == ["A", "B", "C", "space"]
    assert (fps["A"].area, fps["B"].area, fps["C"].area, fps["space"].area) == (6.0, 3.0, 0, 9)
    table = footprint_table(fps)
    assert_allclose(table["area_normalized"], [6 / 9, 3 / 9, 0])
    assert_allclose(table["density"], [12 / 6, 8 / 3, 0])
    assert_allclose(table["density_normalized"], [2 / (16 / 9), (8 / 3) / (16 / 9), 0])
    # best: A wins (0 < 0.2) on x <= 2, B on x = 3 (0.2 < 0.9 < 1), C nowhere
    best = algorithm_footprints(xy, H, algorithms=["A", "B", "C"], kind="best", max_edge=1.5)
    assert (best["A"].area, best["B"].area, best["C"].area) == (6.0, 0.0, 0.0)
    assert_allclose(good_instances(H, kind="best").sum(axis=0), [12, 4, 0])
    only = algorithm_footprints(xy, H, algorithms=["A", "B", "C"], include=["B"], max_edge=1.5)
    assert list(only) == ["B", "space"] and only["B"].area == 3.0


def test_condition_footprints_move_with_the_costs():
    # class 1 on the left two columns; A errs on class-0 column x = 3, B on class-1 x = 0
    xy = GRID
    y = (xy[:, 0] <= 1).astype(int)
    S = np.c_[
        np.where(xy[:, 0] == 3, 0.9, y * 0.8 + 0.1), np.where(xy[:, 0] == 0, 0.1, y * 0.8 + 0.1)
    ]
    # score-driven: threshold c; an error costs 2c on class 0 and 2(1 - c) on class 1
    # epsilon 0.5 tolerates A's errors at c = 0.2 (0.4) but not at c = 0.8 (1.6); B the
    # other way round: the footprints swap
    fps = condition_footprints(
        xy, y, S, costs=[0.2, 0.8], algorithms=["A", "B"], epsilon=0.5, max_edge=1.5
    )
    assert (fps[0.2]["A"].area, fps[0.2]["B"].area) == (9.0, 6.0)
    assert (fps[0.8]["A"].area, fps[0.8]["B"].area) == (6.0, 9.0)
    # epsilon 0.2 is below every error cost: only the instances classified right count
    strict = condition_footprints(xy, y, S, costs=[0.2, 0.8], algorithms=["A", "B"],
                                  max_edge=1.5)  # fmt: skip
    assert {c: (f["A"].area, f["B"].area) for c, f in strict.items()} == {
        0.2: (6.0, 6.0),
        0.8: (6.0, 6.0),
    }
    with pytest.raises(ValueError, match="costs"):
        condition_footprints(xy, y, S, costs=[1.2])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: good_instances([[0.1]], epsilon=1.5), "epsilon"),
        (lambda: good_instances([[0.1]], epsilon=-0.1), "epsilon"),
        (lambda: good_instances([[0.1]], kind="worst"), "kind"),
        (lambda: good_instances([0.1, 0.2]), "shape"),
        (lambda: good_instances([[np.nan]]), "finite"),
        (lambda: footprint([[0, 0]], [True, False]), "boolean array of shape"),
        (lambda: footprint([[0, 0]], [1]), "boolean"),
        (lambda: footprint([0, 0], [True]), "shape"),
        (lambda: footprint([[0, np.inf]], [True]), "NaN or infinite"),
        (lambda: footprint([[0, 0]], [True], purity=2), "purity"),
        (lambda: footprint([[0, 0]], [True], max_edge=0), "max_edge"),
        (lambda: algorithm_footprints(GRID, np.zeros((3, 2))), "rows"),
        (lambda: algorithm_footprints(GRID, np.zeros((16, 2)), algorithms=["a"]), "2 names"),
        (lambda: algorithm_footprints(GRID, np.zeros((16, 2)), algorithms=["a", "a"]), "dupl"),
        (lambda: algorithm_footprints(GRID, np.zeros((16, 1)), algorithms=["space"]), "space"),
        (lambda: footprint_table({}), "space"),
        (
            lambda: algorithm_footprints(
                GRID, np.zeros((16, 2)), algorithms=["a", "b"], include=["c"]
            ),
            "unknown algorithm",
        ),
    ],
)
def test_invalid_inputs_raise(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("c", [0.3, 0.7, 0.35, 0.65, 0.45, 0.55])
def test_an_error_costing_exactly_epsilon_is_good_whichever_class(c):
    """Tie-heavy losses: a cheap error at epsilon = its cost counts for both classes.

    At c the class-0 error costs 2c and the class-1 error 2(1 - c); the mirrored
    condition 1 - c swaps them, so the two must give the same good instances.
    """
    from metaeval.hardness import instance_hardness_at

    y = np.array([0, 1, 0, 1])
    s = np.array([1.0, 0.0, 0.0, 1.0])  # two errors, two right answers
    cheap = min(2 * c, 2 * (1 - c))
    epsilon = float(np.round(cheap, 10))  # the cost as the user writes it
    got = good_instances(instance_hardness_at(y, s, "score-driven", c)[:, None],
                         epsilon=epsilon)[:, 0]
    mirrored = good_instances(instance_hardness_at(1 - y, 1 - s, "score-driven", 1 - c)[:, None],
                              epsilon=epsilon)[:, 0]
    cheap_class = 0 if 2 * c <= 2 * (1 - c) else 1
    assert got.tolist() == [cheap_class == 0, cheap_class == 1, True, True]
    assert got.tolist() == mirrored.tolist()
