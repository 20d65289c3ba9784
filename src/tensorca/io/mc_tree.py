"""The node table of a macrocell file being read, in compact typed arrays, and its bounding box.

A hostile ``.mc`` can hold tens of millions of short node lines, so the table costs a few bytes
per node and nothing per cell: per node a level (``int16``), a reference (``int32``: a row of
``kids`` for a non-leaf, of ``tiles`` for a leaf) and a non-empty flag; per non-leaf four child
numbers (``int32``); per leaf its tile, packed (8 bytes for an 8x8 two-state leaf, 4 for a 2x2
multi-state one). Row 0 of every table is the empty node.

The bounding box is computed after reading, for the nodes reachable from the root only, one
level at a time with NumPy (Python ints above level 61, where ``int64`` could overflow). More
than four non-empty reachable nodes at one level of 2**62 cells or more means live cells more
than 2**62 apart, which no cell budget admits: that is refused at once.
"""

from __future__ import annotations

from array import array

import numpy as np

from ..errors import PatternError

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 inclusive, node-local coordinates
_INT64_LEVELS = 61  # node-local coordinates of levels up to here (and sums of two) fit int64
_CHUNK = 1 << 16


class NodeTable:
    """Nodes as read (children before parents); ``leaf_level`` is 3 (8x8) or 1 (2x2)."""

    def __init__(self) -> None:
        self.level = array("h", [0])
        self.ref = array("i", [0])
        self.nonempty = bytearray(1)
        self.kids = array("i", [0, 0, 0, 0])
        self.tiles = bytearray()  # packed tiles; tile 0 (empty) added with the first leaf
        self.tile_bytes = 0
        self.kind: str | None = None  # "two" or "multi"
        self.first_small_node: tuple[int, int, int] | None = None  # (line, column, level) of a level < 4 node
        self.leaf_cache: dict[str, bytes] = {}  # leaf line -> packed tile (files repeat leaves)

    def __len__(self) -> int:
        return len(self.level)

    @property
    def leaf_level(self) -> int:
        return 3 if self.kind == "two" else 1

    def add_leaf(self, cells: np.ndarray, level: int) -> None:
        """A leaf of ``cells`` (``(8, 8)`` two-state or ``(2, 2)`` states, ``uint8``)."""
        packed = np.packbits(cells, axis=1).tobytes() if cells.shape[0] == 8 else cells.tobytes()
        self.add_packed_leaf(packed, level)

    def add_packed_leaf(self, packed: bytes, level: int) -> None:
        """A leaf given as its packed tile (see the module docstring)."""
        if not self.tiles:
            self.tile_bytes = len(packed)
            self.tiles += bytes(len(packed))
        self._append(level, len(self.tiles) // self.tile_bytes, any(packed))
        self.tiles += packed

    def add_node(self, level: int, kids: tuple[int, int, int, int]) -> None:
        """A ``2**level`` square of four earlier nodes (0 = empty)."""
        nonempty = self.nonempty
        self._append(level, len(self.kids) // 4, any(nonempty[k] for k in kids))
        self.kids.extend(kids)

    def _append(self, level: int, ref: int, nonempty: bool) -> None:
        if len(self.level) >= 2**31 - 1:
            raise PatternError("more than 2**31 nodes in a macrocell file")
        self.level.append(level)
        self.ref.append(ref)
        self.nonempty.append(nonempty)

    def packed_tiles(self) -> np.ndarray:
        """``(T, bytes)`` ``uint8``: every tile as packed, tile 0 empty."""
        return np.frombuffer(self.tiles, dtype=np.uint8).reshape(-1, self.tile_bytes)

    def unpack(self, packed: np.ndarray) -> np.ndarray:
        """Packed tiles ``(..., bytes)`` -> ``(..., side, side)`` ``uint8`` states."""
        if self.kind == "two":
            return np.unpackbits(packed, axis=-1).reshape(packed.shape[:-1] + (8, 8))
        return packed.reshape(packed.shape[:-1] + (2, 2))


def root_box(table: NodeTable, root: int, source: str | None) -> Box | None:
    """The bounding box of the live cells of node ``root`` in its local coordinates (None if empty)."""
    if not table.nonempty[root]:
        return None
    level = np.frombuffer(table.level, dtype=np.int16)
    ref = np.frombuffer(table.ref, dtype=np.int32)
    kids = np.frombuffer(table.kids, dtype=np.int32).reshape(-1, 4)
    nonempty = np.frombuffer(bytes(table.nonempty), dtype=bool)
    top, leaf = int(level[root]), table.leaf_level
    reach = {top: np.array([root], dtype=np.int64)}  # non-empty reachable nodes per level, sorted
    for k in range(top, leaf, -1):
        children = np.unique(kids[ref[reach[k]]])
        reach[k - 1] = children[nonempty[children]]
        if k - 1 > _INT64_LEVELS and reach[k - 1].size > 4:
            raise PatternError("live cells lie more than 2**62 cells apart, beyond any cell budget", source=source)
    boxes = _leaf_boxes(table, ref[reach[leaf]])
    for k in range(leaf + 1, top + 1):
        boxes = _parent_boxes(kids[ref[reach[k]]], reach[k - 1], boxes, 1 << (k - 1), k > _INT64_LEVELS)
    return tuple(int(v[0]) for v in boxes)  # type: ignore[return-value]


def _leaf_boxes(table: NodeTable, tile_ids: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(x0, y0, x1, y1)`` ``int64`` arrays of the live cells of each tile (all non-empty)."""
    tiles = table.packed_tiles()
    out = [np.empty(tile_ids.size, dtype=np.int64) for _ in range(4)]
    for lo in range(0, tile_ids.size, _CHUNK):
        cells = table.unpack(tiles[tile_ids[lo : lo + _CHUNK]]) != 0  # (n, side, side)
        cols, rows = cells.any(axis=1), cells.any(axis=2)
        side = cells.shape[-1]
        out[0][lo : lo + _CHUNK] = cols.argmax(axis=1)
        out[1][lo : lo + _CHUNK] = rows.argmax(axis=1)
        out[2][lo : lo + _CHUNK] = side - 1 - cols[:, ::-1].argmax(axis=1)
        out[3][lo : lo + _CHUNK] = side - 1 - rows[:, ::-1].argmax(axis=1)
    return tuple(out)


def _parent_boxes(children: np.ndarray, below: np.ndarray, boxes: tuple[np.ndarray, ...], half: int,
                  big: bool) -> tuple[np.ndarray, ...]:
    """Boxes of parents with ``children`` ``(n, 4)`` (nw ne sw se), from the boxes of the sorted
    non-empty nodes ``below``; ``half`` is a child's side. ``big``: Python ints (object arrays)."""
    dtype = object if big else np.int64
    lo_fill, hi_fill = (float("inf"), float("-inf")) if big else (np.iinfo(np.int64).max, np.iinfo(np.int64).min)
    pos = np.searchsorted(below, children)
    present = (pos < below.size) & (below[np.minimum(pos, below.size - 1)] == children)
    pos = np.minimum(pos, below.size - 1)
    dx = np.array([0, half, 0, half], dtype=dtype)
    dy = np.array([0, 0, half, half], dtype=dtype)
    out = []
    for axis, (coords, shift) in enumerate(zip(boxes, (dx, dy, dx, dy), strict=True)):
        values = coords.astype(dtype)[pos] + shift
        if axis < 2:
            out.append(np.where(present, values, lo_fill).min(axis=1))
        else:
            out.append(np.where(present, values, hi_fill).max(axis=1))
    return tuple(out)


#: Bit-reversed bytes: a packed leaf row (column 0 in the top bit) -> column c at bit c.
_REVERSED = np.array([int(f"{b:08b}"[::-1], 2) for b in range(256)], dtype=np.uint8)


def reachable(table: NodeTable, root: int) -> np.ndarray:
    """Sorted numbers of the non-empty nodes reachable from ``root`` (itself included when
    non-empty), one level at a time: children before parents, as in the file."""
    if not table.nonempty[root]:
        return np.zeros(0, np.int64)
    level = np.frombuffer(table.level, dtype=np.int16)
    ref = np.frombuffer(table.ref, dtype=np.int32)
    kids = np.frombuffer(table.kids, dtype=np.int32).reshape(-1, 4)
    nonempty = np.frombuffer(bytes(table.nonempty), dtype=bool)
    found = [np.array([root], dtype=np.int64)]
    for _ in range(int(level[root]) - table.leaf_level):
        children = np.unique(kids[ref[found[-1]]])
        found.append(children[nonempty[children]].astype(np.int64))
    return np.unique(np.concatenate(found))


def records(table: NodeTable, root: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """HashLife records (:mod:`tensorca.hashlife.records`) of the non-empty nodes reachable from
    ``root`` (:func:`reachable`; a file may hold nodes nothing refers to, millions in a hostile one):
    ``levels`` ``(N,)`` int64, ``children`` ``(N, 4)`` int64 (1-based record numbers, 0 empty),
    ``leaves`` ``(N,)`` uint64 (cell (r, c) at bit ``8r + c``); the root last. O(nodes) array work:
    no cells."""
    keep = reachable(table, root)
    level = np.frombuffer(table.level, dtype=np.int16)[keep].astype(np.int64)
    ref = np.frombuffer(table.ref, dtype=np.int32)[keep]
    kids = np.frombuffer(table.kids, dtype=np.int32).reshape(-1, 4)
    leaf = level == table.leaf_level
    numbers = kids[np.where(leaf, 0, ref)].astype(np.int64)  # file numbers of the children
    at = np.minimum(np.searchsorted(keep, numbers), max(keep.size - 1, 0))
    present = (numbers != 0) & (keep[at] == numbers) if keep.size else np.zeros(numbers.shape, bool)
    children = np.where(present & ~leaf[:, None], at + 1, 0)  # an empty child is record 0
    leaves = np.zeros(level.size, np.uint64)
    if leaf.any():
        packed = _REVERSED[table.packed_tiles()[ref[leaf]]]  # (n, 8) rows, column c at bit c
        leaves[leaf] = np.ascontiguousarray(packed).view("<u8").reshape(-1).astype(np.uint64)
    return level, children, leaves
