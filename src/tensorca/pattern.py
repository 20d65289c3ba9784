"""The :class:`Pattern` value: a grid of cell states plus what a pattern file says about it.

A pattern is what :mod:`tensorca.io` reads and writes: the cells as a ``(H, W)`` ``uint8`` array
indexed ``[y, x]``, the rule and topology (if the file names them), where the array sits in
pattern coordinates, and the file's name, author and comments. It knows nothing about engines.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from .crop import bounding_box, crop
from .errors import GridError
from .topology import Topology

if TYPE_CHECKING:  # rules is a sibling layer; only its type is needed here
    from .rules.base import Rule


@dataclass(eq=False)
class Pattern:
    """A pattern: cells, rule, topology, position and metadata.

    - ``cells``: ``(H, W)`` ``uint8`` array indexed ``[y, x]``, states ``0..n-1`` (0 dead); or, for a
      continuous rule (Lenia), float32/float64 values in [0, 1] (other float dtypes become float64).
    - ``rule``: the file's rule, or ``None`` when the file names none (simulators default to
      ``B3/S23``).
    - ``topology``: from the rule's suffix (``:T64,64``); :meth:`Topology.unbounded` when the
      file has no suffix.
    - ``origin``: ``(x, y)`` pattern coordinates of ``cells[0, 0]`` (x right, y down).
    - ``generation``: generation count stored in the file (RLE ``#CXRLE Gen=``), else 0.
    - ``name``, ``author``, ``comments``: metadata lines (``#N``, ``#O``, ``#C`` in RLE).
    """

    cells: np.ndarray
    rule: Rule | None = None
    topology: Topology = field(default_factory=Topology.unbounded)
    origin: tuple[int, int] = (0, 0)
    generation: int = 0
    name: str | None = None
    comments: list[str] = field(default_factory=list)
    author: str | None = None

    def __post_init__(self) -> None:
        cells = np.asarray(self.cells)
        if cells.ndim != 2:
            raise GridError(f"Pattern.cells must be 2-D (H, W), got shape {cells.shape}")
        if np.issubdtype(cells.dtype, np.floating):  # continuous rules (Lenia): values kept as floats
            if cells.size and not np.isfinite(cells).all():
                raise GridError("Pattern.cells holds NaN or infinite values")
            cells = cells if cells.dtype in (np.float32, np.float64) else cells.astype(np.float64)
        elif cells.dtype != np.uint8:
            if cells.size and (cells.min() < 0 or cells.max() > 255):
                raise GridError("Pattern.cells states must lie in 0..255")
            cells = cells.astype(np.uint8)
        self.cells = cells
        self.origin = (int(self.origin[0]), int(self.origin[1]))
        self.generation = int(self.generation)

    @property
    def shape(self) -> tuple[int, int]:
        """``(H, W)`` of :attr:`cells`."""
        return (int(self.cells.shape[0]), int(self.cells.shape[1]))

    @property
    def population(self) -> int:
        """Number of non-zero cells (every live or decaying state counts)."""
        return int(np.count_nonzero(self.cells))

    @property
    def mass(self) -> float:
        """Sum of the cell values (Lenia's mass; the population for 0/1 cells)."""
        return float(np.sum(self.cells, dtype=np.float64))

    @property
    def continuous(self) -> bool:
        """True when the cells are floats (a continuous rule such as Lenia), not discrete states."""
        return bool(np.issubdtype(self.cells.dtype, np.floating))

    @property
    def max_state(self) -> int:
        """Largest state present (0 for an empty grid)."""
        return int(self.cells.max()) if self.cells.size else 0

    def bounding_box(self) -> tuple[int, int, int, int] | None:
        """``(x, y, w, h)`` of the non-zero cells in pattern coordinates, or ``None`` if empty."""
        box = bounding_box(self.cells)
        if box is None:
            return None
        y0, y1, x0, x1 = box
        return self.origin[0] + x0, self.origin[1] + y0, x1 - x0, y1 - y0

    def cropped(self) -> Pattern:
        """A copy trimmed to the bounding box, origin adjusted.

        An empty pattern becomes a ``(0, 0)`` array at origin ``(0, 0)`` (it has no position).
        """
        if bounding_box(self.cells) is None:
            return replace(self, cells=np.zeros((0, 0), self.cells.dtype), origin=(0, 0), comments=list(self.comments))
        cells, origin = crop(self.cells, self.origin, copy=True)
        return replace(self, cells=cells, origin=origin, comments=list(self.comments))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Pattern):
            return NotImplemented
        return (
            self.cells.shape == other.cells.shape
            and bool(np.array_equal(self.cells, other.cells))
            and _rule_key(self.rule) == _rule_key(other.rule)
            and self.topology == other.topology
            and self.origin == other.origin
            and self.generation == other.generation
            and self.name == other.name
            and self.author == other.author
            and list(self.comments) == list(other.comments)
        )

    __hash__ = None  # type: ignore[assignment]  # mutable array inside

    def __repr__(self) -> str:
        h, w = self.shape
        rule = self.rule.canonical() if self.rule is not None else None
        count = f"mass={self.mass:.6g}" if self.continuous else f"population={self.population}"
        parts = [f"{w}x{h}", count, f"rule={rule!r}"]
        if self.topology.bounded:
            parts.append(f"topology={self.topology.suffix()!r}")
        if self.origin != (0, 0):
            parts.append(f"origin={self.origin}")
        if self.generation:
            parts.append(f"generation={self.generation}")
        if self.name:
            parts.append(f"name={self.name!r}")
        return f"Pattern({', '.join(parts)})"

    def _repr_png_(self) -> bytes:
        """The picture a notebook shows (at most 1024 px a side; see :mod:`tensorca.view.display`)."""
        from .view.display import pattern_png  # view imports render, which imports this module

        return pattern_png(self)

    def _repr_html_(self) -> str:
        """The picture with rule, topology, size, population and generation, for notebooks."""
        from .view.display import pattern_html

        return pattern_html(self)


def _rule_key(rule: object) -> object:
    """Rules compare by canonical spelling, so two parses of one rule text are equal."""
    if rule is None:
        return None
    canonical = getattr(rule, "canonical", None)
    return canonical() if callable(canonical) else rule
