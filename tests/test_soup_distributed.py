"""The distributed soup census: the same census and samples on one process or many, exact merges,
a lost worker's task run again, Ctrl-C's partial census, the command line, hostile arguments."""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import pytest

from tensorca.cli import main
from tensorca.cluster import ClusterError, connect
from tensorca.errors import RuleError, UsageError
from tensorca.io.haul import parse_haul
from tensorca.search.distributed import (
    CensusInterrupted,
    TaskResult,
    merge,
    plan_tasks,
    soup_census,
)
from tensorca.search.hashsoup import hashsoups
from tensorca.search.soups import soup_search

pytest.importorskip("distributed")

SEED = "k_tensorca_test"
COUNT = 24


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=":0") as cluster, Client(cluster, set_as_default=False) as joined:
        yield joined


@pytest.fixture(scope="module")
def reference():
    """The census of COUNT soups in this process, in one task."""
    return soup_census(COUNT, SEED, task_soups=COUNT, backend="bitpack-cpu")


def test_one_worker_or_two_give_the_same_census(client, reference):
    spread = soup_census(COUNT, SEED, client=client, task_soups=5, backend="bitpack-cpu")
    assert spread.tasks == 5 and spread.where.startswith("2 workers at tcp://127.0.0.1:")
    for field in ("counts", "samples", "soups", "generations", "unstable", "escaped"):
        assert getattr(spread, field) == getattr(reference, field), field
    assert reference.soups == COUNT and reference.objects > 10 * COUNT  # ~20 objects a soup


def test_the_census_is_the_soups_own(reference):
    """Soup i of the census is apgsearch's soup i: the same grids through soup_search give the same counts."""
    direct = soup_search(COUNT, "B3/S23", grids=hashsoups(SEED, 0, COUNT), backend="bitpack-cpu", batch=7)
    assert direct.counts == reference.counts
    for code, kept in reference.samples.items():
        assert kept == sorted(kept) and len(kept) <= 10 and all(0 <= i < COUNT for i in kept), code
    assert len(reference.samples["xs4_33"]) == 10  # blocks are everywhere: ten samples kept, no more


def test_merge_adds_counts_and_keeps_the_ten_lowest_samples():
    a = TaskResult(0, 50, {"xs4_33": 5, "xp2_7": 1}, {"xs4_33": [1, 3, 5, 7, 9, 11, 13, 15, 17, 19], "xp2_7": [40]},
                   100, 1, 0, 1.0, "numpy")
    b = TaskResult(50, 80, {"xs4_33": 2, "xq4_153": 4}, {"xs4_33": [50, 51], "xq4_153": [60, 61]}, 50, 0, 4, 2.0,
                   "bitpack-cpu")
    c = TaskResult(80, 81, {"xs4_33": 1}, {"xs4_33": [0]}, 7, 0, 0, 0.5, "numpy",
                   {"stepping": 0.25, "census": 0.125, "bands": 0.0})
    a.phases = {"stepping": 0.5, "census": 0.25, "bands": 0.125}
    merged = merge([b, c, a], seed="s", rule="B3/S23", requested=81, seconds=3.0, where="here")
    assert merged.counts == {"xs4_33": 8, "xq4_153": 4, "xp2_7": 1}
    assert list(merged.counts) == ["xs4_33", "xq4_153", "xp2_7"]  # most common first
    assert merged.samples["xs4_33"] == [0, 1, 3, 5, 7, 9, 11, 13, 15, 17]
    assert merged.samples["xq4_153"] == [60, 61] and merged.samples["xp2_7"] == [40]
    assert (merged.soups, merged.generations, merged.unstable, merged.escaped) == (81, 157, 1, 4)
    assert merged.task_seconds == [1.0, 2.0, 0.5] and merged.engines == ["bitpack-cpu", "numpy"]
    assert merged.phases == {"stepping": 0.75, "census": 0.375, "bands": 0.125}  # b had none
    assert merged.to_json()["phases"] == merged.phases


def test_tasks_are_ten_thousand_soups_or_fewer_when_the_count_is_small():
    assert plan_tasks(10**6, 4) == [(i, i + 10_000) for i in range(0, 10**6, 10_000)]
    assert plan_tasks(3000, 2) == [(0, 1500), (1500, 3000)]
    assert plan_tasks(3001, 2) == [(0, 1501), (1501, 3001)]
    assert plan_tasks(10, 4) == [(0, 3), (3, 6), (6, 9), (9, 10)]
    assert plan_tasks(0, 4) == []
    assert plan_tasks(25, 1, 10) == [(0, 10), (10, 20), (20, 25)]


def test_a_lost_workers_task_runs_again(client, reference):
    """Kill the worker process running a task: the nanny restarts it, the scheduler reruns the task."""
    found: dict = {}

    def census() -> None:
        found["census"] = soup_census(COUNT, SEED, client=client, task_soups=6, backend="bitpack-cpu")

    thread = threading.Thread(target=census)
    thread.start()
    deadline, victim = time.monotonic() + 60, None
    while victim is None and time.monotonic() < deadline and thread.is_alive():
        busy = [w for w, keys in client.processing().items() if any("tensorca-soups" in str(k) for k in keys)]
        victim = busy[0] if busy else None
        time.sleep(0.05)
    assert victim is not None, "no task was seen running"
    os.kill(client.run(os.getpid, workers=[victim])[victim], signal.SIGKILL)
    thread.join(timeout=180)
    assert not thread.is_alive() and "census" in found
    assert found["census"].counts == reference.counts and found["census"].samples == reference.samples
    client.wait_for_workers(2, timeout=60)
    assert victim not in client.scheduler_info()["workers"]  # the worker really was replaced


def test_ctrl_c_cancels_and_returns_the_finished_tasks(client):
    seen = []

    def interrupt_after_first(done: int, total: int) -> None:
        seen.append(done)
        raise KeyboardInterrupt

    with pytest.raises(CensusInterrupted) as stop:
        soup_census(COUNT, SEED, client=client, task_soups=4, backend="bitpack-cpu", progress=interrupt_after_first)
    partial = stop.value.result
    assert partial.interrupted and partial.soups == seen[0] and 0 < partial.soups < COUNT
    assert partial.requested == COUNT and sum(partial.counts.values()) > 0


def test_ctrl_c_in_process_keeps_the_soups_finished(monkeypatch):
    calls = []

    def interrupt(done: int, total: int) -> None:
        calls.append(done)
        if len(calls) == 12:
            raise KeyboardInterrupt

    with pytest.raises(CensusInterrupted) as stop:
        soup_census(20, SEED, task_soups=5, backend="bitpack-cpu", progress=interrupt)
    assert stop.value.result.interrupted and 0 < stop.value.result.soups < 20


# -- the command line ----------------------------------------------------------------------------------


def test_cli_workers_and_scheduler_agree_and_write_json_and_haul(client, tmp_path, capsys):
    address = client.scheduler.address
    common = ["soup", "--count", "12", "--seed", SEED, "--backend", "bitpack-cpu", "--no-progress", "--top", "3"]
    assert main([*common, "--scheduler", address, "--json", str(tmp_path / "a.json"),
                 "--haul", str(tmp_path / "a.txt")]) == 0
    assert main([*common, "--haul", str(tmp_path / "b.txt"), "--json", str(tmp_path / "b.json")]) == 0
    out = capsys.readouterr().out
    assert "apgsearch soups" in out and "wrote" in out
    a, b = (json.loads((tmp_path / f"{n}.json").read_text()) for n in "ab")
    assert a["counts"] == b["counts"] and a["samples"] == b["samples"] and a["seed"] == SEED and a["soups"] == 12
    assert a["format"] == "tensorca-census/1" and a["soup_ids"] == "apgsearch-hashsoup"
    haul_a, haul_b = (parse_haul((tmp_path / f"{n}.txt").read_text()) for n in "ab")
    assert haul_a.census == haul_b.census == {k: v for k, v in a["counts"].items() if k != "xs0_0"}
    assert haul_a.root == SEED and haul_a.num_soups == 12 and haul_a.rule == "b3s23"
    assert haul_a.samples == {k: [str(i) for i in v] for k, v in a["samples"].items()}


@pytest.mark.parametrize("argv, message", [
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"], "not both"),
    (["--scheduler", "not an address"], "scheduler address"),
    (["--scheduler", "tcp://127.0.0.1:99999"], "port"),
    (["--workers", "0"], "--workers"),
    (["--workers", "2", "--seed", "a b"], "seed"),
    (["--workers", "2", "--density", "0.3"], "density 0.5"),
    (["--seed", "k_abc"], "root string"),
    (["--task-soups", "5"], "--task-soups applies"),
    (["--haul", "x.json"], "extension"),
])
def test_cli_refuses_bad_census_options(capsys, argv, message):
    assert main(["soup", "--count", "3", *argv]) == 2
    assert message in capsys.readouterr().err


def test_hostile_arguments_are_tensorca_errors():
    with pytest.raises(UsageError, match="seed"):
        soup_census(3, "")
    with pytest.raises(UsageError, match="count"):
        soup_census(-1, SEED)
    with pytest.raises(UsageError, match="workers"):
        soup_census(3, SEED, workers=0)
    with pytest.raises(UsageError, match="one of"):
        soup_census(3, SEED, workers=1, scheduler="tcp://127.0.0.1:8786")
    with pytest.raises(RuleError, match="two-state"):
        soup_census(3, SEED, rule="345/2/4")
    with pytest.raises(UsageError, match="scheduler address"):
        soup_census(3, SEED, scheduler="http://example.org/")


def test_an_unreachable_scheduler_is_a_cluster_error():
    began = time.monotonic()
    with pytest.raises(ClusterError, match="cannot reach the dask scheduler at tcp://127.0.0.1:1"):
        with connect(scheduler="tcp://127.0.0.1:1", timeout=1.0):
            pass
    assert time.monotonic() - began < 30
