"""Kernels compiled ahead of the first run, shipped with the package (issue 37).

``python -m tensorca.prebuild OUT`` compiles the kernels a new user's first commands need (the soup
search and its census, HashLife, Life on ``bitpack-cpu`` for the demo's and the README's runs: the
:func:`first_run_jobs`) once per x86-64 micro-architecture level this machine runs (``x86-64-v2``,
``-v3``, ``-v4``: :data:`tensorca._numba.LEVELS`), each level in its own worker process with an empty
cache, and writes into ``OUT`` (``tensorca/_kernels`` of the package being built):

* ``numba/``: Numba's cache of those kernels, every level's entries merged into one index per
  function (Numba keys each entry by CPU name and features, so one index holds all levels);
* ``bitpack/``: the generated kernel modules they were compiled from (as ``.py.txt``) and the
  ``.ref`` files naming them, which :mod:`tensorca.cache_dirs` copies into the user's cache;
* ``manifest.json``: Numba's and Python's versions, the target triple and the levels.

The build backend (``build_backend/tensorca_build.py``) runs it when a wheel or an editable install
is built, where Numba is importable. At run time :mod:`tensorca._numba` compiles for the highest
shipped level the CPU runs, and :mod:`tensorca.cache_dirs` seeds the user's cache from ``OUT``;
with another Numba or Python, or another CPU family, nothing matches and kernels compile on first
use as before. The kernels are compiled by *running* small jobs, so a level this machine cannot run
is left out (a wheel built on an AVX2 machine ships ``v2`` and ``v3``).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import llvmlite.binding as ll
import numba
from numba.core.codegen import get_host_cpu_features

from ._numba import host_levels
from .warmup import WarmJob, worker_command

#: Environment variable: ``0`` skips the prebuild in the build backend (a quick build ships no kernels).
PREBUILD_ENV = "TENSORCA_PREBUILD"


def first_run_jobs() -> list[WarmJob]:
    """What a new user's first commands compile: ``tensorca soup`` (the lane kernels, the census and
    the dense tiers of B3/S23 soups), HashLife (``tensorca run gun.rle --gens 1e9``), and Life on
    ``bitpack-cpu`` on the shapes ``make demo`` and ``tensorca run --soup`` use."""
    life = "B3/S23"
    return [
        WarmJob("soups", life, generations=400, label="soup search and census (B3/S23)"),
        WarmJob("hashlife", life, generations=1 << 20, label="HashLife"),
        WarmJob("engine", life, "bitpack-cpu", (1, 1024, 1024), "torus", 8, "Life on bitpack-cpu (large grids)"),
        WarmJob("engine", life, "bitpack-cpu", (1, 256, 256), "torus", 8, "Life on bitpack-cpu (tori)"),
        WarmJob("engine", life, "bitpack-cpu", (1, 256, 256), "plane", 8, "Life on bitpack-cpu (planes)"),
    ]


def _host_levels() -> list[str]:
    return host_levels(get_host_cpu_features())


def compile_level(level: str, jobs: Sequence[WarmJob], cache: Path) -> float:
    """Run ``jobs`` in one worker process compiling for ``level`` into the empty cache root ``cache``;
    seconds taken."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")}
    env.update(TENSORCA_CACHE_DIR=str(cache), TENSORCA_CPU_LEVEL=level, TENSORCA_SHIPPED_KERNELS="0",
               TENSORCA_BACKGROUND_COMPILE="0", TENSORCA_ASSUME_IDLE="1", TENSORCA_VECTOR_BITS="auto")
    began = time.perf_counter()
    done = subprocess.run(worker_command(jobs), capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL)
    errors = [json.loads(line).get("error") for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or any(errors):
        detail = next((e for e in errors if e), (done.stderr.strip().splitlines() or ["failed"])[-1])
        raise RuntimeError(f"compiling the {level} kernels failed: {detail}")
    return time.perf_counter() - began


def _read_index(path: Path) -> tuple[str, object, dict]:
    """Numba's index file: (Numba's version, the source stamp, {overload key: data file name})."""
    with open(path, "rb") as handle:
        version = pickle.load(handle)
        stamp, overloads = pickle.loads(handle.read())
    return version, stamp, overloads


def _write_index(path: Path, version: str, stamp: object, overloads: dict) -> None:
    with open(path, "wb") as handle:
        pickle.dump(version, handle, protocol=-1)
        handle.write(pickle.dumps((stamp, overloads), protocol=-1))


def merge_caches(caches: Sequence[Path], out: Path) -> int:
    """Merge the Numba caches ``caches`` (one a level, the same sources) into ``out``: per function
    one index holding every cache's entries, their data files renumbered. Returns the entries."""
    merged: dict[tuple[str, str], tuple[str, object, dict]] = {}
    sources: dict[tuple[str, str], list[tuple[Path, dict]]] = {}
    for cache in caches:
        for index in sorted(cache.glob("*/*.nbi")):
            key = (index.parent.name, index.name)
            version, stamp, overloads = _read_index(index)
            if key in merged and (merged[key][0], merged[key][1]) != (version, stamp):
                raise RuntimeError(f"{index}: compiled from other sources than the other levels")
            merged.setdefault(key, (version, stamp, {}))
            sources.setdefault(key, []).append((index.parent, overloads))
    entries = 0
    for (folder, name), (version, stamp, table) in merged.items():
        target = out / folder
        target.mkdir(parents=True, exist_ok=True)
        base = name[: -len(".nbi")]
        for parent, overloads in sources[(folder, name)]:
            for key, data in overloads.items():
                if key in table:
                    continue
                fresh = f"{base}.{len(table) + 1}.nbc"
                shutil.copyfile(parent / data, target / fresh)
                table[key] = fresh
                entries += 1
        _write_index(target / name, version, stamp, table)
    return entries


def prebuild(out: Path, levels: Sequence[str] | None = None, jobs: Sequence[WarmJob] | None = None,
             workers: int | None = None) -> dict:
    """Compile ``jobs`` (default :func:`first_run_jobs`) for each of ``levels`` (default: every
    level this machine runs) and write the shipped kernels into ``out`` (replaced). Returns the
    manifest."""
    jobs = list(jobs if jobs is not None else first_run_jobs())
    runnable = _host_levels()
    levels = [level for level in (levels or runnable) if level in runnable]
    if not levels:
        raise RuntimeError("this machine runs none of the x86-64 levels asked for: nothing to prebuild")
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tensorca-prebuild-") as scratch:
        roots = {level: Path(scratch) / level for level in levels}
        workers = max(1, min(len(levels), workers or os.cpu_count() or 1))
        with ThreadPoolExecutor(workers) as pool:
            seconds = dict(zip(levels, pool.map(lambda lv: compile_level(lv, jobs, roots[lv]), levels), strict=True))
        if out.exists():
            shutil.rmtree(out)
        (out / "numba").mkdir(parents=True)
        entries = merge_caches([roots[level] / "numba" for level in levels], out / "numba")
        (out / "bitpack").mkdir()
        for level in levels:
            for generated in sorted((roots[level] / "bitpack").glob("*")):
                if generated.suffix not in (".py", ".ref"):
                    continue
                # ``.py.txt``: a data file to setuptools, not a stray module; seeded back as ``.py``.
                target = out / "bitpack" / (generated.name + (".txt" if generated.suffix == ".py" else ""))
                if target.exists() and target.read_bytes() != generated.read_bytes():
                    raise RuntimeError(f"{generated.name}: the levels generated different kernel modules")
                shutil.copyfile(generated, target)
    manifest = {"numba": numba.__version__, "python": f"py{sys.version_info[0]}{sys.version_info[1]}",
                "triple": ll.get_process_triple(), "levels": levels, "vector_bits": "auto",
                "jobs": [job.describe() for job in jobs], "entries": entries,
                "seconds": {level: round(s, 1) for level, s in seconds.items()},
                "wall_seconds": round(time.perf_counter() - began, 1)}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tensorca.prebuild", description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path, nargs="?", default=Path(__file__).resolve().parent / "_kernels",
                        help="where to write the shipped kernels (default: this package's _kernels)")
    parser.add_argument("--levels", default="", help="comma-separated x86-64 levels (default: every one this CPU runs)")
    parser.add_argument("--workers", type=int, default=None, help="levels compiled side by side (default: the cores)")
    args = parser.parse_args(argv)
    levels = [level.strip() for level in args.levels.split(",") if level.strip()] or None
    manifest = prebuild(args.out, levels, workers=args.workers)
    print(f"prebuilt {manifest['entries']} kernels for {', '.join(manifest['levels'])} in "
          f"{manifest['wall_seconds']} s into {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover - run by the build backend
    sys.exit(main())
