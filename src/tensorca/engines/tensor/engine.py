"""``backend="torch"``: the dense tensor engine. Every rule family, any torch device, batched.

Cells stay ``uint8`` ``(B, H, W)`` tensors on their device. One generation runs the rule's step
spec (:meth:`~tensorca.rules.base.Rule.compile`), *perceive* then *update* (kernels in
:mod:`tensorca.engines.tensor.kernels`):

- ``index3x3`` / ``table`` (two-state 3x3 rules and Generations): the 9-bit neighbourhood index
  of the state-1 cells, looked up in the 512-entry table (``path="index"``; ``path="conv"``
  computes the same index with a weighted float32 ``conv2d``); when the table depends only on
  the centre and the Moore count (B/S Moore rules, whatever their spelling) the cheaper
  3x3 box count is used instead (``path="count"``, chosen by ``path="auto"``);
- ``mask_count`` / ``intervals`` (Larger than Life): counts under the 0/1 mask from prefix sums
  (box sums for Moore); ``weighted_count`` (``NW``, ``NG``) sums one such count per distinct
  weight (and weighted state);
- then Generations decay. Padding follows the topology: wrap on a torus, dead on a plane, a
  gather of the border ring for shifted tori, Klein bottles, cross-surfaces and spheres.
Other spec kinds are refused with :class:`~tensorca.errors.EngineError`.

The generation loop issues tensor operations only: no ``.item()``, ``.cpu()`` or Python branching
on tensor values, so on CUDA it never waits for the device. Observers (population per
generation, :meth:`TorchEngine.advance_observed`) accumulate on the device and are read once.

Options (:meth:`TorchEngine.with_options`, or ``TorchEngine(...)`` passed as ``backend=``):
``compile=True`` runs each step through ``torch.compile`` (built with ``fused=True``: a torus is
read through rolls, so the 3x3 step compiles to one kernel, and two-state Moore count rules on
grids a multiple of 4 and at least 8 wide run four cells an ``int32`` word, :mod:`.torch_packed`,
unless ``path="count"`` asks for a cell a byte);
``cuda_graphs=True`` captures a chunk of generations as a CUDA graph and replays it (CUDA only;
grids up to ``graph_max_cells``);
``path`` forces a perceive path. Every option computes bit-identical results.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

from ...cpu_load import torch_threads, torch_threads_capped
from ...errors import EngineError, UsageError
from ...families.registry import extra_kinds, kernel_cell_bytes, step_for
from ...randomness import Clock
from ...rules.base import Rule
from ...rules.stepspec import Index3x3, IntervalUpdate, MaskCount, TableUpdate, WeightedCount
from ...topology import Topology
from ..base import Engine
from ..stochastic_steps import runs as stochastic_runs
from ..stochastic_steps import torch_stepper
from . import kernels as K
from . import packed as P

Step = Callable[[torch.Tensor], torch.Tensor]

PATHS = ("auto", "index", "conv", "count")


@dataclasses.dataclass(frozen=True)
class TorchOptions:
    """How the torch engine runs; every combination computes the same cells."""

    compile: bool = False
    cuda_graphs: bool = False
    path: str = "auto"
    #: CUDA graphs are used only for batches of at most this many cells (launch-bound sizes).
    graph_max_cells: int = 1 << 22
    #: Generations captured per CUDA graph.
    graph_chunk: int = 32

    def __post_init__(self) -> None:
        if self.path not in PATHS:
            raise EngineError(f"torch engine path must be one of {', '.join(PATHS)}, got {self.path!r}")


def cuda_available() -> bool:
    """True when torch sees a CUDA device."""
    return torch.cuda.is_available()


#: The ``(perceive, update)`` kinds this engine runs itself.
KINDS = frozenset({("index3x3", "table"), ("mask_count", "intervals"), ("weighted_count", "intervals")})


def runs(spec) -> bool:
    """True when this engine has a step for ``spec``: built in, or registered by a rule family
    (:func:`tensorca.families.register_step` with engine ``"torch"`` and a function
    ``build(spec, topology, device) -> step``, ``step`` mapping a ``(B, H, W)`` tensor of the
    spec's state space to the next generation with tensor operations only), or a stochastic spec
    (:mod:`.stochastic_steps`) over such a step."""
    if spec.stochastic:
        return stochastic_runs(spec, runs)
    return spec.kinds in KINDS or spec.kinds in extra_kinds("torch")


def make_step(rule: Rule, topology: Topology, device: torch.device, path: str = "auto",
              fused: bool = False) -> Step:
    """One generation of ``rule`` on ``topology`` as a function ``(B, H, W) uint8 -> uint8`` on ``device``.

    Dispatches on the rule's step spec. The rule's tables are moved to ``device`` once, here; the
    returned function only launches tensor operations. ``fused``: the step is for
    ``torch.compile``, so 3x3 neighbourhoods on a torus are read through rolls, which Inductor
    fuses into one kernel (:func:`~tensorca.engines.tensor.kernels.moore_box_count`), and two-state
    Moore count rules on a torus or plane a multiple of 4 and at least 8 wide work on four cells an
    ``int32`` word (:func:`~tensorca.engines.tensor.packed.moore_count_step`) unless ``path`` is
    ``"count"``.
    """
    spec = rule.compile()
    perceive, update, n_states = spec.perceive, spec.update, spec.n_states
    extra = None if spec.kinds in KINDS else step_for("torch", spec.kinds)
    if extra is not None:  # a rule family's own kernel: build(spec, topology, device) -> step
        return extra(spec, topology, device)
    if isinstance(perceive, Index3x3) and isinstance(update, TableUpdate):
        return _table_step(update, n_states, topology, device, path, rule.canonical(), fused)
    if isinstance(perceive, WeightedCount) and isinstance(update, IntervalUpdate):
        return _weighted_step(perceive, update, n_states, topology, device)
    if isinstance(perceive, MaskCount) and isinstance(update, IntervalUpdate):
        return _mask_step(perceive, update, n_states, topology, device)
    raise EngineError(f"torch engine has no step for perceive {spec.kinds[0]!r} with update {spec.kinds[1]!r}")


def _table_step(update: TableUpdate, n_states: int, topology: Topology, device: torch.device, path: str,
                name: str, fused: bool = False) -> Step:
    """3x3 table rules: the Moore box count when the table allows it, else the 9-bit index."""
    kind = K.padding(topology, 1, device)
    table_np = update.lookup()
    count_np = K.moore_count_table(table_np)
    if path == "count" and count_np is None:
        raise EngineError(f"path='count' needs an outer-totalistic Moore rule; {name!r} is not")
    if path == "count" or (path == "auto" and count_np is not None):
        assert count_np is not None
        bits = int(sum(int(v) << i for i, v in enumerate(count_np)))
        shifts = torch.tensor(bits, dtype=torch.int32, device=device)
        births = tuple(c for c in range(10) if count_np[c])
        survivals = tuple(c for c in range(10) if count_np[10 + c])
        packed = fused and path == "auto" and n_states == 2  # path="count" keeps a cell a byte

        def step_count(cells: torch.Tensor) -> torch.Tensor:
            if packed and P.packs(cells, kind):  # shape and strides only: a guard
                return P.moore_count_step(cells, births, survivals, kind)
            alive = (cells == 1).to(torch.uint8) if n_states > 2 else cells
            box = K.moore_box_count(alive, kind, fused)
            slot = (box + alive * 10).to(torch.int32)
            on = ((shifts >> slot) & 1).to(torch.uint8)
            return K.apply_decay(cells, on, n_states)

        return step_count
    table = torch.from_numpy(table_np).to(device)
    weights = K.conv_weights(device) if path == "conv" else None

    def step_table(cells: torch.Tensor) -> torch.Tensor:
        alive = (cells == 1).to(torch.uint8) if n_states > 2 else cells
        index = K.conv_index(alive, kind, weights) if weights is not None else K.table_index(alive, kind, fused)
        on = K.lookup(table, index)
        return K.apply_decay(cells, on, n_states)

    return step_table


def _weighted_step(perceive: WeightedCount, update: IntervalUpdate, n_states: int, topology: Topology,
                   device: torch.device) -> Step:
    """Weighted counts (``NW``, ``NG``): a verdict table when the counts are small, else comparisons."""
    wplan = K.WeightPlan.of(perceive.weights, perceive.state_weights)
    kind = K.padding(topology, wplan.radius, device)
    top = max([hi for _, hi in update.birth + update.survival] + [0])
    if top <= 1 << 20:
        # verdict[slot + (top + 2) * alive]; slot top + 1 (0 in both halves) takes every count
        # below 0 or above top, which no interval lists.
        verdict = np.concatenate([K.interval_table(update.birth, top + 1), K.interval_table(update.survival, top + 1)])
        verdict[top + 1] = verdict[2 * top + 3] = 0
        verdict_t = torch.from_numpy(verdict).to(device)

        def step_weighted(cells: torch.Tensor) -> torch.Tensor:
            alive = (cells == 1).to(torch.uint8)
            count = K.weighted_count(cells, wplan, kind)
            slot = torch.where((count < 0) | (count > top), top + 1, count).to(torch.int32)
            on = K.lookup(verdict_t, slot + alive.to(torch.int32) * (top + 2))
            return K.apply_decay(cells, on, n_states)

        return step_weighted

    def in_intervals(count: torch.Tensor, intervals: tuple[tuple[int, int], ...]) -> torch.Tensor:
        hit = torch.zeros(count.shape, dtype=torch.bool, device=count.device)
        for lo, hi in intervals:
            hit = hit | ((count >= lo) & (count <= hi))
        return hit

    def step_weighted_wide(cells: torch.Tensor) -> torch.Tensor:
        count = K.weighted_count(cells, wplan, kind)
        on = torch.where(cells == 1, in_intervals(count, update.survival), in_intervals(count, update.birth))
        return K.apply_decay(cells, on.to(torch.uint8), n_states)

    return step_weighted_wide


def _mask_step(perceive: MaskCount, update: IntervalUpdate, n_states: int, topology: Topology,
               device: torch.device) -> Step:
    """0/1 mask counts (Larger than Life): box or run sums, then one verdict table lookup."""
    plan = K.MaskPlan.of(perceive.mask)
    kind = K.padding(topology, plan.radius, device)
    max_count = int(perceive.mask.sum())
    # verdict[count + (max_count + 1) * alive]: birth intervals first, then survival.
    verdict = np.concatenate([K.interval_table(update.birth, max_count), K.interval_table(update.survival, max_count)])
    verdict_t = torch.from_numpy(verdict).to(device)
    stride = max_count + 1

    def step_ltl(cells: torch.Tensor) -> torch.Tensor:
        alive = (cells == 1).to(torch.uint8)
        count = K.mask_count(alive, plan, kind)
        on = K.lookup(verdict_t, count + alive.to(torch.int32) * stride)
        return K.apply_decay(cells, on, n_states)

    return step_ltl


_COMPILED_STEPS = itertools.count()


@contextlib.contextmanager
def _nothing() -> Iterator[None]:
    yield


def _compiled(step: Step, what: str) -> Step:
    """``torch.compile`` of a copy of ``step`` with a code object of its own; a compilation that
    fails raises :class:`~tensorca.errors.EngineError` naming ``what``.

    Dynamo keeps the graphs it compiles per code object, and every step a builder returns shares
    its inner function's code. Without the copy a process that compiled more than Dynamo's
    ``recompile_limit`` (8) rules, topologies or shapes would hit that limit, which with
    ``fullgraph=True`` raises instead of falling back."""
    import torch._dynamo.exc as dynamo_exc

    failures = (dynamo_exc.TorchDynamoException, dynamo_exc.FailOnRecompileLimitHit)
    if not isinstance(step, types.FunctionType):
        inner = step

        def step(cells: torch.Tensor) -> torch.Tensor:
            return inner(cells)

    code = step.__code__.replace(co_name=f"{step.__code__.co_name}_{next(_COMPILED_STEPS)}")
    own = types.FunctionType(code, step.__globals__, code.co_name, step.__defaults__, step.__closure__)
    compiled = torch.compile(own, dynamic=False, fullgraph=True)
    # Inductor builds a CPU kernel for one thread count and Dynamo recompiles when the count
    # changes, as the engine's cap to the free cores does with the machine's load: each change
    # would cost a compilation, and the ninth would hit Dynamo's recompile limit. So a compiled
    # CPU step keeps the count of its first call.
    cpu_threads: list[int] = []

    def run(cells: torch.Tensor) -> torch.Tensor:
        try:
            if cells.device.type != "cpu":
                return compiled(cells)
            if not cpu_threads:
                cpu_threads.append(torch.get_num_threads())
            with torch_threads(torch, cpu_threads[0]):
                return compiled(cells)
        except failures as exc:
            first = (str(exc).strip().splitlines() or [""])[0][:300]
            raise EngineError(f"torch.compile could not compile the step for {what}: {type(exc).__name__}: "
                              f"{first}; TorchEngine(compile=False) runs the same step uncompiled") from exc

    return run


class TorchEngine(Engine):
    """``backend="torch"``: every family the reference supports, every bounded topology, any device."""

    name = "torch"
    array_module = "torch"

    def __init__(self, *, compile: bool = False, cuda_graphs: bool = False, path: str = "auto", **more: Any):
        self.options = TorchOptions(compile=compile, cuda_graphs=cuda_graphs, path=path, **more)
        self._steps: dict[tuple, Step] = {}
        self._graphs: dict[tuple, tuple[Any, torch.Tensor, torch.Tensor]] = {}

    def with_options(self, **options: Any) -> TorchEngine:
        """A new engine with some options changed, e.g. ``get_engine("torch").with_options(compile=True)``."""
        return TorchEngine(**{**dataclasses.asdict(self.options), **options})

    def __repr__(self) -> str:
        changed = {k: v for k, v in dataclasses.asdict(self.options).items() if v != getattr(TorchOptions, k)}
        return f"TorchEngine({', '.join(f'{k}={v!r}' for k, v in changed.items())})"

    def devices(self) -> list[str]:
        return ["cpu", "cuda"] if cuda_available() else ["cpu"]

    def bytes_needed(self, batch: int, shape: tuple[int, int], rule: Rule | None = None) -> int:
        if rule is not None and rule.compile().perceive.kind.startswith("kernel_fft"):  # Lenia: the grid padded by R
            shape = (shape[0] + 2 * rule.reach, shape[1] + 2 * rule.reach)
        return super().bytes_needed(batch, shape, rule)

    def cell_bytes(self, rule: Rule | None = None) -> float:
        # uint8 input/alive/output, padded copy, int32 index or count, verdict; counted
        # neighbourhoods add int32 prefix sums; Generations adds the decay temporaries.
        spec = rule.compile() if rule is not None else None
        declared = None if spec is None else kernel_cell_bytes(self.name, spec)  # a family's own kernel
        if declared is not None:
            return declared
        if spec is not None and spec.perceive.kind != "index3x3":
            base = 22.0
        elif self.options.path == "conv":
            base = 24.0
        else:
            base = 12.0
        return base + (4.0 if spec is not None and spec.decay else 0.0)

    def supports(self, rule: Rule, topology: Topology) -> bool:
        spec = rule.compile()
        if not topology.bounded or not runs(spec):
            return False
        if self.options.path == "count" and isinstance(spec.update, TableUpdate):
            return K.moore_count_table(spec.update.lookup()) is not None
        return True

    def why_unsupported(self, rule: Rule, topology: Topology) -> str:
        if not topology.bounded:
            return "engine 'torch' runs bounded grids; the simulator handles the unbounded plane"
        kinds = rule.compile().kinds
        if kinds == ("index3x3", "table") and self.options.path == "count":
            return f"engine 'torch' with path='count' needs an outer-totalistic Moore rule, not {rule.canonical()!r}"
        return (f"engine 'torch' does not support rule {rule.canonical()!r} ({rule.family}): no step for perceive "
                f"{kinds[0]!r} with update {kinds[1]!r}")

    # -- stepping ---------------------------------------------------------------------------

    def step_function(self, rule: Rule, topology: Topology, device: torch.device | str,
                      batch: int | None = None) -> Step:
        """The (cached, possibly compiled) one-generation function for ``rule`` on ``device``; a
        compiled one is for batches of ``batch`` grids."""
        device = torch.device(device)
        # A compiled step is traced for one batch shape (Lenia's kernel transform is built per shape
        # outside the trace), so compiled steps are kept per shape; eager ones serve every size.
        shape = (batch, *topology.shape) if self.options.compile else None
        key = (rule, K.topology_kind(topology), shape, str(device), self.options.path, self.options.compile)
        step = self._steps.get(key)
        if step is None:
            step = make_step(rule, topology, device, self.options.path, fused=self.options.compile)
            if self.options.compile:
                grids = "grids" if batch is None else f"{batch} grids"
                step = _compiled(step, f"rule {rule.canonical()!r} on {grids} of {topology.height} x "
                                       f"{topology.width} ({topology.kind})")
            if len(self._steps) > 64:
                self._steps.clear()
            self._steps[key] = step
        return step

    def _check(self, cells: Any, rule: Rule, topology: Topology, generations: int) -> None:
        if not isinstance(cells, torch.Tensor):
            raise EngineError(f"engine 'torch' takes a torch tensor, got {type(cells).__name__}")
        space = rule.compile().state_space
        discrete = space.discrete
        channels = space.channels  # a multi-channel rule's cells are (B, C, H, W)
        layout = "(B, H, W)" if channels is None else f"(B, {channels}, H, W)"
        if (cells.ndim != (3 if channels is None else 4) or (channels is not None and cells.shape[1] != channels)
                or (cells.dtype != torch.uint8 if discrete else not cells.dtype.is_floating_point)):
            want = "uint8" if discrete else "floating-point"
            raise EngineError(f"engine 'torch' takes a {layout} {want} tensor for rule {rule.canonical()!r}, "
                              f"got {tuple(cells.shape)} {cells.dtype}")
        if not self.supports(rule, topology):
            raise EngineError(self.why_unsupported(rule, topology))
        if tuple(cells.shape[-2:]) != topology.shape:
            raise EngineError(f"grid shape {tuple(cells.shape[-2:])} does not match topology {topology}")
        if generations < 0:
            raise UsageError(f"generations must be non-negative, got {generations}")

    def advance(self, cells: torch.Tensor, rule: Rule, topology: Topology, generations: int, *,
                clock: Clock | None = None) -> torch.Tensor:
        """Advance a ``(B, H, W)`` uint8 tensor by ``generations`` on its own device (input untouched).

        A stochastic rule draws from ``clock`` (None: seed 0, generation 0, grid 0) on the tensor's
        device; it runs eagerly (its draws change every generation: no CUDA graph replays them)."""
        self._check(cells, rule, topology, generations)
        if generations == 0 or cells.numel() == 0:
            return cells.clone()
        cells = self._alive_only(cells, rule)
        if rule.compile().stochastic:
            return self._advance_stochastic(cells, rule, topology, generations, clock)
        step = self.step_function(rule, topology, cells.device, cells.shape[0])
        if self._use_graphs(cells):
            return self._advance_graphed(step, cells, rule, topology, generations)
        cells = cells.contiguous()
        if cells.device.type != "cpu":
            for _ in range(generations):
                cells = step(cells)
            return cells
        with torch_threads_capped(torch):  # OpenMP barriers stall on cores other processes hold
            for _ in range(generations):
                cells = step(cells)
        return cells

    def _advance_stochastic(self, cells: torch.Tensor, rule: Rule, topology: Topology, generations: int,
                            clock: Clock | None, population: torch.Tensor | None = None) -> torch.Tensor:
        step = torch_stepper(self, rule.compile(), topology, cells, clock)
        cells = cells.contiguous()
        with torch_threads_capped(torch) if cells.device.type == "cpu" else _nothing():
            for t in range(generations):
                cells = step(cells, t)
                if population is not None:
                    population[t + 1] = (cells != 0).sum(dim=(1, 2))
        return cells

    def advance_observed(
        self, cells: torch.Tensor, rule: Rule, topology: Topology, generations: int, *, clock: Clock | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Advance as :meth:`advance` and also return the population of every generation.

        Returns ``(cells, population)`` with ``population`` an int64 ``(generations + 1, B)``
        tensor on the device (row 0 is the start): counted on the device, read once by the caller.
        """
        self._check(cells, rule, topology, generations)
        population = torch.empty((generations + 1, cells.shape[0]), dtype=torch.int64, device=cells.device)
        population[0] = (cells != 0).sum(dim=(1, 2))
        if cells.numel() == 0:
            population.zero_()
            return cells.clone(), population
        if rule.compile().stochastic:
            alive = self._alive_only(cells, rule)
            out = self._advance_stochastic(alive, rule, topology, generations, clock, population)
            return (out if generations else cells.clone()), population
        step = self.step_function(rule, topology, cells.device, cells.shape[0])
        out = self._alive_only(cells, rule).contiguous()
        for gen in range(1, generations + 1):
            out = step(out)
            population[gen] = (out != 0).sum(dim=(1, 2))
        return (out if generations else cells.clone()), population

    @staticmethod
    def _alive_only(cells: torch.Tensor, rule: Rule) -> torch.Tensor:
        # Two-state steps read the grid as the 0/1 alive grid; a stray state >= 2 is dead there,
        # as in the reference (it reads ``cells == 1``). One pass before the loop, not per step.
        return (cells == 1).to(torch.uint8) if rule.n_states == 2 and rule.state_space.discrete else cells

    # -- CUDA graphs ------------------------------------------------------------------------

    def _use_graphs(self, cells: torch.Tensor) -> bool:
        return (
            self.options.cuda_graphs
            and cells.device.type == "cuda"
            and cells.numel() <= self.options.graph_max_cells
        )

    def _advance_graphed(
        self, step: Step, cells: torch.Tensor, rule: Rule, topology: Topology, generations: int
    ) -> torch.Tensor:
        """Replay a captured chunk of generations; the remainder runs eagerly (same kernels)."""
        chunk = self.options.graph_chunk
        key = (rule, K.topology_kind(topology), str(cells.device), tuple(cells.shape), self.options.path,
               self.options.compile, chunk)
        graph = self._graphs.get(key) if generations >= chunk else None
        if graph is None and generations >= chunk:
            graph = self._capture(step, cells, chunk)
            if len(self._graphs) > 16:
                self._graphs.clear()
            self._graphs[key] = graph
        out = cells.contiguous()
        if graph is not None:
            cuda_graph, static_in, static_out = graph
            static_in.copy_(out)
            for _ in range(generations // chunk):
                cuda_graph.replay()
                static_in.copy_(static_out)
            out = static_in.clone()
        for _ in range(generations % chunk if graph is not None else generations):
            out = step(out)
        return out

    @staticmethod
    def _capture(step: Step, cells: torch.Tensor, chunk: int) -> tuple[Any, torch.Tensor, torch.Tensor]:
        static_in = cells.contiguous().clone()
        side = torch.cuda.Stream(device=cells.device)
        side.wait_stream(torch.cuda.current_stream(cells.device))
        with torch.cuda.stream(side):
            warm = static_in
            for _ in range(3):
                warm = step(warm)
        torch.cuda.current_stream(cells.device).wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = static_in
            for _ in range(chunk):
                out = step(out)
        return graph, static_in, out
