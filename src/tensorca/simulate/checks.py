"""Checks of ``run``/``resume``/``explain`` arguments: every bad value is a :class:`UsageError` that names it.

They run before anything is allocated or stepped, so a mistake costs nothing.
"""

from __future__ import annotations

import math
import numbers
import os
from pathlib import Path
from typing import Any

import numpy as np

from ..arrays import is_tensor, max_state, value_range_error
from ..engines.base import Engine
from ..errors import GridError, UsageError
from ..observers import Population
from ..rules.base import Rule


def count(value: Any, name: str, minimum: int = 0) -> int:
    """``value`` as a Python int ``>= minimum``; :class:`UsageError` for bools, floats, strings or less."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        what = "a non-negative integer" if minimum == 0 else f"an integer >= {minimum}"
        raise UsageError(f"{name} must be {what}, got {value!r}")
    return int(value)


def byte_budget(max_bytes: Any) -> int | None:
    """``max_bytes`` as a positive int (a finite whole number of bytes), or None."""
    if max_bytes is None:
        return None
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, numbers.Real):
        raise UsageError(f"max_bytes must be a positive number of bytes, got {max_bytes!r}")
    if not math.isfinite(max_bytes) or max_bytes < 1:
        raise UsageError(f"max_bytes must be a finite positive number of bytes, got {max_bytes!r}")
    return int(max_bytes)


def checkpoint_options(checkpoint: Any, every: Any) -> tuple[Path | None, int | None]:
    """The checkpoint path and interval; ``every`` needs a path."""
    if every is not None:
        every = count(every, "checkpoint_every", 1)
        if checkpoint is None:
            raise UsageError("checkpoint_every needs checkpoint=FILE")
    if checkpoint is None:
        return None, every
    if not isinstance(checkpoint, (str, os.PathLike)):
        raise UsageError(f"checkpoint must be a file path, not {type(checkpoint).__name__}")
    return Path(checkpoint), every


def observer(observe: Any) -> Population | None:
    if observe is not None and not isinstance(observe, Population):
        raise UsageError(f"observe must be a tensorca.Population observer, not {type(observe).__name__}")
    return observe


def backend_value(backend: Any) -> str | Engine:
    if not isinstance(backend, (str, Engine)):
        raise UsageError(f"backend must be an engine name (or 'auto') or an Engine, not {type(backend).__name__}")
    return backend


def channel_count(rule: Rule) -> int | None:
    """The channels of a multi-channel rule's cells (their axis before H, W), None for every other rule."""
    return rule.state_space.channels


def single_grid(grid: Any, rule: Rule) -> bool:
    """True for one grid, False for a batch; :class:`GridError` for any other layout. A multi-channel
    rule takes ``(C, H, W)`` or ``(B, C, H, W)`` cells, every other rule ``(H, W)`` or ``(B, H, W)``."""
    dims = tuple(int(s) for s in grid.shape)
    channels = channel_count(rule)
    if channels is None:
        if len(dims) not in (2, 3):
            raise GridError(f"grid must be (H, W) or (B, H, W), got shape {dims}")
        return len(dims) == 2
    if len(dims) not in (3, 4) or dims[-3] != channels:
        raise GridError(f"rule {rule.canonical()!r} has {channels} channels: cells must be ({channels}, H, W) or "
                        f"(B, {channels}, H, W), got shape {dims}")
    return len(dims) == 3


def check_states(cells: Any, rule: Rule) -> None:
    """Raise :class:`GridError` if a cell holds a state the rule does not have (one read of the max);
    for a continuous rule, a value outside its range (or NaN)."""
    space = rule.state_space
    if not space.discrete:
        why = value_range_error(cells, space.low, space.high)
        if why is not None:
            raise GridError(f"{why} of rule {rule.canonical()!r}")
        return
    if not (cells.numel() if is_tensor(cells) else cells.size) or int(cells.max()) < rule.n_states:
        return  # the common case: one reduction (NumPy's max is several times faster than argmax)
    found = max_state(cells)
    if found is not None:
        state, where = found
        raise GridError(
            f"cell {where} holds state {state}, but rule {rule.canonical()!r} has only "
            f"{rule.n_states} states (0..{rule.n_states - 1})"
        )
