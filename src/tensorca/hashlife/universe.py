"""Public API: :class:`HashLife` (a rule compiled for HashLife) and :class:`Universe` (a pattern
on the unbounded plane held as a quadtree, stepped any number of generations).

Coordinates are tensorca's: ``x`` right, ``y`` down, ``cells[0, 0]`` at ``origin``; all of them,
the generation and the population are Python ints (they pass 2**64 on breeders).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import EngineError, GridError, MemoryBudgetError, PatternError, UsageError
from ..rules.spec import resolve
from .grid import build, extent, paint
from .leaves import step_table
from .records import BAD_LEVEL, FULL, build_records, export_records
from .step import centre, expand, is_padded, result
from .store import DEFAULT_MAX_BYTES, NodeStore, check_budget
from .tree import EMPTY, MAX_LEVEL, ROOT, find_node, populations

#: Default largest ``H * W`` :meth:`Universe.to_cells` materialises (a 2 GiB uint8 array, as
#: the pattern readers' default cell budget).
DEFAULT_MAX_CELLS = 2**31


def _check_rule(rule: Any) -> tuple[Any, np.ndarray]:
    """The rule value and its 4x4 step table; :class:`EngineError` for rules HashLife cannot run."""
    value, topology = resolve(rule)
    name = value.canonical()
    if topology is not None and topology.bounded:
        raise EngineError(f"HashLife runs the unbounded plane only, not {name}:{topology.suffix()}")
    spec = value.compile()
    if spec.kinds != ("index3x3", "table") or spec.n_states != 2:
        raise EngineError(
            f"HashLife runs two-state rules on the 3x3 neighbourhood; {name!r} is "
            f"{spec.kinds[0]}/{spec.kinds[1]} with {spec.n_states} states (use a dense backend)"
        )
    if spec.births_from_nothing:
        raise EngineError(
            f"HashLife cannot run B0 rule {name!r}: empty space is born at once and the "
            f"unbounded plane fills (use a dense backend on a bounded grid)"
        )
    return value, step_table(spec.update.lookup())


def _int(value: Any, name: str, minimum: int | None = 0) -> int:
    """``value`` as an int >= ``minimum`` (None: any), else :class:`UsageError` naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise UsageError(f"{name} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise UsageError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


class HashLife:
    """A two-state 3x3 rule compiled for HashLife, with a node budget.

    ``rule``: a rule string or value (B/S, S/B, V, H, Hensel letters, MAP; no B0, no
    multi-state); ``max_bytes``: the node store's budget (default 500 MB).
    """

    def __init__(self, rule: Any = "B3/S23", *, max_bytes: int | None = None):
        self.rule, self._t4 = _check_rule(rule)
        self.max_bytes = DEFAULT_MAX_BYTES if max_bytes is None else _int(max_bytes, "max_bytes", 1)
        check_budget(self.max_bytes)

    def from_cells(self, cells: np.ndarray, origin: tuple[int, int] = (0, 0)) -> Universe:
        """A universe holding ``cells`` (``(H, W)`` 0/1) with ``cells[0, 0]`` at ``origin``."""
        return Universe(self, cells, origin)

    def from_records(
        self, levels: np.ndarray, children: np.ndarray, leaves: np.ndarray, origin: tuple[int, int] = (0, 0)
    ) -> Universe:
        """A universe from macrocell-style records (see :mod:`tensorca.hashlife.records`), the
        root's top-left corner at ``origin``; never materialises cells."""
        u = Universe(self, np.zeros((0, 0), np.uint8), origin)
        u._load_records(levels, children, leaves)
        return u

    def empty(self) -> Universe:
        """A universe with no live cell."""
        return Universe(self, np.zeros((0, 0), np.uint8), (0, 0))


def _as_cells(cells: Any) -> np.ndarray:
    """``cells`` as a 2-D uint8 0/1 array, else :class:`GridError`."""
    arr = np.asarray(cells)
    if arr.ndim != 2:
        raise GridError(f"HashLife cells must be 2-D (H, W), got shape {arr.shape}")
    if arr.dtype == np.bool_:
        return arr.astype(np.uint8)
    if arr.dtype.kind not in "iu":
        raise GridError(f"HashLife cells must be integer or bool, got dtype {arr.dtype}")
    if arr.size and (arr.min() < 0 or arr.max() > 1):
        raise GridError(f"HashLife runs two-state rules: cells must be 0 or 1, found {arr.max()}")
    return arr.astype(np.uint8, copy=False)


class Universe:
    """A pattern on the unbounded plane as a hash-consed quadtree.

    The root node covers ``[x, x + 2**level) x [y, y + 2**level)`` with ``(x, y)`` its corner.
    Build one with :meth:`HashLife.from_cells` or :meth:`Universe.from_cells`.
    """

    def __init__(self, engine: HashLife, cells: np.ndarray, origin: tuple[int, int] = (0, 0)):
        cells = _as_cells(cells)
        self.engine = engine
        self.generation = 0
        self._store = NodeStore(engine._t4, engine.max_bytes)
        self._x, self._y = _int_origin(origin)
        self._level, self._root = self._build(cells)

    @classmethod
    def from_cells(
        cls, cells: np.ndarray, rule: Any = "B3/S23", origin: tuple[int, int] = (0, 0),
        *, max_bytes: int | None = None,
    ) -> Universe:
        """A universe of ``cells`` (``(H, W)`` uint8/bool 0/1, ``cells[0, 0]`` at ``origin``)."""
        return cls(HashLife(rule, max_bytes=max_bytes), cells, origin)

    @property
    def rule(self) -> Any:
        """The rule value."""
        return self.engine.rule

    def _build(self, cells: np.ndarray) -> tuple[int, int]:
        """``(level, root)`` of the tree of ``cells`` placed at the root's corner (built from
        the live cells only: a sparse 15000 x 60000 array costs its cells, not its area)."""
        ys, xs = _live_cells(cells)
        side = max(16, *cells.shape)
        level = max(4, (side - 1).bit_length())
        while True:
            root = int(build(*self._store.S[:3], ys, xs, level))
            if root >= 0:
                return level, root
            if not self._store.grow():
                raise MemoryBudgetError(
                    f"HashLife cannot hold a {cells.shape[1]}x{cells.shape[0]} pattern of "
                    f"{ys.size} cells in max_bytes={self._store.max_bytes}; raise max_bytes",
                    available=self._store.max_bytes,
                )

    def _load_records(self, levels: np.ndarray, children: np.ndarray, leaves: np.ndarray) -> None:
        """Replace the tree by the records' (root corner at the current origin)."""
        levels = np.ascontiguousarray(levels, np.int64).reshape(-1)
        children = np.ascontiguousarray(children, np.int64).reshape(-1, 4)
        leaves = np.ascontiguousarray(leaves, np.uint64).reshape(-1)
        if not levels.size or children.shape[0] != levels.size or leaves.size != levels.size:
            raise UsageError(f"records need N levels, (N, 4) children and N leaves with N > 0; got "
                             f"{levels.size}, {children.shape}, {leaves.size}")
        out = np.zeros(2, np.int64)
        while True:
            build_records(*self._store.S[:3], levels, children, leaves, out)
            if out[0] != FULL:
                break
            if not self._store.grow():
                raise MemoryBudgetError(f"HashLife cannot hold {levels.size} macrocell records in "
                                        f"max_bytes={self._store.max_bytes}; raise max_bytes",
                                        available=self._store.max_bytes)
        if out[0] < 0:
            what = ("a level outside 3..62" if out[0] == BAD_LEVEL
                    else "a child that is not an earlier record one level down")
            raise PatternError(f"macrocell record {int(out[1]) + 1} has {what}")
        self._root, self._level = int(out[0]), int(levels[-1])
        if self._level == 3:  # a lone leaf: the root is a level-4 node with it in the NW
            nodes, table, meta = self._store.S[:3]
            e = int(meta[EMPTY + 3])
            root = int(find_node(nodes, table, meta, 4, self._root, e, e, e))
            if root < 0:
                raise MemoryBudgetError(f"HashLife store full at max_bytes={self._store.max_bytes}")
            self._root, self._level = root, 4

    def records(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, int]]:
        """``(levels, children, leaves, (x, y))``: the tree as macrocell-style records (see
        :mod:`tensorca.hashlife.records`; empty when there is no live cell) and the root's
        top-left corner. Cost follows the tree's nodes, not its cells."""
        levels, children, leaves = export_records(self._store.S[0], self._store.S[2], self._root)
        return levels, children, leaves, (self._x, self._y)

    # -- stepping ---------------------------------------------------------------------------

    def step(self, n: int) -> Universe:
        """Advance ``n`` generations (any int >= 0: 10**9 and 2**40 are cheap for regular
        patterns), by the binary digits of ``n``, lowest first as bgolly does. Returns self."""
        n = _int(n, "generations")
        j = 0
        while n:
            if n & 1:
                self._step_pow2(j)
            n >>= 1
            j += 1
        return self

    def _step_pow2(self, j: int) -> None:
        """Advance ``2**j`` generations, making room when the store fills: grow to the budget,
        then collect garbage keeping results, then dropping them, then split the step in two."""
        failures = 0
        while not self._try_step(j):
            if self._store.grow():
                continue
            failures += 1
            if failures <= 2:
                self._root = self._store.collect([self._root], keep_results=failures == 1)[0]
                continue
            if j == 0:
                raise MemoryBudgetError(
                    f"HashLife cannot advance this pattern one generation in max_bytes="
                    f"{self._store.max_bytes} ({self._store.capacity} nodes); raise max_bytes",
                    available=self._store.max_bytes,
                )
            self._step_pow2(j - 1)
            self._step_pow2(j - 1)
            return

    def _try_step(self, j: int) -> bool:
        """One attempt at ``2**j`` generations; False (nothing changed) when the store filled."""
        nodes, table, meta, t4, marks, stack = self._store.S
        root, level, x, y = self._root, self._level, self._x, self._y
        while level < j + 2 or not is_padded(nodes, meta, root):
            if level + 1 >= MAX_LEVEL:
                raise EngineError(f"HashLife pattern outgrew a 2^{MAX_LEVEL} plane at generation {self.generation}")
            root = int(expand(nodes, table, meta, root))
            if root < 0:
                return False
            x, y, level = x - (1 << (level - 1)), y - (1 << (level - 1)), level + 1
        top = int(expand(nodes, table, meta, root))
        if top < 0:
            return False
        meta[ROOT] = self._root  # kept alive (and renumbered) by collections inside the step
        frames, collect = self._store.frames, self._store.at_budget
        nxt = int(result(nodes, table, meta, t4, frames, marks, stack, top, j, collect))
        self._root = int(meta[ROOT])
        if nxt < 0:
            return False
        self._root, self._level, self._x, self._y = nxt, level, x, y
        self.generation += 1 << j
        self._shrink()
        return True

    def _shrink(self) -> None:
        """Replace the root by its centre while every live cell lies there (keeps trees small)."""
        nodes, table, meta = self._store.S[:3]
        while self._level > 4 and is_padded(nodes, meta, self._root):
            c = int(centre(nodes, table, meta, self._root))
            if c < 0:
                return
            quarter = 1 << (self._level - 2)
            self._root, self._level = c, self._level - 1
            self._x, self._y = self._x + quarter, self._y + quarter

    # -- queries ------------------------------------------------------------------------------

    @property
    def population(self) -> int:
        """Live cells, exact (a Python int; node counts past 2**62 are summed from the tree)."""
        nodes, meta = self._store.S[0], self._store.S[2]
        pop = populations(nodes, meta)
        memo: dict[int, int] = {}

        def count(n: int) -> int:
            p = int(pop[n])
            if p >= 0:
                return p
            if n not in memo:
                memo[n] = sum(count(int(k)) for k in nodes[n, :4])
            return memo[n]

        return count(self._root)

    def bounding_box(self) -> tuple[int, int, int, int] | None:
        """``(x, y, w, h)`` of the live cells, from the tree, or None when there are none."""
        nodes, meta, marks = self._store.S[0], self._store.S[2], self._store.S[4]
        marks[:] = 0  # the GC marks double as the frontier's "seen" flags
        y0, y1, x0, x1 = (int(v) for v in extent(nodes, meta, marks, self._root))
        if y0 < 0:
            return None
        return self._x + x0, self._y + y0, x1 - x0 + 1, y1 - y0 + 1

    def crop(self, x: int, y: int, w: int, h: int) -> np.ndarray:
        """The ``(h, w)`` uint8 window with top-left ``(x, y)`` (cells outside the tree are 0)."""
        x, y = _int(x, "x", None), _int(y, "y", None)
        w, h = _int(w, "w"), _int(h, "h")
        out = np.zeros((h, w), np.uint8)
        size = 1 << self._level
        rx0, ry0 = max(x - self._x, 0), max(y - self._y, 0)
        rx1, ry1 = min(x + w - self._x, size), min(y + h - self._y, size)
        if rx0 < rx1 and ry0 < ry1:
            view = out[ry0 + self._y - y : ry1 + self._y - y, rx0 + self._x - x : rx1 + self._x - x]
            paint(self._store.S[0], self._store.S[2], self._root, view, ry0, rx0)
        return out

    def to_cells(self, max_cells: int | None = DEFAULT_MAX_CELLS) -> tuple[np.ndarray, tuple[int, int]]:
        """``(cells, origin)``: the bounding box as a ``(h, w)`` uint8 array and its top-left
        ``(x, y)``; an empty universe gives a ``(0, 0)`` array at ``(0, 0)``. Refused with
        :class:`MemoryBudgetError` when ``w * h > max_cells`` (use :meth:`crop` for a window)."""
        box = self.bounding_box()
        if box is None:
            return np.zeros((0, 0), np.uint8), (0, 0)
        x, y, w, h = box
        limit = DEFAULT_MAX_CELLS if max_cells is None else _int(max_cells, "max_cells", 1)
        if w * h > limit:
            raise MemoryBudgetError(
                f"the pattern's bounding box is {w}x{h} = {w * h} cells, over max_cells={limit}; "
                f"materialise a window with crop(x, y, w, h) instead", needed=w * h, available=limit,
            )
        return self.crop(x, y, w, h), (x, y)

    def stats(self) -> dict[str, int | float]:
        """Store statistics (nodes, capacity, bytes, gc_runs, cache_hits, cache_misses,
        hit_rate) plus the root's ``level``."""
        return {**self._store.stats(), "level": self._level}

    def __repr__(self) -> str:
        return f"Universe(rule={self.rule.canonical()!r}, generation={self.generation}, population={self.population})"


def _live_cells(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(ys, xs)`` int64 of the non-zero cells of ``(H, W)`` uint8 ``cells``. Scans 8 cells a
    word first: a sparse 15000 x 60000 pattern (a macrocell's dense array) takes ~0.1 s, not 2 s."""
    flat = np.ascontiguousarray(cells).reshape(-1)
    n8 = flat.size // 8
    words = np.flatnonzero(flat[: 8 * n8].view(np.uint64))
    pos = (words[:, None] * 8 + np.arange(8)).reshape(-1)
    pos = np.concatenate([pos[flat[pos] != 0], 8 * n8 + np.flatnonzero(flat[8 * n8 :])])
    width = max(cells.shape[1], 1)
    return (pos // width).astype(np.int64), (pos % width).astype(np.int64)


def _int_origin(origin: tuple[int, int]) -> tuple[int, int]:
    """``origin`` as two Python ints."""
    if not isinstance(origin, (tuple, list)) or len(origin) != 2:
        raise UsageError(f"origin must be (x, y), got {origin!r}")
    return _int(origin[0], "origin x", None), _int(origin[1], "origin y", None)
