"""The command line's tables, drawn to fit the width of the output.

A table is drawn like rich's default table (a heavy head, a light body). When it is
wider than the width it must fit, its cells are wrapped at their spaces, widest column
first (a name column also after its commas and colons, as ``rf:trees=100,`` /
``leaf=5``); when even the narrowest wrapping is too wide, its columns are split into
as few groups as that wrapping allows, each drawn as a table of its own that repeats
the key columns (those that say which row it is: a rank, an algorithm), and chosen to
wrap as little as they can. A word is never cut, so a number is never
truncated nor rounded: only a word longer than a whole column can be on its own (a
checksum or an address in a narrow terminal) is folded onto more lines.
"""

from __future__ import annotations

import re
import textwrap

__all__ = ["fit_table", "wrap_name", "wrap_text"]


def _pieces(text: str, name: bool) -> list[tuple[str, str]]:
    """``(piece, glue)`` pairs of ``text``: where a line may break, and ``glue`` (a space
    or nothing) between a piece and the one before it on the same line. A name breaks
    after its commas and colons too."""
    pieces = []
    for k, word in enumerate(text.split(" ")):
        parts = [p for p in re.split(r"(?<=[,:])", word) if p] if name else [word]
        for j, part in enumerate(parts or [""]):
            pieces.append((part, " " if k and not j else ""))
    return pieces


def _wrap(text: str, width: int, name: bool = False) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken where :func:`_pieces`
    allows; a piece longer than ``width`` alone is folded. A ``"\\n"`` starts a line."""
    lines = []
    for para in text.split("\n"):
        if len(para) <= width:
            lines.append(para)
            continue
        line = None
        for piece, glue in _pieces(para, name):
            if line is not None and len(line) + len(glue) + len(piece) <= width:
                line += glue + piece
                continue
            if line is not None:
                lines.append(line)
            while len(piece) > width:
                lines.append(piece[:width])
                piece = piece[width:]
            line = piece
        lines.append(line or "")
    return lines


def wrap_name(name: str, width: int) -> list[str]:
    """``name`` cut into lines of at most ``width`` characters after its commas and colons
    (``rf:trees=100,`` / ``leaf=5``), and inside a part only when one part is longer."""
    return _wrap(name, width, name=True)


def wrap_text(text: str, width: int | None) -> list[str]:
    """A paragraph in lines of at most ``width`` characters (no limit: None), broken at
    its spaces; a word is never cut (one longer than ``width`` stands on its own line)."""
    if width is None:
        return text.split("\n")
    return [line for para in text.split("\n")
            for line in (textwrap.wrap(para, width, break_long_words=False,
                                       break_on_hyphens=False) or [""])]


def _least(text: str, name: bool) -> int:
    """The narrowest a column can be without cutting a piece of ``text``."""
    return max(len(p) for para in text.split("\n") for p, _ in _pieces(para, name))


def _total(widths) -> int:
    """The width of a table whose columns are ``widths`` wide (borders and padding)."""
    return sum(widths) + 3 * len(widths) + 1


def _shrink(widths: list[int], floors: list[int], width: int) -> list[int]:
    """``widths`` narrowed, the widest first and none below its floor, until the table
    fits ``width`` (or every column is at its floor)."""
    widths = list(widths)
    for _ in range(_total(widths) - width):
        wider = [i for i, w in enumerate(widths) if w > floors[i]]
        if not wider:
            break
        widths[max(wider, key=lambda i: (widths[i], -i))] -= 1
    return widths


def _pack(natural, least, width, keys, slack) -> list[list[int]]:
    """The columns after the ``keys`` first in consecutive groups, each as long as the
    keys and it fit ``width`` wrapped, and ``width + slack`` unwrapped."""
    key = list(range(keys))
    groups, group = [], []
    for c in range(keys, len(natural)):
        trial = key + group + [c]
        if group and (_total([least[i] for i in trial]) > width
                      or _total([natural[i] for i in trial]) > width + slack):
            groups.append(group)
            group = []
        group.append(c)
    return [*groups, group]


def _groups(natural, least, width, keys) -> list[tuple[list[int], list[int]]]:
    """``(columns, widths)`` of each table the columns are drawn in: one when wrapping
    makes them fit ``width``; else as few groups as wrapping allows, each of the key
    columns and the next others, chosen to wrap as little as they can."""
    n = len(natural)
    if _total(natural) <= width:
        return [(list(range(n)), list(natural))]
    if _total(least) <= width:
        return [(list(range(n)), _shrink(natural, least, width))]
    keys = min(keys, n - 1)
    fewest = len(_pack(natural, least, width, keys, _total(natural)))
    low, high = 0, _total(natural)  # the least slack that still gives that many groups
    while low < high:
        mid = (low + high) // 2
        if len(_pack(natural, least, width, keys, mid)) <= fewest:
            high = mid
        else:
            low = mid + 1
    fitted = []
    for group in _pack(natural, least, width, keys, low):
        columns = list(range(keys)) + group
        widths = _shrink([natural[i] for i in columns], [least[i] for i in columns], width)
        if _total(widths) > width:  # a word longer than a column can be: folded
            widths = _shrink(widths, [1] * len(widths), width)
        fitted.append((columns, widths))
    return fitted


def fit_table(title: str, columns, rows, *, width: int | None = None,
              wrap: int | None = None, keys: int = 1) -> list[str]:
    """The lines of a table drawn like rich's default table, at most ``width``
    characters wide (None: as wide as its cells).

    ``columns``: ``(header, justify)`` pairs, justify ``"left"`` or ``"right"``; a header
    may hold ``"\\n"`` (more lines); no header at all when every header is empty.
    ``rows``: sequences of cell strings. ``wrap``: the index of a column of names,
    wrapped after their commas and colons too (:func:`wrap_name`). ``keys``: how many
    leading columns every group repeats when the table is split into groups of columns.
    """
    heads = [h for h, _ in columns]
    right = [j == "right" for _, j in columns]
    rows = [[str(c) for c in r] for r in rows]
    named = [i == wrap for i in range(len(columns))]
    natural = [max(len(x) for c in [heads[i], *(r[i] for r in rows)] for x in c.split("\n"))
               for i in range(len(columns))]
    # a header breaks after its commas and colons too (an algorithm's name in a header)
    least = [max([_least(heads[i], True), *(_least(r[i], named[i]) for r in rows)])
             for i in range(len(columns))]
    lines = [line for para in title.split("\n") for line in wrap_text(para, width)
             ] if title else []
    if width is None:
        groups = [(list(range(len(columns))), natural)]
    else:
        groups = _groups(natural, [max(x, 1) for x in least], width, keys)
    for cols, widths in groups:
        lines += _draw([heads[i] for i in cols], [right[i] for i in cols],
                       [[r[i] for i in cols] for r in rows], widths,
                       [named[i] for i in cols])
    return lines


def _draw(heads, right, rows, widths, named) -> list[str]:
    """The lines of one table whose columns are ``widths`` wide."""
    def block(cells, bar, names) -> list[str]:
        parts = [_wrap(c, w, n) for c, w, n in zip(cells, widths, names, strict=True)]
        depth = max(len(p) for p in parts)
        parts = [p + [""] * (depth - len(p)) for p in parts]
        return [bar + bar.join(f" {p[k].rjust(w) if r else p[k].ljust(w)} "
                               for p, w, r in zip(parts, widths, right, strict=True)) + bar
                for k in range(depth)]

    def rule(left, mid, end, fill):
        return left + mid.join(fill * (w + 2) for w in widths) + end

    if any(heads):
        lines = [rule("┏", "┳", "┓", "━"), *block(heads, "┃", [True] * len(heads)),
                 rule("┡", "╇", "┩", "━")]
    else:
        lines = [rule("┌", "┬", "┐", "─")]
    for r in rows:
        lines += block(r, "│", named)
    lines.append(rule("└", "┴", "┘", "─"))
    return lines
