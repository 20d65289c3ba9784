"""``tensorca run --dask``: a grid cut into chunks on Dask workers, optionally larger than memory.

``tensorca run --soup 131072x131072 --dask --store grid.zarr --gens 1000 --checkpoint-every 100``
generates the soup chunk by chunk, runs it on the dask engine (each chunk on the best local engine,
halos exchanged every k generations) and writes the state to the zarr store every N generations and
at the end, chunk by chunk; ``tensorca run --resume grid.zarr --gens 1000`` continues it (in the same
store). Without ``--store`` the result is computed in memory. ``--workers K`` starts a local cluster of
K processes on 127.0.0.1 (``--worker-memory`` each), ``--scheduler ADDR`` joins a running one; by
default Dask's local threaded scheduler runs the chunks. ``--explain`` prints the chunking, ``k`` and
how the predicted time splits between compute, recomputed halo and exchange.

:func:`add_options` adds the options to ``tensorca run``; :func:`wanted` says when this module runs the
command (``--dask``, ``--store``, or ``--resume`` of a zarr store).
"""

from __future__ import annotations

import argparse
import os
import secrets
import time
from typing import Any

import numpy as np
from rich.table import Table

from .. import persist, simulate
from ..errors import UsageError
from ..pattern import Pattern
from ..rules.spec import resolve
from ..topology import Topology
from . import _args
from ._console import out, progress_bar, say
from ._start import rule_seed, soup_topology

#: Default chunk side in memory, and with a store (fewer, larger tasks for grids that need a disk).
CHUNKS, STORE_CHUNKS = 1024, 4096
#: Largest grid ``--out`` writes as a pattern file (cells).
MAX_OUT_CELLS = 1 << 28
#: ``tensorca run`` options that have no meaning on the dask engine.
NOT_WITH_DASK = ("population", "population_every", "checkpoint", "device", "max_bytes", "step", "exponential")


def add_options(parser: argparse.ArgumentParser) -> None:
    """The dask options of ``tensorca run``."""
    group = parser.add_argument_group("dask (grids on many cores or machines, larger than memory)")
    group.add_argument("--dask", action="store_true",
                       help="run on the dask engine: chunks on Dask workers, halos exchanged every k generations")
    group.add_argument("--store", metavar="DIR.zarr",
                       help="write the state to this zarr store chunk by chunk (every --checkpoint-every N and "
                            "at the end); continue with --resume DIR.zarr")
    group.add_argument("--chunks", type=_args.integer(8, 1 << 20), default=None,
                       help=f"chunk side in cells (default {CHUNKS}; {STORE_CHUNKS} with a store)")
    group.add_argument("--inner", default="auto", help="engine run on each chunk (default auto)")
    group.add_argument("--workers", type=_args.integer(1, 1024), default=None,
                       help="start a local dask cluster of this many worker processes (127.0.0.1)")
    group.add_argument("--worker-memory", type=_args.byte_size, default=None, metavar="SIZE",
                       help="memory limit of each local worker (e.g. 2G; default: a share of the machine's)")
    group.add_argument("--scheduler", metavar="ADDR", help="run on the dask cluster at ADDR (tcp://host:8786)")


def wanted(args: argparse.Namespace) -> bool:
    """True when the run belongs to the dask engine: ``--dask`` (or ``--backend dask``), ``--store``, or a
    zarr store to resume."""
    return (bool(args.dask) or args.backend == "dask" or args.store is not None
            or (args.resume is not None and persist.format_of(args.resume) is persist.ZARR))


def check_options(args: argparse.Namespace) -> None:
    """Refuse what cannot work before anything runs."""
    given = [f"--{name.replace('_', '-')}" for name in NOT_WITH_DASK if getattr(args, name, None) not in (None, False)]
    if given:
        hint = " (the store is the checkpoint)" if "--checkpoint" in given else ""
        raise UsageError(f"{', '.join(given)} {'does' if len(given) == 1 else 'do'} not apply to a dask run{hint}")
    if args.resume is not None:
        if args.file is not None or args.soup is not None:
            raise UsageError("--resume continues a store; do not also give a FILE or --soup")
        if persist.format_of(args.resume) is not persist.ZARR:
            raise UsageError(f"--resume {args.resume}: a dask run resumes a zarr store (DIR.zarr)")
        if args.topology is not None:
            raise UsageError("--topology cannot change a store's topology; --resume keeps it")
    elif (args.file is None) == (args.soup is None):
        raise UsageError("give either a pattern FILE or --soup WIDTHxHEIGHT (or --resume STORE.zarr)")
    if args.file is not None and (args.batch, args.density) != (None, None):
        raise UsageError("--batch and --density apply to --soup only")
    if args.resume is not None and args.seed is not None:
        raise UsageError("--seed applies to --soup or to a FILE with a stochastic rule; --resume continues the "
                         "store's own seed")
    if args.store is not None:
        if not str(args.store).lower().endswith(persist.ZARR.suffixes):
            raise UsageError(f"--store {args.store}: a zarr store's name ends in .zarr")
        folder = os.path.dirname(os.path.abspath(args.store))
        if not os.path.isdir(folder):
            raise UsageError(f"--store {args.store}: folder {folder} does not exist")
        if os.path.exists(args.store) and persist.format_of(args.store) is not persist.ZARR:
            raise UsageError(f"--store {args.store}: exists and is not a zarr store")
    if args.checkpoint_every is not None and args.store is None and args.resume is None:
        raise UsageError("--checkpoint-every needs --store DIR.zarr")
    if args.workers is not None and args.scheduler is not None:
        raise UsageError("give --workers (a local cluster) or --scheduler (a running one), not both")
    if args.worker_memory is not None and args.workers is None:
        raise UsageError("--worker-memory applies to --workers")
    _args.check_output(args.out, "pattern", "--out")


def cmd(args: argparse.Namespace) -> int:
    """Run the command on the dask engine."""
    from ..cluster import connect, describe
    from ..engines import get_engine

    check_options(args)
    store = args.store or args.resume
    chunks = args.chunks or (STORE_CHUNKS if store else CHUNKS)
    engine = get_engine("dask").with_options(chunks=chunks, inner=args.inner)
    with connect(args.workers, args.scheduler, memory_limit=args.worker_memory) as client:
        state, rule, topology, label, generation, seed = starting_state(args, chunks)
        dims = (1, *state.shape) if state.ndim == 2 else tuple(state.shape)
        if args.out and dims[1] * dims[2] > MAX_OUT_CELLS:
            raise UsageError(f"--out writes a pattern file of at most {MAX_OUT_CELLS:,} cells; this grid has "
                             f"{dims[1] * dims[2]:,} (keep it in the --store)")
        say(f"dask: {describe(client)}")
        if args.explain:
            say(engine.explain(rule, topology, dims, max(1, args.gens)))
        every = args.checkpoint_every
        with progress_bar(not args.no_progress and store is not None, args.gens) as progress:
            began = time.perf_counter()
            try:
                result = simulate.run(state, rule, args.gens, backend=engine, topology=topology, progress=progress,
                                      checkpoint=store, checkpoint_every=every, start_generation=generation, seed=seed)
            except simulate.Interrupted as stop:
                say(f"tensorca: interrupted; generation {stop.generation} is in {stop.path} (continue with: "
                    f"tensorca run --resume {stop.path} --gens N)", stderr=True)
                return 130
            except KeyboardInterrupt:
                say("tensorca: interrupted before the first segment was written; nothing saved", stderr=True)
                return 130
            if store is None:
                result = np.asarray(result.compute())
            seconds = time.perf_counter() - began
        summary(args, result, rule, topology, label, generation, seconds, engine, store)
    return 0


def starting_state(args: argparse.Namespace, chunks: int) -> tuple[Any, Any, Topology, str, int, int]:
    """``(lazy grid, rule, topology, label, generation, seed)``: a store, a soup made chunk by chunk, or a
    file (``seed``: a stochastic rule's; a soup's own seed, the store's, or ``--seed``/0 for a file)."""
    if args.resume is not None:
        from ..persist.zarr_store import open_store

        saved = open_store(args.resume)
        if args.rule is not None and resolve(args.rule)[0].canonical() != saved.rule.canonical():
            raise UsageError(f"--rule {args.rule} differs from the store's rule {saved.rule.canonical()}")
        label = f"{os.path.basename(os.path.normpath(args.resume))} (resumed at generation {saved.generation})"
        seed = saved.manifest.get("seed")
        return saved.state, saved.rule, saved.topology, label, saved.generation, seed if isinstance(seed, int) else 0
    if args.soup is not None:
        from ..outofcore.soup import lazy_soup
        height, width = args.soup
        given = None if args.topology is None else soup_topology(args.topology, height, width)
        rule, topology = resolve(args.rule, given)
        topology = topology or Topology.torus(width, height)
        if topology.shape != (height, width):
            raise UsageError(f"--topology {topology} does not fit a {width}x{height} soup")
        density = 0.5 if args.density is None else args.density
        seed = secrets.randbits(32) if args.seed is None else args.seed
        grid = lazy_soup(height, width, density, seed, batch=args.batch or 1, n_states=rule.n_states, chunks=chunks)
        label = (f"soup {width}x{height}, density {density:g}, seed {seed}" + (f", batch {args.batch}"
                                                                               if args.batch else ""))
        return (grid if args.batch else grid[0]), rule, topology, label, 0, seed
    from .. import io as pattern_io

    path = _args.pattern_input(args.file)
    pattern: Pattern = pattern_io.load(path, rules_dir=args.rules_dir)
    rule, topology = resolve(args.rule, args.topology, shape=pattern.cells.shape, fallback=pattern.rule)
    topology = topology or pattern.topology
    if not topology.bounded:
        raise UsageError("the dask engine runs a bounded grid: give --topology (a torus or plane) for this pattern")
    height, width = topology.shape
    cells = np.asarray(pattern.cells)
    if cells.shape[0] > height or cells.shape[1] > width:
        raise UsageError(f"pattern of {cells.shape[1]}x{cells.shape[0]} cells does not fit {topology}")
    return (_placed(cells.astype(np.uint8), height, width, chunks), rule, topology, os.path.basename(path), 0,
            rule_seed(args.seed, rule))


def _placed(cells: np.ndarray, height: int, width: int, chunks: int) -> Any:
    """A lazy ``(height, width)`` uint8 grid of ``chunks``-square chunks with ``cells`` at its top-left:
    only the chunks the pattern touches are made from it, the rest are zeros made chunk by chunk (a
    grid larger than memory is what this engine is for)."""
    import dask.array as da

    top = min(height, -(-cells.shape[0] // chunks) * chunks)  # the pattern's rows, whole chunks
    left = min(width, -(-cells.shape[1] // chunks) * chunks)
    corner = np.zeros((top, left), np.uint8)
    corner[: cells.shape[0], : cells.shape[1]] = cells
    rows = [da.from_array(corner, chunks=chunks)]
    if left < width:
        rows.append(da.zeros((top, width - left), dtype=np.uint8, chunks=chunks))
    grid = da.concatenate(rows, axis=1)
    if top < height:
        grid = da.concatenate([grid, da.zeros((height - top, width), dtype=np.uint8, chunks=chunks)], axis=0)
    return grid


def summary(args: argparse.Namespace, result: Any, rule: Any, topology: Topology, label: str, generation: int,
            seconds: float, engine: Any, store: str | None) -> None:
    """Print the summary (populations counted chunk by chunk from the store), write ``--out``."""
    import dask.array as da

    grids = result if result.ndim == 3 else result[None]
    counts = da.count_nonzero(grids, axis=(1, 2)) if isinstance(grids, da.Array) else None
    populations = [int(p) for p in (counts.compute() if counts is not None else np.count_nonzero(grids, axis=(1, 2)))]
    table = Table(title=label, show_header=False, min_width=len(label))
    table.add_row("rule", rule.canonical())
    table.add_row("topology", str(topology))
    total = generation + args.gens
    table.add_row("generations", str(total) if not generation else f"{total} ({args.gens} run here)")
    table.add_row("population", " ".join(map(str, populations[:8])) + (" ..." if len(populations) > 8 else ""))
    table.add_row("backend", f"dask (chunks {engine.options.chunks}, inner {engine.options.inner})")
    if store:
        table.add_row("store", f"{store} (generation {total})")
    table.add_row("time", f"{seconds:.3f} s")
    cells = int(np.prod(grids.shape, dtype=np.int64))
    if args.gens and seconds > 0:
        table.add_row("cell updates/s", f"{cells * args.gens / seconds:,.0f}")
    out.print(table)
    if args.out:
        from .. import io as pattern_io

        first = np.asarray(grids[0].compute() if isinstance(grids, da.Array) else grids[0])
        pattern_io.save(args.out, Pattern(cells=first, rule=rule, topology=topology))
        say(f"wrote {args.out}")
