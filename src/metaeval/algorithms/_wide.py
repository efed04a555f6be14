"""The wide pool: 16 scikit-learn families over parameter grids, named ``family:key=value``.

Abdulrahman & Brazdil (2014) plan studies with "many more algorithms (in the order of
100's)"; Melo & Prudêncio (2014) call their 8 algorithms "very limited". This pool holds
the grids below (:data:`WIDE_FAMILIES`); each configuration keeps the score procedure
Melo & Prudêncio (2014) use for its kind of model:

* probabilities (``"predict_proba"``): logistic regression, decision trees, histogram
  gradient boosting, AdaBoost, Gaussian and Bernoulli naive Bayes, LDA, QDA, MLPs,
  distance-weighted kNN and SGD with a probabilistic loss;
* votes: the fraction of the k neighbours in class 1 for uniform kNN
  (``"knn_fraction"``), the fraction of trees voting class 1 for random forests and
  extra trees (``"tree_votes"``);
* min-max normalised decision values over the test fold (``"decision_minmax"``):
  linear and RBF SVMs, ridge classifiers and SGD with the hinge loss.

A name is ``family:key=value,key=value``; the keys are short names of estimator
parameters (``k`` for ``n_neighbors``, ``hidden=32x32`` for ``hidden_layer_sizes``),
written in the family's order, with values formatted as :func:`format_value` does. Any
configuration of a known family can be named, not only the grid's: ``lr:C=0.3`` is
logistic regression with C = 0.3.

Examples
--------
>>> alg = wide_algorithm("knn:k=5,weights=distance,metric=manhattan")
>>> alg.name, alg.family, alg.score_method, dict(alg.params)["n_neighbors"]
('knn:k=5,weights=distance,metric=manhattan', 'knn', 'predict_proba', 5)
>>> wide_algorithm("knn:k=5").score_method
'knn_fraction'
>>> wide_algorithm("lr:C=1.0").name  # the canonical spelling
'lr:C=1'
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import lru_cache

from metaeval.algorithms._core import Algorithm

__all__ = ["WIDE_FAMILIES", "Family", "wide_names", "wide_algorithm", "format_value",
           "parse_name", "split_names"]


def _hidden(value) -> tuple:
    """``32`` or ``"32x32"`` -> hidden_layer_sizes ``(32,)`` / ``(32, 32)``."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return (value,)
    parts = str(value).split("x")
    try:
        sizes = tuple(int(p) for p in parts)
    except ValueError:
        sizes = ()
    if not sizes or any(p <= 0 for p in sizes):
        raise ValueError(f"hidden must be layer sizes such as 32 or 32x32, got {value!r}.")
    return sizes


@lru_cache(maxsize=1)
def _sklearn_version() -> tuple[int, int]:
    import sklearn

    major, minor = sklearn.__version__.split(".")[:2]
    return int(major), int("".join(ch for ch in minor if ch.isdigit()) or 0)


@dataclass(frozen=True)
class Family:
    """One family of the wide pool.

    Parameters
    ----------
    name : str
        Prefix of the configuration names.
    estimator : str
        Import path of the scikit-learn classifier.
    grid : dict of key -> tuple of values
        The grid of the pool (every combination, in this key order, minus ``skip``).
    fixed : dict
        Estimator parameters every configuration of the family shares.
    aliases : dict of key -> estimator parameter
        Short keys of the names (``k`` -> ``n_neighbors``); other keys are parameter names.
    score : str
        The score procedure, unless ``score_by`` chooses one from the parameters.
    scale : bool
        Standardise the numeric features inside the fold.
    description : str
        One line for listings.
    """

    name: str
    estimator: str
    grid: dict
    fixed: dict = field(default_factory=dict)
    aliases: dict = field(default_factory=dict)
    score: str = "predict_proba"
    scale: bool = False
    description: str = ""

    def params(self, config: dict) -> dict:
        """Estimator parameters of a configuration (short keys resolved)."""
        out = dict(self.fixed)
        for key, value in config.items():
            param = self.aliases.get(key, key)
            if param == "penalty" and value in ("l1", "l2") and _sklearn_version() >= (1, 8):
                # scikit-learn 1.8 replaced penalty= by l1_ratio= (1: L1, 0: L2)
                param, value = "l1_ratio", 1.0 if value == "l1" else 0.0
            out[param] = _hidden(value) if param == "hidden_layer_sizes" else value
        return out

    def score_method(self, config: dict) -> str:
        if self.name == "knn" and config.get("weights", "uniform") != "uniform":
            return "predict_proba"  # the distance-weighted share of the k neighbours
        if self.name == "sgd":
            return "decision_minmax" if config.get("loss", "hinge") == "hinge" \
                else "predict_proba"
        return self.score

    def configs(self) -> list[dict]:
        keys = list(self.grid)
        out = []
        for values in itertools.product(*(self.grid[k] for k in keys)):
            config = dict(zip(keys, values, strict=True))
            if _skip(self.name, config):
                continue
            out.append(config)
        return out


def _skip(family: str, config: dict) -> bool:
    # One neighbour: distance weights give the same scores as uniform ones.
    if family == "knn" and config["k"] == 1 and config["weights"] == "distance":
        return True
    return False


_DECADES = (0.001, 0.01, 0.1, 1, 10, 100, 1000)

#: The families of the wide pool, in listing order.
WIDE_FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("lr", "sklearn.linear_model.LogisticRegression",
           {"C": (0.0001,) + _DECADES, "penalty": ("l2", "l1")},
           fixed={"solver": "liblinear", "max_iter": 1000}, scale=True,
           description="logistic regression (liblinear), C grid, L1 or L2; P(class 1)"),
    Family("svm_lin", "sklearn.svm.LinearSVC", {"C": _DECADES},
           fixed={"dual": "auto", "max_iter": 2000}, score="decision_minmax", scale=True,
           description="linear SVM (liblinear), C grid; decision min-max over the fold"),
    Family("svm_rbf", "sklearn.svm.SVC", {"C": (0.1, 1, 10), "gamma": ("scale", 0.01, 0.1)},
           fixed={"kernel": "rbf"}, score="decision_minmax", scale=True,
           description="RBF SVM (libsvm), C x gamma grid; decision min-max over the fold"),
    Family("knn", "sklearn.neighbors.KNeighborsClassifier",
           {"k": (1, 3, 5, 7, 9, 15, 25, 35), "weights": ("uniform", "distance"),
            "metric": ("euclidean", "manhattan")},
           aliases={"k": "n_neighbors"}, score="knn_fraction", scale=True,
           description="k nearest neighbours; share of the k neighbours in class 1 "
                       "(distance-weighted share for weights=distance)"),
    Family("dt", "sklearn.tree.DecisionTreeClassifier",
           {"depth": (1, 2, 3, 4, 5, 6, 8, 10, 12, None), "criterion": ("gini", "entropy")},
           aliases={"depth": "max_depth"},
           description="CART decision tree, depth x criterion; leaf class-1 frequency"),
    Family("rf", "sklearn.ensemble.RandomForestClassifier",
           {"trees": (25, 100), "features": ("sqrt", 0.5), "leaf": (1, 5)},
           aliases={"trees": "n_estimators", "features": "max_features",
                    "leaf": "min_samples_leaf"}, score="tree_votes",
           description="random forest; fraction of trees voting class 1"),
    Family("et", "sklearn.ensemble.ExtraTreesClassifier",
           {"trees": (25, 100), "features": ("sqrt", 0.5), "leaf": (1, 5)},
           aliases={"trees": "n_estimators", "features": "max_features",
                    "leaf": "min_samples_leaf"}, score="tree_votes",
           description="extremely randomised trees; fraction of trees voting class 1"),
    Family("hgb", "sklearn.ensemble.HistGradientBoostingClassifier",
           {"rate": (0.05, 0.1, 0.3), "leaves": (7, 31)},
           aliases={"rate": "learning_rate", "leaves": "max_leaf_nodes"},
           fixed={"max_iter": 100, "early_stopping": False},
           description="histogram gradient boosting, 100 iterations; P(class 1)"),
    Family("ada", "sklearn.ensemble.AdaBoostClassifier",
           {"rounds": (25, 50, 100), "rate": (0.5, 1.0)},
           aliases={"rounds": "n_estimators", "rate": "learning_rate"},
           description="AdaBoost of decision stumps; P(class 1)"),
    Family("gnb", "sklearn.naive_bayes.GaussianNB",
           {"smoothing": (1e-9, 1e-7, 1e-5, 1e-3, 1e-1)}, aliases={"smoothing": "var_smoothing"},
           description="Gaussian naive Bayes, variance smoothing grid; P(class 1)"),
    Family("bnb", "sklearn.naive_bayes.BernoulliNB", {"alpha": (0.01, 0.1, 1, 10)},
           fixed={"binarize": 0.0}, scale=True,
           description="Bernoulli naive Bayes on features above their mean; P(class 1)"),
    Family("lda", "sklearn.discriminant_analysis.LinearDiscriminantAnalysis",
           {"shrinkage": (None, "auto", 0.1, 0.5, 0.9)}, fixed={"solver": "lsqr"},
           description="linear discriminant analysis, shrinkage grid; P(class 1)"),
    Family("qda", "sklearn.discriminant_analysis.QuadraticDiscriminantAnalysis",
           {"reg": (0.001, 0.01, 0.1, 0.5, 0.9)}, aliases={"reg": "reg_param"},
           description="quadratic discriminant analysis, regularisation grid; P(class 1)"),
    Family("mlp", "sklearn.neural_network.MLPClassifier",
           {"hidden": (16, 64, "32x32"), "alpha": (0.0001, 0.01)},
           aliases={"hidden": "hidden_layer_sizes"},
           fixed={"max_iter": 200, "early_stopping": True}, scale=True,
           description="multi-layer perceptron (adam, early stopping); P(class 1)"),
    Family("sgd", "sklearn.linear_model.SGDClassifier",
           {"loss": ("hinge", "log_loss", "modified_huber"), "alpha": (1e-5, 1e-4, 1e-3, 1e-2)},
           fixed={"max_iter": 1000, "tol": 1e-3}, scale=True,
           description="linear model by SGD; decision min-max (hinge) or P(class 1)"),
    Family("ridge", "sklearn.linear_model.RidgeClassifier",
           {"alpha": (0.01, 0.1, 1, 10, 100)}, score="decision_minmax", scale=True,
           description="ridge classifier, alpha grid; decision min-max over the fold"),
)}


def format_value(value) -> str:
    """How a parameter value is written in a name (``1.0`` -> ``1``, ``1e-05`` -> ``1e-05``)."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, (int, float)):
        return format(value, "g")
    return str(value)


def _parse_value(text: str):
    if text in ("None", "True", "False"):
        return {"None": None, "True": True, "False": False}[text]
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_name(name: str) -> tuple[Family, dict]:
    """Split ``family:key=value,...`` into its family and its configuration.

    Raises
    ------
    ValueError
        An unknown family, a key the family does not know, or a malformed name.
    """
    if not isinstance(name, str) or ":" not in name:
        raise ValueError(f"algorithm name {name!r} is not of the form family:key=value,....")
    family_name, _, rest = name.partition(":")
    family = WIDE_FAMILIES.get(family_name.strip().lower())
    if family is None:
        raise ValueError(
            f"unknown algorithm family {family_name!r} in {name!r}; the wide pool's families: "
            f"{', '.join(WIDE_FAMILIES)}."
        )
    config: dict = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or not key:
            raise ValueError(f"algorithm {name!r}: {part!r} is not key=value.")
        known = list(family.grid)
        if key not in known:
            raise ValueError(
                f"algorithm {name!r}: unknown key {key!r} for family {family.name!r}; "
                f"its keys: {', '.join(known)}."
            )
        if key in config:
            raise ValueError(f"algorithm {name!r}: key {key!r} is given twice.")
        config[key] = _parse_value(value.strip())
    return family, config


def _canonical(family: Family, config: dict) -> str:
    parts = [f"{k}={format_value(config[k])}" for k in family.grid if k in config]
    return f"{family.name}:{','.join(parts)}"


@lru_cache(maxsize=4096)
def wide_algorithm(name: str) -> Algorithm:
    """The :class:`Algorithm` a ``family:key=value,...`` name stands for.

    The estimator is imported and given its parameters (:meth:`Algorithm.validate`), so
    a configuration that cannot be built is a ValueError here, not a failed task.
    """
    family, config = parse_name(name)
    algorithm = Algorithm(
        name=_canonical(family, config),
        estimator=family.estimator,
        params=family.params(config),
        score_method=family.score_method(config),
        scale=family.scale,
        description=family.description,
        family=family.name,
    )
    try:
        algorithm.validate()
        check = getattr(algorithm.make_estimator(0), "_validate_params", None)
        if check is not None:  # scikit-learn's own parameter constraints (C > 0, ...)
            check()
    except (TypeError, ValueError) as exc:
        raise ValueError(f"algorithm {name!r} cannot be built: {exc}") from exc
    return algorithm


def wide_names() -> list[str]:
    """Names of the wide pool's configurations, family by family."""
    return [_canonical(f, c) for f in WIDE_FAMILIES.values() for c in f.configs()]


def split_names(text: str | None) -> list[str] | None:
    """Split a comma-separated list of algorithm names, keeping ``family:a=1,b=2`` whole.

    A piece ``key=value`` without a colon continues the configuration before it.

    Examples
    --------
    >>> split_names("NB,knn:k=5,weights=distance,DT")
    ['NB', 'knn:k=5,weights=distance', 'DT']
    """
    if text is None:
        return None
    out: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if out and ":" in out[-1] and "=" in piece and ":" not in piece:
            out[-1] = f"{out[-1]},{piece}"
        else:
            out.append(piece)
    return out
