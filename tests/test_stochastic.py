"""Stochastic rules (tensorca.families.stochastic.rule): notation, the same cells on every engine for the same
seed (batches, chunked runs, a checkpoint resume, a 2-worker Dask run), and statistics that fail for
a wrong probability: noisy Life against an independent Monte-Carlo, α-asynchronous limits,
Domany–Kinzel's known limits, forest fire and SIR."""

from __future__ import annotations

import numpy as np
import pytest

import tensorca
from tensorca.crop import crop
from tensorca.engines import get_engine
from tensorca.engines.registry import engine_names
from tensorca.errors import EngineError, MissingDependencyError, RuleError, UsageError
from tensorca.families.stochastic.rule import NoisyRule
from tensorca.randomness import Clock, quantize
from tensorca.rules import parse_rule, parse_spec
from tensorca.topology import Topology

RULES = ("B3/S23:pb=0.9,ps=0.8", "B36/S23:async=0.5", "B3/S23:pb=0.7,ps=0.9,async=0.6", "B2ce3ai/S23-k:ps=0.5",
         "23/3/4:pb=0.8,ps=0.6", "R2,C0,M1,S2..5,B3..4,NM:pb=0.7", "DK:p1=0.6,p2=0.8", "ForestFire:p=0.05,f=0.01",
         "SIR:beta=0.4,gamma=0.2,rho=0.05")
TOPOLOGIES = (Topology.torus(70, 23), Topology.plane(70, 23), Topology.klein(70, 23, "h"))


def engines() -> list[str]:
    """Engines that load here (the dask engine is checked on its own, below)."""
    found = []
    for name in engine_names():
        try:
            get_engine(name)
        except (EngineError, MissingDependencyError):
            continue
        if name != "dask":
            found.append(name)
    return found


def soup(shape: tuple[int, ...], n_states: int = 2, density: float = 0.4, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return ((rng.random(shape) < density) * rng.integers(1, max(n_states, 2), shape)).astype(np.uint8)


def on(engine, cells):
    if engine.array_module == "torch":
        import torch

        return torch.from_numpy(cells.copy())
    return cells.copy()


def host(cells):
    return cells.numpy() if hasattr(cells, "numpy") else np.asarray(cells)


# -- notation ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, canonical", [
    ("B3/S23:pb=0.9,ps=0.99", "B3/S23:pb=0.9,ps=0.99"),
    ("b3/s23 : PS=0.99, pb=.9", "B3/S23:pb=0.9,ps=0.99"),
    ("B36/S23:async=0.5", "B36/S23:async=0.5"),
    ("345/2/4:ps=0.5", "345/2/4:ps=0.5"),
    ("dk:p2=0.8,p1=0.6", "DK:p1=0.6,p2=0.8"),
    ("forestfire:f=1e-05,p=0.05", "ForestFire:p=0.05,f=1e-05"),
    ("SIR:gamma=0.1,beta=0.3", "SIR:beta=0.3,gamma=0.1"),
    ("SIR:beta=0.3,gamma=0.1,rho=0.01", "SIR:beta=0.3,gamma=0.1,rho=0.01"),
])
def test_notation_round_trips(text, canonical):
    rule = parse_rule(text)
    assert rule.canonical() == canonical and parse_rule(canonical) == rule
    assert rule.compile().stochastic
    spec_rule, topology = parse_spec(canonical + ":T64,32")
    assert spec_rule == rule and topology == Topology.torus(64, 32)


def test_patterns_with_stochastic_rules_round_trip(tmp_path):
    for text in ("B3/S23:pb=0.9,ps=0.99:T40,30", "DK:p1=0.6,p2=0.8:P41,20", "SIR:beta=0.3,gamma=0.1:T16,16"):
        rule, topology = parse_spec(text)
        cells = soup((8, 9), rule.n_states)
        pattern = tensorca.Pattern(cells=cells, rule=rule, topology=topology)
        again = tensorca.loads(tensorca.dumps(pattern))
        assert again.rule == rule and again.rule.canonical() == rule.canonical() and again.topology == topology
        assert np.array_equal(crop(again.cells)[0], crop(cells)[0])
        tensorca.save(tmp_path / "p.rle", pattern)
        assert tensorca.load(tmp_path / "p.rle").rule == rule


@pytest.mark.parametrize("text, message", [
    ("B3/S23:pb=1.5", "pb=1.5 is not a probability"),
    ("B3/S23:pb=-0.1", "pb=-0.1 is not a number"),
    ("B3/S23:px=0.5", "unknown parameter 'px' for B3/S23"),
    ("B3/S23:pb=", "missing value for pb"),
    ("B3/S23:pb", "parameter 'pb' has no value"),
    ("B3/S23:pb=0.5,,ps=1", "empty parameter"),
    ("B3/S23:pb=0.5,pb=0.4", "parameter pb given twice"),
    ("B3/S23:pb=abc", "pb=abc is not a number"),
    ("B3/S23:pb=nan", "pb=nan is not a number"),
    ("B3/S23:=0.5", "needs a name before '='"),
    ("B3/S23:pb=1e-7", "below half of 2^-16"),
    ("B3/S23:ps=0.9999999", "within half of 2^-16 of 1"),
    ("B3/S23:pb=0.5:T10,10:ps=0.1", "one ':key=value,...' list"),
    ("DK", "DK needs its parameters"),
    ("DK:p1=0.5", "missing parameter p2"),
    ("DK:p1=0.5,p2=0.5,p3=1", "unknown parameter 'p3'"),
    ("ForestFire:p=0.1", "missing parameter f"),
    ("ForestFire:p=0.1,f=2", "f=2 is not a probability"),
    ("SIR:beta=0.3", "missing parameter gamma"),
    ("SIR:beta=0.3,gamma=0.1,async=0.5", "unknown parameter 'async' for SIR"),
    ("WireWorld:pb=0.5", "pb needs a rule with births and survivals"),
    ("B3/Q23:pb=0.5", "B3/Q23"),
])
def test_bad_parameters_are_one_line_rule_errors(text, message):
    with pytest.raises(RuleError) as caught:
        parse_spec(text)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_rule_command_describes_the_draws(capsys):
    from tensorca.cli import main

    assert main(["rule", "B3/S23:pb=0.9,ps=0.99:T64,64"]) == 0
    out = capsys.readouterr().out
    assert "B3/S23:pb=0.9,ps=0.99:T64,64" in out and "family        stochastic" in out
    assert "58982/65536" in out and "Bernoulli draw 0" in out


# -- the same cells on every engine ------------------------------------------------------------------


@pytest.mark.parametrize("name", engines())
def test_every_engine_that_claims_a_stochastic_rule_matches_the_reference(name):
    engine, reference = get_engine(name), get_engine("numpy")
    claimed = 0
    for text in RULES:
        rule = parse_rule(text)
        for topology in TOPOLOGIES:
            cells = soup((3, *topology.shape), rule.n_states, seed=len(text))
            if not engine.supports(rule, topology):
                with pytest.raises(EngineError):
                    engine.advance(on(engine, cells), rule, topology, 1)
                continue
            claimed += 1
            for clock in (Clock(7, 5, 3), Clock(7, 5, 3, origin=(-9, -100)), Clock(2, 0, 0, origin=(4, 37))):
                want = reference.advance(cells, rule, topology, 6, clock=clock)
                got = host(engine.advance(on(engine, cells), rule, topology, 6, clock=clock))
                assert np.array_equal(got, want), (name, text, topology, clock)
    if name in ("numpy", "torch"):
        assert claimed == len(RULES) * len(TOPOLOGIES)
    if name == "bitpack-cpu":
        assert claimed == 8  # the four noisy two-state 3x3 rules, on the torus and the plane


@pytest.mark.parametrize("probabilities", ["pb=0,ps=1", "pb=0.0000153,ps=0.9999847", "pb=0.5,ps=0.75,async=0.25",
                                           "ps=0,async=0.999", "pb=0.9,ps=0.99", "pb=0.3,ps=0.6,async=0"])
def test_bitpack_draws_in_place_and_through_shifted_masks_the_reference_bits(probabilities):
    """bitpack-cpu's two word passes (aligned words drawn in place, row by row until no asked bit is
    open; chunks off the 64-cell blocks through shifted masks) against NumPy: probabilities 0, 2^-16
    and 1 - 2^-16 (one and sixteen levels), one-digit ones, async alone; a last word part full."""
    if "bitpack-cpu" not in engines():
        pytest.skip("bitpack-cpu is not installed")
    engine, reference = get_engine("bitpack-cpu"), get_engine("numpy")
    rule = parse_rule(f"B3/S23:{probabilities}")
    for topology in (Topology.torus(200, 41), Topology.plane(130, 33)):
        cells = soup((2, *topology.shape), density=0.45, seed=3)
        for clock in (Clock(5, 2, 1), Clock(5, 2, 1, origin=(-7, -128)), Clock(9, 0, 0, origin=(3, 64)),
                      Clock(9, 0, 0, origin=(3, 69))):
            want = reference.advance(cells, rule, topology, 5, clock=clock)
            assert np.array_equal(host(engine.advance(cells.copy(), rule, topology, 5, clock=clock)), want), clock


def test_only_engines_that_run_a_stochastic_rule_are_chosen():
    from tensorca import costmodel

    for text in ("B3/S23:pb=0.9,ps=0.99", "SIR:beta=0.3,gamma=0.1"):
        rule = parse_rule(text)
        choice = costmodel.choose(rule, Topology.torus(256, 256), 1, (256, 256), 100)
        assert choice.engine in ("numpy", "torch", "bitpack-cpu")
        for p in choice.predictions:
            if p.engine in ("hashlife", "ltl-cpu", "dense-conv", "bitpack-gpu"):
                assert not p.supported
    with pytest.raises(EngineError, match="bitpack-cpu"):
        tensorca.run(soup((16, 16), 3), "SIR:beta=0.3,gamma=0.1", 2, backend="bitpack-cpu")


def test_a_batch_chunked_by_memory_draws_as_one_call():
    rule = "B3/S23:pb=0.8,ps=0.9,async=0.7"
    cells = soup((5, 40, 70))
    whole = tensorca.run(cells, rule, 12, seed=3, backend="numpy")
    one_grid_a_call = tensorca.run(cells, rule, 12, seed=3, backend="numpy", max_bytes=40 * 70 * 30)
    assert np.array_equal(whole, one_grid_a_call)
    engine = get_engine("numpy")
    for i in range(5):  # grid i of a batch is grid i of the run
        alone = engine.advance(cells[i : i + 1], parse_rule(rule), Topology.torus(70, 40), 12,
                               clock=Clock(3, 0, i))
        assert np.array_equal(alone[0], whole[i])
    twins = tensorca.run(np.repeat(cells[:1], 2, axis=0), rule, 12, seed=3, backend="numpy")
    assert not np.array_equal(twins[0], twins[1])  # ... and two grids of a batch draw differently


@pytest.mark.parametrize("backend", ["numpy", "bitpack-cpu", "torch"])
def test_chunked_runs_and_observers_give_the_one_run(backend):
    if backend not in engines():
        pytest.skip(f"{backend} is not installed")
    rule = "B3/S23:pb=0.9,ps=0.95"
    cells = soup((2, 48, 130))
    whole = tensorca.run(cells, rule, 20, seed=11, backend=backend)
    half = tensorca.run(cells, rule, 10, seed=11, backend=backend)
    assert np.array_equal(tensorca.run(half, rule, 10, seed=11, backend=backend, start_generation=10), whole)
    observed = tensorca.Population(every=3)
    segmented = tensorca.run(cells, rule, 20, seed=11, backend=backend, observe=observed, progress=lambda *a: None)
    assert np.array_equal(segmented, whole)
    assert not np.array_equal(tensorca.run(cells, rule, 20, seed=12, backend=backend), whole)


def test_a_checkpoint_carries_the_seed(tmp_path):
    rule = "SIR:beta=0.5,gamma=0.2,rho=0.05"
    cells = soup((2, 30, 40), 3, density=0.05)
    whole = tensorca.run(cells, rule, 16, seed=99)
    path = tmp_path / "run.npz"
    tensorca.run(cells, rule, 8, seed=99, checkpoint=path)
    from tensorca.persist import npz as checkpoint

    assert checkpoint.load(path).seed == 99
    assert np.array_equal(tensorca.resume(path, 8), whole)
    assert np.array_equal(tensorca.resume(path, 8, seed=99, backend="torch"), whole)
    with pytest.raises(UsageError, match="its seed 99"):
        tensorca.resume(path, 8, seed=5)
    tensorca.run(soup((30, 40)), "B3/S23", 2, checkpoint=tmp_path / "plain.npz", seed=4)
    assert checkpoint.load(tmp_path / "plain.npz").seed is None  # deterministic runs draw nothing


def test_the_unbounded_plane_draws_at_absolute_coordinates():
    rule = parse_rule("B3/S23:pb=0.9,ps=0.9")
    cells = soup((12, 15), density=0.5, seed=4)
    later = tensorca.run(tensorca.Pattern(cells=cells, rule=rule, origin=(-3, 5)), generations=10, seed=6,
                         backend="numpy")
    margin = 12
    padded = np.pad(cells, margin)[None]
    plane = Topology.plane(padded.shape[2], padded.shape[1])
    want = get_engine("numpy").advance(padded, rule, plane, 10, clock=Clock(6, 0, 0, origin=(5 - margin, -3 - margin)))
    ys, xs = np.nonzero(want[0])
    assert later.origin == (xs.min() - 3 - margin, ys.min() + 5 - margin)
    assert np.array_equal(later.cells, want[0, ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])


def test_the_command_line_seed_repeats_a_run(capsys):
    from tensorca.cli import main

    args = ["run", "--soup", "40x24", "--rule", "B3/S23:pb=0.8,ps=0.9", "--gens", "12", "--no-progress"]
    outs = []
    for seed in ("5", "5", "6"):
        assert main([*args, "--seed", seed]) == 0
        outs.append(capsys.readouterr().out)
    population = [next(line for line in out.splitlines() if "population" in line) for out in outs]
    assert population[0] == population[1] != population[2]
    assert "seed 5" in outs[0] and any(line.split()[1:2] == ["seed"] for line in outs[0].splitlines())


@pytest.mark.cuda
def test_torch_on_cuda_draws_the_same_bits():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    engine = get_engine("torch")
    for text in RULES:
        rule = parse_rule(text)
        cells = soup((4, 64, 150), rule.n_states)
        for topology in (Topology.torus(150, 64), Topology.plane(150, 64)):
            want = get_engine("numpy").advance(cells, rule, topology, 8, clock=Clock(3, 17, 2))
            got = engine.advance(torch.from_numpy(cells).cuda(), rule, topology, 8, clock=Clock(3, 17, 2))
            assert np.array_equal(got.cpu().numpy(), want), text


# -- Dask: two worker processes ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def client():
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=":0") as cluster, Client(cluster) as joined:
        yield joined


def test_a_two_worker_dask_run_gives_the_one_machine_cells(client):
    packed = "bitpack-cpu" if "bitpack-cpu" in engines() else "numpy"  # chunk origins off the 64-cell blocks
    for text, topology, inner in (("B3/S23:pb=0.9,ps=0.8,async=0.8", Topology.torus(90, 40), packed),
                                  ("ForestFire:p=0.1,f=0.01", Topology.plane(90, 40), "numpy")):
        rule = parse_rule(text)
        cells = soup((2, *topology.shape), rule.n_states)
        want = tensorca.run(cells, rule, 4, topology=topology, seed=21, start_generation=4, backend="numpy")
        dask = get_engine("dask").with_options(chunks=24, inner=inner, k=2)  # 2 x 4 chunks a grid
        got = tensorca.run(cells, rule, 4, topology=topology, seed=21, start_generation=4, backend=dask)
        assert np.array_equal(got, want), (text, inner)
    assert len(client.scheduler_info()["workers"]) == 2


# -- statistics: a wrong probability fails ------------------------------------------------------------


def test_one_generation_keeps_births_and_survivals_with_their_own_probability():
    pb, ps = 0.3, 0.8
    cells = soup((4, 256, 256), density=0.35, seed=5)
    det = tensorca.run(cells, "B3/S23", 1, backend="numpy")
    noisy = tensorca.run(cells, f"B3/S23:pb={pb},ps={ps}", 1, seed=8, backend="numpy")
    born, kept = (cells == 0) & (det == 1), (cells == 1) & (det == 1)
    assert not (noisy & ~det).any()  # noise only removes
    for where, p in ((born, pb), (kept, ps)):
        q = quantize(p) / 65536
        n = int(where.sum())
        sigma = np.sqrt(n * q * (1 - q))
        assert abs(int(noisy[where].sum()) - n * q) < 5 * sigma, (p, n)
    # swapped probabilities would be 60 sigma away: the test has the power to tell
    assert abs(int(noisy[born].sum()) - born.sum() * ps) > 30 * np.sqrt(born.sum() * ps * (1 - ps))


def _monte_carlo_life(cells: np.ndarray, pb: float, ps: float, generations: int, rng) -> np.ndarray:
    """Noisy B3/S23 on a torus from an independent generator (NumPy's PCG64), written out in full."""
    alive = cells.astype(bool)
    for _ in range(generations):
        n = sum(np.roll(np.roll(alive, dy, -2), dx, -1) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
                if (dy, dx) != (0, 0))
        birth = ~alive & (n == 3) & (rng.random(alive.shape) < pb)
        survival = alive & ((n == 2) | (n == 3)) & (rng.random(alive.shape) < ps)
        alive = birth | survival
    return alive


def test_noisy_life_density_curve_matches_an_independent_monte_carlo():
    pb, ps, generations, runs = 0.8, 0.95, 24, 8
    cells = soup((runs, 96, 96), density=0.4, seed=1)
    ours = [tensorca.run(cells, f"B3/S23:pb={pb},ps={ps}", generations, seed=s, backend="numpy").mean(axis=(1, 2))
            for s in range(2)]
    ours = np.concatenate(ours)
    rng = np.random.default_rng(12345)
    theirs = np.concatenate([_monte_carlo_life(cells, pb, ps, generations, rng).mean(axis=(1, 2)) for _ in range(2)])
    swapped = np.concatenate([_monte_carlo_life(cells, ps, pb, generations, rng).mean(axis=(1, 2)) for _ in range(2)])
    spread = np.sqrt(ours.var(ddof=1) / ours.size + theirs.var(ddof=1) / theirs.size)
    assert abs(ours.mean() - theirs.mean()) < 5 * spread + 1e-3, (ours.mean(), theirs.mean(), spread)
    assert abs(ours.mean() - swapped.mean()) > 8 * spread, (ours.mean(), swapped.mean(), spread)


# -- α-asynchronous updating -------------------------------------------------------------------------


@pytest.mark.parametrize("name", engines())
def test_async_one_is_the_rule_and_zero_the_identity(name):
    engine = get_engine(name)
    for base in ("B3/S23", "B36/S23", "23/3/4"):
        rule = parse_rule(base)
        cells = soup((2, 33, 70), rule.n_states)
        topology = Topology.torus(70, 33)
        for alpha, text in ((1.0, f"{base}:async=1"), (0.0, f"{base}:async=0")):
            noisy = parse_rule(text)
            assert noisy == NoisyRule(rule, alpha=alpha)
            if not engine.supports(noisy, topology):
                continue
            want = get_engine("numpy").advance(cells, rule, topology, 5) if alpha else cells
            got = host(engine.advance(on(engine, cells), noisy, topology, 5, clock=Clock(4, 2)))
            assert np.array_equal(got, want), (name, text)


def test_async_updates_the_fraction_alpha_of_the_cells_that_would_change():
    cells = soup((4, 128, 128), density=0.4, seed=2)
    det = tensorca.run(cells, "B3/S23", 1, backend="numpy")
    half = tensorca.run(cells, "B3/S23:async=0.25", 1, seed=3, backend="numpy")
    changing = det != cells
    moved = (half != cells)[changing].mean()
    n = changing.sum()
    assert abs(moved - 0.25) < 5 * np.sqrt(0.25 * 0.75 / n)
    assert np.array_equal(half[~changing], cells[~changing])


# -- Domany–Kinzel ------------------------------------------------------------------------------------


def test_domany_kinzel_limits():
    width, steps = 81, 30
    row = np.zeros(width, np.uint8)
    row[40] = 1
    full = tensorca.domany_kinzel(1, 1, row, steps)
    t, x = np.mgrid[0 : steps + 1, 0:width]
    cone = (abs(x - 40) <= t) & ((x - 40 + t) % 2 == 0)
    assert np.array_equal(full, cone.astype(np.uint8))  # p1 = p2 = 1: the cone's sublattice, all ones
    dead = tensorca.domany_kinzel(0, 0, row, steps)
    assert dead[1:].sum() == 0  # p1 = p2 = 0: dies at once
    assert np.array_equal(tensorca.domany_kinzel(1, 0, row, steps), tensorca.elementary(90, row, steps))


def test_domany_kinzel_2d_rule_draws_what_the_1d_function_draws():
    rng = np.random.default_rng(3)
    row = (rng.random(64) < 0.5).astype(np.uint8)
    grid = np.zeros((41, 64), np.uint8)
    grid[0] = row
    for boundary, suffix in (("periodic", ":T64,41"), ("dead", ":P64,41")):
        history = tensorca.domany_kinzel(0.7, 0.4, row, 40, seed=9, boundary=boundary)
        assert np.array_equal(tensorca.run(grid, "DK:p1=0.7,p2=0.4" + suffix, 40, seed=9), history)
    survived = [tensorca.domany_kinzel(0.8, 0.8, row, 100, seed=s)[-1].mean() for s in range(4)]
    died = [tensorca.domany_kinzel(0.4, 0.4, row, 100, seed=s)[-1].mean() for s in range(4)]
    assert min(survived) > 0.2 and max(died) == 0  # either side of the critical p ~ 0.706 (site DP)


# -- forest fire and SIR ------------------------------------------------------------------------------


def test_forest_fire_burns_a_full_forest_as_a_diamond():
    forest = np.ones((41, 41), np.uint8)
    forest[20, 20] = 2
    later = tensorca.run(forest, "ForestFire:p=0,f=0:P41,41", 5)
    y, x = np.mgrid[0:41, 0:41]
    distance = abs(y - 20) + abs(x - 20)
    assert np.array_equal(later == 2, distance == 5)
    assert np.array_equal(later == 0, distance < 5)
    assert np.array_equal(later == 1, distance > 5)


def test_forest_fire_state_counts_are_sane():
    empty = np.zeros((4, 128, 128), np.uint8)
    grown = tensorca.run(empty, "ForestFire:p=0.05,f=0", 1, seed=1)
    n = grown.size
    assert set(np.unique(grown)) <= {0, 1} and abs((grown == 1).sum() - 0.05 * n) < 5 * np.sqrt(n * 0.05 * 0.95)
    later = tensorca.run(empty, "ForestFire:p=0.05,f=0.001", 200, seed=2)
    trees, fire = (later == 1).mean(), (later == 2).mean()
    assert 0.05 < trees < 0.9 and fire < 0.2 and set(np.unique(later)) <= {0, 1, 2}
    struck = tensorca.run(np.ones((4, 128, 128), np.uint8), "ForestFire:p=0,f=0.01", 1, seed=3)
    assert abs((struck == 2).sum() - 0.01 * n) < 5 * np.sqrt(n * 0.01 * 0.99)


def test_sir_recovers_with_gamma_and_spreads_with_beta():
    n = 4 * 128 * 128
    infected = np.ones((4, 128, 128), np.uint8)
    recovered = tensorca.run(infected, "SIR:beta=0.5,gamma=0.3", 1, seed=1)
    assert abs((recovered == 2).sum() - 0.3 * n) < 5 * np.sqrt(n * 0.21)
    one = np.zeros((41, 41), np.uint8)
    one[20, 20] = 1
    spread = tensorca.run(one, "SIR:beta=1,gamma=0:P41,41", 6)
    y, x = np.mgrid[0:41, 0:41]
    assert np.array_equal(spread == 1, abs(y - 20) + abs(x - 20) <= 6)
    # one infected neighbour infects with beta, two with 1 - (1 - beta)^2
    line = np.zeros((4, 64, 64), np.uint8)
    line[:, ::4, :] = 1  # every susceptible cell next to a line has exactly one infected neighbour
    once = tensorca.run(line, "SIR:beta=0.4,gamma=0", 1, seed=5)
    exposed = (line == 0) & ((np.roll(line, 1, 1) == 1) | (np.roll(line, -1, 1) == 1))
    rate = (once[exposed] == 1).mean()
    assert abs(rate - 0.4) < 5 * np.sqrt(0.24 / exposed.sum())
    rho = tensorca.run(np.full((4, 128, 128), 2, np.uint8), "SIR:beta=0.4,gamma=0.1,rho=0.2", 1, seed=7)
    assert abs((rho == 0).sum() - 0.2 * n) < 5 * np.sqrt(n * 0.16)


def test_run_refuses_a_bad_seed():
    with pytest.raises(UsageError, match="seed must be an integer"):
        tensorca.run(soup((8, 8)), "B3/S23:pb=0.5", 1, seed=1.5)
