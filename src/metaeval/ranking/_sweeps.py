"""Abdulrahman & Brazdil's argument as data: ARR sweeps and pole, A3R sweeps, iso-A3R.

After S. M. Abdulrahman and P. Brazdil, "Measures for combining accuracy and time for
meta-learning", MetaSel workshop at ECAI 2014: ARR (their eq. 1) has a pole, A3R
(eq. 2) has none.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

_DEFAULT_LOG2 = np.arange(-20, 21)


def _check_log2(log2_ratio):
    arr = np.asarray(log2_ratio)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(
            f"log2_ratio must be a non-empty 1-D array of log2 time ratios, got shape {arr.shape}."
        )
    if arr.dtype.kind not in "iuf" or not np.all(np.isfinite(arr)):
        raise ValueError("log2_ratio must hold finite numbers.")
    return arr.astype(np.float64)


def _check_params(values, name, *, allow_zero):
    arr = np.asarray(values)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a number or a non-empty 1-D sequence of numbers.")
    if arr.dtype.kind not in "iuf" or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must hold finite numbers, got {values!r}.")
    arr = arr.astype(np.float64)
    if np.any(arr < 0) or (not allow_zero and np.any(arr == 0)):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {bound}, got {values!r}.")
    return arr


def _check_srr(srr):
    try:
        value = float(srr)
    except (TypeError, ValueError):
        raise ValueError(f"srr must be a positive number, got {srr!r}.") from None
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"srr must be finite and > 0, got {srr!r}.")
    return value


def arr_pole(accd):
    r"""Time ratio at which ARR's denominator vanishes: :math:`10^{-1/AccD}`.

    .. math::

        1 + AccD \cdot \log_{10} r = 0 \iff r = 10^{-1/AccD}

    For time ratios :math:`T_{a_p}/T_{a_q}` at or below this value the ARR of eq. (1) of
    Abdulrahman & Brazdil (2014) is infinite or negative. AccD = 0 has no pole (0 is
    returned: no positive ratio reaches it).

    Parameters
    ----------
    accd : float or array-like of float
        AccD values, >= 0.

    Returns
    -------
    float or ndarray
        The pole's time ratio, same shape as ``accd``.

    References
    ----------
    S. M. Abdulrahman and P. Brazdil, "Measures for combining accuracy and time for
    meta-learning", MetaSel workshop at ECAI 2014, eq. (1) and Fig. 1.

    Examples
    --------
    >>> float(arr_pole(0.5))
    0.01
    >>> bool(np.log2(arr_pole(0.7)) < -4)  # inside the sweep of Fig. 1
    True
    """
    values = _check_params(accd, "accd", allow_zero=True)
    with np.errstate(divide="ignore"):
        out = np.where(values == 0, 0.0, 10.0 ** (-1.0 / np.where(values == 0, 1.0, values)))
    return float(out[0]) if np.ndim(accd) == 0 else out


def arr_sweep(accd_values=(0.2, 0.3, 0.7), *, log2_ratio=_DEFAULT_LOG2, srr=1.0):
    r"""ARR (Abdulrahman & Brazdil eq. 1) along a sweep of time ratios, at a fixed SRR.

    .. math::

        ARR(r) = \frac{SRR}{1 + AccD \cdot \log_{10} r}, \qquad r = 2^{x}

    for every AccD and every :math:`x` in ``log2_ratio`` (Abdulrahman & Brazdil 2014,
    Fig. 1: SRR = 1, :math:`x = -20, \dots, 20`, AccD = 0.2, 0.3, 0.7). Nothing is
    clipped: where the denominator is negative the value is negative, where it is
    exactly zero the value is NaN, and ``pole`` is True in both cases.

    Parameters
    ----------
    accd_values : float or sequence of float, default=(0.2, 0.3, 0.7)
        AccD values, >= 0.
    log2_ratio : array-like of shape (n_points,), default=numpy.arange(-20, 21)
        :math:`\log_2` of the time ratios :math:`T_{a_p}/T_{a_q}`.
    srr : float, default=1.0
        The success rate ratio held fixed.

    Returns
    -------
    DataFrame
        Tidy, one row per (accd, point): columns ``accd``,
        ``log2_time_ratio``, ``time_ratio``, ``denominator``, ``value`` (ARR)
        and ``pole`` (denominator <= 0).

    See Also
    --------
    monotonicity_breaks : where the swept values stop decreasing.
    arr_pole : the analytic position of the pole.

    References
    ----------
    S. M. Abdulrahman and P. Brazdil, "Measures for combining accuracy and time for
    meta-learning", MetaSel workshop at ECAI 2014, eq. (1) and Fig. 1.

    Examples
    --------
    >>> sweep = arr_sweep([0.5], log2_ratio=[-10, 0, 10])  # 1/(1 - 0.5*10*log10(2)) < 0
    >>> sweep[["log2_time_ratio", "value", "pole"]].round(3)
       log2_time_ratio  value   pole
    0            -10.0 -1.980   True
    1              0.0  1.000  False
    2             10.0  0.399  False
    """
    accd = _check_params(accd_values, "accd_values", allow_zero=True)
    x = _check_log2(log2_ratio)
    srr = _check_srr(srr)
    a, xx = np.meshgrid(accd, x, indexing="ij")
    ratio = np.exp2(xx)
    denominator = 1.0 + a * np.log10(ratio)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(denominator == 0, np.nan, srr / denominator)
    return pd.DataFrame(
        {
            "accd": a.ravel(),
            "log2_time_ratio": xx.ravel(),
            "time_ratio": ratio.ravel(),
            "denominator": denominator.ravel(),
            "value": value.ravel(),
            "pole": (denominator <= 0).ravel(),
        }
    )


def a3r_sweep(n_values=(4, 8, 16), *, log2_ratio=_DEFAULT_LOG2, srr=1.0):
    r"""A3R (Abdulrahman & Brazdil eq. 2) along a sweep of time ratios, at a fixed SRR.

    .. math::

        A3R(r) = \frac{SRR}{r^{1/n}}, \qquad r = 2^{x}

    for every :math:`n` and :math:`x` (Abdulrahman & Brazdil 2014, Fig. 2:
    :math:`n = 4, 8, 16`). It decreases strictly in :math:`r` for every :math:`n > 0`:
    no pole.

    Parameters
    ----------
    n_values : float or sequence of float, default=(4, 8, 16)
        Roots, > 0.
    log2_ratio : array-like of shape (n_points,), default=numpy.arange(-20, 21)
        :math:`\log_2` of the time ratios.
    srr : float, default=1.0
        The success rate ratio held fixed.

    Returns
    -------
    DataFrame
        Tidy, one row per (n, point): columns ``n``, ``log2_time_ratio``,
        ``time_ratio``, ``value`` (A3R).

    References
    ----------
    S. M. Abdulrahman and P. Brazdil, "Measures for combining accuracy and time for
    meta-learning", MetaSel workshop at ECAI 2014, eq. (2) and Fig. 2.

    Examples
    --------
    >>> a3r_sweep([8], log2_ratio=[-8, 0, 8])[["log2_time_ratio", "value"]]
       log2_time_ratio  value
    0             -8.0    2.0
    1              0.0    1.0
    2              8.0    0.5
    """
    n = _check_params(n_values, "n_values", allow_zero=False)
    x = _check_log2(log2_ratio)
    srr = _check_srr(srr)
    nn, xx = np.meshgrid(n, x, indexing="ij")
    value = srr * np.exp2(-xx / nn)  # srr / (2**x)**(1/n)
    return pd.DataFrame(
        {
            "n": nn.ravel(),
            "log2_time_ratio": xx.ravel(),
            "time_ratio": np.exp2(xx).ravel(),
            "value": value.ravel(),
        }
    )


def iso_a3r_curves(levels=(0.9, 1.0, 1.1), *, n=8, log2_ratio=_DEFAULT_LOG2):
    r"""Success rate ratio needed for A3R to equal each level (iso-A3R curves).

    Solving eq. (2) of Abdulrahman & Brazdil (2014) for the success rate ratio:

    .. math::

        A3R = \frac{SRR}{r^{1/n}} = c \iff SRR = c \cdot r^{1/n}

    Fig. 3 of Abdulrahman & Brazdil (2014) draws :math:`c = 0.9, 1.0, 1.1` with
    :math:`n = 8` against :math:`\log r`: a faster algorithm (:math:`r < 1`) reaches the
    same A3R with a lower SRR.

    Parameters
    ----------
    levels : float or sequence of float, default=(0.9, 1.0, 1.1)
        A3R levels :math:`c > 0`.
    n : float, default=8
        The root, > 0.
    log2_ratio : array-like of shape (n_points,), default=numpy.arange(-20, 21)
        :math:`\log_2` of the time ratios.

    Returns
    -------
    DataFrame
        Tidy, one row per (level, point): columns ``level``, ``n``,
        ``log2_time_ratio``, ``time_ratio``, ``srr``.

    References
    ----------
    S. M. Abdulrahman and P. Brazdil, "Measures for combining accuracy and time for
    meta-learning", MetaSel workshop at ECAI 2014, eq. (2) and Fig. 3.

    Examples
    --------
    >>> iso_a3r_curves([1.0], n=8, log2_ratio=[-8, 8])[["log2_time_ratio", "srr"]]
       log2_time_ratio  srr
    0             -8.0  0.5
    1              8.0  2.0
    """
    c = _check_params(levels, "levels", allow_zero=False)
    root = _check_params(n, "n", allow_zero=False)
    if root.size != 1:
        raise ValueError(f"n must be a single number, got {n!r}.")
    x = _check_log2(log2_ratio)
    cc, xx = np.meshgrid(c, x, indexing="ij")
    return pd.DataFrame(
        {
            "level": cc.ravel(),
            "n": np.full(cc.size, root[0]),
            "log2_time_ratio": xx.ravel(),
            "time_ratio": np.exp2(xx).ravel(),
            "srr": (cc * np.exp2(xx / root[0])).ravel(),
        }
    )


def monotonicity_breaks(sweep):
    r"""Find, per curve of a sweep, where the value stops falling as the time ratio grows.

    A sound accuracy/time trade-off must fall as the time ratio grows (Abdulrahman &
    Brazdil 2014, sec. 2: "higher time ratios should lead to lower values"). Along each
    curve, sorted by ``log2_time_ratio``, the first step whose value increases (or is
    not finite) is the break. For ARR it brackets the pole :math:`\log_2 10^{-1/AccD}`,
    where the value jumps from :math:`-\infty` to :math:`+\infty`; A3R curves have none.

    Parameters
    ----------
    sweep : DataFrame
        Output of :func:`arr_sweep` (curves keyed by ``accd``) or of
        :func:`a3r_sweep` (keyed by ``n``); needs columns
        ``log2_time_ratio`` and ``value``.

    Returns
    -------
    DataFrame
        One row per curve: the key column (``accd`` or ``n``),
        ``monotonic`` (bool), ``break_from`` and ``break_to`` (the
        ``log2_time_ratio`` ends of the first increasing step; NaN when
        monotonic) and, for ARR sweeps, ``pole_log2_time_ratio``
        (:math:`-1/(AccD \log_{10} 2)`, analytic; -inf for AccD = 0).

    References
    ----------
    S. M. Abdulrahman and P. Brazdil, "Measures for combining accuracy and time for
    meta-learning", MetaSel workshop at ECAI 2014, sec. 2, Figs. 1-2.

    Examples
    --------
    >>> breaks = monotonicity_breaks(arr_sweep([0.7]))
    >>> breaks[["accd", "monotonic", "break_from", "break_to"]]
       accd  monotonic  break_from  break_to
    0   0.7      False        -5.0      -4.0
    >>> bool(monotonicity_breaks(a3r_sweep())["monotonic"].all())
    True
    """
    if not isinstance(sweep, pd.DataFrame):
        raise ValueError(f"sweep must be a DataFrame, got {type(sweep).__name__}.")
    key = "accd" if "accd" in sweep.columns else "n" if "n" in sweep.columns else None
    missing = [c for c in ("log2_time_ratio", "value") if c not in sweep.columns]
    if key is None or missing:
        raise ValueError(
            "sweep needs a key column 'accd' or 'n' and columns 'log2_time_ratio', 'value' "
            f"(the output of arr_sweep or a3r_sweep), got {list(sweep.columns)}."
        )
    rows = []
    for k, curve in sweep.groupby(key, sort=True):
        curve = curve.sort_values("log2_time_ratio", kind="stable")
        x = curve["log2_time_ratio"].to_numpy(dtype=np.float64)
        v = curve["value"].to_numpy(dtype=np.float64)
        ok = np.isfinite(v[1:]) & np.isfinite(v[:-1]) & (v[1:] <= v[:-1])
        bad = np.flatnonzero(~ok)
        row = {key: k, "monotonic": bad.size == 0}
        row["break_from"] = x[bad[0]] if bad.size else np.nan
        row["break_to"] = x[bad[0] + 1] if bad.size else np.nan
        if key == "accd":
            with np.errstate(divide="ignore"):
                row["pole_log2_time_ratio"] = (
                    -np.inf if k == 0 else -1.0 / (float(k) * np.log10(2.0))
                )
        rows.append(row)
    return pd.DataFrame(rows)
