"""bitpack-cpu's lane-per-grid path (batches of small grids): exact against the NumPy reference.

The engine contract test runs small batches, which take the row kernels; these batches are large
enough to run lane-per-grid (:func:`tensorca.engines.bitpack_lanes.use_lanes`).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from tensorca.engines import bitpack_lanes, get_engine  # noqa: E402
from tensorca.engines.bitpack_circuit import rule_table  # noqa: E402
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
        assert bitpack_lanes.use_tiles(shape)
        cells = (rng.random(shape) < 0.4).astype(np.uint8)
        topology = getattr(Topology, kind)(*shape[1:])
        for generations in (0, 1, 7):
            got = bitpack_lanes.advance_tiled(cells, rule_table(rule), kind == "torus", generations)
            np.testing.assert_array_equal(got, reference.advance(cells, rule, topology, generations),
                                          err_msg=f"{text} {kind} {shape} {generations}")


def test_tile_halo_crosses_tiles_and_the_torus_seam():
    # A glider on a 32x128 torus crosses tile rows (every 4 rows) and columns (every 16) and the seams.
    glider = np.zeros((1, 32, 128), np.uint8)
    glider[0, 0, 1] = glider[0, 1, 2] = glider[0, 2, 0] = glider[0, 2, 1] = glider[0, 2, 2] = 1
    rule = parse_rule("B3/S23")
    out = bitpack_lanes.advance_tiled(glider, rule_table(rule), True, 4 * 128)  # 128 cells down-right
    np.testing.assert_array_equal(out, np.roll(glider, (128 % 32, 0), axis=(1, 2)))
    assert not bitpack_lanes.use_tiles((1, 30, 128)) and not bitpack_lanes.use_tiles((1, 64, 64))
