"""Spin models (tensorca.spins): the documented randomness mapping, NumPy == torch bit for bit,
chunked == unchunked, the equilibrium they sample (exact enumeration on tiny lattices, Onsager and
Yang on 256^2), observers of known lattices, and one-line errors for bad input."""

import itertools
import math

import numpy as np
import pytest

from tensorca.errors import GridError, TensorcaError, UsageError
from tensorca.randomness import fmix, stream_key, uniform_cells
from tensorca.spins import (
    ISING_TC,
    energy,
    ising,
    ising_energy,
    ising_magnetisation,
    magnetisation,
    potts,
    potts_energy,
    potts_order,
    potts_tc,
)
from tensorca.spins.ops import key_prefix
from tensorca.spins.params import exp

torch = pytest.importorskip("torch")


# -- the documented function, site by site -----------------------------------------------------------------

def _around(cells, y, x, boundary):
    """The values of the four neighbours of (y, x) that exist."""
    h, w = cells.shape
    out = []
    for dy, dx in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        yy, xx = y + dy, x + dx
        if boundary == "torus":
            out.append(int(cells[yy % h, xx % w]))
        elif 0 <= yy < h and 0 <= xx < w:
            out.append(int(cells[yy, xx]))
    return out


def _naive_ising(spins, T, sweeps, seed, dynamics, h, boundary, start=0, first_grid=0):
    """The docs' definition, one site at a time, with randomness.uniform_cells."""
    spins = spins.copy()
    for b, grid in enumerate(spins):
        for t in range(start, start + sweeps):
            for colour in (0, 1):
                u = uniform_cells(seed, 2 * t + colour, grid.shape, draw=0, grid=first_grid + b)
                for y, x in np.ndindex(*grid.shape):
                    if (x + y) % 2 != colour:
                        continue
                    n, s = sum(_around(grid, y, x, boundary)), int(grid[y, x])
                    if dynamics == "metropolis":
                        d_e = 2.0 * s * (n + h)
                        if u[y, x] < (1.0 if d_e <= 0 else math.exp(-d_e / T)):
                            grid[y, x] = -s
                    else:
                        grid[y, x] = 1 if u[y, x] < 1.0 / (1.0 + exp(-2.0 * (n + h) / T)) else -1
    return spins


def _naive_potts(states, q, T, sweeps, seed, dynamics, boundary):
    states = states.copy()
    for b, grid in enumerate(states):
        for t in range(sweeps):
            for colour in (0, 1):
                u0 = uniform_cells(seed, 2 * t + colour, grid.shape, draw=0, grid=b)
                u1 = uniform_cells(seed, 2 * t + colour, grid.shape, draw=1, grid=b)
                for y, x in np.ndindex(*grid.shape):
                    if (x + y) % 2 != colour:
                        continue
                    around, s = _around(grid, y, x, boundary), int(grid[y, x])
                    counts = [around.count(v) for v in range(q)]
                    if dynamics == "metropolis":
                        k0 = int(u0[y, x] * 2.0**53)
                        new = (s + 1 + (k0 * (q - 1) >> 53)) % q
                        d = counts[new] - counts[s]
                        if u1[y, x] < (1.0 if d >= 0 else math.exp(d / T)):
                            grid[y, x] = new
                    else:
                        most = max(counts)
                        weights = [math.exp(-(most - c) / T) for c in counts]
                        running, sums = 0.0, []
                        for w in weights:
                            running += w
                            sums.append(running)
                        target = u0[y, x] * sums[-1]
                        grid[y, x] = sum(c <= target for c in sums[:-1])
    return states


def test_key_prefix_is_the_stream_key_before_the_grid():
    for seed, generation, draw, grid in [(0, 0, 0, 0), (7, 13, 1, 5), (-3, 2**40, 0, 99)]:
        assert fmix(key_prefix(seed, generation, draw) ^ grid) == stream_key(seed, generation, draw, grid)


@pytest.mark.parametrize("dynamics", ["metropolis", "glauber"])
@pytest.mark.parametrize("boundary,shape,h", [("torus", (2, 6, 8), 0.0), ("plane", (2, 5, 7), 0.35)])
def test_ising_follows_the_documented_mapping(dynamics, boundary, shape, h):
    spins = ising(shape, 2.2, 0, init="random", seed=4, boundary=boundary)
    got = ising(spins, 2.2, 3, seed=11, dynamics=dynamics, h=h, boundary=boundary, start_sweep=2, first_grid=3)
    want = _naive_ising(spins, 2.2, 3, 11, dynamics, h, boundary, start=2, first_grid=3)
    assert np.array_equal(got, want)


@pytest.mark.parametrize("dynamics", ["metropolis", "glauber"])
@pytest.mark.parametrize("boundary,shape", [("torus", (2, 6, 4)), ("plane", (1, 5, 5))])
def test_potts_follows_the_documented_mapping(dynamics, boundary, shape):
    states = potts(shape, 4, 1.0, 0, init="random", seed=2, boundary=boundary)
    got = potts(states, 4, 0.9, 3, seed=5, dynamics=dynamics, boundary=boundary)
    assert np.array_equal(got, _naive_potts(states, 4, 0.9, 3, 5, dynamics, boundary))


def test_random_start_is_the_documented_draw():
    u = uniform_cells(3, 0, (6, 10), draw=0xFFFF, grid=1)
    assert np.array_equal(ising((2, 6, 10), 1.0, 0, seed=3, init="random")[1], np.where(u < 0.5, 1, -1))
    assert np.array_equal(potts((2, 6, 10), 5, 1.0, 0, seed=3, init="random")[1], np.floor(u * 5))


# -- every engine, batch and chunking the same ------------------------------------------------------------

@pytest.mark.parametrize("dynamics", ["metropolis", "glauber"])
@pytest.mark.parametrize("boundary", ["torus", "plane"])
def test_ising_numpy_and_torch_are_identical(dynamics, boundary):
    spins = ising((3, 32, 48), 1.0, 0, init="random", seed=1)
    kwargs = dict(seed=9, dynamics=dynamics, h=0.2, boundary=boundary)
    want = ising(spins, 2.4, 12, **kwargs)
    got = ising(torch.from_numpy(spins), 2.4, 12, **kwargs)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.int8
    assert np.array_equal(got.numpy(), want)


@pytest.mark.parametrize("q,dynamics", [(3, "metropolis"), (3, "glauber"), (7, "metropolis"), (7, "glauber")])
def test_potts_numpy_and_torch_are_identical(q, dynamics):
    for boundary in ("torus", "plane"):
        states = potts((2, 24, 32), q, 1.0, 0, init="random", seed=q)
        want, want_series = potts(states, q, 0.9, 10, seed=3, dynamics=dynamics, boundary=boundary, series=True)
        got, got_series = potts(states, q, 0.9, 10, seed=3, dynamics=dynamics, boundary=boundary,
                                backend="torch", series=True)
        assert isinstance(got, np.ndarray) and got.dtype == np.uint8  # NumPy in, NumPy out
        assert np.array_equal(got, want)
        assert np.array_equal(got_series.magnetisation, want_series.magnetisation)
        assert np.array_equal(got_series.energy, want_series.energy)


@pytest.mark.parametrize("model", ["ising", "potts"])
def test_chunks_and_batch_parts_equal_the_whole_run(model):
    def run(cells, sweeps, **kwargs):
        if model == "ising":
            return ising(cells, 2.3, sweeps, seed=5, dynamics="glauber", **kwargs)
        return potts(cells, 3, 1.0, sweeps, seed=5, **kwargs)

    start = run((4, 16, 16), 0, init="random")
    whole, series = run(start, 10, series=True)
    half, first = run(start, 5, series=True)
    rest, second = run(half, 5, start_sweep=5, series=True)
    assert np.array_equal(rest, whole)
    assert np.array_equal(np.concatenate([first.energy, second.energy]), series.energy)
    parts = [run(start[:1], 10), run(start[1:], 10, first_grid=1)]
    assert np.array_equal(np.concatenate(parts), whole)
    assert np.array_equal(run(start[2], 10, first_grid=2), whole[2])  # one (H, W) lattice is grid first_grid


def test_input_is_not_changed_and_kinds_are_kept():
    spins = ising((8, 8), 1.0, 0)
    tensor = torch.from_numpy(spins.copy())
    out = ising(tensor, 0.5, 3, backend="numpy")
    assert isinstance(out, torch.Tensor) and out.shape == (8, 8)
    assert not torch.equal(ising(tensor, math.inf, 1), tensor)  # torch backend: every spin flips...
    assert np.array_equal(spins, np.ones((8, 8), np.int8)) and bool((tensor == 1).all())  # ...in a copy
    from_shape = ising((8, 8), 1.0, 2, backend="torch")
    assert isinstance(from_shape, torch.Tensor) and from_shape.device.type == "cpu"
    assert isinstance(ising((8, 8), 1.0, 2, device="cpu"), torch.Tensor)  # a device means torch
    _, series = ising((2, 8, 8), 1.0, 0, series=True)
    assert series.energy.shape == (0, 2)


# -- the equilibrium they sample ----------------------------------------------------------------------------

def _tv_distance(samples, exact_levels, exact_p):
    """Total variation distance between the empirical distribution of ``samples`` and the exact one."""
    levels, counts = np.unique(np.round(samples, 9), return_counts=True)
    empirical = dict(zip(levels.tolist(), (counts / counts.sum()).tolist(), strict=True))
    exact = dict(zip(np.round(exact_levels, 9).tolist(), exact_p.tolist(), strict=True))
    return 0.5 * sum(abs(empirical.get(k, 0.0) - exact.get(k, 0.0)) for k in set(empirical) | set(exact))


def _exact_distribution(configs, T, per_site_energy):
    """Exact distribution of ``(E, M)`` pairs (encoded as one float) over all configurations."""
    e, key = per_site_energy
    weights = np.exp(-(e - e.min()) * configs[0].size / T)
    levels, inverse = np.unique(np.round(key, 9), return_inverse=True)
    p = np.bincount(inverse.ravel(), weights=weights) / weights.sum()
    return levels, p


def _ising_levels(spins, h, boundary):
    """Per-site energy and a key joining energy and magnetisation (so the field's effect shows)."""
    e = np.asarray(energy(spins, h=h, boundary=boundary))
    m = np.asarray(magnetisation(spins))
    return e, e * 1000.0 + m


@pytest.mark.parametrize("dynamics", ["metropolis", "glauber"])
@pytest.mark.parametrize("shape,boundary,T,h", [((4, 4), "torus", 2.5, 0.0), ((3, 3), "plane", 1.8, 0.3)])
def test_ising_samples_the_boltzmann_distribution(dynamics, shape, boundary, T, h):
    n = shape[0] * shape[1]
    bits = np.array(list(itertools.product((-1, 1), repeat=n)), np.int8).reshape(-1, *shape)
    levels, p = _exact_distribution(bits, T, _ising_levels(bits, h, boundary))
    state = ising((600, *shape), T, 20, seed=1, dynamics=dynamics, h=h, boundary=boundary, init="random")
    samples = []
    for sweep in range(20, 220, 2):
        state = ising(state, T, 2, seed=1, dynamics=dynamics, h=h, boundary=boundary, start_sweep=sweep)
        samples.append(_ising_levels(state, h, boundary)[1])
    # measured: 0.004-0.019 over (E, M) levels (noise: 0.003-0.008 with 10x the samples)
    assert _tv_distance(np.concatenate(samples), levels, p) < 0.04
    # the same samples are far from the distribution at a 15 % different temperature (measured 0.15-0.21)
    wrong_levels, wrong_p = _exact_distribution(bits, T * 1.15, _ising_levels(bits, h, boundary))
    assert _tv_distance(np.concatenate(samples), wrong_levels, wrong_p) > 0.1


@pytest.mark.parametrize("dynamics", ["metropolis", "glauber"])
def test_potts_samples_the_boltzmann_distribution(dynamics):
    q, shape, T = 3, (2, 4), 0.8
    states = np.array(list(itertools.product(range(q), repeat=8)), np.uint8).reshape(-1, *shape)
    e = np.asarray(potts_energy(states, q))
    levels, p = _exact_distribution(states, T, (e, e))
    state = potts((800, *shape), q, T, 20, seed=2, dynamics=dynamics, init="random")
    samples = []
    for sweep in range(20, 170):
        state = potts(state, q, T, 1, seed=2, dynamics=dynamics, start_sweep=sweep)
        samples.append(np.asarray(potts_energy(state, q)))
    assert _tv_distance(np.concatenate(samples), levels, p) < 0.02  # measured 0.001-0.004
    assert _tv_distance(np.concatenate(samples), *_exact_distribution(states, T * 1.15, (e, e))) > 0.1  # 0.16


@pytest.mark.parametrize("dynamics", ["metropolis", "glauber"])
def test_ising_on_the_right_side_of_tc_at_256(dynamics):
    """All up on a 256^2 torus: at T = 1.5 the magnetisation stays at Yang's 0.9865 and the energy at
    Onsager's -1.9511; at T = 3.5 the order melts."""
    assert 1.5 < ISING_TC < 3.5
    _, cold = ising((256, 256), 1.5, 250, seed=3, dynamics=dynamics, series=True)
    assert abs(ising_magnetisation(1.5) - 0.98650) < 1e-4 and abs(ising_energy(1.5) + 1.95112) < 1e-4
    assert np.abs(cold.magnetisation[-150:]).min() > 0.9
    assert abs(cold.magnetisation[-150:].mean() - ising_magnetisation(1.5)) < 0.003
    assert abs(cold.energy[-150:].mean() - ising_energy(1.5)) < 0.003
    hot, series = ising((256, 256), 3.5, 150, seed=3, dynamics=dynamics, backend="torch", series=True)
    assert abs(float(magnetisation(hot))) < 0.2 and float(series.magnetisation[-50:].abs().max()) < 0.05
    assert abs(float(series.energy[-50:].mean()) - ising_energy(3.5)) < 0.01


def test_potts_two_states_is_ising_at_twice_the_temperature():
    _, series = potts((128, 128), 2, 0.75, 150, seed=4, dynamics="glauber", series=True)
    assert abs(series.magnetisation[-80:].mean() - ising_magnetisation(1.5)) < 0.004
    assert abs(series.energy[-80:].mean() - (-1.0 + ising_energy(1.5) / 2)) < 0.003


def test_potts_three_states_on_each_side_of_tc():
    assert 0.99 < potts_tc(3) < 1.0
    cold = potts((96, 96), 3, 0.8, 100, seed=1, backend="torch")
    hot = potts((96, 96), 3, 1.3, 100, seed=1, dynamics="glauber")
    assert float(potts_order(cold, 3)) > 0.8 and float(potts_order(hot, 3)) < 0.1


def test_very_high_temperature_disorders():
    spins = ising((128, 128), math.inf, 20, seed=2, dynamics="glauber")
    assert abs(float(magnetisation(spins))) < 0.04
    spins = ising((128, 128), 10.0, 60, seed=2)
    assert abs(float(magnetisation(spins))) < 0.04
    # Metropolis accepts every flip at infinite temperature (and nearly every one far above Tc):
    # each sweep negates every spin, the known flaw of Metropolis there; Glauber has none
    start = ising((16, 16), 1.0, 0, init="random", seed=1)
    assert np.array_equal(ising(start, math.inf, 1), -start)


# -- observers ------------------------------------------------------------------------------------------

def test_observers_of_known_lattices():
    up = np.ones((6, 8), np.int8)
    board = np.where(np.indices((6, 8)).sum(0) % 2 == 0, 1, -1).astype(np.int8)
    assert magnetisation(up) == 1.0 and energy(up) == -2.0 and energy(up, h=0.5) == -2.5
    assert magnetisation(board) == 0.0 and energy(board) == 2.0
    assert energy(up, boundary="plane") == -(6 * 7 + 8 * 5) / 48
    batch = torch.from_numpy(np.stack([up, board]))
    assert torch.equal(energy(batch), torch.tensor([-2.0, 2.0], dtype=torch.float64))
    same = np.zeros((4, 6), np.uint8)
    assert potts_order(same, 3) == 1.0 and potts_energy(same, 3) == -2.0
    even = np.tile(np.arange(3, dtype=np.uint8), (4, 2))
    assert potts_order(even, 3) == 0.0 and potts_energy(even, 3) == -1.0


# -- errors ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call,error,words", [
    (lambda: ising((8, 8), 0.0, 1), UsageError, "T must be > 0"),
    (lambda: ising((8, 8), -1, 1), UsageError, "T must be > 0"),
    (lambda: ising((8, 8), float("nan"), 1), UsageError, "T must be > 0"),
    (lambda: ising((8, 8), "hot", 1), UsageError, "number > 0"),
    (lambda: ising((8, 8), "2.0", 1), UsageError, "number > 0"),
    (lambda: ising((8, 8), 1j, 1), UsageError, "number > 0"),
    (lambda: ising((8, 8), 1.0, 1, dynamics="wolff"), UsageError, "unknown dynamics 'wolff'"),
    (lambda: ising((8, 8), 1.0, -1), UsageError, "sweeps must be >= 0"),
    (lambda: ising((8, 8), 1.0, 1, h=math.inf), UsageError, "field h"),
    (lambda: ising((8, 8), 1.0, 1, boundary="klein"), UsageError, "unknown boundary"),
    (lambda: ising((8, 8), 1.0, 1, backend="jax"), UsageError, "unknown backend"),
    (lambda: ising((8, 8), 1.0, 1, backend="numpy", device="cpu"), UsageError, "device is for backend='torch'"),
    (lambda: potts((8, 8), 1, 1.0, 1), UsageError, "q must lie in 2..256"),
    (lambda: potts((8, 8), 300, 1.0, 1), UsageError, "q must lie in 2..256"),
    (lambda: ising(np.ones((8, 8), np.uint8), 1.0, 1), GridError, "int8 -1/+1"),
    (lambda: ising(np.zeros((8, 8), np.int8), 1.0, 1), GridError, "must be -1 or +1"),
    (lambda: ising(torch.zeros(8, 8, dtype=torch.float32), 1.0, 1), GridError, "int8 -1/+1"),
    (lambda: potts(np.full((8, 8), 3, np.uint8), 3, 1.0, 1), GridError, "0..2"),
    (lambda: ising((7, 8), 1.0, 1), GridError, "even height and width"),
    (lambda: ising((2, 2, 8, 8), 1.0, 1), GridError, "(H, W) or (B, H, W)"),
    (lambda: ising([[1, -1]], 1.0, 1), GridError, "expected a shape"),
    (lambda: magnetisation(np.zeros((4, 4), np.int8)), GridError, "must be -1 or +1"),
])
def test_bad_input_raises_one_typed_line(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert isinstance(info.value, TensorcaError) and words in str(info.value)
    assert "\n" not in str(info.value)


def test_odd_plane_runs():
    assert ising((7, 5), 1.0, 3, boundary="plane", init="random").shape == (7, 5)


@pytest.mark.cuda
def test_cuda_equals_numpy_without_host_syncs():
    from tensorca.spins import params
    from tensorca.spins.ops import ops_for
    from tensorca.spins.sweep import ising_half, lattice, potts_half

    spins = ising((4, 64, 96), 1.0, 0, init="random", seed=6)
    for dynamics in ("metropolis", "glauber"):
        want = ising(spins, 2.2, 8, seed=2, dynamics=dynamics, h=0.1)
        assert np.array_equal(ising(spins, 2.2, 8, seed=2, dynamics=dynamics, h=0.1, device="cuda",
                                    backend="torch"), want)
        states = potts((4, 64, 96), 5, 1.0, 0, init="random", seed=6)
        want = potts(states, 5, 0.8, 8, seed=2, dynamics=dynamics, boundary="plane")
        got = potts(torch.from_numpy(states).cuda(), 5, 0.8, 8, seed=2, dynamics=dynamics, boundary="plane")
        assert got.device.type == "cuda" and np.array_equal(got.cpu().numpy(), want)
    ops = ops_for("torch", "cuda")
    work = torch.from_numpy(spins).cuda()
    lat = lattice(ops, tuple(work.shape), "torus", 2, 0)
    table = ops.table(params.ising_metropolis_thresholds(2.0, 0.0), "int64")
    p_table = ops.table(params.potts_heat_bath_weights(1.0), "float64")
    states = torch.from_numpy(potts((4, 64, 96), 4, 1.0, 0, init="random")).cuda().to(torch.int16)
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        for sweep in range(3):
            for colour in (0, 1):
                ising_half(lat, work, sweep, colour, "metropolis", table)
                potts_half(lat, states, sweep, colour, 4, "glauber", p_table)
    finally:
        torch.cuda.set_sync_debug_mode("default")
