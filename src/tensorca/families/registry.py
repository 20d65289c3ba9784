"""The rule-family registry: one :class:`Family` declaration per family, asked by everything else.

A family declares what the rest of tensorca needs to know about it, in the spirit of Golly's
``staticAlgoInfo``: which parsed rules are its own, how ``parse_rule`` recognises its notation (for a
family from another package), its kernels for engines that do not know its step-spec kinds, their
memory per cell, the cost class the cost model prices it by, and the sample rules ``verify``, the
engine contract test, ``bench --calibrate`` and the documentation use. The cost model, verify,
calibration, ``tensorca rule``/``info``, the docs' family table and the contract test read this
registry and nothing else, so a new family is one declaration.

Families from other packages arrive through the entry-point group ``tensorca.families``: each entry
names a :class:`Family` (``mypkg.family:FAMILY``). They are loaded on first need, when a rule text
matches no built-in notation or when the families are listed (:func:`tensorca.rules.notation.load_plugins`),
never at ``import tensorca``.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ..errors import EngineError, UsageError
from ..rules import notation as _notation
from ..rules.base import Rule

if TYPE_CHECKING:  # pragma: no cover
    from ..rules.stepspec import StepSpec

#: ``(perceive kind, update kind)``: the pair engines dispatch on.
Kinds = tuple[str, str]
#: ``spec -> (cost class, scale)``: the class names the engines' per-class multipliers
#: (``EngineCost.family_cell``); ``scale`` multiplies the per-cell time (a wider neighbourhood).
CostClass = Callable[["StepSpec"], tuple[str, float]]
#: The entry-point group other packages register families in.
ENTRY_POINT_GROUP = _notation.PLUGIN_GROUP


@dataclasses.dataclass(frozen=True)
class Family:
    """Everything tensorca asks about one rule family.

    ``name``: what ``verify --family`` and ``bench`` take (``"life-like"``). ``title``: one line for
    the CLI and the docs. ``claims(rule)``: whether a parsed rule is this family's (families are
    asked in registration order; the first that claims a rule owns it). ``samples``: rule strings,
    the first the family's representative, tried by verify, the contract test and calibration (each
    must parse, or be a form :func:`tensorca.verify.rule_value` knows). ``cost(spec)``: the cost
    class and scale. ``notation``: ``(matches, parse)`` as :func:`tensorca.rules.notation.register_notation`
    takes them, for a family whose rules the built-in parser does not know (its matcher must accept
    only its own texts: it is tried before the built-in notations). ``steps``: ``{engine: {kinds:
    "module:function"}}``, the kernels of the family's own step-spec kinds (what each engine expects:
    :func:`register_step`). ``cell_bytes``: ``{engine: bytes}`` or ``{engine: spec -> bytes}``, the
    working memory per cell of those kernels. ``factors``: ``{cost class: {"engine" or
    "engine@device": {"gen": g, "cell": c}}}``, multipliers of the time per generation and per cell
    (over B3/S23's) for the cost classes the family introduces, where the engine's own costs give
    none. ``engines``: the engines that run its rules (documentation; a test checks it against the
    engines' ``supports``). ``tolerance``: None for bit-for-bit comparison, else the largest
    difference allowed per cell (continuous states).
    """

    name: str
    title: str
    claims: Callable[[Rule], bool]
    samples: tuple[str, ...]
    cost: CostClass
    notation: tuple[Callable[[str], bool], Callable[[str, int, int], Rule]] | None = None
    steps: Mapping[str, Mapping[Kinds, str]] = dataclasses.field(default_factory=dict)
    cell_bytes: Mapping[str, float | Callable[[StepSpec], float]] = dataclasses.field(default_factory=dict)
    factors: Mapping[str, Mapping[str, Mapping[str, float]]] = dataclasses.field(default_factory=dict)
    engines: tuple[str, ...] = ("numpy", "torch")
    tolerance: float | None = None

    def register(self) -> Family:
        """Add this family to the registry (the entry-point loader calls it); returns it."""
        return register_family(self)


_FAMILIES: dict[str, Family] = {}


def register_family(family: Family, *, notation: bool = True) -> Family:
    """Add ``family`` (replacing one of the same name): its notation joins ``parse_rule`` (tried before
    every notation registered so far, as a plug-in's must be; ``notation=False``: the caller registers it,
    as :mod:`tensorca.families` does the built-in ones in Golly's order), its kernels the engines' step
    tables. :class:`UsageError` for a declaration that is not a :class:`Family` or has no samples."""
    if not isinstance(family, Family):
        raise UsageError(f"a rule family must be a tensorca.families.Family, got {type(family).__name__}")
    if not family.samples:
        raise UsageError(f"family {family.name!r} declares no sample rules (verify and the contract test need one)")
    _FAMILIES[family.name] = family
    if notation and family.notation is not None:
        _notation.register_notation(*family.notation, first=True)
    for engine, kernels in family.steps.items():
        for kinds, target in kernels.items():
            register_step(engine, kinds, target)
    return family


def families() -> list[Family]:
    """Every registered family (built-in first, then plug-ins), in registration order."""
    _notation.load_plugins()
    return list(_FAMILIES.values())


def family_names() -> tuple[str, ...]:
    """The names of :func:`families`."""
    return tuple(f.name for f in families())


def family(name: str) -> Family:
    """The family registered as ``name``; :class:`UsageError` listing the known names otherwise."""
    _notation.load_plugins()
    try:
        return _FAMILIES[name]
    except KeyError:
        raise UsageError(f"unknown rule family {name!r}; expected one of {', '.join(_FAMILIES)}") from None


def family_of(rule: Rule) -> Family | None:
    """The family that claims ``rule`` (None for a rule no registered family claims)."""
    for declared in _FAMILIES.values():  # a parsed plug-in rule has loaded its family already
        if declared.claims(rule):
            return declared
    return None


def cost_class(rule: Rule) -> tuple[str, float]:
    """``(cost class, scale)`` of ``rule`` from its family's declaration; ``("other", 1.0)`` when no
    family claims it."""
    owner = family_of(rule)
    return ("other", 1.0) if owner is None else owner.cost(rule.compile())


def _owner_of_kinds(engine: str, kinds: Kinds) -> Family | None:
    for declared in _FAMILIES.values():
        if kinds in declared.steps.get(engine, {}):
            return declared
    return None


def kernel_cell_bytes(engine: str, spec: StepSpec) -> float | None:
    """Working bytes per cell of the family kernel ``engine`` runs ``spec`` with (None: no family
    declares one; the engine uses its own estimate)."""
    owner = _owner_of_kinds(engine, spec.kinds)
    value = None if owner is None else owner.cell_bytes.get(engine)
    if value is None:
        return None
    return float(value(spec) if callable(value) else value)


def class_factor(engine: str, device: str, cost_class_name: str, which: str) -> float | None:
    """The ``which`` (``"gen"`` or ``"cell"``) multiplier a family declares for ``cost_class_name`` on
    ``engine`` (``"engine@device"`` first, then ``"engine"``); None when no family declares one."""
    for declared in _FAMILIES.values():
        by_engine = declared.factors.get(cost_class_name)
        if by_engine is None:
            continue
        for key in (f"{engine}@{device}", engine):
            entry = by_engine.get(key)
            if entry is not None and which in entry:
                return float(entry[which])
    return None


# -- kernels of family step-spec kinds, per engine ---------------------------------------------

_LOADED_STEPS: dict[tuple[str, Kinds], Callable] = {}
_STEP_TARGETS: dict[tuple[str, Kinds], str] = {}


def register_step(engine: str, kinds: Kinds, target: str) -> None:
    """Register ``target`` (``"package.module:function"``) as ``engine``'s kernel for ``kinds`` (what
    :func:`register_family` does for a family's ``steps``; imported on first use, so registering
    imports no framework). What each engine expects of the function is documented by the engine
    (:mod:`tensorca.engines.numpy_reference`: ``step(cells, spec, topology) -> cells``;
    :mod:`tensorca.engines.tensor.engine`: ``build(spec, topology, device) -> step(cells) -> cells``)."""
    if not isinstance(target, str) or target.count(":") != 1:
        raise UsageError(f"step target must be 'module:function', got {target!r}")
    key = (engine, (str(kinds[0]), str(kinds[1])))
    _STEP_TARGETS[key] = target
    _LOADED_STEPS.pop(key, None)


def extra_kinds(engine: str) -> frozenset[Kinds]:
    """The ``(perceive, update)`` kinds families registered kernels for on ``engine``."""
    return frozenset(kinds for name, kinds in _STEP_TARGETS if name == engine)


def step_for(engine: str, kinds: Kinds) -> Callable | None:
    """The kernel registered for ``engine`` and ``kinds`` (imported on first use), or None."""
    key = (engine, (str(kinds[0]), str(kinds[1])))
    loaded = _LOADED_STEPS.get(key)
    if loaded is not None:
        return loaded
    target = _STEP_TARGETS.get(key)
    if target is None:
        return None
    module_name, function_name = target.split(":")
    try:
        function = getattr(importlib.import_module(module_name), function_name)
    except (ImportError, AttributeError) as exc:
        raise EngineError(f"cannot load the {engine} kernel {target!r} for {kinds}: {exc}") from exc
    _LOADED_STEPS[key] = function
    return function

