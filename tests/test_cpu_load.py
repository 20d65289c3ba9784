"""Free-core readings (``tensorca.cpu_load``): the retry that drops a spurious reading, the cap
from real busy processes, and the thread settings restored after a capped block."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from tensorca import cpu_load


def scripted(readings: list[int | None]):
    """A reader returning ``readings`` in turn, and the list of calls it answered."""
    calls: list[int | None] = []

    def read() -> int | None:
        value = readings[len(calls)]
        calls.append(value)
        return value

    return read, calls


@pytest.mark.parametrize(
    ("readings", "least", "taken"),
    [
        ([0], 0, 1),  # quiet: one reading
        ([None], None, 1),  # /proc cannot tell: no retry
        ([1, 0], 0, 2),  # a passing thread: the second reading clears it
        ([2, 1, 1, 0], 0, 4),
        ([1, 1, 1, 1], 1, 4),  # load in every reading is load
        ([3, 2, 3, 2], 2, 4),  # the least seen counts
        ([2, None], 2, 2),  # a failed retry keeps what was read
    ],
)
def test_least_load_retries_only_while_it_sees_load(readings, least, taken):
    read, calls = scripted(readings + [0] * 4)
    assert cpu_load.least_load(read, samples=4, gap_s=0.0) == least
    assert len(calls) == taken


def test_least_load_spaces_its_readings():
    read, _ = scripted([1, 1, 1, 1])
    t0 = time.perf_counter()
    cpu_load.least_load(read, samples=4, gap_s=0.01)
    assert time.perf_counter() - t0 >= 0.03


@pytest.fixture
def fresh_reading(monkeypatch):
    """free_cores reads afresh (no cached answer) within the test."""
    monkeypatch.setattr(cpu_load, "_cache", [-1.0, 0.0])


def test_free_cores_ignores_one_spurious_reading(monkeypatch, fresh_reading):
    read, calls = scripted([1, 0])
    monkeypatch.setattr(cpu_load, "_runnable_elsewhere", read)
    assert cpu_load.free_cores() == cpu_load.usable_cores()
    assert len(calls) == 2


def test_free_cores_counts_steady_load_and_keeps_one_core(monkeypatch, fresh_reading):
    cores = cpu_load.usable_cores()
    monkeypatch.setattr(cpu_load, "_runnable_elsewhere", lambda: cores + 5)
    monkeypatch.setattr(cpu_load, "SAMPLE_GAP_S", 0.0)
    assert cpu_load.free_cores() == 1


def test_free_cores_without_proc_counts_every_core(monkeypatch, fresh_reading):
    monkeypatch.setattr(cpu_load, "_runnable_elsewhere", lambda: None)
    assert cpu_load.free_cores() == cpu_load.usable_cores()


def test_free_cores_is_cached(monkeypatch, fresh_reading):
    read, calls = scripted([0, 0])
    monkeypatch.setattr(cpu_load, "_runnable_elsewhere", read)
    first = cpu_load.free_cores()
    assert cpu_load.free_cores() == first
    assert len(calls) == 1


@pytest.mark.skipif(not os.path.exists("/proc/loadavg"), reason="reads /proc (Linux)")
def test_busy_processes_on_every_core_leave_one(fresh_reading):
    cores = min(cpu_load.usable_cores(), 16)
    if cores < cpu_load.usable_cores():
        pytest.skip("more cores than this test keeps busy")
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(cores)]
    try:
        time.sleep(0.5)  # let them start spinning
        assert cpu_load.free_cores() == 1
    finally:
        for proc in spinners:
            proc.kill()
            proc.wait()


def test_thread_caps_restore_the_setting():
    numba = pytest.importorskip("numba")
    before = numba.get_num_threads()
    with cpu_load.numba_threads(numba, 1) as used:
        assert used == 1 and numba.get_num_threads() == 1
    assert numba.get_num_threads() == before
    with cpu_load.numba_threads(numba, before + 10) as used:  # a cap above the setting changes nothing
        assert used == before
    assert numba.get_num_threads() == before


def test_torch_thread_setting_is_restored_after_an_error():
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    with pytest.raises(RuntimeError, match="inside"):
        with cpu_load.torch_threads(torch, 1):
            assert torch.get_num_threads() == 1
            raise RuntimeError("inside")
    assert torch.get_num_threads() == before


def test_a_single_thread_setting_reads_no_load(monkeypatch, fresh_reading):
    numba = pytest.importorskip("numba")

    def unread():
        raise AssertionError("free cores read with nothing to cap")

    monkeypatch.setattr(cpu_load, "_runnable_elsewhere", unread)
    with cpu_load.numba_threads(numba, 1):
        with cpu_load.numba_threads_capped(numba) as used:
            assert used == 1
    before = numba.get_num_threads()
    if before > 1:  # above 1 the reading is taken (and here answers: every core free)
        monkeypatch.setattr(cpu_load, "_runnable_elsewhere", lambda: 0)
        with cpu_load.numba_threads_capped(numba) as used:
            assert used == min(before, cpu_load.usable_cores())

