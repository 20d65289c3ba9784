"""Topology values parsed from Golly's rule suffix (``:T64,64``, ``:P30,20``).

A topology is a pure value: engines receive it and pick the matching padding function; kernels
never special-case edges. Three kinds are simulated:

- ``torus``: opposite edges joined (Golly ``:Tw,h``). A NumPy array or tensor run without a
  topology is a torus of its own shape.
- ``plane``: a bounded plane; every cell outside the ``w x h`` rectangle is dead (Golly ``:Pw,h``).
- ``unbounded``: the infinite plane (a pattern file with no suffix). The reference engine grows
  its array as the pattern grows.

Golly's other suffixes (Klein bottle ``:K``, cross-surface ``:C``, sphere ``:S``, shifted tori
``:T30+5,20``, and infinite tubes/strips such as ``:T0,20``) parse, so the error can say exactly
what was asked for, and are rejected with :class:`TopologyError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from .errors import TopologyError

TopologyKind = Literal["torus", "plane", "unbounded"]

# Golly caps bounded grids at 2e9 cells a side.
MAX_SIDE = 2_000_000_000

_SUFFIX = re.compile(
    r"""^(?P<kind>[A-Za-z])
        (?:(?P<w>\d+)(?P<wtwist>\*)?(?P<wshift>[+-]\d+)?
           (?:,(?P<h>\d+)(?P<htwist>\*)?(?P<hshift>[+-]\d+)?)?)?$""",
    re.VERBOSE,
)

_UNSUPPORTED = {
    "K": "Klein bottle",
    "C": "cross-surface",
    "S": "sphere",
}


@dataclass(frozen=True)
class Topology:
    """Where a grid lives: ``kind`` plus ``width`` x ``height`` for the bounded kinds.

    ``width`` and ``height`` are ``None`` for ``unbounded``.
    """

    kind: TopologyKind
    width: int | None = None
    height: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("torus", "plane", "unbounded"):
            raise TopologyError(f"unknown topology kind {self.kind!r}; expected torus, plane or unbounded")
        if self.kind == "unbounded":
            if self.width is not None or self.height is not None:
                raise TopologyError("an unbounded plane has no width or height")
            return
        for name, value in (("width", self.width), ("height", self.height)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise TopologyError(f"{self.kind} {name} must be a positive integer, got {value!r}")
            if value > MAX_SIDE:
                raise TopologyError(f"{self.kind} {name} {value} exceeds Golly's maximum of {MAX_SIDE}")

    @property
    def bounded(self) -> bool:
        """True for torus and plane (a fixed ``height x width`` array)."""
        return self.kind != "unbounded"

    @property
    def shape(self) -> tuple[int, int]:
        """``(height, width)`` of the grid; raises for the unbounded plane."""
        if not self.bounded:
            raise TopologyError("the unbounded plane has no fixed shape")
        assert self.width is not None and self.height is not None
        return (self.height, self.width)

    def suffix(self) -> str:
        """Golly's suffix, e.g. ``':T64,64'``; empty for the unbounded plane."""
        if self.kind == "unbounded":
            return ""
        letter = "T" if self.kind == "torus" else "P"
        return f":{letter}{self.width},{self.height}"

    def __str__(self) -> str:
        return self.suffix() or "unbounded"

    @classmethod
    def torus(cls, width: int, height: int) -> "Topology":
        return cls("torus", width, height)

    @classmethod
    def plane(cls, width: int, height: int) -> "Topology":
        return cls("plane", width, height)

    @classmethod
    def unbounded(cls) -> "Topology":
        return cls("unbounded")


def parse_topology(suffix: str) -> Topology:
    """Parse a Golly topology suffix, with or without its leading ``:``.

    ``"T64,64"`` -> torus 64 wide, 64 high; ``":P30,20"`` -> bounded plane; ``"T30"`` means
    ``T30,30`` as in Golly. Raises :class:`TopologyError` naming the suffix for anything else.
    """
    text = suffix[1:] if suffix.startswith(":") else suffix
    m = _SUFFIX.match(text.strip())
    if not m:
        raise TopologyError(
            f"cannot parse topology suffix {suffix!r}: expected Golly's :Tw,h (torus) or :Pw,h (bounded plane)"
        )
    letter = m["kind"].upper()
    if letter in _UNSUPPORTED:
        raise TopologyError(
            f"topology {suffix!r} is a Golly {_UNSUPPORTED[letter]}; tensorca simulates only "
            f"the torus (:Tw,h), the bounded plane (:Pw,h) and the unbounded plane (no suffix)"
        )
    if letter not in ("T", "P"):
        raise TopologyError(
            f"unknown topology letter {m['kind']!r} in {suffix!r}: Golly knows P, T, K, C and S; "
            f"tensorca simulates :T (torus) and :P (bounded plane)"
        )
    if m["w"] is None:
        raise TopologyError(f"topology {suffix!r} needs a size, e.g. :{letter}64,64")
    if m["wtwist"] or m["htwist"]:
        raise TopologyError(f"a twist '*' is only meaningful for a Klein bottle (:K), not in {suffix!r}")
    if m["wshift"] or m["hshift"]:
        raise TopologyError(
            f"shifted tori such as {suffix!r} are not supported; use an unshifted :T{m['w']},{m['h'] or m['w']}"
        )
    width = int(m["w"])
    height = int(m["h"]) if m["h"] is not None else width
    if width == 0 or height == 0:
        raise TopologyError(
            f"{suffix!r} has an infinite dimension (0), which Golly allows for tubes and strips; "
            f"tensorca needs both width and height for :{letter}, or no suffix for the unbounded plane"
        )
    kind: TopologyKind = "torus" if letter == "T" else "plane"
    return Topology(kind, width, height)
