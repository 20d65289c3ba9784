"""bitpack-gpu's kernels compiled for Hopper (sm_90) with no GPU: ``benchmarks/gpu_static.py``.

The interpreter runs the kernels' arithmetic but not Triton's compiler; this compiles every kernel
in the launch configurations the engine uses, through ptxas, and checks what a GPU run would
otherwise find first: that each compiles, and that none spills registers to local memory.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("triton", reason="bitpack-gpu needs Triton (pip install triton)")

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def gpu_static():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import gpu_static

        if gpu_static.tools() is None:
            pytest.skip("this Triton has no NVIDIA backend tools (ptxas, cuobjdump)")
        yield gpu_static
    finally:
        sys.path.remove(str(BENCHMARKS))
        sys.modules.pop("gpu_static", None)


@pytest.fixture(scope="module")
def compiled(gpu_static):
    mp = pytest.MonkeyPatch()
    mp.delenv("TRITON_INTERPRET", raising=False)  # the compiled kernels, not the interpreter's
    try:
        yield gpu_static.compile_all(["B3/S23", "B2-a/S12"], arch=90)
    finally:
        mp.undo()


@pytest.mark.slow
def test_every_kernel_compiles_for_sm90(compiled, gpu_static):
    kernels = {(r.rule, r.torus, r.kernel) for r in compiled}
    for rule in ("B3/S23", "B2-a/S12"):
        for torus in (True, False):
            for name in ("step_kernel", "multi_kernel", "whole_kernel", "lanes_step_kernel", "lanes_whole_kernel"):
                assert (rule, torus, name) in kernels
    assert ("B3/S23", True, "lanes_pack_kernel") in kernels and ("B3/S23", True, "lanes_unpack_kernel") in kernels
    assert len(compiled) == 4 * len(gpu_static.cases(True)) - 3 * 2  # the packing kernels once
    assert all(0 < r.registers <= 255 and r.warps_per_sm >= r.num_warps for r in compiled)
    # the static SASS count, and the words a thread computes: BR x BW (or BLOCK) over the threads
    assert all(r.instructions > 20 for r in compiled)
    step = next(r for r in compiled if r.kernel == "step_kernel")
    assert step.words_per_thread == 32 * 32 / (32 * step.num_warps)
    assert step.instructions_per_word == step.instructions / step.words_per_thread


@pytest.mark.slow
def test_no_kernel_spills(compiled):
    """No kernel spills registers to local memory (an unrolled packing loop and 32 words a thread in
    ``whole_kernel`` spilled up to 560 bytes a thread before)."""
    spills = {(r.rule, r.torus, r.kernel, r.label): r.local_bytes for r in compiled if r.local_bytes}
    assert not spills


@pytest.mark.slow
def test_interior_tiles_take_a_cheaper_path(compiled, gpu_static):
    """step_kernel's branch for interior tiles is compiled in (not folded away) and costs under 0.6
    of the edge path a word (no wrapped index, mask or carry select; Triton 3.9: B3/S23 ~30 SASS
    against 72-87, B2-a/S12 35-40 against 75-88), for a count rule and a table circuit on both
    topologies."""
    costs = gpu_static.interior_costs(compiled)
    assert {(kernel, rule, torus) for kernel, rule, torus, _, _ in costs} == {
        (k, r, t) for k in ("step_kernel", "lanes_step_kernel") for r in ("B3/S23", "B2-a/S12") for t in (True, False)}
    for kernel, rule, torus, interior, edge in costs:
        assert 10 < interior < 0.6 * edge, (kernel, rule, torus, interior, edge)


def test_occupancy_arithmetic(gpu_static):
    # registers go in 8 a thread: 40 -> 1280 a warp, 12 blocks of 4 warps in 65,536
    assert gpu_static.warps_per_sm(40, 4, 0) == 48
    assert gpu_static.warps_per_sm(255, 4, 0) == 8  # 256 a thread: 2 blocks
    assert gpu_static.warps_per_sm(16, 4, 0) == 64  # the warp limit
    assert gpu_static.warps_per_sm(16, 1, 0) == 32  # the block limit
    assert gpu_static.warps_per_sm(32, 4, 100 * 1024) == 8  # shared memory: 2 blocks of 100 KiB


def test_signature_specialises_as_a_launch_would(gpu_static):
    from tensorca.engines.bitpack.gpu_kernels import table_module

    fn = table_module(b"\x00" * 512).step_kernel
    case = gpu_static.Case("step_kernel", "", {"h": 48, "wp": 3, "rs": 31, "last_mask_i": -1},
                           {"TORUS": True, "BR": 32, "BW": 32, "INTERIOR": True}, 4)
    signature, attrs = gpu_static._signature(fn, case)
    assert signature == {"src": "*i32", "dst": "*i32", "h": "i32", "wp": "i32", "rs": "i32", "last_mask_i": "i32",
                         "TORUS": "constexpr", "BR": "constexpr", "BW": "constexpr", "INTERIOR": "constexpr"}
    divisible = {fn.arg_names[i[0]] for i in attrs}
    assert divisible == {"src", "dst", "h"}


@pytest.mark.slow
def test_cli_writes_the_table_and_json(gpu_static, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    out = tmp_path / "static.json"
    assert gpu_static.main(["--rule", "B3/S23", "--json", str(out)]) == 0
    table = capsys.readouterr().out
    assert "compiled for sm_90" in table and "| B3/S23 | torus | `lanes_whole_kernel` |" in table
    assert "- B3/S23 torus: `step_kernel`'s interior tiles ~" in table
    data = json.loads(out.read_text())
    assert data["arch"] == 90 and len(data["kernels"]) == 2 * len(gpu_static.cases(True)) - 2
