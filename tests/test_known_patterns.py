"""Known facts of Conway's Life on the unbounded plane, run through tensorca.run on the reference."""

from __future__ import annotations

import numpy as np
import pytest

from tensorca import io as pattern_io
from tensorca.simulate import run

RLE = {
    "glider": "x = 3, y = 3, rule = B3/S23\nbo$2bo$3o!",
    "lwss": "x = 5, y = 4, rule = B3/S23\nbo2bo$o4b$o3bo$4o!",
    "blinker": "x = 3, y = 1, rule = B3/S23\n3o!",
    "pulsar": (
        "x = 13, y = 13, rule = B3/S23\n2b3o3b3o2b2$o4bobo4bo$o4bobo4bo$o4bobo4bo$2b3o3b3o2b2$"
        "2b3o3b3o2b$o4bobo4bo$o4bobo4bo$o4bobo4bo2$2b3o3b3o!"
    ),
    "pentadecathlon": "x = 10, y = 3, rule = B3/S23\n2bo4bo2b$2ob4ob2o$2bo4bo!",
    "diehard": "x = 8, y = 3, rule = B3/S23\n6bob$2o6b$bo3b3o!",
    "r_pentomino": "x = 3, y = 3, rule = B3/S23\nb2o$2o$bo!",
    "gosper_gun": (
        "x = 36, y = 9, rule = B3/S23\n24bo$22bobo$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o$"
        "2o8bo3bob2o4bobo$10bo5bo7bo$11bo3bo$12b2o!"
    ),
}


def load(name: str):
    return pattern_io.loads(RLE[name])


def same_shape_and_place(a, b, shift=(0, 0)) -> bool:
    """Same cells, and b's origin is a's shifted by ``shift``."""
    return (
        a.cells.shape == b.cells.shape
        and np.array_equal(a.cells, b.cells)
        and (b.origin[0] - a.origin[0], b.origin[1] - a.origin[1]) == shift
    )


def test_glider_moves_one_diagonal_every_four_generations():
    glider = run(load("glider"), generations=0)
    for k in range(1, 4):
        assert not np.array_equal(run(glider, generations=k).cells, glider.cells)
    later = run(glider, generations=4)
    assert same_shape_and_place(glider, later, shift=(1, 1))
    assert same_shape_and_place(glider, run(glider, generations=40), shift=(10, 10))


def test_lwss_moves_two_cells_every_four_generations():
    ship = run(load("lwss"), generations=0)
    later = run(ship, generations=4)
    assert np.array_equal(ship.cells, later.cells)
    dx, dy = later.origin[0] - ship.origin[0], later.origin[1] - ship.origin[1]
    assert (abs(dx), dy) == (2, 0)


@pytest.mark.parametrize("name,period", [("blinker", 2), ("pulsar", 3), ("pentadecathlon", 15)])
def test_oscillator_periods(name, period):
    start = run(load(name), generations=0)
    for k in range(1, period):
        assert not same_shape_and_place(start, run(start, generations=k)), f"{name} repeats after {k}"
    assert same_shape_and_place(start, run(start, generations=period))
    assert same_shape_and_place(start, run(start, generations=3 * period))


def test_diehard_dies_at_generation_130():
    diehard = load("diehard")
    at_129 = run(diehard, generations=129)
    assert at_129.population > 0
    at_130 = run(at_129, generations=1)
    assert at_130.population == 0 and at_130.generation == 130
    assert at_130.bounding_box() is None


def test_r_pentomino_stabilises_at_1103_with_116_cells():
    start = load("r_pentomino")
    at_1102 = run(start, generations=1102)
    at_1103 = run(at_1102, generations=1)
    assert at_1103.population == 116
    assert at_1102.population != 116
    # From 1103 on only blinkers, still lifes and gliders remain: population is constant.
    pops = []
    state = at_1103
    for _ in range(12):
        state = run(state, generations=1)
        pops.append(state.population)
    assert pops == [116] * 12


def test_gosper_gun_has_period_30_and_emits_a_glider_each_period():
    gun = load("gosper_gun")
    a = run(gun, generations=120)
    b = run(a, generations=30)
    assert b.population - a.population == 5  # one more glider

    def window(p):  # the gun's own 36x9 box, in pattern coordinates
        grid = np.zeros((9, 36), dtype=np.uint8)
        x0, y0 = p.origin
        for y, x in np.argwhere(p.cells):
            gx, gy = x + x0, y + y0
            if 0 <= gx < 36 and 0 <= gy < 9:
                grid[gy, gx] = 1
        return grid

    assert np.array_equal(window(a), window(b))
    assert not np.array_equal(window(a), window(run(a, generations=15)))
