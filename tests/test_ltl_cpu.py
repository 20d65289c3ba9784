"""The ``ltl-cpu`` engine: Larger than Life / HROT counts in O(1) per cell, bit-identical to the reference.

Parity with the NumPy reference on odd, non-square grids (one row, one column included) for every
count kernel (Moore, von Neumann diamond, row spans of any other mask), with and without the
centre, with decay states, births at count 0 (no dead-window skipping), sparse soups (skipping),
ranges 1..12 and the ``uint32`` counts of ranges past 127; every bounded topology; Golly's golden
LtL cases; loud refusals; the registry facts ``auto`` reads.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

pytest.importorskip("numba")

from tensorca.costmodel import choose  # noqa: E402
from tensorca.engines import engine_info, get_engine  # noqa: E402
from tensorca.engines.ltl.cpu import (  # noqa: E402
    LtlCpuEngine,
    advance_states,
    interval_arrays,
    kernel_state,
    mask_runs,
    neighbourhood_plan,
)
from tensorca.engines.numpy_reference import mask_runs as reference_runs  # noqa: E402
from tensorca.errors import EngineError  # noqa: E402
from tensorca.rules import parse_rule, parse_spec  # noqa: E402
from tensorca.topology import Topology  # noqa: E402

from .conftest import golden_cases, golden_start_grid, sha256_grid  # noqa: E402

REFERENCE = get_engine("numpy")
ENGINE = LtlCpuEngine()

#: (rule, kernel it runs): every shape, M0/M1, decay, births at 0, ranges 1..12.
RULES = (
    ("R1,C0,M0,S2..3,B3..3,NM", "moore"),                # Life as LtL
    ("R5,C0,M1,S34..58,B34..45,NM", "moore"),            # Bosco
    ("R12,C0,M0,S150..300,B120..200,NM", "moore"),
    ("R3,C4,M0,S5..20,B6..15,NM", "moore"),              # decay, centre not counted
    ("R1,C0,M1,S1..3,B0..2,NM", "moore"),                # births at count 0: nothing skipped
    ("R2,C0,M0,S3..6,B4..5,NN", "diamond"),
    ("R7,C0,M1,S30..50,B30..40,NN", "diamond"),
    ("R11,C6,M0,S40..120,B45..90,NN", "diamond"),
    ("R2,C0,M0,S0..3,B0..2,NN", "diamond"),              # births at count 0
    ("R1,C3,M1,S1..4,B2..3,NN", "diamond"),
    ("R3,C3,M1,S10..20,B10..14,NC", "spans"),            # circular
    ("R9,C2,M0,S20..60,B25..50,NC", "spans"),
    ("R2,C0,M1,S1..12,B1..12,N2", "diamond"),            # N2 at range 2 is the diamond
    ("R4,C0,M1,S10..30,B12..20,N2", "spans"),
    ("R3,C0,S0,7-12,B8,12,N+", "spans"),                 # HROT lists: several intervals
    ("R2,C5,S2-4,B3,NX", "spans"),
    ("R2,C4,S1-5,B2-3,N*", "spans"),
    ("R2,C0,S1-3,B2,N@891891", "spans"),                 # custom mask
    ("R3,C0,S2-9,B3-5,NB", "spans"),                     # checkerboard: one run per cell
    ("R2,C3,S1-3,B2,NH", "spans"),
)
SHAPES = ((7, 13), (1, 5), (17, 3), (5, 1), (1, 1), (24, 31))


def soup(seed: str, shape: tuple[int, ...], n_states: int, density: float | None = None) -> np.ndarray:
    """Cells of every state ``0..n_states-1``; density drawn from 0.1-0.9 unless given."""
    rng = np.random.default_rng(zlib.crc32(seed.encode()))
    live = rng.random(shape) < (rng.uniform(0.1, 0.9) if density is None else density)
    return (live * rng.integers(1, max(n_states, 2), shape)).astype(np.uint8)


def check(text: str, topology: Topology, cells: np.ndarray, generations: int, **options) -> None:
    rule = parse_rule(text)
    want = REFERENCE.advance(cells, rule, topology, generations)
    got = advance_states(cells, rule.compile(), topology, generations, **options) if options else \
        ENGINE.advance(cells, rule, topology, generations)
    np.testing.assert_array_equal(got, want, err_msg=f"{text} on {topology}, {generations} generations")


@pytest.mark.parametrize("text, shape", RULES, ids=[t for t, _ in RULES])
def test_kernel_choice(text, shape):
    """Each rule runs the kernel its mask calls for (the parity tests below then cover all three)."""
    plan = neighbourhood_plan(parse_rule(text).compile().perceive)
    assert plan.shape == shape
    mask = parse_rule(text).compile().perceive.mask
    assert plan.sub == (shape != "spans" and not mask[mask.shape[0] // 2, mask.shape[0] // 2])


@pytest.mark.parametrize("text", [t for t, _ in RULES])
@pytest.mark.parametrize("kind", ["torus", "plane"])
def test_matches_reference(text, kind):
    """Odd, non-square grids (one row, one column, one cell), a batch of two, 1 and 5 generations."""
    n_states = parse_rule(text).n_states
    for height, width in SHAPES:
        topology = Topology(kind, width, height)  # type: ignore[arg-type]
        cells = soup(f"{text} {kind} {height} {width}", (2, height, width), n_states)
        for generations in (1, 5):
            check(text, topology, cells, generations)


@pytest.mark.parametrize("text", ["R5,C0,M1,S34..58,B34..45,NM", "R7,C4,M0,S20..50,B20..40,NN",
                                  "R4,C3,M1,S10..30,B10..20,NC"])
@pytest.mark.parametrize("density", [0.0, 0.01, 0.05])
def test_sparse_soups_skip_dead_windows(text, density):
    """Rows whose window is dead are written without counting (decay states still age); the sums
    restart after each dead run, on a torus and a plane."""
    rule = parse_rule(text)
    for topology in (Topology.torus(41, 67), Topology.plane(41, 67)):
        cells = soup(f"sparse {text} {density}", (1, 67, 41), rule.n_states, density)
        cells[0, 30:33, 5:9] = 1  # one live patch at least
        if rule.n_states > 2:
            cells[0, 50, ::3] = rule.n_states - 1  # decaying cells in otherwise dead rows
        check(text, topology, cells, 6)


@pytest.mark.parametrize("text", ["R5,C0,M1,S34..58,B34..45,NM", "R6,C0,M0,S20..40,B22..30,NN",
                                  "R3,C3,M1,S10..20,B10..14,NC"])
@pytest.mark.parametrize("threads", [3, 8])
def test_bands_of_rows(text, threads):
    """A grid split into several bands of rows (each starting its sums afresh) gives the same result."""
    rule = parse_rule(text)
    cells = soup(f"bands {text}", (1, 90, 37), rule.n_states)
    for topology in (Topology.torus(37, 90), Topology.plane(37, 90)):
        check(text, topology, cells, 4, threads=threads)


@pytest.mark.parametrize("kind", ["shifted-torus", "klein", "cross", "sphere"])
def test_other_topologies(kind):
    """The ring is a gather from ``padding_ring``: shifted tori, Klein bottles, cross-surfaces, spheres."""
    topology = {
        "shifted-torus": Topology.torus(13, 9, shift_x=2),
        "klein": Topology.klein(12, 9, "h", shift=True),
        "cross": Topology("cross", 13, 9),
        "sphere": Topology.sphere(11),
    }[kind]
    height, width = topology.shape
    for text in ("R3,C0,M1,S6..14,B5..9,NM", "R2,C3,M0,S3..6,B4..5,NN", "R3,C0,S0,7-12,B8,12,N+"):
        cells = soup(f"{kind} {text}", (2, height, width), parse_rule(text).n_states)
        check(text, topology, cells, 4)


def test_ranges_past_the_grid():
    """A range larger than the grid wraps several times round a small torus."""
    for text in ("R12,C0,M1,S100..300,B90..200,NM", "R12,C3,M0,S50..150,B40..100,NN"):
        for height, width in ((3, 5), (1, 1)):
            cells = soup(f"past {text} {height}", (3, height, width), parse_rule(text).n_states)
            check(text, Topology.torus(width, height), cells, 3)


@pytest.mark.slow
def test_uint32_counts_at_large_ranges():
    """Past range 127 a Moore count no longer fits ``uint16``: ``uint32`` counts, ``uint16`` row sums."""
    text = "R130,C0,M1,S20000..40000,B21000..30000,NM"
    plan = neighbourhood_plan(parse_rule(text).compile().perceive)
    assert plan.count_dtype is np.uint32
    cells = soup("uint32", (1, 9, 300), 2, 0.4)
    check(text, Topology.torus(300, 9), cells, 3)
    check(text, Topology.plane(300, 9), cells, 3)


@pytest.mark.parametrize("text", ["R7,C0,M1,S1..20,B1..10,NN", "R3,C4,M1,S40..49,B40..49,NM", "R2,C0,S1,B1,NC"])
@pytest.mark.parametrize("batch, threads", [(1, 1), (1, 4), (3, 2)])
def test_a_grid_that_dies_stops_the_run(text, batch, threads):
    """A 40% soup under these rules dies within a few generations (decay states first, with C4):
    the run stops at the first all-0 generation, serially, with a barrier between bands, and per
    group of whole grids, and gives what the reference gives."""
    rule = parse_rule(text)
    cells = soup(f"dies {text}", (batch, 40, 29), rule.n_states, 0.4)
    if batch > 1:
        cells[1] = 0
        cells[2, 10:14, 10:14] = 1  # may or may not die: whatever the reference says
    for topology in (Topology.torus(29, 40), Topology.plane(29, 40)):
        for generations in (1, 2, 9, 30):
            check(text, topology, cells, generations, threads=threads)


@pytest.mark.parametrize("text, dtype", [("R7,C0,M1,S30..50,B30..40,NM", np.uint8),
                                         ("R8,C0,M1,S30..50,B30..40,NM", np.uint16),
                                         ("R10,C0,M0,S30..50,B30..40,NN", np.uint8),
                                         ("R11,C0,M0,S30..50,B30..40,NN", np.uint16),
                                         ("R200,C0,M1,S30..50,B30..40,NN", np.uint32)])
def test_count_dtype_is_the_narrowest(text, dtype):
    """Counts up to 255 run in ``uint8`` lanes (twice as many per vector as ``uint16``)."""
    assert neighbourhood_plan(parse_rule(text).compile().perceive).count_dtype is dtype


def test_golden_ltl_cases():
    """Golly's own LtL runs: final hash and the population after every generation."""
    cases = [c for c in golden_cases() if c["topology"] != "unbounded_plane"
             and ENGINE.supports(*parse_spec(c["rule"]))]
    assert len(cases) >= 2
    for case in cases:
        rule, topology = parse_spec(case["rule"])
        grid = golden_start_grid(case)[None]
        assert sha256_grid(ENGINE.advance(grid, rule, topology, case["generations"])[0]) == case["final_sha256"]
        trace, cells = [int(np.count_nonzero(grid))], grid
        for _ in range(case["generations"]):
            cells = ENGINE.advance(cells, rule, topology, 1)
            trace.append(int(np.count_nonzero(cells)))
        assert trace == case["population_trace"], case["name"]


def test_mask_runs_match_the_reference():
    rng = np.random.default_rng(3)
    for _ in range(20):
        mask = (rng.random((9, 9)) < 0.5).astype(np.uint8)
        assert [tuple(r) for r in mask_runs(mask).tolist()] == reference_runs(mask)


def test_intervals_are_clipped_to_the_counts():
    lo, hi = interval_arrays(((0, 3), (5, 200), (300, 400)), 121, np.uint16)
    assert lo.tolist() == [0, 5] and hi.tolist() == [3, 121] and lo.dtype == np.uint16


@pytest.mark.parametrize("text, topology", [
    ("R1,C0,S1,B2,NW0810080a850a081008", Topology.torus(8, 8)),   # weighted: stays with torch/numpy
    ("R2,C3,S2-9,B3-6,NG", Topology.torus(8, 8)),
    ("B3/S23", Topology.torus(8, 8)),
    ("R5,C0,M1,S34..58,B34..45,NM", Topology.unbounded()),
])
def test_refuses_loudly(text, topology):
    rule = parse_rule(text)
    assert not ENGINE.supports(rule, topology)
    assert not engine_info("ltl-cpu").precheck(rule.compile(), topology)
    shape = (8, 8) if topology.bounded else (4, 4)
    with pytest.raises(EngineError, match="ltl-cpu"):
        ENGINE.advance(np.zeros((1, *shape), np.uint8), rule, topology, 1)


def test_wrong_shape_is_an_engine_error():
    with pytest.raises(EngineError, match="shape|got"):
        ENGINE.advance(np.zeros((1, 5, 6), np.uint8), parse_rule("R2,C0,M1,S3..8,B4..6,NM"), Topology.torus(5, 6), 1)


def test_zero_generations_copy_and_input_untouched():
    rule = parse_rule("R2,C3,M0,S3..6,B4..5,NN")
    cells = soup("copy", (2, 9, 11), 3)
    kept = cells.copy()
    out = ENGINE.advance(cells, rule, Topology.torus(11, 9), 0)
    assert out is not cells and np.array_equal(out, cells)
    ENGINE.advance(cells, rule, Topology.torus(11, 9), 3)
    np.testing.assert_array_equal(cells, kept)


def test_registry_facts_and_auto():
    """Registered with Numba as its requirement; ``auto`` picks it for a large LtL run; its kernels
    are reported loaded once run."""
    info = engine_info("ltl-cpu")
    assert info.requires == ("numba",) and "fast" in info.install
    rule = parse_rule("R5,C0,M1,S34..58,B34..45,NM")
    ENGINE.advance(np.zeros((1, 8, 8), np.uint8), rule, Topology.torus(8, 8), 1)
    assert kernel_state(rule) == "loaded" and kernel_state(parse_rule("B3/S23")) == "none"
    choice = choose(rule, Topology.torus(512, 512), 1, (512, 512), 200)
    assert choice.engine == "ltl-cpu", choice.describe()
