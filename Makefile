# Every target builds its own virtual environment from this repo's files.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# Benchmarks run in an environment of their own: d20 (the comparison for checks)
# pins an old lark-parser, so it is installed there with --no-deps.
BENCH  := .venv-bench

.PHONY: demo test lint bench clean chromium postgresql nodejs screenshots st-check image

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/gmtags demo

lint: $(STAMP)
	$(BIN)/ruff check gmtags tests benchmarks scripts
	$(BIN)/ruff format --check gmtags tests benchmarks scripts
	$(BIN)/mypy gmtags
	$(BIN)/lint-imports

# The browser tests drive Debian's Chromium (playwright's own download cannot be reached).
chromium:
	@command -v chromium >/dev/null 2>&1 || { apt-get update && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }

# The PostgreSQL tests start a server of their own from Debian's binaries (never the system's).
postgresql:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { apt-get update && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql; }

# The SillyTavern extension's tests run on node's own test runner (Debian's nodejs).
nodejs:
	@command -v node >/dev/null 2>&1 || { apt-get update && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y nodejs; }

test: lint chromium postgresql nodejs
	node --test tests/clients/
	$(BIN)/pytest

# The README's screenshots of the pages (docs/*.png), taken by the browser tests.
screenshots: $(STAMP) chromium
	GMTAGS_SHOTS=$(CURDIR)/docs $(BIN)/pytest -q tests/browser

# gmtags played inside a real SillyTavern with the extension (not run by CI: it needs a
# SillyTavern checkout with `npm install` done): its Chat Completion, then its Text
# Completion. Writes docs/sillytavern-*.png (ST_SHOTS=dir writes them there instead).
st-check: $(STAMP) chromium nodejs
	@test -n "$(ST_DIR)" || { echo "usage: make st-check ST_DIR=/path/to/SillyTavern [ST_SHOTS=dir]"; exit 2; }
	$(BIN)/python scripts/st_check.py --st-dir "$(ST_DIR)" --api chat $(if $(ST_SHOTS),--shots "$(ST_SHOTS)")
	$(BIN)/python scripts/st_check.py --st-dir "$(ST_DIR)" --api text $(if $(ST_SHOTS),--shots "$(ST_SHOTS)")

# The container image (docs/hosting.md), tagged with the version and latest. Not run by CI:
# it needs a container engine and the base image's registry. CONTAINER=podman works too
# (--format docker keeps the HEALTHCHECK, which OCI images drop); IMAGE_ARGS adds options.
CONTAINER ?= docker
image:
	$(CONTAINER) build $(if $(findstring podman,$(CONTAINER)),--format docker) $(IMAGE_ARGS) \
		-t gmtags:$$(sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml) -t gmtags:latest .

$(BENCH)/.installed: pyproject.toml
	$(PYTHON) -m venv $(BENCH)
	$(BENCH)/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]' cachetools
	$(BENCH)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps d20
	touch $(BENCH)/.installed

bench: $(BENCH)/.installed
	$(BENCH)/bin/python benchmarks/run.py

clean:
	rm -rf $(VENV) $(BENCH) build dist .pytest_cache .mypy_cache .ruff_cache
