"""tensorca's import graph, read with ``ast`` (nothing is imported): cycles, upward imports, deferred
imports and long modules.

Run ``python scripts/import_graph.py`` for the report; ``tests/test_layering.py`` imports the functions.

What counts as an import of a tensorca module:

- ``import tensorca.x.y``, ``from tensorca.x import y``, and their relative spellings (``from .x import y``,
  ``from .. import y``), resolved against the importing module;
- ``from P import name`` where ``P.name`` is a submodule counts as importing that submodule as well;
- importing ``tensorca.a.b`` also runs ``tensorca/a/__init__.py`` (and ``tensorca/a/b/__init__.py`` when it
  is a package): edges to those packages are added, except from modules inside the package (whose
  ``__init__`` is already running) and to lazy facades (:data:`LAZY_FACADES`: the root package
  ``tensorca``, ``tensorca.rules``, ``tensorca.margolus`` and ``tensorca.render``, whose ``__init__``
  imports nothing, PEP 562); a facade's own table of names (``_LAZY``) counts as function-level imports
  of the modules it names;
- imports inside a function (methods included) are *function-level*, all others *module-level* (class
  bodies, ``try`` blocks); imports under ``if TYPE_CHECKING:`` do not run and are left out.

Cycles are the strongly connected components of more than one module of that graph, function-level
imports included. Floors (:data:`FLOORS`) order the packages and modules; an import from a lower floor
up to a higher one is reported as *upward*.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Packages whose ``__init__`` imports nothing at import time (only ``tensorca._lazy``) and hands out its
#: public names on first use from a ``_LAZY`` table: importing one of their submodules runs nothing.
LAZY_FACADES = ("tensorca", "tensorca.rules", "tensorca.margolus", "tensorca.render")
SRC = ROOT / "src"
PACKAGE = "tensorca"

#: Modules longer than this many lines are reported.
MAX_LINES = 700

#: Optional dependencies a function-level import may defer (the imported tensorca module imports one).
OPTIONAL = ("torch", "numba", "dask", "zarr", "rich", "PIL", "triton", "matplotlib", "imageio")

#: tensorca's floors, lowest first: a module may import modules on its own floor or below, never above.
#: Each entry is a module or a package (its modules and subpackages, unless a longer entry names them).
#: A module not named falls on the floor of its package.
FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", (
        "errors", "atomic", "_lazy", "_jit", "_numba", "cache_dirs", "compiling", "cpu_load",
        "arrays", "topology", "crop", "randomness",
        # the version string; warm-up jobs and the background compiles that run them in a subprocess
        # (standard library, errors and cache_dirs only): the engines and auto's selection queue them
        "_version", "warm_jobs", "background",
        # the bounded integers and topology of a checkpoint manifest, read by every checkpoint format
        "manifest_fields",
    )),
    ("rules", ("rules",)),
    # the parser's public face (rules.spec, and the rules package's lazy names) knows every family
    ("families", ("families", "rules.spec", "rules$")),
    # a family's kernels (families/<name>/steps.py) sit with the engines whose helpers they use
    # the margolus engine and its block kernels use nothing above the engines (only margolus.pattern, on
    # the simulate floor with the lazy package, knows tensorca.Pattern)
    ("engines", ("engines", "hashlife", "observers", "memory", "random_grids", "families.rule_table.steps",
                 "families.lenia.steps", "families.lenia_expanded.steps", "margolus.engine", "margolus.emulated",
                 "margolus.rules", "margolus.simulate", "margolus.reference", "margolus.fast",
                 "margolus.torch_step")),
    # a value's picture (a Pattern's _repr_png_ in a notebook): colours and PNG bytes, nothing simulated;
    # the built-in pattern library io reads by name (the data package's own code: its datasets are lazy)
    ("values", ("io", "pattern", "persist", "outofcore", "elementary", "unbounded",
                "render.colormaps", "view$", "view.display", "view.colours", "view.protocol", "data$",
                "data.catalog")),
    # the dask engine plans its halo exchanges with the cost model
    ("planning", ("costmodel", "cluster", "engines.dask_engine")),
    ("simulate", ("simulate", "sandpile", "lenia", "margolus", "spins", "nn")),
    ("consumers", (
        "analysis", "render", "data", "search", "verify", "benchmark", "view", "warmup",
    )),
    # the examples are scripts written against the public API (``import tensorca``), as a user's are
    ("top", ("cli", "demo", "__main__", "examples", PACKAGE)),
)


@dataclass(frozen=True)
class Edge:
    """One import of ``target`` by ``source`` at ``file:line``; ``via`` is the module the statement names
    when ``target`` is only run by it (its package ``__init__``), else ``None``."""

    source: str
    target: str
    file: str
    line: int
    function_level: bool
    via: str | None = None

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def describe(self) -> str:
        level = "function-level" if self.function_level else "module-level"
        via = f" (package of {self.via})" if self.via else ""
        return f"{self.source} -> {self.target}{via}  [{self.where}, {level}]"


@cache
def modules(src: Path = SRC) -> dict[str, Path]:
    """Every module under ``src/tensorca``: dotted name -> file (a package is its ``__init__.py``)."""
    found = {}
    for path in sorted((src / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_package(name: str, known: dict[str, Path]) -> bool:
    return known[name].name == "__init__.py"


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST) -> Iterable[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement that runs, with whether it sits in a function."""

    def walk(node: ast.AST, in_function: bool):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child.test):
                for sub in child.orelse:
                    yield from walk_one(sub, in_function)
                continue
            yield from walk_one(child, in_function)

    def walk_one(node: ast.AST, in_function: bool):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, in_function
            return
        inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        yield from walk(node, inner)

    yield from walk(tree, False)


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute name of a relative import ``from <level dots><name> import ...`` in ``module``."""
    if level == 0:
        return name or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _named(module: str, statement: ast.Import | ast.ImportFrom, known: dict[str, Path]) -> list[str]:
    """The tensorca modules an import statement names (the longest known prefix of each dotted name)."""
    targets = []
    if isinstance(statement, ast.Import):
        for alias in statement.names:
            name = alias.name
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                targets.append(name)
        return targets
    base = _resolve(module, _is_package(module, known), statement.level, statement.module)
    probe = base
    while probe and probe not in known:
        probe = probe.rpartition(".")[0]
    if not probe:
        return targets
    for alias in statement.names:
        sub = f"{base}.{alias.name}"
        if base == probe and sub in known:
            targets.append(sub)  # from package import submodule
        elif probe not in targets:
            targets.append(probe)
    return targets


def _packages_run(source: str, target: str, known: dict[str, Path]) -> list[str]:
    """The package ``__init__`` modules that importing ``target`` runs, other than the root package and
    the packages ``source`` is in (already running when ``source`` is)."""
    parts = target.split(".")
    runs = []
    for n in range(2, len(parts)):
        package = ".".join(parts[:n])
        if package in LAZY_FACADES:
            continue
        if package in known and not (source == package or source.startswith(package + ".")):
            runs.append(package)
    return runs


def _lazy_table(module: str, tree: ast.AST, known: dict[str, Path]) -> list[tuple[str, int]]:
    """``(module, line)`` for each module a facade's ``_LAZY`` table names (imported on first use)."""
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "_LAZY"
                and isinstance(node.value, ast.Dict)):
            for value in node.value.values:
                if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                        and value.func.attr == "fromkeys" and len(value.args) == 2):
                    value = value.args[1]  # **dict.fromkeys(names, ".module")
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    dots = len(value.value) - len(value.value.lstrip("."))
                    target = _resolve(module, True, dots, value.value[dots:] or None)
                    if target in known:
                        found.append((target, value.lineno))
    return found


@cache
def import_edges(src: Path = SRC) -> tuple[Edge, ...]:
    """Every import of a tensorca module by a tensorca module (self-imports left out)."""
    known = modules(src)
    edges = []
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        file = str(path.relative_to(src.parent)) if path.is_relative_to(src.parent) else str(path)
        for statement, in_function in _imports(tree):
            for target in _named(name, statement, known):
                if target != name:
                    edges.append(Edge(name, target, file, statement.lineno, in_function))
                for package in _packages_run(name, target, known):
                    if package != name:
                        edges.append(Edge(name, package, file, statement.lineno, in_function, via=target))
        if name in LAZY_FACADES and name != PACKAGE:
            edges += [Edge(name, target, file, line, True) for target, line in _lazy_table(name, tree, known)]
    return tuple(dict.fromkeys(edges))


def _graph(edges: Iterable[Edge]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for edge in edges:
        graph.setdefault(edge.source, set()).add(edge.target)
        graph.setdefault(edge.target, set())
    return graph


def _components(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, iteratively."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    found.append(sorted(component))
    return found


def cycles(edges: Iterable[Edge] | None = None) -> list[tuple[list[str], list[Edge]]]:
    """Import cycles: each strongly connected component of more than one module, with the edges
    inside it (those that close it), function-level imports counted."""
    edges = import_edges() if edges is None else tuple(edges)
    found = []
    for component in _components(_graph(edges)):
        if len(component) > 1:
            members = set(component)
            inside = sorted((e for e in edges if e.source in members and e.target in members),
                            key=lambda e: (e.source, e.line, e.target))
            found.append((component, inside))
    return sorted(found)


def function_level(edges: Iterable[Edge] | None = None) -> list[Edge]:
    """The function-level imports of tensorca modules (not the packages they run)."""
    edges = import_edges() if edges is None else edges
    return [e for e in edges if e.function_level and e.via is None]


def floor_of(module: str) -> int:
    """The floor (index into :data:`FLOORS`) of a module: its longest named prefix's."""
    best, floor = -1, None
    for level, (_, entries) in enumerate(FLOORS):
        for entry in entries:
            exact = entry.endswith("$")  # the package module itself, not its submodules
            entry = entry.rstrip("$")
            name = entry if entry == PACKAGE else f"{PACKAGE}.{entry}"
            if (module == name or (not exact and module.startswith(name + "."))) and len(name) + exact > best:
                best, floor = len(name) + exact, level
    if floor is None:
        raise KeyError(f"{module} is on no floor: add it (or its package) to FLOORS")
    return floor


def upward(edges: Iterable[Edge] | None = None) -> list[Edge]:
    """Imports from a lower floor up to a higher one."""
    edges = import_edges() if edges is None else edges
    return [e for e in edges if floor_of(e.source) < floor_of(e.target)]


@cache
def _module_level_optional(src: Path = SRC) -> dict[str, frozenset[str]]:
    """Each module's own module-level imports of :data:`OPTIONAL` packages."""
    found = {}
    for name, path in modules(src).items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        deps = set()
        for statement, in_function in _imports(tree):
            if in_function:
                continue
            names = ([a.name for a in statement.names] if isinstance(statement, ast.Import)
                     else [statement.module or ""] if statement.level == 0 else [])
            deps.update(n.split(".")[0] for n in names if n.split(".")[0] in OPTIONAL)
        found[name] = frozenset(deps)
    return found


def optional_dependencies(module: str) -> frozenset[str]:
    """The :data:`OPTIONAL` packages importing ``module`` imports (its module-level imports, and theirs)."""
    own = _module_level_optional()
    graph: dict[str, set[str]] = {}
    for edge in import_edges():
        if not edge.function_level:
            graph.setdefault(edge.source, set()).add(edge.target)
    seen, todo, deps = {module}, [module], set()
    while todo:
        current = todo.pop()
        deps |= own.get(current, frozenset())
        for nxt in graph.get(current, ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return frozenset(deps)


def long_modules(limit: int = MAX_LINES, src: Path = SRC) -> list[tuple[str, int]]:
    """Modules over ``limit`` lines, longest first."""
    counts = [(name, len(path.read_text(encoding="utf-8").splitlines())) for name, path in modules(src).items()]
    return sorted(((n, c) for n, c in counts if c > limit), key=lambda nc: -nc[1])


def report() -> str:
    edges = import_edges()
    lines = [f"{len(modules())} modules, {len(edges)} import edges between them"]
    found = cycles(edges)
    lines.append(f"\nimport cycles (function-level imports counted): {len(found)}")
    for component, inside in found:
        lines.append(f"  cycle of {len(component)}: {', '.join(component)}")
        lines.extend(f"    {edge.describe()}" for edge in inside)
    deferred = function_level(edges)
    lines.append(f"\nfunction-level imports of tensorca modules: {len(deferred)}")
    for edge in deferred:
        deps = optional_dependencies(edge.target)
        lines.append(f"  {edge.describe()}  defers: {', '.join(sorted(deps)) or '-'}")
    up = upward(edges)
    lines.append(f"\nupward imports: {len(up)}")
    for edge in up:
        lines.append(f"  {edge.describe()}  floor {FLOORS[floor_of(edge.source)][0]} -> "
                     f"{FLOORS[floor_of(edge.target)][0]}")
    long = long_modules()
    lines.append(f"\nmodules over {MAX_LINES} lines: {len(long)}")
    lines.extend(f"  {name}: {count}" for name, count in long)
    lines.append("\nfloors, lowest first:")
    lines.extend(f"  {level}. {name}: {', '.join(entries)}" for level, (name, entries) in enumerate(FLOORS))
    return "\n".join(lines)


if __name__ == "__main__":
    print(report())
    sys.exit(0)
