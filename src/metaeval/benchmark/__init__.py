"""Benchmark analytics: metrics, value captured, runtime, stability, portfolios.

They follow the algorithm-benchmark web page on value captured, metric disagreement and
bootstrap stability (no printed reference; it follows Caruana & Niculescu-Mizil 2006).

Functions here take tidy long frames (``[dataset, algorithm, metric, value]``,
``[dataset, algorithm, time]``) and return tidy frames; every metric knows
whether higher is better, and losses are flipped before any comparison. They
are pure: no files, no globals, randomness only from an explicit ``seed``. The
``family_*`` functions give the same frames by algorithm family (each family
represented by its best member, or its members' mean, in every cell).
"""

from metaeval.benchmark._abstract import random_paper_abstract
from metaeval.benchmark._bootstrap import bootstrap_stability
from metaeval.benchmark._disagreement import MetricDisagreement, metric_disagreement
from metaeval.benchmark._families import (
    FAMILY_HOW,
    family_metrics,
    family_value,
    family_value_captured,
)
from metaeval.benchmark._metrics import (
    HARDNESS_METRICS,
    METRICS,
    SKLEARN_METRICS,
    Metric,
    compute_metrics,
    matrix_metrics,
)
from metaeval.benchmark._portfolio import greedy_portfolio, portfolio_value
from metaeval.benchmark._spread import (
    CLOCKS,
    portfolio_spread,
    runtime_spread,
    task_times,
    value_spread,
)
from metaeval.benchmark._value import (
    overall_value,
    runtime_score,
    value_captured,
    value_heatmap,
)

__all__ = [
    "METRICS",
    "SKLEARN_METRICS",
    "HARDNESS_METRICS",
    "Metric",
    "compute_metrics",
    "matrix_metrics",
    "value_captured",
    "overall_value",
    "value_heatmap",
    "runtime_score",
    "metric_disagreement",
    "MetricDisagreement",
    "bootstrap_stability",
    "portfolio_value",
    "greedy_portfolio",
    "random_paper_abstract",
    "CLOCKS",
    "task_times",
    "value_spread",
    "runtime_spread",
    "portfolio_spread",
    "FAMILY_HOW",
    "family_metrics",
    "family_value_captured",
    "family_value",
]
