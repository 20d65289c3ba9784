"""apgsearch's soups (SHA-256 of root + index) and Catagolue's haul format.

The soup layout is checked against two independent transliterations of apgsearch's own code: the
C++ of apgmera (lifelib's ``hashsoup``: four 64-bit 8x8 tiles, cell ``(x, y)`` of a tile in bit
``x + 8y``) and the Python of apgsearch 1.x (byte ``j``, bit ``7 - k`` at ``(k + 8 (j % 2), j // 2)``),
whose soup is the C++ one mirrored left to right.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from tensorca.errors import TensorcaError, UsageError
from tensorca.io.haul import Haul, HaulError, catagolue_rule, parse_haul
from tensorca.search.hashsoup import check_seed, hashsoup, hashsoups


def lifelib_soup(prehash: str) -> np.ndarray:
    """apgmera's C1 ``hashsoup``: bytes 2j/2j+1/2j+16/2j+17 into tiles a, b, c, d, b|a over d|c."""
    digest = hashlib.sha256(prehash.encode()).digest()
    a = b = c = d = 0
    for j in range(8):
        a |= digest[2 * j] << (8 * j)
        b |= digest[2 * j + 1] << (8 * j)
        c |= digest[2 * j + 16] << (8 * j)
        d |= digest[2 * j + 17] << (8 * j)
    grid = np.zeros((16, 16), dtype=np.uint8)
    for (tx, ty), tile in {(0, 0): b, (1, 0): a, (0, 1): d, (1, 1): c}.items():
        for bit in range(64):
            if (tile >> bit) & 1:  # lifelib's bitworld: cell (x, y) of a tile is bit x + 8 y
                grid[8 * ty + bit // 8, 8 * tx + bit % 8] = 1
    return grid


def apgsearch1_soup(prehash: str) -> np.ndarray:
    """apgsearch 1.x's Python ``hashsoup`` for C1."""
    digest = hashlib.sha256(prehash.encode()).digest()
    grid = np.zeros((16, 16), dtype=np.uint8)
    for j in range(32):
        for k in range(8):
            if digest[j] & (1 << (7 - k)):
                grid[j // 2, k + 8 * (j % 2)] = 1
    return grid


@pytest.mark.parametrize("root", ["k_abc123", "m_zqK9", "0"])
def test_soups_are_lifelibs_and_apgsearch_1s_mirrored(root):
    for index in (0, 1, 9, 10, 12345, 10**12):
        soup = hashsoup(root, index)
        assert soup.shape == (16, 16) and soup.dtype == np.uint8
        np.testing.assert_array_equal(soup, lifelib_soup(f"{root}{index}"))
        np.testing.assert_array_equal(soup, apgsearch1_soup(f"{root}{index}")[:, ::-1])


def test_a_range_of_soups_is_the_soups_one_by_one():
    many = hashsoups("k_range", 95, 105)
    assert many.shape == (10, 16, 16)
    for i, soup in enumerate(many):
        np.testing.assert_array_equal(soup, hashsoup("k_range", 95 + i))
    assert hashsoups("k_range", 7, 7).shape == (0, 16, 16)
    assert 0.4 < hashsoups("k_density", 0, 200).mean() < 0.6  # SHA-256 bits: half of the cells alive


@pytest.mark.parametrize("seed", ["", "a b", "tab\there", "é", "x" * 257, "nul\x00", None, 1.5, b"k_abc", True, -3])
def test_hostile_seeds_are_usage_errors(seed):
    with pytest.raises(UsageError, match="seed"):
        check_seed(seed)


def test_integer_seeds_are_their_decimal_string():
    assert check_seed(42) == "42"
    np.testing.assert_array_equal(hashsoup(42, 3), hashsoup("42", 3))


def test_bad_ranges_are_usage_errors():
    with pytest.raises(UsageError):
        hashsoups("k_x", 5, 4)
    with pytest.raises(UsageError):
        hashsoups("k_x", -1, 4)


# -- the haul ----------------------------------------------------------------------------------------


def haul() -> Haul:
    return Haul(root="k_abc123", rule="b3s23", symmetry="C1", num_soups=1000,
                census={"xs4_33": 900, "xp2_7": 900, "xq4_153": 120, "xs0_0": 5, "xp15_4r4z4r4": 1},
                samples={"xs4_33": [str(i) for i in range(12)], "xp2_7": ["3"], "xq4_153": ["7", "9"],
                         "xp15_4r4z4r4": ["812"]},
                version="tensorca-test")


def test_haul_text_follows_apgsearch():
    text = haul().text()
    lines = text.splitlines()
    assert lines[:7] == ["@VERSION tensorca-test", f"@MD5 {hashlib.md5(b'k_abc123').hexdigest()}", "@ROOT k_abc123",
                         "@RULE b3s23", "@SYMMETRY C1", "@NUM_SOUPS 1000", "@NUM_OBJECTS 1921"]
    census = lines[lines.index("@CENSUS TABLE") + 1 : lines.index("@SAMPLE_SOUPIDS") - 1]
    # count descending; equal counts in descending apgcode order (apgsearch sorts (count, code) and reads backwards)
    assert census == ["xs4_33 900", "xp2_7 900", "xq4_153 120", "xp15_4r4z4r4 1"]
    samples = lines[lines.index("@SAMPLE_SOUPIDS") + 1 :]
    assert samples[0] == "xs4_33 " + " ".join(str(i) for i in range(10))  # ten ids at most
    assert samples[1:] == ["xp2_7 3", "xq4_153 7 9", "xp15_4r4z4r4 812"]


def test_haul_round_trip():
    written = haul()
    read = parse_haul(written.text())
    assert (read.root, read.rule, read.symmetry, read.num_soups, read.version) == (
        "k_abc123", "b3s23", "C1", 1000, "tensorca-test")
    assert read.census == {"xs4_33": 900, "xp2_7": 900, "xq4_153": 120, "xp15_4r4z4r4": 1}
    assert read.samples["xs4_33"] == [str(i) for i in range(10)] and read.samples["xq4_153"] == ["7", "9"]
    assert read.text() == written.text()
    # apgsearch's uploads begin with an authentication line: skipped
    assert parse_haul("payosha256:token\n" + written.text()).census == read.census


def _replace(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize("mutate, message", [
    (lambda t: _replace(t, "@MD5 ", "@MD5 0"), "md5"),
    (lambda t: _replace(t, "@NUM_OBJECTS 1921", "@NUM_OBJECTS 1922"), "NUM_OBJECTS"),
    (lambda t: _replace(t, "@NUM_SOUPS 1000", "@NUM_SOUPS lots"), "NUM_SOUPS"),
    (lambda t: _replace(t, "@ROOT k_abc123\n", ""), "ROOT"),
    (lambda t: _replace(t, "xq4_153 120", "xq4_153 12x"), "census line"),
    (lambda t: _replace(t, "xq4_153 120", "xq4_153 120\nxq4_153 1"), "counted twice"),
    (lambda t: _replace(t, "xp2_7 3", "xp2_7 3\nxs6_696 1"), "not in the census"),
    (lambda t: _replace(t, "xp2_7 3", "xp2_7"), "soup ids"),
    (lambda t: _replace(t, "xp2_7 3", "<script> 3"), "not an apgcode"),
    (lambda t: _replace(t, "@SYMMETRY C1", "@SYMMETRY C1\n@SYMMETRY D8_1"), "twice"),
    (lambda t: t + "@RULE b36s23\n", "after the census"),
    (lambda t: "\n\n" + t + "stray words\n", None),
])
def test_hostile_hauls_are_haul_errors(mutate, message):
    text = mutate(haul().text())
    if message is None:  # stray words after the samples are a malformed samples line
        with pytest.raises(HaulError):
            parse_haul(text)
        return
    with pytest.raises(HaulError, match=message):
        parse_haul(text)


def test_undecodable_or_huge_hauls_are_haul_errors():
    with pytest.raises(HaulError, match="UTF-8"):
        parse_haul(b"\xff\xfe@VERSION x")
    with pytest.raises(TensorcaError):
        parse_haul(b"@" * (1 << 26 + 1))


def test_catagolue_rule_spelling():
    assert catagolue_rule("B3/S23") == "b3s23"
    assert catagolue_rule("B36/S23") == "b36s23"
    assert catagolue_rule("B2-a/S12") == "b2-as12"
    assert catagolue_rule("MAPARYXfhZofugWaH7oaIDogBZofuhogOiAaIDogIAAgAAWaH7oeIDogGiA6ICAAIAAaIDogIAAgACAAIAAAAAAAA") \
        .startswith("mapARYXfhZo")
