"""How far to trust a recommendation: one sentence from a stored evaluation.

The strategies are evaluated once on the shipped knowledge base (leave-one-family-out,
every documented condition) and the figures kept as package data
(``data/evaluations.json``, written with ``docs/recommendation.md`` by
``docs/recommend.py``); ``metaeval recommend --evaluate --knowledge FILE`` keeps its
evaluation beside a knowledge base file of one's own (:func:`evaluations_file`). A
document names the knowledge base it describes by its checksum (the SHA-256 of the
file's arrays), and each evaluation its condition, clock and time budget.
:func:`advice` quotes only an evaluation of the same knowledge base, condition, P,
clock and budget, which holds the strategy: its expected loss@1 and loss@3 with their
intervals beside the single best's, and whether it is better with evidence (the
pre-registered comparison, Holm-corrected); otherwise it says plainly which of these
differ, and quotes nothing.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

import numpy as np

#: The stored evaluations' file name (package data of ``metaeval.recommend``).
EVALUATIONS = "evaluations.json"
#: The format's version written. Format 1 (no checksum, no clock) is read but names no
#: knowledge base, so it is never quoted; another is ignored.
FORMAT = "metaeval-evaluations/2"
#: The formats read.
FORMATS = ("metaeval-evaluations/1", FORMAT)
#: The scoring protocol of the evaluations written: 2, after each test the algorithm
#: kept is the best so far on the repetitions not scored (1: read on the scored one,
#: which moves loss@3 and MIL on an unseen repetition; loss@1 is the same both ways).
PROTOCOL = 2
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
    return document if document.get("format") in FORMATS else None


def read_evaluations(path) -> dict | None:
    """A stored evaluations document from a JSON file, or None when there is none.

    Raises
    ------
    ValueError
        A file that is not an evaluations document (naming it).
    """
    from pathlib import Path

    path = Path(path)
    if not path.is_file():
        return None
    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"{path} is not an evaluations document (JSON): {error}") from None
    if not isinstance(document, dict) or document.get("format") not in FORMATS:
        raise ValueError(f"{path} is not an evaluations document (format "
                         f"{', '.join(FORMATS)}).")
    return document


def evaluations_file(knowledge_file):
    """Where ``metaeval recommend --evaluate --knowledge FILE`` keeps its evaluations,
    and where ``metaeval recommend --knowledge FILE`` reads them: beside the file, its
    name's suffix replaced by ``.evaluations.json``.

    Examples
    --------
    >>> evaluations_file("bases/mine.npz").as_posix()
    'bases/mine.evaluations.json'
    """
    from pathlib import Path

    path = Path(knowledge_file)
    return path.with_name(path.stem + ".evaluations.json")


def knowledge_checksum(archive) -> str | None:
    """The checksum of the file a knowledge archive was read from (None: built in
    memory, or not an archive)."""
    provenance = getattr(archive, "provenance", None)
    value = provenance.get("checksum") if isinstance(provenance, dict) else None
    return value if isinstance(value, str) else None


def _key(condition, clock) -> tuple:
    c = condition if isinstance(condition, dict) else condition.to_dict()
    beta = c.get("cost_beta")
    return (c["measure"], c.get("cost"), None if beta is None else tuple(beta),
            float(c.get("time_weight") or 0.0), c.get("time_budget"), c.get("threshold", 0.5),
            clock)


def matching(document, condition, clock="cpu", knowledge=None) -> tuple[dict | None, str]:
    """The stored evaluation of ``condition`` under ``clock`` in ``document``, or None
    and why none is quoted (a plain sentence).

    Quoted only when the document names the knowledge base ``knowledge`` (its checksum;
    None: not checked) and an entry has the same measure, costs, threshold, P and time
    budget, under the same clock.
    """
    if not document or not document.get("conditions"):
        return None, "No stored evaluation describes this knowledge base"
    named = (document.get("knowledge") or {}).get("checksum")
    if knowledge is not None and named != knowledge:
        if named is None:
            return None, "The stored evaluations name no knowledge base (an older format)"
        return None, (f"The stored evaluations describe another knowledge base "
                      f"({named[:19]}..., this one {knowledge[:19]}...)")
    wanted = _key(condition, clock)
    for entry in document["conditions"]:
        if _key(entry["condition"], entry.get("clock")) == wanted:
            return entry, ""
    label = condition.label if not isinstance(condition, dict) else condition["label"]
    budget = ("" if wanted[4] is None else f", a budget of {wanted[4]:g} s")
    stored = len(document["conditions"])
    return None, (f"No stored evaluation matches {label} with {clock.upper()} time{budget} "
                  f"(the {stored} stored are of other conditions, clocks or budgets)")


def advice(strategy, condition, document=None, *, clock="cpu", knowledge=None) -> str:
    """One plain sentence: how ``strategy`` did against the single best in the stored
    evaluation of ``condition`` (:func:`matching`): its first-pick loss and best-of-three
    loss beside the single best's, and whether the pre-registered comparison found it
    lower with evidence (where time counts, P > 0, its mean interval loss too); or, when
    no stored evaluation matches, a sentence that says so and quotes nothing.

    ``document``: default the shipped evaluations. ``knowledge``: the checksum of the
    knowledge base recommended from (:func:`knowledge_checksum`; None: not checked).

    Examples
    --------
    >>> from metaeval.recommend import Condition
    >>> doc = {"conditions": [{"condition": Condition().to_dict(), "n_datasets": 51,
    ...     "n_families": 43, "label": "accuracy, P = 0", "clock": "cpu",
    ...     "strategies": {"auto": {"loss_at_1": [0.015, 0.011, 0.02],
    ...                             "loss_at_3": [0.008, 0.006, 0.01]},
    ...                    "single-best": {"loss_at_1": [0.016, 0.011, 0.021],
    ...                                    "loss_at_3": [0.012, 0.009, 0.016]}},
    ...     "versus_single_best": {"auto": {"loss_at_1": {"supported": False,
    ...                                                   "p_holm": 0.4}}}}]}
    >>> print(advice("auto", Condition(), doc))  # doctest: +NORMALIZE_WHITESPACE
    On 51 past datasets (43 families) under accuracy, P = 0 (CPU time), auto's first
    pick lost 0.0150 [0.0110, 0.0200] and its best of three 0.0080 [0.0060, 0.0100], against the
    single best's 0.0160 [0.0110, 0.0210] and 0.0120 [0.0090, 0.0160]: first-pick loss
    not shown to be lower (Holm p = 0.4).
    >>> print(advice("auto", Condition(time_weight=2), doc))  # doctest: +NORMALIZE_WHITESPACE
    No stored evaluation matches accuracy, P = 2 with CPU time (the 1 stored are of other
    conditions, clocks or budgets): nothing is quoted; `metaeval recommend --evaluate`
    with the same options evaluates the strategies under it.
    """
    document = stored_evaluations() if document is None else document
    entry, why = matching(document, condition, clock, knowledge)
    if entry is None:
        return (f"{why}: nothing is quoted; `metaeval recommend --evaluate` with the same "
                "options evaluates the strategies under it.")
    figures = entry["strategies"]
    if strategy not in figures:
        return (f"The stored evaluation of {entry['label']} ({clock.upper()} time) holds no "
                f"figures of {strategy}: nothing is quoted; `metaeval recommend --evaluate` "
                "with the same options evaluates it.")
    # where time counts and it was evaluated, against the time-aware single best
    base = ("single-best-a3r" if float(entry["condition"].get("time_weight") or 0) > 0
            and "single-best-a3r" in figures and "versus_time_aware" in entry
            else "single-best")
    mine, sb = figures[strategy], figures.get(base)
    them = "the single best" if base == "single-best" else "the time-aware single best"
    # an unseen-repetition evaluation of the former protocol read the best of three on
    # the scored repetition: its loss@3 and MIL are not those of today's
    old = (entry.get("scored_on") == "unseen repetition"
           and entry.get("protocol", 1) < PROTOCOL)

    def show(values):
        v, lo, hi = values
        return f"{v:.4f} [{lo:.4f}, {hi:.4f}]"

    where = f"under {entry['label']} ({clock.upper()} time)"
    if entry.get("scored_on") == "unseen repetition":  # a knowledge base of repetitions
        where += (", each scored on a repetition of the cross-validation no choice was "
                  "made on")
    three = not old and "loss_at_3" in mine and (sb is None or "loss_at_3" in sb)
    head = f"On {entry['n_datasets']} past datasets ({entry['n_families']} families) {where}"
    tail = ("" if not old else " (its best of three and mean loss over time, stored under a "
            "former scoring that read the best so far on the scored repetition, are not "
            "quoted)")
    if strategy == base or sb is None:  # alone: its own figures only
        best = f" and its best of three {show(mine['loss_at_3'])}" if three else ""
        who = them if strategy == base else strategy
        alone = "" if sb is not None else f" ({them} was not evaluated beside it)"
        return (f"{head}, {who}'s first pick lost {show(mine['loss_at_1'])}{best}{alone}"
                f"{tail}.")
    verdicts = entry.get("versus_single_best" if base == "single-best"
                         else "versus_time_aware", {}).get(strategy)
    if verdicts is not None and "supported" in verdicts:  # loss@1 alone
        verdicts = {"loss_at_1": verdicts}
    verdicts = verdicts or {}

    def judged(measure, what):
        verdict = verdicts.get(measure)
        if verdict is None:
            return f"{what} not tested against {them}'s"
        word = "lower with evidence" if verdict["supported"] else "not shown to be lower"
        return f"{what} {word} (Holm p = {verdict['p_holm']:.2g})"

    if three:
        text = (f"{head}, {strategy}'s first pick lost {show(mine['loss_at_1'])} and its best "
                f"of three {show(mine['loss_at_3'])}, against {them}'s "
                f"{show(sb['loss_at_1'])} and {show(sb['loss_at_3'])}: "
                f"{judged('loss_at_1', 'first-pick loss')}")
    else:
        text = (f"{head}, {strategy}'s first pick lost {show(mine['loss_at_1'])}, against "
                f"{them}'s {show(sb['loss_at_1'])}: "
                f"{judged('loss_at_1', 'first-pick loss')}")
    if not old and "mil" in verdicts and "mil" in mine and "mil" in sb:
        text += (f"; its mean loss over time (MIL) was {show(mine['mil'])} against "
                 f"{show(sb['mil'])}, {judged('mil', 'MIL')}")
    return text + tail + "."


def evaluation_entry(ev, comparisons=None) -> dict:
    """One condition's entry of the stored evaluations, from a
    :class:`RecommenderEvaluation` (``comparisons``: its primary comparisons with the
    document's Holm correction; default its own)."""
    s = ev.summary.set_index("strategy")
    comparisons = ev.comparisons if comparisons is None else comparisons
    verdicts = {"single-best": {}, "single-best-a3r": {}}
    if comparisons is not None and len(comparisons):
        rows = comparisons[comparisons["b"].isin(list(verdicts))]
        if "family" in rows.columns:
            rows = rows[rows["family"] == "primary"]
        for r in rows.itertuples(index=False):
            verdicts[r.b].setdefault(r.a, {})[r.measure] = {
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
        "versus_single_best": verdicts["single-best"],
        # where time counts: the pre-registered comparisons against the time-aware
        # single best (docs/baselines.md)
        "versus_time_aware": verdicts["single-best-a3r"],
        # how the held-out datasets were scored (an evaluation of one repetition: the
        # same repetition; of several: by default an unseen one)
        "scored_on": ev.scored_on,
        "clock": ev.clock,
        "protocol": PROTOCOL,
        "n_repetitions": int(ev.n_repetitions),
        # the loss at each budget of seconds per dataset: [mean, low, high]
        "budgets": _budget_entry(ev),
    }


def _budget_entry(ev) -> dict:
    """{strategy: {seconds: [loss, low, high]}} of an evaluation's losses at budgets."""
    summary = getattr(ev, "budget_summary", None)
    if summary is None or not len(summary):
        return {}
    out = {}
    for r in summary.to_dict(orient="records"):
        out.setdefault(r["strategy"], {})[f"{r['budget']:g}"] = [
            _round(r["loss"]), _round(r["low"]), _round(r["high"])]
    return out


def evaluations_document(evals, comparisons, about=ABOUT, knowledge=None) -> dict:
    """The stored evaluations: one entry per evaluation of ``evals`` ({key:
    RecommenderEvaluation}); ``comparisons`` ({key: DataFrame}) gives each one's primary
    comparisons with the correction of the whole document; ``knowledge``: the checksum
    of the knowledge base evaluated (:func:`knowledge_checksum`)."""
    import importlib.metadata

    return {"format": FORMAT, "about": about,
            "metaeval": importlib.metadata.version("metaeval"),
            "knowledge": {"checksum": knowledge},
            "conditions": [evaluation_entry(ev, comparisons.get(key))
                           for key, ev in evals.items()]}


def store_evaluation(path, ev, knowledge) -> tuple[dict, str]:
    """Keep the evaluation ``ev`` of the knowledge base whose checksum is ``knowledge``
    in the evaluations file ``path`` (:func:`evaluations_file`): added to the document
    there, replacing an entry of the same condition, clock and budget; a document of
    another knowledge base is replaced whole. Returns the document written and what
    became of the one there ("" when there was none).

    Raises
    ------
    ValueError
        ``path`` holds something other than an evaluations document.
    """
    from metaeval._validation import write_atomic

    if not knowledge:
        raise ValueError("the evaluated knowledge base has no checksum (build it into a "
                         "file with `metaeval knowledge build` first).")
    old = read_evaluations(path)
    said = ""
    entries = []
    if old is not None:
        if (old.get("knowledge") or {}).get("checksum") == knowledge:
            entries = list(old.get("conditions") or [])
            said = "beside the evaluations there"
        else:
            said = "the file described another knowledge base and was replaced"
    entry = evaluation_entry(ev)
    key = _key(entry["condition"], entry["clock"])
    if any(_key(e["condition"], e.get("clock")) == key for e in entries):
        said = "replacing the evaluation of the same condition and clock"
    entries = [e for e in entries if _key(e["condition"], e.get("clock")) != key] + [entry]
    document = evaluations_document({}, {}, about=(
        "leave-one-family-out evaluations of a knowledge base (metaeval recommend "
        "--evaluate --knowledge); intervals: 95% bootstrap over families; verdicts: the "
        "primary comparisons against the single best, Holm-corrected within each "
        "evaluation"), knowledge=knowledge)
    document["conditions"] = entries
    write_atomic(path, json.dumps(document, indent=1, sort_keys=True) + "\n",
                 "the evaluations file", make_parents=True)
    return document, said


def evaluate_for_advice(archive, *, n_boot=1000, progress=None, clock="cpu",
                        knowledge=None) -> dict:
    """Evaluate the strategies on ``archive`` under every stored condition and time
    weight (:data:`CONDITIONS`, :data:`TIME_WEIGHTS`) and return the document
    :func:`advice` quotes: what ``docs/recommend.py`` writes as
    ``data/evaluations.json`` for the shipped knowledge base (the primary comparisons
    Holm-corrected over all of them together, each family on its own).

    Slow: every strategy, ``auto`` included, six times (about 9 minutes on two cores for
    the shipped knowledge base). ``progress(label)`` is called after each evaluation.
    ``knowledge``: the checksum the document names (default the archive's own,
    :func:`knowledge_checksum`).
    """
    import pandas as pd

    from metaeval.recommend._condition import Condition
    from metaeval.recommend.evaluation._evaluate import evaluate_recommenders
    from metaeval.recommend.evaluation._summary import holm_by_family

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
        "comparisons against the single best, Holm-corrected over the primary family"),
        knowledge=knowledge_checksum(archive) if knowledge is None else knowledge)


def _round(v):
    v = float(v)
    return round(v, 6) if np.isfinite(v) else None
