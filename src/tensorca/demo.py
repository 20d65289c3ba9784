"""``make demo``: a short showcase of pattern files, the unbounded plane and random soups.

Prints, for each run, the engine ``backend="auto"`` chose, generations, population and cell updates
per second, in a table that fits 80 columns. With only the base install (NumPy) every run uses the
reference engine, and the demo says which extra adds the fast engines (``pip install
'tensorca[fast]'``); with them installed, the faster engines take over where they pay.
"""

from __future__ import annotations

import time

from rich.console import Console
from rich.table import Table

from . import io as pattern_io
from .cli._console import tensorca_warnings
from .data import pattern_path
from .engines import available_engines
from .random_grids import random_soup
from .simulate import explain, run
from .verify import install_hints

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
        engine = explain(pattern, generations=gens).engine
        began = time.perf_counter()
        final = run(pattern, generations=gens)
        seconds = time.perf_counter() - began
        rows.add_row(label, engine, str(gens), str(final.population), f"{seconds:.2f}", "-")
    for side, gens in SOUPS:
        soup = random_soup(side, side, density=0.5, seed=1)
        engine = explain(soup, "B3/S23", gens).engine
        began = time.perf_counter()
        final_soup = run(soup, "B3/S23", gens)
        seconds = time.perf_counter() - began
        rows.add_row(f"soup {side}x{side} torus", engine, str(gens), str(int((final_soup != 0).sum())),
                     f"{seconds:.2f}", f"{side * side * gens / max(seconds, 1e-9) / 1e6:,.0f} M")
    return rows


def main() -> None:
    console = Console(width=min(Console().width, 80))
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
