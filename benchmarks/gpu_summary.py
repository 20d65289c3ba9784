"""Summarise one `scripts/gpu_check.sh` run as Markdown for BENCHMARKS.md.

Usage: python benchmarks/gpu_summary.py RESULTS_DIR "GPU NAME" "torch X, triton Y"

Reads the logs and JSON that gpu_check.sh left in RESULTS_DIR (contract.txt, tests.txt,
kernels.txt, verify.txt, torch_eager.txt, torch_compiled.txt, inductor_output_code.txt,
bitpack_gpu.json, soups.txt, layouts.json, bench.txt) and prints a short report: the test and
verify verdicts, the torch tables as measured (each rate also as a share of its counted ceiling),
the kernels Inductor generated for the compiled step and their loads, for each bit-packed grid
the best configuration against the counted memory floor (one read and one write of every cell's
bit per generation) and the engine end to end, the soup census rate, and where the batch layouts
change over.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

#: Device-to-device copy bandwidth measured on this workplace's H200s (bytes read + written).
MEASURED_BANDWIDTH = 4.3e12


def last_line(path: Path) -> str:
    if not path.exists():
        return "(no log)"
    lines = [line for line in path.read_text(errors="replace").splitlines() if line.strip()]
    return lines[-1] if lines else "(empty)"


def table_value(path: Path, label: str) -> str:
    """The value beside ``label`` in a rich table the CLI printed (``tensorca soup``'s summary),
    with the lines it wrapped onto joined."""
    if not path.exists():
        return "(no log)"
    found: list[str] = []
    for line in path.read_text(errors="replace").splitlines():
        cells = [c.strip() for c in line.strip().strip("│|").split("│")]
        if not found:
            if len(cells) >= 2 and cells[0] == label:
                found.append(cells[1])
        elif len(cells) >= 2 and cells[0] == "":  # the value wrapped onto the next line
            found.append(cells[1])
        else:
            break
    return " ".join(found) if found else f"(not found; last line: {last_line(path)})"


def markdown_tables(path: Path) -> str:
    if not path.exists():
        return "(no log)\n"
    lines = [line for line in path.read_text(errors="replace").splitlines() if line.startswith("|")]
    return "\n".join(lines) + "\n" if lines else f"(no table; last line: {last_line(path)})\n"


_LOGGED = re.compile(r"\[(\d+/\d+)\] \[__output_code\] ")
_KERNEL_START = re.compile(r"^(\w+) = async_compile\.(triton|cpp_pybinding|cpp)\(")
# A Triton load; a C++ kernel's scalar read of an input, or its vector load (``loadu``).
_LOAD = re.compile(r"tl\.load\(|\bin_ptr\d+\[|loadu\(in_ptr\d+")


def inductor_kernels(path: Path) -> str:
    """What the Inductor code a ``TORCH_LOGS=output_code`` run logged holds: each kernel it
    generated (Triton on CUDA, C++ on the CPU), its loads, and how many of them read at a wrapped
    (``%``) index. A wrapped index hides the contiguity of what it reads from the compiler (on the CPU
    the compiled B3/S23 step is a scalar loop of one-byte loads), so such loads may stay one byte
    each; a device run shows whether that keeps the fused kernel from its bandwidth ceiling."""
    if not path.exists():
        return "(no inductor_output_code.txt)\n"
    kernels: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in path.read_text(errors="replace").splitlines():
        # "[frame/recompile] [__output_code] code": each compiled graph numbers its kernels from 0.
        logged = _LOGGED.search(line)
        graph, line = (logged.group(1), line[logged.end():]) if logged else ("", line)
        start = _KERNEL_START.match(line)
        if start:
            current = kernels.setdefault(f"graph {graph}: {start.group(1)}" if graph else start.group(1), [])
        elif current is not None and line.startswith("'''"):
            current = None
        elif current is not None:
            current.append(line)
    if not kernels:
        return "(no generated kernel in inductor_output_code.txt)\n"
    lines = []
    for name, body in kernels.items():
        # Inductor writes one load a line: the load's index is the rest of its line.
        loads = [line[m.start():] for line in body for m in _LOAD.finditer(line)]
        wrapped = sum("%" in load for load in loads)
        lines.append(f"- {name}: {len(loads)} loads, {wrapped} at wrapped indices")
    return f"Inductor generated {len(kernels)} kernel(s) (inductor_output_code.txt):\n\n" + "\n".join(lines) + "\n"


def torch_targets(*paths: Path) -> str:
    """The issue's two torch targets from the eager/compiled tables: 8192^2 CUPS, batched vs serial."""
    cups: dict[tuple[str, str], float] = {}
    for path in paths:
        if not path.exists():
            continue
        for line in path.read_text(errors="replace").splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) >= 3 and cells[2].replace(",", "").replace(".", "").isdigit():
                cups[(cells[0], cells[1])] = float(cells[2].replace(",", "")) * 1e6
    out = []
    best_8192 = max(((v, eng) for (case, eng), v in cups.items() if case == "8192x8192" and eng.startswith("torch")),
                    default=None)
    if best_8192 is not None:
        out.append(f"- torch at 8192^2: best variant {best_8192[1]}, {best_8192[0] / 1e12:.2f} T CUPS (target >= 1 T)")
    batched = cups.get(("4096 x 64x64", "torch"))
    serial = cups.get(("4096 x 64x64 one at a time", "torch"))
    if batched and serial:
        out.append(f"- 4096 x 64^2 batched vs one at a time (torch): {batched / serial:.0f}x per cell (target >= 50x)")
    return "\n".join(out) + "\n" if out else "(torch targets: no figures)\n"


def _ratios(row: dict, title: str, suffix: str, keys: dict[str, str]) -> list[str]:
    """A line ``- grid: title: name ratio, ...`` of ``row[key] / row[key + suffix]`` for each
    ``name: key`` measured both ways; no line when none was."""
    found = [f"{name} {row[key] / row[key + suffix]:.2f}" for name, key in keys.items()
             if isinstance(row.get(key), (int, float)) and isinstance(row.get(key + suffix), (int, float))
             and row[key + suffix] > 0]
    return [f"\n- {row['grid']}: {title}: {', '.join(found)}"] if found else []


def bitpack_rows(path: Path) -> str:
    """One row per grid: the fastest kernel configuration (row-packed launches, graph replay, or
    lane-per-grid for batches) against the floor, the engine end to end, and dense-conv; then the
    batches' end-to-end rate against one big grid's."""
    if not path.exists():
        return "(no bitpack_gpu.json)\n"
    data = json.loads(path.read_text())
    out = ["| grid | best kernel config | best CUPS | 1 gen/launch (rows) | lanes step / whole | floor (1 pass) | "
           "best / floor | engine end to end (layout) | dense-conv |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]

    def tera(value) -> str:
        return f"{value / 1e12:.2f} T" if isinstance(value, (int, float)) else "-"

    floor = MEASURED_BANDWIDTH * 8 / 2  # cells a second when each cell's bit is read and written once
    engine_rates = {}
    for row in data["rows"]:
        numeric = {k: v for k, v in row.items() if isinstance(v, (int, float)) and not k.endswith("_plane")
                   and (k.startswith(("g", "lanes_")) or k in ("whole", "graph_step")) and k != "gens"}
        if not numeric:
            continue
        best_key = max(numeric, key=numeric.get)
        one = next((v for k, v in numeric.items() if k.startswith("g1_")), None)
        lanes = f"{tera(row.get('lanes_step'))} / {tera(row.get('lanes_whole'))}" if "lanes_step" in row else "-"
        engine = row.get("engine")
        if isinstance(engine, (int, float)):
            engine_rates[row["grid"]] = (engine, row["cells"], row["batch"])
        conv = row.get("dense_conv")
        out.append(
            f"| {row['grid']} | {best_key} | {tera(numeric[best_key])} | {tera(one)} | {lanes} | "
            f"{floor / 1e12:.1f} T | {numeric[best_key] / floor:.2f} | "
            f"{tera(engine)} ({row.get('engine_layout', '?')}) | "
            + (f"{conv / 1e9:.0f} G |" if isinstance(conv, (int, float)) else "- |")
        )
    for row in data["rows"]:
        # what the torus's wrapped columns cost (layout conversions, gpu_static.py)
        out += _ratios(row, "torus rate / plane rate", "_plane",
                       {"one generation a launch": "g1_32x32", "lanes whole": "lanes_whole"})
        out += _ratios(row, "interior tiles' path on / off", "_edges",
                       {"one generation a launch": "g1_32x32", "lanes step": "lanes_step"})
    big = {cells: rate for rate, cells, batch in engine_rates.values() if batch == 1}
    for grid, (rate, cells, batch) in engine_rates.items():
        if batch > 1 and cells in big:
            out.append(f"\n- {grid} end to end: {rate / big[cells]:.2f}x one grid with the same cell count")
    return "\n".join(out) + "\n"


def layout_rows(path: Path) -> str:
    """gpu_layouts.py's table and suggested thresholds (batch layouts and kernels), if it ran."""
    if not path.exists():
        return "(no layouts.json)\n"
    from gpu_layouts import markdown  # beside this module, so on sys.path wherever it was imported from

    return markdown(json.loads(path.read_text())) + "\n"


def main() -> None:
    results, gpu, versions = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    print(f"## GPU: {gpu} ({time.strftime('%Y-%m-%d')}, {versions})\n")
    print("Measured by `scripts/gpu_check.sh` (commands and logs in that script).\n")
    print(f"- tests on CUDA: {last_line(results / 'contract.txt')} (engine contract); "
          f"{last_line(results / 'tests.txt')} (torch engine, data); "
          f"{last_line(results / 'kernels.txt')} (Triton kernels)")
    print(f"- verify --device cuda: {last_line(results / 'verify.txt')}\n")
    print("torch engine (B3/S23, torus; M cell updates/s, ratio to the first variant):\n")
    print(markdown_tables(results / "torch_eager.txt"))
    print(markdown_tables(results / "torch_compiled.txt"))
    print(torch_targets(results / "torch_eager.txt", results / "torch_compiled.txt"))
    print(inductor_kernels(results / "inductor_output_code.txt"))
    print("bitpack-gpu (B3/S23, torus; floor = one read and one write of every cell's bit per generation at "
          f"{MEASURED_BANDWIDTH / 1e12:.1f} TB/s measured copy bandwidth):\n")
    print(bitpack_rows(results / "bitpack_gpu.json"))
    soups = results / "soups.txt"
    print(f"Batched soups (`tensorca soup --count 4000 --seed 1 --backend bitpack-gpu --batch 1024`): "
          f"{table_value(soups, 'soups/s')} soups/s, {table_value(soups, 'objects')} objects, "
          f"engine {table_value(soups, 'engine')}; where the time went: "
          f"{table_value(soups, 'where the time went')}\n")
    print("Where the batch layouts change over (`gpu_layouts.py`: rows vs lanes end to end, "
          "lanes_step vs lanes_whole):\n")
    print(layout_rows(results / "layouts.json"))
    print("tensorca bench --quick --device cuda,cpu (the table as printed):\n")
    bench_log = results / "bench.txt"
    print("```\n" + (bench_log.read_text(errors="replace")[-6000:] if bench_log.exists() else "(no log)") + "\n```")


if __name__ == "__main__":
    main()
