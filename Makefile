# DocsChisel Studio — the two commands a newcomer needs:
#   make demo   set up, build the demo warehouse with the offline local model, open the dashboard
#   make test   set up and run the test suite
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# llama.cpp's native CPU detection crashes on some CPUs (AMX); build portable kernels.
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF
export LITELLM_LOCAL_MODEL_COST_MAP := True
export HF_HUB_OFFLINE := 1

.PHONY: setup demo test lint browser clean results

$(BIN)/docschisel: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[local,embed,test]"
	touch $@

setup: $(BIN)/docschisel

# Headless Chromium for the browser tests (Debian packages; needs root or sudo).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium chromium-driver >/dev/null; }

demo: setup
	$(BIN)/docschisel demo

test: setup browser
	$(BIN)/ruff check .
	@# pytest exits 5 when it collected no test: that is a failure, not a pass.
	$(BIN)/python -m pytest -q; rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc

# Regenerate docs/RESULTS.md from the default warehouse and every experiment warehouse in data/.
results: setup
	$(BIN)/docschisel results $(foreach w,$(filter-out data/warehouse.duckdb,$(wildcard data/*.duckdb)),--also $(w))

lint: setup
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

clean:
	rm -rf $(VENV) data/*.duckdb data/*.wal test-artifacts
