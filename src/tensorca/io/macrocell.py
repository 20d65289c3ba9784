"""Golly's macrocell format (``.mc``): a hash-consed quadtree, two-state and multi-state.

The format (Golly Help, "File Formats"; ``hlifealgo``/``ghashbase`` ``readmacrocell`` and
``writeNativeFormat``):

- Line 1 starts with ``[M2]`` and names the writer: ``[M2] (golly 4.2)``.
- ``#`` lines: ``#R <rule>`` (up to the first whitespace, topology suffix included),
  ``#G <generation>``; every other ``#`` line is a comment. Here ``#N`` is the name, ``#O`` the
  author, ``#C``/``#c``/``#D`` and other ``#`` lines are comments; Golly's ``#FRAMES``/``#FRAME``
  timeline lines are skipped (the timeline is not part of a :class:`Pattern`).
- Then one node per line, children before parents, numbered 1, 2, ... in file order (``#`` and
  blank lines are not numbered). Node 0 is the empty square of whatever size is needed.

  - Two-state leaves are 8x8 squares (level 3): rows top to bottom, ``.`` dead, ``*`` alive,
    ``$`` ends a row; trailing dead cells and rows are omitted (``$$..*$...*$.***$``).
  - Multi-state leaves are 2x2 squares (level 1): ``1 nw ne sw se`` (four states).
  - ``k nw ne sw se`` is a ``2**k`` square made of four ``2**(k-1)`` children (node numbers);
    ``k >= 4`` for two-state files, ``k >= 2`` for multi-state ones.
  - The last node is the root.

Coordinates. Golly stores the root of level ``k`` centred on the origin: "the upper left cell
of the southeast child of the root node is at (x=0, y=1)" (Help), i.e. internally a level-``k``
node spans ``x`` and ``-y`` in ``[-2**(k-1), 2**(k-1))`` (``hlifealgo::getcell`` negates ``y``).
So the root's top-left cell is at ``(-2**(k-1), 1 - 2**(k-1))`` in pattern coordinates (x right,
y down), the same coordinates in which Golly places an RLE file's top-left cell at ``(0, 0)``
(or at ``#CXRLE Pos=``). Loading the macrocell and the RLE of one pattern therefore gives the
same cells at the same :attr:`Pattern.origin` (as Golly shows them).

- Unbounded plane (no suffix): ``cells`` is the bounding box of the live cells and ``origin``
  its top-left in pattern coordinates (an empty tree gives a ``(0, 0)`` array at ``(0, 0)``).
  Writing places ``cells[0, 0]`` at ``origin``.
- Bounded grids (``:T w,h`` / ``:P w,h``): Golly centres the grid on the origin, so its top-left
  cell is ``(-(w // 2), -(h // 2))`` (where ``readrle`` puts an RLE without ``Pos=``). Reading
  gives the whole ``(h, w)`` grid with ``origin`` at that cell (tensorca's convention: on a
  bounded grid ``cells[0, 0]`` is the grid's top-left); live cells outside the grid are an error.
  Writing places ``cells[0, 0]`` at the grid's top-left whatever ``origin`` says.

Two-state files on the unbounded plane whose rule HashLife runs (or that name none) become
tree-backed patterns (:class:`Pattern` with ``tree``; when Numba is installed): the node lines map
onto HashLife records (:mod:`tensorca.io.mc_tree`'s :func:`~tensorca.io.mc_tree.records`) and
the tree is built node for node, without a dense array (Golly's ``metapixel-galaxy.mc.gz``,
30720^2 cells, in a fraction of a second), since tensorca's HashLife centres its roots as Golly
does. The cell budget then applies when ``cells`` is read, or at once when ``max_cells`` is
given. Writing a tree-backed pattern prints its records straight from the tree.

Other files keep the node table in compact typed arrays (a few bytes per node, see
:mod:`tensorca.io.mc_tree`), compute the bounding box of the nodes reachable from the root and
checks it against the cell budget before allocating, so a level-40 tree with two distant cells
fails at once; the array is then filled top down, with NumPy gathers over the node table, in
tiles of bounded size (empty tiles skipped), so the fill needs the array plus a few MB.

Writing hash-conses identical subtrees (one line per distinct node, ``np.unique`` per level),
writes 8x8 leaves for two-state patterns (a rule with 2 states, or no rule and states 0/1) and
2x2 level-1 nodes otherwise, children before parents, and the smallest centred root that holds
every live cell (level >= 4 two-state, >= 2 multi-state, as Golly writes).

Decisions where Golly is lenient: Golly skips lines it cannot parse in places, ignores child
sizes and accepts a sixth number on node lines; here a node line is exactly five integers, a
child must be one level below its parent (or 0), a reference must name an earlier node, leaf
lines may hold only ``.``, ``*``, ``$`` (``*`` beyond the 8x8 square is an error), and two-state
leaves and multi-state level-1 nodes cannot be mixed. Each raises :class:`PatternError` with the
line and column.
"""

from __future__ import annotations

import re
from itertools import islice
from typing import Any

import numpy as np

from .._version import __version__
from ..errors import PatternError
from ..pattern import Pattern
from ..topology import Topology
from .budget import check_area, resolve_max_cells
from .common import NONBLANK, check_writable_states, iter_lines, metadata_lines, parse_int, parse_rule_in_file
from .mc_bulk import read_two_state_body
from .mc_tree import NodeTable, records, root_box

#: Level of a two-state leaf (8x8) and of a multi-state leaf (2x2).
TWO_STATE_LEAF = 3
MULTI_STATE_LEAF = 1

_FIELD = re.compile(r"\S+")
_LEAF_BAD = re.compile(r"[^.*$]")
_LEAF_CACHE = 1 << 16  # distinct leaf lines remembered
#: Deepest root a tree-backed pattern may have (HashLife's ``MAX_LEVEL``; deeper files are filled).
HASHLIFE_MAX_LEVEL = 62


def root_top_left(level: int) -> tuple[int, int]:
    """Pattern coordinates ``(x, y)`` of the top-left cell of a level-``level`` root (Golly's centring)."""
    half = 1 << (level - 1) if level > 0 else 0
    return (-half, 1 - half) if level > 0 else (0, 0)


def grid_top_left(topology: Topology) -> tuple[int, int]:
    """Where Golly puts the top-left cell of a bounded ``w x h`` grid: ``(-(w // 2), -(h // 2))``."""
    h, w = topology.shape
    return (-(w // 2), -(h // 2))


# --- reading ----------------------------------------------------------------------------------


def read_macrocell(text: str, *, source: str | None = None, max_cells: int | None = None) -> Pattern:
    """Parse macrocell ``text`` into a :class:`Pattern` (``cells``: ``(H, W)`` ``uint8``).

    Raises :class:`PatternError` with 1-based line and column for a missing ``[M2]`` header, bad
    characters, bad node references or levels, states beyond the rule or 255, and a bounding box
    beyond ``max_cells`` (checked before anything is allocated).
    """
    budget = resolve_max_cells(max_cells)
    name: str | None = None
    author: str | None = None
    comments: list[str] = []
    rule = None
    topology = Topology.unbounded()
    generation = 0
    tree = NodeTable()
    saw_header = False
    body = _body_start(text)
    bulk = read_two_state_body(text[body:]) if body < len(text) else None
    if bulk is not None:  # the lines before the body are read below; the body is read
        tree = bulk

    for lineno, line in iter_lines(text, stop=body if bulk is not None else None):
        if not saw_header:
            if lineno != 1 or not line.startswith("[M2]"):
                raise PatternError("a macrocell file must start with '[M2]'", 1, 1, source)
            saw_header = True
            continue
        if line.startswith("#"):
            kind, value = _hash_line(line, lineno, source)
            if kind == "rule":
                rule, topology = value
            elif kind == "generation":
                generation = value
            elif kind == "name":
                name = value
            elif kind == "author":
                author = value
            elif kind == "comment":
                comments.append(value)
            continue
        if not line.strip():
            continue  # Golly permits blank lines; they are not numbered
        first = line[0]
        if first in ".*$":
            _leaf_line(tree, line, lineno, source)
        else:
            _node_line(tree, line, lineno, source, rule)

    if not saw_header:
        raise PatternError("empty file: a macrocell file must start with '[M2]'", 1, 1, source)
    if tree.kind == "two" and tree.first_small_node is not None:
        line_, col_, level_ = tree.first_small_node
        raise PatternError(
            f"level {level_} is below 4, the smallest non-leaf node of a two-state macrocell file", line_, col_, source
        )

    fields: dict[str, Any] = dict(
        rule=rule, topology=topology, generation=generation, name=name, comments=comments, author=author
    )
    root = len(tree) - 1
    universe = _universe(tree, root, rule, topology)
    if universe is not None:
        pattern = Pattern(tree=universe, **fields)
        box = pattern.bounding_box()
        if max_cells is not None and box is not None:
            check_area(box[2], box[3], budget, source=source, what="bounding box of the live cells")
        return pattern
    x0, y0, width, height, live = _placement(tree, root, topology, budget, source)
    cells = np.zeros((height, width), dtype=np.uint8)
    if live:
        _fill(tree, root, cells, x0, y0)
    return Pattern(cells=cells, origin=(x0, y0), **fields)


def _body_start(text: str) -> int:
    """Offset of the first node line of ``text``: past the ``[M2]`` line and the ``#`` and blank
    lines after it (``len(text)`` when there is none); blank lines skipped by a C-level search."""
    end, first = 0, True
    for m in NONBLANK.finditer(text):
        start = max(text.rfind("\n", end, m.start()), text.rfind("\r", end, m.start()), end - 1) + 1
        end = m.end()
        if first:
            first = False
            continue
        if not text.startswith("#", start):
            return start
    return len(text)


def _universe(tree: NodeTable, root: int, rule: Any, topology: Topology) -> Any:
    """The HashLife universe of a two-state tree on the unbounded plane (the root centred as
    Golly centres it), or None: a multi-state or bounded file, a rule HashLife does not run, a
    level beyond HashLife's 62, or no Numba (the dense fill then reads it)."""
    if tree.kind != "two" or topology.bounded or max(tree.level) > HASHLIFE_MAX_LEVEL:
        return None
    try:
        from ..hashlife import HashLife
        from ..hashlife.universe import why_not
    except ImportError:  # Numba is the optional [fast] extra; MissingDependencyError is an ImportError
        return None
    if rule is not None and why_not(rule) is not None:
        return None
    engine = HashLife(rule if rule is not None else "B3/S23")
    if not tree.nonempty[root]:
        return engine.empty()
    levels, children, leaves = records(tree, root)
    return engine.from_records(levels, children, leaves, origin=root_top_left(int(levels[-1])))


def _placement(
    tree: NodeTable, root: int, topology: Topology, budget: int, source: str | None
) -> tuple[int, int, int, int, bool]:
    """``(x0, y0, width, height, any live cell)`` of the array to fill: the bounding box of the
    live cells (unbounded plane) or the whole grid (bounded), checked against the budget."""
    box = root_box(tree, root, source) if root > 0 else None
    if box is not None:
        rx, ry = root_top_left(tree.level[root])
        box = (box[0] + rx, box[1] + ry, box[2] + rx, box[3] + ry)
    if topology.bounded:
        gx, gy = grid_top_left(topology)
        gh, gw = topology.shape
        if box is not None and (box[0] < gx or box[1] < gy or box[2] >= gx + gw or box[3] >= gy + gh):
            raise PatternError(
                f"live cells span x {box[0]}..{box[2]}, y {box[1]}..{box[3]}, outside the {gw} x {gh} grid "
                f"of {topology.suffix()[1:]} (x {gx}..{gx + gw - 1}, y {gy}..{gy + gh - 1})",
                source=source,
            )
        check_area(gw, gh, budget, source=source, what="bounded grid")
        return gx, gy, gw, gh, box is not None
    if box is None:
        return 0, 0, 0, 0, False
    width, height = box[2] - box[0] + 1, box[3] - box[1] + 1
    check_area(width, height, budget, source=source, what="bounding box of the live cells")
    return box[0], box[1], width, height, True


def _hash_line(line: str, lineno: int, source: str | None) -> tuple[str, Any]:
    key = line[1:2]
    rest = line[2:]
    if key == "R":
        stripped = rest.lstrip()
        token = stripped.split()[0] if stripped.split() else ""
        if not token:
            raise PatternError("#R line without a rule", lineno, 3, source)
        col = 3 + len(rest) - len(stripped)
        return "rule", parse_rule_in_file(token, lineno, col, source)
    if key == "G":
        stripped = rest.lstrip()
        token = stripped.split()[0] if stripped.split() else ""
        col = 3 + len(rest) - len(stripped)
        if not token:
            raise PatternError("#G line without a generation", lineno, 3, source)
        gen = parse_int(token, lineno, col, source, "generation")
        if gen < 0:
            raise PatternError(f"generation must be >= 0, got {gen}", lineno, col, source)
        return "generation", gen
    if line.startswith("#FRAME"):  # Golly's timeline frames: not part of a Pattern
        return "other", None
    if key == "N":
        return "name", rest.strip()
    if key == "O":
        return "author", rest.strip()
    if key in ("C", "c", "D"):
        return "comment", rest[1:] if rest.startswith(" ") else rest
    return "comment", line[1:]


def _set_kind(tree: NodeTable, kind: str, lineno: int, source: str | None) -> None:
    if tree.kind is None:
        tree.kind = kind
    elif tree.kind != kind:
        raise PatternError(
            "two-state 8x8 leaves ('.', '*', '$') and multi-state level-1 nodes ('1 a b c d') cannot be mixed",
            lineno,
            1,
            source,
        )


def _leaf_line(tree: NodeTable, line: str, lineno: int, source: str | None) -> None:
    """An 8x8 two-state leaf: rows of ``.``/``*`` ended by ``$``; read with string searches, so a
    hostile line of a million ``$`` or ``.`` costs no Python loop per character."""
    _set_kind(tree, "two", lineno, source)
    body = line.rstrip()
    packed = tree.leaf_cache.get(body)
    if packed is not None:
        tree.add_packed_leaf(packed, TWO_STATE_LEAF)
        return
    bad = _LEAF_BAD.search(body)
    if bad:
        raise PatternError(
            f"unexpected character {bad.group()!r} in a two-state leaf; expected '.', '*' or '$'",
            lineno,
            bad.start() + 1,
            source,
        )
    cells = np.zeros((8, 8), dtype=np.uint8)
    start = 0
    for y in range(8):
        stop = body.find("$", start)
        stop = len(body) if stop < 0 else stop
        beyond = body.find("*", start + 8, stop)  # a live cell right of the leaf
        if beyond >= 0:
            _outside_leaf(body, beyond, lineno, source)
        row = body[start : min(stop, start + 8)]
        cells[y, : len(row)] = np.frombuffer(row.encode("ascii"), dtype=np.uint8) == ord("*")
        if stop == len(body):
            break
        start = stop + 1
    else:
        beyond = body.find("*", start)  # any live cell below row 7
        if beyond >= 0:
            _outside_leaf(body, beyond, lineno, source)
    tree.add_leaf(cells, TWO_STATE_LEAF)
    if len(tree.leaf_cache) < _LEAF_CACHE and len(body) <= 80:
        tree.leaf_cache[body] = np.packbits(cells, axis=1).tobytes()


def _multi_state_leaf(
    tree: NodeTable, states: list[int], fields: list[tuple[str, int]], lineno: int, source: str | None, rule: Any
) -> None:
    """``1 nw ne sw se``: a 2x2 leaf of four states, each checked against 0..255 and the rule."""
    _set_kind(tree, "multi", lineno, source)
    for s, (_, col) in zip(states, fields, strict=True):
        if s < 0 or s > 255:
            raise PatternError(f"state {s} is not in 0..255", lineno, col, source)
        if rule is not None and s >= rule.n_states:
            raise PatternError(
                f"state {s} is not a state of rule {rule.canonical()!r}, which has {rule.n_states} states",
                lineno,
                col,
                source,
            )
    tree.add_leaf(np.array(states, dtype=np.uint8).reshape(2, 2), MULTI_STATE_LEAF)


def _outside_leaf(body: str, at: int, lineno: int, source: str | None) -> None:
    row_start = body.rfind("$", 0, at) + 1
    raise PatternError(
        f"live cell at column {at - row_start}, row {body.count('$', 0, at)} is outside the 8x8 leaf",
        lineno,
        at + 1,
        source,
    )


def _node_line(tree: NodeTable, line: str, lineno: int, source: str | None, rule: Any) -> None:
    fields = [(m.group(), m.start() + 1) for m in islice(_FIELD.finditer(line), 6)]
    if not fields[0][0].lstrip("+-").isdigit():
        raise PatternError(
            f"unexpected {fields[0][0]!r}: expected a leaf ('.', '*', '$') or a node 'level nw ne sw se'",
            lineno,
            fields[0][1],
            source,
        )
    if len(fields) > 5:
        raise PatternError(f"unexpected {fields[5][0]!r} after the node's five numbers", lineno, fields[5][1], source)
    if len(fields) < 5:
        raise PatternError(
            f"expected 5 integers (level nw ne sw se), got {len(fields)}", lineno, len(line.rstrip()) + 1, source
        )
    names = ("level", "nw", "ne", "sw", "se")
    values = [parse_int(tok, lineno, col, source, f"node {n}") for (tok, col), n in zip(fields, names, strict=True)]
    level = values[0]
    if level < 1:
        raise PatternError(f"node level must be >= 1, got {level}", lineno, fields[0][1], source)
    if level == 1:  # multi-state leaf: four states
        _multi_state_leaf(tree, values[1:], fields[1:], lineno, source, rule)
        return
    if level < 4:
        if tree.kind == "two":
            raise PatternError(
                f"level {level} is below 4, the smallest non-leaf node of a two-state macrocell file",
                lineno,
                fields[0][1],
                source,
            )
        if tree.first_small_node is None:
            tree.first_small_node = (lineno, fields[0][1], level)
    if level > 4096:
        raise PatternError(f"node level {level} is too large", lineno, fields[0][1], source)
    defined = len(tree.level)  # the next node's number
    for value, (_, col), what in zip(values[1:], fields[1:], names[1:], strict=True):
        if value < 0 or value >= defined:
            raise PatternError(
                f"{what} child {value} is not an earlier node (this is node {defined}; 0 is empty)", lineno, col, source
            )
        if value and tree.level[value] != level - 1:
            raise PatternError(
                f"{what} child {value} is a level-{tree.level[value]} node; a level-{level} node needs "
                f"level-{level - 1} children",
                lineno,
                col,
                source,
            )
    tree.add_node(level, (values[1], values[2], values[3], values[4]))


#: Most node ids expanded at once while filling (bounds the working memory of the fill).
_MAX_BLOCKS = 1 << 16


class _Filler:
    """What the top-down fill needs: the node tables, the leaf kind and the output window."""

    def __init__(self, tree: NodeTable, out: np.ndarray, lx: int, ly: int) -> None:
        self.tree = tree
        self.ref = np.frombuffer(tree.ref, dtype=np.int32)
        self.kids = np.frombuffer(tree.kids, dtype=np.int32).reshape(-1, 4)
        self.tiles = tree.packed_tiles()
        self.leaf_level = tree.leaf_level
        self.out, self.lx, self.ly = out, lx, ly  # out's top-left in root-local coordinates

    def expand(self, grid: np.ndarray, level: int, bx0: int, by0: int) -> tuple[np.ndarray, int, int] | None:
        """The children of ``grid`` (block ``(bx0, by0)`` at ``level``) cropped to the output, or None."""
        kids = self.kids[self.ref[grid]]  # (ny, nx, 4): nw ne sw se (grid holds non-leaves or 0)
        ny, nx = grid.shape
        nxt = np.empty((2 * ny, 2 * nx), dtype=np.int64)
        nxt[0::2, 0::2] = kids[..., 0]
        nxt[0::2, 1::2] = kids[..., 1]
        nxt[1::2, 0::2] = kids[..., 2]
        nxt[1::2, 1::2] = kids[..., 3]
        level -= 1
        bx0, by0 = 2 * bx0, 2 * by0
        height, width = self.out.shape
        cx0, cx1 = self.lx >> level, (self.lx + width - 1) >> level  # inclusive, floor shifts
        cy0, cy1 = self.ly >> level, (self.ly + height - 1) >> level
        cx0, cy0 = max(cx0, bx0), max(cy0, by0)
        cx1, cy1 = min(cx1, bx0 + nxt.shape[1] - 1), min(cy1, by0 + nxt.shape[0] - 1)
        if cx1 < cx0 or cy1 < cy0:
            return None
        nxt = nxt[cy0 - by0 : cy1 - by0 + 1, cx0 - bx0 : cx1 - bx0 + 1]
        return (nxt, cx0, cy0) if nxt.any() else None

    def write_leaves(self, grid: np.ndarray, bx0: int, by0: int) -> None:
        """Copy the leaves of ``grid`` (block ``(bx0, by0)`` at the leaf level) into the output."""
        side = 1 << self.leaf_level
        tiles = self.tree.unpack(self.tiles[self.ref[grid]])  # (ny, nx, side, side)
        ny, nx = grid.shape
        dense = tiles.transpose(0, 2, 1, 3).reshape(ny * side, nx * side)
        height, width = self.out.shape
        ox, oy = self.lx - bx0 * side, self.ly - by0 * side  # where out starts inside ``dense``
        sx0, sy0 = max(ox, 0), max(oy, 0)
        sx1, sy1 = min(ox + width, dense.shape[1]), min(oy + height, dense.shape[0])
        if sx1 > sx0 and sy1 > sy0:
            self.out[sy0 - oy : sy1 - oy, sx0 - ox : sx1 - ox] = dense[sy0:sy1, sx0:sx1]


def _fill(tree: NodeTable, root: int, out: np.ndarray, x0: int, y0: int) -> None:
    """Write the root's cells into ``out`` (``(H, W)``, top-left at pattern ``(x0, y0)``), top down.

    At each level the node ids of the blocks that meet ``out`` form a small grid; one NumPy gather
    over the children table expands it to the next level, cropped to ``out`` again. A grid that
    would grow beyond ``_MAX_BLOCKS`` is split into tiles filled one after another (empty tiles
    skipped), so the fill needs ``out`` plus a few MB. Block indices and offsets stay Python ints
    (levels beyond 63 are fine).
    """
    level = tree.level[root]
    rx, ry = root_top_left(level)
    filler = _Filler(tree, out, x0 - rx, y0 - ry)
    _descend(filler, np.array([[root]], dtype=np.int64), level, 0, 0)


def _descend(filler: _Filler, grid: np.ndarray, level: int, bx0: int, by0: int) -> None:
    """Fill the blocks of ``grid`` (node ids at ``level``, block ``(bx0, by0)`` top-left)."""
    while level > filler.leaf_level:
        ny, nx = grid.shape
        if 4 * grid.size > _MAX_BLOCKS and grid.size > 1:
            rows = max(1, _MAX_BLOCKS // (4 * nx))
            cols = max(1, min(nx, _MAX_BLOCKS // 4))
            for r in range(0, ny, rows):
                for c in range(0, nx, cols):
                    tile = grid[r : r + rows, c : c + cols]
                    if tile.any():
                        _descend(filler, tile, level, bx0 + c, by0 + r)
            return
        expanded = filler.expand(grid, level, bx0, by0)
        if expanded is None:
            return
        grid, bx0, by0 = expanded
        level -= 1
    filler.write_leaves(grid, bx0, by0)


# --- writing ----------------------------------------------------------------------------------


def write_macrocell(pattern: Pattern) -> str:
    """Encode ``pattern`` as macrocell text (hash-consed: one line per distinct subtree).

    Two-state (a 2-state rule, or no rule and states 0/1) -> 8x8 leaves; otherwise level-1
    nodes. On a bounded topology ``cells[0, 0]`` goes to the grid's top-left cell
    ``(-(w // 2), -(h // 2))``; otherwise to ``origin``. Raises :class:`PatternError` if a state is
    not a state of the rule, or the cells do not fit the bounded grid.
    """
    rule = pattern.rule
    two_state = check_writable_states(pattern)
    topology = pattern.topology
    tree_lines = _records_lines(pattern.tree) if pattern.tree is not None else None
    cells = pattern.cells if tree_lines is None else None
    if tree_lines is not None:
        ox = oy = 0
    elif topology.bounded:
        gh, gw = topology.shape
        if cells.shape[0] > gh or cells.shape[1] > gw:
            raise PatternError(
                f"cells of {cells.shape[1]} x {cells.shape[0]} do not fit the {gw} x {gh} grid "
                f"of {topology.suffix()[1:]}"
            )
        ox, oy = grid_top_left(topology)
    else:
        ox, oy = pattern.origin

    lines = [f"[M2] (tensorca {__version__})"]
    suffix = topology.suffix()
    if rule is not None:
        lines.append(f"#R {rule.canonical()}{suffix}")
    elif suffix:
        lines.append(f"#R B3/S23{suffix}")
    if pattern.generation:
        lines.append(f"#G {pattern.generation}")
    lines += metadata_lines(pattern)
    lines += _tree_lines(cells, ox, oy, two_state) if tree_lines is None else tree_lines
    return "\n".join(lines) + "\n"


def _records_lines(universe: Any) -> list[str] | None:
    """Node lines straight from a HashLife universe's records (children first, one line per
    distinct node: the tree is hash-consed already), or None when its root is not centred as
    Golly's (a tree made from records at another origin: then the cells are written)."""
    levels, children, leaves, corner = universe.records()
    if levels.size == 0:
        return []
    if corner != root_top_left(int(levels[-1])):
        return None
    rows = np.unpackbits(leaves.astype("<u8").view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    out = []
    for level, kids, row in zip(levels.tolist(), children.tolist(), rows.reshape(-1, 8, 8), strict=True):
        out.append(_leaf_text(row) if level == TWO_STATE_LEAF else f"{level} {kids[0]} {kids[1]} {kids[2]} {kids[3]}")
    return out


def _tree_lines(cells: np.ndarray, ox: int, oy: int, two_state: bool) -> list[str]:
    """Node lines for the live cells of ``cells`` (top-left at pattern ``(ox, oy)``), children first."""
    rows = np.flatnonzero(cells.any(axis=1))
    if rows.size == 0:
        return []  # Golly writes no nodes for an empty universe
    cols = np.flatnonzero(cells.any(axis=0))
    cells = cells[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    bx, by = ox + int(cols[0]), oy + int(rows[0])  # bounding box top-left
    ex, ey = bx + cells.shape[1] - 1, by + cells.shape[0] - 1

    leaf_level = TWO_STATE_LEAF if two_state else MULTI_STATE_LEAF
    level = leaf_level + 1  # the root is a non-leaf node, as Golly writes
    while True:
        rx, ry = root_top_left(level)
        side = 1 << level
        if bx >= rx and by >= ry and ex < rx + side and ey < ry + side:
            break
        level += 1
    lx, ly = bx - rx, by - ry  # bounding box top-left in root-local coordinates (>= 0)

    # Pad the box to whole leaves aligned on the root's leaf grid.
    leaf = 1 << leaf_level
    bx0, by0 = lx >> leaf_level, ly >> leaf_level
    nx = ((lx + cells.shape[1] - 1) >> leaf_level) - bx0 + 1
    ny = ((ly + cells.shape[0] - 1) >> leaf_level) - by0 + 1
    padded = np.zeros((ny * leaf, nx * leaf), dtype=np.uint8)
    px, py = lx - bx0 * leaf, ly - by0 * leaf
    padded[py : py + cells.shape[0], px : px + cells.shape[1]] = cells
    tiles = padded.reshape(ny, leaf, nx, leaf).transpose(0, 2, 1, 3).reshape(ny, nx, leaf * leaf)

    out: list[str] = []
    # Leaves: one key per tile, unique keys numbered in order of first appearance.
    if two_state:
        keys = np.packbits(tiles.astype(bool), axis=-1)  # (ny, nx, 8): one byte per row
        keys = np.ascontiguousarray(keys).view(np.uint64)[..., 0]
    else:
        keys = np.ascontiguousarray(tiles).view(np.uint32)[..., 0]
    grid, table = _number(keys.reshape(ny, nx), 0)
    for key in table:
        tile = np.frombuffer(np.asarray(key).tobytes(), dtype=np.uint8)
        if two_state:
            out.append(_leaf_text(np.unpackbits(tile).reshape(8, 8)))
        else:
            out.append("1 " + " ".join(str(int(s)) for s in tile))
    count = len(table)

    # Levels above: pair blocks (aligned on even indices), hash-cons (nw, ne, sw, se).
    lev = leaf_level
    while lev < level:
        if bx0 % 2:
            grid = np.pad(grid, ((0, 0), (1, 0)))
            bx0 -= 1
        if by0 % 2:
            grid = np.pad(grid, ((1, 0), (0, 0)))
            by0 -= 1
        if grid.shape[1] % 2:
            grid = np.pad(grid, ((0, 0), (0, 1)))
        if grid.shape[0] % 2:
            grid = np.pad(grid, ((0, 1), (0, 0)))
        quad = np.stack([grid[0::2, 0::2], grid[0::2, 1::2], grid[1::2, 0::2], grid[1::2, 1::2]], axis=-1)
        lev += 1
        bx0, by0 = bx0 // 2, by0 // 2
        grid, table = _number(quad, count)
        for nw, ne, sw, se in table.tolist():
            out.append(f"{lev} {nw} {ne} {sw} {se}")
        count += len(table)
    return out


def _number(keys: np.ndarray, start: int) -> tuple[np.ndarray, np.ndarray]:
    """Number distinct non-zero keys ``start + 1, ...`` (first appearance order); zero keys -> 0.

    ``keys`` is ``(ny, nx)`` of scalar keys or ``(ny, nx, 4)`` of child numbers. Returns the
    ``(ny, nx)`` grid of numbers and the distinct keys in numbering order.
    """
    ny, nx = keys.shape[:2]
    flat = keys.reshape(ny * nx, -1)
    nonzero = flat.any(axis=1)
    ids = np.zeros(ny * nx, dtype=np.int64)
    if not nonzero.any():
        return ids.reshape(ny, nx), flat[:0].reshape((0,) + keys.shape[2:])
    live = flat[nonzero]
    uniq, first, inverse = np.unique(live, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # number in order of first appearance (reading order)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    ids[nonzero] = start + 1 + rank[inverse.reshape(-1)]
    table = uniq[order].reshape((order.size,) + keys.shape[2:])
    return ids.reshape(ny, nx), table


def _leaf_text(tile: np.ndarray) -> str:
    """An 8x8 two-state leaf as Golly writes it: rows up to the last live one, each ending in ``$``."""
    live_rows = np.flatnonzero(tile.any(axis=1))
    parts = []
    for row in tile[: live_rows[-1] + 1]:
        live = np.flatnonzero(row)
        end = live[-1] + 1 if live.size else 0
        parts.append("".join("*" if c else "." for c in row[:end].tolist()) + "$")
    return "".join(parts)
