"""Small pieces of the page's HTML: escaped text, a row of figures, a table, a card."""

from __future__ import annotations

import html

import numpy as np
import pandas as pd

__all__ = ["_card", "_esc", "_row", "_table"]


def _esc(value) -> str:
    return html.escape(str(value), quote=True)


def _row(*figures_html: str) -> str:
    return '<div class="row">' + "".join(figures_html) + "</div>"


def _table(frame: pd.DataFrame, *, fmt="{:.3f}", best=None, text_columns=(), index=True,
           index_name=None, formats=None, best_by=None) -> str:
    """An escaped HTML table; ``best`` = "min" or "max" bolds the best of each column.

    ``formats`` maps a column to its own format (default ``fmt``); ``best_by``
    maps a column to its own "min" or "max" (a column in neither gets no mark).
    """
    formats = formats or {}
    cols = list(frame.columns)
    head = ""
    if index:
        head += f'<th class="text">{_esc(index_name or frame.index.name or "")}</th>'
    head += "".join(
        f'<th class="{"text" if c in text_columns else ""}">{_esc(c)}</th>' for c in cols)
    best_rows = {}
    for c in cols:
        how = (best_by or {}).get(c, best if best_by is None else None)
        if how not in ("min", "max") or c in text_columns:
            continue
        v = pd.to_numeric(frame[c], errors="coerce")
        if v.notna().any():
            target = v.min() if how == "min" else v.max()
            best_rows[c] = set(np.flatnonzero(np.isclose(v.to_numpy(), target)))
    rows = []
    for i, (label, row) in enumerate(frame.iterrows()):
        cells = f'<td class="text">{_esc(label)}</td>' if index else ""
        for c in cols:
            v = row[c]
            if c in text_columns or isinstance(v, str):
                cls = "error" if c == "error" else "text"
                cells += f'<td class="{cls}">{_esc("" if v is None else v)}</td>'
                continue
            if v is None or (isinstance(v, float) and not np.isfinite(v)):
                text = "–"
            elif isinstance(v, (int, np.integer)):
                text = str(int(v))
            else:
                text = formats.get(c, fmt).format(float(v))
            cls = ' class="best"' if i in best_rows.get(c, ()) else ""
            cells += f"<td{cls}>{_esc(text)}</td>"
        rows.append(f"<tr>{cells}</tr>")
    return (f'<div class="scroll"><table><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def _card(value, label, bad=False) -> str:
    cls = "card bad" if bad else "card"
    return f'<div class="{cls}"><b>{_esc(value)}</b><span>{_esc(label)}</span></div>'
