"""Layering of ``src/tensorca`` (issue 38), read by ``scripts/import_graph.py`` with ``ast``: no import cycles
(function-level imports counted), no import from a lower floor up to a higher one, no module over
700 lines, and every function-level import of a tensorca module listed with its reason.

No cycle and no upward import is allowed. The function-level imports are listed with their reasons:
one not listed fails, and so does a listed one that is gone (the list only shrinks, by hand). Entries
marked ``RATCHET`` defer no optional dependency and are to be removed (see the script's report).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import import_graph  # noqa: E402

#: Reasons: a function-level import that defers no optional dependency (to be removed), or one that keeps
#: ``import tensorca`` and each command's start-up from importing what it does not need.
RATCHET = "RATCHET: defers no optional dependency"
START_UP = "start-up: imported on first use"
LAZY_PACKAGE = "start-up: a lazy package, names imported on first use"
FIRST_RULE = "start-up: the family's module imported on its first rule"

#: Function-level imports of tensorca modules: (importer, imported, reason).
DEFERRED: tuple[tuple[str, str, str], ...] = (
    ("tensorca", "tensorca.benchmark", START_UP),
    ("tensorca", "tensorca.search.distributed", "defers numba"),
    ("tensorca.analysis.long_period", "tensorca.hashlife", RATCHET),
    ("tensorca.analysis.long_period", "tensorca.hashlife.universe", "defers numba"),
    ("tensorca.benchmark.loader", "tensorca.data", RATCHET),
    ("tensorca.cli._args", "tensorca.data", START_UP),
    ("tensorca.cli._args", "tensorca.random_grids", START_UP),
    ("tensorca.cli.bench", "tensorca.benchmark", START_UP),
    ("tensorca.cli.bench", "tensorca.benchmark.measure", START_UP),
    ("tensorca.cli.bench", "tensorca.benchmark.calibrate", START_UP),
    ("tensorca.cli.bench", "tensorca.benchmark.plot", START_UP),
    ("tensorca.cli.bench", "tensorca.benchmark.systems", START_UP),
    ("tensorca.cli.bench", "tensorca.costmodel", START_UP),
    ("tensorca.cli.bench", "tensorca.engines", START_UP),
    ("tensorca.cli.dask_run", "tensorca.cluster", START_UP),
    ("tensorca.cli.dask_run", "tensorca.engines", START_UP),
    ("tensorca.cli.dask_run", "tensorca.io", START_UP),
    ("tensorca.cli.dask_run", "tensorca.outofcore.soup", "defers dask"),
    ("tensorca.cli.dask_run", "tensorca.persist.zarr_store", "defers dask"),
    ("tensorca.cli.loader_bench", "tensorca.arrays", START_UP),
    ("tensorca.cli.loader_bench", "tensorca.benchmark.loader", "defers torch"),
    ("tensorca.cli.patterns", "tensorca.data", START_UP),
    ("tensorca.cli.patterns", "tensorca.io", START_UP),
    ("tensorca.cli.run", "tensorca.engines", START_UP),
    ("tensorca.cli.run", "tensorca.simulate.plan", START_UP),
    ("tensorca.cli.verify", "tensorca.verify", START_UP),
    ("tensorca.cli.view", "tensorca.view.server", START_UP),
    ("tensorca.cli.view", "tensorca.view.source", START_UP),
    ("tensorca.cli.warmup", "tensorca.cache_dirs", START_UP),
    ("tensorca.cli.warmup", "tensorca.errors", START_UP),
    ("tensorca.cli.warmup", "tensorca.warmup", START_UP),
    ("tensorca.compiling", "tensorca.cache_dirs", RATCHET),
    ("tensorca.data.trajectories", "tensorca.io", RATCHET),
    ("tensorca.elementary", "tensorca.randomness", RATCHET),
    ("tensorca.engines", "tensorca.engines.bitpack.choice", RATCHET),
    ("tensorca.engines", "tensorca.engines.bitpack.circuit", START_UP),
    ("tensorca.engines", "tensorca.engines.ltl.cpu", START_UP),
    ("tensorca.engines", "tensorca.engines.stochastic_steps", START_UP),
    ("tensorca.engines", "tensorca.margolus.emulated", START_UP),
    ("tensorca.engines.dask_engine", "tensorca.arrays", RATCHET),
    ("tensorca.engines.dask_engine", "tensorca.costmodel", RATCHET),
    ("tensorca.engines.ltl.cpu", "tensorca._numba", "defers numba"),
    ("tensorca.engines.ltl.cpu", "tensorca.engines.ltl.sums", "defers numba"),
    ("tensorca.engines.stochastic_steps", "tensorca.cache_dirs", RATCHET),
    ("tensorca.engines.stochastic_steps", "tensorca.engines.bitpack.choice", RATCHET),
    ("tensorca.engines.stochastic_steps", "tensorca.engines.bitpack.circuit", RATCHET),
    ("tensorca.engines.stochastic_steps", "tensorca.engines.tensor.kernels", "defers torch"),
    ("tensorca.families.lenia", "tensorca.families.lenia.rule", FIRST_RULE),
    ("tensorca.families.lenia.steps", "tensorca.engines.tensor.kernels", "defers torch"),
    ("tensorca.families.lenia_expanded", "tensorca.families.lenia_expanded.rule", FIRST_RULE),
    ("tensorca.families.lenia_expanded.steps", "tensorca.engines.tensor.kernels", "defers torch"),
    ("tensorca.families.rule_table.loader", "tensorca.families.rule_table.rulecolors", START_UP),
    ("tensorca.families.rule_table.rulefile", "tensorca.families.rule_table.rulecolors", START_UP),
    ("tensorca.families.rule_table.rulefile", "tensorca.families.rule_table.ruletable", START_UP),
    ("tensorca.families.rule_table.rulefile", "tensorca.families.rule_table.tree", START_UP),
    ("tensorca.families.rule_table.steps", "tensorca.engines.tensor.kernels", "defers torch"),
    ("tensorca.hashlife", "tensorca.errors", START_UP),
    ("tensorca.hashlife", "tensorca.hashlife.store", "defers numba"),
    ("tensorca.hashlife", "tensorca.hashlife.universe", "defers numba"),
    ("tensorca.io.common", "tensorca.rules", RATCHET),
    ("tensorca.io.files", "tensorca.atomic", RATCHET),
    ("tensorca.io.files", "tensorca.data.catalog", RATCHET),
    ("tensorca.io.files", "tensorca.families.rule_table.loader", RATCHET),
    ("tensorca.io.macrocell", "tensorca.hashlife", RATCHET),
    ("tensorca.io.macrocell", "tensorca.hashlife.universe", "defers numba"),
    ("tensorca.lenia.flow", "tensorca.families.lenia.steps", RATCHET),
    ("tensorca.lenia.flow", "tensorca.lenia.cells", RATCHET),
    ("tensorca.margolus", "tensorca.margolus.emulated", LAZY_PACKAGE),
    ("tensorca.margolus", "tensorca.margolus.pattern", LAZY_PACKAGE),
    ("tensorca.margolus", "tensorca.margolus.rules", LAZY_PACKAGE),
    ("tensorca.margolus", "tensorca.margolus.simulate", LAZY_PACKAGE),
    ("tensorca.margolus.engine", "tensorca.engines.registry", RATCHET),
    ("tensorca.margolus.pattern", "tensorca.rules", RATCHET),
    ("tensorca.margolus.simulate", "tensorca._jit", "defers numba"),
    ("tensorca.margolus.simulate", "tensorca.margolus.fast", "defers numba"),
    ("tensorca.margolus.simulate", "tensorca.margolus.torch_step", "defers torch"),
    ("tensorca.pattern", "tensorca.rules", RATCHET),
    ("tensorca.pattern", "tensorca.view.display", RATCHET),
    ("tensorca.persist", "tensorca.errors", RATCHET),
    ("tensorca.persist", "tensorca.persist.macrocell", RATCHET),
    ("tensorca.persist", "tensorca.persist.npz", RATCHET),
    ("tensorca.persist.macrocell", "tensorca.io", RATCHET),
    ("tensorca.persist.macrocell", "tensorca.io.macrocell", RATCHET),
    ("tensorca.render", "tensorca.render.colormaps", LAZY_PACKAGE),
    ("tensorca.render", "tensorca.render.frames", LAZY_PACKAGE),
    ("tensorca.render", "tensorca.render.gif", LAZY_PACKAGE),
    ("tensorca.render", "tensorca.render.mp4", LAZY_PACKAGE),
    ("tensorca.render", "tensorca.render.plot", LAZY_PACKAGE),
    ("tensorca.rules", "tensorca.families.larger_than_life.notation", LAZY_PACKAGE),
    ("tensorca.rules", "tensorca.families.life_like.hensel", LAZY_PACKAGE),
    ("tensorca.rules", "tensorca.rules.base", LAZY_PACKAGE),
    ("tensorca.rules", "tensorca.rules.neighbourhoods", LAZY_PACKAGE),
    ("tensorca.rules", "tensorca.rules.spec", LAZY_PACKAGE),
    ("tensorca.sandpile.api", "tensorca.engines.registry", RATCHET),
    ("tensorca.sandpile.api", "tensorca.sandpile.fast", "defers numba"),
    ("tensorca.sandpile.api", "tensorca.sandpile.reference", RATCHET),
    ("tensorca.sandpile.api", "tensorca.sandpile.tensor", RATCHET),
    ("tensorca.search.distributed", "tensorca._numba", RATCHET),
    ("tensorca.search.distributed", "tensorca.io.haul", RATCHET),
    ("tensorca.search.lane_tier", "tensorca._jit", RATCHET),
    ("tensorca.search.lane_tier", "tensorca.engines.bitpack.circuit", RATCHET),
    ("tensorca.search.lane_tier", "tensorca.engines.bitpack.lanes", RATCHET),
    ("tensorca.search.soups", "tensorca._numba", RATCHET),
    ("tensorca.search.tiled_tier", "tensorca.engines.bitpack.tiles", RATCHET),
    ("tensorca.simulate.lazy", "tensorca.engines", RATCHET),
    ("tensorca.simulate.lazy", "tensorca.engines.dask_engine", "defers dask"),
    ("tensorca.simulate.lazy", "tensorca.errors", RATCHET),
    ("tensorca.simulate.lazy", "tensorca.persist.npz", RATCHET),
    ("tensorca.simulate.lazy", "tensorca.persist.zarr_store", "defers dask"),
    ("tensorca.unbounded", "tensorca.persist.macrocell", RATCHET),
    ("tensorca.view.display", "tensorca.rules.spec", RATCHET),
    ("tensorca.view.source", "tensorca.pattern", RATCHET),
    ("tensorca.view.source", "tensorca.rules.spec", RATCHET),
    ("tensorca.view.source", "tensorca.simulate", RATCHET),
    ("tensorca.view.source", "tensorca.view.colours", RATCHET),
    ("tensorca.warmup", "tensorca.cpu_load", RATCHET),
    ("tensorca.warmup", "tensorca.data", RATCHET),
    ("tensorca.warmup", "tensorca.engines", RATCHET),
    ("tensorca.warmup", "tensorca.engines.bitpack.choice", RATCHET),
    ("tensorca.warmup", "tensorca.engines.registry", RATCHET),
    ("tensorca.warmup", "tensorca.io", RATCHET),
    ("tensorca.warmup", "tensorca.random_grids", RATCHET),
    ("tensorca.warmup", "tensorca.rules.spec", RATCHET),
    ("tensorca.warmup", "tensorca.search.soups", "defers numba"),
    ("tensorca.warmup", "tensorca.simulate", RATCHET),
    ("tensorca.warmup", "tensorca.topology", RATCHET),
)


def test_no_import_cycles():
    """Not one cycle, function-level imports counted (each printed with the edges that close it)."""
    found = import_graph.cycles()
    assert not found, [(members, [edge.describe() for edge in inside]) for members, inside in found]


def test_no_upward_imports():
    """No module imports from a floor above its own."""
    found = sorted(edge.describe() for edge in import_graph.upward())
    assert not found, found


def test_no_module_over_700_lines():
    assert import_graph.long_modules(700) == []


def test_listed_function_level_imports_still_exist():
    """A deferral fixed is taken off the list, so the list says what is left."""
    found = {(edge.source, edge.target) for edge in import_graph.function_level()}
    stale = sorted((source, target) for source, target, _ in DEFERRED if (source, target) not in found)
    assert not stale, stale


def test_function_level_imports_are_listed():
    listed = {(source, target) for source, target, _ in DEFERRED}
    unlisted = sorted(edge.describe() for edge in import_graph.function_level()
                      if (edge.source, edge.target) not in listed)
    assert not unlisted, unlisted


def test_deferred_reasons_name_an_optional_dependency_or_start_up():
    for source, target, reason in DEFERRED:
        if reason.startswith("defers "):
            deps = set(reason.removeprefix("defers ").split(", "))
            assert deps <= set(import_graph.OPTIONAL), (source, target, reason)
        else:
            assert reason.startswith(("start-up", "RATCHET")), (source, target, reason)


def test_every_module_has_a_floor():
    for name in import_graph.modules():
        import_graph.floor_of(name)


def test_graph_reads_relative_function_level_and_type_checking_imports(tmp_path):
    package = tmp_path / "tensorca"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "errors.py").write_text("")
    (package / "sub" / "__init__.py").write_text("from . import leaf\n")
    (package / "sub" / "leaf.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from ..errors import X\n"
        "if TYPE_CHECKING:\n    from .. import nowhere\n"
        "def f():\n    from tensorca.sub import other\n")
    (package / "sub" / "other.py").write_text("import tensorca.sub.leaf\n")
    import_graph.modules.cache_clear()
    import_graph.import_edges.cache_clear()
    try:
        edges = {(e.source, e.target, e.function_level) for e in import_graph.import_edges(tmp_path)}
    finally:
        import_graph.modules.cache_clear()
        import_graph.import_edges.cache_clear()
    assert ("tensorca.sub", "tensorca.sub.leaf", False) in edges
    assert ("tensorca.sub.leaf", "tensorca.errors", False) in edges
    assert ("tensorca.sub.leaf", "tensorca.sub.other", True) in edges
    assert ("tensorca.sub.other", "tensorca.sub.leaf", False) in edges
    assert not any(target.endswith("nowhere") for _, target, _ in edges)
    found = import_graph.cycles(import_graph.Edge(s, t, "f", 1, fl) for s, t, fl in edges)
    assert [members for members, _ in found] == [["tensorca.sub.leaf", "tensorca.sub.other"]]
