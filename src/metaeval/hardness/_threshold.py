"""Threshold choice methods: closed forms of instance hardness and instance cost curves.

Private module. Everything here works on validated arrays: ``y01`` holds 0/1 class
indicators already broadcast against the scores, scores are float64, and the
rate-based methods receive the rank statistics of :mod:`metaeval.hardness._rates`.

Conventions (seed 003, Sect. 2): class 0 is the papers' positive class, an instance is
predicted class 0 iff ``s <= t``, ``c0 = 2c`` and ``c1 = 2(1 - c)``. For every method
the instance cost curve is

    QI(c) = 2c * p1(c)              for a class-0 instance,
    QI(c) = 2(1 - c) * (1 - p1(c))  for a class-1 instance,

where ``p1(c)`` is the probability that the threshold chosen at cost proportion ``c``
predicts class 1 for the instance; the hardness is the integral of ``QI`` against the
density ``w(c)`` of cost proportions (uniform, or Beta(a, b)).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy import special

__all__ = [
    "METHODS",
    "RATE_METHODS",
    "SCORE_METHODS",
    "TIES",
]

METHODS = ("score-fixed", "score-driven", "rate-driven", "score-uniform", "rate-uniform")
SCORE_METHODS = frozenset({"score-fixed", "score-driven", "score-uniform"})
RATE_METHODS = frozenset({"rate-driven", "rate-uniform"})
TIES = ("interpolate", "none")


# ---------------------------------------------------------------------------------------
# validation of the method options
# ---------------------------------------------------------------------------------------


def check_method(method, *, name="method"):
    """Return ``method`` if it is a canonical threshold choice method name."""
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(
            f"{name}={method!r} is not a threshold choice method; "
            f"expected one of {', '.join(repr(m) for m in METHODS)}."
        )
    return method


def check_ties(ties):
    """Return ``ties`` if it is ``"interpolate"`` or ``"none"``."""
    if not isinstance(ties, str) or ties not in TIES:
        raise ValueError(
            f"ties={ties!r} is not supported; expected 'interpolate' (tie-aware, seed 003 "
            "eqs. 21-26) or 'none' (the uncorrected forms of seeds 000/001)."
        )
    return ties


def check_threshold(t):
    """Return the fixed threshold ``t`` as a float in [0, 1]."""
    if isinstance(t, bool) or not isinstance(t, numbers.Real):
        raise ValueError(f"t must be a real number in [0, 1], got {t!r}.")
    t = float(t)
    if not (0.0 <= t <= 1.0):  # also rejects NaN
        raise ValueError(f"t must lie in [0, 1] (a score threshold), got {t!r}.")
    return t


def check_cost_distribution(cost_distribution):
    """Return ``None`` (uniform) or the Beta parameters ``(a, b)`` as floats."""
    if cost_distribution is None:
        return None
    if isinstance(cost_distribution, str | bytes) or not hasattr(cost_distribution, "__len__"):
        raise ValueError(
            "cost_distribution must be None (uniform) or a pair (a, b) of Beta "
            f"parameters, got {cost_distribution!r}."
        )
    if len(cost_distribution) != 2:
        raise ValueError(
            "cost_distribution must be a pair (a, b) of Beta parameters, got "
            f"{len(cost_distribution)} values."
        )
    params = []
    for label, value in zip(("a", "b"), cost_distribution, strict=True):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ValueError(
                f"cost_distribution: Beta parameter {label} must be a real number, got {value!r}."
            )
        value = float(value)
        if not (math.isfinite(value) and value > 0.0):
            raise ValueError(
                f"cost_distribution: Beta parameter {label} must be finite and > 0, got {value!r}."
            )
        params.append(value)
    return params[0], params[1]


# ---------------------------------------------------------------------------------------
# Beta integrals
# ---------------------------------------------------------------------------------------


def _beta_mean(a, b):
    """E[c] for c ~ Beta(a, b)."""
    return a / (a + b)


# Gauss-Legendre rule for tied groups much narrower than their distance to 0 and 1.
_GAUSS_NODES, _GAUSS_WEIGHTS = np.polynomial.legendre.leggauss(8)
_NARROW = 0.05


def _rate_driven_beta(lower, width, upper, a, b):
    """Integral of ``2c * clip((upper - c) / width, 0, 1)`` against Beta(a, b).

    This is the rate-driven hardness of a class-0 instance whose tied group spans the
    rates ``[lower, upper]`` (``upper = lower + width``, passed separately to keep it
    exact); the class-1 hardness is the same function after the reflection ``c -> 1 - c``,
    which swaps ``a`` and ``b``. With ``width = 0`` it is the untied step
    ``2c * [c < upper]``.

    The step part is ``int_0^lower 2c w = 2 E[c] I_lower(a + 1, b)``. The interpolated
    part ``(2/width) int_lower^upper c (upper - c) w(c) dc`` uses
    ``int_u^v c^k w = B(a + k, b) / B(a, b) * (I_v(a + k, b) - I_u(a + k, b))``, on the
    reflected side ``c -> 1 - c`` when the group is nearer 1 than 0 so that the incomplete
    Beta values that are differenced stay small. Differencing loses about
    ``log10(upper / width)`` digits, so a group narrower than 1/20 of its distance to both
    0 and 1 is integrated instead by 8-point Gauss-Legendre: there the integrand is
    analytic on a disc 40 times wider than the group and the rule is exact to rounding.
    """
    m1 = a / (a + b)
    out = 2.0 * m1 * special.betainc(a + 1.0, b, lower)
    tied = width > 0.0
    if not np.any(tied):
        return out
    narrow = tied & (width <= _NARROW * np.minimum(lower, 1.0 - upper))
    if np.any(narrow):
        lo, wd, up = lower[narrow, None], width[narrow, None], upper[narrow, None]
        c = lo + wd * ((1.0 + _GAUSS_NODES) / 2.0)
        log_pdf = (a - 1.0) * np.log(c) + (b - 1.0) * np.log1p(-c) - special.betaln(a, b)
        # (2 / width) * (width / 2) * sum_i W_i c_i (upper - c_i) w(c_i)
        out[narrow] += (c * (up - c) * np.exp(log_pdf)) @ _GAUSS_WEIGHTS
    wide = tied & ~narrow
    if np.any(wide):
        lo, wd, up = lower[wide], width[wide], upper[wide]
        part = np.empty(lo.shape)
        top = (1.0 - up) < lo
        bottom = ~top
        if np.any(bottom):  # (v M1 - M2) over [u, v] of Beta(a, b)
            u, v = lo[bottom], up[bottom]
            m2 = m1 * (a + 1.0) / (a + b + 1.0)
            d1 = special.betainc(a + 1.0, b, v) - special.betainc(a + 1.0, b, u)
            d2 = special.betainc(a + 2.0, b, v) - special.betainc(a + 2.0, b, u)
            part[bottom] = v * m1 * d1 - m2 * d2
        if np.any(top):
            # c = 1 - x: int_u^v c (v - c) w_ab dc = int_u'^v' (1 - x)(x - u') w_ba dx
            #   = (1 + u') M1' - u' M0' - M2'   over [u', v'] = [1 - v, 1 - u]
            u, v = 1.0 - up[top], 1.0 - lo[top]
            n1 = b / (a + b)
            n2 = n1 * (b + 1.0) / (a + b + 1.0)
            d0 = special.betainc(b, a, v) - special.betainc(b, a, u)
            d1 = special.betainc(b + 1.0, a, v) - special.betainc(b + 1.0, a, u)
            d2 = special.betainc(b + 2.0, a, v) - special.betainc(b + 2.0, a, u)
            part[top] = (1.0 + u) * n1 * d1 - u * d0 - n2 * d2
        out[wide] += (2.0 / wd) * part
    return out


# ---------------------------------------------------------------------------------------
# closed forms of instance hardness
# ---------------------------------------------------------------------------------------


def score_hardness(y01, s, method, *, t, beta):
    """Hardness of every score under a score-based method (seed 003, Sects. 3.1, 3.2, 3.4).

    ``y01`` is an int8 0/1 array broadcastable against ``s``.
    """
    if method == "score-fixed":
        # eqs. 13-14: the 0/1 loss; an instance with s == t is predicted class 0
        h = np.not_equal(s > t, y01.astype(bool)).astype(np.float64)
        if beta is not None:  # a class-0 error weighs 2 E[c], a class-1 error 2 (1 - E[c])
            m1 = _beta_mean(*beta)
            h *= np.where(y01 == 1, 2.0 * (1.0 - m1), 2.0 * m1)
        return h
    if method == "score-driven":
        if beta is None:  # eqs. 16 and 18: (y - s)^2
            h = np.subtract(y01, s)
            np.square(h, out=h)
            return h
        a, b = beta
        m1 = _beta_mean(a, b)
        is1 = np.broadcast_to(y01 == 1, s.shape)
        h = np.empty(s.shape)
        # class 0: int_0^s 2c w(c) dc = 2 E[c] I_s(a + 1, b)
        h[~is1] = 2.0 * m1 * special.betainc(a + 1.0, b, s[~is1])
        # class 1: int_s^1 2(1 - c) w(c) dc = 2 (1 - E[c]) (1 - I_s(a, b + 1))
        h[is1] = 2.0 * (1.0 - m1) * special.betaincc(a, b + 1.0, s[is1])
        return h
    if method == "score-uniform":
        h = np.subtract(y01, s)  # eqs. 28 and 30: |y - s|
        np.abs(h, out=h)
        if beta is not None:
            m1 = _beta_mean(*beta)
            h *= np.where(y01 == 1, 2.0 * (1.0 - m1), 2.0 * m1)
        return h
    raise AssertionError(method)  # pragma: no cover


def _rate_kernel(count, width, n, method, beta):
    """Rate-based hardness of a class-0 instance from integer-valued float counts.

    ``count`` is the number of instances strictly below the instance's tied group and
    ``width`` the group size ``l`` (0 for the untied forms), so that ``R = (count + l)/n``
    and ``L = l/n``. A class-1 instance is the mirror image (``c -> 1 - c``): pass the
    number of instances strictly *above* its group and the Beta parameters swapped.

    Uniform ``w``: rate-driven ``R^2 + L(L/3 - R) = (count (count + l) + l^2/3) / n^2``,
    rate-uniform ``R - L/2 = (count + l/2) / n``; with ``l = 0`` these are ``R^2`` and
    ``R``. The forms add non-negative terms only, so they lose no precision.
    """
    if beta is None:
        if method == "rate-driven":
            out = count + width
            out *= count
            out += np.square(width) / 3.0
            out /= float(n) * float(n)
            return out
        out = width / 2.0  # rate-uniform
        out += count
        out /= n
        return out
    a, b = beta
    if method == "rate-driven":
        return _rate_driven_beta(count / n, width / n, (count + width) / n, a, b)
    return 2.0 * _beta_mean(a, b) * (count + width / 2.0) / n  # rate-uniform


def _class_counts(below, size, n, ties):
    """``(count_0, count_1, width)`` as floats: the kernel's arguments for each class."""
    below = below.astype(np.float64)
    width = size.astype(np.float64)
    above = n - below
    above -= width
    if ties == "none":  # the uncorrected forms: R^2, (1 - R)^2, R, 1 - R
        below += width
        width[...] = 0.0
    return below, above, width


def rate_hardness_table(below, size, n, method, *, ties, beta):
    """Hardness of each tied group for class 0 and class 1 under a rate-based method.

    Parameters
    ----------
    below, size : ndarray of int, shape (n_groups,)
        Number of instances (of the same column) with a strictly smaller score, and the
        size ``l`` of the tied group.
    n : int
        Number of instances per column.

    Returns
    -------
    table : ndarray of shape (2, n_groups)
        Row 0 for class-0 instances, row 1 for class-1 instances: seed 003 eqs. 22 and
        26 (rate-driven), and ``R - L/2``, ``1 - R + L/2`` (rate-uniform).
    """
    count0, count1, width = _class_counts(below, size, n, ties)
    swapped = None if beta is None else beta[::-1]
    return np.stack(
        [
            _rate_kernel(count0, width, n, method, beta),
            _rate_kernel(count1, width, n, method, swapped),
        ]
    )


def rate_hardness_values(below, size, y01, n, method, *, ties, beta):
    """Rate-based hardness of each instance from its group's ``below`` and ``size``.

    All arrays have one entry per instance (a block of them); ``y01`` is 0/1.
    """
    count0, count1, width = _class_counts(below, size, n, ties)
    is1 = y01 == 1
    if beta is None:
        return _rate_kernel(np.where(is1, count1, count0), width, n, method, None)
    out = np.empty(count0.shape)
    out[~is1] = _rate_kernel(count0[~is1], width[~is1], n, method, beta)
    out[is1] = _rate_kernel(count1[is1], width[is1], n, method, beta[::-1])
    return out


# ---------------------------------------------------------------------------------------
# instance cost curves
# ---------------------------------------------------------------------------------------


def class1_probability(method, c, *, s=None, t=None, rate=None, width=None, ties=None):
    """Probability ``p1(c)`` that the instance is predicted class 1 at cost proportion c.

    ``c`` has shape (k,); ``s``, ``rate`` (R) and ``width`` (L) have shape ``(...)``;
    the result broadcasts to ``(..., k)`` (it may be ``(..., 1)`` when it does not
    depend on ``c``).
    """
    if method == "score-fixed":  # T(c) = t
        return (s > t)[..., None].astype(np.float64)
    if method == "score-driven":  # T(c) = c: class 1 iff s > c
        return (s[..., None] > c).astype(np.float64)
    if method == "score-uniform":  # T ~ U[0, 1]: P(t < s) = s
        return s[..., None]
    if method == "rate-driven":  # T(c) = R^-1(c)
        if ties == "none":
            return (rate[..., None] > c).astype(np.float64)
        # a quota of c*n class-0 predictions splits the tied group [R - L, R] pro rata
        p1 = np.subtract(rate[..., None], c)
        p1 /= width[..., None]
        return np.clip(p1, 0.0, 1.0, out=p1)
    if method == "rate-uniform":  # desired rate ~ U[0, 1]: P(r < R - L/2)
        if ties == "none":
            return rate[..., None]
        return (rate - width / 2.0)[..., None]
    raise AssertionError(method)  # pragma: no cover


def cost_curve_block(y01, p1, c):
    """``QI(c)`` from ``p1(c)``: ``2c p1`` for class 0, ``2(1 - c)(1 - p1)`` for class 1."""
    class1 = (y01 == 1)[..., None]
    return np.where(class1, (2.0 * (1.0 - c)) * (1.0 - p1), (2.0 * c) * p1)
