"""``tensorca verify``: every engine, on every device here, bit-identical to the NumPy reference.

For each engine (other than the reference) and each of its devices, each rule family and each
topology (torus, plane, shifted tori, Klein bottles, cross-surface, sphere: :func:`topology_for`;
an engine that does not run a topology gets a skipped row), ``grids`` random grids (odd and
non-square sizes, 1x1 included; densities 0.1-0.9; Generations starts hold every state) are
advanced ``generations`` generations and compared bit for bit with
:class:`~tensorca.engines.numpy_reference.NumpyEngine`; continuous rules (Lenia, float64 grids)
are compared within :data:`TOLERANCE`, which the report states on each such row. A mismatch is reported with the first
generation, grid and cell ``(y, x)`` where the engine and the reference part.

The engines checked are the registry's (:func:`~tensorca.engines.available_engines`): an engine
registered in one call is verified like the built-in ones.

A negative control runs alongside: the reference engine with zero padding on a torus (the classic
mistake that turns a torus into a dead boundary), on at least :data:`CONTROL_GRIDS` grids whatever
``grids`` says (one 1x1 grid cannot tell the two apart). It must be *caught*; a verifier that
cannot see that mistake proves nothing, so the report fails if the control passes.

``verify(...)`` returns a :class:`VerifyReport`; ``report.ok`` is True only when every real
engine matched on every grid and every control was caught. With nothing but the reference
installed there is nothing to compare: :class:`~tensorca.errors.MissingDependencyError` says which
extras add engines.
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from .arrays import is_tensor, to_engine
from .engines import available_engines, engine_info, engine_infos, get_engine
from .engines.base import Engine, advance_engine
from .engines.registry import missing
from .errors import EngineError, MissingDependencyError, UsageError
from .families import families as all_families
from .families import family as family_named
from .families import family_names
from .randomness import Clock
from .rules import parse_rule
from .rules.base import Rule
from .rules.stepspec import TableUpdate
from .topology import Topology

#: The rule families verified by default: the registry's (:mod:`tensorca.families`), plug-ins included,
#: as installed when this module was imported; each family's rules are its declared ``samples``.
FAMILIES = family_names()
TOPOLOGIES = ("torus", "plane", "shifted", "klein", "cross", "sphere")
#: The engine every other is compared with.
REFERENCE = "numpy"
#: Grids the negative control runs on at least (grid 0 is 1x1, where zero padding and a torus agree).
CONTROL_GRIDS = 8
#: Largest difference allowed between an engine and the reference on a continuous (float64) rule whose
#: family declares none, per cell after all generations: FFT round-off is ~1e-15 per step.
TOLERANCE = 1e-9
#: Grid sizes (H, W), cycled: tiny, odd, non-square and square.
SIZES = ((1, 1), (2, 3), (5, 7), (17, 31), (31, 17), (16, 16), (33, 64), (40, 41), (9, 100), (64, 64))


def topology_for(kind: str, shape: tuple[int, int], index: int = 0) -> Topology:
    """The topology of grid ``index`` of row ``kind`` on a grid of ``shape`` ``(H, W)``.

    ``shifted`` cycles through shifts on the horizontal and vertical edges, both signs;
    ``klein`` through the horizontal and vertical twist, each with the shift where the twisted
    side is even; ``sphere`` is ``H x H`` (square), so the grid shape is ``topology.shape``.
    """
    height, width = shape
    if kind in ("torus", "plane"):
        return Topology(kind, width, height)  # type: ignore[arg-type]
    if kind == "shifted":
        variant = index % 4
        if variant < 2:
            return Topology.torus(width, height, shift_x=((1 + index) % width) * (-1) ** variant)
        return Topology.torus(width, height, shift_y=((1 + index) % height) * (-1) ** variant)
    if kind == "klein":
        twist: Literal["h", "v"] = "h" if index % 2 == 0 else "v"
        side = width if twist == "h" else height
        return Topology.klein(width, height, twist, shift=(index // 2) % 2 == 1 and side % 2 == 0)
    if kind == "cross":
        return Topology.cross(width, height)
    if kind == "sphere":
        return Topology.sphere(height)
    raise UsageError(f"unknown topology {kind!r}; expected one of {', '.join(TOPOLOGIES)}")


def rule_value(text: str) -> Rule:
    """A rule from a family's samples (``MAP-B3/S23`` and ``MAP-random:seed`` are MAP strings)."""
    if text.startswith("MAP-random:"):
        rng = np.random.default_rng(int(text.split(":")[1]))
        while True:
            bits = rng.integers(0, 2, 512).astype(np.uint8)
            bits[0] = 0  # no B0: keep the soup from flashing
            code = base64.b64encode(np.packbits(bits).tobytes()).decode().rstrip("=")
            # The rule parser (as of this writing) reads a '/' inside the base64 as a
            # Generations separator; draw tables whose encoding has none.
            if "/" not in code:
                return parse_rule("MAP" + code)
    if text.startswith("MAP-"):
        update = parse_rule(text[4:]).compile().update
        if not isinstance(update, TableUpdate):
            raise UsageError(f"{text!r}: only a rule with a 3x3 table can be respelled as a MAP rule")
        bits = update.lookup()
        return parse_rule("MAP" + base64.b64encode(np.packbits(bits).tobytes()).decode().rstrip("="))
    return parse_rule(text)


@dataclass
class VerifyRow:
    """One (engine, device, family, topology) line of the report."""

    engine: str
    device: str
    family: str
    topology: str
    grids: int = 0
    identical: int = 0
    first_mismatch: str | None = None
    #: Short form of ``first_mismatch``: ``"gen 1 grid 2 (y=0, x=5)"``.
    first_cell: str | None = None
    control: bool = False
    skipped: str | None = None
    rules: list[str] = field(default_factory=list)
    #: ``None``: compared bit for bit; else the largest absolute difference allowed (continuous rules).
    tolerance: float | None = None

    @property
    def passed(self) -> bool:
        """A real engine passes when every grid matched; a control when some grid did not."""
        if self.skipped is not None:
            return True
        return self.identical < self.grids if self.control else self.identical == self.grids


@dataclass
class VerifyReport:
    rows: list[VerifyRow]
    generations: int
    seed: int

    @property
    def ok(self) -> bool:
        """Every real engine matched everywhere, something was checked, every control was caught."""
        real = [r for r in self.rows if not r.control and r.skipped is None]
        return bool(real) and all(r.passed for r in self.rows)

    def failures(self) -> list[VerifyRow]:
        return [r for r in self.rows if not r.passed]

    def format(self) -> str:
        """The report as plain text, one row per line."""
        lines = [f"{'engine':20s} {'device':6s} {'family':18s} {'topology':8s} {'grids':>5s} {'identical':>9s}  result"]
        for r in self.rows:
            lines.append(
                f"{r.engine:20s} {r.device:6s} {r.family:18s} {r.topology:8s} {r.grids:5d} {r.identical:9d}  "
                f"{describe(r)}"
            )
        lines.append("OK" if self.ok else "FAILED")
        return "\n".join(lines)


def describe(row: VerifyRow) -> str:
    """The result column: ok / first mismatch / skipped reason / control verdict."""
    if row.skipped is not None:
        return f"skipped: {row.skipped}"
    if row.control:
        return f"caught, as it must be: {row.first_mismatch}" if row.passed else "NOT CAUGHT: the check is blind"
    if not row.passed:
        return f"MISMATCH: {row.first_mismatch}"
    return "bit-identical" if row.tolerance is None else f"within {row.tolerance:g} (float64)"


class ZeroPaddedTorusControl(Engine):
    """The negative control: ``base`` (default: the reference) with zero padding even on a torus
    (deliberately wrong)."""

    name = "control:zero-pad"

    def __init__(self, base: Engine | None = None) -> None:
        self._base: Any = base if base is not None else get_engine(REFERENCE)
        self.array_module = self._base.array_module

    def devices(self) -> list[str]:
        return self._base.devices()

    def supports(self, rule: Rule, topology: Topology) -> bool:
        return self._base.supports(rule, topology)

    def advance(self, cells: Any, rule: Rule, topology: Topology, generations: int) -> Any:
        if not topology.bounded:
            return self._base.advance(cells, rule, topology, generations)
        height, width = topology.shape
        return self._base.advance(cells, rule, Topology.plane(width, height), generations)


def random_grid(rng: np.random.Generator, shape: tuple[int, int], n_states: int,
                continuous: bool = False, channels: int | None = None) -> np.ndarray:
    """``(1, H, W)`` uint8: live with a density drawn from 0.1-0.9, any state 1..n-1 when live;
    ``continuous``: float64, uniform in [0, 1) where live, else 0; ``channels``: ``(1, C, H, W)``."""
    full = (1,) + ((channels,) if channels else ()) + shape
    density = rng.uniform(0.1, 0.9)
    live = rng.random(full) < density
    if continuous:
        return live * rng.random(full)
    states = rng.integers(1, n_states, full) if n_states > 2 else np.ones(full, dtype=np.int64)
    return (live * states).astype(np.uint8)


def to_numpy(cells: Any) -> np.ndarray:
    return cells.detach().cpu().numpy() if is_tensor(cells) else np.asarray(cells)


def differs(got: np.ndarray, want: np.ndarray, tolerance: float | None) -> np.ndarray:
    """Boolean mask of the cells where ``got`` leaves ``want`` (bit for bit, or beyond ``tolerance``)."""
    if tolerance is None:
        return got != want
    return ~(np.abs(got.astype(np.float64) - want) <= tolerance)  # NaN differs


def same(got: np.ndarray, want: np.ndarray, tolerance: float | None) -> bool:
    """True when ``got`` has ``want``'s shape and dtype and its cells (bit for bit, or within ``tolerance``)."""
    return got.shape == want.shape and got.dtype == want.dtype and not differs(got, want, tolerance).any()


def first_difference(got: np.ndarray, want: np.ndarray, tolerance: float | None = None) -> tuple[str, str]:
    """``("(y=.., x=..)", "cell (y=.., x=..): got a, want b")`` for the first differing cell."""
    if got.shape != want.shape:
        return "shape", f"shape {got.shape}, want {want.shape}"
    where = tuple(int(v) for v in np.argwhere(differs(got, want, tolerance))[0])
    y, x = where[-2:]
    plane = f"channel {where[1]} " if len(where) == 4 else ""
    if tolerance is None:
        return f"(y={y}, x={x})", f"{plane}cell (y={y}, x={x}): got {int(got[where])}, want {int(want[where])}"
    return f"(y={y}, x={x})", (f"{plane}cell (y={y}, x={x}): got {float(got[where])!r}, want {float(want[where])!r} "
                               f"(tolerance {tolerance:g})")


class _Reference:
    """Reference trajectories, computed once and shared by every engine and device."""

    def __init__(self) -> None:
        self.engine = get_engine(REFERENCE)
        self.cache: dict[tuple, list[np.ndarray]] = {}

    def trajectory(self, key: tuple, start: np.ndarray, rule: Rule, topology: Topology,
                   generations: int, seed: int = 0) -> list[np.ndarray]:
        if key not in self.cache:
            states = [start]
            for gen in range(generations):
                states.append(advance_engine(self.engine, states[-1], rule, topology, 1, clock_at(seed, gen)))
            self.cache[key] = states
        return self.cache[key]


def clock_at(seed: int, generation: int) -> Clock:
    """The clock of a stochastic rule's step from ``generation`` (a deterministic rule ignores it)."""
    return Clock(seed=seed, generation=generation)


def check_row(
    engine: Engine,
    device: str,
    family: str,
    kind: str,
    reference: _Reference,
    grids: int,
    generations: int,
    seed: int,
    control: bool = False,
) -> VerifyRow:
    """Run ``grids`` random grids of ``family`` on ``kind`` through ``engine`` on ``device``."""
    row = VerifyRow(engine.name, device, family, kind, control=control)
    declared = family_named(family)
    rules = [rule_value(text) for text in declared.samples]
    probes = [topology_for(kind, (8, 8), i) for i in range(4)]
    usable = [r for r in rules if all(engine.supports(r, t) for t in probes)]
    if not usable:
        if any(engine.supports(r, Topology.torus(8, 8)) for r in rules):
            row.skipped = f"{engine.name} does not run {kind} topologies"
        else:
            row.skipped = f"{engine.name} supports no {family} rule"
        return row
    row.rules = [r.canonical() for r in usable]
    continuous = not usable[0].state_space.discrete
    row.tolerance = (declared.tolerance or TOLERANCE) if continuous else declared.tolerance
    for index in range(grids):
        # The grid depends only on (seed, family, topology, index): every engine sees the same grids.
        rule = rules[index % len(rules)]
        if rule not in usable:
            rule = usable[index % len(usable)]
        shape = SIZES[index % len(SIZES)]
        topology = topology_for(kind, shape, index)
        rng = np.random.default_rng([seed, zlib.crc32(family.encode()), TOPOLOGIES.index(kind), index])
        start = random_grid(rng, topology.shape, rule.n_states, continuous, rule.state_space.channels)
        want = reference.trajectory((family, kind, index, rule, seed, generations), start, rule, topology, generations,
                                    seed)
        row.grids += 1
        try:
            got = to_numpy(advance_engine(engine, to_engine(start, engine.array_module, device), rule, topology,
                                          generations, clock_at(seed, 0)))
        except Exception as exc:  # noqa: BLE001 - an engine that crashes is a failed row, reported
            if row.first_mismatch is None:
                row.first_cell = f"grid {index}: raised"
                row.first_mismatch = f"grid {index} {rule.canonical()}: raised {type(exc).__name__}: {exc}"
            continue
        if same(got, want[-1], row.tolerance):
            row.identical += 1
        elif row.first_mismatch is None:
            row.first_cell, row.first_mismatch = locate(engine, device, start, rule, topology, want, index, got,
                                                        row.tolerance, seed)
    return row


def locate(engine: Engine, device: str, start: np.ndarray, rule: Rule, topology: Topology,
           want: list[np.ndarray], index: int, final: np.ndarray, tolerance: float | None = None,
           seed: int = 0) -> tuple[str, str]:
    """``(short, long)`` description of the first generation and cell where ``engine`` leaves ``want``."""
    where = f"grid {index} ({topology.height}x{topology.width} {rule.canonical()})"
    if final.dtype != want[-1].dtype:
        return f"grid {index} dtype", f"{where}: dtype {final.dtype}, want {want[-1].dtype}"
    cells = to_engine(start, engine.array_module, device)
    for gen in range(1, len(want)):
        cells = advance_engine(engine, cells, rule, topology, 1, clock_at(seed, gen - 1))
        got = to_numpy(cells)
        if not same(got, want[gen], tolerance):
            cell, text = first_difference(got, want[gen], tolerance)
            return f"gen {gen} grid {index} {cell}", f"gen {gen}, {where} {text}"
    cell, text = first_difference(final, want[-1], tolerance)
    gen = len(want) - 1
    return f"gen {gen}* grid {index} {cell}", f"gen {gen} (multi-generation call only), {where} {text}"


def verify(
    engines: Sequence[str | Engine] | None = None,
    devices: Sequence[str] | None = None,
    *,
    grids: int = 20,
    generations: int = 16,
    seed: int = 0,
    families: Sequence[str] | None = None,
    topologies: Sequence[str] = TOPOLOGIES,
    control: bool = True,
    on_row: Callable[[VerifyRow], None] | None = None,
) -> VerifyReport:
    """Check engines against the NumPy reference; see the module docstring.

    ``engines``: names or engine objects (default: every available engine in the registry but
    the reference). ``devices``: restrict to these devices (default: every device each engine has
    here). ``on_row`` is called with each row as it completes (for progress output).
    Raises :class:`UsageError` for bad arguments, :class:`EngineError` if a requested device exists
    for none of the engines, and :class:`MissingDependencyError` when no engine but the reference is
    installed (its message names the extras that add engines).
    """
    families = _check_arguments(grids, generations, families, topologies)
    chosen = _engines_to_check(engines)
    reference = _Reference()
    rows: list[VerifyRow] = []

    def emit(row: VerifyRow) -> None:
        rows.append(row)
        if on_row is not None:
            on_row(row)

    ran_any = False
    for engine in chosen:
        for device in [d for d in engine.devices() if devices is None or d in devices]:
            ran_any = True
            for family in families:
                for kind in topologies:
                    emit(check_row(engine, device, family, kind, reference, grids, generations, seed))
    if devices is not None and not ran_any and chosen:
        raise EngineError(
            f"no engine runs on {', '.join(devices)} here (engines: {', '.join(e.name for e in chosen)})"
        )
    if control and "torus" in topologies:
        engine = ZeroPaddedTorusControl()
        where = [d for d in engine.devices() if devices is None or d in devices] or engine.devices()[:1]
        for family in control_families(families):
            emit(check_row(engine, where[0], family, "torus", reference, max(grids, CONTROL_GRIDS), generations,
                           seed, control=True))
    return VerifyReport(rows, generations, seed)


#: The families the negative control runs on when they are verified (one per kind of neighbourhood:
#: 3x3, range r, continuous); verifying none of them, it runs on the first family asked for.
CONTROL_FAMILIES = ("life-like", "larger-than-life", "lenia")


def control_families(families: Sequence[str]) -> list[str]:
    """The families of ``families`` the zero-padding control runs on (never none when some are asked)."""
    chosen = [f for f in CONTROL_FAMILIES if f in families]
    return chosen or list(families[:1])


def _check_arguments(grids: int, generations: int, families: Sequence[str] | None,
                     topologies: Sequence[str]) -> tuple[str, ...]:
    """The families to check; :class:`UsageError` for a bad count or an unknown family or topology."""
    if grids < 1 or generations < 1:
        raise UsageError(f"verify needs at least one grid and one generation, got grids={grids}, "
                         f"generations={generations}")
    chosen = tuple(families or family_names())
    for name in chosen:
        family_named(name)  # UsageError naming the known families

    for kind in topologies:
        if kind not in TOPOLOGIES:
            raise UsageError(f"unknown topology {kind!r}; expected one of {', '.join(TOPOLOGIES)}")
    return chosen


def _engines_to_check(engines: Sequence[str | Engine] | None) -> list[Engine]:
    """The engines named (loaded from the registry), or every available one but the reference."""
    if engines is not None:
        return [e if isinstance(e, Engine) else get_engine(e) for e in engines]
    chosen = [e for e in available_engines() if e.name != REFERENCE and _runs_a_family(e)]
    if not chosen:
        hints = install_hints()
        first = next(iter(hints), None)
        text = "; ".join(f"{command} ({', '.join(names)})" for command, names in hints.items())
        raise MissingDependencyError(
            "only the NumPy reference engine is installed here, so there is no other engine to verify against it"
            + (f"; engines to verify come with: {text}" if text else ""),
            package=_first_missing_module(hints[first] if first else []), install=first)
    return chosen


def _runs_a_family(engine: Engine) -> bool:
    """True when ``engine`` runs the first sample rule of at least one family on a small torus (an
    engine for rules outside these families, such as ``margolus`` for Golly's emulated block rules,
    has nothing to verify here and is left out rather than reported as checking nothing)."""
    torus = Topology.torus(8, 8)
    for declared in all_families():
        try:
            if engine.supports(rule_value(declared.samples[0]), torus):
                return True
        except Exception:  # noqa: BLE001 - a family this engine cannot even ask about
            continue
    return False


def install_hints() -> dict[str, list[str]]:
    """``{"pip install 'tensorca[fast]'": ["bitpack-cpu"], ...}``: the commands that add the engines
    not installed here that have a device here to run on (else every engine's command), in the
    registry's order of preference."""
    infos = [i for i in engine_infos() if i.name != REFERENCE and i.install]
    absent = [i for i in infos if missing(i) and i.devices()] or [i for i in infos if missing(i)] or infos
    by_command: dict[str, list[str]] = {}
    for info in absent:
        by_command.setdefault(info.install, []).append(info.name)
    return by_command


def _first_missing_module(names: list[str]) -> str | None:
    """The first requirement of the engines ``names`` that is absent here."""
    absent = [module for name in names for module in missing(engine_info(name))]
    return absent[0] if absent else None
