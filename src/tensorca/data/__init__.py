"""Datasets of CA trajectories for PyTorch, reproducible for any number of workers.

- :class:`Trajectories`: map-style ``Dataset``; item ``i`` depends only on ``(seed, i)``.
- :class:`TrajectoryStream`: the same items as an endless ``IterableDataset``, sharded by worker.
- :class:`DeviceStream`: batches generated directly on a device (no workers, no host copies).

This folder also holds the built-in pattern library (``patterns/``, see :mod:`tensorca.data.catalog`):
:func:`library` lists it by name (``"gosper-glider-gun"``, ``"glider"``, ...), and :func:`pattern_path`
finds a bundled file by its file name.
The dataset classes import torch, so they load on first use: ``import tensorca.data`` alone does not
import torch.
"""

from __future__ import annotations

from importlib import import_module, resources
from typing import Any

from .catalog import PatternEntry, library

_LAZY = {
    "Trajectories": ".trajectories",
    "TrajectoryStream": ".trajectories",
    "DeviceStream": ".stream",
}

__all__ = ["DeviceStream", "PatternEntry", "Trajectories", "TrajectoryStream", "library", "pattern_path"]


def pattern_path(name: str) -> str:
    """Path of a bundled pattern file, e.g. ``pattern_path("gosper_gun.rle")``."""
    return str(resources.files("tensorca").joinpath("data", "patterns", name))


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
