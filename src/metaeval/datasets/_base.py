"""The :class:`Dataset` container and the label rules shared by every loader.

A dataset is a feature frame ``X`` plus a 0/1 target ``y`` in which 1 marks
class 1, the class whose probability every score estimates (the papers'
"negative" class; see ``ARCHITECTURE.md``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["Dataset"]


@dataclass(frozen=True, eq=False, repr=False)
class Dataset:
    """A binary classification task: features, 0/1 target and provenance.

    Parameters
    ----------
    name : str
        Short identifier (the manifest name for built-in datasets).
    X : pandas.DataFrame of shape (n_instances, n_features)
        Features in source order. Categorical columns hold Python strings
        (dtype ``object``); numeric columns are ``float64``. Missing values
        are ``NaN`` in both, never the string ``"nan"``.
    y : ndarray of shape (n_instances,), dtype int8
        1 for class 1 (``pos_label``), 0 for class 0.
    categorical : tuple of str
        Names of the categorical columns of ``X``, in column order.
    family : str
        Group of tasks cut from the same base data (keep a family together in
        meta-level cross-validation). Defaults to ``name``.
    sha256 : str
        SHA-256 of the file that was read (for OpenML data: of the content).
    source : str
        Provenance in words.
    class_names : tuple of (str, str), default=("0", "1")
        The original labels of class 0 and class 1, in that order.

    Notes
    -----
    The dataclass is frozen (fields cannot be rebound) and compares by
    identity; ``X`` and ``y`` themselves are ordinary mutable objects.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> ds = Dataset("toy", pd.DataFrame({"a": [0.5, 1.5, 2.5, 3.5]}),
    ...              np.array([0, 1, 1, 0], dtype=np.int8))
    >>> ds.n_instances, ds.n_features, ds.positive_fraction
    (4, 1, 0.5)
    """

    name: str
    X: pd.DataFrame
    y: np.ndarray
    categorical: tuple[str, ...] = ()
    family: str = ""
    sha256: str = ""
    source: str = ""
    class_names: tuple[str, str] = field(default=("0", "1"))

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string, got {self.name!r}.")
        if not isinstance(self.X, pd.DataFrame):
            raise ValueError(f"X must be a pandas DataFrame, got {type(self.X).__name__}.")
        y = np.asarray(self.y)
        if y.ndim != 1 or y.shape[0] != self.X.shape[0]:
            raise ValueError(
                f"y must be 1-dimensional with one label per row of X "
                f"({self.X.shape[0]}), got shape {y.shape}."
            )
        if y.size and not np.isin(y, (0, 1)).all():
            raise ValueError("y must hold only 0 and 1 (1 = class 1).")
        object.__setattr__(self, "y", y.astype(np.int8, copy=False))
        categorical = tuple(self.categorical)
        missing = [c for c in categorical if c not in self.X.columns]
        if missing:
            raise ValueError(f"categorical names columns that are not in X: {missing!r}.")
        object.__setattr__(self, "categorical", categorical)
        if not self.family:
            object.__setattr__(self, "family", self.name)
        object.__setattr__(self, "class_names", tuple(str(c) for c in self.class_names))

    @property
    def n_instances(self) -> int:
        """Number of rows."""
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """Number of feature columns (the target excluded)."""
        return int(self.X.shape[1])

    @property
    def positive_fraction(self) -> float:
        """Fraction of instances in class 1."""
        return float(self.y.mean()) if self.y.size else float("nan")

    @property
    def numeric(self) -> tuple[str, ...]:
        """Names of the numeric (non-categorical) columns, in column order."""
        cats = set(self.categorical)
        return tuple(c for c in self.X.columns if c not in cats)

    def __repr__(self) -> str:
        return (
            f"Dataset(name={self.name!r}, n_instances={self.n_instances}, "
            f"n_features={self.n_features}, n_categorical={len(self.categorical)}, "
            f"positive_fraction={self.positive_fraction:.4f}, family={self.family!r})"
        )


# --------------------------------------------------------------------------- labels


def _label_key(v):
    """Sort key that orders numbers numerically and everything else as text."""
    if isinstance(v, (bool, np.bool_)):
        return (0, float(v), "")
    if isinstance(v, (int, float, np.integer, np.floating)):
        return (0, float(v), "")
    return (1, 0.0, str(v))


def _as_number(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def _as_zero_one(v):
    """``v`` as a number for the default 0/1 rule: also ``"true"``/``"false"`` text (any case).

    CSV files hold booleans as the text ``True``/``False``; Parquet keeps them as
    booleans. Both must give True as class 1.
    """
    if isinstance(v, str) and v.strip().lower() in ("true", "false"):
        return 1.0 if v.strip().lower() == "true" else 0.0
    return _as_number(v)


def _match_label(pos_label, labels):
    """Return the element of ``labels`` that ``pos_label`` designates, or None."""
    for lab in labels:
        if lab == pos_label and type(lab) is type(pos_label):
            return lab
    for lab in labels:
        if str(lab) == str(pos_label):
            return lab
    p = _as_number(pos_label)
    if p is not None:
        for lab in labels:
            q = _as_number(lab)
            if q is not None and q == p:
                return lab
    return None


def binarize_target(values, *, target: str, pos_label=None):
    """Turn a target column into ``(y, class_names)`` with the documented rules.

    Rules: missing labels are an error; exactly two distinct labels are
    required. ``pos_label`` (matched exactly, then by its text, then by
    numeric value, so ``1`` finds ``"1"``) becomes class 1. When ``pos_label``
    is None: if the labels are 0 and 1 (as numbers, text, or booleans, the
    text ``true``/``false`` in any case counting as 1/0), 1 (True) is
    class 1; otherwise the minority label is class 1, and a tie goes to the
    label that sorts last (numbers numerically, text lexicographically) —
    the same choice the 0/1 rule makes. When every label is a number,
    labels equal as numbers are one class (``1``, ``1.0`` and ``"1"``). A
    cell holding a list, a dict or another container is an error naming
    the row.
    """
    arr = np.asarray(values, dtype=object).ravel()
    check_scalars(arr, f"target column {target!r}")
    missing = pd.isna(arr)
    if missing.any():
        raise ValueError(
            f"target column {target!r} has {int(missing.sum())} missing label(s); "
            "every instance needs a class."
        )
    if arr.size == 0:
        raise ValueError("the data have no rows.")
    keys = _label_keys(arr)
    labels, counts = np.unique(keys, return_counts=True)
    # Map each label back to one original value (keeps ints as ints).
    first = {}
    for key, v in zip(keys.tolist(), arr.tolist(), strict=True):
        first.setdefault(key, v)
    originals = [first[t] for t in labels.tolist()]
    key_of = dict(zip(map(id, originals), labels.tolist(), strict=True))
    if len(originals) == 1:
        raise ValueError(
            f"Only one class is present in target column {target!r} ({originals[0]!r}); "
            "metaeval needs two classes."
        )
    if len(originals) > 2:
        shown = ", ".join(repr(v) for v in sorted(originals, key=_label_key)[:5])
        raise ValueError(
            f"target column {target!r} has {len(originals)} classes ({shown}"
            f"{', ...' if len(originals) > 5 else ''}); metaeval handles binary "
            "classification only. Merge the classes into two groups first."
        )
    if pos_label is not None:
        pos = _match_label(pos_label, originals)
        if pos is None:
            raise ValueError(
                f"pos_label={pos_label!r} is not one of the labels in target column "
                f"{target!r}: {sorted(originals, key=_label_key)!r}."
            )
    else:
        nums = [_as_zero_one(v) for v in originals]
        if None not in nums and sorted(nums) == [0.0, 1.0]:
            pos = originals[nums.index(1.0)]
        else:
            n = dict(zip(labels.tolist(), counts.tolist(), strict=True))
            ordered = sorted(originals, key=_label_key)
            pos = min(ordered[::-1], key=lambda v: n[key_of[id(v)]])  # minority; tie -> last
    neg = originals[1] if originals[0] is pos else originals[0]
    y = (keys == key_of[id(pos)]).astype(np.int8)
    return y, (str(neg), str(pos))


def _label_keys(arr) -> np.ndarray:
    """One text key per label: the number when every label is a number (``1``, ``1.0``
    and ``"1"`` are one class), else the text."""
    numbers = [None if isinstance(v, (bool, np.bool_)) else _as_number(v)
               for v in arr.tolist()]
    if None not in numbers:
        return np.array([repr(float(v)) for v in numbers], dtype=object).astype(str)
    return arr.astype(str)


def strip_text(col: pd.Series) -> pd.Series:
    """``col`` with the surrounding spaces of its text values dropped and bytes decoded
    (UTF-8, as scipy's ARFF reader leaves nominal values), other values kept, as a CSV
    file's cells are read. A pandas categorical column comes back as objects (two
    categories may become one)."""
    if col.dtype.kind != "O":
        return col
    values = col.to_numpy(dtype=object)
    text = np.fromiter((isinstance(v, (str, bytes)) for v in values.tolist()), bool,
                       values.size)
    if not text.any():
        return col
    out = values.copy()
    out[text] = [(v.decode("utf-8", "replace") if isinstance(v, bytes) else v).strip()
                 for v in values[text].tolist()]
    dtype = object if isinstance(col.dtype, pd.CategoricalDtype) else col.dtype
    return pd.Series(out, index=col.index, name=col.name, dtype=dtype)


def check_scalars(values, what: str) -> None:
    """Raise ``ValueError`` when a cell of ``values`` holds a container (a list, a dict,
    an array...) instead of one number or text, naming ``what`` and the row."""
    for row, v in enumerate(np.asarray(values, dtype=object).ravel().tolist()):
        if isinstance(v, (list, tuple, dict, set, frozenset, np.ndarray, pd.Series,
                          pd.DataFrame)):
            shown = repr(v)
            shown = shown if len(shown) <= 40 else shown[:37] + "..."
            raise ValueError(
                f"{what} holds a {type(v).__name__} in row {row + 1} ({shown}); every cell "
                "must hold one number or one text value."
            )


def check_values(X: pd.DataFrame, y, *, target: str = "class", class_names=("0", "1"),
                 source: str = "the data") -> None:
    """Refuse data a study could only fail on, or silently get wrong; raise ``ValueError``.

    * a class with fewer than 2 rows (stratified cross-validation needs 2 per class);
    * an infinite value in a numeric feature (no estimator accepts it);
    * a feature that is a copy of the target (see :func:`check_no_target_copy`).

    The message names ``source``, the column and the row (1-based, header not counted).
    :func:`metaeval.study.Study` runs it on every dataset of its own
    (:func:`~metaeval.datasets.read_dataset` only refuses copies of the target, so that
    any file can still be read and looked at).
    """
    y = np.asarray(y)
    for k in (0, 1):
        rows = np.flatnonzero(y == k)
        if rows.size < 2:
            where = f" (row {rows[0] + 1})" if rows.size else ""
            raise ValueError(
                f"{source}: class {class_names[k]!r} of target column {target!r} has "
                f"{rows.size} row{'s' if rows.size != 1 else ''}{where}; stratified "
                "cross-validation needs at least 2 rows of each class."
            )
    for column in X.columns:
        values = X[column]
        if values.dtype.kind != "f":
            continue
        infinite = np.isinf(values.to_numpy())
        if infinite.any():
            row = int(np.argmax(infinite))
            more = int(infinite.sum()) - 1
            raise ValueError(
                f"{source}: column {column!r} holds an infinite value ({values.iloc[row]}) in "
                f"row {row + 1}{f' (and {more} more)' if more else ''}; replace it with a "
                "finite number, or leave the cell empty for a missing value."
            )
    check_no_target_copy(X, y, target=target, source=source)


def check_no_target_copy(X: pd.DataFrame, y, *, target: str = "class",
                         source: str = "the data") -> None:
    """Raise ``ValueError`` if a feature is a copy of the target.

    A copy takes one value on every row of class 0 and another on every row of class 1
    (the target itself under another name, or recoded): it would leak the label into
    the features, and every model would look perfect.
    """
    y = np.asarray(y)
    leaks = [c for c in X.columns if _copies_target(X[c], y)]
    if leaks:
        raise ValueError(
            f"{source}: feature{'s' if len(leaks) > 1 else ''} "
            f"{', '.join(map(repr, leaks))} {'are copies' if len(leaks) > 1 else 'is a copy'} "
            f"of target column {target!r} (one value per class on every row), which would "
            "leak the label; remove or rename the column."
        )


def _copies_target(values: pd.Series, y: np.ndarray) -> bool:
    """Whether a feature takes one value on class 0 and another on class 1, on every row
    (not asked of a class of one row, where any feature would qualify)."""
    if values.isna().any() or min((y == 0).sum(), (y == 1).sum()) < 2:
        return False
    if values.dtype.kind in "biuf":
        # fast exit: two different numbers in a class are two different texts (a
        # float's text is unique to it), so no copy; the texts decide the rest
        numbers = values.to_numpy()
        for k in (0, 1):
            part = numbers[y == k]
            if not (part == part[0]).all():
                return False
    text = values.astype(str).to_numpy()
    zero, one = np.unique(text[y == 0]), np.unique(text[y == 1])
    return zero.size == 1 and one.size == 1 and zero[0] != one[0]


def resolve_column(columns: Sequence[str], target: str, *, what: str = "target") -> str:
    """Find ``target`` in ``columns``: exact match, else a unique case-insensitive one."""
    columns = [str(c) for c in columns]
    if target in columns:
        return target
    folded = [c for c in columns if c.lower() == str(target).lower()]
    if len(folded) == 1:
        return folded[0]
    import difflib

    # the names closest to the one asked for first, then the rest in file order
    close = difflib.get_close_matches(str(target).lower(), [c.lower() for c in columns],
                                      n=5, cutoff=0.5)
    first = [c for low in close for c in columns if c.lower() == low]
    first = list(dict.fromkeys(first))
    ordered = first + [c for c in columns if c not in first]
    shown = ", ".join(repr(c) for c in ordered[:20])
    hint = f" (closest: {', '.join(repr(c) for c in first)})" if first else ""
    raise ValueError(
        f"{what} column {target!r} is not in the data{hint}; the {len(columns)} columns "
        f"are: {shown}{f', ... ({len(columns) - 20} more)' if len(columns) > 20 else ''}."
    )


def content_sha256(frame: pd.DataFrame) -> str:
    """SHA-256 of a frame's content (used when there is no file to hash)."""
    h = pd.util.hash_pandas_object(frame, index=False).to_numpy()
    cols = "\x1f".join(map(str, frame.columns)).encode()
    return hashlib.sha256(cols + h.tobytes()).hexdigest()


def to_object_strings(col: pd.Series) -> pd.Series:
    """Return ``col`` as object dtype of ``str`` with missing values as ``NaN``."""
    values = col.to_numpy(dtype=object, na_value=np.nan)
    out = np.empty(values.shape[0], dtype=object)
    miss = pd.isna(values)
    out[miss] = np.nan
    out[~miss] = [v if isinstance(v, str) else str(v) for v in values[~miss].tolist()]
    return pd.Series(out, index=col.index, name=col.name, dtype=object)
