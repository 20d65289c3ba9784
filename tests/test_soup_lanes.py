"""Soups kept in lanes: the packed-word kernels against plain NumPy, the lane tier against the
generic search soup by soup, the connected-island and nearest-group kernels against brute force,
and the escaping-glider bet against the soup run on a plane wide enough to need none."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from tensorca.analysis import census
from tensorca.analysis.labels import (
    close_pairs,
    island_crops,
    label_islands,
    live_positions,
    nearest_group,
    table_period,
)
from tensorca.analysis.objects import UNRESOLVED
from tensorca.engines import get_engine
from tensorca.engines.bitpack.lanes import pack_lanes
from tensorca.rules import parse_rule
from tensorca.search import lane_tier, soups, tiled_tier
from tensorca.search.band_kernels import LINK, band_islands, blocking_islands, scan_planes
from tensorca.search.lane_kernels import extract_plane, insert_plane, scan_groups, update_plane
from tensorca.topology import Topology


def _lanes(cells: np.ndarray) -> np.ndarray:
    batch, h, w = cells.shape
    lanes = np.zeros((-(-batch // 64), h + 2, w + 2), dtype=np.uint64)
    pack_lanes(cells, lanes)
    return lanes


@pytest.mark.parametrize("batch", [1, 64, 100])
def test_scan_gives_each_planes_population_and_band(batch):
    rng = np.random.default_rng(batch)
    cells = np.zeros((batch, 40, 40), dtype=np.uint8)
    cells[:, 8:32, 8:32] = rng.random((batch, 24, 24)) < 0.3
    for b in range(batch):  # a cell on the inner edge of the band (b % 3 == 0) or just inside it
        edge = [(3, 20), (36, 20), (20, 3), (20, 36)] if b % 3 == 0 else [(4, 20), (35, 20), (20, 4), (20, 35)]
        y, x = edge[b % 4]
        cells[b, y, x] = 1
    lanes = _lanes(cells)
    pops, band, differ, snapshot = _scan(lanes, np.zeros_like(lanes), 4)
    assert pops.reshape(-1)[:batch].tolist() == cells.sum(axis=(1, 2)).tolist()
    assert np.array_equal(snapshot, lanes)
    assert lane_tier._bits(differ)[:batch].tolist() == (cells.sum(axis=(1, 2)) > 0).tolist()
    inner = np.zeros((40, 40), dtype=bool)
    inner[4:36, 4:36] = True
    expected = [(cells[b] & ~inner).any() for b in range(batch)]
    assert lane_tier._bits(band)[:batch].tolist() == expected
    assert expected[:4] == [True, False, False, True][: min(4, batch)]


def test_scan_counts_full_planes_past_every_counter_flush():
    """A 256^2 plane full in every lane: 256 rows a column (9 bits), 65,536 cells a lane; a lone
    cell elsewhere counts once and only in its lane."""
    lanes = np.zeros((2, 258, 258), dtype=np.uint64)
    lanes[0, 1:257, 1:257] = np.uint64(2**64 - 1)
    lanes[1, 200, 3] = np.uint64(1 << 5)
    pops, band, _, _ = _scan(lanes, lanes.copy(), 4)
    assert set(pops[0].tolist()) == {256 * 256}
    assert pops[1].tolist() == [1 if lane == 5 else 0 for lane in range(64)]
    assert band.tolist() == [2**64 - 1, 1 << 5]


def test_update_plane_writes_only_the_changes():
    rng = np.random.default_rng(4)
    cells = (rng.random((70, 12, 9)) < 0.5).astype(np.uint8)
    lanes = _lanes(cells)
    before = cells[66]
    after = np.roll(before, 2, axis=1)
    after[3, 4] ^= 1
    snapshot = lanes.copy()
    update_plane(lanes, snapshot, 1, 2, before, after)  # plane 66, in both
    out = np.zeros((12, 9), dtype=np.uint8)
    for b in range(70):
        extract_plane(lanes, b // 64, b % 64, out)
        assert np.array_equal(out, after if b == 66 else cells[b])
    assert np.array_equal(snapshot, lanes)
    update_plane(lanes, lanes, 1, 2, after, before)  # one array passed twice: edited once
    extract_plane(lanes, 1, 2, out)
    assert np.array_equal(out, before)


def _scan(lanes: np.ndarray, snapshot: np.ndarray, guard: int):
    """scan_groups' ``(pops, band, differ)`` and the snapshot it leaves."""
    pops = np.zeros((len(lanes), 64), dtype=np.int64)
    band = np.zeros(len(lanes), dtype=np.uint64)
    differ = np.zeros(len(lanes), dtype=np.uint64)
    snapshot = snapshot.copy()
    scan_groups(lanes, snapshot, guard, pops, band, differ)
    return pops, band, differ, snapshot


def test_scan_finds_the_planes_that_differ_and_extract_insert_round_trip():
    rng = np.random.default_rng(1)
    cells = (rng.random((70, 12, 9)) < 0.5).astype(np.uint8)
    lanes = _lanes(cells)
    snapshot = lanes.copy()
    insert_plane(lanes, lanes, 1, 3, np.ones((2, 2), dtype=np.uint8), 5, 6)  # plane 67 replaced
    out = np.zeros((12, 9), dtype=np.uint8)
    extract_plane(lanes, 1, 3, out)
    expected = np.zeros((12, 9), dtype=np.uint8)
    expected[5:7, 6:8] = 1
    assert np.array_equal(out, expected)
    extract_plane(lanes, 0, 5, out)
    assert np.array_equal(out, cells[5])
    differ = _scan(lanes, snapshot, 2)[2]
    assert np.flatnonzero(lane_tier._bits(differ)).tolist() == [67]
    snapshot[0, 7, 1] ^= np.uint64(1 << 63)  # the frame counts too: plane 63, cell (6, -1)
    snapshot[1, 12, 9] ^= np.uint64(1 << 2)  # plane 66, cell (11, 8), the last
    assert np.flatnonzero(lane_tier._bits(_scan(lanes, snapshot, 2)[2])).tolist() == [63, 66, 67]


def _components(cells: np.ndarray, link: int) -> set[frozenset]:
    """Brute-force islands: cells chained by Chebyshev steps of at most ``link``."""
    live = [tuple(p) for p in np.argwhere(cells)]
    left, found = set(live), set()
    while left:
        todo = [left.pop()]
        island = set(todo)
        while todo:
            y, x = todo.pop()
            near = {p for p in left if max(abs(p[0] - y), abs(p[1] - x)) <= link}
            left -= near
            island |= near
            todo.extend(near)
        found.add(frozenset(island))
    return found


@pytest.mark.parametrize("link", [1, 3])
def test_label_islands_matches_brute_force(link):
    rng = np.random.default_rng(link)
    cells = (rng.random((23, 31)) < 0.08).astype(np.uint8)
    labels, n = label_islands(cells, link)
    got = {frozenset(map(tuple, np.argwhere(labels == k))) for k in range(1, n + 1)}
    assert got == _components(cells, link) and (labels > 0).sum() == cells.sum()
    firsts = [tuple(np.argwhere(labels == k)[0]) for k in range(1, n + 1)]
    assert firsts == sorted(firsts)  # numbered in raster order of their first cells


@pytest.mark.parametrize("shape", [(23, 31), (64, 64), (5, 3)])
def test_island_crops_and_live_positions_match_brute_force(shape):
    rng = np.random.default_rng(shape[0])
    cells = (rng.random(shape) < 0.1).astype(np.uint8) * rng.integers(1, 4, size=shape).astype(np.uint8)
    assert live_positions(cells).tolist() == np.flatnonzero(cells).tolist()
    assert live_positions(cells[:, 1:]).tolist() == np.flatnonzero(cells[:, 1:]).tolist()  # not contiguous
    big = np.zeros((1100, 1000), dtype=np.uint8)  # past ROOM_FOR_ALL: counted first
    big[::97, ::89] = 1
    assert live_positions(big).tolist() == np.flatnonzero(big).tolist()
    labels, n = label_islands(cells, 1)
    buffer, boxes = island_crops(cells)
    assert len(boxes) == n
    offset = 0
    for k, (top, left, h, w) in enumerate(boxes.tolist(), start=1):
        mine = labels == k
        ys, xs = np.nonzero(mine)
        assert (top, left, h, w) == (ys.min(), xs.min(), ys.max() - ys.min() + 1, xs.max() - xs.min() + 1)
        expected = np.where(mine, cells, 0)[top : top + h, left : left + w]  # its own cells, states kept
        assert np.array_equal(buffer[offset : offset + h * w].reshape(h, w), expected)
        offset += h * w
    assert offset == len(buffer)


def test_close_pairs_match_brute_force():
    rng = np.random.default_rng(5)
    corners = rng.integers(0, 40, size=(30, 2))
    sizes = rng.integers(1, 6, size=(30, 2))
    boxes = np.concatenate([corners, corners + sizes], axis=1).astype(np.int64)
    usable = rng.random(30) < 0.8
    for near in (0, 2, 4):
        expected = [(i, j) for i in range(30) for j in range(i + 1, 30) if usable[i] and usable[j]
                    and boxes[i, 0] - near < boxes[j, 2] and boxes[j, 0] - near < boxes[i, 2]
                    and boxes[i, 1] - near < boxes[j, 3] and boxes[j, 1] - near < boxes[i, 3]]
        assert [tuple(p) for p in close_pairs(boxes, usable, near).tolist()] == expected


@pytest.mark.parametrize("rule", ["B3/S23", "B36/S23", "B2-a/S12"])
def test_table_period_equals_stepping(rule):
    from tensorca.analysis.evolve import Stepper
    from tensorca.crop import crop

    stepper = Stepper(parse_rule(rule))
    rng = np.random.default_rng(7)
    shapes = [np.array([[1, 1], [1, 1]]), np.array([[1, 1, 1]]), np.array([[0, 1, 0], [0, 0, 1], [1, 1, 1]])]
    shapes += [crop((rng.random((6, 6)) < 0.4).astype(np.uint8))[0] for _ in range(40)]
    for cells in shapes:
        cells = np.asarray(cells, dtype=np.uint8)
        if cells.size == 0:
            continue
        expected, state = (0, (0, 0)), (cells, (0, 0))
        for gen in range(1, 41):
            state = stepper.step(state)
            if state[0].size == 0:
                break
            if state[0].shape == cells.shape and np.array_equal(state[0], cells):
                expected = (gen, state[1])
                break
        period, dx, dy = table_period(np.ascontiguousarray(cells), stepper._table, 40)
        assert (period, (dx, dy)) == expected


@pytest.mark.parametrize("shape", [(5, 40, 40), (3, 33, 21), (2, 7, 5)])
def test_scan_planes_gives_populations_and_bands(shape):
    rng = np.random.default_rng(shape[1])
    cells = (rng.random(shape) < 0.02).astype(np.uint8)
    cells[0] = 0
    cells[-1, shape[1] // 2, shape[2] // 2] = 1
    guard = 3
    pops, band = scan_planes(cells, guard)
    inner = np.zeros(shape[1:], dtype=bool)
    inner[guard:-guard, guard:-guard] = True
    assert pops.tolist() == np.count_nonzero(cells, axis=(1, 2)).tolist()
    assert band.tolist() == [bool((plane.astype(bool) & ~inner).any()) for plane in cells]


def test_band_islands_and_blockers_match_brute_force():
    rng = np.random.default_rng(11)
    plane = (rng.random((48, 48)) < 0.05).astype(np.uint8)
    labels, boxes, counts, in_band, positions = band_islands(plane, 6)
    assert np.array_equal(labels, label_islands(plane, LINK)[0])
    assert positions.tolist() == np.flatnonzero(plane).tolist()
    band = np.ones_like(plane, dtype=bool)
    band[6:-6, 6:-6] = False
    order = []
    for y, x in np.argwhere(plane.astype(bool) & band):  # raster order of each island's first band cell
        if labels[y, x] not in order:
            order.append(int(labels[y, x]))
    assert in_band.tolist() == order
    for k in range(1, len(boxes) + 1):
        ys, xs = np.nonzero(labels == k)
        assert boxes[k - 1].tolist() == [ys.min(), xs.min(), ys.max(), xs.max()] and counts[k - 1] == len(ys)
    alive = np.ones(len(boxes) + 1, dtype=np.bool_)
    alive[0] = alive[2] = False
    box = np.array([20, 20, 24, 24], dtype=np.int64)
    for dx, dy in [(-1, -1), (2, 0), (0, 1)]:
        expected = sorted({int(labels[y, x]) for y, x in np.argwhere(plane.astype(bool))
                           if labels[y, x] not in (1, 2)
                           and not ((dx < 0 and x > 24 + 3) or (dx > 0 and x < 20 - 3)
                                    or (dy < 0 and y > 24 + 3) or (dy > 0 and y < 20 - 3))})
        assert blocking_islands(labels, positions, alive, 1, dx, dy, box, 3).tolist() == expected


def test_nearest_group_is_the_lowest_ranked_at_the_least_distance():
    rng = np.random.default_rng(3)
    for _ in range(20):
        ranks = np.zeros((20, 20), dtype=np.int32)
        points = rng.integers(0, 20, size=(12, 2))
        ranks[points[:, 0], points[:, 1]] = rng.integers(1, 5, size=12)
        own = int(ranks[points[0, 0], points[0, 1]]) - 1
        ys, xs = np.nonzero(ranks == own + 1)
        best, expected = None, -1
        for y, x in np.argwhere((ranks > 0) & (ranks != own + 1)):
            d = int(np.min(np.maximum(np.abs(ys - y), np.abs(xs - x))))
            key = (d, ranks[y, x] - 1)
            if d <= 6 and (best is None or key < best):
                best, expected = key, int(ranks[y, x]) - 1
        assert nearest_group(ranks, ys.astype(np.int64), xs.astype(np.int64), own, 6) == expected


def _per_soup(monkeypatch, grids, rule, lanes: bool, dense_at_most: int | None = None,
              when: bool = False, tiles: bool = True) -> dict[int, Counter]:
    """Each soup's census (and, with ``when``, the generation it was censused at as ``"gen"``);
    ``tiles=False`` keeps the wide tiers' planes as cells (the engine packs them each chunk)."""
    seen: dict[int, Counter] = {}
    record = soups._Search.record

    def logged(self, soup, codes):
        seen.setdefault(soup.index, Counter()).update(codes + ([f"gen {soup.gen}"] if when else []))
        record(self, soup, codes)

    with monkeypatch.context() as patch:
        patch.setattr(soups._Search, "record", logged)
        if not lanes:
            patch.setattr(soups, "lane_module_for", lambda rule: None)
        if dense_at_most is not None:
            patch.setattr(soups, "DENSE_AT_MOST", dense_at_most)
        if not tiles:
            patch.setattr(soups, "tiled_planes_fit", lambda size: False)
        result = soups.soup_search(0, rule, grids=grids, backend="bitpack-cpu", batch=64)
    assert (result.engine, result.soups) == ("bitpack-cpu", len(grids))
    return seen


@pytest.mark.parametrize("rule", ["B3/S23", "B36/S23", "B2-a/S12"])
def test_lanes_give_each_soup_the_census_of_the_generic_search(monkeypatch, rule):
    rng = np.random.default_rng(11)
    grids = (rng.random((40, 16, 16)) < 0.5).astype(np.uint8)
    lanes = _per_soup(monkeypatch, grids, rule, lanes=True)
    generic = _per_soup(monkeypatch, grids, rule, lanes=False)
    assert lanes == generic
    assert sum(sum(c.values()) for c in lanes.values()) > 5 * len(grids)


def test_the_wide_tiers_kept_as_lane_tiles_keep_each_soups_census(monkeypatch):
    """Soups 322 and 397 of seed 1 outgrow the 256-wide lanes: on 512-wide planes kept as lane
    tiles between chunks they get the census (and the generation) of planes the engine packs and
    unpacks every chunk."""
    rng = np.random.default_rng(1)
    draws = [(rng.random((16, 16)) < 0.5).astype(np.uint8) for _ in range(398)]
    grids = np.stack([draws[i] for i in (322, 397, 0, 5)])
    added = []
    append = tiled_tier.TiledPlanes.append
    monkeypatch.setattr(tiled_tier.TiledPlanes, "append", lambda self, cells: (added.append(self.size),
                                                                                append(self, cells)))
    tiled = _per_soup(monkeypatch, grids, "B3/S23", lanes=True, when=True)
    assert added.count(512) == 2
    assert tiled == _per_soup(monkeypatch, grids, "B3/S23", lanes=True, when=True, tiles=False)


@pytest.mark.parametrize("size", [512, 1024])
def test_tiled_planes_step_scan_and_round_trip_as_cells(size):
    """TiledPlanes against the engine on the bounded plane and scan_planes on the cells: live cells
    on every edge and corner, just inside and just outside the guard band."""
    rng = np.random.default_rng(size)
    cells = np.zeros((3, size, size), dtype=np.uint8)
    cells[:, size // 4 : 3 * size // 4, size // 4 : 3 * size // 4] = rng.random((3, size // 2, size // 2)) < 0.3
    for y, x in [(0, 0), (size - 1, size - 1), (19, size // 2), (size // 2, size - 20)]:
        cells[1, y, x] = 1
    for y, x in [(20, size // 2), (size // 2, size - 21), (size - 21, 20)]:
        cells[2, y, x] = 1
    module = lane_tier.lane_module_for(parse_rule("B3/S23"))
    planes = tiled_tier.TiledPlanes(size, module)
    for plane in cells:
        planes.append(plane)
    assert all(np.array_equal(planes.cells(b), cells[b]) for b in range(3))
    pops, band = planes.scan(20)
    want_pops, want_band = scan_planes(cells, 20)
    assert pops.tolist() == want_pops.tolist() and band.tolist() == want_band.tolist() == [False, True, False]
    planes.advance(21)
    want = get_engine("numpy").advance(cells, parse_rule("B3/S23"), Topology.plane(size, size), 21)
    assert all(np.array_equal(planes.cells(b), want[b]) for b in range(3))
    planes.set(0, cells[1])
    planes.keep(np.array([True, False, True]))
    assert len(planes) == 2 and np.array_equal(planes.cells(0), cells[1])


def test_the_last_soups_as_plain_planes_keep_their_census(monkeypatch):
    """Lane tiers turn to plain planes when few soups are left (never, part way, from the start):
    each soup's census, and the generation it is taken at, stay the same."""
    rng = np.random.default_rng(12)
    grids = (rng.random((100, 16, 16)) < 0.5).astype(np.uint8)
    turned = []
    to_dense = lane_tier.LaneTier.to_dense

    def logged(tier, step):
        turned.append((tier.size, tier.occupied))
        to_dense(tier, step)

    monkeypatch.setattr(lane_tier.LaneTier, "to_dense", logged)
    found = {at_most: _per_soup(monkeypatch, grids, "B3/S23", lanes=True, dense_at_most=at_most, when=True)
             for at_most in (0, 12, 10**6)}
    assert found[0] == found[12] == found[10**6]
    assert sum(sum(c.values()) for c in found[0].values()) > 6 * len(grids)
    assert turned and any(0 < n <= 12 for _, n in turned) and any(n > 12 for _, n in turned)


def test_the_lane_tier_finds_a_plane_stable_exactly_lag_generations_after_its_last_edit():
    """A still life, a blinker and a glider in one group: each still life or oscillator whose
    period divides LAG is reported the same exactly LAG generations after it was placed or edited,
    not before; an edit (a block made a beehive) and a slot reused by another soup start the count
    again; the glider never is."""
    module = lane_tier.lane_module_for(parse_rule("B3/S23"))
    tier = lane_tier.LaneTier(128, 64, module)  # room for the glider to run 160 generations
    block = np.ones((2, 2), dtype=np.uint8)
    blinker = np.ones((1, 3), dtype=np.uint8)
    glider = np.array([[0, 1, 0], [0, 0, 1], [1, 1, 1]], dtype=np.uint8)
    tier.pending = [(soups._Soup(k), cells) for k, cells in enumerate([block, blinker, glider])]
    tier.admit()
    depth = lane_tier.LAG // lane_tier.CHUNK
    first_same: dict[int, int] = {}

    def run(chunks: int) -> None:
        for _ in range(chunks):
            same = tier.advance()[2]
            for slot in np.flatnonzero(same[:3]).tolist():
                first_same.setdefault(slot, tier.chunks)

    run(depth + 2)
    assert first_same == {0: depth, 1: depth}
    beehive = np.zeros((128, 128), dtype=np.uint8)
    beehive[20:23, 20:24] = [[0, 1, 1, 0], [1, 0, 0, 1], [0, 1, 1, 0]]
    edited_at = tier.chunks
    tier.write(0, beehive, tier.plane(0))
    tier.release(1)
    tier.pending = [(soups._Soup(3), block)]
    tier.admit()  # slot 1 again, now a block
    first_same.clear()
    run(depth + 2)
    assert first_same == {0: edited_at + depth, 1: edited_at + depth}
    assert np.array_equal(tier.plane(0), beehive) and tier.plane(1).sum() == 4


def test_the_lane_tier_is_used_for_3x3_rules_on_bitpack_cpu(monkeypatch):
    assert lane_tier.lane_module_for(parse_rule("B3/S23")) is not None
    assert lane_tier.lane_module_for(parse_rule("R2,C2,M1,S2..5,B3..4,NM")) is None
    chunks = []

    def counted(search, tier):
        chunks.append(tier.size)
        return lane_tier.run_lane_tier(search, tier)

    monkeypatch.setattr(soups, "run_lane_tier", counted)
    soups.soup_search(3, "B3/S23", seed=4, backend="bitpack-cpu")
    assert chunks and set(chunks) <= {128, 256}
    chunks.clear()
    soups.soup_search(3, "B3/S23", seed=4, backend="numpy")
    assert chunks == []  # other engines keep the generic path


@pytest.mark.parametrize("behind", [soups.ESCAPE_GAP, soups.ESCAPE_GAP + 1])
def test_a_glider_leaves_only_with_everything_else_escape_gap_behind(behind):
    """A glider heading up-left through the top band, a block ``behind`` cells to its right: the
    block blocks the escape unless it lies more than ESCAPE_GAP cells behind."""
    search = soups._Search(parse_rule("B3/S23"), get_engine("numpy"), "cpu", 1, 1000)
    plane = np.zeros((128, 128), dtype=np.uint8)
    plane[[2, 2, 3, 3, 4], [40, 41, 40, 42, 40]] = 1  # a glider moving (-1, -1)
    plane[3:5, 42 + behind : 44 + behind] = 1  # a block `behind` columns right of the glider's last
    soup = soups._Soup(0)
    assert search.clear_band(soup, plane, 10)
    leaves = behind > soups.ESCAPE_GAP
    assert dict(soup.escaped) == ({"xq4_153": 1} if leaves else {})
    assert int(plane.sum()) == (4 if leaves else 9)
    # what stays is re-centred out of the band
    ys, xs = np.nonzero(plane)
    assert ys.min() >= 10 and xs.min() >= 10 and ys.max() < 118 and xs.max() < 118


def test_the_lone_ship_shortcut_decides_as_the_island_loop(monkeypatch):
    """clear_band first tries one glider alone in the band with everything behind it; with that
    shortcut off (every call through the island loop) each soup's census and generation are the same."""
    rng = np.random.default_rng(13)
    grids = (rng.random((80, 16, 16)) < 0.5).astype(np.uint8)
    taken = []
    lone = soups.lone_band_island

    def logged(plane, guard, limit):
        found = lone(plane, guard, limit)
        taken.append(found[3] > 0)
        return found

    monkeypatch.setattr(soups, "lone_band_island", logged)
    fast = _per_soup(monkeypatch, grids, "B3/S23", lanes=True, when=True)
    monkeypatch.setattr(soups, "lone_band_island",
                        lambda plane, guard, limit: (*lone(plane, guard, limit)[:3], -1))
    slow = _per_soup(monkeypatch, grids, "B3/S23", lanes=True, when=True)
    assert fast == slow and sum(taken) > 20


def test_a_lone_glider_with_everything_behind_leaves_at_once():
    search = soups._Search(parse_rule("B3/S23"), get_engine("numpy"), "cpu", 1, 1000)
    for block_row, leaves in ((40, True), (12, False)):  # 12: inside the plane, but not 12 rows behind
        plane = np.zeros((128, 128), dtype=np.uint8)
        plane[[2, 2, 3, 3, 4], [40, 41, 40, 42, 40]] = 1  # a glider moving (-1, -1)
        plane[block_row : block_row + 2, 50:52] = 1
        soup = soups._Soup(0)
        assert search.clear_band(soup, plane, 10)
        assert dict(soup.escaped) == ({"xq4_153": 1} if leaves else {})
        assert int(plane.sum()) == (4 if leaves else 9)


@pytest.mark.parametrize(("block_at", "clear"), [((1, 1), True), ((1, 30), True), ((10, 5), True),
                                                   ((30, 30), False), ((12, 30), False), ((11, 8), False)])
def test_a_census_takes_ash_with_a_ship_only_when_all_else_lies_behind_it(block_at, clear):
    """A glider heading down and right (+1, +1) at rows/columns 12-14 with a block: the ash counts as
    settled when the block lies more than 2 * reach + 1 = 3 cells behind the glider on some axis it
    moves along (above it or left of it), not when it lies ahead, alongside, or behind but closer."""
    from tensorca.analysis.census import splitter_for

    ash = np.zeros((40, 40), dtype=np.uint8)
    ash[12:15, 12:15] = [[0, 1, 0], [0, 0, 1], [1, 1, 1]]
    y, x = block_at
    ash[y : y + 2, x : x + 2] = 1
    states, info = splitter_for(parse_rule("B3/S23")).resolve((ash, (0, 0)))
    assert sorted(b.apgcode for b in info) == ["xq4_153", "xs4_33"]
    assert soups._ships_clear(states, info, 1) is clear


def test_a_glider_heading_inwards_stays():
    search = soups._Search(parse_rule("B3/S23"), get_engine("numpy"), "cpu", 1, 1000)
    plane = np.zeros((128, 128), dtype=np.uint8)
    plane[[2, 3, 4, 4, 4], [41, 42, 40, 41, 42]] = 1  # a glider moving (1, 1), into the plane
    soup = soups._Soup(0)
    assert search.clear_band(soup, plane, 10)
    assert not soup.escaped and int(plane.sum()) == 5


def _searched_and_alone(index: int, side: int, generations: int) -> tuple[dict, soups.SoupSearchResult]:
    """Soup ``index`` of seed 1: its census run alone in the middle of a ``side``^2 plane for
    ``generations`` (wide enough that nothing leaves it), and the soup search's result for it."""
    rng = np.random.default_rng(1)
    soup = [(rng.random((16, 16)) < 0.5).astype(np.uint8) for _ in range(index + 1)][index]
    plane = np.zeros((1, side, side), dtype=np.uint8)
    plane[0, side // 2 - 8 : side // 2 + 8, side // 2 - 8 : side // 2 + 8] = soup
    ash = get_engine("bitpack-cpu").advance(plane, parse_rule("B3/S23"), Topology.plane(side, side), generations)[0]
    return census(ash, "B3/S23"), soups.soup_search(0, "B3/S23", grids=soup[None], backend="bitpack-cpu")


def test_the_census_of_a_soup_that_throws_gliders_is_its_own():
    """Soup 119 of seed 1 throws a glider that, removed 3 cells ahead of the growing soup (the old
    gap), was caught; the census equals the soup's own on a plane wide enough that nothing leaves it."""
    truth, found = _searched_and_alone(119, 1024, 1200)
    assert found.counts == truth and found.escaped == truth["xq4_153"] == 3


def test_a_lightweight_spaceship_whose_phase_falls_apart_still_leaves():
    """Soup 6 of seed 1 throws a lightweight spaceship; in one of its phases a cell stands apart
    (two 8-connected islands), and when band islands were 8-connected it was never recognised, so
    the soup grew past the widest plane and was censused as unstable. Its census now equals the
    soup's own on a plane wide enough that nothing leaves it."""
    truth, found = _searched_and_alone(6, 4096, 1800)
    assert found.unstable == 0 and found.counts == truth and truth["xq4_6frc"] == 1


@pytest.mark.parametrize("rule", ["B3/S23", "B2-a/S12", "B36/S23", "B1/S1"])
def test_the_small_stepper_equals_the_numpy_table_step(rule):
    from tensorca.analysis.evolve import Stepper
    from tensorca.crop import crop

    stepper = Stepper(parse_rule(rule))
    rng = np.random.default_rng(0)
    for _ in range(100):
        cells, origin = crop((rng.random(tuple(rng.integers(1, 12, size=2))) < 0.4).astype(np.uint8), (3, -2))
        if cells.size == 0:
            continue
        got = stepper.step((cells, origin))
        expected = crop(stepper._step_table(cells), (origin[0] - 1, origin[1] - 1))
        assert got[1] == expected[1] and np.array_equal(got[0], expected[0])


def test_the_island_fast_path_splits_as_the_general_one():
    from tensorca.analysis.census import splitter_for

    splitter = splitter_for(parse_rule("B3/S23"))
    rng = np.random.default_rng(2)
    engine, rule = get_engine("numpy"), parse_rule("B3/S23")
    for k in range(12):
        plane = np.zeros((1, 96, 96), dtype=np.uint8)
        plane[0, 40:56, 40:56] = rng.random((16, 16)) < 0.5
        ash = engine.advance(plane, rule, Topology.plane(96, 96), 300 + 40 * k)[0]
        fast = splitter.split((ash, (3, -7)))
        slow = [(b.apgcode if b else UNRESOLVED, s[1], s[0].tobytes())
                for s, b in zip(*splitter._split_groups((ash, (3, -7))), strict=True)]
        assert [(f.apgcode, f.origin, f.cells.tobytes()) for f in fast] == slow
        states, info = splitter.resolve((ash, (3, -7)))  # split is resolve, as Found objects
        assert [(f.cells.tobytes(), f.origin, f.behaviour) for f in fast] == \
            [(s[0].tobytes(), s[1], b) for s, b in zip(states, info, strict=True)]


def test_splitting_does_not_depend_on_where_the_ash_lies():
    from tensorca.analysis.census import splitter_for

    ash = np.zeros((14, 16), dtype=np.uint8)
    ash[0:2, 0:2] = 1  # block
    ash[1, 6:9] = 1  # blinker
    ash[1, 12:15] = 1  # blinker
    ash[8, 1:3] = ash[10, 1:3] = ash[9, 0] = ash[9, 3] = 1  # beehive
    ash[9:12, 10:13] = [[0, 1, 0], [0, 0, 1], [1, 1, 1]]  # glider
    splitter = splitter_for(parse_rule("B3/S23"))
    here = Counter(f.apgcode for f in splitter.split((ash, (0, 0))))
    assert here == {"xs4_33": 1, "xp2_7": 2, "xs6_696": 1, "xq4_153": 1}
    for origin in [(-50, -70), (13, -2), (-1, 40)]:
        assert Counter(f.apgcode for f in splitter.split((ash, origin))) == here


def test_device_planes_step_scan_and_round_trip_as_cells():
    """DevicePlanes (the tiers an engine on a GPU keeps on its device) against the engine on the
    bounded plane and scan_planes on the cells, here with the torch engine on CPU tensors: live
    cells on every edge and corner, just inside and just outside the guard band; staged planes,
    set, keep."""
    torch = pytest.importorskip("torch")
    from tensorca.search import device_tier

    size, rule = 128, parse_rule("B3/S23")
    rng = np.random.default_rng(3)
    cells = np.zeros((3, size, size), dtype=np.uint8)
    cells[:, 32:96, 32:96] = rng.random((3, 64, 64)) < 0.3
    for y, x in [(0, 0), (size - 1, size - 1), (19, size // 2), (size // 2, size - 20)]:
        cells[1, y, x] = 1
    for y, x in [(20, size // 2), (size // 2, size - 21), (size - 21, 20)]:
        cells[2, y, x] = 1
    engine = get_engine("torch")
    planes = device_tier.DevicePlanes(size, lambda p, g: engine.advance(p, rule, Topology.plane(size, size), g), "cpu")
    for plane in cells[:2]:
        planes.append(plane)
    assert len(planes) == 2 and np.array_equal(planes.cells(1), cells[1])
    planes.append(cells[2])  # staged after the first copy
    got = planes.cells(0)
    got[:] = 1  # a host copy, never a view of the tensor
    assert all(np.array_equal(planes.cells(b), cells[b]) for b in range(3))
    pops, band = planes.scan(20)
    want_pops, want_band = scan_planes(cells, 20)
    assert pops.tolist() == want_pops.tolist() and band.tolist() == want_band.tolist() == [False, True, False]
    planes.advance(21)
    want = get_engine("numpy").advance(cells, rule, Topology.plane(size, size), 21)
    assert all(np.array_equal(planes.cells(b), want[b]) for b in range(3))
    assert isinstance(planes._planes, torch.Tensor)
    planes.set(0, cells[1])
    planes.keep(np.array([True, False, True]))
    assert len(planes) == 2 and np.array_equal(planes.cells(0), cells[1]) and np.array_equal(planes.cells(1), want[2])
    assert device_tier.runs_on_device(get_engine("torch"), "cuda:0")
    assert not device_tier.runs_on_device(get_engine("torch"), "cpu")
    assert not device_tier.runs_on_device(get_engine("numpy"), "cuda")


def test_tiers_kept_on_the_device_keep_each_soups_census(monkeypatch):
    """A search whose engine runs on a device keeps every tier there (here the torch engine, its
    'device' the CPU): each soup's census and the generation it is taken at are those of planes
    copied to the engine and back every chunk; soups 322 and 397 of seed 1 reach the 512 tier."""
    pytest.importorskip("torch")
    from tensorca.search import device_tier

    rng = np.random.default_rng(1)
    draws = [(rng.random((16, 16)) < 0.5).astype(np.uint8) for _ in range(398)]
    grids = np.stack([draws[i] for i in (322, 397, 0, 5, 7, 9)])

    def census(resident: bool) -> tuple[dict[int, Counter], Counter]:
        seen: dict[int, Counter] = {}
        record = soups._Search.record
        sizes: Counter = Counter()
        append = device_tier.DevicePlanes.append

        def logged(self, soup, codes):
            seen.setdefault(soup.index, Counter()).update(codes + [f"gen {soup.gen}"])
            record(self, soup, codes)

        with monkeypatch.context() as patch:
            patch.setattr(soups._Search, "record", logged)
            patch.setattr(soups, "runs_on_device", lambda engine, device: resident)
            patch.setattr(device_tier.DevicePlanes, "append",
                          lambda self, cells: (sizes.update([self.size]), append(self, cells)))
            result = soups.soup_search(0, "B3/S23", grids=grids, backend="torch", batch=8)
        assert (result.engine, result.soups) == ("torch", len(grids))
        return seen, sizes

    resident, sizes = census(True)
    copied, none = census(False)
    assert resident == copied and not none
    assert sizes[128] == len(grids) and sizes[256] >= 2 and sizes[512] == 2
