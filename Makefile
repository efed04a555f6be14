# metaeval: the two quick-start commands are `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
STORE  ?= metaeval-results/study.duckdb
REPORT ?= metaeval-results/report
# Python keeps the bytecode it compiles (pytest its rewritten test modules too), also where
# the environment sets PYTHONDONTWRITEBYTECODE: otherwise every process of a run or of the
# test suite compiles metaeval again (0.4 CPU-s each, some 40 CPU-s over the suite)
KEEP_BYTECODE := PYTHONDONTWRITEBYTECODE=

.PHONY: run test lint bench clean

# uv installs what pip would (the same versions) about three times faster: it downloads in
# parallel. It does not compile the bytecode of every file installed (8,500 files, 12.5 s
# on 2 cores); Python compiles what a process imports and keeps it (KEEP_BYTECODE), but in
# a new environment the first processes (both test workers, then every command and worker
# a test starts) compile the same 2,500 modules side by side: the suite's first run took
# 36 s and 54 CPU-s more than its second. So the packages from which a run or the tests
# import the most modules are compiled once, in parallel, when the environment is made
# (COMPILE_FIRST: some 3,000 files without their own tests, 5 s on 2 cores); a fresh
# clone's make test then took 5 + 235 s, against 269 s without it and 233 s for a second
# run in the same clone (2026-11-29, back to back; docs/performance.md). The first run
# still compiled 727 files of 56 more packages (mpmath to locket below), and every
# process metaeval's own modules: with those compiled too (src/metaeval; 2-3 s more),
# 253.8 s against 263.0 s (two fresh clones, 12:17 and 12:30 that day; the second
# also with a test that starts two worker processes fewer). A package
# that is not there is passed over, and a failure to compile only leaves the compiling to
# Python. The environment starts without pip (the 3 s of ensurepip): the Python that
# made it installs uv there, and uv installs pip with the rest. Where uv cannot be
# installed or fails, pip does it all.
COMPILE_FIRST := numpy scipy pandas sklearn matplotlib fontTools dask distributed \
  hypothesis _pytest playwright narwhals igraph rich \
  mpmath pydantic pydantic_core joblib importlinter grimp typer click tornado statsmodels \
  patsy PIL pygments jinja2 markupsafe xdist execnet pluggy pymfe duckdb yaml dateutil \
  pyarrow importlib_metadata zipp toolz zict tqdm pyparsing packaging psutil \
  sortedcontainers msgpack tblib cloudpickle locket
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv --without-pip $(VENV)
	if $(PYTHON) -m pip --python $(BIN)/python install --quiet uv \
	  && $(BIN)/python -m uv pip install --quiet --python $(BIN)/python \
	     pip -e ".[test]"; \
	then :; else \
	  ( $(BIN)/python -m pip --version >/dev/null 2>&1 || $(BIN)/python -m ensurepip --upgrade ) \
	  && $(BIN)/python -m pip install --quiet --upgrade pip \
	  && $(BIN)/python -m pip install --quiet -e ".[test]"; \
	fi
	site=$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'); \
	dirs=; for p in $(COMPILE_FIRST); do [ -d "$$site/$$p" ] && dirs="$$dirs $$site/$$p"; done; \
	[ -z "$$dirs" ] || $(BIN)/python -m compileall -q -j 0 -x '/tests?/|/testing/' $$dirs \
	  src/metaeval >/dev/null 2>&1 || :
	touch $(STAMP)

# The default study: the seeds' 8 algorithms, 10-fold CV, the quick suite (15 datasets).
# Exit code 1 means some tasks failed (listed by `metaeval status`); the report still shows them.
# A few lines of summary, then the report's path; the full tables: `metaeval hardness`
# (and rank, benchmark) with --store $(STORE).
run: $(STAMP)
	$(KEEP_BYTECODE) $(BIN)/metaeval run --suite quick --store $(STORE); rc=$$?; [ $$rc -le 1 ] || exit $$rc
	$(KEEP_BYTECODE) $(BIN)/metaeval report --store $(STORE) --out $(REPORT) --summary

# --dist loadfile: a test module runs on one worker, so its module-scoped fixtures are
# built once, not once per worker (three alternated pairs, idle: 334-336 s against
# 336-355 s with xdist's default; docs/performance.md). --no-loadscope-reorder: the
# modules are handed out in the order the tests' conftest gives them (the longest first,
# LONGEST_FIRST), not by their number of tests, which left long modules of few tests to
# the end of the run on one worker.
#
# The tests' temporary files go to memory where the system has a writable /dev/shm (Linux),
# unless TMPDIR is set: the suite commits to its small DuckDB stores some thousands of times,
# and each commit waits for the disk to sync (2 ms each on this machine's disk, under
# 0.1 ms in memory); what a test does and checks is the same.
# Only with at least 2 GB free there (a container's /dev/shm can be 64 MB; a run keeps
# some 40 MB, and pytest the last three runs').
TEST_TMPDIR := $(shell [ -d /dev/shm ] && [ -w /dev/shm ] && \
  [ "$$(df -Pk /dev/shm 2>/dev/null | awk 'NR==2 {print $$4}')" -gt 2097152 ] 2>/dev/null && \
  echo /dev/shm)
test: $(STAMP)
	$(BIN)/python -m ruff check src tests benchmarks
	TMPDIR="$${TMPDIR:-$(TEST_TMPDIR)}" $(KEEP_BYTECODE) \
	  $(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder src tests

lint: $(STAMP)
	$(BIN)/python -m ruff check src tests benchmarks

bench: $(STAMP)
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) metaeval-results .pytest_cache
	find src tests docs benchmarks -name __pycache__ -prune -exec rm -rf {} +
