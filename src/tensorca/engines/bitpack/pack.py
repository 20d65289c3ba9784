"""Bit-packing of two-state grids: ``(B, H, W)`` uint8 cells <-> ``(B, H, ceil(W / bits))`` words.

Layout (the same for NumPy and torch, 64- or 32-bit words): row ``y`` of grid ``b`` is a run of
``ceil(W / bits)`` words; cell ``x`` is bit ``x % bits`` (least significant bit first) of word
``x // bits``. The ``bits * words - W`` high bits of a row's last word are *padding*: packing
always writes them as 0, and the engines keep them 0 after every generation, so they never leak
into neighbour counts (B0/B1 rules) nor into the wrap-around of a torus.

A cell is packed as 1 when it is nonzero (engines pass ``cells == 1``, the reference's notion of
a live cell). Unpacking gives ``uint8`` 0/1.

- NumPy: :func:`pack` / :func:`unpack`, ``uint64`` (``bits=64``) or ``uint32`` (``bits=32``) words.
- torch: :func:`pack_torch` / :func:`unpack_torch`, ``int32`` words (torch has no full ``uint32``
  arithmetic; kernels reinterpret the bits as unsigned), computed on the tensor's own device.

Lane-per-grid (``bitpack-gpu``'s batches, :func:`pack_lanes_torch` / :func:`unpack_lanes_torch`):
``(B, H, W)`` cells -> ``(ceil(B / 32), H, W)`` ``int32`` words where bit ``j`` of word
``[g, y, x]`` is cell ``(y, x)`` of grid ``32 g + j``. Lanes past the last grid are 0 and stay
apart from the real grids (no lane ever reads another), so they need no mask.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import UsageError

_WORD_DTYPE = {64: np.dtype("<u8"), 32: np.dtype("<u4")}


def n_words(width: int, bits: int) -> int:
    """Words per packed row for ``width`` cells."""
    return -(-width // bits)


def last_word_mask(width: int, bits: int) -> int:
    """The valid-bit mask (as a non-negative Python int) of a row's last word."""
    valid = width - (n_words(width, bits) - 1) * bits
    return (1 << valid) - 1


def pack(cells: np.ndarray, bits: int = 64) -> np.ndarray:
    """``(B, H, W)`` (or ``(H, W)``) cells -> ``(B, H, ceil(W/bits))`` ``uint64``/``uint32`` words."""
    if bits not in _WORD_DTYPE:
        raise UsageError(f"bits must be 32 or 64, got {bits}")
    cells = np.asarray(cells)
    *lead, width = cells.shape
    words = n_words(width, bits)
    packed_bytes = np.packbits(cells != 0, axis=-1, bitorder="little")
    out = np.zeros((*lead, words * bits // 8), dtype=np.uint8)
    out[..., : packed_bytes.shape[-1]] = packed_bytes
    return out.view(_WORD_DTYPE[bits]).astype(np.uint64 if bits == 64 else np.uint32, copy=False)


def unpack(words: np.ndarray, width: int) -> np.ndarray:
    """Packed words (``uint64`` or ``uint32``, ``(..., words)``) -> ``(..., width)`` ``uint8`` 0/1."""
    words = np.ascontiguousarray(words)
    little = words.astype(words.dtype.newbyteorder("<"), copy=False)
    as_bytes = little.view(np.uint8)
    return np.unpackbits(as_bytes, axis=-1, count=width, bitorder="little")


def pack_torch(cells: Any) -> Any:
    """``(B, H, W)`` (or ``(H, W)``) tensor of cells -> ``(B, H, ceil(W/32))`` ``int32`` words, same device."""
    import torch

    *lead, width = cells.shape
    words = n_words(width, 32)
    bits = (cells != 0).to(torch.uint8)
    pad = words * 32 - width
    if pad:
        bits = torch.nn.functional.pad(bits, (0, pad))
    bits = bits.reshape(*lead, words * 4, 8)
    byte = bits[..., 0].clone()
    for i in range(1, 8):
        byte |= bits[..., i] << i
    return byte.contiguous().view(torch.int32)


def unpack_torch(words: Any, width: int) -> Any:
    """``(..., words)`` ``int32`` tensor -> ``(..., width)`` ``uint8`` 0/1 tensor on the same device."""
    import torch

    as_bytes = words.contiguous().view(torch.uint8)
    shifts = torch.arange(8, device=words.device, dtype=torch.uint8)
    bits = (as_bytes.unsqueeze(-1) >> shifts) & 1
    return bits.reshape(*as_bytes.shape[:-1], as_bytes.shape[-1] * 8)[..., :width].contiguous()


#: Grids per ``int32`` lane word.
LANES_32 = 32


def pack_lanes_torch(cells: Any) -> Any:
    """``(B, H, W)`` tensor of cells -> ``(ceil(B/32), H, W)`` ``int32`` lane words, same device.

    One pass per lane over a strided view of every 32nd grid (no padded copy of the batch): the
    only temporary is one ``int32`` plane per group, so the peak is the words plus ``4 / 32`` bytes
    a cell.
    """
    import torch

    batch, height, width = (int(s) for s in cells.shape)
    groups = -(-batch // LANES_32)
    words = torch.zeros((groups, height, width), dtype=torch.int32, device=cells.device)
    for lane in range(min(LANES_32, batch)):
        grids = cells[lane::LANES_32]
        words[: grids.shape[0]] |= (grids != 0).to(torch.int32) << lane
    return words


def unpack_lanes_torch(words: Any, batch: int) -> Any:
    """``(G, H, W)`` ``int32`` lane words -> ``(batch, H, W)`` ``uint8`` 0/1 cells on the same device
    (``batch <= 32 G``; lanes past ``batch`` are dropped)."""
    import torch

    groups, height, width = (int(s) for s in words.shape)
    if batch > groups * LANES_32:
        raise UsageError(f"{groups} groups of lane words hold at most {groups * LANES_32} grids, not {batch}")
    cells = torch.empty((groups, LANES_32, height, width), dtype=torch.uint8, device=words.device)
    for lane in range(LANES_32):
        cells[:, lane] = ((words >> lane) & 1).to(torch.uint8)  # arithmetic shift: bit 31 -> ...1111 & 1
    return cells.reshape(groups * LANES_32, height, width)[:batch]
