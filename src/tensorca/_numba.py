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
"""

from __future__ import annotations

import os
import warnings

import numba
from numba import njit, prange

from .cache_dirs import install_locator
from .compiling import install as install_compile_listener
from .errors import UsageError

#: The environment variable that chooses the vector width (``auto``, ``256`` or ``512``).
VECTOR_BITS_ENV = "TENSORCA_VECTOR_BITS"
#: LLVM's x86 tuning feature behind the 256-bit preference; ``-`` turns it off.
NO_PREFERENCE = "-prefer-256-bit"


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
    if features is None:
        return "LLVM's choice" + (f" ({VECTOR_BITS_ENV}=256)" if setting == "256" else " (no AVX-512)")
    if _code_generator_started():
        return "LLVM's choice (Numba compiled before tensorca; set NUMBA_CPU_FEATURES to change it)"
    config.CPU_FEATURES = features
    return "512-bit (AVX-512, LLVM's prefer-256-bit off)"


#: What vector width tensorca's Numba kernels are compiled for in this process, in words.
VECTORS = configure(os.environ.get(VECTOR_BITS_ENV))
# Before any kernel is decorated: tensorca's kernels cache in the user's cache directory
# (:mod:`.cache_dirs`), and every compile is timed and announced (:mod:`.compiling`).
install_locator()
install_compile_listener()

__all__ = ["NO_PREFERENCE", "VECTORS", "VECTOR_BITS_ENV", "configure", "njit", "numba", "prange", "vector_setting",
           "wide_features"]
