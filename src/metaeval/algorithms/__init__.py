"""The algorithm pools and how each fitted model turns into a score in [0, 1].

An :class:`Algorithm` is a plain, picklable description (an import path, its
parameters and a named score procedure). :meth:`Algorithm.build` makes a
scikit-learn :class:`~sklearn.pipeline.Pipeline` whose preprocessing is fitted
inside each fold, and :meth:`Algorithm.score` turns the fitted pipeline into
scores ``s`` in [0, 1], each an estimate of P(y = 1 | x), where class 1 is the
papers' "negative" class (see ``ARCHITECTURE.md``).

The pool of Melo & Prudêncio (2014) ("Experimental setup": §VI of [1]_, §6 of [2]_) is
:data:`DEFAULT_POOL`.
Their score procedures, reproduced here:

* 3NN, 5NN -- the fraction of the k nearest training neighbours in class 1
  (``"knn_fraction"``);
* RF -- the fraction of the trees whose vote is class 1, hard votes, not
  scikit-learn's averaged probabilities (``"tree_votes"``);
* DT, NB, LR -- the predicted probability of class 1 (``"predict_proba"``);
* SVM_LIN, SVM_RBF -- the decision function, min-max normalised to [0, 1]
  over the scored set, i.e. the test fold (``"decision_minmax"``); Platt
  scaling is offered as the option ``"decision_platt"``.

The wide pool (``list_algorithms("wide")``, :data:`WIDE_FAMILIES`) holds over 150
configurations of 16 scikit-learn families named ``family:key=value,...``, each scored
by the procedure above for its kind of model; :func:`family_of` gives an algorithm's
family for family-level summaries.

References
----------
.. [1] C. E. C. de Melo and R. B. C. Prudêncio, "Cost-sensitive measures of algorithm
   similarity for meta-learning", BRACIS 2014, §VI "Experimental setup".
.. [2] C. E. C. de Melo and R. B. C. Prudêncio, "Similarity measures of algorithm
   performance for cost-sensitive scenarios", MetaSel workshop at ECAI 2014 (CEUR-WS
   Vol-1201, paper 4), §6 "Experimental setup".

Examples
--------
>>> import numpy as np, pandas as pd
>>> X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]})
>>> y = np.array([0, 0, 0, 1, 1, 1])
>>> alg = get_algorithm("3NN")
>>> model = alg.build(categorical=[], numeric=["a"], random_state=0).fit(X, y)
>>> alg.score(model, pd.DataFrame({"a": [0.5, 2.6]})).tolist()  # 0/3 and 2/3 in class 1
[0.0, 0.6666666666666666]
"""

from metaeval.algorithms._builtin import (
    DEFAULT_POOL,
    POOLS,
    custom_algorithm,
    families,
    family_of,
    get_algorithm,
    list_algorithms,
    pool_names,
)
from metaeval.algorithms._core import MISSING_CATEGORY, SCORE_METHODS, Algorithm
from metaeval.algorithms._wide import WIDE_FAMILIES

__all__ = [
    "DEFAULT_POOL",
    "POOLS",
    "SCORE_METHODS",
    "MISSING_CATEGORY",
    "WIDE_FAMILIES",
    "Algorithm",
    "get_algorithm",
    "list_algorithms",
    "custom_algorithm",
    "pool_names",
    "family_of",
    "families",
]
