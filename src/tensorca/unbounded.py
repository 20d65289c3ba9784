"""The unbounded plane on top of any engine that can run a bounded plane.

A pattern grows by at most ``reach`` cells a side per generation (``reach`` = the rule's range).
So if every non-dead cell lies at least ``reach * k`` cells inside the array, running ``k``
generations on a bounded plane of that array computes exactly what the infinite plane computes:
nothing outside the array could have come alive. We pad to that margin, advance ``k`` generations
in one engine call, crop to the bounding box, and repeat; the origin tracks the crop.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .arrays import like_input, to_engine
from .engines.base import Engine
from .errors import TopologyError
from .rules.base import LargerThanLifeRule, Rule, TableRule
from .topology import Topology

#: Generations per engine call: larger chunks mean fewer pads and crops but a wider margin.
CHUNK = 64


def rule_reach(rule: Rule) -> int:
    """How far (in cells) a live cell can influence the next generation."""
    return rule.radius if isinstance(rule, LargerThanLifeRule) else 1


def births_from_nothing(rule: Rule) -> bool:
    """True when a dead cell with no live neighbours is born (B0): the infinite plane fills at once."""
    if isinstance(rule, TableRule):
        return rule.has_b0
    if isinstance(rule, LargerThanLifeRule):
        empty = rule.empty_count()
        return any(lo <= empty <= hi for lo, hi in rule.birth)
    return False


def bounding_box(cells: np.ndarray) -> tuple[int, int, int, int] | None:
    """``(y0, y1, x0, x1)`` (half-open) of the non-zero cells of ``(B, H, W)``, or None if all dead."""
    occupied = cells.any(axis=0)
    rows = np.flatnonzero(occupied.any(axis=1))
    if rows.size == 0:
        return None
    cols = np.flatnonzero(occupied.any(axis=0))
    return int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1


def crop(cells: np.ndarray, origin: tuple[int, int]) -> tuple[np.ndarray, tuple[int, int]]:
    """Crop ``(B, H, W)`` to the bounding box of its non-zero cells; ``origin`` is ``(x, y)`` of [0, 0]."""
    box = bounding_box(cells)
    if box is None:
        return cells[:, :0, :0].copy(), origin
    y0, y1, x0, x1 = box
    return cells[:, y0:y1, x0:x1].copy(), (origin[0] + x0, origin[1] + y0)


def advance_unbounded(
    engine: Engine,
    cells: np.ndarray,
    origin: tuple[int, int],
    rule: Rule,
    generations: int,
    on_chunk: Callable[[int], None] | None = None,
    device: str | None = None,
) -> tuple[np.ndarray, tuple[int, int]]:
    """Advance ``(B, H, W)`` uint8 ``cells`` whose [0, 0] sits at ``origin`` on the infinite plane.

    Returns the cells cropped to their bounding box (shape ``(B, 0, 0)`` when everything died)
    and the new origin. ``on_chunk(k)`` is called after every ``k`` generations done. The
    engine runs on ``device`` (torch engines); padding and cropping happen on the host.
    """
    if births_from_nothing(rule):
        raise TopologyError(
            f"rule {rule.canonical()!r} has B0 (dead cells with no live neighbours are born), so the "
            "unbounded plane would fill at once; run it on a torus (:Tw,h) or bounded plane (:Pw,h)"
        )
    reach = rule_reach(rule)
    cells, origin = crop(cells, origin)
    done = 0
    while done < generations:
        if cells.shape[1] == 0:  # everything died: nothing more can happen
            if on_chunk:
                on_chunk(generations - done)
            break
        k = min(CHUNK, generations - done)
        margin = reach * k
        cells = np.pad(cells, ((0, 0), (margin, margin), (margin, margin)))
        origin = (origin[0] - margin, origin[1] - margin)
        plane = Topology.plane(cells.shape[2], cells.shape[1])
        result = engine.advance(to_engine(cells, engine.array_module, device), rule, plane, k)
        cells = like_input(result, cells)
        cells, origin = crop(cells, origin)
        done += k
        if on_chunk:
            on_chunk(k)
    return cells, origin
