"""The ``margolus`` engine: Golly's emulated Margolus rule files, run on the native block engine.

``tensorca.run`` of a pattern whose rule is a Golly ``*Margolus*emulated`` rule file (``rule =
HPPMargolus_emulated:T200,200``) reaches this engine through ``auto``: its precheck recognises
the rule tree (:func:`tensorca.margolus.emulated.recognise`), and each grid is decoded into native
block cells and phase, run by the fast block kernel (:mod:`tensorca.margolus.fast`, or the NumPy
reference without Numba) and encoded back, giving Golly's cells.

A grid whose background bits are not one block lattice, or that holds a one-cell-wide strip of
grid where the emulation breaks its own lattice (:func:`~tensorca.margolus.emulated.safe_geometry`),
or an odd torus, is computed by the NumPy rule-table reference instead: what Golly computes, only
slower. So the engine is exact on every grid, as the engine contract asks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engines.base import Engine
from ..errors import EngineError
from ..rules.base import Rule
from ..topology import Topology
from .emulated import decode, encode, precheck, recognise, safe_geometry
from .emulated import plain_topology as _topology_ok
from .rules import BlockRule
from .simulate import next_phase, run

__all__ = ["MargolusEngine", "precheck"]


class MargolusEngine(Engine):
    """Emulated Margolus rules (Golly's ``*Margolus*emulated`` files) on the native block kernels."""

    name = "margolus"
    array_module = "numpy"
    bytes_per_cell = 6.0

    def supports(self, rule: Rule, topology: Topology) -> bool:
        return _topology_ok(topology) and recognise(rule) is not None

    def why_unsupported(self, rule: Rule, topology: Topology) -> str:
        if not _topology_ok(topology):
            return f"engine 'margolus' runs a plain torus or bounded plane, not {topology}"
        return (f"engine 'margolus' runs Golly's emulated Margolus rules only; rule {rule.canonical()!r} is not "
                "a Margolus emulation")

    def advance(self, cells: Any, rule: Rule, topology: Topology, generations: int) -> Any:
        """``(B, H, W)`` uint8 Golly states advanced ``generations`` steps (module docstring)."""
        if not self.supports(rule, topology):
            raise EngineError(self.why_unsupported(rule, topology))
        native = recognise(rule)
        assert native is not None  # supports() said so
        grids = np.asarray(cells)
        out = grids.copy()
        torus = topology.kind == "torus"
        odd = torus and (grids.shape[1] % 2 or grids.shape[2] % 2)
        others = []
        for b in range(grids.shape[0]):
            found = None if odd else decode(grids[b])
            if found is None or not safe_geometry(found[1], torus):
                others.append(b)
                continue
            out[b] = _run_decoded(*found, native, generations, torus)
        if others and generations:
            from ..engines.registry import get_engine

            out[others] = get_engine("numpy").advance(grids[others], rule, topology, generations)
        return out


def _run_decoded(states: np.ndarray, present: np.ndarray, phase: tuple[int, int], rule: BlockRule,
                 generations: int, torus: bool) -> np.ndarray:
    """The emulated ``(H, W)`` grid after ``generations`` steps of native ``states`` / ``present`` /
    ``phase``. On a plane only the box of present cells runs (outside it every cell is absent, which
    is what the plane's edge means too): the unbounded plane's margins cost nothing."""
    out = np.zeros(states.shape, dtype=np.uint8)
    if torus:
        box = (slice(None), slice(None))
    else:
        rows, cols = np.flatnonzero(present.any(axis=1)), np.flatnonzero(present.any(axis=0))
        if not rows.size:
            return out
        box = (slice(rows[0], rows[-1] + 1), slice(cols[0], cols[-1] + 1))
    y0, x0 = box[0].start or 0, box[1].start or 0
    inner = present[box]
    mask = None if inner.all() else inner
    start = ((phase[0] - y0) % 2, (phase[1] - x0) % 2)
    new = run(states[box], rule, generations, phase=start, topology="torus" if torus else "plane", present=mask)
    out[box] = encode(new, mask, next_phase(start, generations))
    return out
