# Two commands do all the set-up: `make demo` and `make test`.
# Each creates .venv on first use and installs the package with its test and
# lint dependencies; a change to pyproject.toml reinstalls.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install test unit integration lint format demo bench smoke dist test-pythons clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test,lint]"
	touch $(STAMP)

test: unit integration

# Unit tests run with sockets disabled except loopback (the emulator).
unit: $(STAMP)
	$(PY) -m pytest tests/unit_tests -q --disable-socket --allow-hosts=127.0.0.1,localhost

integration: $(STAMP)
	$(PY) -m pytest tests/integration_tests -q

lint: $(STAMP)
	$(PY) -m ruff check langchain_perplexity_strict tests benchmarks
	$(PY) -m ruff format --check langchain_perplexity_strict tests benchmarks
	$(PY) -m mypy

format: $(STAMP)
	$(PY) -m ruff format langchain_perplexity_strict tests benchmarks
	$(PY) -m ruff check --fix langchain_perplexity_strict tests benchmarks

demo: $(STAMP)
	$(PY) -m langchain_perplexity_strict demo

# A short live tour of both surfaces against the real API (PPLX_API_KEY or PERPLEXITY_API_KEY);
# never part of `make test`. Prints each check and whether it passed.
smoke: $(STAMP)
	@if [ -z "$$PPLX_API_KEY$$PERPLEXITY_API_KEY" ]; then \
		echo "make smoke: skipped, no PPLX_API_KEY or PERPLEXITY_API_KEY set (it talks to the real Perplexity API)"; \
	else $(PY) -m pytest tests/integration_tests/test_real_api.py -v -rs -p no:randomly; fi

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

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
	$(PY) -m pip install --quiet ".[dist]"
	rm -rf dist
	$(PY) -m build --quiet --outdir dist .
	$(PY) -m twine check --strict dist/*
	$(PY) tests/check_wheel.py dist

clean:
	rm -rf $(VENV) .venv-3.* .mypy_cache .ruff_cache .hypothesis dist
