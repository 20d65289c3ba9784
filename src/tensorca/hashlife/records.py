"""Trees to and from macrocell-style records, without dense cells.

A record list describes a tree children-first, as Golly's macrocell format does:

- ``levels``: ``(N,)`` int64: 3 for an 8x8 leaf, ``k >= 4`` for a ``2**k`` square node.
- ``children``: ``(N, 4)`` int64 ``(nw, ne, sw, se)`` of a node: 1-based indices of earlier
  records, 0 for an empty quadrant (ignored for leaves).
- ``leaves``: ``(N,)`` uint64 cells of a leaf, cell (row r, column c) at bit ``8*r + c``
  (ignored for nodes).

The last record is the root. A macrocell reader maps its lines onto these arrays and a writer
prints them; both stay O(records), so a 30720^2 metapixel pattern never becomes dense.
"""

from __future__ import annotations

import numpy as np

from .._numba import njit
from .tree import EMPTY, LEAF_LEVEL, LEVEL, MAX_LEVEL, USED, find_node

#: Error codes of :func:`build_records` (negative, with the record index in ``out[1]``).
FULL, BAD_LEVEL, BAD_CHILD = -1, -2, -3


@njit(cache=True, inline="always")
def _reverse4(v: int) -> int:
    """The 4 low bits of ``v`` reversed (a leaf row's column 0 is bit 0; a 4x4 word's is bit 3)."""
    return ((v & 1) << 3) | ((v & 2) << 1) | ((v >> 1) & 2) | ((v >> 3) & 1)


@njit(cache=True, inline="always")
def _quadrant(bits, rows: int, shift: int) -> int:
    """The 4x4 word of leaf rows ``rows .. rows + 3``, columns ``shift .. shift + 3`` (row 0 in
    the top nibble, column 0 in each nibble's top bit) of 64 leaf bits (cell (r, c) at bit 8r + c)."""
    word = 0
    for r in range(4):
        row = np.int64((bits >> np.uint64(8 * (rows + r) + shift)) & np.uint64(15))
        word |= _reverse4(row) << (12 - 4 * r)
    return word


@njit(cache=True)
def build_records(nodes, table, meta, levels, children, leaves, out) -> None:
    """Build the tree of the records; ``out`` (``(2,)`` int64) gets ``(root, 0)`` or ``(error code,
    record index)``: FULL, BAD_LEVEL (outside 3..62), BAD_CHILD (index not an earlier record, or a
    child whose level is not one less). Leaves become their four 4x4 words with no allocation."""
    n = levels.shape[0]
    ids = np.empty(n, np.int64)
    for i in range(n):
        lvl = levels[i]
        out[1] = i
        if lvl < LEAF_LEVEL or lvl > MAX_LEVEL:
            out[0] = BAD_LEVEL
            return
        if lvl == LEAF_LEVEL:
            bits = leaves[i]
            ids[i] = find_node(nodes, table, meta, LEAF_LEVEL, _quadrant(bits, 0, 0), _quadrant(bits, 0, 4),
                               _quadrant(bits, 4, 0), _quadrant(bits, 4, 4))
        else:
            empty = meta[EMPTY + lvl - 1]
            for k in range(4):
                c = children[i, k]
                if c < 0 or c > i or (c > 0 and levels[c - 1] != lvl - 1):
                    out[0] = BAD_CHILD
                    return
            c0, c1, c2, c3 = children[i, 0], children[i, 1], children[i, 2], children[i, 3]
            ids[i] = find_node(nodes, table, meta, lvl, empty if c0 == 0 else ids[c0 - 1],
                               empty if c1 == 0 else ids[c1 - 1], empty if c2 == 0 else ids[c2 - 1],
                               empty if c3 == 0 else ids[c3 - 1])
        if ids[i] < 0:
            out[0] = FULL
            return
    out[0] = ids[n - 1]
    out[1] = 0


@njit(cache=True)
def _leaf_bits(nodes, n: int) -> np.uint64:
    """64 leaf bits (cell (r, c) at bit 8r + c) of leaf ``n``."""
    bits = np.uint64(0)
    for q in range(4):
        word = nodes[n, q]
        for r in range(4):
            for c in range(4):
                if (word >> (15 - 4 * r - c)) & 1:
                    bits |= np.uint64(1) << np.uint64(8 * (4 * (q >> 1) + r) + 4 * (q & 1) + c)
    return bits


@njit(cache=True)
def export_records(nodes, meta, root: int):
    """``(levels, children, leaves)`` of the non-empty nodes reachable from ``root``,
    children first (index order: children always precede parents), root last."""
    used = meta[USED]
    keep = np.zeros(used, np.uint8)
    keep[root] = root != meta[EMPTY + nodes[root, LEVEL]]
    for n in range(used - 1, -1, -1):  # parents come after their children: one backward sweep
        if keep[n] and nodes[n, LEVEL] > LEAF_LEVEL:
            for q in range(4):
                c = nodes[n, q]
                keep[c] = c != meta[EMPTY + nodes[c, LEVEL]]
    count = int(keep.sum())
    number = np.zeros(used, np.int64)
    levels = np.empty(count, np.int64)
    children = np.zeros((count, 4), np.int64)
    leaves = np.zeros(count, np.uint64)
    i = 0
    for n in range(used):
        if not keep[n]:
            continue
        number[n] = i + 1
        levels[i] = nodes[n, LEVEL]
        if levels[i] == LEAF_LEVEL:
            leaves[i] = _leaf_bits(nodes, n)
        else:
            for q in range(4):
                children[i, q] = number[nodes[n, q]]  # 0 for an empty child: never numbered
        i += 1
    return levels, children, leaves

