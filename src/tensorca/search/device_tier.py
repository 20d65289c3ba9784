"""A soup search's tiers kept on the engine's device between chunks (``bitpack-gpu``, ``torch`` on
CUDA).

Through :meth:`.soups._Search.advance` each chunk copied a tier's planes to the device and back:
for 1024 planes of 128^2 that is 16.8 MB each way per 20 generations, far more time on the bus
than the generations take on a GPU. Here the planes stay a ``(B, size, size)`` ``uint8`` tensor on
the device; a chunk runs the engine on it directly, the population and the guard band are reduced
there (two numbers a plane cross the bus), and a plane comes to the host only when the host needs
its cells (a band to clear, a census to take). New soups are staged on the host and cross in one
copy at the next chunk. The chunks, the scans and the tests are the generic tier's, so the census
does not change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def runs_on_device(engine: Any, device: str) -> bool:
    """True when ``engine`` takes torch tensors and ``device`` is not the host's (CUDA, say): then
    a tier's planes stay on the device between chunks (:class:`DevicePlanes`)."""
    return getattr(engine, "array_module", "numpy") == "torch" and str(device).split(":")[0] != "cpu"


class DevicePlanes:
    """``(size, size)`` bounded planes held on ``device`` as one ``(B, size, size)`` ``uint8`` torch
    tensor, advanced by ``step(planes, generations) -> planes`` (the engine on the bounded plane)."""

    def __init__(self, size: int, step: Callable[[Any, int], Any], device: str):
        import torch

        self._torch = torch
        self.size = size
        self.step = step
        self.device = torch.device(device)
        self._planes = torch.zeros((0, size, size), dtype=torch.uint8, device=self.device)
        self._staged: list[np.ndarray] = []

    def _flushed(self) -> Any:
        """The planes tensor with every staged plane appended (one host-to-device copy)."""
        if self._staged:
            block = self._torch.from_numpy(np.stack(self._staged)).to(self.device)
            self._planes = self._torch.cat([self._planes, block]) if len(self._planes) else block
            self._staged = []
        return self._planes

    def __len__(self) -> int:
        return len(self._planes) + len(self._staged)

    def append(self, cells: np.ndarray) -> None:
        """Add a ``(size, size)`` plane of 0/1 cells (copied to the device with the next chunk)."""
        self._staged.append(np.ascontiguousarray(cells, dtype=np.uint8))

    def cells(self, b: int) -> np.ndarray:
        """Plane ``b`` as a new ``(size, size)`` uint8 host array (never a view of the tensor)."""
        return self._flushed()[b].cpu().numpy().astype(np.uint8, copy=True)

    def set(self, b: int, cells: np.ndarray) -> None:
        """Replace plane ``b`` with ``cells`` ``(size, size)``."""
        self._flushed()[b] = self._torch.from_numpy(np.ascontiguousarray(cells, dtype=np.uint8)).to(self.device)

    def keep(self, mask: np.ndarray) -> None:
        """Drop the planes whose ``mask`` entry is False."""
        planes = self._flushed()
        self._planes = planes[self._torch.from_numpy(np.asarray(mask, dtype=bool)).to(self.device)]

    def advance(self, generations: int) -> None:
        """Every plane ``generations`` later, on the device."""
        planes = self._flushed()
        if len(planes):
            self._planes = self.step(planes, generations)

    def scan(self, guard: int) -> tuple[np.ndarray, np.ndarray]:
        """``(pops, band)``: each plane's population ``(B,)`` int64 and whether a live cell lies
        within ``guard`` cells of its edge ``(B,)`` bool (as :func:`.band_kernels.scan_planes`),
        reduced on the device: one ``(2, B)`` copy to the host."""
        planes = self._flushed()
        torch = self._torch
        pops = planes.sum(dim=(1, 2), dtype=torch.int64)
        edge = (planes[:, :guard].amax(dim=(1, 2)) | planes[:, -guard:].amax(dim=(1, 2))
                | planes[:, :, :guard].amax(dim=(1, 2)) | planes[:, :, -guard:].amax(dim=(1, 2)))
        both = torch.stack([pops, edge.to(torch.int64)]).cpu().numpy()
        return both[0].copy(), both[1] != 0


__all__ = ["DevicePlanes", "runs_on_device"]
