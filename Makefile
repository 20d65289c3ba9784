# Two commands on a fresh machine: `make demo` and `make test`. Both create .venv and install
# what they need from the package registries (NumPy, rich; PyTorch, pytest and hypothesis for
# tests). TORCH pins the CPU build that CI machines keep on disk; a user with a GPU installs the
# CUDA build of torch first (pip then keeps it: the pin is only used when torch is missing).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev

.PHONY: demo test clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP_RUN): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e .
	touch $@

TORCH ?= torch==2.13.0

$(STAMP_DEV): pyproject.toml | $(PY)
	$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install --quiet "$(TORCH)"
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@ $(STAMP_RUN)

demo: $(STAMP_RUN)
	$(PY) -m tensorca.demo

test: $(STAMP_DEV)
	$(PY) -m pytest -q

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .hypothesis
