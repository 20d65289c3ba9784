"""The ``hashlife`` engine: HashLife behind the engine interface, native on the unbounded plane.

The simulator hands an unbounded-plane pattern to :meth:`HashLifeEngine.universe` and steps the
quadtree (the registry marks the engine ``unbounded_native``; see :mod:`tensorca.unbounded`).
:meth:`HashLifeEngine.advance` keeps the engine contract on bounded grids too, exactly and
slowly, as Golly's HashLife does on a bounded grid (step 1): each generation the grid is padded
by one cell as its topology joins its edges, built as a tree, stepped once and cropped, so every
topology kind is exact. ``auto`` never picks it there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engines.base import Engine
from ..errors import EngineError, GridError
from ..rules.base import Rule
from ..topology import Topology, padding_index
from .universe import HashLife, Universe, why_not

#: Node budget of the universes that run bounded grids (one generation of a grid at a time).
SCRATCH_BYTES = 256 * 2**20


class HashLifeEngine(Engine):
    """Gosper's HashLife (two-state 3x3 rules without B0), registered as ``hashlife``."""

    name = "hashlife"
    array_module = "numpy"
    bytes_per_cell = 48.0  # bounded grids: padded copy, tree nodes (~37 bytes per 8x8 leaf), output

    def __init__(self) -> None:
        self._compiled: dict[str, HashLife] = {}
        self._universes: dict[str, Universe] = {}

    def hashlife(self, rule: Rule, max_bytes: int | None = None) -> HashLife:
        """``rule`` compiled for HashLife (cached per rule and budget)."""
        key = f"{rule.canonical()}@{max_bytes}"
        if key not in self._compiled:
            if len(self._compiled) >= 64:
                self._compiled.clear()
            self._compiled[key] = HashLife(rule, max_bytes=max_bytes)
        return self._compiled[key]

    def _scratch(self, rule: Rule) -> Universe:
        """A universe kept per rule for bounded grids: its store (and the results cached in it)
        is reused from call to call (a new store costs milliseconds; a generation, less)."""
        key = rule.canonical()
        if key not in self._universes:
            if len(self._universes) >= 8:
                self._universes.clear()
            self._universes[key] = self.hashlife(rule, SCRATCH_BYTES).empty()
        return self._universes[key]

    def supports(self, rule: Rule, topology: Topology) -> bool:
        """Bounded grids of every kind for HashLife's rules; the unbounded plane is the simulator's
        to hand over (:meth:`universe`), as for every engine."""
        return topology.bounded and why_not(rule) is None

    def why_unsupported(self, rule: Rule, topology: Topology) -> str:
        reason = why_not(rule)
        if reason is not None:
            return reason
        return f"engine 'hashlife' takes bounded grids here; the simulator runs it on {topology} (run a Pattern)"

    def universe(self, cells: np.ndarray, origin: tuple[int, int], rule: Rule,
                 max_bytes: int | None = None) -> Universe:
        """A universe of ``(H, W)`` 0/1 ``cells`` with ``cells[0, 0]`` at ``origin``."""
        return self.hashlife(rule, max_bytes).from_cells(cells, origin)

    def start(self, pattern: Any, rule: Rule, max_bytes: int | None = None) -> Universe:
        """A universe of ``pattern`` (a :class:`~tensorca.Pattern`) to step: a copy of its tree
        (rebuilt for another rule or budget), else a tree built from its cells."""
        if pattern.tree is not None:
            same = pattern.tree.rule.canonical() == rule.canonical()
            return pattern.tree.copy(None if same else rule, max_bytes=max_bytes)
        return self.universe(pattern.cells, pattern.origin, rule, max_bytes)

    def advance(self, cells: Any, rule: Rule, topology: Topology, generations: int) -> np.ndarray:
        return self._bounded(cells, rule, topology, generations, None)

    def advance_observed(self, cells: Any, rule: Rule, topology: Topology,
                         generations: int) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`advance`, also the population of every generation: ``(generations + 1, B)``
        int64, row 0 the start (read from the tree each generation)."""
        populations = np.zeros((generations + 1, max(len(np.asarray(cells)), 0)), np.int64)
        return self._bounded(cells, rule, topology, generations, populations), populations

    def _bounded(self, cells: Any, rule: Rule, topology: Topology, generations: int,
                 populations: np.ndarray | None) -> np.ndarray:
        """One generation at a time: pad by one cell as the topology joins its edges, build, step
        once, crop. ``populations`` (``(generations + 1, B)``), when given, is filled."""
        if not self.supports(rule, topology):
            raise EngineError(self.why_unsupported(rule, topology))
        cells = np.asarray(cells)
        if cells.ndim != 3 or cells.shape[1:] != topology.shape:
            raise GridError(f"hashlife takes (B, H, W) cells of the topology's shape {topology.shape}, "
                            f"got {cells.shape}")
        if cells.size and cells.max() > 1:
            raise GridError(f"hashlife runs two-state rules: a cell holds state {int(cells.max())}")
        out = np.array(cells, dtype=np.uint8, copy=True)
        if populations is not None:
            populations[0] = np.count_nonzero(out, axis=(1, 2))
        if generations == 0 or out.size == 0:
            return out
        rows, cols, valid = padding_index(topology, 1)
        height, width = topology.shape
        u = self._scratch(rule)
        for b in range(out.shape[0]):
            grid = out[b]
            for gen in range(1, generations + 1):
                padded = np.where(valid, grid[rows, cols], 0).astype(np.uint8)
                u.reset(padded, (-1, -1)).step(1)
                grid = u.crop(0, 0, width, height)
                if populations is not None:
                    populations[gen, b] = np.count_nonzero(grid)
            out[b] = grid
        return out
