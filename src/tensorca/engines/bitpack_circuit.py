"""The boolean circuits of the bit-packed engines, derived from a rule's B/S count sets.

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
shortest of ``f``, ``~(~f)`` and ``(f ^ v) ^ v`` for each input ``v`` is kept. Expressions are plain Python text using only ``& | ^ ~``
and parentheses, so the same string is valid inside a Numba function over ``uint64`` and a Triton
kernel over ``uint32``.

Counts of logic operations per word (the "floor" the benchmarks compare against) come from
:func:`op_count`.
"""

from __future__ import annotations


import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from pathlib import Path
from types import ModuleType

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


@lru_cache(maxsize=1024)
def rule_expression(birth: frozenset[int], survival: frozenset[int]) -> str:
    """The next-state bit-plane as an expression over ``t0, t1, t2, t3, c`` (see module docstring)."""
    ones, dont = truth_table(frozenset(birth), frozenset(survival))
    everything = set(range(1 << _N))
    zeros = everything - ones - dont
    candidates = [_sop(minimise(ones, dont)), f"~({_sop(minimise(zeros, dont))})"]
    # f = g ^ v for an input v can be much shorter (B1357/S1357 is t0 ^ c).
    for bit, name in enumerate(INPUTS):
        flipped = {i for i in everything - dont if (i in ones) != bool(i >> bit & 1)}
        if flipped and flipped != everything - dont:
            candidates.append(f"({_sop(minimise(flipped, dont))}) ^ {name}")
    return min(candidates, key=op_count)


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


def why_not_bitpack(rule, topology) -> str | None:
    """``None`` when the bit-packed engines compute ``rule`` on ``topology`` exactly, else why not.

    The class is exact: a two-state :class:`~tensorca.rules.base.TableRule` on the Moore
    neighbourhood with birth/survival count sets whose B/S table is the rule's own table, on a
    torus or a bounded plane.
    """
    from ..rules.base import TableRule

    if not getattr(topology, "bounded", False) or topology.kind not in ("torus", "plane"):
        return f"topology {topology} is not a torus or bounded plane (bit-packed edges only wrap or stay dead)"
    if not topology.simple:
        return f"topology {topology} is a shifted torus; bit-packed edges only wrap plainly or stay dead"
    if not isinstance(rule, TableRule):
        return f"only two-state outer-totalistic Moore (B/S) rules run bit-packed, not {rule.family} rules"
    if rule.n_states != 2:
        return f"Generations rules ({rule.n_states} states) need more than one bit per cell"
    if rule.neighbourhood != "M":
        return f"the {rule.neighbourhood!r} neighbourhood is not the Moore neighbourhood the adders count"
    if not rule.is_outer_totalistic_moore or rule.birth is None or rule.survival is None:
        return f"rule kind {rule.kind!r} is not outer-totalistic (the adders see counts, not configurations)"
    if bs_table(rule.birth, rule.survival) != bytes(rule.table):
        return "the rule's table differs from the table of its birth/survival counts"
    return None


def bs_sets(rule) -> tuple[frozenset[int], frozenset[int]]:
    """``(birth, survival)`` of a supported rule (:func:`why_not_bitpack` is ``None``)."""
    return frozenset(rule.birth), frozenset(rule.survival)


# --- generated kernel modules ---------------------------------------------------------------------


def kernel_cache_dir() -> Path:
    """Where generated kernel modules live: ``$TENSORCA_CACHE_DIR/bitpack``, else
    ``~/.cache/tensorca/bitpack``, else a temporary directory (the first that is writable)."""
    candidates = []
    if os.environ.get("TENSORCA_CACHE_DIR"):
        candidates.append(Path(os.environ["TENSORCA_CACHE_DIR"]) / "bitpack")
    candidates.append(Path.home() / ".cache" / "tensorca" / "bitpack")
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


_MODULES: dict[str, ModuleType] = {}
_LOCK = threading.Lock()


def module_name(prefix: str, source: str, version: str) -> str:
    """The module name (and file stem) :func:`load_generated_module` gives ``source``."""
    digest = hashlib.sha256((version + "\0" + source).encode()).hexdigest()[:16]
    return f"{prefix}_{digest}"


def load_generated_module(prefix: str, source: str, version: str) -> ModuleType:
    """Import ``source`` as a module file in :func:`kernel_cache_dir` (written once, keyed by hash).

    Numba (``cache=True``) and Triton both need kernels to live in a real file: Numba keys its
    on-disk cache by the file, Triton reads the kernel source back with ``inspect``.
    """
    name = module_name(prefix, source, version)
    with _LOCK:
        if name in _MODULES:
            return _MODULES[name]
        path = kernel_cache_dir() / f"{name}.py"
        if not path.exists() or path.read_text() != source:
            tmp = path.with_name(f"{name}.{os.getpid()}.tmp")
            tmp.write_text(source)
            os.replace(tmp, path)
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:  # pragma: no cover - a plain .py file always loads
            raise ImportError(f"cannot load generated kernels from {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        _MODULES[name] = module
        return module
