"""Golly's ``W<n>`` rules: a 2-D emulation of Wolfram's elementary 1-D rules.

Time runs down the rows: a dead cell is born when bit ``4*NW + 2*N + NE`` of ``n`` is set (the
three cells in the row above it, NW the high bit), and live cells stay alive. Golly accepts only
even ``n`` from 0 to 254 (an odd ``n`` would give birth on an empty row, like B0).
"""

from __future__ import annotations

from ...rules._errors import fail
from ...rules._numbers import DIGITS, whole_number
from ...rules.base import CENTRE_BIT, TableRule


def wolfram_table(n: int) -> bytes:
    """512-entry table for ``W<n>``: index NW=256, N=128, NE=64, ..., centre=16."""
    return bytes(1 if idx & CENTRE_BIT else (n >> ((idx >> 6) & 7)) & 1 for idx in range(512))


def parse_wolfram(src: str, start: int, end: int) -> TableRule:
    """``src[start:end]`` is ``W`` followed by digits (case-insensitive ``w``)."""
    digits = src[start + 1 : end]
    if not digits:
        raise fail("Wolfram rule needs a number after W", src, start + 1)
    for i, ch in enumerate(digits):
        if ch not in DIGITS:
            raise fail(f"bad character {ch!r} in Wolfram rule", src, start + 1 + i)
    n = whole_number(digits, src, start + 1, "Wolfram rule number")
    if n > 254 or n % 2:
        raise fail(
            f"Wolfram rule must be an even number from 0 to 254 as in Golly, got {n}; "
            "for odd or any elementary rule use tensorca.elementary", src, start + 1)
    return TableRule(table=wolfram_table(n), kind="wolfram", wolfram=n, text=f"W{n}", family="wolfram")


def matches(body: str) -> bool:
    """``W`` then anything (a name such as ``WireWorld`` was taken by the rule-file notation before)."""
    return body[0] in "wW"
