"""Boolean circuits for any two-state 3x3 rule table, over the nine bit-sliced neighbour planes.

A two-state 3x3 rule is a 512-entry 0/1 table indexed in Golly's MAP order (NW is bit 8, the
centre bit 4, SE bit 0). The bit-packed kernels hold, per output word of 32 or 64 cells, the nine
neighbour *planes* (the rows above, here and below, each as itself and shifted west and east),
named by :data:`PLANES`. This module turns the table into straight-line bitwise code over those
planes:

- :func:`.bitpack_circuit.count_sets` recognises tables that depend only on the centre and a count of neighbours
  (B/S over the Moore, von Neumann or hexagonal neighbourhood, whatever the rule's spelling);
- :func:`count_hybrid` runs the Moore count circuit and corrects the (centre, count) classes
  where the table is neither all 0 nor all 1 (Hensel letters) with a decision diagram over the
  planes that only has to be right inside those classes (everything else is a don't-care);
- :func:`mux_circuit` builds the reduced ordered binary decision diagram (ROBDD) of the table
  for the variable order with the fewest nodes (sifting from a few symmetric starts) and emits
  one multiplexer ``lo ^ (x & (lo ^ hi))`` per node, or 0-2 operations where a child is a
  constant.

:func:`table_circuit` picks, per table, the count circuit when it is exact, else the cheapest of
the others and of the von Neumann / hexagonal adders (:func:`subcount_circuit`), by operations
per word (:func:`circuit_cost`). Expressions use only ``& | ^ ~`` and parentheses, valid in
Numba (``uint64``) and Triton (``uint32``) alike.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from .circuit import (
    NEIGHBOURS,
    best_expression,
    count_sets,
    kernel_op_count,
    op_count,
    rule_expression,
    table_bits,
    truth_table,
)

#: Plane names by MAP bit (bit 8 = NW ... bit 4 = centre ... bit 0 = SE).
PLANES = ("se", "s", "sw", "e", "c", "w", "ne", "n", "nw")
#: MAP bits of the neighbourhoods' non-centre cells.
# --- ROBDD --------------------------------------------------------------------------------------------


def _ordered(bits: np.ndarray, order: tuple[int, ...]) -> np.ndarray:
    """The table with its index bits permuted so ``order[0]`` is the most significant."""
    return bits.reshape((2,) * 9).transpose([8 - p for p in order]).reshape(512)


def node_count(bits: np.ndarray, order: tuple[int, ...]) -> int:
    """ROBDD nodes of ``bits`` for variable ``order`` (top first): per level, the distinct cofactors
    that depend on that level's variable."""
    t = _ordered(bits, order).astype(np.uint8).tobytes()
    total = 0
    for level in range(9):
        size = 512 >> level
        half = size // 2
        rows = {t[k : k + size] for k in range(0, 512, size)}
        total += sum(1 for r in rows if r[:half] != r[half:])
    return total


def _sift(order: tuple[int, ...], build: Callable[[tuple[int, ...]], Any],
          size: Callable[[Any], int]) -> tuple[Any, tuple[int, ...]]:
    """Rudell's sifting: move each variable to its best position in turn until nothing improves.

    ``build(order)`` makes the diagram (or just its size) for a variable order, ``size`` measures
    it; returns the smallest found and its order (deterministic: same input, same result)."""
    best = build(order)
    improved = True
    while improved:
        improved = False
        for var in range(9):
            rest = [v for v in order if v != var]
            for pos in range(9):
                cand_order = tuple(rest[:pos] + [var] + rest[pos:])
                cand = build(cand_order)
                if size(cand) < size(best):
                    best, order, improved = cand, cand_order, True
    return best, order


#: Starting orders: centre first, then orthogonal/diagonal rings, rows, columns; and centre last.
_STARTS = (
    (4, 1, 3, 5, 7, 0, 2, 6, 8),
    (4, 8, 7, 6, 5, 3, 2, 1, 0),
    (4, 8, 5, 2, 7, 1, 6, 3, 0),
    (8, 7, 6, 5, 3, 2, 1, 0, 4),
)


@lru_cache(maxsize=512)
def best_order(table: bytes) -> tuple[int, ...]:
    """The variable order (MAP bits, top first) with the smallest ROBDD found by sifting."""
    bits = table_bits(table)
    sifted = (_sift(start, lambda o: node_count(bits, o), int) for start in _STARTS)
    return min(sifted, key=lambda r: r[0])[1]


@dataclass(frozen=True)
class Circuit:
    """Straight-line code: ``lines`` (``name = expr``), then ``result``, an expression.

    ``inputs``: the plane names (and count planes ``t0..t3``) the code reads.
    """

    lines: tuple[str, ...]
    result: str
    inputs: frozenset[str]

    @property
    def key(self) -> str:
        """The text that identifies the circuit (generated modules are keyed by it)."""
        return "; ".join((*self.lines, self.result))

    def ops(self) -> int:
        """Bitwise operations per word (negations of a plane counted once)."""
        return op_count(" ; ".join([line.split("=", 1)[1] for line in self.lines] + [self.result]))


def _node_expr(x: str, lo: str, hi: str) -> str:
    """``hi`` where plane ``x`` is set, else ``lo``; constants are ``"0"``/``"1"``."""
    if (lo, hi) == ("0", "1"):
        return x
    if (lo, hi) == ("1", "0"):
        return f"~{x}"
    if lo == "0":
        return f"{x} & {hi}"
    if hi == "0":
        return f"{lo} & ~{x}"
    if lo == "1":
        return f"{hi} | ~{x}"
    if hi == "1":
        return f"{lo} | {x}"
    return f"{lo} ^ ({x} & ({lo} ^ {hi}))"


def _reduce(table: bytes, order: tuple[int, ...], leaves: tuple[Any, Any],
            node: Callable[[int, Any, Any], Any]) -> Any:
    """Walk the ROBDD of ``table`` for ``order`` bottom-up: ``node(map_bit, lo, hi)`` makes (and
    returns the id of) each distinct node whose cofactors differ, children first; ``leaves`` are the
    ids of the constants 0 and 1. Returns the root's id."""
    t = _ordered(table_bits(table), order).astype(np.uint8)
    ids: dict[bytes, Any] = {b"\x00": leaves[0], b"\x01": leaves[1]}
    for level in range(8, -1, -1):
        for row in np.unique(t.reshape(1 << level, 512 >> level), axis=0):
            half = len(row) // 2
            lo, hi = ids[row[:half].tobytes()], ids[row[half:].tobytes()]
            ids[row.tobytes()] = lo if lo == hi else node(order[level], lo, hi)
    return ids[t.tobytes()]


def mux_circuit(table: bytes, order: tuple[int, ...] | None = None) -> Circuit:
    """The ROBDD of ``table`` for ``order`` (default :func:`best_order`) as multiplexer code."""
    lines: list[str] = []
    inputs: set[str] = set()

    def node(bit: int, lo: str, hi: str) -> str:
        x = PLANES[bit]
        inputs.add(x)
        expr = _node_expr(x, lo, hi)
        if expr == x:
            return x
        lines.append(f"u{len(lines)} = {expr}")
        return f"u{len(lines) - 1}"

    result = _reduce(table, order or best_order(table), ("0", "1"), node)
    if result in ("0", "1"):
        result = "(c ^ c)" if result == "0" else "~(c ^ c)"
        inputs.add("c")
    elif lines and result == lines[-1].split(" = ", 1)[0]:
        result = lines.pop().split(" = ", 1)[1]
    return Circuit(tuple(lines), result, frozenset(inputs))


def mux_program(circuit_table: bytes) -> np.ndarray:
    """The ROBDD of a table as data for the generic kernels: ``(n, 3)`` ``int64`` rows
    ``(select, lo, hi)`` of indices into a value vector ``v`` where ``v[0] = 0``, ``v[1] = ~0``,
    ``v[2 + p]`` is the plane of MAP bit ``p`` and ``v[11 + i]`` is node ``i``; the last node is
    the result (a table that is constant gets a node selecting the constant)."""
    rows: list[tuple[int, int, int]] = []

    def node(bit: int, lo: int, hi: int) -> int:
        rows.append((2 + bit, lo, hi))
        return 11 + len(rows) - 1

    result = _reduce(circuit_table, best_order(circuit_table), (0, 1), node)
    if result < 11 or 11 + len(rows) - 1 != result:
        rows.append((0, result, result))  # v[0] = 0 selects lo: the result itself
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


# --- decision diagrams with don't-cares (the residue of count circuits) ---------------------------

#: A don't-care entry of a partial table.
DC = 2


def _dc_build(f: bytes, level: int, order: tuple[int, ...], memo: dict, nodes: dict) -> str:
    """Node id of partial table ``f`` (values 0/1/DC over ``order[level:]``); ``nodes`` maps
    ``(var, lo, hi)`` to names in creation order (children first)."""
    if f in memo:
        return memo[f]
    if 1 not in f:
        return "0"
    if 0 not in f:
        return "1"
    half = len(f) // 2
    lo, hi = f[:half], f[half:]
    if all(a == b or DC in (a, b) for a, b in zip(lo, hi, strict=True)):
        merged = bytes(b if a == DC else a for a, b in zip(lo, hi, strict=True))
        result = _dc_build(merged, level + 1, order, memo, nodes)
    else:
        key = (PLANES[order[level]], _dc_build(lo, level + 1, order, memo, nodes),
               _dc_build(hi, level + 1, order, memo, nodes))
        result = nodes.setdefault(key, key[0] if key[1:] == ("0", "1") else f"v{len(nodes)}")
    memo[f] = result
    return result


def dc_mux_circuit(values: np.ndarray, order: tuple[int, ...], prefix: str = "v") -> Circuit:
    """A multiplexer circuit equal to ``values`` (``(512,)`` of 0/1/:data:`DC`, MAP order) wherever
    it is not DC: a decision diagram built top-down along ``order`` that skips a variable whose two
    cofactors agree on their common cares and ends wherever the cares are constant."""
    f = _ordered(np.asarray(values, dtype=np.uint8), order).tobytes()
    nodes: dict[tuple[str, str, str], str] = {}
    root = _dc_build(f, 0, order, {}, nodes)
    lines, names = [], {}
    for (x, lo, hi), name in nodes.items():
        if name == x:
            continue
        names[name] = f"{prefix}{len(lines)}"
        expr = _node_expr(x, names.get(lo, lo), names.get(hi, hi))
        lines.append(f"{names[name]} = {expr}")
    result = names.get(root, root)
    inputs = {x for x, _, _ in nodes}
    if result in ("0", "1"):
        return Circuit((), "(c ^ c)" if result == "0" else "~(c ^ c)", frozenset({"c"}))
    if lines and result == lines[-1].split(" = ", 1)[0]:
        result = lines.pop().split(" = ", 1)[1]
    return Circuit(tuple(lines), result, frozenset(inputs))


# --- choosing a circuit ------------------------------------------------------------------------------

#: Inputs of the count circuit: the 3x3 total's bit-planes and the centre.
COUNT_INPUTS = frozenset({"t0", "t1", "t2", "t3", "c"})
#: Operations per word of the count planes in the table kernels (a horizontal full adder for each
#: of the three rows, recomputed per word, and the vertical adder).
COUNT_OPS = 25
#: Operations per word of the table kernels' planes: three rows, each shifted west and east with
#: the carry bits of the adjacent words.
SHIFT_OPS = 18


def _classes(table: bytes) -> tuple[set[int], set[int], np.ndarray]:
    """``(full, partial, member)``: count-circuit indices (total + 16 centre) whose class of the
    table is all 1 / mixed, and the ``(512,)`` bool mask of table entries in a mixed class."""
    bits = table_bits(table)
    index = np.arange(512)
    centre = (index >> 4) & 1
    count = sum((index >> p) & 1 for p in NEIGHBOURS["M"])
    full: set[int] = set()
    partial: set[int] = set()
    member = np.zeros(512, dtype=bool)
    for c in (0, 1):
        for n in range(9):
            where = (centre == c) & (count == n)
            key = n + c + 16 * c
            if bits[where].all():
                full.add(key)
            elif bits[where].any():
                partial.add(key)
                member |= where
    return full, partial, member


#: Random variable orders tried for a don't-care diagram (seeded: circuits, and so kernel module
#: names, are the same in every process).
DC_ORDERS = 150


def _best_dc_circuit(residue: np.ndarray, hint: tuple[int, ...]) -> Circuit:
    """The smallest :func:`dc_mux_circuit` of ``residue`` over the symmetric starts, ``hint`` and
    :data:`DC_ORDERS` seeded random orders, then sifted (operations per word)."""
    rng = np.random.default_rng(0)
    orders = [*_STARTS, hint] + [tuple(int(v) for v in rng.permutation(9)) for _ in range(DC_ORDERS)]
    _, order = min(((dc_mux_circuit(residue, o), o) for o in orders), key=lambda pair: pair[0].ops())
    return _sift(order, lambda o: dc_mux_circuit(residue, o), lambda c: c.ops())[0]


def count_hybrid(table: bytes) -> Circuit | None:
    """``g | (sel & R)``: ``g`` the classes that are all 1 and ``sel`` the mixed classes, both over
    the count planes; ``R`` the table inside the mixed classes (a don't-care elsewhere) as a
    decision diagram over the planes. None when no class is mixed (the count circuit is exact)."""
    full, partial, member = _classes(table)
    if not partial:
        return None
    _, impossible = truth_table(frozenset(), frozenset())
    residue = np.where(member, table_bits(table), DC).astype(np.uint8)
    r = _best_dc_circuit(residue, best_order(table))
    g, sel = best_expression(full, impossible), best_expression(partial, impossible | full)
    term = r.result if sel == "~(c ^ c)" else f"({sel}) & ({r.result})"
    either = Circuit(r.lines, term if g == "(c ^ c)" else f"({g}) | ({term})", r.inputs | COUNT_INPUTS)
    # or a multiplexer, whose g may be anything on the mixed classes: R where sel, else g
    g, sel = best_expression(full, impossible | partial), best_expression(partial, impossible)
    mux = Circuit(r.lines + (f"gq = {g}",), f"gq ^ (({sel}) & (gq ^ ({r.result})))", either.inputs)
    return min((either, mux), key=Circuit.ops)


#: Full adders summing a sub-neighbourhood and the centre into ``q0, q1, q2`` (total <= 7).
_SUBCOUNT_ADDERS = {
    "V": ("ax = n ^ w", "ay0 = ax ^ e", "ay1 = (n & w) | (ax & e)", "az = s ^ c", "q0 = az ^ ay0",
          "az1 = (s & c) | (az & ay0)", "q1 = ay1 ^ az1", "q2 = ay1 & az1"),
    "H": ("ax = nw ^ n", "ay0 = ax ^ w", "ay1 = (nw & n) | (ax & w)", "az = e ^ s", "az0 = az ^ se",
          "az1 = (e & s) | (az & se)", "au = ay0 ^ az0", "q0 = au ^ c", "ak = (ay0 & az0) | (au & c)",
          "av = ay1 ^ az1", "q1 = av ^ ak", "q2 = (ay1 & az1) | (av & ak)"),
}


def subcount_circuit(table: bytes, neighbourhood: str) -> Circuit | None:
    """B/S over the von Neumann (``"V"``) or hexagonal (``"H"``) neighbourhood: an adder over
    those planes and the centre, then the minimised rule over the total (None when the table is
    not B/S over that neighbourhood)."""
    sets = count_sets(table, neighbourhood)
    if sets is None:
        return None
    size = len(NEIGHBOURS[neighbourhood])
    ones, dont = truth_table(*sets)
    dont = dont | {t + 16 * c for c in (0, 1) for t in range(16) if t > size + c}
    expression = re.sub(r"\bt(\d)\b", r"q\1", best_expression(ones, dont - ones))
    lines = tuple(f"{name} = {expr}" for name, expr in
                  (line.split(" = ", 1) for line in _SUBCOUNT_ADDERS[neighbourhood]))
    planes = {PLANES[p] for p in NEIGHBOURS[neighbourhood]} | {"c"}
    return Circuit(lines, expression, frozenset(planes))


def kernel_ops(table: bytes) -> int:
    """Bitwise operations per output word of the kernel that runs ``table`` (the floor benchmarks
    compare against): the B/S kernels' count (:func:`.bitpack_circuit.kernel_op_count`) for B/S
    tables, else the circuit, its count planes and :data:`SHIFT_OPS`."""
    circuit = table_circuit(table)
    if is_count_circuit(circuit):
        return kernel_op_count(circuit.result)["all"]
    return circuit_cost(circuit) + SHIFT_OPS


def circuit_cost(circuit: Circuit) -> int:
    """Operations per word of ``circuit`` plus the count planes it reads (shifts not counted)."""
    return circuit.ops() + (COUNT_OPS if circuit.inputs & {"t0", "t1", "t2", "t3"} else 0)


def is_count_circuit(circuit: Circuit) -> bool:
    """True when ``circuit`` is one expression over the count planes (the B/S kernels run it)."""
    return not circuit.lines and circuit.inputs <= COUNT_INPUTS


@lru_cache(maxsize=512)
def table_circuit(table: bytes) -> Circuit:
    """The circuit the bit-packed kernels run for a 512-entry table (see the module docstring).

    A table that is B/S over the Moore neighbourhood gets exactly :func:`rule_expression` of its
    counts, whatever its spelling (a MAP string of Life runs Life's kernels).
    """
    sets = count_sets(table, "M")
    if sets is not None:
        return Circuit((), rule_expression(*sets), COUNT_INPUTS)
    candidates = [mux_circuit(table), count_hybrid(table), subcount_circuit(table, "V"),
                  subcount_circuit(table, "H")]
    candidates = [c for c in candidates if c is not None]
    return min(candidates, key=circuit_cost)
