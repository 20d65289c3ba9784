"""Golly's ``MAP`` rules: the transition table as base64 (Moore 86, hexagonal 22, von Neumann 6 chars).

Bit ``n`` of the decoded string (``n = 0`` the most significant bit of the first character) is the
outcome for the neighbourhood whose index is ``n``, with the cells weighted as in :mod:`.base`
(NW = 256 ... SE = 1, the order LifeWiki documents and Golly's Generations algorithm uses). For the
short forms the index runs over the neighbourhood's own cells in the same reading order
(hexagonal: NW N W C E S SE; von Neumann: N W C E S). Golly writes the rule back with ``==``
padding removed and the unused low bits of the last character cleared.
"""

from __future__ import annotations

from ...rules._errors import fail
from ...rules.base import TableRule
from ...rules.neighbourhoods import CENTRE_BIT, HEXAGONAL_MASK, MOORE_MASK, VON_NEUMANN_MASK

BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
#: characters -> (neighbourhood letter, cells including the centre, as a table-index mask)
_FORMS = {
    86: ("M", MOORE_MASK | CENTRE_BIT),
    22: ("H", HEXAGONAL_MASK | CENTRE_BIT),
    6: ("V", VON_NEUMANN_MASK | CENTRE_BIT),
}

#: Valid numbers of base64 characters in a MAP string (``==`` padding not counted).
MAP_LENGTHS = frozenset(_FORMS)


def _compact(index: int, mask: int) -> int:
    """Index of a 3x3 configuration among the cells of ``mask`` (highest table bit first)."""
    k = 0
    for bit in range(8, -1, -1):
        if mask >> bit & 1:
            k = (k << 1) | (index >> bit & 1)
    return k


def parse_map(src: str, start: int, end: int) -> tuple[bytes, str, str]:
    """Decode ``MAP<base64>`` in ``src[start:end]`` (``start`` at the ``M``).

    Returns ``(table, neighbourhood letter, canonical MAP text)``; ``table`` is 512 bytes of 0/1.
    """
    body_start = start + 3
    body = src[body_start:end]
    length = len(body)
    if length > 2 and body.endswith("=="):
        length -= 2
    if length not in _FORMS:
        raise fail(
            f"MAP rule needs 86 (Moore), 22 (hexagonal) or 6 (von Neumann) base64 characters, got {length}",
            src, body_start)
    for i in range(length):
        if body[i] not in BASE64:
            raise fail(f"MAP contains illegal base64 character {body[i]!r}", src, body_start + i)
    nb, mask = _FORMS[length]
    n_bits = 1 << bin(mask).count("1")
    bits = []
    for ch in body[:length]:
        v = BASE64.index(ch)
        bits.extend((v >> (5 - j)) & 1 for j in range(6))
    bits = bits[:n_bits]
    table = bytes(bits[_compact(i, mask)] for i in range(512))
    # Re-encode: Golly keeps the characters but clears the unused low bits of the last one.
    padded = bits + [0] * (-len(bits) % 6)
    chars = "".join(BASE64[int("".join(map(str, padded[i : i + 6])), 2)] for i in range(0, len(padded), 6))
    return table, nb, "MAP" + chars


def is_map_generations(body: str) -> bool:
    """Whether ``body`` (a stripped text starting ``MAP``) is a Generations MAP rule, ``MAP<base64>/<states>``:
    '/' is a base64 character, so the states are told by length: a body of a valid MAP length is a plain
    MAP; otherwise the last '/' starts the states."""
    data = len(body) - 3 - (2 if body.endswith("==") else 0)
    return data not in MAP_LENGTHS and body.rfind("/") > 3


def matches(body: str) -> bool:
    """Plain (two-state) MAP rules."""
    return body[:3].upper() == "MAP" and not is_map_generations(body)


def parse(src: str, start: int, end: int) -> TableRule:
    """A two-state MAP rule from ``src[start:end]``."""
    table, nb, canon = parse_map(src, start, end)
    return TableRule(table=table, kind="map", neighbourhood=nb, text=canon, family="map")
