"""One checkerboard sweep of the Ising and Potts models, written once for every engine.

A sweep updates the black sites (``(x + y) % 2 == 0``, colour 0) all at once from their
neighbours' current values, then the white sites (colour 1) from the updated black ones. Sites of
one colour are never neighbours (on a plane, and on a torus of even height and width), so each
half-sweep is a product of independent single-site updates and leaves the Boltzmann distribution
invariant. Each colour is handled as two quarters of the lattice, ``[0::2, c::2]`` and
``[1::2, 1-c::2]``, so the random words are hashed only for the sites being updated.

The draws of a site are :func:`tensorca.randomness.uniform_cells` values (as their 53-bit integers
``k``, ``u = k / 2^53``) of ``generation = 2 * sweep + colour`` (``sweep`` absolute: a resumed or
chunked run continues the same stream), ``grid`` = the grid's index, and the draw indices below.
The state of each lattice is ``(B, H, W)``: int8 spins +-1 for Ising, int16 states 0..q-1 for Potts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import params
from .ops import NumpyOps, Part, TorchOps, key_prefix

#: Draw index of the Ising acceptance (Metropolis) or spin-up (Glauber) draw, of Potts' proposal
#: (Metropolis) or heat-bath draw.
DRAW_MAIN = 0
#: Draw index of Potts Metropolis' acceptance draw.
DRAW_ACCEPT = 1


@dataclass(frozen=True)
class Lattice:
    """What a sweep needs besides the cells: the engine's operations, the boundary, the seed, each
    grid's index (native ``(B,)``) and each colour's two quarters."""

    ops: NumpyOps | TorchOps
    boundary: str
    seed: int
    grids: Any
    parts: tuple[tuple[Part, Part], tuple[Part, Part]]


def lattice(ops: NumpyOps | TorchOps, shape: tuple[int, int, int], boundary: str, seed: int,
            first_grid: int) -> Lattice:
    """The :class:`Lattice` of a ``(B, H, W)`` batch whose grid ``b`` has index ``first_grid + b``."""
    b, h, w = shape
    parts = tuple((ops.part(0, c, h, w), ops.part(1, 1 - c, h, w)) for c in (0, 1))
    return Lattice(ops, boundary, int(seed), ops.grids(first_grid, b), parts)  # type: ignore[arg-type]


def _quarter(a: Any, part: Part) -> Any:
    return a[..., part.r0::2, part.c0::2]


def ising_half(lat: Lattice, spins: Any, sweep: int, colour: int, dynamics: str, table: Any) -> None:
    """Update the ``colour`` sites of int8 ``spins`` (B, H, W) in place.

    Metropolis: flip when ``u < min(1, exp(-dE / T))``, ``dE = 2 s (n + h)``; Glauber: ``s' = +1``
    when ``u < 1 / (1 + exp(-2 (n + h) / T))``; ``n`` = the sum of the four neighbours, ``u`` =
    draw :data:`DRAW_MAIN`. ``table`` holds the thresholds of :mod:`.params`."""
    ops = lat.ops
    up, down, left, right = ops.neighbours(spins, lat.boundary, 0)
    total = up + down + left + right
    prefix = key_prefix(lat.seed, 2 * sweep + colour, DRAW_MAIN)
    for part in lat.parts[colour]:
        s = _quarter(spins, part)
        k = ops.draw53(prefix, lat.grids, part)
        index = ops.cast(_quarter(total, part), "int64") + 4
        if dynamics == "metropolis":
            flip = k < table[index + 9 * ops.cast(s > 0, "int64")]
            new = ops.where(flip, -s, s)
        else:
            new = ops.cast(k < table[index], "int8") * 2 - 1
        spins[..., part.r0::2, part.c0::2] = new


def _count(ops: NumpyOps | TorchOps, around: list, state: Any) -> Any:
    """int64: how many of the four neighbour arrays ``around`` equal ``state`` (array or int)."""
    total = ops.cast(around[0] == state, "int64")
    for a in around[1:]:
        total = total + ops.cast(a == state, "int64")
    return total


def potts_half(lat: Lattice, states: Any, sweep: int, colour: int, q: int, dynamics: str, table: Any) -> None:
    """Update the ``colour`` sites of int16 ``states`` (B, H, W), values 0..q-1, in place.

    Metropolis: propose ``s' = (s + 1 + floor(u0 (q - 1))) mod q`` (uniform over the other q - 1
    states; computed as ``(k0 * (q - 1)) >> 53``), accept when ``u1 < min(1, exp((n_s' - n_s) / T))``,
    ``n_t`` = neighbours in state ``t``; u0 is draw :data:`DRAW_MAIN`, u1 draw :data:`DRAW_ACCEPT`.
    Heat bath (Glauber): with ``m = max_t n_t``, ``w_t = exp(-(m - n_t) / T)`` and the running sums
    ``C_t = C_(t-1) + w_t`` in float64, in order t = 0..q-1, the new state is the number of
    ``t <= q - 2`` with ``C_t <= u * C_(q-1)`` (u = draw :data:`DRAW_MAIN`): state t with probability
    ``w_t / C_(q-1)``."""
    ops = lat.ops
    neighbours = ops.neighbours(states, lat.boundary, -1)
    generation = 2 * sweep + colour
    main = key_prefix(lat.seed, generation, DRAW_MAIN)
    for part in lat.parts[colour]:
        s = _quarter(states, part)
        around = [_quarter(a, part) for a in neighbours]
        k = ops.draw53(main, lat.grids, part)
        if dynamics == "metropolis":
            proposal = (s + 1 + ops.cast((k * (q - 1)) >> 53, "int16")) % q
            delta = _count(ops, around, proposal) - _count(ops, around, s)
            accept = ops.draw53(key_prefix(lat.seed, generation, DRAW_ACCEPT), lat.grids, part) < table[delta + 4]
            new = ops.where(accept, proposal, s)
        else:
            counts = [_count(ops, around, t) for t in range(q)]
            most = counts[0]
            for c in counts[1:]:
                most = ops.maximum(most, c)
            weights = [table[most - c] for c in counts]
            total = weights[0]
            for w in weights[1:]:
                total = total + w
            target = ops.cast(k, "float64") * (1.0 / params.ONE) * total
            running = weights[0]
            new = ops.cast(running <= target, "int16")
            for w in weights[1:-1]:
                running = running + w
                new = new + ops.cast(running <= target, "int16")
        states[..., part.r0::2, part.c0::2] = new
