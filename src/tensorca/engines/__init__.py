"""Simulation engines behind one small interface, registered by name."""

from .base import Engine
from .numpy_reference import NumpyEngine
from .registry import available_engines, engine_names, get_engine, register, register_lazy

register(NumpyEngine())
# Engines that need an optional framework load on first use (see registry.register_lazy).
register_lazy("torch", "tensorca.engines.torch_engine:TorchEngine", "PyTorch (pip install torch)")
register_lazy("dense-conv", "tensorca.engines.dense_conv:DenseConvEngine", "PyTorch (pip install torch)")
register_lazy("bitpack-cpu", "tensorca.engines.bitpack_cpu:BitpackCpuEngine", "Numba (pip install numba)")
register_lazy("bitpack-gpu", "tensorca.engines.bitpack_gpu:BitpackGpuEngine", "Triton and PyTorch (pip install triton torch)")

__all__ = ["Engine", "NumpyEngine", "available_engines", "engine_names", "get_engine", "register", "register_lazy"]
