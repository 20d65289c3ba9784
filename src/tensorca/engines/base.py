"""The engine interface: what every simulation algorithm provides, in the spirit of Golly's lifealgo.

An engine advances a batch of bounded grids by ``n`` generations. It never sees files, origins or
the unbounded plane (the simulator handles those); it sees a ``(B, H, W)`` array of states, a rule
value and a bounded topology value, and must compute exactly what the NumPy reference computes.

Engines decide what they run from the rule's step spec (``rule.compile()``: its perceive and
update kinds, ``n_states``, ``reach``), never from the rule's class: ``supports`` is False for
kinds an engine does not know and ``advance`` raises :class:`~tensorca.errors.EngineError` for them.
How an engine is found, what it needs installed and what it costs are registry facts
(:mod:`tensorca.engines.registry`), not engine attributes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

from ..rules.base import Rule
from ..topology import Topology

if TYPE_CHECKING:  # pragma: no cover
    from ..randomness import Clock


class Engine(ABC):
    """One simulation algorithm, registered under ``name``."""

    #: Registry name, e.g. ``"numpy"``.
    name: str = "abstract"
    #: The array type ``advance`` takes and returns: ``"numpy"`` arrays or ``"torch"`` tensors.
    array_module: str = "numpy"

    #: Working memory per cell per grid (input, temporaries, output) in bytes, for memory planning.
    bytes_per_cell: float = 8.0

    def bytes_needed(self, batch: int, shape: tuple[int, int], rule: Rule | None = None) -> int:
        """Bytes this engine needs to advance a ``(batch, H, W)`` grid (``shape = (H, W)``).

        An estimate of the peak working set (the input as the engine holds it, temporaries of
        one generation, the output), used by ``run`` to split batches that do not fit.
        """
        height, width = shape
        per_cell = self.cell_bytes(rule)
        return int(batch * height * width * per_cell) + 4096

    def cell_bytes(self, rule: Rule | None = None) -> float:
        """Bytes per cell of :meth:`bytes_needed` for ``rule`` (engines refine by the rule's step spec)."""
        return float(self.bytes_per_cell)

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
        """Advance ``cells`` by ``generations`` (>= 0) generations of ``rule`` on ``topology``.

        ``cells``: ``(B, H, W)`` ``uint8`` states in the engine's :attr:`array_module` (NumPy
        arrays, or torch tensors already on the device to run on). ``topology`` is bounded (any
        kind the engine supports) with ``topology.shape == (H, W)``. Returns a new array of the
        same shape, dtype and device, even for 0 generations (a copy); the input is never
        modified. Raises :class:`~tensorca.errors.EngineError` when ``supports(rule, topology)``
        is False (an unknown step-spec kind, or a topology the engine cannot pad).

        An engine that runs stochastic step specs (``spec.stochastic``, :mod:`tensorca.families.stochastic.rule`)
        also takes a keyword ``clock`` (a :class:`~tensorca.randomness.Clock`: seed, the absolute
        generation of ``cells``, the batch's first grid index, origin; None: seed 0, generation 0);
        callers pass it only for such rules (:func:`advance_engine`), so other engines need not.
        """


def advance_engine(engine: Engine, cells: Any, rule: Rule, topology: Topology, generations: int,
                   clock: Clock | None = None) -> Any:
    """``engine.advance(...)``, with ``clock=`` when ``rule`` is stochastic and a clock is given (an
    engine that runs no stochastic rule never sees the keyword)."""
    if clock is not None and rule.compile().stochastic:
        return engine.advance(cells, rule, topology, generations, clock=clock)
    return engine.advance(cells, rule, topology, generations)
