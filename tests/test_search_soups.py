"""Soup search: escaping gliders are counted, known ash comes out right, the census order of B3/S23."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

import tensorca
from tensorca import cli_soup
from tensorca.analysis import census
from tensorca.errors import RuleError
from tensorca.search.soups import pick_engine, soup_search

PATTERNS = tensorca.__file__.rsplit("/", 1)[0] + "/data/patterns"


def test_r_pentomino_as_a_soup_gives_its_known_ash_with_escaped_gliders():
    """The R-pentomino spreads past its first plane and sends 6 gliders out through the guard band."""
    r = tensorca.load(f"{PATTERNS}/r_pentomino.rle").cells
    grid = np.zeros((1, 16, 16), np.uint8)
    grid[0, 6:9, 6:9] = r
    result = soup_search(0, grids=grid)
    assert result.counts == {
        "xs4_33": 8, "xq4_153": 6, "xs6_696": 4, "xp2_7": 4, "xs5_253": 1, "xs7_2596": 1, "xs6_356": 1,
    }
    assert result.escaped >= 4  # most gliders were censused at the plane's edge and removed
    assert result.unstable == 0


def test_a_lone_glider_is_counted_once():
    grid = np.zeros((1, 16, 16), np.uint8)
    grid[0, 7:10, 7:10] = [[0, 1, 0], [0, 0, 1], [1, 1, 1]]
    result = soup_search(0, grids=grid)
    assert result.counts == {"xq4_153": 1}


def test_soups_match_the_census_of_each_soup_run_alone():
    """Batching, guard bands and glider removal change nothing: compare with the plain unbounded run."""
    rng = np.random.default_rng(7)
    grids = (rng.random((4, 16, 16)) < 0.5).astype(np.uint8)
    result = soup_search(0, grids=grids)
    assert result.unstable == 0
    engine, _ = pick_engine(tensorca.parse_rule("B3/S23"))
    expected: dict[str, int] = {}
    for g in grids:
        final = tensorca.run(tensorca.Pattern(g), generations=2500, backend=engine.name)
        for code, n in census(final).items():
            expected[code] = expected.get(code, 0) + n
    assert result.counts == dict(sorted(expected.items(), key=lambda kv: (-kv[1], kv[0])))


def test_b3s23_census_order_block_blinker_beehive():
    if pick_engine(tensorca.parse_rule("B3/S23"))[0].name == "numpy":
        pytest.skip("400 soups need a fast engine (bitpack-cpu needs Numba)")
    result = soup_search(400, seed=11)
    top = list(result.counts)[:3]
    assert top == ["xs4_33", "xp2_7", "xs6_696"]
    assert "xq4_153" in list(result.counts)[:5]
    assert result.soups == 400 and result.soups_per_second > 0
    assert result.unstable <= 2


def test_other_two_state_rules_and_refusals():
    result = soup_search(20, "B36/S23", seed=1, max_gens=3000)
    assert result.rule == "B36/S23" and result.objects > 0
    with pytest.raises(RuleError):
        soup_search(5, "345/2/4")
    engine, _ = pick_engine(tensorca.parse_rule("B3/S23"))
    assert engine.name in ("bitpack-gpu", "bitpack-cpu", "torch", "numpy")


def test_soup_command_prints_census_and_rate(capsys):
    parser = argparse.ArgumentParser(prog="tensorca")
    cli_soup.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["soup", "--count", "30", "--seed", "3", "--no-progress"])
    assert args.func(args) == 0
    text = capsys.readouterr().out
    assert "xs4_33" in text and "block" in text and "soups/s" in text
