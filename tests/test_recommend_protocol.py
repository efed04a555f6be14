"""The evaluation's protocol: the algorithm kept after each test is chosen on results
the score does not see; the random order's closed form with such a choice; every
column in the JSON; figures that do not depend on the machine's summation order."""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval.recommend._curves import kept, loss_curve, random_loss_at

_values = st.lists(st.sampled_from([0.5, 0.6, 0.7, 0.8, 0.9]), min_size=1, max_size=5)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_kept_is_the_best_so_far_by_the_chooser_earliest_on_ties(data):
    chooser = data.draw(_values)
    n = len(chooser)
    order = data.draw(st.permutations(range(n)))
    got = kept(order, chooser).tolist()
    for k in range(1, n + 1):
        tested = order[:k]
        best = max(chooser[j] for j in tested)
        assert got[k - 1] == next(j for j in tested if chooser[j] == best)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_random_loss_with_a_chooser_is_the_mean_over_every_order(data):
    """Brute force: every permutation of up to 5 algorithms, ties in the chooser
    included (the earliest tested of a tied block is kept)."""
    success = data.draw(_values)
    n = len(success)
    chooser = data.draw(st.lists(st.sampled_from([0.5, 0.6, 0.7]), min_size=n, max_size=n))
    orders = np.array(list(itertools.permutations(range(n))))
    loss, _ = loss_curve(success, np.ones(n), orders, chooser=chooser)
    for k in range(1, n + 1):
        assert math.isclose(random_loss_at(success, k, chooser), loss[:, k - 1].mean(),
                            abs_tol=1e-12)
        # chosen on the truth itself: the old closed form
        same, _ = loss_curve(success, np.ones(n), orders)
        assert math.isclose(random_loss_at(success, k), same[:, k - 1].mean(),
                            abs_tol=1e-12)
