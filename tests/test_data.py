"""tensorca.data: reproducible CA datasets for PyTorch, sharded streams, on-device batches, loader-bench."""

from __future__ import annotations

import argparse
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch.utils.data import DataLoader  # noqa: E402

import tensorca  # noqa: E402
from tensorca.data import DeviceStream, Trajectories, TrajectoryStream, pattern_path  # noqa: E402
from tensorca.data.seeding import MASK32, cell_bits, fold, hash32, item_rng  # noqa: E402
from tensorca.data.stream import start_keys  # noqa: E402
from tensorca.errors import GridError, TopologyError  # noqa: E402

FORK = "fork" if "fork" in torch.multiprocessing.get_all_start_methods() else None


def as_bytes(sample) -> bytes:
    if isinstance(sample, (tuple, list)):
        return b"".join(t.numpy().tobytes() for t in sample)
    return sample.numpy().tobytes()


# -- seeding ---------------------------------------------------------------------------------


def test_item_rng_is_the_index_th_spawned_child():
    children = np.random.SeedSequence(7).spawn(5)
    for i in range(5):
        expected = np.random.Generator(np.random.Philox(children[i])).random(4)
        assert np.array_equal(item_rng(7, i).random(4), expected)
    assert not np.array_equal(item_rng(7, 0).random(4), item_rng(7, 1).random(4))


def test_hash32_is_identical_for_python_numpy_and_torch():
    values = [0, 1, 2, 12345, 2**31 - 1, 2**31, MASK32]
    expected = [hash32(v) for v in values]
    assert np.array_equal(hash32(np.array(values, dtype=np.int64)), expected)
    assert hash32(torch.tensor(values, dtype=torch.int64)).tolist() == expected
    assert all(0 <= h <= MASK32 for h in expected)
    assert len(set(expected[1:])) == len(expected) - 1
    assert fold(1, 2) != fold(2, 1) and fold(0, 2**40) != fold(0, 0)


# -- Trajectories ----------------------------------------------------------------------------


def test_pairs_shapes_dtypes_and_generation_one_apart():
    ds = Trajectories(rule="B3/S23", shape=(12, 10), generations=1, length=50, density=0.5, seed=0)
    assert len(ds) == 50
    x, y = ds[3]
    assert x.shape == (12, 10) and y.shape == (12, 10)
    assert x.dtype == torch.uint8 and y.dtype == torch.uint8
    assert np.array_equal(tensorca.run(x.numpy(), "B3/S23", 1), y.numpy())
    grid, warmup = ds.start_state(3)
    assert warmup == 0 and np.array_equal(grid, x.numpy())
    assert 0.2 < x.float().mean() < 0.8


@pytest.mark.parametrize("rule", ["B3/S23", "345/2/4", "B36/S23:P16,12", "R2,C0,M1,S5..9,B6..7,NM"])
def test_samples_equal_a_direct_run_of_the_same_start_state(rule):
    ds = Trajectories(rule, (12, 16), generations=3, length=8, steps=4, warmup=(0, 6), density=(0.2, 0.7), seed=5)
    batch = ds.batch(range(8))
    assert batch.shape == (8, 5, 12, 16) and batch.dtype == torch.uint8
    topology = ds.topology
    for i in range(8):
        grid, warmup = ds.start_state(i)
        frame = tensorca.run(grid, rule.split(":")[0], warmup, topology=topology)
        assert np.array_equal(batch[i, 0].numpy(), frame)
        for t in range(1, 5):
            frame = tensorca.run(frame, rule.split(":")[0], 3, topology=topology)
            assert np.array_equal(batch[i, t].numpy(), frame), (i, t)
        assert np.array_equal(ds[i].numpy(), batch[i].numpy())


def test_items_depend_only_on_seed_and_index():
    a = Trajectories("B3/S23", (8, 8), 2, length=20, warmup=(0, 3), seed=11)
    b = Trajectories("B3/S23", (8, 8), 2, length=20, warmup=(0, 3), seed=11)
    forward = [as_bytes(a[i]) for i in range(20)]
    backward = [as_bytes(b[i]) for i in reversed(range(20))][::-1]
    assert forward == backward
    assert [as_bytes(s) for s in a.__getitems__([5, 0, 19, 5])] == [forward[5], forward[0], forward[19], forward[5]]
    assert as_bytes(a[-1]) == forward[19]
    other = Trajectories("B3/S23", (8, 8), 2, length=20, warmup=(0, 3), seed=12)
    assert sum(as_bytes(other[i]) == forward[i] for i in range(20)) == 0
    assert len(set(forward)) == 20


def test_identical_samples_for_zero_and_two_workers():
    ds = Trajectories("B3/S23", (8, 8), 1, length=40, warmup=(0, 4), seed=3)
    serial = list(DataLoader(ds, batch_size=6, num_workers=0))
    parallel = list(DataLoader(ds, batch_size=6, num_workers=2, multiprocessing_context=FORK))
    assert len(serial) == len(parallel) == 7
    for (x0, y0), (x2, y2) in zip(serial, parallel, strict=True):
        assert x0.shape[1:] == (8, 8) and x0.dtype == torch.uint8
        assert torch.equal(x0, x2) and torch.equal(y0, y2)
    # Shuffled: the sample at each index is the same whichever process made it.
    order = torch.randperm(40, generator=torch.Generator().manual_seed(0)).tolist()
    shuffled = list(DataLoader(ds, batch_size=8, sampler=order, num_workers=2, multiprocessing_context=FORK))
    x = torch.cat([b[0] for b in shuffled])
    assert all(torch.equal(x[k], ds[i][0]) for k, i in enumerate(order))


def test_pattern_placement_keeps_the_pattern():
    gun = tensorca.load(pattern_path("gosper_gun.rle"))
    ds = Trajectories(pattern=gun, shape=(48, 48), generations=30, length=12, seed=0)
    positions = set()
    for i in range(12):
        grid, _ = ds.start_state(i)
        assert grid.sum() == gun.cells.sum()
        ys, xs = np.nonzero(grid)
        positions.add((int(ys.min()), int(xs.min())))
        x, y = ds[i]
        assert np.array_equal(tensorca.run(x.numpy(), "B3/S23", 30), y.numpy())
    assert len(positions) > 1
    # On a bounded plane the pattern always fits, in any of the 8 orientations.
    plane = Trajectories(pattern=[gun.cells, np.ones((2, 2), np.uint8)], shape=(40, 40), topology="plane", length=16)
    for i in range(16):
        grid, _ = plane.start_state(i)
        assert grid.sum() in (gun.cells.sum(), 4)
    with pytest.raises(GridError, match="does not fit"):
        Trajectories(pattern=gun, shape=(20, 40))


def test_start_function_and_multistate_soups():
    ds = Trajectories("345/2/4", (6, 6), 1, length=5, start=lambda rng, shape: rng.integers(0, 4, size=shape))
    grid, _ = ds.start_state(2)
    assert grid.max() <= 3 and np.array_equal(ds[2][0].numpy(), grid)
    soup = Trajectories("345/2/4", (16, 16), 1, length=3, density=1.0)
    assert set(np.unique(soup.start_state(0)[0])) == {1, 2, 3}


def test_nested_list_is_one_pattern_and_datasets_pickle():
    import pickle

    ds = Trajectories("B3/S23", (8, 8), 1, length=6, pattern=[[1, 1], [1, 1]], seed=2)
    again = pickle.loads(pickle.dumps(ds))  # what a spawn-started worker receives
    for i in range(6):
        assert int(ds[i][0].sum()) == 4 and int(ds[i][1].sum()) == 4  # a block is a still life
        assert as_bytes(again[i]) == as_bytes(ds[i])


def test_bad_arguments_are_typed_errors():
    with pytest.raises(ValueError, match="density"):
        Trajectories(density=1.5)
    with pytest.raises(ValueError, match="warmup"):
        Trajectories(warmup=(5, 2))
    with pytest.raises(TopologyError):
        Trajectories("B3/S23:T10,10", shape=(8, 8))
    with pytest.raises(IndexError):
        Trajectories(length=3)[3]
    with pytest.raises(GridError):
        Trajectories(shape=(0, 4))


# -- TrajectoryStream ------------------------------------------------------------------------


def test_stream_items_are_the_dataset_items():
    ds = Trajectories("B3/S23", (8, 8), 1, length=30, seed=4)
    stream = TrajectoryStream("B3/S23", (8, 8), 1, length=30, seed=4, chunk=7)
    assert [as_bytes(s) for s in stream] == [as_bytes(ds[i]) for i in range(30)]
    endless = iter(TrajectoryStream("B3/S23", (8, 8), 1, seed=4, first=25))
    assert [as_bytes(next(endless)) for _ in range(5)] == [as_bytes(ds[i]) for i in range(25, 30)]


def test_stream_shards_across_workers_without_duplicates():
    stream = TrajectoryStream("B3/S23", (8, 8), 1, length=37, seed=9, chunk=4)
    single = [as_bytes(s) for s in DataLoader(stream, batch_size=None, num_workers=0)]
    sharded = [as_bytes(s) for s in DataLoader(stream, batch_size=None, num_workers=2, multiprocessing_context=FORK)]
    assert len(single) == len(set(single)) == 37
    assert len(sharded) == len(set(sharded)) == 37
    assert sorted(sharded) == sorted(single)
    # Round-robin over workers: the loader returns exactly the single-process order.
    assert sharded == single


def test_stream_shards_by_rank():
    ranks = [TrajectoryStream("B3/S23", (6, 6), 1, length=10, rank=r, world_size=3) for r in range(3)]
    indices = [list(s.indices()) for s in ranks]
    assert indices == [[0, 3, 6, 9], [1, 4, 7], [2, 5, 8]]
    with pytest.raises(ValueError):
        TrajectoryStream(rank=3, world_size=3)


# -- DeviceStream ----------------------------------------------------------------------------


def numpy_start_states(seed: int, batch: int, batch_size: int, shape, density: float) -> np.ndarray:
    """The documented start-state hash, recomputed with NumPy int64."""
    base = fold(seed, batch)
    keys = hash32(hash32(np.arange(batch_size, dtype=np.int64) + 0x632BE5AB) ^ base).reshape(-1, 1, 1)
    cells = np.arange(shape[0] * shape[1], dtype=np.int64).reshape(1, *shape)
    return (cell_bits(keys, cells) < int(density * 2**32)).astype(np.uint8)


def test_device_stream_is_deterministic_and_matches_numpy():
    a = DeviceStream("B3/S23", (10, 12), generations=2, batch_size=5, density=0.4, seed=8, warmup=3)
    b = DeviceStream("B3/S23", (10, 12), generations=2, batch_size=5, density=0.4, seed=8, warmup=3, batches=4)
    assert len(b) == 4
    batches = list(b)
    assert len(batches) == 4
    for j, (x, y) in enumerate(batches):
        assert x.shape == (5, 10, 12) and x.dtype == torch.uint8 and y.dtype == torch.uint8
        ax, ay = a.batch(j)
        assert torch.equal(ax, x) and torch.equal(ay, y)
        start = numpy_start_states(8, j, 5, (10, 12), 0.4)
        assert np.array_equal(a.start_states(j).numpy(), start)
        assert np.array_equal(x.numpy(), tensorca.run(start, "B3/S23", 3))
        assert np.array_equal(y.numpy(), tensorca.run(x.numpy(), "B3/S23", 2))
    assert not torch.equal(batches[0][0], batches[1][0])
    nine, eight = DeviceStream(seed=9, batch_size=2).batch(0)[0], DeviceStream(seed=8, batch_size=2).batch(0)[0]
    assert not torch.equal(nine, eight)
    assert torch.equal(start_keys(8, 2, 5), torch.from_numpy(hash32(hash32(np.arange(5) + 0x632BE5AB) ^ fold(8, 2))))


def test_device_stream_trajectories_multistate_and_density_range():
    s = DeviceStream("345/2/4", (16, 16), generations=1, batch_size=4, steps=3, density=(0.1, 0.9), seed=1)
    frames = s.batch(0)
    assert frames.shape == (4, 4, 16, 16) and frames.dtype == torch.uint8
    assert int(frames.max()) <= 3 and set(torch.unique(frames[:, 0]).tolist()) == {0, 1, 2, 3}
    for t in range(3):
        assert np.array_equal(frames[:, t + 1].numpy(), tensorca.run(frames[:, t].numpy(), "345/2/4", 1))
    densities = (s.start_states(0) != 0).float().mean(dim=(1, 2))
    assert densities.std() > 0.02  # drawn per sample
    dense = DeviceStream(batch_size=2, shape=(64, 64), density=0.5).start_states(3).float().mean()
    assert abs(float(dense) - 0.5) < 0.02


def test_device_stream_on_a_bounded_plane():
    s = DeviceStream("B3/S23", (9, 7), batch_size=3, topology="plane", warmup=2, seed=4)
    x, y = s.batch(1)
    start = s.start_states(1).numpy()
    assert np.array_equal(x.numpy(), tensorca.run(start, "B3/S23", 2, topology="plane"))
    assert np.array_equal(y.numpy(), tensorca.run(x.numpy(), "B3/S23", 1, topology="plane"))
    with pytest.raises(TopologyError):
        DeviceStream("B3/S23:T8,8", (8, 8), topology="plane")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_device_stream_on_cuda_equals_cpu():
    cpu = DeviceStream(batch_size=8, shape=(32, 32), seed=2, warmup=5)
    gpu = DeviceStream(batch_size=8, shape=(32, 32), seed=2, warmup=5, device="cuda")
    for j in range(3):
        x, y = gpu.batch(j)
        assert x.device.type == "cuda"
        assert torch.equal(x.cpu(), cpu.batch(j)[0]) and torch.equal(y.cpu(), cpu.batch(j)[1])


# -- import discipline, loader-bench ---------------------------------------------------------


def test_import_tensorca_does_not_import_torch():
    code = "import sys, tensorca, tensorca.data; tensorca.data.pattern_path('x'); print('torch' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_loader_bench_measures_and_reports(capsys):
    from tensorca.benchmark.loader import BenchConfig, LoaderSetting, measure
    from tensorca.cli.loader_bench import register

    config = BenchConfig(shape=(8, 8), batch_size=4, warmup=0, step="busy", step_ms=1.0, batches=3, epochs=2)
    result = measure(LoaderSetting(num_workers=0), config)
    assert result.samples == 24 and 0 < result.wait_fraction < 1 and result.samples_per_second > 0
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["loader-bench", "--quick", "--size", "8x8", "--batch-size", "4", "--batches", "2",
                              "--epochs", "1", "--step-ms", "1", "--warmup", "0..2"])
    assert args.func(args) == 0
    text = capsys.readouterr().out
    assert "samples/s" in text and "DeviceStream" in text and "Winner:" in text


def test_items_and_batches_larger_than_memory_are_refused_when_the_dataset_is_made():
    """A 10^6 x 10^6 item asked NumPy for 7.3 TiB when first read (a bare MemoryError, in a worker);
    now the dataset says so as it is made, and so does a DeviceStream batch of 10^9 grids."""
    with pytest.raises(tensorca.MemoryBudgetError, match=r"one item \(2 frames of 1000000x1000000 cells\) needs"):
        Trajectories(shape=(1_000_000, 1_000_000))
    with pytest.raises(tensorca.MemoryBudgetError, match=r"one item \(100000001 frames .* fewer steps"):
        Trajectories(shape=(64, 64), steps=10**8)
    with pytest.raises(tensorca.MemoryBudgetError, match=r"one batch \(1000000000 x 2 frames .* smaller batch_size"):
        DeviceStream(shape=(64, 64), batch_size=10**9)
    assert Trajectories(shape=(64, 64), steps=10, length=1)[0].shape == (11, 64, 64)
