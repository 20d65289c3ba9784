"""``run()``: the one place that resolves rule and topology, moves data and drives an engine.

``run`` returns the same kind of object it was given: a :class:`~tensorca.pattern.Pattern` (origin
and generation kept up to date), a NumPy array (``(H, W)`` or ``(B, H, W)``), or a torch tensor
(on its original device).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np

from .arrays import as_uint8_grid, as_uint8_tensor, is_tensor, like_input, max_state, to_engine
from .engines import get_engine
from .engines.base import Engine
from .errors import EngineError, GridError, TopologyError
from .pattern import Pattern
from .rules import parse_rule, parse_spec
from .rules.base import Rule
from .topology import Topology, parse_topology
from .unbounded import advance_unbounded

DEFAULT_RULE = "B3/S23"

ProgressCallback = Callable[[int, int], None]
"""Called as ``progress(done, total)`` after each chunk of generations."""


def resolve_rule(rule: str | Rule | None, fallback: Rule | None = None) -> tuple[Rule, Topology | None]:
    """A rule value (and the topology its suffix names, if any) from a string, value or default."""
    if isinstance(rule, Rule):
        return rule, None
    if rule is None:
        return (fallback, None) if fallback is not None else (parse_rule(DEFAULT_RULE), None)
    if not isinstance(rule, str):
        raise TypeError(f"rule must be a rule string or a Rule, not {type(rule).__name__}")
    return parse_spec(rule)


def resolve_topology(topology: str | Topology | None, shape: tuple[int, int] | None) -> Topology | None:
    """A topology value from a Golly suffix (``":T64,64"``), a kind name or a value.

    The kind names ``"torus"`` and ``"plane"`` take their size from ``shape`` ``(H, W)``.
    """
    if topology is None or isinstance(topology, Topology):
        return topology
    if not isinstance(topology, str):
        raise TypeError(f"topology must be a suffix string or a Topology, not {type(topology).__name__}")
    name = topology.strip().lower()
    if name in ("torus", "plane"):
        if shape is None:
            raise TopologyError(f"topology {topology!r} needs a size here; give a suffix such as ':T64,64'")
        return Topology(name, shape[1], shape[0])  # type: ignore[arg-type]
    if name in ("unbounded", "infinite", ""):
        return Topology.unbounded()
    return parse_topology(topology)


def check_states(cells: Any, rule: Rule) -> None:
    """Raise :class:`GridError` if a cell holds a state the rule does not have (one read of the max)."""
    found = max_state(cells)
    if found is not None and found[0] >= rule.n_states:
        state, where = found
        raise GridError(
            f"cell {where} holds state {state}, but rule {rule.canonical()!r} has only "
            f"{rule.n_states} states (0..{rule.n_states - 1})"
        )


def choose_engine(backend: str | Engine, rule: Rule, topology: Topology) -> Engine:
    """The named engine, checked to support ``rule`` on ``topology`` (never silently wrong)."""
    engine = backend if isinstance(backend, Engine) else get_engine(backend)
    check = topology if topology.bounded else Topology.plane(1, 1)  # unbounded runs on planes
    if not engine.supports(rule, check):
        raise EngineError(engine.why_unsupported(rule, check))
    return engine


def advance_bounded(
    engine: Engine,
    cells: np.ndarray,
    rule: Rule,
    topology: Topology,
    generations: int,
    progress: ProgressCallback | None,
) -> np.ndarray:
    """The multi-generation loop for bounded grids: one engine call, or chunks when reporting progress."""
    if progress is None:
        return engine.advance(cells, rule, topology, generations)
    chunk = max(1, generations // 100)
    done = 0
    while done < generations:
        k = min(chunk, generations - done)
        cells = engine.advance(cells, rule, topology, k)
        done += k
        progress(done, generations)
    return cells


def run(
    state: Any,
    rule: str | Rule | None = None,
    generations: int = 1,
    *,
    backend: str | Engine = "numpy",
    topology: str | Topology | None = None,
    device: str | None = None,
    progress: ProgressCallback | None = None,
) -> Any:
    """Advance ``state`` by ``generations`` and return the same kind of object.

    ``state``: a :class:`Pattern`, or a NumPy array / torch tensor of cell states, ``(H, W)`` or
    ``(B, H, W)``, integer or bool (returned as ``uint8``). ``rule``: a rule string (optionally
    with a Golly topology suffix) or a rule value; defaults to the pattern's rule, then B3/S23.
    ``topology``: a suffix (``":P64,64"``), ``"torus"``/``"plane"`` (the array's own size),
    ``"unbounded"`` (patterns only) or a :class:`Topology`. An array without one is a torus of
    its own shape; a pattern keeps the topology of its file (no suffix = the unbounded plane).
    ``device``: where a torch engine runs (default: the tensor's own device, else ``"cpu"``);
    the result comes back as the input kind, a tensor on its original device.
    """
    if isinstance(generations, bool) or not isinstance(generations, (int, np.integer)) or generations < 0:
        raise ValueError(f"generations must be a non-negative integer, got {generations!r}")
    generations = int(generations)
    if isinstance(state, Pattern):
        return _run_pattern(state, rule, generations, backend, topology, device, progress)
    return _run_grid(state if is_tensor(state) else np.asarray(state), rule, generations, backend, topology, device, progress)


def _run_grid(grid, rule, generations, backend, topology, device, progress) -> Any:
    if grid.ndim not in (2, 3):
        raise GridError(f"grid must be (H, W) or (B, H, W), got shape {tuple(grid.shape)}")
    cells = as_uint8_tensor(grid) if is_tensor(grid) else as_uint8_grid(np.asarray(grid))
    batch = cells if cells.ndim == 3 else cells[None]
    shape = (int(batch.shape[1]), int(batch.shape[2]))
    rule_value, suffix_topology = resolve_rule(rule)
    topo = _pick_topology(topology, suffix_topology, shape) or Topology.torus(shape[1], shape[0])
    if not topo.bounded:
        raise TopologyError("an array has no origin to grow from; wrap it in a Pattern to run it on the unbounded plane")
    if topo.shape != shape:
        raise GridError(f"grid of shape {shape} (H, W) does not match topology {topo} ({topo.height}x{topo.width})")
    engine = choose_engine(backend, rule_value, topo)
    batch = to_engine(batch, engine.array_module, device)
    check_states(batch, rule_value)
    out = like_input(advance_bounded(engine, batch, rule_value, topo, generations, progress), grid)
    return out if cells.ndim == 3 else out[0]


def _pick_topology(given, from_suffix, shape) -> Topology | None:
    given = resolve_topology(given, shape)
    if given is not None and from_suffix is not None and given != from_suffix:
        raise TopologyError(f"topology {given} conflicts with the rule's suffix {from_suffix}")
    return given or from_suffix


def _run_pattern(pattern: Pattern, rule, generations, backend, topology, device, progress) -> Pattern:
    rule_value, suffix_topology = resolve_rule(rule, fallback=pattern.rule)
    topo = _pick_topology(topology, suffix_topology, pattern.cells.shape) or pattern.topology
    cells = as_uint8_grid(np.asarray(pattern.cells))[None]
    check_states(cells, rule_value)
    engine = choose_engine(backend, rule_value, topo)
    if topo.bounded:
        height, width = topo.shape
        if cells.shape[1] > height or cells.shape[2] > width:
            raise TopologyError(
                f"pattern of {cells.shape[2]}x{cells.shape[1]} cells (W x H) does not fit the "
                f"{width}x{height} grid of topology {topo}"
            )
        # The grid's top-left cell is the pattern's origin (cells[0, 0]).
        grid = np.zeros((1, height, width), dtype=np.uint8)
        grid[:, : cells.shape[1], : cells.shape[2]] = cells
        out = advance_bounded(engine, to_engine(grid, engine.array_module, device), rule_value, topo, generations, progress)
        out = like_input(out, grid)
        origin = pattern.origin
    else:
        done = [0]

        def on_chunk(k: int) -> None:
            done[0] += k
            if progress is not None:
                progress(done[0], generations)

        out, origin = advance_unbounded(engine, cells, pattern.origin, rule_value, generations, on_chunk, device)
    return dataclasses.replace(
        pattern,
        cells=np.asarray(out)[0],
        rule=rule_value,
        topology=topo,
        origin=origin,
        generation=pattern.generation + generations,
    )
