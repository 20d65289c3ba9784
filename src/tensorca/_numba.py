"""Numba, set up for tensorca's kernels before it compiles anything: tensorca's modules import
``numba``, ``njit`` and ``prange`` from here, never from Numba directly.

LLVM tunes the AVX-512 CPUs it knows (Intel from Skylake-X to Granite Rapids; Numba asks LLVM for
the host's model) to *prefer* 256-bit vectors, so Numba's loop vectoriser emits ymm code and half of
every AVX-512 register stays idle. LLVM chose that for floating-point loops, where 512-bit
instructions lower the clock; the bit-packed kernels are integer logic on 64-bit words, the lightest
class. So where the CPU has AVX-512F, this module switches LLVM's ``prefer-256-bit`` tuning off in
Numba's target features (the host's own features, plus ``-prefer-256-bit``) before Numba's first
compile, and the same kernels come out as zmm code. Measured on a 2-core Xeon with AVX-512
(2026-12-02, BENCHMARKS.md): the tiled Life kernel at 4096^2 290 against 255 G/s on two threads,
end to end 167-194 against 151-176 G/s.

Numba has one code generator per process, fixed when its first function is *decorated*, so:

* the setting applies to everything Numba compiles in this process afterwards, the caller's own
  functions included (which is what ``NUMBA_CPU_FEATURES`` would do too);
* it cannot apply once something else has decorated a Numba function first: then the code
  generator's own setting stays, and :data:`VECTORS` says so;
* ``NUMBA_CPU_NAME`` or ``NUMBA_CPU_FEATURES`` set by the user win: nothing is changed.

``TENSORCA_VECTOR_BITS`` chooses: ``auto`` (the default: 512 where the CPU has AVX-512F, else what
LLVM picks), ``256`` (leave LLVM's choice alone), ``512`` (where the CPU lacks AVX-512F, a warning
and LLVM's choice).

Numba's on-disk cache keys compiled code by the target features, so code cached under one setting is
never loaded under the other.

Kernels compiled ahead, when the package was built (:mod:`tensorca.prebuild`, shipped in
``tensorca/_kernels``), are compiled for the x86-64 micro-architecture levels ``x86-64-v2``, ``-v3``
and ``-v4`` rather than for one CPU model, while Numba loads cached code only under its own key
(target triple, CPU name, features). So where shipped kernels exist for this Numba, Python and
target, this module hands :mod:`tensorca.cache_dirs` the keys of the shipped levels this CPU runs,
highest first (:data:`SHIPPED_LEVELS`, with the same vector-width rule: ``-prefer-256-bit`` off at
``x86-64-v4``): a kernel missing under the CPU's own key loads from there instead of compiling,
and everything compiled here is still compiled for the CPU's own model. (Compiling everything for
the level instead measured 10-17% slower on Larger than Life von Neumann on a Zen 4, and equal on
the soup search and bit-packed Life: BENCHMARKS.md, 2026-12-05.)
``TENSORCA_CPU_LEVEL`` chooses: ``auto`` (the default: as just said), ``native`` (no shipped
kernels), or a level's name (everything compiled for that level: what :mod:`tensorca.prebuild`
compiles under). ``TENSORCA_SHIPPED_KERNELS=0`` also means no shipped kernels.
"""

from __future__ import annotations

import os
import warnings

import numba
from numba import njit, prange

from .cache_dirs import install_locator, set_shipped_keys, shipped_enabled, shipped_manifest
from .compiling import install as install_compile_listener
from .errors import UsageError

#: The environment variable that chooses the vector width (``auto``, ``256`` or ``512``).
VECTOR_BITS_ENV = "TENSORCA_VECTOR_BITS"
#: The environment variable that chooses the CPU Numba compiles for (``auto``, ``native`` or a level).
CPU_LEVEL_ENV = "TENSORCA_CPU_LEVEL"
#: LLVM's x86 tuning feature behind the 256-bit preference; ``-`` turns it off.
NO_PREFERENCE = "-prefer-256-bit"

_V2 = ("cx16", "sahf", "popcnt", "sse3", "sse4.1", "sse4.2", "ssse3")
_V3 = (*_V2, "avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave")
_V4 = (*_V3, "avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl")
#: The x86-64 micro-architecture levels (LLVM CPU names), lowest first, with the LLVM features a CPU
#: needs to run each.
LEVELS = {"x86-64-v2": _V2, "x86-64-v3": _V3, "x86-64-v4": _V4}


def host_levels(host_features: str) -> list[str]:
    """The levels of :data:`LEVELS` a CPU with ``host_features`` (LLVM's ``+f,-g`` list) runs,
    lowest first."""
    have = {f[1:] for f in host_features.split(",") if f.startswith("+")}
    return [level for level, needs in LEVELS.items() if have.issuperset(needs)]


def level_features(level: str, setting: str) -> str:
    """Numba's target features at ``level`` for vector ``setting``: 512-bit vectors at
    ``x86-64-v4`` unless the setting is ``256`` (as :func:`wide_features` on the host's own list)."""
    return NO_PREFERENCE if level == "x86-64-v4" and setting != "256" else ""


def shipped_levels(host_features: str, manifest: dict, triple: str, versions: tuple[str, str]) -> list[str]:
    """The levels in ``manifest`` (:func:`tensorca.cache_dirs.shipped_manifest`) this CPU runs,
    highest first, when the shipped kernels were compiled for this target ``triple`` and
    ``versions`` (Numba's, Python's ``pyXY``); else none (they could never load here)."""
    if not manifest or manifest.get("triple") != triple or (manifest.get("numba"), manifest.get("python")) != versions:
        return []
    return [level for level in reversed(host_levels(host_features)) if level in manifest.get("levels", ())]


def vector_setting(value: str | None) -> str:
    """``value`` of :data:`VECTOR_BITS_ENV` checked: ``auto`` (also for None or ""), ``256`` or
    ``512``; anything else is a :class:`~tensorca.errors.UsageError`."""
    setting = (value or "auto").strip().lower()
    if setting not in ("auto", "256", "512"):
        raise UsageError(f"{VECTOR_BITS_ENV}={value!r}: use auto, 256 or 512")
    return setting


def wide_features(host_features: str, setting: str) -> str | None:
    """The Numba target features that give 512-bit vectors: ``host_features`` (LLVM's
    comma-separated ``+feature,-feature`` list for this CPU) with ``prefer-256-bit`` off, or None to
    leave Numba's choice (setting ``256``, or ``auto`` on a CPU without AVX-512F). ``512`` on such a
    CPU is a :class:`~tensorca.errors.UsageError`."""
    has_avx512 = "+avx512f" in host_features.split(",")
    if setting == "256" or (setting == "auto" and not has_avx512):
        return None
    if not has_avx512:
        raise UsageError(f"{VECTOR_BITS_ENV}=512 needs AVX-512F, which this CPU does not have; use auto or 256")
    return f"{host_features},{NO_PREFERENCE}"


def _code_generator_started() -> bool:
    """Whether Numba's CPU target (and with it the code generator) already exists in this process:
    the first ``@njit`` creates it."""
    from numba.core.registry import cpu_target

    return "_toplevel_target_context" in vars(cpu_target)


def configure(setting_text: str | None) -> str:
    """Set Numba's target features for :data:`VECTOR_BITS_ENV` ``setting_text`` unless the user
    or an earlier compile already decided them; returns what applies, in words (:data:`VECTORS`).
    A setting that cannot be taken (not ``auto``, ``256`` or ``512``; ``512`` without AVX-512F) is
    a ``RuntimeWarning`` that says why, and Numba keeps LLVM's choice: this runs on import, where
    an exception would stop every command, and the width changes speed only, never results."""
    config = numba.config
    if config.CPU_NAME is not None or config.CPU_FEATURES is not None:
        return "as NUMBA_CPU_NAME / NUMBA_CPU_FEATURES set"
    # Numba's own reading of the host: "" where LLVM cannot tell, AVX off under NUMBA_ENABLE_AVX=0
    # (and on the CPUs where Numba turns it off itself), so those keep Numba's choice.
    from numba.core.codegen import get_host_cpu_features

    try:
        setting = vector_setting(setting_text)
        features = wide_features(get_host_cpu_features(), setting)
    except UsageError as exc:
        warnings.warn(f"{exc}; keeping LLVM's choice of vector width", RuntimeWarning, stacklevel=2)
        return f"LLVM's choice ({exc})"
    level = _level(os.environ.get(CPU_LEVEL_ENV), get_host_cpu_features())
    if level is not None:
        if _code_generator_started():
            return "LLVM's choice (Numba compiled before tensorca; set NUMBA_CPU_NAME to change it)"
        config.CPU_NAME = level
        config.CPU_FEATURES = level_features(level, setting)
        width = "512-bit" if config.CPU_FEATURES == NO_PREFERENCE else "LLVM's choice of vector width"
        return f"{width}, compiled for {level}"
    _offer_shipped(os.environ.get(CPU_LEVEL_ENV), get_host_cpu_features(), setting)
    if features is None:
        return "LLVM's choice" + (f" ({VECTOR_BITS_ENV}=256)" if setting == "256" else " (no AVX-512)")
    if _code_generator_started():
        return "LLVM's choice (Numba compiled before tensorca; set NUMBA_CPU_FEATURES to change it)"
    config.CPU_FEATURES = features
    return "512-bit (AVX-512, LLVM's prefer-256-bit off)"


def _level(value: str | None, host_features: str) -> str | None:
    """The level Numba compiles everything for under :data:`CPU_LEVEL_ENV` ``value``: a named level
    (when this CPU runs it; else a ``RuntimeWarning``), or None for the CPU's own model."""
    setting = (value or "auto").strip().lower()
    if setting not in LEVELS or not host_features:
        return None
    if setting in host_levels(host_features):
        return setting
    warnings.warn(f"{CPU_LEVEL_ENV}={value}: this CPU cannot run that level; compiling for its own model",
                  RuntimeWarning, stacklevel=3)
    return None


def _offer_shipped(value: str | None, host_features: str, setting: str) -> None:
    """Under :data:`CPU_LEVEL_ENV` ``auto``, hand the shipped levels' codegen keys to the cache
    (:func:`tensorca.cache_dirs.set_shipped_keys`) and record them in :data:`SHIPPED_LEVELS`."""
    if (value or "auto").strip().lower() != "auto" or not host_features or not shipped_enabled():
        return
    import sys

    import llvmlite.binding as ll

    triple = ll.get_process_triple()
    levels = shipped_levels(host_features, shipped_manifest(), triple,
                            (numba.__version__, f"py{sys.version_info[0]}{sys.version_info[1]}"))
    SHIPPED_LEVELS[:] = levels
    set_shipped_keys([(triple, level, level_features(level, setting)) for level in levels])


#: The shipped kernels' levels this process may load, highest first (empty: none usable here).
SHIPPED_LEVELS: list[str] = []


#: What vector width tensorca's Numba kernels are compiled for in this process, in words.
VECTORS = configure(os.environ.get(VECTOR_BITS_ENV))
# Before any kernel is decorated: tensorca's kernels cache in the user's cache directory
# (:mod:`.cache_dirs`), and every compile is timed and announced (:mod:`.compiling`).
install_locator()
install_compile_listener()

#: The x86-64 level Numba compiles for in this process (None: the CPU's own model).
LEVEL = numba.config.CPU_NAME if numba.config.CPU_NAME in LEVELS else None

__all__ = ["CPU_LEVEL_ENV", "LEVEL", "LEVELS", "NO_PREFERENCE", "SHIPPED_LEVELS", "VECTORS", "VECTOR_BITS_ENV",
           "configure", "host_levels", "level_features", "njit", "numba", "prange", "shipped_levels", "vector_setting",
           "wide_features"]
