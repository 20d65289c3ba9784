"""``RunPlan``: everything one run needs, decided before step 1, with the loops that drive the engine.

A plan is frozen: the engine, rule, topology, device, memory budget, progress callback, observer
samples, checkpointer and start generation do not change during a run. What changes (where a batch
lives between segments, the chunk size after an out-of-memory retry) is local to one loop.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .. import persist
from ..arrays import is_tensor, to_engine, to_host
from ..engines.base import Engine
from ..errors import Interrupted
from ..memory import free_cached_memory, halve_chunk, is_out_of_memory, plan_chunk
from ..observers import Samples, advance_observed, population_counts
from ..randomness import Clock
from ..rules.base import Rule
from ..topology import Topology
from ..unbounded import advance_tree, advance_unbounded
from .progress import ProgressCallback


@dataclasses.dataclass(frozen=True)
class Checkpointer:
    """Writes the state to ``path`` every ``every`` generations (and at the end) with ``manifest(gen, origin)``."""

    path: Path
    every: int | None
    manifest: Callable[[int, tuple[int, int] | None], dict]

    def save(self, cells: Any, generation: int, origin: tuple[int, int] | None = None) -> Path:
        return persist.save(self.path, to_host(cells), self.manifest(generation, origin))  # format from the path

    def due(self, done: int, total: int) -> bool:
        """True when ``done`` of ``total`` generations ends a checkpoint interval or the run."""
        return bool(self.every and done % self.every == 0) or done == total


#: Most generations one call of a dense engine is given: their kernels count in 64-bit integers
#: (a quadtree engine takes any count; its runs are not cut).
MAX_SEGMENT = 1 << 62


def segment_ends(generations: int, progressions: Iterable[tuple[int, int]] = ()) -> Iterator[int]:
    """The generation counts at which segments end, in order and made as they are needed (10^9
    generations checkpointed at every one are 10^9 ends, never a list): every ``first + i * step``
    below ``generations`` of each ``(first, step)`` (``first`` >= 1), and ``generations`` itself."""
    if generations == 0:
        yield 0
        return
    heads = [[first, step] for first, step in progressions if step]
    while True:
        end = min([generations, *(head[0] for head in heads)])
        yield end
        if end >= generations:
            return
        for head in heads:
            while head[0] <= end:
                head[0] += head[1]


def boundaries(generations: int, *steps: int | None) -> Iterator[int]:
    """Segment ends of a dense engine's run (:func:`segment_ends`): the multiples of each step (None
    or 0: none) and of :data:`MAX_SEGMENT`, and the end."""
    return segment_ends(generations, [(step, step) for step in (*steps, MAX_SEGMENT) if step])


def count_segments(generations: int, *steps: int | None) -> int:
    """How many ends :func:`boundaries` makes, counted (inclusion-exclusion over the steps), not made."""
    steps_given = sorted({step for step in (*steps, MAX_SEGMENT) if step})
    inside = 0  # multiples of any step in 1 .. generations - 1
    for k in range(1, len(steps_given) + 1):
        for subset in itertools.combinations(steps_given, k):
            inside += (-1) ** (k + 1) * ((generations - 1) // math.lcm(*subset))
    return inside + 1 if generations else 1


def progress_step(generations: int) -> int:
    """Generations between two progress reports: about 100 reports per run."""
    return max(1, generations // 100)


def data_device(state: Any) -> str:
    """The device a grid lives on: a tensor's own device, ``"cpu"`` for NumPy."""
    return str(state.device) if is_tensor(state) else "cpu"


@dataclasses.dataclass
class _Batch:
    """Where a ``(B, H, W)`` batch is between segments: ``resident`` in the engine's form, else on the host."""

    host: Any
    resident: Any
    chunk: int
    run_device: str
    n: int
    shape: tuple[int, int]

    @property
    def current(self) -> Any:
        return self.resident if self.resident is not None else self.host


@dataclasses.dataclass(frozen=True)
class RunPlan:
    """One run, decided: ``generations`` of ``rule`` on ``topology`` with ``engine``, from generation ``start``.

    ``device``: where a torch engine runs (None: the data's own device). ``max_bytes``: the memory
    budget (None: what the device has free). ``samples`` collects the observer's values (it has
    ``observer=None`` when nothing is observed); ``checkpointer`` is None when nothing is saved.
    ``seed``: a stochastic rule's seed; its draws use absolute generations (from ``start``) and each
    grid's index in the whole batch, so chunks and segments draw what one call would.
    """

    engine: Engine
    rule: Rule
    topology: Topology
    generations: int
    device: str | None = None
    max_bytes: int | None = None
    progress: ProgressCallback | None = None
    samples: Samples = dataclasses.field(default_factory=lambda: Samples(None))
    checkpointer: Checkpointer | None = None
    start: int = 0
    seed: int = 0

    def clock(self, done: int, grid: int = 0, origin: tuple[int, int] = (0, 0)) -> Clock | None:
        """A stochastic rule's clock ``done`` generations into the run for the grids from ``grid``
        (``origin``: ``(y, x)`` of cell [0, 0]); None for a deterministic rule."""
        if not self.rule.compile().stochastic:
            return None
        return Clock(self.seed, self.start + done, grid, origin)

    # -- bounded grids ------------------------------------------------------------------------

    def advance_batch(self, batch: Any) -> Any:
        """Advance a ``(B, H, W)`` batch (input kind) and return it in the engine's or the host's form.

        The whole batch stays in the engine's representation between segments when it fits in one
        chunk; otherwise chunks travel host -> device -> host per segment, with OOM retries.
        """
        state = self._place(batch)
        ends = self._batch_ends(state.chunk < state.n)
        first = next(ends)
        single = first == self.generations  # one engine call: it reports progress itself
        if self.samples.observer is not None:
            self.samples.add([self.start], population_counts(batch))
        done = 0
        try:
            for end in itertools.chain([first], ends):
                self._batch_segment(state, end - done, done, inline_progress=single)
                done = end
                if self.progress is not None and (state.resident is not None or not single):
                    self.progress(done, self.generations)
                if self.checkpointer is not None and self.checkpointer.due(done, self.generations):
                    self.checkpointer.save(state.current, self.start + done)
        except KeyboardInterrupt:
            if self.checkpointer is None:
                raise
            path = self.checkpointer.save(state.current, self.start + done)
            raise Interrupted(path, self.start + done) from None
        return state.current

    def _place(self, batch: Any) -> _Batch:
        """The batch in the engine's form when the whole of it fits one chunk, else left on the host."""
        n = int(batch.shape[0])
        shape = (int(batch.shape[-2]), int(batch.shape[-1]))  # (B, H, W), or (B, C, H, W) for a multi-channel rule
        run_device = self.device or (data_device(batch) if self.engine.array_module == "torch" else "cpu")
        chunk = plan_chunk(self.engine, n, shape, self.rule, run_device, self.max_bytes)
        state = _Batch(batch, None, chunk, run_device, n, shape)
        if state.chunk >= n:
            try:
                state.resident = to_engine(batch, self.engine.array_module, self.device)
            except Exception as exc:
                if not is_out_of_memory(exc):
                    raise
                free_cached_memory()
                state.chunk = self._halve(state.chunk, n, shape, run_device, exc)
        return state

    def _batch_ends(self, chunked: bool) -> Iterator[int]:
        """Where segments end: chunked runs without checkpoints go the whole way (progress per chunk)."""
        if chunked and self.checkpointer is None:
            return boundaries(self.generations)
        every = self.checkpointer.every if self.checkpointer else None
        return boundaries(self.generations, every, progress_step(self.generations) if self.progress else None)

    def _halve(self, chunk: int, n: int, shape: tuple[int, int], run_device: str, exc: BaseException) -> int:
        return halve_chunk(self.engine, chunk, n, shape, self.rule, run_device, self.max_bytes, exc)

    def _batch_segment(self, state: _Batch, k: int, done: int, inline_progress: bool) -> None:
        """``k`` generations of the whole batch from ``start + done``; a resident batch that runs out of
        memory moves to the host and continues in chunks."""
        if state.resident is not None:
            try:
                out, gens, values = advance_observed(self.engine, state.resident, self.rule, self.topology, k,
                                                     self.samples.observer, self.start + done, self.clock(done))
            except Exception as exc:
                if not is_out_of_memory(exc):
                    raise
                state.host, state.resident = to_host(state.resident), None
                free_cached_memory()
                state.chunk = self._halve(state.n, state.n, state.shape, state.run_device, exc)
            else:
                state.resident = out
                self.samples.add(gens, values)
                return
        state.host, state.chunk = self._chunked_segment(state, k, done, self.progress if inline_progress else None)

    def _chunked_segment(self, state: _Batch, k: int, done: int,
                         progress: ProgressCallback | None) -> tuple[np.ndarray, int]:
        """``k`` generations of every grid on the host from ``start + done``, ``chunk`` grids per call.

        An out-of-memory error halves the chunk and retries; finished chunks are kept."""
        host, chunk = state.host, state.chunk
        n = int(host.shape[0])
        outs: list[np.ndarray] = []
        blocks: list[np.ndarray] = []
        gens: list[int] = []
        i = 0
        while i < n:
            size = min(chunk, n - i)
            try:
                cells = to_engine(host[i : i + size], self.engine.array_module, self.device)
                out, gens, values = advance_observed(self.engine, cells, self.rule, self.topology, k,
                                                     self.samples.observer, self.start + done, self.clock(done, i))
                out_host = to_host(out)
                values_host = to_host(values) if values is not None else None
            except Exception as exc:
                if not is_out_of_memory(exc):
                    raise
                cells = out = values = None  # drop references before freeing
                free_cached_memory()
                chunk = self._halve(size, n, state.shape, state.run_device, exc)
                continue
            outs.append(out_host)
            if values_host is not None:
                blocks.append(np.asarray(values_host).reshape(len(gens), size))
            i += size
            if progress is not None:
                progress(self.generations * i // n, self.generations)
        if blocks:
            self.samples.add(gens, np.concatenate(blocks, axis=1))
        return np.concatenate(outs, axis=0), chunk

    # -- the unbounded plane ------------------------------------------------------------------

    def advance_unbounded(self, cells: np.ndarray, origin: tuple[int, int]) -> tuple[np.ndarray, tuple[int, int]]:
        """Advance ``(1, h, w)`` cells whose top-left cell is ``origin`` on the unbounded plane."""
        observer = self.samples.observer
        if observer is not None:
            self.samples.add([self.start], population_counts(cells))
        done = [0]

        def on_chunk(k: int) -> None:
            done[0] += k
            if self.progress is not None:
                self.progress(done[0], self.generations)

        finished = 0
        try:
            for end in self._unbounded_ends(MAX_SEGMENT):
                cells, origin = advance_unbounded(self.engine, cells, origin, self.rule, end - finished, on_chunk,
                                                  self.device, self.clock(finished))
                finished = end
                if observer is not None and (self.start + end) % observer.every == 0:
                    self.samples.add([self.start + end], population_counts(cells))
                if self.checkpointer is not None and self.checkpointer.due(end, self.generations):
                    self.checkpointer.save(cells, self.start + end, origin)
        except KeyboardInterrupt:
            if self.checkpointer is None:
                raise
            path = self.checkpointer.save(cells, self.start + finished, origin)
            raise Interrupted(path, self.start + finished) from None
        return cells, origin

    def advance_tree(self, universe: Any, save: Callable[[Any, int], Any] | None = None) -> Any:
        """Advance a quadtree universe in place (engines native on the unbounded plane); see
        :func:`tensorca.unbounded.advance_tree`."""
        return advance_tree(self, universe, save)

    def _unbounded_ends(self, most: int | None = None) -> Iterator[int]:
        """Segment ends: checkpoint intervals, the end, every generation the observer samples, and
        multiples of ``most`` (the longest segment an engine call may take; None: no limit)."""
        every = self.checkpointer.every if self.checkpointer else None
        progressions = [(step, step) for step in (every, most) if step]
        observer = self.samples.observer
        if observer is not None:
            progressions.append(((-self.start) % observer.every or observer.every, observer.every))
        return segment_ends(self.generations, progressions)
