"""Memory planning: bytes per engine, chunked batches identical to unchunked, OOM recovery, clear errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorca
from tensorca.engines import get_engine
from tensorca.engines.base import Engine
from tensorca.errors import MemoryBudgetError
from tensorca.rules import parse_rule
from tensorca.simulate import Population, plan_chunk, run

torch = pytest.importorskip("torch")


def soup(batch=7, h=20, w=24, seed=3):
    return (np.random.default_rng(seed).random((batch, h, w)) < 0.4).astype(np.uint8)


@pytest.mark.parametrize("name", ["numpy", "torch", "bitpack-cpu", "dense-conv"])
def test_every_engine_reports_bytes_growing_with_batch_and_cells(name):
    engine = get_engine(name)
    rule = parse_rule("B3/S23")
    one = engine.bytes_needed(1, (64, 64), rule)
    assert one >= 64 * 64  # at least the cells themselves
    assert engine.bytes_needed(4, (64, 64), rule) > 3 * one // 2
    assert engine.bytes_needed(1, (128, 128), rule) > one


@pytest.mark.parametrize("name,rule", [("numpy", "345/2/4"), ("torch", "B2-a/S12"), ("bitpack-cpu", "B3/S23"),
                                       ("numpy", "R2,C0,M1,S4..6,B5..6,NM")])
def test_chunked_equals_unchunked_with_a_small_budget(name, rule):
    grid = soup()
    engine = get_engine(name)
    per_grid = engine.bytes_needed(2, (20, 24), parse_rule(rule)) - engine.bytes_needed(1, (20, 24), parse_rule(rule))
    budget = engine.bytes_needed(1, (20, 24), parse_rule(rule)) + 2 * per_grid  # 3 grids per chunk
    assert plan_chunk(engine, 7, (20, 24), parse_rule(rule), "cpu", budget) == 3
    pop_a, pop_b = Population(every=3), Population(every=3)
    a = run(grid, rule, 17, backend=name, max_bytes=budget, observe=pop_a)
    b = run(grid, rule, 17, backend=name, observe=pop_b)
    assert a.tolist() == b.tolist()
    assert (pop_a.values == pop_b.values).all() and (pop_a.generations == pop_b.generations).all()


def test_chunked_torch_tensor_input_comes_back_as_a_tensor():
    grid = torch.from_numpy(soup())
    out = run(grid, "B3/S23", 5, backend="torch", max_bytes=get_engine("torch").bytes_needed(2, (20, 24)))
    assert isinstance(out, torch.Tensor) and out.device == grid.device
    assert out.numpy().tolist() == run(soup(), "B3/S23", 5, backend="numpy").tolist()


class FakeOOMEngine(Engine):
    """The NumPy reference, but 'out of memory' for batches above ``limit`` (as torch.cuda raises it)."""

    name = "fake-oom"

    def __init__(self, limit: int):
        self.limit = limit
        self.calls: list[int] = []
        self.inner = get_engine("numpy")

    def supports(self, rule, topology):
        return self.inner.supports(rule, topology)

    def advance(self, cells, rule, topology, generations):
        self.calls.append(int(cells.shape[0]))
        if cells.shape[0] > self.limit:
            raise torch.cuda.OutOfMemoryError(f"CUDA out of memory (fake: batch {cells.shape[0]} > {self.limit})")
        return self.inner.advance(cells, rule, topology, generations)


def test_simulated_oom_halves_the_chunk_and_keeps_finished_chunks():
    grid = soup(batch=10)
    engine = FakeOOMEngine(limit=3)
    out = run(grid, "B3/S23", 9, backend=engine)
    assert out.tolist() == run(grid, "B3/S23", 9, backend="numpy").tolist()
    # 10 fails, 5 fails, then chunks of 2 succeed; no chunk that succeeded ran twice.
    assert engine.calls[:2] == [10, 5]
    succeeded = [c for c in engine.calls if c <= 3]
    assert sum(succeeded) == 10


def test_simulated_oom_with_checkpoints_and_observer(tmp_path):
    grid = soup(batch=6)
    engine = FakeOOMEngine(limit=2)
    pop = Population(every=2)
    out = run(grid, "B3/S23", 8, backend=engine, observe=pop, checkpoint=tmp_path / "c.npz", checkpoint_every=4)
    ref_pop = Population(every=2)
    assert out.tolist() == run(grid, "B3/S23", 8, backend="numpy", observe=ref_pop).tolist()
    assert (pop.values == ref_pop.values).all()


def test_oom_even_for_one_grid_is_a_clear_error():
    engine = FakeOOMEngine(limit=0)
    with pytest.raises(MemoryBudgetError, match="out of memory even for one grid"):
        run(soup(batch=2), "B3/S23", 3, backend=engine, max_bytes=1 << 30)


def test_a_grid_that_cannot_fit_reports_needed_available_and_a_suggestion():
    with pytest.raises(MemoryBudgetError) as info:
        run(np.zeros((256, 256), np.uint8), "345/2/4", 1, backend="numpy", max_bytes=100_000)
    err = info.value
    assert err.needed > err.available == 100_000
    text = str(err)
    assert "256x256" in text and "needs about" in text and "available" in text and "try" in text
    assert isinstance(err, tensorca.TensorcaError)
