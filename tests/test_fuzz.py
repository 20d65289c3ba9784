"""Fuzzing every parser of user input (issue 11): pattern readers (plain and gzip, MCell included),
rules, rule specs, topologies, checkpoints, Golly rule files, apgsearch hauls, apgcodes, Lenia
creature files and the command line's argument types. Whatever the input, only a typed
:class:`TensorcaError` may escape (argument types: what argparse reports as a usage line), and each
example stays within a memory bound (NumPy allocations are visible to tracemalloc).

The strategies carry structure (valid headers, valid files with mutated tokens, huge and Unicode
numbers), not only random text, so they reach the parsers' deep paths. Derandomized and bounded,
so CI is reproducible and the file runs in well under a minute.
"""

from __future__ import annotations

import argparse
import gzip
import json
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tensorca
from tensorca.analysis import decode as decode_apgcode
from tensorca.cli import _args
from tensorca.errors import CheckpointError, PatternError, RuleError, TensorcaError, UsageError
from tensorca.families.rule_table.loader import rule_from_text
from tensorca.io.haul import Haul, HaulError, parse_haul
from tensorca.lenia import animal_entry, creature, decode_cells, load_animals
from tensorca.persist import npz as ckpt
from tensorca.topology import parse_topology

FUZZ = settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
FUZZ_MORE = settings(FUZZ, max_examples=1000)
MAX_PEAK = 200 << 20  # bytes traced per example
BUDGET = dict(max_cells=1 << 20)  # arrays of at most 1 MB: a legitimate large pattern is tested elsewhere

# --- building blocks -----------------------------------------------------------------------------

HUGE = ["9" * 19, "9223372036854775808", "-9223372036854775809", "1" * 31, "7" * 4301, "3" * 5000]
ODD_DIGITS = ["\u0663", "\u00b3", "\u2460", "\U0001d7d9", "\uff15", "1\u00b3", "\u0663\u0664"]
numbers = st.one_of(
    st.integers(-3, 40).map(str),
    st.integers(-(10**12), 10**12).map(str),
    st.sampled_from(HUGE + ODD_DIGITS + ["", "-", "+5", "-0", "00", "1e3", "0x1f", "nan", "1_000", "2.5"]),
)
junk = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6)
RULES = ["B3/S23", "23/3", "B36/S23:T20,20", "/2/3", "345/2/4", "B2-a/S12", "R2,C0,M1,S4..6,B5..6,NM",
         "B3/S23V", "B2/S3H", "W110", "LifeHistory", "B3/S23:P8,8", "B3/S23:K10*,10", "WireWorld",
         "R=13,T=10,b=[1],m=0.15,s=0.015,kn=1,gn=1", "B2n3/S23-qSuper"]
rule_pieces = st.sampled_from(
    ["B", "S", "/", "V", "H", "W", "R", "C", "M", "N", "NM", "NN", ",", "..", "-", ":", "T", "P", "K", "*", "+",
     "a", "c", "e", "i", "x", "³", "⁵", "٣", " ", "Generations", "G"]
)
rules = st.one_of(
    st.sampled_from(RULES),
    st.lists(st.one_of(rule_pieces, numbers), max_size=12).map("".join),
    st.tuples(st.sampled_from(RULES), st.integers(0, 30), st.one_of(rule_pieces, numbers, junk)).map(
        lambda t: t[0][: t[1]] + t[2] + t[0][t[1] :]
    ),
)


def glider_files() -> dict[str, str]:
    """The same small pattern in every format (the seeds that mutations start from)."""
    cells = np.array([[0, 1, 0], [0, 0, 1], [1, 1, 1]], dtype=np.uint8)
    pattern = tensorca.Pattern(cells=cells, rule=tensorca.parse_rule("B3/S23"), origin=(-2, 5), name="g",
                               comments=["a comment"])
    multi = tensorca.Pattern(cells=cells * 2, rule=tensorca.parse_rule("/2/3"), generation=4)
    return {
        "rle": tensorca.io.dumps(pattern, "rle"),
        "rle-multi": tensorca.io.dumps(multi, "rle"),
        "cells": tensorca.io.dumps(pattern, "cells"),
        "life105": tensorca.io.dumps(pattern, "life105"),
        "life106": tensorca.io.dumps(pattern, "life106"),
        "macrocell": tensorca.io.dumps(pattern, "macrocell"),
        "macrocell-multi": tensorca.io.dumps(multi, "macrocell"),
    }


# MCell files are read, not written: two by hand (a bounded Life torus; WireWorld's states).
MCELL = "#MCell 4.20\n#GAME Life\n#RULE 1,0,0,0,0,0,1,0,0,0,0,0,0,0,0,1,1\n#BOARD 40x30\n#WRAP 1\n#D g\n#L .A$2.A$3A\n"
MCELL_MULTI = "#MCell 4.20\n#GOLLY WireWorld\n#L .A.B$3C$2.A\n"
SEEDS = glider_files() | {"mcl": MCELL, "mcl-multi": MCELL_MULTI}
FORMAT_OF = {"rle-multi": "rle", "macrocell-multi": "macrocell", "mcl-multi": "mcl"}


@st.composite
def mutated(draw, seed_text: str) -> str:
    """``seed_text`` with a few structural edits: a token replaced by a number, junk or a rule,
    a span deleted or duplicated, a line repeated."""
    text = seed_text
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["replace", "insert", "delete", "duplicate", "newlines"]))
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 8)))
        if kind == "replace":
            text = text[:i] + draw(st.one_of(numbers, junk, rules)) + text[j:]
        elif kind == "insert":
            breaks = st.sampled_from(["\r", "\r\n", "\n", "!", "$", "#"])
            text = text[:i] + draw(st.one_of(numbers, junk, breaks)) + text[i:]
        elif kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "duplicate":
            text = text[:j] + text[i:j] * draw(st.integers(1, 50)) + text[j:]
        else:
            text = text[:i] + "\n" * draw(st.integers(1, 5000)) + text[i:]
    return text


@st.composite
def structured_rle(draw) -> str:
    """A header (sometimes) with fuzzed sizes and rule, then runs with fuzzed counts and tags."""
    hash_lines = st.sampled_from(["#N n", "#C c", "#r B3/S23", "#P 1 2", "#CXRLE Pos=-1,2 Gen=3"])
    lines = draw(st.lists(hash_lines, max_size=2))
    if draw(st.booleans()):
        header = f"x = {draw(numbers)}, y = {draw(numbers)}"
        if draw(st.booleans()):
            header += f", rule = {draw(rules)}"
        lines.append(header)
    tags = st.sampled_from(["b", "o", ".", "$", "A", "X", "pA", "yO", "p", "!", " ", "\n", "k", "Y"])
    body = draw(st.lists(st.tuples(st.one_of(st.just(""), numbers), tags), max_size=30))
    lines.append("".join(count + tag for count, tag in body))
    return "\n".join(lines)


@st.composite
def structured_macrocell(draw) -> str:
    lines = ["[M2] (fuzz)"] + draw(st.lists(st.sampled_from(["#R B3/S23", "#R /2/3", "#G 7", "#N n"]), max_size=2))
    for _ in range(draw(st.integers(0, 8))):
        if draw(st.booleans()):
            lines.append(draw(st.text(alphabet="..*$", max_size=20)))
        else:
            lines.append(" ".join(draw(numbers) for _ in range(draw(st.integers(1, 6)))))
    return "\n".join(lines)


@st.composite
def structured_life(draw) -> str:
    if draw(st.booleans()):
        rows = ["#Life 1.06"] + [f"{draw(numbers)} {draw(numbers)}" for _ in range(draw(st.integers(0, 6)))]
    else:
        rows = ["#Life 1.05", f"#R {draw(rules)}", f"#P {draw(numbers)} {draw(numbers)}"]
        rows += draw(st.lists(st.text(alphabet=".*O ", max_size=12), max_size=5))
    return "\n".join(rows)


pattern_texts = st.one_of(
    st.sampled_from(sorted(SEEDS)).flatmap(lambda name: mutated(SEEDS[name])),
    structured_rle(),
    structured_macrocell(),
    structured_life(),
    st.text(max_size=200),
)


def bounded(call):
    """Run ``call()`` under tracemalloc; assert the traced peak stays below :data:`MAX_PEAK`."""
    tracemalloc.start()
    try:
        return call()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < MAX_PEAK, f"peak {peak} bytes"


def must_raise(error_type, call):
    """``call()`` raises ``error_type`` (in bounded memory): accepting the input fails the test."""
    with pytest.raises(error_type):
        bounded(call)


def only_raises(error_type, call):
    """``call()``'s result, or None when it raised ``error_type``; anything else fails the test."""
    try:
        return bounded(call)
    except error_type:
        return None


# --- readers ---------------------------------------------------------------------------------------


# Inputs that once escaped as bare exceptions (issue 11), always tried.
HOSTILE_FILES = [
    "#Life 1.06\n0 9223372036854775808\n",
    "#Life 1.05\n#P -9223372036854775809 0\n*\n",
    "x = " + "1" * 5000 + ", y = 1\no!",
    "x = 1, y = 1\n" + "2" * 5000 + "o!",
    "[M2]\n#R V\n",
    "[M2]\n*$\n" + "4" * 5000 + " 1 0 0 0\n",
    "x = 1, y = 1, rule = H\no!",
    "x = 1, y = 1, rule = B\u00b3/S23\no!",
    "#r W\u2075\no!",
    "\u0663o!",
    "\n[M2]\n*$\n",
]


@FUZZ_MORE
@given(text=pattern_texts, format=st.sampled_from([None, "rle", "cells", "life105", "life106", "macrocell", "mcl"]))
def test_readers_raise_only_pattern_errors(text, format):
    pattern = only_raises(PatternError, lambda: tensorca.loads(text, format, **BUDGET))
    if pattern is not None:
        assert pattern.cells.dtype == np.uint8 and pattern.cells.ndim == 2


@pytest.mark.parametrize("text", HOSTILE_FILES)
@pytest.mark.parametrize("format", [None, "rle", "life105", "life106", "macrocell"])
def test_known_hostile_files_raise_pattern_errors(text, format):
    with pytest.raises(PatternError):
        bounded(lambda: tensorca.loads(text, format, **BUDGET))


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_every_seed_file_is_valid(name):
    fmt = FORMAT_OF.get(name, name)
    assert tensorca.loads(SEEDS[name], fmt).cells.sum() > 0


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@FUZZ
@given(
    text=pattern_texts,
    cut=st.one_of(st.none(), st.integers(0, 200)),
    flip=st.one_of(st.none(), st.tuples(st.integers(0, 200), st.integers(1, 255))),
)
def test_gzip_files_raise_only_pattern_errors(scratch, text, cut, flip):
    data = bytearray(gzip.compress(text.encode("utf-8", "surrogatepass"), mtime=0))
    if flip is not None:
        data[flip[0] % len(data)] ^= flip[1]
    if cut is not None:
        data = data[: min(cut, len(data))]
    path = scratch / "fuzz.rle.gz"
    path.write_bytes(bytes(data))
    only_raises(PatternError, lambda: tensorca.io.load(path, **BUDGET))


# --- rules, specs, topologies ----------------------------------------------------------------------


HOSTILE_RULES = ["V", "H", "B\u00b3/S23", "W\u2075", "B" + "9" * 5000, "W" + "1" * 5000, "R" + "5" * 5000,
                 "R500,C0,S0-127254127,B1-127254127,NW" + "7F" * 50, "B3/S23:T" + "9" * 5000, "B3/S23:T\u0663,3",
                 "\u0663/\u0663", "B3/S23V:T", "R2,C0,M1,S" + "9" * 40 + "..9,B5..6,NM"]


@FUZZ_MORE
@given(text=st.one_of(rules, junk, st.text(max_size=40)))
def test_parse_rule_and_spec_raise_only_tensorca_errors(text):
    only_raises(TensorcaError, lambda: tensorca.parse_rule(text))
    only_raises(TensorcaError, lambda: tensorca.parse_spec(text))


@pytest.mark.parametrize("text", HOSTILE_RULES)
def test_known_hostile_rules_raise_tensorca_errors(text):
    must_raise(TensorcaError, lambda: tensorca.parse_rule(text))


@pytest.mark.parametrize("text", HOSTILE_RULES)
def test_known_hostile_specs_raise_tensorca_errors(text):
    must_raise(TensorcaError, lambda: tensorca.parse_spec(text))


topologies = st.one_of(
    st.lists(st.one_of(st.sampled_from(["T", "P", "K", "C", "S", "*", "+", "-", ",", ":", " "]), numbers), max_size=8)
    .map("".join),
    st.text(max_size=20),
)


@FUZZ
@given(text=topologies)
def test_parse_topology_raises_only_tensorca_errors(text):
    only_raises(TensorcaError, lambda: parse_topology(text))


# (``K3*,3`` is no hostile input: a Klein bottle whose twist is on the width, accepted as Golly does.)
HOSTILE_TOPOLOGIES = ["T\u0663,3", "T3,3+\u00b3", "T0,0", "T-1,3", "P3,3*", "T,", "", ":", "T3,3+1,1"]
HUGE_TOPOLOGIES = ["T" + "9" * 5000, "P3," + "9" * 5000, "K" + "9" * 5000 + "*,3", "T3,3+" + "9" * 5000,
                   "S" + "9" * 5000, "C" + "9" * 5000]


@pytest.mark.parametrize("text", HOSTILE_TOPOLOGIES + HUGE_TOPOLOGIES)
def test_known_hostile_topologies_raise_tensorca_errors(text):
    must_raise(TensorcaError, lambda: parse_topology(text))


# --- checkpoints -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def checkpoints(scratch) -> dict[str, bytes]:
    rule = tensorca.parse_rule("B3/S23")
    grid = (np.random.default_rng(1).random((2, 9, 7)) < 0.4).astype(np.uint8)
    small = tensorca.Pattern(cells=grid[0, :4, :4], name="p", comments=["c"])
    out = {}
    for name, cells, manifest in [
        ("grid", grid, ckpt.manifest_for("grid", rule, tensorca.Topology.torus(7, 9), 5)),
        ("pattern", grid[:1, :4, :4], ckpt.manifest_for("pattern", rule, tensorca.Topology.unbounded(), 2,
                                                        origin=(1, -1), pattern=small)),
    ]:
        path = scratch / f"{name}.npz"
        ckpt.save(path, cells, manifest)
        out[name] = path.read_bytes()
    return out


manifest_values = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=True), st.text(max_size=5),
    st.sampled_from([[1], [1, 2], ["a", 1], {}, {"kind": "torus"}, "B3/S23", "V", 2**70, -1, 1.5]),
)


@FUZZ
@given(
    which=st.sampled_from(["grid", "pattern"]),
    edits=st.lists(st.tuples(st.integers(0, 10**9), st.integers(1, 255)), max_size=3),
    cut=st.one_of(st.none(), st.integers(0, 10**9)),
    key=st.sampled_from(["generation", "rule", "topology", "kind", "batched", "origin", "format", "comments", None]),
    value=manifest_values,
)
def test_checkpoints_raise_only_checkpoint_errors(scratch, checkpoints, which, edits, cut, key, value):
    path = scratch / "fuzz.npz"
    if key is not None:
        with np.load(scratch / f"{which}.npz", allow_pickle=False) as data:
            manifest, cells = json.loads(bytes(data["manifest"]).decode()), data["cells"]
        manifest[key] = value
        blob = np.frombuffer(json.dumps(manifest).encode(), dtype=np.uint8)
        np.savez_compressed(path, cells=cells, manifest=blob)
        data = bytearray(path.read_bytes())
    else:
        data = bytearray(checkpoints[which])
    for position, mask in edits:
        data[position % len(data)] ^= mask
    if cut is not None:
        data = data[: cut % (len(data) + 1)]
    path.write_bytes(bytes(data))
    saved = only_raises(CheckpointError, lambda: ckpt.load(path))
    if saved is not None:
        only_raises(TensorcaError, lambda: tensorca.resume(path, 2, backend="numpy"))


HOSTILE_MCELL = [
    "#MCell\n#L " + "9" * 5000 + "A",  # a count summed digit by digit, then printed: ValueError
    "#MCell\n#L 3." + "9" * 12 + "A",  # a run past the budget
    "#MCell\n#L 1000A$999$A\n#L 2000A",  # a box past the budget, two lines on
    "#MCell\n#BOARD 99999999999x99999999999\n#L A",
    "#MCell\n#BOARD 4x4\n#L 9A",
    "#MCell\n#L aZ",
    "#MCell\n#L j",
    "#MCell\n#GOLLY \u0663\n#L A",
]


@pytest.mark.parametrize("text", HOSTILE_MCELL)
def test_known_hostile_mcell_files_raise_pattern_errors(text):
    with pytest.raises(PatternError, match=r"<string>:\d+:\d+: |<string>: the MCell pattern"):
        bounded(lambda: tensorca.loads(text, "mcl", **BUDGET))


def test_mcell_runs_are_not_held_in_memory():
    """200,000 runs on one line: read in two passes (extent, then fill), not kept as a list of runs,
    which took 20 MB of tuples for this 400 KB text."""
    text = "#MCell\n#L " + "A." * 200_000
    tracemalloc.start()
    try:
        pattern = tensorca.loads(text, "mcl", **BUDGET)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert pattern.cells.shape == (1, 399_999) and pattern.cells.sum() == 200_000
    assert peak < 8 << 20, f"peak {peak} bytes"


# --- token edits, for the formats below ------------------------------------------------------------


@st.composite
def edited(draw, seeds: list[str], tokens: list[str]) -> str:
    """One of ``seeds`` with a few edits: a format token or a number put in, a span deleted or
    repeated (the formats below have their own vocabulary, which random text seldom hits)."""
    text = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["replace", "insert", "delete", "duplicate"]))
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 12)))
        piece = draw(st.one_of(st.sampled_from(tokens), numbers, junk))
        if kind == "replace":
            text = text[:i] + piece + text[j:]
        elif kind == "insert":
            text = text[:i] + piece + text[i:]
        elif kind == "delete":
            text = text[:i] + text[j:]
        else:
            text = text[:j] + text[i:j] * draw(st.integers(1, 50)) + text[j:]
    return text


# --- Golly rule files ------------------------------------------------------------------------------


RULE_FILES = [
    (Path(tensorca.__file__).parent / "data" / "rules" / name).read_text(encoding="utf-8")
    for name in ("WireWorld.rule", "Langtons-Ant.rule")
] + [(Path(__file__).parent / "data" / "ruletables" / "ShiftDown.rule").read_text(encoding="utf-8")]
RULE_FILE_TOKENS = [
    "@RULE ", "@TABLE\n", "@TREE\n", "@COLORS\n", "@NAMES\n", "@ICONS\n", "n_states:", "neighborhood:", "symmetries:",
    "var ", "={", "}", ",", "\n", ":", "=", "num_states=", "num_neighbors=", "num_nodes=", "Moore", "vonNeumann",
    "hexagonal", "oneDimensional", "none", "rotate4", "rotate8reflect", "permute", "reflect_horizontal", "XPM\n",
    '"', "/*", "*/", "256", "255", "0", "-1", "16 16 2 1", "# ",
]


@pytest.fixture
def small_table_budgets(monkeypatch):
    """Table budgets that keep any table's parse under :data:`MAX_PEAK` by construction (the
    defaults, 2^20 images and 256 MiB to compile, are for real tables)."""
    from tensorca.families.rule_table import ruletable, tree

    monkeypatch.setattr(ruletable, "MAX_TRANSITIONS", 1 << 17)
    monkeypatch.setattr(tree, "COMPILE_MAX_BYTES", 64 << 20)


@FUZZ
@given(text=st.one_of(edited(RULE_FILES, RULE_FILE_TOKENS), st.text(max_size=200)))
def test_rule_files_raise_only_rule_errors(small_table_budgets, text):
    rule = only_raises(RuleError, lambda: rule_from_text(text))
    if rule is not None:
        assert 2 <= rule.n_states <= 256


def test_a_table_line_with_extra_entries_parses_in_bounded_memory():
    """Found by the test above: Golly reads a transition's first ten entries and ignores the rest,
    so this line binds x2..x5 (output x5) under permute: 319,269 images, 66,597 of them distinct.
    It took 954 MB and 5.8 s; dropping repeated images and building the bitsets once: 175 MB traced."""
    text = RULE_FILES[0].replace("2,x1,x2,x3,x4,x5,x6,x7,x8,3", "2,x1,x2,x3,x4,x5,x2,x3,x4,x5,x6,x7,x8,3")
    assert text != RULE_FILES[0]
    assert bounded(lambda: rule_from_text(text)).n_states == 4


@pytest.mark.parametrize("name", range(len(RULE_FILES)))
def test_every_rule_file_seed_is_valid(name):
    assert rule_from_text(RULE_FILES[name]).n_states >= 2


# --- apgsearch hauls -------------------------------------------------------------------------------


HAUL = Haul(root="k_abc123", rule="b3s23", symmetry="C1", num_soups=1000,
            census={"xs4_33": 900, "xp2_7": 900, "xq4_153": 120}, samples={"xs4_33": ["1", "2"], "xq4_153": ["7"]},
            version="v5.0").text()
HAUL_TOKENS = ["@VERSION ", "@MD5 ", "@ROOT ", "@RULE ", "@SYMMETRY ", "@NUM_SOUPS ", "@NUM_OBJECTS ",
               "@CENSUS TABLE\n", "@SAMPLE_SOUPIDS\n", "xs4_33 ", "xp2_7", "\n", " ", "\t", "payosha256:",
               "yl144_1_16_afb5f3db909e60548f086e22ee3353ac"]


@FUZZ
@given(data=st.one_of(edited([HAUL], HAUL_TOKENS), st.text(max_size=200), st.binary(max_size=200)))
def test_hauls_raise_only_haul_errors(data):
    haul = only_raises(HaulError, lambda: parse_haul(data))
    if haul is not None:
        assert haul.num_objects == sum(haul.census.values())


def test_the_haul_seed_is_valid():
    assert parse_haul(HAUL).census["xs4_33"] == 900


apgcodes = st.one_of(
    st.tuples(st.sampled_from(["xs4_", "xp2_", "xq4_", "xs", "yl144_", "x", ""]),
              st.text(alphabet="0123456789abcdefghijklmnopqrstuvwxyz_", max_size=40)).map("".join),
    st.text(max_size=20),
)


@FUZZ_MORE
@given(code=apgcodes)
def test_apgcodes_decode_or_raise_usage_errors(code):
    grid = only_raises(UsageError, lambda: decode_apgcode(code))
    if grid is not None:
        assert grid.dtype == np.uint8 and set(np.unique(grid)) <= {0, 1}


def test_an_apgcode_naming_gigabytes_is_refused_before_allocating():
    """Two characters name 35 empty columns and one a new strip: 200 KB once asked for 407 GiB."""
    with pytest.raises(UsageError, match="250005 x 1750000 cells exceeds"):
        bounded(lambda: decode_apgcode("xs4_" + "yv" * 50_000 + "z" * 50_000))


# --- Lenia creature files (Chan's animals.json) ----------------------------------------------------


LENIA = json.dumps([animal_entry(creature("O2u"), "O2u", "Orbium unicaudatus"),
                    {"code": ">1", "name": "a section header"}])
LENIA_TOKENS = ['"cells"', '"params"', '"code"', '"name"', '"animals"', '"R"', '"b"', "{", "}", "[", "]", ",", ":",
                '"1,1/3"', "null", "true", "1e999", '"A"', '"yO"', '"99$"', '"4000$4000A"', "$", "!", "pA", "\\u0000"]
LENIA_BUDGET = 1 << 16  # cells a creature may have here: a legitimate big world is tested in test_lenia


@FUZZ
@given(data=st.one_of(edited([LENIA], LENIA_TOKENS).map(lambda t: t.encode("utf-8", "surrogatepass")),
                      st.binary(max_size=100)))
def test_lenia_files_raise_only_pattern_errors(scratch, data):
    path = scratch / "animals.json"
    path.write_bytes(data)
    animals = only_raises(PatternError, lambda: load_animals(path, max_cells=LENIA_BUDGET))
    for pattern in (animals or {}).values():
        assert pattern.cells.dtype == np.float64 and pattern.cells.size <= LENIA_BUDGET


@FUZZ
@given(text=st.one_of(edited([json.loads(LENIA)[0]["cells"]], ["$", "!", ".", "b", "o", "pA", "yO", "p", "Y", "A"]),
                      st.text(max_size=60)))
def test_lenia_cells_raise_only_pattern_errors(text):
    cells = only_raises(PatternError, lambda: decode_cells(text, max_cells=LENIA_BUDGET))
    if cells is not None:
        assert cells.size <= LENIA_BUDGET and (cells.size == 0 or 0 <= cells.min() <= cells.max() <= 1)


# Inputs that once escaped as bare exceptions or took gigabytes, always tried.
HOSTILE_LENIA = [
    b"\xbc|?\xb6",  # not UTF-8: UnicodeDecodeError
    b"[" * 100_000 + b"]" * 100_000,  # RecursionError in json
    json.dumps([{"code": 5, "name": "x", "params": {"R": 13}, "cells": "A"}]).encode(),  # a code that is no string
    json.dumps([{"name": "x", "params": {"R": 13}, "cells": ["A"]}]).encode(),  # cells that are no string
    json.dumps([{"name": "x", "params": [13], "cells": "A"}]).encode(),
    json.dumps([{"name": "x", "params": json.loads(LENIA)[0]["params"], "cells": "9" * 5000 + "A"}]).encode(),
    json.dumps([{"name": "x", "params": json.loads(LENIA)[0]["params"], "cells": "1000$1000A"}]).encode(),
    json.dumps([{"name": "x", "params": json.loads(LENIA)[0]["params"], "cells": "AyV"}]).encode(),  # 262 > 255
    b"7" * 4301,  # json reads it as an int, which Python refuses past 4300 digits: ValueError
]


@pytest.mark.parametrize("data", HOSTILE_LENIA, ids=range(len(HOSTILE_LENIA)))
def test_known_hostile_lenia_files_raise_pattern_errors(scratch, data):
    path = scratch / "hostile.json"
    path.write_bytes(data)
    with pytest.raises(PatternError, match=str(path)):
        bounded(lambda: load_animals(path, max_cells=LENIA_BUDGET))


def test_unreadable_lenia_files_raise_pattern_errors(scratch):
    for path, reason in [(scratch, "Is a directory"), (scratch / "missing.json", "No such file")]:
        with pytest.raises(PatternError, match=f"{path}: cannot read animals file: {reason}"):
            load_animals(path)


def test_lenia_cells_are_bounded_by_their_area_not_their_runs():
    """Two runs can describe 16001 x 16000 cells: refused at the run that passes the budget, in
    bounded memory, where the default budget (16 Mi cells) once let it allocate 2 GB."""
    with pytest.raises(PatternError, match=r":1:7: Lenia cells of at least 16001 x 16000 exceed the cell budget"):
        bounded(lambda: decode_cells("16000$16000A"))
    assert bounded(lambda: decode_cells("255$255A", max_cells=256 * 255)).shape == (256, 255)
    with pytest.raises(PatternError, match="run count of 5000 digits"):
        decode_cells("9" * 5000 + "A")


# --- the command line's argument types -------------------------------------------------------------


ARGUMENT_TYPES = {"integer": _args.integer(0, 100), "generations": _args.generations(0),
                  "number": _args.number(0, 10), "byte_size": _args.byte_size, "device": _args.device,
                  "devices": _args.devices, "grid_size": _args.grid_size, "int_list": _args.int_list(0, 100)}
ARGUMENT_PIECES = ["1", "0", "9" * 30, "e", "E", "+", "-", ".", "x", "X", ",", "k", "K", "M", "G", "GiB", "MB", "B",
                   "inf", "nan", "cuda", ":", "cpu", "\u0663", "1e999", " ", "_", "**", "^", "2^", "10^"]


@FUZZ_MORE
@given(name=st.sampled_from(sorted(ARGUMENT_TYPES)),
       text=st.one_of(st.lists(st.sampled_from(ARGUMENT_PIECES), max_size=6).map("".join), st.text(max_size=12)))
def test_argument_types_raise_only_what_argparse_reports(name, text):
    """argparse turns ArgumentTypeError, ValueError and TypeError into one usage line; anything else
    would be a traceback."""
    only_raises((argparse.ArgumentTypeError, ValueError, TypeError), lambda: ARGUMENT_TYPES[name](text))
