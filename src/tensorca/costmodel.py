"""The cost model behind ``backend="auto"``: predicted seconds per engine, device and run shape.

A run of ``G`` generations of a batch of ``B`` grids of ``H x W`` cells, made of ``C`` engine
calls, is predicted to take::

    import  (the framework, if this process has not imported it yet)
  + compile (first use of the rule: Numba / Triton kernels not yet in the on-disk cache)
  + C * (call_s + cells * call_cell_s)                      fixed per call, packing/unpacking
  + G * (gen_s * family_gen + cells * cell_s * family_cell + B * H * row_s)   per generation
  + transfer (2 * cells bytes / transfer_Bps when the data and the engine are on different devices)

``cells = B * H * W``. ``family_*`` are multipliers by rule class (``moore``: two-state
outer-totalistic Moore rules; ``table``: other two-state 3x3 rules, e.g. Hensel letters;
``generations``: 3x3 rules with decay states; ``ltl``: Larger than Life, per ``2r + 1`` mask rows
relative to range 5). The built-in defaults were measured on the 2-core CPU that wrote this
module (see ``docs/gpu_crossover.md``; the CUDA figures are estimates until a GPU session
calibrates them). ``tensorca bench --calibrate`` measures this machine and saves the fitted
values as JSON in the user cache directory (``$TENSORCA_CACHE_DIR/costmodel.json``, else
``~/.cache/tensorca/costmodel.json``); saved values override the defaults key by key.

Deciding is cheap: no benchmarking at call time, and no framework is imported to rank the
candidates (``importlib.util.find_spec`` tells whether one is installed). The engine finally
chosen is always checked with its own ``supports(rule, topology)``: the model can be slow, never
wrong.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import json
import math
import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from .rules.base import LargerThanLifeRule, Rule, TableRule
from .topology import Topology

COSTMODEL_VERSION = 1

#: Generations per engine call on the unbounded plane (mirrors ``unbounded.CHUNK``).
UNBOUNDED_CHUNK = 64


@dataclasses.dataclass(frozen=True)
class EngineCost:
    """Cost parameters of one engine on one device (seconds, bytes/s)."""

    call_s: float = 20e-6
    call_cell_s: float = 0.0
    gen_s: float = 30e-6
    cell_s: float = 2.5e-9
    row_s: float = 0.0  # per grid row per generation (bit-packed kernels: row setup, edge words)
    compile_s: float = 0.0
    load_s: float = 0.0  # kernels compiled before (disk cache) but not yet loaded in this process
    import_s: float = 0.0
    transfer_Bps: float = 0.0  # 0: the engine runs on the host
    family_gen: dict = dataclasses.field(default_factory=dict)
    family_cell: dict = dataclasses.field(default_factory=dict)

    def gen_factor(self, family: str) -> float:
        return float(self.family_gen.get(family, 1.0))

    def cell_factor(self, family: str) -> float:
        return float(self.family_cell.get(family, 1.0))


#: Built-in defaults: ``"engine@device"`` -> parameters. Measured on a 2-core AMD EPYC (Zen 5)
#: with NumPy 2.4, torch 2.13 CPU, Numba 0.68 (2026-11-30); CUDA entries are estimates for a
#: recent data-centre GPU (H100/H200 class) until ``tensorca bench --calibrate`` runs there.
DEFAULTS: dict[str, EngineCost] = {
    "numpy@cpu": EngineCost(
        call_s=10e-6, gen_s=30e-6, cell_s=2.5e-9,
        family_gen={"table": 1.0, "generations": 1.3, "ltl": 2.0},
        family_cell={"table": 1.05, "generations": 5.0, "ltl": 2.4},
    ),
    "torch@cpu": EngineCost(
        call_s=25e-6, gen_s=40e-6, cell_s=0.5e-9, import_s=0.9,
        family_gen={"table": 1.1, "generations": 1.5, "ltl": 1.2},
        family_cell={"table": 1.1, "generations": 4.5, "ltl": 2.5},
    ),
    "dense-conv@cpu": EngineCost(
        call_s=40e-6, gen_s=25e-6, cell_s=25e-9, import_s=0.9,
    ),
    "bitpack-cpu@cpu": EngineCost(
        call_s=60e-6, call_cell_s=1.0e-9, gen_s=0.6e-6, cell_s=0.08e-9, row_s=30e-9, compile_s=6.0, load_s=0.25, import_s=0.3,
    ),
    "torch@cuda": EngineCost(
        call_s=40e-6, gen_s=60e-6, cell_s=2e-12, import_s=1.5, transfer_Bps=12e9,
        family_gen={"table": 1.2, "generations": 1.5, "ltl": 2.0},
        family_cell={"table": 1.5, "generations": 2.0, "ltl": 3.0},
    ),
    "dense-conv@cuda": EngineCost(
        call_s=100e-6, gen_s=80e-6, cell_s=20e-12, import_s=1.5, transfer_Bps=12e9,
    ),
    "bitpack-gpu@cuda": EngineCost(
        call_s=60e-6, call_cell_s=5e-12, gen_s=6e-6, cell_s=0.1e-12, compile_s=3.0, import_s=2.0,
        transfer_Bps=12e9,
    ),
}

#: Engines ``auto`` considers, in order of preference when predictions tie.
AUTO_ENGINES = ("bitpack-gpu", "bitpack-cpu", "torch", "numpy", "dense-conv")
#: What each engine needs installed (checked with ``find_spec``, nothing imported).
REQUIRES = {
    "numpy": (),
    "torch": ("torch",),
    "dense-conv": ("torch",),
    "bitpack-cpu": ("numba",),
    "bitpack-gpu": ("torch", "triton"),
}
#: The module whose presence in ``sys.modules`` means the import cost is already paid.
IMPORTS = {"torch": "torch", "dense-conv": "torch", "bitpack-cpu": "numba", "bitpack-gpu": "triton"}


# -- calibration file -------------------------------------------------------------------------


def cache_dir() -> Path:
    """``$TENSORCA_CACHE_DIR`` if set, else ``~/.cache/tensorca``."""
    if os.environ.get("TENSORCA_CACHE_DIR"):
        return Path(os.environ["TENSORCA_CACHE_DIR"])
    return Path.home() / ".cache" / "tensorca"


def calibration_path() -> Path:
    """Where ``tensorca bench --calibrate`` saves fitted costs."""
    return cache_dir() / "costmodel.json"


@lru_cache(maxsize=8)
def _load_calibration(path: str, mtime: float) -> dict[str, dict]:
    try:
        with open(path) as fh:
            data = json.load(fh)
    except (OSError, ValueError):
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
    base = DEFAULTS.get(key) or DEFAULTS.get(key.split("@")[0] + "@cpu") or EngineCost()
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
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w") as fh:
        json.dump({"version": COSTMODEL_VERSION, "meta": meta or {}, "engines": values}, fh, indent=1, sort_keys=True)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    _load_calibration.cache_clear()
    return path


# -- rule classes and availability ------------------------------------------------------------


def rule_class(rule: Rule) -> tuple[str, float]:
    """``(family key, scale)``: ``moore``, ``table``, ``generations`` or ``ltl`` (scale = mask rows / 11,
    times the mask counts a weighted neighbourhood needs)."""
    if isinstance(rule, LargerThanLifeRule):
        passes = 1
        if rule.is_weighted:  # one mask count per distinct weight and weighted state
            weights = rule.neighbourhood_weights()
            sw = rule.state_weights()
            states = 1 if sw is None else max(1, sum(1 for w in sw[1:] if w != sw[0]))
            passes = len({int(w) for w in weights.flat if w}) * states
        return "ltl", passes * (2 * rule.radius + 1) / 11.0
    if isinstance(rule, TableRule):
        if rule.n_states > 2:
            return "generations", 1.0
        return ("moore" if rule.is_outer_totalistic_moore else "table"), 1.0
    return "other", 1.0


def installed(module: str) -> bool:
    """True when ``module`` can be imported here (checked without importing it)."""
    return module in sys.modules or _findable(module)


@functools.lru_cache(maxsize=None)
def _findable(module: str) -> bool:
    # find_spec walks sys.path: once per process, not on every run() call.
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


@lru_cache(maxsize=1)
def _gpu_device_files() -> bool:
    return any(os.path.exists(p) for p in ("/dev/nvidiactl", "/dev/nvidia0", "/proc/driver/nvidia/version", "/dev/kfd"))


def cuda_available() -> bool:
    """True when torch sees a CUDA device. Imports torch only where a GPU driver is present."""
    if "torch" not in sys.modules and not (_gpu_device_files() and installed("torch")):
        return False
    try:
        import torch

        return bool(torch.cuda.is_available())
    except Exception:  # pragma: no cover - broken CUDA installs
        return False


def _maybe_supports(name: str, rule: Rule, topology: Topology) -> bool:
    """A cheap pre-filter (no framework import); the engine's own ``supports`` decides at the end."""
    if not topology.bounded:
        return False
    if name in ("bitpack-cpu", "bitpack-gpu", "dense-conv"):
        from .engines.bitpack_circuit import why_not_bitpack

        return why_not_bitpack(rule, topology) is None
    return isinstance(rule, (TableRule, LargerThanLifeRule))


def engine_devices(name: str) -> list[str]:
    """Devices ``auto`` may use for ``name`` here (nothing imported for CPU-only machines)."""
    if not all(installed(m) for m in REQUIRES.get(name, ())):
        return []
    if name == "numpy" or name == "bitpack-cpu":
        return ["cpu"]
    if name == "bitpack-gpu":  # the Triton interpreter is for tests, never the fast choice
        return ["cuda"] if cuda_available() else []
    return ["cpu", "cuda"] if cuda_available() else ["cpu"]


def kernel_state(name: str, rule: Rule) -> str:
    """``"loaded"`` (in this process), ``"disk"`` (compiled before, in the on-disk cache), ``"cold"``
    (must be compiled first) or ``"none"`` (the engine compiles nothing) for ``rule`` on ``name``.

    For ``bitpack-cpu`` this looks for the generated kernel module of the rule's expression in the
    kernel cache directory and for Numba's index files next to it, without importing Numba.
    """
    if name not in ("bitpack-cpu", "bitpack-gpu"):
        return "none"
    from .engines import bitpack_circuit as circuit

    if circuit.why_not_bitpack(rule, Topology.plane(1, 1)) is not None:
        return "none"
    birth, survival = circuit.bs_sets(rule)
    expression = circuit.rule_expression(birth, survival)
    prefix = "tensorca_bitpack_cpu_" if name == "bitpack-cpu" else "tensorca_bitpack_gpu_"
    for module_name, module in list(circuit._MODULES.items()):
        if module_name.startswith(prefix) and expression in (module.__doc__ or ""):
            return "loaded"
    if name == "bitpack-gpu":
        return "cold"  # Triton's own cache is not inspected; count one compile per process
    try:
        directory = str(circuit.kernel_cache_dir())
    except OSError:
        return "cold"
    return "disk" if _compiled_on_disk(directory, prefix, expression) else "cold"


@functools.lru_cache(maxsize=256)
def _compiled_on_disk(directory: str, prefix: str, expression: str) -> bool:
    """Whether Numba's cache in ``directory`` holds the kernel module of ``expression``.

    Looked up once per process and cache directory: once the kernel is loaded in this process,
    :func:`kernel_state` answers "loaded" before asking this.
    """
    try:
        cache = Path(directory) / "__pycache__"
        for path in Path(directory).glob(prefix + "*.py"):
            with open(path) as fh:
                first = fh.readline()
            if first.rstrip().endswith(expression + '"""') and any(cache.glob(path.stem + ".*.nbi")):
                return True
    except OSError:
        pass
    return False


# -- prediction -------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Prediction:
    """Predicted seconds of one engine on one device, with the parts that add up to ``total``."""

    engine: str
    device: str
    total: float
    parts: dict
    supported: bool = True
    note: str = ""

    @property
    def key(self) -> str:
        return f"{self.engine}@{self.device}"


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
) -> Prediction:
    """Predicted seconds for ``engine`` on ``device`` (see the module docstring for the formula).

    ``shape`` is ``(H, W)``; on the unbounded plane it is the pattern's current bounding box and
    each call runs on it padded by ``reach * 64`` cells a side. ``kernels``: the state of the rule's
    compiled kernels (:func:`kernel_state`; None: look). ``warm_process``: the framework is already
    imported (None: look in ``sys.modules``).
    """
    c = costs(f"{engine}@{device}")
    family, scale = rule_class(rule)
    height, width = shape
    gens_per_call = generations
    if unbounded:
        reach = rule.radius if isinstance(rule, LargerThanLifeRule) else 1
        gens_per_call = min(UNBOUNDED_CHUNK, max(generations, 1))
        calls = max(1, math.ceil(generations / UNBOUNDED_CHUNK))
        margin = reach * gens_per_call
        height, width = height + 2 * margin, width + 2 * margin
    cells = batch * height * width
    parts: dict[str, float] = {}
    module = IMPORTS.get(engine)
    imported = (module in sys.modules) if warm_process is None else warm_process
    parts["import"] = 0.0 if (module is None or imported) else c.import_s
    state = kernel_state(engine, rule) if kernels is None else kernels
    parts["compile"] = c.compile_s if state == "cold" else c.load_s if state == "disk" else 0.0
    parts["per_call"] = calls * (c.call_s + cells * c.call_cell_s)
    parts["per_generation"] = generations * c.gen_s * c.gen_factor(family)
    parts["compute"] = generations * cells * c.cell_s * c.cell_factor(family) * (scale if family == "ltl" else 1.0)
    parts["compute"] += generations * batch * height * c.row_s
    moves = 0
    if device != data_device:
        moves = 2 * (calls if unbounded else 1)
    parts["transfer"] = moves * cells / c.transfer_Bps if (moves and c.transfer_Bps > 0) else 0.0
    total = sum(parts.values())
    return Prediction(engine, device, total, parts)


@dataclasses.dataclass
class Choice:
    """What ``auto`` chose, and every prediction it compared (fastest first)."""

    engine: str
    device: str
    predictions: list

    def describe(self) -> str:
        lines = [f"auto chose {self.engine} on {self.device}"]
        for p in self.predictions:
            mark = "*" if (p.engine, p.device) == (self.engine, self.device) else " "
            if not p.supported:
                lines.append(f" {mark} {p.key:18s} not supported: {p.note}")
                continue
            parts = ", ".join(f"{k} {v * 1e3:.3g} ms" for k, v in p.parts.items() if v)
            lines.append(f" {mark} {p.key:18s} {p.total * 1e3:10.3f} ms  ({parts})")
        return "\n".join(lines)


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
) -> list[Prediction]:
    """Predictions for every installed engine/device ``auto`` may use, fastest first.

    ``device`` restricts the candidates to engines that run there (``"cuda"`` or ``"cuda:1"``
    match ``cuda``). Nothing is imported except to ask a bitpack engine whether its kernels are
    compiled when it is already loaded.
    """
    unbounded = not topology.bounded
    check = topology if topology.bounded else Topology.plane(1, 1)
    want = None if device is None else str(device).split(":")[0]
    data_kind = str(data_device).split(":")[0]
    out = []
    for name in AUTO_ENGINES:
        for dev in engine_devices(name):
            if want is not None and dev != want:
                continue
            if not _maybe_supports(name, rule, check):
                continue
            out.append(predict(name, dev, rule, batch, shape, generations, calls=calls,
                               data_device=data_kind, unbounded=unbounded))
    order = {name: i for i, name in enumerate(AUTO_ENGINES)}
    out.sort(key=lambda p: (p.total, order.get(p.engine, 99)))
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
) -> Choice:
    """The predicted-fastest engine that really supports ``rule`` on ``topology``.

    Candidates are tried fastest first; each is loaded and asked ``supports`` (the unbounded
    plane is checked as a bounded plane, which is what it runs on); one that refuses, or whose
    framework fails to import, is skipped. NumPy is the fallback for every rule it supports.
    """
    from .engines import get_engine
    from .errors import EngineError

    predictions = rank(rule, topology, batch, shape, generations, data_device=data_device, device=device,
                       calls=calls)
    check = topology if topology.bounded else Topology.plane(1, 1)
    checked = []
    chosen = None
    for p in predictions:
        if chosen is not None:
            checked.append(p)
            continue
        try:
            engine = get_engine(p.engine)
            ok = engine.supports(rule, check) and p.device in [d.split(":")[0] for d in engine.devices()]
            note = "" if ok else engine.why_unsupported(rule, check)
        except EngineError as exc:
            ok, note = False, str(exc)
        if ok:
            chosen = p
            checked.append(p)
        else:
            checked.append(dataclasses.replace(p, supported=False, note=note))
    if chosen is None:
        where = f" on {device}" if device else ""
        raise EngineError(f"no engine{where} supports rule {rule.canonical()!r} on {topology}")
    return Choice(chosen.engine, chosen.device, checked)
