"""Topology values parsed from Golly's rule suffix (``:T64,64``, ``:K30*,20``, ``:S30``), and padding.

A topology is a pure value: engines receive it and pad the grid as it says; kernels never
special-case edges. The kinds (Golly's Help, "Bounded Grids"):

- ``torus``: opposite edges joined (``:Tw,h``). A NumPy array or tensor run without a topology is
  a torus of its own shape. A torus may have a shift on the horizontal edges (``:T30+5,20``,
  ``shift_x``: a cell leaving through the top comes back through the bottom ``shift_x`` columns
  to the left) or on the vertical edges (``:T30,20-2``, ``shift_y``), not both.
- ``plane``: a bounded plane; every cell outside the ``w x h`` rectangle is dead (``:Pw,h``).
- ``klein``: a Klein bottle, one pair of edges twisted (reversed) before joining: ``twist="h"``
  for the horizontal (top/bottom) edges (``:K30*,20``), ``"v"`` for the vertical ones
  (``:K30,20*``; Golly reads ``:K30,20`` as that). The twisted edges may carry a shift when that
  dimension is even (``:K30*+1,20``); every shift amount is equivalent to 1, stored as 1.
- ``cross``: a cross-surface (real projective plane), both pairs twisted (``:Cw,h``).
- ``sphere``: adjacent edges joined, top to left and right to bottom (``:Sn``, square).
- ``unbounded``: the infinite plane (a pattern file with no suffix). The reference engine grows
  its array as the pattern grows.

:func:`padding_index` is the one general padding mechanism: for every cell of the grid padded by
``radius`` it names the grid cell it copies (or "dead" on a plane), for any radius, computed once
per ``(topology, radius)``. For radius 1 it reproduces Golly's edge copying cell for cell
(``lifealgo::CreateBorderCells``). Golly copies a one-cell border only (its Larger than Life
algorithm accepts only ``:T``/``:P``), so wider borders are tensorca's extension: the Klein
bottle and shifted torus tile the plane (exact for any radius); the cross-surface and sphere,
which do not tile the plane, reflect or rotate the outside back in through the nearest edge or
corner, repeatedly for radii beyond the grid (see :func:`fold`).

Infinite tubes and strips (``:T0,20``, ``:P30,0``) parse, so the error can say exactly what was
asked for, and are rejected with :class:`TopologyError`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .errors import TopologyError, UsageError

TopologyKind = Literal["torus", "plane", "klein", "cross", "sphere", "unbounded"]
Twist = Literal["h", "v"]

KINDS = ("torus", "plane", "klein", "cross", "sphere", "unbounded")
_LETTER = {"torus": "T", "plane": "P", "klein": "K", "cross": "C", "sphere": "S"}
_NAME = {"torus": "torus", "plane": "plane", "klein": "Klein bottle", "cross": "cross-surface", "sphere": "sphere"}

# Golly caps bounded grids at 2e9 cells a side.
MAX_SIDE = 2_000_000_000

_SUFFIX = re.compile(
    r"""^(?P<kind>[A-Za-z])
        (?:(?P<w>[0-9]+)(?P<wtwist>\*)?(?P<wshift>[+-][0-9]+)?
           (?:,(?P<h>[0-9]+)(?P<htwist>\*)?(?P<hshift>[+-][0-9]+)?)?)?$""",
    re.VERBOSE,
)

@dataclass(frozen=True)
class Topology:
    """Where a grid lives: ``kind`` plus ``width`` x ``height`` for the bounded kinds.

    ``width`` and ``height`` are ``None`` for ``unbounded``. ``twist`` (``"h"`` or ``"v"``) is
    set for a Klein bottle only; ``shift_x`` (horizontal edges) and ``shift_y`` (vertical edges)
    for a torus (Golly's amount: ``|shift| < size``, sign kept) or a Klein bottle (1 on its
    twisted, even dimension). Invalid combinations raise :class:`TopologyError`.
    """

    kind: TopologyKind
    width: int | None = None
    height: int | None = None
    twist: Twist | None = None
    shift_x: int = 0
    shift_y: int = 0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise TopologyError(f"unknown topology kind {self.kind!r}; expected one of {', '.join(KINDS)}")
        if self.kind == "unbounded":
            if self.width is not None or self.height is not None:
                raise TopologyError("an unbounded plane has no width or height")
            if self.twist is not None or self.shift_x or self.shift_y:
                raise TopologyError("an unbounded plane has no twist or shift")
            return
        for name, value in (("width", self.width), ("height", self.height)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise TopologyError(f"{self.kind} {name} must be a positive integer, got {value!r}")
            if value > MAX_SIDE:
                raise TopologyError(f"{self.kind} {name} {value} exceeds Golly's maximum of {MAX_SIDE}")
        for name, value in (("shift_x", self.shift_x), ("shift_y", self.shift_y)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise TopologyError(f"{name} must be an integer, got {value!r}")
        name = _NAME[self.kind]
        if self.kind == "klein":
            if self.twist not in ("h", "v"):
                raise TopologyError(f"a Klein bottle needs twist='h' (:K30*,20) or 'v' (:K30,20*), got {self.twist!r}")
        elif self.twist is not None:
            raise TopologyError(f"a twist is only meaningful for a Klein bottle (:K), not a {name}")
        if self.shift_x and self.shift_y:
            raise TopologyError(
                f"a {name} can have a shift on the horizontal edges or on the vertical edges, not both "
                f"(shift_x={self.shift_x}, shift_y={self.shift_y})"
            )
        if (self.shift_x or self.shift_y) and self.kind not in ("torus", "klein"):
            raise TopologyError(f"a {name} can't have a shift (Golly shifts only tori and Klein bottles)")
        assert self.width is not None and self.height is not None
        if self.kind == "torus":
            if abs(self.shift_x) >= self.width or abs(self.shift_y) >= self.height:
                raise TopologyError(
                    f"torus shift must be smaller than the edge it shifts: shift_x={self.shift_x} on width "
                    f"{self.width}, shift_y={self.shift_y} on height {self.height} (parse_topology reduces it)"
                )
        if self.kind == "klein":
            shifts = (self.shift_x, self.shift_y)
            twisted_shift, other_shift = shifts if self.twist == "h" else shifts[::-1]
            side, dim = (self.width, "width") if self.twist == "h" else (self.height, "height")
            if other_shift:
                raise TopologyError("a Klein bottle can only have a shift on its twisted edges")
            if twisted_shift not in (0, 1):
                raise TopologyError(
                    f"a Klein bottle's shift is 0 or 1 (every shift is equivalent to 1), got {twisted_shift}")
            if twisted_shift and side % 2:
                raise TopologyError(
                    f"a Klein bottle can only have a shift on its twisted edges when that dimension is even; "
                    f"{dim} is {side}"
                )
        if self.kind == "sphere" and self.width != self.height:
            raise TopologyError(f"a sphere must be square (Golly's :S{self.width}), got {self.width}x{self.height}")

    @property
    def bounded(self) -> bool:
        """True for every kind but ``unbounded`` (a fixed ``height x width`` array)."""
        return self.kind != "unbounded"

    @property
    def simple(self) -> bool:
        """True for an unshifted torus and a bounded plane: padding is a plain wrap or zeros.

        Engines whose kernels wrap or zero-pad (``np.pad``, ``F.pad``, bit-packed edge words) run
        exactly these; everything else pads through :func:`padding_index`.
        """
        return self.kind == "plane" or (self.kind == "torus" and not self.shift_x and not self.shift_y)

    @property
    def shape(self) -> tuple[int, int]:
        """``(height, width)`` of the grid; raises for the unbounded plane."""
        if not self.bounded:
            raise TopologyError("the unbounded plane has no fixed shape")
        assert self.width is not None and self.height is not None
        return (self.height, self.width)

    def suffix(self) -> str:
        """Golly's canonical suffix (``lifealgo::canonicalsuffix``), e.g. ``':T64,64'``, ``':K30*+1,20'``.

        Empty for the unbounded plane.
        """
        if self.kind == "unbounded":
            return ""
        w, h = self.width, self.height
        if self.kind == "sphere":
            return f":S{w}"
        if self.kind == "klein":
            if self.twist == "h":
                return f":K{w}*{'+1' if self.shift_x else ''},{h}"
            return f":K{w},{h}*{'+1' if self.shift_y else ''}"
        sx = f"{self.shift_x:+d}" if self.shift_x else ""
        sy = f"{self.shift_y:+d}" if self.shift_y else ""
        return f":{_LETTER[self.kind]}{w}{sx},{h}{sy}"

    def __str__(self) -> str:
        return self.suffix() or "unbounded"

    @classmethod
    def torus(cls, width: int, height: int, *, shift_x: int = 0, shift_y: int = 0) -> Topology:
        return cls("torus", width, height, shift_x=shift_x, shift_y=shift_y)

    @classmethod
    def plane(cls, width: int, height: int) -> Topology:
        return cls("plane", width, height)

    @classmethod
    def klein(cls, width: int, height: int, twist: Twist = "v", *, shift: bool = False) -> Topology:
        """Klein bottle with the ``"h"`` (top/bottom) or ``"v"`` (left/right) edges twisted."""
        s = 1 if shift else 0
        return cls("klein", width, height, twist, shift_x=s if twist == "h" else 0, shift_y=s if twist == "v" else 0)

    @classmethod
    def cross(cls, width: int, height: int) -> Topology:
        return cls("cross", width, height)

    @classmethod
    def sphere(cls, size: int) -> Topology:
        return cls("sphere", size, size)

    @classmethod
    def unbounded(cls) -> Topology:
        return cls("unbounded")


def _number(digits: str, suffix: str) -> int:
    """ASCII ``digits`` of ``suffix`` as an int; :class:`TopologyError` when absurdly long (Python's
    ``int`` refuses over 4300 digits with a bare ``ValueError``; every size is far below 30)."""
    if len(digits.lstrip("0")) > 30:
        raise TopologyError(f"number with {len(digits)} digits in topology suffix {suffix[:40]!r} is out of range")
    return int(digits)


def _golly_shift(text: str | None, size: int) -> int:
    """Golly's reading of ``+n``/``-n``: the magnitude reduced modulo ``size``, the sign kept."""
    if not text:
        return 0
    magnitude = _number(text[1:], text) % size
    return -magnitude if text[0] == "-" else magnitude


def parse_topology(suffix: str) -> Topology:
    """Parse a Golly topology suffix, with or without its leading ``:`` (Golly's ``setgridsize``).

    ``"T64,64"`` -> torus 64 wide, 64 high; ``":P30,20"`` -> bounded plane; ``"T30"`` means
    ``T30,30`` as in Golly; ``":T30+5,20"``/``":T30,20-2"`` shifted tori; ``":K30*,20"``,
    ``":K30,20*"`` (also ``":K30,20"``), ``":K30*+1,20"`` Klein bottles; ``":C30,20"``
    cross-surface; ``":S30"`` sphere. Raises :class:`TopologyError` naming the problem otherwise.
    """
    text = suffix[1:] if suffix.startswith(":") else suffix
    m = _SUFFIX.match(text.strip())
    if not m:
        raise TopologyError(
            f"cannot parse topology suffix {suffix!r}: expected Golly's :Tw,h (torus), :Pw,h (bounded plane), "
            f":Kw*,h / :Kw,h* (Klein bottle), :Cw,h (cross-surface) or :Sn (sphere)"
        )
    letter = m["kind"].upper()
    kinds = {v: k for k, v in _LETTER.items()}
    if letter not in kinds:
        raise TopologyError(
            f"unknown topology letter {m['kind']!r} in {suffix!r}: Golly knows P, T, K, C and S"
        )
    kind = kinds[letter]
    name = _NAME[kind]
    if m["w"] is None:
        raise TopologyError(f"topology {suffix!r} needs a size, e.g. :{letter}64,64")
    width = _number(m["w"], suffix)
    height = _number(m["h"], suffix) if m["h"] is not None else width
    if width == 0 or height == 0:
        raise TopologyError(
            f"{suffix!r} has an infinite dimension (0), which Golly allows for tubes and strips; "
            f"tensorca needs both width and height for :{letter}, or no suffix for the unbounded plane"
        )
    _check_edges(m, suffix, kind, name)
    if kind == "sphere":
        if m["h"] is not None and height != width:
            raise TopologyError(
                f"a sphere must be square: {suffix!r} has width {width} and height {height}; write :S{width}")
        return Topology.sphere(width)
    if kind == "klein":
        return _klein(m, suffix, width, height)
    if kind == "plane":
        return Topology.plane(width, height)
    if kind == "cross":
        return Topology.cross(width, height)
    shift_x, shift_y = _golly_shift(m["wshift"], width), _golly_shift(m["hshift"], height)
    return Topology.torus(width, height, shift_x=shift_x, shift_y=shift_y)


def _check_edges(m: re.Match, suffix: str, kind: str, name: str) -> None:
    """Twists only on Klein bottles, on one pair of edges; shifts only on tori and Klein bottles, on one pair."""
    if (m["wtwist"] or m["htwist"]) and kind != "klein":
        raise TopologyError(f"a twist '*' is only meaningful for a Klein bottle (:K), not for the {name} {suffix!r}")
    if m["wtwist"] and m["htwist"]:
        raise TopologyError(f"a Klein bottle can't have both horizontal and vertical twists ({suffix!r}); that is :C")
    if (m["wshift"] or m["hshift"]) and kind not in ("torus", "klein"):
        raise TopologyError(f"a {name} can't have a shift ({suffix!r}); Golly shifts only :T and :K")
    if m["wshift"] and m["hshift"]:
        raise TopologyError(
            f"{suffix!r} shifts both the horizontal and the vertical edges; Golly allows one or the other")


def _klein(m: re.Match, suffix: str, width: int, height: int) -> Topology:
    """A Klein bottle from a parsed suffix: the twist where the ``*`` is (default vertical), a shift only there."""
    twist: Twist = "h" if m["wtwist"] else "v"
    if (m["wshift"] and twist != "h") or (m["hshift"] and twist != "v"):
        raise TopologyError(f"a Klein bottle's shift must be on its twisted edges, the ones marked '*' ({suffix!r})")
    size = width if twist == "h" else height
    amount = _golly_shift(m["wshift"] or m["hshift"], size)
    if amount and size % 2:
        dim = "width" if twist == "h" else "height"
        raise TopologyError(
            f"a Klein bottle can only have a shift on its twisted edges when that dimension is even; "
            f"{suffix!r} has {dim} {size}"
        )
    return Topology.klein(width, height, twist, shift=bool(amount))


# -- padding -------------------------------------------------------------------------------


def resolve_topology(topology: str | Topology | None, shape: tuple[int, int] | None = None) -> Topology | None:
    """A topology value from a Golly suffix (``":T64,64"``, ``"T64,64"``), a kind name or a value.

    The kind names ``"torus"`` and ``"plane"`` take their size from ``shape`` ``(H, W)``;
    ``"unbounded"`` (or ``"infinite"``) is the unbounded plane; ``None`` stays ``None``.
    """
    if topology is None or isinstance(topology, Topology):
        return topology
    if not isinstance(topology, str):
        raise UsageError(f"topology must be a suffix string or a Topology, not {type(topology).__name__}")
    name = topology.strip().lower()
    if name in ("torus", "plane"):
        if shape is None:
            raise TopologyError(f"topology {topology!r} needs a size here; give a suffix such as ':T64,64'")
        return Topology(name, shape[1], shape[0])  # type: ignore[arg-type]
    if name in ("unbounded", "infinite", ""):
        return Topology.unbounded()
    return parse_topology(topology)


def fold(topology: Topology, ys: np.ndarray, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Map cells ``(ys, xs)`` (any integers, inside the grid or out) to the grid cells they are.

    Returns ``(rows, cols, valid)``, int64 arrays in range and a bool array, of the broadcast
    shape; ``valid`` is False only on a plane, outside the grid (a dead cell; rows/cols are 0).

    - torus (shifted or not) and Klein bottle: the grid tiles the plane; leaving through the
      top (``y < 0``) or bottom re-enters through the opposite edge, ``x`` moved by ``-shift_x``
      (top) or ``+shift_x`` (bottom), or reflected on a twisted edge: ``x -> c - x`` with
      ``c = W - 1``, or ``W - 2`` for Golly's shifted twist (``lifealgo::JoinTwistedAndShiftedEdges``
      reflects, then moves one cell left); left/right the same with ``x`` and ``y`` exchanged.
    - cross-surface: through the left or right edge (``y`` reflected), then the top or bottom
      edge (``x`` reflected). Beyond one corner the two orders agree; in particular the cell
      diagonally outside a corner is the corner cell itself, as in Golly.
    - sphere (``n x n``): the top edge is the left edge, the bottom edge the right edge. Outside
      the top, ``(y, x) -> (x, -1 - y)``, a quarter turn about the top-left corner; outside the
      left, the opposite quarter turn; outside the top-left corner a half turn; the same about
      the bottom-right corner; outside the top-right or bottom-left corner a half turn about that
      corner (those two corners are one point). Repeated until inside, for radii beyond ``n``.
    """
    if not topology.bounded:
        raise TopologyError("the unbounded plane has no padding")
    height, width = topology.shape
    ys, xs = np.broadcast_arrays(np.asarray(ys, dtype=np.int64), np.asarray(xs, dtype=np.int64))
    ys, xs = ys.copy(), xs.copy()
    kind = topology.kind
    if kind == "plane":
        valid = (ys >= 0) & (ys < height) & (xs >= 0) & (xs < width)
        return np.where(valid, ys, 0), np.where(valid, xs, 0), valid
    valid = np.ones(ys.shape, dtype=bool)
    if kind in ("torus", "klein"):
        return (*_fold_tiled(topology, ys, xs), valid)
    if kind == "cross":
        return (*_fold_cross(height, width, ys, xs), valid)
    return (*_fold_sphere(topology, ys, xs), valid)


def _fold_tiled(topology: Topology, ys: np.ndarray, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Torus (shifted or not) and Klein bottle: the grid tiles the plane (see :func:`fold`)."""
    height, width = topology.shape
    kind = topology.kind
    # Reduce y first: every crossing of the horizontal edges shifts or reflects x.
    turns_y = np.floor_divide(ys, height)
    ys -= turns_y * height
    if kind == "klein" and topology.twist == "h":
        c = width - 1 - topology.shift_x
        xs = np.where(turns_y % 2 == 1, c - xs, xs)
    else:
        xs += turns_y * topology.shift_x
    turns_x = np.floor_divide(xs, width)
    xs -= turns_x * width
    if kind == "klein" and topology.twist == "v":
        c = height - 1 - topology.shift_y
        ys = np.where(turns_x % 2 == 1, c - ys, ys)
    else:
        ys += turns_x * topology.shift_y
    ys %= height
    return ys, xs


def _fold_cross(height: int, width: int, ys: np.ndarray, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cross-surface: through the left or right edge (y reflected), then the top or bottom (x reflected)."""
    turns_x = np.floor_divide(xs, width)
    xs -= turns_x * width
    ys = np.where(turns_x % 2 == 1, height - 1 - ys, ys)
    turns_y = np.floor_divide(ys, height)
    ys -= turns_y * height
    xs = np.where(turns_y % 2 == 1, width - 1 - xs, xs)
    return ys, xs


def _fold_sphere(topology: Topology, ys: np.ndarray, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sphere: quarter and half turns about the corners, repeated until inside (see :func:`fold`)."""
    n = topology.shape[1]
    last = 2 * n - 1
    for _ in range(64):
        above, below = ys < 0, ys >= n
        left, right = xs < 0, xs >= n
        if not (above.any() or below.any() or left.any() or right.any()):
            return ys, xs
        y0, x0 = ys.copy(), xs.copy()
        inside_x, inside_y = ~left & ~right, ~above & ~below
        # quarter turns about the top-left corner (point (-1/2, -1/2)) and bottom-right corner
        for where, ny, nx in (
            (above & inside_x, x0, -1 - y0),
            (left & inside_y, -1 - x0, y0),
            (below & inside_x, x0, last - y0),
            (right & inside_y, last - x0, y0),
            # half turns about each corner
            (above & left, -1 - y0, -1 - x0),
            (below & right, last - y0, last - x0),
            (above & right, -1 - y0, last - x0),
            (below & left, last - y0, -1 - x0),
        ):
            ys = np.where(where, ny, ys)
            xs = np.where(where, nx, xs)
    raise TopologyError(f"padding {topology} did not converge (radius far beyond the grid?)")  # pragma: no cover


@functools.lru_cache(maxsize=32)
def padding_index(topology: Topology, radius: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where each cell of the grid padded by ``radius`` comes from: ``(rows, cols, valid)``.

    Three read-only ``(H + 2r, W + 2r)`` arrays (int64, int64, bool) for a bounded
    ``topology``: padded cell ``[i, j]`` is grid cell ``[rows[i, j], cols[i, j]]``, or dead where
    ``valid`` is False (only on a plane). Any ``radius >= 0``, also beyond the grid size. So a
    padded grid is ``np.where(valid, cells[..., rows, cols], 0)``. Cached per (topology, radius).
    """
    if radius < 0:
        raise UsageError(f"radius must be non-negative, got {radius}")
    height, width = topology.shape
    ys = np.arange(-radius, height + radius, dtype=np.int64)[:, None]
    xs = np.arange(-radius, width + radius, dtype=np.int64)[None, :]
    rows, cols, valid = fold(topology, ys, xs)
    for a in (rows, cols, valid):
        a.setflags(write=False)
    return rows, cols, valid


@functools.lru_cache(maxsize=32)
def padding_ring(topology: Topology, radius: int) -> tuple[np.ndarray, np.ndarray]:
    """The border of :func:`padding_index` only, as flat indices: ``(dst, src)`` int64.

    ``padded.reshape(B, -1)[:, dst] = cells.reshape(B, -1)[:, src]`` fills the ``radius``-wide
    ring around the copied interior (``(H + 2r) * (W + 2r) - H * W`` cells, not the whole padded
    grid). For kinds where every padded cell is a grid cell (all but the plane).
    """
    height, width = topology.shape
    pw = width + 2 * radius
    ys = np.arange(-radius, height + radius, dtype=np.int64)[:, None]
    xs = np.arange(-radius, width + radius, dtype=np.int64)[None, :]
    ring = ~(((ys >= 0) & (ys < height)) & ((xs >= 0) & (xs < width)))
    ry, rx = np.nonzero(ring)
    rows, cols, valid = fold(topology, ry - radius, rx - radius)
    if not valid.all():
        raise TopologyError(f"padding_ring is for topologies without dead cells, not {topology}")
    dst = ry * pw + rx
    src = rows * width + cols
    return dst, src
