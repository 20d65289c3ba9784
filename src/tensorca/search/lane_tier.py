"""The narrow tiers of a CPU soup search kept bit-packed, 64 soups to a word, from start to census.

:mod:`.soups` runs every soup on a bounded plane and, after each chunk of generations, looks at
each plane: population, guard band, stability. With ``bitpack-cpu`` and a 3x3 two-state rule the
tiers up to ``LANE_MAX_PLANE`` wide (128 and 256: where nearly all of a soup's life is spent, and
wider tiers hold too few soups to fill a word) never leave the lane layout of
:mod:`tensorca.engines.bitpack.lanes`:

- the planes advance ``CHUNK`` generations per call, 64 per word operation, one group after
  another on this thread;
- populations, guard-band occupancy and stability come from one scan of the packed words
  (:func:`.lane_kernels.scan_groups`);
- *stability is exact*: after every chunk each plane is compared with itself ``LAG`` generations
  before (a ring of the last ``LAG / CHUNK`` chunks' planes; the scan copies each plane into the
  ring entry it compared, and the host's edits are made to both).
  A plane equal to that, with no edit since, repeats with a period dividing ``LAG``: it is stable
  forever, so it is censused now; when that happens depends only on the soup, not on the batch.
  Ash whose period does not divide ``LAG`` is caught, as before, by the periodic populations test
  every ``FORCED_CHECK`` generations;
- only planes that need the host are unpacked: one with something in its guard band (a spaceship
  to remove, or a soup to re-centre or move to a wider tier), one to census, and one to start;
- once no soups are left to start and a tier holds few, it keeps them as plain planes stepped by the
  engine (:meth:`LaneTier.to_dense`): a lane group costs as much for one soup as for 64, and the
  last soups of a search are its longest-lived. Chunks, snapshots and tests stay the same, so the
  census (and when each soup is taken) does not change.

The census and band rules are :mod:`.soups`' own (:meth:`_Search.finish`, :meth:`_Search.clear_band`),
so the results equal those of the generic path for the same soups.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..crop import crop
from ..engines.bitpack.lanes_layout import LANES, groups_side_by_side
from ..rules.base import Rule
from ..topology import Topology
from .band_kernels import scan_planes
from .lane_kernels import extract_plane, insert_plane, scan_groups, update_plane
from .stability import FORCED_CHECK, periodic_tail

#: Generations per call of the lane kernels.
CHUNK = 10
#: Cells from each edge kept empty before a chunk: CHUNK times the reach (1: lanes run 3x3 rules).
GUARD = CHUNK
#: Planes are compared with a snapshot this many generations old (a multiple of CHUNK; 60 is a
#: multiple of the periods of nearly all ash: 1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30).
LAG = 60
#: Population samples (one per chunk) kept per soup for the periodic test.
HISTORY = 120


def lane_module_for(rule: Rule) -> Any | None:
    """The compiled lane kernels for ``rule``, or None when it cannot run in lanes (not a 3x3
    two-state table rule, or the specialised-module cap is reached)."""
    from .._jit import HAVE_NUMBA

    if not HAVE_NUMBA:  # the lane kernels are compiled code only
        return None
    from ..engines.bitpack.circuit import rule_table, why_not_bitpack
    from ..engines.bitpack.lanes import lanes_module

    spec = rule.compile()
    if spec.n_states != 2 or why_not_bitpack(spec, Topology.plane(8, 8)) is not None:
        return None
    return lanes_module(rule_table(spec))


class LaneTier:
    """Soups on ``size``-wide bounded planes in lane groups; ``slots`` (a multiple of 64) of them.

    ``slots[s]`` is the soup in slot ``s`` (None when free); slot ``s`` is bit ``s % 64`` of group
    ``s // 64``. ``pending`` holds ``(soup, cropped cells)`` waiting for a slot.
    """

    def __init__(self, size: int, capacity: int, module: Any):
        groups = -(-max(1, capacity) // LANES)
        self.size = size
        self.module = module
        self.capacity = groups * LANES
        self.lanes = np.zeros((groups, size + 2, size + 2), dtype=np.uint64)
        #: The planes at the start of each of the last LAG // CHUNK chunks (a ring by chunk number:
        #: ``ring[chunks % depth]`` is a copy of ``lanes``, edits included, between chunks).
        self.ring = np.zeros((LAG // CHUNK, groups, size + 2, size + 2), dtype=np.uint64)
        self.slots: list[Any | None] = [None] * self.capacity
        #: ``(slots,)`` bool: which slots hold a soup (``slots[s] is not None``), read every chunk.
        self.busy = np.zeros(self.capacity, dtype=bool)
        self.pending: list[tuple[Any, np.ndarray]] = []
        self.gen = np.zeros(self.capacity, dtype=np.int64)
        #: The chunk after which each slot's plane was last set by the host (a soup placed or edited).
        self.set_at = np.zeros(self.capacity, dtype=np.int64)
        #: Populations of the last HISTORY chunks (a ring indexed by chunk number) and how many are valid.
        self.history = np.zeros((self.capacity, HISTORY), dtype=np.int64)
        self.samples = np.zeros(self.capacity, dtype=np.int64)
        self.chunks = 0
        self._plane = np.zeros((size, size), dtype=np.uint8)
        #: Set by :meth:`to_dense`: the tier's planes are then ``(size, size)`` uint8 arrays by slot,
        #: stepped by this callable (``(B, size, size)`` -> the same ``CHUNK`` generations later).
        self.step_dense: Callable[[np.ndarray], np.ndarray] | None = None
        self.dense: dict[int, np.ndarray] = {}
        self.dense_ring: list[dict[int, np.ndarray]] = [{} for _ in range(LAG // CHUNK)]

    @property
    def occupied(self) -> int:
        """How many soups run in this tier."""
        return int(np.count_nonzero(self.busy))

    def admit(self) -> None:
        """Place pending soups in the middle of free planes, lowest slots first (so the groups
        that run stay few when soups run out)."""
        if not self.pending:
            return
        for slot in np.flatnonzero(~self.busy)[: len(self.pending)].tolist():
            soup, content = self.pending.pop(0)
            h, w = content.shape
            top, left = (self.size - h) // 2, (self.size - w) // 2
            if self.step_dense is not None:
                plane = np.zeros((self.size, self.size), dtype=np.uint8)
                plane[top : top + h, left : left + w] = content
                self.dense[slot] = plane
            else:
                insert_plane(self.lanes, self._snapshot(), slot // LANES, slot % LANES,
                             np.ascontiguousarray(content, dtype=np.uint8), top, left)
            self.slots[slot] = soup
            self.busy[slot] = True
            self.gen[slot] = soup.gen
            self.set_at[slot] = self.chunks
            self.samples[slot] = 0

    def plane(self, slot: int) -> np.ndarray:
        """A copy of the plane in ``slot``, ``(size, size)`` uint8."""
        if self.step_dense is not None:
            return self.dense[slot].copy()
        extract_plane(self.lanes, slot // LANES, slot % LANES, self._plane)
        return self._plane.copy()

    def write(self, slot: int, plane: np.ndarray, before: np.ndarray | None = None) -> None:
        """Replace the plane in ``slot`` (an edit: older snapshots no longer count). ``before``: what
        the slot holds now, when the caller has it (then only the changed cells are written)."""
        if self.step_dense is not None:
            self.dense[slot] = np.array(plane, dtype=np.uint8)
        else:
            cells = np.ascontiguousarray(plane, dtype=np.uint8)
            if before is not None:
                update_plane(self.lanes, self._snapshot(), slot // LANES, slot % LANES, before, cells)
            else:
                insert_plane(self.lanes, self._snapshot(), slot // LANES, slot % LANES, cells, 0, 0)
        self.set_at[slot] = self.chunks

    def _snapshot(self) -> np.ndarray:
        """The ring entry that holds a copy of the lanes until the next chunk: an edit goes to the
        lanes and to it (it is the snapshot those planes are compared with ``LAG`` generations on)."""
        return self.ring[self.chunks % len(self.ring)]

    def release(self, slot: int) -> None:
        self.slots[slot] = None
        self.busy[slot] = False
        self.dense.pop(slot, None)

    def to_dense(self, step: Callable[[np.ndarray], np.ndarray]) -> None:
        """Keep the soups as plain planes from now on, stepped ``(B, size, size)`` at a time by ``step``.

        For the last few soups of a search: a lane group costs the same with one soup as with 64.
        Everything the tier decides stays as it was (chunks, snapshots, populations), so the census
        does not change; only the cost of a chunk does."""
        if self.step_dense is not None:
            return
        busy = np.flatnonzero(self.busy).tolist()
        self.dense = {slot: self.plane(slot) for slot in busy}
        for k in range(len(self.dense_ring)):  # the snapshots of the last LAG generations, by slot
            snapshot = self.dense_ring[k]
            for slot in busy:
                extract_plane(self.ring[k], slot // LANES, slot % LANES, self._plane)
                snapshot[slot] = self._plane.copy()
        self.step_dense = step
        self.lanes = self.lanes[:0]
        self.ring = self.ring[:, :0]

    def advance(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Run every busy group ``CHUNK`` generations; ``(pops, band, same)`` per slot: population
        ``(slots,)`` int64, live cells in the guard band ``(slots,)`` bool, and whether the plane
        equals itself ``LAG`` generations ago with no edit since ``(slots,)`` bool. Each soup is
        compared at every chunk of its own, so when it is found stable does not depend on the batch."""
        busy = np.flatnonzero(self.busy)
        if self.step_dense is not None:
            return self._advance_dense(busy)
        used = int(busy[-1]) // LANES + 1 if busy.size else 0
        lanes = self.lanes[:used]
        depth = LAG // CHUNK
        if used:
            # on this thread: the host work around it is serial anyway (census, bands), and a parallel
            # region whose second core is busy spins (measured 4-6x slower than this at load 2);
            # a census uses more cores as processes (search.distributed)
            self.module.run_groups_serial(lanes, CHUNK, False, groups_side_by_side(lanes.shape, 1))
        self.chunks += 1
        self.gen[busy] += CHUNK
        pops = np.zeros((len(self.lanes), LANES), dtype=np.int64)
        band_words = np.zeros(len(self.lanes), dtype=np.uint64)
        differ = np.zeros(len(self.lanes), dtype=np.uint64)
        if used:
            # the ring entry compared holds the planes LAG generations ago; the scan leaves this
            # chunk's planes there, the snapshot for LAG generations on
            scan_groups(lanes, self.ring[self.chunks % depth, :used], GUARD, pops[:used], band_words[:used],
                        differ[:used])
        pops = pops.reshape(-1)
        self.history[:, self.chunks % HISTORY] = pops
        self.samples += 1
        same = ~_bits(differ) & (self.set_at <= self.chunks - depth)
        return pops, _bits(band_words), same

    def _advance_dense(self, busy: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`advance` for planes kept as plain arrays (after :meth:`to_dense`)."""
        depth = LAG // CHUNK
        slots = busy.tolist()
        self.dense_ring[self.chunks % depth] = {slot: self.dense[slot] for slot in slots}  # replaced, not edited
        if slots:
            stepped = self.step_dense(np.stack([self.dense[slot] for slot in slots]))
            for k, slot in enumerate(slots):
                self.dense[slot] = stepped[k]
        self.chunks += 1
        self.gen[busy] += CHUNK
        pops = np.zeros(self.capacity, dtype=np.int64)
        band = np.zeros(self.capacity, dtype=bool)
        same = np.zeros(self.capacity, dtype=bool)
        before = self.dense_ring[self.chunks % depth]
        if slots:
            pops[busy], band[busy] = scan_planes(stepped, GUARD)
        for slot in slots:
            old = before.get(slot)
            same[slot] = old is not None and np.array_equal(old, self.dense[slot])
        self.history[:, self.chunks % HISTORY] = pops
        self.samples += 1
        same &= self.set_at <= self.chunks - depth
        return pops, band, same

    def populations(self, slot: int) -> list[int]:
        """The slot's population samples, oldest first (at most HISTORY)."""
        n = int(min(self.samples[slot], HISTORY))
        return self.history[slot, (self.chunks - np.arange(n - 1, -1, -1)) % HISTORY].tolist()


def _bits(words: np.ndarray) -> np.ndarray:
    """``(G,)`` uint64 -> ``(G * 64,)`` bool: bit ``i`` of word ``g`` at ``64 g + i``."""
    return np.unpackbits(words.astype("<u8").view(np.uint8), bitorder="little").astype(bool)


def run_lane_tier(search: Any, tier: LaneTier) -> list[tuple[Any, np.ndarray]]:
    """One chunk of ``tier`` for ``search`` (a :class:`.soups._Search`): advance, clear guard bands,
    census what is stable, finished or empty; returns the soups that outgrew their planes as
    ``(soup, cropped cells)``."""
    pops, band, same = search.advance_lanes(tier)
    busy = tier.busy
    check = busy & ((tier.gen % FORCED_CHECK) == 0)
    due = busy & (band | (pops == 0) | (tier.gen >= search.max_gens) | check | same)
    outgrown: list[tuple[Any, np.ndarray]] = []
    for slot in np.flatnonzero(due).tolist():
        soup = tier.slots[slot]
        soup.gen = int(tier.gen[slot])
        plane = None
        if band[slot]:
            plane = tier.plane(slot)
            before = plane.copy()
            if not search.clear_band(soup, plane, GUARD):
                outgrown.append((soup, crop(plane, copy=True)[0]))
                tier.release(slot)
                continue
            tier.write(slot, plane, before)
            pops[slot] = int(np.count_nonzero(plane))
            tier.history[slot, tier.chunks % HISTORY] = pops[slot]
        if pops[slot] == 0:
            search.finish_empty(soup)
            tier.release(slot)
            continue
        if soup.gen >= search.max_gens:
            search.finish_unstable(soup, tier.plane(slot) if plane is None else plane)
            tier.release(slot)
            continue
        if soup.gen < soup.next_check:
            continue
        stable = bool(same[slot]) and not band[slot]
        forced = (not stable and check[slot]
                  and periodic_tail(tier.populations(slot), soup.gen - soup.last_event, CHUNK))
        if stable or forced:  # the plane leaves the lanes only now
            if search.finish(soup, tier.plane(slot) if plane is None else plane, stable_only=True):
                tier.release(slot)
                continue
            soup.next_check = soup.gen + 2 * LAG
    return outgrown


__all__ = ["CHUNK", "LAG", "LaneTier", "lane_module_for", "run_lane_tier"]
