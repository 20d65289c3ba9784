"""The dask engine: chunked grids with halos equal the one-machine result; lazy in, lazy out; zarr stores.

A LocalCluster of two worker processes on 127.0.0.1 is started once for the module (the issue's
sizes run on it); the small odd shapes run on Dask's local threaded scheduler.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.array")
pytest.importorskip("distributed")
pytest.importorskip("zarr")

import dask  # noqa: E402
import dask.array as da  # noqa: E402
from distributed import get_task_stream  # noqa: E402

import tensorca  # noqa: E402
from tensorca import costmodel  # noqa: E402
from tensorca.engines import get_engine  # noqa: E402
from tensorca.engines.dask_engine import balanced, exchange_plan  # noqa: E402
from tensorca.errors import CheckpointError, EngineError, UsageError  # noqa: E402
from tensorca.outofcore.soup import lazy_soup  # noqa: E402
from tensorca.persist.zarr_store import open_store, save_store  # noqa: E402
from tensorca.rules.spec import resolve  # noqa: E402
from tensorca.simulate import Interrupted  # noqa: E402
from tensorca.topology import Topology  # noqa: E402
from tensorca.verify import rule_value  # noqa: E402


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=":0") as cluster, Client(cluster) as joined:
        yield joined


@pytest.fixture(autouse=True)
def local_threads(request):
    """Tests without the cluster run on Dask's threads (the cluster's Client is the default while it lives)."""
    if "client" in request.fixturenames:
        yield
        return
    with dask.config.set(scheduler="threads"):
        yield


def rule(text: str):
    return resolve(text)[0]


def soup(shape: tuple[int, ...], seed: int, n_states: int = 2, density: float = 0.4) -> np.ndarray:
    rng = np.random.default_rng(seed)
    alive = rng.random(shape) < density
    return (alive * rng.integers(1, max(n_states, 2), shape)).astype(np.uint8)


# -- the issue's sizes, on two worker processes ------------------------------------------------------


@pytest.mark.parametrize("kind, height, width", [("torus", 4096, 4096), ("plane", 2000, 3000)])
def test_issue_sizes_chunked_by_1024_equal_the_local_result(client, kind, height, width):
    life, topology = rule("B3/S23"), Topology(kind, width, height)
    cells = soup((1, height, width), 7)
    engine = get_engine("dask").with_options(chunks=1024, inner="bitpack-cpu")
    plan = engine.plan(life, topology, cells.shape, 100)
    assert not plan.single and plan.blocks == (16 if kind == "torus" else 6)
    want = get_engine("bitpack-cpu").advance(cells, life, topology, 100)
    with get_task_stream(client) as tasks:  # the current Client runs the chunks
        got = tensorca.run(cells, life, 100, topology=topology, backend=engine)
    assert isinstance(got, np.ndarray) and got.dtype == np.uint8
    np.testing.assert_array_equal(got, want)
    assert len({t["worker"] for t in tasks.data}) == 2 and len(tasks.data) >= plan.blocks * -(-100 // plan.k)
    assert 0 < int(want.sum()) < want.size  # not a dead or full grid: the comparison means something


# -- odd shapes and chunkings, every rule family a chunk can run --------------------------------------

#: Rules of every family a chunk runs, each with a shape: odd, thin (a torus side under a halo), one cell wide.
RULES = (("B3/S23", (53, 37)), ("B36/S23", (2, 70)), ("B0123478/S01234678", (40, 3)), ("B2-a/S12", (37, 53)),
         ("MAP-random:1", (31, 29)), ("345/2/4", (53, 37)), ("B2/S34H", (29, 31)),
         ("R5,C0,M1,S34..58,B34..45,NM", (45, 38)), ("R2,C0,S2-7,B3-5,NW11A1112221A2F2A1222111A11", (3, 50)),
         ("R3,C3,M1,S10..20,B10..14,NC", (40, 1)))


@pytest.mark.parametrize("text, shape", RULES)
def test_odd_shapes_and_chunks_equal_the_reference(text, shape):
    value = rule_value(text)
    reference = get_engine("numpy")
    engine = get_engine("dask").with_options(chunks=16, inner="numpy")
    height, width = shape
    for kind in ("torus", "plane"):
        topology = Topology(kind, width, height)
        cells = soup((2, height, width), sum(map(ord, text + kind)), value.n_states)
        want = reference.advance(cells, value, topology, 9)
        np.testing.assert_array_equal(engine.advance(cells, value, topology, 9), want, err_msg=f"{text} {kind}")
        lazy = engine.advance(da.from_array(cells, chunks=(1, 20, 13)), value, topology, 9)
        np.testing.assert_array_equal(lazy.compute(), want, err_msg=f"{text} lazy {kind} {height}x{width}")


def test_every_k_gives_the_same_cells():
    life, topology = rule("B3/S23"), Topology.torus(61, 47)
    cells = soup((1, 47, 61), 3)
    want = get_engine("numpy").advance(cells, life, topology, 9)
    for k in (1, 4, 9):
        engine = get_engine("dask").with_options(chunks=24, inner="numpy", k=k)
        np.testing.assert_array_equal(engine.advance(cells, life, topology, 9), want, err_msg=f"k={k}")


# -- lazy in, lazy out --------------------------------------------------------------------------------


def _boom(block: np.ndarray) -> np.ndarray:
    raise RuntimeError("computed")


def test_a_dask_array_in_stays_lazy():
    cells = da.zeros((1, 300, 200), dtype=np.uint8, chunks=(1, 64, 64)).map_blocks(_boom, dtype=np.uint8)
    engine = get_engine("dask").with_options(chunks=64)
    out = tensorca.run(cells[0], "B3/S23", 500, backend=engine)  # would raise if anything were computed
    assert isinstance(out, da.Array) and out.shape == (300, 200) and out.dtype == np.uint8
    assert out.chunks == ((64, 64, 64, 64, 44), (64, 64, 64, 8))
    out = tensorca.run(cells, "B3/S23", 3)  # backend="auto": a dask array runs on the dask engine
    assert isinstance(out, da.Array)
    with pytest.raises(RuntimeError, match="computed"):
        out.compute(scheduler="sync")


def test_a_lazy_run_computes_the_reference():
    cells = soup((3, 90, 70), 11)
    want = tensorca.run(cells, "B36/S23:P70,90", 40, backend="numpy")
    out = tensorca.run(da.from_array(cells, chunks=(1, 30, 25)), "B36/S23:P70,90", 40)
    np.testing.assert_array_equal(out.compute(scheduler="threads"), want)


# -- what it refuses ----------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [":K40,30*", ":C40,30", ":S30", ":T40+3,30"])
def test_topologies_dask_cannot_express_are_refused(suffix):
    engine = get_engine("dask")
    value, topology = resolve("B3/S23" + suffix)
    assert not engine.supports(value, topology) and "Dask" in engine.why_unsupported(value, topology)
    cells = np.zeros((1, *topology.shape), dtype=np.uint8)
    with pytest.raises(EngineError, match="cannot run"):
        engine.advance(cells, value, topology, 1)
    with pytest.raises(EngineError):
        tensorca.run(cells, value, 1, topology=topology, backend="dask")


def test_float_cells_and_other_backends_for_dask_arrays_are_refused():
    assert not get_engine("dask").supports(rule("B3/S23"), Topology.unbounded())
    lenia = rule("R=13,T=10,b=[1],m=0.15,s=0.015")
    assert not get_engine("dask").supports(lenia, Topology.torus(32, 32))
    assert "float" in get_engine("dask").why_unsupported(lenia, Topology.torus(32, 32))
    with pytest.raises(UsageError, match="dask engine"):
        tensorca.run(da.zeros((8, 8), dtype=np.uint8), "B3/S23", 1, backend="numpy")


@pytest.mark.parametrize("options", [{"chunks": 4}, {"chunks": 10.5}, {"inner": "dask"}, {"k": 0}, {"nope": 1}])
def test_bad_options_are_usage_errors(options):
    with pytest.raises(UsageError):
        get_engine("dask").with_options(**options)


def test_an_inner_engine_that_cannot_run_the_rule_is_an_engine_error():
    engine = get_engine("dask").with_options(inner="bitpack-cpu", chunks=16)
    cells = soup((1, 40, 40), 1)
    with pytest.raises(EngineError, match="bitpack-cpu"):
        engine.advance(cells, rule("R2,C0,M1,S3..8,B4..6,NM"), Topology.torus(40, 40), 2)


# -- choosing k and saying where the time goes ----------------------------------------------------------


def test_auto_never_picks_dask_for_a_grid_in_memory():
    for shape in ((64, 64), (4096, 4096)):
        choice = costmodel.choose(rule("B3/S23"), Topology.torus(shape[1], shape[0]), 1, shape, 1000)
        assert choice.engine != "dask" and all(p.engine != "dask" for p in choice.predictions)


def test_k_grows_with_cheap_generations_and_is_bounded_by_the_chunk():
    life = rule("B3/S23")
    chunks = ((1,), balanced(4096, 1024), balanced(4096, 1024))
    fast = exchange_plan(life, chunks, 10_000, "bitpack-cpu", kmax=1024)
    slow = exchange_plan(life, chunks, 10_000, "numpy", kmax=1024)
    assert 1 <= slow.k < fast.k <= 1024
    assert exchange_plan(life, chunks, 10_000, "bitpack-cpu", kmax=5).k <= 5
    assert exchange_plan(life, chunks, 10, "bitpack-cpu", kmax=1024).k <= 10
    ltl = exchange_plan(rule("R5,C0,M1,S34..58,B34..45,NM"), chunks, 10_000, "numpy", kmax=1024 // 5)
    assert ltl.depth == 5 * ltl.k
    shares = fast.shares()
    assert abs(sum(shares.values()) - 1) < 1e-9 and all(v > 0 for v in shares.values())


def test_explain_says_how_much_is_exchange():
    text = get_engine("dask").with_options(chunks=1024).explain(rule("B3/S23"), Topology.torus(4096, 4096),
                                                                 (4096, 4096), 100)
    assert "16 chunks" in text and "exchange" in text and "k = " in text and "%" in text
    assert "one chunk" in get_engine("dask").explain(rule("B3/S23"), Topology.torus(64, 64), (64, 64), 100)


def test_balanced_chunks():
    assert balanced(3000, 1024) == (1000, 1000, 1000)
    assert balanced(1025, 1024) == (513, 512)
    assert balanced(7, 1024) == (7,)


# -- zarr stores ----------------------------------------------------------------------------------------


def test_a_run_through_a_store_resumes_bit_for_bit(tmp_path):
    cells = soup((300, 200), 5)
    engine = get_engine("dask").with_options(chunks=64)
    want = tensorca.run(cells, "B3/S23:P200,300", 60, backend="numpy")
    store = tmp_path / "grid.zarr"
    half = tensorca.run(cells, "B3/S23:P200,300", 30, backend=engine, checkpoint=store, checkpoint_every=10)
    saved = open_store(store)
    assert saved.generation == 30 and saved.manifest["packed"] and saved.state.shape == (300, 200)
    np.testing.assert_array_equal(saved.state.compute(), half)
    out = tensorca.resume(store, 30, backend=engine, checkpoint=store)
    assert isinstance(out, da.Array)
    np.testing.assert_array_equal(out.compute(), want)
    assert open_store(store).generation == 60 and not (tmp_path / "grid.zarr.next").exists()


def test_multi_state_stores_are_unpacked_and_checked(tmp_path):
    cells = soup((2, 50, 41), 9, n_states=4)
    path = tmp_path / "gen.zarr"
    out = tensorca.run(cells, "345/2/4", 12, backend="dask", checkpoint=path)
    np.testing.assert_array_equal(out, tensorca.run(cells, "345/2/4", 12, backend="numpy"))
    assert open_store(path).manifest["packed"] is False
    manifest = dict(open_store(path).manifest, rule="B3/S23", generation=0)
    save_store(tmp_path / "bad.zarr", da.from_array(cells), manifest, packed=False)  # states 2, 3 for Life
    with pytest.raises(CheckpointError, match="state"):
        open_store(tmp_path / "bad.zarr").grid.compute()


def test_an_interrupted_swap_is_finished_on_open(tmp_path):
    path = tmp_path / "g.zarr"
    tensorca.run(soup((40, 40), 1), "B3/S23", 5, backend="dask", checkpoint=path)
    path.rename(tmp_path / "g.zarr.next")  # a crash between the renames: only the new store remains
    assert open_store(path).generation == 5 and path.exists()


def test_hostile_stores_are_checkpoint_errors(tmp_path):
    with pytest.raises(CheckpointError, match="no such"):
        open_store(tmp_path / "missing.zarr")
    import zarr

    plain = tmp_path / "plain.zarr"
    zarr.open_array(store=str(plain), mode="w", shape=(1, 4, 4), chunks=(1, 4, 4), dtype="uint8")
    with pytest.raises(CheckpointError, match="not a tensorca store"):
        open_store(plain)
    path = tmp_path / "g.zarr"
    tensorca.run(soup((1, 40, 40), 1), "B3/S23", 1, backend="dask", checkpoint=path)
    array = zarr.open_array(store=str(path), mode="r+")
    for change in ({"generation": -1}, {"rule": "B9/S"}, {"width": 41}, {"topology": {"kind": "torus"}},
                   {"packed": "yes"}, {"complete": False}):
        info = dict(array.attrs["tensorca"])
        array.attrs["tensorca"] = {**info, **change}
        with pytest.raises(CheckpointError):
            open_store(path)
        array.attrs["tensorca"] = info


def test_ctrl_c_leaves_the_last_segment(tmp_path, monkeypatch):
    from tensorca.persist import zarr_store as store_module

    path = tmp_path / "g.zarr"
    real, calls = store_module.save_store, []

    def save_then_interrupt(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(store_module, "save_store", save_then_interrupt)
    with pytest.raises(Interrupted) as stop:
        tensorca.run(soup((40, 40), 2), "B3/S23", 50, backend="dask", checkpoint=path, checkpoint_every=10)
    assert stop.value.generation == 20 and open_store(path).generation == 20


def test_lazy_soups_do_not_depend_on_the_chunking():
    a = lazy_soup(700, 530, 0.3, seed=5, chunks=300).compute()
    b = lazy_soup(700, 530, 0.3, seed=5, chunks=256).compute()
    np.testing.assert_array_equal(a, b)
    assert a.shape == (1, 700, 530) and abs(a.mean() - 0.3) < 0.01
    states = lazy_soup(64, 64, 1.0, seed=1, n_states=4, chunks=32).compute()
    assert set(np.unique(states)) == {1, 2, 3}
    with pytest.raises(UsageError):
        lazy_soup(10, 10, seed=-1)


def _peak_rss_bytes() -> int:
    """This process's peak resident memory: VmHWM (ru_maxrss would carry the forking parent's peak over exec)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM in /proc/self/status")


@pytest.mark.slow
def test_a_grid_larger_than_a_workers_memory_limit_runs_through_zarr(tmp_path):
    """A 191 MB soup on workers limited to 170 MiB each: made, stepped and stored chunk by chunk.

    The workers' peak resident memory stays below the grid's size (a worker holding the grid would be
    killed by its nanny); a window of the result equals a local run of the same window of the soup."""
    from distributed import Client, LocalCluster

    side, gens = 13824, 2
    limit = 170 * 2**20
    assert side * side > limit
    store = tmp_path / "big.zarr"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=":0",
                      memory_limit=limit) as cluster, Client(cluster, set_as_default=False) as joined:
        engine = get_engine("dask").with_options(chunks=1024, inner="numpy")
        with dask.config.set(scheduler=joined.get):
            tensorca.run(lazy_soup(side, side, 0.5, seed=4, chunks=1024)[0], "B3/S23", gens, backend=engine,
                         checkpoint=store)
        peaks = joined.run(_peak_rss_bytes)
        assert len(peaks) == 2 and max(peaks.values()) < side * side, peaks
    saved = open_store(store)
    assert saved.generation == gens and saved.manifest["packed"] and saved.state.shape == (side, side)
    y, x, w = 5000, 7000, 300
    window = lazy_soup(side, side, 0.5, seed=4, chunks=1024)[0, y - gens : y + w + gens, x - gens : x + w + gens]
    local = get_engine("numpy").advance(window.compute()[None], rule("B3/S23"),
                                        Topology.plane(w + 2 * gens, w + 2 * gens), gens)[0, gens:-gens, gens:-gens]
    with dask.config.set(scheduler="threads"):
        np.testing.assert_array_equal(saved.state[y : y + w, x : x + w].compute(), local)


# -- the command line ------------------------------------------------------------------------------


def _pattern_file(tmp_path):
    cells = np.zeros((6, 7), np.uint8)
    cells[0, 1] = cells[1, 2] = cells[2, 0] = cells[2, 1] = cells[2, 2] = 1  # a glider
    cells[4, 4:7] = 1  # a blinker
    pattern = tensorca.Pattern(cells=cells, rule=tensorca.parse_rule("B3/S23"))
    path = tmp_path / "two.rle"
    tensorca.io.save(path, pattern)
    return path, pattern


def test_the_cli_runs_a_pattern_file_on_dask(tmp_path, capsys):
    """`tensorca run FILE --dask`: the pattern at the grid's top-left, chunks of 16 on a 40 x 30 torus
    (the glider crosses the wrap), the same cells as the NumPy reference."""
    from tensorca.cli import main

    path, pattern = _pattern_file(tmp_path)
    out = tmp_path / "out.rle"
    assert main(["run", str(path), "--dask", "--topology", ":T40,30", "--chunks", "16", "--gens", "90",
                 "--out", str(out), "--no-progress"]) == 0
    want = tensorca.run(pattern, "B3/S23:T40,30", 90, backend="numpy")
    assert np.array_equal(tensorca.io.load(out).cells, want.cells)
    assert "dask" in capsys.readouterr().out


def test_a_pattern_on_a_grid_larger_than_memory_is_placed_lazily(tmp_path):
    """A pattern file on a 200000^2 torus (40 GB of cells): the starting grid is a lazy dask array
    (it was a NumPy array of the whole grid), and its corner holds the pattern."""
    from tensorca.cli import build_parser, dask_run

    path, pattern = _pattern_file(tmp_path)
    args = build_parser().parse_args(["run", str(path), "--dask", "--topology", ":T200000,200000", "--gens", "1"])
    state, rule, topology, _, generation, seed = dask_run.starting_state(args, 4096)
    assert isinstance(state, da.Array) and state.shape == (200000, 200000) and state.dtype == np.uint8
    assert generation == 0 and seed == 0
    assert state.chunksize == (4096, 4096) and topology == Topology.torus(200000, 200000)
    corner = state[:8, :8].compute()
    assert np.array_equal(corner[:6, :7], pattern.cells) and corner[6:].sum() == 0 and corner[:, 7:].sum() == 0
