"""Keys of the report cache: a figure or a section is redrawn only when what it shows changed.

A key is the SHA-256 of everything the piece depends on:

- the code that draws it: metaeval's version, a digest of metaeval's own source files
  (so an edited figure is redrawn even before the version changes) and the versions of
  matplotlib, NumPy, pandas and SciPy;
- what it is: the section or figure kind, its options, the report options it reads
  (threshold choice methods, threshold, success measure, resolution);
- the data it shows: the digest of its dataset (per-dataset figures and sections) or of
  the whole store (the others), from :func:`metaeval.store._cache.content_digests`;
  figures that draw no data (the ARR and A3R curves) depend on no digest.

The entries live in the store file (:mod:`metaeval.store._cache`); :class:`ReportCache`
holds them in memory for one report and writes back the ones it used. Each entry's value
starts with the SHA-256 of the JSON that follows (:func:`seal_text`), checked when the
cache is read: an entry whose text changed since it was written, or that is not JSON, is
a miss (drawn again and replaced), never a piece of the page.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

__all__ = ["ReportCache", "code_fingerprint"]


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """Digest of metaeval's version, source files and the drawing libraries' versions."""
    import matplotlib
    import numpy
    import pandas
    import scipy

    import metaeval

    h = hashlib.sha256()
    h.update(json.dumps([metaeval.__version__, matplotlib.__version__, numpy.__version__,
                         pandas.__version__, scipy.__version__]).encode())
    root = Path(metaeval.__file__).parent
    for path in sorted(root.rglob("*.py")) + sorted((root / "datasets" / "data").glob("*.csv")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _canonical(value):
    """Options as JSON-able data, so equal options give equal keys."""
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return _canonical(value.tolist())
    if isinstance(value, float):
        return repr(value)
    return value


_SEAL = "sha256="
_SEAL_LEN = len(_SEAL) + 64 + 1


def seal_text(text: str) -> str:
    """``text`` preceded by its SHA-256 (of its UTF-8 bytes), as the cache table holds it."""
    return f"{_SEAL}{hashlib.sha256(text.encode()).hexdigest()}\n{text}"


def sealed(value) -> str:
    """A cache entry's value as the table holds it: its JSON, sealed (:func:`seal_text`)."""
    return seal_text(json.dumps(value))


def unseal_text(value) -> str | None:
    """The text of a sealed value, or None when it is not one or its text changed."""
    if not isinstance(value, str) or len(value) < _SEAL_LEN or not value.startswith(_SEAL) \
            or value[_SEAL_LEN - 1] != "\n":
        return None
    text = value[_SEAL_LEN:]
    try:
        digest = hashlib.sha256(text.encode()).hexdigest()
    except UnicodeEncodeError:  # a lone surrogate: not what json.dumps wrote
        return None
    return text if digest == value[len(_SEAL):_SEAL_LEN - 1] else None


def make_key(*parts) -> str:
    """SHA-256 of the code fingerprint and ``parts`` (JSON-able after canonicalisation)."""
    text = json.dumps([code_fingerprint(), _canonical(list(parts))], default=repr,
                      sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


class ReportCache:
    """The cached figures and sections of one report, read from and written to the store.

    Parameters
    ----------
    store : metaeval.store.Store or None
    enabled : bool, default True
        False (or no store): nothing is read or written, no digest is taken, every
        piece is drawn.
    """

    def __init__(self, store, *, enabled: bool = True):
        from metaeval import __version__
        from metaeval.store import _cache as sql

        self.store = store
        self.enabled = bool(enabled) and store is not None
        self.version = __version__
        self.per_dataset: dict[str, str] = {}
        self.whole: str | None = None
        self.entries: dict[str, tuple[str, object]] = {}
        self.damaged = 0  # entries whose checksum or JSON failed: drawn again
        if self.enabled:
            self.per_dataset, self.whole = sql.content_digests(store)
            for key, (kind, value) in sql.read_cache(store, self.version).items():
                decoded = _decode(value)
                if decoded is _MISS:
                    self.damaged += value is not None
                    continue
                self.entries[key] = (kind, decoded)
        self.new: dict[str, tuple[str, object]] = {}
        self._sealed: dict[str, str] = {}  # key -> sealed text of a new entry, if made
        self.used: set[str] = set()
        self.hits = 0
        self.misses = 0
        self.note: str | None = None

    def digest(self, dataset: str | None) -> str:
        """The data digest of a dataset's pieces (None: of the whole store's)."""
        return self.whole if dataset is None else self.per_dataset.get(dataset)

    def get(self, key: str):
        """The cached value (decoded JSON, verified when read) under ``key``, or None."""
        got = self.new.get(key) or self.entries.get(key)
        if got is None:
            self.misses += 1
            return None
        self.hits += 1
        self.used.add(key)
        return got[1]

    def has(self, key: str) -> bool:
        return key in self.new or key in self.entries

    def put(self, key: str, kind: str, value, text: str | None = None) -> None:
        """Keep ``value`` under ``key``; ``text``: its :func:`sealed` text, when a worker
        made it already (else :meth:`save` makes it)."""
        if not self.enabled:
            return
        self.new[key] = (kind, value)
        if text is not None:
            self._sealed[key] = text
        self.used.add(key)

    def save(self) -> str | None:
        """Write the new entries and drop the unused ones; why not, or None when done."""
        if not self.enabled:
            return None
        if not self.new and self.used == set(self.entries):
            return None  # nothing changed: leave the file alone
        from metaeval.store import _cache as sql

        new = {k: (kind, self._sealed.get(k) or sealed(v)) for k, (kind, v) in self.new.items()}
        self.note = sql.write_cache(self.store, self.version, new, self.used)
        return self.note


_MISS = object()


def _decode(value):
    """The JSON value of a sealed cache entry, or ``_MISS`` (damaged, not JSON, None)."""
    text = unseal_text(value)
    if text is None:
        return _MISS
    try:
        return json.loads(text)
    except ValueError:
        return _MISS
