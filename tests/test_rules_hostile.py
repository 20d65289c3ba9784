"""Hostile rule text (issue 11): every parse ends in a RuleError or a correct rule, in bounded memory."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tensorca.errors import RuleError, TopologyError
from tensorca.rules import notation as rule_notation
from tensorca.rules import parse_rule, parse_spec

from .conftest import check_rule_error


@pytest.mark.parametrize("text, position", [("V", 0), ("H", 0), ("  h", 2), ("v ", 0)])
def test_a_lone_neighbourhood_letter_is_a_rule_error(text, position):
    check_rule_error(text, position, "neighbourhood letter", "needs a B/S rule")


@pytest.mark.parametrize("text, position", [
    ("B³/S23", 1),  # str.isdigit accepts superscripts
    ("B3/S2³", 5),
    ("W⁵", 1),
    ("W1١0", 2),  # an Arabic-Indic digit
    ("٣/٣", 2),
    ("B3/S23/٣", 7),
])
def test_non_ascii_digits_are_rule_errors(text, position):
    check_rule_error(text, position)


@pytest.mark.parametrize("text", [
    "R٣,C0,S1,B2",
    "R3,C٣,S1,B2",
    "R3,C0,S1-٣,B2",
    "R3,C0,M0,S1..٣,B2..3,NM",
    "٣,1,2,3,4",
])
def test_non_ascii_digits_in_larger_than_life_are_rule_errors(text):
    with pytest.raises(RuleError):
        parse_rule(text)


HUGE = "9" * 5000  # Python's int() refuses more than 4300 digits with a bare ValueError


@pytest.mark.parametrize("text, position, words", [
    ("W" + HUGE, 1, ("Wolfram", "5000 digits")),
    ("2/3/" + HUGE, 4, ("state count", "5000 digits")),
    ("R" + HUGE + ",C0,M0,S1..2,B1..2,NM", 1, ("range", "5000 digits")),
    ("R2,C" + HUGE + ",S1,B2", 4, ("state count", "5000 digits")),
    ("R2,C0,S1-" + HUGE + ",B2", 9, ("survival", "5000 digits")),
    (HUGE + ",1,2,3,4", 0, ("5000 digits",)),
])
def test_numbers_over_python_int_limit_are_rule_errors(text, position, words):
    check_rule_error(text, position, *words)


def test_leading_zeros_do_not_count_as_digits():
    assert parse_rule("W" + "0" * 5000 + "110").canonical() == "W110"


@pytest.mark.parametrize("text, survival, birth", [
    ("R2,C0,S5-10,1-20,B3", ((1, 20),), ((3, 3),)),
    ("R2,C0,S1-3,4-6,9,B3,2", ((1, 6), (9, 9)), ((2, 3),)),
    ("R2,C0,S8,1-2,2-3,B0-24", ((1, 3), (8, 8)), ((0, 24),)),
])
def test_hrot_count_lists_merge_as_intervals(text, survival, birth):
    rule = parse_rule(text)
    assert (rule.survival, rule.birth) == (survival, birth)


BOMB = "R500,C0,S0-127254127,B1-127254127,NW" + "7F" * 1002001


def test_hrot_interval_of_127_million_counts_parses_in_bounded_memory():
    """Issue 11's reproducer: once a MemoryError after 4.5 GB (every count put in a set)."""
    code = textwrap.dedent("""
        import resource
        from tensorca.rules import parse_rule
        rule = parse_rule("R500,C0,S0-127254127,B1-127254127,NW" + "7F" * 1002001)
        spec = rule.compile()
        assert (rule.survival, rule.birth) == (((0, 127254127),), ((1, 127254127),))
        assert spec.perceive.weights.shape == (1001, 1001) and (spec.perceive.weights == 127).all()
        assert not spec.births_from_nothing
        try:  # this process's own peak: ru_maxrss keeps the forking parent's peak across exec on Linux
            with open("/proc/self/status") as status:
                print(next(line.split()[1] for line in status if line.startswith("VmHWM:")))
        except OSError:
            print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    peak_kib = int(out.stdout.split()[-1])
    assert peak_kib < 400 * 1024, f"peak RSS {peak_kib / 1024:.0f} MiB"


def test_long_rule_texts_are_not_cached():
    """The parse cache holds short texts only: a 2 MB rule is parsed again, not kept."""
    before = rule_notation._parse_cached.cache_info().currsize
    first = parse_rule(BOMB)
    assert rule_notation._parse_cached.cache_info().currsize == before
    assert parse_rule(BOMB) == first and parse_rule(BOMB) is not first
    assert parse_rule("B36/S23") is parse_rule("B36/S23")  # short texts still come from the cache


RULE_CHARS = "BSbs/_0123456789VHvhMAPWRCNG@,.-:TPKCSQ+*#x= ³⁵٣İ\t" + "ceaiknjqrytwz"
SEEDS = ["B3/S23", "B2-a/S12", "MAP" + "A" * 86, "W110", "R5,C0,M1,S34..58,B34..45,NM", "345/2/4",
         "R3,C2,S0,7-12,27,B8,12,20-27,N2", "5,34,45,34,58", "B3/S23:T64,64", "B3/S23:K10*,10",
         "R2,C3,S2,B3,NW1111111111111111111111111,123"]


def _mutations() -> st.SearchStrategy[str]:
    insert = st.builds(lambda s, i, t: s[:i] + t + s[i:], st.sampled_from(SEEDS), st.integers(0, 40),
                       st.text(alphabet=RULE_CHARS, max_size=6))
    delete = st.builds(lambda s, i, j: s[:i] + s[j:], st.sampled_from(SEEDS), st.integers(0, 40), st.integers(0, 40))
    return st.one_of(st.text(max_size=30), st.text(alphabet=RULE_CHARS, max_size=30), insert, delete)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(_mutations())
def test_any_text_gives_a_rule_or_a_typed_error(text):
    try:
        parse_rule(text)
    except RuleError:
        pass
    try:
        parse_spec(text)
    except (RuleError, TopologyError):
        pass
