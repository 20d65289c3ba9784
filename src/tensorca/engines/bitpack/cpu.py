"""``bitpack-cpu``: two-state 3x3 rules, 64 cells per ``uint64`` word, Numba ``parallel=True``.

Per generation and output row the kernel does, for every word of 64 cells (all bitwise, no
per-cell work; see :mod:`.bitpack_circuit`):

1. build the west- and east-shifted copies of the row below (carry bits from the adjacent words;
   on a torus the carry of the first/last word comes from the other end of the row, which is the
   last *real* column, not a padding bit);
2. a full adder of (west, centre, east) gives that row's horizontal 3-sum as two bit-planes, kept
   in a small ring of three row buffers, so each row's sum is computed once and serves the three
   output rows it touches (rows stay in L1);
3. a vertical adder of the three row sums gives the 3x3 total (centre included) as four
   bit-planes, and the rule's expression, derived from its B/S sets, gives the next word; the last
   word of each row is masked so padding bits stay 0 (B0 rules would set them otherwise).

Every other two-state 3x3 table (Hensel letters, MAP strings, V and H rules) runs the table
kernels (:func:`direct_source`): each output word reads words k-1, k, k+1 of its three rows
(L1-resident), shifts them into the nine neighbour planes and runs the table's circuit from
:mod:`.bitpack_bdd`, inlined (no ring of row sums: at 1024^2 the ring's loads and stores cost more
than recomputing the shifts). A table that is B/S over the Moore
neighbourhood, however spelt (a MAP string of Life), runs the B/S kernels above.

Work is split over (grid, strip of rows) with ``prange``; each strip recomputes the two row sums
at its edges. Small grids in a batch run all generations inside one task (the grid stays in
cache, one parallel region for the whole run). Multi-generation runs stay packed.

Grids whose rows are short (at most :data:`COLUMN_MAX_WORDS` words, and at least four rows a
word: :func:`use_columns`) run the same expressions as **column kernels**
(:mod:`.bitpack_columns`): words held column by column, so the loops run down the rows and
vectorise at any width (1.8x at 1024^2, 10x and more for grids a word wide), and words whose
3x3 block of words equalled generation t - 2 are skipped (still lifes and period-2 ash cost
nothing once settled). Fewer grids than free cores run in bands of rows that take
:data:`BAND_GENERATIONS` extra rows either side and so need a barrier only once per that many
generations. Every module has them but the generic table module.

The kernel source (:mod:`.bitpack_rows`; the column kernels' :mod:`.bitpack_columns`) is generated
per rule (the expression is inlined) into a module in a cache directory and compiled with
``cache=True``, so a rule is compiled once per machine, not once per process. Numba never frees
compiled code, so a process compiles at most :data:`~.bitpack_circuit.MAX_SPECIALISED` rule-specific
modules; later rules run one generic module that reads the rule's truth table from an argument
(about 1.4x the time per generation); table rules past the cap share a generic table module that
runs the table's ROBDD given as data (:func:`.bitpack_bdd.mux_program`; correct, several times
slower).
The directory is ``$TENSORCA_CACHE_DIR/bitpack`` when that is set, else
``~/.cache/tensorca/bitpack``, else a temporary directory.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from ..._numba import numba  # the engine is registered lazily; this import is what it needs
from ...cpu_load import numba_threads_capped
from ...errors import EngineError
from ...randomness import Clock
from ...rules.base import Rule
from ...topology import Topology
from ..base import Engine
from .choice import specialise_in_background
from .circuit import rule_table
from .columns import change_bits, from_columns, to_columns
from .generations import advance_states
from .lanes import advance_lanes
from .lanes_layout import runs_tiled, use_lanes
from .noise import advance_stochastic, why_not_packed
from .pack import last_word_mask, unpack
from .row_packing import pack_alive
from .rows import SERIAL_WORK, run_row_kernels, table_kernels_for
from .tiles import advance_tiled

#: Widest rows (in words) that run the column kernels (:func:`use_columns`).
COLUMN_MAX_WORDS = 32
#: Runs of at least this many generations skip what has settled (:mod:`.bitpack_columns`; one
#: generation has nothing to skip, and the comparisons cost about 2% where nothing settles).
SKIP_MIN_GENERATIONS = 2
#: Column kernels on fewer grids than threads: grids of at least this many words run in bands of
#: rows, one task each, for up to BAND_GENERATIONS generations between barriers (each band carries
#: that many extra rows either side).
BAND_MIN_WORDS = 4096
BAND_GENERATIONS = 32


def use_columns(height: int, wp: int) -> bool:
    """Whether grids of ``height`` rows of ``wp`` words run the column kernels (which also skip
    what has settled): their loops run down the rows, the row kernels' along them, so the row
    kernels win once rows are long and grids short (single thread, dense soups, 2-core EPYC: 1.8x
    for columns at 1024 x 1024, 1.1x at 1024 x 2048 (wp 32), 0.7x at 1024 x 4096 and at 64 x 2048;
    ten times and more for grids one word wide)."""
    return wp <= COLUMN_MAX_WORDS and height >= 4 * wp


def advance_packed(words: np.ndarray, width: int, rule: Rule, torus: bool, generations: int) -> np.ndarray:
    """Advance packed ``(B, H, ceil(W/64))`` ``uint64`` grids; returns a new array (input untouched)."""
    module, lut = table_kernels_for(rule_table(rule))
    _, height, wp = words.shape
    valid = width - (wp - 1) * 64
    rs = np.uint64(valid - 1)
    mask = np.uint64(last_word_mask(width, 64))
    if generations == 0:
        return np.array(words, dtype=np.uint64, order="C", copy=True)
    if hasattr(module, "col_bands") and use_columns(height, wp):  # every module but the generic table one
        return _advance_columns(module, lut, words, torus, rs, mask, generations)
    src = np.array(words, dtype=np.uint64, order="C", copy=True)
    return run_row_kernels(module, lut, src, torus, rs, mask, generations)


def _advance_columns(module: ModuleType, lut: np.ndarray, words: np.ndarray, torus: bool, rs: np.uint64,
                     mask: np.uint64, generations: int, skip: bool | None = None) -> np.ndarray:
    """:func:`advance_packed` on the column kernels (:mod:`.bitpack_columns`), skipping what has
    settled when ``skip`` (by default: runs of at least :data:`SKIP_MIN_GENERATIONS`)."""
    n, height, wp = words.shape
    if skip is None:
        skip = generations >= SKIP_MIN_GENERATIONS
    src, dst = to_columns(words)
    if numba.get_num_threads() == 1 or n * height * wp * generations <= SERIAL_WORK:
        fa, fb = change_bits(n, wp, height)
        module.col_whole_serial(src, dst, fa, fb, torus, rs, mask, skip, generations, lut)
        return from_columns(dst if generations % 2 else src)
    with numba_threads_capped(numba) as threads:  # other processes' cores are not ours
        bands = min(-(-threads // n), height // (4 * BAND_GENERATIONS))
        if bands < 2 or height * wp < BAND_MIN_WORDS:  # one task per grid, no barrier between generations
            fa, fb = change_bits(n, wp, height)
            module.col_whole(src, dst, fa, fb, torus, rs, mask, skip, generations, lut)
            return from_columns(dst if generations % 2 else src)
        for done in range(0, generations, BAND_GENERATIONS):  # few big grids: bands, a barrier per epoch
            module.col_bands(src, dst, torus, rs, mask, skip, min(BAND_GENERATIONS, generations - done), bands, lut)
            src, dst = dst, src
    return from_columns(src)


class BitpackCpuEngine(Engine):
    """``backend="bitpack-cpu"``: 3x3 table rules (B/S, Hensel, MAP, V, H), two-state or Generations
    (:mod:`.bitpack_generations`), torus and bounded plane."""

    name = "bitpack-cpu"
    array_module = "numpy"

    #: uint8 input, the boolean alive grid, two packed buffers (1/8 byte each), uint8 output.
    bytes_per_cell = 3.5

    def cell_bytes(self, rule: Rule | None = None) -> float:
        if rule is not None and rule.n_states > 2:
            # Generations: the input plus the peak traced while packing/unpacking (1024^2, tracemalloc:
            # 3.6 bytes a cell for 3 states, 3.9 for 4, 5.4 for 256), rounded up
            return 1.0 + 3.5 + (rule.n_states - 2).bit_length() / 4
        return self.bytes_per_cell

    def devices(self) -> list[str]:
        return ["cpu"]

    def supports(self, rule: Rule, topology: Topology) -> bool:
        return why_not_packed(rule.compile(), topology) is None

    def why_unsupported(self, rule: Rule, topology: Topology) -> str:
        reason = why_not_packed(rule.compile(), topology)
        return f"engine {self.name!r} cannot run {rule.canonical() or rule!r} on {topology}: {reason or 'supported'}"

    def advance(self, cells: np.ndarray, rule: Rule, topology: Topology, generations: int, *,
                clock: Clock | None = None) -> np.ndarray:
        """As :meth:`Engine.advance`; a noisy rule draws from ``clock`` (None: seed 0, generation 0)."""
        spec = rule.compile()
        if why_not_packed(spec, topology) is not None:
            raise EngineError(self.why_unsupported(rule, topology))
        if spec.stochastic:
            return advance_stochastic(np.asarray(cells), spec, topology, generations, clock or Clock())
        if spec.decay:  # Generations: an alive plane and a decay counter
            return advance_states(cells, spec, topology, generations)
        cells = np.asarray(cells)
        torus = topology.kind == "torus"
        table = bytes(spec.update.table)  # why_not_bitpack passed: a 3x3 table
        if specialise_in_background(rule, table, cells.shape, topology):
            pass  # the generic packed kernels below run now; the rule's own compile meanwhile
        elif use_lanes(cells.shape):  # many small grids: one grid per bit lane
            out = advance_lanes(cells, table, torus, generations)
            if out is not None:
                return out
        elif runs_tiled(cells.shape):
            out = advance_tiled(cells, table, torus, generations)  # one grid as 64 lane tiles
            if out is not None:
                return out
        _, _, width = cells.shape
        words = pack_alive(cells)
        out = advance_packed(words, width, rule, torus, generations)
        return unpack(out, width)


__all__ = ["BitpackCpuEngine", "advance_packed", "use_columns"]
