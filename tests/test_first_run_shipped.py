"""Kernels compiled ahead and shipped with the package (issue 37): cache keys that do not depend on
where or when the package was installed, the CPU level they are compiled for, the merge of the
levels' caches (tensorca.prebuild) and the seeding of the user's cache (tensorca.cache_dirs)."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tensorca import cache_dirs

pytest.importorskip("numba")

from tensorca import _numba, prebuild  # noqa: E402 - after the skip

ZEN4 = ("+64bit,+avx,+avx2,+avx512bw,+avx512cd,+avx512dq,+avx512f,+avx512vl,+bmi,+bmi2,+cx16,+f16c,+fma,"
        "+lzcnt,+movbe,+popcnt,+sahf,+sse3,+sse4.1,+sse4.2,+ssse3,+xsave")
HASWELL = ZEN4.replace("+avx512bw,+avx512cd,+avx512dq,+avx512f,+avx512vl,", "")


def test_folder_stamp_follows_contents_not_file_times(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "notes.txt").write_text("not code")
    before = cache_dirs.folder_stamp.__wrapped__(str(tmp_path))
    past = time.time() - 3600
    os.utime(tmp_path / "a.py", (past, past))
    assert cache_dirs.folder_stamp.__wrapped__(str(tmp_path)) == before  # a reinstall's new file times
    (tmp_path / "a.py").write_text("x = 2\n")
    assert cache_dirs.folder_stamp.__wrapped__(str(tmp_path)) != before


def test_levels_a_cpu_runs_and_the_shipped_levels_offered():
    assert _numba.host_levels(ZEN4) == ["x86-64-v2", "x86-64-v3", "x86-64-v4"]
    assert _numba.host_levels(HASWELL) == ["x86-64-v2", "x86-64-v3"]
    assert _numba.host_levels("+sse2,+cx8") == []
    manifest = {"numba": "0.68.1", "python": "py311", "triple": "x86_64-unknown-linux-gnu",
                "levels": ["x86-64-v2", "x86-64-v3", "x86-64-v4"]}
    here = ("x86_64-unknown-linux-gnu", ("0.68.1", "py311"))
    assert _numba.shipped_levels(ZEN4, manifest, *here) == ["x86-64-v4", "x86-64-v3", "x86-64-v2"]
    assert _numba.shipped_levels(HASWELL, manifest, *here) == ["x86-64-v3", "x86-64-v2"]
    assert _numba.shipped_levels(ZEN4, dict(manifest, levels=["x86-64-v3"]), *here) == ["x86-64-v3"]
    # Another Numba, Python or target: the shipped kernels could never load.
    assert _numba.shipped_levels(ZEN4, manifest, "x86_64-unknown-linux-gnu", ("0.69.0", "py311")) == []
    assert _numba.shipped_levels(ZEN4, manifest, "aarch64-unknown-linux-gnu", ("0.68.1", "py311")) == []
    assert _numba.shipped_levels(ZEN4, {}, *here) == []
    assert _numba.level_features("x86-64-v4", "auto") == _numba.NO_PREFERENCE
    assert _numba.level_features("x86-64-v4", "256") == ""
    assert _numba.level_features("x86-64-v3", "auto") == ""


def _index(path: Path, stamp, overloads: dict) -> None:
    with open(path, "wb") as handle:
        pickle.dump("0.68.1", handle, protocol=-1)
        handle.write(pickle.dumps((stamp, overloads), protocol=-1))
    for name in overloads.values():
        (path.parent / name).write_bytes(name.encode())


def test_the_levels_caches_merge_into_one_index_per_function(tmp_path):
    v3, v4, out = tmp_path / "v3" / "search_1", tmp_path / "v4" / "search_1", tmp_path / "out"
    v3.mkdir(parents=True)
    v4.mkdir(parents=True)
    _index(v3 / "soups.f-10.py311.nbi", "stamp", {("sig", "v3"): "soups.f-10.py311.1.nbc"})
    _index(v4 / "soups.f-10.py311.nbi", "stamp", {("sig", "v4"): "soups.f-10.py311.1.nbc",
                                                   ("sig2", "v4"): "soups.f-10.py311.2.nbc"})
    assert prebuild.merge_caches([v3.parent, v4.parent], out) == 3
    version, stamp, overloads = prebuild._read_index(out / "search_1" / "soups.f-10.py311.nbi")
    assert (version, stamp) == ("0.68.1", "stamp")
    assert sorted(overloads.values()) == [f"soups.f-10.py311.{i}.nbc" for i in (1, 2, 3)]
    assert (out / "search_1" / overloads[("sig", "v4")]).read_bytes() == b"soups.f-10.py311.1.nbc"
    _index(v4 / "soups.f-10.py311.nbi", "other", {})
    with pytest.raises(RuntimeError, match="other sources"):
        prebuild.merge_caches([v3.parent, v4.parent], tmp_path / "out2")


def test_seeding_copies_missing_functions_and_never_the_users_own(tmp_path, monkeypatch):
    shipped = tmp_path / "shipped"
    (shipped / "search_1").mkdir(parents=True)
    for name in ("a-1.py311.nbi", "a-1.py311.1.nbc", "b-2.py311.nbi", "b-2.py311.1.nbc", "b-2.py311.2.nbc"):
        (shipped / "search_1" / name).write_text("shipped " + name)
    user = tmp_path / "user" / "search_1"
    user.mkdir(parents=True)
    (user / "a-1.py311.nbi").write_text("mine")
    monkeypatch.setattr(cache_dirs, "shipped_numba_dir", lambda: shipped)
    cache_dirs.seed_kernels.__wrapped__(str(user), "search_1")
    assert (user / "a-1.py311.nbi").read_text() == "mine" and not (user / "a-1.py311.1.nbc").exists()
    assert sorted(p.name for p in user.glob("b-*")) == ["b-2.py311.1.nbc", "b-2.py311.2.nbc", "b-2.py311.nbi"]
    assert not list(user.glob(".*.tmp"))


def test_generated_modules_are_seeded_as_python_files(tmp_path, monkeypatch):
    ship = tmp_path / "_kernels"
    (ship / "bitpack").mkdir(parents=True)
    (ship / "bitpack" / "tensorca_bitpack_lanes_00.py.txt").write_text("x = 1\n")
    (ship / "bitpack" / "tensorca_bitpack_lanes-expr-00.ref").write_text("tensorca_bitpack_lanes_00")
    (ship / "numba").mkdir()
    monkeypatch.setattr(cache_dirs, "SHIPPED_DIR", ship)
    monkeypatch.setattr(cache_dirs, "_shipped_fits", lambda: True)
    monkeypatch.setenv(cache_dirs.SHIPPED_ENV, "1")
    cache_dirs.seed_generated(tmp_path / "root")
    assert sorted(p.name for p in (tmp_path / "root" / "bitpack").iterdir()) == [
        "tensorca_bitpack_lanes-expr-00.ref", "tensorca_bitpack_lanes_00.py"]
    monkeypatch.setenv(cache_dirs.SHIPPED_ENV, "0")
    cache_dirs.seed_generated(tmp_path / "other")
    assert not (tmp_path / "other").exists()


def test_shipped_kernels_of_another_numba_or_python_are_not_counted(monkeypatch):
    import sys
    from importlib.metadata import version

    here = {"numba": version("numba"), "python": f"py{sys.version_info[0]}{sys.version_info[1]}"}
    for manifest, fits in ((here, True), (dict(here, numba="0.1"), False), (dict(here, python="py27"), False),
                           ({}, False)):
        monkeypatch.setattr(cache_dirs, "shipped_manifest", lambda m=manifest: m)
        cache_dirs._shipped_fits.cache_clear()
        assert cache_dirs._shipped_fits() is fits
    cache_dirs._shipped_fits.cache_clear()


def test_the_first_run_jobs_cover_the_first_commands():
    kinds = {(job.kind, job.engine, job.topology) for job in prebuild.first_run_jobs()}
    assert {("soups", "", "torus"), ("hashlife", "", "torus"), ("engine", "bitpack-cpu", "torus"),
            ("engine", "bitpack-cpu", "plane")} <= kinds


_GUN = """
import json, sys
from tensorca import compiling, io, simulate
from tensorca.data import pattern_path
import tensorca._numba as n
final = simulate.run(io.load(pattern_path("gosper_gun.rle")), generations=1 << 20, backend="hashlife")
print(json.dumps({"population": final.population, "compile": compiling.compile_seconds(), "levels": n.SHIPPED_LEVELS}))
"""


@pytest.mark.slow
def test_kernels_prebuilt_for_a_level_load_in_a_new_install_without_compiling(tmp_path):
    """End to end: HashLife's kernels prebuilt for the lowest level this CPU runs (the process compiling
    them pinned to it), then a process with an empty cache and its own CPU model loads them from there
    (seeded into its cache) and compiles nothing, with the same population as a process that compiles."""
    level = prebuild._host_levels()[0]
    out = tmp_path / "_kernels"
    manifest = prebuild.prebuild(out, [level], [prebuild.WarmJob("hashlife", generations=1 << 20)])
    assert manifest["levels"] == [level] and manifest["entries"] > 0
    assert (out / "manifest.json").exists() and list((out / "numba").glob("*/*.nbi"))

    def gun(cache: Path, **extra: str) -> dict:
        env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "TENSORCA_CPU_LEVEL")}
        env.update({"TENSORCA_CACHE_DIR": str(cache), "TENSORCA_SHIPPED_DIR": str(out), "TENSORCA_SHIPPED_KERNELS": "1",
                    **extra})
        done = subprocess.run([sys.executable, "-c", _GUN], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    shipped = gun(tmp_path / "cache")
    assert shipped["levels"] == [level] and shipped["compile"] == 0.0
    assert list((tmp_path / "cache" / "numba").glob("hashlife_*/*.nbi"))  # seeded into the user's cache
    compiled = gun(tmp_path / "cold", TENSORCA_SHIPPED_KERNELS="0")
    assert compiled["compile"] > 0 and compiled["population"] == shipped["population"]
