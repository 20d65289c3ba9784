"""Splitting a stabilised pattern into its separate objects, as apgsearch does.

1. *Seeds*: the 8-connected components of the live cells.
2. A group of cells is *self-sufficient* when, run alone on the unbounded plane, it repeats its
   first generation (up to a shift) within ``max_period`` generations: a still life, oscillator
   or spaceship in isolation. A group that is not (half of an aircraft carrier dies alone; a
   phase of a pentadecathlon may fall into pieces) is merged with its nearest group.
3. Two self-sufficient groups whose envelopes (every cell alive in some phase) come within two
   cells of each other might interact: they are run together for the least common multiple of
   their periods and compared, generation by generation, with the two run apart. If anything
   differs they interact and are merged (a pseudo-object is split only when its parts really
   are independent: a bi-block is two blocks, a carrier is one carrier, a blinker next to a
   block is two objects exactly when neither changes the other).
   Groups whose envelopes stay three or more cells apart cannot interact under a range-1 rule:
   no cell has a neighbour in both (``2 * range + 1`` for Larger than Life).

Steps 2 and 3 repeat until nothing merges. Behaviours are cached by the cells' bytes, so the
thousands of blocks and blinkers of a soup search are each worked out once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..crop import crop
from .apgcode import apgcode
from .evolve import State, Stepper, same
from .labels import close_pairs, group_crops, island_crops, label_islands, nearest_group

#: Longest period looked for when deciding whether a group is self-sufficient.
MAX_PERIOD = 128
#: A group that is not self-sufficient merges with its nearest group within this many cells.
MERGE_DISTANCE = 8
#: Code for a group that is no still life, oscillator or spaceship within ``MAX_PERIOD``.
UNRESOLVED = "zz_UNRESOLVED"
#: Pairs of groups remembered as interacting or not (by cells and offset) before the memo starts over.
PAIR_CACHE = 200_000
_MISSING = object()


@dataclass(frozen=True)
class Behaviour:
    """How a group behaves alone: period, shift per period, each phase as ``(offset, cells)``."""

    kind: str
    period: int
    displacement: tuple[int, int]
    phases: tuple[tuple[tuple[int, int], np.ndarray], ...]
    apgcode: str

    def at(self, origin: tuple[int, int], gen: int) -> State:
        """The group's state ``gen`` generations after it was at ``origin``."""
        (dx, dy), cells = self.phases[gen % self.period]
        laps = gen // self.period
        return cells, (origin[0] + dx + laps * self.displacement[0], origin[1] + dy + laps * self.displacement[1])

    def envelope(self, origin: tuple[int, int]) -> State:
        """Every cell alive in some phase of one period (for a spaceship: along one period's path)."""
        cells, (x, y) = self._envelope
        return cells, (origin[0] + x, origin[1] + y)

    @cached_property
    def envelope_box(self) -> tuple[int, int, int, int]:
        """``(x, y, width, height)`` of the envelope at origin (0, 0)."""
        cells, (x, y) = self._envelope
        return x, y, cells.shape[1], cells.shape[0]

    @cached_property
    def _envelope(self) -> State:
        """The envelope at origin (0, 0), worked out once per behaviour."""
        return compose([(c != 0).astype(np.uint8), o] for o, c in self.phases)


@dataclass(frozen=True)
class Found:
    """One object of a pattern: its apgcode, behaviour (None if unresolved) and current cells."""

    apgcode: str
    behaviour: Behaviour | None
    cells: np.ndarray
    origin: tuple[int, int]

    @property
    def kind(self) -> str:
        return self.behaviour.kind if self.behaviour else "unresolved"


def compose(states) -> State:
    """Overlay several ``(cells, origin)`` states into one cropped state (cell-wise maximum)."""
    states = [(np.asarray(c), o) for c, o in states if np.asarray(c).size]
    if not states:
        return np.zeros((0, 0), np.uint8), (0, 0)
    x0 = min(o[0] for _, o in states)
    y0 = min(o[1] for _, o in states)
    x1 = max(o[0] + c.shape[1] for c, o in states)
    y1 = max(o[1] + c.shape[0] for c, o in states)
    out = np.zeros((y1 - y0, x1 - x0), dtype=np.uint8)
    for c, (x, y) in states:
        view = out[y - y0 : y - y0 + c.shape[0], x - x0 : x - x0 + c.shape[1]]
        np.maximum(view, c, out=view)
    return crop(out, (x0, y0))


class Splitter:
    """Object separation for one rule, with caches shared across calls."""

    def __init__(self, stepper: Stepper, max_period: int = MAX_PERIOD):
        self.stepper = stepper
        self.max_period = max_period
        self._behaviour: dict[tuple, Behaviour | None] = {}
        self._pairs: dict[tuple, bool] = {}

    # -- behaviour of one group in isolation ---------------------------------------------
    def behaviour(self, cells: np.ndarray) -> Behaviour | None:
        key = (cells.shape, cells.tobytes())
        result = self._behaviour.get(key, _MISSING)
        if result is not _MISSING:
            return result
        result = None
        found = self.stepper.period(cells, self.max_period)
        if found is not None and found[0] == 0:  # dies or does not recur: most misses of a big search
            self._behaviour[key] = None
            return None
        start: State = (cells, (0, 0))
        phases = [((0, 0), cells)]
        state = start
        for gen in range(1, self.max_period + 1):
            state = self.stepper.step(state)
            if state[0].size == 0:
                break
            if same(state[0], cells):
                displacement = state[1]
                kind = "spaceship" if displacement != (0, 0) else ("still_life" if gen == 1 else "oscillator")
                code = apgcode([p[1] for p in phases], kind, gen)
                result = Behaviour(kind, gen, displacement, tuple(phases), code)
                break
            phases.append((state[1], state[0]))
        self._behaviour[key] = result
        return result

    # -- do two self-sufficient groups interact? -----------------------------------------
    def interact(self, a: State, ba: Behaviour, b: State, bb: Behaviour) -> bool:
        """True when the two self-sufficient groups, run together, differ from each run alone
        (not memoised here: :meth:`_pair_interacts` remembers the answers, in bounded memory)."""
        lcm = ba.period * bb.period // math.gcd(ba.period, bb.period)
        span = lcm if lcm <= 4 * self.max_period else 2 * max(ba.period, bb.period)
        state = compose([a, b])
        result = False
        for gen in range(1, span + 1):
            state = self.stepper.step(state)
            expected = compose([ba.at(a[1], gen), bb.at(b[1], gen)])
            if state[1] != expected[1] or not same(state[0], expected[0]):
                result = True
                break
        return result

    # -- the whole decomposition ---------------------------------------------------------
    def split(self, state: State) -> list[Found]:
        """The objects of a cropped ``(cells, origin)`` state, each named by its apgcode."""
        states, info = self.resolve(state)
        return [Found(b.apgcode if b else UNRESOLVED, b, s[0], s[1]) for s, b in zip(states, info, strict=True)]

    def resolve(self, state: State) -> tuple[list[State], list[Behaviour | None]]:
        """:meth:`split` as two lists, one entry an object, with no :class:`Found` made: each object's
        cropped ``(cells, origin)`` and its behaviour (None when unresolved). For a soup census, which
        needs the apgcodes and little else (24 objects a soup: Found objects cost 19 of 93 us)."""
        cells, (ox, oy) = state
        if not cells.any():
            return [], []
        # Most ash is islands that are objects on their own (every island self-sufficient, no two
        # interacting): then the answer is the islands, found in one pass with no union-find.
        states = _cut(*island_crops(np.ascontiguousarray(cells, dtype=np.uint8)), ox, oy)
        cache = self._behaviour
        info = []
        resolved = True
        for piece, _ in states:  # the cache looked up here: nearly every island is in it
            found = cache.get((piece.shape, piece.tobytes()), _MISSING)
            if found is _MISSING:
                found = self.behaviour(piece)
            if found is None:
                resolved = False
            info.append(found)
        if len(states) == 1 or (resolved and not self._interacting_pairs(states, info)):
            return states, info
        return self._split_groups(state)

    def _split_groups(self, state: State) -> tuple[list[State], list[Behaviour | None]]:
        """:meth:`resolve` by union-find over groups, merging until nothing merges (the general case)."""
        cells, (ox, oy) = state
        ys, xs = np.nonzero(cells)
        if ys.size == 0:
            return [], []
        cells_of = _Groups(np.stack([ys + oy, xs + ox], axis=1), cells[ys, xs])
        while True:
            members = cells_of.groups()
            states = cells_of.states(members)
            info = [self.behaviour(s[0]) for s in states]
            if self._merge_dependents(cells_of, members, info):
                continue
            if not self._merge_interacting(cells_of, members, states, info):
                return states, info

    def _merge_dependents(self, cells_of: _Groups, members: list[np.ndarray], info: list) -> bool:
        """Join each group that is not self-sufficient to its nearest neighbour; True if any joined."""
        merged = False
        if len(members) == 1 or all(b is not None for b in info):
            return False
        coords = cells_of.coords
        y0, x0 = coords.min(axis=0)
        ranks = np.zeros(tuple(coords.max(axis=0) - (y0, x0) + 1), dtype=np.int32)
        for i, m in enumerate(members):
            ranks[coords[m, 0] - y0, coords[m, 1] - x0] = i + 1
        for i, m in enumerate(members):
            if info[i] is not None:
                continue
            # the lowest-ranked group at the least distance, as an argmin over all other cells would pick
            k = nearest_group(ranks, coords[m, 0] - y0, coords[m, 1] - x0, i, MERGE_DISTANCE)
            if k >= 0:
                merged |= cells_of.union(int(m[0]), int(members[k][0]))
        return merged

    def _close_pairs(self, states: list[State], info: list) -> list[tuple[int, int]]:
        """Pairs ``(i, j)``, ``i < j`` in row-major order, of resolved groups whose envelopes' boxes
        come within ``2 * reach`` cells (no other pair can share a neighbour)."""
        # envelopes (x, y, width, height) from their origins: array sums, not a call per group
        sizes = np.array([b.envelope_box if b is not None else (0, 0, s[0].shape[1], s[0].shape[0])
                          for s, b in zip(states, info, strict=True)], dtype=np.int64).reshape(-1, 4)
        corners = np.array([s[1] for s in states], dtype=np.int64).reshape(-1, 2) + sizes[:, :2]
        boxes = np.concatenate([corners, corners + sizes[:, 2:]], axis=1)
        resolved = np.array([b is not None for b in info], dtype=np.bool_)
        return close_pairs(boxes, resolved, 2 * self.stepper.reach).tolist()

    def _pair_interacts(self, a: State, ba: Behaviour, b: State, bb: Behaviour) -> bool:
        """True when the envelopes of two self-sufficient groups come within ``2 * reach`` cells and
        the groups interact; cached by both groups' cells and their offset."""
        offset = (b[1][0] - a[1][0], b[1][1] - a[1][1])
        key = (a[0].shape, a[0].tobytes(), b[0].shape, b[0].tobytes(), offset)
        found = self._pairs.get(key)
        if found is None:
            found = _close(ba.envelope(a[1]), bb.envelope(b[1]), 2 * self.stepper.reach) and self.interact(a, ba, b, bb)
            if len(self._pairs) >= PAIR_CACHE:  # a long search meets ever new pairs: keep memory bounded
                self._pairs.clear()
            self._pairs[key] = found
        return found

    def _interacting_pairs(self, states: list[State], info: list) -> bool:
        """True when some two self-sufficient groups interact."""
        return any(self._pair_interacts(states[i], info[i], states[j], info[j])
                   for i, j in self._close_pairs(states, info))

    def _merge_interacting(self, cells_of: _Groups, members: list[np.ndarray], states: list[State],
                           info: list) -> bool:
        """Join self-sufficient groups whose envelopes come close and that interact; True if any joined."""
        merged = False
        for i, j in self._close_pairs(states, info):  # in (i, j) order, as nested loops
            if self._pair_interacts(states[i], info[i], states[j], info[j]):
                merged |= cells_of.union(int(members[i][0]), int(members[j][0]))
        return merged


def _cut(buffer: np.ndarray, boxes: np.ndarray, ox: int, oy: int) -> list[State]:
    """The ``(cells, origin)`` states of :func:`.labels.group_crops`-style ``(buffer, boxes)``, whose
    boxes are relative to ``(ox, oy)``."""
    out = []
    offset = 0
    for top, left, h, w in boxes.tolist():
        out.append((buffer[offset : offset + h * w].reshape(h, w), (left + ox, top + oy)))
        offset += h * w
    return out


class _Groups:
    """Live cells (``coords`` ``(N, 2)`` as ``(y, x)``, ``values`` their states) in union-find groups,
    starting from the 8-connected components."""

    def __init__(self, coords: np.ndarray, values: np.ndarray):
        self.coords = coords
        self.values = values
        # 8-connected components (label_islands numbers them by their first cell in raster order, and
        # coords come in raster order): each cell's parent is its component's first cell
        y0, x0 = coords.min(axis=0)
        grid = np.zeros(tuple(coords.max(axis=0) - (y0, x0) + 1), dtype=np.uint8)
        grid[coords[:, 0] - y0, coords[:, 1] - x0] = 1
        labels, _ = label_islands(grid, 1)
        component = labels[coords[:, 0] - y0, coords[:, 1] - x0]
        _, first = np.unique(component, return_index=True)  # labels 1..n, each one's first cell
        self.parent = first[component - 1].tolist()

    def find(self, i: int) -> int:
        parent = self.parent
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(self, i: int, j: int) -> bool:
        """Join the groups of cells ``i`` and ``j``; False when they were one group already."""
        ri, rj = self.find(i), self.find(j)
        if ri == rj:
            return False
        self.parent[max(ri, rj)] = min(ri, rj)
        return True

    def groups(self) -> list[np.ndarray]:
        """The cell indices of each group, groups ordered by their smallest index."""
        roots = np.array(self.parent)
        while True:  # pointer jumping: every cell's root
            up = roots[roots]
            if np.array_equal(up, roots):
                break
            roots = up
        order = np.argsort(roots, kind="stable")
        cuts = np.flatnonzero(np.diff(roots[order])) + 1
        return np.split(order, cuts)

    def states(self, members: list[np.ndarray]) -> list[State]:
        """The cropped ``(cells, origin)`` of each group, cut in one pass (:func:`.labels.group_crops`)."""
        ranks = np.empty(len(self.coords), dtype=np.int64)
        for i, m in enumerate(members):
            ranks[m] = i
        buffer, boxes = group_crops(self.coords, self.values, ranks, len(members))
        return _cut(buffer, boxes, 0, 0)


def _close(a: State, b: State, distance: int = 2) -> bool:
    """True when some cell of ``a`` lies within Chebyshev ``distance`` of some cell of ``b``."""
    ay, ax = np.nonzero(a[0])
    by, bx = np.nonzero(b[0])
    ay, ax = ay + a[1][1], ax + a[1][0]
    by, bx = by + b[1][1], bx + b[1][0]
    d = np.maximum(np.abs(ay[:, None] - by[None, :]), np.abs(ax[:, None] - bx[None, :]))
    return bool(d.min() <= distance)
