"""SUNNY's per-instance schedules (an option): the schedule's rules on hand-worked
neighbourhoods and against a brute force over every sub-portfolio, running a schedule,
and a small runtime scenario evaluated by hand."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval.recommend import evaluate_aslib, evaluate_sunny, read_aslib, sunny_schedule
from metaeval.recommend.aslib._sunny import run_schedule


def test_the_schedule_of_a_worked_neighbourhood():
    """Cutoff 100, four neighbours. A solves the first two in 10 s, B the third in 50 s,
    nothing the fourth: S = {A, B} solves 3; A gets 2 units, B 1, the backup C 1 for
    the unsolved neighbour: 90 s left (10 s of features) make units of 22.5 s; A (mean
    time 55 s) runs first, then B (87.5 s), then C (100 s)."""
    rt = np.array([[10., 100, 100], [10, 100, 100], [100, 50, 100], [100, 100, 100]])
    assert sunny_schedule(rt, rt < 100, 100.0, 90.0, backup=2, lam=2) == [
        (0, 45.0), (1, 22.5), (2, 22.5)]
    # lam = 1: A alone (2 solved); the backup C gets the other two neighbours' share
    assert sunny_schedule(rt, rt < 100, 100.0, 90.0, backup=2, lam=1) == [
        (0, 45.0), (2, 45.0)]
    # the backup in S: its shares are added
    assert sunny_schedule(rt, rt < 100, 100.0, 90.0, backup=0, lam=2) == [
        (0, 67.5), (1, 22.5)]
    # nothing solves any neighbour: all the time to the backup
    assert sunny_schedule(rt, np.zeros_like(rt, dtype=bool), 100.0, 90.0, backup=1) == [
        (1, 90.0)]


def test_ties_go_to_the_fewer_algorithms_then_to_the_earlier():
    """A and B each solve both neighbours in 5 s: {A} and {B} tie on solved and time, and
    {A, B} on both too: the single algorithm first in the scenario's order, A."""
    rt = np.array([[5., 5], [5, 5]])
    assert sunny_schedule(rt, rt < 10, 10.0, 10.0, backup=1, lam=2) == [(0, 10.0)]
    # B faster on the neighbours (4 s in all against A's 10): {B}, whatever the backup
    rt = np.array([[5., 2], [5, 2]])
    assert sunny_schedule(rt, rt < 10, 10.0, 10.0, backup=0, lam=2) == [(1, 10.0)]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(2, 5), st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_the_sub_portfolio_is_the_brute_forces_best(k, n, lam, seed):
    """Any neighbourhood: the schedule's algorithms (but a backup added for unsolved
    neighbours) are the sub-portfolio of at most lam algorithms that solves the most
    neighbours, then spends the least time, found by trying every one; slots are
    non-negative, sum to the time left, name each algorithm once, and run in increasing
    mean time on the neighbours."""
    rng = np.random.default_rng(seed)
    cutoff = 10.0
    rt = np.round(rng.uniform(0, 14, (k, n)))  # ties on purpose
    ok = rt < cutoff
    backup = int(rng.integers(n))
    schedule = sunny_schedule(rt, ok, cutoff, 7.0, backup, lam)
    columns = [j for j, _ in schedule]
    assert len(set(columns)) == len(columns)
    assert all(s >= 0 for _, s in schedule) and sum(s for _, s in schedule) == \
        pytest.approx(7.0)
    t = np.where(ok, rt, cutoff)
    keys = {}
    for size in range(1, min(lam, n) + 1):
        for sub in combinations(range(n), size):
            keys[sub] = (-int(ok[:, list(sub)].any(axis=1).sum()),
                         float(t[:, list(sub)].min(axis=1).sum()), size)
    best_key = min(keys.values())
    best = [sub for sub, key in keys.items() if key == best_key][0]
    solving = [j for j in best if ok[:, j].any()]
    unsolved = k + best_key[0]
    expected = set(solving) | ({backup} if unsolved > 0 or not solving else set())
    assert set(columns) == expected
    mean = t.mean(axis=0)
    assert [mean[j] for j in columns] == sorted(mean[j] for j in columns)


def test_running_a_schedule():
    solved = np.array([True, True])
    # the first algorithm does not fit its slot; the second solves after it
    assert run_schedule([(0, 50.0), (1, 25.0)], np.array([60.0, 5.0]), solved, 100.0,
                        start=2.0) == (57.0, True)
    # fits its slot, but the features and the slots before end past the cutoff
    assert run_schedule([(0, 50.0), (1, 49.0)], np.array([60.0, 48.5]), solved, 100.0,
                        start=2.0) == (1000.0, False)
    # nothing solves it: PAR10
    assert run_schedule([(0, 100.0)], np.array([60.0, 5.0]), np.array([False, True]),
                        100.0) == (1000.0, False)


DESCRIPTION = """\
scenario_id: SUNNY-TOY
performance_measures: [runtime]
maximize: [false]
performance_type: [runtime]
algorithm_cutoff_time: 10
algorithms_deterministic: [A, B]
default_steps: [basic]
feature_steps:
  basic:
    provides: [x]
"""
#: instance: (x, A's runtime, B's runtime, fold); 10 = a timeout
TOY = {"a1": (0, 1, 10, 1), "b1": (10, 10, 2, 1), "a2": (1, 1, 10, 2), "b2": (9, 10, 2, 2),
       "a3": (2, 1, 10, 3), "b3": (8, 10, 2, 3), "m": (5, 10, 2, 4)}


def _toy(root: Path) -> Path:
    head = "@RELATION r\n@ATTRIBUTE instance_id STRING\n@ATTRIBUTE repetition NUMERIC\n"
    root.mkdir()
    (root / "description.txt").write_text(DESCRIPTION)
    (root / "algorithm_runs.arff").write_text(
        head + "@ATTRIBUTE algorithm STRING\n@ATTRIBUTE runtime NUMERIC\n"
        "@ATTRIBUTE runstatus {ok, timeout}\n@DATA\n" + "".join(
            f"{i},1,{a},{r},{'ok' if r < 10 else 'timeout'}\n"
            for i, (_, ra, rb, _) in TOY.items() for a, r in (("A", ra), ("B", rb))))
    (root / "feature_values.arff").write_text(
        head + "@ATTRIBUTE x NUMERIC\n@DATA\n" + "".join(
            f"{i},1,{x}\n" for i, (x, *_) in TOY.items()))
    (root / "feature_runstatus.arff").write_text(
        head + "@ATTRIBUTE basic {ok, presolved}\n@DATA\n" + "".join(
            f"{i},1,ok\n" for i in TOY))
    (root / "feature_costs.arff").write_text(
        head + "@ATTRIBUTE basic NUMERIC\n@DATA\n" + "".join(f"{i},1,0.5\n" for i in TOY))
    (root / "cv.arff").write_text(
        head + "@ATTRIBUTE fold NUMERIC\n@DATA\n" + "".join(
            f"{i},1,{f}\n" for i, (*_, f) in TOY.items()))
    return root


def test_a_toy_scenario_by_hand(tmp_path):
    """k = 2, lam = 2. Each a (b) has two a (b) neighbours: A (B) alone for the 9.5 s
    left after 0.5 s of features: 0.5 + 1 = 1.5 s (0.5 + 2 = 2.5 s). m (x = 5) has a3
    (x = 2) and b3 (x = 8): {A, B} solves both, 4.75 s each, A first (mean time 5.5 s
    against 6): A times out on m, B solves it after 0.5 + 4.75 + 2 = 7.25 s. Mean PAR10
    (3 x 1.5 + 3 x 2.5 + 7.25) / 7 = 19.25 / 7; single best B ((3 x 100 + 4 x 2) / 7 =
    308 / 7 against A's (3 + 4 x 100) / 7 = 403 / 7), virtual best (3 + 4 x 2) / 7 =
    11 / 7."""
    sc = read_aslib(_toy(tmp_path / "toy"))
    ev = evaluate_sunny(sc, k=2, lam=2)
    per = ev.per_instance.set_index("instance")
    assert per.loc["m", "schedule"] == "A:4.75;B:4.75"
    assert per.loc["m", "par10"] == pytest.approx(7.25)
    assert per.loc["a1", "schedule"] == "A:9.5" and per.loc["b2", "par10"] == 2.5
    assert ev.par10 == pytest.approx(19.25 / 7)
    assert ev.sbs_whole == pytest.approx(308 / 7) and ev.vbs == pytest.approx(11 / 7)
    assert ev.gap_closed_whole_sbs == pytest.approx((308 - 19.25) / (308 - 11))
    ref = evaluate_aslib(sc, ["single-best", "oracle"], n_boot=10)
    assert (ref.sbs_whole, ref.vbs) == pytest.approx((ev.sbs_whole, ev.vbs))
    # without feature costs: 1, 2, and m 4.75 + 2 of 10 s split in two 5 s slots: 7
    free = evaluate_sunny(sc, k=2, lam=2, feature_costs=False).per_instance
    assert free.set_index("instance").loc["m", "par10"] == pytest.approx(7.0)
    # chosen on the training instances (leave-one-out): the same schedules here
    chosen = evaluate_sunny(sc)
    assert set(chosen.per_instance["lam"]) <= {1, 2, 3}
    assert chosen.per_instance["par10"].mean() <= 10 * 10


def test_a_presolved_instance_costs_its_features(tmp_path):
    root = _toy(tmp_path / "toy")
    status = (root / "feature_runstatus.arff").read_text().replace("m,1,ok", "m,1,presolved")
    (root / "feature_runstatus.arff").write_text(status)
    per = evaluate_sunny(read_aslib(root), k=2, lam=2).per_instance.set_index("instance")
    assert per.loc["m", "par10"] == 0.5 and per.loc["m", "solved"]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"k": 0}, "k must be a positive integer"), ({"lam": 1.5}, "lam must be a positive"),
    ({"k": True}, "k must be a positive integer")])
def test_bad_parameters_are_value_errors_naming_them(tmp_path, kwargs, message):
    with pytest.raises(ValueError, match=message):
        evaluate_sunny(read_aslib(_toy(tmp_path / "toy")), **kwargs)
