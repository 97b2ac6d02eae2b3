# tablectl: the two set-up commands of the README, and the gates of CI.
#   make demo   installs everything into .venv and runs the demo: a simulated Mambo table
#               dealt by the random dealer on the dealer's display (q quits), no hardware
#   make test   installs everything into .venv and runs every gate and the whole test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install demo test lint typecheck pytest bench clean

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
	$(BIN)/python -m pytest

test: lint typecheck pytest

bench: install
	$(BIN)/python benchmarks/evaluators.py
	$(BIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
