"""Counter-based randomness: every random draw is a pure function of where and when it is drawn.

A stochastic CA run must give the same cells on NumPy, torch (CPU or GPU), the bit-packed engines,
Dask chunks, batches and a run resumed from a checkpoint. A stateful generator cannot promise that
(its state depends on the order of the draws); a counter hash can: the random bits of a cell are a
function of ``(seed, generation, draw, grid, y, x)`` only, so any engine, chunk or worker computes
the same bits for the same cell, in any order.

The function (documented so that other programs can reproduce it; all arithmetic modulo 2^64)::

    fmix(z)   = z ^= z >> 30;  z *= 0xBF58476D1CE4E5B9;  z ^= z >> 27;  z *= 0x94D049BB133111EB;  z ^= z >> 31
                (SplitMix64's finaliser: a bijection of 64-bit words with full avalanche)
    key       = fmix(fmix(fmix(fmix(seed ^ K0) ^ generation) ^ draw) ^ grid)
    row(y)    = fmix(key ^ (y * G1))
    word(y, c) = fmix(row(y) ^ ((c + 1) * G2))
    K0 = 0x5851F42D4C957F2D,  G1 = 0x9E3779B97F4A7C15,  G2 = 0xD1B54A32D192ED03

with ``seed``, ``generation``, ``draw`` (which of several draws a rule makes in one generation),
``grid`` (the grid's index in its batch) and the coordinates reduced modulo 2^64 (negative
coordinates of an unbounded plane wrap). Two kinds of draw are built on ``word``:

* **Bernoulli cells** (:func:`bernoulli_cells`, :func:`bernoulli_words`): cell ``(y, x)`` is bit
  ``x mod 64`` of ``mask(y, x // 64)``, where the mask of probability ``p`` is built from the
  binary digits of ``p`` quantised to :data:`P_BITS` bits (:func:`quantize`)::

        q = round(p * 2^16);  m = 0
        for i, digit in enumerate(q's 16 binary digits, least significant first):   # skipping trailing zeros
            r = word(y, 64 * (x // 64) + i)          # i-th random word of this 64-cell block
            m = (r | m) if digit else (r & m)

  so each bit is 1 with probability exactly ``q / 2^16``. A bit-packed engine computes a word of 64
  cells with a few word operations; the NumPy reference computes the same words and unpacks them.
* **Uniform cells** (:func:`uniform_cells`): ``word(y, x) >> 11`` divided by 2^53, a float64 in
  [0, 1) per cell (for draws that need a value, not a bit).

This is a hash for reproducible simulation, not for cryptography.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from .errors import UsageError

MASK64 = (1 << 64) - 1
K0 = 0x5851F42D4C957F2D
G1 = 0x9E3779B97F4A7C15
G2 = 0xD1B54A32D192ED03
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
#: Bits a probability keeps (:func:`quantize`): a Bernoulli mask costs at most this many random words.
P_BITS = 16
WORD = 64


def fmix(z: int) -> int:
    """SplitMix64's finaliser on one Python int (reduced modulo 2^64)."""
    z &= MASK64
    z ^= z >> 30
    z = (z * _M1) & MASK64
    z ^= z >> 27
    z = (z * _M2) & MASK64
    return z ^ (z >> 31)


def stream_key(seed: int, generation: int, draw: int = 0, grid: int = 0) -> int:
    """The 64-bit key of one draw of one generation of one grid (the module docstring's ``key``)."""
    for name, value in (("seed", seed), ("generation", generation), ("draw", draw), ("grid", grid)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
            raise UsageError(f"randomness: {name} must be an integer, got {value!r}")
    key = fmix(int(seed) ^ K0)
    for value in (generation, draw, grid):
        key = fmix(key ^ (int(value) & MASK64))
    return key


def quantize(p: float) -> int:
    """``p`` as the integer ``q`` of ``q / 2^P_BITS``, the probability a Bernoulli draw really has
    (0 <= q <= 2^P_BITS). Raises UsageError unless 0 <= p <= 1."""
    if not isinstance(p, (int, float, np.floating, np.integer)) or isinstance(p, bool) or not 0.0 <= float(p) <= 1.0:
        raise UsageError(f"randomness: a probability must be a number from 0 to 1, got {p!r}")
    return int(round(float(p) * (1 << P_BITS)))


def mask_digits(q: int) -> list[int]:
    """The binary digits of ``q`` (least significant first) a Bernoulli mask combines, trailing
    zeros dropped: ``[]`` for q = 0 and for q = 2^P_BITS (all zeros / all ones need no words)."""
    if q <= 0 or q >= 1 << P_BITS:
        return []
    digits = [(q >> i) & 1 for i in range(P_BITS)]
    first = digits.index(1)
    return digits[first:]


# -- NumPy ---------------------------------------------------------------------------------------

def _fmix_np(z: np.ndarray) -> np.ndarray:
    """:func:`fmix` on a uint64 array (NumPy's uint64 arithmetic wraps modulo 2^64)."""
    z = z ^ (z >> np.uint64(30))
    z = z * np.uint64(_M1)
    z = z ^ (z >> np.uint64(27))
    z = z * np.uint64(_M2)
    return z ^ (z >> np.uint64(31))


def _u64(values: Any) -> np.ndarray:
    """Integers (possibly negative) as uint64 modulo 2^64."""
    return np.asarray(values, dtype=np.int64).astype(np.uint64)


def words(key: int, ys: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """``word(y, c)`` for every ``y`` in ``ys`` (rows) and ``c`` in ``cs`` (columns): uint64
    ``(len(ys), len(cs))``."""
    with np.errstate(over="ignore"):
        rows = _fmix_np(np.uint64(key) ^ (_u64(ys) * np.uint64(G1)))
        cols = (_u64(cs) + np.uint64(1)) * np.uint64(G2)
        return _fmix_np(rows[:, None] ^ cols[None, :])


def bernoulli_words(key: int, p: float, ys: np.ndarray, blocks: np.ndarray) -> np.ndarray:
    """The Bernoulli masks of probability ``p`` (quantised) for rows ``ys`` and 64-cell blocks
    ``blocks`` (block ``b`` holds cells ``64 b .. 64 b + 63``): uint64 ``(len(ys), len(blocks))``,
    bit ``j`` of ``[i, k]`` the draw of cell ``(ys[i], 64 * blocks[k] + j)``."""
    q = quantize(p)
    shape = (len(ys), len(blocks))
    if q <= 0:
        return np.zeros(shape, np.uint64)
    if q >= 1 << P_BITS:
        return np.full(shape, MASK64, np.uint64)
    base = _u64(blocks) * np.uint64(WORD)
    mask = np.zeros(shape, np.uint64)
    for i, digit in enumerate(mask_digits(q)):
        r = words(key, ys, base + np.uint64(i))
        mask = (r | mask) if digit else (r & mask)
    return mask


def _origin(origin: tuple[int, int]) -> tuple[int, int]:
    y0, x0 = origin
    return int(y0), int(x0)


def bernoulli_cells(seed: int, generation: int, p: float, shape: tuple[int, int], *, draw: int = 0,
                    grid: int = 0, origin: tuple[int, int] = (0, 0)) -> np.ndarray:
    """Bernoulli(``p``) draws of the cells of an ``(H, W)`` window whose top-left cell sits at
    absolute ``origin = (y0, x0)``: bool ``(H, W)``, the same bits whatever window or chunk asks."""
    h, w = (int(s) for s in shape)
    y0, x0 = _origin(origin)
    xs = np.arange(x0, x0 + w, dtype=np.int64)
    blocks = np.unique(xs // WORD)
    masks = bernoulli_words(stream_key(seed, generation, draw, grid), p, np.arange(y0, y0 + h, dtype=np.int64),
                            blocks)
    column = np.searchsorted(blocks, xs // WORD)
    bits = (xs % WORD).astype(np.uint64)
    return ((masks[:, column] >> bits[None, :]) & np.uint64(1)).astype(bool)


def uniform_cells(seed: int, generation: int, shape: tuple[int, int], *, draw: int = 0, grid: int = 0,
                  origin: tuple[int, int] = (0, 0)) -> np.ndarray:
    """Uniform draws in [0, 1) of the cells of an ``(H, W)`` window at absolute ``origin``: float64
    ``(H, W)``, ``(word(y, x) >> 11) / 2^53``."""
    h, w = (int(s) for s in shape)
    y0, x0 = _origin(origin)
    raw = words(stream_key(seed, generation, draw, grid), np.arange(y0, y0 + h, dtype=np.int64),
                np.arange(x0, x0 + w, dtype=np.int64))
    return (raw >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


# -- torch (any device; int64 holds the same 64 bits, shifts made logical by a mask) --------------

def _signed(value: int) -> int:
    """A 64-bit pattern as the int64 holding the same bits."""
    value &= MASK64
    return value - (1 << 64) if value >= 1 << 63 else value


def _shr(z: Any, s: int) -> Any:
    """Logical right shift of int64 tensors (torch's ``>>`` is arithmetic)."""
    return (z >> s) & ((1 << (64 - s)) - 1)


def _fmix_torch(z: Any) -> Any:
    z = z ^ _shr(z, 30)
    z = z * _signed(_M1)
    z = z ^ _shr(z, 27)
    z = z * _signed(_M2)
    return z ^ _shr(z, 31)


def words_torch(key: int, ys: Any, cs: Any) -> Any:
    """:func:`words` on int64 tensors ``ys`` and ``cs`` (any device): int64 ``(len(ys), len(cs))``
    holding the same 64 bits as NumPy's uint64."""
    rows = _fmix_torch(ys * _signed(G1) ^ _signed(key))
    cols = (cs + 1) * _signed(G2)
    return _fmix_torch(rows[:, None] ^ cols[None, :])


def bernoulli_words_torch(key: int, p: float, ys: Any, blocks: Any) -> Any:
    """:func:`bernoulli_words` on int64 tensors (any device): int64 masks, same bits."""
    import torch

    q = quantize(p)
    shape = (int(ys.numel()), int(blocks.numel()))
    if q <= 0:
        return torch.zeros(shape, dtype=torch.int64, device=ys.device)
    if q >= 1 << P_BITS:
        return torch.full(shape, -1, dtype=torch.int64, device=ys.device)
    base = blocks * WORD
    mask = torch.zeros(shape, dtype=torch.int64, device=ys.device)
    for i, digit in enumerate(mask_digits(q)):
        r = words_torch(key, ys, base + i)
        mask = (r | mask) if digit else (r & mask)
    return mask


def bernoulli_cells_torch(seed: int, generation: int, p: float, shape: tuple[int, int], *, device: Any = "cpu",
                          draw: int = 0, grid: int = 0, origin: tuple[int, int] = (0, 0)) -> Any:
    """:func:`bernoulli_cells` computed by torch on ``device``: bool tensor ``(H, W)``, same bits."""
    import torch

    h, w = (int(s) for s in shape)
    y0, x0 = _origin(origin)
    xs = torch.arange(x0, x0 + w, dtype=torch.int64, device=device)
    first = x0 // WORD
    blocks = torch.arange(first, (x0 + w - 1) // WORD + 1, dtype=torch.int64, device=device) if w else xs[:0]
    ys = torch.arange(y0, y0 + h, dtype=torch.int64, device=device)
    masks = bernoulli_words_torch(stream_key(seed, generation, draw, grid), p, ys, blocks)
    column = torch.div(xs, WORD, rounding_mode="floor") - first
    bits = torch.remainder(xs, WORD)
    return ((masks[:, column] >> bits[None, :]) & 1).to(torch.bool)


def uniform_cells_torch(seed: int, generation: int, shape: tuple[int, int], *, device: Any = "cpu", draw: int = 0,
                        grid: int = 0, origin: tuple[int, int] = (0, 0), dtype: Any = None) -> Any:
    """:func:`uniform_cells` computed by torch on ``device`` (float64 by default: the same values)."""
    import torch

    h, w = (int(s) for s in shape)
    y0, x0 = _origin(origin)
    raw = words_torch(stream_key(seed, generation, draw, grid),
                      torch.arange(y0, y0 + h, dtype=torch.int64, device=device),
                      torch.arange(x0, x0 + w, dtype=torch.int64, device=device))
    values = _shr(raw, 11).to(torch.float64) * (1.0 / (1 << 53))
    return values if dtype is None else values.to(dtype)


# -- what engines draw with: a batch of grids, cells at absolute coordinates ----------------------
#
# Everything below is built on the function above (the same bits): engines running a stochastic rule
# draw for a ``(B, H, W)`` batch whose grid ``b`` is grid ``clock.grid + b`` of the run and whose cell
# ``[r, c]`` sits at absolute ``clock.origin + (r, c)`` (reduced modulo ``clock.period`` on a piece of
# a torus), so that chunks, batches and resumed runs draw what one whole run draws.


@dataclasses.dataclass(frozen=True)
class Clock:
    """When and where an engine call draws (:mod:`tensorca.families.stochastic.rule`'s rules).

    ``seed``: the run's seed. ``generation``: the absolute generation number of the cells the engine
    is given; the step from generation ``t`` to ``t + 1`` draws with ``generation = t``. ``grid``: the
    run's index of the first grid of the batch (grid ``b`` of the batch is ``grid + b``). ``origin``:
    the absolute ``(y, x)`` of cell ``[0, 0]`` (a bounded grid run whole: ``(0, 0)``; a Dask chunk with
    its halo, the unbounded plane's growing array: where they sit). ``period``: ``(H, W)`` of the torus
    a piece belongs to, so that its halo cells wrap to the coordinates they stand for; None elsewhere.
    """

    seed: int = 0
    generation: int = 0
    grid: int = 0
    origin: tuple[int, int] = (0, 0)
    period: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        check_seed(self.seed)
        for name in ("generation", "grid"):
            value = getattr(self, name)
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
                raise UsageError(f"randomness: {name} must be an integer, got {value!r}")

    def later(self, generations: int = 0, grids: int = 0) -> Clock:
        """This clock ``generations`` later, for the batch starting ``grids`` grids further on."""
        return dataclasses.replace(self, generation=int(self.generation) + int(generations),
                                   grid=int(self.grid) + int(grids))

    def coordinates(self, height: int, width: int) -> tuple[np.ndarray, np.ndarray]:
        """Absolute row and column coordinates (int64 ``(H,)``, ``(W,)``) of an ``(H, W)`` window."""
        y0, x0 = (int(v) for v in self.origin)
        ys = np.arange(y0, y0 + int(height), dtype=np.int64)
        xs = np.arange(x0, x0 + int(width), dtype=np.int64)
        if self.period is not None:
            ys %= int(self.period[0])
            xs %= int(self.period[1])
        return ys, xs

    def aligned(self, height: int, width: int) -> bool:
        """True when column ``64 k + j`` of an ``(H, W)`` window is bit ``j`` of Bernoulli block ``x0 / 64 + k``
        on every row (what a bit-packed engine's words are): ``x0`` a multiple of 64 and no wrap inside."""
        y0, x0 = (int(v) for v in self.origin)
        if x0 % WORD:
            return False
        if self.period is None:
            return True
        return 0 <= y0 and y0 + height <= self.period[0] and 0 <= x0 and x0 + width <= self.period[1]


def check_seed(seed: Any) -> int:
    """``seed`` as an int (any integer; reduced modulo 2^64 by the hash), else UsageError."""
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise UsageError(f"seed must be an integer, got {seed!r}")
    return int(seed)


def key_prefix(seed: int, generation: int, draw: int) -> int:
    """``stream_key(seed, generation, draw, grid) == fmix(key_prefix(seed, generation, draw) ^ grid)``."""
    key = fmix(int(seed) ^ K0)
    for value in (generation, draw):
        key = fmix(key ^ (int(value) & MASK64))
    return key


def grid_keys(seed: int, generation: int, draw: int, grids: np.ndarray) -> np.ndarray:
    """``stream_key(seed, generation, draw, g)`` for every grid index ``g`` of ``grids``: uint64."""
    with np.errstate(over="ignore"):
        return _fmix_np(np.uint64(key_prefix(seed, generation, draw)) ^ _u64(grids))


def uniform_threshold(p: float) -> int:
    """The integer ``T`` with ``u < p`` exactly when ``(word >> 11) < T`` (``u`` a uniform draw): ``ceil(p 2^53)``.

    Comparing integers keeps the decision exact on every device (no float64 needed)."""
    if not isinstance(p, (int, float, np.floating, np.integer)) or isinstance(p, bool) or not 0.0 <= float(p) <= 1.0:
        raise UsageError(f"randomness: a probability must be a number from 0 to 1, got {p!r}")
    return math.ceil(float(p) * (1 << 53))


def block_plan(xs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For absolute columns ``xs``: the distinct 64-cell blocks they fall in, each column's index
    into those blocks, and its bit in the block's word (``(blocks, column, bit)``, int64)."""
    blocks = np.unique(xs // WORD)
    return blocks, np.searchsorted(blocks, xs // WORD).astype(np.int64), (xs % WORD).astype(np.int64)


def _words_batch(keys: np.ndarray, ys: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """:func:`words` for every key of ``keys`` (uint64 ``(B,)``): uint64 ``(B, len(ys), len(cs))``."""
    with np.errstate(over="ignore"):
        rows = _fmix_np(keys[:, None] ^ (_u64(ys) * np.uint64(G1))[None, :])
        cols = (_u64(cs) + np.uint64(1)) * np.uint64(G2)
        return _fmix_np(rows[:, :, None] ^ cols[None, None, :])


def bernoulli_batch(keys: np.ndarray, p: float, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """Bernoulli(``p``) cells of the grids keyed ``keys`` (uint64 ``(B,)``, :func:`grid_keys`) at
    absolute rows ``ys`` and columns ``xs``: bool ``(B, len(ys), len(xs))``, the bits of :func:`bernoulli_cells`."""
    q = quantize(p)
    shape = (len(keys), len(ys), len(xs))
    if q <= 0:
        return np.zeros(shape, bool)
    if q >= 1 << P_BITS:
        return np.ones(shape, bool)
    blocks, column, bit = block_plan(xs)
    base = _u64(blocks) * np.uint64(WORD)
    mask = np.zeros((len(keys), len(ys), len(blocks)), np.uint64)
    for i, digit in enumerate(mask_digits(q)):
        r = _words_batch(keys, ys, base + np.uint64(i))
        mask = (r | mask) if digit else (r & mask)
    return ((mask[:, :, column] >> bit.astype(np.uint64)) & np.uint64(1)).astype(bool)


def uniform_bits_batch(keys: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """``word(y, x) >> 11`` (the 53 bits of a uniform draw) of the grids keyed ``keys`` at absolute
    ``ys`` x ``xs``: uint64 ``(B, len(ys), len(xs))``; ``u < p`` is ``bits < uniform_threshold(p)``."""
    return _words_batch(keys, ys, xs) >> np.uint64(11)


def grid_keys_torch(seed: int, generation: int, draw: int, grids: Any) -> Any:
    """:func:`grid_keys` on an int64 tensor of grid indices (any device; no host synchronisation)."""
    return _fmix_torch(grids ^ _signed(key_prefix(seed, generation, draw)))


def _words_batch_torch(keys: Any, ys: Any, cs: Any) -> Any:
    rows = _fmix_torch((ys * _signed(G1))[None, :] ^ keys[:, None])
    cols = (cs + 1) * _signed(G2)
    return _fmix_torch(rows[:, :, None] ^ cols[None, None, :])


def bernoulli_batch_torch(keys: Any, p: float, ys: Any, blocks: Any, column: Any, bit: Any) -> Any:
    """:func:`bernoulli_batch` on int64 tensors (``blocks, column, bit`` from :func:`block_plan`, on the
    keys' device): bool ``(B, len(ys), len(column))``, the same bits."""
    import torch

    q = quantize(p)
    shape = (int(keys.numel()), int(ys.numel()), int(column.numel()))
    if q <= 0:
        return torch.zeros(shape, dtype=torch.bool, device=keys.device)
    if q >= 1 << P_BITS:
        return torch.ones(shape, dtype=torch.bool, device=keys.device)
    base = blocks * WORD
    mask = None
    for i, digit in enumerate(mask_digits(q)):
        r = _words_batch_torch(keys, ys, base + i)
        mask = r if mask is None else ((r | mask) if digit else (r & mask))  # the first digit is 1: r | 0
    return ((mask[:, :, column] >> bit) & 1).to(torch.bool)


def uniform_bits_batch_torch(keys: Any, ys: Any, xs: Any) -> Any:
    """:func:`uniform_bits_batch` on int64 tensors: int64 ``(B, len(ys), len(xs))``, the same values."""
    return _shr(_words_batch_torch(keys, ys, xs), 11)


__all__ = ["P_BITS", "Clock", "bernoulli_batch", "bernoulli_batch_torch", "bernoulli_cells", "bernoulli_cells_torch",
           "bernoulli_words", "bernoulli_words_torch", "block_plan", "check_seed", "fmix", "grid_keys",
           "grid_keys_torch", "key_prefix", "mask_digits", "quantize", "stream_key", "uniform_bits_batch",
           "uniform_bits_batch_torch", "uniform_cells", "uniform_cells_torch", "uniform_threshold", "words",
           "words_torch"]
