"""Golly's emulated Margolus rules: recognising them, and converting their cells both ways.

Golly has no Margolus neighbourhood; its ``*Margolus*emulated`` rule files (built by its
``EmulateMargolus`` script from a Margolus rule table) run a block rule with ``n`` states as a Moore
rule tree with ``2n + 1`` states. A cell holding block state ``s`` on background bit ``b`` is
Golly state ``1 + b + 2s``; state 0 is *off-grid* (outside the emulated region: it never changes,
and a block holding it stays as it is). The background bit is 0 exactly on the top-left cells of
the blocks the next step updates, so it carries the phase; each step moves it one cell diagonally.

- :func:`decode` turns an emulated grid into native cells, the mask of cells on the grid and the
  phase (None when the background is not a consistent block lattice); :func:`encode` turns them
  back. Both are exact inverses on consistent grids.
- :func:`recognise` reads a rule tree and returns the native :class:`BlockRule` it emulates, or
  None. It extracts the block table from the tree, then checks the tree against the native rule on
  *every* neighbourhood a consistent grid can present ((n + 1)**9 per block position, a second or
  so for Golly's 9-state rules), so a recognised rule is computed exactly.

One quirk of the emulation is kept out rather than reproduced: where a cell's four diagonal
neighbours are all off-grid (a one-cell-wide strip of grid), the tree may leave its background bit
unflipped, after which the lattice is broken. :func:`safe_geometry` finds such cells; the engine
(:mod:`tensorca.margolus.engine`) hands those grids, like inconsistent ones, to the rule-table
engine, which computes what Golly computes whatever the cells.
"""

from __future__ import annotations

import functools
import hashlib
from typing import TYPE_CHECKING, Any

import numpy as np

from ..families.rule_table import KINDS as TREE_KINDS
from .rules import NAMED, BlockRule, parse_block_rule

if TYPE_CHECKING:  # pragma: no cover
    from ..topology import Topology

__all__ = ["decode", "emulated_rule_text", "encode", "plain_topology", "precheck", "recognise", "recognise_tree",
           "safe_geometry"]

#: Golly's ``@TREE`` reading order for 8 neighbours (``(dy, dx)``): nw, ne, sw, se, n, w, e, s, c.
MOORE_ORDER = ((-1, -1), (-1, 1), (1, -1), (1, 1), (-1, 0), (0, -1), (0, 1), (1, 0), (0, 0))
#: Most native states checked exhaustively ((n + 1)**9 neighbourhoods per block position).
MAX_NATIVE_STATES = 4
#: sha256 digests (:func:`recognise_tree`: root, state count and nodes) of the trees in Golly's own
#: ``*Margolus*emulated`` rule files (Golly 5c412348, 2025-07), checked exhaustively once (a second
#: each for the 9-state ones); a recognised tree with one of these digests skips that check.
CHECKED = frozenset({
    "cc427ecdfc2d2e4f766a76e1af4417dffd9fb1eec27dd0b4756d3775ca1927a2",  # BBM-Margolus-emulated
    "3971797c595f32e7ac343a46de4ca7fc429f89d77494d0ef0a92b9ddf48e3965",  # CrittersMargolus_emulated
    "4482ca901303dbd7e63e609c75ab4b9d7479e3f3f273ed0d9b38ff3c5881f9fe",  # DLA-Margolus-emulated
    "2914f862279c968b932d3371d4396f0627cfbbbd76a79433a5a30066734dd9dc",  # HPPMargolus_emulated
    "bf9be2adb32269694d71b7611a714048f4a1dbef907f1a8c3598c376b5c1e358",  # Sand-Margolus-emulated
    "e90022a100ea0d0109b0de7cc5a734ba03caa9bf5ceeb1275d7717c52f7250be",  # TMGasMargolus_emulated
    "7975ded8ff77d0604d994b0e3b509e7240b966b1907366dc07039d02e440fe53",  # TripATronMargolus_emulated
})
#: The block positions (TL, TR, BL, BR) as ``(dy, dx)`` from the block's top-left cell.
POSITIONS = ((0, 0), (0, 1), (1, 0), (1, 1))


# -- cells ------------------------------------------------------------------------------------------


def decode(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[int, int]] | None:
    """``(cells, present, phase)`` of an emulated ``(H, W)`` grid of Golly states ``0..2n``:
    ``cells`` ``(H, W)`` uint8 native states (0 off the grid), ``present`` ``(H, W)`` bool, and the
    ``(py, px)`` parity of the next step's block corners. None when the background bits do not form
    one block lattice (the bit 0 on exactly the present cells at one parity)."""
    grid = np.asarray(grid)
    present = grid != 0
    value = grid.astype(np.int16) - 1
    corner = present & (value % 2 == 0)
    ys = (np.arange(grid.shape[0]) % 2)[:, None]
    xs = (np.arange(grid.shape[1]) % 2)[None, :]
    for py, px in POSITIONS:
        if np.array_equal(corner, present & (ys == py) & (xs == px)):
            cells = np.where(present, value // 2, 0).astype(np.uint8)
            return cells, present, (py, px)
    return None


def encode(cells: np.ndarray, present: np.ndarray | None, phase: tuple[int, int]) -> np.ndarray:
    """The emulated ``(H, W)`` uint8 grid of native ``cells`` ``(H, W)`` (``present``: None for all)
    whose next step's block corners lie at parity ``phase``; cells not present become 0."""
    cells = np.asarray(cells, dtype=np.uint8)
    ys = (np.arange(cells.shape[0]) % 2)[:, None]
    xs = (np.arange(cells.shape[1]) % 2)[None, :]
    background = ~((ys == phase[0]) & (xs == phase[1]))
    out = (1 + background + 2 * cells.astype(np.int16)).astype(np.uint8)
    return out if present is None else np.where(present, out, 0).astype(np.uint8)


def safe_geometry(present: np.ndarray, torus: bool) -> bool:
    """False when a present cell has all four diagonal neighbours absent (outside a plane is absent),
    where Golly's emulation breaks its own lattice (module docstring)."""
    pad = np.pad(present, 1, mode="wrap") if torus else np.pad(present, 1)
    diagonal = pad[:-2, :-2] | pad[:-2, 2:] | pad[2:, :-2] | pad[2:, 2:]
    return not bool((present & ~diagonal).any())


# -- recognising a rule tree ------------------------------------------------------------------------


def _walk(nodes: np.ndarray, root: int, inputs: list[np.ndarray]) -> np.ndarray:
    node = np.full(inputs[0].shape, root, dtype=nodes.dtype)
    for values in inputs:
        node = nodes[node, values]
    return node


def _neighbourhoods(n: int, position: tuple[int, int], values: list[np.ndarray]) -> list[np.ndarray]:
    """Golly states of each tree input, for native ``values`` (``n`` = off-grid) around a cell at
    ``position`` in its block, the blocks' corners at even coordinates."""
    py, px = position
    out = []
    for (dy, dx), v in zip(MOORE_ORDER, values, strict=True):
        background = 0 if ((py + dy) % 2 == 0 and (px + dx) % 2 == 0) else 1
        out.append(np.where(v == n, 0, 1 + background + 2 * v).astype(np.uint8))
    return out


def _extract(nodes: np.ndarray, root: int, n: int) -> tuple[int, ...]:
    """The block table the tree applies to whole blocks among present cells of state 0."""
    codes = np.arange(n**4)
    block = [(codes // n**k) % n for k in range(4)]
    new = np.zeros(n**4, dtype=np.int64)
    for k, position in enumerate(POSITIONS):
        values = []
        for dy, dx in MOORE_ORDER:
            y, x = position[0] + dy, position[1] + dx
            values.append(block[2 * y + x] if 0 <= y <= 1 and 0 <= x <= 1 else np.zeros_like(codes))
        state = _walk(nodes, root, _neighbourhoods(n, position, values))
        new += np.where(state == 0, 0, (state - 1) // 2) * n**k
    return tuple(int(v) for v in new)


def _predicted(rule: BlockRule, position: tuple[int, int], values: list[np.ndarray]) -> np.ndarray:
    """The Golly state the emulation should give a cell at ``position`` with neighbourhood ``values``."""
    n = rule.n_states
    py, px = position
    at = dict(zip(MOORE_ORDER, values, strict=True))
    block = [at[(by - py, bx - px)] for by, bx in POSITIONS]
    whole = np.logical_and.reduce([b < n for b in block])
    code = sum(np.where(b < n, b, 0) * n**k for k, b in enumerate(block))
    new = rule.new_cells()[code][:, 2 * py + px]
    centre = at[(0, 0)]
    state = np.where(whole, new, centre)
    background = 0 if (py, px) == (1, 1) else 1  # the next lattice's corners are at odd coordinates
    return np.where(centre == n, 0, 1 + background + 2 * state.astype(np.int32))


def _agrees(nodes: np.ndarray, root: int, rule: BlockRule, sample: int | None) -> bool:
    """The tree gives :func:`_predicted` on every consistent neighbourhood (``sample``: on that many
    random ones per position only), apart from cells whose diagonal neighbours are all off-grid."""
    n = rule.n_states
    k = n + 1
    if sample is None:
        index = np.arange(k**9, dtype=np.int64)
    else:
        index = np.random.default_rng(0).integers(0, k**9, sample)
    values = [((index // k**i) % k).astype(np.uint8) for i in range(9)]
    lonely = np.logical_and.reduce([values[i] == n for i in range(4)])  # nw, ne, sw, se all off-grid
    for position in POSITIONS:
        got = _walk(nodes, root, _neighbourhoods(n, position, values))
        want = _predicted(rule, position, values)
        if ((got != want) & ~lonely).any():
            return False
    return True


def recognise_tree(nodes: np.ndarray, root: int, n_states: int, order: tuple) -> BlockRule | None:
    """The native rule a Moore rule tree emulates (module docstring), or None."""
    if tuple(order) != MOORE_ORDER or n_states < 5 or n_states % 2 == 0:
        return None
    n = (n_states - 1) // 2
    if n > MAX_NATIVE_STATES:
        return None
    nodes = np.ascontiguousarray(nodes, dtype=np.int32)
    digest = hashlib.sha256(np.int64(root).tobytes() + np.int64(n_states).tobytes() + nodes.tobytes()).hexdigest()
    return _recognised(digest, nodes, root, n)


_TREES: dict[str, tuple[np.ndarray, int]] = {}


def _recognised(digest: str, nodes: np.ndarray, root: int, n: int) -> BlockRule | None:
    _TREES[digest] = (nodes, root)
    try:
        return _recognised_cached(digest, n)
    finally:
        _TREES.pop(digest, None)


@functools.lru_cache(maxsize=64)
def _recognised_cached(digest: str, n: int) -> BlockRule | None:
    nodes, root = _TREES[digest]
    if nodes[root].shape[0] != 2 * n + 1 or int(_walk(nodes, root, [np.zeros(1, np.uint8)] * 9)[0]) != 0:
        return None  # off-grid cells must stay off-grid
    table = _extract(nodes, root, n)
    rule = _named(BlockRule(table, n))
    if not _agrees(nodes, root, rule, 4096):
        return None
    if digest not in CHECKED and not _agrees(nodes, root, rule, None):
        return None
    return rule


def _named(rule: BlockRule) -> BlockRule:
    """``rule`` with its name from :data:`NAMED` when its table is a named rule's."""
    for spelling, _, _ in NAMED.values():
        named = parse_block_rule(spelling)
        if named == rule:
            return named
    return rule


def recognise(rule: Any) -> BlockRule | None:
    """The native block rule a tensorca rule value emulates (a Golly rule file whose tree is a
    Margolus emulation), or None for every other rule."""
    try:
        spec = rule.compile()
    except Exception:  # noqa: BLE001 - a rule that does not compile is not an emulation
        return None
    if spec.kinds != TREE_KINDS:
        return None
    tree = spec.update.tree
    return recognise_tree(tree.nodes, tree.root, tree.n_states, tree.order)


# -- writing an emulated rule file ------------------------------------------------------------------

def _expected(position: tuple[int, int]) -> list[int]:
    """The background bits a cell at block ``position`` sees at each offset of :data:`MOORE_ORDER`
    (0 on the corners of the blocks now updated)."""
    py, px = position
    return [0 if ((py + dy) % 2 == 0 and (px + dx) % 2 == 0) else 1 for dy, dx in MOORE_ORDER]


def _transitions(rule: BlockRule) -> list[tuple[list[set[int]], int]]:
    """The emulation as first-match transitions over :data:`MOORE_ORDER`: for each block position,
    every whole block (partners present with the position's background bits, other neighbours
    off-grid or with theirs); then, per position and state, the cell with its partners anywhere,
    which keeps its state. Both give the cell its next background bit."""
    n = rule.n_states
    out: list[tuple[list[set[int]], int]] = []
    new_cells = rule.new_cells()
    for k, position in enumerate(POSITIONS):
        bits = _expected(position)
        bit_after = 0 if position == (1, 1) else 1
        partner = {(by - position[0], bx - position[1]): j for j, (by, bx) in enumerate(POSITIONS)}
        for code in range(n**4):
            block = [(code // n**j) % n for j in range(4)]
            allowed = []
            for i, offset in enumerate(MOORE_ORDER):
                if offset in partner:
                    allowed.append({1 + bits[i] + 2 * block[partner[offset]]})
                else:
                    allowed.append({0} | {1 + bits[i] + 2 * s for s in range(n)})
            out.append((allowed, 1 + bit_after + 2 * int(new_cells[code, k])))
    for position in POSITIONS:
        bits = _expected(position)
        bit_after = 0 if position == (1, 1) else 1
        for s in range(n):
            allowed = [{0} | {1 + bits[i] + 2 * t for t in range(n)} for i in range(8)]
            out.append((allowed + [{1 + bits[8] + 2 * s}], 1 + bit_after + 2 * s))
    return out


def _first(matching: int, outputs: list[int], centre: int) -> int:
    """The output of the lowest-numbered transition in the bitset ``matching``, else ``centre``."""
    return outputs[(matching & -matching).bit_length() - 1] if matching else centre


def emulated_rule_text(rule: BlockRule, name: str) -> str:
    """A Golly ``.rule`` file (``@RULE name``, a Moore ``@TREE``) that emulates ``rule`` with the
    state encoding of Golly's ``*Margolus*emulated`` files (module docstring), so Golly runs block
    rules it has no file for. For the rules of Golly's own files it computes what they compute."""
    n_golly = 2 * rule.n_states + 1
    transitions = _transitions(rule)
    rows = [[0] * n_golly for _ in MOORE_ORDER]  # bitsets: rows[input][state] = transitions allowing it
    for t, (allowed, _) in enumerate(transitions):
        for i, states in enumerate(allowed):
            for s in states:
                rows[i][s] |= 1 << t
    outputs = [out for _, out in transitions]
    nodes: list[tuple[int, tuple[int, ...]]] = []
    index: dict[tuple[int, tuple[int, ...]], int] = {}
    memo: dict[tuple[int, int], int] = {}

    def node(depth: int, mask: int) -> int:
        key = (depth, mask)
        if key not in memo:
            if depth == len(MOORE_ORDER) - 1:  # the centre: the first matching transition, else unchanged
                children = tuple(_first(mask & rows[depth][s], outputs, s) for s in range(n_golly))
            else:
                children = tuple(node(depth + 1, mask & rows[depth][s]) for s in range(n_golly))
            entry = (len(MOORE_ORDER) - depth, children)
            if entry not in index:
                index[entry] = len(nodes)
                nodes.append(entry)
            memo[key] = index[entry]
        return memo[key]

    node(0, (1 << len(transitions)) - 1)
    lines = [f"@RULE {name}", "",
             f"Emulates the Margolus block rule {rule.canonical()} ({rule.n_states} states) on the Moore",
             "neighbourhood: state 1 + b + 2s is block state s on background bit b (b = 0 on the corners of the",
             "blocks the next step updates), state 0 is off the grid. Written by tensorca.margolus.", "",
             "@TREE", "", f"num_states={n_golly}", "num_neighbors=8", f"num_nodes={len(nodes)}"]
    lines += [" ".join(map(str, (level, *children))) for level, children in nodes]
    return "\n".join(lines) + "\n"


def plain_topology(topology: Topology) -> bool:
    """A plain torus or bounded plane (no shift): where the ``margolus`` engine runs."""
    return topology.kind in ("torus", "plane") and not (topology.shift_x or topology.shift_y)


def precheck(spec: Any, topology: Topology) -> bool:
    """A rule tree that emulates a Margolus rule, on a plain torus or bounded plane: the ``margolus``
    engine's registry precheck (here, beside the recogniser, so the registry needs not the engine)."""
    if not plain_topology(topology) or spec.kinds != TREE_KINDS:
        return False
    tree = spec.update.tree
    return recognise_tree(tree.nodes, tree.root, tree.n_states, tree.order) is not None
