# Fresh-machine entry points. `make demo` runs the main job; `make test` runs the test suite.
# Both create .venv and install the project (offline-capable registries only) on first use.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast lint bench install system-deps postgres test-service load-bench openapi

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --progress-bar off -e '.[dev]'  # prints what it fetches: a long install is never silent
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/grace serve --demo

# Test scratch files (SQLite databases, servers' data folders, Chromium profiles, caches) live in memory when the
# machine has a writable tmpfs at /dev/shm. The tests kill processes, never the machine, so the page cache is all
# the durability they exercise; on this VM's disk the fsyncs of scratch files stalled whole runs (7.5% of a run's
# CPU time in iowait, one 20 s stall). `make test TEST_TMPDIR=` keeps them on disk.
TEST_TMPDIR ?= $(shell d=/dev/shm/grace-tests-$$(id -u); mkdir -p "$$d" 2>/dev/null && [ -w "$$d" ] && echo "$$d")
WITH_TEST_TMP = $(if $(TEST_TMPDIR),TMPDIR=$(TEST_TMPDIR))

# Everything, on every core (pytest-xdist; a test module stays on one worker so its fixtures are built once).
# Lint (ruff, mypy, import contracts) runs beside the tests at the lowest CPU priority, so it takes only the gaps
# where workers wait on servers (a cold mypy costs 30 s of CPU); its output is printed after theirs, and either
# failing fails the target.
LINT = $(BIN)/ruff check engine llm_adapters audit spec tests benchmarks && $(BIN)/mypy engine llm_adapters audit spec \
	&& $(BIN)/lint-imports --no-cache
test: $(STAMP)
	@log=$$(mktemp); ( nice -n 19 sh -c '$(LINT)'; rc=$$?; echo "lint finished at $$(date +%T)"; exit $$rc ) \
		> $$log 2>&1 & lint=$$!; \
	$(WITH_TEST_TMP) $(BIN)/pytest -p no:cacheprovider -n auto --dist loadfile --durations=30; tests=$$?; \
	echo "tests finished at $$(date +%T)"; \
	wait $$lint; linted=$$?; echo "--- lint (ruff, mypy, import contracts) ---"; cat $$log; rm -f $$log; \
	echo "tests exit $$tests, lint exit $$linted"; test $$tests -eq 0 && test $$linted -eq 0

# The edit loop of the kernel: decision layer, spec differential (small sample), audit chain, golden
# conversations; no slow sweeps, no browser, no servers. Everything else runs in `make test`.
FAST_TESTS = tests/core tests/differential tests/audit tests/golden
test-fast: $(STAMP)
	$(BIN)/lint-imports --no-cache
	$(WITH_TEST_TMP) GRACE_DIFFERENTIAL_CASES=200 $(BIN)/pytest -p no:cacheprovider -n auto --dist loadfile -m "not slow and not browser" $(FAST_TESTS)

bench: $(STAMP)
	$(BIN)/grace bench decide

# Service, storage and browser suites (PostgreSQL tests run when GRACE_TEST_POSTGRES_URL is set:
# `make system-deps postgres` then `source /tmp/grace_postgres.env`).
system-deps:
	bash scripts/install_system_deps.sh

postgres:
	@bash scripts/start_postgres.sh >/dev/null
	@echo "PostgreSQL ready: source /tmp/grace_postgres.env"

test-service: $(STAMP)
	$(WITH_TEST_TMP) $(BIN)/pytest -p no:cacheprovider tests/storage tests/service tests/browser

load-bench: $(STAMP)
	$(BIN)/python -m benchmarks.load_bench

openapi: $(STAMP)
	$(BIN)/python -m engine.service.openapi --write
