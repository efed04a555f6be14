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
  intervals and Friedman/Nemenyi; :func:`recommend`: the order for a new dataset, and
  within a time budget the configurations predicted to fit (:class:`TimeModel`,
  :func:`plan_budget`).
- ASlib scenarios (Bischl et al. 2016): :func:`read_aslib` reads one into a knowledge
  base, :func:`evaluate_aslib` judges the strategies on its own cross-validation with the
  algorithm-selection measures, :func:`write_aslib` writes a knowledge base as one;
  :func:`evaluate_sunny` scores SUNNY's per-instance schedules on a runtime scenario.

It reads results through the store's query methods only and never imports the study,
the report or the command line.
"""

import importlib

# Each public name is imported from its module when first used (PEP 562), so that
# `from metaeval.recommend import Condition` does not import the strategies, the
# learners and the ASlib readers: the command line checks its arguments first.
_WHERE = {
    "GRID": "knowledge._archive",
    "KnowledgeArchive": "knowledge._archive",
    "beta_weights": "knowledge._archive",
    "build_knowledge": "knowledge._archive",
    "load_knowledge": "knowledge._archive",
    "AslibScenario": "aslib._aslib",
    "read_aslib": "aslib._aslib",
    "write_aslib": "aslib._aslib",
    "AslibEvaluation": "aslib._aslib_evaluate",
    "evaluate_aslib": "aslib._aslib_evaluate",
    "SunnyEvaluation": "aslib._sunny",
    "evaluate_sunny": "aslib._sunny",
    "sunny_schedule": "aslib._sunny",
    "Auto": "learners._auto",
    "BudgetPlan": "knowledge._budget",
    "TimeModel": "knowledge._budget",
    "parse_budget": "knowledge._budget",
    "plan_budget": "knowledge._budget",
    "SUCCESS_FLOOR": "_condition",
    "Condition": "_condition",
    "loss_at": "_curves",
    "loss_by_time": "_curves",
    "loss_curve": "_curves",
    "mean_interval_loss": "_curves",
    "LANDMARKERS": "knowledge._describe",
    "PYMFE_GROUPS": "knowledge._describe",
    "Description": "knowledge._describe",
    "describe_dataset": "knowledge._describe",
    "landmark_features": "knowledge._describe",
    "DEFAULT_TIME_RANGE": "evaluation._evaluate",
    "LOSS_STEPS": "evaluation._evaluate",
    "HeldOut": "evaluation._scoring",
    "RecommenderEvaluation": "evaluation._evaluate",
    "evaluate_recommenders": "evaluation._evaluate",
    "WorkerLostError": "evaluation._parallel",
    "WorkerLostWarning": "evaluation._parallel",
    "sweep_time_weight": "evaluation._evaluate",
    "KnowledgeBase": "knowledge._knowledge",
    "Query": "knowledge._knowledge",
    "describe_store": "knowledge._knowledge",
    "Learner": "learners._learners",
    "ZeroShotPortfolio": "learners._learners",
    "CollaborativeFiltering": "learners._learners_cf",
    "ConfigurationRegression": "learners._learners_forest",
    "PairwiseClassification": "learners._learners_forest",
    "Recommendation": "_recommend",
    "recommend": "_recommend",
    "STRATEGIES": "learners._registry",
    "get_strategy": "learners._registry",
    "ActiveTesting": "learners._strategies",
    "AverageRanking": "learners._strategies",
    "CostLandmarking": "learners._neighbours",
    "Fitted": "learners._strategies",
    "KnnMetafeatures": "learners._neighbours",
    "Oracle": "learners._strategies",
    "RandomOrder": "learners._strategies",
    "Ranking": "learners._strategies",
    "SingleBest": "learners._strategies",
    "SingleBestA3R": "learners._strategies",
    "FastFirst": "learners._strategies",
    "Strategy": "learners._strategies",
    "compare_strategies": "evaluation._summary",
    "holm": "evaluation._summary",
    "paired_comparison": "evaluation._summary",
}


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
    "SingleBestA3R",
    "FastFirst",
    "RandomOrder",
    "Oracle",
    "HeldOut",
    "RecommenderEvaluation",
    "evaluate_recommenders",
    "WorkerLostError",
    "WorkerLostWarning",
    "sweep_time_weight",
    "DEFAULT_TIME_RANGE",
    "LOSS_STEPS",
    "loss_curve",
    "mean_interval_loss",
    "loss_at",
    "loss_by_time",
    "Recommendation",
    "recommend",
    "TimeModel",
    "BudgetPlan",
    "plan_budget",
    "parse_budget",
    "AslibScenario",
    "read_aslib",
    "write_aslib",
    "AslibEvaluation",
    "evaluate_aslib",
    "SunnyEvaluation",
    "evaluate_sunny",
    "sunny_schedule",
    "holm",
]


def __getattr__(name):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'metaeval.recommend' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"metaeval.recommend.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_WHERE))
