r"""A pre-solving schedule for ``auto`` on runtime scenarios: one algorithm run for a short
time before the features are computed.

SATzilla (Xu et al. 2008) and claspfolio/AutoFolio (Lindauer et al. 2015) run a short
pre-solving schedule before computing an instance's features: easy instances are solved
without paying for the features, and the pre-solver hedges against a wrong pick. The
pipeline for one instance, with cutoff :math:`\kappa`, pre-solver :math:`a`, time
:math:`t`, feature cost :math:`c` and first pick :math:`p`:

- if :math:`a` solves the instance within :math:`t`: its runtime :math:`r_a`, no
  features computed;
- otherwise :math:`t + c + r_p` (the pick run from scratch, even when it is :math:`a`),
  a timeout (PAR10 :math:`= 10\kappa`) if that reaches :math:`\kappa` or :math:`p` does
  not solve the instance.

The schedule is chosen on the training instances only: :math:`a` among the
``n_candidates`` algorithms of lowest mean training PAR10, :math:`t` among
:data:`PRESOLVE_FRACTIONS` of :math:`\kappa`, the pair of lowest mean PAR10 of the
pipeline with the selector's inner (held-out) first picks; none if no pair is lower than
running no pre-solver. The design, on 20 ASlib development scenarios, is in
docs/aslib_schedule_plan.md.
"""

from __future__ import annotations

import numpy as np

#: The pre-solving times tried, as fractions of the cutoff.
PRESOLVE_FRACTIONS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05)
#: How many of the algorithms of lowest mean training PAR10 may pre-solve.
PRESOLVE_CANDIDATES = 3


def pipeline_par10(par10, first, cost, cutoff, presolver=None, seconds=0.0) -> np.ndarray:
    r"""Each instance's PAR10 under the pipeline of the module's description.

    ``par10``: (D, A) PAR10 of every algorithm (a run is solved iff it is below
    ``cutoff``); ``first``: (D,) the first pick's column; ``cost``: (D,) feature cost in
    seconds (0 where none is paid); ``presolver``: a column or None.

    Cutoff 100; algorithm 0 solves in 3 s, 1 in 50 s, 2 times out. Picking 1 with 10 s
    of features: 60 s. Pre-solving with 0 for 5 s solves the first instance in 3 s; on the
    second (0 times out) the pick runs after 5 + 10 s: 65 s; 1 picked after 50 s of
    pre-solving by 2 on the first would end at 110 s: a timeout (1000).

    >>> par10 = np.array([[3.0, 50.0, 1000.0], [1000.0, 50.0, 1000.0]])
    >>> pipeline_par10(par10, np.array([1, 1]), np.array([10.0, 10.0]), 100.0).tolist()
    [60.0, 60.0]
    >>> pipeline_par10(par10, np.array([1, 1]), np.array([10.0, 10.0]), 100.0, 0, 5.0).tolist()
    [3.0, 65.0]
    >>> pipeline_par10(par10, np.array([1, 1]), np.array([10.0, 10.0]), 100.0, 2, 50.0).tolist()
    [1000.0, 1000.0]
    """
    par10 = np.asarray(par10, dtype=np.float64)
    rows = np.arange(par10.shape[0])
    pick = par10[rows, np.asarray(first, dtype=np.int64)]
    runtime = seconds + np.asarray(cost, dtype=np.float64) + pick
    out = np.where((pick < cutoff) & (runtime < cutoff), runtime, 10.0 * cutoff)
    if presolver is not None and seconds > 0:
        early = par10[:, presolver]
        out = np.where((early < cutoff) & (early <= seconds), early, out)
    return out


def choose_presolver(par10, first, cost, cutoff, *, n_candidates=PRESOLVE_CANDIDATES,
                     fractions=PRESOLVE_FRACTIONS):
    """The pre-solver and its time chosen on training instances (see the module).

    Returns ``(column, seconds, mean PAR10 with it, mean PAR10 without)``, or None when
    no pair lowers the mean PAR10 of running none. Ties: the first pair in the order of
    the candidates (lowest mean PAR10 first, stable) and of ``fractions``.

    Two instances, cutoff 100: the pick (1) solves both in 50 s; algorithm 0 solves the
    first in 0.1 s. Pre-solving with 0 for 0.1 s (0.001 of the cutoff): 0.1 and 50.1 s,
    mean 25.1 against 50.

    >>> par10 = np.array([[0.1, 50.0], [1000.0, 50.0]])
    >>> choose_presolver(par10, np.array([1, 1]), np.zeros(2), 100.0)
    (0, 0.1, 25.1, 50.0)
    """
    par10 = np.asarray(par10, dtype=np.float64)
    base = float(pipeline_par10(par10, first, cost, cutoff).mean())
    best, value = None, base
    order = np.argsort(par10.mean(axis=0), kind="stable")[:n_candidates]
    for a in order:
        for fraction in fractions:
            seconds = float(fraction * cutoff)
            v = float(pipeline_par10(par10, first, cost, cutoff, int(a), seconds).mean())
            if v < value - 1e-9:
                best, value = (int(a), seconds), v
    return None if best is None else (*best, value, base)
