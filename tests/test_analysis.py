"""Classification, apgcodes and census against known facts of B3/S23."""

from __future__ import annotations

import numpy as np
import pytest

import tensorca
from tensorca.analysis import NAMES, apgcode, census, classify, decode, objects, wechsler
from tensorca.analysis import evolve as evolve_module
from tensorca.io import loads

PATTERNS = tensorca.__file__.rsplit("/", 1)[0] + "/data/patterns"

GLIDER = "x = 3, y = 3, rule = B3/S23\nbo$2bo$3o!"
LWSS = "x = 5, y = 4\nbo2bo$o4b$o3bo$4o!"
BLINKER = "x = 3, y = 1\n3o!"
PULSAR = (
    "x = 13, y = 13\n2b3o3b3o2b2$o4bobo4bo$o4bobo4bo$o4bobo4bo$2b3o3b3o2b2$2b3o3b3o2b$"
    "o4bobo4bo$o4bobo4bo$o4bobo4bo2$2b3o3b3o!"
)
PENTADECATHLON = "x = 10, y = 3\n2bo4bo2b$2ob4ob2o$2bo4bo!"
DIEHARD = "x = 8, y = 3\n6bob$2o6b$bo3b3o!"

KNOWN_CODES = {
    "xs4_33": "x=2,y=2\n2o$2o!",
    "xp2_7": BLINKER,
    "xs6_696": "x=4,y=3\nb2ob$o2bo$b2o!",
    "xq4_153": GLIDER,
    "xs5_253": "x=3,y=3\n2ob$obo$bo!",
    "xs7_2596": "x=4,y=4\nb2ob$o2bo$bobo$2bo!",
    "xs6_356": "x=3,y=3\n2ob$obo$b2o!",
    "xs8_6996": "x=4,y=4\nb2ob$o2bo$o2bo$b2o!",
    "xs4_252": "x=3,y=3\nbob$obo$bob!",
    "xs6_25a4": "x=4,y=4\nbo2b$obob$bobo$2bo!",
    "xs7_25ac": "x=4,y=4\nbo2b$obob$bobo$2b2o!",
    "xp2_7e": "x=4,y=2\nb3o$3o!",
    "xp2_318c": "x=4,y=4\n2o2b$2o2b$2b2o$2b2o!",
    "xq4_6frc": LWSS,
    "xq4_27dee6": "x=6,y=5\n3bo2b$bo3bo$o5b$o4bo$5o!",
    "xp15_4r4z4r4": PENTADECATHLON,
}


def test_glider_is_a_c4_spaceship_moving_down_right():
    c = classify(loads(GLIDER))
    assert (c.kind, c.period, c.displacement, c.generation) == ("spaceship", 4, (1, 1), 0)
    assert c.apgcode == "xq4_153" and c.speed == "c/4"


def test_lwss_moves_two_cells_left_every_four_generations():
    c = classify(loads(LWSS))
    assert (c.kind, c.period, c.displacement) == ("spaceship", 4, (-2, 0))
    assert c.speed == "2c/4"


def test_blinker_pulsar_pentadecathlon_periods():
    assert (classify(loads(BLINKER)).kind, classify(loads(BLINKER)).period) == ("oscillator", 2)
    pulsar = classify(loads(PULSAR))
    assert (pulsar.kind, pulsar.period, pulsar.displacement) == ("oscillator", 3, (0, 0))
    assert pulsar.apgcode == "xp3_co9nas0san9oczgoldlo0oldlogz1047210127401"
    penta = classify(loads(PENTADECATHLON))
    assert (penta.kind, penta.period, penta.apgcode) == ("oscillator", 15, "xp15_4r4z4r4")


def test_still_life_and_transient_to_still_life():
    block = classify(np.ones((2, 2), np.uint8))
    assert (block.kind, block.period, block.generation) == ("still_life", 1, 0)
    pre_block = classify(np.array([[1, 1], [1, 0]], np.uint8))
    assert (pre_block.kind, pre_block.generation, pre_block.apgcode) == ("still_life", 1, "xs4_33")


def test_diehard_dies_at_generation_130():
    c = classify(loads(DIEHARD))
    assert (c.kind, c.generation) == ("dies", 130)


def test_gosper_gun_has_period_30_and_emits_one_glider_per_period():
    c = classify(tensorca.load(f"{PATTERNS}/gosper_gun.rle"))
    assert (c.kind, c.period) == ("gun", 30)
    assert c.emits == {"xq4_153": 1}


def test_unresolved_within_budget():
    r = tensorca.load(f"{PATTERNS}/r_pentomino.rle")
    assert classify(r, max_gens=50).kind == "unresolved"


def test_classification_survives_hash_collisions(monkeypatch):
    """Every generation gets the same fingerprint: only the cell-for-cell check can decide."""
    import sys

    classify_module = sys.modules["tensorca.analysis.classify"]
    monkeypatch.setattr(evolve_module, "key_of", lambda cells: (0, 0, 0, 0))
    monkeypatch.setattr(classify_module, "key_of", lambda cells: (0, 0, 0, 0))
    c = classify(loads(GLIDER))
    assert (c.kind, c.period, c.displacement) == ("spaceship", 4, (1, 1))
    assert classify(loads(DIEHARD)).generation == 130
    assert classify(loads(PENTADECATHLON)).period == 15


@pytest.mark.parametrize("code", sorted(KNOWN_CODES))
def test_apgcodes_of_common_objects(code):
    assert classify(loads(KNOWN_CODES[code])).apgcode == code


def test_apgcode_is_the_same_in_every_orientation_and_phase():
    glider = np.array([[0, 1, 0], [0, 0, 1], [1, 1, 1]], np.uint8)
    for k in range(4):
        for grid in (np.rot90(glider, k), np.rot90(glider, k).T):
            assert classify(grid).apgcode == "xq4_153"
    later = tensorca.run(loads(GLIDER), generations=3)
    assert classify(later).apgcode == "xq4_153"


def test_wechsler_encoding_details():
    assert wechsler(np.array([[1, 1, 1], [0, 0, 1], [0, 1, 0]])) == "153"
    # runs of empty columns: w = 2, x = 3, y0 = 4; strips of 5 rows separated by z
    row = np.zeros((1, 9), np.uint8)
    row[0, [0, 3, 8]] = 1
    assert wechsler(row) == "1w1y01"
    tall = np.zeros((6, 1), np.uint8)
    tall[[0, 5], 0] = 1
    assert wechsler(tall) == "1z1"
    assert apgcode([np.ones((2, 2))], "still_life") == "xs4_33"


def test_decode_round_trips():
    for code in KNOWN_CODES:
        grid = decode(code)
        assert classify(grid).apgcode == code


def test_r_pentomino_census_at_1103():
    r = tensorca.run(tensorca.load(f"{PATTERNS}/r_pentomino.rle"), generations=1103)
    assert r.population == 116
    counts = census(r)
    assert counts == {
        "xs4_33": 8, "xq4_153": 6, "xs6_696": 4, "xp2_7": 4, "xs5_253": 1, "xs7_2596": 1, "xs6_356": 1,
    }
    named = {NAMES[k]: v for k, v in counts.items()}
    assert named == {"block": 8, "glider": 6, "beehive": 4, "blinker": 4, "boat": 1, "loaf": 1, "ship": 1}
    assert list(counts)[0] == "xs4_33"  # most common first


def test_pseudo_objects_split_only_when_independent():
    # bi-block: two blocks one column apart do not interact
    assert census(loads("x=5,y=2\n2ob2o$2ob2o!")) == {"xs4_33": 2}
    # the aircraft carrier is one still life although its two halves are not 8-connected
    assert census(loads("x=4,y=3\n2o2b$o2bo$2b2o!")) == {"xs6_39c": 1}
    # a traffic light (four blinkers) is four blinkers
    light = tensorca.run(loads("x=3,y=2\n3o$bo!"), generations=10)
    assert census(light) == {"xp2_7": 4}


def test_interacting_neighbours_are_one_object():
    # a blinker beside a block, close enough that they interact: not "block + blinker"
    grid = np.zeros((4, 6), np.uint8)
    grid[0:2, 0:2] = 1  # block
    grid[0:3, 3] = 1  # vertical blinker one column away
    counts = census(grid)
    assert counts != {"xs4_33": 1, "xp2_7": 1}
    # far apart they are two objects
    grid = np.zeros((4, 9), np.uint8)
    grid[0:2, 0:2] = 1
    grid[0:3, 7] = 1
    assert census(grid) == {"xs4_33": 1, "xp2_7": 1}


def test_objects_report_position_and_kind():
    grid = np.zeros((12, 12), np.uint8)
    grid[1:3, 1:3] = 1
    grid[8, 6:9] = 1
    found = sorted(objects(grid), key=lambda f: f.apgcode)
    assert [(f.apgcode, f.kind) for f in found] == [("xp2_7", "oscillator"), ("xs4_33", "still_life")]
    assert found[1].origin == (1, 1)


# Hand-drawn cells of named objects (one phase, any orientation): classify must give the code
# that NAMES files the name under. Codes come from apgsearch's canonical form, so a wrong shape
# or a mistyped code fails here.
NAMED_SHAPES = {
    "mango": ".OO./O..O/.O..O/..OO",
    "eater 1": "OO../O.O./..O./..OO",
    "shillelagh": "OO.../O..OO/.OO.O",
    "long ship": "OO../O.O./.O.O/..OO",
    "long barge": ".O.../O.O../.O.O./..O.O/...O.",
    "integral sign": "OO.../O.O../..O../..O.O/...OO",
    "hat": "..O../.O.O./.O.O./OO.OO",
    "canoe": "...OO/....O/...O./O.O../OO...",
    "long long boat": "OO.../O.O../.O.O./..O.O/...O.",
    "block on table": "OO../OO../..../OOOO/O..O",
    "loop": ".OO./O..O/.O.O/OO.OO",
    "tub with tail": ".O.../O.O../.O.O./...O./...OO",
    "clock": "..O./O.O./.O.O/.O..",
    "bipole": "OO.../O..../.O.O./....O/...OO",
    "spark coil": "OO....OO/O.O..O.O/..O..O../O.O..O.O/OO....OO",
    "mold": "...OO./..O..O/O..O.O/....O./O.OO../.O....",
    "figure eight": "OO..../OO.O../....O./.O..../..O.OO/....OO",
    "octagon 2": "...OO.../..O..O../.O....O./O......O/O......O/.O....O./..O..O../...OO...",
    "honey farm": ("......O....../.....O.O...../.....O.O...../......O....../.OO.......OO./O..O.....O..O/"
                   ".OO.......OO./......O....../.....O.O...../.....O.O...../......O......"),
}


@pytest.mark.parametrize("name", sorted(NAMED_SHAPES))
def test_named_objects_have_the_codes_names_files_them_under(name):
    rows = NAMED_SHAPES[name].split("/")
    width = max(map(len, rows))  # short rows end in dead cells
    cells = np.array([[c == "O" for c in row.ljust(width, ".")] for row in rows], dtype=np.uint8)
    code = classify(cells, "B3/S23", max_gens=100).apgcode
    assert NAMES.get(code) == name, code
