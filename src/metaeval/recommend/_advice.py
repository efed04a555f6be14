"""How far to trust a recommendation: one sentence from the stored evaluation.

The strategies are evaluated once on the shipped knowledge base (leave-one-family-out,
every documented condition) and the figures kept as package data
(``data/evaluations.json``, written with ``docs/recommendation.md`` by
``docs/recommend.py``). :func:`advice` quotes the nearest evaluated condition: the
strategy's expected loss@1 and loss@3 with their intervals beside the single best's,
and whether it is better with evidence (the pre-registered comparison, Holm-corrected).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

import numpy as np

#: The stored evaluations' file name (package data of ``metaeval.recommend``).
EVALUATIONS = "evaluations.json"
#: The format's version; another is ignored (no advice rather than a wrong one).
FORMAT = "metaeval-evaluations/1"
#: The operating conditions whose evaluations are stored, by short name (the tables of
#: ``docs/recommendation.md`` evaluate the same ones).
CONDITIONS = (
    ("accuracy", {"measure": "accuracy"}),
    ("rate-driven-c0.3", {"measure": "hardness:rate-driven", "cost": 0.3}),
    ("score-driven-beta2-8", {"measure": "hardness:score-driven", "cost_beta": (2, 8)}),
)
#: The A3R time weights each condition is evaluated at.
TIME_WEIGHTS = (0.0, 1 / 64)
#: What the stored document says it holds.
ABOUT = ("leave-one-family-out evaluation of the shipped knowledge base "
         "(docs/recommend.py); intervals: 95% bootstrap over families; "
         "verdicts: the primary comparisons against the single best, "
         "Holm-corrected over the primary family")


@lru_cache(maxsize=1)
def stored_evaluations() -> dict | None:
    """The evaluations shipped with metaeval, or None when there are none."""
    ref = resources.files("metaeval.recommend").joinpath("data", EVALUATIONS)
    if not ref.is_file():
        return None
    try:
        document = json.loads(ref.read_text())
    except (OSError, ValueError):
        return None
    return document if document.get("format") == FORMAT else None


def nearest(document, condition) -> tuple[dict | None, bool]:
    """The evaluated condition nearest to ``condition``, and whether it is the same.

    Nearest: the same measure (and for a hardness measure the same cost or cost
    distribution) first, then the same kind of measure, then the closest time weight P
    (on a log scale, P = 0 apart).
    """
    if not document or not document.get("conditions"):
        return None, False
    target = condition.to_dict()

    def distance(entry):
        c = entry["condition"]
        same_measure = c["measure"] == target["measure"]
        same_costs = same_measure and c.get("cost") == target["cost"] and (
            c.get("cost_beta") == target["cost_beta"])
        same_kind = c["measure"].startswith("hardness") == target["measure"].startswith(
            "hardness")
        p, q = float(c["time_weight"]), float(target["time_weight"])
        gap = abs(np.log1p(256 * p) - np.log1p(256 * q))
        return (not same_costs, not same_measure, not same_kind, gap)

    entry = min(document["conditions"], key=distance)
    exact = distance(entry) == (False, False, False, 0.0)
    return entry, exact


def advice(strategy, condition, document=None) -> str:
    """One plain sentence: how ``strategy`` did against the single best in the stored
    evaluation of the condition nearest to ``condition`` ("" when none is stored): its
    first-pick loss and best-of-three loss beside the single best's, and whether the
    pre-registered comparison found it lower with evidence (where time counts, P > 0,
    its mean interval loss too).

    Examples
    --------
    >>> from metaeval.recommend import Condition
    >>> doc = {"conditions": [{"condition": Condition().to_dict(), "n_datasets": 51,
    ...     "n_families": 43, "label": "accuracy, P = 0",
    ...     "strategies": {"auto": {"loss_at_1": [0.015, 0.011, 0.02],
    ...                             "loss_at_3": [0.008, 0.006, 0.01]},
    ...                    "single-best": {"loss_at_1": [0.016, 0.011, 0.021],
    ...                                    "loss_at_3": [0.012, 0.009, 0.016]}},
    ...     "versus_single_best": {"auto": {"loss_at_1": {"supported": False,
    ...                                                   "p_holm": 0.4}}}}]}
    >>> print(advice("auto", Condition(), doc))  # doctest: +NORMALIZE_WHITESPACE
    On 51 past datasets (43 families) under accuracy, P = 0, auto's first pick lost
    0.0150 [0.0110, 0.0200] and its best of three 0.0080 [0.0060, 0.0100], against the
    single best's 0.0160 [0.0110, 0.0210] and 0.0120 [0.0090, 0.0160]: first-pick loss
    not shown to be lower (Holm p = 0.4).
    """
    document = stored_evaluations() if document is None else document
    entry, exact = nearest(document, condition)
    if entry is None:
        return ""
    figures = entry["strategies"]
    if strategy not in figures or "single-best" not in figures:
        return ""
    mine, sb = figures[strategy], figures["single-best"]

    def show(values):
        v, lo, hi = values
        return f"{v:.4f} [{lo:.4f}, {hi:.4f}]"

    where = (f"under {entry['label']}" if exact
             else f"under the nearest evaluated condition, {entry['label']}")
    if entry.get("scored_on") == "unseen repetition":  # a knowledge base of repetitions
        where += (" (each scored on a repetition of the cross-validation its oracle did "
                  "not choose on)")
    if strategy == "single-best":
        return (f"On {entry['n_datasets']} past datasets ({entry['n_families']} families) "
                f"{where}, the single best's first pick lost {show(mine['loss_at_1'])} and "
                f"its best of three {show(mine['loss_at_3'])}.")
    verdicts = entry.get("versus_single_best", {}).get(strategy)
    if verdicts is not None and "supported" in verdicts:  # loss@1 alone
        verdicts = {"loss_at_1": verdicts}
    verdicts = verdicts or {}

    def judged(measure, what):
        verdict = verdicts.get(measure)
        if verdict is None:
            return f"{what} not tested against the single best's"
        word = "lower with evidence" if verdict["supported"] else "not shown to be lower"
        return f"{what} {word} (Holm p = {verdict['p_holm']:.2g})"

    text = (f"On {entry['n_datasets']} past datasets ({entry['n_families']} families) "
            f"{where}, {strategy}'s first pick lost {show(mine['loss_at_1'])} and its best "
            f"of three {show(mine['loss_at_3'])}, against the single best's "
            f"{show(sb['loss_at_1'])} and {show(sb['loss_at_3'])}: "
            f"{judged('loss_at_1', 'first-pick loss')}")
    if "mil" in verdicts and "mil" in mine and "mil" in sb:
        text += (f"; its mean loss over time (MIL) was {show(mine['mil'])} against "
                 f"{show(sb['mil'])}, {judged('mil', 'MIL')}")
    return text + "."


def evaluation_entry(ev, comparisons=None) -> dict:
    """One condition's entry of the stored evaluations, from a
    :class:`RecommenderEvaluation` (``comparisons``: its primary comparisons with the
    document's Holm correction; default its own)."""
    s = ev.summary.set_index("strategy")
    comparisons = ev.comparisons if comparisons is None else comparisons
    verdicts = {}
    if comparisons is not None and len(comparisons):
        rows = comparisons[comparisons["b"] == "single-best"]
        if "family" in rows.columns:
            rows = rows[rows["family"] == "primary"]
        for r in rows.itertuples(index=False):
            verdicts.setdefault(r.a, {})[r.measure] = {
                "supported": bool(r.supported), "p_holm": _round(r.p_holm),
                "difference": _round(r.difference)}

    def triple(name, column):
        row = s.loc[name]
        return [_round(row[column]), _round(row[f"{column}_low"]),
                _round(row[f"{column}_high"])]

    return {
        "condition": ev.condition.to_dict(),
        "label": ev.condition.label,
        "n_datasets": int(ev.per_dataset["dataset"].nunique()),
        "n_families": int(ev.per_dataset["family"].nunique()),
        "strategies": {name: {c: triple(name, c) for c in ("loss_at_1", "loss_at_3", "mil",
                                                            "closed_gap")}
                       for name in s.index},
        "auto_chosen": ev.chosen("auto"),
        "versus_single_best": verdicts,
        # how the held-out datasets were scored (an evaluation of one repetition: the
        # same repetition; of several: by default an unseen one)
        "scored_on": ev.scored_on,
        "n_repetitions": int(ev.n_repetitions),
    }


def evaluations_document(evals, comparisons, about=ABOUT) -> dict:
    """The stored evaluations: one entry per evaluation of ``evals`` ({key:
    RecommenderEvaluation}); ``comparisons`` ({key: DataFrame}) gives each one's primary
    comparisons with the correction of the whole document."""
    import importlib.metadata

    return {"format": FORMAT, "about": about,
            "metaeval": importlib.metadata.version("metaeval"),
            "conditions": [evaluation_entry(ev, comparisons.get(key))
                           for key, ev in evals.items()]}


def evaluate_for_advice(archive, *, n_boot=1000, progress=None, clock="cpu") -> dict:
    """Evaluate the strategies on ``archive`` under every stored condition and time
    weight (:data:`CONDITIONS`, :data:`TIME_WEIGHTS`) and return the document
    :func:`advice` quotes: what ``docs/recommend.py`` writes as
    ``data/evaluations.json`` for the shipped knowledge base (the primary comparisons
    Holm-corrected over all of them together, each family on its own).

    Slow: every strategy, ``auto`` included, six times (about 9 minutes on two cores for
    the shipped knowledge base). ``progress(label)`` is called after each evaluation.
    """
    import pandas as pd

    from metaeval.recommend._condition import Condition
    from metaeval.recommend._evaluate import evaluate_recommenders
    from metaeval.recommend._summary import holm_by_family

    evals, frames = {}, []
    for tag, spec in CONDITIONS:
        condition = Condition(**spec)
        kb = archive.knowledge_base(condition, clock=clock)
        for p in TIME_WEIGHTS:
            ev = evaluate_recommenders(kb, condition.replace(time_weight=p), n_boot=n_boot,
                                       alpha=0.05, clock=clock)
            evals[tag, p] = ev
            if ev.comparisons is not None and len(ev.comparisons):
                frames.append(ev.comparisons.assign(key_tag=tag, key_p=p))
            if progress is not None:
                progress(ev.condition.label)
    by_key = {}
    if frames:
        comparisons = pd.concat(frames, ignore_index=True)
        holm_by_family(comparisons, 0.05)
        by_key = {key: comparisons[(comparisons["key_tag"] == key[0])
                                   & (comparisons["key_p"] == key[1])] for key in evals}
    return evaluations_document(evals, by_key, about=(
        "leave-one-family-out evaluation of a knowledge base (metaeval knowledge build "
        "--evaluations); intervals: 95% bootstrap over families; verdicts: the primary "
        "comparisons against the single best, Holm-corrected over the primary family"))


def _round(v):
    v = float(v)
    return round(v, 6) if np.isfinite(v) else None
