"""Pattern I/O: Golly's golden RLE, known patterns, round trips, detection and every error."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorca.io as tio
from tensorca.errors import PatternError, RuleError, TensorcaError, TopologyError, UsageError
from tensorca.pattern import Pattern
from tensorca.rules import parse_spec
from tensorca.topology import Topology, parse_topology

DATA = Path(__file__).parent / "data"
PATTERNS = DATA / "patterns"
GOLDEN = [json.loads(line) for line in (DATA / "golden_cases.jsonl").read_text().splitlines() if line.strip()]

GLIDER = np.array([[0, 1, 0], [0, 0, 1], [1, 1, 1]], dtype=np.uint8)


def canonical(pattern: Pattern) -> str | None:
    return pattern.rule.canonical() if pattern.rule is not None else None


def sha(grid: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(grid.astype(np.uint8)).tobytes()).hexdigest()


def error_at(text: str, line: int, column: int | None, match: str, **kwargs) -> PatternError:
    with pytest.raises(PatternError, match=match) as info:
        tio.loads(text, **kwargs)
    assert (info.value.line, info.value.column) == (line, column)
    return info.value


# --- golden RLE from Golly -----------------------------------------------------------------


def _placed(pattern: Pattern, case: dict) -> np.ndarray:
    if case["width"] is None:  # unbounded: hash the crop to the bounding box
        return pattern.cropped().cells
    grid = np.zeros((case["height"], case["width"]), np.uint8)
    h, w = pattern.cells.shape
    grid[:h, :w] = pattern.cells
    return grid


@pytest.mark.parametrize("case", GOLDEN, ids=[c["name"] for c in GOLDEN])
@pytest.mark.parametrize("which", ["initial", "final"])
def test_golden_rle_decodes_to_gollys_grid(case, which):
    pattern = tio.loads(case[f"{which}_rle"])
    grid = _placed(pattern, case)
    assert sha(grid) == case[f"{which}_sha256"]
    assert int(np.count_nonzero(grid)) == case[f"{which}_population"]
    assert pattern.max_state < case["states"]
    if case["width"] is not None:
        assert pattern.cells.shape == (case["height"], case["width"])
        assert pattern.topology == parse_topology(case["rule"].split(":")[1])
    else:
        assert pattern.topology == Topology.unbounded()


def test_golden_cases_all_present():
    assert len(GOLDEN) == 27


@pytest.mark.parametrize("case", GOLDEN, ids=[c["name"] for c in GOLDEN])
def test_golden_rle_rewrites_to_the_same_grid(case):
    pattern = tio.loads(case["final_rle"])
    again = tio.loads(tio.dumps(pattern))
    assert again == pattern


# --- known patterns ------------------------------------------------------------------------


def test_glider_file():
    p = tio.load(PATTERNS / "glider.rle")
    assert np.array_equal(p.cells, GLIDER)
    assert p.cells.dtype == np.uint8
    assert (p.population, p.bounding_box()) == (5, (0, 0, 3, 3))
    assert canonical(p) == "B3/S23"
    assert p.topology == Topology.unbounded()
    assert p.name == "Glider" and p.author == "Richard K. Guy"
    assert p.comments[0].startswith("The smallest")
    assert (p.origin, p.generation) == ((0, 0), 0)


def test_gosper_gun_file():
    p = tio.load(PATTERNS / "gosper_glider_gun.rle")
    assert p.cells.shape == (9, 36)
    assert p.population == 36
    assert p.cells[0, 24] == 1 and p.cells[4, 0] == 1 and p.cells[3, 35] == 1


def test_rpentomino_cells_file():
    p = tio.load(PATTERNS / "rpentomino.cells")
    assert np.array_equal(p.cells, [[0, 1, 1], [1, 1, 0], [0, 1, 0]])
    assert p.name == "R-pentomino" and p.rule is None
    assert p.comments == ["A methuselah that stabilizes at generation 1103."]


def test_life106_file_keeps_absolute_coordinates():
    p = tio.load(PATTERNS / "glider.lif")
    assert np.array_equal(p.cells, GLIDER)
    assert p.origin == (-1, -1)
    assert p.bounding_box() == (-1, -1, 3, 3)


def test_life105_file():
    p = tio.load(PATTERNS / "acorn_105.lif")
    assert np.array_equal(p.cells, [[0, 1, 0, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0], [1, 1, 0, 0, 1, 1, 1]])
    assert p.origin == (-3, -1)
    assert canonical(p) == "B3/S23"
    assert p.comments == ["Acorn", "A methuselah."]


def test_life105_multiple_blocks_and_rule():
    p = tio.loads("#Life 1.05\n#R 23/3\n#P 0 0\n*\n#P 4 2\n.*\n")
    assert p.origin == (0, 0) and p.cells.shape == (3, 6)
    assert p.cells[0, 0] == 1 and p.cells[2, 5] == 1 and p.population == 2
    assert canonical(p) == "B3/S23"  # Life 1.05 writes S/B; Golly reads 23/3 as B3/S23


def test_gzip_detected_by_magic_not_name():
    for name in ("glider.rle.gz", "glider_gz_no_ext.rle"):
        p = tio.load(PATTERNS / name)
        assert np.array_equal(p.cells, GLIDER) and p.name == "Glider"


def test_load_from_open_files():
    with open(PATTERNS / "glider.rle", "rb") as f:
        assert np.array_equal(tio.load(f).cells, GLIDER)
    with open(PATTERNS / "glider.rle") as f:
        assert np.array_equal(tio.load(f).cells, GLIDER)
    assert np.array_equal(tio.load(io.BytesIO(gzip.compress(b"bo$2bo$3o!"))).cells, GLIDER)


def test_xrle_position_and_generation_multistate():
    p = tio.load(PATTERNS / "brain_xrle.rle")
    assert (p.origin, p.generation) == ((-5, 7), 42)
    assert np.array_equal(p.cells, [[0, 1, 2, 0], [2, 0, 0, 1]])
    assert canonical(p) == "/2/3"
    assert p.bounding_box() == (-5, 7, 4, 2)


# --- RLE reader details --------------------------------------------------------------------


def test_headerless_rle():
    p = tio.loads("bo$2bo$3o!")
    assert np.array_equal(p.cells, GLIDER)
    assert p.rule is None and p.topology == Topology.unbounded()


def test_missing_bang_tolerated_and_text_after_bang_ignored():
    assert np.array_equal(tio.loads("x = 3, y = 3\nbo$2bo$3o").cells, GLIDER)
    assert np.array_equal(tio.loads("x = 3, y = 3\nbo$2bo$3o! trailing words ?!").cells, GLIDER)


def test_run_counts_before_dollar_and_blank_rows():
    p = tio.loads("x = 2, y = 5\no3$bo!")
    assert np.array_equal(p.cells, [[1, 0], [0, 0], [0, 0], [0, 1], [0, 0]])


def test_header_larger_than_content_pads_with_dead():
    p = tio.loads("x = 10, y = 7, rule = B3/S23\nbo$2bo$3o!")
    assert p.cells.shape == (7, 10)
    assert np.array_equal(p.cells[:3, :3], GLIDER) and p.population == 5


def test_content_beyond_header_grows_the_array():
    p = tio.loads("x = 1, y = 1\nbo$2bo$3o!")
    assert np.array_equal(p.cells, GLIDER)


def test_whitespace_anywhere_and_very_long_lines():
    p = tio.loads("x = 3, y = 3\n b o $ 2\nb o\r\n$ 3o ! ")
    assert np.array_equal(p.cells, GLIDER)
    wide = "o" * 100_000
    q = tio.loads(f"x = 100000, y = 1\n{wide}!")
    assert q.cells.shape == (1, 100_000) and q.population == 100_000


def test_header_without_spaces_and_crlf():
    p = tio.loads("x=3,y=3,rule=B3/S23\r\nbo$2bo$3o!\r\n")
    assert np.array_equal(p.cells, GLIDER) and canonical(p) == "B3/S23"


def test_rule_with_commas_and_topology():
    p = tio.loads("x = 2, y = 1, rule = R5,C0,M1,S34..58,B34..45,NM:T64,64\n2o!")
    assert canonical(p).startswith("R5,C0,M1")
    assert p.topology == Topology.torus(64, 64)
    q = tio.loads("x = 2, y = 1, rule = B3/S23:P30,20,\n2o!")  # Golly drops a trailing comma
    assert q.topology == Topology.plane(30, 20)


def test_hash_r_rule_line_and_position_lines():
    p = tio.loads("#r B36/S23\n#P 4 -2\nx = 3, y = 3\nbo$2bo$3o!")
    assert canonical(p) == "B36/S23" and p.origin == (4, -2)
    q = tio.loads("#R -1 9\nbo$2bo$3o!")
    assert q.origin == (-1, 9)


def test_lowercase_c_comments_and_comment_lines_inside_the_body():
    p = tio.loads("#c lower\nx = 3, y = 3\nbo$\n#C middle\n2bo$3o!")
    assert p.comments == ["lower", "middle"]
    assert np.array_equal(p.cells, GLIDER)


def test_multistate_letters_up_to_255():
    p = tio.loads("x = 7, y = 1\n.AXpAyO2B!")
    assert p.cells.tolist() == [[0, 1, 24, 25, 255, 2, 2]]


def test_lone_p_to_y_is_state_one_as_in_golly():
    assert tio.loads("x = 2, y = 1\npo!").cells.tolist() == [[1, 1]]


def test_mixed_two_state_and_multistate_letters():
    assert tio.loads("x = 4, y = 1, rule = /2/3\nb.AB!").cells.tolist() == [[0, 0, 1, 2]]


def test_empty_pattern_with_header():
    p = tio.loads("x = 0, y = 0, rule = B3/S23\n!")
    assert p.cells.shape == (0, 0) and p.population == 0 and p.bounding_box() is None


# --- content detection ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, fmt",
    [
        ("x = 3, y = 3\nbo$2bo$3o!", "rle"),
        ("#C hi\nx = 1, y = 1\no!", "rle"),
        ("bo$2bo$3o!", "rle"),
        ("3o!", "rle"),
        ("#CXRLE Pos=0,0\nx = 1, y = 1\no!", "rle"),
        ("!Name: x\n.O\nO.", "cells"),
        (".O\nO.\n", "cells"),
        ("OO\n", "cells"),
        ("\n\n#Life 1.06\n0 0\n", "life106"),
        ("#Life 1.05\n#P 0 0\n*\n", "life105"),
    ],
)
def test_detect_format_by_content(text, fmt):
    assert tio.detect_format(text) == fmt
    tio.loads(text)  # and each reads


def test_plaintext_aliases_padding_and_late_comments():
    p = tio.loads("!comment\n.O*o\nO\n\n.\n!late\n")
    assert p.cells.tolist() == [[0, 1, 1, 1], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    assert p.comments == ["comment", "late"]


def test_explicit_format_overrides_detection():
    # 'OO' is plaintext by detection, but RLE 'O' is state 15
    assert tio.loads("OO", format="rle").cells.tolist() == [[15, 15]]
    assert tio.loads("OO", format="plaintext").cells.tolist() == [[1, 1]]


# --- writers -------------------------------------------------------------------------------


def test_rle_writer_layout():
    p = Pattern(cells=np.pad(GLIDER, ((2, 3), (0, 4))), origin=(3, -4), generation=7, name="Glider",
                comments=["a", "b"])
    p.rule = parse_spec("B3/S23")[0]
    text = tio.dumps(p)
    assert text.splitlines() == [
        "#CXRLE Pos=3,-4 Gen=7",
        "#N Glider",
        "#C a",
        "#C b",
        "x = 7, y = 8, rule = B3/S23",
        "2$bo$2bo$3o!",
    ]


def test_rle_writer_merges_empty_rows_and_omits_trailing_dead():
    cells = np.zeros((6, 5), np.uint8)
    cells[0, 0] = cells[4, 1] = 1
    assert tio.dumps(Pattern(cells=cells)).splitlines()[-1] == "o4$bo!"


def test_rle_writer_lines_at_most_70_and_golly_header():
    rng = np.random.default_rng(1)
    cells = (rng.random((50, 200)) < 0.4).astype(np.uint8)
    rule, topology = parse_spec("B3/S23:T200,50")
    p = Pattern(cells=cells, rule=rule, topology=topology)
    text = tio.dumps(p)
    assert text.splitlines()[0] == "x = 200, y = 50, rule = B3/S23:T200,50"
    assert max(len(line) for line in text.splitlines()) <= 70
    assert tio.loads(text) == p


def test_multistate_writer_uses_dot_and_letters():
    p = tio.loads("x = 3, y = 1, rule = 345/2/4\nABC!")
    assert tio.dumps(p).splitlines()[-1] == "ABC!"
    two = tio.loads("x = 3, y = 1, rule = B3/S23\nbo!")
    assert tio.dumps(two).splitlines()[-1] == "bo!"


def test_empty_pattern_rle():
    p = Pattern(cells=np.zeros((3, 4), np.uint8))
    assert tio.dumps(p) == "x = 4, y = 3\n!\n"
    assert tio.loads(tio.dumps(p)) == p


def test_writers_reject_states_their_format_cannot_hold():
    p = Pattern(cells=np.array([[0, 2]], np.uint8))
    for fmt in ("cells", "life106", "life105"):
        with pytest.raises(PatternError, match="only states 0 and 1"):
            tio.dumps(p, fmt)
    p.rule = parse_spec("B3/S23")[0]
    with pytest.raises(PatternError, match="has 2 states"):
        tio.dumps(p)


def test_life106_writer_absolute_coordinates():
    p = Pattern(cells=GLIDER, origin=(10, -3))
    assert tio.dumps(p, "life106").splitlines() == ["#Life 1.06", "11 -3", "12 -2", "10 -1", "11 -1", "12 -1"]


def test_cells_writer():
    p = Pattern(cells=GLIDER, name="Glider", comments=["first"])
    assert tio.dumps(p, "cells").splitlines() == ["!Name: Glider", "! first", ".O.", "..O", "OOO"]


# --- round trips ---------------------------------------------------------------------------


def grids(max_state: int, max_side: int = 40):
    shapes = st.tuples(st.integers(1, max_side), st.integers(1, max_side))
    return shapes.flatmap(
        lambda hw: st.lists(
            st.integers(0, max_state) | st.just(0), min_size=hw[0] * hw[1], max_size=hw[0] * hw[1]
        ).map(lambda v: np.array(v, dtype=np.uint8).reshape(hw))
    )


origins = st.tuples(st.integers(-10**6, 10**6), st.integers(-10**6, 10**6))


@settings(max_examples=60, deadline=None)
@given(cells=grids(1), origin=origins, generation=st.integers(0, 10**9))
def test_rle_two_state_round_trip(cells, origin, generation):
    rule = parse_spec("B36/S23")[0]
    p = Pattern(cells=cells, rule=rule, origin=origin, generation=generation, name="n", comments=["c"])
    text = tio.dumps(p)
    assert max(len(line) for line in text.splitlines()) <= 70
    assert tio.loads(text) == p


@settings(max_examples=60, deadline=None)
@given(cells=grids(255), origin=origins, generation=st.integers(0, 10**9))
def test_rle_multistate_round_trip_without_rule(cells, origin, generation):
    p = Pattern(cells=cells, origin=origin, generation=generation)
    text = tio.dumps(p)
    assert max(len(line) for line in text.splitlines()) <= 70
    back = tio.loads(text)
    assert back == p and back.rule is None


@settings(max_examples=30, deadline=None)
@given(cells=grids(255, 20))
def test_rle_256_state_generations_round_trip(cells):
    rule, _ = parse_spec("/2/256")
    p = Pattern(cells=cells, rule=rule)
    back = tio.loads(tio.dumps(p))
    assert back == p and back.rule.n_states == 256


@settings(max_examples=30, deadline=None)
@given(cells=grids(3))
def test_rle_generations_round_trip_keeps_rule_and_topology(cells):
    h, w = cells.shape
    rule, topology = parse_spec(f"345/2/4:T{w},{h}")
    p = Pattern(cells=cells, rule=rule, topology=topology)
    back = tio.loads(tio.dumps(p))
    assert back == p and canonical(back) == "345/2/4" and back.topology == Topology.torus(w, h)


@settings(max_examples=40, deadline=None)
@given(cells=grids(1))
def test_plaintext_round_trip(cells):
    p = Pattern(cells=cells, name="random", comments=["x", " indented", ""])
    assert tio.loads(tio.dumps(p, "cells")) == p


@settings(max_examples=40, deadline=None)
@given(cells=grids(1), origin=origins)
def test_life106_round_trip_keeps_cropped_cells_and_position(cells, origin):
    p = Pattern(cells=cells, origin=origin)
    back = tio.loads(tio.dumps(p, "life106"))
    assert back == p.cropped()


@settings(max_examples=40, deadline=None)
@given(cells=grids(1), origin=origins)
def test_life105_round_trip(cells, origin):
    p = Pattern(cells=cells, origin=origin, name="nm", comments=["d"])
    back = tio.loads(tio.dumps(p, "life105"))
    assert back == p.cropped()


@pytest.mark.parametrize(
    "name, fmt",
    [("p.rle", "rle"), ("p.rle.gz", "rle"), ("p.cells", "cells"), ("p.lif", "life106"), ("p.life.gz", "life106")],
)
def test_save_picks_format_by_extension_and_gzip(tmp_path, name, fmt):
    rule = parse_spec("B3/S23")[0]
    p = Pattern(cells=GLIDER, rule=rule if fmt == "rle" else None, name="g" if fmt != "life106" else None)
    path = tmp_path / name
    tio.save(path, p)
    raw = path.read_bytes()
    assert (raw[:2] == b"\x1f\x8b") == name.endswith(".gz")
    text = gzip.decompress(raw).decode() if name.endswith(".gz") else raw.decode()
    assert tio.detect_format(text) == fmt
    assert tio.load(path) == p


def test_save_unknown_extension():
    with pytest.raises(UsageError, match="cannot tell the pattern format"):
        tio.save("pattern.txt", Pattern(cells=GLIDER))


# --- Pattern value -------------------------------------------------------------------------


def test_pattern_helpers():
    p = Pattern(cells=np.pad(GLIDER, 2), origin=(10, 20))
    assert p.population == 5
    assert p.bounding_box() == (12, 22, 3, 3)
    c = p.cropped()
    assert np.array_equal(c.cells, GLIDER) and c.origin == (12, 22)
    assert c != p and c == p.cropped()
    assert "population=5" in repr(p)
    assert Pattern(cells=[[0, 1]]).cells.dtype == np.uint8
    with pytest.raises(ValueError):
        Pattern(cells=np.zeros((2, 2, 2)))


# --- budget --------------------------------------------------------------------------------


def test_huge_header_rejected_without_allocating():
    start = time.perf_counter()
    error_at("x = 100000000, y = 100000000\no!", 1, 1, "exceeds the cell budget")
    assert time.perf_counter() - start < 1


def test_huge_run_count_rejected_quickly():
    start = time.perf_counter()
    error_at("x = 3, y = 3\nbo$1000000000000o!", 2, 4, "run count 1000000000000 exceeds the cell budget")
    error_at("bo$1000000000000$o!", 1, 4, "run count")
    assert time.perf_counter() - start < 1


def test_budget_is_configurable():
    error_at("x = 10, y = 10\no!", 1, 1, "budget of 50", max_cells=50)
    error_at("x = 5, y = 5\n4$20o!", 2, 3, "RLE content of 20 x 5", max_cells=50)
    error_at("#Life 1.06\n0 0\n100 100\n", None, None, "bounding box", max_cells=1000)
    error_at("." * 100 + "O\n" + "\n" * 100 + "O\n", 1, 1, "plaintext pattern", max_cells=1000)
    assert tio.loads("x = 10, y = 10\no!", max_cells=100).cells.shape == (10, 10)


# --- errors users can hit: type, line and column -------------------------------------------


def test_error_is_a_tensorca_and_value_error():
    with pytest.raises(TensorcaError):
        tio.loads("x = 3, y = 3\nbo$2bo$3k!")
    with pytest.raises(ValueError):
        tio.loads("x = 3, y = 3\nbo$2bo$3k!")


def test_error_unknown_character_in_body():
    e = error_at("#C c\nx = 3, y = 3\nbo$2bo$3k!", 3, 9, r"unexpected character 'k'")
    assert str(e).startswith("<string>:3:9:")


def test_error_message_names_the_file(tmp_path):
    path = tmp_path / "bad.rle"
    path.write_text("x = 3, y = 3\n3o&!")
    with pytest.raises(PatternError) as info:
        tio.load(path)
    assert str(info.value).startswith(f"{path}:2:3:")


@pytest.mark.parametrize(
    "text, line, column, match",
    [
        ("x = 3\nbo!", 1, 1, "bad RLE header"),
        ("x = a, y = 3\nbo!", 1, 5, "expected an integer header width"),
        ("x = 3, y = -1\nbo!", 1, 12, "header height must be >= 0"),
        ("x = 3, y = 3, rule =\nbo!", 1, 21, "'rule =' but no rule"),
        ("x = 3, y = 3\nx = 3, y = 3\nbo!", 2, 1, "second size header"),
        ("x = 3, y = 3\n0o!", 2, 1, "run count must be at least 1"),
        ("x = 3, y = 3\n2 3o!", 2, 3, "follows run count 2"),
        ("x = 3, y = 3\nbo$3", 2, 4, "not followed by a tag"),
        ("#CXRLE Pos=a,0\no!", 1, 12, "#CXRLE Pos x"),
        ("#CXRLE Gen=-4\no!", 1, 12, "generation must be >= 0"),
        ("#P 1\no!", 1, 5, "expected 2 integers"),
        ("#P 1 2 3\no!", 1, 8, "unexpected '3'"),
        ("#r\no!", 1, 3, "#r line without a rule"),
        ("x = 3, y = 3\nyX!", 2, 1, "state 264"),
        ("x = 3, y = 3, rule = B3/S23\nbo$2bB!", 2, 6, r"state 2 \('B'\) is not a state of rule 'B3/S23'"),
        ("x = 3, y = 3, rule = /2/3\nC!", 2, 1, "which has 3 states"),
        ("", 1, 1, "empty pattern file"),
        ("\n\n", 1, 1, "empty pattern file"),
        ("!Name: x\n.O\n.X\n", 3, 2, r"unexpected character 'X' in plaintext row"),
        ("#Life 1.06\n0 0\n1 x\n", 3, 3, "expected an integer cell coordinates"),
        ("#Life 1.06\n0\n", 2, 2, "expected 2 integers"),
        ("#Life 1.05\n#P 0 0\n.*O\n", 3, 3, "unexpected character 'O' in Life 1.05 row"),
        ("#Life 1.05\n#P 0\n*\n", 2, 5, "expected 2 integers"),
        ("#Life 1.05\n#R\n*\n", 2, 3, "#R line without a rule"),
    ],
)
def test_error_positions(text, line, column, match):
    error_at(text, line, column, match)


@pytest.mark.parametrize(
    "text, line, rule_column",
    [
        ("x = 3, y = 3, rule = B3/S2x\nbo!", 1, 22),
        ("x = 3, y = 3, rule = Q9\nbo!", 1, 22),
        ("#C c\n#r B3/S23/Q\nbo!", 2, 4),
        ("#Life 1.06\n#R B3/S2x\n0 0\n", 2, 4),
        ("#Life 1.05\n#R  nonsense\n*\n", 2, 5),
    ],
)
def test_error_bad_rule_points_into_the_rule_and_chains_the_rule_error(text, line, rule_column):
    with pytest.raises(PatternError, match="bad rule") as info:
        tio.loads(text)
    cause = info.value.__cause__
    assert isinstance(cause, RuleError)
    offset = cause.position if cause.position is not None else 0
    assert (info.value.line, info.value.column) == (line, rule_column + offset)


def test_error_bad_topology_in_header_points_at_the_suffix():
    with pytest.raises(PatternError, match="bad rule") as info:
        tio.loads("x = 3, y = 3, rule = B3/S23:S10,12\nbo!")
    assert (info.value.line, info.value.column) == (1, 29)
    assert isinstance(info.value.__cause__, TopologyError)


def test_error_forced_format_mismatch():
    error_at("x = 3, y = 3\no!", 1, 1, "must start with '#Life 1.06'", format="life106")
    error_at("x = 3, y = 3\no!", 1, 1, "must start with '#Life 1.05'", format="life105")
    with pytest.raises(UsageError, match="unknown pattern format"):
        tio.loads("o!", format="mcell")


def test_error_truncated_and_corrupt_gzip():
    data = gzip.compress(b"x = 3, y = 3\nbo$2bo$3o!\n" * 50)
    with pytest.raises(PatternError, match="truncated gzip"):
        tio.loads(data[: len(data) // 2])
    with pytest.raises(PatternError, match="corrupt gzip"):
        tio.loads(data[:10] + b"\xff" * 30)


def test_error_missing_file(tmp_path):
    with pytest.raises(PatternError, match="cannot read pattern file"):
        tio.load(tmp_path / "nope.rle")


def test_error_gzip_bomb_is_refused(monkeypatch):
    import tensorca.io.files as files

    data = gzip.compress(b"b" * 10_000 + b"o!")
    with pytest.raises(PatternError, match="larger than 1000 bytes"):
        files.decode(data, "<bomb>", max_bytes=1000)


def test_latin1_comments_are_read():
    p = tio.loads("#C caf\xe9\nx = 1, y = 1\no!".encode("latin-1"))
    assert p.comments == ["caf\xe9"]



def test_a_pattern_takes_a_rule_string():
    """Pattern(rule="...") parses the string as run() does (a suffix sets the topology), so a
    pattern made by hand saves like a loaded one."""
    pattern = Pattern(cells=np.eye(4, dtype=np.uint8), rule="B36/S23:T4,4")
    assert pattern.rule.canonical() == "B36/S23" and pattern.topology.bounded
    assert tio.loads(tio.dumps(pattern, "rle"), "rle") == pattern
    with pytest.raises(RuleError):
        Pattern(cells=np.eye(4, dtype=np.uint8), rule="B9/S23")
