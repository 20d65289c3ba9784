"""tensorca bench: well-formed JSON with every engine, a plot, a calibration the cost model reads."""

from __future__ import annotations

import json
import time

import pytest

from tensorca import bench, costmodel
from tensorca.benchmark import calibrate as calibration
from tensorca.benchmark.calibrate import NoisyCalibrationWarning, fit, fit_runs
from tensorca.benchmark.measure import median_time, time_calls
from tensorca.benchmark.sweep import BenchReport, BenchRow, EngineSummary, crossovers
from tensorca.cli import main
from tensorca.cli.bench import machine_line
from tensorca.engines import engine_names


def test_time_calls_returns_one_positive_time_per_repeat():
    times = time_calls(lambda: sum(range(1000)), repeats=4, warmup=1)
    assert len(times) == 4 and all(t > 0 for t in times)
    assert 0.005 <= median_time(lambda: time.sleep(0.005), repeats=3) < 0.5


def test_crossovers_mark_where_the_leader_changes():
    rows = [BenchRow("a", "cpu", "eager", "grid", 1, s, s, 1, 1.0, c) for s, c in ((64, 10), (128, 10), (256, 10))]
    rows += [BenchRow("b", "cpu", "eager", "grid", 1, s, s, 1, 1.0, c) for s, c in ((64, 5), (128, 20), (256, 30))]
    found = crossovers(rows)
    assert found == [{"sweep": "grid", "from": "a@cpu", "to": "b@cpu", "cells": 8192, "between": [4096, 16384]}]


@pytest.fixture(scope="module")
def quick_json(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    code = main(["bench", "--quick", "--budget", "0.3", "--json", str(out / "b.json"), "--plot", str(out / "b.png")])
    assert code == 0
    return out


def test_bench_quick_json_is_well_formed_with_every_engine(quick_json):
    data = json.loads((quick_json / "b.json").read_text())
    assert data["format"] == "tensorca-bench/1" and data["quick"] is True and data["rule"] == "B3/S23"
    names = {e["engine"] for e in data["engines"]}
    assert names == set(engine_names())
    for e in data["engines"]:
        if e["available"]:
            # One call of one generation took time; the steady figure is one of the measured grid points.
            assert e["call_s"] + e["gen_s"] > 0
            peak = [r for r in data["rows"] if r["sweep"] == "grid" and r["cells"] == e["steady_cells"]
                    and (r["engine"], r["device"]) == (e["engine"], e["device"])]
            assert peak and peak[0]["cups"] == e["steady_cups"]
        else:
            assert e["reason"]
    for row in data["rows"]:
        assert row["cups"] > 0 and row["seconds"] > 0 and row["cells"] == row["batch"] * row["height"] * row["width"]
    measured = {(r["engine"], r["sweep"]) for r in data["rows"]}
    for e in data["engines"]:
        if e["available"]:
            assert (e["engine"], "grid") in measured and (e["engine"], "batch") in measured
    assert (quick_json / "b.png").stat().st_size > 10_000
    # Where the figures come from, with the vector width the Numba kernels were compiled for.
    machine = data["machine"]
    assert machine["cpus"] >= 1 and machine["numpy"]
    if "numba" in machine:
        from tensorca._numba import VECTORS

        assert machine["numba_vectors"] == VECTORS


def test_machine_line_names_what_was_measured_on():
    line = machine_line({"cpu": "Xeon", "cpus": 2, "numpy": "2.4", "numba": "0.68", "gpu": "NVIDIA H200",
                         "numba_vectors": "512-bit (AVX-512, LLVM's prefer-256-bit off)", "load_average": 0.1})
    assert line == ("Xeon, 2 CPUs; NVIDIA H200; numpy 2.4; numba 0.68; "
                    "Numba vectors: 512-bit (AVX-512, LLVM's prefer-256-bit off)")
    assert machine_line({"cpu": "", "cpus": 4, "numpy": "2.4"}) == "CPU, 4 CPUs; numpy 2.4"


def test_calibrate_saves_values_the_cost_model_uses(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORCA_CACHE_DIR", str(tmp_path))
    costmodel._load_calibration.cache_clear()
    report = bench(["numpy"], quick=True, budget_s=0.2)
    values = fit(report)
    assert set(values) == {"numpy@cpu"} and values["numpy@cpu"]["cell_s"] > 0
    costmodel.save_calibration(values)
    assert costmodel.costs("numpy@cpu").cell_s == pytest.approx(values["numpy@cpu"]["cell_s"])
    costmodel._load_calibration.cache_clear()


def _report(cell_s: float, call_s: float = 1e-5) -> BenchReport:
    summary = EngineSummary("numpy", "cpu", True, call_s=call_s, gen_s=1e-5, steady_cups=1 / cell_s,
                            steady_cells=10**6, call_cell_s=0.0)
    return BenchReport("B3/S23", True, {}, [], [summary], [], 1.0)


def test_repeated_calibration_keeps_the_median_and_flags_spread():
    steady = fit_runs([_report(2e-9), _report(2.1e-9), _report(2.05e-9)])
    assert steady.values["numpy@cpu"]["cell_s"] == pytest.approx(fit(_report(2.05e-9))["numpy@cpu"]["cell_s"])
    assert steady.noisy == []
    # One run on a busy machine: the median ignores it, and the spread is reported.
    noisy = fit_runs([_report(2e-9), _report(20e-9, call_s=1e-3), _report(2.1e-9)])
    assert noisy.values["numpy@cpu"]["cell_s"] == pytest.approx(fit(_report(2.1e-9))["numpy@cpu"]["cell_s"])
    assert noisy.values["numpy@cpu"]["call_s"] == pytest.approx(1e-5)
    assert any(line.startswith("numpy@cpu cell_s") for line in noisy.noisy)
    assert any(line.startswith("numpy@cpu call_s") for line in noisy.noisy)


def test_calibrate_runs_the_sweep_again_and_warns_when_runs_disagree(monkeypatch):
    later = iter([_report(20e-9), _report(2.1e-9)])
    monkeypatch.setattr(calibration, "bench", lambda **options: next(later))
    with pytest.warns(NoisyCalibrationWarning, match="numpy@cpu cell_s"):
        result = calibration.calibrate(_report(2e-9), runs=3, families=False)
    assert len(result.reports) == 3
    assert result.values["numpy@cpu"]["cell_s"] == pytest.approx(fit(_report(2.1e-9))["numpy@cpu"]["cell_s"])


def test_bench_prints_install_hints_with_their_brackets(capsys, monkeypatch):
    """An engine whose extra is missing is 'not measured' with the command that adds it, brackets
    and all (rich markup would take ``[torch]`` for a style and print ``pip install 'tensorca'``)."""
    import tensorca.benchmark
    from tensorca.engines.registry import engine_info
    from tensorca.errors import MissingDependencyError

    hint = engine_info("torch").install
    assert hint == "pip install 'tensorca[torch]'"
    missing = MissingDependencyError("backend 'torch' could not import torch", package="torch", install=hint)
    measured = EngineSummary("numpy", "cpu", True, call_s=1e-5, gen_s=1e-5, steady_cups=1e8, steady_cells=10**6)
    report = BenchReport("B3/S23", True, {}, [], [measured, EngineSummary("torch", "-", False, str(missing))], [], 1.0)
    monkeypatch.setattr(tensorca.benchmark, "bench", lambda *args, **kwargs: report)
    assert main(["bench", "--quick"]) == 0
    out = capsys.readouterr().out
    assert "torch: not measured" in out and "pip install 'tensorca[torch]'" in out, out
