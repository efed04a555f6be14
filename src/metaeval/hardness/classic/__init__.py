r"""Classic, data-based instance hardness measures.

Every measure here returns one value per instance where a higher value means a
harder instance, as with a ``*_loss`` in :mod:`sklearn.metrics`; each docstring
states how the published quantity was oriented to get there. The measures are
those of Smith, Martinez & Giraud-Carrier (2014) and the instance-level
complexity measures of Lorena et al. (2019) in the form given by Arruda et al.
(2020) and Paiva et al. (2022, the PyHard package), plus the pool hardness of
Smith et al. computed from stored scores.

Inputs are pure arrays: ``X`` of shape (n, d), already numeric (use
:func:`encode_features` for raw tables), and ``y`` with two labels. The
measures are symmetric in the two classes, so they need no ``pos_label``; the
pool measures, which read scores of class 1, do. Distances are Euclidean on
min-max scaled features by default (``metric="manhattan"`` on features encoded
with ``distance="gower"`` gives Gower's distance). Neighbour queries use
scikit-learn's tree-based ``NearestNeighbors``; memory stays linear in the
number of rows (no n-by-n distance matrix is ever formed: pairwise passes are
chunked and the minimum spanning tree of N1 is grown by Prim's algorithm).

All 19 of PyHard's classification measures are here (:data:`MEASURES`). Where
metaeval's default differs from PyHard's, PyHard's choice is an option:

- CL, CLD: PyHard calibrates the naive Bayes posterior (sigmoid, 3 folds);
  ``calibration="sigmoid"`` does so, the default uses it uncalibrated.
- Usefulness: PyHard leaves the instance out of the count of local sets that
  hold it; ``include_self=False`` (``usefulness_include_self=False``).
- DS, TD_U: PyHard grows a gini tree (``criterion="gini"``); DCP, TD_P: PyHard
  prunes by cost complexity with a grid-searched ``ccp_alpha`` (pass a float
  ``pruning``); metaeval's default is C4.5's error-based pruning.
- kDN, N1, N2, LSC, LSR, Harmfulness, Usefulness: PyHard uses Gower's
  distance and ``k=10``; use ``distance="gower"`` and ``k=10``.
- F2, F3, F4: as PyHard (NaN-producing degenerate features are skipped, and an
  instance left with no feature gets 0 where PyHard gives NaN).

This package is imported explicitly (``from metaeval.hardness import classic``)
and, unlike :mod:`metaeval.hardness`, uses scikit-learn. Its rooms, one measure
family each: ``_neighbourhood`` (kDN, N1, N2, LSC, LSR, Harmfulness, Usefulness;
the searches behind them in ``_search``), ``_trees`` (DS, DCP, TD_P, TD_U; the
trees in ``_tree_fit``), ``_likelihood`` (CL, CLD), ``_balance`` (MV, CB),
``_overlap`` (F1 to F4; the overlap region in ``_overlap_region``) and ``_pool``
(the pool measures); ``_combined`` computes several at once, sharing the work
kept by ``_shared``; ``_encoding`` and ``_checks`` prepare and check the inputs.

References
----------
.. [1] Smith, M. R., Martinez, T. & Giraud-Carrier, C. (2014). An instance
   level analysis of data complexity. Machine Learning 95(2), 225-256
   (reference [17] of Prudêncio 2019).
.. [2] Lorena, A. C., Garcia, L. P. F., Lehmann, J., Souto, M. C. P. & Ho, T. K.
   (2019). How complex is your classification problem? A survey on measuring
   classification complexity. ACM Computing Surveys 52(5), 107.
.. [3] Arruda, J. L. M., Prudencio, R. B. C. & Lorena, A. C. (2020). Measuring
   instance hardness using data complexity measures. BRACIS 2020, LNCS 12320,
   483-497.
.. [4] Paiva, P. Y. A., Moreno, C. C., Smith-Miles, K., Valeriano, M. G. &
   Lorena, A. C. (2022). Relating instance hardness to classification
   performance in a dataset: a visual approach. Machine Learning 111,
   3085-3123 (the PyHard package).
.. [5] Leyva, E., Gonzalez, A. & Perez, R. (2015). Three new instance selection
   methods based on local sets. Pattern Recognition 48(4), 1523-1537.
.. [6] Quinlan, J. R. (1993). C4.5: Programs for Machine Learning. Morgan
   Kaufmann, ch. 4 (error-based pruning).
"""

from metaeval.hardness.classic._balance import class_balance, minority_value
from metaeval.hardness.classic._combined import MEASURES, classic_hardness
from metaeval.hardness.classic._encoding import encode_features
from metaeval.hardness.classic._likelihood import class_likelihood, class_likelihood_difference
from metaeval.hardness.classic._neighbourhood import (
    borderline_points,
    harmfulness,
    intra_extra_ratio,
    k_disagreeing_neighbors,
    local_set_cardinality,
    local_set_radius,
    usefulness,
)
from metaeval.hardness.classic._overlap import (
    feature_overlap,
    overlap_closeness_max,
    overlap_closeness_mean,
    overlap_closeness_min,
)
from metaeval.hardness.classic._pool import (
    pool_misclassification_rate,
    pool_true_class_probability_loss,
)
from metaeval.hardness.classic._trees import (
    disjunct_class_percentage,
    disjunct_size,
    tree_depth_pruned,
    tree_depth_unpruned,
)

__all__ = [
    "MEASURES",
    "encode_features",
    "k_disagreeing_neighbors",
    "disjunct_size",
    "disjunct_class_percentage",
    "tree_depth_pruned",
    "tree_depth_unpruned",
    "class_likelihood",
    "class_likelihood_difference",
    "minority_value",
    "class_balance",
    "borderline_points",
    "intra_extra_ratio",
    "local_set_cardinality",
    "local_set_radius",
    "harmfulness",
    "usefulness",
    "feature_overlap",
    "overlap_closeness_min",
    "overlap_closeness_mean",
    "overlap_closeness_max",
    "classic_hardness",
    "pool_misclassification_rate",
    "pool_true_class_probability_loss",
]
