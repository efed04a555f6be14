"""Product text cites the source papers by authors and year, never by internal names.

Users have never seen our working names for the five source documents ("seed 001") nor
our issue tracker ("issue 12"): neither may appear in ``src/``, ``docs/`` or the README.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: "seed 003", "Seeds 001", "seed-002", "seed_004"; "issue 12", "issues #3".
INTERNAL = re.compile(r"\bseeds?[\s_-]*00\d*|\bissues?\s*#?\s*\d+", re.IGNORECASE)
SKIPPED_DIRS = {"__pycache__"}


def _is_binary(path: Path) -> bool:
    head = path.read_bytes()[:8192]
    if b"\x00" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start < len(head) - 4  # a multibyte character cut by the 8 KiB limit
    return False


def text_files(paths):
    """Every text file under ``paths`` (files or folders), skipping *.egg-info."""
    for root in paths:
        root = Path(root)
        candidates = [root] if root.is_file() else sorted(root.rglob("*"))
        for path in candidates:
            parts = path.parts
            if any(p.endswith(".egg-info") or p in SKIPPED_DIRS for p in parts):
                continue
            if path.is_file() and not _is_binary(path):
                yield path


def internal_names(paths) -> list[tuple[str, int, str]]:
    """``(file, line number, match)`` for every internal name in the text files."""
    hits = []
    for path in text_files(paths):
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            hits.extend((str(path), number, m.group(0)) for m in INTERNAL.finditer(line))
    return hits


def test_planted_internal_names_are_found(tmp_path):
    planted = {
        "a.py": "# after seed 003, eq. 5\n",
        "b.md": "As Seeds 001 shows\n",
        "c.txt": "ok\nsee seed-002\n",
        "d.rst": "fixed in issue 12\n",
        "e.md": "see Issue #7 and issues 3\n",
        "f.py": 'x = "seed_004"\n',
    }
    for name, text in planted.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    clean = tmp_path / "clean.md"
    clean.write_text("Prudêncio (2019); random seed 0, seed=10, 100 issues; tissue 3\n",
                     encoding="utf-8")
    (tmp_path / "fig.png").write_bytes(b"\x89PNG\x00\x00 seed 001")  # binary: skipped
    egg = tmp_path / "pkg.egg-info"
    egg.mkdir()
    (egg / "PKG-INFO").write_text("seed 001\n", encoding="utf-8")  # build output: skipped

    hits = internal_names([tmp_path])
    found = {(Path(f).name, n, m.lower()) for f, n, m in hits}
    assert found == {("a.py", 1, "seed 003"), ("b.md", 1, "seeds 001"),
                     ("c.txt", 2, "seed-002"), ("d.rst", 1, "issue 12"),
                     ("e.md", 1, "issue #7"), ("e.md", 1, "issues 3"),
                     ("f.py", 1, "seed_004")}
    # a single planted file is found when given directly, too
    assert internal_names([tmp_path / "b.md"]) == [(str(tmp_path / "b.md"), 1, "Seeds 001")]
    assert internal_names([clean]) == []


def test_product_text_has_no_internal_names():
    paths = [ROOT / "src", ROOT / "docs", ROOT / "README.md"]
    assert all(p.exists() for p in paths)
    hits = internal_names(paths)
    assert not hits, "internal names in product text (cite authors and year instead):\n" + (
        "\n".join(f"{f}:{n}: {m}" for f, n, m in hits))
