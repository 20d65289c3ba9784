"""Which engine runs, and on which device: a named engine checked against the rule, or auto's choice.

Under ``auto``, when the engine that would be fastest once warm has kernels not yet compiled on
this machine, their compile starts in the background (:mod:`tensorca.background`) and a run long
enough to gain from it goes to a :class:`~tensorca.engines.tiered.Tiered` engine: the ready engine
until the compile is done, the fast one after.
"""

from __future__ import annotations

from typing import Any

from .. import background, costmodel
from ..arrays import check_device
from ..engines import get_engine
from ..engines.base import Engine
from ..engines.tiered import Tiered
from ..errors import EngineError, TensorcaError
from ..rules.base import Rule
from ..rules.spec import parse_rule
from ..topology import Topology
from ..warm_jobs import WarmJob

#: ``run``'s default backend: the engine the cost model predicts fastest.
DEFAULT_BACKEND = "auto"
#: A run predicted shorter than this on the ready engine is not cut into slices to switch engines
#: mid-run; the background compile it started still serves the runs after it.
TIER_MIN_S = 1.0
#: Cells a background compile's warm-up grid may hold (a batch is cut to fit; its kernels are the same).
WARM_CELLS = 1 << 22


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
        return engine_for(choice, rule, topology, dims, generations, data_device=data_device, device=device)
    return choose_engine(backend, rule, topology), device


def engine_for(choice: costmodel.Choice, rule: Rule, topology: Topology, dims: tuple[int, int, int],
               generations: int, *, data_device: str, device: str | None) -> tuple[Engine, str | None]:
    """The engine (and device to pass it) that runs ``choice``: its engine, or a :class:`Tiered`
    one when a background compile of a faster engine has started (see the module docstring)."""
    engine = choose_engine(choice.engine, rule, topology)
    tiered = _tiered(choice, engine, rule, topology, dims, generations, data_device, device)
    if tiered is not None:
        return tiered, None
    if engine.array_module != "torch" or device is not None:
        return engine, device
    return engine, (None if choice.device == data_device.split(":")[0] else choice.device)


def _tiered(choice: costmodel.Choice, engine: Engine, rule: Rule, topology: Topology, dims: tuple[int, int, int],
            generations: int, data_device: str, device: str | None) -> Tiered | None:
    """Start compiling the engine that would win once warm (when one would), and return the tiered
    engine for a run long enough to switch to it mid-way; None to run ``engine`` as it is."""
    on_cpu = data_device.split(":")[0] == "cpu" and device in (None, "cpu") and choice.device == "cpu"
    if not background.enabled() or not on_cpu or topology.kind not in ("torus", "plane") or generations < 2:
        return None
    fast = costmodel.warm_alternative(choice, rule, topology)
    job = None if fast is None else warm_job(fast.engine, rule, topology, dims, generations)
    compiling = None if job is None else background.start(job)
    chosen = next(p for p in choice.predictions if (p.engine, p.device) == (choice.engine, choice.device))
    if compiling is None or fast is None or chosen.total < TIER_MIN_S:
        return None
    return Tiered(engine, get_engine(fast.engine), compiling, chosen.total / generations,
                  ready_device="cpu" if engine.array_module == "torch" else None)


def warm_job(engine: str, rule: Rule, topology: Topology, dims: tuple[int, int, int],
             generations: int) -> WarmJob | None:
    """The warm-up run that compiles what ``engine`` will call for this job: the same rule,
    topology kind and grid (a batch cut to :data:`WARM_CELLS` cells), a few generations. None when
    the rule cannot travel to another process as text (its canonical string parses differently)."""
    text = rule.canonical()
    try:
        if not text or parse_rule(text).canonical() != text:
            return None
    except TensorcaError:
        return None
    batch, height, width = dims
    batch = max(1, min(batch, WARM_CELLS // max(1, height * width)))
    return WarmJob("engine", text, engine, (batch, height, width), topology.kind, min(generations, 64))


def check_run_device(device: Any) -> str | None:
    """``device`` as a lower-case string (``"cuda:0"``), checked to exist here: a clear error before
    anything is allocated there, where "no engine on cuda" would hide the real reason."""
    if device is None:
        return None
    check_device(device)  # returns at once for the CPU
    return str(device).strip().lower()
