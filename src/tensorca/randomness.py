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


__all__ = ["P_BITS", "bernoulli_cells", "bernoulli_cells_torch", "bernoulli_words", "bernoulli_words_torch",
           "fmix", "mask_digits", "quantize", "stream_key", "uniform_cells", "uniform_cells_torch", "words",
           "words_torch"]
