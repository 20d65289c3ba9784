"""Every case Golly computed passes on the NumPy reference engine: final hash and population trace."""

from __future__ import annotations

import pytest

from tensorca import io as pattern_io
from tensorca.rules import parse_spec
from tensorca.simulate import run

from .conftest import golden_cases, sha256_grid

CASES = golden_cases()




@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_canonical_rule_matches_golly(case):
    rule, topology = parse_spec(case["rule"])
    suffix = topology.suffix() if topology else ""
    assert rule.canonical() + suffix == case["golly_canonical_rule"]
    assert rule.n_states == case["states"]


# Bounded cases: tests/test_engine_contract.py runs every one on every engine, the reference
# included (whole population trace and final hash).


@pytest.mark.parametrize("case", [c for c in CASES if c["topology"] == "unbounded_plane"], ids=lambda c: c["name"])
def test_unbounded_case(case):
    pattern = pattern_io.loads(case["initial_rle"])
    assert pattern.topology.kind == "unbounded"
    start_origin = pattern.origin
    trace = [pattern.population]
    for _ in range(case["generations"]):
        pattern = run(pattern, generations=1)
        trace.append(pattern.population)
    assert trace == case["population_trace"]
    box = case["final_bbox"]
    assert pattern.cells.shape == (box["height"], box["width"])
    assert (pattern.origin[0] - start_origin[0], pattern.origin[1] - start_origin[1]) == (box["x"], box["y"])
    assert sha256_grid(pattern.cells) == case["final_sha256"]
    assert pattern.generation == case["generations"]


def test_run_many_generations_equals_one_at_a_time(golden):
    """Chunked multi-generation calls compute the same as single steps (unbounded growth included)."""
    case = golden["rpentomino_plane_1103"]
    pattern = pattern_io.loads(case["initial_rle"])
    final = run(pattern, generations=case["generations"])
    assert sha256_grid(final.cells) == case["final_sha256"]
    assert final.population == 116
