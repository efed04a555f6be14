"""Every recommendation strategy by name: the baselines, the classical strategies and the
meta-learners."""

from __future__ import annotations

from metaeval.recommend.learners._auto import Auto
from metaeval.recommend.learners._learners import ZeroShotPortfolio
from metaeval.recommend.learners._learners_cf import CollaborativeFiltering
from metaeval.recommend.learners._learners_forest import (
    ConfigurationRegression,
    PairwiseClassification,
)
from metaeval.recommend.learners._neighbours import CostLandmarking, KnnMetafeatures
from metaeval.recommend.learners._strategies import (
    ActiveTesting,
    AverageRanking,
    FastFirst,
    Oracle,
    RandomOrder,
    SingleBest,
    SingleBestA3R,
    Strategy,
)

#: Strategy classes by name, in the order tables list them.
STRATEGIES = {
    cls.name: cls
    for cls in (Auto, AverageRanking, KnnMetafeatures, CostLandmarking, ActiveTesting,
                PairwiseClassification, ConfigurationRegression, CollaborativeFiltering,
                ZeroShotPortfolio, SingleBest, SingleBestA3R, FastFirst, RandomOrder, Oracle)
}


def get_strategy(name, **params) -> Strategy:
    """A strategy by name, e.g. ``get_strategy("knn-metafeatures", k=3)``.

    Examples
    --------
    >>> get_strategy("knn-metafeatures", k=3)
    KnnMetafeatures(k=3)
    >>> get_strategy("collaborative", ranks=(2,), features=("metafeatures",)).uses
    ('metafeatures',)
    """
    if isinstance(name, Strategy):
        return name
    if name not in STRATEGIES:
        raise ValueError(f"Unknown strategy {name!r}; known: {', '.join(STRATEGIES)}.")
    return STRATEGIES[name](**params)
