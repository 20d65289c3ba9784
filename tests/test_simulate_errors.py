"""Every bad argument of run/resume/explain (and of the helpers around them) is a typed TensorcaError.

Each case below used to end in a bare ValueError, TypeError, IndexError, AssertionError or
ModuleNotFoundError (issue 10 item 3, issue 11's hostile input); each now names what is wrong.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

import tensorca
from tensorca.arrays import check_device
from tensorca.elementary import elementary
from tensorca.errors import EngineError, GridError, MemoryBudgetError, MissingDependencyError, TensorcaError, UsageError
from tensorca.observers import Population
from tensorca.random_grids import parse_size, random_soup
from tensorca.simulate import Interrupted, explain, resume, run
from tensorca.topology import Topology, padding_index

GRID = (np.random.default_rng(0).random((12, 10)) < 0.4).astype(np.uint8)


def cuda_usable() -> bool:
    torch = sys.modules.get("torch")
    if torch is None:
        try:
            import torch
        except ImportError:
            return False
    return torch.cuda.is_available()


@pytest.mark.parametrize("generations", [-1, 1.5, True, "3", None])
def test_bad_generations(generations):
    with pytest.raises(UsageError, match="generations"):
        run(GRID, "B3/S23", generations, backend="numpy")


@pytest.mark.parametrize("options, match", [
    (dict(checkpoint_every=3), "checkpoint_every needs checkpoint"),
    (dict(checkpoint="x.npz", checkpoint_every=0), "checkpoint_every"),
    (dict(checkpoint="x.npz", checkpoint_every="5"), "checkpoint_every"),
    (dict(checkpoint=3.5), "checkpoint must be a file path"),
    (dict(max_bytes=float("inf")), "max_bytes"),
    (dict(max_bytes=1e400), "max_bytes"),
    (dict(max_bytes=math.nan), "max_bytes"),
    (dict(max_bytes=True), "max_bytes"),
    (dict(max_bytes="1e9"), "max_bytes"),
    (dict(max_bytes=0), "max_bytes"),
    (dict(observe=3), "observe"),
    (dict(observe="population"), "observe"),
    (dict(backend=3), "backend"),
    (dict(progress="yes"), "progress"),
    (dict(start_generation=-1), "start_generation"),
    (dict(device="meta"), "unknown device 'meta'"),
    (dict(device="nope"), "unknown device"),
    (dict(device="cuda:x"), "unknown device"),
    (dict(device=3), "unknown device"),
    (dict(topology=3), "topology must be"),
    (dict(rule=3), "rule must be"),
])
def test_bad_run_options(options, match):
    rule = options.pop("rule", "B3/S23")
    with pytest.raises(UsageError, match=match):
        run(GRID, rule, 1, **options)


def test_bad_options_are_refused_before_anything_runs(tmp_path, monkeypatch):
    import tensorca.simulate.plan as plan

    monkeypatch.setattr(plan, "advance_observed", lambda *a, **k: pytest.fail("the engine ran"))
    with pytest.raises(UsageError):
        run(GRID, "B3/S23", 5, checkpoint=tmp_path / "c.npz", checkpoint_every=2, max_bytes=math.inf)
    assert not list(tmp_path.iterdir())


def test_torch_meta_device_value_is_refused():
    torch = pytest.importorskip("torch")
    with pytest.raises(UsageError, match="meta"):
        run(GRID, "B3/S23", 1, device=torch.device("meta"))


@pytest.mark.skipif(cuda_usable(), reason="this machine has a CUDA GPU")
def test_cuda_without_a_gpu_is_an_engine_error():
    pytest.importorskip("torch")
    with pytest.raises(EngineError, match="CUDA is not available"):
        run(GRID, "B3/S23", 1, device="cuda")
    with pytest.raises(EngineError, match="CUDA is not available"):
        check_device("cuda:0")


def test_cuda_without_torch_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch -> ImportError
    with pytest.raises(MissingDependencyError) as info:
        check_device("cuda")
    assert info.value.install == "pip install 'tensorca[torch]'" and "tensorca[torch]" in str(info.value)
    with pytest.raises(MissingDependencyError, match="tensorca\\[torch\\]"):
        run(GRID, "B3/S23", 1, device="cuda")
    check_device("cpu")  # needs no torch


def test_engine_errors_carry_rule_topology_shape_and_engine():
    with pytest.raises(MemoryBudgetError) as info:
        run(np.stack([GRID, GRID]), "B36/S23", 1, backend="numpy", max_bytes=10)
    message = str(info.value)
    assert "needs about" in message  # the original message comes first
    assert "rule B36/S23" in message and "topology :T10,12" in message
    assert "(2, 12, 10)" in message and "engine numpy" in message
    assert isinstance(info.value.__cause__, MemoryBudgetError)  # chained to the original
    assert info.value.needed is not None and info.value.needed == info.value.__cause__.needed
    with pytest.raises(EngineError, match="engine no-such-engine"):
        run(GRID, "B3/S23", 1, backend="no-such-engine")


def test_pattern_errors_name_the_unbounded_plane():
    glider = tensorca.io.loads("x = 3, y = 3, rule = B3/S23\nbo$2bo$3o!")
    with pytest.raises(EngineError, match="unbounded plane.*engine no-such-engine"):
        run(glider, generations=1, backend="no-such-engine")


def test_grid_errors_before_the_engine_get_no_run_context():
    with pytest.raises(GridError) as info:
        run(GRID * 3, "B3/S23", 1, backend="numpy")
    assert "engine numpy" not in str(info.value) and "holds state 3" in str(info.value)


def test_resume_and_explain_arguments(tmp_path):
    path = tmp_path / "c.npz"
    run(GRID, "B3/S23", 2, backend="numpy", checkpoint=path)
    with pytest.raises(UsageError, match="generations"):
        resume(path, -1)
    with pytest.raises(UsageError, match="rule"):
        resume(path, 1, rule="B36/S23")
    with pytest.raises(UsageError, match="generations"):
        explain(GRID, "B3/S23", -1)
    with pytest.raises(UsageError, match="calls"):
        explain(GRID, "B3/S23", 1, calls=0)
    with pytest.raises(UsageError, match="meta"):
        explain(GRID, "B3/S23", 1, device="meta")
    with pytest.raises(GridError):
        explain(np.zeros(5, np.uint8))


def test_interrupts_are_not_wrapped(monkeypatch, tmp_path):
    import tensorca.simulate.plan as plan

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(plan, "advance_observed", stop)
    with pytest.raises(Interrupted):
        run(GRID, "B3/S23", 4, backend="numpy", checkpoint=tmp_path / "i.npz", checkpoint_every=2)


def test_progress_true_draws_a_bar_and_changes_nothing(capsys):
    out = run(GRID, "B3/S23", 30, backend="numpy", progress=True)
    assert np.array_equal(out, run(GRID, "B3/S23", 30, backend="numpy"))
    assert "generations" in capsys.readouterr().err
    seen = []
    run(GRID, "B3/S23", 30, backend="numpy", progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (30, 30)


def test_helpers_around_run():
    with pytest.raises(UsageError, match="positive integer"):
        Population(every=0)
    with pytest.raises(UsageError, match="no values yet"):
        Population().to_csv("never.csv")
    with pytest.raises(UsageError, match="boundary"):
        elementary(30, np.array([0, 1, 0]), 3, boundary="zero")
    with pytest.raises(UsageError, match="steps"):
        elementary(30, np.array([0, 1, 0]), -1)
    with pytest.raises(UsageError, match="radius"):
        padding_index(Topology.torus(4, 4), -1)
    with pytest.raises(UsageError, match="height"):
        random_soup(2.5, 3)
    with pytest.raises(UsageError, match="seed"):
        random_soup(3, 3, seed=-1)
    with pytest.raises(UsageError, match="WIDTHxHEIGHT"):
        parse_size(64)


def test_random_soup_is_height_first_and_the_command_line_width_first():
    assert random_soup(3, 5, seed=1).shape == (3, 5)
    assert parse_size("5x3") == (3, 5)
    assert np.array_equal(random_soup(*parse_size("5x3"), seed=2), random_soup(3, 5, seed=2))


def test_render_arguments(tmp_path):
    import tensorca.render as render

    with pytest.raises(UsageError, match="gens"):
        render.frames(GRID, gens=-1)
    with pytest.raises(UsageError, match="every"):
        render.frames(GRID, gens=3, every=0)
    with pytest.raises(UsageError, match="duration"):
        render.gif(str(tmp_path / "x.gif"), GRID, gens=2, duration=0)
    with pytest.raises(UsageError, match="scale"):
        render.gif(str(tmp_path / "x.gif"), GRID, gens=2, scale=2.5)


def test_data_errors_are_typed_and_keep_python_protocols():
    pytest.importorskip("torch")
    from tensorca.data import DeviceStream, Trajectories, TrajectoryStream

    data = Trajectories("B3/S23", (8, 8), length=3)
    with pytest.raises(UsageError) as info:
        data[3]
    assert isinstance(info.value, IndexError)  # for x in data: stops at the end
    assert len([sample for sample in data]) == 3
    with pytest.raises(UsageError) as info:
        data["0"]
    assert isinstance(info.value, TypeError)
    with pytest.raises(UsageError) as info:
        len(TrajectoryStream("B3/S23", (8, 8)))
    assert isinstance(info.value, TypeError)  # len() of an endless stream, as tqdm expects
    with pytest.raises(UsageError, match="density"):
        Trajectories("B3/S23", (8, 8), density=2.0)
    with pytest.raises(UsageError, match="meta"):
        DeviceStream(device="meta")
    if not cuda_usable():
        with pytest.raises(EngineError, match="CUDA is not available"):
            DeviceStream(device="cuda")


@pytest.mark.parametrize("options, match", [
    (dict(threads=0), "threads"),
    (dict(device="nope"), "unknown device"),
    (dict(step_ms=math.inf), "step_ms"),
    (dict(step_ms=math.nan), "step_ms"),
    (dict(batch_size=1e23), "batch_size"),
    (dict(batches=0), "batches"),
    (dict(step="nap"), "step"),
])
def test_loader_bench_settings_are_refused_before_anything_starts(options, match):
    pytest.importorskip("torch")
    from tensorca.benchmark.loader import BenchConfig

    with pytest.raises(UsageError, match=match):
        BenchConfig(**options)


def test_loader_bench_caps_workers():
    pytest.importorskip("torch")
    from tensorca.benchmark.loader import LoaderSetting, max_workers

    with pytest.raises(UsageError, match="num_workers must be a whole number in 0..") as info:
        LoaderSetting(num_workers=99999)
    assert str(max_workers()) in str(info.value)
    assert LoaderSetting(num_workers=max_workers()).num_workers == max_workers()


def test_every_error_here_is_a_tensorca_error():
    for cls in (UsageError, EngineError, MissingDependencyError, MemoryBudgetError, GridError):
        assert issubclass(cls, TensorcaError)


@pytest.mark.parametrize("backend", ["auto", "numpy", "bitpack-cpu"])
def test_a_state_out_of_range_is_named_by_the_callers_own_index(backend):
    grid = np.zeros((6, 9), np.uint8)
    grid[4, 7] = 2
    with pytest.raises(GridError, match=r"cell \(4, 7\) holds state 2, but rule 'B3/S23' has only 2 states"):
        run(grid, "B3/S23", 1, backend=backend)
    batch = np.zeros((3, 6, 9), np.uint8)
    batch[1, 0, 8] = 5
    with pytest.raises(GridError, match=r"cell \(1, 0, 8\) holds state 5"):
        run(batch, "B3/S23", 1, backend=backend)
    assert run(grid % 2, "B3/S23", 1, backend=backend).shape == (6, 9)  # in range: runs
