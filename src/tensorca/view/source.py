"""What the viewer and the widget drive: a :class:`Simulation` wraps any ``step(n)`` function.

``Simulation(step, first)`` holds the frame on screen, advances it by calling ``step(n)`` (which
returns the frame ``n`` generations later as a :class:`~tensorca.view.protocol.Frame` or a
``(cells, generation, population)`` tuple), keeps the population history for the chart and
serialises access with a lock (the web server answers requests on several threads). Any engine
can drive it; :func:`from_pattern` builds one on :func:`tensorca.run`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..errors import UsageError
from .display import as_numpy
from .protocol import Frame, pack

Step = Callable[[int], Any]
#: Most generations one request may ask for (a typo must not hang the server).
MAX_STEP = 1_000_000
#: Chart points kept.
HISTORY = 20_000


@dataclass
class Simulation:
    """A run on screen: ``step(n)`` advances ``n >= 1`` generations and returns the new frame;
    ``first`` is the frame at the start; ``restart()`` (optional) rewinds ``step``'s own state to
    ``first``. ``info`` describes it to the page: ``rule``, ``topology``, ``n_states``,
    ``continuous`` (float states), ``title``."""

    step_fn: Step
    first: Frame
    restart_fn: Callable[[], None] | None = None
    info: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.first = as_frame(self.first)
        self.current = self.first
        self.history: list[tuple[int, int]] = [(self.first.generation, self.first.population)]
        self._lock = threading.Lock()

    def frame(self) -> bytes:
        """The current frame, packed."""
        with self._lock:
            return pack(self.current)

    def step(self, n: int = 1) -> bytes:
        """Advance ``n`` generations (1..:data:`MAX_STEP`) and return the new frame, packed."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_STEP:
            raise UsageError(f"step takes 1..{MAX_STEP} generations, got {n!r}")
        with self._lock:
            self.current = as_frame(self.step_fn(int(n)))
            self.history.append((self.current.generation, self.current.population))
            del self.history[:-HISTORY]
            return pack(self.current)

    def seek(self, generation: int) -> bytes:
        """The frame at ``generation``: steps forward, or restarts and steps when it lies behind."""
        if generation < self.current.generation:
            self.reset()
        ahead = int(generation) - self.current.generation
        return self.step(ahead) if ahead > 0 else self.frame()

    def reset(self) -> bytes:
        """Back to the first frame (when the source can restart), packed."""
        if self.restart_fn is None:
            raise UsageError("this simulation cannot restart: it was given no restart function")
        with self._lock:
            self.restart_fn()
            self.current = self.first
            self.history = [(self.first.generation, self.first.population)]
            return pack(self.current)

    def describe(self) -> dict[str, Any]:
        """``info`` plus the palette the page colours with and whether it can restart."""
        from .colours import colormap, state_colours

        info = {"rule": "", "topology": "", "n_states": 2, "continuous": False, "title": "tensorca"} | self.info
        if info["continuous"]:
            table = colormap("viridis").tolist()
        else:
            table = info.get("palette") or state_colours(max(2, int(info["n_states"]))).tolist()
        return info | {"palette": table, "can_reset": self.restart_fn is not None}


def as_frame(value: Any) -> Frame:
    """A :class:`Frame` from a frame or a ``(cells, generation, population[, origin])`` tuple."""
    if isinstance(value, Frame):
        return value
    if not isinstance(value, tuple) or len(value) not in (3, 4):
        raise UsageError("step must return a Frame or a (cells, generation, population) tuple, "
                         f"got {type(value).__name__}")
    cells = as_numpy(value[0])
    origin = tuple(value[3]) if len(value) == 4 else (0, 0)
    return Frame(cells, int(value[1]), int(value[2]), (int(origin[0]), int(origin[1])))


def from_pattern(pattern: Any, rule: Any = None, backend: str = "auto", topology: Any = None,
                 title: str | None = None) -> Simulation:
    """A :class:`Simulation` that advances ``pattern`` with :func:`tensorca.run`.

    ``pattern``: a :class:`~tensorca.Pattern` (its rule and topology unless ``rule`` /
    ``topology`` say otherwise; on the unbounded plane the frames carry their origin), or a
    ``(H, W)`` array or tensor (a torus of its shape). ``backend``: any engine name, ``"auto"``.
    """
    from ..pattern import Pattern
    from ..rules.spec import resolve
    from ..simulate import run

    if isinstance(pattern, Pattern):
        rule_value, suffix = resolve(rule, fallback=pattern.rule)
        start: Any = replace(pattern, topology=suffix) if suffix is not None else pattern
        topology_value = topology
        shown = str(start.topology) if topology is None else str(topology)
    else:
        arr = as_numpy(pattern)
        rule_value, suffix = resolve(rule, shape=arr.shape[-2:])
        start, topology_value = pattern, topology if topology is not None else suffix
        shown = str(topology_value) if topology_value is not None else f"torus {arr.shape[-1]}x{arr.shape[-2]}"
    state = {"now": start, "generation": int(getattr(start, "generation", 0))}

    def step(n: int) -> Frame:
        state["now"] = run(state["now"], rule_value, n, backend=backend, topology=topology_value)
        state["generation"] += n
        return _frame(state["now"], state["generation"])

    def restart() -> None:
        state["now"], state["generation"] = start, int(getattr(start, "generation", 0))

    space = rule_value.state_space
    info = {"rule": rule_value.canonical(), "topology": shown, "n_states": int(space.n_states or 2),
            "continuous": not space.discrete, "title": title or getattr(pattern, "name", None) or "tensorca"}
    if space.discrete:  # the rule's own colours (@COLORS, Golly's defaults), as render uses
        from .colours import state_colours

        info["palette"] = state_colours(info["n_states"], rule=rule_value).tolist()
    return Simulation(step, _frame(start, state["generation"]), restart, info)


def _frame(state: Any, generation: int) -> Frame:
    """A frame of a pattern (placed in its bounded grid, or with its origin) or an array."""
    cells = getattr(state, "cells", None)
    if cells is None:
        arr = as_numpy(state)
        return Frame(arr, generation, int(np.count_nonzero(arr)))
    population = int(np.count_nonzero(cells))
    if state.topology.bounded:
        height, width = state.topology.shape
        grid = np.zeros((height, width), dtype=cells.dtype)
        h, w = min(cells.shape[0], height), min(cells.shape[1], width)
        grid[:h, :w] = cells[:h, :w]
        return Frame(grid, generation, population)
    return Frame(cells, generation, population, state.origin)
