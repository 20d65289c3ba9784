"""The engine interface: what every simulation algorithm provides, in the spirit of Golly's lifealgo.

An engine advances a batch of bounded grids by ``n`` generations. It never sees files, origins or
the unbounded plane (the simulator handles those); it sees a ``(B, H, W)`` array of states, a rule
value and a bounded topology value, and must compute exactly what the NumPy reference computes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from ..rules.base import Rule
from ..topology import Topology


class Engine(ABC):
    """One simulation algorithm, registered under ``name``."""

    #: Registry name, e.g. ``"numpy"``.
    name: str = "abstract"
    #: The array type ``advance`` takes and returns: ``"numpy"`` arrays or ``"torch"`` tensors.
    array_module: str = "numpy"

    def devices(self) -> list[str]:
        """Devices this engine can run on here (``["cpu"]``, ``["cpu", "cuda"]``, or ``[]``)."""
        return ["cpu"]

    @abstractmethod
    def supports(self, rule: Rule, topology: Topology) -> bool:
        """True exactly when this engine computes ``rule`` on ``topology`` correctly."""

    def why_unsupported(self, rule: Rule, topology: Topology) -> str:
        """A one-line reason for ``supports(...) == False`` (for error messages)."""
        return f"engine {self.name!r} does not support rule {rule.canonical()!r} on {topology}"

    @abstractmethod
    def advance(self, cells: Any, rule: Rule, topology: Topology, generations: int) -> Any:
        """Advance ``cells`` (``(B, H, W)`` ``uint8`` in the engine's array type) by ``generations``.

        For torch engines ``cells`` is a tensor already on the device to run on.

        ``topology`` is bounded (torus or plane) with ``topology.shape == cells.shape[1:]``.
        Returns a new array of the same shape and dtype; the input is not modified.
        """
