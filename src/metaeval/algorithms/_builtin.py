"""The built-in pools: the 8 algorithms of Melo & Prudêncio (2014) and the wide pool."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from metaeval.algorithms._core import Algorithm
from metaeval.algorithms._wide import WIDE_FAMILIES, wide_algorithm, wide_names

__all__ = ["DEFAULT_POOL", "POOLS", "get_algorithm", "list_algorithms", "custom_algorithm",
           "pool_names", "family_of", "families"]

DEFAULT_POOL = ("3NN", "5NN", "DT", "NB", "LR", "RF", "SVM_LIN", "SVM_RBF")
#: The named pools: ``"default"`` (Melo & Prudêncio 2014) and ``"wide"``.
POOLS = ("default", "wide")

_POOL = {
    "3NN": Algorithm(
        "3NN",
        "sklearn.neighbors.KNeighborsClassifier",
        (("n_neighbors", 3), ("weights", "uniform")),
        "knn_fraction",
        scale=True,
        description="k-nearest neighbours, k=3; fraction of the 3 neighbours in class 1",
        family="knn",
    ),
    "5NN": Algorithm(
        "5NN",
        "sklearn.neighbors.KNeighborsClassifier",
        (("n_neighbors", 5), ("weights", "uniform")),
        "knn_fraction",
        scale=True,
        description="k-nearest neighbours, k=5; fraction of the 5 neighbours in class 1",
        family="knn",
    ),
    "DT": Algorithm(
        "DT",
        "sklearn.tree.DecisionTreeClassifier",
        (),
        "predict_proba",
        description="CART decision tree (scikit-learn defaults); leaf class-1 frequency",
        family="dt",
    ),
    "NB": Algorithm(
        "NB",
        "sklearn.naive_bayes.GaussianNB",
        (),
        "predict_proba",
        description="Gaussian naive Bayes; posterior probability of class 1",
        family="gnb",
    ),
    "LR": Algorithm(
        "LR",
        "sklearn.linear_model.LogisticRegression",
        (("max_iter", 1000),),
        "predict_proba",
        scale=True,
        description="L2 logistic regression (lbfgs, C=1, max_iter=1000); P(class 1)",
        family="lr",
    ),
    "RF": Algorithm(
        "RF",
        "sklearn.ensemble.RandomForestClassifier",
        (("n_estimators", 100),),
        "tree_votes",
        description="random forest, 100 trees; fraction of trees voting class 1",
        family="rf",
    ),
    "SVM_LIN": Algorithm(
        "SVM_LIN",
        "sklearn.svm.LinearSVC",
        (("dual", "auto"),),
        "decision_minmax",
        scale=True,
        description="linear SVM (liblinear LinearSVC, C=1); decision min-max over the test fold",
        family="svm_lin",
    ),
    "SVM_RBF": Algorithm(
        "SVM_RBF",
        "sklearn.svm.SVC",
        (("kernel", "rbf"),),
        "decision_minmax",
        scale=True,
        description="RBF SVM (libsvm SVC, C=1, gamma='scale'); decision min-max over the fold",
        family="svm_rbf",
    ),
}


def list_algorithms(pool: str = "default") -> list[str]:
    """Names of a built-in pool's algorithms.

    Parameters
    ----------
    pool : {"default", "wide"}, default="default"
        ``"default"``: the 8 algorithms of Melo & Prudêncio (2014). ``"wide"``: the
        configurations of :data:`metaeval.algorithms.WIDE_FAMILIES`, named
        ``family:key=value,...``.

    Examples
    --------
    >>> list_algorithms()
    ['3NN', '5NN', 'DT', 'NB', 'LR', 'RF', 'SVM_LIN', 'SVM_RBF']
    >>> len(list_algorithms("wide")) >= 150
    True
    """
    return list(pool_names(pool))


def pool_names(pool: str) -> tuple[str, ...]:
    """The names of the pool ``pool`` (one of :data:`POOLS`); ValueError naming it otherwise."""
    if not isinstance(pool, str) or pool.lower() not in POOLS:
        raise ValueError(f"pool must be one of {', '.join(POOLS)}, got {pool!r}.")
    return DEFAULT_POOL if pool.lower() == "default" else tuple(wide_names())


def family_of(name: str | Algorithm) -> str:
    """The model family of an algorithm: ``"knn"`` for ``3NN`` and ``knn:k=5``.

    Names of the wide pool carry their family before the colon; the 8 algorithms of
    Melo & Prudêncio (2014) belong to the wide pool's families (NB is ``gnb``, SVM_LIN
    ``svm_lin``); any other name is its own family (its part before a colon, if any).

    Examples
    --------
    >>> [family_of(n) for n in ("3NN", "rf:trees=25,features=sqrt,leaf=1", "mine")]
    ['knn', 'rf', 'mine']
    """
    if isinstance(name, Algorithm):
        if name.family:
            return name.family
        name = name.name
    if not isinstance(name, str):
        raise ValueError(f"name must be an algorithm name (str), got {name!r}.")
    builtin = _POOL.get(name)
    if builtin is not None:
        return builtin.family
    head = name.partition(":")[0].strip()
    return head.lower() if head.lower() in WIDE_FAMILIES else head


def families(names: Iterable[str]) -> dict[str, str]:
    """``{name: family}`` for algorithm names, in their order (see :func:`family_of`)."""
    return {str(n): family_of(str(n)) for n in names}


def get_algorithm(name: str, **overrides) -> Algorithm:
    """Return a built-in algorithm, optionally with changed parameters.

    Parameters
    ----------
    name : str
        One of :func:`list_algorithms` (case-insensitive), or a configuration of the wide
        pool, ``family:key=value,...`` (see :mod:`metaeval.algorithms._wide`).
    **overrides
        ``score_method=`` and ``scale=`` replace those fields; every other
        keyword is an estimator parameter added to (or replacing one of)
        ``params``. The result keeps ``name``; give it a new one with
        :func:`dataclasses.replace` when both variants share a study.

    Returns
    -------
    algorithm : Algorithm

    Raises
    ------
    ValueError
        Unknown name, unknown parameter for the estimator, or a score method
        the estimator cannot serve.

    Notes
    -----
    Choices Melo & Prudêncio (2014) leave open (they name scikit-learn, no parameters):

    * SVM_LIN is :class:`~sklearn.svm.LinearSVC` (liblinear; squared hinge
      loss, ``dual="auto"``), not ``SVC(kernel="linear")``: the latter is
      libsvm's kernel solver, whose time grows faster than linearly with the
      rows (measured on one fold of ``letter``, 18,000 rows: 8.2 s against
      0.14 s for LinearSVC; ``magic``: 4.1 s against 0.03 s). Their decision
      functions differ slightly (hinge vs squared hinge loss, penalised
      intercept); both are linear. Use
      ``custom_algorithm("SVM_LIN", "sklearn.svm.SVC", {"kernel": "linear"},
      "decision_minmax", scale=True)`` for the libsvm one.
    * LR uses ``max_iter=1000`` (lbfgs converges on standardised data).
    * RF uses 100 trees (scikit-learn's current default), seeded from the study.

    Examples
    --------
    >>> get_algorithm("rf").score_method
    'tree_votes'
    >>> dict(get_algorithm("RF", n_estimators=500).params)
    {'n_estimators': 500}
    >>> get_algorithm("SVM_RBF", score_method="decision_platt").score_method
    'decision_platt'
    """
    if not isinstance(name, str):
        raise ValueError(f"name must be a string, got {type(name).__name__}.")
    key = {k.lower(): k for k in _POOL}.get(name.lower())
    if key is None and ":" in name:
        alg = wide_algorithm(name)
    elif key is None:
        raise ValueError(
            f"name={name!r} is not a built-in algorithm; choose one of {list(DEFAULT_POOL)}, "
            "a configuration of the wide pool (family:key=value,..., `metaeval algorithms "
            "--pool wide`) or define one with custom_algorithm()."
        )
    else:
        alg = _POOL[key]
    if not overrides:
        return alg
    changes = {}
    for k in ("score_method", "scale"):
        if k in overrides:
            changes[k] = overrides.pop(k)
    if overrides:
        params = dict(alg.params)
        params.update(overrides)
        changes["params"] = params
    alg = replace(alg, **changes)
    alg.validate()
    return alg


def custom_algorithm(
    name: str,
    estimator,
    params: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
    score_method: str = "predict_proba",
    scale: bool = False,
) -> Algorithm:
    """Define an algorithm from any scikit-learn-compatible classifier.

    Parameters
    ----------
    name : str
    estimator : str or class
        Import path such as ``"sklearn.ensemble.ExtraTreesClassifier"``
        (a class is turned into its path). Imported only when the model is
        built, so a study file can name packages installed on the workers.
    params : mapping or sequence of (name, value) pairs, optional
        Plain values only.
    score_method : str, default="predict_proba"
        One of :data:`SCORE_METHODS`.
    scale : bool, default=False
        Standardise numeric features inside the fold.

    Returns
    -------
    algorithm : Algorithm

    Examples
    --------
    >>> et = custom_algorithm("ET", "sklearn.ensemble.ExtraTreesClassifier",
    ...                       {"n_estimators": 50}, score_method="tree_votes")
    >>> et.params
    (('n_estimators', 50),)
    """
    return Algorithm(
        name=name, estimator=estimator, params=params, score_method=score_method, scale=scale
    )


