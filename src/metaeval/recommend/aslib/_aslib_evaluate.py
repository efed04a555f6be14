r"""Evaluate the recommendation strategies on an ASlib scenario's own cross-validation.

Every repetition of the scenario's ``cv.arff`` is run through
:func:`evaluate_recommenders` with its folds (an instance is recommended for from the
instances of the other folds only), and the algorithm-selection measures are reported
beside metaeval's: the mean performance of the first pick, the fraction of the gap
between the single best solver (SBS, chosen on the training folds) and the virtual best
solver (VBS) that it closes,

.. math:: \text{gap closed} = \frac{m_{SBS} - m_s}{m_{SBS} - m_{VBS}}

(for a cost :math:`m` such as PAR10; 0 for the SBS, 1 for the VBS, negative when worse
than the SBS; the means are over all held-out instances), loss@1/3/5, and for runtime
scenarios the PAR10 and the fraction of instances solved by the first pick. Each comes
with a percentile bootstrap interval (instances resampled), and each strategy's first
pick is compared with the SBS's (:func:`paired_comparison`), Holm-corrected over the
strategies compared.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from metaeval._validation import json_records, json_text
from metaeval.recommend._condition import Condition
from metaeval.recommend.aslib._aslib import AslibScenario
from metaeval.recommend.evaluation._evaluate import LOSS_STEPS, _n_jobs, evaluate_recommenders
from metaeval.recommend.evaluation._summary import holm, paired_comparisons

#: Baselines left out of the comparisons with the SBS (one is the SBS, one reads the truth).
_NOT_COMPARED = ("single-best", "oracle")


@dataclass(frozen=True, eq=False)
class AslibEvaluation:
    """The outcome of :func:`evaluate_aslib`.

    Attributes
    ----------
    scenario : AslibScenario
    condition : Condition
    strategies : tuple of str
    per_instance : DataFrame
        One row per (repetition, instance, strategy): metaeval's per-dataset measures
        (:attr:`RecommenderEvaluation.per_dataset`) plus ``performance`` (of the first
        pick, in the measure's units, feature costs included where paid),
        ``feature_cost`` (seconds paid), ``sbs``, ``vbs``, ``sbs_whole_success`` and, for
        runtime scenarios, ``solved``.
    summary : DataFrame
        One row per strategy: means over instances (repetitions averaged first) of
        ``performance``, ``mil``, ``loss_at_1/3/5``, ``feature_cost`` (and ``solved``),
        ``gap_closed``, ``gap_closed_whole_sbs``,
        each with ``*_low``/``*_high`` bootstrap bounds; the paired comparison with the
        SBS (``difference`` in success units, ``p``, ``p_holm``, ``null_same_verdict``,
        ``supported``).
    sbs, vbs : float
        Mean performance of the single best (chosen on each training part) and of the
        virtual best over the held-out instances (neither pays feature costs).
    curves : DataFrame
        The loss curves of every repetition (``repetition`` column added).
    notes : tuple of str
    sbs_whole : float
        Mean performance of the single best over the whole scenario
        (``sbs_whole_algorithm``), the reference of ``gap_closed_whole_sbs``.
    sbs_whole_algorithm : str
    feature_costs : bool
        Whether the first picks of strategies reading features paid the feature costs.
    presolved : bool
        Whether instances a feature step presolved were credited as solved at the
        feature cost (see :func:`evaluate_aslib`).
    """

    scenario: AslibScenario
    condition: Condition
    strategies: tuple
    per_instance: pd.DataFrame
    summary: pd.DataFrame
    sbs: float
    vbs: float
    sbs_solved: float | None
    vbs_solved: float | None
    curves: pd.DataFrame
    notes: tuple = field(default=())
    sbs_whole: float = float("nan")
    sbs_whole_algorithm: str = ""
    feature_costs: bool = False
    presolved: bool = False

    def chosen(self, strategy="auto") -> dict:
        """How many held-out instances (over the repetitions) ``auto`` ranked with each
        strategy it chose on their fold's training instances ({} for another
        strategy)."""
        if "chosen" not in self.per_instance.columns:
            return {}
        rows = self.per_instance[self.per_instance["strategy"] == strategy]["chosen"]
        return {str(k): int(v) for k, v in rows.dropna().value_counts().sort_index().items()}

    def presolvers(self, strategy="auto") -> dict:
        """``auto``'s pre-solving schedules: how many held-out instances (over the
        repetitions) each schedule chosen on their fold's training instances preceded
        (``"A for 5 s"``, or ``"none"``), and ``"solved by it"``: how many the
        pre-solver solved ({} for a strategy without a schedule)."""
        per = self.per_instance
        if "presolver" not in per.columns:
            return {}
        rows = per[per["strategy"] == strategy]
        if rows.empty or "chosen" not in rows.columns or rows["chosen"].isna().all():
            return {}
        label = [f"{a} for {t:g} s" if isinstance(a, str) else "none"
                 for a, t in zip(rows["presolver"], rows["presolve_seconds"], strict=True)]
        out = {str(k): int(v) for k, v in pd.Series(label).value_counts().sort_index().items()}
        out["solved by it"] = int(rows["presolver_solved"].sum())
        return out

    def to_json(self) -> dict:
        """The ``metaeval recommend --evaluate --aslib DIR --json`` document."""
        return self._document(json_records)

    def json_text(self) -> str:
        """That document as text: ``json_text(self.to_json())``, the same text, its curves
        written from their columns (on SAT12-INDU's 485,000 curve records some 2 s less
        than through a dict per record)."""
        return json_text(self._document(lambda frame: frame))

    def _document(self, records) -> dict:
        """The document, the curves' frame passed through ``records``."""
        sc = self.scenario
        measures = ["performance", "mil", *(f"loss_at_{k}" for k in LOSS_STEPS),
                    "gap_closed", "gap_closed_whole_sbs", "feature_cost"] + (
                        ["solved"] if sc.runtime else [])
        strategies, comparisons = {}, []
        for r in self.summary.to_dict(orient="records"):
            entry = {
                "mean_performance": _num(r["performance"]),
                "gap_closed": _num(r["gap_closed"]),
                "closed_gap": _num(r["gap_closed"]),
                "gap_closed_whole_sbs": _num(r["gap_closed_whole_sbs"]),
                "mean_feature_cost": _num(r["feature_cost"]),
                "mil": _num(r["mil"]),
                "loss_at": {str(k): _num(r[f"loss_at_{k}"]) for k in LOSS_STEPS},
                "intervals": {m: [_num(r[f"{m}_low"]), _num(r[f"{m}_high"])]
                              for m in measures},
            }
            if sc.runtime:
                entry["par10"] = entry["mean_performance"]
                entry["solved"] = _num(r["solved"])
            chosen = self.chosen(r["strategy"])
            if chosen:
                entry["chosen"] = chosen
            presolvers = self.presolvers(r["strategy"])
            if presolvers:
                entry["presolvers"] = presolvers
            strategies[r["strategy"]] = entry
            if r["strategy"] not in _NOT_COMPARED:
                comparisons.append({
                    "a": r["strategy"], "b": "single-best", "measure": "loss_at_1",
                    "difference": _num(r["difference"]), "low": _num(r["difference_low"]),
                    "high": _num(r["difference_high"]), "p": _num(r["p"]),
                    "p_holm": _num(r["p_holm"]),
                    "null_same_verdict": _num(r["null_same_verdict"]),
                    "supported": bool(r["supported"]),
                })
        curves = self.curves[["repetition", "dataset", "strategy", "step", "algorithm",
                              "elapsed", "loss"]]
        return {
            "scenario": {"name": sc.name, "measure": sc.measure, "maximize": sc.maximize,
                         "performance_type": sc.performance_type, "cutoff": sc.cutoff,
                         "repetitions": len(sc.cv.columns),
                         "folds": int(sc.cv.iloc[:, 0].nunique())},
            "condition": {
                **self.condition.to_dict(), "measure": sc.measure, "cost": None,
                "cost_beta": None, "threshold": None,
                "label": f"{'PAR10 of ' if sc.runtime else ''}{sc.measure} "
                         f"({'max' if sc.maximize else 'min'}imised), "
                         f"P = {self.condition.time_weight:g}"},
            "n_datasets": len(sc.knowledge.datasets),
            "n_algorithms": len(sc.knowledge.algorithms),
            "clock": "scenario",
            "sbs": _num(self.sbs),
            "sbs_whole": _num(self.sbs_whole),
            "sbs_whole_algorithm": self.sbs_whole_algorithm,
            "vbs": _num(self.vbs),
            "feature_costs": bool(self.feature_costs),
            "presolved_credited": bool(self.presolved),
            **({"sbs_solved": _num(self.sbs_solved), "vbs_solved": _num(self.vbs_solved)}
               if sc.runtime else {}),
            "strategies": strategies,
            "comparisons": comparisons,
            "curves": records(curves),
            "notes": list(self.notes),
        }


def _num(v):
    if v is None:
        return None
    v = float(v)
    return v if np.isfinite(v) else None


def evaluate_aslib(scenario, strategies=None, *, condition=None, k=None, n_random=1000,
                   n_boot=1000, alpha=0.05, seed=0, feature_costs=True, n_jobs=None,
                   presolved=None, progress=None) -> AslibEvaluation:
    r"""Evaluate strategies on an ASlib scenario with its own ``cv.arff`` folds.

    Feature costs (runtime scenarios with ``feature_costs.arff``). A strategy that reads
    the instance's features pays for computing them, as in ASlib's evaluations (Bischl
    et al. 2016): the first pick's runtime :math:`r` becomes :math:`r + c`, with
    :math:`c` the cost of the feature steps the strategy uses (the default steps for
    meta-features, the ``landmarks`` step for landmark features), counted once per
    instance. A run that then reaches or passes the cutoff :math:`\kappa` is a timeout
    (PAR10 :math:`= 10\kappa`, not solved); a run that timed out stays a timeout. The
    baselines that read no features (single best, random, virtual best) pay nothing.
    The first pick's measures (``performance``, ``solved``, ``loss_at_1``, both closed
    gaps and the paired comparison with the single best) include the costs; loss@3,
    loss@5 and the loss curves are the orders' as tested, their time axes counting the
    description time from the start.

    Two single bests. ``gap_closed`` measures the gap from the single best chosen on
    each training part (what a user of the training data would pick);
    ``gap_closed_whole_sbs`` from the single best over the whole scenario
    (:attr:`AslibEvaluation.sbs_whole`), as LLAMA (Kotthoff 2013) and the ASlib pages
    report it: chosen by its mean runtime with unsolved runs counted at the cutoff, and
    scored by its PAR10.

    Parameters
    ----------
    scenario : AslibScenario or path
        A scenario (:func:`read_aslib`) or its folder.
    strategies : sequence of str, optional
        Default: every strategy whose inputs the scenario has.
    condition : Condition, optional
        Only its ``time_weight`` (P of A3R) and ``time_budget`` matter; default P = 0.
    k : int, optional
        Neighbours of the nearest-neighbour strategies; default: theirs
        (``knn-metafeatures`` chooses k on the training instances by the one-SE rule).
    seed
        As in :func:`evaluate_recommenders`.
    n_random : int, default=1000
        Seeded random orders per instance behind the random baseline's mean interval
        loss (its loss after k tests is exact). Fewer than for a knowledge base: a
        scenario's hundreds to thousands of instances average the Monte-Carlo error
        away (its standard error is reported); on MAXSAT12-PMS (876 instances)
        10,000 orders cost 8.1 CPU-s and 1,000 cost 2.2 (the single best: 1.1), the
        mean interval loss 5499.5 against 5501.9 PAR10-seconds.
    n_boot : int, default=1000
        Bootstrap resamples of the instances.
    alpha : float, default=0.05
        1 - coverage of the intervals; level of the paired tests after Holm.
    feature_costs : bool, default=True
        Add the feature costs as above; False leaves them out (also when the scenario
        has none, or measures quality).
    n_jobs : int, optional
        Worker processes over which the folds of each ``cv.arff`` repetition are spread,
        as in :func:`evaluate_recommenders` (None: 1; -1: every usable core); the
        figures are the same for any number.
    progress : callable, optional
        Called as ``progress(done, total)`` in the calling process each time a fold's
        evaluation ends (``total``: the folds of every repetition); it changes nothing
        else.
    presolved : bool, optional
        Credit presolved instances as ASlib and LLAMA do (Bischl et al. 2016): an
        instance that a used feature step presolved (``presolved`` in
        ``feature_runstatus.arff``) counts, for a strategy that computes the features
        (for ``auto``, whose chosen candidate does), as solved in the feature cost
        (0 s when not recorded), whatever it picks (a timeout if that cost reaches the
        cutoff): a selector that computes the features stops when they solve the
        instance. Applies with the feature costs only (with ``feature_costs=False`` the
        features cost nothing and nothing is credited). The single best and the
        virtual best are unchanged. Default (None): credited whenever the feature costs
        are paid; False: never (each presolved instance charged its feature cost plus
        the picked solver's run, the default before 2026-11-29); True: as
        None, and refused without the feature costs.

    Returns
    -------
    AslibEvaluation

    Raises
    ------
    ValueError
        As :func:`read_aslib` and :func:`evaluate_recommenders`.

    References
    ----------
    Bischl et al. (2016), "ASlib: a benchmark library for algorithm selection",
    Artificial Intelligence 237 (PAR10, SBS, VBS, feature costs); Lindauer, van Rijn &
    Kotthoff (2019), "The algorithm selection competitions 2015 and 2017", Artificial
    Intelligence 272 (the closed gap); Holm (1979).
    """
    from metaeval.recommend.aslib._aslib import read_aslib

    if not isinstance(feature_costs, (bool, np.bool_)):
        raise ValueError(f"feature_costs must be True or False, got {feature_costs!r}.")
    if presolved is not None and not isinstance(presolved, (bool, np.bool_)):
        raise ValueError(f"presolved must be True, False or None, got {presolved!r}.")
    if presolved is True and not feature_costs:
        raise ValueError("presolved=True credits presolved instances in their feature "
                         "cost, and needs feature_costs=True.")
    _n_jobs(n_jobs, 1)  # checked before reading the scenario
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a callable or None, got {progress!r}.")
    sc = scenario if isinstance(scenario, AslibScenario) else read_aslib(scenario)
    kb = sc.knowledge
    condition = Condition() if condition is None else condition
    if not isinstance(condition, Condition):
        raise ValueError(f"condition must be a Condition, got {condition!r}.")
    frames, curves, notes = [], [], list(sc.notes)
    strategies, skipped = _runtime_strategies(sc, strategies, k,
                                              bool(feature_costs) and sc.feature_costs)
    notes += skipped
    names = None
    # the folds of each repetition, as evaluate_recommenders counts them
    n_folds = {rep: len(dict.fromkeys(sc.cv[rep].to_numpy())) for rep in sc.cv.columns}
    total = sum(n_folds.values())
    before = 0  # the folds of the repetitions already evaluated
    for rep in sc.cv.columns:
        said = None if progress is None else (
            lambda done, _, before=before: progress(before + done, total))
        ev = evaluate_recommenders(kb, condition, strategies=strategies, k=k,
                                   n_random=n_random, n_boot=2, alpha=alpha, seed=seed,
                                   folds=sc.cv[rep].to_numpy(), compare=False,
                                   n_jobs=n_jobs, progress=said)
        before += n_folds[rep]
        names = ev.strategies
        frames.append(ev.per_dataset.assign(repetition=rep))
        curves.append(ev.curves.assign(repetition=rep))
        notes += [_aslib_note(n) for n in ev.notes if _aslib_note(n) not in notes]
    per = pd.concat(frames, ignore_index=True)
    curves = pd.concat(curves, ignore_index=True)
    row = pd.Index(kb.datasets).get_indexer(per["dataset"])
    first = curves[curves["step"] == 1].set_index(["repetition", "dataset", "strategy"])
    algo = first["algorithm"].reindex(
        pd.MultiIndex.from_frame(per[["repetition", "dataset", "strategy"]])).to_numpy()
    col = {a: j for j, a in enumerate(kb.algorithms)}
    pick = np.array([-1 if a is None else col[a] for a in algo], dtype=np.int64)
    costs = bool(feature_costs) and sc.runtime and sc.feature_costs
    per["feature_cost"] = 0.0
    credit = costs and presolved is not False and sc.presolved is not None
    if costs:
        _add_feature_costs(sc, per, row, pick,
                           _reads_features(per, strategies) if credit else None)
    if sc.runtime and "presolver" in per.columns:
        _add_presolver(sc, per, row, pick, costs)
    per["performance"] = sc.to_performance(per["first_success"])
    per["sbs"] = sc.to_performance(per["single_best_success"])
    per["vbs"] = sc.to_performance(per["oracle_success"])
    whole = _whole_single_best(sc)
    per["sbs_whole_success"] = kb.success[row, whole]
    if sc.runtime:
        solved = sc.solved.astype(np.float64)
        chosen = np.where(pick >= 0, solved[row, np.maximum(pick, 0)], solved[row].mean(axis=1))
        if credit:
            chosen = np.where(per["feature_presolved"].to_numpy(), 1.0, chosen)
        if "presolver_solved" in per.columns:
            chosen = np.where(per["presolver_solved"].to_numpy(dtype=bool), 1.0, chosen)
        per["solved"] = np.where(per["feature_cost_timeout"].to_numpy(dtype=bool), 0.0,
                                 chosen) \
            if "feature_cost_timeout" in per.columns else chosen  # random: expected
        sbs = {}
        for rep in sc.cv.columns:  # the single best of each training part, as evaluated
            fold = sc.cv[rep].to_numpy()
            for f in np.unique(fold):
                mean = kb.success[fold != f].mean(axis=0)
                j = int(np.argsort(-mean, kind="stable")[0])
                sbs.update({(rep, kb.datasets[i]): sc.solved[i, j]
                            for i in np.flatnonzero(fold == f)})
        per["sbs_solved"] = [float(sbs[rep, d]) for rep, d in
                             zip(per["repetition"], per["dataset"], strict=True)]
    summary, sbs, vbs, sbs_solved, vbs_solved = _summarise(sc, per, names, n_boot, alpha,
                                                           seed)
    sbs_whole = float(sc.to_performance(kb.success[:, whole]).mean())
    return AslibEvaluation(sc, condition, tuple(names), per, summary, sbs, vbs, sbs_solved,
                           vbs_solved, curves, tuple(notes), sbs_whole=sbs_whole,
                           sbs_whole_algorithm=kb.algorithms[whole],
                           feature_costs=costs, presolved=bool(credit))


def _runtime_strategies(sc, strategies, k, costs=True):
    r"""The strategies as :func:`evaluate_recommenders` gets them, and notes.

    On a runtime scenario the success is :math:`10\kappa - PAR10`: ``regression`` (alone
    and as a candidate of ``auto``) is given that ceiling, so that its forests learn log
    PAR10 as LLAMA's regressions do, and ``auto`` the cutoff, for its pre-solving
    schedule (the feature costs charged there as ``costs`` says). Strategies whose
    inputs the scenario lacks are left out with a note when none were named (as
    :func:`evaluate_recommenders` does).
    """
    from metaeval.recommend.learners._auto import Auto
    from metaeval.recommend.learners._learners import FEATURE_SOURCES, Learner, uses_of
    from metaeval.recommend.learners._learners_forest import ConfigurationRegression
    from metaeval.recommend.learners._registry import STRATEGIES, get_strategy

    if not sc.runtime:
        return strategies, []
    kb = sc.knowledge
    have = tuple(u for u in FEATURE_SOURCES if getattr(kb, u) is not None)
    if not have:
        return strategies, []
    explicit = strategies is not None
    names = list(STRATEGIES) if strategies is None else (
        [strategies] if isinstance(strategies, str) else list(strategies))
    ceiling = {"cost_ceiling": float(sc.shift)}
    out, notes = [], []
    for name in names:
        if name == "regression":
            out.append(ConfigurationRegression(**ceiling, features=have))
        elif name == "auto":
            out.append(Auto(k=k, params={"regression": ceiling},
                            presolve_cutoff=float(sc.cutoff), presolve_costs=bool(costs)))
        elif (not explicit and not isinstance(get_strategy(name), Learner)
              and any(u not in have for u in uses_of(get_strategy(name)))):
            # what evaluate_recommenders notes when it skips a strategy itself
            notes.append(_aslib_note(f"skipped {name} needs landmarks of every dataset, "
                                     "and the knowledge base has none (describe the store"))
        else:
            out.append(name)
    return out, notes


def _whole_single_best(sc) -> int:
    """The single best over the whole scenario, chosen as LLAMA chooses it: the best
    mean of the measure; for runtime, the lowest mean runtime with every unsolved run
    counted at the cutoff (its PAR10 is then the reference). On SAT11-HAND this picks
    the algorithm whose mean PAR10 the ASlib pages print as the single best (25649.1),
    not the one with the lowest mean PAR10 (25589.3)."""
    if sc.runtime:
        score = -np.where(sc.solved, sc.performance, sc.cutoff).mean(axis=0)
    else:
        score = sc.knowledge.success.mean(axis=0)
    return int(np.argsort(-score, kind="stable")[0])


def _reads_features(per, strategies):
    """Whether each row's strategy computed the instance's features (for ``auto``, the
    candidate it chose on the row's fold, or its vote: ``a+b+...``, every voter reading
    features)."""
    from metaeval.recommend.learners._learners import uses_of
    from metaeval.recommend.learners._registry import STRATEGIES, get_strategy

    items = list(STRATEGIES) if strategies is None else (
        [strategies] if isinstance(strategies, str) else list(strategies))
    known = {}
    for item in items:
        strategy = get_strategy(item)
        known[strategy.name] = strategy

    def reads_one(name):
        name = name.removesuffix("-linear")  # auto's voter regression-linear
        strategy = known.get(name) or (get_strategy(name) if name in STRATEGIES else None)
        return strategy is not None and bool(uses_of(strategy))

    def reads(name):
        return any(reads_one(part) for part in name.split("+"))

    out = per["strategy"].map(reads).to_numpy(dtype=bool).copy()
    if "chosen" in per.columns:
        has = per["chosen"].notna().to_numpy()
        out[has] = per["chosen"][has].map(reads).to_numpy(dtype=bool)
    return out


def _add_feature_costs(sc, per, row, pick, reads=None):
    """The first pick's runtime plus the seconds spent describing the instance; with
    ``reads`` (whether each row's strategy computed the features), an instance a feature
    step presolved is solved in that time instead for those that did.

    The evaluation's ``overhead`` is the description time over the pool's time on the
    instance (its relative time axis); times ``pool_time`` it is the feature steps'
    cost in seconds. Changes ``first_success`` and ``loss_at_1`` in place and adds
    ``feature_cost``, ``feature_cost_timeout`` and ``feature_presolved``.
    """
    cost = (per["overhead"] * per["pool_time"]).to_numpy(dtype=np.float64)
    cost = np.where(pick >= 0, cost, 0.0)  # random: no features read
    j = np.maximum(pick, 0)
    presolved = (sc.presolved[row] & reads & (pick >= 0)) if reads is not None else \
        np.zeros(len(row), dtype=bool)
    was_solved = ((pick >= 0) & sc.solved[row, j]) | presolved
    runtime = np.where(presolved, cost, sc.performance[row, j] + cost)
    timeout = was_solved & (cost > 0) & (runtime >= sc.cutoff)
    par10 = np.where(was_solved, np.where(timeout, 10.0 * sc.cutoff, runtime),
                     sc.performance[row, j])
    old = per["first_success"].to_numpy(dtype=np.float64)
    new = np.where(pick >= 0, sc.sign * par10 + sc.shift, old)
    per["loss_at_1"] = per["loss_at_1"].to_numpy(dtype=np.float64) + (old - new)
    per["first_success"] = new
    per["feature_cost"] = cost
    per["feature_cost_timeout"] = timeout
    per["feature_presolved"] = presolved


def _add_presolver(sc, per, row, pick, costs):
    r"""The first pick after ``auto``'s pre-solving schedule, on the rows that have one
    (:mod:`~metaeval.recommend.learners._presolve`): an instance the pre-solver a solves
    within its t seconds costs a's runtime and no features; any other costs t plus what
    :func:`_add_feature_costs` charged (the features, and the pick's run unless a feature
    step presolved it), a timeout when that reaches the cutoff. Changes
    ``first_success``, ``loss_at_1``, ``feature_cost`` and ``feature_cost_timeout`` in
    place and adds ``presolver_solved``.
    """
    names = per["presolver"].to_numpy(dtype=object)
    has = np.array([isinstance(n, str) for n in names]) & (pick >= 0)
    n = len(row)
    per["presolver_solved"] = np.zeros(n, dtype=bool)
    if "feature_cost_timeout" not in per.columns:
        per["feature_cost_timeout"] = np.zeros(n, dtype=bool)
    if not has.any():
        return
    col = {a: j for j, a in enumerate(sc.knowledge.algorithms)}
    a = np.array([col[x] if isinstance(x, str) else 0 for x in names], dtype=np.int64)
    t = np.where(has, per["presolve_seconds"].to_numpy(dtype=np.float64), 0.0)
    j = np.maximum(pick, 0)
    early = has & sc.solved[row, a] & (sc.performance[row, a] <= t)
    cost = per["feature_cost"].to_numpy(dtype=np.float64) if costs else np.zeros(n)
    presolved = (per["feature_presolved"].to_numpy(dtype=bool)
                 if "feature_presolved" in per.columns else np.zeros(n, dtype=bool))
    was_solved = sc.solved[row, j] | presolved
    runtime = t + np.where(presolved, cost, sc.performance[row, j] + cost)
    timeout = was_solved & (runtime >= sc.cutoff)
    par10 = np.where(early, sc.performance[row, a],
                     np.where(was_solved, np.where(timeout, 10.0 * sc.cutoff, runtime),
                              sc.performance[row, j]))
    old = per["first_success"].to_numpy(dtype=np.float64)
    new = np.where(has, sc.sign * par10 + sc.shift, old)
    per["loss_at_1"] = per["loss_at_1"].to_numpy(dtype=np.float64) + (old - new)
    per["first_success"] = new
    per["feature_cost"] = np.where(has & early, 0.0, per["feature_cost"].to_numpy(
        dtype=np.float64))
    per["feature_cost_timeout"] = np.where(has, timeout & ~early, per[
        "feature_cost_timeout"].to_numpy(dtype=bool))
    per["presolver_solved"] = early
    if "feature_presolved" in per.columns:  # solved before the features were computed
        per["feature_presolved"] = presolved & ~early


def _summarise(sc, per, names, n_boot, alpha, seed):
    measures = ["performance", "mil", *(f"loss_at_{k}" for k in LOSS_STEPS),
                "feature_cost"]
    if sc.runtime:
        measures.append("solved")
    # repetitions averaged per instance: the instances are the paired units
    extra = ["sbs_solved"] if sc.runtime else []
    mean = per.groupby(["dataset", "strategy"], sort=False)[
        [*measures, *extra, "first_success", "single_best_success", "oracle_success",
         "sbs_whole_success"]].mean()
    datasets = list(dict.fromkeys(per["dataset"]))
    base = mean.xs(names[0], level="strategy").reindex(datasets)
    sb_success = base["single_best_success"].to_numpy()
    whole_success = base["sbs_whole_success"].to_numpy()
    oracle_success = base["oracle_success"].to_numpy()
    n = len(datasets)
    rng = np.random.default_rng(seed)
    boot = rng.integers(0, n, size=(n_boot, n))
    q = (100 * alpha / 2, 100 * (1 - alpha / 2))
    # first picks against the SBS's, as losses (lower is better): the resamples and sign
    # patterns drawn once for all the strategies
    compared = [name for name in names if name not in _NOT_COMPARED]
    versus = dict(zip(compared, paired_comparisons(
        [oracle_success - mean.xs(name, level="strategy").reindex(datasets)[
            "first_success"].to_numpy() for name in compared],
        oracle_success - sb_success, n_boot=n_boot, alpha=alpha, seed=seed), strict=True))
    rows = []
    for name in names:
        m = mean.xs(name, level="strategy").reindex(datasets)
        r = {"strategy": name, "n_instances": n}
        for c in measures:
            v = m[c].to_numpy()
            r[c] = float(v.mean())
            r[f"{c}_low"], r[f"{c}_high"] = np.percentile(v[boot].mean(axis=1), q)
        s = m["first_success"].to_numpy()
        for column, sb in (("gap_closed", sb_success), ("gap_closed_whole_sbs",
                                                         whole_success)):
            r[column] = float(_gap(s.mean(), sb.mean(), oracle_success.mean()))
            gaps = _gap(s[boot].mean(axis=1), sb[boot].mean(axis=1),
                        oracle_success[boot].mean(axis=1))
            gaps = gaps[np.isfinite(gaps)]
            r[f"{column}_low"], r[f"{column}_high"] = (np.percentile(gaps, q) if gaps.size
                                                       else (np.nan, np.nan))
        if name in _NOT_COMPARED:
            r.update(difference=np.nan, difference_low=np.nan, difference_high=np.nan,
                     p=np.nan, null_same_verdict=np.nan, wins=0, losses=0, ties=n)
        else:
            c = versus[name]
            r.update(difference=c["difference"], difference_low=c["low"],
                     difference_high=c["high"], p=c["p_value"],
                     null_same_verdict=c["null_same_verdict"], wins=c["wins"],
                     losses=c["losses"], ties=c["ties"])
        rows.append(r)
    summary = pd.DataFrame(rows)
    summary["p_holm"] = holm(summary["p"].to_numpy())
    summary["null_holm"] = holm(summary["null_same_verdict"].to_numpy())
    summary["supported"] = ((summary["difference_low"] > 0) & (summary["p_holm"] < alpha)
                            & (summary["null_holm"] < alpha))
    sbs = float(sc.to_performance(sb_success).mean())
    vbs = float(sc.to_performance(oracle_success).mean())
    sbs_solved = vbs_solved = None
    if sc.runtime:
        sbs_solved = float(base["sbs_solved"].mean())
        vbs_solved = float(np.mean(sc.solved.any(axis=1)))
    return summary, sbs, vbs, sbs_solved, vbs_solved


def _aslib_note(note):
    if note.startswith("skipped ") and "(describe the store" in note:
        return note.split(" needs ")[0] + (": an ASlib scenario's features are read as "
                                           "meta-features, none as landmark features")
    return note


def _gap(s, sb, oracle):
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = (np.asarray(s) - sb) / (oracle - sb)
    return np.where(np.isclose(oracle - sb, 0.0), np.nan, gap)
