"""tensorca's build backend: setuptools', plus the kernels compiled ahead (issue 37).

Before setuptools builds a wheel or an editable install, ``python -m tensorca.prebuild`` compiles
the kernels of a new user's first commands into ``src/tensorca/_kernels`` (shipped as package data;
see :mod:`tensorca.prebuild`), so the first ``tensorca soup``, HashLife run and ``make demo`` load
them instead of compiling for half a minute. It needs Numba in the build environment
(``[build-system] requires``); where Numba cannot be imported, where ``TENSORCA_PREBUILD=0``, or
where the prebuild fails, the package is built without shipped kernels (they then compile on first
use, as before) and the build goes on. sdists never hold them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 - every hook setuptools offers, two of them wrapped below

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "tensorca" / "_kernels"


def _say(text: str) -> None:
    print(f"tensorca build: {text}", file=sys.stderr, flush=True)


def prebuild_kernels() -> None:
    """Run the prebuild into :data:`OUT` (never raises)."""
    if os.environ.get("TENSORCA_PREBUILD", "1").strip().lower() in ("0", "false", "no", "off"):
        _say("TENSORCA_PREBUILD=0: no kernels compiled ahead")
        return
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
    probe = subprocess.run([sys.executable, "-c", "import numba, numpy"], capture_output=True, env=env)
    if probe.returncode != 0:
        _say("Numba is not importable here: no kernels compiled ahead (they compile on first use)")
        return
    _say("compiling the first-run kernels ahead (tensorca.prebuild; TENSORCA_PREBUILD=0 skips this)")
    done = subprocess.run([sys.executable, "-m", "tensorca.prebuild", str(OUT)], env=env, capture_output=True,
                          text=True, cwd=ROOT)
    lines = (done.stderr or "").strip().splitlines()
    if done.returncode != 0:
        _say(f"prebuild failed, building without compiled kernels: {lines[-1] if lines else done.returncode}")
        return
    _say(lines[-1] if lines else "kernels compiled")


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    prebuild_kernels()
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    prebuild_kernels()
    return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
