"""Melo & Prudêncio (2014): the Ecoli section and the aggregated section."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd

from .evidence import (
    SAMPLED,
    Claim,
    Criterion,
    assess,
    if_chance,
    markdown_table,
    not_evaluable,
    verdict_lines,
)
from .resampling import (
    Batches,
    aggregated_batches,
    fraction_fit,
    instance_batches,
    label_free_hardness,
    mad,
    method_swap_null,
    permuted_class_means,
    permuted_labels,
    present,
    rate_driven_floor,
    tied_share,
)
from .study import (
    ABBREVIATION,
    ECOLI,
    RD,
    SD,
    SEED_METHODS,
    SF,
    Trees,
    dendrogram_figure,
    mean_pair_value,
    pair_rank,
    save_figure,
)

MP = "Melo & Prudêncio (2014)"


#: Melo & Prudêncio (2014), MetaSel version Table 1 (the BRACIS version's Table I has the
#: first two columns): mean instance hardness on "Ecoli" (decimal commas turned into points).
PAPER_TABLE1 = pd.DataFrame(
    {
        "rate-driven": [0.269, 0.2583, 0.2858, 0.252, 0.2585, 0.256, 0.2554, 0.2553],
        "score-driven": [0.0694, 0.0583, 0.0774, 0.0671, 0.1949, 0.051, 0.1828, 0.1811],
        "score-fixed": [0.0833, 0.0744, 0.0774, 0.1047, 0.2024, 0.0714, 0.244, 0.2381],
    },
    index=pd.Index(["3NN", "5NN", "DT", "LR", "NB", "RF", "SVM_LIN", "SVM_RBF"],
                   name="algorithm"),
)


ECOLI_ROWS = 336  # rows of the UCI Ecoli file


#: Rows per localisation site in UCI Ecoli (its documentation, ecoli.names).
ECOLI_SITES = {"cp": 143, "im": 77, "pp": 52, "imU": 35, "om": 20, "omL": 5, "imL": 2,
               "imS": 2}


def ecoli_identification(y) -> list[str]:
    """Which binary Ecoli the papers used, argued from Table 1's numbers."""
    n = ECOLI_ROWS
    sf, rd = PAPER_TABLE1["score-fixed"], PAPER_TABLE1["rate-driven"]
    fit = {m: fraction_fit(sf, m) for m in (n, 220)}
    k_lr = int(round(sf["LR"] * n))
    floor = rate_driven_floor(k_lr, n)
    sites = [site for site, count in ECOLI_SITES.items() if count == k_lr]
    text = (
        "**Which Ecoli.** The papers' \"Ecoli\" is a binary version of UCI Ecoli whose "
        "split they do not state. (i) Score-fixed hardness is an error count over n "
        f"instances: every value of the papers' IH_sf column lies within {fit[n]:.5f} of a "
        f"multiple of 1/{n} but up to {fit[220]:.5f} from a multiple of 1/220, so all {n} "
        "rows were used (one localisation site against the rest). (ii) LR's IH_sf "
        f"{sf['LR']} is {k_lr}/{n} = {k_lr / n:.4f} up to rounding: an LR that predicts the "
        f"majority class everywhere in a split with {k_lr} minority rows. Only "
        f"{' or '.join(sites) or 'no site'} has {k_lr} rows. (iii) With {k_lr} of {n} in one "
        f"class a perfect ranking has mean IH_rd {floor:.4f}; the papers' IH_rd values lie "
        f"{(rd - floor).min():.3f}–{(rd - floor).max():.3f} above it. The split is "
        f"therefore {' or '.join(sites)} vs rest, KEEL's `ecoli3`, which the suite ships.")
    if y is not None:
        text += (f" Our `{ECOLI}` has {y.size} rows, {int(y.sum())} in class 1 (imU); "
                 "class 1 is the minority, as LR's error count requires.")
    return [text, ""]


def section_ecoli(data, rng, draws, figures_dir, rel) -> tuple[list[str], list[Claim]]:
    """Table 1 / Table I, the tie question and the single-dataset dendrogram claims."""
    from metaeval.hardness import instance_hardness, instance_hardness_by_method

    lines = [f"## 2. {MP}: Ecoli, one dataset", ""]
    specs = ecoli_claim_specs()
    if ECOLI not in data.scores:
        lines += ecoli_identification(None)
        lines += [f"*`{ECOLI}` is not complete in this store: the claims below are not "
                  "evaluable.*", ""]
        claims = [not_evaluable(c, [ECOLI]) for c in specs.values()]
        return lines + verdict_lines(claims) + [""], claims
    y, S = data.scores[ECOLI]
    labels = list(data.labels)
    k = len(labels)
    lines += ecoli_identification(y)
    Hm = instance_hardness_by_method(y, S, SEED_METHODS)
    untied = instance_hardness(y, S, "rate-driven", ties="none")
    swapped = instance_hardness(y, 1.0 - S, "rate-driven", ties="none", pos_label=0)
    # forms: SF, SD, RD (tie-aware), RD untied, RD untied with the classes swapped
    H = np.stack([Hm[m] for m in SEED_METHODS] + [untied, swapped], axis=1)
    batches, boot_means = instance_batches(H, rng, draws.n_boot, draws.n_null)
    full_means = H.mean(axis=0)  # (5, k)
    ties = np.array([tied_share(S[:, j]) for j in range(k)])
    common = [a for a in labels if a in PAPER_TABLE1.index]
    ci = [labels.index(a) for a in common]
    paper = PAPER_TABLE1.loc[common]

    table = pd.DataFrame({
        "RD (tie-aware)": full_means[RD], "RD (R², untied)": full_means[3],
        "RD (untied, classes swapped)": full_means[4], "SD": full_means[SD],
        "SF": full_means[SF]}, index=pd.Index(labels, name="algorithm"))
    for col, name in (("rate-driven", "paper RD"), ("score-driven", "paper SD"),
                      ("score-fixed", "paper SF")):
        table[name] = PAPER_TABLE1[col].reindex(labels)
    table["tied scores"] = [f"{t:.0%}" for t in ties]
    lines += [f"### Table 1 of the MetaSel version (Table I of the BRACIS version) beside "
              f"`{ECOLI}`", "",
              f"Mean instance hardness per algorithm on `{ECOLI}` ({y.size} instances, "
              f"{int(y.sum())} in class 1), 10-fold out-of-fold scores. \"tied scores\" is "
              "the share of instances whose score equals another instance's score.", "",
              markdown_table(table), ""]

    claims = []
    # T1: the three columns
    for mi, (key, col) in zip((RD, SD, SF), (("T1-RD", "rate-driven"),
                                             ("T1-SD", "score-driven"),
                                             ("T1-SF", "score-fixed")), strict=True):
        claim = specs[key]
        if len(common) < 2:
            claims.append(not_evaluable(claim, present(labels, PAPER_TABLE1.index)))
            continue
        target = paper[col].to_numpy()
        full = np.abs(full_means[mi, ci] - target).max()
        boot = np.abs(boot_means[:, mi][:, ci] - target).max(axis=1)
        perm = rng.permuted(np.broadcast_to(np.arange(len(ci)), (draws.n_null, len(ci))),
                            axis=-1)
        null = np.abs(full_means[mi, ci][perm] - target).max(axis=1)
        diffs = full_means[mi, ci] - target
        within = int(np.sum(np.abs(diffs) <= claim.criterion.threshold + 1e-12))
        worst = common[int(np.argmax(np.abs(diffs)))]
        shift = boot_means[:, mi][:, ci].mean(axis=1) if len(boot_means) else np.zeros(1)
        ev = ["ours − paper: " + ", ".join(f"{a} {d:+.4f}" for a, d in zip(common, diffs,
                                                                             strict=True)),
              f"{within} of {len(common)} algorithms within "
              f"{claim.criterion.threshold}; the largest gap is {worst}'s",
              f"a resample of the instances moves our column mean by {shift.std():.4f} "
              "(standard deviation), all algorithms together"]
        claims.append(assess(claim, full, boot, null, evidence=ev, boot_unit="instances",
                             null_model="algorithm labels permuted"))
    # the tie question
    claims.append(ties_claim(specs["TIES"], labels, common, ties, full_means, boot_means))
    lines += ties_paragraph(labels, common, ties, full_means)

    # dendrogram claims
    from metaeval.similarity import average_linkage

    Z = {m: average_linkage(batches.full[0, i]) for i, m in enumerate(SEED_METHODS)}
    fig = dendrogram_figure(Z, labels, ECOLI)
    path = save_figure(fig, figures_dir / f"dendrograms_{ECOLI}.png")
    lines += [f"![dendrograms for {ECOLI}]({rel}/{path.name})", "",
              f"Average-linkage dendrograms of `{ECOLI}` under SF, SD and RD (Figs. 3–5 of "
              "the MetaSel version; Figs. 2–3 of the BRACIS version, SD and RD). The dashed "
              "line is the middle of the widest gap between merge heights.", ""]
    claims += tree_claims_ecoli(specs, labels, batches, rng, draws)
    claims += hardness_claims_ecoli(specs, labels, y, S, full_means, boot_means, rng, draws)
    lines += ["### Claims", ""] + verdict_lines(claims) + [""]
    return lines, claims


def ecoli_claim_specs() -> dict[str, Claim]:
    """The claims about Ecoli, stated as the papers state them."""
    both = "BRACIS §VII; MetaSel §7 (RD)"
    return {
        "T1-RD": Claim("T1-RD", MP, "MetaSel Table 1; BRACIS Table I",
                       "our mean rate-driven hardness matches the paper's column",
                       "largest |ours − paper| over the algorithms", Criterion("<=", 0.01)),
        "T1-SD": Claim("T1-SD", MP, "MetaSel Table 1; BRACIS Table I",
                       "our mean score-driven hardness matches the paper's column",
                       "largest |ours − paper| over the algorithms", Criterion("<=", 0.01)),
        "T1-SF": Claim("T1-SF", MP, "MetaSel Table 1",
                       "our mean score-fixed hardness matches the paper's column",
                       "largest |ours − paper| over the algorithms", Criterion("<=", 0.01)),
        "TIES": Claim("TIES", MP, "MetaSel Table 1; BRACIS Table I, eqs. 15/18",
                      "the papers' rate-driven numbers are the tie-aware form (interpolated "
                      "within tied scores), not R², (1 − R)²",
                      "mean |ours − paper| over the tied algorithms: tie-aware minus the "
                      "better untied orientation", Criterion("<", 0.0)),
        "E1": Claim("E1", MP, "", "the two SVMs form a cluster in every method",
                    "largest over {methods} of the smallest cluster holding both SVMs",
                    Criterion("==", 2)),
        "E2": Claim("E2", MP, "",
                    "NB is a cluster by itself (joins last) under the score-based methods",
                    "earliest merge, over {methods}, at which NB joins (k − 1 = last)",
                    Criterion("==", 7)),
        "E3": Claim("E3", MP, both, "under RD, NB is similar to LR (they pair up)",
                    "smallest RD cluster holding NB and LR", Criterion("==", 2)),
        "E4": Claim("E4", MP, "", "the KNNs and RF are similar in every method (a "
                    "cluster of 3NN, 5NN and RF)",
                    "largest over {methods} of the smallest cluster holding 3NN, 5NN, RF",
                    Criterion("==", 3)),
        "E5": Claim("E5", MP, "MetaSel §7", "SF and SD give the same clusters, differing "
                    "in the cut-points", "clusters of the SF tree absent from the SD tree",
                    Criterion("==", 0)),
        "E6": Claim("E6", MP, "",
                    "models calibrate better than they rank: score-based hardness is in "
                    "general below rate-driven hardness",
                    "algorithms (of {k}) whose IH under {methods} is below IH_rd",
                    Criterion(">=", 6)),
        "E7": Claim("E7", MP, "BRACIS §VII; MetaSel §7", "NB has the worst score-driven "
                    "hardness", "NB's rank by IH_sd (1 = hardest)", Criterion("==", 1)),
        "E8": Claim("E8", MP, "BRACIS §VII; MetaSel §7", "NB's rate-driven hardness is "
                    "similar to the other algorithms'",
                    "NB's IH_rd beyond the others' range (≤ 0: inside)",
                    Criterion("<=", 0.0)),
    }


def ties_claim(claim, labels, common, ties, full_means, boot_means) -> Claim:
    """Which rate-driven form the papers' numbers fit, decided on the tied algorithms.

    The untied form charges a tied group the rate of its last member, so on tied scores
    it moves far from the tie-aware value, up or down with the orientation of the classes
    (unknown for the papers' Ecoli): both orientations are tried and the better one kept.
    Null (the rival form): the paper's column replaced by the untied values of a
    resample (orientations alternating); the rate at which the test would still prefer
    the tie-aware form.
    """
    tied = [a for a in common if ties[labels.index(a)] >= 0.5]
    if not tied:
        return replace(claim, kind="not evaluable",
                       evidence=("no algorithm of the study has tied scores",))
    ti = [labels.index(a) for a in tied]
    paper = PAPER_TABLE1.loc[tied, "rate-driven"].to_numpy()

    def stat(tie, none, swap, target):
        return mad(tie, target) - np.minimum(mad(none, target), mad(swap, target))

    full = stat(full_means[RD, ti], full_means[3, ti], full_means[4, ti], paper)
    b = boot_means[:, :, ti]
    boot = stat(b[:, RD], b[:, 3], b[:, 4], paper)
    rival = np.where((np.arange(len(b)) % 2 == 0)[:, None], b[:, 3], b[:, 4])
    null = stat(full_means[RD, ti], full_means[3, ti], full_means[4, ti], rival)
    ev = [f"tied algorithms (≥ 50% tied scores): {', '.join(tied)}",
          f"mean |ours − paper|: tie-aware {mad(full_means[RD, ti], paper):.4f}, untied "
          f"{mad(full_means[3, ti], paper):.4f}, untied with the classes swapped "
          f"{mad(full_means[4, ti], paper):.4f}"]
    return assess(claim, full, boot, null, evidence=ev, boot_unit="instances",
                  null_model="the untied form (paper column replaced by a resample's "
                             "untied values)")


def ties_paragraph(labels, common, ties, full_means) -> list[str]:
    tied = [a for a in common if ties[labels.index(a)] >= 0.5]
    untied = [a for a in common if ties[labels.index(a)] < 0.5]
    if not tied:
        return []
    ti = [labels.index(a) for a in tied]
    ui = [labels.index(a) for a in untied]
    paper = PAPER_TABLE1.loc[tied, "rate-driven"].to_numpy()
    rows = pd.DataFrame({"paper": paper, "tie-aware": full_means[RD, ti],
                         "untied": full_means[3, ti],
                         "untied, classes swapped": full_means[4, ti]},
                        index=pd.Index(tied, name="algorithm"))
    gap_untied = np.abs(full_means[[3, 4]][:, ti] - paper)
    gap_tie = np.abs(full_means[RD, ti] - paper)
    spread = (np.ptp(full_means[[RD, 3, 4]][:, ui], axis=0).max() if ui else 0.0)
    distinct = (f" ({', '.join(untied)} here: their three RD columns above differ by at "
                f"most {spread:.4f}; even a distinct score is spread over its own 1/n of "
                "rates, so the forms differ by O(1/n))" if ui else "")
    return [
        "### Tie-aware or untied rate-driven hardness?", "",
        "The papers write rate-driven hardness as R(s)² and (1 − R(s))² (BRACIS eqs. 15/18, "
        "MetaSel eqs. 20/22), with no word on ties. Prudêncio (2019, eqs. 21–26) "
        "interpolates within a tied group; metaeval does the same (`ties=\"interpolate\"`, "
        "the default) and offers the literal form as `ties=\"none\"`. The two nearly agree "
        f"when scores are distinct{distinct} and part ways on tied scores: the untied form "
        "charges a whole tied group the rate of its last member, which moves the mean up "
        "or down depending on which class is called class 0. The tied algorithms decide:",
        "", markdown_table(rows), "",
        f"The untied form misses the papers' numbers by {gap_untied.min():.3f} to "
        f"{gap_untied.max():.3f} (either orientation), the tie-aware form by at most "
        f"{gap_tie.max():.4f}: the published numbers fit tied scores handled as Prudêncio "
        "(2019) handles them, not the printed R². (Earlier versions of this document said "
        "the opposite.) Claim (TIES) puts this to the same test as every other claim.", ""]


def tree_claims_ecoli(specs, labels, batches, rng, draws) -> list[Claim]:
    """Claims E1-E5 on the single-dataset trees (instance resamples, permuted labels)."""
    k = len(labels)
    out = []
    full_t, boot_t, null_t = (batches.tree(w) for w in ("full", "boot", "null"))
    null_ind = Trees(permuted_labels(batches.full[0, :3], rng, draws.n_null,
                                     independent=True))

    def clade(claim, members, methods, size_wanted):
        miss = present(labels, members)
        if miss:
            return not_evaluable(claim, miss)
        idx = [labels.index(a) for a in members]
        claim = replace(claim, criterion=Criterion("==", size_wanted))
        vals = [t.clade_size(idx)[:, methods].max(axis=1) for t in (full_t, boot_t, null_t)]
        per = full_t.clade_size(idx)[0]
        ev = ["; ".join(f"{ABBREVIATION[SEED_METHODS[m]]}: smallest cluster holding "
                        f"{{{', '.join(members)}}} has {per[m]} members" for m in methods)]
        return assess(claim, *vals, evidence=ev, boot_unit="instances",
                      null_model="algorithm labels permuted")

    out += [clade(c, ("SVM_LIN", "SVM_RBF"), m, 2)
            for c, m in by_version(specs["E1"], ALL_VERSIONS_ECOLI)]
    for claim, methods in by_version(specs["E2"], SCORE_VERSIONS_ECOLI):
        if "NB" not in labels:
            out.append(not_evaluable(claim, ["NB"]))
            continue
        nb = labels.index("NB")
        claim = replace(claim, criterion=Criterion("==", k - 1))
        vals = [t.join_step(nb)[:, methods].min(axis=1) for t in (full_t, boot_t, null_t)]
        per = full_t.join_step(nb)[0]
        out.append(assess(claim, *vals, boot_unit="instances",
                          null_model="algorithm labels permuted",
                          evidence=["; ".join(f"{ABBREVIATION[SEED_METHODS[m]]}: NB joins at "
                                              f"merge {per[m]} of {k - 1}" for m in methods)]))
    out.append(clade(specs["E3"], ("NB", "LR"), [RD], 2))
    out += [clade(c, ("3NN", "5NN", "RF"), m, 3)
            for c, m in by_version(specs["E4"], ALL_VERSIONS_ECOLI)]

    def differing(trees):
        B = trees.union.shape[0]
        return np.array([len(trees.clade_sets(b, SF) - trees.clade_sets(b, SD))
                         for b in range(B)])

    full = differing(full_t)
    out.append(assess(specs["E5"], full, differing(boot_t), differing(null_ind),
                      boot_unit="instances",
                      null_model="algorithm labels permuted independently per method",
                      evidence=[f"{int(full[0])} of the {k - 1} clusters of the SF tree "
                                "are not clusters of the SD tree"]))
    return out


def hardness_claims_ecoli(specs, labels, y, S, full_means, boot_means, rng,
                          draws) -> list[Claim]:
    """Claims E6-E8 on the mean hardness per algorithm."""
    k = len(labels)
    out = []
    need = math.ceil(0.75 * k)
    LF = label_free_hardness(y, S, SEED_METHODS)  # (2, n, 3, k)
    m0, m1 = permuted_class_means(LF, np.asarray(y).astype(int), rng, draws.n_null)
    n1 = int(np.sum(y))
    null_means = ((y.size - n1) * m0 + n1 * m1) / y.size
    floor = rate_driven_floor(n1, y.size)
    for claim, methods in by_version(specs["E6"], SCORE_VERSIONS_ECOLI):
        claim = replace(claim, criterion=Criterion(">=", need),
                        statistic=claim.statistic.replace("{k}", str(k)))

        def count(means, methods=methods):  # means (..., M, k)
            below = np.ones(means[..., RD, :].shape, dtype=bool)
            for m in methods:
                below &= means[..., m, :] < means[..., RD, :]
            return below.sum(axis=-1)

        ev = ["; ".join(f"IH_{ABBREVIATION[SEED_METHODS[m]].lower()} < IH_rd for "
                        f"{int(np.sum(full_means[m] < full_means[RD]))} of {k}"
                        for m in methods) + f" (\"in general\" read as at least {need})"]
        note = (f"with {n1} of {y.size} in class 1 no ranking has a mean IH_rd below "
                f"{floor:.4f}, while a model that scores the majority well has a small "
                "IH_sd whatever its ranking: the comparison mixes two scales, and shuffled "
                "labels (which keep the class sizes and the scores) pass it too")
        out.append(if_chance(assess(claim, count(full_means), count(boot_means),
                                    count(null_means), boot_unit="instances",
                                    null_model="class labels permuted (scores kept)",
                                    evidence=ev), note))
    if "NB" not in labels:
        return out + [not_evaluable(specs["E7"], ["NB"]), not_evaluable(specs["E8"], ["NB"])]
    nb = labels.index("NB")
    perm = rng.permuted(np.broadcast_to(np.arange(k), (draws.n_null, k)), axis=-1)
    null_sets = full_means[:, perm].transpose(1, 0, 2)  # (n_null, M, k)

    def rank_sd(means):
        sd = means[..., SD, :]
        return 1 + np.sum(sd > sd[..., [nb]] + 1e-12, axis=-1)

    def beyond(means):
        rd = means[..., RD, :]
        others = np.delete(rd, nb, axis=-1)
        return np.maximum(others.min(axis=-1) - rd[..., nb], rd[..., nb] - others.max(axis=-1))

    sd = full_means[SD]
    worst = labels[int(np.argmax(sd))]
    out.append(assess(specs["E7"], rank_sd(full_means), rank_sd(boot_means),
                      rank_sd(null_sets), boot_unit="instances",
                      null_model="algorithm labels permuted",
                      evidence=[f"IH_sd: NB {sd[nb]:.4f}; the hardest is {worst} "
                                f"({sd.max():.4f})"]))
    rd = full_means[RD]
    others = np.delete(rd, nb)
    out.append(assess(specs["E8"], beyond(full_means), beyond(boot_means), beyond(null_sets),
                      boot_unit="instances", null_model="algorithm labels permuted",
                      evidence=[f"IH_rd: NB {rd[nb]:.4f}; the others {others.min():.4f}–"
                                f"{others.max():.4f}"]))
    return out


# --------------------------------------------------------------------------- section 3
RD_CLAIMS = ("A6", "A7", "A8", "A9")
#: Where each version of Melo & Prudêncio (2014) states its claims about the trees, and
#: under which methods: the BRACIS version has SD and RD only, the MetaSel version adds SF.
SCORE_VERSIONS_AGG = {"b": ("BRACIS §VIII", [SD]), "m": ("MetaSel §8", [SF, SD])}
SCORE_VERSIONS_ECOLI = {"b": ("BRACIS §VII", [SD]), "m": ("MetaSel §7", [SF, SD])}
ALL_VERSIONS_ECOLI = {"b": ("BRACIS §VII", [SD, RD]), "m": ("MetaSel §7", [SF, SD, RD])}


def by_version(claim, versions) -> list[tuple[Claim, list]]:
    """One claim per version of the paper: id suffixed b (BRACIS) or m (MetaSel), the
    methods that version names filled into the statistic's ``{methods}``."""
    out = []
    for suffix, (where, methods) in versions.items():
        names = ", ".join(ABBREVIATION[SEED_METHODS[m]] for m in methods)
        out.append((replace(claim, id=claim.id + suffix, source=f"{where} ({names})",
                            statistic=claim.statistic.replace("{methods}", names)), methods))
    return out


def aggregated_claim_specs() -> dict[str, Claim]:
    rd = "BRACIS §VIII; MetaSel §8 (RD)"
    return {
        "A1": Claim("A1", MP, "", "the two KNNs are the most similar pair",
                    "worst rank of D(3NN, 5NN) among the pairs, over {methods}",
                    Criterion("==", 1)),
        "A2": Claim("A2", MP, "", "RF and LR are the second most similar pair (D about 0.1)",
                    "worst rank of D(RF, LR) among the pairs, over {methods}",
                    Criterion("<=", 2)),
        "A3": Claim("A3", MP, "", "at some cut (e.g. 0.3) DT clusters with 3NN, 5NN, RF "
                    "and LR (a cluster of exactly these five)",
                    "largest over {methods} of the smallest cluster holding the five",
                    Criterion("==", 5)),
        "A4": Claim("A4", MP, "", "NB has the most distinct behaviour (joins the tree last)",
                    "earliest merge, over {methods}, at which NB joins (k − 1 = last)",
                    Criterion("==", 7)),
        "A5": Claim("A5", MP, "", "the SVMs are similar between them relative to the others "
                    "(they pair up)",
                    "largest over {methods} of the smallest cluster holding both SVMs",
                    Criterion("==", 2)),
        "A6": Claim("A6", MP, rd, "algorithms are more similar to each other under RD than "
                    "under SD", "mean pairwise D under RD minus under SD",
                    Criterion("<", 0.0)),
        "A7": Claim("A7", MP, rd, "under RD, 3NN, 5NN, DT and RF cluster together",
                    "smallest RD cluster holding the four", Criterion("==", 4)),
        "A8": Claim("A8", MP, rd, "under RD, LR, SVM_LIN and NB form another cluster",
                    "smallest RD cluster holding the three", Criterion("==", 3)),
        "A9": Claim("A9", MP, rd, "under RD the SVMs do not belong to the same group "
                    "(they meet only at the root)",
                    "smallest RD cluster holding both SVMs (k = the root)", Criterion("==", 8)),
    }


def aggregated_claims(labels, batches, method_null) -> list[Claim]:
    """Claims A1-A9 on the aggregated matrices (datasets resampled; labels permuted per
    dataset; methods swapped per dataset for A6)."""
    specs = aggregated_claim_specs()
    k = len(labels)
    null_model = "algorithm labels permuted per dataset"
    trees = {w: batches.tree(w) for w in ("full", "boot", "null")}
    mats = {"full": batches.full, "boot": batches.boot, "null": batches.null}
    out = []

    def idx(names):
        return [labels.index(a) for a in names]

    def rank_claim(claim, pair, wanted, methods):
        miss = present(labels, pair)
        if miss:
            return not_evaluable(claim, miss)
        i, j = idx(pair)
        vals = [pair_rank(mats[w][:, methods], i, j).max(axis=1) for w in mats]
        f = batches.full[0]
        per = pair_rank(f, i, j)
        ev = ["; ".join(f"{ABBREVIATION[SEED_METHODS[m]]}: D = {f[m, i, j]:.3f}, rank "
                        f"{per[m]} of {k * (k - 1) // 2}" for m in methods)]
        return assess(claim, *vals, evidence=ev, null_model=null_model)

    def clade_claim(claim, members, methods, wanted):
        miss = present(labels, members)
        if miss:
            return not_evaluable(claim, miss)
        ii = idx(members)
        vals = [trees[w].clade_size(ii)[:, methods].max(axis=1) for w in trees]
        per = trees["full"].clade_size(ii)[0]
        ev = ["; ".join(f"{ABBREVIATION[SEED_METHODS[m]]}: smallest cluster holding them "
                        f"has {per[m]} members" for m in methods)]
        return assess(replace(claim, criterion=Criterion("==", wanted)), *vals,
                      evidence=ev, null_model=null_model)

    def nb_claim(claim, methods):
        if "NB" not in labels:
            return not_evaluable(claim, ["NB"])
        nb = labels.index("NB")
        vals = [trees[w].join_step(nb)[:, methods].min(axis=1) for w in trees]
        per = trees["full"].join_step(nb)[0]
        f = batches.full[0]
        mean_d = f.sum(axis=-1) / (k - 1)  # mean D of each algorithm to the others
        ev = ["; ".join(f"{ABBREVIATION[SEED_METHODS[m]]}: NB joins at merge {per[m]} of "
                        f"{k - 1}" for m in methods),
              "mean D to the others, largest first: " + "; ".join(
                  f"{ABBREVIATION[SEED_METHODS[m]]} " + ", ".join(
                      f"{labels[j]} {mean_d[m, j]:.3f}" for j in np.argsort(-mean_d[m])[:3])
                  for m in methods)]
        return assess(replace(claim, criterion=Criterion("==", k - 1)), *vals,
                      evidence=ev, null_model=null_model)

    for key, pair, wanted in (("A1", ("3NN", "5NN"), 1), ("A2", ("RF", "LR"), 2)):
        out += [rank_claim(c, pair, wanted, m) for c, m in
                by_version(specs[key], SCORE_VERSIONS_AGG)]
    out += [clade_claim(c, ("3NN", "5NN", "RF", "LR", "DT"), m, 5)
            for c, m in by_version(specs["A3"], SCORE_VERSIONS_AGG)]
    out += [nb_claim(c, m) for c, m in by_version(specs["A4"], SCORE_VERSIONS_AGG)]
    out += [clade_claim(c, ("SVM_LIN", "SVM_RBF"), m, 2)
            for c, m in by_version(specs["A5"], SCORE_VERSIONS_AGG)]
    # A6: compares methods, so its null swaps methods, not algorithms
    gap = [mean_pair_value(m[:, RD]) - mean_pair_value(m[:, SD])
           for m in (batches.full, batches.boot, method_null)]
    f = batches.full[0]
    out.append(if_chance(assess(
        specs["A6"], *gap, null_model="SD and RD matrices swapped per dataset",
        evidence=[f"mean pairwise D: SF {mean_pair_value(f[SF]):.4f}, SD "
                  f"{mean_pair_value(f[SD]):.4f}, RD {mean_pair_value(f[RD]):.4f}"]),
        "the gap is smaller than the spread between datasets: swapping the two methods on "
        "random datasets gives a gap of the same sign about as often"))
    out.append(clade_claim(specs["A7"], ("3NN", "5NN", "DT", "RF"), [RD], 4))
    out.append(clade_claim(specs["A8"], ("LR", "SVM_LIN", "NB"), [RD], 3))
    out.append(clade_claim(specs["A9"], ("SVM_LIN", "SVM_RBF"), [RD], k))
    return out


def section_aggregated(data, rng, draws, figures_dir, rel) -> tuple[list[str], list[Claim]]:
    from metaeval.similarity import average_linkage, cophenetic_correlation

    n = len(data.complete)
    lines = [f"## 3. {MP}: the dendrograms aggregated over {n} datasets", ""]
    if n < 2:
        claims = [not_evaluable(c, ["two complete datasets"])
                  for c in aggregated_claim_specs().values()]
        return lines + ["*Fewer than two complete datasets: nothing to aggregate.*", ""] \
            + verdict_lines(claims) + [""], claims
    labels = list(data.labels)
    batches = aggregated_batches(data.mats, rng, draws.n_boot, draws.n_null)
    method_null = method_swap_null(data.mats, rng, draws.n_null)
    D = batches.full[0]
    Z = {m: average_linkage(D[i]) for i, m in enumerate(SEED_METHODS)}
    fig = dendrogram_figure(Z, labels, f"mean over {n} datasets")
    path = save_figure(fig, figures_dir / "dendrograms_aggregated.png")
    lines += [f"Mean dissimilarity (MetaSel eq. 25, BRACIS eq. 20) over the {n} complete "
              "datasets, average linkage (MetaSel Figs. 6–8; BRACIS Figs. 4–5); the dashed "
              "line is the middle of the widest gap between merge heights. Our datasets are "
              "not the papers' 50 (their list is no longer online), so these claims test "
              "whether the papers' picture of the algorithms carries over to another suite.",
              "", f"![aggregated dendrograms]({rel}/{path.name})", ""]
    claims = aggregated_claims(labels, batches, method_null)
    # the same verdicts under median aggregation and with the untied RD (full data only)
    from metaeval.similarity import aggregate_dissimilarity

    med = np.stack([aggregate_dissimilarity(data.mats[:, m], how="median")
                    for m in range(3)])[None]
    untied = batches.full.copy()
    untied[0, RD] = aggregate_dissimilarity(data.mats_untied)
    variants = {}
    for name, full in (("median aggregation", med), ("RD untied", untied)):
        alt = aggregated_claims(labels, Batches(full, full[:0], full[:0]), full[:0])
        variants[name] = {c.id: c.holds for c in alt}
    claims = [replace(c, evidence=c.evidence + (
        "on the full data it " + "; ".join(
            f"{'holds' if variants[v].get(c.id) else 'fails'} under {v}"
            for v in variants if variants[v].get(c.id) is not None
            and (v != "RD untied" or c.id in RD_CLAIMS)),) if c.kind == SAMPLED else c.evidence)
        for c in claims]
    lines += ["### Claims", "",
              "A claim about the score-based trees is checked under SF and SD (the BRACIS "
              "version states it for SD only: the evidence line shows each method). Last "
              "evidence line: whether the claim holds on the full data with the median "
              "instead of the mean (MetaSel names it as an alternative) and, for RD claims, "
              "with the untied RD.", ""] + verdict_lines(claims) + [""]
    lines += ["### Merge order and cophenetic correlation", ""]
    for i, m in enumerate(SEED_METHODS):
        r = cophenetic_correlation(Z[m], D[i])
        lines.append(f"- {ABBREVIATION[m]} (cophenetic r = {r:.3f}): "
                     f"{merge_order(Z[m], labels)}")
    lines += ["", "### Aggregated dissimilarity matrices", ""]
    for i, m in enumerate(SEED_METHODS):
        frame = pd.DataFrame(D[i], index=pd.Index(labels, name=ABBREVIATION[m]),
                             columns=labels)
        lines += [f"{m}:", "", markdown_table(frame, digits=3), ""]
    return lines, claims


def merge_order(Z, labels) -> str:
    """The merges of a tree as text: ``3NN+5NN 0.049 → (3NN 5NN)+RF 0.071 → ...``."""
    clusters = [[a] for a in labels]
    parts = []
    for lo, hi, h, _ in np.asarray(Z, dtype=float):
        a, b = clusters[int(lo)], clusters[int(hi)]
        clusters.append(a + b)

        def name(c):
            return c[0] if len(c) == 1 else "(" + " ".join(sorted(c, key=labels.index)) + ")"

        parts.append(f"{name(a)}+{name(b)} {h:.3f}")
    return " → ".join(parts)
