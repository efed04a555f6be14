"""The algorithm-benchmark web page: value captured, metric disagreement, stability."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .evidence import (
    Claim,
    Criterion,
    assess,
    fixed,
    if_chance,
    markdown_table,
    not_evaluable,
    verdict_lines,
)
from .study import (
    save_figure,
    study_times,
)

WEB = "algorithm-benchmark web page"


#: The benchmark web page's runtime example: fastest 2 minutes, another 8 minutes,
#: "would receive a score of three".
PAGE_RUNTIME_EXAMPLE = {"fastest": 2.0, "other": 8.0, "page_score": 3.0}


@dataclass
class WebData:
    """The ten metrics of the web page as tensors (datasets, metrics, algorithms)."""

    frame: pd.DataFrame
    datasets: list
    metric_names: list
    algorithms: list
    X: np.ndarray   # raw metric values, oriented so that higher is better
    V: np.ndarray   # value captured, percent


def web_data(metrics) -> WebData:
    from metaeval.benchmark import METRICS, value_captured

    datasets = list(pd.unique(metrics["dataset"]))
    names = list(pd.unique(metrics["metric"]))
    algorithms = list(pd.unique(metrics["algorithm"]))
    order = np.lexsort((pd.Index(names).get_indexer(metrics["metric"]),
                        pd.Index(algorithms).get_indexer(metrics["algorithm"]),
                        pd.Index(datasets).get_indexer(metrics["dataset"])))
    frame = metrics.iloc[order]

    def tensor(f):
        d = pd.Index(datasets).get_indexer(f["dataset"])
        m = pd.Index(names).get_indexer(f["metric"])
        a = pd.Index(algorithms).get_indexer(f["algorithm"])
        out = np.full((len(datasets), len(names), len(algorithms)), np.nan)
        out[d, m, a] = f["value"].to_numpy(dtype=float)
        return out

    sign = np.array([1.0 if METRICS[m].higher_is_better else -1.0 for m in names])
    X = tensor(metrics) * sign[None, :, None]
    V = tensor(value_captured(metrics))
    return WebData(frame.reset_index(drop=True), datasets, names, algorithms, X, V)


def frame_of(web, rows_of_dataset, dataset_ids, algorithm_map=None) -> pd.DataFrame:
    """A metrics frame assembled from datasets given by position (repeats allowed: each
    copy becomes a dataset of its own), algorithms optionally relabelled per copy."""
    f = web.frame
    n_rows = rows_of_dataset.shape[1]
    rows = rows_of_dataset[dataset_ids].ravel()
    alg = f["algorithm"].to_numpy()[rows]
    if algorithm_map is not None:  # (copies, n_algorithms) permutation per copy
        codes = pd.Index(web.algorithms).get_indexer(alg).reshape(len(dataset_ids), n_rows)
        new = np.take_along_axis(algorithm_map, codes, axis=1).ravel()
        alg = np.asarray(web.algorithms, dtype=object)[new]
    return pd.DataFrame({"dataset": np.repeat(np.arange(len(dataset_ids)), n_rows),
                         "algorithm": alg, "metric": f["metric"].to_numpy()[rows],
                         "value": f["value"].to_numpy()[rows]})


def spearman_rows(A, b) -> np.ndarray:
    """Spearman correlation of each row of ``A`` (..., r, k) with ``b`` (..., 1 or r, k)."""
    from scipy.stats import rankdata

    ra = rankdata(A, axis=-1)
    rb = rankdata(np.broadcast_to(b, A.shape), axis=-1)
    ra = ra - ra.mean(axis=-1, keepdims=True)
    rb = rb - rb.mean(axis=-1, keepdims=True)
    den = np.sqrt((ra ** 2).sum(-1) * (rb ** 2).sum(-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (ra * rb).sum(-1) / den


def kendall_w(matrix) -> float:
    """Kendall's W of the algorithms' ranks over blocks: Friedman's chi² / (N (k − 1)).

    ``matrix`` is (blocks, algorithms), higher is better; computed by
    :func:`metaeval.ranking.friedman_test`.
    """
    from metaeval.ranking import friedman_test

    N, k = matrix.shape
    long = pd.DataFrame({"dataset": np.repeat(np.arange(N), k),
                         "algorithm": np.tile(np.arange(k), N),
                         "value": np.asarray(matrix, dtype=float).ravel()})
    return float(friedman_test(long).chi2 / (N * (k - 1)))


def web_claim_specs() -> dict[str, Claim]:
    return {
        "B1": Claim("B1", WEB, "metric disagreement", "all ten metrics agree on only a "
                    "part of the comparisons (the page's percentage is blank in our copy)",
                    "share of (dataset, pair) comparisons on which all metrics agree"),
        "B2": Claim("B2", WEB, "heat map by metric", "among the metrics, the Brier score "
                    "gives the most spurious results",
                    "Brier's rank by agreement with the other metrics (1 = least)",
                    Criterion("==", 1)),
        "B3": Claim("B3", WEB, "bootstrap stability", "10–15 datasets and three metrics "
                    "bring the chance of a different conclusion down to 10%",
                    "share of draws of 15 datasets and 3 metrics whose conclusion differs",
                    Criterion("<=", 0.10)),
        "B4": Claim("B4", WEB, "random paper abstract", "any algorithm can be made to look "
                    "better than any other by choosing a dataset and a metric",
                    "share of ordered pairs (a, b) with a cell where a beats b",
                    Criterion("==", 1.0)),
        "B5": Claim("B5", WEB, "heat maps", "comparisons are closer to metric-neutral than "
                    "to dataset-neutral (stripes more prominent by metric)",
                    "Kendall's W of the algorithms over metrics minus over datasets",
                    Criterion(">", 0.0)),
        "B6": Claim("B6", WEB, "running time", "fastest 2 minutes, another 8 minutes: \"a "
                    "score of three\"", "`runtime_score` of the example", Criterion("==", 3)),
    }


def section_web(data, rng, draws, figures_dir, rel) -> tuple[list[str], list[Claim]]:
    from metaeval.benchmark import (
        bootstrap_stability,
        metric_disagreement,
        overall_value,
        random_paper_abstract,
        runtime_score,
        value_captured,
        value_heatmap,
    )
    from metaeval.report.figures import stability_grid

    specs = web_claim_specs()
    lines = [f"## 6. The {WEB}", ""]
    ex = pd.DataFrame({"dataset": "example", "algorithm": ["fastest", "other"],
                       "time": [PAGE_RUNTIME_EXAMPLE["fastest"], PAGE_RUNTIME_EXAMPLE["other"]]})
    score = float(runtime_score(ex).set_index("algorithm").loc["other", "score"])
    b6 = fixed(specs["B6"], "exact", score, bool(specs["B6"].criterion([score])[0]),
               evidence=[f"log2(8 / 2) = {score:g}; a score of 3 needs 2·2³ = 16 minutes"])
    if data.metrics is None or len(data.complete) < 2:
        claims = [not_evaluable(specs[c], ["two complete datasets"]) for c in specs
                  if c != "B6"] + [b6]
        return lines + verdict_lines(claims) + [""], claims
    web = web_data(data.metrics)
    D, K, k = web.V.shape
    n_boot, n_null, n_heavy = draws.n_boot, draws.n_null, draws.n_heavy
    idx = rng.integers(0, D, size=(n_boot, D))
    claims = []

    # 6.1 value captured
    vc = value_captured(data.metrics)
    overall = overall_value(vc).set_index("algorithm")["score"]
    per_alg = web.V.mean(axis=(0, 1))
    assert np.allclose(overall.reindex(web.algorithms).to_numpy(), per_alg)
    boot_overall = np.stack([web.V[i].mean(axis=(0, 1)) for i in idx]) if n_boot else None
    ov = pd.DataFrame({"value captured (%)": per_alg}, index=pd.Index(web.algorithms,
                                                                       name="algorithm"))
    if boot_overall is not None:
        lo, hi = np.percentile(boot_overall, [2.5, 97.5], axis=0)
        ov["95% interval"] = [f"{a:.1f}–{b:.1f}" for a, b in zip(lo, hi, strict=True)]
        ranks_b = (-boot_overall).argsort(axis=1).argsort(axis=1) + 1
        ov["resamples where it ranks first"] = [f"{s:.0%}" for s in (ranks_b == 1).mean(0)]
    ov = ov.sort_values("value captured (%)", ascending=False)
    hm_d = value_heatmap(vc, by="dataset").reindex(index=web.algorithms, columns=web.datasets)
    hm_m = value_heatmap(vc, by="metric").reindex(index=web.algorithms,
                                                 columns=web.metric_names)
    assert np.allclose(hm_d.to_numpy().T, web.V.mean(axis=1))
    assert np.allclose(hm_m.to_numpy().T, web.V.mean(axis=0))

    def w_gap(V):  # Kendall's W over metrics minus over datasets
        return kendall_w(V.mean(axis=0)) - kendall_w(V.mean(axis=1))

    heavy_idx = idx[:n_heavy]
    perm_alg = rng.permuted(np.broadcast_to(np.arange(k), (n_heavy, D, k)), axis=-1)
    null_b5 = [w_gap(np.take_along_axis(web.V, p[:, None, :], axis=2)) for p in perm_alg]
    w_m, w_d = kendall_w(web.V.mean(axis=0)), kendall_w(web.V.mean(axis=1))
    claims.append(if_chance(assess(
        specs["B5"], w_m - w_d, [w_gap(web.V[i]) for i in heavy_idx], null_b5,
        null_model="algorithm labels permuted per dataset",
        evidence=[f"Kendall's W: over the {K} metrics {w_m:.3f}, over the {D} datasets "
                  f"{w_d:.3f} (1 = every block ranks the algorithms alike)"]),
        "a column of the heat map by metric is a mean over all the datasets, and the "
        "metrics of one dataset share its labels: shuffled labels give the metric side "
        "the same lead, so the prominent stripes do not show that metrics agree"))
    lines += [
        "### Value captured", "",
        "Value captured by an algorithm on a (dataset, metric) is the share of the range "
        "from the bottom quartile to the best value of the algorithms that it reaches "
        "(0 below the quartile); the overall value is the mean over datasets and the ten "
        "metrics (`metaeval.benchmark.value_captured`, `overall_value`). Intervals: "
        f"{n_boot} resamples of the datasets.", "", markdown_table(ov, digits=1), ""]

    # 6.2 metric disagreement, additive over datasets
    per_ds, agree = [], []
    for name in web.datasets:
        r = metric_disagreement(data.metrics[data.metrics["dataset"] == name], k=2)
        per_ds.append(r.per_metric.set_index("metric")["error_cases"]
                      .reindex(web.metric_names).to_numpy())
        agree.append(r.all_agree * r.n_comparisons)
    per_ds = np.asarray(per_ds, dtype=float)
    agree = np.asarray(agree, dtype=float)
    n_cmp = k * (k - 1) // 2
    whole = metric_disagreement(data.metrics, k=2)
    rates = per_ds.sum(0) / (D * n_cmp)
    assert np.allclose(whole.per_metric.set_index("metric")["error_rate"]
                       .reindex(web.metric_names), rates)
    boot_rates = np.stack([per_ds[i].sum(0) / (D * n_cmp) for i in idx]) if n_boot else None
    boot_agree = np.array([agree[i].sum() / (D * n_cmp) for i in idx])
    ci = np.percentile(boot_agree, [2.5, 97.5]) if n_boot else None
    claims.append(fixed(specs["B1"], "descriptive", whole.all_agree, None,
                        interval=None if ci is None else tuple(ci),
                        interval_note=f"{n_boot} resamples of the datasets",
                        evidence=[f"{D} datasets × {n_cmp} pairs = {whole.n_comparisons} "
                                  "comparisons"]))
    dis = pd.DataFrame({"error-case rate": rates}, index=pd.Index(web.metric_names,
                                                                   name="metric"))
    if boot_rates is not None:
        lo, hi = np.percentile(boot_rates, [2.5, 97.5], axis=0)
        dis["95% interval"] = [f"{a:.3f}–{b:.3f}" for a, b in zip(lo, hi, strict=True)]
    dis["concordance with the other metrics"] = metric_concordance(web.V.mean(axis=0))
    dis = dis.sort_values("error-case rate", ascending=False)
    claims.append(brier_claim(specs["B2"], web, idx, rng, n_null, rates))
    lines += [
        "### Metric disagreement and the Brier score", "",
        "A metric has an *error case* on a (dataset, pair of algorithms) comparison when it "
        "prefers one algorithm and at most k = 2 of the nine other metrics agree "
        "(`metaeval.benchmark.metric_disagreement`; the page lets its reader choose k). "
        "Concordance: Spearman correlation, over the algorithms, of the metric's mean "
        "value captured with the mean of the other nine metrics (the page's heat map "
        "by metric).", "", markdown_table(dis, digits=3), ""]

    # 6.3 the stability grid
    d_values = [1, 2, 3, 5, 10, 15, 20, 30, 50]
    m_values = [1, 2, 3, 5, 10]
    grid = bootstrap_stability(data.metrics, d_values, m_values, B=draws.grid_draws, seed=0)
    wide = grid.pivot(index="n_datasets", columns="n_metrics", values="p_different")
    path = save_figure(stability_grid(wide, title=f"Bootstrap stability, our {D} datasets"),
                 figures_dir / "bootstrap_stability.png")
    claims.append(grid_claim(specs["B3"], web, wide, rng, draws))
    reach = {m: next((d for d in d_values if wide.loc[d, m] <= 0.10), None)
             for m in m_values}
    lines += [
        "### The bootstrap stability grid", "",
        f"`metaeval.benchmark.bootstrap_stability`, {draws.grid_draws} draws per cell as "
        "the page: draw n datasets and m metrics with replacement and a random pair of "
        "algorithms; the cell is the share of draws whose conclusion (the sign of the "
        "mean difference of value captured) differs from the one on all data.", "",
        markdown_table(wide.rename_axis(index="datasets \\ metrics"), digits=3), "",
        "Fewest datasets (of the grid) that bring the share to 10% or less: " + "; ".join(
            f"{m} metric{'s' if m > 1 else ''}: {reach[m] if reach[m] else 'none up to 50'}"
            for m in m_values) + ".", "", f"![bootstrap stability]({rel}/{path.name})", ""]

    # 6.4 the abstract
    claims.append(abstract_claim(specs["B4"], web, data.metrics, idx, rng, n_null))
    worst, best = ov.index[-1], ov.index[0]
    text = random_paper_abstract(data.metrics, worst, best, seed=0)
    lines += ["### The cherry-picked abstract", "",
              f"`random_paper_abstract` for the algorithm with the least value captured "
              f"({worst}) against the one with the most ({best}), seed 0:", "",
              f"> {text}", ""]

    # 6.5 runtime
    times = study_times(data.store)
    times = times[times["dataset"].isin(data.complete)]
    rs = runtime_score(times, n_slowest=20)
    lines += ["### Running time", "",
              "Mean log2 ratio of each algorithm's fit + predict time to the fastest, over "
              "the 20 datasets with the largest median time (`runtime_score`): " + ", ".join(
                  f"{a} {s:.2f}" for a, s in zip(rs["algorithm"], rs["score"], strict=True))
              + ". The page's own example does not follow its formula: see (B6).", ""]
    claims.append(b6)
    claims.sort(key=lambda c: c.id)
    lines += ["### Claims", "",
              "Resamples draw datasets with replacement; (B3) and (B5) use "
              f"{n_heavy} resamples and null draws (each one reruns the library on a "
              "whole suite).", ""] + verdict_lines(claims) + [""]
    return lines, claims


def metric_concordance(heat) -> np.ndarray:
    """Spearman correlation of each metric's row of ``heat`` (..., K, k) with the mean of
    the other metrics' rows."""
    K = heat.shape[-2]
    others = (heat.sum(axis=-2, keepdims=True) - heat) / (K - 1)
    ra = spearman_rows(heat, others)
    return ra


def brier_claim(claim, web, idx, rng, n_null, rates) -> Claim:
    if "brier" not in web.metric_names:
        return not_evaluable(claim, ["brier"])
    b = web.metric_names.index("brier")
    D, K, k = web.V.shape

    def rank(heat):  # heat (..., K, k): 1 = the least concordant
        c = metric_concordance(heat)
        return 1 + np.sum(c < c[..., [b]] - 1e-12, axis=-1)

    full = rank(web.V.mean(axis=0))
    boot = rank(np.stack([web.V[i].mean(axis=0) for i in idx])) if len(idx) else []
    perm = rng.permuted(np.broadcast_to(np.arange(K), (n_null, D, K)), axis=-1)
    null = rank(np.take_along_axis(web.V[None], perm[..., None], axis=2).mean(axis=1))
    conc = metric_concordance(web.V.mean(axis=0))
    least = web.metric_names[int(np.argmin(conc))]
    err_rank = 1 + int(np.sum(rates > rates[b]))
    return assess(claim, full, boot, null, null_model="metric labels permuted per dataset",
                  evidence=[f"concordance: brier {conc[b]:.3f}; the least concordant is "
                            f"{least} ({conc.min():.3f})",
                            f"by error-case rate (k = 2) brier ranks {err_rank} of {K}"])


def grid_claim(claim, web, wide, rng, draws) -> Claim:
    """B3: the grid's (15 datasets, 3 metrics) cell, rerun on resampled and permuted suites."""
    from metaeval.benchmark import bootstrap_stability

    D, K, k = web.V.shape
    rows = np.arange(len(web.frame)).reshape(D, -1)  # frame sorted by dataset
    assert (web.frame["dataset"].to_numpy()[rows] == np.asarray(web.datasets)[:, None]).all()
    inner = min(5000, draws.grid_draws)

    def cell(frame, seed):
        g = bootstrap_stability(frame, [15], [3], B=inner, seed=seed)
        return float(g["p_different"].iloc[0])

    full = float(wide.loc[15, 3])
    boot = [cell(frame_of(web, rows, rng.integers(0, D, D)), s)
            for s in range(draws.n_heavy)]
    ident = np.arange(D)
    null = [cell(frame_of(web, rows, ident,
                          rng.permuted(np.broadcast_to(np.arange(k), (D, k)), axis=-1)), s)
            for s in range(draws.n_heavy)]
    return assess(claim, full, boot, null, null_model="algorithm labels permuted per dataset",
                  evidence=[f"(15 datasets, 3 metrics): {full:.3f}; (10, 3): "
                            f"{wide.loc[10, 3]:.3f}; (15, 10): {wide.loc[15, 10]:.3f}",
                            f"resamples and null draws: {inner} draws each for that cell"])


def abstract_claim(claim, web, metrics, idx, rng, n_null) -> Claim:
    """B4: for every ordered pair, some (dataset, metric) where the first wins."""
    from metaeval.benchmark import random_paper_abstract

    D, K, k = web.X.shape
    win = (web.X[:, :, :, None] > web.X[:, :, None, :]).any(axis=1)  # (D, k, k)
    off = ~np.eye(k, dtype=bool)

    def share(w):  # w (..., k, k) bool
        return w[..., off].mean(axis=-1)

    full = share(win.any(axis=0))
    # the library's own verdict for every ordered pair must agree
    lib = np.zeros((k, k), dtype=bool)
    for a in range(k):
        for b in range(k):
            if a != b:
                try:
                    random_paper_abstract(metrics, web.algorithms[a], web.algorithms[b])
                    lib[a, b] = True
                except ValueError:
                    pass
    assert (lib[off] == win.any(axis=0)[off]).all()
    boot = share(np.stack([win[i].any(axis=0) for i in idx])) if len(idx) else []
    perm = rng.permuted(np.broadcast_to(np.arange(k), (n_null, D, k)), axis=-1)
    pw = win[np.arange(D)[None, :, None, None], perm[..., :, None], perm[..., None, :]]
    null = share(pw.any(axis=1))
    cells = (web.X[:, :, :, None] > web.X[:, :, None, :]).sum(axis=(0, 1))  # (k, k)
    a, b = np.unravel_index(np.argmin(np.where(off, cells, D * K + 1)), (k, k))
    per_pair = cells[a, b]
    return if_chance(assess(
        claim, full, boot, null, null_model="algorithm labels permuted per dataset",
        evidence=[f"{int(np.sum(win.any(axis=0)[off]))} of {k * (k - 1)} ordered "
                            "pairs have a winning cell",
                            f"the hardest pair to flatter: {web.algorithms[a]} over "
                  f"{web.algorithms[b]}, which wins {int(per_pair)} of {D * K} "
                  "(dataset, metric) cells"]),
        "cherry-picking needs no merit: with the labels shuffled in every dataset each "
        "algorithm still wins somewhere, which is the page's point")
