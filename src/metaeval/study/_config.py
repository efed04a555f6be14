"""The study: what to run (datasets x algorithms x repeats of k-fold CV) and where.

A :class:`Study` is validated as a whole when it is made: every problem is collected and
reported in one ``ValueError``, so a study file is fixed in one go. :meth:`Study.from_toml`
reads the same thing from a TOML file and points at the offending lines.

A study file looks like this (every key is optional)::

    datasets = "quick"                  # "quick" | "full" | "kb" | ["labor", "fertility", ...]
    algorithms = ["3NN", "DT", "NB"]    # names from the pool (default: all 8)
    # pool = "wide"                     # instead: 150+ configurations "family:key=value"
    folds = 10                          # stratified k-fold
    repeats = 1                         # repetitions of the cross-validation
    seed = 0
    timeout = 600                       # seconds per task (default 1800; 0 = no limit)
    store = "results/churn.duckdb"      # default: metaeval-results/<study file name>.duckdb

    [executor]                          # one of:
    jobs = 4                            #   local processes (default: all cores)
    # scheduler = "tcp://10.0.0.5:8786" #   a running Dask scheduler
    # dask_workers = 4                  #   a Dask LocalCluster started for the run

    [[algorithms]]                      # an estimator of your own (any scikit-learn API)
    name = "MLP"
    estimator = "sklearn.neural_network.MLPClassifier"
    params = { hidden_layer_sizes = [20], max_iter = 500 }
    score = "predict_proba"             # predict_proba | knn_fraction | tree_votes |
    scale = true                        #   decision_minmax | decision_platt

    [[datasets]]                        # data of your own
    name = "churn"
    path = "data/churn.csv"             # csv/tsv(.gz), parquet, arff, KEEL .dat
    target = "class"
    pos_label = "yes"

``algorithms`` (and ``datasets``) is either an array of names or an array of tables; a
table with only ``name`` (and optionally ``params`` and ``base``) takes an algorithm of
the pool, ``base = "RF"`` with another ``name`` makes a renamed variant. Relative paths
(``path``, ``store``) are taken from the study file's directory. Without ``store``, the
results go to ``metaeval-results/<stem>.duckdb`` in the current directory, where
``<stem>`` is the study file's name without ``.toml`` (so two study files never mix
their results in one store by accident).
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import numbers
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10 needs the tomli backport
    import tomli as tomllib

from metaeval.study._executors import (
    DaskExecutor,
    LocalExecutor,
    dask_problems,
    local_problems,
)

__all__ = ["Study", "DEFAULT_STORE", "SUITES"]

DEFAULT_STORE = "metaeval-results/study.duckdb"
#: The default time limit of one task, in seconds (30 minutes; the slowest task of the
#: built-in suite takes under two). ``timeout=0`` (or None) sets no limit.
DEFAULT_TIMEOUT = 1800.0
SUITES = ("quick", "full", "kb")
_TOP_KEYS = ("datasets", "algorithms", "folds", "repeats", "seed", "timeout", "store",
             "executor")
_EXECUTOR_KEYS = ("jobs", "scheduler", "dask_workers")
_ALGORITHM_KEYS = ("name", "base", "estimator", "params", "score", "scale")
_DATASET_KEYS = ("name", "path", "target", "pos_label", "format")


@dataclass(frozen=True)
class Study:
    """A meta-learning study: every algorithm cross-validated on every dataset.

    The tasks are the triples (dataset, algorithm, repeat); each is a stratified
    ``folds``-fold cross-validation whose folds and models are seeded from ``seed`` and
    the task's names (see :func:`metaeval.study.derive_seed`), so the same study gives
    bit-identical scores on any executor.

    Parameters
    ----------
    datasets : "quick", "full", "kb" or list of (str or Dataset), default="quick"
        A built-in suite, or names of built-in datasets (``metaeval datasets list``)
        and/or :class:`metaeval.datasets.Dataset` objects of your own.
    algorithms : list of (str or Algorithm), optional
        Names from the pool (:func:`metaeval.algorithms.list_algorithms`) and/or
        :class:`metaeval.algorithms.Algorithm` objects; default the 8 algorithms of
        Melo & Prudêncio (2014), :data:`metaeval.algorithms.DEFAULT_POOL`.
    folds : int, default=10
        Folds of the stratified cross-validation (>= 2).
    repeats : int, default=1
        Repetitions of the cross-validation with reshuffled folds (the algorithm-benchmark
        web page used 5).
    seed : int, default=0
        The study seed (>= 0).
    timeout : float or None, default=1800
        Time limit of one task (one cross-validation of one algorithm on one dataset),
        in seconds; a task over it is stopped and recorded as failed. 0 or None: no
        limit. Worker processes of the local executor are killed when their task runs
        past it; tasks run in this process (``LocalExecutor(jobs=1)``) are interrupted
        where that is possible (SIGALRM in the main thread), and on Dask the limit is
        checked between folds (a running fold finishes first).
    executor : LocalExecutor or DaskExecutor, optional
        Where tasks run; default ``LocalExecutor()`` (all cores).
    store : str or path-like, default="metaeval-results/study.duckdb"
        The DuckDB results file.

    Raises
    ------
    ValueError
        Listing every problem found, one per line.

    Examples
    --------
    >>> study = Study(datasets=["labor", "fertility"], algorithms=["NB", "DT"], folds=3)
    >>> [d for d in study.datasets], [a.name for a in study.algorithms], study.n_tasks
    (['labor', 'fertility'], ['NB', 'DT'], 4)
    >>> Study(datasets=["labor"], algorithms=["NB"], folds=1, repeats=0)
    Traceback (most recent call last):
    ...
    ValueError: Invalid study:
      - folds: must be an integer >= 2, got 1.
      - repeats: must be an integer >= 1, got 0.
    """

    datasets: Any = "quick"
    algorithms: Any = None
    folds: int = 10
    repeats: int = 1
    seed: int = 0
    timeout: float | None = DEFAULT_TIMEOUT
    executor: Any = None
    store: Any = DEFAULT_STORE
    _source: str | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        values, problems = _check(
            {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init
             and not f.name.startswith("_")}
        )
        if problems:
            raise ValueError(_format_problems(problems, self._source, None))
        for name, value in values.items():
            object.__setattr__(self, name, value)

    # ------------------------------------------------------------------ derived
    @property
    def dataset_names(self) -> list[str]:
        """Names of the datasets, in study order."""
        return [d if isinstance(d, str) else d.name for d in self.datasets]

    @property
    def algorithm_names(self) -> list[str]:
        """Names of the algorithms, in study order."""
        return [a.name for a in self.algorithms]

    @property
    def n_tasks(self) -> int:
        """Number of tasks: datasets x algorithms x repeats."""
        return len(self.datasets) * len(self.algorithms) * self.repeats

    def config(self) -> dict:
        """The part of the study that determines its results, as JSON-able data.

        Recorded in the store; a store refuses a study whose ``folds`` or ``seed``
        differ from it (other datasets, algorithms or more repeats are an extension).
        """
        return {
            "folds": self.folds,
            "seed": self.seed,
            "repeats": self.repeats,
            "datasets": self.dataset_names,
            "algorithms": self.algorithm_names,
            "algorithm_specs": {a.name: algorithm_spec(a) for a in self.algorithms},
        }

    # ------------------------------------------------------------------ TOML
    @classmethod
    def from_toml(cls, path) -> Study:
        """Read a study file (TOML); see the module documentation for its keys.

        Parameters
        ----------
        path : str or path-like

        Returns
        -------
        study : Study

        Raises
        ------
        ValueError
            The file is missing or not TOML, or lists every problem with its line.
        """
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ValueError(f"Cannot read the study file {str(path)!r}: {exc}") from exc
        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"{path}: not a valid TOML file: {_toml_hint(str(exc))}") \
                from exc
        values, problems = _from_raw(raw, path.parent, path.stem)
        checked, more = _check(values)
        problems += more
        if problems:
            raise ValueError(_format_problems(problems, str(path), _TomlLines(text, raw)))
        return cls(**checked, _source=str(path))


def _toml_hint(message: str) -> str:
    """The TOML reader's message for a key given twice, with what to change."""
    where = re.search(r"\((at (line \d+|end of document).*)\)$", message)
    at = f" ({where.group(1)})" if where else ""
    key = re.search(r"\('([^']*)',?.*\)", message)
    name = ".".join(re.findall(r"'([^']*)'", key.group(0))) if key else "a key"
    if message.startswith("Cannot mutate immutable namespace"):
        return (f"{name!r} is given twice, as a value ({name} = [...]) and as a table "
                f"([[{name}]] or [{name}]){at}: keep one form (a list {name} = [...], or "
                f"one [[{name}]] table per item).")
    if message.startswith("Cannot declare"):
        return f"the table [{name}] is given twice{at}: merge the two into one."
    if message.startswith("Cannot overwrite a value"):
        return f"a key is given twice{at}: keep one of the two."
    return message


def algorithm_spec(algorithm) -> dict:
    """What defines an algorithm's results: estimator, params, score method, scaling."""
    return {
        "estimator": algorithm.estimator,
        "params": {k: (list(v) if isinstance(v, tuple) else v) for k, v in algorithm.params},
        "score_method": algorithm.score_method,
        "scale": bool(getattr(algorithm, "scale", False)),
    }


# ---------------------------------------------------------------------------- TOML -> values
def _from_raw(raw: dict, base: Path, stem: str = "") -> tuple[dict, list]:
    """Turn parsed TOML into Study arguments, collecting (path, message) problems."""
    problems: list = []
    values: dict = {}
    _unknown_keys(raw, _TOP_KEYS + ("pool",), (), problems)
    if "pool" in raw:  # a named pool instead of a list (metaeval.algorithms.POOLS)
        from metaeval.algorithms import POOLS

        values["algorithms"] = raw["pool"]
        if "algorithms" in raw or not isinstance(raw["pool"], str) \
                or raw["pool"].lower() not in POOLS:
            values["algorithms"] = _INVALID
            problems.append((("pool",), f"must be one of {', '.join(POOLS)} (and not given "
                                        f"with algorithms), got {raw['pool']!r}."))
    for key in ("folds", "repeats", "seed", "timeout"):
        if key in raw:
            values[key] = raw[key]
    if "store" in raw:
        store = raw["store"]
        values["store"] = base / store if isinstance(store, str) and store else store
    elif stem:
        values["store"] = Path("metaeval-results") / f"{stem}.duckdb"
    if "executor" in raw:
        values["executor"] = _executor_from_raw(raw["executor"], problems)
    if "datasets" in raw:
        values["datasets"] = _entries_from_raw(raw["datasets"], "datasets", base, problems)
    if "algorithms" in raw:
        values["algorithms"] = _entries_from_raw(raw["algorithms"], "algorithms", base,
                                                 problems)
    return values, problems


def _executor_from_raw(table, problems):
    if not isinstance(table, dict):
        problems.append((("executor",), "must be a table ([executor]) with jobs, "
                                        "scheduler or dask_workers."))
        return _INVALID
    _unknown_keys(table, _EXECUTOR_KEYS, ("executor",), problems)
    jobs, scheduler, workers = (table.get(k) for k in _EXECUTOR_KEYS)
    if jobs is not None and (scheduler is not None or workers is not None):
        problems.append((("executor", "jobs"), "jobs is for local processes; it cannot go "
                                               "with scheduler or dask_workers."))
        return _INVALID
    dask = scheduler is not None or workers is not None
    found = dask_problems(scheduler, workers) if dask else local_problems(jobs)
    for key, message in found:
        problems.append((("executor", key) if key else ("executor",), message))
    if found:
        return _INVALID
    return DaskExecutor(scheduler, workers) if dask else LocalExecutor(jobs)


def _entries_from_raw(value, what, base, problems):
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        problems.append(((what,), f"must be a list (or a suite name), got {value!r}."))
        return _INVALID
    out = []
    for i, entry in enumerate(value):
        if isinstance(entry, str):
            out.append(entry)
        elif isinstance(entry, dict):
            maker = _algorithm_from_table if what == "algorithms" else _dataset_from_table
            out.append(maker(entry, (what, i), base, problems))
        else:
            problems.append(((what, i), f"must be a name or a table, got {entry!r}."))
            out.append(_INVALID)
    return out


def _algorithm_from_table(table, where, base, problems):
    from metaeval.algorithms import custom_algorithm, get_algorithm

    _unknown_keys(table, _ALGORITHM_KEYS, where, problems)
    name = table.get("name")
    if not isinstance(name, str) or not name:
        problems.append((where, "needs a name (a non-empty string)."))
        return _INVALID
    params = table.get("params", {})
    if not isinstance(params, dict):
        problems.append((where + ("params",), f"must be a table, got {params!r}."))
        return _INVALID
    try:
        if "estimator" in table:
            if "base" in table:
                problems.append((where + ("base",), "give either estimator or base, not both."))
                return _INVALID
            kwargs = {}
            if "score" in table:
                kwargs["score_method"] = table["score"]
            if "scale" in table:
                kwargs["scale"] = table["scale"]
            algorithm = custom_algorithm(name, table["estimator"], params, **kwargs)
            algorithm.validate()
            return algorithm
        for key in ("score", "scale"):
            if key in table:
                problems.append((where + (key,), f"{key} only goes with estimator (an "
                                                  "algorithm of the pool has its own)."))
                return _INVALID
        algorithm = get_algorithm(table.get("base", name), **params)
        if algorithm.name != name:
            algorithm = dataclasses.replace(algorithm, name=name)
        return algorithm
    except (ValueError, TypeError) as exc:
        problems.append((where, str(exc)))
        return _INVALID


def _dataset_from_table(table, where, base, problems):
    from metaeval.datasets import read_dataset
    from metaeval.datasets._base import check_values

    _unknown_keys(table, _DATASET_KEYS, where, problems)
    name = table.get("name")
    if "path" not in table:
        if isinstance(name, str) and name:
            extra = [k for k in ("target", "pos_label", "format") if k in table]
            if extra:
                problems.append((where + (extra[0],), (
                    "target, pos_label and format apply to a file given by path; without "
                    f"path, {name!r} is taken as a built-in dataset: remove "
                    f"{' and '.join(extra)}, or give path to read your own file.")))
            return name  # a built-in dataset, checked with the others
        problems.append((where, "needs a name (built-in dataset) or a path (your own data)."))
        return _INVALID
    path = table["path"]
    if not isinstance(path, str) or not path:
        problems.append((where + ("path",), f"must be a file path, got {path!r}."))
        return _INVALID
    kwargs = {k: table[k] for k in ("target", "pos_label", "format", "name") if k in table}
    try:
        data = read_dataset(base / path, **kwargs)
    except (ValueError, OSError) as exc:
        problems.append((where + ("path",), f"cannot read {path!r}: {exc}"))
        return _INVALID
    try:
        check_values(data.X, data.y, target=table.get("target", "class"),
                     class_names=data.class_names, source=f"the file {str(base / path)!r}")
    except ValueError as exc:
        problems.append((where + ("path",), str(exc)))
        return _INVALID
    return data


# ---------------------------------------------------------------------------- validation
class _Invalid:
    def __repr__(self):
        return "<invalid>"


_INVALID = _Invalid()  # an entry already reported as a problem


def _check(values: dict) -> tuple[dict, list]:
    """Validate and normalise Study arguments; return (values, [(path, message)])."""
    from metaeval.algorithms import DEFAULT_POOL

    problems: list = []
    out: dict = {}
    defaults = {f.name: f.default for f in dataclasses.fields(Study) if f.init}
    v = {k: values.get(k, defaults[k]) for k in _TOP_KEYS}

    for key, minimum in (("folds", 2), ("repeats", 1), ("seed", 0)):
        value = v[key]
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            if value is not _INVALID:
                problems.append(((key,), f"must be an integer >= {minimum}, got {value!r}."))
        out[key] = value

    timeout = v["timeout"]
    if isinstance(timeout, numbers.Real) and not isinstance(timeout, bool):
        timeout = float(timeout)
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, float) or not timeout >= 0
        or timeout == float("inf")
    ):
        if timeout is not _INVALID:
            problems.append((("timeout",), "must be a number of seconds >= 0 (0: no limit), "
                                           f"got {timeout!r}."))
    out["timeout"] = None if timeout is None or timeout == 0 else timeout

    store = v["store"]
    if not isinstance(store, (str, os.PathLike)) or not str(store):
        if store is not _INVALID:
            problems.append((("store",), f"must be a file path, got {store!r}."))
    out["store"] = Path(store) if isinstance(store, (str, os.PathLike)) else store

    executor = v["executor"]
    if executor is None:
        executor = LocalExecutor()
    elif executor is not _INVALID and not isinstance(executor, (LocalExecutor, DaskExecutor)):
        problems.append((("executor",), f"must be a LocalExecutor or a DaskExecutor, got "
                                        f"{executor!r}."))
    out["executor"] = executor

    out["datasets"] = _check_datasets(v["datasets"], problems)
    algorithms = v["algorithms"]
    out["algorithms"] = _check_algorithms(
        list(DEFAULT_POOL) if algorithms is None else algorithms, problems
    )
    return out, problems


def _check_datasets(datasets, problems) -> tuple:
    from metaeval.datasets import list_datasets
    from metaeval.datasets._base import check_values

    if datasets is _INVALID:
        return ()
    if isinstance(datasets, str):
        if datasets in SUITES:
            return tuple(list_datasets(datasets))
        problems.append((("datasets",), "must be 'quick', 'full', 'kb' or a list of dataset "
                                        f"names, got {datasets!r}."))
        return ()
    if not isinstance(datasets, (list, tuple)):
        problems.append((("datasets",), f"must be 'quick', 'full', 'kb' or a list, got "
                                        f"{type(datasets).__name__}."))
        return ()
    if not datasets:
        problems.append((("datasets",), "is empty; give at least one dataset."))
        return ()
    known = list_datasets("kb")
    out, seen = [], {}
    for i, entry in enumerate(datasets):
        if entry is _INVALID:
            continue
        if isinstance(entry, str):
            if entry not in known:
                problems.append((("datasets", i), f"unknown dataset {entry!r}"
                                                  f"{_did_you_mean(entry, known)}; "
                                                  "`metaeval datasets list` shows them."))
                continue
            name = entry
        elif all(hasattr(entry, a) for a in ("name", "X", "y", "categorical", "sha256")):
            name = entry.name
            try:
                check_values(entry.X, entry.y, class_names=getattr(entry, "class_names",
                                                                   ("0", "1")),
                             source=f"dataset {name!r}")
            except ValueError as exc:
                problems.append((("datasets", i), str(exc)))
                continue
        else:
            problems.append((("datasets", i), f"must be a dataset name or a Dataset, got "
                                              f"{entry!r}."))
            continue
        if name in seen:
            problems.append((("datasets", i), f"dataset {name!r} is listed twice."))
            continue
        seen[name] = i
        out.append(entry)
    return tuple(out)


def _check_algorithms(algorithms, problems) -> tuple:
    from metaeval.algorithms import POOLS, get_algorithm, list_algorithms, pool_names

    if algorithms is _INVALID:
        return ()
    if isinstance(algorithms, str) and algorithms.lower() in POOLS:
        algorithms = list(pool_names(algorithms))
    if isinstance(algorithms, str):
        algorithms = [algorithms]
    if not isinstance(algorithms, (list, tuple)):
        problems.append((("algorithms",), f"must be a list, got {type(algorithms).__name__}."))
        return ()
    if not algorithms:
        problems.append((("algorithms",), "is empty; give at least one algorithm."))
        return ()
    out, seen = [], set()
    for i, entry in enumerate(algorithms):
        if entry is _INVALID:
            continue
        if isinstance(entry, str):
            try:
                entry = get_algorithm(entry)
            except (ValueError, KeyError) as exc:
                if ":" in entry:  # a configuration of the wide pool: say what is wrong
                    problems.append((("algorithms", i), str(exc)))
                    continue
                known = list_algorithms()
                problems.append((("algorithms", i), f"unknown algorithm {entry!r}"
                                                    f"{_did_you_mean(entry, known)}"
                                                    f"; the pool: {', '.join(known)}."))
                continue
        elif not all(hasattr(entry, a) for a in ("name", "estimator", "build", "score")):
            problems.append((("algorithms", i), f"must be an algorithm name or an Algorithm, "
                                                f"got {entry!r}."))
            continue
        else:
            try:
                _validate_algorithm(entry)
            except (ValueError, TypeError) as exc:
                problems.append((("algorithms", i), f"{entry.name}: {exc}"))
                continue
        if entry.name in seen:
            problems.append((("algorithms", i), f"algorithm {entry.name!r} is listed twice."))
            continue
        seen.add(entry.name)
        out.append(entry)
    return tuple(out)


def _validate_algorithm(algorithm) -> None:
    """Check that an algorithm's estimator imports and takes its parameters."""
    validate = getattr(algorithm, "validate", None)
    if validate is not None:
        validate()
        return
    module, _, name = str(algorithm.estimator).replace(":", ".").rpartition(".")
    try:
        getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ValueError(f"estimator {algorithm.estimator!r} cannot be imported: {exc}") from exc


def _unknown_keys(table: dict, allowed, where: tuple, problems: list) -> None:
    for key in table:
        if key not in allowed:
            problems.append((where + (key,), f"unknown key {key!r}{_did_you_mean(key, allowed)}; "
                                             f"the keys are {', '.join(allowed)}."))


def _did_you_mean(word, choices) -> str:
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


# ---------------------------------------------------------------------------- messages
def _path_text(path: tuple) -> str:
    text = str(path[0])
    for part in path[1:]:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def _format_problems(problems: list, source: str | None, lines: _TomlLines | None) -> str:
    head = f"Invalid study file {source}:" if source else "Invalid study:"
    out = [head]
    for path, message in problems:
        line = lines.line(path) if lines is not None else None
        where = f"line {line}: " if line else ""
        out.append(f"  - {where}{_path_text(path)}: {message}")
    return "\n".join(out)


class _TomlLines:
    """Find the line of a key in a TOML text (tomllib gives no positions)."""

    _HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
    _KEY = re.compile(r"^\s*([A-Za-z0-9_\-]+|\"[^\"]*\")\s*=")

    def __init__(self, text: str, raw: dict):
        self.raw = raw
        self.lines = text.splitlines()
        self.keys: list[tuple[int, str | None, int, str]] = []  # (line, section, index, key)
        self.headers: list[tuple[int, str, int]] = []  # (line, section, index)
        section, index, counts = None, 0, {}
        for number, line in enumerate(self.lines, start=1):
            header = self._HEADER.match(line)
            if header:
                section = header.group(2).strip().strip('"')
                if header.group(1) == "[[":
                    index = counts.get(section, 0)
                    counts[section] = index + 1
                else:
                    index = 0
                self.headers.append((number, section, index))
                continue
            key = self._KEY.match(line)
            if key:
                self.keys.append((number, section, index, key.group(1).strip('"')))

    def _key(self, section, index, key):
        for number, s, i, k in self.keys:
            if s == section and i == index and k == key:
                return number
        return None

    def _header(self, section, index):
        for number, s, i in self.headers:
            if s == section and i == index:
                return number
        return None

    def line(self, path: tuple) -> int | None:
        top = path[0]
        if len(path) == 1:
            return self._key(None, 0, top) or self._header(top, 0)
        if top == "executor":
            return self._key("executor", 0, path[1]) or self._header("executor", 0) \
                or self._key(None, 0, "executor")
        index = path[1]
        if isinstance(index, int):
            header = self._header(top, index)
            if header is not None:
                if len(path) > 2:
                    return self._key(top, index, path[2]) or header
                return header
            start = self._key(None, 0, top)
            value = self.raw.get(top)
            if start and isinstance(value, list) and index < len(value):
                entry = value[index]
                needle = entry if isinstance(entry, str) else (entry or {}).get("name")
                if isinstance(needle, str):
                    for number in range(start, len(self.lines) + 1):
                        text = self.lines[number - 1]
                        if f'"{needle}"' in text or f"'{needle}'" in text:
                            return number
            return start
        return self._key(None, 0, top)
