"""bitpack-gpu: each of its Triton kernels against the NumPy reference.

Golden cases, parity through ``advance``, refusals, untouched input and zero generations are the
engine contract (tests/test_engine_contract.py, which runs this engine under the interpreter too).
Here: each kernel on its own (one generation per launch, temporal blocking, whole grid per
program, and the lane-per-grid kernels for batches), batches split across launches, and the device
list. Without a GPU the kernels run in
Triton's interpreter (``TRITON_INTERPRET=1``) on CPU tensors at small sizes; with CUDA the same
kernels run on the device at larger sizes (``cuda`` marker).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton", reason="bitpack-gpu needs Triton (pip install triton)")

from tensorca.engines import get_engine  # noqa: E402
from tensorca.engines.bitpack.pack import pack_lanes_torch, pack_torch, unpack_lanes_torch, unpack_torch  # noqa: E402
from tensorca.rules import parse_rule  # noqa: E402
from tensorca.topology import Topology  # noqa: E402

from .test_bitpack import PARITY_RULES  # noqa: E402


@pytest.fixture(scope="module")
def interp():
    """Triton's interpreter for this module (kernels generated under it are cached separately)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TRITON_INTERPRET", "1")
    yield
    mp.undo()


def reference(cells: np.ndarray, rule, topology, generations: int) -> np.ndarray:
    return get_engine("numpy").advance(cells, rule, topology, generations)


def launcher(**knobs):
    from tensorca.engines.bitpack.gpu import BitpackGpu

    return BitpackGpu(**knobs)


def run_packed(launch, cells: np.ndarray, rule, kind: str, generations: int, mode: str, device="cpu") -> np.ndarray:
    words = pack_torch(torch.from_numpy(cells).to(device))
    before = words.clone()
    out = launch.advance_packed(words, cells.shape[2], rule, kind == "torus", generations, mode=mode)
    assert torch.equal(words, before)  # the caller's words are never written
    return unpack_torch(out, cells.shape[2]).cpu().numpy()


def run_lanes(launch, cells: np.ndarray, rule, kind: str, generations: int, mode: str, device="cpu") -> np.ndarray:
    words = pack_lanes_torch(torch.from_numpy(cells).to(device))
    before = words.clone()
    out = launch.advance_lanes(words, rule, kind == "torus", generations, mode=mode)
    assert torch.equal(words, before)  # the caller's words are never written
    return unpack_lanes_torch(out, cells.shape[0]).cpu().numpy()


def test_devices_follow_the_interpreter(interp):
    engine = get_engine("bitpack-gpu")
    assert "cpu" in engine.devices()
    os.environ["TRITON_INTERPRET"] = "0"
    try:
        assert engine.devices() == (["cuda"] if torch.cuda.is_available() else [])
    finally:
        os.environ["TRITON_INTERPRET"] = "1"


def test_whole_kernel_sizes_and_the_forced_fallback(interp, monkeypatch):
    """auto runs whole_kernel up to whole_max_words, a forced "whole" up to WHOLE_FORCED_MAX_WORDS
    (a program holds the whole grid: a 4096^2 grid's would be 512k words), then the step kernel,
    with the same cells; whole programs get warps for 8 words a thread, 4 to 8."""
    from tensorca.engines.bitpack import gpu as bitpack_gpu
    launch = launcher()
    assert launch.runs_whole(64, 2) and launch.runs_whole(256, 8) and not launch.runs_whole(257, 8)
    assert launch.runs_whole(256, 32, "whole") and not launch.runs_whole(257, 32, "whole")
    assert not launch.runs_whole(64, 2, "step") and not launch.runs_whole(64, 2, "multi")
    assert {launch.whole_tile(h, wp) for h, wp in [(1, 1), (5, 1), (17, 1), (32, 2)]} == {(32, 2)}  # one compile
    assert launch.whole_tile(33, 3) == (64, 4)
    assert [launch.whole_warps(n) for n in (128, 1024, 2048, 8192)] == [4, 4, 8, 8]
    monkeypatch.setattr(bitpack_gpu, "WHOLE_FORCED_MAX_WORDS", 32)
    rule, cells = parse_rule("B3/S23"), (np.random.default_rng(5).random((1, 9, 65)) < 0.4).astype(np.uint8)
    assert not launch.runs_whole(9, 3, "whole")
    for kind in ("torus", "plane"):
        want = reference(cells, rule, Topology(kind, 65, 9), 3)
        assert np.array_equal(run_packed(launch, cells, rule, kind, 3, "whole"), want), kind


@pytest.mark.slow
@pytest.mark.parametrize("text", PARITY_RULES)
def test_interpreted_kernels_match_reference(interp, text):
    """Every rule, both topologies, odd sizes; whole-grid and one-generation kernels."""
    rule = parse_rule(text)
    rng = np.random.default_rng(sum(map(ord, text)))
    whole, step = launcher(), launcher(block_rows=8, block_words=2)
    for b, h, w in [(2, 5, 7), (1, 9, 65), (1, 6, 96), (1, 11, 33)]:
        for kind in ("torus", "plane"):
            cells = (rng.random((b, h, w)) < 0.4).astype(np.uint8)
            topology = Topology(kind, w, h)
            for gens in (1, 3):
                want = reference(cells, rule, topology, gens)
                assert np.array_equal(run_packed(whole, cells, rule, kind, gens, "whole"), want), (b, h, w, kind, gens)
                assert np.array_equal(run_packed(step, cells, rule, kind, gens, "step"), want), (b, h, w, kind, gens)


def test_interior_tile_counts():
    """Which step_kernel tiles take the interior path: not the first tile row or column, and the
    row and word past the tile inside the grid."""
    small = launcher(block_rows=4, block_words=2)
    assert small.interior_tiles(14, 7) == (4, 16)  # tile rows 1, 2 and tile columns 1, 2
    assert small.interior_tiles(16, 6) == (2, 12)  # tile row 3 ends at the last row: edge
    assert small.interior_tiles(8, 4) == (0, 4)
    assert launcher(block_rows=4, block_words=2, interior=False).interior_tiles(14, 7) == (0, 16)
    assert launcher().interior_tiles(16384, 512) == (510 * 14, 512 * 16)  # 87% of a 16384^2 grid


@pytest.mark.slow
@pytest.mark.parametrize("text", ["B3/S23", "B0/S8", "B2-a/S12"])
def test_interpreted_interior_tiles(interp, text):
    """step_kernel with interior tiles (no wrap, no mask) and without, against the reference: a
    count rule, B0 (padding bits stay dead), a table circuit. 3 x 3 tiles of 4 rows x 1 word (the
    centre one interior: the interpreter's time goes by programs); 65 wide leaves the last word 1 bit."""
    rule = parse_rule(text)
    rng = np.random.default_rng(sum(map(ord, text)))
    for b, h, w in [(2, 12, 96), (1, 12, 65)] if text == "B3/S23" else [(1, 12, 65)]:
        for kind in ("torus", "plane"):
            cells = (rng.random((b, h, w)) < 0.4).astype(np.uint8)
            want = reference(cells, rule, Topology(kind, w, h), 2)
            for interior in (True, False) if text == "B3/S23" else (True,):  # the edge path: tests above
                launch = launcher(block_rows=4, block_words=1, interior=interior)
                assert launch.interior_tiles(h, 3) == ((1 if interior else 0), 9)
                got = run_packed(launch, cells, rule, kind, 2, "step")
                assert np.array_equal(got, want), ((b, h, w), kind, interior)


@pytest.mark.slow
@pytest.mark.parametrize("text", ["B3/S23", "B0/S8", "B2-a/S12"])
def test_interpreted_lane_interior_tiles(interp, text):
    """lanes_step_kernel with interior tiles and without: 40 grids (a partial second group) of 12 x 3
    cells, 3 x 3 tiles of 4 rows x 1 lane word, the centre one interior."""
    rule = parse_rule(text)
    cells = (np.random.default_rng(sum(map(ord, text))).random((40, 12, 3)) < 0.4).astype(np.uint8)
    for kind in ("torus", "plane"):
        want = reference(cells, rule, Topology(kind, 3, 12), 2)
        for interior in (True, False) if text == "B3/S23" else (True,):
            launch = launcher(block_rows=4, block_words=1, interior=interior)
            assert launch.lanes_step_tile(12, 3) == (4, 1) and launch.interior_tiles(12, 3)[0] == int(interior)
            assert np.array_equal(run_lanes(launch, cells, rule, kind, 2, "step"), want), (kind, interior)


@pytest.mark.slow
@pytest.mark.parametrize("rule_text", ["B3/S23", "B0/S8", "B1357/S1357"])
@pytest.mark.parametrize("kind", ["torus", "plane"])
def test_interpreted_temporal_blocking(interp, rule_text, kind):
    """G generations per launch: halo tiles, the seam of a torus, partial last words (W = 65: 1 valid bit)."""
    rule = parse_rule(rule_text)
    rng = np.random.default_rng(11)
    for (b, h, w), g in [((1, 20, 161), 3), ((2, 17, 130), 2), ((1, 16, 65), 4)]:
        cells = (rng.random((b, h, w)) < 0.4).astype(np.uint8)
        launch = launcher(gens_per_launch=g, block_rows=16, block_words=4)
        gens = 2 * g + 1  # full launches plus a remainder launch
        got = run_packed(launch, cells, rule, kind, gens, "multi")
        assert np.array_equal(got, reference(cells, rule, Topology(kind, w, h), gens)), ((b, h, w), g)


@pytest.mark.slow
@pytest.mark.parametrize("text", ["B3/S23", "B0/S8", "B1357/S1357"])
def test_interpreted_lane_kernels_match_reference(interp, text):
    """Lane-per-grid batches: both topologies; a part-filled last group (whose idle lanes come
    alive under B0 and must not leak), 1x1 and one-row grids, one-column grids; row blocks of the
    whole kernel that do not divide the height. (Each rule's own expression is the one the row
    kernels run, tested over PARITY_RULES; the CUDA test runs them all lane-per-grid too.)"""
    rule = parse_rule(text)
    rng = np.random.default_rng(sum(map(ord, text)) + 1)
    whole = launcher(lanes_block=16)  # row blocks of 16 words: 2 rows at w = 7 (h = 5: 2, 2, 1), 4 at w = 3
    step = launcher(block_rows=4, block_words=8)
    for b, h, w in [(37, 5, 7), (33, 9, 3), (40, 6, 1), (24, 1, 1)]:
        for kind in ("torus", "plane"):
            cells = (rng.random((b, h, w)) < 0.4).astype(np.uint8)
            want = reference(cells, rule, Topology(kind, w, h), 3)
            assert np.array_equal(run_lanes(whole, cells, rule, kind, 3, "whole"), want), (b, h, w, kind)
            assert np.array_equal(run_lanes(step, cells, rule, kind, 3, "step"), want), (b, h, w, kind)


@pytest.fixture(params=[False, True], ids=["select-wrap", "load-wrap"])
def lane_wrap(request, monkeypatch):
    """Both ways the lane kernels read a torus's wrapped columns (the version-dependent choice of
    bitpack_gpu_kernels.lane_wrap_by_loads), whatever Triton is installed."""
    from tensorca.engines.bitpack import gpu_kernels as bitpack_gpu_kernels
    def clear():
        bitpack_gpu_kernels.kernel_source.cache_clear()
        bitpack_gpu_kernels.planes_source.cache_clear()

    clear()
    monkeypatch.setattr(bitpack_gpu_kernels, "lane_wrap_by_loads", lambda: request.param)
    yield request.param
    clear()  # the sources of this variant go; the next call formats them with the real choice


@pytest.mark.slow
@pytest.mark.parametrize("text", ["B3/S23", "B2-a/S12"])
def test_lane_kernels_wrap_columns_both_ways(interp, lane_wrap, text):
    """Torus columns -1 and w (one-word rows wrap onto themselves), the plane's zeros, spare lanes
    of a tile past the last column; a count rule and a table circuit."""
    from tensorca.engines.bitpack.gpu_kernels import kernel_source

    assert ("mask=rows & (col < 0)" in kernel_source("c")) == lane_wrap
    rule = parse_rule(text)
    rng = np.random.default_rng(7)
    whole, step = launcher(lanes_block=16), launcher(block_rows=4, block_words=4)
    for b, h, w in [(33, 5, 7), (24, 3, 1), (32, 4, 2)]:
        for kind in ("torus", "plane"):
            cells = (rng.random((b, h, w)) < 0.5).astype(np.uint8)
            want = reference(cells, rule, Topology(kind, w, h), 2)
            assert np.array_equal(run_lanes(whole, cells, rule, kind, 2, "whole"), want), (b, h, w, kind)
            assert np.array_equal(run_lanes(step, cells, rule, kind, 2, "step"), want), (b, h, w, kind)


def test_lane_wrap_follows_the_triton_version(monkeypatch):
    from tensorca.engines.bitpack import gpu_kernels as bitpack_gpu_kernels
    for version, by_loads in [("3.6.0", True), ("3.5.1", True), ("3.7.1", False), ("3.9.0", False),
                              ("4.0.0", False), ("3.10.0+git1234", False)]:
        monkeypatch.setattr(bitpack_gpu_kernels.triton, "__version__", version)
        assert bitpack_gpu_kernels.lane_wrap_by_loads() is by_loads, version


def test_lane_packing_kernels_match_the_torch_layout(interp):
    """lanes_pack_kernel / lanes_unpack_kernel against pack_lanes_torch (the layout's definition):
    part-filled last groups, one group, 1x1 grids, groups split across launches; too many grids
    for the words is a UsageError."""
    from tensorca.errors import UsageError

    rng = np.random.default_rng(4)
    launch = launcher()
    for b, h, w in [(70, 4, 10), (32, 1, 1), (33, 3, 5), (1, 2, 2)]:
        cells = torch.from_numpy((rng.random((b, h, w)) < 0.5).astype(np.uint8))
        words = launch.pack_lanes(cells)
        assert words.dtype == torch.int32 and torch.equal(words, pack_lanes_torch(cells)), (b, h, w)
        assert torch.equal(launch.unpack_lanes(words, b), cells), (b, h, w)
    launch.max_grids_per_launch = 1  # 70 grids: three launches each way
    cells = torch.from_numpy((rng.random((70, 3, 3)) < 0.5).astype(np.uint8))
    assert torch.equal(launch.pack_lanes(cells), pack_lanes_torch(cells))
    assert torch.equal(launch.unpack_lanes(pack_lanes_torch(cells), 70), cells)
    with pytest.raises(UsageError, match="hold at most 96 grids"):
        launch.unpack_lanes(pack_lanes_torch(cells), 97)


def test_lane_batches_through_the_engine(interp):
    """The engine runs batches of ``lanes_min_batch`` grids or more lane-per-grid (the same cells
    as the row layout); group counts past one launch are split; zero generations copy."""
    from tensorca.engines.bitpack.gpu import BitpackGpuEngine

    rule = parse_rule("B36/S23")
    rng = np.random.default_rng(8)
    cells = (rng.random((70, 4, 10)) < 0.4).astype(np.uint8)
    want = reference(cells, rule, Topology.torus(10, 4), 2)
    lanes, rows = launcher(lanes_min_batch=24), launcher(lanes_min_batch=None)
    assert lanes.uses_lanes(24, 10) and not lanes.uses_lanes(23, 10) and not rows.uses_lanes(10**6, 10)
    # wider grids fill their row words: they stay row-packed (measured on an H200: LANES_MAX_WIDTH)
    assert lanes.uses_lanes(24, 16) and not lanes.uses_lanes(10**6, 17)
    lanes.max_grids_per_launch = 2  # 3 groups -> launches of 2 and 1
    calls = []
    original = lanes.advance_lanes
    lanes.advance_lanes = lambda *a, **k: calls.append(a[0].shape) or original(*a, **k)
    got = BitpackGpuEngine(lanes).advance(torch.from_numpy(cells), rule, Topology.torus(10, 4), 2)
    assert got.dtype == torch.uint8 and np.array_equal(got.numpy(), want)
    assert [tuple(s) for s in calls] == [(3, 4, 10), (2, 4, 10), (1, 4, 10)]
    twos = cells.copy()  # plus 2s where cells were 0: dead for a two-state rule, as in the reference
    twos[cells == 0] = rng.integers(0, 2, int((cells == 0).sum())).astype(np.uint8) * 2
    dead_twos = BitpackGpuEngine(lanes).advance(torch.from_numpy(twos), rule, Topology.torus(10, 4), 2)
    assert np.array_equal(dead_twos.numpy(), reference(twos, rule, Topology.torus(10, 4), 2))
    tensor = torch.from_numpy(cells)
    same = BitpackGpuEngine(lanes).advance(tensor, rule, Topology.torus(10, 4), 0)
    assert np.array_equal(same.numpy(), cells) and same.data_ptr() != tensor.data_ptr()


def test_batches_larger_than_one_launch_are_split(interp):
    """CUDA caps the batch dimension of a launch grid; larger batches run in several launches."""
    rule = parse_rule("B36/S23")
    rng = np.random.default_rng(5)
    cells = (rng.random((7, 6, 9)) < 0.4).astype(np.uint8)
    for mode, knobs in (("step", {"block_rows": 8, "block_words": 2}), ("whole", {})):
        launch = launcher(**knobs)
        launch.max_grids_per_launch = 3  # 7 grids -> launches of 3, 3 and 1
        got = run_packed(launch, cells, rule, "torus", 2, mode)
        assert np.array_equal(got, reference(cells, rule, Topology.torus(9, 6), 2)), mode


def test_interpreted_engine_through_run(interp):
    from tensorca.simulate import run

    cells = (np.random.default_rng(5).random((2, 13, 40)) < 0.4).astype(np.uint8)
    tensor = torch.from_numpy(cells)
    for rule in ("B36/S23", "B36/S23:P40,13"):
        out = run(tensor, rule, 5, backend="bitpack-gpu")
        assert isinstance(out, torch.Tensor) and out.dtype == torch.uint8
        assert np.array_equal(out.numpy(), run(cells, rule, 5, backend="numpy"))
    engine = get_engine("bitpack-gpu")
    assert not engine.supports(parse_rule("/2/3"), Topology.torus(8, 8))
    assert engine.supports(parse_rule("B3/S23V"), Topology.torus(8, 8))  # tests/test_bitpack_tables.py
    assert "cannot run" in engine.why_unsupported(parse_rule("345/2/4"), Topology.torus(8, 8))


#: Rules for the compiled row kernels on CUDA: a count rule, B0 (padding bits must stay dead), the
#: longest B/S expression. Every rule compiles its own kernels (~1-2 s each, about eight a rule);
#: the interpreter runs all of PARITY_RULES through the same generated code.
CUDA_RULES = ["B3/S23", "B0/S8", "B0123478/S01234678"]


@pytest.mark.cuda
@pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") == "1", reason="TRITON_INTERPRET=1 runs no kernel on CUDA")
@pytest.mark.parametrize("text", CUDA_RULES)
def test_cuda_kernels_match_reference(text):
    """Compiled row kernels: odd sizes, a 1000-wide grid, a batch; a forced "whole" past
    WHOLE_FORCED_MAX_WORDS runs the step kernel; 300 x 4097 has 24 interior step tiles of 50."""
    rule = parse_rule(text)
    rng = np.random.default_rng(sum(map(ord, text)))
    for b, h, w in [(3, 37, 65), (1, 257, 1000), (1, 300, 4097), (64, 64, 64)]:
        for kind in ("torus", "plane"):
            cells = (rng.random((b, h, w)) < 0.4).astype(np.uint8)
            want = reference(cells, rule, Topology(kind, w, h), 9)
            for mode, knobs in [("step", {}), ("whole", {}), ("multi", {"gens_per_launch": 4}), ("auto", {})]:
                got = run_packed(launcher(**knobs), cells, rule, kind, 9, mode, device="cuda")
                assert np.array_equal(got, want), (text, (b, h, w), kind, mode)


@pytest.mark.cuda
@pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") == "1", reason="TRITON_INTERPRET=1 runs no kernel on CUDA")
@pytest.mark.parametrize("text", ["B3/S23", "B0/S8", "B2-a/S12"])
def test_cuda_lane_kernels_match_reference(text):
    """Lane-per-grid on the device: a count rule, B0 (idle lanes come alive), a table circuit;
    auto picks the step kernel at 10 groups and the whole kernel at 63 (on an H200); rows of 200
    words; the engine end to end (the packing kernels)."""
    rule = parse_rule(text)
    rng = np.random.default_rng(sum(map(ord, text)))
    for b, side in [(64, 64), (300, 16), (2000, 16), (33, 200)]:
        cells = (rng.random((b, side, side)) < 0.4).astype(np.uint8)
        for kind in ("torus", "plane"):
            want = reference(cells, rule, Topology(kind, side, side), 9)
            for mode in ("step", "whole", "auto"):
                got = run_lanes(launcher(), cells, rule, kind, 9, mode, device="cuda")
                assert np.array_equal(got, want), (text, (b, side), kind, mode)
            got = get_engine("bitpack-gpu").advance(torch.from_numpy(cells).cuda(), rule, Topology(kind, side, side),
                                                    9).cpu().numpy()
            assert np.array_equal(got, want), (text, (b, side), kind, "engine")

