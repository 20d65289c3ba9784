"""The body of a plain two-state macrocell file read in bulk, with NumPy over all its bytes at once.

Golly writes a two-state ``.mc`` body as one node per line: 8x8 leaves of ``.``, ``*`` and ``$``,
and nodes ``k nw ne sw se``. Parsed line by line in Python, metapixel-galaxy.mc.gz (5,536 lines)
took ~90 ms; here every line is parsed together (~3 ms): the byte array is split at newlines,
each leaf's live cells get their row (``$`` before them on the line) and column (characters since
the last ``$``) from cumulative sums, each node line's five integers come from the digit runs.

This is a fast path only. :func:`read_two_state_body` returns None for anything it does not
accept in full (a ``#`` or blank line inside the body, ``\\r``, other characters, a node line of
not exactly five integers, a live cell outside its leaf, a child that is not an earlier node one
level down, levels below 4 or above 4096, multi-state leaves), and the line-by-line reader
(:mod:`.macrocell`) then reads the file and reports the exact line and column of what is wrong.
Both build the same :class:`.mc_tree.NodeTable`.
"""

from __future__ import annotations

from array import array

import numpy as np

from .mc_tree import NodeTable

_NL, _DOT, _STAR, _DOLLAR, _SPACE, _ZERO, _NINE = (ord(c) for c in "\n.*$ 09")
#: Longest integer token accepted here (int64-safe); longer ones go to the line reader's errors.
_MAX_DIGITS = 18
_MAX_LEVEL = 4096
_LEAF = 3
#: Bytes of body parsed at a time (the work arrays cost ~40 bytes per byte of a chunk).
CHUNK_BYTES = 1 << 18


def read_two_state_body(body: str) -> NodeTable | None:
    """The node table of ``body`` (the file's text after its header and leading ``#`` lines), or
    None where the line-by-line reader must decide (see the module docstring)."""
    try:
        raw = body.encode("ascii")
    except UnicodeEncodeError:
        return None
    if b"\r" in raw:  # DOS line ends (Golly's own pattern files have them); a lone CR: the line reader
        raw = raw.replace(b"\r\n", b"\n")
        if b"\r" in raw:
            return None
    if not raw:
        return None
    leaf_flags, node_fields = [], []
    tiles = bytearray(8)  # tile 0: the empty leaf; each chunk's tiles appended as parsed
    for chunk in _chunks(raw):
        part = _parse_chunk(np.frombuffer(chunk, dtype=np.uint8))
        if part is None:
            return None
        leaf_flags.append(part[0])
        tiles += part[1].tobytes()
        node_fields.append(part[2])
    is_leaf = np.concatenate(leaf_flags)
    if not is_leaf.any():
        return None
    return _table(is_leaf, tiles, np.concatenate(node_fields))


def _chunks(raw: bytes):
    """``raw`` in pieces of about :data:`CHUNK_BYTES`, each ending just after a newline (the last
    one: where ``raw`` ends), so the per-byte work arrays stay a few tens of MB whatever the file."""
    start = 0
    while start < len(raw):
        stop = raw.find(b"\n", start + CHUNK_BYTES)
        stop = len(raw) if stop < 0 else stop + 1
        yield raw[start:stop]
        start = stop


def _parse_chunk(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(is_leaf per line, (leaves, 8) uint8 tiles, (nodes, 5) int64 fields)`` of whole lines
    ``a`` (uint8), or None where the line reader must decide."""
    breaks = np.flatnonzero(a == _NL)
    starts = np.concatenate(([0], breaks + 1))
    ends = np.concatenate((breaks, [a.size]))
    content = ends > starts
    if content[:-1].size and not content[:-1].all():  # a blank line inside: the line reader's case
        return None
    starts, ends = starts[content], ends[content]
    n = starts.size
    if not n:
        return None
    first = a[starts]
    is_leaf = (first == _DOT) | (first == _STAR) | (first == _DOLLAR)
    is_node = (first >= _ZERO) & (first <= _NINE)
    if not (is_leaf | is_node).all():
        return None
    newline = a == _NL
    line_of = (np.cumsum(newline, dtype=np.int32) - newline).astype(np.int32)  # each byte's line
    byte_on_leaf = is_leaf[np.minimum(line_of, n - 1)] & ~newline
    byte_on_node = ~byte_on_leaf & ~newline
    leaf_bytes = a[byte_on_leaf]
    node_bytes = a[byte_on_node]
    if not ((leaf_bytes == _DOT) | (leaf_bytes == _STAR) | (leaf_bytes == _DOLLAR)).all():
        return None
    if not (((node_bytes >= _ZERO) & (node_bytes <= _NINE)) | (node_bytes == _SPACE)).all():
        return None
    tiles = _leaves(a, starts[is_leaf], ends[is_leaf], int(is_leaf.sum()))
    if tiles is None:
        return None
    fields = _node_fields(a, byte_on_node, line_of, int(is_node.sum()), np.flatnonzero(is_node))
    if fields is None:
        return None
    return is_leaf, tiles, fields


def _leaves(a: np.ndarray, starts: np.ndarray, ends: np.ndarray, count: int) -> np.ndarray | None:
    """``(count, 8)`` uint8 packed tiles (row-major, column 0 in each byte's top bit) of the leaf
    lines ``a[starts[i]:ends[i]]``; None if a live cell lies outside its 8x8 square."""
    lengths = ends - starts
    first = np.cumsum(lengths) - lengths  # where each line's bytes begin in the gathered bytes
    pos = np.arange(int(lengths.sum())) - np.repeat(first, lengths) + np.repeat(starts, lengths)
    chars = a[pos]
    dollar = chars == _DOLLAR
    before = np.cumsum(dollar) - dollar  # '$' before each byte, counted from the first leaf line
    row = before - np.repeat(before[first], lengths)
    # where each row starts: the line's first byte, or the byte after a '$'
    marker = np.where(dollar, pos + 1, 0)
    marker[first] = np.maximum(marker[first], starts)  # a line may begin with its own "$"
    col = pos - np.maximum.accumulate(marker)
    live = chars == _STAR
    r, c = row[live], col[live]
    if r.size and (r.max() > 7 or c.max() > 7):
        return None
    leaf = np.repeat(np.arange(count), lengths)[live]
    cells = np.zeros(count * 64, dtype=np.uint8)
    cells[leaf * 64 + r * 8 + c] = 1
    return np.packbits(cells.reshape(count, 8, 8), axis=2).reshape(count, 8)


def _node_fields(a: np.ndarray, on_node: np.ndarray, line_of: np.ndarray, count: int,
                 node_lines: np.ndarray) -> np.ndarray | None:
    """``(count, 5)`` int64: level, nw, ne, sw, se of each node line; None unless every node line
    holds exactly five integers of at most :data:`_MAX_DIGITS` digits."""
    if not count:
        return np.zeros((0, 5), np.int64)
    digit = on_node & (a >= _ZERO) & (a <= _NINE)
    prev = np.concatenate(([False], digit[:-1]))
    token_start = np.flatnonzero(digit & ~prev)
    if token_start.size != 5 * count:
        return None
    per_line = np.bincount(line_of[token_start], minlength=int(line_of.max()) + 1)[node_lines]
    if not (per_line == 5).all():
        return None
    positions = np.flatnonzero(digit)
    begins = np.flatnonzero(~prev[positions])  # each token's first digit, as an index of positions
    length = np.diff(np.concatenate((begins, [positions.size])))
    if length.max() > _MAX_DIGITS:
        return None
    token = np.repeat(np.arange(begins.size), length)
    place = np.arange(positions.size) - begins[token]  # index of each digit within its token
    power = np.power(10, length[token] - 1 - place, dtype=np.int64)
    values = np.add.reduceat((a[positions].astype(np.int64) - _ZERO) * power, begins)
    return values.reshape(count, 5)


def _table(is_leaf: np.ndarray, tiles: bytearray, fields: np.ndarray) -> NodeTable | None:
    """The :class:`NodeTable` of nodes 1..n from ``is_leaf`` per line, the packed tiles (8 bytes
    each, the empty tile first; the table keeps the buffer as it is) and the node lines' fields;
    None where a node breaks the rules the line reader reports. Arrays of the table's own widths
    (int16 levels, int32 references): a file of millions of leaves costs a few bytes per node."""
    n = is_leaf.size
    node_number = (np.flatnonzero(~is_leaf) + 1).astype(np.int32)
    node_level, kids = fields[:, 0], fields[:, 1:]
    if node_level.size and (node_level.min() < 4 or node_level.max() > _MAX_LEVEL):
        return None
    level = np.zeros(n + 1, dtype=np.int16)
    level[1:][is_leaf] = _LEAF
    level[node_number] = node_level
    if ((kids < 0) | (kids >= node_number[:, None])).any():
        return None
    if ((kids != 0) & (level[kids] != node_level[:, None] - 1)).any():
        return None
    ref = np.zeros(n + 1, dtype=np.int32)
    packed = np.frombuffer(tiles, dtype=np.uint8).reshape(-1, 8)[1:]
    ref[1:][is_leaf] = np.arange(1, packed.shape[0] + 1, dtype=np.int32)
    ref[node_number] = np.arange(1, node_number.size + 1, dtype=np.int32)
    nonempty = np.zeros(n + 1, dtype=bool)
    nonempty[1:][is_leaf] = packed.any(axis=1)
    del packed  # a view of ``tiles``, which the table takes over
    if node_level.size:  # children are one level down: fill the flags level by level, bottom up
        for k in np.unique(node_level):
            at = node_level == k
            nonempty[node_number[at]] = nonempty[kids[at]].any(axis=1)
    table = NodeTable()
    table.level = array("h")
    table.level.frombytes(level.view(np.uint8))
    table.ref = array("i")
    table.ref.frombytes(ref.view(np.uint8))
    table.nonempty = bytearray(nonempty.view(np.uint8))
    table.kids = array("i", bytes(16))
    table.kids.frombytes(np.ascontiguousarray(kids, dtype=np.int32).view(np.uint8))
    table.tile_bytes = 8
    table.tiles = tiles
    table.kind = "two"
    return table


__all__ = ["read_two_state_body"]
