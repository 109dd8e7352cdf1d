# PerilScope: `make run` serves the app, `make test` runs every test. Each step skips what is done.
SHELL := /bin/bash
.DEFAULT_GOAL := help

HOST ?= 127.0.0.1
PORT ?= 8000
PERILSCOPE_DATA_DIR ?= $(abspath ../shared/data)
export PERILSCOPE_DATA_DIR
ifdef DATABASE_URL
export DATABASE_URL
endif

# .env (from .env.example), when there is one, applied to what `make run` starts; a variable
# already set (DATABASE_URL=... make run) wins over the file.
WITH_DOTENV := $(if $(wildcard .env),.venv/bin/dotenv -f .env run --no-override --,)

PY := .venv/bin/python
UV := .venv/bin/uv
VENV_STAMP := .venv/.installed-$(shell cat pyproject.toml | md5sum | cut -c1-12)
WEB_STAMP := web/node_modules/.installed-$(shell cat web/package-lock.json 2>/dev/null | md5sum | cut -c1-12)
WEB_SOURCES := $(shell find web/src web/index.html web/vite.config.ts web/tsconfig*.json web/public -type f 2>/dev/null)

.PHONY: help run test test-fast install web-build migrate data test-python test-web test-e2e browser lint clean

help: ## Show this help
	@echo "PerilScope"
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

run: install web-build migrate data ## Install, build, migrate, load data and serve on http://$(HOST):$(PORT)
	@echo "Serving PerilScope on http://$(HOST):$(PORT)"
	$(WITH_DOTENV) .venv/bin/perilscope serve --host $(HOST) --port $(PORT)

# The three suites run side by side, each one's output printed whole when it ends: the browser
# tests wait on the browser and the server most of the time (about half a core of this 2-core
# machine) and pytest's workers wait on the processes they start, so together they keep both cores
# busy. Every test waits for the event it needs, never for a number of seconds, so a busy machine
# makes them slower, not red.
test: install web-build browser ## Install everything and run every test (Python, web unit, browser)
	$(MAKE) --jobs=3 --output-sync=target test-python test-web test-e2e

install: $(VENV_STAMP) $(WEB_STAMP) ## Python venv and web dependencies

$(VENV_STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv .venv
	test -x $(UV) || .venv/bin/pip install --quiet uv
	$(UV) pip install --python $(PY) --quiet -e ".[test]"
	rm -f .venv/.installed-* && touch $@

$(WEB_STAMP): web/package-lock.json
	cd web && npm ci --no-audit --no-fund --loglevel=error
	rm -f web/node_modules/.installed-* && touch $@

web-build: web/dist/index.html ## Build the React app into web/dist

web/dist/index.html: $(WEB_STAMP) $(WEB_SOURCES)
	cd web && npm run build

migrate: $(VENV_STAMP) ## Apply database migrations (DATABASE_URL, default SQLite under var/), then convert old exports
	$(WITH_DOTENV) .venv/bin/perilscope db upgrade
	$(WITH_DOTENV) .venv/bin/perilscope exports convert

data: migrate ## Load the reference data from PERILSCOPE_DATA_DIR (skips datasets already loaded)
	$(WITH_DOTENV) .venv/bin/perilscope data load --if-changed

browser: ## Debian's chromium for the browser tests
	@command -v chromium >/dev/null 2>&1 || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)

# Worker processes for pytest (pytest-xdist): one per core by default. Tests that share a
# server or a fixture of their module are kept on one worker (xdist_group marks, --dist loadgroup).
TEST_WORKERS ?= auto

test-python: $(VENV_STAMP) ## Python tests (SQLite and PostgreSQL; Redis), in parallel
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup

test-fast: $(VENV_STAMP) ## The unit and use-case tests alone, for the edit-test loop (under a minute)
	$(PY) -m pytest -q -n $(TEST_WORKERS) tests/unit

test-web: $(WEB_STAMP) ## Vitest unit tests of the web app
	cd web && npm test

test-e2e: $(VENV_STAMP) web-build browser ## Playwright browser tests against a fresh server
	@if [ -f web/e2e/run.sh ]; then bash web/e2e/run.sh; else echo "no browser tests yet"; fi

clean: ## Remove the venv, node_modules, builds and the local database
	rm -rf .venv web/node_modules web/dist var
