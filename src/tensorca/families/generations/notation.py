"""Golly's Generations rules: ``survival/birth/states`` (``345/2/4``, ``B2/S/3``, ``MAP.../3``).

The birth/survival part reads like a two-state rule (Hensel letters allowed with the Moore
neighbourhood); the state count (2..256) follows the second slash and may be followed by a
``V`` or ``H`` neighbourhood letter, which must end the rule. Golly writes the rule back as
``S/B/C`` with canonical Hensel letters and the neighbourhood letter last (``12/34/3H``). Golly
rejects LifeWiki's ``C``- or ``G``-prefixed count (``B2/S/C3``, ``/2/G3``); users type them, so
this parser accepts them and writes Golly's spelling back.
"""

from __future__ import annotations

from ...rules._errors import fail
from ...rules._numbers import DIGITS, whole_number
from ...rules.base import TableRule
from ..life_like.notation import compile_table, parse_bs_body, part_text
from ..map_rules.notation import is_map_generations, parse_map

#: What ``rule.family`` says of every rule parsed here.
FAMILY_NAME = "generations"
MAX_STATES = 256


def _states(src: str, start: int, end: int) -> tuple[int, str | None]:
    """Read ``<digits>[V|H]`` in ``src[start:end]``: the state count and neighbourhood letter."""
    text = src[start:end].rstrip(" ")
    nb = None
    if text and text[-1] in "vVhH":
        nb = text[-1].upper()
        text = text[:-1]
    stripped = text.strip(" ")
    lead = len(text) - len(text.lstrip(" "))
    if not stripped:
        raise fail("Generations rule needs a number of states after the second slash", src, start)
    if stripped[0] in "cCgG":
        # LifeWiki's spellings (B2/S/C3, /2/G3): Golly rejects them, but users type them.
        stripped = stripped[1:]
        lead += 1
        if not stripped:
            raise fail("Generations state count missing after the 'C'/'G' prefix", src, start + lead)
    for i, ch in enumerate(stripped):
        if ch not in DIGITS:
            raise fail(
                f"bad character {ch!r} in the Generations state count (two slashes make this a "
                "Generations rule: survival/birth/states)", src, start + lead + i)
    n = whole_number(stripped, src, start + lead, "Generations state count")
    if not 2 <= n <= MAX_STATES:
        raise fail(f"Generations state count must be from 2 to {MAX_STATES}, got {n}", src, start + lead)
    return n, nb


def parse_generations(src: str, start: int, end: int, slashes: list[int]) -> TableRule:
    """``src[start:end]`` holds exactly two slashes (or underscores) at ``slashes``."""
    s1, s2 = slashes
    if src[start:end].upper().startswith("MAP"):
        n_states, nb_suffix = _states(src, s2 + 1, end)
        if nb_suffix:
            raise fail("a MAP rule takes no neighbourhood letter", src, end - 1)
        table, nb, map_text = parse_map(src, start, s1)
        if table[0]:
            raise fail("Generations rules cannot have B0", src, start)
        return TableRule(table=table, n_states=n_states, kind="map", neighbourhood=nb,
                         text=f"{map_text}/{n_states}", generations=True, family=FAMILY_NAME)
    n_states, nb = _states(src, s2 + 1, end)
    body = parse_bs_body(src, start, s2, neighbourhood=nb or "M")
    table = compile_table(body)
    if table[0]:
        raise fail("Generations rules cannot have B0 (birth on 0 neighbours)", src, start)
    text = f"{part_text(body.survival)}/{part_text(body.birth)}/{n_states}{nb or ''}"
    if body.is_totalistic:
        return TableRule(table=table, n_states=n_states, kind="bs", neighbourhood=body.neighbourhood,
                         birth=body.counts(body.birth), survival=body.counts(body.survival),
                         text=text, generations=True, family=FAMILY_NAME)
    return TableRule(table=table, n_states=n_states, kind="hensel", text=text, generations=True, family=FAMILY_NAME)


def matches(body: str) -> bool:
    """Generations MAP rules (``MAP<base64>/<states>``) and texts with two slashes (or more: an error here)."""
    if body[:3].upper() == "MAP":
        return is_map_generations(body)
    return sum(1 for ch in body if ch in "/_") >= 2


def parse(src: str, start: int, end: int) -> TableRule:
    """A Generations rule from ``src[start:end]``; :class:`RuleError` at a third slash."""
    if src[start:end][:3].upper() == "MAP":
        last = src.rfind("/", start, end)
        return parse_generations(src, start, end, [last, last])
    slashes = [i for i in range(start, end) if src[i] in "/_"]
    if len(slashes) > 2:
        raise fail("too many slashes: B/S rules take one, Generations rules two", src, slashes[2])
    return parse_generations(src, start, end, slashes)
