"""Extremely randomised trees grown together (RegressionTreeBatch, TreeBatch).

Every expected value is worked out by hand, or recomputed independently of the growing
code from the leaves the trees route the training rows to."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval.recommend.learners._trees import RegressionTreeBatch, TreeBatch


def _depth(trees):
    """Depth of every tree (a leaf alone: 0)."""
    depth = np.zeros(trees.left.size, dtype=np.int64)
    for node in range(trees.left.size):  # children are numbered after their parent
        if trees.left[node] >= 0:
            depth[trees.left[node]] = depth[trees.left[node] + 1] = depth[node] + 1
    roots = trees.n_bags * trees.n_columns
    out = np.zeros(roots, dtype=np.int64)
    owner = np.arange(trees.left.size)
    for node in range(trees.left.size):
        if trees.left[node] >= 0:
            owner[trees.left[node]] = owner[trees.left[node] + 1] = owner[node]
    np.maximum.at(out, owner, depth)
    return out


def test_one_split_gives_the_weighted_means_of_its_sides():
    """One feature with two values: the root (weight 8 >= 5) splits between them, and
    each side (weight 4 < 5) is a leaf. Left: (1*1 + 1*2 + 2*6) / 4 = 3.75; right:
    (1*10 + 3*20) / 4 = 17.5. Column 2 (targets doubled): 7.5 and 35."""
    X = np.array([[0.0], [0.0], [0.0], [1.0], [1.0]])
    y = np.array([1.0, 2.0, 6.0, 10.0, 20.0])
    trees = RegressionTreeBatch(X, np.column_stack([y, 2 * y]), np.array([[1, 1, 2, 1, 3]]),
                                np.random.default_rng(0))
    got = trees.predict(np.array([[0.0], [1.0]]))
    np.testing.assert_allclose(got, [[[3.75, 7.5], [17.5, 35.0]]])
    assert (_depth(trees) == 1).all()


def test_rows_of_weight_zero_take_no_part():
    """A row of weight 0 changes neither the trees nor their predictions, even with an
    extreme feature value (the thresholds' range) and target (the leaf means)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(12, 3))
    y = rng.normal(size=(12, 2))
    w = rng.integers(0, 3, size=(4, 12)).astype(float)
    w[:, 0] = 1.0
    wide_X = np.vstack([X, [[1e6, -1e6, 1e6]]])
    wide_y = np.vstack([y, [[1e9, -1e9]]])
    wide_w = np.column_stack([w, np.zeros(4)])
    plain = RegressionTreeBatch(X, y, w, np.random.default_rng(5), min_split=2)
    wide = RegressionTreeBatch(wide_X, wide_y, wide_w, np.random.default_rng(5), min_split=2)
    np.testing.assert_array_equal(plain.feature, wide.feature)
    np.testing.assert_array_equal(plain.threshold, wide.threshold)
    np.testing.assert_array_equal(plain.value, wide.value)


def test_too_few_rows_predict_their_weighted_mean():
    """Bag 0 holds one row: it predicts that row's target. Bag 1 holds two rows of
    weights 1 and 3 (total 4 < 5): no split, (1 * 2 + 3 * 6) / 4 = 5."""
    X = np.array([[0.0], [1.0], [2.0]])
    y = np.array([[2.0], [6.0], [100.0]])
    w = np.array([[0.0, 2.0, 0.0], [1.0, 3.0, 0.0]])
    got = RegressionTreeBatch(X, y, w, np.random.default_rng(0)).predict(
        np.array([[-5.0], [0.5], [9.0]]))
    np.testing.assert_allclose(got[..., 0], [[6.0, 6.0, 6.0], [5.0, 5.0, 5.0]])


def test_every_feature_is_a_candidate_when_asked():
    """Feature 0 is constant and cannot split; feature 1 separates the targets 0 and 1.
    With every feature a candidate the root always splits on feature 1, into leaves of
    weight 3 < 5: predictions 0 and 1 exactly."""
    X = np.array([[7.0, 0.0]] * 3 + [[7.0, 1.0]] * 3)
    y = np.array([0.0] * 3 + [1.0] * 3)
    w = np.ones((20, 6))
    trees = RegressionTreeBatch(X, y, w, np.random.default_rng(0), features=2)
    assert set(trees.feature[trees.left >= 0].tolist()) == {1}
    np.testing.assert_array_equal(trees.predict(X)[..., 0], np.tile(y, (20, 1)))


def test_deterministic_given_the_generator():
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(20, 6)), rng.normal(size=(20, 3))
    w = rng.integers(0, 3, size=(5, 20)).astype(float)
    one = RegressionTreeBatch(X, y, w, np.random.default_rng(9), min_split=2)
    two = RegressionTreeBatch(X, y, w, np.random.default_rng(9), min_split=2)
    for name in ("feature", "threshold", "left", "value"):
        np.testing.assert_array_equal(getattr(one, name), getattr(two, name))
    new = rng.normal(size=(7, 6))
    np.testing.assert_array_equal(one.predict(new), two.predict(new))
    assert one.predict(new).shape == (5, 7, 3)
    np.testing.assert_array_equal(one.predict(new, 2), one.predict(new)[:2])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(3, 25), st.integers(1, 4),
       st.sampled_from([1, 2, 3]), st.sampled_from([2, 5]), st.sampled_from([1, 3, 10]))
def test_leaves_are_the_weighted_means_of_the_rows_they_hold(seed, n, n_features,
                                                              min_leaf, min_split, features):
    """For every tree, the training rows of its bag routed to each leaf (by predict's
    own walk) have, recomputed here, the leaf's value as weighted mean and at least
    min_leaf weight (unless the leaf is the root); every prediction lies within the
    range of the bag's targets."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, n_features)), 1)  # ties included
    y = np.round(rng.normal(size=(n, 2)), 1)
    w = rng.integers(0, 3, size=(3, n)).astype(float)
    w[:, rng.integers(n)] += 1.0
    trees = RegressionTreeBatch(X, y, w, rng, min_leaf=min_leaf, min_split=min_split,
                                features=features)
    leaves = trees.apply(X)  # (bags, rows, columns)
    new = rng.normal(size=(6, n_features)) * 2
    pred = trees.predict(new)
    for b in range(3):
        rows = np.flatnonzero(w[b] > 0)
        for a in range(2):
            for leaf in np.unique(leaves[b, rows, a]):
                held = rows[leaves[b, rows, a] == leaf]
                assert w[b, held].sum() >= min(min_leaf, w[b].sum())  # or the root
                assert trees.value[leaf] == pytest.approx(
                    np.average(y[held, a], weights=w[b, held]))
            lo, hi = y[rows, a].min(), y[rows, a].max()
            assert (pred[b, :, a] >= lo - 1e-9).all() and (pred[b, :, a] <= hi + 1e-9).all()


def test_a_large_least_leaf_makes_stumps_or_leaves():
    """Bag weight 10 and min_leaf 4 (> 10 / 3): a split leaves at most 6 on a side,
    under 2 * 4, so no child splits again; min_leaf 6 (> 10 / 2) allows no split."""
    rng = np.random.default_rng(4)
    X, y = rng.normal(size=(10, 3)), rng.normal(size=(10, 4))
    w = np.ones((6, 10))
    assert (_depth(RegressionTreeBatch(X, y, w, rng, min_leaf=4)) <= 1).all()
    assert (_depth(RegressionTreeBatch(X, y, w, rng, min_leaf=4)) == 1).any()
    assert (_depth(RegressionTreeBatch(X, y, w, rng, min_leaf=6)) == 0).all()
    assert (_depth(RegressionTreeBatch(X, y, w, rng, min_leaf=1, min_split=2)) > 1).all()


def test_bad_input_is_refused_with_its_name():
    X, y, w = np.zeros((3, 2)), np.zeros((3, 1)), np.ones((2, 3))
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="weights must be non-negative"):
        RegressionTreeBatch(X, y, -w, rng)
    with pytest.raises(ValueError, match="every bag needs a positive total"):
        RegressionTreeBatch(X, y, np.zeros((2, 3)), rng)
    with pytest.raises(ValueError, match="target must be finite"):
        RegressionTreeBatch(X, np.zeros((4, 1)), w, rng)
    with pytest.raises(ValueError, match="min_leaf must be a positive number"):
        RegressionTreeBatch(X, y, w, rng, min_leaf=0)
    with pytest.raises(ValueError, match="features must be a positive integer"):
        RegressionTreeBatch(X, y, w, rng, features=0)
    with pytest.raises(ValueError, match="X must be a finite 2-D array"):
        RegressionTreeBatch(np.full((3, 2), np.nan), y, w, rng)
    with pytest.raises(ValueError, match=r"labels must be classes 0 and 1, got values \[0.5\]"):
        TreeBatch(X, np.array([[0, 1, 0.5], [0, 1, 1]]), w, rng)
    with pytest.raises(ValueError, match="labels must be classes 0 and 1"):
        TreeBatch.forests(X, np.full((1, 3), 2.0), np.ones((1, 3)), w, rng)


# ------------------------------------------------- classification trees (TreeBatch)
def _literal_leaf(trees, t, x):
    """The leaf of tree ``t`` that point ``x`` reaches, one node at a time."""
    node = t
    while trees.left[node] >= 0:
        node = trees.left[node] + int(x[trees.feature[node]] > trees.threshold[node])
    return node


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 30), st.integers(1, 4), st.integers(1, 6))
def test_classification_leaves_hold_the_weighted_share_of_class_one(seed, n, n_features,
                                                                    n_trees):
    """Each tree's training rows of positive weight, routed to the leaves one node at a
    time, give every leaf its value (the weighted share of class 1); a leaf whose rows
    all share one class predicts it, an empty-weight tree 0.5 everywhere; predict walks
    to the same leaves; and the values of the rows of weight 0 change nothing."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, n_features)), 1)  # ties included
    labels = (rng.random((n_trees, n)) < 0.5).astype(float)
    w = rng.integers(0, 3, size=(n_trees, n)) * rng.choice([0.5, 1.0, 2.25], (n_trees, n))
    trees = TreeBatch(X, labels, w, np.random.default_rng(seed))
    new = np.round(rng.normal(size=(5, n_features)) * 2, 1)
    pred = trees.predict(np.vstack([X, new]))
    for t in range(n_trees):
        leaves = np.array([_literal_leaf(trees, t, x) for x in np.vstack([X, new])])
        np.testing.assert_array_equal(pred[t], trees.value[leaves])
        rows = np.flatnonzero(w[t] > 0)
        if rows.size < 2:
            assert (pred[t] == 0.5).all()
            continue
        for leaf in np.unique(leaves[rows]):
            held = rows[leaves[rows] == leaf]
            share = np.average(labels[t, held], weights=w[t, held])
            assert trees.value[leaf] == pytest.approx(share)
            if share in (0.0, 1.0):
                assert trees.value[leaf] == share
    # predict_at walks only the (tree, point) pairs asked for, to the same leaves
    points = np.vstack([X, new])
    tree = rng.integers(0, n_trees, size=3 * len(points))
    point = rng.integers(0, len(points), size=tree.size)
    np.testing.assert_array_equal(trees.predict_at(points, tree, point), pred[tree, point])
    moved = X.copy()
    unused = ~(w > 0).any(axis=0)
    moved[unused] = rng.normal(size=(int(unused.sum()), n_features)) * 9
    again = TreeBatch(moved, labels, w, np.random.default_rng(seed))
    for field in ("feature", "threshold", "left", "value"):
        np.testing.assert_array_equal(getattr(again, field), getattr(trees, field))


# --------------------------------------------- the same trees, grown faster (TreeBatch)
@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 40), st.integers(1, 5), st.integers(1, 6),
       st.integers(1, 7))
def test_forests_grow_the_trees_of_the_repeated_arrays(seed, n, n_features, n_forests,
                                                      n_bags):
    """TreeBatch.forests(X, labels, cost, bags) grows, node for node, the trees of
    TreeBatch on labels repeated per bag and cost times each bag's weights (ties of a
    pair, cost 0, and rows out of a bag included)."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, n_features)), 1)
    labels = (rng.random((n_forests, n)) < 0.5).astype(float)
    cost = rng.random((n_forests, n)) * (rng.random((n_forests, n)) < 0.8)
    bags = rng.integers(0, 3, size=(n_bags, n)).astype(float)
    dense = TreeBatch(X, np.repeat(labels, n_bags, axis=0),
                      (cost[:, None, :] * bags[None]).reshape(n_forests * n_bags, n),
                      np.random.default_rng(seed))
    grown = TreeBatch.forests(X, labels, cost, bags, np.random.default_rng(seed))
    for field in ("feature", "threshold", "left", "value"):
        np.testing.assert_array_equal(getattr(grown, field), getattr(dense, field))
    np.testing.assert_array_equal(grown.predict(X), dense.predict(X))
    with pytest.raises(ValueError, match="labels and cost must be of one shape"):
        TreeBatch.forests(X, labels, cost[:, :-1], bags, rng)


def test_the_block_size_changes_no_tree(monkeypatch):
    """The candidate splits are evaluated a block of nodes at a time: blocks of one
    item (every node alone) or of a few give the trees of one block."""
    from metaeval.recommend.learners import _trees

    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(30, 4)), 1)
    labels = (rng.random((8, 30)) < 0.4).astype(float)
    w = rng.integers(0, 3, size=(8, 30)) * rng.random((8, 30))
    whole = TreeBatch(X, labels, w, np.random.default_rng(5))
    for rows in (1, 7):
        monkeypatch.setattr(_trees, "_BLOCK_ROWS", rows)
        blocks = TreeBatch(X, labels, w, np.random.default_rng(5))
        for field in ("feature", "threshold", "left", "value"):
            np.testing.assert_array_equal(getattr(blocks, field), getattr(whole, field))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12))
def test_regrouped_places_are_the_stable_sort_by_next_node(seed, m):
    """The places _regrouped gives the kept items are those of a stable sort of the
    items by their next node (a node drawn again keeps its id, a split node's children
    are numbered after every id), and the other items come after them."""
    from metaeval.recommend.learners._trees import _regrouped

    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 6, size=m)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    ids = np.sort(rng.choice(100, size=m, replace=False))
    kind = rng.integers(0, 3, size=m)  # 0: leaf, 1: drawn again, 2: split
    again, split = kind == 1, kind == 2
    side = rng.random(counts.sum()) < 0.5
    first = np.full(m, -1)
    first[split] = 100 + 2 * np.arange(split.sum())
    seg = np.repeat(np.arange(m), counts)
    child = np.where(again[seg], ids[seg], first[seg] + ~side)
    kept = np.flatnonzero((again | split)[seg])
    expected = kept[np.argsort(child[kept], kind="stable")]
    place, n_kept, n_left = _regrouped(starts, counts, again, split, side, np.int32)
    # with the spare arrays a tree batch hands it (longer than the level): the same
    arange = np.arange(side.size + 5, dtype=np.int32)
    work = np.full(side.size + 5, -7, dtype=np.int32)
    buffered = _regrouped(starts, counts, again, split, side, np.int32, arange, work)
    np.testing.assert_array_equal(buffered[0], place)
    assert buffered[1] == n_kept
    np.testing.assert_array_equal(buffered[2], n_left)
    np.testing.assert_array_equal(arange, np.arange(side.size + 5))  # left as it was
    assert n_kept == kept.size
    np.testing.assert_array_equal(np.sort(place), np.arange(side.size))
    at = np.empty(side.size, dtype=np.int64)
    at[place] = np.arange(side.size)
    np.testing.assert_array_equal(at[:n_kept], expected)
    np.testing.assert_array_equal(n_left[split],
                                  np.add.reduceat(side.astype(int), starts)[split])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.integers(1, 12), st.integers(1, 4))
def test_prefix_means_are_the_cumulative_sums_bit_for_bit(seed, n_trees, n, n_lead):
    """The forests' out-of-bag means over the first t trees (summed a tree at a time)
    are, to the last bit (signed zeros and NaN where no tree qualifies included), those
    of np.cumsum over the masked values, as they were computed before; a view of
    another layout (the regression's moved axis) too."""
    from metaeval.recommend.learners._learners_forest import _prefix_means

    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n_lead, n_trees, n)) * 10.0 ** rng.integers(-6, 6, (n_lead,
                                                                                  n_trees, n))
    values[rng.random(values.shape) < 0.1] = 0.0
    values[rng.random(values.shape) < 0.1] = -0.0
    mask = rng.random((n_trees, n)) < rng.random()
    sizes = sorted(set(rng.integers(1, n_trees + 1, size=3).tolist()))
    moved = np.moveaxis(rng.normal(size=(n_trees, n, n_lead)), 2, 0)
    for v in (values, moved):
        m = mask.astype(np.float64)
        total, count = np.cumsum(v * m, axis=-2), np.cumsum(m, axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            expected = np.stack([total[..., t - 1, :] / count[t - 1] for t in sizes])
        got = _prefix_means(v, mask, sizes)
        assert got.shape == expected.shape == (len(sizes), n_lead, n)
        np.testing.assert_array_equal(got.view(np.int64), expected.view(np.int64))


def _digest(*arrays):
    import hashlib

    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def test_the_trees_grown_are_those_of_the_published_figures():
    """Speed-ups of the tree batches must not move a bit: a forest of each kind grown on
    a fixed problem (pure nodes, ties of a pair and rows out of a bag included) has the
    SHA-256 of its node arrays and predictions that the code behind the published ASlib
    figures gave (commit 0efcacd). Pinned for the NumPy it was computed with."""
    if not np.__version__.startswith("2.4."):
        pytest.skip(f"the digests were computed with NumPy 2.4, this is {np.__version__}")
    rng = np.random.default_rng(2026)
    X = np.round(rng.normal(size=(300, 12)), 2)
    labels = (X[:, 0] + rng.normal(size=(25, 300)) > 0).astype(float)
    cost = rng.random((25, 300)) * (rng.random((25, 300)) < 0.9)
    bags = rng.integers(0, 3, size=(20, 300)).astype(float)
    trees = TreeBatch.forests(X, labels, cost, bags, np.random.default_rng(7))
    new = np.round(rng.normal(size=(40, 12)), 2)
    assert trees.left.size == 70148
    # the node indices as 64-bit integers (their type then): the values are pinned
    assert _digest(trees.feature.astype(np.int64), trees.threshold,
                   trees.left.astype(np.int64), trees.value, trees.predict(new)) == (
        "13c89fc4510e0228c1ec25f718cf2b3d96c4c5aeb508d2f441023ecdaf214889")
    target = X[:, :3] @ rng.normal(size=(3, 4)) + rng.normal(size=(300, 4))
    w = rng.integers(0, 3, size=(15, 300)).astype(float)
    reg = RegressionTreeBatch(X, target, w, np.random.default_rng(8))
    assert reg.left.size == 13942
    assert _digest(reg.feature, reg.threshold, reg.left, reg.value, reg.predict(new)) == (
        "0aadbface6d07d15dd0b39d9cd249a2bcfbc31d5b3cd5b35601130da21abfeae")


@pytest.mark.parametrize("chunk", [1, 400, 1 << 22])  # forests at a time: 1, 2, all
def test_out_of_bag_means_a_few_forests_at_a_time_are_those_of_all_at_once(chunk,
                                                                            monkeypatch):
    """The pairwise learner's inner predictions, computed a few forests at a time, are
    to the last bit the means over each prefix of trees of every tree's prediction where
    the tree is out of bag (all trees predicted, then masked: the former computation)."""
    from metaeval.recommend.learners import _learners_forest
    from metaeval.recommend.learners._learners_forest import _out_of_bag_means, _prefix_means

    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(60, 4)), 1)  # ties
    labels = (X[:, 0] + rng.normal(size=(7, 60)) > 0).astype(float)
    cost = rng.random((7, 60)) * (rng.random((7, 60)) < 0.8)
    bags = rng.integers(0, 3, size=(9, 60)).astype(float)
    trees = TreeBatch.forests(X, labels, cost, bags, np.random.default_rng(1))
    oob = bags == 0
    monkeypatch.setattr(_learners_forest, "_OOB_CHUNK", chunk)
    got = _out_of_bag_means(trees, X, oob, 7, [3, 9])
    every = trees.predict(X).reshape(7, 9, 60) * oob  # in-bag trees count 0
    expected = _prefix_means(every, oob, [3, 9])
    assert got.shape == (2, 7, 60)
    np.testing.assert_array_equal(got.view(np.int64), expected.view(np.int64))
    assert np.isnan(got).any() and np.isfinite(got).any()  # rows no tree left out, others
