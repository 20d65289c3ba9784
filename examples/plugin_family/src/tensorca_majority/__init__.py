"""The majority rule family: ``Majority`` and ``MajorityR<r>``.

A cell becomes alive iff more than half of the ``(2r+1)**2`` cells of its Moore box, itself included, are
alive (two states; every bounded topology and the unbounded plane, like every tensorca family).
"""

from __future__ import annotations

import dataclasses
import re

from tensorca.errors import RuleError
from tensorca.families import Family
from tensorca.rules import Rule
from tensorca.rules.stepspec import StateSpace, StepSpec

#: Step-spec kinds of this family: perceive the live cells of the box, update by the majority threshold.
KINDS = ("majority_box", "majority")
#: Largest radius accepted (a (2r+1)^2 box of 40,401 cells: counts still fit every engine's integers).
MAX_RADIUS = 100
_TEXT = re.compile(r"majority(?:r([0-9]+))?", re.IGNORECASE | re.ASCII)


@dataclasses.dataclass(frozen=True)
class BoxCount:
    """Perceive: live cells in the ``(2 * radius + 1)`` square box, the cell itself included."""

    radius: int
    kind: str = "majority_box"


@dataclasses.dataclass(frozen=True)
class Threshold:
    """Update: alive iff the count is at least ``at_least`` (more than half of the box)."""

    at_least: int
    kind: str = "majority"


@dataclasses.dataclass(frozen=True)
class MajorityRule(Rule):
    """``MajorityR<radius>``: two states, a cell lives iff most of its box does."""

    radius: int = 1
    n_states: int = 2
    family = "majority"  # type: ignore[assignment]  # the display name tensorca's Rule protocol asks for

    def canonical(self) -> str:
        return "Majority" if self.radius == 1 else f"MajorityR{self.radius}"

    def _compile(self) -> StepSpec:
        cells = (2 * self.radius + 1) ** 2
        return StepSpec(perceive=BoxCount(self.radius), update=Threshold(cells // 2 + 1),  # type: ignore[arg-type]
                        reach=self.radius, state_space=StateSpace())


def matches(body: str) -> bool:
    """Only this family's texts: it is asked before tensorca's own notations."""
    return _TEXT.fullmatch(body) is not None


def parse(text: str, start: int, end: int) -> MajorityRule:
    """``text[start:end]`` as a majority rule; :class:`RuleError` (with the position) for a bad radius."""
    found = _TEXT.fullmatch(text, start, end)
    if found is None:  # pragma: no cover - matches() said yes
        raise RuleError(f"not a majority rule: {text[start:end]!r}", text=text, position=start)
    radius = 1 if found.group(1) is None else int(found.group(1))
    if not 1 <= radius <= MAX_RADIUS:
        raise RuleError(f"majority radius must be 1 to {MAX_RADIUS}, got {radius}", text=text,
                        position=found.start(1))
    return MajorityRule(radius)


def cost(spec: StepSpec) -> tuple[str, float]:
    """Its own cost class, scaled like Larger than Life by the box's rows over 11."""
    return "majority", (2 * spec.reach + 1) / 11.0


FAMILY = Family(
    name="majority",
    title="majority vote over the (2r+1)^2 box (an example plug-in family)",
    claims=lambda rule: isinstance(rule, MajorityRule),
    samples=("MajorityR2", "Majority", "MajorityR3", "MajorityR7"),
    cost=cost,
    notation=(matches, parse),
    steps={"numpy": {KINDS: "tensorca_majority.steps:numpy_step"},
           "torch": {KINDS: "tensorca_majority.steps:torch_build"}},
    # priced against B3/S23 per cell: two prefix sums over the padded grid, R5-sized (cost() scales)
    factors={"majority": {"numpy": {"cell": 3.0}, "torch": {"cell": 3.0}}},
    # uint8 input and output, int64 padded copy, its prefix sums and the count (sums of any grid fit), verdict
    cell_bytes={"numpy": 34.0, "torch": 34.0},
    engines=("numpy", "torch", "dask"),
)

__all__ = ["FAMILY", "KINDS", "MajorityRule", "matches", "parse"]
