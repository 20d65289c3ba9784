"""512-bit vectors for the Numba kernels where the CPU has AVX-512 (:mod:`tensorca._numba`).

The setting is per process (Numba fixes its code generator at the first ``@njit``), so everything
that depends on import order runs in a fresh interpreter. The assembly checks read the real Life
lane kernel: zmm registers where the CPU has AVX-512F, ymm where it has only AVX2.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

numba = pytest.importorskip("numba")

from numba.core.codegen import get_host_cpu_features  # noqa: E402

from tensorca._numba import NO_PREFERENCE, VECTOR_BITS_ENV, vector_setting, wide_features  # noqa: E402
from tensorca.errors import UsageError  # noqa: E402

SRC = str(Path(__file__).resolve().parents[1] / "src")
HOST = get_host_cpu_features()
HAS_AVX512 = "+avx512f" in HOST.split(",")
HAS_AVX2 = "+avx2" in HOST.split(",")


def clean_environ(**env: str) -> dict[str, str]:
    """This process's environment with ``PYTHONPATH=src``, without the user's Numba CPU settings or
    :data:`VECTOR_BITS_ENV`, then ``env``."""
    dropped = ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", VECTOR_BITS_ENV)
    environ = {k: v for k, v in os.environ.items() if k not in dropped}
    environ["PYTHONPATH"] = SRC
    return environ | env


def fresh(code: str, **env: str) -> dict:
    """Run ``code`` in a new interpreter (:func:`clean_environ` with ``env``); it prints one JSON
    object, returned here."""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=clean_environ(**env),
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


REPORT = """
import json
from tensorca import _numba
print(json.dumps({"vectors": _numba.VECTORS, "features": _numba.numba.config.CPU_FEATURES}))
"""

LOOP_ASM = """
import json, re
from tensorca._numba import VECTORS, njit
import numpy as np

@njit
def xor3(a, b, c, out):
    for i in range(out.size):
        out[i] = a[i] ^ (b[i] & ~c[i])

x = np.arange(1024, dtype=np.uint64)
xor3(x, x, x, x)
asm = next(iter(xor3.inspect_asm().values()))
print(json.dumps({"vectors": VECTORS, "zmm": len(re.findall(r"%zmm", asm)), "ymm": len(re.findall(r"%ymm", asm))}))
"""


@pytest.mark.parametrize("text, setting", [(None, "auto"), ("", "auto"), ("AUTO", "auto"), (" 512 ", "512"),
                                           ("256", "256")])
def test_vector_setting_accepts(text, setting):
    assert vector_setting(text) == setting


@pytest.mark.parametrize("text", ["fast", "128", "1024", "512 bits", "avx512"])
def test_vector_setting_refuses_with_the_variable_named(text):
    with pytest.raises(UsageError, match=f"{VECTOR_BITS_ENV}=.*auto, 256 or 512"):
        vector_setting(text)


def test_wide_features_only_where_avx512f():
    avx512 = "+64bit,+avx2,+avx512f,+avx512vl"
    assert wide_features(avx512, "auto") == avx512 + "," + NO_PREFERENCE
    assert wide_features(avx512, "512") == avx512 + "," + NO_PREFERENCE
    assert wide_features(avx512, "256") is None
    for without in ("+64bit,+avx2", "+avx2,-avx512f,+avx512fp16"):  # off, or only a look-alike name
        assert wide_features(without, "auto") is None
        assert wide_features(without, "256") is None
        with pytest.raises(UsageError, match="needs AVX-512F"):
            wide_features(without, "512")


def test_fresh_process_takes_512_bit_vectors_where_avx512():
    got = fresh(REPORT)
    if HAS_AVX512:
        assert got["vectors"].startswith("512-bit")
        assert got["features"] == HOST + "," + NO_PREFERENCE  # the host's own features, not a CPU model's
    else:
        assert got == {"vectors": "LLVM's choice (no AVX-512)", "features": None}


def test_256_leaves_numba_alone():
    assert fresh(REPORT, **{VECTOR_BITS_ENV: "256"}) == {"vectors": f"LLVM's choice ({VECTOR_BITS_ENV}=256)",
                                                         "features": None}


@pytest.mark.skipif(not HAS_AVX512, reason="the CPU has no AVX-512F: nothing would change anyway")
def test_numba_enable_avx_0_keeps_avx_off():
    """NUMBA_ENABLE_AVX=0 turns every AVX feature off in Numba's reading of the host, so there is
    no AVX-512 to widen to (taking LLVM's own reading instead would turn it back on)."""
    assert fresh(REPORT, NUMBA_ENABLE_AVX="0") == {"vectors": "LLVM's choice (no AVX-512)", "features": None}


def test_the_users_numba_cpu_settings_win():
    got = fresh(REPORT, NUMBA_CPU_FEATURES=HOST)
    assert got == {"vectors": "as NUMBA_CPU_NAME / NUMBA_CPU_FEATURES set", "features": HOST}


@pytest.mark.skipif(not HAS_AVX512, reason="the CPU has no AVX-512F: nothing to change")
def test_numba_compiled_first_keeps_its_setting_and_says_so():
    code = "from numba import njit\n@njit\ndef f(x):\n    return x\n" + REPORT
    got = fresh(code)
    assert got["features"] is None
    assert "Numba compiled before tensorca" in got["vectors"]


@pytest.mark.skipif(not HAS_AVX512, reason="the CPU has no AVX-512F")
def test_a_loop_compiles_to_zmm_and_256_keeps_llvms_choice():
    """512 gives zmm code; 256 gives exactly what Numba gives without tensorca: ymm on the Intel
    CPUs LLVM tunes to prefer 256-bit vectors, zmm on those it does not (AMD Zen 4 and later)."""
    wide = fresh(LOOP_ASM)
    assert wide["zmm"] > 0, wide
    narrow = fresh(LOOP_ASM, **{VECTOR_BITS_ENV: "256"})
    plain = fresh(LOOP_ASM.replace("from tensorca._numba import VECTORS, njit",
                                   "from numba import njit\nVECTORS = 'plain Numba'"))
    assert (narrow["zmm"], narrow["ymm"]) == (plain["zmm"], plain["ymm"]), (narrow, plain)


@pytest.mark.skipif(not HAS_AVX512, reason="the CPU has no AVX-512F")
def test_512_on_an_avx512_cpu_is_taken():
    assert fresh(REPORT, **{VECTOR_BITS_ENV: "512"})["vectors"].startswith("512-bit")


@pytest.mark.skipif(not (HAS_AVX512 or HAS_AVX2), reason="no AVX2 or AVX-512 on this CPU")
def test_life_lane_kernel_uses_the_widest_vectors(tmp_path):
    """The tiled Life kernel behind one big grid (step_blocked), compiled afresh (no cache: Numba
    cannot show the assembly of cached code): zmm registers where AVX-512F is, else ymm."""
    code = """
import json, re
import numpy as np
from tensorca.engines.bitpack import lanes as bitpack_lanes
from tensorca.engines.bitpack import tiles as bitpack_tiles
from tensorca.engines.bitpack.circuit import rule_table
from tensorca.rules import parse_rule

table = rule_table(parse_rule("B3/S23"))
grid = (np.random.default_rng(0).random((1, 512, 512)) < 0.5).astype(np.uint8)
bitpack_tiles.advance_tiled(grid, table, True, 4)
asm = "".join(bitpack_lanes.lanes_module(table).step_blocked.inspect_asm().values())
print(json.dumps({"zmm": len(re.findall(r"%zmm", asm)), "ymm": len(re.findall(r"%ymm", asm))}))
"""
    got = fresh(code, NUMBA_DISABLE_CACHE="1", TENSORCA_CACHE_DIR=str(tmp_path))
    if HAS_AVX512:
        assert got["zmm"] > 100, got  # the whole word loop, not a stray move
    else:
        assert got["zmm"] == 0 and got["ymm"] > 100, got


@pytest.mark.parametrize("value, why", [("fast", f"{VECTOR_BITS_ENV}='fast': use auto, 256 or 512"),
                                        ("512", "needs AVX-512F")])
def test_a_setting_that_cannot_be_taken_warns_and_the_command_still_runs(value, why):
    """Read on import (the CLI imports Numba for its commands), so not an exception: a warning that
    names the variable, LLVM's choice kept, the run done."""
    if value == "512" and HAS_AVX512:
        pytest.skip("512 is valid on this CPU")
    proc = subprocess.run([sys.executable, "-m", "tensorca", "run", "--soup", "64x64", "--gens", "2", "--seed", "1",
                           "--backend", "bitpack-cpu", "--no-progress"], capture_output=True, text=True,
                          env=clean_environ(**{VECTOR_BITS_ENV: value}), timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # the command line shows tensorca's warnings as one line (tensorca_warnings), the library as Python's
    warned = "RuntimeWarning" in proc.stderr or "tensorca: warning: " in proc.stderr
    assert warned and why in proc.stderr and "keeping LLVM's choice" in proc.stderr
    assert "Traceback" not in proc.stderr
    got = fresh(REPORT.replace("import json", "import json, warnings\nwarnings.simplefilter('ignore')"),
                **{VECTOR_BITS_ENV: value})
    assert got["features"] is None and why in got["vectors"]
