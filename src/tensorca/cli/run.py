"""``tensorca run``: run a pattern file, a random soup or a checkpoint; print a summary table.

Every option is checked before generation 1 (output extensions and folders, options that would be
silently ignored, the engine's devices), so a long run never ends in an error it could have
reported at the start.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import secrets
import time
from typing import TYPE_CHECKING, Any

import numpy as np
from rich.table import Table

from .. import compiling, persist, simulate
from .. import io as pattern_io
from ..engines import engine_names
from ..engines.base import Engine
from ..errors import TensorcaError, UsageError
from ..observers import Population
from ..pattern import Pattern
from ..random_grids import random_soup
from ..rules.base import Rule
from ..rules.spec import resolve
from ..topology import Topology
from . import _args, dask_run
from ._console import out, progress_bar, progress_shown, say
from ._start import rule_seed, soup_topology

if TYPE_CHECKING:
    from ..costmodel import Choice

#: ``--explain`` warns when auto predicts a run longer than this (seconds).
LONG_RUN_S = 600.0
#: Options that shape a random soup: an error with a pattern file or a checkpoint.
SOUP_ONLY = ("batch", "density")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``run`` to the ``tensorca`` sub-parsers."""
    p = subparsers.add_parser("run", help="run a pattern file or a random soup")
    p.add_argument("file", nargs="?", help="pattern file (RLE, .cells, Life 1.05/1.06, .mc, optionally gzipped), "
                                           "or a built-in pattern's name (tensorca patterns)")
    p.add_argument("--rules-dir", metavar="DIR", help="folder of Golly .rule files for a rule named in the file")
    p.add_argument("--gens", type=_args.generations(0), required=True,
                   help="generations to run: 1000, 1e9, 2^30 or 10**9 (HashLife makes 1e9 cheap on regular patterns)")
    p.add_argument("--step", type=_args.generations(1), metavar="N",
                   help="run in steps of N generations (1000, 2^10, ...), printing 'generation: population' after "
                        "each (bgolly's -i); the last step ends at --gens")
    p.add_argument("--exponential", action="store_true",
                   help="run in exponentially growing steps (to generation 1, 2, 4, 8, ... then --gens), printing "
                        "'generation: population' after each (bgolly's -2)")
    p.add_argument("--rule", help="rule string, e.g. B36/S23 or 345/2/4:T128,128 (default: the file's, else B3/S23)")
    p.add_argument("--topology", help="Golly suffix such as :T256,256 or :P64,64 (soups: T or P for their own size)")
    p.add_argument("--backend", default="auto",
                   help=f"engine name ({', '.join(engine_names())}), or auto (default): the predicted fastest")
    p.add_argument("--device", type=_args.device, default=None,
                   help="cpu, cuda, cuda:N or mps for torch/GPU engines (default: auto's choice, or cpu)")
    p.add_argument("--explain", action="store_true", help="print auto's choice and every engine's predicted cost")
    p.add_argument("--out", help="write the final pattern here (.rle, .cells, .lif, .mc, optionally .gz)")
    p.add_argument("--soup", type=_args.grid_size, metavar="WxH", help="start from a random soup of this size")
    p.add_argument("--density", type=_args.number(0.0, 1.0), default=None, help="soup density (default 0.5)")
    p.add_argument("--seed", type=_args.integer(0, 2**63 - 1), default=None,
                   help="random seed of the soup and of a stochastic rule's draws (B3/S23:pb=0.9, DK:p1=0.6,p2=0.8, "
                        "...): a soup's is drawn and printed when not given; a FILE with a stochastic rule uses 0")
    p.add_argument("--batch", type=_args.integer(1, 2**31 - 1), default=None,
                   help="run this many soups at once as a (B, H, W) batch")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--max-bytes", "--max-memory", dest="max_bytes", type=_args.byte_size,
                   help="memory budget for the engine (e.g. 512M, 2G): larger batches run in chunks; HashLife's node "
                        "store (default 500M) collects garbage within it")
    p.add_argument("--checkpoint", metavar="FILE.npz",
                   help="write the state here atomically (every N with --checkpoint-every, at the end, on Ctrl-C); "
                        "FILE.mc writes Golly's macrocell (patterns of any size, straight from HashLife's tree)")
    p.add_argument("--checkpoint-every", type=_args.integer(1), metavar="N", help="checkpoint every N generations")
    p.add_argument("--resume", metavar="FILE.npz",
                   help="continue a checkpoint (.npz or .mc) for --gens more generations")
    p.add_argument("--population", metavar="FILE.csv",
                   help="write the population per generation (a batch: one generation,grid,population row per grid)")
    p.add_argument("--population-every", type=_args.integer(1), default=None, metavar="K",
                   help="sample the population every K generations (default 1; needs --population)")
    dask_run.add_options(p)  # --dask, --store, --chunks, --inner, --workers, --worker-memory, --scheduler
    p.set_defaults(func=cmd_run)


@dataclasses.dataclass
class Start:
    """What a run starts from: the state, the rule (as given to ``run`` and resolved), its label."""

    state: Pattern | np.ndarray
    rule_arg: str | Rule | None
    rule: Rule
    topology: str | Topology | None
    label: str
    generation: int = 0  # of an array state resumed from a checkpoint
    seed: int = 0  # a stochastic rule's draws: the soup's seed, --seed, or the checkpoint's


@dataclasses.dataclass(frozen=True)
class Decision:
    """The engine a run uses, decided once before generation 1.

    ``--explain``'s prose, the table's ``backend`` row and the run itself all read this one value:
    asking auto again after the run could answer differently (auto's choice depends on per-process
    state the run changes: compiled kernels, imported frameworks, the ski-rental account), and
    letting the run choose for itself could differ from what was printed before it.
    """

    backend: str | Engine  # passed to run: auto's engine value, a named engine, or "auto" when auto could not decide
    device: str | None  # passed to run
    label: str  # the table's backend row when the run is not tiered
    choice: Choice | None = None  # auto's choice with every prediction (for --explain); None: not asked
    decided: simulate.Decision | None = None  # auto's decision, when auto runs

    def ran(self) -> str:
        """The backend row after the run: a tiered run says which engine ran which generations."""
        return self.decided.describe_run() if self.decided is not None else self.label


def cmd_run(args: argparse.Namespace) -> int:
    if dask_run.wanted(args):  # the dask engine: chunked, optionally out of core in a zarr store
        return dask_run.cmd(args)
    check_options(args)
    check_backend(args.backend, args.device)
    start = starting_state(args)
    checkpoint = args.checkpoint or (args.resume if args.checkpoint_every is not None else None)
    stepped = args.step is not None or args.exponential
    bar = not args.no_progress and not stepped
    with compiling.measure() as compiled:  # choosing an engine may import (and compile) its kernels too
        decision = decide(args, start, engine_calls(args, progress_shown(bar, args.gens)))
        began = time.perf_counter() - compiled.since()
        if args.explain:
            explain(args, decision)
        observer = Population(every=args.population_every or 1) if args.population else None
        with progress_bar(bar, args.gens) as progress:
            try:
                if stepped:
                    result = run_steps(args, start, checkpoint, decision)
                else:
                    result = simulate.run(start.state, start.rule_arg, args.gens, backend=decision.backend,
                                          topology=start.topology, device=decision.device, progress=progress,
                                          max_bytes=args.max_bytes, observe=observer, checkpoint=checkpoint,
                                          checkpoint_every=args.checkpoint_every, start_generation=start.generation,
                                          seed=start.seed)
            except simulate.Interrupted as stop:
                say(f"tensorca: interrupted; generation {stop.generation} saved to {stop.path} "
                    f"(continue with: tensorca run --resume {stop.path} --gens N)", stderr=True)
                return 130
            seconds = time.perf_counter() - began
    final = print_summary(args, start, result, seconds, decision, compiled.seconds)
    write_outputs(args, start, result, final, observer, checkpoint)
    return 0


# -- before generation 1 ----------------------------------------------------------------------


def check_options(args: argparse.Namespace) -> None:
    """Refuse conflicting or ignored options and output paths that would fail after the run."""
    if args.resume is not None:
        if args.file is not None or args.soup is not None:
            raise UsageError("--resume continues a checkpoint; do not also give a FILE or --soup")
    elif (args.file is None) == (args.soup is None):
        raise UsageError("give either a pattern FILE or --soup WIDTHxHEIGHT (or --resume CHECKPOINT)")
    if args.checkpoint_every is not None and args.checkpoint is None and args.resume is None:
        raise UsageError("--checkpoint-every needs --checkpoint FILE")
    if args.population_every is not None and args.population is None:
        raise UsageError("--population-every needs --population FILE.csv")
    if args.step is not None and args.exponential:
        raise UsageError("--step and --exponential choose the steps two ways; give one")
    if args.step is not None or args.exponential:
        given = [name for name, value in (("--population", args.population), ("--checkpoint-every",
                 args.checkpoint_every)) if value is not None]
        if given:
            raise UsageError(f"{', '.join(given)} cannot be combined with --step/--exponential (each step prints its "
                             f"population; --checkpoint writes after every step)")
    if args.soup is None:
        given = [f"--{name}" for name in SOUP_ONLY if getattr(args, name) is not None]
        if given:
            verb = "applies" if len(given) == 1 else "apply"
            raise UsageError(f"{', '.join(given)} {verb} to --soup only (the pattern comes from "
                             f"{'the checkpoint' if args.resume else 'the file'})")
    macrocell = args.checkpoint is not None and persist.format_of(args.checkpoint) is persist.MACROCELL
    if args.soup is not None and macrocell:
        raise UsageError("--checkpoint FILE.mc holds one pattern; a --soup run checkpoints to FILE.npz")
    if args.resume is not None and args.topology is not None:
        raise UsageError("--topology cannot change a checkpoint's topology; --resume keeps it")
    if args.resume is not None and args.seed is not None:
        raise UsageError("--seed applies to --soup or to a FILE with a stochastic rule; --resume continues the "
                         "checkpoint's own seed")
    _args.check_output(args.out, "pattern", "--out")
    _args.check_output(args.checkpoint, "checkpoint", "--checkpoint")
    if args.resume is not None and args.checkpoint is None and args.checkpoint_every is not None:
        _args.check_output(args.resume, "checkpoint", "--resume")  # rewritten in place every N generations
    _args.check_output(args.population, "csv", "--population")


def check_backend(backend: str, device: str | None) -> None:
    """Refuse, before anything runs, a named engine that has no device here (a GPU engine on a
    machine without a CUDA GPU). Unknown names are left to ``run`` (which lists the known ones)."""
    if backend == "auto" or backend not in engine_names():
        return
    from ..engines import get_engine

    devices = get_engine(backend).devices()
    if not devices:
        raise UsageError(f"--backend {backend} needs a CUDA GPU, and none is visible here; "
                         "use --backend auto (or a CPU engine such as bitpack-cpu or numpy)")
    if device is not None and device.split(":")[0] not in devices:
        raise UsageError(f"--backend {backend} runs on {', '.join(devices)} here, not on --device {device}")


def starting_state(args: argparse.Namespace) -> Start:
    """The state to run: a checkpoint, a pattern file (bundled names resolve), or a random soup."""
    if args.resume is not None:
        return _resumed(args)
    if args.file is not None:
        path = _args.pattern_input(args.file)
        pattern = pattern_io.load(path, rules_dir=args.rules_dir)
        rule, _ = resolve(args.rule, fallback=pattern.rule)
        return Start(pattern, args.rule, rule, args.topology, os.path.basename(path), seed=rule_seed(args.seed, rule))
    return _soup(args)


def _resumed(args: argparse.Namespace) -> Start:
    saved = persist.load(args.resume)
    if args.rule is not None and resolve(args.rule)[0].canonical() != saved.rule.canonical():
        raise UsageError(f"--rule {args.rule} differs from the checkpoint's rule {saved.rule.canonical()}")
    generation = 0 if isinstance(saved.state, Pattern) else saved.generation
    label = f"{os.path.basename(args.resume)} (resumed at generation {saved.generation})"
    return Start(saved.state, saved.rule, saved.rule, saved.topology, label, generation, saved.seed or 0)


def _soup(args: argparse.Namespace) -> Start:
    height, width = args.soup
    given = None if args.topology is None else soup_topology(args.topology, height, width)
    rule, topology = resolve(args.rule, given)  # a rule suffix that contradicts --topology is an error
    density = 0.5 if args.density is None else args.density
    seed = secrets.randbits(32) if args.seed is None else args.seed  # printed, so the run can be repeated
    state = random_soup(height, width, density, seed, args.batch, n_states=rule.n_states)
    topology = topology or Topology.torus(width, height)
    label = f"soup {width}x{height}, density {density:g}, seed {seed}" + (f", batch {args.batch}" if args.batch else "")
    return Start(state, rule, rule, topology, label, seed=seed)


def engine_calls(args: argparse.Namespace, progress: bool) -> int:
    """Engine calls the run will make, as ``run`` counts them for auto's costs: one per step
    (``--step``/``--exponential``), else one per segment between checkpoints and progress reports."""
    from ..simulate.plan import count_segments, progress_step

    if args.step is not None or args.exponential:
        return max(len(step_sizes(args.gens, args.step)), 1)
    return count_segments(args.gens, args.checkpoint_every, progress_step(args.gens) if progress else None)


def decide(args: argparse.Namespace, start: Start, calls: int) -> Decision:
    """The engine the run uses, decided once (see :class:`Decision`).

    Under ``--backend auto`` the run is given auto's engine value (:func:`tensorca.simulate.decide`:
    a tiered engine when a faster one is compiling in the background), so it cannot choose again
    differently. Should auto fail to decide here (a rule no engine runs), the run is left to
    ``auto`` so that its error names the rule, topology and shape; with ``--explain`` the error
    is raised at once.
    """
    if args.backend != "auto" and not args.explain:
        return Decision(args.backend, args.device, args.backend)
    try:
        decided = simulate.decide(start.state, start.rule_arg, args.gens, topology=start.topology,
                                  device=args.device, calls=calls)
    except TensorcaError:
        if args.explain:
            raise
        return Decision("auto", args.device, "auto")
    choice = decided.choice
    if args.backend != "auto":  # --explain with a named engine: the predictions, and that engine runs
        return Decision(args.backend, args.device, args.backend, choice)
    return Decision(decided.engine, decided.device, f"auto: {choice.engine} ({choice.device})", choice, decided)


def explain(args: argparse.Namespace, decision: Decision) -> None:
    """Print auto's choice and predictions; warn when the predicted run is long."""
    choice = decision.choice
    assert choice is not None  # decide() asks auto whenever --explain is given
    say(choice.describe())
    if args.backend != "auto":
        say(f"(--backend {args.backend} given: running that engine instead)")
    engine = choice.engine if args.backend == "auto" else args.backend  # the engine that will run
    chosen = [p for p in choice.predictions if p.engine == engine and p.supported
              and (p.device == choice.device or engine != choice.engine)]
    predicted = min((p.total for p in chosen), default=0.0)
    if predicted > LONG_RUN_S:
        hint = "" if args.checkpoint else "; add --checkpoint FILE.npz --checkpoint-every N to stop and resume"
        say(f"tensorca: warning: this run is predicted to take {duration(predicted)}: fewer --gens or a smaller "
            f"grid finish sooner{hint}", stderr=True)


def duration(seconds: float) -> str:
    """``42 s``, ``12 min``, ``1.9 h``, ``3.2 days``."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


# -- stepping (bgolly's -i and -2) -------------------------------------------------------------


def step_sizes(total: int, step: int | None) -> list[int]:
    """Generations per step: ``step`` at a time (the last step shorter, ending at ``total``), or
    with ``step`` None exponentially, each step reaching twice the generation before (1, 1, 2, 4, ...)."""
    sizes: list[int] = []
    done = 0
    while done < total:
        k = step if step is not None else max(done, 1)
        k = min(k, total - done)
        sizes.append(k)
        done += k
    return sizes


def run_steps(args: argparse.Namespace, start: Start, checkpoint: str | None, decision: Decision) -> Any:
    """Run ``--gens`` in steps, printing ``generation: population`` before the first and after each
    (a batch: one population per grid). Each step is one ``run`` on the engine decided for the
    whole run (the one the table names; a HashLife result continues from its tree)."""
    state, done = start.state, 0
    _print_step(state, start.generation)
    for k in step_sizes(args.gens, args.step):
        state = simulate.run(state, start.rule_arg, k, backend=decision.backend, topology=start.topology,
                             device=decision.device, max_bytes=args.max_bytes, checkpoint=checkpoint,
                             start_generation=start.generation + done if not isinstance(state, Pattern) else 0,
                             seed=start.seed)
        done += k
        _print_step(state, start.generation + done)
    return state


def _print_step(state: Any, generation: int) -> None:
    if isinstance(state, Pattern):
        say(f"{state.generation}: {state.population}")
        return
    grids = state if state.ndim == 3 else state[None]
    say(f"{generation}: " + " ".join(str(int(p)) for p in np.count_nonzero(grids, axis=(1, 2))))


# -- after the run ----------------------------------------------------------------------------


def print_summary(args: argparse.Namespace, start: Start, result: Any, seconds: float,
                  decision: Decision, compile_s: float = 0.0) -> Pattern:
    """Print the summary table; return the final state as a pattern (a batch: its first grid).
    ``compile_s``: seconds of ``seconds`` spent compiling kernels (first use on this machine),
    shown apart and left out of the speed figures."""
    table = Table(title=start.label, show_header=False, min_width=len(start.label))  # the title on one line
    if isinstance(result, Pattern):
        final, cells_per_generation = result, (result.cells.size if result.topology.bounded else None)
        _pattern_rows(table, result, start.rule)
        if args.explain and result.tree_backed:
            _tree_rows(table, result)
    else:
        final = _array_rows(table, args, start, result)
        cells_per_generation = result.size
    if start.rule.compile().stochastic:
        table.add_row("seed", str(start.seed))
    table.add_row("backend", decision.ran())
    running = seconds - compile_s if compile_s < seconds else seconds
    if compile_s >= 0.05:
        table.add_row("time", f"{seconds:.3f} s ({compile_s:.1f} s compiling kernels, first use; "
                              f"{running:.3f} s running)")
    else:
        table.add_row("time", f"{seconds:.3f} s")
    if args.gens and running > 0:
        table.add_row("generations/s", f"{args.gens / running:,.1f}")
        if cells_per_generation is not None:
            table.add_row("cell updates/s", f"{cells_per_generation * args.gens / running:,.0f}")
    out.print(table)
    return final


def _pattern_rows(table: Table, result: Pattern, rule: Rule) -> None:
    box = result.bounding_box()
    table.add_row("rule", result.rule.canonical() if result.rule else rule.canonical())
    table.add_row("topology", str(result.topology))
    table.add_row("generation", str(result.generation))
    table.add_row("population", str(result.population))
    table.add_row("bounding box", "empty" if box is None else f"x={box[0]} y={box[1]} {box[2]}x{box[3]}")


def _tree_rows(table: Table, result: Pattern) -> None:
    """HashLife's node store after the run: nodes, garbage collections, result-cache hit rate."""
    stats = result.tree.stats()
    table.add_row("hashlife nodes", f"{stats['nodes']:,} of {stats['capacity']:,} "
                                    f"({stats['bytes'] / 1e6:.1f} MB, budget {stats['max_bytes'] / 1e6:.0f} MB)")
    table.add_row("GC runs", str(stats["gc_runs"]))
    lookups = stats["cache_hits"] + stats["cache_misses"]
    table.add_row("cache hit rate", f"{100 * stats['hit_rate']:.1f}% of {lookups:,} result look-ups")


def _array_rows(table: Table, args: argparse.Namespace, start: Start, result: np.ndarray) -> Pattern:
    grids = result if result.ndim == 3 else result[None]
    height, width = grids.shape[1:]
    topology = start.topology if isinstance(start.topology, Topology) else Topology.torus(width, height)
    populations = [int(p) for p in np.count_nonzero(grids, axis=(1, 2))]
    total = start.generation + args.gens
    table.add_row("rule", start.rule.canonical())
    table.add_row("topology", str(topology))
    table.add_row("generations", str(total) if not start.generation else f"{total} ({args.gens} run here)")
    table.add_row("population", " ".join(map(str, populations[:8])) + (" ..." if len(populations) > 8 else ""))
    return Pattern(cells=grids[0], rule=start.rule, topology=topology)


def write_outputs(args: argparse.Namespace, start: Start, result: Any, final: Pattern,
                  observer: Population | None, checkpoint: str | None) -> None:
    """Write ``--out`` and ``--population`` and say where the checkpoint is."""
    batched = isinstance(start.state, np.ndarray) and start.state.ndim == 3
    if args.out:
        pattern_io.save(args.out, final)
        say(f"wrote {args.out}" + (" (the first grid of the batch)" if batched and len(start.state) > 1 else ""))
    if checkpoint is not None:
        generation = result.generation if isinstance(result, Pattern) else start.generation + args.gens
        say(f"checkpoint {checkpoint} (generation {generation})")
    if observer is not None:
        write_population(args.population, observer, batched)
        say(f"wrote {args.population} ({len(observer.generations)} samples)")


def write_population(path: str, observer: Population, batched: bool) -> None:
    """CSV of the observed populations: ``generation,population``, or for a batch the long format
    ``generation,grid,population`` (one row per grid and sample, never one column per grid)."""
    generations, values = observer.generations, observer.values  # (n,), (n, B) int64
    with open(path, "w", newline="") as fh:
        if not batched:
            fh.write("generation,population\n")
            np.savetxt(fh, np.column_stack([generations, values[:, 0]]), fmt="%d", delimiter=",")
            return
        fh.write("generation,grid,population\n")
        grid = np.arange(values.shape[1])
        for generation, row in zip(generations, values, strict=True):  # one sample at a time: memory stays O(B)
            np.savetxt(fh, np.column_stack([np.full_like(grid, generation), grid, row]), fmt="%d", delimiter=",")
