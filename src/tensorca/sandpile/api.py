"""``stabilize`` and ``identity``: arguments checked, a backend chosen, results in the user's form.

Backends: ``"numpy"`` (the reference, :mod:`.reference`), ``"numba"`` (:mod:`.fast`, the
``[fast]`` extra) and ``"torch"`` (:mod:`.tensor`, any device). All three give the same piles and
counts: both are unique (the Abelian property), and each backend only chooses a legal order of
topplings. ``"auto"`` takes torch for a tensor (on its device) or when a ``device`` is named, else
Numba where it is installed, else NumPy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..arrays import TORCH_INSTALL, check_device, is_tensor
from ..errors import EngineError, MissingDependencyError, UsageError
from .group import identity_pile
from .inputs import check_heights, restore
from .layout import Layout
from .model import Sandpile, check_model, sandpile, too_many_grains, topology_kind
from .odometer import Solver

BACKENDS = ("numpy", "numba", "torch")
_FAST_INSTALL = "pip install 'tensorca[fast]'"


def choose_backend(backend: object, tensor_input: bool, device: object) -> str:
    """The backend that runs: ``backend`` checked, ``"auto"`` resolved (module docstring)."""
    from ..engines.registry import installed

    if not isinstance(backend, str) or backend not in (*BACKENDS, "auto"):
        raise EngineError(f"unknown sandpile backend {backend!r}: use 'auto', {', '.join(map(repr, BACKENDS))}")
    if device is not None and backend in ("numpy", "numba"):
        raise UsageError(f"device={device!r} applies to the torch backend, not {backend!r}")
    if backend == "auto":
        backend = "torch" if tensor_input or device is not None else "numba" if installed("numba") else "numpy"
    if backend == "numba" and not installed("numba"):
        raise MissingDependencyError("sandpile backend 'numba' needs Numba, which is not installed here",
                                     package="numba", install=_FAST_INSTALL)
    if backend == "torch":
        if not installed("torch"):
            raise MissingDependencyError("sandpile backend 'torch' needs PyTorch, which is not installed here",
                                         package="torch", install=TORCH_INSTALL)
        if device is not None:
            check_device(device)
    return backend


def _numba_int32(cells: np.ndarray, start: np.ndarray | None, layout: Layout) -> bool:
    """Whether every height and count of a plane solve from ``start`` surely fits in int32.

    On a plane no cell topples more than ``max(cells)`` times the expected time a random walk
    needs to leave the grid, below ``side**2`` for the shorter side, doubled here for a folded half.
    """
    if layout.closed or "wrap" in layout.sides:
        return False
    side = 2 * min(layout.height, layout.width) + 2
    counts = int(cells.max()) * side * side + (0 if start is None else int(start.max()))
    return counts * (layout.threshold + len(layout.stencil) + 1) < 2**31


def host_solver(name: str, device: Any = None) -> Solver:
    """``name``'s solve with NumPy arrays in and out (the identity's multiscale driver is NumPy)."""
    if name == "numpy":
        from .reference import solve

        return solve
    if name == "numba":
        from .fast import solve as fast_solve

        def numba_solve(cells: np.ndarray, start: np.ndarray | None, layout: Layout):
            dtype = np.int32 if _numba_int32(cells, start, layout) else np.int64
            return fast_solve(cells, start, layout, dtype)

        return numba_solve

    import torch

    from .tensor import solve as torch_solve

    where = torch.device(device if device is not None else "cpu")

    def tensor_solve(cells: np.ndarray, start: np.ndarray | None, layout: Layout):
        begin = None if start is None else torch.from_numpy(start).to(where)
        heights, counts, rounds = torch_solve(torch.from_numpy(cells).to(where), begin, layout)
        return heights.cpu().numpy(), counts.cpu().numpy(), rounds

    return tensor_solve


def stabilize(grid: Any, model: str = "sandpile", *, topology: Any = "plane", neighbourhood: str = "vonneumann",
              threshold: int | None = None, counts: bool = False, backend: str = "auto",
              device: Any = None) -> Any:
    """The stable pile of ``grid``, and with ``counts=True`` how often each cell toppled.

    ``grid``: grains per cell, ``(H, W)`` or a batch ``(B, H, W)``, a NumPy array or torch tensor of
    any integer dtype, no height negative. ``model``: ``"sandpile"`` (the Abelian sandpile).
    ``topology``: ``"plane"`` (the default: grains toppled off the edge are lost), ``"torus"`` (none
    are), a Golly suffix (``":P64,64"``) or a :class:`~tensorca.topology.Topology` of the grid's size.
    ``neighbourhood``: ``"vonneumann"`` (4 neighbours) or ``"moore"`` (8). ``threshold``: grains at
    which a cell topples, the number of neighbours by default; larger destroys the difference at
    each toppling. ``backend``: ``"auto"``, ``"numpy"``, ``"numba"`` or ``"torch"`` (module
    docstring); ``device``: the torch device to compute on.

    Returns the stable pile, same shape, array type (a tensor on the input's device) and dtype as
    ``grid``; with ``counts=True`` the pair ``(pile, topples)``, topples int64. Every backend returns
    the same values: a sandpile's stable pile and topple counts are unique.

    On a torus with ``threshold`` equal to the number of neighbours no grain leaves: a grid holding
    more grains than ``(threshold - 1) * cells`` raises
    :class:`~tensorca.sandpile.NeverStabilizesError` before toppling, and so does any pile once
    every one of its cells has toppled (such a pile never stabilises), so no call runs forever.
    Bad input raises :class:`~tensorca.errors.GridError` (dtype, negative or huge heights, shape),
    :class:`~tensorca.errors.RuleError` (model), :class:`~tensorca.errors.UsageError`
    (neighbourhood, threshold, counts, device), :class:`~tensorca.errors.TopologyError` or
    :class:`~tensorca.errors.EngineError` (backend).
    """
    check_model(model)
    checked = sandpile(neighbourhood, threshold)
    if not isinstance(counts, bool):
        raise UsageError(f"counts must be True or False, got {counts!r}")
    heights = check_heights(grid, checked.threshold)
    shape = tuple(heights.cells.shape[1:])
    pile = Sandpile(checked.neighbourhood, checked.threshold, topology_kind(topology, shape))
    name = choose_backend(backend, is_tensor(grid), device)
    if pile.closed:
        cells = shape[0] * shape[1]
        for item, grains in enumerate(heights.grains):
            if grains > (pile.threshold - 1) * cells:
                raise too_many_grains(grains, cells, pile.threshold, item if heights.batched else None)
    layout = Layout.of(pile, *shape)
    if name == "torch":
        import torch

        from .tensor import solve as torch_solve

        where = torch.device(device) if device is not None else (grid.device if is_tensor(grid) else "cpu")
        stable, topples, _ = torch_solve(torch.as_tensor(heights.cells).to(where), None, layout)
    else:
        cells = heights.cells.cpu().numpy() if is_tensor(heights.cells) else heights.cells
        stable, topples, _ = host_solver(name)(cells, None, layout)
    result = restore(stable, heights, grid)
    return (result, restore(topples, heights, grid, keep_dtype=False)) if counts else result


def identity(n: int, m: int | None = None, *, neighbourhood: str = "vonneumann", threshold: int | None = None,
             backend: str = "auto", device: Any = None) -> Any:
    """The identity element of the sandpile group of an ``n x m`` grid (``n`` rows, ``m`` columns,
    ``m = n`` by default) whose edge is the sink, as for ``stabilize(..., topology="plane")``.

    Adding it to any recurrent pile and stabilising gives that pile back. Computed exactly as
    ``stab(2c - stab(2c))``, ``c`` the all-``threshold - 1`` pile, from guessed topple counts
    (:mod:`tensorca.sandpile.group`): a 1024^2 identity takes seconds with Numba. Returns
    ``(n, m)`` int64, a NumPy array, or a tensor on ``device`` with ``backend="torch"``.
    """
    for name, value in (("n", n), ("m", m)):
        if value is None and name == "m":
            continue
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise UsageError(f"identity {name} must be a positive integer, got {value!r}")
    pile = sandpile(neighbourhood, threshold)
    name = choose_backend(backend, False, device)
    unit = identity_pile(pile, int(n), int(n if m is None else m), host_solver(name, device))
    if name == "torch":
        import torch

        return torch.from_numpy(unit).to(device if device is not None else "cpu")
    return unit
