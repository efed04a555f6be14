"""metaeval: cost-sensitive evaluation of classifiers across many datasets.

The measure modules (:mod:`metaeval.hardness`, :mod:`metaeval.similarity`,
:mod:`metaeval.ranking`, :mod:`metaeval.benchmark`) are pure functions of
arrays, usable on their own like :mod:`sklearn.metrics`. The study, the store,
the report and the command line live at the edges.
"""

__all__ = ["instance_hardness", "__version__"]
__version__ = "0.1.0"


def __getattr__(name):
    # imported on first use: ``metaeval report`` starts its workers before NumPy loads
    # (metaeval.cli._early)
    if name == "instance_hardness":
        from metaeval.hardness import instance_hardness

        return instance_hardness
    raise AttributeError(f"module 'metaeval' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), "instance_hardness"])
