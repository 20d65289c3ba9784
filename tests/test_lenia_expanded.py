"""Expanded (multi-channel, multi-kernel) Lenia against an independent implementation of Chan's
LeniaNDKC equations, and its reductions to plain Lenia."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import tensorca
from tensorca.errors import UsageError
from tensorca.families.lenia_expanded.rule import ExpandedLenia, Kernel
from tensorca.families.lenia_expanded.steps import numpy_step, torch_step
from tensorca.lenia import creature

torch = pytest.importorskip("torch")

PARAMS = [
    {"R": 10, "T": 10, "b": "1,1/2", "m": 0.2, "s": 0.03, "h": 1, "r": 0.8, "c": [0, 1], "kn": 1, "gn": 1},
    {"R": 10, "T": 10, "b": "1", "m": 0.15, "s": 0.02, "h": 0.5, "r": 1, "c": [1, 0], "kn": 1},
    {"R": 10, "T": 10, "b": "1", "m": 0.15, "s": 0.02, "h": 2, "r": 0.6, "c": [1, 1], "kn": 1},
    {"R": 10, "T": 10, "b": "1/3,1", "m": 0.3, "s": 0.05, "h": 1, "r": 1, "c": [0, 0], "kn": 1},
]


def chan_expanded(cells: np.ndarray, params: list[dict], steps: int) -> np.ndarray:
    """Chan's way, written from LeniaNDKC's equations: centred kernels, complex FFT, fftshift, sum of h."""
    cells = cells.copy()
    size = cells.shape[-1]
    mid = size // 2
    y, x = np.mgrid[0:size, 0:size]
    dist = np.sqrt((x - mid) ** 2 + (y - mid) ** 2) / params[0]["R"]
    ffts = []
    for p in params:
        peaks = np.array([float(Fraction(b)) for b in p["b"].split(",")])
        br = len(peaks) * dist / p["r"]
        peak = peaks[np.minimum(br.astype(int), len(peaks) - 1)]
        kernel = (dist < p["r"]) * (4 * (br % 1) * (1 - br % 1)) ** 4 * peak
        ffts.append(np.fft.fft2(kernel / kernel.sum()))
    dt = 1 / params[0]["T"]
    for _ in range(steps):
        change = np.zeros_like(cells)
        weight = np.zeros(cells.shape[0])
        for p, kfft in zip(params, ffts, strict=True):
            c0, c1 = p["c"]
            u = np.fft.fftshift(np.real(np.fft.ifft2(kfft * np.fft.fft2(cells[c0]))))
            change[c1] += dt * p["h"] * (np.maximum(0, 1 - (u - p["m"]) ** 2 / (9 * p["s"] ** 2)) ** 4 * 2 - 1)
            weight[c1] += p["h"]
        cells = np.clip(cells + change / np.where(weight > 0, weight, 1)[:, None, None], 0, 1)
    return cells


def test_matches_chan_equations_on_three_channels():
    world = ExpandedLenia.from_chan(PARAMS, channels=3)
    start = np.random.default_rng(0).random((3, 48, 48)) * 0.6
    want = chan_expanded(start, PARAMS, 20)
    got = start[None]
    for _ in range(20):
        got = numpy_step(got, world)
    assert np.abs(got[0] - want).max() < 1e-9
    assert np.array_equal(got[0, 2], start[2])  # no kernel writes channel 2
    cache: dict = {}
    t = torch.from_numpy(start[None])
    for _ in range(20):
        t = torch_step(t, world, cache)
    assert np.abs(t[0].numpy() - want).max() < 1e-9
    t32 = torch.from_numpy(start[None].astype(np.float32))
    for _ in range(20):
        t32 = torch_step(t32, world, cache)
    assert t32.dtype == torch.float32 and np.abs(t32[0].numpy() - want).max() < 1e-2


def test_one_kernel_one_channel_is_plain_lenia_and_h_normalises():
    orbium = creature("O2u")
    grid = np.zeros((2, 1, 64, 64))
    grid[:, 0, 5:25, 5:25] = orbium.cells
    single = ExpandedLenia(13, 10, 1, (Kernel(0.15, 0.015),))
    doubled = ExpandedLenia(13, 10, 1, (Kernel(0.15, 0.015, h=1), Kernel(0.15, 0.015, h=3)))
    a, b = grid, grid
    for _ in range(10):
        a, b = numpy_step(a, single), numpy_step(b, doubled)
    want = tensorca.run(grid[:, 0], orbium.rule, 10, backend="numpy")
    assert np.abs(a[:, 0] - want).max() < 1e-12 and np.abs(b[:, 0] - want).max() < 1e-12


def test_differentiable_and_checked():
    world = ExpandedLenia.from_chan(PARAMS[:2], channels=2)
    start = torch.rand(1, 2, 12, 12, dtype=torch.float64, generator=torch.Generator().manual_seed(2)) * 0.4 + 0.3
    start.requires_grad_(True)
    assert torch.autograd.gradcheck(lambda a: torch_step(a, world), (start,))
    with pytest.raises(UsageError, match="channels"):
        ExpandedLenia(10, 10, 1, (Kernel(0.1, 0.01, source=1),))
    with pytest.raises(UsageError, match=r"\(B, 2, H, W\)"):
        numpy_step(np.zeros((1, 3, 8, 8)), world)


# -- the rule family through tensorca.run() ---------------------------------------------------------

WORLD = ExpandedLenia.from_chan(PARAMS, channels=3)


def test_rule_string_round_trips_and_errors_are_positioned():
    from tensorca.errors import RuleError
    from tensorca.rules import parse_rule, parse_spec

    text = WORLD.canonical()
    assert text.startswith("ExpandedLenia(R=10,T=10,C=3,gn=1;c=0>1,b=[1,1/2],m=0.2,s=0.03,h=1,r=0.8,kn=1;")
    assert parse_rule(text) == WORLD and parse_rule(text.replace("ExpandedLenia", "expandedlenia")) == WORLD
    rule, topology = parse_spec(text + ":K44,40")
    assert rule == WORLD and topology.kind == "klein"
    assert parse_rule("expandedlenia(R=5, T=4, C=1; c=0>0, b=[1], m=0.1, s=0.01)").kernels[0].h == 1.0
    head = "ExpandedLenia(R=5,T=4,C=2;"
    for tail, message in [("c=0>2,b=[1],m=0.1,s=0.01)", "channel the world does not have"),
                          ("c=0-1,b=[1],m=0.1,s=0.01)", "source>target"),
                          ("c=0>1,b=[1],m=0.1)", "lacks s"),
                          ("c=0>1,b=[1],m=0.1,s=0.01,r=1.5)", r"\(0, 1\]"),
                          ("c=0>1,b=[1],m=0.1,s=0.01,q=1)", "unknown parameter 'q'"),
                          ("c=0>1,b=[1],m=0.1,s=0.01,m=2)", "given twice"),
                          ("c=0>1,b=[1],m=0.1,s=0.01,r=0.05)", "no weight"),
                          ("c=0>1,b=[1],m=0.1,s=0.01", "no closing")]:
        with pytest.raises(RuleError, match=message):
            parse_rule(head + tail)
    with pytest.raises(RuleError, match="lacks C"):
        parse_rule("ExpandedLenia(R=5,T=4;c=0>0,b=[1],m=0.1,s=0.01)")
    assert not WORLD.births_from_nothing()
    assert ExpandedLenia(5, 4, 2, (Kernel(0.0, 0.2, target=1, kn=1),), gn=2).births_from_nothing()


def test_run_takes_channels_first_cells_on_both_engines():
    start = np.random.default_rng(5).random((3, 48, 48)) * 0.6
    want = chan_expanded(start, PARAMS, 6)
    got = tensorca.run(start, WORLD, 6, backend="numpy")
    assert got.shape == (3, 48, 48) and np.abs(got - want).max() < 1e-9
    t = tensorca.run(torch.from_numpy(start[None].repeat(2, 0)), WORLD.canonical(), 6, backend="torch")
    assert t.shape == (2, 3, 48, 48) and np.abs(t.numpy() - want).max() < 1e-9
    t32 = tensorca.run(torch.from_numpy(start.astype(np.float32)), WORLD, 6)
    assert t32.dtype == torch.float32 and np.abs(t32.numpy() - want).max() < 1e-4
    grids = np.random.default_rng(6).random((2, 3, 30, 34))
    for suffix in (":P34,30", ":K34,30", ":T34+3,30"):
        ref = tensorca.run(grids, WORLD.canonical() + suffix, 3, backend="numpy")
        other = tensorca.run(torch.from_numpy(grids), WORLD.canonical() + suffix, 3, backend="torch").numpy()
        assert np.abs(ref - other).max() < 1e-12, suffix
    assert not np.allclose(tensorca.run(grids, WORLD.canonical() + ":P34,30", 3), tensorca.run(grids, WORLD, 3))


def test_wrong_channel_counts_and_layouts_are_clear_errors():
    from tensorca.engines import get_engine
    from tensorca.errors import EngineError, GridError

    grid = np.random.default_rng(7).random((3, 20, 20))
    for bad in (grid[:2], grid[0], grid[None, :2]):
        with pytest.raises(GridError, match=r"has 3 channels: cells must be \(3, H, W\) or \(B, 3, H, W\)"):
            tensorca.run(bad, WORLD, 1)
    with pytest.raises(EngineError, match=r"\(B, 3, H, W\) floating-point tensor"):
        get_engine("torch").advance(torch.from_numpy(grid[None, :2]), WORLD, tensorca.Topology.torus(20, 20), 1)
    with pytest.raises(GridError, match="Pattern holds one"):
        tensorca.run(tensorca.Pattern(grid[0], rule=WORLD), generations=1)
    with pytest.raises(UsageError, match="observe"):
        tensorca.run(grid, WORLD, 1, observe=tensorca.Population())
    with pytest.raises(GridError, match=r"\(H, W\) or \(B, H, W\)"):
        tensorca.run(grid[None], "R=5,T=10,b=[1],m=0.15,s=0.03", 1)  # a plain rule takes no channels


def test_checkpoints_resume_channels_exactly_and_gradcheck_through_run(tmp_path):
    from tensorca.persist import npz as checkpoint

    grids = np.random.default_rng(8).random((2, 3, 24, 26)).astype(np.float32)
    for backend in ("numpy", "torch"):
        whole = tensorca.run(grids, WORLD, 6, backend=backend)
        tensorca.run(grids, WORLD, 3, backend=backend, checkpoint=tmp_path / "c.npz")
        assert checkpoint.load(tmp_path / "c.npz").state.shape == (2, 3, 24, 26)
        assert np.array_equal(tensorca.resume(tmp_path / "c.npz", 3, backend=backend), whole)
    tensorca.run(grids[0], WORLD, 1, checkpoint=tmp_path / "one.npz")
    assert tensorca.resume(tmp_path / "one.npz", 1).shape == (3, 24, 26)
    small = ExpandedLenia.from_chan([dict(p, R=3) for p in PARAMS[:2]], channels=2)
    start = torch.rand(1, 2, 9, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(3)) * 0.4 + 0.3
    start.requires_grad_(True)
    assert torch.autograd.gradcheck(lambda a: tensorca.run(a, small, 2), (start,))


def test_channels_are_the_state_space_s_and_auto_prices_every_plane():
    from tensorca import costmodel

    assert WORLD.state_space.channels == 3
    assert tensorca.parse_rule("R=5,T=10,b=[1],m=0.15,s=0.03").state_space.channels is None
    family, scale = costmodel.rule_class(WORLD)  # 3 forward and 4 inverse transforms; plain Lenia: 1 + 1
    assert family == "fft" and scale == pytest.approx((3 + 4) / 2)
    one = ExpandedLenia.from_chan([dict(PARAMS[0], c=[0, 0])], channels=1)
    assert costmodel.rule_class(one) == ("fft", 1.0)
