"""Golly rule files (@TABLE, @TREE) and Super/History rules: parsing, semantics, engines, golden cases.

The golden cases (``tests/data/ruletables/cases.jsonl``) were computed by Golly's ``bgolly``
(RuleLoader and Super algorithms); every other expectation here is written out by hand from
Golly's documented semantics (Help/formats.html, Help/Algorithms/Super.html).
"""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path

import numpy as np
import pytest

import tensorca
from tensorca.errors import RuleError
from tensorca.families.rule_table.loader import rule_from_text
from tensorca.families.rule_table.rulefile import RuleFileError
from tensorca.rules import parse_rule

DATA = Path(__file__).parent / "data" / "ruletables"
CASES = [json.loads(line) for line in (DATA / "cases.jsonl").read_text().splitlines() if line.strip()]
BACKENDS = ["numpy", pytest.param("torch", marks=pytest.mark.skipif(
    __import__("importlib").util.find_spec("torch") is None, reason="torch not installed"))]


@pytest.fixture(autouse=True)
def _golden_rules_on_path(monkeypatch):
    monkeypatch.setenv("TENSORCA_RULES", str(DATA))
    from tensorca.rules import notation

    notation.clear_cache()  # names resolve through the search path: no stale cache entries
    yield
    notation.clear_cache()


def cropped_digest(cells) -> tuple[int, str]:
    """Population and sha256 of the grid cropped to its non-zero cells (the golden encoding)."""
    cells = np.asarray(cells)
    nz = np.argwhere(cells)
    (y0, x0), (y1, x1) = nz.min(0), nz.max(0)
    crop = np.ascontiguousarray(cells[y0 : y1 + 1, x0 : x1 + 1], dtype=np.uint8)
    return int((crop != 0).sum()), hashlib.sha256(crop.tobytes()).hexdigest()


# --------------------------------------------------------------------------- golden cases


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", [c for c in CASES if c["rule"].count(":")], ids=lambda c: c["name"])
def test_golden_torus_cases(case, backend):
    pattern = tensorca.loads(case["initial_rle"])
    assert pattern.rule.n_states == case["states"]
    final = tensorca.run(pattern, generations=case["generations"], backend=backend)
    assert cropped_digest(final.cells) == (case["final_population"], case["final_sha256_cropped"])


@pytest.mark.parametrize("backend", ["numpy", pytest.param("torch", marks=[pytest.mark.slow, *BACKENDS[1].marks])])
def test_golden_lifehistory_rpentomino_unbounded(backend):
    case = next(c for c in CASES if c["name"] == "lifehistory_rpentomino_1103")
    final = tensorca.run(tensorca.loads(case["initial_rle"]), generations=case["generations"], backend=backend)
    assert cropped_digest(final.cells) == (8403, case["final_sha256_cropped"])


def test_golden_final_rle_reads_back():
    """Golly's own multi-state RLE output (letters up to pA.. for LifeSuper) reads and re-writes."""
    for case in CASES:
        pattern = tensorca.loads(case["final_rle"])
        again = tensorca.loads(tensorca.dumps(pattern))
        assert np.array_equal(np.asarray(again.cells), np.asarray(pattern.cells))
        assert again.rule == pattern.rule


# --------------------------------------------------------------------------- @TABLE semantics


def table(body: str, n_states: int = 2, neighbourhood: str = "Moore", symmetries: str = "none", name: str = "T"):
    return rule_from_text(f"@RULE {name}\n@TABLE\nn_states:{n_states}\nneighborhood:{neighbourhood}\n"
                          f"symmetries:{symmetries}\n{body}\n")


MOORE = {"N": (-1, 0), "NE": (-1, 1), "E": (0, 1), "SE": (1, 1), "S": (1, 0), "SW": (1, -1), "W": (0, -1),
         "NW": (-1, -1)}


def births(rule, k: int = 2) -> set[frozenset[str]]:
    """The sets of ``k`` live Moore neighbours that make a dead cell live (by the compiled tree)."""
    tree = rule.compile().update.tree
    found = set()
    for combo in itertools.combinations(MOORE, k):
        if tree.next_state({MOORE[n]: 1 for n in combo}) == 1:
            found.add(frozenset(combo))
    return found


def pairs(*names: str) -> set[frozenset[str]]:
    return {frozenset(p.split("+")) for p in names}


# A chiral transition: a dead cell with live N and NE (and nothing else) is born.
CHIRAL = "0,1,1,0,0,0,0,0,0,1"


@pytest.mark.parametrize("symmetries, expected", [
    ("none", pairs("N+NE")),
    ("rotate4", pairs("N+NE", "E+SE", "S+SW", "W+NW")),
    ("rotate8", pairs("N+NE", "NE+E", "E+SE", "SE+S", "S+SW", "SW+W", "W+NW", "NW+N")),
    ("reflect_horizontal", pairs("N+NE", "N+NW")),
    ("rotate4reflect", pairs("N+NE", "E+SE", "S+SW", "W+NW", "N+NW", "E+NE", "S+SE", "W+SW")),
    ("rotate8reflect", pairs("N+NE", "NE+E", "E+SE", "SE+S", "S+SW", "SW+W", "W+NW", "NW+N")),
    ("permute", {frozenset(c) for c in itertools.combinations(MOORE, 2)}),
])
def test_moore_symmetries(symmetries, expected):
    assert births(table(CHIRAL, symmetries=symmetries)) == expected


VN = {"N": (-1, 0), "E": (0, 1), "S": (1, 0), "W": (0, -1)}


@pytest.mark.parametrize("symmetries, expected", [
    ("none", {("N", "E")}),
    ("rotate4", {("N", "E"), ("E", "S"), ("S", "W"), ("W", "N")}),
    ("reflect_horizontal", {("N", "E"), ("N", "W")}),
    ("rotate4reflect", {("N", "E"), ("E", "S"), ("S", "W"), ("W", "N"), ("N", "W"), ("E", "N"), ("S", "E"),
                        ("W", "S")}),
    ("permute", set(itertools.permutations(VN, 2))),
])
def test_von_neumann_symmetries(symmetries, expected):
    """C,N,E,S,W: a dead cell with a 1 at N and a 2 at E becomes 1; pairs are (where 1, where 2)."""
    tree = table("0,1,2,0,0,1", 3, "vonNeumann", symmetries).compile().update.tree
    found = {(a, b) for a, b in itertools.permutations(VN, 2)
             if tree.next_state({VN[a]: 1, VN[b]: 2}) == 1}
    assert found == expected


HEX = {"N": (-1, 0), "E": (0, 1), "SE": (1, 1), "S": (1, 0), "W": (0, -1), "NW": (-1, -1)}


@pytest.mark.parametrize("symmetries, expected", [
    ("none", {"N"}), ("rotate2", {"N", "S"}), ("rotate3", {"N", "SE", "W"}), ("rotate6", set(HEX)),
    ("rotate6reflect", set(HEX)), ("permute", set(HEX)),
])
def test_hexagonal_symmetries(symmetries, expected):
    """C,N,E,SE,S,W,NW: one live neighbour at N; NE and SW are not hexagonal neighbours."""
    rule = table("0,1,0,0,0,0,0,1", 2, "hexagonal", symmetries)
    tree = rule.compile().update.tree
    assert {n for n in HEX if tree.next_state({HEX[n]: 1}) == 1} == expected
    assert tree.next_state({(-1, 1): 1}) == 0 and tree.next_state({(1, -1): 1}) == 0


@pytest.mark.parametrize("symmetries, expected", [("none", {"W"}), ("reflect", {"W", "E"}), ("permute", {"W", "E"})])
def test_one_dimensional_symmetries(symmetries, expected):
    tree = table("0,1,0,1", 2, "oneDimensional", symmetries).compile().update.tree
    assert {n for n, off in (("W", (0, -1)), ("E", (0, 1))) if tree.next_state({off: 1}) == 1} == expected
    assert tree.next_state({(-1, 0): 1}) == 0  # rows do not see each other


def test_bound_variables_take_one_value():
    rule = table("var a={1,2}\n0,a,0,0,0,a,0,0,0,3", 4, symmetries="none")
    tree = rule.compile().update.tree
    n, s = MOORE["N"], MOORE["S"]
    assert tree.next_state({n: 1, s: 1}) == 3 and tree.next_state({n: 2, s: 2}) == 3
    assert tree.next_state({n: 1, s: 2}) == 0 and tree.next_state({n: 2, s: 1}) == 0


def test_bound_variable_as_output_and_distinct_variables_are_free():
    rule = table("var a={1,2,3}\nvar b={1,2,3}\n0,a,0,0,0,0,0,0,0,a\n1,a,0,0,0,b,0,0,0,0", 4)
    tree = rule.compile().update.tree
    assert [tree.next_state({MOORE["N"]: v}) for v in (1, 2, 3)] == [1, 2, 3]
    assert tree.next_state({(0, 0): 1, MOORE["N"]: 1, MOORE["S"]: 3}) == 0  # a and b differ: still matches


def test_first_match_wins_and_unmatched_cells_keep_their_state():
    rule = table("var a={0,1,2}\n0,1,0,0,0,0,0,0,0,2\n0,a,0,0,0,0,0,0,0,1", 3)
    tree = rule.compile().update.tree
    assert tree.next_state({MOORE["N"]: 1}) == 2  # both lines match: the first decides
    assert tree.next_state({MOORE["N"]: 2}) == 1
    assert tree.next_state({(0, 0): 2, MOORE["E"]: 1}) == 2  # no line for state 2: unchanged


def test_comma_free_form_equals_the_comma_form():
    short = table("0100011", 2, "vonNeumann", "rotate4").compile().update.tree
    long = table("0,1,0,0,0,1", 2, "vonNeumann", "rotate4").compile().update.tree
    for cfg in itertools.product((0, 1), repeat=5):
        states = dict(zip(((0, 0), (-1, 0), (0, 1), (1, 0), (0, -1)), cfg, strict=True))
        assert short.next_state(states) == long.next_state(states)


def test_variables_may_name_earlier_variables_and_one_state_outputs():
    rule = table("var a={1}\nvar b={a,2}\n0,b,0,0,0,0,0,0,0,a", 3)
    tree = rule.compile().update.tree
    assert tree.next_state({MOORE["N"]: 2}) == 1 and tree.next_state({MOORE["N"]: 1}) == 1


# --------------------------------------------------------------------------- tables that multiply


def wireworld_with(line: str, symmetries: str = "permute") -> str:
    """Golly's WireWorld table (permute) with ``line`` put in as its first transition."""
    text = (Path(tensorca.__file__).parent / "data" / "rules" / "WireWorld.rule").read_text(encoding="utf-8")
    text = text.replace("symmetries:permute", f"symmetries:{symmetries}")
    return text.replace("1,x1,x2,x3,x4,x5,x6,x7,x8,2", line + "\n1,x1,x2,x3,x4,x5,x6,x7,x8,2")


def test_a_repeated_transition_is_dropped_and_the_first_still_decides():
    """The same transition twice with another output: the second never decides a cell. Dropping it
    (and every repeated symmetry image) leaves WireWorld's behaviour exact."""
    rule = rule_from_text(wireworld_with("1,x1,x2,x3,x4,x5,x6,x7,x8,2\n1,x1,x2,x3,x4,x5,x6,x7,x8,3"))
    grid = np.random.default_rng(3).integers(0, 4, size=(16, 18), dtype=np.uint8)
    want = tensorca.run(grid, "WireWorld", generations=4, backend="numpy")
    assert np.array_equal(np.asarray(tensorca.run(grid, rule, generations=4, backend="numpy")), np.asarray(want))


def test_variables_built_from_variables_do_not_double():
    """``var v1={v0,v0}`` forty times once made 2^40 values (543 MB at 2^24); values are a set."""
    lines = ["@RULE Doubling", "@TABLE", "n_states:2", "neighborhood:Moore", "symmetries:none", "var v0={0,1}"]
    lines += [f"var v{i + 1}={{v{i},v{i}}}" for i in range(40)]
    lines += ["0,v40,1,1,1,0,0,0,0,1"]  # a birth with NE, E and SE alive, whatever N is
    rule = rule_from_text("\n".join(lines) + "\n")
    grid = np.zeros((5, 5), np.uint8)
    grid[1, 2] = grid[1, 3] = grid[2, 3] = grid[3, 3] = 1
    assert np.asarray(tensorca.run(grid, rule, generations=1, backend="numpy"))[2, 2] == 1


def test_bound_variables_past_the_budget_are_refused_at_their_line():
    """Four bound variables of 256 states make 2^32 transitions: refused before the first."""
    states = ",".join(map(str, range(256)))
    text = (f"@RULE Big\n@TABLE\nn_states:256\nneighborhood:Moore\nsymmetries:none\nvar a={{{states}}}\n"
            "var b={a}\nvar c={a}\nvar d={a}\na,b,c,d,a,b,c,d,0,1\n")
    with pytest.raises(RuleFileError, match=r":10:1: the bound variables make the table more than 1048576"):
        rule_from_text(text)


def test_symmetry_images_past_the_budget_are_refused_at_their_line():
    """Eight different neighbours under permute are 8! = 40320 images: the 27th such line passes 2^20."""
    body = "".join(f"{i},{i + 1},{i + 2},{i + 3},{i + 4},{i + 5},{i + 6},{i + 7},{i + 8},0\n" for i in range(30))
    text = "@RULE Perm\n@TABLE\nn_states:64\nneighborhood:Moore\nsymmetries:permute\n" + body
    with pytest.raises(RuleFileError, match=r":32:1: the table's transitions have more than 1048576 images"):
        rule_from_text(text)


def test_a_table_too_large_to_compile_is_a_rule_file_error(monkeypatch):
    from tensorca.families.rule_table import tree

    monkeypatch.setattr(tree, "COMPILE_MAX_BYTES", 4096)
    with pytest.raises(RuleFileError, match=r"WireWorld.*:\d+:1: the table's \d+ distinct transitions need more than"):
        rule_from_text(wireworld_with("2,x1,x2,x3,x4,x5,x6,x7,x8,3"), source="WireWorld.rule")
    assert issubclass(tree.TableTooLarge, tensorca.errors.RuleError)


# --------------------------------------------------------------------------- @TREE


# Hand-written: the next state of every cell is its north neighbour's state (order n, w, e, s, c);
# with @COLORS, @NAMES and @ICONS sections (the fuzz tests mutate it too).
SHIFT_DOWN_TREE = (Path(__file__).parent / "data" / "ruletables" / "ShiftDown.rule").read_text(encoding="utf-8")


@pytest.mark.parametrize("backend", BACKENDS)
def test_tree_file_runs_in_gollys_order(backend):
    rule = rule_from_text(SHIFT_DOWN_TREE)
    assert rule.n_states == 2 and rule.canonical() == "ShiftDown"
    grid = np.zeros((5, 6), np.uint8)
    grid[1, 2] = grid[1, 3] = 1
    out = tensorca.run(grid, rule, generations=2, backend=backend)
    assert np.array_equal(np.asarray(out), np.roll(grid, 2, axis=0))


# --------------------------------------------------------------------------- engines


def random_grid(n_states: int, shape=(2, 13, 17), seed=0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, n_states, size=shape, dtype=np.uint8)


@pytest.mark.parametrize("suffix", [":T13,17", ":P13,17", ":K13,17", ":C13,17", ":T13+2,17"])
@pytest.mark.parametrize("rule_text", ["WireWorld", "Langtons-Ant", "LifeHistory", "B2n3/S23-qSuper", "B3/S23VHistory"])
def test_torch_matches_the_reference_on_every_topology(rule_text, suffix):
    pytest.importorskip("torch")
    from tensorca.topology import parse_topology

    topology = parse_topology(suffix[1:])
    rule = parse_rule(rule_text)
    grid = random_grid(rule.n_states, (2, *topology.shape))
    ref = tensorca.run(grid, rule, generations=5, topology=topology, backend="numpy")
    got = tensorca.run(grid, rule, generations=5, topology=topology, backend="torch")
    assert np.array_equal(np.asarray(got), ref)


def test_torch_tree_walk_beyond_the_dense_limit():
    """30 states, von Neumann: 30**5 entries exceed the dense table, so torch walks the tree."""
    pytest.importorskip("torch")
    body = "var a={" + ",".join(map(str, range(30))) + "}\nvar b={a}\nvar c={a}\n"
    body += "\n".join(f"{s},{(s * 7) % 30},a,b,c,{(s + 1) % 30}" for s in range(30))
    rule = table(body, 30, "vonNeumann", "rotate4")
    grid = random_grid(30, (1, 11, 9), seed=3)
    ref = tensorca.run(grid, rule, generations=4, backend="numpy")
    assert np.array_equal(np.asarray(tensorca.run(grid, rule, generations=4, backend="torch")), ref)


def test_other_engines_refuse_rule_tables():
    from tensorca.engines import engine_info

    rule = parse_rule("WireWorld")
    topo = tensorca.parse_topology("T8,8")
    for name in ("bitpack-cpu", "bitpack-gpu", "dense-conv"):
        assert not engine_info(name).precheck(rule.compile(), topo)


# --------------------------------------------------------------------------- Super / History


def super_next(rule: str, centre: int, neighbours: dict[tuple[int, int], int]) -> int:
    grid = np.zeros((1, 5, 5), np.uint8)
    grid[0, 2, 2] = centre
    for (dy, dx), s in neighbours.items():
        grid[0, 2 + dy, 2 + dx] = s
    return int(tensorca.run(grid, rule, generations=1, backend="numpy")[0, 2, 2])


def test_history_states_follow_gollys_help():
    three = {(-1, -1): 1, (-1, 0): 1, (-1, 1): 1}
    assert super_next("LifeHistory", 0, three) == 1  # birth
    assert super_next("LifeHistory", 2, three) == 1  # birth on history
    assert super_next("LifeHistory", 4, three) == 3  # marked OFF is born marked ON
    assert super_next("LifeHistory", 6, three) == 6  # boundary never turns on
    assert super_next("LifeHistory", 1, {}) == 2  # death leaves history
    assert super_next("LifeHistory", 3, {}) == 4 and super_next("LifeHistory", 5, {}) == 4
    assert super_next("LifeHistory", 1, {(0, 1): 6, (1, 1): 1, (1, 0): 1}) == 2  # state 6 kills
    assert super_next("LifeHistory", 5, {(0, 1): 5, (1, 1): 5, (1, 0): 5}) == 5  # ON neighbours count


def test_super_births_take_the_neighbours_no_trail_state():
    three = {(-1, -1): 13, (-1, 0): 13, (-1, 1): 13}
    assert super_next("LifeSuper", 0, three) == 13
    assert super_next("LifeSuper", 0, {(-1, -1): 15, (-1, 0): 17, (-1, 1): 15}) == 13  # disagreement
    assert super_next("LifeSuper", 0, {(-1, -1): 9, (-1, 0): 9, (-1, 1): 9}) == 9
    assert super_next("LifeSuper", 0, {(-1, -1): 1, (-1, 0): 9, (-1, 1): 9}) == 1
    assert super_next("LifeSuper", 9, {}) == 10 and super_next("LifeSuper", 13, {}) == 0
    assert super_next("LifeSuper", 14, {}) == 0 and super_next("LifeSuper", 16, {(0, 1): 14}) == 14


@pytest.mark.parametrize("text, canonical, states", [
    ("LifeHistory", "LifeHistory", 7), ("lifehistory", "LifeHistory", 7), ("B3/S23History", "LifeHistory", 7),
    ("B36/S23History", "B36/S23History", 7), ("LifeSuper", "LifeSuper", 26), ("B3/S23Super", "LifeSuper", 26),
    ("B2n3/S23-qSuper", "B2n3/S23-qSuper", 26), ("B3/S23HHistory", "B3/S23HHistory", 7),
])
def test_super_rule_names(text, canonical, states):
    rule = parse_rule(text)
    assert (rule.canonical(), rule.n_states) == (canonical, states)


@pytest.mark.parametrize("text", ["B0/S23History", "B3/S23/3History", "R2,C0,M1,S2..3,B3..3,NMSuper", "XyzSuper"])
def test_super_refuses_what_golly_refuses(text):
    with pytest.raises(RuleError):
        parse_rule(text)


def test_super_b0_with_smax_runs_complemented():
    """B0 with S8: Golly runs the complement rule NOT(reverse(table)), so an empty grid stays empty."""
    rule = parse_rule("B0123478/S01234678History")
    assert not rule.births_from_nothing()
    grid = np.zeros((1, 6, 6), np.uint8)
    assert not np.asarray(tensorca.run(grid, rule, generations=3, backend="numpy")).any()


# --------------------------------------------------------------------------- malformed files


@pytest.mark.parametrize("text, line, column, words", [
    ("@RULE X\n@TABLE\nn_states:4\nneighborhood:Moor\nsymmetries:none\n", 4, 14, "unsupported neighborhood"),
    ("@RULE X\n@TABLE\nn_states:1\n", 3, 10, "out of range"),
    ("@RULE X\n@TABLE\nn_states:3\nneighborhood:vonNeumann\nsymmetries:rotate8\n", 5, 12, "unsupported symmetries"),
    ("@RULE X\n@TABLE\nn_states:3\nneighborhood:vonNeumann\nsymmetries:none\n0,1,2,0,0,3\n", 6, 11, "out of range"),
    ("@RULE X\n@TABLE\nn_states:3\nneighborhood:vonNeumann\nsymmetries:none\n0,1,2,0\n", 6, 8, "too few"),
    ("@RULE X\n@TABLE\nn_states:3\nneighborhood:vonNeumann\nsymmetries:none\nvar a={0,1}\n0,1,x,0,0,1\n", 7, 5,
     "expected a state"),
    ("@RULE X\n@TABLE\nn_states:3\nneighborhood:vonNeumann\nsymmetries:none\nvar a={0,1}\n0,1,0,0,0,a\n", 7, 11,
     "output"),
    ("@RULE X\n@TABLE\n0,1,0,0,0,1\n", 3, 1, "before the first transition"),
    ("@RULE X\n@TREE\nnum_states=2\nnum_neighbors=4\nnum_nodes=5\n1 0 1\n7 0 0\n", 7, 1, "bad node level"),
    ("@RULE X\n@TREE\nnum_states=2\nnum_neighbors=4\nnum_nodes=5\n1 0 1\n2 0 7\n", 7, 5, "not a node"),
    ("@RULE X\n@TREE\nnum_states=2\nnum_neighbors=5\nnum_nodes=9\n1 0 1\n", 6, 1, "num_neighbors"),
    ("@RULE X\n@COLORS\n0 1 2 3\n", 1, 1, "no @TABLE or @TREE"),
    ("@TABLE\nn_states:2\n", 1, 1, "no @RULE"),
    # numbers Python's int() would take (Unicode digits) or refuse with a bare ValueError (> 4300 digits)
    ("@RULE X\n@TABLE\nn_states:" + "9" * 5000 + "\n", 3, 10, "out of range"),
    ("@RULE X\n@TABLE\nn_states:3\nneighborhood:vonNeumann\nsymmetries:none\n0,\u00b9,0,0,0,1\n", 6, 3,
     "expected a state"),
    ("@RULE X\n@TREE\nnum_states=2\nnum_neighbors=4\nnum_nodes=" + "9" * 5000 + "\n", 5, 1, "whole number"),
    ("@RULE X\n@TREE\nnum_states=2\nnum_neighbors=4\nnum_nodes=5\n" + "9" * 5000 + " 0 1\n", 6, 1,
     "bad node level"),
])
def test_malformed_files_give_located_errors(tmp_path, text, line, column, words):
    path = tmp_path / "X.rule"
    path.write_text(text)
    from tensorca.families.rule_table.loader import rule_dirs

    with pytest.raises(RuleError) as info, rule_dirs(tmp_path):
        parse_rule("X")
    message = str(info.value)
    assert f"{path}:{line}:{column}:" in message and words in message


def test_sections_golly_skips_are_skipped():
    text = ("@RULE Skips\n@ICONS\nXPM\n\"1 1 1 1\"\n@UNKNOWN\nwhatever 1 2\n@TABLE\nn_states:2\n"
            "neighborhood:vonNeumann\nsymmetries:none\n0,1,0,0,0,1\n@NAMES\n1 on\n@COLORS\n1 0 255 0\n"
            "0 255 0 255 0 0 a gradient from green to red\n")
    rule = rule_from_text(text)
    parsed = rule.parsed()
    assert rule.n_states == 2 and parsed.names == {1: "on"}
    assert parsed.gradient == ((0, 255, 0), (255, 0, 0))


# --------------------------------------------------------------------------- finding rules by name


def test_names_resolve_env_then_rules_dir_then_pattern_folder_then_bundled(tmp_path, monkeypatch):
    from tensorca.families.rule_table.loader import BUNDLED

    assert Path(parse_rule("WireWorld").source).parent == DATA  # TENSORCA_RULES first
    monkeypatch.delenv("TENSORCA_RULES")
    from tensorca.rules import notation

    notation.clear_cache()
    assert Path(parse_rule("WireWorld").source).parent == BUNDLED
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "WireWorld.rule").write_text(SHIFT_DOWN_TREE.replace("ShiftDown", "WireWorld"))
    (tmp_path / "WireWorld.rule").write_text(SHIFT_DOWN_TREE.replace("ShiftDown", "WireWorld"))
    pattern_file = tmp_path / "p.rle"
    pattern_file.write_text("x = 2, y = 1, rule = WireWorld\n2A!\n")
    assert tensorca.load(pattern_file, rules_dir=mine).rule.source == str(mine / "WireWorld.rule")
    assert tensorca.load(pattern_file).rule.source == str(tmp_path / "WireWorld.rule")
    assert tensorca.load(pattern_file).rule.n_states == 2
    assert parse_rule("WireWorld").source == str(BUNDLED / "WireWorld.rule")  # back outside the load


def test_names_are_case_sensitive_and_unknown_names_say_where_they_looked():
    with pytest.raises(RuleError) as info:
        parse_rule("wireworld")
    message = str(info.value)
    assert message.startswith("unknown rule 'wireworld': no rule file wireworld.rule was found in ")
    assert f"{DATA} (TENSORCA_RULES)" in message and "(bundled)" in message
    assert "did you mean 'WireWorld'? (rule names are case-sensitive)" in message


# Issue 37: a bare name is a rule-file name, so its error is the rule loader's, with suggestions.


def test_a_misspelt_bundled_rule_file_name_suggests_the_file(monkeypatch):
    from tensorca.families.rule_table.loader import BUNDLED

    monkeypatch.delenv("TENSORCA_RULES")
    with pytest.raises(RuleError) as info:
        parse_rule("Langtons-Ants")
    message = str(info.value)
    assert "no rule file Langtons-Ants.rule was found in" in message and str(BUNDLED) in message
    assert "did you mean 'Langtons-Ant'" in message
    assert "must start with B or S" not in message  # not the B/S parser's complaint
    assert info.value.text == "Langtons-Ants" and info.value.position == 0


def test_golly_rule_names_are_suggested():
    with pytest.raises(RuleError, match="did you mean 'WireWorld'"):
        parse_rule("WireWorlds")
    with pytest.raises(RuleError) as info:
        parse_rule("Langtons-Loop")  # not bundled: the suggestion says whose it is and where it goes
    assert "did you mean 'Langtons-Loops'" in str(info.value)
    assert "Langtons-Loops is Golly's, not here: copy Langtons-Loops.rule" in str(info.value)
    with pytest.raises(RuleError, match="Codd is one of Golly's rule files: copy Codd.rule"):
        parse_rule("Codd")
    with pytest.raises(RuleError, match="did you mean 'LifeHistory'"):  # built in (Super), no file
        parse_rule("LifeHistry")


def test_rule_files_in_rules_dir_are_suggested(tmp_path):
    from tensorca.families.rule_table.loader import rule_dirs

    (tmp_path / "Sidewinder.rule").write_text(SHIFT_DOWN_TREE.replace("ShiftDown", "Sidewinder"))
    with rule_dirs(tmp_path), pytest.raises(RuleError) as info:
        parse_rule("SideWinders")
    assert f"{tmp_path} (rules_dir or the pattern's folder)" in str(info.value)
    assert "did you mean 'Sidewinder'?" in str(info.value)


def test_a_name_with_nothing_close_says_how_to_search_more():
    with pytest.raises(RuleError) as info:
        parse_rule("Nonsense-Name")
    assert "did you mean" not in str(info.value) and "pass rules_dir= to search another folder" in str(info.value)


@pytest.mark.parametrize("text, position, words", [
    ("B3S23x", 5, ["'x'", "survival part", "as a rule-file name: no B3S23x.rule in"]),
    ("S23x", 3, ["'x'"]),
    ("W3x", 2, ["'x'"]),
    ("MAPABC", 3, ["86", "got 3"]),
    ("R3", 0, ["Larger than Life"]),
    ("V", 0, ["neighbourhood letter"]),
])
def test_malformed_notations_keep_their_parsers_errors(text, position, words):
    from .conftest import check_rule_error

    check_rule_error(text, position, *words)
    with pytest.raises(RuleError) as info:
        parse_rule(text)
    assert "unknown rule" not in str(info.value) and "did you mean" not in str(info.value)


def test_cli_rule_with_an_unknown_name_is_one_error_line(capsys):
    from tensorca.cli import main

    assert main(["rule", "Nonsense-Name"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("tensorca: error: unknown rule 'Nonsense-Name': no rule file Nonsense-Name.rule")
    assert len(captured.err.strip().splitlines()) == 1 and "Traceback" not in captured.err
    assert main(["rule", "WireWorlds"]) == 2
    assert "did you mean 'WireWorld'?" in capsys.readouterr().err


def test_builtin_notations_win_over_rule_files(tmp_path):
    from tensorca.families.rule_table.loader import rule_dirs

    (tmp_path / "B3S23.rule").write_text(SHIFT_DOWN_TREE.replace("ShiftDown", "B3S23"))
    with rule_dirs(tmp_path):
        assert parse_rule("B3S23").family == "life-like"


def test_bundled_rules_match_the_golden_wireworld():
    from tensorca.families.rule_table.loader import BUNDLED

    ours = rule_from_text((BUNDLED / "WireWorld.rule").read_text()).compile().update.tree
    golden = rule_from_text((DATA / "WireWorld.rule").read_text()).compile().update.tree
    assert np.array_equal(ours.dense(), golden.dense())


def test_langtons_ant_runs_its_highway_period():
    """Langton's ant: after 10,000 steps on white the ant builds its highway (period 104, 12 cells)."""
    grid = np.zeros((1, 112, 112), np.uint8)
    grid[0, 56, 56] = 2  # the ant on white, facing north
    a = np.asarray(tensorca.run(grid, "Langtons-Ant", generations=11000, backend="numpy"))
    b = np.asarray(tensorca.run(a, "Langtons-Ant", generations=104, backend="numpy"))
    ya, xa = np.argwhere(a[0] >= 2)[0]
    yb, xb = np.argwhere(b[0] >= 2)[0]
    assert (abs(int(yb - ya)), abs(int(xb - xa))) == (2, 2)  # the highway moves diagonally


def test_checkpoints_carry_the_rule_text(tmp_path):
    from tensorca.persist import npz as checkpoint

    rule = parse_rule("WireWorld")
    cells = random_grid(4, (1, 8, 8))
    manifest = checkpoint.manifest_for("grid", rule, tensorca.parse_topology("T8,8"), 3)
    assert manifest["rule_text"] == rule.text
    path = checkpoint.save(tmp_path / "c.npz", cells, manifest)
    loaded = checkpoint.load(path)
    assert loaded.rule == rule and loaded.rule.canonical() == "WireWorld"


def test_cli_rule_shows_states_neighbourhood_and_source(capsys):
    from tensorca.cli import main

    assert main(["rule", "WireWorld"]) == 0
    shown = capsys.readouterr().out
    assert "Moore" in shown and "4" in shown and "WireWorld.rule" in shown


# --------------------------------------------------------------------------- MCell files, colours


MCL = """#MCell 4.00
#GAME Rules table
#GOLLY WireWorld
#BOARD 10x8
#WRAP 1
#D a tiny board
#L .ABC$3.C
"""


def test_mcell_board_is_centred_as_golly_centres_it():
    """Golly draws from the board's corner (-5, -4) and shifts the 3 x 2 pattern by ((10+1-3)/2, (8+1-2)/2)."""
    pattern = tensorca.loads(MCL)
    assert pattern.rule.canonical() == "WireWorld" and pattern.topology == tensorca.parse_topology("T10,8")
    expected = np.zeros((8, 10), np.uint8)
    expected[3, 5:8] = [1, 2, 3]
    expected[4, 7] = 3
    assert np.array_equal(pattern.cells, expected)
    assert pattern.comments == ["a tiny board"]


def test_mcell_letters_beyond_x_and_unbounded_patterns():
    pattern = tensorca.loads("#MCell 4.00\n#GOLLY LifeSuper\n#L 2.aAB$X\n")
    assert pattern.topology == tensorca.Topology.unbounded()
    assert pattern.cells.tolist() == [[0, 0, 25, 2], [24, 0, 0, 0]] and pattern.origin == (0, 0)


def test_mcell_states_the_rule_lacks_become_one_as_in_golly():
    """WireWorld has states 0..3: D (4) and jX (264) are read as 1, as Golly's reader (and MCell) do."""
    pattern = tensorca.loads("#MCell 4.00\n#GOLLY WireWorld\n#L ACDjX\n")
    assert pattern.cells.tolist() == [[1, 3, 1, 1]]


def test_mcell_historical_life_becomes_life_history():
    text = "#MCell 4.00\n#RULE 1,0,1,0,0,0,1,0,0,0,0,0,0,2,2,1,1,2,2,2,2,2,0,2,2,2,1,2,2,2,2,2\n#L ABC\n"
    assert tensorca.loads(text).rule.canonical() == "LifeHistory"


def test_palettes_follow_gollys_colours():
    from tensorca.render.frames import palette

    assert palette(4, parse_rule("WireWorld")).tolist() == [[48, 48, 48], [0, 128, 255], [255, 255, 255],
                                                            [255, 128, 0]]
    # RuleLoader's default: 0 black, then red to yellow (Langton's ant sets all ten colours itself)
    assert palette(3, table("0,1,0,0,0,1", 3, "vonNeumann")).tolist() == [[0, 0, 0], [255, 0, 0], [255, 255, 0]]
    assert palette(7, parse_rule("LifeHistory"))[1].tolist() == [0, 255, 0]
    assert palette(26, parse_rule("LifeSuper"))[13].tolist() == [255, 255, 255]


def test_births_from_nothing_and_pickling():
    import pickle

    assert table("0,0,0,0,0,1", 2, "vonNeumann").births_from_nothing()
    rule = parse_rule("WireWorld")
    assert not rule.births_from_nothing()
    again = pickle.loads(pickle.dumps(rule))  # worker processes get the text, not the compiled tree
    assert again == rule and np.array_equal(again.compile().update.tree.dense(), rule.compile().update.tree.dense())


def test_names_and_colors_with_unicode_or_huge_numbers_are_skipped_not_fatal():
    from tensorca.families.rule_table.loader import rule_from_text

    base = (DATA / "WireWorld.rule").read_text()
    for extra in ("\n@NAMES\n\u00b9 foo\n1 head\n", "\n@NAMES\n" + "9" * 5000 + " foo\n",
                  "\n@COLORS\n" + "9" * 5000 + " 1 2 3\n"):
        assert rule_from_text(base + extra).canonical() == "WireWorld"
