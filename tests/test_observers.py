"""Population observers: collected where the cells are, read once, identical across engines."""

from __future__ import annotations

import numpy as np
import pytest

import tensorca
from tensorca.simulate import Population, run

torch = pytest.importorskip("torch")


def reference_populations(grid, rule, gens, every, topology=None):
    pops, cur = [np.count_nonzero(grid, axis=(1, 2))], grid
    for g in range(1, gens + 1):
        cur = run(cur, rule, 1, backend="numpy", topology=topology)
        if g % every == 0:
            pops.append(np.count_nonzero(cur, axis=(1, 2)))
    return np.stack(pops)


@pytest.mark.parametrize("backend,rule", [("numpy", "B3/S23"), ("torch", "345/2/4"), ("bitpack-cpu", "B36/S23"),
                                          ("dense-conv", "B3/S23"), ("auto", "B2-a/S12")])
@pytest.mark.parametrize("every", [1, 4])
def test_population_matches_a_generation_by_generation_count(backend, rule, every):
    grid = (np.random.default_rng(5).random((3, 18, 22)) < 0.35).astype(np.uint8)
    pop = Population(every=every)
    out = run(grid, rule, 13, backend=backend, observe=pop)
    assert out.tolist() == run(grid, rule, 13, backend="numpy").tolist()
    assert pop.generations.tolist() == [0] + [g for g in range(1, 14) if g % every == 0]
    assert pop.values.shape == (len(pop.generations), 3) and pop.values.dtype == np.int64
    assert (pop.values == reference_populations(grid, rule, 13, every)).all()


def test_torch_observer_reads_the_device_once(monkeypatch):
    grid = torch.from_numpy((np.random.default_rng(1).random((2, 16, 16)) < 0.4).astype(np.uint8))
    reads = []
    real_cpu = torch.Tensor.cpu

    def counting_cpu(self, *a, **k):
        reads.append(tuple(self.shape))
        return real_cpu(self, *a, **k)

    monkeypatch.setattr(torch.Tensor, "cpu", counting_cpu)
    pop = Population(every=2)
    run(grid, "B3/S23", 10, backend="torch", observe=pop)
    assert len(reads) == 1  # the population, once, at the end (the result stays a tensor)
    assert pop.values.shape == (6, 2)


def test_pattern_on_the_unbounded_plane_counts_from_its_generation():
    glider = tensorca.loads("x = 3, y = 3\nbo$2bo$3o!")
    pop = Population(every=5)
    out = run(glider, generations=20, observe=pop)
    assert pop.generations.tolist() == [0, 5, 10, 15, 20]
    assert pop.values[:, 0].tolist() == [5] * 5
    pop2 = Population(every=5)
    run(out, generations=7, observe=pop2)
    assert pop2.generations.tolist() == [20, 25]


def test_csv_and_cli(tmp_path, capsys):
    from tensorca.cli import main

    path = tmp_path / "pop.csv"
    assert main(["run", "src/tensorca/data/patterns/r_pentomino.rle", "--gens", "30", "--population", str(path),
                 "--population-every", "10", "--no-progress"]) == 0
    lines = path.read_text().splitlines()
    assert lines[0] == "generation,population"
    assert [line.split(",")[0] for line in lines[1:]] == ["0", "10", "20", "30"]
    assert lines[1] == "0,5"


def test_bad_every_is_rejected():
    with pytest.raises(ValueError, match="positive integer"):
        Population(every=0)
