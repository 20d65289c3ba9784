"""Larger than Life and HROT rules (Golly's ``ltlalgo``): range-r outer-totalistic rules.

Notations (case-insensitive, as in Golly):

- LtL ``R5,C0,M1,S34..58,B34..45,NM``: range 1..500, states ``C`` (0..256; 0, 1 and 2 all mean
  two states and Golly writes ``C0``), ``M1`` counts the centre cell, one survival and one birth
  interval, neighbourhood letter. Written back in the same form.
- Kellie Evans ``r,bmin,bmax,smin,smax``: LtL with ``C0,M1,NM``; written back as LtL.
- HROT ``R3,C2,S0,7-12,27,B8,12,20-27,N2``: count lists of values and ``a-b`` ranges, no ``M``
  (centre never counted), ``N`` optional for Moore. Written back as HROT with merged runs and
  the ``N`` part omitted for Moore (``ltlalgo::flags_string``).

Neighbourhoods (:data:`SUPPORTED`): every one Golly defines by a fixed shape, ``NM NN NC N2 N+
NX N* NB ND N# NH NA N3``, and custom ``N@<hex>`` 0/1 masks (``NH``, ``NA``, ``N3`` are Golly's
hexagonal-grid shapes in its square-grid emulation; an ``N@`` mask may end in Golly's ``H``
display hint, kept in the canonical text). Refused with a :class:`RuleError` saying why
(:data:`UNSUPPORTED`): weighted ``NW`` and Gaussian ``NG`` (weighted counts) and triangular
``NL`` / ``N@...L`` (the shape flips on alternating cells).

Counts may run from 0 to the neighbourhood size (centre excluded), plus one when ``M1``; with
``M1`` survival needs at least 1 (the live centre counts itself).
"""

from __future__ import annotations

import re

import numpy as np

from ._errors import fail
from .base import LargerThanLifeRule

MAX_RANGE = 500
MAX_STATES = 256

#: Neighbourhood letters tensorca computes, with Golly's shape for range r (``ltlalgo.cpp``
#: ``max_neighbors`` and the ``fast_*`` counting loops). ``dx`` runs right, ``dy`` down (``dy < 0``
#: is the row above, as in Golly); the centre is decided by ``M`` / HROT, not by the shape.
SUPPORTED = {
    "M": "Moore (square)",
    "N": "von Neumann (|dx|+|dy| <= r)",
    "C": "circular (dx^2+dy^2 <= r^2+r)",
    "2": "L2/Euclidean (dx^2+dy^2 <= r^2)",
    "+": "cross (dx == 0 or dy == 0)",
    "X": "saltire (|dx| == |dy|)",
    "*": "star (cross or saltire)",
    "B": "checkerboard (dx+dy odd)",
    "D": "aligned checkerboard (dx+dy even)",
    "#": "hash (|dx| == 1 or |dy| == 1)",
    "H": "hexagonal (|dx-dy| <= r: the square less its NE and SW corners)",
    "A": "asterisk (dx == 0, dy == 0 or dx == dy)",
    "3": "tripod (up, left and down-right arms)",
    "@": "custom (N@ and (2r+1)^2-1 bits in hex, reading order, centre left out)",
}
#: Golly neighbourhoods that parse but that tensorca does not compute, with the reason.
UNSUPPORTED = {
    "L": ("triangular", ("is not supported by tensorca: its shape flips on alternating cells, so it is not "
                         "one fixed 0/1 mask")),
    "G": ("Gaussian", ("is weighted, and weighted neighbourhoods are not supported by tensorca (it counts "
                       "live cells under a 0/1 mask)")),
    "W": ("weighted", ("is refused: weighted neighbourhoods are not supported by tensorca (they need "
                       "weighted counts, and it counts live cells under a 0/1 mask)")),
}

_HEX = "0123456789ABCDEF"


def custom_digits(radius: int) -> int:
    """Hex digits of a range-``radius`` ``N@`` neighbourhood: ``(2r+1)^2 - 1`` bits, 4 per digit."""
    return radius * (radius + 1)


def _custom_mask(spec: str, radius: int) -> np.ndarray:
    """Golly's ``read_custom``: rows top to bottom, cells left to right, most significant bit first."""
    # a final H is Golly's hexagonal-grid display hint; it does not change the counts
    digits = spec[1:].upper().removesuffix("H")
    if len(digits) != custom_digits(radius) or any(d not in _HEX for d in digits):
        raise ValueError(f"custom neighbourhood for range {radius} needs exactly {custom_digits(radius)} "
                         f"hex digits, got {spec[1:]!r}")
    bits = [(int(d, 16) >> k) & 1 for d in digits for k in (3, 2, 1, 0)]
    half = len(bits) // 2
    flat = np.array(bits[:half] + [0] + bits[half:], dtype=np.uint8)
    return flat.reshape(2 * radius + 1, 2 * radius + 1)


def custom_neighbourhood(mask: np.ndarray) -> str:
    """The ``@<hex>`` neighbourhood (as in ``N@<hex>``) of a square 0/1 mask; its centre is ignored."""
    mask = np.asarray(mask)
    side = mask.shape[0]
    if mask.ndim != 2 or mask.shape != (side, side) or side % 2 == 0 or side < 3:
        raise ValueError(f"a custom neighbourhood mask must be (2r+1, 2r+1) with r >= 1, got {mask.shape}")
    flat = [int(bool(v)) for v in mask.reshape(-1)]
    del flat[len(flat) // 2]
    return "@" + "".join(_HEX[int("".join(map(str, flat[i : i + 4])), 2)] for i in range(0, len(flat), 4))


def neighbourhood_mask(neighbourhood: str, radius: int, include_centre: bool) -> np.ndarray:
    """``(2r+1, 2r+1)`` ``uint8`` 0/1 mask of Golly's range-``radius`` neighbourhood.

    ``neighbourhood`` is one of the :data:`SUPPORTED` letters, or ``"@<hex>"`` for a custom
    neighbourhood (optionally ending in Golly's ``H`` display hint); row 0 is the row above
    the cell (``dy = -r``). The centre is set iff ``include_centre``.
    """
    if not 1 <= radius <= MAX_RANGE:
        raise ValueError(f"radius must be from 1 to {MAX_RANGE}, got {radius}")
    if neighbourhood.startswith("@"):
        mask = _custom_mask(neighbourhood, radius)
        mask[radius, radius] = 1 if include_centre else 0
        return mask
    if neighbourhood not in SUPPORTED:
        raise ValueError(f"unsupported neighbourhood {neighbourhood!r}; expected one of {''.join(SUPPORTED)}")
    r = radius
    dy, dx = np.mgrid[-r : r + 1, -r : r + 1]
    d2 = dx * dx + dy * dy
    cross = (dx == 0) | (dy == 0)
    saltire = np.abs(dx) == np.abs(dy)
    shape = {
        "M": lambda: np.ones_like(dx, dtype=bool),
        "N": lambda: np.abs(dx) + np.abs(dy) <= r,
        "C": lambda: d2 <= r * r + r,
        "2": lambda: d2 <= r * r,
        "+": lambda: cross,
        "X": lambda: saltire,
        "*": lambda: cross | saltire,
        "B": lambda: (dx + dy) % 2 == 1,
        "D": lambda: (dx + dy) % 2 == 0,
        "#": lambda: (np.abs(dx) == 1) | (np.abs(dy) == 1),
        "H": lambda: np.abs(dx - dy) <= r,
        "A": lambda: cross | (dx == dy),
        "3": lambda: ((dx == 0) & (dy <= 0)) | ((dy == 0) & (dx <= 0)) | ((dx == dy) & (dx >= 0)),
    }[neighbourhood]()
    mask = shape.astype(np.uint8)
    mask[r, r] = 1 if include_centre else 0
    return mask


def neighbourhood_size(neighbourhood: str, radius: int) -> int:
    """Number of cells in the neighbourhood, centre excluded (Golly's ``max_neighbors``)."""
    return int(neighbourhood_mask(neighbourhood, radius, False).sum())


_INT = re.compile(r"\d+")


def _fields(src: str, start: int, end: int) -> list[tuple[str, int]]:
    out, pos = [], start
    for piece in src[start:end].split(","):
        out.append((piece.upper(), pos))
        pos += len(piece) + 1
    return out


def _int(src: str, text: str, pos: int, what: str) -> int:
    if not _INT.fullmatch(text):
        raise fail(f"{what} must be a whole number, got {text!r}", src, pos)
    return int(text)


def _interval(src: str, text: str, pos: int, sep: str, what: str) -> tuple[int, int]:
    if sep in text:
        a, b = text.split(sep, 1)
        lo = _int(src, a, pos, what)
        hi = _int(src, b, pos + len(a) + len(sep), what)
        if lo > hi:
            raise fail(f"{what} interval {lo}{sep}{hi} is reversed (minimum above maximum)", src, pos)
        return lo, hi
    v = _int(src, text, pos, what)
    return v, v


_SUPPORTED_TEXT = ", ".join("N" + k for k in SUPPORTED if k != "@") + ", N@<hex>"


def _neighbourhood(src: str, text: str, pos: int) -> str:
    """The neighbourhood of an upper-cased ``N...`` field: a letter, or ``@<hex>`` (``H`` hint kept)."""
    spec = text[1:]
    if len(spec) == 1 and spec in SUPPORTED and spec != "@":
        return spec
    if spec[:1] == "@":
        end = 1
        while end < len(spec) and spec[end] in _HEX:
            end += 1
        tail = spec[end:]
        if tail == "L":
            raise fail(f"Golly's custom neighbourhood on the triangular grid (N@...L) {UNSUPPORTED['L'][1]}",
                       src, pos + 1 + end)
        if tail not in ("", "H"):
            raise fail(f"unexpected {tail[0]!r} in custom neighbourhood N@ (hex digits, then optionally H)",
                       src, pos + 1 + end)
        return spec
    if spec[:1] in UNSUPPORTED:
        name, why = UNSUPPORTED[spec[0]]
        raise fail(f"Golly's {name} neighbourhood N{spec[0]} {why} "
                   f"(supported: {_SUPPORTED_TEXT})", src, pos)
    raise fail(f"unknown neighbourhood {text!r} (supported: {_SUPPORTED_TEXT})", src, pos)


def _check_custom(src: str, nb: str, r: int, npos: int) -> None:
    if nb.startswith("@"):
        got, need = len(nb) - 1 - nb.endswith("H"), custom_digits(r)
        if got != need:
            raise fail(f"custom neighbourhood N@ for range R{r} needs exactly {need} hex digits "
                       f"((2r+1)^2-1 = {4 * need} cells, 4 per digit), got {got}", src, npos + 2)


def _check(src: str, intervals: list[tuple[int, int, int]], lo: int, hi: int, what: str, why: str) -> None:
    for a, b, pos in intervals:
        for v in (a, b):
            if not lo <= v <= hi:
                raise fail(f"{what} count {v} is out of range {lo}..{hi} ({why})", src, pos)


def _runs(values: list[tuple[int, int, int]]) -> tuple[tuple[int, int], ...]:
    """Merge intervals into sorted maximal runs of consecutive counts."""
    counts = sorted({v for a, b, _ in values for v in range(a, b + 1)})
    runs: list[list[int]] = []
    for v in counts:
        if runs and v == runs[-1][1] + 1:
            runs[-1][1] = v
        else:
            runs.append([v, v])
    return tuple((a, b) for a, b in runs)


def _runs_text(runs: tuple[tuple[int, int], ...]) -> str:
    return ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in runs)


def parse_ltl(src: str, start: int, end: int) -> LargerThanLifeRule:
    """Parse ``src[start:end]`` in LtL, Kellie Evans or HROT notation."""
    fields = _fields(src, start, end)
    if len(fields) == 5 and all(_INT.fullmatch(f) for f, _ in fields):  # Kellie Evans
        r, b1, b2, s1, s2 = (int(f) for f, _ in fields)
        p = [pos for _, pos in fields]
        return _build_ltl(src, r, p[0], 0, p[0], 1, [(s1, s2, p[3])], [(b1, b2, p[1])], "M", p[0])
    if len(fields) < 2 or not fields[0][0].startswith("R"):
        raise fail("Larger than Life rule must start with R<range>,C<states>", src, start)
    r = _int(src, fields[0][0][1:], fields[0][1] + 1, "range R")
    if not fields[1][0].startswith("C"):
        raise fail("expected C<states> after the range", src, fields[1][1])
    c = _int(src, fields[1][0][1:], fields[1][1] + 1, "state count C")
    rest = fields[2:]
    if rest and rest[0][0].startswith("M"):  # LtL
        if len(rest) > 4 and rest[3][0].startswith("N"):
            _neighbourhood(src, *rest[3])  # a weighted NW...,<state weights> says why it is refused
        if len(rest) != 4:
            raise fail("LtL rule must be R<r>,C<c>,M<m>,S<min>..<max>,B<min>..<max>,N<n>", src, start)
        (mt, mp), (st, sp), (bt, bp), (nt, np_) = rest
        m = _int(src, mt[1:], mp + 1, "M")
        if m not in (0, 1):
            raise fail(f"M must be 0 or 1, got {m}", src, mp + 1)
        for text, pos, letter in ((st, sp, "S"), (bt, bp, "B"), (nt, np_, "N")):
            if not text.startswith(letter):
                raise fail(f"expected {letter} here", src, pos)
        if ".." not in st or ".." not in bt:
            raise fail("LtL intervals are written min..max", src, sp if ".." not in st else bp)
        s1, s2 = _interval(src, st[1:], sp + 1, "..", "survival")
        b1, b2 = _interval(src, bt[1:], bp + 1, "..", "birth")
        nb = _neighbourhood(src, nt, np_)
        return _build_ltl(src, r, fields[0][1], c, fields[1][1], m, [(s1, s2, sp + 1)], [(b1, b2, bp + 1)], nb, np_)
    return _parse_hrot(src, r, fields[0][1], c, fields[1][1], rest, end)


def _common(src: str, r: int, rpos: int, c: int, cpos: int) -> int:
    if not 1 <= r <= MAX_RANGE:
        raise fail(f"range R{r} is out of range 1..{MAX_RANGE}", src, rpos)
    if not 0 <= c <= MAX_STATES:
        raise fail(f"state count C{c} is out of range 0..{MAX_STATES}", src, cpos)
    return max(2, c)


def _short(nb: str) -> str:
    return nb if len(nb) <= 12 else nb[:9] + "..."


def _build_ltl(src, r, rpos, c, cpos, m, surv, birth, nb, npos) -> LargerThanLifeRule:
    n_states = _common(src, r, rpos, c, cpos)
    _check_custom(src, nb, r, npos)
    maxn = neighbourhood_size(nb, r)
    why = f"N{_short(nb)} range {r} has {maxn} cells" + (" plus the centre" if m else "")
    _check(src, surv, m, maxn + m, "survival", why)
    _check(src, birth, 0, maxn + m, "birth", why)
    (s1, s2, _), (b1, b2, bpos) = surv[0], birth[0]
    if b1 == 0 and n_states > 2:
        raise fail("B0 is not allowed with more than 2 states", src, bpos)
    cc = c if c > 2 else 0
    text = f"R{r},C{cc},M{m},S{s1}..{s2},B{b1}..{b2},N{nb}"
    return LargerThanLifeRule(radius=r, n_states=n_states, include_centre=bool(m), survival=((s1, s2),),
                              birth=((b1, b2),), neighbourhood=nb, text=text)


def _parse_hrot(src, r, rpos, c, cpos, rest, end) -> LargerThanLifeRule:
    if not rest or not rest[0][0].startswith("S"):
        raise fail("expected S<counts> after C<states>", src, rest[0][1] if rest else end)
    surv: list[tuple[int, int, int]] = []
    birth: list[tuple[int, int, int]] = []
    target, nb, npos, seen_b = surv, "M", end, False
    for i, (text, pos) in enumerate(rest):
        item, ipos = text, pos
        if i == 0:
            item, ipos = text[1:], pos + 1
        elif text.startswith("B") and not seen_b:
            target, item, ipos, seen_b = birth, text[1:], pos + 1, True
        elif text.startswith("N"):
            if not seen_b:
                raise fail("missing B<counts> before the neighbourhood", src, pos)
            nb, npos = _neighbourhood(src, text, pos), pos
            if i != len(rest) - 1:
                raise fail("the neighbourhood must end the rule", src, rest[i + 1][1])
            break
        if item == "":
            if (i == 0 or target is birth and text.startswith("B")):
                continue  # an empty list ("S,B3")
            raise fail("empty count in list", src, ipos)
        lo, hi = _interval(src, item, ipos, "-", "survival" if target is surv else "birth")
        target.append((lo, hi, ipos))
    if not seen_b:
        raise fail("missing B<counts>", src, end)
    n_states = _common(src, r, rpos, c, cpos)
    _check_custom(src, nb, r, npos)
    maxn = neighbourhood_size(nb, r)
    why = f"N{_short(nb)} range {r} has {maxn} cells"
    _check(src, surv, 0, maxn, "survival", why)
    _check(src, birth, 0, maxn, "birth", why)
    s_runs, b_runs = _runs(surv), _runs(birth)
    if b_runs and b_runs[0][0] == 0 and n_states > 2:
        raise fail("B0 is not allowed with more than 2 states", src, birth[0][2])
    cc = c if c > 2 else 0
    text = f"R{r},C{cc},S{_runs_text(s_runs)},B{_runs_text(b_runs)}" + ("" if nb == "M" else f",N{nb}")
    return LargerThanLifeRule(radius=r, n_states=n_states, include_centre=False, survival=s_runs,
                              birth=b_runs, neighbourhood=nb, text=text)
