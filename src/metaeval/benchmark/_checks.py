"""Private helpers: check the long frames that the benchmark analytics take.

Leaf module (imports nothing of metaeval), so that every other module of
:mod:`metaeval.benchmark`, :mod:`._metrics` included, can use it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def check_frame(frame, name, required):
    """Raise ``ValueError`` unless ``frame`` is a non-empty frame with ``required`` columns."""
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}.")
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{name} lacks the column(s) {missing}; expected at least {list(required)}."
        )
    if len(frame) == 0:
        raise ValueError(f"{name} is empty.")


def check_numeric(values, name, column, *, allow_nan=False):
    """Return ``values`` as float64, raising if non-numeric or (unless allowed) NaN/inf."""
    values = np.asarray(values)
    if values.dtype.kind not in "biuf":
        raise ValueError(f"{name}[{column!r}] must be numeric, got dtype {values.dtype}.")
    values = values.astype(np.float64, copy=False)
    bad = np.isinf(values) if allow_nan else ~np.isfinite(values)
    if bad.any():
        what = "infinite" if allow_nan else "NaN or infinite"
        raise ValueError(f"{name}[{column!r}] contains {what} values.")
    return values
