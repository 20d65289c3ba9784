"""``backend="dask"``: one grid cut into chunks, each chunk advanced by a local engine, halos exchanged
through Dask every ``k`` generations. ``get_engine("dask").with_options(chunks=1024, inner="auto")``.

How a run goes:

- The ``(B, H, W)`` grid is cut into chunks of at most ``chunks x chunks`` cells, balanced (3000 rows
  in chunks of 1024 are 1000 + 1000 + 1000 rows, not 1024 + 1024 + 952), one grid of a batch per chunk.
- Every exchange, :func:`dask.array.map_overlap` hands each chunk ``d = k * reach`` cells of its
  neighbours on each side (the halo); the inner engine runs the padded chunk ``k`` generations as a
  bounded plane, and the halo is cut away. A padded chunk goes wrong only from its edge inward, by at
  most ``reach`` cells a generation, so after ``k`` generations the wrong cells are all in the halo:
  what is kept is exactly the one-machine result.
- On a torus the halo wraps (``boundary="periodic"``). On a bounded plane, chunks on the grid's edge
  get no halo on that side (``boundary="none"``) and the inner engine's plane keeps everything outside
  it dead, as the one-machine plane does. (A zero-filled halo, ``boundary=0``, is wrong there: a
  halo cell outside the plane can come alive during the ``k`` generations and feed back in.)
- Shifted tori, Klein bottles, cross-surfaces and spheres glue edges in ways Dask's boundaries cannot
  express, and float (Lenia) cells sum their FFTs in a different order on chunks than on the whole
  grid: both are refused with :class:`~tensorca.errors.EngineError`.
- A stochastic rule (:mod:`tensorca.families.stochastic.rule`) draws at each cell's absolute coordinates and
  grid index: every chunk is given a :class:`~tensorca.randomness.Clock` whose origin is where its
  padded block sits in the whole grid (halo included; on a torus the coordinates wrap at the grid's
  size), so a halo cell draws what the cell it copies draws and the chunks compute the one-machine run.
- ``k`` comes from a small cost model (:func:`exchange_plan`): each exchange costs a task, a copy of
  the padded chunk and an inner-engine call; a larger ``k`` makes exchanges rarer but the halo, which
  is computed and thrown away, wider. ``explain`` says how the time splits.

A NumPy array in gives a NumPy array out, computed on the current ``dask.distributed`` Client when
there is one, else on Dask's local threaded scheduler; a grid that fits one chunk runs on the inner
engine directly. A ``dask.array`` in gives a lazy ``dask.array`` out, one ``map_overlap`` layer per
exchange, nothing computed. Inside a chunk the inner engine runs on one thread (Dask runs the chunks
in parallel; Numba's thread pool must not be entered from several threads at once).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import sys
from collections.abc import Iterator
from typing import Any

import dask
import dask.array as da
import numpy as np

from ..cpu_load import numba_threads
from ..errors import EngineError, UsageError
from ..randomness import Clock
from ..rules.base import Rule
from ..topology import Topology
from .base import Engine, advance_engine
from .registry import get_engine

#: Topology kinds a Dask boundary expresses (unshifted).
KINDS = ("torus", "plane")
#: Exchanges per ``persist`` when a NumPy grid runs many generations: keeps task graphs small.
EXCHANGES_PER_PERSIST = 32
#: Smallest chunk side accepted (a chunk smaller than this costs more in tasks than it computes).
MIN_CHUNK = 8
#: A torus side shorter than this many reaches is tiled (a periodic halo cannot be wider than the grid).
TILE_REACHES = 64


@dataclasses.dataclass(frozen=True)
class DaskOptions:
    """How the dask engine cuts and steps a grid; every combination computes the same cells.

    ``chunks``: the chunk side in cells (rows and columns; a dask array in keeps its own chunks unless
    they are thinner than one generation's halo). ``inner``: the engine run on each chunk (a registry
    name, or ``"auto"``: the cost model's choice for a chunk). ``k``: generations per exchange (None:
    :func:`exchange_plan` chooses).
    """

    chunks: int = 1024
    inner: str = "auto"
    k: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.chunks, bool) or not isinstance(self.chunks, (int, np.integer)) or self.chunks < MIN_CHUNK:
            raise UsageError(f"dask engine chunks must be an integer >= {MIN_CHUNK} (cells a side), "
                             f"got {self.chunks!r}")
        if not isinstance(self.inner, str) or self.inner == "dask":
            raise UsageError(f"dask engine inner must be an engine name other than 'dask', or 'auto'; "
                             f"got {self.inner!r}")
        if self.k is not None and (isinstance(self.k, bool) or not isinstance(self.k, (int, np.integer)) or self.k < 1):
            raise UsageError(f"dask engine k (generations per exchange) must be a positive integer or None, "
                             f"got {self.k!r}")


@dataclasses.dataclass(frozen=True)
class ExchangePlan:
    """How a run is cut: ``chunks`` (Dask's per-axis chunk sizes of ``(B, H, W)``), ``k`` generations per
    exchange with halos of ``depth = k * reach`` cells, the ``inner`` engine, and the predicted split of
    the time (seconds per generation over all chunks: ``compute`` of the chunks' own cells, ``halo``
    computed and thrown away, ``exchange``: tasks, copies and engine calls)."""

    chunks: tuple[tuple[int, ...], ...]
    k: int
    reach: int
    inner: str
    compute_s: float
    halo_s: float
    exchange_s: float
    halo_cells: int  # cells each exchange moves between chunks (the halos), summed over chunks

    @property
    def depth(self) -> int:
        return self.k * self.reach

    @property
    def blocks(self) -> int:
        return math.prod(len(c) for c in self.chunks)

    @property
    def single(self) -> bool:
        """The grid is one chunk: the inner engine runs it directly."""
        return len(self.chunks[1]) == 1 and len(self.chunks[2]) == 1

    def shares(self) -> dict[str, float]:
        total = self.compute_s + self.halo_s + self.exchange_s
        if total <= 0:
            return {"compute": 1.0, "halo": 0.0, "exchange": 0.0}
        return {"compute": self.compute_s / total, "halo": self.halo_s / total, "exchange": self.exchange_s / total}

    def describe(self) -> str:
        rows, cols = self.chunks[1], self.chunks[2]
        if self.single:
            return f"dask: the grid fits one chunk; {self.inner} runs it directly (no exchange)"
        share = self.shares()
        return (f"dask: {self.blocks} chunks ({len(rows)} x {len(cols)} of up to {max(rows)}x{max(cols)} cells"
                f"{', batch ' + str(len(self.chunks[0])) if len(self.chunks[0]) > 1 else ''}), inner {self.inner}, "
                f"k = {self.k} generations per exchange (halo {self.depth} cells, {self.halo_cells:,} cells moved "
                f"per exchange); predicted time: {share['compute']:.0%} compute, {share['halo']:.0%} halo "
                f"recomputed, {share['exchange']:.0%} exchange")


def balanced(length: int, chunk: int) -> tuple[int, ...]:
    """``length`` cut into ``ceil(length / chunk)`` near-equal parts (sizes differ by at most 1)."""
    parts = max(1, -(-length // chunk))
    base, extra = divmod(length, parts)
    return tuple(base + 1 if i < extra else base for i in range(parts))


def is_dask_array(x: Any) -> bool:
    """True for a ``dask.array.Array``."""
    return isinstance(x, da.Array)


# -- the cost model of one exchange ---------------------------------------------------------------


def _inner_costs(inner: str, rule: Rule) -> tuple[float, float, float, float, float]:
    """``(call_s, call_cell_s, gen_s, cell_s, row_s)`` of ``inner`` on the CPU for ``rule``'s family."""
    from .. import costmodel  # the cost model reads the registry above this module: imported when asked

    c = costmodel.costs(f"{inner}@cpu")
    family, scale = costmodel.rule_class(rule)
    gen_factor, cell_factor = costmodel.class_factors(c, inner, "cpu", family)
    return c.call_s, c.call_cell_s, c.gen_s * gen_factor, c.cell_s * cell_factor * scale, c.row_s


def exchange_plan(rule: Rule, chunks: tuple[tuple[int, ...], ...], generations: int, inner: str,
                  k: int | None = None, kmax: int | None = None, wrap: bool = False) -> ExchangePlan:
    """The ``k`` that minimises the predicted time of the run, and what that time is made of.

    Per exchange, each ``b x h x w`` chunk padded to ``(h + 2d) x (w + 2d)`` (``d = k * reach``) costs a
    Dask task and a copy of the padded chunk (the registry's ``dask`` costs: ``call_s``, ``call_cell_s``),
    an inner-engine call (its ``call_s + cells * call_cell_s``), then ``k`` generations of the padded
    cells (its ``gen_s`` and ``cell_s``). ``kmax`` bounds ``k`` (a halo may not be wider than the thinnest
    chunk it is cut from); ``k`` given: that ``k`` (capped by ``kmax`` and ``generations``). ``wrap``: a
    torus, whose halos wrap around every axis (a plane's edge chunks get none on the outer side).
    """
    from .. import costmodel

    reach = max(1, rule.reach)
    limit = max(1, min(generations, kmax if kmax is not None else generations))
    own = costmodel.costs("dask@cluster" if current_client() is not None else "dask@cpu")  # processes cost more
    call_s, call_cell_s, gen_s, cell_s, row_s = _inner_costs(inner, rule)
    blocks = [(b, h, w) for b in chunks[0] for h in chunks[1] for w in chunks[2]]
    multi_h, multi_w = wrap or len(chunks[1]) > 1, wrap or len(chunks[2]) > 1

    def parts(kk: int) -> tuple[float, float, float, int]:
        d = kk * reach
        compute = halo = exchange = 0.0
        moved = 0
        for b, h, w in blocks:
            ph, pw = h + 2 * d * multi_h, w + 2 * d * multi_w
            padded, inside = b * ph * pw, b * h * w
            exchange += own.call_s + padded * own.call_cell_s + call_s + padded * call_cell_s
            per_gen = gen_s + row_s * b * ph
            compute += kk * (per_gen + inside * cell_s)
            halo += kk * (padded - inside) * cell_s
            moved += padded - inside
        return compute / kk, halo / kk, exchange / kk, moved

    def even(kk: int) -> int:
        """The k of equal exchanges: 100 generations at most 89 a time run as 50 + 50, not 89 + 11."""
        return -(-generations // -(-generations // kk))

    def total(kk: int) -> float:
        return -(-generations // kk) * kk * sum(parts(kk)[:3])  # exchanges x seconds per exchange

    if k is not None:
        best = min(k, limit)
    else:
        # Seconds per generation are convex in k (exchange ~ 1/k, halo ~ k): scan a geometric ladder, then
        # refine; each candidate is priced as the whole run of equal exchanges it makes.
        ladder = sorted({even(min(limit, 2**i)) for i in range(0, 31)} | {even(limit)})
        best = min(ladder, key=lambda kk: (total(kk), kk))
        low, high = max(1, best // 2), min(limit, best * 2)
        step = max(1, (high - low) // 16)
        best = min({even(kk) for kk in range(low, high + 1, step)} | {best}, key=lambda kk: (total(kk), kk))
    compute, halo, exchange, moved = parts(best)
    return ExchangePlan(chunks, best, reach, inner, compute, halo, exchange, moved)


# -- one chunk ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ChunkClocks:
    """Where each block of one ``map_overlap`` layer sits, for a stochastic rule's draws: ``clock`` is the
    whole grid's (at this layer's first generation), ``starts`` the first index of every chunk along
    each axis of ``(B, H, W)``, ``depth`` the halo along H and W, ``wrap`` a torus (periodic halos on
    every chunk; on a plane the grid's edge chunks have none on their outer side), ``period`` the
    torus's ``(H, W)``."""

    clock: Clock
    starts: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]
    depth: tuple[int, int]
    wrap: bool
    period: tuple[int, int] | None

    def at(self, block_id: tuple[int, int, int]) -> Clock:
        """The clock of block ``block_id`` (its grid index and the absolute origin of its padded cells)."""
        ib, iy, ix = block_id
        origin = []
        for axis, index in ((1, iy), (2, ix)):
            start, depth = self.starts[axis][index], self.depth[axis - 1]
            origin.append(start - depth if (self.wrap or index > 0) else start)
        y0, x0 = self.clock.origin
        return dataclasses.replace(self.clock.later(grids=self.starts[0][ib]),
                                   origin=(y0 + origin[0], x0 + origin[1]), period=self.period)


def _advance_block(block: np.ndarray, rule: Rule, generations: int, inner: str,
                   topology: Topology | None = None, clocks: ChunkClocks | None = None,
                   block_id: tuple[int, ...] | None = None) -> np.ndarray:
    """``generations`` of ``rule`` on a chunk ``(b, h, w)`` on one thread: a padded chunk as a bounded
    plane, or a whole grid on its own ``topology``; ``clocks``: a stochastic rule's draws, by ``block_id``."""
    if block.size == 0 or generations == 0:
        return np.array(block, copy=True)
    topology = topology or Topology.plane(int(block.shape[2]), int(block.shape[1]))
    clock = clocks.at(block_id) if clocks is not None and block_id is not None else None  # type: ignore[arg-type]
    with one_thread():
        return run_inner(get_engine(inner), block, rule, topology, generations, clock)


def run_inner(engine: Engine, cells: np.ndarray, rule: Rule, topology: Topology, generations: int,
              clock: Clock | None = None) -> np.ndarray:
    """``engine.advance`` on NumPy cells, through a CPU tensor for a torch engine (``clock``: a
    stochastic rule's draws)."""
    if engine.array_module == "torch":
        from ..arrays import to_engine, to_host

        return to_host(advance_engine(engine, to_engine(cells, "torch", "cpu"), rule, topology, generations, clock))
    return np.asarray(advance_engine(engine, np.ascontiguousarray(cells), rule, topology, generations, clock))


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """Numba parallel regions of this thread on one thread (Dask already runs chunks in parallel, and
    Numba's workqueue pool must not be entered from several threads at once)."""
    numba = sys.modules.get("numba")
    if numba is None:
        yield
        return
    with numba_threads(numba, 1):
        yield


# -- the engine ---------------------------------------------------------------------------------


class DaskEngine(Engine):
    """``backend="dask"``: a torus or bounded plane of any size, chunked, each chunk on a local engine."""

    name = "dask"
    array_module = "numpy"
    #: The input and the output; chunks' working sets are per chunk, not per grid.
    bytes_per_cell = 2.0

    def __init__(self, *, chunks: int = 1024, inner: str = "auto", k: int | None = None):
        self.options = DaskOptions(chunks=chunks, inner=inner, k=k)

    def with_options(self, **options: Any) -> DaskEngine:
        """A new engine with some options changed: ``get_engine("dask").with_options(chunks=2048, inner="numpy")``."""
        unknown = sorted(set(options) - {f.name for f in dataclasses.fields(DaskOptions)})
        if unknown:
            raise UsageError(f"dask engine has no option {unknown[0]!r}; options: chunks, inner, k")
        return DaskEngine(**{**dataclasses.asdict(self.options), **options})

    def __repr__(self) -> str:
        changed = {k: v for k, v in dataclasses.asdict(self.options).items() if v != getattr(DaskOptions, k)}
        return f"DaskEngine({', '.join(f'{k}={v!r}' for k, v in changed.items())})"

    def devices(self) -> list[str]:
        return ["cpu"]

    # -- what it runs -------------------------------------------------------------------------

    def why_not(self, rule: Rule, topology: Topology) -> str | None:
        """Why this engine cannot run ``rule`` on ``topology``, or None."""
        reason = self._why_not_here(rule, topology)
        if reason is not None:
            return reason
        try:
            self.inner_for(rule, topology.shape, 1, batch=1)
        except EngineError as exc:
            return f"no inner engine: {exc}"
        return None

    def _why_not_here(self, rule: Rule, topology: Topology) -> str | None:
        """The topology and state space (what this engine itself decides), or None."""
        if not topology.bounded:
            return "the unbounded plane is run by the simulator, not by an engine"
        if topology.kind not in KINDS or topology.shift_x or topology.shift_y:
            return (f"Dask's array boundaries express a plain torus (periodic) or bounded plane only, not a "
                    f"{'shifted torus' if topology.kind == 'torus' else topology.kind}")
        if not rule.state_space.discrete:
            return "float cells (Lenia) sum their FFTs in a different order on chunks than on the whole grid"
        return None

    def supports(self, rule: Rule, topology: Topology) -> bool:
        return self.why_not(rule, topology) is None

    def why_unsupported(self, rule: Rule, topology: Topology) -> str:
        return f"engine 'dask' cannot run {rule.canonical()!r} on {topology}: {self.why_not(rule, topology)}"

    def inner_for(self, rule: Rule, shape: tuple[int, int], generations: int, batch: int = 1) -> str:
        """The engine name each chunk runs on: the option, checked, or the cost model's choice for a chunk."""
        height, width = min(shape[0], self.options.chunks), min(shape[1], self.options.chunks)
        plane = Topology.plane(width, height)
        if self.options.inner != "auto":
            engine = get_engine(self.options.inner)
            if not engine.supports(rule, plane):
                raise EngineError(engine.why_unsupported(rule, plane))
            return engine.name
        from .. import costmodel

        return costmodel.choose(rule, plane, batch, (height, width), max(1, generations), device="cpu").engine

    # -- planning -----------------------------------------------------------------------------

    def _axis_chunks(self, given: tuple[int, ...], length: int, need: int, chunked_input: bool) -> tuple[int, ...]:
        """Chunk sizes along one grid axis: the input's own (a dask array) unless a chunk is thinner than
        ``need`` cells, else balanced chunks of at most ``chunks`` cells."""
        if chunked_input and (len(given) == 1 or min(given) >= need):
            return given
        sizes = balanced(length, self.options.chunks)
        if len(sizes) > 1 and min(sizes) < need:
            sizes = balanced(length, max(need, self.options.chunks))
        return sizes

    def plan(self, rule: Rule, topology: Topology, shape: tuple[int, int, int], generations: int,
             given: tuple[tuple[int, ...], ...] | None = None) -> ExchangePlan:
        """The chunks, ``k`` and predicted time split for ``generations`` of a ``(B, H, W)`` grid.

        ``given``: a dask array's chunks (kept where a halo fits them)."""
        batch, height, width = shape
        reach = max(1, rule.reach)
        if given is None:
            per_grid = height * width
            bchunk = max(1, min(batch, (self.options.chunks**2) // max(per_grid, 1)))
            chunks = (balanced(batch, bchunk), self._axis_chunks((height,), height, reach, False),
                      self._axis_chunks((width,), width, reach, False))
        else:
            chunks = (given[0], self._axis_chunks(given[1], height, reach, True),
                      self._axis_chunks(given[2], width, reach, True))
        # A halo may not be wider than the thinnest chunk it is cut from (nor, on a torus, than the grid).
        limits = [min(c) for c in chunks[1:] if len(c) > 1]
        if topology.kind == "torus":
            limits += [height, width]
        kmax = max(1, min(limits) // reach) if limits else generations
        # auto prices the whole job (every chunk), so per-process costs (imports, kernel loads) are amortised.
        inner = self.inner_for(rule, (height, width), generations, batch=batch * len(chunks[1]) * len(chunks[2]))
        return exchange_plan(rule, chunks, max(1, generations), inner, self.options.k, kmax,
                             wrap=topology.kind == "torus")

    def explain(self, rule: Rule, topology: Topology, shape: tuple[int, ...], generations: int) -> str:
        """One paragraph: chunks, ``k``, and how much of the predicted time is exchange."""
        dims = (1, *shape) if len(shape) == 2 else tuple(shape)
        return self.plan(rule, topology, dims, generations).describe()  # type: ignore[arg-type]

    # -- running ------------------------------------------------------------------------------

    def advance(self, cells: Any, rule: Rule, topology: Topology, generations: int, *,
                clock: Clock | None = None) -> Any:
        """Advance ``(B, H, W)`` cells: NumPy in, NumPy out; a dask array in, a lazy dask array out.
        ``clock``: a stochastic rule's draws (None: seed 0 from generation 0)."""
        if self._why_not_here(rule, topology) is not None:  # the inner engine is checked by the plan
            raise EngineError(self.why_unsupported(rule, topology))
        if rule.compile().stochastic:
            clock = clock or Clock()
            if topology.kind == "torus" and clock.period is None:
                clock = dataclasses.replace(clock, period=topology.shape)
        else:
            clock = None
        lazy = is_dask_array(cells)
        if not lazy:
            cells = np.asarray(cells)
        if cells.ndim != 3 or (int(cells.shape[1]), int(cells.shape[2])) != topology.shape:
            raise EngineError(f"engine 'dask' needs (B, H, W) cells of the topology's shape {topology.shape}, "
                              f"got {tuple(cells.shape)}")
        if generations == 0:
            return cells.copy()
        shape = tuple(int(s) for s in cells.shape)
        try:
            plan = self.plan(rule, topology, shape, generations, given=cells.chunks if lazy else None)  # type: ignore[arg-type]
        except EngineError as exc:
            raise EngineError(f"engine 'dask' cannot run {rule.canonical()!r} on {topology}: no inner engine: "
                              f"{exc}") from exc
        reps = self._torus_repeats(rule, topology, plan)
        if reps != (1, 1):  # a periodic halo cannot be wider than the grid: run a tiling of it, keep one tile
            height, width = topology.shape
            tiled = (da.tile if lazy else np.tile)(cells, (1, *reps))
            out = self.advance(tiled, rule, Topology.torus(width * reps[1], height * reps[0]), generations,
                               clock=clock)  # the tiles' draws wrap at the grid's own period
            return out[:, :height, :width] if lazy else np.ascontiguousarray(out[:, :height, :width])
        if lazy:
            return advance_lazy(cells.rechunk(plan.chunks), rule, topology, generations, plan, clock)
        if plan.single:
            engine = get_engine(plan.inner)
            if not engine.supports(rule, topology):
                from .. import costmodel

                engine = get_engine(costmodel.choose(rule, topology, shape[0], topology.shape, generations,
                                                     device="cpu").engine)
            return run_inner(engine, cells, rule, topology, generations, clock)
        grid = from_numpy(cells, plan.chunks)
        done = 0
        while done < generations:  # persist every few exchanges: graphs stay small on long runs
            step = min(generations - done, plan.k * EXCHANGES_PER_PERSIST)
            grid = advance_lazy(grid, rule, topology, step, plan, clock.later(done) if clock is not None else None)
            done += step
            if done < generations:
                (grid,) = dask.persist(grid)
        return np.ascontiguousarray(grid.compute())


    def _torus_repeats(self, rule: Rule, topology: Topology, plan: ExchangePlan) -> tuple[int, int]:
        """How many times to tile a torus's rows and columns so that a one-generation halo fits inside it
        ((1, 1): as it is; a grid of one chunk needs no halo)."""
        reach = max(1, rule.reach)
        if topology.kind != "torus" or plan.single or min(topology.shape) >= reach:
            return 1, 1
        target = max(reach, min(self.options.chunks, TILE_REACHES * reach))
        return tuple(1 if side >= reach else -(-target // side) for side in topology.shape)  # type: ignore[return-value]


def current_client() -> Any:
    """The ``dask.distributed`` Client dask computes on now, or None (a local scheduler)."""
    owner = getattr(dask.base.get_scheduler(), "__self__", None)
    return owner if type(owner).__name__ == "Client" else None


def from_numpy(cells: np.ndarray, chunks: tuple[tuple[int, ...], ...]) -> da.Array:
    """``cells`` as a dask array of ``chunks``: on a cluster, each chunk scattered to a worker (a large
    array embedded in the task graph would travel through the scheduler)."""
    client = current_client()
    if client is None:
        return da.from_array(cells, chunks=chunks)
    s0, s1, s2 = (np.cumsum((0, *c[:-1])) for c in chunks)
    index = [(b, y, x) for b in range(len(chunks[0])) for y in range(len(chunks[1])) for x in range(len(chunks[2]))]
    pieces = [cells[s0[b] : s0[b] + chunks[0][b], s1[y] : s1[y] + chunks[1][y], s2[x] : s2[x] + chunks[2][x]]
              for b, y, x in index]
    futures = iter(client.scatter(pieces, hash=False))  # hashed keys would be shared with (and freed by) other runs
    shape = {i: (chunks[0][i[0]], chunks[1][i[1]], chunks[2][i[2]]) for i in index}
    blocks = {i: da.from_delayed(next(futures), shape[i], cells.dtype) for i in index}
    return da.block([[[blocks[(b, y, x)] for x in range(len(chunks[2]))] for y in range(len(chunks[1]))]
                     for b in range(len(chunks[0]))])


def advance_lazy(grid: da.Array, rule: Rule, topology: Topology, generations: int, plan: ExchangePlan,
                 clock: Clock | None = None) -> da.Array:
    """``generations`` of ``rule`` on a lazy ``(B, H, W)`` grid: one ``map_overlap`` layer per exchange
    (a grid of one chunk a side: one ``map_blocks`` layer on its own topology). ``clock``: a stochastic
    rule's draws at the first generation (each block is given its own, :class:`ChunkClocks`)."""
    meta = np.empty((0, 0, 0), dtype=grid.dtype)
    starts = tuple(tuple(int(v) for v in np.cumsum((0, *c[:-1]))) for c in plan.chunks)
    wrap = topology.kind == "torus"

    def clocks(at: int, depth: tuple[int, int]) -> dict:
        if clock is None:
            return {}
        return {"clocks": ChunkClocks(clock.later(at), starts, depth, wrap, clock.period)}  # type: ignore[arg-type]

    if plan.single:
        if clock is not None:  # one chunk a side: the whole grid, its own origin and topology
            return grid.map_blocks(_advance_block, rule=rule, generations=generations, inner=plan.inner,
                                   topology=topology, dtype=grid.dtype, meta=meta,
                                   clocks=ChunkClocks(clock, starts, (0, 0), False, clock.period))
        return grid.map_blocks(_advance_block, rule=rule, generations=generations, inner=plan.inner,
                               topology=topology, dtype=grid.dtype, meta=meta)
    boundary = "periodic" if wrap else "none"
    # Halos along the grid's axes: every axis of a torus; on a plane, only axes cut into several chunks.
    halo = [wrap or len(plan.chunks[axis]) > 1 for axis in (1, 2)]
    done = 0
    while done < generations:
        k = min(plan.k, generations - done)
        depth = {0: 0, 1: k * plan.reach * halo[0], 2: k * plan.reach * halo[1]}
        grid = grid.map_overlap(_advance_block, depth=depth, boundary={0: "none", 1: boundary, 2: boundary},
                                trim=True, dtype=grid.dtype, meta=meta, rule=rule, generations=k, inner=plan.inner,
                                **clocks(done, (depth[1], depth[2])))
        done += k
    return grid
