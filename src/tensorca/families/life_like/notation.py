"""Two-state B/S rules: outer-totalistic (Moore, ``V``, ``H``) and Hensel letters.

``parse_bs_body`` reads the birth/survival part of a rule string (also used by Generations);
``compile_table`` turns it into the 512-entry table of :mod:`.base`; ``parse_lifelike`` builds
the :class:`TableRule` with Golly's canonical spelling (``liferules::createCanonicalName``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...rules._errors import fail
from ...rules._numbers import DIGITS
from ...rules.base import TableRule
from ...rules.neighbourhoods import CENTRE_BIT, NEIGHBOURHOOD_MASKS, NEIGHBOURHOOD_SIZES
from .hensel import ALL_LETTERS, LETTERS, canonical_letters, letter_class

# Part of a rule: neighbour count -> letters kept at that count (all of LETTERS[count] = totalistic).
Part = dict[int, frozenset[str]]

_NB_NAMES = {"M": "Moore", "V": "von Neumann", "H": "hexagonal"}


@dataclass(frozen=True)
class BSBody:
    """A parsed birth/survival body: per-count letter sets and the neighbourhood letter."""

    birth: Part
    survival: Part
    neighbourhood: str  # "M", "V" or "H"

    @property
    def is_totalistic(self) -> bool:
        # a count whose letters were all negated away is simply absent
        return all(
            not v or set(v) == set(LETTERS[k]) for part in (self.birth, self.survival) for k, v in part.items()
        )

    def counts(self, part: Part) -> frozenset[int]:
        """Counts that keep at least one configuration (outer-totalistic count set when totalistic)."""
        return frozenset(k for k, v in part.items() if v or not LETTERS[k])


def _tokens(src: str, start: int, end: int) -> list[tuple[str, int]]:
    # Golly ignores spaces inside B/S rules and reads letters case-insensitively.
    return [(src[i].lower(), i) for i in range(start, end) if src[i] != " "]


def _parse_part(src: str, toks: list[tuple[str, int]], nb: str, what: str) -> Part:
    """Read ``<count>[-]<letters>...`` tokens into a :data:`Part`."""
    max_count = NEIGHBOURHOOD_SIZES[nb]
    part: dict[int, set[str]] = {}
    sign: dict[int, bool] = {}  # count -> True if written with '-'
    i = 0
    while i < len(toks):
        c, pos = toks[i]
        if c == "-":
            raise fail(f"'-' must follow a neighbour count in the {what} part", src, pos)
        if c in ALL_LETTERS:
            raise fail(f"letter {src[pos]!r} must follow a neighbour count in the {what} part", src, pos)
        if c not in DIGITS or len(c) != 1:
            raise fail(f"unexpected character {src[pos]!r} in the {what} part", src, pos)
        count = int(c)
        if count > max_count:
            raise fail(
                f"{what} count {count} is out of range 0..{max_count} for the "
                f"{_NB_NAMES[nb]} neighbourhood", src, pos)
        i += 1
        negative = i < len(toks) and toks[i][0] == "-"
        if negative:
            i += 1
        letters: list[tuple[str, int]] = []
        while i < len(toks) and toks[i][0] in ALL_LETTERS:
            letters.append(toks[i])
            i += 1
        if negative and not letters:
            raise fail(f"'-' after {what} count {count} must be followed by letters", src, toks[i - 1][1])
        if not letters:
            part[count] = set(LETTERS[count])
            continue
        if nb != "M":
            raise fail(f"Hensel letters need the Moore neighbourhood, not {_NB_NAMES[nb]}", src, letters[0][1])
        for ch, lpos in letters:
            if ch not in LETTERS[count]:
                valid = LETTERS[count] or "none"
                raise fail(
                    f"letter {src[lpos]!r} is not valid after {what} count {count} (valid letters: {valid})",
                    src, lpos)
        if count in sign and sign[count] != negative:
            raise fail(f"{what} count {count} mixes plain and negated ('-') letters", src, pos)
        sign[count] = negative
        chosen = {ch for ch, _ in letters}
        kept = set(LETTERS[count]) - chosen if negative else chosen
        part.setdefault(count, set()).update(kept)
    return {k: frozenset(v) for k, v in part.items()}


Tokens = list[tuple[str, int]]


def parse_bs_body(src: str, start: int, end: int, neighbourhood: str | None = None) -> BSBody:
    """Parse ``src[start:end]`` as Golly's B/S notation (``B3/S23``, ``23/3``, ``B3S23``, ``B2-a/S12``,
    ``B2/S013V``). With ``neighbourhood`` given (Generations) no ``V``/``H`` suffix is read here."""
    toks = _tokens(src, start, end)
    if not toks:
        raise fail("empty rule", src, start)
    nb, toks = _neighbourhood_suffix(src, toks, neighbourhood)
    birth_toks, survival_toks = _split_parts(src, toks)
    return BSBody(
        birth=_parse_part(src, birth_toks, nb, "birth"),
        survival=_parse_part(src, survival_toks, nb, "survival"),
        neighbourhood=nb,
    )


def _neighbourhood_suffix(src: str, toks: Tokens, neighbourhood: str | None) -> tuple[str, Tokens]:
    """The neighbourhood letter (a final ``V``/``H``, else ``M``) and the tokens before it."""
    nb = neighbourhood or "M"
    if neighbourhood is None and toks[-1][0] in "vh":
        nb, letter_pos = toks[-1][0].upper(), toks[-1][1]
        toks = toks[:-1]
        if not toks:
            raise fail(f"the {_NB_NAMES[nb]} neighbourhood letter {src[letter_pos]!r} needs a B/S rule "
                       "before it", src, letter_pos)
    for c, pos in toks:
        if c in "vh":
            raise fail(f"neighbourhood letter {src[pos]!r} must be at the end of the rule", src, pos)
    return nb, toks


def _split_parts(src: str, toks: Tokens) -> tuple[Tokens, Tokens]:
    """``(birth tokens, survival tokens)`` of a B/S rule, its ``B``/``S`` letters and slash removed."""
    marks: dict[str, int] = {}
    for idx, (c, pos) in enumerate(toks):
        key = "/" if c in "/_" else c
        if key in "bs/":
            if key in marks:
                name = "slash" if key == "/" else key.upper()
                raise fail(f"only one {name} allowed", src, pos)
            marks[key] = idx
    b, s, sep = marks.get("b"), marks.get("s"), marks.get("/")

    def strip_letter(seg: Tokens, letter: str) -> Tokens:
        for j, (c, pos) in enumerate(seg):
            if c == letter and j != 0:
                raise fail(f"{letter.upper()} must start its part of the rule", src, pos)
        return seg[1:] if seg and seg[0][0] == letter else seg

    if sep is not None:
        left, right = toks[:sep], toks[sep + 1 :]
        if b is not None and s is not None and (b < sep) == (s < sep):
            raise fail("B and S must be on either side of the slash", src, toks[max(b, s)][1])
        if b is None and s is None:
            parts = right, left  # Golly: plain "23/3" is S/B order
        elif (b is not None and b < sep) or (s is not None and s > sep):
            parts = strip_letter(left, "b"), strip_letter(right, "s")
        else:
            parts = strip_letter(right, "b"), strip_letter(left, "s")
        if toks[sep][0] == "_" and all(c not in ALL_LETTERS for c, _ in toks):
            raise fail("underscore is only valid in non-totalistic rules; use '/'", src, toks[sep][1])
        return parts
    if b is None and s is None:
        raise fail("rule must contain a slash or B or S", src, toks[0][1])
    if min(x for x in (b, s) if x is not None) != 0:
        raise fail("rule must start with B or S", src, toks[0][1])
    if b is not None and s is not None:
        lo, hi = sorted((b, s))
        seg1, seg2 = toks[lo + 1 : hi], toks[hi + 1 :]
        return (seg1, seg2) if b < s else (seg2, seg1)
    return (toks[1:], []) if b is not None else ([], toks[1:])


def compile_table(body: BSBody) -> bytes:
    """The 512-entry table (bytes of 0/1, index NW=256 ... SE=1) for a parsed body."""
    table = bytearray(512)
    mask = NEIGHBOURHOOD_MASKS[body.neighbourhood]
    for part, centre in ((body.birth, 0), (body.survival, CENTRE_BIT)):
        for count, letters in part.items():
            if set(letters) == set(LETTERS[count]):
                for idx in range(512):
                    if idx & CENTRE_BIT == centre and bin(idx & mask).count("1") == count:
                        table[idx] = 1
            else:
                for letter in letters:
                    for idx in letter_class(count, letter):
                        table[idx | centre] = 1
    return bytes(table)


def part_text(part: Part) -> str:
    """Golly's spelling of one part: counts ascending, Hensel letters canonicalised."""
    out = []
    for count in sorted(part):
        letters = canonical_letters(count, part[count])
        if letters is not None:
            out.append(f"{count}{letters}")
    return "".join(out)


def parse_lifelike(src: str, start: int, end: int) -> TableRule:
    """A two-state B/S or Hensel rule from ``src[start:end]``."""
    body = parse_bs_body(src, start, end)
    table = compile_table(body)
    suffix = "" if body.neighbourhood == "M" else body.neighbourhood
    text = f"B{part_text(body.birth)}/S{part_text(body.survival)}{suffix}"
    if body.is_totalistic:
        return TableRule(
            table=table, kind="bs", neighbourhood=body.neighbourhood,
            birth=body.counts(body.birth), survival=body.counts(body.survival), text=text, family="life-like")
    return TableRule(table=table, kind="hensel", neighbourhood="M", text=text, family="isotropic")


def matches(body: str) -> bool:
    """Everything the other notations left: B/S (and Hensel letters) is the last notation tried, so that a
    malformed rule is reported by the B/S parser."""
    return True
