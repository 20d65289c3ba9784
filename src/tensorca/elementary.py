"""Native one-dimensional cellular automata: Wolfram's 256 elementary rules, and Domany–Kinzel.

Unlike Golly's two-dimensional ``Wn`` emulation (which accepts only even ``n``), this runs any of
the 256 rules on a ring or a dead-bounded line and returns the whole space-time history;
:func:`domany_kinzel` does the same for the probabilistic Domany–Kinzel CA, with the draws of the
two-dimensional rule ``DK:p1=..,p2=..`` (:mod:`tensorca.families.stochastic.rule`).
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


def domany_kinzel(
    p1: float,
    p2: float,
    initial: np.ndarray,
    steps: int,
    *,
    seed: int = 0,
    boundary: Literal["periodic", "dead"] = "periodic",
) -> np.ndarray:
    """History of the Domany–Kinzel probabilistic CA: ``(steps + 1, W)`` uint8, row 0 = ``initial``.

    Cell ``x`` at time ``t + 1`` looks at ``x - 1`` and ``x + 1`` at time ``t``: with ``n`` of them
    alive it becomes alive with probability 0 (``n = 0``), ``p1`` (``n = 1``) or ``p2`` (``n = 2``).
    The draws are those of the rule ``DK:p1=..,p2=..`` (:mod:`tensorca.families.stochastic.rule`) with
    ``seed``: row ``t`` of the history equals row ``t`` of ``tensorca.run(grid, "DK:...", steps,
    seed=seed)`` on a ``(steps + 1, W)`` torus (``"periodic"``) or plane (``"dead"``) whose top row is
    ``initial``. ``p1 = p2 = 1`` fills the light cone's sublattice; ``p1 = 1, p2 = 0`` is rule 90.
    """
    from .randomness import bernoulli_batch, grid_keys, quantize

    row = np.asarray(initial)
    if row.ndim != 1 or row.size == 0:
        raise GridError(f"initial must be a non-empty 1-D array of cells, got shape {row.shape}")
    if row.size and (row.min() < 0 or row.max() > 1):
        raise GridError("initial cells must be 0 or 1")
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 0:
        raise UsageError(f"steps must be a non-negative integer, got {steps!r}")
    if boundary not in ("periodic", "dead"):
        raise UsageError(f"boundary must be 'periodic' or 'dead', got {boundary!r}")
    for name, p in (("p1", p1), ("p2", p2)):
        try:
            quantize(p)
        except UsageError as exc:
            raise RuleError(f"Domany–Kinzel {name}: {exc}") from None
    width = row.size
    history = np.zeros((int(steps) + 1, width), dtype=np.uint8)
    history[0] = row
    if steps == 0:
        return history
    ys = np.arange(1, int(steps) + 1, dtype=np.int64)  # row t is time t (the 2-D rule's draws, generation 0)
    xs = np.arange(width, dtype=np.int64)
    one = bernoulli_batch(grid_keys(seed, 0, 0, np.zeros(1, np.int64)), p1, ys, xs)[0]
    two = bernoulli_batch(grid_keys(seed, 0, 1, np.zeros(1, np.int64)), p2, ys, xs)[0]
    mode = "wrap" if boundary == "periodic" else "constant"
    for t in range(int(steps)):
        padded = np.pad(history[t], 1, mode=mode)
        n = padded[:-2] + padded[2:]
        history[t + 1] = ((n == 1) & one[t]) | ((n == 2) & two[t])
    return history
