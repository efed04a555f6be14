"""A sample of the published figures regenerates from the shipped knowledge base.

``docs/recommendation.md`` and the shipped evaluations that ``recommend`` quotes
(``data/evaluations.json``) are written by ``docs/recommend.py`` (15 minutes and more);
here the rows of the baselines that need no learner -- the time-blind and the time-aware
single best, the fast-first order and the oracle -- under accuracy at P = 1/64 are
evaluated again (about a second: each strategy's figures, their bootstrap intervals
included, do not depend on which other strategies are evaluated beside it) and must match
what was published to the printed digit: the table's lines verbatim, the stored figures
exactly as rounded there.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from metaeval.recommend import Condition, evaluate_recommenders, load_knowledge
from metaeval.recommend._advice import CONDITIONS, evaluation_entry, stored_evaluations

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ["single-best", "single-best-a3r", "fast-first", "oracle"]


def _docs_module():
    spec = importlib.util.spec_from_file_location("docs_recommend_published",
                                                  ROOT / "docs" / "recommend.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def regenerated():
    tag, spec = CONDITIONS[0]
    condition = Condition(**spec, time_weight=1 / 64)
    archive = load_knowledge()
    rd = _docs_module()
    ev = evaluate_recommenders(archive.knowledge_base(condition), condition,
                               strategies=SAMPLE, n_boot=1000, alpha=rd.ALPHA,
                               compare=False)
    return rd, tag, ev


def _section(text, title):
    start = text.index(f"### {title}\n")
    end = text.find("\n### ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def test_summary_rows_of_recommendation_md_regenerate(regenerated):
    rd, _, ev = regenerated
    text = (ROOT / "docs" / "recommendation.md").read_text()
    published = _section(text, ev.condition.label)
    lines = rd.summary_table(ev).splitlines()[2:]
    assert len(lines) == len(SAMPLE)
    for line in lines:
        assert line in published.splitlines(), line


def test_budget_rows_of_recommendation_md_regenerate(regenerated):
    rd, tag, ev = regenerated
    text = (ROOT / "docs" / "recommendation.md").read_text()
    published = _section(text, "Losses at time budgets (P = 1/64)").splitlines()
    table = rd.budget_section({(tag, 1 / 64): ev})
    rows = [line for line in table.splitlines() if line.startswith(f"| {ev.condition.label} |")]
    assert len(rows) == len(SAMPLE) + 1  # and the budget's own baseline
    for line in rows:
        assert line in published, line


def test_stored_evaluations_regenerate(regenerated):
    _, _, ev = regenerated
    document = stored_evaluations()
    stored = next(e for e in document["conditions"]
                  if e["label"] == ev.condition.label and e["clock"] == "cpu")
    entry = evaluation_entry(ev)
    for name in SAMPLE:
        assert entry["strategies"][name] == stored["strategies"][name], name
    assert set(entry["budgets"]) == set(SAMPLE) | {"single-best-budget"}
    for name, figures in entry["budgets"].items():
        assert figures == stored["budgets"][name], name
