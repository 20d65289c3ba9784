"""``bitpack-cpu``'s noisy rules: births, survivals and asynchronous updating drawn as 64-cell words.

A noisy two-state 3x3 rule (``B3/S23:pb=0.9,ps=0.99``, ``...:async=0.5``, :mod:`tensorca.families.stochastic.rule`)
runs each generation in two passes over the packed grid (64 cells a ``uint64`` word, cell ``x`` of a
row bit ``x % 64`` of word ``x // 64``: :mod:`.bitpack_pack`):

1. the deterministic rule's own row kernels (:mod:`.bitpack_cpu`) compute ``d`` from ``c``;
2. one parallel pass over ``d`` (in place: ``c`` and ``d`` then swap roles) clears the births
   ``d & ~c`` where the Bernoulli(``pb``) mask is 0, the survivals ``d & c`` where the
   Bernoulli(``ps``) mask is 0, and then puts back ``c`` where the Bernoulli(``async``) mask is 0
   (only bits that change need it).

The masks are :func:`tensorca.randomness.bernoulli_words`'s, the same bits the NumPy reference
unpacks. Their definition combines a probability's 16 binary digits least significant first
(``m = r_i | m`` for a 1 digit, ``r_i & m`` for a 0), so the final value of a bit is decided by the
*most* significant digit whose random bit settles it: a 1 digit with ``r_i = 1`` gives 1, a 0 digit
with ``r_i = 0`` gives 0. Read from the top, each random word settles half of the bits still open,
and only the bits a mask is asked about (a row's births, its survivals, its changed cells) need
settling: a row hashes its blocks' random words two levels at a time (a vectorised loop), clears
the asked bits a level settles to 0 straight in ``d``, and stops after the first pass that leaves
none of its asked bits open, often well before the 16th level. A row with nothing to ask hashes
nothing. Strips of rows are the parallel tasks.

Where the time goes (issue 40, 4096^2 ``pb=0.9,ps=0.99`` from a 50% soup, 100 generations): the
draws ask 1.4 birth and 2.6 survival bits a word on average; a word that stopped at its own last
open bit would hash 3.4 random words (the floor), a row that stops at its last open bit hashes 14.6
a word (6.3 births, 8.3 survivals), at about 0.2 ns a hash in the vectorised loop. Stopping word by
word needs the open words compacted into lists, and compacting (1-2 ns a listed word, scalar) cost
more than the hashes it saved (measured slower than whole rows, as were groups of 8-32 words).

A grid whose first column is not a multiple of 64 (a Dask chunk) shifts each word's mask out of the
two blocks it straddles; a piece of a torus whose columns wrap inside it is left to the reference.
"""

from __future__ import annotations

import numpy as np

from ..._numba import njit, numba, prange
from ...cpu_load import numba_threads_capped
from ...families.stochastic.rule import ASYNC_DRAW, BIRTH_DRAW, SURVIVAL_DRAW, NoisyUpdate
from ...randomness import G1, G2, MASK64, P_BITS, Clock, key_prefix, mask_digits, quantize
from ...topology import Topology
from ..numpy_reference import step as reference_step
from ..stochastic_steps import NOISE_LOADED, advance_numpy, why_not_bitpack_noisy
from .circuit import rule_table, why_not_bitpack
from .pack import last_word_mask, unpack
from .row_packing import pack_alive
from .rows import SMALL_GRID_WORDS, table_kernels_for

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_G1 = np.uint64(G1)
_G2 = np.uint64(G2)
_U1 = np.uint64(1)
_U0 = np.uint64(0)
_U64 = np.uint64(64)
#: Digit counts meaning "the mask is all ones" (probability 1: the draw changes nothing, skipped).
ALWAYS = -1
#: Words a generation from which the deterministic step of each generation runs on all free cores
#: (one step is a parallel region of its own: 1024^2 on 2 cores 25 us against 47 us on one, 4096^2
#: 0.14 ms against 0.28 ms; 512^2 about even). Below it, one thread.
PARALLEL_STEP_WORDS = 1 << 14


@njit(cache=True, inline="always")
def _fmix(z):
    z ^= z >> np.uint64(30)
    z *= _M1
    z ^= z >> np.uint64(27)
    z *= _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _block_masks(row, columns, shift, want, scratch, digits, n):
    """The Bernoulli masks of the words of one packed row at bits ``want`` (uint64 ``(wp,)``), into
    ``scratch[2]``'s first ``wp`` words; ``row`` is the draw's ``row(y)``, ``columns[j]`` block ``j``'s
    first column times ``G2``, ``digits[:n]`` the probability's digits (n = 0: never). Word ``k``'s bit
    0 is bit ``shift`` of block ``k`` (the rest of it in block ``k + 1`` when ``shift`` > 0).

    Level-major: each level hashes one random word for every block of the row (a loop LLVM
    vectorises) and settles the bits it decides; the row stops at the level where none of its asked
    bits is left open. (Smaller groups that stop sooner, and finishing the last open words one at a
    time, measured slower: their loops do not vectorise, and a word's levels form a latency chain.)"""
    wp = want.shape[0]
    blocks = wp + (1 if shift else 0)
    asked = scratch[0]
    value = scratch[1]
    out = scratch[2]
    if shift == 0:
        for j in range(wp):
            asked[j] = want[j]
    else:
        s = np.uint64(shift)
        t = _U64 - s
        asked[0] = want[0] << s
        for j in range(1, wp):
            asked[j] = (want[j] << s) | (want[j - 1] >> t)
        asked[wp] = want[wp - 1] >> t
    opened = _U0
    for j in range(blocks):
        value[j] = _U0
        opened |= asked[j]
    if n > 0 and opened != _U0:  # a row with nothing to ask hashes nothing
        i = n - 1
        while i > 0:
            step = np.uint64(i + 1) * _G2
            left = _U0
            if digits[i]:
                for j in range(blocks):
                    r = _fmix(row ^ (columns[j] + step))
                    value[j] |= asked[j] & r
                    asked[j] &= ~r
                    left |= asked[j]
            else:
                for j in range(blocks):
                    r = _fmix(row ^ (columns[j] + step))
                    asked[j] &= r
                    left |= asked[j]
            if left == _U0:
                break
            i -= 1
        if i == 0:
            for j in range(blocks):
                value[j] |= asked[j] & _fmix(row ^ (columns[j] + _G2))
    if shift == 0:
        for k in range(wp):
            out[k] = value[k]
    else:
        s = np.uint64(shift)
        t = _U64 - s
        for k in range(wp):
            out[k] = (value[k] >> s) | (value[k + 1] << t)


@njit(cache=True, inline="always")
def _draw_row(row, columns, asked, d, digits, n):
    """Clear in ``d`` (one packed row, 64-aligned blocks) the bits of ``asked`` whose Bernoulli mask
    bit is 0 (``asked``: uint64 ``(wp,)``, overwritten); ``row`` is the draw's ``row(y)``,
    ``columns[k]`` block ``k``'s first column times ``G2``, ``digits[:n]`` the probability's digits.

    The bits :func:`_block_masks` computes, in fewer passes over the row: two levels a pass (a 1
    digit keeps the bits its random word leaves 0 open, ``a & ~r``; a 0 digit clears in ``d`` the
    bits its word has 0, ``a & ~r``, and keeps those it has 1 open, ``a & r``; the last level
    clears ``a & ~r`` whatever its digit), and the row stops after the first pass that leaves no
    bit open. A level hashed past a word's last open bit changes nothing."""
    wp = asked.shape[0]
    if n == 0:  # probability 0: every asked bit is cleared
        for k in range(wp):
            d[k] ^= asked[k]
        return
    i = n - 1
    while i >= 0:
        one = np.uint64(i + 1) * _G2
        keep_one = _U0 - _U1 if digits[i] and i > 0 else _U0  # all ones: a 1 digit (not the last level)
        if i == 0:
            for k in range(wp):
                d[k] ^= asked[k] & ~_fmix(row ^ (columns[k] + one))
            return
        two = np.uint64(i) * _G2
        keep_two = _U0 - _U1 if digits[i - 1] and i > 1 else _U0
        left = _U0
        if keep_one and keep_two:  # two 1 digits: nothing settles to 0
            for k in range(wp):
                col = columns[k]
                a = asked[k] & ~_fmix(row ^ (col + one)) & ~_fmix(row ^ (col + two))
                asked[k] = a
                left |= a
        else:
            for k in range(wp):
                col = columns[k]
                a = asked[k]
                r = _fmix(row ^ (col + one))
                z = a & ~(r | keep_one)
                a &= r ^ keep_one
                r = _fmix(row ^ (col + two))
                z |= a & ~(r | keep_two)
                a &= r ^ keep_two
                d[k] ^= z
                asked[k] = a
                left |= a
        if left == _U0 or i == 1:
            return
        i -= 2


@njit(cache=True, parallel=True)
def noise_pass(cur, det, prefixes, grid0, ys, columns, shift, digits, counts, strip):
    """``det`` <- the noisy next generation of every word, from ``cur`` (generation t) and ``det`` (the
    deterministic rule's t + 1), ``strip`` rows a task. ``prefixes[d]``: the key prefix of draw d
    (birth, survival, async) of this generation; grid ``b`` is ``grid0 + b``; ``ys`` (uint64) the rows'
    absolute coordinates, ``columns`` (uint64, ``wp + 1``) each block's first column times ``G2``;
    ``digits[d, :counts[d]]`` each draw's digits (count ``ALWAYS``: probability 1, skipped).

    Aligned words (``shift`` 0) draw in place (:func:`_draw_row`); shifted ones through
    :func:`_block_masks`'s masks (a Dask chunk off the 64-cell blocks)."""
    batch, height, wp = cur.shape
    nstrips = (height + strip - 1) // strip
    for job in prange(batch * nstrips):
        b = job // nstrips
        y0 = (job - b * nstrips) * strip
        y1 = min(height, y0 + strip)
        g = np.uint64(grid0 + b)
        keys = np.empty(3, dtype=np.uint64)
        for draw in range(3):
            keys[draw] = _fmix(prefixes[draw] ^ g)
        if shift == 0:
            asked = np.empty(wp, dtype=np.uint64)
            for y in range(y0, y1):
                yg = ys[y] * _G1
                c = cur[b, y]
                d = det[b, y]
                for draw in range(3):
                    if counts[draw] == ALWAYS:
                        continue
                    opened = _U0
                    if draw == 0:
                        for k in range(wp):
                            a = d[k] & ~c[k]
                            asked[k] = a
                            opened |= a
                    elif draw == 1:
                        for k in range(wp):
                            a = d[k] & c[k]
                            asked[k] = a
                            opened |= a
                    else:
                        for k in range(wp):
                            a = d[k] ^ c[k]
                            asked[k] = a
                            opened |= a
                    if opened != _U0:
                        _draw_row(_fmix(keys[draw] ^ yg), columns, asked, d, digits[draw], counts[draw])
            continue
        scratch = np.empty((4, wp + 1), dtype=np.uint64)
        want = scratch[3, :wp]
        mask = scratch[2]
        for y in range(y0, y1):
            yg = ys[y] * _G1
            c = cur[b, y]
            d = det[b, y]
            if counts[0] != ALWAYS:
                for k in range(wp):
                    want[k] = d[k] & ~c[k]
                _block_masks(_fmix(keys[0] ^ yg), columns, shift, want, scratch, digits[0], counts[0])
                for k in range(wp):
                    d[k] ^= want[k] & ~mask[k]
            if counts[1] != ALWAYS:
                for k in range(wp):
                    want[k] = d[k] & c[k]
                _block_masks(_fmix(keys[1] ^ yg), columns, shift, want, scratch, digits[1], counts[1])
                for k in range(wp):
                    d[k] ^= want[k] & ~mask[k]
            if counts[2] != ALWAYS:
                for k in range(wp):
                    want[k] = d[k] ^ c[k]
                _block_masks(_fmix(keys[2] ^ yg), columns, shift, want, scratch, digits[2], counts[2])
                for k in range(wp):
                    d[k] = c[k] ^ (want[k] & mask[k])


def _digits(p: float) -> tuple[np.ndarray, int]:
    """A probability's mask digits padded to P_BITS, and their count (``ALWAYS`` for 1, 0 for 0)."""
    q = quantize(p)
    out = np.zeros(P_BITS, np.uint8)
    if q >= 1 << P_BITS:
        return out, ALWAYS
    found = mask_digits(q)
    out[: len(found)] = found
    return out, len(found)


def packs(clock: Clock, height: int, width: int) -> bool:
    """Whether the word pass draws for this window: its columns do not wrap inside it."""
    if clock.period is None:
        return True
    x0 = int(clock.origin[1])
    return 0 <= x0 and x0 + width <= int(clock.period[1])


def advance_noisy(cells: np.ndarray, update: NoisyUpdate, torus: bool, generations: int, clock: Clock) -> np.ndarray:
    """``generations`` of a noisy two-state 3x3 rule on ``(B, H, W)`` uint8 cells (bit-packed)."""
    batch, height, width = cells.shape
    module, lut = table_kernels_for(rule_table(update.base))
    cur = pack_alive(np.ascontiguousarray(cells))
    if generations == 0 or cur.size == 0:
        return unpack(cur, width)
    det = np.empty_like(cur)
    wp = cur.shape[2]
    rs = np.uint64(width - (wp - 1) * 64 - 1)
    mask = np.uint64(last_word_mask(width, 64))
    ys, _ = clock.coordinates(height, width)
    x0 = int(clock.origin[1])
    with np.errstate(over="ignore"):  # int64 -> uint64 wraps, as the hash's coordinates do
        columns = ((np.arange(wp + 1, dtype=np.int64) + x0 // 64) * 64).astype(np.uint64) * np.uint64(G2)
    shift = x0 % 64
    draws = [_digits(update.pb), _digits(update.ps), _digits(update.alpha)]
    digits = np.stack([d for d, _ in draws])
    counts = np.array([n for _, n in draws], dtype=np.int64)
    ys64 = ys.astype(np.int64).view(np.uint64)
    with numba_threads_capped(numba) as threads:  # the cores other processes leave free
        serial = threads == 1 or batch * height * wp < PARALLEL_STEP_WORDS
        strip = max(16, -(-height // (4 * threads)) if batch < threads else height)
        for t in range(generations):
            if serial:
                module.run_whole_serial(cur, det, torus, rs, mask, 1, lut)
            elif height * wp <= SMALL_GRID_WORDS:
                module.run_whole(cur, det, torus, rs, mask, 1, lut)
            else:
                module.step_strips(cur, det, torus, rs, mask, strip, lut)
            generation = int(clock.generation) + t
            prefixes = np.array([key_prefix(clock.seed, generation, draw) & MASK64
                                 for draw in (BIRTH_DRAW, SURVIVAL_DRAW, ASYNC_DRAW)], dtype=np.uint64)
            noise_pass(cur, det, prefixes, int(clock.grid), ys64, columns, shift, digits, counts, strip)
            cur, det = det, cur
    if not NOISE_LOADED:
        NOISE_LOADED.append(True)
    return unpack(cur, width)


def why_not_packed(spec, topology: Topology) -> str | None:
    """Why ``bitpack-cpu`` cannot run ``spec`` on ``topology`` (None: it can): a noisy rule's
    reasons here, any other rule's the deterministic kernels' (:func:`.bitpack_circuit.why_not_bitpack`)."""
    if spec.stochastic:
        return why_not_bitpack_noisy(spec, topology)
    return why_not_bitpack(spec, topology, generations=True)


def advance_stochastic(cells: np.ndarray, spec, topology: Topology, generations: int, clock: Clock) -> np.ndarray:
    """A noisy rule bit-packed (:mod:`.bitpack_noise`), or on the reference where a piece of a torus
    wraps its columns inside it (a Dask chunk's halo across the seam)."""
    _, height, width = cells.shape
    if not packs(clock, height, width):
        return advance_numpy(np.asarray(cells, dtype=np.uint8), spec, topology, generations, clock, reference_step)
    return advance_noisy(cells, spec.update, topology.kind == "torus", generations, clock)


__all__ = ["advance_noisy", "advance_stochastic", "noise_pass", "packs", "why_not_packed"]
