"""Golly's macrocell format: Golly's documented example, Golly's coordinates, round trips, errors."""

from __future__ import annotations

import gzip
import importlib.util
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorca.io as tio
from tensorca.errors import MemoryBudgetError, PatternError
from tensorca.io.macrocell import grid_top_left, read_macrocell, write_macrocell
from tensorca.pattern import Pattern
from tensorca.rules import parse_spec
from tensorca.topology import Topology

PATTERNS = Path(__file__).parent / "data" / "patterns"
GLIDER = np.array([[0, 1, 0], [0, 0, 1], [1, 1, 1]], dtype=np.uint8)

# The sample leaf in Golly's Help (File Formats > Macrocell), verbatim, as the SE child of a
# level-4 root. Help: "the upper left cell of the southeast child of the root node is at (x=0,y=1)".
HELP_LEAF = "$$..*$...*$.***$$$$"
HELP_FILE = f"[M2] (golly 2.0)\n#R B3/S23\n{HELP_LEAF}\n4 0 0 0 1\n"


# --- an independent decoder: Golly's getcell (hlifealgo/ghashbase), transcribed ----------------


def _parse_nodes(text: str) -> tuple[dict, int]:
    nodes: dict[int, tuple] = {}
    for line in text.splitlines()[1:]:
        if not line.strip() or line.startswith("#"):
            continue
        i = len(nodes) + 1
        if line[0] in ".*$":
            leaf = np.zeros((8, 8), np.uint8)
            x = y = 0
            for c in line.strip():
                if c == "$":
                    x, y = 0, y + 1
                else:
                    leaf[y, x] = c == "*"
                    x += 1
            nodes[i] = (3, leaf)
        else:
            d, a, b, c, e = map(int, line.split())
            nodes[i] = (1, np.array([[a, b], [c, e]], np.uint8)) if d == 1 else (d, (a, b, c, e))
    return nodes, len(nodes)


def golly_getcell(nodes: dict, node: int, x: int, y: int) -> int:
    """Golly: ``y = -y``, then at each level west if x < 0, south if y < 0, recentre the child."""
    level = nodes[node][0]
    half = 1 << (level - 1)
    y = -y
    if not (-half <= x < half and -half <= y < half):
        return 0

    def get(n: int, lev: int, x: int, y: int) -> int:
        if n == 0:
            return 0
        kind, data = nodes[n]
        h = 1 << (lev - 1)
        if isinstance(data, np.ndarray):  # a leaf: north (y = h-1) is its first row
            return int(data[h - 1 - y, x + h])
        child = data[(2 if y < 0 else 0) + (1 if x >= 0 else 0)]  # nw ne sw se
        w = h
        return get(child, lev - 1, (x & (w - 1)) - w // 2, (y & (w - 1)) - w // 2)

    return get(node, level, x, y)


def golly_cells(text: str, x0: int, y0: int, w: int, h: int) -> np.ndarray:
    nodes, root = _parse_nodes(text)
    return np.array(
        [[golly_getcell(nodes, root, x, y) for x in range(x0, x0 + w)] for y in range(y0, y0 + h)], np.uint8
    )


# --- Golly's documented example and coordinates ------------------------------------------------


def test_help_example_leaf_decodes_to_a_glider_at_gollys_coordinates():
    p = tio.loads(HELP_FILE)
    assert np.array_equal(p.cells, GLIDER)
    assert p.origin == (1, 3)  # SE child's top-left is (0, 1); the glider starts 2 rows/1 col in
    assert p.rule.canonical() == "B3/S23" and p.generation == 0
    assert np.array_equal(golly_cells(HELP_FILE, 1, 3, 3, 3), GLIDER)


def test_macrocell_and_rle_of_one_pattern_agree():
    rle = tio.load(PATTERNS / "gosper_glider_gun.rle")  # top-left at (0, 0), as Golly loads it
    text = tio.dumps(rle, "macrocell")
    mc = tio.loads(text)
    assert np.array_equal(mc.cells, rle.cells) and mc.origin == rle.origin == (0, 0)
    # the file is right by Golly's own getcell, not only by our reader
    assert np.array_equal(golly_cells(text, -2, -2, 40, 13)[2:11, 2:38], rle.cells)
    assert golly_cells(text, -2, -2, 40, 13).sum() == rle.population


def test_rle_with_position_round_trips_through_macrocell():
    rle = tio.loads("#CXRLE Pos=-37,12 Gen=5\nx = 3, y = 3, rule = B3/S23\nbo$2bo$3o!")
    mc = tio.loads(tio.dumps(rle, "macrocell"))
    assert mc == rle
    assert (mc.origin, mc.generation) == ((-37, 12), 5)


def test_multistate_level1_nodes_by_hand():
    text = "[M2] (golly 3.0)\n#R 345/2/4\n1 1 2 0 1\n2 0 0 0 1\n"
    p = tio.loads(text)
    assert np.array_equal(p.cells, [[1, 2], [0, 1]])
    assert p.origin == (0, 1)  # SE child of the level-2 root
    assert np.array_equal(golly_cells(text, 0, 1, 2, 2), p.cells)
    assert p.rule.n_states == 4


def test_header_comments_rule_with_suffix_and_generation():
    text = (
        "[M2] (golly 4.2)\n#R B3/S23:T20,20\n#G 123456789012\n#N Name here\n#O Someone\n"
        "#C first\n#D second\n#FRAMES 0 0 2^0\n**$\n4 1 0 0 0\n"
    )
    p = tio.loads(text)
    assert p.topology == Topology.torus(20, 20)
    assert p.generation == 123456789012
    assert (p.name, p.author, p.comments) == ("Name here", "Someone", ["first", "second"])
    # bounded: the whole grid, its top-left where Golly centres it
    assert p.cells.shape == (20, 20) and p.origin == grid_top_left(p.topology) == (-10, -10)
    # level-4 root: top-left (-8, -7); the leaf is its NW child, live at (-8, -7) and (-7, -7)
    ys, xs = np.nonzero(p.cells)
    assert list(zip((xs + p.origin[0]).tolist(), (ys + p.origin[1]).tolist(), strict=True)) == [(-8, -7), (-7, -7)]


def test_writer_output_is_gollys_shape():
    p = Pattern(cells=GLIDER, rule=parse_spec("B3/S23")[0], origin=(1, 3))
    text = write_macrocell(p)
    lines = text.splitlines()
    assert lines[0].startswith("[M2] (")
    assert lines[1] == "#R B3/S23"
    assert lines[2:] == ["$$..*$...*$.***$", "4 0 0 0 1"]  # Golly's writer stops after the last live row


def test_hash_consing_makes_repetitive_patterns_small():
    cells = np.zeros((1024, 1024), np.uint8)
    for y in range(0, 1024, 16):
        for x in range(0, 1024, 16):
            cells[y : y + 3, x : x + 3] = GLIDER
    p = Pattern(cells=cells, origin=(0, 1))  # aligned with the leaf grid: one distinct leaf
    text = write_macrocell(p)
    body = [ln for ln in text.splitlines() if not ln.startswith(("[", "#"))]
    assert len(body) < 40
    again = tio.loads(text)
    assert again.population == cells.sum() and again.origin == (0, 1)
    assert np.array_equal(again.cells, cells[: 1024 - 13, : 1024 - 13])


# --- round trips -------------------------------------------------------------------------------


def _expected(p: Pattern) -> Pattern:
    return p if p.topology.bounded else p.cropped()


@settings(max_examples=40, deadline=None)
@given(
    data=st.data(),
    h=st.integers(0, 40),
    w=st.integers(0, 40),
    ox=st.integers(-300, 300),
    oy=st.integers(-300, 300),
    gen=st.integers(0, 10**15),
)
def test_round_trip_two_state(data, h, w, ox, oy, gen):
    cells = data.draw(st.lists(st.integers(0, 1), min_size=h * w, max_size=h * w))
    grid = np.array(cells, np.uint8).reshape(h, w)
    rule = data.draw(st.sampled_from([None, "B3/S23", "B36/S23", "B2ce/S"]))
    p = Pattern(cells=grid, rule=parse_spec(rule)[0] if rule else None, origin=(ox, oy), generation=gen,
                name="n", comments=["c 1", ""])
    again = tio.loads(tio.dumps(p, "macrocell"))
    assert again == _expected(p)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), h=st.integers(1, 24), w=st.integers(1, 24), ox=st.integers(-99, 99), oy=st.integers(-99, 99))
def test_round_trip_multi_state(data, h, w, ox, oy):
    cells = data.draw(st.lists(st.integers(0, 7), min_size=h * w, max_size=h * w))
    grid = np.array(cells, np.uint8).reshape(h, w)
    p = Pattern(cells=grid, rule=parse_spec("345/2/8")[0], origin=(ox, oy), generation=data.draw(st.integers(0, 99)))
    text = tio.dumps(p, "macrocell")
    assert "\n1 " in text or p.population == 0
    assert tio.loads(text) == _expected(p)


@settings(max_examples=25, deadline=None)
@given(data=st.data(), h=st.integers(1, 20), w=st.integers(1, 20), kind=st.sampled_from(["T", "P"]),
       states=st.sampled_from([2, 5]))
def test_round_trip_bounded_grid_keeps_the_whole_grid(data, h, w, kind, states):
    cells = data.draw(st.lists(st.integers(0, states - 1), min_size=h * w, max_size=h * w))
    rule_text = "B3/S23" if states == 2 else "345/2/5"
    rule, topology = parse_spec(f"{rule_text}:{kind}{w},{h}")
    p = Pattern(cells=np.array(cells, np.uint8).reshape(h, w), rule=rule, topology=topology,
                origin=grid_top_left(topology))
    assert tio.loads(tio.dumps(p, "macrocell")) == p


def test_empty_patterns():
    assert tio.loads("[M2] (golly 4.0)\n#R B3/S23\n").cells.shape == (0, 0)
    p = Pattern(cells=np.zeros((3, 3), np.uint8), origin=(5, 5))
    text = tio.dumps(p, "macrocell")
    assert text.splitlines()[-1].startswith("[M2]")  # no nodes, as Golly writes an empty universe
    assert tio.loads(text) == p.cropped()


def test_far_away_cell_in_a_deep_tree_is_cheap():
    lines = ["[M2]", "*$", "4 1 0 0 0"] + [f"{k} {k - 3} 0 0 0" for k in range(5, 81)]
    p = tio.loads("\n".join(lines) + "\n")
    assert p.cells.shape == (1, 1) and p.population == 1
    assert p.origin == (-(2**79), 1 - 2**79)
    assert tio.loads(tio.dumps(p, "macrocell")) == p


# --- detection, files, gzip --------------------------------------------------------------------


def test_detection_and_files(tmp_path):
    assert tio.detect_format(HELP_FILE) == "macrocell"
    assert "macrocell" in tio.FORMATS
    p = tio.load(PATTERNS / "gosper_glider_gun.rle")
    tio.save(tmp_path / "gun.mc", p)
    tio.save(tmp_path / "gun.mc.gz", p)
    raw = (tmp_path / "gun.mc.gz").read_bytes()
    assert raw[:2] == b"\x1f\x8b" and gzip.decompress(raw).startswith(b"[M2] ")
    for name in ("gun.mc", "gun.mc.gz"):
        assert tio.load(tmp_path / name) == p
    assert tio.loads(raw) == p
    assert tio.loads(HELP_FILE, format="mc").population == 5


# --- the cell budget ---------------------------------------------------------------------------


def test_huge_sparse_tree_is_refused_before_allocating():
    # level 40: one cell near the top-left corner, one near the bottom-right
    lines = ["[M2] (golly 4.2)", "*$", "4 1 0 0 0", "4 0 0 0 1"]
    a, b = 2, 3
    for k in range(5, 40):
        lines += [f"{k} {a} 0 0 0", f"{k} 0 0 0 {b}"]
        a, b = len(lines) - 2, len(lines) - 1  # line numbers minus the header = node numbers
    lines.append(f"40 {a} 0 0 {b}")
    text = "\n".join(lines) + "\n"
    start = time.perf_counter()
    with pytest.raises(PatternError, match="exceeds the cell budget"):
        tio.loads(text, max_cells=2**31)  # an explicit budget refuses the box at once
    assert time.perf_counter() - start < 1.0
    if importlib.util.find_spec("numba") is None:
        return
    tree = tio.loads(text)  # without one, the tree loads as it is (a tree-backed pattern) ...
    assert tree.tree_backed and tree.population == 2 and tree.bounding_box()[2] > 2**39
    with pytest.raises(MemoryBudgetError, match=r"crop\(x, y, w, h\)"):
        _ = tree.cells  # ... and its cells only within the dense budget
    x, y = tree.origin
    assert tree.crop(x, y, 2, 2).tolist() == [[1, 0], [0, 0]]


def test_budget_applies_to_the_bounding_box():
    text = tio.dumps(Pattern(cells=np.ones((10, 10), np.uint8)), "macrocell")
    with pytest.raises(PatternError, match="10 x 10 cells exceeds the cell budget of 99"):
        tio.loads(text, max_cells=99)
    assert tio.loads(text, max_cells=100).population == 100


# --- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, line, column, match",
    [
        ("x = 1, y = 1\no!\n", 1, 1, "must start with '\\[M2\\]'"),
        ("[M2]\n..*x$\n", 2, 4, "unexpected character 'x' in a two-state leaf"),
        ("[M2]\n.........*$\n", 2, 10, "outside the 8x8 leaf"),
        ("[M2]\n$$$$$$$$*$\n", 2, 9, "outside the 8x8 leaf"),
        ("[M2]\n*$\n4 1 0 0 2\n", 3, 9, "se child 2 is not an earlier node"),
        ("[M2]\n*$\n4 1 0 0 0\n5 1 0 0 0\n", 4, 3, "nw child 1 is a level-3 node; a level-5 node needs level-4"),
        ("[M2]\n*$\n3 1 0 0 0\n", 3, 1, "level 3 is below 4"),
        ("[M2]\n3 0 0 0 0\n*$\n4 2 0 0 0\n", 2, 1, "level 3 is below 4"),
        ("[M2]\n1 0 1 0 0\n*$\n", 3, 1, "cannot be mixed"),
        ("[M2]\n1 0 256 0 0\n", 2, 5, "state 256 is not in 0..255"),
        ("[M2]\n#R B3/S23\n1 0 2 0 0\n", 3, 5, "state 2 is not a state of rule 'B3/S23'"),
        ("[M2]\n#R B3/Q23\n", 2, 7, "bad rule"),
        ("[M2]\n#G 12x\n", 2, 4, "expected an integer generation"),
        ("[M2]\n*$\n4 1 0 0\n", 3, 8, "expected 5 integers"),
        ("[M2]\n*$\n4 1 0 0 0 7\n", 3, 11, "unexpected '7' after the node's five numbers"),
        ("[M2]\n*$\nfoo 1 0 0 0\n", 3, 1, "unexpected 'foo'"),
        ("[M2]\n*$\n4 1 -1 0 0\n", 3, 5, "ne child -1 is not an earlier node"),
        ("[M2]\n*$\n0 1 0 0 0\n", 3, 1, "node level must be >= 1"),
        ("[M2]\n#R B3/S23:T4,4\n*$\n4 1 0 0 0\n", None, None, "outside the 4 x 4 grid"),
    ],
)
def test_errors_say_what_and_where(text, line, column, match):
    with pytest.raises(PatternError, match=match) as info:
        read_macrocell(text)
    assert (info.value.line, info.value.column) == (line, column)


def test_writer_refuses_states_beyond_the_rule_and_oversized_bounded_cells():
    with pytest.raises(PatternError, match="cannot write state 2"):
        write_macrocell(Pattern(cells=np.array([[2]], np.uint8), rule=parse_spec("B3/S23")[0]))
    rule, topo = parse_spec("B3/S23:T4,4")
    with pytest.raises(PatternError, match="do not fit"):
        write_macrocell(Pattern(cells=np.ones((5, 5), np.uint8), rule=rule, topology=topo))
