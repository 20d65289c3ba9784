"""Decision trees over neighbour states: Golly's ``@TREE`` format and the step-spec stages of rule files.

A tree reads the states of a cell's neighbourhood one at a time in a fixed ``order`` of
``(dy, dx)`` offsets: ``node = nodes[node, state(order[i])]`` starting from ``root``; after the
last offset ``node`` *is* the next state. ``nodes`` is a ``(num_nodes, n_states)`` int32 array
(Golly's level-1 nodes hold states, higher nodes hold node numbers).

Golly's ``@TREE`` order (``ruletreealgo.cpp``): with 8 neighbours ``nw, ne, sw, se, n, w, e, s, c``,
with 4 ``n, w, e, s, c``; the last node of the file is the root. Tables compile to trees by
:func:`compile_transitions` (centre first, then Golly's neighbour order), hash-consing equal nodes.

Step-spec stages (kinds ``neighbour_states`` and ``tree``, run by ``families/rule_table/steps.py``):
:class:`NeighbourStates` (the offsets, in the tree's order) and :class:`TreeUpdate`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from ...errors import RuleError
from ...rules._numbers import small_int
from .sections import RuleFileError, Section

__all__ = ["COMPILE_MAX_BYTES", "NeighbourStates", "TableTooLarge", "Tree", "TreeUpdate", "compile_transitions",
           "parse_tree"]

Offsets = tuple[tuple[int, int], ...]

#: Golly's ``@TREE`` evaluation orders, by ``num_neighbors``.
TREE_ORDER: dict[int, Offsets] = {
    8: ((-1, -1), (-1, 1), (1, -1), (1, 1), (-1, 0), (0, -1), (0, 1), (1, 0), (0, 0)),
    4: ((-1, 0), (0, -1), (0, 1), (1, 0), (0, 0)),
}
#: Largest dense lookup table (``n_states ** len(order)`` entries) engines derive from a tree.
DENSE_MAX = 1 << 24
#: Most bytes of transition bitsets :func:`compile_transitions` keeps while it builds a tree (each
#: subproblem it remembers holds one bit per transition).
COMPILE_MAX_BYTES = 256 << 20


class TableTooLarge(RuleError):
    """Transitions whose tree would take more than :data:`COMPILE_MAX_BYTES` to compile."""


@dataclass(frozen=True, eq=False)
class Tree:
    """A decision tree: ``nodes`` ``(N, n_states)`` int32, ``root`` its first node, ``order`` the
    ``(dy, dx)`` offsets read one per level (see the module docstring)."""

    nodes: np.ndarray = field(repr=False)
    root: int
    order: Offsets
    n_states: int

    def next_state(self, states: dict[tuple[int, int], int]) -> int:
        """The next state of a cell whose neighbourhood holds ``states[(dy, dx)]``."""
        node = self.root
        for offset in self.order:
            node = int(self.nodes[node, states.get(offset, 0)])
        return node

    def dense(self) -> np.ndarray | None:
        """``(n_states ** len(order),)`` uint8 next states indexed by ``sum(state_i * n_states **
        (k - 1 - i))`` over the order, or None when that exceeds :data:`DENSE_MAX` entries."""
        if self.n_states ** len(self.order) > DENSE_MAX:
            return None
        level = np.array([self.root], dtype=np.int64)
        for _ in self.order:
            level = self.nodes[level].reshape(-1).astype(np.int64)
        return level.astype(np.uint8)

    def births_from_nothing(self) -> bool:
        """True when a state-0 cell among state-0 neighbours changes state."""
        return self.next_state({}) != 0


@dataclass(frozen=True)
class NeighbourStates:
    """Perceive the states at ``offsets`` (``(dy, dx)``, the order a tree reads them)."""

    offsets: Offsets
    kind: Literal["neighbour_states"] = "neighbour_states"


@dataclass(frozen=True)
class TreeUpdate:
    """Update by walking ``tree`` over the perceived states (one gather per offset)."""

    tree: Tree = field(compare=False, repr=False)
    kind: Literal["tree"] = "tree"


class _Builder:
    """Hash-consed nodes: equal children at equal depth are one node."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, ...]] = []
        self.index: dict[tuple[int, tuple[int, ...]], int] = {}

    def node(self, depth: int, children: tuple[int, ...]) -> int:
        key = (depth, children)
        found = self.index.get(key)
        if found is None:
            found = self.index[key] = len(self.rows)
            self.rows.append(children)
        return found


def compile_transitions(transitions, n_states: int, inputs: Offsets, max_bytes: int | None = None) -> Tree:
    """The tree of a transition list: ``transitions`` are ``(allowed states per input, output)``
    with inputs in the order of ``inputs`` (centre first); the first match wins and a cell no
    transition matches keeps its state. Each transition is a bit of a Python-int bitset per
    (input, state), as Golly packs them; tree nodes are the distinct remaining sets.
    :class:`TableTooLarge` once the remembered sets pass ``max_bytes`` (:data:`COMPILE_MAX_BYTES`)."""
    budget = COMPILE_MAX_BYTES if max_bytes is None else max_bytes
    k = len(inputs)
    if k < 2:  # pragma: no cover - every neighbourhood has neighbours
        raise ValueError("a tree needs the centre and at least one neighbour")
    bits = [[bytearray(len(transitions) // 8 + 1) for _ in range(n_states)] for _ in range(k)]
    outputs = []
    for t, (allowed, out) in enumerate(transitions):
        byte, bit = t >> 3, 1 << (t & 7)
        for pos, states in enumerate(allowed):
            for s in states:
                bits[pos][s][byte] |= bit
        outputs.append(out)
    # one int per (input, state) at the end: OR-ing 1 << t into a growing int costs O(T^2)
    lut = [[int.from_bytes(b, "little") for b in row] for row in bits]
    del bits
    builder = _Builder()
    memo: dict[tuple[int, int, int], int] = {}
    states = range(n_states)
    held = [0]  # bytes of the masks the memo's keys hold

    def build(depth: int, mask: int, centre: int) -> int:
        key = (depth, mask, centre)
        hit = memo.get(key)
        if hit is not None:
            return hit
        row = lut[depth]
        if depth == k - 1:  # leaves: the first transition still matching (lowest bit), else unchanged
            children = tuple(_first_output(mask & row[s], outputs, centre) for s in states)
        elif depth == 0:
            children = tuple(build(1, mask & row[s], s) for s in states)
        else:
            children = tuple(build(depth + 1, mask & row[s], centre) for s in states)
        memo[key] = found = builder.node(depth, children)
        held[0] += mask.bit_length() // 8 + 32
        if held[0] > budget:
            raise TableTooLarge(f"the table's {len(transitions)} distinct transitions need more than "
                                f"{budget / 2**20:g} MiB to compile to a tree")
        return found

    root = build(0, (1 << len(transitions)) - 1, 0)
    order = (inputs[0],) + tuple(inputs[1:])
    return Tree(np.array(builder.rows, dtype=np.int32).reshape(-1, n_states), root, order, n_states)


def _first_output(matching: int, outputs: list[int], centre: int) -> int:
    """The output of the lowest-numbered transition in the bitset ``matching``, else ``centre``."""
    return outputs[(matching & -matching).bit_length() - 1] if matching else centre


_HEADER = re.compile(r"\s*(num_states|num_neighbors|num_nodes)\s*=\s*(-?[0-9]+)")


def parse_tree(section: Section, source: str | None):
    """``(n_states, neighbourhood, tree)`` of a ``@TREE`` section (Golly's ``ruletreealgo``)."""
    header: dict[str, int] = {}
    rows: list[list[int]] = []
    levels: list[int] = []
    for number, raw in section.lines[1:]:
        if not raw.strip() or raw.startswith("#"):
            continue
        m = _HEADER.match(raw)
        if m:
            value = small_int(m.group(2))
            if value is None:
                raise RuleFileError(f"{m.group(1)} needs a whole number", source, number, 1)
            header[m.group(1)] = value
            continue
        _check_header(header, source, number)
        rows.append(_node_line(raw, number, header, levels, source))
    _check_header(header, source, section.line)
    n_states, n_neighbours, n_nodes = header["num_states"], header["num_neighbors"], header["num_nodes"]
    if len(rows) != n_nodes:
        raise RuleFileError(f"num_nodes is {n_nodes} but {len(rows)} nodes follow", source, section.line, 1)
    if levels[-1] != n_neighbours + 1:
        raise RuleFileError(f"the last node (the root) must be at level {n_neighbours + 1}", source,
                            section.lines[-1][0], 1)
    # Golly's root is the last node; renumber so that the evaluation starts there.
    nodes = np.array(rows, dtype=np.int32)
    tree = Tree(nodes, len(rows) - 1, TREE_ORDER[n_neighbours], n_states)
    return n_states, "Moore" if n_neighbours == 8 else "vonNeumann", tree


def _check_header(header: dict[str, int], source: str | None, number: int) -> None:
    missing = [k for k in ("num_states", "num_neighbors", "num_nodes") if k not in header]
    if missing:
        raise RuleFileError(f"{', '.join(missing)} missing before the tree's nodes", source, number, 1)
    if not 2 <= header["num_states"] <= 256:
        raise RuleFileError("num_states must be 2..256", source, number, 1)
    if header["num_neighbors"] not in (4, 8):
        raise RuleFileError("num_neighbors must be 4 or 8", source, number, 1)
    if not header["num_neighbors"] <= header["num_nodes"] <= 100_000_000:
        raise RuleFileError("num_nodes out of range", source, number, 1)


def _node_line(raw: str, number: int, header: dict[str, int], levels: list[int], source: str | None) -> list[int]:
    """One node: ``level v_0 .. v_{n-1}`` (states at level 1, earlier nodes one level down above)."""
    tokens = [(m.group(), m.start() + 1) for m in re.finditer(r"\S+", raw)]
    n_states = header["num_states"]
    level_token, col = tokens[0]
    level = small_int(level_token)
    if level is None or not 1 <= level <= header["num_neighbors"] + 1:
        raise RuleFileError(f"bad node level {level_token[:40]!r}", source, number, col)
    if len(tokens) - 1 != n_states:
        raise RuleFileError(f"a node needs {n_states} values, got {len(tokens) - 1}", source, number, col)
    values = []
    for token, col in tokens[1:]:
        v = small_int(token)
        if v is None:
            raise RuleFileError(f"expected a number, got {token[:40]!r}", source, number, col)
        if level == 1 and v >= n_states:
            raise RuleFileError(f"state {v} out of range", source, number, col)
        if level > 1 and (v >= len(levels) or levels[v] != level - 1):
            raise RuleFileError(f"node {v} is not a node one level down", source, number, col)
        values.append(v)
    levels.append(level)
    return values
