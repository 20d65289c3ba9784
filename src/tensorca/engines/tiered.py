"""``Tiered``: run on the engine that is ready while the fast one compiles; switch when it is done.

Like a JIT runtime's tiers. ``auto`` gives a run to a tiered engine when the engine it would pick
once warm has kernels not yet compiled on this machine (:mod:`tensorca.background` compiles them in
another process). The run advances on the ready engine in slices of about :data:`SLICE_S` seconds;
between slices (a safe point: whole generations done, the grid on the host) it asks whether the
compile has finished, and once it has, runs the remaining generations on the fast engine, which
loads its kernels from the on-disk cache. Every engine computes exactly what the NumPy reference
computes, so the cells are the same whichever engine ran which generations; :attr:`Tiered.ran`
records who did.
"""

from __future__ import annotations

from typing import Any

from ..arrays import to_engine, to_host
from ..background import Compile
from ..randomness import Clock
from ..rules.base import Rule
from ..topology import Topology
from .base import Engine, advance_engine

#: Seconds of the ready engine's work between two looks at the compile.
SLICE_S = 0.25


class Tiered(Engine):
    """``ready`` runs until ``compile`` has finished, then ``fast`` (both support the rule).

    ``seconds_per_generation``: the ready engine's predicted time per generation of this job, which
    sizes the slices. Takes and returns host (NumPy) arrays.
    """

    array_module = "numpy"

    def __init__(self, ready: Engine, fast: Engine, compile: Compile, seconds_per_generation: float,
                 ready_device: str | None = None):
        self.ready = ready
        self.fast = fast
        self.compile = compile
        self.name = ready.name
        self.ready_device = ready_device
        self.slice_generations = max(1, int(SLICE_S / max(seconds_per_generation, 1e-9)))
        #: ``(engine name, generations)`` in the order they ran.
        self.ran: list[tuple[str, int]] = []

    def devices(self) -> list[str]:
        return ["cpu"]

    def supports(self, rule: Rule, topology: Topology) -> bool:
        return self.ready.supports(rule, topology)

    def why_unsupported(self, rule: Rule, topology: Topology) -> str:
        return self.ready.why_unsupported(rule, topology)

    def cell_bytes(self, rule: Rule | None = None) -> float:
        return max(self.ready.cell_bytes(rule), self.fast.cell_bytes(rule))

    def switched(self) -> bool:
        """True once the fast engine has taken over."""
        return bool(self.ran) and self.ran[-1][0] == self.fast.name

    def _note(self, name: str, generations: int) -> None:
        if self.ran and self.ran[-1][0] == name:
            self.ran[-1] = (name, self.ran[-1][1] + generations)
        else:
            self.ran.append((name, generations))

    def advance(self, cells: Any, rule: Rule, topology: Topology, generations: int, *,
                clock: Clock | None = None) -> Any:
        """``generations`` of ``rule``: slices on the ready engine until the compile is done, the rest
        on the fast engine (a compile that failed leaves the whole run on the ready engine). A
        stochastic rule's ``clock`` moves on with each slice, so the draws are the same either way."""
        if generations == 0:
            return cells.copy()
        state, done = cells, 0
        while done < generations:
            if self.compile.ok:
                self.name = self.fast.name
                out = advance_engine(self.fast, state, rule, topology, generations - done, _later(clock, done))
                self._note(self.fast.name, generations - done)
                return out
            step = generations - done if self.compile.done() else min(self.slice_generations, generations - done)
            here = to_engine(state, self.ready.array_module, self.ready_device)
            state = to_host(advance_engine(self.ready, here, rule, topology, step, _later(clock, done)))
            self._note(self.ready.name, step)
            done += step
        return state


def _later(clock: Clock | None, generations: int) -> Clock | None:
    return None if clock is None else clock.later(generations)


__all__ = ["SLICE_S", "Tiered"]
