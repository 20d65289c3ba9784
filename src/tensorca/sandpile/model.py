"""The sandpile as a value: neighbourhood, toppling threshold and where the grid lives.

A cell holding ``threshold`` grains or more *topples*: it loses ``threshold`` grains and each of its
neighbours gains one (von Neumann: 4 neighbours, Moore: 8). With ``threshold`` equal to the number
of neighbours every grain is kept, except those a plane's edge cells send off the grid (the *sink*);
a larger threshold also destroys ``threshold - neighbours`` grains per toppling (a dissipative pile,
which stabilises on a torus too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..errors import GridError, RuleError, TopologyError, UsageError
from ..topology import Topology, resolve_topology

Neighbourhood = Literal["vonneumann", "moore"]
Kind = Literal["plane", "torus"]

#: ``(dy, dx)`` of each neighbour, by neighbourhood.
STENCILS: dict[str, tuple[tuple[int, int], ...]] = {
    "vonneumann": ((-1, 0), (1, 0), (0, -1), (0, 1)),
    "moore": ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)),
}
#: The models :func:`tensorca.stabilize` knows.
MODELS = ("sandpile",)
#: Largest height accepted in an input grid: with at most 2**31 - 1 grains a cell, every height
#: reached while toppling and every total stays far inside int64.
MAX_HEIGHT = 2**31 - 1
#: Largest threshold: stable heights (``threshold - 1`` at most) fit every integer dtype from int16 up.
MAX_THRESHOLD = 2**15


class NeverStabilizesError(GridError):
    """A pile on a torus that topples forever: no grain can leave, and there are too many of them.

    ``grains`` is the pile's total, ``cells`` the grid's size.
    """

    def __init__(self, message: str, grains: int | None = None, cells: int | None = None):
        self.grains = grains
        self.cells = cells
        super().__init__(message)


@dataclass(frozen=True)
class Sandpile:
    """An Abelian sandpile: ``neighbourhood`` (``"vonneumann"`` or ``"moore"``), ``threshold`` (at
    least the number of neighbours), and ``kind``: ``"plane"`` (grains toppled off the edge are lost)
    or ``"torus"`` (opposite edges joined; no grain leaves)."""

    neighbourhood: Neighbourhood = "vonneumann"
    threshold: int = 4
    kind: Kind = "plane"

    @property
    def stencil(self) -> tuple[tuple[int, int], ...]:
        """``(dy, dx)`` of each neighbour."""
        return STENCILS[self.neighbourhood]

    @property
    def degree(self) -> int:
        """Number of neighbours: 4 or 8."""
        return len(self.stencil)

    @property
    def closed(self) -> bool:
        """True when no grain ever leaves (a torus with ``threshold == degree``): the only case in
        which a pile can topple forever."""
        return self.kind == "torus" and self.threshold == self.degree


def neighbourhood_name(neighbourhood: object) -> Neighbourhood:
    """``"vonneumann"`` or ``"moore"`` from the spellings people use (``"von Neumann"``,
    ``"von-neumann"``, ``"vn"``, ``"Moore"``); :class:`UsageError` otherwise."""
    if not isinstance(neighbourhood, str):
        raise UsageError(f"neighbourhood must be 'vonneumann' or 'moore', got {neighbourhood!r}")
    key = "".join(ch for ch in neighbourhood.lower() if ch.isalnum())
    if key in ("vonneumann", "vn", "neumann"):
        return "vonneumann"
    if key == "moore":
        return "moore"
    raise UsageError(f"unknown neighbourhood {neighbourhood!r}: use 'vonneumann' (4 neighbours, threshold 4) "
                     "or 'moore' (8 neighbours, threshold 8)")


def check_threshold(threshold: object, neighbourhood: Neighbourhood) -> int:
    """``threshold`` checked (None: the number of neighbours); :class:`UsageError` below that number,
    where toppling would create grains and no pile need ever stabilise."""
    degree = len(STENCILS[neighbourhood])
    if threshold is None:
        return degree
    if isinstance(threshold, bool) or not isinstance(threshold, int) and not hasattr(threshold, "__index__"):
        raise UsageError(f"threshold must be an integer, got {threshold!r}")
    value = int(threshold)  # type: ignore[call-overload]
    if not degree <= value <= MAX_THRESHOLD:
        raise UsageError(f"threshold must lie in {degree}..{MAX_THRESHOLD} for the {neighbourhood} neighbourhood "
                         f"({degree} neighbours; a smaller threshold creates grains), got {value}")
    return value


def check_model(model: object) -> None:
    """:class:`RuleError` unless ``model`` names a model :func:`tensorca.stabilize` knows."""
    if not isinstance(model, str) or model.strip().lower() not in MODELS:
        raise RuleError(f"unknown model {model!r}; stabilize knows {', '.join(repr(m) for m in MODELS)}")


def topology_kind(topology: object, shape: tuple[int, int]) -> Kind:
    """``"plane"`` or ``"torus"`` from a kind name, a Golly suffix (``":P64,64"``) or a
    :class:`~tensorca.topology.Topology` of the grid's ``shape`` ``(H, W)``.

    Sandpiles live on a bounded plane (grains fall off the edge) or an unshifted torus;
    anything else raises :class:`TopologyError`.
    """
    if isinstance(topology, str) and topology.strip().lower() in ("plane", "torus"):
        return topology.strip().lower()  # type: ignore[return-value]
    if not isinstance(topology, (str, Topology)):
        raise TopologyError(f"topology must be 'plane', 'torus', a Golly suffix or a Topology, not {topology!r}")
    value = resolve_topology(topology, shape)
    assert value is not None  # a string or Topology never resolves to None
    if value.kind not in ("plane", "torus") or not value.simple:
        raise TopologyError(f"sandpiles run on a bounded plane or an unshifted torus, not {value.kind} "
                            f"{value!r}")
    if (value.height, value.width) != shape:
        raise TopologyError(f"topology {value.kind} {value.width}x{value.height} (width x height) does not match "
                            f"the grid's {shape[1]}x{shape[0]}")
    return value.kind  # type: ignore[return-value]


def sandpile(neighbourhood: object = "vonneumann", threshold: object = None, kind: Kind = "plane") -> Sandpile:
    """A checked :class:`Sandpile` from user arguments."""
    name = neighbourhood_name(neighbourhood)
    return Sandpile(name, check_threshold(threshold, name), kind)


def too_many_grains(grains: int, cells: int, threshold: int, item: int | None = None) -> NeverStabilizesError:
    """The error for a closed torus holding more grains than any stable pile: said before toppling."""
    most = (threshold - 1) * cells
    where = "" if item is None else f"grid {item} of the batch: "
    return NeverStabilizesError(
        f"{where}{grains} grains on a {cells}-cell torus never stabilise: no grain can leave a torus, and a stable "
        f"pile holds at most {threshold - 1} a cell ({most} in all); use topology='plane', or fewer grains",
        grains, cells)


def topples_forever(grains: int, cells: int, item: int | None = None) -> NeverStabilizesError:
    """The error for a closed torus on which every cell has toppled: such a pile never stabilises.

    Why: if it did, its topple counts would be the least counts that leave it stable (the least
    action principle); with every count at least 1, the counts less one would leave the same pile
    (on a torus, toppling every cell once changes nothing), which contradicts least.
    """
    where = "" if item is None else f"grid {item} of the batch: "
    return NeverStabilizesError(
        f"{where}{grains} grains on a {cells}-cell torus topple forever: every cell has toppled, and a pile "
        "that stabilises leaves at least one cell untoppled; use topology='plane', or fewer grains",
        grains, cells)
