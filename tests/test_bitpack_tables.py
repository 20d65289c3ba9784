"""Any two-state 3x3 table bit-packed: Hensel letters, MAP strings, V and H rules (issue 18).

The circuits (:mod:`tensorca.engines.bitpack.bdd`) are checked on all 512 configurations, the
engines bit for bit against the NumPy reference on odd non-square grids (torus and plane, widths
around 64-bit words), and a MAP spelling of a B/S rule must run the B/S rule's own kernels.
"""

from __future__ import annotations

import base64

import numpy as np
import pytest

from tensorca.engines import get_engine
from tensorca.engines.bitpack import choice as choice
from tensorca.engines.bitpack import circuit as circuit
from tensorca.engines.bitpack.bdd import (
    DC,
    NEIGHBOURS,
    PLANES,
    count_hybrid,
    dc_mux_circuit,
    is_count_circuit,
    kernel_ops,
    mux_circuit,
    mux_program,
    table_circuit,
)
from tensorca.engines.bitpack.circuit import count_sets, kernel_op_count
from tensorca.families.life_like.hensel import LETTERS
from tensorca.rules import parse_rule, parse_spec
from tensorca.topology import Topology

from .conftest import golden_cases

LIFE_MAP = "MAPARYXfhZofugWaH7oaIDogBZofuhogOiAaIDogIAAgAAWaH7oaIDogGiA6ICAAIAAaIDogIAAgACAAIAAAAAAAA"
#: (H, W): odd, non-square, one-word rows, partial last words, widths either side of 64 and 128.
SHAPES = [(7, 13), (65, 3), (13, 63), (9, 64), (11, 65), (5, 129), (70, 130)]


def map_text(table: bytes) -> str:
    """A 512-entry table as Golly's MAP string (index 0 first, most significant bit first)."""
    packed = np.packbits(np.frombuffer(table, dtype=np.uint8)).tobytes()
    return "MAP" + base64.b64encode(packed).decode()[:86]


def random_hensel(rng: np.random.Generator) -> str:
    """A random isotropic rule: for each count, no, all, or a random subset of its letters."""
    def half(prefix: str, counts: range) -> str:
        out = prefix
        for n in counts:
            letters = LETTERS[n]
            pick = rng.random()
            if pick < 0.3:
                continue
            if pick < 0.5 or not letters:
                out += str(n)
                continue
            chosen = [ch for ch in letters if rng.random() < 0.5] or [letters[0]]
            out += str(n) + "".join(chosen)
        return out
    return half("B", range(1, 9)) + "/" + half("S", range(0, 9))


def random_table(rng: np.random.Generator, b0: bool | None = None) -> bytes:
    table = (rng.random(512) < rng.choice([0.2, 0.5, 0.8])).astype(np.uint8)
    if b0 is not None:
        table[0] = int(b0)
    return table.tobytes()


def evaluate_circuit(c, table_index: np.ndarray) -> np.ndarray:
    """The circuit's value on each of the given 3x3 indices (bool arrays stand in for planes)."""
    env = {name: (table_index >> p) & 1 == 1 for p, name in enumerate(PLANES)}
    total = sum(((table_index >> p) & 1) for p in range(9))
    env.update({f"t{i}": (total >> i) & 1 == 1 for i in range(4)})
    for line in c.lines:
        name, expr = line.split(" = ", 1)
        env[name] = eval(expr, {"__builtins__": {}}, env)
    return np.broadcast_to(eval(c.result, {"__builtins__": {}}, env), table_index.shape)


INDEX = np.arange(512)


# --- circuits ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_circuits_equal_random_tables(seed):
    """Every candidate circuit equals the table on all 512 configurations (random MAP and Hensel)."""
    rng = np.random.default_rng(seed)
    for table in (random_table(rng), parse_rule(random_hensel(rng)).compile().update.table):
        want = np.frombuffer(table, dtype=np.uint8) == 1
        candidates = [mux_circuit(table), table_circuit(table)]
        hybrid = count_hybrid(table)
        candidates += [hybrid] if hybrid is not None else []
        for c in candidates:
            assert np.array_equal(evaluate_circuit(c, INDEX), want), c.key


def test_dont_care_diagram_is_right_on_its_cares():
    rng = np.random.default_rng(3)
    values = rng.integers(0, 3, 512).astype(np.uint8)
    c = dc_mux_circuit(values, (4, 1, 3, 5, 7, 0, 2, 6, 8))
    got = evaluate_circuit(c, INDEX)
    care = values != DC
    assert np.array_equal(got[care], values[care] == 1)


def test_mux_program_runs_the_table():
    """The generic kernels' data: (select, lo, hi) rows over v = [0, ~0, planes..., nodes...]."""
    rng = np.random.default_rng(4)
    for table in (random_table(rng), parse_rule("B2-a/S12").compile().update.table, bytes(512), bytes([1]) * 512):
        program = mux_program(table)
        v = [np.zeros(512, bool), np.ones(512, bool)] + [(INDEX >> p) & 1 == 1 for p in range(9)]
        for sel, lo, hi in program:
            v.append(np.where(v[sel], v[hi], v[lo]))
        assert np.array_equal(v[-1], np.frombuffer(table, dtype=np.uint8) == 1)


def test_map_spelling_of_bs_runs_the_bs_kernels():
    """Life as a MAP string has B3/S23's circuit and kernel key (so runs exactly as fast)."""
    life, mapped = parse_rule("B3/S23"), parse_rule(LIFE_MAP)
    assert mapped.table == life.table and mapped.birth is None
    assert table_circuit(mapped.table) == table_circuit(life.table)
    assert is_count_circuit(table_circuit(mapped.table))
    assert table_circuit(life.table).result == circuit.rule_expression(frozenset({3}), frozenset({2, 3}))
    for engine in ("bitpack-cpu", "bitpack-gpu"):
        assert choice.kernel_key(engine, mapped.table) == choice.kernel_key(engine, life.table)
    b36 = parse_rule("B36/S23")
    assert choice.kernel_key("bitpack-gpu", parse_rule(map_text(b36.table)).table) == choice.kernel_key(
        "bitpack-gpu", b36.table)
    assert circuit.bs_sets(mapped) == (frozenset({3}), frozenset({2, 3}))


def test_count_sets_recognise_v_and_h_rules():
    assert count_sets(parse_rule("B2/S13V").table, "V") == (frozenset({2}), frozenset({1, 3}))
    assert count_sets(parse_rule("B2/S13V").table, "M") is None
    assert count_sets(parse_rule("B24/S35H").table, "H") == (frozenset({2, 4}), frozenset({3, 5}))
    assert count_sets(parse_rule("B2-a/S12").table, "M") is None
    assert NEIGHBOURS["H"] == (0, 1, 3, 5, 7, 8)  # Golly's hexagonal: Moore minus NE (bit 6) and SW (bit 2)


def test_isotropic_circuits_are_short():
    """Measured ops per word (floor: Life's count kernel); pins that the count hybrid and the
    V adder are used where they pay (a plain decision diagram needs 86 + 18 for B2-a/S12)."""
    ops = {text: kernel_ops(parse_rule(text).table) for text in ("B3/S23", "B2-a/S12", "B3/S2-i34q", "B2/S13V")}
    assert ops["B3/S23"] == kernel_op_count(circuit.rule_expression(frozenset({3}), frozenset({2, 3})))["all"]
    assert ops["B2-a/S12"] <= 75
    assert ops["B3/S2-i34q"] <= 110
    assert ops["B2/S13V"] <= 35


def test_every_two_state_table_rule_is_supported():
    cpu = get_engine("bitpack-cpu") if _has("numba") else None
    for text in ("B2-a/S12", "B3/S2-i34q", LIFE_MAP, "B2/S13V", "B24/S35H", "W30"):
        assert circuit.why_not_bitpack(parse_rule(text), Topology.torus(9, 7)) is None
        if cpu is not None:
            assert cpu.supports(parse_rule(text), Topology.plane(9, 7))
    assert "3 states" in circuit.why_not_bitpack(parse_rule("/2/3"), Topology.torus(9, 7))
    # the narrower class of the count kernels (a precheck for Life-only engines such as dense-conv)
    assert circuit.why_not_moore_bs(parse_rule(LIFE_MAP), Topology.torus(9, 7)) is None
    assert "not B/S" in circuit.why_not_moore_bs(parse_rule("B2-a/S12"), Topology.torus(9, 7))
    assert "mask_count" in circuit.why_not_bitpack(parse_rule("R2,C0,S2,B3"), Topology.torus(9, 7))


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


# --- bitpack-cpu parity -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cpu():
    pytest.importorskip("numba")
    return get_engine("bitpack-cpu")


def check_parity(engine, rule, rng, shapes=SHAPES, gens=(1, 3), batch=2) -> None:
    ref = get_engine("numpy")
    for h, w in shapes:
        for kind in ("torus", "plane"):
            topology = Topology(kind, w, h)
            cells = (rng.random((batch, h, w)) < rng.choice([0.2, 0.4, 0.7])).astype(np.uint8)
            for g in gens:
                got = engine.advance(cells, rule, topology, g)
                want = ref.advance(cells, rule, topology, g)
                assert np.array_equal(got, want), (rule.canonical(), (h, w), kind, g)


#: One rule per kind of circuit (each new circuit costs a Numba compile of a few seconds, once
#: per machine): the count hybrid, a hybrid with survival letters, Life as MAP (Life's own
#: kernels), von Neumann and hexagonal adders, B0 on a sub-neighbourhood.
NAMED = ["B2-a/S12", "B3/S2-i34q", LIFE_MAP, "B2/S13V", "B24/S35H", "B0/S2V"]


@pytest.mark.parametrize("text", NAMED + ["MAP36/S23"])
def test_cpu_named_rules(cpu, text):
    if text == "MAP36/S23":
        text = map_text(parse_rule("B36/S23").table)
    check_parity(cpu, parse_rule(text), np.random.default_rng(sum(map(ord, text))))


@pytest.mark.parametrize("seed", range(2))
def test_cpu_random_hensel_and_map(cpu, seed):
    """Random isotropic letter sets and random MAP tables (with and without B0), own kernels."""
    rng = np.random.default_rng(100 + seed)
    shapes = [SHAPES[seed % len(SHAPES)], SHAPES[(seed + 3) % len(SHAPES)]]
    check_parity(cpu, parse_rule(random_hensel(rng)), rng, shapes)
    check_parity(cpu, parse_rule(map_text(random_table(rng, b0=bool(seed % 2)))), rng, shapes)


def test_cpu_launch_paths_and_generic_kernels(cpu, monkeypatch):
    """Serial, whole-grid and strip paths; past the specialised-module cap, the generic table kernels."""
    import tensorca.engines.bitpack.cpu as bitpack_cpu
    import tensorca.engines.bitpack.rows as bitpack_rows

    rng = np.random.default_rng(9)
    rule = parse_rule("B2-a/S12")
    for serial, small in ((1 << 40, 0), (0, 1 << 40), (0, 0)):
        for module in (bitpack_cpu, bitpack_rows):  # the column kernels' serial path, the row kernels'
            monkeypatch.setattr(module, "SERIAL_WORK", serial)
        monkeypatch.setattr(bitpack_rows, "SMALL_GRID_WORDS", small)
        check_parity(cpu, rule, rng, [(70, 130), (33, 65)], gens=(5,), batch=3)
    monkeypatch.setattr(circuit, "LOADED", {})
    monkeypatch.setattr(circuit, "MAX_SPECIALISED", 0)
    texts = [random_hensel(rng) for _ in range(4)] + [map_text(random_table(rng, b0=b0)) for b0 in (0, 1, 0, 1)]
    for text in texts + ["B0/S1V"]:
        rule = parse_rule(text)
        generic = circuit.GENERIC if is_count_circuit(table_circuit(rule.table)) else circuit.GENERIC_TABLE
        assert choice.kernel_key("bitpack-cpu", rule.table) == generic
        check_parity(cpu, rule, rng, [(7, 13), (11, 65)], gens=(1, 4))
    assert ("bitpack-cpu", circuit.GENERIC_TABLE) in circuit.LOADED
    assert {key for _, key in circuit.LOADED} <= {circuit.GENERIC, circuit.GENERIC_TABLE}


GOLDEN_TABLES = [c for c in golden_cases() if c["topology"] != "unbounded_plane"
                 and c["rule"].split(":")[0] in ("B2-a/S12", "B3/S2-i34q")]


@pytest.mark.parametrize("case", GOLDEN_TABLES, ids=lambda c: c["name"])
def test_cpu_golden_hensel(cpu, case):
    from .conftest import golden_start_grid, sha256_grid

    rule, topology = parse_spec(case["rule"])
    out = cpu.advance(golden_start_grid(case)[None], rule, topology, case["generations"])[0]
    assert sha256_grid(out) == case["final_sha256"]


def test_golden_set_has_hensel_cases():
    assert len(GOLDEN_TABLES) == 2


# --- bitpack-gpu under Triton's interpreter ------------------------------------------------------------


@pytest.mark.parametrize("text", ["B2-a/S12", "B2/S13V", "MAPRANDOM"])
def test_interpreted_gpu_kernels(text, monkeypatch):
    """The same generated circuits in the Triton kernels (whole-grid, one-step and multi-step, and
    the lane-per-grid kernels)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    from tensorca.engines.bitpack.gpu import BitpackGpu
    from tensorca.engines.bitpack.pack import pack_lanes_torch, pack_torch, unpack_lanes_torch, unpack_torch

    rng = np.random.default_rng(11)
    rule = parse_rule(map_text(random_table(rng, b0=True)) if text == "MAPRANDOM" else text)
    ref = get_engine("numpy")
    launches = [("whole", BitpackGpu()), ("step", BitpackGpu(block_rows=8, block_words=2)),
                ("multi", BitpackGpu(gens_per_launch=2, block_rows=8, block_words=4))]
    for mode, launch in launches:
        for h, w, kind in ((9, 33, "torus"), (10, 129, "plane")):
            cells = (rng.random((2, h, w)) < 0.4).astype(np.uint8)
            words = pack_torch(torch.from_numpy(cells))
            out = launch.advance_packed(words, w, rule, kind == "torus", 3, mode=mode)
            want = ref.advance(cells, rule, Topology(kind, w, h), 3)
            assert np.array_equal(unpack_torch(out, w).numpy(), want), (text, mode, h, w, kind)
    for mode, launch in (("whole", BitpackGpu(lanes_block=16)), ("step", BitpackGpu(block_rows=4, block_words=4))):
        for h, w, kind in ((5, 9, "torus"), (6, 7, "plane")):  # lane-per-grid: 35 grids, two groups
            cells = (rng.random((35, h, w)) < 0.4).astype(np.uint8)
            out = launch.advance_lanes(pack_lanes_torch(torch.from_numpy(cells)), rule, kind == "torus", 3, mode=mode)
            want = ref.advance(cells, rule, Topology(kind, w, h), 3)
            assert np.array_equal(unpack_lanes_torch(out, 35).numpy(), want), (text, "lanes", mode, h, w, kind)
