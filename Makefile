# Two commands on a fresh machine with only Python: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit browser bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,rl,plot,bench,rllib]'
	$(BIN)/python -m solver.kernels.warm
	$(BIN)/python -m env.kernels.warm
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

# The report's browser tests need headless Chromium: Debian's package, installed when missing (CI runs as root).
# Without it (no apt-get, no root) those tests are skipped, never failed.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium) || \
	  echo "chromium could not be installed: the browser tests will be skipped"

test: lint typecheck browser unit

bench: $(STAMP)
	$(BIN)/python -m benchmarks.scaling
	$(BIN)/python -m benchmarks.quality
	$(BIN)/python -m benchmarks.env_throughput

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
