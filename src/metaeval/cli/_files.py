"""Checks of the files a command reads, made before the heavy imports (standard library only).

A missing file, a folder, a file of an unknown format, an image given as data or a
tab-separated file saved as ``.csv`` is reported in one line within a fraction of a
second, before NumPy, pandas and scikit-learn load. The readers
(:func:`metaeval.datasets.read_dataset`) check the same and more; these are the cheap
first checks of the command line.
"""

from __future__ import annotations

import csv
import gzip
import os
import zlib
from pathlib import Path

__all__ = ["DATA_EXTENSIONS", "check_data_file", "check_input_file", "input_problem"]

#: the data file extensions of :func:`metaeval.datasets.read_dataset` (tested equal)
DATA_EXTENSIONS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".arff": "arff",
    ".dat": "keel",
}

_MAGIC = {b"\x89PNG": "a PNG image", b"\xff\xd8\xff": "a JPEG image",
          b"%PDF": "a PDF document", b"PK\x03\x04": "a ZIP archive (an Excel workbook is one)",
          b"GIF8": "a GIF image", b"PAR1": "a Parquet file"}


def input_problem(path: Path) -> str | None:
    """Why ``path`` cannot be read as a file, in words (``"it does not exist"``), or None
    when it is a readable regular file."""
    if not os.path.lexists(path):
        return "it does not exist"
    if os.path.isdir(path):
        return "it is a folder, not a file"
    if not os.path.exists(path):
        return "it is a broken symbolic link"
    if not os.path.isfile(path):
        return "it is not a regular file"
    if not os.access(path, os.R_OK):
        return "it cannot be read (permission denied)"
    return None


def check_input_file(path: Path, what: str) -> None:
    """Raise ``ValueError`` (one line naming ``what`` and the path) unless ``path`` is a
    readable regular file."""
    problem = input_problem(path)
    if problem is not None:
        raise ValueError(f"{what} {str(path)!r}: {problem}.")


def check_data_file(path: Path, format: str | None = None) -> None:
    """The cheap checks of a data file (see the module's description); ``ValueError``
    with one line naming the file."""
    check_input_file(path, "the data file")
    shown = repr(str(path))
    gz = path.name.lower().endswith(".gz")
    inner = path.name[:-3] if gz else path.name
    fmt = format or DATA_EXTENSIONS.get(os.path.splitext(inner)[1].lower())
    if fmt is None:
        return  # the reader names the known extensions
    try:
        if gz:
            with gzip.open(path) as handle:
                head = handle.read(65536)
        else:
            with open(path, "rb") as handle:
                head = handle.read(65536)
    except (OSError, EOFError, zlib.error) as exc:
        if gz:
            raise ValueError(f"the data file {shown} is not a valid gzip file: {exc}") \
                from None
        raise
    kind = next((name for magic, name in _MAGIC.items() if head.startswith(magic)), None)
    if fmt == "parquet":
        if head and not head.startswith(b"PAR1"):
            raise ValueError(f"the data file {shown} is not a Parquet file"
                             f"{f': it holds {kind}' if kind else ''}.")
        return
    if kind is not None or b"\0" in head:
        hint = " (name it .parquet)" if kind == "a Parquet file" else ""
        raise ValueError(f"the data file {shown} is not a {fmt.upper()} file: it holds "
                         f"{kind or 'binary data, not text'}{hint}.")
    if fmt in ("csv", "tsv"):
        _separator(head, "," if fmt == "csv" else "\t", shown)


def _separator(head: bytes, sep: str, shown: str) -> None:
    first = head.lstrip(b"\r\n").split(b"\n", 1)[0].decode("latin-1").rstrip("\r")
    header = next(csv.reader([first], delimiter=sep), [])
    if len(header) != 1:
        return
    if sep == "," and "\t" in first:
        raise ValueError(f"the data file {shown} looks tab-separated (its first line has "
                         "tabs and no commas): name it .tsv, or save it with commas.")
    if sep == "\t" and "," in first:
        raise ValueError(f"the data file {shown} looks comma-separated (its first line has "
                         "commas and no tabs): name it .csv, or save it with tabs.")
    if ";" in first:
        word = "commas" if sep == "," else "tabs"
        raise ValueError(f"the data file {shown} looks semicolon-separated (its first line "
                         f"has semicolons and no {word}): save it with {word}.")
