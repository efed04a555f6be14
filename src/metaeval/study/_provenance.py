"""What a run records about how its results were made: the machine, the versions, the
full hyperparameters of each algorithm and the fold seeds of each dataset."""

from __future__ import annotations

import importlib.metadata
import os
import platform
from pathlib import Path

from metaeval.study._plan import derive_seed

__all__ = ["environment", "hyperparameters", "fold_seeds", "cpu_model"]

#: The distributions whose versions every run records (import name -> distribution).
PACKAGES = ("metaeval", "numpy", "scipy", "scikit-learn", "pandas", "duckdb", "pyarrow")

#: Written in place of a random state that is not fixed by the algorithm's parameters.
PER_FOLD = "derived per fold from the study seed"


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        if package == "metaeval":
            import metaeval

            return str(getattr(metaeval, "__version__", "unknown"))
        return "not installed"


def cpu_model() -> str:
    """The CPU's model name (from ``/proc/cpuinfo`` on Linux), or what Python knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Hardware", "cpu model") and value.strip():
                return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def environment(executor: str = "") -> dict:
    """The versions, the machine and the executor of a run, as a JSON-able dict.

    Examples
    --------
    >>> env = environment("1 local process")
    >>> sorted(env["versions"]) == sorted(("python",) + PACKAGES)
    True
    >>> env["cores"] >= 1
    True
    """
    from metaeval._validation import usable_cores

    usable = usable_cores()
    versions = {"python": platform.python_version()}
    versions.update({p: _version(p) for p in PACKAGES})
    return {
        "versions": versions,
        "python_implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpu_model": cpu_model(),
        "cores": int(usable),
        "cores_total": int(os.cpu_count() or usable),
        "executor": executor,
    }


def hyperparameters(algorithm) -> dict | None:
    """The full ``get_params()`` of an algorithm's estimator (nested ones included).

    A random state the algorithm's parameters leave open is set per fold from the study
    seed; it is shown as such. None when the estimator cannot be built here.
    """
    try:
        est = algorithm.make_estimator(random_state=None)
        params = est.get_params(deep=True)
    except Exception:  # noqa: BLE001 - a user estimator that cannot be built is reported at run
        return None
    fixed = dict(getattr(algorithm, "params", ()))
    out = {}
    for key, value in sorted(params.items()):
        if hasattr(value, "get_params"):  # a nested estimator: its parameters follow
            value = type(value).__name__
        elif key.split("__")[-1] == "random_state" and value is None and (
                "random_state" not in fixed):
            value = PER_FOLD
        out[key] = value
    return out


def fold_seeds(study) -> list[tuple[str, int, int]]:
    """``(dataset, repeat, seed)``: the random state of each fold shuffle of a study."""
    names = [e if isinstance(e, str) else e.name for e in study.datasets]
    return [(name, r, derive_seed(study.seed, "folds", name, r))
            for r in range(study.repeats) for name in names]
