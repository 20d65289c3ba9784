"""Soup search: run many random 16x16 soups to stability in batches and census their ash.

How a batch runs (the same scheme for every engine):

- Each soup sits in the middle of its own bounded ``P x P`` plane (``P = 128`` to start), all
  ``B`` planes advanced together by the engine in chunks of ``CHUNK`` generations.
- *Exactness.* Before every chunk, no live cell lies within ``CHUNK * reach`` cells of a plane's
  edge; then nothing outside the plane could come alive during the chunk, so the bounded plane
  computes exactly what the unbounded plane computes (the argument of :mod:`tensorca.unbounded`).
  After each chunk, a soup with live cells in that guard band is handled on the host:
  spaceships heading out (gliders, mostly) with everything else ``ESCAPE_GAP`` cells behind them
  are *censused and removed* (a bet that nothing catches them, as in apgsearch: see ESCAPE_GAP);
  if anything else is in the band the soup is re-centred, and a soup too wide for its plane
  moves to a batch of planes twice as large (up to ``MAX_PLANE``).
- *Stability.* After each chunk the population of every soup is read (one reduction over the
  batch). A soup whose population is equal at generations ``t``, ``t - 60`` and ``t - 120`` (60 is
  a multiple of the periods of nearly all ash: 1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30) with no
  removal in between is a candidate; its ash is split into objects on the host
  (:mod:`tensorca.analysis.objects`). If every object is a still life, oscillator or spaceship it
  is done; otherwise it runs on and is checked again 120 generations later.
- With ``bitpack-cpu`` and a 3x3 rule, planes up to ``LANE_MAX_PLANE`` wide stay bit-packed, 64
  soups to a word, and stability is tested exactly on the packed planes (:mod:`.lane_tier`).
- With an engine on a GPU (``bitpack-gpu``, ``torch`` on CUDA), every tier's planes stay on the
  device between chunks and are reduced there (:mod:`.device_tier`).
- Finished soups leave the batch and new soups take their place, so the batch stays full and the
  total work is proportional to the soups' lifetimes, not to the longest one's.
- A soup still unstable after ``max_gens`` is censused as it is (unresolved parts count as
  ``zz_UNRESOLVED``) and counted in ``unstable``.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import math
import secrets
import time
from collections import Counter, deque
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import costmodel
from ..analysis.census import sorted_counts, splitter_for
from ..analysis.evolve import Stepper
from ..analysis.objects import UNRESOLVED, Behaviour, Splitter
from ..arrays import like_input, to_engine
from ..cpu_load import numba_threads
from ..crop import crop
from ..engines import get_engine
from ..engines.base import Engine
from ..errors import EngineError, GridError, RuleError, UsageError
from ..rules.base import Rule
from ..rules.spec import resolve
from ..topology import Topology
from .band_kernels import alive_box, band_islands, blocking_islands, clear_behind, lone_band_island, scan_planes
from .device_tier import DevicePlanes, runs_on_device
from .hashsoup import check_seed, hashsoups
from .lane_tier import CHUNK as LANE_CHUNK
from .lane_tier import LaneTier, lane_module_for, run_lane_tier
from .results import PHASES, SAMPLES, SearchInterrupted, SoupSearchResult
from .stability import FORCED_CHECK, periodic_tail
from .tiled_tier import TiledPlanes, tiled_planes_fit

SOUP_SIZE = 16
#: Generations per engine call; also the guard band (times the rule's reach) kept empty.
CHUNK = 20
#: Population is compared at this lag (and twice it) to spot candidates for stability.
LAG = 60
#: Population samples (one per chunk) kept per soup.
HISTORY = 80
#: Longest period of a spaceship recognised in the guard band (gliders and *WSS have period 4).
BAND_MAX_PERIOD = 16
#: Tiers of planes up to this wide stay in lanes (:mod:`.lane_tier`) when the rule allows; wider
#: tiers hold few soups, where a group of 64 lanes would mostly run empty planes.
LANE_MAX_PLANE = 256
#: A spaceship leaving through the guard band is removed only when everything else lies at least this
#: many cells behind it. Removal is a bet that nothing catches it: a ship runs at c/4 (gliders) or
#: c/2 and a still-active soup can spread at up to c, so a small gap loses bets (a glider removed 3
#: cells ahead of a growing soup was caught 20 generations later in the 119th 16x16 draw of
#: ``default_rng(1)``, as soups were drawn then, and the census came out 150 objects instead of 52).
#: The gap makes that rare; a soup that cannot shed its ship moves to a wider plane instead.
ESCAPE_GAP = 12
#: Islands of at most this many cells in the guard band are checked for being spaceships.
SHIP_CELLS = 64
#: Smallest batch handed to the engine.
MIN_BATCH = 4
#: Batches of planes at least this wide are not padded (an empty 1024^2 plane costs as much as a soup).
PAD_BELOW = 512
#: Once no soups are left to start, a lane tier holding at most this many soups keeps them as plain
#: planes (:meth:`.lane_tier.LaneTier.to_dense`).
DENSE_AT_MOST = 16
FIRST_PLANE = 128
MAX_PLANE = 1024
#: A rough mean lifetime (generations) of a 16x16 soup: the work ``backend="auto"`` plans for.
TYPICAL_LIFETIME = 1000
def pick_engine(rule: Rule, backend: str = "auto", device: str | None = None, *, count: int = 1000,
                batch: int = 256, max_gens: int = 20000) -> tuple[Engine, str]:
    """The engine (and device) to run ``count`` soups on, ``batch`` at a time.

    ``backend`` if named; for ``"auto"``, the cost model's choice (:func:`tensorca.costmodel.choose`)
    for the work of a soup search: ``min(batch, count)`` bounded ``FIRST_PLANE``-wide planes run
    ``count * lifetime / planes`` generations in calls of ``CHUNK`` generations, where a soup lives
    about ``min(max_gens, TYPICAL_LIFETIME)`` generations.
    """
    plane = Topology.plane(FIRST_PLANE, FIRST_PLANE)
    if backend != "auto":
        engine = get_engine(backend)
        if not engine.supports(rule, plane):
            raise EngineError(engine.why_unsupported(rule, plane))
        devices = engine.devices()
        return engine, device or ("cuda" if "cuda" in devices else devices[0] if devices else "cpu")
    planes = max(1, min(batch, count))
    generations = max(CHUNK, math.ceil(max(count, 1) * min(max_gens, TYPICAL_LIFETIME) / planes))
    choice = costmodel.choose(rule, plane, planes, (FIRST_PLANE, FIRST_PLANE), generations, device=device,
                              calls=math.ceil(generations / CHUNK))
    return get_engine(choice.engine), device or choice.device


class _Soup:
    """Book-keeping of one soup while it runs."""

    __slots__ = ("index", "gen", "pops", "escaped", "last_event", "next_check")

    def __init__(self, index: int, gen: int = 0):
        self.index = index
        self.gen = gen
        self.pops: deque[int] = deque(maxlen=HISTORY)
        self.escaped: Counter = Counter()
        self.last_event = 0
        self.next_check = 0


def _clock() -> float:
    """Seconds on the search's clock (a function of its own so that tests can make it deterministic)."""
    return time.perf_counter()


def _timed(phase: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A method of :class:`_Search` whose calls' seconds add to ``self.phases[phase]``."""

    def wrap(method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def timed(self: _Search, *args: Any, **kwargs: Any) -> Any:
            started = _clock()
            try:
                return method(self, *args, **kwargs)
            finally:
                self.phases[phase] += _clock() - started

        return timed

    return wrap


class _Search:
    def __init__(self, rule: Rule, engine: Engine, device: str, batch: int, max_gens: int):
        self.rule = rule
        self.engine = engine
        self.device = device
        self.batch = batch
        self.max_gens = max_gens
        self.stepper = Stepper(rule)
        self.splitter: Splitter = splitter_for(self.stepper)
        self.band_splitter: Splitter = splitter_for(self.stepper, BAND_MAX_PERIOD)
        # bitpack-cpu with a 3x3 two-state rule: tiers up to LANE_MAX_PLANE stay in lanes (lane_tier)
        self.lane_module = lane_module_for(rule) if engine.name == "bitpack-cpu" else None
        # an engine on a GPU: planes stay on its device between chunks (device_tier)
        self.resident = runs_on_device(engine, device)
        self.reach = self.stepper.reach
        self.counts: Counter = Counter()
        self.generations = 0
        self.unstable = 0
        self.escaped = 0
        self.promoted = 0
        self.finished = 0  # soups censused (their counts are in self.counts)
        self.seed: int | str | None = None
        self.samples: dict[str, list[int]] = {}
        self.phases = dict.fromkeys(PHASES, 0.0)

    def engine_threads(self):
        """A context for engine calls: with lanes, bitpack-cpu runs on this thread like the lane tiers
        (the host work between calls is serial, and a parallel region whose second core is busy
        spins: the 512- and 1024-wide tiers took 1.1 s of a 1000-soup search in one run and 6 s in
        the next with another process busy); otherwise as the engine decides."""
        if self.lane_module is None:
            return contextlib.nullcontext()
        from .._numba import numba

        return numba_threads(numba, 1)

    def record(self, soup: _Soup, codes: list[str]) -> None:
        """Count ``codes`` (the soup's objects and escaped ships) and keep ``soup`` as a sample of each."""
        self.counts.update(codes)
        for code in set(codes):
            kept = self.samples.setdefault(code, [])
            if len(kept) < SAMPLES or soup.index < kept[-1]:
                bisect.insort(kept, soup.index)
                del kept[SAMPLES:]

    # -- host-side handling ----------------------------------------------------------------
    @_timed("census")
    def finish(self, soup: _Soup, cells: np.ndarray, stable_only: bool) -> bool:
        """Census ``cells`` (one plane); False (and nothing counted) if not stable and ``stable_only``."""
        states, info = self.splitter.resolve((cells, (0, 0)))
        if stable_only and (any(b is None for b in info) or not _ships_clear(states, info, self.reach)):
            return False
        self.record(soup, [b.apgcode if b is not None else UNRESOLVED for b in info] + list(soup.escaped.elements()))
        self.escaped += sum(soup.escaped.values())
        self.generations += soup.gen
        self.finished += 1
        return True

    def finish_unstable(self, soup: _Soup, cells: np.ndarray) -> None:
        """Census a soup as it stands (not stable by ``max_gens``, or too wide for the largest plane):
        parts that are no still life, oscillator or spaceship count as ``zz_UNRESOLVED``."""
        self.finish(soup, cells, stable_only=False)
        self.unstable += 1

    def finish_empty(self, soup: _Soup) -> None:
        """Census a soup whose plane emptied: only the spaceships it sent away."""
        self.record(soup, list(soup.escaped.elements()))
        self.escaped += sum(soup.escaped.values())
        self.generations += soup.gen
        self.finished += 1

    @_timed("bands")
    def clear_band(self, soup: _Soup, plane: np.ndarray, guard: int) -> bool:
        """Remove outbound spaceships from the guard band, re-centre; False if the soup is too wide.

        Islands (cells chained within :data:`.band_kernels.LINK` cells, so that a spaceship whose
        phase falls into pieces is one island) reaching the band are taken in raster order of their
        first cell there; a small spaceship among them leaves (is censused and erased) when it heads
        out through the band and every other live island lies :data:`ESCAPE_GAP` cells behind it, or
        is a ship moving alongside at its velocity."""
        size = plane.shape[0]
        gap = max(ESCAPE_GAP, 2 * self.reach + 1)
        settled = self._lone_ship_leaves(soup, plane, guard, gap)
        if settled is not None:
            return settled
        labels, boxes, counts, in_band, positions = band_islands(plane, guard)
        if in_band.size == 0:
            return True
        alive = np.ones(len(boxes) + 1, dtype=np.bool_)
        alive[0] = False
        ships: dict[int, tuple[tuple[int, int], str] | None] = {}  # label -> (displacement, apgcode)
        for label in in_band.tolist():
            displacement = self._ship(label, labels, boxes, counts, plane, ships)
            if displacement is None or not _heading_out(displacement, boxes[label - 1], size, guard):
                continue
            blockers = blocking_islands(labels, positions, alive, label, displacement[0], displacement[1],
                                        boxes[label - 1], gap)
            # islands not far enough behind block the escape, unless they are ships running
            # alongside at the same velocity (those can never catch it up)
            if any(self._ship(b, labels, boxes, counts, plane, ships) != displacement for b in blockers.tolist()):
                continue
            soup.escaped[ships[label][1]] += 1
            soup.last_event = soup.gen
            top, left, bottom, right = boxes[label - 1].tolist()
            window = plane[top : bottom + 1, left : right + 1]
            window[labels[top : bottom + 1, left : right + 1] == label] = 0
            alive[label] = False
        return _recentre(plane, alive_box(boxes, alive), guard)

    def _lone_ship_leaves(self, soup: _Soup, plane: np.ndarray, guard: int, gap: int) -> bool | None:
        """The most common band: one small spaceship alone in it, heading out, with everything else
        behind it. Then it leaves and the result of :meth:`clear_band` is returned, decided as its
        island loop would decide it, without labelling the plane; None when the band is not that."""
        positions, mark, box, count = lone_band_island(plane, guard, SHIP_CELLS)
        if count == 0:  # nothing in the band
            return True
        if count < 0:
            return None
        top, left, bottom, right = box.tolist()
        window = (slice(top, bottom + 1), slice(left, right + 1))
        behaviour = self._spaceship(plane[window] * mark[window])
        if behaviour is None or not _heading_out(behaviour.displacement, box, plane.shape[0], guard):
            return None
        cleared, y0, x0, y1, x1 = clear_behind(plane, positions, mark, *behaviour.displacement, box, gap)
        if not cleared:
            return None
        soup.escaped[behaviour.apgcode] += 1
        soup.last_event = soup.gen
        return _recentre(plane, (y0, x0, y1, x1), guard)

    def _spaceship(self, island: np.ndarray) -> Behaviour | None:
        """The behaviour of ``island`` (one island's cells cut to its box, uint8) when it is a
        spaceship; else None."""
        behaviour = self.band_splitter.behaviour(island)
        return behaviour if behaviour is not None and behaviour.kind == "spaceship" else None

    def _ship(self, label: int, labels: np.ndarray, boxes: np.ndarray, counts: np.ndarray, plane: np.ndarray,
              ships: dict) -> tuple[int, int] | None:
        """The displacement of island ``label`` if it is a small spaceship alone, else None; ``ships``
        memoises ``label -> (displacement, apgcode) or None``."""
        if label not in ships:
            ships[label] = None
            if counts[label - 1] <= SHIP_CELLS:
                top, left, bottom, right = boxes[label - 1].tolist()
                own = labels[top : bottom + 1, left : right + 1] == label
                behaviour = self._spaceship(plane[top : bottom + 1, left : right + 1] * own.astype(np.uint8))
                if behaviour is not None:
                    ships[label] = (behaviour.displacement, behaviour.apgcode)
        found = ships[label]
        return None if found is None else found[0]

    # -- all tiers of planes, stepped together -----------------------------------------------
    def run(self, source: Callable[[], tuple[_Soup, np.ndarray] | None]) -> None:
        """Run soups from ``source`` (``(soup, cropped cells)`` or None when there are no more).

        Soups start on ``FIRST_PLANE``-wide planes; one that outgrows its plane moves to a batch
        of planes twice as wide, which runs alongside (so no batch waits for another).
        """
        tiers: dict[int, _Tier | LaneTier] = {}
        size = FIRST_PLANE
        while size <= MAX_PLANE:
            capacity = max(1, self.batch * (FIRST_PLANE * FIRST_PLANE) // (size * size))
            if size <= LANE_MAX_PLANE and self.lane_module is not None:
                tiers[size] = LaneTier(size, capacity, self.lane_module)
            elif self.lane_module is not None and tiled_planes_fit(size):
                tiers[size] = _Tier(size, capacity, TiledPlanes(size, self.lane_module))
            elif self.resident:
                tiers[size] = _Tier(size, capacity, DevicePlanes(size, functools.partial(self.advance_on_device,
                                                                                         size=size), self.device))
            else:
                tiers[size] = _Tier(size, capacity)
            size *= 2
        exhausted = False
        while True:
            first = tiers[FIRST_PLANE]
            while not exhausted and first.occupied + len(first.pending) < first.capacity:
                item = source()
                if item is None:
                    exhausted = True
                    break
                first.pending.append(item)
            busy = False
            for tier_size, tier in tiers.items():
                if (exhausted and isinstance(tier, LaneTier) and tier.step_dense is None and not tier.pending
                        and tier.occupied <= DENSE_AT_MOST):
                    # the last soups: plain planes cost by the soup, a lane group the same for 1 or 64
                    tier.to_dense(functools.partial(self.advance, generations=LANE_CHUNK))
                tier.admit()
                if not tier.occupied:
                    continue
                busy = True
                stepped = run_lane_tier(self, tier) if isinstance(tier, LaneTier) else self.step_tier(tier)
                for soup, content in stepped:
                    bigger = tiers.get(tier_size * 2)
                    self.promoted += 1
                    if bigger is None:  # too wide even for the largest plane: census as it is
                        self.finish_unstable(soup, content)
                    else:
                        bigger.pending.append((soup, content))
            if not busy and exhausted and not any(t.pending for t in tiers.values()):
                return

    def settled(self, soup: _Soup, plane: np.ndarray | Callable[[], np.ndarray]) -> bool:
        """Census ``soup`` if its populations say it may be stable and its ash confirms it; ``plane``
        its cells, or a callable that gives them (asked only for the census)."""
        history = soup.pops
        lag = LAG // CHUNK
        candidate = (
            len(history) > 2 * lag
            and history[-1] == history[-1 - lag] == history[-1 - 2 * lag]
            and soup.gen - soup.last_event >= 2 * LAG
        )
        # Ash with a period that does not divide LAG never passes that test; now and then
        # look for any short period in the sampled populations.
        forced = (
            not candidate
            and soup.gen % FORCED_CHECK == 0
            and periodic_tail(history, soup.gen - soup.last_event, CHUNK)
        )
        if not (candidate or forced) or soup.gen < soup.next_check:
            return False
        if self.finish(soup, plane() if callable(plane) else plane, stable_only=True):
            return True
        soup.next_check = soup.gen + 2 * LAG
        return False

    def advance(self, batch: np.ndarray, generations: int) -> np.ndarray:
        """``batch`` ``(B, S, S)`` uint8 bounded planes ``generations`` later, on the engine."""
        count, size = len(batch), batch.shape[1]
        if count < MIN_BATCH and size < PAD_BELOW:  # a few empty planes keep engines on their batch path
            batch = np.concatenate([batch, np.zeros((MIN_BATCH - count, size, size), np.uint8)])
        with self.engine_threads():
            out = self.engine.advance(to_engine(batch, self.engine.array_module, self.device), self.rule,
                                      Topology.plane(size, size), generations)
        return np.ascontiguousarray(like_input(out, batch))[:count]

    def advance_on_device(self, planes: Any, generations: int, size: int) -> Any:
        """``planes`` ``(B, size, size)`` uint8 bounded planes (a tensor on the engine's device)
        ``generations`` later, left there."""
        return self.engine.advance(planes, self.rule, Topology.plane(size, size), generations)

    @_timed("stepping")
    def advance_lanes(self, tier: LaneTier) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`.lane_tier.LaneTier.advance`, its time counted as stepping."""
        return tier.advance()

    @_timed("stepping")
    def _step_planes(self, tier: _Tier, guard: int) -> tuple[np.ndarray, np.ndarray, Callable[[int], np.ndarray]]:
        """Advance ``tier``'s planes a chunk: ``(pops, band, plane_of)``, each plane's population and
        whether a live cell lies in its guard band, and the plane of a soup by its index."""
        tiles = tier.tiles
        if tiles is not None:  # planes kept as lane tiles or on the device: fetched only when the host needs them
            with self.engine_threads():
                tiles.advance(CHUNK)
            pops, band = tiles.scan(guard)
            return pops, band, tiles.cells
        cells = self.advance(tier.cells, CHUNK)
        pops, band = scan_planes(cells, guard)  # band: some live cell lies in a plane's guard band
        tier.cells = cells
        return pops, band, cells.__getitem__  # views: edits stay in the tier

    def step_tier(self, tier: _Tier) -> list[tuple[_Soup, np.ndarray]]:
        """Advance one tier by a chunk, handle bands and stability; returns soups that outgrew it."""
        guard = CHUNK * self.reach
        tiles = tier.tiles
        pops, band, plane_of = self._step_planes(tier, guard)
        outgrown: list[tuple[_Soup, np.ndarray]] = []
        keep = np.ones(len(tier.soups), dtype=bool)
        for b, soup in enumerate(tier.soups):
            soup.gen += CHUNK
            if band[b]:
                plane = plane_of(b)
                if not self.clear_band(soup, plane, guard):
                    outgrown.append((soup, crop(plane, copy=True)[0]))
                    keep[b] = False
                    continue
                if tiles is not None:
                    tiles.set(b, plane)
                pops[b] = np.count_nonzero(plane)
            if pops[b] == 0:
                self.finish_empty(soup)
                keep[b] = False
                continue
            soup.pops.append(int(pops[b]))
            if soup.gen >= self.max_gens:
                self.finish_unstable(soup, plane_of(b))
                keep[b] = False
                continue
            if self.settled(soup, functools.partial(plane_of, b)):
                keep[b] = False
        tier.keep(keep)
        return outgrown


class _Tier:
    """A batch of planes of one size: cells ``(B, size, size)`` and the soups on them; or, with
    ``tiles``, the planes held there (as lane tiles, :mod:`.tiled_tier`, or on the engine's device,
    :mod:`.device_tier`) and ``cells`` unused."""

    def __init__(self, size: int, capacity: int, tiles: TiledPlanes | DevicePlanes | None = None):
        self.size = size
        self.capacity = capacity
        self.cells = np.zeros((0, size, size), dtype=np.uint8)
        self.tiles = tiles
        self.soups: list[_Soup] = []
        self.pending: list[tuple[_Soup, np.ndarray]] = []

    def admit(self) -> None:
        """Place pending soups (cropped cells) in the middle of fresh planes."""
        room = self.capacity - len(self.soups)
        if not self.pending or room <= 0:
            return
        fresh, self.pending = self.pending[:room], self.pending[room:]
        size = self.size
        block = np.zeros((len(fresh), size, size), dtype=np.uint8)
        for k, (soup, content) in enumerate(fresh):
            h, w = content.shape
            top, left = (size - h) // 2, (size - w) // 2
            block[k, top : top + h, left : left + w] = content
            self.soups.append(soup)
        if self.tiles is not None:
            for plane in block:
                self.tiles.append(plane)
        else:
            self.cells = np.concatenate([self.cells, block]) if len(self.cells) else block

    @property
    def occupied(self) -> int:
        """How many soups run in this tier."""
        return len(self.soups)

    def keep(self, mask: np.ndarray) -> None:
        if not mask.all():
            if self.tiles is not None:
                self.tiles.keep(mask)
            else:
                self.cells = self.cells[mask]
            self.soups = [s for s, k in zip(self.soups, mask, strict=True) if k]


def _ships_clear(states: list, info: list, reach: int) -> bool:
    """True when every spaceship has all other objects behind it (it can never hit them).
    ``states``, ``info``: the objects' ``(cells, origin)`` and behaviours (:meth:`.Splitter.resolve`)."""
    found = list(zip(states, info, strict=True))
    ships = [(s, b) for s, b in found if b is not None and b.kind == "spaceship"]
    if not ships:
        return True
    gap = 2 * reach + 1
    for ship, behaviour in ships:
        sy, sx = np.nonzero(ship[0])
        sy, sx = sy + ship[1][1], sx + ship[1][0]
        rest = [s for s, b in found if s is not ship and b is not None and b.displacement != behaviour.displacement]
        if not rest:
            continue
        oy = np.concatenate([np.nonzero(s[0])[0] + s[1][1] for s in rest])
        ox = np.concatenate([np.nonzero(s[0])[1] + s[1][0] for s in rest])
        dx, dy = behaviour.displacement
        away = (
            (dx < 0 and ox.min() > sx.max() + gap)
            or (dx > 0 and ox.max() < sx.min() - gap)
            or (dy < 0 and oy.min() > sy.max() + gap)
            or (dy > 0 and oy.max() < sy.min() - gap)
        )
        if not away:
            return False
    return True


def _recentre(plane: np.ndarray, box: tuple[int, int, int, int], guard: int) -> bool:
    """What :meth:`_Search.clear_band` does with what is left in ``box`` ``(top, left, bottom,
    right)`` (``bottom < 0``: nothing): nothing when it lies outside the guard band, else move it to
    the middle of the plane; False when it is too wide to leave the band empty."""
    y0, x0, y1, x1 = (int(v) for v in box)
    size = plane.shape[0]
    if y1 < 0 or (y0 >= guard and y1 < size - guard and x0 >= guard and x1 < size - guard):
        return True
    h, w = y1 - y0 + 1, x1 - x0 + 1
    if h > size - 2 * guard - 2 or w > size - 2 * guard - 2:
        return False
    content = plane[y0 : y1 + 1, x0 : x1 + 1].copy()
    plane[:] = 0
    top, left = (size - h) // 2, (size - w) // 2
    plane[top : top + h, left : left + w] = content
    return True


def _heading_out(displacement: tuple[int, int], box: np.ndarray, size: int, guard: int) -> bool:
    """True when a ship moving ``displacement`` per period, inside ``box`` ``(top, left, bottom,
    right)``, lies in the guard band of an edge it heads for."""
    dx, dy = displacement
    top, left, bottom, right = box.tolist()
    return ((dx < 0 and left < guard) or (dx > 0 and right >= size - guard)
            or (dy < 0 and top < guard) or (dy > 0 and bottom >= size - guard))


def soup_search(
    count: int,
    rule: str | Rule | None = None,
    *,
    seed: int | str | None = 0,
    density: float = 0.5,
    max_gens: int = 20000,
    batch: int = 256,
    backend: str = "auto",
    device: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    grids: np.ndarray | None = None,
) -> SoupSearchResult:
    """Run ``count`` random 16x16 soups of ``density`` under a two-state ``rule`` and census their ash.

    Soup ``i`` is a pure function of ``(seed, i, density)``: ``hashsoups(seed, i, i + 1, density)``
    (:mod:`.hashsoup`; at density 0.5, apgsearch's soup ``i`` of root ``str(seed)``), the soup
    :func:`.distributed.soup_census` gives index ``i`` on any number of workers, so the two censuses
    agree. ``seed``: a non-negative integer or apgsearch's root string; ``None`` draws a 32-bit seed,
    reported as ``result.seed`` so the run can be repeated. ``backend="auto"`` lets the cost model pick the engine
    for this many soups (:func:`pick_engine`). ``progress(finished, count)`` is called each time a
    soup starts and once at the end. ``grids``: run these ``(N, h, w)`` starting grids instead of
    random soups (``count`` is then ignored). Ctrl-C raises :class:`SearchInterrupted` (a ``KeyboardInterrupt``) whose
    ``result`` is the census of the soups finished so far.
    """
    grids, count = _check_arguments(count, density, max_gens, grids)
    rule_value = resolve(rule)[0]
    if rule_value.n_states != 2:
        raise RuleError(f"soup search needs a two-state rule; this one has {rule_value.n_states} states",
                        rule_value.canonical())
    if seed is None:
        seed = secrets.randbits(32)
    root = check_seed(seed)  # soups by (seed, index) alone: the same as soup_census's on any workers
    engine, chosen = pick_engine(rule_value, backend, device, count=count, batch=max(1, batch), max_gens=max_gens)
    search = _Search(rule_value, engine, chosen, max(1, batch), max_gens)
    search.seed = seed
    issued = [0]
    began = _clock()

    def source() -> tuple[_Soup, np.ndarray] | None:
        if issued[0] >= count:
            return None
        if progress is not None:
            progress(search.finished, count)
        if grids is not None:
            cells = grids[issued[0]]
        else:
            cells = hashsoups(root, issued[0], issued[0] + 1, density)[0]
        soup = _Soup(issued[0])
        issued[0] += 1
        return soup, cells

    try:
        search.run(source)
    except KeyboardInterrupt as exc:
        partial = _result(search, search.finished, _clock() - began, interrupted=True)
        raise SearchInterrupted(partial) from exc
    if progress is not None:
        progress(count, count)
    return _result(search, count, _clock() - began)


def _check_arguments(count: int, density: float, max_gens: int,
                     grids: np.ndarray | None) -> tuple[np.ndarray | None, int]:
    """``(grids as uint8 or None, soup count)``; :class:`UsageError` / :class:`GridError` for bad values."""
    if grids is not None:
        grids = np.asarray(grids, dtype=np.uint8)
        if grids.ndim != 3 or grids.shape[1] > FIRST_PLANE // 2 or grids.shape[2] > FIRST_PLANE // 2:
            raise GridError(f"grids must be (N, h, w) with h, w <= {FIRST_PLANE // 2}, got shape {grids.shape}")
        count = len(grids)
    if count < 0:
        raise UsageError(f"soup count must be non-negative, got {count}")
    if not 0.0 <= density <= 1.0:
        raise UsageError(f"density must lie in [0, 1], got {density}")
    if max_gens < 1:
        raise UsageError(f"max_gens must be positive, got {max_gens}")
    return grids, count


def _result(search: _Search, soups: int, seconds: float, interrupted: bool = False) -> SoupSearchResult:
    return SoupSearchResult(
        counts=sorted_counts(search.counts),
        soups=soups,
        seconds=seconds,
        generations=search.generations,
        unstable=search.unstable,
        engine=search.engine.name,
        device=search.device,
        rule=search.rule.canonical(),
        escaped=search.escaped,
        promoted=search.promoted,
        interrupted=interrupted,
        seed=search.seed,
        samples={code: list(kept) for code, kept in sorted(search.samples.items())},
        phases=dict(search.phases),
    )
