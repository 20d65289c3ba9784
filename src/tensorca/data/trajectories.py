"""CA trajectory datasets for ``torch.utils.data``: the same samples for any worker count, order or machine.

:class:`Trajectories` (map-style) makes item ``i`` from ``(seed, i)`` alone: a start state drawn on
the host with NumPy (a soup of some density, a pattern placed at a random position, or the user's
own function), evolved with :func:`tensorca.run`. An item is a pair ``(x_t, x_{t+k})`` of ``(H, W)``
``uint8`` tensors, ``k = generations``, or with ``steps=T`` a ``(T+1, H, W)`` ``uint8`` trajectory
of frames ``k`` generations apart. ``t`` is ``warmup`` (an int, or a ``(lo, hi)`` range drawn per
item). For a continuous rule (Lenia) the tensors are ``float32`` in [0, 1]: soups give live cells a
uniform value, and patterns (``tensorca.lenia.creature(...)``) keep their float cells.

:class:`TrajectoryStream` (iterable) yields the same items ``0, 1, 2, ...`` endlessly (or up to
``length``); DataLoader worker ``w`` of ``n`` (and distributed rank ``r`` of ``R``) yields indices
``s, s + S, s + 2S, ...`` with ``s = r*n + w`` and ``S = R*n``, so workers never duplicate an item and
together they produce exactly the single-process stream.

Both evolve whole batches at once when the DataLoader asks for several items (``__getitems__``):
the same bits as item by item, at the cost of one engine call per batch.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import torch
from torch.utils.data import Dataset, IterableDataset, get_worker_info

from ..arrays import as_uint8_grid
from ..errors import GridError, TopologyError, UsageError
from ..memory import require_memory
from ..pattern import Pattern
from ..rules.base import Rule
from ..rules.spec import resolve
from ..simulate import run
from ..topology import Topology
from .errors import DatasetIndexError, DatasetTypeError
from .seeding import item_rng

StartFunction = Callable[[np.random.Generator, tuple[int, int]], np.ndarray]
"""``start(rng, (H, W)) -> (H, W)`` integer grid: a user-defined start state from the item's generator."""

Sample = Any  # tuple[torch.Tensor, torch.Tensor] | torch.Tensor


def _range(value: Any, name: str, lo_ok: float, hi_ok: float | None, integer: bool) -> tuple[Any, Any]:
    """``value`` as an inclusive ``(lo, hi)`` pair, validated; a single number gives ``(v, v)``."""
    pair = tuple(value) if isinstance(value, (tuple, list)) else (value, value)
    if len(pair) != 2:
        raise UsageError(f"{name} must be a number or a (lo, hi) pair, got {value!r}")
    kinds = (int, np.integer) if integer else (int, float, np.integer, np.floating)
    for v in pair:
        if isinstance(v, bool) or not isinstance(v, kinds):
            what = "an integer" if integer else "a number"
            raise UsageError(f"{name} must be {what} or a (lo, hi) pair, got {value!r}")
    lo, hi = pair
    if lo > hi or lo < lo_ok or (hi_ok is not None and hi > hi_ok):
        bound = f"[{lo_ok}, {hi_ok}]" if hi_ok is not None else f">= {lo_ok}"
        raise UsageError(f"{name} must lie in {bound} with lo <= hi, got {value!r}")
    return (int(lo), int(hi)) if integer else (float(lo), float(hi))


def _shape(shape: Any) -> tuple[int, int]:
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape, shape)
    try:
        height, width = (int(s) for s in shape)
    except (TypeError, ValueError):
        raise GridError(f"shape must be (H, W) or one int, got {shape!r}") from None
    if height < 1 or width < 1:
        raise GridError(f"shape must be positive, got {(height, width)}")
    return height, width


def _count(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise UsageError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _load_pattern(item: Any) -> np.ndarray:
    if isinstance(item, (str, os.PathLike)):
        from ..io import load

        item = load(item)
    cells = np.asarray(item.cells if isinstance(item, Pattern) else item)
    # float cells (Lenia creatures) stay floats; the rule decides below whether they fit
    cells = cells.astype(np.float32) if np.issubdtype(cells.dtype, np.floating) else as_uint8_grid(cells)
    if cells.ndim != 2 or cells.size == 0:
        raise GridError(f"a pattern to place must be a non-empty (H, W) grid, got shape {cells.shape}")
    return cells


class _Spec:
    """What one sample is: rule, grid, start states and evolution, shared by every dataset class."""

    def __init__(
        self,
        rule: str | Rule,
        shape: Any,
        generations: int,
        *,
        steps: int | None,
        density: float | tuple[float, float],
        warmup: int | tuple[int, int],
        pattern: Any,
        symmetries: bool,
        start: StartFunction | None,
        topology: str | Topology | None,
        backend: str,
        seed: int,
    ) -> None:
        self.shape = _shape(shape)
        self.rule, topo = resolve(rule, topology, shape=self.shape)
        self.topology: Topology = topo or Topology.torus(self.shape[1], self.shape[0])
        if not self.topology.bounded or self.topology.shape != self.shape:
            raise TopologyError(f"topology {self.topology} must be a bounded grid of shape {self.shape} (H, W)")
        self.generations = _count(generations, "generations", 0)
        self.steps = None if steps is None else _count(steps, "steps", 1)
        self.density = _range(density, "density", 0.0, 1.0, integer=False)
        self.warmup = _range(warmup, "warmup", 0, None, integer=True)
        self.seed = _count(seed, "seed", 0)
        #: float32 cells in [0, 1] for a continuous rule (Lenia), uint8 states otherwise
        self.continuous = not self.rule.state_space.discrete
        self.dtype = np.dtype(np.float32 if self.continuous else np.uint8)
        self.backend = backend
        self.start = start
        self.symmetries = bool(symmetries)
        height, width = self.shape
        # an item: its frames, the float64 draw of its start, and the engine's two grids
        require_memory(f"one item ({self.frames} frames of {width}x{height} cells)",
                       height * width * (8 + (self.frames + 2) * self.dtype.itemsize),
                       "use a smaller shape or fewer steps", estimate=True)
        self.patterns: list[np.ndarray] = []
        if pattern is not None:
            several = isinstance(pattern, (list, tuple)) and all(
                isinstance(p, (Pattern, str, os.PathLike, np.ndarray)) for p in pattern)
            items = list(pattern) if several else [pattern]  # a nested list of numbers is one grid
            self.patterns = [_load_pattern(p) for p in items]
            if not self.patterns:
                raise UsageError("pattern must name at least one pattern")
            height, width = self.shape
            for cells in self.patterns:
                h, w = cells.shape
                fits = h <= height and w <= width
                if self.symmetries:
                    fits = fits and w <= height and h <= width
                if not fits:
                    raise GridError(
                        f"a {w}x{h} pattern (W x H){' in every orientation' if self.symmetries else ''} "
                        f"does not fit the {width}x{height} grid"
                    )
                self._check_cells(cells, "pattern")

    def _check_cells(self, cells: np.ndarray, what: str) -> None:
        """:class:`GridError` when ``cells`` do not suit the rule: states it lacks, floats for a discrete rule,
        states for a continuous one, or values outside [0, 1]."""
        floating = bool(np.issubdtype(cells.dtype, np.floating))
        if floating != self.continuous:
            want = "float cells in [0, 1]" if self.continuous else "integer cell states"
            raise GridError(f"{what} has {cells.dtype} cells; rule {self.rule.canonical()!r} takes {want}")
        if self.continuous:
            if cells.size and not (np.all(cells >= 0) and np.all(cells <= 1)):
                raise GridError(f"{what} holds values outside [0, 1]")
        elif cells.size and int(cells.max()) >= self.rule.n_states:
            raise GridError(f"{what} holds state {int(cells.max())}, but rule {self.rule.canonical()!r} "
                            f"has only {self.rule.n_states} states")

    @property
    def frames(self) -> int:
        """Frames per sample: 2 for pairs, ``steps + 1`` for trajectories."""
        return 2 if self.steps is None else self.steps + 1

    # -- start states -----------------------------------------------------------------------

    def draw(self, index: int) -> tuple[np.ndarray, int]:
        """Item ``index``'s start grid ``(H, W)`` uint8 and its warmup (generations before ``x_t``)."""
        rng = item_rng(self.seed, index)
        lo, hi = self.warmup
        warmup = int(rng.integers(lo, hi + 1)) if hi > lo else lo
        if self.start is not None:
            grid = np.asarray(self.start(rng, self.shape))
            grid = grid.astype(np.float32) if self.continuous and np.issubdtype(grid.dtype, np.floating) \
                else grid if self.continuous else as_uint8_grid(grid)
            if grid.shape != self.shape:
                raise GridError(f"start function returned shape {grid.shape}, expected {self.shape}")
            self._check_cells(grid, "the start function's grid")
            return grid, warmup
        if self.patterns:
            return self._place(rng), warmup
        lo_d, hi_d = self.density
        density = float(rng.uniform(lo_d, hi_d)) if hi_d > lo_d else lo_d
        alive = rng.random(self.shape) < density
        if self.continuous:  # live cells get a uniform value in [0, 1)
            return (alive * rng.random(self.shape)).astype(np.float32), warmup
        if self.rule.n_states > 2:
            states = rng.integers(1, self.rule.n_states, size=self.shape, dtype=np.uint8)
            return np.where(alive, states, 0).astype(np.uint8), warmup
        return alive.astype(np.uint8), warmup

    def _place(self, rng: np.random.Generator) -> np.ndarray:
        cells = self.patterns[int(rng.integers(len(self.patterns)))] if len(self.patterns) > 1 else self.patterns[0]
        if self.symmetries:
            k = int(rng.integers(8))
            cells = np.rot90(cells, k % 4)
            if k >= 4:
                cells = cells[:, ::-1]
        height, width = self.shape
        h, w = cells.shape
        grid = np.zeros(self.shape, dtype=self.dtype)
        if self.topology.kind == "torus" and self.topology.simple:
            grid[:h, :w] = cells
            return np.roll(grid, (int(rng.integers(height)), int(rng.integers(width))), axis=(0, 1))
        y, x = int(rng.integers(height - h + 1)), int(rng.integers(width - w + 1))
        grid[y : y + h, x : x + w] = cells
        return grid

    # -- evolution --------------------------------------------------------------------------

    def _run(self, cells: np.ndarray, generations: int) -> np.ndarray:
        if generations == 0:
            return cells
        return np.asarray(run(cells, self.rule, generations, backend=self.backend, topology=self.topology))

    def make(self, indices: Sequence[int]) -> np.ndarray:
        """``(len(indices), frames, H, W)`` uint8: the samples of ``indices``, evolved as one batch."""
        drawn = [self.draw(int(i)) for i in indices]
        if not drawn:
            return np.zeros((0, self.frames) + self.shape, dtype=self.dtype)
        cells = np.stack([grid for grid, _ in drawn])
        warmups = np.array([w for _, w in drawn])
        # Each item leaves the shared run at its own warmup; the batch runs to the largest.
        current = np.empty_like(cells)
        done = 0
        for w in np.unique(warmups):
            cells = self._run(cells, int(w) - done)
            done = int(w)
            current[warmups == w] = cells[warmups == w]
        frames = [current]
        for _ in range(self.frames - 1):
            frames.append(self._run(frames[-1], self.generations))
        return np.ascontiguousarray(np.stack(frames, axis=1))

    def samples(self, block: np.ndarray) -> list[Sample]:
        """Per-sample tensors from a :meth:`make` block: ``(x_t, x_{t+k})`` pairs or ``(T+1, H, W)`` trajectories."""
        tensor = torch.from_numpy(block)
        if self.steps is None:
            return [(tensor[j, 0], tensor[j, 1]) for j in range(tensor.shape[0])]
        return [tensor[j] for j in range(tensor.shape[0])]

    def describe(self) -> str:
        what = "pairs" if self.steps is None else f"trajectories of {self.steps + 1} frames"
        return (f"{self.rule.canonical()} on {self.topology}, {what} {self.generations} generation(s) apart, "
                f"seed {self.seed}")


class Trajectories(Dataset):
    """Map-style dataset of CA samples; item ``i`` depends only on ``(seed, i)``.

    ``Trajectories(rule="B3/S23", shape=(64, 64), generations=1, length=10_000, density=0.5, seed=0)``
    gives pairs ``(x_t, x_{t+1})`` of ``(64, 64)`` ``uint8`` tensors.

    Parameters: ``rule`` (string, optionally with a topology suffix, or a rule value); ``shape``
    ``(H, W)``; ``generations`` ``k`` between frames; ``length`` items; ``steps`` (None: pairs;
    ``T``: ``(T+1, H, W)`` trajectories); ``density`` (cell probability, or a ``(lo, hi)`` range drawn
    per item); ``warmup`` (generations from the drawn state to ``x_t``: an int or ``(lo, hi)``);
    ``pattern`` (a Pattern, path, 2-D array or a list of them: each item places one, chosen at
    random, at a random position, in a random one of the 8 orientations when ``symmetries``);
    ``start`` (``start(rng, (H, W)) -> grid``: your own start states from the item's generator);
    ``topology`` (``"torus"`` by default, ``"plane"``, a suffix or a value); ``backend``
    (``tensorca.run`` engine; the NumPy reference by default, fine for small grids in workers).
    """

    def __init__(
        self,
        rule: str | Rule = "B3/S23",
        shape: Any = (64, 64),
        generations: int = 1,
        length: int = 10_000,
        *,
        steps: int | None = None,
        density: float | tuple[float, float] = 0.5,
        warmup: int | tuple[int, int] = 0,
        pattern: Any = None,
        symmetries: bool = True,
        start: StartFunction | None = None,
        topology: str | Topology | None = None,
        backend: str = "numpy",
        seed: int = 0,
    ) -> None:
        self.spec = _Spec(rule, shape, generations, steps=steps, density=density, warmup=warmup, pattern=pattern,
                          symmetries=symmetries, start=start, topology=topology, backend=backend, seed=seed)
        self.length = _count(length, "length", 0)

    def __len__(self) -> int:
        return self.length

    def _index(self, index: Any) -> int:
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise DatasetTypeError(f"dataset index must be an integer, got {type(index).__name__}")
        i = int(index) + (self.length if index < 0 else 0)
        if not 0 <= i < self.length:
            raise DatasetIndexError(f"index {int(index)} out of range for a dataset of {self.length} items")
        return i

    def __getitem__(self, index: int) -> Sample:
        """Item ``index``: ``(x_t, x_{t+k})`` (two ``(H, W)`` uint8 tensors) or a ``(T+1, H, W)`` tensor."""
        return self.spec.samples(self.spec.make([self._index(index)]))[0]

    def __getitems__(self, indices: Sequence[int]) -> list[Sample]:
        """Several items evolved as one batch (DataLoader calls this); same values as item by item."""
        return self.spec.samples(self.spec.make([self._index(i) for i in indices]))

    def batch(self, indices: Sequence[int]) -> Any:
        """Stacked items: ``(x, y)`` of ``(B, H, W)`` uint8 tensors, or ``(B, T+1, H, W)`` for trajectories."""
        block = torch.from_numpy(self.spec.make([self._index(i) for i in indices]))
        return (block[:, 0], block[:, 1]) if self.spec.steps is None else block

    def start_state(self, index: int) -> tuple[np.ndarray, int]:
        """Item ``index``'s drawn grid ``(H, W)`` uint8 and its warmup: ``x_t = run(grid, rule, warmup)``."""
        return self.spec.draw(self._index(index))

    @property
    def rule(self) -> Rule:
        return self.spec.rule

    @property
    def topology(self) -> Topology:
        return self.spec.topology

    def __repr__(self) -> str:
        return f"Trajectories({self.spec.describe()}, {self.length} items)"


class TrajectoryStream(IterableDataset):
    """Endless (or ``length``-bounded) iterable of the same items as :class:`Trajectories`, sharded.

    Item ``first + j`` of the sequence is exactly ``Trajectories(...)[first + j]`` with the same
    arguments. Inside DataLoader worker ``w`` of ``n`` (and distributed ``rank`` of ``world_size``)
    the stream yields only positions ``j = s, s + S, ...`` with ``s = rank*n + w``,
    ``S = world_size*n``: no duplicates, and together exactly the single-process stream. Items are
    generated ``chunk`` at a time (one engine call per chunk). With ``DataLoader(batch_size=N)``
    each batch is collated inside one worker, so it holds that worker's items; with
    ``batch_size=None`` the loader's round-robin returns exactly the single-process order.
    """

    def __init__(
        self,
        rule: str | Rule = "B3/S23",
        shape: Any = (64, 64),
        generations: int = 1,
        length: int | None = None,
        *,
        first: int = 0,
        chunk: int = 16,
        rank: int = 0,
        world_size: int = 1,
        **options: Any,
    ) -> None:
        options.setdefault("steps", None)
        options.setdefault("density", 0.5)
        options.setdefault("warmup", 0)
        options.setdefault("pattern", None)
        options.setdefault("symmetries", True)
        options.setdefault("start", None)
        options.setdefault("topology", None)
        options.setdefault("backend", "numpy")
        options.setdefault("seed", 0)
        self.spec = _Spec(rule, shape, generations, **options)
        self.length = None if length is None else _count(length, "length", 0)
        self.first = _count(first, "first", 0)
        self.chunk = _count(chunk, "chunk", 1)
        self.world_size = _count(world_size, "world_size", 1)
        self.rank = _count(rank, "rank", 0)
        if self.rank >= self.world_size:
            raise UsageError(f"rank must be below world_size={self.world_size}, got {rank}")

    def __len__(self) -> int:
        if self.length is None:
            raise DatasetTypeError("an endless TrajectoryStream has no length; give length= to bound it")
        return self.length

    def shard(self) -> tuple[int, int]:
        """``(start, stride)`` of the positions this process (worker, rank) yields."""
        info = get_worker_info()
        worker, workers = (info.id, info.num_workers) if info is not None else (0, 1)
        return self.rank * workers + worker, self.world_size * workers

    def indices(self) -> Iterator[int]:
        """The item indices this process yields, in order."""
        start, stride = self.shard()
        j = start
        while self.length is None or j < self.length:
            yield self.first + j
            j += stride

    def __iter__(self) -> Iterator[Sample]:
        pending: list[int] = []
        for index in self.indices():
            pending.append(index)
            if len(pending) == self.chunk:
                yield from self.spec.samples(self.spec.make(pending))
                pending = []
        if pending:
            yield from self.spec.samples(self.spec.make(pending))

    def __repr__(self) -> str:
        bound = "endless" if self.length is None else f"{self.length} items"
        return f"TrajectoryStream({self.spec.describe()}, {bound})"
