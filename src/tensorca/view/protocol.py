"""The packed frame the viewer page and the notebook widget draw: a 40-byte header, then the cells.

Header (little-endian, :data:`HEADER`): magic ``b"TCA1"``, width ``u32``, height ``u32``,
generation ``i64``, population ``i64``, origin x ``i32``, origin y ``i32`` (pattern coordinates
of cell ``[0, 0]``), bits per cell ``u8`` (1 or 8), kind ``u8`` (0 discrete states, 1 floats
quantised to ``round(v * 255)``), two zero bytes. Body: ``height * width`` cells in row-major
order: with 1 bit per cell ``numpy.packbits`` of the flattened grid (most significant bit first,
zero-padded to a whole byte), else one byte per cell.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from ..errors import GridError

HEADER = struct.Struct("<4sIIqqiiBBxx")
MAGIC = b"TCA1"
DISCRETE, FLOAT = 0, 1


@dataclass(frozen=True)
class Frame:
    """One generation to draw: ``cells`` ``(H, W)`` (uint8 states or floats in [0, 1]), its
    ``generation``, ``population`` (non-zero cells) and ``origin`` ``(x, y)`` of ``cells[0, 0]``."""

    cells: np.ndarray
    generation: int
    population: int
    origin: tuple[int, int] = (0, 0)


def pack(frame: Frame) -> bytes:
    """``frame`` as header + body (see the module docstring): 1 bit per cell when every state is
    0 or 1, a byte per cell otherwise; floats are quantised to bytes."""
    cells = np.asarray(frame.cells)
    if cells.ndim != 2:
        raise GridError(f"a frame is one (H, W) grid, got shape {cells.shape}")
    height, width = cells.shape
    if cells.dtype.kind == "f":
        kind, bits = FLOAT, 8
        body = quantise(cells).tobytes()
    else:
        states = cells if cells.dtype == np.uint8 else cells.astype(np.uint8)
        kind = DISCRETE
        bits = 1 if not states.size or int(states.max()) <= 1 else 8
        body = np.packbits(states.ravel()).tobytes() if bits == 1 else states.tobytes()
    ox, oy = frame.origin
    head = HEADER.pack(MAGIC, width, height, int(frame.generation), int(frame.population), int(ox), int(oy), bits, kind)
    return head + body


def quantise(cells: np.ndarray) -> np.ndarray:
    """Floats -> uint8 ``round(clip(v, 0, 1) * 255)``, NaN as 0; in place on one float32 copy."""
    values = np.nan_to_num(cells.astype(np.float32, copy=True), copy=False, nan=0.0)
    np.clip(values, 0.0, 1.0, out=values)
    values *= 255.0
    values += 0.5  # non-negative: floor(v + 0.5) rounds half up
    return values.astype(np.uint8)


def unpack(data: bytes) -> Frame:
    """The inverse of :func:`pack` (floats come back quantised to multiples of 1/255)."""
    if len(data) < HEADER.size or data[:4] != MAGIC:
        raise GridError("not a packed tensorca frame (bad magic or short header)")
    _, width, height, generation, population, ox, oy, bits, kind = HEADER.unpack_from(data)
    body = np.frombuffer(data, np.uint8, offset=HEADER.size)
    need = -(-width * height // 8) if bits == 1 else width * height
    if len(body) < need:
        raise GridError(f"packed frame of {width}x{height} needs {need} body bytes, got {len(body)}")
    if bits == 1:
        cells = np.unpackbits(body, count=width * height).reshape(height, width)
    else:
        cells = body[: width * height].reshape(height, width)
    if kind == FLOAT:
        cells = cells.astype(np.float32) / 255.0
    return Frame(cells, generation, population, (ox, oy))
