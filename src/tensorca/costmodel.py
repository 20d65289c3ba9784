"""The cost model behind ``backend="auto"``: predicted seconds per engine, device and run shape.

A run of ``G`` generations of a batch of ``B`` grids of ``H x W`` cells, made of ``C`` engine
calls, is predicted to take::

    import  (the framework, if this process has not imported it yet)
  + compile (first use of the rule: Numba / Triton kernels not yet in the on-disk cache)
  + C * (call_s + cells * call_cell_s)                      fixed per call, packing/unpacking
  + G * (gen_s * family_gen + cells * cell_s * family_cell + B * H * row_s)   per generation
      (batches an engine runs one grid per bit lane, ``EngineCost.lanes``: ``lane_cell_s`` per
       cell instead, no row cost, ``B`` rounded up to a whole word of grids; grids it runs as 64
       lane tiles, ``EngineCost.tiles``: ``tile_cell_s`` per cell, no row cost)
  + transfer (2 * cells bytes / transfer_Bps when the data and the engine are on different devices)

On the unbounded plane an engine that runs it natively (``EngineInfo.unbounded_native``: HashLife)
is priced differently, since its cost is not linear in cells x generations: ``import + compile +
call_s + population * cell_s`` (building the tree) ``+ node_s * tree_work(...)`` (node results,
estimated from the population, the bounding box and ``log2`` of the generations).

``cells = B * H * W``. ``family_*`` are multipliers by rule class, read from the rule's step spec
(``moore``: two-state outer-totalistic Moore rules; ``table``: other two-state 3x3 rules, e.g.
Hensel letters; ``generations``: 3x3 rules with decay states; ``ltl``: Larger than Life, per
``2r + 1`` mask rows relative to range 5).

Every engine fact comes from the registry (:mod:`tensorca.engines`): which engines ``auto`` may
use (``EngineInfo.auto``, ties broken by ``preference``), what they need installed
(``requires``), where they run (``devices``), a cheap pre-filter on the step spec (``precheck``),
whether a rule's kernels are compiled (``kernel_state``) and the built-in costs per device kind
(``default_costs``; see :mod:`tensorca.engines` for where they were measured, and
``docs/gpu_crossover.md``). ``tensorca bench --calibrate`` measures this machine and saves the
fitted values as JSON in the user cache directory (``$TENSORCA_CACHE_DIR/costmodel.json``, else
the per-user cache, ``~/.cache/tensorca/costmodel.json`` on Linux) under ``"engine@device"``
keys; saved values override the defaults key by key. This module names no engine.

Deciding is cheap: no benchmarking at call time, and no framework is imported to rank the
candidates (``importlib.util.find_spec`` tells whether one is installed). The engine finally
chosen is always checked with its own ``supports(rule, topology)``: the model can be slow, never
wrong.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

from .cache_dirs import cache_root
from .engines.info import EngineCost, EngineInfo
from .engines.registry import devices_here, engine_info, engine_infos, get_engine, missing
from .errors import EngineError, MissingDependencyError
from .families import class_factor, cost_class
from .rules.base import Rule
from .topology import Topology
from .unbounded import CHUNK as UNBOUNDED_CHUNK

#: Cells per generation each side of a pattern on the unbounded plane is assumed to move out: a
#: glider's c/4, what escapes from most soups and methuselahs (the R-pentomino's box is about
#: 1103/2 cells wide at 1103). Predicting with the starting box alone undercounted the R-pentomino's
#: 1103 generations 5x; a pattern that does not grow is overcounted, the same for every engine.
UNBOUNDED_SPREAD = 0.25

COSTMODEL_VERSION = 1

__all__ = ["UNBOUNDED_CHUNK", "Choice", "EngineCost", "PerformanceWarning", "Prediction", "choose", "class_factors",
           "costs", "default_costs", "kernel_state", "may_run", "predict", "rank", "rule_class", "save_calibration",
           "warm_alternative"]


class PerformanceWarning(UserWarning):
    """``auto`` ran a job on a slow engine because a much faster one is not installed here."""


def default_costs(key: str) -> EngineCost:
    """The registry's built-in parameters for ``"engine@device"`` (the engine's CPU values when it
    has none for that device; plain :class:`EngineCost` defaults for an engine without any)."""
    name, _, device = key.partition("@")
    try:
        table = engine_info(name).default_costs
    except EngineError:
        return EngineCost()
    return table.get(device) or table.get("cpu") or EngineCost()


# -- calibration file -------------------------------------------------------------------------


def cache_dir() -> Path:
    """tensorca's cache root (:func:`tensorca.cache_dirs.cache_root`): ``$TENSORCA_CACHE_DIR`` if
    set, else the per-user cache directory."""
    return cache_root()


def calibration_path() -> Path:
    """Where ``tensorca bench --calibrate`` saves fitted costs."""
    return _calibration_path(cache_dir())


@functools.lru_cache(maxsize=8)
def _calibration_path(directory: Path) -> Path:
    return directory / "costmodel.json"


@functools.lru_cache(maxsize=8)
def _load_calibration(path: str, mtime: float) -> dict[str, dict]:
    try:
        with open(path) as fh:
            data = json.load(fh)
    except (OSError, ValueError, RecursionError):  # a damaged calibration file is no calibration
        return {}
    if not isinstance(data, dict) or data.get("version") != COSTMODEL_VERSION:
        return {}
    engines = data.get("engines", {})
    return engines if isinstance(engines, dict) else {}


def calibrated() -> dict[str, dict]:
    """The saved calibration (``{"engine@device": {field: value}}``), or ``{}``."""
    path = calibration_path()
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return {}
    return _load_calibration(str(path), mtime)


def costs(key: str) -> EngineCost:
    """Parameters for ``"engine@device"``: the defaults, overridden by calibrated values."""
    base = default_costs(key)
    saved = calibrated().get(key)
    if not saved:
        return base
    fields = {f.name for f in dataclasses.fields(EngineCost)}
    updates: dict[str, Any] = {}
    for name, value in saved.items():
        if name not in fields:
            continue
        if name in ("family_gen", "family_cell") and isinstance(value, dict):
            updates[name] = {**getattr(base, name), **{k: float(v) for k, v in value.items()}}
        elif isinstance(value, (int, float)) and math.isfinite(value) and value >= 0:
            updates[name] = float(value)
    return dataclasses.replace(base, **updates)


def save_calibration(values: dict[str, dict], meta: dict | None = None) -> Path:
    """Write fitted ``{"engine@device": {field: value}}`` atomically to :func:`calibration_path`."""
    path = calibration_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    # A unique temporary name: two processes calibrating at once never write one file.
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump({"version": COSTMODEL_VERSION, "meta": meta or {}, "engines": values}, fh, indent=1,
                      sort_keys=True)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _load_calibration.cache_clear()
    return path


# -- rule classes, kernels, candidates -------------------------------------------------------


def rule_class(rule: Rule) -> tuple[str, float]:
    """``(cost class, scale)`` of ``rule``, as its family declares (:func:`tensorca.families.cost_class`):
    ``moore`` (two-state B/S on the Moore neighbourhood), ``table`` (other two-state 3x3 tables),
    ``generations`` (3x3 with decay), ``ltl`` (counts over a range-r window; scale = mask rows / 11, times
    the mask counts a weighted neighbourhood needs), ``tree`` (rule tables), ``super`` (Super/History),
    ``fft`` (Lenia; multi-channel Lenia scaled by its transformed planes / 2), ``stochastic`` (their
    draws dominate), a plug-in family's own class, or ``other`` for a rule no family claims."""
    return cost_class(rule)


def class_factors(c: EngineCost, engine: str, device: str, family: str) -> tuple[float, float]:
    """``(per generation, per cell)`` multipliers of cost class ``family`` on ``engine``/``device``: the
    engine's own (defaults and calibration, ``c``), else what the class's family declares, else 1."""
    gen = c.family_gen.get(family)
    cell = c.family_cell.get(family)
    if gen is None:
        gen = class_factor(engine, device, family, "gen")
    if cell is None:
        cell = class_factor(engine, device, family, "cell")
    return (1.0 if gen is None else float(gen)), (1.0 if cell is None else float(cell))


def kernel_state(name: str, rule: Rule) -> str:
    """``"loaded"`` (in this process), ``"disk"`` (compiled before, in the on-disk cache), ``"cold"``
    (must be compiled first) or ``"none"`` (the engine compiles nothing) for ``rule`` on ``name``,
    as the engine's registered ``kernel_state`` says (nothing is imported or compiled to ask)."""
    try:
        info = engine_info(name)
    except EngineError:
        return "none"
    return "none" if info.kernel_state is None else info.kernel_state(rule)


def may_run(info: EngineInfo, rule: Rule, topology: Topology) -> bool:
    """The registry's cheap pre-filter (no framework import); the engine's ``supports`` decides at the end."""
    return topology.bounded and (info.precheck is None or bool(info.precheck(rule.compile(), topology)))


# -- prediction -------------------------------------------------------------------------------


#: HashLife's work model (node results computed), fitted to runs on the 2-core EPYC (2026-12-01):
#: chaotic activity (random soups of 16^2..1024^2 cells, density 0.4) computed about
#: ``TREE_CHAOS * (active / 64) * G**TREE_CHAOS_EXPONENT`` results for G up to ~``TREE_SETTLE``
#: generations (4, 31, 180 leaf-blocks' worth at G = 10, 100, 1000), little more afterwards;
#: regular patterns (guns, breeders) add about ``(active / 64 + 64)`` results per binary digit of
#: G (the Gosper gun to 10**9: 6,800 results; the breeder to 2**30: 21,000).
TREE_CHAOS, TREE_CHAOS_EXPONENT, TREE_SETTLE = 0.6, 0.82, 2000


def tree_work(shape: tuple[int, int], population: int | None, generations: int) -> float:
    """Node results a HashLife run of ``generations`` is estimated to compute, for a pattern of
    bounding box ``shape`` ``(H, W)`` and ``population`` live cells (None: half the box). The
    active area is ``min(box, 2 * population + 64)``: a sparse pattern in a wide box costs its
    cells, not its box; ``log2`` of the generations, not the generations, for regular growth."""
    area = float(shape[0]) * float(shape[1])
    live = area / 2 if population is None else float(population)
    blocks = min(area, 2 * live + 64) / 64
    digits = math.log2(generations + 1)
    return blocks * TREE_CHAOS * min(generations, TREE_SETTLE) ** TREE_CHAOS_EXPONENT + (blocks + 64) * digits


def _unbounded_native(name: str) -> bool:
    try:
        return engine_info(name).unbounded_native
    except EngineError:
        return False


@dataclasses.dataclass(frozen=True)
class Prediction:
    """Predicted seconds of one engine on one device, with the parts that add up to ``total``."""

    engine: str
    device: str
    total: float
    parts: dict
    supported: bool = True
    note: str = ""
    basis: str = ""  # what the estimate rests on (the unbounded plane: the box, or the tree work)

    @property
    def key(self) -> str:
        return f"{self.engine}@{self.device}"


def _imports(name: str) -> str | None:
    try:
        return engine_info(name).imports
    except EngineError:
        return None


def predict(
    engine: str,
    device: str,
    rule: Rule,
    batch: int,
    shape: tuple[int, int],
    generations: int,
    *,
    calls: int = 1,
    data_device: str = "cpu",
    unbounded: bool = False,
    kernels: str | None = None,
    warm_process: bool | None = None,
    population: int | None = None,
) -> Prediction:
    """Predicted seconds for ``engine`` on ``device`` (see the module docstring for the formula).

    ``shape`` is ``(H, W)``; on the unbounded plane it is the pattern's current bounding box, taken
    to grow by :data:`UNBOUNDED_SPREAD` cells a side per generation (the run sees the mean box), and
    each call runs on it padded by ``reach * 64`` cells a side. ``kernels``: the state of the rule's
    compiled kernels (:func:`kernel_state`; None: look). ``warm_process``: the framework is already
    imported (None: look in ``sys.modules``). ``population``: live cells of an unbounded pattern
    (engines native on the unbounded plane are priced from it, see :func:`tree_work`).
    """
    c = costs(f"{engine}@{device}")
    if unbounded and _unbounded_native(engine):
        return _predict_tree(engine, device, c, rule, shape, generations, population, kernels, warm_process)
    family, scale = rule_class(rule)
    height, width = shape
    gens_per_call = generations
    basis = ""
    if unbounded:
        reach = rule.reach
        gens_per_call = min(UNBOUNDED_CHUNK, max(generations, 1))
        calls = max(1, math.ceil(generations / UNBOUNDED_CHUNK))
        margin = reach * gens_per_call
        grown = min(UNBOUNDED_SPREAD, reach) * generations  # mean over the run of 2 * spread * t
        height, width = int(height + grown) + 2 * margin, int(width + grown) + 2 * margin
        basis = (f"growing array: mean box {width}x{height} cells (the pattern's box, {UNBOUNDED_SPREAD} cells/gen "
                 f"a side, a margin of {margin}) x {generations} generations")
    cells = batch * height * width
    parts = _load_parts(engine, c, rule, kernels, warm_process)
    parts["per_call"] = calls * (c.call_s + cells * c.call_cell_s)
    gen_factor, cell_factor = class_factors(c, engine, device, family)
    parts["per_generation"] = generations * c.gen_s * gen_factor
    cell_factor *= scale
    layouts = not rule.compile().stochastic  # bit lanes and tiles run deterministic rules only
    if layouts and c.lanes is not None and rule.n_states == 2 and c.lanes((batch, height, width)):  # a grid a lane
        lane_cells = -(-batch // c.lane_width) * c.lane_width * height * width
        parts["compute"] = generations * lane_cells * c.lane_cell_s * cell_factor
    elif layouts and c.tiles is not None and rule.n_states == 2 and c.tiles((batch, height, width)):  # 64 tiles
        parts["compute"] = generations * cells * c.tile_cell_s * cell_factor
    else:
        parts["compute"] = generations * cells * c.cell_s * cell_factor
        parts["compute"] += generations * batch * height * c.row_s
    moves = 0
    if device != data_device:
        moves = 2 * (calls if unbounded else 1)
    parts["transfer"] = moves * cells / c.transfer_Bps if (moves and c.transfer_Bps > 0) else 0.0
    total = sum(parts.values())
    return Prediction(engine, device, total, parts, basis=basis)


def _load_parts(engine: str, c: EngineCost, rule: Rule, kernels: str | None,
                warm_process: bool | None) -> dict[str, float]:
    """The import and compile parts of a prediction."""
    module = _imports(engine)
    imported = (module in sys.modules) if warm_process is None else warm_process
    state = kernel_state(engine, rule) if kernels is None else kernels
    return {"import": 0.0 if (module is None or imported) else c.import_s,
            "compile": c.compile_s if state == "cold" else c.load_s if state == "disk" else 0.0}


def _predict_tree(engine: str, device: str, c: EngineCost, rule: Rule, shape: tuple[int, int],
                  generations: int, population: int | None, kernels: str | None,
                  warm_process: bool | None) -> Prediction:
    """An engine native on the unbounded plane: build the tree, then the node results."""
    parts = _load_parts(engine, c, rule, kernels, warm_process)
    live = shape[0] * shape[1] / 2 if population is None else population
    parts["per_call"] = c.call_s + live * c.cell_s
    work = tree_work(shape, population, generations)
    parts["compute"] = work * c.node_s
    total = sum(parts.values())
    basis = (f"quadtree: ~{work:,.0f} node results from {int(live):,} live cells in a {shape[1]}x{shape[0]} box "
             f"and log2({generations}+1) = {math.log2(generations + 1):.1f}")
    return Prediction(engine, device, total, parts, basis=basis)


@dataclasses.dataclass
class Choice:
    """What ``auto`` chose, and every prediction it compared: fastest first, except that an engine
    bought for repeated runs (:func:`_rent_or_buy`, ``reason``) comes first."""

    engine: str
    device: str
    predictions: list
    #: Why the choice is not the fastest prediction for this run alone, or "".
    reason: str = ""

    def describe(self) -> str:
        lines = [f"auto chose {self.engine} on {self.device}"]
        if self.reason:
            lines.append(f"   {self.reason}")
        for p in self.predictions:
            mark = "*" if (p.engine, p.device) == (self.engine, self.device) else " "
            if not p.supported:
                lines.append(f" {mark} {p.key:18s} not supported: {p.note}")
                continue
            parts = ", ".join(f"{k} {v * 1e3:.3g} ms" for k, v in p.parts.items() if v)
            total = f"{p.total * 1e3:10.3f} ms" if p.total < 1e6 else f"{p.total:10.3g} s "  # 1e9 gens: no 20 digits
            lines.append(f" {mark} {p.key:18s} {total}  ({parts})")
            if p.basis:
                lines.append(f"   {'':18s} {p.basis}")
        return "\n".join(lines)


@dataclasses.dataclass(frozen=True)
class Job:
    """One run to predict: ``batch`` grids of ``shape`` ``(H, W)`` on ``topology`` for ``generations``
    generations in ``calls`` engine calls, the data on ``data_device``, optionally only on ``device``."""

    rule: Rule
    topology: Topology
    batch: int
    shape: tuple[int, int]
    generations: int
    data_device: str = "cpu"
    device: str | None = None
    calls: int = 1
    population: int | None = None

    @property
    def check(self) -> Topology:
        """The bounded topology engines are asked about (the unbounded plane runs on bounded planes)."""
        return self.topology if self.topology.bounded else Topology.plane(1, 1)


def rank(
    rule: Rule,
    topology: Topology,
    batch: int,
    shape: tuple[int, int],
    generations: int,
    *,
    data_device: str = "cpu",
    device: str | None = None,
    calls: int = 1,
    population: int | None = None,
) -> list[Prediction]:
    """Predictions for every installed engine/device ``auto`` may use, fastest first (ties: the
    registry's ``preference``).

    ``device`` restricts the candidates to engines that run there (``"cuda"`` or ``"cuda:1"``
    match ``cuda``). Nothing is imported except to ask a bitpack engine whether its kernels are
    compiled when it is already loaded. ``population``: live cells of a pattern on the unbounded
    plane (the quadtree engine's estimate uses it).
    """
    job = Job(rule, topology, batch, shape, generations, data_device, device, calls, population)
    return _predict_all(_candidates(), job)


def _candidates() -> list[tuple[EngineInfo, str]]:
    """Every ``(engine facts, device kind)`` pair ``auto`` may use here."""
    return [(info, dev) for info in engine_infos() if info.auto for dev in devices_here(info)]


def _predict_all(candidates: list[tuple[EngineInfo, str]], job: Job, kernels: str | None = None) -> list[Prediction]:
    """Predictions of ``job`` for the ``(info, device)`` pairs that pass the device filter and the precheck."""
    want = None if job.device is None else str(job.device).split(":")[0]
    data_kind = str(job.data_device).split(":")[0]
    preference = {}
    out = []
    for info, dev in candidates:
        if (want is not None and dev != want) or not may_run(info, job.rule, job.check):
            continue
        if info.unbounded_native and job.topology.bounded:
            continue  # priced (and picked) on the unbounded plane only

        preference[info.name] = info.preference
        out.append(predict(info.name, dev, job.rule, job.batch, job.shape, job.generations, calls=job.calls,
                           data_device=data_kind, unbounded=not job.topology.bounded, kernels=kernels,
                           population=job.population))
    out.sort(key=lambda p: (p.total, preference[p.engine], p.engine))
    return out


def choose(
    rule: Rule,
    topology: Topology,
    batch: int,
    shape: tuple[int, int],
    generations: int,
    *,
    data_device: str = "cpu",
    device: str | None = None,
    calls: int = 1,
    population: int | None = None,
) -> Choice:
    """The predicted-fastest engine that really supports ``rule`` on ``topology``.

    Candidates are tried fastest first; each is loaded and asked ``supports`` (the unbounded
    plane is checked as a bounded plane, which is what it runs on); one that refuses, or whose
    framework fails to import, is skipped. NumPy is the fallback for every rule it supports.
    When an engine that is not installed would be much faster, a :class:`PerformanceWarning`
    (once per engine and process) names the command that installs it.
    """
    job = Job(rule, topology, batch, shape, generations, data_device, device, calls, population)
    candidates = _candidates()
    token = _state_token(job, candidates)
    remembered = _remembered(job, token)
    if remembered is not None:
        chosen, checked = remembered
    else:
        checked = []
        chosen = None
        for p in _predict_all(candidates, job):
            if chosen is not None:
                checked.append(p)
                continue
            ok, note = _really_supports(p, rule, job.check)
            if ok:
                chosen = p
                checked.append(p)
            else:
                checked.append(dataclasses.replace(p, supported=False, note=note))
        if chosen is None:
            where = f" on {device}" if device else ""
            raise EngineError(f"no engine{where} supports rule {rule.canonical()!r} on {topology}")
        _remember(job, token, chosen, checked)
    checked = list(checked)
    reason = ""
    bought = _rent_or_buy(chosen, checked, rule, job.check)
    if bought is not None:
        chosen, reason = bought
        checked = [chosen] + [p for p in checked if (p.engine, p.device) != (chosen.engine, chosen.device)]
    _warn_if_missing_engine_would_win(chosen, job)
    return Choice(chosen.engine, chosen.device, checked, reason)


#: Decisions of :func:`choose` by job, each with the :func:`_state_token` it was made under: a
#: notebook repeats the same job thousands of times, and ranking every engine again took 60 us a run.
_DECISIONS: dict[Job, tuple[tuple, Prediction, list[Prediction]]] = {}
#: At most this many jobs remembered (then the memory starts again).
_DECISIONS_KEPT = 256


def _state_token(job: Job, candidates: list[tuple[EngineInfo, str]]) -> tuple:
    """Everything besides the job that a ranking depends on and that can change in a process: the
    candidates (the registry, what is installed), the calibration file, which frameworks are
    imported and the state of the rule's compiled kernels."""
    try:
        calibration = calibration_path().stat().st_mtime
    except OSError:
        calibration = None
    engines = tuple((id(info), dev) for info, dev in candidates)
    imported = tuple(_imports(info.name) in sys.modules for info, _ in candidates)
    kernels = tuple(info.kernel_state(job.rule) if info.kernel_state is not None else "" for info, _ in candidates)
    return calibration, engines, imported, kernels


def _remembered(job: Job, token: tuple) -> tuple[Prediction, list[Prediction]] | None:
    """``(chosen, predictions)`` decided for ``job`` under ``token`` before, or None."""
    try:
        entry = _DECISIONS.get(job)
    except TypeError:  # a rule holding arrays (Lenia's kernels) has no hash: decided every time
        return None
    return (entry[1], entry[2]) if entry is not None and entry[0] == token else None


def _remember(job: Job, token: tuple, chosen: Prediction, predictions: list[Prediction]) -> None:
    if len(_DECISIONS) >= _DECISIONS_KEPT:
        _DECISIONS.clear()
    try:
        _DECISIONS[job] = (token, chosen, list(predictions))
    except TypeError:
        pass


#: Ski rental (see :func:`_rent_or_buy`): by ``(engine, device, rule)``, the seconds that the runs
#: ``auto`` gave other engines took beyond what this one would have taken once warm.
_FORGONE: dict[tuple[str, str, str], float] = {}


def one_time_seconds(p: Prediction) -> float:
    """The part of ``p`` paid once per process and rule: importing the framework, compiling or
    loading the rule's kernels."""
    return p.parts.get("import", 0.0) + p.parts.get("compile", 0.0)


def _rent_or_buy(chosen: Prediction, predictions: list[Prediction], rule: Rule,
                 check: Topology) -> tuple[Prediction, str] | None:
    """An engine to switch to from ``chosen`` (the predicted-fastest for this run alone), with the
    reason in words, or None.

    A run predicted cheapest on an engine only because another engine's one-time cost (import,
    compile) is not yet paid would stay there forever when the same small run is repeated (a
    notebook stepping a 1024^2 grid a generation a call on NumPy at 7 ms a call, where bitpack-cpu
    takes under 1 ms once loaded). So ``auto`` rents and then buys: each run adds to the declined
    engine's account what it would have saved once warm, and when the account reaches that
    engine's one-time cost, the cost is paid. Whatever the runs to come, the total is then at most
    twice what the best engine in hindsight would have taken (the ski-rental bound)."""
    best: tuple[Prediction, str] | None = None
    label = rule.canonical() or repr(rule)
    for p in predictions:
        once = one_time_seconds(p)
        warm = p.total - once
        if not p.supported or once <= 0 or warm >= chosen.total:
            continue
        key = (p.engine, p.device, label)
        _FORGONE[key] = _FORGONE.get(key, 0.0) + chosen.total - warm
        if _FORGONE[key] < once or (best is not None and warm >= best[0].total - one_time_seconds(best[0])):
            continue
        ok, _ = _really_supports(p, rule, check)
        if not ok:
            _FORGONE[key] = -math.inf  # it cannot run this rule after all: never again
        else:
            best = (p, f"earlier runs of {label} would have saved {_FORGONE[key]:.3g} s on {p.engine} once warm, "
                       f"which covers its one-time {once:.3g} s (import, compile): paid now")
    return best


#: A cold engine is compiled in the background for a job when, once warm, it would take at most
#: this fraction of the chosen engine's time.
TIER_GAIN = 0.7


def warm_alternative(choice: Choice, rule: Rule, check: Topology) -> Prediction | None:
    """The engine that would run ``choice``'s job fastest once its kernels are compiled, when they
    are cold (not yet on this machine) and it was not chosen for that reason: what a background
    compile should make ready (:mod:`tensorca.background`). Only engines on the CPU, whose
    compiles a worker process can do; the engine is loaded and asked ``supports``."""
    chosen = next((p for p in choice.predictions if (p.engine, p.device) == (choice.engine, choice.device)), None)
    if chosen is None:
        return None
    candidates = []
    for p in choice.predictions:
        if (not p.supported or p.device != "cpu" or p.parts.get("compile", 0.0) <= 0.0 or p is chosen
                or kernel_state(p.engine, rule) != "cold"):
            continue
        warm = p.total - one_time_seconds(p)
        if warm <= TIER_GAIN * chosen.total:
            candidates.append((warm, p))
    for _, p in sorted(candidates, key=lambda pair: pair[0]):
        if _really_supports(p, rule, check)[0]:
            return p
    return None


def _really_supports(p: Prediction, rule: Rule, check: Topology) -> tuple[bool, str]:
    """Load the engine of ``p`` and ask it: ``(ok, why not)``."""
    try:
        engine = get_engine(p.engine)
        ok = engine.supports(rule, check) and p.device in [d.split(":")[0] for d in engine.devices()]
        return ok, ("" if ok else engine.why_unsupported(rule, check))
    except (EngineError, MissingDependencyError) as exc:
        return False, str(exc)


#: A missing engine is suggested when it would take at most this fraction of the chosen one's time
#: (its import and first compile included) ...
MISSING_ENGINE_RATIO = 0.5
#: ... and the run is predicted to take at least this many seconds.
MISSING_ENGINE_MIN_S = 1.0
_SUGGESTED: set[str] = set()


def _warn_if_missing_engine_would_win(chosen: Prediction, job: Job) -> None:
    """Warn once per engine and process when an engine whose requirements are absent here would be
    much faster than ``chosen`` (e.g. NumPy chosen for a large job because Numba is missing)."""
    if chosen.total < MISSING_ENGINE_MIN_S:
        return
    absent = [info for info in engine_infos()
              if info.auto and info.install and info.name not in _SUGGESTED and missing(info)]
    faster = _predict_all([(info, dev) for info in absent for dev in info.devices()], job, kernels="cold")
    if not faster or faster[0].total > MISSING_ENGINE_RATIO * chosen.total:
        return
    best = faster[0]
    _SUGGESTED.add(best.engine)
    info = engine_info(best.engine)
    warnings.warn(
        f"auto ran this job on {chosen.engine} (predicted {chosen.total:.3g} s); {best.engine} would take about "
        f"{best.total:.3g} s but needs {', '.join(missing(info))}: {info.install}", PerformanceWarning, stacklevel=4)
