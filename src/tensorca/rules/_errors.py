"""Small helpers shared by the rule parsers: positioned errors and the 3x3 index geometry."""

from __future__ import annotations

from ..errors import RuleError


def fail(message: str, text: str, position: int | None) -> RuleError:
    """A :class:`RuleError` naming ``text`` and the 0-based ``position`` (raise the result)."""
    return RuleError(message, text, position)


def bit_of(y: int, x: int) -> int:
    """Table-index bit of 3x3 cell ``(y, x)``, ``y, x`` in 0..2: NW = 256 ... SE = 1 (reading order)."""
    return 1 << (8 - (3 * y + x))


#: Table-index bits of the eight neighbours and of the neighbourhood masks (centre excluded).
MOORE_MASK = 0x1FF & ~0x10
#: von Neumann: N, W, E, S.
VON_NEUMANN_MASK = bit_of(0, 1) | bit_of(1, 0) | bit_of(1, 2) | bit_of(2, 1)
#: Golly's hexagonal emulation: the Moore neighbourhood without the NE and SW corners.
HEXAGONAL_MASK = MOORE_MASK & ~bit_of(0, 2) & ~bit_of(2, 0)

NEIGHBOURHOOD_MASKS = {"M": MOORE_MASK, "V": VON_NEUMANN_MASK, "H": HEXAGONAL_MASK}
NEIGHBOURHOOD_SIZES = {"M": 8, "V": 4, "H": 6}
