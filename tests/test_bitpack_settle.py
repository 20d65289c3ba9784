"""bitpack-cpu's column kernels, which skip what has settled (:mod:`tensorca.engines.bitpack.columns`).

A word is skipped when its 3x3 block of words equalled generation t - 2, so every case here runs
long enough for soups to settle into still lifes and blinkers, with something still moving
(gliders crossing word, 64-row chunk and torus edges; a pentadecathlon, period 15, astride a word
boundary) and compares bit for bit with the NumPy reference: torus and plane, B0 rules (the whole
background flips every generation), Hensel and MAP tables, batches, odd and tiny shapes (forced
onto the column kernels), every launch path (one thread, a task per grid, bands of rows with their
own halos), the generic kernel. White-box checks read the change bits themselves: settled regions
must be skipped, and moving ones not.
"""

from __future__ import annotations

import numpy as np
import pytest

import tensorca.engines.bitpack.cpu as bitpack_cpu
import tensorca.engines.bitpack.rows as bitpack_rows
from tensorca.engines import get_engine
from tensorca.engines.bitpack import circuit as circuit
from tensorca.engines.bitpack.circuit import rule_table
from tensorca.engines.bitpack.columns import change_bits, from_columns, to_columns
from tensorca.engines.bitpack.pack import last_word_mask, pack
from tensorca.rules import parse_rule
from tensorca.topology import Topology

GLIDER = np.array([[0, 1, 0], [0, 0, 1], [1, 1, 1]], dtype=np.uint8)
BLOCK = np.ones((2, 2), dtype=np.uint8)
BLINKER = np.ones((1, 3), dtype=np.uint8)
#: Ten cells in a row become a pentadecathlon (period 15).
ROW10 = np.ones((1, 10), dtype=np.uint8)
LIFE_MAP = "MAPARYXfhZofugWaH7oaIDogBZofuhogOiAaIDogIAAgAAWaH7oaIDogGiA6ICAAIAAaIDogIAAgACAAIAAAAAAAA"


@pytest.fixture(scope="module")
def cpu():
    return get_engine("bitpack-cpu")


def same_as_reference(engine, cells: np.ndarray, rule, kind: str, gens: int) -> None:
    _, h, w = cells.shape
    topology = Topology(kind, w, h)
    got = engine.advance(cells, rule, topology, gens)
    want = get_engine("numpy").advance(cells, rule, topology, gens)
    assert np.array_equal(got, want), (rule.canonical(), cells.shape, kind, gens)


def soups(rng: np.random.Generator, batch: int, h: int, w: int) -> np.ndarray:
    return (rng.random((batch, h, w)) < rng.choice([0.3, 0.4])).astype(np.uint8)


def place(grid: np.ndarray, pattern: np.ndarray, y: int, x: int) -> None:
    """Stamp ``pattern`` into ``(H, W)`` ``grid`` at ``(y, x)``, wrapping."""
    ph, pw = pattern.shape
    h, w = grid.shape
    grid[np.ix_((np.arange(ph) + y) % h, (np.arange(pw) + x) % w)] = pattern


def ash_with_movers(h: int, w: int) -> np.ndarray:
    """Blocks and blinkers (settle at once), a pentadecathlon astride the first word boundary,
    and gliders that cross word, chunk and grid edges (and, on a torus, wrap)."""
    grid = np.zeros((h, w), dtype=np.uint8)
    for y in range(2, h - 3, 12):
        for x in range(3, w - 3, 17):
            place(grid, BLOCK if (x + y) % 2 else BLINKER, y, x)
    place(grid, ROW10, h // 2, 59)
    place(grid, GLIDER, 5, 55)
    place(grid, GLIDER[::-1, ::-1].copy(), h - 9, w - 12)
    return grid[None]


# --- parity -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["torus", "plane"])
@pytest.mark.parametrize("text", ["B3/S23", "B36/S23"])
def test_soups_that_settle(cpu, text, kind):
    """Soups run into ash (batch of 3; shapes across 64-bit words and 64-row chunks, more than
    RUN_CHUNKS chunks tall), compared after a few generations and after most have settled."""
    rng = np.random.default_rng(sum(map(ord, text + kind)))
    rule = parse_rule(text)
    for h, w in [(70, 130), (300, 67)]:
        cells = soups(rng, 3, h, w)
        for gens in (2, 7, 400):
            same_as_reference(cpu, cells, rule, kind, gens)


@pytest.mark.parametrize("kind", ["torus", "plane"])
def test_movers_through_settled_ash(cpu, kind):
    """Gliders and a period-15 oscillator among still lifes and blinkers: what moves is
    recomputed wherever it goes (across word, chunk and torus edges), what has settled is not."""
    rule = parse_rule("B3/S23")
    for h, w in [(131, 130), (70, 200)]:
        cells = ash_with_movers(h, w)
        for gens in (15, 333):
            same_as_reference(cpu, cells, rule, kind, gens)


@pytest.mark.parametrize("text", ["B0/S8", "B0/S012345678", "B01/S12", "B0123478/S01234678"])
def test_b0_rules(cpu, text):
    """B0 rules: the background flips every generation (period 2), padding bits must stay 0."""
    rng = np.random.default_rng(len(text))
    rule = parse_rule(text)
    for kind in ("torus", "plane"):
        for h, w in [(67, 65), (140, 63)]:
            cells = soups(rng, 2, h, w)
            for gens in (1, 4, 120):
                same_as_reference(cpu, cells, rule, kind, gens)


@pytest.mark.parametrize("text", ["B2-a/S12", "B3/S2-i34q", LIFE_MAP, "B2/S13V", "B0/S2V"])
def test_table_rules(cpu, text):
    """Hensel letters, Life as MAP (Life's kernels), von Neumann, B0 on a sub-neighbourhood."""
    rng = np.random.default_rng(sum(map(ord, text)))
    rule = parse_rule(text)
    for kind in ("torus", "plane"):
        cells = soups(rng, 2, 130, 70)
        for gens in (3, 300):
            same_as_reference(cpu, cells, rule, kind, gens)


def test_random_map_with_b0(cpu):
    rng = np.random.default_rng(5)
    table = (rng.random(512) < 0.5).astype(np.uint8)
    table[0], table[511] = 1, 0
    import base64

    rule = parse_rule("MAP" + base64.b64encode(np.packbits(table).tobytes()).decode()[:86])
    for kind in ("torus", "plane"):
        same_as_reference(cpu, soups(rng, 2, 67, 129), rule, kind, 50)


@pytest.mark.parametrize("shape", [(1, 1), (1, 5), (3, 1), (2, 2), (64, 64), (65, 1), (1, 64), (128, 129)])
def test_odd_and_tiny_shapes(cpu, monkeypatch, shape):
    """One-cell, one-row and one-column grids (a word and a chunk are their own neighbours on a
    torus), exact words and chunks, one past them; on the column kernels whatever the shape."""
    monkeypatch.setattr(bitpack_cpu, "use_columns", lambda height, wp: True)
    rng = np.random.default_rng(sum(shape))
    cells = soups(rng, 2, *shape)
    for text in ("B3/S23", "B0/S8"):
        for kind in ("torus", "plane"):
            for gens in (1, 2, 37):
                same_as_reference(cpu, cells, parse_rule(text), kind, gens)


@pytest.mark.parametrize("path", ["serial", "whole"])
def test_launch_paths(cpu, monkeypatch, path):
    """One thread; one task per grid (all generations, no barrier)."""
    monkeypatch.setattr(bitpack_cpu, "SERIAL_WORK", 1 << 40 if path == "serial" else 0)
    monkeypatch.setattr(bitpack_cpu, "BAND_MIN_WORDS", 1 << 40)
    rng = np.random.default_rng(11)
    for text in ("B3/S23", "B2-a/S12"):
        for kind in ("torus", "plane"):
            for batch in (1, 3):
                same_as_reference(cpu, soups(rng, batch, 200, 193), parse_rule(text), kind, 90)


@pytest.mark.parametrize("text", ["B3/S23", "B2-a/S12", "B0/S8"])
def test_bands(text):
    """Bands of rows run on their own for an epoch, each with that many borrowed rows either side
    (more than the grid on a small torus, clipped at a plane's edges): any band count, epochs
    of odd and even length, grids and bands not multiples of 64 rows."""
    rule = parse_rule(text)
    module, lut = bitpack_rows.table_kernels_for(rule_table(rule))
    rng = np.random.default_rng(len(text))
    for (n, h, w), bands, epoch in [((2, 200, 130), 3, 7), ((1, 150, 70), 2, 32), ((1, 40, 65), 5, 12)]:
        cells = soups(rng, n, h, w)
        wp = -(-w // 64)
        rs, mask = np.uint64(w - (wp - 1) * 64 - 1), np.uint64(last_word_mask(w, 64))
        for kind in ("torus", "plane"):
            src, dst = to_columns(pack(cells, 64))
            done = 0
            for gens in (epoch, epoch, 1, epoch):
                module.col_bands(src, dst, kind == "torus", rs, mask, True, gens, bands, lut)
                src, dst = dst, src
                done += gens
            want = get_engine("numpy").advance(cells, rule, Topology(kind, w, h), done)
            assert np.array_equal(unpack_like(from_columns(src), w), want), (text, h, w, bands, epoch, kind)


def test_bands_from_advance(cpu, monkeypatch):
    """advance_packed cuts a grid into bands when threads are free (forced here)."""
    import numba

    import tensorca.cpu_load

    if numba.get_num_threads() < 2:
        pytest.skip("Numba runs one thread here")
    monkeypatch.setattr(bitpack_cpu, "SERIAL_WORK", 0)
    monkeypatch.setattr(bitpack_cpu, "BAND_MIN_WORDS", 0)
    monkeypatch.setattr(bitpack_cpu, "BAND_GENERATIONS", 9)
    monkeypatch.setattr(tensorca.cpu_load, "free_cores", lambda: 64)
    calls = []
    real = bitpack_cpu._advance_columns

    def spy(module, *args, **kwargs):
        calls.append(module)
        return real(_Spy(module, calls), *args, **kwargs)

    monkeypatch.setattr(bitpack_cpu, "_advance_columns", spy)
    rng = np.random.default_rng(4)
    for kind in ("torus", "plane"):
        same_as_reference(cpu, soups(rng, 1, 150, 130), parse_rule("B3/S23"), kind, 40)
    assert "col_bands" in calls


class _Spy:
    """A kernel module that notes which drivers are called."""

    def __init__(self, module, calls):
        self._module, self._calls = module, calls

    def __getattr__(self, name):
        self._calls.append(name)
        return getattr(self._module, name)


def test_wide_short_grids_run_rows(cpu):
    """Long rows and few of them run the row kernels (faster there); still exact."""
    assert bitpack_cpu.use_columns(1024, 16) and bitpack_cpu.use_columns(5, 1)
    assert not bitpack_cpu.use_columns(64, 33) and not bitpack_cpu.use_columns(16, 8)
    rng = np.random.default_rng(8)
    for kind in ("torus", "plane"):
        same_as_reference(cpu, soups(rng, 2, 20, 2200), parse_rule("B3/S23"), kind, 30)


def test_generic_kernel_past_the_cap(cpu, monkeypatch):
    """Past the specialised-module cap, B/S rules run the generic kernel's column kernels."""
    monkeypatch.setattr(circuit, "LOADED", {})
    monkeypatch.setattr(circuit, "MAX_SPECIALISED", 0)
    rng = np.random.default_rng(3)
    for text in ("B36/S125", "B0/S8"):
        rule = parse_rule(text)
        module, _ = bitpack_rows.table_kernels_for(rule_table(rule))
        assert module is bitpack_rows.kernel_module(circuit.GENERIC)
        for kind in ("torus", "plane"):
            same_as_reference(cpu, soups(rng, 2, 130, 70), rule, kind, 60)


# --- what is skipped --------------------------------------------------------------------------------


def run_columns(cells: np.ndarray, text: str, torus: bool, gens: int) -> tuple[np.ndarray, np.ndarray]:
    """Run the column kernels directly; returns the grid and the change bits of the last generation."""
    rule = parse_rule(text)
    module, lut = bitpack_rows.table_kernels_for(rule_table(rule))
    n, h, w = cells.shape
    words = pack(cells, 64)
    wp = words.shape[2]
    src, dst = to_columns(words)
    fa, fb = change_bits(n, wp, h)
    module.col_whole_serial(src, dst, fa, fb, torus, np.uint64(w - (wp - 1) * 64 - 1),
                            np.uint64(last_word_mask(w, 64)), True, gens, lut)
    out, bits = (dst, fb) if gens % 2 else (src, fa)
    return from_columns(out), bits


def changed_words(bits: np.ndarray, h: int) -> np.ndarray:
    """``(B, wp + 1, nch)`` change bits -> ``(B, H, wp + 1)`` bool: row y, column k changed."""
    rows = np.unpackbits(bits.view(np.uint8), axis=-1, bitorder="little")
    return rows[..., :h].transpose(0, 2, 1).astype(bool)


def test_settled_ash_is_skipped():
    """Still lifes and blinkers: after two generations no bit is left but a blinker's rows, and
    after more every word is skipped (the blinkers are period 2)."""
    h, w = 150, 140
    grid = np.zeros((1, h, w), dtype=np.uint8)
    for y in range(4, h - 4, 20):
        place(grid[0], BLOCK, y, 10)
        place(grid[0], BLINKER, y, 62)  # astride the first word boundary
    out, bits = run_columns(grid, "B3/S23", True, 1)
    assert changed_words(bits, h).any()  # generation 1 vs 0: the blinkers turned
    for gens in (2, 3, 10):
        out, bits = run_columns(grid, "B3/S23", True, gens)
        assert not bits.any(), gens
        want = get_engine("numpy").advance(grid, parse_rule("B3/S23"), Topology.torus(w, h), gens)
        assert np.array_equal(unpack_like(out, w), want)


def unpack_like(words: np.ndarray, width: int) -> np.ndarray:
    from tensorca.engines.bitpack.pack import unpack

    return unpack(words, width)


def test_a_glider_keeps_its_neighbourhood_awake():
    """A glider alone: the rows and columns it passes through carry change bits (so its path is
    computed), the rest of the grid carries none."""
    h, w = 200, 200
    grid = np.zeros((1, h, w), dtype=np.uint8)
    place(grid[0], GLIDER, 60, 60)
    for gens in (40, 41, 140):
        out, bits = run_columns(grid, "B3/S23", True, gens)
        want = get_engine("numpy").advance(grid, parse_rule("B3/S23"), Topology.torus(w, h), gens)
        assert np.array_equal(unpack_like(out, w), want)
        changed = changed_words(bits, h)[0]
        live_rows = np.flatnonzero(want[0].any(axis=1))
        live_cols = np.unique(np.flatnonzero(want[0].any(axis=0)) // 64)
        assert changed[live_rows][:, live_cols].any()
        assert changed.sum() <= 8, changed.sum()  # a few rows of one or two columns


def test_b0_background_is_skipped():
    """Under B0/S an empty torus flips between all alive and all dead: period 2, so after the
    first generations nothing is computed; the result stays exact (padding bits clear)."""
    h, w = 70, 130
    grid = np.zeros((1, h, w), dtype=np.uint8)
    for gens in (3, 4):
        out, bits = run_columns(grid, "B0/S", True, gens)
        assert not bits.any()
        assert np.array_equal(unpack_like(out, w), np.full((1, h, w), gens % 2, dtype=np.uint8))
