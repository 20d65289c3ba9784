"""Rule parsing: Golly's canonical spellings, compiled tables and error messages."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tensorca.families.life_like.hensel import LETTERS, symmetries
from tensorca.families.wolfram.notation import wolfram_table
from tensorca.rules import (
    LargerThanLifeRule,
    TableRule,
    letter_class,
    neighbourhood_mask,
    parse_rule,
    parse_spec,
)

from .conftest import check_rule_error

GOLDEN = [json.loads(line)
          for line in (Path(__file__).parent / "data" / "golden_cases.jsonl").read_text().splitlines() if line.strip()]


def idx(*cells: str) -> int:
    """Table index from compass names of live cells ('C' = centre)."""
    w = {"NW": 256, "N": 128, "NE": 64, "W": 32, "C": 16, "E": 8, "SW": 4, "S": 2, "SE": 1}
    return sum(w[c] for c in cells)


# ---------------------------------------------------------------- canonical spellings

@pytest.mark.parametrize("case", GOLDEN, ids=[c["name"] for c in GOLDEN])
def test_golden_rules_round_trip(case):
    rule_text = case["golly_canonical_rule"].split(":")[0]
    rule, topo = parse_spec(case["rule"])
    assert rule.canonical() == rule_text
    assert parse_rule(rule_text).canonical() == rule_text
    assert rule.n_states == case["states"]
    assert (topo is None) == (case["topology"] == "unbounded_plane")


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("B3/S23", "B3/S23"), ("b3/s23", "B3/S23"), ("23/3", "B3/S23"), ("  B3/S23\t", "B3/S23"),
        ("S23/B3", "B3/S23"), ("B3S23", "B3/S23"), ("B63/S32", "B36/S23"), ("B2", "B2/S"),
        ("B2/S", "B2/S"), ("/3", "B3/S"), ("B0/S8", "B0/S8"), ("B3/S012345678", "B3/S012345678"),
        ("B1357/S1357", "B1357/S1357"), ("B2/S013V", "B2/S013V"), ("b2/s34h", "B2/S34H"),
        # Golly's documented Hensel canonicalisation
        ("B2nic/S", "B2cin/S"), ("B2ceikn/S", "B2-a/S"), ("B2aceikn3/S", "B23/S"),
        ("B4-qjrtwz/S", "B4aceikny/S"), ("B2cekin/S12", "B2-a/S12"), ("B3/2a34", "B3/S2a34"),
        ("B3/S2-i34q", "B3/S2-i34q"), ("B2-aceikn3/S", "B3/S"), ("B4aceijk/S", "B4aceijk/S"),
        ("B4aceijkn/S", "B4aceijkn/S"), ("B4nqkjieca/S", "B4-rtwyz/S"), ("B3aceik/S", "B3aceik/S"),
        ("B3aceikn/S", "B3-jqry/S"), ("B3aceiknj/S", "B3-qry/S"),
        ("B2_S12a", "B2/S12a"),
        ("W30", "W30"), ("w110", "W110"), ("W0", "W0"),
    ],
)
def test_canonical(text, canonical):
    assert parse_rule(text).canonical() == canonical


@pytest.mark.parametrize(
    "text, canonical, states",
    [
        ("345/2/4", "345/2/4", 4), ("B2/S/3", "/2/3", 3), ("/2/3", "/2/3", 3), ("12/34/3", "12/34/3", 3),
        ("23/3/2", "23/3/2", 2), ("B34/S12/3", "12/34/3", 3), ("12/34/3h", "12/34/3H", 3),
        ("3/2-a/256", "3/2-a/256", 256),
        # LifeWiki spellings that Golly rejects but users type: written back in Golly's form.
        ("B2/S/C3", "/2/3", 3), ("/2/G3", "/2/3", 3), ("B345/S2/C4", "2/345/4", 4), ("b2/s/c3", "/2/3", 3),
    ],
)
def test_generations(text, canonical, states):
    rule = parse_rule(text)
    assert rule.canonical() == canonical
    assert rule.n_states == states
    assert rule.family == "generations" and rule.generations


def test_generations_table_is_the_two_state_table():
    assert parse_rule("23/3/5").table == parse_rule("B3/S23").table
    two = parse_rule("23/3/2")
    assert two.n_states == 2 and not two.is_generations and two.family == "generations"


# ---------------------------------------------------------------- tables

def test_life_table_entries():
    t = parse_rule("B3/S23").lookup_table()
    assert t.dtype == np.uint8 and t.shape == (512,)
    assert t[idx("N", "W", "E")] == 1  # birth on 3
    assert t[idx("N", "W")] == 0
    assert t[idx("C", "N", "W")] == 1 and t[idx("C", "N")] == 0  # survival on 2, death on 1
    assert t.sum() == 56 + 28 + 56  # C(8,3) births, C(8,2)+C(8,3) survivals
    rule = parse_rule("B3/S23")
    assert rule.is_outer_totalistic_moore and not rule.has_b0
    assert rule.birth == frozenset({3}) and rule.survival == frozenset({2, 3})
    assert parse_rule("B0/S8").has_b0


def test_von_neumann_table_counts_only_orthogonal_cells():
    rule = parse_rule("B2/S013V")
    t = rule.lookup_table()
    assert t[idx("N", "S")] == 1            # 2 orthogonal neighbours: birth
    assert t[idx("NW", "NE")] == 0          # diagonals do not count: 0 neighbours
    assert t[idx("N", "S", "NW", "SE")] == 1
    assert t[idx("C", "NW", "NE", "SW", "SE")] == 1  # survival on 0
    assert t[idx("C", "N", "S")] == 0       # survival on 2 not in S013
    assert not rule.is_outer_totalistic_moore and rule.neighbourhood == "V"
    assert rule.birth == frozenset({2}) and rule.survival == frozenset({0, 1, 3})


def test_hexagonal_table_ignores_ne_and_sw():
    rule = parse_rule("B2/S34H")
    t = rule.lookup_table()
    assert t[idx("NE", "SW")] == 0          # both ignored
    assert t[idx("NW", "SE")] == 1
    assert t[idx("N", "NE", "E")] == 1      # NE ignored: count 2
    assert t[idx("C", "N", "W", "E")] == 1 and t[idx("C", "NE", "SW", "N")] == 0
    assert not rule.is_outer_totalistic_moore and rule.neighbourhood == "H"


def test_hensel_classes_partition_each_count():
    """The 51 letters name disjoint, symmetry-closed sets covering all 256 neighbourhoods."""
    seen: dict[int, str] = {}
    n_classes = 0
    for count in range(9):
        letters = LETTERS[count] or " "
        for letter in letters:
            cls = (frozenset(i for i in range(512) if not i & 16 and bin(i).count("1") == count)
                   if letter == " " else letter_class(count, letter))
            n_classes += 1
            for i in cls:
                assert not i & 16 and bin(i).count("1") == count
                assert symmetries(i) <= cls
                assert i not in seen, (count, letter, seen.get(i))
                seen[i] = f"{count}{letter}"
    assert n_classes == 51 and len(seen) == 256


@pytest.mark.parametrize(
    "name, cells",
    [
        ("1c", ("NE",)), ("1e", ("N",)), ("2a", ("N", "NE")), ("2c", ("NW", "NE")), ("2e", ("N", "E")),
        ("2i", ("N", "S")), ("2k", ("N", "SE")), ("2n", ("NW", "SE")), ("3i", ("NW", "N", "NE")),
        ("3e", ("N", "W", "E")), ("3c", ("NW", "NE", "SE")), ("4q", ("NW", "N", "W", "SE")),
        ("4z", ("NW", "N", "S", "SE")), ("4t", ("NW", "N", "NE", "S")), ("4e", ("N", "W", "E", "S")),
        ("4c", ("NW", "NE", "SW", "SE")), ("8", ("NW", "N", "NE", "W", "E", "SW", "S", "SE")),
    ],
)
def test_hensel_letters_match_hensel_pictures(name, cells):
    count, letter = int(name[0]), name[1:]
    i = idx(*cells)
    if letter:
        assert i in letter_class(count, letter)
    t = parse_rule(f"B{name}/S").lookup_table()
    assert t[i] == 1 and t.sum() == len(symmetries(i))


def test_hensel_negation_and_survival():
    t = parse_rule("B2-a/S12").lookup_table()
    assert t[idx("N", "NE")] == 0 and t[idx("N", "S")] == 1       # 2a excluded, 2i kept
    assert t[idx("C", "N", "NE")] == 1                            # survival totalistic 2
    rule = parse_rule("B2-a/S12")
    assert rule.kind == "hensel" and rule.birth is None and not rule.is_outer_totalistic_moore
    collapsed = parse_rule("B2aceikn3/S")
    assert collapsed.kind == "bs" and collapsed.birth == frozenset({2, 3})
    assert collapsed.table == parse_rule("B23/S").table


def test_map_round_trip():
    life = parse_rule("B3/S23")
    bits = "".join(str(b) for b in life.table)
    raw = int(bits, 2).to_bytes(64, "big")
    text = "MAP" + base64.b64encode(raw).decode()  # 88 characters with '==' padding
    rule = parse_rule(text)
    assert rule.table == life.table and rule.kind == "map"
    assert rule.canonical() == text.rstrip("=") and len(rule.canonical()) == 3 + 86
    assert parse_rule(text.rstrip("=")).canonical() == rule.canonical()
    assert parse_rule("map" + text[3:]).table == life.table


def test_map_bit_order_nw_most_significant():
    # only the configuration 'NW alone' (index 256) gives birth
    bits = ["0"] * 512
    bits[256] = "1"
    text = "MAP" + base64.b64encode(int("".join(bits), 2).to_bytes(64, "big")).decode().rstrip("=")
    t = parse_rule(text).lookup_table()
    assert t[idx("NW")] == 1 and t.sum() == 1


def test_map_short_forms():
    # von Neumann MAP: 32 bits over N W C E S; birth when exactly N is alive (k = 0b10000)
    bits = ["0"] * 36
    bits[16] = "1"
    chars = "".join("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[int("".join(bits[i:i + 6]), 2)]
                    for i in range(0, 36, 6))
    rule = parse_rule("MAP" + chars)
    t = rule.lookup_table()
    assert rule.neighbourhood == "V" and rule.canonical() == "MAP" + chars
    assert t[idx("N")] == 1 and t[idx("N", "NW", "SE")] == 1 and t[idx("W")] == 0
    hexmap = parse_rule("MAP" + "A" * 22)
    assert hexmap.neighbourhood == "H" and hexmap.lookup_table().sum() == 0


def test_generations_map():
    life = parse_rule("B3/S23")
    text = "MAP" + base64.b64encode(int("".join(map(str, life.table)), 2).to_bytes(64, "big")).decode()
    rule = parse_rule(text + "/3")
    assert rule.n_states == 3 and rule.table == life.table
    assert rule.canonical() == text.rstrip("=") + "/3"


@pytest.mark.parametrize("n", [0, 30, 90, 110, 254])
def test_wolfram_table(n):
    rule = parse_rule(f"W{n}")
    t = rule.lookup_table()
    assert rule.kind == "wolfram" and rule.wolfram == n and rule.family == "wolfram"
    for nw in (0, 1):
        for north in (0, 1):
            for ne in (0, 1):
                cells = [c for c, v in (("NW", nw), ("N", north), ("NE", ne)) if v]
                expect = (n >> (4 * nw + 2 * north + ne)) & 1
                assert t[idx(*cells)] == expect
                assert t[idx(*cells, "SW", "S")] == expect  # the rows below do not matter
                assert t[idx(*cells, "C")] == 1             # live cells stay alive
    assert rule.table == wolfram_table(n)


# ---------------------------------------------------------------- Larger than Life

def test_ltl_fields():
    rule = parse_rule("R5,C0,M1,S34..58,B34..45,NM")
    assert isinstance(rule, LargerThanLifeRule)
    assert (rule.radius, rule.n_states, rule.include_centre) == (5, 2, True)
    assert rule.survival == ((34, 58),) and rule.birth == ((34, 45),)
    mask = rule.neighbourhood_mask()
    assert mask.shape == (11, 11) and mask.dtype == np.uint8 and mask.sum() == 121


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("R4,C0,M1,S41..81,B41..81,NM", "R4,C0,M1,S41..81,B41..81,NM"),
        ("r1,c0,m0,s2..3,b3..3,nm", "R1,C0,M0,S2..3,B3..3,NM"),
        ("R2,C2,M0,S1..3,B2..2,NN", "R2,C0,M0,S1..3,B2..2,NN"),
        ("R10,C255,M1,S2..3,B3..3,NM", "R10,C255,M1,S2..3,B3..3,NM"),
        ("1,3,3,3,4", "R1,C0,M1,S3..4,B3..3,NM"),
        ("R3,C2,S0,7-12,27,B8,12,20-27,N2", "R3,C0,S0,7-12,27,B8,12,20-27,N2"),
        ("R1,C0,S2-3,B3", "R1,C0,S2-3,B3"),
        ("R1,C0,S3,2,B3,NM", "R1,C0,S2-3,B3"),
        ("R2,C3,S,B3,NC", "R2,C3,S,B3,NC"),
    ],
)
def test_ltl_canonical(text, canonical):
    assert parse_rule(text).canonical() == canonical


def test_hrot_intervals_and_states():
    rule = parse_rule("R3,C4,S0,7-12,27,B8,12,20-27,N2")
    assert rule.survival == ((0, 0), (7, 12), (27, 27)) and rule.birth == ((8, 8), (12, 12), (20, 27))
    assert rule.n_states == 4 and not rule.include_centre and rule.neighbourhood == "2"


@pytest.mark.parametrize("r", [1, 2, 5, 10])
def test_neighbourhood_mask_sizes(r):
    side = 2 * r + 1
    assert neighbourhood_mask("M", r, True).sum() == side * side
    assert neighbourhood_mask("M", r, False).sum() == side * side - 1
    assert neighbourhood_mask("N", r, True).sum() == 2 * r * (r + 1) + 1
    assert neighbourhood_mask("+", r, False).sum() == 4 * r
    assert neighbourhood_mask("X", r, False).sum() == 4 * r
    assert neighbourhood_mask("*", r, False).sum() == 8 * r
    circ = neighbourhood_mask("C", r, True)
    assert (circ == circ.T).all() and (circ == circ[::-1]).all()


def test_circular_mask_matches_golly_row_widths():
    # Golly: row dy has half-width w = max w with w^2 + dy^2 <= r^2 + r
    r = 6
    m = neighbourhood_mask("C", r, True)
    for dy in range(-r, r + 1):
        w = max(w for w in range(r + 1) if w * w + dy * dy <= r * r + r)
        assert m[dy + r].sum() == 2 * w + 1
    assert neighbourhood_mask("C", 1, False).sum() == 8
    assert neighbourhood_mask("2", 1, False).sum() == 4


# ---------------------------------------------------------------- spec / topology

def test_parse_spec():
    rule, topo = parse_spec("B3/S23:T64,64")
    assert rule.canonical() == "B3/S23" and topo.kind == "torus" and topo.shape == (64, 64)
    rule, topo = parse_spec("R5,C0,M1,S34..58,B34..45,NM:P30,20")
    assert rule.radius == 5 and topo.kind == "plane" and topo.shape == (20, 30)
    assert parse_spec("345/2/4")[1] is None


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "text, position, words",
    [
        ("", 0, ["empty"]),
        ("   ", 3, ["empty"]),
        ("B3x/S23", 2, ["'x'"]),
        ("B1a/S", 2, ["'a'", "count 1", "valid letters: ce"]),
        ("B0c/S", 2, ["count 0"]),
        ("B5z/S", 2, ["'z'", "count 5"]),
        ("B9/S23", 1, ["9", "0..8"]),
        ("B3/S5V", 4, ["5", "0..4", "von Neumann"]),
        ("B3/S7H", 4, ["7", "0..6"]),
        ("B3/S2/3/4", 7, ["too many slashes"]),
        ("B3//S23", 4, ["Generations", "two slashes"]),
        ("B3/S23/", 7, ["number of states"]),
        ("B3/S2b3", 5, ["only one B"]),
        ("B3S23B", 5, ["only one B"]),
        ("B2a/S-3", 5, ["'-'"]),
        ("B2-/S", 2, ["'-'", "followed by letters"]),
        ("B2a2-c/S", 3, ["mixes"]),
        ("B2aV/S", 3, ["must be at the end"]),
        ("B2a/S1V", 2, ["Moore"]),
        ("B3_S23", 2, ["underscore"]),
        ("3", 0, ["slash or B or S"]),
        ("MAPABC", 3, ["86", "got 3"]),
        ("MAP" + "A" * 85 + "*", 88, ["illegal base64", "'*'"]),
        ("R0,C0,M1,S1..1,B1..1,NM", 0, ["R0", "1..500"]),
        ("R501,C0,M1,S1..1,B1..1,NM", 0, ["R501", "1..500"]),
        ("R2,C0,M1,S9..3,B1..1,NM", 10, ["reversed", "9..3"]),
        ("R2,C0,S1,9-3,B1", 9, ["reversed", "9-3"]),
        ("R2,C0,M1,S1..1,B1..1,NQ", 21, ["unknown neighbourhood", "NQ"]),
        ("R2,C0,M1,S1..1,B1..1,NL", 21, ["triangular", "not supported"]),
        ("R1,C0,M1,S1..10,B1..1,NM", 10, ["10", "1..9"]),
        ("R1,C0,M1,S0..3,B1..1,NM", 10, ["survival count 0", "1..9"]),
        ("R1,C0,S1,B9", 10, ["birth count 9", "0..8"]),
        ("R1,C300,S1,B3", 3, ["C300", "0..256"]),
        ("R1,C3,S1,B0-2", 10, ["B0", "more than 2 states"]),
        ("W31", 1, ["even", "0 to 254", "tensorca.elementary"]),
        ("W256", 1, ["even", "0 to 254"]),
        ("W3x", 2, ["'x'"]),
        ("23/3/1", 5, ["2 to 256", "got 1"]),
        ("23/3/257", 5, ["2 to 256", "257"]),
        ("B2/S/C", 6, ["missing after the 'C'/'G' prefix"]),
        ("B2/S/Cx", 6, ["'x'"]),
        ("B0/S/3", 0, ["B0"]),
        ("B3/S23:T64,64", 6, ["parse_spec", "':'"]),
    ],
)
def test_errors(text, position, words):
    check_rule_error(text, position, *words)


def test_error_positions_count_leading_whitespace():
    check_rule_error("  B9/S", 3, "9")


def test_rule_error_is_value_error():
    with pytest.raises(ValueError):
        parse_rule("B1a/S")


# ---------------------------------------------------------------- end to end against Golly

def _decode_rle(rle: str, height: int, width: int) -> np.ndarray:
    body = "".join(line for line in rle.splitlines() if not line.startswith(("#", "x")))
    grid = np.zeros((height, width), np.uint8)
    y = x = 0
    for count, tag in re.findall(r"(\d*)([bo.$!A-Z]|[p-y][A-Z])", body):
        n = int(count) if count else 1
        if tag == "$":
            y, x = y + n, 0
        elif tag == "!":
            break
        else:
            value = 0 if tag in "b." else 1 if tag == "o" else (
                ord(tag) - 64 if len(tag) == 1 else (ord(tag[0]) - ord("p") + 1) * 24 + ord(tag[1]) - 64)
            grid[y, x : x + n] = value
            x += n
    return grid


def _step(grid: np.ndarray, rule: TableRule) -> np.ndarray:
    """Torus step straight from the definition of the table (reference for this test only)."""
    alive = (grid == 1).astype(np.int64)
    index = sum(int(w) * np.roll(alive, (1 - y, 1 - x), axis=(0, 1))
                for (y, x), w in np.ndenumerate(np.array([[256, 128, 64], [32, 16, 8], [4, 2, 1]])))
    hit = rule.lookup_table()[index] == 1
    nxt = np.where(grid == 1, np.where(hit, 1, 2 if rule.n_states > 2 else 0),
                   np.where(grid == 0, hit.astype(np.int64), (grid.astype(np.int64) + 1) % rule.n_states))
    return nxt.astype(np.uint8)


TORUS_TABLE_CASES = [c for c in GOLDEN
                     if c["topology"] == "torus" and c["algo"] != "Larger than Life" and c["generations"] <= 200]


@pytest.mark.parametrize("case", TORUS_TABLE_CASES, ids=[c["name"] for c in TORUS_TABLE_CASES])
def test_tables_reproduce_golly_on_torus(case):
    rule, topo = parse_spec(case["rule"])
    h, w = topo.shape
    grid = _decode_rle(case["initial_rle"], h, w)
    assert hashlib.sha256(grid.tobytes()).hexdigest() == case["initial_sha256"]
    for _ in range(case["generations"]):
        grid = _step(grid, rule)
    assert hashlib.sha256(grid.tobytes()).hexdigest() == case["final_sha256"]


# ---------------------------------------------------------------- properties

@st.composite
def hensel_rules(draw):
    parts = []
    for _ in range(2):
        text = ""
        for count in sorted(draw(st.sets(st.integers(0, 8), max_size=5))):
            letters = LETTERS[count]
            chosen = draw(st.sets(st.sampled_from(letters), max_size=len(letters))) if letters else set()
            neg = bool(chosen) and draw(st.booleans()) and len(chosen) < len(letters)
            text += f"{count}{'-' if neg else ''}{''.join(sorted(chosen))}"
        parts.append(text)
    return f"B{parts[0]}/S{parts[1]}"


@settings(max_examples=200, deadline=None)
@given(hensel_rules())
def test_canonical_spelling_is_a_fixed_point(text):
    rule = parse_rule(text)
    again = parse_rule(rule.canonical())
    assert again.table == rule.table
    assert again.canonical() == rule.canonical()


def test_map_strings_containing_slash_are_base64_not_separators():
    # '/' and '+' are base64 digits; a 6-bit value of 63 encodes as '/'.
    text = "MAPcyTPkIpB1pRXOHZ/N7B8rWP4bl1OzCaqmc1OwLYGXiALd92I2+S7qbfjnuMO6SRXMChPVGt3pZu4CzV2Iyr0MA"
    rule = parse_rule(text)
    assert rule.kind == "map" and rule.n_states == 2 and rule.canonical() == text
    generations = parse_rule(text + "/5")
    assert generations.n_states == 5 and generations.family == "generations"
    assert generations.table == rule.table and generations.canonical() == text + "/5"
