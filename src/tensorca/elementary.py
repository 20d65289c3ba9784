"""Native one-dimensional elementary cellular automata (Wolfram's 256 rules).

Unlike Golly's two-dimensional ``Wn`` emulation (which accepts only even ``n``), this runs any of
the 256 rules on a ring or a dead-bounded line and returns the whole space-time history.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from .errors import GridError, RuleError, UsageError


def elementary_table(rule: int) -> np.ndarray:
    """``(8,)`` uint8: next state for the neighbourhood ``4*left + 2*centre + right``."""
    if isinstance(rule, bool) or not isinstance(rule, (int, np.integer)) or not 0 <= rule <= 255:
        raise RuleError(f"elementary rule must be an integer 0..255, got {rule!r}")
    return ((int(rule) >> np.arange(8)) & 1).astype(np.uint8)


def elementary(
    rule: int,
    initial: np.ndarray,
    steps: int,
    boundary: Literal["periodic", "dead"] = "periodic",
) -> np.ndarray:
    """History of a 1-D elementary CA: ``(steps + 1, W)`` uint8, row 0 = ``initial``.

    ``initial`` is a ``(W,)`` array of 0/1 cells. ``boundary="periodic"`` joins the ends into a
    ring; ``"dead"`` treats cells beyond the ends as 0.
    """
    table = elementary_table(rule)
    row = np.asarray(initial)
    if row.ndim != 1 or row.size == 0:
        raise GridError(f"initial must be a non-empty 1-D array of cells, got shape {row.shape}")
    if row.size and (row.min() < 0 or row.max() > 1):
        raise GridError("initial cells must be 0 or 1")
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 0:
        raise UsageError(f"steps must be a non-negative integer, got {steps!r}")
    if boundary not in ("periodic", "dead"):
        raise UsageError(f"boundary must be 'periodic' or 'dead', got {boundary!r}")
    history = np.zeros((int(steps) + 1, row.size), dtype=np.uint8)
    history[0] = row
    mode = "wrap" if boundary == "periodic" else "constant"
    for t in range(int(steps)):
        padded = np.pad(history[t], 1, mode=mode)
        index = 4 * padded[:-2] + 2 * padded[1:-1] + padded[2:]
        history[t + 1] = table[index]
    return history
