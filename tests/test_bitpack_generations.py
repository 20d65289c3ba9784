"""Generations rules bit-packed on ``bitpack-cpu`` (issue 18): an alive plane and a decay counter.

Packing is checked exactly for every state count's encoding; the kernels bit for bit against the
NumPy reference on odd, non-square grids (torus and plane, widths around 64-bit words, batches),
for 3 to 256 states, B/S, Hensel, MAP, V and H tables, on every launch path and the generic
kernels; and against Golly's own Generations results (the golden cases).
"""

from __future__ import annotations

import base64

import numpy as np
import pytest

from tensorca.engines import engine_info, get_engine
from tensorca.engines.bitpack import choice as choice
from tensorca.engines.bitpack import circuit as circuit
from tensorca.errors import EngineError, GridError
from tensorca.rules import parse_rule, parse_spec
from tensorca.topology import Topology

from .conftest import golden_cases, golden_start_grid, sha256_grid

gen = pytest.importorskip("tensorca.engines.bitpack.generations")

#: (H, W): one cell, one row, one column, odd and non-square, widths either side of 64 and 128.
SHAPES = [(1, 1), (1, 5), (17, 3), (7, 13), (13, 63), (11, 65), (6, 130)]


def soup(rng: np.random.Generator, shape: tuple[int, ...], n_states: int) -> np.ndarray:
    """Every state 0..n-1 present, live density drawn from 0.2-0.7."""
    live = rng.random(shape) < rng.uniform(0.2, 0.7)
    return (live * rng.integers(1, n_states, shape)).astype(np.uint8)


def map_generations(seed: int, n_states: int) -> str:
    """A seeded random MAP table (B0 cleared, as Generations requires) with ``n_states`` states."""
    bits = (np.random.default_rng(seed).random(512) < 0.5).astype(np.uint8)
    bits[0] = 0
    return "MAP" + base64.b64encode(np.packbits(bits).tobytes()).decode()[:86] + f"/{n_states}"


# --- encoding -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("n_states", [3, 4, 5, 8, 9, 17, 25, 129, 255, 256])
def test_counter_encoding(n_states):
    """k planes hold n-1 values; state n-1 is the all-ones value (its increment overflows to 0)."""
    k, v = gen.counter_bits(n_states), gen.first_value(n_states)
    assert 1 << (k - 1) < n_states - 1 <= 1 << k or (n_states == 3 and k == 1)
    assert v >= 1 and v + (n_states - 3) == (1 << k) - 1


@pytest.mark.parametrize("n_states", [3, 4, 8, 25, 256])
def test_pack_round_trip_is_exact(n_states):
    rng = np.random.default_rng(n_states)
    for width in (1, 63, 64, 65, 200):
        cells = rng.integers(0, n_states, (2, 5, width)).astype(np.uint8)
        cells[0, 0, : min(width, n_states)] = np.arange(min(width, n_states))  # every state, some rows
        words = gen.pack_states(cells, n_states)
        k = gen.counter_bits(n_states)
        wp = -(-width // 64)
        assert words.shape == (2, 5, (1 + k) * wp) and words.dtype == np.uint64
        np.testing.assert_array_equal(gen.unpack_states(words, width, n_states), cells)
        # the padding bits of every plane's last word stay 0
        pad = ~np.uint64((1 << (width - (wp - 1) * 64)) - 1) if width % 64 else np.uint64(0)
        for p in range(1 + k):
            assert not (words[..., (p + 1) * wp - 1] & pad).any()
        # the alive plane is exactly state 1
        alive = np.unpackbits(words[..., :wp].view(np.uint8), axis=-1, count=width, bitorder="little")
        np.testing.assert_array_equal(alive, cells == 1)


def test_out_of_range_state_is_an_error():
    with pytest.raises(GridError, match="state 4"):
        gen.pack_states(np.array([[[0, 4, 1]]], dtype=np.uint8), 4)


# --- parity with the reference ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cpu():
    pytest.importorskip("numba")
    return get_engine("bitpack-cpu")


def check_parity(engine, rule, rng, shapes=SHAPES, gens=(1, 5), batch=2) -> None:
    ref = get_engine("numpy")
    for h, w in shapes:
        for kind in ("torus", "plane"):
            topology = Topology(kind, w, h)
            cells = soup(rng, (batch, h, w), rule.n_states)
            for g in gens:
                got = engine.advance(cells, rule, topology, g)
                want = ref.advance(cells, rule, topology, g)
                assert got.dtype == np.uint8
                np.testing.assert_array_equal(got, want, err_msg=f"{rule.canonical()} {(h, w)} {kind} {g}")


#: Star Wars, Brian's Brain, Frogs, 256 states, Hensel, V and H (the engine contract's rules, whose
#: kernels it compiles too), Belzhab (8 states), a 25-state rule from Golly's patterns, a MAP table.
RULES = ["345/2/4", "/2/3", "12/34/3", "12/34/256", "12/2-a/4", "23/3/3V", "2/3/3H", "23/23/8",
         "45678/2478/25", map_generations(3, 5)]


@pytest.mark.parametrize("text", RULES, ids=lambda t: "MAP-random/5" if t.startswith("MAP") else t)
def test_matches_reference(cpu, text):
    rule = parse_rule(text)
    assert rule.n_states > 2 and cpu.supports(rule, Topology.torus(9, 7))
    check_parity(cpu, rule, np.random.default_rng(sum(map(ord, text))))


def test_long_run_cycles_through_every_state(cpu):
    """Enough generations that cells die through all 25 states and are reborn, on a torus."""
    rule = parse_rule("45678/2478/25")
    rng = np.random.default_rng(5)
    check_parity(cpu, rule, rng, shapes=[(20, 70)], gens=(60,), batch=1)


def test_launch_paths_and_generic_kernels(cpu, monkeypatch):
    """Serial, whole-grid and strip paths; past the specialised-module cap, the generic kernels."""
    import tensorca.engines.bitpack.rows as bitpack_rows

    rng = np.random.default_rng(9)
    for serial, small in ((1 << 40, 0), (0, 1 << 40), (0, 0)):
        monkeypatch.setattr(bitpack_rows, "SERIAL_WORK", serial)
        monkeypatch.setattr(bitpack_rows, "SMALL_GRID_WORDS", small)
        for text in ("345/2/4", "12/2-a/4"):  # the row-sum ring, the nine-plane table kernels
            check_parity(cpu, parse_rule(text), rng, [(70, 130), (33, 65)], gens=(5,), batch=3)
    monkeypatch.setattr(bitpack_rows, "SERIAL_WORK", 1 << 20)
    monkeypatch.setattr(circuit, "LOADED", {})
    monkeypatch.setattr(circuit, "MAX_SPECIALISED", 0)
    for text in ("345/2/4", "/2/3", "12/34/256", "12/2-a/4", map_generations(4, 7)):
        rule = parse_rule(text)
        assert choice.generations_key(rule.compile()) == circuit.GENERIC_GENERATIONS
        check_parity(cpu, rule, rng, [(7, 13), (11, 65)], gens=(1, 4))
    assert set(circuit.LOADED) == {("bitpack-cpu", circuit.GENERIC_GENERATIONS)}


GOLDEN = [c for c in golden_cases() if c["topology"] != "unbounded_plane" and c["states"] > 2]


@pytest.mark.parametrize("case", GOLDEN, ids=lambda c: c["name"])
def test_golden_generations(cpu, case):
    """Golly's Generations algorithm's final states, in one call."""
    rule, topology = parse_spec(case["rule"])
    assert cpu.supports(rule, topology)
    out = cpu.advance(golden_start_grid(case)[None], rule, topology, case["generations"])[0]
    assert sha256_grid(out) == case["final_sha256"]


def test_golden_set_has_generations_cases():
    assert {c["rule"].split(":")[0] for c in GOLDEN} >= {"/2/3", "345/2/4", "12/34/3"}
    assert {c["topology"] for c in GOLDEN} == {"torus", "bounded_plane"}


# --- what runs where ------------------------------------------------------------------------------------


def test_only_bitpack_cpu_claims_generations():
    spec = parse_rule("345/2/4").compile()
    torus = Topology.torus(9, 7)
    assert engine_info("bitpack-cpu").precheck(spec, torus)
    assert not engine_info("bitpack-gpu").precheck(spec, torus)
    assert "4 states" in circuit.why_not_bitpack(spec, torus)
    assert circuit.why_not_bitpack(spec, torus, generations=True) is None
    assert "shifted" in circuit.why_not_generations(spec, Topology.torus(9, 7, shift_x=1))
    assert "decay" in circuit.why_not_generations(parse_rule("B3/S23").compile(), torus)
    ltl = parse_rule("R3,C3,M1,S10..20,B10..14,NC").compile()  # decay states, but counted, not a 3x3 table
    assert not engine_info("bitpack-cpu").precheck(ltl, torus)


def test_refusals_are_loud(cpu):
    cells = np.zeros((1, 7, 9), dtype=np.uint8)
    with pytest.raises(EngineError):
        cpu.advance(cells, parse_rule("345/2/4"), Topology.torus(9, 7, shift_x=1), 1)
    with pytest.raises(EngineError):
        gen.advance_states(cells, parse_rule("B3/S23").compile(), Topology.torus(9, 7), 1)


def test_kernel_state_and_auto(cpu, monkeypatch, tmp_path):
    """The registry reports the compiled kernels; auto picks bitpack-cpu for a large Generations soup."""
    from tensorca import costmodel

    monkeypatch.setenv("TENSORCA_CACHE_DIR", str(tmp_path))  # no calibration file: the built-in costs
    rule = parse_rule("/2/3")
    cpu.advance(np.zeros((1, 4, 4), dtype=np.uint8), rule, Topology.torus(4, 4), 1)
    assert costmodel.kernel_state("bitpack-cpu", rule) == "loaded"
    assert costmodel.kernel_state("bitpack-gpu", rule) == "none"
    choice = costmodel.choose(rule, Topology.torus(1024, 1024), 1, (1024, 1024), 200, device="cpu")
    assert choice.engine == "bitpack-cpu", choice


def test_bs_tables_run_the_row_sum_ring():
    """B/S tables reuse each row's 3-sum (bitpack_cpu's _shifted_sum); other tables read nine planes."""
    assert "def _shifted_sum" in gen.kernel_source(parse_rule("345/2/4").table, 4)
    assert "def _shifted_sum" in gen.kernel_source(parse_rule("MAPARYXfhZofugWaH7oaIDogBZofuhogOiAaIDogIAAgAAWaH7oaID"
                                                              "ogGiA6ICAAIAAaIDogIAAgACAAIAAAAAAAA/3").table, 3)
    assert "def _rule9" in gen.kernel_source(parse_rule("12/2-a/4").table, 4)
    assert "def _rule9" in gen.kernel_source(parse_rule("23/3/3V").table, 3)
