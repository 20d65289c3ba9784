"""The unbounded plane on top of any engine that can run a bounded plane.

A pattern grows by at most ``reach`` cells a side per generation (the step spec's ``reach``: 1 for
3x3 rules, the range for Larger than Life).
So if every non-dead cell lies at least ``reach * k`` cells inside the array, running ``k``
generations on a bounded plane of that array computes exactly what the infinite plane computes:
nothing outside the array could have come alive. We pad to that margin, advance ``k`` generations
in one engine call, crop to the bounding box, and repeat; the origin tracks the crop.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .arrays import like_input, to_engine
from .crop import crop
from .engines.base import Engine
from .errors import TopologyError
from .rules.base import Rule
from .topology import Topology

#: Generations per engine call: larger chunks mean fewer pads and crops but a wider margin.
CHUNK = 64


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
    spec = rule.compile()
    if spec.births_from_nothing:
        raise TopologyError(
            f"rule {rule.canonical()!r} has births from nothing (B0, or Lenia growth above 0 at zero: a dead "
            "cell with nothing alive around it comes alive), so the "
            "unbounded plane would fill at once; run it on a torus (:Tw,h) or bounded plane (:Pw,h)"
        )
    reach = spec.reach
    cells, origin = crop(cells, origin, copy=True)
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
        cells, origin = crop(cells, origin, copy=True)
        done += k
        if on_chunk:
            on_chunk(k)
    return cells, origin
