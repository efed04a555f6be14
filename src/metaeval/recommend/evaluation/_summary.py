r"""Summaries of a leave-one-dataset-out evaluation, with uncertainty.

Means over held-out datasets with percentile bootstrap intervals (whole families of
datasets resampled with replacement: datasets cut from the same data are not independent
evidence), the closed gap of the first pick,

.. math::

    CG = \frac{\bar S_{first} - \bar S_{SB}}{\bar S_{oracle} - \bar S_{SB}}

(0 for the single best algorithm of the training datasets, 1 for the oracle; the bars
are means over held-out datasets), the paired comparison of each strategy with the
random order (the null), and Friedman/Nemenyi over held-out datasets on MIL.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats

from metaeval.ranking import critical_difference_data, holm_adjust

_MEANS = ("mil", "loss_at_1", "loss_at_3", "loss_at_5", "loss_at_time_0.01",
          "loss_at_time_0.1", "loss_at_time_1")
# up to this many datasets the sign-flip null is enumerated exactly (2**n patterns)
_EXACT_FLIPS = 16


def summarise(per_dataset, names, *, n_boot=1000, alpha=0.05, seed=0):
    """Summary table, comparison with random, and critical-difference data.

    Parameters
    ----------
    per_dataset : DataFrame
        One row per (dataset, strategy), as :attr:`RecommenderEvaluation.per_dataset`.
    names : sequence of str
        The strategies, in table order.
    n_boot : int, default=1000
    alpha : float, default=0.05
    seed : int, default=0

    Returns
    -------
    summary, versus_random : DataFrame
    critical_difference : CriticalDifferenceData or None
        None with fewer than 2 strategies or 2 datasets.
    """
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 1:
        raise ValueError(f"n_boot must be a positive integer, got {n_boot!r}.")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}.")
    columns = [c for c in (*_MEANS, "loss_at_budget") if c in per_dataset.columns]
    if "mil_se" in per_dataset.columns:  # the random baseline's Monte-Carlo error
        se = per_dataset.pivot(index="dataset", columns="strategy", values="mil_se")
    wide = {c: per_dataset.pivot(index="dataset", columns="strategy", values=c)[list(names)]
            for c in (*columns, "first_success")}
    datasets = wide["mil"].index
    base = per_dataset.drop_duplicates("dataset").set_index("dataset").loc[datasets]
    sb = base["single_best_success"].to_numpy()
    oracle = base["oracle_success"].to_numpy()
    n = len(datasets)
    families = (base["family"].to_numpy() if "family" in base.columns
                else np.asarray(datasets))
    weight, n_families = family_weights(families, n_boot, seed)
    q = (100 * alpha / 2, 100 * (1 - alpha / 2))
    rows = {"strategy": list(names), "n_datasets": n, "n_families": n_families}
    for c in columns:
        values = wide[c].to_numpy()
        rows[c] = values.mean(axis=0)
        low, high = np.percentile(weight @ values, q, axis=0)
        rows[f"{c}_low"], rows[f"{c}_high"] = low, high
    first = wide["first_success"].to_numpy()
    rows["closed_gap"] = _closed_gap(first.mean(axis=0), sb.mean(), oracle.mean())
    gaps = _closed_gap(weight @ first, (weight @ sb)[:, None], (weight @ oracle)[:, None])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN when oracle = SB
        rows["closed_gap_low"], rows["closed_gap_high"] = np.nanpercentile(gaps, q, axis=0)
    rows["first_success"] = first.mean(axis=0)
    if "mil_se" in per_dataset.columns:
        # the mean over datasets of independent Monte-Carlo means: se of the mean
        se = se.reindex(columns=list(names)).to_numpy()
        rows["mil_se"] = np.sqrt(np.nansum(se**2, axis=0)) / n
        rows["mil_se"] = np.where(np.isnan(se).all(axis=0), np.nan, rows["mil_se"])
    summary = pd.DataFrame(rows)
    versus = _versus_random(wide["mil"], names, weight, q)
    cd = None
    if len(names) >= 2 and n >= 2:
        long = wide["mil"].stack().rename("value").reset_index().rename(
            columns={"strategy": "algorithm"})
        cd = critical_difference_data(long, alpha=alpha, higher_is_better=False)
    return summary, versus, cd


def family_weights(families, n_boot, seed):
    """Bootstrap weights of the datasets, whole families resampled: ``(weight,
    n_families)``, ``weight`` (n_boot, n_datasets) holding each draw's share of each
    dataset (how often its family was drawn, normalised): datasets of one family are not
    independent evidence."""
    rng = np.random.default_rng(seed)
    _, codes = np.unique(np.asarray(families, dtype=str), return_inverse=True)
    n_families = int(codes.max()) + 1
    draws = rng.integers(0, n_families, size=(n_boot, n_families))
    counts = np.zeros((n_boot, n_families))
    np.add.at(counts, (np.repeat(np.arange(n_boot), n_families), draws.reshape(-1)), 1.0)
    weight = counts[:, codes]  # (n_boot, n_datasets)
    return weight / weight.sum(axis=1, keepdims=True), n_families


def _closed_gap(first, sb, oracle):
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = (first - sb) / (oracle - sb)
    return np.where(np.isclose(oracle - sb, 0.0) * np.ones_like(gap, dtype=bool), np.nan, gap)


def _versus_random(mil, names, boot, q):
    """Paired MIL differences (random minus strategy): positive means better than random;
    ``boot`` (n_boot, n_datasets) holds each resample's weights of the datasets."""
    columns = ["strategy", "mil_difference", "low", "high", "wins", "losses", "p_value"]
    if "random" not in mil.columns:
        return pd.DataFrame(columns=columns)
    rows = []
    for name in names:
        if name == "random":
            continue
        d = (mil["random"] - mil[name]).to_numpy()
        low, high = np.percentile(boot @ d, q)
        p = _wilcoxon(_denoise(d))
        rows.append((name, d.mean(), low, high, int((d > 0).sum()), int((d < 0).sum()), p))
    return pd.DataFrame(rows, columns=columns)


def paired_comparison(a, b, *, n_boot=1000, n_null=10000, alpha=0.05, seed=0):
    r"""Paired evidence that strategy A is better (lower) than B over held-out datasets.

    With :math:`d_i = b_i - a_i` on held-out dataset :math:`i` (positive: A lower,
    i.e. better for a loss such as MIL), returns the mean difference, its paired
    percentile bootstrap interval (datasets resampled with replacement, the pairs
    kept), wins, losses and ties, the two-sided Wilcoxon signed-rank p-value, and
    ``null_same_verdict``: how often a null model -- A and B exchangeable on every
    dataset, each :math:`d_i` given a random sign -- gives a mean difference at least
    as favourable to A as the one observed (the one-sided sign-flip permutation
    p-value; exact up to 16 datasets, else from ``n_null`` random sign patterns). A
    claim "A is better than B" is supported when all three agree: the interval lies
    above 0, the null gives the same verdict rarely (below ``alpha``) and the Wilcoxon
    test rejects at ``alpha`` (a mean carried by a few large differences convinces the
    first two, not the ranks).

    Parameters
    ----------
    a, b : array-like of shape (n_datasets,) or Series indexed by dataset
        Per-dataset values (lower is better) of the two strategies; Series are aligned
        on their index.
    n_boot, n_null : int
        Bootstrap resamples and sign-flip draws.
    alpha : float, default=0.05
    seed : int, default=0

    Returns
    -------
    dict
        ``difference, low, high, wins, losses, ties, p_value, null_same_verdict,
        supported``.

    References
    ----------
    Demšar (2006), JMLR 7 (Wilcoxon signed-rank over datasets); Efron & Tibshirani
    (1993), the paired bootstrap and the permutation test.

    Examples
    --------
    >>> r = paired_comparison([0.1, 0.2, 0.1, 0.3, 0.2, 0.1], [0.3, 0.4, 0.2, 0.5, 0.3, 0.4])
    >>> r["wins"], r["losses"], r["supported"], round(r["null_same_verdict"], 3)
    (6, 0, True, 0.016)
    """
    return paired_comparisons([a], b, n_boot=n_boot, n_null=n_null, alpha=alpha,
                              seed=seed)[0]


def paired_comparisons(many, b, *, n_boot=1000, n_null=10000, alpha=0.05, seed=0) -> list:
    """:func:`paired_comparison` of each of ``many`` (the values of strategies A) with
    the same ``b``: the same dicts, one per A, in a fraction of the time.

    Each comparison draws its resamples and sign patterns from a generator seeded with
    ``seed``, so they are the same for every A of the same number of datasets: drawn once
    here (an ASlib evaluation compares a dozen strategies over some thousand instances,
    10,000 sign patterns each).

    >>> b = [0.3, 0.4, 0.2, 0.5, 0.3, 0.4]
    >>> many = [[0.1, 0.2, 0.1, 0.3, 0.2, 0.1], [0.3, 0.3, 0.3, 0.4, 0.3, 0.5]]
    >>> paired_comparisons(many, b) == [paired_comparison(a, b) for a in many]
    True
    """
    draws, out = {}, []
    for a in many:
        out.append(_paired(a, b, n_boot, n_null, alpha, seed, draws))
    return out


def _paired(a, b, n_boot, n_null, alpha, seed, draws):
    """One paired comparison; ``draws`` keeps the resamples and sign patterns by the
    number of datasets."""
    if isinstance(a, pd.Series) and isinstance(b, pd.Series):
        a, b = a.align(b, join="inner")
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or a.size < 2:
        raise ValueError(f"a and b must be paired 1-D values over at least 2 datasets, got "
                         f"shapes {a.shape} and {b.shape}.")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("a and b must be finite.")
    for name, value in (("n_boot", n_boot), ("n_null", n_null)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}.")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}.")
    d = b - a
    n = d.size
    if n not in draws:
        rng = np.random.default_rng(seed)
        index = rng.integers(0, n, size=(n_boot, n))
        if n <= _EXACT_FLIPS:  # every sign pattern: the exact permutation distribution
            signs = 1.0 - 2.0 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1)
        else:  # random sign patterns
            # rng.choice([-1.0, 1.0], size) draws these integers and indexes: the same
            # signs, in two thirds of the time
            signs = 2.0 * rng.integers(0, 2, size=(n_null, n)) - 1.0
        draws[n] = index, signs
    index, signs = draws[n]
    boot = d[index].mean(axis=1)
    low, high = np.percentile(boot, (100 * alpha / 2, 100 * (1 - alpha / 2)))
    tol = 1e-12 * max(1.0, float(np.abs(d).max()))
    if n <= _EXACT_FLIPS:
        same = float(np.mean((signs * np.abs(d)).mean(axis=1) >= d.mean() - tol))
    else:  # the observed pattern counted in (exact-test convention)
        null = (signs * np.abs(d)).mean(axis=1)
        same = (float(np.sum(null >= d.mean() - tol)) + 1.0) / (n_null + 1.0)
    zero = np.isclose(d, 0.0, rtol=0.0, atol=tol)
    p = _wilcoxon(np.where(zero, 0.0, d))
    return {
        "difference": float(d.mean()), "low": float(low), "high": float(high),
        "wins": int(np.sum((d > 0) & ~zero)), "losses": int(np.sum((d < 0) & ~zero)),
        "ties": int(zero.sum()), "p_value": p, "null_same_verdict": same,
        "supported": bool(low > 0 and same < alpha and p < alpha),
    }


def _denoise(d):
    """Differences within rounding of 0 (1e-12 of the largest) set to exactly 0: ties."""
    tol = 1e-12 * max(1.0, float(np.abs(d).max()))
    return np.where(np.abs(d) <= tol, 0.0, d)


def _wilcoxon(d):
    """Two-sided Wilcoxon signed-rank p-value; zeros dropped (1.0 when all are zero).

    Equal strategies give MIL differences of rounding size (1e-17) with random signs,
    which the test would rank as evidence; they must be zeros first (:func:`_denoise`).
    """
    if not np.any(d):
        return 1.0
    return float(stats.wilcoxon(d, zero_method="wilcox").pvalue)


def holm(p_values) -> np.ndarray:
    r"""Holm's step-down adjusted p-values, NaN entries left out of the family.

    :func:`metaeval.ranking.holm_adjust` on the p-values that are not NaN (a comparison
    that could not be made is no member of the family); NaN stays NaN.

    References
    ----------
    S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian
    Journal of Statistics 6(2):65-70 (1979).

    Examples
    --------
    >>> holm([0.01, 0.04, float("nan"), 0.03, 0.005]).tolist()
    [0.03, 0.06, nan, 0.06, 0.02]
    """
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        out[ok] = holm_adjust(p[ok])
    return out


#: The measures on which :func:`compare_strategies` compares (lower is better).
COMPARED = ("loss_at_1", "mil")
#: The strategies of the pre-registered primary comparisons against the single best.
PRIMARY = ("auto", "pairwise", "regression", "collaborative")
#: Sign-flip draws of :func:`compare_strategies`: the smallest p-value it can give,
#: 1 / 100,001, lies far below any Holm threshold of its tables (0.05 / a few hundred).
N_NULL = 100_000


def primary_comparisons(names, time_weight):
    """The pre-registered primary comparisons of one condition: at P = 0, ``auto`` and
    each learner against ``single-best`` on loss@1; where time counts (P > 0), ``auto``
    against the time-aware single best (``single-best-a3r``) on loss@1 and MIL
    (``docs/baselines.md``), or, when that baseline is not evaluated, ``auto`` and each
    learner against ``single-best`` on both.

    Returns
    -------
    set of (a, b, measure)

    Examples
    --------
    >>> sorted(primary_comparisons(["auto", "single-best", "single-best-a3r"], 1 / 64))
    [('auto', 'single-best-a3r', 'loss_at_1'), ('auto', 'single-best-a3r', 'mil')]
    """
    if time_weight == 0:
        return {(a, "single-best", "loss_at_1") for a in names if a in PRIMARY}
    if "single-best-a3r" in names:
        return {(a, "single-best-a3r", m) for a in names if a == "auto"
                for m in ("loss_at_1", "mil")}
    return {(a, "single-best", m) for a in names if a in PRIMARY
            for m in ("loss_at_1", "mil")}


def compare_strategies(per_dataset, names, *, baselines=("single-best", "random"),
                       measures=COMPARED, n_boot=1000, n_null=N_NULL, alpha=0.05, seed=0,
                       primary=()):
    """Every strategy against each baseline, paired over families, Holm-corrected by family.

    Datasets of one family (cut from the same data) are not independent evidence: each
    strategy's per-dataset values are first averaged within a family, and the families
    are the units resampled by the bootstrap and sign-flipped by the null
    (:func:`paired_comparison`). The p-value corrected is the sign-flip null's (one-sided,
    "A better than B"). The comparisons named in ``primary`` (pre-registered, e.g.
    :func:`primary_comparisons`) form the *primary* family, every other one the
    *exploratory* family, and Holm's correction runs within each family separately. A
    claim is ``supported`` when the interval lies above 0, the Holm-corrected p-value is
    below ``alpha`` and the Wilcoxon test agrees.

    Parameters
    ----------
    per_dataset : DataFrame
        As :attr:`RecommenderEvaluation.per_dataset` (columns dataset, family, strategy
        and the measures).
    names : sequence of str
    baselines : sequence of str
    measures : sequence of str
    n_boot, n_null, alpha, seed
        As in :func:`paired_comparison`; ``n_null`` random sign patterns (the null is
        exact up to 16 families).
    primary : collection of (a, b, measure)

    Returns
    -------
    DataFrame
        ``a, b, measure, difference, low, high, wins, losses, ties, p, p_wilcoxon,
        p_holm, supported, n_families, family``; ``difference`` is b minus a (positive:
        a better); ``family`` is ``"primary"`` or ``"exploratory"``.
    """
    columns = ["a", "b", "measure", "difference", "low", "high", "wins", "losses", "ties",
               "p", "p_wilcoxon", "p_holm", "supported", "n_families", "family"]
    primary = set(primary)
    rows = []
    for measure in measures:
        if measure not in per_dataset.columns:
            continue
        by_family = per_dataset.pivot_table(index="family", columns="strategy",
                                            values=measure, aggfunc="mean")
        for base in baselines:
            if base not in by_family.columns:
                continue
            for name in names:
                if name in (base, "oracle") or name in baselines[:baselines.index(base)]:
                    continue
                if by_family.shape[0] < 2:
                    continue
                r = paired_comparison(by_family[name].to_numpy(), by_family[base].to_numpy(),
                                      n_boot=n_boot, n_null=n_null, alpha=alpha, seed=seed)
                rows.append([name, base, measure, r["difference"], r["low"], r["high"],
                             r["wins"], r["losses"], r["ties"], r["null_same_verdict"],
                             r["p_value"], np.nan, False, by_family.shape[0],
                             "primary" if (name, base, measure) in primary
                             else "exploratory"])
    frame = pd.DataFrame(rows, columns=columns)
    if len(frame):
        holm_by_family(frame, alpha)
    return frame


def holm_by_family(frame, alpha=0.05, by=("family",)):
    """Holm's correction of ``frame["p"]`` within each group of ``by`` (in place), and
    ``supported``: interval above 0, Holm p below ``alpha``, Wilcoxon p below ``alpha``."""
    frame["p_holm"] = np.nan
    # each group's rows by position (no `.groups`: its keys change with pandas 4)
    for _, part in frame.groupby(list(by), sort=False, dropna=False):
        frame.loc[part.index, "p_holm"] = holm(part["p"].to_numpy(dtype=np.float64))
    frame["supported"] = ((frame["low"] > 0) & (frame["p_holm"] < alpha)
                          & (frame["p_wilcoxon"] < alpha))
    return frame


def best_versus(per_dataset, contenders, baseline="single-best", measure="loss_at_1", *,
                n_boot=1000, n_null=N_NULL, alpha=0.05, seed=0):
    """The contender with the lowest mean ``measure``, against ``baseline``, its p-value
    adjusted for having been picked as the best.

    Per family (datasets averaged within), the differences :math:`d_{fc}` = baseline minus
    contender. The p-value is that of the maximum over contenders under the sign-flip
    null: each random sign pattern flips every contender's difference of a family
    together, and the p-value is how often the largest mean difference is at least the
    one observed for the best (Westfall & Young 1993, single-step max-T), so picking the
    best of many does not count as evidence.

    Returns
    -------
    dict
        ``strategy, difference, low, high`` (its paired bootstrap interval over families,
        not adjusted), ``p_selected`` (adjusted), ``p_unadjusted``, ``n_contenders``.

    References
    ----------
    P. H. Westfall and S. S. Young, *Resampling-Based Multiple Testing*, Wiley (1993).
    """
    by_family = per_dataset.pivot_table(index="family", columns="strategy", values=measure,
                                        aggfunc="mean")
    contenders = [c for c in contenders if c in by_family.columns and c != baseline]
    d = (by_family[baseline].to_numpy()[:, None]
         - by_family[contenders].to_numpy())  # (families, contenders)
    n = d.shape[0]
    mean = d.mean(axis=0)
    best = int(np.argmax(mean))
    rng = np.random.default_rng(seed)
    tol = 1e-12 * max(1.0, float(np.abs(d).max()))
    exceed, alone, total = 0.0, 0.0, 0
    for start in range(0, n_null, 10_000):  # in chunks: (draws, families) x contenders
        size = min(10_000, n_null - start)
        null = rng.choice(np.array([-1.0, 1.0]), size=(size, n)) @ d / n
        exceed += float(np.sum(null.max(axis=1) >= mean[best] - tol))
        alone += float(np.sum(null[:, best] >= mean[best] - tol))
        total += size
    boot = d[rng.integers(0, n, size=(n_boot, n)), best].mean(axis=1)
    low, high = np.percentile(boot, (100 * alpha / 2, 100 * (1 - alpha / 2)))
    return {"strategy": contenders[best], "difference": float(mean[best]),
            "low": float(low), "high": float(high),
            "p_selected": (exceed + 1.0) / (total + 1.0),
            "p_unadjusted": (alone + 1.0) / (total + 1.0),
            "n_contenders": len(contenders)}
