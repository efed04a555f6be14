"""What a command may write over: the one check of every output path of the command line.

An output never replaces

- an input of the same command: the same file by identity (device and inode, so also
  through a symbolic or hard link or another spelling of the path), not by name;
- a file inside the installed metaeval package (the shipped knowledge base among them);
- an existing file of another kind: a metaeval store (DuckDB), a data file (CSV, TSV,
  ARFF, Parquet, KEEL), a knowledge base file, a figure, an ASlib scenario folder or a
  report folder.

Writing over an output of the same kind (last run's JSON, knowledge base or figure) stays
allowed; a file of no kind recognised here is left to the writer's own checks
(:func:`metaeval._validation.check_output_file`). Every refusal is a ``ValueError`` of
one line naming the option, the file and the reason, raised before any work is done.

Standard library only: used before the heavy imports.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Iterable
from pathlib import Path

from metaeval.cli._files import DATA_EXTENSIONS

__all__ = ["OUTPUT_KINDS", "check_output", "kind_of", "package_folder"]

#: the kinds of file a command writes, in words
OUTPUT_KINDS = {
    "store": "a metaeval store (DuckDB)",
    "data": "a data file",
    "knowledge": "a knowledge base file",
    "figure": "a figure",
    "json": "a JSON file",
    "aslib": "an ASlib scenario folder",
    "report": "a report folder",
    "parquet": "a folder of Parquet tables",
}

_FIGURES = (b"\x89PNG", b"%PDF")


def package_folder() -> Path:
    """The installed metaeval package's folder (symbolic links resolved)."""
    import metaeval

    return Path(metaeval.__file__).resolve().parent


def kind_of(path) -> str | None:
    """The kind (a key of :data:`OUTPUT_KINDS`) of the existing file or folder ``path``,
    or None when it does not exist or is of no kind recognised here."""
    path = Path(path)
    if os.path.isdir(path):
        if (path / "description.txt").is_file():
            return "aslib"
        if (path / "index.html").is_file():
            return "report"
        return None
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as handle:
            head = handle.read(512)
    except OSError:
        return None
    if head[8:12] == b"DUCK":
        return "store"
    if head.startswith(b"PAR1"):
        return "data"
    if head.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(path) as archive:
                names = set(archive.namelist())
        except (OSError, zipfile.BadZipFile):
            return None
        return "knowledge" if {"format.npy", "checksum.npy"} <= names else None
    if head.startswith(_FIGURES) or (path.suffix.lower() == ".svg" and b"<svg" in head):
        return "figure"
    name = path.name.lower()
    name = name[:-3] if name.endswith(".gz") else name
    if os.path.splitext(name)[1] in DATA_EXTENSIONS:
        return "data"
    if head.lstrip().lower().startswith((b"@relation", b"%")) and b"@relation" in \
            head.lower():
        return "data"  # an ARFF file under another name
    return None


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder)
    except ValueError:
        return False
    return True


def check_output(path, what: str, kind: str, inputs: Iterable = ()) -> None:
    """Refuse to write ``kind`` (a key of :data:`OUTPUT_KINDS`) to ``path``, option
    ``what``, over an input, inside the package or over a file of another kind.

    Parameters
    ----------
    path : path-like
        The file or folder the command writes.
    what : str
        The option that names it (``"--out"``), used in the message.
    kind : str
        What the command writes there.
    inputs : iterable of (path-like or None, str)
        The command's inputs and the options that name them (``(store, "--store")``);
        None (not given) is skipped.

    Raises
    ------
    ValueError
        One line: the option, the path and the reason; the file is left untouched.
    """
    path = Path(os.fspath(path))
    for source, option in inputs:
        if source is None or not os.path.exists(path) or not os.path.exists(source):
            continue
        try:
            same = os.path.samefile(path, source)
        except OSError:
            continue
        if same:
            raise ValueError(f"{what}: {path} is the file of {option} ({source}), an input "
                             "of this command; writing there would replace it: choose "
                             "another path.")
    folder = package_folder()
    if _inside(path, folder):
        raise ValueError(f"{what}: {path} is inside the installed metaeval package "
                         f"({folder}); writing there would change metaeval itself: choose "
                         "a path outside it.")
    found = kind_of(path)
    if found is not None and found != kind:
        raise ValueError(f"{what}: {path} exists and is {OUTPUT_KINDS[found]}, not "
                         f"{OUTPUT_KINDS[kind]}; writing there would replace it: choose "
                         "another path (or remove it first).")
