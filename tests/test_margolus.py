"""Margolus block rules: notation, named rules, the three backends, reversibility, edges and phases.

The emulation of Golly's ``*Margolus*emulated`` files and Golly's own results are in
``tests/test_margolus_golly.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from tensorca.errors import GridError, RuleError, TopologyError, UsageError
from tensorca.margolus import (
    NAMED,
    BlockPattern,
    BlockRule,
    from_transitions,
    named_rules,
    next_phase,
    parse_block_rule,
    run,
)
from tensorca.margolus.rules import parse_table

from .conftest import cuda_available

BBM_MCELL = "MS,D0;8;4;3;2;5;9;7;1;6;10;11;12;13;14;15"


# -- notation ---------------------------------------------------------------------------------------


def test_mcell_string_is_the_named_rule_and_round_trips():
    bbm = parse_block_rule(BBM_MCELL)
    assert bbm == parse_block_rule("BBM") == parse_block_rule("bbm")
    assert parse_block_rule("BBM").name == "BBM" and bbm.name is None
    assert bbm.canonical() == BBM_MCELL and parse_block_rule(bbm.canonical()) == bbm
    # MCell numbers blocks TL=1, TR=2, BL=4, BR=8: a lone top-left ball (1) crosses to bottom-right (8).
    assert bbm.table[1] == 8 and bbm.table[8] == 1 and bbm.table[6] == 9 and bbm.table[9] == 6
    tmgas = parse_block_rule("TMGas")
    assert tmgas.canonical().startswith("M4,D") and parse_block_rule(tmgas.canonical()) == tmgas


def test_named_rules_have_the_textbook_properties():
    rules = named_rules()
    assert set(rules) == {spelling for spelling, _, _ in NAMED.values()}
    for name in ("BBM", "HPP"):
        assert rules[name].reversible and rules[name].conserves(), name
    for name in ("Critters", "Tron", "TMGas"):
        assert rules[name].reversible and not rules[name].conserves(), name
    for name in ("Sand", "DLA"):
        assert not rules[name].reversible, name
    # Critters complements every block but those of two cells; Tron flips only the empty and full blocks.
    critters, tron = rules["Critters"], rules["Tron"]
    assert [critters.table[c] for c in (0, 3, 5, 15)] == [15, 3, 5, 0]
    assert [tron.table[c] for c in (0, 7, 15)] == [15, 7, 0]
    assert critters.inverse().inverse() == critters and critters.inverse() != critters
    assert rules["BBM"].inverse() == rules["BBM"]  # BBM undoes itself block for block


def test_golly_margolus_tables_give_the_named_rules():
    """Margolus rule tables (Golly's RuleTableToTree form) with symmetries and variables."""
    bbm = """@RULE BBM
        n_states:2
        neighborhood:Margolus
        symmetries:rotate4
        # a ball crosses its block; two meeting head-on leave at right angles
        1,0,0,0 : 0,0,0,1
        0,1,1,0 : 1,0,0,1
        """
    assert parse_table(bbm) == parse_block_rule("BBM") and parse_table(bbm).name == "BBM"
    critters = ("n_states:2\nsymmetries:rotate4\n"
                "0,0,0,0 : 1,1,1,1\n0,0,0,1 : 1,1,1,0\n0,1,1,1 : 0,0,0,1\n1,1,1,1 : 0,0,0,0")
    assert parse_block_rule(critters) == parse_block_rule("Critters")
    hpp = "n_states:2\nsymmetries:rotate4\n1,0,0,0 : 0,0,0,1\n1,1,0,0 : 0,0,1,1\n1,0,0,1 : 0,1,1,0\n1,1,1,0 : 0,1,1,1"
    assert parse_block_rule(hpp) == parse_block_rule("HPP")
    sand = """n_states:4
        symmetries:reflect_horizontal
        var a={0,1,2,3}
        var b={0,1,2,3}
        1,1,0,0 : 0,0,1,1
        1,a,0,b : 0,a,1,b
        1,0,a,0 : 0,0,a,1
        3,a,0,b : 3,a,1,b"""
    assert parse_block_rule(sand) == parse_block_rule("Sand")
    # a variable named twice in an input is bound: only blocks with equal top cells match
    bound = from_transitions(2, [(("a", "a", 0, 0), (0, 0, "a", "a"))], variables={"a": (0, 1)})
    assert bound.table[3] == 12 and bound.table[1] == 1


@pytest.mark.parametrize("text, words", [
    ("MS,D0;1;2", ("16 entries",)),
    ("MS,D0;8;4;3;2;5;9;7;1;6;10;11;12;13;14;16", ("out of range",)),
    ("MS,Dx;y", ("whole numbers",)),
    ("Billiards", ("not a block rule", "BBM")),
    ("n_states:2\nsymmetries:mirror\n1,0,0,0 : 0,0,0,1", ("symmetries",)),
    ("n_states:2\n1,0,0 : 0,0,1", ("line 2", "a,b,c,d : e,f,g,h")),
    ("n_states:2\n1,0,0,2 : 0,0,0,1", ("state 2 out of range",)),
    ("n_states:2\n1,0,0,0 : 0,0,0,q", ("q",)),
    ("M17,D0", ("2..16 states",)),
])
def test_bad_rules_say_what_is_wrong(text, words):
    with pytest.raises(RuleError) as info:
        parse_block_rule(text)
    for word in words:
        assert word in str(info.value), str(info.value)


def test_irreversible_rules_cannot_run_backwards():
    with pytest.raises(RuleError, match="not reversible"):
        parse_block_rule("Sand").inverse()
    with pytest.raises(RuleError, match="not reversible"):
        run(np.zeros((4, 4), np.uint8), "DLA", -1)


# -- one step, by hand --------------------------------------------------------------------------------


def test_a_billiard_ball_flies_diagonally_and_blocks_alternate():
    grid = np.zeros((8, 8), np.uint8)
    grid[2, 2] = 1  # the top-left cell of a (0, 0)-phase block
    one = run(grid, "BBM", 1)
    assert np.argwhere(one).tolist() == [[3, 3]]
    # next step the blocks sit at (1, 1): the ball is again a top-left cell and keeps going
    assert np.argwhere(run(grid, "BBM", 2)).tolist() == [[4, 4]]
    assert np.argwhere(run(one, "BBM", 1, phase=1)).tolist() == [[4, 4]]
    # across the torus edge
    assert np.argwhere(run(grid, "BBM", 7)).tolist() == [[1, 1]]


def test_the_plane_leaves_blocks_that_stick_out_alone():
    grid = np.zeros((5, 5), np.uint8)
    grid[4, 4] = 1  # a corner cell: at phase (0, 0) its block sticks out of the 5x5 plane
    assert (run(grid, "BBM", 1, topology="plane") == grid).all()
    # at phase (1, 1) the block at (3, 3) is whole: the ball is its bottom-right cell and crosses it
    assert np.argwhere(run(grid, "BBM", 1, topology="plane", phase=1)).tolist() == [[3, 3]]
    grid = np.zeros((5, 5), np.uint8)
    grid[3, 3] = 1  # the top-left cell of the (1, 1)-phase block at (3, 3)
    assert np.argwhere(run(grid, "BBM", 1, topology="plane", phase=1)).tolist() == [[4, 4]]


def test_absent_cells_freeze_their_blocks():
    grid = np.zeros((6, 6), np.uint8)
    grid[0, 0] = grid[2, 2] = 1
    present = np.ones((6, 6), bool)
    present[3, 3] = False  # in the block of the ball at (2, 2)
    out = run(grid, "BBM", 1, present=present)
    assert np.argwhere(out).tolist() == [[1, 1], [2, 2]]


# -- backends agree, and reversible rules go back --------------------------------------------------------

SHAPES = [("torus", (3, 10, 14)), ("plane", (2, 9, 13)), ("plane", (2, 1, 5)), ("plane", (2, 6, 1)),
          ("torus", (1, 2, 2))]


@pytest.mark.parametrize("name", [spelling for spelling, _, _ in NAMED.values()])
def test_numpy_numba_and_torch_agree(name):
    torch = pytest.importorskip("torch")
    pytest.importorskip("numba")
    rule = parse_block_rule(name)
    rng = np.random.default_rng(len(name))
    for topology, shape in SHAPES:
        cells = rng.integers(0, rule.n_states, shape).astype(np.uint8)
        present = rng.random(shape[1:]) < 0.85
        for phase in ((0, 0), (1, 1), (0, 1), (1, 0)):
            for mask in (None, present):
                want = run(cells, rule, 5, phase=phase, topology=topology, present=mask, backend="numpy")
                fast = run(cells, rule, 5, phase=phase, topology=topology, present=mask, backend="numba")
                tensor = run(torch.from_numpy(cells), rule, 5, phase=phase, topology=topology, present=mask)
                assert isinstance(tensor, torch.Tensor) and tensor.dtype == torch.uint8
                np.testing.assert_array_equal(fast, want, err_msg=f"{name} {topology} {shape} {phase}")
                np.testing.assert_array_equal(tensor.numpy(), want, err_msg=f"{name} {topology} {shape} {phase}")
                if rule.reversible:  # and torch runs it back
                    back = run(tensor, rule, -5, phase=next_phase(phase, 5), topology=topology, present=mask)
                    np.testing.assert_array_equal(back.numpy(), cells)


@pytest.mark.parametrize("name", ["BBM", "Critters"])
def test_forward_1000_steps_and_back_to_the_exact_start(name):
    rng = np.random.default_rng(7)
    torus = (rng.random((64, 64)) < 0.3).astype(np.uint8)
    later = run(torus, name, 1000)
    assert not np.array_equal(later, torus)
    np.testing.assert_array_equal(run(later, name, -1000, phase=next_phase(0, 1000)), torus)
    plane = (rng.random((2, 41, 47)) < 0.3).astype(np.uint8)
    present = rng.random((41, 47)) < 0.95
    later = run(plane, name, 1000, phase=(0, 1), topology="plane", present=present)
    back = run(later, name, -1000, phase=next_phase((0, 1), 1000), topology="plane", present=present)
    np.testing.assert_array_equal(back, plane)
    # odd steps: the phase matters, and the reference backend goes back too
    world = BlockPattern(torus, name)
    there = world.run(301)
    assert there.phase == (1, 1) and there.generation == 301
    np.testing.assert_array_equal(there.run(-301, backend="numpy").cells, torus)


def test_particle_counts_are_conserved_by_bbm_and_hpp():
    rng = np.random.default_rng(3)
    cells = (rng.random((4, 32, 48)) < 0.4).astype(np.uint8)
    for name in ("BBM", "HPP"):
        out = run(cells, name, 333)
        assert (out.sum(axis=(1, 2)) == cells.sum(axis=(1, 2))).all()


# -- errors ---------------------------------------------------------------------------------------------


def test_bad_runs_raise_typed_errors():
    with pytest.raises(TopologyError, match="even"):
        run(np.zeros((5, 6), np.uint8), "BBM", 1)
    with pytest.raises(GridError, match="state 2"):
        run(np.full((4, 4), 2, np.uint8), "BBM", 1)
    with pytest.raises(UsageError, match="backend"):
        run(np.zeros((4, 4), np.uint8), "BBM", 1, backend="cuda")
    with pytest.raises(UsageError, match="generations"):
        run(np.zeros((4, 4), np.uint8), "BBM", 1.5)
    with pytest.raises(UsageError, match="phase"):
        run(np.zeros((4, 4), np.uint8), "BBM", 1, phase=(2, 0))
    with pytest.raises(GridError, match="do not match"):
        run(np.zeros((4, 4), np.uint8), "BBM", 1, topology=":T6,6")
    with pytest.raises(TopologyError, match="torus or a bounded plane"):
        run(np.zeros((4, 4), np.uint8), "BBM", 1, topology=":K4,4")
    with pytest.raises(RuleError, match="256 entries"):
        BlockRule(tuple(range(16)), 4)


@pytest.mark.cuda
@pytest.mark.skipif(not cuda_available(), reason="needs a CUDA device")
def test_torch_on_cuda_matches_numpy():
    import torch

    rng = np.random.default_rng(11)
    for name in ("BBM", "TMGas", "Sand"):
        rule = parse_block_rule(name)
        cells = rng.integers(0, rule.n_states, (4, 64, 96)).astype(np.uint8)
        for topology in ("torus", "plane"):
            got = run(torch.from_numpy(cells).cuda(), rule, 50, phase=(1, 0), topology=topology)
            assert got.device.type == "cuda"
            np.testing.assert_array_equal(got.cpu().numpy(), run(cells, rule, 50, phase=(1, 0), topology=topology))
