"""``auto``'s pre-solving schedule and truncated vote (docs/aslib_schedule_plan.md): the
choice against a literal search, and the evaluation's scoring against a literal
per-instance pipeline on a runtime scenario written here."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval.recommend import KnowledgeBase, evaluate_aslib, read_aslib
from metaeval.recommend.learners._auto import Auto, borda
from metaeval.recommend.learners._presolve import (
    PRESOLVE_CANDIDATES,
    PRESOLVE_FRACTIONS,
    choose_presolver,
    pipeline_par10,
)


def _literal_par10(runtime, ok, first, cost, cutoff, presolver=None, seconds=0.0):
    """One instance at a time, as a person would run the pipeline."""
    out = []
    for i in range(len(first)):
        if presolver is not None and seconds > 0 and ok[i][presolver] and \
                runtime[i][presolver] <= seconds:
            out.append(runtime[i][presolver])
            continue
        p = first[i]
        total = seconds + cost[i] + runtime[i][p]
        out.append(total if ok[i][p] and total < cutoff else 10 * cutoff)
    return out


# runtimes from a few values (ties everywhere), some at the cutoff (timeouts)
_runs = st.integers(2, 12).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.sampled_from([0.05, 0.1, 0.2, 0.5, 1.0, 3.0, 30.0, 100.0]),
                      min_size=4, max_size=4), min_size=n, max_size=n),
    st.lists(st.integers(0, 3), min_size=n, max_size=n),
    st.lists(st.sampled_from([0.0, 0.05, 1.0, 20.0]), min_size=n, max_size=n)))


@settings(max_examples=60, deadline=None)
@given(_runs)
def test_the_schedule_is_the_best_pair_of_a_literal_search(runs):
    """Cutoff 100: a run of 100 s is a timeout. The pair returned has the lowest mean
    PAR10 of every (candidate, time) pair, run instance by instance; None exactly when
    no pair is lower than no pre-solver."""
    runtime, first, cost = runs
    cutoff = 100.0
    ok = [[r < cutoff for r in row] for row in runtime]
    par10 = np.array([[r if r < cutoff else 10 * cutoff for r in row] for row in runtime])
    first, cost = np.array(first), np.array(cost)
    base = np.mean(_literal_par10(runtime, ok, first, cost, cutoff))
    np.testing.assert_allclose(pipeline_par10(par10, first, cost, cutoff),
                               _literal_par10(runtime, ok, first, cost, cutoff))
    means = sorted(range(4), key=lambda a: (par10[:, a].mean(), a))[:PRESOLVE_CANDIDATES]
    pairs = {(a, f * cutoff): np.mean(_literal_par10(runtime, ok, first, cost, cutoff, a,
                                                     f * cutoff))
             for a in means for f in PRESOLVE_FRACTIONS}
    got = choose_presolver(par10, first, cost, cutoff)
    best = min(pairs.values())
    if best < base - 1e-9:
        assert got is not None
        a, seconds, with_, without = got
        assert with_ == pytest.approx(best) and pairs[a, seconds] == pytest.approx(best)
        assert without == pytest.approx(base)
    else:
        assert got is None


def test_the_schedule_by_hand():
    """Cutoff 100, features 10 s. Algorithm 0 solves the first two instances in 0.1 and
    0.4 s and times out on the third; the pick (1) takes 50 s everywhere. Without a
    pre-solver: 60 s each. Pre-solving with 0 for 0.1 s (0.001 of the cutoff): 0.1,
    0.1 + 60, 0.1 + 60 (mean 40.1); for 0.5 s (0.005): 0.1, 0.4, 60.5 (mean 20.33...):
    chosen."""
    par10 = np.array([[0.1, 50.0], [0.4, 50.0], [1000.0, 50.0]])
    a, seconds, with_, without = choose_presolver(par10, np.array([1, 1, 1]),
                                                  np.full(3, 10.0), 100.0)
    assert (a, seconds, without) == (0, 0.5, 60.0)
    assert with_ == pytest.approx((0.1 + 0.4 + 60.5) / 3)


def test_truncated_borda_tells_apart_only_the_top():
    """Four voters over five algorithms; a is first for three voters and last for one.
    Full Borda sums of positions: a 0+0+4+0 = 4, b 1+1+0+1 = 3, c 7, d 11, e 15: b
    first. Truncated at 2 (a position past the second counts as the second): a
    0+0+2+0 = 2, b 3, c 2+2+1+2 = 7, d and e 8 (tied: the lead voter's order): a
    first. At 1 (plurality): a 1, b 3, c, d, e 4 each, in the lead's order."""
    a, b, c, d, e = range(5)
    ab = np.array([[a, b, c, d, e]])
    orders = [ab, ab, np.array([[b, c, d, e, a]]), ab]
    assert borda(orders).tolist() == [[b, a, c, d, e]]
    assert borda(orders, top=2).tolist() == [[a, b, c, d, e]]
    assert borda(orders, top=1).tolist() == [[a, b, c, d, e]]
    # the lead breaks the ties: voter 2 orders c, d, e the same way, but b before a
    assert borda(orders, lead=2, top=1).tolist() == [[a, b, c, d, e]]
    assert borda(orders, lead=2, top=5).tolist() == borda(orders).tolist()


def test_auto_checks_its_new_parameters():
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="top must be a positive integer or None"):
            Auto(top=bad)
    for bad in (0, -5.0, float("nan"), float("inf"), True, "10"):
        with pytest.raises(ValueError, match="presolve_cutoff must be a positive number"):
            Auto(presolve_cutoff=bad)
    with pytest.raises(ValueError, match="presolve_costs must be True or False"):
        Auto(presolve_costs="yes")
    assert "top=None" in repr(Auto(top=None)) and "top" not in repr(Auto())
    assert "presolve_cutoff=100" in repr(Auto(presolve_cutoff=100))


def test_a_schedule_needs_a_runtime_knowledge_base():
    """Accuracies are not 10 x cutoff - PAR10 for a cutoff of 0.01 s: refused, naming
    the parameter."""
    kb = KnowledgeBase(["d1", "d2", "d3", "d4"], ["A", "B"],
                       [[.9, .8], [.9, .7], [.8, .9], [.9, .8]], [[1, 1]] * 4)
    with pytest.raises(ValueError, match="presolve_cutoff=0.01 needs a runtime knowledge "
                                         "base"):
        Auto(presolve_cutoff=0.01).fit(kb)
    # 10 x 10 s bounds these values: a schedule is decided and recorded (here none:
    # every "runtime" is 100 - success > 10 s, a timeout, so no pre-solver solves any)
    assert Auto(presolve_cutoff=10).fit(kb).selection_["presolver"] is None


def _scenario(root, n=40, seed=3):
    """A runtime scenario, cutoff 100 s: A solves the instances of even index in 0.05 s
    and times out on the others; B takes 20 to 60 s; C is fast (8 s, longer than any
    pre-solving time) where f1 > 0.5 and slow (80 s) elsewhere; the default feature step
    costs 3 s."""
    rng = np.random.default_rng(seed)
    f1, f2 = rng.random(n).tolist(), rng.random(n).tolist()
    root.mkdir(parents=True)
    (root / "description.txt").write_text(
        "scenario_id: SCHED\nperformance_measures: [runtime]\nmaximize: [false]\n"
        "performance_type: [runtime]\nalgorithm_cutoff_time: 100\n"
        "algorithms_deterministic: A, B, C\ndefault_steps: [basic]\n"
        "feature_steps:\n  basic:\n    provides: [f1, f2]\n")
    runs, feats, costs, cv, truth = [], [], [], [], {}
    for i in range(n):
        a = (0.05, "ok") if i % 2 == 0 else (100.0, "timeout")
        b = (float(20 + 40 * f2[i]), "ok")
        c = (8.0, "ok") if f1[i] > 0.5 else (80.0, "ok")
        truth[f"i{i}"] = {"A": a, "B": b, "C": c}
        runs += [f"i{i},1,{name},{t!r},{s}" for name, (t, s) in truth[f"i{i}"].items()]
        feats.append(f"i{i},1,{f1[i]!r},{f2[i]!r}")
        costs.append(f"i{i},1,3.0")
        cv.append(f"i{i},1,{i % 4 + 1}")
    head = "@ATTRIBUTE instance_id STRING\n@ATTRIBUTE repetition NUMERIC\n"
    (root / "algorithm_runs.arff").write_text(
        "@RELATION runs\n" + head + "@ATTRIBUTE algorithm STRING\n@ATTRIBUTE runtime "
        "NUMERIC\n@ATTRIBUTE runstatus {ok, timeout, memout, not_applicable, crash, other}"
        "\n@DATA\n" + "\n".join(runs) + "\n")
    (root / "feature_values.arff").write_text(
        "@RELATION f\n" + head + "@ATTRIBUTE f1 NUMERIC\n@ATTRIBUTE f2 NUMERIC\n@DATA\n"
        + "\n".join(feats) + "\n")
    (root / "feature_costs.arff").write_text(
        "@RELATION c\n" + head + "@ATTRIBUTE basic NUMERIC\n@DATA\n" + "\n".join(costs)
        + "\n")
    (root / "feature_runstatus.arff").write_text(
        "@RELATION s\n" + head + "@ATTRIBUTE basic {ok, timeout, memout, presolved, crash, "
        "other, unknown}\n@DATA\n" + "\n".join(f"i{i},1,ok" for i in range(n)) + "\n")
    (root / "cv.arff").write_text("@RELATION cv\n" + head + "@ATTRIBUTE fold NUMERIC\n"
                                  "@DATA\n" + "\n".join(cv) + "\n")
    return root, truth


@pytest.mark.parametrize("feature_costs", [True, False])
def test_the_evaluation_scores_the_schedule_instance_by_instance(tmp_path, feature_costs):
    """Every fold's training instances say: pre-solve with A (half the instances in
    0.05 s). Each held-out instance's PAR10 is then recomputed by hand from the
    scenario's own files, the fold's schedule and the vote's first pick."""
    root, truth = _scenario(tmp_path / "sched")
    ev = evaluate_aslib(read_aslib(root), ["auto", "single-best"], n_boot=20,
                        feature_costs=feature_costs)
    per = ev.per_instance[ev.per_instance["strategy"] == "auto"]
    assert set(per["presolver"]) == {"A"}  # A pre-solves on every fold
    first = ev.curves[(ev.curves["strategy"] == "auto") & (ev.curves["step"] == 1)]
    pick = dict(zip(first["dataset"], first["algorithm"], strict=True))
    cost = 3.0 if feature_costs else 0.0
    early = 0
    for _, r in per.iterrows():
        t, runs = r["presolve_seconds"], truth[r["dataset"]]
        assert t in [f * 100 for f in PRESOLVE_FRACTIONS]
        ra, sa = runs["A"]
        if sa == "ok" and ra <= t:
            expected, fc, solved = ra, 0.0, 1.0
            early += 1
        else:
            rp, sp = runs[pick[r["dataset"]]]
            total = t + cost + rp
            ok = sp == "ok" and total < 100
            expected, fc, solved = (total if ok else 1000.0), cost, float(ok)
        assert r["performance"] == pytest.approx(expected), r["dataset"]
        assert r["feature_cost"] == pytest.approx(fc) and r["solved"] == solved
    assert 0 < early < len(per)
    told = ev.presolvers("auto")
    assert told["solved by it"] == early
    assert sum(v for k, v in told.items() if k != "solved by it") == len(per)
    assert all(k.startswith("A for ") for k in told if k != "solved by it")
    assert ev.to_json()["strategies"]["auto"]["presolvers"] == told
    assert ev.presolvers("single-best") == {}
    # the single best reads nothing and has no schedule: scored as before
    sb = ev.per_instance[ev.per_instance["strategy"] == "single-best"]
    assert sb["presolver"].isna().all()
    assert ev.summary.set_index("strategy").loc["auto", "performance"] == pytest.approx(
        per["performance"].mean())


def test_the_command_line_says_the_schedule(tmp_path):
    """``recommend --evaluate --aslib DIR --strategy auto`` prints the schedules it chose
    and how many instances the pre-solver solved, the numbers of the library's call."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "_aslib_toy_sched", Path(__file__).with_name("test_aslib.py"))
    toy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(toy)
    root, _ = _scenario(tmp_path / "sched")
    result = toy._run("recommend", "--evaluate", "--aslib", root, "--strategy", "auto")
    assert result.exit_code == 0, result.output
    told = evaluate_aslib(read_aslib(root), ["auto"]).presolvers("auto")
    solved = told.pop("solved by it")
    text = " ".join(result.output.split())
    assert ("auto's pre-solving schedule, chosen per fold on its training instances (run "
            "before the features are computed): ") in text, text
    for k, v in told.items():
        assert f"{k} before {v} instance(s)" in text
    assert f"the pre-solver solved {solved}." in text
