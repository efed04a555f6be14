"""Threshold choice methods: closed forms of instance hardness and instance cost curves.

Private module. Everything here works on validated arrays: ``y01`` holds 0/1 class
indicators already broadcast against the scores, scores are float64, and the
rate-based methods receive the rank statistics of :mod:`metaeval.hardness._rates`.

Conventions (Prudêncio 2019, Sect. 2): class 0 is the papers' positive class, an
instance is predicted class 0 iff ``s <= t``, ``c0 = 2c`` and ``c1 = 2(1 - c)``. For
every method the instance cost curve is

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
            f"ties={ties!r} is not supported; expected 'interpolate' (tie-aware, "
            "Prudêncio 2019, eqs. 21-26) or 'none' (the uncorrected forms of Melo & "
            "Prudêncio 2014)."
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
#
# Under c ~ Beta(a, b) every method's expected loss is a short sum of regularised
# incomplete Beta functions F_{p,q}(x) = I_x(p, q) (scipy.special.betainc). Two identities
# do all the work:
#
# * c w_{a,b}(c) = E[c] w_{a+1,b}(c), so E[2c [event]] = 2 E[c] P_{a+1,b}(event); on the
#   class-1 side (1 - c) w_{a,b}(c) = E[1 - c] w_{a,b+1}(c);
# * the rate-driven interpolation clip((R - c)/L, 0, 1) is the mean over x in [R - L, R]
#   of the step [c < x], so its expectation is the mean of a Beta CDF over the tied group.
#
# The functions below evaluate these without catastrophic cancellation; _cdf_mean has
# the error analysis.


def _beta_means(a, b):
    """``(E[c], E[1 - c])`` for c ~ Beta(a, b); the second is not computed as ``1 - E[c]``."""
    total = a + b
    return a / total, b / total


def _rounding_matters(x, cx, p, q):
    """Where an error of one ulp of 1 in the argument could move ``I_x(p, q)`` or its
    complement by more than about 1e-14 relative.

    Both relative slopes ``w/I`` and ``w/(1 - I)`` are at most about
    ``1/sd + (p + |p - 1|)/x + (q + |q - 1|)/(1 - x)`` (the log-density's slope, the
    power laws at 0 and 1, and the spread of the distribution); times ``2^-53`` that is
    below 1e-14 where the bound is below 64.
    """
    total = p + q
    sd = math.sqrt(p * q / (total + 1.0)) / total
    with np.errstate(divide="ignore"):
        slope = (1.0 / sd) + (p + abs(p - 1.0)) / x + (q + abs(q - 1.0)) / cx
    return slope > 64.0


def _beta_sf(p, q, x):
    """Upper tail ``1 - I_x(p, q)`` of Beta(p, q) at float ``x``, to full relative precision.

    ``scipy.special.betaincc`` is accurate but about 10 times slower than ``betainc``, so it
    is kept for the scores where nothing cheaper is exact: for ``x >= 1/2`` the complement
    ``1 - x`` is exact (Sterbenz) and the tail is ``I_{1-x}(q, p)``; where ``I_x(p, q) <=
    1/2`` the difference ``1 - I_x(p, q) >= 1/2`` loses nothing; elsewhere the rounding of
    ``1 - x`` is harmless unless :func:`_rounding_matters`.
    """
    out = np.empty(x.shape)
    upper = x >= 0.5
    out[upper] = special.betainc(q, p, 1.0 - x[upper])
    lower = ~upper
    xl = x[lower]
    tail = 1.0 - special.betainc(p, q, xl)
    near = tail < 0.5
    if np.any(near):
        xn = xl[near]
        value = special.betainc(q, p, 1.0 - xn)
        exact = _rounding_matters(xn, 1.0 - xn, p, q)
        value[exact] = special.betaincc(p, q, xn[exact])
        tail[near] = value
    out[lower] = tail
    return out


def _beta_cdf(x, cx, p, q):
    """``I_x(p, q)`` given ``cx = 1 - x`` exactly as well.

    Above 1/2 the float ``x`` does not carry ``1 - x`` exactly, and for a Beta whose mass
    sits near 1 those are the digits that matter: where :func:`_rounding_matters`, the
    value comes from the exact ``cx``, as ``1 - I_cx(q, p)`` where that difference is at
    least 1/2, else from the complementary function.
    """
    out = special.betainc(p, q, x)
    upper = (x > 0.5) & _rounding_matters(x, cx, p, q)
    if np.any(upper):
        cu = cx[upper]
        value = 1.0 - special.betainc(q, p, cu)
        small = value < 0.5
        if np.any(small):
            value[small] = special.betaincc(q, p, cu[small])
        out[upper] = value
    return out


def _density(x, cx, p, q):
    """Beta(p, q) density at ``x``, given ``cx = 1 - x`` exactly as well.

    Boost's density (through scipy.stats) is accurate for large parameters, where ``exp``
    of a sum of logarithms would lose about ``log10(p + q)`` digits; near 1 it is evaluated
    as the mirror density at ``1 - x``, which a float ``x`` would not carry exactly.
    """
    from scipy import stats  # imported here: scipy.stats costs ~1 s at every CLI start

    upper = x > 0.5
    if not np.any(upper):
        return stats.beta.pdf(x, p, q)
    if np.all(upper):
        return stats.beta.pdf(cx, q, p)
    out = np.empty(x.shape)
    out[upper] = stats.beta.pdf(cx[upper], q, p)
    out[~upper] = stats.beta.pdf(x[~upper], p, q)
    return out


def _power_term(x, cx, p, q):
    """``g(x) = x^p (1 - x)^q / ((p + q) B(p, q))``, finite on [0, 1], with ``cx = 1 - x``.

    Written as a Beta(p + 1, q + 1) density: ``g = w_{p+1,q+1}(x) p q / ((p+q)^2 (p+q+1))``.
    """
    total = p + q
    return _density(x, cx, p + 1.0, q + 1.0) * ((p / total) * (q / total) / (total + 1.0))


def _continued_fraction(x, p, q):
    """``I_x(p, q) p B(p, q) / (x^p (1 - x)^q)`` by the modified Lentz method.

    The classic continued fraction of the incomplete Beta function (Abramowitz & Stegun
    26.5.8), iterated on each element until a step changes it by less than 1e-16. It
    converges fast for ``x`` one standard deviation or more below the mean ``p/(p + q)``,
    where it is used: about 70 steps at two standard deviations for p = q = 10**6, fewer
    farther out. A safety cap of 10000 steps is never reached there.
    """
    tiny = 1e-300
    h = np.empty(x.shape)
    c = np.ones(x.shape)
    d = 1.0 - (p + q) * x / (p + 1.0)
    d = 1.0 / np.where(np.abs(d) < tiny, tiny, d)
    h[...] = d
    active = np.arange(x.size)
    for m in range(1, 10001):
        xa, ca, da, ha = x[active], c[active], d[active], h[active]
        for numerator in (
            m * (q - m) * xa / ((p + 2 * m - 1.0) * (p + 2 * m)),
            -(p + m) * (p + q + m) * xa / ((p + 2 * m) * (p + 2 * m + 1.0)),
        ):
            da = 1.0 + numerator * da
            da = 1.0 / np.where(np.abs(da) < tiny, tiny, da)
            ca = 1.0 + numerator / ca
            ca = np.where(np.abs(ca) < tiny, tiny, ca)
            step = da * ca
            ha = ha * step
        c[active], d[active], h[active] = ca, da, ha
        active = active[np.abs(step - 1.0) > 1e-16]
        if active.size == 0:
            break
    return h


def _cdf_integral(x, cx, p, q):
    r"""``G(x) = \int_0^x I_t(p, q) dt = E[(x - c)^+]`` for c ~ Beta(p, q), ``cx = 1 - x``.

    ``G(x) = (x - mu) F(x) + g(x)`` with ``mu = p/(p + q)``, ``F(x) = I_x(p, q)`` and ``g``
    of :func:`_power_term` (from ``I_x(p + 1, q) = I_x(p, q) - x^p (1-x)^q/(p B(p, q))``).
    At or above the mean both terms are non-negative. Below it they cancel, by the factor
    ``g/G``: about ``z^2`` at ``z`` standard deviations below the mean, and about
    ``mu (p + 1)/x`` near 0. So below the mean:

    * near 0 (``x`` and ``x (p + q)/(p + 1)`` at most 0.4), the series of positive terms
      ``G = g (x/mu) sum_n t_n x^n (q (n + 1) + p)/((p + q)(p + n + 1))`` with
      ``t_n = (p + q)_n/(p + 1)_n`` (from the hypergeometric series of ``I_x``), 48 terms;
    * from one standard deviation below the mean, ``G = g (1 - (1 - x/mu) h)`` with
      ``h = mu F/g`` the continued fraction of :func:`_continued_fraction`, so that the
      cancellation acts on ``h``, accurate to a few ulps, and not on two separately
      rounded special functions (it stays below a factor of about 1500 wherever ``G`` is
      a normal float);
    * within one standard deviation of the mean the direct form, which cancels by a
      factor of at most about 3 there.
    """
    mu, mu_c = _beta_means(p, q)
    sd = math.sqrt(mu * mu_c / (p + q + 1.0))
    # x - mu without the rounding of 1 - mu: from 1 - x and 1 - mu above 1/2
    diff = np.where(x > 0.5, mu_c - cx, x - mu)
    g = _power_term(x, cx, p, q)
    out = np.empty(x.shape)
    series = np.maximum(x, x * ((p + q) / (p + 1.0))) <= 0.4
    far = ~series & (-diff >= sd)
    near = ~series & ~far
    out[near] = diff[near] * _beta_cdf(x[near], cx[near], p, q) + g[near]
    if np.any(far):
        h = _continued_fraction(x[far], p, q)
        out[far] = g[far] * (1.0 - (-diff[far] / mu) * h)
    if np.any(series):
        xs = x[series]
        term = np.ones(xs.shape)  # t_n x^n
        total = np.zeros(xs.shape)
        for k in range(48):
            total += term * ((q * (k + 1.0) + p) / ((p + q) * (p + k + 1.0)))
            term *= xs * ((p + q + k) / (p + 1.0 + k))
        out[series] = g[series] * (xs / mu) * total
    return np.maximum(out, 0.0)


# Gauss-Legendre rules for the narrow tied groups, and the ellipse parameters tried for
# their error bound (see _gauss_sizes).
_GL_SIZES = (3, 5, 8, 12, 20, 32)
_GL_RULES = {size: np.polynomial.legendre.leggauss(size) for size in _GL_SIZES}
_RHOS = (1.5, 2.5, 4.0, 8.0, 30.0, 300.0)
_GL_TOLERANCE = 1e-15


def _gauss_need(rho, l1, hm, hmc, p, q):
    """Nodes needed under the bound of :func:`_gauss_sizes` for one ellipse ``rho``."""
    A = (rho + 1.0 / rho) / 2.0
    two_log_rho = 2.0 * math.log(rho)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # l2 = h^2 (|p-1|/(m - A h)^2 + |q-1|/(1 - m - A h)^2), in units of h/m, h/(1-m)
        l2 = abs(p - 1.0) * np.square(hm / (1.0 - A * hm))
        l2 += abs(q - 1.0) * np.square(hmc / (1.0 - A * hmc))
        need = l1 * ((A + 1.0) / two_log_rho)
        need += l2 * ((A * A + 1.0) / (2.0 * two_log_rho))
    need += (math.log(32.0 / 15.0 * (1.0 + A) / (rho * rho - 1.0)) - math.log(_GL_TOLERANCE)) / (
        two_log_rho
    )
    need[(A * hm >= 1.0) | (A * hmc >= 1.0)] = np.inf  # the disc would reach 0 or 1
    return need


def _gauss_sizes(m, mc, h, p, q):
    """Number of Gauss-Legendre nodes that integrates each narrow group to 1e-15, or 0.

    The ramp integral is ``(h/2) w(m) int_{-1}^{1} (1 - u) exp(psi(u)) du`` with
    ``psi(u) = log w(m + h u) - log w(m)``. Trefethen (2008, Thm. 4.5): if the integrand is
    analytic in the Bernstein ellipse E_rho and bounded there by M, N-point Gauss-Legendre
    errs by at most ``(64/15) M rho^(-2N) / (rho^2 - 1)``. E_rho lies in the disc
    ``|u| <= A = (rho + 1/rho)/2``; when ``r = A h < min(m, 1 - m)`` the disc of radius r
    around m avoids the branch points 0 and 1 and, by Taylor's theorem,
    ``|psi(u)| <= l1 |u| + l2 |u|^2 / 2`` with ``phi = log w``, ``l1 = h |phi'(m)|`` and
    ``l2 = h^2 (|p - 1|/(m - r)^2 + |q - 1|/(1 - m - r)^2)``. So
    ``M <= (1 + A) exp(l1 A + l2 A^2 / 2)`` and the integral is at least
    ``2 exp(-l1 - l2/2)``: the relative error is at most
    ``(32/15) (1 + A) exp(l1 (A + 1) + l2 (A^2 + 1)/2) rho^(-2N) / (rho^2 - 1)``.
    Each group gets the fewest nodes of ``_GL_SIZES`` for which some rho of ``_RHOS``
    brings this bound to 1e-15; 0 where none does (a group not narrow).
    """
    l1 = np.abs((p - 1.0) / m - (q - 1.0) / mc)
    l1 *= h
    hm, hmc = h / m, h / mc
    # the widest ellipse first: the smallest rule for groups much narrower than the
    # density's scale (most of them); the other ellipses only for the rest
    best = _gauss_need(_RHOS[-1], l1, hm, hmc, p, q)
    rest = np.flatnonzero(best > _GL_SIZES[0])
    if rest.size:
        l1, hm, hmc = l1[rest], hm[rest], hmc[rest]
        need = best[rest]
        for rho in _RHOS[:-1]:
            np.minimum(need, _gauss_need(rho, l1, hm, hmc, p, q), out=need)
        best[rest] = need
    sizes = np.zeros(m.shape, dtype=np.intp)
    for size in reversed(_GL_SIZES):
        sizes[best <= size] = size
    return sizes


def _cdf_mean(count, width, n, p, q):
    r"""Mean of the Beta(p, q) CDF ``F(x) = I_x(p, q)`` over each tied group's rates.

    The group spans ``[lo, hi] = [count/n, (count + width)/n]``, of length ``L = width/n``;
    for ``width = 0`` the value is ``F(hi)``. This is ``E[clip((hi - c)/L, 0, 1)]`` for
    c ~ Beta(p, q), the rate-driven probability of predicting class 1. With
    ``G(x) = \int_0^x F`` (:func:`_cdf_integral`) and its mirror
    ``H(x) = \int_x^1 (1 - F) = G_{q,p}(1 - x)`` the mean is

    .. math::

        \frac{G(hi) - G(lo)}{L} = 1 - \frac{H(lo) - H(hi)}{L}.

    Three regimes, each free of catastrophic cancellation:

    * groups narrow on the scale of the density (the bound of :func:`_gauss_sizes` holds):
      ``F(lo) + (1/L) int_lo^hi (hi - c) w(c) dc``, a sum of two non-negative terms, the
      integral by Gauss-Legendre with a proven relative error below 1e-15. This is the
      only quadrature, and it is used only where it is provably exact to rounding;
    * other groups whose midpoint is at or below the mean ``mu = p/(p + q)``:
      ``(G(hi) - G(lo))/L``. A group that is not narrow spans at least about one e-fold
      of the density in a tail, or a standard deviation or more across the peak, so
      ``G(hi) - G(lo)`` is not a small difference of large numbers;
    * midpoint above the mean: ``1 - (H(lo) - H(hi))/L``, the mirror image; the result is
      near 1 and the same holds for its distance to 1.

    Checked against 50-digit integration for a, b from 0.01 to 10**6 (also skewed, as
    (2, 10**6)), groups from 1e-7 wide to a third of [0, 1], 40 standard deviations either
    side of the mean and at both ends: median relative error 2e-16, worst 2e-11.

    ``1 - x`` is always formed from the counts, so a group near 1 keeps its full relative
    width. The result is clipped to ``[F(lo), F(hi)]``, which the exact mean respects; where
    that interval is ``[0, 0]`` or ``[1, 1]`` in floats (the far tails) nothing else is done.
    """
    n = float(n)
    out = np.empty(count.shape)
    step = width == 0.0
    if np.any(step):
        top = count[step] + width[step]
        out[step] = _beta_cdf(top / n, (n - top) / n, p, q)
    tied = ~step
    if not np.any(tied):
        return out
    c, w = count[tied], width[tied]
    above_count = n - c - w  # instances above the group: 1 - hi = above_count / n
    # rows lo, hi; x and 1 - x from the counts
    x = np.stack([c, c + w]) / n
    cx = np.stack([n - c, above_count]) / n
    F = np.full(x.shape, np.nan)
    F[0] = _beta_cdf(x[0], cx[0], p, q)
    # F(lo) <= mean <= F(hi): where F(hi) underflows to 0 or F(lo) rounds to 1, so does
    # the mean (in the tails of a concentrated Beta, most groups)
    zero = np.flatnonzero(F[0] == 0.0)
    F[1, zero] = _beta_cdf(x[1, zero], cx[1, zero], p, q)
    mean = F[0].copy()
    open_ = np.flatnonzero((F[0] < 1.0) & ~(F[1] == 0.0))
    m = (c[open_] + w[open_] / 2.0) / n
    mc = (above_count[open_] + w[open_] / 2.0) / n  # 1 - m
    h = w[open_] / (2.0 * n)
    sizes = _gauss_sizes(m, mc, h, p, q)
    narrow = sizes > 0
    if np.any(narrow):
        where = np.flatnonzero(narrow)
        ramp = np.empty(where.size)
        for size in _GL_SIZES:
            bucket = sizes[where] == size
            if not np.any(bucket):
                continue
            sel = where[bucket]
            ms, mcs, hs = m[sel], mc[sel], h[sel]
            total = np.zeros(sel.size)
            # one node at a time: the same rounding whatever the number of groups
            for node, weight in zip(*_GL_RULES[size], strict=True):
                psi = (p - 1.0) * np.log1p(hs * (node / ms))
                psi += (q - 1.0) * np.log1p(hs * (-node / mcs))
                total += np.exp(psi) * (weight * (1.0 - node))
            ramp[bucket] = total
        ramp *= _density(m[where], mc[where], p, q) * (h[where] / 2.0)
        mean[open_[where]] += ramp
    wide = ~narrow
    if np.any(wide):
        rows = open_[wide]
        xw, cxw = x[:, rows], cx[:, rows]
        F[1, rows] = _beta_cdf(xw[1], cxw[1], p, q)
        length = w[rows] / n
        below = m[wide] <= p / (p + q)
        value = np.empty(length.shape)
        if np.any(below):  # (G(hi) - G(lo)) / L
            G = _cdf_integral(xw[:, below], cxw[:, below], p, q)
            value[below] = (G[1] - G[0]) / length[below]
        above = ~below
        if np.any(above):  # 1 - (H(lo) - H(hi)) / L
            H = _cdf_integral(cxw[:, above], xw[:, above], q, p)
            value[above] = 1.0 - (H[0] - H[1]) / length[above]
        mean[rows] = np.clip(value, F[0, rows], F[1, rows])
    out[tied] = mean
    return out


# ---------------------------------------------------------------------------------------
# closed forms of instance hardness
# ---------------------------------------------------------------------------------------


def score_hardness(y01, s, method, *, t, beta):
    """Hardness of every score under a score-based method (Prudêncio 2019, Sects. 3.1, 3.2, 3.4).

    ``y01`` is an int8 0/1 array broadcastable against ``s``.
    """
    if method == "score-fixed":
        # eqs. 13-14: the 0/1 loss; an instance with s == t is predicted class 0
        h = np.not_equal(s > t, y01.astype(bool)).astype(np.float64)
        if beta is not None:  # a class-0 error weighs 2 E[c], a class-1 error 2 E[1 - c]
            m0, m1 = _beta_means(*beta)
            h *= np.where(y01 == 1, 2.0 * m1, 2.0 * m0)
        return h
    if method == "score-driven":
        if beta is None:  # eqs. 16 and 18: (y - s)^2
            h = np.subtract(y01, s)
            np.square(h, out=h)
            return h
        a, b = beta
        m0, m1 = _beta_means(a, b)
        is1 = np.broadcast_to(y01 == 1, s.shape)
        h = np.empty(s.shape)
        # class 0: int_0^s 2c w(c) dc = 2 E[c] I_s(a + 1, b)
        h[~is1] = 2.0 * m0 * special.betainc(a + 1.0, b, s[~is1])
        # class 1: int_s^1 2(1 - c) w(c) dc = 2 E[1 - c] (1 - I_s(a, b + 1))
        h[is1] = 2.0 * m1 * _beta_sf(a, b + 1.0, s[is1])
        return h
    if method == "score-uniform":
        h = np.subtract(y01, s)  # eqs. 28 and 30: |y - s|
        np.abs(h, out=h)
        if beta is not None:  # eqs. 27 and 29 weighted by 2 E[c] and 2 E[1 - c]
            m0, m1 = _beta_means(*beta)
            h *= np.where(y01 == 1, 2.0 * m1, 2.0 * m0)
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
    mean = _beta_means(a, b)[0]
    if method == "rate-driven":  # 2 E[c] E_{a+1,b}[clip((R - c)/L, 0, 1)]
        return 2.0 * mean * _cdf_mean(count, width, n, a + 1.0, b)
    return 2.0 * mean * (count + width / 2.0) / n  # rate-uniform


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
        Row 0 for class-0 instances, row 1 for class-1 instances: Prudêncio (2019),
        eqs. 22 and 26 (rate-driven), and ``R - L/2``, ``1 - R + L/2`` (rate-uniform).
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
