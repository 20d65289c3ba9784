"""The ``torch`` and ``dense-conv`` engines: what is theirs alone.

Golden cases and parity with the reference for every rule family and topology are the engine
contract (tests/test_engine_contract.py). Here: the torch engine's paths (``index``, ``conv``,
``count``), large Larger than Life ranges, stray states, the device-side population observer,
the ``run()`` boundary for tensors, batching, options, ``torch.compile`` and CUDA graphs.

Runs on the CPU by default; ``TENSORCA_TEST_DEVICE=cuda`` runs the same tests on CUDA
(scripts/gpu_check.sh does), where the CUDA-only tests (graph replay, no host sync) also run.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tensorca.engines import get_engine  # noqa: E402
from tensorca.engines.tensor import kernels as K  # noqa: E402
from tensorca.engines.tensor.engine import TorchEngine  # noqa: E402
from tensorca.errors import EngineError  # noqa: E402
from tensorca.rules import parse_rule  # noqa: E402
from tensorca.simulate import run  # noqa: E402
from tensorca.topology import Topology  # noqa: E402
from tensorca.verify import rule_value  # noqa: E402

DEVICE = os.environ.get("TENSORCA_TEST_DEVICE", "cpu")
if DEVICE.startswith("cuda") and not torch.cuda.is_available():
    pytest.fail(f"TENSORCA_TEST_DEVICE={DEVICE} but torch sees no CUDA device", pytrace=False)
#: CUDA-only tests also carry the ``cuda`` marker (conftest skips those without a GPU).
on_cuda = pytest.mark.skipif(not DEVICE.startswith("cuda"), reason="needs TENSORCA_TEST_DEVICE=cuda")

REFERENCE = get_engine("numpy")
ENGINE = get_engine("torch")


def soup(rng: np.random.Generator, shape: tuple[int, ...], n_states: int, density: float = 0.45) -> np.ndarray:
    live = rng.random(shape) < density
    return (live * rng.integers(1, max(n_states, 2), shape)).astype(np.uint8)


def on_device(cells: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(cells).to(DEVICE)


@pytest.mark.parametrize("path", ["index", "conv", "count"])
@pytest.mark.parametrize(
    "text", ["B3/S23", "MAP-B3/S23", "B36/S23", "B0123478/S01234678", "345/2/4", "B2-a/S12", "W30"]
)
def test_every_path_is_identical(path, text):
    rule = rule_value(text)
    engine = ENGINE.with_options(path=path)
    topology = Topology.torus(29, 18)
    if not engine.supports(rule, topology):
        assert path == "count" and K.moore_count_table(rule.lookup_table()) is None
        with pytest.raises(EngineError, match="outer-totalistic Moore"):
            engine.advance(on_device(np.zeros((1, 18, 29), np.uint8)), rule, topology, 1)
        return
    cells = soup(np.random.default_rng(7), (2, 18, 29), rule.n_states)
    for kind in ("torus", "plane"):
        topo = Topology(kind, 29, 18)
        np.testing.assert_array_equal(engine.advance(on_device(cells), rule, topo, 9).cpu().numpy(),
                                      REFERENCE.advance(cells, rule, topo, 9))


def test_count_path_is_derived_from_the_table():
    """The Moore count shortcut is used exactly for tables that depend on centre + Moore count.

    Its table is ``t[10 * centre + box_count]``, the box count including a live centre: Life is
    born on 3 and survives on a box of 3 or 4; Star Wars (``345/2/4``) is born on 2 and survives
    on a box of 4, 5 or 6, whatever the rule is called (a MAP string of Life gives Life's table).
    """
    life = [0, 0, 0, 1, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 1, 1, 0, 0, 0, 0, 0]
    star_wars = [0, 0, 1, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 1, 1, 1, 0, 0, 0]
    assert K.moore_count_table(parse_rule("B3/S23").lookup_table()).tolist() == life
    assert K.moore_count_table(rule_value("MAP-B3/S23").lookup_table()).tolist() == life
    assert K.moore_count_table(parse_rule("345/2/4").lookup_table()).tolist() == star_wars
    for text in ("B2-a/S12", "B2/S3V", "B2/S34H", "W30"):
        assert K.moore_count_table(parse_rule(text).lookup_table()) is None, text


def test_large_range_ltl():
    """Range 40 on a 97x130 grid: prefix-sum counts far past the contract's small ranges."""
    rule = parse_rule("R40,C0,M1,S900..2000,B1100..1800,NM")
    cells = soup(np.random.default_rng(5), (1, 97, 130), 2, 0.5)
    for kind in ("torus", "plane"):
        topology = Topology(kind, 130, 97)
        np.testing.assert_array_equal(ENGINE.advance(on_device(cells), rule, topology, 3).cpu().numpy(),
                                      REFERENCE.advance(cells, rule, topology, 3))


def test_stray_states_in_a_two_state_rule_read_as_dead():
    """The reference reads only state 1 as alive; the engine does the same when called directly."""
    rule = parse_rule("B3/S23")
    cells = soup(np.random.default_rng(9), (2, 12, 14), 5, 0.6)
    topology = Topology.torus(14, 12)
    np.testing.assert_array_equal(ENGINE.advance(on_device(cells), rule, topology, 3).cpu().numpy(),
                                  REFERENCE.advance(cells, rule, topology, 3))


def test_population_observer_matches_reference():
    rule = parse_rule("345/2/4")
    cells = soup(np.random.default_rng(11), (3, 20, 23), 4)
    topology = Topology.plane(23, 20)
    final, population = ENGINE.advance_observed(on_device(cells), rule, topology, 12)
    want, grid = [np.count_nonzero(cells, axis=(1, 2))], cells
    for _ in range(12):
        grid = REFERENCE.advance(grid, rule, topology, 1)
        want.append(np.count_nonzero(grid, axis=(1, 2)))
    np.testing.assert_array_equal(population.cpu().numpy(), np.stack(want))
    np.testing.assert_array_equal(final.cpu().numpy(), grid)


# -- the run() boundary: arrays, tensors, batches ----------------------------------------------


def test_run_tensor_in_tensor_out_on_its_device():
    grid = soup(np.random.default_rng(1), (37, 21), 2)
    tensor = on_device(grid)
    out = run(tensor, "B36/S23", 10, backend="torch")
    assert isinstance(out, torch.Tensor) and out.device == tensor.device and out.shape == (37, 21)
    np.testing.assert_array_equal(out.cpu().numpy(), run(grid, "B36/S23", 10))
    np.testing.assert_array_equal(tensor.cpu().numpy(), grid)  # input untouched


def test_run_array_in_array_out_batched():
    cells = soup(np.random.default_rng(2), (4, 16, 19), 3)
    out = run(cells, "12/34/3", 6, backend="torch", device=DEVICE, topology="plane")
    assert isinstance(out, np.ndarray) and out.dtype == np.uint8 and out.shape == cells.shape
    np.testing.assert_array_equal(out, run(cells, "12/34/3", 6, topology="plane"))


def test_batch_equals_one_at_a_time():
    rule = parse_rule("B2-a/S12")
    topology = Topology.torus(17, 11)
    cells = soup(np.random.default_rng(4), (5, 11, 17), 2)
    batch = ENGINE.advance(on_device(cells), rule, topology, 8).cpu().numpy()
    for i in range(5):
        one = ENGINE.advance(on_device(cells[i : i + 1]), rule, topology, 8)
        np.testing.assert_array_equal(batch[i : i + 1], one.cpu().numpy())


def test_supports_is_exact():
    assert ENGINE.supports(parse_rule("B3/S23"), Topology.plane(4, 4))
    assert not ENGINE.supports(parse_rule("B3/S23"), Topology.unbounded())
    dense = get_engine("dense-conv")
    assert dense.supports(parse_rule("B36/S23"), Topology.torus(4, 4))
    assert dense.supports(rule_value("MAP-B3/S23"), Topology.torus(4, 4))  # a Life-like table, however spelled
    for text in ("B2-a/S12", "B2/S3V", "345/2/4", "R2,C0,M0,S3..6,B4..5,NN", "W30"):
        assert not dense.supports(parse_rule(text), Topology.torus(4, 4)), text
    with pytest.raises(EngineError, match="dense-conv"):
        run(np.zeros((4, 4), np.uint8), "345/2/4", 1, backend="dense-conv")


def test_with_options():
    engine = ENGINE.with_options(path="conv")
    assert isinstance(engine, TorchEngine) and engine.options.path == "conv" and ENGINE.options.path == "auto"
    with pytest.raises(EngineError, match="path"):
        ENGINE.with_options(path="fft")


# -- torch.compile and CUDA graphs --------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("text, width, kind", [("B36/S23", 19, "torus"), ("B2-a/S12", 19, "torus"),
                                               ("345/2/4", 19, "torus"), ("B36/S23", 20, "torus"),
                                               ("B0123478/S01234678", 20, "plane"), ("B3/S23", 4, "torus")])
def test_compile_parity_small_case(text, width, kind):
    """Compiled steps (count path, 9-bit index path, Generations) on a torus through rolls; 20
    wide, the count path runs four cells a word (torch_packed), on a torus and a plane; 4 wide
    (one word a row) it runs bytes, which torch 2.11 could not compile as words."""
    engine = TorchEngine(compile=True)
    rule = parse_rule(text)
    topology = Topology(kind, width, 12)
    cells = soup(np.random.default_rng(10), (2, 12, width), rule.n_states)
    np.testing.assert_array_equal(engine.advance(on_device(cells), rule, topology, 5).cpu().numpy(),
                                  REFERENCE.advance(cells, rule, topology, 5))


@pytest.mark.slow
def test_compiled_steps_outlive_dynamos_recompile_limit():
    """Each compiled step has a code object of its own: with Dynamo's limit at 1 recompile a code
    object, four batch shapes still compile (the shared code would fail on the second)."""
    import torch._dynamo

    engine = TorchEngine(compile=True)
    rule = parse_rule("B3/S23")
    rng = np.random.default_rng(14)
    with torch._dynamo.config.patch(recompile_limit=1):  # monkeypatch's undo would delete the key
        for batch, height, width in [(1, 8, 8), (2, 8, 8), (1, 9, 7), (3, 6, 10)]:
            cells = soup(rng, (batch, height, width), 2)
            topology = Topology.torus(width, height)
            np.testing.assert_array_equal(engine.advance(on_device(cells), rule, topology, 3).cpu().numpy(),
                                          REFERENCE.advance(cells, rule, topology, 3))


@pytest.mark.skipif(DEVICE != "cpu", reason="torch's CPU thread count")
def test_a_compiled_cpu_step_keeps_its_thread_count():
    """Inductor's CPU kernels are built for one thread count, and the engine caps threads to the
    free cores, which changes with the load: a compiled step keeps the count of its first call
    instead of recompiling (with the limit at 0 recompiles, a recompilation would raise)."""
    import torch._dynamo

    engine = TorchEngine(compile=True)
    rule = parse_rule("B3/S23")
    topology = Topology.torus(12, 8)
    cells = soup(np.random.default_rng(16), (2, 8, 12), 2)
    step = engine.step_function(rule, topology, torch.device("cpu"), 2)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        first = step(on_device(cells))
        with torch._dynamo.config.patch(recompile_limit=0):
            torch.set_num_threads(1)
            again = step(on_device(cells))
            assert torch.get_num_threads() == 1  # the caller's count is given back
    finally:
        torch.set_num_threads(before)
    want = REFERENCE.advance(cells, rule, topology, 1)
    np.testing.assert_array_equal(first.numpy(), want)
    np.testing.assert_array_equal(again.numpy(), want)


def test_a_failed_compilation_is_an_engine_error():
    """Dynamo refusing to compile (here: a recompile limit of 0) surfaces as EngineError naming the
    rule and shape and the way out, not as a torch exception from inside the run."""
    import torch._dynamo

    cells = on_device(np.zeros((2, 5, 7), np.uint8))
    with torch._dynamo.config.patch(recompile_limit=0), pytest.raises(
            EngineError, match=r"torch.compile could not compile the step for rule 'B3/S23' on 2 grids "
                               r"of 5 x 7 \(torus\).*compile=False"):
        TorchEngine(compile=True).advance(cells, parse_rule("B3/S23"), Topology.torus(7, 5), 1)


@pytest.mark.parametrize("path", ["auto", "index"])
@pytest.mark.parametrize("text", ["B3/S23", "B0/S8", "B2-a/S12", "MAP-random:3", "345/2/4"])
@pytest.mark.parametrize("height, width", [(1, 7), (2, 2), (3, 1), (12, 19)])
def test_fused_steps_match_the_reference(path, text, height, width):
    """The step a compiled engine traces (``fused=True``: a torus read through rolls, not a padded
    copy), run eagerly: every rule path, grids of one and two rows or columns, torus and plane. The
    random MAP rule has no symmetry, so a neighbour read from the wrong side shows."""
    from tensorca.engines.tensor.engine import make_step

    rule = rule_value(text)
    cells = soup(np.random.default_rng(height * 100 + width), (2, height, width), rule.n_states)
    for kind in ("torus", "plane"):
        topology = Topology(kind, width, height)
        step = make_step(rule, topology, torch.device(DEVICE), path, fused=True)
        got = on_device(cells)
        for _ in range(3):
            got = step(got)
        np.testing.assert_array_equal(got.cpu().numpy(), REFERENCE.advance(cells, rule, topology, 3),
                                      err_msg=f"{text} {path} {kind} {height}x{width}")


def test_packed_count_hits_every_count_set():
    """"box == c" on four bytes a word, for every set of counts 0..9 (the complement above five)
    and every count in every byte position."""
    from tensorca.engines.tensor import packed as P
    values = np.array([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 0, 9], [9, 8, 1, 0]], np.uint8)
    box = torch.from_numpy(values.reshape(1, 1, -1).copy()).to(DEVICE).view(torch.int32)
    for subset in range(1 << 10):
        counts = tuple(c for c in range(10) if subset >> c & 1)
        got = P.count_hits(box, counts).view(torch.uint8).cpu().numpy().reshape(values.shape)
        np.testing.assert_array_equal(got, np.isin(values, counts).astype(np.uint8), err_msg=str(counts))


@pytest.mark.parametrize("text", ["B3/S23", "B0/S8", "B/S", "B2/S", "B1357/S1357", "B0123478/S01234678",
                                  "B012345678/S012345678", "B36/S125"])
@pytest.mark.parametrize("height, width", [(1, 8), (2, 8), (3, 12), (13, 20)])
def test_packed_steps_match_the_reference(text, height, width, monkeypatch):
    """A compiled engine's step for two-state Moore count rules on grids a multiple of 4 wide reads
    four cells an int32 word (run eagerly here): two and three words a row, one and two rows, birth and
    survival sets of every size (more than five are tested as the complement), torus and plane."""
    from tensorca.engines.tensor import packed as P
    from tensorca.engines.tensor.engine import make_step

    calls = []
    packed_step = P.moore_count_step
    monkeypatch.setattr(P, "moore_count_step", lambda *args: calls.append(1) or packed_step(*args))
    rule = parse_rule(text)
    cells = soup(np.random.default_rng(height * 100 + width), (2, height, width), 2, density=0.5)
    for kind in ("torus", "plane"):
        topology = Topology(kind, width, height)
        step = make_step(rule, topology, torch.device(DEVICE), fused=True)
        got = on_device(cells)
        for _ in range(3):
            got = step(got)
        np.testing.assert_array_equal(got.cpu().numpy(), REFERENCE.advance(cells, rule, topology, 3),
                                      err_msg=f"{text} {kind} {height}x{width}")
    assert len(calls) == 6


def test_packed_steps_fall_back_to_bytes_where_words_do_not_fit(monkeypatch):
    """Cells that do not start a word, are not contiguous, are one word wide, are 3-state, or lie on
    a Klein bottle, and steps built with path="count", take the byte step, and still compute the
    reference."""
    from tensorca.engines.tensor import packed as P
    from tensorca.engines.tensor.engine import make_step

    monkeypatch.setattr(P, "moore_count_step", lambda *args: pytest.fail("packed step taken"))
    rng = np.random.default_rng(15)
    rule = parse_rule("B3/S23")
    cells = soup(rng, (2, 6, 8), 2, density=0.5)
    torus = Topology.torus(8, 6)
    step = make_step(rule, torus, torch.device(DEVICE), fused=True)
    want = REFERENCE.advance(cells, rule, torus, 1)
    unaligned = torch.zeros(1 + cells.size, dtype=torch.uint8, device=DEVICE)[1:].view(cells.shape)
    unaligned.copy_(on_device(cells))
    strided = on_device(cells.transpose(0, 2, 1).copy()).transpose(1, 2)
    for odd in (unaligned, strided):
        np.testing.assert_array_equal(step(odd).cpu().numpy(), want)
    by_bytes = make_step(rule, torus, torch.device(DEVICE), "count", fused=True)  # path="count": a cell a byte
    np.testing.assert_array_equal(by_bytes(on_device(cells)).cpu().numpy(), want)
    one_word = soup(rng, (2, 6, 4), 2, density=0.5)  # one word a row: the byte step (see packs)
    np.testing.assert_array_equal(make_step(rule, Topology.torus(4, 6), torch.device(DEVICE), fused=True)(
        on_device(one_word)).cpu().numpy(), REFERENCE.advance(one_word, rule, Topology.torus(4, 6), 1))
    klein = Topology("klein", 8, 6, twist="h")
    step = make_step(rule, klein, torch.device(DEVICE), fused=True)
    np.testing.assert_array_equal(step(on_device(cells)).cpu().numpy(), REFERENCE.advance(cells, rule, klein, 1))
    generations = parse_rule("345/2/4")
    three = soup(rng, (2, 6, 8), 4)
    step = make_step(generations, torus, torch.device(DEVICE), fused=True)
    np.testing.assert_array_equal(step(on_device(three)).cpu().numpy(), REFERENCE.advance(three, generations, torus, 1))


@pytest.mark.cuda
@on_cuda
@pytest.mark.parametrize("text", ["B3/S23", "B2-a/S12", "345/2/4", "R3,C0,M1,S10..20,B10..14,NC"])
def test_cuda_graph_replay_parity(text):
    rule = parse_rule(text)
    engine = TorchEngine(cuda_graphs=True, graph_chunk=8)
    topology = Topology.torus(45, 32)
    cells = soup(np.random.default_rng(12), (3, 32, 45), rule.n_states)
    for gens in (5, 8, 21, 21):  # below one chunk, one chunk, chunks + remainder, cached graph
        np.testing.assert_array_equal(engine.advance(on_device(cells), rule, topology, gens).cpu().numpy(),
                                      REFERENCE.advance(cells, rule, topology, gens), err_msg=f"{text} {gens}")


@pytest.mark.cuda
@on_cuda
@pytest.mark.parametrize(
    "text", ["B3/S23", "B2-a/S12", "345/2/4", "R5,C0,M1,S34..58,B34..45,NM", "R2,C0,M0,S3..6,B4..5,NN"]
)
def test_generation_loop_never_synchronises(text):
    """torch's sync debug mode raises if anything in the loop waits for the device."""
    rule = parse_rule(text)
    topology = Topology.torus(64, 48)
    cells = on_device(soup(np.random.default_rng(13), (2, 48, 64), rule.n_states))
    ENGINE.advance(cells, rule, topology, 2)  # build caches (tables are uploaded once, here)
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        ENGINE.advance(cells, rule, topology, 20)
        ENGINE.advance_observed(cells, rule, topology, 20)
    finally:
        torch.cuda.set_sync_debug_mode("default")


def test_run_accepts_a_configured_engine():
    """Options travel as an engine value: ``run(..., backend=get_engine("torch").with_options(...))``."""
    grid = soup(np.random.default_rng(14), (2, 21, 26), 4)
    engine = get_engine("torch").with_options(path="index")
    out = run(grid, "345/2/4", 9, backend=engine, device=DEVICE, topology="plane")
    np.testing.assert_array_equal(out, run(grid, "345/2/4", 9, topology="plane"))
