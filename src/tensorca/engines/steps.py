"""Kernels for rule families beyond an engine's built-in ones, registered by step-spec kinds.

A rule family that brings new perceive/update kinds (rule tables, Lenia, ...) registers, for each
engine that can run it, the function that builds or runs its step::

    register_step("numpy", ("neighbour_states", "tree"), "tensorca.engines.table_steps:numpy_step")
    register_step("torch", ("neighbour_states", "tree"), "tensorca.engines.table_steps:torch_step")

Targets are ``"module:function"`` strings imported on first use, so registering imports no
framework. What each engine expects of the function is documented by the engine
(:mod:`tensorca.engines.numpy_reference`: ``step(cells, spec, topology) -> cells``;
:mod:`tensorca.engines.torch_engine`: ``build(spec, topology, device) -> step(cells) -> cells``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from ..errors import EngineError

Kinds = tuple[str, str]

_TARGETS: dict[tuple[str, Kinds], str] = {}
_LOADED: dict[tuple[str, Kinds], Callable] = {}


def register_step(engine: str, kinds: Kinds, target: str) -> None:
    """Register ``target`` (``"package.module:function"``) as ``engine``'s kernel for ``kinds``."""
    if ":" not in target:
        raise EngineError(f"step target must be 'module:function', got {target!r}")
    _TARGETS[(engine, tuple(kinds))] = target  # type: ignore[index]
    _LOADED.pop((engine, tuple(kinds)), None)  # type: ignore[arg-type]


def extra_kinds(engine: str) -> frozenset[Kinds]:
    """The ``(perceive, update)`` kinds registered for ``engine``."""
    return frozenset(kinds for name, kinds in _TARGETS if name == engine)


def step_for(engine: str, kinds: Kinds) -> Callable | None:
    """The function registered for ``engine`` and ``kinds`` (imported on first use), or None."""
    key = (engine, tuple(kinds))
    if key in _LOADED:
        return _LOADED[key]  # type: ignore[index]
    target = _TARGETS.get(key)  # type: ignore[arg-type]
    if target is None:
        return None
    module_name, function_name = target.split(":")
    try:
        function = getattr(importlib.import_module(module_name), function_name)
    except (ImportError, AttributeError) as exc:
        raise EngineError(f"cannot load the {engine} kernel {target!r} for {kinds}: {exc}") from exc
    _LOADED[key] = function  # type: ignore[index]
    return function
