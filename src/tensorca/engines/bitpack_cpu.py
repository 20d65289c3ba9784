"""``bitpack-cpu``: two-state 3x3 rules, 64 cells per ``uint64`` word, Numba ``parallel=True``.

Per generation and output row the kernel does, for every word of 64 cells (all bitwise, no
per-cell work; see :mod:`.bitpack_circuit`):

1. build the west- and east-shifted copies of the row below (carry bits from the adjacent words;
   on a torus the carry of the first/last word comes from the other end of the row, which is the
   last *real* column, not a padding bit);
2. a full adder of (west, centre, east) gives that row's horizontal 3-sum as two bit-planes, kept
   in a small ring of three row buffers, so each row's sum is computed once and serves the three
   output rows it touches (rows stay in L1);
3. a vertical adder of the three row sums gives the 3x3 total (centre included) as four
   bit-planes, and the rule's expression, derived from its B/S sets, gives the next word; the last
   word of each row is masked so padding bits stay 0 (B0 rules would set them otherwise).

Every other two-state 3x3 table (Hensel letters, MAP strings, V and H rules) runs the table
kernels (:func:`direct_source`): each output word reads words k-1, k, k+1 of its three rows
(L1-resident), shifts them into the nine neighbour planes and runs the table's circuit from
:mod:`.bitpack_bdd`, inlined (no ring of row sums: at 1024^2 the ring's loads and stores cost more
than recomputing the shifts). A table that is B/S over the Moore
neighbourhood, however spelt (a MAP string of Life), runs the B/S kernels above.

Work is split over (grid, strip of rows) with ``prange``; each strip recomputes the two row sums
at its edges. Small grids in a batch run all generations inside one task (the grid stays in
cache, one parallel region for the whole run). Multi-generation runs stay packed.

Grids whose rows are short (at most :data:`COLUMN_MAX_WORDS` words, and at least four rows a
word: :func:`use_columns`) run the same expressions as **column kernels**
(:mod:`.bitpack_columns`): words held column by column, so the loops run down the rows and
vectorise at any width (1.8x at 1024^2, 10x and more for grids a word wide), and words whose
3x3 block of words equalled generation t - 2 are skipped (still lifes and period-2 ash cost
nothing once settled). Fewer grids than free cores run in bands of rows that take
:data:`BAND_GENERATIONS` extra rows either side and so need a barrier only once per that many
generations. Every module has them but the generic table module.

The kernel source is generated per rule (the expression is inlined) into a module in a cache
directory and compiled with ``cache=True``, so a rule is compiled once per machine, not once per
process. Numba never frees compiled code, so a process compiles at most
:data:`~.bitpack_circuit.MAX_SPECIALISED` rule-specific modules; later rules run one generic
module that reads the rule's truth table from an argument (about 1.4x the time per generation);
table rules past the cap share a generic table module that runs the table's ROBDD given as data
(:func:`.bitpack_bdd.mux_program`; correct, several times slower).
The directory is ``$TENSORCA_CACHE_DIR/bitpack`` when that is set, else
``~/.cache/tensorca/bitpack``, else a temporary directory.
"""

from __future__ import annotations

from functools import lru_cache
from types import ModuleType

import numpy as np

from .._numba import numba  # the engine is registered lazily; this import is what it needs
from ..cpu_load import numba_threads_capped
from ..errors import EngineError
from ..randomness import Clock
from ..rules.base import Rule
from ..topology import Topology
from .base import Engine
from .bitpack_bdd import Circuit, count_sets, is_count_circuit, mux_program, table_circuit
from .bitpack_choice import specialise_in_background
from .bitpack_circuit import (
    GENERIC,
    GENERIC_TABLE,
    MODULE_PRELUDE,
    PLANE_COUNTS,
    ROW_SUM,
    TOTAL,
    generic_lines,
    kernel_expression,
    kernel_key,
    load_generated_module,
    planes_key,
    rule_table,
    truth_table,
    we_source,
)
from .bitpack_columns import bs_columns, change_bits, from_columns, table_columns, to_columns
from .bitpack_lanes import advance_lanes
from .bitpack_noise import advance_stochastic, why_not_packed
from .bitpack_pack import last_word_mask, n_words, unpack
from .bitpack_tiles import advance_tiled
from .lanes_layout import runs_tiled, use_lanes
from .row_packing import pack_alive

_TEMPLATE_VERSION = "7"

#: The horizontal 3-sum of one packed row (``{RS1}``/``{RS2}``: :data:`~.bitpack_circuit.ROW_SUM`
#: indented), shared by the B/S kernels and the Generations ring kernels (:mod:`.bitpack_generations`).
_SHIFTED_SUM = '''@njit(cache=True)
def _shifted_sum(row, wp, wrap, rs, lo, hi):
    """Horizontal 3-sum (lo, hi bit-planes) of one packed row; rs = valid bits of the last word - 1."""
    if wp == 1:
        m = row[0]
        w = (m << U1) | (((m >> rs) & U1) if wrap else U0)
        e = (m >> U1) | (((m & U1) << rs) if wrap else U0)
{RS2}
        lo[0] = lo_
        hi[0] = hi_
        return
    m = row[0]
    w = (m << U1) | (((row[wp - 1] >> rs) & U1) if wrap else U0)
    e = (m >> U1) | (row[1] << U63)
{RS1}
    lo[0] = lo_
    hi[0] = hi_
    for k in range(1, wp - 1):
        m = row[k]
        w = (m << U1) | (row[k - 1] >> U63)
        e = (m >> U1) | (row[k + 1] << U63)
{RS2}
        lo[k] = lo_
        hi[k] = hi_
    k = wp - 1
    m = row[k]
    w = (m << U1) | (row[k - 1] >> U63)
    e = (m >> U1) | (((row[0] & U1) << rs) if wrap else U0)
{RS1}
    lo[k] = lo_
    hi[k] = hi_
'''

#: Rows y0..y1-1 of grid b through a ring of three rows' sums (each row's sum is computed once and
#: serves the three output rows it touches); ``{planes}`` bit-planes per row, the first the alive
#: plane. Shared by the B/S kernels (1 plane) and the Generations ring kernels.
_RING_STRIP = '''@njit(cache=True)
def _strip(src, dst, b, y0, y1, wrap, rs, last_mask, lut, scratch):
    """Rows y0..y1-1 of grid b, src -> dst; scratch from `_scratch`."""
    buf, zero = scratch
    h = src.shape[1]
    wp = src.shape[2] // {planes}
    alo = buf[0]
    ahi = buf[1]
    blo = buf[2]
    bhi = buf[3]
    dlo = buf[4]
    dhi = buf[5]
    ya = y0 - 1
    if ya < 0:
        if wrap:
            _shifted_sum(src[b, ya + h], wp, wrap, rs, alo, ahi)
        else:
            _shifted_sum(zero, wp, wrap, rs, alo, ahi)
    else:
        _shifted_sum(src[b, ya], wp, wrap, rs, alo, ahi)
    _shifted_sum(src[b, y0], wp, wrap, rs, blo, bhi)
    for y in range(y0, y1):
        yd = y + 1
        if yd >= h:
            if wrap:
                _shifted_sum(src[b, yd - h], wp, wrap, rs, dlo, dhi)
            else:
                _shifted_sum(zero, wp, wrap, rs, dlo, dhi)
        else:
            _shifted_sum(src[b, yd], wp, wrap, rs, dlo, dhi)
        _output_row(alo, ahi, blo, bhi, dlo, dhi, src[b, y], dst[b, y], wp, last_mask, lut)
        # rotate the ring: a <- b, b <- d, d <- old a
        tlo = alo
        thi = ahi
        alo = blo
        ahi = bhi
        blo = dlo
        bhi = dhi
        dlo = tlo
        dhi = thi
'''


def shifted_sum_source() -> str:
    """The Numba source of ``_shifted_sum`` (:data:`_SHIFTED_SUM`)."""
    return _SHIFTED_SUM.format(RS1=_indent(ROW_SUM, 1), RS2=_indent(ROW_SUM, 2))


def ring_strip_source(planes: int) -> str:
    """The Numba source of the ring ``_strip`` for rows of ``planes`` bit-planes (:data:`_RING_STRIP`)."""
    return _RING_STRIP.format(planes=planes)


_TEMPLATE = '''"""Generated by tensorca.engines.bitpack_cpu for rule expression: {expr}"""
''' + MODULE_PRELUDE + '''

{shifted_sum}

@njit(cache=True)
def _output_row(alo, ahi, blo, bhi, dlo, dhi, centre, out, wp, last_mask, lut):
    """Next generation of one row from the row sums above (a), here (b), below (d)."""
{prologue}
    for k in range(wp):
        a0 = alo[k]
        a1 = ahi[k]
        b0 = blo[k]
        b1 = bhi[k]
        d0 = dlo[k]
        d1 = dhi[k]
        c = centre[k]
{total}
{rule_lines}
        out[k] = {expr}
    out[wp - 1] &= last_mask


@njit(cache=True)
def _scratch(wp, lut):
    """One task's scratch: six row sums and a dead row."""
    return np.empty((6, wp), dtype=np.uint64), np.zeros(wp, dtype=np.uint64)


{ring_strip}
'''


#: The drivers every generated module ends with: they call its `_scratch` and `_strip`.
_DRIVERS = '''

@njit(cache=True, parallel=True)
def step_strips(src, dst, wrap, rs, last_mask, strip, lut):
    """One generation of every grid, split into strips of `strip` rows (one prange task each)."""
    n = src.shape[0]
    h = src.shape[1]
    nstrips = (h + strip - 1) // strip
    for job in prange(n * nstrips):
        b = job // nstrips
        y0 = (job - b * nstrips) * strip
        _strip(src, dst, b, y0, min(h, y0 + strip), wrap, rs, last_mask, lut, _scratch(src.shape[2], lut))


@njit(cache=True, parallel=True)
def run_whole(src, dst, wrap, rs, last_mask, generations, lut):
    """`generations` generations of each grid in one task per grid (small grids, kept in cache).

    Ping-pongs between src and dst; the result is in dst when `generations` is odd, else in src.
    """
    h = src.shape[1]
    for b in prange(src.shape[0]):
        scratch = _scratch(src.shape[2], lut)
        for g in range(generations):
            if g % 2 == 0:
                _strip(src, dst, b, 0, h, wrap, rs, last_mask, lut, scratch)
            else:
                _strip(dst, src, b, 0, h, wrap, rs, last_mask, lut, scratch)


@njit(cache=True)
def run_whole_serial(src, dst, wrap, rs, last_mask, generations, lut):
    """`run_whole` on one thread: no parallel region to start (small jobs, busy machines)."""
    h = src.shape[1]
    scratch = _scratch(src.shape[2], lut)
    for b in range(src.shape[0]):
        for g in range(generations):
            if g % 2 == 0:
                _strip(src, dst, b, 0, h, wrap, rs, last_mask, lut, scratch)
            else:
                _strip(dst, src, b, 0, h, wrap, rs, last_mask, lut, scratch)
'''


_PLANES_TEMPLATE = '''"""Generated by tensorca.engines.bitpack_cpu for table circuit: {key}"""
''' + MODULE_PRELUDE + '''ONES = ~np.uint64(0)


@njit(cache=True, inline="always")
def _put(m, cw, ce, k, ring, i):
    """Store word k's planes in ring rows 5i..: west-shifted, itself, east-shifted (cw, ce: carry
    bits of the adjacent words), and the horizontal 3-sum (lo, hi) when counts are read."""
    w = (m << U1) | cw
    e = (m >> U1) | ce
    ring[5 * i, k] = w
    ring[5 * i + 1, k] = m
    ring[5 * i + 2, k] = e
{row_sum}


@njit(cache=True)
def _row_planes(src, b, y, wrap, rs, ring, i):
    """Planes of row y of grid b into ring slot i (2-D indexing only: no array views per row)."""
    wp = src.shape[2]
    if wp == 1:
        m = src[b, y, 0]
        _put(m, ((m >> rs) & U1) if wrap else U0, ((m & U1) << rs) if wrap else U0, 0, ring, i)
        return
    _put(src[b, y, 0], ((src[b, y, wp - 1] >> rs) & U1) if wrap else U0, src[b, y, 1] << U63, 0, ring, i)
    for k in range(1, wp - 1):
        _put(src[b, y, k], src[b, y, k - 1] >> U63, src[b, y, k + 1] << U63, k, ring, i)
    k = wp - 1
    _put(src[b, y, k], src[b, y, k - 1] >> U63, ((src[b, y, 0] & U1) << rs) if wrap else U0, k, ring, i)


@njit(cache=True)
def _output_row(ring, ia, ib, idd, dst, b, y, wp, last_mask, lut, vals):
    """Next generation of row y from the ring's planes of the rows above (ia), here (ib), below (idd)."""
    A = 5 * ia
    B = 5 * ib
    D = 5 * idd
    wpad = ring.shape[1]
{body}
    for k in range(wp):
        dst[b, y, k] = ring[15, k]
    dst[b, y, wp - 1] &= last_mask


@njit(cache=True)
def _padded(wp):
    """Ring row length: a multiple of {pad} words, so the vectorised word loop never runs its
    scalar remainder."""
    return (wp + {pad} - 1) // {pad} * {pad}


@njit(cache=True)
def _planes_of(src, b, y, h, wrap, rs, ring, i):
    """Planes of row y of grid b (wrapped on a torus, dead outside a plane) into ring slot i."""
    if y < 0 or y >= h:
        if wrap:
            _row_planes(src, b, y % h, wrap, rs, ring, i)
        else:
            for j in range(5 * i, 5 * i + 5):
                ring[j, :] = U0
    else:
        _row_planes(src, b, y, wrap, rs, ring, i)


@njit(cache=True)
def _scratch(wp, lut):
    """One task's scratch: a ring of 3 rows x 5 planes then the output row (16, padded wp), a
    dead row, and the circuit's values."""
    buf = np.zeros((16, _padded(wp)), dtype=np.uint64)
    return buf, np.zeros(wp, dtype=np.uint64), np.empty((11 + lut.shape[0], wp), dtype=np.uint64)


@njit(cache=True)
def _strip(src, dst, b, y0, y1, wrap, rs, last_mask, lut, scratch):
    """Rows y0..y1-1 of grid b, src -> dst; scratch from `_scratch`."""
    buf, zero, vals = scratch
    h = src.shape[1]
    wp = src.shape[2]
    ia = 0
    ib = 1
    idd = 2
    _planes_of(src, b, y0 - 1, h, wrap, rs, buf, ia)
    _planes_of(src, b, y0, h, wrap, rs, buf, ib)
    for y in range(y0, y1):
        _planes_of(src, b, y + 1, h, wrap, rs, buf, idd)
        _output_row(buf, ia, ib, idd, dst, b, y, wp, last_mask, lut, vals)
        t = ia
        ia = ib
        ib = idd
        idd = t
'''

#: Specialised table kernels: no ring; each output word reads its three rows' words k-1, k, k+1
#: (L1-resident), shifts them into the nine planes and runs the circuit (``_rule9``, inlined).
_DIRECT_TEMPLATE = '''"""Generated by tensorca.engines.bitpack_cpu for table circuit: {key}"""
''' + MODULE_PRELUDE + '''

@njit(cache=True, inline="always")
def _rule9(nw, n, ne, w, c, e, sw, s, se):
    """The table circuit over the nine neighbour planes."""
{counts}
{lines}
    return {result}


''' + we_source(inline=True) + '''

@njit(cache=True)
def _output_row(ga, ba, ya, src, b, y, gd, bd, yd, dst, wp, wrap, rs, last_mask):
    """Row y of grid b from rows (ba, ya) of ga above, y of src, (bd, yd) of gd below."""
    for k in range(1, wp - 1):
        a = ga[ba, ya, k]
        m = src[b, y, k]
        d = gd[bd, yd, k]
        dst[b, y, k] = _rule9(
            (a << U1) | (ga[ba, ya, k - 1] >> U63), a, (a >> U1) | (ga[ba, ya, k + 1] << U63),
            (m << U1) | (src[b, y, k - 1] >> U63), m, (m >> U1) | (src[b, y, k + 1] << U63),
            (d << U1) | (gd[bd, yd, k - 1] >> U63), d, (d >> U1) | (gd[bd, yd, k + 1] << U63))
    for k in (0, wp - 1):
        nw, n, ne = _we(ga, ba, ya, k, wp, wrap, rs)
        w, c, e = _we(src, b, y, k, wp, wrap, rs)
        sw, s, se = _we(gd, bd, yd, k, wp, wrap, rs)
        dst[b, y, k] = _rule9(nw, n, ne, w, c, e, sw, s, se)
    dst[b, y, wp - 1] &= last_mask


@njit(cache=True)
def _scratch(wp, lut):
    """One task's scratch: a (1, 1, wp) dead row (outside a plane)."""
    return np.zeros((1, 1, wp), dtype=np.uint64)


@njit(cache=True)
def _strip(src, dst, b, y0, y1, wrap, rs, last_mask, lut, zero):
    """Rows y0..y1-1 of grid b, src -> dst; zero from `_scratch`."""
    h = src.shape[1]
    wp = src.shape[2]
    for y in range(y0, y1):
        ya = y - 1
        yd = y + 1
        if wrap:
            _output_row(src, b, ya % h, src, b, y, src, b, yd % h, dst, wp, wrap, rs, last_mask)
        elif ya < 0 and yd >= h:
            _output_row(zero, 0, 0, src, b, y, zero, 0, 0, dst, wp, wrap, rs, last_mask)
        elif ya < 0:
            _output_row(zero, 0, 0, src, b, y, src, b, yd, dst, wp, wrap, rs, last_mask)
        elif yd >= h:
            _output_row(src, b, ya, src, b, y, zero, 0, 0, dst, wp, wrap, rs, last_mask)
        else:
            _output_row(src, b, ya, src, b, y, src, b, yd, dst, wp, wrap, rs, last_mask)
'''



@lru_cache(maxsize=64)  # a module's source is formatted once, not on every engine call
def direct_source(circuit: Circuit) -> str:
    """The Numba module source of a specialised table circuit (:data:`_DIRECT_TEMPLATE`)."""
    counts = circuit.inputs & {"t0", "t1", "t2", "t3"}
    return _DIRECT_TEMPLATE.format(
        key=circuit.key,
        counts="\n".join("    " + line for line in PLANE_COUNTS) if counts else "",
        lines="\n".join("    " + line for line in circuit.lines),
        result=circuit.result,
    ) + _DRIVERS + table_columns()


#: Where the bodies' plane names live in the ring: ``(row offset, plane)`` (w, m, e, lo, hi = 0..4).
_RING_SLOTS = {f"{r}{p}": (r.upper(), i) for r in "abd" for i, p in enumerate(("w", "m", "e", "lo", "hi"))}

#: The generic table kernel's body: the ROBDD rows ``lut[i] = (select, lo, hi)`` run over a row.
_GENERIC_PLANES_BODY = """    for k in range(wp):
        vals[0, k] = U0
        vals[1, k] = ONES
        vals[2, k] = de[k]
        vals[3, k] = dm[k]
        vals[4, k] = dw[k]
        vals[5, k] = be[k]
        vals[6, k] = bm[k]
        vals[7, k] = bw[k]
        vals[8, k] = ae[k]
        vals[9, k] = am[k]
        vals[10, k] = aw[k]
    nodes = lut.shape[0]
    for i in range(nodes):
        x = vals[lut[i, 0]]
        lo = vals[lut[i, 1]]
        hi = vals[lut[i, 2]]
        v = vals[11 + i]
        for k in range(wp):
            v[k] = lo[k] ^ (x[k] & (lo[k] ^ hi[k]))
    for k in range(wp):
        out[k] = vals[10 + nodes, k]"""


def _indent(lines: tuple[str, ...], depth: int) -> str:
    pad = "    " * depth
    renamed = [line.replace("lo =", "lo_ =").replace("hi =", "hi_ =") for line in lines]
    return "\n".join(pad + line for line in renamed)


@lru_cache(maxsize=64)  # a module's source is formatted once, not on every engine call
def kernel_source(expression: str) -> str:
    """The Numba module source for a rule expression (see :func:`.bitpack_circuit.rule_expression`),
    or for :data:`~.bitpack_circuit.GENERIC`: the rule read from the ``lut`` argument instead."""
    prologue, rule_lines, expr = "", "", expression
    if expression == GENERIC:
        prologue = "\n".join(f"    L{i} = lut[{i}]" for i in range(32))
        *lines, expr = generic_lines()
        rule_lines = "\n".join("        " + line for line in lines)
    return _TEMPLATE.format(
        expr=expr,
        prologue=prologue,
        rule_lines=rule_lines,
        shifted_sum=shifted_sum_source(),
        ring_strip=ring_strip_source(1),
        total=_indent(TOTAL, 2),
    ) + _DRIVERS + bs_columns(ROW_SUM, TOTAL, prologue, rule_lines, expr)


def generic_table_source() -> str:
    """The Numba module source of the generic table kernels, which run a table's ROBDD given as
    data (:func:`.bitpack_bdd.mux_program`) over a ring of each row's planes."""
    body = _GENERIC_PLANES_BODY
    for name, (row, plane) in _RING_SLOTS.items():
        body = body.replace(f"{name}[k]", f"ring[{row} + {plane}, k]")
    body = body.replace("out[k]", "ring[15, k]")
    return _PLANES_TEMPLATE.format(key=GENERIC_TABLE, row_sum="", body=body, pad=PAD_WORDS) + _DRIVERS


def kernel_module(expression: str) -> ModuleType:
    """The compiled kernels for ``expression`` (generated once per machine, imported once per process)."""
    return load_generated_module("bitpack-cpu", expression, kernel_source(expression),
                                 _TEMPLATE_VERSION + numba.__version__)


#: Ring row padding (words) of the generic table kernels: a multiple of the AVX-512 vector (8
#: words), so their word loops never run a scalar remainder.
PAD_WORDS = 8


def planes_module(circuit: Circuit | None) -> ModuleType:
    """The compiled kernels of a table circuit (None: the generic table kernels)."""
    key = GENERIC_TABLE if circuit is None else planes_key(circuit)
    source = generic_table_source() if circuit is None else direct_source(circuit)
    return load_generated_module("bitpack-cpu", key, source, _TEMPLATE_VERSION + numba.__version__)


#: The ``lut`` argument of rule-specific kernels, which ignore it.
_NO_LUT = np.zeros(32, dtype=np.uint64)


def kernels_for(birth: frozenset[int], survival: frozenset[int]) -> tuple[ModuleType, np.ndarray]:
    """The kernel module that runs ``(birth, survival)`` and the ``lut`` argument to pass it: the
    rule's own kernels, or the generic kernels with the rule's truth table as data once this
    process holds :data:`~.bitpack_circuit.MAX_SPECIALISED` rule-specific modules."""
    expression = kernel_expression("bitpack-cpu", birth, survival)
    if expression != GENERIC:
        return kernel_module(expression), _NO_LUT
    ones, _ = truth_table(birth, survival)
    lut = np.array([~0 if i in ones else 0 for i in range(32)], dtype=np.int64).view(np.uint64)
    return kernel_module(GENERIC), lut


#: The ``lut`` argument of specialised table kernels, which ignore it.
_NO_PROGRAM = np.zeros((0, 3), dtype=np.int64)


def table_kernels_for(table: bytes) -> tuple[ModuleType, np.ndarray]:
    """The kernel module that runs a 512-entry table and its ``lut`` argument: B/S kernels when
    the table is B/S over the Moore neighbourhood (:func:`kernels_for`), else the table's own
    circuit, or the generic table kernels with its ROBDD as data past the specialised-module cap."""
    circuit = table_circuit(table)
    if is_count_circuit(circuit):
        return kernels_for(*count_sets(table, "M"))
    if kernel_key("bitpack-cpu", table) == GENERIC_TABLE:
        return planes_module(None), mux_program(table)
    return planes_module(circuit), _NO_PROGRAM


#: Widest rows (in words) that run the column kernels (:func:`use_columns`).
COLUMN_MAX_WORDS = 32
#: Runs of at least this many generations skip what has settled (:mod:`.bitpack_columns`; one
#: generation has nothing to skip, and the comparisons cost about 2% where nothing settles).
SKIP_MIN_GENERATIONS = 2
#: Column kernels on fewer grids than threads: grids of at least this many words run in bands of
#: rows, one task each, for up to BAND_GENERATIONS generations between barriers (each band carries
#: that many extra rows either side).
BAND_MIN_WORDS = 4096
BAND_GENERATIONS = 32
#: Grids with at most this many packed words run all generations in one task each.
SMALL_GRID_WORDS = 16 * 1024
#: Runs of at most this many word-updates (grids x rows x words x generations) stay on one thread:
#: about a millisecond of work, less than starting a parallel region costs on a busy machine.
SERIAL_WORK = 1 << 20




def use_columns(height: int, wp: int) -> bool:
    """Whether grids of ``height`` rows of ``wp`` words run the column kernels (which also skip
    what has settled): their loops run down the rows, the row kernels' along them, so the row
    kernels win once rows are long and grids short (single thread, dense soups, 2-core EPYC: 1.8x
    for columns at 1024 x 1024, 1.1x at 1024 x 2048 (wp 32), 0.7x at 1024 x 4096 and at 64 x 2048;
    ten times and more for grids one word wide)."""
    return wp <= COLUMN_MAX_WORDS and height >= 4 * wp


def advance_packed(words: np.ndarray, width: int, rule: Rule, torus: bool, generations: int) -> np.ndarray:
    """Advance packed ``(B, H, ceil(W/64))`` ``uint64`` grids; returns a new array (input untouched)."""
    module, lut = table_kernels_for(rule_table(rule))
    _, height, wp = words.shape
    valid = width - (wp - 1) * 64
    rs = np.uint64(valid - 1)
    mask = np.uint64(last_word_mask(width, 64))
    if generations == 0:
        return np.array(words, dtype=np.uint64, order="C", copy=True)
    if hasattr(module, "col_bands") and use_columns(height, wp):  # every module but the generic table one
        return _advance_columns(module, lut, words, torus, rs, mask, generations)
    src = np.array(words, dtype=np.uint64, order="C", copy=True)
    return run_row_kernels(module, lut, src, torus, rs, mask, generations)


def run_row_kernels(module: ModuleType, lut: np.ndarray, src: np.ndarray, torus: bool, rs: np.uint64,
                    mask: np.uint64, generations: int) -> np.ndarray:
    """``generations`` (> 0) of ``src`` ``(B, H, row words)`` uint64 (overwritten) through the row
    drivers of a generated module (:data:`_DRIVERS`: B/S, table and Generations kernels alike):
    one thread for small jobs, one parallel region for cache-resident grids, else strips of rows
    with a barrier per generation. Returns the array holding the result."""
    n, height, row_words = src.shape
    dst = np.empty_like(src)
    threads = numba.get_num_threads()
    if threads == 1 or n * height * row_words * generations <= SERIAL_WORK:
        module.run_whole_serial(src, dst, torus, rs, mask, generations, lut)
        return dst if generations % 2 else src
    if height * row_words <= SMALL_GRID_WORDS:  # cache-resident grids: no barrier between generations
        module.run_whole(src, dst, torus, rs, mask, generations, lut)
        return dst if generations % 2 else src
    strip = max(16, -(-height // (4 * threads)) if n < threads else height)
    with numba_threads_capped(numba):  # a barrier per generation stalls on cores others hold
        for _ in range(generations):
            module.step_strips(src, dst, torus, rs, mask, strip, lut)
            src, dst = dst, src
    return src


def _advance_columns(module: ModuleType, lut: np.ndarray, words: np.ndarray, torus: bool, rs: np.uint64,
                     mask: np.uint64, generations: int, skip: bool | None = None) -> np.ndarray:
    """:func:`advance_packed` on the column kernels (:mod:`.bitpack_columns`), skipping what has
    settled when ``skip`` (by default: runs of at least :data:`SKIP_MIN_GENERATIONS`)."""
    n, height, wp = words.shape
    if skip is None:
        skip = generations >= SKIP_MIN_GENERATIONS
    src, dst = to_columns(words)
    if numba.get_num_threads() == 1 or n * height * wp * generations <= SERIAL_WORK:
        fa, fb = change_bits(n, wp, height)
        module.col_whole_serial(src, dst, fa, fb, torus, rs, mask, skip, generations, lut)
        return from_columns(dst if generations % 2 else src)
    with numba_threads_capped(numba) as threads:  # other processes' cores are not ours
        bands = min(-(-threads // n), height // (4 * BAND_GENERATIONS))
        if bands < 2 or height * wp < BAND_MIN_WORDS:  # one task per grid, no barrier between generations
            fa, fb = change_bits(n, wp, height)
            module.col_whole(src, dst, fa, fb, torus, rs, mask, skip, generations, lut)
            return from_columns(dst if generations % 2 else src)
        for done in range(0, generations, BAND_GENERATIONS):  # few big grids: bands, a barrier per epoch
            module.col_bands(src, dst, torus, rs, mask, skip, min(BAND_GENERATIONS, generations - done), bands, lut)
            src, dst = dst, src
    return from_columns(src)


class BitpackCpuEngine(Engine):
    """``backend="bitpack-cpu"``: 3x3 table rules (B/S, Hensel, MAP, V, H), two-state or Generations
    (:mod:`.bitpack_generations`), torus and bounded plane."""

    name = "bitpack-cpu"
    array_module = "numpy"

    #: uint8 input, the boolean alive grid, two packed buffers (1/8 byte each), uint8 output.
    bytes_per_cell = 3.5

    def cell_bytes(self, rule: Rule | None = None) -> float:
        if rule is not None and rule.n_states > 2:
            # Generations: the input plus the peak traced while packing/unpacking (1024^2, tracemalloc:
            # 3.6 bytes a cell for 3 states, 3.9 for 4, 5.4 for 256), rounded up
            return 1.0 + 3.5 + (rule.n_states - 2).bit_length() / 4
        return self.bytes_per_cell

    def devices(self) -> list[str]:
        return ["cpu"]

    def supports(self, rule: Rule, topology: Topology) -> bool:
        return why_not_packed(rule.compile(), topology) is None

    def why_unsupported(self, rule: Rule, topology: Topology) -> str:
        reason = why_not_packed(rule.compile(), topology)
        return f"engine {self.name!r} cannot run {rule.canonical() or rule!r} on {topology}: {reason or 'supported'}"

    def advance(self, cells: np.ndarray, rule: Rule, topology: Topology, generations: int, *,
                clock: Clock | None = None) -> np.ndarray:
        """As :meth:`Engine.advance`; a noisy rule draws from ``clock`` (None: seed 0, generation 0)."""
        spec = rule.compile()
        if why_not_packed(spec, topology) is not None:
            raise EngineError(self.why_unsupported(rule, topology))
        if spec.stochastic:
            return advance_stochastic(np.asarray(cells), spec, topology, generations, clock or Clock())
        if spec.decay:  # Generations: an alive plane and a decay counter
            from .bitpack_generations import advance_states

            return advance_states(cells, spec, topology, generations)
        cells = np.asarray(cells)
        torus = topology.kind == "torus"
        table = bytes(spec.update.table)  # why_not_bitpack passed: a 3x3 table
        if specialise_in_background(rule, table, cells.shape, topology):
            pass  # the generic packed kernels below run now; the rule's own compile meanwhile
        elif use_lanes(cells.shape):  # many small grids: one grid per bit lane
            out = advance_lanes(cells, table, torus, generations)
            if out is not None:
                return out
        elif runs_tiled(cells.shape):
            out = advance_tiled(cells, table, torus, generations)  # one grid as 64 lane tiles
            if out is not None:
                return out
        _, _, width = cells.shape
        words = pack_alive(cells)
        out = advance_packed(words, width, rule, torus, generations)
        return unpack(out, width)


__all__ = ["BitpackCpuEngine", "advance_packed", "kernel_module", "kernel_source", "n_words"]
