"""docs/reproduce.py: the reproduction document, on a tiny real study and on hand examples.

The study: ecoli1, ecoli-0_vs_1 and credit-g, three of the seeds' algorithms (3NN,
5NN, NB), 3-fold cross-validation, run by :func:`metaeval.study.run_study` into a
temporary DuckDB file.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from metaeval.hardness import instance_hardness

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "docs" / "reproduce.py"


def _load():
    spec = importlib.util.spec_from_file_location("docs_reproduce", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


rp = _load()
CLAIM = re.compile(r"^- \*\*\((?P<id>[A-Za-z0-9]+)\)\*\* .+ — \*\*(?P<status>"
                   + "|".join(rp.STATUSES) + r")\*\*", re.M)
DATASETS = ["ecoli1", "ecoli-0_vs_1", "credit-g"]
ALGORITHMS = ["3NN", "5NN", "NB"]


@pytest.fixture(scope="module")
def document(tmp_path_factory):
    from metaeval.study import LocalExecutor, Study, run_study

    tmp = tmp_path_factory.mktemp("reproduce")
    store = tmp / "tiny.duckdb"
    summary = run_study(Study(datasets=DATASETS, algorithms=ALGORITHMS, folds=3,
                              executor=LocalExecutor(jobs=1), store=store))
    assert summary.exit_code == 0
    out = tmp / "docs"
    assert rp.main(["--store", str(store), "--out", str(out)]) == 0
    return out, (out / "reproduction.md").read_text(encoding="utf-8")


def test_document_has_every_section_and_claim_line(document):
    out, text = document
    for heading in ("## 1. How this was produced", "## 2. Ecoli", "## 3. Aggregated",
                    "## 4. German credit", "## 5. Where we differ"):
        assert heading in text
    assert "**Coverage: 3 of 3 datasets complete** (9 of 9 tasks done, 0 failed)" in text
    assert "--folds 3" in text and "--datasets ecoli1,ecoli-0_vs_1,credit-g" in text
    claims = {m["id"]: m["status"] for m in CLAIM.finditer(text)}
    # (a) and (b) need only 3NN, 5NN, NB; the others name algorithms this study lacks.
    assert set("abcdef") <= set(claims)
    assert claims["a"] in ("reproduced", "partially reproduced", "not reproduced")
    assert claims["b"] != "not evaluable"
    assert {claims[c] for c in "cdef"} == {"not evaluable"}
    assert {"G1", "G2", "G3", "E2", "E4"} <= set(claims)
    # Seed 001's Table 1 sits beside ours (3NN: IH_rd 0.269, IH_sd 0.0694, IH_sf 0.0833).
    row = next(line for line in text.splitlines() if line.startswith("| 3NN | "))
    assert row.split(" | ")[-3:] == ["0.2690", "0.0694", "0.0833 |"]
    for name in ("dendrograms_aggregated.png", "dendrograms_ecoli1.png",
                 "dendrograms_ecoli-0_vs_1.png", "class_cost_curves_credit-g.png"):
        path = out / "figures" / name
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"(figures/{name})" in text


def test_ecoli_table_matches_metaeval_hardness(document):
    """The markdown numbers are the hardness means of the stored scores."""
    from metaeval.store import Store

    out, text = document
    store = Store(next(out.parent.glob("*.duckdb")))
    y, S, algs = store.scores("ecoli1")
    rd = instance_hardness(y, S, "rate-driven").mean(axis=0)
    block = text.split("### ecoli1")[1].split("###")[0]
    for a, value in zip(algs, rd, strict=True):
        line = next(ln for ln in block.splitlines() if ln.startswith(f"| {a} | "))
        assert line.split(" | ")[1] == f"{value:.4f}"


def test_claims_on_a_hand_made_matrix():
    labels = ["3NN", "5NN", "NB", "LR"]
    # 3NN-5NN 0.1 is the smallest; LR joins them at (0.2 + 0.3) / 2 = 0.25; NB is 0.6
    # from everything, so it joins last at 0.6.
    D = np.array([[0.0, 0.1, 0.6, 0.2],
                  [0.1, 0.0, 0.6, 0.3],
                  [0.6, 0.6, 0.0, 0.6],
                  [0.2, 0.3, 0.6, 0.0]])
    mats = {m: D for m in rp.SEED_METHODS}
    verdicts = {v.id: v for v in rp.evaluate_claims(mats, labels)}
    assert verdicts["a"].status == "reproduced"
    assert "D(3NN,5NN) = 0.100, rank 1 of 6" in verdicts["a"].evidence[0]
    assert verdicts["b"].status == "reproduced"
    assert "joins at merge 3 of 3 (height 0.600" in verdicts["b"].evidence[0]
    assert verdicts["c"].status == "not evaluable"

    # Now 3NN-LR (0.05) is closer than 3NN-5NN under rate-driven only.
    D2 = D.copy()
    D2[0, 3] = D2[3, 0] = 0.05
    verdicts = {v.id: v for v in rp.evaluate_claims({**mats, "rate-driven": D2}, labels)}
    assert verdicts["a"].status == "partially reproduced"
    assert "closest: 3NN–LR 0.050" in verdicts["a"].evidence[2]
    # Under every method: not reproduced.
    verdicts = {v.id: v for v in rp.evaluate_claims({m: D2 for m in mats}, labels)}
    assert verdicts["a"].status == "not reproduced"


def test_groups_and_clades_on_a_hand_made_tree():
    from metaeval.similarity import average_linkage

    labels = ["A", "B", "C", "D"]
    # A-B 0.1, C-D 0.2, the two pairs at 0.9: one cut (0.2) separates {A, B} | {C, D}.
    D = np.array([[0.0, 0.1, 0.9, 0.9],
                  [0.1, 0.0, 0.9, 0.9],
                  [0.9, 0.9, 0.0, 0.2],
                  [0.9, 0.9, 0.2, 0.0]])
    Z = average_linkage(D)
    height, alone = rp.separated_groups(Z, labels, [("A", "B"), ("C", "D")])
    assert height == pytest.approx(0.2) and alone == [True, True]
    # {A, C} first meet at the root, with B; B's first merge is with A (of the other
    # group): no cut of the tree (at a merge height) gives either group its own cluster.
    height, alone = rp.separated_groups(Z, labels, [("A", "C"), ("B",)])
    assert height is None and alone == [False, False]
    height, alone = rp.separated_groups(Z, labels, [("A", "C"), ("D",)])
    assert height is None and alone == [False, True]  # D alone at the cut 0.1
    assert rp.clade(Z, labels, ("C", "D")) == (2, pytest.approx(0.2))
    assert rp.clade(Z, labels, ("A", "C")) == (4, pytest.approx(0.9))
    assert rp.merge_order(Z, labels) == "A+B 0.100 → C+D 0.200 → (A B)+(C D) 0.900"


def test_rate_driven_floor_is_the_perfect_ranking_and_a_lower_bound():
    rng = np.random.default_rng(0)
    n, k = 40, 9
    y = np.r_[np.zeros(n - k, int), np.ones(k, int)]
    perfect = np.linspace(0.01, 0.99, n)  # class 0 scored lowest, all distinct
    floor = rp.rate_driven_floor(k, n)
    # sum_{i=1}^{31} i^2 = 10416, sum_{j=0}^{8} j^2 = 204; (10416 + 204) / 40^3
    assert floor == pytest.approx(10620 / 64000)
    assert instance_hardness(y, perfect, "rate-driven", ties="none").mean() == (
        pytest.approx(floor))
    shuffled = np.stack([rng.permutation(perfect) for _ in range(200)], axis=1)
    assert instance_hardness(y, shuffled, "rate-driven").mean(axis=0).min() >= floor - 1e-12


def test_helpers_by_hand():
    # 1/3 and 2/3 are multiples of 1/3; with n = 4 both are 1/3 of a step away: 1/12.
    assert rp.fraction_fit([1 / 3, 2 / 3], 3) == pytest.approx(0.0)
    assert rp.fraction_fit([1 / 3, 2 / 3], 4) == pytest.approx(1 / 12)
    # Seed 003's orientation: y = 1 is "bad" (papers' positive, class 0), scores P(bad).
    # Bad instance, P(bad) 0.8 -> P(good) 0.2, positive: 0.2^2 = 0.04;
    # good instance, P(bad) 0.3 -> P(good) 0.7, negative: (1 - 0.7)^2 = 0.09.
    ch = rp.pool_class_hardness(np.array([1, 0]), np.array([[0.8], [0.3]]), "score-driven")
    assert ch == pytest.approx([0.04, 0.09])
    assert rp.tied_share([0.1, 0.1, 0.2, 0.3, 0.3, 0.3]) == pytest.approx(5 / 6)
