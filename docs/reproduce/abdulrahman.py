"""Abdulrahman & Brazdil (2014): accuracy and time combined (ARR, A3R)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .evidence import (
    Claim,
    Criterion,
    fixed,
    markdown_table,
    verdict_lines,
)
from .study import (
    save_figure,
    study_times,
)

AB = "Abdulrahman & Brazdil (2014)"


#: Abdulrahman & Brazdil (2014), Sect. 3: a time ratio of 10 (and 0.1) rescaled by the
#: 8th and the 2nd root, as printed.
PAPER_ROOTS = {(10.0, 8): 1.33, (10.0, 2): 3.16, (0.1, 8): 0.74, (0.1, 2): 0.31}


PAPER_ACCD = (0.2, 0.3, 0.7)


PAPER_N_ROOTS = (4, 8, 16)




def section_abdulrahman(data, figures_dir, rel) -> tuple[list[str], list[Claim]]:
    """ARR's pole, A3R's monotonicity and the paper's worked numbers; ARR on our timings."""
    import warnings

    from metaeval.ranking import (
        a3r,
        a3r_sweep,
        adjusted_ratio_of_ratios,
        arr_pole,
        arr_ratios,
        arr_sweep,
        iso_a3r_curves,
        monotonicity_breaks,
    )
    from metaeval.report import plot

    lines = [f"## 5. {AB}", ""]
    sweep = arr_sweep(PAPER_ACCD)  # log2 time ratio -20..20, SRR = 1, as Fig. 1
    breaks = monotonicity_breaks(sweep).set_index("accd")
    rows = {}
    ok = True
    for accd in PAPER_ACCD:
        b = breaks.loc[accd]
        curve = sweep[sweep["accd"] == accd].set_index("log2_time_ratio")["value"]
        pole = float(np.log2(arr_pole(accd)))
        inside = b["break_from"] <= pole <= b["break_to"]
        ok &= bool(inside and not b["monotonic"])
        rows[accd] = {"pole: time ratio 10^(−1/AccD)": f"{arr_pole(accd):.3g}",
                      "pole: log2 ratio": f"{pole:.3f}",
                      "sweep breaks between": f"{b['break_from']:.0f} and {b['break_to']:.0f}",
                      "ARR just left of the pole": f"{curve[b['break_from']]:.2f}",
                      "ARR just right of the pole": f"{curve[b['break_to']]:.2f}"}
    table = pd.DataFrame.from_dict(rows, orient="index").rename_axis("AccD")
    a3 = monotonicity_breaks(a3r_sweep(PAPER_N_ROOTS))
    roots = {}
    for (ratio, n), printed in PAPER_ROOTS.items():
        value = float(iso_a3r_curves([1.0], n=n, log2_ratio=[np.log2(ratio)])["srr"].iloc[0])
        roots[(ratio, n)] = (value, printed)
    worst = max(abs(v - p) for v, p in roots.values())
    claims = [
        fixed(Claim("AB1", AB, "§2, eq. 1, Fig. 1", "ARR is not monotone: for AccD 0.2, 0.3 "
                    "and 0.7 it has a pole inside the sweep 2^-20 … 2^20",
                    "the analytic pole lies where the sampled sweep stops decreasing"),
              "by construction", None, ok,
              evidence=[f"AccD {a}: pole at log2 ratio {float(np.log2(arr_pole(a))):.3f}"
                        for a in PAPER_ACCD]),
        fixed(Claim("AB2", AB, "§3, eq. 2, Fig. 2", "A3R is monotone for n = 4, 8, 16",
                    "curves of the sweep that never increase"),
              "by construction", int(a3["monotonic"].sum()), bool(a3["monotonic"].all()),
              evidence=[f"{int(a3['monotonic'].sum())} of {len(a3)} curves monotone "
                        "(A3R = SRR · r^(−1/n) falls strictly in r)"]),
        fixed(Claim("AB3", AB, "§3", "a time ratio of 10 (0.1) becomes 1.33 (0.74) under the "
                    "8th root and 3.16 (0.31) under the 2nd", "largest |computed − printed|",
                    Criterion("<=", 0.01)),
              "exact", worst, worst <= 0.01 + 1e-12,
              evidence=["; ".join(f"{r:g}^(1/{n}) = {v:.4f} (printed {p})"
                                  for (r, n), (v, p) in roots.items()),
                        "the printed 0.74 and 0.31 are truncated, not rounded (0.75, 0.32)"]),
    ]
    lines += [
        "ARR (eq. 1) divides the success-rate ratio by 1 + AccD·log10(T_p/T_q); the "
        "denominator vanishes at the time ratio 10^(−1/AccD). The paper's Fig. 1 sweeps "
        "log2 of the time ratio from −20 to 20 at SRR = 1 for AccD 0.2, 0.3 and 0.7; "
        "`metaeval.ranking.arr_sweep` and `monotonicity_breaks` give the pole and where the "
        "sampled curve breaks (a reader can check: for AccD 0.7 the pole is at "
        f"log2 r = −1/(0.7·log10 2) = {float(np.log2(arr_pole(0.7))):.3f}, so ARR at −5 is "
        "1/(1 − 0.7·5·log10 2) = "
        f"{sweep.set_index(['accd', 'log2_time_ratio']).loc[(0.7, -5.0), 'value']:.2f} and "
        f"at −4 it is {sweep.set_index(['accd', 'log2_time_ratio']).loc[(0.7, -4.0), 'value']:.2f}"
        "):", "", markdown_table(table), ""]
    for kind, name in (("arr", "arr_sweep.png"), ("a3r", "a3r_sweep.png")):
        path = save_figure(plot(kind), figures_dir / name)
        lines += [f"![{kind}]({rel}/{path.name})", ""]
    lines += ["A3R (eq. 2) replaces the logarithm by the n-th root of the time ratio: "
              "SRR / r^(1/n) falls strictly as r grows, for every n > 0. The paper's worked "
              "numbers are r^(1/n), the SRR that keeps A3R at 1 "
              "(`metaeval.ranking.iso_a3r_curves` at level 1).", ""]
    lines += ["### The pole on our timings", ""]
    if data.metrics is None or len(data.complete) < 1:
        lines += ["*No complete dataset.*", ""]
    else:
        acc = data.metrics[data.metrics["metric"] == "accuracy"][["dataset", "algorithm",
                                                                  "value"]]
        times = study_times(data.store)
        times = times[times["dataset"].isin(data.complete)]
        rows = {}
        for accd in (0.1, *PAPER_ACCD):
            r = arr_ratios(acc, times, accd=accd)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ranked = adjusted_ratio_of_ratios(acc, times, accd=accd, on_pole="ignore")
            lost = ranked[ranked["score"].isna()]["algorithm"].tolist()
            rows[accd] = {"(dataset, pair) beyond the pole": f"{int(r['pole'].sum())} of "
                                                             f"{len(r)}",
                          "datasets": int(r.loc[r["pole"], "dataset"].nunique()),
                          "algorithms without an ARR score": ", ".join(lost) or "none",
                          "ARR best": ranked["algorithm"].iloc[0]}
        ranking = a3r(acc, times, n=8)
        lines += ["Accuracy and fit + predict time of our study (summed over the folds); "
                  "`arr_ratios` flags every (dataset, algorithm, rival) whose time ratio is "
                  "at or below 10^(−1/AccD). An algorithm with one such pair has no ARR "
                  "score (the geometric mean over datasets is undefined); it is always the "
                  "faster one of the pair.", "",
                  markdown_table(pd.DataFrame.from_dict(rows, orient="index")
                                 .rename_axis("AccD")), "",
                  "A3R (n = 8) ranks every algorithm: " + ", ".join(
                      f"{a} {s:.3f}" for a, s in zip(ranking["algorithm"], ranking["score"],
                                                      strict=True)) + ".", ""]
        claims.append(fixed(
            Claim("AB4", AB, "§2 (\"this can lead to incorrect rankings\")",
                  "ARR's pole is reached on real timings",
                  "(dataset, pair) triples beyond the pole at AccD 0.7"),
            "descriptive", int(arr_ratios(acc, times, accd=0.7)["pole"].sum()), None,
            evidence=[f"AccD {a}: {v['(dataset, pair) beyond the pole']} beyond the pole"
                      + ("" if v["algorithms without an ARR score"] == "none" else
                         f"; no ARR score for {v['algorithms without an ARR score']}")
                      for a, v in rows.items()]))
    lines += ["### Claims", ""] + verdict_lines(claims) + [""]
    return lines, claims
