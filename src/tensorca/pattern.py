"""The :class:`Pattern` value: a grid of cell states plus what a pattern file says about it.

A pattern is what :mod:`tensorca.io` reads and writes: the cells as a ``(H, W)`` ``uint8`` array
indexed ``[y, x]``, the rule and topology (if the file names them), where the array sits in
pattern coordinates, and the file's name, author and comments. It knows nothing about engines.

A pattern on the unbounded plane may instead hold a quadtree (``tree``: a HashLife
:class:`~tensorca.hashlife.Universe`, as Golly's ``lifealgo`` keeps a universe, not an array):
what HashLife returns, and what the macrocell reader builds. ``population``, ``bounding_box()``,
``shape``, ``generation``, ``rule``, :meth:`crop` and saving answer from the tree; ``cells``
materialises the bounding box once (then the pattern is an ordinary dense one), only within
:data:`MAX_DENSE_CELLS`, else :class:`~tensorca.errors.MemoryBudgetError` naming :meth:`crop`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from .crop import bounding_box, crop
from .errors import GridError, MemoryBudgetError, UsageError
from .topology import Topology

if TYPE_CHECKING:  # rules is a sibling layer; only its type is needed here
    from .rules.base import Rule

#: Largest bounding box (``w * h`` cells) a tree-backed pattern's ``cells`` materialises: a 2 GiB
#: ``uint8`` array, the pattern readers' default cell budget.
MAX_DENSE_CELLS = 2**31


@dataclass(eq=False)
class Pattern:
    """A pattern: cells, rule, topology, position and metadata.

    - ``cells``: ``(H, W)`` ``uint8`` array indexed ``[y, x]``, states ``0..n-1`` (0 dead); or, for a
      continuous rule (Lenia), float32/float64 values in [0, 1] (other float dtypes become float64).
    - ``rule``: the file's rule, or ``None`` when the file names none (simulators default to
      ``B3/S23``). A rule string is parsed (``"B3/S23:T64,64"`` also sets ``topology``).
    - ``topology``: from the rule's suffix (``:T64,64``); :meth:`Topology.unbounded` when the
      file has no suffix.
    - ``origin``: ``(x, y)`` pattern coordinates of ``cells[0, 0]`` (x right, y down).
    - ``generation``: generation count stored in the file (RLE ``#CXRLE Gen=``), else 0.
    - ``name``, ``author``, ``comments``: metadata lines (``#N``, ``#O``, ``#C`` in RLE).
    - ``tree``: a HashLife universe holding the cells instead (``cells`` not given; the unbounded
      plane, two states): ``origin`` becomes its bounding box's top-left (``rule`` stays as given:
      a file without one keeps None). Treat it as read-only: ``run`` steps a copy.
    """

    cells: np.ndarray = None  # type: ignore[assignment]  # a property (below): None when tree-backed
    rule: Rule | None = None
    topology: Topology = field(default_factory=Topology.unbounded)
    origin: tuple[int, int] = (0, 0)
    generation: int = 0
    name: str | None = None
    comments: list[str] = field(default_factory=list)
    author: str | None = None
    tree: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if isinstance(self.rule, str):  # a rule string, as tensorca.run takes one: parsed, suffix and all
            from .rules import parse_spec  # imported lazily: rules is a sibling layer

            self.rule, suffix = parse_spec(self.rule)
            if suffix is not None:
                if self.topology.bounded and self.topology != suffix:
                    raise UsageError(f"the rule's suffix says {suffix}, topology= says {self.topology}")
                self.topology = suffix
        self.comments = list(self.comments)
        self.generation = int(self.generation)
        if self.tree is not None:
            self._init_tree()
            return
        if self._dense is None:
            raise GridError("a Pattern needs cells (an (H, W) array) or a tree")
        cells = np.asarray(self._dense)
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
        self._dense = cells
        self.origin = (int(self.origin[0]), int(self.origin[1]))

    def _init_tree(self) -> None:
        if self._dense is not None:
            raise UsageError("give a Pattern cells or a tree, not both")
        if self.topology.bounded:
            raise UsageError(f"a tree-backed Pattern lies on the unbounded plane, not on {self.topology}")
        box = self.tree.bounding_box()
        self.origin = (0, 0) if box is None else (int(box[0]), int(box[1]))

    @property
    def tree_backed(self) -> bool:
        """True while the cells are held as a quadtree (:attr:`tree`), not an array."""
        return self.tree is not None

    def _materialise(self) -> np.ndarray:
        """The tree's bounding box as a dense array, after which the pattern is a dense one."""
        box = self.tree.bounding_box()
        if box is not None and box[2] * box[3] > MAX_DENSE_CELLS:
            raise MemoryBudgetError(
                f"this tree-backed pattern's bounding box is {box[2]} x {box[3]} = {box[2] * box[3]} cells, over the "
                f"{MAX_DENSE_CELLS} cells Pattern.cells materialises; read a window with pattern.crop(x, y, w, h) "
                f"(population, bounding_box() and save() work without cells)",
                needed=box[2] * box[3], available=MAX_DENSE_CELLS)
        cells, origin = self.tree.to_cells(max_cells=None if box is None else max(box[2] * box[3], 1))
        self._dense, self.origin, self.tree = cells, origin, None
        return cells

    @property
    def shape(self) -> tuple[int, int]:
        """``(H, W)`` of :attr:`cells` (a tree-backed pattern: of its bounding box)."""
        if self.tree is not None:
            box = self.tree.bounding_box()
            return (0, 0) if box is None else (int(box[3]), int(box[2]))
        return (int(self.cells.shape[0]), int(self.cells.shape[1]))

    @property
    def population(self) -> int:
        """Number of non-zero cells (every live or decaying state counts); exact, a Python int."""
        if self.tree is not None:
            return self.tree.population
        return int(np.count_nonzero(self.cells))

    @property
    def mass(self) -> float:
        """Sum of the cell values (Lenia's mass; the population for 0/1 cells)."""
        if self.tree is not None:
            return float(self.tree.population)
        return float(np.sum(self.cells, dtype=np.float64))

    @property
    def continuous(self) -> bool:
        """True when the cells are floats (a continuous rule such as Lenia), not discrete states."""
        return self.tree is None and bool(np.issubdtype(self.cells.dtype, np.floating))

    @property
    def max_state(self) -> int:
        """Largest state present (0 for an empty grid)."""
        if self.tree is not None:
            return 1 if self.tree.bounding_box() is not None else 0
        return int(self.cells.max()) if self.cells.size else 0

    def bounding_box(self) -> tuple[int, int, int, int] | None:
        """``(x, y, w, h)`` of the non-zero cells in pattern coordinates, or ``None`` if empty."""
        if self.tree is not None:
            box = self.tree.bounding_box()
            return None if box is None else tuple(int(v) for v in box)  # type: ignore[return-value]
        box = bounding_box(self.cells)
        if box is None:
            return None
        y0, y1, x0, x1 = box
        return self.origin[0] + x0, self.origin[1] + y0, x1 - x0, y1 - y0

    def crop(self, x: int, y: int, w: int, h: int) -> np.ndarray:
        """The ``(h, w)`` window of cells with top-left ``(x, y)`` in pattern coordinates (cells
        outside the pattern are 0): a tree-backed pattern materialises only the window."""
        for name, value in (("x", x), ("y", y), ("w", w), ("h", h)):
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise UsageError(f"crop {name} must be an integer, got {value!r}")
        if w < 0 or h < 0:
            raise UsageError(f"crop width and height must be >= 0, got {w} x {h}")
        if self.tree is not None:
            return self.tree.crop(int(x), int(y), int(w), int(h))
        cells = self.cells
        out = np.zeros((int(h), int(w)), cells.dtype)
        ox, oy = self.origin
        x0, y0 = max(x, ox), max(y, oy)
        x1, y1 = min(x + w, ox + cells.shape[1]), min(y + h, oy + cells.shape[0])
        if x0 < x1 and y0 < y1:
            out[y0 - y : y1 - y, x0 - x : x1 - x] = cells[y0 - oy : y1 - oy, x0 - ox : x1 - ox]
        return out

    def cropped(self) -> Pattern:
        """A copy trimmed to the bounding box, origin adjusted (a tree-backed pattern: itself
        as a new value sharing the read-only tree).

        An empty pattern becomes a ``(0, 0)`` array at origin ``(0, 0)`` (it has no position).
        """
        if self.tree is not None:
            return Pattern(tree=self.tree, rule=self.rule, topology=self.topology, generation=self.generation,
                           name=self.name, comments=list(self.comments), author=self.author)
        if bounding_box(self.cells) is None:
            return replace(self, cells=np.zeros((0, 0), self.cells.dtype), origin=(0, 0), comments=list(self.comments))
        cells, origin = crop(self.cells, self.origin, copy=True)
        return replace(self, cells=cells, origin=origin, comments=list(self.comments))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Pattern):
            return NotImplemented
        return (
            _same_cells(self, other)
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
        if self.tree is not None:
            rule = self.rule.canonical() if self.rule is not None else None
            box = self.bounding_box()
            size = "empty" if box is None else f"{box[2]}x{box[3]}"
            parts = [f"tree, {size}", f"population={self.population}", f"rule={rule!r}"]
            parts += [f"origin={self.origin}"] * (self.origin != (0, 0))
            parts += [f"generation={self.generation}"] * bool(self.generation)
            return f"Pattern({', '.join(parts)})"
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
        """The picture a notebook shows (at most 1024 px a side; see :mod:`tensorca.view.display`).
        A tree-backed pattern draws from its tree, downsampled: a pixel is alive when any cell
        below it is (:meth:`picture`)."""
        from .view.display import pattern_png  # view imports render, which imports this module

        return pattern_png(self)

    def _repr_html_(self) -> str:
        """The picture beside the pattern's rule, topology, size (a tree-backed pattern: its
        bounding box), generation and population (float cells: mass), and the picture's scale."""
        from .view.display import pattern_html

        return pattern_html(self)

    def picture(self, max_px: int = 1024) -> np.ndarray:
        """``(h, w)`` uint8 0/1 of the bounding box shrunk by a power of two until both sides are
        at most ``max_px``: a pixel is 1 when any cell of its block is (a lone glider in a huge
        universe stays visible). Drawn from the tree without materialising the cells."""
        if isinstance(max_px, bool) or not isinstance(max_px, (int, np.integer)) or max_px < 1:
            raise UsageError(f"max_px must be a positive integer, got {max_px!r}")
        if self.tree is not None:
            return self.tree.picture(int(max_px))
        box = self.bounding_box()
        if box is None:
            return np.zeros((1, 1), np.uint8)
        shift = max(0, (max(box[2], box[3]) - 1) // max_px).bit_length()
        window = self.crop(*box) != 0
        f = 1 << shift
        hh, ww = -(-box[3] // f), -(-box[2] // f)
        padded = np.zeros((hh * f, ww * f), bool)
        padded[: box[3], : box[2]] = window
        return padded.reshape(hh, f, ww, f).any(axis=(1, 3)).astype(np.uint8)


def _cells_of(pattern: Pattern) -> np.ndarray:
    """The cells to compare: a tree's bounding box (the tree kept), or the array."""
    if pattern.tree is not None:
        return pattern.tree.to_cells(max_cells=MAX_DENSE_CELLS)[0]
    return pattern.cells


def _same_cells(a: Pattern, b: Pattern) -> bool:
    """Equal cells at equal origins; a tree-backed pattern equals the dense pattern of the same
    cropped cells. Trees compare population and box first (cheap), then cells within the budget."""
    if a.tree is None and b.tree is None:
        return a.cells.shape == b.cells.shape and bool(np.array_equal(a.cells, b.cells))
    if a.population != b.population or a.bounding_box() != b.bounding_box():
        return False
    if a.tree is not None and b.tree is not None:
        return a.tree.same_cells(b.tree)
    ca, cb = _cells_of(a), _cells_of(b)
    return ca.shape == cb.shape and bool(np.array_equal(ca, cb))


def _rule_key(rule: object) -> object:
    """Rules compare by canonical spelling, so two parses of one rule text are equal."""
    if rule is None:
        return None
    canonical = getattr(rule, "canonical", None)
    return canonical() if callable(canonical) else rule


def _get_cells(self: Pattern) -> np.ndarray:
    dense = self.__dict__.get("_dense")
    if dense is None and self.__dict__.get("tree") is not None:
        return self._materialise()
    return dense


def _set_cells(self: Pattern, value: np.ndarray) -> None:
    self.__dict__["_dense"] = value
    self.__dict__["tree"] = None  # new cells replace a tree (in __init__ the tree comes after)


# ``cells`` is a dataclass field (so ``Pattern(cells, ...)`` and ``dataclasses.replace`` work) kept
# behind a property, so that a tree-backed pattern materialises it only when it is read.
Pattern.cells = property(  # type: ignore[assignment]
    _get_cells, _set_cells,
    doc="``(H, W)`` cells (a tree-backed pattern materialises its bounding box here, within MAX_DENSE_CELLS)")
