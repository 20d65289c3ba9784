"""Layering of ``src/tensorca`` (issue 38), read by ``scripts/import_graph.py`` with ``ast``: no import cycles
(function-level imports counted), no import from a lower floor up to a higher one, no module over
700 lines, and every function-level import of a tensorca module listed with its reason.

The lists below are ratchets: what remains may only shrink. A cycle may split or lose modules but no
new one may appear; an upward import or a function-level import not listed fails. Entries marked
``RATCHET`` defer no optional dependency and are to be removed (see the script's report).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import import_graph  # noqa: E402

#: The import cycles left (each a set of modules): a cycle found must lie inside one of these.
KNOWN_CYCLES: tuple[frozenset[str], ...] = (
    frozenset({
        "tensorca",
        "tensorca.analysis",
        "tensorca.analysis.census",
        "tensorca.analysis.classify",
        "tensorca.analysis.evolve",
        "tensorca.analysis.long_period",
        "tensorca.analysis.objects",
        "tensorca.background",
        "tensorca.benchmark",
        "tensorca.benchmark.sweep",
        "tensorca.checkpoint",
        "tensorca.costmodel",
        "tensorca.engines",
        "tensorca.engines.base",
        "tensorca.engines.bitpack_bdd",
        "tensorca.engines.bitpack_choice",
        "tensorca.engines.bitpack_circuit",
        "tensorca.engines.bitpack_lanes",
        "tensorca.engines.bitpack_tiles",
        "tensorca.engines.dask_engine",
        "tensorca.engines.devices",
        "tensorca.engines.ltl_cpu",
        "tensorca.engines.numpy_reference",
        "tensorca.engines.registry",
        "tensorca.engines.stochastic_steps",
        "tensorca.engines.tiered",
        "tensorca.engines.torch_kernels",
        "tensorca.families",
        "tensorca.families.generations",
        "tensorca.families.isotropic",
        "tensorca.families.larger_than_life",
        "tensorca.families.lenia",
        "tensorca.families.lenia.steps",
        "tensorca.families.lenia_expanded",
        "tensorca.families.life_like",
        "tensorca.families.map_rules",
        "tensorca.families.native",
        "tensorca.families.registry",
        "tensorca.families.rule_table",
        "tensorca.families.stochastic",
        "tensorca.families.super_history",
        "tensorca.families.wolfram",
        "tensorca.hashlife",
        "tensorca.hashlife.checkpoint",
        "tensorca.hashlife.universe",
        "tensorca.io",
        "tensorca.io.common",
        "tensorca.io.detect",
        "tensorca.io.files",
        "tensorca.io.macrocell",
        "tensorca.io.rle",
        "tensorca.lenia",
        "tensorca.lenia.expanded",
        "tensorca.lenia.flow",
        "tensorca.lenia.library",
        "tensorca.margolus",
        "tensorca.margolus.emulated",
        "tensorca.margolus.engine",
        "tensorca.margolus.pattern",
        "tensorca.memory",
        "tensorca.observers",
        "tensorca.outofcore.store",
        "tensorca.pattern",
        "tensorca.random_grids",
        "tensorca.render",
        "tensorca.render.frames",
        "tensorca.render.gif",
        "tensorca.render.mp4",
        "tensorca.rules",
        "tensorca.rules.lenia",
        "tensorca.rules.notations",
        "tensorca.search",
        "tensorca.search.band_kernels",
        "tensorca.search.distributed",
        "tensorca.search.lane_kernels",
        "tensorca.search.lane_tier",
        "tensorca.search.soups",
        "tensorca.search.tiled_tier",
        "tensorca.simulate",
        "tensorca.simulate.api",
        "tensorca.simulate.checks",
        "tensorca.simulate.lazy",
        "tensorca.simulate.plan",
        "tensorca.simulate.select",
        "tensorca.unbounded",
        "tensorca.view",
        "tensorca.view.colours",
        "tensorca.view.display",
        "tensorca.warmup",
    }),
    frozenset({
        "tensorca.rules.rulecolors",
        "tensorca.rules.rulefile",
        "tensorca.rules.ruletable",
        "tensorca.rules.tree",
    }),
    frozenset({
        "tensorca.cli.dask_run",
        "tensorca.cli.run",
    }),
)

#: Upward imports left, (importer, imported).
KNOWN_UPWARD: frozenset[tuple[str, str]] = frozenset({
    ("tensorca.checkpoint", "tensorca"),
    ("tensorca.engines", "tensorca.margolus"),
    ("tensorca.engines", "tensorca.margolus.engine"),
    ("tensorca.engines.bitpack_choice", "tensorca.background"),
    ("tensorca.engines.bitpack_choice", "tensorca.warmup"),
    ("tensorca.engines.tiered", "tensorca.background"),
    ("tensorca.examples.fit_lenia", "tensorca"),
    ("tensorca.examples.learn_rule", "tensorca"),
    ("tensorca.io.files", "tensorca.data"),
    ("tensorca.io.files", "tensorca.data.catalog"),
    ("tensorca.io.macrocell", "tensorca"),
    ("tensorca.pattern", "tensorca.view"),
    ("tensorca.pattern", "tensorca.view.display"),
    ("tensorca.rules.notations", "tensorca.lenia"),
    ("tensorca.rules.notations", "tensorca.lenia.expanded"),
    ("tensorca.search.distributed", "tensorca"),
    ("tensorca.simulate.select", "tensorca.background"),
    ("tensorca.simulate.select", "tensorca.warmup"),
    ("tensorca.unbounded", "tensorca.simulate"),
    ("tensorca.unbounded", "tensorca.simulate.plan"),
})

#: Reasons: a function-level import that defers no optional dependency (to be removed), or one that keeps
#: ``import tensorca`` and each command's start-up from importing what it does not need.
RATCHET = "RATCHET: defers no optional dependency"
START_UP = "start-up: imported on first use"

#: Function-level imports of tensorca modules: (importer, imported, reason).
DEFERRED: tuple[tuple[str, str, str], ...] = (
    ("tensorca", "tensorca.benchmark", START_UP),
    ("tensorca", "tensorca.search.distributed", "defers numba"),
    ("tensorca.analysis.long_period", "tensorca.hashlife", RATCHET),
    ("tensorca.analysis.long_period", "tensorca.hashlife.universe", "defers numba"),
    ("tensorca.benchmark.loader", "tensorca.data", RATCHET),
    ("tensorca.checkpoint", "tensorca", RATCHET),
    ("tensorca.checkpoint", "tensorca.errors", RATCHET),
    ("tensorca.checkpoint", "tensorca.hashlife.checkpoint", RATCHET),
    ("tensorca.checkpoint", "tensorca.topology", RATCHET),
    ("tensorca.cli", "tensorca", START_UP),
    ("tensorca.cli._args", "tensorca.data", START_UP),
    ("tensorca.cli._args", "tensorca.random_grids", START_UP),
    ("tensorca.cli.bench", "tensorca.benchmark", START_UP),
    ("tensorca.cli.bench", "tensorca.benchmark.calibrate", START_UP),
    ("tensorca.cli.bench", "tensorca.benchmark.plot", START_UP),
    ("tensorca.cli.bench", "tensorca.costmodel", START_UP),
    ("tensorca.cli.bench", "tensorca.engines", START_UP),
    ("tensorca.cli.dask_run", "tensorca.cli.run", START_UP),
    ("tensorca.cli.dask_run", "tensorca.cluster", START_UP),
    ("tensorca.cli.dask_run", "tensorca.engines", START_UP),
    ("tensorca.cli.dask_run", "tensorca.io", START_UP),
    ("tensorca.cli.dask_run", "tensorca.outofcore.soup", "defers dask"),
    ("tensorca.cli.dask_run", "tensorca.outofcore.store", "defers dask"),
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
    ("tensorca.engines", "tensorca.engines.bitpack_choice", RATCHET),
    ("tensorca.engines", "tensorca.engines.bitpack_circuit", START_UP),
    ("tensorca.engines", "tensorca.engines.ltl_cpu", START_UP),
    ("tensorca.engines", "tensorca.engines.stochastic_steps", START_UP),
    ("tensorca.engines", "tensorca.margolus.engine", START_UP),
    ("tensorca.engines.bitpack_choice", "tensorca.background", RATCHET),
    ("tensorca.engines.bitpack_choice", "tensorca.warmup", RATCHET),
    ("tensorca.engines.dask_engine", "tensorca.arrays", RATCHET),
    ("tensorca.engines.dask_engine", "tensorca.costmodel", RATCHET),
    ("tensorca.engines.ltl_cpu", "tensorca._numba", "defers numba"),
    ("tensorca.engines.ltl_cpu", "tensorca.engines.ltl_sums", "defers numba"),
    ("tensorca.engines.stochastic_steps", "tensorca.cache_dirs", RATCHET),
    ("tensorca.engines.stochastic_steps", "tensorca.engines.bitpack_choice", RATCHET),
    ("tensorca.engines.stochastic_steps", "tensorca.engines.bitpack_circuit", RATCHET),
    ("tensorca.engines.stochastic_steps", "tensorca.engines.numpy_reference", RATCHET),
    ("tensorca.engines.stochastic_steps", "tensorca.engines.torch_kernels", "defers torch"),
    ("tensorca.families.lenia.steps", "tensorca.engines.numpy_reference", RATCHET),
    ("tensorca.families.lenia.steps", "tensorca.engines.torch_kernels", "defers torch"),
    ("tensorca.families.rule_table.steps", "tensorca.engines.torch_kernels", "defers torch"),
    ("tensorca.hashlife", "tensorca.errors", START_UP),
    ("tensorca.hashlife", "tensorca.hashlife.store", "defers numba"),
    ("tensorca.hashlife", "tensorca.hashlife.universe", "defers numba"),
    ("tensorca.hashlife.checkpoint", "tensorca.checkpoint", RATCHET),
    ("tensorca.hashlife.checkpoint", "tensorca.io", RATCHET),
    ("tensorca.hashlife.checkpoint", "tensorca.io.macrocell", RATCHET),
    ("tensorca.io.common", "tensorca.rules", RATCHET),
    ("tensorca.io.files", "tensorca.atomic", RATCHET),
    ("tensorca.io.files", "tensorca.data.catalog", RATCHET),
    ("tensorca.io.files", "tensorca.rules.ruleloader", RATCHET),
    ("tensorca.io.macrocell", "tensorca", RATCHET),
    ("tensorca.io.macrocell", "tensorca.hashlife", RATCHET),
    ("tensorca.io.macrocell", "tensorca.hashlife.universe", "defers numba"),
    ("tensorca.lenia.expanded", "tensorca.engines.numpy_reference", RATCHET),
    ("tensorca.lenia.expanded", "tensorca.engines.torch_kernels", "defers torch"),
    ("tensorca.lenia.expanded", "tensorca.families.lenia.steps", RATCHET),
    ("tensorca.lenia.flow", "tensorca.families.lenia.steps", RATCHET),
    ("tensorca.lenia.flow", "tensorca.lenia.cells", RATCHET),
    ("tensorca.margolus.engine", "tensorca.engines.registry", RATCHET),
    ("tensorca.margolus.engine", "tensorca.margolus.emulated", RATCHET),
    ("tensorca.margolus.pattern", "tensorca.rules", RATCHET),
    ("tensorca.margolus.simulate", "tensorca._jit", "defers numba"),
    ("tensorca.margolus.simulate", "tensorca.margolus.fast", "defers numba"),
    ("tensorca.margolus.simulate", "tensorca.margolus.torch_step", "defers torch"),
    ("tensorca.pattern", "tensorca.io", RATCHET),
    ("tensorca.pattern", "tensorca.rules", RATCHET),
    ("tensorca.pattern", "tensorca.view.display", RATCHET),
    ("tensorca.prebuild", "tensorca._numba", RATCHET),
    ("tensorca.rules.notations", "tensorca.lenia.expanded", RATCHET),
    ("tensorca.rules.notations", "tensorca.rules.lenia", RATCHET),
    ("tensorca.rules.rulefile", "tensorca.rules.rulecolors", RATCHET),
    ("tensorca.rules.rulefile", "tensorca.rules.ruletable", RATCHET),
    ("tensorca.rules.rulefile", "tensorca.rules.tree", RATCHET),
    ("tensorca.rules.ruleloader", "tensorca.rules.rulecolors", RATCHET),
    ("tensorca.rules.ruleloader", "tensorca.rules.spec", RATCHET),
    ("tensorca.rules.ruleloader", "tensorca.rules.super", RATCHET),
    ("tensorca.rules.ruletable", "tensorca.rules.tree", RATCHET),
    ("tensorca.rules.stochastic", "tensorca.rules.spec", RATCHET),
    ("tensorca.rules.super", "tensorca.rules.spec", RATCHET),
    ("tensorca.sandpile.api", "tensorca.engines.registry", RATCHET),
    ("tensorca.sandpile.api", "tensorca.sandpile.fast", "defers numba"),
    ("tensorca.sandpile.api", "tensorca.sandpile.reference", RATCHET),
    ("tensorca.sandpile.api", "tensorca.sandpile.tensor", RATCHET),
    ("tensorca.search.distributed", "tensorca", RATCHET),
    ("tensorca.search.distributed", "tensorca._numba", RATCHET),
    ("tensorca.search.distributed", "tensorca.io.haul", RATCHET),
    ("tensorca.search.lane_tier", "tensorca._jit", RATCHET),
    ("tensorca.search.lane_tier", "tensorca.engines.bitpack_circuit", RATCHET),
    ("tensorca.search.lane_tier", "tensorca.engines.bitpack_lanes", RATCHET),
    ("tensorca.search.lane_tier", "tensorca.search.soups", RATCHET),
    ("tensorca.search.soups", "tensorca._numba", RATCHET),
    ("tensorca.search.tiled_tier", "tensorca.engines.bitpack_tiles", RATCHET),
    ("tensorca.simulate.lazy", "tensorca.checkpoint", RATCHET),
    ("tensorca.simulate.lazy", "tensorca.engines", RATCHET),
    ("tensorca.simulate.lazy", "tensorca.engines.dask_engine", "defers dask"),
    ("tensorca.simulate.lazy", "tensorca.errors", RATCHET),
    ("tensorca.simulate.lazy", "tensorca.outofcore.paths", RATCHET),
    ("tensorca.simulate.lazy", "tensorca.outofcore.store", "defers dask"),
    ("tensorca.simulate.lazy", "tensorca.simulate.api", RATCHET),
    ("tensorca.unbounded", "tensorca.hashlife.checkpoint", RATCHET),
    ("tensorca.unbounded", "tensorca.simulate.plan", RATCHET),
    ("tensorca.view.colours", "tensorca.render.colormaps", RATCHET),
    ("tensorca.view.colours", "tensorca.render.frames", RATCHET),
    ("tensorca.view.display", "tensorca.rules.spec", RATCHET),
    ("tensorca.view.source", "tensorca.pattern", RATCHET),
    ("tensorca.view.source", "tensorca.rules.spec", RATCHET),
    ("tensorca.view.source", "tensorca.simulate", RATCHET),
    ("tensorca.view.source", "tensorca.view.colours", RATCHET),
    ("tensorca.warmup", "tensorca.cpu_load", RATCHET),
    ("tensorca.warmup", "tensorca.data", RATCHET),
    ("tensorca.warmup", "tensorca.engines", RATCHET),
    ("tensorca.warmup", "tensorca.engines.bitpack_choice", RATCHET),
    ("tensorca.warmup", "tensorca.engines.registry", RATCHET),
    ("tensorca.warmup", "tensorca.io", RATCHET),
    ("tensorca.warmup", "tensorca.random_grids", RATCHET),
    ("tensorca.warmup", "tensorca.rules.spec", RATCHET),
    ("tensorca.warmup", "tensorca.search.soups", "defers numba"),
    ("tensorca.warmup", "tensorca.simulate", RATCHET),
    ("tensorca.warmup", "tensorca.topology", RATCHET),
)


def test_no_new_import_cycles():
    found = import_graph.cycles()
    grown = [(members, [edge.describe() for edge in inside]) for members, inside in found
             if not any(set(members) <= known for known in KNOWN_CYCLES)]
    assert not grown, grown
    assert len(found) <= len(KNOWN_CYCLES)


def test_no_new_upward_imports():
    new = sorted(edge.describe() for edge in import_graph.upward() if (edge.source, edge.target) not in KNOWN_UPWARD)
    assert not new, new


def test_no_module_over_700_lines():
    assert import_graph.long_modules(700) == []


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
