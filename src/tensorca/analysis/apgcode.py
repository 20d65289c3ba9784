"""Apgcodes: the Life community's canonical names for objects (apgsearch, Catagolue).

An apgcode is a prefix that says what the object does, then ``_``, then the object in the
*extended Wechsler format*:

- ``xs<population>_``: still life (``xs4_33`` block, ``xs6_696`` beehive);
- ``xp<period>_``: oscillator (``xp2_7`` blinker, ``xp15_4r4z4r4`` pentadecathlon);
- ``xq<period>_``: spaceship (``xq4_153`` glider, ``xq4_6frc`` lightweight spaceship).

Extended Wechsler format (as apgsearch's ``canonise_orientation`` writes it): the bounding box is
cut into strips of 5 rows; each column of a strip is one character ``0-9a-v`` whose value is the
5-bit number with the strip's top row as bit 0; strips are separated by ``z``; runs of empty
columns are shortened (``0`` one, ``w`` two, ``x`` three, ``y0``..``yz`` 4..39) and trailing
empty columns dropped. The canonical code is the shortest string, ties broken by ordinary string
order, over the 8 rotations and reflections of every phase of the object.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import numpy as np

from ..crop import crop
from ..errors import UsageError

CHARS = "0123456789abcdefghijklmnopqrstuvwxyz"
#: Largest box :func:`decode` fills (objects are tiny; a hostile code can name gigabytes in kilobytes).
MAX_DECODED_CELLS = 1 << 24


def _runs_of_zeros(zeros: int) -> str:
    out = []
    while zeros > 0:
        if zeros == 1:
            out.append("0")
        elif zeros == 2:
            out.append("w")
        elif zeros == 3:
            out.append("x")
        elif zeros > 39:
            out.append("yz")
        else:
            out.append("y" + CHARS[zeros - 4])
        zeros -= 39
    return "".join(out)


def wechsler(cells: np.ndarray) -> str:
    """Extended Wechsler string of a 2-D grid in this orientation (non-zero = alive).

    The grid is read as it lies: columns left to right, 5-row strips top to bottom, with the
    top row of a strip as bit 0. Leading empty rows/columns matter, so crop first.
    """
    alive = np.asarray(cells) != 0
    height, width = alive.shape
    strips = -(-height // 5) if height else 0
    padded = np.zeros((strips * 5, width), dtype=np.int64)
    padded[:height] = alive
    values = (padded.reshape(strips, 5, width) << np.arange(5)[None, :, None]).sum(axis=1)
    parts = []
    for row in values.tolist():
        text = []
        zeros = 0
        for value in row:
            if value == 0:
                zeros += 1
            else:
                if zeros:
                    text.append(_runs_of_zeros(zeros))
                zeros = 0
                text.append(CHARS[value])
        parts.append("".join(text))
    return "z".join(parts)


def orientations(cells: np.ndarray) -> list[np.ndarray]:
    """The 8 images of a 2-D grid under rotations and reflections."""
    a = np.asarray(cells)
    out = []
    for grid in (a, a.T):
        out += [grid, grid[:, ::-1], grid[::-1, :], grid[::-1, ::-1]]
    return out


def better(a: str | None, b: str) -> str:
    """apgsearch's order: the shorter representation wins, then the smaller string."""
    if a is None or len(b) < len(a) or (len(b) == len(a) and b < a):
        return b
    return a


def canonical_representation(phases: Iterable[np.ndarray]) -> str:
    """The smallest Wechsler string over every phase and all 8 orientations of each."""
    best: str | None = None
    for phase in phases:
        for grid in orientations(crop(np.asarray(phase))[0]):
            best = better(best, wechsler(grid))
    return best or "0"


def apgcode(phases: list[np.ndarray], kind: str, period: int = 1) -> str:
    """The apgcode of an object given every phase of one period (one array for a still life).

    ``kind``: ``"still_life"``, ``"oscillator"`` or ``"spaceship"``.
    """
    representation = canonical_representation(phases)
    if kind == "still_life":
        return f"xs{int(np.count_nonzero(phases[0]))}_{representation}"
    if kind == "oscillator":
        return f"xp{period}_{representation}"
    if kind == "spaceship":
        return f"xq{period}_{representation}"
    raise UsageError(f"objects of kind {kind!r} have no apgcode")


def _columns(strip: str) -> Iterator[tuple[int, int]]:
    """``(x, value)`` of every non-empty column of one strip's extended Wechsler text, and last
    ``(width, 0)``; :class:`UsageError` for a character the format does not have."""
    x = i = 0
    while i < len(strip):
        ch = strip[i]
        if ch == "w":
            x += 2
        elif ch == "x":
            x += 3
        elif ch == "y":
            i += 1
            if i == len(strip) or strip[i] not in CHARS:
                raise UsageError(f"extended Wechsler 'y' needs a count 0-9a-z after it, in {strip[:40]!r}")
            x += 4 + CHARS.index(strip[i])
        elif ch in CHARS:
            yield x, CHARS.index(ch)
            x += 1
        else:
            raise UsageError(f"{ch!r} is not an extended Wechsler character, in {strip[:40]!r}")
        i += 1
    yield x, 0


def decode_wechsler(text: str, max_cells: int = MAX_DECODED_CELLS) -> np.ndarray:
    """The ``(H, W)`` uint8 grid of an extended Wechsler string (the part after ``_``), cropped to
    its cells; :class:`UsageError` when its box would pass ``max_cells`` cells (measured before
    anything is allocated: ``yz`` is 39 columns in two characters)."""
    strips = text.split("z")
    width = max(max(x for x, _ in _columns(strip)) for strip in strips)
    if 5 * len(strips) * width > max_cells:
        raise UsageError(f"extended Wechsler string of {5 * len(strips)} x {width} cells exceeds {max_cells} cells")
    grid = np.zeros((5 * len(strips), width), dtype=np.uint8)
    for s, strip in enumerate(strips):
        for x, value in _columns(strip):
            for bit in range(5):
                if value >> bit & 1:
                    grid[5 * s + bit, x] = 1
    return crop(grid, copy=True)[0]


def decode(code: str) -> np.ndarray:
    """One phase of the object an apgcode names, e.g. ``decode("xq4_153")`` is a glider."""
    prefix, _, body = code.partition("_")
    if not body or not prefix.startswith(("xs", "xp", "xq")) or not _WECHSLER.fullmatch(body):
        raise UsageError(f"{code!r} is not an apgcode of a still life, oscillator or spaceship")
    return decode_wechsler(body)


#: Extended Wechsler: digits and letters, ``w``/``x`` runs, ``y`` and its count, ``z`` between strips.
_WECHSLER = re.compile(r"(?:[0-9a-vwxz]|y[0-9a-z])+", re.ASCII)
