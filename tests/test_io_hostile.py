"""Hostile pattern files (issue 11): each ends in one PatternError or the right pattern, in bounded
memory and time, measured in a fresh process. Inputs are built here and are small on disk."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import tensorca.io as tio
from tensorca.errors import PatternError
from tensorca.io import macrocell as mc_module
from tensorca.io import rle as rle_module
from tensorca.pattern import Pattern

MB = 1 << 20


def run_fresh(code: str, timeout: float = 120) -> dict:
    """Run ``code`` in a fresh interpreter; it prints one JSON dict, to which this adds ``rss_mb``
    (the child's peak resident memory) and ``seconds``."""
    script = textwrap.dedent(code) + textwrap.dedent(
        """
        import json as _json, resource as _resource
        RESULT["rss_mb"] = _resource.getrusage(_resource.RUSAGE_SELF).ru_maxrss / 1024
        print(_json.dumps(RESULT))
        """
    )
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["seconds"] = time.perf_counter() - start
    return result


LOAD = """
import numpy as np
import tensorca.io as tio
from tensorca.errors import PatternError
try:
    p = tio.load({path!r})
    RESULT = {{"shape": list(p.cells.shape), "live": int(np.count_nonzero(p.cells)), "origin": list(p.origin)}}
except PatternError as exc:
    RESULT = {{"error": str(exc)}}
"""


@pytest.fixture(scope="module")
def baseline_mb() -> float:
    return run_fresh("import tensorca.io\nRESULT = {}")["rss_mb"]


def test_gzip_rle_of_twenty_million_o_is_one_run(tmp_path, baseline_mb):
    path = tmp_path / "o.rle.gz"
    path.write_bytes(gzip.compress(b"x = 20000000, y = 1\n" + b"o" * 20_000_000 + b"!\n", 9))
    assert path.stat().st_size < 40_000
    out = run_fresh(LOAD.format(path=str(path)))
    assert out.get("shape") == [1, 20_000_000] and out["live"] == 20_000_000
    # the result is 20 MB; the text 20 MB; before the fix 2.3 GB and 36 s
    assert out["rss_mb"] - baseline_mb < 20 + 200
    assert out["seconds"] < 30


def test_gzip_of_1_6_gib_of_newlines_is_refused_at_the_text_budget(tmp_path, baseline_mb):
    member = gzip.compress(b"\n" * MB, 9)
    path = tmp_path / "newlines.gz"
    path.write_bytes(member * 1600)  # concatenated members: one gzip file of 1.6 GiB of newlines
    assert path.stat().st_size < 3 * MB
    out = run_fresh(LOAD.format(path=str(path)))
    assert "larger than 268435456 bytes" in out.get("error", "") and "max_bytes=" in out["error"]
    assert out["rss_mb"] - baseline_mb < 2 * 256 + 200  # at most the budget, never the whole stream
    assert out["seconds"] < 60


def test_text_budget_is_configurable_and_derived_from_max_cells(tmp_path):
    data = gzip.compress(b"x = 3, y = 1\n" + b" " * 5000 + b"3o!\n")
    with pytest.raises(PatternError, match="larger than 1000 bytes"):
        tio.loads(data, max_bytes=1000)
    with pytest.raises(PatternError, match=f"larger than {16 * 10 + MB} bytes"):
        tio.loads(gzip.compress(b" " * (2 * MB) + b"o!"), max_cells=10)
    assert tio.loads(data, max_bytes=10_000).cells.tolist() == [[1, 1, 1]]
    plain = tmp_path / "big.rle"
    plain.write_bytes(b"x = 3, y = 1\n" + b" " * 5000 + b"3o!\n")
    with pytest.raises(PatternError, match="larger than 100 bytes"):
        tio.load(plain, max_bytes=100)  # a plain file is refused from its size, before reading
    assert tio.load(plain).cells.tolist() == [[1, 1, 1]]
    with pytest.raises(ValueError, match="max_bytes"):
        tio.loads(data, max_bytes=0)


def test_many_gzip_members_and_trailing_garbage(tmp_path):
    text = b"x = 2, y = 2\n2o$bo!\n"
    data = b"".join(gzip.compress(text[i : i + 3]) for i in range(0, len(text), 3)) + b"\0\0junk"
    assert tio.loads(data).cells.tolist() == [[1, 1], [0, 1]]
    path = tmp_path / "members.rle.gz"
    path.write_bytes(data)
    assert tio.load(path).cells.tolist() == [[1, 1], [0, 1]]
    with open(path, "rb") as fh:
        assert tio.load(fh).cells.tolist() == [[1, 1], [0, 1]]


def two_cells_macrocell(level: int, a: tuple[int, int], b: tuple[int, int]) -> str:
    """A level-``level`` root with live cells at root-local ``a`` (north-west quadrant) and ``b``
    (south-east quadrant): one chain of nodes per cell."""
    lines = ["[M2] (test)"]

    def chain(x: int, y: int, top: int) -> int:
        lines.append("$" * (y % 8) + "." * (x % 8) + "*$")
        node = len(lines) - 1
        for k in range(4, top + 1):
            kids = [0, 0, 0, 0]
            kids[((y >> (k - 1)) & 1) * 2 + ((x >> (k - 1)) & 1)] = node
            lines.append(f"{k} " + " ".join(map(str, kids)))
            node = len(lines) - 1
        return node

    half = 1 << (level - 1)
    na = chain(a[0], a[1], level - 1)
    nb = chain(b[0] - half, b[1] - half, level - 1)
    lines.append(f"{level} {na} 0 0 {nb}")
    return "\n".join(lines) + "\n"


def test_macrocell_two_cells_46000_apart_fills_without_a_dense_copy(tmp_path, baseline_mb):
    text = two_cells_macrocell(17, (20000, 20000), (66000, 66000))
    path = tmp_path / "far.mc"
    path.write_text(text)
    assert len(text) < 1000
    out = run_fresh(LOAD.format(path=str(path)))
    assert out.get("shape") == [46001, 46001] and out["live"] == 2
    assert out["origin"] == [20000 - 65536, 20000 - 65536 + 1]
    # the 2.1 GB result is zero pages never touched; the fill itself needs a few MB (was 6.6 GB)
    assert out["rss_mb"] - baseline_mb < 300
    with pytest.raises(PatternError, match="bounding box of the live cells of 46001 x 46001"):
        tio.loads(text, max_cells=2_000_000_000)


@pytest.mark.parametrize("two_state", [True, False])
def test_macrocell_fill_in_tiles_matches_the_dense_pattern(monkeypatch, two_state):
    rng = np.random.default_rng(3)
    cells = (rng.random((150, 230)) < 0.3).astype(np.uint8) * (1 if two_state else rng.integers(1, 5, (150, 230)))
    pattern = Pattern(cells=cells.astype(np.uint8), origin=(-37, 11))
    text = tio.dumps(pattern, "macrocell")
    whole = tio.loads(text)
    monkeypatch.setattr(mc_module, "_MAX_BLOCKS", 16)  # force many small tiles
    tiled = tio.loads(text)
    assert (tiled.cells == cells).all() and tiled.origin == (-37, 11)
    assert (whole.cells == cells).all()


def test_macrocell_blank_first_line_is_not_a_header():
    with pytest.raises(PatternError, match=r"<string>:1:1: a macrocell file must start with '\[M2\]'"):
        tio.loads("\n[M2]\n*$\n", format="macrocell")


HUGE = "1" * 5000  # beyond Python's 4300-digit int() limit


@pytest.mark.parametrize(
    "text, line, column",
    [
        ("#Life 1.06\n0 9223372036854775808\n", 2, 3),
        ("#Life 1.06\n-9223372036854775809 0\n", 2, 1),
        (f"#Life 1.06\n0 {HUGE}\n", 2, 3),
        (f"#Life 1.05\n#P {HUGE} 0\n*\n", 2, 4),
        ("#Life 1.05\n#P 0 -9223372036854775809\n*\n", 2, 6),
        (f"x = {HUGE}, y = 1\no!", 1, 5),
        (f"x = 1, y = {HUGE}\no!", 1, 12),
        (f"x = 1, y = 1\n{HUGE}o!", 2, 1),
        (f"x = 1, y = 1\nb {HUGE}o!", 2, 3),
        (f"#CXRLE Pos={HUGE},0\no!", 1, 12),
        (f"#CXRLE Gen={HUGE}\no!", 1, 12),
        (f"#P 0 {HUGE}\no!", 1, 6),
        (f"[M2]\n#G {HUGE}\n", 2, 4),
        (f"[M2]\n*$\n{HUGE} 1 0 0 0\n", 3, 1),
        (f"[M2]\n*$\n4 1 0 0 {HUGE}\n", 3, 9),
    ],
)
def test_huge_numbers_are_pattern_errors_with_a_position(text, line, column):
    with pytest.raises(PatternError) as info:
        tio.loads(text)
    assert (info.value.line, info.value.column) == (line, column)


@pytest.mark.parametrize(
    "text, line, column",
    [("x = 3, y = 1\n\u0663o!", 2, 1), ("#Life 1.06\n\u0663 4\n", 2, 1), ("x = \u0663, y = 1\no!", 1, 5),
     ("[M2]\n*$\n\u00b34 1 0 0 0\n", 3, 1)],
)
def test_unicode_digits_are_not_numbers(text, line, column):
    with pytest.raises(PatternError) as info:
        tio.loads(text)
    assert (info.value.line, info.value.column) == (line, column)


def test_blank_lines_cost_no_list_and_keep_line_numbers():
    blank = "\n" * 3_000_000
    start = time.perf_counter()
    assert tio.loads("x = 2, y = 1\n" + blank + "2o!").cells.tolist() == [[1, 1]]
    assert tio.loads("!c\n" + blank + "O\n").cells.shape == (3_000_001, 1)
    text = "x = 2, y = 1\r\n \t\r\n\r \r" + blank + "\r\r\n\n\r2k!"
    with pytest.raises(PatternError) as info:
        tio.loads(text)
    golly_lines = re.split(r"\r\n|\r|\n", text)  # Golly's line breaks
    assert (info.value.line, info.value.column) == (len(golly_lines), 2) and golly_lines[-1] == "2k!"
    assert time.perf_counter() - start < 10


def test_plaintext_rows_count_blank_and_comment_lines():
    p = tio.loads("\n!a\n\nO\n!b\n.O\n\n\n")
    assert p.cells.tolist() == [[0, 0], [0, 0], [1, 0], [0, 1]] and p.comments == ["a", "b"]
    with pytest.raises(PatternError, match="plaintext pattern") as info:
        tio.loads("!a\n!b\n" + "O" * 40 + "\n", max_cells=10)
    assert info.value.line == 3


def test_rle_runs_are_merged_and_flushed_into_the_header_array(monkeypatch):
    monkeypatch.setattr(rle_module._Runs, "FLUSH", 3)
    monkeypatch.setattr(rle_module._Runs, "CAP", 7)
    reads = []
    real_read = rle_module._RleReader.read
    # passes over the body (the header and '#' lines are also read once on their own first)
    monkeypatch.setattr(rle_module._RleReader, "read",
                        lambda self, text: ("!" in text and reads.append(1)) or real_read(self, text))
    rng = np.random.default_rng(5)
    cells = rng.integers(0, 3, (40, 50)).astype(np.uint8)
    text = tio.dumps(Pattern(cells=cells), "rle")
    header, body = text.split("\n", 1)
    for head, passes in [(header + "\n", 1), ("x = 50, y = 20\n", 2), ("", 2), ("x = 60, y = 45\n", 1)]:
        reads.clear()
        got = tio.loads(head + body).cells  # header right, too small (content beyond it), absent, larger
        assert (got[:40, :50] == cells).all() and not got[40:].any() and not got[:, 50:].any()
        assert len(reads) == passes
    assert tio.loads("x = 4, y = 1\nobob!").cells.tolist() == [[1, 0, 1, 0]]
    assert tio.loads("3o 2o$$ 2$3 oo!").cells.tolist() == [[1] * 5, [0] * 5, [0] * 5, [0] * 5, [1, 1, 1, 1, 0]]
    assert tio.loads("AAAB2A..A!").cells.tolist() == [[1, 1, 1, 2, 1, 1, 0, 0, 1]]


def test_macrocell_node_table_is_compact(tmp_path, baseline_mb):
    path = tmp_path / "leaves.mc.gz"
    path.write_bytes(gzip.compress(b"[M2]\n" + b"*$\n" * 2_000_000 + b"4 1 2 3 4\n"))
    out = run_fresh(LOAD.format(path=str(path)))
    assert out.get("shape") == [9, 9] and out["live"] == 4
    assert out["rss_mb"] - baseline_mb < 150  # ~15 bytes a leaf node (was ~340: 1.3 GB here)


def test_macrocell_levels_beyond_int64():
    near = two_cells_macrocell(100, (2**99 - 5, 2**99 - 5), (2**99 + 3, 2**99 + 3))
    p = tio.loads(near)
    assert p.cells.shape == (9, 9) and p.cells[0, 0] == p.cells[8, 8] == 1 and p.cells.sum() == 2
    assert p.origin == (-5, -4)
    far = two_cells_macrocell(100, (0, 0), (2**100 - 1, 2**100 - 1))
    with pytest.raises(PatternError, match="exceeds the cell budget"):
        tio.loads(far)
    lines = near.splitlines()
    spread = "\n".join(lines[:-1] + [f"100 {lines[-1].split()[1]} {lines[-1].split()[1]} {lines[-1].split()[1]} "
                                     f"{lines[-1].split()[4]}"]) + "\n"
    with pytest.raises(PatternError, match="exceeds the cell budget"):
        tio.loads(spread)


def test_macrocell_five_blocks_of_2_to_63_are_refused_before_any_box_arithmetic():
    lines = ["[M2] (test)"]
    tops = []
    for i in range(5):  # five distinct level-63 nodes, each one cell
        lines.append("." * i + "*$")
        node = len(lines) - 1
        for k in range(4, 64):
            lines.append(f"{k} {node} 0 0 0")
            node = len(lines) - 1
        tops.append(node)
    lines.append(f"64 {tops[0]} {tops[1]} {tops[2]} {tops[3]}")
    lines.append(f"64 {tops[4]} 0 0 0")
    lines.append(f"65 {len(lines) - 2} {len(lines) - 1} 0 0")
    with pytest.raises(PatternError, match="more than 2\\*\\*62 cells apart"):
        tio.loads("\n".join(lines) + "\n")


@pytest.mark.parametrize("piece", [16, 1 << 20])
def test_life106_bulk_parse_matches_line_by_line(monkeypatch, piece):
    from tensorca.io import life106

    monkeypatch.setattr(life106, "PIECE", piece)
    rng = np.random.default_rng(11)
    xs, ys = rng.integers(-300, 300, 5000), rng.integers(-200, 200, 5000)
    seps = rng.choice([" ", "\t", "  \t "], 5000)
    ends = rng.choice(["\n", "\r\n", "\r", "\n\n", " \n"], 5000)
    body = "".join(f"{'+' if x > 250 else ''}{x}{s}{y}{e}" for x, y, s, e in zip(xs, ys, seps, ends, strict=True))
    p = tio.loads("#Life 1.06\r\n#R B3/S23\n#D d\n" + body)
    assert p.origin == (int(xs.min()), int(ys.min())) and p.comments == ["d"]
    expected = np.zeros((int(ys.max() - ys.min() + 1), int(xs.max() - xs.min() + 1)), np.uint8)
    expected[ys - ys.min(), xs - xs.min()] = 1
    assert (p.cells == expected).all()
    # a '#' line or a bad line later in the body: the line-by-line path takes over, positions exact
    lines = re.split(r"\r\n|\r|\n", "#Life 1.06\n" + body)
    for bad, column in [("12 3 4", 6), ("1 -+2", 3), ("7 " + "9" * 19, 3), ("5 x", 3)]:
        text = "#Life 1.06\n" + body + bad + "\n" + body
        with pytest.raises(PatternError) as info:
            tio.loads(text)
        assert (info.value.line, info.value.column) == (len(lines), column)
    with_hash = tio.loads("#Life 1.06\n" + body + "#C late\n" + body)
    assert (with_hash.cells == expected).all() and with_hash.comments == ["late"]
