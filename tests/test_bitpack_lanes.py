"""bitpack-cpu's lane-per-grid path (batches of small grids): exact against the NumPy reference.

The engine contract test runs small batches, which take the row kernels; these batches are large
enough to run lane-per-grid (:func:`tensorca.engines.bitpack.lanes.use_lanes`).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from tensorca.engines import get_engine  # noqa: E402
from tensorca.engines.bitpack import lanes as bitpack_lanes  # noqa: E402
from tensorca.engines.bitpack import tiles as bitpack_tiles  # noqa: E402
from tensorca.engines.bitpack.circuit import count_sets, rule_table  # noqa: E402
from tensorca.rules import parse_rule  # noqa: E402
from tensorca.topology import Topology  # noqa: E402

RULES = ["B3/S23", "B0/S8", "B2-a/S12", "B3/S23V", "B36/S23H", "B1357/S1357"]
# (B, H, W): a partial group, several groups plus one grid, 1x1 grids, thin and odd shapes.
SHAPES = [(24, 9, 13), (129, 6, 5), (64, 1, 1), (30, 1, 17), (40, 16, 16)]


@pytest.fixture(scope="module")
def engines():
    return get_engine("bitpack-cpu"), get_engine("numpy")


@pytest.mark.parametrize("text", RULES)
@pytest.mark.parametrize("kind", ["torus", "plane"])
def test_lanes_match_reference(engines, text, kind):
    bitpack, reference = engines
    rule = parse_rule(text)
    rng = np.random.default_rng(abs(hash((text, kind))) % 2**32)
    for shape in SHAPES:
        assert bitpack_lanes.use_lanes(shape)
        cells = (rng.random(shape) < 0.4).astype(np.uint8)
        before = cells.copy()
        topology = getattr(Topology, kind)(*shape[1:])
        for generations in (0, 1, 6):
            got = bitpack.advance(cells, rule, topology, generations)
            want = reference.advance(cells, rule, topology, generations)
            assert got.dtype == np.uint8 and got.shape == shape
            np.testing.assert_array_equal(got, want, err_msg=f"{text} {kind} {shape} {generations}")
        np.testing.assert_array_equal(cells, before)


def test_lane_packing_round_trip_and_layout():
    rng = np.random.default_rng(3)
    cells = (rng.random((70, 3, 4)) < 0.5).astype(np.uint8)
    lanes = np.zeros((2, 5, 6), dtype=np.uint64)
    bitpack_lanes.pack_lanes(cells, lanes)
    assert (lanes[:, 0, :] == 0).all() and (lanes[:, :, 0] == 0).all()  # the halo starts dead
    assert int(lanes[1, 2, 3]) >> 5 & 1 == cells[69, 1, 2]  # grid 64 + 5, cell (1, 2)
    out = np.empty_like(cells)
    bitpack_lanes.unpack_lanes(lanes, out)
    np.testing.assert_array_equal(out, cells)


def test_glider_crosses_every_torus_seam_in_every_lane():
    rule = parse_rule("B3/S23")
    glider = np.zeros((8, 8), np.uint8)
    glider[0, 1] = glider[1, 2] = glider[2, 0] = glider[2, 1] = glider[2, 2] = 1
    cells = np.stack([np.roll(glider, (i % 8, i // 8), axis=(0, 1)) for i in range(64)])
    out = bitpack_lanes.advance_lanes(cells, rule_table(rule), True, 32)  # 8 cells down-right
    np.testing.assert_array_equal(out, cells)


def test_past_the_module_cap_the_row_kernels_run(engines, monkeypatch):
    bitpack, reference = engines
    monkeypatch.setattr(bitpack_lanes, "may_specialise", lambda engine, key: False)
    rule = parse_rule("B36/S23")
    cells = (np.random.default_rng(0).random((32, 10, 10)) < 0.4).astype(np.uint8)
    assert bitpack_lanes.advance_lanes(cells, rule_table(rule), True, 1) is None
    topology = Topology.torus(10, 10)
    np.testing.assert_array_equal(bitpack.advance(cells, rule, topology, 5),
                                  reference.advance(cells, rule, topology, 5))


def test_small_batches_and_big_grids_keep_the_row_layout():
    assert not bitpack_lanes.use_lanes((8, 64, 64))
    assert not bitpack_lanes.use_lanes((64, 1024, 1024))
    assert bitpack_lanes.use_lanes((4096, 64, 64))


# --- one grid as 64 lane tiles ------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["B3/S23", "B0/S8", "B2-a/S12", "B36/S23H"])
@pytest.mark.parametrize("kind", ["torus", "plane"])
def test_tiles_match_reference(engines, text, kind):
    _, reference = engines
    rule = parse_rule(text)
    rng = np.random.default_rng(abs(hash((text, kind, "tiles"))) % 2**32)
    for shape in [(1, 32, 128), (2, 40, 136)]:
        assert bitpack_tiles.use_tiles(shape)
        cells = (rng.random(shape) < 0.4).astype(np.uint8)
        topology = getattr(Topology, kind)(*shape[1:])
        for generations in (0, 1, 7):
            got = bitpack_tiles.advance_tiled(cells, rule_table(rule), kind == "torus", generations)
            np.testing.assert_array_equal(got, reference.advance(cells, rule, topology, generations),
                                          err_msg=f"{text} {kind} {shape} {generations}")


@pytest.mark.parametrize("kind", ["torus", "plane"])
def test_tiles_match_reference_with_streaming_stores(engines, monkeypatch, kind):
    """The unpack that big grids take (streaming stores, :mod:`tensorca.engines.streaming`) forced
    on small ones: the same cells as the reference."""
    _, reference = engines
    calls = []
    monkeypatch.setattr(bitpack_tiles, "streams", lambda nbytes, threads: calls.append(nbytes) or True)
    rule = parse_rule("B3/S23")
    rng = np.random.default_rng(17)
    for shape in [(1, 32, 128), (2, 64, 192)]:
        cells = (rng.random(shape) < 0.4).astype(np.uint8)
        got = bitpack_tiles.advance_tiled(cells, rule_table(rule), kind == "torus", 9)
        want = reference.advance(cells, rule, getattr(Topology, kind)(*shape[1:]), 9)
        np.testing.assert_array_equal(got, want, err_msg=f"{kind} {shape}")
    assert calls == [32 * 128, 2 * 64 * 192]


def test_tile_halo_crosses_tiles_and_the_torus_seam():
    # A glider on a 32x128 torus crosses tile rows (every 4 rows) and columns (every 16) and the seams.
    glider = np.zeros((1, 32, 128), np.uint8)
    glider[0, 0, 1] = glider[0, 1, 2] = glider[0, 2, 0] = glider[0, 2, 1] = glider[0, 2, 2] = 1
    rule = parse_rule("B3/S23")
    out = bitpack_tiles.advance_tiled(glider, rule_table(rule), True, 4 * 128)  # 128 cells down-right
    np.testing.assert_array_equal(out, np.roll(glider, (128 % 32, 0), axis=(1, 2)))
    assert not bitpack_tiles.use_tiles((1, 30, 128)) and not bitpack_tiles.use_tiles((1, 64, 64))


# --- several generations per parallel region (the blocked driver) ----------------------------------


def _random_map(seed: int) -> str:
    """A seeded random MAP rule (B0 included at random: births from nothing off the plane's edge)."""
    import base64

    table = (np.random.default_rng(seed).random(512) < 0.5).astype(np.uint8)
    return "MAP" + base64.b64encode(np.packbits(table).tobytes()).decode()[:86]


# (depth, strip, chunk): odd strips, chunks narrower than the margins, a depth of a whole tile side,
# one generation per region, and the tiled_plan choice (None).
BLOCKINGS = [(3, 5, 7), (4, 2, 16), (2, 1, 1), (16, 16, 16), (1, 3, 5), (None, None, None)]


@pytest.mark.parametrize("text", ["B3/S23", "B36/S23", "B0/S8", "B2-a/S12", _random_map(7)])
@pytest.mark.parametrize("kind", ["torus", "plane"])
def test_blocked_tiles_match_reference(engines, text, kind):
    """Strips, chunks and depths small enough that every task's margins cross the torus seams (lane
    rotations by 8 lanes and within bytes) or the plane's edges (lanes killed at every level)."""
    _, reference = engines
    rule = parse_rule(text)
    table = rule_table(rule)
    rng = np.random.default_rng(abs(hash((text, kind, "blocked"))) % 2**32)
    for shape in [(1, 64, 128), (1, 128, 64), (1, 40, 136)]:
        cells = (rng.random(shape) < 0.4).astype(np.uint8)
        topology = getattr(Topology, kind)(*shape[1:])
        for generations in (0, 1, 7, 18):
            want = reference.advance(cells, rule, topology, generations)
            for depth, strip, chunk in BLOCKINGS:
                got = bitpack_tiles.advance_tiled(cells, table, kind == "torus", generations,
                                                  depth=depth, strip=strip, chunk=chunk)
                np.testing.assert_array_equal(got, want, err_msg=f"{text} {kind} {shape} {generations} "
                                                                 f"depth {depth} strip {strip} chunk {chunk}")


@pytest.mark.parametrize("text", ["B3/S23", "B2-a/S12"])
@pytest.mark.parametrize("kind", ["torus", "plane"])
def test_deep_blocks_match_reference(engines, text, kind):
    """The large-L2 plan's 16 generations a region on tiles taller than that: one strip a thread
    (the whole height), two strips, and chunks narrower than the 16-word margins."""
    _, reference = engines
    rule = parse_rule(text)
    table = rule_table(rule)
    cells = (np.random.default_rng(5).random((1, 256, 320)) < 0.4).astype(np.uint8)  # tiles 32 x 40 words
    topology = getattr(Topology, kind)(256, 320)
    for generations in (16, 37):
        want = reference.advance(cells, rule, topology, generations)
        for depth, strip, chunk in [(16, 32, 40), (16, 16, 40), (16, 32, 8), (12, 11, 13)]:
            got = bitpack_tiles.advance_tiled(cells, table, kind == "torus", generations,
                                              depth=depth, strip=strip, chunk=chunk)
            np.testing.assert_array_equal(got, want, err_msg=f"{text} {kind} {generations} "
                                                             f"depth {depth} strip {strip} chunk {chunk}")


def test_blocked_glider_crosses_every_seam_in_one_region():
    # 16 generations in one region on a 64x128 torus: the glider crosses tile rows and columns and both seams.
    glider = np.zeros((1, 64, 128), np.uint8)
    glider[0, 60, 125] = glider[0, 61, 126] = glider[0, 62, 124] = glider[0, 62, 125] = glider[0, 62, 126] = 1
    table = rule_table(parse_rule("B3/S23"))
    out = bitpack_tiles.advance_tiled(glider, table, True, 16, depth=8, strip=4, chunk=16)
    np.testing.assert_array_equal(out, np.roll(glider, (4, 4), axis=(1, 2)))
    plane = bitpack_tiles.advance_tiled(glider, table, False, 16, depth=8, strip=4, chunk=16)
    assert plane[0, :4].sum() == 0 and plane[0, :, :4].sum() == 0  # nothing wrapped round


@pytest.mark.parametrize("text", ["B3/S23", "B36/S23", "B3678/S34678", "B0/S8", "B2/S"])
def test_pair_lines_add_every_row_sum(text):
    """The blocked count kernels' pair of output rows (:func:`bitpack_lanes._pair_lines`), run as
    Python on single bits: every combination of the four rows' 2-bit sums and both centres gives
    the rule of the total, in whichever coordinates :func:`bitpack_lanes.pair_rule` picked."""
    table = rule_table(parse_rule(text))
    birth, survival = count_sets(table, "M")
    expression, difference = bitpack_lanes.pair_rule(table)
    assert difference == (text in ("B3/S23", "B36/S23")), expression  # B3678/S34678 and B0/S8 need t3
    names = ("t0", "s1", "s2", "c") if difference else ("t0", "t1", "t2", "t3", "c")
    rule = eval(f"lambda {', '.join(names)}: ({expression}) & 1")
    source = "\n".join(bitpack_lanes._pair_lines("a", "b", "e", "d", ("cb", "cc"), ("o0", "o1"), difference))
    code = compile(source, "pair", "exec")
    for bits in range(1 << 10):
        env = {"_rule_d": rule, "_rule_t": rule}
        for i, name in enumerate(("a0", "a1", "b0", "b1", "e0", "e1", "d0", "d1", "cb", "cc")):
            env[name] = bits >> i & 1
        exec(code, env)
        middle = env["b0"] + 2 * env["b1"] + env["e0"] + 2 * env["e1"]
        for out, outer, centre in (("o0", "a", "cb"), ("o1", "d", "cc")):
            total = middle + env[f"{outer}0"] + 2 * env[f"{outer}1"]
            n = total - env[centre]
            if not 0 <= n <= 8:  # a live centre counts itself: impossible sums
                continue
            want = n in (survival if env[centre] else birth)
            assert env[out] == want, (text, bits, out)


@pytest.mark.parametrize("l2", [256 << 10, 512 << 10, 1 << 20, 2 << 20, 32 << 20])
def test_tiled_plan_bounds(l2):
    block, max_depth, _ = bitpack_tiles.plan_budget(l2)
    for th, tw, threads, gens in [(512, 512, 2, 1000), (128, 128, 1, 1000), (4, 16, 2, 9), (512, 2048, 4, 3),
                                  (2048, 2048, 2, 100)]:
        for rows in (4, 6):
            depth, strip, chunk = bitpack_tiles.tiled_plan(th, tw, threads, gens, rows, l2=l2)
            assert 1 <= depth <= min(th, tw, gens, max_depth)
            assert 1 <= strip <= th and 1 <= chunk <= tw
            assert depth * rows * 8 * (chunk + 2 * depth) <= block


def test_tiled_plan_follows_the_l2():
    """A 512 KiB L2 keeps the plan measured there (8 generations a region, two strips a thread where
    they stay tall, 256 KiB blocks); a 2 MiB one takes 16, one strip a thread and 1 MiB blocks."""
    small, large = 512 << 10, 2 << 20
    assert bitpack_tiles.plan_budget(small) == (bitpack_tiles.BLOCK_BYTES, bitpack_tiles.MAX_DEPTH, 2)
    assert bitpack_tiles.plan_budget(large) == (bitpack_tiles.LARGE_L2_BLOCK_BYTES, bitpack_tiles.LARGE_L2_MAX_DEPTH, 1)
    assert bitpack_tiles.tiled_plan(512, 512, 2, 100, 6, l2=small) == (8, 128, 512)
    assert bitpack_tiles.tiled_plan(512, 512, 2, 100, 6, l2=large) == (16, 256, 512)
    assert bitpack_tiles.tiled_plan(2048, 2048, 2, 100, 6, l2=small) == (8, 512, 512)
    assert bitpack_tiles.tiled_plan(2048, 2048, 2, 100, 6, l2=large) == (16, 1024, 1024)
    assert bitpack_tiles.tiled_plan(64, 64, 1, 10, 6, l2=large) == (10, 64, 64)  # a soup tier's chunk: one region


def test_wide_packing_matches_cell_by_cell():
    rng = np.random.default_rng(11)
    grid = (rng.random((32, 192)) < 0.5).astype(np.uint8)
    grid[rng.random(grid.shape) < 0.05] = 3  # not 1: dead, as cell by cell (the row is redone)
    want = np.zeros((6, 26), np.uint64)
    bitpack_tiles.pack_tiles(grid, want)
    got = np.zeros_like(want)
    bitpack_tiles.pack_tiles64(grid.view(np.uint64), grid, got)
    np.testing.assert_array_equal(got, want)
    for stream in (False, True):  # ordinary and streaming stores write the same cells
        out = np.full_like(grid, 7)
        bitpack_tiles.unpack_tiles64(got, out.view(np.uint64), stream)
        np.testing.assert_array_equal(out, grid == 1)


@pytest.mark.parametrize("kind", ["torus", "plane"])
@pytest.mark.parametrize("shape", [(5 * 64 - 3, 9, 13), (4 * 64, 16, 16), (3 * 64 + 1, 5, 30)])
def test_groups_side_by_side_match_reference(engines, kind, shape):
    """Every count of groups side by side (a last task with fewer groups, rows padded to 8 words),
    serial and parallel: each group only ever reads its own frame; a plane's frame comes back dead."""
    _, reference = engines
    rule = parse_rule("B36/S23")
    module = bitpack_lanes.lanes_module(rule_table(rule))
    cells = (np.random.default_rng(sum(shape)).random(shape) < 0.4).astype(np.uint8)
    want = reference.advance(cells, rule, getattr(Topology, kind)(*shape[1:]), 7)
    packed = np.zeros((-(-shape[0] // 64), shape[1] + 2, shape[2] + 2), dtype=np.uint64)
    bitpack_lanes.pack_lanes(cells, packed)
    for k in (1, 2, 4, 8):
        for run in (module.run_groups_serial, module.run_groups):
            lanes = packed.copy()
            run(lanes, 7, kind == "torus", k)
            got = np.empty_like(cells)
            bitpack_lanes.unpack_lanes(lanes, got)
            np.testing.assert_array_equal(got, want, err_msg=f"{kind} {shape} k={k} {run.__name__}")
            if kind == "plane":
                assert not lanes[:, [0, -1], :].any() and not lanes[:, :, [0, -1]].any()


def test_groups_side_by_side_counts():
    from tensorca.engines.bitpack.lanes_layout import SIDE_BY_SIDE_WORDS, groups_side_by_side, l2_bytes

    l2 = 2 << 20
    assert groups_side_by_side((256, 18, 18), 2, l2) == 32  # 16^2: rows of 576 words
    assert groups_side_by_side((64, 66, 66), 2, l2) == 8  # 64^2: 8 x 66 words
    assert groups_side_by_side((64, 66, 66), 2, 512 << 10) == 4  # two buffers within 3/4 of a smaller L2
    assert groups_side_by_side((16, 130, 130), 2, l2) == 4
    assert groups_side_by_side((16, 130, 130), 2, 512 << 10) == 1  # one group's pair is past it
    assert groups_side_by_side((4, 66, 66), 2, l2) == 2  # a task for each thread
    assert groups_side_by_side((4, 66, 66), 1, l2) == 4
    assert groups_side_by_side((1, 18, 18), 2, l2) == 1
    assert groups_side_by_side((64, 3, SIDE_BY_SIDE_WORDS + 1), 1, l2) == 1  # wider than a row alone
    for groups in range(1, 70):
        k = groups_side_by_side((groups, 34, 34), 2, l2)
        assert k & (k - 1) == 0 and 1 <= k <= max(1, -(-groups // 2))
    assert l2_bytes() >= 64 << 10
