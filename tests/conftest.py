"""Shared fixtures: Golly's golden cases, small helpers, and the ``cuda`` marker's skip.

Markers (registered in pyproject.toml): ``slow`` (seconds each: deselect with ``-m "not slow"``)
and ``cuda`` (needs a CUDA device: skipped where torch sees none).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).parent / "data"

# auto's background compiles (tensorca.background) start worker processes that would compete with the
# test workers for the cores; tests that exercise them turn them on for their own subprocess.
os.environ.setdefault("TENSORCA_BACKGROUND_COMPILE", "0")
# bitpack-cpu runs each rule's own kernels in tests whatever another test compiled before (under the
# default, "auto", a generic module compiled earlier in the process would stand in for a new rule's);
# the tests of that policy set it themselves.
os.environ.setdefault("TENSORCA_BITPACK_KERNELS", "specialised")
# Kernels shipped with the package (tensorca.prebuild, in an installed wheel or after an editable
# install's build) would make every empty cache warm: the tests compile on this machine, for its own
# CPU model, as without them; tests/test_first_run_shipped.py turns them on where it tests them.
os.environ.setdefault("TENSORCA_SHIPPED_KERNELS", "0")


def golden_cases() -> list[dict]:
    """The cases Golly computed (``tests/data/golden_cases.jsonl``, one JSON object a line)."""
    with open(DATA / "golden_cases.jsonl") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def sha256_grid(grid: np.ndarray) -> str:
    """The golden files' hash: sha256 of the (H, W) uint8 grid, row-major."""
    return hashlib.sha256(np.ascontiguousarray(grid, dtype=np.uint8).tobytes()).hexdigest()


def golden_start_grid(case: dict) -> np.ndarray:
    """A bounded case's initial state on its full (height, width) grid: RLE (x, y) at [y, x]."""
    from tensorca import io as pattern_io

    pattern = pattern_io.loads(case["initial_rle"])
    grid = np.zeros((case["height"], case["width"]), dtype=np.uint8)
    grid[: pattern.cells.shape[0], : pattern.cells.shape[1]] = pattern.cells
    return grid


def check_rule_error(text: str, position: int, *words: str) -> None:
    """``parse_rule(text)`` raises RuleError at ``position``, naming the text, with every word in its message."""
    from tensorca.errors import RuleError
    from tensorca.rules import parse_rule

    with pytest.raises(RuleError) as info:
        parse_rule(text)
    err = info.value
    msg = str(err)
    assert err.position == position, msg
    assert f"position {position}" in msg and repr(text) in msg
    for w in words:
        assert w.lower() in msg.lower(), msg


@pytest.fixture(autouse=True)
def _auto_starts_fresh():
    """Each test sees ``auto`` as a new process does: no one-time costs declined before
    (:func:`tensorca.costmodel._rent_or_buy` keeps a per-process account of them) and no decision
    remembered (:data:`tensorca.costmodel._DECISIONS`)."""
    from tensorca import costmodel

    costmodel._FORGONE.clear()
    costmodel._DECISIONS.clear()
    yield


@pytest.fixture(scope="session")
def golden() -> dict[str, dict]:
    return {case["name"]: case for case in golden_cases()}


def cuda_available() -> bool:
    """True when torch is installed and sees a CUDA device."""
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip ``cuda``-marked tests where no CUDA device is visible (torch is imported only if some are)."""
    marked = [item for item in items if item.get_closest_marker("cuda") is not None]
    if marked and not cuda_available():
        skip = pytest.mark.skip(reason="needs a CUDA device")
        for item in marked:
            item.add_marker(skip)
