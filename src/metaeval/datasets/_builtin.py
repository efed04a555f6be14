"""The built-in suites: 72 real binary tasks shipped as package data.

The files live in ``metaeval/datasets/data/`` (one gzip CSV each, plus
``manifest.csv`` for the 51 tasks of the ``quick`` and ``full`` suites,
``manifest_kb.csv`` for the 21 the knowledge-base suite ``kb`` adds, and
``README.md``) and are read with :mod:`importlib.resources`, so the suites work
from a wheel, a zip or a source checkout. Every load checks the SHA-256 of the
``.gz`` file against the manifest. Nothing is downloaded.
"""

from __future__ import annotations

import csv
import difflib
import functools
import gzip
import hashlib
import io
from dataclasses import replace
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from metaeval.datasets._base import Dataset

__all__ = ["list_datasets", "load_dataset", "load_suite", "manifest"]

SUBSETS = ("quick", "full", "kb")
_MANIFESTS = ("manifest.csv", "manifest_kb.csv")  # the second is optional

_INT_COLUMNS = (
    "n_rows",
    "n_features",
    "n_categorical",
    "n_missing",
    "n_rows_with_missing",
    "n_duplicate_rows",
    "n_label_conflict_rows",
    "n_positive",
    "bytes_gz",
)


# pandas >= 3.1 parses every float exactly (and deprecates the option); older
# versions need the round-trip converter for that.
_PANDAS = tuple(int(p) for p in pd.__version__.split(".")[:2] if p.isdigit())
_PRECISE_FLOATS = {} if _PANDAS >= (3, 1) else {"float_precision": "round_trip"}


def _root(data_dir=None):
    """The folder holding the suite: the package data, or ``data_dir`` (tests)."""
    if data_dir is None:
        return resources.files("metaeval.datasets").joinpath("data")
    return Path(data_dir)


@functools.lru_cache(maxsize=4)
def _manifest(data_dir: str | None) -> pd.DataFrame:
    """Every built-in dataset: ``manifest.csv`` then ``manifest_kb.csv`` (if present)."""
    dtype = {c: "int64" for c in _INT_COLUMNS}
    dtype["positive_fraction"] = "float64"
    frames = []
    for i, file in enumerate(_MANIFESTS):
        path = _root(data_dir).joinpath(file)
        if i and not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        frames.append(pd.read_csv(io.StringIO(text), dtype=dtype, keep_default_na=False,
                                  na_values=[]))
    frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    for c in frame.columns:
        if c not in dtype:
            frame[c] = frame[c].astype(object)
    if frame["name"].duplicated().any():
        twice = sorted(set(frame.loc[frame["name"].duplicated(), "name"]))
        raise ValueError(f"the manifests name these datasets twice: {twice}.")
    return frame


def _rows(subset: str, data_dir) -> pd.DataFrame:
    if subset not in SUBSETS:
        raise ValueError(f"subset must be one of {SUBSETS}, got {subset!r}.")
    m = _manifest(data_dir)
    if subset == "quick":
        return m[m["subset"] == "quick"]
    if subset == "full":
        return m[m["subset"].isin(("quick", "full"))]
    if not (m["subset"] == "kb").any():
        raise ValueError("subset='kb' needs manifest_kb.csv, which is not installed with "
                         "this copy of metaeval's package data; reinstall metaeval.")
    return m


def manifest(subset: str = "full") -> pd.DataFrame:
    """Return a suite's manifest, one row per dataset in suite order.

    Parameters
    ----------
    subset : {"full", "quick", "kb"}, default="full"
        The suite (see :func:`list_datasets`).

    Returns
    -------
    frame : pandas.DataFrame of shape (n_datasets, n_columns)
        Columns include ``name``, ``subset`` (``quick``, ``full`` or ``kb``: the
        smallest suite the dataset belongs to), ``family`` (tasks cut from one
        base dataset share it), ``n_rows``, ``n_features``, ``n_categorical``,
        ``n_missing``, ``n_positive``, ``positive_fraction``,
        ``positive_class`` / ``negative_class`` (original labels),
        ``categorical_columns`` (``|``-separated), provenance (``origin``,
        ``url``, ``citation``, ``source``, ``license_note``) and ``sha256``
        (of the ``.gz`` file). Text columns hold ``""`` where empty. A copy with
        a fresh index: changing it changes nothing else.

    Examples
    --------
    >>> m = manifest()
    >>> len(m), m.loc[0, "name"], int(m.loc[0, "n_rows"])
    (51, 'hepatitis', 155)
    >>> kb = manifest("kb")
    >>> len(kb), kb["family"].nunique(), int((kb["n_rows"] >= 5000).sum())
    (72, 63, 13)
    """
    return _rows(subset, None).reset_index(drop=True).copy()


def list_datasets(subset: str = "full") -> list[str]:
    """Names of the built-in datasets, in manifest order.

    Parameters
    ----------
    subset : {"full", "quick", "kb"}, default="full"
        ``"quick"``: the 15 datasets with at most 1000 rows; ``"full"``: the 51
        of the papers' reproductions; ``"kb"``: the 72 of the knowledge base
        (``full`` and 21 more, in 63 families, 13 of them with at least 5,000
        rows). Each suite holds the one before it, in the same order.

    Returns
    -------
    names : list of str

    Examples
    --------
    >>> len(list_datasets()), len(list_datasets("quick")), len(list_datasets("kb"))
    (51, 15, 72)
    >>> list_datasets("quick")[:3]
    ['hepatitis', 'sonar', 'glass-2_vs_rest']
    """
    return _names(subset, None)


def _names(subset, data_dir):
    return _rows(subset, data_dir)["name"].tolist()


def load_dataset(name: str) -> Dataset:
    """Load one built-in dataset, after checking its SHA-256.

    Categorical columns (``manifest.categorical_columns``) are read as Python
    strings (dtype ``object``), so codes such as ``"1"``/``"2"`` stay text;
    the other features are ``float64``. Only empty fields are missing
    (``NaN``): ``"none"`` or ``"NA"`` are ordinary categories. Floats are
    parsed with round-trip precision, so the values are exactly those written.

    Parameters
    ----------
    name : str
        A name from :func:`list_datasets` (of any suite).

    Returns
    -------
    dataset : Dataset
        ``y`` is 1 for the manifest's ``positive_class`` (the minority class
        of the task) and ``class_names`` is ``(negative_class, positive_class)``.

    Raises
    ------
    ValueError
        If ``name`` is unknown, or the file's SHA-256 differs from the manifest.

    Notes
    -----
    Parsed and verified datasets are cached per process (the 16 most recent);
    every call returns fresh copies of ``X`` and ``y``, so changing them never
    changes what the next call returns.

    Examples
    --------
    >>> ds = load_dataset("hepatitis")
    >>> ds.X.shape, int(ds.y.sum()), ds.class_names
    ((155, 19), 32, ('LIVE', 'DIE'))
    >>> ds.X["SEX"].dtype, ds.X["SEX"].iloc[0]
    (dtype('O'), '2')
    """
    if not isinstance(name, str):
        raise ValueError(f"name must be a string, got {type(name).__name__}.")
    return _copy(_load_builtin(name, None))


def load_suite(subset: str = "quick") -> list[Dataset]:
    """Load every dataset of a subset, in manifest order.

    Parameters
    ----------
    subset : {"quick", "full", "kb"}, default="quick"

    Returns
    -------
    datasets : list of Dataset

    Examples
    --------
    >>> [d.name for d in load_suite("quick")][:2]
    ['hepatitis', 'sonar']
    """
    return [load_dataset(n) for n in _names(subset, None)]


def _copy(ds: Dataset) -> Dataset:
    return replace(ds, X=ds.X.copy(deep=True), y=ds.y.copy())


@functools.lru_cache(maxsize=16)
def _load_builtin(name: str, data_dir: str | None) -> Dataset:
    """Read and verify one dataset; ``data_dir`` points at another copy (tests)."""
    if not isinstance(name, str):
        raise ValueError(f"name must be a string, got {type(name).__name__}.")
    m = _manifest(data_dir)
    rows = m.index[m["name"] == name]
    if len(rows) == 0:
        close = difflib.get_close_matches(name, m["name"].tolist(), n=3)
        hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
        raise ValueError(
            f"name={name!r} is not a built-in dataset.{hint} "
            "See metaeval.datasets.list_datasets()."
        )
    row = m.loc[rows[0]]
    raw = _root(data_dir).joinpath(row["file"]).read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != row["sha256"]:
        raise ValueError(
            f"SHA-256 mismatch for built-in dataset {name!r} ({row['file']}): "
            f"the manifest says {row['sha256']}, the file hashes to {digest}. "
            "The package data are damaged; reinstall metaeval."
        )
    text = gzip.decompress(raw).decode("utf-8")
    header = next(csv.reader(io.StringIO(text[: text.find("\n") + 1])))
    if not header or header[-1] != "class":
        raise ValueError(f"built-in file {row['file']} does not end with a 'class' column.")
    categorical = [c for c in row["categorical_columns"].split("|") if c]
    unknown = sorted(set(categorical) - set(header))
    if unknown:
        raise ValueError(f"manifest lists categorical columns not in {row['file']}: {unknown}.")
    dtype = {c: np.float64 for c in header[:-1]}
    dtype.update({c: object for c in categorical})
    dtype["class"] = np.int8
    frame = pd.read_csv(
        io.StringIO(text),
        dtype=dtype,
        keep_default_na=False,
        na_values=[""],
        **_PRECISE_FLOATS,
    )
    y = frame.pop("class").to_numpy()
    if frame.shape != (row["n_rows"], row["n_features"]):
        raise ValueError(
            f"{row['file']} has shape {frame.shape}, the manifest says "
            f"({row['n_rows']}, {row['n_features']})."
        )
    if not np.isin(y, (0, 1)).all():
        raise ValueError(f"the class column of {row['file']} must hold only 0 and 1.")
    y = y.astype(np.int8)
    y.flags.writeable = False
    source = (
        f"metaeval built-in suite: {row['origin']}. From {row['source']}, "
        f"file {row['source_file']}. {row['url']}"
    )
    return Dataset(
        name=name,
        X=frame,
        y=y,
        categorical=tuple(c for c in header[:-1] if c in set(categorical)),
        family=row["family"] or name,
        sha256=digest,
        source=source,
        class_names=(row["negative_class"], row["positive_class"]),
    )
