"""The node store: a hash-consed quadtree in struct-of-arrays form, with garbage collection.

A store is the tuple ``S = (nodes, table, meta, t4, marks, stack)`` (the last two: GC
scratch). Compiled functions take its arrays as separate arguments (a tuple argument costs a
reference-count update per array per call), and the hot ones are compiled without reference
counting at all (``_nrt=False``: they allocate nothing), which made stepping 5x faster:

- ``nodes``: ``(cap, 8)`` ``int32``, one 32-byte row per node: ``NW, NE, SW, SE`` (children of
  a node of level >= 4; a *leaf*, level 3 = 8x8 cells, keeps its four 4x4 quadrants there as
  16-bit words, see :mod:`tensorca.hashlife.leaves`), ``LEVEL`` (a level-k node covers
  ``2**k x 2**k`` cells), ``RES`` (cached centre after ``2**(level-2)`` generations, or -1),
  ``RESJ`` / ``RTAG`` (cached centre after ``2**RTAG`` generations, a smaller step, or -1).
- ``table``: ``(hcap,)`` ``int32`` open-addressing hash table (linear probing, -1 = free),
  keyed on ``(level, children)``; ``hcap`` is a power of two >= ``LOAD_SLOTS * cap``.
- ``meta``: ``(128,)`` ``int64``: counters (``USED`` nodes, cache ``HITS`` / ``MISSES``,
  ``FULL`` flag, ``GC_RUNS``), the ``ROOT`` a step must keep alive, and from ``EMPTY`` the
  empty node of each level 3..62.
- ``t4``: ``(65536,)`` ``uint8``: the rule's 4x4 -> 2x2 step table.

Nodes are only appended, so a node's children always have smaller indices than the node;
compaction keeps that order (populations are one forward pass, :func:`populations`). Results
may point either way. A node is empty exactly when it is its level's empty node.
"""

from __future__ import annotations

import numpy as np

from .._numba import njit

#: Columns of ``nodes``.
NW, NE, SW, SE, LEVEL, RES, RESJ, RTAG = range(8)
#: Slots of ``meta``.
USED, HITS, MISSES, FULL, GC_RUNS, ROOT, EMPTY = 0, 1, 2, 3, 4, 5, 64
#: Bytes one node costs: its row and GC scratch (mark byte, int32 stack slot).
BYTES_PER_NODE = 32 + 5
#: Hash-table load factor bound: the table has at least ``LOAD_SLOTS * cap`` int32 slots.
LOAD_SLOTS = 1.6
#: Deepest level a tree may reach: coordinates inside the root stay within int64.
MAX_LEVEL = 62
LEAF_LEVEL = 3

# Numba types of the store's arrays, for the explicit signatures of the kernels called from other
# kernels: one compile each, whatever integer widths and literal constants the callers pass (without
# them find_node compiled 8 times, step16 twice, and the first HashLife run spent 30 s compiling).
#: ``nodes``: ``(cap, 8)`` int32 rows; ``frames``: the ``(64, 16)`` int32 recursion frames.
NODES = FRAMES = "int32[:, ::1]"
#: ``table``: the int32 hash slots; ``stack``: the int32 GC stack.
TABLE = INDEX = "int32[::1]"
#: ``meta``: the int64 counters.
META = "int64[::1]"
#: uint8 vectors: ``t4`` (the leaf step table), ``marks`` and ``seen`` (GC and extent scratch).
BYTES = "uint8[::1]"

#: ``(kernel, signature)`` of every :func:`typed` kernel, in definition order (callees first).
_TYPED: list = []
_PREPARED: list[bool] = []


def typed(signature: str, **options):
    """``njit(**options)`` with one signature, compiled (or loaded from the cache) by
    :func:`prepare` on first use of HashLife, not at import (listing engines imports this package),
    and closed to other signatures: callers' int32 or literal arguments are converted, not
    compiled again."""
    def wrap(function):
        kernel = njit(**options)(function)
        _TYPED.append((kernel, signature))
        return kernel

    return wrap


def prepare() -> None:
    """Compile (or load) every :func:`typed` kernel for its one signature; once per process,
    before any HashLife kernel runs (:func:`allocate` calls it)."""
    if _PREPARED:
        return
    for kernel, signature in _TYPED:
        kernel.compile(signature)
        kernel.disable_compile()
    _PREPARED.append(True)


@njit(cache=True, inline="always")
def _hash(lvl: int, a: int, b: int, c: int, d: int, mask: int) -> int:
    """Slot of the key ``(lvl, a, b, c, d)`` in a table of ``mask + 1`` slots.

    The key's fields are combined with odd multipliers, then every bit is mixed into the low bits
    with MurmurHash3's 64-bit finaliser (shifts made logical: the values are int64). The table probes
    linearly, so nearby keys must land far apart: the previous mix (one shift, one multiply by an
    even constant) put the level-4 nodes of metapixel-galaxy.mc (children: consecutive leaf
    numbers) into one run of 3,614 occupied slots, and loading its 5,536 nodes took 8 ms."""
    h = a * 0x5851F42D4C957F2D + b * 0x14057B7EF767814F + c * 0x2545F4914F6CDD1D
    h = h + d * 0x1B873593 + lvl * 0x27D4EB2F165667C5
    h ^= (h >> 33) & 0x7FFFFFFF
    h *= -49064778989728563  # 0xFF51AFD7ED558CCD as int64
    h ^= (h >> 33) & 0x7FFFFFFF
    h *= -4265267296055464877  # 0xC4CEB9FE1A85EC53 as int64
    h ^= (h >> 33) & 0x7FFFFFFF
    return h & mask


@njit(cache=True, inline="always")
def _popcount16(x: int) -> int:
    """Number of set bits of a 16-bit value."""
    x = x - ((x >> 1) & 0x5555)
    x = (x & 0x3333) + ((x >> 2) & 0x3333)
    x = (x + (x >> 4)) & 0x0F0F
    return (x + (x >> 8)) & 0x1F


@typed(f"int64({NODES}, {TABLE}, {META}, int64, int64, int64, int64, int64)", cache=True, _nrt=False)
def find_node(nodes, table, meta, lvl: int, a: int, b: int, c: int, d: int) -> int:
    """The node ``(lvl, a, b, c, d)``: found in the hash table or appended. -1 (and the full flag
    set) when the store has no free row; the caller unwinds and the driver makes room."""
    mask = table.shape[0] - 1
    h = _hash(lvl, a, b, c, d, mask)
    while True:
        n = table[h]
        if n < 0:
            break
        # scalar indexing, not row views: a view costs a reference-count update
        if nodes[n, 0] == a and nodes[n, 1] == b and nodes[n, 2] == c and nodes[n, 3] == d and nodes[n, LEVEL] == lvl:
            return n
        h = (h + 1) & mask
    n = meta[USED]
    if n >= nodes.shape[0]:
        meta[FULL] = 1
        return -1
    meta[USED] = n + 1
    nodes[n, 0], nodes[n, 1], nodes[n, 2], nodes[n, 3] = a, b, c, d
    nodes[n, LEVEL], nodes[n, RES], nodes[n, RESJ], nodes[n, RTAG] = lvl, -1, -1, -1
    table[h] = n
    return n


@njit(cache=True)
def populations(nodes, meta) -> np.ndarray:
    """``(used,)`` int64 live cells of every node, or -1 where the count could pass 2**62
    (levels >= 32: the exact count is summed in Python ints). One pass in index order: children
    come before their parents."""
    used = meta[USED]
    pop = np.empty(used, np.int64)
    for n in range(used):
        if nodes[n, LEVEL] == LEAF_LEVEL:
            pop[n] = 0
            for q in range(4):
                pop[n] += _popcount16(nodes[n, q])
            continue
        total = 0
        for q in range(4):
            p = pop[nodes[n, q]]
            total = -1 if p < 0 or total < 0 else total + p
        pop[n] = total if nodes[n, LEVEL] <= 31 else -1
    return pop


@njit(cache=True, _nrt=False)  # no allocation: skip reference counting
def init_empties(nodes, table, meta) -> bool:
    """Create the empty node of every level 3..MAX_LEVEL; False when the store is too small."""
    e = find_node(nodes, table, meta, LEAF_LEVEL, 0, 0, 0, 0)
    meta[EMPTY + LEAF_LEVEL] = e
    for k in range(LEAF_LEVEL + 1, MAX_LEVEL + 1):
        if e < 0:
            return False
        e = find_node(nodes, table, meta, k, e, e, e, e)
        meta[EMPTY + k] = e
    return e >= 0


@njit(cache=True, _nrt=False)  # no allocation: skip reference counting
def rehash(nodes, table, meta) -> None:
    """Rebuild the hash table from the ``meta[USED]`` nodes (after growth or compaction)."""
    table[:] = -1
    mask = table.shape[0] - 1
    for n in range(meta[USED]):
        row = nodes[n]
        h = _hash(row[LEVEL], row[0], row[1], row[2], row[3], mask)
        while table[h] >= 0:
            h = (h + 1) & mask
        table[h] = n


@njit(cache=True, inline="always")
def push_root(n: int, marks: np.ndarray, stack: np.ndarray, sp: int) -> int:
    """Mark node ``n`` and push it when it is a node not yet marked; the new stack size."""
    if 0 <= n < marks.shape[0] and marks[n] == 0:
        marks[n] = 1
        stack[sp] = n
        sp += 1
    return sp


@njit(cache=True, _nrt=False)
def start_marking(meta, marks: np.ndarray, stack: np.ndarray) -> int:
    """Clear the marks and push the empties; the stack size. Roots are pushed next with
    :func:`push_root`, then :func:`finish_collection` runs."""
    marks[: meta[USED]] = 0
    sp = 0
    for k in range(LEAF_LEVEL, MAX_LEVEL + 1):
        sp = push_root(meta[EMPTY + k], marks, stack, sp)
    return sp


@typed(f"void({NODES}, {BYTES}, {INDEX}, int64, boolean)", cache=True, _nrt=False)
def _mark(nodes, marks: np.ndarray, stack: np.ndarray, sp: int, keep_results: bool) -> None:
    """Mark every node reachable from the ``sp`` roots on ``stack`` through children (and
    through cached results when ``keep_results``)."""
    while sp > 0:
        sp -= 1
        n = stack[sp]
        if nodes[n, LEVEL] > LEAF_LEVEL:
            for q in range(4):
                sp = push_root(nodes[n, q], marks, stack, sp)
            if keep_results:
                sp = push_root(nodes[n, RES], marks, stack, sp)
                sp = push_root(nodes[n, RESJ], marks, stack, sp)


@njit(cache=True, inline="always")
def _remap(old: int, newidx: np.ndarray, marks: np.ndarray) -> int:
    """New index of node ``old``, or -1 when it was collected (or ``old`` is -1)."""
    if old < 0 or marks[old] == 0:
        return -1
    return newidx[old]


@njit(cache=True, _nrt=False)
def _compact(nodes, meta, marks: np.ndarray, newidx: np.ndarray) -> None:
    """Slide the marked nodes down in index order, renumbering children and results; results
    pointing at collected nodes are dropped. ``newidx``: ``(cap,)`` int32, filled."""
    used = meta[USED]
    m = 0
    for n in range(used):
        if marks[n]:
            newidx[n] = m
            m += 1
    for n in range(used):
        if marks[n] == 0:
            continue
        t = newidx[n]
        leaf = nodes[n, LEVEL] == LEAF_LEVEL
        for q in range(4):
            nodes[t, q] = nodes[n, q] if leaf else newidx[nodes[n, q]]
        nodes[t, LEVEL] = nodes[n, LEVEL]
        nodes[t, RES] = _remap(nodes[n, RES], newidx, marks)
        resj = _remap(nodes[n, RESJ], newidx, marks)
        nodes[t, RTAG] = nodes[n, RTAG] if resj >= 0 else -1
        nodes[t, RESJ] = resj
    meta[USED] = m


@typed(f"void({NODES}, {TABLE}, {META}, {BYTES}, {INDEX}, int64, boolean)", cache=True, _nrt=False)
def finish_collection(nodes, table, meta, marks: np.ndarray, stack: np.ndarray, sp: int, keep_results: bool) -> None:
    """Mark from the ``sp`` pushed roots, compact, rehash. Afterwards ``stack[old]`` is the new
    index of every marked node (the caller renumbers the roots it holds with it)."""
    _mark(nodes, marks, stack, sp, keep_results)
    _compact(nodes, meta, marks, stack)
    for k in range(LEAF_LEVEL, MAX_LEVEL + 1):
        meta[EMPTY + k] = stack[meta[EMPTY + k]]
    rehash(nodes, table, meta)
    meta[FULL] = 0
    meta[GC_RUNS] += 1


@njit(cache=True, _nrt=False)
def collect(nodes, table, meta, marks, stack, roots: np.ndarray, keep_results: bool) -> int:
    """Mark-and-compact garbage collection from ``roots`` (``(R,)`` int32, renumbered in place)
    and the empties. Results of surviving nodes survive when ``keep_results`` (and the nodes
    they point at with them), else every cached result is dropped. Returns the nodes kept.
    ``marks`` (uint8) and ``stack`` (int32) are ``(cap,)`` scratch."""
    sp = start_marking(meta, marks, stack)
    for r in roots:
        sp = push_root(r, marks, stack, sp)
    finish_collection(nodes, table, meta, marks, stack, sp, keep_results)
    for i in range(roots.shape[0]):
        roots[i] = stack[roots[i]]
    return meta[USED]


def table_slots(cap: int) -> int:
    """Hash-table slots for ``cap`` nodes: the power of two >= ``LOAD_SLOTS * cap``."""
    return 1 << max(4, (int(LOAD_SLOTS * cap) - 1).bit_length())


def store_bytes(cap: int) -> int:
    """Bytes a store of ``cap`` nodes takes (arrays, hash table, GC scratch)."""
    return cap * BYTES_PER_NODE + 4 * table_slots(cap)


def max_nodes(max_bytes: int) -> int:
    """The largest capacity whose :func:`store_bytes` fits in ``max_bytes``."""
    best = 0
    for bits in range(4, 48):
        slots = 1 << bits
        cap = min(int(slots / LOAD_SLOTS), (max_bytes - 4 * slots) // BYTES_PER_NODE)
        if cap > 0 and table_slots(cap) <= slots:
            best = max(best, cap)
    return best


def allocate(cap: int, t4: np.ndarray, old: tuple | None = None) -> tuple:
    """A store tuple ``(nodes, table, meta, t4, marks, stack)`` with room for ``cap`` nodes,
    copying the nodes of ``old`` when given. ``t4``: ``(65536,)`` uint8 step table; ``marks``
    (uint8) and ``stack`` (int32), ``(cap,)``: garbage-collection scratch, allocated up front so
    that collection inside a step allocates nothing."""
    prepare()
    nodes = np.full((cap, 8), -1, np.int32)
    table = np.full(table_slots(cap), -1, np.int32)
    meta = np.zeros(128, np.int64)
    if old is not None:
        used = int(old[2][USED])
        nodes[:used] = old[0][:used]
        meta[:] = old[2]
        meta[FULL] = 0
        rehash(nodes, table, meta)
    return nodes, table, meta, t4, np.zeros(cap, np.uint8), np.zeros(cap, np.int32)
