"""``DeviceStream``: batches of CA samples made directly on a device, no workers, no host copies.

Batch ``j`` is a function of ``(seed, j)`` only. Its start states come from a stateless integer
hash of ``(seed, j, sample, cell)`` (:mod:`tensorca.data.seeding`) computed with int64 tensor
operations on the device, so the bits are the same on CPU, CUDA or any other torch device (and equal
to the same hash in NumPy); the evolution runs on the device with a torch engine's ``advance``.
Nothing in :meth:`DeviceStream.batch` reads a value back to the host: on CUDA the whole batch is
queued kernels, and the training step that consumes it simply queues behind them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import torch

from ..arrays import check_device
from ..engines import get_engine
from ..engines.base import Engine
from ..errors import EngineError, GridError
from ..memory import require_memory
from ..rules.base import Rule
from ..rules.spec import resolve
from ..topology import Topology
from .errors import DatasetTypeError
from .seeding import MASK32, cell_bits, fold, hash32
from .trajectories import _count, _range, _shape

_SAMPLE = 0x632BE5AB
_DENSITY = 0x5851F42D
_STATE = 0x14057B7E


def start_keys(seed: int, batch: int, batch_size: int, device: Any = "cpu") -> torch.Tensor:
    """``(batch_size,)`` int64 per-sample keys of batch ``batch`` (values 0..2**32-1) on ``device``."""
    base = fold(seed, batch)
    sample = torch.arange(batch_size, dtype=torch.int64, device=device)
    return hash32(hash32(sample + _SAMPLE) ^ base)


class DeviceStream:
    """Endless (or ``batches``-long) iterable of ready batches on ``device``; deterministic from ``seed``.

    Each batch is ``(x, y)``: two ``(batch_size, H, W)`` uint8 tensors ``generations`` apart (``x``
    is the random soup advanced by ``warmup`` generations), or with ``steps=T`` one
    ``(batch_size, T+1, H, W)`` uint8 tensor (float32 in [0, 1] for a continuous rule such as Lenia,
    live cells drawn uniform from the same hash). ``density`` is a probability or a ``(lo, hi)`` range
    drawn per sample. The grid is a torus of ``shape`` unless ``topology`` (``"plane"``, a suffix) or
    the rule's suffix says otherwise. ``backend`` is a torch-tensor engine (``"torch"``;
    ``"bitpack-gpu"`` where it supports the rule).

    Start states are hashed in int64: about 3 x 8 bytes of temporaries per cell of a batch while
    one is made, so a batch of 1024 grids of 256x256 needs about 1.5 GiB of device memory briefly.

    ``stream.batch(j)`` gives batch ``j`` directly; iterating yields batches ``first, first + 1, ...``.
    """

    def __init__(
        self,
        rule: str | Rule = "B3/S23",
        shape: Any = (64, 64),
        generations: int = 1,
        batch_size: int = 64,
        *,
        steps: int | None = None,
        density: float | tuple[float, float] = 0.5,
        warmup: int = 0,
        seed: int = 0,
        device: str | torch.device = "cpu",
        batches: int | None = None,
        first: int = 0,
        topology: str | Topology | None = None,
        backend: str | Engine = "torch",
    ) -> None:
        self.shape = _shape(shape)
        self.rule, topo = resolve(rule, topology, shape=self.shape)
        self.topology = topo or Topology.torus(self.shape[1], self.shape[0])
        if not self.topology.bounded or self.topology.shape != self.shape:
            raise GridError(f"topology {self.topology} must be a bounded grid of shape {self.shape} (H, W)")
        if self.shape[0] * self.shape[1] > MASK32:
            raise GridError(f"grids of more than 2**32 cells are not supported, got {self.shape}")
        self.generations = _count(generations, "generations", 0)
        self.batch_size = _count(batch_size, "batch_size", 1)
        self.steps = None if steps is None else _count(steps, "steps", 1)
        self.density = _range(density, "density", 0.0, 1.0, integer=False)
        self.warmup = _count(warmup, "warmup", 0)
        self.seed = _count(seed, "seed", 0)
        self.batches = None if batches is None else _count(batches, "batches", 0)
        self.first = _count(first, "first", 0)
        check_device(device)  # typed errors for "meta", typos, or CUDA on a CPU-only torch
        self.device = device if isinstance(device, torch.device) else torch.device(device.strip().lower())
        self.engine = backend if isinstance(backend, Engine) else get_engine(backend)
        if self.engine.array_module != "torch":
            raise EngineError(f"DeviceStream needs an engine that runs torch tensors; {self.engine.name!r} runs "
                              f"{self.engine.array_module} arrays")
        if not self.engine.supports(self.rule, self.topology):
            raise EngineError(self.engine.why_unsupported(self.rule, self.topology))
        height, width = self.shape
        frames = 2 if self.steps is None else self.steps + 1
        itemsize = 1 if self.rule.state_space.discrete else 4
        # a batch: its frames, and the int64 hash temporaries while its start states are made
        require_memory(f"one batch ({self.batch_size} x {frames} frames of {width}x{height} cells)",
                       self.batch_size * height * width * (24 + frames * itemsize), "use a smaller batch_size",
                       device=str(self.device), estimate=True)
        self._cells = torch.arange(self.shape[0] * self.shape[1], dtype=torch.int64,
                                   device=self.device).view(1, *self.shape)

    def __len__(self) -> int:
        if self.batches is None:
            raise DatasetTypeError("an endless DeviceStream has no length; give batches= to bound it")
        return self.batches

    def start_states(self, batch: int) -> torch.Tensor:
        """Batch ``batch``'s random start grids: ``(batch_size, H, W)`` uint8 on the device (float32 values in
        [0, 1) where live for a continuous rule such as Lenia)."""
        keys = start_keys(self.seed, batch, self.batch_size, self.device).view(-1, 1, 1)
        bits = cell_bits(keys, self._cells)
        lo, hi = self.density
        if hi > lo:
            # Per-sample density from the key (float64 arithmetic: the same rounding on every device).
            u = hash32(keys ^ _DENSITY).to(torch.float64) / 4294967296.0
            threshold = torch.floor((lo + (hi - lo) * u) * 4294967296.0).to(torch.int64)
            alive = bits < threshold
        else:
            alive = bits < int(lo * 4294967296.0)
        if not self.rule.state_space.discrete:  # Lenia: float32 values in [0, 1) where live
            values = (hash32(bits ^ _STATE).to(torch.float64) / 4294967296.0).to(torch.float32)
            return torch.where(alive, values, 0.0)
        if self.rule.n_states > 2:
            states = 1 + hash32(bits ^ _STATE) % (self.rule.n_states - 1)
            return torch.where(alive, states, 0).to(torch.uint8)
        return alive.to(torch.uint8)

    def _advance(self, cells: torch.Tensor, generations: int) -> torch.Tensor:
        return self.engine.advance(cells, self.rule, self.topology, generations) if generations else cells

    def batch(self, batch: int) -> Any:
        """Batch number ``batch``: ``(x, y)`` of ``(B, H, W)`` uint8, or ``(B, T+1, H, W)`` uint8."""
        x = self._advance(self.start_states(_count(batch, "batch", 0)), self.warmup)
        if self.steps is None:
            return x, self._advance(x, self.generations)
        frames = [x]
        for _ in range(self.steps):
            frames.append(self._advance(frames[-1], self.generations))
        return torch.stack(frames, dim=1)

    def __iter__(self) -> Iterator[Any]:
        stop = None if self.batches is None else self.first + self.batches
        for j in itertools.count(self.first) if stop is None else range(self.first, stop):
            yield self.batch(j)

    def __repr__(self) -> str:
        what = "pairs" if self.steps is None else f"trajectories of {self.steps + 1} frames"
        return (f"DeviceStream({self.rule.canonical()} on {self.topology}, batches of {self.batch_size} {what}, "
                f"{self.generations} generation(s) apart, seed {self.seed}, on {self.device})")
