"""Stochastic rules: noisy B/S rules, α-asynchronous updating, Domany–Kinzel, forest fire and SIR.

A stochastic rule is written as a rule, a colon and ``key=value`` parameters; a Golly topology
suffix, when there is one, follows after a second colon::

    B3/S23:pb=0.9,ps=0.99            a birth happens with probability pb, a survival with probability ps
    B3/S23:async=0.5                 α-asynchronous: each cell takes its new state with probability 0.5
    B36/S23:pb=0.95,async=0.8:T64,64 both, on a 64 x 64 torus
    DK:p1=0.6,p2=0.8                 Domany–Kinzel (time runs down the rows, as in Golly's W rules)
    ForestFire:p=0.05,f=0.0001       Drossel–Schwabl forest fire
    SIR:beta=0.3,gamma=0.1           epidemic (SIRS with ``rho=``)

Every random draw is :mod:`tensorca.randomness`'s pure function of ``(seed, generation, draw, grid,
y, x)``: the step from generation ``t`` to ``t + 1`` draws with ``generation = t`` (absolute), the
cell's absolute coordinates and its grid's index in the batch; so every engine, chunking, batch and
resumed run gives the same cells for the same seed. What each family computes (``c`` the cell's
state, ``d`` what the deterministic rule gives it):

- **noisy** (``pb``, ``ps``, ``async``; on any B/S, Hensel, MAP, Generations or Larger than Life
  rule; ``async`` alone on any rule with one plane of cells): a birth (``c == 0``, ``d == 1``)
  happens only where the Bernoulli(``pb``) draw ``0`` is 1, else the cell stays 0; a survival
  (``c == 1``, ``d == 1``) only where the Bernoulli(``ps``) draw ``1`` is 1, else the cell fails to
  survive (0, or 2, the first decay state, in Generations); every other transition is the
  rule's. Then, with ``async``, the cell takes that state only where the Bernoulli(``async``)
  draw ``2`` is 1, else keeps ``c``. ``async=1`` is the synchronous rule, ``async=0`` the identity.
- **Domany–Kinzel** (``p1``, ``p2``): a 1-D line evolving in time, drawn as Golly draws its ``W``
  rules: row ``y`` is time ``y``. A dead cell with ``n`` live cells among its NW and NE neighbours
  (the line's left and right neighbours one time step earlier) is born where the Bernoulli(``p1``)
  draw ``0`` (``n == 1``) or the Bernoulli(``p2``) draw ``1`` (``n == 2``) is 1; live cells stay.
  Draws are keyed by ``generation = 0`` whatever the generation (row ``y`` *is* the time), so a grid
  whose top row is seeded holds the space-time diagram after ``H - 1`` generations, the same as
  :func:`tensorca.elementary.domany_kinzel`.
- **ForestFire** (``p``, ``f``; states 0 empty, 1 tree, 2 fire; von Neumann neighbours): fire
  becomes empty; a tree catches fire when one of its four neighbours burns, else with probability
  ``f`` (lightning); an empty cell grows a tree with probability ``p``. One uniform draw ``0`` a cell.
- **SIR** (``beta``, ``gamma``, optional ``rho``; states 0 susceptible, 1 infected, 2 recovered;
  von Neumann neighbours, synchronous): a susceptible cell with ``k`` infected neighbours becomes
  infected with probability ``1 - (1 - beta)^k`` (each neighbour transmits independently); an
  infected cell recovers with probability ``gamma``; a recovered cell becomes susceptible again with
  probability ``rho`` (0 unless given: SIR; above 0: SIRS). One uniform draw ``0`` a cell.

Bernoulli draws (noisy, Domany–Kinzel) use probabilities quantised to multiples of ``2^-16``
(:func:`tensorca.randomness.quantize`), which is what makes them a few word operations on
bit-packed engines; a probability that would quantise to 0 or 1 without being 0 or 1 is refused.
Uniform draws (forest fire, SIR) compare 53 random bits with ``ceil(p 2^53)``: exact for any ``p``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from ...randomness import P_BITS, quantize, uniform_threshold
from ...rules._errors import fail
from ...rules.base import Rule
from ...rules.notation import parse_range
from ...rules.stepspec import Index3x3, StateSpace, StepSpec

#: Names of the stochastic families with their own notation, lower case -> canonical spelling.
FAMILY_NAMES = {"dk": "DK", "forestfire": "ForestFire", "sir": "SIR"}
#: Parameters a noisy rule takes, in canonical order (``async`` is stored as ``alpha``).
NOISY_KEYS = ("pb", "ps", "async")
#: Draw indices (the ``draw`` of :func:`tensorca.randomness.stream_key`).
BIRTH_DRAW, SURVIVAL_DRAW, ASYNC_DRAW = 0, 1, 2
_NUMBER = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?", re.ASCII)


# -- step specs -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class VonNeumannStates:
    """Perceive the states of the four von Neumann neighbours (forest fire, SIR)."""

    kind: Literal["von_neumann_states"] = "von_neumann_states"


@dataclass(frozen=True)
class NoisyUpdate:
    """The deterministic ``base`` rule's update, then births kept with probability ``pb``, survivals
    with ``ps``, and the new state taken with probability ``alpha`` (see the module docstring)."""

    base: Rule
    pb: float = 1.0
    ps: float = 1.0
    alpha: float = 1.0
    kind: Literal["noisy"] = "noisy"

    @property
    def birth_survival(self) -> bool:
        """True when births or survivals are noisy (``pb`` or ``ps`` below 1 once quantised)."""
        return quantize(self.pb) < 1 << P_BITS or quantize(self.ps) < 1 << P_BITS

    @property
    def asynchronous(self) -> bool:
        """True when some cells keep their state (``alpha`` below 1 once quantised)."""
        return quantize(self.alpha) < 1 << P_BITS


@dataclass(frozen=True)
class DomanyKinzelUpdate:
    """Domany–Kinzel births from the NW and NE neighbours (see the module docstring)."""

    p1: float
    p2: float
    kind: Literal["domany_kinzel"] = "domany_kinzel"


@dataclass(frozen=True)
class ForestFireUpdate:
    """Drossel–Schwabl forest fire: growth ``p``, lightning ``f`` (see the module docstring)."""

    p: float
    f: float
    kind: Literal["forest_fire"] = "forest_fire"


@dataclass(frozen=True)
class SIRUpdate:
    """Discrete-time SIR(S): infection ``beta`` per infected neighbour, recovery ``gamma``, loss of
    immunity ``rho`` (see the module docstring)."""

    beta: float
    gamma: float
    rho: float = 0.0
    kind: Literal["sir"] = "sir"

    def infection_thresholds(self) -> tuple[int, ...]:
        """``uniform_threshold(1 - (1 - beta)^k)`` for ``k`` = 0..4 infected neighbours."""
        return tuple(uniform_threshold(1.0 - (1.0 - self.beta) ** k) for k in range(5))


# -- rule values ----------------------------------------------------------------------------------


def format_probability(p: float) -> str:
    """The shortest decimal that reads back as ``p`` (``0.9``, ``1``, ``1e-05``)."""
    text = repr(float(p))
    return text[:-2] if text.endswith(".0") else text


def _spell(name: str, values: dict[str, float]) -> str:
    return name + ":" + ",".join(f"{key}={format_probability(value)}" for key, value in values.items())


@dataclass(frozen=True, eq=True)
class NoisyRule(Rule):
    """A deterministic ``base`` rule with noisy births (``pb``), survivals (``ps``) and asynchronous
    updating (``alpha``, written ``async``). ``text``: the canonical spelling."""

    base: Rule
    pb: float = 1.0
    ps: float = 1.0
    alpha: float = 1.0
    text: str = field(default="", compare=False)

    @property
    def family(self) -> str:  # type: ignore[override]
        return f"stochastic {self.base.family}"

    @property
    def n_states(self) -> int:  # type: ignore[override]
        return self.base.n_states

    def canonical(self) -> str:
        if self.text:
            return self.text
        values = {"pb": self.pb, "ps": self.ps, "async": self.alpha}
        return _spell(self.base.canonical(), {k: v for k, v in values.items() if v != 1.0} or {"async": 1.0})

    def _compile(self) -> StepSpec:
        base = self.base.compile()
        fires = quantize(self.pb) > 0 and quantize(self.alpha) > 0
        return StepSpec(perceive=base.perceive, update=NoisyUpdate(self.base, self.pb, self.ps, self.alpha),
                        reach=base.reach, state_space=base.state_space,
                        births_from_nothing=base.births_from_nothing and fires, stochastic=True)


@dataclass(frozen=True, eq=True)
class DomanyKinzelRule(Rule):
    """Domany–Kinzel with probabilities ``p1`` (one live neighbour) and ``p2`` (two)."""

    family: ClassVar[str] = "domany-kinzel"
    n_states: ClassVar[int] = 2  # type: ignore[misc]

    p1: float
    p2: float

    def canonical(self) -> str:
        return _spell("DK", {"p1": self.p1, "p2": self.p2})

    def _compile(self) -> StepSpec:
        return StepSpec(perceive=Index3x3(), update=DomanyKinzelUpdate(self.p1, self.p2), reach=1,
                        state_space=StateSpace("discrete", 2), stochastic=True)


@dataclass(frozen=True, eq=True)
class ForestFireRule(Rule):
    """Drossel–Schwabl forest fire with growth ``p`` and lightning ``f`` (states empty, tree, fire)."""

    family: ClassVar[str] = "forest-fire"
    n_states: ClassVar[int] = 3  # type: ignore[misc]

    p: float
    f: float

    def canonical(self) -> str:
        return _spell("ForestFire", {"p": self.p, "f": self.f})

    def _compile(self) -> StepSpec:
        return StepSpec(perceive=VonNeumannStates(), update=ForestFireUpdate(self.p, self.f), reach=1,
                        state_space=StateSpace("discrete", 3), births_from_nothing=self.p > 0, stochastic=True)


@dataclass(frozen=True, eq=True)
class SIRRule(Rule):
    """SIR(S) with infection ``beta``, recovery ``gamma`` and loss of immunity ``rho`` (states S, I, R)."""

    family: ClassVar[str] = "sir"
    n_states: ClassVar[int] = 3  # type: ignore[misc]

    beta: float
    gamma: float
    rho: float = 0.0
    text: str = field(default="", compare=False)

    def canonical(self) -> str:
        if self.text:
            return self.text
        values = {"beta": self.beta, "gamma": self.gamma}
        return _spell("SIR", {**values, "rho": self.rho} if self.rho else values)

    def _compile(self) -> StepSpec:
        return StepSpec(perceive=VonNeumannStates(), update=SIRUpdate(self.beta, self.gamma, self.rho), reach=1,
                        state_space=StateSpace("discrete", 3), stochastic=True)


# -- notation -------------------------------------------------------------------------------------


def matches(body: str) -> bool:
    """True for ``rule:key=value,...`` and for the stochastic families' names (``DK``, ``ForestFire``, ``SIR``)."""
    return ":" in body or body.strip().lower() in FAMILY_NAMES


@dataclass
class _Param:
    key: str
    value: str
    key_at: int
    value_at: int


def _params(text: str, start: int, end: int) -> dict[str, _Param]:
    """The ``key=value`` pairs of ``text[start:end]`` (keys lower-cased), positioned for errors."""
    if not text[start:end].strip():
        raise fail("missing parameters after ':' (write key=value pairs, e.g. B3/S23:pb=0.9,ps=0.99)", text, start)
    found: dict[str, _Param] = {}
    pos = start
    for item in text[start:end].split(","):
        at = pos + len(item) - len(item.lstrip())
        pos += len(item) + 1
        stripped = item.strip()
        if not stripped:
            raise fail("empty parameter (two commas in a row, or a comma at the end)", text, at)
        key, equals, value = stripped.partition("=")
        key = key.strip()
        if not equals:
            raise fail(f"parameter {key!r} has no value: write {key}=<number>", text, at)
        if not key:
            raise fail("a parameter needs a name before '='", text, at)
        value_at = at + stripped.index("=") + 1
        value_at += len(value) - len(value.lstrip())
        value = value.strip()
        if not value:
            raise fail(f"missing value for {key}: write {key}=<number>", text, value_at)
        lower = key.lower()
        if lower in found:
            raise fail(f"parameter {key} given twice", text, at)
        if not _NUMBER.fullmatch(value):
            raise fail(f"{key}={value} is not a number", text, value_at)
        found[lower] = _Param(lower, value, at, value_at)
    return found


def _probability(param: _Param, text: str, bernoulli: bool) -> float:
    """``param``'s value as a probability (RuleError outside 0..1, or, for a Bernoulli draw, where
    quantising to multiples of 2^-16 would turn it into a certainty)."""
    value = float(param.value)
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise fail(f"{param.key}={param.value} is not a probability (a number from 0 to 1)", text, param.value_at)
    if bernoulli:
        q = quantize(value)
        step = 2.0 ** -P_BITS
        if value > 0 and q == 0:
            raise fail(f"{param.key}={param.value} is below half of 2^-16 (Bernoulli draws come in steps of 2^-16 "
                       f"and it would never happen): use 0 or at least {step / 2:.3g}", text, param.value_at)
        if value < 1 and q == 1 << P_BITS:
            raise fail(f"{param.key}={param.value} is within half of 2^-16 of 1 (Bernoulli draws come in steps of "
                       f"2^-16 and it would always happen): use 1 or at most {1 - step / 2:.9g}", text,
                       param.value_at)
    return value


def _only(params: dict[str, _Param], allowed: tuple[str, ...], what: str, text: str) -> None:
    for param in params.values():
        if param.key not in allowed:
            raise fail(f"unknown parameter {param.key!r} for {what}: expected {', '.join(allowed)}", text,
                       param.key_at)


def _required(params: dict[str, _Param], keys: tuple[str, ...], example: str, text: str, end: int) -> None:
    for key in keys:
        if key not in params:
            raise fail(f"missing parameter {key} (write {example})", text, end)


def parse(text: str, start: int, end: int) -> Rule:
    """Parse ``text[start:end]``: a family name with parameters, or a rule with ``:pb=,ps=,async=``."""
    colon = text.find(":", start, end)
    head_end = colon if colon >= 0 else end
    head = text[start:head_end]
    h0 = start + len(head) - len(head.lstrip())
    h1 = h0 + len(head.strip())
    name = FAMILY_NAMES.get(head.strip().lower())
    if name is not None:
        if colon < 0:
            raise fail(f"{name} needs its parameters: {_EXAMPLES[name]}", text, h1)
        return _parse_family(name, _params(text, colon + 1, end), text, end)

    base = parse_range(text, h0, h1)
    return noisy(base, _params(text, colon + 1, end), text, end)


_EXAMPLES = {"DK": "DK:p1=<p>,p2=<p>", "ForestFire": "ForestFire:p=<p>,f=<p>", "SIR": "SIR:beta=<p>,gamma=<p>"}


def _parse_family(name: str, params: dict[str, _Param], text: str, end: int) -> Rule:
    if name == "DK":
        _only(params, ("p1", "p2"), "DK (Domany–Kinzel)", text)
        _required(params, ("p1", "p2"), _EXAMPLES[name], text, end)
        return DomanyKinzelRule(_probability(params["p1"], text, True), _probability(params["p2"], text, True))
    if name == "ForestFire":
        _only(params, ("p", "f"), "ForestFire", text)
        _required(params, ("p", "f"), _EXAMPLES[name], text, end)
        return ForestFireRule(_probability(params["p"], text, False), _probability(params["f"], text, False))
    _only(params, ("beta", "gamma", "rho"), "SIR", text)
    _required(params, ("beta", "gamma"), _EXAMPLES[name], text, end)
    values = {key: _probability(param, text, False) for key, param in params.items()}
    keys = [key for key in ("beta", "gamma", "rho") if key in values]
    return SIRRule(values["beta"], values["gamma"], values.get("rho", 0.0),
                   text=_spell("SIR", {key: values[key] for key in keys}))


def noisy(base: Rule, params: dict[str, _Param], text: str, end: int) -> NoisyRule:
    """``base`` with the noisy parameters ``pb``, ``ps``, ``async`` (RuleError for what it cannot take)."""
    what = base.canonical()
    _only(params, NOISY_KEYS, what, text)
    spec = base.compile()
    if spec.stochastic:
        raise fail(f"{what} is already stochastic; pb, ps and async apply to deterministic rules", text,
                   min(p.key_at for p in params.values()))
    if spec.state_space.channels is not None:
        raise fail(f"{what} has {spec.state_space.channels} channels; noisy and asynchronous updating take rules "
                   "with one plane of cells", text, min(p.key_at for p in params.values()))
    verdicts = spec.state_space.discrete and spec.update.kind in ("table", "intervals")
    for key in ("pb", "ps"):
        if key in params and not verdicts:
            raise fail(f"{key} needs a rule with births and survivals (B/S, Hensel, MAP, Generations, Larger than "
                       f"Life), not {what} ({base.family}); async works with any rule", text, params[key].key_at)
    values = {key: _probability(param, text, True) for key, param in params.items()}
    keys = [key for key in NOISY_KEYS if key in values]
    return NoisyRule(base, values.get("pb", 1.0), values.get("ps", 1.0), values.get("async", 1.0),
                     text=_spell(what, {key: values[key] for key in keys}))


# -- what `tensorca rule` says ------------------------------------------------------------------


def describe(rule: Rule) -> dict[str, str]:
    """``key -> value`` lines about a stochastic rule's draws (empty for any other rule)."""
    spec = rule.compile()
    if not spec.stochastic:
        return {}
    update = spec.update

    def bern(p: float) -> str:
        q = quantize(p)
        return f"{format_probability(p)} (drawn as {q}/65536)" if q not in (0, 1 << P_BITS) else format_probability(p)

    lines = {"randomness": "counter-based: a pure function of (seed, generation, draw, grid, y, x); run(seed=...)"}
    if isinstance(update, NoisyUpdate):
        lines["base rule"] = update.base.canonical()
        lines["birth"] = f"probability {bern(update.pb)}, Bernoulli draw {BIRTH_DRAW}"
        lines["survival"] = f"probability {bern(update.ps)}, Bernoulli draw {SURVIVAL_DRAW}"
        lines["async update"] = f"probability {bern(update.alpha)}, Bernoulli draw {ASYNC_DRAW}"
    elif isinstance(update, DomanyKinzelUpdate):
        lines["births"] = f"one live neighbour (NW or NE) {bern(update.p1)} (draw 0), two {bern(update.p2)} (draw 1)"
        lines["time"] = "down the rows (row y is time y; draws keyed by generation 0)"
    elif isinstance(update, ForestFireUpdate):
        lines["cell states"] = "0 empty, 1 tree, 2 fire (von Neumann neighbours), uniform draw 0"
    elif isinstance(update, SIRUpdate):
        lines["cell states"] = "0 susceptible, 1 infected, 2 recovered (von Neumann neighbours), uniform draw 0"
    return lines


__all__ = ["DomanyKinzelRule", "DomanyKinzelUpdate", "ForestFireRule", "ForestFireUpdate", "NoisyRule", "NoisyUpdate",
           "SIRRule", "SIRUpdate", "VonNeumannStates", "describe", "matches", "parse"]
