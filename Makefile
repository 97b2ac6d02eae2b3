# tablectl: the two set-up commands of the README, the gates of CI, and the wheelhouse.
#   make demo   installs the runtime only into .venv and runs the demo: a simulated Mambo
#               table dealt by the random dealer on the dealer's display (q quits), no hardware
#   make test   installs the test tools too (.[test]) and runs every gate and the whole suite
#   make test-reliability  the reliability tier: every fault of the slow tier at a size CI
#               runs after make test (crash runs, floor faults, journal crash, line-fault soaks)
#   make test-fast  the fast tier only: the tests marked fast (no thread, pty or subprocess),
#               for use while working; docs/testing.md
#   make wheelhouse  wheels of tablectl and of every runtime dependency, with the files an
#               install copies, in wheelhouse/: a table PC installs from it offline
#               (docs/deploy.md, step 3)
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# What the venv holds, one marker each, remade when pyproject.toml changes: the runtime
# (make demo) and the test tools (make test). Two markers, so make test after make demo
# still installs the test extras, and make demo never installs them.
RUNTIME := $(VENV)/.installed-runtime
TESTING := $(VENV)/.installed-test
WHEELHOUSE := wheelhouse
# The tests in worker processes (pytest-xdist), each test file whole in one of them: four for
# the default suite, which waits on servers and processes a third of its time (four fill both
# cores), two for the fast tier and the reliability tier, which are CPU-bound (docs/testing.md,
# Workers, has the figures). PYTEST_WORKERS=N runs any of them in N; PYTEST_WORKERS=0 in this
# one process (for --pdb, say: make test-fast PYTEST_WORKERS=0).
PYTEST_WORKERS ?=
parallel = $(if $(filter 0,$(1)),,-n $(1) --dist loadfile)
SUITE_PARALLEL := $(call parallel,$(or $(PYTEST_WORKERS),4))
TIER_PARALLEL := $(call parallel,$(or $(PYTEST_WORKERS),2))
# Python's bytecode cache for the test runs and every tablectl they start, kept in the venv (not
# the tree) and written even where PYTHONDONTWRITEBYTECODE is set: without it each worker
# compiles and rewrites every test module again on every run (6 s of CPU a worker, half of it
# saved) and each of the suite's hundreds of tablectl processes compiles what it imports
# (docs/testing.md, Workers). A cache elsewhere than __pycache__ leaves the bytecode pip and
# Python's install wrote unused, so make install-test writes the cache of the standard library,
# the venv's packages and tablectl's own once (compileall), as pip does at an install: the
# first make test of a fresh clone then compiles nothing twice.
PYCACHE := PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(abspath $(VENV))/pycache
PYTEST := $(PYCACHE) $(BIN)/python -m pytest

.PHONY: install install-test demo test test-fast test-reliability lint typecheck pytest bench wheelhouse clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUNTIME): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --editable .
	touch $@

# The test extras hold the runtime too: both markers are then true.
$(TESTING): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --editable '.[test]'
	$(PYCACHE) $(BIN)/python -m compileall -q -j 0 \
		-x '/(test|tests|idlelib|tkinter|turtledemo|lib2to3|ensurepip|site-packages|dist-packages)/' \
		"$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')"
	$(PYCACHE) $(BIN)/python -m compileall -q -j 0 \
		"$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" \
		controller drivers simulator
	touch $@ $(RUNTIME)

install: $(RUNTIME)

install-test: $(TESTING)

demo: $(RUNTIME)
	$(BIN)/tablectl demo --game mambo

# The floor's demo (docs/floor.md, The demo): the runtime and the floor extra (psycopg, which
# make demo does not install), then tablectl floor demo: its own nats-server and PostgreSQL
# (the Debian packages nats-server and postgresql-15), 3 simulated tables, 20 hands each.
FLOOR := $(VENV)/.installed-floor
.PHONY: floor-demo

$(FLOOR): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --editable '.[floor]'
	touch $@ $(RUNTIME)

floor-demo: $(FLOOR)
	$(BIN)/tablectl floor demo

lint: $(TESTING)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache

typecheck: $(TESTING)
	$(BIN)/mypy --strict controller drivers simulator benchmarks

pytest: $(TESTING)
	$(PYTEST) $(SUITE_PARALLEL)

test: lint typecheck pytest

# A second -m replaces pyproject's addopts -m "not slow", so "not slow" is said again here.
test-fast: $(TESTING)
	$(PYTEST) $(TIER_PARALLEL) -m "fast and not slow"

# The reliability tier (docs/testing.md): each of its tests is slow too, so -m slow still
# runs them with the rest of the slow tier.
test-reliability: $(TESTING)
	$(PYTEST) $(TIER_PARALLEL) -m reliability

bench: $(TESTING)
	$(BIN)/python benchmarks/evaluators.py
	$(BIN)/python benchmarks/engine.py

# Needs the package index (network) or pip's cache; the wheels are pure Python but cryptography's (manylinux, for this machine's CPU architecture: build on one like the tables'), for any
# Debian 12 PC. files/ holds docs/ and udev/: the unit files, the rules, the examples.
wheelhouse: | $(BIN)/python
	rm -rf $(WHEELHOUSE)
	$(BIN)/python -m pip wheel --quiet --wheel-dir $(WHEELHOUSE) .
	mkdir -p $(WHEELHOUSE)/files
	cp -r docs udev $(WHEELHOUSE)/files/

clean:
	rm -rf $(VENV) $(WHEELHOUSE) .mypy_cache .pytest_cache .ruff_cache .hypothesis
