"""RunPlan: one frozen description of a run whose loops give the reference's cells whatever the chunking."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import tensorca
from tensorca.engines import get_engine
from tensorca.observers import Population, Samples
from tensorca.rules import parse_rule
from tensorca.simulate import RunPlan, boundaries, plan, run
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
    assert list(boundaries(0, 5)) == [0]
    assert list(boundaries(10)) == [10]
    assert list(boundaries(10, 4, None, 3)) == [3, 4, 6, 8, 9, 10]
    assert list(boundaries(12, 4, 4, 6)) == [4, 6, 8, 12]


@pytest.mark.parametrize("generations", [0, 1, 7, 12, 60, 61, 97])
@pytest.mark.parametrize("steps", [(), (None,), (5,), (4, 6), (3, 3), (2, 5, 7), (100,)])
def test_count_segments_counts_what_boundaries_makes(generations, steps):
    assert plan.count_segments(generations, *steps) == len(list(boundaries(generations, *steps)))


def test_boundaries_are_made_as_needed():
    """10^30 generations checkpointed at every one: the first ends at once, in no memory (a list of
    the ends took every byte there was: MemoryError under a 3 GB limit after 4 s at 10^9)."""
    ends = boundaries(10**30, 1, 10**28)
    assert [next(ends) for _ in range(3)] == [1, 2, 3]


def test_a_run_checkpointed_every_generation_starts_at_once(tmp_path):
    """10^9 generations, a checkpoint at each: stopped by its progress callback after three."""
    seen = []

    def progress(done, total):
        seen.append(done)
        if len(seen) == 3:
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        run(soup(1)[0], RULE, 10**9, backend="numpy", checkpoint=tmp_path / "c.npz", checkpoint_every=1,
            progress=progress)
    assert seen == [1, 2, 3]


def test_no_dense_engine_call_gets_more_than_max_segment(monkeypatch):
    """Dense kernels count generations in int64 (Numba refused 10^30 with a TypingError): runs are cut
    at multiples of MAX_SEGMENT, here made 5, and give the same cells."""
    monkeypatch.setattr(plan, "MAX_SEGMENT", 5)
    engine = get_engine("numpy")
    calls = []
    original = type(engine).advance

    def advance(self, cells, rule, topology, generations, *args, **kwargs):
        calls.append(generations)
        return original(self, cells, rule, topology, generations, *args, **kwargs)

    monkeypatch.setattr(type(engine), "advance", advance)
    batch = soup(2)
    out = run(batch, RULE, 12, backend="numpy")
    assert calls == [5, 5, 2] and np.array_equal(out, reference(batch, 12))


def test_a_pattern_on_a_grid_too_large_for_memory_is_a_memory_budget_error():
    """A 2x2 pattern on a 10^8 x 10^8 torus: refused before allocating (NumPy's MemoryError asking
    for 8.88 PiB escaped), and under a max_bytes budget smaller than the grid."""
    pattern = tensorca.Pattern(cells=np.ones((2, 2), np.uint8))
    with pytest.raises(tensorca.MemoryBudgetError, match=r"10,000,000,000,000,000 cells\) needs 9094.9 TiB"):
        run(pattern, "B3/S23:T100000000,100000000", 1)
    with pytest.raises(tensorca.MemoryBudgetError, match="1000 B is the max_bytes budget"):
        run(pattern, "B3/S23:T1000,1000", 1, max_bytes=1000)
