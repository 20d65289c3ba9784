"""Griffe extension for the API reference: tensorca's lazy exports and its reST docstrings.

Two things griffe cannot see from the source alone:

- **Lazy exports.** ``tensorca``, ``tensorca.io``, ``tensorca.data``, ``tensorca.view`` and
  ``tensorca.hashlife`` list names in ``__all__`` that a module-level ``__getattr__`` imports on first
  use (PEP 562), so they are not assignments griffe can read. Each such name is imported here and
  becomes an alias of the object where it is defined, so ``::: tensorca.data`` documents
  ``tensorca.data.Trajectories`` as users import it. A name that is also a submodule's
  (``tensorca.verify``) keeps the submodule; the reference names the function by its own path.
- **Sphinx roles.** Docstrings cross-reference with ``:func:`~tensorca.io.load``` and friends, and
  end a line with ``::`` before a literal block. A role becomes an optional cross-reference: a link
  where the target is documented in the site, inline code elsewhere (never a warning); ``::``
  becomes ``:``.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:func|class|data|mod|meth|attr|exc|obj|const):`(~?)([^`<>]+?)`")
_LITERAL = re.compile(r"(\S)::$", re.MULTILINE)


def _definition(value: object, name: str, module: griffe.Module) -> str | None:
    """The dotted path where the runtime ``value`` exported as ``name`` is defined, if griffe knows it."""
    if inspect.ismodule(value):
        return value.__name__
    if inspect.isclass(value) or inspect.isfunction(value):
        return f"{value.__module__}.{value.__qualname__}"
    package = module.package.path
    for module_name, runtime in list(sys.modules.items()):  # a constant: the module that defines it
        if module_name.startswith(f"{package}.") and getattr(runtime, name, None) is value:
            try:
                member = module.modules_collection[f"{module_name}.{name}"]
            except KeyError:
                continue
            if not member.is_alias:
                return member.path
    return None


def _modules(module: griffe.Module) -> list[griffe.Module]:
    """``module`` and every submodule below it."""
    found = [module]
    for member in module.modules.values():
        if not member.is_alias:
            found += _modules(member)
    return found


def _objects(obj: griffe.Object) -> list[griffe.Object]:
    """``obj`` and every object defined in it (aliases left out)."""
    found = [obj]
    for member in obj.members.values():
        if not member.is_alias:
            found += _objects(member)
    return found


def _markdown(docstring: str, module: str) -> str:
    """``docstring`` with Sphinx roles as optional cross-references and ``::`` as ``:``."""

    def role(match: re.Match[str]) -> str:
        short, target = match.group(1), match.group(2).strip().removesuffix("()")
        identifier = target if target.startswith("tensorca") else f"{module}.{target.lstrip('.')}"
        shown = target.rsplit(".", 1)[-1] if short else target
        return f'<autoref identifier="{identifier}" optional>`{shown}`</autoref>'

    return _LITERAL.sub(r"\1:", _ROLE.sub(role, docstring))


class TensorcaDocs(griffe.Extension):
    """Aliases for lazily exported names, and Markdown for reST roles (see the module's docstring)."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Runs once ``pkg`` is loaded: add the aliases, then rewrite every docstring."""
        if pkg.path != "tensorca":
            return
        for module in _modules(pkg):
            missing = [str(name) for name in module.exports or () if str(name) not in module.members]
            if not missing:
                continue
            runtime = importlib.import_module(module.path)
            for name in missing:
                target = _definition(getattr(runtime, name), name, module)
                if target is None:
                    raise griffe.GriffeError(f"{module.path}.{name}: exported, but griffe cannot find its definition")
                module.set_member(name, griffe.Alias(name, target, parent=module))
        for obj in _objects(pkg):
            if obj.docstring is not None:
                obj.docstring.value = _markdown(obj.docstring.value, obj.module.path)
