"""Running block rules: :func:`run` on arrays and tensors, forwards and (reversible rules) backwards.

``run(cells, rule, generations)`` advances ``(H, W)`` or ``(B, H, W)`` cells; NumPy in gives NumPy
out, a torch tensor gives a tensor on its device. The state of a block world is its cells *and*
its phase (where the next step's blocks are, :mod:`tensorca.margolus.reference`), so the phase
after a run is ``phase ^ (generations % 2)``: :func:`next_phase`.

A negative ``generations`` runs a reversible rule backwards: each step back applies the inverse
rule at the phase the undone step used, the phases in reverse order, so
``run(run(x, r, n, phase=p), r, -n, phase=next_phase(p, n))`` is ``x`` exactly.

Backends: ``"numpy"`` (the reference), ``"torch"`` (tensor operations on any device), ``"numba"``
(the fast CPU kernel, :mod:`tensorca.margolus.fast`), ``"auto"`` (a tensor runs on torch; an array
on numba when it is installed, else numpy).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..arrays import is_tensor
from ..errors import GridError, TopologyError, UsageError
from ..topology import Topology, parse_topology
from .reference import step_numpy
from .rules import BlockRule, block_rule

__all__ = ["BACKENDS", "next_phase", "resolve_phase", "run", "torus_flag"]

BACKENDS = ("auto", "numpy", "torch", "numba")


def resolve_phase(phase: int | tuple[int, int]) -> tuple[int, int]:
    """``phase`` as ``(py, px)``: an int ``p`` is ``(p % 2, p % 2)`` (the generation's parity)."""
    if isinstance(phase, (int, np.integer)) and not isinstance(phase, bool):
        return (int(phase) % 2, int(phase) % 2)
    try:
        py, px = (int(v) for v in phase)  # type: ignore[union-attr]
    except (TypeError, ValueError):
        raise UsageError(f"phase must be an int or a (y, x) pair of 0/1, got {phase!r}") from None
    if py not in (0, 1) or px not in (0, 1):
        raise UsageError(f"phase must be a (y, x) pair of 0/1, got {phase!r}")
    return (py, px)


def next_phase(phase: int | tuple[int, int], generations: int) -> tuple[int, int]:
    """The phase after ``generations`` steps (forwards or backwards) from ``phase``."""
    py, px = resolve_phase(phase)
    flip = abs(int(generations)) % 2
    return (py ^ flip, px ^ flip)


def torus_flag(topology: str | Topology, shape: tuple[int, int]) -> bool:
    """True for a torus, False for a bounded plane: ``"torus"``, ``"plane"``, a Golly suffix
    (``":T64,64"``) or a :class:`Topology` of either kind whose size is ``shape`` ``(H, W)``."""
    if isinstance(topology, str) and topology in ("torus", "plane"):
        return topology == "torus"
    value = parse_topology(topology) if isinstance(topology, str) else topology
    if not isinstance(value, Topology) or value.kind not in ("torus", "plane") or value.shift_x or value.shift_y:
        raise TopologyError(f"block rules run on a torus or a bounded plane, not {topology}")
    if value.shape != tuple(shape):
        raise GridError(f"cells of shape {tuple(shape)} (H, W) do not match topology {value}")
    return value.kind == "torus"


def run(cells: Any, rule: str | BlockRule, generations: int = 1, *, phase: int | tuple[int, int] = (0, 0),
        topology: str | Topology = "torus", present: Any = None, backend: str = "auto") -> Any:
    """Advance ``cells`` by ``generations`` steps of the block ``rule`` (negative: backwards).

    ``cells``: ``(H, W)`` or ``(B, H, W)`` integer states ``0..n-1`` (NumPy array or torch tensor;
    returned as ``uint8`` of the same kind, on the same device). ``rule``: a :class:`BlockRule` or
    its text (``"BBM"``, ``"MS,D..."``). ``phase``: where the first step's blocks are (module
    docstring). ``topology``: ``"torus"`` (the default; even sizes), ``"plane"`` or a
    :class:`~tensorca.topology.Topology`. ``present``: None, or a bool mask broadcastable to the
    cells; blocks holding an absent cell stay as they are. ``backend``: one of :data:`BACKENDS`.
    """
    rule = block_rule(rule)
    if isinstance(generations, bool) or not isinstance(generations, (int, np.integer)):
        raise UsageError(f"generations must be a whole number, got {generations!r}")
    if backend not in BACKENDS:
        raise UsageError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    start = resolve_phase(phase)
    steps = int(generations)
    if steps < 0:  # undo: the inverse rule, from the phase the last step used
        rule, steps, start = rule.inverse(), -steps, next_phase(start, 1)
    tensor = is_tensor(cells)
    single = cells.ndim == 2
    if cells.ndim not in (2, 3):
        raise GridError(f"cells must be (H, W) or (B, H, W), got shape {tuple(cells.shape)}")
    torus = torus_flag(topology, tuple(int(s) for s in cells.shape[-2:]))
    batch = cells[None] if single else cells
    _check_states(batch, rule)
    chosen = _choose(backend, tensor)
    if chosen == "torch":
        import torch

        from .torch_step import advance_torch

        grid = batch if tensor else torch.from_numpy(np.ascontiguousarray(batch, dtype=np.uint8))
        mask = None if present is None else torch.as_tensor(np.asarray(present) if not is_tensor(present)
                                                            else present, dtype=torch.bool, device=grid.device)
        out = advance_torch(grid.to(torch.uint8), rule, steps, start, torus, mask)
        if not tensor:
            out = out.cpu().numpy()
    else:
        grid = batch.detach().cpu().numpy() if tensor else np.asarray(batch)
        grid = grid.astype(np.uint8)
        mask = None if present is None else np.asarray(present.detach().cpu() if is_tensor(present) else present,
                                                       dtype=bool)
        out = _advance_numpy(grid, rule, steps, start, torus, mask, chosen)
        if tensor:
            import torch

            out = torch.from_numpy(out).to(cells.device)
    return out[0] if single else out


def _choose(backend: str, tensor: bool) -> str:
    if backend != "auto":
        return backend
    if tensor:
        return "torch"
    from .._jit import HAVE_NUMBA

    return "numba" if HAVE_NUMBA else "numpy"


def _advance_numpy(grid: np.ndarray, rule: BlockRule, steps: int, phase: tuple[int, int], torus: bool,
                   present: np.ndarray | None, backend: str) -> np.ndarray:
    if backend == "numba":
        from .fast import advance_numba

        return advance_numba(grid, rule, steps, phase, torus, present)
    py, px = phase
    out = grid.copy()
    for s in range(steps):
        out = step_numpy(out, rule, (py ^ (s & 1), px ^ (s & 1)), torus, present)
    return out


def _check_states(cells: Any, rule: BlockRule) -> None:
    if cells.numel() == 0 if is_tensor(cells) else cells.size == 0:
        return
    top = int(cells.max())
    low = int(cells.min())
    if low < 0 or top >= rule.n_states:
        raise GridError(f"cells hold state {top if top >= rule.n_states else low}; block rule {rule} has "
                        f"states 0..{rule.n_states - 1}")
