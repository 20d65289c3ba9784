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
NX N* NB ND N# NH NA N3``, custom ``N@<hex>`` 0/1 masks (``NH``, ``NA``, ``N3`` are Golly's
hexagonal-grid shapes in its square-grid emulation; an ``N@`` mask may end in Golly's ``H``
display hint, kept in the canonical text), and the weighted ones (``ltlalgo.cpp`` ``read_weighted``,
``fast_Weighted``, ``fast_Gaussian``):

- ``NW<hex>[,<state weights>][H]``: one signed weight per cell of the whole ``(2r+1)^2`` square,
  centre included, reading order; one hex digit per weight (``0-7`` = 0..7, ``8-F`` = -0..-7: the
  high bit is a sign) or two (``00-7F`` = 0..127, ``80-FF`` = -0..-127). The count is the sum of
  the weights of the state-1 cells (the centre's own weight included, whatever ``M`` says). The
  optional ``,<hex>`` gives one weight 0..15 per state (``max(2, C)`` digits): then every cell adds
  its position weight times the weight of its state, dead cells included.
- ``NG``: Gaussian, range 1..50: cell ``(dx, dy)`` weighs ``(r+1-|dx|) * (r+1-|dy|)``, the centre
  ``(r+1)^2`` (plus 1 with ``M1``, as Golly's totalistic count adds it).

Refused with a :class:`RuleError` saying why (:data:`UNSUPPORTED`): triangular ``NL`` /
``N@...L`` / ``NW...L`` (the shape flips on alternating cells).

Counts may run from 0 to the neighbourhood size (centre excluded), plus one when ``M1``; with
``M1`` survival needs at least 1 (the live centre counts itself). For ``NW`` the size is the sum
of the positive weights times the largest state weight (1 without state weights), for ``NG``
``(r+1)^4`` (Golly's ``max_neighbors``). A weighted count may be negative or above every listed
count: such a cell is neither born nor survives.
"""

from __future__ import annotations

import re

import numpy as np

from ._errors import fail
from .base import LargerThanLifeRule

MAX_RANGE = 500
MAX_STATES = 256
#: Golly's ``MAXGAUSSIANRANGE``.
MAX_GAUSSIAN_RANGE = 50

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
    "W": "weighted (NW and one signed weight per cell of the (2r+1)^2 square, centre included)",
    "G": "Gaussian (weight (r+1-|dx|)*(r+1-|dy|), range 1..50)",
}
#: Golly neighbourhoods that parse but that tensorca does not compute, with the reason.
UNSUPPORTED = {
    "L": ("triangular", ("is not supported by tensorca: its shape flips on alternating cells, so it is not "
                         "one fixed 0/1 mask")),
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


def _split_weighted(spec: str) -> tuple[str, str | None, bool]:
    """``(weight digits, state-weight digits or None, H hint)`` of a ``W...`` neighbourhood."""
    body = spec[1:].upper()
    hint = body.endswith("H")
    body = body.removesuffix("H")
    digits, _, states = body.partition(",")
    return digits, (states if "," in body else None), hint


def weighted_digits(radius: int) -> tuple[int, int]:
    """Hex digits an ``NW`` neighbourhood of range ``radius`` may have: one or two per cell."""
    cells = (2 * radius + 1) ** 2
    return cells, 2 * cells


def _weights(spec: str, radius: int) -> np.ndarray:
    """Golly's ``read_weighted``: ``(2r+1, 2r+1)`` int64 weights, reading order, centre included."""
    digits, _, _ = _split_weighted(spec)
    one, two = weighted_digits(radius)
    if len(digits) not in (one, two) or any(d not in _HEX for d in digits):
        raise ValueError(f"weighted neighbourhood for range {radius} needs exactly {one} or {two} hex "
                         f"digits, got {digits!r}")
    width = len(digits) // one
    sign = 1 << (4 * width - 1)
    raw = [int(digits[i : i + width], 16) for i in range(0, len(digits), width)]
    # the top bit is a sign, not two's complement: 8 is -0, F is -7 (FF is -127)
    return np.array([-(v & (sign - 1)) if v & sign else v for v in raw], dtype=np.int64).reshape(
        2 * radius + 1, 2 * radius + 1)


def state_weights(neighbourhood: str) -> tuple[int, ...] | None:
    """The state weights (0..15, one per state) of an ``NW...,<hex>`` neighbourhood, else ``None``."""
    if not neighbourhood.startswith("W"):
        return None
    _, states, _ = _split_weighted(neighbourhood)
    return None if states is None else tuple(int(d, 16) for d in states)


def neighbourhood_weights(neighbourhood: str, radius: int, include_centre: bool) -> np.ndarray:
    """``(2r+1, 2r+1)`` int64 weight of each cell of Golly's range-``radius`` neighbourhood.

    For the 0/1 shapes it is :func:`neighbourhood_mask`. ``W<hex>`` gives its decoded weights
    (the centre as written; ``include_centre`` plays no part, as in Golly), ``G`` the Gaussian
    weights ``(r+1-|dx|)*(r+1-|dy|)``, plus 1 at the centre when ``include_centre``. The count of a
    cell is the sum of the weights of its state-1 neighbours (see :func:`state_weights` for ``NW``
    with state weights).
    """
    if not 1 <= radius <= MAX_RANGE:
        raise ValueError(f"radius must be from 1 to {MAX_RANGE}, got {radius}")
    if neighbourhood.startswith("W"):
        return _weights(neighbourhood, radius)
    if neighbourhood == "G":
        if radius > MAX_GAUSSIAN_RANGE:
            raise ValueError(f"Gaussian radius must be from 1 to {MAX_GAUSSIAN_RANGE}, got {radius}")
        line = radius + 1 - np.abs(np.arange(-radius, radius + 1, dtype=np.int64))
        weights = np.outer(line, line)
        weights[radius, radius] += 1 if include_centre else 0
        return weights
    return neighbourhood_mask(neighbourhood, radius, include_centre).astype(np.int64)


def weight_levels(weights: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """``[(value, 0/1 uint8 mask of the cells weighing value)]`` for each distinct non-zero weight.

    A weighted count is ``sum(value * count under mask)``: every engine reuses its 0/1 mask count.
    """
    weights = np.asarray(weights)
    return [(int(v), (weights == v).astype(np.uint8)) for v in np.unique(weights) if v != 0]


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
    if neighbourhood.startswith("W") or neighbourhood == "G":  # the support of the weights
        return (neighbourhood_weights(neighbourhood, radius, include_centre) != 0).astype(np.uint8)
    if neighbourhood not in SUPPORTED or neighbourhood == "W":
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
    """Number of cells in the neighbourhood, centre excluded (Golly's ``max_neighbors``).

    Weighted: the largest count, Golly's way: ``NW`` the sum of the positive weights (centre
    included) times the largest state weight (1 without), ``NG`` ``(r+1)^4``.
    """
    if neighbourhood.startswith("W"):
        weights = neighbourhood_weights(neighbourhood, radius, False)
        sw = state_weights(neighbourhood)
        return int(weights[weights > 0].sum()) * (1 if sw is None else max(sw))
    if neighbourhood == "G":
        return (radius + 1) ** 4
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


_SUPPORTED_TEXT = ", ".join("N" + k for k in SUPPORTED if k not in "@W") + ", N@<hex>, NW<hex>"


def _neighbourhood(src: str, text: str, pos: int) -> str:
    """The neighbourhood of an upper-cased ``N...`` field: a letter, or ``@<hex>`` (``H`` hint kept)."""
    spec = text[1:]
    if len(spec) == 1 and spec in SUPPORTED and spec not in "@W":
        return spec
    if spec[:1] == "W":
        end = 1
        while end < len(spec) and spec[end] in _HEX:
            end += 1
        tail = spec[end:]
        if tail == "L":
            raise fail(f"Golly's weighted neighbourhood on the triangular grid (NW...L) {UNSUPPORTED['L'][1]}",
                       src, pos + 1 + end)
        if tail not in ("", "H"):
            raise fail(f"unexpected {tail[0]!r} in weighted neighbourhood NW (hex digits, then optionally "
                       "H or ,<state weights>)", src, pos + 1 + end)
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


def _state_weights(src: str, nb: str, text: str, pos: int) -> str:
    """Append the ``,<hex>`` state weights field (upper-cased ``text`` at ``pos``) to an ``NW`` spec."""
    if not nb.startswith("W"):
        raise fail("the neighbourhood must end the rule", src, pos)
    if nb.endswith("H"):
        raise fail("state weights come before Golly's H hint (NW<weights>,<state weights>H)", src, pos)
    end = 0
    while end < len(text) and text[end] in _HEX:
        end += 1
    tail = text[end:]
    if tail == "L":
        raise fail(f"Golly's weighted neighbourhood on the triangular grid (NW...L) {UNSUPPORTED['L'][1]}",
                   src, pos + end)
    if tail not in ("", "H") or end == 0:
        raise fail("state weights are one hex digit (0..F) per state, then optionally H", src, pos + end)
    return nb + "," + text


def _check_custom(src: str, nb: str, r: int, npos: int, n_states: int = 2, rpos: int = 0) -> None:
    if nb == "G" and r > MAX_GAUSSIAN_RANGE:
        raise fail(f"range R{r} is out of range 1..{MAX_GAUSSIAN_RANGE} for the Gaussian neighbourhood NG",
                   src, rpos)
    if nb.startswith("W"):
        digits, states, _ = _split_weighted(nb)
        one, two = weighted_digits(r)
        if len(digits) not in (one, two):
            raise fail(f"weighted neighbourhood NW for range R{r} needs exactly {one} hex digits (one per "
                       f"cell of the {2 * r + 1}x{2 * r + 1} square, centre included) or {two} (two per "
                       f"cell), got {len(digits)}", src, npos + 2)
        if states is not None and len(states) != n_states:
            raise fail(f"weighted neighbourhood NW needs one state weight per state ({n_states} hex digits "
                       f"for C{n_states if n_states > 2 else '0'}), got {len(states)}",
                       src, npos + 3 + len(digits))
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
        sw_field = None
        if len(rest) == 5 and rest[3][0].startswith("N"):
            sw_field = rest.pop()  # NW<hex>,<state weights>
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
        if sw_field is not None:
            nb = _state_weights(src, nb, *sw_field)
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


def _why(nb: str, r: int, maxn: int) -> str:
    if nb.startswith("W") or nb == "G":
        return f"N{_short(nb)} range {r} counts at most {maxn}"
    return f"N{_short(nb)} range {r} has {maxn} cells"


def _build_ltl(src, r, rpos, c, cpos, m, surv, birth, nb, npos) -> LargerThanLifeRule:
    n_states = _common(src, r, rpos, c, cpos)
    _check_custom(src, nb, r, npos, n_states, rpos)
    maxn = neighbourhood_size(nb, r)
    why = _why(nb, r, maxn) + (" plus the centre" if m else "")
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
            extra = i + 1
            if nb.startswith("W") and extra < len(rest):  # NW<hex>,<state weights>
                nb, extra = _state_weights(src, nb, *rest[extra]), extra + 1
            if extra != len(rest):
                raise fail("the neighbourhood must end the rule", src, rest[extra][1])
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
    _check_custom(src, nb, r, npos, n_states, rpos)
    maxn = neighbourhood_size(nb, r)
    why = _why(nb, r, maxn)
    _check(src, surv, 0, maxn, "survival", why)
    _check(src, birth, 0, maxn, "birth", why)
    s_runs, b_runs = _runs(surv), _runs(birth)
    if b_runs and b_runs[0][0] == 0 and n_states > 2:
        raise fail("B0 is not allowed with more than 2 states", src, birth[0][2])
    cc = c if c > 2 else 0
    text = f"R{r},C{cc},S{_runs_text(s_runs)},B{_runs_text(b_runs)}" + ("" if nb == "M" else f",N{nb}")
    return LargerThanLifeRule(radius=r, n_states=n_states, include_centre=False, survival=s_runs,
                              birth=b_runs, neighbourhood=nb, text=text)
