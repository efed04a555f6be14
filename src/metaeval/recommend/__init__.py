"""Recommend algorithms for a new dataset under an operating condition, and prove it.

The question a user brings is: *here is my dataset, my costs and my patience -- which
algorithms should I try, in what order?* This room answers it from past results
(predictive meta-learning), and measures how good the answer is on held-out datasets:

- :class:`Condition`: how a past result is scored -- one of the ten metrics of the
  algorithm-benchmark web page, or one minus the mean instance hardness under a threshold
  choice method at a point cost, under a Beta cost distribution or uniform costs
  (Prudêncio 2019) -- and how much time matters (A3R's P, Abdulrahman & Brazdil 2014).
- :func:`describe_dataset`: pymfe meta-features and cost-sensitive landmarkers, each
  group under a time budget, failures recorded; :func:`describe_store` caches them.
- :class:`KnowledgeBase`: past results under a condition, read one dataset at a time.
- :class:`KnowledgeArchive`: past results under *every* condition, compactly, in one
  file (:func:`build_knowledge` from a store, :func:`load_knowledge`); one ships with
  metaeval, so recommending needs no study of one's own.
- Strategies (:data:`STRATEGIES`), each fitted once on a knowledge base
  (``Strategy.fit`` gives a :class:`Fitted` selector) and then asked to rank any number
  of new datasets: ``auto`` (:class:`Auto`, the default: one strategy chosen per
  condition by inner cross-validation, leaning to the single best), average ranking,
  k-NN on meta-features, cost-sensitive landmarking, active testing; meta-learners
  (pairwise cost-sensitive classification, per-configuration regression, collaborative
  filtering, a zero-shot portfolio);
  baselines single best, random and oracle.
- :func:`evaluate_recommenders`: leave-one-dataset-out with whole families held out,
  loss curves against tests and time, mean interval loss, closed gap, bootstrap
  intervals and Friedman/Nemenyi; :func:`recommend`: the order for a new dataset.
- ASlib scenarios (Bischl et al. 2016): :func:`read_aslib` reads one into a knowledge
  base, :func:`evaluate_aslib` judges the strategies on its own cross-validation with the
  algorithm-selection measures, :func:`write_aslib` writes a knowledge base as one.

It reads results through the store's query methods only and never imports the study,
the report or the command line.
"""

from metaeval.recommend._archive import (
    GRID,
    KnowledgeArchive,
    beta_weights,
    build_knowledge,
    load_knowledge,
)
from metaeval.recommend._aslib import AslibScenario, read_aslib, write_aslib
from metaeval.recommend._aslib_evaluate import AslibEvaluation, evaluate_aslib
from metaeval.recommend._auto import Auto
from metaeval.recommend._condition import SUCCESS_FLOOR, Condition
from metaeval.recommend._curves import loss_at, loss_by_time, loss_curve, mean_interval_loss
from metaeval.recommend._describe import (
    LANDMARKERS,
    PYMFE_GROUPS,
    Description,
    describe_dataset,
    landmark_features,
)
from metaeval.recommend._evaluate import (
    DEFAULT_TIME_RANGE,
    LOSS_STEPS,
    HeldOut,
    RecommenderEvaluation,
    evaluate_recommenders,
    sweep_time_weight,
)
from metaeval.recommend._knowledge import KnowledgeBase, Query, describe_store
from metaeval.recommend._learners import Learner, ZeroShotPortfolio
from metaeval.recommend._learners_cf import CollaborativeFiltering
from metaeval.recommend._learners_forest import ConfigurationRegression, PairwiseClassification
from metaeval.recommend._recommend import Recommendation, recommend
from metaeval.recommend._registry import STRATEGIES, get_strategy
from metaeval.recommend._strategies import (
    ActiveTesting,
    AverageRanking,
    CostLandmarking,
    Fitted,
    KnnMetafeatures,
    Oracle,
    RandomOrder,
    Ranking,
    SingleBest,
    Strategy,
)
from metaeval.recommend._summary import compare_strategies, holm, paired_comparison

__all__ = [
    "Condition",
    "paired_comparison",
    "compare_strategies",
    "SUCCESS_FLOOR",
    "Description",
    "describe_dataset",
    "landmark_features",
    "describe_store",
    "LANDMARKERS",
    "PYMFE_GROUPS",
    "KnowledgeBase",
    "KnowledgeArchive",
    "build_knowledge",
    "load_knowledge",
    "beta_weights",
    "GRID",
    "Query",
    "Strategy",
    "Fitted",
    "Auto",
    "Ranking",
    "STRATEGIES",
    "get_strategy",
    "AverageRanking",
    "KnnMetafeatures",
    "CostLandmarking",
    "ActiveTesting",
    "Learner",
    "PairwiseClassification",
    "ConfigurationRegression",
    "CollaborativeFiltering",
    "ZeroShotPortfolio",
    "SingleBest",
    "RandomOrder",
    "Oracle",
    "HeldOut",
    "RecommenderEvaluation",
    "evaluate_recommenders",
    "sweep_time_weight",
    "DEFAULT_TIME_RANGE",
    "LOSS_STEPS",
    "loss_curve",
    "mean_interval_loss",
    "loss_at",
    "loss_by_time",
    "Recommendation",
    "recommend",
    "AslibScenario",
    "read_aslib",
    "write_aslib",
    "AslibEvaluation",
    "evaluate_aslib",
    "holm",
]
