"""bitpack-cpu's column kernels: word columns contiguous, and regions that have settled skipped.

The grid is held as ``(B, wp + 1, H)`` ``uint64``: word ``k`` of every row lies in one contiguous
column ``[g, k, :]`` (the last column, index ``wp``, is always 0: the dead neighbour of the edge
columns on a bounded plane). A generation walks each column top to bottom; its loops run down
the rows, so they are as long as the grid is tall and vectorise whatever the width (row-major
kernels at 1024 cells wide run loops of 16 words, mostly scalar: the column kernels are about 2x
faster there, single thread). Per column and run of rows, one loop computes each row's planes
from the column and its two neighbour columns (a B/S rule: the horizontal 3-sum as two
bit-planes; a table rule: the west-shifted word, the word, the east-shifted word), a second loop
the rule. A generation sweeps blocks of ``RUN_CHUNKS`` 64-row chunks across every column, so a
column's rows are still in L1 when its neighbour reads them.

**Skipping what has settled.** Buffers ping-pong, so when generation ``t + 1`` is written into
``dst``, ``dst`` holds generation ``t - 1``. Writing a word, the kernel compares it with the word it
replaces and records one bit per row and column: "generation ``t + 1`` differs from ``t - 1``
here" (``(B, wp + 1, ceil(H / 64))`` ``uint64``, 64 rows a word). At the next step a word whose 3x3
block of words (itself, the rows above and below, the columns either side; wrapped on a torus,
dead and unchanging outside a plane) all had the bit clear has the same inputs as two
generations before, so its next value is the one ``dst`` already holds: it is neither computed
nor written, and its bit stays clear. Still lifes and period-2 oscillators (most of Life's ash:
blocks, beehives, blinkers) cost nothing once settled; gliders and anything of longer period keep
their neighbourhood computed. Rows are taken in runs of whole 64-row chunks (at most
``RUN_CHUNKS``), from the first row that may change to the last, so a busy grid runs the same long
loops as a dense one; the comparison and the bits cost a few percent there. The first generation
has no history: every input bit starts set and ``dst`` starts as a copy of ``src`` (so the first
bits compare generation 1 with 0, which proves as much: equal inputs one generation apart give
equal outputs).

Drivers: ``col_whole_serial`` and ``col_whole`` (all generations of a grid in one task; batches
over ``prange``), and ``col_bands`` for fewer grids than threads: each task copies a band of rows
plus ``generations`` rows either side and runs them as a grid of its own, exact in the band for
that many generations (the copy's wrong outer edge spreads a row a generation), so threads meet
once per epoch of generations, not once per generation.

Nothing here imports Numba: the kernels are source text appended to :mod:`.bitpack_cpu`'s
generated modules (:func:`bs_columns`, :func:`table_columns`).
"""

from __future__ import annotations

import numpy as np

#: 64-row chunks per run of rows whose planes are computed in one loop (measured at 1024^2:
#: 4 runs as fast as whole columns and keeps the run's planes in L1).
RUN_CHUNKS = 4

#: The part every column module shares: skipping, the pass over one column, the drivers.
#: Each rule's part defines ``_col_scratch`` and ``_col_out``; ``{store}`` stores a row's planes.
_COMMON = '''

RUN_CHUNKS = {run}
CU2 = np.uint64(2)
CONES = ~np.uint64(0)


@njit(cache=True)
def _col_msb(x):
    """Index of the highest set bit of x (x != 0)."""
    n = 0
    if x >> np.uint64(32):
        n += 32
        x >>= np.uint64(32)
    if x >> np.uint64(16):
        n += 16
        x >>= np.uint64(16)
    if x >> np.uint64(8):
        n += 8
        x >>= np.uint64(8)
    if x >> np.uint64(4):
        n += 4
        x >>= np.uint64(4)
    if x >> CU2:
        n += 2
        x >>= CU2
    if x >> U1:
        n += 1
    return n


@njit(cache=True)
def _col_active(fi, g, kl, k, kr, vwrap, lastbit, skip, c0, c1, acts):
    """Rows of chunks c0..c1-1 of column k to compute into acts[:c1 - c0]: the rows whose 3x3
    block of words changed (bits fi; bit lastbit of the last chunk is the last row); every row
    when not skip."""
    nch = fi.shape[2]
    if not skip:
        for c in range(c0, c1):
            acts[c - c0] = CONES
    else:
        # rows where column k or a neighbour column changed, in chunks c - 1, c, c + 1
        if c0 > 0:
            above = fi[g, kl, c0 - 1] | fi[g, k, c0 - 1] | fi[g, kr, c0 - 1]
        elif vwrap:
            above = (((fi[g, kl, nch - 1] | fi[g, k, nch - 1] | fi[g, kr, nch - 1]) >> lastbit) & U1) << U63
        else:
            above = U0
        m = fi[g, kl, c0] | fi[g, k, c0] | fi[g, kr, c0]
        for c in range(c0, c1):
            if c + 1 < nch:
                nxt = fi[g, kl, c + 1] | fi[g, k, c + 1] | fi[g, kr, c + 1]
                below = nxt << U63
            else:
                nxt = U0
                below = (((fi[g, kl, 0] | fi[g, k, 0] | fi[g, kr, 0]) & U1) << lastbit) if vwrap else U0
            acts[c - c0] = m | (m << U1) | (m >> U1) | (above >> U63) | below
            above = m
            m = nxt
    if c1 == nch and lastbit < U63:
        acts[c1 - 1 - c0] &= (U1 << (lastbit + U1)) - U1


@njit(cache=True)
def _col_rows(a, g, k, kl, sl, kr, sr, y0, y1, vwrap, buf):
    """Planes of rows y0 - 1 .. y1 of column k of grid g into buf[:, 0 .. y1 - y0 + 1] (rows
    wrap when vwrap, else are dead outside). Unsigned indices: Numba's negative-index handling
    of signed ones stops the loop vectorising."""
    h = a.shape[2]
    base = np.uint64(y0)
    for i in range(np.uint64(y1 - y0)):
        y = base + i
        t = i + U1
        m = a[g, k, y]
        w = (m << U1) | (a[g, kl, y] >> sl)
        e = (m >> U1) | (a[g, kr, y] << sr)
{store}
    # the rows above and below: wrapped, or dead outside a plane
    for y, t in ((y0 - 1, 0), (y1, y1 - y0 + 1)):
        if y < 0 or y >= h:
            if not vwrap:
                buf[:, t] = U0
                continue
            y = y % h
        m = a[g, k, y]
        w = (m << U1) | (a[g, kl, y] >> sl)
        e = (m >> U1) | (a[g, kr, y] << sr)
{store}


@njit(cache=True)
def _col_pass(a, b, fi, fo, g, k, c0, c1, hwrap, vwrap, rs, lastmask, skip, buf, acts, lut):
    """One generation of chunks c0..c1-1 (at most RUN_CHUNKS) of column k of grid g, a -> b: the
    rows whose 3x3 block of words changed two generations ago (bits fi), from the first to the
    last of each run of chunks that hold some (finer runs measured slower: a loop's start costs
    about as much as 64 rows); fo[g, k, c0:c1] gets the rows whose new word differs from the
    word it replaced (every row is computed when not skip). acts: RUN_CHUNKS uint64 scratch."""
    wp = a.shape[1] - 1
    h = a.shape[2]
    # the west and east columns and their carry shifts: a torus's edge columns take the far
    # edge's last real bit (bit rs of the last word), a plane's the dead column wp. A carry
    # shifted into the last word's padding only reaches padding outputs, which are masked.
    kl = k - 1
    sl = U63
    kr = k + 1
    sr = U63
    if k == 0:
        kl = wp - 1 if hwrap else wp
        sl = rs if hwrap else U63
    if k == wp - 1:
        kr = 0 if hwrap else wp
        sr = rs if hwrap else U63
    mask = lastmask if k == wp - 1 else CONES
    _col_active(fi, g, kl, k, kr, vwrap, np.uint64((h - 1) & 63), skip, c0, c1, acts)
    c = c0
    while c < c1:
        act = acts[c - c0]
        if act == U0:
            fo[g, k, c] = U0
            c += 1
            continue
        r0 = c
        y0 = (c * 64 + _col_msb(act & (~act + U1))) & ~3  # whole vectors of 4 rows: no scalar tail
        c += 1
        while c < c1 and acts[c - c0] != U0:
            c += 1
        y1 = min(h, ((c - 1) * 64 + _col_msb(acts[c - 1 - c0]) + 4) & ~3)
        _col_rows(a, g, k, kl, sl, kr, sr, y0, y1, vwrap, buf)
        for cc in range(r0, c):
            ys = max(y0, cc * 64)
            ye = min(y1, cc * 64 + 64)
            fo[g, k, cc] = _col_out(a, b, g, k, ys, ye, buf, ys - y0, mask, ys - cc * 64, lut)


@njit(cache=True)
def _col_gens(src, dst, fa, fb, g, hwrap, vwrap, rs, lastmask, skip, generations, buf, lut):
    """`generations` generations of grid g, ping-ponging src/dst (and their bits fa/fb); each
    a block of RUN_CHUNKS chunks at a time across every column (a column's rows are then still
    in L1 when its neighbour column reads them)."""
    wp = src.shape[1] - 1
    nch = fa.shape[2]
    acts = np.empty(RUN_CHUNKS, dtype=np.uint64)
    for t in range(generations):
        a, b, fi, fo = (src, dst, fa, fb) if t % 2 == 0 else (dst, src, fb, fa)
        for c0 in range(0, nch, RUN_CHUNKS):
            c1 = min(nch, c0 + RUN_CHUNKS)
            for k in range(wp):
                _col_pass(a, b, fi, fo, g, k, c0, c1, hwrap, vwrap, rs, lastmask, skip, buf, acts, lut)


@njit(cache=True, parallel=True)
def col_whole(src, dst, fa, fb, wrap, rs, lastmask, skip, generations, lut):
    """All generations of each grid in one task per grid; the result is in dst when
    `generations` is odd, else in src."""
    for g in prange(src.shape[0]):
        _col_gens(src, dst, fa, fb, g, wrap, wrap, rs, lastmask, skip, generations, _col_scratch(lut), lut)


@njit(cache=True)
def col_whole_serial(src, dst, fa, fb, wrap, rs, lastmask, skip, generations, lut):
    """`col_whole` on one thread."""
    buf = _col_scratch(lut)
    for g in range(src.shape[0]):
        _col_gens(src, dst, fa, fb, g, wrap, wrap, rs, lastmask, skip, generations, buf, lut)


@njit(cache=True)
def _col_band(src, dst, g, y0, y1, wrap, rs, lastmask, skip, generations, lut):
    """Rows y0..y1-1 of grid g, `generations` generations on from src, into dst: the band and
    `generations` rows either side (wrapped on a torus, up to the edge of a plane) copied out and
    run as a grid of their own whose outer rows are dead. What that gets wrong spreads a row a
    generation from the copy's outer edges, so it never reaches the band."""
    h = src.shape[2]
    wp = src.shape[1] - 1
    if wrap:
        top = y0 - generations
        rows = y1 - y0 + 2 * generations
    else:
        top = max(0, y0 - generations)
        rows = min(h, y1 + generations) - top
    a = np.zeros((1, wp + 1, rows), dtype=np.uint64)
    for k in range(wp):
        for r in range(rows):
            a[0, k, r] = src[g, k, (top + r) % h]
    b = a.copy()
    nch = (rows + 63) >> 6
    fa = np.zeros((1, wp + 1, nch), dtype=np.uint64)
    fa[0, :wp, :] = CONES
    fb = np.zeros_like(fa)
    _col_gens(a, b, fa, fb, 0, wrap, False, rs, lastmask, skip, generations, _col_scratch(lut), lut)
    out = b if generations % 2 else a
    for k in range(wp):
        for y in range(y0, y1):
            dst[g, k, y] = out[0, k, y - top]


@njit(cache=True, parallel=True)
def col_bands(src, dst, wrap, rs, lastmask, skip, generations, bands, lut):
    """`generations` generations of every grid, src -> dst, each grid cut into `bands` bands of
    rows (one prange task each, no barrier in between: `_col_band`)."""
    n = src.shape[0]
    h = src.shape[2]
    per = (h + bands - 1) // bands
    for job in prange(n * bands):
        g = job // bands
        y0 = (job - g * bands) * per
        if y0 < h:
            _col_band(src, dst, g, y0, min(h, y0 + per), wrap, rs, lastmask, skip, generations, lut)
'''

#: B/S rules: each row's horizontal 3-sum (two bit-planes), the rule on the vertical total.
_BS_PART = '''

@njit(cache=True)
def _col_scratch(lut):
    """A run's row sums: (2, rows + 2) low and high bit-planes."""
    return np.empty((2, RUN_CHUNKS * 64 + 2), dtype=np.uint64)


@njit(cache=True)
def _col_out(a, b, g, k, y0, y1, buf, off, mask, sh, lut):
    """Rows y0 .. y1 - 1 of column k of grid g into b from the row sums at buf[:, off ..];
    returns the rows whose word changed, as bits y - y0 + sh."""
{prologue}
    _bits = U0
    _base = np.uint64(y0)
    _o = np.uint64(off)
    _s = np.uint64(sh)
    for _i in range(np.uint64(y1 - y0)):
        _y = _base + _i
        _j = _o + _i
        a0 = buf[0, _j]
        a1 = buf[1, _j]
        b0 = buf[0, _j + U1]
        b1 = buf[1, _j + U1]
        d0 = buf[0, _j + CU2]
        d1 = buf[1, _j + CU2]
        c = a[g, k, _y]
{total}
{rule_lines}
        _new = ({expr}) & mask
        _bits |= np.uint64(_new != b[g, k, _y]) << (_i + _s)
        b[g, k, _y] = _new
    return _bits
'''

#: Table rules: each row's west-shifted word, word and east-shifted word; ``_rule9`` on the nine.
_TABLE_PART = '''

@njit(cache=True)
def _col_scratch(lut):
    """A run's planes: (3, rows + 2) west-shifted, word, east-shifted."""
    return np.empty((3, RUN_CHUNKS * 64 + 2), dtype=np.uint64)


@njit(cache=True)
def _col_out(a, b, g, k, y0, y1, buf, off, mask, sh, lut):
    """Rows y0 .. y1 - 1 of column k of grid g into b from the planes at buf[:, off ..];
    returns the rows whose word changed, as bits y - y0 + sh."""
    bits = U0
    base = np.uint64(y0)
    o = np.uint64(off)
    s = np.uint64(sh)
    for i in range(np.uint64(y1 - y0)):
        y = base + i
        j = o + i
        new = _rule9(buf[0, j], buf[1, j], buf[2, j], buf[0, j + U1], buf[1, j + U1], buf[2, j + U1],
                     buf[0, j + CU2], buf[1, j + CU2], buf[2, j + CU2]) & mask
        bits |= np.uint64(new != b[g, k, y]) << (i + s)
        b[g, k, y] = new
    return bits
'''

_TABLE_STORE = """        buf[0, t] = w
        buf[1, t] = m
        buf[2, t] = e"""


def _lines(lines: tuple[str, ...] | list[str], depth: int) -> str:
    return "\n".join("    " * depth + line for line in lines)


def bs_columns(row_sum: tuple[str, ...], total: tuple[str, ...], prologue: str, rule_lines: str, expr: str) -> str:
    """Column kernels of a B/S rule: ``row_sum`` (``lo``, ``hi`` from ``w``, ``m``, ``e``),
    ``total`` (``t0..t3`` from ``a0..d1``), then ``rule_lines`` and ``expr`` (over ``t0..t3``,
    ``c``; 8-space indented) and a ``prologue`` (4-space indented) for the generic kernel."""
    store = [line.replace("lo =", "lo_ =").replace("hi =", "hi_ =") for line in row_sum]
    loop = _lines([*store, "buf[0, t] = lo_", "buf[1, t] = hi_"], 2)
    part = _BS_PART.format(prologue=prologue or "    pass", total=_lines(total, 2), rule_lines=rule_lines, expr=expr)
    return part + _COMMON.format(run=RUN_CHUNKS, store=loop)


def table_columns() -> str:
    """Column kernels of a table rule, calling the module's ``_rule9(nw, n, ne, w, c, e, sw, s, se)``."""
    return _TABLE_PART + _COMMON.format(run=RUN_CHUNKS, store=_TABLE_STORE)


def to_columns(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Packed ``(B, H, wp)`` rows -> two ``(B, wp + 1, H)`` column buffers holding the same grid
    (the kernels' ``src`` and ``dst``; column ``wp`` is 0)."""
    n, h, wp = words.shape
    src = np.zeros((n, wp + 1, h), dtype=np.uint64)
    src[:, :wp, :] = words.transpose(0, 2, 1)
    return src, src.copy()


def from_columns(cols: np.ndarray) -> np.ndarray:
    """:func:`to_columns`'s inverse: ``(B, wp + 1, H)`` -> ``(B, H, wp)`` (a new array)."""
    return np.ascontiguousarray(cols[:, :-1, :].transpose(0, 2, 1))


def change_bits(n: int, wp: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    """The two ``(B, wp + 1, ceil(H / 64))`` bit buffers: the first says every row may change
    (nothing is known before the first generation), the second is written before it is read."""
    first = np.zeros((n, wp + 1, (h + 63) // 64), dtype=np.uint64)
    first[:, :wp, :] = ~np.uint64(0)
    return first, np.zeros_like(first)


__all__ = ["RUN_CHUNKS", "bs_columns", "change_bits", "from_columns", "table_columns", "to_columns"]
