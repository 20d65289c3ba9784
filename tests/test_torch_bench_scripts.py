"""The torch engine's benchmark scripts (what ``scripts/gpu_check.sh`` runs on a CUDA machine), run
on the CPU: ``torch_traffic.py`` counts kernels and bytes a generation, ``bench_torch.py`` times the
variants and, with ``--ceiling``, sets each rate against its counted ceiling. The counter is checked
on operations whose traffic is known by hand."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from tensorca.rules import parse_rule  # noqa: E402
from tensorca.topology import Topology  # noqa: E402

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
CELLS = 128 * 128


@pytest.fixture
def scripts(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_torch
    import gpu_summary
    import torch_traffic

    yield torch_traffic, bench_torch, gpu_summary
    for name in ("torch_traffic", "bench_torch", "gpu_summary"):
        sys.modules.pop(name, None)


def _count(torch_traffic, fn):
    counter = torch_traffic._KernelCounter()
    with counter:
        fn()
    return counter.calls


def test_counter_counts_kernels_and_grid_bytes_only(scripts):
    torch_traffic, _, _ = scripts
    a = torch.ones((1, 128, 128), dtype=torch.uint8)
    b = torch.ones_like(a)
    table = torch.arange(20, dtype=torch.uint8)
    # add: read 2 B, write 1 B; to int32: read 1, write 4; a view is no kernel; empty allocates only.
    calls = _count(torch_traffic, lambda: ((a + b).to(torch.int32), a[:, 1:, :].view(-1), torch.empty_like(a)))
    assert calls == [("add", 3 * CELLS), ("_to_copy", 5 * CELLS)]
    # copy_ reads one tensor and writes the other (the result is the target, counted once); the
    # 20-entry table is read from cache, the int64 index is not.
    index = torch.zeros(CELLS, dtype=torch.int64)
    target = torch.empty_like(a)
    calls = _count(torch_traffic, lambda: (target.copy_(a), table.index_select(0, index)))
    assert calls == [("copy_", 2 * CELLS), ("index_select", 9 * CELLS)]


def test_one_generation_is_the_inserted_block(scripts):
    torch_traffic, _, _ = scripts
    setup, step, teardown = [("a", 1)], [("b", 2), ("c", 3)], [("d", 4)]
    assert torch_traffic.one_generation(setup + step + teardown, setup + step + step + teardown) == step
    # teardown that starts like the step: still one step's worth of calls
    assert sorted(torch_traffic.one_generation(setup + step + step[:1], setup + step + step + step[:1])) == sorted(step)
    with pytest.raises(RuntimeError):
        torch_traffic.one_generation(setup + step + teardown, setup + step + teardown)


@pytest.mark.parametrize("rule_text", ["B3/S23", "B2-a/S12", "3457/357/5"])
def test_eager_count_equals_one_call_of_the_step(scripts, rule_text):
    """Counting two runs and subtracting gives exactly the calls of one step function call."""
    torch_traffic, _, _ = scripts
    rule = parse_rule(rule_text)
    counted = torch_traffic.count_variant("torch", rule, torch.device("cpu"), side=128)
    engine = torch_traffic.variant_engine("torch")
    cells = torch_traffic._grid(128, torch.device("cpu"))
    step = engine.step_function(rule, Topology.torus(128, 128), "cpu")
    direct = _count(torch_traffic, lambda: step(cells))
    assert counted.kernels == len(direct) >= 8
    assert counted.bytes_per_cell == pytest.approx(sum(moved for _, moved in direct) / CELLS)
    assert counted.ops == [name for name, _ in direct]
    graphs = torch_traffic.count_variant("torch:graphs", rule, torch.device("cpu"), side=128)
    assert (graphs.kernels, graphs.bytes_per_cell) == (counted.kernels, counted.bytes_per_cell)
    assert counted.ceiling(4.3e12) == pytest.approx(4.3e12 / counted.bytes_per_cell)


def test_count_refuses_grids_too_small_to_tell_from_tables(scripts):
    torch_traffic, _, _ = scripts
    with pytest.raises(ValueError, match="too small"):
        torch_traffic.count_variant("torch", parse_rule("B3/S23"), torch.device("cpu"), side=64)


def test_compiled_step_is_one_kernel_on_a_torus(scripts):
    """The compiled B3/S23 step fuses into one generated kernel, the torus padding included (a
    padding built with cat would stay two aten::cat passes outside it); the count sees them."""
    torch_traffic, _, _ = scripts
    counted = torch_traffic.count_variant("torch:compile", parse_rule("B3/S23"), torch.device("cpu"), side=128)
    assert counted.floor and counted.bytes_per_cell == 2.0
    assert (counted.kernels, counted.ops) == (1, [])
    conv = torch_traffic.count_variant("torch:conv+compile", parse_rule("B3/S23"), torch.device("cpu"), side=128)
    assert "convolution" in conv.ops and conv.kernels > len(conv.ops)  # conv2d stays a library call
    floor = torch_traffic.count_variant("torch:compile", parse_rule("B3/S23"), torch.device("cpu"),
                                        compile_kernels=False)
    assert floor.kernels is None and floor.moved() == ">= 2"


def test_traffic_cli_prints_the_table(scripts, capsys):
    torch_traffic, _, _ = scripts
    assert torch_traffic.main(["--variants", "dense-conv,torch", "--side", "128", "--markdown",
                               "--bandwidth", "1e12"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| torch")]
    assert len(rows) == 1
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    assert int(cells[1]) >= 8 and round(1e12 / float(cells[2]) / 1e9) == int(cells[3].replace(",", ""))
    # a variant that does not run the rule is named with the engine's reason, and the others still count
    assert torch_traffic.main(["--rule", "B2-a/S12", "--variants", "dense-conv,torch", "--side", "128"]) == 0
    out = capsys.readouterr().out
    assert "not counted: dense-conv: engine 'dense-conv' is the Life-like baseline" in out
    assert any(line.startswith("torch ") for line in out.splitlines())


def test_bench_torch_ceiling_columns_and_the_summarys_targets(scripts, capsys, tmp_path):
    _, bench_torch, gpu_summary = scripts
    assert bench_torch.main(["--device", "cpu", "--case", "128", "--case", "8:32x32", "--variants",
                             "dense-conv,torch", "--gens", "2", "--repeats", "1", "--markdown", "--ceiling"]) == 0
    out = capsys.readouterr().out
    assert "copy bandwidth" in out and "| case | engine | M cell updates/s | vs first | B/cell | of ceiling |" in out
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in out.splitlines() if line.startswith("| 128")]
    assert [row[1] for row in rows] == ["dense-conv", "torch"]
    for row in rows:
        assert float(row[4]) > 2 and row[5].endswith("%") and float(row[5][:-1]) > 0
    (tmp_path / "torch_eager.txt").write_text(out.replace("128x128", "8192x8192"))
    assert "- torch at 8192^2: best variant torch, " in gpu_summary.torch_targets(tmp_path / "torch_eager.txt")
