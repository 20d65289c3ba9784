"""Golly's HROT / Larger than Life neighbourhoods beyond Moore, von Neumann and circular.

Every shape is checked three ways: against a transliteration of the counting loop of Golly's
``gollybase/ltlalgo.cpp`` (``fast_Checker``/``fast_Aligned``, ``fast_Hash``, ``fast_Hex``,
``fast_Asterisk``, ``fast_Tripod``, ``read_custom``; Golly counts totalistically, so these
offset sets include the centre), against Golly's ``max_neighbors`` sizes, and cell for cell
against pictures written out here (Golly's Help shows its r = 3 diagrams only as images; the
custom ``N@891891`` example of Help/Algorithms/Larger_than_Life.html is text and is checked as such).
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from tensorca.engines import get_engine
from tensorca.engines.numpy_reference import neighbourhood_count
from tensorca.errors import RuleError
from tensorca.rules import LargerThanLifeRule, neighbourhood_mask, parse_rule
from tensorca.rules.neighbourhoods import (
    SUPPORTED,
    UNSUPPORTED,
    custom_digits,
    custom_neighbourhood,
    neighbourhood_size,
)
from tensorca.topology import Topology

from .conftest import check_rule_error

NEW = ["B", "D", "#", "H", "A", "3"]


# -- Golly's loops, transliterated: (dx, dy) offsets, dy < 0 is the row above ---------------------

def golly_offsets(letter: str, r: int) -> set[tuple[int, int]]:
    cells: set[tuple[int, int]] = set()
    if letter in "BD":  # fast_CheckerBoth(start): start 1 = checkerboard (adds the centre), 0 = aligned
        start = 1 if letter == "B" else 0
        offset = start
        for j in range(-r, r + 1):
            cells |= {(i, j) for i in range(-r + offset, r - offset + 1, 2)}
            offset = 1 - offset
        if start == 1:
            cells.add((0, 0))
    elif letter == "#":  # fast_Hash
        cells |= {(i, -1) for i in range(-r, r + 1)} | {(i, 1) for i in range(-r, r + 1)}
        cells |= {(-1, 0), (0, 0), (1, 0)}
        for j in range(2, r + 1):
            cells |= {(-1, -j), (1, -j), (-1, j), (1, j)}
    elif letter == "H":  # fast_Hex
        for j in range(-r, 0):
            cells |= {(i, j) for i in range(-r, r + j + 1)}
        for j in range(r + 1):
            cells |= {(i, j) for i in range(-r + j, r + 1)}
    elif letter == "A":  # fast_Asterisk
        for j in range(-r, 0):
            cells |= {(0, j), (j, j)}
        cells |= {(i, 0) for i in range(-r, r + 1)}
        for j in range(1, r + 1):
            cells |= {(0, j), (j, j)}
    elif letter == "3":  # fast_Tripod
        cells |= {(0, j) for j in range(-r, 0)}
        cells |= {(i, 0) for i in range(-r, 1)}
        cells |= {(j, j) for j in range(1, r + 1)}
    return cells


def golly_max_neighbors(letter: str, r: int) -> int:
    side = 2 * r + 1
    return {"B": (side * side - 1) // 2, "D": (side * side - 1) // 2, "#": 8 * r,
            "H": side * side - r * (r + 1) - 1, "A": 6 * r, "3": 3 * r}[letter]


def offsets_of(mask: np.ndarray) -> set[tuple[int, int]]:
    r = mask.shape[0] // 2
    return {(int(x) - r, int(y) - r) for y, x in zip(*np.nonzero(mask), strict=True)}


@pytest.mark.parametrize("r", [1, 2, 3, 4, 5, 8])
@pytest.mark.parametrize("letter", NEW)
def test_masks_match_golly_counting_loops(letter, r):
    with_centre = neighbourhood_mask(letter, r, True)
    assert with_centre.shape == (2 * r + 1, 2 * r + 1) and with_centre.dtype == np.uint8
    assert offsets_of(with_centre) == golly_offsets(letter, r)
    without = neighbourhood_mask(letter, r, False)
    assert without[r, r] == 0 and offsets_of(without) == golly_offsets(letter, r) - {(0, 0)}
    assert neighbourhood_size(letter, r) == golly_max_neighbors(letter, r)


def test_sizes_at_the_largest_range():
    for letter in NEW:
        assert neighbourhood_size(letter, 500) == golly_max_neighbors(letter, 500), letter


def picture(rows: str) -> np.ndarray:
    return np.array([[c == "o" for c in row] for row in rows.split()], dtype=np.uint8)


PICTURES = {
    ("B", 1): ".o. o.o .o.",
    ("D", 1): "o.o ... o.o",
    ("#", 1): "ooo o.o ooo",
    ("H", 1): "oo. o.o .oo",
    ("A", 1): "oo. o.o .oo",
    ("3", 1): ".o. o.. ..o",
    ("B", 2): "o.o.o .o.o. o.o.o .o.o. o.o.o".replace("o", "x").replace(".", "o").replace("x", "."),
    ("D", 2): "o.o.o .o.o. o...o .o.o. o.o.o",
    ("#", 2): ".o.o. ooooo .o.o. ooooo .o.o.",
    ("H", 2): "ooo.. oooo. oo.oo .oooo ..ooo",
    ("A", 2): "o.o.. .oo.. oo.oo ..oo. ..o.o",
    ("3", 2): "..o.. ..o.. oo... ...o. ....o",
    ("B", 3): ".o.o.o. o.o.o.o .o.o.o. o.o.o.o .o.o.o. o.o.o.o .o.o.o.",
    ("D", 3): "o.o.o.o .o.o.o. o.o.o.o .o...o. o.o.o.o .o.o.o. o.o.o.o",
    ("#", 3): "..o.o.. ..o.o.. ooooooo ..o.o.. ooooooo ..o.o.. ..o.o..",
    ("H", 3): "oooo... ooooo.. oooooo. ooo.ooo .oooooo ..ooooo ...oooo",
    ("A", 3): "o..o... .o.o... ..oo... ooo.ooo ...oo.. ...o.o. ...o..o",
    ("3", 3): "...o... ...o... ...o... ooo.... ....o.. .....o. ......o",
}


@pytest.mark.parametrize("key", list(PICTURES), ids=lambda k: f"N{k[0]}-r{k[1]}")
def test_mask_pictures(key):
    letter, r = key
    np.testing.assert_array_equal(neighbourhood_mask(letter, r, False), picture(PICTURES[key]))


# -- custom N@<hex> ------------------------------------------------------------------------------

HELP_CUSTOM = "o...o ..o.. .o.o. ..o.. o...o"  # Golly Help: 10001 00100 01c10 00100 10001 -> 891891


def test_custom_help_example():
    rule = parse_rule("R2,C0,S1-3,B2,N@891891")
    assert rule.neighbourhood == "@891891" and rule.canonical() == "R2,C0,S1-3,B2,N@891891"
    np.testing.assert_array_equal(rule.neighbourhood_mask(), picture(HELP_CUSTOM))
    assert custom_neighbourhood(picture(HELP_CUSTOM)) == "@891891"
    assert neighbourhood_size("@891891", 2) == 8


def test_custom_bit_order():
    """Reading order from the top-left cell, most significant bit first, centre skipped."""
    m = neighbourhood_mask("@800000", 2, False)
    assert m[0, 0] == 1 and m.sum() == 1
    m = neighbourhood_mask("@000001", 2, False)
    assert m[4, 4] == 1 and m.sum() == 1
    m = neighbourhood_mask("@001000", 2, False)  # bit 11: row 2, column 1, just before the centre
    assert m[2, 1] == 1 and m.sum() == 1
    m = neighbourhood_mask("@000800", 2, False)  # bit 12: row 2, column 3, just after the centre
    assert m[2, 3] == 1 and m.sum() == 1
    assert neighbourhood_mask("@FF", 1, True).sum() == 9 and custom_digits(3) == 12
    np.testing.assert_array_equal(neighbourhood_mask("@5A", 1, True), neighbourhood_mask("N", 1, True))


@pytest.mark.parametrize("r", [1, 2, 3, 4])
def test_custom_round_trip_random_masks(r):
    rng = np.random.default_rng(r)
    for _ in range(20):
        mask = (rng.random((2 * r + 1, 2 * r + 1)) < 0.5).astype(np.uint8)
        mask[r, r] = 0
        nb = custom_neighbourhood(mask)
        assert len(nb) == 1 + custom_digits(r)
        np.testing.assert_array_equal(neighbourhood_mask(nb, r, False), mask)
        text = f"R{r},C0,S0-2,B1,N{nb.lower()}"
        rule = parse_rule(text)
        assert rule.canonical() == f"R{r},C0,S0-2,B1,N{nb}" and parse_rule(rule.canonical()) == rule


@pytest.mark.parametrize("letter", ["M", "N", "C", "2", "+", "X", "*"] + NEW)
def test_custom_encoding_of_every_shape_is_the_same_mask(letter):
    for r in (1, 2, 3):
        nb = custom_neighbourhood(neighbourhood_mask(letter, r, True))
        np.testing.assert_array_equal(neighbourhood_mask(nb, r, False), neighbourhood_mask(letter, r, False))


def test_custom_hexagonal_hint_is_kept():
    rule = parse_rule("r1,c0,s2,b2,n@dbh")
    assert rule.canonical() == "R1,C0,S2,B2,N@DBH"
    np.testing.assert_array_equal(rule.neighbourhood_mask(), neighbourhood_mask("H", 1, False))
    assert parse_rule("R1,C0,M1,S1..3,B2..2,N@DBH").canonical() == "R1,C0,M1,S1..3,B2..2,N@DBH"


# -- parsing: count ranges, canonical spellings, errors ------------------------------------------

@pytest.mark.parametrize("letter", NEW)
@pytest.mark.parametrize("r", [1, 2, 3])
def test_count_ranges_follow_the_neighbourhood_size(letter, r):
    n = golly_max_neighbors(letter, r)
    rule = parse_rule(f"R{r},C0,S0-{n},B1,{n},N{letter}")
    assert rule.survival == ((0, n),) and rule.neighbourhood == letter
    with pytest.raises(RuleError, match=rf"birth count {n + 1} is out of range 0..{n}"):
        parse_rule(f"R{r},C0,S0,B{n + 1},N{letter}")
    ltl = parse_rule(f"R{r},C0,M1,S1..{n + 1},B0..{n + 1},N{letter}")
    assert ltl.include_centre and ltl.neighbourhood_mask().sum() == n + 1
    with pytest.raises(RuleError, match=rf"survival count {n + 2} is out of range 1..{n + 1}"):
        parse_rule(f"R{r},C0,M1,S1..{n + 2},B1..1,N{letter}")


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("R3,C2,S2-3,B3,NB", "R3,C0,S2-3,B3,NB"),
        ("r3,c0,s3,2,b3,nd", "R3,C0,S2-3,B3,ND"),
        ("R2,C5,S1,3-4,B2,N#", "R2,C5,S1,3-4,B2,N#"),
        ("R4,C0,S5-9,B6,NH", "R4,C0,S5-9,B6,NH"),
        ("R1,C0,S1-2,B2,nA", "R1,C0,S1-2,B2,NA"),
        ("R5,C0,S1,B1,N3", "R5,C0,S1,B1,N3"),
        ("R2,C0,M0,S2..3,B3..3,NB", "R2,C0,M0,S2..3,B3..3,NB"),
        ("r2,c3,m1,s2..5,b3..4,n#", "R2,C3,M1,S2..5,B3..4,N#"),
        ("R1,C0,M1,S1..3,B1..1,n@5a", "R1,C0,M1,S1..3,B1..1,N@5A"),
    ],
)
def test_canonical_round_trip(text, canonical):
    rule = parse_rule(text)
    assert isinstance(rule, LargerThanLifeRule)
    assert rule.canonical() == canonical
    again = parse_rule(canonical)
    assert again == rule and again.canonical() == canonical


@pytest.mark.parametrize(
    "text, position, words",
    [
        ("R2,C0,S1,B2,N@89189", 14, ["exactly 6 hex digits", "got 5"]),
        ("R2,C0,S1,B2,N@8918910", 14, ["exactly 6 hex digits", "got 7"]),
        ("R1,C0,S1,B2,N@", 14, ["exactly 2 hex digits", "got 0"]),
        ("R2,C0,M1,S1..3,B2..2,N@12345", 23, ["exactly 6 hex digits"]),
        ("R2,C0,S1,B2,N@89G891", 16, ["'G'", "custom"]),
        ("R2,C0,S1,B2,N@891891HX", 20, ["'H'"]),
        ("R2,C0,S1,B2,N@891891L", 20, ["triangular", "not supported", "flips"]),
        ("R1,C0,S1,B2,NL", 12, ["triangular", "not supported"]),
        ("R1,C0,S1,B2,NT", 12, ["unknown neighbourhood", "NT", "N3"]),
        ("R1,C0,S1,B2,NBB", 12, ["unknown neighbourhood"]),
        ("R1,C0,S1,B5,NB", 10, ["birth count 5", "0..4", "NB range 1 has 4 cells"]),
        ("R2,C0,S7,B2,N3", 7, ["survival count 7", "0..6"]),
        ("R2,C0,S1,B9,N@891891", 10, ["birth count 9", "0..8"]),
        ("R0,C0,S1,B1,N@", 0, ["R0", "1..500"]),
    ],
)
def test_errors(text, position, words):
    check_rule_error(text, position, *words)


def test_tables_name_every_golly_letter():
    golly = set("MNC+X*2HBD#@3ALGW")  # ltlalgo.cpp VALIDNEIGHBORHOODS
    assert set(SUPPORTED) | set(UNSUPPORTED) == golly and not set(SUPPORTED) & set(UNSUPPORTED)


def test_neighbourhood_mask_rejects_bad_custom():
    with pytest.raises(ValueError, match="exactly 6 hex digits"):
        neighbourhood_mask("@891", 2, False)
    with pytest.raises(ValueError):
        custom_neighbourhood(np.ones((4, 4)))


# -- engines: orientation and parity ---------------------------------------------------------------

@pytest.mark.parametrize("letter", ["3", "H", "A"])
def test_reference_counts_in_golly_orientation(letter):
    """A lone live cell p is counted by q exactly when p - q is an offset of q's mask (row 0 = above)."""
    r = 3
    mask = neighbourhood_mask(letter, r, False)
    alive = np.zeros((1, 15, 17), dtype=bool)
    alive[0, 7, 8] = True
    count = neighbourhood_count(alive, mask, Topology("plane", 17, 15))[0]
    for qy in range(15):
        for qx in range(17):
            dy, dx = 7 - qy, 8 - qx
            want = mask[dy + r, dx + r] if max(abs(dx), abs(dy)) <= r else 0
            assert count[qy, qx] == want, (qy, qx)


PARITY_RULES = [
    "R3,C0,S2-9,B4-7,NB",
    "R2,C4,S1-4,B2-3,NH",
    "R3,C0,M1,S2..5,B2..3,N3",
    "R2,C0,S2-5,B3-4,N#",
    "R2,C3,S1-3,B2,NA",
    "R2,C0,S0-2,B3,ND",
    "R2,C0,S1-3,B2-3,N@891891",
    "R3,C0,S1-4,B2-3,N@"
    + custom_neighbourhood(neighbourhood_mask("3", 3, False) | neighbourhood_mask("#", 3, False))[1:],
]


@pytest.mark.parametrize("kind", ["torus", "plane"])
@pytest.mark.parametrize("text", PARITY_RULES)
def test_torch_parity_with_reference(text, kind):
    torch = pytest.importorskip("torch")
    rule = parse_rule(text)
    reference, engine = get_engine("numpy"), get_engine("torch")
    rng = np.random.default_rng(zlib.crc32(f"{text} {kind}".encode()))
    for shape in [(1, 1), (2, 5), (7, 9), (24, 31), (33, 20)]:
        live = rng.random((3,) + shape) < rng.uniform(0.2, 0.7)
        cells = (live * rng.integers(1, max(rule.n_states, 2), (3,) + shape)).astype(np.uint8)
        topology = Topology(kind, shape[1], shape[0])
        want = reference.advance(cells, rule, topology, 6)
        got = engine.advance(torch.from_numpy(cells), rule, topology, 6)
        np.testing.assert_array_equal(got.cpu().numpy(), want, err_msg=f"{text} {kind} {shape}")
