# Fresh-machine entry points. `make demo` runs the main job; `make test` runs the test suite.
# Both create .venv and install the project (offline-capable registries only) on first use.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench install

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/grace serve --demo

test: $(STAMP)
	$(BIN)/ruff check engine llm_adapters audit spec tests benchmarks
	$(BIN)/mypy engine llm_adapters audit spec
	$(BIN)/pytest -p no:cacheprovider

bench: $(STAMP)
	$(BIN)/grace bench decide
