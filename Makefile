# Every target builds its own virtual environment from this repo's files.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/gmtags demo

lint: $(STAMP)
	$(BIN)/ruff check gmtags tests benchmarks
	$(BIN)/ruff format --check gmtags tests benchmarks
	$(BIN)/mypy gmtags

test: lint
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache
