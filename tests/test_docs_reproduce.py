"""docs/reproduce/ (``python -m docs.reproduce``): the reproduction document, on a tiny
real study and on hand examples.

The study: ecoli3, credit-g and labor, three of the 8 algorithms of Melo & Prudêncio
(2014), namely 3NN, 5NN and NB, 3-fold cross-validation, run by
:func:`metaeval.study.run_study` into a temporary DuckDB file; the script runs with a
few bootstrap and null draws (``--draws``).
"""

from __future__ import annotations

import importlib
import re
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from metaeval.hardness import instance_hardness, instance_hardness_by_method

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # docs/ is a package of the repository root
    sys.path.insert(0, str(ROOT))
doc, ev, mp, pr, rs, st, web = (
    importlib.import_module(f"docs.reproduce.{name}")
    for name in ("document", "evidence", "melo_prudencio", "prudencio", "resampling", "study",
                 "web"))

VERDICT_WORDS = "|".join(re.escape(v) for v in (*ev.VERDICTS, *ev.UNCOUNTED, "exact: holds",
                                                 "exact: fails"))
CLAIM = re.compile(r"^- \*\*\((?P<id>[A-Za-z0-9-]+)\)\*\* .+ — \*\*(?P<verdict>"
                   + VERDICT_WORDS + r")\*\*", re.M)
NUMBERS = re.compile(
    r"= (?P<value>-?[0-9.e+-]+) \(holds when (?P<op>[<≤=≥>]) (?P<thr>-?[0-9.]+)\); 95% "
    r"interval .*?; (?P<share>[0-9.]+)% of them keep the verdict; null \(.*?\): holds in "
    r"(?P<null>[0-9.]+)% of (?P<n_null>[0-9]+) draws, p = (?P<p>[0-9.]+), Holm-adjusted "
    r"(?P<holm>[0-9.]+)")
DATASETS = ["ecoli3", "credit-g", "labor"]
ALGORITHMS = ["3NN", "5NN", "NB"]
DRAWS = ["--draws", "20", "--heavy-draws", "3", "--grid-draws", "500"]


@pytest.fixture(scope="module")
def document(tmp_path_factory):
    from metaeval.study import LocalExecutor, Study, run_study

    tmp = tmp_path_factory.mktemp("reproduce")
    store = tmp / "tiny.duckdb"
    summary = run_study(Study(datasets=DATASETS, algorithms=ALGORITHMS, folds=3,
                              executor=LocalExecutor(jobs=1), store=store))
    assert summary.exit_code == 0
    (tmp / "tiny.log").write_text("Ran 9 tasks on 1 local process in 12.5 s: 9 done, "
                                  "0 failed.\n", encoding="utf-8")
    out = tmp / "docs"
    assert doc.main(["--store", str(store), "--out", str(out), *DRAWS]) == 0
    return out, (out / "reproduction.md").read_text(encoding="utf-8")


def test_document_has_every_section_and_a_verdict_per_claim(document):
    out, text = document
    for heading in ("## How to read the verdicts", "## Summary", "## 1. How this was produced",
                    "## 2. Melo & Prudêncio (2014): Ecoli", "## 3. Melo & Prudêncio (2014)",
                    "## 4. Prudêncio (2019)", "## 5. Abdulrahman & Brazdil (2014)",
                    "## 6. The algorithm-benchmark web page", "## 7. Where we differ"):
        assert heading in text
    assert "**Coverage: 3 of 3 datasets complete** (9 of 9 tasks done, 0 failed)" in text
    assert "--folds 3" in text and "--datasets ecoli3,credit-g,labor" in text
    assert "--draws 20 --heavy-draws 3 --grid-draws 500" in text
    assert "`Ran 9 tasks on 1 local process in 12.5 s: 9 done, 0 failed` (its log)" in text
    claims = {m["id"]: m["verdict"] for m in CLAIM.finditer(text)}
    # claims that name algorithms this study lacks are not evaluable, the others are
    assert claims["E1b"] == claims["A5b"] == claims["A7"] == "not evaluable"
    for cid in ("A1b", "A1m", "A4b", "A6", "E2b", "E6m", "E7", "TIES", "T1-RD", "B3", "B4"):
        assert claims[cid] in ev.VERDICTS, cid
    assert claims["ID"] == claims["G3"] == "by construction"
    assert claims["R1"] == claims["P1"] == "exact: holds"
    assert claims["B6"] == "exact: fails"  # log2(8 / 2) = 2, not 3
    # Table 1 of Melo & Prudêncio (2014, MetaSel) sits beside ours (3NN: 0.269, 0.0694)
    row = next(line for line in text.splitlines() if line.startswith("| 3NN | 0."))
    assert "| 0.2690 | 0.0694 | 0.0833 |" in row
    for name in ("dendrograms_aggregated.png", "dendrograms_ecoli3.png",
                 "class_cost_curves_credit-g.png", "arr_sweep.png", "a3r_sweep.png",
                 "bootstrap_stability.png"):
        path = out / "figures" / name
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"(figures/{name})" in text


def test_each_printed_verdict_follows_from_its_printed_numbers(document):
    """Recompute every sampled claim's verdict from the numbers printed under it."""
    _, text = document
    ops = {"<": np.less, "≤": np.less_equal, "=": np.equal, "≥": np.greater_equal,
           ">": np.greater}
    checked, p, adjusted = 0, [], []
    for block in re.split(r"\n(?=- \*\*\()", text):
        head = CLAIM.match(block.strip())
        numbers = NUMBERS.search(block)
        if not head or not numbers:
            continue
        value = float(numbers["value"])
        holds = bool(ops[numbers["op"]](round(value, 3), float(numbers["thr"])))
        expected = ev.verdict(ev.SAMPLED, holds, float(numbers["share"]) / 100,
                              float(numbers["holm"]))
        assert head["verdict"] == expected, block.splitlines()[0]
        # the p-value is the Monte Carlo one: (1 + draws that hold) / (1 + draws)
        n_null = int(numbers["n_null"])
        hits = round(float(numbers["null"]) / 100 * n_null)
        assert float(numbers["p"]) == pytest.approx((1 + hits) / (1 + n_null), abs=6e-5)
        p.append(float(numbers["p"]))
        adjusted.append(float(numbers["holm"]))
        checked += 1
    assert checked >= 10
    # Holm's correction over every counted claim, recomputed from the printed p-values
    m = len(p)
    assert m == sum(1 for line in text.splitlines() if re.match(r"\| \(.*\| \*\*", line)
                    and re.search(r"\| [0-9.]+% \(", line))
    order = np.argsort(p, kind="stable")
    expect = np.minimum(1, np.maximum.accumulate(np.array(p)[order] * (m - np.arange(m))))
    np.testing.assert_allclose(np.array(adjusted)[order], expect, atol=m * 6e-5)


def _claim(criterion=None):
    return ev.Claim("X", "doc", "§1", "a claim", "a statistic",
                    criterion or ev.Criterion("<=", 0.01))


def test_verdicts_change_with_their_evidence():
    rng = np.random.default_rng(0)
    good_boot = rng.uniform(0.0, 0.009, 100)           # every resample holds
    far_null = rng.uniform(0.05, 0.2, 100)             # the null never earns it
    c = ev.assess(_claim(), 0.005, good_boot, far_null)
    assert (c.holds, c.share, c.null_rate, c.verdict) == (True, 1.0, 0.0, "reproduced")
    # the null earns it 10% of the time
    null = far_null.copy()
    null[:10] = 0.001
    assert ev.assess(_claim(), 0.005, good_boot, null).verdict == "not above chance"
    # only 80% of the resamples keep it
    boot = good_boot.copy()
    boot[:20] = 0.5
    c = ev.assess(_claim(), 0.005, boot, far_null)
    assert (c.share, c.verdict) == (0.8, "unstable")
    # the statistic on our data misses the threshold
    c = ev.assess(_claim(), 0.02, boot, far_null)
    assert (c.holds, c.share, c.verdict) == (False, 0.2, "not reproduced")
    # exactly at the thresholds: 90% of resamples and a p-value of (1 + 4) / (1 + 100)
    # below 5% still reproduce; (1 + 5) / (1 + 100) does not
    boot = good_boot.copy()
    boot[:10] = 0.5
    null = far_null.copy()
    null[:4] = 0.0
    assert ev.assess(_claim(), 0.005, boot, null).verdict == "reproduced"
    null[4] = 0.0
    c = ev.assess(_claim(), 0.005, boot, null)
    assert (c.null_rate, c.p_null, c.verdict) == (0.05, 6 / 101, "not above chance")
    assert ev.verdict("by construction", True, None, None) == "by construction"
    assert ev.verdict("exact", False, None, None) == "exact: fails"


def test_criteria_and_intervals():
    crit = ev.Criterion("==", 2)
    assert crit([2, 2.0, 3, np.nan]).tolist() == [True, True, False, False]
    assert str(ev.Criterion("<=", 0.01)) == "≤ 0.010"
    # integer statistics get integer interval ends
    c = ev.assess(_claim(ev.Criterion("==", 5)), 5, [5] * 60 + [6] * 40, [7] * 10)
    assert c.interval == (5.0, 6.0)


def test_aggregated_claims_follow_the_matrices():
    """A1 (3NN-5NN closest) on hand-made matrices, then perturbed to fail."""
    labels = ["3NN", "5NN", "NB", "LR"]
    # 3NN-5NN 0.1 is the smallest; LR joins them at (0.2 + 0.3) / 2 = 0.25; NB is 0.6 from
    # everything, so it joins last at 0.6.
    D = np.array([[0.0, 0.1, 0.6, 0.2],
                  [0.1, 0.0, 0.6, 0.3],
                  [0.6, 0.6, 0.0, 0.6],
                  [0.2, 0.3, 0.6, 0.0]])
    stack = np.repeat(np.repeat(D[None, None], 3, axis=1), 6, axis=0)  # 6 datasets alike
    rng = np.random.default_rng(0)
    batches = rs.aggregated_batches(stack, rng, 30, 60)
    swap = rs.method_swap_null(stack, rng, 60)
    claims = {c.id: c for c in mp.aggregated_claims(labels, batches, swap)}
    a1 = claims["A1m"]
    assert (a1.value, a1.holds, a1.share) == (1.0, True, 1.0)
    assert "SF: D = 0.100, rank 1 of 6" in a1.evidence[0]
    # labels permuted per dataset: 3NN-5NN is the closest pair only by chance
    assert 0.0 < a1.null_rate < 0.6
    assert claims["A4m"].holds and claims["A4m"].value == 3  # NB joins at the last merge
    assert claims["A3m"].kind == "not evaluable"
    # Now 3NN-LR (0.05) is closer than 3NN-5NN under SF in every dataset: A1m fails, A1b
    # (SD only) still holds.
    D2 = D.copy()
    D2[0, 3] = D2[3, 0] = 0.05
    stack2 = stack.copy()
    stack2[:, st.SF] = D2
    batches2 = rs.aggregated_batches(stack2, rng, 30, 60)
    claims2 = {c.id: c for c in mp.aggregated_claims(labels, batches2, swap)}
    assert claims2["A1m"].verdict == "not reproduced" and claims2["A1m"].value == 2
    assert claims2["A1b"].holds


def test_trees_by_hand():
    labels = ["A", "B", "C", "D"]
    # A-B 0.1, C-D 0.2, the two pairs at 0.9
    D = np.array([[0.0, 0.1, 0.9, 0.9],
                  [0.1, 0.0, 0.9, 0.9],
                  [0.9, 0.9, 0.0, 0.2],
                  [0.9, 0.9, 0.2, 0.0]])
    t = st.Trees(D[None, None])
    assert t.clade_size([2, 3])[0, 0] == 2 and t.clade_size([0, 2])[0, 0] == 4
    assert t.join_step(0)[0, 0] == 1 and t.join_step(3)[0, 0] == 2
    assert t.clade_sets(0, 0) == frozenset({0b0011, 0b1100, 0b1111})
    from metaeval.similarity import average_linkage

    order = mp.merge_order(average_linkage(D), labels)
    assert order == "A+B 0.100 → C+D 0.200 → (A B)+(C D) 0.900"
    assert st.pair_rank(D, 0, 1) == 1 and st.pair_rank(D, 2, 3) == 2


def test_ties_claim_decides_by_the_numbers():
    labels = ["3NN", "5NN", "NB"]
    common = labels
    ties = np.array([1.0, 1.0, 0.0])  # 3NN and 5NN tied
    paper = mp.PAPER_TABLE1.loc[labels, "rate-driven"].to_numpy()
    means = np.zeros((5, 3))
    means[st.RD] = paper + 0.002        # tie-aware close to the paper
    means[3] = paper + 0.3              # untied far above
    means[4] = paper - 0.1              # untied, swapped, below
    boot = np.repeat(means[None], 10, axis=0)
    c = mp.ties_claim(mp.ecoli_claim_specs()["TIES"], labels, common, ties, means, boot)
    assert c.holds and c.value == pytest.approx(0.002 - 0.1) and c.null_rate == 0.0
    # if the paper's numbers were the swapped untied values, the claim fails
    flipped = means.copy()
    flipped[st.RD], flipped[4] = means[4], means[st.RD]
    c = mp.ties_claim(mp.ecoli_claim_specs()["TIES"], labels, common, ties, flipped,
                      np.repeat(flipped[None], 10, axis=0))
    assert not c.holds and c.verdict == "not reproduced"


def _literal_rate_losses(y, s):
    """Mean RD and RU hardness by brute force: at rate c the c·n lowest scores are
    predicted class 0, a tied group straddling the cut split by random tie-breaking
    (expected counts), errors weighed 2c / 2(1 - c) (RD) or 1 (RU), integrated over c."""
    n = y.size
    order = np.argsort(s, kind="stable")
    ys, ss = y[order], s[order]
    groups = np.split(np.arange(n), np.flatnonzero(np.diff(ss)) + 1)
    c = (np.arange(20000) + 0.5) / 20000
    fn = np.zeros_like(c)  # expected class-0 instances predicted class 1
    fp = np.zeros_like(c)  # expected class-1 instances predicted class 0
    start = 0
    for g in groups:
        taken = np.clip(c * n - start, 0, len(g)) / len(g)  # share of the group predicted 0
        n0 = np.sum(ys[g] == 0)
        fn += n0 * (1 - taken)
        fp += (len(g) - n0) * taken
        start += len(g)
    rd = np.mean(2 * c * fn + 2 * (1 - c) * fp) / n
    ru = np.mean(fn + fp) / n
    return rd, ru


def test_rate_uniform_identity_by_brute_force():
    """Mean RU − mean RD = 1/6 for tie-aware hardness, checked against a literal simulation
    of the rate-driven threshold on heavily tied scores; the untied forms break it."""
    rng = np.random.default_rng(3)
    for n, levels in ((40, 3), (57, 6), (30, 30)):
        y = rng.integers(0, 2, n)
        s = rng.integers(0, levels, n) / max(levels - 1, 1)
        rd, ru = _literal_rate_losses(y, s)
        lib = instance_hardness_by_method(y, s, ("rate-driven", "rate-uniform"))
        assert lib["rate-driven"].mean() == pytest.approx(rd, abs=1e-6)
        assert lib["rate-uniform"].mean() == pytest.approx(ru, abs=1e-6)
        assert ru - rd == pytest.approx(1 / 6, abs=1e-6)
    y = np.array([0, 0, 1, 1, 0, 1])
    s = np.array([0.2, 0.2, 0.2, 0.2, 0.9, 0.9])
    untied = (instance_hardness(y, s, "rate-uniform", ties="none").mean()
              - instance_hardness(y, s, "rate-driven", ties="none").mean())
    # untied, every instance contributes R - R^2 (class 0) or (1 - R) - (1 - R)^2 = R - R^2
    # (class 1): four instances at R = 4/6, two at R = 1 give (4 * 2/3 * 1/3) / 6 = 4/27
    assert untied == pytest.approx(4 / 27)


def test_label_free_hardness_is_the_library_under_permuted_labels():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 30)
    S = np.round(rng.uniform(size=(30, 3)), 1)  # ties
    LF = rs.label_free_hardness(y, S, st.SEED_METHODS)
    yp = rng.permutation(y)
    H = instance_hardness_by_method(yp, S, st.SEED_METHODS)
    for m, name in enumerate(st.SEED_METHODS):
        np.testing.assert_allclose(LF[yp, np.arange(30), m], H[name])


def test_rate_uniform_exact_claim_follows_the_printed_numbers(monkeypatch):
    claim = pr.credit_claim_specs()["R1"]
    c = pr.rate_uniform_exact(claim, 0.3)
    # 0.3·(0.35 − 0.17) + 0.7·(0.39 − 0.25) = 0.152, ± 0.01 of rounding: 1/6 is outside
    assert c.value == pytest.approx(0.152) and c.interval == pytest.approx((0.142, 0.162))
    assert c.verdict == "exact: holds"
    # printed values that satisfy the identity would make the claim fail
    table = pr.PAPER_CREDIT.copy()
    table.loc["rate-uniform"] = [0.17 + 1 / 6, 0.25 + 1 / 6]
    monkeypatch.setattr(pr, "PAPER_CREDIT", table)
    assert pr.rate_uniform_exact(claim, 0.3).verdict == "exact: fails"


def test_helpers_by_hand():
    # 1/3 and 2/3 are multiples of 1/3; with n = 4 both are 1/3 of a step away: 1/12.
    assert rs.fraction_fit([1 / 3, 2 / 3], 3) == pytest.approx(0.0)
    assert rs.fraction_fit([1 / 3, 2 / 3], 4) == pytest.approx(1 / 12)
    assert rs.tied_share([0.1, 0.1, 0.2, 0.3, 0.3, 0.3]) == pytest.approx(5 / 6)
    # a perfect ranking of 40 instances, 9 of class 1, tie-aware: each instance's hardness
    # is the mean of u^2 (class 0) or (1 - u)^2 (class 1) over its own rate interval, so the
    # mean is (31/40)^3 / 3 + (9/40)^3 / 3 = (29791 + 729) / 192000
    assert rs.rate_driven_floor(9, 40) == pytest.approx(30520 / 192000)
    assert ev.markdown_table(pd.DataFrame({"|x|": [1.5]}, index=["a|b"])).splitlines() == [
        "|  | \\|x\\| |", "|---|---|", "| a\\|b | 1.5000 |"]
    claim = replace(web.web_claim_specs()["B6"])
    assert claim.criterion([2.0]).tolist() == [False]


def test_holm_adjusts_over_every_counted_claim():
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(4)
    n_null = 200
    rates = [0.0, 0.0, 0.01, 0.02, 0.2, 0.005, 0.6]
    claims = []
    for i, rate in enumerate(rates):
        null = np.full(n_null, 0.5)
        null[:round(rate * n_null)] = 0.0  # the claim (<= 0.01) holds on these draws
        claims.append(ev.assess(replace(_claim(), id=f"C{i}"), 0.005,
                                rng.uniform(0, 0.009, 50), rng.permutation(null)))
    claims.insert(2, ev.fixed(replace(_claim(), id="X"), "exact", 1.0, True))  # not counted
    corrected = ev.holm(claims)
    assert [c.id for c in corrected] == [c.id for c in claims] and corrected[2].p_holm is None
    p = [c.p_null for c in claims if c.kind == ev.SAMPLED]
    assert p[0] == 1 / 201 and p[2] == 3 / 201
    reference = multipletests(p, method="holm")[1]
    np.testing.assert_allclose([c.p_holm for c in corrected if c.kind == ev.SAMPLED],
                               reference)
    # by hand: 1/201 is the smallest of 7, times 7 = 0.0348: still reproduced; 3/201 ranks
    # fourth (after 1/201, 1/201 and 2/201), times 4 = 0.0597: no longer above chance
    verdicts = {c.id: c.verdict for c in corrected}
    assert verdicts["C0"] == verdicts["C1"] == "reproduced"
    assert claims[3].verdict == "reproduced"  # C2 alone: p = 3/201 = 0.0149
    assert verdicts["C2"] == "not above chance"


def test_interval_contains_the_value_when_the_resamples_run_high():
    # the largest absolute difference over 8 algorithms: nearly every resample is larger
    # than the value (T1-RD printed 0.0063 with the percentile interval [0.009, 0.041])
    rng = np.random.default_rng(5)
    diffs = np.array([0.0063, -0.004, 0.002, -0.005, 0.001, 0.003, -0.0061, 0.0])
    boot = np.abs(diffs + rng.normal(0, 0.008, (1000, 8))).max(axis=1)
    value = np.abs(diffs).max()
    assert np.percentile(boot, 2.5) > value  # the plain percentile interval misses it
    c = ev.assess(_claim(), value, boot, np.ones(10))
    lo, hi = c.interval
    assert lo <= value <= hi
    q = np.percentile(boot, [2.5, 50, 97.5])
    assert (lo, hi) == pytest.approx((max(value - (q[1] - q[0]), boot.min()),
                                      value + (q[2] - q[1])))
    # a value in the middle of its resamples keeps an interval of the same width
    mid = ev.recentred_interval(np.arange(101.0) / 100, 0.5)
    assert mid == pytest.approx((0.025, 0.975))


def test_a_claim_tested_in_both_versions_is_counted_once():
    def sampled(cid, holds, share, null):
        return replace(_claim(), id=cid, holds=holds, share=share, null_rate=null,
                       n_null=1000)

    claims = [sampled("A1b", True, 1.0, 0.0), sampled("A1m", True, 1.0, 0.0),
              sampled("A4b", True, 1.0, 0.0), sampled("A4m", False, 1.0, 0.0),
              sampled("A6", True, 0.5, 0.0), sampled("T1-RD", True, 1.0, 0.0)]
    merged = ev.counted_claims(claims)
    assert merged == {"A1": "reproduced", "A4": "not reproduced", "A6": "unstable",
                      "T1-RD": "reproduced"}
    line = next(x for x in ev.summary_table(ev.holm(claims)) if x.startswith("**Counted"))
    assert line.startswith("**Counted claims: 4** — 2 reproduced, 1 unstable, 0 not above "
                           "chance, 1 not reproduced (6 verdicts: 2 claims, A1, A4, are "
                           "tested in both")


def test_runs_as_python_dash_m_from_the_repository_root():
    import subprocess

    done = subprocess.run([sys.executable, "-m", "docs.reproduce", "--draws", "0"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1] == (
        "python -m docs.reproduce: error: --draws must be a positive integer")
