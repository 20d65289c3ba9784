"""RunPlan: one frozen description of a run whose loops give the reference's cells whatever the chunking."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import tensorca
from tensorca.engines import get_engine
from tensorca.observers import Population, Samples
from tensorca.rules import parse_rule
from tensorca.simulate import RunPlan, boundaries, run
from tensorca.topology import Topology

RULE = parse_rule("B36/S23")


def reference(batch: np.ndarray, generations: int) -> np.ndarray:
    """One generation at a time with the NumPy reference engine, on the torus of the grid."""
    engine = get_engine("numpy")
    topology = Topology.torus(batch.shape[2], batch.shape[1])
    for _ in range(generations):
        batch = engine.advance(batch, RULE, topology, 1)
    return batch


def soup(batch: int = 5) -> np.ndarray:
    return (np.random.default_rng(7).random((batch, 14, 18)) < 0.4).astype(np.uint8)


def test_a_plan_is_frozen():
    plan = RunPlan(get_engine("numpy"), RULE, Topology.torus(18, 14), 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.generations = 4  # type: ignore[misc]


@pytest.mark.parametrize("max_bytes", [None, 1, 2])
def test_whole_and_chunked_batches_give_the_reference_and_the_same_populations(max_bytes):
    engine = get_engine("numpy")
    cells = soup()
    if max_bytes is not None:  # room for max_bytes grids per engine call
        max_bytes = engine.bytes_needed(max_bytes, (14, 18), RULE)
    observer = Population(every=3)
    samples = Samples(observer)
    reports: list[tuple[int, int]] = []
    plan = RunPlan(engine, RULE, Topology.torus(18, 14), 20, max_bytes=max_bytes, samples=samples,
                   progress=lambda done, total: reports.append((done, total)), start=4)
    out = plan.advance_batch(cells)
    samples.finish(5)
    assert np.array_equal(out, reference(cells, 20))
    assert reports[-1] == (20, 20)
    assert observer.generations.tolist() == [4, 6, 9, 12, 15, 18, 21, 24]
    expected = [np.count_nonzero(reference(cells, g - 4), axis=(1, 2)) for g in observer.generations]
    assert np.array_equal(observer.values, np.stack(expected))


def test_unbounded_plan_matches_run_and_samples_every_k():
    gun = tensorca.load("src/tensorca/data/patterns/gosper_gun.rle")
    observer = Population(every=7)
    samples = Samples(observer)
    plan = RunPlan(get_engine("numpy"), gun.rule, Topology.unbounded(), 60, samples=samples)
    cells, origin = plan.advance_unbounded(np.asarray(gun.cells)[None], gun.origin)
    samples.finish(1)
    whole = run(gun, generations=60, backend="numpy")
    assert np.array_equal(cells[0], whole.cells) and origin == whole.origin
    assert observer.generations.tolist() == [0, 7, 14, 21, 28, 35, 42, 49, 56]
    assert observer.values[:, 0].tolist() == [run(gun, generations=int(g), backend="numpy").population
                                              for g in observer.generations]


def test_boundaries_end_every_segment_at_a_multiple_or_the_end():
    assert boundaries(0, 5) == [0]
    assert boundaries(10) == [10]
    assert boundaries(10, 4, None, 3) == [3, 4, 6, 8, 9, 10]
