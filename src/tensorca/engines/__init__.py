"""Simulation engines behind one small interface, registered by name with their facts.

Every engine fact lives in its :class:`EngineInfo` here (what it needs installed, where it runs,
what it costs, which step specs it may run, whether a rule's kernels are compiled): the cost
model behind ``auto``, ``bench``, ``verify`` and the soup search read them from the registry.

The built-in cost defaults were measured on a 2-core AMD EPYC (Zen 5) with NumPy 2.4, torch 2.13
CPU and Numba 0.68 (2026-11-30); the CUDA entries are estimates for a recent data-centre GPU
(H100/H200 class) until ``tensorca bench --calibrate`` runs there. See :mod:`tensorca.costmodel`
for what each parameter means. The factors of the cost classes that rule families bring with their own
kernels are in the families' declarations (:mod:`tensorca.families`): an engine's costs here are
those of B3/S23, and each family says how much more its rules cost on each engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..arrays import TORCH_INSTALL
from ..families import extra_kinds, register_step
from .base import Engine
from .bitpack.lanes_layout import runs_tiled, use_lanes
from .devices import cpu_and_cuda, cuda_available, cuda_only
from .info import EngineCost, EngineInfo
from .numpy_reference import NumpyEngine
from .registry import (
    available_engines,
    engine_info,
    engine_infos,
    engine_names,
    get_engine,
    register,
    register_lazy,
    unregister,
)
from .stochastic_steps import runs as stochastic_runs

if TYPE_CHECKING:  # pragma: no cover
    from ..rules.base import Rule
    from ..rules.stepspec import StepSpec
    from ..topology import Topology

#: The ``(perceive, update)`` kinds the NumPy reference and the torch engine run.
GENERAL_KINDS = frozenset({("index3x3", "table"), ("mask_count", "intervals"), ("weighted_count", "intervals")})


def runs_kinds(kinds: frozenset[tuple[str, str]], engine: str) -> Callable[[StepSpec, Topology], bool]:
    """A precheck passing the step specs whose ``spec.kinds`` are among ``kinds`` or registered for
    ``engine`` by a rule family (:func:`tensorca.families.register_step`)."""

    def precheck(spec: StepSpec, topology: Topology) -> bool:
        if spec.stochastic:  # the stochastic kinds, over a base rule the engine runs (stochastic_steps)
            return stochastic_runs(spec, lambda base: precheck(base, topology))
        return spec.kinds in kinds or spec.kinds in extra_kinds(engine)

    return precheck


def bitpack_precheck(spec: StepSpec, topology: Topology) -> bool:
    """Two-state outer-totalistic Moore rules on a plain torus or bounded plane (no framework import)."""
    from .bitpack import circuit as bitpack_circuit
    return bitpack_circuit.why_not_bitpack(spec, topology) is None


def bitpack_cpu_precheck(spec: StepSpec, topology: Topology) -> bool:
    """:func:`bitpack_precheck`, plus Generations rules over any 3x3 table and noisy two-state ones
    (``bitpack-cpu`` only)."""
    from .bitpack import circuit as bitpack_circuit
    from .stochastic_steps import why_not_bitpack_noisy

    if spec.stochastic:
        return why_not_bitpack_noisy(spec, topology) is None
    return bitpack_circuit.why_not_bitpack(spec, topology, generations=True) is None


def moore_bs_precheck(spec: StepSpec, topology: Topology) -> bool:
    """Two-state B/S rules on the Moore neighbourhood (dense-conv's class), plain torus or plane."""
    from .bitpack import circuit as bitpack_circuit
    return bitpack_circuit.why_not_moore_bs(spec, topology) is None


def bitpack_kernel_state(engine_name: str) -> Callable[[Rule], str]:
    """``rule -> "loaded" | "disk" | "cold" | "none"`` for a bit-packed engine's generated kernels."""

    def kernel_state(rule: Rule) -> str:
        from .bitpack import choice as bitpack_choice

        spec = rule.compile()
        if spec.stochastic and engine_name == "bitpack-cpu":  # a noisy rule: its base rule's row kernels
            from .stochastic_steps import noisy_kernel_state

            return noisy_kernel_state(spec)
        return bitpack_choice.kernel_state(rule, engine_name)

    return kernel_state


_FAST = "pip install 'tensorca[fast]'"
_GPU = "pip install 'tensorca[gpu]'"

# NumPy's cell_s: B3/S23 tori of 256^2 to 1024^2, 1 and 10 generations a call, measured 4.7-6.6 ns a
# cell-generation on the 2-core Xeon (2026-12-02); 2.5 ns before, which made auto keep runs on NumPy
# that bitpack-cpu does in a fifth of the time.
register(NumpyEngine(), EngineInfo(
    "numpy", preference=40, precheck=runs_kinds(GENERAL_KINDS, "numpy"),
    default_costs={"cpu": EngineCost(call_s=10e-6, gen_s=30e-6, cell_s=5e-9)},
))
# Engines that need an optional framework load on first use (see registry.register_lazy).
register_lazy(EngineInfo(
    "torch", "tensorca.engines.tensor.engine:TorchEngine", requires=("torch",), install=TORCH_INSTALL, imports="torch",
    preference=30, devices=cpu_and_cuda, precheck=runs_kinds(GENERAL_KINDS, "torch"),
    default_costs={
        "cpu": EngineCost(call_s=25e-6, gen_s=40e-6, cell_s=0.5e-9, import_s=0.9),
        # cell_s: the memory floor on an H200, the bytes a cell one eager generation moves
        # (benchmarks/torch_traffic.py: 47 B for B3/S23's count path) over its 4.3 TB/s copy
        # bandwidth; slower GPUs take longer (`tensorca bench --calibrate`).
        "cuda": EngineCost(call_s=40e-6, gen_s=60e-6, cell_s=11e-12, import_s=1.5, transfer_Bps=12e9),
    },
))
register_lazy(EngineInfo(
    "dense-conv", "tensorca.engines.tensor.dense_conv:DenseConvEngine", requires=("torch",), install=TORCH_INSTALL,
    imports="torch", preference=50, devices=cpu_and_cuda, precheck=moore_bs_precheck,
    default_costs={
        "cpu": EngineCost(call_s=40e-6, gen_s=25e-6, cell_s=25e-9, import_s=0.9),
        "cuda": EngineCost(call_s=100e-6, gen_s=80e-6, cell_s=20e-12, import_s=1.5, transfer_Bps=12e9),
    },
))
# bitpack-cpu compile_s: a first run (B36/S23, 64x64, empty TENSORCA_CACHE_DIR) minus the same call
# warm, Numba's import apart, in fresh processes on the 2-core EPYC (2026-12-01): 1.19, 1.16, 1.18 s
# with the machine nearly idle (load average 1.2; wall time = the process's CPU time), median 1.2 s.
# The same runs under load (load average 4.5-5.6) took 2.4-3.8 s of wall time for 1.2 s of CPU.
# Since the column kernels (bitpack_columns, which 64x64 runs): 3.5-4.0 s of CPU against 2.1 s for the row
# kernels in the same run (load average 0.9, 2026-12-01), so 1.2 s x 1.8 = 2.2 s.
# bitpack-cpu LANE_CELL_S: batches of small grids run one grid per bit lane (bitpack_lanes).
LANE_CELL_S = 8e-12
# bitpack-cpu TILE_CELL_S: one grid as 64 lane tiles with temporal blocking (bitpack_tiles.advance_tiled):
# B3/S23 torus soups end to end on 2 free cores, 2026-12-01 (bench_bitpack.py --big): 4096^2 90-104 G/s
# (11-10e-12 s a cell), 1024^2 61-64 G/s (16e-12); 1e-11 with call_cell_s's packing cost on top
# (the tiles pack at ~0.2e-9 a cell, less than call_cell_s says: the prediction errs high).
TILE_CELL_S = 10e-12
register_lazy(EngineInfo(
    "bitpack-cpu", "tensorca.engines.bitpack.cpu:BitpackCpuEngine", requires=("numba",), install=_FAST,
    imports="numba", preference=20, precheck=bitpack_cpu_precheck, kernel_state=bitpack_kernel_state("bitpack-cpu"),
    default_costs={"cpu": EngineCost(call_s=60e-6, call_cell_s=1.0e-9, gen_s=0.6e-6, cell_s=0.08e-9, row_s=30e-9,
                                     compile_s=2.2, load_s=0.12, import_s=0.12,
                                     lanes=use_lanes, lane_cell_s=LANE_CELL_S,
                                     tiles=runs_tiled, tile_cell_s=TILE_CELL_S)},
))
register_lazy(EngineInfo(
    "bitpack-gpu", "tensorca.engines.bitpack.gpu:BitpackGpuEngine", requires=("torch", "triton"), install=_GPU,
    imports="triton", preference=10, devices=cuda_only, precheck=bitpack_precheck,
    kernel_state=bitpack_kernel_state("bitpack-gpu"),
    default_costs={"cuda": EngineCost(call_s=60e-6, call_cell_s=5e-12, gen_s=6e-6, cell_s=0.1e-12, compile_s=3.0,
                                      import_s=2.0, transfer_Bps=12e9)},
))


def ltl_precheck(spec: StepSpec, topology: Topology) -> bool:
    """Mask counts with interval updates (Larger than Life, HROT) on any bounded topology (no Numba import)."""
    from .ltl.cpu import why_not_ltl

    return why_not_ltl(spec, topology) is None


def ltl_kernel_state(rule: Rule) -> str:
    """``"loaded" | "disk" | "cold" | "none"`` for ``ltl-cpu``'s Numba kernels (nothing imported to ask)."""
    from .ltl.cpu import kernel_state

    return kernel_state(rule)


# ltl-cpu, measured on the 2-core EPYC (2026-12-01, other jobs running: load average 2-5): 1024^2
# torus, 40% soup, R5 Moore (the ltl family's scale 1) 2.2-2.8 G/s per core (CPU time), vN R7 1.7-2.4;
# per call ~80 us plus padding/unpadding ~0.3 ns/cell; 1-2 us per generation on one thread, ~10 us
# with the barrier of two; rows of 64 cells cost ~200 ns each beyond their cells (short vector
# loops), hence row_s. Cold compile 6.8 s of CPU for the first rule, 2.5-3.5 s for each other
# (kernel, count dtype); loading them from Numba's cache ~0.5 s.
register_lazy(EngineInfo(
    "ltl-cpu", "tensorca.engines.ltl.cpu:LtlCpuEngine", requires=("numba",), install=_FAST, imports="numba",
    preference=25, precheck=ltl_precheck, kernel_state=ltl_kernel_state,
    default_costs={"cpu": EngineCost(call_s=80e-6, call_cell_s=0.3e-9, gen_s=10e-6, cell_s=0.25e-9, row_s=100e-9,
                                     compile_s=7.0, load_s=0.5, import_s=0.12)},
))


def dask_precheck(spec: StepSpec, topology: Topology) -> bool:
    """A plain torus or bounded plane (what Dask's array boundaries express) and discrete states."""
    return topology.kind in ("torus", "plane") and not (topology.shift_x or topology.shift_y) and bool(
        spec.state_space.discrete)


# The dask engine wraps the others (one chunk each, halos exchanged every k generations). auto never
# picks it (auto=False): a grid in memory runs faster on its own engine; it runs when named, and for a
# dask array (lazy, larger than memory). call_s + call_cell_s * padded cells is one chunk's exchange
# (tasks, halo slices, concatenation, trim) beyond its inner engine's call, on Dask's threads ("cpu")
# and on a LocalCluster of processes ("cluster"): 100 generations of 4096^2 Life chunked by 1024 with
# k = 1 on the 2-core EPYC took 9.6 s and 32.9-37.1 s, i.e. 12 ms and ~42 ms of work per exchange of a
# 1024^2 chunk (load 1.3-2.3 and 2.3-4.7; docs/dask.md).
register_lazy(EngineInfo(
    "dask", "tensorca.engines.dask_engine:DaskEngine", requires=("dask",),
    install="pip install 'tensorca[dask]'", imports="dask", auto=False, preference=90, precheck=dask_precheck,
    default_costs={"cpu": EngineCost(call_s=0.5e-3, call_cell_s=10e-9, gen_s=0.0, cell_s=0.0),
                   "cluster": EngineCost(call_s=5e-3, call_cell_s=35e-9, gen_s=0.0, cell_s=0.0)},
))


def margolus_precheck(spec: StepSpec, topology: Topology) -> bool:
    """Rule trees that emulate a Margolus block rule (Golly's ``*Margolus*emulated`` files)."""
    from ..margolus.emulated import precheck  # beside the recogniser: the engine imports this package

    return precheck(spec, topology)


# margolus (issue 40): Golly's emulated Margolus rule files decoded and run on the native block kernel
# (tensorca.margolus.fast; the NumPy block reference without Numba). cell_s: HPP_large (200^2 torus)
# and TMGas_largeWithHole (432x370 plane), 2,000 generations on the 2-core EPYC: see docs/guide/margolus.md.
register_lazy(EngineInfo(
    "margolus", "tensorca.margolus.engine:MargolusEngine", preference=15, precheck=margolus_precheck,
    default_costs={"cpu": EngineCost(call_s=200e-6, call_cell_s=20e-9, gen_s=20e-6, cell_s=1.5e-9, compile_s=1.5)},
))
# HashLife (issue 12): native on the unbounded plane; facts and costs in hashlife_info.
from .hashlife_info import HASHLIFE  # noqa: E402

register_lazy(HASHLIFE)

__all__ = [
    "Engine",
    "EngineCost",
    "EngineInfo",
    "NumpyEngine",
    "available_engines",
    "cuda_available",
    "engine_info",
    "engine_infos",
    "engine_names",
    "get_engine",
    "register",
    "register_lazy",
    "register_step",
    "unregister",
]
