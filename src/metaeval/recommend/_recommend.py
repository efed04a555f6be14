"""Recommend an order of algorithms for a new dataset, under an operating condition."""

from __future__ import annotations

import copy
import hashlib
import pickle
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from metaeval.datasets import as_dataset
from metaeval.recommend._advice import (
    advice,
    knowledge_checksum,
    matching,
    read_evaluations,
    stored_evaluations,
)
from metaeval.recommend._condition import Condition
from metaeval.recommend.knowledge._archive import KnowledgeArchive, load_knowledge
from metaeval.recommend.knowledge._budget import (
    TRAIT_GROUPS,
    TRAIT_METAFEATURES,
    data_traits,
    knowledge_traits,
    parse_budget,
    plan_budget,
    predicted_times_and_basis,
    protocol_of,
)
from metaeval.recommend.knowledge._describe import LANDMARKERS, PYMFE_GROUPS, describe_dataset
from metaeval.recommend.knowledge._knowledge import KnowledgeBase, Query, describe_store
from metaeval.recommend.learners._learners import uses_of
from metaeval.recommend.learners._registry import get_strategy


@dataclass(frozen=True, eq=False)
class Recommendation:
    """The recommended order of algorithms for one dataset.

    Attributes
    ----------
    dataset : str
    strategy : str
    condition : Condition
    table : DataFrame
        ``rank, algorithm, expected_success, success_sd, expected_time,
        cumulative_time, score`` (and ``within_budget`` under a time budget), first to
        try first. Expected success is the mean over the driving datasets (``drivers``),
        ``success_sd`` its standard deviation across them (NaN for one); expected time
        the predicted seconds of one cross-validation as in the knowledge base's study, by
        :class:`~metaeval.recommend.TimeModel` fitted on every past dataset (rows,
        columns, and the data's tree size and numeric share where the knowledge base
        stores them; without the past datasets' rows, their geometric mean time).
    drivers : tuple of str
        The past datasets the order was built from.
    overhead : float
        Seconds spent describing the dataset.
    notes : tuple of str
    advice : str
        One plain sentence on how far to trust the order: in the stored evaluation of
        this knowledge base under the same condition, P, clock and budget, the
        strategy's expected loss@1 and loss@3 with intervals beside the single best's,
        and whether it is better with evidence; or a sentence saying that no stored
        evaluation matches (and why), quoting nothing.
    selection : dict
        What the strategy chose on the knowledge base (``auto``: the strategy and why;
        a learner: its hyperparameters). For ``auto``, ``adapted`` says whether the
        order read the new dataset, and ``evidence`` why (see ``adapt`` of
        :func:`recommend`); where ``auto`` gave the baseline's order instead of its own,
        ``strategy`` names the baseline and ``auto`` holds what ``auto`` had chosen.
    """

    dataset: str
    strategy: str
    condition: Condition
    table: pd.DataFrame
    drivers: tuple
    overhead: float
    notes: tuple = field(default=())
    advice: str = ""
    selection: dict = field(default_factory=dict)
    #: With ``budget``: the configurations to run within it (:class:`BudgetPlan`).
    plan: object = None
    #: What ``expected_time`` is predicted for (e.g. one 5-fold cross-validation).
    time_protocol: str = ""
    #: What the time model read of the new data (``"this data's rows, columns, tree size
    #: and numeric share"``, or ``"this data's rows and columns"`` without them), or
    #: ``""`` where the past datasets' sizes are unknown and ``expected_time`` is their
    #: geometric mean time.
    time_basis: str = ""


def recommend(dataset, source=None, condition=None, *, strategy="auto", k=None,
              top=None, describe_groups=None, time_budget=None,
              clock="cpu", target="class", pos_label=None,
              evaluations=None, budget=None, adapt=None) -> Recommendation:
    """Which algorithms to try on a new dataset, in what order, under a condition.

    Parameters
    ----------
    dataset : Dataset, pandas.DataFrame or path
        The new dataset: a :class:`Dataset`, a DataFrame as it is (text and category
        columns are typed as the command line types a CSV file), or a data file (read
        by :func:`metaeval.datasets.read_dataset`).
    source : KnowledgeArchive, KnowledgeBase, Store, path or None
        Past results. None (the default) is the knowledge base shipped with metaeval
        (:func:`load_knowledge`); an archive is scored under ``condition``, and the new
        dataset is described with the settings its datasets were described with. A
        store is read under ``condition``; when the strategy needs meta-features or
        landmarks and the store has none cached, its datasets are described first and
        the cache written into the store. With several repetitions of the
        cross-validation in the archive or store, the strategy learns from the mean
        success (and mean time) over the repetitions.
    condition : Condition, optional
        Default accuracy with P = 0.
    strategy : str, default="auto"
        Any strategy but ``oracle``; ``auto`` (:class:`~metaeval.recommend.Auto`)
        orders by the Borda count of its learners' orders, left for a candidate that
        reads nothing only when that one's inner leave-one-family-out losses on the
        knowledge base are lower by Wilcoxon's one-sided signed-rank test over families
        (Bonferroni-corrected), and its order is given as ``adapt`` says;
        ``active-testing`` without test results gives its first pick and then the
        candidates by their expected gain over it; ``random`` a seeded random order.
    k : int, optional
        Neighbours of ``knn-metafeatures`` and ``cost-landmarking``. Default: each
        strategy's own (``knn-metafeatures`` chooses k among 20, 10, 5, 3 and 1 by an
        inner leave-one-family-out with the one-standard-error rule toward more
        neighbours; ``cost-landmarking`` uses 5).
    top : int, optional
        Keep the first ``top`` algorithms.
    describe_groups : sequence of str, optional
        pymfe groups for ``knn-metafeatures``; default the groups cached in the store
        (:data:`PYMFE_GROUPS` when it has none yet).
    time_budget : float, optional
        CPU seconds each pymfe group may take (default: the archive's setting, else
        :func:`describe_dataset`'s).
    clock : {"cpu", "wall"}, default="cpu"
        Which recorded time of past results and of the description to use.
    target : str, default="class"
        The class column of a DataFrame or file.
    pos_label : optional
        The label of a DataFrame or file that becomes class 1 (default: the minority
        class).
    evaluations : dict or path, optional
        The stored evaluations the advice sentence quotes (a document, or a JSON file
        such as the one ``metaeval recommend --evaluate --knowledge FILE`` keeps beside
        FILE). Default: the shipped ones with the shipped knowledge base, none for
        another. Quoted only when they name this knowledge base (its checksum) and hold
        an evaluation of the same condition, P, clock and budget; otherwise the sentence
        says so.
    budget : float or str, optional
        Seconds of this machine's CPU (``clock``) to spend: a number, or text such as
        ``"600s"``, ``"10m"``, ``"1.5h"``. The recommendation's ``plan`` then lists the
        configurations of the order predicted to fit in it (:func:`plan_budget`: the
        order kept, each one that would not fit in what is left skipped), their
        predicted times and the expected best success at the budget.
    adapt : {"evidence", "always"}, optional
        ``auto`` only (default ``"evidence"``). Where ``auto``'s choice reads the new
        dataset (its vote, or a learner), ``"evidence"`` adapts the order to the data
        only when the stored evaluation of this knowledge base under the same condition,
        P and clock found ``auto``'s first-pick loss lower than the baseline's with
        evidence (its pre-registered, Holm-corrected comparison: against the single best
        at P = 0, the time-aware single best at P > 0); when that evaluation did not,
        the baseline's order is given, the same for every dataset, and a note says why.
        Where no stored evaluation matches, ``auto``'s own choice (its inner
        cross-validation) stands, and a note says that nothing checked it.
        ``"always"``: ``auto``'s own choice, whatever the evaluation says.

    Returns
    -------
    Recommendation

    Raises
    ------
    ValueError
        An unknown strategy, the oracle, a store with fewer than 3 datasets, a dataset
        that is neither a Dataset, a DataFrame nor a readable data file, a bad ``top``;
        data :func:`metaeval.study.Study` refuses (an infinite value, a class of fewer
        than 2 rows, a copy of the target), named with the file, ``"the DataFrame"`` or
        the dataset, the column and the row; a strategy (or the one ``auto`` chose)
        that reads a description every landmarker or pymfe group failed to give, with
        the reasons recorded.

    Examples
    --------
    >>> from metaeval.datasets import load_dataset
    >>> kb = KnowledgeBase(["d1", "d2", "d3"], ["A", "B"],
    ...                    success=[[0.9, 0.8], [0.9, 0.7], [0.6, 0.8]],
    ...                    times=[[1.0, 2.0]] * 3)
    >>> rec = recommend(load_dataset("labor"), kb)
    >>> rec.table["algorithm"].tolist(), rec.table["expected_success"].round(3).tolist()
    (['A', 'B'], [0.8, 0.767])
    """
    given = dataset
    dataset = as_dataset(dataset, target=target, pos_label=pos_label)
    _check_data(given, dataset, target)
    condition = Condition() if condition is None else condition
    if not isinstance(condition, Condition):
        raise ValueError(f"condition must be a Condition, got {condition!r}.")
    params = {"k": k} if strategy in ("knn-metafeatures", "cost-landmarking", "auto") else {}
    chosen = get_strategy(strategy, **params)
    if chosen.needs_truth:
        raise ValueError("the oracle needs the new dataset's true results; choose another "
                         "strategy to get a recommendation.")
    if top is not None and (isinstance(top, bool) or not isinstance(top, (int, np.integer))
                            or top < 1):
        raise ValueError(f"top must be a positive integer, got {top!r}.")
    if clock not in ("cpu", "wall"):
        raise ValueError(f"clock must be 'cpu' or 'wall', got {clock!r}.")
    if adapt is not None and adapt not in ("evidence", "always"):
        raise ValueError(f"adapt must be 'evidence' or 'always', got {adapt!r}.")
    if adapt is not None and chosen.name != "auto":
        raise ValueError(f"adapt applies to the strategy 'auto' only, not {chosen.name!r} "
                         "(which always orders as it does).")
    seconds = None if budget is None else parse_budget(budget)
    notes = []
    settings = {}
    shipped = source is None
    if source is None:
        source = load_knowledge()
    if isinstance(source, KnowledgeArchive):
        kb = source.knowledge_base(condition, clock=clock)
        settings = _describe_settings(source.provenance.get("description_settings"))
    elif isinstance(source, KnowledgeBase):
        kb = source
    else:
        kb = KnowledgeBase.from_store(source, condition, clock=clock)
        if _lacks(kb, chosen):
            described = describe_store(source, groups=describe_groups or PYMFE_GROUPS,
                                       **({} if time_budget is None
                                          else {"time_budget": time_budget}))
            notes.append(f"described {described['dataset'].nunique()} dataset(s) of the store "
                         "and cached their meta-features")
            kb = KnowledgeBase.from_store(source, condition, clock=clock)
    query = Query(dataset.name, dataset.n_instances)
    if describe_groups is None:
        cached = [] if kb.metafeatures is None else kb.metafeatures.columns
        describe_groups = sorted({c.split(".", 1)[0] for c in cached}) or PYMFE_GROUPS
    fitted = _fit(chosen, kb, condition)
    evidence = _evidence(source, shipped, evaluations, condition, clock)
    gate = None
    if chosen.name == "auto":
        fitted, gate = _gate(fitted, kb, condition, adapt or "evidence", evidence)
    uses = uses_of(fitted)
    description = None
    if uses:
        if time_budget is not None:
            settings["time_budget"] = time_budget
        description = describe_dataset(
            dataset,
            groups=describe_groups if "metafeatures" in uses else (),
            landmarkers=LANDMARKERS if "landmarks" in uses else (),
            **settings,
        )
        query = Query.from_description(description, condition, dataset.n_instances,
                                       clock=clock)
        failed = description.groups[description.groups["status"] != "ok"]
        for row in failed.itertuples(index=False):
            notes.append(f"{row.kind} {row.group}: {row.status} ({row.error})")
        _check_described(query, description, uses, chosen, fitted)
    ranking = fitted.rank(query)
    predicted, basis = predicted_times_and_basis(kb, dataset.n_instances, dataset.X.shape[1],
                                                 _traits(kb, dataset, description, settings))
    table = _table(kb, ranking, dataset.n_instances, condition, predicted)
    plan, protocol = None, protocol_of(source)
    if seconds is not None:
        columns = [kb.algorithms.index(a) for a in table["algorithm"]]
        plan = plan_budget(table["algorithm"], table["expected_time"], seconds,
                           kb.success[:, columns], rank=table["rank"], protocol=protocol)
    if top is not None:
        table = table.head(int(top))
    selection = copy.deepcopy(dict(fitted.selection_))  # the caller's own
    if gate is not None:
        selection = gate["selection"]
        notes.append(gate["note"])
    if gate is not None and not selection["adapted"]:
        pass  # the baseline's order: the gate's note says why
    elif chosen.name == "auto" and selection.get("combine") == "vote":
        voters = ", ".join(selection["voters"])
        voted = selection["strategy"] == "+".join(selection["voters"])
        did = (f"auto ordered by the Borda count of {voters} for this condition" if voted
               else f"under this condition auto left the vote of {voters} for "
               f"{selection['strategy']}, which reads nothing of the new dataset")
        notes.append(f"{did} (inner leave-one-family-out "
                     f"{selection['criterion']}; {selection['rule']}"
                     + ("" if voted or "p" not in selection else
                        f": p = {selection['p']:.2g}") + ")")
    elif chosen.name == "auto":
        rule = (f"better by {selection['margin']:.2f} standard errors"
                if "p" not in selection else
                f"lower by Wilcoxon's signed-rank test at {chosen.alpha:g} / "
                f"{len(selection['inner']) - 1}")
        notes.append(f"auto chose {selection['strategy']} for this condition (inner "
                     f"leave-one-family-out {selection['criterion']}; it leaves "
                     f"single-best only for a candidate {rule})")
    # (where auto gave the baseline's order, the gate's note says that it is the same for
    # every dataset, and why)
    notes.extend(_words(kb, source, dataset, chosen, fitted,
                        static=gate is None or gate["selection"]["adapted"]))
    text = _trust(selection["strategy"] if gate is not None and not selection["adapted"]
                  else chosen.name, condition, clock, evidence)
    return Recommendation(dataset.name, chosen.name, condition, table, tuple(ranking.drivers),
                          fitted.overhead(query), tuple(kb.notes) + tuple(notes), text,
                          selection, plan, protocol, basis)


def _traits(kb, dataset, description, settings):
    """The new dataset's traits of the data for the time model (:func:`data_traits`), from
    its description where it has them, else described for them alone: pymfe's general
    and model-based groups with the knowledge base's settings (a sample of at most 1,000
    rows), in this process and without the per-group time limit, since these two groups
    are cheap (a decision tree and counts: 0.02 to 0.07 CPU-s on the built-in datasets).
    None where the knowledge base does not store them or the description cannot give them
    (the model then reads rows and columns only, and says so)."""
    if knowledge_traits(kb) is None:
        return None
    if description is not None:
        traits = data_traits(description.metafeature_vector().reindex(TRAIT_METAFEATURES))
        if np.all(np.isfinite(traits)):
            return traits
    described = describe_dataset(dataset, groups=TRAIT_GROUPS, landmarkers=(),
                                 **{**settings, "time_budget": None})
    traits = data_traits(described.metafeature_vector().reindex(TRAIT_METAFEATURES))
    return traits if np.all(np.isfinite(traits)) else None


def _words(kb, source, dataset, chosen, fitted, static=True) -> list:
    """The lines the output owes its reader: an order the same for every dataset (unless
    ``static`` is False: said already), and a dataset outside the knowledge base's range
    of rows, columns or class balance."""
    words = []
    if static and not uses_of(fitted):
        name = fitted.selection_.get("strategy") if chosen.name == "auto" else chosen.name
        why = (f"{name} ranks from the past results only, without reading the new data"
               + (", and auto chose it (see the note on auto's choice)"
                  if chosen.name == "auto" else ""))
        words.append(f"this order is the same for every dataset: {why}")
    ranges = [("rows", dataset.n_instances, np.asarray(kb.n_instances, dtype=np.float64))]
    if kb.metafeatures is not None and "general.nr_attr" in kb.metafeatures.columns:
        ranges.append(("columns", dataset.n_features,
                       kb.metafeatures["general.nr_attr"].to_numpy(dtype=np.float64)))
    counts = getattr(source, "provenance", {}).get("class_counts")
    if counts is not None:
        counts = np.asarray(counts, dtype=np.float64)
        share = float(min(dataset.positive_fraction, 1 - dataset.positive_fraction))
        ranges.append(("minority-class share", round(share, 4),
                       counts.min(axis=1) / counts.sum(axis=1)))
    for what, value, past in ranges:
        past = past[np.isfinite(past)]
        if past.size and not past.min() <= value <= past.max():
            low, high = (f"{x:.4g}" if what.startswith("minority") else f"{x:g}"
                         for x in (past.min(), past.max()))
            words.append(f"{dataset.name}: {what} {value:g}, outside the knowledge "
                         f"base's range ({low} to {high}): its figures are extrapolated")
    return words


#: Strategies fitted in this process, by the SHA-256 of what they were fitted on (the
#: knowledge base's content, the condition, the strategy and its parameters): the
#: latest :data:`FITS_KEPT` (``auto`` fitted on the shipped knowledge base holds some
#: 50 MB, its learners' forests).
_FITTED: dict = {}
FITS_KEPT = 4


def _fit(chosen, kb, condition):
    """``chosen.fit(kb, condition)``, once per process for the same content: a later
    call with a knowledge base equal in every array and name, the same condition and the
    same strategy reuses the fit (fitting is seeded: the same content gives the same
    fit); anything changed is fitted anew. Fitting ``auto`` on the shipped knowledge
    base takes seconds, and a notebook asks for many datasets."""
    try:
        key = hashlib.sha256(pickle.dumps((kb, condition, type(chosen).__qualname__,
                                           repr(chosen), chosen.name))).hexdigest()
    except (pickle.PicklingError, TypeError, AttributeError):
        return chosen.fit(kb, condition)  # nothing to key it by: fitted every time
    fitted = _FITTED.pop(key, None)
    if fitted is None:
        fitted = chosen.fit(kb, condition)
    _FITTED[key] = fitted  # the most recent last
    while len(_FITTED) > FITS_KEPT:
        _FITTED.pop(next(iter(_FITTED)))
    return fitted


def _evidence(source, shipped, evaluations, condition, clock) -> tuple:
    """The stored evaluation of this knowledge base, condition, P and clock: ``(entry,
    document, checksum, "")``, or ``(None, document, checksum, why)`` when none matches
    (why: a plain sentence, without its full stop)."""
    if evaluations is None and not shipped:
        what = ("this knowledge base" if isinstance(source, (KnowledgeArchive, KnowledgeBase))
                else "a study's results")
        return None, None, None, f"No stored evaluation describes {what}"
    document = (stored_evaluations() if evaluations is None else evaluations
                if isinstance(evaluations, dict) else read_evaluations(evaluations) or {})
    checksum = knowledge_checksum(source)
    if checksum is None:
        return None, document, None, ("This knowledge base carries no checksum (it was not "
                                      "read from a file), so no stored evaluation can be "
                                      "tied to it")
    entry, why = matching(document, condition, clock, checksum)
    return entry, document, checksum, why


def _gate(fitted, kb, condition, adapt, evidence) -> tuple:
    """``auto`` adapts to the data only where the stored evaluation supports it: the
    fitted strategy whose order is given, and what the gate decided (``None`` when
    ``auto``'s choice reads nothing of the new dataset: nothing to decide)."""
    if not uses_of(fitted):
        return fitted, None
    own = copy.deepcopy(dict(fitted.selection_))
    entry, _, _, why = evidence
    name = own.get("strategy", "auto")
    if own.get("combine") == "vote" and own.get("voters") and "+" in name:
        name = "the Borda vote of " + ", ".join(own["voters"])
    if adapt == "always":
        note = (f"auto adapts this order to the data ({name}), as asked (adapt "
                "'always'), whatever a stored evaluation says")
        return fitted, {"selection": {**own, "adapted": True, "evidence": "asked"},
                        "note": note}
    if entry is None:
        note = (f"auto adapts this order to the data ({name}) on its inner "
                f"cross-validation alone: {why[0].lower()}{why[1:]}, so nothing checked "
                "that adapting pays under this condition (`metaeval recommend --evaluate` "
                "with the same options evaluates it)")
        return fitted, {"selection": {**own, "adapted": True, "evidence": "none stored"},
                        "note": note}
    p = float(entry["condition"].get("time_weight") or 0.0)
    timed = p > 0 and "single-best-a3r" in entry["strategies"] and "versus_time_aware" in entry
    base = "single-best-a3r" if timed else "single-best"
    them = "the time-aware single best" if timed else "the single best"
    verdict = ((entry.get("versus_time_aware" if timed else "versus_single_best") or {})
               .get("auto") or {}).get("loss_at_1")
    figures = entry["strategies"]
    where = f"the stored evaluation of this knowledge base under {entry['label']}"
    if verdict is not None and verdict.get("supported"):
        note = (f"auto adapts this order to the data ({name}): in {where}, its first-pick "
                f"loss was lower than {them}'s with evidence (Holm p = "
                f"{verdict['p_holm']:.2g})")
        return fitted, {"selection": {**own, "adapted": True, "evidence": "supported"},
                        "note": note}
    if verdict is None or "auto" not in figures or base not in figures:
        said = f"{where} holds no comparison of auto with {them}"
    else:
        said = (f"in {where}, auto's own order, which reads the data, was not shown to "
                f"beat it (first-pick loss {figures['auto']['loss_at_1'][0]:.4f} against "
                f"{figures[base]['loss_at_1'][0]:.4f}, Holm p = {verdict['p_holm']:.2g})")
    baseline = get_strategy(base).fit(kb, condition)
    note = (f"this order is the same for every dataset: auto gives {them}'s order "
            f"({base}), because {said}; adapt 'always' (--adapt always) gives auto's own "
            f"({name})")
    return baseline, {"selection": {"strategy": base, "adapted": False,
                                    "evidence": "not supported", "auto": own},
                      "note": note}


def _trust(strategy, condition, clock, evidence) -> str:
    """The advice sentence: a stored evaluation of this knowledge base, condition and
    clock quoted, or said plainly to be missing."""
    entry, document, checksum, why = evidence
    if document is None or checksum is None:
        if document is None:
            return (f"{why}: nothing is quoted; `metaeval recommend --evaluate` with the "
                    "same options evaluates the strategies on it.")
        return f"{why}: nothing is quoted."
    return advice(strategy, condition, document, clock=clock, knowledge=checksum)


def _lacks(kb, strategy):
    return any(getattr(kb, u) is None for u in uses_of(strategy))


def _describe_settings(recorded):
    """The keyword arguments of describe_dataset that an archive's datasets were made with."""
    if not isinstance(recorded, dict):
        return {}
    keys = ("time_budget", "max_rows", "landmark_rows", "landmark_folds", "seed")
    return {k: recorded[k] for k in keys if k in recorded}


def _table(kb, ranking, n_new, condition, predicted=None):
    rows = [kb.datasets.index(d) for d in ranking.drivers] or list(range(len(kb.datasets)))
    success = kb.success[rows][:, ranking.order]
    if predicted is not None:  # the time model's
        expected_time = np.asarray(predicted, dtype=np.float64)[ranking.order]
    else:  # no past dataset's rows known: their geometric mean time
        expected_time = np.exp(np.mean(np.log(kb.times[rows][:, ranking.order]), axis=0))
    table = pd.DataFrame({
        "rank": np.arange(1, ranking.order.size + 1),
        "algorithm": [kb.algorithms[j] for j in ranking.order],
        "expected_success": success.mean(axis=0),
        "success_sd": success.std(axis=0, ddof=1) if len(rows) > 1 else np.nan,
        "expected_time": expected_time,
        "cumulative_time": np.cumsum(expected_time),
        "score": ranking.score,
    })
    if condition.time_budget is not None:
        table["within_budget"] = table["cumulative_time"] <= condition.time_budget
    return table


def _check_data(given, dataset, target):
    """Refuse the data `metaeval run` refuses (an infinite value, a class of one row, a
    copy of the target): no description of them is faithful, and no algorithm of the
    order could be cross-validated on them. The error names the file, the DataFrame or
    the dataset."""
    from metaeval.datasets import Dataset
    from metaeval.datasets._base import check_values

    if isinstance(given, pd.DataFrame):
        source = "the DataFrame"
    elif isinstance(given, Dataset):
        source = f"dataset {dataset.name!r}"
    else:
        source = f"the file {str(given)!r}"
    check_values(dataset.X, dataset.y, target=str(target), class_names=dataset.class_names,
                 source=source)


def _check_described(query, description, uses, chosen, fitted):
    """Raise ``ValueError`` when the strategy reads a description the new dataset lacks
    (every landmarker, or every pymfe group, failed on it), with the recorded reasons, the
    strategy ``auto`` chose, and what to do instead."""
    kinds = {"landmarks": ("landmarker", "the landmark features"),
             "metafeatures": ("pymfe", "the meta-features")}
    for use in uses:
        point = getattr(query, use, None)
        if use not in kinds or (point is not None
                                and np.isfinite(point.to_numpy(dtype=np.float64)).any()):
            continue
        kind, what = kinds[use]
        rows = description.groups[description.groups["kind"] == kind]
        reasons = "; ".join(
            f"{r.group}: {r.error or ('no feature computed' if r.status == 'ok' else r.status)}"
            for r in rows.itertuples(index=False)) or "none was run"
        name = fitted.selection_.get("strategy") if chosen.name == "auto" else chosen.name
        chose = (f"auto chose {name} for this condition, and {name}"
                 if chosen.name == "auto" else name)
        every = "every landmarker" if kind == "landmarker" else "every pymfe group"
        raise ValueError(
            f"{chose} reads {what} of the new dataset {description.dataset!r}, and {every} "
            f"failed on it ({reasons}); choose a strategy that does not describe the "
            "dataset, e.g. average-ranking or single-best (command line: --strategy "
            "average-ranking).")
