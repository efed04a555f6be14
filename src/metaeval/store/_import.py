"""Importing out-of-fold predictions made elsewhere into a store, without refitting.

Abdulrahman & Brazdil (2014) argue for re-using stored results rather than running the
algorithms again; OpenML keeps the per-instance predictions of its runs. Three formats:

* ``"openml"`` -- an OpenML run's ``predictions.arff``: columns ``repeat``, ``fold``,
  ``row_id``, ``prediction`` and one ``confidence.<class>`` per class (``correct``, the
  true class, is optional and checked against the store). One file is one algorithm on
  one dataset. The score is the confidence of the class given as ``pos_label`` (for a
  built-in dataset, its class 1). Rows whose ``prediction`` is not a class of highest
  confidence -- a known OpenML problem -- are reported, not imported.
* ``"long"`` -- a tidy table (CSV or Parquet): ``dataset``, ``row``, ``fold``,
  ``algorithm``, ``score``, optional ``repeat`` (default 0), ``y`` (checked against the
  store) and ``fit_time`` (seconds per fold, repeated on the fold's rows).
* ``"wide"`` -- rows x algorithms: ``dataset``, ``row``, ``fold``, optional ``repeat``
  and ``y``, then one score column per algorithm.

Everything is checked before anything is written, and the whole import is one
transaction: duplicated rows, rows the dataset does not have, rows left out, folds
outside the study's, NaN or out-of-range scores, classes that differ from the stored
ones, a task already in the store -- each is a ValueError naming the first offending
rows, and the store is left as it was.
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

__all__ = ["FORMATS", "read_predictions", "import_predictions"]

FORMATS = ("openml", "long", "wide")
_KEYS = ("dataset", "algorithm", "repeat", "fold", "row")
_SHOW = 5  # offending rows named in an error


# ----------------------------------------------------------------------------- reading
def _read_arff(path: Path) -> pd.DataFrame:
    """A dense ARFF file as a frame (``?`` -> missing); sparse ARFF is refused."""
    names, data_lines, in_data = [], [], False
    try:
        text = path.read_text(encoding="utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise ValueError(f"source {str(path)!r} is not an ARFF text file: {exc}") from None
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("%"):
            continue
        if in_data:
            if stripped.startswith("{"):
                raise ValueError(f"source {str(path)!r}: sparse ARFF data is not supported.")
            data_lines.append(stripped)
            continue
        head = stripped.split(None, 1)[0].lower()
        if head == "@attribute":
            rest = stripped.split(None, 1)[1] if len(stripped.split(None, 1)) > 1 else ""
            if rest[:1] in "'\"":
                q = rest[0]
                end = rest.index(q, 1)
                names.append(rest[1:end])
            else:
                names.append(rest.split(None, 1)[0] if rest else "")
        elif head == "@data":
            in_data = True
    if not names or not in_data:
        raise ValueError(f"source {str(path)!r} is not an ARFF file (no @attribute or @data "
                         "section).")
    rows = list(csv.reader(io.StringIO("\n".join(data_lines)), quotechar="'",
                           skipinitialspace=True))
    bad = [i for i, r in enumerate(rows) if len(r) != len(names)]
    if bad:
        raise ValueError(f"source {str(path)!r}: data line {bad[0] + 1} has "
                         f"{len(rows[bad[0]])} values for {len(names)} attributes.")
    frame = pd.DataFrame(rows, columns=names, dtype=object).replace("?", np.nan)
    return frame


def _read_table(path: Path) -> pd.DataFrame:
    suffix = path.suffix.lower()
    try:
        if suffix in (".parquet", ".pq"):
            return pd.read_parquet(path)
        if suffix in (".csv", ".txt", ".gz"):
            return pd.read_csv(path)
    except (OSError, ValueError, pa.ArrowException) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise ValueError(f"source {str(path)!r} cannot be read as a {suffix[1:]} table: "
                         f"{str(exc).splitlines()[0]}") from None
    raise ValueError(f"source {str(path)!r}: unknown file type {suffix!r}; give a .arff, "
                     ".csv or .parquet file.")


def _guess_format(path: Path | None, frame: pd.DataFrame | None) -> str:
    if path is not None and path.suffix.lower() == ".arff":
        return "openml"
    if frame is not None and {"algorithm", "score"} <= set(frame.columns):
        return "long"
    return "wide"


def _need(frame: pd.DataFrame, columns, fmt: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"a {fmt} predictions table needs the column(s) {missing}; it has "
                         f"{list(frame.columns)[:12]}.")


def _integers(values: pd.Series, what: str) -> np.ndarray:
    numbers = pd.to_numeric(values, errors="coerce")
    bad = np.flatnonzero(~np.isfinite(numbers.to_numpy(dtype=np.float64))
                         | (numbers.to_numpy(dtype=np.float64) % 1 != 0))
    if bad.size:
        raise ValueError(f"column {what!r} must hold integers; lines {_lines(bad)} hold "
                         f"{[values.iloc[i] for i in bad[:_SHOW]]}.")
    return numbers.to_numpy(dtype=np.int64)


def _lines(index) -> str:
    index = list(index)
    shown = ", ".join(str(int(i)) for i in index[:_SHOW])
    return shown + (f" (and {len(index) - _SHOW} more)" if len(index) > _SHOW else "")


def _from_openml(frame, *, dataset, algorithm, pos_label) -> pd.DataFrame:
    _need(frame, ("repeat", "fold", "row_id", "prediction"), "OpenML")
    confidence = {c[len("confidence."):]: c for c in frame.columns
                  if c.startswith("confidence.")}
    if len(confidence) < 2:
        raise ValueError("an OpenML predictions file needs a confidence.<class> column per "
                         f"class; it has {list(frame.columns)}.")
    if not dataset or not algorithm:
        raise ValueError("dataset and algorithm must be given for an OpenML predictions "
                         "file (it holds one run of one algorithm on one dataset).")
    if pos_label is None:
        raise ValueError("pos_label must name the OpenML class that is class 1 (one of "
                         f"{sorted(confidence)}).")
    pos_label = str(pos_label)
    if pos_label not in confidence:
        raise ValueError(f"pos_label={pos_label!r} is not a class of the file; its classes: "
                         f"{sorted(confidence)}.")
    classes = list(confidence)
    conf = frame[[confidence[c] for c in classes]].apply(pd.to_numeric, errors="coerce")
    conf = conf.to_numpy(dtype=np.float64)
    prediction = frame["prediction"].astype(str).to_numpy()
    top = np.nanmax(np.where(np.isnan(conf), -np.inf, conf), axis=1)
    chosen = np.array([c in classes for c in prediction])
    col = np.array([classes.index(c) if c in classes else 0 for c in prediction])
    agrees = chosen & (conf[np.arange(len(frame)), col] >= top - 1e-9)
    agrees &= np.isfinite(conf).all(axis=1)
    bad = np.flatnonzero(~agrees)
    if bad.size:
        rid = frame["row_id"].to_numpy()
        raise ValueError(
            f"{bad.size} rows of the OpenML predictions disagree with their confidences (the "
            "prediction is not a class of highest confidence, or a confidence is missing): "
            f"row_id {_lines(rid[bad])}; none imported."
        )
    out = pd.DataFrame({
        "dataset": dataset, "algorithm": algorithm,
        "repeat": _integers(frame["repeat"], "repeat"),
        "fold": _integers(frame["fold"], "fold"),
        "row": _integers(frame["row_id"], "row_id"),
        "score": conf[:, classes.index(pos_label)],
    })
    if "correct" in frame.columns:
        out["y"] = (frame["correct"].astype(str).to_numpy() == pos_label).astype(np.int64)
    return out


def _from_long(frame, *, dataset, algorithm) -> pd.DataFrame:
    frame = frame.copy()
    if dataset and "dataset" not in frame.columns:
        frame["dataset"] = dataset
    if algorithm and "algorithm" not in frame.columns:
        frame["algorithm"] = algorithm
    _need(frame, ("dataset", "row", "fold", "algorithm", "score"), "long")
    out = pd.DataFrame({
        "dataset": frame["dataset"].astype(str), "algorithm": frame["algorithm"].astype(str),
        "repeat": _integers(frame["repeat"], "repeat") if "repeat" in frame else 0,
        "fold": _integers(frame["fold"], "fold"), "row": _integers(frame["row"], "row"),
        "score": pd.to_numeric(frame["score"], errors="coerce").astype(np.float64),
    })
    for extra in ("y", "fit_time"):
        if extra in frame.columns:
            out[extra] = pd.to_numeric(frame[extra], errors="coerce").to_numpy()
    return out


def _from_wide(frame, *, dataset) -> pd.DataFrame:
    frame = frame.copy()
    if dataset and "dataset" not in frame.columns:
        frame["dataset"] = dataset
    _need(frame, ("dataset", "row", "fold"), "wide")
    keys = [c for c in ("dataset", "row", "fold", "repeat", "y") if c in frame.columns]
    algorithms = [c for c in frame.columns if c not in keys]
    if not algorithms:
        raise ValueError("a wide predictions table needs one score column per algorithm "
                         "besides dataset, row, fold (repeat, y); it has none.")
    long = frame.melt(id_vars=keys, value_vars=algorithms, var_name="algorithm",
                      value_name="score")
    return _from_long(long, dataset=None, algorithm=None)


def read_predictions(source, *, format: str | None = None, dataset: str | None = None,
                     algorithm: str | None = None, pos_label=None) -> pd.DataFrame:
    """Read predictions in any of :data:`FORMATS` into the long form (no store checks).

    Returns
    -------
    frame : DataFrame
        Columns dataset, algorithm, repeat, fold, row, score and, when the source has
        them, y and fit_time.
    """
    if format is not None and format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {format!r}.")
    path = None
    if isinstance(source, pd.DataFrame):
        frame = source
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise ValueError(f"source {str(path)!r} is not a file.")
        fmt = format or _guess_format(path, None)
        frame = _read_arff(path) if (fmt == "openml" and path.suffix.lower() == ".arff"
                                     ) else _read_table(path)
    else:
        raise ValueError(f"source must be a file path or a DataFrame, got "
                         f"{type(source).__name__}.")
    fmt = format or _guess_format(path, frame)
    if fmt == "openml":
        return _from_openml(frame, dataset=dataset, algorithm=algorithm, pos_label=pos_label)
    if fmt == "long":
        return _from_long(frame, dataset=dataset, algorithm=algorithm)
    return _from_wide(frame, dataset=dataset)


# ----------------------------------------------------------------------------- checking
def _stored_labels(con, dataset_id: int, n: int) -> np.ndarray | None:
    rows = con.execute(
        "SELECT row, any_value(y) FROM scores WHERE dataset_id = ? GROUP BY row ORDER BY row",
        [dataset_id]).fetchall()
    if len(rows) != n:
        return None
    return np.array([r[1] for r in rows], dtype=np.int64)


def _builtin(name: str):
    from metaeval.datasets import list_datasets, load_dataset

    return load_dataset(name) if name in list_datasets("full") else None


def _check_task(key, part: pd.DataFrame, n: int, labels, n_folds) -> None:
    dataset, algorithm, repeat = key
    where = f"dataset {dataset!r}, algorithm {algorithm!r}, repeat {repeat}"
    rows = part["row"].to_numpy()
    dup = part.index[part.duplicated("row", keep="first")]
    if len(dup):
        raise ValueError(f"{where}: rows {_lines(part.loc[dup, 'row'])} appear more than "
                         "once; none imported.")
    unknown = rows[(rows < 0) | (rows >= n)]
    if unknown.size:
        raise ValueError(f"{where}: rows {_lines(np.sort(unknown))} are not rows of the "
                         f"dataset (it has rows 0..{n - 1}); none imported.")
    if rows.size != n:
        missing = np.setdiff1d(np.arange(n), rows)
        raise ValueError(f"{where}: rows {_lines(missing)} have no score ({rows.size} of "
                         f"{n} rows given); a task needs every row. None imported.")
    score = part["score"].to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(score) | (score < 0) | (score > 1))
    if bad.size:
        raise ValueError(f"{where}: rows {_lines(rows[bad])} have scores that are NaN or "
                         f"outside [0, 1] ({score[bad][:_SHOW].tolist()}); none imported.")
    folds = part["fold"].to_numpy()
    bad = np.flatnonzero((folds < 0) | (folds >= n_folds))
    if bad.size:
        raise ValueError(f"{where}: rows {_lines(rows[bad])} are in folds "
                         f"{sorted(set(folds[bad].tolist()))[:_SHOW]}, which do not exist "
                         f"(folds 0..{n_folds - 1}); none imported.")
    if "y" in part.columns and labels is not None:
        given = part["y"].to_numpy()
        bad = np.flatnonzero(given != labels[rows])
        if bad.size:
            raise ValueError(f"{where}: rows {_lines(rows[bad])} have a class that differs "
                             "from the stored dataset's; none imported.")


def import_predictions(store, source, *, format: str | None = None,
                       dataset: str | None = None, algorithm: str | None = None,
                       pos_label=None, folds: int | None = None) -> pd.DataFrame:
    """Check predictions made elsewhere and write them to ``store`` in one transaction.

    See :meth:`metaeval.store.Store.import_predictions`.
    """
    from metaeval.store._store import _rollback

    if folds is not None and (isinstance(folds, bool) or not isinstance(folds, int)
                              or folds < 2):
        raise ValueError(f"folds must be an integer >= 2, got {folds!r}.")
    arff = isinstance(source, (str, os.PathLike)) and str(source).lower().endswith(".arff")
    if (format == "openml" or (format is None and arff)) and pos_label is None and dataset:
        ds = _builtin(dataset)
        if ds is not None:
            pos_label = ds.class_names[1]
    frame = read_predictions(source, format=format, dataset=dataset, algorithm=algorithm,
                             pos_label=pos_label)
    if frame.empty:
        raise ValueError("the source holds no predictions.")
    con = store._writer()
    config = con.execute("SELECT value FROM meta WHERE key = 'study'").fetchall()
    n_folds = folds or (json.loads(config[0][0]).get("folds") if config else None)
    known = {name: (int(i), int(n)) for name, i, n in
             con.execute("SELECT name, id, n_instances FROM datasets").fetchall()}
    algos = {name: est for name, est in
             con.execute("SELECT name, estimator FROM algorithms").fetchall()}
    new_datasets, new_algorithms, checked = [], [], []
    for name in pd.unique(frame["dataset"]):
        if name not in known:
            ds = _builtin(name)
            if ds is None:
                raise ValueError(f"dataset {name!r} is neither in the store nor a built-in "
                                 "dataset; run a study on it first (its rows and classes "
                                 "are needed to check the predictions).")
            new_datasets.append(ds)
    for name in pd.unique(frame["algorithm"]):
        if name in algos and not str(algos[name]).startswith("imported"):
            raise ValueError(f"algorithm {name!r} is in the store as an algorithm the study "
                             "runs; import the predictions under another name.")
        if name not in algos:
            new_algorithms.append(name)
    labels_of = {}
    for name in pd.unique(frame["dataset"]):
        if name in known:
            labels_of[name] = _stored_labels(con, known[name][0], known[name][1])
            if labels_of[name] is None:
                ds = _builtin(name)
                labels_of[name] = None if ds is None else np.asarray(ds.y, dtype=np.int64)
        else:
            ds = next(d for d in new_datasets if d.name == name)
            labels_of[name] = np.asarray(ds.y, dtype=np.int64)
    sizes = {**{k: v[1] for k, v in known.items()},
             **{d.name: d.n_instances for d in new_datasets}}
    done = set(con.execute(
        "SELECT d.name, a.name, t.repeat FROM tasks t JOIN datasets d ON d.id = t.dataset_id "
        "JOIN algorithms a ON a.id = t.algorithm_id WHERE t.status = 'done'").fetchall())
    for key, part in frame.groupby(["dataset", "algorithm", "repeat"], sort=False):
        key = (str(key[0]), str(key[1]), int(key[2]))
        if key in done:
            raise ValueError(f"dataset {key[0]!r}, algorithm {key[1]!r}, repeat {key[2]} is "
                             "already in the store; none imported.")
        k = n_folds or int(part["fold"].max()) + 1
        _check_task(key, part, sizes[key[0]], labels_of[key[0]], max(int(k), 1))
        if labels_of[key[0]] is None:
            if "y" not in part.columns:
                raise ValueError(f"dataset {key[0]!r} has no stored classes; give a y column.")
            labels_of[key[0]] = np.empty(sizes[key[0]], dtype=np.int64)
            labels_of[key[0]][part["row"].to_numpy()] = part["y"].to_numpy()
        checked.append((key, part.sort_values("row"), int(k)))

    con.begin()
    try:
        next_id = con.execute("SELECT coalesce(max(id) + 1, 0) FROM datasets").fetchall()[0][0]
        for ds in new_datasets:
            con.execute("INSERT INTO datasets VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        [int(next_id), ds.name, ds.sha256, ds.n_instances, ds.n_features,
                         ds.positive_fraction, ds.family or ds.name, ds.source])
            next_id += 1
        source_text = "a DataFrame" if isinstance(source, pd.DataFrame) else str(source)
        next_id = con.execute("SELECT coalesce(max(id) + 1, 0) FROM algorithms").fetchall()[0][0]
        for name in new_algorithms:
            con.execute("INSERT INTO algorithms VALUES (?, ?, ?, ?, ?, ?)",
                        [int(next_id), name, f"imported:{format or 'table'}",
                         json.dumps({"source": source_text}), "imported", "{}"])
            next_id += 1
        ids = {t: dict(con.execute(f"SELECT name, id FROM {t}").fetchall())
               for t in ("datasets", "algorithms")}
        out = []
        for (dname, aname, repeat), part, k in checked:
            d_id, a_id = ids["datasets"][dname], ids["algorithms"][aname]
            key = [d_id, a_id, repeat]
            n = len(part)
            y = labels_of[dname][part["row"].to_numpy()]
            scores = pa.table({
                "dataset_id": np.full(n, d_id, np.int16), "algorithm_id": np.full(n, a_id,
                                                                                   np.int16),
                "repeat": np.full(n, repeat, np.int16),
                "fold": part["fold"].to_numpy(np.int16),
                "row": part["row"].to_numpy(np.int32), "y": y.astype(np.int8),
                "score": part["score"].to_numpy(np.float64)})
            fit = np.zeros(k)
            known_time = "fit_time" in part.columns and part["fit_time"].notna().all()
            if known_time:
                per_fold = part.groupby("fold")["fit_time"].first()
                fit[per_fold.index.to_numpy()] = np.maximum(per_fold.to_numpy(), 0.0)
            timings = pa.table({
                "dataset_id": np.full(k, d_id, np.int16), "algorithm_id": np.full(k, a_id,
                                                                                  np.int16),
                "repeat": np.full(k, repeat, np.int16), "fold": np.arange(k, dtype=np.int16),
                "fit_wall": fit, "fit_cpu": fit, "predict_wall": np.zeros(k),
                "predict_cpu": np.zeros(k)})
            for table, rows in (("scores", scores), ("timings", timings)):
                con.execute(f"DELETE FROM {table} WHERE dataset_id = ? AND algorithm_id = ? "
                            "AND repeat = ?", key)
                con.register("metaeval_import", rows)
                con.execute(f"INSERT INTO {table} SELECT * FROM metaeval_import")
                con.unregister("metaeval_import")
            wall = float(fit.sum()) if known_time else None
            warning = None if known_time else "imported predictions; fit time unknown (0)"
            con.execute("DELETE FROM tasks WHERE dataset_id = ? AND algorithm_id = ? AND "
                        "repeat = ?", key)
            con.execute("INSERT INTO tasks VALUES (?, ?, ?, 'done', NULL, ?, ?, ?, ?, now())",
                        key + [wall, wall, k, warning])
            out.append((dname, aname, repeat, n, k))
        con.commit()
    except BaseException:
        _rollback(con)
        raise
    return pd.DataFrame(out, columns=["dataset", "algorithm", "repeat", "rows", "folds"])
