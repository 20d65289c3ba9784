"""The HashLife recursion: the centre of a node some power of two generations on, memoised.

``result(..., n, j, ...)`` is the centre half (level ``k-1``) of level-``k`` node ``n`` after
``2**min(j, k-2)`` generations. At the full step (``j >= k-2``) it is Gosper's: nine overlapping
half-size subnodes advance a quarter step, four nodes made of those advance another quarter.
A smaller step (``j < k-2``, for generation counts that are not powers of two) advances the nine
subnodes ``2**j`` generations and keeps the centre of their union: no second stage. The full
result is cached in ``RES``, the smaller one in ``RESJ`` tagged with ``j`` in ``RTAG`` (one
smaller step per node at a time: stepping by 2**3 then 2**5 only recomputes nodes above level 5).

The recursion runs on an explicit stack (``frames``, one row per level), so a full store is
garbage-collected in the middle of a step with every node in progress kept and renumbered.
Helpers return -1 when the store is full; ``result`` collects and retries, or returns -1 for the
driver (growth, or splitting the step) when it may not collect or collecting freed too little.
"""

from __future__ import annotations

from .._numba import njit
from .leaves import step16
from .tree import (
    BYTES,
    EMPTY,
    FRAMES,
    HITS,
    INDEX,
    LEVEL,
    META,
    MISSES,
    NODES,
    RES,
    RESJ,
    ROOT,
    RTAG,
    TABLE,
    USED,
    find_node,
    finish_collection,
    push_root,
    start_marking,
    typed,
)


@typed(f"boolean({NODES}, {TABLE}, {META}, {FRAMES}, int64, int64)", cache=True, _nrt=False)
def _subnodes(nodes, table, meta, frames, k: int, n: int) -> bool:
    """Fill slots 0..8 of frame ``k`` with the nine overlapping level-``k-1`` subnodes of
    level-``k`` node ``n`` (row-major, 3x3); False when the store is full. Scalar indexing
    throughout: a row view would cost a reference-count update."""
    nw, ne, sw, se = nodes[n, 0], nodes[n, 1], nodes[n, 2], nodes[n, 3]
    frames[k, 0], frames[k, 2], frames[k, 6], frames[k, 8] = nw, ne, sw, se
    frames[k, 1] = find_node(nodes, table, meta, k - 1, nodes[nw, 1], nodes[ne, 0], nodes[nw, 3], nodes[ne, 2])
    frames[k, 3] = find_node(nodes, table, meta, k - 1, nodes[nw, 2], nodes[nw, 3], nodes[sw, 0], nodes[sw, 1])
    frames[k, 4] = find_node(nodes, table, meta, k - 1, nodes[nw, 3], nodes[ne, 2], nodes[sw, 1], nodes[se, 0])
    frames[k, 5] = find_node(nodes, table, meta, k - 1, nodes[ne, 2], nodes[ne, 3], nodes[se, 0], nodes[se, 1])
    frames[k, 7] = find_node(nodes, table, meta, k - 1, nodes[sw, 1], nodes[se, 0], nodes[sw, 3], nodes[se, 2])
    return frames[k, 1] >= 0 and frames[k, 3] >= 0 and frames[k, 4] >= 0 and frames[k, 5] >= 0 and frames[k, 7] >= 0


@njit(cache=True, inline="always")
def _centre_of(nodes, table, meta, lvl: int, w: int, x: int, y: int, z: int) -> int:
    """The level-``lvl`` node centred on the 2x2 arrangement ``w x / y z`` of level-``lvl`` nodes."""
    return find_node(nodes, table, meta, lvl, nodes[w, 3], nodes[x, 2], nodes[y, 1], nodes[z, 0])


#: The four 2x2 windows of a 3x3 frame, as frame slots (nw, ne, sw, se).
_W0, _W1, _W2, _W3 = (0, 1, 3, 4), (1, 2, 4, 5), (3, 4, 6, 7), (4, 5, 7, 8)
#: Frame layout (row ``k`` of the ``(64, 16)`` int32 ``frames``, one per level): slots 0..8
#: hold the nine subnodes, replaced by their results; 9..12 the four second-stage results;
#: then the node and the index of the next slot to fill.
_NODE, _NEXT = 13, 14
_PENDING = -2
#: ``_NEXT`` of the top frame before it is opened (it only holds the node to keep alive).
_UNOPENED = 99


@njit(cache=True, inline="always")
def _cached(nodes, n: int, j: int, full: bool) -> int:
    """The cached result of node ``n`` for step ``j`` (-1 when none)."""
    if full:
        return nodes[n, RES]
    return nodes[n, RESJ] if nodes[n, RTAG] == j else -1


@njit(cache=True, inline="always")
def _store(nodes, n: int, j: int, full: bool, r: int) -> None:
    """Cache ``r`` as the result of node ``n`` for step ``j``."""
    if full:
        nodes[n, RES] = r
    else:
        nodes[n, RESJ] = r
        nodes[n, RTAG] = j


@typed(f"int64({NODES}, {TABLE}, {META}, {BYTES}, int64, int64)", cache=True, _nrt=False)
def _quick(nodes, table, meta, t4, n: int, j: int) -> int:
    """The result of ``n`` for step ``j`` when no recursion is needed (empty node, cached,
    level 4), -1 when the store filled, else ``_PENDING``."""
    k = nodes[n, LEVEL]
    if n == meta[EMPTY + k]:
        return meta[EMPTY + k - 1]
    full = j >= k - 2
    r = _cached(nodes, n, j, full)
    if r >= 0:
        meta[HITS] += 1
        return r
    if k > 4:
        return _PENDING
    meta[MISSES] += 1
    r = step16(nodes, table, meta, t4, n, j)
    if r >= 0:
        _store(nodes, n, j, full, r)
    return r


@typed(f"boolean({NODES}, {TABLE}, {META}, {FRAMES}, int64)", cache=True, _nrt=False)
def _open(nodes, table, meta, frames, n: int) -> bool:
    """Start the frame of ``n`` (level ``k``, row ``k`` of ``frames``); False when full."""
    k = nodes[n, LEVEL]
    frames[k, _NODE] = n
    frames[k, _NEXT] = 0
    meta[MISSES] += 1
    return _subnodes(nodes, table, meta, frames, k, n)


@typed(f"int64({NODES}, {TABLE}, {META}, {FRAMES}, int64)", cache=True, _nrt=False)
def _child(nodes, table, meta, frames, k: int) -> int:
    """The node whose result fills the next slot of frame ``k`` (-1: full)."""
    i = frames[k, _NEXT]
    if i < 9:
        return frames[k, i]
    a, b, c, d = _W0 if i == 9 else _W1 if i == 10 else _W2 if i == 11 else _W3
    return find_node(nodes, table, meta, k - 1, frames[k, a], frames[k, b], frames[k, c], frames[k, d])


@typed(f"int64({NODES}, {TABLE}, {META}, {FRAMES}, int64, int64)", cache=True, _nrt=False)
def _close(nodes, table, meta, frames, k: int, j: int) -> int:
    """Finish frame ``k`` whose slots are filled: the result node, cached (-1: full)."""
    full = j >= k - 2
    if not full:  # the smaller step: the centre of the nine results, no second stage
        for w in range(4):
            a, b, c, d = _W0 if w == 0 else _W1 if w == 1 else _W2 if w == 2 else _W3
            frames[k, 9 + w] = _centre_of(
                nodes, table, meta, k - 2, frames[k, a], frames[k, b], frames[k, c], frames[k, d]
            )
            if frames[k, 9 + w] < 0:
                return -1
    r = find_node(nodes, table, meta, k - 1, frames[k, 9], frames[k, 10], frames[k, 11], frames[k, 12])
    if r >= 0:
        _store(nodes, frames[k, _NODE], j, full, r)
    return r


@njit(cache=True, inline="always")
def _frame_slots(frames, lv: int) -> int:
    """Number of live slots of frame ``lv``: the nine subnodes/results and the filled ones
    (none before the frame is opened)."""
    if frames[lv, _NEXT] == _UNOPENED:
        return 0
    return max(9, min(frames[lv, _NEXT], 13))


@typed(f"void({NODES}, {TABLE}, {META}, {FRAMES}, {BYTES}, {INDEX}, int64, int64, boolean)", cache=True, _nrt=False)
def _collect_in_step(nodes, table, meta, frames, marks, stack, k: int, top: int, keep_results: bool) -> None:
    """Garbage-collect in the middle of a step: the roots are ``meta[ROOT]`` and every node the
    open frames ``k..top`` hold; they are renumbered in place, so the step goes on where it was
    (Golly keeps its recursion's nodes alive the same way)."""
    sp = start_marking(meta, marks, stack)
    sp = push_root(meta[ROOT], marks, stack, sp)
    for lv in range(k, top + 1):
        sp = push_root(frames[lv, _NODE], marks, stack, sp)
        for i in range(_frame_slots(frames, lv)):
            sp = push_root(frames[lv, i], marks, stack, sp)
    finish_collection(nodes, table, meta, marks, stack, sp, keep_results)
    meta[ROOT] = stack[meta[ROOT]]
    for lv in range(k, top + 1):
        frames[lv, _NODE] = stack[frames[lv, _NODE]]
        for i in range(_frame_slots(frames, lv)):
            frames[lv, i] = stack[frames[lv, i]] if frames[lv, i] >= 0 else -1


@typed(f"boolean({NODES}, {TABLE}, {META}, {FRAMES}, {BYTES}, {INDEX}, int64, int64)", cache=True, _nrt=False)
def _make_room(nodes, table, meta, frames, marks, stack, k: int, top: int) -> bool:
    """Collect garbage mid-step, keeping cached results, then (when under a quarter of the store
    came free) without them; False when still under a tenth is free: the driver takes over."""
    cap = nodes.shape[0]
    _collect_in_step(nodes, table, meta, frames, marks, stack, k, top, True)
    if meta[USED] > 3 * cap // 4:
        _collect_in_step(nodes, table, meta, frames, marks, stack, k, top, False)
    return meta[USED] <= 9 * cap // 10


@njit(cache=True, _nrt=False)  # no allocation: skip reference counting
def result(nodes, table, meta, t4, frames, marks, stack, n: int, j: int, collect: bool) -> int:
    """Centre (level ``k-1``) of level-``k`` node ``n`` (``k >= 4``) after ``2**min(j, k-2)``
    generations; -1 when the store filled up and ``collect`` is False (or collecting freed too
    little). ``frames``: ``(64, 16)`` int32 scratch; ``marks``/``stack``: GC scratch;
    ``meta[ROOT]``: a node to keep alive through collections (renumbered in place).

    The recursion runs on an explicit stack with one frame per level (a frame at level k only
    waits on level k-1), so the compiled function has no recursive call (Numba cannot reload a
    cached recursive function) and a full store is collected mid-step: every operation below is
    retried after a collection, from the renumbered frames."""
    top = k = nodes[n, LEVEL]
    frames[top, _NODE], frames[top, _NEXT] = n, _UNOPENED  # a placeholder frame keeps n alive
    while True:
        if k == top and frames[top, _NEXT] == _UNOPENED:  # quick answer, else open the top
            r = _quick(nodes, table, meta, t4, frames[top, _NODE], j)
            if r != _PENDING and r != -1:
                return r
            if r == _PENDING and _open(nodes, table, meta, frames, frames[top, _NODE]):
                continue
        elif frames[k, _NEXT] >= (13 if j >= k - 2 else 9):
            r = _close(nodes, table, meta, frames, k, j)
            if r >= 0 and k == top:
                return r
            if r >= 0:
                k += 1
                frames[k, frames[k, _NEXT]] = r
                frames[k, _NEXT] += 1
                continue
        else:
            child = _child(nodes, table, meta, frames, k)
            r = _quick(nodes, table, meta, t4, child, j) if child >= 0 else -1
            if r >= 0:
                frames[k, frames[k, _NEXT]] = r
                frames[k, _NEXT] += 1
                continue
            if r == _PENDING and _open(nodes, table, meta, frames, child):
                k -= 1
                continue
        if not collect or not _make_room(nodes, table, meta, frames, marks, stack, k, top):
            return -1


@njit(cache=True, _nrt=False)  # no allocation: skip reference counting
def expand(nodes, table, meta, root: int) -> int:
    """Level ``k+1`` node with level-``k`` ``root`` at its centre, empty around (-1: full)."""
    k = nodes[root, LEVEL]
    e = meta[EMPTY + k - 1]
    r = nodes[root]
    nw = find_node(nodes, table, meta, k, e, e, e, r[0])
    ne = find_node(nodes, table, meta, k, e, e, r[1], e)
    sw = find_node(nodes, table, meta, k, e, r[2], e, e)
    se = find_node(nodes, table, meta, k, r[3], e, e, e)
    if nw < 0 or ne < 0 or sw < 0 or se < 0:
        return -1
    return find_node(nodes, table, meta, k + 1, nw, ne, sw, se)


@njit(cache=True, _nrt=False)  # no allocation: skip reference counting
def is_padded(nodes, meta, root: int) -> bool:
    """True when every live cell of ``root`` (level >= 4) lies in its centre half."""
    k = nodes[root, LEVEL]
    e = meta[EMPTY + k - 2] if k >= 5 else 0  # a leaf's quadrants are words: empty is 0
    r = nodes[root]
    nw, ne, sw, se = nodes[r[0]], nodes[r[1]], nodes[r[2]], nodes[r[3]]
    return (
        nw[0] == e and nw[1] == e and nw[2] == e
        and ne[0] == e and ne[1] == e and ne[3] == e
        and sw[0] == e and sw[2] == e and sw[3] == e
        and se[1] == e and se[2] == e and se[3] == e
    )


@njit(cache=True, _nrt=False)  # no allocation: skip reference counting
def centre(nodes, table, meta, root: int) -> int:
    """The centre half (level ``k-1``) of ``root``, with no time step (-1: full)."""
    r = nodes[root]
    return _centre_of(nodes, table, meta, r[LEVEL] - 1, r[0], r[1], r[2], r[3])
