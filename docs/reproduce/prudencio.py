"""Prudêncio (2019): the worked example and German credit."""

from __future__ import annotations

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
    num,
    verdict_lines,
)
from .resampling import (
    label_free_hardness,
    permuted_class_means,
    present,
)
from .study import (
    ABBREVIATION,
    ALL_METHODS,
    CREDIT,
    RD,
    SD,
    SEED_METHODS,
    SF,
    save_figure,
)

PR = "Prudêncio (2019)"


#: Prudêncio (2019), Sect. 4 (German credit, five Weka models, 10-fold CV): class hardness
#: of the positive class ("bad", the paper's class 0, 300 instances) and of the negative
#: class ("good", 700 instances).
PAPER_CREDIT = pd.DataFrame(
    {"positive (bad)": [0.56, 0.37, 0.17, 0.54, 0.35],
     "negative (good)": [0.12, 0.10, 0.25, 0.22, 0.39]},
    index=pd.Index(["score-fixed", "score-driven", "rate-driven", "score-uniform",
                    "rate-uniform"], name="method"),
)


#: The paper prints class hardness with two decimals.
PAPER_CREDIT_ROUNDING = 0.005


#: Our algorithms standing for Prudêncio's (2019) Weka pool (J48, IBk k=5, Logistic,
#: NaiveBayes, RandomForest).
CREDIT_POOL = ("DT", "5NN", "LR", "NB", "RF")


#: Prudêncio (2019), Table 1: labels and the scores of four models m1..m4 (x1..x10).
TOY_LABELS = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])


TOY_SCORES = np.array([
    [0.70, 0.60, 0.00, 0.65], [0.80, 1.00, 1.00, 0.90], [0.80, 0.95, 0.93, 0.88],
    [0.70, 0.25, 0.91, 0.48], [0.80, 0.68, 0.78, 0.74], [0.75, 0.64, 0.83, 0.70],
    [0.10, 0.37, 0.78, 0.24], [0.55, 0.30, 0.95, 0.43], [0.80, 0.72, 1.00, 0.76],
    [0.15, 0.25, 0.87, 0.20]])


def toy_claims() -> tuple[list[str], list[Claim]]:
    """Prudêncio (2019)'s worked example (its Table 1), computed by the library."""
    from metaeval.hardness import instance_hardness, pool_hardness

    y, S = TOY_LABELS, TOY_SCORES
    methods = SEED_METHODS
    pool = {m: np.asarray(pool_hardness(y, S, m)) for m in methods}
    table = pd.DataFrame({ABBREVIATION[m]: pool[m] for m in methods},
                         index=pd.Index([f"x{i + 1}" for i in range(10)], name="instance"))
    table.insert(0, "label", y)
    # x4 under m1: score 0.7, R(0.7) = 5/10 (scores <= 0.7: 0.7, 0.7, 0.1, 0.55, 0.15),
    # a tied group of l = 2 (x1 and x4), eq. 26 with R = 0.5, l/n = 0.2
    lib = float(instance_hardness(y, S[:, 0], "rate-driven")[3])
    R, L = 0.5, 0.2
    hand = (1 - R) ** 2 + L * (L / 3 + (1 - R))
    neg = np.flatnonzero(y == 1)
    pos = np.flatnonzero(y == 0)

    def top(values, idx, n):
        return {int(i) for i in idx[np.argsort(-values[idx], kind="stable")[:n]]}

    hardest_neg = all(top(pool[m], neg, 2) == {0, 3} for m in methods)
    x1_over_x4 = pool["rate-driven"][0] > pool["rate-driven"][3]
    hardest_pos = all(top(pool[m], pos, 3) == {4, 5, 8} for m in methods)
    claims = [
        fixed(Claim("P1", PR, "§3.3, Fig. 4", "for x4 under m1, R(0.7) = 0.5 and the "
                    "previous rate is 0.3 (two negatives score 0.7), so eq. 26 gives its "
                    "rate-driven hardness", "|library − eq. 26 by hand|"),
              "exact", abs(lib - hand), abs(lib - hand) < 1e-12,
              evidence=[f"by hand: (1 − 0.5)² + 0.2·(0.2/3 + 1 − 0.5) = {hand:.6f}; "
                        f"`instance_hardness(y, m1, \"rate-driven\")[x4]` = {lib:.6f}"]),
        fixed(Claim("P2", PR, "§4", "the hardest negative instances are x1 and x4 (SF, SD, "
                    "RD); x1 is even harder to rank (RD)", "pool hardness, Table 1's data"),
              "exact", None, bool(hardest_neg and x1_over_x4),
              evidence=["; ".join(f"{ABBREVIATION[m]}: " + ", ".join(
                  f"x{i + 1} {pool[m][i]:.3f}" for i in neg) for m in methods)]),
        fixed(Claim("P3", PR, "§4", "the hardest positive instances are x5, x6 and x9 (SF, "
                    "SD, RD)", "pool hardness, Table 1's data"),
              "exact", None, bool(hardest_pos),
              evidence=["; ".join(f"{ABBREVIATION[m]}: " + ", ".join(
                  f"x{i + 1} {pool[m][i]:.3f}" for i in pos) for m in methods)]),
    ]
    lines = ["### The worked example (Prudêncio 2019, Table 1)", "",
             "Ten instances scored by four models; label 1 is the paper's negative class. "
             "Pool hardness (mean over m1–m4) computed by `metaeval.hardness.pool_hardness`:",
             "", markdown_table(table, digits=3), ""]
    return lines, claims


def credit_claim_specs() -> dict[str, Claim]:
    return {
        "G1": Claim("G1", PR, "§4", "under SF and SD the positive class (bad) is much harder "
                    "than the negative (good)",
                    "smaller over SF, SD of CH(bad) / CH(good)", Criterion(">=", 2.0)),
        "G2": Claim("G2", PR, "§4", "under RD hardness is more balanced and the negative "
                    "class is the harder",
                    "smaller of CH_rd(good) − CH_rd(bad) and |SD gap| − |RD gap|",
                    Criterion(">", 0.0)),
        "G4": Claim("G4", PR, "§4", "rate-driven class hardness is 0.17 (bad) and 0.25 "
                    "(good)", "larger |ours − paper| over the two classes",
                    Criterion("<=", 0.01)),
        "G3": Claim("G3", PR, "§4", "SU is harder than SD and RU harder than RD, in both "
                    "classes", "smallest IH_su − IH_sd and IH_ru − IH_rd over every instance, "
                    "model and dataset"),
        "ID": Claim("ID", PR, "eqs. 22/26, 32/34 made tie-aware",
                    "mean RU − mean RD = 1/6 exactly, for every model and dataset",
                    "largest |mean RU − mean RD − 1/6| over every model and dataset"),
        "R1": Claim("R1", PR, "§4 with eqs. 32/34", "the paper's RU numbers (0.35, 0.39) "
                    "are not tie-aware values: they break the identity of (ID)",
                    "the paper's π₀·ΔCH₀ + π₁·ΔCH₁ (Δ = RU − RD) against 1/6"),
    }


def section_prudencio(data, rng, draws, figures_dir, rel) -> tuple[list[str], list[Claim]]:
    from metaeval.hardness import class_hardness

    lines = [f"## 4. {PR}", ""]
    toy_lines, claims = toy_claims()
    lines += toy_lines
    specs = credit_claim_specs()
    # identities, on every dataset of the study
    n_ds = len(data.complete)
    where = f"{data.n_instances} instances × {len(data.labels)} models, {n_ds} datasets"
    g3_min = min(data.su_minus_sd, data.ru_minus_rd)
    construction = [
        fixed(specs["G3"], "by construction", g3_min, bool(g3_min >= -1e-12),
              evidence=[f"over {where}: min IH_su − IH_sd = {num(data.su_minus_sd, 4)}, "
                        f"min IH_ru − IH_rd = {num(data.ru_minus_rd, 4)}",
                        "per instance SU = |y − s| ≥ (y − s)² = SD on [0, 1]; RU and RD are "
                        "E[u] and E[u²] of the same rate u ∈ [0, 1] (spread uniformly over a "
                        "tied group), and u ≥ u²"]),
        fixed(specs["ID"], "by construction", data.identity_dev,
              bool(data.identity_dev < 1e-9),
              evidence=[f"over {where}: largest deviation {num(data.identity_dev, 4)}"]),
    ]
    lines += [f"### German credit (`{CREDIT}`)", ""]
    if CREDIT not in data.scores:
        claims += [not_evaluable(specs[c], [CREDIT]) for c in ("G1", "G2", "G4")]
        claims += construction + [rate_uniform_exact(specs["R1"], None)]
        lines += [f"*`{CREDIT}` is not complete in this store.*", ""]
        lines += ["### Claims", ""] + verdict_lines(claims) + [""]
        return lines, claims
    y, S = data.scores[CREDIT]
    labels = list(data.labels)
    # the paper's orientation: "bad" (our class 1) is its class 0, scores P(good)
    yp = 1 - np.asarray(y).astype(int)
    sp = 1.0 - S
    pools = {"all models": list(labels),
             "Weka-like 5": [a for a in CREDIT_POOL if a in labels]}
    rows = {}
    for m in ALL_METHODS:
        row = {}
        for pname, pool in pools.items():
            ch = np.asarray(class_hardness(y, sp[:, [labels.index(a) for a in pool]], m,
                                           pos_label=0)).mean(axis=1)
            row[f"{pname}: bad"], row[f"{pname}: good"] = ch
        row["paper: bad"] = PAPER_CREDIT.loc[m, "positive (bad)"]
        row["paper: good"] = PAPER_CREDIT.loc[m, "negative (good)"]
        rows[f"{m} ({ABBREVIATION[m]})"] = row
    table = pd.DataFrame.from_dict(rows, orient="index").rename_axis("method")
    n_bad = int(np.sum(y))
    lines += [
        f"`{CREDIT}` has {n_bad} \"bad\" (our class 1) and {y.size - n_bad} \"good\" "
        "instances. The paper calls \"bad\" the positive class (its class 0) and scores "
        "P(good); the table is computed in that orientation (`pos_label=0`, scores "
        "`1 − s`). Class hardness of a pool is the mean over its models (the paper's "
        "ensemble strategy). The paper pooled five Weka models (J48, IBk k=5, Logistic, "
        "NaiveBayes, RandomForest), stood for by DT, 5NN, LR, NB, RF (\"Weka-like 5\", "
        "the pool the claims use).", "", markdown_table(table, digits=3), ""]
    pool = pools["Weka-like 5"]
    if len(pool) < 2:
        claims += [not_evaluable(specs[c], present(labels, CREDIT_POOL))
                   for c in ("G1", "G2", "G4")]
    else:
        claims += credit_claims(specs, yp, sp[:, [labels.index(a) for a in pool]], table,
                                rng, draws)
    claims += construction
    lines += rate_uniform_lines(data, yp, sp, pools, labels)
    claims.append(rate_uniform_exact(specs["R1"], n_bad / y.size))
    lines += ["### Claims", "",
              "G-claims use the Weka-like pool; each resample draws instances with "
              "replacement (their hardness fixed), each null draw permutes the class labels "
              "(scores kept, so each model keeps its score distribution).", ""]
    lines += verdict_lines(claims) + [""]
    from metaeval.report import plot

    try:
        fig = plot("class-cost-curves", data.store, dataset=CREDIT)
    except Exception as exc:  # noqa: BLE001 - the figure is optional; say why it is missing
        lines += [f"*(class cost curves not drawn: {exc})*", ""]
    else:
        path = save_figure(fig, figures_dir / f"class_cost_curves_{CREDIT}.png")
        lines += [f"![class cost curves, {CREDIT}]({rel}/{path.name})", "",
                  "Class cost curves of the whole pool (the paper's Fig. 7), in metaeval's "
                  "orientation: class 0 = good, class 1 = bad.", ""]
    return lines, claims


def credit_claims(specs, yp, sp, table, rng, draws) -> list[Claim]:
    """G1, G2, G4 on the Weka-like pool (paper orientation: class 0 = bad)."""
    methods = (SF, SD, RD)
    LF = label_free_hardness(yp, sp, SEED_METHODS).mean(axis=-1)  # (2, n, 3): pool mean
    n = yp.size
    H = LF[yp, np.arange(n)]  # (n, 3): the hardness the library gives for (yp, sp)
    c0 = (yp == 0).astype(float)
    full0 = H[yp == 0].mean(axis=0)
    full1 = H[yp == 1].mean(axis=0)
    for m, name in zip(methods, SEED_METHODS, strict=True):
        row = table.loc[f"{name} ({ABBREVIATION[name]})"]
        assert np.allclose([full0[m], full1[m]], [row["Weka-like 5: bad"],
                                                  row["Weka-like 5: good"]])
    W = rng.multinomial(n, np.full(n, 1.0 / n), size=draws.n_boot).astype(float)
    b0 = (W * c0) @ H / (W * c0).sum(axis=1, keepdims=True)
    b1 = (W * (1 - c0)) @ H / (W * (1 - c0)).sum(axis=1, keepdims=True)
    n0, n1 = permuted_class_means(LF, yp, rng, draws.n_null)
    sets = {"full": (full0[None], full1[None]), "boot": (b0, b1), "null": (n0, n1)}

    def g1(bad, good):
        return np.minimum(bad[:, SF] / good[:, SF], bad[:, SD] / good[:, SD])

    def g2(bad, good):
        return np.minimum(good[:, RD] - bad[:, RD],
                          np.abs(bad[:, SD] - good[:, SD]) - np.abs(bad[:, RD] - good[:, RD]))

    paper = PAPER_CREDIT.loc["rate-driven"].to_numpy()

    def g4(bad, good):
        return np.maximum(np.abs(bad[:, RD] - paper[0]), np.abs(good[:, RD] - paper[1]))

    null_model = "class labels permuted (scores kept)"
    ev = {
        "G1": [f"CH(bad)/CH(good): SF {full0[SF]:.3f}/{full1[SF]:.3f} = "
               f"{full0[SF] / full1[SF]:.2f}, SD {full0[SD]:.3f}/{full1[SD]:.3f} = "
               f"{full0[SD] / full1[SD]:.2f} (paper: " + ", ".join(
                   f"{PAPER_CREDIT.loc[m].iloc[0]}/{PAPER_CREDIT.loc[m].iloc[1]} = "
                   f"{PAPER_CREDIT.loc[m].iloc[0] / PAPER_CREDIT.loc[m].iloc[1]:.2f}"
                   for m in ("score-fixed", "score-driven")) + ")"],
        "G2": [f"RD {full0[RD]:.3f} (bad) vs {full1[RD]:.3f} (good); gaps |SD| "
               f"{abs(full0[SD] - full1[SD]):.3f}, |RD| {abs(full0[RD] - full1[RD]):.3f}"],
        "G4": [f"RD: bad {full0[RD]:.3f} vs {paper[0]}, good {full1[RD]:.3f} vs {paper[1]}"],
    }
    notes = {
        "G1": "shuffled labels keep the class sizes and each model's scores, which lean "
              "towards the majority (good): the minority (bad) is then harder under SF and SD "
              "whatever the labelling. The paper gives this reason itself (\"scores were more "
              "concentrated towards 1, as negative is the majority class\")",
        "G2": "with shuffled labels RD hardness is balanced too (both classes near 1/3) and "
              "the sign of the gap is a coin flip",
        "G4": "",
    }
    out = []
    for key, fn in (("G1", g1), ("G2", g2), ("G4", g4)):
        vals = [fn(*sets[w]) for w in ("full", "boot", "null")]
        out.append(if_chance(assess(specs[key], *vals, evidence=ev[key],
                                    boot_unit="instances", null_model=null_model),
                             notes[key]))
    return out


def rate_uniform_lines(data, yp, sp, pools, labels) -> list[str]:
    """The rate-uniform table: the paper, tie-aware and uncorrected forms, the identity."""
    from metaeval.hardness import class_hardness

    pi0 = float(np.mean(yp == 0))

    def row(pool, rd_ties, ru_ties):
        idx = [labels.index(a) for a in pool]
        rd = np.asarray(class_hardness(yp, sp[:, idx], "rate-driven", ties=rd_ties)).mean(1)
        ru = np.asarray(class_hardness(yp, sp[:, idx], "rate-uniform", ties=ru_ties)).mean(1)
        return rd, ru

    rows = {}
    distinct = ", ".join(f"{a} {np.unique(sp[:, labels.index(a)]).size}"
                         for a in pools.get("Weka-like 5", []))
    paper_rd = PAPER_CREDIT.loc["rate-driven"].to_numpy()
    paper_ru = PAPER_CREDIT.loc["rate-uniform"].to_numpy()
    entries = [("paper", paper_rd, paper_ru)]
    for pname, pool in pools.items():
        if not pool:
            continue
        entries += [
            (f"{pname}: tie-aware RD and RU", *row(pool, "interpolate", "interpolate")),
            (f"{pname}: tie-aware RD, RU uncorrected (eqs. 32/34 as printed)",
             *row(pool, "interpolate", "none")),
            (f"{pname}: both uncorrected", *row(pool, "none", "none"))]
    for name, rd, ru in entries:
        mean_rd = pi0 * rd[0] + (1 - pi0) * rd[1]
        mean_ru = pi0 * ru[0] + (1 - pi0) * ru[1]
        rows[name] = {"RD bad": rd[0], "RD good": rd[1], "RU bad": ru[0], "RU good": ru[1],
                      "mean RD": mean_rd, "mean RU": mean_ru,
                      "mean RU − mean RD": mean_ru - mean_rd}
    table = pd.DataFrame.from_dict(rows, orient="index").rename_axis("source")
    lo, hi = rounding_interval(pi0)
    paper_gap = rows["paper"]["mean RU − mean RD"]
    return [
        "### Rate-uniform: tie-aware or uncorrected?", "",
        "Eqs. 32/34 print rate-uniform hardness as R(s) and 1 − R(s), with no tie term; "
        "metaeval's default spreads a tied group uniformly over its rates, as eqs. 21–26 "
        "do for rate-driven (R − L/2 and 1 − R + L/2, L the group's share). The tie-aware "
        "forms obey an exact identity: **for every model, mean RU − mean RD = 1/6**, "
        "whatever the scores, ties or class sizes. Why: at rate c the threshold predicts "
        "the share c of the instances as positive (class 0), so the expected count of "
        "class-0 errors minus class-1 errors is n(π₀ − c). RD weighs an error at c by 2c "
        "(class 0) or 2(1 − c) (class 1); RU weighs every error by 1 "
        "(∫2c dc = ∫2(1 − c) dc = 1). The difference of the two means is therefore "
        "∫₀¹ (1 − 2c)(π₀ − c) dc = π₀·0 + ∫₀¹ (2c² − c) dc = 2/3 − 1/2 = 1/6. The untied "
        "forms break it on tied scores, and they move RU the same way for every model: "
        "+L/2 on each class-0 (bad) instance, −L/2 on each class-1 (good) one.", "",
        markdown_table(table, digits=4), "",
        f"With π₀ = {pi0:.1f} (bad), the paper's numbers give mean RU − mean RD = "
        f"{paper_gap:.4f}. Each printed value carries up to ±{PAPER_CREDIT_ROUNDING} of "
        f"rounding, so the true gap lies in [{lo:.4f}, {hi:.4f}], which "
        + ("excludes" if not lo <= 1 / 6 <= hi else "includes")
        + f" 1/6 = {1 / 6:.4f}" + (": the paper's RD and RU cannot both be tie-aware."
                                   if not lo <= 1 / 6 <= hi else ".")
        + lean_sentence(rows, distinct), ""]


def lean_sentence(rows, distinct="") -> str:
    """Which form the paper's RD and RU numbers sit closer to, in words, from the table."""
    key = next((k for k in rows if k.startswith("Weka-like 5: tie-aware RD and RU")), None)
    if key is None:
        return ""
    paper = rows["paper"]
    tie = rows[key]
    unc = rows[key.replace("tie-aware RD and RU", "both uncorrected")]
    rd_tie = max(abs(paper["RD bad"] - tie["RD bad"]), abs(paper["RD good"] - tie["RD good"]))
    rd_unc = max(abs(paper["RD bad"] - unc["RD bad"]), abs(paper["RD good"] - unc["RD good"]))
    up = paper["RU bad"] - tie["RU bad"]
    down = paper["RU good"] - tie["RU good"]
    ours_up = unc["RU bad"] - tie["RU bad"]
    ours_down = unc["RU good"] - tie["RU good"]
    text = (f" The paper's RD numbers are within {rd_tie:.3f} of our tie-aware RD and "
            f"{rd_unc:.3f} of our untied RD (Weka-like pool)")
    if up > 0 > down:
        text += (f"; its RU numbers lean the way the uncorrected form leans, above our "
                 f"tie-aware RU for bad ({up:+.3f}) and below it for good ({down:+.3f}). "
                 f"Our uncorrected RU leans {'further' if ours_up > up else 'less'} "
                 f"({ours_up:+.3f}, {ours_down:+.3f}); how far depends on how tied the "
                 f"scores are (distinct score values on {CREDIT}: {distinct}; the "
                 "paper's Weka models are not ours).")
    else:
        text += (f"; its RU numbers differ from our tie-aware RU by {up:+.3f} (bad) and "
                 f"{down:+.3f} (good), not the direction the uncorrected form predicts.")
    return text


def rounding_interval(pi0) -> tuple[float, float]:
    """Interval of π₀ΔCH₀ + π₁ΔCH₁ compatible with the paper's rounded class hardness."""
    rd = PAPER_CREDIT.loc["rate-driven"].to_numpy()
    ru = PAPER_CREDIT.loc["rate-uniform"].to_numpy()
    w = np.array([pi0, 1 - pi0])
    gap = float(w @ (ru - rd))
    slack = float(2 * PAPER_CREDIT_ROUNDING * w.sum())
    return gap - slack, gap + slack


def rate_uniform_exact(claim, pi0) -> Claim:
    """R1: the paper's printed numbers against the identity of (ID)."""
    if pi0 is None:
        return not_evaluable(claim, [CREDIT])
    lo, hi = rounding_interval(pi0)
    rd = PAPER_CREDIT.loc["rate-driven"].to_numpy()
    ru = PAPER_CREDIT.loc["rate-uniform"].to_numpy()
    gap = float(np.array([pi0, 1 - pi0]) @ (ru - rd))
    return fixed(claim, "exact", gap, not (lo <= 1 / 6 <= hi), interval=(lo, hi),
                 interval_note="rounding of the printed values",
                 evidence=[f"{pi0:.1f}·({ru[0]} − {rd[0]}) + {1 - pi0:.1f}·({ru[1]} − "
                           f"{rd[1]}) = {gap:.4f}; with rounding [{lo:.4f}, {hi:.4f}], "
                           f"1/6 = {1 / 6:.4f} "
                           f"{'outside' if not lo <= 1 / 6 <= hi else 'inside'}"])
