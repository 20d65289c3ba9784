"""The torch backend: the reference's waves and descent rounds as tensor operations, on any device.

The same arithmetic as :mod:`.reference` (so the same piles and counts), written so that a GPU is
not stalled by the host: a wave with nothing unstable changes nothing, so waves run in chunks of
:data:`CHECK_EVERY` and the host reads one flag per chunk (stable yet? a closed torus fully toppled?)
instead of one per wave.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .layout import Layout
from .model import topples_forever

#: Waves (or pruning passes of a descent round) between two reads of the stop flag by the host.
CHECK_EVERY = 16


def _index(layout: Layout, device: Any) -> tuple[Any, Any, Any]:
    import torch

    index, target = layout.halo
    keep = target >= 0
    # copies: the layout's cached arrays are read-only, which torch.from_numpy refuses to share
    return (torch.from_numpy(index.copy()).to(device), torch.from_numpy(target[keep]).to(device),
            torch.from_numpy(np.flatnonzero(keep)).to(device))


def _fold_halo(padded: Any, layout: Layout, index: Any, target: Any, keep: Any) -> None:
    flat = padded.view(padded.shape[0], -1)
    grains = flat[:, index]
    flat[:, index] = 0
    flat.index_add_(1, target, grains[:, keep])


def _neighbour_sum(values: Any, layout: Layout) -> Any:
    """As :func:`.reference._neighbour_sum`, for a ``(B, H, W)`` int64 tensor."""
    import torch

    batch, height, width = values.shape
    padded = torch.zeros((batch, height + 2, width + 2), dtype=torch.int64, device=values.device)
    padded[:, 1:-1, 1:-1] = values
    index, target = layout.halo
    flat = padded.view(batch, -1)
    source = torch.as_tensor(np.maximum(target, 0), device=values.device)
    live = torch.as_tensor(target >= 0, device=values.device)
    flat[:, torch.from_numpy(index.copy()).to(values.device)] = torch.where(live, flat[:, source], 0)
    total = torch.zeros_like(values)
    for dy, dx in layout.stencil:
        total += padded[:, 1 + dy:1 + dy + height, 1 + dx:1 + dx + width]
    return total


def laplacian(counts: Any, layout: Layout) -> Any:
    """The change in heights when each cell topples ``counts`` times: ``(B, H, W)`` int64 tensor."""
    return _neighbour_sum(counts, layout) - layout.threshold * counts


def ascend(padded: Any, counts: Any, layout: Layout) -> int:
    """As :func:`.reference.ascend`; returns the waves run, a multiple of :data:`CHECK_EVERY`."""
    import torch

    height, width, threshold = layout.height, layout.width, layout.threshold
    index, target, keep = _index(layout, padded.device)
    inner = padded[:, 1:-1, 1:-1]
    waves = 0
    while True:
        for _ in range(CHECK_EVERY):
            topples = torch.div(inner.clamp(min=0), threshold, rounding_mode="floor")
            inner -= threshold * topples
            for dy, dx in layout.stencil:
                padded[:, 1 + dy:1 + dy + height, 1 + dx:1 + dx + width] += topples
            counts += topples
            _fold_halo(padded, layout, index, target, keep)
        waves += CHECK_EVERY
        unstable = (inner >= threshold).flatten(1).any(1)
        everywhere = (counts > 0).flatten(1).all(1) if layout.closed else torch.zeros_like(unstable)
        flags = torch.stack([unstable.any(), everywhere.any()]).tolist()  # the one host read per chunk
        if flags[1]:
            item = int(torch.nonzero(everywhere)[0, 0])
            raise topples_forever(int(inner[item].sum()), height * width, item if len(counts) > 1 else None)
        if not flags[0]:
            return waves


def unfire_round(padded: Any, counts: Any, layout: Layout) -> int:
    """As :func:`.reference.unfire_round`."""
    inner = padded[:, 1:-1, 1:-1]
    members = counts > 0
    while True:
        for _ in range(CHECK_EVERY):
            degree = _neighbour_sum(members.long(), layout)
            members &= inner < degree
        degree = _neighbour_sum(members.long(), layout)
        if not bool((members & (inner >= degree)).any()):
            break
    inner += layout.threshold * members - degree
    counts -= members.long()
    return int(members.sum())


def solve(cells: Any, start: Any | None, layout: Layout) -> tuple[Any, Any, int]:
    """As :func:`.reference.solve`, for ``(B, H, W)`` int64 tensors on any one device."""
    import torch

    batch = cells.shape[0]
    padded = torch.zeros((batch, layout.height + 2, layout.width + 2), dtype=torch.int64, device=cells.device)
    counts = torch.zeros_like(cells) if start is None else start.clone()
    padded[:, 1:-1, 1:-1] = cells if start is None else cells + laplacian(counts, layout)
    ascend(padded, counts, layout)
    rounds = 0
    if start is not None:
        while unfire_round(padded, counts, layout):
            rounds += 1
    return padded[:, 1:-1, 1:-1].clone(), counts, rounds
