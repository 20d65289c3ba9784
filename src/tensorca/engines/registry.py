"""Engines registered by name; ``get_engine("numpy")`` and friends.

Engines that need an optional framework (PyTorch, Numba, Triton) are registered lazily as
``"module:Class"`` paths, so importing tensorca never imports those frameworks: an engine's
module is imported the first time it is asked for, and a missing framework becomes a clear
:class:`EngineError` naming what to install.
"""

from __future__ import annotations

import importlib

from ..errors import EngineError
from .base import Engine

_ENGINES: dict[str, Engine] = {}
_LAZY: dict[str, tuple[str, str]] = {}  # name -> (module path, what to install)


def register(engine: Engine) -> Engine:
    """Add ``engine`` to the registry under ``engine.name`` (replacing one of the same name)."""
    _ENGINES[engine.name] = engine
    return engine


def register_lazy(name: str, target: str, requires: str) -> None:
    """Register ``"package.module:Class"`` under ``name``; ``requires`` names what it needs installed."""
    _LAZY[name] = (target, requires)


def get_engine(name: str) -> Engine:
    """The engine registered as ``name``; :class:`EngineError` listing the known names otherwise."""
    if name in _ENGINES:
        return _ENGINES[name]
    if name in _LAZY:
        target, requires = _LAZY[name]
        module_name, class_name = target.split(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise EngineError(f"backend {name!r} needs {requires}, which is not importable here ({exc})") from exc
        return register(getattr(module, class_name)())
    known = ", ".join(engine_names()) or "none"
    raise EngineError(f"unknown backend {name!r}; available backends: {known}")


def engine_names() -> list[str]:
    """Names of all registered engines (loaded or lazy), sorted."""
    return sorted(set(_ENGINES) | set(_LAZY))


def available_engines() -> list[Engine]:
    """Every registered engine whose framework imports and that can run somewhere here."""
    found = []
    for name in engine_names():
        try:
            engine = get_engine(name)
        except EngineError:
            continue
        if engine.devices():
            found.append(engine)
    return found
