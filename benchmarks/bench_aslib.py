"""Speed of the ASlib path: read a scenario, evaluate every strategy, write the report.

On an ASlib scenario folder (default: the shared OPENML-WEKA-2017, read in place), timed
in one process, in this run:

1. the baseline: parsing the scenario's ARFF files alone (metaeval's ARFF parser, no
   validation, no knowledge base);
2. :func:`read_aslib` (parse, validate, build the knowledge base);
3. :func:`evaluate_aslib` with every strategy the scenario allows, on all repetitions
   of its ``cv.arff`` (random: 100 seeded orders; 1000 bootstrap resamples);
4. the report: the JSON document of ``metaeval recommend --evaluate --aslib --json``,
   written to a temporary file;
5. the whole command line, ``metaeval recommend --evaluate --aslib DIR --json OUT``, in a
   fresh process (imports included).

Ratios are against the baseline of the same run; wall and CPU seconds and the load
average are printed, since the machine may be shared. Also printed: each strategy's
gap closed with its interval and its Holm-corrected paired test against the SBS.

Usage: python benchmarks/bench_aslib.py [DIR] [--no-cli]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from metaeval.datasets.readers import _parse_arff_like
from metaeval.recommend import evaluate_aslib, read_aslib


def _clock():
    return time.perf_counter(), time.process_time()


def _since(start):
    wall, cpu = _clock()
    return wall - start[0], cpu - start[1]


def _default_dir():
    env = os.environ.get("METAEVAL_ASLIB_DIR")
    if env:
        return Path(env)
    for parent in Path(__file__).resolve().parents:
        path = parent / "shared" / "aslib" / "OPENML-WEKA-2017"
        if path.is_dir():
            return path
    raise SystemExit("no scenario: give DIR or set METAEVAL_ASLIB_DIR")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", type=Path)
    parser.add_argument("--no-cli", action="store_true",
                        help="skip timing the command line in a fresh process")
    args = parser.parse_args(argv)
    root = args.directory or _default_dir()
    print(f"scenario {root}; load average {os.getloadavg()}; {os.cpu_count()} cores")
    rows = []

    start = _clock()
    for file in sorted(root.glob("*.arff")):
        _parse_arff_like(file.read_text(), keel=False)
    baseline = _since(start)
    rows.append(("parse the ARFF files (baseline)", *baseline))

    start = _clock()
    scenario = read_aslib(root)
    rows.append(("read_aslib", *_since(start)))

    start = _clock()
    ev = evaluate_aslib(scenario)
    rows.append(("evaluate_aslib, every strategy", *_since(start)))

    start = _clock()
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "ev.json").write_text(json.dumps(ev.to_json(), indent=1))
    rows.append(("the JSON report", *_since(start)))
    total = [sum(r[k] for r in rows[1:]) for k in (1, 2)]
    rows.append(("read + evaluate + report", *total))

    if not args.no_cli:
        with tempfile.TemporaryDirectory() as tmp:
            start = _clock()
            done = subprocess.run(
                [sys.executable, "-m", "metaeval", "recommend", "--evaluate", "--aslib",
                 str(root), "--json", str(Path(tmp, "ev.json"))],
                capture_output=True, text=True)
            wall = time.perf_counter() - start[0]
            if done.returncode:
                raise SystemExit(done.stderr)
            cpu = os.times().children_user + os.times().children_system
        rows.append(("command line, fresh process", wall, cpu))

    print(f"{'step':34s} {'wall s':>8s} {'CPU s':>8s} {'x baseline (wall)':>18s}")
    for name, wall, cpu in rows:
        print(f"{name:34s} {wall:8.2f} {cpu:8.2f} {wall / baseline[0]:18.1f}")
    print(f"\n{scenario!r}\nSBS {ev.sbs:.4f}, VBS {ev.vbs:.4f}")
    for r in ev.summary.to_dict(orient="records"):
        print(f"{r['strategy']:18s} gap closed {r['gap_closed']:+.3f} "
              f"[{r['gap_closed_low']:+.3f}, {r['gap_closed_high']:+.3f}]  "
              f"first pick {r['performance']:.4f}  p_holm vs SBS {r['p_holm']:.3g}")


if __name__ == "__main__":
    main()
