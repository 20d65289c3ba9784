"""Four cells a word: the compiled torch step of two-state Moore count rules on ``int32`` words.

A ``(B, H, W)`` uint8 grid of 0/1 cells with ``W % 4 == 0`` (and ``W >= 8``) is viewed (no copy) as ``(B, H, W // 4)``
``int32`` words, byte ``k`` of word ``j`` being cell ``4 j + k`` (little-endian). Each byte lane
then holds a small count (at most 9), so sums and comparisons of all four cells are one word
operation each and never carry into the next byte:

- west/east neighbours: the word shifted by one byte, its end byte taken from the next word;
- the row sum (0..3) of west, centre and east; the 3x3 box (0..9) of three row sums;
- "box == c" per byte: ``((box ^ c * 0x01010101) + 0x0F0F0F0F) >> 4 & 0x01010101`` is 1 in every
  byte whose count differs from ``c`` (a byte at most 15 carries into bit 4 exactly when it
  is not 0), and the result never exceeds ``0x1E1E1E1E``, so no word overflows.

Why: a fused 3x3 step on bytes makes one one-byte load a neighbour a cell (nine, most at wrapped
indices); on words it makes nine four-byte loads for four cells, with a quarter of the index
arithmetic. Under ``torch.compile`` the whole step is one kernel either way. Run eagerly it
would be some 30 passes over memory, so only the compiled step (``make_step(fused=True)``) uses it.

Topologies: a torus (rolls) and a plane (zero fill); the engine uses the byte step for others.
"""

from __future__ import annotations

import sys

import torch
import torch.nn.functional as F

#: One in every byte of a word.
BYTE_ONES = 0x01010101
_LOW3 = 0x00FFFFFF  # the three low bytes: what a left shift by a byte keeps
_CARRY_INTO_BIT4 = 0x0F0F0F0F


def packs(cells: torch.Tensor, kind: object) -> bool:
    """True when ``cells`` ``(B, H, W)`` uint8 can be read as words here: ``W % 4 == 0`` and at least
    two words a row, contiguous and word-aligned, a little-endian host, and a torus or plane
    ``kind``. Decided from the shape and strides only, so a compiled step guards on it instead of
    reading the device. Dynamo cannot trace ``storage_offset()``: while compiling, the cells are
    taken to start a word, as every tensor the engine passes does (it allocates them). One word a
    row is left to the byte step: torch 2.11's Inductor gives that result a last stride other than
    1 and then cannot view it as bytes (seen for every such batch but 1 x 1 x 4)."""
    aligned = torch.compiler.is_compiling() or cells.storage_offset() % 4 == 0
    width = cells.shape[-1]
    return (kind in ("torus", "plane") and sys.byteorder == "little" and cells.dtype == torch.uint8
            and cells.dim() == 3 and width % 4 == 0 and width >= 8 and cells.is_contiguous() and aligned)


def _west_east(words: torch.Tensor, kind: object) -> tuple[torch.Tensor, torch.Tensor]:
    """The words before and after each word in its row: wrapped on a torus, zeros on a plane."""
    if kind == "torus":
        return words.roll(1, -1), words.roll(-1, -1)
    return F.pad(words[..., :-1], (1, 0)), F.pad(words[..., 1:], (0, 1))


def _north_south(rows: torch.Tensor, kind: object) -> tuple[torch.Tensor, torch.Tensor]:
    """The rows above and below each row: wrapped on a torus, zeros on a plane."""
    if kind == "torus":
        return rows.roll(1, -2), rows.roll(-1, -2)
    return F.pad(rows[:, :-1], (0, 0, 1, 0)), F.pad(rows[:, 1:], (0, 0, 0, 1))


def box_count(words: torch.Tensor, kind: object) -> torch.Tensor:
    """``(B, H, W // 4)`` int32: each byte the live cells (0..9) in its cell's 3x3 box, centre included.

    ``words``: ``(B, H, W // 4)`` int32 view of 0/1 cells. Shifts keep within a byte's range:
    the top byte is masked off before moving left and every byte is at most 1, so no shift
    sees a sign bit."""
    before, after = _west_east(words, kind)
    west = ((words & _LOW3) << 8) | (before >> 24)  # byte k gets cell k - 1; byte 0 the word before's byte 3
    east = (words >> 8) | ((after & 0xFF) << 24)  # byte k gets cell k + 1; byte 3 the word after's byte 0
    rows = words + west + east
    north, south = _north_south(rows, kind)
    return rows + north + south


def count_hits(box: torch.Tensor, counts: tuple[int, ...]) -> torch.Tensor:
    """int32 words with byte 1 where ``box``'s byte (0..9) is one of ``counts``, else 0.

    More than five counts are tested as the complement in 0..9 (fewer comparisons)."""
    if len(counts) > 5:
        return count_hits(box, tuple(c for c in range(10) if c not in counts)) ^ BYTE_ONES
    if not counts:
        return torch.zeros_like(box)
    differs = None
    for count in counts:
        one_if_not = (((box ^ (count * BYTE_ONES)) + _CARRY_INTO_BIT4) >> 4) & BYTE_ONES
        differs = one_if_not if differs is None else differs & one_if_not
    return differs ^ BYTE_ONES


def moore_count_step(cells: torch.Tensor, births: tuple[int, ...], survivals: tuple[int, ...],
                     kind: object) -> torch.Tensor:
    """One generation of a two-state Moore count rule on ``cells`` ``(B, H, W)`` uint8 0/1 (see
    :func:`packs`): a dead cell is born when its 3x3 box count is in ``births``, a live one
    survives when its box count (itself included) is in ``survivals``. Returns ``(B, H, W)`` uint8."""
    words = cells.view(torch.int32)
    box = box_count(words, kind)
    born, kept = count_hits(box, births), count_hits(box, survivals)
    return (born ^ ((born ^ kept) & words)).view(torch.uint8)
