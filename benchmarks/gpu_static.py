"""bitpack-gpu's Triton kernels compiled for a GPU architecture ahead of time, with no GPU.

Triton compiles for a named target without a device: front end, TTGIR, LLVM IR, PTX, and the
``ptxas`` its wheel carries all run on the CPU. That finds, on any Linux machine with Triton, what
the interpreter (``TRITON_INTERPRET=1``) cannot: a kernel the compiler rejects, and what each
kernel needs per thread (registers, local memory: spills) and so how many warps a multiprocessor
can hold. Each kernel is compiled in the launch configurations the engine uses (tiles from
:class:`~tensorca.engines.bitpack.gpu.BitpackGpu`'s defaults, integer arguments specialised as a
launch on those shapes would be), read back with the ``cuobjdump`` beside that ``ptxas``::

    .venv/bin/python benchmarks/gpu_static.py [--arch 90] [--rule B3/S23 --rule B2-a/S12] [--json out.json]

Occupancy is counted for a Hopper multiprocessor (sm_90: 65,536 registers, at most 64 warps and
32 blocks; registers allocated 8 per thread at a time): counted, not measured.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

#: sm_90 per multiprocessor.
REGISTERS_PER_SM = 65536
MAX_WARPS_PER_SM = 64
MAX_BLOCKS_PER_SM = 32
#: Labels of step_kernel and lanes_step_kernel with their interior-tile branch and without
#: (``BitpackGpu(interior=False)``).
INTERIOR_AND_EDGE = "interior + edge paths"
EDGE_ONLY = "edge path only"
#: Kernel arguments that are pointers, with their element type; every other non-constexpr is an i32.
POINTERS = {"src": "*i32", "dst": "*i32", "scratch": "*i32", "work": "*i32", "words": "*i32", "cells": "*u8"}


@dataclass(frozen=True)
class Case:
    """One kernel in one launch configuration: ``ints`` the integer arguments' values (they decide
    Triton's divisibility specialisation), ``constexprs`` the compile-time ones."""

    kernel: str
    label: str
    ints: dict[str, int]
    constexprs: dict[str, Any]
    num_warps: int
    packing: bool = False  # from the rule-free packing module


@dataclass
class Compiled:
    """What ``ptxas`` made of a :class:`Case`: per thread ``registers``, ``local_bytes`` (spills and
    stack); per block ``shared_bytes``; ``warps_per_sm`` the occupancy they allow; ``instructions``
    the SASS instructions in the program (static: a loop's body counts once) and
    ``words_per_thread`` the words each thread computes per pass."""

    rule: str
    torus: bool
    kernel: str
    label: str
    num_warps: int
    registers: int
    local_bytes: int
    shared_bytes: int
    warps_per_sm: int
    seconds: float
    instructions: int = 0
    words_per_thread: float = 0.0

    @property
    def instructions_per_word(self) -> float:
        return self.instructions / self.words_per_thread if self.words_per_thread else float("nan")


def cases(torus: bool) -> list[Case]:
    """The launch configurations the engine uses, from :class:`BitpackGpu`'s defaults."""
    from tensorca.engines.bitpack.gpu import _PACK_BLOCK, BitpackGpu

    launch = BitpackGpu()
    warps = launch.num_warps
    row = {"rs": 31, "last_mask_i": -1}
    br, bw = launch.block_rows, launch.block_words
    found = [
        Case("step_kernel", f"8192^2, {br}x{bw} tile, {INTERIOR_AND_EDGE}", {"h": 8192, "wp": 256, **row},
             {"TORUS": torus, "BR": br, "BW": bw, "INTERIOR": True}, warps),
        Case("step_kernel", f"8192^2, {br}x{bw} tile, {EDGE_ONLY}", {"h": 8192, "wp": 256, **row},
             {"TORUS": torus, "BR": br, "BW": bw, "INTERIOR": False}, warps),
        Case("multi_kernel", f"8192^2, {br}x{bw} tile, G=4", {"h": 8192, "wp": 256, **row},
             {"TORUS": torus, "G": 4, "BR": br, "BW": bw}, warps),
    ]
    most = launch.whole_max_words // 32
    for h, wp, label in [(7, 1, "7 x 13 (the smallest tile)"), (64, 2, "64^2"), (256, 8, "256^2"),
                         (most, 32, f"{most} x 1024 (most words)")]:
        tile_rows, tile_words = launch.whole_tile(h, wp)
        found.append(Case("whole_kernel", label, {"h": h, "wp": wp, "gens": 100, **row},
                          {"TORUS": torus, "BR": tile_rows, "BW": tile_words},
                          launch.whole_warps(tile_rows * tile_words)))
    sbr, sbw = launch.lanes_step_tile(256, 256)
    for interior, label in ((True, INTERIOR_AND_EDGE), (False, EDGE_ONLY)):
        found.append(Case("lanes_step_kernel", f"256^2 grids, {sbr}x{sbw} tile, {label}", {"h": 256, "w": 256},
                          {"TORUS": torus, "BR": sbr, "BW": sbw, "INTERIOR": interior}, warps))
    for side in (16, 64, 128):
        tile = launch.lanes_whole_tile(side, side)
        assert tile is not None
        found.append(Case("lanes_whole_kernel", f"{side}^2 grids, {tile[0]}x{tile[1]} block",
                          {"h": side, "w": side, "gens": 100}, {"TORUS": torus, "BR": tile[0], "BW": tile[1]}, warps))
    for kernel in ("lanes_pack_kernel", "lanes_unpack_kernel"):
        found.append(Case(kernel, f"BLOCK {_PACK_BLOCK}", {"batch": 4096, "hw": 4096}, {"BLOCK": _PACK_BLOCK}, warps,
                          packing=True))
    return found


def tools() -> tuple[str, str] | None:
    """``(ptxas, cuobjdump)`` from Triton's NVIDIA backend, or None where this Triton has none."""
    try:
        import triton
    except ImportError:
        return None
    folder = Path(triton.__file__).parent / "backends" / "nvidia" / "bin"
    ptxas, cuobjdump = folder / "ptxas", folder / "cuobjdump"
    return (str(ptxas), str(cuobjdump)) if ptxas.exists() and cuobjdump.exists() else None


def _signature(fn: Any, case: Case) -> tuple[dict[str, str], dict[tuple[int, ...], list]]:
    """Triton's signature and attributes for ``fn`` launched as ``case`` says: pointers 16-byte
    aligned, integers divisible by 16 marked so (as the JIT specialises them at a launch)."""
    signature, attrs = {}, {}
    for index, name in enumerate(fn.arg_names):
        if name in case.constexprs:
            signature[name] = "constexpr"
        elif name in POINTERS:
            signature[name] = POINTERS[name]
            attrs[(index,)] = [["tt.divisibility", 16]]
        else:
            signature[name] = "i32"
            if case.ints[name] % 16 == 0:
                attrs[(index,)] = [["tt.divisibility", 16]]
    return signature, attrs


def _cuobjdump(cubin: bytes, cuobjdump: str, option: str) -> str:
    """What ``cuobjdump <option>`` prints of ``cubin`` (written to a temporary file for it)."""
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as fh:
        fh.write(cubin)
    try:
        return subprocess.run([cuobjdump, option, fh.name], capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(fh.name)


def resource_usage(cubin: bytes, cuobjdump: str) -> dict[str, int]:
    """``REG``, ``STACK``, ``SHARED``, ``LOCAL`` of the one function in ``cubin`` (``cuobjdump -res-usage``)."""
    text = _cuobjdump(cubin, cuobjdump, "-res-usage")
    found = dict(re.findall(r"\b(REG|STACK|SHARED|LOCAL):(\d+)", text))
    if "REG" not in found:
        raise RuntimeError(f"cuobjdump printed no resource usage:\n{text}")
    return {key: int(value) for key, value in found.items()}


def sass_instructions(cubin: bytes, cuobjdump: str) -> int:
    """Machine instructions (SASS, ``cuobjdump -sass``) in ``cubin``'s function, NOPs left out."""
    text = _cuobjdump(cubin, cuobjdump, "-sass")
    opcodes = re.findall(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", text)
    return sum(1 for op in opcodes if op != "NOP")


def _words_per_thread(case: Case) -> float:
    """Words (or packed cells) one thread computes per pass of ``case``'s program."""
    block = case.constexprs.get("BLOCK") or case.constexprs["BR"] * case.constexprs["BW"]
    return block / (32 * case.num_warps)


def warps_per_sm(registers: int, num_warps: int, shared_bytes: int, shared_per_sm: int = 228 * 1024) -> int:
    """Warps a sm_90 multiprocessor holds of a kernel using ``registers`` a thread: whole blocks of
    ``num_warps`` warps, limited by registers (8 a thread at a time), warps, blocks and shared memory."""
    per_warp = -(-max(registers, 1) // 8) * 8 * 32
    blocks = min(MAX_BLOCKS_PER_SM, MAX_WARPS_PER_SM // num_warps, REGISTERS_PER_SM // (per_warp * num_warps))
    if shared_bytes:
        blocks = min(blocks, shared_per_sm // shared_bytes)
    return blocks * num_warps


def compile_case(case: Case, rule: str, torus: bool, arch: int = 90) -> Compiled:
    """Compile ``case`` for ``rule`` to a ``sm_<arch>`` cubin and read its resource usage."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from tensorca.engines.bitpack.circuit import rule_table
    from tensorca.engines.bitpack.gpu_kernels import lane_packing_module, table_module
    from tensorca.rules import parse_rule

    found = tools()
    if found is None:
        raise RuntimeError("this Triton has no NVIDIA backend tools (ptxas, cuobjdump)")
    module = lane_packing_module() if case.packing else table_module(rule_table(parse_rule(rule)))
    fn = getattr(module, case.kernel)
    signature, attrs = _signature(fn, case)
    t0 = time.perf_counter()
    kernel = triton.compile(ASTSource(fn, signature, case.constexprs, attrs), target=GPUTarget("cuda", arch, 32),
                            options={"num_warps": case.num_warps})
    seconds = time.perf_counter() - t0
    usage = resource_usage(kernel.asm["cubin"], found[1])
    shared = max(usage.get("SHARED", 0), int(getattr(kernel.metadata, "shared", 0) or 0))
    return Compiled(rule, torus, case.kernel, case.label, case.num_warps, usage["REG"],
                    usage.get("LOCAL", 0) + usage.get("STACK", 0), shared,
                    warps_per_sm(usage["REG"], case.num_warps, shared), seconds,
                    sass_instructions(kernel.asm["cubin"], found[1]), _words_per_thread(case))


def compile_all(rules: list[str], arch: int = 90) -> list[Compiled]:
    """Every case, on a torus and a plane, for each rule (the packing kernels once)."""
    out = []
    for rule in rules:
        for torus in (True, False):
            for case in cases(torus):
                if case.packing and (rule != rules[0] or not torus):
                    continue
                out.append(compile_case(case, rule, torus, arch))
    return out


def interior_costs(rows: list[Compiled]) -> list[tuple[str, str, bool, float, float]]:
    """``(kernel, rule, torus, interior, edge)`` SASS a word of the two paths of ``step_kernel`` and
    ``lanes_step_kernel``: the edge path compiled alone, and the interior path as what the branch
    adds to it (both paths are in the program; a tile runs one)."""
    out = []
    for both in rows:
        if not both.label.endswith(INTERIOR_AND_EDGE):
            continue
        for edge in rows:
            if (edge.kernel, edge.rule, edge.torus) == (both.kernel, both.rule, both.torus) and \
                    edge.label.endswith(EDGE_ONLY):
                added = (both.instructions - edge.instructions) / both.words_per_thread
                out.append((both.kernel, both.rule, both.torus, added, edge.instructions_per_word))
    return out


def markdown(rows: list[Compiled], arch: int, version: str) -> str:
    lines = [f"Triton {version}, compiled for sm_{arch} (no GPU): per thread registers and local memory "
             f"(spills), warps a multiprocessor can hold (of {MAX_WARPS_PER_SM}), SASS instructions in the "
             "program (static: a loop body counts once) per word a thread computes", "",
             "| rule | topology | kernel | configuration | warps | registers | spilled bytes | warps/SM | "
             "SASS | words a thread | SASS a word |",
             "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lines.append(f"| {r.rule} | {'torus' if r.torus else 'plane'} | `{r.kernel}` | {r.label} | {r.num_warps} | "
                     f"{r.registers} | {r.local_bytes} | {r.warps_per_sm} | {r.instructions} | "
                     f"{r.words_per_thread:g} | {r.instructions_per_word:.0f} |")
    lines.append("")
    for kernel, rule, torus, interior, edge in interior_costs(rows):
        lines.append(f"- {rule} {'torus' if torus else 'plane'}: `{kernel}`'s interior tiles ~{interior:.0f} SASS "
                     f"a word (what the branch adds), its edge tiles {edge:.0f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--arch", type=int, default=90, help="compute capability x 10 (90: Hopper, H100/H200)")
    parser.add_argument("--rule", action="append", help="rules to compile (default B3/S23 and B2-a/S12)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    os.environ.pop("TRITON_INTERPRET", None)  # compiled kernels, not the interpreter's
    if tools() is None:
        print("gpu_static: this Triton has no NVIDIA backend (ptxas, cuobjdump); nothing compiled", file=sys.stderr)
        return 2
    import triton

    rows = compile_all(args.rule or ["B3/S23", "B2-a/S12"], args.arch)
    print(markdown(rows, args.arch, triton.__version__))
    if args.json:
        args.json.write_text(json.dumps({"triton": triton.__version__, "arch": args.arch,
                                         "kernels": [asdict(r) for r in rows]}, indent=1))
    return 1 if any(r.local_bytes for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
