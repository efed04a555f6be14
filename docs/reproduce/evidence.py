"""Claims, their evidence and verdicts, and how they are written in markdown."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

#: "reproduced" needs the claim to hold in at least this share of the bootstrap resamples
SHARE_MIN = 0.90
#: ... and the null model's p-value, after Holm's correction over every counted claim, to be
#: at most this (the family-wise error rate).
NULL_MAX = 0.05
SAMPLED = "sampled"
#: Kinds of claim that are shown with their numbers but not counted as reproductions.
UNCOUNTED = {"by construction": "true for every input (an identity or an inequality of the "
                                "formulas); checked numerically, not counted",
             "exact": "arithmetic on a paper's own printed numbers or example; no sampling",
             "descriptive": "a number the document reports without a threshold to meet",
             "not evaluable": "the study lacks an algorithm or dataset the claim names"}
VERDICTS = ("reproduced", "unstable", "not above chance", "not reproduced")
CLAIM_LINE = "- **({id})** {text} — **{verdict}**"
#: Where a section's claims go; filled in once every claim is known (Holm's correction needs
#: them all).
CLAIMS_MARK = "<<claims: {ids}>>"
#: A claim tested in the BRACIS (b) and the MetaSel (m) version of Melo & Prudêncio (2014).
VERSIONED = re.compile(r"^(?P<stem>.+\d)(?P<version>[bm])$")


def verdict(kind, holds, share, p_value) -> str:
    """The verdict of a claim, from its evidence.

    Parameters
    ----------
    kind : str
        ``"sampled"`` for a claim checked on our data with resamples and a null model;
        any key of :data:`UNCOUNTED` otherwise.
    holds : bool or None
        Whether the claim holds on the full data.
    share : float or None
        Share of the bootstrap resamples that keep the full-data verdict.
    p_value : float or None
        The null model's p-value, Holm-adjusted over the counted claims (a claim assessed
        alone is a family of one: its p-value as it is).

    Returns
    -------
    str
        ``"not reproduced"`` when the claim fails on our data; ``"not above chance"``
        when it holds but its p-value exceeds :data:`NULL_MAX`;
        ``"unstable"`` when fewer than :data:`SHARE_MIN` of the resamples keep it;
        ``"reproduced"`` otherwise. Uncounted kinds return the kind (``"exact"`` with
        ``": holds"`` or ``": fails"``).
    """
    if kind != SAMPLED:
        if kind == "exact":
            return "exact: holds" if holds else "exact: fails"
        return kind
    if not holds:
        return "not reproduced"
    if p_value is None or p_value > NULL_MAX:
        return "not above chance"
    if share is None or share < SHARE_MIN:
        return "unstable"
    return "reproduced"


@dataclass(frozen=True)
class Criterion:
    """When a statistic makes a claim hold: ``statistic <op> threshold``."""

    op: str
    threshold: float

    def __call__(self, values) -> np.ndarray:
        v = np.asarray(values, dtype=float)
        t = self.threshold
        with np.errstate(invalid="ignore"):
            out = {"<": v < t, "<=": v <= t + 1e-12, ">": v > t, ">=": v >= t - 1e-12,
                   "==": np.abs(v - t) < 1e-9}[self.op]
        return out & np.isfinite(v)

    def __str__(self) -> str:
        sym = {"<": "<", "<=": "≤", ">": ">", ">=": "≥", "==": "="}[self.op]
        return f"{sym} {num(self.threshold)}"


@dataclass(frozen=True)
class Claim:
    """A claim of a paper, how we measure it and the evidence we found."""

    id: str
    document: str
    source: str
    text: str
    statistic: str
    criterion: Criterion | None = None
    kind: str = SAMPLED
    value: float | None = None
    holds: bool | None = None
    interval: tuple | None = None
    interval_note: str = ""
    share: float | None = None
    n_boot: int = 0
    boot_unit: str = ""
    null_model: str = ""
    null_rate: float | None = None
    n_null: int = 0
    evidence: tuple = ()
    #: Holm-adjusted p-value of the null, set by :func:`holm` (None: not corrected yet)
    p_holm: float | None = None

    @property
    def p_null(self) -> float | None:
        """The null's Monte Carlo p-value, (1 + draws on which the claim holds) / (1 + draws).

        Never 0: with ``n`` draws the smallest is ``1 / (n + 1)``.
        """
        if self.null_rate is None or not self.n_null:
            return None
        return (1.0 + round(self.null_rate * self.n_null)) / (1.0 + self.n_null)

    @property
    def verdict(self) -> str:
        p = self.p_holm if self.p_holm is not None else self.p_null
        return verdict(self.kind, self.holds, self.share, p)


def recentred_interval(boot, value, *, level=0.95):
    """The percentile interval of ``boot``, moved so that its median sits on ``value``.

    ``[value - (q50 - q_lo), value + (q_hi - q50)]``, the ``q`` being percentiles of the
    resamples (the nearest resample for a statistic whose resamples are all integers), kept
    within the values that the statistic took (``value`` and the resamples). It always
    contains ``value``. The plain percentile interval does not when resamples run to one
    side of it: the largest absolute difference over several algorithms, for one, comes out
    larger on nearly every resample, because each resample adds noise to every difference
    and the largest one picks it up. The correction removes that median bias. The
    bias-corrected (BC) percentile interval would not help: it contains ``value`` exactly
    when the plain one does, when between 2.5% and 97.5% of the resamples lie below it.

    Returns
    -------
    tuple of two floats, or None when no resample is finite.
    """
    boot = np.asarray(boot, dtype=float).ravel()
    finite = boot[np.isfinite(boot)]
    if not finite.size or not np.isfinite(value):
        return None
    integers = bool(np.all(finite == np.round(finite)))
    tail = 100 * (1 - level) / 2
    lo, mid, hi = np.percentile(finite, [tail, 50, 100 - tail],
                                method="nearest" if integers else "linear")
    low = max(value - (mid - lo), min(value, finite.min()))
    high = min(value + (hi - mid), max(value, finite.max()))
    return float(low), float(high)


def holm(claims) -> list[Claim]:
    """Holm's correction of the null p-values over every counted (sampled) claim.

    Holm (1979), by :func:`metaeval.ranking.holm_adjust`: sort the ``m`` p-values,
    multiply the ``i``-th smallest by ``m - i + 1``, and make the sequence non-decreasing
    (capped at 1). A claim's verdict then needs its
    adjusted p-value to be at most :data:`NULL_MAX`, which keeps the chance of any false
    "above chance" among all the claims at most 5%. Every counted claim is in the family,
    those that fail on our data too, and each version of a claim of Melo & Prudêncio (2014)
    tested in both the BRACIS and the MetaSel version separately (a larger family than the
    claims counted in the summary, so the correction is, if anything, too strict).

    Returns
    -------
    list of Claim
        ``claims`` in the same order, the counted ones with ``p_holm`` set (a claim
        without null draws gets 1).
    """
    from metaeval.ranking import holm_adjust

    claims = list(claims)
    family = [i for i, c in enumerate(claims) if c.kind == SAMPLED]
    if not family:
        return claims
    adjusted = holm_adjust([1.0 if claims[i].p_null is None else claims[i].p_null
                            for i in family])
    for i, q in zip(family, adjusted, strict=True):
        claims[i] = replace(claims[i], p_holm=float(q))
    return claims


def counted_claims(claims) -> dict[str, str]:
    """The verdict of each counted claim, a claim tested in two versions counted once.

    A claim of Melo & Prudêncio (2014) tested in both versions of the paper (ids ``…b``
    and ``…m``, e.g. A1b and A1m) is one claim: it gets the weaker of its two verdicts
    (in the order of :data:`VERDICTS`), so that it counts as reproduced only when both
    versions are. Returns ``{id: verdict}``, the id of a merged claim without its letter.
    """
    sampled = [c for c in claims if c.kind == SAMPLED]
    stems = {}
    for c in sampled:
        m = VERSIONED.match(c.id)
        stems.setdefault(m["stem"] if m else c.id, []).append(c)
    out = {}
    for stem, group in stems.items():
        if len(group) == 1:  # one version only: keep its own id
            out[group[0].id] = group[0].verdict
        else:
            out[stem] = max((c.verdict for c in group), key=VERDICTS.index)
    return out


def assess(claim: Claim, full, boot, null, *, evidence=(), boot_unit="datasets",
           null_model="") -> Claim:
    """Fill a claim's evidence: full-data statistic, bootstrap and null draws.

    Parameters
    ----------
    claim : Claim
        With ``criterion`` set.
    full : float
        The statistic on our data.
    boot, null : array-like of shape (n_draws,)
        The statistic on each bootstrap resample and on each null draw.
    evidence : sequence of str
        Lines shown under the claim.

    Returns
    -------
    Claim
        ``claim`` with value, holds, the 95% interval of ``boot`` re-centred on the value
        (:func:`recentred_interval`), the share of resamples whose verdict equals the
        full-data one and the null rate.
    """
    boot = np.asarray(boot, dtype=float).ravel()
    null = np.asarray(null, dtype=float).ravel()
    value = float(np.asarray(full, dtype=float).ravel()[0])
    holds = bool(claim.criterion([value])[0])
    interval = recentred_interval(boot, value)
    share = float(np.mean(claim.criterion(boot) == holds)) if boot.size else None
    null_rate = float(np.mean(claim.criterion(null))) if null.size else None
    return replace(claim, value=value, holds=holds, interval=interval, share=share,
                   n_boot=int(boot.size), boot_unit=boot_unit, null_model=null_model,
                   null_rate=null_rate, n_null=int(null.size), evidence=tuple(evidence))


def not_evaluable(claim: Claim, missing) -> Claim:
    """The claim names algorithms (or a dataset) that the study lacks."""
    return replace(claim, kind="not evaluable",
                   evidence=(f"absent from the study: {', '.join(missing)}",))


def if_chance(claim: Claim, note: str) -> Claim:
    """Add ``note`` (why chance earns the claim) when the null earns it too often."""
    if claim.kind == SAMPLED and claim.holds and claim.null_rate is not None \
            and claim.null_rate > NULL_MAX:
        return replace(claim, evidence=claim.evidence + (note,))
    return claim


def fixed(claim: Claim, kind, value, holds, *, evidence=(), interval=None,
          interval_note="") -> Claim:
    """A claim that needs no sampling: by construction, exact or descriptive."""
    return replace(claim, kind=kind, value=None if value is None else float(value),
                   holds=holds, interval=interval, interval_note=interval_note,
                   evidence=tuple(evidence))


def num(x, digits=3) -> str:
    if x is None:
        return "–"
    x = float(x)
    if not np.isfinite(x):
        return "–"
    if x == int(x) and abs(x) < 1e6:
        return str(int(x))
    return f"{x:.{digits}f}" if abs(x) >= 10 ** -digits else f"{x:.1e}"


def _fmt(x, digits=4):
    if x is None or (isinstance(x, float) and not np.isfinite(x)):
        return "–"
    if isinstance(x, (bool, np.bool_)):
        return "yes" if x else "no"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        return f"{x:.{digits}f}"
    return str(x)


def markdown_table(frame: pd.DataFrame, *, digits=4, index=True) -> str:
    """A pipe table of a frame (no tabulate dependency); integer columns stay integers."""
    cols = ([frame.index.name or ""] if index else []) + [str(c) for c in frame.columns]
    cols = [c.replace("|", "\\|") for c in cols]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join(["---"] * len(cols)) + "|"]
    columns = [frame[c].tolist() for c in frame.columns]
    for i, key in enumerate(frame.index):
        cells = ([str(key)] if index else []) + [_fmt(col[i], digits) for col in columns]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


NULL_SHORT = {
    "algorithm labels permuted per dataset": "labels per dataset",
    "algorithm labels permuted": "labels",
    "algorithm labels permuted independently per method": "labels per method",
    "class labels permuted (scores kept)": "class labels",
    "SD and RD matrices swapped per dataset": "methods swapped",
    "metric labels permuted per dataset": "metric labels per dataset",
    "the untied form (paper column replaced by a resample's untied values)": "rival form",
}


def _interval(c: Claim) -> str:
    if c.interval is None:
        return "–"
    return f"[{num(c.interval[0])}, {num(c.interval[1])}]"


def evidence_line(c: Claim) -> str:
    """The numbers behind a verdict, in one line."""
    if c.kind == "not evaluable":
        return ""
    parts = [f"statistic: {c.statistic}" + ("" if c.value is None else f" = {num(c.value, 4)}")
             + (f" (holds when {c.criterion})" if c.criterion is not None else "")]
    if c.kind == SAMPLED:
        parts.append(f"95% interval {_interval(c)} over {c.n_boot} resamples of the "
                     f"{c.boot_unit}; {_pct(c.share)} of them keep the verdict")
        parts.append(f"null ({c.null_model}): holds in {_pct(c.null_rate)} of {c.n_null} "
                     f"draws, p = {_p(c.p_null)}, Holm-adjusted {_p(c.p_holm)}")
    elif c.interval is not None:
        parts.append(f"interval {_interval(c)} ({c.interval_note})")
    return "; ".join(parts)


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _p(x) -> str:
    return "–" if x is None else f"{x:.4f}"


def verdict_lines(claims) -> list[str]:
    """A mark for ``claims``: :func:`fill_claims` writes them there once all are known."""
    return [CLAIMS_MARK.format(ids=",".join(c.id for c in claims))] if claims else []


def fill_claims(lines, claims) -> list[str]:
    """``lines`` with every mark of :func:`verdict_lines` replaced by its claims' lines."""
    by_id = {c.id: c for c in claims}
    if len(by_id) != len(claims):
        raise ValueError("two claims share an id")
    out = []
    for line in lines:
        if line.startswith("<<claims: ") and line.endswith(">>"):
            out += claim_lines(by_id[i] for i in line[len("<<claims: "):-2].split(","))
        else:
            out.append(line)
    return out


def claim_lines(claims) -> list[str]:
    """Markdown lines, one claim each with its numbers and evidence as sub-items."""
    lines = []
    for c in claims:
        lines.append(CLAIM_LINE.format(id=c.id, text=c.text, verdict=c.verdict)
                     + f". *Source: {c.document}, {c.source}.*")
        line = evidence_line(c)
        if line:
            lines.append(f"  - {line}")
        lines.extend(f"  - {e}" for e in c.evidence)
    return lines


def summary_table(claims) -> list[str]:
    """The verdict table of every claim, and the counts."""
    rows = []
    for c in claims:
        rows.append({
            "claim": f"({c.id}) {c.text}",
            "statistic (holds when)": c.statistic + (f" ({c.criterion})"
                                                     if c.criterion is not None else ""),
            "ours": num(c.value, 4) if c.kind != "not evaluable" else "–",
            "95% interval": _interval(c),
            "resamples keeping the verdict": _pct(c.share) if c.kind == SAMPLED else "–",
            "null: rate (model)": (
                f"{_pct(c.null_rate)} ({NULL_SHORT.get(c.null_model, c.null_model)})"
                if c.kind == SAMPLED else "–"),
            "p, Holm-adjusted": _p(c.p_holm) if c.kind == SAMPLED else "–",
            "verdict": f"**{c.verdict}**"})
    frame = pd.DataFrame(rows).set_index("claim")
    sampled = [c for c in claims if c.kind == SAMPLED]
    merged = counted_claims(claims)
    counts = {v: sum(m == v for m in merged.values()) for v in VERDICTS}
    twice = sorted(k for k in merged if k not in {c.id for c in sampled})
    other = {k: sum(c.kind == k for c in claims) for k in UNCOUNTED}
    exact = [c for c in claims if c.kind == "exact"]
    return [
        markdown_table(frame), "",
        f"**Counted claims: {len(merged)}** — " + ", ".join(
            f"{n} {v}" for v, n in counts.items())
        + (f" ({len(sampled)} verdicts: {len(twice)} claims, "
           + ", ".join(twice) + ", are tested in both the BRACIS and the MetaSel version "
           "of Melo & Prudêncio (2014) and counted once, by the weaker of their two "
           "verdicts)" if twice else "")
        + ". Not counted: " + ", ".join(f"{n} {k}" for k, n in other.items() if n)
        + (f" ({sum(bool(c.holds) for c in exact)} of {len(exact)} exact checks hold)"
           if exact else "") + ".", "",
        "Null models: *labels per dataset* permutes the algorithm labels of each dataset "
        "independently (aggregated claims); *labels* permutes the algorithm labels of the "
        "one dataset (*per method*: independently for each method); *class labels* "
        "permutes the class labels, keeping every model's scores; *methods swapped* swaps "
        "the SD and RD matrices of a random half of the datasets; *metric labels per "
        "dataset* permutes which metric is which in each dataset; *rival form* replaces the "
        "paper's column by the untied form's values on a resample.", ""]
