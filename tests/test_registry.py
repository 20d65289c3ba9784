"""The engine registry is the one source of engine facts: an engine registered in one call is
chosen by ``auto``, measured by ``bench`` and checked by ``verify``; unknown names and absent
frameworks are typed errors."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import tensorca
from tensorca.benchmark.sweep import bench_targets
from tensorca.engines import EngineCost, EngineInfo, available_engines, engine_info, get_engine, register, unregister
from tensorca.engines.base import Engine
from tensorca.engines.registry import register_lazy
from tensorca.errors import EngineError, MissingDependencyError
from tensorca.verify import verify

#: Costs that make the toy engine the cheapest candidate for every run.
TOY_COSTS = EngineCost(call_s=1e-9, gen_s=1e-9, cell_s=1e-15)


class ToyEngine(Engine):
    """The reference under another name: what a plug-in engine looks like."""

    name = "toy"

    def supports(self, rule, topology):
        return get_engine("numpy").supports(rule, topology)

    def why_unsupported(self, rule, topology):
        return get_engine("numpy").why_unsupported(rule, topology)

    def advance(self, cells, rule, topology, generations):
        return get_engine("numpy").advance(cells, rule, topology, generations)


@pytest.fixture
def toy():
    engine = register(ToyEngine(), EngineInfo("toy", default_costs={"cpu": TOY_COSTS}))
    yield engine
    unregister("toy")


def test_a_registered_engine_is_in_auto_predictions_and_chosen_when_cheapest(toy):
    grid = (np.random.default_rng(0).random((2, 32, 32)) < 0.4).astype(np.uint8)
    choice = tensorca.explain(grid, "B3/S23", 10)
    assert "toy@cpu" in [p.key for p in choice.predictions]
    assert choice.engine == "toy" and choice.describe().startswith("auto chose toy on cpu")
    np.testing.assert_array_equal(tensorca.run(grid, "B3/S23", 10), tensorca.run(grid, "B3/S23", 10, backend="numpy"))


def test_a_registered_engine_is_benchmarked(toy):
    assert ("toy", "cpu", "") in bench_targets()
    report = tensorca.bench(["toy"], quick=True, budget_s=0.05, target_s=0.002, repeats=1)
    assert [(e.engine, e.device, e.available) for e in report.engines] == [("toy", "cpu", True)]
    sweeps = {r.sweep for r in report.rows if r.engine == "toy"}
    assert {"tiny", "grid", "batch"} <= sweeps


def test_a_registered_engine_is_verified(toy):
    assert "toy" in [e.name for e in available_engines()]
    report = verify(families=["life-like"], topologies=["torus"], grids=3, generations=2, control=False)
    rows = [r for r in report.rows if r.engine == "toy"]
    assert len(rows) == 1 and rows[0].grids == 3 and rows[0].identical == 3
    assert report.ok


def test_unregister_removes_every_trace(toy):
    unregister("toy")
    with pytest.raises(EngineError, match="unknown backend 'toy'"):
        get_engine("toy")
    assert "toy" not in [e.name for e in available_engines()]


def test_unknown_engine_is_an_engine_error_listing_the_known_ones():
    with pytest.raises(EngineError, match="unknown backend 'nope'.*numpy"):
        get_engine("nope")
    with pytest.raises(EngineError):
        engine_info("nope")


def test_absent_requirement_is_a_missing_dependency_error_with_the_install_command():
    register_lazy(EngineInfo("needs-absent", "tensorca_no_such_module:Engine", requires=("tensorca_no_such_module",),
                             install="pip install 'tensorca[absent]'"))
    try:
        want = r"tensorca_no_such_module.*pip install 'tensorca\[absent\]'"
        with pytest.raises(MissingDependencyError, match=want) as caught:
            get_engine("needs-absent")
        assert caught.value.package == "tensorca_no_such_module"
        assert caught.value.install == "pip install 'tensorca[absent]'"
        assert "needs-absent" not in [e.name for e in available_engines()]
        assert ("needs-absent", None) == bench_targets(["needs-absent"])[0][:2]
    finally:
        unregister("needs-absent")


def test_a_lazy_target_must_name_module_and_class():
    with pytest.raises(EngineError, match="module:Class"):
        register_lazy(EngineInfo("bad-target", "tensorca.engines.numpy_reference"))


def test_builtin_engines_carry_their_facts():
    numpy = engine_info("numpy")
    assert numpy.default_costs["cpu"].cell_s > 0 and numpy.devices() == ("cpu",)
    # Every engine auto may use has costs for each device it lists, and its install command when it
    # needs a framework.
    for info in tensorca.engines.engine_infos():
        assert not info.requires or info.install.startswith("pip install 'tensorca[")
        assert set(info.devices()) <= set(info.default_costs), info.name


@pytest.mark.skipif(any(__import__("os").path.exists(p) for p in ("/dev/nvidiactl", "/dev/nvidia0", "/dev/kfd")),
                    reason="with a GPU driver, asking for CUDA devices imports torch by design")
def test_asking_for_devices_imports_no_framework_without_a_gpu_driver():
    code = (
        "import sys, tensorca.engines as e\n"
        "print([i.devices() for i in e.engine_infos()])\n"
        "print('torch' in sys.modules, 'numba' in sys.modules, 'triton' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1].split() == ["False", "False", "False"]


def test_a_lazy_target_naming_a_missing_class_is_an_engine_error():
    register_lazy(EngineInfo("no-class", "tensorca.engines.numpy_reference:NoSuchEngine"))
    try:
        with pytest.raises(EngineError, match="has no NoSuchEngine"):
            get_engine("no-class")
    finally:
        unregister("no-class")
