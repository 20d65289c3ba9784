"""Every kernel template, generated for the sample rules of every family the bit-packed engines run, is
source ruff can read: Python that compiles, with no undefined or redefined-unused name.

The bit-packed engines write one Numba (bitpack-cpu) or Triton (bitpack-gpu) module per rule from string
templates, which ruff never sees in the repository; this test generates each kind of module for the
families' sample rules (:mod:`tensorca.families`) plus the generic modules (the rule as data) and checks
the generated text, so a template edit that breaks one rule's module fails here, not on a user's first run
of that rule. Nothing is compiled by Numba or Triton (that is the engine tests' job).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tensorca.engines.bitpack import generations as bitpack_generations
from tensorca.engines.bitpack import gpu_kernels as bitpack_gpu_kernels
from tensorca.engines.bitpack import lanes as bitpack_lanes
from tensorca.engines.bitpack import rows as bitpack_rows
from tensorca.engines.bitpack.bdd import table_circuit
from tensorca.engines.bitpack.circuit import GENERIC, rule_expression
from tensorca.families import families
from tensorca.rules.base import TableRule
from tensorca.verify import rule_value

#: pyflakes' name checks and syntax errors: what a template edit breaks (generated code may leave a
#: temporary unused, which is not an error here).
RUFF_RULES = "E9,F63,F7,F82,F811"


def table_rules() -> list[TableRule]:
    """The sample rules of every family that are 3x3 tables (the bit-packed engines' rules)."""
    found = []
    for family in families():
        for text in family.samples:
            rule = rule_value(text)
            if isinstance(rule, TableRule):
                found.append(rule)
    return found


def generated_sources() -> dict[str, str]:
    """``{name: source}``: every kind of generated module for the sample rules, and the generic ones."""
    # the GPU kernels are generated with either lane load (by how the device wraps lanes): both kinds below
    sources = {"rows-generic": bitpack_rows.kernel_source(GENERIC),
               "rows-generic-table": bitpack_rows.generic_table_source(),
               "generations-generic": bitpack_generations.generic_source(),
               "gpu-lane-packing": bitpack_gpu_kernels._LANE_PACKING}
    for rule in table_rules():
        table, name = bytes(rule.table), rule.canonical()
        if rule.n_states > 2:
            sources[f"generations {name}"] = bitpack_generations.kernel_source(table, rule.n_states)
            continue
        circuit = table_circuit(table)
        if rule.birth is not None and rule.neighbourhood == "M":
            expression = rule_expression(rule.birth, rule.survival)
            sources[f"rows {name}"] = bitpack_rows.kernel_source(expression)
            sources.update(gpu_sources(f"gpu {name}", bitpack_gpu_kernels.kernel_source, expression))
        sources[f"planes {name}"] = bitpack_rows.direct_source(circuit)
        sources.update(gpu_sources(f"gpu planes {name}", bitpack_gpu_kernels.planes_source, circuit))
        sources[f"lanes {name}"] = bitpack_lanes.lanes_source(table)
    return sources


def gpu_sources(name: str, make, argument) -> dict[str, str]:
    """The Triton module both ways its lane words can be loaded (by the Triton version: a second load for
    a torus's wrapped columns, or a select), whichever this machine's Triton would take."""
    chosen = bitpack_gpu_kernels.lane_wrap_by_loads
    try:
        found = {}
        for by_loads in (True, False):
            bitpack_gpu_kernels.lane_wrap_by_loads = lambda by_loads=by_loads: by_loads
            found[f"{name} ({'loads' if by_loads else 'select'})"] = make(argument)
        return found
    finally:
        bitpack_gpu_kernels.lane_wrap_by_loads = chosen


SOURCES = generated_sources()


def test_every_kind_of_module_is_generated():
    kinds = {name.split(" ")[0] for name in SOURCES}
    assert {"rows", "planes", "lanes", "gpu", "generations"} <= kinds, kinds
    assert len(SOURCES) > 40


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_generated_source_compiles(name):
    compile(SOURCES[name], f"<generated {name}>", "exec")


def test_generated_sources_pass_ruff(tmp_path: Path):
    """One ruff run over all of them (ruff reads the generated files as it reads the repository's)."""
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed here (make test installs it)")
    files = {}
    for index, (name, source) in enumerate(sorted(SOURCES.items())):
        path = tmp_path / f"generated_{index}.py"
        path.write_text(source)
        files[path.name] = name
    out = subprocess.run([ruff, "check", "--no-cache", "--isolated", "--select", RUFF_RULES, "--output-format",
                          "concise", str(tmp_path)], capture_output=True, text=True, timeout=300)
    report = out.stdout
    for file, name in files.items():
        report = report.replace(file, f"{file} ({name})")
    assert out.returncode == 0, report
