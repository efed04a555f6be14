"""Readers for the user's own data: CSV/TSV (optionally gzip), Parquet, ARFF, KEEL.

Every reader returns a :class:`~metaeval.datasets.Dataset` with the same
conventions as the built-in suite: categorical features as Python strings
(dtype ``object``), numeric features as ``float64``, missing values as ``NaN``
and a 0/1 ``int8`` target in which 1 marks ``pos_label``.

The ARFF and KEEL parsers are written here rather than taken from
:func:`scipy.io.arff.loadarff`, which rejects ``string`` attributes ("String
attributes not supported yet") and returns a missing nominal value as the
byte string ``b'?'`` instead of a missing value.
"""

from __future__ import annotations

import decimal
import gzip
import hashlib
import io
import numbers
import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from metaeval.datasets._base import (
    Dataset,
    binarize_target,
    check_no_target_copy,
    check_scalars,
    resolve_column,
    strip_text,
    to_object_strings,
)

__all__ = ["read_dataset", "FORMATS", "DEFAULT_NA_VALUES"]

FORMATS = ("csv", "tsv", "parquet", "arff", "keel")

#: Cells read as missing in CSV/TSV files unless ``na_values`` says otherwise.
DEFAULT_NA_VALUES = ("", "?", "NA", "N/A", "NaN", "nan", "null", "NULL", "<null>")

_EXTENSIONS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".arff": "arff",
    ".dat": "keel",
}


def read_dataset(
    path,
    *,
    target: str = "class",
    pos_label=None,
    name: str | None = None,
    format: str | None = None,
    categorical: Sequence[str] | None = None,
    na_values: Sequence[str] | None = None,
) -> Dataset:
    """Read a binary classification dataset from a file.

    Parameters
    ----------
    path : str or path-like
        The file. Its format is taken from the extension unless ``format`` is
        given: ``.csv``, ``.tsv``/``.tab``, ``.parquet``/``.pq``, ``.arff``,
        ``.dat`` (KEEL); each may end in ``.gz``.
    target : str, default="class"
        Name of the class column. An exact match is used first, then a unique
        case-insensitive one (``Class`` for ``class``). For KEEL files whose
        attributes include no such column, the default also accepts the single
        attribute named in ``@outputs``.
    pos_label : scalar, optional
        The label that becomes class 1. Matched exactly, then by its text
        (``1`` finds ``"1"``). When None: if the labels are 0 and 1 (numbers,
        text or booleans), 1 is class 1; otherwise the minority label is
        class 1, and a tie goes to the label that sorts last (numbers
        numerically, text lexicographically, like the 0/1 rule).
    name : str, optional
        Dataset name; defaults to the file name without its extensions.
    format : {"csv", "tsv", "parquet", "arff", "keel"}, optional
        Overrides the extension.
    categorical : sequence of str, optional
        Feature columns to read as categorical strings even when every value
        looks numeric (codes such as 1/2/3). For CSV/TSV the other columns
        are categorical when some present value is not a number. For Parquet
        the stored types decide (numbers and booleans numeric, strings and
        categories categorical), and for ARFF and KEEL the header does
        (nominal, string and date attributes categorical; numeric, real and
        integer numeric).
    na_values : sequence of str, optional
        CSV/TSV cells read as missing; default :data:`DEFAULT_NA_VALUES`
        (which includes ``""`` and ``"?"``). ARFF and KEEL use their own
        rule: an unquoted ``?`` (and, in KEEL, ``<null>``) is missing.

    Returns
    -------
    dataset : Dataset
        ``sha256`` is the hash of the file's bytes; ``class_names`` gives the
        original labels of class 0 and class 1.

    Raises
    ------
    ValueError
        For an unknown format, an empty file or one with no data rows, an
        unknown target column, a target with one class, three or more
        classes or missing labels, a ``pos_label`` that is not a label, a
        file with no feature column, or a malformed ARFF/KEEL line (the
        message gives the line number).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "toy.csv"
    >>> _ = p.write_text("size,colour,class\\n1.5,red,yes\\n2,,no\\n3,blue,no\\n")
    >>> ds = read_dataset(p)
    >>> ds.categorical, ds.y.tolist(), ds.class_names
    (('colour',), [1, 0, 0], ('no', 'yes'))
    >>> ds.X["colour"].tolist()
    ['red', nan, 'blue']
    """
    path = Path(os.fspath(path))
    fmt, gz = _sniff_format(path, format)
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    try:
        data = gzip.decompress(raw) if gz else raw
    except (OSError, EOFError) as exc:
        raise ValueError(f"the file {str(path)!r} is not a valid gzip file: {exc}") from exc
    if not data.strip():
        raise ValueError(f"the file {str(path)!r} is empty.")
    if fmt != "parquet":
        _text_file(data, path, fmt)
    forced = [] if categorical is None else [str(c) for c in categorical]
    if isinstance(categorical, str):
        raise ValueError("categorical must be a sequence of column names, not a string.")
    outputs: list[str] = []
    if fmt in ("csv", "tsv"):
        nas = DEFAULT_NA_VALUES if na_values is None else tuple(na_values)
        sep = "," if fmt == "csv" else "\t"
        header = _header(data, sep)
        _no_duplicate_names(header, path)
        _separator_hint(header, sep, path)
        frame, declared = _read_delimited(data, sep, nas, path), None
    elif fmt == "parquet":
        frame, declared = _read_parquet(data, path)
        _no_duplicate_names(list(frame.columns), path)
    else:
        text = _decode(data)
        try:
            frame, declared, outputs = _parse_arff_like(text, keel=(fmt == "keel"))
        except ValueError as exc:
            raise ValueError(f"the file {str(path)!r}: {exc}") from None
    if frame.shape[0] == 0:
        raise ValueError(f"the file {str(path)!r} has a header but no data rows.")

    if fmt == "keel" and target == "class" and len(outputs) == 1:
        try:
            target_col = resolve_column(frame.columns, target)
        except ValueError:
            target_col = resolve_column(frame.columns, outputs[0])
    else:
        target_col = resolve_column(frame.columns, target)
    labels = frame[target_col]
    if fmt in ("csv", "tsv"):
        # a cell's surrounding spaces are not part of its value (skipinitialspace drops
        # the leading ones only: "yes " and "yes" would be two classes)
        labels = strip_text(labels)
    y, class_names = binarize_target(
        labels.to_numpy(), target=target_col, pos_label=pos_label
    )
    features = frame.drop(columns=[target_col])
    if features.shape[1] == 0:
        raise ValueError(f"the file {str(path)!r} has no feature columns besides the target.")
    unknown = [c for c in forced if c not in features.columns]
    if unknown:
        raise ValueError(f"categorical names columns that are not features: {unknown!r}.")
    X, cats = _finalise_features(features, forced, declared)
    check_no_target_copy(X, y, target=target_col, source=f"the file {str(path)!r}")
    if name is None:
        name = _stem(path)
    return Dataset(
        name=name,
        X=X,
        y=y,
        categorical=cats,
        family=name,
        sha256=digest,
        source=f"{fmt} file {path.resolve()}",
        class_names=class_names,
    )


# --------------------------------------------------------------------------- helpers


def _stem(path: Path) -> str:
    n = path.name
    if n.lower().endswith(".gz"):
        n = n[:-3]
    base, ext = os.path.splitext(n)
    return base if ext.lower() in _EXTENSIONS else n


def _sniff_format(path: Path, format):
    gz = path.name.lower().endswith(".gz")
    if format is not None:
        if format not in FORMATS:
            raise ValueError(f"format must be one of {FORMATS}, got {format!r}.")
        return format, gz
    inner = path.name[:-3] if gz else path.name
    ext = os.path.splitext(inner)[1].lower()
    if ext not in _EXTENSIONS:
        raise ValueError(
            f"cannot tell the format of {path.name!r} from its extension; known extensions "
            f"are {sorted(_EXTENSIONS)} (optionally + .gz). Pass format= one of {FORMATS}."
        )
    return _EXTENSIONS[ext], gz


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


#: the first bytes of files that are not tables of text, and what they are
_MAGIC = {b"\x89PNG": "a PNG image", b"\xff\xd8\xff": "a JPEG image", b"%PDF": "a PDF document",
          b"PK\x03\x04": "a ZIP archive (an Excel workbook is one)", b"PAR1": "a Parquet file",
          b"GIF8": "a GIF image", b"\x1f\x8b": "a gzip file"}


def _text_file(data: bytes, path: Path, fmt: str) -> None:
    """Refuse, naming the file, data that is not text (a NUL byte in its first 64 KiB)."""
    kind = next((what for magic, what in _MAGIC.items() if data.startswith(magic)), None)
    if kind is None and b"\0" not in data[:65536]:
        return
    what = kind or "binary data, not text"
    hint = " (name it .parquet)" if kind == "a Parquet file" else ""
    raise ValueError(f"the file {str(path)!r} is not a {fmt.upper()} file: it holds "
                     f"{what}{hint}.")


def _separator_hint(header: Sequence[str], sep: str, path: Path) -> None:
    """A file whose header is one column is read with the wrong separator (a dataset has
    at least two columns): say which separator its first line seems to use."""
    if len(header) != 1:
        return
    line = header[0]
    if sep == "," and "\t" in line:
        raise ValueError(f"the file {str(path)!r} looks tab-separated (its first line has "
                         "tabs and no commas): name it .tsv, or save it with commas.")
    if sep == "\t" and "," in line:
        raise ValueError(f"the file {str(path)!r} looks comma-separated (its first line has "
                         "commas and no tabs): name it .csv, or save it with tabs.")
    if ";" in line:
        raise ValueError(f"the file {str(path)!r} looks semicolon-separated (its first line "
                         f"has semicolons and no {'commas' if sep == ',' else 'tabs'}): "
                         f"save it with {'commas' if sep == ',' else 'tabs'}.")


def _header(data: bytes, sep: str) -> list[str]:
    """The column names of a CSV/TSV file as written (pandas renames duplicates)."""
    import csv

    first = data.lstrip(b"\r\n").split(b"\n", 1)[0]
    return next(csv.reader([_decode(first).rstrip("\r")], delimiter=sep,
                           skipinitialspace=True), [])


def _no_duplicate_names(names: Sequence[str], path: Path) -> None:
    """Two columns of one name are an error: which one would be the target, or a feature?"""
    positions: dict[str, list[int]] = {}
    for i, name in enumerate(names, start=1):
        positions.setdefault(str(name).strip(), []).append(i)
    duplicated = {n: p for n, p in positions.items() if len(p) > 1}
    if duplicated:
        shown = "; ".join(f"{n!r} (columns {', '.join(map(str, p))})"
                          for n, p in duplicated.items())
        raise ValueError(
            f"the file {str(path)!r} has duplicated column names: {shown}. Give every "
            "column its own name (a second copy of the target column would leak the label "
            "into the features)."
        )


def _read_delimited(data: bytes, sep: str, na_values, path: Path) -> pd.DataFrame:
    try:
        data.decode("utf-8")
        encoding = "utf-8-sig"
    except UnicodeDecodeError:  # as the ARFF reader: not UTF-8, read as Latin-1
        encoding = "latin-1"
    try:
        frame = pd.read_csv(
            io.BytesIO(data),
            sep=sep,
            dtype=object,
            keep_default_na=False,
            na_values=list(na_values),
            skipinitialspace=True,
            encoding=encoding,
        )
    except pd.errors.EmptyDataError as exc:
        raise ValueError(f"the file {str(path)!r} is empty.") from exc
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        text = " ".join(str(exc).split())
        raise ValueError(f"the file {str(path)!r} is not a readable "
                         f"{'CSV' if sep == ',' else 'TSV'} file: {text}") from None
    frame.columns = [str(c) for c in frame.columns]
    return frame


def _read_parquet(data: bytes, path: Path):
    """Read Parquet; its column types decide: numbers and booleans numeric, the rest text."""
    try:
        frame = pd.read_parquet(io.BytesIO(data))
    except Exception as exc:  # pyarrow raises its own error types
        text = " ".join(str(exc).split())
        raise ValueError(f"the file {str(path)!r} is not a readable Parquet file: "
                         f"{text}") from exc
    frame = frame.reset_index(drop=True)
    frame.columns = [str(c) for c in frame.columns]
    declared = {}
    for c in frame.columns:
        kind = frame[c].dtype.kind
        if kind in "mM":
            raise ValueError(
                f"column {c!r} holds dates or durations ({frame[c].dtype}); convert it to "
                "numbers or text first."
            )
        if kind == "O":  # a list column, say: one value per cell, as from a DataFrame
            try:
                check_scalars(frame[c].to_numpy(dtype=object), f"column {c!r}")
            except ValueError as exc:
                raise ValueError(f"the file {str(path)!r}: {exc}") from None
        declared[c] = "numeric" if kind in "biuf" else "nominal"
    return frame, declared


def _finalise_features(features: pd.DataFrame, forced, declared):
    """Numeric columns -> float64, categorical -> object strings with NaN missing.

    ``declared`` (Parquet, ARFF, KEEL) maps each column to its stored kind; without
    it (CSV/TSV) a column is numeric when every present value parses as a number.
    """
    cols = {}
    cats = []
    for c in features.columns:
        col = features[c]
        numeric = None
        if c not in forced:
            if declared is not None:
                if declared[c] == "numeric":
                    numeric = pd.Series(
                        col.to_numpy(dtype=np.float64, na_value=np.nan), index=col.index, name=c
                    )
            else:
                numeric = _try_float(col)
        if numeric is None:
            # CSV/TSV text: surrounding spaces dropped, as from the target (a number's
            # are already, by float())
            cols[c] = to_object_strings(col if declared is not None else strip_text(col))
            cats.append(c)
        else:
            cols[c] = numeric
    X = pd.DataFrame(cols, index=pd.RangeIndex(features.shape[0]), columns=list(features.columns))
    return X, tuple(cats)


def _try_float(col: pd.Series):
    """``col`` as float64 when every present value is a number, else None."""
    values = col.to_numpy(dtype=object, na_value=np.nan)
    miss = pd.isna(values)
    out = np.full(values.shape[0], np.nan)
    try:
        out[~miss] = [_to_float(v) for v in values[~miss].tolist()]
    except (TypeError, ValueError):
        return None
    return pd.Series(out, index=col.index, name=col.name)


def _to_float(v) -> float:
    # Python's float() is correctly rounded: "0.1" gives the nearest double. Any real
    # number counts (Decimal, Fraction); a complex one does not.
    if isinstance(v, (str, numbers.Real, decimal.Decimal, np.integer, np.floating, np.bool_)):
        return float(v)
    raise TypeError(type(v).__name__)


# --------------------------------------------------------------------------- ARFF / KEEL

_DIRECTIVE = re.compile(r"^@([A-Za-z]+)\b\s*(.*)$", re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
_SPARSE_PAIR = re.compile(r"""\s*(\d+)\s+('(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"|[^,]*?)\s*(?:,|$)""")


def _unquote_token(tok: str) -> str:
    tok = tok.strip()
    if len(tok) >= 2 and tok[0] == tok[-1] and tok[0] in "'\"":
        body = tok[1:-1]
        return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)
    return tok


def _split_values(s: str, where: str) -> tuple[list[str], list[bool]]:
    """Split one ARFF/KEEL line on commas, honouring quotes; return values and quoted flags."""
    if "'" not in s and '"' not in s:
        if "%" in s:
            s = s[: s.index("%")]
        parts = [p.strip() for p in s.split(",")]
        return parts, [False] * len(parts)
    out: list[str] = []
    quoted: list[bool] = []
    i, n = 0, len(s)
    while True:
        while i < n and s[i] in " \t":
            i += 1
        if i < n and s[i] in "'\"":
            q = s[i]
            i += 1
            buf = []
            while i < n and s[i] != q:
                if s[i] == "\\" and i + 1 < n:
                    buf.append(_ESCAPES.get(s[i + 1], s[i + 1]))
                    i += 2
                else:
                    buf.append(s[i])
                    i += 1
            if i >= n:
                raise ValueError(f"{where}: unterminated quoted value.")
            i += 1
            out.append("".join(buf))
            quoted.append(True)
            while i < n and s[i] in " \t":
                i += 1
            if i < n and s[i] == "%":
                break
            if i < n and s[i] != ",":
                raise ValueError(f"{where}: unexpected {s[i]!r} after a quoted value.")
        else:
            j = s.find(",", i)
            j = n if j < 0 else j
            tok = s[i:j]
            if "%" in tok:
                out.append(tok[: tok.index("%")].strip())
                quoted.append(False)
                break
            out.append(tok.strip())
            quoted.append(False)
            i = j
        if i >= n:
            break
        i += 1  # the comma
    return out, quoted


def _parse_name(rest: str, where: str) -> tuple[str, str]:
    rest = rest.lstrip()
    if rest[:1] in ("'", '"'):
        q = rest[0]
        i = 1
        while i < len(rest) and rest[i] != q:
            i += 2 if rest[i] == "\\" else 1
        if i >= len(rest):
            raise ValueError(f"{where}: unterminated quoted attribute name.")
        return _unquote_token(rest[: i + 1]), rest[i + 1 :].strip()
    m = re.match(r"[^\s{]+", rest)
    if not m:
        raise ValueError(f"{where}: @attribute without a name.")
    return m.group(0), rest[m.end() :].strip()


def _parse_attribute(rest: str, where: str, keel: bool):
    name, spec = _parse_name(rest, where)
    if spec.startswith("{"):
        end = spec.rfind("}")
        if end < 0:
            raise ValueError(f"{where}: nominal attribute {name!r} has no closing '}}'.")
        values, _ = _split_values(spec[1:end], where) if spec[1:end].strip() else ([], [])
        return name, "nominal", [v for v in values if v != ""]
    m = re.match(r"[A-Za-z]+", spec)
    kind = m.group(0).lower() if m else ""
    if kind in ("numeric", "real", "integer"):
        return name, "numeric", None
    if kind in ("string", "date"):
        return name, "string", None
    if kind == "relational":
        raise ValueError(f"{where}: relational attributes ({name!r}) are not supported.")
    raise ValueError(
        f"{where}: attribute {name!r} has unknown type {spec!r}; expected numeric, real, "
        "integer, string, date or a {nominal, list}."
    )


def _parse_arff_like(text: str, *, keel: bool):
    """Parse ARFF (Weka) or KEEL ``.dat`` text into a frame of raw columns.

    Returns the frame (numeric attributes already float64, the others object
    strings with NaN for missing), a dict name -> "numeric" | "nominal" |
    "string", and the ``@outputs`` names (KEEL; empty for ARFF).
    """
    kind_name = "KEEL" if keel else "ARFF"
    lines = text.splitlines()
    attrs: list[tuple[str, str, list | None]] = []
    outputs: list[str] = []
    data_start = None
    for i, line in enumerate(lines):
        s = line.strip()
        if not s or s.startswith("%"):
            continue
        where = f"{kind_name} line {i + 1}"
        m = _DIRECTIVE.match(s)
        if not m:
            raise ValueError(f"{where}: expected an @-directive before @data, got {s[:40]!r}.")
        key, rest = m.group(1).lower(), m.group(2)
        if key == "attribute":
            attrs.append(_parse_attribute(rest, where, keel))
        elif key == "data":
            data_start = i + 1
            break
        elif key in ("outputs", "output"):
            outputs = [_unquote_token(t) for t in rest.split(",") if t.strip()]
        elif key in ("relation", "inputs", "input"):
            pass
        else:
            raise ValueError(f"{where}: unknown directive @{m.group(1)}.")
    if data_start is None:
        raise ValueError(f"the {kind_name} file has no @data section.")
    if not attrs:
        raise ValueError(f"the {kind_name} file declares no @attribute.")
    names = [a[0] for a in attrs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"the {kind_name} file declares attributes more than once: {dup!r}.")
    n_attr = len(attrs)
    missing_tokens = {"?", "<null>"} if keel else {"?"}
    columns: list[list] = [[] for _ in range(n_attr)]
    line_numbers: list[int] = []
    for i in range(data_start, len(lines)):
        s = lines[i].strip()
        if not s or s.startswith("%"):
            continue
        where = f"{kind_name} line {i + 1}"
        if s.startswith("{") and not keel:
            row = _sparse_row(s, attrs, where)
        else:
            values, quoted = _split_values(s, where)
            if len(values) != n_attr:
                raise ValueError(f"{where}: {len(values)} values, but {n_attr} attributes.")
            row = [
                None if (not q and (v in missing_tokens or v == "")) else v
                for v, q in zip(values, quoted, strict=True)
            ]
        for col, v in zip(columns, row, strict=True):
            col.append(v)
        line_numbers.append(i + 1)
    frame = {}
    declared = {}
    for (name, kind, _), col in zip(attrs, columns, strict=True):
        declared[name] = kind
        if kind == "numeric":
            arr = np.full(len(col), np.nan)
            for k, v in enumerate(col):
                if v is not None:
                    try:
                        arr[k] = float(v)
                    except ValueError:
                        raise ValueError(
                            f"{kind_name} line {line_numbers[k]}: value {v!r} of numeric "
                            f"attribute {name!r} is not a number."
                        ) from None
            frame[name] = arr
        else:
            frame[name] = np.array([np.nan if v is None else v for v in col], dtype=object)
    return pd.DataFrame(frame, columns=names), declared, outputs


def _sparse_row(s: str, attrs, where: str) -> list:
    """Expand a sparse ARFF instance ``{index value, ...}``; absent values are 0."""
    if not s.endswith("}"):
        raise ValueError(f"{where}: sparse instance without a closing '}}'.")
    row: list = []
    for _, kind, values in attrs:
        if kind == "numeric":
            row.append("0")
        elif kind == "nominal" and values:
            row.append(values[0])
        else:
            row.append("")
    inner = s[1:-1].strip()
    pos = 0
    while pos < len(inner):
        m = _SPARSE_PAIR.match(inner, pos)
        if not m or m.end() == pos:
            raise ValueError(f"{where}: malformed sparse instance near {inner[pos : pos + 20]!r}.")
        idx, raw = int(m.group(1)), m.group(2)
        if idx >= len(attrs):
            raise ValueError(f"{where}: sparse index {idx} is beyond the {len(attrs)} attributes.")
        quoted = raw[:1] in ("'", '"')
        row[idx] = None if (raw == "?" and not quoted) else _unquote_token(raw)
        pos = m.end()
    return row
