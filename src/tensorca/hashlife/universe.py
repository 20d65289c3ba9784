"""Public API: :class:`HashLife` (a rule compiled for HashLife) and :class:`Universe` (a pattern
on the unbounded plane held as a quadtree, stepped any number of generations).

Coordinates are tensorca's: ``x`` right, ``y`` down, ``cells[0, 0]`` at ``origin``; all of them,
the generation and the population are Python ints (they pass 2**64 on breeders).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import EngineError, GridError, MemoryBudgetError, PatternError, UsageError
from ..rules.spec import resolve
from .grid import build, extent, paint
from .leaves import step_table
from .picture import picture
from .records import BAD_LEVEL, FULL, build_records, export_records
from .step import centre, expand, is_padded, result
from .store import DEFAULT_MAX_BYTES, NodeStore, check_budget
from .tree import EMPTY, GC_RUNS, MAX_LEVEL, ROOT, find_node, populations

#: Default largest ``H * W`` :meth:`Universe.to_cells` materialises (a 2 GiB uint8 array, as
#: the pattern readers' default cell budget).
DEFAULT_MAX_CELLS = 2**31
#: Largest power-of-two step taken at once: the tree must reach level ``j + 2`` (plus padding)
#: within MAX_LEVEL, so ``2**j`` beyond this runs as several steps of ``2**MAX_STEP_LOG2``.
MAX_STEP_LOG2 = MAX_LEVEL - 4
#: Deepest root built straight from cells (leaf keys ``y * side + x`` stay within int64).
MAX_BUILD_LEVEL = 34
#: True once a universe has been stepped in this process: the compiled functions are loaded
#: (the cost model's "loaded" kernel state).
_STEPPED = False


def why_not(rule: Any) -> str | None:
    """None when HashLife runs ``rule`` (a rule value), else why not (naming the rule)."""
    name = rule.canonical()
    spec = rule.compile()
    if spec.kinds != ("index3x3", "table") or spec.n_states != 2:
        return (f"HashLife runs two-state rules on the 3x3 neighbourhood; {name!r} is "
                f"{spec.kinds[0]}/{spec.kinds[1]} with {spec.n_states} states (use a dense backend)")
    if spec.births_from_nothing:
        return (f"HashLife cannot run B0 rule {name!r}: empty space is born at once and the "
                f"unbounded plane fills (use a dense backend on a bounded grid)")
    return None


#: 4x4 step tables by the rule's 512-entry lookup table (shared by every HashLife: never written).
_TABLES: dict[bytes, np.ndarray] = {}


def _check_rule(rule: Any) -> tuple[Any, np.ndarray]:
    """The rule value and its 4x4 step table; :class:`EngineError` for rules HashLife cannot run."""
    value, topology = resolve(rule)
    if topology is not None and topology.bounded:
        raise EngineError(f"HashLife runs the unbounded plane only, not {value.canonical()}:{topology.suffix()}")
    reason = why_not(value)
    if reason is not None:
        raise EngineError(reason)
    lookup = np.ascontiguousarray(value.compile().update.lookup(), np.uint8)
    key = lookup.tobytes()
    if key not in _TABLES:  # ~8 ms of NumPy per rule: computed once
        if len(_TABLES) >= 64:
            _TABLES.clear()
        _TABLES[key] = step_table(lookup)  # writable: Numba compiles read-only arrays as another type
    return value, _TABLES[key]


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
        u = Universe(self, np.zeros((0, 0), np.uint8))
        u._x, u._y = _int_origin(origin)
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
        self._build(cells, _int_origin(origin))

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

    def _build(self, cells: np.ndarray, origin: tuple[int, int]) -> None:
        """Make the tree of ``cells`` (``cells[0, 0]`` at ``origin``) the root, from the live cells
        only (a sparse 15000 x 60000 array costs its cells, not its area), centred as Golly
        centres its roots (see :func:`root_corner`), so that macrocell files map onto it node for
        node. Far from the origin the tree is built on the smallest lattice node holding the
        cells and climbs to a centred root through empty siblings."""
        ys, xs = _live_cells(cells)
        ox, oy = origin
        if ys.size == 0:
            self._level, self._root = 4, int(self._store.S[2][EMPTY + 4])
            self._x, self._y = root_corner(4)
            return
        x0, x1 = ox + int(xs.min()), ox + int(xs.max())
        y0, y1 = oy + int(ys.min()), oy + int(ys.max())
        level = 4
        while not _holds(root_corner(level), level, x0, y0, x1, y1):
            level += 1
        if level <= MAX_BUILD_LEVEL:
            rx, ry = root_corner(level)
            root = self._grow_until(lambda: build(*self._store.S[:3], ys + (oy - ry), xs + (ox - rx), level), cells)
            self._level, self._root, self._x, self._y = level, root, rx, ry
            return
        k = max(4, max(x1 - x0, y1 - y0).bit_length())  # lattice nodes of level k: at most 2 x 2 hold the cells
        if k > MAX_BUILD_LEVEL:
            raise MemoryBudgetError(f"HashLife builds patterns at most 2**{MAX_BUILD_LEVEL} cells wide from cells; "
                                    f"this one spans x {x0}..{x1}, y {y0}..{y1}")
        parts = {}
        xa, yb = (xs + ox) >> k, (ys + oy - 1) >> k
        for a in np.unique(xa).tolist():
            for b in np.unique(yb[xa == a]).tolist():
                keep = (xa == a) & (yb == b)
                parts[(a, b)] = self._grow_until(lambda a=a, b=b, keep=keep: build(
                    *self._store.S[:3], ys[keep] + (oy - (1 + (b << k))), xs[keep] + (ox - (a << k)), k), cells)
        self._level, self._root = self._climb(parts, k)
        self._x, self._y = root_corner(self._level)

    def _grow_until(self, make: Callable[[], int], cells: np.ndarray) -> int:
        """``make()``'s node, growing the store while it reports a full store (-1)."""
        while True:
            node = int(make())
            if node >= 0:
                return node
            if not self._store.grow():
                raise MemoryBudgetError(
                    f"HashLife cannot hold a {cells.shape[1]}x{cells.shape[0]} pattern of "
                    f"{int(np.count_nonzero(cells))} cells in max_bytes={self._store.max_bytes}; raise max_bytes",
                    available=self._store.max_bytes,
                )

    def _climb(self, parts: dict[tuple[int, int], int], k: int) -> tuple[int, int]:
        """``(level, root)``: level-``k`` nodes at lattice positions ``(a, b)`` (corner ``(a 2**k,
        1 + b 2**k)``) joined level by level, empty elsewhere, up to a centred root."""
        nodes, table, meta = self._store.S[:3]
        while True:
            if k + 1 >= MAX_LEVEL:
                raise EngineError(f"HashLife pattern lies beyond a 2^{MAX_LEVEL} plane")
            last = all(a in (-1, 0) and b in (-1, 0) for a, b in parts)  # the centred root's four children
            e = int(meta[EMPTY + k])
            grouped: dict[tuple[int, int], list[int]] = {}
            for (a, b), node in parts.items():
                kids = grouped.setdefault((0, 0) if last else (a >> 1, b >> 1), [e, e, e, e])
                kids[2 * ((b + 1) if last else (b & 1)) + ((a + 1) if last else (a & 1))] = node
            parts = {}
            for key, kids in grouped.items():
                parts[key] = int(find_node(nodes, table, meta, k + 1, *kids))
                if parts[key] < 0:
                    raise MemoryBudgetError(f"HashLife store full at max_bytes={self._store.max_bytes}")
            k += 1
            if last:
                return k, parts[(0, 0)]

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
        if self._level == 3:  # a lone leaf: a level-4 root centred on it (its quadrants in four leaves)
            nodes, table, meta = self._store.S[:3]
            w = [int(v) for v in nodes[self._root, :4]]
            kids = [int(find_node(nodes, table, meta, 3, *(w[q] if i == 3 - q else 0 for i in range(4))))
                    for q in range(4)]
            root = int(find_node(nodes, table, meta, 4, *kids)) if min(kids) >= 0 else -1
            if root < 0:
                raise MemoryBudgetError(f"HashLife store full at max_bytes={self._store.max_bytes}")
            self._root, self._level, self._x, self._y = root, 4, self._x - 4, self._y - 4
        self._shrink()  # a file's root may be larger than its cells need: keep roots minimal

    def snapshot(self) -> tuple[int, int, int, int]:
        """``(root, level, x, y)``: the current tree, to :meth:`view` later. Valid while the store
        runs no garbage collection (``stats()["gc_runs"]`` unchanged), which renumbers nodes."""
        return self._root, self._level, self._x, self._y

    def view(self, snapshot: tuple[int, int, int, int]) -> Universe:
        """A read-only universe sharing this store at an earlier :meth:`snapshot` (for queries:
        crop, bounding box, records, population; never step it)."""
        twin = object.__new__(Universe)
        twin.engine, twin.generation, twin._store = self.engine, -1, self._store
        twin._root, twin._level, twin._x, twin._y = snapshot
        return twin

    @property
    def aligned(self) -> bool:
        """True when the root is centred as Golly centres it (:func:`root_corner`): every tree
        built from cells or read from a macrocell file; one made from records elsewhere is not."""
        return (self._x, self._y) == root_corner(self._level)

    def same_cells(self, other: Universe) -> bool:
        """True when both hold the same live cells at the same places. Centred trees compare
        node for node (O(nodes): a 2**40-wide breeder is cheap), others through their cells."""
        if self.population != other.population or self.bounding_box() != other.bounding_box():
            return False
        if self.aligned and other.aligned and self._level == other._level:
            ids: dict = {}
            return _canonical(self.records()[:3], ids) == _canonical(other.records()[:3], ids)
        a, b = self.to_cells()[0], other.to_cells()[0]
        return a.shape == b.shape and bool(np.array_equal(a, b))

    def records(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, int]]:
        """``(levels, children, leaves, (x, y))``: the tree as macrocell-style records (see
        :mod:`tensorca.hashlife.records`; empty when there is no live cell) and the root's
        top-left corner. Cost follows the tree's nodes, not its cells."""
        levels, children, leaves = export_records(self._store.S[0], self._store.S[2], self._root)
        return levels, children, leaves, (self._x, self._y)

    # -- stepping ---------------------------------------------------------------------------

    def step(self, n: int, on_step: Callable[[int], None] | None = None) -> Universe:
        """Advance ``n`` generations (any int >= 0: 10**9 and 2**40 are cheap for regular
        patterns), by the binary digits of ``n``, lowest first as bgolly does. ``on_step(k)`` is
        called after each power-of-two piece of ``k`` generations (at most one per binary digit,
        so a progress report never changes the steps taken). Returns self."""
        n = _int(n, "generations")
        j = 0
        while n:
            if n & 1:
                for _ in range(1 << max(0, j - MAX_STEP_LOG2)):  # 2**j beyond the tree's reach: in pieces
                    self._step_pow2(min(j, MAX_STEP_LOG2))
                    if on_step is not None:
                        on_step(1 << min(j, MAX_STEP_LOG2))
            n >>= 1
            j += 1
        global _STEPPED
        _STEPPED = True
        return self

    def copy(self, rule: Any = None, *, max_bytes: int | None = None) -> Universe:
        """An independent universe of the same cells and generation (``rule``: another two-state
        rule for it; ``max_bytes``: another node budget). Keeps the cached results when neither
        changes (a copy of the node arrays), else rebuilds from :meth:`records` (O(nodes))."""
        engine = self.engine
        if rule is not None or (max_bytes is not None and max_bytes != engine.max_bytes):
            engine = HashLife(engine.rule if rule is None else rule,
                              max_bytes=engine.max_bytes if max_bytes is None else max_bytes)
        twin = Universe(engine, np.zeros((0, 0), np.uint8))
        if engine is self.engine:
            twin._store = self._store.copy()
            twin._root, twin._level, twin._x, twin._y = self._root, self._level, self._x, self._y
        else:
            levels, children, leaves, _ = self.records()
            if levels.size:
                twin._x, twin._y = self._x, self._y
                twin._load_records(levels, children, leaves)
                twin._level_up(self._level)
        twin.generation = self.generation
        return twin

    def _level_up(self, level: int) -> None:
        """Grow the root (centred, as :func:`expand` does) until it is at ``level``, keeping the
        corner ``(x, y)`` of the original root of that level."""
        nodes, table, meta = self._store.S[:3]
        while self._level < level:
            root = int(expand(nodes, table, meta, self._root))
            if root < 0:
                raise MemoryBudgetError(f"HashLife store full at max_bytes={self._store.max_bytes}")
            half = 1 << (self._level - 1)
            self._root, self._level, self._x, self._y = root, self._level + 1, self._x - half, self._y - half

    def reset(self, cells: np.ndarray, origin: tuple[int, int] = (0, 0)) -> Universe:
        """Replace the cells (``(H, W)`` 0/1, ``cells[0, 0]`` at ``origin``), keeping the store and
        its cached results for reuse; garbage is collected when the store is half full. For
        callers that rebuild a tree every generation (bounded grids). Returns self."""
        cells = _as_cells(cells)
        if self._store.used > self._store.capacity // 2:
            self._store.collect([], keep_results=True)
        self._build(cells, _int_origin(origin))
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
        # one assignment: a Ctrl-C between statements never leaves root and generation apart
        self._root, self._level, self._x, self._y, self.generation = nxt, level, x, y, self.generation + (1 << j)
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
        """``(x, y, w, h)`` of the live cells, from the tree, or None when there are none.

        Remembered for the current tree: loading a file asks for it twice (the pattern's origin,
        the cell budget) and the frontier walk was most of a small macrocell file's load time.
        Node numbers hold their cells until a garbage collection renumbers them, so the key is
        the root, its corner and the store's collection count."""
        nodes, meta, marks = self._store.S[0], self._store.S[2], self._store.S[4]
        key = (self._root, self._x, self._y, int(meta[GC_RUNS]), id(self._store))
        memo = getattr(self, "_box_memo", None)
        if memo is not None and memo[0] == key:
            return memo[1]
        marks[:] = 0  # the GC marks double as the frontier's "seen" flags
        y0, y1, x0, x1 = (int(v) for v in extent(nodes, meta, marks, self._root))
        box = None if y0 < 0 else (self._x + x0, self._y + y0, x1 - x0 + 1, y1 - y0 + 1)
        self._box_memo = (key, box)
        return box

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

    def picture(self, max_px: int = 1024) -> np.ndarray:
        """``(h, w)`` uint8 0/1: the bounding box downsampled by the smallest power of two that
        keeps both sides within ``max_px`` (pixels aligned on the tree), a pixel 1 when any cell
        below it is. Cost follows the pixels, not the cells; ``(1, 1)`` zeros when empty."""
        max_px = _int(max_px, "max_px", 1)
        box = self.bounding_box()
        if box is None:
            return np.zeros((1, 1), np.uint8)
        local = (box[0] - self._x, box[1] - self._y, box[2], box[3])
        return picture(self._store.S[0], self._store.S[2], self._root, local, max_px)[0]

    def stats(self) -> dict[str, int | float]:
        """Store statistics (nodes, capacity, bytes, gc_runs, cache_hits, cache_misses,
        hit_rate) plus the root's ``level``."""
        return {**self._store.stats(), "level": self._level}

    def __repr__(self) -> str:
        return f"Universe(rule={self.rule.canonical()!r}, generation={self.generation}, population={self.population})"


def _canonical(records: tuple[np.ndarray, np.ndarray, np.ndarray], ids: dict) -> int:
    """The id of the records' root in ``ids`` (shared between calls): equal subtrees get equal ids
    whatever their numbering (0: empty)."""
    levels, children, leaves = records
    mine = [0]
    for level, kids, bits in zip(levels.tolist(), children.tolist(), leaves.tolist(), strict=True):
        key = (level, bits) if level == 3 else (level, *(mine[k] for k in kids))
        mine.append(ids.setdefault(key, len(ids) + 1))
    return mine[-1]


def root_corner(level: int) -> tuple[int, int]:
    """Top-left ``(x, y)`` of a centred root of ``level``, as Golly places it (its SE child's
    top-left cell at ``(0, 1)``): every node below a root then lies on one lattice, corners
    ``(a * 2**k, 1 + b * 2**k)`` at level ``k``, and macrocell files map onto trees node for node."""
    half = 1 << (level - 1)
    return -half, 1 - half


def _holds(corner: tuple[int, int], level: int, x0: int, y0: int, x1: int, y1: int) -> bool:
    """True when the square of ``level`` at ``corner`` holds ``[x0, x1] x [y0, y1]``."""
    side = 1 << level
    return corner[0] <= x0 and x1 < corner[0] + side and corner[1] <= y0 and y1 < corner[1] + side


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
