"""Chan's cell format (``animals.json``): run-length encoded levels 0..255, read as floats in [0, 1].

A level is ``.`` (0), one letter ``A``..``X`` (1..24) or a prefix ``p``..``y`` and a letter
(``pA`` = 25, ... ``yO`` = 255: ``(prefix - 'p') * 24 + (letter - 'A') + 25``); ``$`` ends a row;
a decimal count before a level or ``$`` repeats it (``3yO``, ``2$``); ``!`` may end the text.
Rows shorter than the widest are padded with zeros; values are divided by 255.
"""

from __future__ import annotations

import numpy as np

from ..errors import PatternError

#: At most this many cells are decoded (a creature is a few thousand).
MAX_CELLS = 1 << 24


def level(code: str) -> int:
    """The 0..255 level of one code (``"."``, ``"A"``, ``"pA"``, ``"yO"``)."""
    if code in (".", "b"):
        return 0
    if code == "o":
        return 255
    if len(code) == 1:
        return ord(code) - ord("A") + 1
    return (ord(code[0]) - ord("p")) * 24 + (ord(code[1]) - ord("A") + 25)


def _runs(text: str, source: str) -> list[tuple[int, str]]:
    """``(count, code)`` runs of ``text``; :class:`PatternError` with the column of a bad character."""
    runs: list[tuple[int, str]] = []
    pos, total = 0, 0
    while pos < len(text):
        start = pos
        while pos < len(text) and text[pos].isascii() and text[pos].isdigit():
            pos += 1
        count = int(text[start:pos]) if pos > start else 1
        if pos >= len(text):
            raise PatternError("a run count has no cell after it", 1, start + 1, source)
        ch = text[pos]
        if "p" <= ch <= "y" and pos + 1 < len(text) and "A" <= text[pos + 1] <= "X":
            code, pos = text[pos : pos + 2], pos + 2
        elif ch in ".bo$" or "A" <= ch <= "X":
            code, pos = ch, pos + 1
        elif ch == "!":
            break
        else:
            raise PatternError(f"unexpected character {ch!r} in Lenia cells", 1, pos + 1, source)
        total += count
        if total > MAX_CELLS:
            raise PatternError(f"more than {MAX_CELLS} cells", 1, start + 1, source)
        runs.append((count, code))
    return runs


def decode_cells(text: str, source: str = "<cells>", dtype: type = np.float64) -> np.ndarray:
    """``(H, W)`` floats in [0, 1] from Chan's cell string (see the module docstring)."""
    rows: list[list[int]] = [[]]
    for count, code in _runs(text.strip(), source):
        if code == "$":
            rows.extend([] for _ in range(count))
        else:
            rows[-1].extend([level(code)] * count)
    while rows and not rows[-1]:  # a final '$' ends the last row, it does not start one
        rows.pop()
    width = max((len(r) for r in rows), default=0)
    grid = np.zeros((len(rows), width), dtype=np.float64)
    for y, row in enumerate(rows):
        grid[y, : len(row)] = row
    return (grid / 255.0).astype(dtype)


def encode_cells(cells: np.ndarray) -> str:
    """Chan's cell string of ``(H, W)`` values in [0, 1] (rounded to levels 0..255), runs compressed."""
    levels = np.clip(np.rint(np.asarray(cells, dtype=np.float64) * 255), 0, 255).astype(int)
    out = []
    for row in levels:
        codes = [_code(v) for v in row]
        while codes and codes[-1] == ".":
            codes.pop()
        i = 0
        while i < len(codes):
            j = i
            while j < len(codes) and codes[j] == codes[i]:
                j += 1
            out.append((str(j - i) if j - i > 1 else "") + codes[i])
            i = j
        out.append("$")
    return "".join(out[:-1]) + "!" if out else "!"


def _code(value: int) -> str:
    if value == 0:
        return "."
    if value <= 24:
        return chr(ord("A") + value - 1)
    value -= 25
    return chr(ord("p") + value // 24) + chr(ord("A") + value % 24)
