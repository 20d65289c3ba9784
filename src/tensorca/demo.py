"""``make demo``: a short showcase of pattern files, the unbounded plane and random soups.

Prints, for each run, the engine ``backend="auto"`` chose, generations, population and cell updates
per second. With only the base install (NumPy) every run uses the reference engine; with PyTorch or
Numba installed (``make test`` installs both) the faster engines take over where they pay.
"""

from __future__ import annotations

import time

from rich.console import Console
from rich.table import Table

from . import io as pattern_io
from .data import pattern_path
from .simulate import explain, run
from .random_grids import random_soup


def main() -> None:
    console = Console()
    table = Table(title="tensorca demo: B3/S23, backend=\"auto\", soups of density 0.5")
    table.add_column("run", no_wrap=True)
    table.add_column("engine", no_wrap=True)
    for column in ("gens", "alive", "seconds", "updates/s"):
        table.add_column(column, justify="right", no_wrap=True)

    for name, gens, note in (("r_pentomino.rle", 1103, "R-pentomino"), ("gosper_gun.rle", 300, "Gosper gun")):
        pattern = pattern_io.load(pattern_path(name))
        engine = explain(pattern, generations=gens).engine
        began = time.perf_counter()
        final = run(pattern, generations=gens)
        seconds = time.perf_counter() - began
        table.add_row(f"{note}, unbounded", engine, str(gens), str(final.population), f"{seconds:.2f}", "-")

    for size, gens in ((256, 500), (1024, 200)):
        soup = random_soup(size, size, density=0.5, seed=1)
        engine = explain(soup, "B3/S23", gens).engine
        began = time.perf_counter()
        final_soup = run(soup, "B3/S23", gens)
        seconds = time.perf_counter() - began
        table.add_row(f"soup {size}x{size} torus", engine, str(gens), str(int((final_soup != 0).sum())),
                      f"{seconds:.2f}", f"{size * size * gens / seconds / 1e6:,.0f} M")
    console.print(table)
    console.print("The R-pentomino stabilises at generation 1103 with 116 cells. Next: "
                  "[bold].venv/bin/tensorca run --soup 256x256 --gens 500[/bold], "
                  "[bold].venv/bin/tensorca verify[/bold] (needs make test's extras)")


if __name__ == "__main__":
    main()
