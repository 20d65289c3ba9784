"""The node store's owner: capacity within a byte budget, growth, garbage collection, stats."""

from __future__ import annotations

import numpy as np

from ..errors import MemoryBudgetError
from .tree import GC_RUNS, HITS, MISSES, USED, allocate, collect, init_empties, max_nodes, store_bytes

#: Default node budget: 500 MB, as Golly's HashLife.
DEFAULT_MAX_BYTES = 500 * 10**6
#: First capacity (nodes); the store doubles up to the budget before it collects garbage.
INITIAL_NODES = 1 << 15
#: Fewest nodes a budget must hold: the empty node of every level plus a little working room.
MIN_NODES = 1024


def check_budget(max_bytes: int) -> int:
    """The node capacity of ``max_bytes``; :class:`MemoryBudgetError` when under ``MIN_NODES``."""
    nodes = max_nodes(max_bytes)
    if nodes < MIN_NODES:
        need = store_bytes(MIN_NODES)
        raise MemoryBudgetError(
            f"HashLife max_bytes={max_bytes} holds {nodes} nodes; at least {MIN_NODES} nodes "
            f"({need} bytes) are needed", needed=need, available=max_bytes,
        )
    return nodes


class NodeStore:
    """A growable node store (see :mod:`tensorca.hashlife.tree`) bounded by ``max_bytes``.

    ``S`` is the store tuple ``(nodes, table, meta, t4, marks, stack)``; ``frames`` is their ``(64, 16)``
    int32 scratch. ``t4``: the rule's ``(65536,)`` uint8 step table.
    """

    def __init__(self, t4: np.ndarray, max_bytes: int = DEFAULT_MAX_BYTES):
        self.max_bytes = int(max_bytes)
        self.max_nodes = check_budget(self.max_bytes)
        self.S = allocate(min(INITIAL_NODES, self.max_nodes), t4)
        self.frames = np.full((64, 16), -1, np.int32)
        init_empties(*self.S[:3])

    @property
    def capacity(self) -> int:
        """Nodes the arrays hold now."""
        return int(self.S[0].shape[0])

    @property
    def used(self) -> int:
        """Nodes in use."""
        return int(self.S[2][USED])

    @property
    def at_budget(self) -> bool:
        """True when the store cannot grow any more: a full store collects garbage instead."""
        return self.capacity >= self.max_nodes

    def grow(self) -> bool:
        """Double the capacity (at most to the budget); False when already at the budget."""
        if self.capacity >= self.max_nodes:
            return False
        self.S = allocate(min(2 * self.capacity, self.max_nodes), self.S[3], old=self.S)
        return True

    def copy(self) -> NodeStore:
        """An independent store with the same nodes (same indices), results and counters, sized
        for what is used (twice the nodes, at least the initial capacity)."""
        twin = object.__new__(NodeStore)
        twin.max_bytes, twin.max_nodes = self.max_bytes, self.max_nodes
        room = min(self.max_nodes, max(INITIAL_NODES, 2 * self.used))  # the nodes, room to grow: not a copy
        twin.S = allocate(room, self.S[3], old=self.S)  # of a store that grew to the budget once
        twin.frames = np.full((64, 16), -1, np.int32)
        return twin

    def collect(self, roots: list[int], keep_results: bool) -> list[int]:
        """Garbage-collect all but ``roots`` (and, with ``keep_results``, the cached results of
        what survives); returns the roots' new indices."""
        arr = np.asarray(roots, np.int32)
        nodes, table, meta, _, marks, stack = self.S
        collect(nodes, table, meta, marks, stack, arr, keep_results)
        return [int(r) for r in arr]

    def stats(self) -> dict[str, int | float]:
        """Nodes used, capacity, bytes, GC runs, cache hits and misses, hit rate."""
        hits, misses = int(self.S[2][HITS]), int(self.S[2][MISSES])
        return {
            "nodes": self.used,
            "capacity": self.capacity,
            "bytes": store_bytes(self.capacity),
            "max_bytes": self.max_bytes,
            "gc_runs": int(self.S[2][GC_RUNS]),
            "cache_hits": hits,
            "cache_misses": misses,
            "hit_rate": hits / (hits + misses) if hits + misses else 0.0,
        }
