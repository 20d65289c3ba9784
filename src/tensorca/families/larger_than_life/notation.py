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
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ...rules._errors import fail
from ...rules._numbers import is_digits, whole_number
from ...rules.base import Rule
from ...rules.neighbourhoods import (
    HEX_DIGITS,
    MAX_GAUSSIAN_RANGE,
    MAX_RANGE,
    SUPPORTED,
    UNSUPPORTED,
    custom_digits,
    neighbourhood_mask,
    neighbourhood_size,
    neighbourhood_weights,
    split_weighted,
    state_weights,
    weighted_digits,
)
from ...rules.stepspec import IntervalUpdate, MaskCount, StateSpace, StepSpec, WeightedCount


@dataclass(frozen=True, eq=True)
class LargerThanLifeRule(Rule):
    """A range-``radius`` outer-totalistic rule (Golly's Larger than Life / HROT).

    The count of a cell is the number of state-1 cells under ``neighbourhood_mask()`` (which
    includes the centre cell exactly when ``include_centre``, Golly's ``M1``). A state-1 cell
    survives when its count lies in one of the inclusive ``survival`` intervals; a state-0 cell
    is born when its count lies in a ``birth`` interval. ``n_states`` >= 3 gives Generations-style
    decay exactly as in :class:`TableRule`.

    ``neighbourhood`` is Golly's letter: ``"M"`` Moore (square), ``"N"`` von Neumann (diamond),
    ``"C"`` circular, and the other shapes of ``rules.neighbourhoods.SUPPORTED``; or ``"@<hex>"`` (what
    follows ``N`` in ``N@<hex>``) for a custom 0/1 mask.

    Weighted neighbourhoods (``"W<hex>[,<hex>][H]"``, Golly's ``NW``, and ``"G"``, Gaussian)
    count a weighted sum instead: ``sum(neighbourhood_weights() * (state == 1))`` over the
    ``(2r+1)^2`` window, or, when ``state_weights()`` is not ``None``,
    ``sum(neighbourhood_weights() * state_weights()[state])`` (cells off a bounded plane are in
    state 0). For every other neighbourhood the weights are the 0/1 mask, so one definition
    covers all; ``neighbourhood_mask()`` is always the 0/1 support of the weights.
    """

    family: ClassVar[str] = "larger-than-life"

    radius: int
    n_states: int
    include_centre: bool
    survival: tuple[tuple[int, int], ...]
    birth: tuple[tuple[int, int], ...]
    neighbourhood: str = "M"
    text: str = field(default="", compare=False)

    def neighbourhood_mask(self) -> np.ndarray:
        """``(2r+1, 2r+1)`` ``uint8`` 0/1 mask of the cells counted, centre included iff ``include_centre``."""
        return neighbourhood_mask(self.neighbourhood, self.radius, self.include_centre)

    def neighbourhood_weights(self) -> np.ndarray:
        """``(2r+1, 2r+1)`` int64 weight of each cell (the 0/1 mask unless the neighbourhood is weighted)."""
        return neighbourhood_weights(self.neighbourhood, self.radius, self.include_centre)

    def state_weights(self) -> tuple[int, ...] | None:
        """Golly's ``NW...,<hex>`` weight of each state (``n_states`` values 0..15), else ``None``."""
        return state_weights(self.neighbourhood)

    @property
    def is_weighted(self) -> bool:
        """True for Golly's weighted (``NW``) and Gaussian (``NG``) neighbourhoods."""
        return self.neighbourhood.startswith("W") or self.neighbourhood == "G"

    def empty_count(self) -> int:
        """The count of a cell whose whole window is dead (non-zero only with a state-0 weight)."""
        sw = self.state_weights()
        return 0 if not sw else int(self.neighbourhood_weights().sum()) * sw[0]

    def canonical(self) -> str:
        return self.text

    def _compile(self) -> StepSpec:
        perceive: MaskCount | WeightedCount
        if self.is_weighted:
            perceive = WeightedCount(self.radius, self.neighbourhood_weights(), self.state_weights(),
                                     self.empty_count())
        else:
            perceive = MaskCount(self.radius, self.neighbourhood_mask())
        empty = self.empty_count()
        return StepSpec(
            perceive=perceive,
            update=IntervalUpdate(self.birth, self.survival),
            reach=self.radius,
            state_space=StateSpace("discrete", self.n_states),
            births_from_nothing=any(lo <= empty <= hi for lo, hi in self.birth),
        )


MAX_STATES = 256



def _fields(src: str, start: int, end: int) -> list[tuple[str, int]]:
    out, pos = [], start
    for piece in src[start:end].split(","):
        out.append((piece.upper(), pos))
        pos += len(piece) + 1
    return out


def _int(src: str, text: str, pos: int, what: str) -> int:
    return whole_number(text, src, pos, what)


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
        while end < len(spec) and spec[end] in HEX_DIGITS:
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
        while end < len(spec) and spec[end] in HEX_DIGITS:
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
    while end < len(text) and text[end] in HEX_DIGITS:
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
        digits, states, _ = split_weighted(nb)
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
    """Merge ``(lo, hi, pos)`` intervals into sorted maximal runs of consecutive counts.

    Works on the intervals, never on the counts they hold: ``S0-127254127`` is one run.
    """
    runs: list[list[int]] = []
    for lo, hi, _ in sorted(values):
        if runs and lo <= runs[-1][1] + 1:
            runs[-1][1] = max(runs[-1][1], hi)
        else:
            runs.append([lo, hi])
    return tuple((a, b) for a, b in runs)


def _runs_text(runs: tuple[tuple[int, int], ...]) -> str:
    return ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in runs)


def parse_ltl(src: str, start: int, end: int) -> LargerThanLifeRule:
    """Parse ``src[start:end]`` in LtL, Kellie Evans or HROT notation."""
    fields = _fields(src, start, end)
    if len(fields) == 5 and all(is_digits(f) for f, _ in fields):  # Kellie Evans
        r, b1, b2, s1, s2 = (_int(src, f, pos, "Kellie Evans number") for f, pos in fields)
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


_LTL = re.compile(r"\s*(R[0-9]|[0-9]+\s*,)", re.IGNORECASE | re.ASCII)


def matches(body: str) -> bool:
    """``R<r>,...`` or Kellie Evans' five comma-separated numbers."""
    return _LTL.match(body) is not None
