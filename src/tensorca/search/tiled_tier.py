"""The wide tiers of a CPU soup search kept as 64 lane tiles between chunks.

A soup that outgrows the 256-wide lane tier (:mod:`.lane_tier`) runs on a 512- or 1024-wide plane
of its own, which ``bitpack-cpu`` steps as 64 lane tiles (:func:`.bitpack_tiles.advance_tiled`).
Through the engine each chunk packed the plane, stepped it and unpacked it again, and then the
search scanned the bytes for the population and the guard band. Here the plane stays tiled from
chunk to chunk: the chunk runs the tiled kernels on it directly (:func:`.bitpack_tiles.step_tiles`),
the population and the guard band come from the packed words (:func:`.lane_kernels.scan_tiles`),
and the plane is unpacked only when the host needs its cells (a band to clear, a census to take).
The chunks, the scans and the tests are the generic tier's, so the census does not change.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..cpu_load import numba_threads, numba_threads_capped
from ..engines.bitpack.lanes_layout import TILES, use_tiles
from .lane_kernels import scan_tiles


def tiled_planes_fit(size: int) -> bool:
    """True when ``size``-wide planes can be held as 64 lane tiles (:func:`.lanes_layout.use_tiles`)."""
    return use_tiles((1, size, size))


class TiledPlanes:
    """``(size, size)`` bounded planes, each a ``(size / 8 + 2, size / 8 + 2)`` uint64 array of 64
    lane tiles, advanced by ``module`` (the rule's :func:`.bitpack_lanes.lanes_module`)."""

    def __init__(self, size: int, module: Any):
        if not tiled_planes_fit(size):
            raise ValueError(f"{size}-wide planes cannot be held as 64 lane tiles")
        from ..engines.bitpack import tiles as bitpack_tiles

        self.size = size
        self.module = module
        self._lanes = bitpack_tiles
        self.side = size // TILES  # lane rows and words of a tile
        self.planes: list[np.ndarray] = []
        self._spare = self._empty()  # the other buffer of each plane's ping-pong, shared

    def _empty(self) -> np.ndarray:
        return np.zeros((self.side + 2, self.side + 2), dtype=np.uint64)

    def _serial(self) -> Any:
        """A context for packing and unpacking one plane on this thread (a parallel region for a
        plane's 0.26 MB leaves the other core's worker spinning for nothing)."""
        return numba_threads(self._lanes.numba, 1)

    def __len__(self) -> int:
        return len(self.planes)

    def append(self, cells: np.ndarray) -> None:
        """Add a ``(size, size)`` plane of 0/1 cells."""
        lanes = self._empty()
        with self._serial():
            self._lanes.pack_grid(np.ascontiguousarray(cells, dtype=np.uint8), lanes)
        self.planes.append(lanes)

    def cells(self, b: int) -> np.ndarray:
        """Plane ``b`` as a new ``(size, size)`` uint8 array."""
        out = np.empty((self.size, self.size), dtype=np.uint8)
        with self._serial():
            self._lanes.unpack_grid(self.planes[b], out)
        return out

    def set(self, b: int, cells: np.ndarray) -> None:
        """Replace plane ``b`` with ``cells`` ``(size, size)``."""
        lanes = self.planes[b]
        lanes[:] = 0
        with self._serial():
            self._lanes.pack_grid(np.ascontiguousarray(cells, dtype=np.uint8), lanes)

    def keep(self, mask: np.ndarray) -> None:
        """Drop the planes whose ``mask`` entry is False."""
        self.planes = [plane for plane, kept in zip(self.planes, mask.tolist(), strict=True) if kept]

    def advance(self, generations: int) -> None:
        """Every plane ``generations`` later (bounded planes: cells off the plane stay dead)."""
        with numba_threads_capped(self._lanes.numba) as threads:
            plan = self._lanes.tile_plan(self.module, self.side, self.side, threads, generations)
            for b, lanes in enumerate(self.planes):
                self.planes[b], self._spare = self._lanes.step_tiles(self.module, lanes, self._spare, False,
                                                                     generations, plan)

    def scan(self, guard: int) -> tuple[np.ndarray, np.ndarray]:
        """``(pops, band)``: each plane's population ``(B,)`` int64 and whether a live cell lies
        within ``guard`` cells of its edge ``(B,)`` bool (as :func:`.band_kernels.scan_planes`)."""
        pops = np.zeros(len(self.planes), dtype=np.int64)
        band = np.zeros(len(self.planes), dtype=bool)
        for b, lanes in enumerate(self.planes):
            pops[b], band[b] = scan_tiles(lanes, guard)
        return pops, band


__all__ = ["TiledPlanes", "tiled_planes_fit"]
