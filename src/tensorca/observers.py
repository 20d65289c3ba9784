"""Observers: quantities collected during a run where the cells live, read back once at the end.

:class:`Population` counts the non-zero cells of every grid every ``k`` generations, or, for a
continuous rule (Lenia), sums their values (the mass). Torch engines count on the device inside
``advance_observed`` (no host synchronisation per generation); other engines, and continuous
rules, are sampled between engine calls (still on the device, read back once).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import numpy as np

from .arrays import is_tensor
from .engines.base import Engine, advance_engine
from .errors import UsageError
from .randomness import Clock
from .rules.base import Rule
from .topology import Topology

# -- observers --------------------------------------------------------------------------------


@dataclasses.dataclass
class Population:
    """Observer: the number of non-zero cells of every grid every ``every`` generations.

    Pass it as ``run(..., observe=Population(every=k))``; after the run, ``generations`` is the
    ``(n,)`` int64 array of generation numbers sampled (the start, then every multiple of ``k``;
    a pattern counts from its own ``generation``) and ``values`` the ``(n, B)`` int64 populations
    (``B = 1`` for a pattern or an ``(H, W)`` grid); for a continuous rule (Lenia) ``values`` are
    the ``(n, B)`` float64 masses (sums of the cell values) and ``quantity`` is ``"mass"``.
    Counting happens where the cells are (on the GPU for torch engines) and the counts are read
    back once, when the run ends.
    """

    every: int = 1
    generations: np.ndarray | None = None
    values: np.ndarray | None = None
    quantity: str = "population"

    def __post_init__(self) -> None:
        if isinstance(self.every, bool) or not isinstance(self.every, (int, np.integer)) or self.every < 1:
            raise UsageError(f"Population(every=...) must be a positive integer, got {self.every!r}")
        self.every = int(self.every)

    def to_csv(self, path: str | os.PathLike) -> None:
        """Write ``generation,population`` (one column per grid of a batch: ``population_0`` ...)."""
        if self.values is None or self.generations is None:
            raise UsageError("the observer has no values yet: pass it to run(..., observe=...) first")
        width = self.values.shape[1]
        name = self.quantity
        columns = [name] if width == 1 else [f"{name}_{i}" for i in range(width)]
        with open(path, "w") as fh:
            fh.write(",".join(["generation", *columns]) + "\n")
            for gen, row in zip(self.generations, self.values, strict=True):
                cells = (repr(float(v)) if self.quantity == "mass" else str(int(v)) for v in row)
                fh.write(",".join([str(int(gen)), *cells]) + "\n")


def population_counts(cells: Any) -> Any:
    """``(B,)`` int64 count of non-zero cells, or for float cells (Lenia) the float64 mass (sum of
    values), computed where ``cells`` lives (no host sync for tensors, no autograd graph kept)."""
    if is_tensor(cells):
        if cells.dtype.is_floating_point:
            import torch

            return cells.detach().sum(dim=(1, 2), dtype=torch.float64)
        return (cells != 0).sum(dim=(1, 2))
    array = np.asarray(cells)
    if np.issubdtype(array.dtype, np.floating):
        return array.sum(axis=(1, 2), dtype=np.float64)
    return np.count_nonzero(array, axis=(1, 2)).astype(np.int64)


class Samples:
    """Population blocks ``(generations, values (k, B))`` gathered during a run, read back once."""

    def __init__(self, observer: Population | None):
        self.observer = observer
        self.blocks: list[tuple[list[int], Any]] = []

    def add(self, generations: list[int], values: Any) -> None:
        if self.observer is not None and generations:
            self.blocks.append((list(generations), values))

    def finish(self, batch: int) -> None:
        if self.observer is None:
            return
        tensors = [v for _, v in self.blocks if is_tensor(v)]
        host_tensors: list[np.ndarray] = []
        if tensors:  # one device -> host read for all of them
            import torch

            kind = torch.float64 if any(t.dtype.is_floating_point for t in tensors) else torch.int64
            flat = torch.cat([t.reshape(-1).to(kind).to(tensors[0].device) for t in tensors]).cpu().numpy()
            offset = 0
            for t in tensors:
                n = t.numel()
                host_tensors.append(flat[offset : offset + n].reshape(tuple(t.shape)))
                offset += n
        values, gens, it = [], [], iter(host_tensors)
        for g, v in self.blocks:
            v = next(it) if is_tensor(v) else np.asarray(v)
            values.append(np.asarray(v).reshape(len(g), -1))
            gens.extend(g)
        mass = any(np.issubdtype(v.dtype, np.floating) for v in values)
        dtype = np.float64 if mass else np.int64
        self.observer.quantity = "mass" if mass else "population"
        self.observer.generations = np.asarray(gens, dtype=np.int64)
        self.observer.values = (np.concatenate(values, axis=0).astype(dtype) if values
                                else np.zeros((0, batch), dtype))


def advance_observed(engine: Engine, cells: Any, rule: Rule, topology: Topology, k: int,
                     observer: Population | None, gen0: int, clock: Clock | None = None) -> tuple[Any, list[int], Any]:
    """Advance ``k`` generations from absolute generation ``gen0``; also the populations sampled.
    ``clock``: a stochastic rule's draws at ``gen0`` (:class:`~tensorca.randomness.Clock`)."""
    stochastic = clock is not None and rule.compile().stochastic
    if observer is None or k == 0:
        return advance_engine(engine, cells, rule, topology, k, clock), [], None
    wanted = [g for g in range(gen0 + 1, gen0 + k + 1) if g % observer.every == 0]
    # an engine's own observed loop counts non-zero cells; continuous rules report mass instead
    observed = getattr(engine, "advance_observed", None) if rule.state_space.discrete else None
    if observed is not None:
        out, pop = observed(cells, rule, topology, k, clock=clock) if stochastic else observed(cells, rule, topology, k)
        if not wanted:
            return out, [], None
        if len(wanted) == k:
            return out, wanted, pop[1:]
        first = wanted[0] - gen0
        return out, wanted, pop[first :: observer.every]
    values, done, cur = [], gen0, cells
    for target in wanted:
        cur = advance_engine(engine, cur, rule, topology, target - done, clock.later(done - gen0) if clock else None)
        done = target
        values.append(population_counts(cur))
    if done < gen0 + k:
        cur = advance_engine(engine, cur, rule, topology, gen0 + k - done, clock.later(done - gen0) if clock else None)
    if not values:
        return cur, [], None
    if is_tensor(values[0]):
        import torch

        return cur, wanted, torch.stack(values)
    return cur, wanted, np.stack(values)
