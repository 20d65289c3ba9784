"""The boolean circuits of the bit-packed engines: B/S count circuits, the kernel-module cache.

A bit-packed engine holds 32 or 64 cells per word and never looks at one cell at a time. Per
output word it computes, with bitwise full adders, the *bit-sliced* 3x3 total ``T`` (the eight
neighbours plus the centre cell, 0..9) as four bit-planes ``t0..t3``, then applies the rule as
one short boolean expression over ``t0, t1, t2, t3`` and the centre bit-plane ``c``:

    next = (c and T - 1 in S) or (not c and T in B)

Counting the centre into the total lets each row's horizontal 3-sum (two bit-planes) serve the
three output rows it touches, so a generation costs one horizontal full adder per row plus the
vertical adder below.

The rule expression is a minimal sum of products found by Quine-McCluskey over the five inputs,
with the impossible totals 10..15 as don't-cares; the complement is minimised too and the
shortest of ``f``, ``~(~f)`` and ``(f ^ v) ^ v`` for each input ``v`` is kept. Expressions are
plain Python text using only ``& | ^ ~`` and parentheses, so the same string is valid inside a
Numba function over ``uint64`` and a Triton kernel over ``uint32``.

Counts of logic operations per word (the "floor" the benchmarks compare against) come from
:func:`op_count`.

Every other two-state 3x3 table (Hensel letters, MAP strings, V and H neighbourhoods) runs a
circuit over the nine neighbour planes built by :mod:`.bitpack_bdd`; a table that is B/S over
the Moore neighbourhood, however spelt, runs the count circuit above (:func:`kernel_key`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
import tempfile
import threading
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from pathlib import Path
from types import ModuleType

import numpy as np

from ...cache_dirs import cache_epoch, cache_root, compiled_on_disk, numba_cache_dir
from ...errors import EngineError
from ...rules.base import Rule
from ...rules.stepspec import StepSpec, TableUpdate
from ...topology import Topology

#: Input names of the rule expression, bit 0 of the truth-table index first.
INPUTS = ("t0", "t1", "t2", "t3", "c")
_N = len(INPUTS)

#: Source lines (Python syntax, valid in Numba and Triton) of the horizontal 3-sum of one row:
#: inputs ``w`` (west-shifted row), ``m`` (the row), ``e`` (east-shifted row); outputs ``lo, hi``.
ROW_SUM = ("x = w ^ m", "lo = x ^ e", "hi = (w & m) | (x & e)")

#: Source lines adding three 2-bit row sums ``(a0, a1)``, ``(b0, b1)``, ``(d0, d1)`` into the
#: 4-bit total ``t0..t3`` (0..9).
TOTAL = (
    "x0 = a0 ^ b0",
    "t0 = x0 ^ d0",
    "k0 = (a0 & b0) | (x0 & d0)",
    "x1 = a1 ^ b1",
    "s1 = x1 ^ d1",
    "k1 = (a1 & b1) | (x1 & d1)",
    "t1 = s1 ^ k0",
    "k2 = s1 & k0",
    "t2 = k1 ^ k2",
    "t3 = k1 & k2",
)

#: Source lines computing the count planes ``t0..t3`` (3x3 total with the centre) from the nine
#: neighbour planes ``nw, n, ne, w, c, e, sw, s, se``: three row sums, then :data:`TOTAL`. For
#: table circuits that read counts (every bit-packed engine's table kernels).
PLANE_COUNTS = (
    "xa = nw ^ n", "a0 = xa ^ ne", "a1 = (nw & n) | (xa & ne)",
    "xb = w ^ c", "b0 = xb ^ e", "b1 = (w & c) | (xb & e)",
    "xd = sw ^ s", "d0 = xd ^ se", "d1 = (sw & s) | (xd & se)",
) + TOTAL


#: The start of every generated bit-packed CPU module: imports and the word constants.
MODULE_PRELUDE = '''import numpy as np
from numba import njit, prange

U0 = np.uint64(0)
U1 = np.uint64(1)
U63 = np.uint64(63)
'''

#: ``_we``: the (west-shifted, word, east-shifted) planes of one word of a packed row, with the
#: carries at the row ends (wrapped on a torus, dead on a plane): the row kernels of bitpack-cpu
#: and of its Generations variant.
WE_SOURCE = '''def _we(g, gb, gy, k, wp, wrap, rs):
    """(west-shifted, word, east-shifted) of word k of row (gb, gy) of g, carries at the row ends."""
    m = g[gb, gy, k]
    if k > 0:
        cw = g[gb, gy, k - 1] >> U63
    elif wrap:
        cw = (g[gb, gy, wp - 1] >> rs) & U1
    else:
        cw = U0
    if k < wp - 1:
        ce = g[gb, gy, k + 1] << U63
    elif wrap:
        ce = (g[gb, gy, 0] & U1) << rs
    else:
        ce = U0
    return (m << U1) | cw, m, (m >> U1) | ce
'''


def we_source(inline: bool) -> str:
    """:data:`WE_SOURCE` as a Numba function, inlined into its callers or not."""
    decorator = '@njit(cache=True, inline="always")' if inline else "@njit(cache=True)"
    return decorator + "\n" + WE_SOURCE


def truth_table(birth: frozenset[int], survival: frozenset[int]) -> tuple[set[int], set[int]]:
    """``(ones, dont_cares)`` over the 32 input combinations, index = t0 + 2 t1 + 4 t2 + 8 t3 + 16 c.

    ``T`` counts the centre: a live cell with total ``T`` has ``T - 1`` neighbours. Totals above 9
    cannot occur (and neither can a live cell with total 0) and are don't-cares.
    """
    ones: set[int] = set()
    dont: set[int] = set()
    for centre in (0, 1):
        for total in range(16):
            index = total + 16 * centre
            neighbours = total - centre
            if total > 9 or neighbours < 0 or neighbours > 8:
                dont.add(index)
            elif (centre and neighbours in survival) or (not centre and neighbours in birth):
                ones.add(index)
    return ones, dont


@dataclass(frozen=True)
class Implicant:
    """A product term: the inputs in ``care`` (bit mask) must equal the bits of ``value``."""

    value: int
    care: int

    def covers(self, index: int) -> bool:
        return (index & self.care) == self.value


def _prime_implicants(ones: set[int], dont: set[int]) -> list[Implicant]:
    full = (1 << _N) - 1
    current = {Implicant(i, full) for i in ones | dont}
    primes: set[Implicant] = set()
    while current:
        merged: set[Implicant] = set()
        used: set[Implicant] = set()
        for a, b in combinations(sorted(current, key=lambda t: (t.care, t.value)), 2):
            if a.care != b.care:
                continue
            diff = a.value ^ b.value
            if diff and diff & (diff - 1) == 0:
                merged.add(Implicant(a.value & ~diff, a.care & ~diff))
                used.update((a, b))
        primes |= current - used
        current = merged
    return sorted(primes, key=lambda t: (bin(t.care).count("1"), t.care, t.value))


def _cover(ones: set[int], primes: list[Implicant]) -> list[Implicant]:
    """A small cover of ``ones``: essential primes first, then greedily the prime covering most."""
    left = set(ones)
    chosen: list[Implicant] = []
    for m in sorted(ones):
        covering = [p for p in primes if p.covers(m)]
        if len(covering) == 1 and covering[0] not in chosen:
            chosen.append(covering[0])
    for p in chosen:
        left -= {m for m in left if p.covers(m)}
    while left:
        best = max(primes, key=lambda p: (sum(p.covers(m) for m in left), -bin(p.care).count("1")))
        chosen.append(best)
        left -= {m for m in left if best.covers(m)}
    return chosen


def minimise(ones: set[int], dont: set[int]) -> list[Implicant]:
    """A minimal-ish sum of products for the function with minterms ``ones`` (``[]`` = constant 0)."""
    if not ones:
        return []
    return _cover(ones, _prime_implicants(ones, dont))


def _product(term: Implicant) -> str:
    literals = []
    for bit, name in enumerate(INPUTS):
        if term.care >> bit & 1:
            literals.append(name if term.value >> bit & 1 else f"~{name}")
    return " & ".join(literals)


def _sop(terms: list[Implicant]) -> str:
    if not terms:
        return "(c ^ c)"  # constant 0, typed like the inputs
    if any(t.care == 0 for t in terms):
        return "~(c ^ c)"  # constant 1
    parts = [_product(t) for t in terms]
    return " | ".join(f"({p})" if len(terms) > 1 and "&" in p else p for p in parts)


def op_count(expression: str) -> int:
    """Binary and unary bitwise operators in ``expression`` (``&``, ``|``, ``^``, ``~``).

    Negations of the same input are counted once (compilers share them).
    """
    binary = sum(expression.count(op) for op in "&|^")
    nots = {expression[i + 1 : i + 3] for i, ch in enumerate(expression) if ch == "~"}
    return binary + len(nots)


def _factored(terms: list[Implicant]) -> str | None:
    """``terms`` as one product of the literals they all share AND the sum of what is left
    (Life in difference coordinates: ``~s1 & s2 & (t0 | c)``), or None when they share none."""
    if len(terms) < 2:
        return None
    shared = (1 << _N) - 1
    for term in terms:
        shared &= term.care & ~(term.value ^ terms[0].value)
    if not shared:
        return None
    common = _product(Implicant(terms[0].value & shared, shared))
    rest = _sop([Implicant(t.value & ~shared, t.care & ~shared) for t in terms])
    return f"{common} & ({rest})"


def _forms(terms: list[Implicant]) -> list[str]:
    """The sum of products of ``terms`` and, where they share literals, its factored form."""
    factored = _factored(terms)
    return [_sop(terms)] + ([factored] if factored else [])


def best_expression(ones: set[int], dont: set[int], absent: frozenset[int] = frozenset()) -> str:
    """The shortest of several minimised forms of the 5-input function with minterms ``ones`` and
    don't-cares ``dont`` (index as in :func:`truth_table`); the input bits in ``absent`` do not
    exist where the expression runs (the function must not depend on them)."""
    everything = set(range(1 << _N))
    zeros = everything - ones - dont
    candidates = [*_forms(minimise(ones, dont)), *(f"~({form})" for form in _forms(minimise(zeros, dont)))]
    # f = g ^ v for an input v can be much shorter (B1357/S1357 is t0 ^ c).
    for bit, name in enumerate(INPUTS):
        if bit in absent:
            continue
        flipped = {i for i in everything - dont if (i in ones) != bool(i >> bit & 1)}
        if flipped and flipped != everything - dont:
            candidates.append(f"({_sop(minimise(flipped, dont))}) ^ {name}")
    return min(candidates, key=op_count)


@lru_cache(maxsize=1024)
def rule_expression(birth: frozenset[int], survival: frozenset[int]) -> str:
    """The next-state bit-plane as an expression over ``t0, t1, t2, t3, c`` (see module docstring)."""
    ones, dont = truth_table(frozenset(birth), frozenset(survival))
    return best_expression(ones, dont)


@lru_cache(maxsize=1024)
def difference_expression(birth: frozenset[int], survival: frozenset[int]) -> str | None:
    """The next-state bit-plane over ``t0, s1 = t0 ^ t1, s2 = t1 ^ t2, c`` (the total's bits
    0..2 in *difference coordinates*), or None when the rule tells a total of 8 or 9 from one of 0
    or 1 (it then needs ``t3``).

    The blocked tiled kernels (:mod:`.bitpack_lanes`) add a 2-bit row sum to the 3-bit sum of the
    two middle rows; ``s1`` and ``s2`` cost there what ``t1`` and ``t2`` cost (eight operations for
    the three planes, the carry into bit 2 is never formed: ``t1 ^ t2`` is bit 2 of the middle sum
    XOR "the three bit-1 inputs are not all equal"), and many rules are shorter in them: Life is
    ``s2 & ~s1 & (t0 | c)`` (totals 3 and 4 are the only ones with t0 = t1 != t2).
    """
    ones, dont = truth_table(frozenset(birth), frozenset(survival))
    by_residue: dict[tuple[int, int], bool] = {}
    for index in range(1 << _N):
        if index in dont:
            continue
        key = (index & 7, index >> 4)
        value = index in ones
        if by_residue.setdefault(key, value) != value:
            return None  # totals T and T + 8 differ
    new_ones: set[int] = set()
    new_dont: set[int] = set()
    for index in range(1 << _N):
        t0, s1, s2, centre = index & 1, index >> 1 & 1, index >> 2 & 1, index >> 4
        t1 = t0 ^ s1
        value = by_residue.get((t0 | t1 << 1 | (t1 ^ s2) << 2, centre))
        if value is None:
            new_dont.add(index)
        elif value:
            new_ones.add(index)
    expression = best_expression(new_ones, new_dont, absent=frozenset({3}))
    return re.sub(r"\bt([12])\b", r"s\1", expression)


def count_expression(birth: frozenset[int], survival: frozenset[int]) -> str:
    """The rule expression the tiled and lane kernels' pairs of output rows run
    (:mod:`.bitpack_lanes`, where difference coordinates cost what the total's bits cost):
    :func:`difference_expression` when it exists and is shorter than :func:`rule_expression`, else
    that. Tell them apart with :func:`is_difference`."""
    expression = rule_expression(birth, survival)
    difference = difference_expression(birth, survival)
    if difference is not None and op_count(difference) < op_count(expression) + ("t3" in expression):
        return difference
    return expression


def is_difference(expression: str) -> bool:
    """True when ``expression`` reads difference coordinates (``s1``, ``s2``) rather than ``t1..t3``."""
    return re.search(r"\bs[12]\b", expression) is not None


def kernel_op_count(expression: str) -> dict[str, int]:
    """Bitwise operations per output word, by stage, for the kernels' structure.

    ``shift``: building the west/east-shifted row (2 shifts and an OR per side, carry bits from the
    neighbour words); ``row_sum``: one horizontal full adder per row (each row's sum serves three
    output rows, so one per output word); ``total``: the vertical adder of three 2-bit sums;
    ``rule``: the expression. Loads, stores and the padding mask are not counted.
    """
    counts = {
        "shift": 6,
        "row_sum": sum(op_count(line.split("=", 1)[1]) for line in ROW_SUM),
        "total": sum(op_count(line.split("=", 1)[1]) for line in TOTAL),
        "rule": op_count(expression),
    }
    counts["all"] = sum(counts.values())
    return counts


def evaluate(expression: str, t0, t1, t2, t3, c):
    """Evaluate ``expression`` on arrays (NumPy or torch) or Python ints of the same type; for tests."""
    return eval(expression, {"__builtins__": {}}, {"t0": t0, "t1": t1, "t2": t2, "t3": t3, "c": c})


# --- which rules the bit-packed engines run -------------------------------------------------------


@lru_cache(maxsize=256)
def bs_table(birth: frozenset[int], survival: frozenset[int]) -> bytes:
    """The 512-entry Moore table (Golly's MAP order, centre bit 16) of a B/S rule."""
    table = bytearray(512)
    for index in range(512):
        count = bin(index & ~16).count("1")
        table[index] = (count in survival) if index & 16 else (count in birth)
    return bytes(table)


#: The neighbours each neighbourhood counts, as bit positions of the 3x3 table index (``"M"``oore,
#: ``"V"``on Neumann, ``"H"``exagonal).
NEIGHBOURS = {"M": (0, 1, 2, 3, 5, 6, 7, 8), "V": (1, 3, 5, 7), "H": (0, 1, 3, 5, 7, 8)}


def table_bits(table: bytes) -> np.ndarray:
    """``(512,)`` bool array of a 512-byte 0/1 table."""
    return np.frombuffer(table, dtype=np.uint8)[:512] != 0


@lru_cache(maxsize=1024)
def count_sets(table: bytes, neighbourhood: str) -> tuple[frozenset[int], frozenset[int]] | None:
    """``(birth, survival)`` when ``table`` depends only on the centre and the number of live cells
    among ``NEIGHBOURS[neighbourhood]``, else None."""
    bits = table_bits(table)
    index = np.arange(512)
    count = sum((index >> p) & 1 for p in NEIGHBOURS[neighbourhood])
    centre = (index >> 4) & 1
    sets: list[set[int]] = [set(), set()]
    for c in (0, 1):
        for n in range(len(NEIGHBOURS[neighbourhood]) + 1):
            values = bits[(centre == c) & (count == n)]
            if values.any() and not values.all():
                return None
            if values.any():
                sets[c].add(n)
    return frozenset(sets[0]), frozenset(sets[1])


def why_not_bitpack(spec: StepSpec | Rule, topology: Topology, generations: bool = False) -> str | None:
    """``None`` when the bit-packed engines compute ``spec`` on ``topology`` exactly, else why not.

    ``spec`` is a rule's step spec (a rule is compiled here). The class is exact: any two-state
    ``index3x3``/``table`` spec (B/S on any neighbourhood, Hensel letters, MAP strings: the
    kernels run a circuit of the 512-entry table itself), on a plain torus or a bounded plane;
    with ``generations``, the same tables with decay states too (:mod:`.bitpack_generations`).
    """
    if not isinstance(spec, StepSpec):
        spec = spec.compile()
    if not getattr(topology, "bounded", False) or topology.kind not in ("torus", "plane"):
        return f"topology {topology} is not a torus or bounded plane (bit-packed edges only wrap or stay dead)"
    if not topology.simple:
        return f"topology {topology} is a shifted torus; bit-packed edges only wrap plainly or stay dead"
    update = spec.update
    if spec.kinds != ("index3x3", "table") or not isinstance(update, TableUpdate):
        which = "3x3 table rules (two-state or Generations)" if generations else "two-state 3x3 table rules"
        return (f"only {which} run bit-packed, not perceive "
                f"{spec.kinds[0]!r} with update {spec.kinds[1]!r}")
    if spec.n_states != 2 and not (generations and spec.decay):
        return f"Generations rules ({spec.n_states} states) need more than one bit per cell"
    if len(update.table) != 512:
        return f"the rule's table has {len(update.table)} entries, not the 512 of a 3x3 window"
    return None


#: Most states a packed Generations cell holds (the counter's values fit a byte when unpacking).
MAX_STATES = 256


def why_not_generations(spec: StepSpec, topology: Topology) -> str | None:
    """``None`` when the Generations kernels (:mod:`.bitpack_generations`) run ``spec`` on ``topology``
    exactly, else why not."""
    reason = why_not_bitpack(spec, topology, generations=True)
    if reason is None and not spec.decay:
        return "not a Generations rule (no decay states)"
    if reason is None and spec.n_states > MAX_STATES:
        return f"{spec.n_states} states: at most {MAX_STATES} run bit-packed"
    return reason


def why_not_moore_bs(spec: StepSpec | Rule, topology: Topology) -> str | None:
    """:func:`why_not_bitpack`, narrowed to tables that are B/S over the Moore neighbourhood (any
    spelling): the class the count kernels (and ``dense-conv``) compute."""
    reason = why_not_bitpack(spec, topology)
    if reason is None and count_sets(rule_table(spec), "M") is None:
        return "the rule's table is not B/S over the Moore neighbourhood (counts, not configurations)"
    return reason


def rule_table(spec: StepSpec | Rule) -> bytes:
    """The 512-entry table of a supported spec or rule (:func:`why_not_bitpack` is ``None``)."""
    if not isinstance(spec, StepSpec):
        spec = spec.compile()
    reason = why_not_bitpack(spec, Topology.plane(1, 1))
    if reason is not None:
        raise EngineError(f"no 3x3 table to run bit-packed: {reason}")
    return bytes(spec.update.table)


def bs_sets(spec: StepSpec | Rule) -> tuple[frozenset[int], frozenset[int]]:
    """``(birth, survival)`` over the Moore neighbourhood of a supported spec or rule whose table
    is B/S (whatever its spelling: a MAP string of Life gives Life's sets)."""
    sets = count_sets(rule_table(spec), "M")
    if sets is None:
        raise EngineError("the rule's table is not B/S over the Moore neighbourhood (no count sets)")
    return sets


# --- generated kernel modules ---------------------------------------------------------------------


def kernel_cache_dir() -> Path:
    """Where generated kernel modules live: ``bitpack/`` under tensorca's cache root
    (:func:`~tensorca.cache_dirs.cache_root`: ``$TENSORCA_CACHE_DIR``, else the per-user cache),
    else a temporary directory (the first that is writable)."""
    candidates = [cache_root() / "bitpack"]
    uid = os.getuid() if hasattr(os, "getuid") else 0
    candidates.append(Path(tempfile.gettempdir()) / f"tensorca-{uid}" / "bitpack")
    for path in candidates:
        try:
            path.mkdir(parents=True, exist_ok=True)
            probe = path / f".probe-{os.getpid()}"
            probe.write_text("")
            probe.unlink()
            return path
        except OSError:
            continue
    raise OSError("no writable cache directory for generated bit-packed kernels (set TENSORCA_CACHE_DIR)")


#: Generated-module name prefix of each bit-packed engine.
PREFIXES = {"bitpack-cpu": "tensorca_bitpack_cpu", "bitpack-gpu": "tensorca_bitpack_gpu",
            "bitpack-lanes": "tensorca_bitpack_lanes"}
#: Rule-specific kernel modules one process loads for ``bitpack-cpu``; later rules share the generic
#: module (:data:`GENERIC`). Numba never frees compiled code (LLVM MCJIT: numba issues 5976, 7831),
#: so dropping a module would not return its ~6 MB; bounding how many are made does.
MAX_SPECIALISED = 32
#: The expression key of the generic kernels, which read the rule's truth table from an argument.
GENERIC = "generic"
#: The key of the generic table kernels, which run a table's ROBDD given as data.
GENERIC_TABLE = "generic-table"
#: The key of the generic Generations kernels (ROBDD and state count as data).
GENERIC_GENERATIONS = "generic-generations"

#: ``(engine name, rule expression) -> module`` of every kernel module loaded in this process.
LOADED: dict[tuple[str, str], ModuleType] = {}
_LOCK = threading.Lock()


@lru_cache(maxsize=256)  # asked on every engine call; sources come from cached formatting
def module_name(prefix: str, source: str, version: str) -> str:
    """The module name (and file stem) :func:`load_generated_module` gives ``source``."""
    digest = hashlib.sha256((version + "\0" + source).encode()).hexdigest()[:16]
    return f"{prefix}_{digest}"


def _index_path(directory: Path, engine: str, expression: str) -> Path:
    """The small file naming the module generated last for ``expression`` (read by :func:`kernel_state`)."""
    digest = hashlib.sha256(expression.encode()).hexdigest()[:16]
    return directory / f"{PREFIXES[engine]}-expr-{digest}.ref"


def load_generated_module(engine: str, expression: str, source: str, version: str) -> ModuleType:
    """Import ``source``, the kernels of rule ``expression`` for ``engine`` (a key of
    :data:`PREFIXES`), as a module file in :func:`kernel_cache_dir` (written once, keyed by hash).

    Numba (``cache=True``) and Triton both need kernels to live in a real file: Numba keys its
    on-disk cache by the file, Triton reads the kernel source back with ``inspect``. Modules stay
    imported for the life of the process (see :data:`MAX_SPECIALISED`).
    """
    name = module_name(PREFIXES[engine], source, version)
    key = (engine, expression)
    with _LOCK:
        module = LOADED.get(key)
        if module is not None and module.__name__ == name:
            return module
        directory = kernel_cache_dir()
        path = directory / f"{name}.py"
        _write_if_changed(path, source)
        _write_if_changed(_index_path(directory, engine, expression), name)
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:  # pragma: no cover - a plain .py file always loads
            raise ImportError(f"cannot load generated kernels from {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        LOADED[key] = module
        _compiled_on_disk.cache_clear()
        return module


def _write_if_changed(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically unless it already holds exactly that."""
    if path.exists() and path.read_text() == text:
        return
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def loaded_count() -> int:
    """Kernel modules of every engine this process has loaded (:data:`LOADED`)."""
    return len(LOADED)


def specialised_here(engine: str) -> int:
    """Rule-specific modules of ``engine`` this process has loaded."""
    generic = (GENERIC, GENERIC_TABLE, GENERIC_GENERATIONS)
    return sum(1 for name, k in list(LOADED) if name == engine and k not in generic)


def may_specialise(engine: str, key: str) -> bool:
    """True when ``engine`` may load the rule-specific module ``key``: it is loaded already, or this
    process holds fewer than :data:`MAX_SPECIALISED` of ``engine``'s rule-specific modules."""
    if (engine, key) in LOADED:
        return True
    return specialised_here(engine) < MAX_SPECIALISED


def planes_key(circuit) -> str:
    """The module key of a table circuit (:class:`.bitpack_bdd.Circuit`) over the nine planes."""
    return "planes: " + circuit.key


def generic_lines() -> list[str]:
    """Source lines computing any rule from its truth table, then the name of the result.

    ``L0..L31`` hold the table as words (all ones where the rule is 1; index as in
    :func:`truth_table`); a tree of multiplexers ``a ^ ((a ^ b) & s)`` (``b`` where ``s`` is set)
    selects on ``t0, t1, t2`` (totals 0..7) and on ``t0`` for totals 8 and 9, then on ``t3`` and
    ``c``. Valid in Numba and Triton like :func:`rule_expression`.
    """
    lines: list[str] = []

    def mux(name: str, select: str, a: str, b: str) -> None:
        lines.append(f"{name} = {a} ^ (({a} ^ {b}) & {select})")

    for c in (0, 1):
        base = 16 * c
        for k in range(4):
            mux(f"p{c}{k}", "t0", f"L{base + 2 * k}", f"L{base + 2 * k + 1}")
        mux(f"q{c}0", "t1", f"p{c}0", f"p{c}1")
        mux(f"q{c}1", "t1", f"p{c}2", f"p{c}3")
        mux(f"lo{c}", "t2", f"q{c}0", f"q{c}1")
        mux(f"hi{c}", "t0", f"L{base + 8}", f"L{base + 9}")
        mux(f"g{c}", "t3", f"lo{c}", f"hi{c}")
    mux("r", "c", "g0", "g1")
    return [*lines, "r"]


#: Kernel states, readiest first.
READINESS = ("loaded", "disk", "cold")


def module_state(engine_name: str, expression: str) -> str:
    """``"loaded"``, ``"disk"`` or ``"cold"``: the generated module of ``expression`` for ``engine_name``."""
    if (engine_name, expression) in LOADED:
        return "loaded"
    if engine_name == "bitpack-gpu":
        return "cold"
    directory = _known_cache_dir(os.environ.get("TENSORCA_CACHE_DIR"))
    if directory is None:
        return "cold"
    on_disk = _compiled_on_disk(directory, str(numba_cache_dir()), cache_epoch(), engine_name, expression)
    return "disk" if on_disk else "cold"


@lru_cache(maxsize=8)
def _known_cache_dir(setting: str | None) -> str | None:
    """:func:`kernel_cache_dir` for one ``TENSORCA_CACHE_DIR`` value, probed once (None: none writable)."""
    try:
        return str(kernel_cache_dir())
    except OSError:
        return None


@lru_cache(maxsize=256)
def _compiled_on_disk(directory: str, numba_dir: str, epoch: int, engine: str, expression: str) -> bool:
    """Whether Numba's cache (under ``numba_dir``) holds the kernel module of ``expression``
    generated into ``directory`` (asked once per process until a module is loaded:
    :func:`kernel_state` says "loaded" first)."""
    try:
        stem = _index_path(Path(directory), engine, expression).read_text().strip()
    except OSError:
        return False
    return compiled_on_disk(Path(directory) / f"{stem}.py", stem + ".*.nbi")
