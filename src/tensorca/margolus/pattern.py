"""Native block patterns, and Golly's emulated patterns turned into them and back.

A :class:`BlockPattern` is what a block world needs: the cells, the rule, the phase (where the
next step's blocks are), the topology, and which cells are on the grid at all (``present``:
Golly's emulated patterns may leave cells off-grid). :func:`from_emulated` reads a
:class:`~tensorca.Pattern` whose rule is one of Golly's ``*Margolus*emulated`` rule files (as
``tensorca.load`` returns it), :func:`to_emulated` writes it back; with no steps in between the
round trip gives the same cells, rule, topology and origin.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..errors import PatternError, RuleError, UsageError
from ..pattern import Pattern
from ..topology import Topology
from .emulated import decode, encode, recognise
from .rules import BlockRule, block_rule
from .simulate import next_phase, resolve_phase, run

__all__ = ["BlockPattern", "from_emulated", "to_emulated"]


@dataclasses.dataclass(frozen=True, eq=False)
class BlockPattern:
    """A native block world.

    - ``cells``: ``(H, W)`` uint8 states ``0..n-1`` (cells not present hold 0).
    - ``rule``: the :class:`~tensorca.margolus.BlockRule` (or its text, parsed).
    - ``phase``: ``(py, px)``, the parity of the next step's block corners (an int ``p`` means ``(p, p)``).
    - ``topology``: a :class:`~tensorca.topology.Topology`, torus or bounded plane of the cells' size
      (default: the torus).
    - ``present``: None (every cell on the grid) or ``(H, W)`` bool; blocks with absent cells stay.
    - ``origin``, ``generation``: as :class:`~tensorca.Pattern`'s.
    - ``emulated``, ``emulated_topology``: the Golly rule and topology a pattern read by
      :func:`from_emulated` had (:func:`to_emulated` writes them back).
    """

    cells: np.ndarray
    rule: BlockRule
    phase: tuple[int, int] = (0, 0)
    topology: Topology | None = None
    present: np.ndarray | None = None
    origin: tuple[int, int] = (0, 0)
    generation: int = 0
    emulated: Any = None
    emulated_topology: Topology | None = None

    def __post_init__(self) -> None:
        cells = np.asarray(self.cells)
        if cells.ndim != 2:
            raise UsageError(f"BlockPattern.cells must be (H, W), got shape {cells.shape}")
        set_ = object.__setattr__
        set_(self, "cells", cells.astype(np.uint8))
        set_(self, "rule", block_rule(self.rule))
        set_(self, "phase", resolve_phase(self.phase))
        height, width = cells.shape
        topology = Topology.torus(width, height) if self.topology is None else self.topology
        if topology.kind not in ("torus", "plane") or topology.shape != (height, width):
            raise UsageError(f"a BlockPattern of {width}x{height} cells runs on a torus or plane of that size, "
                             f"not {topology}")
        set_(self, "topology", topology)
        if self.present is not None:
            present = np.asarray(self.present, dtype=bool)
            if present.shape != cells.shape:
                raise UsageError(f"present has shape {present.shape}, the cells {cells.shape}")
            set_(self, "present", None if present.all() else present)

    def run(self, generations: int, backend: str = "auto") -> BlockPattern:
        """This world ``generations`` steps later (negative: earlier, for a reversible rule)."""
        cells = run(self.cells, self.rule, generations, phase=self.phase, topology=self.topology,  # type: ignore[arg-type]
                    present=self.present, backend=backend)
        return dataclasses.replace(self, cells=cells, phase=next_phase(self.phase, generations),
                                   generation=self.generation + generations)

    @property
    def population(self) -> int:
        """Cells in a state other than 0 (present ones)."""
        return int(np.count_nonzero(self.cells))


def from_emulated(pattern: Pattern) -> BlockPattern:
    """The native block pattern of a Golly emulated-Margolus ``pattern`` (module docstring).

    :class:`RuleError` when its rule is not a Margolus emulation; :class:`PatternError` when the
    cells' background bits do not form one block lattice (the pattern was edited without Golly's
    import/export scripts)."""
    native = recognise(pattern.rule) if pattern.rule is not None else None
    if native is None:
        name = "no rule" if pattern.rule is None else f"rule {pattern.rule.canonical()!r}"
        raise RuleError(f"{name} is not one of Golly's emulated Margolus rules")
    topology = pattern.topology
    cells = np.asarray(pattern.cells)
    if topology.bounded:
        if topology.kind not in ("torus", "plane") or topology.shift_x or topology.shift_y:
            raise PatternError(f"an emulated Margolus pattern on {topology} has no block form (torus or plane only)")
        grid = np.zeros(topology.shape, dtype=np.uint8)
        grid[: cells.shape[0], : cells.shape[1]] = cells
        native_topology = topology
    else:  # off-grid all around: a bounded plane of the pattern's box runs it exactly
        grid = cells
        native_topology = Topology.plane(cells.shape[1], cells.shape[0])
    found = decode(grid)
    if found is None:
        raise PatternError("the emulated cells' background (odd and even states) is not one 2x2 block lattice")
    states, present, phase = found
    if topology.kind == "torus" and (grid.shape[0] % 2 or grid.shape[1] % 2):
        raise PatternError(f"an emulated Margolus torus needs an even size, not {topology}")
    return BlockPattern(states, native, phase, native_topology, present, pattern.origin, pattern.generation,
                        pattern.rule, topology)


def to_emulated(block: BlockPattern, rule: Any = None) -> Pattern:
    """The Golly emulated :class:`~tensorca.Pattern` of ``block``: its ``emulated`` rule (or
    ``rule``, a Golly rule whose tree emulates ``block.rule``) and topology, cells in Golly states."""
    from ..rules import parse_rule

    target = rule if rule is not None else block.emulated
    if target is None:
        raise UsageError("this BlockPattern did not come from an emulated pattern: pass rule= (a Golly "
                         "*Margolus*emulated rule, e.g. 'BBM-Margolus-emulated')")
    if isinstance(target, str):
        target = parse_rule(target)
    native = recognise(target)
    if native is None or native != block.rule:
        raise RuleError(f"rule {target.canonical()!r} does not emulate block rule {block.rule}")
    grid = encode(block.cells, block.present, block.phase)
    topology = block.emulated_topology or block.topology
    return Pattern(cells=grid, rule=target, topology=topology, origin=block.origin, generation=block.generation)
