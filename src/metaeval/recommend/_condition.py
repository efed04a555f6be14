"""The operating condition: how a past result is scored when recommending algorithms.

A :class:`Condition` names the success measure (one of the ten metrics of the
algorithm-benchmark web page, or one minus the mean instance hardness under a threshold
choice method at a point cost proportion, under a Beta cost distribution or under the
uniform one) and how much running time matters: the exponent ``P`` of A3R
(Abdulrahman & Brazdil 2014, eq. 2) or a hard time budget in seconds.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

# metaeval.benchmark (pandas) and metaeval.hardness (SciPy) are imported where a condition
# scores or names its measure, not here: the command line checks a condition's arguments
# (an unknown measure, a negative cost) without either. The names below are theirs
# (:data:`metaeval.benchmark.SKLEARN_METRICS`, :data:`metaeval.hardness.METHODS`), the
# same, tested.

#: Success values below this are raised to it before A3R's ratios (which need > 0).
SUCCESS_FLOOR = 1e-3
#: the ten metrics of the algorithm-benchmark web page (:data:`metaeval.benchmark.SKLEARN_METRICS`)
SKLEARN_METRICS = ("accuracy", "balanced_accuracy", "f1", "mcc", "precision", "recall", "auc",
                   "average_precision", "brier", "log_loss")
#: the threshold choice methods (:data:`metaeval.hardness.METHODS`)
METHODS = ("score-fixed", "score-driven", "rate-driven", "score-uniform", "rate-uniform")

_LOSS_TRANSFORMS = {
    "brier": ("1 - Brier score", lambda v: 1.0 - v),
    "log_loss": ("exp(-log loss)", lambda v: np.exp(-v)),
}


def _number(value, name):
    if isinstance(value, str):
        try:
            value = Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{name} must be a number (or a fraction such as 1/64), "
                             f"got {value!r}.") from None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r}.")
    try:
        value = float(value)
    except OverflowError:  # a Fraction or an integer beyond float's range (1e400)
        raise ValueError(f"{name} must be a finite number, got {_shown(value)} (too large "
                         "for a floating-point number).") from None
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}.")
    return value


def _shown(value) -> str:
    """A short form of a huge number for a message (``1e400``, not 401 digits)."""
    if isinstance(value, Fraction) and value.denominator == 1:
        value = value.numerator
    if isinstance(value, int):
        digits = len(str(abs(value)))
        return f"{'-' if value < 0 else ''}about 1e{digits - 1}"
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _beta(value):
    if value is None:
        return None
    if isinstance(value, str):
        parts = [p.strip() for p in value.split(",")]
        if len(parts) != 2 or not all(parts):
            raise ValueError(f"cost_beta must be two numbers 'A,B', got {value!r}.")
        value = parts
    if not hasattr(value, "__len__") or len(value) != 2:
        raise ValueError(f"cost_beta must be a pair (a, b) of Beta parameters, got {value!r}.")
    a, b = (_number(v, "cost_beta") for v in value)
    if a <= 0 or b <= 0:
        raise ValueError(f"cost_beta: both Beta parameters must be > 0, got ({a:g}, {b:g}).")
    return (a, b)


@dataclass(frozen=True)
class Condition:
    r"""An operating condition: the success measure, its costs, and the weight of time.

    The success of algorithm :math:`a` on dataset :math:`d` is higher-is-better:

    - one of the ten metrics of the algorithm-benchmark web page
      (:data:`metaeval.benchmark.SKLEARN_METRICS`) on the pooled out-of-fold scores, the
      two losses turned into gains (``1 - brier``, ``exp(-log_loss)``);
    - ``hardness:<method>``: :math:`1 - \overline{IH^T}`, one minus the mean instance
      hardness under threshold choice method ``T`` (Prudêncio 2019), at the point cost
      proportion ``cost`` (the instance cost curve at ``c``), under a Beta(a, b)
      distribution of ``c`` (``cost_beta``) or under the uniform one (neither given).

    Time enters through A3R (Abdulrahman & Brazdil 2014, eq. 2): algorithms are compared
    on :math:`SR_a / T_a^{P}` with ``P = time_weight`` (``P = 0`` ignores time; the
    pairwise A3R ratio of two algorithms is the ratio of these values). A
    ``time_budget`` (seconds) caps the time a recommendation may spend instead.

    Parameters
    ----------
    measure : str, default="accuracy"
        A name from :data:`metaeval.benchmark.SKLEARN_METRICS` or ``"hardness:<method>"``
        with ``<method>`` one of :data:`metaeval.hardness.METHODS`.
    cost : float in [0, 1], optional
        Point cost proportion ``c`` (hardness measures only).
    cost_beta : (float, float) or "A,B", optional
        Beta(a, b) cost distribution (hardness measures only; not with ``cost``).
    time_weight : float >= 0 or str, default=0.0
        The exponent P of A3R; a fraction such as ``"1/64"`` is accepted.
    time_budget : float > 0, optional
        Seconds a recommendation may spend testing algorithms.
    threshold : float in [0, 1], default=0.5
        Threshold of the crisp metrics and of ``score-fixed`` hardness.

    References
    ----------
    Abdulrahman & Brazdil (2014), "Measures for combining accuracy and time for
    meta-learning", eq. 2; Prudêncio (2019), "Cost sensitive evaluation of instance
    hardness in machine learning"; Melo & Prudêncio (2014), cost-sensitive measures of
    algorithm similarity.

    Examples
    --------
    At c = 0.5 the score-driven threshold is 0.5: only the class-1 instance scored 0.35
    errs, and it costs 2(1 - c) = 1, so the mean hardness is 1/4.

    >>> cond = Condition("hardness:score-driven", cost=0.5, time_weight="1/64")
    >>> cond.time_weight
    0.015625
    >>> cond.success([0, 0, 1, 1], [[0.1], [0.4], [0.35], [0.8]]).tolist()
    [0.75]
    >>> Condition("accuracy").success([0, 0, 1, 1], [[0.1, 0.9], [0.4, 0.6],
    ...                                               [0.35, 0.2], [0.8, 0.3]]).tolist()
    [0.75, 0.0]
    """

    measure: str = "accuracy"
    cost: float | None = None
    cost_beta: tuple | None = None
    time_weight: float = 0.0
    time_budget: float | None = None
    threshold: float = 0.5

    def __post_init__(self):
        measure = self.measure
        if not isinstance(measure, str):
            raise ValueError(f"measure must be a string, got {measure!r}.")
        known = [*SKLEARN_METRICS, *(f"hardness:{m}" for m in METHODS)]
        if measure not in known:
            raise ValueError(f"Unknown measure {measure!r}; known: {', '.join(known)}.")
        hardness = measure.startswith("hardness:")
        cost = None if self.cost is None else _number(self.cost, "cost")
        beta = _beta(self.cost_beta)
        if (cost is not None or beta is not None) and not hardness:
            raise ValueError(
                f"cost and cost_beta apply to the hardness measures only, not to {measure!r}."
            )
        if cost is not None and beta is not None:
            raise ValueError("give either cost (a point cost proportion) or cost_beta, not both.")
        if cost is not None and not 0.0 <= cost <= 1.0:
            raise ValueError(f"cost must be a cost proportion in [0, 1], got {cost:g}.")
        p = _number(self.time_weight, "time_weight")
        if p < 0:
            raise ValueError(f"time_weight (P of A3R) must be >= 0, got {p:g}.")
        budget = self.time_budget
        if budget is not None:
            budget = _number(budget, "time_budget")
            if budget <= 0:
                raise ValueError(f"time_budget must be > 0 seconds, got {budget:g}.")
        t = _number(self.threshold, "threshold")
        if not 0.0 <= t <= 1.0:
            raise ValueError(f"threshold must lie in [0, 1], got {t:g}.")
        object.__setattr__(self, "cost", cost)
        object.__setattr__(self, "cost_beta", beta)
        object.__setattr__(self, "time_weight", p)
        object.__setattr__(self, "time_budget", budget)
        object.__setattr__(self, "threshold", t)

    # ------------------------------------------------------------------ description
    @property
    def method(self) -> str | None:
        """The threshold choice method of a hardness measure, else None."""
        return self.measure.split(":", 1)[1] if self.measure.startswith("hardness:") else None

    @property
    def label(self) -> str:
        """The condition in words, e.g. ``"1 - rate-driven hardness at c = 0.3, P = 1/64"``."""
        if self.method is None:
            from metaeval.benchmark import METRICS

            text = _LOSS_TRANSFORMS.get(self.measure, (METRICS[self.measure].label,))[0]
        else:
            text = f"1 - {self.method} hardness"
            if self.cost is not None:
                text += f" at c = {self.cost:g}"
            elif self.cost_beta is not None:
                text += f" under Beta({self.cost_beta[0]:g}, {self.cost_beta[1]:g})"
            else:
                text += " (uniform costs)"
        text += f", P = {_fraction(self.time_weight)}"
        if self.time_budget is not None:
            text += f", budget {self.time_budget:g} s"
        return text

    def to_dict(self) -> dict:
        """JSON-ready fields (the ``condition`` object of ``metaeval recommend --json``)."""
        return {
            "measure": self.measure,
            "cost": self.cost,
            "cost_beta": None if self.cost_beta is None else list(self.cost_beta),
            "time_weight": self.time_weight,
            "time_budget": self.time_budget,
            "threshold": self.threshold,
            "label": self.label,
        }

    def replace(self, **changes) -> Condition:
        """A copy with some fields changed (e.g. another ``time_weight``)."""
        fields = {k: getattr(self, k) for k in
                  ("measure", "cost", "cost_beta", "time_weight", "time_budget", "threshold")}
        fields.update(changes)
        return Condition(**fields)

    # ------------------------------------------------------------------ scoring
    def success(self, y, S) -> np.ndarray:
        """Success of each model column of ``S`` on labels ``y`` (higher is better).

        Parameters
        ----------
        y : array-like of shape (n_instances,)
            0/1 labels (1 = class 1).
        S : array-like of shape (n_instances, n_models)
            Scores, estimates of P(y = 1) in [0, 1] (a 1-D array is one model).

        Returns
        -------
        success : ndarray of shape (n_models,)
        """
        y = np.asarray(y)
        S = np.asarray(S, dtype=np.float64)
        if S.ndim == 1:
            S = S[:, None]
        if S.ndim != 2 or S.shape[0] != y.shape[0]:
            raise ValueError(
                f"S must have shape (n_instances, n_models) with n_instances = {y.shape[0]}, "
                f"got {S.shape}."
            )
        if self.method is None:
            from metaeval.benchmark import METRICS

            metric = METRICS[self.measure]
            values = np.array([metric(y, S[:, j], threshold=self.threshold)
                               for j in range(S.shape[1])])
            if self.measure in _LOSS_TRANSFORMS:
                values = _LOSS_TRANSFORMS[self.measure][1](values)
            return values
        return 1.0 - self.instance_hardness(y, S).mean(axis=0)

    def instance_hardness(self, y, S) -> np.ndarray:
        """Instance hardness of each model under a hardness condition (Prudêncio 2019).

        At a point cost the instance cost curve at ``c``
        (:func:`metaeval.hardness.instance_hardness_at`); otherwise its area under the
        Beta or uniform cost distribution (:func:`metaeval.hardness.instance_hardness`).

        Parameters
        ----------
        y : array-like of shape (n_instances,)
        S : array-like of shape (n_instances, n_models)

        Returns
        -------
        hardness : ndarray of shape (n_instances, n_models)
        """
        if self.method is None:
            raise ValueError(f"the measure {self.measure!r} has no instance hardness; "
                             "use a hardness:<method> measure.")
        S = np.asarray(S, dtype=np.float64)
        if S.ndim == 1:
            S = S[:, None]
        from metaeval.hardness import instance_hardness, instance_hardness_at

        if self.cost is not None:
            return instance_hardness_at(y, S, self.method, self.cost, t=self.threshold)
        return instance_hardness(y, S, self.method, t=self.threshold,
                                 cost_distribution=self.cost_beta)

    def a3r_values(self, success, times) -> np.ndarray:
        r"""Per-dataset A3R values :math:`SR / T^P`, whose ratios are eq. 2's pairwise A3R.

        .. math::

            A3R^{d}_{a_p a_q} = \frac{SR_{a_p}^{d} / SR_{a_q}^{d}}
                {(T_{a_p}^{d} / T_{a_q}^{d})^{P}}
            = \frac{SR_{a_p}^{d} / (T_{a_p}^{d})^{P}}{SR_{a_q}^{d} / (T_{a_q}^{d})^{P}}

        Success below :data:`SUCCESS_FLOOR` is raised to it (A3R needs positive success).

        Parameters
        ----------
        success, times : array-like of the same shape
            Success (higher is better) and positive running times.

        Returns
        -------
        values : ndarray, same shape
        """
        success = np.maximum(np.asarray(success, dtype=np.float64), SUCCESS_FLOOR)
        times = np.asarray(times, dtype=np.float64)
        if self.time_weight == 0.0:
            return success
        with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
            values = success / times**self.time_weight
        given = np.isfinite(success) & np.isfinite(times) & (times > 0)
        if (given & (~np.isfinite(values) | (values == 0))).any():
            raise ValueError(
                f"time_weight (P of A3R) = {self.time_weight:g} is too large for these "
                f"running times ({times[given].min():.3g} to {times[given].max():.3g} s): "
                "T^P overflows or vanishes. A3R's P is small: Abdulrahman & Brazdil "
                "(2014) show P = 1/4, 1/8 and 1/16.")
        return values


def _fraction(p: float) -> str:
    """``1/64`` for 0.015625, ``0`` for 0, else ``%g``."""
    if p == 0:
        return "0"
    inverse = 1.0 / p
    if abs(inverse - round(inverse)) < 1e-9 and p < 1:
        return f"1/{round(inverse)}"
    return f"{p:g}"
