"""``bitpack-gpu``: two-state 3x3 rules, 32 cells per word, Triton kernels on CUDA tensors.

The grid is packed on the device (:func:`.bitpack_pack.pack_torch`) into ``(B, H, ceil(W/32))``
``int32`` words (the kernels reinterpret them as ``uint32``) and stays packed for the whole run.
Per word, the kernels do what :mod:`.bitpack_cpu` does: west/east-shifted rows with carry bits from
the adjacent words (on a torus the first/last word take their carry from the other end of the
row, the last *real* column), a full adder per row, the vertical adder to the 3x3 total as four
bit-planes, and the rule's expression from :mod:`.bitpack_circuit`; padding bits are masked to 0
after every generation.

Three kernels, chosen by grid size:

- ``step_kernel``: one generation per launch, 2-D tiles of ``BR`` rows x ``BW`` words, the nine
  neighbour words loaded through the cache (each word leaves DRAM about once). Tiles away from the
  grid's edges (about 87% of a 16384^2 grid's 32 x 32-word tiles) branch to a path with no wrapped
  index, no mask, no carry select and no padding to clear: compiled for sm_90 it costs ~30 SASS
  instructions a word against ~70-110 for the edge path (``benchmarks/gpu_static.py``);
  ``lanes_step_kernel`` does the same (~25-30 against 52-91).
- ``multi_kernel`` (temporal blocking): ``G`` generations per launch. A program loads a tile with a
  halo of ``G`` rows and one word each side, keeps the intermediate generations in a
  program-private scratch (L1/L2-resident) and writes back only the interior, which is still
  exact after ``G`` generations. Used when ``gens_per_launch > 1``.
- ``whole_kernel``: a persistent loop for small grids: one program per grid runs *all*
  generations in one launch (ping-pong in scratch, a barrier between generations), so launch
  overhead is paid once per run, not once per generation.

Batches of at least ``lanes_min_batch`` grids run *lane-per-grid* instead (bit ``j`` of word
``[g, y, x]`` is cell ``(y, x)`` of grid ``32 g + j``, as :func:`.bitpack_pack.pack_lanes_torch`
defines it; ``lanes_pack_kernel`` and ``lanes_unpack_kernel``, one module for every rule, convert
in one pass each), the layout ``bitpack-cpu`` uses for batches (:mod:`.bitpack_lanes`): a word's
eight neighbours are the eight words around it, so a generation is three full adders and the rule,
with no shifts, no carry bits across words and no padding bits to clear, and a 16-wide grid no
longer leaves half of every word idle. ``lanes_step_kernel`` runs one generation per launch over
tiles of words; ``lanes_whole_kernel`` runs all generations of one group (32 grids) per program,
``BR`` rows at a time, when each group is small and there are enough groups to fill the device.

Triton's interpreter (``TRITON_INTERPRET=1``) runs the same kernels on CPU tensors; that is how
they are tested where there is no GPU, and ``benchmarks/gpu_static.py`` compiles them for sm_90
(no GPU needed) to check what the interpreter cannot: that they compile, and spill nothing. Only
long-stable Triton APIs are used (``tl.load``/``store``, ``program_id``, ``arange``, ``where``,
shifts on ``uint32``, ``static_range``, ``debug_barrier``): the interpreted tests pass and every
kernel compiles under Triton 3.6 (the CUDA machine's) as under 3.9. (Triton 3.6's interpreter
itself needs NumPy < 2: with 2.2 it fails on ``~`` of a ``uint32``, with 2.4 on ``range`` over a
scalar argument; compiled kernels are not affected.)

Tables that are not B/S over the Moore neighbourhood (Hensel letters, MAP strings, V and H rules)
run the same kernels with ``_row_sum``/``_combine`` swapped for the table's circuit over the nine
neighbour planes (:func:`planes_source`, the circuits of :mod:`.bitpack_bdd`, the same ones
``bitpack-cpu`` runs).

The kernel module is generated per rule (the expression inlined) into the same cache directory as
the CPU kernels; Triton compiles it once per rule and caches the binary itself. The kernels' source
(the template, the row functions, the generated modules) is :mod:`.bitpack_gpu_kernels`; this module
chooses and launches them.
"""

from __future__ import annotations

from typing import Any

import torch
import triton  # noqa: F401  (the engine is registered lazily; this import is what it needs)

from ...errors import EngineError, UsageError
from ...rules.base import Rule
from ...topology import Topology
from ..base import Engine
from .circuit import rule_table, why_not_bitpack
from .gpu_kernels import interpreting, lane_packing_module, table_module
from .pack import LANES_32 as LANES
from .pack import last_word_mask, pack_torch, unpack_torch

#: CUDA caps a launch grid's second and third dimensions at 65535 programs; the batch is the third.
MAX_GRIDS_PER_LAUNCH = 65535
#: Batches of at least this many grids run lane-per-grid (32 lanes a word), where the grids are
#: also at most :data:`LANES_MAX_WIDTH` cells wide. 24 as on the CPU (``lanes_layout.MIN_BATCH``):
#: on an H200 (2026-12-04, ``benchmarks/gpu_layouts.py``) lanes already won for 4 grids of 16^2.
LANES_MIN_BATCH = 24
#: Widest grid that runs lane-per-grid on a GPU. Measured on an H200 (2026-12-04,
#: ``bench_bitpack.py --device cuda``, kernels alone, B3/S23 tori, 256 generations): for 16^2 grids,
#: where a row-packed row fills half a word, lanes ran 4.42 T cell updates/s against 0.55 T for
#: rows; for 64^2 and 256^2, where rows fill their words, rows with the whole-grid kernel ran 5.37
#: and 3.06 T against 3.98 and 1.11 T for the best lane kernel. The count (~71 operations a row
#: word, ~37 a lane word) had predicted lanes for every size: the whole-grid row kernel keeps a
#: grid in registers, which the count left out.
LANES_MAX_WIDTH = 16
#: Most words a ``whole_kernel`` thread holds (one program per grid, the grid in registers). With
#: 4 warps for 4096 words (32 a thread) ptxas for sm_90 spilled 80 to 560 bytes a thread (Triton
#: 3.9); 16 warps for 4096 cap a thread at 128 registers and Triton 3.6's code still spilled 136 to
#: 200 bytes on a torus. 8 warps for 2048 words (8 a thread, ``whole_max_words``): 92 to 240
#: registers, no spills, in both versions (``benchmarks/gpu_static.py`` compiles and reads them back
#: with no GPU).
WHOLE_WORDS_PER_THREAD = 8
#: Most words a forced ``whole_kernel`` (``mode="whole"``, tests and benchmarks) holds; larger grids
#: run the step kernel. A program's tile is the whole grid, unrolled: for sm_90 8192 words compiled in
#: 6 s (264 bytes spilled a thread), 16384 in 10 s (4440 bytes), and a 4096^2 grid would be 512k.
WHOLE_FORCED_MAX_WORDS = 8192
#: Smallest ``whole_kernel`` tile (rows, words). Each tile shape is its own compiled kernel (~0.4 s
#: per rule and topology); without a floor, grids of 1, 5 and 17 rows compiled three.
WHOLE_MIN_TILE = (32, 2)
#: Generations per ``multi_kernel`` launch when the caller sets none, for batches of at most
#: ``MULTI_MAX_WORDS`` words (one 4096^2 grid). Measured on an H200 (2026-12-04,
#: ``bench_bitpack.py --device cuda``, B3/S23 tori, 256 generations): 8 a launch ran 1024^2 at
#: 0.39 T cell updates/s against 0.06 T for one (launch overhead dominates a small grid), 2048^2 at
#: 0.93 against 0.14 T, 4096^2 at 1.61 against 0.57 T; at 16384^2 one a launch won, 4.84 against
#: 2.23 T (the halo work of a temporal block costs more than the launches it saves). 8192^2 was
#: not measured, so the line sits at the largest size measured to gain.
MULTI_GENERATIONS = 8
MULTI_MAX_WORDS = 4096 * 4096 // 32
#: Cells per program of the lane packing kernels.
_PACK_BLOCK = 1024


def _pow2(n: int) -> int:
    return 1 << max(0, (int(n) - 1).bit_length())


def _multiprocessors(device: Any) -> int:
    """Streaming multiprocessors of a CUDA device (1 for the interpreter's CPU tensors)."""
    if device.type != "cuda":
        return 1
    return int(torch.cuda.get_device_properties(device).multi_processor_count)


def _as_i32(mask: int) -> int:
    return mask - (1 << 32) if mask >= 1 << 31 else mask


class BitpackGpu:
    """Launch parameters of the kernels (the engine's knobs; see ``benchmarks/bench_bitpack.py``).

    ``gens_per_launch``: generations per ``multi_kernel`` launch (1 = ``step_kernel``); None
    chooses per call (:meth:`launch_generations`).
    ``block_rows`` x ``block_words``: the tile of ``step_kernel`` and ``multi_kernel``.
    ``interior``: tiles of ``step_kernel`` and ``lanes_step_kernel`` away from the grid's edges
    (:meth:`interior_tiles`) take a path with no wrap, mask or carry select (``INSIDE`` in
    ``_next_global`` and ``_next_lanes``); False runs every tile the edge way (for benchmarks:
    ``bench_bitpack.py --device cuda`` times both).
    ``whole_max_words``: grids whose tile (:meth:`whole_tile`) holds at most this many words run
    all generations in one ``whole_kernel`` launch (:meth:`runs_whole`), with enough warps
    (:meth:`whole_warps`) that a thread holds at most :data:`WHOLE_WORDS_PER_THREAD` words.

    Lane-per-grid batches (:meth:`advance_lanes`): ``lanes_min_batch`` grids or more of at most
    ``lanes_max_width`` cells a row run that way (:meth:`uses_lanes`; ``None`` never);
    ``lanes_whole_max_words``: groups of at most this many words per grid run whole (all
    generations in one launch) when there are at least ``lanes_whole_min_groups`` groups per
    multiprocessor, ``lanes_block`` words per program and row block. Measured on an H200
    (``benchmarks/gpu_layouts.py``, 2026-12-04): the whole-group kernel beat one generation a
    launch from a single group (3.6 against 0.7 G cell updates/s for 4 x 64^2, 1.2 against 0.05
    for 4 x 16^2), so the default is 0: every group small enough runs whole.
    """

    def __init__(self, gens_per_launch: int | None = None, block_rows: int = 32, block_words: int = 32,
                 whole_max_words: int = 2048, num_warps: int = 4, lanes_min_batch: int | None = LANES_MIN_BATCH,
                 lanes_max_width: int = LANES_MAX_WIDTH,
                 lanes_whole_max_words: int = 128 * 128, lanes_whole_min_groups: float = 0.0,
                 lanes_block: int = 1024, interior: bool = True):
        self.gens_per_launch = gens_per_launch
        self.interior = interior
        self.block_rows = block_rows
        self.block_words = block_words
        self.whole_max_words = whole_max_words
        self.num_warps = num_warps
        self.max_grids_per_launch = MAX_GRIDS_PER_LAUNCH
        self.lanes_min_batch = lanes_min_batch
        self.lanes_max_width = lanes_max_width
        self.lanes_whole_max_words = lanes_whole_max_words
        self.lanes_whole_min_groups = lanes_whole_min_groups
        self.lanes_block = lanes_block

    def launch_generations(self, words: int) -> int:
        """Generations per launch for a batch of ``words`` packed words in all: ``gens_per_launch``
        where set, else :data:`MULTI_GENERATIONS` up to :data:`MULTI_MAX_WORDS` words and 1 beyond."""
        if self.gens_per_launch is not None:
            return self.gens_per_launch
        return MULTI_GENERATIONS if words <= MULTI_MAX_WORDS else 1

    def interior_tiles(self, h: int, wp: int) -> tuple[int, int]:
        """``(interior, all)`` tiles of ``step_kernel`` on ``h`` rows of ``wp`` words (and of
        ``lanes_step_kernel`` on ``h`` x ``wp`` lane words, whose tile is the same wherever a grid
        has three tiles a side): the interior ones (not in the first tile row or column, and their
        neighbour words all inside the grid) read every neighbour word unmasked and unwrapped; 0
        interior when ``interior`` is off."""
        rows, cols = -(-h // self.block_rows), -(-wp // self.block_words)
        inner_rows = sum(1 for p in range(1, rows) if (p + 1) * self.block_rows < h)
        inner_cols = sum(1 for p in range(1, cols) if (p + 1) * self.block_words < wp)
        return (inner_rows * inner_cols if self.interior else 0), rows * cols

    def uses_lanes(self, batch: int, width: int) -> bool:
        """True when a batch of ``batch`` grids ``width`` cells wide runs lane-per-grid
        (:meth:`advance_lanes`): at least ``lanes_min_batch`` grids of at most ``lanes_max_width``
        cells a row."""
        return (self.lanes_min_batch is not None and batch >= self.lanes_min_batch
                and width <= self.lanes_max_width)

    @staticmethod
    def whole_tile(h: int, wp: int) -> tuple[int, int]:
        """``(BR, BW)`` of ``whole_kernel`` for ``h`` rows of ``wp`` words: powers of two, at least
        :data:`WHOLE_MIN_TILE`, so that every small grid shares one compiled kernel per rule."""
        return max(WHOLE_MIN_TILE[0], _pow2(h)), max(WHOLE_MIN_TILE[1], _pow2(wp))

    def runs_whole(self, h: int, wp: int, mode: str = "auto") -> bool:
        """True when :meth:`advance_packed` runs ``h`` rows of ``wp`` words in ``whole_kernel``: its
        tile (:meth:`whole_tile`) at most ``whole_max_words`` (``mode="auto"``) or
        :data:`WHOLE_FORCED_MAX_WORDS` (``"whole"``) words."""
        br, bw = self.whole_tile(h, wp)
        words = br * bw
        if mode == "whole":
            return words <= WHOLE_FORCED_MAX_WORDS
        return mode == "auto" and words <= max(self.whole_max_words, 1)

    def whole_warps(self, words: int) -> int:
        """Warps of a ``whole_kernel`` program holding ``words`` words: ``num_warps``, or more (up to
        8) so that a thread holds at most :data:`WHOLE_WORDS_PER_THREAD` words."""
        return max(self.num_warps, min(8, -(-words // (32 * WHOLE_WORDS_PER_THREAD))))

    def lanes_whole_tile(self, h: int, w: int) -> tuple[int, int] | None:
        """``(BR, BW)`` block of ``lanes_whole_kernel`` for ``h x w`` lane words (``BW >= w``, about
        ``lanes_block`` words); None when a row is wider than ``lanes_block``."""
        bw = _pow2(w)
        if bw > self.lanes_block:
            return None
        return max(1, min(_pow2(h), self.lanes_block // bw)), bw

    def lanes_step_tile(self, h: int, w: int) -> tuple[int, int]:
        """``(BR, BW)`` tile of ``lanes_step_kernel`` for ``h x w`` lane words."""
        return min(self.block_rows, _pow2(h)), min(self.block_words, _pow2(w))

    def _group_spans(self, groups: int):
        """``(g0, g1)`` runs of at most ``max_grids_per_launch`` groups (a launch grid's 2nd dimension)."""
        for g0 in range(0, groups, self.max_grids_per_launch):
            yield g0, min(groups, g0 + self.max_grids_per_launch)

    def pack_lanes(self, cells: Any) -> Any:
        """``(B, H, W)`` ``uint8`` 0/1 cells -> ``(ceil(B/32), H, W)`` ``int32`` lane words on the same
        device, in one pass (:func:`.bitpack_pack.pack_lanes_torch` defines the layout)."""
        kernel = lane_packing_module().lanes_pack_kernel
        batch, h, w = (int(s) for s in cells.shape)
        words = torch.empty((-(-batch // LANES), h, w), dtype=torch.int32, device=cells.device)
        cells = cells.contiguous()
        for g0, g1 in self._group_spans(len(words)):
            kernel[(triton.cdiv(h * w, _PACK_BLOCK), g1 - g0)](cells[g0 * LANES :], words[g0:g1], batch - g0 * LANES,
                                                               h * w, BLOCK=_PACK_BLOCK)
        return words

    def unpack_lanes(self, words: Any, batch: int) -> Any:
        """``(G, H, W)`` lane words -> ``(batch, H, W)`` ``uint8`` 0/1 cells on the same device."""
        kernel = lane_packing_module().lanes_unpack_kernel
        groups, h, w = (int(s) for s in words.shape)
        if batch > groups * LANES:
            raise UsageError(f"{groups} groups of lane words hold at most {groups * LANES} grids, not {batch}")
        cells = torch.empty((batch, h, w), dtype=torch.uint8, device=words.device)
        words = words.contiguous()
        for g0, g1 in self._group_spans(groups):
            kernel[(triton.cdiv(h * w, _PACK_BLOCK), g1 - g0)](words[g0:g1], cells[g0 * LANES :], batch - g0 * LANES,
                                                               h * w, BLOCK=_PACK_BLOCK)
        return cells

    def advance_lanes(self, words: Any, rule: Rule, torus: bool, generations: int, mode: str = "auto") -> Any:
        """Advance ``(G, H, W)`` ``int32`` lane words (:func:`.bitpack_pack.pack_lanes_torch`) by
        ``generations``; returns a new tensor.

        ``mode``: ``"auto"``, ``"step"`` (one generation per launch) or ``"whole"`` (all generations
        per launch, one group per program; falls back to ``"step"`` when a row of words is wider
        than ``lanes_block``).
        """
        groups, h, w = (int(s) for s in words.shape)
        if groups > self.max_grids_per_launch:  # the step kernel's grid caps its third dimension
            step = self.max_grids_per_launch
            return torch.cat([self.advance_lanes(words[i : i + step], rule, torus, generations, mode)
                              for i in range(0, groups, step)])
        if generations == 0 or groups == 0:
            return words.contiguous().clone()
        module = table_module(rule_table(rule))
        tile = self.lanes_whole_tile(h, w)
        whole_ok = tile is not None
        if mode == "auto":
            whole_ok = (whole_ok and h * w <= self.lanes_whole_max_words
                        and groups >= self.lanes_whole_min_groups * _multiprocessors(words.device))
        if mode in ("auto", "whole") and whole_ok:
            assert tile is not None
            work = torch.empty((groups, 2, h, w), dtype=torch.int32, device=words.device)
            work[:, 0] = words
            module.lanes_whole_kernel[(groups,)](work, h, w, generations, TORUS=torus, BR=tile[0], BW=tile[1],
                                                 num_warps=self.num_warps)
            return work[:, generations % 2].contiguous()
        br, bw = self.lanes_step_tile(h, w)
        grid = (triton.cdiv(w, bw), triton.cdiv(h, br), groups)
        src = words.contiguous().clone()  # the launches write into both buffers; the input stays
        dst = torch.empty_like(src)
        for _ in range(generations):
            module.lanes_step_kernel[grid](src, dst, h, w, TORUS=torus, BR=br, BW=bw, INTERIOR=self.interior,
                                           num_warps=self.num_warps)
            src, dst = dst, src
        return src

    def advance_packed(self, words: Any, width: int, rule: Rule, torus: bool, generations: int,
                       mode: str = "auto") -> Any:
        """Advance ``(B, H, ceil(W/32))`` ``int32`` words by ``generations``; returns a new tensor.

        ``mode``: ``"auto"``, ``"step"``, ``"multi"`` or ``"whole"`` (forcing a kernel, for tests
        and benchmarks; ``"multi"`` and ``"whole"`` fall back to ``"step"`` where they cannot run,
        ``"whole"`` also past :data:`WHOLE_FORCED_MAX_WORDS`: see :meth:`runs_whole`).
        """
        if int(words.shape[0]) > self.max_grids_per_launch:  # split the batch across launches
            step = self.max_grids_per_launch
            return torch.cat([self.advance_packed(words[i : i + step], width, rule, torus, generations, mode)
                              for i in range(0, int(words.shape[0]), step)])
        module = table_module(rule_table(rule))
        n, h, wp = (int(s) for s in words.shape)
        valid = width - (wp - 1) * 32
        rs = valid - 1
        mask = _as_i32(last_word_mask(width, 32))
        if generations == 0 or n == 0:
            return words.contiguous().clone()
        if self.runs_whole(h, wp, mode):
            br, bw = self.whole_tile(h, wp)
            work = torch.empty((n, 2, h, wp), dtype=torch.int32, device=words.device)
            work[:, 0] = words
            module.whole_kernel[(n,)](work, h, wp, rs, mask, generations, TORUS=torus, BR=br, BW=bw,
                                      num_warps=self.whole_warps(br * bw))
            return work[:, generations % 2].contiguous()
        g = self.launch_generations(n * h * wp) if mode in ("auto", "multi") else 1
        if mode == "multi" and g < 2:
            g = 2
        BR, BW = self.block_rows, self.block_words
        if torus:
            g = min(g, valid)
        if g > 1 and (h < BR or wp < BW or BR - 2 * g < 1 or BW < 3):
            g = 1
        src = words.contiguous().clone()  # the launches write into both buffers; the input stays
        dst = torch.empty_like(src)
        done = 0
        scratch = None
        while done < generations:
            k = min(g, generations - done)
            if k > 1:
                grid = (triton.cdiv(wp, BW - 2), triton.cdiv(h, BR - 2 * k), n)
                need = grid[0] * grid[1] * grid[2] * 2 * BR * BW
                if scratch is None or scratch.numel() < need:
                    scratch = torch.empty(need, dtype=torch.int32, device=words.device)
                module.multi_kernel[grid](src, dst, scratch, h, wp, rs, mask, TORUS=torus, G=k, BR=BR, BW=BW,
                                          num_warps=self.num_warps)
            else:
                grid = (triton.cdiv(wp, BW), triton.cdiv(h, BR), n)
                module.step_kernel[grid](src, dst, h, wp, rs, mask, TORUS=torus, BR=BR, BW=BW, INTERIOR=self.interior,
                                         num_warps=self.num_warps)
            src, dst = dst, src
            done += k
        return src


class BitpackGpuEngine(Engine):
    """``backend="bitpack-gpu"``: two-state 3x3 table rules on CUDA tensors (Triton)."""

    name = "bitpack-gpu"
    array_module = "torch"

    def __init__(self, launcher: BitpackGpu | None = None):
        self.launcher = launcher or BitpackGpu()

    #: uint8 input, the boolean alive grid, packed words (two buffers), uint8 output and unpacking temporaries.
    bytes_per_cell = 4.0

    def devices(self) -> list[str]:
        if interpreting():
            return ["cpu"]
        return ["cuda"] if torch.cuda.is_available() else []

    def supports(self, rule: Rule, topology: Topology) -> bool:
        return why_not_bitpack(rule.compile(), topology) is None

    def why_unsupported(self, rule: Rule, topology: Topology) -> str:
        reason = why_not_bitpack(rule.compile(), topology)
        return f"engine {self.name!r} cannot run {rule.canonical() or rule!r} on {topology}: {reason or 'supported'}"

    def advance(self, cells: Any, rule: Rule, topology: Topology, generations: int) -> Any:
        if why_not_bitpack(rule.compile(), topology) is not None:
            raise EngineError(self.why_unsupported(rule, topology))
        device = cells.device.type
        if device != "cuda" and not (interpreting() and device == "cpu"):
            raise EngineError(
                f"engine 'bitpack-gpu' runs on CUDA tensors (or CPU tensors with TRITON_INTERPRET=1), "
                f"got a {device} tensor"
            )
        batch, width = int(cells.shape[0]), int(cells.shape[2])
        torus = topology.kind == "torus"
        if self.launcher.uses_lanes(batch, width):
            alive = (cells == 1).view(torch.uint8)
            lanes = self.launcher.advance_lanes(self.launcher.pack_lanes(alive), rule, torus, generations)
            return self.launcher.unpack_lanes(lanes, batch)
        words = pack_torch(cells == 1)
        out = self.launcher.advance_packed(words, width, rule, torus, generations)
        return unpack_torch(out, width)


__all__ = ["BitpackGpu", "BitpackGpuEngine"]
