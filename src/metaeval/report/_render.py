"""Drawing the report's sections: once, in parallel, from the cache when nothing changed.

The page is cut into *fragments* (a section, or one dataset's section), each the HTML a
function of :mod:`metaeval.report.html` writes for a :class:`~metaeval.report._page._Page`.
Fragments are grouped into *jobs*: the fragments of one job run in one process and share
one :class:`~metaeval.report._plots.StudyView`, so an intermediate they all read (the
metrics of every fold, the rankings, a dataset's hardness) is computed once.

A fragment's HTML holds a token (``<!--mefig KEY-->``) where each figure goes; figures and
fragments are cached under their keys (:mod:`metaeval.report._cache`). A fragment whose
key and whose figures are all cached is not run at all; a fragment that runs draws only
the figures missing from the cache. Jobs run on a pool of worker processes (``spawn``-free
``forkserver`` where there is one, so no lock of the parent is inherited); with one core,
or one job to do, they run in this process.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import ExitStack, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from metaeval.report._page import TOKEN, token  # noqa: F401 (the page writes them)

__all__ = ["Fragment", "Job", "available_cores", "renumber_svg_ids", "resolve", "run_jobs"]


@dataclass
class Fragment:
    """One cached piece of the page: ``build(page, **kwargs) -> html``.

    ``dataset``: the dataset whose data it shows (None: the whole store). ``early``: a
    whole-store fragment that reads none of the datasets' intermediates, so it is drawn
    beside the datasets' sections rather than after them.
    """

    name: str
    build: Callable[..., str]
    kwargs: dict = field(default_factory=dict)
    dataset: str | None = None
    key: str = ""
    clock_key: str = ""  # its key on the clock, for a piece that asks for the clock
    early: bool = False


@dataclass
class Job:
    """Fragments run together in one process (they share a StudyView)."""

    label: str
    fragments: list
    weight: float = 1.0


@dataclass
class Settings:
    """What a worker needs to rebuild the report's view and page."""

    store_path: str
    methods: tuple
    t: float
    measure: str
    dpi: float
    strict: bool
    digests: dict
    whole: str
    spill: str | None = None  # directory of the per-dataset intermediates (None: in memory)
    clock: str = "cpu"  # the time of ARR, A3R and the runtime score
    seal: bool = False  # the cache is on: new figures come back sealed for it too


def available_cores() -> int:
    """Cores this process may run on (:func:`metaeval._validation.usable_cores`)."""
    from metaeval._validation import usable_cores

    return usable_cores()


_VIEWS: dict = {}

#: memory of :func:`metaeval.store._cache.all_scores` while it runs, per score (its long
#: frame of ids, rows, labels and scores, and the matrices made from it)
PREFILL_BYTES_PER_SCORE = 72
#: most memory the one-scan prefill may take while it runs (3.7 M scores)
PREFILL_BUDGET = 256 * 2**20


def _view(settings: Settings):
    """One StudyView per worker process and settings, reused by the jobs it runs."""
    key = (settings.store_path, settings.methods, settings.t, settings.measure, settings.clock)
    if key not in _VIEWS:
        from metaeval.report._plots import StudyView
        from metaeval.store import Store

        _VIEWS.clear()
        view = StudyView(Store(settings.store_path), methods=settings.methods, t=settings.t,
                         measure=settings.measure, clock=settings.clock)
        _VIEWS[key] = prefill(keep_intermediates(view, settings))
        return _VIEWS[key]
    # a worker kept for the next phase: the intermediates the other workers made since
    return keep_intermediates(_VIEWS[key], settings)


def keep_intermediates(view, settings: Settings):
    """Keep the view's per-dataset intermediates in the spill directory (when there is one).

    Every process of the report reads and adds to the same directory, so a worker kept
    for the next phase sees what the others computed.
    """
    from metaeval.report._intermediates import StoredIntermediates

    if settings.spill is None:
        return view
    if not (isinstance(view._cache, StoredIntermediates)
            and view._cache.spill == Path(settings.spill)):
        view._cache = StoredIntermediates(view, settings.digests, settings.spill)
    return view


def _n_scores(view) -> float:
    """How many scores the view's store holds (instances x algorithms)."""
    info = view.datasets()
    return float(info["n_instances"].sum()) * max(1, len(view.algorithms()))


def _wide(view) -> bool:
    """A study too large to read in one scan (see :func:`prefill`): one whose whole-study
    sections need the memory that the frames kept for its datasets' figures hold."""
    from metaeval.store import Store

    return isinstance(view.store, Store) and \
        _n_scores(view) * PREFILL_BYTES_PER_SCORE > PREFILL_BUDGET


def prefill(view):
    """Read every dataset's scores into the view's cache at once (one scan of the store).

    Only when reading them fits in :data:`PREFILL_BUDGET`: the one scan holds about 67
    bytes a score while it runs (measured on 15 M scores; the matrices it leaves are 9),
    in every worker process. A larger store is read dataset by dataset, as each section
    needs it.
    """
    from metaeval.store import Store
    from metaeval.store._cache import all_scores

    if isinstance(view.store, Store) and not _wide(view):
        for name, got in all_scores(view.store).items():
            view._cache.setdefault(("scores", name), got)
    return view


def run_job(settings: Settings, job: Job, known: frozenset, view=None):
    """Run the fragments of a job.

    Returns ``(fragment results, new figures, intermediates used, CPU seconds)``: a
    fragment result is ``{"html", "problems"}``; new figures map a key to
    ``{"html", "problem"}``. Figures whose key is in ``known`` are not drawn. The
    CPU seconds are this process's, from its start when it built the view for the job.
    """
    import time

    cpu = time.process_time()
    if view is None and not _VIEWS:  # a fresh worker: its start-up counts too
        cpu = 0.0
    if view is None:  # a pool worker: one thread, the other cores run the other workers
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1):
            return _run_job(settings, job, known, view, cpu)
    return _run_job(settings, job, known, view, cpu)


def _run_job(settings: Settings, job: Job, known: frozenset, view, cpu):
    import time

    from metaeval.report._backdrop import release
    from metaeval.report._page import _Page

    view = view if view is not None else _view(settings)
    if not any(f.dataset or f.early for f in job.fragments) and _wide(view):
        # the whole-study sections, drawn after every dataset's (and the largest memory
        # of a wide study), use none of the frames the datasets' figures kept here; a
        # smaller study keeps them for the next report this process draws
        release()
    page = _Page(view, dpi=settings.dpi, strict=settings.strict, known=known)
    results = {}
    # one read connection for the whole job: each read otherwise opens the file anew
    # (about 10 ms a time, and a section makes several)
    from metaeval.store import Store

    with view.store.reading() if isinstance(view.store, Store) else nullcontext():
        for frag in job.fragments:
            page.begin(settings.whole if frag.dataset is None
                       else settings.digests.get(frag.dataset))
            view.clock_reads = 0
            html = frag.build(page, **frag.kwargs)
            # on the clock: it asked for it, or it shows a whole-study figure it did not
            # draw (whose key holds the clock: whether that figure asked is unknown)
            results[frag.name] = {"html": html, "problems": page.problems,
                                  "clock": bool(view.clock_reads or (
                                      frag.dataset is None and page.reused))}
    used = set()
    if hasattr(view._cache, "used"):  # intermediates kept on disk
        used = set(view._cache.used)
        view._cache.new.clear()
        view._cache.used.clear()
    figures = page.rendered
    if settings.seal:  # the cache's text of each new figure, made here, in parallel
        from metaeval.report._cache import sealed

        for value in figures.values():
            if not value.get("transient"):
                value["sealed"] = sealed(value)
    return results, figures, used, time.process_time() - cpu


#: what the workers' fork server imports before it forks one: the main module (as every
#: process of multiprocessing does), the lifeline, then what the workers draw with
PRELOAD = ("__main__", "metaeval.report._lifeline", "metaeval.report._preload")


def _context():
    """``forkserver`` where there is one (its preload set), else ``spawn``."""
    from metaeval.report import _lifeline

    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if "forkserver" in methods:
        # a fork server started from here imports the lifeline first (a running one
        # keeps what it has: its workers still watch this process), then what the
        # workers draw with
        os.environ[_lifeline.PARENT_VARIABLE] = str(os.getpid())
        ctx.set_forkserver_preload(list(PRELOAD))
    return ctx


def start_fork_server() -> None:
    """Start the workers' fork server now, without waiting for it.

    It imports what the workers draw with (:mod:`metaeval.report._preload`, about 1.7
    CPU-s) on another core while this process goes on; nothing where there is no fork
    server, or where one runs already.
    """
    if "forkserver" in multiprocessing.get_all_start_methods():
        from multiprocessing import forkserver

        _context()
        forkserver.ensure_running()


def start_workers_early(store_path, *, jobs, cache) -> bool:
    """Start the fork server now (:func:`start_fork_server`) for a report that will draw
    on worker processes: ``jobs`` (None: all cores) above one, and no cache to draw from
    (``cache`` off, or the store holding no figure yet). True when started.

    A report whose sections are all cached draws nothing, and a fork server started for
    it would only take CPU time; one with a cache starts it when its pool starts the
    first worker (:func:`draw_pieces`), once its keys say there is something to draw.
    """
    from metaeval.store import Store
    from metaeval.store._cache import has_figures

    workers = available_cores() if jobs is None else jobs
    if workers < 2 or available_cores() < 2 or not Path(store_path).is_file():
        return False
    try:
        cached = has_figures(Store(store_path))
    except Exception:  # noqa: BLE001 - not a store, damaged...: the report says what is
        return False  # wrong (with its exit code), and draws nothing
    if cached is None or (cache and cached):
        return False
    start_fork_server()
    return True


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes (``forkserver`` where there is one, else ``spawn``).

    The workers and the fork server die with this process, however it ends (see
    :mod:`metaeval.report._lifeline`).
    """
    from metaeval.report import _lifeline

    ctx = _context()
    return ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                               initializer=_lifeline.die_with_report, initargs=(os.getpid(),))


def run_jobs(settings: Settings, jobs: list, known: frozenset, *, workers: int,
             view=None, on_done: Callable | None = None, pool=None):
    """Run jobs on ``workers`` processes (1: in this process, on ``view``).

    ``pool``: a :func:`worker_pool` to run them on (kept open: its workers keep their
    view for the next jobs); by default one is made for these jobs and closed.
    ``on_done(job)`` is called as each job finishes. Returns the merged
    ``(fragment results, new figures, intermediates used, CPU
    seconds of the jobs)``.
    """
    results: dict = {}
    figures: dict = {}
    used: set = set()
    cpu = [0.0]

    def merge(got):
        results.update(got[0])
        figures.update(got[1])
        used.update(got[2])
        cpu[0] += got[3]

    if not jobs:
        return results, figures, used, 0.0
    jobs = sorted(jobs, key=lambda j: -j.weight)  # longest first: the pool ends together
    workers = max(1, min(int(workers), len(jobs)))
    if pool is None and workers == 1:
        for job in jobs:
            merge(run_job(settings, job, known, view))
            if on_done:
                on_done(job)
        return results, figures, used, cpu[0]
    own = pool is None
    pool = worker_pool(workers) if own else pool
    try:
        futures = {pool.submit(run_job, settings, job, known): job for job in jobs}
        try:
            for fut in as_completed(futures):
                merge(fut.result())
                if on_done:
                    on_done(futures[fut])
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):  # Ctrl-C, SIGTERM, SIGHUP
                # no future cancelled first: the pool, broken, fails the pending ones
                # itself (cancelled ones would make it raise in its own thread)
                stop_workers()
            else:
                for fut in futures:
                    fut.cancel()
            raise
    finally:
        if own:
            pool.shutdown()
    return results, figures, used, cpu[0]


def stop_workers(timeout: float = 5.0) -> None:
    """End this process's worker processes now, without waiting for their jobs.

    For a report stopped by a signal: a figure being drawn may take many seconds, and
    the pool's shutdown would wait for it. Once its workers are gone the pool shuts down
    at once and this process ends normally, releasing every semaphore (no resource
    tracker warning). Only the report's pools start processes in the report's process.
    """
    children = multiprocessing.active_children()
    for child in children:
        child.terminate()
    for child in children:
        child.join(timeout)


def resolve(html: str, figures: Callable[[str], dict]) -> str:
    """Put each figure's HTML where its token is."""
    return TOKEN.sub(lambda m: figures(m.group(1))["html"], html)


_PREFIX = re.compile(r'(id="|url\(#|href="#)f([0-9a-f]{12})-')
_WORD = re.compile(r"\w")


def renumber_svg_ids(doc: str) -> str:
    """Give each inline SVG's ids a prefix of its own, numbered in page order.

    Figures are drawn in other processes or read from the cache, with ids prefixed
    by a digest of their markup; here every ``<svg>`` block (from ``<svg`` to the next
    ``</svg>``) gets ``f0-``, ``f1-``, ... in the order it appears, so the page is the
    same however it was made and a figure shown twice does not share its ids.
    """
    return "".join(renumbered_pieces(doc, iter(range(1 << 30))))


def renumbered_pieces(doc: str, counter):
    """:func:`renumber_svg_ids` of ``doc`` as the pieces of text that make it up, taking
    the numbers from ``counter``: a page is written piece by piece, never copied whole.

    The blocks are found with ``str.find``: a page is mostly PNG data, which a regular
    expression would scan character by character.
    """
    pos = at = 0
    while True:
        start = doc.find("<svg", at)
        if start < 0:
            break
        if start + 4 < len(doc) and _WORD.match(doc, start + 4):  # "<svgx": not a block
            at = start + 4
            continue
        end = doc.find("</svg>", start + 4)
        if end < 0:
            break
        end += len("</svg>")
        block = doc[start:end]
        # a block's prefixes in the order they first appear (a figure has one or two),
        # each then replaced where an id is defined or referred to
        for digest in dict.fromkeys(m[1] for m in _PREFIX.findall(block)):
            n = next(counter)
            for context in ('id="', "url(#", 'href="#'):
                block = block.replace(f"{context}f{digest}-", f"{context}f{n}-")
        if start > pos:
            yield doc[pos:start]
        yield block
        pos = at = end
    if pos == 0:
        yield doc
    elif pos < len(doc):
        yield doc[pos:]


class Pieces:
    """The drawn (or cached) fragments and figures of one report."""

    def __init__(self, cache, results: dict, fresh: dict, stats: dict, spill=None):
        self.cache = cache
        self.results = results
        self.fresh = fresh
        self.stats = stats
        self._spill = spill  # a TemporaryDirectory, removed once the cache is saved
        self._saving = None  # (thread, its result) of start_saving

    def _figure(self, key: str) -> dict:
        if key in self.fresh:
            return self.fresh[key]
        got = self.cache.get(key)
        if got is None:  # pragma: no cover - every token's figure is drawn or cached
            raise RuntimeError(f"figure {key} was neither drawn nor cached")
        return got

    def html(self, name: str) -> str:
        return resolve(self.results[name]["html"], self._figure)

    def parts(self, name: str) -> list[str]:
        """:meth:`html` as the pieces that make it up (its text between the figures, and
        the figures' HTML), to be written one after the other without a copy of it all."""
        pieces = TOKEN.split(self.results[name]["html"])
        pieces[1::2] = [self._figure(key)["html"] for key in pieces[1::2]]
        return pieces

    def problems(self, name: str) -> list[str]:
        out = []
        for p in self.results[name]["problems"]:
            text = p if isinstance(p, str) else self._figure(p[1])["problem"]
            if text:
                out.append(text)
        return out

    def start_saving(self) -> None:
        """Start writing the cache in a thread of its own (:meth:`finish` waits for it):
        the writing (DuckDB's, and the hashing of the entries) leaves the interpreter to
        the page being put together meanwhile."""
        import threading

        if self._saving is not None:
            return
        box: dict = {}

        def save():
            try:
                box["note"] = self.cache.save()
            except BaseException as exc:  # raised again by finish, in the caller's thread
                box["error"] = exc
        thread = threading.Thread(target=save, name="metaeval-report-cache", daemon=True)
        self._saving = (thread, box)
        thread.start()

    def finish(self, progress=None) -> str:
        """Save the cache (or wait for :meth:`start_saving`'s thread); a one-line account
        of what was drawn (also sent to ``progress``)."""
        try:
            if self._saving is None:
                note = self.cache.save()
            else:
                thread, box = self._saving
                thread.join()
                if "error" in box:
                    raise box["error"]
                note = box["note"]
        finally:
            if self._spill is not None:
                self._spill.cleanup()
                self._spill = None
        s = self.stats
        line = (f"{s['drawn']} of {s['total']} sections drawn, {s['cached']} from the cache; "
                f"{len(self.fresh)} figures drawn on {s['workers']} "
                f"process{'es' if s['workers'] > 1 else ''}")
        if s.get("cpu"):
            line += f" ({s['cpu']:.1f} CPU-s)"
        damaged = getattr(self.cache, "damaged", 0)
        if damaged:
            line += (f"; {damaged} damaged cache entr{'y' if damaged == 1 else 'ies'} "
                     "ignored (drawn again where needed)")
        if note:
            line += f"; cache not saved ({note})"
        if progress is not None:
            progress(s["total"], s["total"], line)
        return line


def draw_pieces(view, layout, *, dpi, strict, jobs=1, cache=False, progress=None) -> Pieces:
    """Draw what the cache lacks of ``layout`` (see ``write_report``), on ``jobs`` processes.

    ``layout``: ``(anchor, heading, job label or None, fragments)`` rows; fragments with
    the same label run as one job (label None: one job per fragment, named by its dataset).
    ``progress(done, total, label)`` is called as pieces are ready.
    """
    from metaeval.report._cache import ReportCache, make_key
    from metaeval.store import Store

    if jobs is None:
        workers = available_cores()
    elif isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer or None (all cores), got {jobs!r}")
    else:
        workers = jobs
    storable = isinstance(view.store, Store)
    if not storable:  # a stand-in store: no file to share with workers or to cache in
        cache, workers = False, 1
    rc = ReportCache(view.store if storable else None, enabled=cache)
    sizes = view.datasets().set_index("name")["n_instances"]
    results: dict = {}
    grouped: dict[str, Job] = {}
    total = 0
    for _, _, label, fragments in layout:
        for f in fragments:
            total += 1
            # a piece that never asked for the clock is kept under a key without it and
            # serves both clocks; one that did, under a key with the clock
            f.key = make_key("fragment", f.name, f"{f.build.__module__}.{f.build.__qualname__}",
                             f.kwargs, view.methods, view.t, view.measure, dpi,
                             bool(strict), rc.digest(f.dataset))
            f.clock_key = make_key(f.key, "clock", view.clock)
            hit = next((rc.get(k) for k in (f.key, f.clock_key) if rc.has(k)), None)
            if hit is not None and all(rc.has(k) for k in TOKEN.findall(hit["html"])):
                results[f.name] = hit
                continue
            name = label or f.dataset or f.name
            weight = 1e12 if label else float(sizes.get(f.dataset, 0))
            grouped.setdefault(name, Job(name, [], weight)).fragments.append(f)
    done = len(results)
    if progress is not None:
        progress(done, total, "from the cache" if done else "starting")

    def on_done(job):
        nonlocal done
        done += len(job.fragments)
        if progress is not None:
            progress(done, total, job.label)

    # the per-dataset intermediates (hardness, dissimilarities, per-instance selection) go
    # to a directory all processes share, even without a cache: a process keeps only the
    # latest in memory. The datasets are drawn first, on every core, and the whole-study
    # sections then read what they computed. With the cache on, the directory is kept
    # beside the store for the next report.
    spill = kept = None
    if storable and grouped:
        kept = intermediates_dir(view.store.path) if rc.enabled else None
        if kept is None:
            spill = tempfile.TemporaryDirectory(prefix="metaeval-report-")
    where = kept if kept is not None else (Path(spill.name) if spill is not None else None)
    # the intermediates' files are named by their dataset's digest; without the cache
    # none is taken, and this run's own directory needs none: any name per dataset will do
    digests = rc.per_dataset if rc.enabled else dict.fromkeys(sizes.index, "this run")
    # the whole-study figures' keys take the clock with the store's digest: the runtime
    # score and the rankings that weigh time are drawn again on the other clock
    whole = make_key("whole-study", rc.whole, view.clock)
    settings = Settings(str(getattr(view.store, "path", "")), view.methods, view.t,
                        view.measure, dpi, bool(strict), digests, whole,
                        None if where is None else str(where), view.clock,
                        seal=rc.enabled)
    known = frozenset(k for k, (kind, _) in rc.entries.items() if kind == "figure")
    workers = max(1, min(workers, len(grouped)))
    if grouped and workers == 1:
        prefill(keep_intermediates(view, settings))
    per_dataset = [j for j in grouped.values()
                   if all(f.dataset or f.early for f in j.fragments)]
    whole = [j for j in grouped.values() if j not in per_dataset]
    with ExitStack() as stack:  # one pool for both phases: its workers start once
        pool = stack.enter_context(worker_pool(workers)) if workers > 1 else None
        drawn, figures, used, cpu = run_jobs(settings, per_dataset, known,
                                             workers=workers, view=view,
                                             on_done=on_done, pool=pool)
        more = run_jobs(settings, whole, known, workers=workers, view=view, on_done=on_done,
                        pool=pool)
    drawn.update(more[0])
    figures.update(more[1])
    used |= more[2]
    cpu += more[3]
    # the whole-study sections read every dataset's intermediates: when they ran, what
    # they did not read is stale; otherwise all are kept for the next change
    whole_drawn = any(f.dataset is None for job in grouped.values() for f in job.fragments)
    if kept is not None and whole_drawn:
        for path in kept.iterdir():
            if path.name not in used:
                _remove(path)
    for key, value in figures.items():
        if not value.get("transient"):
            rc.put(key, "figure", value, text=value.pop("sealed", None))
    for f_list in grouped.values():
        for f in f_list.fragments:
            rc.put(f.clock_key if drawn[f.name].get("clock", True) else f.key, "fragment",
                   drawn[f.name])
    results.update(drawn)
    stats = {"total": total, "drawn": len(drawn), "cached": total - len(drawn),
             "workers": max(1, min(workers, len(grouped))), "cpu": cpu}
    return Pieces(rc, results, figures, stats, spill)


def _remove(path: Path) -> None:
    """Remove a stale file of the intermediates' directory (a directory there too)."""
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    except OSError:  # another process's, or not ours to remove: left
        pass


def intermediates_dir(store_path) -> Path | None:
    """The directory beside a store keeping its report's intermediates (``<store>.report-cache``).

    None when it cannot be made or written (a read-only directory): a temporary one is
    used instead, and the next report computes them again.
    """
    path = Path(f"{store_path}.report-cache")
    try:
        path.mkdir(exist_ok=True)
    except OSError:
        return None
    return path if os.access(path, os.W_OK | os.X_OK) else None
