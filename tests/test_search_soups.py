"""Soup search: escaping gliders are counted, known ash comes out right, the census order of B3/S23."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorca
from tensorca import costmodel
from tensorca.analysis import census
from tensorca.cli import main
from tensorca.errors import EngineError, RuleError, UsageError
from tensorca.search.soups import CHUNK, FIRST_PLANE, TYPICAL_LIFETIME, SearchInterrupted, pick_engine, soup_search
from tensorca.topology import Topology

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
    engine, _ = pick_engine(tensorca.parse_rule("B3/S23"), count=len(grids))
    expected: dict[str, int] = {}
    for g in grids:
        final = tensorca.run(tensorca.Pattern(g), generations=2500, backend=engine.name)
        for code, n in census(final).items():
            expected[code] = expected.get(code, 0) + n
    assert result.counts == dict(sorted(expected.items(), key=lambda kv: (-kv[1], kv[0])))


def test_b3s23_census_order_block_blinker_beehive():
    if pick_engine(tensorca.parse_rule("B3/S23"), count=400)[0].name == "numpy":
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
    for bad in ({"count": -1}, {"count": 1, "density": 1.5}, {"count": 1, "max_gens": 0}):
        with pytest.raises(UsageError):
            soup_search(**bad)


@pytest.mark.parametrize("count, batch", [(1, 256), (30, 256), (5000, 64)])
def test_auto_soup_engine_is_the_cost_models_choice_for_the_search(count, batch):
    rule = tensorca.parse_rule("B3/S23")
    engine, device = pick_engine(rule, count=count, batch=batch)
    planes = min(count, batch)
    generations = max(CHUNK, math.ceil(count * TYPICAL_LIFETIME / planes))
    choice = costmodel.choose(rule, Topology.plane(FIRST_PLANE, FIRST_PLANE), planes, (FIRST_PLANE, FIRST_PLANE),
                              generations, calls=math.ceil(generations / CHUNK))
    assert (engine.name, device) == (choice.engine, choice.device)


def test_named_soup_engine_is_used_or_refused():
    engine, device = pick_engine(tensorca.parse_rule("B3/S23"), "numpy")
    assert (engine.name, device) == ("numpy", "cpu")
    with pytest.raises(EngineError):
        pick_engine(tensorca.parse_rule("B3/S23"), "no-such-engine")


def test_interrupted_search_keeps_the_census_of_finished_soups():
    def progress(done, count):
        if done >= 20:
            raise KeyboardInterrupt

    with pytest.raises(SearchInterrupted) as caught:
        soup_search(200, seed=5, batch=8, backend="numpy", progress=progress)
    partial = caught.value.result
    assert isinstance(caught.value, KeyboardInterrupt) and partial.interrupted
    assert 20 <= partial.soups < 200 and partial.objects > 0 and partial.generations > 0
    assert partial.engine == "numpy" and partial.rule == "B3/S23"


def test_soup_command_prints_census_and_rate(capsys):
    assert main(["soup", "--count", "30", "--seed", "3", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "xs4_33" in text and "block" in text and "soups/s" in text
    assert "where the time went" in text and "stepping" in text and "censuses" in text


@pytest.mark.parametrize("backend", ["bitpack-cpu", "numpy"])
def test_a_search_says_where_its_time_went(monkeypatch, backend):
    """Each phase's seconds are its own: a census made 50 ms slower a call adds exactly that to
    ``census`` and nothing to the others; the phases never add up to more than the wall time.

    The search's clock is replaced by one that ticks 1 us a reading and jumps 50 ms inside each
    slowed call, so the figures are exact on however busy a machine."""
    import importlib

    objects = importlib.import_module("tensorca.analysis.objects")
    soups = importlib.import_module("tensorca.search.soups")
    now = [0.0]

    def clock():
        now[0] += 1e-6
        return now[0]

    monkeypatch.setattr(soups, "_clock", clock)
    plain = soup_search(8, seed=5, backend=backend, max_gens=3000)
    assert set(plain.phases) == {"stepping", "census", "bands"} and plain.phases["stepping"] > 0
    assert sum(plain.phases.values()) <= plain.seconds
    resolve = objects.Splitter.resolve
    calls = []

    def slow(self, state):
        calls.append(1)
        now[0] += 0.05
        return resolve(self, state)

    monkeypatch.setattr(objects.Splitter, "resolve", slow)
    slowed = soup_search(8, seed=5, backend=backend, max_gens=3000)
    assert slowed.counts == plain.counts and len(calls) >= 8
    added = 0.05 * len(calls)
    assert slowed.phases["census"] == pytest.approx(plain.phases["census"] + added, abs=1e-9)
    for phase in ("stepping", "bands"):
        assert slowed.phases[phase] == pytest.approx(plain.phases[phase], abs=1e-9)
    assert sum(slowed.phases.values()) <= slowed.seconds


def test_time_spent_names_each_phase_and_the_rest():
    from tensorca.cli.soup import time_spent

    line = time_spent({"stepping": 3.0, "census": 1.0, "bands": 0.5}, 5.0)
    assert line == "stepping 3.00 s 60%, censuses 1.00 s 20%, guard bands 0.50 s 10%, rest 0.50 s 10%"
    assert time_spent({"stepping": 0.0}, 0.0) == "stepping 0.00 s, rest 0.00 s"


def test_a_search_without_seed_reports_the_seed_it_drew():
    first = soup_search(6, seed=None, backend="numpy", max_gens=2000)
    assert isinstance(first.seed, int) and 0 <= first.seed < 2**32
    again = soup_search(6, seed=first.seed, backend="numpy", max_gens=2000)
    assert again.seed == first.seed and again.counts == first.counts
