"""The public entry points: ``run``, ``resume``, ``explain`` and ``decide``.

Each checks its arguments first (:class:`~tensorca.errors.UsageError` names the bad one), resolves
rule and topology with :func:`tensorca.rules.spec.resolve`, chooses the engine, and hands a
:class:`~tensorca.simulate.plan.RunPlan` the loop. A :class:`~tensorca.errors.TensorcaError`
raised while the engine is chosen or runs comes back with the rule, topology, shape and engine
added to its message (the same exception type, chained to the original).
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import numpy as np

from .. import costmodel, persist
from ..arrays import as_cells, device_kind, is_tensor, like_input
from ..engines.base import Engine
from ..engines.registry import unbounded_native
from ..errors import GridError, TopologyError, UsageError
from ..memory import require_memory
from ..observers import Population, Samples
from ..pattern import Pattern
from ..persist import npz as checkpoint_io
from ..randomness import check_seed
from ..rules.base import Rule
from ..rules.spec import resolve
from ..topology import Topology
from ..unbounded import tree_saver
from . import checks, lazy
from .context import engine_context
from .plan import Checkpointer, RunPlan, count_segments, data_device, progress_step
from .progress import ProgressCallback, check_progress, progress_reporter
from .select import DEFAULT_BACKEND, check_run_device, engine_for, select_engine


@dataclasses.dataclass(frozen=True)
class _Request:
    """``run``'s options, checked: what the caller asked for, before rule and topology are resolved."""

    backend: str | Engine
    topology: str | Topology | None
    device: str | None
    progress: bool | ProgressCallback | None
    max_bytes: int | None
    observe: Population | None
    checkpoint: Path | None
    checkpoint_every: int | None
    seed: int = 0


def _calls(generations: int, request: _Request) -> int:
    """Engine calls the run makes: segments between checkpoints and progress reports (for auto's costs)."""
    step = progress_step(generations) if request.progress else None
    return count_segments(generations, request.checkpoint_every, step)


def run(
    state: Any,
    rule: str | Rule | None = None,
    generations: int = 1,
    *,
    backend: str | Engine = DEFAULT_BACKEND,
    topology: str | Topology | None = None,
    device: str | None = None,
    progress: bool | ProgressCallback | None = None,
    max_bytes: int | None = None,
    observe: Population | None = None,
    checkpoint: str | os.PathLike | None = None,
    checkpoint_every: int | None = None,
    start_generation: int = 0,
    seed: int = 0,
) -> Any:
    """Advance ``state`` by ``generations`` and return the same kind of object.

    ``state``: a :class:`Pattern`, or a NumPy array / torch tensor of cell states, ``(H, W)`` or
    ``(B, H, W)``, integer or bool (returned as ``uint8``) for discrete rules; float32 or float64
    cells in ``[0, 1]`` for continuous rules (Lenia), returned in the same dtype (a tensor keeps its
    autograd graph through the torch engine). ``rule``: a rule string (optionally
    with a Golly topology suffix) or a rule value; defaults to the pattern's rule, then B3/S23.
    ``topology``: a suffix (``":P64,64"``), ``"torus"``/``"plane"`` (the array's own size),
    ``"unbounded"`` (patterns only) or a :class:`Topology`. An array without one is a torus of
    its own shape; a pattern keeps the topology of its file (no suffix = the unbounded plane).
    ``backend``: ``"auto"`` (the engine predicted fastest that supports the rule; see
    :func:`explain`), an engine name, or an engine value.
    ``device``: where a torch engine runs (``"cpu"``, ``"cuda"``, ``"cuda:N"``, ``"mps"``; default:
    the tensor's own device, else ``"cpu"``, or the device ``auto`` chose); the result comes back
    as the input kind, a tensor on its original device.
    ``progress``: ``True`` draws a rich progress bar on stderr; a callable is called as
    ``progress(done, total)`` after each chunk of generations.
    ``max_bytes``: memory budget for the engine's working set; larger batches run in chunks
    (default: what the device has free). ``observe``: a :class:`Population` observer, filled in
    place. ``checkpoint``/``checkpoint_every``: write the state to this ``.npz`` every ``N``
    generations and at the end (Ctrl-C writes the last completed state and raises
    :class:`Interrupted`). ``start_generation``: the generation number of an array ``state``
    (patterns carry their own), used by checkpoints, observers and a stochastic rule's draws.
    ``seed``: the seed of a stochastic rule's random draws (any integer; default 0, so a run is
    reproducible unless asked otherwise). Every draw is a pure function of the seed, the absolute
    generation, the grid's index in the batch and the cell's coordinates
    (:mod:`tensorca.randomness`), so the same seed gives the same cells on every engine, chunking,
    batch and checkpoint resume. Deterministic rules ignore it.

    Bad arguments raise :class:`~tensorca.errors.UsageError`; other errors are
    :class:`~tensorca.errors.TensorcaError` subclasses that name the rule, topology, shape and engine.
    """
    generations = checks.count(generations, "generations")
    path, every = checks.checkpoint_options(checkpoint, checkpoint_every)
    request = _Request(
        backend=checks.backend_value(backend), topology=topology, device=check_run_device(device),
        progress=check_progress(progress), max_bytes=checks.byte_budget(max_bytes),
        observe=checks.observer(observe), checkpoint=path, checkpoint_every=every, seed=check_seed(seed))
    if isinstance(state, Pattern):
        return _run_pattern(state, rule, generations, request)
    start = checks.count(start_generation, "start_generation")
    if lazy.wanted(state, path):  # a dask array, or a zarr store as checkpoint: the dask engine, out of core
        return lazy.run_lazy(state, rule, generations, backend=request.backend, topology=topology,
                             device=request.device, progress=request.progress, observe=request.observe,
                             checkpoint=path, checkpoint_every=every, start=start, seed=request.seed)
    return _run_grid(state if is_tensor(state) else np.asarray(state), rule, generations, request, start)


def resume(path: str | os.PathLike, generations: int, **options: Any) -> Any:
    """Continue a checkpoint for ``generations`` more: ``run(N) == resume(run(N/2, checkpoint=F), N/2)``.

    Returns what the original run returned (a :class:`Pattern`, or a NumPy array). ``options``
    are :func:`run`'s (``backend``, ``checkpoint``, ``checkpoint_every``, ``observe``, ...);
    the rule and topology come from the checkpoint.
    """
    checks.count(generations, "generations")
    for fixed in ("rule", "topology", "start_generation", "state"):
        if fixed in options:
            raise UsageError(f"resume() takes {fixed} from the checkpoint; do not pass {fixed}=")
    if lazy.wanted(None, path):  # a zarr store: a lazy dask array back (see tensorca.simulate.lazy)
        saved = lazy.open_saved_store(path)
        return run(saved.state, saved.rule, generations, topology=saved.topology, start_generation=saved.generation,
                   **_saved_seed(saved.manifest.get("seed"), options))
    saved = persist.load(path)
    options = _saved_seed(saved.seed, options)
    if isinstance(saved.state, Pattern):
        return run(saved.state, saved.rule, generations, topology=saved.topology, **options)
    return run(saved.state, saved.rule, generations, topology=saved.topology, start_generation=saved.generation,
               **options)


def _saved_seed(seed: int | None, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with the checkpoint's ``seed`` (a stochastic run's); a different ``seed=`` is refused."""
    if seed is None:
        return options
    if "seed" in options and options["seed"] != seed:
        raise UsageError(f"resume() continues the checkpoint's run with its seed {seed}; do not pass seed="
                         f"{options['seed']!r} (run() from the checkpoint's cells starts a new run)")
    return {**options, "seed": seed}


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
    return _choice(_explained_job(state, rule, generations, topology, device, calls))


def _choice(job: costmodel.Job) -> costmodel.Choice:
    """``costmodel.choose`` for ``job``."""
    return costmodel.choose(job.rule, job.topology, job.batch, job.shape, job.generations, data_device=job.data_device,
                            device=job.device, calls=job.calls, population=job.population)


@dataclasses.dataclass(frozen=True)
class Decision:
    """``auto``'s decision for one run, taken before it starts: ``choice`` (every prediction), and
    the ``engine`` value and ``device`` that ``run(..., backend=engine, device=device)`` then uses,
    so that what is printed before a run is what runs. ``engine`` is a
    :class:`~tensorca.engines.tiered.Tiered` engine when a faster engine's kernels are being
    compiled in the background (its ``ran`` says afterwards which engine ran which generations)."""

    choice: costmodel.Choice
    engine: Engine
    device: str | None

    def describe_run(self) -> str:
        """The engine(s) that ran, in words: ``auto: bitpack-cpu (cpu)``, or for a tiered run
        ``auto: torch (cpu) for 549 generations, then ltl-cpu once compiled (1451)``."""
        ran = getattr(self.engine, "ran", None)
        if not ran:
            return f"auto: {self.engine.name} ({self.choice.device})"
        parts = [f"{ran[0][0]} ({self.choice.device}) for {ran[0][1]:,} generations"]
        parts += [f"then {name} once compiled ({gens:,})" for name, gens in ran[1:]]
        return "auto: " + ", ".join(parts)


def decide(
    state: Any,
    rule: str | Rule | None = None,
    generations: int = 1,
    *,
    topology: str | Topology | None = None,
    device: str | None = None,
    calls: int = 1,
) -> Decision:
    """``auto``'s choice for ``run(state, rule, generations, ...)`` (as :func:`explain`), with the
    engine value to pass ``run`` as ``backend=`` (and the device) so the run uses exactly it. Starts
    the background compile of a faster engine whose kernels are cold (:mod:`tensorca.background`)."""
    job = _explained_job(state, rule, generations, topology, device, calls)
    choice = _choice(job)
    dims = (job.batch, *job.shape)
    engine, run_device = engine_for(choice, job.rule, job.topology, dims, job.generations,  # type: ignore[arg-type]
                                    data_device=job.data_device, device=job.device)
    return Decision(choice, engine, run_device)


def _explained_job(state: Any, rule: str | Rule | None, generations: int, topology: str | Topology | None,
                   device: str | None, calls: int) -> costmodel.Job:
    """The job ``run`` would price for these arguments (checked as ``run`` checks them)."""
    generations = checks.count(generations, "generations")
    calls = checks.count(calls, "calls", 1)
    if device is not None:
        device_kind(device)  # the syntax only: explaining a GPU run from a CPU machine is allowed
        device = str(device)
    population = None
    if isinstance(state, Pattern):
        rule_value, topo = resolve(rule, topology, shape=state.shape, fallback=state.rule)
        topo = topo or state.topology
        batch, shape = 1, (topo.shape if topo.bounded else state.shape)
        where, population = "cpu", (None if topo.bounded else state.population)
    else:
        grid = state if is_tensor(state) else np.asarray(state)
        dims = tuple(int(s) for s in grid.shape)
        if len(dims) not in (2, 3, 4):
            raise GridError(f"grid must be (H, W) or (B, H, W), got shape {dims}")
        shape = dims[-2:]
        rule_value, topo = resolve(rule, topology, shape=shape)
        batch = 1 if checks.single_grid(grid, rule_value) else dims[0]
        topo = topo or Topology.torus(shape[1], shape[0])
        where = data_device(grid)
    return costmodel.Job(rule_value, topo, batch, tuple(shape), generations, where, device, calls,  # type: ignore[arg-type]
                         population)


# -- errors with context ------------------------------------------------------------------------


def _engine_label(backend: str | Engine) -> str:
    return backend.name if isinstance(backend, Engine) else str(backend)


# -- grids and patterns -----------------------------------------------------------------------------


def _run_grid(grid: Any, rule: str | Rule | None, generations: int, request: _Request, start: int) -> Any:
    if grid.ndim not in (2, 3, 4):
        raise GridError(f"grid must be (H, W) or (B, H, W), got shape {tuple(grid.shape)}")
    shape = (int(grid.shape[-2]), int(grid.shape[-1]))
    rule_value, topo = resolve(rule, request.topology, shape=shape)
    single = checks.single_grid(grid, rule_value)  # (H, W), or (C, H, W) for a multi-channel rule
    if request.observe is not None and checks.channel_count(rule_value) is not None:
        raise UsageError(f"observers sum (B, H, W) grids; rule {rule_value.canonical()!r} has channels, so "
                         "observe= is not supported for it yet (sum the returned cells instead)")
    cells = as_cells(grid, not rule_value.state_space.discrete, rule_value.canonical())
    batch = cells[None] if single else cells
    topo = topo or Topology.torus(shape[1], shape[0])
    if not topo.bounded:
        raise TopologyError("an array has no origin to grow from; "
                            "wrap it in a Pattern to run it on the unbounded plane")
    if topo.shape != shape:
        raise GridError(f"grid of shape {shape} (H, W) does not match topology {topo} ({topo.height}x{topo.width})")
    dims = tuple(int(s) for s in batch.shape)
    request = _keep_autograd(grid, request)
    with engine_context(rule_value, topo, dims, _engine_label(request.backend)):
        engine, run_device = select_engine(request.backend, rule_value, topo, (dims[0], *shape), generations,
                                           data_device=data_device(batch), device=request.device,
                                           calls=_calls(generations, request))
    checks.check_states(cells, rule_value)  # the caller's own shape, so the index it names is theirs
    if getattr(grid, "requires_grad", False) and engine.array_module != "torch":
        raise UsageError(f"the grid requires grad, but engine {engine.name!r} computes on NumPy arrays and would drop "
                         "the autograd graph; use backend='torch'")
    checkpointer = None
    if request.checkpoint is not None:
        batched = not single
        checkpointer = Checkpointer(request.checkpoint, request.checkpoint_every, lambda gen, _origin: (
            checkpoint_io.manifest_for("grid", rule_value, topo, gen, batched=batched, engine=engine.name,
                                       seed=request.seed)))
    samples = Samples(request.observe)
    with progress_reporter(request.progress, generations) as progress, \
            engine_context(rule_value, topo, dims, engine.name):
        plan = RunPlan(engine, rule_value, topo, generations, run_device, request.max_bytes, progress, samples,
                       checkpointer, start, request.seed)
        out = plan.advance_batch(batch)
    samples.finish(dims[0])
    out = like_input(out, grid)
    return out[0] if single else out


def _keep_autograd(grid: Any, request: _Request) -> _Request:
    """A tensor that requires grad runs on the torch engine under ``auto`` (the only one keeping its graph)."""
    if getattr(grid, "requires_grad", False) and request.backend == "auto":
        return dataclasses.replace(request, backend="torch")
    return request


def _run_pattern(pattern: Pattern, rule: str | Rule | None, generations: int, request: _Request) -> Pattern:
    rule_value, topo = resolve(rule, request.topology, shape=pattern.shape, fallback=pattern.rule)
    topo = topo or pattern.topology
    if checks.channel_count(rule_value) is not None:
        raise GridError(f"a Pattern holds one (H, W) plane; rule {rule_value.canonical()!r} has "
                        f"{checks.channel_count(rule_value)} channels: run it on a (C, H, W) or (B, C, H, W) array")
    chosen = None
    if not topo.bounded:  # the engine first: a quadtree engine never needs dense cells
        with engine_context(rule_value, topo, (1, *pattern.shape), _engine_label(request.backend)):
            chosen = select_engine(request.backend, rule_value, topo, (1, *pattern.shape), generations,
                                   data_device="cpu", device=request.device, calls=_calls(generations, request),
                                   population=pattern.population)
        if unbounded_native(chosen[0]):
            return _run_tree(pattern, chosen[0], rule_value, topo, generations, request)
    cells = as_cells(np.asarray(pattern.cells), not rule_value.state_space.discrete, rule_value.canonical())[None]
    checks.check_states(cells, rule_value)
    shape = topo.shape if topo.bounded else (int(cells.shape[1]), int(cells.shape[2]))
    grid = _place_on_grid(cells, topo, request.max_bytes) if topo.bounded else cells
    dims = tuple(int(s) for s in grid.shape)
    with engine_context(rule_value, topo, dims, _engine_label(request.backend)):
        engine, run_device = chosen or select_engine(request.backend, rule_value, topo, (1, *shape), generations,
                                                     data_device="cpu", device=request.device,
                                                     calls=_calls(generations, request))
    checkpointer = None
    if request.checkpoint is not None:
        checkpointer = Checkpointer(request.checkpoint, request.checkpoint_every, lambda gen, origin: (
            checkpoint_io.manifest_for("pattern", rule_value, topo, gen, batched=False, pattern=pattern,
                                       origin=origin if origin is not None else pattern.origin, engine=engine.name,
                                       seed=request.seed)))
    samples = Samples(request.observe)
    with progress_reporter(request.progress, generations) as progress, \
            engine_context(rule_value, topo, dims, engine.name):
        plan = RunPlan(engine, rule_value, topo, generations, run_device, request.max_bytes, progress, samples,
                       checkpointer, pattern.generation, request.seed)
        if topo.bounded:
            out, origin = like_input(plan.advance_batch(grid), grid), pattern.origin
        else:
            out, origin = plan.advance_unbounded(cells, pattern.origin)
    samples.finish(1)
    return dataclasses.replace(pattern, cells=np.asarray(out)[0], rule=rule_value, topology=topo, origin=origin,
                               generation=pattern.generation + generations)


def _run_tree(pattern: Pattern, engine: Engine, rule: Rule, topo: Topology, generations: int,
              request: _Request) -> Pattern:
    """The unbounded plane on an engine that runs it as a quadtree: the pattern's tree (a copy) or
    one built from its cells, stepped in place; the result is a tree-backed pattern."""
    dims = (1, *pattern.shape)
    with engine_context(rule, topo, dims, engine.name):
        universe = engine.start(pattern, rule, request.max_bytes)
    checkpointer = save = None
    if request.checkpoint is not None:
        checkpointer = Checkpointer(request.checkpoint, request.checkpoint_every, lambda gen, origin: (
            checkpoint_io.manifest_for("pattern", rule, topo, gen, batched=False, pattern=pattern, origin=origin,
                                       engine=engine.name)))
        save = tree_saver(checkpointer, rule, pattern)
    samples = Samples(request.observe)
    with progress_reporter(request.progress, generations) as progress, engine_context(rule, topo, dims, engine.name):
        plan = RunPlan(engine, rule, topo, generations, None, request.max_bytes, progress, samples, checkpointer,
                       pattern.generation)
        universe = plan.advance_tree(universe, save)
    samples.finish(1)
    return Pattern(tree=universe, rule=rule, topology=topo, generation=pattern.generation + generations,
                   name=pattern.name, comments=list(pattern.comments), author=pattern.author)


def _place_on_grid(cells: np.ndarray, topo: Topology, max_bytes: int | None = None) -> np.ndarray:
    """``(1, h, w)`` pattern cells on a ``(1, H, W)`` grid of ``topo``; the top-left cell is the origin.
    :class:`MemoryBudgetError` before allocating a grid larger than ``max_bytes`` or the host's free memory."""
    height, width = topo.shape
    if cells.shape[1] > height or cells.shape[2] > width:
        raise TopologyError(
            f"pattern of {cells.shape[2]}x{cells.shape[1]} cells (W x H) does not fit the "
            f"{width}x{height} grid of topology {topo}"
        )
    require_memory(f"the {width}x{height} grid of topology {topo} ({height * width:,} cells)",
                   height * width * cells.dtype.itemsize, "use a smaller bounded topology, or the unbounded "
                   "plane (no suffix) where the pattern is sparse", max_bytes=max_bytes)
    grid = np.zeros((1, height, width), dtype=cells.dtype)
    grid[:, : cells.shape[1], : cells.shape[2]] = cells
    return grid

