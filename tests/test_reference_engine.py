"""Semantics of the NumPy reference engine, checked against hand-worked cases and definitions."""

from __future__ import annotations

import numpy as np
import pytest

from tensorca.elementary import elementary
from tensorca.engines import get_engine
from tensorca.engines.numpy_reference import neighbourhood_count
from tensorca.errors import EngineError, GridError, TensorcaError, TopologyError
from tensorca.pattern import Pattern
from tensorca.rules import parse_rule
from tensorca.simulate import run
from tensorca.topology import Topology

GLIDER = np.array([[0, 1, 0], [0, 0, 1], [1, 1, 1]], dtype=np.uint8)


def soup(shape, seed, density=0.4, states=2):
    rng = np.random.default_rng(seed)
    alive = rng.random(shape) < density
    return np.where(alive, rng.integers(1, states, shape) if states > 2 else 1, 0).astype(np.uint8)


def place(grid_shape, pattern, y, x):
    grid = np.zeros(grid_shape, dtype=np.uint8)
    grid[y : y + pattern.shape[0], x : x + pattern.shape[1]] = pattern
    return grid


def test_glider_wraps_round_a_torus():
    grid = place((5, 5), GLIDER, 1, 1)
    assert np.array_equal(run(grid, "B3/S23", 20), grid)  # (1, 1) per 4 gens on a 5-cell torus
    moved = run(grid, "B3/S23", 4)
    assert np.array_equal(moved, np.roll(grid, (1, 1), axis=(0, 1)))


def test_bounded_plane_kills_what_crosses_the_edge_and_torus_does_not():
    grid = place((6, 6), GLIDER, 3, 3)  # heading into the bottom-right corner
    on_plane = run(grid, "B3/S23", 40, topology="plane")
    on_torus = run(grid, "B3/S23", 40, topology="torus")
    assert np.count_nonzero(on_torus) == 5
    assert np.count_nonzero(on_plane) == 4  # the glider becomes a block in the corner
    assert not np.array_equal(on_plane, on_torus)


def test_a_blinker_on_the_plane_edge_is_cut_but_on_the_torus_it_wraps():
    grid = np.zeros((5, 5), dtype=np.uint8)
    grid[0, 1:4] = 1  # horizontal blinker on the top row
    torus = run(grid, "B3/S23", 1)
    plane = run(grid, "B3/S23", 1, topology=":P5,5")
    assert torus[4, 2] == 1 and torus[0, 2] == 1 and torus[1, 2] == 1
    assert plane[4, 2] == 0 and plane[0, 2] == 1 and plane[1, 2] == 1 and plane.sum() == 2


def test_generations_decay_by_hand():
    rule = parse_rule("/2/3")  # Brian's Brain: no survival, birth on 2, 3 states
    grid = np.zeros((6, 6), dtype=np.uint8)
    grid[2, 2] = grid[2, 3] = 1  # two live cells side by side
    grid[5, 5] = 2  # a dying cell
    nxt = run(grid, rule, 1, topology="plane")
    assert nxt[2, 2] == nxt[2, 3] == 2  # live cells fail to survive: state 2
    assert nxt[5, 5] == 0  # 2 -> 0 with 3 states
    born = {(int(y), int(x)) for y, x in np.argwhere(nxt == 1)}
    assert born == {(1, 2), (1, 3), (3, 2), (3, 3)}  # exactly 2 live neighbours
    star_wars = parse_rule("345/2/4")
    assert run(np.array([[2, 3, 0]], dtype=np.uint8), star_wars, 1, topology="plane").tolist() == [[3, 0, 0]]


def test_dying_cells_do_not_count_as_neighbours_or_get_born_into():
    grid = np.zeros((5, 5), dtype=np.uint8)
    grid[1, 1] = grid[1, 3] = 1
    grid[1, 2] = 2  # a dying cell flanked by two live ones: not born into
    nxt = run(grid, "/2/3", 1, topology="plane")
    assert nxt[1, 2] == 0  # 2 -> 0, not 1
    assert nxt[0, 2] == 1 and nxt[2, 2] == 1  # each sees only the two state-1 cells


@pytest.mark.parametrize(
    "equivalent",
    ["23/3/2", "R1,C0,M0,S2..3,B3..3,NM", "R1,C0,M1,S3..4,B3..3,NM",
     "MAPARYXfhZofugWaH7oaIDogBZofuhogOiAaIDogIAAgAAWaH7oaIDogGiA6ICAAIAAaIDogIAAgACAAIAAAAAAAA"],
)
@pytest.mark.parametrize("topology", ["torus", "plane"])
def test_other_spellings_of_life_compute_life(equivalent, topology):
    grid = soup((3, 23, 17), seed=5)
    expected = run(grid, "B3/S23", 12, topology=topology)
    assert np.array_equal(run(grid, equivalent, 12, topology=topology), expected)


def test_von_neumann_rule_counts_only_orthogonal_neighbours():
    grid = np.zeros((5, 5), dtype=np.uint8)
    grid[2, 2] = 1
    nxt = run(grid, "B1/SV", 1)
    expected = np.zeros((5, 5), dtype=np.uint8)
    expected[1, 2] = expected[3, 2] = expected[2, 1] = expected[2, 3] = 1
    assert np.array_equal(nxt, expected)


def test_b0_rules_are_literal_on_finite_grids():
    empty = np.zeros((4, 7), dtype=np.uint8)
    assert run(empty, "B0/S8", 1).all()  # every dead cell with 0 neighbours is born
    assert run(empty, "B0/S8", 2).all()  # and a full torus survives on 8
    assert not run(empty, "B0/S", 2).any()  # no survival: full grid dies
    pattern = Pattern(cells=np.ones((1, 1), dtype=np.uint8), rule=parse_rule("B0/S8"), topology=Topology.unbounded())
    with pytest.raises(TopologyError, match="B0"):
        run(pattern, generations=1)


def test_batch_equals_each_grid_alone():
    grids = soup((4, 19, 13), seed=3, states=4)
    batch = run(grids, "345/2/4", 9)
    for b in range(4):
        assert np.array_equal(batch[b], run(grids[b], "345/2/4", 9))


def direct_count(alive, mask, torus):
    """The definition: sum of alive cells at every offset of the mask, one cell at a time."""
    h, w = alive.shape
    r = mask.shape[0] // 2
    out = np.zeros((h, w), dtype=np.int64)
    for y in range(h):
        for x in range(w):
            for dy in range(-r, r + 1):
                for dx in range(-r, r + 1):
                    if not mask[dy + r, dx + r]:
                        continue
                    yy, xx = y + dy, x + dx
                    if torus:
                        out[y, x] += alive[yy % h, xx % w]
                    elif 0 <= yy < h and 0 <= xx < w:
                        out[y, x] += alive[yy, xx]
    return out


@pytest.mark.parametrize("neighbourhood", ["M", "N", "C"])
@pytest.mark.parametrize("radius", [1, 2, 4, 7])
@pytest.mark.parametrize("kind", ["torus", "plane"])
def test_range_counts_equal_the_definition(neighbourhood, radius, kind):
    rule = parse_rule(f"R{radius},C0,M1,S1..1,B1..1,N{neighbourhood}")
    alive = soup((6, 9), seed=radius) == 1  # radius 7 > the grid: the torus wraps several times
    mask = rule.neighbourhood_mask()
    topology = Topology(kind, 9, 6)
    fast = neighbourhood_count(alive[None], mask, topology)[0]
    assert np.array_equal(fast, direct_count(alive.astype(np.int64), mask, kind == "torus"))


def test_wolfram_emulation_fills_rows_with_the_elementary_history():
    width, height, steps = 64, 40, 39
    grid = np.zeros((height, width), dtype=np.uint8)
    grid[0] = soup((width,), seed=1, density=0.5)
    for number in (30, 90, 110):
        out = run(grid, f"W{number}", steps)
        history = elementary(number, grid[0], steps)
        assert np.array_equal(out, history)


def test_inputs_keep_their_kind_and_are_not_modified():
    grid = soup((12, 10), seed=9)
    before = grid.copy()
    out2d = run(grid, "B3/S23", 3)
    assert out2d.shape == (12, 10) and out2d.dtype == np.uint8
    assert np.array_equal(grid, before)
    assert np.array_equal(run(grid.astype(bool), "B3/S23", 3), out2d)
    assert np.array_equal(run(grid.astype(np.int64), "B3/S23", 3), out2d)
    assert np.array_equal(run(grid, "B3/S23", 0), grid)


def test_tensor_input_comes_back_as_a_tensor():
    torch = pytest.importorskip("torch")
    grid = soup((12, 10), seed=9)
    out = run(torch.from_numpy(grid), "B3/S23", 3)
    assert isinstance(out, torch.Tensor) and out.dtype == torch.uint8
    assert np.array_equal(out.numpy(), run(grid, "B3/S23", 3))


def test_error_state_out_of_range():
    with pytest.raises(GridError, match=r"state 3.*only 3 states"):
        run(np.array([[0, 3]], dtype=np.uint8), "/2/3", 1)


def test_error_two_state_rule_on_multistate_grid():
    with pytest.raises(GridError, match=r"state 2.*'B3/S23' has only 2 states"):
        run(np.array([[2, 0]], dtype=np.uint8), "B3/S23", 1)


def test_error_shape_does_not_match_topology():
    with pytest.raises(GridError, match=r"\(4, 4\).*:T5,5"):
        run(np.zeros((4, 4), dtype=np.uint8), "B3/S23:T5,5", 1)


def test_error_bad_shapes_and_dtypes():
    with pytest.raises(GridError, match="shape"):
        run(np.zeros((2, 2, 2, 2), dtype=np.uint8), "B3/S23", 1)
    with pytest.raises(GridError, match="dtype"):
        run(np.zeros((4, 4), dtype=np.float32), "B3/S23", 1)
    with pytest.raises(GridError, match="0..255"):
        run(np.full((4, 4), 300), "B3/S23", 1)


def test_error_negative_generations():
    with pytest.raises(ValueError, match="non-negative"):
        run(np.zeros((4, 4), dtype=np.uint8), "B3/S23", -1)


def test_error_unknown_backend_lists_the_known_ones():
    with pytest.raises(EngineError, match=r"unknown backend 'cuda-magic'.*numpy"):
        run(np.zeros((4, 4), dtype=np.uint8), "B3/S23", 1, backend="cuda-magic")


def test_error_array_on_the_unbounded_plane():
    with pytest.raises(TopologyError, match="Pattern"):
        run(np.zeros((4, 4), dtype=np.uint8), "B3/S23", 1, topology="unbounded")


def test_error_topology_conflicts_with_rule_suffix():
    with pytest.raises(TopologyError, match="conflicts"):
        run(np.zeros((4, 4), dtype=np.uint8), "B3/S23:T4,4", 1, topology=":P4,4")


def test_error_pattern_larger_than_its_bounded_grid():
    pattern = Pattern(cells=np.ones((3, 9), dtype=np.uint8), rule=None, topology=Topology.torus(8, 8))
    with pytest.raises(TopologyError, match="9x3.*8x8"):
        run(pattern, generations=1)


def test_reference_engine_is_registered():
    assert get_engine("numpy").supports(parse_rule("B3/S23"), Topology.torus(4, 4))


def test_error_device_that_torch_cannot_use():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    grid = np.zeros((8, 8), dtype=np.uint8)
    for backend in ("torch", "auto"):
        with pytest.raises(EngineError, match="'cuda' is not available"):
            run(grid, "B3/S23", 1, backend=backend, device="cuda")
    with pytest.raises(TensorcaError, match="unknown device 'warp-drive'"):  # a UsageError
        run(grid, "B3/S23", 1, backend="torch", device="warp-drive")


def test_error_soup_larger_than_memory():
    from tensorca.errors import MemoryBudgetError
    from tensorca.random_grids import random_soup

    with pytest.raises(MemoryBudgetError, match="soup of 10,000,000,000,000 cells"):
        random_soup(100_000, 100_000, batch=1000)
