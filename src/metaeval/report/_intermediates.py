"""Per-dataset intermediates of the report, kept on disk rather than in memory.

The whole-study sections read every dataset's pool hardness, algorithm
dissimilarities and per-instance selection results. :class:`StoredIntermediates`
replaces a :class:`~metaeval.report._plots.StudyView`'s in-memory cache: entries of
the kinds below are written, as they are computed, to a directory shared by the
report's processes (one file per key, made of the dataset's digest, the view's
options and the code fingerprint), and read back from it. With the report cache on,
the directory sits beside the store (``<store>.report-cache``) and keeps them for the
next report, which recomputes only a changed dataset's; otherwise it is a temporary
one. Only the most recently used are kept decoded in memory (:data:`MEMORY_BUDGET`
bytes per process), so a study of hundreds of algorithms (a 500 x 500 dissimilarity
matrix per method and dataset) is read one dataset at a time, never all at once.

Values are stored as NumPy ``.npy``/``.npz`` or Parquet bytes (no pickle: a file may
come from elsewhere); a symmetric dissimilarity matrix with a zero diagonal is stored
condensed (:func:`scipy.spatial.distance.squareform`), bit for bit. Each file starts
with the SHA-256 of the bytes that follow (:func:`seal`), checked whenever it is read: a
file whose bytes changed since (a flipped bit, a file cut short), one this code did not
write, or a directory where the file should be, is a miss, computed again and replaced,
never a value.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["MEMORY_BUDGET", "StoredIntermediates"]

#: bytes of decoded intermediates one process keeps in memory (least recently used
#: dropped beyond it: they are read again from disk when needed)
MEMORY_BUDGET = 64 * 2**20


#: first bytes of every intermediate's file, followed by the SHA-256 (hex) of the payload
#: and a newline
MAGIC = b"metaeval-intermediate sha256="
_HEAD = len(MAGIC) + 64 + 1


def seal(payload: bytes) -> bytes:
    """``payload`` preceded by :data:`MAGIC` and its SHA-256, as the files hold it."""
    return MAGIC + hashlib.sha256(payload).hexdigest().encode("ascii") + b"\n" + payload


def unseal(raw: bytes) -> bytes | None:
    """The payload of a sealed file, or None when it is not one or its bytes changed."""
    if len(raw) < _HEAD or not raw.startswith(MAGIC) or raw[_HEAD - 1:_HEAD] != b"\n":
        return None
    payload = raw[_HEAD:]
    if hashlib.sha256(payload).hexdigest().encode("ascii") != raw[len(MAGIC):_HEAD - 1]:
        return None
    return payload


def _npy(value) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.asarray(value), allow_pickle=False)
    return buf.getvalue()


def _from_npy(raw: bytes):
    return np.load(io.BytesIO(raw), allow_pickle=False)


_CONDENSED = "condensed:"


def _npz(value: dict) -> bytes:
    """Arrays by name; square, exactly symmetric, zero-diagonal ones condensed."""
    from scipy.spatial.distance import squareform

    arrays = {}
    for k, v in value.items():
        v = np.asarray(v)
        if (v.ndim == 2 and v.shape[0] == v.shape[1] and v.shape[0] > 1
                and v.dtype == np.float64 and np.array_equal(v, v.T)
                and not np.diagonal(v).any()):
            arrays[_CONDENSED + str(k)] = squareform(v, checks=False)
        else:
            arrays[str(k)] = v
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _from_npz(raw: bytes) -> dict:
    from scipy.spatial.distance import squareform

    out = {}
    with np.load(io.BytesIO(raw), allow_pickle=False) as z:
        for k in z.files:
            if k.startswith(_CONDENSED):
                out[k[len(_CONDENSED):]] = squareform(z[k], checks=False)
            else:
                out[k] = z[k]
    return out


def _parquet(value) -> bytes:
    if value is None:
        return b""
    buf = io.BytesIO()
    value.to_parquet(buf, index=True)
    return buf.getvalue()


def _from_parquet(raw: bytes):
    return None if not raw else pd.read_parquet(io.BytesIO(raw))


#: kind of view cache entry (first item of its key) -> (encode, decode); the second
#: item of the key is the dataset
CODECS = {
    "hardness": (_npy, _from_npy),
    "dissimilarity": (_npz, _from_npz),
    "instance-selection:selection": (_parquet, _from_parquet),
}


def _nbytes(value) -> int:
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, dict):
        return sum(_nbytes(v) for v in value.values())
    if isinstance(value, pd.DataFrame):
        return int(value.memory_usage(index=True, deep=False).sum())
    return 0


class StoredIntermediates(dict):
    """A StudyView cache whose per-dataset intermediates live on disk.

    Parameters
    ----------
    view : StudyView
        Its options (methods, threshold) are part of the keys.
    digests : dict of str to str
        Data digest per dataset.
    spill : path-like
        Directory of the intermediates, one file per key, shared by the report's
        processes.
    """

    def __init__(self, view, digests: dict, spill):
        super().__init__(view._cache)
        self._options = (tuple(view.methods), view.t)
        self._digests = digests
        self.spill = Path(spill)
        self.new: set[str] = set()
        self.used: set[str] = set()
        self._lru: OrderedDict = OrderedDict()  # view key -> bytes in memory
        self._held = 0

    def key_of(self, key) -> str | None:
        """The report-cache key of a view cache key, or None when it is not kept."""
        if not (isinstance(key, tuple) and len(key) >= 2 and key[0] in CODECS):
            return None
        digest = self._digests.get(key[1])
        if digest is None:
            return None
        from metaeval.report._cache import make_key

        return make_key("intermediate", list(key), self._options, digest)

    def _raw(self, stored_key: str) -> bytes | None:
        """The verified payload of a file, or None (absent, a directory, damaged)."""
        try:
            raw = (self.spill / stored_key).read_bytes()
        except OSError:  # not there (yet), or not a file
            return None
        return unseal(raw)

    def _keep(self, key, value) -> None:
        if key in self._lru:
            self._held -= self._lru.pop(key)
        dict.__setitem__(self, key, value)
        self._lru[key] = _nbytes(value)
        self._held += self._lru[key]
        while self._held > MEMORY_BUDGET and len(self._lru) > 1:
            old, size = self._lru.popitem(last=False)
            self._held -= size
            dict.pop(self, old, None)

    def __contains__(self, key) -> bool:
        if dict.__contains__(self, key):
            if key in self._lru:
                self._lru.move_to_end(key)
            return True
        stored_key = self.key_of(key)
        if stored_key is None:
            return False
        raw = self._raw(stored_key)
        if raw is None:
            return False
        try:
            value = CODECS[key[0]][1](raw)
        except Exception:  # a file that is not what this code wrote: computed again
            return False
        self._keep(key, value)
        self.used.add(stored_key)
        return True

    def __setitem__(self, key, value) -> None:
        stored_key = self.key_of(key)
        if stored_key is None:
            dict.__setitem__(self, key, value)
            return
        # set after a miss (absent, damaged, or a file this code cannot read): written,
        # replacing it whole, so the other processes see all of it or none
        if self._write(stored_key, seal(CODECS[key[0]][0](value))):
            self.new.add(stored_key)
            self.used.add(stored_key)
        self._keep(key, value)

    def _write(self, stored_key: str, raw: bytes) -> bool:
        """Write a file whole (through a temporary one, never left behind); False when
        it cannot be written: the value is then kept in this process only."""
        path = self.spill / stored_key
        tmp = path.with_name(f"{stored_key}.{os.getpid()}.tmp")
        try:
            try:
                tmp.write_bytes(raw)
                if path.is_dir() and not path.is_symlink():  # a directory in its place
                    shutil.rmtree(path)
                os.replace(tmp, path)
            finally:
                tmp.unlink(missing_ok=True)
        except OSError:
            return False
        return True
