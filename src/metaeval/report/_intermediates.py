"""Per-dataset intermediates of the report, kept in the report cache between reports.

The whole-study sections read every dataset's pool hardness, algorithm
dissimilarities and per-instance selection results; when one dataset changes, the
sections are written again, but only that dataset's intermediates need computing.
:class:`StoredIntermediates` replaces a :class:`~metaeval.report._plots.StudyView`'s
in-memory cache: entries of the kinds below are looked up in (and added to) the
report cache under a key made of the dataset's digest, the view's options and the
code fingerprint. Values are stored as NumPy ``.npy``/``.npz`` or Parquet bytes (no
pickle: a store file may come from elsewhere).
"""

from __future__ import annotations

import base64
import io

import numpy as np
import pandas as pd

__all__ = ["StoredIntermediates"]


def _npy(value) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.asarray(value), allow_pickle=False)
    return buf.getvalue()


def _from_npy(raw: bytes):
    return np.load(io.BytesIO(raw), allow_pickle=False)


def _npz(value: dict) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **{str(k): np.asarray(v) for k, v in value.items()})
    return buf.getvalue()


def _from_npz(raw: bytes) -> dict:
    with np.load(io.BytesIO(raw), allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


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


class StoredIntermediates(dict):
    """A StudyView cache whose per-dataset intermediates come from the report cache.

    Parameters
    ----------
    view : StudyView
        Its options (methods, threshold) are part of the keys.
    digests : dict of str to str
        Data digest per dataset.
    stored : dict of str to str
        Cached values (base64 text) by key, as the report cache holds them.
    """

    def __init__(self, view, digests: dict, stored: dict):
        super().__init__(view._cache)
        self._options = (tuple(view.methods), view.t)
        self._digests = digests
        self._stored = stored
        self.new: dict[str, str] = {}
        self.used: set[str] = set()

    def key_of(self, key) -> str | None:
        """The report-cache key of a view cache key, or None when it is not kept."""
        if not (isinstance(key, tuple) and len(key) >= 2 and key[0] in CODECS):
            return None
        digest = self._digests.get(key[1])
        if digest is None:
            return None
        from metaeval.report._cache import make_key

        return make_key("intermediate", list(key), self._options, digest)

    def __contains__(self, key) -> bool:
        if dict.__contains__(self, key):
            return True
        stored_key = self.key_of(key)
        if stored_key is None or stored_key not in self._stored:
            return False
        raw = base64.b64decode(self._stored[stored_key])
        dict.__setitem__(self, key, CODECS[key[0]][1](raw))
        self.used.add(stored_key)
        return True

    def __setitem__(self, key, value) -> None:
        dict.__setitem__(self, key, value)
        stored_key = self.key_of(key)
        if stored_key is not None and stored_key not in self._stored:
            raw = CODECS[key[0]][0](value)
            self.new[stored_key] = base64.b64encode(raw).decode("ascii")
            self.used.add(stored_key)
