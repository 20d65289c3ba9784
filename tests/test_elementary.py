"""The native 1-D elementary CA API against facts about Wolfram's rules."""

from __future__ import annotations

import numpy as np
import pytest

from tensorca.elementary import elementary
from tensorca.errors import GridError, RuleError


def single_cell(width):
    row = np.zeros(width, dtype=np.uint8)
    row[width // 2] = 1
    return row


def test_rule_90_from_one_cell_is_pascals_triangle_mod_2():
    width, steps = 65, 31
    history = elementary(90, single_cell(width), steps)
    assert history.shape == (steps + 1, width) and history.dtype == np.uint8
    centre = width // 2
    for t in range(steps + 1):
        for x in range(width):
            k = x - centre + t
            expected = k % 2 == 0 and 0 <= k // 2 <= t and (t & (k // 2)) == k // 2
            assert history[t, x] == int(expected)


def test_rule_30_centre_column_starts_as_known():
    history = elementary(30, single_cell(101), 20)
    centre = history[:, 50]
    assert "".join(map(str, centre)) == "110111001100010110010"  # OEIS A051023


def test_all_256_rules_match_their_definition_on_a_ring():
    rng = np.random.default_rng(0)
    row = (rng.random(17) < 0.5).astype(np.uint8)
    for rule in range(256):
        history = elementary(rule, row, 3)
        for t in range(3):
            left, centre, right = np.roll(history[t], 1), history[t], np.roll(history[t], -1)
            expected = (rule >> (4 * left + 2 * centre + right)) & 1
            assert np.array_equal(history[t + 1], expected)


def test_odd_rules_and_dead_boundary():
    history = elementary(1, np.zeros(5, dtype=np.uint8), 2, boundary="dead")
    assert history[1].tolist() == [1, 1, 1, 1, 1]
    assert history[2].tolist() == [0, 0, 0, 0, 0]


@pytest.mark.parametrize("rule", [-1, 256, 3.5, "30"])
def test_bad_rule_numbers(rule):
    with pytest.raises(RuleError, match="0..255"):
        elementary(rule, np.zeros(4, dtype=np.uint8), 1)


def test_bad_inputs():
    with pytest.raises(GridError, match="1-D"):
        elementary(30, np.zeros((2, 2), dtype=np.uint8), 1)
    with pytest.raises(GridError, match="0 or 1"):
        elementary(30, np.array([0, 2]), 1)
    with pytest.raises(ValueError, match="non-negative"):
        elementary(30, np.array([0, 1]), -3)
    with pytest.raises(ValueError, match="boundary"):
        elementary(30, np.array([0, 1]), 1, boundary="mirror")  # type: ignore[arg-type]
