"""Engines registered by name: one :class:`~tensorca.engines.info.EngineInfo` per engine.

Engines that need an optional framework (PyTorch, Numba, Triton) are registered lazily with a
``"module:Class"`` target, so importing tensorca never imports those frameworks: an engine's
module is imported the first time it is asked for, and a missing framework becomes a
:class:`~tensorca.errors.MissingDependencyError` naming what to install.

Every other part of tensorca (the cost model behind ``auto``, ``bench``, ``verify``, the soup
search) reads engine facts from here, so registering an engine is one call::

    register_lazy(EngineInfo("mine", "mypkg.engine:MyEngine", requires=("numba",), ...))
    register(MyEngine(), EngineInfo("mine", default_costs={"cpu": EngineCost(...)}))
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import sys

from ..errors import EngineError, MissingDependencyError
from .base import Engine
from .info import EngineInfo

_INFOS: dict[str, EngineInfo] = {}
_LOADED: dict[str, Engine] = {}


def register(engine: Engine, info: EngineInfo | None = None) -> Engine:
    """Add a constructed ``engine`` under ``engine.name`` (replacing one of the same name).

    ``info`` gives its facts; without one, the engine's own ``devices()`` and defaults are used.
    """
    if info is None:
        info = _INFOS.get(engine.name)
        if info is None or info.target is not None:
            devices = tuple(engine.devices())
            info = EngineInfo(engine.name, devices=lambda: devices)
    if info.name != engine.name:
        raise EngineError(f"engine {engine.name!r} registered with the facts of {info.name!r}")
    _INFOS[engine.name] = info
    _LOADED[engine.name] = engine
    return engine


def register_lazy(info: EngineInfo) -> None:
    """Register an engine by its facts; ``info.target`` (``"package.module:Class"``) loads it on first use."""
    if info.target is None or info.target.count(":") != 1:
        raise EngineError(f"register_lazy needs a 'module:Class' target for engine {info.name!r}, got {info.target!r}")
    _INFOS[info.name] = info
    _LOADED.pop(info.name, None)


def unregister(name: str) -> None:
    """Remove ``name`` from the registry (for tests and plug-ins that replace an engine)."""
    _INFOS.pop(name, None)
    _LOADED.pop(name, None)


def engine_info(name: str) -> EngineInfo:
    """The facts registered for ``name``; :class:`EngineError` listing the known names otherwise."""
    try:
        return _INFOS[name]
    except KeyError:
        known = ", ".join(engine_names()) or "none"
        raise EngineError(f"unknown backend {name!r}; available backends: {known}") from None


def engine_infos() -> list[EngineInfo]:
    """Every registered engine's facts, in order of preference (then name)."""
    return sorted(_INFOS.values(), key=lambda i: (i.preference, i.name))


def installed(module: str) -> bool:
    """True when ``module`` can be imported here (checked without importing it)."""
    return module in sys.modules or _findable(module)


@functools.cache
def _findable(module: str) -> bool:
    # find_spec walks sys.path: once per process, not on every run() call.
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def missing(info: EngineInfo) -> list[str]:
    """The modules ``info.requires`` that are not importable here."""
    return [m for m in info.requires if not installed(m)]


def devices_here(info: EngineInfo) -> tuple[str, ...]:
    """Device kinds ``auto`` may use for ``info``'s engine here: none when a requirement is absent."""
    if missing(info):
        return ()
    return tuple(info.devices())


def get_engine(name: str) -> Engine:
    """The engine registered as ``name``, loaded on first use.

    :class:`EngineError` for an unknown name, :class:`MissingDependencyError` (with the install
    command) when its framework is not importable here.
    """
    if name in _LOADED:
        return _LOADED[name]
    info = engine_info(name)
    if info.target is None:  # pragma: no cover - instances are always in _LOADED
        raise EngineError(f"engine {name!r} is registered without an instance or a 'module:Class' target")
    absent = missing(info)
    if absent:
        raise MissingDependencyError(
            f"backend {name!r} needs {', '.join(absent)}, which is not installed here",
            package=absent[0], install=info.install or None)
    module_name, class_name = info.target.split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise MissingDependencyError(f"backend {name!r} could not import {module_name} ({exc})",
                                     package=getattr(exc, "name", None), install=info.install or None) from exc
    factory = getattr(module, class_name, None)
    if factory is None:
        raise EngineError(f"backend {name!r}: module {module_name} has no {class_name} "
                          f"(registered target {info.target!r})")
    engine = factory()
    _LOADED[name] = engine
    return engine


def unbounded_native(engine: Engine) -> bool:
    """True when ``engine`` runs the unbounded plane itself (its registered ``EngineInfo``
    says ``unbounded_native``); engines registered without facts do not."""
    info = _INFOS.get(engine.name)
    return bool(info is not None and info.unbounded_native and _LOADED.get(engine.name) is engine)


def engine_names() -> list[str]:
    """Names of all registered engines (loaded or lazy), sorted."""
    return sorted(_INFOS)


def available_engines() -> list[Engine]:
    """Every registered engine whose framework imports and that can run somewhere here."""
    found = []
    for name in engine_names():
        try:
            engine = get_engine(name)
        except (EngineError, MissingDependencyError):
            continue
        if engine.devices():
            found.append(engine)
    return found
