"""``ltl-cpu``: Larger than Life and HROT rules at any range on the CPU, O(1) per cell for Moore and
von Neumann neighbourhoods (Numba kernels in :mod:`.ltl_sums`).

Runs every step spec with perceive ``mask_count`` and update ``intervals`` (Golly's LtL and HROT
notations, any neighbourhood but the weighted ones, ``C`` up to 256 with decay) on every bounded
topology: the grid is held padded by the range and the ring refilled from
:func:`~tensorca.topology.padding_ring` before each generation (a bounded plane's ring stays dead).

The mask picks the count kernel (:func:`neighbourhood_plan`): the full square is ``moore`` (each
row's window sums by doubling, then a running sum down the rows), the diamond ``|dx| + |dy| <= r``
is ``diamond`` (diagonal prefix sums), both with or without the centre; any other mask is
``spans`` (one prefix-sum difference per horizontal run of the mask). Counts are kept in the
narrowest unsigned dtype that holds them. Bands of rows run on a few threads (:func:`run_bands`).
This module imports no framework; the kernels load on first use.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...cache_dirs import cache_epoch, compiled_on_disk, numba_cache_dir
from ...cpu_load import free_cores
from ...errors import EngineError
from ...rules.base import Rule
from ...rules.stepspec import MaskCount, StepSpec
from ...topology import Topology, padding_ring
from ..base import Engine

#: Largest count kept in ``uint16`` lanes; larger neighbourhoods count in ``uint32``.
UINT16_MAX = 65535


def why_not_ltl(spec: StepSpec, topology: Topology) -> str | None:
    """None when ``ltl-cpu`` runs ``spec`` on ``topology``, else a short reason (no framework import)."""
    if spec.kinds != ("mask_count", "intervals"):
        return f"it runs mask counts with interval updates, not perceive {spec.kinds[0]!r} with {spec.kinds[1]!r}"
    if not topology.bounded:
        return "it runs bounded grids only (the simulator owns the unbounded plane)"
    if not spec.state_space.discrete or not 2 <= spec.n_states <= 256:
        return f"it runs 2 to 256 discrete states, not {spec.state_space}"
    return None


@dataclass(frozen=True)
class NeighbourhoodPlan:
    """How a ``(2r+1, 2r+1)`` mask is counted.

    ``shape``: ``"moore"``, ``"diamond"`` or ``"spans"``. ``sub``: the kernel counts the centre and
    the mask leaves it out (subtract the centre's own state-1 bit). ``runs``: ``(n, 3)`` int64
    ``(dy, first, last)`` for ``spans`` (empty otherwise). ``max_count``: the largest count the
    kernel can produce (sets the count dtype).
    """

    shape: str
    sub: bool
    runs: np.ndarray
    max_count: int

    @property
    def count_dtype(self) -> type:
        """The narrowest unsigned dtype holding ``max_count``: ``uint8`` counts run in 32 AVX2 lanes,
        ``uint16`` in 16 (Moore to range 7, von Neumann to 10 fit ``uint8``). Each dtype is one
        compiled variant of the kernels."""
        if self.max_count <= 255:
            return np.uint8
        return np.uint16 if self.max_count <= UINT16_MAX else np.uint32


def mask_runs(mask: np.ndarray) -> np.ndarray:
    """``(n, 3)`` int64 ``(dy, first, last)`` of every horizontal run of ones in a 0/1 mask."""
    runs = []
    for dy, row in enumerate(np.asarray(mask, dtype=bool)):
        edges = np.flatnonzero(np.diff(np.concatenate(([0], row.astype(np.int8), [0]))))
        runs += [(dy, int(a), int(b) - 1) for a, b in zip(edges[::2], edges[1::2], strict=True)]
    return np.array(runs, dtype=np.int64).reshape(-1, 3)


@functools.lru_cache(maxsize=64)
def _plan(mask_bytes: bytes, side: int) -> NeighbourhoodPlan:
    mask = np.frombuffer(mask_bytes, dtype=np.uint8).reshape(side, side) != 0
    r = side // 2
    dy, dx = np.mgrid[-r : r + 1, -r : r + 1]
    off_centre = (dy != 0) | (dx != 0)
    none = np.zeros((0, 3), dtype=np.int64)
    for shape, full in (("moore", np.ones_like(mask)), ("diamond", np.abs(dx) + np.abs(dy) <= r)):
        if np.array_equal(mask & off_centre, full & off_centre):
            return NeighbourhoodPlan(shape, not mask[r, r], none, int(full.sum()))
    return NeighbourhoodPlan("spans", False, mask_runs(mask), int(mask.sum()))


def neighbourhood_plan(perceive: MaskCount) -> NeighbourhoodPlan:
    """The count kernel for ``perceive.mask`` (cached by the mask's bytes)."""
    mask = np.ascontiguousarray(perceive.mask, dtype=np.uint8)
    return _plan(mask.tobytes(), mask.shape[0])


def interval_arrays(intervals: tuple[tuple[int, int], ...], max_count: int,
                    dtype: type) -> tuple[np.ndarray, np.ndarray]:
    """``(lo, hi)`` arrays of ``dtype``: the intervals clipped to ``0..max_count``, empty ones dropped."""
    kept = [(max(lo, 0), min(hi, max_count)) for lo, hi in intervals if lo <= hi and hi >= 0 and lo <= max_count]
    lo = np.array([a for a, _ in kept], dtype=dtype)
    hi = np.array([b for _, b in kept], dtype=dtype)
    return lo, hi


@functools.lru_cache(maxsize=32)
def ring_indices(topology: Topology, radius: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """How the ring of the ``(H + 2r, W + 2r)`` padded grid is filled (:func:`.ltl_sums.fill_ring`):
    ``(dst, src, rows, cols)`` int64. A plain torus: padded row ``p`` copies row ``rows[p]``, column
    ``c`` column ``cols[c]`` (``dst``/``src`` empty). Other kinds: ``dst``/``src`` flat indices of the
    ring cells and the interior cells they copy (:func:`~tensorca.topology.padding_ring`). A bounded
    plane: all empty (its ring stays dead)."""
    empty = np.zeros(0, dtype=np.int64)
    height, width = topology.shape
    r = radius
    if topology.kind == "plane":
        return empty, empty, empty, empty
    if topology.kind == "torus" and topology.simple:
        rows = (np.arange(height + 2 * r) - r) % height + r
        cols = (np.arange(width + 2 * r) - r) % width + r
        return empty, empty, rows.astype(np.int64), cols.astype(np.int64)
    dst, src = padding_ring(topology, r)
    src_padded = (src // width + r) * (width + 2 * r) + (src % width + r)
    return (np.ascontiguousarray(dst, dtype=np.int64), np.ascontiguousarray(src_padded, dtype=np.int64),
            empty, empty)


#: Cells per generation worth one more thread (a thread's start and a barrier per generation).
CELLS_PER_THREAD = 1 << 16
#: ``"<kernel>-<count dtype>"`` (``"moore-uint8"``...) whose driver this process has run (loaded or compiled).
_LOADED: set[str] = set()
#: Numba's cache index of the driver: present once it was compiled on this machine.
_INDEX = "sums.run_*-*.nbi"  # Numba names an index after the module file (sums.py) and the function


@functools.lru_cache(maxsize=4)
def _compiled_on_disk(root: str, epoch: int) -> bool:
    """True when Numba's cache under ``root`` (:func:`~tensorca.cache_dirs.numba_cache_dir`)
    holds the driver of :mod:`.ltl_sums` (``epoch``: :func:`~tensorca.cache_dirs.cache_epoch`)."""
    return compiled_on_disk(Path(__file__).with_name("sums.py"), _INDEX)


def kernel_state(rule: Rule) -> str:
    """``"loaded"`` (run in this process), ``"disk"`` (in Numba's on-disk cache), ``"cold"`` (to be
    compiled: 3-7 s of CPU once per machine) or ``"none"`` (a rule ``ltl-cpu`` does not run);
    nothing is imported or compiled to ask."""
    spec = rule.compile()
    if why_not_ltl(spec, Topology.plane(1, 1)) is not None:
        return "none"
    plan = neighbourhood_plan(spec.perceive)  # type: ignore[arg-type]
    if f"{plan.shape}-{np.dtype(plan.count_dtype).name}" in _LOADED:
        return "loaded"
    return "disk" if _compiled_on_disk(str(numba_cache_dir()), cache_epoch()) else "cold"


def run_bands(step: Callable[..., int], a: np.ndarray, b: np.ndarray, generations: int,
              groups: list[np.ndarray], args: tuple, whole_grids: bool) -> list[int]:
    """Run ``step(a, b, first, count, tasks, *args)`` (a driver of :mod:`.ltl_sums`) for every
    generation, each group of bands on its own thread (the calling thread takes the first), all
    threads meeting at a barrier after each generation, unless every group holds ``whole_grids``
    (no band needs another thread's rows): then each thread runs all its generations in one call.

    Returns, per group, the generation at which its grids were found all 0 (``generations`` if
    never): from there on they stay 0. With a barrier, the run stops when every group is all 0.

    Blocking threads rather than Numba's ``parallel=True``: a parallel region's spinning workers
    slow a shared, oversubscribed machine far more than a thread that sleeps until its partner is
    done, and the parallel driver took three times as long to compile. An error in any thread
    breaks the barrier and is raised here after every thread has stopped.
    """
    if len(groups) == 1:
        return [int(step(a, b, 0, generations, groups[0], *args))]
    barrier = threading.Barrier(len(groups))
    errors: list[BaseException] = []
    stops = [generations] * len(groups)
    # per generation parity, so that a fast thread's next flag never overwrites one still being read
    empty = [[False] * len(groups), [False] * len(groups)]

    def work(index: int) -> None:
        tasks = groups[index]
        try:
            if whole_grids:
                stops[index] = int(step(a, b, 0, generations, tasks, *args))
                return
            for g in range(generations):
                empty[g % 2][index] = int(step(a, b, g, 1, tasks, *args)) == g
                barrier.wait()
                if all(empty[g % 2]):
                    stops[index] = g
                    return
        except threading.BrokenBarrierError:
            pass
        except BaseException as exc:  # noqa: BLE001 - re-raised in the calling thread
            errors.append(exc)
            barrier.abort()

    helpers = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(1, len(groups))]
    for thread in helpers:
        thread.start()
    try:
        work(0)
    finally:
        for thread in helpers:
            thread.join()
    if errors:
        raise errors[0]
    return stops


def advance_states(cells: np.ndarray, spec: StepSpec, topology: Topology, generations: int,
                   threads: int | None = None) -> np.ndarray:
    """``generations`` (>= 1) steps of ``spec`` (mask count, intervals) on ``(B, H, W)`` ``uint8``
    states; a new array. ``threads``: split the work as if for that many threads (default: Numba's
    thread count, fewer for small work), run on at most Numba's thread count."""
    from ..._numba import numba
    from . import sums as ltl_sums
    perceive = spec.perceive
    if why_not_ltl(spec, topology) is not None or not isinstance(perceive, MaskCount):
        raise EngineError(f"ltl-cpu cannot run {spec.kinds} on {topology}: {why_not_ltl(spec, topology)}")
    batch, height, width = cells.shape
    r = perceive.radius
    plan = neighbourhood_plan(perceive)
    dtype = plan.count_dtype
    b_lo, b_hi = interval_arrays(spec.update.birth, plan.max_count, dtype)  # type: ignore[union-attr]
    s_lo, s_hi = interval_arrays(spec.update.survival, plan.max_count, dtype)  # type: ignore[union-attr]
    # a dead cell in a dead window has count 0: when that is no birth, dead windows are skipped
    skip = not bool(((b_lo <= 0) & (b_hi >= 0)).any())
    step = {"moore": ltl_sums.run_moore, "diamond": ltl_sums.run_diamond, "spans": ltl_sums.run_spans}[plan.shape]
    ring = ring_indices(topology, r)
    a = np.zeros((batch, height + 2 * r, width + 2 * r), dtype=np.uint8)
    a[:, r : r + height, r : r + width] = cells
    b = np.zeros_like(a)
    # the dtype of a row's window sums (Moore); one dtype for the other kernels: one compiled variant
    hw = np.zeros(0, dtype=np.uint16 if plan.shape == "moore" and 2 * r + 1 > 255 else np.uint8)
    args = (r, width, plan.sub, plan.runs, hw, b_lo, b_hi, s_lo, s_hi, spec.n_states, skip, *ring)
    # the cores free now: a per-generation barrier stalls on a core another process holds
    available = max(1, min(int(numba.config.NUMBA_NUM_THREADS), free_cores()))
    if threads is None:  # small work is not worth a thread's start and per-generation barrier
        threads = max(1, min(available, batch * height * width // CELLS_PER_THREAD))
    # enough (grid, band of rows) tasks for every thread; a band shorter than a window repeats too
    # much of its neighbours' work
    bands = max(1, min(-(-threads // batch), height // (2 * r + 1)))
    tasks = np.array([(i, k * height // bands, (k + 1) * height // bands) for i in range(batch) for k in range(bands)],
                     dtype=np.int64)
    groups = [np.ascontiguousarray(g) for g in np.array_split(tasks, min(threads, available, len(tasks))) if len(g)]
    stops = run_bands(step, a, b, generations, groups, args, whole_grids=bands == 1)
    _LOADED.add(f"{plan.shape}-{np.dtype(dtype).name}")
    result = np.ascontiguousarray((a if generations % 2 == 0 else b)[:, r : r + height, r : r + width])
    for group, stop in zip(groups, stops, strict=True):
        if stop < generations:  # all 0 from generation `stop` on: the buffers stopped there
            result[np.unique(group[:, 0])] = 0
    return result


class LtlCpuEngine(Engine):
    """``backend="ltl-cpu"``: Larger than Life / HROT (mask counts and intervals, decay included) on
    every bounded topology; weighted neighbourhoods stay with the torch and NumPy engines."""

    name = "ltl-cpu"
    array_module = "numpy"

    #: Input, two padded uint8 buffers (the ring is small next to the grid), the uint8 result.
    bytes_per_cell = 4.5

    def devices(self) -> list[str]:
        return ["cpu"]

    def supports(self, rule: Rule, topology: Topology) -> bool:
        return why_not_ltl(rule.compile(), topology) is None

    def why_unsupported(self, rule: Rule, topology: Topology) -> str:
        reason = why_not_ltl(rule.compile(), topology)
        return f"engine {self.name!r} cannot run {rule.canonical() or rule!r} on {topology}: {reason or 'supported'}"

    def advance(self, cells: np.ndarray, rule: Rule, topology: Topology, generations: int) -> np.ndarray:
        spec = rule.compile()
        if why_not_ltl(spec, topology) is not None:
            raise EngineError(self.why_unsupported(rule, topology))
        cells = np.asarray(cells, dtype=np.uint8)
        if cells.ndim != 3 or cells.shape[1:] != topology.shape:
            raise EngineError(f"engine {self.name!r} needs (B, H, W) cells with (H, W) = {topology.shape}, "
                              f"got {cells.shape}")
        if generations == 0:
            return cells.copy()
        return advance_states(cells, spec, topology, generations)


__all__ = ["LtlCpuEngine", "NeighbourhoodPlan", "advance_states", "kernel_state", "neighbourhood_plan", "why_not_ltl"]
