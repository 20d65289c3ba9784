"""``make demo``: a short showcase of pattern files, the unbounded plane and random soups.

Prints, for each run, the engine ``backend="auto"`` chose, generations, population and cell updates
per second, in a table that fits 80 columns. With only the base install (NumPy) every run uses the
reference engine, and the demo says which extra adds the fast engines (``pip install
'tensorca[fast]'``); with them installed, the faster engines take over where they pay.
"""

from __future__ import annotations

import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import io as pattern_io
from .cache_dirs import numba_cache_dir
from .cli._console import tensorca_warnings
from .data import pattern_path
from .engines import available_engines
from .random_grids import random_soup
from .simulate import decide, run
from .verify import install_hints
from .warmup import demo_jobs, warm_all

#: (bundled file, generations, label) of the pattern runs; (side, generations) of the soups.
PATTERNS = (("r_pentomino.rle", 1103, "R-pentomino, unbounded"), ("gosper_gun.rle", 300, "Gosper gun, unbounded"))
SOUPS = ((256, 500), (1024, 200))


def table() -> Table:
    """Run the showcase; one row per run (engine name only, so the table stays within 80 columns)."""
    rows = Table(title='tensorca demo: B3/S23, backend="auto", soups of density 0.5')
    rows.add_column("run", no_wrap=True)
    rows.add_column("engine", no_wrap=True)
    for column in ("gens", "alive", "seconds", "updates/s"):
        rows.add_column(column, justify="right", no_wrap=True)
    for name, gens, label in PATTERNS:
        pattern = pattern_io.load(pattern_path(name))
        decision = decide(pattern, generations=gens)  # what is printed is what runs
        began = time.perf_counter()
        final = run(pattern, generations=gens, backend=decision.engine, device=decision.device)
        engine = decision.engine.name
        seconds = time.perf_counter() - began
        rows.add_row(label, engine, str(gens), str(final.population), f"{seconds:.2f}", "-")
    for side, gens in SOUPS:
        soup = random_soup(side, side, density=0.5, seed=1)
        decision = decide(soup, "B3/S23", gens)
        began = time.perf_counter()
        final_soup = run(soup, "B3/S23", gens, backend=decision.engine, device=decision.device)
        engine = decision.engine.name
        seconds = time.perf_counter() - began
        rows.add_row(f"soup {side}x{side} torus", engine, str(gens), str(int((final_soup != 0).sum())),
                     f"{seconds:.2f}", f"{side * side * gens / max(seconds, 1e-9) / 1e6:,.0f} M")
    return rows


def warm_up(console: Console) -> None:
    """Compile (first use on this machine) or load the kernels the table's runs use, in worker
    processes with a progress bar, so that the table shows the engines' running speed."""
    jobs = demo_jobs()
    if not jobs:
        return
    began = time.perf_counter()
    with Progress(TextColumn("compiling kernels (first use; then cached)"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        task = bar.add_task("warmup", total=len(jobs))
        warm_all(jobs, on_done=lambda job, seconds, error: bar.advance(task))
    console.print(f"kernels ready in {time.perf_counter() - began:.1f} s ({len(jobs)} groups, cached in "
                  f"{numba_cache_dir()})", markup=False, highlight=False)


def main() -> None:
    console = Console(width=min(Console().width, 80))
    warm_up(console)
    with tensorca_warnings():  # "a faster engine is one extra away" as one line, not Python's two
        console.print(table())
    console.print("The R-pentomino stabilises at generation 1103 with 116 cells. Next:")
    for command in (".venv/bin/tensorca run --soup 256x256 --gens 500 --explain", ".venv/bin/tensorca verify"):
        console.print(f"  {command}", markup=False, highlight=False, soft_wrap=True)
    if all(engine.name == "numpy" for engine in available_engines()):
        for command, names in install_hints().items():  # the most preferred extra first
            console.print(f"Only the NumPy reference engine is installed; {command} adds {', '.join(names)}",
                          markup=False, highlight=False)
            break


if __name__ == "__main__":
    main()
