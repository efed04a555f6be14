"""The shipped knowledge base is read and validated once per process while its file is
unchanged; every call gets its own copy."""

from __future__ import annotations

import os

import numpy as np

from metaeval.recommend import load_knowledge
from metaeval.recommend.knowledge._archive_file import read_shipped


def test_read_once_while_the_file_is_unchanged(tmp_path):
    path = tmp_path / "kb.bin"
    path.write_bytes(b"one")
    reads = []

    def read(p, label):
        reads.append(label)
        return {"values": np.array([1.0, 2.0]), "text": p.read_bytes()}

    first = read_shipped(path, "kb", read)
    second = read_shipped(path, "kb", read)
    assert len(reads) == 1
    assert second is not first and second["values"] is not first["values"]
    second["values"][0] = 99.0  # a caller's change reaches no other copy
    assert read_shipped(path, "kb", read)["values"][0] == 1.0
    assert len(reads) == 1
    # the file changed (its size and modification time): read and checked anew
    path.write_bytes(b"three")
    stat = os.stat(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert read_shipped(path, "kb", read)["text"] == b"three"
    assert len(reads) == 2


def test_the_shipped_knowledge_base_copies_are_independent():
    a, b = load_knowledge(), load_knowledge()
    assert a is not b and a.metrics is not b.metrics
    before = float(b.metrics[0, 0, 0])
    a.metrics[0, 0, 0] = before + 1.0
    assert float(load_knowledge().metrics[0, 0, 0]) == before
    assert a.provenance["checksum"] == b.provenance["checksum"]


def test_a_strategy_is_fitted_once_for_the_same_content(monkeypatch):
    """recommend() reuses a fit for a knowledge base equal in content, the same
    condition and strategy; a changed value, condition or strategy is fitted anew; a
    caller changing its recommendation's selection changes no later one."""
    from metaeval.datasets import load_dataset
    from metaeval.recommend import Condition, KnowledgeBase, _recommend, recommend
    from metaeval.recommend.learners._auto import Auto

    # another test module in this process may have fitted the same small knowledge base
    # (test_recommend_words builds one equal in content): start from an empty memory
    monkeypatch.setattr(_recommend, "_FITTED", {})
    fits = []
    real = Auto.fit

    def counted(self, *args, **kwargs):
        fits.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Auto, "fit", counted)

    def kb(first=0.9):
        return KnowledgeBase(["d1", "d2", "d3", "d4"], ["A", "B"],
                             [[first, .8], [.9, .7], [.8, .9], [.9, .8]], [[1.0, 2.0]] * 4)

    labor = load_dataset("labor")
    a = recommend(labor, kb())
    b = recommend(labor, kb())  # another object, the same content
    assert len(fits) == 1
    assert a.table.equals(b.table) and a.selection == b.selection
    b.selection["inner"]["changed"] = 1.0  # the caller's own copy
    assert "changed" not in recommend(labor, kb()).selection["inner"]
    assert len(fits) == 1
    recommend(labor, kb(first=0.5))  # one value changed
    assert len(fits) == 2
    recommend(labor, kb(), Condition(time_weight=1 / 64))  # another condition
    assert len(fits) == 3
