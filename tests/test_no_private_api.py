"""No private attribute of another library: every ``x._name`` in metaeval's sources is a
name metaeval itself defines (a module, function, class, method or attribute of its own).

A leading underscore is a library's way of saying "not for you": matplotlib's SVG
renderer's bookkeeping or an axes' ``_left_title`` change between releases without a
word, and a user with another release would get whatever they do there.
"""

from __future__ import annotations

import ast
from pathlib import Path

import metaeval

SRC = Path(metaeval.__file__).parent
#: underscore names that their libraries document as public
DOCUMENTED = {"_asdict", "_replace", "_fields", "_make", "_exit"}


def _own_names(trees) -> set[str]:
    names = {p.stem for p in SRC.rglob("*.py")} | {p.name for p in SRC.rglob("*") if p.is_dir()}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.alias):
                names.add(node.asname or node.name.split(".")[-1])
    return names


def _foreign_private(text: str | ast.AST, own: set[str]) -> list[str]:
    """The foreign private attributes of source ``text`` (or of its parsed tree)."""
    found = []
    for node in ast.walk(ast.parse(text) if isinstance(text, str) else text):
        if isinstance(node, ast.Attribute):
            name = node.attr
            if name.startswith("_") and not name.startswith("__") and name not in own \
                    and name not in DOCUMENTED:
                found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_private_attribute_of_another_library_in_the_sources():
    files = sorted(SRC.rglob("*.py"))
    trees = [ast.parse(p.read_text(encoding="utf-8")) for p in files]
    own = _own_names(trees)
    bad = {str(p.relative_to(SRC)): got for p, tree in zip(files, trees, strict=True)
           if (got := _foreign_private(tree, own))}  # each file parsed once
    assert not bad, bad


def test_the_check_finds_what_the_report_once_used():
    # what the report read and wrote of matplotlib's private state before it was removed
    own = _own_names([ast.parse((SRC / "report" / "_backdrop.py").read_text())])
    for code in ("ax._left_title", "svg._markers.update(x)",
                 "writer._XMLWriter__flush()", "axis._update_label_position(r)",
                 "getattr(fig, 'x') or fig._original_dpi"):
        assert _foreign_private(code, own), code
    assert not _foreign_private("view._cached", own | {"_cached"})
