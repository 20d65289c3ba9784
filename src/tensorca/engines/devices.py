"""Which device kinds an engine may use here, answered without importing a framework needlessly.

The registry's ``EngineInfo.devices`` callables are built from these: a CPU-only machine (no GPU
driver files) never imports torch just to learn that it has no CUDA device.
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache

from . import registry

#: Files a GPU driver creates (NVIDIA, and AMD's ROCm kernel driver).
_DRIVER_FILES = ("/dev/nvidiactl", "/dev/nvidia0", "/proc/driver/nvidia/version", "/dev/kfd")


@lru_cache(maxsize=1)
def _gpu_driver_present() -> bool:
    return any(os.path.exists(path) for path in _DRIVER_FILES)


def cuda_available() -> bool:
    """True when torch sees a CUDA device. Imports torch only where a GPU driver is present."""
    if "torch" not in sys.modules and not (_gpu_driver_present() and registry.installed("torch")):
        return False
    try:
        import torch

        return bool(torch.cuda.is_available())
    except Exception:  # pragma: no cover - broken CUDA installs
        return False


def cpu_and_cuda() -> tuple[str, ...]:
    """Devices of an engine that runs on the host and, where torch sees one, on a CUDA device."""
    return ("cpu", "cuda") if cuda_available() else ("cpu",)


def cuda_only() -> tuple[str, ...]:
    """Devices of a GPU-only engine: ``("cuda",)`` with a CUDA device, else none (a CPU
    interpreter, such as Triton's, is for tests and never a fast choice)."""
    return ("cuda",) if cuda_available() else ()
