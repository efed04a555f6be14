"""Write a knowledge base under one operating condition as an ASlib scenario folder.

The folder (Bischl et al. 2016) is written in a temporary folder beside the target and
renamed at the end, so a failure leaves nothing behind; a folder in use, a read-only one
or one inside a read-only folder is refused and left as it is.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from metaeval.recommend.knowledge._knowledge import KnowledgeBase

#: Run statuses of ``algorithm_runs.arff`` and ``feature_runstatus.arff`` (ASlib 2.0).
RUN_STATUSES = ("ok", "timeout", "memout", "not_applicable", "crash", "other", "presolved",
                "unknown")


def write_aslib(kb, path, *, folds=None, measure=None, time_measure="cpu_time",
                readme=None) -> Path:
    """Write a knowledge base (one operating condition) as an ASlib scenario folder.

    ``algorithm_runs.arff`` holds two measures: the success under the condition
    (``measure``, maximised) and the time (``time_measure``, a runtime, minimised);
    ``feature_values.arff`` the meta-features and the landmark features, as the feature
    steps ``metafeatures`` and ``landmarks`` whose costs (``feature_costs.arff``) are the
    description times; ``cv.arff`` one repetition of leave-one-family-out folds (or
    ``folds``). Every run is ``ok`` (a knowledge base has imputed its failed cells; its
    notes, in ``readme.txt``, say which). The folder is written in a temporary folder
    beside ``path`` and renamed at the end: a failure leaves nothing behind.

    Parameters
    ----------
    kb : KnowledgeBase
    path : str or Path
        A folder that does not exist yet (or is empty).
    folds : array-like of shape (n_datasets,), optional
        The fold of each dataset; default its family.
    measure : str, optional
        Name of the success measure; default from the knowledge base's condition.
    time_measure : str, default="cpu_time"
    readme : str, optional
        Text for ``readme.txt`` (default: what the scenario is and the notes).

    Returns
    -------
    Path
        The folder written.

    Raises
    ------
    ValueError
        When ``path`` exists and is not an empty folder, or ``folds`` has the wrong
        length or a single fold.
    """
    import yaml

    if not isinstance(kb, KnowledgeBase):
        raise ValueError(f"kb must be a KnowledgeBase, got {type(kb).__name__}.")
    target = Path(path)
    check_aslib_target(target)
    d = len(kb.datasets)
    groups = np.asarray(kb.families if folds is None else folds, dtype=object)
    if groups.shape != (d,):
        raise ValueError(f"folds must give one fold per dataset ({d}), got {groups.shape}.")
    labels = list(dict.fromkeys(groups.tolist()))
    if len(labels) < 2:
        raise ValueError("folds: every dataset is in one fold; nothing to train on.")
    fold = np.array([labels.index(g) + 1 for g in groups.tolist()])
    if measure is None:
        measure = "success" if kb.condition is None else re.sub(
            r"[^A-Za-z0-9_]+", "_", kb.condition.measure).strip("_")
    if measure == time_measure:
        raise ValueError(f"measure and time_measure must differ, both {measure!r}.")
    steps = {}
    frames = []
    for step, frame, seconds in (("metafeatures", kb.metafeatures, kb.metafeature_time),
                                 ("landmarks", kb.landmarks, kb.landmark_time)):
        if frame is not None and frame.shape[1]:
            steps[step] = (frame, np.asarray(seconds, dtype=np.float64))
            frames.append(frame)
    if not steps:  # the format needs features: the datasets' sizes
        size = pd.DataFrame({"n_instances": kb.n_instances.astype(np.float64)},
                            index=list(kb.datasets))
        steps["size"] = (size, np.zeros(d))
        frames.append(size)
    features = pd.concat(frames, axis=1)
    if features.columns.duplicated().any():
        raise ValueError("a meta-feature and a landmark feature share a name: "
                         f"{features.columns[features.columns.duplicated()][0]!r}.")
    # above every time (and >= 1: readers that apply PAR10 to any measure leave success be)
    cutoff = max(1.0, float(10.0 ** math.ceil(math.log10(float(kb.times.max()) * 1.01))))
    description = {
        "scenario_id": target.name,
        "performance_measures": [measure, time_measure],
        "maximize": [True, False],
        "performance_type": ["solution_quality", "runtime"],
        "algorithm_cutoff_time": cutoff,
        "algorithm_cutoff_memory": "?",
        "features_cutoff_time": "?",
        "features_cutoff_memory": "?",
        "features_deterministic": [str(c) for c in features.columns],
        "features_stochastic": "",
        "algorithms_deterministic": list(kb.algorithms),
        "algorithms_stochastic": "",
        "metainfo_algorithms": {a: {"configuration": "", "deterministic": True}
                                for a in kb.algorithms},
        "number_of_feature_steps": len(steps),
        "default_steps": list(steps),
        "feature_steps": {s: {"provides": [str(c) for c in f.columns]}
                          for s, (f, _) in steps.items()},
    }
    parent = target.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=parent))
    except OSError as exc:  # the reason, about the folder the user named
        raise ValueError(f"{parent}: cannot write the scenario there "
                         f"({exc.strerror or exc}).") from None
    mode = stat.S_IMODE(target.stat().st_mode) if target.is_dir() else 0o755
    try:
        tmp.chmod(mode)
        (tmp / "description.txt").write_text(
            yaml.safe_dump(description, sort_keys=False, default_flow_style=False))
        names = np.array(kb.datasets, dtype=object)
        runs = [(ds, 1, a, kb.success[i, j], kb.times[i, j], "ok")
                for i, ds in enumerate(names) for j, a in enumerate(kb.algorithms)]
        _write_arff(tmp / "algorithm_runs.arff", f"ALGORITHM_RUNS_{target.name}",
                    [("instance_id", "STRING"), ("repetition", "NUMERIC"),
                     ("algorithm", "STRING"), (measure, "NUMERIC"), (time_measure, "NUMERIC"),
                     ("runstatus", "{" + ", ".join(RUN_STATUSES[:6]) + "}")], runs)
        values = features.reindex(list(kb.datasets)).to_numpy(dtype=np.float64)
        _write_arff(tmp / "feature_values.arff", f"FEATURES_{target.name}",
                    [("instance_id", "STRING"), ("repetition", "NUMERIC"),
                     *((str(c), "NUMERIC") for c in features.columns)],
                    [(ds, 1, *row) for ds, row in zip(names, values, strict=True)])
        status_cols = [(s, "{" + ", ".join(RUN_STATUSES) + "}") for s in steps]
        statuses = [
            (ds, 1, *("ok" if np.isfinite(f.loc[ds].to_numpy(dtype=np.float64)).any()
                      else "other" for f, _ in steps.values()))
            for ds in names]
        _write_arff(tmp / "feature_runstatus.arff", f"FEATURES_RUNSTATUS_{target.name}",
                    [("instance_id", "STRING"), ("repetition", "NUMERIC"), *status_cols],
                    statuses)
        _write_arff(tmp / "feature_costs.arff", f"FEATURES_COSTS_{target.name}",
                    [("instance_id", "STRING"), ("repetition", "NUMERIC"),
                     *((s, "NUMERIC") for s in steps)],
                    [(ds, 1, *(c[i] for _, c in steps.values()))
                     for i, ds in enumerate(names)])
        _write_arff(tmp / "cv.arff", f"CV_{target.name}",
                    [("instance_id", "STRING"), ("repetition", "NUMERIC"),
                     ("fold", "NUMERIC")], [(ds, 1, f) for ds, f in zip(names, fold,
                                                                        strict=True)])
        if readme is None:
            label = "no recorded condition" if kb.condition is None else kb.condition.label
            readme = (f"Written by metaeval: {d} datasets x {len(kb.algorithms)} algorithms.\n"
                      f"{measure}: success under {label} (higher is better; the A3R time "
                      f"weight P is not part of it).\n{time_measure}: seconds per run.\n"
                      f"cv.arff: {len(labels)} folds, one per family (leave-one-family-out).\n"
                      + "".join(f"Note: {n}\n" for n in kb.notes))
        (tmp / "readme.txt").write_text(readme)
        if target.exists():
            target.rmdir()
        os.rename(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def check_aslib_target(target) -> None:
    """Refuse a folder :func:`write_aslib` must not write: one that exists and is not an
    empty folder, a read-only empty folder (it stays as it is), or a folder inside a
    read-only one. Write permission is read from the mode bits as well as from the
    operating system, so a read-only folder is refused even to a superuser.

    Raises
    ------
    ValueError
        Naming the folder and the reason.
    """
    target = Path(target)
    if target.exists() or target.is_symlink():
        if not target.is_dir() or any(target.iterdir()):
            raise ValueError(f"{target}: exists and is not an empty folder; choose a new "
                             "one.")
        if not _writable(target):
            raise ValueError(f"{target}: a read-only folder; it is left as it is (make it "
                             "writable, or choose a new folder).")
    parent = next((p for p in target.absolute().parents if p.exists()), None)
    if parent is not None and (not parent.is_dir() or not _writable(parent)):
        what = "read-only" if parent.is_dir() else "not a folder"
        raise ValueError(f"{parent}: {what}; the scenario {target} cannot be written there.")


def _writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK | os.X_OK) and bool(folder.stat().st_mode & 0o222)


_PLAIN = re.compile(r"^[A-Za-z0-9_.\-+:()\[\]=/]+$")


def _arff_token(value) -> str:
    if isinstance(value, (float, np.floating)):
        return repr(float(value)) if np.isfinite(value) else "?"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    text = str(value)
    if _PLAIN.match(text) and text != "?":
        return text
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _write_arff(file, relation, attributes, rows):
    head = [f"@RELATION {relation}", ""]
    head += [f"@ATTRIBUTE {_arff_token(name)} {kind}" for name, kind in attributes]
    body = "\n".join(",".join(_arff_token(v) for v in row) for row in rows)
    file.write_text("\n".join(head) + "\n\n@DATA\n" + body + "\n")
