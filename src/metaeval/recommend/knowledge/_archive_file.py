"""Reading and checking a knowledge base file, array by array, before anything uses it.

A knowledge base file (``.npz``, see :class:`metaeval.recommend.KnowledgeArchive`) is
read member by member (each member's zip CRC-32 checked as it is read), then validated
in full: every array's shape against the counts the file declares (datasets,
configurations, metrics, landmarkers, meta-features, grid points), its values against
their range (finite; times not negative; metrics and hardness within their bounds; class
counts that add up), and its names against the columns they label. Last, the SHA-256
over every array (the ``checksum`` member, written by :meth:`KnowledgeArchive.save`)
must match: a value changed within its range is caught there.

Two formats are read. ``metaeval-knowledge/1`` holds one repetition of the
cross-validation: ``metrics`` (D, A, M), ``curve:<method>`` (D, A, G) and ``time:<clock>``
(D, A). ``metaeval-knowledge/2`` (written now) gives every per-task array a leading
repetition axis -- ``metrics`` (R, D, A, M), ``curve:<method>`` (R, D, A, G),
``time:<clock>`` (R, D, A) -- and names the study's repeats in ``repetitions`` (R,).
Its score-driven and rate-driven curves (the bulk of the file) are quantised: each
value rounded to a multiple of :data:`QUANTUM` (2**-28, an error of at most 2**-29,
about 1.9e-9, finer than the float32 of format 1), kept as ``int32`` second differences
along the grid (:func:`encode_curves`, :func:`decode_curves`), which deflate compresses
to about half of the float32 bytes (the shipped 51 x 152 file's two grid methods: 6.29
MB as float32, 4.57 MB as first differences, 3.27 MB as second differences); a failed
task's curve is ``-1`` then zeros.

Anything wrong raises one ``ValueError`` that names the file and the array.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
import zlib

import numpy as np

from metaeval._validation import atomic_output

#: The member holding the checksum over every other array.
CHECKSUM = "checksum"
_HEX = re.compile(r"^sha256:[0-9a-f]{64}$")

#: the range of each metric's success (the two losses turned into gains)
_METRIC_RANGE = {"mcc": (-1.0, 1.0)}
# float rounding of sums of many terms (an average precision of 1.0000000000000002)
_SLACK = 1e-9
# hardness is an expected cost with costs 2c and 2(1 - c): at most 2 (float32 curves)
_HARDNESS_MAX = 2.0
_CURVE_SLACK = 1e-6
#: The step of the quantised grid curves of format 2 (values are multiples of it).
QUANTUM = 2.0**-28
#: The formats this module reads (the last is the one written).
FORMATS = ("metaeval-knowledge/1", "metaeval-knowledge/2")


def machine() -> dict:
    """The machine a knowledge base is built or described on (its provenance)."""
    import os
    import platform

    return {"platform": platform.platform(), "processor": platform.processor() or None,
            "cores": os.cpu_count(), "python": platform.python_version()}


def package_version(name):
    """An installed package's version (None when it is not installed)."""
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a checkout
        return None


def study_runs(store) -> list:
    """The runs of the study behind a knowledge base (its provenance)."""
    out = []
    for r in store.runs().itertuples(index=False):
        env = r.environment if isinstance(r.environment, dict) else {}
        out.append({"started": str(r.started), "finished": str(r.finished),
                    "environment": env})
    return out


def encode_curves(values) -> np.ndarray:
    """Grid curves ``(..., G)`` in [0, 2] as ``int32`` second differences of the values
    rounded to multiples of :data:`QUANTUM` (the first value, then the first difference,
    then the differences of those: a curve that is linear between grid points gives
    zeros); a curve holding NaN (a failed task) becomes ``-1`` followed by zeros.

    Examples
    --------
    >>> QUANTUM == 2**-28  # 0.5 is 2**27 quanta, 0.25 is 2**26
    True
    >>> encode_curves([[0.0, 0.5, 0.25], [np.nan] * 3]).tolist()
    [[0, 134217728, -201326592], [-1, 0, 0]]
    """
    values = np.asarray(values, dtype=np.float64)
    failed = np.isnan(values).any(axis=-1)
    q = np.rint(np.where(failed[..., None], 0.0, values) / QUANTUM).astype(np.int64)
    d = np.diff(np.diff(q, axis=-1, prepend=0), axis=-1, prepend=0)
    d[failed] = 0
    d[failed, 0] = -1
    if np.abs(d).max(initial=0) > np.iinfo(np.int32).max:
        raise ValueError("grid curves must lie within [0, 2] to be quantised.")
    return d.astype(np.int32)


def decode_curves(deltas) -> np.ndarray:
    """The float64 curves of :func:`encode_curves`'s differences (NaN for a failed task).

    Examples
    --------
    >>> decode_curves(encode_curves([[0.0, 0.5, 0.25], [np.nan] * 3])).tolist()
    [[0.0, 0.5, 0.25], [nan, nan, nan]]
    """
    deltas = np.asarray(deltas)
    values = np.cumsum(np.cumsum(deltas, axis=-1, dtype=np.int64), axis=-1) * QUANTUM
    failed = deltas[..., 0] == -1
    values[failed] = np.nan
    return values


def quantise_curves(values) -> np.ndarray:
    """``values`` as format 2 keeps them (rounded to multiples of :data:`QUANTUM`)."""
    return decode_curves(encode_curves(values))


def array_checksum(arrays: dict) -> str:
    """``"sha256:<hex>"`` over every array but the checksum itself: each array's name,
    dtype, shape and C-order bytes, in sorted order of the names.

    The same arrays give the same checksum whatever wrote the file (the ``.npy`` headers
    and the zip's compression do not enter it).
    """
    h = hashlib.sha256()
    for name in sorted(arrays):
        if name == CHECKSUM:
            continue
        a = np.ascontiguousarray(arrays[name])
        head = json.dumps([name, a.dtype.str, list(a.shape)]).encode()
        h.update(len(head).to_bytes(8, "little"))
        h.update(head)
        h.update(a.nbytes.to_bytes(8, "little"))
        h.update(memoryview(a.reshape(-1)).cast("B") if a.size else b"")
    return "sha256:" + h.hexdigest()


def write_members(path, arrays: dict, what: str = "path"):
    """Write ``arrays`` and their checksum as a compressed ``.npz`` file, deterministically.

    Member by member in sorted order with a fixed timestamp (``np.savez_compressed``
    stamps the current time into the zip), so the same arrays give the same bytes;
    through a temporary file beside ``path`` that is removed on any failure.
    """
    arrays = {k: np.asarray(v, order="C") for k, v in arrays.items() if k != CHECKSUM}
    arrays[CHECKSUM] = np.array(array_checksum(arrays))
    with atomic_output(path, what, make_parents=True) as fh, \
            zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED,
                            compresslevel=9) as zf:
        for name in sorted(arrays):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, arrays[name], allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, buf.getvalue(), compresslevel=9)


def read_members(path, label) -> dict:
    """Every array of the ``.npz`` file at ``path`` (no pickles), by member name."""
    try:
        zf = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile, EOFError, ValueError) as exc:
        raise ValueError(
            f"{label} is not a metaeval knowledge base (not an .npz file written by "
            f"`metaeval knowledge build`: {exc}).") from None
    data = {}
    with zf:
        names = [i.filename for i in zf.infolist()]
        for member in names:
            name = member[:-4] if member.endswith(".npy") else member
            if not member.endswith(".npy") or name in data:
                what = "appears twice" if name in data else "is not a NumPy array (.npy)"
                raise ValueError(f"{label} is damaged: its member {member!r} {what}.")
            try:
                with zf.open(member) as fh:
                    data[name] = np.lib.format.read_array(fh, allow_pickle=False)
                    if fh.read(1):
                        raise ValueError("bytes after the array")
            except (OSError, zipfile.BadZipFile, zlib.error, EOFError, ValueError,
                    NotImplementedError, RuntimeError) as exc:
                raise ValueError(f"{label} is damaged: array {name!r} cannot be read "
                                 f"({' '.join(str(exc).split())[:200]}).") from None
    return data


class _Checker:
    """Collects the checks of one file; the first problem raises, naming the array."""

    def __init__(self, data, label):
        self.data, self.label = data, label

    def fail(self, name, text):
        raise ValueError(f"{self.label} is damaged or incomplete: array {name!r} {text}.")

    def get(self, name):
        if name not in self.data:
            raise ValueError(f"{self.label} is damaged or incomplete: it has no array "
                             f"{name!r}.")
        return self.data[name]

    def names(self, name, n=None, *, unique=True):
        a = self.get(name)
        if a.ndim != 1 or a.dtype.kind != "U" and not (a.size == 0 and a.dtype.kind in "fS"):
            self.fail(name, f"must be a 1-dimensional array of names, got dtype {a.dtype} "
                            f"and shape {a.shape}")
        values = tuple(str(v) for v in a)
        if n is not None and len(values) != n:
            self.fail(name, f"has {len(values)} names, expected {n}")
        if any(not v.strip() for v in values):
            self.fail(name, "holds an empty name")
        if unique and len(set(values)) != len(values):
            seen = [v for i, v in enumerate(values) if v in values[:i]]
            self.fail(name, f"names {seen[0]!r} twice")
        return values

    def quantised(self, name, shape, what):
        """Grid curves of format 2: int32 second differences (:func:`encode_curves`) whose
        curves lie within [0, 2], a failed task's being ``-1`` then zeros."""
        a = self.get(name)
        if a.dtype != np.int32:
            self.fail(name, f"must hold int32 differences of quantised curves, got dtype "
                            f"{a.dtype}")
        if a.shape != tuple(shape):
            self.fail(name, f"has shape {a.shape}, expected {tuple(shape)} ({what})")
        if a.size == 0:
            return a
        failed = a[..., 0] == -1
        if np.any(a[failed][:, 1:] != 0):
            self.fail(name, "marks a failed task (-1) whose other differences are not 0")
        values = np.cumsum(np.cumsum(np.where(failed[..., None], 0, a), axis=-1,
                                     dtype=np.int64), axis=-1)
        least, most = values.min(), values.max()
        if least < 0:
            self.fail(name, f"holds a curve value of {least * QUANTUM:g}, below its least "
                            "possible value 0")
        if most * QUANTUM > _HARDNESS_MAX:
            self.fail(name, f"holds a curve value of {most * QUANTUM:g}, above its greatest "
                            f"possible value {_HARDNESS_MAX:g}")
        return a

    def numbers(self, name, shape, what, *, low=None, high=None, nan=True, kind="f"):
        a = self.get(name)
        if a.dtype.kind not in ("iu" if kind == "i" else "fiu"):
            self.fail(name, f"must hold {'integers' if kind == 'i' else 'numbers'}, got dtype "
                            f"{a.dtype}")
        if shape is None:
            shape = a.shape
        if a.shape != tuple(shape):
            self.fail(name, f"has shape {a.shape}, expected {tuple(shape)} ({what})")
        if a.size == 0:
            return a
        if a.dtype.kind == "f":
            flat = a.reshape(-1)
            least, most = np.fmin.reduce(flat), np.fmax.reduce(flat)  # NaN ignored
            if np.isinf(least) or np.isinf(most):
                self.fail(name, "holds infinite values")
            if np.isnan(least) or not nan and np.isnan(flat).any():
                self.fail(name, "holds missing (NaN) values")
        else:
            least, most = a.min(), a.max()
        if low is not None and least < low:
            self.fail(name, f"holds {least:g}, below its least possible value {low:g}")
        if high is not None and most > high:
            self.fail(name, f"holds {most:g}, above its greatest possible value {high:g}")
        return a

    def text(self, name):
        a = self.get(name)
        if a.ndim != 0 or a.dtype.kind != "U":
            self.fail(name, f"must be one string, got dtype {a.dtype} and shape {a.shape}")
        return str(a)


def check_members(data: dict, label: str, *, fmt, methods, grid_size: int,
                  linear_methods, metric_names_known) -> dict:
    """Validate every array of a knowledge base file; return its provenance (a dict).

    ``fmt``: the format read (a string) or the formats read (a tuple of strings, e.g.
    :data:`FORMATS`); the file's own ``format`` member says which layout it has.

    Raises
    ------
    ValueError
        Naming ``label`` (the file) and the first array that is wrong.
    """
    c = _Checker(data, label)
    if "format" not in data:
        raise ValueError(f"{label} has format 'unknown'; this metaeval reads {fmt!r} "
                         "(rebuild it with `metaeval knowledge build`).")
    formats = (fmt,) if isinstance(fmt, str) else tuple(fmt)
    version = c.text("format")
    if version not in formats or version not in FORMATS:
        reads = " or ".join(repr(f) for f in formats)
        raise ValueError(f"{label} has format {version or 'unknown'!r}; this metaeval reads "
                         f"{reads} (rebuild it with `metaeval knowledge build`).")
    lead: tuple = ()
    if version != FORMATS[0]:
        repeats = c.numbers("repetitions", None, "the study's repeat of each repetition",
                            low=0, nan=False, kind="i")
        if repeats.ndim != 1 or repeats.size == 0:
            c.fail("repetitions", f"must be a non-empty 1-dimensional array, got shape "
                                  f"{repeats.shape}")
        if np.any(np.diff(repeats) <= 0):
            c.fail("repetitions", "must name each repeat once, in increasing order")
        lead = (repeats.size,)
    R = f"{lead[0]} repetitions x " if lead else ""
    datasets = c.names("datasets")
    algorithms = c.names("algorithms")
    D, A = len(datasets), len(algorithms)
    if D == 0 or A == 0:
        c.fail("datasets" if D == 0 else "algorithms", "is empty")
    c.names("families", D, unique=False)
    metric_names = c.names("metric_names")
    unknown = [m for m in metric_names if m not in metric_names_known]
    if unknown:
        c.fail("metric_names", f"holds {unknown[0]!r}, which is not a metric of metaeval")
    M = len(metric_names)
    n = c.numbers("n_instances", (D,), "one per dataset", low=1, nan=False, kind="i")
    metrics = c.numbers("metrics", (*lead, D, A, M), f"{R}{D} datasets x {A} configurations "
                        f"x {M} metrics")
    for j, m in enumerate(metric_names):
        low, high = _METRIC_RANGE.get(m, (0.0, 1.0))
        column = metrics[..., j]
        column = column[np.isfinite(column)]
        if column.size and (column.min() < low - _SLACK or column.max() > high + _SLACK):
            worst = column.min() if column.min() < low else column.max()
            c.fail("metrics", f"holds {m} = {worst:g}, outside [{low:g}, {high:g}]")
    for m in methods:
        G = 2 if m in linear_methods else grid_size
        what = (f"{R}{D} datasets x {A} configurations x {G} "
                f"{'ends (c = 0 and c = 1)' if G == 2 else 'grid points'}")
        if lead and G != 2:
            c.quantised(f"curve:{m}", (*lead, D, A, G), what)
        else:
            c.numbers(f"curve:{m}", (*lead, D, A, G), what,
                      low=-_CURVE_SLACK, high=_HARDNESS_MAX + _CURVE_SLACK)
    for clock in ("cpu", "wall"):
        c.numbers(f"time:{clock}", (*lead, D, A), f"{R}{D} datasets x {A} configurations; "
                  "seconds", low=0.0)
    landmarkers = c.names("landmarkers")
    L = len(landmarkers)
    try:
        provenance = json.loads(c.text("provenance"))
    except json.JSONDecodeError as exc:
        c.fail("provenance", f"is not JSON ({exc})")
    if not isinstance(provenance, dict):
        c.fail("provenance", "must be a JSON object")
    grid = provenance.get("grid")
    if grid is not None and (not isinstance(grid, dict) or grid.get("points") != grid_size):
        c.fail("provenance", f"declares a grid of {grid!r}; this metaeval reads curves on "
                             f"{grid_size} points")
    counts = _counts(c, provenance, "class_counts", D)
    if counts is not None and not np.array_equal(counts.sum(axis=1), n):
        i = int(np.flatnonzero(counts.sum(axis=1) != n)[0])
        c.fail("provenance", f"has class counts {counts[i].tolist()} for {datasets[i]!r}, "
                             f"which has {int(n[i])} instances")
    if L:
        c.numbers("landmark_metrics", (D, L, M),
                  f"{D} datasets x {L} landmarkers x {M} metrics", low=-1 - _SLACK,
                  high=1 + _SLACK)
        for m in methods:
            G = 2 if m in linear_methods else grid_size
            c.numbers(f"landmark_curve:{m}", (D, L, 2, G),
                      f"{D} datasets x {L} landmarkers x 2 classes x {G} points",
                      low=-_CURVE_SLACK, high=_HARDNESS_MAX + _CURVE_SLACK)
        land = _counts(c, provenance, "landmark_class_counts", D, required=True)
        if (land.sum(axis=1) == 0).any() or (land.sum(axis=1) > n).any():
            c.fail("provenance", "has landmark class counts that do not fit the datasets' "
                                 "instances")
    else:
        extra = [k for k in data if k == "landmark_metrics" or k.startswith("landmark_curve:")]
        if extra:
            c.fail(extra[0], "is given for an archive without landmarkers")
    if "metafeatures" in data or "metafeature_names" in data:
        names = c.names("metafeature_names")
        c.numbers("metafeatures", (D, len(names)),
                  f"{D} datasets x {len(names)} meta-features")
    description = sorted(k for k in data if k.startswith("description_time:"))
    if description or "description_time_columns" in data:
        columns = c.names("description_time_columns")
        for need in ("pymfe", "landmarker"):
            if need not in columns:
                c.fail("description_time_columns", f"lacks {need!r}")
        if [k.split(":", 1)[1] for k in description] != ["cpu", "wall"]:
            c.fail("description_time:cpu", "and 'description_time:wall' must both be given")
        for k in description:
            c.numbers(k, (D, len(columns)), f"{D} datasets x {len(columns)} columns; seconds",
                      low=0.0, nan=False)
    known = {"format", "datasets", "algorithms", "families", "metric_names", "n_instances",
             "metrics", "landmarkers", "provenance", "landmark_metrics", "metafeatures",
             "metafeature_names", "description_time_columns", CHECKSUM,
             *(f"curve:{m}" for m in methods), *(f"landmark_curve:{m}" for m in methods),
             "time:cpu", "time:wall", "description_time:cpu", "description_time:wall",
             *(("repetitions",) if lead else ())}
    extra = sorted(set(data) - known)
    if extra:
        c.fail(extra[0], "is not part of a knowledge base")
    if CHECKSUM not in data:
        raise ValueError(f"{label} has no checksum (array {CHECKSUM!r}): its arrays cannot be "
                         "told intact; rebuild it with `metaeval knowledge build`.")
    stored = c.text(CHECKSUM)
    if not _HEX.match(stored):
        c.fail(CHECKSUM, "is not a SHA-256 checksum ('sha256:' and 64 hex digits)")
    if array_checksum(data) != stored:
        raise ValueError(f"{label} is damaged: its arrays do not match its checksum (array "
                         f"{CHECKSUM!r}); it was changed after it was built. Rebuild it with "
                         "`metaeval knowledge build`.")
    # the file's checksum, which stored evaluations name (never written back: save()
    # leaves it out)
    return {**provenance, "checksum": stored}


def _counts(c, provenance, key, D, required=False):
    if key not in provenance:
        if required:
            c.fail("provenance", f"lacks {key!r} (the class counts of each dataset)")
        return None
    try:
        counts = np.asarray(provenance[key])
    except (ValueError, TypeError):
        counts = np.zeros(0)
    if counts.shape != (D, 2) or counts.dtype.kind not in "iu" or (counts < 0).any():
        c.fail("provenance", f"has {key} of shape {counts.shape}, expected ({D}, 2) counts "
                             "of instances (class 0, class 1)")
    return counts


def check_some_finished(metrics, by_repetition, curves, datasets, label):
    """Refuse a file with a dataset on which no configuration finished (every metric and
    curve NaN; with several repetitions of the cross-validation, none finished in all of
    them): no condition could score it."""
    finished = np.isfinite(metrics).any(axis=2) | np.any(
        [np.isfinite(v).any(axis=-1) for v in curves.values()], axis=0)
    lost = ~finished.any(axis=1)
    if lost.any():
        every = " in every repetition of the cross-validation" if by_repetition else ""
        raise ValueError(f"{label}: dataset {datasets[int(np.argmax(lost))]!r} has no "
                         f"configuration that finished on it{every} (every metric is NaN); "
                         "build the knowledge base again without it.")


#: The shipped knowledge base as last read and validated in this process, by the file's
#: (path, size, modification time): {key: archive}.
_SHIPPED: dict = {}


def read_shipped(path, label, read):
    """The shipped knowledge base file at ``path`` read by ``read(path, label)``, once
    per process: a later call whose file has the same path, size and modification time
    gets a deep copy of the archive validated then (what a caller changes in its copy
    reaches no other), another file is read and validated anew."""
    import copy
    import os

    stat = os.stat(path)
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _SHIPPED:
        archive = read(path, label)
        _SHIPPED.clear()
        _SHIPPED[key] = archive
    return copy.deepcopy(_SHIPPED[key])


def check_threshold(condition):
    """Refuse a condition whose threshold is not the 0.5 a knowledge base keeps."""
    if condition.threshold != 0.5:
        raise ValueError(f"the knowledge base keeps results at threshold 0.5, not "
                         f"{condition.threshold:g}; use a store for another threshold.")
