"""docs/recommend.py: its computed claims agree with the evaluation they summarise."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from metaeval.recommend import Condition, KnowledgeBase, evaluate_recommenders

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "docs" / "recommend.py"


def _load():
    spec = importlib.util.spec_from_file_location("docs_recommend", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


rd = _load()


def _kb(seed=0, n_datasets=9, n_algorithms=5):
    rng = np.random.default_rng(seed)
    success = np.clip(rng.uniform(0.6, 0.9, n_algorithms)
                      + rng.normal(0, 0.05, (n_datasets, n_algorithms)), 0.01, 1)
    times = rng.uniform(0.05, 5, n_algorithms) * rng.uniform(0.5, 20, (n_datasets, 1))
    names = [f"d{i}" for i in range(n_datasets)]
    return KnowledgeBase(
        names, [f"a{j}" for j in range(n_algorithms)], success, times,
        metafeatures=pd.DataFrame(rng.normal(size=(n_datasets, 2)), index=names),
        metafeature_time=np.full(n_datasets, 0.2),
        landmarks=pd.DataFrame(success[:, :2], index=names), landmark_time=np.full(9, 0.4))


def test_helpers():
    assert [rd.null_text({"null_same_verdict": v}) for v in (1.0, 0.33, 0.012, 1e-4)] == [
        "100%", "33%", "1.2%", "0.01%"]
    assert rd.p_text(0) == "0" and rd.p_text(1 / 64) == "1/64"
    assert rd.verdict({"p_value": 0.01, "mil_difference": 0.2}) == "better than random"
    assert rd.verdict({"p_value": 0.01, "mil_difference": -0.2}) == "worse than random"
    assert rd.verdict({"p_value": 0.2, "mil_difference": 0.2}).startswith("no evidence")
    table = rd.markdown_table(pd.DataFrame({"a": [1.0]}, index=pd.Index(["x"], name="k")))
    assert table.splitlines() == ["| k | a |", "|---|---|", "| x | 1.0000 |"]


def test_best_p_frequency_counts_ties_as_best():
    kb = _kb()
    per_p = {p: evaluate_recommenders(kb, Condition(time_weight=p),
                                      strategies=["average-ranking"], n_boot=5)
             for p in (0.0, 1e-9, 1.0)}
    freq = rd.best_p_frequency(per_p, "average-ranking", 200)
    mil = {p: ev.summary["mil"].iloc[0] for p, ev in per_p.items()}
    assert mil[0.0] == pytest.approx(mil[1e-9])  # the same order, the same loss
    assert freq[0.0] == freq[1e-9]  # tied, so both count as best together
    assert ((freq >= 0) & (freq <= 1)).all() and freq.max() > 0


def test_condition_section_states_what_the_tables_say(tmp_path, monkeypatch):
    monkeypatch.setattr(rd, "TIME_WEIGHTS", (0.0, 1 / 64, 1 / 4))
    kb = _kb()
    condition = Condition("accuracy")
    per_p = rd.evaluate_condition(kb, condition, 50)
    text, result = rd.condition_section("acc", "kb", kb, condition, per_p, tmp_path, 50)
    summary = per_p[1 / 64].summary.set_index("strategy").drop(index="oracle")
    assert result["winner"] == summary["mil"].idxmin()
    assert result["first"] == summary["loss_at_1"].idxmin()
    winner = re.search(r"\*\*Lowest mean MIL: (\S+)\*\*", text).group(1)
    assert winner == result["winner"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "recommend_kb_acc_cd.png", "recommend_kb_acc_p.png", "recommend_kb_acc_tests.png",
        "recommend_kb_acc_time.png"]
    sweep_rows = [line for line in text.splitlines() if re.match(r"\| (0|1/64|1/4) \|", line)]
    assert len(sweep_rows) == 3


def test_summary_claims_read_the_nemenyi_groups():
    def w(winner, top):
        return {"winner": winner, "first": "sb", "top": top, "runner_up": "RU",
                "winner_supported": winner == "AT",
                "best_p": {"average-ranking": "1/8", "active-testing": "1/64"}}

    same = rd.summary_claims({"acc": w("AT", ["AT", "AR"]), "cost": w("AT", ["AT"])})
    assert "No: AT has the lowest MIL under every condition" in same
    overlap = rd.summary_claims({"acc": w("AT", ["AT", "AR"]), "cost": w("AR", ["AR", "AT"])})
    assert "Not significantly" in overlap and "AR, AT are in the winner's" in overlap
    apart = rd.summary_claims({"acc": w("AT", ["AT"]), "cost": w("AR", ["AR"])})
    assert apart.startswith("**Does the best strategy change with costs?** Yes: acc: AT")
    assert "average-ranking P = 1/8" in apart
    assert "acc: AT over RU supported; cost: AR over RU not supported" in apart


def test_every_better_than_claim_has_paired_evidence(tmp_path, monkeypatch):
    """The winner against every other strategy, the first pick and the best P are paired."""
    monkeypatch.setattr(rd, "TIME_WEIGHTS", (0.0, 1 / 64, 1 / 4))
    kb = _kb(seed=3)
    condition = Condition("accuracy")
    per_p = rd.evaluate_condition(kb, condition, 50)
    text, result = rd.condition_section("acc", "kb", kb, condition, per_p, tmp_path, 50)
    main = per_p[1 / 64]
    others = [s for s in main.strategies if s not in ("oracle", result["winner"])]
    for other in others:
        row = [line for line in text.splitlines()
               if line.startswith(f"| {result['winner']} < {other} (MIL) |")]
        assert len(row) == 1, other
        expected = rd.paired(main, result["winner"], main, other, n_boot=50)
        cells = [c.strip() for c in row[0].strip("|").split("|")]
        assert float(cells[1]) == pytest.approx(expected["difference"], abs=5e-5)
        assert cells[-2] == rd.null_text(expected)
        assert cells[-1] == ("yes" if expected["supported"] else "no")
    assert f"| {result['first']} < " in text and "(loss@1) |" in text
    runner = rd.paired(main, result["winner"], main, result["runner_up"], n_boot=50)
    assert result["winner_supported"] == runner["supported"]
    claim = "the evidence supports" if runner["supported"] else "this is no evidence"
    assert f"{claim} that {result['winner']}" in text or (
        f'{claim} "{result["winner"]} is better' in text)
    assert re.search(r"\| (average-ranking|active-testing): P = \S+ < P = \S+ \(MIL\) \|", text)
