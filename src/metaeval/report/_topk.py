"""Top-k views of the report for wide pools, and the family rankings.

With hundreds of configurations a per-algorithm table or bar chart stops being
legible. Above :data:`TOP_K` algorithms the report's rankings and benchmark sections
show the ``k`` best (by average rank, AR, of Abdulrahman & Brazdil 2014, or by value
captured) and add the same tables by family, each family represented on each dataset
by its best member (:func:`metaeval.ranking.rank_families`,
:func:`metaeval.benchmark.family_value`).

:func:`top_names`, :func:`restrict` and :func:`only` are pure; the other
functions read a :class:`metaeval.report._plots.StudyView`.
"""

from __future__ import annotations

import pandas as pd

__all__ = ["TOP_K", "top_names", "restrict", "only", "family_rankings",
           "family_value_table"]

#: Above this many algorithms, per-algorithm tables and figures show the best ``TOP_K``.
TOP_K = 20


def top_names(ordered, k: int) -> list[str] | None:
    """The first ``k`` names of ``ordered`` (best first), or None when there are at most k.

    Examples
    --------
    >>> top_names(["a", "b", "c"], 2), top_names(["a", "b"], 2)
    (['a', 'b'], None)
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}.")
    names = [str(n) for n in ordered]
    return names[:k] if len(names) > k else None


def restrict(values: pd.Series | pd.DataFrame, algorithms) -> pd.Series | pd.DataFrame:
    """Rows of ``values`` (indexed by algorithm) for ``algorithms``, in their given order.

    Examples
    --------
    >>> restrict(pd.Series({"a": 1, "b": 2, "c": 3}), ["c", "a"]).to_dict()
    {'c': 3, 'a': 1}
    """
    if algorithms is None:
        return values
    names = [str(a) for a in ([algorithms] if isinstance(algorithms, str) else algorithms)]
    missing = [a for a in names if a not in values.index]
    if missing:
        raise ValueError(f"algorithms {missing[:5]} are not among the {len(values)} shown.")
    return values.loc[names]


def only(frame: pd.DataFrame, algorithms) -> pd.DataFrame:
    """The rows of a long frame (column ``algorithm``) for ``algorithms`` only.

    Examples
    --------
    >>> f = pd.DataFrame({"algorithm": ["a", "b", "c"], "value": [1, 2, 3]})
    >>> only(f, ["c", "a"])["value"].tolist()
    [1, 3]
    """
    if algorithms is None:
        return frame
    names = [str(a) for a in ([algorithms] if isinstance(algorithms, str) else algorithms)]
    known = set(frame["algorithm"].astype(str))
    missing = [a for a in names if a not in known]
    if missing:
        raise ValueError(f"algorithms {missing[:5]} have no results here.")
    return frame[frame["algorithm"].astype(str).isin(names)]


def family_rankings(view, *, accd=0.1, n=8, how="best") -> dict[str, pd.DataFrame]:
    """The five rankings of the families of the view's common algorithms.

    Keys as :meth:`StudyView.rankings`; frames ``[algorithm, score, rank]`` with the
    family in ``algorithm`` (so :func:`metaeval.report.data.ranks_table` takes them).
    """
    import warnings

    from metaeval.algorithms import families
    from metaeval.ranking import family_success, family_times, rank_algorithms

    success, hib = view.success()
    fams = families(sorted(success["algorithm"].unique()))
    if len(set(fams.values())) < 2:
        raise ValueError("one family only: nothing to rank by family.")
    times = view.times()
    times = times[times["dataset"].isin(success["dataset"].unique())
                  & times["algorithm"].isin(success["algorithm"].unique())]
    fs = family_success(success, fams, how=how, higher_is_better=hib)
    ft = family_times(times, success, fams, how=how, higher_is_better=hib)
    out = {"AR": rank_algorithms(fs, method="ar", higher_is_better=hib),
           "SRR": rank_algorithms(fs, method="srr", higher_is_better=hib),
           "SW": rank_algorithms(fs, method="sw", higher_is_better=hib)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # ARR's pole, shown in the table
        out[f"ARR (AccD={accd:g})"] = rank_algorithms(fs, ft, method="arr", accd=accd,
                                                      higher_is_better=hib)
    out[f"A3R (n={n:g})"] = rank_algorithms(fs, ft, method="a3r", n=n, higher_is_better=hib)
    return out


def family_value_table(view) -> pd.DataFrame:
    """:func:`metaeval.benchmark.family_value` of the view's value captured, by family."""
    from metaeval.algorithms import families
    from metaeval.benchmark import family_value

    vc = view.value_captured()
    fams = families(sorted(vc["algorithm"].unique()))
    if len(set(fams.values())) < 2:
        raise ValueError("one family only: nothing to summarise by family.")
    return family_value(vc, fams).set_index("family")
