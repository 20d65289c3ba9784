"""Larger than Life and HROT rules (Golly's ``ltlalgo``): range-r outer-totalistic rules.

Notations (case-insensitive, as in Golly):

- LtL ``R5,C0,M1,S34..58,B34..45,NM``: range 1..500, states ``C`` (0..256; 0, 1 and 2 all mean
  two states and Golly writes ``C0``), ``M1`` counts the centre cell, one survival and one birth
  interval, neighbourhood letter. Written back in the same form.
- Kellie Evans ``r,bmin,bmax,smin,smax``: LtL with ``C0,M1,NM``; written back as LtL.
- HROT ``R3,C2,S0,7-12,27,B8,12,20-27,N2``: count lists of values and ``a-b`` ranges, no ``M``
  (centre never counted), ``N`` optional for Moore. Written back as HROT with merged runs and
  the ``N`` part omitted for Moore (``ltlalgo::flags_string``).

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

#: Neighbourhood letters tensorca computes, with Golly's shape for range r (centre excluded here).
SUPPORTED = {
    "M": "Moore (square)",
    "N": "von Neumann (|dx|+|dy| <= r)",
    "C": "circular (dx^2+dy^2 <= r^2+r)",
    "2": "L2/Euclidean (dx^2+dy^2 <= r^2)",
    "+": "cross",
    "X": "saltire",
    "*": "star",
}
#: Golly neighbourhoods that parse but that tensorca does not compute.
UNSUPPORTED = {
    "H": "hexagonal", "B": "checkerboard", "D": "aligned checkerboard", "#": "hash", "@": "custom",
    "3": "tripod", "A": "asterisk", "L": "triangular", "G": "Gaussian", "W": "weighted",
}


def neighbourhood_mask(neighbourhood: str, radius: int, include_centre: bool) -> np.ndarray:
    """``(2r+1, 2r+1)`` ``uint8`` 0/1 mask of Golly's range-``radius`` neighbourhood.

    ``neighbourhood`` is one of :data:`SUPPORTED`; the centre is set iff ``include_centre``.
    """
    if neighbourhood not in SUPPORTED:
        raise ValueError(f"unsupported neighbourhood {neighbourhood!r}; expected one of {''.join(SUPPORTED)}")
    if not 1 <= radius <= MAX_RANGE:
        raise ValueError(f"radius must be from 1 to {MAX_RANGE}, got {radius}")
    r = radius
    dy, dx = np.mgrid[-r : r + 1, -r : r + 1]
    d2 = dx * dx + dy * dy
    cross = (dx == 0) | (dy == 0)
    saltire = np.abs(dx) == np.abs(dy)
    shape = {
        "M": np.ones_like(dx, dtype=bool),
        "N": np.abs(dx) + np.abs(dy) <= r,
        "C": d2 <= r * r + r,
        "2": d2 <= r * r,
        "+": cross,
        "X": saltire,
        "*": cross | saltire,
    }[neighbourhood]
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


def _neighbourhood(src: str, text: str, pos: int) -> str:
    letter = text[1:]
    if len(letter) == 1 and letter in SUPPORTED:
        return letter
    if letter[:1] in UNSUPPORTED:
        raise fail(
            f"Golly's {UNSUPPORTED[letter[0]]} neighbourhood N{letter} is not supported by tensorca "
            f"(supported: {', '.join('N' + k for k in SUPPORTED)})", src, pos)
    raise fail(f"unknown neighbourhood {text!r} (supported: {', '.join('N' + k for k in SUPPORTED)})", src, pos)


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
    return c if c > 2 else 2


def _build_ltl(src, r, rpos, c, cpos, m, surv, birth, nb, npos) -> LargerThanLifeRule:
    n_states = _common(src, r, rpos, c, cpos)
    maxn = neighbourhood_size(nb, r)
    why = f"N{nb} range {r} has {maxn} cells" + (" plus the centre" if m else "")
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
    target, nb, seen_b = surv, "M", False
    for i, (text, pos) in enumerate(rest):
        item, ipos = text, pos
        if i == 0:
            item, ipos = text[1:], pos + 1
        elif text.startswith("B") and not seen_b:
            target, item, ipos, seen_b = birth, text[1:], pos + 1, True
        elif text.startswith("N"):
            if not seen_b:
                raise fail("missing B<counts> before the neighbourhood", src, pos)
            if i != len(rest) - 1:
                raise fail("the neighbourhood must end the rule", src, rest[i + 1][1])
            nb = _neighbourhood(src, text, pos)
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
    maxn = neighbourhood_size(nb, r)
    why = f"N{nb} range {r} has {maxn} cells"
    _check(src, surv, 0, maxn, "survival", why)
    _check(src, birth, 0, maxn, "birth", why)
    s_runs, b_runs = _runs(surv), _runs(birth)
    if b_runs and b_runs[0][0] == 0 and n_states > 2:
        raise fail("B0 is not allowed with more than 2 states", src, birth[0][2])
    cc = c if c > 2 else 0
    text = f"R{r},C{cc},S{_runs_text(s_runs)},B{_runs_text(b_runs)}" + ("" if nb == "M" else f",N{nb}")
    return LargerThanLifeRule(radius=r, n_states=n_states, include_centre=False, survival=s_runs,
                              birth=b_runs, neighbourhood=nb, text=text)
