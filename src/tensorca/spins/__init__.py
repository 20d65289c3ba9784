"""Spin models on a checkerboard: Ising and q-state Potts, Metropolis and Glauber (heat-bath) dynamics.

``ising(shape_or_spins, T, sweeps, seed=...)`` and ``potts(shape_or_states, q, T, sweeps, ...)`` run
sweeps on NumPy (the reference) or torch (any device), with the same cells on each, because every
random draw is :mod:`tensorca.randomness`'s function of ``(seed, generation = 2 * sweep + colour,
draw, grid, y, x)``. Observers: :func:`magnetisation`, :func:`energy` (Ising), :func:`potts_order`,
:func:`potts_energy`, and per-sweep series with ``series=True``. :mod:`.exact` holds Onsager's and
Yang's results. Layout: :mod:`.params` (checks, probability tables), :mod:`.ops` (NumPy and torch
operations), :mod:`.sweep` (one half-sweep, written once), :mod:`.observe`, :mod:`.run`.
"""

from .exact import ISING_TC, ising_energy, ising_magnetisation, potts_tc
from .observe import energy, magnetisation, potts_energy, potts_order
from .run import INIT_DRAW, SpinSeries, ising, potts
from .sweep import DRAW_ACCEPT, DRAW_MAIN

__all__ = ["DRAW_ACCEPT", "DRAW_MAIN", "INIT_DRAW", "ISING_TC", "SpinSeries", "energy", "ising", "ising_energy",
           "ising_magnetisation", "magnetisation", "potts", "potts_energy", "potts_order", "potts_tc"]
