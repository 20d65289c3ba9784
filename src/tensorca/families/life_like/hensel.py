"""Isotropic non-totalistic (Hensel) letters: which 3x3 neighbourhoods each letter names.

Golly's notation: after a neighbour count 1..7, letters from ``ceaiknjqrytwz`` pick
configurations up to rotation and reflection (51 classes over counts 0..8). The representatives
below are Golly's (``liferules.cpp``); counts 5..7 are the complements of counts 3..1. Golly's
internal 3x3 index is the vertical mirror of our reading-order index, but every letter's class is
closed under reflection, so the classes are the same sets of integers in either order.
"""

from __future__ import annotations

from functools import cache

from ...errors import UsageError

#: Letters valid after each count, in Golly's internal order.
LETTERS: dict[int, str] = {
    0: "", 1: "ce", 2: "ceaikn", 3: "ceaiknjqry", 4: "ceaiknjqrytwz",
    5: "ceaiknjqry", 6: "ceaikn", 7: "ce", 8: "",
}
ALL_LETTERS = "ceaiknjqrytwz"

# Golly's representative neighbourhood for each letter of counts 1..4 (centre bit clear).
_REPRESENTATIVES: dict[int, tuple[int, ...]] = {
    1: (1, 2),
    2: (5, 10, 3, 40, 33, 68),
    3: (69, 42, 11, 7, 98, 13, 14, 70, 41, 97),
    4: (325, 170, 15, 45, 99, 71, 106, 102, 43, 101, 105, 78, 108),
}


def _cells(index: int) -> set[tuple[int, int]]:
    return {(y, x) for y in range(3) for x in range(3) if index >> (8 - (3 * y + x)) & 1}


def _index(cells: set[tuple[int, int]]) -> int:
    return sum(1 << (8 - (3 * y + x)) for y, x in cells)


def symmetries(index: int) -> set[int]:
    """The (up to 8) images of a 3x3 index under rotations and reflections."""
    cells = _cells(index)
    out = set()
    for _ in range(4):
        cells = {(x, 2 - y) for y, x in cells}  # rotate 90 degrees
        out.add(_index(cells))
        out.add(_index({(y, 2 - x) for y, x in cells}))  # and its mirror image
    return out


@cache
def letter_class(count: int, letter: str) -> frozenset[int]:
    """The 3x3 indices (centre bit clear) with ``count`` live neighbours named by ``letter``."""
    if count not in LETTERS or len(letter) != 1 or letter not in LETTERS[count]:
        raise UsageError(f"{letter!r} is not a Hensel letter of count {count} (valid: {LETTERS.get(count) or 'none'})")
    if count <= 4:
        rep = _REPRESENTATIVES[count][LETTERS[count].index(letter)]
    else:  # Golly: counts 5..7 are the complements (centre kept clear) of counts 3..1
        rep = _REPRESENTATIVES[8 - count][LETTERS[count].index(letter)] ^ 0x1EF
    return frozenset(symmetries(rep))


def canonical_letters(count: int, letters: frozenset[str]) -> str | None:
    """Golly's spelling of the letters kept at ``count``: ``""`` when all are kept (plain digit),
    ``None`` when none are (the digit is dropped), else sorted letters or ``-`` + the sorted
    complement. Golly uses ``-`` when more than half the letters are kept, except that count 4
    with 7 of its 13 letters stays positive (``liferules::addLetters``)."""
    valid = LETTERS[count]
    if not valid or set(letters) == set(valid):
        return ""
    if not letters:
        return None
    n, total = len(letters), len(valid)
    if n <= total // 2 or (total == 13 and n == 7):
        return "".join(sorted(letters))
    return "-" + "".join(sorted(set(valid) - set(letters)))
