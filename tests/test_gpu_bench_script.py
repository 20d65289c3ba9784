"""The GPU benchmark and its summary (what ``scripts/gpu_check.sh`` runs on a CUDA machine), end to
end on the CPU in Triton's interpreter at toy sizes: device time is too scarce to find a broken
script there. The figures here mean nothing; the keys and the table are what is checked."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("triton", reason="bitpack-gpu needs Triton (pip install triton)")

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture
def bench_modules(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_bitpack
    import gpu_summary

    yield bench_bitpack, gpu_summary
    for name in ("bench_bitpack", "gpu_summary", "gpu_layouts"):
        sys.modules.pop(name, None)


def test_gpu_sweep_and_summary_run_in_the_interpreter(bench_modules, tmp_path):
    bench_bitpack, gpu_summary = bench_modules
    progress = tmp_path / "progress.json"
    result = bench_bitpack.gpu_bench(True, [16], [1], batches=[(24, 4)], device="cpu", total_gens=1,
                                     progress=progress)
    assert json.loads(progress.read_text()) == json.loads(json.dumps(result))  # rewritten after every grid
    single, batch = result["rows"]
    assert single["grid"] == "16^2" and batch["grid"] == "24 x 4^2"
    for row in (single, batch):
        for key in ("g1_32x32", "g1_64x16", "g1_128x8", "g1_32x32_w8", "g1_32x32_edges", "g1_32x32_plane", "whole",
                    "engine"):
            assert isinstance(row[key], float) and row[key] > 0, (row["grid"], key, row[key])
    for key in ("lanes_step", "lanes_whole", "lanes_step_w8", "lanes_whole_w8", "lanes_step_edges",
                "lanes_whole_plane"):
        assert isinstance(batch[key], float), (key, batch[key])
    assert (single["engine_layout"], batch["engine_layout"]) == ("rows", "lanes")
    assert batch["bytes_per_gen"] == 2 * 24 * 16 // 8
    path = tmp_path / "bitpack_gpu.json"
    path.write_text(json.dumps(result))
    table = gpu_summary.bitpack_rows(path)
    lines = [line for line in table.splitlines() if line.startswith("| 24 x 4^2")]
    assert len(lines) == 1 and "(lanes)" in lines[0], table
    assert "24 x 4^2 end to end" not in table  # no single grid of 384 cells to compare with
    assert "- 24 x 4^2: torus rate / plane rate: one generation a launch" in table and "lanes whole" in table
    assert "- 16^2: interior tiles' path on / off: one generation a launch " in table
    assert "- 24 x 4^2: interior tiles' path on / off: one generation a launch" in table and "lanes step" in table
    assert all("_plane" not in line.split("|")[2] for line in table.splitlines() if line.startswith("| 16"))


def test_summary_reads_the_soup_census_table(bench_modules, tmp_path, monkeypatch, capsys):
    """gpu_summary pulls soups/s out of the table `tensorca soup` prints (the CLI run for real)."""
    import subprocess

    _, gpu_summary = bench_modules
    command = ["-m", "tensorca", "soup", "--count", "20", "--seed", "1", "--backend", "bitpack-cpu", "--no-progress"]
    log = subprocess.run([sys.executable, *command], capture_output=True, text=True, timeout=300, check=True).stdout
    (tmp_path / "soups.txt").write_text(log)
    rate = gpu_summary.table_value(tmp_path / "soups.txt", "soups/s")
    assert float(rate) > 0, rate
    assert gpu_summary.table_value(tmp_path / "soups.txt", "engine").startswith("bitpack-cpu")
    spent = gpu_summary.table_value(tmp_path / "soups.txt", "where the time went")
    assert spent.startswith("stepping ") and spent.split(", ")[-1].startswith("rest "), spent
    wrapped = tmp_path / "wrapped.txt"  # a value rich wrapped onto a second line is read whole
    wrapped.write_text("│ time    │ 1.0 s       │\n│ where   │ stepping 1 s, │\n│         │ rest 2 s      │\n"
                       "│ soups/s │ 5.0         │\n")
    assert gpu_summary.table_value(wrapped, "where") == "stepping 1 s, rest 2 s"
    assert gpu_summary.table_value(wrapped, "time") == "1.0 s"
    monkeypatch.setattr(sys, "argv", ["gpu_summary.py", str(tmp_path), "Test GPU", "torch x, triton y"])
    gpu_summary.main()
    report = capsys.readouterr().out
    assert f"{rate} soups/s" in report and "(no bitpack_gpu.json)" in report
    assert f"where the time went: {spent}" in report


def test_layout_sweep_runs_in_the_interpreter_and_suggests_thresholds(bench_modules, tmp_path):
    """gpu_layouts.py end to end at toy sizes (the four rates a batch), then its suggestions on
    figures made up to put the changeovers where the assertions say."""
    import gpu_layouts

    _, gpu_summary = bench_modules
    progress = tmp_path / "layouts.json"
    result = gpu_layouts.sweep("cpu", sides=[4], batches=[2, 3], gens=1, progress=progress)
    assert json.loads(progress.read_text()) == json.loads(json.dumps(result))
    assert [row["batch"] for row in result["rows"]] == [2, 3]
    for row in result["rows"]:
        for key in ("rows", "lanes", "lanes_step", "lanes_whole"):
            assert isinstance(row[key], float) and row[key] > 0, (key, row[key])

    def rows(side, figures):  # (batch, rows, lanes, step, whole)
        return [{"side": side, "batch": b, "groups": -(-b // 32), "rows": r, "lanes": la, "lanes_step": st,
                 "lanes_whole": wh} for b, r, la, st, wh in figures]

    made_up = {"sms": 132, "gens": 256, "lanes_min_batch_now": 24, "lanes_whole_min_groups_now": 0.25,
               "rows": rows(64, [(8, 5, 9, 2, 1), (16, 5, 4, 2, 1), (32, 5, 6, 2, 3), (1056, 5, 6, 2, 3)])
               + rows(16, [(8, 5, 4, 2, 1), (4096, 5, 4, "error: X", 3)])}
    found = gpu_layouts.suggest(made_up)
    # 64^2: lanes lose at 16, so from 32 (not 8); whole wins from 1 group (32 grids) of 132 SMs
    assert found[64] == {"lanes_min_batch": 32, "lanes_whole_min_groups": 1 / 132}
    assert found[16] == {"lanes_min_batch": None, "lanes_whole_min_groups": None}  # an error is no win
    table = gpu_layouts.markdown(made_up)
    assert "| 32 x 64^2 | 1 | 0.0 | 0.0 | 1.20 |" in table and "| 4096 x 16^2 | 128 |" in table
    assert "- 64^2: lanes win from 32 grids (LANES_MIN_BATCH now 24); the whole-group kernel wins from 0.008" in table
    assert "- 16^2: rows win at the largest batch" in table and "the one-generation kernel wins at the" in table
    (tmp_path / "layouts.json").write_text(json.dumps(made_up))
    assert gpu_summary.layout_rows(tmp_path / "layouts.json").startswith("Batches of B3/S23 tori")
    assert gpu_summary.layout_rows(tmp_path / "missing.json") == "(no layouts.json)\n"


def test_gpu_check_steps_fit_one_device_call():
    """The device runs one command for at most 600 s: the steps' own limits leave room for the
    start-up and the summary, and every step has a unique name for GPU_CHECK_ONLY reruns."""
    import re

    script = (BENCHMARKS.parent / "scripts" / "gpu_check.sh").read_text()
    steps = re.findall(r"^step (\w+) (\d+) ", script, flags=re.MULTILINE)
    names = [name for name, _ in steps]
    assert len(steps) >= 9 and len(set(names)) == len(names), names
    assert sum(int(limit) for _, limit in steps) <= 580, steps


_LOG_PREFIX = "V1202 08:19:11.059000 4928 torch/_inductor/graph.py:2722] [0/0] [__output_code] "
INDUCTOR_TRITON_CODE = [  # a Triton kernel as Inductor logs it on CUDA, then the start of its caller
    "triton_poi_fused_add_roll_0 = async_compile.triton('triton_poi_fused_add_roll_0', \'\'\'",
    "@triton.jit",
    "def triton_poi_fused_add_roll_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):",
    "    tmp0 = tl.load(in_ptr0 + (x2), None)",
    "    tmp1 = tl.load(in_ptr0 + (8192*x1 + ((8191 + x0) % 8192)), None, eviction_policy='evict_last')",
    "    tl.store(out_ptr0 + (x2), tmp0 + tmp1, None)",
    "\'\'\', device_str='cuda')",
    "def call(args):",
    "    tmp = tl.load(never_a_kernel)",
]


def test_summary_counts_the_loads_of_the_kernels_inductor_generated(bench_modules, tmp_path):
    """The Inductor code the compiled run logs (TORCH_LOGS_OUT, as gpu_check.sh sets it): a Triton
    kernel as Inductor logs it on CUDA, then the CPU's own compiled B3/S23 steps for real, a cell a
    byte (path count) and four cells a word (one C++ kernel each)."""
    import os
    import subprocess

    _, gpu_summary = bench_modules
    assert gpu_summary.inductor_kernels(tmp_path / "none.txt") == "(no inductor_output_code.txt)\n"
    (tmp_path / "triton.txt").write_text("".join(_LOG_PREFIX + line + "\n" for line in INDUCTOR_TRITON_CODE))
    report = gpu_summary.inductor_kernels(tmp_path / "triton.txt")
    assert "1 kernel(s)" in report and "graph 0/0: triton_poi_fused_add_roll_0: 2 loads, 1 at wrapped" in report
    log = tmp_path / "inductor_output_code.txt"
    env = dict(os.environ, TORCH_LOGS="output_code", TORCH_LOGS_OUT=str(log), PYTHONPATH="src")
    command = [sys.executable, str(BENCHMARKS / "bench_torch.py"), "--device", "cpu", "--rule", "B3/S23",
               "--gens", "1", "--repeats", "1", "--case", "32", "--variants", "torch:count+compile,torch:compile",
               "--markdown"]
    subprocess.run(command, capture_output=True, text=True, timeout=600, check=True, env=env,
                   cwd=BENCHMARKS.parent)
    report = gpu_summary.inductor_kernels(log)
    # One kernel a graph (each numbers its kernels from 0): a cell a byte reads the rule table and
    # the nine cells, eight at wrapped indices; four cells a word reads the nine words around.
    assert "Inductor generated 2 kernel(s)" in report, report
    kernels = {line.split(":")[0]: line.rsplit(": ", 1)[1] for line in report.splitlines() if line.startswith("- ")}
    assert kernels == {"- graph 0/0": "10 loads, 8 at wrapped indices", "- graph 1/0": "9 loads, 8 at wrapped indices"}
