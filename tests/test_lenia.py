"""Lenia: Chan's parameter strings, kernels and growth, the engines against an independent
implementation of Chan's equations, the bundled creatures, Orbium's glide, float states in run()."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import tensorca
from tensorca.errors import GridError, RuleError, TopologyError, UsageError
from tensorca.families.lenia.rule import LeniaRule, growth, kernel_core, kernel_window
from tensorca.lenia import creature, creature_names, decode_cells, encode_cells, load_animals
from tensorca.rules import parse_rule, parse_spec
from tensorca.topology import Topology

torch = pytest.importorskip("torch")

DATA = Path(__file__).parent / "data" / "lenia" / "creatures.json"
CREATURES = json.loads(DATA.read_text())
ORBIUM = "R=13,T=10,b=[1],m=0.15,s=0.015,kn=1,gn=1"


# -- an independent implementation, written from Chan's equations ---------------------------------


def chan_kernel_fft(params: dict, size: int) -> np.ndarray:
    """Chan's way: the kernel centred on a size x size world, normalised, full complex FFT."""
    R, peaks = params["R"], [float(Fraction(p)) for p in str(params["b"]).split(",")]
    mid = size // 2
    y, x = np.mgrid[0:size, 0:size]
    r = np.sqrt((x - mid) ** 2 + (y - mid) ** 2) / R
    shells = len(peaks)
    with np.errstate(divide="ignore", invalid="ignore"):
        core = {1: lambda q: (4 * q * (1 - q)) ** 4,
                2: lambda q: np.nan_to_num(np.exp(4 - 1 / (q * (1 - q)))),
                3: lambda q: ((q >= 0.25) & (q <= 0.75)) * 1.0}[params.get("kn", 1)]
        b = np.asarray(peaks)[np.minimum(np.floor(shells * r).astype(int), shells - 1)]
        kernel = (r < 1) * core(np.minimum(shells * r % 1, 1)) * b
    return np.fft.fft2(kernel / kernel.sum())


def chan_steps(cells: np.ndarray, params: dict, steps: int) -> np.ndarray:
    """``steps`` generations of a square float64 torus, Chan's FFT convolution and fftshift."""
    kfft = chan_kernel_fft(params, cells.shape[0])
    m, s, T = params["m"], params["s"], params["T"]
    for _ in range(steps):
        u = np.fft.fftshift(np.real(np.fft.ifft2(kfft * np.fft.fft2(cells))))
        gn = params.get("gn", 1)
        if gn == 1:
            g = np.maximum(0, 1 - (u - m) ** 2 / (9 * s**2)) ** 4 * 2 - 1
        elif gn == 2:
            g = np.exp(-((u - m) ** 2) / (2 * s**2)) * 2 - 1
        else:
            g = (np.abs(u - m) <= s) * 2.0 - 1
        cells = np.clip(cells + g / T, 0, 1)
    return cells


def direct_steps(cells: np.ndarray, params: dict, steps: int, plane: bool = False) -> np.ndarray:
    """The same by direct summation over every offset within R (torus, or dead outside a plane)."""
    R = params["R"]
    peaks = [float(Fraction(p)) for p in str(params["b"]).split(",")]
    offsets = [(dy, dx) for dy in range(-R, R + 1) for dx in range(-R, R + 1) if dy * dy + dx * dx < R * R]
    weights = []
    for dy, dx in offsets:
        r = np.sqrt(dy * dy + dx * dx) / R
        br = len(peaks) * r
        weights.append(peaks[min(int(br), len(peaks) - 1)] * (4 * (br % 1) * (1 - br % 1)) ** 4)
    total = sum(weights)
    h, w = cells.shape
    for _ in range(steps):
        source = np.pad(cells, R) if plane else cells
        u = np.zeros_like(cells)
        for (dy, dx), k in zip(offsets, weights, strict=True):
            if plane:
                u += k / total * source[R + dy : R + dy + h, R + dx : R + dx + w]
            else:
                u += k / total * np.roll(cells, (-dy, -dx), axis=(0, 1))
        g = np.maximum(0, 1 - (u - params["m"]) ** 2 / (9 * params["s"] ** 2)) ** 4 * 2 - 1
        cells = np.clip(cells + g / params["T"], 0, 1)
    return cells


def placed(name: str, size: int = 128, dtype=np.float64) -> np.ndarray:
    pattern = creature(name)
    grid = np.zeros((size, size), dtype=dtype)
    h, w = pattern.shape
    top, left = (size - h) // 2, (size - w) // 2
    grid[top : top + h, left : left + w] = pattern.cells
    return grid


# -- rules ---------------------------------------------------------------------------------------


def test_parse_and_canonical_round_trip():
    rule = parse_rule(ORBIUM)
    assert isinstance(rule, LeniaRule)
    assert (rule.R, rule.T, rule.b, rule.m, rule.s, rule.kn, rule.gn) == (13, 10, (Fraction(1),), 0.15, 0.015, 1, 1)
    assert rule.canonical() == ORBIUM
    assert rule.family == "lenia" and rule.reach == 13
    assert rule.state_space.kind == "continuous"
    text = "R=18,T=10,b=[1,1/3],m=0.24,s=0.029,kn=1,gn=1"
    assert parse_rule(text).canonical() == text
    assert parse_rule("Lenia( R = 18, T=10, b=[1, 1/3], m=0.24, s=0.029 )").canonical() == text
    assert parse_rule("R=13,T=10,b=[1],m=0.15,s=0.015") == rule  # kn, gn default to 1


def test_topology_suffix():
    rule, topology = parse_spec(ORBIUM + ":T128,96")
    assert rule.canonical() == ORBIUM and topology == Topology.torus(128, 96)


@pytest.mark.parametrize("text, position", [
    ("R=13,T=10,b=[1],m=0.15", 22),            # s missing: points at the end
    ("R=0,T=10,b=[1],m=0.15,s=0.1", 2),
    ("R=13,T=10,b=[1,x],m=0.15,s=0.1", 15),
    ("R=13,T=10,b=[1],m=0.15,s=0.015,kn=5", 34),
    ("R=13,T=10,b=[1],m=0.15,s=0.015,gn=4", 34),
    ("R=13,T=-1,b=[1],m=0.15,s=0.015", 7),
    ("R=13,T=10,b=[1],m=0.15,s=0,kn=1", 25),
    ("R=13,T=10,b=[1],m=0.15,s=0.015,zz=1", 31),
    ("R=13,R=10,b=[1],m=0.15,s=0.015", 5),
    ("R=13,T=10,b=[2],m=0.15,s=0.015", 13),
    ("R=13,T=10,b=[1/0],m=0.15,s=0.015", 13),
])
def test_bad_parameters_name_their_position(text, position):
    with pytest.raises(RuleError) as info:
        parse_rule(text)
    assert info.value.position == position


def test_births_from_nothing_follow_growth_at_zero():
    # polynomial growth at 0 is -1 whenever m > 3 s; a gaussian with m < s sqrt(2 ln 2) grows from nothing
    assert not parse_rule(ORBIUM).births_from_nothing()
    born = parse_rule("R=5,T=10,b=[1],m=0.01,s=0.1,kn=1,gn=2")
    assert born.growth_at_zero() == pytest.approx(2 * np.exp(-0.005) - 1)
    assert born.births_from_nothing()
    pattern = tensorca.Pattern(np.full((3, 3), 0.5), rule=born)
    with pytest.raises(TopologyError, match="unbounded plane"):
        tensorca.run(pattern, generations=1)


def test_kernel_and_growth_facts():
    # cores at known points: polynomial and exponential peak 1 at r = 1/2; staircase 1/2 below 1/4
    assert kernel_core(np.array([0.5]), 1)[0] == 1 and kernel_core(np.array([0.5]), 2)[0] == 1
    assert kernel_core(np.array([0.0, 1.0]), 2).tolist() == [0.0, 0.0]
    assert kernel_core(np.array([0.1, 0.3, 0.9]), 4).tolist() == [0.5, 1.0, 0.0]
    rule = parse_rule("R=18,T=10,b=[1,1/3],m=0.24,s=0.029")
    window = kernel_window(rule.compile().perceive)
    assert window.shape == (37, 37) and window.sum() == pytest.approx(1.0)
    assert np.allclose(window, window.T) and np.allclose(window, window[::-1])
    assert window[18, 18] == 0 and window[18, 0] == 0          # centre and r = 1 are outside the shells
    inner, outer = window[18, 18 + 4.5 .__int__()], window[18, 18 + 13]  # r = 1/4 (peak 1), 13/18 (peak 1/3)
    assert outer / inner == pytest.approx(1 / 3 * kernel_core(np.array([2 * 13 / 18 - 1]), 1)[0]
                                          / kernel_core(np.array([2 * 4 / 18]), 1)[0])
    update = rule.compile().update
    assert growth(update, np.array([0.24]))[0] == 1
    assert growth(update, np.array([0.24 + 3 * 0.029, 0.0]))[0] == -1


# -- engines against the independent implementation ------------------------------------------------


def test_independent_fft_matches_direct_summation():
    """The test's own FFT implementation is itself checked against a direct sum (torus)."""
    params = CREATURES[0]["params"]
    start = placed("O2u", 48)
    assert np.abs(chan_steps(start, params, 5) - direct_steps(start, params, 5)).max() < 1e-12


@pytest.mark.parametrize("entry", CREATURES, ids=[c["name"] for c in CREATURES])
def test_creatures_match_chan_equations(entry):
    """200 generations on a 128^2 torus: float64 engines to 1e-9, float32 to 1e-2."""
    start = placed(entry["name"])
    want = chan_steps(start, entry["params"], 200)
    rule = creature(entry["name"]).rule
    got64 = tensorca.run(start, rule, 200, backend="numpy")
    assert got64.dtype == np.float64 and np.abs(got64 - want).max() < 1e-9
    t64 = tensorca.run(torch.from_numpy(start), rule, 200, backend="torch")
    assert t64.dtype == torch.float64 and np.abs(t64.numpy() - want).max() < 1e-9
    t32 = tensorca.run(torch.from_numpy(start.astype(np.float32)), rule, 200, backend="torch")
    assert t32.dtype == torch.float32 and np.abs(t32.numpy() - want).max() < 1e-2
    assert want.sum() > 0.5 * start.sum()  # the creature is still alive: the comparison means something


def test_bounded_plane_is_exact_zero_padding():
    params = CREATURES[0]["params"]
    start = np.zeros((40, 44))
    start[2:22, 1:21] = creature("O2u").cells  # touching the edges
    want = direct_steps(start, params, 4, plane=True)
    for backend in ("numpy", "torch"):
        got = tensorca.run(start, ORBIUM + ":P44,40", 4, backend=backend)
        assert np.abs(np.asarray(got) - want).max() < 1e-12


def test_other_topologies_agree_between_engines():
    grid = np.random.default_rng(3).random((2, 30, 34))
    for suffix in (":K34,30", ":T34+2,30", ":C34,30"):
        ref = tensorca.run(grid, ORBIUM + suffix, 3, backend="numpy")
        got = tensorca.run(torch.from_numpy(grid), ORBIUM + suffix, 3, backend="torch").numpy()
        assert np.abs(ref - got).max() < 1e-12, suffix


def test_batched_and_small_grids():
    """A batch steps each grid alone; a grid smaller than the kernel folds it onto the torus."""
    grids = np.random.default_rng(1).random((3, 20, 17))
    batch = tensorca.run(grids, ORBIUM, 3, backend="torch")
    for i in range(3):
        alone = tensorca.run(grids[i], ORBIUM, 3, backend="numpy")
        assert np.abs(batch[i] - alone).max() < 1e-12
    params = dict(CREATURES[0]["params"])
    square = grids[0, :17, :17]
    assert np.abs(tensorca.run(square, ORBIUM, 2) - direct_steps(square, params, 2)).max() < 1e-12


def test_one_torch_engine_steps_every_shape_and_dtype(monkeypatch):
    """The engine keeps one step per rule; the kernel transform is per grid shape and dtype, and a
    compiled step (traced for one shape) is kept per shape: a second size is never given the first's kernel."""
    from tensorca.engines.tensor.engine import TorchEngine

    traced = []
    monkeypatch.setattr(torch, "compile", lambda fn, **_: traced.append(fn) or fn)  # the keys, not the tracer
    rule = "R=4,T=10,b=[1],m=0.15,s=0.03,kn=1,gn=1"
    for engine in (TorchEngine(), TorchEngine(compile=True)):
        for shape, suffix in (((16, 18), ""), ((13, 15), ""), ((16, 18), ":P18,16"), ((13, 15), ":P15,13")):
            grid = np.random.default_rng(sum(shape)).random((2, *shape))
            want = tensorca.run(grid, rule + suffix, 3, backend="numpy")
            for dtype, tolerance in ((torch.float64, 1e-12), (torch.float32, 1e-5)):
                got = tensorca.run(torch.from_numpy(grid).to(dtype), rule + suffix, 3, backend=engine)
                assert got.dtype == dtype and np.abs(got.double().numpy() - want).max() < tolerance, (shape, suffix)
    assert len(traced) == 4  # compiled: one step per shape and topology kind; eager: one per topology kind


@pytest.mark.slow
def test_compiled_step_runs_a_second_shape():
    from tensorca.engines.tensor.engine import TorchEngine

    engine = TorchEngine(compile=True)
    rule = "R=3,T=10,b=[1],m=0.15,s=0.03,kn=1,gn=1"
    for shape in ((12, 14), (9, 11)):
        grid = np.random.default_rng(1).random((1, *shape))
        got = tensorca.run(torch.from_numpy(grid), rule, 2, backend=engine).numpy()
        assert np.abs(got - tensorca.run(grid, rule, 2, backend="numpy")).max() < 1e-12


def test_memory_plan_covers_the_numpy_engines_peak():
    """bytes_needed (which splits batches that do not fit) is at least the measured working set and
    not far above it; a budget for one grid runs a batch one grid at a time, with the same result."""
    import tracemalloc

    from tensorca.engines import get_engine

    engine, rule = get_engine("numpy"), parse_rule(ORBIUM)
    for dtype, topology in ((np.float32, Topology.torus(200, 160)), (np.float64, Topology.plane(200, 160))):
        grid = np.random.default_rng(2).random((2, 160, 200)).astype(dtype)
        tracemalloc.start()
        engine.advance(grid, rule, topology, 1)
        peak = tracemalloc.get_traced_memory()[1] + grid.nbytes
        tracemalloc.stop()
        need = engine.bytes_needed(2, (160, 200), rule)
        assert peak <= need <= 2 * peak, (dtype, topology, peak, need)
    grids = np.random.default_rng(3).random((3, 40, 40))
    one = get_engine("torch").bytes_needed(1, (40, 40), rule)
    assert get_engine("torch").cell_bytes(rule) >= 2 * 48  # float64 planned (float32 measured 48 B/cell)
    assert np.array_equal(tensorca.run(grids, ORBIUM, 2, backend="torch", max_bytes=one + 100),
                          tensorca.run(grids, ORBIUM, 2, backend="torch"))


def test_orbium_glides():
    """1000 generations on a 128^2 torus: mass constant within 2% (after 10 generations settling from
    the stored cells, which lose 2.5% of their mass in the first step under Chan's own equations) and
    the same shape, translated (max normalised correlation over all shifts > 0.95)."""
    start = placed("O2u")
    observer = tensorca.Population(every=10)
    end = tensorca.run(start, ORBIUM, 1010, backend="torch", observe=observer)
    mass = observer.values[1:, 0]  # generations 10..1010
    assert observer.quantity == "mass" and mass.max() / mass.min() < 1.02
    corr = np.fft.irfft2(np.fft.rfft2(end) * np.conj(np.fft.rfft2(start)), s=start.shape)
    corr /= np.sqrt((end**2).sum() * (start**2).sum())
    shift = np.unravel_index(corr.argmax(), corr.shape)
    assert corr.max() > 0.95
    assert min(shift[0], 128 - shift[0]) + min(shift[1], 128 - shift[1]) > 20  # it moved


# -- float states through run() ----------------------------------------------------------------------


def test_dtypes_come_back_and_mixing_is_refused():
    grid = np.random.default_rng(0).random((24, 24))
    for dtype in (np.float32, np.float64):
        assert tensorca.run(grid.astype(dtype), ORBIUM, 2).dtype == dtype
        assert tensorca.run(torch.from_numpy(grid.astype(dtype)), ORBIUM, 2, backend="torch").dtype == \
            torch.from_numpy(grid.astype(dtype)).dtype
    with pytest.raises(GridError, match="float32 or float64"):
        tensorca.run((grid > 0.5).astype(np.uint8), ORBIUM, 1)
    with pytest.raises(GridError, match="discrete rule"):
        tensorca.run(grid.astype(np.float32), "B3/S23", 1)
    with pytest.raises(GridError, match="float32 or float64"):
        tensorca.run(torch.from_numpy(grid).half(), ORBIUM, 1)
    with pytest.raises(GridError, match="outside the rule's range"):
        tensorca.run(grid * 2, ORBIUM, 1)
    bad = grid.copy()
    bad[3, 4] = np.nan
    with pytest.raises(GridError, match=r"cell \(3, 4\) holds nan"):  # the (H, W) grid's own index
        tensorca.run(bad, ORBIUM, 1)


def test_gradcheck_through_run():
    rule = "R=3,T=10,b=[1,1/2],m=0.2,s=0.05,kn=1,gn=2"
    start = (torch.rand(1, 7, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(0)) * 0.4 + 0.3)
    start.requires_grad_(True)
    assert torch.autograd.gradcheck(lambda a: tensorca.run(a, rule, 2, backend="torch"), (start,))
    assert start.grad is None  # nothing written into the leaf
    assert tensorca.run(start, rule, 1).grad_fn is not None  # auto keeps the graph: it picks torch
    with pytest.raises(UsageError, match="autograd"):
        tensorca.run(start, rule, 1, backend="numpy")


@pytest.mark.parametrize("gn", [1, 2, 3])
def test_in_place_torch_step_equals_the_differentiable_one(gn):
    """Without autograd the torch step updates its own temporaries in place (the potential comes out of the
    inverse FFT already centred and scaled); a grid that requires grad runs out of place. Both give the
    reference's cells on a torus and a plane, and neither touches its input."""
    rule = f"R=5,T=10,b=[1,1/3],m=0.15,s=0.02,kn=1,gn={gn}"
    grid = np.random.default_rng(gn).random((2, 20, 23)) * 0.3  # potentials near m: growth both ways
    for suffix in ("", ":P23,20"):
        want = tensorca.run(grid, rule + suffix, 4, backend="numpy")
        start = torch.from_numpy(grid.copy())
        plain = tensorca.run(start, rule + suffix, 4, backend="torch")
        tracked = tensorca.run(start.clone().requires_grad_(True), rule + suffix, 4, backend="torch")
        assert np.array_equal(start.numpy(), grid)
        assert 0 < (want > 0).mean() < 1 and np.abs(plain.numpy() - want).max() < 1e-12, suffix
        assert tracked.grad_fn is not None and np.abs(tracked.detach().numpy() - want).max() < 1e-12, suffix


def test_viewer_colormaps_are_renders():
    from tensorca.render.colormaps import ANCHORS, colormap
    from tensorca.view.colours import colormap as view_colormap
    from tensorca.view.colours import colormap_names

    assert colormap_names() == tuple(ANCHORS)
    for name in ANCHORS:
        assert np.array_equal(view_colormap(name), colormap(name, 256)) and view_colormap(name).shape == (256, 3)
    with pytest.raises(UsageError, match="unknown colormap"):
        view_colormap("jet")


def test_observer_reports_mass_and_csv(tmp_path):
    grid = placed("O2u", 64)
    for backend in ("numpy", "torch"):
        observer = tensorca.Population(every=5)
        tensorca.run(grid, ORBIUM, 10, backend=backend, observe=observer)
        want = [chan_steps(grid, CREATURES[0]["params"], g).sum() for g in (0, 5, 10)]
        assert observer.values.dtype == np.float64
        assert np.allclose(observer.values[:, 0], want, rtol=1e-12)
    observer.to_csv(tmp_path / "mass.csv")
    assert (tmp_path / "mass.csv").read_text().splitlines()[0] == "generation,mass"


# -- creatures and Chan's cell format --------------------------------------------------------------


def test_cell_format():
    assert decode_cells("A.X$pAyO!").tolist() == [[1 / 255, 0, 24 / 255], [25 / 255, 1.0, 0]]
    assert decode_cells("2A$2$B").tolist() == [[1 / 255, 1 / 255], [0, 0], [0, 0], [2 / 255, 0]]
    cells = creature("O2u").cells
    assert np.array_equal(decode_cells(encode_cells(cells)), cells)
    with pytest.raises(tensorca.errors.PatternError, match=r":1:3"):
        decode_cells("AB#")


def test_bundled_library():
    assert [c for c, _ in creature_names()] == [c["code"] for c in CREATURES]
    orbium = creature("O2u")
    assert orbium == creature("orbium unicaudatus")
    assert orbium.rule.canonical() == ORBIUM and orbium.shape == (20, 20)
    assert orbium.cells.dtype == np.float64 and 0 <= orbium.cells.min() and orbium.cells.max() == 1
    assert creature("Kronium solidus").rule.canonical() == "R=18,T=10,b=[1,1/3],m=0.24,s=0.029,kn=1,gn=1"
    with pytest.raises(UsageError, match="several creatures"):
        creature("K4s")
    with pytest.raises(UsageError, match="no bundled creature"):
        creature("Z9z")


def test_load_animals_skips_headers(tmp_path):
    data = [{"code": ">1", "name": "Section", "cname": "x"}, *CREATURES]
    path = tmp_path / "animals.json"
    path.write_text(json.dumps(data))
    animals = load_animals(path)
    assert list(animals)[0] == "O2u Orbium unicaudatus" and len(animals) == len(CREATURES)
    assert animals["S1s Scutium solidus"] == creature("S1s")
    path.write_text("[{]")
    with pytest.raises(tensorca.errors.PatternError, match="not JSON"):
        load_animals(path)


def test_save_and_load_an_evolved_creature(tmp_path):
    from tensorca.lenia import animal_entry, save_animals

    kronium = creature("Kronium solidus")
    evolved = tensorca.run(kronium, generations=5, topology=":T64,64").cropped()
    path = tmp_path / "mine.json"
    save_animals(path, [animal_entry(evolved, "K4s", "Kronium solidus, gen 5")])
    back = load_animals(path)["K4s Kronium solidus, gen 5"]
    assert back.rule == kronium.rule and back.shape == evolved.shape
    assert np.abs(back.cells - evolved.cells).max() <= 0.5 / 255 + 1e-12  # levels of 1/255
    with pytest.raises(UsageError, match="Lenia rule"):
        animal_entry(tensorca.Pattern(np.ones((2, 2), np.uint8), rule=parse_rule("B3/S23")))


def test_pattern_files_refuse_float_cells_and_name_checkpoints(tmp_path):
    """No pattern format holds floats: saving one is a PatternError (nothing written, nothing rounded
    to states), and the checkpoint it suggests keeps the cells exactly."""
    orbium = creature("O2u")
    for name in ("o.rle", "o.cells", "o.lif", "o.mc", "o.rle.gz"):
        with pytest.raises(tensorca.errors.PatternError, match="discrete states.*float cells.*checkpoint"):
            tensorca.save(tmp_path / name, orbium)
        assert not (tmp_path / name).exists()
    with pytest.raises(tensorca.errors.PatternError, match="animals.json"):
        tensorca.dumps(orbium, "life105")
    tensorca.run(orbium, generations=0, checkpoint=tmp_path / "orbium.npz")
    assert tensorca.persist.npz.load(tmp_path / "orbium.npz").state == orbium


def test_pattern_runs_on_a_torus():
    orbium = creature("O2u", dtype=np.float32)
    out = tensorca.run(orbium, generations=3, topology=":T64,64", backend="numpy")
    assert out.cells.dtype == np.float32 and out.shape == (64, 64) and out.generation == 3
    assert "mass=" in repr(out)


# -- verify and datasets ---------------------------------------------------------------------------


def test_verify_states_its_tolerance_and_catches_zero_padding():
    from tensorca.verify import TOLERANCE, verify

    report = verify(["torch"], ["cpu"], grids=3, generations=3, families=["lenia"], topologies=["torus", "klein"])
    real = [r for r in report.rows if not r.control]
    assert report.ok and all(r.tolerance == TOLERANCE and r.identical == 3 for r in real)
    assert f"within {TOLERANCE:g}" in report.format()
    control = [r for r in report.rows if r.control]
    assert control and control[0].identical < control[0].grids and "tolerance" in control[0].first_mismatch


def test_datasets_give_float_lenia_samples():
    from tensorca.data import DeviceStream, Trajectories

    rule = "R=5,T=10,b=[1],m=0.15,s=0.03,kn=1,gn=1"
    pairs = Trajectories(rule, (32, 32), 2, length=4, seed=1)
    x, y = pairs[0]
    assert x.dtype == torch.float32 and 0 <= float(x.min()) and float(x.max()) <= 1
    want = tensorca.run(x.numpy().astype(np.float64), rule, 2, backend="numpy")
    assert np.abs(y.numpy() - want).max() < 1e-5
    orbium = creature("O2u")
    frames = Trajectories(orbium.rule, (64, 64), 3, length=2, pattern=orbium, steps=2)[1]
    assert frames.shape == (3, 64, 64) and float(frames[0].sum()) == pytest.approx(orbium.mass, rel=1e-6)
    stream = DeviceStream(rule, (32, 32), 2, batch_size=3, batches=1)
    x, y = next(iter(stream))
    assert x.dtype == torch.float32 and torch.equal(y, tensorca.run(x, rule, 2, backend="torch"))
    with pytest.raises(GridError, match="float cells"):
        Trajectories(rule, (32, 32), 1, pattern=np.ones((3, 3), np.uint8))


def test_step_growth_decides_its_band_edge_alike_in_every_engine():
    """gn=3 at |U - m| = s: potentials that differ only by round-off count as inside (STEP_EDGE),
    in the reference's growth, torch's, and the scaled in-place step's."""
    from tensorca.families.lenia.rule import STEP_EDGE, GrowthUpdate, growth
    from tensorca.families.lenia.steps import _scaled_bump, growth_bump

    m, s = 0.25, 0.05
    edge = m + s
    potentials = np.array([edge - 3e-16, edge, edge + 3e-16, edge + 1e-13, edge + 1e-9, m - s - 1e-15, m - s - 1e-9])
    want = np.array([1, 1, 1, 1, -1, 1, -1], dtype=np.float64)
    assert np.array_equal(growth(GrowthUpdate(m, s, 3, 10.0), potentials), want)
    t = torch.from_numpy(potentials)
    assert np.array_equal(growth_bump(3, t, m, s).numpy() * 2 - 1, want)
    assert np.array_equal(_scaled_bump(3, (t - m) / s, 1 + STEP_EDGE / s).numpy() * 2 - 1, want)


@pytest.mark.slow
def test_verify_step_growth_rule_on_every_topology():
    """`tensorca verify`'s Lenia rows with its default grids and generations: the step-growth rule
    (quantised states land on the band's edge) failed on all six topologies before STEP_EDGE."""
    from tensorca.verify import verify

    report = verify(["torch"], ["cpu"], grids=20, generations=16, seed=0, families=["lenia"], control=False)
    assert report.ok, [row.first_mismatch for row in report.rows if not row.passed]
