"""HashLife core: Golly's populations at astronomical generation counts, parity with the dense
reference on the unbounded plane for any two-state 3x3 rule, memory discipline, refusals."""

from __future__ import annotations

import base64
import functools
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")  # HashLife is compiled with Numba (the [fast] extra)

import tensorca  # noqa: E402
from tensorca.errors import EngineError, GridError, MemoryBudgetError, PatternError, UsageError  # noqa: E402
from tensorca.hashlife import HashLife, Universe  # noqa: E402

DATA = Path(__file__).parent / "data" / "hashlife"
CASES = [json.loads(line) for line in (DATA / "cases.jsonl").read_text().splitlines() if line.strip()]


@functools.cache
def _pattern(name: str) -> tensorca.Pattern:
    return tensorca.load(DATA / name)


def _universe(name: str, **kwargs) -> Universe:
    pattern = _pattern(name)
    return Universe.from_cells(pattern.cells, "B3/S23", origin=pattern.origin, **kwargs)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['pattern']}@{c['generations']}")
def test_golly_population(case):
    u = _universe(case["pattern"]).step(case["generations"])
    assert u.generation == case["generations"]
    assert u.population == case["population"]
    assert type(u.population) is int


def test_r_pentomino_stabilises_at_1103():
    u = _universe("r_pentomino.rle")
    u.step(1102)
    before = u.population
    u.step(1)
    assert (before, u.population) != (116, 116) and u.population == 116


def test_population_past_2_64_is_exact():
    u = _universe("switch_engine_breeder.rle").step(2**40)
    assert u.population == 839_531_819_674_660_247_952 > 2**64


def _map_rule(seed: int) -> str:
    """A random MAP rule without B0 (index 0 stays dead)."""
    bits = np.random.default_rng(seed).integers(0, 2, 512)
    bits[0] = 0
    raw = int("".join(map(str, bits)), 2).to_bytes(64, "big")
    return "MAP" + base64.b64encode(raw).decode().rstrip("=")


def _dense(cells: np.ndarray, origin: tuple[int, int], rule: str, n: int):
    """The dense reference on the unbounded plane, cropped: ``(cells, origin)``."""
    out = tensorca.run(tensorca.Pattern(cells, origin=origin), rule, n, backend="numpy").cropped()
    return out.cells, out.origin


@pytest.mark.parametrize("rule", ["B3/S23", "B2-a/S12", "B36/S23H", "B2/S0V", "MAP"])
@pytest.mark.parametrize("gens", [1, 7, 100, 129])
def test_parity_with_dense_reference(rule, gens):
    rule = _map_rule(gens) if rule == "MAP" else rule
    rng = np.random.default_rng(gens)
    cells = (rng.random((12, 10)) < 0.4).astype(np.uint8)
    origin = (-3, 5)
    u = Universe.from_cells(cells, rule, origin=origin).step(gens)
    got, got_origin = u.to_cells()
    want, want_origin = _dense(cells, origin, rule, gens)
    assert got_origin == want_origin and np.array_equal(got, want)
    assert u.population == int(want.sum())
    box = u.bounding_box()
    assert box is None if want.size == 0 else box == (*want_origin, want.shape[1], want.shape[0])


def test_steps_in_pieces_equal_one_step():
    whole = _universe("acorn.rle").step(300)
    parts = _universe("acorn.rle")
    for n in (7, 100, 64, 129):
        parts.step(n)
    assert parts.generation == 300
    assert whole.to_cells()[1] == parts.to_cells()[1]
    assert np.array_equal(whole.to_cells()[0], parts.to_cells()[0])


def test_tiny_budget_collects_garbage_with_identical_results():
    roomy = _universe("switch_engine_breeder.rle").step(3000)
    tight = _universe("switch_engine_breeder.rle", max_bytes=300_000).step(3000)
    assert tight.stats()["gc_runs"] > 0 and roomy.stats()["gc_runs"] == 0
    assert tight.population == roomy.population
    a, b = tight.to_cells(), roomy.to_cells()
    assert a[1] == b[1] and np.array_equal(a[0], b[0])


def test_budget_too_small_raises():
    with pytest.raises(MemoryBudgetError, match="max_bytes"):
        HashLife("B3/S23", max_bytes=1000)
    soup = (np.random.default_rng(1).random((600, 600)) < 0.5).astype(np.uint8)
    with pytest.raises(MemoryBudgetError, match="max_bytes"):
        Universe.from_cells(soup, max_bytes=100_000)
    # the tree fits but one generation of it does not, even after collecting garbage
    u = Universe.from_cells((np.random.default_rng(3).random((200, 200)) < 0.4).astype(np.uint8), max_bytes=50_000)
    with pytest.raises(MemoryBudgetError, match="one generation"):
        u.step(100)
    assert u.generation == 0


@pytest.mark.parametrize("rule", ["B0/S8", "B03/S23", "B0123478/S01234678"])
def test_b0_rules_refused_by_name(rule):
    with pytest.raises(EngineError, match="B0"):
        HashLife(rule)


@pytest.mark.parametrize("rule", ["B3/S23/3", "R2,C0,M1,S2..3,B3..3,NM", "B3/S23:T64,64"])
def test_other_rules_refused(rule):
    with pytest.raises(EngineError):
        HashLife(rule)


def test_to_cells_budget_names_crop():
    u = _universe("gosper_gun.rle").step(1000)
    with pytest.raises(MemoryBudgetError, match="crop"):
        u.to_cells(max_cells=100)


def test_crop_window_matches_to_cells():
    u = _universe("breeder.rle").step(500)
    cells, (x, y) = u.to_cells()
    h, w = cells.shape
    assert np.array_equal(u.crop(x + 5, y - 7, 40, 30)[7:, :], cells[:23, 5:45])
    assert not u.crop(x - 1000, y, 50, 50).any()
    assert u.crop(x, y, 0, 0).shape == (0, 0)


def test_empty_and_dying_universes():
    u = HashLife().empty()
    assert u.population == 0 and u.bounding_box() is None
    assert u.step(10**9).population == 0
    blinker_pair = np.zeros((1, 2), np.uint8) + 1  # dies at once
    v = Universe.from_cells(blinker_pair).step(1)
    assert v.population == 0 and v.to_cells()[0].shape == (0, 0)


def test_bad_input_refused():
    with pytest.raises(GridError):
        Universe.from_cells(np.full((3, 3), 2, np.uint8))
    with pytest.raises(UsageError):
        _universe("acorn.rle").step(-1)
    with pytest.raises(UsageError):
        _universe("acorn.rle").step(1.5)
    with pytest.raises(EngineError, match="outgrew"):  # coordinates must stay within int64
        _universe("gosper_gun.rle").step(2**70)


def test_stats_report_nodes_and_cache():
    u = _universe("gosper_gun.rle").step(10**9)
    s = u.stats()
    assert s["nodes"] > 0 and s["cache_hits"] > 0 and s["cache_misses"] > 0
    assert 0 < s["hit_rate"] < 1 and s["bytes"] <= s["max_bytes"]


def test_records_round_trip_without_cells():
    u = _universe("switch_engine_breeder.rle").step(2**20)
    levels, children, leaves, origin = u.records()
    assert levels[-1] == u.stats()["level"] and len(levels) < u.stats()["nodes"]
    v = HashLife().from_records(levels, children, leaves, origin)
    assert v.population == u.population == 764025216
    assert v.bounding_box() == u.bounding_box()
    x, y, _, _ = u.bounding_box()
    assert np.array_equal(v.crop(x, y, 300, 200), u.crop(x, y, 300, 200))


def test_record_leaf_bit_order_and_errors():
    # one leaf, cell (row 1, column 2) at bit 8*1 + 2; the root's corner at (10, 20)
    u = HashLife().from_records([3], [[0, 0, 0, 0]], [1 << 10], (10, 20))
    cells, origin = u.to_cells()
    assert origin == (12, 21) and cells.tolist() == [[1]]
    assert u.bounding_box() == (12, 21, 1, 1)
    with pytest.raises(PatternError, match="record 2"):
        HashLife().from_records([3, 5], [[0] * 4, [1, 0, 0, 0]], [1, 0])


def test_remembered_bounding_box_follows_steps():
    """The bounding box is remembered per tree: after a step it is the box of the new cells."""
    glider = np.array([[0, 1, 0], [0, 0, 1], [1, 1, 1]], np.uint8)
    u = HashLife("B3/S23", max_bytes=200_000).from_cells(glider, origin=(5, 7))
    assert u.bounding_box() == (5, 7, 3, 3) == u.bounding_box()
    for generations in (4, 40, 4000):
        u = u.step(generations) or u
        cells, (x, y) = u.to_cells()
        ys, xs = np.nonzero(cells)
        assert u.bounding_box() == (x + xs.min(), y + ys.min(), 3, 3)
