"""Input validation shared by the measure modules, and checks of output paths.

Every public measure validates its inputs first and raises a ``ValueError``
whose message names the argument and what is wrong, as scikit-learn does.

The output-path helpers keep every file metaeval writes a regular file: they refuse a
device, a FIFO, a socket or a directory where a file is wanted (``--out /dev/full`` must
never replace the system's device), refuse a read-only directory rather than replace it,
and write through a temporary file beside the target that is removed on any failure.
"""

from __future__ import annotations

import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path

# NumPy is imported by the functions that need it: the output-path helpers are used by
# the command line before its heavy imports (a usage error comes at once).

__all__ = [
    "usable_cores",
    "check_binary_target",
    "check_scores",
    "check_cost_proportions",
    "check_output_file",
    "check_output_dir",
    "atomic_output",
    "write_atomic",
]


def usable_cores() -> int:
    """Cores this process may run on: its CPU affinity where the system says, else every
    core (the one count that --jobs defaults and caps use everywhere)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def check_binary_target(y, *, pos_label=1, name="y", require_both=False):
    """Return ``y`` as an int8 array of 0/1, where 1 marks ``pos_label``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels with at most two distinct values.
    pos_label : scalar, default=1
        The label that becomes class 1 (the papers' "negative" class; the
        score estimates P(y = class 1)). When ``y`` holds two labels,
        ``pos_label`` must be one of them. When it holds one label, that
        label is class 1 if it equals ``pos_label`` and class 0 otherwise.
    name : str, default="y"
        The argument's name, used in error messages.
    require_both : bool, default=False
        Raise when only one class is present.

    Returns
    -------
    y01 : ndarray of shape (n_samples,), dtype int8

    Examples
    --------
    >>> check_binary_target(["b", "a", "b"], pos_label="b")
    array([1, 0, 1], dtype=int8)
    """
    import numpy as np

    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got an array of shape {y.shape}.")
    if y.size == 0:
        raise ValueError(f"{name} is empty; at least one instance is needed.")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError(f"{name} contains NaN or infinite labels.")
    if y.dtype.kind == "O" and any(v is None for v in y.tolist()):
        raise ValueError(f"{name} contains missing labels (None).")
    if y.dtype.kind in "biuf":
        # O(n) fast path for numeric labels (no sort): valid when every label that is
        # not pos_label is one and the same value. Anything else falls through to the
        # exact checks below, which name the problem.
        is_pos = y == pos_label
        rest = y[~is_pos]
        valid = rest.size == 0 or rest.min() == rest.max()
        if valid and (not require_both or 0 < rest.size < y.size):
            return is_pos.astype(np.int8)
    labels = np.unique(y)
    if labels.size > 2:
        shown = ", ".join(repr(v) for v in labels[:5].tolist())
        raise ValueError(
            f"{name} has {labels.size} distinct labels ({shown}"
            f"{', ...' if labels.size > 5 else ''}); "
            "metaeval handles binary classification only, with two labels."
        )
    if labels.size == 2 and pos_label not in labels.tolist():
        raise ValueError(
            f"pos_label={pos_label!r} is not one of the labels in {name}: "
            f"{labels.tolist()!r}."
        )
    if require_both and labels.size < 2:
        raise ValueError(
            f"Only one class is present in {name} ({labels[0]!r}); "
            "this measure needs instances of both classes."
        )
    return (y == pos_label).astype(np.int8)


def check_scores(s, *, n_samples=None, name="s", bounded=True, allow_2d=True):
    """Return scores as a float64 array, checked for shape, finiteness and range.

    Parameters
    ----------
    s : array-like of shape (n_samples,) or (n_samples, n_models)
    n_samples : int, optional
        Required first dimension (the length of ``y``).
    name : str, default="s"
    bounded : bool, default=True
        Require every score to lie in [0, 1] (score-based methods).
    allow_2d : bool, default=True
        Accept a pool of models, one column each.

    Examples
    --------
    >>> check_scores([0.2, 1.0], n_samples=2)
    array([0.2, 1. ])
    """
    import numpy as np

    s = np.asarray(s)
    if s.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numeric, got dtype {s.dtype}.")
    s = s.astype(np.float64, copy=False)
    if s.ndim not in ((1, 2) if allow_2d else (1,)):
        expected = "1- or 2-dimensional" if allow_2d else "1-dimensional"
        raise ValueError(f"{name} must be {expected}, got an array of shape {s.shape}.")
    if n_samples is not None and s.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {s.shape[0]} rows but y has {n_samples} labels; "
            "they must have the same length."
        )
    if s.size and not np.all(np.isfinite(s)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    if bounded and s.size and (s.min() < 0.0 or s.max() > 1.0):
        raise ValueError(
            f"{name} must lie in [0, 1] for score-based methods "
            f"(found values in [{s.min():g}, {s.max():g}])."
        )
    return s


def check_cost_proportions(c, *, name="c"):
    """Return cost proportions as a float64 array, each in [0, 1].

    Examples
    --------
    >>> check_cost_proportions(0.3)
    array(0.3)
    """
    import numpy as np

    c = np.asarray(c, dtype=np.float64)
    if c.size and not np.all(np.isfinite(c)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    if c.size and (c.min() < 0.0 or c.max() > 1.0):
        raise ValueError(
            f"{name} must lie in [0, 1] (cost proportions); got [{c.min():g}, {c.max():g}]."
        )
    return c


def _kind(mode: int) -> str | None:
    """What a non-regular, non-directory file is, in words (None for a regular file or
    a directory)."""
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
        return None
    return "not a regular file"


def check_output_file(path, what: str) -> Path:
    """Return ``path`` as a :class:`~pathlib.Path` when a regular file may be written there.

    An existing regular file (it will be replaced) and a path that does not exist yet are
    accepted; so is a missing parent directory (the caller may create it). A directory, a
    character or block device, a FIFO or a socket -- also behind a symbolic link -- is
    refused, as is a parent that exists but is not a directory or is read-only.

    Parameters
    ----------
    path : str or path-like
    what : str
        The option or argument that names the path (``"--out"``), used in messages.

    Raises
    ------
    ValueError
        Naming ``what`` and the path.

    Examples
    --------
    >>> check_output_file("/dev/null", "--out")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: --out: /dev/null is a character device, not a regular file; ...
    """
    path = Path(os.fspath(path))
    if str(path) in ("", "."):
        raise ValueError(f"{what} must name a file to write, got {str(path)!r}.")
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        mode = None
    except NotADirectoryError:
        raise ValueError(
            f"{what}: {path} cannot be written, a part of its parent is a file, "
            "not a directory.") from None
    if mode is not None:
        if stat.S_ISDIR(mode):
            raise ValueError(
                f"{what}: {path} is a directory; give the path of a file to write.")
        kind = _kind(mode)
        if kind is not None:
            raise ValueError(
                f"{what}: {path} is {kind}, not a regular file; "
                "give the path of a file to write.")
    parent = path.parent
    try:
        parent_mode = parent.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        parent_mode = None
    if parent_mode is not None and not stat.S_ISDIR(parent_mode):
        raise ValueError(f"{what}: {parent} (the folder of {path.name}) is not a directory.")
    if parent_mode is not None and _read_only(parent, parent_mode):
        raise ValueError(
            f"{what}: cannot write {path}, its directory {parent} is read-only; "
            "it is left as it is.")
    return path


def check_output_dir(path, what: str) -> Path:
    """Return ``path`` as a :class:`~pathlib.Path` when files may be written into it.

    A path that does not exist yet is accepted (the caller creates it). An existing
    directory must be writable: a read-only directory is refused and left as it is,
    never replaced. Anything else that exists (a file, a device, a FIFO) is refused.

    Raises
    ------
    ValueError
        Naming ``what`` and the path.
    """
    path = Path(os.fspath(path))
    if str(path) == "":
        raise ValueError(f"{what} must name a directory, got ''.")
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        mode = None
    except NotADirectoryError:
        raise ValueError(
            f"{what}: {path} cannot be a directory, a part of its parent is a file.") from None
    if mode is None:
        parent = path.parent
        try:
            parent_mode = parent.stat().st_mode
        except (FileNotFoundError, NotADirectoryError):
            return path
        if not stat.S_ISDIR(parent_mode):
            raise ValueError(f"{what}: {parent} (the parent of {path.name}) is not a directory.")
        return path
    if not stat.S_ISDIR(mode):
        kind = _kind(mode) or "a file"
        raise ValueError(f"{what}: {path} is {kind}, not a directory.")
    if _read_only(path, mode):
        raise ValueError(
            f"{what}: the directory {path} is read-only; it is left as it is. "
            "Make it writable or give another directory.")
    return path


def _read_only(path: Path, mode: int) -> bool:
    """Whether a directory is read-only: no write permission for this user, or no write
    bit at all (a 555 directory is read-only also for root, who could write into it)."""
    return not (stat.S_IMODE(mode) & 0o222) or not os.access(path, os.W_OK | os.X_OK)


def _new_file_mode() -> int:
    """The permissions a newly created file gets (0o666 less the umask)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextmanager
def atomic_output(path, what: str, *, mode: str = "wb", make_parents: bool = False,
                  encoding: str | None = None):
    """Open a temporary file beside ``path``; on success it replaces ``path`` at once.

    The target is checked with :func:`check_output_file` first. The temporary file has
    a unique hidden name in the target's directory (so the final rename is atomic) and
    is removed on any failure, including KeyboardInterrupt and SystemExit: no ``.tmp``
    file is ever left behind. The new file gets the permissions of the file it replaces,
    or those of a newly created file (0o666 less the umask).

    Parameters
    ----------
    path : str or path-like
    what : str
        The option that names the path, for messages.
    mode : {"wb", "w"}
    make_parents : bool, default=False
        Create missing parent directories.
    encoding : str, optional
        For text mode (UTF-8 when not given).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "x.txt"
    >>> with atomic_output(target, "--out", mode="w") as fh:
    ...     _ = fh.write("hello")
    >>> target.read_text()
    'hello'
    """
    if mode not in ("wb", "w"):
        raise ValueError(f"mode must be 'wb' or 'w', got {mode!r}.")
    path = check_output_file(path, what)
    if make_parents:
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        permissions = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        permissions = _new_file_mode()
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                                    dir=path.parent if str(path.parent) else ".")
    tmp = Path(tmp_name)
    try:
        if mode == "w":
            handle = os.fdopen(fd, "w", encoding=encoding or "utf-8", newline="")
        else:
            handle = os.fdopen(fd, "wb")
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, permissions)
        # checked again: the target may have become a directory or a device meanwhile
        check_output_file(path, what)
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except FileNotFoundError:
            pass
        raise


def write_atomic(path, data, what: str, *, make_parents: bool = False) -> Path:
    """Write ``data`` (``bytes`` or ``str``, UTF-8) to ``path`` through
    :func:`atomic_output`; return the path."""
    text = isinstance(data, str)
    with atomic_output(path, what, mode="w" if text else "wb",
                       make_parents=make_parents) as handle:
        handle.write(data)
    return Path(os.fspath(path))


def json_text(document, *, compact=("curves",)) -> str:
    """``document`` (a dict) as JSON indented by one space, except the lists under the
    top-level keys ``compact``: one record per line, without spaces.

    An evaluation's curves are some 200,000 small records; indented, they are written by
    the standard library's pure-Python encoder (several seconds), a record at a time by
    its C encoder (a fraction of one). ``json.loads`` reads back the same document.

    >>> import json
    >>> doc = {"a": 1, "curves": [{"x": 1}, {"x": None}], "b": [2]}
    >>> print(json_text(doc))
    {
     "a": 1,
     "curves": [
      {"x":1},
      {"x":null}
     ],
     "b": [
      2
     ]
    }
    >>> json.loads(json_text(doc)) == doc
    True
    """
    import json

    marks, pieces = {}, {}
    head = dict(document)
    for n, key in enumerate(k for k in compact if k in document):
        rows = document[key]
        mark = marks[key] = f"\x00compact-{n}\x00"
        head[key] = mark
        if hasattr(rows, "columns") and hasattr(rows, "to_numpy"):  # a frame
            pieces[json.dumps(mark)] = _frame_lines(rows)
        else:
            pieces[json.dumps(mark)] = _record_lines(rows) if rows else "[]"
    text = json.dumps(head, indent=1)
    for mark, piece in pieces.items():
        text = text.replace(mark, piece, 1)
    return text


def _record_lines(rows) -> str:
    """A list of records as JSON, one record per line, without spaces. A list of dicts
    is written in one call of the C encoder (a call per record took about a third more
    time on 485,000 curve records) and cut between records where ``},{`` occurs exactly
    once per boundary (no string holds it); anything else a record at a time."""
    import json

    if isinstance(rows, list) and all(type(r) is dict for r in rows):
        text = json.dumps(rows, separators=(",", ":"), allow_nan=False)
        if text.count("},{") == len(rows) - 1:
            return "[\n  " + text[1:-1].replace("},{", "},\n  {") + "\n ]"
    lines = ",\n  ".join(json.dumps(r, separators=(",", ":"), allow_nan=False)
                         for r in rows)
    return f"[\n  {lines}\n ]"


def _frame_lines(frame) -> str:
    """``_record_lines(json_records(frame))``, the same text, written from the frame's
    columns without making a dict per row (an ASlib evaluation's curves are some
    500,000 rows: a second or two less). Each column's values become JSON texts as the
    encoder writes them in a record: numbers and null in one call of the C encoder over
    the column, cut at its commas (none of those texts holds one); strings one distinct
    string at a time; anything else a value at a time. Column names that are not
    distinct strings: the records, as before."""
    import json

    if len(frame) == 0:
        return "[]"
    names = list(frame.columns)
    if not all(type(k) is str for k in names) or len(set(names)) != len(names):
        return _record_lines(json_records(frame))
    texts = []
    for values in json_records_columns(frame).values():
        if all(v is None or type(v) in (int, float, bool) for v in values):
            texts.append(json.dumps(values, separators=(",", ":"),
                                    allow_nan=False)[1:-1].split(","))
        elif all(v is None or type(v) is str for v in values):
            texts.append(list(map(_Texts().__getitem__, values)))
        else:
            texts.append([json.dumps(v, separators=(",", ":"), allow_nan=False)
                          for v in values])
    keys = [json.dumps(k).replace("%", "%%") for k in names]
    template = "{" + ",".join(f"{k}:%s" for k in keys) + "}"
    return "[\n  " + ",\n  ".join(map(template.__mod__, zip(*texts, strict=True))) + "\n ]"


class _Texts(dict):
    """Each string's (or None's) JSON text, made once."""

    def __missing__(self, value):
        import json

        text = self[value] = json.dumps(value)
        return text


def json_records(frame) -> list:
    """``frame``'s rows as dicts of plain Python values, NaN and infinities as None
    (``to_dict(orient="records")`` with every float made a finite number or None), built
    column by column: an evaluation's curves are some 200,000 rows.

    >>> import pandas as pd
    >>> json_records(pd.DataFrame({"a": [1.5, float("nan")], "b": ["x", None]}))
    [{'a': 1.5, 'b': 'x'}, {'a': None, 'b': None}]
    """
    columns = json_records_columns(frame)
    names = list(columns)
    return [dict(zip(names, row, strict=True)) for row in zip(*columns.values(), strict=True)]


def json_records_columns(frame) -> dict:
    """The columns of :func:`json_records`: each a list of plain Python values (NaN and
    infinities as None)."""
    import math

    def number(v):
        return v if math.isfinite(v) else None

    columns = {}
    for name in frame.columns:
        values = frame[name].to_numpy()
        if values.dtype.kind == "f":
            columns[name] = [number(v) for v in values.tolist()]
        elif values.dtype.kind in "iub":
            columns[name] = values.tolist()
        else:  # objects: strings, None, and NaN for a step that names no algorithm
            columns[name] = [number(float(v)) if isinstance(v, float) else v
                             for v in values]
    return columns
