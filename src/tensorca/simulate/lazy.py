"""``run`` and ``resume`` for dask arrays and zarr stores: grids that need not fit in memory.

:func:`tensorca.run` hands a grid here when it is a ``dask.array`` or when its ``checkpoint`` is a
zarr store (``"grid.zarr"``); :func:`tensorca.resume` hands a zarr store here. The grid runs on the
dask engine (:mod:`tensorca.engines.dask_engine`; ``backend="auto"`` means it, or pass a configured
one: ``get_engine("dask").with_options(chunks=4096)``):

- a dask array in, no checkpoint: the result is a lazy dask array (nothing is computed);
- with ``checkpoint="grid.zarr"``: every ``checkpoint_every`` generations (default: once, at the end)
  the state is written to the store chunk by chunk (:mod:`tensorca.persist.zarr_store`) and the next
  segment reads it back, so no process ever holds the grid; Ctrl-C leaves the last complete segment
  in the store and raises :class:`~tensorca.simulate.plan.Interrupted`; the result is then the lazy
  grid reading the store (a NumPy array in gives the computed NumPy array back).

Cell values of a lazy grid are checked chunk by chunk as they are computed, not before.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from .. import persist
from ..engines.base import Engine, advance_engine
from ..errors import CheckpointError, GridError, TopologyError, UsageError
from ..randomness import Clock
from ..rules.base import Rule
from ..rules.spec import resolve
from ..topology import Topology
from .context import engine_context
from .plan import Interrupted, boundaries
from .progress import progress_reporter


def is_lazy(state: Any) -> bool:
    """True for a dask array (checked without importing dask)."""
    return type(state).__module__.split(".")[0] == "dask" and hasattr(state, "chunks")


def wanted(state: Any, checkpoint: Any) -> bool:
    """True when ``run`` should take this path: a dask array, or a zarr store as the checkpoint."""
    return is_lazy(state) or (checkpoint is not None and persist.format_of(checkpoint) is persist.ZARR)


def dask_engine(backend: str | Engine) -> Engine:
    """The dask engine ``backend`` names (``"auto"``, ``"dask"`` or a configured one); UsageError otherwise."""
    from ..engines import get_engine

    if isinstance(backend, Engine):
        if backend.name == "dask":
            return backend
    elif backend in ("auto", "dask"):
        return get_engine("dask")
    name = backend.name if isinstance(backend, Engine) else backend
    raise UsageError(f"a dask array or a zarr store runs on the dask engine (backend='dask' or 'auto'), not "
                     f"{name!r}; pass np.asarray(grid) to run another engine in memory, or "
                     f"get_engine('dask').with_options(inner={name!r}) to run it on each chunk")


def run_lazy(state: Any, rule: str | Rule | None, generations: int, *, backend: str | Engine, topology: Any,
             device: str | None, progress: Any, observe: Any, checkpoint: Path | None, checkpoint_every: int | None,
             start: int, seed: int = 0) -> Any:
    """:func:`tensorca.run` for a dask array, or for any grid checkpointed to a zarr store (``seed``: a
    stochastic rule's, its draws at absolute generations from ``start``)."""
    engine = dask_engine(backend)  # MissingDependencyError (with the pip command) before dask is imported
    if observe is not None:
        raise UsageError("observers read every generation in memory; a dask array or zarr store run takes none")
    if device not in (None, "cpu"):
        raise UsageError(f"the dask engine runs on the CPU of each worker, not on device {device!r}")
    if not is_lazy(state) and not hasattr(state, "ndim"):
        raise UsageError(f"a zarr checkpoint holds an array grid, not a {type(state).__name__}")
    given_lazy = is_lazy(state)
    grid = state if given_lazy else np.asarray(state)
    if grid.ndim not in (2, 3):
        raise GridError(f"grid must be (H, W) or (B, H, W), got shape {tuple(grid.shape)}")
    shape = (int(grid.shape[-2]), int(grid.shape[-1]))
    rule_value, topo = resolve(rule, topology, shape=shape)
    topo = topo or Topology.torus(shape[1], shape[0])
    if not topo.bounded:
        raise TopologyError("an array has no origin to grow from; run a Pattern on the unbounded plane")
    if topo.shape != shape:
        raise GridError(f"grid of shape {shape} (H, W) does not match topology {topo} ({topo.height}x{topo.width})")
    if not rule_value.state_space.discrete:
        raise UsageError(f"rule {rule_value.canonical()!r} has float cells; the dask engine runs discrete states")
    if grid.dtype.kind not in "uib":
        raise GridError(f"grid dtype must be integer or bool (cell states), got {grid.dtype}")
    batched = grid.ndim == 3
    batch = grid if batched else grid[None]
    if not given_lazy:  # cut as the engine would (on a cluster each chunk is scattered to a worker)
        from ..engines.dask_engine import balanced, from_numpy

        side = getattr(getattr(engine, "options", None), "chunks", 4096)
        batch = from_numpy(np.ascontiguousarray(batch), ((1,) * int(batch.shape[0]), balanced(shape[0], side),
                                                         balanced(shape[1], side)))
    batch = batch.astype(np.uint8) if batch.dtype != np.uint8 else batch
    dims = tuple(int(s) for s in batch.shape)
    with engine_context(rule_value, topo, dims, engine.name):
        if not engine.supports(rule_value, topo):
            from ..errors import EngineError

            raise EngineError(engine.why_unsupported(rule_value, topo))
        if checkpoint is None:
            out = advance_engine(engine, batch, rule_value, topo, generations, Clock(seed, start))
            return out if batched else out[0]
        with progress_reporter(progress, generations) as report:
            out = run_segments(engine, batch, rule_value, topo, generations, checkpoint, checkpoint_every, start,
                               batched, report, seed)
    if not given_lazy:
        out = np.ascontiguousarray(out.compute())
    return out if batched else out[0]


def run_segments(engine: Engine, grid: Any, rule: Rule, topology: Topology, generations: int, path: Path,
                 every: int | None, start: int, batched: bool, progress: Any = None, seed: int = 0) -> Any:
    """Advance the lazy ``(B, H, W)`` ``grid`` segment by segment, each written to the zarr store ``path``.

    Returns the lazy grid reading the store after the last segment. Ctrl-C raises :class:`Interrupted`
    naming the store and the generation it holds (a plain ``KeyboardInterrupt`` if the first segment
    had not been written yet).
    """
    from ..persist.npz import manifest_for
    from ..persist.zarr_store import open_store, save_store

    done, saved = 0, None
    try:
        for end in boundaries(generations, every):
            out = advance_engine(engine, grid, rule, topology, end - done, Clock(seed, start + done))
            manifest = manifest_for("grid", rule, topology, start + end, batched=batched, engine=engine.name,
                                    seed=seed)
            save_store(path, out, manifest)
            saved = start + end
            grid = open_store(path).grid
            done = end
            if progress is not None:
                progress(done, generations)
    except KeyboardInterrupt:
        if saved is None:
            raise
        raise Interrupted(path, saved) from None
    return grid


def open_saved_store(path: str | os.PathLike) -> Any:
    """The zarr store :func:`tensorca.resume` continues (its lazy ``state``, ``rule``, ``topology``,
    ``generation`` and ``manifest``); :func:`tensorca.resume` runs it on as :func:`tensorca.run` does a
    dask array: with ``checkpoint=`` (the same store, or another) the segments are written there as they
    run; without, nothing is computed and the result is a lazy dask array."""
    from ..persist.zarr_store import open_store

    saved = open_store(path)
    seed = saved.manifest.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise CheckpointError(f"{path}: manifest 'seed' must be an integer, got {seed!r}")
    return saved
