"""Stochastic step specs on the NumPy reference and the torch engine (:mod:`tensorca.families.stochastic.rule`).

The update kinds ``noisy`` (births, survivals and asynchronous updating drawn over any deterministic
rule's step), ``domany_kinzel``, ``forest_fire`` and ``sir``, for a ``(B, H, W)`` batch stepped from a
:class:`~tensorca.randomness.Clock`: grid ``b`` of the batch is grid ``clock.grid + b`` of the run, cell
``[r, c]`` sits at ``clock.origin + (r, c)`` and the step from the batch's ``t``-th generation draws
with generation ``clock.generation + t``. NumPy is the definition; torch computes the same draws on the
tensor's device (:mod:`tensorca.randomness`'s torch functions, integer comparisons only) with tensor
operations alone: no host synchronisation inside the generation loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import EngineError
from ..families.stochastic.rule import ASYNC_DRAW, BIRTH_DRAW, SURVIVAL_DRAW, NoisyUpdate
from ..randomness import (
    Clock,
    bernoulli_batch,
    bernoulli_batch_torch,
    block_plan,
    grid_keys,
    grid_keys_torch,
    uniform_bits_batch,
    uniform_bits_batch_torch,
    uniform_threshold,
)
from ..rules.stepspec import StepSpec
from ..topology import Topology
from .numpy_grid import neighbourhood_index, pad

#: The stochastic update kinds these engines run (``noisy`` over any base rule they run).
KINDS = frozenset({"noisy", "domany_kinzel", "forest_fire", "sir"})


def runs(spec: StepSpec, base_runs: Callable[[StepSpec], bool]) -> bool:
    """True when ``spec`` is a stochastic spec these steps compute: a family of their own, or noise
    over a base rule whose deterministic step ``base_runs`` (the engine's own test) accepts."""
    if not spec.stochastic or spec.update.kind not in KINDS:
        return False
    if isinstance(spec.update, NoisyUpdate):
        return base_runs(spec.update.base.compile())
    return True


def why_not_bitpack_noisy(spec: StepSpec, topology: Topology) -> str | None:
    """None when ``bitpack-cpu`` runs the stochastic ``spec`` (noise over a two-state 3x3 table rule on a
    plain torus or bounded plane: :mod:`.bitpack_noise`), else why not (no framework imported)."""
    from .bitpack.circuit import why_not_bitpack

    if not isinstance(spec.update, NoisyUpdate):
        return f"of the stochastic rules it runs noisy two-state 3x3 rules only, not update {spec.update.kind!r}"
    reason = why_not_bitpack(spec.update.base.compile(), topology)
    return None if reason is None else f"the noisy rule's base rule: {reason}"


def noisy_kernel_state(spec: StepSpec) -> str:
    """``bitpack-cpu``'s kernel state for a noisy rule: its base rule's row kernels and the word pass
    (:mod:`.bitpack_noise`), the less ready of the two ("none" for a rule it does not run)."""
    from .bitpack.choice import kernel_key
    from .bitpack.circuit import READINESS, module_state, rule_table

    if why_not_bitpack_noisy(spec, Topology.plane(1, 1)) is not None:
        return "none"
    row_kernels = module_state("bitpack-cpu", kernel_key("bitpack-cpu", rule_table(spec.update.base)))
    if NOISE_LOADED:
        noise = "loaded"
    else:
        from pathlib import Path

        from ..cache_dirs import compiled_on_disk

        source = Path(__file__).parent / "bitpack" / "noise.py"
        noise = "disk" if compiled_on_disk(source, "noise.noise_pass-*.nbi") else "cold"
    return max(row_kernels, noise, key=READINESS.index)


#: Set once bitpack-cpu has run a noisy rule in this process (its word pass is compiled and loaded).
NOISE_LOADED: list[bool] = []


def failed_survival(n_states: int) -> int:
    """The state of a cell whose survival draw fails: dead (two states) or the first decay state."""
    return 0 if n_states == 2 else 2


# -- NumPy: the definition --------------------------------------------------------------------


def advance_numpy(cells: np.ndarray, spec: StepSpec, topology: Topology, generations: int,
                  clock: Clock | None, deterministic: Callable[[np.ndarray, StepSpec, Topology], np.ndarray]
                  ) -> np.ndarray:
    """``generations`` of a stochastic ``spec`` on ``(B, H, W)`` cells from ``clock`` (None: seed 0,
    generation 0, grid 0, origin (0, 0)); ``deterministic(cells, spec, topology)`` is the NumPy
    reference's step of the base rule a noisy rule wraps."""
    clock = clock or Clock()
    batch, height, width = cells.shape[0], cells.shape[-2], cells.shape[-1]
    ys, xs = clock.coordinates(height, width)
    grids = np.arange(batch, dtype=np.int64) + int(clock.grid)
    if spec.state_space.discrete and spec.n_states == 2:
        cells = (cells == 1).astype(np.uint8)  # the reference's live cells, as every two-state step reads them
    for t in range(generations):
        cells = step_numpy(cells, spec, topology, int(clock.seed), int(clock.generation) + t, grids, ys, xs,
                           deterministic)
    return cells


def step_numpy(cells: np.ndarray, spec: StepSpec, topology: Topology, seed: int, generation: int,
               grids: np.ndarray, ys: np.ndarray, xs: np.ndarray,
               deterministic: Callable[[np.ndarray, StepSpec, Topology], np.ndarray]) -> np.ndarray:
    """One generation (from absolute ``generation``) of a stochastic spec on NumPy cells."""
    update = spec.update

    def bern(draw: int, p: float, gen: int = generation) -> np.ndarray:
        return bernoulli_batch(grid_keys(seed, gen, draw, grids), p, ys, xs)

    if isinstance(update, NoisyUpdate):
        base = update.base.compile()
        nxt = deterministic(cells, base, topology)
        if update.birth_survival:
            born = (cells == 0) & (nxt == 1)
            kept = (cells == 1) & (nxt == 1)
            nxt = np.where(born & ~bern(BIRTH_DRAW, update.pb), 0, nxt).astype(nxt.dtype)
            fail = failed_survival(base.n_states)
            nxt = np.where(kept & ~bern(SURVIVAL_DRAW, update.ps), fail, nxt).astype(nxt.dtype)
        if update.asynchronous:
            nxt = np.where(bern(ASYNC_DRAW, update.alpha), nxt, cells).astype(nxt.dtype)
        return nxt
    if update.kind == "domany_kinzel":
        alive = cells == 1
        index = neighbourhood_index(alive, topology)
        n = ((index >> 8) & 1) + ((index >> 6) & 1)  # NW and NE: the line's two neighbours one step earlier
        born = ~alive & (((n == 1) & bern(0, update.p1, 0)) | ((n == 2) & bern(1, update.p2, 0)))
        return (alive | born).astype(np.uint8)
    bits = uniform_bits_batch(grid_keys(seed, generation, 0, grids), ys, xs)
    if update.kind == "forest_fire":
        burning = _von_neumann(cells == 2, topology) > 0
        tree = cells == 1
        nxt = np.zeros_like(cells)
        nxt[(cells == 0) & (bits < np.uint64(uniform_threshold(update.p)))] = 1
        nxt[tree] = 1
        nxt[tree & (burning | (bits < np.uint64(uniform_threshold(update.f))))] = 2
        return nxt
    if update.kind == "sir":
        infected = _von_neumann(cells == 1, topology)
        thresholds = np.array(update.infection_thresholds(), dtype=np.uint64)
        nxt = cells.copy()
        nxt[(cells == 0) & (bits < thresholds[infected])] = 1
        nxt[(cells == 1) & (bits < np.uint64(uniform_threshold(update.gamma)))] = 2
        nxt[(cells == 2) & (bits < np.uint64(uniform_threshold(update.rho)))] = 0
        return nxt
    raise EngineError(f"the NumPy reference has no stochastic step for update {update.kind!r}")


def _von_neumann(on: np.ndarray, topology: Topology) -> np.ndarray:
    """``(B, H, W)`` int64: how many of each cell's four von Neumann neighbours are ``on``."""
    _, height, width = on.shape
    padded = pad(on.astype(np.int64), 1, topology)
    return (padded[:, 0:height, 1 : width + 1] + padded[:, 2 : height + 2, 1 : width + 1]
            + padded[:, 1 : height + 1, 0:width] + padded[:, 1 : height + 1, 2 : width + 2])


# -- torch: the same draws on the tensor's device -----------------------------------------------


class TorchDraws:
    """A batch's draw coordinates on one device, made once per engine call (the loop then only
    launches kernels: the keys of a generation are hashed on the device from Python integers)."""

    def __init__(self, clock: Clock, batch: int, height: int, width: int, device: Any):
        import torch

        ys, xs = clock.coordinates(height, width)
        blocks, column, bit = block_plan(xs)
        self.seed = int(clock.seed)
        self.ys, self.xs, self.blocks, self.column, self.bit = (
            torch.from_numpy(a).to(device) for a in (ys, xs, blocks, column, bit))
        self.grids = torch.arange(batch, dtype=torch.int64, device=device) + int(clock.grid)

    def bernoulli(self, generation: int, draw: int, p: float) -> Any:
        """Bool ``(B, H, W)``: Bernoulli(``p``) draw ``draw`` of ``generation``."""
        keys = grid_keys_torch(self.seed, generation, draw, self.grids)
        return bernoulli_batch_torch(keys, p, self.ys, self.blocks, self.column, self.bit)

    def uniform_bits(self, generation: int, draw: int) -> Any:
        """Int64 ``(B, H, W)``: the 53 bits of uniform draw ``draw`` of ``generation``."""
        return uniform_bits_batch_torch(grid_keys_torch(self.seed, generation, draw, self.grids), self.ys, self.xs)


def torch_stepper(engine: Any, spec: StepSpec, topology: Topology, cells: Any,
                  clock: Clock | None) -> Callable[[Any, int], Any]:
    """``step(cells, t)``: the batch's ``t``-th generation (from ``clock``) of a stochastic ``spec``,
    tensor operations only. ``engine``: the torch engine (its step for a noisy rule's base)."""
    import torch

    from .tensor import kernels as K
    clock = clock or Clock()
    batch, height, width = cells.shape[0], cells.shape[-2], cells.shape[-1]
    draws = TorchDraws(clock, batch, height, width, cells.device)
    first = int(clock.generation)
    update = spec.update
    kind = K.padding(topology, 1, cells.device)

    if isinstance(update, NoisyUpdate):
        base = update.base.compile()
        deterministic = engine.step_function(update.base, topology, cells.device, batch)
        fail = failed_survival(base.n_states)

        def step_noisy(cur: Any, t: int) -> Any:
            nxt = deterministic(cur)
            if update.birth_survival:
                born = (cur == 0) & (nxt == 1)
                kept = (cur == 1) & (nxt == 1)
                nxt = torch.where(born & ~draws.bernoulli(first + t, BIRTH_DRAW, update.pb), 0, nxt).to(nxt.dtype)
                nxt = torch.where(kept & ~draws.bernoulli(first + t, SURVIVAL_DRAW, update.ps), fail,
                                  nxt).to(nxt.dtype)
            if update.asynchronous:
                nxt = torch.where(draws.bernoulli(first + t, ASYNC_DRAW, update.alpha), nxt, cur.to(nxt.dtype))
            return nxt

        return step_noisy

    def von_neumann(on: Any) -> Any:
        padded = K.pad(on.to(torch.uint8), 1, kind)
        return (padded[:, 0:height, 1 : width + 1] + padded[:, 2 : height + 2, 1 : width + 1]
                + padded[:, 1 : height + 1, 0:width] + padded[:, 1 : height + 1, 2 : width + 2])

    if update.kind == "domany_kinzel":
        # Draws keyed by generation 0 whatever the generation (row y is time y): made once.
        one, two = draws.bernoulli(0, 0, update.p1), draws.bernoulli(0, 1, update.p2)

        def step_dk(cur: Any, t: int) -> Any:
            alive = cur == 1
            padded = K.pad(alive.to(torch.uint8), 1, kind)
            n = padded[:, 0:height, 0:width] + padded[:, 0:height, 2 : width + 2]
            born = ~alive & (((n == 1) & one) | ((n == 2) & two))
            return (alive | born).to(torch.uint8)

        return step_dk

    if update.kind == "forest_fire":
        grow, strike = uniform_threshold(update.p), uniform_threshold(update.f)

        def step_fire(cur: Any, t: int) -> Any:
            bits = draws.uniform_bits(first + t, 0)
            burning = von_neumann(cur == 2) > 0
            tree = cur == 1
            grown = ((cur == 0) & (bits < grow)).to(torch.uint8)
            return torch.where(tree, 1 + (burning | (bits < strike)).to(torch.uint8), grown)

        return step_fire

    if update.kind == "sir":
        thresholds = torch.tensor(update.infection_thresholds(), dtype=torch.int64, device=cells.device)
        recover, lose = uniform_threshold(update.gamma), uniform_threshold(update.rho)

        def step_sir(cur: Any, t: int) -> Any:
            bits = draws.uniform_bits(first + t, 0)
            infected = von_neumann(cur == 1).to(torch.int64)
            nxt = torch.where((cur == 0) & (bits < thresholds[infected]), 1, cur)
            nxt = torch.where((cur == 1) & (bits < recover), 2, nxt)
            nxt = torch.where((cur == 2) & (bits < lose), 0, nxt)
            return nxt.to(torch.uint8)

        return step_sir

    raise EngineError(f"torch engine has no stochastic step for update {update.kind!r}")


__all__ = ["KINDS", "TorchDraws", "advance_numpy", "failed_survival", "runs", "step_numpy", "torch_stepper",
           "why_not_bitpack_noisy"]
