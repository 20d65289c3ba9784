"""Names imported on first use (PEP 562): the one body behind the package ``__getattr__`` functions
that keep ``import tensorca`` and ``tensorca.io`` from importing what a command does not need."""

from __future__ import annotations

from importlib import import_module
from typing import Any


def attribute(package: str, namespace: dict[str, Any], where: dict[str, str], name: str) -> Any:
    """``package``'s attribute ``name``: from the module ``where[name]`` (relative to ``package``),
    imported now and kept in ``namespace`` so later lookups are plain reads; else the submodule
    ``package.name``; else :class:`AttributeError`."""
    module = where.get(name)
    if module is not None:
        value = getattr(import_module(module, package), name)
        namespace[name] = value
        return value
    if not name.startswith("_"):
        try:
            return import_module(f"{package}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{package}.{name}":
                raise  # the submodule exists but something it imports does not
    raise AttributeError(f"module {package!r} has no attribute {name!r}")
