# Jipsa: `make run` starts everything, `make test` proves it. See README.md.
SHELL := /bin/bash
# uv from PATH, else a copy of its own in a private venv: PEP 668 systems (Debian 12, Ubuntu 24.04)
# refuse `pip install --user`, but any Python 3.11 with its venv module can make a venv.
TOOLS := .tools
UV ?= $(shell command -v uv 2>/dev/null || echo $(TOOLS)/bin/uv)
VENV := .venv
PY := $(VENV)/bin/python
PYTEST := $(VENV)/bin/pytest

.PHONY: install run test test-fast bench eval chaos load lint fmt schemas clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml uv.lock | $(UV)
	$(UV) sync --frozen
	@touch $@

$(TOOLS)/bin/uv:
	python3 -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet uv

run: install  ## servers (embedded unless NATS_URL / DATABASE_URL are set), migrations, every service
	$(VENV)/bin/jipsa run

test: install  ## unit + contract + integration + fault against real NATS and Postgres
	$(PYTEST) -q -ra

test-fast: install  ## the tiers that need no servers
	$(PYTEST) -q -m "unit or contract"

bench: install  ## figures beside baselines measured in the same run: backbone, legal search, LangGraph design
	$(PY) -m tests.bench.backbone
	$(PY) -m tests.bench.sealing
	$(PY) -m tests.bench.legal
	$(PY) -m tests.bench.compare

eval: install  ## every dev set end to end through the WebSocket, rules mode, one table (--details lists misses)
	$(PY) -m tests.eval $(ARGS)

chaos: install  ## 200 runs while services are SIGKILLed, Postgres restarted, NATS wiped (--runs N via ARGS); runs by outcome, exits 1 on a run with no final event or an error
	$(PY) -m tests.chaos.run $(ARGS)

load: install  ## 50 concurrent WebSocket sessions asking a mixed set (--sessions N --questions M via ARGS); exits 1 on a partial or error answer
	$(PY) -m tests.load.run $(ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) -m contracts.export --check
	$(PY) -m services.platform.config_reference --check
	$(VENV)/bin/lint-imports
	$(PYTEST) -q tests/contract/test_house_rules.py
	$(VENV)/bin/mypy

fmt: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

schemas: install  ## re-export contracts/schemas and contracts/asyncapi.json from the models
	$(PY) -m contracts.export

clean:
	rm -rf .data .pytest_cache
