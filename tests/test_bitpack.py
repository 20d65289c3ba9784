"""bit-packed engines, CPU side: packing, the rule circuits, supports(), and what bitpack-cpu adds.

Golden cases, parity on small odd grids, refusals, untouched input and zero generations are the
engine contract (tests/test_engine_contract.py). Here: 64-bit word boundaries (one-word rows,
partial last words, B0 padding), the launch paths, and the golden set's coverage of the circuits.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tensorca.engines import get_engine
from tensorca.engines.bitpack.circuit import (
    bs_table,
    difference_expression,
    evaluate,
    kernel_op_count,
    rule_expression,
    truth_table,
    why_not_bitpack,
)
from tensorca.engines.bitpack.pack import last_word_mask, n_words, pack, unpack
from tensorca.errors import EngineError, UsageError
from tensorca.rules import parse_rule, parse_spec
from tensorca.rules.base import TableRule
from tensorca.topology import Topology

from .conftest import golden_cases

PARITY_RULES = [
    "B3/S23",
    "B36/S23",
    "B2/S",
    "B0/S8",
    "B1357/S1357",
    "B3/S012345678",
    "B0123478/S01234678",
]
# (B, H, W): one-word rows, exact words, partial last words (1 valid bit, 63 valid bits), 1x1, tall.
SHAPES = [(1, 1, 1), (2, 5, 7), (1, 9, 64), (3, 11, 65), (1, 6, 127), (2, 13, 130), (1, 40, 3), (1, 3, 200)]


def bs_rule(birth, survival) -> TableRule:
    b, s = frozenset(birth), frozenset(survival)
    text = "B" + "".join(map(str, sorted(b))) + "/S" + "".join(map(str, sorted(s)))
    return TableRule(bs_table(b, s), birth=b, survival=s, kind="bs", neighbourhood="M", text=text)


# --- packing ----------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    b=st.integers(1, 3),
    h=st.integers(1, 5),
    w=st.integers(1, 200),
    bits=st.sampled_from([32, 64]),
    seed=st.integers(0, 2**32 - 1),
)
def test_pack_unpack_round_trip(b, h, w, bits, seed):
    cells = (np.random.default_rng(seed).random((b, h, w)) < 0.5).astype(np.uint8)
    words = pack(cells, bits)
    assert words.shape == (b, h, n_words(w, bits))
    assert words.dtype == (np.uint64 if bits == 64 else np.uint32)
    assert np.array_equal(unpack(words, w), cells)
    # padding bits are zero
    assert not np.any(words[..., -1] & ~np.array(last_word_mask(w, bits), dtype=words.dtype))


def test_pack_bit_order():
    cells = np.zeros((1, 1, 70), dtype=np.uint8)
    cells[0, 0, [0, 3, 63, 64, 69]] = 1
    words = pack(cells, 64)
    assert int(words[0, 0, 0]) == (1 << 0) | (1 << 3) | (1 << 63)
    assert int(words[0, 0, 1]) == (1 << 0) | (1 << 5)
    words32 = pack(cells, 32)
    assert [int(v) for v in words32[0, 0]] == [(1 << 0) | (1 << 3), 1 << 31, (1 << 0) | (1 << 5)]


@settings(max_examples=30, deadline=None)
@given(h=st.integers(1, 4), w=st.integers(1, 150), seed=st.integers(0, 2**32 - 1))
def test_torch_pack_matches_numpy(h, w, seed):
    torch = pytest.importorskip("torch")
    from tensorca.engines.bitpack.pack import pack_torch, unpack_torch

    cells = (np.random.default_rng(seed).random((2, h, w)) < 0.5).astype(np.uint8)
    words = pack_torch(torch.from_numpy(cells))
    assert words.dtype == torch.int32
    assert np.array_equal(words.numpy().view(np.uint32), pack(cells, 32))
    assert np.array_equal(unpack_torch(words, w).numpy(), cells)


@settings(max_examples=30, deadline=None)
@given(batch=st.integers(1, 70), h=st.integers(1, 4), w=st.integers(1, 9), seed=st.integers(0, 2**32 - 1))
def test_torch_lane_pack(batch, h, w, seed):
    """Lane words: bit j of word [g, y, x] is cell (y, x) of grid 32 g + j; lanes past the batch are 0."""
    torch = pytest.importorskip("torch")
    from tensorca.engines.bitpack.pack import pack_lanes_torch, unpack_lanes_torch

    cells = (np.random.default_rng(seed).random((batch, h, w)) < 0.5).astype(np.uint8)
    words = pack_lanes_torch(torch.from_numpy(cells * 3))  # any nonzero value is alive
    groups = -(-batch // 32)
    assert words.dtype == torch.int32 and tuple(words.shape) == (groups, h, w)
    bits = (words.numpy().view(np.uint32)[:, None] >> np.arange(32, dtype=np.uint32)[None, :, None, None]) & 1
    padded = np.zeros((groups * 32, h, w), np.uint32)
    padded[:batch] = cells
    assert np.array_equal(bits.reshape(groups * 32, h, w), padded)
    back = unpack_lanes_torch(words, batch)
    assert back.dtype == torch.uint8 and np.array_equal(back.numpy(), cells)
    with pytest.raises(UsageError, match="hold at most"):
        unpack_lanes_torch(words, groups * 32 + 1)


# --- circuits ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(40))
def test_rule_expression_is_the_rule(seed):
    """The minimised expression agrees with B/S on every (centre, neighbour count)."""
    rng = np.random.default_rng(seed)
    birth = frozenset(int(i) for i in np.flatnonzero(rng.random(9) < 0.4))
    survival = frozenset(int(i) for i in np.flatnonzero(rng.random(9) < 0.4))
    expr = rule_expression(birth, survival)
    full = np.uint64(2**64 - 1)
    for centre in (0, 1):
        for n in range(9):
            total = n + centre
            planes = [full if total >> i & 1 else np.uint64(0) for i in range(4)]
            got = evaluate(expr, *planes, full if centre else np.uint64(0))
            assert int(got) == (int(full) if (n in (survival if centre else birth)) else 0), (birth, survival, expr)


@pytest.mark.parametrize("seed", range(40))
def test_difference_expression_is_the_rule(seed):
    """In difference coordinates (t0, s1 = t0 ^ t1, s2 = t1 ^ t2 of the total mod 8) the expression
    agrees with B/S on every (centre, neighbour count); it exists exactly when 8 neighbours (total
    8 or 9) and none (total 0 or 1, the same mod 8) do the same for both centres."""
    rng = np.random.default_rng(1000 + seed)
    birth = frozenset(int(i) for i in np.flatnonzero(rng.random(9) < 0.4))
    survival = frozenset(int(i) for i in np.flatnonzero(rng.random(9) < 0.4))
    if seed % 2:  # half the cases: no 7 or 8 survival and no 8 birth, so the expression exists
        birth, survival = birth - {8}, survival - {7, 8}

    def alive(centre, total):
        return (total - centre) in (survival if centre else birth)

    clash = any(alive(c, 8 + c) != alive(c, c) for c in (0, 1))  # 8 neighbours against none: totals 8 + c, c
    expr = difference_expression(birth, survival)
    assert (expr is None) == clash, (birth, survival)
    if expr is None:
        return
    assert "t1" not in expr and "t2" not in expr and "t3" not in expr
    for centre in (0, 1):
        for n in range(9):
            t = n + centre
            t0, t1, t2 = t & 1, t >> 1 & 1, t >> 2 & 1
            got = eval(expr, {"__builtins__": {}}, {"t0": t0, "s1": t0 ^ t1, "s2": t1 ^ t2, "c": centre}) & 1
            assert got == alive(centre, t), (birth, survival, expr, centre, n)


def test_life_circuit_is_short():
    expr = rule_expression(frozenset({3}), frozenset({2, 3}))
    counts = kernel_op_count(expr)
    assert counts["rule"] <= 9
    assert counts["all"] <= 40
    assert rule_expression(frozenset({1, 3, 5, 7}), frozenset({1, 3, 5, 7})).replace(" ", "") in ("(c)^t0", "(t0)^c")
    ones, dont = truth_table(frozenset({3}), frozenset({2, 3}))
    assert ones == {3, 16 + 3, 16 + 4}  # birth on 3; survival on 2 or 3 neighbours (T = 3, 4)
    assert set(range(10, 16)) <= dont and 16 in dont  # impossible totals; a live cell counts itself
    assert difference_expression(frozenset({3}), frozenset({2, 3})).replace(" ", "") == "~s1&s2&(t0|c)"


# --- supports() -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, ok",
    [
        ("B3/S23", True),
        ("B0/S8", True),
        ("B/S", True),
        ("B012345678/S012345678", True),
        ("23/3/2", True),  # Generations spelling of Life, two states
        ("B3/S23V", True),  # any two-state 3x3 table (tests/test_bitpack_tables.py)
        ("B2/S34H", True),
        ("B2-a/S12", True),
        ("B3/S2-i34q", True),
        ("/2/3", True),  # Generations: an alive plane and a decay counter (tests/test_bitpack_generations.py)
        ("345/2/4", True),
        ("R5,C0,M1,S34..58,B34..45,NM", False),
        ("W30", True),  # a 3x3 table too: the reference runs it as one
    ],
)
def test_supports_is_exact(text, ok):
    rule = parse_rule(text)
    for name in ("bitpack-cpu",):
        engine = get_engine(name)
        for topology in (Topology.torus(8, 8), Topology.plane(8, 8)):
            assert engine.supports(rule, topology) is ok
            if not ok:
                assert "cannot run" in engine.why_unsupported(rule, topology)
    assert not get_engine("bitpack-cpu").supports(parse_rule("B3/S23"), Topology.unbounded())


def test_inconsistent_tables_run_their_table():
    """A table that disagrees with its stated B/S sets runs as the table (the reference's meaning)."""
    life = parse_rule("B3/S23")
    table = bytearray(life.table)
    table[0b111000000] ^= 1  # one configuration of 3 neighbours differs: not outer-totalistic
    odd = TableRule(bytes(table), birth=life.birth, survival=life.survival, kind="bs", text="odd")
    assert why_not_bitpack(odd, Topology.torus(4, 4)) is None
    pytest.importorskip("numba")
    cells = (np.random.default_rng(2).random((2, 9, 70)) < 0.4).astype(np.uint8)
    topology = Topology.torus(70, 9)
    want = get_engine("numpy").advance(cells, odd, topology, 3)
    assert np.array_equal(get_engine("bitpack-cpu").advance(cells, odd, topology, 3), want)
    assert not np.array_equal(want, get_engine("numpy").advance(cells, life, topology, 3))


def test_map_rule_runs_the_bs_kernels():
    # A MAP rule carries no birth/survival sets; its table is Life's, so it runs Life's kernels.
    rule = parse_rule("MAPARYXfhZofugWaH7oaIDogBZofuhogOiAaIDogIAAgAAWaH7oaIDogGiA6ICAAIAAaIDogIAAgACAAIAAAAAAAA")
    assert rule.table == parse_rule("B3/S23").table
    assert get_engine("bitpack-cpu").supports(rule, Topology.torus(8, 8))


# --- bitpack-cpu parity ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cpu():
    pytest.importorskip("numba")
    return get_engine("bitpack-cpu")


@pytest.mark.parametrize("text", PARITY_RULES)
@pytest.mark.parametrize("kind", ["torus", "plane"])
def test_cpu_word_boundaries(cpu, text, kind):
    """Widths at and around 64-bit words (1, 7, 64, 65, 127, 130, 200) match the reference."""
    rule = parse_rule(text)
    ref = get_engine("numpy")
    rng = np.random.default_rng(abs(hash((text, kind))) % 2**32)
    for b, h, w in SHAPES:
        topology = Topology(kind, w, h)
        cells = (rng.random((b, h, w)) < rng.choice([0.1, 0.4, 0.8])).astype(np.uint8)
        for gens in (1, 4):
            got = cpu.advance(cells, rule, topology, gens)
            want = ref.advance(cells, rule, topology, gens)
            assert got.dtype == np.uint8 and got.shape == cells.shape
            assert np.array_equal(got, want), (text, kind, (b, h, w), gens)


@pytest.mark.parametrize("path", ["serial", "whole", "strips"])
def test_cpu_launch_paths(cpu, path, monkeypatch):
    """Each launch path: one thread, one task per grid (all generations), strips of rows per generation."""
    import tensorca.engines.bitpack.cpu as bitpack_cpu
    import tensorca.engines.bitpack.rows as bitpack_rows

    for module in (bitpack_cpu, bitpack_rows):  # the column kernels' serial path, the row kernels'
        monkeypatch.setattr(module, "SERIAL_WORK", 1 << 40 if path == "serial" else 0)
    monkeypatch.setattr(bitpack_rows, "SMALL_GRID_WORDS", 1 << 40 if path == "whole" else 0)
    rule = parse_rule("B36/S23")
    ref = get_engine("numpy")
    rng = np.random.default_rng(7)
    cases = [((9, 24, 70), "torus"), ((5, 31, 33), "plane"), ((1, 150, 300), "torus"), ((1, 100, 129), "plane")]
    for shape, kind in cases:
        cells = (rng.random(shape) < 0.35).astype(np.uint8)
        topology = Topology(kind, shape[2], shape[1])
        for gens in (6, 7):
            assert np.array_equal(cpu.advance(cells, rule, topology, gens), ref.advance(cells, rule, topology, gens))


def test_cpu_b0_padding_never_leaks(cpu):
    """B0 on an empty grid: every real cell is born, padding bits stay 0 (and don't wrap in)."""
    for w in (1, 63, 65, 100):
        for kind in ("torus", "plane"):
            topology = Topology(kind, w, 3)
            empty = np.zeros((1, 3, w), dtype=np.uint8)
            ref = get_engine("numpy").advance(empty, parse_rule("B0/S"), topology, 2)
            assert np.array_equal(cpu.advance(empty, parse_rule("B0/S"), topology, 2), ref)
            assert np.array_equal(cpu.advance(empty, parse_rule("B0/S"), topology, 1), np.ones_like(empty))


def test_cpu_glider_crosses_torus_seam(cpu):
    """A glider on a 65x13 torus crosses the partial last word and is back home after 4*65 gens."""
    grid = np.zeros((1, 13, 65), dtype=np.uint8)
    grid[0, 1, 63], grid[0, 2, 64], grid[0, 3, 62:65] = 1, 1, 1
    rule = parse_rule("B3/S23")
    topology = Topology.torus(65, 13)
    assert np.array_equal(cpu.advance(grid, rule, topology, 4 * 65), grid)  # 65 cells right and down
    half = cpu.advance(grid, rule, topology, 4 * 30)
    assert np.array_equal(half, np.roll(grid, (30, 30), axis=(1, 2)))
    assert np.array_equal(half, get_engine("numpy").advance(grid, rule, topology, 4 * 30))


BITPACK_GOLDEN = [
    c for c in golden_cases() if c["topology"] != "unbounded_plane" and why_not_bitpack(*parse_spec(c["rule"])) is None
]


def test_golden_set_covers_both_topologies_and_several_rules():
    """The golden cases the contract runs on bit-packed engines exercise several circuits and both edges."""
    rules = {c["rule"].split(":")[0] for c in BITPACK_GOLDEN}
    assert {"B3/S23", "B36/S23", "B2/S", "B1357/S1357"} <= rules
    assert {c["topology"] for c in BITPACK_GOLDEN} == {"torus", "bounded_plane"}


def test_cpu_through_run():
    pytest.importorskip("numba")
    from tensorca.simulate import run

    cells = (np.random.default_rng(3).random((33, 71)) < 0.4).astype(np.uint8)
    for rule in ("B3/S23", "B3/S23:P71,33"):
        assert np.array_equal(run(cells, rule, 9, backend="bitpack-cpu"), run(cells, rule, 9, backend="numpy"))
    with pytest.raises(EngineError, match="cannot run"):
        run(cells, "R2,C0,S2-3,B3", 1, backend="bitpack-cpu")  # range rules are not 3x3 tables
