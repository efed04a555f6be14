"""metaeval: cost-sensitive evaluation of classifiers across many datasets.

The measure modules (:mod:`metaeval.hardness`, :mod:`metaeval.similarity`,
:mod:`metaeval.ranking`, :mod:`metaeval.benchmark`) are pure functions of
arrays, usable on their own like :mod:`sklearn.metrics`. The study, the store,
the report and the command line live at the edges.
"""

from metaeval.hardness import instance_hardness

__all__ = ["instance_hardness", "__version__"]
__version__ = "0.1.0"
