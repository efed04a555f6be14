"""The report's "How this was made" section: versions, machine, settings and seeds.

Everything here is read from the store, which records it as the study runs: each run's
library versions, CPU model and cores; each algorithm's estimator and full
hyperparameters; the study's folds, seed and repetitions, and the seed of every fold
shuffle. A store written before metaeval recorded these says so ("not recorded")
instead of guessing.
"""

from __future__ import annotations

import html
import json

import pandas as pd

__all__ = ["provenance_section"]

#: Library versions shown, in order: (key in the recorded environment, label).
_VERSIONS = (("metaeval", "metaeval"), ("python", "Python"), ("scikit-learn", "scikit-learn"),
             ("numpy", "NumPy"), ("scipy", "SciPy"), ("duckdb", "DuckDB"),
             ("pandas", "pandas"), ("pyarrow", "PyArrow"))
_NOT_RECORDED = "not recorded"


def _esc(value) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _table(header, rows, *, text=()) -> str:
    head = "".join(f'<th class="{"text" if i in text else ""}">{_esc(h)}</th>'
                   for i, h in enumerate(header))
    body = "".join(
        "<tr>" + "".join(f'<td class="{"text" if i in text else ""}">{_esc(c)}</td>'
                         for i, c in enumerate(row)) + "</tr>"
        for row in rows)
    return (f'<div class="scroll"><table><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>")


def _when(value) -> str:
    if value is None or pd.isna(value):
        return "–"
    return pd.Timestamp(value).strftime("%Y-%m-%d %H:%M:%S")


def _params_text(params: dict) -> str:
    return ", ".join(f"{k}={v if isinstance(v, str) else repr(v)}"
                     for k, v in params.items()) or "(none)"


def _runs(store) -> str:
    runs = store.runs()
    if runs.empty:
        return ('<p class="note">The runs that computed these results are '
                f"{_NOT_RECORDED}: this store was written by a metaeval that did not record "
                "them. Re-running the study into a new store records them.</p>")
    task_runs = store.task_runs()
    counts = task_runs["run"].value_counts(dropna=False)
    rows = []
    for r in runs.itertuples(index=False):
        env = r.environment or {}
        versions = env.get("versions", {})
        rows.append([
            int(r.run), _when(r.started),
            _when(r.finished) if not pd.isna(r.finished) else "did not finish (stopped)",
            int(counts.get(r.run, 0)), env.get("executor", "–"), env.get("cpu_model", "–"),
            f"{env.get('cores', '–')} of {env.get('cores_total', '–')}",
            *(versions.get(key, "–") for key, _ in _VERSIONS),
        ])
    html_ = _table(["run", "started", "finished", "tasks", "where the tasks ran", "CPU model",
                    "cores usable", *(label for _, label in _VERSIONS)], rows,
                   text=(1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14))
    unknown = int(task_runs["run"].isna().sum())
    if unknown:
        html_ += (f'<p class="note">{unknown} task{"" if unknown == 1 else "s"} finished '
                  "before the store recorded its "
                  f"runs: their machine and versions are {_NOT_RECORDED} (the versions each "
                  "algorithm was registered with are in the next table).</p>")
    return html_


def _algorithms(store) -> str:
    algorithms = store.algorithms()
    full = {r.algorithm: r.hyperparameters
            for r in store.hyperparameters().itertuples(index=False)}
    rows = []
    for r in algorithms.itertuples(index=False):
        given = json.loads(r.params) if r.params else {}
        versions = json.loads(r.versions) if r.versions else {}
        hyper = full.get(r.name)
        rows.append([
            r.name, r.estimator, r.score_method, _params_text(given),
            _params_text(hyper) if hyper is not None else
            f"{_NOT_RECORDED} (the library defaults of scikit-learn "
            f"{versions.get('scikit-learn', '?')} apply to the rest)",
            ", ".join(f"{k} {v}" for k, v in versions.items()),
        ])
    return _table(["algorithm", "estimator", "score", "parameters set", "all hyperparameters "
                   "(get_params)", "versions at registration"], rows, text=range(6))


def _study(store) -> str:
    config = store.study_config() or {}
    tasks = store.tasks()
    done = tasks[tasks["status"] == "done"]
    folds = config.get("folds")
    used = done.groupby("dataset", sort=False)["n_folds"].min() if len(done) else pd.Series()
    reduced = {d: int(k) for d, k in used.items()
               if folds and pd.notna(k) and int(k) < int(folds)}
    items = [
        f"Stratified {folds}-fold cross-validation, {config.get('repeats', 1)} "
        f"repetition(s), study seed {config.get('seed')}.",
        "Each fold's shuffle and each model's random state are derived from the study seed "
        "and the names of the dataset, algorithm, repetition and fold, so a re-run gives the "
        "same scores bit for bit.",
        "Times: CPU time is the CPU time of the thread that fitted or scored the fold "
        "(numerical libraries held to that one thread); wall time is elapsed time. Rankings "
        "that weigh time use CPU time unless they say otherwise.",
    ]
    if reduced:
        items.append("Fewer folds than asked, because a class has fewer instances than that: "
                     + ", ".join(f"{d} {k}" for d, k in reduced.items()) + ".")
    return "<ul>" + "".join(f"<li>{_esc(i)}</li>" for i in items) + "</ul>"


def _seeds(store) -> str:
    seeds = store.fold_seeds()
    if seeds.empty:
        return (f'<p class="note">The fold seeds are {_NOT_RECORDED} in this store; they '
                "follow from the study seed as described above.</p>")
    tasks = store.tasks()
    used = tasks[tasks["status"] == "done"].groupby(["dataset", "repeat"])["n_folds"].min()
    rows = [[r.dataset, int(r.repeat), int(r.seed),
             int(used[(r.dataset, r.repeat)]) if (r.dataset, r.repeat) in used.index
             and pd.notna(used[(r.dataset, r.repeat)]) else "–"]
            for r in seeds.itertuples(index=False)]
    return ('<p class="note">The seed of each dataset\'s fold shuffle:</p>'
            + _table(["dataset", "repetition", "fold shuffle seed", "folds used"], rows,
                     text=(0,)))


def provenance_section(store) -> str:
    """The HTML of the "How this was made" section for a store.

    Parameters
    ----------
    store : metaeval.store.Store

    Returns
    -------
    str
        Escaped HTML: the study's settings, the runs (versions, CPU model, cores), the
        algorithms with their full hyperparameters, and the fold seeds.
    """
    return ("<h3>Settings</h3>" + _study(store)
            + "<h3>Runs: machine and versions</h3>" + _runs(store)
            + "<h3>Algorithms</h3>" + _algorithms(store)
            + "<h3>Seeds</h3>" + _seeds(store))
