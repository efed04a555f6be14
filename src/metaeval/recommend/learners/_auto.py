r"""``auto``: the vote of its learners, or one strategy chosen on the training datasets.

The default (``combine="vote"``) keeps what every learner learns instead of choosing
one: each new dataset's configurations are ordered by the truncated Borda count of the
learners' orders (the sum of each configuration's positions, a position past the second
counting as the second, ``top=2``; ties to the learner of lowest inner loss), the
learners being the candidates that read the new dataset (``knn-metafeatures``,
``cost-landmarking``, ``regression``, ``pairwise``; ``regression`` votes twice, on the
log and on the linear cost, when given a cost ceiling). A candidate that reads nothing
(``single-best``, ``zero-shot-portfolio``, ``average-ranking``) replaces the vote only
when its inner values, as below, are lower than the vote's by Wilcoxon's one-sided
signed-rank test over families at :math:`p < \alpha / m` (:math:`m` such candidates):
the burden of proof is on leaving the vote. On the 21 ASlib development scenarios
(docs/aslib.md) the full vote closed 0.597 of the gap on average against 0.555 for the
choice of one candidate per fold below, and the truncated vote with the pre-solving
schedule of ``presolve_cutoff`` 0.631 (docs/aslib_schedule_plan.md). On the shipped
knowledge base under accuracy at P = 0 the vote is kept on every held-out family
(loss@1 0.0071 against the single best's 0.0083).

``combine="choose"``, the former default: each candidate strategy is judged by an inner
leave-one-family-out over the training datasets only: every training dataset is ranked
by the candidate fitted without its family, and scored by the loss of the first pick
(P = 0) or by the mean interval loss (P > 0: time counts, the whole curve matters). The
per-dataset values are averaged within
families (related datasets count once). ``auto`` then keeps ``single-best`` unless the
candidate with the lowest mean beats it by Wilcoxon's one-sided signed-rank test of
their paired differences over families at :math:`p < \alpha / m` for the :math:`m`
other candidates (Bonferroni-corrected for picking the best of :math:`m`; :math:`\alpha
= 0.05`). It leaves the single best only when the training data say so clearly,
counting the luck of the best of many: a one-standard-error rule (Hastie, Tibshirani &
Friedman 2009, sec. 7.10) can be passed by chance by one of six candidates no better
than the single best up to :math:`1 - \Phi(1)^6 \approx 65\,\%` of the time (their
errors independent). A rank test is not swayed by a few families of very large loss
(PAR10's timeouts), which widen a standard error. ``test="margin"`` asks instead that
the best's mean be lower by more than :math:`z = \Phi^{-1}(1 - \alpha / m)` standard
errors of the paired differences (:math:`z = 2.39` for the six others of
:data:`CANDIDATES`); ``alpha=None`` with it gives the one-standard-error rule. Without
``single-best`` among the candidates, the simplest candidate (the first listed) within
one standard error of the best is chosen. The learners' own hyperparameters are chosen
from the same inner losses; so that this choice does not flatter them, each family's
inner order uses the setting the learner's one-SE rule chooses without that family
(nested; the forests and neighbours are not refitted, their out-of-bag orders already
leave the family out).

The inner orders of the forest learners come from their trees out of bag for each
family (no refit); ``knn-metafeatures`` gives its own (each training dataset's nearest
datasets of other families, with the k chosen without the dataset's family), and so does
``collaborative`` (its low-rank model of the datasets outside the family); those of
``cost-landmarking`` order the configurations by the mean over the neighbours of
:math:`\log SR - P \log T`, which is the A3R order of Abdulrahman & Brazdil (2014)
(ties aside).
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np

from metaeval.recommend._curves import loss_curve, mean_interval_loss
from metaeval.recommend.learners._auto_inner import _inner_orders
from metaeval.recommend.learners._learners import (
    Learner,
    ZeroShotPortfolio,
    family_codes,
    uses_of,
)
from metaeval.recommend.learners._learners_cf import CollaborativeFiltering
from metaeval.recommend.learners._learners_forest import (
    ConfigurationRegression,
    PairwiseClassification,
)
from metaeval.recommend.learners._neighbours import CostLandmarking, KnnMetafeatures
from metaeval.recommend.learners._presolve import choose_presolver
from metaeval.recommend.learners._strategies import (
    ActiveTesting,
    AverageRanking,
    Fitted,
    RandomOrder,
    Ranking,
    SingleBest,
    Strategy,
)

#: The strategies ``auto`` may choose from, by name.
_CLASSES = {cls.name: cls for cls in (
    SingleBest, ZeroShotPortfolio, AverageRanking, KnnMetafeatures, CostLandmarking,
    ActiveTesting, ConfigurationRegression, PairwiseClassification, CollaborativeFiltering,
    RandomOrder)}

#: The candidates of ``auto``, simplest first (its rules lean to the first).
CANDIDATES = ("single-best", "zero-shot-portfolio", "average-ranking", "knn-metafeatures",
              "cost-landmarking", "regression", "pairwise")
#: How ``auto`` tests that a candidate beats the single best.
TESTS = ("wilcoxon", "margin")
#: How ``auto`` uses its candidates: a vote of the learners, or one candidate chosen.
COMBINES = ("vote", "choose")
#: The log-time interval of the inner mean interval loss (fractions of the pool's time),
#: the evaluation's default.
INNER_TIME_RANGE = (0.01, 1.0)


class Auto(Strategy):
    r"""The Borda vote of the learners (default), or one strategy per condition chosen by
    inner cross-validation (``combine="choose"``); see the module's description.

    Parameters
    ----------
    candidates : sequence of str, default=:data:`CANDIDATES`
        Strategies to choose from, simplest first; those whose inputs the knowledge base
        lacks are left out (a learner reads what is described).
    k : int, optional
        Neighbours of the nearest-neighbour candidates; default: theirs
        (``knn-metafeatures`` chooses k by the one-SE rule, ``cost-landmarking`` 5).
    params : dict, optional
        Parameters of candidates by name, e.g. ``{"regression": {"cost_ceiling": 50000}}``
        (what an ASlib runtime scenario's evaluation gives its regression).
    alpha : float or None, default=0.05
        Level of the one-sided, Bonferroni-corrected test that the best other candidate
        beats the single best (:math:`\alpha / m` for the :math:`m` others); ``None``
        (only with ``test="margin"``): the one-standard-error rule (margin 1).
    test : {"wilcoxon", "margin"}, default="wilcoxon"
        How "beats the single best" is tested. ``"wilcoxon"``: Wilcoxon's one-sided
        signed-rank test of the paired differences over families (families where the
        two tie left out) gives :math:`p < \alpha / m`; a rank test is not swayed by a
        few families of very large loss (PAR10's timeouts), which widen a standard
        error. ``"margin"``: the mean paired difference exceeds
        :math:`z = \Phi^{-1}(1 - \alpha / m)` standard errors of it (the default until
        a pre-registered comparison on ASlib scenarios favoured the rank test: see
        docs/aslib.md).
    feature_cutoff : float, optional
        Decide whether the features are worth their cost. For a runtime scenario read
        from ASlib (success = 10 x cutoff - PAR10) with feature costs: the inner loss of
        the first pick of a candidate that reads features charges the training
        instance's feature cost to the pick's runtime, as the evaluation charges it (a
        run that then reaches this cutoff is a timeout, PAR10 = 10 x cutoff), so that
        a learner is preferred to the single best (which reads nothing) only where its
        picks gain more than the features cost. Default: the inner losses ignore the
        feature costs. Only the loss of the first pick (P = 0) is charged; the mean
        interval loss (P > 0) already counts the description time.
    combine : {"vote", "choose"}, default="vote"
        The Borda vote of the learners, left only for a candidate that reads nothing
        and is clearly better; or one candidate chosen per fit (the former rule, with
        ``test`` and ``alpha`` as above against the single best).
    top : int or None, default=2
        Truncate the vote: a voter's rank r of a configuration counts as min(r, ``top``),
        so that only its first ``top`` are told apart (truncated Borda); None: the full
        Borda count (the default until 2026-11-29; docs/aslib_schedule_plan.md).
    presolve_cutoff : float, optional
        For a runtime scenario read from ASlib (success = 10 x cutoff - PAR10) with this
        cutoff: choose a pre-solving schedule on the training instances
        (:func:`~metaeval.recommend.learners._presolve.choose_presolver`: one of the
        three algorithms of lowest training PAR10 run for a short time before the
        features are computed, or none), recorded in ``selection_["presolver"]``;
        :func:`evaluate_aslib` scores the first pick after it (and gives this cutoff).
        The orders do not change: :func:`evaluate_recommenders` on a knowledge base
        scores them without the schedule. Default: no schedule.
    presolve_costs : bool, default=True
        Whether the schedule's choice charges the recorded feature costs to the
        instances the pre-solver does not solve (:func:`evaluate_aslib` passes its
        ``feature_costs``).

    Attributes
    ----------
    selection_ : dict
        Set by the last :meth:`fit`: ``strategy`` (the one chosen), ``criterion``
        (``"loss@1"`` or ``"MIL"``), ``inner`` (each candidate's mean inner value over
        families), ``se`` (each candidate's standard error of its paired difference
        to the best), ``best``, ``margin`` (the standard errors by which the best would
        have to beat the single best under ``test="margin"``; the rule applied then),
        ``test``, ``p`` (with ``test="wilcoxon"`` and the single best among the
        candidates: the signed-rank p-value of the best against it, the rule applied)
        and ``params`` (the chosen strategy's own selection). With ``combine="vote"``:
        ``strategy`` is the voters' names joined by ``+`` (or the candidate reading
        nothing that replaced the vote), ``combine``, ``voters``, ``lead`` (the voter
        whose order breaks ties), ``inner`` (each voter's, the vote's and each
        candidate reading nothing's mean inner value), ``best_static``, ``p`` (or
        ``margin``: the test of the best of those against the vote), ``rule`` (in
        words) and ``params`` (each voter's own selection). With ``presolve_cutoff``:
        ``presolver`` (None, or ``algorithm``, ``seconds`` and the mean training PAR10
        ``with`` and ``without`` it).

    References
    ----------
    T. Hastie, R. Tibshirani and J. Friedman, *The Elements of Statistical Learning*,
    2nd ed., Springer (2009), sec. 7.10 (the one-standard-error rule); B. Bischl et al.,
    "ASlib", Artificial Intelligence 237 (2016) (the single best as the baseline).

    Examples
    --------
    >>> from metaeval.recommend import Condition, KnowledgeBase
    >>> kb = KnowledgeBase(["d1", "d2", "d3", "d4"], ["A", "B"],
    ...                    [[.9, .8], [.9, .7], [.8, .9], [.9, .8]], [[1, 1]] * 4)
    >>> fitted = Auto().fit(kb, Condition())
    >>> fitted.selection_["strategy"]
    'single-best'
    """

    name = "auto"

    def __init__(self, candidates=CANDIDATES, k=None, params=None, alpha=0.05,
                 test="wilcoxon", feature_cutoff=None, combine="vote", top=2,
                 presolve_cutoff=None, presolve_costs=True):
        if combine not in COMBINES:
            raise ValueError(f"combine must be one of {list(COMBINES)}, got {combine!r}.")
        self.combine = combine
        if alpha is not None and not (isinstance(alpha, (int, float))
                                      and not isinstance(alpha, bool) and 0 < alpha < 1):
            raise ValueError(f"alpha must be a number in (0, 1) or None, got {alpha!r}.")
        if test not in TESTS:
            raise ValueError(f"test must be one of {list(TESTS)}, got {test!r}.")
        if test == "wilcoxon" and alpha is None:
            raise ValueError("test='wilcoxon' needs a level: alpha must be a number in "
                             "(0, 1), got None (the one-standard-error rule is "
                             "alpha=None with test='margin').")
        candidates = tuple(candidates)
        unknown = [c for c in candidates if c not in _CLASSES]
        if not candidates or unknown:
            raise ValueError(f"candidates must name strategies other than auto and oracle, "
                             f"got {candidates!r}.")
        params = {} if params is None else params
        if not isinstance(params, dict) or any(
                n not in candidates or not isinstance(v, dict) for n, v in params.items()):
            raise ValueError(f"params must map candidate names to dicts of their "
                             f"parameters, got {params!r}.")
        self.candidates = candidates
        self.k = k
        self.params = {n: dict(v) for n, v in params.items()}
        self.alpha = alpha
        self.test = test
        self.feature_cutoff = _seconds_or_none(feature_cutoff, "feature_cutoff")
        if top is not None and (isinstance(top, bool) or not isinstance(top, (int, np.integer))
                                or top < 1):
            raise ValueError(f"top must be a positive integer or None, got {top!r}.")
        self.top = None if top is None else int(top)
        self.presolve_cutoff = _seconds_or_none(presolve_cutoff, "presolve_cutoff")
        if not isinstance(presolve_costs, (bool, np.bool_)):
            raise ValueError(f"presolve_costs must be True or False, got {presolve_costs!r}.")
        self.presolve_costs = bool(presolve_costs)
        self.selection_ = {}

    def __repr__(self) -> str:
        extra = f", params={self.params}" if self.params else ""
        extra += f", alpha={self.alpha}" if self.alpha != 0.05 else ""
        extra += f", test={self.test!r}" if self.test != "wilcoxon" else ""
        extra += (f", feature_cutoff={self.feature_cutoff:g}"
                  if self.feature_cutoff is not None else "")
        extra += f", combine={self.combine!r}" if self.combine != "vote" else ""
        extra += f", top={self.top}" if self.top != 2 else ""
        extra += (f", presolve_cutoff={self.presolve_cutoff:g}"
                  if self.presolve_cutoff is not None else "")
        extra += ", presolve_costs=False" if not self.presolve_costs else ""
        return f"Auto(candidates={self.candidates}, k={self.k}{extra})"

    def margin(self, n_candidates) -> float:
        r"""Standard errors by which the best of ``n_candidates`` (the single best among
        them) must beat the single best: :math:`\Phi^{-1}(1 - \alpha / m)` for the
        :math:`m` others, 1 with ``alpha=None``.

        >>> round(Auto().margin(7), 2), Auto(alpha=None, test="margin").margin(7)
        (2.39, 1.0)
        """
        others = max(int(n_candidates) - 1, 1)
        if self.alpha is None:
            return 1.0
        return float(NormalDist().inv_cdf(1.0 - self.alpha / others))

    def strategies(self, knowledge) -> list:
        """The candidate strategies the knowledge base can feed, simplest first."""

        def get_strategy(name, **params):
            return _CLASSES[name](**params)

        available = {"metafeatures": knowledge.metafeatures is not None,
                     "landmarks": knowledge.landmarks is not None}
        out = []
        for name in self.candidates:
            params = {"k": self.k} if name in ("knn-metafeatures", "cost-landmarking") else {}
            params.update(self.params.get(name, {}))
            strategy = get_strategy(name, **params)
            uses = uses_of(strategy)
            have = [u for u in uses if available[u]]
            if isinstance(strategy, Learner) and have and len(have) < len(uses):
                strategy = get_strategy(name, **params, features=have)
            elif len(have) < len(uses):
                continue
            out.append(strategy)
        return out

    def fit(self, knowledge, condition=None, *, seed=0, prefitted=None):
        """As :meth:`Strategy.fit`; ``prefitted`` maps ``repr(strategy)`` to a candidate
        already fitted on the same knowledge base with the same seed (an evaluation
        that also evaluates it), which is then not fitted again."""
        self._prefitted = prefitted or {}
        try:
            fitted = super().fit(knowledge, condition, seed=seed)
        finally:
            self._prefitted = {}
        self.selection_ = fitted.selection_
        return fitted

    def voters(self, strategies) -> list:
        """The candidates that vote (``combine="vote"``): those that read the new
        dataset and need no test results, and ``regression`` a second time on the
        linear scale when it is given a ``cost_ceiling`` (the log and the linear cost
        weigh timeouts differently)."""
        out = []
        for s in strategies:
            if not uses_of(s) or s.interactive:
                continue
            out.append(s)
            if (isinstance(s, ConfigurationRegression) and s.cost_ceiling is not None
                    and s.censored_cutoff is None and s.scale == "log"):
                params = {**self.params.get(s.name, {}), "features": s.features}
                out.append(ConfigurationRegression(**params, scale="linear"))
        return out

    def _fit(self, knowledge, condition, seed) -> Fitted:
        prefitted = getattr(self, "_prefitted", {})
        strategies = self.strategies(knowledge)
        if self.combine == "vote" and self.voters(strategies):
            return self._fit_vote(knowledge, condition, seed, prefitted, strategies)
        fits = [prefitted.get(repr(s)) or s.fit(knowledge, condition, seed=seed)
                for s in strategies]
        codes, n_families = family_codes(knowledge)
        criterion = "loss@1" if condition.time_weight == 0 else "MIL"
        if n_families < 2 or len(strategies) == 1:  # nothing to hold out
            values = np.zeros((len(strategies), max(n_families, 1)))
        else:
            values = np.array([_by_family(_inner_values(f, knowledge, condition, codes,
                                                        n_families, criterion,
                                                        self.feature_cutoff), codes,
                                          n_families) for f in fits])
        names = [s.name for s in strategies]
        margin = self.margin(len(names))
        chosen, best, mean, se = choose(names, values, margin)
        selection = {
            "strategy": names[chosen], "criterion": criterion,
            "inner": dict(zip(names, map(float, mean), strict=True)),
            "se": dict(zip(names, map(float, se), strict=True)),
            "best": names[best], "margin": margin, "test": self.test,
        }
        if self.test == "wilcoxon" and "single-best" in names:
            chosen, selection["p"] = choose_by_ranks(names, values, best, self.alpha)
            selection["strategy"] = names[chosen]
        selection["params"] = dict(fits[chosen].selection_)
        first = (None if n_families < 2 or len(strategies) == 1 else
                 _inner_orders(fits[chosen], knowledge, condition, codes, n_families)[:, 0])
        self._schedule(knowledge, first, uses_of(fits[chosen]), selection)
        return _FittedAuto(self, knowledge, condition, seed, fits[chosen], selection)

    def _schedule(self, knowledge, first, uses, selection) -> None:
        """With ``presolve_cutoff``: the pre-solving schedule chosen on the training
        instances from the inner first picks ``first`` (None: nothing held out, no
        schedule), recorded in ``selection["presolver"]``."""
        if self.presolve_cutoff is None:
            return
        kappa = self.presolve_cutoff
        success = np.asarray(knowledge.success, dtype=np.float64)
        if np.any(success < 0) or np.any(success > 10.0 * kappa * (1 + 1e-12)):
            raise ValueError(f"presolve_cutoff={kappa:g} needs a runtime knowledge base whose "
                             f"success is 10 x cutoff - PAR10, between 0 and {10 * kappa:g}; "
                             f"this one has values from {success.min():g} to "
                             f"{success.max():g}.")
        selection["presolver"] = None
        if first is None:
            return
        cost = (_feature_cost(knowledge, uses) if self.presolve_costs and uses
                else np.zeros(len(first)))
        got = choose_presolver(10.0 * kappa - success, first, cost, kappa)
        if got is not None:
            a, seconds, with_, without = got
            selection["presolver"] = {"algorithm": knowledge.algorithms[a],
                                      "seconds": seconds, "with": with_, "without": without}


    def _fit_vote(self, knowledge, condition, seed, prefitted, strategies) -> Fitted:
        """``combine="vote"``: the voters' Borda count, unless a candidate that reads
        nothing is clearly better on the inner folds (see :class:`Auto`)."""
        voters = self.voters(strategies)
        statics = [s for s in strategies if not uses_of(s) and not s.interactive]

        def fitted(s):
            return prefitted.get(repr(s)) or s.fit(knowledge, condition, seed=seed)

        fits = [fitted(s) for s in voters]
        names = [_label(s) for s in voters]
        codes, n_families = family_codes(knowledge)
        criterion = "loss@1" if condition.time_weight == 0 else "MIL"
        if n_families < 2:  # nothing to hold out: nothing says another is better
            vote = _FittedVote(self, knowledge, condition, seed, fits, 0)
            selection = _vote_record(names, 0, criterion, self.test, fits)
            selection["rule"] = "nothing held out: the vote"
            self._schedule(knowledge, None, (), selection)
            return _FittedAuto(self, knowledge, condition, seed, vote, selection)

        def inner(f, orders=None):
            return _by_family(_inner_values(f, knowledge, condition, codes, n_families,
                                            criterion, self.feature_cutoff, orders=orders),
                              codes, n_families)

        orders = [_inner_orders(f, knowledge, condition, codes, n_families) for f in fits]
        values = [inner(f, o) for f, o in zip(fits, orders, strict=True)]
        lead = int(np.argmin([v.mean() for v in values]))  # ties: the first voter
        vote = _FittedVote(self, knowledge, condition, seed, fits, lead)
        vote_orders = vote.borda(orders)
        mine = inner(vote, vote_orders)
        selection = _vote_record(names, lead, criterion, self.test, fits)
        label = selection["strategy"]
        selection["inner"] = {**dict(zip(names, (float(v.mean()) for v in values),
                                         strict=True)), label: float(mine.mean())}
        chosen, first, uses = vote, vote_orders[:, 0], vote.uses
        m = len(statics)
        level = (f"{self.alpha:g} / {m}" if self.alpha is not None else "one standard error")
        how = ("Wilcoxon's signed-rank test" if self.test == "wilcoxon" else
               "a margin of standard errors")
        selection["rule"] = (f"it leaves the vote only for a candidate that reads nothing "
                             f"and is lower by {how} at {level}")
        if statics:
            static_fits = [fitted(s) for s in statics]
            static_values = [inner(f) for f in static_fits]
            selection["inner"].update({s.name: float(v.mean()) for s, v in
                                       zip(statics, static_values, strict=True)})
            b = int(np.argmin([v.mean() for v in static_values]))
            selection["best_static"] = statics[b].name
            lower = _lower(static_values[b], mine, self.test, self.alpha, m, selection)
            if lower and static_values[b].mean() < mine.mean():
                chosen, selection["strategy"] = static_fits[b], statics[b].name
                selection["params"] = dict(static_fits[b].selection_)
                first, uses = _inner_orders(static_fits[b], knowledge, condition, codes,
                                            n_families)[:, 0], ()
        self._schedule(knowledge, first, uses, selection)
        return _FittedAuto(self, knowledge, condition, seed, chosen, selection)


def _seconds_or_none(value, name):
    """A positive finite number of seconds as a float, or None; else a ValueError naming
    ``name``."""
    if value is not None and (isinstance(value, bool) or not isinstance(
            value, (int, float, np.integer, np.floating)) or not (
            np.isfinite(value) and value > 0)):
        raise ValueError(f"{name} must be a positive number or None, got {value!r}.")
    return None if value is None else float(value)


def _vote_record(names, lead, criterion, test, fits) -> dict:
    return {"strategy": "+".join(names), "criterion": criterion, "combine": "vote",
            "voters": list(names), "lead": names[lead], "test": test,
            "params": {n: dict(f.selection_) for n, f in zip(names, fits, strict=True)}}


def _label(strategy) -> str:
    """A voter's name (``regression-linear`` for the regression on the linear scale)."""
    if isinstance(strategy, ConfigurationRegression) and strategy.scale != "log":
        return f"{strategy.name}-{strategy.scale}"
    return strategy.name


def _lower(a, b, test, alpha, m, selection) -> bool:
    r"""Whether the per-family values ``a`` are lower than ``b``: by Wilcoxon's
    one-sided signed-rank test at :math:`\alpha / m` (``test="wilcoxon"``), or by more
    than :math:`\Phi^{-1}(1 - \alpha / m)` standard errors of the paired differences
    (``test="margin"``; one standard error with ``alpha=None``), :math:`m` the
    candidates ``a`` was the best of. Records ``p`` or ``margin`` in ``selection``."""
    diff = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    m = max(int(m), 1)
    if test == "wilcoxon":
        from scipy.stats import wilcoxon

        p = 1.0 if not np.any(diff != 0) else float(
            wilcoxon(diff, alternative="greater", zero_method="wilcox").pvalue)
        selection["p"] = p
        return p < alpha / m
    z = 1.0 if alpha is None else float(NormalDist().inv_cdf(1.0 - alpha / m))
    selection["margin"] = z
    n = diff.size
    se = diff.std(ddof=1) / np.sqrt(n) if n > 1 else 0.0
    return bool(diff.mean() > z * se + 1e-15)


def borda(orders, lead=0, top=None) -> np.ndarray:
    """Orders (each (D, A)) combined by their Borda count: each algorithm ordered by
    the sum of its positions; ties go to the order of the ``lead`` voter. With ``top``
    a position p counts as min(p, ``top``) (truncated Borda: only each voter's first
    ``top`` are told apart).

    Three voters: positions of (x, y, z) are (0, 1, 2), (1, 0, 2) and (1, 2, 0): sums
    2, 3, 4; x first. Two voters disagreeing on two algorithms tie: the lead's order.

    >>> o = [np.array([[0, 1, 2]]), np.array([[1, 0, 2]]), np.array([[2, 0, 1]])]
    >>> borda(o).tolist()
    [[0, 1, 2]]
    >>> two = [np.array([[0, 1]]), np.array([[1, 0]])]
    >>> borda(two, lead=0).tolist(), borda(two, lead=1).tolist()
    ([[0, 1]], [[1, 0]])

    Truncated at 1 (plurality of first picks), the three voters above: x, y and z are
    each first once and tie (sums 2, 2, 2): the lead's order. At 2: sums 2, 3, 3; x
    first, then y before z as the lead orders them.

    >>> borda(o, top=1).tolist(), borda(o, lead=2, top=1).tolist(), borda(o, top=2).tolist()
    ([[0, 1, 2]], [[2, 0, 1]], [[0, 1, 2]])
    """
    total = np.zeros(np.shape(orders[0]), dtype=np.int64)
    for v, o in enumerate(orders):
        pos = np.empty_like(total)
        np.put_along_axis(pos, np.asarray(o, dtype=np.int64),
                          np.arange(total.shape[1], dtype=np.int64)[None], axis=1)
        total += pos if top is None else np.minimum(pos, top)
        if v == lead:
            lead_pos = pos
    return np.lexsort((lead_pos, total), axis=-1).astype(np.int64)


def choose(names, values, margin):
    """``auto``'s choice from the candidates' inner values (lower is better).

    ``values``: (candidates, families). Returns the index chosen, the index of the best
    mean, the means and each candidate's standard error of its paired difference to the
    best. With ``"single-best"`` among ``names`` it is chosen unless the best is lower by
    more than ``margin`` standard errors; otherwise the first candidate within one
    standard error of the best.

    >>> values = np.array([[.10, .10, .10, .10], [.06, .10, .06, .10], [.2, .2, .2, .2]])
    >>> choose(["single-best", "a", "b"], values, 1.0)[0]  # 0.02 lower, 1.73 SE: a
    1
    >>> choose(["single-best", "a", "b"], values, 1.96)[0]  # not by 1.96 SE: single best
    0
    """
    values = np.asarray(values, dtype=np.float64)
    mean = values.mean(axis=1)
    best = int(np.argmin(mean))
    n = values.shape[1]
    se = ((values - values[best]).std(axis=1, ddof=1) / np.sqrt(n) if n > 1
          else np.zeros(len(names)))
    if "single-best" in names:  # the single best unless the best is clearly better
        sb = names.index("single-best")
        chosen = sb if mean[sb] - mean[best] <= margin * se[sb] + 1e-15 else best
    else:  # the simplest within one standard error of the best
        chosen = next(c for c in range(len(names)) if mean[c] - mean[best] <= se[c] + 1e-15)
    return chosen, best, mean, se


def choose_by_ranks(names, values, best, alpha):
    """``auto``'s choice by Wilcoxon's signed-rank test (``test="wilcoxon"``): the best
    candidate (index ``best``, lowest mean) if the one-sided test that its per-family
    values are lower than the single best's gives p < ``alpha`` / m (m: the other
    candidates), else the single best. Families where the two tie are left out
    (Wilcoxon's own treatment of zero differences). Returns (index chosen, p); p is 1
    when they never differ or the best is the single best. ``names`` must include
    ``"single-best"`` (without it ``auto`` keeps the one-standard-error choice of
    :func:`choose`).

    Six families where ``a`` is lower every time: the exact p is 1/2**6; five: 1/2**5,
    not below 0.05 / 2.

    >>> sb = [.3, .3, .3, .3, .3, .3]
    >>> a = [.2, .1, .25, .0, .15, .05]
    >>> choose_by_ranks(["single-best", "a", "b"], [sb, a, [.9] * 6], 1, 0.05)
    (1, 0.015625)
    >>> choose_by_ranks(["single-best", "a", "b"], [sb[:5], a[:5], [.9] * 5], 1, 0.05)
    (0, 0.03125)
    """
    from scipy.stats import wilcoxon

    if "single-best" not in names:
        raise ValueError(f"names must include 'single-best', got {list(names)!r}.")
    values = np.asarray(values, dtype=np.float64)
    sb = names.index("single-best")
    diff = values[sb] - values[best]  # > 0 where the best is lower
    if best == sb or not np.any(diff != 0):
        return sb, 1.0
    p = float(wilcoxon(diff, alternative="greater", zero_method="wilcox").pvalue)
    others = max(len(names) - 1, 1)
    return (best if p < alpha / others else sb), p


def _feature_cost(kb, uses) -> np.ndarray:
    """Each dataset's cost of the features ``uses`` names, in seconds (0 unrecorded)."""
    cost = np.zeros(len(kb.datasets))
    for source, clock in (("metafeatures", "metafeature_time"),
                          ("landmarks", "landmark_time")):
        t = getattr(kb, clock)
        if source in uses and t is not None:
            cost = cost + np.nan_to_num(np.asarray(t, dtype=np.float64))
    return cost


def charged_success(success, cost, cutoff) -> np.ndarray:
    r"""Success :math:`10\kappa - PAR10` of runs whose runtime is charged ``cost`` more
    (the cutoff :math:`\kappa`): a solved run (PAR10 below :math:`\kappa`) whose runtime
    plus the cost reaches :math:`\kappa` becomes a timeout (success 0); a timeout stays
    one.

    >>> charged_success(np.array([95.0, 91.5, 0.0]), np.array([2.0, 2.0, 2.0]), 10.0)
    array([93.,  0.,  0.])
    """
    ceiling = 10.0 * cutoff
    par10 = ceiling - np.asarray(success, dtype=np.float64)
    runtime = par10 + cost
    return np.where((par10 < cutoff) & (runtime < cutoff), ceiling - runtime, 0.0)


class _FittedAuto(Fitted):
    """The chosen candidate, fitted; ``auto`` ranks as it does."""

    def __init__(self, strategy, knowledge, condition, seed, chosen, selection):
        super().__init__(strategy, knowledge, condition, seed)
        self.chosen = chosen
        self.selection_ = selection

    @property
    def uses(self):
        return self.chosen.uses

    @property
    def interactive(self) -> bool:
        return self.chosen.interactive

    def overhead(self, query) -> float:
        return self.chosen.overhead(query)

    def rank(self, query) -> Ranking:
        return self.chosen.rank(query)

    def rank_many(self, queries) -> list:
        return self.chosen.rank_many(queries)

    def run(self, query, test) -> None:
        self.chosen.run(query, test)


class _FittedVote(Fitted):
    """The voters, fitted; each new dataset's order is their Borda count (ties to the
    lead voter, the one of lowest inner loss)."""

    def __init__(self, strategy, knowledge, condition, seed, parts, lead):
        super().__init__(strategy, knowledge, condition, seed)
        self.parts, self.lead = list(parts), int(lead)

    @property
    def uses(self):
        out = []
        for part in self.parts:
            out += [u for u in uses_of(part) if u not in out]
        return tuple(out)

    @property
    def interactive(self) -> bool:
        return False

    def overhead(self, query) -> float:
        # every description read by a voter, once (the voters share them)
        seconds = {"metafeatures": query.metafeature_time,
                   "landmarks": query.landmark_time}
        return float(sum(seconds[u] for u in self.uses))

    def borda(self, orders) -> np.ndarray:
        return borda(orders, self.lead, self.strategy.top)

    def rank(self, query) -> Ranking:
        return self.rank_many([query])[0]

    def rank_many(self, queries) -> list:
        ranked = [part.ranked(queries) for part in self.parts]  # once per part
        orders = [np.array([r.order for r in rs], dtype=np.int64) for rs in ranked]
        combined = self.borda(orders)
        out = []
        for i, order in enumerate(combined):
            total = np.zeros(order.size)
            steps = np.arange(order.size)
            if self.strategy.top is not None:
                steps = np.minimum(steps, self.strategy.top)
            for o in orders:
                total[o[i]] += steps
            out.append(Ranking(order, total[order] / len(orders),
                               ranked[self.lead][i].drivers))
        return out


def _by_family(values, codes, n_families):
    """Per-dataset values averaged within each family, shape (n_families,)."""
    sums = np.bincount(codes, weights=values, minlength=n_families)
    return sums / np.bincount(codes, minlength=n_families)


def _inner_values(fitted, kb, condition, codes, n_families, criterion,
                  feature_cutoff=None, orders=None):
    """Each training dataset's inner loss@1 or MIL under ``fitted``'s strategy, the
    dataset ranked by the strategy fitted without its family (loss@1 with the feature
    costs charged when ``feature_cutoff`` is given and the strategy reads features);
    ``orders``: those inner orders, when already computed."""
    if orders is None:
        orders = _inner_orders(fitted, kb, condition, codes, n_families)
    success = kb.success
    if criterion == "loss@1":
        rows = np.arange(success.shape[0])
        first = success[rows, orders[:, 0]]
        uses = uses_of(fitted)
        if feature_cutoff is not None and uses:
            first = charged_success(first, _feature_cost(kb, uses), feature_cutoff)
        return success.max(axis=1) - first
    out = np.empty(success.shape[0])
    for i in range(success.shape[0]):
        unit = float(kb.times[i].sum())
        overhead = fitted.overhead(kb.query(i)) / unit if uses_of(fitted) else 0.0
        loss, elapsed = loss_curve(success[i], kb.times[i] / unit, orders[i],
                                   overhead=overhead)
        loss0 = float(success[i].max() - success[i].min())
        out[i] = float(mean_interval_loss(loss, elapsed, loss0, INNER_TIME_RANGE))
    return out
