"""OpenML datasets and suites by id, through the optional ``openml`` package.

Nothing here runs unless called: metaeval never downloads by default. Install
the extra with ``pip install "metaeval[openml]"``. Before asking OpenML for
anything, the server is probed with a short timeout (name lookup included),
so an offline machine fails in seconds with a clear message instead of
hanging in a retry loop.
"""

from __future__ import annotations

import importlib
import socket
import threading
from urllib.parse import urlparse

import numpy as np
import pandas as pd

from metaeval.datasets._base import (
    Dataset,
    binarize_target,
    content_sha256,
    resolve_column,
    to_object_strings,
)

__all__ = ["load_openml", "load_openml_suite"]

_INSTALL_HINT = (
    "Loading OpenML data needs the optional 'openml' package: pip install \"metaeval[openml]\"."
)


def _import_openml():
    try:
        return importlib.import_module("openml")
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc


def _probe(url: str, timeout: float) -> None:
    """Open (and close) a TCP connection to the server of ``url`` within ``timeout`` s.

    Runs in a daemon thread so that a stuck name lookup cannot outlast the
    timeout either. Raises ConnectionError on failure.
    """
    parsed = urlparse(url)
    host = parsed.hostname or "www.openml.org"
    port = parsed.port or (443 if parsed.scheme != "http" else 80)
    result: dict = {}

    def attempt():
        try:
            with socket.create_connection((host, port), timeout=timeout):
                result["ok"] = True
        except OSError as exc:
            result["error"] = exc

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout)
    if not result.get("ok"):
        why = result.get("error", f"no answer within {timeout:g} s")
        raise ConnectionError(
            f"OpenML server {host}:{port} cannot be reached ({why}). metaeval does not "
            "download data offline; use the built-in suite (metaeval.datasets.load_suite) "
            "or read_dataset() on a local file."
        )


def _prepare(openml, timeout, cache_dir):
    if not (isinstance(timeout, (int, float)) and timeout > 0):
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}.")
    config = getattr(openml, "config", None)
    if cache_dir is not None and config is not None:
        if hasattr(config, "set_root_cache_directory"):
            config.set_root_cache_directory(str(cache_dir))
        else:
            config.cache_directory = str(cache_dir)
    if config is not None and hasattr(config, "connection_n_retries"):
        config.connection_n_retries = 1
    server = getattr(config, "server", None) or "https://www.openml.org/api/v1/xml"
    _probe(server, float(timeout))


def load_openml(
    data_id: int,
    *,
    target: str | None = None,
    pos_label=None,
    timeout: float = 5.0,
    cache_dir=None,
) -> Dataset:
    """Load one OpenML dataset by id as a binary :class:`Dataset`.

    Parameters
    ----------
    data_id : int
        The OpenML dataset id (e.g. 37 for Pima diabetes).
    target : str, optional
        The class column; default: the dataset's default target attribute.
    pos_label : scalar, optional
        Label of class 1; same rule as :func:`read_dataset` when None (0/1
        labels -> 1, else the minority label, ties -> the label sorting last).
    timeout : float, default=5.0
        Seconds allowed for reaching the server before giving up.
    cache_dir : path-like, optional
        The ``openml`` package's cache folder.

    Returns
    -------
    dataset : Dataset
        Features flagged categorical by OpenML become strings (dtype
        ``object``), the rest ``float64``. ``sha256`` hashes the loaded
        content (there is no single file to hash).

    Raises
    ------
    ImportError
        If the ``openml`` package is not installed (install ``metaeval[openml]``).
    ConnectionError
        If the OpenML server cannot be reached within ``timeout`` seconds.
    ValueError
        For a bad ``data_id`` or ``timeout``, or a target that is not binary.

    Examples
    --------
    >>> ds = load_openml(37)  # needs the network and openml  # doctest: +SKIP
    >>> ds.name, ds.X.shape  # doctest: +SKIP
    ('diabetes', (768, 8))
    """
    if isinstance(data_id, bool) or not isinstance(data_id, (int, np.integer)) or data_id < 1:
        raise ValueError(f"data_id must be a positive integer, got {data_id!r}.")
    openml = _import_openml()
    _prepare(openml, timeout, cache_dir)
    return _convert(openml, int(data_id), target, pos_label)


def load_openml_suite(
    suite_id,
    *,
    timeout: float = 5.0,
    cache_dir=None,
    skip_non_binary: bool = True,
) -> list[Dataset]:
    """Load every dataset of an OpenML benchmark suite (e.g. ``"OpenML-CC18"``).

    Parameters
    ----------
    suite_id : int or str
        Suite id or alias.
    timeout : float, default=5.0
        Seconds allowed for reaching the server before giving up.
    cache_dir : path-like, optional
    skip_non_binary : bool, default=True
        Leave out datasets whose target does not have exactly two classes
        (otherwise their ValueError propagates).

    Returns
    -------
    datasets : list of Dataset

    Raises
    ------
    ImportError, ConnectionError
        As :func:`load_openml`.
    """
    openml = _import_openml()
    _prepare(openml, timeout, cache_dir)
    suite = openml.study.get_suite(suite_id)
    out = []
    for data_id in list(suite.data):
        try:
            out.append(_convert(openml, int(data_id), None, None))
        except ValueError:
            if not skip_non_binary:
                raise
    return out


def _convert(openml, data_id: int, target, pos_label) -> Dataset:
    ds = openml.datasets.get_dataset(data_id)
    if target is None:
        target = ds.default_target_attribute
        if not target or "," in str(target):
            raise ValueError(
                f"OpenML dataset {data_id} has no single default target ({target!r}); "
                "pass target=."
            )
    X, y, categorical_indicator, names = ds.get_data(target=None)
    if not isinstance(X, pd.DataFrame):
        X = pd.DataFrame(X, columns=list(names))
    X.columns = [str(c) for c in X.columns]
    target_col = resolve_column(X.columns, target)
    y01, class_names = binarize_target(
        X[target_col].to_numpy(dtype=object), target=target_col, pos_label=pos_label
    )
    flags = dict(zip([str(n) for n in names], list(categorical_indicator), strict=False))
    ignored = set(getattr(ds, "ignore_attribute", None) or [])
    row_id = getattr(ds, "row_id_attribute", None)
    if row_id:
        ignored.add(row_id)
    cols, cats = {}, []
    for c in X.columns:
        if c == target_col or c in ignored:
            continue
        col = X[c]
        is_cat = bool(flags.get(c, False)) or col.dtype.kind not in "biuf"
        if is_cat:
            cols[c] = to_object_strings(col)
            cats.append(c)
        else:
            cols[c] = col.astype(np.float64)
    features = pd.DataFrame(cols).reset_index(drop=True)
    name = str(getattr(ds, "name", f"openml-{data_id}"))
    return Dataset(
        name=name,
        X=features,
        y=y01,
        categorical=tuple(cats),
        family=name,
        sha256=content_sha256(features.assign(**{"\x00target": y01})),
        source=f"OpenML dataset {data_id} ({name}, version {getattr(ds, 'version', '?')}), "
        f"target {target_col!r}",
        class_names=class_names,
    )
