"""Golly's weighted HROT / Larger than Life neighbourhoods: ``NW<hex>[,<state weights>]`` and ``NG``.

Facts from Golly's Help/Algorithms/Larger_than_Life.html ("Weighted (NW)", "Gaussian (NG)") and
``gollybase/ltlalgo.cpp`` (``read_weighted``, ``fast_Weighted``, ``fast_Gaussian``,
``max_neighbors``, ``setrule``): weights cover the whole (2r+1)^2 square, centre included, in
reading order; one hex digit (``8-F`` = -0..-7) or two (``80-FF`` = -0..-127) per weight; the
optional ``,<hex>`` gives one weight 0..15 per state; the Gaussian weight of ``(dx, dy)`` is
``(r+1-|dx|)*(r+1-|dy|)``; counts may run to the sum of the positive weights (times the largest
state weight), ``(r+1)^4`` for NG; a negative count neither births nor survives.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from tensorca.engines import get_engine
from tensorca.engines.numpy_reference import perceive
from tensorca.errors import RuleError
from tensorca.rules import LargerThanLifeRule, neighbourhood_mask, parse_rule
from tensorca.rules.neighbourhoods import neighbourhood_size, neighbourhood_weights, weight_levels
from tensorca.topology import Topology

from .conftest import check_rule_error


def encode(weights: np.ndarray, two: bool) -> str:
    """Golly's NW digits for integer weights: sign bit then magnitude, reading order."""
    out = []
    for w in np.asarray(weights).reshape(-1):
        w = int(w)
        if two:
            out.append(f"{(128 | -w) if w < 0 else w:02X}")
        else:
            out.append(f"{(8 | -w) if w < 0 else w:X}")
    return "".join(out)


# -- decoding: the Help page's examples, signs, Gaussian ------------------------------------------

def test_help_single_digit_example():
    rule = parse_rule("R1,C0,S1,B2,NW123401323")
    assert rule.neighbourhood_weights().tolist() == [[1, 2, 3], [4, 0, 1], [3, 2, 3]]
    assert rule.state_weights() is None and rule.is_weighted
    np.testing.assert_array_equal(rule.neighbourhood_mask(), [[1, 1, 1], [1, 0, 1], [1, 1, 1]])
    assert neighbourhood_size(rule.neighbourhood, 1) == 19


def test_help_double_digit_example():
    rule = parse_rule("R1,C0,S1,B2,NW0810080a850a081008")
    assert rule.neighbourhood_weights().tolist() == [[8, 16, 8], [10, -5, 10], [8, 16, 8]]
    assert rule.canonical() == "R1,C0,S1,B2,NW0810080A850A081008"
    assert neighbourhood_size(rule.neighbourhood, 1) == 84  # negatives are left out of the maximum


def test_help_state_weights_example():
    rule = parse_rule("R1,C4,S1,B2,NW123401323,012A")
    assert rule.state_weights() == (0, 1, 2, 10)
    assert neighbourhood_size(rule.neighbourhood, 1) == 19 * 10  # Golly: positive sum * max state weight
    assert rule.canonical() == "R1,C4,S1,B2,NW123401323,012A"


def test_sign_is_a_top_bit_not_twos_complement():
    one = neighbourhood_weights("W0123456789ABCDEF0" + "0" * 8, 2, False).reshape(-1)[:17].tolist()
    assert one == [0, 1, 2, 3, 4, 5, 6, 7, 0, -1, -2, -3, -4, -5, -6, -7, 0]
    two = neighbourhood_weights("W" + "007F80FF01" + "00" * 4, 1, False).reshape(-1).tolist()
    assert two == [0, 127, 0, -127, 1, 0, 0, 0, 0]


def golly_gaussian(r: int, centre_state_one: bool) -> np.ndarray:
    """ltlalgo.cpp fast_Gaussian transliterated: weights row by row (top first), then the +1 that
    the totalistic survival shift (M0) cancels; returned as the count of each lone live cell."""
    w = np.zeros((2 * r + 1, 2 * r + 1), dtype=np.int64)
    for j in range(-r, r + 1):
        inc = r + 1 - abs(j)
        weight = inc
        for i in range(-r, 1):
            w[j + r, i + r] = weight
            weight += inc
        weight -= inc + inc
        for i in range(1, r + 1):
            w[j + r, i + r] = weight
            weight -= inc
    if centre_state_one:
        w[r, r] += 1
    return w


@pytest.mark.parametrize("r", [1, 2, 3, 7])
def test_gaussian_weights_follow_golly(r):
    m0 = parse_rule(f"R{r},C0,S1,B1,NG")
    np.testing.assert_array_equal(m0.neighbourhood_weights(), golly_gaussian(r, False))
    # M1: Golly adds 1 for a live centre and does not shift survival
    m1 = parse_rule(f"R{r},C0,M1,S1..1,B1..1,NG")
    np.testing.assert_array_equal(m1.neighbourhood_weights(), golly_gaussian(r, True))
    assert neighbourhood_size("G", r) == (r + 1) ** 4 == int(m0.neighbourhood_weights().sum())


def test_gaussian_help_example():
    rule = parse_rule("R3,C2,M0,S24..31,B24..28,NG")
    assert rule.canonical() == "R3,C0,M0,S24..31,B24..28,NG"
    assert rule.neighbourhood_weights()[3].tolist() == [4, 8, 12, 16, 12, 8, 4]
    assert rule.neighbourhood_weights()[0].tolist() == [1, 2, 3, 4, 3, 2, 1]


def test_weight_levels_rebuild_the_weights():
    w = parse_rule("R1,C0,S1,B2,NW0810080a850a081008").neighbourhood_weights()
    levels = weight_levels(w)
    assert [v for v, _ in levels] == [-5, 8, 10, 16]
    np.testing.assert_array_equal(sum(v * m.astype(np.int64) for v, m in levels), w)


# -- parsing: canonical spellings, ranges, errors --------------------------------------------------

@pytest.mark.parametrize(
    "text, canonical",
    [
        ("r1,c0,s1,b2,nw123401323", "R1,C0,S1,B2,NW123401323"),
        ("R1,C0,S3,1-2,B2,NW123401323H", "R1,C0,S1-3,B2,NW123401323H"),
        ("R1,C3,S1,B2,NW123401323,012h", "R1,C3,S1,B2,NW123401323,012H"),
        ("R1,C0,S1,B2,NW123401323,01", "R1,C0,S1,B2,NW123401323,01"),
        ("r1,c0,m0,s1..1,b2..2,nw123401323,01", "R1,C0,M0,S1..1,B2..2,NW123401323,01"),
        ("R1,C0,M1,S1..20,B0..20,NW123401323", "R1,C0,M1,S1..20,B0..20,NW123401323"),
        ("R3,C0,S24-31,B24-28,ng", "R3,C0,S24-31,B24-28,NG"),
        ("R50,C5,S1,B2,NG", "R50,C5,S1,B2,NG"),
    ],
)
def test_canonical_round_trip(text, canonical):
    rule = parse_rule(text)
    assert isinstance(rule, LargerThanLifeRule) and rule.canonical() == canonical
    assert parse_rule(canonical) == rule and parse_rule(canonical).canonical() == canonical


def test_count_ranges():
    assert parse_rule("R1,C0,S0-19,B19,NW123401323").birth == ((19, 19),)
    with pytest.raises(RuleError, match="birth count 20 is out of range 0..19"):
        parse_rule("R1,C0,S1,B20,NW123401323")
    with pytest.raises(RuleError, match=r"survival count 21 is out of range 1..20 \(NW.* counts at most 19 plus"):
        parse_rule("R1,C0,M1,S1..21,B1..1,NW123401323")
    with pytest.raises(RuleError, match="birth count 39 is out of range 0..38"):  # state weights 0, 2
        parse_rule("R1,C0,S1,B39,NW123401323,02")
    assert parse_rule("R1,C0,S1,B38,NW123401323,02").birth == ((38, 38),)
    with pytest.raises(RuleError, match="survival count 17 is out of range 0..16"):
        parse_rule("R1,C0,S17,B1,NG")
    assert parse_rule("R1,C0,M1,S1..17,B1..17,NG").survival == ((1, 17),)


@pytest.mark.parametrize(
    "text, position, words",
    [
        ("R1,C0,S1,B2,NW12340132", 14, ["exactly 9 hex digits", "or 18", "got 8"]),
        ("R1,C0,S1,B2,NW1234013231", 14, ["exactly 9", "got 10"]),
        ("R1,C0,S1,B2,NW", 14, ["exactly 9", "got 0"]),
        ("R1,C0,M0,S1..1,B1..1,NW1234", 23, ["exactly 9"]),
        ("R1,C0,S1,B2,NW1234G1323", 18, ["'G'", "weighted"]),
        ("R1,C0,S1,B2,NW123401323L", 23, ["triangular", "not supported"]),
        ("R1,C0,S1,B2,NW123401323,01L", 26, ["triangular", "not supported"]),
        ("R1,C3,S1,B2,NW123401323,01", 24, ["one state weight per state", "3 hex digits", "got 2"]),
        ("R1,C0,S1,B2,NW123401323,012", 24, ["2 hex digits", "got 3"]),
        ("R1,C0,S1,B2,NW123401323,0X", 25, ["state weights"]),
        ("R1,C0,S1,B2,NW123401323,", 24, ["state weights"]),
        ("R1,C0,S1,B2,NW123401323H,01", 25, ["before Golly's H"]),
        ("R1,C0,S1,B2,NM,01", 15, ["must end the rule"]),
        ("R1,C0,S1,B2,NW123401323,01,1", 27, ["must end the rule"]),
        ("R51,C0,S1,B2,NG", 0, ["R51", "1..50", "Gaussian"]),
        ("R1,C0,S1,B2,NGX", 12, ["unknown neighbourhood"]),
    ],
)
def test_errors(text, position, words):
    check_rule_error(text, position, *words)


def test_neighbourhood_functions_reject_bad_weights():
    with pytest.raises(ValueError, match="exactly 9 or 18"):
        neighbourhood_weights("W1234", 1, False)
    with pytest.raises(ValueError, match="1 to 50"):
        neighbourhood_mask("G", 51, False)


# -- counting: the definition, brute force ---------------------------------------------------------

def brute_count(cells: np.ndarray, weights: np.ndarray, sw, kind: str) -> np.ndarray:
    """Golly's fast_Weighted, cell by cell: sum of weight * (state == 1), or weight * sw[state]."""
    batch, height, width = cells.shape
    r = weights.shape[0] // 2
    out = np.zeros(cells.shape, dtype=np.int64)
    for b in range(batch):
        for y in range(height):
            for x in range(width):
                total = 0
                for dy in range(-r, r + 1):
                    for dx in range(-r, r + 1):
                        yy, xx = y + dy, x + dx
                        if kind == "torus":
                            state = int(cells[b, yy % height, xx % width])
                        elif 0 <= yy < height and 0 <= xx < width:
                            state = int(cells[b, yy, xx])
                        else:
                            state = 0
                        factor = (state == 1) if sw is None else sw[state]
                        total += int(weights[dy + r, dx + r]) * factor
                out[b, y, x] = total
    return out


def random_weighted_rule(rng: np.random.Generator, r: int, n_states: int, two: bool, with_sw: bool) -> str:
    top = 127 if two else 7
    w = rng.integers(-top, top + 1, (2 * r + 1, 2 * r + 1))
    w[rng.random(w.shape) < 0.3] = 0
    nb = "W" + encode(w, two)
    if with_sw:
        nb += "," + "".join(f"{v:X}" for v in rng.integers(1, 16, max(2, n_states)))
    most = neighbourhood_size(nb, r)
    return f"R{r},C{n_states},S{most // 3}-{most},B{most // 4 + 1}-{most // 2},N{nb}"


@pytest.mark.parametrize("kind", ["torus", "plane"])
@pytest.mark.parametrize("r", [1, 2, 3])
def test_weighted_counts_match_the_definition(r, kind):
    rng = np.random.default_rng(zlib.crc32(f"count {r} {kind}".encode()))
    texts = [random_weighted_rule(rng, r, 2, False, False), random_weighted_rule(rng, r, 4, True, False),
             random_weighted_rule(rng, r, 3, False, True), random_weighted_rule(rng, r, 0, True, True),
             f"R{r},C3,M1,S1..2,B1..2,NG", f"R{r},C0,S1,B2,NG"]
    for text in texts:
        rule = parse_rule(text)
        for shape in [(5, 4), (9, 11)]:
            cells = rng.integers(0, rule.n_states, (2,) + shape).astype(np.uint8)
            topology = Topology(kind, shape[1], shape[0])
            want = brute_count(cells, rule.neighbourhood_weights(), rule.state_weights(), kind)
            np.testing.assert_array_equal(perceive(cells, rule.compile(), topology), want, err_msg=f"{text} {shape}")


def test_negative_counts_never_birth_nor_survive():
    # every neighbour weighs -1, the centre 0: a lone cell has count 0, a crowd a negative count
    rule = parse_rule("R1,C0,S0,B0,NW999909999")
    cells = np.zeros((1, 6, 6), dtype=np.uint8)
    cells[0, 1:4, 1:4] = 1
    got = get_engine("numpy").advance(cells, rule, Topology("torus", 6, 6), 1)[0]
    count = perceive(cells, rule.compile(), Topology("torus", 6, 6))[0]
    np.testing.assert_array_equal(got, (count == 0).astype(np.uint8))
    assert got[2, 2] == 0 and got[0, 5] == 1


def test_state_weight_of_the_dead_state():
    # a dead window counts sw[0] * sum(weights): here 1 * 19 = 19, so B19 is a birth from nothing
    rule = parse_rule("R1,C0,S1,B19,NW123401323,11")
    assert rule.empty_count() == 19 and rule.births_from_nothing()
    assert not parse_rule("R1,C0,S1,B19,NW123401323,01").births_from_nothing()
    plane = get_engine("numpy").advance(np.zeros((1, 5, 5), np.uint8), rule, Topology("plane", 5, 5), 1)
    assert plane[0].all()  # off-plane cells are dead and weigh sw[0] too


# -- engines ---------------------------------------------------------------------------------------

PARITY_RULES = [
    "R1,C0,S1-4,B2-3,NW123401323",
    "R1,C0,S0-9,B4-12,NW0810080a850a081008",
    "R2,C0,S3-12,B4-9,NW" + encode(np.array([[1, -2, 3, -4, 5], [0, 7, -7, 2, 1], [3, 1, 0, 1, 3],
                                              [1, 2, -7, 7, 0], [5, -4, 3, -2, 1]]), False),
    "R1,C4,S2-6,B2-4,NW123401323,012A",
    "R2,C3,S10-40,B12-30,NW" + "A32" * 8 + "1,132",
    "R3,C0,S100-200,B110-150,NG",
    "R2,C3,M1,S9..30,B9..20,NG",
]


@pytest.mark.parametrize("kind", ["torus", "plane"])
@pytest.mark.parametrize("text", PARITY_RULES)
def test_torch_parity_with_reference(text, kind):
    torch = pytest.importorskip("torch")
    rule = parse_rule(text)
    reference, engine = get_engine("numpy"), get_engine("torch")
    rng = np.random.default_rng(zlib.crc32(f"{text} {kind}".encode()))
    for shape in [(1, 1), (2, 5), (7, 9), (24, 31)]:
        live = rng.random((3,) + shape) < rng.uniform(0.2, 0.7)
        cells = (live * rng.integers(1, max(rule.n_states, 2), (3,) + shape)).astype(np.uint8)
        topology = Topology(kind, shape[1], shape[0])
        want = reference.advance(cells, rule, topology, 5)
        got = engine.advance(torch.from_numpy(cells), rule, topology, 5)
        np.testing.assert_array_equal(got.cpu().numpy(), want, err_msg=f"{text} {kind} {shape}")


def test_torch_wide_count_path_matches_reference():
    """Counts above 2^20 take the interval-comparison path instead of a verdict table."""
    torch = pytest.importorskip("torch")
    r = 16
    w = np.full((2 * r + 1, 2 * r + 1), 127)
    w[::3] = -90
    nb = f"W{encode(w, True)},0F1"
    top = neighbourhood_size(nb, r)
    assert top > 1 << 20
    rule = parse_rule(f"R{r},C3,S{top // 5}-{top},B{top // 6}-{top // 2},N{nb}")
    rng = np.random.default_rng(7)
    cells = rng.integers(0, 3, (2, 30, 28)).astype(np.uint8)
    for kind in ("torus", "plane"):
        topology = Topology(kind, 28, 30)
        want = get_engine("numpy").advance(cells, rule, topology, 3)
        got = get_engine("torch").advance(torch.from_numpy(cells), rule, topology, 3)
        np.testing.assert_array_equal(got.cpu().numpy(), want)
