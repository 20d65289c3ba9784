"""One big grid as 64 lane tiles on the CPU, with the lane kernels of :mod:`.bitpack_lanes`.

One big grid runs the same way as 64 tiles, one per lane (:func:`advance_tiled`): the neighbours
across a tile edge are other lanes of the edge words (rotations by 8 lanes or by one within each
byte). Several generations run per parallel region (:func:`tiled_plan`): each task reads its strip
of rows and chunk of words plus ``depth`` margin rows and words each side and computes the
generations as a wavefront through one small ring of rows per generation, so the grid is read
once per ``depth`` generations and the threads meet once; the margins, recomputed by both
neighbours, cost ``depth / strip + depth / chunk`` of the work. B/S rules emit four output rows a
pass from six rows' sums, each pair of outputs adding its own two rows' sum once, and run the rule
on the total's bits in difference coordinates where that is shorter
(:func:`.bitpack_circuit.difference_expression`; Life: 22 operations a word, against 27.5 before
both); table circuits share nothing between rows and emit two.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from ..._numba import njit, numba, prange
from ...cpu_load import numba_threads_capped
from ..streaming import fence_streaming, store_streaming, streams
from .lanes import lanes_module
from .lanes_layout import BYTE_HIGH, BYTE_LOW, TILES, l2_bytes, use_tiles


@njit(cache=True)
def _pack_tile_row(grid: np.ndarray, row: np.ndarray, y: int, th: int, tw: int) -> None:
    """Row ``y`` of every tile of ``grid`` into lane row ``row`` (ORed in, cell by cell: 1 is alive)."""
    for ty in range(8):
        src = grid[ty * th + y]
        for tx in range(8):
            bit = np.uint64(8 * ty + tx)
            for x in range(tw):
                row[x + 1] |= np.uint64(src[tx * tw + x] == 1) << bit


@njit(cache=True, parallel=True)
def pack_tiles(grid: np.ndarray, lanes: np.ndarray) -> None:
    """One ``(H, W)`` uint8 grid (``H``, ``W`` multiples of 8) -> ``lanes`` ``(H/8 + 2, W/8 + 2)``
    uint64 (zeroed by the caller): bit ``8 * ty + tx`` of ``lanes[y + 1, x + 1]`` is the cell
    ``(ty * H/8 + y, tx * W/8 + x)`` of tile ``(ty, tx)``."""
    th = lanes.shape[0] - 2
    tw = lanes.shape[1] - 2
    for y in prange(th):
        _pack_tile_row(grid, lanes[y + 1], y, th, tw)


@njit(cache=True, parallel=True)
def unpack_tiles(lanes: np.ndarray, grid: np.ndarray) -> None:
    """The inverse of :func:`pack_tiles` into ``grid`` ``(H, W)`` uint8 (0/1)."""
    th = lanes.shape[0] - 2
    tw = lanes.shape[1] - 2
    one = np.uint64(1)
    for y in prange(th):
        row = lanes[y + 1]
        for ty in range(8):
            out = grid[ty * th + y]
            for tx in range(8):
                bit = np.uint64(8 * ty + tx)
                for x in range(tw):
                    out[tx * tw + x] = np.uint8((row[x + 1] >> bit) & one)


@njit(cache=True, inline="always")
def _transpose8(b0, b1, b2, b3, b4, b5, b6, b7):
    """The 8x8 byte transpose of eight words: byte j of word i <-> byte i of word j (three rounds of
    swaps between words 1, 2, then 4 apart)."""
    m1 = np.uint64(0x00FF00FF00FF00FF)
    m2 = np.uint64(0x0000FFFF0000FFFF)
    m4 = np.uint64(0x00000000FFFFFFFF)
    s1 = np.uint64(8)
    s2 = np.uint64(16)
    s4 = np.uint64(32)
    t = ((b0 >> s1) ^ b1) & m1
    b1 ^= t
    b0 ^= t << s1
    t = ((b2 >> s1) ^ b3) & m1
    b3 ^= t
    b2 ^= t << s1
    t = ((b4 >> s1) ^ b5) & m1
    b5 ^= t
    b4 ^= t << s1
    t = ((b6 >> s1) ^ b7) & m1
    b7 ^= t
    b6 ^= t << s1
    t = ((b0 >> s2) ^ b2) & m2
    b2 ^= t
    b0 ^= t << s2
    t = ((b1 >> s2) ^ b3) & m2
    b3 ^= t
    b1 ^= t << s2
    t = ((b4 >> s2) ^ b6) & m2
    b6 ^= t
    b4 ^= t << s2
    t = ((b5 >> s2) ^ b7) & m2
    b7 ^= t
    b5 ^= t << s2
    t = ((b0 >> s4) ^ b4) & m4
    b4 ^= t
    b0 ^= t << s4
    t = ((b1 >> s4) ^ b5) & m4
    b5 ^= t
    b1 ^= t << s4
    t = ((b2 >> s4) ^ b6) & m4
    b6 ^= t
    b2 ^= t << s4
    t = ((b3 >> s4) ^ b7) & m4
    b7 ^= t
    b3 ^= t << s4
    return b0, b1, b2, b3, b4, b5, b6, b7


@njit(cache=True, inline="always")
def _tile_bytes(g, y, x8, th, tw8, ty):
    """Eight cells of each of the eight tiles (ty, 0..7) at lane row y, words x8: byte i of the
    result holds bit tx = cell (ty * th + y, tx * tw + 8 * x8 + i) (cells 0/1, read as words of
    eight); and the OR of the words read (a byte above 1 means the row needs the exact path)."""
    row = g[ty * th + y]
    acc = np.uint64(0)
    seen = np.uint64(0)
    for tx in range(8):
        v = row[tx * tw8 + x8]
        seen |= v
        acc |= v << np.uint64(tx)
    return acc, seen


@njit(cache=True, parallel=True)
def pack_tiles64(grid64: np.ndarray, grid: np.ndarray, lanes: np.ndarray) -> None:
    """:func:`pack_tiles` for widths that are multiples of 64, eight cells a word: ``grid64`` is
    ``grid`` viewed as ``(H, W / 8)`` uint64. Each tile row's eight bytes make one byte per cell
    column by shifts, then 8x8 byte transposes put the eight tile rows in place. A lane row with
    a cell other than 0 or 1 is redone cell by cell (as :func:`pack_tiles`, 1 is alive)."""
    th = lanes.shape[0] - 2
    tw = lanes.shape[1] - 2
    tw8 = tw // 8
    high = np.uint64(0xFEFEFEFEFEFEFEFE)
    for y in prange(th):
        row = lanes[y + 1]
        seen = np.uint64(0)
        for x8 in range(tw8):
            c0, s0 = _tile_bytes(grid64, y, x8, th, tw8, 0)
            c1, s1 = _tile_bytes(grid64, y, x8, th, tw8, 1)
            c2, s2 = _tile_bytes(grid64, y, x8, th, tw8, 2)
            c3, s3 = _tile_bytes(grid64, y, x8, th, tw8, 3)
            c4, s4 = _tile_bytes(grid64, y, x8, th, tw8, 4)
            c5, s5 = _tile_bytes(grid64, y, x8, th, tw8, 5)
            c6, s6 = _tile_bytes(grid64, y, x8, th, tw8, 6)
            c7, s7 = _tile_bytes(grid64, y, x8, th, tw8, 7)
            seen |= s0 | s1 | s2 | s3 | s4 | s5 | s6 | s7
            w0, w1, w2, w3, w4, w5, w6, w7 = _transpose8(c0, c1, c2, c3, c4, c5, c6, c7)
            x = 1 + 8 * x8
            row[x] = w0
            row[x + 1] = w1
            row[x + 2] = w2
            row[x + 3] = w3
            row[x + 4] = w4
            row[x + 5] = w5
            row[x + 6] = w6
            row[x + 7] = w7
        if seen & high:
            row[:] = 0
            _pack_tile_row(grid, row, y, th, tw)


@njit(cache=True, parallel=True)
def unpack_tiles64(lanes: np.ndarray, grid64: np.ndarray, stream: bool) -> None:
    """:func:`unpack_tiles` for widths that are multiples of 64 into ``grid64``, the ``(H, W)``
    uint8 output viewed as ``(H, W / 8)`` uint64: per lane row, the inverse byte transposes into
    one scratch row per tile row, then each tile's cells by a shift and a mask, a contiguous run of
    words at a time (vector loads and stores; writing the eight words of a transpose straight to
    their eight tiles' rows, a word at a time, took twice as long: 0.73 against 0.37 ms at 4096^2
    on two threads). ``stream``: the output's words go out as streaming stores
    (:mod:`.streaming`), for outputs bigger than the caches."""
    th = lanes.shape[0] - 2
    tw = lanes.shape[1] - 2
    tw8 = tw // 8
    low = np.uint64(0x0101010101010101)
    for y in prange(th):
        row = lanes[y + 1]
        rows = np.empty((8, tw8), dtype=np.uint64)  # rows[ty, x8]: tile row ty's eight cells a tile
        for x8 in range(tw8):
            x = 1 + 8 * x8
            c0, c1, c2, c3, c4, c5, c6, c7 = _transpose8(row[x], row[x + 1], row[x + 2], row[x + 3], row[x + 4],
                                                         row[x + 5], row[x + 6], row[x + 7])
            rows[0, x8] = c0
            rows[1, x8] = c1
            rows[2, x8] = c2
            rows[3, x8] = c3
            rows[4, x8] = c4
            rows[5, x8] = c5
            rows[6, x8] = c6
            rows[7, x8] = c7
        for ty in range(8):
            out = grid64[ty * th + y]
            cells = rows[ty]
            for tx in range(8):
                shift = np.uint64(tx)
                if stream:
                    base = tx * tw8
                    for i in range(tw8):
                        store_streaming(out, base + i, (cells[i] >> shift) & low)
                else:
                    tile = out[tx * tw8:(tx + 1) * tw8]
                    for i in range(tw8):
                        tile[i] = (cells[i] >> shift) & low
        if stream:
            fence_streaming()


@njit(cache=True)
def tile_halo(a: np.ndarray, wrap: bool) -> None:
    """Fill the one-word frame of a tiled grid: each tile's edge rows and columns come from the
    adjacent tile's, i.e. other lanes (a rotate by 8 lanes for the tile above or below, by one lane
    within each byte for the tile left or right); off a bounded plane's edge, dead."""
    th = a.shape[0] - 2
    tw = a.shape[1] - 2
    eight = np.uint64(8)
    fifty_six = np.uint64(56)
    one = np.uint64(1)
    seven = np.uint64(7)
    for x in range(1, tw + 1):
        up = a[th, x]  # the row above tile ty is the last row of tile ty - 1 (lane - 8)
        down = a[1, x]  # the row below is the first row of tile ty + 1 (lane + 8)
        if wrap:
            a[0, x] = (up << eight) | (up >> fifty_six)
            a[th + 1, x] = (down >> eight) | (down << fifty_six)
        else:
            a[0, x] = up << eight
            a[th + 1, x] = down >> eight
    for y in range(th + 2):
        left = a[y, tw]  # the column left of tile tx is the last column of tile tx - 1 (lane - 1)
        right = a[y, 1]
        if wrap:
            a[y, 0] = ((left << one) & ~BYTE_LOW) | ((left >> seven) & BYTE_LOW)
            a[y, tw + 1] = ((right >> one) & ~BYTE_HIGH) | ((right << seven) & BYTE_HIGH)
        else:
            a[y, 0] = (left << one) & ~BYTE_LOW
            a[y, tw + 1] = (right >> one) & ~BYTE_HIGH


#: Bytes of one task's blocked working set (per generation of the block the ring rows a pass
#: reads, PASS + 2 partial rows) kept well inside a core's L2 (512 KiB on the machine measured).
#: Smaller chunks that fit L1 measured slower: their margins cost more than the L2 traffic they save
#: (4096^2 Life, one thread, best of 48 interleaved, G/s: strips of 256 rows x chunks of 512 words
#: 86.5, x 256 82.6, x 128 77.3).
BLOCK_BYTES = 256 << 10
#: Generations per parallel region of the blocked driver, at most (the 512 KiB-L2 machine: 4096^2
#: B3/S23, 2 threads, strips of 128 or 256 rows, G cell-updates/s: 140 at 8 and 12, 130 at 16, 100
#: one generation per region).
MAX_DEPTH = 8
#: Fewest rows per strip.
MIN_STRIP = 32
#: A core with at least this much L2 takes the large-L2 plan below. BLOCK_BYTES, MAX_DEPTH and two
#: strips a thread were measured on a core with 512 KiB; on one with 2 MiB (an Intel Xeon, 512-bit
#: vectors) a deeper ring fits, and taller strips recompute fewer margin rows. B3/S23 torus, G/s,
#: median of 3-5 interleaved rounds, the old plan -> the large-L2 plan (depth, strip, chunk):
#: 2 threads: 1024^2 x 100 142 -> 147 (16, 64, 128); 2048^2 x 100 188 -> 207 (16, 128, 256);
#: 4096^2 x 100 225 -> 237 (16, 256, 512); 8192^2 x 40 230 -> 261 (16, 512, 1024);
#: 16384^2 x 100 183 -> 238 (16, 1024, 1024). 1 thread: 512^2 x 10 66 -> 71; 1024^2 x 10 90 -> 101;
#: 4096^2 x 100 119 -> 129. Depth 12 measured within 5 % of 16 at each size. Table circuits, 8192^2
#: x 40, 2 threads: B2-a/S12 132 -> 142, B36/S23H 170 -> 176.
LARGE_L2_BYTES = 1 << 20
#: The large-L2 plan's block budget (half of a 2 MiB L2) and generations per region, at most.
LARGE_L2_BLOCK_BYTES = 1 << 20
LARGE_L2_MAX_DEPTH = 16
#: Table circuits (no work shared between rows) run one generation per region while both lane
#: arrays fit in this many bytes (well inside L3): there the plain kernel reads its three input rows
#: from L1 and beat the blocked one (4096^2 on 2 cores, G/s: B36/S23H 171 vs 151, B2-a/S12 77 vs 75);
#: past L3 blocking wins (16384^2: 138 vs 102). Count circuits run blocked at every size.
TABLE_BLOCK_BYTES = 8 << 20


def plan_budget(l2: int | None = None) -> tuple[int, int, int]:
    """``(block bytes, most generations a region, strips a thread where they stay tall)`` of
    :func:`tiled_plan` for a core with ``l2`` bytes of L2 (default :func:`.lanes_layout.l2_bytes`)."""
    if (l2 or l2_bytes()) >= LARGE_L2_BYTES:
        return LARGE_L2_BLOCK_BYTES, LARGE_L2_MAX_DEPTH, 1
    return BLOCK_BYTES, MAX_DEPTH, 2


def tiled_plan(th: int, tw: int, threads: int, generations: int, rows: int = 4,
               l2: int | None = None) -> tuple[int, int, int]:
    """``(depth, strip, chunk)`` of :func:`advance_tiled` for a ``(th + 2, tw + 2)`` lane array:
    generations per parallel region (at most ``th``, ``tw``), lane rows per strip and words per
    chunk of a task. What a task's passes read (``depth`` x ``rows`` ring rows of ``chunk + 2
    depth`` words: the module's ``PASS + 2``) stays within the block of :func:`plan_budget`
    (``l2``: a core's L2 bytes, default read from sysfs); its margins cost about ``depth / strip +
    depth / chunk`` of the work. With a small L2 each thread takes two strips where they stay tall;
    with a large one, one strip a thread (see :data:`LARGE_L2_BYTES`)."""
    block, max_depth, per_thread = plan_budget(l2)
    depth = max(1, min(max_depth, th, tw, generations))
    chunk = max(8 * depth, min(tw, block // (8 * rows * depth) - 2 * depth))
    chunk = -(-tw // -(-tw // chunk))  # equal chunks
    strips = per_thread * threads if th // (per_thread * threads) >= 8 * depth else threads
    strip = max(min(th, MIN_STRIP), -(-th // strips))
    return depth, strip, chunk


def tile_plan(module: ModuleType, th: int, tw: int, threads: int, generations: int, depth: int | None = None,
              strip: int | None = None, chunk: int | None = None) -> tuple[int, int, int]:
    """``(depth, strip, chunk)`` for :func:`step_tiles` on a ``(th + 2, tw + 2)`` tiled lane array of
    ``module``'s kernels: :func:`tiled_plan` for those left None, except that table circuits (which
    share nothing between rows) run one generation per region (``depth`` 0) while both arrays fit
    :data:`TABLE_BLOCK_BYTES`; all clipped to the array (margins reach one tile at most)."""
    plan_depth, plan_strip, plan_chunk = tiled_plan(th, tw, threads, generations, module.PASS + 2)
    if depth is None:
        small = 2 * (th + 2) * (tw + 2) * 8 <= TABLE_BLOCK_BYTES
        depth = 0 if small and not module.SHARES_ROWS else plan_depth
    depth = min(depth, th, tw)
    strip = (plan_strip if depth else max(4, -(-th // (4 * threads)))) if strip is None else strip
    chunk = plan_chunk if chunk is None else chunk
    return depth, max(1, min(strip, th)), max(1, min(chunk, tw))


def step_tiles(module: ModuleType, src: np.ndarray, dst: np.ndarray, torus: bool, generations: int,
               plan: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """``generations`` of the tiled lane array ``src`` (``(th + 2, tw + 2)`` uint64, halo not read)
    through ``module``'s kernels, ping-ponging with ``dst`` (same shape), as planned by
    :func:`tile_plan`; returns ``(result, the other buffer)``. Each parallel region runs ``depth``
    generations (the last the remainder); ``depth`` 0 runs one a region over strips of whole rows
    (:func:`tile_halo`, ``step_strips``)."""
    depth, strip, chunk = plan
    left = generations
    while left:
        if depth:
            k = min(depth, left)
            module.step_blocked(src, dst, strip, chunk, k, torus)
        else:
            k = 1
            tile_halo(src, torus)
            module.step_strips(src, dst, strip)
        src, dst = dst, src
        left -= k
    return src, dst


def advance_tiled(cells: np.ndarray, table: bytes, torus: bool, generations: int,
                  depth: int | None = None, strip: int | None = None, chunk: int | None = None) -> np.ndarray | None:
    """Advance ``(B, H, W)`` uint8 grids (:func:`use_tiles`) one at a time as 64 lane tiles each;
    a new ``uint8`` 0/1 array, or None past the specialised-module cap. ``depth`` (generations per
    parallel region, 0: one generation per region, the path before blocking), ``strip`` (lane rows
    per task) and ``chunk`` (words per task): :func:`tile_plan` for those left None."""
    module = lanes_module(table)
    if module is None:
        return None
    cells = np.ascontiguousarray(cells, dtype=np.uint8)
    batch, height, width = cells.shape
    out = np.empty_like(cells)
    th, tw = height // TILES, width // TILES
    with numba_threads_capped(numba) as threads:  # a barrier per region stalls on cores others hold
        plan = tile_plan(module, th, tw, threads, generations, depth, strip, chunk)
        stream = streams(out.nbytes, threads)  # an output this big is out of cache by the time it is read
        for b in range(batch):
            src = np.zeros((th + 2, tw + 2), dtype=np.uint64)
            pack_grid(cells[b], src)
            src, _ = step_tiles(module, src, np.zeros_like(src), torus, generations, plan)
            unpack_grid(src, out[b], stream)
    return out


def pack_grid(grid: np.ndarray, lanes: np.ndarray) -> None:
    """One ``(H, W)`` uint8 grid (sides multiples of 8) into the zeroed tiled lane array ``lanes``:
    eight cells a word (:func:`pack_tiles64`) when ``W`` is a multiple of 64, else cell by cell."""
    if grid.shape[1] % (8 * TILES) == 0:
        pack_tiles64(grid.view(np.uint64), grid, lanes)
    else:
        pack_tiles(grid, lanes)


def unpack_grid(lanes: np.ndarray, grid: np.ndarray, stream: bool = False) -> None:
    """The inverse of :func:`pack_grid` into the C-contiguous ``(H, W)`` uint8 ``grid``; ``stream``
    (widths that are multiples of 64): with streaming stores (:func:`.streaming.streams`)."""
    if grid.shape[1] % (8 * TILES) == 0:
        unpack_tiles64(lanes, grid.view(np.uint64), stream)
    else:
        unpack_tiles(lanes, grid)


__all__ = ["TILES", "advance_tiled", "pack_grid", "pack_tiles", "pack_tiles64", "plan_budget", "step_tiles",
           "tile_halo", "tile_plan", "tiled_plan", "unpack_grid", "unpack_tiles", "unpack_tiles64", "use_tiles"]
