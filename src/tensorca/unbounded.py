"""The unbounded plane: growing arrays over any engine that runs a bounded plane, or a quadtree.

Engines native on the unbounded plane (``EngineInfo.unbounded_native``: HashLife) take the whole
pattern as a tree; :func:`advance_tree` drives them (progress, observers, checkpoints), in steps
that follow the binary digits of the generation count so that reporting never changes the work.
Every other engine runs the growing-array loop of :func:`advance_unbounded`:

A pattern grows by at most ``reach`` cells a side per generation (the step spec's ``reach``: 1 for
3x3 rules, the range for Larger than Life).
So if every non-dead cell lies at least ``reach * k`` cells inside the array, running ``k``
generations on a bounded plane of that array computes exactly what the infinite plane computes:
nothing outside the array could have come alive. We pad to that margin, advance ``k`` generations
in one engine call, crop to the bounding box, and repeat; the origin tracks the crop.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from . import persist
from .arrays import like_input, to_engine
from .crop import crop
from .engines.base import Engine, advance_engine
from .errors import Interrupted, MemoryBudgetError, TopologyError, UsageError
from .rules.base import Rule
from .topology import Topology

if TYPE_CHECKING:  # pragma: no cover - the plan imports this module
    from .randomness import Clock
    from .simulate.plan import RunPlan

#: Generations per engine call: larger chunks mean fewer pads and crops but a wider margin.
CHUNK = 64
#: Largest bounding box a HashLife run writes into a ``.npz`` checkpoint (a ``.mc`` one has no limit).
DENSE_CHECKPOINT_CELLS = 2**31


def advance_unbounded(
    engine: Engine,
    cells: np.ndarray,
    origin: tuple[int, int],
    rule: Rule,
    generations: int,
    on_chunk: Callable[[int], None] | None = None,
    device: str | None = None,
    clock: Clock | None = None,
) -> tuple[np.ndarray, tuple[int, int]]:
    """Advance ``(B, H, W)`` uint8 ``cells`` whose [0, 0] sits at ``origin`` on the infinite plane.

    Returns the cells cropped to their bounding box (shape ``(B, 0, 0)`` when everything died)
    and the new origin. ``on_chunk(k)`` is called after every ``k`` generations done. The
    engine runs on ``device`` (torch engines); padding and cropping happen on the host.
    ``clock``: a stochastic rule's draws at the first generation; each chunk draws at the plane's
    absolute coordinates (``origin``), so the margins never change what is drawn.
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
        here = clock.later(done) if clock is not None else None
        if here is not None:
            here = dataclasses.replace(here, origin=(origin[1], origin[0]))  # origin is (x, y); a clock's (y, x)
        result = advance_engine(engine, to_engine(cells, engine.array_module, device), rule, plane, k, here)
        cells = like_input(result, cells)
        cells, origin = crop(cells, origin, copy=True)
        done += k
        if on_chunk:
            on_chunk(k)
    return cells, origin


def advance_tree(plan: RunPlan, universe: Any, save: Callable[[Any, int], Any] | None = None) -> Any:
    """Advance a quadtree ``universe`` (a :class:`tensorca.hashlife.Universe`, stepped in place)
    ``plan.generations`` from ``plan.start``: segments end at checkpoints and observer samples;
    within one, the steps follow the binary digits of its length and progress is reported after
    each. ``save(universe, generation) -> path`` writes a checkpoint when ``plan.checkpointer`` is
    due; Ctrl-C with one saves the last completed step and raises ``Interrupted``."""
    observer = plan.samples.observer
    if observer is not None:
        plan.samples.add([plan.start], np.array([[_population(universe)]], np.int64))
    done = [0]

    def on_step(k: int) -> None:
        done[0] += k
        if plan.progress is not None:
            plan.progress(done[0], plan.generations)

    finished, first = 0, universe.generation
    checkpointer = plan.checkpointer if save is not None else None
    try:
        for end in plan._unbounded_ends():
            universe.step(end - finished, on_step)
            finished = end
            if observer is not None and (plan.start + end) % observer.every == 0:
                plan.samples.add([plan.start + end], np.array([[_population(universe)]], np.int64))
            if checkpointer is not None and checkpointer.due(end, plan.generations):
                save(universe, plan.start + end)
    except KeyboardInterrupt:
        if checkpointer is None:
            raise
        at = plan.start + universe.generation - first  # the universe's counter moves with its root
        path = save(universe, at)
        raise Interrupted(path, at) from None
    return universe


def _population(universe: Any) -> int:
    """The exact population, refused when an int64 observer could not hold it."""
    population = universe.population
    if population >= 2**63:
        raise UsageError(f"the population observer holds int64 counts; generation {universe.generation} has "
                         f"{population} cells (read Pattern.population, an exact int, instead)")
    return population


def tree_saver(checkpointer: Any, rule: Rule, pattern: Any) -> Callable[[Any, int], Any]:
    """``save(universe, generation) -> path`` for :func:`advance_tree`: a macrocell file straight
    from the tree when the checkpoint path ends in ``.mc``/``.mc.gz`` (any size), else the
    checkpointer's ``.npz`` of the cells (the bounding box, within the dense cell budget)."""
    from .persist import macrocell as macrocell

    def save(universe: Any, generation: int) -> Any:
        if persist.format_of(checkpointer.path) is persist.MACROCELL:
            return macrocell.save_tree(checkpointer.path, universe, checkpointer.manifest(generation, None))
        box = universe.bounding_box()
        if box is not None and box[2] * box[3] > DENSE_CHECKPOINT_CELLS:
            raise MemoryBudgetError(
                f"a .npz checkpoint holds dense cells, and this HashLife pattern's bounding box is {box[2]} x {box[3]} "
                f"at generation {generation}; checkpoint HashLife runs to a macrocell file (checkpoint='run.mc')",
                needed=box[2] * box[3], available=DENSE_CHECKPOINT_CELLS)
        cells, origin = universe.to_cells(max_cells=DENSE_CHECKPOINT_CELLS)
        return checkpointer.save(cells[None], generation, origin)

    return save
