"""``bitpack-gpu``: two-state 3x3 rules, 32 cells per word, Triton kernels on CUDA tensors.

The grid is packed on the device (:func:`.bitpack_pack.pack_torch`) into ``(B, H, ceil(W/32))``
``int32`` words (the kernels reinterpret them as ``uint32``) and stays packed for the whole run.
Per word, the kernels do what :mod:`.bitpack_cpu` does: west/east-shifted rows with carry bits from
the adjacent words (on a torus the first/last word take their carry from the other end of the
row, the last *real* column), a full adder per row, the vertical adder to the 3x3 total as four
bit-planes, and the rule's expression from :mod:`.bitpack_circuit`; padding bits are masked to 0
after every generation.

Three kernels, chosen by grid size:

- ``step_kernel``: one generation per launch, 2-D tiles of ``BR`` rows x ``BW`` words, the nine
  neighbour words loaded through the cache (each word leaves DRAM about once). Tiles away from the
  grid's edges (about 87% of a 16384^2 grid's 32 x 32-word tiles) branch to a path with no wrapped
  index, no mask, no carry select and no padding to clear: compiled for sm_90 it costs ~30 SASS
  instructions a word against ~70-110 for the edge path (``benchmarks/gpu_static.py``);
  ``lanes_step_kernel`` does the same (~25-30 against 52-91).
- ``multi_kernel`` (temporal blocking): ``G`` generations per launch. A program loads a tile with a
  halo of ``G`` rows and one word each side, keeps the intermediate generations in a
  program-private scratch (L1/L2-resident) and writes back only the interior, which is still
  exact after ``G`` generations. Used when ``gens_per_launch > 1``.
- ``whole_kernel``: a persistent loop for small grids: one program per grid runs *all*
  generations in one launch (ping-pong in scratch, a barrier between generations), so launch
  overhead is paid once per run, not once per generation.

Batches of at least ``lanes_min_batch`` grids run *lane-per-grid* instead (bit ``j`` of word
``[g, y, x]`` is cell ``(y, x)`` of grid ``32 g + j``, as :func:`.bitpack_pack.pack_lanes_torch`
defines it; ``lanes_pack_kernel`` and ``lanes_unpack_kernel``, one module for every rule, convert
in one pass each), the layout ``bitpack-cpu`` uses for batches (:mod:`.bitpack_lanes`): a word's
eight neighbours are the eight words around it, so a generation is three full adders and the rule,
with no shifts, no carry bits across words and no padding bits to clear, and a 16-wide grid no
longer leaves half of every word idle. ``lanes_step_kernel`` runs one generation per launch over
tiles of words; ``lanes_whole_kernel`` runs all generations of one group (32 grids) per program,
``BR`` rows at a time, when each group is small and there are enough groups to fill the device.

Triton's interpreter (``TRITON_INTERPRET=1``) runs the same kernels on CPU tensors; that is how
they are tested where there is no GPU, and ``benchmarks/gpu_static.py`` compiles them for sm_90
(no GPU needed) to check what the interpreter cannot: that they compile, and spill nothing. Only
long-stable Triton APIs are used (``tl.load``/``store``, ``program_id``, ``arange``, ``where``,
shifts on ``uint32``, ``static_range``, ``debug_barrier``): the interpreted tests pass and every
kernel compiles under Triton 3.6 (the CUDA machine's) as under 3.9. (Triton 3.6's interpreter
itself needs NumPy < 2: with 2.2 it fails on ``~`` of a ``uint32``, with 2.4 on ``range`` over a
scalar argument; compiled kernels are not affected.)

Tables that are not B/S over the Moore neighbourhood (Hensel letters, MAP strings, V and H rules)
run the same kernels with ``_row_sum``/``_combine`` swapped for the table's circuit over the nine
neighbour planes (:func:`planes_source`, the circuits of :mod:`.bitpack_bdd`, the same ones
``bitpack-cpu`` runs).

The kernel module is generated per rule (the expression inlined) into the same cache directory as
the CPU kernels; Triton compiles it once per rule and caches the binary itself.
"""

from __future__ import annotations

import os
from functools import lru_cache
from types import ModuleType
from typing import Any

import torch
import triton  # noqa: F401  (the engine is registered lazily; this import is what it needs)

from ..errors import EngineError, UsageError
from ..rules.base import Rule
from ..topology import Topology
from .base import Engine
from .bitpack_bdd import Circuit, is_count_circuit, table_circuit
from .bitpack_circuit import PLANE_COUNTS, TOTAL, load_generated_module, planes_key, rule_table, why_not_bitpack
from .bitpack_pack import LANES_32 as LANES
from .bitpack_pack import last_word_mask, n_words, pack_torch, unpack_torch

_TEMPLATE_VERSION = "7"
#: CUDA caps a launch grid's second and third dimensions at 65535 programs; the batch is the third.
MAX_GRIDS_PER_LAUNCH = 65535
#: Batches of at least this many grids run lane-per-grid (32 lanes a word), where the grids are
#: also at most :data:`LANES_MAX_WIDTH` cells wide. 24 as on the CPU (``lanes_layout.MIN_BATCH``):
#: on an H200 (2026-12-04, ``benchmarks/gpu_layouts.py``) lanes already won for 4 grids of 16^2.
LANES_MIN_BATCH = 24
#: Widest grid that runs lane-per-grid on a GPU. Measured on an H200 (2026-12-04,
#: ``bench_bitpack.py --device cuda``, kernels alone, B3/S23 tori, 256 generations): for 16^2 grids,
#: where a row-packed row fills half a word, lanes ran 4.42 T cell updates/s against 0.55 T for
#: rows; for 64^2 and 256^2, where rows fill their words, rows with the whole-grid kernel ran 5.37
#: and 3.06 T against 3.98 and 1.11 T for the best lane kernel. The count (~71 operations a row
#: word, ~37 a lane word) had predicted lanes for every size: the whole-grid row kernel keeps a
#: grid in registers, which the count left out.
LANES_MAX_WIDTH = 16
#: Most words a ``whole_kernel`` thread holds (one program per grid, the grid in registers). With
#: 4 warps for 4096 words (32 a thread) ptxas for sm_90 spilled 80 to 560 bytes a thread (Triton
#: 3.9); 16 warps for 4096 cap a thread at 128 registers and Triton 3.6's code still spilled 136 to
#: 200 bytes on a torus. 8 warps for 2048 words (8 a thread, ``whole_max_words``): 92 to 240
#: registers, no spills, in both versions (``benchmarks/gpu_static.py`` compiles and reads them back
#: with no GPU).
WHOLE_WORDS_PER_THREAD = 8
#: Most words a forced ``whole_kernel`` (``mode="whole"``, tests and benchmarks) holds; larger grids
#: run the step kernel. A program's tile is the whole grid, unrolled: for sm_90 8192 words compiled in
#: 6 s (264 bytes spilled a thread), 16384 in 10 s (4440 bytes), and a 4096^2 grid would be 512k.
WHOLE_FORCED_MAX_WORDS = 8192
#: Smallest ``whole_kernel`` tile (rows, words). Each tile shape is its own compiled kernel (~0.4 s
#: per rule and topology); without a floor, grids of 1, 5 and 17 rows compiled three.
WHOLE_MIN_TILE = (32, 2)
#: Generations per ``multi_kernel`` launch when the caller sets none, for batches of at most
#: ``MULTI_MAX_WORDS`` words (one 4096^2 grid). Measured on an H200 (2026-12-04,
#: ``bench_bitpack.py --device cuda``, B3/S23 tori, 256 generations): 8 a launch ran 1024^2 at
#: 0.39 T cell updates/s against 0.06 T for one (launch overhead dominates a small grid), 2048^2 at
#: 0.93 against 0.14 T, 4096^2 at 1.61 against 0.57 T; at 16384^2 one a launch won, 4.84 against
#: 2.23 T (the halo work of a temporal block costs more than the launches it saves). 8192^2 was
#: not measured, so the line sits at the largest size measured to gain.
MULTI_GENERATIONS = 8
MULTI_MAX_WORDS = 4096 * 4096 // 32
#: Cells per program of the lane packing kernels.
_PACK_BLOCK = 1024

_TEMPLATE = '''"""Generated by tensorca.engines.bitpack_gpu for rule: {key}"""
import triton
import triton.language as tl


@triton.jit
def _wrap(i, n, TORUS: tl.constexpr):
    """Index i (within n of the range) wrapped into 0..n-1 on a torus; unchanged on a plane."""
    if TORUS:
        i = tl.where(i < 0, i + n, i)
        i = tl.where(i >= n, i - n, i)
    return i


@triton.jit
def _load(base, r, k, h, wp, TORUS: tl.constexpr):
    """uint32 words at (row r, word k) of one grid: wrapped on a torus, 0 outside a plane."""
    r = _wrap(r, h, TORUS)
    k = _wrap(k, wp, TORUS)
    ok = (r >= 0) & (r < h) & (k >= 0) & (k < wp)
    v = tl.load(base + r * wp + k, mask=ok, other=0)
    return v.to(tl.uint32, bitcast=True)


@triton.jit
def _near(base, row, r, k, DR: tl.constexpr, DK: tl.constexpr, h, wp, TORUS: tl.constexpr, INSIDE: tl.constexpr):
    """Words at (rows r + DR, words k + DK): INSIDE (all inside the grid) a plain load at ``row`` + DK,
    ``row`` the words of row r + DR at k, else _load. (Offsets from one row pointer let the compiler
    see that a word's west and east neighbours are its row's words: fewer loads.)"""
    if INSIDE:
        v = tl.load(row + DK).to(tl.uint32, bitcast=True)
    else:
        v = _load(base, r + DR, k + DK, h, wp, TORUS)
    return v


{row_functions}@triton.jit
def _next_global(base, r, k, gk, h, wp, rs, last_mask, TORUS: tl.constexpr, INSIDE: tl.constexpr):
    """Next generation at (rows r, words k) read from a grid in global memory; gk = k wrapped.
    INSIDE: rows r-1..r+1 and words k-1..k+1 all lie inside the grid and no k is a row's first or
    last word (an interior tile): no wrap, no mask, no carry select, no padding to clear."""
    if INSIDE:
        first = False
        last = False
    else:
        first = gk == 0
        last = gk == wp - 1
    here = base + r * wp + k  # the INSIDE path's row pointers
    up = here - wp
    down = here + wp
    am = _near(base, up, r, k, -1, 0, h, wp, TORUS, INSIDE)
    a0, a1 = _row_sum(_near(base, up, r, k, -1, -1, h, wp, TORUS, INSIDE), am,
                      _near(base, up, r, k, -1, 1, h, wp, TORUS, INSIDE), first, last, rs)
    c = _near(base, here, r, k, 0, 0, h, wp, TORUS, INSIDE)
    b0, b1 = _row_sum(_near(base, here, r, k, 0, -1, h, wp, TORUS, INSIDE), c,
                      _near(base, here, r, k, 0, 1, h, wp, TORUS, INSIDE), first, last, rs)
    dm = _near(base, down, r, k, 1, 0, h, wp, TORUS, INSIDE)
    d0, d1 = _row_sum(_near(base, down, r, k, 1, -1, h, wp, TORUS, INSIDE), dm,
                      _near(base, down, r, k, 1, 1, h, wp, TORUS, INSIDE), first, last, rs)
    return _combine(a0, a1, am, b0, b1, c, d0, d1, dm, last, last_mask)


@triton.jit
def _interior(pr, pk, h, w, BR: tl.constexpr, BW: tl.constexpr, INTERIOR: tl.constexpr):
    """True for tile (row pr, column pk) of BR x BW words when every neighbour word of the tile lies
    inside the h x w grid and no word of it is a row's first or last (and INTERIOR is on)."""
    return (pr > 0) & ((pr + 1) * BR < h) & (pk > 0) & ((pk + 1) * BW < w) & INTERIOR


@triton.jit
def step_kernel(src, dst, h, wp, rs, last_mask_i, TORUS: tl.constexpr, BR: tl.constexpr, BW: tl.constexpr,
                INTERIOR: tl.constexpr):
    """One generation; grid (cdiv(wp, BW), cdiv(h, BR), batch). INTERIOR: tiles whose neighbours all
    lie inside the grid (neither the first nor the last tile row or column) take _next_global's
    INSIDE path."""
    pr = tl.program_id(1)
    pk = tl.program_id(0)
    r = pr * BR + tl.arange(0, BR)[:, None]
    k = pk * BW + tl.arange(0, BW)[None, :]
    offset = tl.program_id(2).to(tl.int64) * h * wp
    last_mask = (tl.full((1,), 0, tl.int32) | last_mask_i).to(tl.uint32, bitcast=True)
    if _interior(pr, pk, h, wp, BR, BW, INTERIOR):
        out = _next_global(src + offset, r, k, k, h, wp, rs, last_mask, TORUS, True)
        tl.store(dst + offset + r * wp + k, out.to(tl.int32, bitcast=True))
    else:
        out = _next_global(src + offset, r, k, k, h, wp, rs, last_mask, TORUS, False)
        inside = (r < h) & (k < wp)
        tl.store(dst + offset + r * wp + k, out.to(tl.int32, bitcast=True), mask=inside)


@triton.jit
def _tile_load(base, i, j, BR: tl.constexpr, BW: tl.constexpr):
    """uint32 words at tile position (i, j) of a BR x BW scratch tile, 0 outside the tile."""
    ok = (i >= 0) & (i < BR) & (j >= 0) & (j < BW)
    v = tl.load(base + i * BW + j, mask=ok, other=0)
    return v.to(tl.uint32, bitcast=True)


@triton.jit
def _next_tile(base, i, j, first, last, keep, rs, last_mask, BR: tl.constexpr, BW: tl.constexpr):
    """Next generation of a scratch tile (garbage creeps in from the tile edge, one cell per gen)."""
    am = _tile_load(base, i - 1, j, BR, BW)
    a0, a1 = _row_sum(_tile_load(base, i - 1, j - 1, BR, BW), am, _tile_load(base, i - 1, j + 1, BR, BW),
                      first, last, rs)
    c = _tile_load(base, i, j, BR, BW)
    b0, b1 = _row_sum(_tile_load(base, i, j - 1, BR, BW), c, _tile_load(base, i, j + 1, BR, BW), first, last, rs)
    dm = _tile_load(base, i + 1, j, BR, BW)
    d0, d1 = _row_sum(_tile_load(base, i + 1, j - 1, BR, BW), dm, _tile_load(base, i + 1, j + 1, BR, BW),
                      first, last, rs)
    out = _combine(a0, a1, am, b0, b1, c, d0, d1, dm, last, last_mask)
    return tl.where(keep, out, 0)


@triton.jit
def multi_kernel(src, dst, scratch, h, wp, rs, last_mask_i,
                 TORUS: tl.constexpr, G: tl.constexpr, BR: tl.constexpr, BW: tl.constexpr):
    """G generations per launch (temporal blocking); grid (cdiv(wp, BW-2), cdiv(h, BR-2G), batch).

    Needs h >= BR and wp >= BW (so one wrap suffices) and, on a torus, G <= valid bits of the
    last word (the west halo word may be that partial word).
    """
    OUT_R: tl.constexpr = BR - 2 * G
    OUT_W: tl.constexpr = BW - 2
    pk = tl.program_id(0)
    py = tl.program_id(1)
    b = tl.program_id(2)
    i = tl.arange(0, BR)[:, None]
    j = tl.arange(0, BW)[None, :]
    r = py * OUT_R - G + i
    k = pk * OUT_W - 1 + j
    gr = _wrap(r, h, TORUS)
    gk = _wrap(k, wp, TORUS)
    keep = (gr >= 0) & (gr < h) & (gk >= 0) & (gk < wp)  # always true on a torus
    first = gk == 0
    last = gk == wp - 1
    offset = b.to(tl.int64) * h * wp
    last_mask = (tl.full((1,), 0, tl.int32) | last_mask_i).to(tl.uint32, bitcast=True)
    program = (b.to(tl.int64) * tl.num_programs(1) + py) * tl.num_programs(0) + pk
    slot0 = scratch + program * (2 * BR * BW)
    slot1 = slot0 + BR * BW
    out = _next_global(src + offset, r, k, gk, h, wp, rs, last_mask, TORUS, False)
    out = tl.where(keep, out, 0)
    for g in tl.static_range(1, G):
        if g % 2 == 1:
            tl.store(slot0 + i * BW + j, out.to(tl.int32, bitcast=True))
            tl.debug_barrier()
            out = _next_tile(slot0, i, j, first, last, keep, rs, last_mask, BR, BW)
        else:
            tl.store(slot1 + i * BW + j, out.to(tl.int32, bitcast=True))
            tl.debug_barrier()
            out = _next_tile(slot1, i, j, first, last, keep, rs, last_mask, BR, BW)
    interior = (i >= G) & (i < BR - G) & (j >= 1) & (j < BW - 1) & (r < h) & (k < wp)
    tl.store(dst + offset + r * wp + k, out.to(tl.int32, bitcast=True), mask=interior)


@triton.jit
def whole_kernel(work, h, wp, rs, last_mask_i, gens, TORUS: tl.constexpr, BR: tl.constexpr, BW: tl.constexpr):
    """All `gens` generations of one grid per program; work is (batch, 2, h, wp), slot 0 = input.

    The result is in slot gens % 2. BR >= h and BW >= wp.
    """
    b = tl.program_id(0)
    r = tl.arange(0, BR)[:, None]
    k = tl.arange(0, BW)[None, :]
    inside = (r < h) & (k < wp)
    size = h * wp
    base = work + b.to(tl.int64) * 2 * size
    last_mask = (tl.full((1,), 0, tl.int32) | last_mask_i).to(tl.uint32, bitcast=True)
    for g in range(gens):
        src = base + (g % 2) * size
        dst = base + ((g + 1) % 2) * size
        out = _next_global(src, r, k, k, h, wp, rs, last_mask, TORUS, False)
        tl.store(dst + r * wp + k, out.to(tl.int32, bitcast=True), mask=inside)
        tl.debug_barrier()


{lane_load}

@triton.jit
def _lane_row(base, row, r, k, h, w, TORUS: tl.constexpr, INSIDE: tl.constexpr):
    """Lane words (west, here, east) of row r at columns k; INSIDE (an interior tile: row r and
    columns k-1..k+1 inside the grid) plain loads around ``row`` = base + r * w + k."""
    if INSIDE:
        west = tl.load(row - 1).to(tl.uint32, bitcast=True)
        here = tl.load(row).to(tl.uint32, bitcast=True)
        east = tl.load(row + 1).to(tl.uint32, bitcast=True)
    else:
        west = _lane_load(base, r, k, -1, h, w, TORUS)
        here = _lane_load(base, r, k, 0, h, w, TORUS)
        east = _lane_load(base, r, k, 1, h, w, TORUS)
    return west, here, east


@triton.jit
def _next_lanes(base, r, k, h, w, TORUS: tl.constexpr, INSIDE: tl.constexpr):
    """Next lane words at (rows r, columns k) of one group of 32 grids, read from global memory
    (INSIDE: rows r-1..r+1 and columns k-1..k+1 all inside the grid, see _lane_row)."""
    row = base + r * w + k  # INSIDE only
    nw, n, ne = _lane_row(base, row - w, r - 1, k, h, w, TORUS, INSIDE)
    west, c, east = _lane_row(base, row, r, k, h, w, TORUS, INSIDE)
    sw, s, se = _lane_row(base, row + w, r + 1, k, h, w, TORUS, INSIDE)
    return _lane_rule(nw, n, ne, west, c, east, sw, s, se)


@triton.jit
def lanes_step_kernel(src, dst, h, w, TORUS: tl.constexpr, BR: tl.constexpr, BW: tl.constexpr,
                      INTERIOR: tl.constexpr):
    """One generation of lane words (groups, h, w); grid (cdiv(w, BW), cdiv(h, BR), groups).
    INTERIOR: tiles away from the grid's edges take _next_lanes' INSIDE path."""
    pr = tl.program_id(1)
    pk = tl.program_id(0)
    r = pr * BR + tl.arange(0, BR)[:, None]
    k = pk * BW + tl.arange(0, BW)[None, :]
    offset = tl.program_id(2).to(tl.int64) * h * w
    if _interior(pr, pk, h, w, BR, BW, INTERIOR):
        out = _next_lanes(src + offset, r, k, h, w, TORUS, True)
        tl.store(dst + offset + r * w + k, out.to(tl.int32, bitcast=True))
    else:
        out = _next_lanes(src + offset, r, k, h, w, TORUS, False)
        tl.store(dst + offset + r * w + k, out.to(tl.int32, bitcast=True), mask=(r < h) & (k < w))


@triton.jit
def lanes_whole_kernel(work, h, w, gens, TORUS: tl.constexpr, BR: tl.constexpr, BW: tl.constexpr):
    """All `gens` generations of one group per program, BR rows at a time (BW >= w); work is
    (groups, 2, h, w), slot 0 = input; the result is in slot gens % 2."""
    k = tl.arange(0, BW)[None, :]
    size = h * w
    base = work + tl.program_id(0).to(tl.int64) * 2 * size
    for g in range(gens):
        src = base + (g % 2) * size
        dst = base + ((g + 1) % 2) * size
        for r0 in range(0, h, BR):
            r = r0 + tl.arange(0, BR)[:, None]
            out = _next_lanes(src, r, k, h, w, TORUS, False)
            tl.store(dst + r * w + k, out.to(tl.int32, bitcast=True), mask=(r < h) & (k < w))
        tl.debug_barrier()  # every row of generation g + 1 written before any is read

'''


#: ``_lane_load`` as a select on the column index (``_load``'s wrap), for Triton 3.7 and later.
_LANE_LOAD_SELECT = '''@triton.jit
def _lane_load(base, r, k, DK: tl.constexpr, h, w, TORUS: tl.constexpr):
    """Lane words at (row r, column k + DK), k in 0..w-1: wrapped on a torus, 0 outside a plane."""
    return _load(base, r, k + DK, h, w, TORUS)
'''

#: ``_lane_load`` with a wrapped column as a second, predicated load (Triton before 3.7, see
#: :func:`lane_wrap_by_loads`).
_LANE_LOAD_PREDICATED = '''@triton.jit
def _lane_load(base, r, k, DK: tl.constexpr, h, w, TORUS: tl.constexpr):
    """Lane words at (row r, column k + DK), k in 0..w-1 (DK in -1, 0, 1): wrapped on a torus, 0
    outside a plane, the wrapped column read by a second load whose pointers stay contiguous along
    the row. Spare lanes past column w read any word of the row (their results are not stored)."""
    r = _wrap(r, h, TORUS)
    row = base + r * w
    rows = (r >= 0) & (r < h)
    col = k + DK
    v = tl.load(row + col, mask=rows & (col >= 0) & (col < w), other=0)
    if TORUS:
        if DK < 0:  # column -1 is the row's last
            v = v | tl.load(row + (col + w), mask=rows & (col < 0), other=0)
        if DK > 0:  # column w is its first
            v = v | tl.load(row + (col - w), mask=rows & (col >= w) & (col < 2 * w), other=0)
    return v.to(tl.uint32, bitcast=True)
'''


def lane_wrap_by_loads() -> bool:
    """True where the lane kernels read a torus's wrapped columns with a second load (Triton < 3.7).

    A select on the column index hides from Triton that each row's pointers are contiguous; Triton
    3.6 then gave those loads another layout and converted between the two through shared memory:
    8 conversions in either lane kernel on a torus (15 barriers in ``lanes_step_kernel``), and
    ``lanes_whole_kernel`` at 120 SASS instructions a word against 48 on a plane. With the second
    load: no conversions, 77. Triton 3.7, 3.8 and 3.9 convert nothing either way, and there the
    extra loads cost (62 to 70-80 a word under 3.9), so they keep the select. Compiled for sm_90
    and read back by ``benchmarks/gpu_static.py``."""
    try:
        major, minor = (int(part) for part in triton.__version__.split(".")[:2])
    except ValueError:  # a development build: assume a recent one
        return False
    return (major, minor) < (3, 7)


#: The lane packing kernels: rule-independent, so one module (compiled once) serves every rule.
_LANE_PACKING = '''"""Generated by tensorca.engines.bitpack_gpu: lane-per-grid packing (no rule in it)."""
import triton
import triton.language as tl


@triton.jit
def lanes_pack_kernel(cells, words, batch, hw, BLOCK: tl.constexpr):
    """(batch, h, w) uint8 0/1 cells -> (groups, h, w) lane words, bit j of word [g, p] the cell p of
    grid 32 g + j (0 past the batch); grid (cdiv(hw, BLOCK), groups)."""
    p = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    g = tl.program_id(1).to(tl.int64)
    inside = p < hw
    src = cells + g * 32 * hw + p
    word = tl.full((BLOCK,), 0, tl.uint32)
    # a loop over the group's grids, not static_range: unrolled, the compiler hoists all 32 loads
    # and spills (ptxas, sm_90); lanes past the batch stay 0
    for j in range(tl.minimum(batch - tl.program_id(1) * 32, 32)):
        v = tl.load(src, mask=inside, other=0)
        word = word | ((v != 0).to(tl.uint32) << j)
        src += hw
    tl.store(words + g * hw + p, word.to(tl.int32, bitcast=True), mask=inside)


@triton.jit
def lanes_unpack_kernel(words, cells, batch, hw, BLOCK: tl.constexpr):
    """(groups, h, w) lane words -> (batch, h, w) uint8 0/1 cells; grid (cdiv(hw, BLOCK), groups)."""
    p = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    g = tl.program_id(1).to(tl.int64)
    inside = p < hw
    word = tl.load(words + g * hw + p, mask=inside, other=0).to(tl.uint32, bitcast=True)
    dst = cells + g * 32 * hw + p
    for j in range(tl.minimum(batch - tl.program_id(1) * 32, 32)):
        tl.store(dst, ((word >> j) & 1).to(tl.uint8), mask=inside)
        dst += hw

'''


#: Count kernels: a row's (lo, hi) 3-sum, then the 3x3 total and the rule expression.
_COUNT_ROWS = '''@triton.jit
def _add3(x, y, z):
    """Full adder of three words, bit by bit: (sum, carry)."""
    s = x ^ y
    return s ^ z, (x & y) | (s & z)


@triton.jit
def _row_sum(mw, m, me, first, last, rs):
    """Horizontal 3-sum (lo, hi) of words m with west word mw and east word me."""
    ws = tl.where(first, rs, 31).to(tl.uint32)
    es = tl.where(last, rs, 31).to(tl.uint32)
    return _add3((m << 1) | ((mw >> ws) & 1), m, (m >> 1) | ((me & 1) << es))


@triton.jit
def _rule(a0, a1, am, b0, b1, c, d0, d1, dm):
    """Next words from the row sums above (a), here (b), below (d) and the centre words c."""
{total}
    return {expr}


@triton.jit
def _combine(a0, a1, am, b0, b1, c, d0, d1, dm, last, last_mask):
    """Next words, padding bits of a row's last word cleared."""
    out = _rule(a0, a1, am, b0, b1, c, d0, d1, dm)
    full = ~(c ^ c)
    return out & tl.where(last, last_mask, full)


@triton.jit
def _lane_rule(nw, n, ne, w, c, e, sw, s, se):
    """Next lane words from the nine neighbour words (one grid a bit: no shifts, no padding)."""
    a0, a1 = _add3(nw, n, ne)
    b0, b1 = _add3(w, c, e)
    d0, d1 = _add3(sw, s, se)
    return _rule(a0, a1, n, b0, b1, c, d0, d1, s)


'''

#: Table kernels: a row's west/east-shifted words, then the table circuit over the nine planes.
_PLANES_ROWS = '''@triton.jit
def _row_sum(mw, m, me, first, last, rs):
    """West- and east-shifted words of m (west word mw, east word me)."""
    ws = tl.where(first, rs, 31).to(tl.uint32)
    es = tl.where(last, rs, 31).to(tl.uint32)
    return (m << 1) | ((mw >> ws) & 1), (m >> 1) | ((me & 1) << es)


@triton.jit
def _rule(nw, ne, n, w, e, c, sw, se, s):
    """Next words from the nine neighbour planes (the table circuit)."""
{counts}
{lines}
    return {result}


@triton.jit
def _combine(nw, ne, n, w, e, c, sw, se, s, last, last_mask):
    """Next words, padding bits of a row's last word cleared."""
    out = _rule(nw, ne, n, w, e, c, sw, se, s)
    full = ~(c ^ c)
    return out & tl.where(last, last_mask, full)


@triton.jit
def _lane_rule(nw, n, ne, w, c, e, sw, s, se):
    """Next lane words from the nine neighbour words (one grid a bit: the words are the planes)."""
    return _rule(nw, ne, n, w, e, c, sw, se, s)


'''


@lru_cache(maxsize=64)  # a module's source is formatted once, not on every engine call
def kernel_source(expression: str) -> str:
    """The Triton module source for a rule expression (see :func:`.bitpack_circuit.rule_expression`)."""
    total = "\n".join("    " + line for line in TOTAL)
    rows = _COUNT_ROWS.format(total=total, expr=expression)
    return _TEMPLATE.format(key=expression, row_functions=rows, lane_load=_lane_load_source())


@lru_cache(maxsize=64)  # a module's source is formatted once, not on every engine call
def planes_source(circuit: Circuit) -> str:
    """The Triton module source for a table circuit over the nine planes (:mod:`.bitpack_bdd`)."""
    counts = circuit.inputs & {"t0", "t1", "t2", "t3"}
    rows = _PLANES_ROWS.format(
        counts="\n".join("    " + line for line in PLANE_COUNTS) if counts else "",
        lines="\n".join("    " + line for line in circuit.lines),
        result=circuit.result,
    )
    return _TEMPLATE.format(key=circuit.key, row_functions=rows, lane_load=_lane_load_source())


def _lane_load_source() -> str:
    return _LANE_LOAD_PREDICATED if lane_wrap_by_loads() else _LANE_LOAD_SELECT


def kernel_module(expression: str) -> ModuleType:
    """The Triton kernels for ``expression`` (generated into the cache directory, imported once)."""
    return load_generated_module("bitpack-gpu", expression, kernel_source(expression), _version())


def table_module(table: bytes) -> ModuleType:
    """The Triton kernels of a 512-entry table: the B/S kernels when the table is B/S over the
    Moore neighbourhood (any spelling), else its circuit over the nine planes."""
    circuit = table_circuit(table)
    if is_count_circuit(circuit):
        return kernel_module(circuit.result)
    return load_generated_module("bitpack-gpu", planes_key(circuit), planes_source(circuit), _version())


def lane_packing_module() -> ModuleType:
    """The lane packing kernels (``lanes_pack_kernel``, ``lanes_unpack_kernel``), one module for all rules."""
    return load_generated_module("bitpack-gpu", "lane packing", _LANE_PACKING, _version())


def _version() -> str:
    # interpreted and compiled kernels are different objects: keep them apart
    return _TEMPLATE_VERSION + ("-interpret" if interpreting() else "")


def interpreting() -> bool:
    """True when Triton runs kernels in its CPU interpreter (``TRITON_INTERPRET=1``)."""
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def _pow2(n: int) -> int:
    return 1 << max(0, (int(n) - 1).bit_length())


def _multiprocessors(device: Any) -> int:
    """Streaming multiprocessors of a CUDA device (1 for the interpreter's CPU tensors)."""
    if device.type != "cuda":
        return 1
    return int(torch.cuda.get_device_properties(device).multi_processor_count)


def _as_i32(mask: int) -> int:
    return mask - (1 << 32) if mask >= 1 << 31 else mask


class BitpackGpu:
    """Launch parameters of the kernels (the engine's knobs; see ``benchmarks/bench_bitpack.py``).

    ``gens_per_launch``: generations per ``multi_kernel`` launch (1 = ``step_kernel``); None
    chooses per call (:meth:`launch_generations`).
    ``block_rows`` x ``block_words``: the tile of ``step_kernel`` and ``multi_kernel``.
    ``interior``: tiles of ``step_kernel`` and ``lanes_step_kernel`` away from the grid's edges
    (:meth:`interior_tiles`) take a path with no wrap, mask or carry select (``INSIDE`` in
    ``_next_global`` and ``_next_lanes``); False runs every tile the edge way (for benchmarks:
    ``bench_bitpack.py --device cuda`` times both).
    ``whole_max_words``: grids whose tile (:meth:`whole_tile`) holds at most this many words run
    all generations in one ``whole_kernel`` launch (:meth:`runs_whole`), with enough warps
    (:meth:`whole_warps`) that a thread holds at most :data:`WHOLE_WORDS_PER_THREAD` words.

    Lane-per-grid batches (:meth:`advance_lanes`): ``lanes_min_batch`` grids or more of at most
    ``lanes_max_width`` cells a row run that way (:meth:`uses_lanes`; ``None`` never);
    ``lanes_whole_max_words``: groups of at most this many words per grid run whole (all
    generations in one launch) when there are at least ``lanes_whole_min_groups`` groups per
    multiprocessor, ``lanes_block`` words per program and row block. Measured on an H200
    (``benchmarks/gpu_layouts.py``, 2026-12-04): the whole-group kernel beat one generation a
    launch from a single group (3.6 against 0.7 G cell updates/s for 4 x 64^2, 1.2 against 0.05
    for 4 x 16^2), so the default is 0: every group small enough runs whole.
    """

    def __init__(self, gens_per_launch: int | None = None, block_rows: int = 32, block_words: int = 32,
                 whole_max_words: int = 2048, num_warps: int = 4, lanes_min_batch: int | None = LANES_MIN_BATCH,
                 lanes_max_width: int = LANES_MAX_WIDTH,
                 lanes_whole_max_words: int = 128 * 128, lanes_whole_min_groups: float = 0.0,
                 lanes_block: int = 1024, interior: bool = True):
        self.gens_per_launch = gens_per_launch
        self.interior = interior
        self.block_rows = block_rows
        self.block_words = block_words
        self.whole_max_words = whole_max_words
        self.num_warps = num_warps
        self.max_grids_per_launch = MAX_GRIDS_PER_LAUNCH
        self.lanes_min_batch = lanes_min_batch
        self.lanes_max_width = lanes_max_width
        self.lanes_whole_max_words = lanes_whole_max_words
        self.lanes_whole_min_groups = lanes_whole_min_groups
        self.lanes_block = lanes_block

    def launch_generations(self, words: int) -> int:
        """Generations per launch for a batch of ``words`` packed words in all: ``gens_per_launch``
        where set, else :data:`MULTI_GENERATIONS` up to :data:`MULTI_MAX_WORDS` words and 1 beyond."""
        if self.gens_per_launch is not None:
            return self.gens_per_launch
        return MULTI_GENERATIONS if words <= MULTI_MAX_WORDS else 1

    def interior_tiles(self, h: int, wp: int) -> tuple[int, int]:
        """``(interior, all)`` tiles of ``step_kernel`` on ``h`` rows of ``wp`` words (and of
        ``lanes_step_kernel`` on ``h`` x ``wp`` lane words, whose tile is the same wherever a grid
        has three tiles a side): the interior ones (not in the first tile row or column, and their
        neighbour words all inside the grid) read every neighbour word unmasked and unwrapped; 0
        interior when ``interior`` is off."""
        rows, cols = -(-h // self.block_rows), -(-wp // self.block_words)
        inner_rows = sum(1 for p in range(1, rows) if (p + 1) * self.block_rows < h)
        inner_cols = sum(1 for p in range(1, cols) if (p + 1) * self.block_words < wp)
        return (inner_rows * inner_cols if self.interior else 0), rows * cols

    def uses_lanes(self, batch: int, width: int) -> bool:
        """True when a batch of ``batch`` grids ``width`` cells wide runs lane-per-grid
        (:meth:`advance_lanes`): at least ``lanes_min_batch`` grids of at most ``lanes_max_width``
        cells a row."""
        return (self.lanes_min_batch is not None and batch >= self.lanes_min_batch
                and width <= self.lanes_max_width)

    @staticmethod
    def whole_tile(h: int, wp: int) -> tuple[int, int]:
        """``(BR, BW)`` of ``whole_kernel`` for ``h`` rows of ``wp`` words: powers of two, at least
        :data:`WHOLE_MIN_TILE`, so that every small grid shares one compiled kernel per rule."""
        return max(WHOLE_MIN_TILE[0], _pow2(h)), max(WHOLE_MIN_TILE[1], _pow2(wp))

    def runs_whole(self, h: int, wp: int, mode: str = "auto") -> bool:
        """True when :meth:`advance_packed` runs ``h`` rows of ``wp`` words in ``whole_kernel``: its
        tile (:meth:`whole_tile`) at most ``whole_max_words`` (``mode="auto"``) or
        :data:`WHOLE_FORCED_MAX_WORDS` (``"whole"``) words."""
        br, bw = self.whole_tile(h, wp)
        words = br * bw
        if mode == "whole":
            return words <= WHOLE_FORCED_MAX_WORDS
        return mode == "auto" and words <= max(self.whole_max_words, 1)

    def whole_warps(self, words: int) -> int:
        """Warps of a ``whole_kernel`` program holding ``words`` words: ``num_warps``, or more (up to
        8) so that a thread holds at most :data:`WHOLE_WORDS_PER_THREAD` words."""
        return max(self.num_warps, min(8, -(-words // (32 * WHOLE_WORDS_PER_THREAD))))

    def lanes_whole_tile(self, h: int, w: int) -> tuple[int, int] | None:
        """``(BR, BW)`` block of ``lanes_whole_kernel`` for ``h x w`` lane words (``BW >= w``, about
        ``lanes_block`` words); None when a row is wider than ``lanes_block``."""
        bw = _pow2(w)
        if bw > self.lanes_block:
            return None
        return max(1, min(_pow2(h), self.lanes_block // bw)), bw

    def lanes_step_tile(self, h: int, w: int) -> tuple[int, int]:
        """``(BR, BW)`` tile of ``lanes_step_kernel`` for ``h x w`` lane words."""
        return min(self.block_rows, _pow2(h)), min(self.block_words, _pow2(w))

    def _group_spans(self, groups: int):
        """``(g0, g1)`` runs of at most ``max_grids_per_launch`` groups (a launch grid's 2nd dimension)."""
        for g0 in range(0, groups, self.max_grids_per_launch):
            yield g0, min(groups, g0 + self.max_grids_per_launch)

    def pack_lanes(self, cells: Any) -> Any:
        """``(B, H, W)`` ``uint8`` 0/1 cells -> ``(ceil(B/32), H, W)`` ``int32`` lane words on the same
        device, in one pass (:func:`.bitpack_pack.pack_lanes_torch` defines the layout)."""
        kernel = lane_packing_module().lanes_pack_kernel
        batch, h, w = (int(s) for s in cells.shape)
        words = torch.empty((-(-batch // LANES), h, w), dtype=torch.int32, device=cells.device)
        cells = cells.contiguous()
        for g0, g1 in self._group_spans(len(words)):
            kernel[(triton.cdiv(h * w, _PACK_BLOCK), g1 - g0)](cells[g0 * LANES :], words[g0:g1], batch - g0 * LANES,
                                                               h * w, BLOCK=_PACK_BLOCK)
        return words

    def unpack_lanes(self, words: Any, batch: int) -> Any:
        """``(G, H, W)`` lane words -> ``(batch, H, W)`` ``uint8`` 0/1 cells on the same device."""
        kernel = lane_packing_module().lanes_unpack_kernel
        groups, h, w = (int(s) for s in words.shape)
        if batch > groups * LANES:
            raise UsageError(f"{groups} groups of lane words hold at most {groups * LANES} grids, not {batch}")
        cells = torch.empty((batch, h, w), dtype=torch.uint8, device=words.device)
        words = words.contiguous()
        for g0, g1 in self._group_spans(groups):
            kernel[(triton.cdiv(h * w, _PACK_BLOCK), g1 - g0)](words[g0:g1], cells[g0 * LANES :], batch - g0 * LANES,
                                                               h * w, BLOCK=_PACK_BLOCK)
        return cells

    def advance_lanes(self, words: Any, rule: Rule, torus: bool, generations: int, mode: str = "auto") -> Any:
        """Advance ``(G, H, W)`` ``int32`` lane words (:func:`.bitpack_pack.pack_lanes_torch`) by
        ``generations``; returns a new tensor.

        ``mode``: ``"auto"``, ``"step"`` (one generation per launch) or ``"whole"`` (all generations
        per launch, one group per program; falls back to ``"step"`` when a row of words is wider
        than ``lanes_block``).
        """
        groups, h, w = (int(s) for s in words.shape)
        if groups > self.max_grids_per_launch:  # the step kernel's grid caps its third dimension
            step = self.max_grids_per_launch
            return torch.cat([self.advance_lanes(words[i : i + step], rule, torus, generations, mode)
                              for i in range(0, groups, step)])
        if generations == 0 or groups == 0:
            return words.contiguous().clone()
        module = table_module(rule_table(rule))
        tile = self.lanes_whole_tile(h, w)
        whole_ok = tile is not None
        if mode == "auto":
            whole_ok = (whole_ok and h * w <= self.lanes_whole_max_words
                        and groups >= self.lanes_whole_min_groups * _multiprocessors(words.device))
        if mode in ("auto", "whole") and whole_ok:
            assert tile is not None
            work = torch.empty((groups, 2, h, w), dtype=torch.int32, device=words.device)
            work[:, 0] = words
            module.lanes_whole_kernel[(groups,)](work, h, w, generations, TORUS=torus, BR=tile[0], BW=tile[1],
                                                 num_warps=self.num_warps)
            return work[:, generations % 2].contiguous()
        br, bw = self.lanes_step_tile(h, w)
        grid = (triton.cdiv(w, bw), triton.cdiv(h, br), groups)
        src = words.contiguous().clone()  # the launches write into both buffers; the input stays
        dst = torch.empty_like(src)
        for _ in range(generations):
            module.lanes_step_kernel[grid](src, dst, h, w, TORUS=torus, BR=br, BW=bw, INTERIOR=self.interior,
                                           num_warps=self.num_warps)
            src, dst = dst, src
        return src

    def advance_packed(self, words: Any, width: int, rule: Rule, torus: bool, generations: int,
                       mode: str = "auto") -> Any:
        """Advance ``(B, H, ceil(W/32))`` ``int32`` words by ``generations``; returns a new tensor.

        ``mode``: ``"auto"``, ``"step"``, ``"multi"`` or ``"whole"`` (forcing a kernel, for tests
        and benchmarks; ``"multi"`` and ``"whole"`` fall back to ``"step"`` where they cannot run,
        ``"whole"`` also past :data:`WHOLE_FORCED_MAX_WORDS`: see :meth:`runs_whole`).
        """
        if int(words.shape[0]) > self.max_grids_per_launch:  # split the batch across launches
            step = self.max_grids_per_launch
            return torch.cat([self.advance_packed(words[i : i + step], width, rule, torus, generations, mode)
                              for i in range(0, int(words.shape[0]), step)])
        module = table_module(rule_table(rule))
        n, h, wp = (int(s) for s in words.shape)
        valid = width - (wp - 1) * 32
        rs = valid - 1
        mask = _as_i32(last_word_mask(width, 32))
        if generations == 0 or n == 0:
            return words.contiguous().clone()
        if self.runs_whole(h, wp, mode):
            br, bw = self.whole_tile(h, wp)
            work = torch.empty((n, 2, h, wp), dtype=torch.int32, device=words.device)
            work[:, 0] = words
            module.whole_kernel[(n,)](work, h, wp, rs, mask, generations, TORUS=torus, BR=br, BW=bw,
                                      num_warps=self.whole_warps(br * bw))
            return work[:, generations % 2].contiguous()
        g = self.launch_generations(n * h * wp) if mode in ("auto", "multi") else 1
        if mode == "multi" and g < 2:
            g = 2
        BR, BW = self.block_rows, self.block_words
        if torus:
            g = min(g, valid)
        if g > 1 and (h < BR or wp < BW or BR - 2 * g < 1 or BW < 3):
            g = 1
        src = words.contiguous().clone()  # the launches write into both buffers; the input stays
        dst = torch.empty_like(src)
        done = 0
        scratch = None
        while done < generations:
            k = min(g, generations - done)
            if k > 1:
                grid = (triton.cdiv(wp, BW - 2), triton.cdiv(h, BR - 2 * k), n)
                need = grid[0] * grid[1] * grid[2] * 2 * BR * BW
                if scratch is None or scratch.numel() < need:
                    scratch = torch.empty(need, dtype=torch.int32, device=words.device)
                module.multi_kernel[grid](src, dst, scratch, h, wp, rs, mask, TORUS=torus, G=k, BR=BR, BW=BW,
                                          num_warps=self.num_warps)
            else:
                grid = (triton.cdiv(wp, BW), triton.cdiv(h, BR), n)
                module.step_kernel[grid](src, dst, h, wp, rs, mask, TORUS=torus, BR=BR, BW=BW, INTERIOR=self.interior,
                                         num_warps=self.num_warps)
            src, dst = dst, src
            done += k
        return src


class BitpackGpuEngine(Engine):
    """``backend="bitpack-gpu"``: two-state 3x3 table rules on CUDA tensors (Triton)."""

    name = "bitpack-gpu"
    array_module = "torch"

    def __init__(self, launcher: BitpackGpu | None = None):
        self.launcher = launcher or BitpackGpu()

    #: uint8 input, the boolean alive grid, packed words (two buffers), uint8 output and unpacking temporaries.
    bytes_per_cell = 4.0

    def devices(self) -> list[str]:
        if interpreting():
            return ["cpu"]
        return ["cuda"] if torch.cuda.is_available() else []

    def supports(self, rule: Rule, topology: Topology) -> bool:
        return why_not_bitpack(rule.compile(), topology) is None

    def why_unsupported(self, rule: Rule, topology: Topology) -> str:
        reason = why_not_bitpack(rule.compile(), topology)
        return f"engine {self.name!r} cannot run {rule.canonical() or rule!r} on {topology}: {reason or 'supported'}"

    def advance(self, cells: Any, rule: Rule, topology: Topology, generations: int) -> Any:
        if why_not_bitpack(rule.compile(), topology) is not None:
            raise EngineError(self.why_unsupported(rule, topology))
        device = cells.device.type
        if device != "cuda" and not (interpreting() and device == "cpu"):
            raise EngineError(
                f"engine 'bitpack-gpu' runs on CUDA tensors (or CPU tensors with TRITON_INTERPRET=1), "
                f"got a {device} tensor"
            )
        batch, width = int(cells.shape[0]), int(cells.shape[2])
        torus = topology.kind == "torus"
        if self.launcher.uses_lanes(batch, width):
            alive = (cells == 1).view(torch.uint8)
            lanes = self.launcher.advance_lanes(self.launcher.pack_lanes(alive), rule, torus, generations)
            return self.launcher.unpack_lanes(lanes, batch)
        words = pack_torch(cells == 1)
        out = self.launcher.advance_packed(words, width, rule, torus, generations)
        return unpack_torch(out, width)


__all__ = ["BitpackGpu", "BitpackGpuEngine", "interpreting", "kernel_module", "kernel_source", "n_words"]
