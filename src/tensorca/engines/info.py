"""Engine facts, as Golly's ``staticAlgoInfo``: what an engine needs, where it runs, what it
costs, what it can run, all answerable without importing the engine or its framework.

The registry (:mod:`tensorca.engines.registry`) holds one :class:`EngineInfo` per engine; the cost
model (``auto``), ``bench``, ``verify`` and the soup search read it, so adding an engine is one
``register_lazy(EngineInfo(...))`` call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..rules.base import Rule
    from ..rules.stepspec import StepSpec
    from ..topology import Topology


@dataclasses.dataclass(frozen=True)
class EngineCost:
    """Cost parameters of one engine on one device kind (seconds, bytes/s); see :mod:`tensorca.costmodel`."""

    call_s: float = 20e-6
    call_cell_s: float = 0.0
    gen_s: float = 30e-6
    cell_s: float = 2.5e-9
    row_s: float = 0.0  # per grid row per generation (bit-packed kernels: row setup, edge words)
    # Two-state batches the engine runs one grid per bit lane (``(B, H, W) -> bool``, None: never): no row
    # cost, ``lane_cell_s`` per cell and generation, the batch rounded up to whole words of grids.
    lanes: Callable[[tuple[int, int, int]], bool] | None = None
    lane_width: int = 64
    lane_cell_s: float = 0.0
    # Two-state grids the engine runs each as 64 tiles, one per bit lane (``(B, H, W) -> bool``, None:
    # never): no row cost, ``tile_cell_s`` per cell and generation.
    tiles: Callable[[tuple[int, int, int]], bool] | None = None
    tile_cell_s: float = 0.0
    compile_s: float = 0.0
    load_s: float = 0.0  # kernels compiled before (disk cache) but not yet loaded in this process
    import_s: float = 0.0
    # Engines that run the unbounded plane as a quadtree (``EngineInfo.unbounded_native``): seconds
    # per node result the run is estimated to compute (see ``costmodel.tree_work``).
    node_s: float = 0.0
    transfer_Bps: float = 0.0  # 0: the engine runs on the host
    family_gen: dict = dataclasses.field(default_factory=dict)
    family_cell: dict = dataclasses.field(default_factory=dict)


def cpu_only() -> tuple[str, ...]:
    """Devices of an engine that runs on the host."""
    return ("cpu",)


@dataclasses.dataclass(frozen=True)
class EngineInfo:
    """Everything tensorca knows about an engine before loading it.

    - ``name``: the registry name (``backend=`` value).
    - ``target``: ``"package.module:Class"``, imported on first :func:`get_engine`; or None for an
      engine registered as an instance.
    - ``requires``: importable module names the engine needs (checked with ``find_spec``).
    - ``install``: the command that installs them (``"pip install 'tensorca[fast]'"``).
    - ``devices``: device kinds (``"cpu"``, ``"cuda"``) ``auto`` may use here, answered cheaply
      (no framework import on a machine without a GPU driver).
    - ``precheck``: ``(spec, topology) -> bool``, a cheap pre-filter on the rule's step spec and a
      bounded topology, before the engine is loaded; its own ``supports`` decides at the end.
      None: every spec passes the pre-filter.
    - ``default_costs``: device kind -> :class:`EngineCost`, the cost model's built-in values.
    - ``kernel_state``: ``(rule) -> "loaded" | "disk" | "cold" | "none"``, whether the rule's
      compiled kernels exist (None: the engine compiles nothing).
    - ``imports``: the module whose presence in ``sys.modules`` means the import cost is paid.
    - ``auto``: ``auto`` and the soup search may pick it; ``preference``: lower wins ties.
    - ``unbounded_native``: the engine runs the unbounded plane itself (HashLife's quadtree):
      the simulator hands it whole patterns, never growing arrays, and ``auto`` prices it with
      ``node_s`` (``costmodel.tree_work``) and considers it on the unbounded plane only. Its
      ``advance`` on bounded grids is still exact (the engine contract), only not fast.
    """

    name: str
    target: str | None = None
    requires: tuple[str, ...] = ()
    install: str = ""
    devices: Callable[[], tuple[str, ...]] = cpu_only
    precheck: Callable[[StepSpec, Topology], bool] | None = None
    default_costs: Mapping[str, EngineCost] = dataclasses.field(default_factory=dict)
    kernel_state: Callable[[Rule], str] | None = None
    imports: str | None = None
    auto: bool = True
    preference: int = 50
    unbounded_native: bool = False
