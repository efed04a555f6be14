"""Cost-sensitive dissimilarity between algorithms, its baselines, and clustering.

Two models are alike when they find the same instances hard under a threshold choice
method (Melo & Prudêncio 2014 [1]_ [2]_): the dissimilarity is the mean absolute
difference of their instance hardness, averaged (or taken the median of) over datasets.
The literature baselines on crisp predictions (error correlation, classifier output
difference) and average-linkage clustering (SciPy) of any dissimilarity matrix are here
too. Dissimilarities are lower-is-more-alike; correlations higher-is-more-alike. Plain
arrays in, plain arrays out; drawing lives in :mod:`metaeval.report`.
:func:`family_dissimilarity` summarises any of these matrices by algorithm family.

Equation numbers differ between the two versions: the per-dataset dissimilarity is
eq. 19 of [1]_ and eq. 24 of [2]_, its average over datasets eq. 20 of [1]_ and eq. 25
of [2]_; only [2]_ also covers the score-fixed method.

References
----------
.. [1] C. E. C. de Melo and R. B. C. Prudêncio, "Cost-sensitive measures of algorithm
   similarity for meta-learning", BRACIS 2014.
.. [2] C. E. C. de Melo and R. B. C. Prudêncio, "Similarity measures of algorithm
   performance for cost-sensitive scenarios", MetaSel workshop at ECAI 2014 (CEUR-WS
   Vol-1201, paper 4).
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from scipy.cluster import hierarchy
from scipy.spatial.distance import pdist, squareform

from metaeval._validation import check_binary_target, check_scores
from metaeval.hardness import instance_hardness
from metaeval.hardness._threshold import check_threshold

__all__ = [
    "dissimilarity_matrix",
    "algorithm_dissimilarity",
    "aggregate_dissimilarity",
    "error_correlation",
    "classifier_output_difference",
    "average_linkage",
    "leaf_order",
    "flat_clusters",
    "cophenetic_correlation",
    "family_dissimilarity",
]


# ---------------------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------------------


def _check_pool_matrix(X, *, name, bounded=False):
    """A finite 2-D float64 array of shape (n_samples >= 1, n_models >= 1)."""
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(
            f"{name} must be 2-dimensional (n_samples, n_models), got an array of shape {X.shape}."
        )
    X = check_scores(X, name=name, bounded=bounded)
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(
            f"{name} has shape {X.shape}; at least one instance and one model are needed."
        )
    return X


def _check_dissimilarity(D, *, name="D", allow_nan=False, min_size=1):
    """A square, symmetric, non-negative matrix with a zero diagonal (exactly symmetrised)."""
    D = np.asarray(D)
    if D.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numeric, got dtype {D.dtype}.")
    D = D.astype(np.float64)
    if D.ndim != 2 or D.shape[0] != D.shape[1]:
        raise ValueError(f"{name} must be a square 2-D matrix, got an array of shape {D.shape}.")
    if D.shape[0] < min_size:
        raise ValueError(f"{name} has {D.shape[0]} rows; at least {min_size} are needed.")
    finite = np.isfinite(D)
    if not allow_nan and not finite.all():
        raise ValueError(f"{name} contains NaN or infinite values.")
    if np.isinf(D).any():
        raise ValueError(f"{name} contains infinite values.")
    values = D[finite]
    if values.size and values.min() < 0.0:
        raise ValueError(f"{name} must be non-negative (a dissimilarity); found {values.min():g}.")
    scale = max(1.0, float(values.max())) if values.size else 1.0
    tol = 1e-12 * scale
    diag = np.diagonal(D)
    if np.any(np.abs(diag[np.isfinite(diag)]) > tol) or (not allow_nan and np.isnan(diag).any()):
        raise ValueError(f"{name} must have a zero diagonal (a model is at distance 0 of itself).")
    asym = np.abs(D - D.T)
    nan_pattern = np.isnan(D) != np.isnan(D.T)
    if np.any(asym[np.isfinite(asym)] > tol) or nan_pattern.any():
        raise ValueError(f"{name} must be symmetric (D[i, j] == D[j, i]).")
    D = (D + D.T) / 2.0
    np.fill_diagonal(D, 0.0)
    return D


def _check_linkage(Z, *, name="Z"):
    Z = np.asarray(Z, dtype=np.float64) if np.asarray(Z).dtype.kind in "biuf" else Z
    try:
        hierarchy.is_valid_linkage(Z, throw=True, name=name)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} is not a valid linkage matrix: {exc}") from None
    return np.asarray(Z, dtype=np.float64)


# ---------------------------------------------------------------------------------------
# hardness-based dissimilarity
# ---------------------------------------------------------------------------------------


def dissimilarity_matrix(H):
    r"""Pairwise dissimilarity of models from their instance hardness on one dataset.

    .. math::

        \mathcal{D}(m_a, m_b, D) = \frac{1}{|D|} \sum_{x \in D}
            \left| IH^T_{m_a}(x) - IH^T_{m_b}(x) \right|

    Parameters
    ----------
    H : array-like of shape (n_samples, n_models)
        Instance hardness of each model (any threshold choice method), e.g. from
        :func:`metaeval.hardness.instance_hardness`.

    Returns
    -------
    D : ndarray of shape (n_models, n_models)
        Symmetric, zero diagonal; the mean absolute (city-block) distance between
        columns, computed with :func:`scipy.spatial.distance.pdist`.

    See Also
    --------
    algorithm_dissimilarity : from labels and scores directly.
    aggregate_dissimilarity : across datasets.

    References
    ----------
    C. E. C. de Melo and R. B. C. Prudêncio, "Similarity measures of algorithm
    performance for cost-sensitive scenarios", MetaSel workshop at ECAI 2014 (CEUR-WS
    Vol-1201, paper 4), eq. 24; C. E. C. de Melo and R. B. C. Prudêncio, "Cost-sensitive
    measures of algorithm similarity for meta-learning", BRACIS 2014, eq. 19.

    Examples
    --------
    >>> from metaeval.similarity import dissimilarity_matrix
    >>> H = [[0.0, 0.5, 1.0],
    ...      [0.2, 0.2, 0.0]]
    >>> dissimilarity_matrix(H)  # |0 - .5|/2 + 0; |0 - 1|/2 + |.2 - 0|/2; ...
    array([[0.  , 0.25, 0.6 ],
           [0.25, 0.  , 0.35],
           [0.6 , 0.35, 0.  ]])
    """
    H = _check_pool_matrix(H, name="H")
    n = H.shape[0]
    distances = pdist(np.ascontiguousarray(H.T), "cityblock")
    distances /= n
    return squareform(distances, checks=False)


def algorithm_dissimilarity(
    y, S, method, *, t=0.5, pos_label=1, ties="interpolate", cost_distribution=None
):
    r"""Cost-sensitive dissimilarity between the models of a pool on one dataset.

    .. math::

        \mathcal{D}(m_a, m_b, D) = \frac{1}{|D|} \sum_{x \in D}
            \left| IH^T_{m_a}(x) - IH^T_{m_b}(x) \right|

    with :math:`IH^T` the instance hardness under threshold choice method ``T``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    S : array-like of shape (n_samples, n_models)
        Scores of each model, one column each.
    method, t, pos_label, ties, cost_distribution
        As in :func:`metaeval.hardness.instance_hardness`.

    Returns
    -------
    D : ndarray of shape (n_models, n_models)

    References
    ----------
    C. E. C. de Melo and R. B. C. Prudêncio, "Similarity measures of algorithm
    performance for cost-sensitive scenarios", MetaSel workshop at ECAI 2014 (CEUR-WS
    Vol-1201, paper 4), eq. 24, for the score-fixed, score-driven and rate-driven
    methods; any of the five methods of Prudêncio (2019) is accepted here.

    Examples
    --------
    >>> from metaeval.similarity import algorithm_dissimilarity
    >>> y = [0, 0, 1, 1]
    >>> S = [[0.1, 0.3, 0.4],
    ...      [0.2, 0.6, 0.5],
    ...      [0.7, 0.4, 0.9],
    ...      [0.9, 0.8, 0.6]]
    >>> algorithm_dissimilarity(y, S, "score-fixed")  # m2 errs on two instances
    array([[0. , 0.5, 0. ],
           [0.5, 0. , 0.5],
           [0. , 0.5, 0. ]])
    """
    S = _check_pool_matrix(S, name="S")
    H = instance_hardness(
        y, S, method, t=t, pos_label=pos_label, ties=ties, cost_distribution=cost_distribution
    )
    return dissimilarity_matrix(H)


def aggregate_dissimilarity(matrices, how="mean", *, skipna=False):
    r"""Aggregate per-dataset dissimilarity matrices across datasets.

    .. math::

        \mathcal{A}(m_a, m_b) = \frac{1}{N} \sum_{j=1}^{N} \mathcal{D}(m_a, m_b, D_j)
        \quad\text{or}\quad \operatorname{median}_j \mathcal{D}(m_a, m_b, D_j)

    Each dataset counts once whatever its size, because each
    :math:`\mathcal{D}(\cdot, \cdot, D_j)` is already a mean over its instances.

    Parameters
    ----------
    matrices : iterable of array-like of shape (n_models, n_models), or array-like of \
shape (n_datasets, n_models, n_models)
        One dissimilarity matrix per dataset, models in the same order. For the mean,
        an iterator (e.g. a generator reading one dataset at a time) is summed as it
        comes and never held whole.
    how : {"mean", "median"}, default="mean"
    skipna : bool, default=False
        Ignore NaN entries (e.g. a model that failed on a dataset); an entry that is
        NaN on every dataset stays NaN. When False, NaN is an error.

    Returns
    -------
    A : ndarray of shape (n_models, n_models)

    References
    ----------
    C. E. C. de Melo and R. B. C. Prudêncio, "Similarity measures of algorithm
    performance for cost-sensitive scenarios", MetaSel workshop at ECAI 2014 (CEUR-WS
    Vol-1201, paper 4), eq. 25 (mean; eq. 20 of the BRACIS 2014 version); the median is
    named there as an alternative aggregation.

    Examples
    --------
    >>> from metaeval.similarity import aggregate_dissimilarity
    >>> D1 = [[0.0, 0.2], [0.2, 0.0]]
    >>> D2 = [[0.0, 0.4], [0.4, 0.0]]
    >>> aggregate_dissimilarity([D1, D2])
    array([[0. , 0.3],
           [0.3, 0. ]])
    """
    if how not in ("mean", "median"):
        raise ValueError(f"how={how!r} is not supported; expected 'mean' or 'median'.")
    if not isinstance(skipna, bool | np.bool_):
        raise ValueError(f"skipna must be True or False, got {skipna!r}.")
    if isinstance(matrices, np.ndarray) and matrices.ndim != 3:
        raise ValueError(
            "matrices must be a sequence of (n_models, n_models) matrices or an array of "
            f"shape (n_datasets, n_models, n_models), got an array of shape {matrices.shape}."
        )
    # the mean is summed as the matrices come (an iterator of any length is read once and
    # never held whole); in dataset order, as ``np.stack(matrices).mean(axis=0)`` sums
    total = count = first = None
    kept = []
    for j, D in enumerate(matrices):
        D = _check_dissimilarity(D, name=f"matrices[{j}]", allow_nan=skipna)
        if first is None:
            first = D.shape
        elif D.shape != first:
            raise ValueError(
                f"matrices[{j}] has shape {D.shape} but matrices[0] has shape "
                f"{first}; every dataset must cover the same models."
            )
        if how == "median":
            kept.append(D)
            continue
        if skipna:
            seen = ~np.isnan(D)
            D = np.where(seen, D, 0.0)
            count = seen.astype(np.intp) if count is None else count + seen
        total = D.astype(float, copy=True) if total is None else np.add(total, D, out=total)
    if first is None:
        raise ValueError("matrices is empty; at least one dissimilarity matrix is needed.")
    if how == "median":
        stack = np.stack(kept)
        if not skipna:
            return np.median(stack, axis=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN entries stay NaN
            return np.nanmedian(stack, axis=0)
    if not skipna:
        return total / (j + 1)
    with np.errstate(invalid="ignore", divide="ignore"):  # all-NaN entries stay NaN
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


# ---------------------------------------------------------------------------------------
# literature baselines on crisp predictions
# ---------------------------------------------------------------------------------------


def error_correlation(y, S, *, t=0.5, pos_label=1):
    r"""Pearson correlation between the 0/1 error vectors of models (crisp, threshold t).

    .. math::

        r_{ab} = \frac{n\, n_{ab} - k_a k_b}
                      {\sqrt{(n k_a - k_a^2)(n k_b - k_b^2)}}

    where :math:`e_a(x) = 1` when model ``a`` misclassifies ``x`` at threshold ``t``
    (class 0 iff ``s <= t``), :math:`k_a = \sum_x e_a(x)` and
    :math:`n_{ab} = \sum_x e_a(x) e_b(x)`.

    Zero-variance rule: when an error vector is constant (a model that errs on every
    instance, or on none) Pearson's r is undefined. Two identical error vectors get
    ``r = 1`` (they behave alike, so the diagonal is always 1); a constant vector and a
    different one get ``r = 0`` (no shared variation). The matrix is thus always finite,
    so ``1 - r`` can be clustered.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    S : array-like of shape (n_samples, n_models)
        Scores in [0, 1].
    t : float in [0, 1], default=0.5
    pos_label : scalar, default=1

    Returns
    -------
    r : ndarray of shape (n_models, n_models)
        Symmetric, in [-1, 1], unit diagonal; higher means more alike.

    References
    ----------
    A. Kalousis, J. Gama, M. Hilario, "On data and algorithms: understanding inductive
    performance", Machine Learning 54 (2004), cited as the error-correlation baseline by
    Melo & Prudêncio (2014), Sect. II of the BRACIS version and Sect. 2 of the MetaSel
    version.

    Examples
    --------
    >>> from metaeval.similarity import error_correlation
    >>> y = [0, 0, 1, 1]
    >>> S = [[0.6, 0.7, 0.2],
    ...      [0.2, 0.1, 0.2],
    ...      [0.9, 0.8, 0.9],
    ...      [0.4, 0.3, 0.9]]
    >>> error_correlation(y, S)  # m1 and m2 err on x1 and x4; m3 on none
    array([[1., 1., 0.],
           [1., 1., 0.],
           [0., 0., 1.]])
    """
    t = check_threshold(t)
    y01 = check_binary_target(y, pos_label=pos_label)
    S = _check_pool_matrix(S, name="S", bounded=True)
    if S.shape[0] != y01.shape[0]:
        raise ValueError(
            f"S has {S.shape[0]} rows but y has {y01.shape[0]} labels; "
            "they must have the same length."
        )
    n = S.shape[0]
    E = np.not_equal(S > t, y01[:, None].astype(bool)).astype(np.float64)
    k = E.sum(axis=0)
    joint = E.T @ E  # exact integer counts while n < 2**53
    cov = n * joint - np.outer(k, k)
    var = n * k - k * k
    with np.errstate(divide="ignore", invalid="ignore"):
        r = cov / np.sqrt(np.outer(var, var))
    identical = (joint == k[:, None]) & (joint == k[None, :])
    constant = (var[:, None] == 0) | (var[None, :] == 0)
    r[constant] = 0.0
    r[identical] = 1.0
    return np.clip(r, -1.0, 1.0)


def classifier_output_difference(S, *, t=0.5):
    r"""Classifier output difference: the fraction of instances two models label differently.

    .. math::

        COD(m_a, m_b) = \frac{1}{n} \sum_{x} [\hat y_a(x) \ne \hat y_b(x)],
        \qquad \hat y(x) = [s(x) > t]

    Parameters
    ----------
    S : array-like of shape (n_samples, n_models)
        Scores in [0, 1]; crisp predictions at threshold ``t`` (class 0 iff ``s <= t``).
    t : float in [0, 1], default=0.5

    Returns
    -------
    cod : ndarray of shape (n_models, n_models)
        Symmetric, zero diagonal, in [0, 1]; a dissimilarity.

    References
    ----------
    A. H. Peterson, T. R. Martinez, "Estimating the potential for combining learning
    models" (2005); Lee & Giraud-Carrier (2011); the COD baseline of Melo & Prudêncio
    (2014), Sect. II of the BRACIS version and Sect. 2 of the MetaSel version.

    Examples
    --------
    >>> from metaeval.similarity import classifier_output_difference
    >>> S = [[0.2, 0.7], [0.6, 0.9], [0.5, 0.1], [0.9, 0.8]]
    >>> classifier_output_difference(S)  # they disagree on the first instance only
    array([[0.  , 0.25],
           [0.25, 0.  ]])
    """
    t = check_threshold(t)
    S = _check_pool_matrix(S, name="S", bounded=True)
    P = (S > t).astype(np.float64)
    Q = 1.0 - P
    differ = P.T @ Q
    differ += differ.T.copy()  # P'Q + Q'P, exact integer counts
    return differ / S.shape[0]


# ---------------------------------------------------------------------------------------
# clustering (SciPy)
# ---------------------------------------------------------------------------------------


def average_linkage(D, *, optimal_ordering=False):
    r"""Average-linkage agglomerative clustering of a dissimilarity matrix.

    .. math::

        d(A, B) = \frac{1}{|A|\,|B|} \sum_{a \in A} \sum_{b \in B} D_{ab}

    Parameters
    ----------
    D : array-like of shape (n_models, n_models)
        Symmetric, non-negative, zero diagonal (checked), at least two models.
    optimal_ordering : bool, default=False
        Passed to :func:`scipy.cluster.hierarchy.linkage`: reorder the leaves so that
        neighbours are as close as possible (slower).

    Returns
    -------
    Z : ndarray of shape (n_models - 1, 4)
        A SciPy linkage matrix (draw it with :func:`scipy.cluster.hierarchy.dendrogram`
        or the report module).

    References
    ----------
    C. E. C. de Melo and R. B. C. Prudêncio, "Cost-sensitive measures of algorithm
    similarity for meta-learning", BRACIS 2014, Sect. VI, and C. E. C. de Melo and R. B.
    C. Prudêncio, "Similarity measures of algorithm performance for cost-sensitive
    scenarios", MetaSel workshop at ECAI 2014 (CEUR-WS Vol-1201, paper 4), Sect. 6:
    agglomerative hierarchical clustering with the average linkage function.

    Examples
    --------
    >>> from metaeval.similarity import average_linkage
    >>> D = [[0.0, 0.1, 0.5],
    ...      [0.1, 0.0, 0.7],
    ...      [0.5, 0.7, 0.0]]
    >>> average_linkage(D)  # joins 0 and 1 at 0.1, then model 2 at (0.5 + 0.7)/2
    array([[0. , 1. , 0.1, 2. ],
           [2. , 3. , 0.6, 3. ]])
    """
    D = _check_dissimilarity(D, name="D", min_size=2)
    condensed = squareform(D, checks=True)
    return hierarchy.linkage(condensed, method="average", optimal_ordering=optimal_ordering)


def leaf_order(Z):
    """Left-to-right order of the leaves (models) of a linkage's dendrogram.

    Parameters
    ----------
    Z : ndarray of shape (n_models - 1, 4)
        A linkage matrix, e.g. from :func:`average_linkage`.

    Returns
    -------
    order : ndarray of int, shape (n_models,)

    References
    ----------
    :func:`scipy.cluster.hierarchy.leaves_list`.

    Examples
    --------
    >>> from metaeval.similarity import average_linkage, leaf_order
    >>> D = [[0.0, 0.5, 0.1], [0.5, 0.0, 0.6], [0.1, 0.6, 0.0]]
    >>> leaf_order(average_linkage(D))
    array([1, 0, 2], dtype=int32)
    """
    Z = _check_linkage(Z)
    return hierarchy.leaves_list(Z)


def flat_clusters(Z, height):
    """Flat clusters obtained by cutting a dendrogram at a height.

    Models joined below ``height`` (cophenetic distance ``<= height``) share a cluster.

    Parameters
    ----------
    Z : ndarray of shape (n_models - 1, 4)
        A linkage matrix.
    height : float >= 0
        The cut height, in dissimilarity units (e.g. the cut-point 0.3 of Melo &
        Prudêncio 2014, Sect. VIII of the BRACIS version).

    Returns
    -------
    labels : ndarray of int, shape (n_models,)
        Cluster labels 1..k, per model.

    References
    ----------
    :func:`scipy.cluster.hierarchy.fcluster` with ``criterion="distance"``.

    Examples
    --------
    >>> from metaeval.similarity import average_linkage, flat_clusters
    >>> D = [[0.0, 0.1, 0.5], [0.1, 0.0, 0.7], [0.5, 0.7, 0.0]]
    >>> flat_clusters(average_linkage(D), 0.3)
    array([1, 1, 2], dtype=int32)
    """
    Z = _check_linkage(Z)
    if isinstance(height, bool) or not isinstance(height, numbers.Real):
        raise ValueError(f"height must be a real number >= 0, got {height!r}.")
    if not (np.isfinite(height) and height >= 0):
        raise ValueError(f"height must be finite and >= 0, got {height!r}.")
    return hierarchy.fcluster(Z, t=float(height), criterion="distance")


def cophenetic_correlation(Z, D):
    r"""Cophenetic correlation: how faithfully a dendrogram keeps the dissimilarities.

    .. math::

        c = \operatorname{corr}\big(D_{ab},\ \operatorname{coph}_Z(a, b)\big)_{a < b}

    Parameters
    ----------
    Z : ndarray of shape (n_models - 1, 4)
        A linkage matrix built from ``D``.
    D : array-like of shape (n_models, n_models)
        The dissimilarity matrix.

    Returns
    -------
    c : float
        Pearson correlation between the original and the cophenetic distances; NaN when
        either has zero variance (e.g. every pair equally dissimilar).

    References
    ----------
    :func:`scipy.cluster.hierarchy.cophenet`.

    Examples
    --------
    >>> from metaeval.similarity import average_linkage, cophenetic_correlation
    >>> D = [[0.0, 0.1, 0.5], [0.1, 0.0, 0.7], [0.5, 0.7, 0.0]]
    >>> round(cophenetic_correlation(average_linkage(D), D), 6)  # (.1 .5 .7) vs (.1 .6 .6)
    0.944911
    """
    Z = _check_linkage(Z)
    D = _check_dissimilarity(D, name="D", min_size=2)
    if D.shape[0] != Z.shape[0] + 1:
        raise ValueError(
            f"D has {D.shape[0]} models but Z clusters {Z.shape[0] + 1}; Z must be built from D."
        )
    condensed = squareform(D, checks=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        coefficient, _ = hierarchy.cophenet(Z, condensed)
    return float(coefficient)


def family_dissimilarity(D, algorithms, families):
    r"""Mean dissimilarity between the members of each pair of algorithm families.

    For families :math:`F \ne G` (e.g. ``knn`` and ``rf``, see
    :func:`metaeval.algorithms.family_of`),

    .. math::

        \mathcal{F}(F, G) = \frac{1}{|F|\,|G|} \sum_{a \in F} \sum_{b \in G} D(a, b),

    and the diagonal :math:`\mathcal{F}(F, F)` is the mean over the :math:`|F|(|F|-1)`
    ordered pairs of distinct members (0 for a one-member family): how alike the
    family's own configurations are. ``D`` is any algorithm dissimilarity, e.g. the
    aggregated cost-sensitive one of Melo & Prudêncio (2014, eq. 25 of the MetaSel
    version).

    Parameters
    ----------
    D : array-like of shape (n_algorithms, n_algorithms)
        Dissimilarity between the algorithms (symmetric, zero diagonal).
    algorithms : sequence of str
        The algorithm of each row and column of ``D``.
    families : mapping of str to str
        The family of each algorithm; it must name every one of ``algorithms``.

    Returns
    -------
    F : ndarray of shape (n_families, n_families)
        Symmetric; off the diagonal, the mean between-family dissimilarity.
    names : list of str
        The families, in order of first appearance in ``algorithms``.

    Raises
    ------
    ValueError
        ``D`` not square of the size of ``algorithms``, not a dissimilarity, or an
        algorithm without a family.

    Examples
    --------
    Two members of ``a`` at distance 1 of each other, 4 and 6 from ``b1``:

    >>> D = [[0, 1, 4], [1, 0, 6], [4, 6, 0]]
    >>> F, names = family_dissimilarity(D, ["a1", "a2", "b1"],
    ...                                 {"a1": "a", "a2": "a", "b1": "b"})
    >>> names, F.tolist()
    (['a', 'b'], [[1.0, 5.0], [5.0, 0.0]])
    """
    algorithms = [str(a) for a in algorithms]
    D = np.asarray(D, dtype=float)
    if D.shape != (len(algorithms), len(algorithms)):
        raise ValueError(f"D must be {len(algorithms)} x {len(algorithms)} (one row and "
                         f"column per algorithm), got {D.shape}.")
    D = _check_dissimilarity(D, name="D", allow_nan=True)
    if not hasattr(families, "get"):
        raise ValueError(f"families must be a mapping of algorithm -> family, got "
                         f"{type(families).__name__}.")
    missing = [a for a in algorithms if a not in families]
    if missing:
        raise ValueError(f"families has no family for {len(missing)} algorithm(s): "
                         f"{missing[:5]}.")
    labels = [families[a] for a in algorithms]
    names = list(dict.fromkeys(labels))
    index = np.array([names.index(f) for f in labels], dtype=np.intp)
    onehot = np.zeros((len(names), len(algorithms)))
    onehot[index, np.arange(len(algorithms))] = 1.0
    sums = onehot @ np.nan_to_num(D, nan=0.0) @ onehot.T
    nan_count = onehot @ np.isnan(D).astype(float) @ onehot.T
    size = onehot.sum(axis=1)
    pairs = np.outer(size, size) - np.diag(size)  # ordered pairs of distinct members within
    with np.errstate(invalid="ignore", divide="ignore"):
        F = np.where(pairs > 0, sums / np.where(pairs > 0, pairs, 1.0), 0.0)
    F[nan_count > 0] = np.nan
    return F, names
