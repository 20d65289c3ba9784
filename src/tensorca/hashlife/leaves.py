"""Leaf stepping: 4x4 blocks as 16-bit words, advanced through a table built from the rule.

A 4x4 block is a 16-bit word with cell ``(r, c)`` (row r from the top, column c from the left)
at bit ``15 - 4*r - c``. A leaf (8x8 cells) is four such words ``(nw, ne, sw, se)``.

The step table ``t4`` maps a 4x4 block to its centre 2x2 one generation later, placed at bits
5, 4, 1, 0 (the cells ``(2, 2), (2, 3), (3, 2), (3, 3)`` of a 4x4 word), so that four results
shift straight into a new 4x4 word. It is derived from the rule's 512-entry table (index: the
3x3 window, NW the most significant bit, SE bit 0), so any two-state 3x3 rule runs.

The helpers are ordinary compiled functions that LLVM inlines, not Numba's ``inline="always"``:
Numba's own inlining re-typed ``_advance`` at each of its nine call sites in ``step16`` and took 16 s
of the first run's compile, for no speed (2026-12-04).

The base case of the recursion is a level-4 node (16x16 cells, four leaves): its centre 8x8
after 1, 2 or 4 generations, computed from table lookups only.
"""

from __future__ import annotations

import numpy as np

from .tree import BYTES, META, NODES, TABLE, find_node, typed

#: Bit of each output cell of the table: (1, 1) -> 5, (1, 2) -> 4, (2, 1) -> 1, (2, 2) -> 0.
_OUT = ((1, 1, 5), (1, 2, 4), (2, 1, 1), (2, 2, 0))


def step_table(lookup: np.ndarray) -> np.ndarray:
    """The ``(65536,)`` uint8 4x4 -> 2x2 table of a rule's ``(512,)`` uint8 0/1 ``lookup``."""
    idx = np.arange(65536, dtype=np.int64)
    cell = [[(idx >> (15 - 4 * r - c)) & 1 for c in range(4)] for r in range(4)]
    out = np.zeros(65536, np.uint8)
    for r, c, bit in _OUT:
        window = np.zeros(65536, np.int64)
        for dy in range(3):
            for dx in range(3):
                window |= cell[r - 1 + dy][c - 1 + dx] << (8 - (3 * dy + dx))
        out |= (lookup[window].astype(np.uint8) & 1) << bit
    return out


@typed(f"UniTuple(int64, 9)({BYTES}, int64, int64, int64, int64)", cache=True)
def _nine(t4, a: int, b: int, c: int, d: int):
    """The nine 2x2 results (one generation) tiling the centre 6x6 of the 8x8 ``(a, b, c, d)``."""
    t00 = np.int64(t4[a])
    t01 = np.int64(t4[((a << 2) & 0xCCCC) | ((b >> 2) & 0x3333)])
    t02 = np.int64(t4[b])
    t10 = np.int64(t4[((a << 8) & 0xFF00) | ((c >> 8) & 0x00FF)])
    t11 = np.int64(t4[((a << 10) & 0xCC00) | ((b << 6) & 0x3300) | ((c >> 6) & 0x00CC) | ((d >> 10) & 0x0033)])
    t12 = np.int64(t4[((b << 8) & 0xFF00) | ((d >> 8) & 0x00FF)])
    t20 = np.int64(t4[c])
    t21 = np.int64(t4[((c << 2) & 0xCCCC) | ((d >> 2) & 0x3333)])
    t22 = np.int64(t4[d])
    return t00, t01, t02, t10, t11, t12, t20, t21, t22


@typed(f"int64({BYTES}, int64, int64, int64, int64)", cache=True)
def res1(t4, a: int, b: int, c: int, d: int) -> int:
    """Centre 4x4 word of the 8x8 ``(a, b, c, d)`` one generation later."""
    t00, t01, t02, t10, t11, t12, t20, t21, t22 = _nine(t4, a, b, c, d)
    return (
        ((t00 & 0x01) << 15) | ((t01 & 0x03) << 13) | ((t02 & 0x02) << 11)
        | ((t10 & 0x11) << 7) | ((t11 & 0x33) << 5) | ((t12 & 0x22) << 3)
        | ((t20 & 0x10) >> 1) | ((t21 & 0x30) >> 3) | ((t22 & 0x20) >> 5)
    )


@typed(f"int64({BYTES}, int64, int64, int64, int64)", cache=True)
def _quad(t4, w: int, x: int, y: int, z: int) -> int:
    """2x2 result of the 4x4 made of four 2x2 results ``w x / y z`` (bits 5, 4, 1, 0 each)."""
    return np.int64(t4[(w << 10) | (x << 8) | (y << 2) | z])


@typed(f"int64({BYTES}, int64, int64, int64, int64)", cache=True)
def res2(t4, a: int, b: int, c: int, d: int) -> int:
    """Centre 4x4 word of the 8x8 ``(a, b, c, d)`` two generations later."""
    t00, t01, t02, t10, t11, t12, t20, t21, t22 = _nine(t4, a, b, c, d)
    return (
        (_quad(t4, t00, t01, t10, t11) << 10) | (_quad(t4, t01, t02, t11, t12) << 8)
        | (_quad(t4, t10, t11, t20, t21) << 2) | _quad(t4, t11, t12, t21, t22)
    )


@typed("int64(int64, int64, int64, int64)", cache=True)
def centre4(w: int, x: int, y: int, z: int) -> int:
    """Centre 4x4 word of the 8x8 made of the 4x4 words ``w x / y z``."""
    return ((w << 10) & 0xCC00) | ((x << 6) & 0x3300) | ((y >> 6) & 0x00CC) | ((z >> 10) & 0x0033)


@typed(f"int64({BYTES}, int64, int64, int64, int64, boolean)", cache=True)
def _advance(t4, a: int, b: int, c: int, d: int, two: bool) -> int:
    """``res2`` when ``two`` else ``res1``."""
    if two:
        return res2(t4, a, b, c, d)
    return res1(t4, a, b, c, d)


@typed(f"int64({NODES}, {TABLE}, {META}, {BYTES}, int64, int64)", cache=True, _nrt=False)  # no refcounts
def step16(nodes, table, meta, t4, node: int, j: int) -> int:
    """The leaf at the centre of level-4 ``node`` after ``2**min(j, 2)`` generations (-1: full).

    The 16x16 node is a 4x4 grid of 4x4 words ``qRC``; nine overlapping 8x8 windows give nine
    4x4 words ``rYX`` one or two generations on, tiling the centre 12x12; for 4 generations the
    four 8x8 windows of those go two generations further. Scalars only: no allocation."""
    nw, ne, sw, se = nodes[node, 0], nodes[node, 1], nodes[node, 2], nodes[node, 3]
    q00, q01, q10, q11 = nodes[nw, 0], nodes[nw, 1], nodes[nw, 2], nodes[nw, 3]
    q02, q03, q12, q13 = nodes[ne, 0], nodes[ne, 1], nodes[ne, 2], nodes[ne, 3]
    q20, q21, q30, q31 = nodes[sw, 0], nodes[sw, 1], nodes[sw, 2], nodes[sw, 3]
    q22, q23, q32, q33 = nodes[se, 0], nodes[se, 1], nodes[se, 2], nodes[se, 3]
    two = j > 0
    r00 = _advance(t4, q00, q01, q10, q11, two)
    r01 = _advance(t4, q01, q02, q11, q12, two)
    r02 = _advance(t4, q02, q03, q12, q13, two)
    r10 = _advance(t4, q10, q11, q20, q21, two)
    r11 = _advance(t4, q11, q12, q21, q22, two)
    r12 = _advance(t4, q12, q13, q22, q23, two)
    r20 = _advance(t4, q20, q21, q30, q31, two)
    r21 = _advance(t4, q21, q22, q31, q32, two)
    r22 = _advance(t4, q22, q23, q32, q33, two)
    if j >= 2:
        return find_node(
            nodes, table, meta, 3, res2(t4, r00, r01, r10, r11), res2(t4, r01, r02, r11, r12),
            res2(t4, r10, r11, r20, r21), res2(t4, r11, r12, r21, r22),
        )
    return find_node(
        nodes, table, meta, 3, centre4(r00, r01, r10, r11), centre4(r01, r02, r11, r12),
        centre4(r10, r11, r20, r21), centre4(r11, r12, r21, r22),
    )
