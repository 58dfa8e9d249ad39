# Two commands do all the set-up: `make demo` and `make test`.
# Each creates .venv on first use and installs the package with its test and
# lint dependencies; a change to pyproject.toml reinstalls, and a .venv built
# by another Python than $(PYTHON) is rebuilt, not reused.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Which interpreter $(PYTHON) is (path and version); .venv records the one it was built with.
# (Written so that Python 2 runs it too, and is then told it is too old rather than that it does not run.)
PYTHON_ID := $(shell $(PYTHON) -c 'import os, sys; sys.stdout.write("%s %d %d %d" % ((os.path.realpath(sys.executable),) + tuple(sys.version_info[:3])))' 2>/dev/null)
NEED_PYTHON := 3.10

.PHONY: install test test-fast unit integration lint format demo bench weight smoke record dist test-pythons test-lowest \
	test-readme test-under-load clean

# Python's bytecode caches stay on whatever the shell says: with PYTHONDONTWRITEBYTECODE set, every pytest
# process (the controller and each xdist worker) compiles the package and re-rewrites every test module's
# asserts, about 5 s of CPU per process, on every run. The caches go to __pycache__/ (ignored by git).
unexport PYTHONDONTWRITEBYTECODE

install: $(STAMP)

# Rebuild when .venv was made by another Python, or is broken (its interpreter gone).
ifneq ($(PYTHON_ID),$(shell cat $(VENV)/.python-id 2>/dev/null))
$(STAMP): FORCE
endif
ifeq ($(wildcard $(PY)),)
$(STAMP): FORCE
endif
FORCE:

$(STAMP): pyproject.toml
	@[ -n "$(PYTHON_ID)" ] || { \
		echo "make: PYTHON=$(PYTHON) does not run here; run again with PYTHON= the path of a Python 3.10 or newer"; \
		exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null || { \
		echo "make: $(PYTHON) is not Python $(NEED_PYTHON) or newer, which this package needs; run again with PYTHON= a 3.10+ interpreter"; \
		exit 1; }
	@if [ -d $(VENV) ] && [ "$$(cat $(VENV)/.python-id 2>/dev/null)" != "$(PYTHON_ID)" ]; then \
		echo "make: $(VENV) was built by another Python; rebuilding it with $(PYTHON)"; rm -rf $(VENV); fi
	@if [ -d $(VENV) ] && [ ! -x $(PY) ]; then \
		echo "make: $(VENV) is broken (no $(PY)); rebuilding it"; rm -rf $(VENV); fi
	@echo "make: setting up $(VENV) (once): the package with its test and lint tools, installed quietly; about 20 to 60 s"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip || { rm -rf $(VENV); exit 1; }
	$(PY) -m pip install --quiet -e ".[test,lint]" || { rm -rf $(VENV); exit 1; }
	echo "$(PYTHON_ID)" > $(VENV)/.python-id
	touch $(STAMP)

# One pytest run over unit and integration tests, on four worker processes (pytest-xdist) that steal
# work from each other: many integration tests wait on the emulator's clock rather than compute, so
# more workers than cores keeps both cores busy. WORKERS=0 runs everything in this process.
# Every test but the real-API ones may connect to loopback only (tests/conftest.py).
WORKERS ?= 4
PYTEST := $(PY) -m pytest -q -n $(WORKERS) --dist worksteal

test: $(STAMP)
	$(PYTEST) tests/unit_tests tests/integration_tests

# The quick loop while iterating (`make test` is the gate): every unit test, and the
# integration tests that take the main paths through the emulator (invoke and stream on both surfaces,
# application histories, continuations, bad input, provider registration, search and embeddings), with
# 100 examples per property instead of 2,000. Not in it: the contract corpus, faults and streams on the
# emulator's clock, the CLI's subprocesses, the README examples, LangChain's standard integration suite.
# One test: .venv/bin/python -m pytest tests/unit_tests/test_sse.py::test_name -q
FAST_INTEGRATION := chat_model histories continuations transport bad_input provider vocabulary secrets \
	search_embeddings
test-fast: $(STAMP)
	HYPOTHESIS_PROFILE=dev $(PYTEST) tests/unit_tests $(FAST_INTEGRATION:%=tests/integration_tests/test_%.py)

unit: $(STAMP)
	$(PYTEST) tests/unit_tests

integration: $(STAMP)
	$(PYTEST) tests/integration_tests

lint: $(STAMP)
	$(PY) -m ruff check langchain_perplexity_strict tests benchmarks
	$(PY) -m ruff format --check langchain_perplexity_strict tests benchmarks
	$(PY) -m mypy

format: $(STAMP)
	$(PY) -m ruff format langchain_perplexity_strict tests benchmarks
	$(PY) -m ruff check --fix langchain_perplexity_strict tests benchmarks

demo: $(STAMP)
	$(PY) -m langchain_perplexity_strict demo

# A short live tour of both surfaces against Perplexity's API (PPLX_API_KEY or PERPLEXITY_API_KEY);
# never part of `make test`. Refuses to run against the emulator or any other base URL.
smoke: $(STAMP)
	@$(PY) tests/smoke_preflight.py
	$(PY) -m pytest tests/integration_tests/test_real_api.py -v -rs

# Record real exchanges for a fixed set of calls (tests/recording.py's CALLS) as VCR cassettes in
# tests/cassettes/recorded/, secrets scrubbed; `make test` replays them (tests/integration_tests/test_recorded.py).
# Needs PPLX_API_KEY (or PERPLEXITY_API_KEY); refuses the emulator and any other base URL, as `make smoke` does.
record: $(STAMP)
	$(PY) tests/recording.py

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

# The package's weight figures (issue 36): modules and functions on a call's path, names, prose, lines.
# SINCE=REV: the median commit subject of REV..HEAD (all commits when unset).
weight: $(STAMP)
	$(PY) benchmarks/weight.py $(SINCE)

# The suite on the lowest and highest supported Python, each in its own venv (.venv-3.10, .venv-3.13).
PYTHONS ?= 3.10 3.13
test-pythons:
	@for v in $(PYTHONS); do \
		echo "== Python $$v"; \
		interpreter=$$(PYENV_VERSION=$$(pyenv versions --bare 2>/dev/null | grep "^$$v" | tail -1) \
			python$$v -c 'import sys; print(sys.executable)') || { echo "no Python $$v found"; exit 1; }; \
		$$interpreter -m venv .venv-$$v && .venv-$$v/bin/python -m pip install --quiet --upgrade pip && \
		.venv-$$v/bin/python -m pip install --quiet -e ".[test]" && \
		HYPOTHESIS_PROFILE=dev .venv-$$v/bin/python -m pytest tests -q -p no:randomly || exit 1; \
	done

# Build the sdist and wheel, check them with twine, and check the wheel ships py.typed and the licence.
dist: $(STAMP)
	$(PY) -m pip install --quiet -e ".[dist]"  # editable, as make install left it: a plain install would shadow the working tree
	rm -rf dist
	$(PY) -m build --quiet --outdir dist .
	$(PY) -m twine check --strict dist/*
	$(PY) tests/check_wheel.py dist

# The suite on the lowest versions pyproject.toml allows for the direct dependencies (.venv-lowest).
test-lowest: $(STAMP)
	$(PY) tests/lowest_constraints.py > .lowest-constraints.txt
	$(PYTHON) -m venv .venv-lowest
	.venv-lowest/bin/python -m pip install --quiet --upgrade pip
	.venv-lowest/bin/python -m pip install --quiet -c .lowest-constraints.txt -e ".[test]"
	.venv-lowest/bin/python -m pip check
	HYPOTHESIS_PROFILE=dev .venv-lowest/bin/python -m pytest tests -q -n $(WORKERS) --dist worksteal \
		-W "error:Unrecognized keys in model profile:UserWarning"

# `make test` while every core is kept busy and a random test worker is paused (SIGSTOP) for 0.05-0.8 s every
# 0.05-0.5 s, RUNS times in a row (tests/under_load.py): a test that needs an idle machine fails here.
RUNS ?= 5
test-under-load: $(STAMP)
	$(PY) tests/under_load.py --runs $(RUNS) -- $(MAKE) --no-print-directory test

# Each README Python block in a fresh venv holding only what the README installs for it.
test-readme: $(STAMP)
	$(PY) tests/readme_in_clean_venvs.py

clean:
	rm -rf $(VENV) .venv-3.* .venv-lowest .venv-readme-* .lowest-constraints.txt .mypy_cache .ruff_cache .hypothesis dist
