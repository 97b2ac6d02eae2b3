# tablectl: the two set-up commands of the README, and the gates of CI.
#   make demo   installs everything into .venv and runs the demo: a simulated Mambo table
#               dealt by the random dealer on the dealer's display (q quits), no hardware
#   make test   installs everything into .venv and runs every gate and the whole test suite
#   make test-fast  the fast tier only: the tests marked fast (no thread, pty or subprocess),
#               for use while working; docs/testing.md
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The tests in two worker processes (pytest-xdist), each test file whole in one of them
# (docs/testing.md has the figures). PYTEST_WORKERS=0 runs them in this one process (for
# --pdb, say: make test-fast PYTEST_WORKERS=0).
PYTEST_WORKERS ?= 2
PYTEST_PARALLEL := $(if $(filter 0,$(PYTEST_WORKERS)),,-n $(PYTEST_WORKERS) --dist loadfile)

.PHONY: install demo test test-fast lint typecheck pytest bench clean

$(BIN)/tablectl: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --editable '.[test]'
	touch $@

install: $(BIN)/tablectl

demo: install
	$(BIN)/tablectl demo --game mambo

lint: install
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .

typecheck: install
	$(BIN)/mypy --strict controller drivers simulator benchmarks

pytest: install
	$(BIN)/python -m pytest $(PYTEST_PARALLEL)

test: lint typecheck pytest

# A second -m replaces pyproject's addopts -m "not slow", so "not slow" is said again here.
test-fast: install
	$(BIN)/python -m pytest $(PYTEST_PARALLEL) -m "fast and not slow"

bench: install
	$(BIN)/python benchmarks/evaluators.py
	$(BIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
