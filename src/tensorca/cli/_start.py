"""What a run starts from, read from ``tensorca run``'s arguments the same way whichever engine runs
it (:mod:`.run` in memory, :mod:`.dask_run` chunked): the seed of a run from a file and a soup's
topology (``tensorca view`` too)."""

from __future__ import annotations

from ..errors import UsageError
from ..rules.base import Rule
from ..topology import Topology, parse_topology


def rule_seed(seed: int | None, rule: Rule) -> int:
    """The seed of a run from a file: ``--seed`` (refused for a deterministic rule, which draws nothing), else 0."""
    if seed is not None and not rule.compile().stochastic:
        raise UsageError(f"--seed applies to --soup or to a stochastic rule (B3/S23:pb=0.9,ps=0.99, DK:p1=0.6,p2=0.8, "
                         f"...); rule {rule.canonical()} draws nothing")
    return 0 if seed is None else seed


def soup_topology(topology: str, height: int, width: int) -> Topology:
    """A soup's topology: ``T``/``P`` (or ``torus``/``plane``) of its own size, else a Golly suffix."""
    name = topology.strip().lower()
    if name in ("t", "torus"):
        return Topology.torus(width, height)
    if name in ("p", "plane"):
        return Topology.plane(width, height)
    return parse_topology(topology)
