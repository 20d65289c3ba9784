"""backend="auto": never an engine that would be wrong, bit-identical results, cheap to decide."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import tensorca
from tensorca import costmodel
from tensorca.engines import EngineCost, EngineInfo, engine_infos, registry
from tensorca.rules import parse_rule
from tensorca.simulate import explain, run
from tensorca.topology import Topology

RULES = ["B3/S23", "B36/S23", "B2-a/S12", "B2/S013V", "B2/S34H", "345/2/4", "B0/S8", "W110",
         "R2,C0,M1,S4..6,B5..6,NM", "R2,C3,M1,S2..3,B3..4,NN",
         "MAPARYXfhZofugWaH7oaIDogBZofuhogOiAaIDogIAAgAAWaH7oaIDogGiA6ICAAIAAaIDogIAAgACAAIAAAAAAAA"]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORCA_CACHE_DIR", str(tmp_path))
    costmodel._load_calibration.cache_clear()
    yield tmp_path
    costmodel._load_calibration.cache_clear()


@pytest.mark.parametrize("text", RULES)
@pytest.mark.parametrize("kind", ["torus", "plane"])
def test_auto_choice_supports_the_rule_and_matches_the_reference(text, kind):
    rule = parse_rule(text)
    grid = (np.random.default_rng(1).random((3, 24, 40)) < 0.4).astype(np.uint8)
    topology = Topology(kind, 40, 24)
    for gens in (1, 40):
        choice = costmodel.choose(rule, topology, 3, (24, 40), gens)
        assert tensorca.get_engine(choice.engine).supports(rule, topology)
        want = run(grid, rule, gens, topology=topology, backend="numpy")
        assert run(grid, rule, gens, topology=topology).tolist() == want.tolist()


def test_auto_never_picks_an_unsupported_engine_even_if_it_is_predicted_free(cache_dir):
    # A calibration that says the bit-packed and baseline engines cost nothing: they must still be
    # skipped for rules they cannot compute (dense-conv runs only B/S Moore; bitpack-cpu every
    # 3x3 table, two-state or Generations, but not range rules).
    free = {"call_s": 0, "gen_s": 0, "cell_s": 1e-15, "compile_s": 0, "import_s": 0, "load_s": 0}
    costmodel.save_calibration({"bitpack-cpu@cpu": free, "dense-conv@cpu": free})
    for text in ("R2,C0,M1,S4..6,B5..6,NM",):
        rule = parse_rule(text)
        choice = costmodel.choose(rule, Topology.torus(64, 64), 1, (64, 64), 100)
        assert choice.engine in ("numpy", "torch"), (text, choice)
    for text in ("B2-a/S12", "B2/S013V", "345/2/4"):
        choice = costmodel.choose(parse_rule(text), Topology.torus(64, 64), 1, (64, 64), 100)
        assert choice.engine == "bitpack-cpu", (text, choice)
    # ... and chosen for a rule they do support.
    choice = costmodel.choose(parse_rule("B3/S23"), Topology.torus(64, 64), 1, (64, 64), 100)
    assert choice.engine in ("bitpack-cpu", "dense-conv")


def test_auto_pattern_on_the_unbounded_plane_matches_the_reference():
    gun = tensorca.load("src/tensorca/data/patterns/gosper_gun.rle")
    a = run(gun, generations=130)
    b = run(gun, generations=130, backend="numpy")
    assert (a.cells == b.cells).all() and a.origin == b.origin and a.generation == b.generation


def test_unbounded_prediction_counts_per_call_overheads():
    rule = parse_rule("B3/S23")
    p1 = costmodel.predict("numpy", "cpu", rule, 1, (10, 10), 640, unbounded=True, kernels="none", warm_process=True)
    assert p1.parts["per_call"] == pytest.approx(10 * costmodel.costs("numpy@cpu").call_s)


def test_transfer_is_counted_when_data_and_engine_are_on_different_devices():
    rule = parse_rule("B3/S23")
    on_host = costmodel.predict("torch", "cuda", rule, 1, (1024, 1024), 10, data_device="cpu", warm_process=True)
    on_gpu = costmodel.predict("torch", "cuda", rule, 1, (1024, 1024), 10, data_device="cuda", warm_process=True)
    assert on_host.parts["transfer"] > 0 and on_gpu.parts["transfer"] == 0


def test_compile_cost_counts_for_cold_kernels():
    rule = parse_rule("B3/S23")
    cold = costmodel.predict("bitpack-cpu", "cpu", rule, 1, (64, 64), 10, kernels="cold", warm_process=True)
    warm = costmodel.predict("bitpack-cpu", "cpu", rule, 1, (64, 64), 10, kernels="loaded", warm_process=True)
    assert cold.total - warm.total == pytest.approx(costmodel.costs("bitpack-cpu@cpu").compile_s)
    # A short run does not pay a compile: numpy wins; a long run on a big grid amortises it.
    short = costmodel.rank(rule, Topology.torus(64, 64), 1, (64, 64), 5)
    assert short[0].engine == "numpy" or short[0].parts["compile"] == 0


def test_calibration_overrides_defaults_and_bad_files_are_ignored(cache_dir):
    assert costmodel.costs("numpy@cpu") == costmodel.default_costs("numpy@cpu")
    costmodel.save_calibration({"numpy@cpu": {"gen_s": 1.0, "family_cell": {"ltl": 9.0}, "bogus": 3}})
    c = costmodel.costs("numpy@cpu")
    assert c.gen_s == 1.0 and c.family_cell["ltl"] == 9.0 and c.call_s == costmodel.default_costs("numpy@cpu").call_s
    (cache_dir / "costmodel.json").write_text("{not json")
    costmodel._load_calibration.cache_clear()
    assert costmodel.costs("numpy@cpu") == costmodel.default_costs("numpy@cpu")
    (cache_dir / "costmodel.json").write_text(json.dumps({"version": 999, "engines": {"numpy@cpu": {"gen_s": 5}}}))
    costmodel._load_calibration.cache_clear()
    assert costmodel.costs("numpy@cpu").gen_s == costmodel.default_costs("numpy@cpu").gen_s


def test_explain_lists_the_choice_first_and_its_parts():
    grid = np.zeros((2, 32, 32), np.uint8)
    choice = explain(grid, "345/2/4", 10)
    text = choice.describe()
    assert text.startswith(f"auto chose {choice.engine} on {choice.device}")
    assert "numpy@cpu" in text and "per_generation" in text


def test_explicit_backends_still_work_and_unknown_ones_list_auto_free_names():
    grid = np.zeros((8, 8), np.uint8)
    assert run(grid, "B3/S23", 2, backend="numpy").shape == (8, 8)
    with pytest.raises(tensorca.EngineError, match="unknown backend 'nope'.*numpy"):
        run(grid, "B3/S23", 2, backend="nope")


def test_deciding_imports_no_framework_for_a_small_numpy_run():
    code = (
        "import sys, numpy as np, tensorca\n"
        "out = tensorca.run(np.zeros((2, 16, 16), np.uint8), 'B2-a/S12', 3)\n"
        "print('torch' in sys.modules, 'numba' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]


@pytest.mark.parametrize("text, family, scale", [
    ("B3/S23", "moore", 1.0), ("B36/S23", "moore", 1.0), ("B2-a/S12", "table", 1.0), ("B2/S013V", "table", 1.0),
    ("W110", "table", 1.0), ("345/2/4", "generations", 1.0), ("R2,C0,M1,S4..6,B5..6,NM", "ltl", 5 / 11),
    ("R5,C0,M1,S34..58,B34..45,NM", "ltl", 1.0),
])
def test_rule_class_reads_the_step_spec(text, family, scale):
    assert costmodel.rule_class(parse_rule(text)) == (family, pytest.approx(scale))


def test_cost_model_names_no_engine():
    """Every engine fact comes from the registry: the module has no per-engine table."""
    source = Path(costmodel.__file__).read_text()
    for info in engine_infos():
        assert f'"{info.name}' not in source and f"'{info.name}" not in source, info.name


def test_defaults_come_from_the_registry():
    for info in engine_infos():
        for device, cost in info.default_costs.items():
            assert costmodel.default_costs(f"{info.name}@{device}") is cost
    # A device an engine has no figures for falls back to its CPU figures; an unknown engine to plain defaults.
    assert costmodel.default_costs("numpy@cuda") is costmodel.default_costs("numpy@cpu")
    assert costmodel.default_costs("no-such-engine@cpu") == EngineCost()


#: Frameworks hidden to pretend a base install.
ABSENT = ("numba", "torch", "triton")


@pytest.fixture
def fresh_suggestions(monkeypatch):
    monkeypatch.setattr(costmodel, "_SUGGESTED", set())


def test_a_missing_faster_engine_is_suggested_once(fresh_suggestions):
    registry.register_lazy(EngineInfo("absent-fast", "tensorca_no_such_module:Engine",
                                      requires=("tensorca_no_such_module",), install="pip install 'tensorca[absent]'",
                                      default_costs={"cpu": EngineCost(call_s=0, gen_s=0, cell_s=1e-15)}))
    try:
        rule, torus = parse_rule("B3/S23"), Topology.torus(4096, 4096)  # seconds even on the tiled path
        with pytest.warns(costmodel.PerformanceWarning, match=r"absent-fast.*pip install 'tensorca\[absent\]'"):
            choice = costmodel.choose(rule, torus, 1, (4096, 4096), 20000)
        assert choice.engine != "absent-fast"
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            costmodel.choose(rule, torus, 1, (4096, 4096), 20000)  # once per process
            costmodel.choose(rule, Topology.torus(16, 16), 1, (16, 16), 1)  # small jobs never warn
    finally:
        registry.unregister("absent-fast")


def test_numpy_fallback_for_a_large_job_names_the_fast_extra(fresh_suggestions, monkeypatch):
    """Without Numba (and torch), a large job runs on NumPy and says once how to make it faster."""
    real = registry.installed
    monkeypatch.setattr(registry, "installed", lambda module: module not in ABSENT and real(module))
    with pytest.warns(costmodel.PerformanceWarning, match=r"bitpack-cpu.*numba.*pip install 'tensorca\[fast\]'"):
        choice = costmodel.choose(parse_rule("B3/S23"), Topology.torus(1024, 1024), 1, (1024, 1024), 20000)
    assert choice.engine == "numpy"


# --- repeated small runs: rent, then buy ----------------------------------------------------------


def _prediction(engine, per_run, once=0.0):
    parts = {"import": once / 2, "compile": once / 2, "compute": per_run}
    return costmodel.Prediction(engine, "cpu", per_run + once, parts)


def test_repeated_runs_pay_a_one_time_cost_once_it_has_been_forgone(monkeypatch):
    """NumPy at 5 ms a run against bitpack-cpu at 0.5 ms once its 0.2 s import and compile are
    paid: ``auto`` stays on NumPy until the runs it gave NumPy would have saved 0.2 s on
    bitpack-cpu (45 runs of 4.5 ms), then switches and says why; the total stays within twice the
    best in hindsight."""
    fixed = [_prediction("numpy", 0.005), _prediction("bitpack-cpu", 0.0005, once=0.2)]
    monkeypatch.setattr(costmodel, "_predict_all", lambda *args, **kwargs: list(fixed))
    rule, torus = parse_rule("B3/S23"), Topology.torus(1024, 1024)
    picks = [costmodel.choose(rule, torus, 1, (1024, 1024), 1) for _ in range(60)]
    engines = [choice.engine for choice in picks]
    assert engines[:44] == ["numpy"] * 44 and engines[44] == "bitpack-cpu"
    assert "would have saved 0.203 s on bitpack-cpu" in picks[44].describe()
    assert picks[44].predictions[0].engine == "bitpack-cpu" and not picks[0].reason
    paid = 44 * 0.005 + 0.2 + 0.0005
    assert paid <= 2 * (0.2 + 45 * 0.0005)


def test_no_switch_when_the_warm_engine_is_not_faster_and_accounts_are_per_rule(monkeypatch):
    fixed = [_prediction("numpy", 0.005), _prediction("bitpack-cpu", 0.006, once=0.01)]
    monkeypatch.setattr(costmodel, "_predict_all", lambda *args, **kwargs: list(fixed))
    torus = Topology.torus(64, 64)
    assert {costmodel.choose(parse_rule("B3/S23"), torus, 1, (64, 64), 1).engine for _ in range(50)} == {"numpy"}
    fixed[1] = _prediction("bitpack-cpu", 0.001, once=0.0199)  # 4 ms saved a run: the fifth run buys
    assert [costmodel.choose(parse_rule("B36/S23"), torus, 1, (64, 64), 1).engine for _ in range(5)] == \
        ["numpy"] * 4 + ["bitpack-cpu"]
    assert costmodel.choose(parse_rule("B2/S"), torus, 1, (64, 64), 1).engine == "numpy"  # a new rule's own account


def test_an_engine_that_cannot_run_the_rule_is_never_bought(monkeypatch):
    fixed = [_prediction("numpy", 0.005), _prediction("bitpack-cpu", 0.0005, once=0.001)]
    monkeypatch.setattr(costmodel, "_predict_all", lambda *args, **kwargs: list(fixed))
    rule = parse_rule("R2,C0,M1,S4..6,B5..6,NM")  # range 2: not a 3x3 rule
    picks = {costmodel.choose(rule, Topology.torus(64, 64), 1, (64, 64), 1).engine for _ in range(10)}
    assert picks == {"numpy"}


def test_a_loop_of_one_generation_runs_moves_to_the_fast_engine():
    """For real, in a new process: a 512^2 grid stepped a generation a call under ``auto`` starts on
    NumPy (bitpack-cpu's import and kernels not yet paid) and ends on bitpack-cpu, the same cells
    as the reference all the way. (bitpack-cpu's one-time costs are priced at 20 ms each here, so
    that the switch comes within the 200 runs whether or not the kernels are compiled yet.)"""
    code = (
        "import dataclasses, numpy as np, tensorca\n"
        "from tensorca import costmodel\n"
        "real = costmodel.costs\n"
        "def costs(key):\n"
        "    c = real(key)\n"
        "    if key != 'bitpack-cpu@cpu':\n"
        "        return c\n"
        "    return dataclasses.replace(c, import_s=0.02, load_s=0.02, compile_s=0.02)\n"
        "costmodel.costs = costs\n"
        "rule = tensorca.parse_rule('B3/S23')\n"
        "grid = tensorca.random_soup(512, 512, seed=3)\n"
        "want = grid.copy()\n"
        "first = tensorca.explain(grid, rule, 1).engine\n"
        "for _ in range(200):\n"
        "    grid = tensorca.run(grid, rule, 1)\n"
        "    want = tensorca.run(want, rule, 1, backend='numpy')\n"
        "print(first, tensorca.explain(grid, rule, 1).engine, bool((grid == want).all()))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["numpy", "bitpack-cpu", "True"], done.stdout + done.stderr


def test_a_repeated_job_is_decided_once_until_something_it_depends_on_changes(cache_dir, monkeypatch):
    """The same job again takes the remembered decision; a new calibration file, a framework
    imported or an engine registered since makes ``auto`` rank the engines again."""
    real = costmodel._predict_all
    ranked = []
    monkeypatch.setattr(costmodel, "_predict_all", lambda *args, **kwargs: ranked.append(1) or real(*args, **kwargs))
    rule, torus = parse_rule("B3/S23"), Topology.torus(64, 64)
    first = costmodel.choose(rule, torus, 1, (64, 64), 10)
    again = costmodel.choose(rule, torus, 1, (64, 64), 10)
    assert len(ranked) == 1 and (again.engine, again.predictions) == (first.engine, first.predictions)
    costmodel.choose(rule, torus, 1, (64, 64), 11)  # another job
    assert len(ranked) == 2
    costmodel.save_calibration({"numpy@cpu": {"cell_s": 1e-9}})
    costmodel.choose(rule, torus, 1, (64, 64), 10)
    assert len(ranked) == 3
    imports = costmodel._imports  # numpy's framework, as if it were one to import: then imported
    monkeypatch.setattr(costmodel, "_imports", lambda name: "tensorca_not_yet" if name == "numpy" else imports(name))
    costmodel.choose(rule, torus, 1, (64, 64), 10)
    assert len(ranked) == 3
    monkeypatch.setitem(sys.modules, "tensorca_not_yet", sys)
    costmodel.choose(rule, torus, 1, (64, 64), 10)
    assert len(ranked) == 4
    registry.register_lazy(EngineInfo("another", "tensorca_no_such_module:Engine", requires=()))
    try:
        costmodel.choose(rule, torus, 1, (64, 64), 10)
        assert len(ranked) == 5
    finally:
        registry.unregister("another")
