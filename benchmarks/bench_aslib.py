"""Every shared ASlib scenario beside the published LLAMA results, and how long each takes.

For each scenario folder (default: every scenario under the shared ``aslib`` folder, read
in place -- ASlib data is GPLv3 and never copied into the repository), its folds spread
over ``--jobs`` worker processes (default: all cores; their CPU time is counted):

1. :func:`read_aslib` (parse, validate, build the knowledge base);
2. :func:`evaluate_aslib` with every strategy the scenario allows, on all repetitions of
   its ``cv.arff`` (feature costs paid by the strategies that read features, unless
   ``--no-feature-costs``);
3. two plain selectors written directly with scikit-learn (``plain_selectors.py``: a
   random forest per algorithm, and k-NN with k by leave-one-out), scored by the same
   rules on the same folds (``--no-plain`` leaves them out);
4. optionally (``--cli``) the whole command line, ``metaeval recommend --evaluate
   --aslib DIR --json OUT``, in a fresh process (imports included).

Printed per scenario: the single best (chosen on the training folds, and over the whole
scenario as LLAMA chooses it), the virtual best, each strategy's gap closed under both
single bests with the bootstrap interval, beside the best LLAMA model's gap closed on the
same folds (Bischl et al. 2016; the ASlib scenario pages of 2021, which add no feature
costs), and wall and CPU seconds with the load average, since the machine may be
shared. ``--markdown FILE`` also writes the table as Markdown (docs/aslib.md holds it).

Usage: python benchmarks/bench_aslib.py [DIR ...] [--strategies a,b] [--no-feature-costs]
       [--no-presolved] [--censored] [--charged-auto] [--no-plain] [--cli] [--markdown FILE]
       [--jobs N]

``--strategies single-best`` with the plain selectors gives their figures alone (the
single best is the evaluation every score needs).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from joblib.externals.loky import get_reusable_executor

from metaeval.recommend import STRATEGIES, evaluate_aslib, read_aslib
from metaeval.recommend.learners._auto import Auto
from metaeval.recommend.learners._learners import FEATURE_SOURCES
from metaeval.recommend.learners._learners_forest import ConfigurationRegression

sys.path.insert(0, str(Path(__file__).resolve().parent))
import plain_selectors  # noqa: E402  (beside this script)

#: Strategies whose first picks pay the default steps' feature costs, as the plain
#: selectors do: the scorer of the plain selectors is checked on the first one evaluated
#: (``auto`` last, and only without a pre-solving schedule, which that scorer does not
#: apply).
_FEATURE_READERS = ("knn-metafeatures", "regression", "pairwise", "auto")

#: The best LLAMA model per scenario and the gap it closes against the whole-scenario
#: single best (the ASlib scenario pages, results of 2021-05, 10 folds, 1 repetition).
LLAMA = {
    "OPENML-WEKA-2017": ("classif randomForest", "below the SBS (-0.24 to -0.37)", None),
    "SAT11-HAND": ("classif ksvm", "0.749", 0.749),
    "MAXSAT12-PMS": ("regr randomForest", "0.890", 0.890),
    "ASP-POTASSCO": ("regr randomForest", "0.765", 0.765),
    "CSP-2010": ("classif rpart", "0.832", 0.832),
    # scenarios not in the shared folder (give their folders as DIR, e.g. from a copy of
    # github.com/coseal/aslib_data): the gap from the PAR10 of LLAMA's single best, virtual
    # best and best model on its scenario page (coseal.github.io/aslib-r/scenario-pages)
    "SAT11-INDU": ("regr randomForest", "0.232", 0.232),  # 14605.9, 8187.5, 13115.0
    "SAT11-RAND": ("regr randomForest", "0.878", 0.878),  # 19916.4, 9186.4, 10499.8
    "SAT12-HAND": ("regr randomForest", "0.764", 0.764),  # 6338.9, 3662.2, 4293.2
    "QBF-2011": ("regr randomForest", "0.862", 0.862),  # 15330.2, 8337.1, 9300.8
    "SAT12-INDU": ("regr randomForest", "0.415", 0.415),  # 3266.0, 2221.5, 2832.1
    "QBF-2014": ("regr randomForest", "0.824", 0.824),  # 3401.8, 1758.1, 2046.7
    "QBF-2016": ("regr randomForest", "0.748", 0.748),  # 3666.7, 1209.3, 1828.3
    "CPMP-2015": ("classif randomForest", "0.262", 0.262),  # 7002.9, 227.6, 5228.6
    "BNSL-2016": ("regr lm", "0.866", 0.866),  # 9017.1, 219.9, 1395.8
    "MAXSAT-PMS-2016": ("cluster XMeans", "0.564", 0.564),  # 2274.3, 1383.2, 1771.4
    "MAXSAT15-PMS-INDU": ("regr randomForest", "0.670", 0.670),  # 2231.0, 1357.9, 1646.4
    "MIP-2016": ("classif randomForest", "0.128", 0.128),  # 3007.9, 281.5, 2658.5
    "SAT15-INDU": ("regr randomForest", "0.531", 0.531),  # 5189.4, 2287.6, 3649.3
    "SAT18-EXP": ("regr randomForest", "0.512", 0.512),  # 21132.1, 9841.2, 15356.4
    "GLUHACK-18": ("regr randomForest", "0.444", 0.444),  # 26359.0, 16868.9, 22144.8
    "CSP-Minizinc-Time-2016": ("classif ksvm", "0.640", 0.640),  # 3372.5, 2061.8, 2533.6
}
ORDER = list(LLAMA)


def _shared():
    env = os.environ.get("METAEVAL_ASLIB_DIR")
    if env:
        return Path(env)
    for parent in Path(__file__).resolve().parents:
        path = parent / "shared" / "aslib"
        if path.is_dir():
            return path
    raise SystemExit("no scenarios: give DIR or set METAEVAL_ASLIB_DIR")


def _scenarios(dirs):
    if dirs:
        return [Path(d) for d in dirs]
    root = _shared()
    if (root / "description.txt").is_file():
        return [root]
    found = [p.parent for p in root.glob("*/description.txt")]
    return sorted(found, key=lambda p: (ORDER.index(p.name) if p.name in ORDER else 99,
                                        p.name))


def _clock():
    """Wall seconds, and CPU seconds of this process and of its finished workers.

    joblib's worker processes outlive a call; they are shut down first, so that their CPU
    time is counted among the finished children's (``RUSAGE_CHILDREN``)."""
    get_reusable_executor().shutdown(wait=True)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (time.perf_counter(),
            time.process_time() + children.ru_utime + children.ru_stime)


def _since(start):
    wall, cpu = _clock()
    return wall - start[0], cpu - start[1]


def _cli(root, feature_costs):
    with tempfile.TemporaryDirectory() as tmp:
        before = os.times()
        start = time.perf_counter()
        command = [sys.executable, "-m", "metaeval", "recommend", "--evaluate", "--aslib",
                   str(root), "--json", str(Path(tmp, "ev.json"))]
        if not feature_costs:
            command.append("--no-feature-costs")
        done = subprocess.run(command, capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = os.times()
    if done.returncode:
        raise SystemExit(done.stderr)
    return wall, (after.children_user - before.children_user
                  + after.children_system - before.children_system)


def _fmt(value, digits=3):
    return "-" if value != value else f"{value:+.{digits}f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directories", nargs="*", type=Path)
    parser.add_argument("--strategies", help="comma-separated (default: every strategy)")
    parser.add_argument("--no-feature-costs", action="store_true")
    parser.add_argument("--presolved", action=argparse.BooleanOptionalAction,
                        default=None,
                        help="credit instances a feature step presolved as solved at the "
                        "feature cost (ASlib's rule; the default with the feature costs "
                        "paid); --no-presolved charges them the picked solver's run")
    parser.add_argument("--censored", action="store_true",
                        help="also evaluate regression-censored: the regression learner "
                        "with its timeouts imputed as censored (Schmee & Hahn)")
    parser.add_argument("--charged-auto", action="store_true",
                        help="also evaluate auto-charged: auto whose inner losses charge "
                        "the feature costs (Auto(feature_cutoff=cutoff))")
    parser.add_argument("--no-plain", action="store_true",
                        help="leave out the two plain scikit-learn selectors")
    parser.add_argument("--cli", action="store_true",
                        help="also time the command line in a fresh process")
    parser.add_argument("--markdown", type=Path, help="write the table as Markdown here")
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=-1,
                        help="worker processes for the folds (default -1: all cores; the "
                        "CPU time counts theirs)")
    args = parser.parse_args(argv)
    strategies = args.strategies.split(",") if args.strategies else None
    costs = not args.no_feature_costs
    print(f"load average {os.getloadavg()}; {os.cpu_count()} cores; {args.jobs} jobs; "
          f"feature costs {'paid' if costs else 'left out'}; presolved instances "
          f"{'credited' if costs and args.presolved is not False else 'not credited'}",
          flush=True)
    markdown = []
    for root in _scenarios(args.directories):
        start = _clock()
        scenario = read_aslib(root)
        read = _since(start)
        start = _clock()
        chosen = strategies
        extra = []
        if args.censored and scenario.runtime:
            extra.append(_censored_regression(scenario))
        if args.charged_auto and scenario.runtime:
            extra.append(_charged_auto(scenario))
        if extra:
            chosen = [*(strategies or [n for n in STRATEGIES if n != "cost-landmarking"]),
                      *extra]
        ev = evaluate_aslib(scenario, chosen, n_boot=args.n_boot, feature_costs=costs,
                            n_jobs=args.jobs, presolved=args.presolved)
        evaluated = _since(start)
        total = (read[0] + evaluated[0], read[1] + evaluated[1])
        name = scenario.name
        llama = LLAMA.get(name, ("-", "-", None))
        d, a = scenario.performance.shape
        print(f"\n{scenario!r}\nread {read[0]:.1f} s wall, {read[1]:.1f} CPU-s; evaluate "
              f"{evaluated[0]:.1f} s wall, {evaluated[1]:.1f} CPU-s; load "
              f"{os.getloadavg()[0]:.2f}")
        cli = _cli(root, costs) if args.cli else None
        if cli is not None:
            print(f"command line, fresh process: {cli[0]:.1f} s wall, {cli[1]:.1f} CPU-s")
        print(f"SBS (training folds) {ev.sbs:.6g}; SBS (whole scenario, "
              f"{ev.sbs_whole_algorithm}) {ev.sbs_whole:.6g}; VBS {ev.vbs:.6g}; feature "
              f"costs {'paid' if ev.feature_costs else 'none'}; LLAMA's best: {llama[0]}, "
              f"gap closed {llama[1]}")
        print(f"{'strategy':22s} {'gap (train SBS)':>26s} {'gap (whole SBS)':>26s} "
              f"{'first pick':>12s} {'p_holm':>8s}")
        for r in ev.summary.to_dict(orient="records"):
            print(f"{r['strategy']:22s} {_fmt(r['gap_closed'])} "
                  f"[{_fmt(r['gap_closed_low'])}, {_fmt(r['gap_closed_high'])}]   "
                  f"{_fmt(r['gap_closed_whole_sbs'])} [{_fmt(r['gap_closed_whole_sbs_low'])}, "
                  f"{_fmt(r['gap_closed_whole_sbs_high'])}] {r['performance']:12.6g} "
                  f"{r['p_holm']:8.3g}", flush=True)
        plain = {} if args.no_plain else _plain(ev, args)
        markdown.append((name, d, a, ev, llama, total, cli, plain))
    if args.markdown:
        args.markdown.write_text(_markdown(markdown, costs))
        print(f"\nMarkdown written to {args.markdown}")


def _censored_regression(scenario):
    """``regression`` as evaluate_aslib gives it a runtime scenario, its timeouts
    imputed as runs censored at the cutoff (named ``regression-censored``)."""
    kb = scenario.knowledge
    have = tuple(u for u in FEATURE_SOURCES if getattr(kb, u) is not None)
    learner = ConfigurationRegression(cost_ceiling=float(scenario.shift), features=have,
                                      censored_cutoff=float(scenario.cutoff))
    learner.name = "regression-censored"
    return learner


def _charged_auto(scenario):
    """``auto`` as evaluate_aslib gives it a runtime scenario, its inner losses charging
    the feature costs (named ``auto-charged``)."""
    strategy = Auto(params={"regression": {"cost_ceiling": float(scenario.shift)}},
                    feature_cutoff=float(scenario.cutoff))
    strategy.name = "auto-charged"
    return strategy


def _plain(ev, args):
    """The plain selectors' scores (and the CPU time of each), after checking the scorer
    on a strategy of the evaluation that reads the same features."""
    per = ev.per_instance
    scheduled = "presolver" in per.columns and per.loc[
        per["strategy"] == "auto", "presolver"].notna().any()
    check = next((n for n in _FEATURE_READERS if n in ev.strategies
                  and not (n == "auto" and scheduled)), None)
    if check is not None:
        mine = plain_selectors.score(ev, plain_selectors.evaluation_picks(ev, check),
                                     n_boot=args.n_boot)
        theirs = ev.summary.set_index("strategy").loc[check]
        for key in ("performance", "gap_closed", "gap_closed_whole_sbs",
                    "gap_closed_whole_sbs_low", "gap_closed_whole_sbs_high"):
            if not np.isclose(mine[key], theirs[key], rtol=1e-9, atol=1e-12):
                raise SystemExit(f"the plain selectors' scorer gives {check} {key} "
                                 f"{mine[key]!r}, the evaluation {theirs[key]!r}")
        print(f"scorer checked on {check}'s picks: the evaluation's figures", flush=True)
    out = {}
    for name in plain_selectors.PLAIN:
        start = _clock()
        pick, chosen = plain_selectors.picks(ev.scenario, name, n_jobs=args.jobs)
        r = plain_selectors.score(ev, pick, n_boot=args.n_boot)
        wall, cpu = _since(start)
        r["time"] = (wall, cpu)
        out[name] = r
        ks = f"; k chosen {sorted(chosen.values())}" if chosen else ""
        print(f"{name:22s} {_fmt(r['gap_closed'])} "
              f"[{_fmt(r['gap_closed_low'])}, {_fmt(r['gap_closed_high'])}]   "
              f"{_fmt(r['gap_closed_whole_sbs'])} [{_fmt(r['gap_closed_whole_sbs_low'])}, "
              f"{_fmt(r['gap_closed_whole_sbs_high'])}] {r['performance']:12.6g}   "
              f"({wall:.0f} s, {cpu:.0f} CPU-s{ks})", flush=True)
    return out


def _markdown(results, costs):
    lines = ["| scenario | instances x algorithms | SBS (whole) | VBS | LLAMA's best: gap "
             "closed | auto: gap closed (whole SBS) | auto: gap closed (training SBS) | "
             "best other strategy (whole SBS) | plain RF (whole SBS) | plain k-NN (whole SBS) | "
             "time (wall, CPU) |",
             "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|"]
    for name, d, a, ev, llama, total, cli, plain in results:
        s = ev.summary.set_index("strategy")
        auto = (f"{_fmt(s.loc['auto', 'gap_closed_whole_sbs'])}",
                f"{_fmt(s.loc['auto', 'gap_closed'])}") if "auto" in s.index else ("-", "-")
        others = s.drop(index=[n for n in ("auto", "oracle", "single-best")
                               if n in s.index])
        best = others["gap_closed_whole_sbs"].idxmax() if len(others) else None
        other = ("-" if best is None else
                 f"{best} {_fmt(others.loc[best, 'gap_closed_whole_sbs'])}")
        rf, knn = (_fmt(plain[n]["gap_closed_whole_sbs"]) if n in plain else "-"
                   for n in plain_selectors.PLAIN)
        timing = f"{total[0]:.0f} s, {total[1]:.0f} CPU-s"
        if cli is not None:
            timing = f"{cli[0]:.0f} s, {cli[1]:.0f} CPU-s (command line)"
        lines.append(f"| {name} | {d} x {a} | {ev.sbs_whole:.6g} | {ev.vbs:.6g} | "
                     f"{llama[1]} | {auto[0]} | {auto[1]} | {other} | {rf} | {knn} | "
                     f"{timing} |")
    lines.append("")
    for name, d, a, ev, llama, total, cli, plain in results:
        unit = "PAR10" if ev.scenario.runtime else ev.scenario.measure
        paid = ("feature costs paid" if ev.feature_costs else
                "no feature costs in the scenario" if not ev.scenario.feature_costs or
                not ev.scenario.runtime else "feature costs left out")
        timing = f"{total[0]:.0f} s wall, {total[1]:.0f} CPU-s in process"
        if cli is not None:
            timing += f"; command line {cli[0]:.0f} s wall, {cli[1]:.0f} CPU-s"
        lines += [f"### {name} ({d} instances x {a} algorithms, {unit}; {paid})", "",
                  f"Single best on the training folds {ev.sbs:.6g}, over the whole "
                  f"scenario ({ev.sbs_whole_algorithm}) {ev.sbs_whole:.6g}; virtual best "
                  f"{ev.vbs:.6g}. LLAMA's best ({llama[0]}): gap closed {llama[1]}. "
                  f"Time: {timing}.", "",
                  "| strategy | first pick | gap closed (SBS of the training folds) | "
                  "gap closed (SBS of the whole scenario) |",
                  "|---|---:|---:|---:|"]
        for r in ev.summary.to_dict(orient="records"):
            lines.append(
                f"| {r['strategy']} | {r['performance']:.6g} | {_fmt(r['gap_closed'])} "
                f"[{_fmt(r['gap_closed_low'])}, {_fmt(r['gap_closed_high'])}] | "
                f"{_fmt(r['gap_closed_whole_sbs'])} [{_fmt(r['gap_closed_whole_sbs_low'])}, "
                f"{_fmt(r['gap_closed_whole_sbs_high'])}] |")
        for n, r in plain.items():
            lines.append(
                f"| {n} (scikit-learn) | {r['performance']:.6g} | {_fmt(r['gap_closed'])} "
                f"[{_fmt(r['gap_closed_low'])}, {_fmt(r['gap_closed_high'])}] | "
                f"{_fmt(r['gap_closed_whole_sbs'])} [{_fmt(r['gap_closed_whole_sbs_low'])}, "
                f"{_fmt(r['gap_closed_whole_sbs_high'])}] |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
