"""``run()``: the one place that resolves rule and topology, moves data and drives an engine.

``run`` returns the same kind of object it was given: a :class:`~tensorca.pattern.Pattern` (origin
and generation kept up to date), a NumPy array (``(H, W)`` or ``(B, H, W)``), or a torch tensor
(on its original device).

Around the engine call it does four things, all without changing the result by a single bit:

- **choosing**: ``backend="auto"`` (the default) asks :mod:`tensorca.costmodel` for the engine
  and device predicted fastest for this rule, shape, batch and run length, among those that
  support the rule (:func:`explain` shows the comparison);
- **memory planning**: a batch whose working set (``engine.bytes_needed``) does not fit the
  device (or ``max_bytes``) is split into chunks; an out-of-memory error halves the chunk and
  retries, keeping finished chunks; a single grid that cannot fit raises
  :class:`~tensorca.errors.MemoryBudgetError` with the numbers;
- **checkpoints**: ``checkpoint=FILE, checkpoint_every=N`` writes the state atomically every
  ``N`` generations and at the end (:mod:`tensorca.checkpoint`); Ctrl-C writes the last completed
  state before :class:`Interrupted` propagates; :func:`resume` continues bit for bit;
- **observers**: ``observe=Population(every=k)`` collects the population every ``k`` generations
  on the device (torch engines count inside :meth:`~tensorca.engines.torch_engine.TorchEngine.advance_observed`)
  and reads it back once at the end.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any, Callable

import numpy as np

from . import checkpoint as checkpoint_io
from . import costmodel
from .arrays import as_uint8_grid, as_uint8_tensor, check_device, is_tensor, like_input, max_state, to_engine, to_host
from .engines import get_engine
from .engines.base import Engine
from .errors import EngineError, GridError, TopologyError
from .memory import free_cached_memory, halve_chunk, is_out_of_memory, plan_chunk
from .observers import Population, Samples, advance_observed, population_counts
from .pattern import Pattern
from .rules import parse_rule, parse_spec
from .rules.base import Rule
from .topology import Topology, parse_topology
from .unbounded import advance_unbounded

DEFAULT_RULE = "B3/S23"
#: ``run``'s default backend: the engine the cost model predicts fastest.
DEFAULT_BACKEND = "auto"

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


# -- checkpoints ------------------------------------------------------------------------------


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a checkpointed run: ``path`` holds the state after ``generation``."""

    def __init__(self, path: Path, generation: int):
        super().__init__(f"interrupted; state at generation {generation} saved to {path}")
        self.path = path
        self.generation = generation


@dataclasses.dataclass
class _Checkpointer:
    path: Path
    every: int | None
    manifest: Callable[[int, tuple[int, int] | None], dict]

    def save(self, cells: Any, generation: int, origin: tuple[int, int] | None = None) -> Path:
        host = to_host(cells)
        return checkpoint_io.save(self.path, host, self.manifest(generation, origin))


def _boundaries(generations: int, *steps: int | None) -> list[int]:
    """Sorted generation counts at which a segment ends: multiples of each step, and the end."""
    if generations == 0:
        return [0]
    ends = {generations}
    for step in steps:
        if step:
            ends.update(range(step, generations, step))
    return sorted(ends)


# -- engine choice ----------------------------------------------------------------------------


def _data_device(state: Any) -> str:
    return str(state.device) if is_tensor(state) else "cpu"


def _select(backend: str | Engine, rule: Rule, topology: Topology, batch: int, shape: tuple[int, int],
            generations: int, data_device: str, device: str | None, calls: int) -> tuple[Engine, str | None]:
    """The engine to run and the device to pass it (None: the data's own device)."""
    if isinstance(backend, str) and backend == "auto":
        if device is not None and str(device).split(":")[0] != "cpu":
            check_device(device)  # "no engine on cuda" would hide the real reason
        choice = costmodel.choose(rule, topology, batch, shape, generations, data_device=data_device,
                                  device=device, calls=calls)
        engine = choose_engine(choice.engine, rule, topology)
        if engine.array_module != "torch":
            return engine, device
        if device is not None:
            return engine, device
        return engine, (None if choice.device == data_device.split(":")[0] else choice.device)
    engine = choose_engine(backend, rule, topology)
    if device is not None and engine.array_module == "torch":
        check_device(device)  # a clear error before anything is allocated there
    return engine, device


def explain(
    state: Any,
    rule: str | Rule | None = None,
    generations: int = 1,
    *,
    topology: str | Topology | None = None,
    device: str | None = None,
    calls: int = 1,
) -> costmodel.Choice:
    """What ``run(state, rule, generations, backend="auto", ...)`` would choose, with every prediction."""
    if isinstance(state, Pattern):
        rule_value, suffix = resolve_rule(rule, fallback=state.rule)
        topo = _pick_topology(topology, suffix, state.cells.shape) or state.topology
        batch, shape = 1, (topo.shape if topo.bounded else tuple(state.cells.shape))
        data_device = "cpu"
    else:
        grid = state if is_tensor(state) else np.asarray(state)
        dims = tuple(int(s) for s in grid.shape)
        batch, shape = (dims[0], dims[1:]) if len(dims) == 3 else (1, dims)
        rule_value, suffix = resolve_rule(rule)
        topo = _pick_topology(topology, suffix, shape) or Topology.torus(shape[1], shape[0])
        data_device = _data_device(grid)
    return costmodel.choose(rule_value, topo, batch, shape, generations, data_device=data_device, device=device,
                            calls=calls)


# -- the loops --------------------------------------------------------------------------------


def _advance_batch(engine: Engine, batch: Any, rule: Rule, topology: Topology, generations: int, *,
                   device: str | None, progress: ProgressCallback | None, max_bytes: int | None,
                   samples: Samples, checkpointer: _Checkpointer | None, start: int) -> Any:
    """Advance a ``(B, H, W)`` batch (input kind) and return it in the engine's or the host's form.

    The whole batch stays in the engine's representation between segments when it fits in one
    chunk; otherwise chunks travel host -> device -> host per segment, with OOM retries.
    """
    n = int(batch.shape[0])
    shape = (int(batch.shape[1]), int(batch.shape[2]))
    run_device = device or (_data_device(batch) if engine.array_module == "torch" else "cpu")
    chunk = plan_chunk(engine, n, shape, rule, run_device, max_bytes)
    observer = samples.observer
    progress_step = max(1, generations // 100) if progress is not None else None
    if chunk < n and checkpointer is None:
        ends = _boundaries(generations)  # each chunk runs the whole way; progress per chunk
    else:
        ends = _boundaries(generations, checkpointer.every if checkpointer else None, progress_step)
    if observer is not None:
        samples.add([start], population_counts(batch))

    resident: Any = None
    host: Any = batch
    done = 0
    if chunk >= n:
        try:
            resident = to_engine(batch, engine.array_module, device)
        except Exception as exc:
            if not is_out_of_memory(exc):
                raise
            free_cached_memory()
            chunk = halve_chunk(engine, chunk, n, shape, rule, run_device, max_bytes, exc)
    try:
        for end in ends:
            k = end - done
            if resident is not None:
                try:
                    out, gens, values = advance_observed(engine, resident, rule, topology, k, observer, start + done)
                except Exception as exc:
                    if not is_out_of_memory(exc):
                        raise
                    host = to_host(resident)
                    resident = None
                    free_cached_memory()
                    chunk = halve_chunk(engine, n, n, shape, rule, run_device, max_bytes, exc)
                else:
                    resident = out
                    samples.add(gens, values)
            if resident is None:
                host, chunk = _chunked_segment(engine, host, rule, topology, k, device, run_device, chunk,
                                               max_bytes, samples, start + done,
                                               progress if len(ends) == 1 else None, generations)
            done = end
            if progress is not None and (resident is not None or len(ends) > 1):
                progress(done, generations)
            if checkpointer is not None and ((checkpointer.every and done % checkpointer.every == 0) or done == generations):
                checkpointer.save(resident if resident is not None else host, start + done)
    except KeyboardInterrupt:
        if checkpointer is None:
            raise
        path = checkpointer.save(resident if resident is not None else host, start + done)
        raise Interrupted(path, start + done) from None
    return resident if resident is not None else host


def _chunked_segment(engine: Engine, host: Any, rule: Rule, topology: Topology, k: int, device: str | None,
                     run_device: str, chunk: int, max_bytes: int | None, samples: Samples, gen0: int,
                     progress: ProgressCallback | None, total: int) -> tuple[np.ndarray, int]:
    """``k`` generations of every grid of ``host``, ``chunk`` grids per call; halves on OOM, keeps finished chunks."""
    n = int(host.shape[0])
    outs: list[np.ndarray] = []
    blocks: list[np.ndarray] = []
    gens: list[int] = []
    i = 0
    while i < n:
        size = min(chunk, n - i)
        try:
            cells = to_engine(host[i : i + size], engine.array_module, device)
            out, gens, values = advance_observed(engine, cells, rule, topology, k, samples.observer, gen0)
            out_host = to_host(out)
            values_host = to_host(values) if values is not None else None
        except Exception as exc:
            if not is_out_of_memory(exc):
                raise
            cells = out = values = None  # drop references before freeing
            free_cached_memory()
            chunk = halve_chunk(engine, size, n, tuple(host.shape[1:]), rule, run_device, max_bytes, exc)
            continue
        outs.append(out_host)
        if values_host is not None:
            blocks.append(np.asarray(values_host).reshape(len(gens), size))
        i += size
        if progress is not None:
            progress(total * i // n, total)
    if blocks:
        samples.add(gens, np.concatenate(blocks, axis=1))
    return np.concatenate(outs, axis=0), chunk


def _advance_unbounded_run(engine: Engine, cells: np.ndarray, origin: tuple[int, int], rule: Rule, generations: int,
                           *, device: str | None, progress: ProgressCallback | None, samples: Samples,
                           checkpointer: _Checkpointer | None, start: int) -> tuple[np.ndarray, tuple[int, int]]:
    observer = samples.observer
    if observer is not None:
        samples.add([start], population_counts(cells))
    ends = set(_boundaries(generations, checkpointer.every if checkpointer else None))
    if observer is not None:
        first = (-start) % observer.every or observer.every
        ends.update(range(first, generations, observer.every))
    done = [0]

    def on_chunk(k: int) -> None:
        done[0] += k
        if progress is not None:
            progress(done[0], generations)

    finished = 0
    try:
        for end in sorted(ends):
            cells, origin = advance_unbounded(engine, cells, origin, rule, end - finished, on_chunk, device)
            finished = end
            if observer is not None and (start + end) % observer.every == 0:
                samples.add([start + end], population_counts(cells))
            if checkpointer is not None and ((checkpointer.every and end % checkpointer.every == 0) or end == generations):
                checkpointer.save(cells, start + end, origin)
    except KeyboardInterrupt:
        if checkpointer is None:
            raise
        path = checkpointer.save(cells, start + finished, origin)
        raise Interrupted(path, start + finished) from None
    return cells, origin


# -- the public entry points ------------------------------------------------------------------


def run(
    state: Any,
    rule: str | Rule | None = None,
    generations: int = 1,
    *,
    backend: str | Engine = DEFAULT_BACKEND,
    topology: str | Topology | None = None,
    device: str | None = None,
    progress: ProgressCallback | None = None,
    max_bytes: int | None = None,
    observe: Population | None = None,
    checkpoint: str | os.PathLike | None = None,
    checkpoint_every: int | None = None,
    start_generation: int = 0,
) -> Any:
    """Advance ``state`` by ``generations`` and return the same kind of object.

    ``state``: a :class:`Pattern`, or a NumPy array / torch tensor of cell states, ``(H, W)`` or
    ``(B, H, W)``, integer or bool (returned as ``uint8``). ``rule``: a rule string (optionally
    with a Golly topology suffix) or a rule value; defaults to the pattern's rule, then B3/S23.
    ``topology``: a suffix (``":P64,64"``), ``"torus"``/``"plane"`` (the array's own size),
    ``"unbounded"`` (patterns only) or a :class:`Topology`. An array without one is a torus of
    its own shape; a pattern keeps the topology of its file (no suffix = the unbounded plane).
    ``backend``: ``"auto"`` (the engine predicted fastest that supports the rule; see
    :func:`explain`), an engine name, or an engine value.
    ``device``: where a torch engine runs (default: the tensor's own device, else ``"cpu"``, or
    the device ``auto`` chose); the result comes back as the input kind, a tensor on its original
    device.
    ``max_bytes``: memory budget for the engine's working set; larger batches run in chunks
    (default: what the device has free). ``observe``: a :class:`Population` observer, filled in
    place. ``checkpoint``/``checkpoint_every``: write the state to this ``.npz`` every ``N``
    generations and at the end (Ctrl-C writes the last completed state and raises
    :class:`Interrupted`). ``start_generation``: the generation number of an array ``state``
    (patterns carry their own), used by checkpoints and observers.
    """
    if isinstance(generations, bool) or not isinstance(generations, (int, np.integer)) or generations < 0:
        raise ValueError(f"generations must be a non-negative integer, got {generations!r}")
    generations = int(generations)
    if checkpoint_every is not None and (isinstance(checkpoint_every, bool) or int(checkpoint_every) < 1):
        raise ValueError(f"checkpoint_every must be a positive integer, got {checkpoint_every!r}")
    if checkpoint_every is not None and checkpoint is None:
        raise ValueError("checkpoint_every needs checkpoint=FILE")
    if max_bytes is not None and (isinstance(max_bytes, bool) or int(max_bytes) <= 0):
        raise ValueError(f"max_bytes must be a positive number of bytes, got {max_bytes!r}")
    if observe is not None and not isinstance(observe, Population):
        raise TypeError(f"observe must be a tensorca.Population observer, not {type(observe).__name__}")
    options = dict(backend=backend, topology=topology, device=device, progress=progress,
                   max_bytes=None if max_bytes is None else int(max_bytes), observe=observe,
                   checkpoint=None if checkpoint is None else Path(checkpoint),
                   checkpoint_every=None if checkpoint_every is None else int(checkpoint_every))
    if isinstance(state, Pattern):
        return _run_pattern(state, rule, generations, **options)
    return _run_grid(state if is_tensor(state) else np.asarray(state), rule, generations, start=int(start_generation), **options)


def resume(path: str | os.PathLike, generations: int, **options: Any) -> Any:
    """Continue a checkpoint for ``generations`` more: ``run(N) == resume(run(N/2, checkpoint=F), N/2)``.

    Returns what the original run returned (a :class:`Pattern`, or a NumPy array). ``options``
    are :func:`run`'s (``backend``, ``checkpoint``, ``checkpoint_every``, ``observe``, ...);
    the rule and topology come from the checkpoint.
    """
    saved = checkpoint_io.load(path)
    if isinstance(saved.state, Pattern):
        return run(saved.state, saved.rule, generations, topology=saved.topology, **options)
    return run(saved.state, saved.rule, generations, topology=saved.topology, start_generation=saved.generation,
               **options)


def _segments_calls(generations: int, progress, checkpoint_every) -> int:
    return len(_boundaries(generations, checkpoint_every, max(1, generations // 100) if progress else None))


def _run_grid(grid, rule, generations, *, backend, topology, device, progress, max_bytes, observe, checkpoint,
              checkpoint_every, start) -> Any:
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
    calls = _segments_calls(generations, progress, checkpoint_every)
    engine, run_device = _select(backend, rule_value, topo, int(batch.shape[0]), shape, generations,
                                 _data_device(batch), device, calls)
    check_states(batch, rule_value)
    checkpointer = None
    if checkpoint is not None:
        batched = cells.ndim == 3
        checkpointer = _Checkpointer(checkpoint, checkpoint_every, lambda gen, _origin: checkpoint_io.manifest_for(
            "grid", rule_value, topo, gen, batched=batched, engine=engine.name))
    samples = Samples(observe)
    out = _advance_batch(engine, batch, rule_value, topo, generations, device=run_device, progress=progress,
                         max_bytes=max_bytes, samples=samples, checkpointer=checkpointer, start=start)
    samples.finish(int(batch.shape[0]))
    out = like_input(out, grid)
    return out if cells.ndim == 3 else out[0]


def _pick_topology(given, from_suffix, shape) -> Topology | None:
    given = resolve_topology(given, shape)
    if given is not None and from_suffix is not None and given != from_suffix:
        raise TopologyError(f"topology {given} conflicts with the rule's suffix {from_suffix}")
    return given or from_suffix


def _run_pattern(pattern: Pattern, rule, generations, *, backend, topology, device, progress, max_bytes, observe,
                 checkpoint, checkpoint_every) -> Pattern:
    rule_value, suffix_topology = resolve_rule(rule, fallback=pattern.rule)
    topo = _pick_topology(topology, suffix_topology, pattern.cells.shape) or pattern.topology
    cells = as_uint8_grid(np.asarray(pattern.cells))[None]
    check_states(cells, rule_value)
    shape = topo.shape if topo.bounded else (int(cells.shape[1]), int(cells.shape[2]))
    engine, run_device = _select(backend, rule_value, topo, 1, shape, generations, "cpu", device,
                                 _segments_calls(generations, progress, checkpoint_every))
    start = pattern.generation
    checkpointer = None
    if checkpoint is not None:
        checkpointer = _Checkpointer(checkpoint, checkpoint_every, lambda gen, origin: checkpoint_io.manifest_for(
            "pattern", rule_value, topo, gen, batched=False, origin=origin if origin is not None else pattern.origin,
            pattern=pattern, engine=engine.name))
    samples = Samples(observe)
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
        out = _advance_batch(engine, grid, rule_value, topo, generations, device=run_device, progress=progress,
                             max_bytes=max_bytes, samples=samples, checkpointer=checkpointer, start=start)
        out = like_input(out, grid)
        origin = pattern.origin
    else:
        out, origin = _advance_unbounded_run(engine, cells, pattern.origin, rule_value, generations, device=run_device,
                                             progress=progress, samples=samples, checkpointer=checkpointer, start=start)
    samples.finish(1)
    return dataclasses.replace(
        pattern,
        cells=np.asarray(out)[0],
        rule=rule_value,
        topology=topo,
        origin=origin,
        generation=pattern.generation + generations,
    )
