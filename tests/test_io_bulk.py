"""The bulk readers: plain two-state macrocell bodies (tensorca.io.mc_bulk) build exactly the node
table the line-by-line reader builds, and Life 1.05 rows searched in one pass equal the row-by-row
reader; both hand everything irregular to the careful reader, which says where the file is wrong."""

import numpy as np
import pytest

import tensorca
from tensorca.io import macrocell
from tensorca.io.common import iter_lines
from tensorca.io.mc_bulk import read_two_state_body
from tensorca.io.mc_tree import NodeTable

ARRAYS = {"level": np.int16, "ref": np.int32, "nonempty": np.uint8, "kids": np.int32, "tiles": np.uint8}


def line_reader_table(text: str) -> NodeTable:
    """The node table of ``text`` as the line-by-line reader builds it."""
    tree = NodeTable()
    for lineno, line in iter_lines(text, macrocell._body_start(text)):
        if line[0] in ".*$":
            macrocell._leaf_line(tree, line, lineno, None)
        else:
            macrocell._node_line(tree, line, lineno, None, None)
    return tree


def same_table(a: NodeTable, b: NodeTable) -> bool:
    return a.kind == b.kind and all(np.array_equal(np.frombuffer(getattr(a, k), t), np.frombuffer(getattr(b, k), t))
                                    for k, t in ARRAYS.items())


def random_macrocell(seed: int, side: int = 96, density: float = 0.2) -> str:
    rng = np.random.default_rng(seed)
    cells = (rng.random((side, side + 7)) < density).astype(np.uint8)
    cells[:, : side // 3] = 0  # empty quadrants and repeated leaves
    return tensorca.dumps(tensorca.Pattern(cells=cells, rule="B3/S23"), "mc")


@pytest.mark.parametrize("seed", range(6))
def test_bulk_and_line_readers_build_the_same_table(seed):
    text = random_macrocell(seed, side=24 + 40 * seed, density=0.05 + 0.1 * (seed % 3))
    body = text[macrocell._body_start(text):]
    bulk = read_two_state_body(body)
    assert bulk is not None
    assert same_table(bulk, line_reader_table(text))
    crlf = read_two_state_body(body.replace("\n", "\r\n"))  # Golly's own files have DOS line ends
    assert crlf is not None and same_table(crlf, bulk)


def test_leaf_lines_that_begin_with_a_row_end():
    text = "[M2] (test)\n$.*$*.*$*$\n4 1 0 0 0\n"
    bulk = read_two_state_body(text[macrocell._body_start(text):])
    assert bulk is not None and same_table(bulk, line_reader_table(text))
    assert np.array_equal(np.unpackbits(bulk.packed_tiles()[1]).reshape(8, 8)[:4, :3],
                          [[0, 0, 0], [0, 1, 0], [1, 0, 1], [1, 0, 0]])


@pytest.mark.parametrize("body", [
    "$*\n\n4 1 0 0 0\n",          # a blank line inside the body
    "$*\n#C late comment\n4 1 0 0 0\n",
    "$*\r4 1 0 0 0\n",            # a lone CR
    "$*x\n4 1 0 0 0\n",           # a stray character
    "$*\n4 1 0 0\n",              # four numbers
    "$*\n4 1 0 0 0 0\n",          # six numbers
    "$*\n4 -1 0 0 0\n",           # a sign
    "$*\n4 2 0 0 0\n",            # a reference to itself
    "$*\n3 1 0 0 0\n",            # a level below 4
    "$*\n5 1 0 0 0\n",            # a child two levels down
    "........*\n4 1 0 0 0\n",     # a live cell right of the leaf
    "$$$$$$$$*\n4 1 0 0 0\n",     # a live cell below the leaf
    "1 0 1 1 0\n2 1 0 0 0\n",     # multi-state leaves
    "4 0 0 0 0\n",                # no leaf at all
    "$*\n4 1 0 0 12345678901234567890\n",
])
def test_irregular_bodies_go_to_the_line_reader(body):
    assert read_two_state_body(body) is None


def test_a_whole_file_reads_the_same_either_way(monkeypatch):
    text = random_macrocell(11)
    fast = tensorca.loads(text, "mc")
    monkeypatch.setattr(macrocell, "read_two_state_body", lambda body: None)
    slow = tensorca.loads(text, "mc")
    assert fast == slow and fast.population == slow.population > 0



def life105_text(seed: int) -> str:
    """A Life 1.05 file of several ``#P`` blocks (negative positions, ragged rows, blank lines)."""
    rng = np.random.default_rng(seed)
    lines = ["#Life 1.05", "#D a test", "#R 23/36", "", "*.*", ".*"]
    for _ in range(6):
        lines.append(f"#P {int(rng.integers(-50, 50))} {int(rng.integers(-50, 50))}")
        for _ in range(int(rng.integers(0, 6))):
            width = int(rng.integers(0, 12))
            lines.append("".join(".*"[b] for b in rng.integers(0, 2, width)) or ".")
        lines.append("")
    return "\r\n".join(lines) if seed % 2 else "\n".join(lines)


@pytest.mark.parametrize("seed", range(8))
def test_life105_in_one_pass_equals_row_by_row(seed):
    from tensorca.io import life105
    from tensorca.io.life106 import cells_from_coordinates

    text = life105_text(seed)
    fast = life105.read_life105(text)
    meta = dict(rule=None, topology=None, comments=[], name=None)
    cells, origin = cells_from_coordinates(lambda: life105._coordinates(text, None, 10**9, meta), 10**9, None)
    assert np.array_equal(fast.cells, cells) and fast.origin == origin
    assert fast.comments == meta["comments"] and fast.rule == meta["rule"]


@pytest.mark.parametrize("text, line, column", [
    ("#Life 1.05\n**\n*o*\n", 3, 2),       # a stray character: the row reader says where
    ("#Life 1.05\n**\r*.*\n", None, None),  # a lone CR: read row by row
    ("#Life 1.05\n#P 1\n*\n", 2, None),     # a bad block position: the same error either way
])
def test_life105_irregular_rows_are_reported_where_they_are(text, line, column):
    from tensorca.errors import PatternError

    if line is None:
        assert tensorca.loads(text).population == 4
        return
    with pytest.raises(PatternError) as info:
        tensorca.loads(text)
    assert info.value.line == line and (column is None or info.value.column == column)


def run_by_run(text: str):
    from tensorca.io import rle

    reader = rle._RleReader(None, 10**9)
    reader.read(text)
    return reader.finish()


@pytest.mark.parametrize("seed", range(6))
def test_rle_in_bulk_equals_run_by_run(seed):
    from tensorca.io import rle_bulk

    rng = np.random.default_rng(seed)
    cells = (rng.random((30 + seed, 70)) < 0.3).astype(np.uint8)
    cells[:, -5:] = 0
    text = tensorca.dumps(tensorca.Pattern(cells=cells, rule="B3/S23", origin=(-4, 9), name="n"), "rle")
    header, body = text.split("x = ", 1)[0], "x = " + text.split("x = ", 1)[1]
    variants = [text, header + "x = 3, y = 2\n" + body.split("\n", 1)[1],  # a header too small
                body.split("\n", 1)[1], text.replace("$", "$\n  "), text.replace("!", "!junk 3q")]
    for variant in variants:
        got = tensorca.loads(variant, "rle")
        assert got == run_by_run(variant) and got.origin == run_by_run(variant).origin
    assert rle_bulk.read_two_state_body(body.split("\n", 1)[1], None, 10**9) is not None  # really the fast path


@pytest.mark.parametrize("body", ["3A!", "12 o!", "2\no!", "0o!", "3o2", "1234567890o!", "2bo$x!", "o."])
def test_rle_bodies_the_bulk_reader_leaves_to_the_careful_one(body):
    from tensorca.io import rle_bulk

    assert rle_bulk.read_two_state_body(body, None, 10**9) is None


def test_rle_budget_errors_still_say_where():
    from tensorca.errors import PatternError

    with pytest.raises(PatternError, match="cell budget") as info:
        tensorca.loads("x = 2, y = 2\n5000o$5000o!", "rle", max_cells=1000)
    assert info.value.line == 2
