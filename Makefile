# Two commands on a fresh machine: `make demo` and `make test`. Both create .venv and install
# what they need from the package registries: `demo` the package with its [fast] extra (Numba,
# so the demo shows the bit-packed CPU engine); `test` the [dev] extra (pytest, hypothesis, ruff,
# Numba, the render extras, Triton, build) and the [docs] extra (MkDocs) after PyTorch. TORCH pins
# the CPU build that CI machines keep on disk; the extras ask only for a torch range, so pip keeps
# whatever torch is already there (a user with a GPU installs the CUDA build of torch first).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev

.PHONY: demo test lint docs clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP_RUN): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[fast]'
	touch $@

TORCH ?= torch==2.13.0

# TENSORCA_PREBUILD=0: the tests compile on this machine from empty caches (conftest turns the shipped
# kernels off, and tests/test_first_run_shipped.py builds its own), so the test install skips compiling them
# ahead (about 100 s on 2 cores); `make demo`'s install and every wheel build do compile them.
$(STAMP_DEV): pyproject.toml | $(PY)
	$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install --quiet "$(TORCH)"
	TENSORCA_PREBUILD=0 $(PY) -m pip install --quiet -e '.[dev,docs]'
	touch $@ $(STAMP_RUN)

demo: $(STAMP_RUN)
	$(PY) -m tensorca.demo

# Lint first (seconds), then the documentation site (about 20 s), then every test; tests marked `cuda`
# skip where no GPU is visible. The tests run in TEST_WORKERS processes (pytest-xdist): one a core,
# at most 4, since each worker holds its own torch, Numba and Triton. `make test TEST_WORKERS=0` runs
# them in this one process.
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ "$$n" -gt 4 ] && n=4; echo $$n)

test: lint docs
	TENSORCA_DOCS_SITE=$(CURDIR)/$(SITE) $(PY) -m pytest -q -n $(TEST_WORKERS)

lint: $(STAMP_DEV)
	$(PY) -m ruff check src tests scripts docs/hooks

# The documentation site (mkdocs.yml) into build/site; --strict: any warning (a broken link or anchor, a
# docstring griffe cannot read) fails it. tests/test_docs_site.py then checks this build (TENSORCA_DOCS_SITE).
SITE := build/site

docs: $(STAMP_DEV)
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --site-dir $(SITE)

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .hypothesis .ruff_cache
