"""tensorca bench: well-formed JSON with every engine, a plot, a calibration the cost model reads."""

from __future__ import annotations

import json

import pytest

from tensorca import costmodel
from tensorca import bench
from tensorca.benchmark.calibrate import fit
from tensorca.benchmark.measure import median_time, time_calls
from tensorca.benchmark.sweep import BenchRow, crossovers
from tensorca.cli import main
from tensorca.engines import engine_names


def test_time_calls_returns_one_positive_time_per_repeat():
    times = time_calls(lambda: sum(range(1000)), repeats=4, warmup=1)
    assert len(times) == 4 and all(t > 0 for t in times)
    assert median_time(lambda: None, repeats=3) >= 0


def test_crossovers_mark_where_the_leader_changes():
    rows = [BenchRow("a", "cpu", "eager", "grid", 1, s, s, 1, 1.0, cups) for s, cups in ((64, 10), (128, 10), (256, 10))]
    rows += [BenchRow("b", "cpu", "eager", "grid", 1, s, s, 1, 1.0, cups) for s, cups in ((64, 5), (128, 20), (256, 30))]
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
            assert e["call_s"] >= 0 and e["gen_s"] >= 0 and e["steady_cups"] > 0
        else:
            assert e["reason"]
    for row in data["rows"]:
        assert row["cups"] > 0 and row["seconds"] > 0 and row["cells"] == row["batch"] * row["height"] * row["width"]
    measured = {(r["engine"], r["sweep"]) for r in data["rows"]}
    for e in data["engines"]:
        if e["available"]:
            assert (e["engine"], "grid") in measured and (e["engine"], "batch") in measured
    assert (quick_json / "b.png").stat().st_size > 10_000


def test_calibrate_saves_values_the_cost_model_uses(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORCA_CACHE_DIR", str(tmp_path))
    costmodel._load_calibration.cache_clear()
    report = bench(["numpy"], quick=True, budget_s=0.2)
    values = fit(report)
    assert set(values) == {"numpy@cpu"} and values["numpy@cpu"]["cell_s"] > 0
    costmodel.save_calibration(values)
    assert costmodel.costs("numpy@cpu").cell_s == pytest.approx(values["numpy@cpu"]["cell_s"])
    costmodel._load_calibration.cache_clear()
