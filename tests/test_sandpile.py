"""Abelian sandpiles: hand-checked piles, conservation, the group identity's known properties, every
backend equal to the NumPy reference (piles and topple counts), exact solves from any guess, and
every error path."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorca
from tensorca.errors import (
    EngineError,
    GridError,
    MissingDependencyError,
    RuleError,
    TensorcaError,
    TopologyError,
    UsageError,
)
from tensorca.sandpile import NeverStabilizesError, Sandpile, identity, stabilize
from tensorca.sandpile import reference as ref
from tensorca.sandpile.group import identity_pile, levels
from tensorca.sandpile.layout import Layout
from tensorca.sandpile.model import STENCILS
from tensorca.sandpile.odometer import poisson, solve_plane

torch = pytest.importorskip("torch")

BACKENDS = ["numpy", "numba", "torch"]


def outside_neighbours(shape: tuple[int, int], neighbourhood: str) -> np.ndarray:
    """``(H, W)``: how many of each cell's neighbours lie off a plane (its edges to the sink)."""
    height, width = shape
    ys, xs = np.mgrid[0:height, 0:width]
    out = np.zeros(shape, dtype=np.int64)
    for dy, dx in STENCILS[neighbourhood]:
        out += ~((0 <= ys + dy) & (ys + dy < height) & (0 <= xs + dx) & (xs + dx < width))
    return out


def stab(grid, **kwargs):
    return stabilize(grid, backend="numba", **kwargs)


# --- hand-checked piles ---------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_four_grains_in_the_middle_of_a_3x3_plane_topple_once(backend):
    grid = np.zeros((3, 3), dtype=np.int64)
    grid[1, 1] = 4
    pile, topples = stabilize(grid, "sandpile", topology="plane", counts=True, backend=backend)
    assert pile.tolist() == [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    assert topples.tolist() == [[0, 0, 0], [0, 1, 0], [0, 0, 0]]


@pytest.mark.parametrize("backend", BACKENDS)
def test_hand_checked_cascades(backend):
    # 8 grains in the middle topple twice at once; Moore gives one grain to each of 8 neighbours
    grid = np.zeros((3, 3), dtype=np.int64)
    grid[1, 1] = 8
    pile, topples = stabilize(grid, counts=True, backend=backend)
    assert pile.tolist() == [[0, 2, 0], [2, 0, 2], [0, 2, 0]] and topples[1, 1] == 2 and topples.sum() == 2
    pile, topples = stabilize(grid, neighbourhood="moore", counts=True, backend=backend)
    assert pile.tolist() == [[1, 1, 1], [1, 0, 1], [1, 1, 1]] and topples.sum() == 1
    # a corner of a 2x2 plane with 4 grains: two go to its neighbours, two fall off the edge;
    # its two neighbours then hold 1 each and stay put
    corner = np.array([[4, 0], [0, 0]])
    pile, topples = stabilize(corner, counts=True, backend=backend)
    assert pile.tolist() == [[0, 1], [1, 0]] and topples.tolist() == [[1, 0], [0, 0]]
    # a 1x3 row [3, 4, 3]: the middle topples (ends 4, 3 grains off the edge), then both ends
    # (one grain each back to the middle, three each off the edge)
    row = np.array([[3, 4, 3]])
    pile, topples = stabilize(row, counts=True, backend=backend)
    assert topples.tolist() == [[1, 1, 1]] and pile.tolist() == [[0, 2, 0]]
    # on a torus the same single cell's 4 grains come back to it: 1x1 torus with 3 is stable
    assert stabilize(np.array([[3]]), topology="torus", backend=backend).tolist() == [[3]]
    # a dissipative pile (threshold 5, 4 neighbours) loses a grain per toppling even on a torus
    pile, topples = stabilize(np.array([[0, 5], [0, 0]]), topology="torus", threshold=5, counts=True,
                              backend=backend)
    assert topples.sum() == 1 and pile.sum() == 4


def test_a_stable_grid_comes_back_unchanged_with_zero_counts():
    grid = np.random.default_rng(1).integers(0, 4, (17, 23))
    pile, topples = stab(grid, counts=True)
    assert np.array_equal(pile, grid) and not topples.any()


# --- conservation -----------------------------------------------------------------------------------


@pytest.mark.parametrize("neighbourhood", ["vonneumann", "moore"])
def test_mass_is_conserved_on_a_torus_and_lost_only_at_plane_edges(neighbourhood):
    rng = np.random.default_rng(7)
    degree = len(STENCILS[neighbourhood])
    grid = rng.integers(0, degree, (3, 19, 26))
    grid[:, 9, 13] += 40
    grid[:, 1, 2] += 200  # near an edge, so the plane loses grains
    pile, topples = stab(grid, topology="torus", neighbourhood=neighbourhood, counts=True)
    assert np.array_equal(pile.sum((1, 2)), grid.sum((1, 2)))
    assert topples.any() and pile.max() < degree
    pile, topples = stab(grid, topology="plane", neighbourhood=neighbourhood, counts=True)
    lost = (topples * outside_neighbours(grid.shape[1:], neighbourhood)).sum((1, 2))
    assert lost.sum() > 0
    assert np.array_equal(grid.sum((1, 2)), pile.sum((1, 2)) + lost)
    # and the pile is what the counts say: start + (grains received - grains sent)
    change = ref.laplacian(topples, Layout.of(Sandpile(neighbourhood, degree, "plane"), *grid.shape[1:]))
    assert np.array_equal(pile, grid + change)


# --- the sandpile group's identity ------------------------------------------------------------------


@pytest.fixture(scope="module")
def e64():
    return identity(64, backend="numba")


def test_identity_is_idempotent_and_stable(e64):
    assert e64.shape == (64, 64) and e64.dtype == np.int64
    assert 0 <= e64.min() and e64.max() <= 3
    assert np.array_equal(stab(e64 + e64), e64)


def test_identity_is_neutral_on_recurrent_piles(e64):
    rng = np.random.default_rng(3)
    for _ in range(3):
        # all-3 plus anything, stabilised, is recurrent
        recurrent = stab(3 + rng.integers(0, 4, (64, 64)))
        assert np.array_equal(stab(recurrent + e64), recurrent)
    # and a non-recurrent pile (all 0) is not its own sum with e: e is not the zero pile
    assert not np.array_equal(stab(np.zeros((64, 64), dtype=np.int64) + e64), np.zeros((64, 64)))


def test_identity_has_the_square_symmetry_and_known_features(e64):
    for image in (e64[::-1], e64[:, ::-1], e64.T, np.rot90(e64)):
        assert np.array_equal(image, e64)
    # the famous picture: a central square of 2s; 3s dominate, and every corner cell of the grid holds 2
    middle = e64[24:40, 24:40]
    assert (middle == 2).all()
    assert (e64 == 3).mean() > 0.5
    assert e64[0, 0] == e64[-1, -1] == 2


def test_identity_equals_the_definition_by_plain_toppling():
    for shape, kwargs in (((40, 40), {}), ((33, 47), {}), ((36, 28), {"neighbourhood": "moore"}),
                          ((20, 30), {"threshold": 5}), ((1, 1), {}), ((1, 9), {})):
        threshold = kwargs.get("threshold", 8 if kwargs.get("neighbourhood") == "moore" else 4)
        double = np.full(shape, 2 * (threshold - 1))
        expected = stab(double - stab(double, **kwargs), **kwargs)
        assert np.array_equal(identity(*shape, **kwargs), expected), (shape, kwargs)


@pytest.mark.parametrize("backend", BACKENDS)
def test_identity_is_the_same_on_every_backend(backend):
    # sizes past group.BASE, so guessed counts, descent rounds and folded halves all run
    for shape, neighbourhood in (((70, 70), "vonneumann"), ((67, 90), "vonneumann"), ((72, 66), "moore")):
        expected = identity_pile(Sandpile(neighbourhood, len(STENCILS[neighbourhood])), *shape, ref.solve,
                                 fold=False)
        got = identity(*shape, neighbourhood=neighbourhood, backend=backend)
        if backend == "torch":
            assert isinstance(got, torch.Tensor)
            got = got.numpy()
        assert np.array_equal(got, expected), (shape, neighbourhood)


def test_identity_levels_halve_down_to_the_base():
    assert levels(1024, 1024) == [(32, 32), (64, 64), (128, 128), (256, 256), (512, 512), (1024, 1024)]
    assert levels(100, 33) == [(50, 17), (100, 33)]
    assert levels(5, 700) == [(5, 700)]


@pytest.mark.slow
def test_identity_256_matches_plain_toppling():
    expected = stab(6 - stab(np.full((256, 256), 6)))
    assert np.array_equal(identity(256), expected)


# --- every backend equal to the reference -----------------------------------------------------------


def random_piles(seed: int, shape: tuple[int, ...], degree: int, torus: bool) -> np.ndarray:
    rng = np.random.default_rng(seed)
    grid = rng.integers(0, degree, shape)
    spots = rng.integers(0, grid.size, 3)
    # a few tall piles; on a torus keep the total below what could never stabilise
    grid.reshape(-1)[spots] += rng.integers(0, 30 if torus else 300, 3)
    if torus:
        grid = np.minimum(grid, 2 * degree)
        grid = np.where(rng.random(shape) < 0.5, grid // 2, grid)
    return grid


@pytest.mark.parametrize("topology", ["plane", "torus"])
@pytest.mark.parametrize("neighbourhood", ["vonneumann", "moore"])
def test_backends_equal_the_reference_on_random_grids(topology, neighbourhood):
    degree = len(STENCILS[neighbourhood])
    for seed, shape in ((0, (2, 13, 21)), (1, (1, 1, 7)), (2, (3, 2, 2)), (3, (1, 31, 17))):
        grid = random_piles(seed, shape, degree, topology == "torus")
        try:
            want = stabilize(grid, topology=topology, neighbourhood=neighbourhood, counts=True, backend="numpy")
        except NeverStabilizesError:
            for backend in ("numba", "torch"):
                with pytest.raises(NeverStabilizesError):
                    stabilize(grid, topology=topology, neighbourhood=neighbourhood, backend=backend)
            continue
        for backend in ("numba", "torch"):
            got = stabilize(grid, topology=topology, neighbourhood=neighbourhood, counts=True, backend=backend)
            assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1]), (backend, seed)


@settings(max_examples=25, deadline=None)
@given(h=st.integers(1, 9), w=st.integers(1, 9), seed=st.integers(0, 2**32 - 1), moore=st.booleans(),
       torus=st.booleans(), extra=st.integers(0, 3))
def test_property_backends_agree(h, w, seed, moore, torus, extra):
    neighbourhood = "moore" if moore else "vonneumann"
    degree = 8 if moore else 4
    grid = np.random.default_rng(seed).integers(0, degree + extra, (h, w))
    topology = "torus" if torus else "plane"
    outcomes = []
    for backend in BACKENDS:
        try:
            outcomes.append(stabilize(grid, topology=topology, neighbourhood=neighbourhood, threshold=degree + extra,
                                      counts=True, backend=backend))
        except NeverStabilizesError:
            outcomes.append(None)
    if outcomes[0] is None:
        assert outcomes == [None] * 3
    else:
        for pile, topples in outcomes[1:]:
            assert np.array_equal(pile, outcomes[0][0]) and np.array_equal(topples, outcomes[0][1])


# --- exact from any guess (the odometer method) ----------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(h=st.integers(1, 12), w=st.integers(1, 12), seed=st.integers(0, 2**32 - 1), moore=st.booleans(),
       spread=st.integers(0, 40), symmetric=st.booleans())
def test_any_guess_gives_the_exact_pile_and_counts(h, w, seed, moore, spread, symmetric):
    rng = np.random.default_rng(seed)
    pile = Sandpile("moore" if moore else "vonneumann", 8 if moore else 4)
    cells = rng.integers(0, 3 * pile.threshold, (h, w))
    if symmetric:  # exercises the mirror-folded halves
        cells = cells + cells[::-1] + cells[:, ::-1] + cells[::-1, ::-1]
    want_pile, want_counts, _ = ref.solve(cells[None], None, Layout.of(pile, h, w))
    # guesses too low, too high and both, with all backends, folded or not
    guess = np.maximum(want_counts[0] + rng.integers(-spread, spread + 1, (h, w)), 0)
    if symmetric:
        guess = np.maximum(guess, guess[::-1])
    for solver in (ref.solve, "numba", "torch"):
        if isinstance(solver, str):
            from tensorca.sandpile.api import host_solver

            solver = host_solver(solver)
        for fold in (False, True):
            got_pile, got_counts, _ = solve_plane(cells, guess, pile, solver, fold)
            assert np.array_equal(got_pile, want_pile[0]) and np.array_equal(got_counts, want_counts[0])


def test_poisson_solves_the_plane_laplacian():
    rng = np.random.default_rng(0)
    for neighbourhood, threshold in (("vonneumann", 4), ("moore", 8), ("vonneumann", 6)):
        pile = Sandpile(neighbourhood, threshold)
        values = rng.integers(0, 10**6, (1, 9, 14))
        rhs = ref.laplacian(values, Layout.of(pile, 9, 14))[0]
        assert np.allclose(poisson(rhs, pile), values[0], rtol=0, atol=1e-6)


# --- arrays in, arrays out ----------------------------------------------------------------------------


def test_types_dtypes_and_batches_come_back_as_given():
    grid = np.full((2, 9, 9), 5, dtype=np.uint8)
    pile, topples = stabilize(grid, counts=True, backend="numpy")
    assert pile.dtype == np.uint8 and pile.shape == (2, 9, 9) and topples.dtype == np.int64
    tensor = torch.from_numpy(grid[0].astype(np.int16))
    out, counts = stabilize(tensor, counts=True)  # auto: torch for a tensor
    assert isinstance(out, torch.Tensor) and out.dtype == torch.int16 and counts.dtype == torch.int64
    assert np.array_equal(out.numpy(), pile[0]) and np.array_equal(counts.numpy(), topples[0])
    on_numpy = stabilize(tensor, backend="numpy")
    assert isinstance(on_numpy, torch.Tensor) and np.array_equal(on_numpy.numpy(), pile[0])
    from_numpy = stabilize(grid[0], backend="torch", device="cpu")
    assert isinstance(from_numpy, np.ndarray) and np.array_equal(from_numpy, pile[0])
    assert grid.max() == 5  # the input is never modified


def test_public_names():
    assert tensorca.stabilize is stabilize
    assert "stabilize" in tensorca.__all__
    assert tensorca.sandpile.identity is identity
    assert isinstance(identity(3, 5, backend="numpy"), np.ndarray) and identity(3, 5).shape == (3, 5)


def test_topology_values_and_suffixes():
    grid = random_piles(5, (12, 10), 4, torus=True)
    torus = stab(grid, topology="torus")
    assert np.array_equal(stab(grid, topology=":T10,12"), torus)
    assert np.array_equal(stab(grid, topology=tensorca.Topology("torus", 10, 12)), torus)
    assert np.array_equal(stab(grid, topology="P10,12"), stab(grid))
    assert np.array_equal(stab(grid, neighbourhood="von Neumann"), stab(grid, neighbourhood="vn"))


# --- errors -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_torus_that_never_stabilises_raises(backend):
    # too many grains: said before any toppling
    with pytest.raises(NeverStabilizesError, match="at most 3 a cell") as info:
        stabilize(np.full((8, 8), 3) + np.eye(8, dtype=int), topology="torus", backend=backend)
    assert info.value.grains == 200 and info.value.cells == 64
    with pytest.raises(NeverStabilizesError, match="grid 1 of the batch"):
        stabilize(np.stack([np.zeros((4, 4), int), np.full((4, 4), 8)]), topology="torus", neighbourhood="moore",
                  backend=backend)
    # few enough grains, but it topples forever: caught once every cell has toppled
    grid = np.full((5, 5), 3)
    grid[0, 0], grid[2, 2] = 4, 2
    with pytest.raises(NeverStabilizesError, match="topple forever"):
        stabilize(grid, topology="torus", backend=backend)
    # the same pile on a plane stabilises, and a dissipative threshold stabilises it on a torus
    assert stabilize(grid, backend=backend).max() <= 3
    assert stabilize(grid, topology="torus", threshold=5, backend=backend).max() <= 4


def test_bad_grids_raise_grid_errors():
    cases = [
        (np.ones((4, 4), dtype=np.float32), "integer dtype"),
        (np.ones((4, 4), dtype=bool), "integer dtype"),
        (torch.ones((4, 4)), "integer dtype"),
        (np.array([[1, -2], [0, 0]]), r"cell \(0, 1\) holds -2"),
        (torch.tensor([[1, -2], [0, 0]]), "non-negative"),
        (np.full((2, 2), 2**40), "at most"),
        (np.ones(5, dtype=int), "shape"),
        (np.ones((1, 2, 3, 4), dtype=int), "shape"),
        (np.ones((0, 4), dtype=int), "empty"),
    ]
    for grid, words in cases:
        with pytest.raises(GridError, match=words):
            stabilize(grid, backend="numpy")
    with pytest.raises(GridError, match="cannot hold stable heights up to 199"):
        stabilize(np.ones((3, 3), dtype=np.int8), threshold=200, backend="numpy")


def test_bad_arguments_raise_typed_errors():
    grid = np.ones((4, 4), dtype=int)
    cases = [
        (RuleError, "unknown model", dict(model="forest fire")),
        (UsageError, "unknown neighbourhood", dict(neighbourhood="hex")),
        (UsageError, "threshold must lie in 8", dict(neighbourhood="moore", threshold=4)),
        (UsageError, "threshold must be an integer", dict(threshold=4.5)),
        (UsageError, "counts must be", dict(counts="yes")),
        (TopologyError, "Klein bottle|klein", dict(topology=":K4*,4")),
        (TopologyError, "does not match", dict(topology=":T5,4")),
        (TopologyError, "unbounded", dict(topology="unbounded")),
        (TopologyError, "topology must be", dict(topology=3)),
        (EngineError, "unknown sandpile backend", dict(backend="bitpack-cpu")),
        (UsageError, "applies to the torch backend", dict(backend="numpy", device="cpu")),
        (UsageError, "unknown device", dict(backend="torch", device="tpu")),
    ]
    for error, words, kwargs in cases:
        model = kwargs.pop("model", "sandpile")
        with pytest.raises(error, match=words):
            stabilize(grid, model, **kwargs)
        assert issubclass(error, TensorcaError)
    for bad in (0, -3, 2.0, True, "8"):
        with pytest.raises(UsageError, match="positive integer"):
            identity(bad)
    with pytest.raises(UsageError, match="identity m"):
        identity(4, 0)


def test_missing_numba_is_a_typed_error(monkeypatch):
    from tensorca.engines import registry

    real = registry.installed
    monkeypatch.setattr(registry, "installed", lambda name: name != "numba" and real(name))
    with pytest.raises(MissingDependencyError, match="tensorca\\[fast\\]"):
        stabilize(np.ones((3, 3), dtype=int), backend="numba")
    # auto falls back to the reference
    assert stabilize(np.full((3, 3), 4)).tolist() == stabilize(np.full((3, 3), 4), backend="numpy").tolist()


@pytest.mark.cuda
def test_cuda_equals_the_reference():
    grid = random_piles(11, (4, 96, 80), 4, torus=False)
    want = stabilize(grid, counts=True, backend="numpy")
    got = stabilize(torch.from_numpy(grid).cuda(), counts=True)
    assert got[0].device.type == "cuda"
    assert np.array_equal(got[0].cpu().numpy(), want[0]) and np.array_equal(got[1].cpu().numpy(), want[1])
    assert np.array_equal(identity(200, 136, backend="torch", device="cuda").cpu().numpy(), identity(200, 136))
