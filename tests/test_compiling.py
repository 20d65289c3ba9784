"""Compiles made visible (tensorca.compiling), cached where the user says (tensorca.cache_dirs), done
ahead (tensorca.warmup) or in the background while a run starts on a ready engine (tensorca.background,
tensorca.engines.tiered)."""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tensorca import background, cache_dirs, compiling
from tensorca.warmup import WarmJob, split, warm_all

pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parents[1]


def _tensorca(args: list[str], cache: Path, **env: str) -> subprocess.CompletedProcess:
    """``tensorca ARGS`` in a fresh process whose caches are under ``cache`` (empty: a cold start)."""
    environ = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    environ.update(TENSORCA_CACHE_DIR=str(cache), TENSORCA_BACKGROUND_COMPILE="0", **env)
    return subprocess.run([sys.executable, "-m", "tensorca", *args], capture_output=True, text=True,
                          env=environ, cwd=ROOT, timeout=600)


def test_cache_subpath_is_numbas_layout_without_the_install_path():
    """Numba's layout (folder name, SHA-1), but of the folder's place in the package, so that kernels
    compiled where the wheel was built have the same place in every install; other files keep Numba's."""
    import hashlib

    from numba.core.caching import _CacheLocator

    assert cache_dirs.cache_subpath("/tmp/x/y/gen.py") == _CacheLocator.get_suitable_cache_subpath("/tmp/x/y/gen.py")
    search = Path(cache_dirs.__file__).parent / "search" / "soups.py"
    assert cache_dirs.cache_subpath(search) == "search_" + hashlib.sha1(b"tensorca/search").hexdigest()
    assert cache_dirs.cache_subpath(cache_dirs.__file__) == "tensorca_" + hashlib.sha1(b"tensorca").hexdigest()


def test_cache_root_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("TENSORCA_CACHE_DIR", str(tmp_path / "mine"))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    assert cache_dirs.cache_root() == tmp_path / "mine"
    assert cache_dirs.numba_cache_dir() == tmp_path / "mine" / "numba"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba-own"))
    assert cache_dirs.numba_cache_dir() == tmp_path / "numba-own"  # Numba's own variable wins for kernels
    monkeypatch.delenv("TENSORCA_CACHE_DIR")
    assert cache_dirs.cache_root().name == "tensorca"  # the per-user cache


def test_a_cold_compile_is_announced_once_cached_in_the_cache_dir_and_silent_when_warm(tmp_path):
    args = ["run", "--soup", "48x40", "--gens", "3", "--seed", "1", "--backend", "bitpack-cpu", "--no-progress"]
    cold = _tensorca(args, tmp_path)
    assert cold.returncode == 0, cold.stderr
    lines = [line for line in cold.stderr.splitlines() if line.startswith("tensorca: compiling")]
    assert lines == [f"tensorca: compiling bit-packed CPU kernels (first use on this machine; cached in "
                     f"{tmp_path / 'numba'})"], cold.stderr
    assert list((tmp_path / "numba").rglob("*.nbi")), "Numba's cache is not under TENSORCA_CACHE_DIR/numba"
    warm = _tensorca(args, tmp_path)
    assert warm.returncode == 0 and "compiling" not in warm.stderr, warm.stderr
    def population(out: str) -> str:
        return " ".join(next(line for line in out.splitlines() if "population" in line).split())

    assert population(warm.stdout) == population(cold.stdout)
    assert "compiling kernels, first use" in cold.stdout and "compiling kernels" not in warm.stdout


def _kernel_module(tmp_path: Path, name: str):
    """A module named like tensorca's generated kernels, holding one Numba function."""
    source = tmp_path / f"{name}.py"
    source.write_text("from numba import njit\n\n@njit\ndef add(a, b):\n    return a + b\n")
    spec = importlib.util.spec_from_file_location(name, source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_compile_seconds_are_counted_and_announced(tmp_path, monkeypatch, caplog):
    import tensorca._numba  # noqa: F401 - installs the listener

    monkeypatch.setattr(compiling, "ANNOUNCE_AFTER", 0.0)
    monkeypatch.setattr(compiling, "_announced", set())
    module = _kernel_module(tmp_path, "tensorca_test_kernels_counted")
    with caplog.at_level(logging.INFO, logger="tensorca.compile"), compiling.measure() as clock:
        assert module.add(2, 3) == 5
    assert clock.seconds > 0
    assert [r.getMessage() for r in caplog.records].count(
        f"compiling kernels of tensorca_test_kernels_counted (first use on this machine; cached in "
        f"{cache_dirs.numba_cache_dir()})") == 1
    with compiling.measure() as again:
        module.add(4, 5)  # compiled: no compile, nothing counted
    assert again.seconds == 0.0


def test_a_users_own_kernels_are_neither_counted_nor_announced(tmp_path, monkeypatch, caplog):
    import tensorca._numba  # noqa: F401

    monkeypatch.setattr(compiling, "ANNOUNCE_AFTER", 0.0)
    module = _kernel_module(tmp_path, "users_own_kernels")
    with caplog.at_level(logging.INFO, logger="tensorca.compile"), compiling.measure() as clock:
        module.add(1, 2)
    assert clock.seconds == 0.0 and not caplog.records


def test_warm_jobs_round_trip_and_split():
    job = WarmJob("engine", "B36/S23", "bitpack-cpu", (2, 30, 40), "plane", 5)
    assert WarmJob.from_json(job.to_json()) == job
    jobs = [WarmJob("soups", generations=i) for i in range(5)]
    assert split(jobs, 2) == [jobs[0::2], jobs[1::2]]
    assert split(jobs[:1], 4) == [jobs[:1]]
    from tensorca.errors import UsageError

    with pytest.raises(UsageError, match="kind"):
        WarmJob.from_json(json.dumps({"kind": "nonsense"}))


def test_warm_all_compiles_in_workers_into_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORCA_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    jobs = [WarmJob("engine", "23/3/3", "bitpack-cpu", (1, 64, 64), "torus", 4),
            WarmJob("engine", "nonsense rule", "bitpack-cpu", (1, 8, 8), "torus", 1)]
    seen = []
    warm_all(jobs, 2, lambda job, seconds, error: seen.append((job.rule, error)))
    assert sorted(seen)[0][0] == "23/3/3" and sorted(seen)[0][1] == ""
    assert "RuleError" in dict(seen)["nonsense rule"]
    from tensorca.engines.bitpack.choice import kernel_state
    from tensorca.rules import parse_rule

    assert kernel_state(parse_rule("23/3/3"), "bitpack-cpu") == "disk"  # another process compiled it


def test_ltl_kernels_compiled_by_another_process_are_on_disk(tmp_path, monkeypatch):
    """ltl-cpu asks Numba's index files by name: compiled in a worker, they read as "disk" here (a module
    renamed without its index pattern made auto run Larger than Life on NumPy after `tensorca warmup`)."""
    monkeypatch.setenv("TENSORCA_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    from tensorca.engines import engine_info
    from tensorca.rules import parse_rule

    rule = parse_rule("R2,C0,M1,S3..8,B4..6,NM")  # not asked before: the answer is kept per cache epoch
    seen = []
    warm_all([WarmJob("engine", rule.canonical(), "ltl-cpu", (1, 32, 32), "torus", 2)], 1,
             lambda job, seconds, error: seen.append(error))
    assert seen == [""]
    assert engine_info("ltl-cpu").kernel_state(rule) == "disk"


def test_index_patterns_name_the_modules_they_ask_about():
    """The index files Numba writes are named after the module file: the patterns kernel_state globs for
    must name the files that exist (the noisy word pass and the Larger than Life sums)."""
    from tensorca.engines import stochastic_steps
    from tensorca.engines.bitpack import noise
    from tensorca.engines.ltl import cpu, sums

    assert cpu._INDEX.split(".")[0] == Path(sums.__file__).stem
    source = Path(stochastic_steps.__file__).parent / "bitpack" / "noise.py"
    assert source == Path(noise.__file__) and hasattr(noise, "noise_pass")


def test_warmup_command_lists_its_jobs_and_runs_a_subset(tmp_path):
    listed = _tensorca(["warmup", "--list"], tmp_path)
    assert listed.returncode == 0 and "HashLife" in listed.stdout and "Larger than Life" in listed.stdout
    done = _tensorca(["warmup", "--only", "Generations rule on bitpack-cpu, 256x256", "--workers", "1"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "any Generations rule on bitpack-cpu, 256x256 plane (generic)" in done.stderr
    assert "warm-up done" in done.stderr
    nothing = _tensorca(["warmup", "--only", "no such job"], tmp_path)
    assert nothing.returncode == 2 and "tensorca: error:" in nothing.stderr


class _Flip:
    """A stand-in for a background compile that finishes after ``polls`` looks."""

    def __init__(self, polls: int):
        self.polls = polls

    def done(self) -> bool:
        self.polls -= 1
        return self.polls < 0

    @property
    def ok(self) -> bool:
        return self.done()


def test_tiered_switches_at_a_safe_point_and_gives_the_reference_cells():
    from tensorca.engines import get_engine
    from tensorca.engines.tiered import Tiered
    from tensorca.random_grids import random_soup
    from tensorca.rules import parse_rule
    from tensorca.topology import Topology

    rule, topology = parse_rule("R2,C0,M1,S2..7,B3..5,NM"), Topology.torus(37, 29)
    cells = random_soup(29, 37, seed=3, batch=2)
    reference = get_engine("numpy").advance(cells, rule, topology, 23)
    tiered = Tiered(get_engine("numpy"), get_engine("ltl-cpu"), _Flip(6), 1.0)
    tiered.slice_generations = 4
    out = tiered.advance(cells, rule, topology, 23)
    assert np.array_equal(out, reference)
    assert [name for name, _ in tiered.ran] == ["numpy", "ltl-cpu"]
    assert sum(gens for _, gens in tiered.ran) == 23 and tiered.ran[0][1] % 4 == 0
    assert tiered.switched() and tiered.name == "ltl-cpu"
    never = Tiered(get_engine("numpy"), get_engine("ltl-cpu"), _Failed(), 1.0)
    assert np.array_equal(never.advance(cells, rule, topology, 23), reference)
    assert never.ran == [("numpy", 23)]  # a failed compile leaves the run on the ready engine
    assert np.array_equal(tiered.advance(cells, rule, topology, 0), cells)


class _Failed:
    def done(self) -> bool:
        return True

    ok = False


def test_background_compiles_can_be_turned_off(monkeypatch):
    monkeypatch.setenv(background.ENV, "0")
    assert not background.enabled()
    assert background.start(WarmJob("soups")) is None


@pytest.mark.slow
def test_an_auto_run_of_an_uncompiled_family_ends_on_the_fast_engine(tmp_path):
    """A fresh cache: auto starts a Larger than Life run on torch, compiles ltl-cpu in a worker
    meanwhile and finishes on it; the cells equal torch's alone (every engine equals the reference)."""
    pytest.importorskip("torch")
    code = """
import json, time
import numpy as np
import tensorca
from tensorca import simulate
grid = tensorca.random_soup(256, 256, seed=4)
rule = "R4,C0,M1,S20..40,B25..33,NM"
decision = simulate.decide(grid, rule, 6000)  # cheaper on torch than compiling first, long enough to tier
state, done, began = grid, 0, time.monotonic()
while time.monotonic() - began < 300:  # slices of one long run (as the tiered engine takes them), until it switches
    state = tensorca.run(state, rule, 200, backend=decision.engine, device=decision.device)
    done += 200
    if decision.engine.switched():
        state = tensorca.run(state, rule, 200, backend=decision.engine, device=decision.device)
        done += 200
        break
same = np.array_equal(state, tensorca.run(grid, rule, done, backend="torch"))
print(json.dumps({"ran": decision.engine.ran, "same": same, "chose": decision.choice.engine,
                  "label": decision.describe_run()}))
"""
    environ = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    environ.update(TENSORCA_CACHE_DIR=str(tmp_path), TENSORCA_BACKGROUND_COMPILE="1")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environ, timeout=900)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["same"]
    assert report["chose"] == "torch", report
    assert report["ran"] is not None and report["ran"][-1][0] == "ltl-cpu", report
    assert "then ltl-cpu once compiled" in report["label"]


def test_a_change_to_a_sibling_module_misses_the_cached_caller(tmp_path):
    """A cached kernel holds the code of the kernels it calls from other modules; Numba checks only
    its own file. tensorca's locator adds the folder's stamp, so the caller is compiled again."""
    cache = tmp_path / "cache"
    folder = cache / "generated"
    folder.mkdir(parents=True)
    (folder / "callee_mod.py").write_text("from numba import njit\n@njit(cache=True)\ndef leaf():\n    return 1\n")
    (folder / "caller_mod.py").write_text("from numba import njit\nfrom callee_mod import leaf\n"
                                          "@njit(cache=True)\ndef outer():\n    return leaf() * 10\n")
    script = ("import sys; sys.path.insert(0, sys.argv[1]); import tensorca._numba; import caller_mod; "
              "print(caller_mod.outer())")
    env = {**os.environ, "TENSORCA_CACHE_DIR": str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)

    def outer() -> str:
        done = subprocess.run([sys.executable, "-c", script, str(folder)], env=env, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert outer() == "10"
    assert any((cache / "numba").rglob("*.nbi"))  # cached in tensorca's cache
    (folder / "callee_mod.py").write_text("from numba import njit\n@njit(cache=True)\ndef leaf():\n    return 22\n")
    assert outer() == "220"
