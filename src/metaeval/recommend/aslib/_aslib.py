r"""Read and write algorithm-selection scenarios in the ASlib format.

An ASlib scenario (Bischl et al. 2016) is a folder: ``description.txt`` (YAML, or the
older one ``key: value`` a line: the performance measures, maximise or minimise, quality
or runtime, the cutoff, the feature steps), ``algorithm_runs.arff``,
``feature_values.arff``, ``feature_runstatus.arff``, and optionally ``cv.arff`` (the
official repetitions x folds; without it 10 folds are drawn) and
``feature_costs.arff``. :func:`read_aslib` turns one into the :class:`KnowledgeBase`
the recommenders use (instances are datasets, algorithms
are configurations, features are meta-features -- those of a step named ``landmarks``
landmark features --, feature costs are description time); :func:`write_aslib` (in
``_aslib_write``) writes a knowledge base under one operating condition as a scenario
other selectors can read.

Orientation. Success in a knowledge base is higher-is-better. With :math:`m` the chosen
measure:

- quality, ``maximize: true``: :math:`success = m + s`;
- quality, ``maximize: false``: :math:`success = -m + s`;
- runtime (minimised): a run at or past the cutoff :math:`\kappa`, or whose status is not
  ``ok``, is a timeout scored PAR10 :math:`= 10\kappa`; otherwise PAR10 is its runtime,
  and :math:`success = 10\kappa - PAR10` (0 for a timeout).

A quality scenario's run that is not ``ok`` (a timeout of an optimiser) is scored by the
value of the measure it records (the best solution found), and refused only when it
records none.

For quality scenarios the shift :math:`s` is 0 when every oriented value is positive,
else :math:`\text{SUCCESS\_FLOOR} - \min` over the whole scenario (A3R divides successes,
which must be positive). A shift common to all instances changes no loss, no closed gap
and no ranking; losses are therefore in the measure's own units (PAR10 seconds for a
runtime scenario).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from metaeval.datasets.readers import _parse_arff_like
from metaeval.recommend._condition import SUCCESS_FLOOR
from metaeval.recommend.aslib._aslib_write import (  # noqa: F401 - written here before
    RUN_STATUSES,
    check_aslib_target,
    write_aslib,
)
from metaeval.recommend.knowledge._knowledge import KnowledgeBase

#: Files a scenario must have (``cv.arff`` and ``feature_costs.arff`` are optional).
REQUIRED_FILES = ("description.txt", "algorithm_runs.arff", "feature_values.arff",
                  "feature_runstatus.arff")
#: Folds drawn when a scenario has no ``cv.arff`` (fewer when it has fewer instances).
DEFAULT_FOLDS = 10
#: The feature step read as landmark features (the others are meta-features).
LANDMARK_STEP = "landmarks"
#: Seconds a run is credited at least (a knowledge base needs positive times).
TIME_FLOOR = 1e-3


@dataclass(frozen=True, eq=False)
class AslibScenario:
    """An ASlib scenario read into a knowledge base.

    Attributes
    ----------
    name : str
        ``scenario_id`` of ``description.txt`` (else the folder's name).
    path : Path
    knowledge : KnowledgeBase
        Instances as datasets, success oriented higher-is-better (see the module's
        docstring), times the runtimes (1.0 each when the scenario records none),
        features as meta-features (NaN where missing), feature costs as
        ``metafeature_time``.
    cv : DataFrame of shape (n_instances, n_repetitions)
        The fold of each instance (rows, in the knowledge base's order) in each
        repetition of ``cv.arff`` (columns).
    measure : str
        The performance measure used.
    maximize : bool
    performance_type : {"solution_quality", "runtime"}
    cutoff : float or None
        ``algorithm_cutoff_time`` (seconds), for runtime scenarios.
    performance : ndarray of shape (n_instances, n_algorithms)
        The measure as ASlib reports it: PAR10 seconds for a runtime scenario, the
        measure itself otherwise (mean over the runs' repetitions).
    solved : ndarray of bool, same shape
        Runtime scenarios: the run finished with status ``ok`` before the cutoff (all
        True for a quality scenario).
    sign, shift : float
        ``success = sign * performance + shift``.
    description : dict
        ``description.txt`` as parsed.
    notes : tuple of str
        What was read as missing, averaged or clipped.
    feature_costs : bool
        Whether the scenario has ``feature_costs.arff`` (the costs are the knowledge
        base's ``metafeature_time`` and ``landmark_time``).
    presolved : ndarray of bool of shape (n_instances,), optional
        Whether a used feature step presolved the instance (status ``presolved`` in
        ``feature_runstatus.arff``, in any repetition); its features are then missing.
    """

    name: str
    path: Path
    knowledge: KnowledgeBase
    cv: pd.DataFrame
    measure: str
    maximize: bool
    performance_type: str
    cutoff: float | None
    performance: np.ndarray
    solved: np.ndarray
    sign: float
    shift: float
    description: dict
    notes: tuple = field(default=())
    feature_costs: bool = False
    presolved: np.ndarray | None = None

    def __repr__(self) -> str:
        d, a = self.performance.shape
        return (f"AslibScenario({self.name!r}: {d} instances x {a} algorithms, "
                f"{self.measure} ({'max' if self.maximize else 'min'}imise, "
                f"{self.performance_type}), {self.cv.shape[1]} repetition(s) of "
                f"{self.cv.iloc[:, 0].nunique()} folds)")

    @property
    def runtime(self) -> bool:
        """Whether the measure is runtime (PAR10, solved instances)."""
        return self.performance_type == "runtime"

    def to_performance(self, success):
        """Success values back in the measure's units (PAR10 for runtime scenarios)."""
        return (np.asarray(success, dtype=np.float64) - self.shift) / self.sign


# ---------------------------------------------------------------------------- reading
def read_aslib(path, measure=None) -> AslibScenario:
    """Read an ASlib scenario folder into a knowledge base, validating it as it goes.

    Parameters
    ----------
    path : str or Path
        The scenario's folder.
    measure : str, optional
        One of ``performance_measures``; default the first. A second measure whose
        ``performance_type`` is ``runtime`` gives the knowledge base's times.

    Returns
    -------
    AslibScenario

    Raises
    ------
    ValueError
        Naming the file (and the line where there is one): a missing required file, a
        malformed description or ARFF file, a measure the scenario does not have, a run
        of an undeclared algorithm, a duplicated run, an algorithm without a run on an
        instance (algorithms may have different numbers of repetitions), a non-``ok`` run of a
        quality scenario that records no value of the measure, a runtime scenario
        without a positive cutoff, fewer than 2 algorithms, an unknown run status, an
        instance missing from a feature or cv file. Nothing is returned half-read.

    References
    ----------
    B. Bischl, P. Kerschke, L. Kotthoff, M. Lindauer, Y. Malitsky, A. Fréchette, H. Hoos,
    F. Hutter, K. Leyton-Brown, K. Tierney and J. Vanschoren, "ASlib: a benchmark library
    for algorithm selection", Artificial Intelligence 237:41-58 (2016).
    """
    root = Path(path)
    if not root.is_dir():
        raise ValueError(f"{root}: not a folder (an ASlib scenario is a folder of files).")
    for name in REQUIRED_FILES:
        if not (root / name).is_file():
            raise ValueError(f"{root / name}: missing; an ASlib scenario needs "
                             f"{', '.join(REQUIRED_FILES)}.")
    desc, text, older = _read_description(root / "description.txt")
    info = _interpret(desc, text, root / "description.txt", measure, older)
    notes: list[str] = []
    runs = _read_runs(root / "algorithm_runs.arff", info, notes)
    instances = runs["instances"]
    features, costs, presolved, encoded = _read_features(root, info, instances, notes)
    if (root / "cv.arff").is_file():
        cv = _read_cv(root / "cv.arff", instances)
    else:
        cv = _drawn_cv(instances, notes)
    perf, solved, times = runs["performance"], runs["solved"], runs["times"]
    if info["runtime"]:
        sign, shift = -1.0, 10.0 * info["cutoff"]
    else:
        sign = 1.0 if info["maximize"] else -1.0
        low = float(np.min(sign * perf))
        shift = 0.0 if low > 0 else SUCCESS_FLOOR - low
        if shift:
            notes.append(f"success = {'' if sign > 0 else '-'}{info['measure']} + "
                         f"{shift:.6g} (A3R needs positive success)")
    success = sign * perf + shift
    land = land_time = None
    provides = [c for f in info["steps"].get(LANDMARK_STEP, ([], []))[0]
                for c in encoded.get(f, [f])]
    if LANDMARK_STEP in info["used_steps"] and provides:  # as :func:`write_aslib` writes
        land = features[provides]
        land_time = costs[LANDMARK_STEP].to_numpy()
        features = features.drop(columns=provides)
    costs = costs.drop(columns=[LANDMARK_STEP], errors="ignore" if land is None
                       else "raise").sum(axis=1).to_numpy()
    kb = KnowledgeBase(instances, info["algorithms"], success, times,
                       metafeatures=features if features.shape[1] else None,
                       metafeature_time=costs, landmarks=land, landmark_time=land_time,
                       notes=tuple(notes))
    return AslibScenario(info["scenario_id"] or root.name, root, kb, cv, info["measure"],
                         info["maximize"], "runtime" if info["runtime"] else
                         "solution_quality", info["cutoff"], perf, solved, sign, shift,
                         desc, tuple(notes), (root / "feature_costs.arff").is_file(),
                         presolved)


#: A feature step of the older description format (``feature_step NAME: f1, f2, ...``).
_OLD_STEP = re.compile(r"^feature_step\s+(\S.*?)\s*:(.*)$")


def _read_description(file: Path):
    """``description.txt`` as a dict: YAML (the format of today's scenarios), or the
    older format of one ``key: value`` a line (recognised by its ``feature_step NAME:``
    lines); with its text, and whether it is in the older format."""
    import yaml

    text = _read_text(file)
    if re.search(r"^\s*feature_step\s+\S", text, re.MULTILINE):
        return _old_description(text, file), text, True
    try:
        desc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f", line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ValueError(f"{file}{where}: not valid YAML ({problem}).") from None
    if not isinstance(desc, dict):
        raise ValueError(f"{file}: expected YAML keys (performance_measures, maximize, ...).")
    # names as written: YAML reads an unquoted name such as 1.10 or yes as a number or a
    # boolean (1.1, True), which the ARFF files write as 1.10 and yes
    try:
        raw = yaml.load(text, Loader=yaml.BaseLoader)  # noqa: S506 - every value a string
    except yaml.YAMLError:  # then YAML's reading as it is
        raw = None
    for key in _NAMED:
        if key in desc and isinstance(raw, dict) and key in raw:
            desc[key] = _as_written(desc[key], raw[key], keys_only=key == _NAMED[0])
    return desc, text, False


#: The keys of ``description.txt`` whose values (or, for the first, keys) are names.
_NAMED = ("metainfo_algorithms", "algorithms_deterministic", "algorithms_stochastic",
          "performance_measures", "feature_steps", "default_steps")


def _as_written(typed, raw, keys_only=False):
    """``typed`` (YAML's reading) with each number or boolean among its names replaced by
    its text in ``raw`` (the same YAML read with every scalar a string); ``keys_only``:
    a dict's keys only. Where the two do not match, ``typed`` as it is."""
    if isinstance(typed, dict) and isinstance(raw, dict) and len(typed) == len(raw):
        return {_as_written(k, r): (v if keys_only else _as_written(v, raw[r]))
                for (k, v), r in zip(typed.items(), raw, strict=True)}
    if isinstance(typed, list) and isinstance(raw, list) and len(typed) == len(raw):
        return [_as_written(t, r) for t, r in zip(typed, raw, strict=True)]
    if isinstance(typed, (bool, int, float)) and isinstance(raw, str):
        return raw
    return typed


def _old_description(text, file):
    """The older format: ``key: value`` lines, lists comma-separated, ``?`` or nothing
    for a missing value, each feature step ``feature_step NAME: f1, f2, ...`` listing
    the features that depend on it (a feature listed by two steps needs both; no
    requirements between steps). Returned as the YAML format's keys, each step's list
    as what it ``provides``."""
    desc, steps = {}, {}
    for number, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        step = _OLD_STEP.match(s)
        key, sep, value = s.partition(":")
        if not sep or not key.strip():
            raise ValueError(f"{file}, line {number}: expected 'key: value' (the older "
                             f"description format), got {s[:60]!r}.")
        name = f"feature_step {step.group(1)}" if step else key.strip()
        if (step.group(1) in steps) if step else (name in desc):
            raise ValueError(f"{file}, line {number}: {name} is given twice.")
        if step:
            steps[step.group(1)] = {"provides": step.group(2).strip() or None}
        else:
            value = value.strip()
            desc[name] = None if value in ("", "?") else value
    desc["feature_steps"] = steps
    return desc


def _read_text(file: Path) -> str:
    """The file as UTF-8 text; a leading byte-order mark (odd, but harmless) is dropped."""
    try:
        text = file.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{file}: not UTF-8 text (byte {exc.start}).") from None
    return text[1:] if text.startswith("\ufeff") else text


def _key_line(text, key):
    m = re.search(rf"^{re.escape(key)}\s*:", text, re.MULTILINE)
    return "" if m is None else f", line {text.count(chr(10), 0, m.start()) + 1}"


def _as_list(value):
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _flag(value, file, where):
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ValueError(f"{file}{where}: maximize must be true or false, got {value!r}.")


def _interpret(desc, text, file, measure, older=False):
    """What the evaluation needs from ``description.txt``, checked (``older``: in the
    older format, whose feature steps list the features that depend on them)."""
    measures = [str(m) for m in _as_list(desc.get("performance_measures"))]
    if not measures:
        raise ValueError(f"{file}: no performance_measures.")
    if len(set(measures)) != len(measures):
        raise ValueError(f"{file}{_key_line(text, 'performance_measures')}: a performance "
                         "measure is named twice.")
    where = _key_line(text, "performance_measures")
    if measure is None:
        measure = measures[0]
    elif measure not in measures:
        raise ValueError(f"{file}{where}: no performance measure {measure!r}; the scenario "
                         f"has {', '.join(measures)}.")
    maximize = _as_list(desc.get("maximize"))
    types = [str(t) for t in _as_list(desc.get("performance_type"))]
    for key, values in (("maximize", maximize), ("performance_type", types)):
        if len(values) == 1 and len(measures) > 1:
            values *= len(measures)
        if len(values) != len(measures):
            raise ValueError(f"{file}{_key_line(text, key)}: {key} must give one value per "
                             f"performance measure ({len(measures)}), got {len(values)}.")
    maximize = [_flag(v, file, _key_line(text, "maximize")) for v in maximize]
    for t in types:
        if t not in ("runtime", "solution_quality"):
            raise ValueError(f"{file}{_key_line(text, 'performance_type')}: performance_type "
                             f"must be runtime or solution_quality, got {t!r}.")
    k = measures.index(measure)
    runtime = types[k] == "runtime"
    cutoff = desc.get("algorithm_cutoff_time")
    try:
        cutoff = float(cutoff)
    except (TypeError, ValueError):
        cutoff = math.nan
    if runtime:
        if maximize[k]:
            raise ValueError(f"{file}{_key_line(text, 'maximize')}: the runtime measure "
                             f"{measure!r} is marked maximize: true.")
        if not (math.isfinite(cutoff) and cutoff > 0):
            raise ValueError(f"{file}{_key_line(text, 'algorithm_cutoff_time')}: a runtime "
                             "scenario needs a positive algorithm_cutoff_time (PAR10 scores "
                             "a timeout 10 x the cutoff).")
    time_measure = next((m for m, t in zip(measures, types, strict=True)
                         if t == "runtime" and m != measure), None)
    meta = desc.get("metainfo_algorithms")
    algorithms = [str(a) for a in meta] if isinstance(meta, dict) else []
    if not algorithms:  # ASlib 1.x: two comma-separated lists
        algorithms = [str(a) for key in ("algorithms_deterministic", "algorithms_stochastic")
                      for a in _as_list(desc.get(key))]
    if not algorithms:
        raise ValueError(f"{file}: declares no algorithms (metainfo_algorithms, or "
                         "algorithms_deterministic / algorithms_stochastic).")
    if len(set(algorithms)) != len(algorithms):
        raise ValueError(f"{file}: an algorithm is declared twice.")
    if len(algorithms) < 2:
        raise ValueError(f"{file}: declares one algorithm ({algorithms[0]!r}); selecting "
                         "an algorithm needs at least 2.")
    steps = _feature_steps(desc, text, file)
    return {"scenario_id": str(desc.get("scenario_id") or ""), "measures": measures,
            "measure": measure, "maximize": maximize[k], "runtime": runtime,
            "cutoff": cutoff if runtime else (cutoff if cutoff > 0 else None),
            "time_measure": time_measure, "algorithms": algorithms, "steps": steps[0],
            "used_steps": steps[1], "older": older, "file": file}


def _feature_steps(desc, text, file):
    """``{step: (provides, requires)}`` and the steps used (default steps + requirements)."""
    raw = desc.get("feature_steps") or {}
    steps = {}
    if isinstance(raw, dict):
        for name, spec in raw.items():
            if isinstance(spec, dict):
                provides, requires = spec.get("provides"), spec.get("requires")
            else:  # ASlib 1.x: the step's features as a list
                provides, requires = spec, None
            steps[str(name)] = ([str(f) for f in _as_list(provides)],
                                [str(r) for r in _as_list(requires)])
    if not steps:
        raise ValueError(f"{file}{_key_line(text, 'feature_steps')}: no feature_steps.")
    default = [str(s) for s in _as_list(desc.get("default_steps"))] or list(steps)
    used, todo = [], list(default)
    while todo:
        step = todo.pop(0)
        if step not in steps:
            raise ValueError(f"{file}{_key_line(text, 'default_steps')}: feature step "
                             f"{step!r} is not among feature_steps ({', '.join(steps)}).")
        if step not in used:
            used.append(step)
            todo.extend(steps[step][1])
    return steps, [s for s in steps if s in used]


def _read_arff(file: Path, required):
    """The ARFF file as a frame, its declared kinds and each data row's line number."""
    text = _read_text(file)
    try:
        frame, declared, _ = _parse_arff_like(text, keel=False)
    except ValueError as exc:
        raise ValueError(f"{file}: {exc}") from None
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise ValueError(f"{file}: no attribute {', '.join(map(repr, missing))} (its "
                         f"attributes: {', '.join(frame.columns)}).")
    lines, data = [], False
    for i, line in enumerate(text.splitlines()):
        s = line.strip()
        if not data:
            data = re.match(r"@data\b", s, re.IGNORECASE) is not None
        elif s and not s.startswith("%"):
            lines.append(i + 1)
    lines = np.array(lines, dtype=np.int64)
    for column in ("instance_id", "algorithm"):
        if column in frame.columns:
            frame[column] = _names(frame[column], declared[column], file, column, lines)
    if "repetition" in frame.columns:
        rep = pd.to_numeric(frame["repetition"], errors="coerce")
        if rep.isna().any():
            bad = int(np.flatnonzero(rep.isna().to_numpy())[0])
            raise ValueError(f"{file}, line {lines[bad]}: repetition must be a number.")
        frame["repetition"] = rep.astype(np.float64)
    return frame, declared, lines


def _names(column, kind, file, name, lines):
    if column.isna().any():
        row = int(np.flatnonzero(column.isna().to_numpy())[0])
        raise ValueError(f"{file}, line {lines[row]}: {name} is missing.")
    if kind == "numeric":
        return column.map(lambda v: str(int(v)) if float(v).is_integer() else repr(v))
    return column.astype(str)


def _status(frame, column, file, lines):
    status = frame[column].astype(object)
    bad = ~status.isin(RUN_STATUSES)
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise ValueError(f"{file}, line {lines[row]}: unknown {column} {status.iloc[row]!r} "
                         f"(expected one of {', '.join(RUN_STATUSES)}).")
    return status.to_numpy(dtype=object)


def _duplicates(frame, keys, file, lines, what):
    dup = frame.duplicated(keys, keep=False).to_numpy()
    if dup.any():
        rows = np.flatnonzero(dup)
        first = frame.iloc[rows[0]][keys].tolist()
        again = next(r for r in rows[1:] if frame.iloc[r][keys].tolist() == first)
        shown = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in first)
        raise ValueError(f"{file}, line {lines[again]}: duplicated {what} "
                         f"({shown}; first at line {lines[rows[0]]}).")


def _read_runs(file, info, notes):
    measures, measure = info["measures"], info["measure"]
    frame, declared, lines = _read_arff(
        file, ["instance_id", "repetition", "algorithm", *measures, "runstatus"])
    for m in measures:
        if declared[m] != "numeric":
            raise ValueError(f"{file}: the performance measure {m!r} must be numeric.")
    if frame.empty:
        raise ValueError(f"{file}: no data rows (an ASlib scenario needs the run of every "
                         "algorithm on every instance).")
    algorithms = info["algorithms"]
    unknown = ~frame["algorithm"].isin(algorithms).to_numpy()
    if unknown.any():
        row = int(np.flatnonzero(unknown)[0])
        raise ValueError(f"{file}, line {lines[row]}: run of unknown algorithm "
                         f"{frame['algorithm'].iloc[row]!r} (description.txt declares "
                         f"{len(algorithms)}).")
    status = _status(frame, "runstatus", file, lines)
    _duplicates(frame, ["instance_id", "repetition", "algorithm"], file, lines, "run")
    ok = status == "ok"
    value = frame[measure].to_numpy(dtype=np.float64)
    bad = ok & ~np.isfinite(value)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{file}, line {lines[row]}: run status ok but {measure} is "
                         "missing or not finite.")
    if not info["runtime"] and not ok.all():
        # a quality scenario's run that timed out (or crashed) still has the quality it
        # reached when the scenario gives one (the objective of its best solution)
        undefined = ~ok & ~np.isfinite(value)
        if undefined.any():
            row = int(np.flatnonzero(undefined)[0])
            raise ValueError(f"{file}, line {lines[row]}: run status {status[row]!r} and "
                             f"no {measure} in a solution-quality scenario (its "
                             "performance is undefined).")
        notes.append(f"{int((~ok).sum())} run(s) not ok scored by the {measure} they "
                     "record")
    if info["runtime"]:
        negative = np.isfinite(value) & (value < 0)
        if negative.any():
            row = int(np.flatnonzero(negative)[0])
            raise ValueError(f"{file}, line {lines[row]}: negative runtime {value[row]:g}.")
    instances = list(dict.fromkeys(frame["instance_id"]))
    d, a = len(instances), len(algorithms)
    row_of = {n: i for i, n in enumerate(instances)}
    col_of = {n: j for j, n in enumerate(algorithms)}
    i = frame["instance_id"].map(row_of).to_numpy()
    j = frame["algorithm"].map(col_of).to_numpy()
    # every algorithm has at least one run on every instance; the numbers of repetitions
    # may differ between algorithms (the format's own example runs a stochastic
    # algorithm twice and the deterministic ones once): each (instance, algorithm) is
    # the mean over its own runs
    n_reps = np.zeros((d, a), dtype=np.int64)
    np.add.at(n_reps, (i, j), 1)
    if (n_reps == 0).any():
        ii = int(np.flatnonzero((n_reps == 0).any(axis=1))[0])
        lacking = [algorithms[k] for k in np.flatnonzero(n_reps[ii] == 0)]
        raise ValueError(f"{file}: no run of {lacking[0]!r} on instance {instances[ii]!r}"
                         f"{f' (and {len(lacking) - 1} more)' if len(lacking) > 1 else ''}"
                         " (every algorithm needs a run on every instance).")
    if n_reps.max() > 1:
        low, high = int(n_reps.min()), int(n_reps.max())
        notes.append(f"runs averaged over their repetitions ({low} to {high} per algorithm "
                     "and instance)" if low < high else
                     f"runs averaged over up to {high} repetitions")

    def mean(values):
        total = np.zeros((d, a))
        np.add.at(total, (i, j), values)
        return total / n_reps

    if info["runtime"]:
        cutoff = info["cutoff"]
        done = ok & (value < cutoff)
        par10 = np.where(done, value, 10.0 * cutoff)
        performance = mean(par10)
        solved = mean(done.astype(np.float64)) == 1.0
        times = mean(np.where(np.isfinite(value), np.minimum(value, cutoff), cutoff))
        timeouts = int((~done).sum())
        if timeouts:
            notes.append(f"{timeouts} run(s) at or past the cutoff {cutoff:g} s or not ok: "
                         f"PAR10 = {10 * cutoff:g}")
    else:
        performance = mean(value)
        solved = np.ones((d, a), dtype=bool)
        times = np.ones((d, a))
        if info["time_measure"] is not None:
            t = frame[info["time_measure"]].to_numpy(dtype=np.float64)
            if info["cutoff"] is not None:  # a run not ok without a time: the cutoff
                t = np.where(~ok & ~np.isfinite(t), info["cutoff"], t)
            bad = ~np.isfinite(t)
            if bad.any():
                row = int(np.flatnonzero(bad)[0])
                raise ValueError(f"{file}, line {lines[row]}: {info['time_measure']} is "
                                 "missing (it gives the runs' times).")
            times = mean(t)
    low = times < TIME_FLOOR
    if low.any():
        notes.append(f"{int(low.sum())} run time(s) below {TIME_FLOOR:g} s raised to it")
        times = np.maximum(times, TIME_FLOOR)
    return {"instances": instances, "performance": performance, "solved": solved,
            "times": times}


def _check_instances(frame, file, lines, instances, what):
    known = set(instances)
    extra = ~frame["instance_id"].isin(known).to_numpy()
    if extra.any():
        row = int(np.flatnonzero(extra)[0])
        raise ValueError(f"{file}, line {lines[row]}: instance "
                         f"{frame['instance_id'].iloc[row]!r} has no algorithm runs.")
    have = set(frame["instance_id"])
    lacking = [n for n in instances if n not in have]
    if lacking:
        raise ValueError(f"{file}: no {what} for instance {lacking[0]!r}"
                         f"{f' (and {len(lacking) - 1} more)' if len(lacking) > 1 else ''}.")


def _by_instance(frame, columns, instances):
    """Mean over repetitions of each column, rows in ``instances`` order."""
    return frame.groupby("instance_id", sort=False)[columns].mean().reindex(instances)


def _read_features(root, info, instances, notes):
    steps, used = info["steps"], info["used_steps"]
    file = root / "feature_values.arff"
    frame, declared, lines = _read_arff(file, ["instance_id", "repetition"])
    # once each: a feature two used steps both provide is one column of the file
    # (ASP-POTASSCO's Dynamic-3 and Dynamic-4 both list Choices-4)
    provided = list(dict.fromkeys(f for s in used for f in steps[s][0]))
    columns = provided or [c for c in frame.columns if c not in ("instance_id", "repetition")]
    if info["older"]:
        # a step of the older format lists the features that depend on it: a feature
        # also listed by a step not used is left out (as aslib-R's reader of that
        # format does), whatever a used step lists it too
        unused = {f for s in steps if s not in used for f in steps[s][0]}
        left_out = [c for c in columns if c in unused]
        if left_out:
            columns = [c for c in columns if c not in unused]
            notes.append(f"{len(left_out)} feature(s) left out: they depend on a feature "
                         "step not used (older description format)")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{file}: no attribute {missing[0]!r}, which description.txt's "
                         "feature steps provide.")
    _duplicates(frame, ["instance_id", "repetition"], file, lines, "feature values")
    _check_instances(frame, file, lines, instances, "feature values")
    frame, columns, encoded = _one_hot(frame, columns, declared, file)
    if encoded:
        notes.append(f"{len(encoded)} categorical feature(s) read as "
                     f"{sum(map(len, encoded.values()))} indicator column(s) (one per "
                     "value, missing where the feature is)")
    values = frame[columns].to_numpy(dtype=np.float64)
    infinite = np.isinf(values)
    if infinite.any():
        notes.append(f"{int(infinite.sum())} infinite feature value(s) read as missing")
        frame = frame.assign(**{c: np.where(infinite[:, k], np.nan, values[:, k])
                                for k, c in enumerate(columns)})
    features = _by_instance(frame, columns, instances)

    file = root / "feature_runstatus.arff"
    status, _, lines = _read_arff(file, ["instance_id", "repetition", *used])
    _duplicates(status, ["instance_id", "repetition"], file, lines, "feature run status")
    _check_instances(status, file, lines, instances, "feature run status")
    failed = 0
    presolved = np.zeros(len(instances), dtype=bool)
    for step in used:
        code = _status(status, step, file, lines)
        presolved |= pd.Index(instances).isin(status["instance_id"][code == "presolved"])
        bad = status["instance_id"][code != "ok"].unique()
        cols = [c for f in steps[step][0] for c in encoded.get(f, [f])
                if c in features.columns]
        if len(bad) and cols:
            failed += len(bad)
            features.loc[list(bad), cols] = np.nan
    if failed:
        notes.append(f"{failed} (instance, feature step) pair(s) not ok: their features "
                     "read as missing")
    if presolved.any():
        notes.append(f"{int(presolved.sum())} instance(s) presolved by a feature step")
    n_missing = int(features.isna().to_numpy().sum())
    if n_missing:
        notes.append(f"{n_missing} missing feature value(s) of {features.size}")

    costs = pd.DataFrame(0.0, index=instances, columns=used)
    file = root / "feature_costs.arff"
    if file.is_file():
        frame, declared, lines = _read_arff(file, ["instance_id", "repetition"])
        present = [s for s in used if s in frame.columns]
        if len(present) < len(used):
            lacking = [s for s in used if s not in frame.columns]
            notes.append(f"feature_costs.arff gives no cost for step(s) {', '.join(lacking)}: "
                         "counted as 0 s")
        _duplicates(frame, ["instance_id", "repetition"], file, lines, "feature costs")
        _check_instances(frame, file, lines, instances, "feature costs")
        if present:
            table = _by_instance(frame, present, instances)
            if table.isna().to_numpy().any():
                notes.append(f"{int(table.isna().to_numpy().sum())} missing feature cost(s) "
                             "counted as 0 s")
            costs[present] = table.fillna(0.0).to_numpy()
            if np.any(costs.to_numpy() < 0):
                raise ValueError(f"{file}: a negative feature cost.")
    return features, costs, presolved, encoded


def _one_hot(frame, columns, declared, file):
    """Each categorical (nominal or string) feature of ``columns`` as one indicator
    column per value it takes, named ``feature=value`` (1 where it has that value, 0
    where another, missing where it is missing), in its place; the frame, the columns
    and ``{feature: its indicator columns}``. The format allows categorical features;
    the learners read numbers."""
    encoded, out, new = {}, [], {}
    for c in columns:
        if declared[c] == "numeric":
            out.append(c)
            continue
        value = frame[c]
        names = []
        for level in sorted(value.dropna().astype(str).unique()):
            name = f"{c}={level}"
            if name in frame.columns or name in new:
                raise ValueError(f"{file}: the indicator column {name!r} of the categorical "
                                 f"feature {c!r} is the name of another feature.")
            new[name] = np.where(value.isna(), np.nan, (value == level).astype(np.float64))
            names.append(name)
        encoded[c] = names
        out.extend(names)
    if new:  # the new columns at once (one at a time fragments the frame)
        frame = pd.concat([frame, pd.DataFrame(new, index=frame.index)], axis=1)
    return frame, out, encoded


def _drawn_cv(instances, notes):
    """Folds for a scenario without ``cv.arff`` (the format makes it optional): one
    repetition of :data:`DEFAULT_FOLDS` folds drawn at random (scikit-learn's ``KFold``,
    shuffled, seed 0: the same folds on every reading), as other ASlib tools draw their
    own."""
    from sklearn.model_selection import KFold

    k = min(DEFAULT_FOLDS, len(instances))
    if k < 2:
        raise ValueError("an ASlib scenario of one instance cannot be cross-validated.")
    fold = np.zeros(len(instances), dtype=np.int64)
    for number, (_, test) in enumerate(KFold(k, shuffle=True, random_state=0).split(
            np.zeros(len(instances))), start=1):
        fold[test] = number
    notes.append(f"no cv.arff: the instances split at random into {k} folds (seed 0)")
    cv = pd.DataFrame({1: fold}, index=pd.Index(instances, name="instance_id"))
    cv.columns = [1]
    return cv


def _read_cv(file, instances):
    """The folds of ``cv.arff``: positive integers, each repetition numbered 1 to R and
    holding every instance, each repetition's folds numbered 1 to K with none empty (the
    same K in every repetition)."""
    frame, declared, lines = _read_arff(file, ["instance_id", "repetition", "fold"])
    if frame.empty:
        raise ValueError(f"{file}: no data rows (every instance needs a fold).")
    for column in ("repetition", "fold"):
        value = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=np.float64)
        with np.errstate(invalid="ignore"):
            bad = ~(np.isfinite(value) & (value >= 1) & (value == np.round(value)))
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            got = frame[column].iloc[row]
            got = f"{got:g}" if isinstance(got, (float, np.floating)) else repr(got)
            raise ValueError(f"{file}, line {lines[row]}: {column} must be a positive "
                             f"integer, got {got}.")
        frame[column] = value.astype(np.int64)
    _duplicates(frame, ["instance_id", "repetition"], file, lines, "fold assignment")
    _check_instances(frame, file, lines, instances, "fold")
    reps = np.unique(frame["repetition"].to_numpy())
    if not np.array_equal(reps, np.arange(1, reps.size + 1)):
        gap = int(np.setdiff1d(np.arange(1, reps.max() + 1), reps)[0])
        row = int(np.flatnonzero(frame["repetition"].to_numpy() > gap)[0])
        raise ValueError(f"{file}, line {lines[row]}: repetition "
                         f"{frame['repetition'].iloc[row]}, but no repetition {gap} "
                         "(repetitions are numbered 1, 2, ...).")
    cv = frame.pivot(index="instance_id", columns="repetition", values="fold")
    cv = cv.reindex(instances)
    if cv.isna().to_numpy().any():
        where = np.argwhere(cv.isna().to_numpy())[0]
        raise ValueError(f"{file}: no fold for instance {instances[where[0]]!r} in "
                         f"repetition {cv.columns[where[1]]}.")
    cv = cv.astype(np.int64)
    cv.columns = [int(c) for c in cv.columns]
    n_folds = None
    for rep in cv.columns:
        folds = np.unique(cv[rep].to_numpy())
        if folds.size < 2:
            raise ValueError(f"{file}: repetition {rep} has a single fold; nothing to train "
                             "on.")
        if not np.array_equal(folds, np.arange(1, folds.size + 1)):
            gap = int(np.setdiff1d(np.arange(1, folds.max() + 1), folds)[0])
            mine = frame["repetition"].to_numpy() == rep
            row = int(np.flatnonzero(mine & (frame["fold"].to_numpy() > gap))[0])
            raise ValueError(f"{file}, line {lines[row]}: fold {frame['fold'].iloc[row]} "
                             f"of repetition {rep}, but its fold {gap} holds no instance "
                             "(folds are numbered 1 to K).")
        if n_folds is not None and folds.size != n_folds:
            raise ValueError(f"{file}: repetition {rep} has {folds.size} folds, repetition "
                             f"{cv.columns[0]} {n_folds} (every repetition splits the "
                             "instances into the same number of folds).")
        n_folds = folds.size
    return cv
