"""A pandas DataFrame (or a file, or a Dataset) as a typed :class:`Dataset`.

A notebook user holds a DataFrame: features and a class column, text columns often
left as ``object`` and the class as text (``"yes"``/``"no"``). :func:`as_dataset` types
it as :func:`~metaeval.datasets.read_dataset` types a CSV file: a column is numeric
when every present value is a number (booleans too), categorical otherwise (text,
pandas categories); missing values become ``NaN``; the class column becomes a 0/1
``y`` by the same label rules (``pos_label``, else 1 of 0/1, else the minority label).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import pandas as pd

from metaeval.datasets._base import (
    Dataset,
    binarize_target,
    check_no_target_copy,
    check_scalars,
    content_sha256,
    resolve_column,
    strip_text,
    to_object_strings,
)

__all__ = ["as_dataset"]


def as_dataset(data, *, target: str = "class", pos_label=None, name: str | None = None,
               categorical: Sequence[str] | None = None) -> Dataset:
    """A typed :class:`Dataset` from a DataFrame, a data file or a Dataset.

    Parameters
    ----------
    data : pandas.DataFrame, str, path-like or Dataset
        A frame holding the features and the class column ``target``; a file, read by
        :func:`~metaeval.datasets.read_dataset`; or a Dataset, returned with any text
        or category column it does not declare categorical declared (and its values as
        strings).
    target : str, default="class"
        The class column of a frame or a file: an exact match first, then a unique
        case-insensitive one.
    pos_label : scalar, optional
        The label that becomes class 1 (see :func:`~metaeval.datasets.read_dataset`); not
        for a Dataset, whose ``y`` is already 0/1.
    name : str, optional
        The dataset's name; default the file's name without its extension, or
        ``"data"`` for a frame.
    categorical : sequence of str, optional
        Feature columns to take as categorical even when every value is a number.

    Returns
    -------
    Dataset
        Numeric features as ``float64``, categorical ones as Python strings, missing
        values ``NaN``, ``y`` 0/1 (``int8``); a frame's ``sha256`` is that of its
        content.

    Raises
    ------
    ValueError
        For anything else than a frame, a path or a Dataset; a ``target`` that is not
        a column (the closest names are given); a class column with missing labels,
        one class or more than two; a ``pos_label`` that is not a label; no feature
        column; duplicated column names; a column of dates, durations or periods
        (typed, or as objects), of complex numbers, or with a cell holding a list, a
        dict or another container; a feature that is a copy of the class.

    Notes
    -----
    Values are read as a CSV file's would be: surrounding spaces of text dropped,
    bytes decoded as UTF-8, numbers held as text, ``Decimal`` or ``Fraction`` taken as
    numbers, and class labels that are all numbers compared as numbers (``1`` and
    ``1.0`` are one class).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"city": ["lyon", "nice", None, "lyon"],
    ...                    "calls": [3, 1, 4, 1], "churn": ["yes", "no", "no", "no"]})
    >>> ds = as_dataset(df, target="churn")
    >>> ds.categorical, ds.y.tolist(), ds.class_names
    (('city',), [1, 0, 0, 0], ('no', 'yes'))
    >>> ds.X.dtypes.astype(str).tolist()
    ['object', 'float64']
    """
    if isinstance(categorical, str):
        raise ValueError("categorical must be a sequence of column names, not a string.")
    forced = [] if categorical is None else [str(c) for c in categorical]
    if isinstance(data, Dataset):
        if pos_label is not None:
            raise ValueError("pos_label applies to a DataFrame or a file; a Dataset's y is "
                             "already 0/1 (1 = class 1).")
        return _declared(data, forced)
    if isinstance(data, (str, os.PathLike)):
        from metaeval.datasets.readers import read_dataset

        return read_dataset(data, target=target, pos_label=pos_label, name=name,
                            categorical=categorical)
    if not isinstance(data, pd.DataFrame):
        raise ValueError("data must be a pandas DataFrame, a path to a data file or a "
                         f"metaeval Dataset, got {type(data).__name__}.")
    if name is not None and (not isinstance(name, str) or not name):
        raise ValueError(f"name must be a non-empty string, got {name!r}.")
    frame = data.reset_index(drop=True)
    names = [str(c) for c in frame.columns]
    duplicated = sorted({c for c in names if names.count(c) > 1})
    if duplicated:
        raise ValueError(f"the DataFrame has duplicated column names: {duplicated!r}; give "
                         "every column its own name.")
    frame.columns = names
    if frame.shape[0] == 0:
        raise ValueError("the DataFrame has no rows.")
    target_col = resolve_column(names, str(target))
    check_scalars(frame[target_col].to_numpy(dtype=object), f"target column {target_col!r}")
    y, class_names = binarize_target(strip_text(frame[target_col]).to_numpy(dtype=object),
                                     target=target_col, pos_label=pos_label)
    features = frame.drop(columns=[target_col])
    if features.shape[1] == 0:
        raise ValueError("the DataFrame has no feature columns besides the target "
                         f"{target_col!r}.")
    unknown = [c for c in forced if c not in features.columns]
    if unknown:
        raise ValueError(f"categorical names columns that are not features: {unknown!r}.")
    X, cats = _typed(features, forced)
    check_no_target_copy(X, y, target=target_col, source="the DataFrame")
    return Dataset(name=name or "data", X=X, y=y, categorical=cats,
                   sha256=content_sha256(frame), source="a pandas DataFrame",
                   class_names=class_names)


def _typed(features: pd.DataFrame, forced) -> tuple[pd.DataFrame, tuple]:
    """Numeric columns as float64, the others as object strings (``NaN`` missing)."""
    from metaeval.datasets.readers import _try_float

    columns, cats = {}, []
    for c in features.columns:
        col = features[c]
        kind = col.dtype.kind
        category = isinstance(col.dtype, pd.CategoricalDtype)
        if kind in "mM" or isinstance(col.dtype, pd.PeriodDtype):
            raise ValueError(f"column {c!r} holds dates or durations ({col.dtype}); "
                             "convert it to numbers or text first.")
        if kind == "c":
            raise ValueError(f"column {c!r} holds complex numbers ({col.dtype}); convert "
                             "it to real numbers (e.g. its modulus) or text first.")
        if kind == "O":
            _check_cells(col)
            col = strip_text(col)  # as a CSV file's cells are read
        numeric = None
        if c not in forced and not category:
            if kind in "biuf":
                numeric = pd.Series(col.to_numpy(dtype=np.float64, na_value=np.nan),
                                    index=col.index, name=c)
            else:  # text, objects, pandas' nullable types: numbers when all are numbers
                numeric = _try_float(col)
        if numeric is None:
            columns[c] = to_object_strings(col)
            cats.append(c)
        else:
            columns[c] = numeric
    X = pd.DataFrame(columns, index=pd.RangeIndex(features.shape[0]),
                     columns=list(features.columns))
    return X, tuple(cats)


def _check_cells(col: pd.Series) -> None:
    """Refuse a text column's cell that is no number or text: a container, a date or a
    duration, a complex number (naming the column and the row)."""
    import datetime

    check_scalars(col.to_numpy(dtype=object), f"column {col.name!r}")
    for row, v in enumerate(col.tolist()):
        if isinstance(v, (datetime.date, datetime.time, datetime.timedelta, pd.Period,
                          np.datetime64, np.timedelta64)) and not pd.isna(v):
            raise ValueError(f"column {col.name!r} holds dates or durations ({v!r} in row "
                             f"{row + 1}); convert it to numbers or text first.")
        if isinstance(v, (complex, np.complexfloating)):
            raise ValueError(f"column {col.name!r} holds complex numbers ({v!r} in row "
                             f"{row + 1}); convert it to real numbers (e.g. its modulus) "
                             "or text first.")


def _declared(dataset: Dataset, forced) -> Dataset:
    """``dataset``, with its undeclared text and category columns declared categorical
    (the same object when there are none)."""
    unknown = [c for c in forced if c not in dataset.X.columns]
    if unknown:
        raise ValueError(f"categorical names columns that are not features: {unknown!r}.")
    declared = set(dataset.categorical)
    numeric_kinds = "biuf"
    todo = [c for c in dataset.X.columns if c not in declared and (
        c in forced or dataset.X[c].dtype.kind not in numeric_kinds)]
    if not todo:
        return dataset
    X, cats = _typed(dataset.X[todo], forced)
    frame = dataset.X.copy()
    for c in todo:
        frame[c] = X[c] if c in cats else X[c].astype(np.float64)
    new = set(declared) | set(cats)
    return Dataset(name=dataset.name, X=frame, y=dataset.y,
                   categorical=tuple(c for c in frame.columns if c in new),
                   family=dataset.family, sha256=dataset.sha256, source=dataset.source,
                   class_names=dataset.class_names)
