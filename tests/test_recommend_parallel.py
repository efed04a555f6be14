"""The held-out folds in worker processes (``n_jobs``): the same evaluation as in one."""

from __future__ import annotations

import json
import os
import signal
import sys

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.recommend import KnowledgeBase, SingleBest, evaluate_recommenders, get_strategy
from metaeval.recommend.evaluation._evaluate import _n_jobs
from metaeval.recommend.evaluation._parallel import WorkerLostError

#: the frames of an evaluation that must not depend on the number of workers
FRAMES = ("per_dataset", "curves", "summary", "versus_random", "comparisons")
#: seven families of one to four datasets
FAMILIES = ["a", "a", "a", "a", "b", "c", "c", "d", "d", "d", "e", "f", "g", "g"]


def _knowledge(repetitions=1, seed=1):
    """Successes on a 0.05 grid (ties between algorithms and between datasets), times
    with ties too, meta-features and landmarks; ``repetitions`` >= 2 adds that many
    noisy repetitions (``success`` their mean)."""
    rng = np.random.default_rng(seed)
    D, A = len(FAMILIES), 6
    skill = rng.uniform(0.6, 0.9, A)
    reps = np.round((skill + rng.normal(0, 0.05, (max(repetitions, 1), D, A))) / 0.05) * 0.05
    reps = np.clip(reps, 0.05, 1.0)
    times = np.round(rng.uniform(0.5, 5, A) * rng.uniform(1, 4, (D, 1)))
    names = [f"d{i}" for i in range(D)]
    extra = {"repetitions": reps} if repetitions >= 2 else {}
    return KnowledgeBase(
        names, [f"a{j}" for j in range(A)], reps.mean(axis=0), times, families=FAMILIES,
        n_instances=np.full(D, 100),
        metafeatures=pd.DataFrame(rng.normal(size=(D, 3)), index=names,
                                  columns=["general.a", "general.b", "general.c"]),
        metafeature_time=np.full(D, 0.3),
        landmarks=pd.DataFrame(reps.mean(axis=0)[:, :2], index=names,
                               columns=["NB.success", "LR.success"]),
        landmark_time=np.full(D, 0.7), **extra)


def _strategies():
    """An inner selection (knn-metafeatures' k, auto's strategy, the regression's
    minimum leaf and blend), an interactive one (active-testing), a seeded one
    (random) and one that reads the truth (oracle)."""
    return [get_strategy("auto"), get_strategy("knn-metafeatures"),
            get_strategy("active-testing"), get_strategy("regression", trees=5,
                                                         min_leaf=(1, 3)),
            get_strategy("random", repeats=50), get_strategy("single-best"),
            get_strategy("oracle")]


def _same(a, b):
    for name in FRAMES:
        if getattr(a, name) is None:  # no comparisons asked for
            assert getattr(b, name) is None
            continue
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name), check_exact=True)
    assert a.notes == b.notes and a.strategies == b.strategies


class _Killed(SingleBest):
    """The single best, whose fit kills its process when that is not ``parent`` (with
    ``once``, a file's path: only the first time, which makes the file)."""

    def __init__(self, parent, once=None):
        self.parent, self.once = parent, None if once is None else str(once)

    def _fit(self, knowledge, condition, seed):
        if os.getpid() != self.parent:
            if self.once is None:
                os.kill(os.getpid(), signal.SIGKILL)
            elif not os.path.exists(self.once):
                open(self.once, "w").close()
                os.kill(os.getpid(), signal.SIGKILL)
        return super()._fit(knowledge, condition, seed)


def _killed_fold(group, groups):
    """A fold whose worker process the system kills."""
    os.kill(os.getpid(), signal.SIGKILL)


class _WhereFitted(SingleBest):
    """The single best, writing the id of the process that fitted it to a folder."""

    def __init__(self, folder):
        self.folder = str(folder)

    def _fit(self, knowledge, condition, seed):
        path = os.path.join(self.folder, f"{os.getpid()}-{len(os.listdir(self.folder))}")
        with open(path, "w"):
            pass
        return super()._fit(knowledge, condition, seed)


def test_two_workers_give_the_evaluation_of_one(cli_store, tmp_path):
    """Every check that starts workers, in one test: starting them (each imports the
    library) costs more than all the evaluations here."""
    kwargs = {"strategies": _strategies(), "n_boot": 50, "n_random": 50, "seed": 3}
    kb = _knowledge(repetitions=2)  # scored on the unseen repetition, both ways
    said = {1: [], 2: []}  # progress, said in this process as each fold ends
    one = evaluate_recommenders(kb, **kwargs, n_jobs=1,
                                progress=lambda done, total: said[1].append((done, total)))
    _same(one, evaluate_recommenders(kb, **kwargs, n_jobs=2, progress=lambda done, total:
                                     said[2].append((done, total))))
    n_families = len(set(FAMILIES))
    assert said[1] == said[2] == [(d, n_families) for d in range(1, n_families + 1)]
    # every held-out dataset, in the knowledge base's order; ties there to break
    assert one.per_dataset["dataset"].drop_duplicates().tolist() == list(kb.datasets)
    assert len(one.per_dataset) == len(kb.datasets) * len(kwargs["strategies"])
    assert (np.diff(np.sort(kb.success, axis=1), axis=1) == 0).any()
    assert one.scored_on == "unseen repetition"
    # an ASlib-style assignment of folds (not families), scored on the mean success
    folds = np.arange(len(kb.datasets)) % 3
    same = {**kwargs, "folds": folds, "compare": False, "scored_on": "same"}
    _same(evaluate_recommenders(kb, **same, n_jobs=1),
          evaluate_recommenders(kb, **same, n_jobs=2))

    # the folds are fitted in the workers: one fit per family, none in this process
    import sys

    import cloudpickle

    where = tmp_path / "fits"
    where.mkdir()
    module = sys.modules[__name__]  # imported by pytest, unknown to the workers: by value
    cloudpickle.register_pickle_by_value(module)
    try:
        ev = evaluate_recommenders(kb, strategies=[_WhereFitted(where)], n_boot=10,
                                   compare=False, n_jobs=2)
    finally:
        cloudpickle.unregister_pickle_by_value(module)
    pids = {int(p.name.split("-")[0]) for p in where.iterdir()}
    assert len(list(where.iterdir())) == len(set(FAMILIES))
    assert os.getpid() not in pids and 1 <= len(pids) <= 2
    assert len(ev.per_dataset) == len(kb.datasets)

    # the command line: --jobs 2 writes the JSON of --jobs 1
    runner = CliRunner()
    docs = []
    for jobs in ("1", "2"):
        target = tmp_path / f"ev{jobs}.json"
        result = runner.invoke(app, ["recommend", "--evaluate", "--store", str(cli_store),
                                     "--strategy", "average-ranking", "--jobs", jobs,
                                     "--json", str(target)])
        assert result.exit_code == 0, result.output
        docs.append(json.loads(target.read_text()))
    assert docs[0] == docs[1]
    assert docs[0]["n_datasets"] == 3 and set(docs[0]["strategies"]) == {"average-ranking"}

    # a worker the system kills (as for want of memory): the folds not finished are
    # evaluated again with half the workers, said in a warning, and the evaluation is
    # that of one process; killed again with one worker: one error that says so, not
    # joblib's traceback
    from metaeval.recommend.evaluation._parallel import WorkerLostWarning

    kwargs = {"n_boot": 10, "compare": False}
    cloudpickle.register_pickle_by_value(module)
    try:
        with pytest.warns(WorkerLostWarning, match=r"killed \(SIGKILL\(-9\)\), most often "
                          r"because the machine ran out of memory: the \d+ fold\(s\) not "
                          r"finished are evaluated again with 1 worker process"):
            again = evaluate_recommenders(
                kb, strategies=[_Killed(os.getpid(), once=tmp_path / "killed")], n_jobs=2,
                **kwargs)
        assert (tmp_path / "killed").exists()
        _same(again, evaluate_recommenders(kb, strategies=[_Killed(os.getpid())], n_jobs=1,
                                           **kwargs))
        # a fold whose one worker is killed too (one worker started, not three)
        from metaeval.recommend.evaluation._parallel import _folds_in_workers

        with pytest.raises(WorkerLostError) as lost:
            _folds_in_workers(_killed_fold, ["a"], {"groups": np.array(["a"])}, 1)
    finally:
        cloudpickle.unregister_pickle_by_value(module)
    said = str(lost.value)
    assert "SIGKILL" in said and "memory" in said and "even with one worker process" in said
    assert "each of the 1 worker process(es)" in said
    assert "{" not in said and "Detailed tracebacks" not in said, said  # not loky's words


_LOKY = ("A worker process managed by the executor was unexpectedly terminated. This could "
         "be caused by a segmentation fault while calling the function or by an excessive "
         "memory usage causing the Operating System to kill the worker.\n\nThe exit codes "
         "of the workers are {CODES}\nDetailed tracebacks of the workers should have been "
         "printed to stderr in the executor process if faulthandler was not disabled.")


@pytest.mark.parametrize(("codes", "shown", "memory"), [
    ("{SIGKILL(-9), SIGKILL(-9)}", "killed (SIGKILL(-9)),", True),
    ("{SIGSEGV(-11)}", "ended without its result (SIGSEGV(-11)):", False),
    ("{EXIT(1), SIGKILL(-9)}", "killed (EXIT(1), SIGKILL(-9)),", True),
    (None, "was killed, most often", True),  # Windows: no exit codes
])
def test_a_lost_worker_is_said_by_its_exit_codes_without_loky_s_text(codes, shown, memory):
    from metaeval.recommend.evaluation._parallel import _lost_message

    text = _LOKY.replace("{CODES}", codes) if codes else _LOKY.split("\n\n")[0]
    said = _lost_message(text, 4)
    assert shown in said and "Detailed tracebacks" not in said, said
    assert ("ran out of memory" in said) == memory
    assert ("each of the 4 worker process(es)" in said) == memory
    assert ("run again with fewer worker processes (n_jobs, --jobs)" in said) == memory
    assert "Nothing was evaluated" in said
    if memory:  # with one worker, no fewer to run with
        assert "even with one worker process" in _lost_message(text, 1)


def test_a_progress_that_cannot_be_called_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match="progress must be a callable or None, got 3"):
        evaluate_recommenders(_knowledge(), strategies=["single-best"], progress=3)


@pytest.mark.parametrize("n_jobs", [0, 1.5, "2", True])
def test_bad_n_jobs_is_a_value_error_naming_it(n_jobs):
    with pytest.raises(ValueError, match="n_jobs must be a nonzero integer"):
        evaluate_recommenders(_knowledge(), strategies=["single-best"], n_jobs=n_jobs)


def test_n_jobs_follows_scikit_learns_convention():
    from joblib import cpu_count, parallel_config

    assert _n_jobs(None, 5) == 1 and _n_jobs(1, 5) == 1 and _n_jobs(3, 5) == 3
    assert _n_jobs(8, 3) == 3  # never more workers than folds
    assert _n_jobs(-1, 1000) == cpu_count()
    assert _n_jobs(-2, 1000) == max(1, cpu_count() - 1)
    with parallel_config(n_jobs=2):
        assert _n_jobs(None, 5) == 2


def test_a_killed_worker_is_one_line_and_exit_code_1(cli_store, monkeypatch):
    import metaeval.recommend

    def killed(*args, **kwargs):
        raise WorkerLostError("A worker process evaluating the folds was killed "
                              "(SIGKILL(-9)), most often\nbecause the machine ran out of "
                              "memory.")

    monkeypatch.setattr(metaeval.recommend, "evaluate_recommenders", killed)
    result = CliRunner().invoke(app, ["recommend", "--evaluate", "--store", str(cli_store),
                                      "--strategy", "single-best"])
    assert result.exit_code == 1, result.output
    assert "Error: A worker process evaluating the folds was killed (SIGKILL(-9)), most " \
        "often because the machine ran out of memory." in result.output
    assert "Traceback" not in result.output


def test_a_worker_killed_then_replaced_is_one_note_and_the_evaluation_goes_on(
        cli_store, monkeypatch):
    """The command line says the evaluation's WorkerLostWarning as one line when it
    happens, and ends as without it."""
    import warnings

    import metaeval.recommend
    from metaeval.recommend.evaluation._parallel import WorkerLostWarning

    original = metaeval.recommend.evaluate_recommenders

    def killed_once(*args, **kwargs):
        warnings.warn("A worker process evaluating the folds was killed (SIGKILL(-9)), "
                      "most often because the machine ran out of memory: the 2 fold(s) "
                      "not finished are evaluated again with 1 worker process(es).",
                      WorkerLostWarning, stacklevel=2)
        return original(*args, **kwargs)

    monkeypatch.setattr(metaeval.recommend, "evaluate_recommenders", killed_once)
    result = CliRunner().invoke(app, ["recommend", "--evaluate", "--store", str(cli_store),
                                      "--strategy", "single-best"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if "was killed" in line]
    assert lines == ["Note: A worker process evaluating the folds was killed (SIGKILL(-9)), "
                     "most often because the machine ran out of memory: the 2 fold(s) not "
                     "finished are evaluated again with 1 worker process(es)."], lines
    assert "WorkerLostWarning" not in result.output and "single-best" in result.output


def test_cli_passes_jobs_and_checks_it(cli_store, monkeypatch):
    import metaeval.recommend

    real, seen = metaeval.recommend.evaluate_recommenders, []

    def recording(*args, n_jobs=None, **kwargs):
        seen.append(n_jobs)
        return real(*args, n_jobs=1, **kwargs)

    monkeypatch.setattr(metaeval.recommend, "evaluate_recommenders", recording)
    # four usable cores: --jobs 3 is not lowered to the cores (as it is on two)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(4)), raising=False)
    runner = CliRunner()
    base = ["recommend", "--evaluate", "--store", str(cli_store), "--strategy",
            "single-best"]
    for extra in ([], ["--jobs", "3"]):
        result = runner.invoke(app, base + extra)
        assert result.exit_code == 0, result.output
    assert seen == [-1, 3]  # by default every core
    bad = runner.invoke(app, [*base, "--jobs", "0"])
    assert bad.exit_code == 2 and "--jobs must be a positive integer, got 0" in bad.output
    alone = runner.invoke(app, ["recommend", "--store", str(cli_store), "--jobs", "2"])
    assert alone.exit_code == 2 and "--jobs goes with --evaluate" in alone.output
    assert seen == [-1, 3]


def test_knowledge_build_jobs_reach_the_evaluations(tmp_path, monkeypatch):
    """``knowledge build --jobs N --evaluations``: the evaluations run where joblib's
    ``n_jobs`` is N, which ``evaluate_recommenders``' default (None) follows."""
    from joblib import effective_n_jobs

    from metaeval.cli._knowledge import _write_evaluations
    from metaeval.recommend import _advice

    seen = []

    def evaluate(archive, progress=None, **kwargs):
        seen.append(effective_n_jobs(None))
        return {"conditions": []}

    monkeypatch.setattr(_advice, "evaluate_for_advice", evaluate)
    _write_evaluations(None, tmp_path / "e.json", True, 3)
    _write_evaluations(None, tmp_path / "e.json", True, 1)
    assert seen == [3, 1] and effective_n_jobs(None) == 1
    assert json.loads((tmp_path / "e.json").read_text()) == {"conditions": []}


def test_knowledge_build_uses_every_usable_core_by_default(cli_store, tmp_path, monkeypatch):
    """Without ``--jobs``, ``knowledge build`` summarises on every core this process may
    run on (as ``recommend --evaluate``); ``--jobs 1`` keeps it in one process."""
    import os

    from typer.testing import CliRunner

    from metaeval.cli import app

    seen = []

    def build(store, *, jobs=1, progress=None, **kwargs):
        seen.append(jobs)
        # stop there: only the number of workers is looked at (not KeyboardInterrupt: a
        # stopped command ignores further stop signals, in this test process too)
        raise ValueError("stopped by the test")

    monkeypatch.setattr("metaeval.recommend.build_knowledge", build)
    for args in ([], ["--jobs", "1"]):
        result = CliRunner().invoke(app, ["knowledge", "build", "--store", str(cli_store),
                                          "--out", str(tmp_path / "k.npz"), "-q", *args])
        assert result.exit_code == 2 and "stopped by the test" in result.output, result.output
    assert seen == [len(os.sched_getaffinity(0)), 1]


def test_learners_run_with_one_blas_thread_and_restore_the_pool_after():
    from threadpoolctl import threadpool_info, threadpool_limits

    from metaeval.recommend.learners._learners import one_blas_thread

    def blas_threads():
        return {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}

    if not blas_threads():
        pytest.skip("no BLAS library that threadpoolctl can see")

    @one_blas_thread
    def inside():
        return blas_threads()

    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        assert inside() == {1}
        assert blas_threads() == before


_FREED = r"""
import resource, sys
import numpy as np
from metaeval.recommend.evaluation._parallel import keep_freed_memory
if sys.argv[1] == "kept":
    assert keep_freed_memory()

def faults_of_a_new_array():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    a = np.ones(8 << 20)  # 64 MB, written: every page touched
    del a
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

faults_of_a_new_array()
print(faults_of_a_new_array())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_a_worker_keeps_the_memory_its_arrays_free():
    """In the evaluation's workers a freed 64 MB array's pages serve the next one; by
    default glibc maps an array of more than 32 MB afresh, and each of its 16,384 pages
    is faulted in again (counted without NumPy's transparent huge pages, which fault in
    2 MB at a time where the system has them). In new processes: the setting stays with
    the process."""
    import subprocess

    def faults(mode):
        env = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES"}
        env["NUMPY_MADVISE_HUGEPAGE"] = "0"  # glibc's defaults, and no huge pages
        out = subprocess.run([sys.executable, "-c", _FREED, mode], capture_output=True,
                             text=True, check=True, env=env)
        return int(out.stdout.split()[-1])

    assert faults("default") > 16_000
    assert faults("kept") < 1_000
