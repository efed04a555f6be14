"""The greedy portfolios of every leave-one-family-out training set, computed together,
are the portfolios computed one at a time, to the last tie."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import metaeval.recommend.learners._portfolio_loo as loo
from metaeval.recommend.learners._learners import greedy_portfolio_order
from metaeval.recommend.learners._portfolio_loo import greedy_portfolio_orders_without


def one_at_a_time(loss, codes, n_families):
    return [greedy_portfolio_order(loss[codes != f]) for f in range(n_families)]


def assert_same(loss, codes, n_families):
    """The same orders, every step shared while two families take it (``alone=0``), a
    group of up to two finishing one at a time, and by default."""
    alone = one_at_a_time(loss, codes, n_families)
    for size in (0, 2, None):
        together = greedy_portfolio_orders_without(loss, codes, n_families, alone=size)
        assert len(together) == n_families
        for f, (a, b) in enumerate(zip(together, alone, strict=True)):
            assert a.dtype == b.dtype and a.tolist() == b.tolist(), f"family {f}, {size}"


def test_a_worked_example():
    loss = np.array([[0.0, 0.3, 0.1],
                     [0.4, 0.0, 0.2],
                     [0.5, 0.0, 0.1]])
    orders = greedy_portfolio_orders_without(loss, np.arange(3), 3, alone=0)
    # without dataset 0: column means 0.45, 0, 0.15 -> 1; the loss is then 0: stop
    assert orders[0].tolist() == [1]
    # without dataset 1: means 0.25, 0.15, 0.1 -> 2, best losses (0.1, 0.1); then
    # column 0 gives (0, 0.1) and column 1 (0.1, 0), both 0.05: the earlier, 0; then 1
    assert orders[1].tolist() == [2, 0, 1]
    # without dataset 2: means 0.2, 0.15, 0.15 -> 1 (the earlier of a tie), best
    # losses (0.3, 0); column 0 lowers them to 0 -> 0
    assert orders[2].tolist() == [1, 0]
    assert_same(loss, np.arange(3), 3)


# a few decimal values, whose sums are inexact: means that are equal in exact arithmetic
# and differ in their last bits, and many exact ties
decimals = st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.7, 1.0, 1e-17, 3.0])


@settings(max_examples=200, deadline=None)
@given(loss=arrays(np.float64, st.tuples(st.integers(2, 14), st.integers(1, 6)),
                   elements=decimals),
       n_families=st.integers(1, 6), data=st.data())
def test_the_same_orders_as_one_at_a_time(loss, n_families, data):
    codes = np.array(data.draw(st.lists(st.integers(0, n_families - 1),
                                        min_size=loss.shape[0], max_size=loss.shape[0])))
    assert_same(loss, codes, n_families)


@settings(max_examples=100, deadline=None)
@given(loss=arrays(np.float64, st.tuples(st.integers(2, 10), st.integers(1, 5)),
                   elements=st.floats(-5, 5, allow_nan=False, width=32)))
def test_negative_losses_too(loss):
    assert_same(loss, np.arange(loss.shape[0]), loss.shape[0])


def test_large_losses_of_many_datasets_decide_close_steps_as_computed_alone(monkeypatch):
    # PAR10-like losses (thousands of seconds) over 300 datasets, with columns that tie
    # in exact arithmetic: their shared means cannot tell those steps apart, and the
    # steps are computed alone (counted), with the same result
    rng = np.random.default_rng(3)
    base = rng.choice([0.0, 0.1, 12.3, 5000.0, 50000.0], size=(300, 6))
    loss = np.hstack([base, base[:, ::-1], base[:, [1, 0, 2, 3, 4, 5]]])
    calls = []
    real = loo._exact_step
    monkeypatch.setattr(loo, "_exact_step", lambda *a: calls.append(1) or real(*a))
    assert_same(loss, np.arange(300), 300)
    assert calls, "no step was close enough to need computing alone"


def test_families_of_several_datasets_and_empty_ones():
    rng = np.random.default_rng(0)
    loss = rng.choice([0.0, 0.25, 0.5, 1.0], size=(40, 7))
    codes = rng.integers(0, 9, size=40)
    codes[codes == 4] = 5  # family 4 is empty: its portfolio is the whole data's
    assert_same(loss, codes, 9)
    assert greedy_portfolio_orders_without(loss, codes, 9)[4].tolist() == \
        greedy_portfolio_order(loss).tolist()


def test_one_family_holding_everything():
    loss = np.array([[0.0, 1.0], [1.0, 0.0]])
    (order,) = greedy_portfolio_orders_without(loss, np.zeros(2, dtype=int), 1)
    assert order.tolist() == greedy_portfolio_order(loss[:0]).tolist() == []


@pytest.mark.parametrize("bad", [np.inf, np.nan])
def test_non_finite_losses_are_computed_alone(bad):
    loss = np.array([[0.0, bad], [1.0, 0.0], [0.5, 0.5]])
    assert_same(loss, np.arange(3), 3)
