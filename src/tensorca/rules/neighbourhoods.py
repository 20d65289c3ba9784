"""Neighbourhood geometry shared by the rule parsers and the rule values.

Two kinds of geometry live here, both plain data (no parsing, no rule classes):

- the 3x3 table index of :mod:`tensorca.rules.base`: :func:`bit_of` and the bit masks of the
  Moore, von Neumann and hexagonal neighbourhoods (centre excluded) B/S and MAP rules count over;
- Golly's range-r neighbourhoods (``ltlalgo.cpp``): the 0/1 masks of :data:`SUPPORTED`, custom
  ``@<hex>`` masks, weighted ``W<hex>[,<state weights>][H]`` and Gaussian ``G`` weights, and their
  sizes. Masks and weights are ``(2r+1, 2r+1)`` arrays, row 0 the row above the cell.

Bad arguments here are programmer errors (the parsers validate user text first), so they raise
:class:`~tensorca.errors.UsageError`.
"""

from __future__ import annotations

import numpy as np

from ..errors import UsageError


def bit_of(y: int, x: int) -> int:
    """Table-index bit of 3x3 cell ``(y, x)``, ``y, x`` in 0..2: NW = 256 ... SE = 1 (reading order)."""
    return 1 << (8 - (3 * y + x))


#: 512-entry table index weights for a 3x3 window, reading order, NW = 256 ... SE = 1.
TABLE_WEIGHTS = np.array([[256, 128, 64], [32, 16, 8], [4, 2, 1]], dtype=np.int64)
#: Bit of the centre cell in a table index.
CENTRE_BIT = 16
#: Table-index bits of the eight neighbours and of the neighbourhood masks (centre excluded).
MOORE_MASK = 0x1FF & ~CENTRE_BIT
#: von Neumann: N, W, E, S.
VON_NEUMANN_MASK = bit_of(0, 1) | bit_of(1, 0) | bit_of(1, 2) | bit_of(2, 1)
#: Golly's hexagonal emulation: the Moore neighbourhood without the NE and SW corners.
HEXAGONAL_MASK = MOORE_MASK & ~bit_of(0, 2) & ~bit_of(2, 0)

NEIGHBOURHOOD_MASKS = {"M": MOORE_MASK, "V": VON_NEUMANN_MASK, "H": HEXAGONAL_MASK}
NEIGHBOURHOOD_SIZES = {"M": 8, "V": 4, "H": 6}


# -- Golly's range-r neighbourhoods (Larger than Life / HROT) --------------------------------------

MAX_RANGE = 500
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

HEX_DIGITS = "0123456789ABCDEF"


def custom_digits(radius: int) -> int:
    """Hex digits of a range-``radius`` ``N@`` neighbourhood: ``(2r+1)^2 - 1`` bits, 4 per digit."""
    return radius * (radius + 1)


def _custom_mask(spec: str, radius: int) -> np.ndarray:
    """Golly's ``read_custom``: rows top to bottom, cells left to right, most significant bit first."""
    # a final H is Golly's hexagonal-grid display hint; it does not change the counts
    digits = spec[1:].upper().removesuffix("H")
    if len(digits) != custom_digits(radius) or any(d not in HEX_DIGITS for d in digits):
        raise UsageError(f"custom neighbourhood for range {radius} needs exactly {custom_digits(radius)} "
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
        raise UsageError(f"a custom neighbourhood mask must be (2r+1, 2r+1) with r >= 1, got {mask.shape}")
    flat = [int(bool(v)) for v in mask.reshape(-1)]
    del flat[len(flat) // 2]
    return "@" + "".join(HEX_DIGITS[int("".join(map(str, flat[i : i + 4])), 2)] for i in range(0, len(flat), 4))


def split_weighted(spec: str) -> tuple[str, str | None, bool]:
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
    digits, _, _ = split_weighted(spec)
    one, two = weighted_digits(radius)
    if len(digits) not in (one, two) or any(d not in HEX_DIGITS for d in digits):
        raise UsageError(f"weighted neighbourhood for range {radius} needs exactly {one} or {two} hex "
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
    _, states, _ = split_weighted(neighbourhood)
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
        raise UsageError(f"radius must be from 1 to {MAX_RANGE}, got {radius}")
    if neighbourhood.startswith("W"):
        return _weights(neighbourhood, radius)
    if neighbourhood == "G":
        if radius > MAX_GAUSSIAN_RANGE:
            raise UsageError(f"Gaussian radius must be from 1 to {MAX_GAUSSIAN_RANGE}, got {radius}")
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
        raise UsageError(f"radius must be from 1 to {MAX_RANGE}, got {radius}")
    if neighbourhood.startswith("@"):
        mask = _custom_mask(neighbourhood, radius)
        mask[radius, radius] = 1 if include_centre else 0
        return mask
    if neighbourhood.startswith("W") or neighbourhood == "G":  # the support of the weights
        return (neighbourhood_weights(neighbourhood, radius, include_centre) != 0).astype(np.uint8)
    if neighbourhood not in SUPPORTED or neighbourhood == "W":
        raise UsageError(f"unsupported neighbourhood {neighbourhood!r}; expected one of {''.join(SUPPORTED)}")
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
