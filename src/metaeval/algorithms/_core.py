"""The :class:`Algorithm` description and the score procedures of the papers.

An :class:`Algorithm` is a plain, picklable description (an import path, its
parameters and a named score procedure). :meth:`Algorithm.build` makes a
scikit-learn :class:`~sklearn.pipeline.Pipeline` whose preprocessing is fitted
inside each fold, and :meth:`Algorithm.score` turns the fitted pipeline into
scores ``s`` in [0, 1], each an estimate of P(y = 1 | x), where class 1 is the
papers' "negative" class (see ``ARCHITECTURE.md``).
"""

from __future__ import annotations

import importlib
import platform
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

__all__ = ["SCORE_METHODS", "MISSING_CATEGORY", "Algorithm"]

SCORE_METHODS = (
    "predict_proba",
    "knn_fraction",
    "tree_votes",
    "decision_minmax",
    "decision_platt",
)

#: The category that stands for a missing value of a categorical feature.
MISSING_CATEGORY = "__missing__"

_PLAIN = (str, int, float, bool, type(None))


def _freeze_value(key: str, value):
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, (list, tuple)):
        return tuple(_freeze_value(key, v) for v in value)
    raise ValueError(
        f"params[{key!r}] = {value!r} is not a plain value; parameters must be str, int, "
        "float, bool, None or tuples of them, so that the Algorithm pickles and is stored."
    )


def _freeze_params(params) -> tuple[tuple[str, Any], ...]:
    if params is None:
        return ()
    items = params.items() if isinstance(params, Mapping) else params
    out = {}
    try:
        pairs = [tuple(p) for p in items]
    except TypeError:
        raise ValueError(
            f"params must be a mapping or a sequence of (name, value) pairs, got {params!r}."
        ) from None
    for pair in pairs:
        if len(pair) != 2 or not isinstance(pair[0], str) or not pair[0]:
            raise ValueError(f"params entries must be (name, value) pairs, got {pair!r}.")
        if pair[0] in out:
            raise ValueError(f"params names {pair[0]!r} more than once.")
        out[pair[0]] = _freeze_value(pair[0], pair[1])
    return tuple(sorted(out.items()))


def _public_path(cls: type) -> str:
    """Shortest import path of a class (``sklearn.ensemble.X``, not ``..._forest.X``)."""
    parts = cls.__module__.split(".")
    for i in range(1, len(parts) + 1):
        module = ".".join(parts[:i])
        try:
            if getattr(importlib.import_module(module), cls.__qualname__, None) is cls:
                return f"{module}.{cls.__qualname__}"
        except ImportError:
            continue
    return f"{cls.__module__}.{cls.__qualname__}"


def _import_estimator(path: str):
    """Import ``"package.module.Class"`` (or ``"package.module:Class"``)."""
    if ":" in path:
        module, _, attr = path.partition(":")
    else:
        module, _, attr = path.rpartition(".")
    if not module or not attr:
        raise ValueError(
            f"estimator must be an import path such as "
            f"'sklearn.ensemble.ExtraTreesClassifier', got {path!r}."
        )
    try:
        obj = importlib.import_module(module)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"estimator {path!r} cannot be imported: {exc}") from exc
    return obj


@dataclass(frozen=True)
class Algorithm:
    """A named learning algorithm with its score procedure.

    Parameters
    ----------
    name : str
        Name used in studies, stores and reports (``"RF"``).
    estimator : str
        Import path of a scikit-learn-compatible classifier class.
    params : tuple of (str, value) pairs, default=()
        Constructor parameters; plain values only (str, int, float, bool, None
        and tuples of them). A mapping is accepted and stored sorted by name.
    score_method : str, default="predict_proba"
        One of :data:`SCORE_METHODS`; see :meth:`score`.
    scale : bool, default=False
        Standardise the numeric features (after median imputation) inside the
        fold; used for the distance- and margin-based models.
    description : str, default=""
        One line for listings; ignored in comparisons.
    family : str, default=""
        The model family (``"knn"``, ``"rf"``, ...) for family-level summaries; ignored
        in comparisons. Empty: :func:`metaeval.algorithms.family_of` derives it from
        the name.

    Notes
    -----
    Only strings, tuples and booleans are held, so an Algorithm pickles and
    can travel to process pools and Dask workers; the estimator class is
    imported when :meth:`build` runs.

    Examples
    --------
    >>> import pickle
    >>> import numpy as np, pandas as pd
    >>> nb = Algorithm("NB", "sklearn.naive_bayes.GaussianNB")
    >>> pickle.loads(pickle.dumps(nb)) == nb
    True
    >>> X = pd.DataFrame({"x": [0.0, 0.2, 1.0, 1.2], "c": ["a", "a", "b", None]})
    >>> model = nb.build(categorical=["c"], numeric=["x"], random_state=0)
    >>> model = model.fit(X, np.array([0, 0, 1, 1]))
    >>> s = nb.score(model, X)
    >>> bool(s[:2].max() < 0.5 < s[2:].min())
    True
    """

    name: str
    estimator: str
    params: tuple = ()
    score_method: str = "predict_proba"
    scale: bool = False
    description: str = field(default="", compare=False)
    family: str = field(default="", compare=False)

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"name must be a non-empty string, got {self.name!r}.")
        estimator = self.estimator
        if isinstance(estimator, type):
            estimator = _public_path(estimator)
            object.__setattr__(self, "estimator", estimator)
        if not isinstance(estimator, str) or "." not in estimator.replace(":", "."):
            raise ValueError(
                f"estimator must be an import path such as "
                f"'sklearn.ensemble.ExtraTreesClassifier', got {estimator!r}."
            )
        if self.score_method not in SCORE_METHODS:
            raise ValueError(
                f"score_method must be one of {SCORE_METHODS}, got {self.score_method!r}."
            )
        if not isinstance(self.scale, (bool, np.bool_)):
            raise ValueError(f"scale must be True or False, got {self.scale!r}.")
        object.__setattr__(self, "scale", bool(self.scale))
        object.__setattr__(self, "params", _freeze_params(self.params))

    # ------------------------------------------------------------------ building

    def make_estimator(self, random_state: int | None = None):
        """Instantiate the bare estimator (no preprocessing).

        ``random_state`` is set when the estimator has that parameter and
        ``params`` does not fix it. With ``score_method="decision_platt"`` the
        estimator is wrapped in :class:`~sklearn.calibration.CalibratedClassifierCV`
        (sigmoid, 5-fold, ``ensemble=False``): Platt's procedure, as in
        libsvm -- the sigmoid is fitted on out-of-fold decision values within
        the training fold, then the model is refitted on the whole training fold.
        """
        cls = _import_estimator(self.estimator)
        params = dict(self.params)
        try:
            est = cls(**params)
        except TypeError as exc:
            raise ValueError(
                f"algorithm {self.name!r}: {self.estimator} does not accept params "
                f"{sorted(params)}: {exc}"
            ) from exc
        if random_state is not None:
            if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)):
                raise ValueError(f"random_state must be an int or None, got {random_state!r}.")
            if "random_state" in est.get_params(deep=False) and "random_state" not in params:
                est.set_params(random_state=int(random_state))
        if self.score_method == "decision_platt":
            from sklearn.calibration import CalibratedClassifierCV

            est = CalibratedClassifierCV(est, method="sigmoid", cv=5, ensemble=False)
        return est

    def build(
        self,
        categorical: Sequence[str] = (),
        numeric: Sequence[str] = (),
        random_state: int | None = None,
    ):
        """Return an unfitted Pipeline: in-fold preprocessing, then the estimator.

        Preprocessing (a :class:`~sklearn.compose.ColumnTransformer`, fitted on
        the training rows only):

        * numeric columns: :class:`~sklearn.impute.SimpleImputer` (median;
          a column with no observed value becomes 0), then
          :class:`~sklearn.preprocessing.StandardScaler` when ``scale``;
        * categorical columns: values as text, missing values as the category
          :data:`MISSING_CATEGORY`, then a dense
          :class:`~sklearn.preprocessing.OneHotEncoder` with
          ``handle_unknown="ignore"`` (a category unseen in training encodes
          as all zeros). Dense, because GaussianNB refuses sparse input.

        Columns not named are dropped.

        Parameters
        ----------
        categorical : sequence of str
            Names of the categorical columns of the frames to be fitted.
        numeric : sequence of str
            Names of the numeric columns.
        random_state : int, optional
            Seed for estimators that take one (derived from the study seed).

        Returns
        -------
        model : sklearn.pipeline.Pipeline
            Steps ``"preprocess"`` and ``"model"``.
        """
        from sklearn.pipeline import Pipeline

        categorical = _column_list(categorical, "categorical")
        numeric = _column_list(numeric, "numeric")
        both = sorted(set(categorical) & set(numeric))
        if both:
            raise ValueError(f"columns {both!r} are listed as both categorical and numeric.")
        if not categorical and not numeric:
            raise ValueError("categorical and numeric are both empty; there is nothing to fit.")
        est = self.make_estimator(random_state)
        pre = _preprocessor(categorical, numeric, self.scale)
        return Pipeline([("preprocess", pre), ("model", est)])

    # ------------------------------------------------------------------ scoring

    def score(self, model, X) -> np.ndarray:
        """Scores of a fitted model on ``X``: float64 in [0, 1], estimates of P(y = 1).

        The model must have been fitted on labels in {0, 1}. Procedures:

        * ``"predict_proba"``: the class-1 column of ``predict_proba``.
        * ``"knn_fraction"``: the fraction of the k nearest training
          neighbours in class 1,

          .. math:: s(x) = \\frac{1}{k} \\sum_{j \\in N_k(x)} [y_j = 1],

          which is exactly :meth:`KNeighborsClassifier.predict_proba` with
          ``weights="uniform"`` (each neighbour adds 1 to its class, the
          counts are divided by k); other weights are refused.
        * ``"tree_votes"``: the fraction of the ensemble's members whose
          predicted class (the argmax of the leaf's class frequencies, ties to
          class 0, as ``tree.predict``) is class 1,

          .. math:: s(x) = \\frac{1}{T} \\sum_{t=1}^{T} [h_t(x) = 1].

          Works for forests (random forest, extra trees) and bagging.
        * ``"decision_minmax"``: the decision function ``d`` min-max
          normalised over the rows of ``X`` (the test fold),

          .. math:: s_i = \\frac{d_i - \\min_j d_j}{\\max_j d_j - \\min_j d_j},

          so the lowest-scored row gets 0 and the highest 1; when all
          ``d_i`` are equal (or there is one row) every score is 0.5. Scores
          from different calls (folds) are therefore on different scales, as
          in Melo & Prudêncio (2014).
        * ``"decision_platt"``: the class-1 probability of the Platt-scaled
          model built by :meth:`make_estimator`.

        A model fitted on one class only (trees, forests, KNN and NB allow
        it) scores every row 1.0 if that class is 1 and 0.0 otherwise. LR
        and the SVMs refuse to fit on one class (scikit-learn's ValueError),
        which the study records as a failed fit.

        Parameters
        ----------
        model : fitted Pipeline from :meth:`build` (or a bare fitted estimator)
        X : pandas.DataFrame of shape (n_samples, n_features)

        Returns
        -------
        s : ndarray of shape (n_samples,), dtype float64
        """
        pre, est = _split_model(model)
        method = self.score_method
        if method in ("predict_proba", "decision_platt"):
            s = _class1_proba(model.predict_proba(X), est.classes_)
        elif method == "knn_fraction":
            weights = est.get_params().get("weights", "uniform")
            if weights != "uniform":
                raise ValueError(
                    f"score_method='knn_fraction' needs weights='uniform', got {weights!r}."
                )
            s = _class1_proba(model.predict_proba(X), est.classes_)
        elif method == "tree_votes":
            s = _tree_votes(est, X if pre is None else pre.transform(X))
        else:  # decision_minmax
            d = np.asarray(model.decision_function(X), dtype=np.float64)
            classes = np.asarray(est.classes_)
            if d.ndim != 1:
                raise ValueError(
                    f"decision_function returned shape {d.shape}; decision_minmax needs a "
                    "binary model with a 1-d decision function."
                )
            if classes.size == 2 and classes[1] != 1:
                d = -d
            s = _minmax(d)
        s = np.asarray(s, dtype=np.float64).reshape(-1)
        if not np.all(np.isfinite(s)):
            raise ValueError(f"algorithm {self.name!r} produced NaN or infinite scores.")
        return np.clip(s, 0.0, 1.0)

    # ------------------------------------------------------------------ metadata

    def validate(self) -> None:
        """Import the estimator and check params and score method; raise ValueError if wrong."""
        est = self.make_estimator(random_state=0)
        inner = getattr(est, "estimator", est) if self.score_method == "decision_platt" else est
        needs = {
            "predict_proba": "predict_proba",
            "knn_fraction": "kneighbors",
            "tree_votes": "estimators",
            "decision_minmax": "decision_function",
            "decision_platt": "decision_function",
        }[self.score_method]
        if needs == "estimators":
            ok = "n_estimators" in est.get_params(deep=False)
        else:
            # Platt scaling (CalibratedClassifierCV) falls back on predict_proba.
            ok = hasattr(inner, needs) or (
                self.score_method == "decision_platt" and hasattr(inner, "predict_proba")
            )
        if not ok:
            raise ValueError(
                f"algorithm {self.name!r}: {self.estimator} has no {needs}, which "
                f"score_method={self.score_method!r} needs."
            )

    def versions(self) -> dict[str, str]:
        """Versions of Python and of the libraries the model depends on."""
        out = {"python": platform.python_version()}
        import numpy
        import scipy
        import sklearn

        out.update(numpy=numpy.__version__, scipy=scipy.__version__)
        out["scikit-learn"] = sklearn.__version__
        root = self.estimator.replace(":", ".").split(".")[0]
        if root not in ("sklearn", "numpy", "scipy"):
            try:
                mod = importlib.import_module(root)
                out[root] = str(getattr(mod, "__version__", "unknown"))
            except ImportError:
                out[root] = "not installed"
        return out

    def to_dict(self) -> dict:
        """Plain dict (JSON-able) of the fields; ``params`` as a dict."""
        d = asdict(self)
        d["params"] = {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.params}
        return d


# --------------------------------------------------------------------------- helpers


def _column_list(cols, what: str) -> list[str]:
    if isinstance(cols, str):
        raise ValueError(f"{what} must be a sequence of column names, not a single string.")
    cols = list(cols)
    bad = [c for c in cols if not isinstance(c, str)]
    if bad:
        raise ValueError(f"{what} must hold column names (str), got {bad[:3]!r}.")
    return cols


def _categories_as_text(X):
    """Categorical block -> object array of str; missing values -> MISSING_CATEGORY."""
    import pandas as pd

    values = X.to_numpy(dtype=object) if hasattr(X, "to_numpy") else np.asarray(X, dtype=object)
    if values.ndim == 1:
        values = values.reshape(-1, 1)
    out = np.empty(values.shape, dtype=object)
    miss = pd.isna(values)
    out[miss] = MISSING_CATEGORY
    present = values[~miss]
    out[~miss] = [v if isinstance(v, str) else str(v) for v in present.tolist()]
    return out


def _preprocessor(categorical, numeric, scale):
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, StandardScaler

    transformers = []
    if numeric:
        steps = [("impute", SimpleImputer(strategy="median", keep_empty_features=True))]
        if scale:
            steps.append(("scale", StandardScaler()))
        transformers.append(("numeric", Pipeline(steps), list(numeric)))
    if categorical:
        steps = [
            (
                "as_text",
                FunctionTransformer(
                    _categories_as_text, validate=False, feature_names_out="one-to-one"
                ),
            ),
            (
                "onehot",
                OneHotEncoder(handle_unknown="ignore", sparse_output=False, dtype=np.float64),
            ),
        ]
        transformers.append(("categorical", Pipeline(steps), list(categorical)))
    return ColumnTransformer(transformers, remainder="drop", sparse_threshold=0.0)


def _split_model(model):
    from sklearn.pipeline import Pipeline

    if isinstance(model, Pipeline):
        return (model[:-1] if len(model.steps) > 1 else None), model[-1]
    return None, model


def _class1_proba(proba, classes) -> np.ndarray:
    proba = np.asarray(proba, dtype=np.float64)
    classes = np.asarray(classes)
    where = np.flatnonzero(classes == 1)
    if where.size == 0:  # fitted on class 0 only
        return np.zeros(proba.shape[0])
    return proba[:, where[0]]


def _tree_votes(est, Xt) -> np.ndarray:
    members = getattr(est, "estimators_", None)
    if members is None or not hasattr(est, "classes_"):
        raise ValueError(
            "score_method='tree_votes' needs a fitted ensemble of classifiers with "
            "estimators_ and classes_ (RandomForestClassifier, ExtraTreesClassifier, "
            "BaggingClassifier)."
        )
    members = list(members)
    if not members or not all(hasattr(m, "predict") for m in members):
        raise ValueError("score_method='tree_votes': the ensemble has no fitted members.")
    where = np.flatnonzero(np.asarray(est.classes_) == 1)
    Xt = np.asarray(Xt)
    if where.size == 0:
        return np.zeros(Xt.shape[0])
    target = where[0]
    features = getattr(est, "estimators_features_", None)
    if features is None:
        # Forests hand float32 to their trees; convert once instead of per tree.
        Xt = np.ascontiguousarray(Xt, dtype=np.float32)
    votes = np.zeros(Xt.shape[0], dtype=np.int64)
    for k, member in enumerate(members):
        # Members were fitted on the encoded labels 0..n_classes-1, so their
        # predict() returns an index into est.classes_.
        Xk = Xt if features is None else Xt[:, features[k]]
        votes += np.asarray(member.predict(Xk)) == target
    return votes / len(members)


def _minmax(d: np.ndarray) -> np.ndarray:
    if d.size == 0:
        return d.astype(np.float64)
    lo, hi = d.min(), d.max()
    if not hi > lo:
        return np.full(d.shape, 0.5)
    return (d - lo) / (hi - lo)
