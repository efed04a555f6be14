"""SUNNY's per-instance schedules (``metaeval.recommend.evaluate_sunny``) on ASlib runtime
scenarios: the gap closed against the whole scenario's single best, feature costs paid,
presolved instances credited, k and lambda chosen on each fold's training instances.

An exploratory measurement of an option, not of the default: it prints, per scenario,
SUNNY's mean PAR10, its gap closed, the single best and virtual best (checked against
``evaluate_aslib``'s), the (k, lambda) chosen per fold and the CPU seconds.

Usage: python benchmarks/bench_sunny.py [SCENARIO_DIR ...] [--markdown FILE]
       (default: the shared scenarios, as benchmarks/bench_aslib.py finds them)
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from collections import Counter
from pathlib import Path

import numpy as np

from metaeval.recommend import evaluate_aslib, evaluate_sunny, read_aslib


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenarios", nargs="*", type=Path)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args(argv)
    lines = ["| scenario | SUNNY: PAR10 | gap closed (whole SBS) | SBS | VBS | (k, lambda) "
             "chosen per fold | CPU-s |", "|---|---:|---:|---:|---:|---|---:|"]
    gaps = []
    for root in _scenarios(args.scenarios):
        sc = read_aslib(root)
        if not sc.runtime:
            print(f"{sc.name}: not a runtime scenario, skipped", flush=True)
            continue
        started = time.process_time()
        ev = evaluate_sunny(sc)
        cpu = time.process_time() - started
        ref = evaluate_aslib(sc, ["single-best", "oracle"], n_boot=10)
        if not (np.isclose(ev.sbs_whole, ref.sbs_whole) and np.isclose(ev.vbs, ref.vbs)):
            raise SystemExit(f"{sc.name}: single best or virtual best differ from "
                             f"evaluate_aslib's ({ev.sbs_whole}, {ev.vbs} against "
                             f"{ref.sbs_whole}, {ref.vbs})")
        chosen = Counter(zip(ev.per_instance.drop_duplicates(["repetition", "fold"])["k"],
                             ev.per_instance.drop_duplicates(["repetition", "fold"])["lam"],
                             strict=True))
        said = ", ".join(f"({k}, {lam}) x{n}" for (k, lam), n in sorted(chosen.items()))
        gaps.append(ev.gap_closed_whole_sbs)
        line = (f"| {sc.name} | {ev.par10:.1f} | {ev.gap_closed_whole_sbs:+.3f} | "
                f"{ev.sbs_whole:.1f} | {ev.vbs:.1f} | {said} | {cpu:.1f} |")
        print(line, flush=True)
        lines.append(line)
    print(f"mean gap closed over {len(gaps)} runtime scenario(s): {np.mean(gaps):+.3f}")
    if args.markdown is not None:
        args.markdown.write_text("\n".join(lines) + "\n")


def _scenarios(dirs):
    """The scenarios given, or those bench_aslib.py finds (its ``_scenarios``)."""
    spec = importlib.util.spec_from_file_location(
        "_bench_aslib", Path(__file__).with_name("bench_aslib.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._scenarios(dirs)


if __name__ == "__main__":
    main()
