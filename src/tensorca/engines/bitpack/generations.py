"""Generations rules bit-packed (``bitpack-cpu``): an alive plane and a decay counter, 64 cells a word.

A Generations rule (``345/2/4``, ``/2/3``, Hensel letters, MAP strings, ``V``/``H``: any rule whose
two-state part is a 512-entry 3x3 table, with ``n_states`` from 3 to 256) keeps each cell as
``1 + k`` bit-planes, ``k = ceil(log2(n - 1))``:

- ``A``: the cell is in state 1 (the only state that counts as a neighbour);
- ``D0..D(k-1)``: a binary *decay counter*, 0 for states 0 and 1, ``s - 2 + V`` for a dying
  state ``s`` in ``2..n-1``, where ``V = 2**k - (n - 2)``. State ``n - 1`` is the counter's
  all-ones value, so counting it up overflows to 0 (state 0) with no comparison.

Per word, with ``f`` the table circuit of :func:`.bitpack_bdd.table_circuit` over the nine
shifted ``A`` planes (survival where ``A``, birth elsewhere)::

    dying = D0 | ... | D(k-1)          # states 2..n-1
    A'    = f & ~dying                 # only state 0 is born; A and dying never overlap
    D'    = (D + dying) | (V if A & ~f) # ripple-carry increment; a dying live cell starts at V

Two kernel shapes, as in :mod:`.bitpack_cpu`, generated per (circuit, ``n``) and cached on disk:
B/S tables over the Moore neighbourhood (a count circuit) keep each ``A`` row's horizontal 3-sum
in a ring of three row buffers (one full adder per row, reused by three output rows; 1.5-3x
faster than recomputing it, measured single-threaded at 1024^2); every other table reads words
k-1, k, k+1 of the three ``A`` rows per output word and runs the table's circuit. Helpers are
plain ``njit`` (LLVM inlines them; Numba's ``inline="always"`` made the first compile 1.6x longer
for no speed). Both end with :mod:`.bitpack_cpu`'s drivers (``step_strips`` over ``prange``
strips, ``run_whole`` for small grids). Packed grids are ``(B, H, (1 + k) * wp)`` ``uint64``:
each row holds its planes one after another, ``wp = ceil(W / 64)`` words each, so a row's state
stays together in cache. Past :data:`~.bitpack_circuit.MAX_SPECIALISED` rule-specific modules a
process runs one generic module that takes the table's ROBDD (:func:`.bitpack_bdd.mux_program`)
and ``n`` as data.

The module that runs a rule is chosen by :func:`.bitpack_choice.generations_key` (so ``kernel_state``
imports nothing of this module); the row drivers are :mod:`.bitpack_rows`'.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from ..._numba import numba
from ...errors import EngineError, GridError
from ...rules.stepspec import StepSpec
from ...topology import Topology
from .bdd import is_count_circuit, mux_program, table_circuit
from .choice import generations_key
from .circuit import (
    GENERIC_GENERATIONS,
    MODULE_PRELUDE,
    PLANE_COUNTS,
    TOTAL,
    load_generated_module,
    we_source,
    why_not_generations,
)
from .pack import last_word_mask, n_words, pack, unpack
from .row_packing import pack_alive
from .rows import DRIVERS, indent, ring_strip_source, run_row_kernels, shifted_sum_source

_TEMPLATE_VERSION = "1"

def counter_bits(n_states: int) -> int:
    """``k``: decay-counter planes for ``n_states`` (3..256) states: ``ceil(log2(n_states - 1))``."""
    return max(1, (n_states - 2).bit_length())


def first_value(n_states: int) -> int:
    """``V``: the counter value of state 2 (state ``n - 1`` is the all-ones value)."""
    return (1 << counter_bits(n_states)) - (n_states - 2)


# --- packing ---------------------------------------------------------------------------------------


def pack_states(cells: np.ndarray, n_states: int) -> np.ndarray:
    """``(B, H, W)`` ``uint8`` states ``0..n-1`` -> ``(B, H, (1 + k) * ceil(W/64))`` ``uint64`` planes.

    Raises :class:`GridError` for a state ``>= n_states``."""
    cells = np.asarray(cells)
    top = int(cells.max(initial=0))
    if top >= n_states:
        raise GridError(f"cell state {top} is out of range for a rule with {n_states} states (0..{n_states - 1})")
    cells = cells.astype(np.uint8, copy=False)
    k, v = counter_bits(n_states), first_value(n_states)
    # s - 2 + V (mod 256: at most 2**k - 1 <= 255) for dying states, 0 for states 0 and 1
    # (a product, not np.where: where's data-dependent branches run ~20x slower on soups)
    value = (cells + np.uint8((v - 2) % 256)) * (cells >= 2).view(np.uint8)
    b, h, w = cells.shape
    wp = n_words(w, 64)
    out = np.empty((b, h, (1 + k) * wp), dtype=np.uint64)
    out[:, :, :wp] = pack_alive(cells)
    for i in range(k):
        out[:, :, (1 + i) * wp : (2 + i) * wp] = pack(value & np.uint8(1 << i), 64)
    return out


def unpack_states(words: np.ndarray, width: int, n_states: int) -> np.ndarray:
    """:func:`pack_states`'s inverse: ``(B, H, (1 + k) * wp)`` planes -> ``(B, H, width)`` ``uint8`` states."""
    k, v = counter_bits(n_states), first_value(n_states)
    wp = words.shape[-1] // (1 + k)
    value = unpack(words[..., wp : 2 * wp], width)
    for i in range(1, k):
        value |= unpack(words[..., (1 + i) * wp : (2 + i) * wp], width) << np.uint8(i)
    # value + 2 - V (mod 256) is the dying state; live cells have value 0, so OR-ing A gives 1
    out = (value + np.uint8((2 - v) % 256)) * (value != 0).view(np.uint8)
    out |= unpack(words[..., :wp], width)
    return out


# --- generated kernels -----------------------------------------------------------------------------

_TEMPLATE = '''"""Generated by tensorca.engines.bitpack.generations for {n} states, table circuit: {key}"""
''' + MODULE_PRELUDE + '''

@njit(cache=True)
def _rule9(nw, n, ne, w, c, e, sw, s, se):
    """The table circuit over the nine neighbour planes."""
{counts}
{lines}
    return {result}


@njit(cache=True)
def _decay(f, c, src, dst, b, y, k, wp):
    """Word k of row y: the alive plane from the circuit's f, the decay counter counted up."""
{decay}


{shared}

@njit(cache=True)
def _output_row(ga, ba, ya, src, b, y, gd, bd, yd, dst, wp, wrap, rs, last_mask):
    """Row y of grid b from the alive planes of rows (ba, ya) of ga above, y of src, (bd, yd) of gd below."""
    for k in range(1, wp - 1):
        a = ga[ba, ya, k]
        m = src[b, y, k]
        d = gd[bd, yd, k]
        f = _rule9(
            (a << U1) | (ga[ba, ya, k - 1] >> U63), a, (a >> U1) | (ga[ba, ya, k + 1] << U63),
            (m << U1) | (src[b, y, k - 1] >> U63), m, (m >> U1) | (src[b, y, k + 1] << U63),
            (d << U1) | (gd[bd, yd, k - 1] >> U63), d, (d >> U1) | (gd[bd, yd, k + 1] << U63))
        _decay(f, m, src, dst, b, y, k, wp)
    for k in (0, wp - 1):
        nw, n, ne = _we(ga, ba, ya, k, wp, wrap, rs)
        w, c, e = _we(src, b, y, k, wp, wrap, rs)
        sw, s, se = _we(gd, bd, yd, k, wp, wrap, rs)
        _decay(_rule9(nw, n, ne, w, c, e, sw, s, se), c, src, dst, b, y, k, wp)
    dst[b, y, wp - 1] &= last_mask


@njit(cache=True)
def _scratch(row_words, lut):
    """One task's scratch: a (1, 1, row_words) dead row (outside a plane)."""
    return np.zeros((1, 1, row_words), dtype=np.uint64)


@njit(cache=True)
def _strip(src, dst, b, y0, y1, wrap, rs, last_mask, lut, zero):
    """Rows y0..y1-1 of grid b, src -> dst; zero from `_scratch`."""
    h = src.shape[1]
    wp = src.shape[2] // {planes}
{strip_body}
'''

#: Shared by the specialised and generic templates: the shifted planes of one word of a row.
_WE = we_source(inline=False)

#: The row loop of a strip: wrapped or dead rows above and below (``_output_row`` takes extra args).
_STRIP_BODY = '''    for y in range(y0, y1):
        ya = y - 1
        yd = y + 1
        if wrap:
            _output_row(src, b, ya % h, src, b, y, src, b, yd % h, dst, wp, wrap, rs, last_mask{extra})
        elif ya < 0 and yd >= h:
            _output_row(zero, 0, 0, src, b, y, zero, 0, 0, dst, wp, wrap, rs, last_mask{extra})
        elif ya < 0:
            _output_row(zero, 0, 0, src, b, y, src, b, yd, dst, wp, wrap, rs, last_mask{extra})
        elif yd >= h:
            _output_row(src, b, ya, src, b, y, zero, 0, 0, dst, wp, wrap, rs, last_mask{extra})
        else:
            _output_row(src, b, ya, src, b, y, src, b, yd, dst, wp, wrap, rs, last_mask{extra})'''


def decay_lines(n_states: int, src: str = "src[b, y, {}]", dst: str = "dst[b, y, {}]") -> list[str]:
    """Source lines of the decay step for ``n_states``: load the counter planes of word ``k`` of a
    row, store ``A'`` and ``D'`` (``src``/``dst``: how word ``{}`` of the row is indexed)."""
    k, v = counter_bits(n_states), first_value(n_states)
    lines = [f"z{i} = " + src.format(f"{i + 1} * wp + k") for i in range(k)]
    lines.append("dying = " + " | ".join(f"z{i}" for i in range(k)))
    lines.append(dst.format("k") + " = f & ~dying")
    lines.append("dies = c & ~f")
    lines.append("q = dying")
    for i in range(k):
        term = f"z{i} ^ q" + (" | dies" if v >> i & 1 else "")
        lines.append(dst.format(f"{i + 1} * wp + k") + f" = {term}")
        if i < k - 1:
            lines.append(f"q = z{i} & q")
    return lines


def kernel_source(table: bytes, n_states: int) -> str:
    """The Numba module source of the Generations kernels of ``table`` with ``n_states`` states:
    the row-sum ring (:data:`_RING_TEMPLATE`) when the circuit reads only counts, else
    :data:`_TEMPLATE` (the nine shifted planes per word)."""

    circuit = table_circuit(table)
    planes = 1 + counter_bits(n_states)
    if is_count_circuit(circuit):
        return _RING_TEMPLATE.format(
            n=n_states,
            key=circuit.result,
            shifted_sum=shifted_sum_source(),
            total=indent(TOTAL, 2),
            expr=circuit.result,
            decay="\n".join("        " + line for line in decay_lines(n_states, "src[{}]", "dst[{}]")),
            planes=planes,
            ring_strip=ring_strip_source(planes),
        ) + DRIVERS
    counts = circuit.inputs & {"t0", "t1", "t2", "t3"}
    return _TEMPLATE.format(
        n=n_states,
        key=circuit.key,
        counts="\n".join("    " + line for line in PLANE_COUNTS) if counts else "",
        lines="\n".join("    " + line for line in circuit.lines),
        result=circuit.result,
        decay="\n".join("    " + line for line in decay_lines(n_states)),
        shared=_WE,
        planes=planes,
        strip_body=_STRIP_BODY.format(extra=""),
    ) + DRIVERS


#: Count circuits (B/S over the Moore neighbourhood): each row's horizontal 3-sum of the alive
#: plane is computed once into a ring of three row buffers and serves the three output rows it
#: touches, as in :mod:`.bitpack_cpu`'s B/S kernels (whose ``_shifted_sum`` this reuses).
_RING_TEMPLATE = '''"""Generated by tensorca.engines.bitpack.generations for {n} states, rule expression: {key}"""
''' + MODULE_PRELUDE + '''

{shifted_sum}


@njit(cache=True)
def _output_row(alo, ahi, blo, bhi, dlo, dhi, src, dst, wp, last_mask, lut):
    """Next generation of one row (all planes) from the alive-plane row sums above (a), here (b), below (d)."""
    for k in range(wp):
        a0 = alo[k]
        a1 = ahi[k]
        b0 = blo[k]
        b1 = bhi[k]
        d0 = dlo[k]
        d1 = dhi[k]
        c = src[k]
{total}
        f = {expr}
{decay}
    dst[wp - 1] &= last_mask


@njit(cache=True)
def _scratch(row_words, lut):
    """One task's scratch: six row sums and a dead row (one plane wide)."""
    wp = row_words // {planes}
    return np.empty((6, wp), dtype=np.uint64), np.zeros(wp, dtype=np.uint64)


{ring_strip}'''


_GENERIC_TEMPLATE = '''"""Generated by tensorca.engines.bitpack.generations: {key} (ROBDD and states as data)"""
''' + MODULE_PRELUDE + '''ONES = ~np.uint64(0)


{shared}

@njit(cache=True)
def _output_row(ga, ba, ya, src, b, y, gd, bd, yd, dst, wp, wrap, rs, last_mask, lut, vals):
    """Row y of grid b; lut[0] = (n_states, k, V), lut[1:] the ROBDD rows (select, lo, hi) over
    vals[0] = 0, vals[1] = ~0, vals[2 + p] = the plane of MAP bit p, vals[11 + i] = node i."""
    for k in range(wp):
        nw, n, ne = _we(ga, ba, ya, k, wp, wrap, rs)
        w, c, e = _we(src, b, y, k, wp, wrap, rs)
        sw, s, se = _we(gd, bd, yd, k, wp, wrap, rs)
        vals[0, k] = U0
        vals[1, k] = ONES
        vals[2, k] = se
        vals[3, k] = s
        vals[4, k] = sw
        vals[5, k] = e
        vals[6, k] = c
        vals[7, k] = w
        vals[8, k] = ne
        vals[9, k] = n
        vals[10, k] = nw
    nodes = lut.shape[0] - 1
    for i in range(nodes):
        x = vals[lut[1 + i, 0]]
        lo = vals[lut[1 + i, 1]]
        hi = vals[lut[1 + i, 2]]
        v = vals[11 + i]
        for k in range(wp):
            v[k] = lo[k] ^ (x[k] & (lo[k] ^ hi[k]))
    planes = lut[0, 1]
    start = lut[0, 2]
    f = vals[10 + nodes]
    for k in range(wp):
        fk = f[k]
        dying = U0
        for i in range(planes):
            dying |= src[b, y, (1 + i) * wp + k]
        dies = src[b, y, k] & ~fk
        dst[b, y, k] = fk & ~dying
        q = dying
        for i in range(planes):
            d = src[b, y, (1 + i) * wp + k]
            out = d ^ q
            if (start >> i) & 1:
                out |= dies
            dst[b, y, (1 + i) * wp + k] = out
            q = d & q
    dst[b, y, wp - 1] &= last_mask


@njit(cache=True)
def _scratch(row_words, lut):
    """One task's scratch: a (1, 1, row_words) dead row and the circuit's values."""
    wp = row_words // (1 + lut[0, 1])
    return np.zeros((1, 1, row_words), dtype=np.uint64), np.empty((11 + lut.shape[0] - 1, wp), dtype=np.uint64)


@njit(cache=True)
def _strip(src, dst, b, y0, y1, wrap, rs, last_mask, lut, scratch):
    """Rows y0..y1-1 of grid b, src -> dst; scratch from `_scratch`."""
    zero, vals = scratch
    h = src.shape[1]
    wp = src.shape[2] // (1 + lut[0, 1])
{strip_body}
'''


def generic_source() -> str:
    """The Numba module source of the generic Generations kernels (ROBDD and ``n`` given as data)."""
    return _GENERIC_TEMPLATE.format(key=GENERIC_GENERATIONS, shared=_WE,
                                    strip_body=_STRIP_BODY.format(extra=", lut, vals")) + DRIVERS


def generic_lut(table: bytes, n_states: int) -> np.ndarray:
    """The generic kernels' ``lut``: row 0 ``(n_states, k, V)``, then :func:`.bitpack_bdd.mux_program`."""
    head = np.array([[n_states, counter_bits(n_states), first_value(n_states)]], dtype=np.int64)
    return np.concatenate([head, mux_program(table)])


#: The ``lut`` argument of rule-specific kernels, which ignore it.
_NO_LUT = np.zeros((1, 3), dtype=np.int64)


def kernels_for(spec: StepSpec) -> tuple[ModuleType, np.ndarray]:
    """The kernel module that runs ``spec`` and the ``lut`` argument to pass it."""
    version = _TEMPLATE_VERSION + numba.__version__
    table, n = bytes(spec.update.table), spec.n_states
    key = generations_key(spec)
    if key == GENERIC_GENERATIONS:
        return load_generated_module("bitpack-cpu", key, generic_source(), version), generic_lut(table, n)
    return load_generated_module("bitpack-cpu", key, kernel_source(table, n), version), _NO_LUT


def advance_packed(words: np.ndarray, width: int, spec: StepSpec, torus: bool, generations: int) -> np.ndarray:
    """Advance packed ``(B, H, (1 + k) * wp)`` planes (:func:`pack_states`); returns a new array."""
    module, lut = kernels_for(spec)
    wp = n_words(width, 64)
    rs = np.uint64(width - (wp - 1) * 64 - 1)
    mask = np.uint64(last_word_mask(width, 64))
    src = np.array(words, dtype=np.uint64, order="C", copy=True)
    if generations == 0:
        return src
    return run_row_kernels(module, lut, src, torus, rs, mask, generations)


def advance_states(cells: np.ndarray, spec: StepSpec, topology: Topology, generations: int) -> np.ndarray:
    """``generations`` generations of ``(B, H, W)`` ``uint8`` states under a Generations ``spec``."""
    reason = why_not_generations(spec, topology)
    if reason is not None:
        raise EngineError(f"bitpack-cpu cannot run this Generations rule on {topology}: {reason}")
    cells = np.asarray(cells)
    width = cells.shape[-1]
    words = pack_states(cells, spec.n_states)
    out = advance_packed(words, width, spec, topology.kind == "torus", generations)
    return unpack_states(out, width, spec.n_states)


__all__ = ["advance_packed", "advance_states", "counter_bits", "kernel_source", "pack_states", "unpack_states"]
