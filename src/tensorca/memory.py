"""Memory planning: how many grids of a batch fit per engine call, and recovery from out-of-memory.

A batch whose working set (``engine.bytes_needed``) does not fit the device, or a ``max_bytes``
budget, runs in chunks; an out-of-memory error halves the chunk; a single grid that cannot fit
raises :class:`~tensorca.errors.MemoryBudgetError` with the bytes needed and available.
"""

from __future__ import annotations

import gc
import sys

from .engines.base import Engine
from .errors import MemoryBudgetError
from .rules.base import Rule


def format_bytes(n: float) -> str:
    """``n`` bytes for people: ``"512 B"``, ``"1.5 KiB"`` ... ``"TiB"``."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"  # pragma: no cover


def available_bytes(device: str | None) -> int | None:
    """Bytes free for a run on ``device``: CUDA free + torch's cached memory, or the host's MemAvailable."""
    kind = str(device or "cpu").split(":")[0]
    if kind == "cuda":
        import torch

        dev = torch.device(device)
        free, _total = torch.cuda.mem_get_info(dev)
        free += torch.cuda.memory_reserved(dev) - torch.cuda.memory_allocated(dev)
        return int(free * 0.9)
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024 * 8 // 10
    except OSError:
        pass
    return None


def require_memory(what: str, needed: int, fix: str, device: str | None = None, max_bytes: int | None = None,
                   estimate: bool = False) -> None:
    """:class:`MemoryBudgetError` before anything is allocated when ``needed`` bytes for ``what`` are
    more than ``max_bytes`` or, without it, what :func:`available_bytes` reports free on ``device``
    (None: this host); ``fix`` says what to change, ``estimate`` that ``needed`` is approximate."""
    available = max_bytes if max_bytes is not None else available_bytes(device)
    if available is not None and needed > available:
        where = "the max_bytes budget" if max_bytes is not None else f"free on {device or 'this host'}"
        raise MemoryBudgetError(f"{what} needs {'about ' if estimate else ''}{format_bytes(needed)}, and "
                                f"{format_bytes(available)} is {where}; {fix}", needed=needed, available=available)


def plan_chunk(engine: Engine, batch: int, shape: tuple[int, int], rule: Rule, device: str | None,
               max_bytes: int | None = None) -> int:
    """How many grids of the batch to advance per engine call so the working set fits.

    ``max_bytes`` (if given) is the budget; otherwise what :func:`available_bytes` reports.
    Raises :class:`MemoryBudgetError` when a single grid does not fit.
    """
    budget = max_bytes if max_bytes is not None else available_bytes(device)
    if budget is None or batch <= 0:
        return max(batch, 1)
    need_all = engine.bytes_needed(batch, shape, rule)
    if need_all <= budget:
        return batch
    one = engine.bytes_needed(1, shape, rule)
    if one > budget:
        raise_too_big(engine, shape, rule, device, one, budget, max_bytes is not None)
    per_grid = max(1, engine.bytes_needed(2, shape, rule) - one)
    return max(1, min(batch, (budget - (one - per_grid)) // per_grid))


def raise_too_big(engine: Engine, shape: tuple[int, int], rule: Rule, device: str | None, needed: int,
                   available: int | None, budget_given: bool) -> None:
    height, width = shape
    where = f"{device or 'cpu'}" + (" (the max_bytes budget)" if budget_given else "")
    cells = height * width
    hint = []
    if engine.cell_bytes(rule) > 4.5:
        hint.append("an engine with fewer bytes per cell (bitpack-cpu / bitpack-gpu need about 4 B/cell "
                    "for two-state Moore rules)")
    if budget_given:
        hint.append("a larger max_bytes")
    hint.append("a smaller grid")
    raise MemoryBudgetError(
        f"one {width}x{height} grid ({cells:,} cells) needs about {format_bytes(needed)} with engine "
        f"{engine.name!r} ({engine.cell_bytes(rule):.1f} B/cell), but only "
        f"{format_bytes(available or 0)} is available on {where}; try {', or '.join(hint)}",
        needed=needed, available=available,
    )


def is_out_of_memory(exc: BaseException) -> bool:
    """An out-of-memory error from torch (``torch.cuda.OutOfMemoryError``) or NumPy (``MemoryError``)."""
    if isinstance(exc, MemoryBudgetError):
        return False
    return type(exc).__name__ == "OutOfMemoryError" or isinstance(exc, MemoryError)


def free_cached_memory() -> None:
    """Collect garbage and return torch's cached CUDA blocks, so a retry sees the memory just freed."""
    gc.collect()
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        torch.cuda.empty_cache()


def halve_chunk(engine: Engine, chunk: int, n: int, shape: tuple[int, int], rule: Rule, device: str | None,
                max_bytes: int | None, exc: BaseException) -> int:
    """The chunk to retry with after ``exc`` (out of memory) at ``chunk`` of ``n`` grids: half of it.

    At one grid there is nothing left to halve: :class:`MemoryBudgetError` with the numbers, chained to ``exc``.
    """
    if chunk <= 1:
        needed = engine.bytes_needed(1, shape, rule)
        try:
            budget = max_bytes if max_bytes is not None else available_bytes(device)
            raise_too_big(engine, shape, rule, device, needed, budget, max_bytes is not None)
        except MemoryBudgetError as err:
            message = f"{err} (out of memory even for one grid: {exc})"
            raise MemoryBudgetError(message, err.needed, err.available) from exc
    return max(1, min(chunk, n) // 2)
