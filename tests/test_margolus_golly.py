"""Golly's emulated Margolus rules: recognition, conversion both ways, the ``margolus`` engine, Golly's results.

Golly's ``*Margolus*emulated`` rule files are GPL and not in this repository. The tests write
equivalent files with :func:`tensorca.margolus.emulated.emulated_rule_text` (whose trees are
node-for-node Golly's: their digests are those of Golly's files, ``CHECKED``) into a temporary folder
on ``TENSORCA_RULES``. ``tests/data/margolus/golden.jsonl`` holds Golly's own results (bgolly with
Golly's rule files) on soups tensorca wrote (``scripts/make_margolus_golden.py``; see its README).

With ``TENSORCA_GOLLY_DIR`` set to a Golly source or install folder, one more test runs Golly's own
Margolus patterns with Golly's own rule files and checks the engine against the rule-table reference.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest

import tensorca
from tensorca.engines import get_engine
from tensorca.errors import EngineError, PatternError, RuleError
from tensorca.families.rule_table.loader import rule_from_text
from tensorca.margolus import (
    NAMED,
    BlockPattern,
    decode,
    encode,
    from_emulated,
    named_rules,
    parse_block_rule,
    recognise,
    to_emulated,
)
from tensorca.margolus.emulated import CHECKED, emulated_rule_text, recognise_tree, safe_geometry
from tensorca.rules import parse_rule
from tensorca.topology import Topology

DATA = Path(__file__).parent / "data" / "margolus"
#: Golly's emulated rule names and the native rules they run.
GOLLY_NAMES = {"BBM-Margolus-emulated": "BBM", "CrittersMargolus_emulated": "Critters",
               "HPPMargolus_emulated": "HPP", "TripATronMargolus_emulated": "Tron",
               "TMGasMargolus_emulated": "TMGas", "Sand-Margolus-emulated": "Sand", "DLA-Margolus-emulated": "DLA"}


@pytest.fixture
def golly_rules(tmp_path, monkeypatch):
    """A folder on TENSORCA_RULES with an emulated rule file under each of Golly's names."""
    for golly, native in GOLLY_NAMES.items():
        (tmp_path / f"{golly}.rule").write_text(emulated_rule_text(parse_block_rule(native), golly))
    monkeypatch.setenv("TENSORCA_RULES", str(tmp_path))
    return tmp_path


def sha256(grid: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(grid, dtype=np.uint8).tobytes()).hexdigest()


def emulated_soup(rule, shape, phase, rng, hole=False):
    cells = rng.integers(0, rule.n_states, shape).astype(np.uint8)
    present = np.ones(shape, bool)
    if hole:
        present[2:6, 3:9] = False
    return encode(cells, present if hole else None, phase)


# -- the state encoding -------------------------------------------------------------------------------


def test_encode_and_decode_are_inverse():
    rng = np.random.default_rng(0)
    for phase in ((0, 0), (1, 1), (0, 1), (1, 0)):
        cells = rng.integers(0, 4, (9, 12)).astype(np.uint8)
        present = rng.random((9, 12)) < 0.8
        grid = encode(cells, present, phase)
        assert set(np.unique(grid)) <= set(range(9)) and (grid[~present] == 0).all()
        found = decode(grid)
        assert found is not None
        np.testing.assert_array_equal(found[0], np.where(present, cells, 0))
        np.testing.assert_array_equal(found[1], present)
        assert found[2] == phase
    # Golly's numbering: odd states are the corners of the blocks the next step updates
    assert encode(np.array([[1, 0], [0, 1]]), None, (0, 0)).tolist() == [[3, 2], [2, 4]]


def test_a_broken_background_does_not_decode():
    grid = encode(np.zeros((6, 6), np.uint8), None, (0, 0))
    grid[2, 3] = 1  # a corner where no corner belongs
    assert decode(grid) is None


def test_one_cell_wide_strips_are_unsafe():
    present = np.ones((6, 6), bool)
    assert safe_geometry(present, torus=True) and safe_geometry(present, torus=False)
    present[:, 3:] = False
    present[2, 3:] = True  # a one-cell-high strip sticking out to the right
    assert not safe_geometry(present, torus=False)
    assert not safe_geometry(np.ones((1, 8), bool), torus=False)


# -- recognising rule trees -----------------------------------------------------------------------------


def test_written_rule_files_are_golly_s_trees_and_are_recognised():
    for golly, native in GOLLY_NAMES.items():
        rule = rule_from_text(emulated_rule_text(parse_block_rule(native), golly), golly)
        assert recognise(rule) == parse_block_rule(native) and recognise(rule).name == native
        tree = rule.parsed().tree
        nodes = np.ascontiguousarray(tree.nodes, dtype=np.int32)
        digest = hashlib.sha256(np.int64(tree.root).tobytes() + np.int64(tree.n_states).tobytes()
                                + nodes.tobytes()).hexdigest()
        assert digest in CHECKED, golly  # node for node the tree in Golly's file of that name


def test_any_block_rule_s_file_is_recognised_after_the_exhaustive_check():
    rng = np.random.default_rng(5)
    rule = tensorca.margolus.BlockRule(tuple(int(v) for v in rng.permutation(16)))
    text = emulated_rule_text(rule, "Random-Margolus-emulated")
    assert recognise(rule_from_text(text)) == rule
    # one output changed (a top-left cell of state 0 in a whole empty block, its north-west neighbour
    # off the grid, keeps its background bit): a tree that is no longer an emulation is refused
    tree = rule_from_text(text).parsed().tree
    nodes = tree.nodes.copy()
    node = tree.root
    for golly_state in (0, 2, 2, 2, 2, 2, 2, 2):  # nw, ne, sw, se, n, w, e, s (all background bit 1)
        node = nodes[node, golly_state]
    assert nodes[node, 1] in (2, 4)  # the centre (state 0 on bit 0) moves on to bit 1
    nodes[node, 1] = 1
    assert recognise_tree(nodes, tree.root, tree.n_states, tree.order) is None


def test_other_rules_are_not_margolus():
    for text in ("B3/S23", "WireWorld", "345/2/4", "Langtons-Ant"):
        assert recognise(parse_rule(text)) is None
    engine = get_engine("margolus")
    assert not engine.supports(parse_rule("B3/S23"), Topology.torus(8, 8))
    with pytest.raises(EngineError, match="Margolus"):
        engine.advance(np.zeros((1, 8, 8), np.uint8), parse_rule("B3/S23"), Topology.torus(8, 8), 1)


# -- the engine equals the rule-table reference, on every grid ------------------------------------------------


@pytest.mark.parametrize("golly", list(GOLLY_NAMES))
def test_engine_matches_the_rule_table_reference(golly_rules, golly):
    rule = parse_rule(golly)
    native = recognise(rule)
    engine, reference = get_engine("margolus"), get_engine("numpy")
    rng = np.random.default_rng(len(golly))
    grids = [
        (Topology.torus(12, 10), emulated_soup(native, (10, 12), (1, 1), rng)),
        (Topology.plane(13, 9), emulated_soup(native, (9, 13), (0, 1), rng, hole=True)),
        (Topology.plane(7, 1), emulated_soup(native, (1, 7), (0, 0), rng)),  # a strip: the fallback
        (Topology.torus(11, 10), emulated_soup(native, (10, 11), (0, 0), rng)),  # odd torus: the fallback
        (Topology.torus(12, 10), rng.integers(0, rule.n_states, (10, 12)).astype(np.uint8)),  # no lattice
    ]
    for topology, grid in grids:
        cells = np.stack([grid, grid])
        for generations in (0, 1, 7):
            want = reference.advance(cells, rule, topology, generations)
            got = engine.advance(cells, rule, topology, generations)
            np.testing.assert_array_equal(got, want, err_msg=f"{golly} {topology} {generations}")


def test_engine_leaves_its_input_alone_and_copies_for_zero_generations(golly_rules):
    """The engine contract's (d) and (e) for the margolus engine (its rules are not in that test's list)."""
    rule = parse_rule("BBM-Margolus-emulated")
    cells = np.stack([emulated_soup(parse_block_rule("BBM"), (8, 10), (0, 0), np.random.default_rng(9))] * 3)
    given = cells.copy()
    engine = get_engine("margolus")
    out = engine.advance(given, rule, Topology.torus(10, 8), 0)
    assert out is not given and not np.shares_memory(out, given)
    np.testing.assert_array_equal(out, cells)
    engine.advance(given, rule, Topology.torus(10, 8), 5)
    np.testing.assert_array_equal(given, cells)


def test_auto_runs_emulated_patterns_on_the_margolus_engine(golly_rules):
    rng = np.random.default_rng(1)
    grid = emulated_soup(parse_block_rule("HPP"), (40, 40), (0, 0), rng)
    pattern = tensorca.Pattern(cells=grid, rule="HPPMargolus_emulated:T40,40")
    assert tensorca.explain(pattern, generations=1000).engine == "margolus"
    fast = tensorca.run(pattern, generations=100)
    slow = tensorca.run(pattern, generations=100, backend="numpy")
    np.testing.assert_array_equal(fast.cells, slow.cells)


# -- conversion both ways ---------------------------------------------------------------------------------


def test_from_emulated_and_back(golly_rules):
    rng = np.random.default_rng(2)
    rule = parse_block_rule("Critters")
    grid = emulated_soup(rule, (14, 18), (1, 0), rng, hole=True)
    pattern = tensorca.Pattern(cells=grid, rule="CrittersMargolus_emulated", origin=(-5, 3), generation=4)
    block = from_emulated(pattern)
    assert block.rule == rule and block.phase == (1, 0) and block.topology == Topology.plane(18, 14)
    assert block.present is not None and block.origin == (-5, 3) and block.generation == 4
    back = to_emulated(block)
    np.testing.assert_array_equal(back.cells, grid)
    assert back.rule == pattern.rule and back.topology == pattern.topology and back.origin == (-5, 3)
    # running natively then converting gives what tensorca.run of the emulated pattern gives
    later = to_emulated(block.run(25))
    np.testing.assert_array_equal(later.cells, tensorca.run(pattern, generations=25, backend="numpy").cells)
    assert later.generation == 29


def test_conversion_errors(golly_rules):
    with pytest.raises(RuleError, match="not one of Golly's emulated"):
        from_emulated(tensorca.Pattern(cells=np.zeros((4, 4), np.uint8), rule="B3/S23"))
    broken = encode(np.zeros((6, 6), np.uint8), None, (0, 0))
    broken[0, 1] = 1
    with pytest.raises(PatternError, match="block lattice"):
        from_emulated(tensorca.Pattern(cells=broken, rule="BBM-Margolus-emulated"))
    with pytest.raises(RuleError, match="does not emulate"):
        to_emulated(BlockPattern(np.zeros((4, 4), np.uint8), "BBM"), rule="HPPMargolus_emulated")
    with pytest.raises(tensorca.UsageError, match="rule="):
        to_emulated(BlockPattern(np.zeros((4, 4), np.uint8), "BBM"))
    native = to_emulated(BlockPattern(np.eye(4, dtype=np.uint8), "BBM"), rule="BBM-Margolus-emulated")
    assert native.topology == Topology.torus(4, 4) and decode(native.cells)[2] == (0, 0)


# -- Golly's own results ------------------------------------------------------------------------------------

GOLDEN = [json.loads(line) for line in (DATA / "golden.jsonl").read_text().splitlines() if line.strip()]


def _final_grid(pattern):
    if pattern.topology.bounded:
        grid = np.zeros(pattern.topology.shape, np.uint8)
        cells = np.asarray(pattern.cells)
        grid[: cells.shape[0], : cells.shape[1]] = cells
        return grid
    cells = np.asarray(pattern.cells)
    ys, xs = np.nonzero(cells)
    return cells[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


@pytest.mark.parametrize("case", GOLDEN, ids=[c["name"] for c in GOLDEN])
def test_golly_s_results(golly_rules, case):
    """tensorca.run (auto: the margolus engine) and the native block pattern give Golly's cells."""
    pattern = tensorca.loads(case["initial_rle"])
    assert tensorca.explain(pattern, generations=case["generations"]).engine == "margolus"
    final = _final_grid(tensorca.run(pattern, generations=case["generations"]))
    assert sha256(final) == case["final_sha256"] and int(np.count_nonzero(final)) == case["final_population"]
    block = from_emulated(pattern)
    assert block.rule.name == case["native"]
    if safe_geometry(block.present if block.present is not None else np.ones(block.cells.shape, bool),
                     block.topology.kind == "torus"):
        native = _final_grid(to_emulated(block.run(case["generations"])))
        assert sha256(native) == case["final_sha256"]


def test_golden_cases_cover_every_named_rule():
    assert {c["native"] for c in GOLDEN} == {spelling for spelling, _, _ in NAMED.values()}
    assert any("strip" in c["name"] for c in GOLDEN) and any("hole" in c["name"] for c in GOLDEN)


# -- Golly's own patterns, where Golly is installed -----------------------------------------------------------

GOLLY_DIR = os.environ.get("TENSORCA_GOLLY_DIR")


@pytest.mark.skipif(not GOLLY_DIR, reason="set TENSORCA_GOLLY_DIR to a Golly folder (Rules/, Patterns/)")
def test_golly_s_own_patterns_with_golly_s_own_rule_files(monkeypatch):
    monkeypatch.setenv("TENSORCA_RULES", str(Path(GOLLY_DIR) / "Rules"))
    checked = []
    for path in sorted((Path(GOLLY_DIR) / "Patterns" / "Margolus").glob("*.rle")):
        pattern = tensorca.load(path)
        if recognise(pattern.rule) is None:
            continue
        checked.append(path.name)
        assert recognise(pattern.rule) == named_rules()[recognise(pattern.rule).name]
        fast = tensorca.run(pattern, generations=30, backend="margolus")
        slow = tensorca.run(pattern, generations=30, backend="numpy")
        np.testing.assert_array_equal(_final_grid(fast), _final_grid(slow), err_msg=path.name)
    # Golly 4.x ships 12 Margolus patterns, every one on a rule the margolus engine recognises
    assert len(checked) >= 10, checked
