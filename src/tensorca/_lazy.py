"""Names imported on first use (PEP 562): the one body behind the package ``__getattr__`` functions
that keep ``import tensorca`` and ``tensorca.io`` from importing what a command does not need."""

from __future__ import annotations

from importlib import import_module
from types import ModuleType
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


class Package(ModuleType):
    """A lazy package's module type (``sys.modules[__name__].__class__ = Package``): loading a submodule
    whose name is also a public name of the package, imported from that submodule (``render.gif``, the
    function, from ``render/gif.py``), must not rebind the name to the submodule. Python sets a package's
    attribute to each submodule it loads; an eager ``from .gif import gif`` used to win by running after
    that, while lazily the submodule may be loaded first (``from tensorca.render.gif import write_gif``)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, ModuleType) and self.__dict__.get("_LAZY", {}).get(name) == f".{name}":
            return
        super().__setattr__(name, value)
