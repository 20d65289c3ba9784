"""Which engine runs, and on which device: a named engine checked against the rule, or auto's choice."""

from __future__ import annotations

from typing import Any

from .. import costmodel
from ..arrays import check_device
from ..engines import get_engine
from ..engines.base import Engine
from ..errors import EngineError
from ..rules.base import Rule
from ..topology import Topology

#: ``run``'s default backend: the engine the cost model predicts fastest.
DEFAULT_BACKEND = "auto"


def choose_engine(backend: str | Engine, rule: Rule, topology: Topology) -> Engine:
    """The named engine, checked to support ``rule`` on ``topology`` (never silently wrong)."""
    engine = backend if isinstance(backend, Engine) else get_engine(backend)
    check = topology if topology.bounded else Topology.plane(1, 1)  # unbounded runs on planes
    if not engine.supports(rule, check):
        raise EngineError(engine.why_unsupported(rule, check))
    return engine


def select_engine(backend: str | Engine, rule: Rule, topology: Topology, dims: tuple[int, int, int],
                  generations: int, *, data_device: str, device: str | None, calls: int,
                  population: int | None = None) -> tuple[Engine, str | None]:
    """The engine to run and the device to pass it (None: the data's own device).

    ``dims`` is ``(B, H, W)``: the batch and the grid (on the unbounded plane, the pattern's cells).
    ``device`` was checked by the caller (:func:`check_run_device`) before anything else happened.
    ``population``: live cells of a pattern on the unbounded plane (HashLife's cost depends on it).
    """
    if isinstance(backend, str) and backend == "auto":
        batch, shape = dims[0], (dims[1], dims[2])
        choice = costmodel.choose(rule, topology, batch, shape, generations, data_device=data_device,
                                  device=device, calls=calls, population=population)
        engine = choose_engine(choice.engine, rule, topology)
        if engine.array_module != "torch" or device is not None:
            return engine, device
        return engine, (None if choice.device == data_device.split(":")[0] else choice.device)
    return choose_engine(backend, rule, topology), device


def check_run_device(device: Any) -> str | None:
    """``device`` as a lower-case string (``"cuda:0"``), checked to exist here: a clear error before
    anything is allocated there, where "no engine on cuda" would hide the real reason."""
    if device is None:
        return None
    check_device(device)  # returns at once for the CPU
    return str(device).strip().lower()
