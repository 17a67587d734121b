# Two commands on a fresh machine with only Python: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,rl,plot,bench,rllib]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/proliferate demo

lint: $(STAMP)
	$(BIN)/ruff check solver env tests benchmarks
	$(BIN)/ruff format --check solver env tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/python -m pytest -q

test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/python -m benchmarks.scaling
	$(BIN)/python -m benchmarks.quality
	$(BIN)/python -m benchmarks.env_throughput

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
