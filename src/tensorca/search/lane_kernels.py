"""Numba kernels that read and edit soups held in lanes, without unpacking the batch.

A soup search keeps its first tier of planes in the lane layout of
:mod:`tensorca.engines.bitpack.lanes`: a group of 64 planes is one ``(P + 2, P + 2)`` uint64 array
(one-word dead frame) whose bit ``i`` at ``[y + 1, x + 1]`` is cell ``(y, x)`` of plane ``i``.
Everything the search asks of a plane after each chunk is answered here on the packed words, 64
planes per word operation:

- :func:`scan_groups`: each plane's population, whether anything lies in its guard band, and
  whether it differs from a snapshot (exact periodicity, no hashing), which then takes the planes;
- :func:`extract_plane` / :func:`insert_plane`: one plane out as uint8 cells, or written back.

Only the planes that need the host (a band to clear, a possibly stable soup to census, a soup to
start) are unpacked. The scans run on one thread, as the lane tier steps its groups (a parallel
region whose second core is busy spins: in a 1000-soup search at load 2 these two scans took 12 s
in parallel, 0.3 s on one thread).
"""

from __future__ import annotations

import numpy as np

from .._jit import njit
from ..engines.bitpack.lanes_layout import BYTE_HIGH, BYTE_LOW

#: Bits of the per-lane population counters (bit-sliced): planes up to 2^20 - 1 cells.
COUNTER_BITS = 20


@njit(cache=True)
def _add_word(counter: np.ndarray, word: np.uint64, at: int) -> None:
    """Add bit ``i`` of ``word``, times ``2 ** at``, to lane ``i``'s bit-sliced counter ``counter``
    (COUNTER_BITS,) uint64."""
    carry = word
    for i in range(at, counter.shape[0]):
        if carry == 0:
            return
        t = counter[i] & carry
        counter[i] ^= carry
        carry = t


@njit(cache=True)
def _add_nibbles(counter: np.ndarray, b0: np.uint64, b1: np.uint64, b2: np.uint64, b3: np.uint64, at: int) -> None:
    """Add a 4-bit bit-sliced counter (``b0`` the low bits of all 64 lanes .. ``b3`` the high),
    times ``2 ** at``, to the wide counter ``counter``."""
    _add_word(counter, b0, at)
    _add_word(counter, b1, at + 1)
    _add_word(counter, b2, at + 2)
    _add_word(counter, b3, at + 3)


@njit(cache=True)
def _add_words(counter: np.ndarray, words: np.ndarray, at: int) -> None:
    """Add every word of ``words`` (1-D uint64), bit ``i`` counting for lane ``i``, times ``2 **
    at``, to the wide counter: first into a 4-bit bit-sliced counter (branch-free half adders),
    which goes into the wide counter every 15 words, before it can overflow."""
    b0 = b1 = b2 = b3 = np.uint64(0)
    added = 0
    for word in words:
        if word == 0:
            continue
        c = b0 & word
        b0 ^= word
        d = b1 & c
        b1 ^= c
        c = b2 & d
        b2 ^= d
        b3 ^= c
        added += 1
        if added == 15:
            _add_nibbles(counter, b0, b1, b2, b3, at)
            b0 = b1 = b2 = b3 = np.uint64(0)
            added = 0
    _add_nibbles(counter, b0, b1, b2, b3, at)


#: Bits of the per-column counters of :func:`scan_groups` (columns up to 2^9 - 1 rows).
COLUMN_BITS = 9


@njit(cache=True)
def _column_counts(a: np.ndarray, snapshot: np.ndarray, nib: np.ndarray, cols: np.ndarray) -> np.uint64:
    """``cols`` (COLUMN_BITS, n) uint64 = each column's live cells, lane by lane, bit-sliced, over
    the rows of ``a`` (h, n) (h < 2 ** COLUMN_BITS). Rows go into 4-bit column counters ``nib``
    (4, n) that are added into ``cols`` every 15 rows: every loop runs along a row, so it vectorises.

    Row by row, while the row is in L1, it is also compared with the same row of ``snapshot`` (same
    shape) and then copied there; returns the OR of every word of ``a`` XOR the old ``snapshot``
    (bit ``i`` set: lane ``i`` differed)."""
    cols[:] = 0
    nib[:] = 0
    n0 = nib[0]
    n1 = nib[1]
    n2 = nib[2]
    n3 = nib[3]
    h = a.shape[0]
    if h >= 1 << COLUMN_BITS:
        raise ValueError("lane planes taller than the column counters hold")
    differ = np.uint64(0)
    for y in range(h):
        row = a[y]
        old = snapshot[y]
        for x in range(row.shape[0]):
            c = row[x]
            differ |= c ^ old[x]
            old[x] = c
            t = n0[x] & c
            n0[x] ^= c
            d = n1[x] & t
            n1[x] ^= t
            t = n2[x] & d
            n2[x] ^= d
            n3[x] ^= t
        if y % 15 == 14 or y == h - 1:
            for x in range(row.shape[0]):  # ripple-carry add of the 4-bit counters
                carry = np.uint64(0)
                for bit in range(COLUMN_BITS):
                    v = nib[bit, x] if bit < 4 else np.uint64(0)
                    old_bit = cols[bit, x]
                    cols[bit, x] = old_bit ^ v ^ carry
                    carry = (old_bit & v) | (carry & (old_bit ^ v))
            nib[:] = 0
    return differ


@njit(cache=True)
def scan_groups(lanes: np.ndarray, snapshot: np.ndarray, guard: int, pops: np.ndarray, band: np.ndarray,
                differ: np.ndarray) -> None:
    """Per plane: population, guard-band occupancy, and whether it differs from ``snapshot``, which
    then takes the planes (one pass over the words for all three).

    ``lanes`` ``(G, P + 2, P + 2)`` uint64; ``snapshot`` the same shape; ``guard`` cells from each
    edge form the band. ``pops`` ``(G, 64)`` int64 receives each lane's live-cell count; ``band``
    ``(G,)`` uint64 gets bit ``i`` set when plane ``i`` has a live cell within ``guard`` cells of an
    edge; ``differ`` ``(G,)`` uint64 bit ``i`` when plane ``i`` differs in any cell from the same plane
    of ``snapshot`` as it was. Columns are counted first (:func:`_column_counts`), then their counts
    summed lane by lane (four groups of half-full words, ns a word: 128-wide planes 2.67 -> 1.30,
    256-wide 3.49 -> 0.98, against adding every word to the lanes' counters). Comparing and copying
    in the same pass: the lane tier's work around each chunk's stepping went from 258 to 175-190 us
    a call (a 4000-soup search), against a copy, a scan and a compare of the whole batch apart.
    """
    one = np.uint64(1)
    n = lanes.shape[2]
    nib = np.empty((4, n), dtype=np.uint64)
    cols = np.empty((COLUMN_BITS, n), dtype=np.uint64)
    for g in range(lanes.shape[0]):
        a = lanes[g]
        h = a.shape[0] - 2
        w = a.shape[1] - 2
        differ[g] = _column_counts(a, snapshot[g], nib, cols)
        counter = np.zeros(COUNTER_BITS, dtype=np.uint64)
        for bit in range(COLUMN_BITS):
            _add_words(counter, cols[bit], bit)
        edge = np.uint64(0)
        for y in range(1, h + 1):
            row = a[y]
            if y <= guard or y > h - guard:
                for x in range(1, w + 1):
                    edge |= row[x]
            else:
                for x in range(1, min(guard, w) + 1):
                    edge |= row[x] | row[w + 1 - x]
        band[g] = edge
        for lane in range(64):
            total = 0
            for i in range(COUNTER_BITS):
                total += int((counter[i] >> np.uint64(lane)) & one) << i
            pops[g, lane] = total


@njit(cache=True)
def scan_tiles(a: np.ndarray, guard: int) -> tuple[int, bool]:
    """Population of one plane held as 64 lane tiles (``a`` ``(th + 2, tw + 2)`` uint64, the layout
    of :func:`tensorca.engines.bitpack.tiles.pack_tiles`: lane ``8 ty + tx`` is tile ``(ty, tx)``;
    the halo is not read), and whether a live cell lies within ``guard`` (at most ``th``, ``tw``)
    cells of the plane's edge: the top ``guard`` rows of tile row 0 (lanes 0..7), the bottom ones
    of tile row 7 (lanes 56..63), the left columns of tile column 0 (bit 0 of each byte), the right
    ones of tile column 7 (bit 7)."""
    th = a.shape[0] - 2
    tw = a.shape[1] - 2
    pop = 0
    edge = np.uint64(0)
    top = np.uint64(0xFF)
    bottom = np.uint64(0xFF) << np.uint64(56)
    for y in range(1, th + 1):
        row = a[y]
        rows = (top if y <= guard else np.uint64(0)) | (bottom if y > th - guard else np.uint64(0))
        for x in range(1, tw + 1):
            v = row[x]
            pop += _popcount(v)
            cols = (BYTE_LOW if x <= guard else np.uint64(0)) | (BYTE_HIGH if x > tw - guard else np.uint64(0))
            edge |= v & (rows | cols)
    return pop, edge != 0


@njit(cache=True, inline="always")
def _popcount(v: np.uint64) -> int:
    """Set bits of a word (SWAR; LLVM turns it into popcnt where the CPU has one)."""
    v = v - ((v >> np.uint64(1)) & np.uint64(0x5555555555555555))
    v = (v & np.uint64(0x3333333333333333)) + ((v >> np.uint64(2)) & np.uint64(0x3333333333333333))
    v = (v + (v >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((v * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def extract_plane(lanes: np.ndarray, g: int, lane: int, out: np.ndarray) -> None:
    """Plane ``lane`` of group ``g`` into ``out`` ``(P, P)`` uint8 (0/1)."""
    bit = np.uint64(lane)
    one = np.uint64(1)
    a = lanes[g]
    for y in range(out.shape[0]):
        row = a[y + 1]
        dst = out[y]
        for x in range(out.shape[1]):
            dst[x] = np.uint8((row[x + 1] >> bit) & one)


@njit(cache=True)
def insert_plane(lanes: np.ndarray, snapshot: np.ndarray, g: int, lane: int, cells: np.ndarray, top: int,
                 left: int) -> None:
    """Clear plane ``lane`` of group ``g``, then write ``cells`` ``(h, w)`` uint8 (1 = alive) with its
    corner at ``(top, left)`` (the caller keeps it inside the plane); in ``lanes`` and in
    ``snapshot`` alike (the same shape; pass ``lanes`` twice for one array)."""
    bit = np.uint64(lane)
    keep = ~(np.uint64(1) << bit)
    a = lanes[g]
    b = snapshot[g]
    for y in range(1, a.shape[0] - 1):
        row = a[y]
        copy = b[y]
        for x in range(1, a.shape[1] - 1):
            row[x] &= keep
            copy[x] &= keep
    for y in range(cells.shape[0]):
        row = a[top + y + 1]
        copy = b[top + y + 1]
        src = cells[y]
        for x in range(cells.shape[1]):
            if src[x] == 1:
                row[left + x + 1] |= np.uint64(1) << bit
                copy[left + x + 1] |= np.uint64(1) << bit


@njit(cache=True, inline="always")
def _set_cell(a: np.ndarray, b: np.ndarray, y: int, x: int, bit: np.uint64, alive: bool) -> None:
    """Word ``[y, x]`` of ``a`` and of ``b`` with ``bit`` set (``alive``) or cleared: the same
    result when ``a`` is ``b``."""
    if alive:
        a[y, x] |= bit
        b[y, x] |= bit
    else:
        a[y, x] &= ~bit
        b[y, x] &= ~bit


@njit(cache=True)
def update_plane(lanes: np.ndarray, snapshot: np.ndarray, g: int, lane: int, before: np.ndarray,
                 after: np.ndarray) -> None:
    """Plane ``lane`` of group ``g`` held ``before`` ``(P, P)`` uint8 (0/1) in ``lanes`` and in
    ``snapshot`` (the same shape; pass ``lanes`` twice for one array); make it ``after`` in both,
    touching only the words of the cells that changed (an edit is a few cells, or a shift). The two
    planes are compared eight cells a read, once for both arrays."""
    bit = np.uint64(1) << np.uint64(lane)
    a = lanes[g]
    b = snapshot[g]
    width = after.shape[1]
    old = np.ascontiguousarray(before).reshape(-1)
    new = np.ascontiguousarray(after).reshape(-1)
    n = new.size // 8 * 8
    old_words = old[:n].view(np.uint64)
    new_words = new[:n].view(np.uint64)
    for i in range(old_words.size):
        if old_words[i] != new_words[i]:
            for j in range(8 * i, 8 * i + 8):
                if old[j] != new[j]:
                    _set_cell(a, b, j // width + 1, j % width + 1, bit, new[j] != 0)
    for j in range(n, new.size):
        if old[j] != new[j]:
            _set_cell(a, b, j // width + 1, j % width + 1, bit, new[j] != 0)

__all__ = ["COUNTER_BITS", "extract_plane", "insert_plane", "scan_groups", "update_plane"]
