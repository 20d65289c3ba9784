"""Simulation engines behind one small interface, registered by name with their facts."""

from .base import Engine
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

register(NumpyEngine(), EngineInfo("numpy", preference=40))
# Engines that need an optional framework load on first use (see registry.register_lazy).
register_lazy(EngineInfo("torch", "tensorca.engines.torch_engine:TorchEngine", requires=("torch",),
                         install="pip install 'tensorca[torch]'", imports="torch", preference=30))
register_lazy(EngineInfo("dense-conv", "tensorca.engines.dense_conv:DenseConvEngine", requires=("torch",),
                         install="pip install 'tensorca[torch]'", imports="torch", preference=50))
register_lazy(EngineInfo("bitpack-cpu", "tensorca.engines.bitpack_cpu:BitpackCpuEngine", requires=("numba",),
                         install="pip install 'tensorca[fast]'", imports="numba", preference=20))
register_lazy(EngineInfo("bitpack-gpu", "tensorca.engines.bitpack_gpu:BitpackGpuEngine", requires=("torch", "triton"),
                         install="pip install 'tensorca[gpu]'", imports="triton", preference=10))

__all__ = [
    "Engine",
    "EngineCost",
    "EngineInfo",
    "NumpyEngine",
    "available_engines",
    "engine_info",
    "engine_infos",
    "engine_names",
    "get_engine",
    "register",
    "register_lazy",
    "unregister",
]
