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
import signal
import threading
import zlib
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from metaeval.store._connection import _rollback

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
            import pyarrow.parquet as pq

            _check_headers(pq.read_schema(path).names, path)
            frame = pd.read_parquet(path)
        elif suffix in (".csv", ".txt", ".gz"):
            # the header as written: pandas renames a repeated column (W1 -> W1.1)
            header = pd.read_csv(path, header=None, nrows=1, dtype=str,
                                 keep_default_na=False).iloc[0].tolist()
            _check_headers(header, path)
            frame = pd.read_csv(path)
        else:
            frame = None
    except (OSError, ValueError, EOFError, zlib.error, pa.ArrowException) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        text = str(exc).strip().splitlines()
        raise ValueError(f"source {str(path)!r} cannot be read as a {suffix[1:]} table "
                         f"(damaged or cut short?): {text[0] if text else type(exc).__name__}"
                         ) from None
    if frame is None:
        raise ValueError(f"source {str(path)!r}: unknown file type {suffix!r}; give a .arff, "
                         ".csv or .parquet file.")
    return frame


def _check_headers(header, source) -> None:
    """Refuse a table whose column names repeat or are empty (which column is meant?)."""
    names = [str(h).strip() for h in header]
    seen, repeated = set(), []
    for name in names:
        if name in seen and name not in repeated:
            repeated.append(name)
        seen.add(name)
    where = f"source {str(source)!r}" if source is not None else "the table"
    if repeated:
        raise ValueError(f"{where} has the column(s) {repeated} more than once; give each "
                         "column once (which one holds the scores?). None imported.")
    empty = [i + 1 for i, name in enumerate(names) if not name]
    if empty:
        raise ValueError(f"{where}: column(s) {empty} have no name; name every column. "
                         "None imported.")


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
                         f"{[c for c in frame.columns if c != _POS][:12]}.")


class _Source:
    """Where a record of the source is, for the error messages: a CSV file's line, a
    Parquet file's or a DataFrame's record."""

    def __init__(self, source, path: Path | None):
        self.name = "a DataFrame" if path is None else repr(str(path))
        self.csv = path is not None and path.suffix.lower() in (".csv", ".txt", ".gz")
        self.arff = path is not None and path.suffix.lower() == ".arff"

    def at(self, positions) -> str:
        positions = np.asarray(positions, dtype=np.int64)
        if self.arff:
            return f"source {self.name}, data line(s) {_lines(positions + 1)}"
        if self.csv:  # line 1 is the header
            return f"source {self.name}, line(s) {_lines(positions + 2)}"
        return f"source {self.name}, record(s) {_lines(positions + 1)}"


_POS = "_position"  # a record's position in the source, carried along for the messages


def _integers(values: pd.Series, what: str, source: _Source, pos) -> np.ndarray:
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(numbers) | (numbers % 1 != 0))
    if bad.size:
        raise ValueError(f"{source.at(pos[bad])}: column {what!r} must hold integers; it "
                         f"holds {[values.iloc[i] for i in bad[:_SHOW]]}. None imported.")
    return numbers.astype(np.int64)


def _names(values: pd.Series, what: str, source: _Source, pos) -> pd.Series:
    """A column of names (dataset, algorithm): a missing or blank cell is refused, not
    read as the name "nan"."""
    text = values.astype(str).str.strip()
    bad = np.flatnonzero((values.isna() | (text == "")).to_numpy())
    if bad.size:
        raise ValueError(f"{source.at(pos[bad])}: the {what} is missing; every row needs "
                         f"one. None imported.")
    return text


def _lines(index) -> str:
    index = list(index)
    shown = ", ".join(str(int(i)) for i in index[:_SHOW])
    return shown + (f" (and {len(index) - _SHOW} more)" if len(index) > _SHOW else "")


def _from_openml(frame, *, dataset, algorithm, pos_label, source,
                 class_names=None) -> pd.DataFrame:
    _need(frame, ("repeat", "fold", "row_id", "prediction"), "OpenML")
    pos = frame[_POS].to_numpy()
    confidence = {c[len("confidence."):]: c for c in frame.columns
                  if c.startswith("confidence.")}
    if class_names is not None:
        _check_openml_classes(list(confidence), pos_label, class_names, dataset, source)
    if len(confidence) != 2:
        raise ValueError(f"source {source.name}: an OpenML predictions file of a binary "
                         "dataset needs one confidence.<class> column for each of its two "
                         f"classes; it has {len(confidence)}: {sorted(confidence)}. None "
                         "imported.")
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
        "repeat": _integers(frame["repeat"], "repeat", source, pos),
        "fold": _integers(frame["fold"], "fold", source, pos),
        "row": _integers(frame["row_id"], "row_id", source, pos),
        "score": conf[:, classes.index(pos_label)],
        _POS: pos,
    })
    if "correct" in frame.columns:
        correct = frame["correct"].astype(str).str.strip().to_numpy()
        bad = np.flatnonzero(~np.isin(correct, classes))
        if bad.size:
            raise ValueError(f"{source.at(pos[bad])}: the true class (column 'correct') is "
                             f"{sorted(set(correct[bad].tolist()))[:_SHOW]}, not one of the "
                             f"file's classes {sorted(classes)}. None imported.")
        out["y"] = (correct == pos_label).astype(np.int64)
    out.attrs["classes"] = classes
    out.attrs["pos_label"] = pos_label
    return out


def _from_long(frame, *, dataset, algorithm, source) -> pd.DataFrame:
    frame = frame.copy()
    if dataset and "dataset" not in frame.columns:
        frame["dataset"] = dataset
    if algorithm and "algorithm" not in frame.columns:
        frame["algorithm"] = algorithm
    _need(frame, ("dataset", "row", "fold", "algorithm", "score"), "long")
    pos = frame[_POS].to_numpy()
    out = pd.DataFrame({
        "dataset": _names(frame["dataset"], "dataset", source, pos),
        "algorithm": _names(frame["algorithm"], "algorithm", source, pos),
        "repeat": (_integers(frame["repeat"], "repeat", source, pos) if "repeat" in frame
                   else 0),
        "fold": _integers(frame["fold"], "fold", source, pos),
        "row": _integers(frame["row"], "row", source, pos),
        "score": pd.to_numeric(frame["score"], errors="coerce").astype(np.float64),
        _POS: pos,
    })
    if "y" in frame.columns:  # 0/1 or the dataset's class names: resolved when checked
        out["y"] = frame["y"].to_numpy()
    if "fit_time" in frame.columns:
        given = frame["fit_time"]
        fit = pd.to_numeric(given, errors="coerce").to_numpy(dtype=np.float64)
        bad = np.flatnonzero((np.isnan(fit) & given.notna().to_numpy())
                             | np.isinf(fit) | (fit < 0))
        if bad.size:
            raise ValueError(f"{source.at(pos[bad])} (row {_lines(out['row'].to_numpy()[bad])} "
                             f"of {out['dataset'].iloc[bad[0]]!r}): fit_time must be a finite "
                             f"number of seconds >= 0; it is {given.iloc[bad[:_SHOW]].tolist()}. "
                             "None imported.")
        out["fit_time"] = fit
    return out


def _from_wide(frame, *, dataset, source) -> pd.DataFrame:
    frame = frame.copy()
    if dataset and "dataset" not in frame.columns:
        frame["dataset"] = dataset
    _need(frame, ("dataset", "row", "fold"), "wide")
    keys = [c for c in ("dataset", "row", "fold", "repeat", "y", _POS) if c in frame.columns]
    algorithms = [c for c in frame.columns if c not in keys]
    if not algorithms:
        raise ValueError("a wide predictions table needs one score column per algorithm "
                         "besides dataset, row, fold (repeat, y); it has none.")
    long = frame.melt(id_vars=keys, value_vars=algorithms, var_name="algorithm",
                      value_name="score")
    return _from_long(long, dataset=None, algorithm=None, source=source)


def _read(source, *, format, dataset, algorithm, pos_label,
          class_names=None) -> tuple[pd.DataFrame, _Source]:
    """The long form with each record's position in the source, and the source."""
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
    where = _Source(source, path)
    _check_headers(list(frame.columns), path)
    frame = frame.copy()  # one block per dtype (a wide table read from CSV has many)
    frame[_POS] = np.arange(len(frame), dtype=np.int64)
    fmt = format or _guess_format(path, frame)
    if fmt == "openml":
        return _from_openml(frame, dataset=dataset, algorithm=algorithm, pos_label=pos_label,
                            source=where, class_names=class_names), where
    if fmt == "long":
        return _from_long(frame, dataset=dataset, algorithm=algorithm, source=where), where
    return _from_wide(frame, dataset=dataset, source=where), where


def read_predictions(source, *, format: str | None = None, dataset: str | None = None,
                     algorithm: str | None = None, pos_label=None) -> pd.DataFrame:
    """Read predictions in any of :data:`FORMATS` into the long form (no store checks).

    Returns
    -------
    frame : DataFrame
        Columns dataset, algorithm, repeat, fold, row, score and, when the source has
        them, y and fit_time.
    """
    frame, _ = _read(source, format=format, dataset=dataset, algorithm=algorithm,
                     pos_label=pos_label)
    return frame.drop(columns=_POS)


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

    return load_dataset(name) if name in list_datasets("kb") else None


def _classes(given, class_names, where: str) -> np.ndarray:
    """A ``y`` column as classes 0/1: given as 0/1, or as the dataset's class names."""
    values = pd.Series(given)
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64)
    if np.isin(numbers, (0.0, 1.0)).all():
        return numbers.astype(np.int64)
    text = values.astype(str).str.strip().to_numpy()
    found = sorted(set(text.tolist()))
    if class_names is None:
        raise ValueError(f"{where}: the y column holds {found[:_SHOW]}; give the classes as "
                         "0/1 (the dataset's class names are not known to metaeval). None "
                         "imported.")
    names = [str(c) for c in class_names]
    unknown = [v for v in found if v not in names]
    if unknown:
        raise ValueError(f"{where}: the y column holds {unknown[:_SHOW]}, which are neither "
                         f"0/1 nor the dataset's classes {names} (class 0, class 1). None "
                         "imported.")
    return (text == names[1]).astype(np.int64)


def _check_openml_classes(classes, pos_label, class_names, dataset, where) -> None:
    """The classes of an OpenML file must be the dataset's, and ``pos_label`` its class 1."""
    names = [str(c) for c in class_names]
    if sorted(str(c) for c in classes) != sorted(names):
        raise ValueError(f"source {where.name}: the predictions' classes (confidence.<class> "
                         f"columns) are {sorted(classes)}, not the {len(names)} classes of "
                         f"dataset {dataset!r}, which are {names} (class 0, class 1): "
                         "predictions of another dataset? None imported.")
    if pos_label is not None and str(pos_label) not in names:
        raise ValueError(f"pos_label={str(pos_label)!r} is not a class of the file; its "
                         f"classes: {sorted(names)}.")
    if pos_label is not None and str(pos_label) != names[1]:
        raise ValueError(f"pos_label={pos_label!r} is class 0 of dataset {dataset!r}; its "
                         f"class 1 is {names[1]!r} (give that, or leave --pos-label out). "
                         "None imported.")


def _check_task(key, part: pd.DataFrame, n: int, labels, n_folds, n_repeats,
                source: _Source) -> None:
    dataset, algorithm, repeat = key
    where = f"dataset {dataset!r}, algorithm {algorithm!r}, repeat {repeat}"
    pos = part[_POS].to_numpy()
    if repeat < 0 or (n_repeats is not None and repeat >= n_repeats):
        have = (f"the study has repeats 0..{n_repeats - 1}" if n_repeats
                else "repeats are numbered from 0")
        raise ValueError(f"{source.at(pos)}: {where}: the study has no repeat {repeat} "
                         f"({have}); none imported.")
    rows = part["row"].to_numpy()
    dup = part.index[part.duplicated("row", keep="first")]
    if len(dup):
        raise ValueError(f"{where}: rows {_lines(part.loc[dup, 'row'])} appear more than "
                         f"once ({source.at(part.loc[dup, _POS])}); none imported.")
    unknown = np.flatnonzero((rows < 0) | (rows >= n))
    if unknown.size:
        raise ValueError(f"{where}: rows {_lines(np.sort(rows[unknown]))} are not rows of "
                         f"the dataset (it has rows 0..{n - 1}; {source.at(pos[unknown])}); "
                         "none imported.")
    if rows.size != n:
        missing = np.setdiff1d(np.arange(n), rows)
        raise ValueError(f"{where}: rows {_lines(missing)} have no score ({rows.size} of "
                         f"{n} rows given); a task needs every row. None imported.")
    score = part["score"].to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(score) | (score < 0) | (score > 1))
    if bad.size:
        raise ValueError(f"{where}: rows {_lines(rows[bad])} have scores that are NaN or "
                         f"outside [0, 1] ({score[bad][:_SHOW].tolist()}; "
                         f"{source.at(pos[bad])}); none imported.")
    folds = part["fold"].to_numpy()
    bad = np.flatnonzero((folds < 0) | (folds >= n_folds))
    if bad.size:
        raise ValueError(f"{where}: rows {_lines(rows[bad])} are in folds "
                         f"{sorted(set(folds[bad].tolist()))[:_SHOW]}, which do not exist "
                         f"(folds 0..{n_folds - 1}); none imported.")
    if "fit_time" in part.columns:
        fit = part["fit_time"].to_numpy(dtype=np.float64)
        missing = np.isnan(fit)
        if missing.any() and not missing.all():
            bad = np.flatnonzero(missing)
            raise ValueError(f"{source.at(pos[bad])}: {where}: fit_time is missing on rows "
                             f"{_lines(rows[bad])} but given on others; give it on every row "
                             "of the task, or on none. None imported.")
        if not missing.any():
            spread = part.groupby("fold")["fit_time"].agg(["min", "max"])
            differ = spread.index[spread["min"] != spread["max"]]
            if len(differ):
                fold = differ[0]
                inside = np.flatnonzero(folds == fold)
                raise ValueError(
                    f"{source.at(pos[inside])}: {where}: fold {fold} has different fit "
                    f"times ({sorted(set(fit[inside].tolist()))[:_SHOW]}); a fold is fitted "
                    "once, so its rows need one fit_time. None imported.")
    if "y" in part.columns and labels is not None:
        given = part["y"].to_numpy()
        bad = np.flatnonzero(given != labels[rows])
        if bad.size:
            raise ValueError(f"{where}: rows {_lines(rows[bad])} have a class that differs "
                             f"from the stored dataset's ({source.at(pos[bad])}); none "
                             "imported.")
def import_predictions(store, source, *, format: str | None = None,
                       dataset: str | None = None, algorithm: str | None = None,
                       pos_label=None, folds: int | None = None) -> pd.DataFrame:
    """Check predictions made elsewhere and write them to ``store`` in one transaction.

    See :meth:`metaeval.store.Store.import_predictions`. Ctrl-C is a
    ``KeyboardInterrupt`` wherever it comes (DuckDB reports a query it interrupts with
    errors of its own).
    """
    try:
        return _import_predictions(store, source, format=format, dataset=dataset,
                                   algorithm=algorithm, pos_label=pos_label, folds=folds)
    except Exception as exc:
        if _query_interrupted(exc):
            raise KeyboardInterrupt from None
        raise


def _import_predictions(store, source, *, format, dataset, algorithm, pos_label, folds):
    if folds is not None and (isinstance(folds, bool) or not isinstance(folds, int)
                              or folds < 2):
        raise ValueError(f"folds must be an integer >= 2, got {folds!r}.")
    builtin: dict = {}

    def built_in(name):
        if name not in builtin:
            builtin[name] = _builtin(name)
        return builtin[name]

    arff = isinstance(source, (str, os.PathLike)) and str(source).lower().endswith(".arff")
    openml = format == "openml" or (format is None and arff)
    class_names = None
    if openml and dataset and built_in(dataset) is not None:
        class_names = built_in(dataset).class_names
        if pos_label is None:
            pos_label = class_names[1]
    frame, where = _read(source, format=format, dataset=dataset, algorithm=algorithm,
                         pos_label=pos_label, class_names=class_names)
    if frame.empty:
        raise ValueError("the source holds no predictions.")
    con = store._writer()
    config = con.execute("SELECT value FROM meta WHERE key = 'study'").fetchall()
    config = json.loads(config[0][0]) if config else {}
    n_folds = folds or config.get("folds")
    n_repeats = config.get("repeats")
    known = {name: (int(i), int(n)) for name, i, n in
             con.execute("SELECT name, id, n_instances FROM datasets").fetchall()}
    algos = {name: est for name, est in
             con.execute("SELECT name, estimator FROM algorithms").fetchall()}
    new_datasets, new_algorithms, checked = [], [], []
    for name in pd.unique(frame["dataset"]):
        if name not in known:
            ds = built_in(name)
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
                ds = built_in(name)
                labels_of[name] = None if ds is None else np.asarray(ds.y, dtype=np.int64)
        else:
            ds = next(d for d in new_datasets if d.name == name)
            labels_of[name] = np.asarray(ds.y, dtype=np.int64)
    if "y" in frame.columns and "classes" not in frame.attrs:
        y = np.empty(len(frame), dtype=np.int64)
        for name, index in frame.groupby("dataset", sort=False).indices.items():
            ds = built_in(name)
            y[index] = _classes(frame["y"].to_numpy()[index],
                                None if ds is None else ds.class_names,
                                f"{where.at(frame[_POS].to_numpy()[index[:1]])}: dataset "
                                f"{name!r}")
        frame = frame.assign(y=y)
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
        _check_task(key, part, sizes[key[0]], labels_of[key[0]], max(int(k), 1), n_repeats,
                    where)
        if labels_of[key[0]] is None:
            if "y" not in part.columns:
                raise ValueError(f"dataset {key[0]!r} has no stored classes; give a y column.")
            labels_of[key[0]] = np.empty(sizes[key[0]], dtype=np.int64)
            labels_of[key[0]][part["row"].to_numpy()] = part["y"].to_numpy()
        checked.append((key, part.sort_values("row"), int(k)))

    with _sigint_between_queries() as stop:
        return _write(con, source, format, new_datasets, new_algorithms, checked, labels_of,
                      stop)


def _write(con, source, format, new_datasets, new_algorithms, checked, labels_of, stop):
    """The import's one transaction; ``stop()`` raises KeyboardInterrupt after a Ctrl-C."""
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
            stop()
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
                fit[per_fold.index.to_numpy()] = per_fold.to_numpy()
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
        stop()
        con.commit()
    except BaseException as exc:
        _rollback(con)
        if _query_interrupted(exc):  # DuckDB's answer to Ctrl-C during a query
            raise KeyboardInterrupt from None
        raise
    return pd.DataFrame(out, columns=["dataset", "algorithm", "repeat", "rows", "folds"])


#: the signals that stop an import between two queries (each where it exists)
_STOP_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP")
                      if hasattr(signal, n))
_DEFAULT = {signal.SIGINT: signal.default_int_handler}


@contextmanager
def _sigint_between_queries():
    """Hold SIGINT (Ctrl-C), SIGTERM and SIGHUP back while DuckDB runs a query, and act
    on them between two.

    DuckDB stops a query that a signal interrupts with one of several errors (an
    ``InterruptException``, a ``RuntimeError``, an error naming the object it was
    reading); holding the signal until the query is over makes it a plain
    ``KeyboardInterrupt`` raised by ``stop()``, before the commit or after it, never
    inside, with the signal's number as its ``signum`` attribute. Only in the main
    thread, where Python runs signal handlers, and only for signals whose handler is
    Python's default or the command line's stop handler (one marked
    ``metaeval_stop``): a handler of the caller's own, or an ignored signal, is left
    alone.
    """
    if threading.current_thread() is not threading.main_thread():
        yield lambda: None
        return
    caught = []

    def hold(signum, frame):
        caught.append(signum)

    def stop():
        if caught:
            exc = KeyboardInterrupt()
            exc.signum = caught[0]
            raise exc

    previous = {}
    for number in _STOP_SIGNALS:
        handler = signal.getsignal(number)
        if handler is _DEFAULT.get(number, signal.SIG_DFL) or \
                getattr(handler, "metaeval_stop", False):
            previous[number] = signal.signal(number, hold)
    try:
        yield stop
    finally:
        for number, old in previous.items():
            signal.signal(number, old)
    stop()  # a signal after the last check: the import is committed, then stopped


def _query_interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` is how DuckDB reports a query stopped by a signal (Ctrl-C): an
    ``InterruptException``, or a plain ``RuntimeError('Query interrupted')``."""
    import duckdb

    return isinstance(exc, duckdb.InterruptException) or (
        type(exc) is RuntimeError and str(exc).strip() == "Query interrupted")
